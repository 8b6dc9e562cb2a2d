#include <math.h>
#include <stddef.h>
#include "poisson_sampling.h"
#include "logspace.h"
#include "ldmath.h"
#include "search.h"

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

/* The inner pair (A, B) of direction d: H(A || B) = inner(., d), H(B || A) =
 * inner(., the other direction); the sampled pair is (g A + (1-g) B, B). */
static sp_direction other_direction(sp_direction d)
{
    return d == SP_PLUS ? SP_MINUS : SP_PLUS;
}

/* ln H_eps(g A + (1-g) B || B) at eps >= 0: ln g + ln H_eps'(A || B),
 * e^eps' = 1 + (e^eps - 1)/g. */
static double sampled_forward(const sp_sampled_shift_curve *c, double eps, sp_direction d)
{
    const long double g = c->g;
    if (g == 0.0L) {                /* nothing sampled: A = B, H = 0 at eps >= 0 */
        return -INFINITY;
    }
    long double x;
    if (eps <= 40.0) {
        x = log1pl(expm1l((long double)eps) / g);
    } else {
        x = (long double)eps - logl(g) + log1pl(-(1.0L - g) * expl(-(long double)eps));
    }
    const double h = c->inner(round_down(x), d, c->inner_ctx);
    return h == -INFINITY || isnan(h) ? h : fmin(0.0, (double)(logl(g) + (long double)h));
}

/* ln H_eps(B || g A + (1-g) B) at eps >= 0: ln c + ln H_eps''(B || A),
 * c = 1 - (1-g) e^eps, e^eps'' - 1 = (e^eps - 1)/c; -inf from eps >= -ln(1-g). */
static double sampled_reverse(const sp_sampled_shift_curve *c, double eps, sp_direction d)
{
    const sp_direction back = other_direction(d);
    if (c->l1g_hi == -INFINITY) {   /* g = 1: c = 1, eps'' = eps */
        return c->inner(eps, back, c->inner_ctx);
    }
    const long double u = ((long double)eps + (long double)c->l1g_hi) + (long double)c->l1g_lo;
    if (u >= 0.0L) {
        return -INFINITY;
    }
    const long double log_c = sp_log1mexpl(u);
    const double x = round_down(log1pl(expm1l((long double)eps) / -expm1l(u)));
    const double h = c->inner(x, back, c->inner_ctx);
    return h == -INFINITY || isnan(h) ? h : fmin(0.0, (double)(log_c + (long double)h));
}

/* Poisson (add/remove): both directions of the one sampled pair of the inner
 * plus direction (delta_minus its reverse).  Without replacement
 * (replace-one): each direction its own sampled pair, read forward. */
static double sampled_direction(const sp_sampled_shift_curve *c, double eps, sp_direction direction)
{
    if (isnan(eps)) {
        return NAN;
    }
    const sp_direction d = c->without_replacement ? direction : SP_PLUS;
    const int reverse = !c->without_replacement && direction == SP_MINUS;
    if (eps >= 0.0) {
        return reverse ? sampled_reverse(c, eps, d) : sampled_forward(c, eps, d);
    }
    return sp_log_hockey_negative_eps(
        eps, reverse ? sampled_forward(c, -eps, d) : sampled_reverse(c, -eps, d));
}

double sp_sampled_shift_curve_log_delta(double eps, sp_direction direction, const void *ctx)
{
    const sp_sampled_shift_curve *c = ctx;
    if (direction != SP_MAX) {
        return sampled_direction(c, eps, direction);
    }
    return fmax(sampled_direction(c, eps, SP_PLUS), sampled_direction(c, eps, SP_MINUS));
}

/* ---- Noiseless Poisson-sampled curves at large N ------------------------- */

/* Smith's reduction (see sp_poisson_curve in poisson_sampling.h) written in the
 * inner variable y = eps' (plus) or eps'' (minus) of Z's shift curve H:
 *   plus:  e^eps = 1 + g (e^y - 1),                 delta = g H(y);
 *   minus: e^eps = e^y / (g + (1-g) e^y),  c = g / (g + (1-g) e^y),  delta = c H(y).
 * Both read delta(eps) <= target  <=>  ln H(y) <= aim0 + ln(a + bc e^y) with
 * aim0 = ln target - ln g and (a, bc) = (1, 0) (plus) or (g, 1 - g) (minus),
 * and eps is increasing in y: e^eps - 1 = g (e^y - 1) / (a + bc e^y).  So the
 * answer is found on Z's exact shift sums, as in sp_binom_smallest_eps, with
 * a target that moves with y (for minus: the factor c depends on eps). */
typedef struct {
    const sp_binom *b;
    long double a, bc;
} sampled_aim;

static long double sampled_log_factor(const sampled_aim *s, double y)
{
    return s->bc == 0.0L ? logl(s->a) : logl(s->a + s->bc * expl((long double)y));
}

/* ln H(y) - ln(a + bc e^y) on the approximation: non-increasing in y. */
static double sampled_approx_one(double y, sp_direction direction, const void *ctx)
{
    (void)direction;
    const sampled_aim *s = ctx;
    double h = sp_binom_shift_log_hockey_approx(s->b, y);
    return h == -INFINITY ? h : (double)((long double)h - sampled_log_factor(s, y));
}

/* delta(y)/b0 - target(y)/b0 on the local model at `at`, and its derivative
 * times -e^y (positive): target(y)/b0 = base (a + bc e^y). */
