/* Worst-case differential privacy curves of additive noise mechanisms with
 * sensitivity 1: the released value is N (noise) under one hypothesis and
 * N + 1 under the other, so
 *
 *   Laplace(b):        delta(eps) = max(0, 1 - exp((eps - 1/b)/2))
 *   geometric(alpha):  delta(eps) = max(0, 1 - alpha e^eps) / (1 + alpha)
 *                      (P(k) = (1-alpha)/(1+alpha) alpha^|k|)
 *   Gaussian(sigma):   delta(eps) = Phi(a) - e^eps Phi(a - 1/sigma),
 *                      a = 1/(2 sigma) - eps sigma
 *
 * (Balle & Wang, "Improving the Gaussian mechanism for differential privacy",
 * 2018, Thm. 8, for the Gaussian; Breutigam & Reischuk, "Statistical
 * Privacy", for the sensitivity-1 reductions).  All three are symmetric, so
 * both directions agree; eps < 0 uses delta(eps) = 1 - e^eps + e^eps delta(-eps).
 *
 * Every function returns ln delta; -inf exactly where delta = 0 (the true
 * delta, not a rounded one), a finite value (at worst -DBL_MAX) wherever the
 * true delta is positive.  Pure functions: no global state, no allocation,
 * safe without the GIL. */
#ifndef STATPRIV_DP_H
#define STATPRIV_DP_H

#include "sp_curve.h"

/* Normal-distribution special functions, supplied by the caller (scipy's
 * cython_special): C cannot call scipy directly. */
typedef struct {
    double (*ndtr)(double);        /* Phi */
    double (*log_ndtr)(double);    /* ln Phi */
    double (*erfcx)(double);       /* e^(x^2) erfc(x) */
} sp_normal_fns;

enum { SP_DP_LAPLACE = 0, SP_DP_GAUSSIAN = 1, SP_DP_GEOMETRIC = 2 };

/* One worst-case DP curve.  The zero point eps0 (1/b, -ln alpha; +inf for
 * the Gaussian) is held as a double-double eps0_hi + eps0_lo accurate to
 * ~2^-106 relative, so that delta near eps0 keeps full relative accuracy and
 * the sign of eps - eps0 is exact for every double eps. */
typedef struct {
    int kind;
    double param;           /* b, sigma or alpha */
    double eps0_hi, eps0_lo;
    double log1p_alpha;     /* geometric: ln(1 + alpha) */
    sp_normal_fns normal;   /* Gaussian only */
} sp_dp_curve;

/* ln delta, eps >= 0 (eps = +inf allowed), from the zero point 1/b as a
 * double-double (see sp_dp_init_laplace). */
double sp_dp_laplace_log_delta(double eps, double inv_b_hi, double inv_b_lo);

/* ln delta, eps >= 0, from -ln alpha as a double-double and ln(1 + alpha). */
double sp_dp_geometric_log_delta(double eps, double eps0_hi, double eps0_lo, double log1p_alpha);

/* ln delta, eps >= 0; finite for every finite eps (clamped at -DBL_MAX where
 * ln delta itself would overflow). */
double sp_dp_gaussian_log_delta(double eps, double sigma, const sp_normal_fns *fns);

/* Initialisers.  The Laplace zero point 1/b is made exact here
 * (hi = 1/b, lo = fma(-hi, b, 1)/b); -ln alpha needs a logarithm to ~106
 * bits, which the caller supplies (statpriv computes it with mpmath). */
void sp_dp_init_laplace(sp_dp_curve *c, double b);
void sp_dp_init_geometric(sp_dp_curve *c, double alpha, double neg_log_alpha_hi,
                          double neg_log_alpha_lo);
void sp_dp_init_gaussian(sp_dp_curve *c, double sigma, const sp_normal_fns *fns);

/* The sp_curve_fn of an sp_dp_curve (ctx): ln delta(eps) for any eps, any
 * direction (the curves are symmetric). */
double sp_dp_curve_log_delta(double eps, sp_direction direction, const void *ctx);

#endif
