#include <math.h>
#include <stddef.h>
#include "shuffle.h"
#include "binomial_tail.h"
#include "logspace.h"
#include "search.h"

/* Tries of the certified sum: each failed check (bucket excess or window
 * tails above their share of rel_tol) shrinks the buckets 8-fold or widens
 * the window by one standard deviation; the last try has every c its own
 * bucket and a window of 40 sd, which passes any check the kernel can. */
#define CLONES_TRIES 8

void sp_clones_init(sp_clones *c, double n, double eps0, double rel_tol)
{
    const double N = n - 1.0;
    const long double p = expl(-(long double)eps0), q = -expm1l(-(long double)eps0);
    const long double mean = (long double)N * p;
    const double mean_hi = (double)mean;
    c->n = n;
    c->eps0 = eps0;
    c->rel_tol = rel_tol;
    sp_binom_init_ext(&c->mix, N, p, q, mean_hi, (double)(mean - (long double)mean_hi), -eps0,
                      (double)logl(q), 0);
    c->mode = fmin(N, floor((double)((long double)(N + 1.0) * p)));
    c->sd = sqrt((double)((long double)N * p * q));
}

/* ln a and e^eps' - 1 of the reduction to a shift divergence (shuffle.h),
 * for 0 <= eps < eps0, in extended precision (no cancellation: both come
 * from expm1 of eps and of eps0 - eps). */
static void reduce(const sp_clones *c, double eps, long double *log_a, long double *em1p)
{
    const long double e0 = (long double)c->eps0;
    const long double d0 = expm1l(e0 - (long double)eps);           /* e^(eps0-eps) - 1 > 0 */
    const long double log1p_e0 = e0 + log1pl(expl(-e0));             /* ln(1 + e^eps0) */
    *log_a = (long double)eps + logl(d0) - log1p_e0;
    *em1p = expl(log1p_e0 - (long double)eps) * expm1l((long double)eps) / d0;
}

static double inner(const sp_clones *c, double cc, double eps, int approx)
{
    if (isnan(eps)) {
        return NAN;
    }
    if (!(eps < c->eps0)) {
        return -INFINITY;
    }
    long double log_a, em1p;
    reduce(c, eps, &log_a, &em1p);
    sp_binom b;
    sp_binom_init(&b, cc, 0.5, 0);
    const double epsp = (double)log1pl(em1p);
    const double g = approx ? sp_binom_shift_log_hockey_approx(&b, epsp)
                            : sp_binom_shift_log_hockey_em1(&b, epsp, em1p);
    return (double)(log_a + (long double)g);
}

double sp_clones_log_inner(const sp_clones *c, double cc, double eps)
{
    return inner(c, cc, eps, 0);
}

/* ln of the binomial mass of the clones on [lo, hi] (a window inside
 * 0..N): ratios b(k+1)/b(k) from Loader's term, re-anchored every 64 steps. */
static double log_mass(const sp_binom *w, double lo, double hi)
{
    const double N = w->N, ratio_pq = (double)(w->p_ext / w->q_ext);
    const double ref = sp_log_binom_pmf(w, lo);
    long double sum = 0.0L;
    double r = 1.0;
    for (double k = lo; k <= hi; k += 1.0) {
        if (k > lo && fmod(k - lo, 64.0) == 0.0) {
            r = exp(sp_log_binom_pmf(w, k) - ref);
        }
        sum += r;
        r *= (N - k) / (k + 1.0) * ratio_pq;
    }
    return ref + (double)logl(sum);
}

/* ln of a bound on the mass below lo (the ratios b(k-1)/b(k) decrease
 * downward: the rest is at most b(lo-1) / (1 - rho)), and above hi. */
static double log_mass_below(const sp_binom *w, double lo)
{
    if (lo <= 0.0) {
        return -INFINITY;
    }
    const double j = lo - 1.0;
    const double rho = j * (double)(w->q_ext / w->p_ext) / (w->N - j + 1.0);
    return rho < 1.0 ? sp_log_binom_pmf(w, j) - log1p(-rho) * (1.0 - 0x1p-40) : 0.0;
}

static double log_mass_above(const sp_binom *w, double hi)
{
    if (hi >= w->N) {
        return -INFINITY;
    }
    const double j = hi + 1.0;
    const double r = (w->N - j) * (double)(w->p_ext / w->q_ext) / (j + 1.0);
    return r < 1.0 ? sp_log_binom_pmf(w, j) - log1p(-r) * (1.0 - 0x1p-40) : 0.0;
}

