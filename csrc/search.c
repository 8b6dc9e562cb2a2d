#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "search.h"

/* ln delta(eps) - ln target: the function whose sign change is searched.
 * With `floor` set (a target at the curve's floor, see floor_aim) every value
 * at or below the target is -inf, as where delta = 0: the curve may sit at
 * the target on a whole interval, and the smallest eps there is found by
 * bisection (solve_from_zero), not at any point of it. */
typedef struct {
    sp_curve_fn log_delta;
    const void *ctx;
    sp_direction direction;
    double log_target;
    int floor;
} excess_ctx;

static double excess_fn(double eps, const void *ctx)
{
    const excess_ctx *e = ctx;
    double v = e->log_delta(eps, e->direction, e->ctx);
    if (e->floor && v <= e->log_target) {
        return -INFINITY;
    }
    return v - e->log_target;
}

/* Non-negative doubles are ordered like their bit patterns. */
static uint64_t bits_of(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static double double_of(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* The smallest float eps > lo with ln delta(eps) = -inf, given that it is
 * -inf at hi and not at lo (0 <= lo < hi <= +inf): bisection on the bit
 * patterns, at most 64 evaluations, exact. */
static double first_zero(sp_curve_fn log_delta, const void *ctx, sp_direction direction, double lo,
                         double hi)
{
    uint64_t a = bits_of(lo), b = bits_of(hi);
    for (int i = 0; i < 70 && b - a > 1; i++) {
        uint64_t mid = a + (b - a) / 2;
        double f = log_delta(double_of(mid), direction, ctx);
        if (isnan(f)) {
            return NAN;
        }
        if (f == -INFINITY) {
            b = mid;
        } else {
            a = mid;
        }
    }
    return double_of(b);
}

/* Aim below the target by the curve's own error bound and a hair more, so
 * that exp(ln delta) <= target still holds after the rounding of ln delta
 * and of exp. */
static double search_aim(double log_target, double log_tol)
{
    double aim = log_target;
    if (isfinite(aim)) {
        aim -= fmax(log_tol, 0.0) + 0x1p-48 * fmax(1.0, fabs(aim));
    }
    return aim;
}

double sp_search_aim(double log_target, double log_tol)
{
    return search_aim(log_target, log_tol);
}

/* Where the curve's floor ln delta(+inf) = finf lies above the search aim:
 * 1 if it does not lie above the target less the curve's error bound, with
 * *aim set to that (then the answer is the smallest eps where the curve
 * meets it, e.g. 0 for a secret sample with delta = 1/2 at every eps and
 * target 1/2: the margin of the aim below the target would ask for a delta
 * below the floor, +inf).  The true delta there is <= target (1 + 1e-12), and
 * the float delta within the rounding of exp(ln target) of the target.  0 if
 * no finite eps reaches the target. */
static int floor_aim(double finf, double log_target, double log_tol, double *aim)
{
    if (finf <= log_target - fmax(log_tol, 0.0)) {
        *aim = log_target - fmax(log_tol, 0.0);
        return 1;
    }
    return 0;
}

/* The smallest eps > 0 with g(eps) <= 0, given g(0) = glo > 0 (g is
 * non-increasing: ln delta minus the aim).  Bracket g(lo) > 0 >= g(hi): hi =
 * 1, 4, 16, then squares (at most ~12 steps to DBL_MAX); beyond DBL_MAX only
 * +inf reaches the target.  A wide bracket is narrowed to one binade by
 * bisecting the bit patterns (regula falsi is slow across many orders of
 * magnitude), then Illinois; hi always satisfies g(hi) <= 0: it is the
 * answer, rounded up. */
static double solve_from_zero(sp_scalar_fn g, const void *ctx, double glo)
{
    double lo = 0.0, hi = 1.0, ghi = g(hi, ctx);
    int evals = 3;
    while (ghi > 0.0) {
        if (hi == DBL_MAX) {
            return INFINITY;
        }
        lo = hi;
        glo = ghi;
        hi = hi < 16.0 ? 4.0 * hi : (hi > 1e154 ? DBL_MAX : hi * hi);
        ghi = g(hi, ctx);
        evals++;
    }
    if (isnan(ghi)) {
        return NAN;
    }
    while (lo > 0.0 && hi > 2.0 * lo && evals < SP_SEARCH_MAX_EVALS) {
        double mid = double_of(bits_of(lo) + (bits_of(hi) - bits_of(lo)) / 2);
        double gm = g(mid, ctx);
        evals++;
        if (isnan(gm)) {
            return NAN;
        }
        if (gm > 0.0) {
            lo = mid;
            glo = gm;
        } else {
            hi = mid;
            ghi = gm;
        }
    }
    sp_illinois(g, ctx, &lo, &glo, &hi, &ghi, 4.0 * DBL_EPSILON, SP_SEARCH_MAX_EVALS - evals);
    if (isnan(glo)) {
        return NAN;
    }
    const double scale = fmax(fabs(lo), fabs(hi));
    const int unconverged = hi - lo > fmax(4.0 * DBL_EPSILON * scale,
                                           4.0 * (nextafter(scale, INFINITY) - scale));
    if ((lo == 0.0 && hi > 0.0) || (ghi == -INFINITY && lo < hi) || unconverged) {
        /* Three ways the answer lies strictly inside (lo, hi] and the Illinois
         * steps did not reach it, all closed by bisecting the bit patterns
         * of [lo, hi] (exact, at most 64 more evaluations):
         * - the evaluations ran out with the bracket still wide: a delta that
         *   falls from ~1 to ~0 within a few ulps of eps (a Gaussian of sigma
         *   = 3.1e-17 at its crossing 1/(2 sigma^2) = 5.1e32) gives the
         *   secants nothing to work with, and the answers of two targets
         *   stopped 2.3e-9 apart in the wrong order;
         * - every point tried had g <= 0 (lo = 0): an answer below ~2^-390,
         *   which the halvings from [0, 1] did not reach within
         *   SP_SEARCH_MAX_EVALS (randomized response with eps0 = 2.9e-247:
         *   2^-397 = 3.1e-120 came back);
         * - hi lies where delta = 0 (or at a floor target, see excess_fn), up
         *   to 4 ulps past its start: the smallest float above lo that meets
         *   the aim (~2 evaluations), so that no target > 0 gets an eps above
         *   epsilon(0), the smallest float with delta = 0. */
        uint64_t a = bits_of(lo), b = bits_of(hi);
        while (b - a > 1) {
            uint64_t mid = a + (b - a) / 2;
            double gm = g(double_of(mid), ctx);
            if (isnan(gm)) {
                return NAN;
            }
            if (gm > 0.0) {
                a = mid;
            } else {
                b = mid;
            }
        }
        hi = double_of(b);
    }
    return hi;
}

double sp_smallest_eps(sp_curve_fn log_delta, const void *ctx, sp_direction direction, double log_target,
                       double log_tol, int positive)
{
    if (isnan(log_target) || isnan(log_tol)) {
        return NAN;
    }
    if (log_target >= 0.0) {
        return 0.0;                     /* delta <= 1 everywhere */
    }
    double aim = search_aim(log_target, log_tol);
    double f0 = log_delta(0.0, direction, ctx);
    if (isnan(f0)) {
        return NAN;
    }
    if (f0 <= aim) {
        return 0.0;
    }
    double finf = log_delta(INFINITY, direction, ctx);
    if (isnan(finf)) {
        return NAN;
    }
    int at_floor = finf > aim;
    if (at_floor) {
        if (!floor_aim(finf, log_target, log_tol, &aim)) {
            return INFINITY;
        }
        if (f0 <= aim) {
            return 0.0;
        }
    }
    if (aim == -INFINITY) {
        if ((unsigned)direction < 16u && (positive >> direction) & 1) {
            return INFINITY;
        }
        return first_zero(log_delta, ctx, direction, 0.0, INFINITY);
    }
    const excess_ctx ex = {log_delta, ctx, direction, aim, at_floor};
    return solve_from_zero(excess_fn, &ex, f0 - aim);
}

int sp_illinois(sp_scalar_fn f, const void *ctx, double *lo, double *flo, double *hi,
                double *fhi, double rel_tol, int max_evals)
{
    /* Halve the weight of an endpoint retained twice in a row; bisect when
     * the secant point is unusable (an infinite end, e.g. ln delta = -inf). */
    const int lo_positive = *flo > 0.0;
    int side = 0, evals = 0;
    while (evals < max_evals) {
        double width = *hi - *lo;
        double scale = fmax(fabs(*lo), fabs(*hi));
        if (fabs(width) <= rel_tol * scale || fabs(width) <= 4.0 * (nextafter(scale, INFINITY) - scale)) {
            break;
        }
        double x = *lo + 0.5 * width;
        if (isfinite(*flo) && isfinite(*fhi) && *flo != *fhi) {
            double secant = *hi - *fhi * width / (*fhi - *flo);
            if ((secant - *lo) * (secant - *hi) < 0.0) {
                x = secant;
            }
        }
        double fx = f(x, ctx);
        evals++;
        if (isnan(fx)) {
            *flo = NAN;
            break;
        }
        if (fx == 0.0) {
            *lo = *hi = x;
            *flo = *fhi = 0.0;
            break;
        }
        if ((fx > 0.0) == lo_positive) {
            *lo = x;
            *flo = fx;
            if (side == -1) {
                *fhi *= 0.5;
            }
            side = -1;
        } else {
            *hi = x;
            *fhi = fx;
            if (side == 1) {
                *flo *= 0.5;
            }
            side = 1;
        }
    }
    return evals;
}

/* ---- Noiseless binomial curves at large N -------------------------------- */

static double binom_approx_one(double eps, sp_direction direction, const void *ctx)
{
    (void)direction;
    return sp_binom_shift_log_hockey_approx(ctx, eps);
}

/* delta(eps) / b0 - target / b0 from the local model; 1 if out of its reach. */
static int model_excess(const sp_binom *b, const sp_binom_sums *at, double eps, long double rel_aim,
                        long double *excess, long double *slope)
{
    long double t, sb;
    if (sp_binom_shift_model(b, at, eps, &t, &sb) != 0) {
        return 1;
    }
    *excess = t - rel_aim;
    *slope = expl((long double)eps) * sb;      /* e^eps (-d delta / d e^eps) */
    return 0;
}

typedef struct {
    const sp_binom *b;
    double aim;
} binom_aim;

static int binom_model(const void *ctx, const sp_binom_sums *at, double eps, long double *excess,
                       long double *slope)
{
    const binom_aim *a = ctx;
    const long double rel_aim = expl((long double)a->aim - (long double)at->log_b0);
    return model_excess(a->b, at, eps, rel_aim, excess, slope);
}

double sp_binom_settle_eps(const sp_binom *b, double x, sp_model_fn model, const void *ctx,
                           int *fallback)
{
    /* Newton on delta as a function of u = e^eps (convex: a maximum of the
     * linear functions sum_{k in K} b(k-1) - u b(k)), each step solved on the
     * local model around the last exact evaluation; a new exact evaluation
     * only when the model is out of reach. */
    *fallback = 1;
    for (int outer = 0; outer < 6; outer++) {
        sp_binom_sums at;
        if (sp_binom_shift_sums(b, x, &at) != 0 || !(at.t > 0.0L) || !(at.b > 0.0L)) {
            return NAN;
        }
        double y = x;
        int ok = 1;
        for (int inner = 0; inner < 32; inner++) {
            long double ex, sl;
            if (model(ctx, &at, y, &ex, &sl) != 0 || !(sl > 0.0L)) {
                ok = 0;
                break;
            }
            long double step = ex / sl;        /* e^r = e^y (1 + step) */
            if (!(step > -1.0L)) {
                ok = 0;
                break;
            }
            double r = (double)((long double)y + log1pl(step));
            if (r == y) {
                break;
            }
            y = r;
        }
        if (ok) {
            /* The smallest float with model delta <= target near y. */
            long double ex, sl;
            int up = 0;
            while (up < 16 && (ok = model(ctx, &at, y, &ex, &sl) == 0) && ex > 0.0L) {
                y = nextafter(y, INFINITY);
                up++;
            }
            if (ok && up < 16) {
                for (int down = 0; down < 16; down++) {
                    double z = nextafter(y, 0.0);
                    if (model(ctx, &at, z, &ex, &sl) != 0) {
                        break;
                    }
                    if (ex > 0.0L) {
                        *fallback = 0;
                        return y;
                    }
                    y = z;
                }
            }
        }
        if (!(y > 0.0 && isfinite(y))) {
            return NAN;
        }
        x = y;
    }
    return NAN;
}

/* One direction at large N (see sp_binom_smallest_eps).  Returns NAN with
 * *fallback = 1 when the fast route does not apply. */
static double binom_direction_eps(const sp_binom *b, double aim, int *fallback)
{
    *fallback = 1;
    double f0 = sp_binom_shift_log_hockey(b, 0.0);          /* O(1): b(k0 - 1) */
    if (isnan(f0)) {
        return NAN;
    }
    if (f0 <= aim) {
        *fallback = 0;
        return 0.0;
    }
    if (sp_binom_shift_log_hockey(b, INFINITY) > aim) {       /* closed form p^N */
        *fallback = 0;
        return INFINITY;
    }
    /* Locate the answer on the approximation (same search, no guarantee). */
    double x = sp_smallest_eps(binom_approx_one, b, SP_PLUS, aim, 0.0, 0);
    if (!(x > 0.0 && isfinite(x))) {
        return NAN;
    }
    const binom_aim ctx = {b, aim};
    return sp_binom_settle_eps(b, x, binom_model, &ctx, fallback);
}

double sp_binom_smallest_eps(const sp_binom_curve *c, sp_direction direction, double log_target,
                             double log_tol)
{
    if (direction == SP_MAX) {
        double a = sp_binom_smallest_eps(c, SP_PLUS, log_target, log_tol);
        const sp_binom *u = &c->plus, *v = &c->minus;
        if (u->N == v->N && u->p_ext == v->p_ext && u->q_ext == v->q_ext && u->log_p == v->log_p
            && u->log_q == v->log_q && u->mean_hi == v->mean_hi && u->mean_lo == v->mean_lo) {
            return a;               /* pi = 1/2: both directions are the same law */
        }
        double m = sp_binom_smallest_eps(c, SP_MINUS, log_target, log_tol);
        return isnan(a) || isnan(m) ? NAN : fmax(a, m);
    }
    const sp_binom *b = direction == SP_PLUS ? &c->plus : &c->minus;
    if (isfinite(log_target) && log_target < 0.0 && !isnan(log_tol)
        && sp_binom_shift_sd(b) >= SP_BINOM_SEARCH_MIN_SD) {
        int fallback;
        double e = binom_direction_eps(b, search_aim(log_target, log_tol), &fallback);
        if (!fallback) {
            return e;
        }
    }
    return sp_smallest_eps(sp_binom_curve_log_delta, c, direction, log_target, log_tol, 0);
}

/* ---- The generic search with fewer curve evaluations --------------------- */

/* The function whose sign change sp_smallest_eps_lean searches: its sign is
 * that of ln delta(eps) - aim exactly, its value sqrt(-aim) - sqrt(-ln delta),
 * which is close to linear in eps where ln delta is close to quadratic (large
 * counts: ln delta ~ -(eps sd)^2 / 2), so that the secant steps converge in
 * fewer evaluations.  For SP_MAX the direction that exceeded the aim last
 * (dom) is evaluated first and the other only if needed: the sign of the
 * maximum is known from one direction whenever that one exceeds the aim. */
typedef struct {
    sp_curve_fn log_delta;
    const void *ctx;
    sp_direction direction;
    double aim, root_aim;       /* root_aim = sqrt(-aim) */
    sp_direction dom;           /* SP_PLUS or SP_MINUS, updated as it goes */
    int floor;                  /* values <= aim are -inf (see excess_fn) */
} lean_search;

static double lean_excess(double eps, const void *vctx)
{
    lean_search *s = (lean_search *)vctx;     /* our own stack object, not the caller's */
    double v;
    if (s->direction != SP_MAX) {
        v = s->log_delta(eps, s->direction, s->ctx);
    } else {
        const sp_direction a = s->dom, b = sp_reverse(a);
        v = s->log_delta(eps, a, s->ctx);
        if (!isnan(v) && !(v > s->aim)) {
            double w = s->log_delta(eps, b, s->ctx);
            if (isnan(w) || w > s->aim) {
                s->dom = b;
            }
            v = isnan(w) ? w : fmax(v, w);
        }
    }
    if (isnan(v) || v == -INFINITY) {
        return v;
    }
    if (s->floor && v <= s->aim) {
        return -INFINITY;
    }
    /* sqrt(-aim) - sqrt(-v) without cancellation: v - aim is exact near the
     * root (Sterbenz), so the sign is exactly that of v - aim */
    return (v - s->aim) / (s->root_aim + sqrt(-fmin(v, 0.0)));
}

double sp_smallest_eps_lean(sp_curve_fn log_delta, const void *ctx, sp_direction direction,
                            double log_target, double log_tol, int positive)
{
    if (isnan(log_target) || isnan(log_tol) || !(log_target < 0.0)
        || !isfinite(log_target)) {
        return sp_smallest_eps(log_delta, ctx, direction, log_target, log_tol, positive);
    }
    double aim = search_aim(log_target, log_tol);
    lean_search s = {log_delta, ctx, direction, aim, sqrt(-aim), SP_PLUS, 0};
    double glo = lean_excess(0.0, &s);
    if (isnan(glo)) {
        return NAN;
    }
    if (!(glo > 0.0)) {
        return 0.0;
    }
    double ginf = lean_excess(INFINITY, &s);
    if (isnan(ginf)) {
        return NAN;
    }
    if (ginf > 0.0) {
        /* above the aim at +inf: the floor ln delta(+inf) may still meet the target */
        double finf = log_delta(INFINITY, direction, ctx);
        if (isnan(finf)) {
            return NAN;
        }
        if (!floor_aim(finf, log_target, log_tol, &aim)) {
            return INFINITY;
        }
        s.aim = aim;
        s.root_aim = sqrt(-aim);
        s.floor = 1;
        glo = lean_excess(0.0, &s);
        if (isnan(glo)) {
            return NAN;
        }
        if (!(glo > 0.0)) {
            return 0.0;
        }
    }
    return solve_from_zero(lean_excess, &s, glo);
}

/* ---- The search on a cheap estimate, verified on the exact curve --------- */

/* The smallest float y found on the estimate est_ctx[which], if the exact
 * curve meets the aim at y and the estimate's lower bound (est_ctx[2])
 * exceeds the aim by 2^-34 at y (1 - 2^-31) -- so that the exact answer is
 * above y (1 - 2^-31): y is not pushed out along a nearly flat curve by the
 * estimate's margin or error; NAN otherwise, with *loose = 1 if that check
 * failed (a larger estimate would not pass it either). */
static double verified_on_estimate(sp_curve_fn log_delta, const void *ctx, sp_curve_fn est,
                                   const void *const est_ctx[3], int which,
                                   sp_direction direction, double log_target, double log_tol,
                                   double extra, int positive, int *loose)
{
    *loose = 0;
    double y = sp_smallest_eps_lean(est, est_ctx[which], direction, log_target, log_tol + extra,
                                    positive);
    if (isnan(y) || y == INFINITY) {
        return y;               /* +inf: the estimate is the exact curve at +inf */
    }
    const double aim = search_aim(log_target, log_tol);
    if (y > 0.0 && !(est(y * (1.0 - 0x1p-31), direction, est_ctx[2]) > aim + 0x1p-34)) {
        *loose = 1;
        return NAN;
    }
    double v = log_delta(y, direction, ctx);
    return !isnan(v) && v <= aim ? y : NAN;
}

double sp_smallest_eps_estimated(sp_curve_fn log_delta, const void *ctx, sp_curve_fn est,
                                 const void *const est_ctx[3], double margin,
                                 sp_direction direction, double log_target, double log_tol,
                                 int positive)
{
    if (isnan(log_target) || isnan(log_tol) || !(log_target < 0.0) || !isfinite(log_target)) {
        return sp_smallest_eps_lean(log_delta, ctx, direction, log_target, log_tol, positive);
    }
    int loose;
    double y = verified_on_estimate(log_delta, ctx, est, est_ctx, 0, direction, log_target,
                                    log_tol, margin * fmax(1.0, fabs(log_target)), positive,
                                    &loose);
    if (isnan(y) && !loose) {
        y = verified_on_estimate(log_delta, ctx, est, est_ctx, 1, direction, log_target,
                                 log_tol, 0.0, positive, &loose);
    }
    if (isnan(y)) {
        y = sp_smallest_eps_lean(log_delta, ctx, direction, log_target, log_tol, positive);
    }
    return y;
}
