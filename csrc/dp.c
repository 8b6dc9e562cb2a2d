#include <float.h>
#include <math.h>
#include "dp.h"
#include "logspace.h"

/* ln(2 pi)/2 and 1/sqrt 2. */
#define SP_HALF_LN_2PI 0.918938533204672741780329736406
#define SP_SQRT1_2 0.707106781186547524400844362105

/* ---- Laplace and geometric: delta = -expm1(x) (scaled), x = eps - eps0 ---- */

/* (eps - hi) - lo: exact in sign for every double eps (the only double within
 * 2^-106 hi of hi + lo is hi itself, and there the sign is that of -lo), and
 * accurate to an ulp of itself near the zero point, where eps - hi is exact
 * (Sterbenz). */
static double minus_zero_point(double eps, double hi, double lo)
{
    return (eps - hi) - lo;
}

double sp_dp_laplace_log_delta(double eps, double inv_b_hi, double inv_b_lo)
{
    if (isnan(eps)) {
        return NAN;
    }
    if (inv_b_hi == INFINITY) {
        return eps == INFINITY ? -INFINITY : 0.0;   /* 1/b > DBL_MAX: delta = 1 - e^(-huge) */
    }
    double x = 0.5 * minus_zero_point(eps, inv_b_hi, inv_b_lo);
    return x < 0.0 ? sp_log1mexp(x) : -INFINITY;
}

double sp_dp_geometric_log_delta(double eps, double eps0_hi, double eps0_lo, double log1p_alpha)
{
    if (isnan(eps)) {
        return NAN;
    }
    double x = minus_zero_point(eps, eps0_hi, eps0_lo);
    return x < 0.0 ? sp_log1mexp(x) - log1p_alpha : -INFINITY;
}

/* ---- Gaussian ---------------------------------------------------------- */

/* With T ~ N(0, 1), a = 1/(2 sigma) - eps sigma and kappa = 1/sigma,
 *   delta = E[(1 - e^(-(T + a) kappa))_+] = int_0^inf phi(y - a) (1 - e^(-kappa y)) dy.
 * Where 1 - e^(-kappa y) is nearly linear over the mass of phi(y - a) on
 * y > 0 (kappa small against max(c, 1), c = -a), the closed forms cancel
 * (Phi(a) - e^eps Phi(b), or erfcx(u) - erfcx(v), lose a factor
 * ~ max(c, 1)/kappa); there the expansion
 *   delta = kappa sum_{k>=1} (-kappa)^(k-1) m_k / k!,  m_k = int_0^inf y^k phi(y - a) dy
 * has no cancellation (its terms fall by kappa/max(c,1) or faster). */

#define SP_GAUSS_SERIES_TERMS 64
#define SP_GAUSS_CF_MAX 256

/* sum_{k>=1} (-kappa)^(k-1) m_k / k! / m_1 from ratios r_k = m_k / m_(k-1),
 * k = 2..; stops when a term is below 2^-60 of the sum. */
static double series_from_ratios(const double *r, int n, double kappa)
{
    double term = 1.0, sum = 1.0;
    for (int k = 2; k < n; k++) {
        term *= -kappa * r[k] / k;
        sum += term;
        if (fabs(term) <= 0x1p-60 * fabs(sum)) {
            break;
        }
    }
    return sum;
}

/* c >= 2 (a = -c): m_k = phi(c) mu_k, mu_k = int_0^inf y^k e^(-c y - y^2/2) dy,
 * mu_0 = sqrt(pi/2) erfcx(c/sqrt 2), and the ratios r_k = mu_k/mu_(k-1) obey
 * r_(k-1) = (k-1)/(c + r_k) -- the Laplace continued fraction of the Mills
 * ratio, run backward (no cancellation, no overflow) from the fixed point
 * r (c + r) = depth at depth 16 + 320/c^2 (checked against mpmath: r_1 to
 * ~1e-17 for c >= 2).  Returns ln mu_1 + ln(series) (without phi(c), kappa). */
