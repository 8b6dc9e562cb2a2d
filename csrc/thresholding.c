#include <stddef.h>
#include <stdlib.h>
#include <math.h>
#include "thresholding.h"
#include "logspace.h"
#include "xprec.h"

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


/* --- the fast evaluation (sp_thr_prepare set c->fast) ----------------------
 * With lr non-decreasing (z log-concave) the plus terms (L_i > eps) are the
 * cells i >= a and the minus terms (L_i < -eps) the cells i < a', a and a'
 * found by bisection; with consecutive thresholds t_j = t_0 - j, threshold j
 * holds the terms i >= c_j = t_0 - j - first, so
 *   passive: sum_j P(b_j) sum_{i>=c_j} term(i) = sum_i term(i) W(i),
 *            W(i) = sum_{j: c_j <= i} P(b_j) = e^lws[c_0 - i] (one weight
 *            per term, no per-threshold sweep);
 *   active plus: the max over j of sums of non-negative terms is the sum of
 *            the smallest threshold (j = nt - 1).
 * Each sum runs from its positive end outward (plus: upward from a; minus:
 * downward from a') and stops, checked every THR_CHECK cells, once the rest
 * is at most SP_TAIL_TOL of the sum so far; the rest's bound is then ADDED:
 * plus terms of cells > i are <= z(i..len-1) (sum e^lsz[i]) times W <= W(len);
 * minus terms of cells < i are <= z(0..i-1) (e^lcz[i-1]) times W(i-1) (W is
 * non-decreasing).  The result is above the full sweep's by at most
 * SP_TAIL_TOL = 2^-60 relative, plus the rounding of a different order.
 * The bottom cells (minus only, eps >= 0): bottom(j) > 0 iff c_j - 1 = 0
 * (F(t-2) = 0) or L_b(j) = ln F(t_j-1)/F(t_j-2) > eps, and L_b is
 * non-decreasing in j (F log-concave; sp_thr_prepare checks the refined
 * values), so they are the thresholds from j* on (bisection); bottom(j) <=
 * F(t_j - 1), so the rest after j is <= F(t_{j+1} - 1) sum_{j'>j} P(b_j').
 * Active minus: for every threshold t <= m + 1 (m = first + a' - 1, the last
 * positive cell) whose bottom cell is positive (or t <= first + 1: nothing
 * below it but z(first)), the released terms and the bottom cell telescope to
 *   sum_{k=t}^{m} (z(k) - e^eps z(k-1)) + F(t-1) - e^eps F(t-2) = F(m) - e^eps F(m-1),
 * the curve of the count without threshold: the largest value any threshold
 * can give (thresholding is post-processing).  Otherwise (every threshold
 * t <= m + 1 has bottom(t) = 0, or none is <= m + 1) the value decreases in
 * t: for t > m + 1 the released sum is 0 and (F(t-1) - e^eps F(t-2))_+
 * decreases (its increments z(t) - e^eps z(t-1) are < 0 beyond m), for
 * t <= m + 1 with bottom(t) = 0 the released sum loses terms as t grows.
 * So the max is at j_p = max(j*, first j with c_j <= a') or at the smallest
 * threshold j = nt - 1: those (and j_p's neighbours, against the rounding
 * of the bisections) are evaluated, each as one downward sum. */
#define THR_CHECK 8

