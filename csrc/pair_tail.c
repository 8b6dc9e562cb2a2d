#include <float.h>
#include <math.h>
#include <stddef.h>
#include "pair_tail.h"
#include "logspace.h"

/* A tail sum at cell j: the array if given, else from its checkpoints. */
static inline long double tail_at(const long double *sums, const sp_log_cumsum_marks *marks,
                                  long j)
{
    return sums != NULL ? sums[j] : sp_log_cumsum_at(marks, j);
}

/* The pair holds a tail sum (array or checkpoints). */
static inline int has_tail(const long double *sums, const sp_log_cumsum_marks *marks)
{
    return sums != NULL || marks->marks != NULL;
}

/* First index j in [lo, hi) with lr[j] > x, or hi (lr non-decreasing). */
static long first_above(const long double *lr, long lo, long hi, long double x)
{
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (lr[mid] > x) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return lo;
}

/* ln of the part of point-mass cell j that counts towards H_eps(A||B),
 * (A, B) = (P, Q) for SP_PLUS and (Q, P) for SP_MINUS: A(j) (1 - e^(eps - lr)).
 * lr is the unevaluated sum lr[j] + lr_lo[j]: eps - lr[j] is exact in long
 * double where it is small (Sterbenz), so eps - lr keeps its relative
 * accuracy down to the float just below the zero point. */
static inline long double point_term(const sp_pair *s, long j, long double eps, sp_direction direction)
{
    /* A's mass and ln A/B */
    const long double la = direction == SP_PLUS ? s->lp[j] : s->lq[j];
    long double lr = direction == SP_PLUS ? s->lr[j] : -s->lr[j];
    if (lr == INFINITY) {
        return eps == INFINITY ? -INFINITY : la;
    }
    long double lo = s->lr_lo == NULL ? 0.0L : (direction == SP_PLUS ? s->lr_lo[j] : -s->lr_lo[j]);
    long double d = (eps - lr) - lo;
    if (!(d < 0.0L)) {
        return -INFINITY;
    }
    /* d is accurate to ~1e-19 relative; its exp needs no more than double,
     * except below the doubles' normal range (a sampled pair's ratio
     * ln(1 - q + q e^lr) of a subnormal lr): there 1 - e^d = -d to 1e-308,
     * and d as a double would round to a subnormal or to 0 (delta = 0 where
     * it is not) */
    if (d > -(long double)DBL_MIN) {
        return la + logl(-d);
    }
    return la + log(-expm1((double)d));
}

/* Cell j's term: the mechanism's callback where it evaluates the cell, else
 * the point-mass term.  Inline in the loops: one indirect call per cell. */
static inline long double cell_term(const sp_pair *s, long j, double eps, sp_direction direction)
{
    long double out;
    if (s->cell_log_positive != NULL
        && s->cell_log_positive(s->cell_ctx, j, eps, direction, &out)) {
        return out;
    }
    return point_term(s, j, eps, direction);
}

/* The largest (hi, lo) of a direction, updated by one cell (the running
 * maximum of sp_pair_init_zero). */
static inline void zero_update(long double *hi, long double *lo, long double h, long double l)
{
    if (!isnan(h) && !sp_dd_geq(*hi, *lo, h, l)) {
        *hi = h;
        *lo = l;
    }
}

