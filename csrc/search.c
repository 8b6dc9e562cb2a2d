#include <float.h>
#include <math.h>
#include "search.h"

/* ln delta(eps) - ln target: the function whose sign change is searched. */
typedef struct {
    sp_curve_fn log_delta;
    const void *ctx;
    int direction;
    double log_target;
} excess;

static double excess_fn(double eps, const void *ctx)
{
    const excess *e = ctx;
    return e->log_delta(eps, e->direction, e->ctx) - e->log_target;
}

double sp_smallest_eps(sp_curve_fn log_delta, const void *ctx, int direction, double log_target)
{
    /* Aim a hair below the target so that exp(ln delta) <= target still holds
     * after the rounding of ln delta and of exp. */
    if (isfinite(log_target)) {
        log_target -= 0x1p-48 * fmax(1.0, fabs(log_target));
    }
    double f0 = log_delta(0.0, direction, ctx);
    if (isnan(f0)) {
        return NAN;
    }
    if (f0 <= log_target) {
        return 0.0;
    }
    if (log_delta(INFINITY, direction, ctx) > log_target) {
        return INFINITY;
    }
    if (log_target == -INFINITY) {
        /* delta = 0 exactly: bisect on the predicate (ln delta is -inf or not). */
        double lo = 0.0, hi = 1.0;
        int evals = 3;
        while (log_delta(hi, direction, ctx) > -INFINITY) {
            if (++evals >= SP_SEARCH_MAX_EVALS || hi > 1e300) {
                return INFINITY;
            }
            lo = hi;
            hi *= 4.0;
        }
        while (evals++ < SP_SEARCH_MAX_EVALS && hi - lo > 4.0 * (nextafter(hi, INFINITY) - hi)) {
            double mid = lo + 0.5 * (hi - lo);
            if (log_delta(mid, direction, ctx) > -INFINITY) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return hi;
    }
    /* Bracket: g(lo) > 0 >= g(hi) with g = ln delta - ln target. */
    const excess ex = {log_delta, ctx, direction, log_target};
    double lo = 0.0, glo = f0 - log_target;
    double hi = 1.0, ghi = excess_fn(hi, &ex);
    int evals = 3;
    while (ghi > 0.0) {
        if (evals >= SP_SEARCH_MAX_EVALS || hi > 1e300) {
            return INFINITY;
        }
        lo = hi;
        glo = ghi;
        hi *= 4.0;
        ghi = excess_fn(hi, &ex);
        evals++;
    }
    sp_illinois(excess_fn, &ex, &lo, &glo, &hi, &ghi, 4.0 * DBL_EPSILON,
                SP_SEARCH_MAX_EVALS - evals);
    return isnan(glo) ? NAN : hi;
}

int sp_illinois(sp_scalar_fn f, const void *ctx, double *lo, double *flo, double *hi,
                double *fhi, double rel_tol, int max_evals)
{
    /* Halve the weight of an endpoint retained twice in a row; bisect when
     * the secant point is unusable (an infinite end, e.g. ln delta = -inf). */
    const int lo_positive = *flo > 0.0;
    int side = 0, evals = 0;
    while (evals < max_evals) {
        double width = *hi - *lo;
        double scale = fmax(fabs(*lo), fabs(*hi));
        if (fabs(width) <= rel_tol * scale || fabs(width) <= 4.0 * (nextafter(scale, INFINITY) - scale)) {
            break;
        }
        double x = *lo + 0.5 * width;
        if (isfinite(*flo) && isfinite(*fhi) && *flo != *fhi) {
            double secant = *hi - *fhi * width / (*fhi - *flo);
            if ((secant - *lo) * (secant - *hi) < 0.0) {
                x = secant;
            }
        }
        double fx = f(x, ctx);
        evals++;
        if (isnan(fx)) {
            *flo = NAN;
            break;
        }
        if (fx == 0.0) {
            *lo = *hi = x;
            *flo = *fhi = 0.0;
            break;
        }
        if ((fx > 0.0) == lo_positive) {
            *lo = x;
            *flo = fx;
            if (side == -1) {
                *fhi *= 0.5;
            }
            side = -1;
        } else {
            *hi = x;
            *fhi = fx;
            if (side == 1) {
                *flo *= 0.5;
            }
            side = 1;
        }
    }
    return evals;
}
