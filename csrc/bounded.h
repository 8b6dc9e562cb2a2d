/* A curve computed on a window of its laws, plus the bounded mass left out.
 *
 * The kernels sum over the atoms they are given.  When P and Q are given only
 * on a window (sub-measures P_w <= P, Q_w <= Q; the rest has total mass at
 * most rest_p and rest_q), then for eps >= 0, with L+ >= and L- <= every
 * ln R_P(x)/R_Q(x) of the rest (e.g. the true ratio P/Q, when the kernel is
 * given the true ratio and P_w = P - R_P),
 *   H_eps(P||Q) <= H_eps(P_w||Q_w) + rest_p * (1 - e^(eps - L+))_+,
 *   H_eps(Q||P) <= H_eps(Q_w||P_w) + rest_q * (1 - e^(eps + L-))_+,
 * because (a + b)_+ <= a_+ + b_+ atom by atom (and after adding independent
 * noise, which acts on each atom's pair alike).  The window's part never
 * exceeds the true curve, so the result is an upper bound that is exact
 * wherever delta is much larger than the rest.  For eps < 0 the kernels use
 * H_eps(P||Q) = 1 - e^eps + e^eps H_-eps(Q||P), which for sub-measures is
 * short by at most e^eps rest_q: rest_p + rest_q is added there.
 * zero_plus >= sup ln f_P/f_Q and zero_minus >= sup ln f_Q/f_P of the full
 * laws (+inf if unbounded), e.g. the sampling ratio bound or 1/b for Laplace
 * noise: delta_plus is exactly 0 from eps = zero_plus on (and delta_plus(eps)
 * = 1 - e^eps exactly for eps <= -zero_minus), whatever was cut.
 * At eps = +inf the bound keeps the rest of a direction whose ratio bound is
 * +inf only where `discrete` is set: laws without noise, whose cut atoms may
 * carry mass where the other law has none (delta(+inf) > 0 there); noise
 * with an unbounded density ratio (Gaussian) has delta(+inf) = 0. */
#ifndef STATPRIV_BOUNDED_H
#define STATPRIV_BOUNDED_H

#include "sp_curve.h"

typedef struct {
    sp_curve_fn fn;          /* the curve of the window */
    const void *ctx;
    double log_rest_p;       /* ln of the bound on P's mass left out (-inf: none) */
    double log_rest_q;
    double lr_max, lr_min;   /* bounds on ln P/Q of the rest, atom by atom (+-inf: none) */
    double zero_plus, zero_minus;
    int discrete;            /* the rest may hold mass at ratio +inf (see above) */
    /* Optional (NULL when unused): a cheap upper bound on the window's
     * ln delta in one direction, NaN where it has none that is cheap (e.g.
     * sp_pair_log_delta_upper).  With it, SP_MAX evaluates exactly only the
     * direction with the larger bound, and the other only where its bound
     * reaches that exact value: the two directions often differ by orders of
     * magnitude (a count's skew: 5e-122 against 6e-119 at n = 1e6, pi = 0.3
     * with Laplace(3) noise, eps = 0.05), and each exact direction costs
     * hundreds of cells. */
    sp_curve_fn upper;
    const void *upper_ctx;
} sp_bounded;

double sp_bounded_log_delta(double eps, sp_direction direction, const void *ctx);

#endif