/* First i in [lo, hi) with a[i] > x, or hi (a non-decreasing). */
static long thr_first_above(const long double *a, long lo, long hi, long double x)
{
    while (lo < hi) {
        const long mid = lo + (hi - lo) / 2;
        if (a[mid] > x) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return lo;
}

/* Threshold j's first released cell c_j = t_j - first. */
static inline long cell_of(const sp_thr_curve *c, long j)
{
    return c->t[0] - j - c->first;
}

/* ln sum_{j' >= j} P(b_j') (passive). */
static inline long double weight_from(const sp_thr_curve *c, long j)
{
    return j >= c->nt ? -INFINITY : c->lws[j < 0 ? 0 : j];
}

/* ln W(i): the weight of the thresholds whose sums hold term i (0 active). */
static inline long double weight_at(const sp_thr_curve *c, long i)
{
    return c->lw == NULL ? 0.0L : weight_from(c, cell_of(c, 0) - i);
}

/* Term i's parts: *log_mass = ln z(k-1) (plus) or ln z(k) (minus) and *x =
 * eps - L (plus) or eps + L (minus), L = lr + lr_lo, the term being
 * e^log_mass (1 - e^x) where x < 0; returns 0 where the term is 0. */
static inline int term_parts(const sp_thr_curve *c, long i, double eps, sp_direction d,
                             long double *log_mass, long double *x)
{
    const long double lr = c->lr[i];
    const long double lo = c->lr_lo == NULL ? 0.0L : c->lr_lo[i];
    if (d == SP_PLUS) {
        if (i == 0) {
            return 0;
        }
        *log_mass = c->lz[i - 1];
        *x = lr == INFINITY ? -INFINITY : ((long double)eps - lr) - lo;
    } else {
        if (i == c->len) {
            return 0;
        }
        *log_mass = c->lz[i];
        *x = lr == -INFINITY ? -INFINITY : ((long double)eps + lr) + lo;
    }
    return *x < 0.0L;
}

/* acc += e^log_mass (1 - e^x), x < 0: one exp and one expm1 of doubles (x
 * is exact to ~1e-19 relative in long double; its double keeps 1e-16 of
 * the factor); x closer to 0 than 2^-1000 (where the double would lose
 * it) through sp_log1mexpl. */
static inline void add_term(sp_logsum *a, long double log_mass, long double x)
{
    if (log_mass == -INFINITY) {
        return;
    }
    if (x > -0x1p-1000L) {
        sp_logsum_add(a, log_mass + sp_log1mexpl(x));
        return;
    }
    const double f = -expm1((double)x);
    if (a->sum == 0.0L) {
        a->ref = log_mass;
        a->sum = f;
        return;
    }
    if (log_mass > a->ref + 600.0L) {
        a->sum *= exp((double)(a->ref - log_mass));
        a->ref = log_mass;
    }
    a->sum += exp((double)(log_mass - a->ref)) * f;
}

/* ln sum_{i >= from} term_plus(i) W(i), from >= 0. */
static long double fast_plus(const sp_thr_curve *c, double eps, long from)
{
    const long double log_tol = logl(SP_TAIL_TOL);
    const long double wmax = weight_at(c, c->len);
    sp_logsum acc = {0.0L, 0.0L};
    long start = thr_first_above(c->lr, 0, c->len + 1, eps) - 2;
    start = start < from ? from : start;
    start = start < 1 ? 1 : start;                  /* term 0 of plus is 0 */
    for (long i = start; i <= c->len; i++) {
        long double m, x;
        if (term_parts(c, i, eps, SP_PLUS, &m, &x)) {
            add_term(&acc, m + weight_at(c, i), x);
        }
        if (i < c->len && acc.sum > 0.0L && (i - start) % THR_CHECK == 0) {
            const long double rest = c->lsz[i] + wmax;
            if (rest <= sp_logsum_log(&acc) + log_tol) {
                sp_logsum_add(&acc, rest);
                break;
            }
        }
    }
    return sp_logsum_log(&acc);
}

/* out[k] = ln sum_{from[k] <= i < len} term_minus(i) W(i) for the cells
 * from[0] >= from[1] >= ... >= from[nf-1] >= 0: one downward sum, read at
 * each from[k] (after the stop: the sum so far plus the rest's bound). */
static void fast_minus_at(const sp_thr_curve *c, double eps, const long *from, int nf,
                          long double *out)
{
    const long double log_tol = logl(SP_TAIL_TOL);
    sp_logsum acc = {0.0L, 0.0L};
    long start = thr_first_above(c->lr, 0, c->len + 1, -(long double)eps) + 1;
    start = start > c->len - 1 ? c->len - 1 : start;
    int k = 0;
    for (; k < nf && from[k] > start; k++) {
        out[k] = -INFINITY;                         /* no positive term from there on */
    }
    const long last = from[nf - 1];
    for (long i = start; i >= last && k < nf; i--) {
        long double m, x;
        if (term_parts(c, i, eps, SP_MINUS, &m, &x)) {
            add_term(&acc, m + weight_at(c, i), x);
        }
        for (; k < nf && from[k] == i; k++) {
            out[k] = sp_logsum_log(&acc);
        }
        if (i > last && acc.sum > 0.0L && (start - i) % THR_CHECK == 0) {
            const long double rest = c->lcz[i - 1] + weight_at(c, i - 1);
            if (rest <= sp_logsum_log(&acc) + log_tol) {
                sp_logsum_add(&acc, rest);
                break;
            }
        }
    }
    for (; k < nf; k++) {
        out[k] = sp_logsum_log(&acc);
    }
}

/* ln sum_{from <= i < len} term_minus(i) W(i), from >= 0. */
static long double fast_minus(const sp_thr_curve *c, double eps, long from)
{
    long double out;
    fast_minus_at(c, eps, &from, 1, &out);
    return out;
}

/* The thresholds [*jlo, *jhi] whose bottom cell reaches the window
 * (0 <= c_j - 1 < len); empty if *jlo > *jhi. */
static void bottom_range(const sp_thr_curve *c, long *jlo, long *jhi)
{
    const long c0 = cell_of(c, 0);
    *jlo = c0 - c->len < 0 ? 0 : c0 - c->len;
    *jhi = c0 - 1 > c->nt - 1 ? c->nt - 1 : c0 - 1;
}

/* j* in [jlo, jhi + 1]: the first threshold with c_j - 1 = 0 or L_b > eps. */
static long first_bottom(const sp_thr_curve *c, double eps, long jlo, long jhi)
{
    long lo = jlo, hi = jhi + 1;
    while (lo < hi) {
        const long mid = lo + (hi - lo) / 2;
        if (cell_of(c, mid) - 1 == 0 || c->lb_hi[mid] > (long double)eps) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return lo;
}

/* ln sum_j P(b_j) bottom(j) (passive, minus, eps >= 0), from j_s, the
 * threshold whose cell t - 1 is Z's mode (or j* if later), outward: upward
 * (smaller t; the rest after j <= F(t_{j+1} - 1) sum_{j'>j} P(b_j')) and
 * downward to j* (larger t; bottom(j) <= F(t-1) - F(t-2) = z(t-1) for eps
 * >= 0, so the rest below j is <= sum_{k >= t_j} z(k) = e^lsz[c_j] times
 * the total weight). */
static long double fast_bottom_passive(const sp_thr_curve *c, double eps)
{
    const long double log_tol = logl(SP_TAIL_TOL);
    sp_logsum acc = {0.0L, 0.0L};
    long jlo, jhi;
    bottom_range(c, &jlo, &jhi);
    long low = first_bottom(c, eps, jlo, jhi) - 2;
    low = low < jlo ? jlo : low;
    const long mode = thr_first_above(c->lr, 0, c->len + 1, 0.0L) - 1;
    long js = cell_of(c, 0) - 1 - mode;
    js = js < low ? low : (js > jhi ? jhi : js);
    for (long j = js; j <= jhi; j++) {
        const long double v = bottom_minus(c, j, eps);
        if (v > -INFINITY) {
            sp_logsum_add(&acc, v + c->lw[j]);
        }
        if (j < jhi && acc.sum > 0.0L && (j - js) % THR_CHECK == 0) {
            const long double rest = c->lcz[cell_of(c, j + 1) - 1] + weight_from(c, j + 1);
            if (rest <= sp_logsum_log(&acc) + log_tol) {
                sp_logsum_add(&acc, rest);
                break;
            }
        }
    }
    for (long j = js - 1; j >= low; j--) {
        const long double v = bottom_minus(c, j, eps);
        if (v > -INFINITY) {
            sp_logsum_add(&acc, v + c->lw[j]);
        }
        if (j > low && acc.sum > 0.0L && (js - j) % THR_CHECK == 0) {
            /* right of the mode z(k) <= z(t_j - 1) for k >= t_j - 1: also
             * <= z(c_j) sum_{j'<j} P(b_j') */
            const long cj = cell_of(c, j);
            long double rest = -INFINITY;
            if (cj <= c->len - 1) {
                rest = c->lsz[cj] + weight_from(c, 0);
                if (cj >= mode) {
                    rest = fminl(rest, c->lz[cj] + c->lwp[j - 1]);
                }
            }
            if (rest <= sp_logsum_log(&acc) + log_tol) {
                sp_logsum_add(&acc, rest);
                break;
            }
        }
    }
    return sp_logsum_log(&acc);
}

static long double fast_active_minus(const sp_thr_curve *c, double eps)
{
    long jlo, jhi;
    bottom_range(c, &jlo, &jhi);
    const long jstar = first_bottom(c, eps, jlo, jhi);
    /* a': the first cell whose minus term is 0; c_j <= a' from j >= c_0 - a' */
    const long a = thr_first_above(c->lr, 0, c->len + 1, -(long double)eps);
    const long jm = cell_of(c, 0) - a;
    const long jp = jstar > jm ? jstar : jm;
    /* the candidates in increasing j (decreasing first cell) */
    long cand[4], from[4];
    int nc = 0;
    for (long j = jp - 1; j <= jp + 1; j++) {
        if (j >= 0 && j < c->nt - 1) {
            cand[nc++] = j;
        }
    }
    cand[nc++] = c->nt - 1;
    int nr = 0;                                     /* those with a released cell */
    for (int k = 0; k < nc; k++) {
        const long cj = cell_of(c, cand[k]);
        if (cj <= c->len - 1) {
            from[nr++] = cj < 0 ? 0 : cj;
        }
    }
    long double released[4];
    if (nr > 0) {
        fast_minus_at(c, eps, from, nr, released);
    }
    long double best = -INFINITY;
    for (int k = 0; k < nc; k++) {
        const long double r = k >= nc - nr ? released[k - (nc - nr)] : -INFINITY;
        best = fmaxl(best, sp_logaddexpl(r, bottom_minus(c, cand[k], eps)));
    }
    return best;
}

static double thr_fast(const sp_thr_curve *c, double eps, sp_direction d)
{
    const long low = cell_of(c, c->nt - 1);
    const long from = low < 0 ? 0 : low;
    long double v;
    if (d == SP_PLUS) {
        v = from <= c->len ? fast_plus(c, eps, from) : -INFINITY;
    } else if (c->lw == NULL) {
        v = fast_active_minus(c, eps);
    } else {
        v = from <= c->len - 1 ? fast_minus(c, eps, from) : -INFINITY;
        v = sp_logaddexpl(v, fast_bottom_passive(c, eps));
    }
    return (double)sp_logaddexpl(v, (long double)c->log_rest);
}

void sp_thr_prepare(sp_thr_curve *c, long double *lsz, long double *lws, long double *lwp)
{
    c->fast = 0;
    c->lsz = lsz;
    c->lws = c->lw != NULL ? lws : NULL;
    c->lwp = c->lw != NULL ? lwp : NULL;
    sp_log_cumsum(c->lz, c->len, 1, lsz);
    if (c->lw != NULL) {
        sp_log_cumsum(c->lw, c->nt, 1, lws);
        sp_log_cumsum(c->lw, c->nt, 0, lwp);
    }
    if (c->lb_hi == NULL || c->lb_lo == NULL || c->len < 2) {
        return;
    }
    for (long j = 0; j < c->nt; j++) {
        if (c->t[j] != c->t[0] - j) {
            return;
        }
    }
    for (long i = 0; i < c->len; i++) {
        if (!(c->lr[i + 1] >= c->lr[i])) {
            return;
        }
    }
    long jlo, jhi;
    bottom_range(c, &jlo, &jhi);
    for (long j = jlo; j < jhi; j++) {
        /* L_b where F(t-2) > 0 (c_j - 1 >= 1): non-decreasing in j */
        if (cell_of(c, j + 1) - 1 >= 1 && !(c->lb_hi[j + 1] >= c->lb_hi[j])) {
            return;
        }
    }
    c->fast = 1;
}

static double thr_direction(const sp_thr_curve *c, double eps, sp_direction d)
{
    double v;
    if (eps >= 0.0) {
        v = c->fast ? thr_fast(c, eps, d) : thr_nonneg(c, eps, d);
    } else {
        /* H_eps(P||Q) = 1 - e^eps + e^eps H_{-eps}(Q||P) for every b: the max
         * and the average commute with it (weights summing to <= 1) */
        const sp_direction r = sp_reverse(d);
        v = sp_log_hockey_negative_eps(eps, c->fast ? thr_fast(c, -eps, r) : thr_nonneg(c, -eps, r));
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

/* --- construction-time refinements (xprec.h) ---------------------------- */

/* Z's law on the window, atom i = 0..len-1 (k = first + i), for the sweep
 * below: either Bin(N, pi) through its exact ratios, or a pmf given as
 * scaled values. */
typedef struct {
    const sp_xq *z;           /* the pmf on the window, or NULL: binomial */
    long double n1;           /* N + 1 */
    double pi;
    long first;
    sp_qq_logtab tab;
} thr_source;

/* a and b: scaled values proportional to z(k-1) and z(k), k = first + i
 * (i >= 1), for the cdf ratio of thr_refine */
static void thr_scaled(const thr_source *s, long i, sp_xq *a, sp_xq *b)
{
    if (s->z != NULL) {
        *a = s->z[i - 1];
        *b = s->z[i];
        return;
    }
    /* binomial: z(k-1)/z(k) = k (1-pi) / ((N-k+1) pi) */
    const long double k = (long double)(s->first + i);
    *a = sp_xq_norm(sp_qq_mul_ld(sp_qq_two_sum(1.0L, -s->pi), k), 0);
    *b = sp_xq_norm(sp_qq_two_prod(s->n1 - k, s->pi), 0);
}

/* ln r for r = z(k-1)/z(k) (i >= 1) */
static sp_qq thr_ratio(const thr_source *s, long i)
{
    if (s->z != NULL) {
        return sp_xq_log(sp_xq_div(s->z[i - 1], s->z[i]), &s->tab);
    }
    /* z(k-1)/z(k) = 1 + x, x = num / den with num = k - (N+1) pi,
     * den = (N-k+1) pi: every product and difference exact, so
     * ln(1 + x) = 2 atanh(num / (num + 2 den)) keeps its relative accuracy
     * where x is tiny */
    const long double k = (long double)(s->first + i);
    const sp_qq num = sp_qq_add(sp_qq_from(k), sp_qq_neg(sp_qq_two_prod(s->n1, s->pi)));
    const sp_qq den = sp_qq_two_prod(s->n1 - k, s->pi);
    const sp_qq sum = sp_qq_add(num, sp_qq_add(den, den));
    if (fabsl(num.hi) <= 0.35L * fabsl(sum.hi)) {
        return sp_qq_atanh2(sp_qq_div(num, sum), &s->tab);
    }
    return sp_xq_log1p(sp_xq_div(sp_xq_norm(num, 0), sp_xq_norm(den, 0)), &s->tab);
}

/* 2 atanh(1/d) = ln((d + 1)/(d - 1)) for an integer d >= 2^24 + 1, to
 * ~1e-41 absolute: 2 (u + u^3/3 + u^5/5) with u = 1/d carried as hi + lo,
 * hi within a few ulps of 1/d (inv: 1/d times a long double within 4 ulps
 * of 1, see thr_log_ratio_step), lo = r hi from the exact remainder
 * r = 1 - hi d (Dekker's product; |r| <= 2^-61, so lo is good to
 * 2^-125 of u); u^3/3 + u^5/5 <= 2^-72 in one long double (rounding
 * 2^-135); the next term, 2 u^7/7, is below 2^-169. */
static sp_qq thr_atanh2_inv(long double d, long double hi)
{
    const sp_qq p = sp_qq_two_prod(hi, d);
    const long double lo = ((1.0L - p.hi) - p.lo) * hi;
    const long double u2 = hi * hi;
    const sp_qq u = sp_qq_fast_two_sum(hi, lo);
    const sp_qq r = sp_qq_add(u, sp_qq_from(hi * u2 * (1.0L / 3.0L + u2 * 0.2L)));
    return sp_qq_add(r, r);
}

/* L(k) - L(k-1) = 2 atanh(1/d1) + 2 atanh(1/d2), d1 = 2k - 1,
 * d2 = 2(N - k) + 3: one division for both (1/(d1 d2), the product rounded
 * once: each reciprocal within 4 ulps, which the remainders correct). */
static sp_qq thr_log_ratio_step(long double d1, long double d2)
{
    const long double inv = 1.0L / (d1 * d2);
    return sp_qq_add(thr_atanh2_inv(d1, d2 * inv), thr_atanh2_inv(d2, d1 * inv));
}

/* Binomial windows far from 0 and N: ln z(k-1)/z(k) by the recurrence
 *   L(k) = L(k-1) + ln(k / (k-1)) + ln((N-k+2) / (N-k+1))
 *        = L(k-1) + 2 atanh(1/(2k-1)) + 2 atanh(1/(2(N-k)+3)),
 * a few doubled long double operations per atom instead of a log (its
 * atanh series: ~0.5 us), from an exact value every THR_ANCHOR atoms.  Each
 * step adds two sums' roundings, 2^-128 |L| each (|L| <= ~1 on such
 * windows): <= ~1e-36 over THR_ANCHOR steps, below half an ulp of the low
 * parts lr_lo (~1e-17, ulp ~1e-36) that the sweep stores.  Applies where
 * both 2k - 1 and 2(N-k) + 3 are >= 2^24 + 1. */
#define THR_ANCHOR 64
#define THR_RECUR_MIN 16777217.0L

static int thr_recurs(const thr_source *s, long i)
{
    const long double k = (long double)(s->first + i);
    return s->z == NULL && i > 1 && (i - 1) % THR_ANCHOR != 0
           && 2.0L * k - 1.0L >= THR_RECUR_MIN && 2.0L * (s->n1 - k) + 1.0L >= THR_RECUR_MIN;
}

/* One sweep of the window: lr_lo[i] = ln z(k-1)/z(k) - lr[i] (i = 1..len-1;
 * 0 at the edges) and, per threshold t[j], lb_hi[j] + lb_lo[j] =
 * ln F(t-1)/F(t-2) = log1p(1/G) with G(i) = F(k-1)/z(k) = r(i) (1 + G(i-1)),
 * carried as a fraction U/V (U(i) = a(i) (U(i-1) + V(i-1)), V(i) = b(i)
 * V(i-1): no division per atom; F summed from the window's start; +inf, 0
 * where F(t-2) = 0 or z(t-1) is outside): only ratios are ever formed.
 * U, V stop at the largest threshold (nothing reads them beyond). */
static void thr_refine(thr_source *s, long len, const long double *lr, const long *t,
                       long nt, long double *lr_lo, long double *lb_hi, long double *lb_lo)
{
    sp_qq_logtab_init(&s->tab);
    for (long j = 0; j < nt; j++) {
        lb_hi[j] = INFINITY;
        lb_lo[j] = 0.0L;
    }
    lr_lo[0] = lr_lo[len] = 0.0L;
    /* thresholds in increasing order of t: j from nt - 1 down (t non-increasing) */
    long j = nt - 1;
    while (j >= 0 && t[j] - 1 - s->first < 1) {
        j--;
    }
    sp_xq u = sp_xq_from(0.0L), v = sp_xq_from(1.0L);
    sp_qq log_ratio = sp_qq_from(0.0L);
    for (long i = 1; i < len; i++) {
        if (thr_recurs(s, i)) {
            const long double k = (long double)(s->first + i);
            log_ratio = sp_qq_add(log_ratio, thr_log_ratio_step(2.0L * k - 1.0L,
                                                                2.0L * (s->n1 - k) + 1.0L));
        } else {
            log_ratio = thr_ratio(s, i);
        }
        lr_lo[i] = isfinite(lr[i]) ? sp_qq_minus_ld(log_ratio, lr[i]) : 0.0L;
        if (j < 0) {
            continue;
        }
        sp_xq a, b;
        thr_scaled(s, i, &a, &b);
        u = sp_xq_mul(a, sp_xq_add(u, v));
        v = sp_xq_mul(b, v);
        for (; j >= 0 && t[j] - 1 - s->first == i; j--) {
            const sp_qq w = sp_xq_log1p(sp_xq_div(v, u), &s->tab);
            lb_hi[j] = w.hi;
            lb_lo[j] = w.lo;
        }
    }
}

void sp_thr_binomial_log_ratios(long double N, double pi, long first, long len, long double *lr)
{
    const long double l1p = log1pl(-(long double)pi), lpi = logl((long double)pi);
    const long double n = N;
    lr[0] = -INFINITY;
    lr[len] = INFINITY;
    for (long i = 1; i < len; i++) {
        const long double k = (long double)(first + i);
        lr[i] = ((logl(k) + l1p) - logl((n - k) + 1.0L)) - lpi;
    }
}

void sp_thr_refine_binomial(double N, double pi, long first, long len, const long double *lr,
                            const long *t, long nt, long double *lr_lo, long double *lb_hi,
                            long double *lb_lo)
{
    thr_source s;
    s.z = NULL;
    s.n1 = (long double)N + 1.0L;
    s.pi = pi;
    s.first = first;
    thr_refine(&s, len, lr, t, nt, lr_lo, lb_hi, lb_lo);
}

int sp_thr_refine_records(const double *p, long n, long lo, long first, long len,
                          const long double *lr, const long *t, long nt, long double *lr_lo,
                          long double *lb_hi, long double *lb_lo)
{
    /* the law of the count of the first i records on atoms [base, top],
     * base = max(0, lo - (n - i)) (lower atoms cannot reach the window any
     * more), top = min(i, lo + len - 1), updated in place from the top down */
    const long last = lo + len - 1;
    if (len < 1 || lo < 0 || last > n) {
        return -2;
    }
    sp_xq *w = malloc((size_t)(last + 1) * sizeof *w);
    if (w == NULL) {
        return -1;
    }
    w[0] = sp_xq_from(1.0L);
    for (long a = 1; a <= last; a++) {
        w[a] = sp_xq_from(0.0L);
    }
    for (long i = 1; i <= n; i++) {
        const long base = lo - (n - i) > 0 ? lo - (n - i) : 0;
        const long top = i < last ? i : last;
        const sp_qq keep = sp_qq_two_sum(1.0L, -(long double)p[i - 1]);
        const sp_qq move = sp_qq_from((long double)p[i - 1]);
        for (long a = top; a >= base; a--) {
            sp_xq v = sp_xq_mul_qq(w[a], keep);
            if (a > 0) {
                v = sp_xq_add(v, sp_xq_mul_qq(w[a - 1], move));
            }
            w[a] = v;
        }
    }
    thr_source s;
    s.z = w + lo;
    s.n1 = 0.0L;
    s.pi = 0.0;
    s.first = first;
    thr_refine(&s, len, lr, t, nt, lr_lo, lb_hi, lb_lo);
    free(w);
    return 0;
}