void sp_pair_init_zero(sp_pair *s)
{
    /* both directions in one pass over the cells (the same comparisons, in
     * the same order, as one pass per direction) */
    long double hi[2] = {-INFINITY, -INFINITY}, lo[2] = {0.0L, 0.0L};
    const int use_cells = s->cell_log_positive == NULL || s->monotone;
    for (long j = 0; use_cells && j < s->len; j++) {
        const long double h = s->lr[j];
        /* (the low part +0, never -0, where there is none: as before) */
        const int no_lo = s->lr_lo == NULL || isinf(h);
        if (s->lp[j] != -INFINITY) {
            zero_update(&hi[0], &lo[0], h, no_lo ? 0.0L : s->lr_lo[j]);
        }
        if (s->lq[j] != -INFINITY) {
            zero_update(&hi[1], &lo[1], -h, no_lo ? 0.0L : -s->lr_lo[j]);
        }
    }
    for (int d = 0; d < 2; d++) {
        const sp_direction dir = d == 0 ? SP_PLUS : SP_MINUS;
        if (!use_cells || sp_dd_geq(hi[d], lo[d], s->max_log_ratio, 0.0L)) {
            hi[d] = s->max_log_ratio;
            lo[d] = 0.0L;
        }
        s->zero_hi[dir] = hi[d];
        s->zero_lo[dir] = lo[d];
    }
}

double sp_pair_zero_point(const sp_pair *s, sp_direction direction)
{
    const long double hi = s->zero_hi[direction], lo = s->zero_lo[direction];
    if (isinf(hi)) {
        return (double)hi;
    }
    double x = (double)(hi + lo);
    for (int guard = 0; guard < 4 && !sp_dd_geq(x, 0.0L, hi, lo); guard++) {
        x = nextafter(x, INFINITY);
    }
    for (int guard = 0; guard < 4 && sp_dd_geq(nextafter(x, -INFINITY), 0.0L, hi, lo); guard++) {
        x = nextafter(x, -INFINITY);
    }
    return x;
}

/* The closed form of the fully positive cells beyond o (see pair_tail.h,
 * sp_pair_curve_log_delta_estimate): with A, B = (P, Q) for SP_PLUS and
 * (Q, P) for SP_MINUS and la_o, lb_o the logs of their tail sums from o
 * outward (read by the caller), sum over those cells of A - e^eps B =
 * A(o) (1 - e^(eps + ln B(o) - ln A(o))).  Sets *c to that factor and *err
 * to a bound on its absolute error from the tail sums' relative error
 * eta = 2^-50 + len 2^-63 and their logs' 2^-52 of their size; returns 0
 * where it does not apply (A(o) = 0: nothing; the factor <= 0 or its error
 * above 2^-20 of it). */
static int closed_tail_factor(const sp_pair *s, long double la_o, long double lb_o, long double x,
                              long double *c, long double *err)
{
    if (!(la_o > -INFINITY)) {
        return 0;
    }
    const long double eta = 0x1p-50L + (long double)s->len * 0x1p-63L;
    *c = 1.0L;                       /* B(o) = 0: A(o) alone */
    *err = eta;
    if (lb_o > -INFINITY) {
        const long double d = (x + lb_o) - la_o;
        if (!(d < 0.0L)) {
            return 0;
        }
        *c = -expm1l(d);
        /* the cells' logs are good to ~2^-52 of their size (double
         * transcendentals of the mantissa), which the tail sums inherit */
        *err = 2.0L * eta + 0x1p-52L * (fabsl(la_o) + fabsl(lb_o) + x);
    }
    return *err <= 0x1p-20L * *c;
}

/* The exact sums' stop by the closed form (noisy cells, where the other two
 * tail sums are at hand): the cells from o outward are fully positive (o >=
 * the first cell whose ratio exceeds e^eps, plus one, for SP_PLUS; likewise
 * mirrored), so their sum is closed_tail_factor's, whose error is bounded.
 * Once that error is below e^log_tol of the sum so far, adds the closed form
 * plus its error (an upper bound, above the exact rest by at most twice
 * that) to acc and returns 1.  The bound the sums used alone, A(o) itself,
 * is reached only where A(o) <= 2^-40 of the sum: on a count of sd s plus
 * noise at small eps the cell ratios grow by ~1/s^2 a cell, the positive
 * parts are ~1e-4 of A there and A falls ~e^-0.05 a cell, so it took ~700
 * cells a direction (n = 1e6, Laplace(3), eps = 0.05) and left the sum up to
 * 2^-40 above the exact one (3e-13 measured at n = 2e4, Laplace(0.7)).  The
 * closed form's error, ~2^-52 (|ln A(o)| + |ln B(o)| + eps) A(o), is taken
 * once it is within the sum's own precision, 2^-52 (|ln A(o)| + eps) of the
 * sum (the summed cells' logs carry that much): at n = 1e6, Laplace(3),
 * eps = 0.05 (delta 5.8e-119, |ln A| ~ 272) 209 cells a direction instead of
 * 313 at a fixed 2^-52, delta moved by 5.7e-14 relative (the cells' own
 * ~6e-14); at n = 2e4, Laplace(0.7) (ln delta ~ -12) still exact to 4e-15. */
