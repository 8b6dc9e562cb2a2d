#include <math.h>
#include "bounded.h"
#include "logspace.h"

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
    double inner = b->fn(eps, direction, b->ctx);
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
    return fmax(bounded_direction(b, eps, SP_PLUS), bounded_direction(b, eps, SP_MINUS));
}
