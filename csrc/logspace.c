#include <math.h>
#include <stddef.h>
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

/* The log of a running sum as sp_log_cumsum reports it (not clamped). */
static long double cumsum_value(const sp_logsum *acc)
{
    return acc->sum > 0.0L ? acc->ref + sp_fast_logl(acc->sum) : -INFINITY;
}

void sp_log_cumsum(const long double *la, long n, int reverse, long double *out)
{
    sp_logsum acc = {0.0L, 0.0L};
    for (long i = 0; i < n; i++) {
        long j = reverse ? n - 1 - i : i;
        sp_logsum_add(&acc, la[j]);
        out[j] = cumsum_value(&acc);
    }
}

void sp_log_cumsum_mark(const long double *la, long n, int reverse, sp_logsum *marks)
{
    sp_logsum acc = {0.0L, 0.0L};
    for (long i = 0; i < n; i++) {
        if (i % SP_CUMSUM_STEP == 0) {
            marks[i / SP_CUMSUM_STEP] = acc;
        }
        sp_logsum_add(&acc, la[reverse ? n - 1 - i : i]);
    }
}

void sp_log_cumsum_mark_both(const long double *la, long n, sp_logsum *fwd, sp_logsum *rev)
{
    if (fwd == NULL || rev == NULL) {
        if (fwd != NULL || rev != NULL) {
            sp_log_cumsum_mark(la, n, rev != NULL, fwd != NULL ? fwd : rev);
        }
        return;
    }
    sp_logsum a = {0.0L, 0.0L}, b = {0.0L, 0.0L};
    for (long i = 0; i < n; i++) {
        if (i % SP_CUMSUM_STEP == 0) {
            fwd[i / SP_CUMSUM_STEP] = a;
            rev[i / SP_CUMSUM_STEP] = b;
        }
        sp_logsum_add(&a, la[i]);
        sp_logsum_add(&b, la[n - 1 - i]);
    }
}

long double sp_log_cumsum_at(const sp_log_cumsum_marks *m, long j)
{
    const long i = m->reverse ? m->n - 1 - j : j;      /* j's place in summation order */
    sp_logsum acc = m->marks[i / SP_CUMSUM_STEP];
    for (long k = i - i % SP_CUMSUM_STEP; k <= i; k++) {
        sp_logsum_add(&acc, m->la[m->reverse ? m->n - 1 - k : k]);
    }
    return cumsum_value(&acc);
}

double sp_log_hockey_negative_eps(double eps, double log_reverse_at_minus_eps)
{
    return fmin(0.0, sp_logaddexp(log(-expm1(eps)), eps + log_reverse_at_minus_eps));
}

long double sp_exp_scaled(const long double *la, long n, long double *w)
{
    long double m = -INFINITY;
    for (long k = 0; k < n; k++) {
        /* fmaxl(m, la[k]) without the libm call: m is never NaN, a NaN
         * la[k] is skipped, and m >= la[k] keeps m, as fmaxl does */
        m = la[k] > m ? la[k] : m;
    }
    for (long k = 0; k < n; k++) {
        w[k] = sp_fast_expl(la[k] - m);
    }
    return m;
}

double sp_atom_log_ratio_err(long double lr, long double lo, long double lp, long double lq,
                             int closed)
{
    double e;
    if (closed) {
        const double one_plus = 1.0 + fabs((double)lr);
        e = (lo != 0.0L ? 1e-30 : 4e-19) * one_plus;
    } else {
        e = 2e-19 * (1.0 + fabs((double)lp) + fabs((double)lq));
    }
    return isfinite(e) ? e : INFINITY;
}
