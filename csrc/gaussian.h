/* A count plus N(0, sigma^2) noise: exact normal tail sums at the sign
 * changes of f_P - e^eps f_Q (docs/mathematics.md §6).  The noisy laws are
 * mixtures f_A(x) = sum_k A(k) phi(x - k) of the count laws A = P (target
 * positive) and Q (target negative), given as log pmfs on consecutive
 * integer atoms; logs of masses are long double throughout.
 * Layer: uses sp_curve.h and logspace.h. */
#ifndef STATPRIV_GAUSSIAN_H
#define STATPRIV_GAUSSIAN_H

#include "sp_curve.h"

/* Count plus N(0, sigma^2) noise, sigma > 0 any double (down to the
 * smallest subnormal: exponents are long double).
 *
 * Exact per direction: delta = sum_k D_k P[N(k, sigma^2) on the positive
 * side of x*], D_k = A(k) - e^eps B(k), at the single sign change x* of
 * f_A - e^eps f_B (monotone laws; Karlin's variation diminishing property
 * of the Gaussian kernel), summed per atom in log space, positive and
 * negative D apart and again in long double where the two sums cancel
 * (beyond the atoms, to ~1/(sigma t) relative): delta to ~1e-11 relative
 * (2^-40 from the tail sums, the rest from the closed-form inner sums,
 * which are used only where they do not cancel below 1e-5) plus the
 * rounding of the double ln delta, wherever it lies, for the atoms in
 * lp/lq (the monotone path; the grid path of other laws is in double).
 *
 * Return convention of sp_gauss_curve_log_delta:
 *   -inf      delta = 0 exactly: eps >= ln max_k A(k)/B(k) (possible only
 *             when that ratio is bounded, e.g. sampling without
 *             replacement), or eps = +inf;
 *   -DBL_MAX  delta > 0 but ln delta is below -DBL_MAX (eps sigma ~ 1e154
 *             or more): a marker, never reached at ordinary eps;
 *   NaN       eps is NaN. */
typedef struct {
    const long double *lp, *lq;     /* log pmfs on atoms 0..len-1 */
    const long double *lsp, *lcp;   /* log survival / log cdf of P */
    const long double *lsq, *lcq;   /* ... and of Q */
    long len;
    double sigma;
    long double lpmax, lqmax;       /* max of lp, lq */
    long double lr_max, lr_min;     /* max and min of ln P/Q over atoms with P + Q > 0 */
    long double lr_max_lo, lr_min_lo; /* their low parts (0 if none): ln P/Q = hi + lo */
    /* optional (NULL if none): ln P(k)/Q(k) = lr[k] + lr_lo[k] accurately (closed
     * forms of the laws, double-double where refined).  With them every
     * D_k = A(k) - e^eps B(k) is A(k)(1 - e^-(ln A/B - eps)) with the exponent
     * free of the rounding of lp - lq: relative accuracy where P and Q nearly
     * agree (tiny sampling rates) and near the zero point. */
    const long double *lr, *lr_lo;
    int monotone;               /* lp - lq non-decreasing on those atoms (MLR) */
    double (*log_ndtr)(double); /* ln Phi, supplied by the caller (scipy) */
    double (*erfcx)(double);    /* e^(x^2) erfc(x), likewise */
} sp_gauss;

double sp_gauss_curve_log_delta(double eps, sp_direction direction, const void *ctx);

/* A cheaper estimate for the epsilon search (search.h,
 * sp_smallest_eps_estimated): as the exact curve,
 * but the atoms more than SP_GAUSS_INNER_SD inside the positive tail always
 * come from the closed form S_A - e^eps S_B of the cumulative sums, also
 * where it cancels (the exact curve sums them one by one where S_A and e^eps
 * S_B agree to 1e-5: at large counts and small eps that is most of the
 * atoms).  with_err = +1 adds the closed form's error bound (the sums to
 * 2^-50 + len 2^-63 relative each, their logs to 2^-52 of their size: an
 * upper bound), -1 subtracts its typical part (without len 2^-63: a likely
 * lower bound), 0 is the plain estimate.  Not a curve: the search verifies
 * its answer on sp_gauss_curve_log_delta.  ctx: an sp_estimate whose curve
 * is the sp_gauss. */

double sp_gauss_curve_log_delta_estimate(double eps, sp_direction direction, const void *ctx);

/* Bounds of the work: evaluations of the ratio per root, grid points per
 * sigma and in all (the grid serves only laws without monotone ratio). */
#define SP_GAUSS_MAX_ROOT_EVALS 400
#define SP_GAUSS_GRID_PER_SIGMA 8.0
#define SP_GAUSS_MAX_GRID 4000000L
/* Atoms this many sd inside a one-sided tail count with mass 1 (error
 * Phi(-12) = 1.8e-33 relative): their sum of D comes from the cumulative sums. */
#define SP_GAUSS_INNER_SD 12.0

#endif