static int closed_tail_stop(const sp_pair *s, sp_logsum *acc, long double la_o, long o,
                            long double eps, sp_direction direction, long double log_tol)
{
    const long double lb_o = direction == SP_PLUS ? tail_at(s->lsq, &s->lsq_marks, o)
                                                  : tail_at(s->lcp, &s->lcp_marks, o);
    long double c, err;
    /* the summed cells' logs are good to ~2^-52 of their size, so the sum
     * so far is known to 2^-52 (|ln A(o)| + eps) relative at best */
    const long double log_scale = logl(fmaxl(1.0L, fabsl(la_o) + eps));
    if (!closed_tail_factor(s, la_o, lb_o, eps, &c, &err)
        || la_o + logl(err) > sp_logsum_log(acc) + log_tol + log_scale) {
        return 0;
    }
    sp_logsum_add(acc, la_o + logl(c + err));
    return 1;
}

/* ln of the relative size below which the sums bound their rest. */
static long double log_tail_tol(const sp_pair *s)
{
    return logl(s->tail_tol > 0.0 ? s->tail_tol : SP_TAIL_TOL);
}

/* ln 2^-52: the closed-form stop's tolerance (closed_tail_stop), scaled there
 * by the size of the logs */
#define LOG_CLOSED_TOL (-52.0L * 0.69314718055994530942L)

/* The closed-form stop applies: noisy cells (tail_tol set) with all four
 * tail sums and a monotone ratio. */
static int closed_tails(const sp_pair *s)
{
    return s->closed_rest && s->tail_tol > 0.0 && s->monotone && has_tail(s->lsq, &s->lsq_marks)
           && has_tail(s->lcp, &s->lcp_marks);
}

static double pair_plus(const sp_pair *s, double eps)
{
    const long double log_tol = log_tail_tol(s);
    const int closed = closed_tails(s);
    const long double log_closed_tol = LOG_CLOSED_TOL;
    sp_logsum acc = {0.0L, 0.0L};
    /* With a monotone ratio the positive part starts at the first cell whose
     * ratio exceeds e^eps, or (cells evaluated by the callback) inside the cell before it. */
    long start = s->monotone ? first_above(s->lr, 0, s->len, eps) - 1 : 0;
    for (long j = start < 0 ? 0 : start; j < s->len; j++) {
        sp_logsum_add(&acc, cell_term(s, j, eps, SP_PLUS));
        if (s->monotone && j > start + 1 && j + 1 < s->len && acc.sum > 0.0L
            && (j - start) % 8 == 0) {
            long double log_rest = tail_at(s->lsp, &s->lsp_marks, j + 1);  /* terms <= P(cell), cells > j */
            if (log_rest <= sp_logsum_log(&acc) + log_tol) {
                sp_logsum_add(&acc, log_rest);
                break;
            }
            /* cells >= start + 2 are fully positive */
            if (closed && closed_tail_stop(s, &acc, log_rest, j + 1, eps, SP_PLUS, log_closed_tol)) {
                break;
            }
        }
    }
    return (double)sp_logsum_log(&acc);
}

