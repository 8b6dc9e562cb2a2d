#include <math.h>
#include <stddef.h>
#include "bounded.h"
#include "logspace.h"

/* ln delta in one direction: the window's value `inner` (from b->fn, or an
 * upper bound on it) plus the rest's bound */
static double bounded_add_rest(const sp_bounded *b, double eps, sp_direction direction,
                               double inner);

static double bounded_direction(const sp_bounded *b, double eps, sp_direction direction)
{
    double zero = direction == SP_PLUS ? b->zero_plus : b->zero_minus;
    double zero_rev = direction == SP_PLUS ? b->zero_minus : b->zero_plus;
    if (eps >= zero && zero < INFINITY) {    /* (zero = +inf: no zero point) */
        return -INFINITY;
    }
    if (eps < 0.0 && -eps >= zero_rev) {
        return sp_log1mexp(eps);                /* 1 - e^eps + e^eps * 0 */
    }
    return bounded_add_rest(b, eps, direction, b->fn(eps, direction, b->ctx));
}

static double bounded_add_rest(const sp_bounded *b, double eps, sp_direction direction,
                               double inner)
{
    double add;
    if (eps < 0.0) {
        add = sp_logaddexp(b->log_rest_p, b->log_rest_q);
    } else if (direction == SP_PLUS) {
        add = eps < b->lr_max ? b->log_rest_p + sp_log1mexp(eps - b->lr_max) : -INFINITY;
    } else {
        add = eps < -b->lr_min ? b->log_rest_q + sp_log1mexp(eps + b->lr_min) : -INFINITY;
    }
    if (eps == INFINITY && b->discrete) {
        /* the rest of discrete laws with an unbounded ratio (L+ = +inf) may be
         * P's mass where Q = 0, which delta keeps at eps = +inf */
        add = direction == SP_PLUS ? (b->lr_max == INFINITY ? b->log_rest_p : -INFINITY)
                                   : (b->lr_min == -INFINITY ? b->log_rest_q : -INFINITY);
    }
    double r = sp_logaddexp(inner, add);
    return r > 0.0 ? 0.0 : r;
}

double sp_bounded_log_delta(double eps, sp_direction direction, const void *ctx)
{
    const sp_bounded *b = ctx;
    if (direction != SP_MAX) {
        return bounded_direction(b, eps, direction);
    }
    if (b->upper != NULL && eps >= 0.0 && eps < b->zero_plus && eps < b->zero_minus
        && eps < INFINITY) {
        /* both directions' cheap bounds (rest included); exactly only the
         * larger, and the other where its bound reaches that value (the
         * true delta of a direction <= its bound <= the exact max) */
        const double up_plus = b->upper(eps, SP_PLUS, b->upper_ctx);
        const double up_minus = b->upper(eps, SP_MINUS, b->upper_ctx);
        if (!isnan(up_plus) && !isnan(up_minus)) {
            const sp_direction first = up_plus >= up_minus ? SP_PLUS : SP_MINUS;
            const double other_bound = bounded_add_rest(
                b, eps, sp_reverse(first), first == SP_PLUS ? up_minus : up_plus);
            const double exact = bounded_direction(b, eps, first);
            if (other_bound <= exact) {
                return exact;
            }
            return fmax(exact, bounded_direction(b, eps, sp_reverse(first)));
        }
    }
    return fmax(bounded_direction(b, eps, SP_PLUS), bounded_direction(b, eps, SP_MINUS));
}
