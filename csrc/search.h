/* Inverse queries on monotone curves: the smallest eps >= 0 with
 * delta(eps) <= target, by bracketing and the Illinois variant of regula
 * falsi on ln delta (which is smooth and non-increasing in eps).
 *
 * Convention for the curve functions searched (every sp_curve_fn):
 *   ln delta = -inf  exactly where the TRUE delta is 0 (never because a
 *                    positive delta underflowed: kernels whose delta is
 *                    positive but whose ln delta is out of range return a
 *                    finite value, at worst -DBL_MAX);
 *   NaN              for a failed evaluation (propagated to the caller).
 * With it, epsilon(0) -- the smallest float at which the curve is -inf --
 * is the smallest float with delta = 0 on the true curve, and +inf where
 * delta > 0 at every finite eps (e.g. Gaussian noise). */
#ifndef STATPRIV_SEARCH_H
#define STATPRIV_SEARCH_H

#include "sp_curve.h"
#include "binomial_tail.h"

/* The smallest eps in [0, +inf] (to a few ulps, rounded up) with
 * ln delta(eps) <= log_target - log_tol - (a margin of 2^-48 max(1,
 * |log_target|) for the rounding of ln delta and of exp):
 *   - log_target >= 0 (target >= 1): 0, since delta <= 1 always;
 *   - log_target = -inf (target 0): the smallest float with ln delta = -inf,
 *     found exactly (bisection on the bit patterns), +inf if there is none;
 *   - +inf if only eps = +inf reaches the target;
 *   - NaN if log_target or log_tol is NaN or the curve returned NaN.
 * log_tol >= 0 is the curve's own bound on how far its float ln delta may lie
 * below the true one, beyond the 1e-12 relative that the caller's guarantee
 * delta_true(eps) <= target (1 + 1e-12) already allows: 0 for curves exact to
 * 1e-12, ~1e-10 for curves only promised to 1e-10 (noisy counts).
 * positive is a bit mask: bit (1 << direction) set declares that delta > 0
 * at every finite eps in that direction (a property of the mechanism, e.g.
 * Gaussian noise on laws whose supports end at different atoms); then
 * target 0 gives +inf without trusting the curve's -inf values.
 * At most SP_SEARCH_MAX_EVALS curve evaluations. */
double sp_smallest_eps(sp_curve_fn log_delta, const void *ctx, sp_direction direction, double log_target,
                       double log_tol, int positive);

#define SP_SEARCH_MAX_EVALS 400

/* Illinois regula falsi on a bracket: f(*lo) and f(*hi) have opposite signs
 * (either way round; *flo, *fhi hold them).  Shrinks the bracket in place,
 * keeping the signs at its ends, until its width is below
 * rel_tol * max(|lo|, |hi|) (or 4 ulps), an exact zero is hit (then
 * lo = hi = the zero), or max_evals evaluations are spent.  Returns the
 * number of evaluations; NaN from f stops the search (then *flo is NaN). */
typedef double (*sp_scalar_fn)(double x, const void *ctx);
int sp_illinois(sp_scalar_fn f, const void *ctx, double *lo, double *flo, double *hi,
                double *fhi, double rel_tol, int max_evals);

/* sp_smallest_eps for the noiseless binomial curve (sp_binom_curve_log_delta),
 * fast at large N: where sqrt(N p q) >= SP_BINOM_SEARCH_MIN_SD the answer is
 * located on a cheap approximation of delta, then settled on ONE exact sum
 * (usually): on the likelihood-ratio cells of that evaluation delta is
 * linear in e^eps, so the crossing is solved there and the cells that
 * enter or leave are added term by term.  Returns the smallest float eps
 * with the exact sum's delta <= the aim of sp_smallest_eps (same result to
 * a few ulps); falls back to sp_smallest_eps where this does not apply. */
#define SP_BINOM_SEARCH_MIN_SD 4096.0
/* The local-model excess of a Newton settle: delta(eps)/b0 - target/b0 on
 * the model around the exact sums `at`, and its slope times -e^eps
 * (positive); 1 if eps is out of the model's reach. */
typedef int (*sp_model_fn)(const void *ctx, const sp_binom_sums *at, double eps,
                           long double *excess, long double *slope);

/* The smallest float eps with model excess <= 0, starting from the guess x
 * (exact sums re-taken at most 6 times); NAN with *fallback = 1 where the
 * model route does not settle. */
double sp_binom_settle_eps(const sp_binom *b, double x, sp_model_fn model, const void *ctx,
                           int *fallback);

double sp_binom_smallest_eps(const sp_binom_curve *c, sp_direction direction, double log_target,
                             double log_tol);

/* The aim of sp_smallest_eps: log_target lowered by log_tol and a margin of
 * 2^-48 max(1, |log_target|) for the rounding of ln delta and of exp (for
 * mechanism-specific searches that settle the answer on their own sums). */
double sp_search_aim(double log_target, double log_tol);

/* The same contract and answer (to the same few ulps) as sp_smallest_eps,
 * in fewer curve evaluations: the secant steps work on sqrt(-ln delta)
 * (close to linear in eps at large counts) and SP_MAX evaluates the second
 * direction only where the first does not already exceed the aim.  Used
 * for the curves whose evaluation is costly (noisy counts, sampled laws). */
double sp_smallest_eps_lean(sp_curve_fn log_delta, const void *ctx, sp_direction direction,
                            double log_target, double log_tol, int positive);

/* sp_smallest_eps_lean's contract, and its answer to ~5e-10 relative (never
 * below it), for a curve whose exact evaluation is costly but which has a
 * cheap estimate of ln delta, est on est_ctx[0] (plain), est_ctx[1] (an
 * upper bound: plus its error bound), est_ctx[2] (a likely lower bound), e.g. the
 * closed-form tails of sp_pair_curve_log_delta_estimate.  The search runs on
 * the plain estimate, aiming margin * max(1, |log_target|) lower (margin:
 * ~10 times the plain estimate's relative error in ln delta, e.g. 2^-38 for
 * the pair cells, 2^-34 for Gaussian noise); its answer y is returned only if
 * the EXACT curve meets the aim at y (one exact evaluation) and the lower
 * bound exceeds the aim at y (1 - 2^-31) (the exact answer is not far below
 * y); else (if it was the exact check that failed) once more on the upper
 * bound, checked likewise, and else the exact lean search.  The estimates must equal the exact curve at eps = +inf and
 * follow its -inf convention (they return the exact value where they do not
 * apply). */
double sp_smallest_eps_estimated(sp_curve_fn log_delta, const void *ctx, sp_curve_fn est,
                                 const void *const est_ctx[3], double margin,
                                 sp_direction direction, double log_target, double log_tol,
                                 int positive);

#endif