static double pair_minus(const sp_pair *s, double eps)
{
    const long double log_tol = log_tail_tol(s);
    sp_logsum acc = {0.0L, 0.0L};
    long start = s->monotone ? first_above(s->lr, 0, s->len, -(long double)eps) : s->len - 1;
    if (start > s->len - 1) {
        start = s->len - 1;
    }
    const int closed = closed_tails(s);
    const long double log_closed_tol = LOG_CLOSED_TOL;
    for (long j = start; j >= 0; j--) {
        sp_logsum_add(&acc, cell_term(s, j, eps, SP_MINUS));
        if (s->monotone && j < start - 1 && j > 0 && acc.sum > 0.0L && (start - j) % 8 == 0) {
            long double log_rest = tail_at(s->lcq, &s->lcq_marks, j - 1);
            if (log_rest <= sp_logsum_log(&acc) + log_tol) {
                sp_logsum_add(&acc, log_rest);
                break;
            }
            /* cells <= start - 2 are fully positive */
            if (closed && closed_tail_stop(s, &acc, log_rest, j - 1, eps, SP_MINUS, log_closed_tol)) {
                break;
            }
        }
    }
    return (double)sp_logsum_log(&acc);
}

/* eps = +inf: the limit of H_eps, the numerator's mass where the other law
 * is 0 (the atoms with lr = +inf for SP_PLUS, -inf for SP_MINUS). */
static double pair_log_mass_alone(const sp_pair *s, sp_direction direction)
{
    sp_logsum acc = {0.0L, 0.0L};
    long double infinite = direction == SP_PLUS ? INFINITY : -INFINITY;
    for (long j = 0; j < s->len; j++) {
        if (s->lr[j] == infinite) {
            sp_logsum_add(&acc, direction == SP_PLUS ? s->lp[j] : s->lq[j]);
        }
    }
    return acc.sum > 0.0L ? (double)sp_logsum_log(&acc) : -INFINITY;
}

double sp_pair_log_hockey(const sp_pair *pair, double eps, sp_direction direction)
{
    /* Past a finite zero point delta is 0, so is its limit: an atom whose
     * other-law mass underflowed (lr = +inf) is not alone there.  Laplace
     * noise of scale 1e-9 on a secret sample: the cells' Q masses e^(-1e9)
     * are 0 in long double while the zero point 1e9 is exact, and the
     * stranded P mass made delta(inf) = 1.4e-9 > delta(1e9) = 0 (and
     * epsilon(1e-12) = inf). */
    if (eps == INFINITY && !(pair->zero_hi[direction] < INFINITY)) {
        return pair_log_mass_alone(pair, direction);
    }
    if (sp_dd_geq(eps, 0.0L, pair->zero_hi[direction], pair->zero_lo[direction])) {
        return -INFINITY;
    }
    return direction == SP_PLUS ? pair_plus(pair, eps) : pair_minus(pair, eps);
}

static double pair_direction(const sp_pair *s, double eps, sp_direction direction)
{
    if (eps >= 0.0) {
        return sp_pair_log_hockey(s, eps, direction);
    }
    return sp_log_hockey_negative_eps(eps, sp_pair_log_hockey(s, -eps, sp_reverse(direction)));
}

double sp_pair_curve_log_delta(double eps, sp_direction direction, const void *ctx)
{
    const sp_pair *s = ctx;
    if (direction != SP_MAX) {
        return pair_direction(s, eps, direction);
    }
    return fmax(pair_direction(s, eps, SP_PLUS), pair_direction(s, eps, SP_MINUS));
}

/* ---- The estimate for the epsilon search (see pair_tail.h) --------------- */

/* ln of the estimate of one direction at 0 <= eps < +inf below the zero
 * point; NAN where the closed form does not apply (the caller then sums). */