/* The certified sum on the window [lo, hi] with bucket scale kappa (0: one
 * c per bucket): ln of the upper sum (tails included) into *up, ln of the
 * lower sum of the window into *low, ln of the tail bounds into *tails. */
static void bucket_sum(const sp_clones *c, double eps, double lo, double hi, double kappa,
                       double *up, double *low, double *tails)
{
    const sp_binom *w = &c->mix;
    const double sd = fmax(c->sd, 1.0);
    sp_logsum u = {0.0L, 0.0L}, l = {0.0L, 0.0L};
    double start = lo, h_start = inner(c, lo, eps, 0);
    while (start <= hi) {
        const double z = (start - c->mode) / sd;
        double width = 1.0;
        if (kappa > 0.0) {
            width = fmax(1.0, floor(fmin(kappa * exp(fmin(z * z / 4.0, 600.0)), 0x1p52)));
        }
        const double end = fmin(hi, start + width - 1.0);
        const double h_next = inner(c, end + 1.0, eps, 0);
        const double lm = log_mass(w, start, end);
        sp_logsum_add(&u, (long double)(lm + h_start));
        sp_logsum_add(&l, (long double)(lm + (end > start ? h_next : h_start)));
        start = end + 1.0;
        h_start = h_next;
    }
    /* outside the window: H_c <= H_0 = a below, <= H_{hi+1} above */
    const double t_lo = log_mass_below(w, lo) + inner(c, 0.0, eps, 0);
    const double t_hi = log_mass_above(w, hi) + h_start;
    *tails = sp_logaddexp(t_lo, t_hi);
    *low = (double)sp_logsum_log(&l);
    sp_logsum_add(&u, (long double)*tails);
    *up = (double)sp_logsum_log(&u);
}

static double positive_bounds(const sp_clones *c, double eps, double *lower)
{
    const double N = c->mix.N;
    if (N == 0.0) {
        *lower = inner(c, 0.0, eps, 0);
        return *lower;
    }
    const double sd = fmax(c->sd, 1.0);
    /* the relative budget: half for the buckets, a quarter for the tails */
    const double tol = c->rel_tol > 0.0 ? c->rel_tol : 0.0;
    const double tail_tol = tol > 0.0 ? fmax(tol / 4.0, SP_TAIL_TOL) : SP_TAIL_TOL;
    const double h_mode = inner(c, c->mode, eps, 0);
    double kappa = 0.0;
    if (tol > 0.0) {
        /* -d ln H / dc, measured over one sd above the mode */
        const double dc = fmin(ceil(sd), N - c->mode + 1.0);
        const double slope = (h_mode - inner(c, c->mode + dc, eps, 0)) / dc;
        kappa = slope > 0.0 ? 0.35 * tol / slope : 0x1p52;
    }
    /* initial window: the tail bounds below tail_tol / 4 of H at the mode */
    double k = 4.0, lo = 0.0, hi = N;
    const double log_a = inner(c, 0.0, eps, 0), budget = log(tail_tol / 4.0) + h_mode;
    for (; k < 40.0; k += 0.5) {
        lo = fmax(0.0, floor(c->mode - k * sd));
        hi = fmin(N, ceil(c->mode + k * sd));
        if (log_mass_below(&c->mix, lo) + log_a <= budget && log_mass_above(&c->mix, hi) + h_mode <= budget) {
            break;
        }
    }
    double up = NAN, low = NAN, tails = NAN;
    for (int attempt = 0; attempt < CLONES_TRIES; attempt++) {
        const int last = attempt == CLONES_TRIES - 1;
        if (last) {
            kappa = 0.0;
            lo = fmax(0.0, floor(c->mode - 40.0 * sd));
            hi = fmin(N, ceil(c->mode + 40.0 * sd));
        }
        bucket_sum(c, eps, lo, hi, kappa, &up, &low, &tails);
        if (isnan(up) || up == -INFINITY || last) {
            break;
        }
        int ok = 1;
        if (tails > low + log(tail_tol)) {                 /* widen the window */
            ok = 0;
            k += 1.0;
            lo = fmax(0.0, floor(c->mode - k * sd));
            hi = fmin(N, ceil(c->mode + k * sd));
        }
        if (kappa > 0.0 && up - low > log1p(tol)) {        /* narrower buckets */
            ok = 0;
            kappa = kappa >= 8.0 ? kappa / 8.0 : 0.0;
        }
        if (ok) {
            break;
        }
    }
    *lower = low;
    return up;
}

