#include "renyi.h"

#include <math.h>

long double sp_renyi_log_moment(const long double *log_p, const long double *loss, long n,
                                long double t)
{
    /* two passes: the largest term, then the sum relative to it with expl (the
     * double exp of logspace.h's running sum would cost ~1e-16 per term, and
     * D_alpha near alpha = 1 divides ln of the sum by alpha - 1) */
    long double top = -INFINITY;
    for (long i = 0; i < n; i++) {
        if (log_p[i] != -INFINITY) {
            top = fmaxl(top, log_p[i] + t * loss[i]);
        }
    }
    if (top == -INFINITY || !isfinite(top)) {
        return top;
    }
    long double sum = 0.0L;
    for (long i = 0; i < n; i++) {
        if (log_p[i] != -INFINITY) {
            sum += expl(log_p[i] + t * loss[i] - top);
        }
    }
    return top + logl(sum);
}