static double pair_estimate(const sp_pair *s, double eps, sp_direction direction, int with_err)
{
    const long double x = eps;
    long lo, hi, o;              /* the threshold cells [lo, hi) term by term; o: the closed form */
    const long double *la_tail, *lb_tail;
    const sp_log_cumsum_marks *la_marks, *lb_marks;
    if (direction == SP_PLUS) {
        const long fa = first_above(s->lr, 0, s->len, x);
        lo = fa - 1 < 0 ? 0 : fa - 1;
        hi = fa + 1 > s->len ? s->len : fa + 1;
        o = hi;                  /* cells >= fa + 1: their near end's ratio >= lr[fa] > eps */
        la_tail = s->lsp;
        lb_tail = s->lsq;
        la_marks = &s->lsp_marks;
        lb_marks = &s->lsq_marks;
    } else {
        long start = first_above(s->lr, 0, s->len, -x);
        if (start > s->len - 1) {
            start = s->len - 1;
        }
        lo = start - 1 < 0 ? 0 : start - 1;
        hi = start + 1;
        o = start - 2;           /* cells <= start - 2: ratio <= lr[start - 1] <= -eps */
        la_tail = s->lcq;
        lb_tail = s->lcp;
        la_marks = &s->lcq_marks;
        lb_marks = &s->lcp_marks;
    }
    sp_logsum acc = {0.0L, 0.0L};
    for (long j = lo; j < hi; j++) {
        sp_logsum_add(&acc, cell_term(s, j, eps, direction));
    }
    const int outer = direction == SP_PLUS ? o < s->len : o >= 0;
    const long double la_o = outer ? tail_at(la_tail, la_marks, o) : -INFINITY;
    const long double lb_o = outer ? tail_at(lb_tail, lb_marks, o) : -INFINITY;
    if (outer && la_o > -INFINITY) {
        /* A(o) (1 - e^(eps + ln B(o) - ln A(o))), A, B the tail sums */
        long double c, d_err;
        if (!closed_tail_factor(s, la_o, lb_o, x, &c, &d_err)) {
            return NAN;
        }
        /* with_err: +1 an upper bound; -1 less the typical error (the tail
         * sums to 2^-50 each, without the worst-case accumulation len 2^-63,
         * ~1e3 times the typical one at len = 1e6); 0 plain */
        const long double typical = d_err - 2.0L * (long double)s->len * 0x1p-63L;
        const long double v = c + (with_err > 0 ? d_err : (with_err < 0 ? -typical : 0.0L));
        sp_logsum_add(&acc, v > 0.0L ? la_o + logl(v) : -INFINITY);
    }
    return (double)sp_logsum_log(&acc);
}

/* The estimate where its closed form applies, else NaN */
static double estimate_if_cheap(const sp_pair *s, double eps, sp_direction direction,
                                int with_err)
{
    if (eps >= 0.0 && eps < INFINITY && s->monotone && has_tail(s->lsq, &s->lsq_marks)
        && has_tail(s->lcp, &s->lcp_marks)
        && !sp_dd_geq(eps, 0.0L, s->zero_hi[direction], s->zero_lo[direction])) {
        return pair_estimate(s, eps, direction, with_err);
    }
    return NAN;
}

static double estimate_direction(const sp_pair *s, double eps, sp_direction direction,
                                 int with_err)
{
    const double v = estimate_if_cheap(s, eps, direction, with_err);
    return isnan(v) ? pair_direction(s, eps, direction) : v;
}

double sp_pair_log_delta_upper(double eps, sp_direction direction, const void *ctx)
{
    return estimate_if_cheap(ctx, eps, direction, 1);
}

double sp_pair_curve_log_delta_estimate(double eps, sp_direction direction, const void *ctx)
{
    const sp_estimate *e = ctx;
    const sp_pair *pair = e->curve;
    if (direction != SP_MAX) {
        return estimate_direction(pair, eps, direction, e->with_err);
    }
    return fmax(estimate_direction(pair, eps, SP_PLUS, e->with_err),
                estimate_direction(pair, eps, SP_MINUS, e->with_err));
}
