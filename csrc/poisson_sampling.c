#include <math.h>
#include "poisson_sampling.h"
#include "logspace.h"

void sp_poisson_curve_init(sp_poisson_curve *c, double N, long double p, long double q,
                           double mean_hi, double mean_lo, double log_p, double log_q, double g,
                           double l1g_hi, double l1g_lo)
{
    sp_binom_init_ext(&c->z.plus, N, p, q, mean_hi, mean_lo, log_p, log_q, 0);
    sp_binom_init_ext(&c->z.minus, N, p, q, mean_hi, mean_lo, log_p, log_q, 1);
    c->g = g;
    c->l1g_hi = l1g_hi;
    c->l1g_lo = l1g_lo;
}

/* The largest double <= x: rounding the reduced eps down keeps delta (non-increasing
 * in it) from being under-reported. */
static double round_down(long double x)
{
    double d = (double)x;
    return (long double)d > x ? nextafter(d, -INFINITY) : d;
}

/* ln delta_plus at eps >= 0: ln g + ln H_eps'(Z+1 || Z), e^eps' - 1 = (e^eps - 1)/g
 * in extended precision (the far tail's ln delta moves by ~k0 times an error
 * in eps', so a double eps' would not do at N ~ 1e9). */
static double poisson_plus(const sp_poisson_curve *c, double eps)
{
    const long double g = c->g;
    const long double em1 = expm1l((long double)eps) / g;
    long double x;                   /* eps', for the closed-form cases only */
    if (eps <= 40.0) {
        x = log1pl(em1);
    } else {   /* e^eps' = e^eps (1 - (1-g) e^-eps) / g */
        x = (long double)eps - logl(g) + log1pl(-(1.0L - g) * expl(-(long double)eps));
    }
    const double h = sp_binom_shift_log_hockey_em1(&c->z.plus, round_down(x), em1);
    return h == -INFINITY ? h : fmin(0.0, (double)(logl(g) + (long double)h));
}

/* ln delta_minus at eps >= 0: ln c + ln H_eps''(Z || Z+1) with
 * e^eps'' - 1 = (e^eps - 1)/c >= 0; 0 from eps >= -ln(1-g) on. */
static double poisson_minus(const sp_poisson_curve *c, double eps)
{
    if (c->l1g_hi == -INFINITY) {   /* g = 1: c = 1, eps'' = eps */
        return sp_binom_curve_log_delta(eps, SP_MINUS, &c->z);
    }
    /* u = eps + ln(1-g): eps + l1g_hi is exact (Sterbenz) where they cancel */
    const long double u = ((long double)eps + (long double)c->l1g_hi) + (long double)c->l1g_lo;
    if (u >= 0.0L) {
        return -INFINITY;
    }
    const long double log_c = sp_log1mexpl(u);          /* ln(1 - e^eps (1-g)) */
    const long double em1 = expm1l((long double)eps) / -expm1l(u);
    const double x = round_down((long double)eps + logl((long double)c->g) - log_c);
    const double h = sp_binom_shift_log_hockey_em1(&c->z.minus, x, em1);
    return h == -INFINITY ? h : fmin(0.0, (double)(log_c + (long double)h));
}

static double poisson_direction(const sp_poisson_curve *c, double eps, sp_direction direction)
{
    if (isnan(eps)) {
        return NAN;
    }
    if (eps >= 0.0) {
        return direction == SP_PLUS ? poisson_plus(c, eps) : poisson_minus(c, eps);
    }
    return sp_log_hockey_negative_eps(
        eps, direction == SP_PLUS ? poisson_minus(c, -eps) : poisson_plus(c, -eps));
}

double sp_poisson_curve_log_delta(double eps, sp_direction direction, const void *ctx)
{
    const sp_poisson_curve *c = ctx;
    if (direction != SP_MAX) {
        return poisson_direction(c, eps, direction);
    }
    return fmax(poisson_direction(c, eps, SP_PLUS), poisson_direction(c, eps, SP_MINUS));
}

static double sampled_plus(const sp_sampled_shift_curve *c, double eps)
{
    const long double g = c->g;
    long double x;
    if (eps <= 40.0) {
        x = log1pl(expm1l((long double)eps) / g);
    } else {
        x = (long double)eps - logl(g) + log1pl(-(1.0L - g) * expl(-(long double)eps));
    }
    const double h = c->inner(round_down(x), SP_PLUS, c->inner_ctx);
    return h == -INFINITY || isnan(h) ? h : fmin(0.0, (double)(logl(g) + (long double)h));
}

static double sampled_minus(const sp_sampled_shift_curve *c, double eps)
{
    if (c->l1g_hi == -INFINITY) {   /* g = 1: c = 1, eps'' = eps */
        return c->inner(eps, SP_MINUS, c->inner_ctx);
    }
    const long double u = ((long double)eps + (long double)c->l1g_hi) + (long double)c->l1g_lo;
    if (u >= 0.0L) {
        return -INFINITY;
    }
    const long double log_c = sp_log1mexpl(u);
    const double x = round_down(log1pl(expm1l((long double)eps) / -expm1l(u)));
    const double h = c->inner(x, SP_MINUS, c->inner_ctx);
    return h == -INFINITY || isnan(h) ? h : fmin(0.0, (double)(log_c + (long double)h));
}

static double sampled_direction(const sp_sampled_shift_curve *c, double eps, sp_direction direction)
{
    if (isnan(eps)) {
        return NAN;
    }
    if (eps >= 0.0) {
        return direction == SP_PLUS ? sampled_plus(c, eps) : sampled_minus(c, eps);
    }
    return sp_log_hockey_negative_eps(
        eps, direction == SP_PLUS ? sampled_minus(c, -eps) : sampled_plus(c, -eps));
}

double sp_sampled_shift_curve_log_delta(double eps, sp_direction direction, const void *ctx)
{
    const sp_sampled_shift_curve *c = ctx;
    if (direction != SP_MAX) {
        return sampled_direction(c, eps, direction);
    }
    return fmax(sampled_direction(c, eps, SP_PLUS), sampled_direction(c, eps, SP_MINUS));
}
