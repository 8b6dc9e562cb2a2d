/* Inverse queries on monotone curves: the smallest eps >= 0 with
 * delta(eps) <= target, by bracketing and the Illinois variant of regula
 * falsi on ln delta (which is smooth and decreasing in eps). */
#ifndef STATPRIV_SEARCH_H
#define STATPRIV_SEARCH_H

#include "shift_tail.h"

/* Returns the smallest eps >= 0 (to a few ulps, rounded up so that
 * delta(eps) <= target holds at the returned value) with ln delta(eps) <=
 * log_target, +inf if even delta(+inf) exceeds the target, NaN if the curve
 * returned NaN.  At most SP_SEARCH_MAX_EVALS curve evaluations. */
double sp_smallest_eps(sp_curve_fn log_delta, const void *ctx, int direction, double log_target);

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

#endif