static double log_series_far(double c, double kappa, const sp_normal_fns *fns)
{
    double r[SP_GAUSS_SERIES_TERMS];
    /* Terms fall by ~kappa/c <= 1/32 each: `terms` of them reach 2^-62. */
    int terms = (int)fmin(SP_GAUSS_SERIES_TERMS, 2.0 + ceil(62.0 / log2(c / kappa)));
    int depth = (int)fmin(SP_GAUSS_CF_MAX, fmax(terms + 4.0, 16.0 + 320.0 / (c * c)));
    double rk = 0.5 * (sqrt(c * c + 4.0 * depth) - c);
    for (int k = depth; k >= 2; k--) {
        rk = (k - 1) / (c + rk);         /* rk is now r_(k-1) */
        if (k - 1 < terms) {
            r[k - 1] = rk;
        }
    }
    double log_mu0 = log(1.2533141373155002512 * fns->erfcx(c * SP_SQRT1_2));
    return log_mu0 + log(r[1]) + log(series_from_ratios(r, terms, kappa));
}

/* a >= -2: forward recurrence m_0 = Phi(a), m_1 = a m_0 + phi(a),
 * m_k = a m_(k-1) + (k-1) m_(k-2) (integration by parts; loses at most a
 * factor ~12 at a = -2).  Returns ln sum_k (-kappa)^(k-1) m_k / k!. */
static double log_series_near(double a, double kappa, const sp_normal_fns *fns)
{
    double r[SP_GAUSS_SERIES_TERMS];
    double m0 = fns->ndtr(a);
    double m1 = a * m0 + exp(-0.5 * a * a - SP_HALF_LN_2PI);
    double prev = m1, prev2 = m0;
    for (int k = 2; k < SP_GAUSS_SERIES_TERMS; k++) {
        double mk = a * prev + (k - 1) * prev2;
        r[k] = mk / prev;
        prev2 = prev;
        prev = mk;
    }
    return log(m1) + log(series_from_ratios(r, SP_GAUSS_SERIES_TERMS, kappa));
}

double sp_dp_gaussian_log_delta(double eps, double sigma, const sp_normal_fns *fns)
{
    if (isnan(eps) || isnan(sigma)) {
        return NAN;
    }
    if (eps == INFINITY) {
        return -INFINITY;
    }
    const double kappa = 1.0 / sigma;
    const double half_kappa = 0.5 * kappa;
    if (kappa == INFINITY) {
        return 0.0;     /* sigma < 2^-1024: delta = 1 - Phi(-2^1023)-sized terms */
    }
    /* c = -a = eps sigma - 1/(2 sigma) as a double-double (ch + cl). */
    double p, pe, ch, cl;
    sp_two_prod(eps, sigma, &p, &pe);
    if (!isfinite(p)) {
        return -DBL_MAX;    /* c^2/2 > DBL_MAX: delta > 0 but ln delta overflows */
    }
    double q_lo = fma(-half_kappa, sigma, 0.5) / sigma;   /* 1/(2 sigma) = half_kappa + q_lo */
    sp_two_sum(p, -half_kappa, &ch, &cl);
    cl += pe - q_lo;
    sp_two_sum(ch, cl, &ch, &cl);
    const double c = ch;
    const double a = -ch;

    /* Series where kappa is small against the width of phi(y - a) on y > 0
     * and the closed form below would lose more than a factor 32 (below
     * ln delta ~ -700 only ~1e-10 absolute is asked of ln delta: a factor
     * 1e4 is still fine there, and the closed form is cheaper). */
    if (c >= 2.0 && kappa * 32.0 <= c && (c < 37.5 || kappa * 1e4 <= c)) {
        /* ln delta = -c^2/2 - ln sqrt(2 pi) + ln mu_1 + ln(series) - ln sigma,
         * with c^2 as a double-double: c^2/2 ~ 1e8 needs its low bits. */
        double c2, c2e;
        sp_two_prod(ch, ch, &c2, &c2e);
        if (!isfinite(c2)) {
            return -DBL_MAX;
        }
        c2e += 2.0 * ch * cl;
        double rest = log_series_far(c, kappa, fns) - log(sigma) - SP_HALF_LN_2PI;
        return fmax(-0.5 * c2 + (rest - 0.5 * c2e), -DBL_MAX);
    }
    if (c < 2.0 && kappa * (fmax(a, 0.0) + 3.0) <= 0.5) {
        return log_series_near(a, kappa, fns) - log(sigma);
    }
    if (a < 0.0) {
        /* delta = e^(-c^2/2) (erfcx(c/sqrt 2) - erfcx((c + kappa)/sqrt 2)) / 2
         * (Phi(-t) = erfcx(t/sqrt 2) e^(-t^2/2)/2 and (c + kappa)^2/2 - eps =
         * c^2/2); the difference loses a factor ~ max(c, 1)/kappa: at most 32
         * (~6 sigma <= 36 for c < 2), or 1e4 where ln delta < -700. */
        double d = fns->erfcx(c * SP_SQRT1_2) - fns->erfcx((c + kappa) * SP_SQRT1_2);
        double c2, c2e;
        sp_two_prod(ch, ch, &c2, &c2e);
        c2e += 2.0 * ch * cl;
        return fmax(-0.5 * c2 + (log(0.5 * d) - 0.5 * c2e), -DBL_MAX);
    }
    /* a >= 0, sigma < ~6: Phi(a) >= 1/2 and delta >= Phi(a) - Phi(a - kappa)
     * times ~1: the difference loses at most ~ 2.5 sigma. */
    double b = -half_kappa - eps * sigma;
    double tail;                /* e^eps Phi(b) */
    if (eps <= 256.0) {
        /* eps + ln Phi(b) to ~ulp(eps) <= 2.8e-14 absolute */
        tail = exp(eps + fns->log_ndtr(b));
    } else {
        /* Beyond that the sum of eps and ln Phi(b) ~ -eps cancels: at sigma =
         * 1e-150, eps = 5e299 (1 - 1e-9) its rounding (~5e283) exceeds the
         * true -1.25e281, e^(+...) = inf made delta read 0 where it is 1.
         * e^eps phi(b) = phi(a) exactly (b^2/2 - eps = a^2/2), so
         * e^eps Phi(b) = e^(-a^2/2) erfcx(-b/sqrt 2)/2, a^2 as a
         * double-double; -b = 1/(2 sigma) + eps sigma has no cancellation. */
        double c2, c2e;
        sp_two_prod(ch, ch, &c2, &c2e);
        tail = isfinite(c2) ? 0.5 * exp(-0.5 * c2 - 0.5 * (c2e + 2.0 * ch * cl))
                                  * fns->erfcx(-b * SP_SQRT1_2)
                            : 0.0;      /* a^2/2 > DBL_MAX/2: e^(-a^2/2) = 0 */
    }
    double d = fns->ndtr(a) - tail;
    return d > 0.0 ? log(d) : -INFINITY;
}

