/* Poisson-subsampled worst-case DP curves under the replace-one relation.
 *
 * Each record's contribution is bounded by the sensitivity (1 here: the
 * caller divides the noise parameter by it); a record is kept with
 * probability q.  Replacing the target's record x by x' changes the release
 * from (1-q) N + q (N + 1) to (1-q) N + q (N - 1) in the worst case, N the
 * noise (dp-accounting's REPLACE adjacency; Zhu, Dong & Wang, "Optimal
 * accounting of differential privacy via characteristic function"):
 *
 *   A = (1-q) N(0) + q N(1),   C = (1-q) N(0) + q N(-1),   delta = H_eps(A || C).
 *
 * C is A mirrored, so both directions agree.  The likelihood ratio A/C is
 * increasing, so H_eps(A || C) is the mass beyond the one crossing x*, and
 * writing A - e^eps C on x > x* as a sum of two non-negative terms gives
 * closed forms without cancellation:
 *
 *   Gaussian(sigma):  delta = q (dG(e1) + e^(eps - e2) dG(e2)),
 *       u = x* / sigma^2 = eps/2 + asinh(sinh(eps/2) (1-q)/q e^(1/(2 sigma^2))),
 *       e1,2 = u -+ 1/(2 sigma^2), dG the unsampled Gaussian curve
 *       (dp.h) of sigma;
 *   Laplace(b), t = 1/b, r = (1-q)/q:  delta = q (1 - e^x) for eps < z, else 0,
 *       x = ln(1 + (1 + r e^-t) (e^(eps - z) - 1)) / 2,
 *       z = ln((e^t + r) / (e^-t + r)) the largest log ratio (the zero point),
 *       given as a double-double so that eps - z, and delta with it, keep
 *       their relative accuracy up to the last double below z.
 *
 * Both return ln delta for any eps (the negative-eps identity below 0), -inf
 * exactly where delta = 0.  Pure functions: no global state, no allocation,
 * safe without the GIL. */
#ifndef STATPRIV_DP_REPLACE_H
#define STATPRIV_DP_REPLACE_H

#include "sp_curve.h"
#include "dp.h"

typedef struct {
    int kind;                /* SP_DP_GAUSSIAN or SP_DP_LAPLACE (dp.h) */
    double param;            /* sigma or b, at sensitivity 1 */
    double q;                /* the sampling probability, 0 < q < 1 */
    double log_q, log_odds;  /* ln q and ln((1-q)/q) */
    double z_hi, z_lo;       /* Laplace: the zero point z as a double-double */
    double log_slope;        /* Laplace: ln(1 + r e^-t) */
    sp_normal_fns normal;    /* Gaussian only */
} sp_dp_replace_curve;

/* Initialiser: 0 < q < 1 and param > 0 (the caller validates); fns may be
 * NULL for Laplace, whose zero point z (dp_replace.h) the caller gives as a
 * double-double z_hi + z_lo to ~2^-106 (statpriv: mpmath); the Gaussian
 * ignores it. */
void sp_dp_replace_init(sp_dp_replace_curve *c, int kind, double param, double q,
                        double z_hi, double z_lo, const sp_normal_fns *fns);

/* The sp_curve_fn of an sp_dp_replace_curve (ctx): ln delta(eps), any
 * direction (the curve is symmetric). */
double sp_dp_replace_log_delta(double eps, sp_direction direction, const void *ctx);

#endif
