#include <stddef.h>
#include <math.h>
#include "thresholding.h"
#include "logspace.h"

/* ln of the positive part of the bottom cell of delta_minus at eps >= 0:
 * F(t-1) - e^eps F(t-2) = F(t-1) (1 - e^(eps - L)), L = ln F(t-1)/F(t-2) on
 * the window's sub-measure (z = 0 outside it), from its accurate hi + lo
 * parts when given (the factor 1 - e^(eps - L) cancels near eps = L). */
static long double bottom_minus(const sp_thr_curve *c, long j, double eps)
{
    const long t = c->t[j];
    const long i1 = t - 1 - c->first, i2 = t - 2 - c->first;
    if (i1 < 0 || i1 >= c->len) {
        return -INFINITY;                 /* z(t-1) = 0: F(t-1) <= F(t-2) */
    }
    if (i2 < 0) {
        return c->lz[i1];                 /* F(t-2) = 0 */
    }
    long double hi = c->lcz[i1] - c->lcz[i2], lo = 0.0L;
    if (c->lb_hi != NULL) {
        hi = c->lb_hi[j];
        lo = c->lb_lo[j];
    }
    if (hi == INFINITY) {
        return c->lcz[i1];
    }
    const long double d = ((long double)eps - hi) - lo;   /* eps - L, Sterbenz-exact head */
    if (!(d < 0.0L)) {
        return -INFINITY;
    }
    return c->lcz[i1] + sp_log1mexpl(d);
}

/* Term k = first + i of the released sums, i = 0..len (L = lr + lr_lo):
 * plus  (z(k-1) - e^eps z(k))_+ = z(k-1) (1 - e^(eps - L)),  L > eps,
 * minus (z(k) - e^eps z(k-1))_+ = z(k) (1 - e^(eps + L)),    L < -eps. */
static long double term(const sp_thr_curve *c, long i, double eps, sp_direction d)
{
    const long double lr = c->lr[i];
    const long double lo = c->lr_lo == NULL ? 0.0L : c->lr_lo[i];
    if (d == SP_PLUS) {
        if (i == 0) {
            return -INFINITY;
        }
        if (lr == INFINITY) {
            return c->lz[i - 1];
        }
        const long double x = ((long double)eps - lr) - lo;
        return x < 0.0L ? c->lz[i - 1] + sp_log1mexpl(x) : -INFINITY;
    }
    if (i == c->len) {
        return -INFINITY;
    }
    if (lr == -INFINITY) {
        return c->lz[i];
    }
    const long double x = ((long double)eps + lr) + lo;
    return x < 0.0L ? c->lz[i] + sp_log1mexpl(x) : -INFINITY;
}

/* ln of max_b / sum_b P(b) of delta_d^b(eps), eps >= 0 (or +inf), plus the
 * window's rest; one sweep over k from the top of the window down. */
static double thr_nonneg(const sp_thr_curve *c, double eps, sp_direction d)
{
    sp_logsum released = {0.0L, 0.0L};
    sp_logsum avg = {0.0L, 0.0L};
    long double best = -INFINITY;
    long j = 0;
    for (long i = c->len; i >= -1 && j < c->nt; i--) {
        /* thresholds t > first + i: their sums hold every term k >= t */
        while (j < c->nt && (i < 0 || c->t[j] > c->first + i)) {
            long double v = sp_logsum_log(&released);
            if (d == SP_MINUS) {
                v = sp_logaddexpl(v, bottom_minus(c, j, eps));
            }
            if (c->lw == NULL) {
                best = fmaxl(best, v);
            } else {
                sp_logsum_add(&avg, c->lw[j] + v);
            }
            j++;
        }
        if (i >= 0) {
            sp_logsum_add(&released, term(c, i, eps, d));
        }
    }
    const long double total = c->lw == NULL ? best : sp_logsum_log(&avg);
    return (double)sp_logaddexpl(total, (long double)c->log_rest);
}

static double thr_direction(const sp_thr_curve *c, double eps, sp_direction d)
{
    double v;
    if (eps >= 0.0) {
        v = thr_nonneg(c, eps, d);
    } else {
        /* H_eps(P||Q) = 1 - e^eps + e^eps H_{-eps}(Q||P) for every b: the max
         * and the average commute with it (weights summing to <= 1) */
        v = sp_log_hockey_negative_eps(eps, thr_nonneg(c, -eps, sp_reverse(d)));
    }
    if (c->lw != NULL) {
        v = sp_logaddexp(v, c->log_rest_b);
    }
    return fmin(0.0, v);
}

double sp_thr_curve_log_delta(double eps, sp_direction direction, const void *ctx)
{
    const sp_thr_curve *c = ctx;
    if (isnan(eps)) {
        return NAN;
    }
    if (direction != SP_MAX) {
        return thr_direction(c, eps, direction);
    }
    return fmax(thr_direction(c, eps, SP_PLUS), thr_direction(c, eps, SP_MINUS));
}