/* ---- curves -------------------------------------------------------------- */

void sp_dp_init_laplace(sp_dp_curve *c, double b)
{
    c->kind = SP_DP_LAPLACE;
    c->param = b;
    c->eps0_hi = 1.0 / b;
    c->eps0_lo = isfinite(c->eps0_hi) ? fma(-c->eps0_hi, b, 1.0) / b : 0.0;
    c->log1p_alpha = 0.0;
    c->normal.ndtr = c->normal.log_ndtr = c->normal.erfcx = 0;
}

void sp_dp_init_geometric(sp_dp_curve *c, double alpha, double neg_log_alpha_hi,
                          double neg_log_alpha_lo)
{
    c->kind = SP_DP_GEOMETRIC;
    c->param = alpha;
    c->eps0_hi = neg_log_alpha_hi;
    c->eps0_lo = neg_log_alpha_lo;
    c->log1p_alpha = log1p(alpha);
    c->normal.ndtr = c->normal.log_ndtr = c->normal.erfcx = 0;
}

void sp_dp_init_gaussian(sp_dp_curve *c, double sigma, const sp_normal_fns *fns)
{
    c->kind = SP_DP_GAUSSIAN;
    c->param = sigma;
    c->eps0_hi = INFINITY;
    c->eps0_lo = 0.0;
    c->log1p_alpha = 0.0;
    c->normal = *fns;
}

static double dp_log_delta_nonneg(const sp_dp_curve *c, double eps)
{
    switch (c->kind) {
    case SP_DP_LAPLACE:
        return sp_dp_laplace_log_delta(eps, c->eps0_hi, c->eps0_lo);
    case SP_DP_GEOMETRIC:
        return sp_dp_geometric_log_delta(eps, c->eps0_hi, c->eps0_lo, c->log1p_alpha);
    case SP_DP_GAUSSIAN:
        return sp_dp_gaussian_log_delta(eps, c->param, &c->normal);
    default:
        return NAN;
    }
}

double sp_dp_curve_log_delta(double eps, sp_direction direction, const void *ctx)
{
    (void)direction;
    const sp_dp_curve *c = ctx;
    if (isnan(eps)) {
        return NAN;
    }
    if (eps >= 0.0) {
        return dp_log_delta_nonneg(c, eps);
    }
    return sp_log_hockey_negative_eps(eps, dp_log_delta_nonneg(c, -eps));
}