static int sampled_model_excess(const sampled_aim *s, const sp_binom_sums *at, double y,
                                long double base, long double *excess, long double *slope)
{
    long double t, sb;
    if (sp_binom_shift_model(s->b, at, y, &t, &sb) != 0) {
        return 1;
    }
    const long double u = expl((long double)y);
    *excess = t - base * (s->a + s->bc * u);
    *slope = u * (sb + base * s->bc);
    return 0;
}

typedef struct {
    const sampled_aim *s;
    long double aim0;
} sampled_settle;

static int sampled_model(const void *ctx, const sp_binom_sums *at, double y, long double *excess,
                         long double *slope)
{
    const sampled_settle *c = ctx;
    const long double base = expl(c->aim0 - (long double)at->log_b0);
    return sampled_model_excess(c->s, at, y, base, excess, slope);
}

/* The smallest float y with exact-sum ln H(y) <= aim0 + ln(a + bc e^y)
 * (binom_direction_eps with a moving target); NAN, *fallback = 1 where the
 * fast route does not apply. */
static double sampled_direction_y(const sampled_aim *s, long double aim0, int *fallback)
{
    const sp_binom *b = s->b;
    *fallback = 1;
    double f0 = sp_binom_shift_log_hockey(b, 0.0);
    if (isnan(f0)) {
        return NAN;
    }
    if ((long double)f0 <= aim0 + logl(s->a + s->bc)) {
        *fallback = 0;
        return 0.0;
    }
    if (s->bc == 0.0L && (long double)sp_binom_shift_log_hockey(b, INFINITY) > aim0 + logl(s->a)) {
        *fallback = 0;
        return INFINITY;
    }
    double y = sp_smallest_eps(sampled_approx_one, s, SP_PLUS, (double)aim0, 0.0, 0);
    if (!(y > 0.0 && isfinite(y))) {
        return NAN;
    }
    const sampled_settle ctx = {s, aim0};
    return sp_binom_settle_eps(b, y, sampled_model, &ctx, fallback);
}

/* One direction of sp_poisson_smallest_eps; NAN with *fallback = 1 where
 * the fast route does not apply. */
static double poisson_direction_eps(const sp_poisson_curve *c, sp_direction direction, double aim,
                                    int *fallback)
{
    *fallback = 1;
    const long double g = c->g;
    sampled_aim s;
    if (direction == SP_PLUS || c->l1g_hi == -INFINITY) {        /* g = 1: c = 1 */
        s.b = direction == SP_PLUS ? &c->z.plus : &c->z.minus;
        s.a = 1.0L;
        s.bc = 0.0L;
    } else {
        s.b = &c->z.minus;
        s.a = g;
        s.bc = 1.0L - g;
    }
    if (!(sp_binom_shift_sd(s.b) >= SP_BINOM_SEARCH_MIN_SD)) {
        return NAN;
    }
    const long double aim0 = (long double)aim - logl(g);
    double y = sampled_direction_y(&s, aim0, fallback);
    if (*fallback || !(y > 0.0) || y == INFINITY) {
        return y;
    }
    /* e^eps - 1 = g (e^y - 1) / (a + bc e^y), rounded up (with a margin of
     * 2^-60 for the extended-precision rounding): delta is non-increasing in
     * eps, and at this eps the reduction's y and c are >= / <= those above. */
    const long double em1 = g * expm1l((long double)y) / (s.a + s.bc * expl((long double)y));
    long double e = log1pl(em1);
    e += fabsl(e) * 0x1p-60L;
    double eps = (double)e;
    if ((long double)eps < e) {
        eps = nextafter(eps, INFINITY);
    }
    return eps;
}

double sp_poisson_smallest_eps(const sp_poisson_curve *c, sp_direction direction, double log_target,
                               double log_tol, int positive)
{
    if (isfinite(log_target) && log_target < 0.0 && !isnan(log_tol)) {
        const double aim = sp_search_aim(log_target, log_tol);
        if (direction == SP_MAX) {
            int fa, fm = 1;
            double a = poisson_direction_eps(c, SP_PLUS, aim, &fa);
            double m = fa ? NAN : poisson_direction_eps(c, SP_MINUS, aim, &fm);
            if (!fa && !fm) {
                return isnan(a) || isnan(m) ? NAN : fmax(a, m);
            }
        } else if (direction == SP_PLUS || direction == SP_MINUS) {
            int f;
            double e = poisson_direction_eps(c, direction, aim, &f);
            if (!f) {
                return e;
            }
        }
    }
    return sp_smallest_eps(sp_poisson_curve_log_delta, c, direction, log_target, log_tol,
                           positive);
}

void sp_poisson_log_ratio(long double n, double g, double pi, long double first, long count,
                          long double *out, double err_const, double *err)
{
    const long double mean = n * (long double)g * (long double)pi, p = (long double)pi;
    const double n_d = (double)n, first_d = (double)first;
    for (long i = 0; i < count; i++) {
        const long double j = first + (long double)i;
        out[i] = sp_ld_log1p((j - mean) / ((n - j) * p));
        if (err != NULL) {
            err[i] = fabs((double)out[i]) * 4e-19 + err_const / fmax(n_d - (first_d + (double)i), 1.0);
        }
    }
}

void sp_subsample_log_ratio(long double n, long double m, double pi, long double first,
                            long count, double err_const, long double *out, double *err)
{
    const long double p = (long double)pi, center = m * p;
    const long double scale_in = n * p, scale_out = -(n * (1.0L - p));
    for (long i = 0; i < count; i++) {
        const long double d = (first + (long double)i) - center;
        const long double t_in = sp_ld_log1p(d / scale_in), t_out = sp_ld_log1p(d / scale_out);
        out[i] = t_in - t_out;
        err[i] = 4e-19 * (fabs((double)t_in) + fabs((double)t_out)) + err_const;
    }
}
