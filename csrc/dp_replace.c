#include <math.h>
#include "dp_replace.h"
#include "logspace.h"

#define SP_LN2 0.693147180559945309417232121458

void sp_dp_replace_init(sp_dp_replace_curve *c, int kind, double param, double q,
                        double z_hi, double z_lo, const sp_normal_fns *fns)
{
    c->kind = kind;
    c->param = param;
    c->q = q;
    c->log_q = log(q);
    c->log_odds = log1p(-q) - c->log_q;
    c->z_hi = z_hi;
    c->z_lo = z_lo;
    /* ln(1 + r e^-t), r e^-t = e^(ln r - t) (may exceed the double range) */
    const double u = c->log_odds - 1.0 / param;
    c->log_slope = u > 30.0 ? u + log1p(exp(-u)) : log1p(exp(u));
    if (fns != 0) {
        c->normal = *fns;
    } else {
        c->normal.ndtr = c->normal.log_ndtr = c->normal.erfcx = 0;
    }
}

/* ln H_x(N(1) || N(0)) at sigma for any real x (dp.h's closed form). */
static double gaussian_unsampled(double x, double sigma, const sp_normal_fns *fns)
{
    if (x >= 0.0) {
        return sp_dp_gaussian_log_delta(x, sigma, fns);
    }
    return sp_log_hockey_negative_eps(x, sp_dp_gaussian_log_delta(-x, sigma, fns));
}

/* Gaussian, eps >= 0.  With k = 1/sigma^2 and u = k x* the crossing
 * u = eps/2 + asinh(e^L), L = ln((1-q)/q) + k/2 + ln sinh(eps/2), and
 * e1 = u - k/2, e2 = u + k/2.  For L > 20, asinh(e^L) = L + ln(1 + sqrt(1 +
 * e^(-2L))) is taken apart so that e1 = eps/2 + ln((1-q)/q) + ln sinh(eps/2)
 * + ln(1 + sqrt(1 + e^(-2L))) never forms k/2 - k/2 (k/2 = 5e7 at sigma =
 * 1e-4 would cost e1 ~1e-8 absolute; at sigma < 1e-154 it overflows). */
static double gaussian_replace(const sp_dp_replace_curve *c, double eps)
{
    const double sigma = c->param;
    const double half_k = 0.5 / (sigma * sigma);
    double e1, e2;
    if (eps == 0.0) {                       /* sinh(0) = 0: the crossing is at 0 */
        e1 = -half_k;
        e2 = half_k;
    } else {
        const double log_sinh = eps > 40.0 ? 0.5 * eps - SP_LN2 + log1p(-exp(-eps))
                                           : log(sinh(0.5 * eps));
        const double r = c->log_odds + log_sinh;
        const double big = r + half_k;
        if (big > 20.0) {
            e1 = 0.5 * eps + r + log1p(sqrt(1.0 + exp(-2.0 * big)));
            e2 = e1 + 2.0 * half_k;
        } else {
            const double a = asinh(exp(big));
            e1 = 0.5 * eps + a - half_k;
            e2 = 0.5 * eps + a + half_k;
        }
    }
    const double first = gaussian_unsampled(e1, sigma, &c->normal);
    const double second = e2 == INFINITY ? -INFINITY
                          : (eps - e2) + gaussian_unsampled(e2, sigma, &c->normal);
    const double sum = sp_logaddexp(first, second);
    return sum == -INFINITY ? sum : fmin(0.0, c->log_q + sum);
}

/* Laplace, eps >= 0: q (1 - e^x), x = ln(1 + v)/2, v = -(1 + r e^-t) (1 -
 * e^d) in (-1, 0], d = eps - z < 0 (see dp_replace.h).  d is exact in sign
 * for every double eps and accurate to an ulp of itself near z (eps - z_hi
 * is exact there, Sterbenz); ln(1 - e^d) and the slope are taken in logs
 * (1 + r e^-t reaches e^744 at q = 1e-323). */
static double laplace_replace(const sp_dp_replace_curve *c, double eps)
{
    const double d = (eps - c->z_hi) - c->z_lo;
    if (!(d < 0.0)) {
        return isnan(d) ? NAN : -INFINITY;
    }
    const double v = -exp(c->log_slope + sp_log1mexp(d));
    const double x = 0.5 * log1p(fmax(v, -1.0));
    return c->log_q + sp_log1mexp(x);
}

static double replace_nonneg(const sp_dp_replace_curve *c, double eps)
{
    switch (c->kind) {
    case SP_DP_GAUSSIAN:
        return gaussian_replace(c, eps);
    case SP_DP_LAPLACE:
        return laplace_replace(c, eps);
    default:
        return NAN;
    }
}

double sp_dp_replace_log_delta(double eps, sp_direction direction, const void *ctx)
{
    (void)direction;
    const sp_dp_replace_curve *c = ctx;
    if (isnan(eps)) {
        return NAN;
    }
    if (eps >= 0.0) {
        return replace_nonneg(c, eps);
    }
    return sp_log_hockey_negative_eps(eps, replace_nonneg(c, -eps));
}
