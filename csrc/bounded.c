#include <math.h>
#include "bounded.h"
#include "logpmf.h"

static double bounded_direction(const sp_bounded *b, double eps, int direction)
{
    double inner = b->fn(eps, direction, b->ctx);
    if (fabs(eps) >= b->zero_from) {
        return eps > 0.0 ? -INFINITY : inner;   /* eps < 0: 1 - e^eps, exact */
    }
    double add;
    if (eps < 0.0) {
        add = sp_logaddexp(b->log_rest_p, b->log_rest_q);
    } else if (direction == SP_PLUS) {
        add = eps < b->lr_max ? b->log_rest_p + sp_log1mexp(eps - b->lr_max) : -INFINITY;
    } else {
        add = eps < -b->lr_min ? b->log_rest_q + sp_log1mexp(eps + b->lr_min) : -INFINITY;
    }
    double r = sp_logaddexp(inner, add);
    return r > 0.0 ? 0.0 : r;
}

double sp_bounded_log_delta(double eps, int direction, const void *ctx)
{
    const sp_bounded *b = ctx;
    if (direction != SP_MAX) {
        return bounded_direction(b, eps, direction);
    }
    return fmax(bounded_direction(b, eps, SP_PLUS), bounded_direction(b, eps, SP_MINUS));
}
