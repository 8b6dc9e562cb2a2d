#include <math.h>
#include "search.h"

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
    /* Bracket: g(lo) > 0 >= g(hi) with g = ln delta - ln target. */
    double lo = 0.0, glo = f0 - log_target;
    double hi = 1.0, ghi = log_delta(hi, direction, ctx) - log_target;
    int evals = 3;
    while (ghi > 0.0) {
        if (evals >= SP_SEARCH_MAX_EVALS || hi > 1e300) {
            return INFINITY;
        }
        lo = hi;
        glo = ghi;
        hi *= 4.0;
        ghi = log_delta(hi, direction, ctx) - log_target;
        evals++;
    }
    /* Illinois: halve the weight of an endpoint retained twice in a row;
     * fall back to bisection when the secant point is unusable (g = -inf at
     * hi when delta is exactly 0 there). */
    int side = 0;
    while (evals < SP_SEARCH_MAX_EVALS) {
        double width = hi - lo;
        if (width <= 4.0 * (nextafter(hi, INFINITY) - hi)) {
            break;
        }
        double x;
        if (isfinite(glo) && isfinite(ghi) && glo != ghi) {
            x = hi - ghi * (hi - lo) / (ghi - glo);
            if (!(x > lo && x < hi)) {
                x = lo + 0.5 * width;
            }
        } else {
            x = lo + 0.5 * width;
        }
        double gx = log_delta(x, direction, ctx) - log_target;
        evals++;
        if (isnan(gx)) {
            return NAN;
        }
        if (gx > 0.0) {
            lo = x;
            glo = gx;
            if (side == -1) {
                ghi *= 0.5;
            }
            side = -1;
        } else {
            hi = x;
            ghi = gx;
            if (side == 1) {
                glo *= 0.5;
            }
            side = 1;
            if (gx == 0.0) {
                break;
            }
        }
    }
    return hi;
}
