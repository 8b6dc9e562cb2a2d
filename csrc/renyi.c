#include "renyi.h"

#include <math.h>

/* ln of sum_{i<n} e^(log_p[i] + t loss[i]) plus the extra atom (extra_log_p,
 * extra_loss) when extra_log_p > -inf, summed last.  Two passes: the largest
 * term, then the sum relative to it with expl (the double exp of
 * logspace.h's running sum would cost ~1e-16 per term, and D_alpha near
 * alpha = 1 divides ln of the sum by alpha - 1). */
static long double log_moment(const long double *log_p, const long double *loss, long n,
                              long double extra_log_p, long double extra_loss, long double t)
{
    long double top = -INFINITY;
    for (long i = 0; i < n; i++) {
        if (log_p[i] != -INFINITY) {
            top = fmaxl(top, log_p[i] + t * loss[i]);
        }
    }
    if (extra_log_p != -INFINITY) {
        top = fmaxl(top, extra_log_p + t * extra_loss);
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
    if (extra_log_p != -INFINITY) {
        sum += expl(extra_log_p + t * extra_loss - top);
    }
    return top + logl(sum);
}

long double sp_renyi_log_moment(const long double *log_p, const long double *loss, long n,
                                long double t)
{
    return log_moment(log_p, loss, n, -INFINITY, 0.0L, t);
}

void sp_renyi_log_moments(const long double *log_p, const long double *loss, long n,
                          long double tail_log_p, long double tail_loss, const double *t,
                          long m, double *out)
{
    for (long j = 0; j < m; j++) {
        const long double extra = t[j] > 0.0 ? tail_log_p : -INFINITY;
        out[j] = (double)log_moment(log_p, loss, n, extra, tail_loss, t[j]);
    }
}
