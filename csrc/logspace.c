#include <math.h>
#include "logspace.h"

double sp_logaddexp(double a, double b)
{
    if (a == -INFINITY) {
        return b;
    }
    if (b == -INFINITY) {
        return a;
    }
    return a > b ? a + log1p(exp(b - a)) : b + log1p(exp(a - b));
}

double sp_log1mexp(double a)
{
    /* Maechler's switch at -ln 2 keeps full relative accuracy on both sides. */
    return a > -0.693147180559945309417232121458 ? log(-expm1(a)) : log1p(-exp(a));
}

long double sp_log1mexpl(long double a)
{
    return a > -0.693147180559945309417232121458L ? logl(-expm1l(a)) : log1pl(-expl(a));
}

void sp_log_cumsum(const long double *la, long n, int reverse, long double *out)
{
    sp_logsum acc = {0.0L, 0.0L};
    for (long i = 0; i < n; i++) {
        long j = reverse ? n - 1 - i : i;
        sp_logsum_add(&acc, la[j]);
        out[j] = acc.sum > 0.0L ? acc.ref + sp_fast_logl(acc.sum) : -INFINITY;
    }
}

double sp_log_hockey_negative_eps(double eps, double log_reverse_at_minus_eps)
{
    return fmin(0.0, sp_logaddexp(log(-expm1(eps)), eps + log_reverse_at_minus_eps));
}

long double sp_exp_scaled(const long double *la, long n, long double *w)
{
    long double m = -INFINITY;
    for (long k = 0; k < n; k++) {
        m = fmaxl(m, la[k]);
    }
    for (long k = 0; k < n; k++) {
        w[k] = sp_fast_expl(la[k] - m);
    }
    return m;
}