double sp_clones_log_delta_bounds(const sp_clones *c, double eps, double *lower)
{
    double low = -INFINITY, up;
    if (isnan(eps)) {
        up = low = NAN;
    } else if (eps >= c->eps0) {
        up = -INFINITY;
    } else if (eps >= 0.0) {
        up = positive_bounds(c, eps, &low);
    } else {
        /* H_eps(P||Q) = 1 - e^eps + e^eps H_{-eps}(Q||P), increasing in the
         * reverse value, which equals the forward one here */
        up = sp_log_hockey_negative_eps(eps, positive_bounds(c, -eps, &low));
        low = sp_log_hockey_negative_eps(eps, low);
    }
    if (lower != NULL) {
        *lower = low;
    }
    return up;
}

double sp_clones_log_delta(double eps, sp_direction direction, const void *ctx)
{
    (void)direction;            /* both directions are equal */
    return sp_clones_log_delta_bounds((const sp_clones *)ctx, eps, NULL);
}

double sp_clones_log_delta_approx(const sp_clones *c, double eps)
{
    if (isnan(eps) || !(eps >= 0.0) || eps >= c->eps0 || c->mix.N == 0.0) {
        return sp_clones_log_delta_bounds(c, eps, NULL);
    }
    const double N = c->mix.N, sd = c->sd;
    const double lo = fmax(0.0, floor(c->mode - 9.0 * sd)), hi = fmin(N, ceil(c->mode + 9.0 * sd));
    const double width = fmax(1.0, floor(sd / 16.0));
    sp_logsum s = {0.0L, 0.0L};
    for (double start = lo; start <= hi; start += width) {
        const double end = fmin(hi, start + width - 1.0);
        const double mid = floor((start + end) / 2.0);
        sp_logsum_add(&s, (long double)(log_mass(&c->mix, start, end) + inner(c, mid, eps, 1)));
    }
    return (double)sp_logsum_log(&s);
}

static double approx_fn(double eps, sp_direction direction, const void *ctx)
{
    (void)direction;
    return sp_clones_log_delta_approx((const sp_clones *)ctx, eps);
}

double sp_clones_smallest_eps(const sp_clones *c, double log_target, double log_tol)
{
    if (isnan(log_target) || isnan(log_tol)) {
        return NAN;
    }
    if (log_target >= 0.0) {
        return 0.0;
    }
    if (log_target == -INFINITY) {
        return c->eps0;         /* delta > 0 below eps0 (a > 0), = 0 from eps0 on */
    }
    const double aim = sp_search_aim(log_target, log_tol);
    double x = sp_smallest_eps_lean(approx_fn, c, SP_PLUS, log_target, log_tol, 0);
    if (isnan(x)) {
        return NAN;
    }
    x = fmin(x, nextafter(c->eps0, 0.0));
    /* settle on the certified sum: Newton steps on ln delta, with the slope
     * of the approximation; the answer is a point where the certified sum
     * is at or below the aim */
    const double h = fmax(1e-7 * x, 1e-300);
    double slope = (approx_fn(fmax(0.0, x - h), SP_PLUS, c) - approx_fn(x + h, SP_PLUS, c))
                   / (x + h - fmax(0.0, x - h));
    double fx = sp_clones_log_delta(x, SP_PLUS, c);
    if (isnan(fx)) {
        return NAN;
    }
    if (fx <= aim) {
        if (x > 0.0 && slope > 0.0 && aim - fx > 1e-12 * fmax(1.0, fabs(aim))) {
            const double down = fmax(0.0, x - (aim - fx) / slope * (1.0 - 1e-3));
            if (sp_clones_log_delta(down, SP_PLUS, c) <= aim) {
                x = down;
            }
        }
        return x;
    }
    for (int step = 0; step < 8 && slope > 0.0; step++) {
        const double next = fmin(c->eps0, nextafter(x + (fx - aim) / slope * (1.0 + 1e-6), INFINITY));
        const double fn = sp_clones_log_delta(next, SP_PLUS, c);
        if (isnan(fn)) {
            return NAN;
        }
        if (fn <= aim) {
            return next;
        }
        if (fx - fn > 0.0) {
            slope = (fx - fn) / (next - x);     /* secant through the certified values */
        }
        x = next;
        fx = fn;
    }
    /* fallback: bisection between x (above the aim) and eps0 (delta = 0) */
    double hi = c->eps0;
    for (int it = 0; it < 200 && nextafter(x, INFINITY) < hi; it++) {
        const double mid = x + (hi - x) / 2.0;
        const double fm = sp_clones_log_delta(mid, SP_PLUS, c);
        if (isnan(fm)) {
            return NAN;
        }
        if (fm <= aim) {
            hi = mid;
        } else {
            x = mid;
        }
    }
    return hi;
}
