/* A curve computed on a window of its laws, plus the bounded mass left out.
 *
 * The kernels sum over the atoms they are given.  When P and Q are given only
 * on a window (sub-measures P_w <= P, Q_w <= Q; the rest has total mass at
 * most rest_p and rest_q), then for eps >= 0, with L+ >= every ln P(x)/Q(x)
 * and L- <= every ln P(x)/Q(x) of the full laws,
 *   H_eps(P||Q) <= H_eps(P_w||Q_w) + rest_p * (1 - e^(eps - L+))_+,
 *   H_eps(Q||P) <= H_eps(Q_w||P_w) + rest_q * (1 - e^(eps + L-))_+,
 * because (a + b)_+ <= a_+ + b_+ atom by atom (and after adding independent
 * noise, which acts on each atom's pair alike).  The window's part never
 * exceeds the true curve, so the result is an upper bound that is exact
 * wherever delta is much larger than the rest.  For eps < 0 the kernels use
 * H_eps(P||Q) = 1 - e^eps + e^eps H_-eps(Q||P), which for sub-measures is
 * short by at most e^eps rest_q: rest_p + rest_q is added there.
 * zero_from is a proven bound on |ln f_P/f_Q| of the full laws (or +inf):
 * delta is exactly 0 from eps = zero_from on, whatever was cut. */
#ifndef STATPRIV_BOUNDED_H
#define STATPRIV_BOUNDED_H

#include "shift_tail.h"

typedef struct {
    sp_curve_fn fn;          /* the curve of the window */
    const void *ctx;
    double log_rest_p;       /* ln of the bound on P's mass left out (-inf: none) */
    double log_rest_q;
    double lr_max, lr_min;   /* bounds on ln P/Q over the full laws (+-inf: none) */
    double zero_from;
} sp_bounded;

double sp_bounded_log_delta(double eps, int direction, const void *ctx);

#endif
