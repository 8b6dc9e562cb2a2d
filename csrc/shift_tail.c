#include <math.h>
#include <stddef.h>
#include "shift_tail.h"
#include "noise.h"
#include "logsum.h"

double sp_log_hockey_negative_eps(double eps, double log_reverse_at_minus_eps)
{
    return fmin(0.0, sp_logaddexp(log(-expm1(eps)), eps + log_reverse_at_minus_eps));
}

/* Numerator of r(k) - e^eps for the shift S+1 vs S:
 *   r(k) = b(k-1)/b(k) = k q / ((n-k) p),  n = N + 1,
 *   k q - e^eps (n-k) p = (k q - (n-k) p) - (e^eps - 1)(n - k) p,
 * and k q - (n-k) p is k - n p, or equally n q - (n - k): the form with the
 * smaller of p, q is used, because that one is the exactly given pi (the
 * other may be 1 - pi rounded) and its rounding error ~2^-64 min(np, nq) is
 * the smaller.  Near the threshold both parts are ~ eps*n*p and cancel;
 * extended precision and a single-rounding fma keep the difference exact to
 * ~1e-19 relative to them, which is what makes delta accurate to 1e-12 at
 * n = 1e9. */
static long double shift_numerator(double k, double n, const sp_binom *b, long double em1)
{
    const long double p = b->p_ext, q = b->q_ext;
    long double base = p <= q ? fmal(-(long double)n, p, (long double)k)
                              : fmal((long double)n, q, (long double)k - (long double)n);
    return base - em1 * ((long double)(n - k) * p);
}

double sp_binom_shift_log_hockey(const sp_binom *b, double eps)
{
    const double N = b->N, n = N + 1.0;
    if (b->p == 0.0) {
        return 0.0;             /* S = 0 surely: the count reveals the target */
    }
    /* The largest finite ratio is r(N) = N q / p; from eps = ln r(N) on only
     * the all-positive outcome k = n (out of Q's reach) counts: delta = p^N.
     * This also covers q = 0 (S = N surely) and q so small (mirrored law of a
     * tiny pi) that no other atom can pass the threshold.  The margin covers
     * the rounding of ln r(N); just below it the exact numerator decides. */
    if (b->q_ext == 0.0L || N == 0.0) {
        return N * b->log_p;
    }
    const double log_r_max = log(N) + b->log_q - b->log_p;
    if (eps > log_r_max + 0x1p-40 * (1.0 + fabs(log_r_max))) {
        return N * b->log_p;
    }
    const long double p = b->p_ext, q = b->q_ext;
    const long double em1 = expm1l((long double)eps);

    /* First k in [1, n] with r(k) > e^eps; the closed form is within one step. */
    double k0 = floor((double)((1.0L + em1) * p * n / (q + (1.0L + em1) * p))) + 1.0;
    if (k0 < 1.0) {
        k0 = 1.0;
    }
    if (k0 > n) {
        k0 = n;
    }
    for (int guard = 0; guard < 4 && k0 < n && shift_numerator(k0, n, b, em1) <= 0.0L; guard++) {
        k0 += 1.0;
    }
    for (int guard = 0; guard < 4 && k0 > 1.0 && shift_numerator(k0 - 1.0, n, b, em1) > 0.0L; guard++) {
        k0 -= 1.0;
    }
    if (k0 >= n) {
        return N * b->log_p;    /* t(n) = b(N) - e^eps * 0 */
    }

    /* Sum t(k) = b(k-1) num(k) / (k q) over i = k-1 = k0-1 .. N, with b(i)
     * carried as beta * b(k0-1) and re-anchored on Loader's form at the start
     * of every block of 256 steps so the product of ratios never drifts.
     * num(k) grows linearly, num(k0 + j) = num(k0) + j (q + e^eps p): only
     * num(k0) needs extended precision, the increments are positive and add
     * without cancellation.  Each block is summed in double and the blocks in
     * long double: at n ~ 1e12 the sum has ~1e6 terms, and one double
     * accumulator picks up a rounding bias of ~4e-12 relative over them. */
    const double i0 = k0 - 1.0;
    const double log_b0 = sp_log_binom_pmf(b, i0);
    const double ratio_pq = (double)(p / q);
    const double num0 = (double)shift_numerator(k0, n, b, em1);
    const double slope = (double)(q + (1.0L + em1) * p);
    const double qd = (double)q;
    long double total = 0.0L;
    double beta = 1.0, i = i0;
    int done = 0;
    while (!done) {                 /* i advances by >= 16 per pass, up to N */
        if (i > i0) {
            beta = exp(sp_log_binom_pmf(b, i) - log_b0);
        }
        double block = 0.0;
        for (int chunk = 0; chunk < 16; chunk++) {
            const double stop = fmin(N, i + 15.0);
            for (; i <= stop; i += 1.0) {
                double num = i == i0 ? num0 : num0 + (i - i0) * slope;   /* slope may be inf at i0 */
                block += beta * (num / ((i + 1.0) * qd));
                beta *= (N - i) / (i + 1.0) * ratio_pq;       /* beta ~ b(i+1) */
            }
            if (stop >= N) {
                done = 1;
                break;
            }
            /* Every term from i on is t(i+1) <= b(i), and the ratios
             * rho = b(i+1)/b(i) decrease along the tail: the rest is at most
             * b(i) / (1 - rho). */
            double rho = (N - i) / (i + 1.0) * ratio_pq;
            if (rho < 1.0) {
                double bound = beta / (1.0 - rho);
                if (bound <= SP_TAIL_TOL * (double)(total + block)) {
                    block += bound;     /* conservative: never under-report */
                    done = 1;
                    break;
                }
            }
        }
        total += block;
    }
    double sum = (double)total;
    /* delta <= 1: clamping the rounding of a sum that is 1 is still conservative */
    return sum > 0.0 ? fmin(0.0, log_b0 + log(sum)) : -INFINITY;
}

void sp_binom_curve_init(sp_binom_curve *c, double N, double pi)
{
    sp_binom_init(&c->plus, N, pi, 0);
    sp_binom_init(&c->minus, N, pi, 1);
}

static double binom_direction(const sp_binom_curve *c, double eps, int direction)
{
    const sp_binom *fwd = direction == SP_PLUS ? &c->plus : &c->minus;
    const sp_binom *rev = direction == SP_PLUS ? &c->minus : &c->plus;
    if (eps >= 0.0) {
        return sp_binom_shift_log_hockey(fwd, eps);
    }
    return sp_log_hockey_negative_eps(eps, sp_binom_shift_log_hockey(rev, -eps));
}

double sp_binom_curve_log_delta(double eps, int direction, const void *ctx)
{
    const sp_binom_curve *c = ctx;
    if (direction != SP_MAX) {
        return binom_direction(c, eps, direction);
    }
    return fmax(binom_direction(c, eps, SP_PLUS), binom_direction(c, eps, SP_MINUS));
}

void sp_log_cumsum(const long double *la, long n, int reverse, long double *out)
{
    sp_logsum acc = {0.0L, 0.0L};
    for (long i = 0; i < n; i++) {
        long j = reverse ? n - 1 - i : i;
        sp_logsum_add(&acc, la[j]);
        out[j] = acc.sum > 0.0L ? acc.ref + sp_fast_logl(acc.sum) : -INFINITY;
    }
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

/* ln of the part of cell j that counts towards H_eps(A||B): for a discrete
 * cell A(j) (1 - e^(eps - lr)); for a Laplace cell the exact integral of
 * (f_A - e^eps f_B)_+ over the unit interval (sp_laplace_cell_log_positive).
 * lr is the unevaluated sum lr[j] + lr_lo[j]: eps - lr[j] is exact in long
 * double where it is small (Sterbenz), so eps - lr keeps its relative
 * accuracy down to the float just below the zero point. */
static long double cell_term(const sp_pair *s, long j, long double eps, int plus)
{
    if (s->ll_p != NULL && j > 0 && j < s->len - 1) {
        if (eps == INFINITY) {
            return -INFINITY;       /* both densities are positive everywhere */
        }
        long double l_lo = s->ll_lo == NULL ? 0.0L : s->ll_lo[j];
        long double r_lo = s->rr_lo == NULL ? 0.0L : s->rr_lo[j];
        return plus ? sp_laplace_cell_log_positive(s->ll_p[j], s->lr_p[j], s->ll_q[j], s->lr_q[j],
                                                   eps, l_lo, r_lo, s->scale)
                    : sp_laplace_cell_log_positive(s->ll_q[j], s->lr_q[j], s->ll_p[j], s->lr_p[j],
                                                   eps, -l_lo, -r_lo, s->scale);
    }
    long double lr = plus ? s->lr[j] : -s->lr[j];
    if (lr == INFINITY) {
        return eps == INFINITY ? -INFINITY : (plus ? s->lp[j] : s->lq[j]);
    }
    long double lo = s->lr_lo == NULL ? 0.0L : (plus ? s->lr_lo[j] : -s->lr_lo[j]);
    long double d = (eps - lr) - lo;
    if (!(d < 0.0L)) {
        return -INFINITY;
    }
    /* d is accurate to ~1e-19 relative; its exp needs no more than double */
    return (plus ? s->lp[j] : s->lq[j]) + log(-expm1((double)d));
}

/* a >= b for unevaluated sums a_hi + a_lo, b_hi + b_lo (|lo| << |hi|). */
static int dd_geq(long double a_hi, long double a_lo, long double b_hi, long double b_lo)
{
    if (isinf(a_hi) || isinf(b_hi)) {
        return a_hi >= b_hi;
    }
    return (a_hi - b_hi) + (a_lo - b_lo) >= 0.0L;
}

void sp_pair_init_zero(sp_pair *s)
{
    for (int dir = 0; dir < 2; dir++) {
        long double hi = -INFINITY, lo = 0.0L;
        const int use_cells = s->ll_p == NULL || s->monotone;
        for (long j = 0; use_cells && j < s->len; j++) {
            const long double *la = dir == SP_PLUS ? s->lp : s->lq;
            if (la[j] == -INFINITY) {
                continue;
            }
            long double h = dir == SP_PLUS ? s->lr[j] : -s->lr[j];
            long double l = s->lr_lo == NULL || isinf(h) ? 0.0L
                            : (dir == SP_PLUS ? s->lr_lo[j] : -s->lr_lo[j]);
            if (!isnan(h) && !dd_geq(hi, lo, h, l)) {
                hi = h;
                lo = l;
            }
        }
        if (!use_cells || dd_geq(hi, lo, s->max_log_ratio, 0.0L)) {
            hi = s->max_log_ratio;
            lo = 0.0L;
        }
        s->zero_hi[dir] = hi;
        s->zero_lo[dir] = lo;
    }
}

double sp_pair_zero_point(const sp_pair *s, int direction)
{
    const long double hi = s->zero_hi[direction], lo = s->zero_lo[direction];
    if (isinf(hi)) {
        return (double)hi;
    }
    double x = (double)(hi + lo);
    for (int guard = 0; guard < 4 && !dd_geq(x, 0.0L, hi, lo); guard++) {
        x = nextafter(x, INFINITY);
    }
    for (int guard = 0; guard < 4 && dd_geq(nextafter(x, -INFINITY), 0.0L, hi, lo); guard++) {
        x = nextafter(x, -INFINITY);
    }
    return x;
}

static double pair_plus(const sp_pair *s, double eps)
{
    const long double log_tol = logl(SP_TAIL_TOL);
    sp_logsum acc = {0.0L, 0.0L};
    /* With a monotone ratio the positive part starts at the first cell whose
     * ratio exceeds e^eps, or (Laplace cells) inside the cell before it. */
    long start = s->monotone ? first_above(s->lr, 0, s->len, eps) - 1 : 0;
    for (long j = start < 0 ? 0 : start; j < s->len; j++) {
        sp_logsum_add(&acc, cell_term(s, j, eps, 1));
        if (s->monotone && j > start + 1 && j + 1 < s->len && acc.sum > 0.0L
            && (j - start) % 8 == 0) {
            long double log_rest = s->lsp[j + 1];     /* terms <= P(cell), cells > j */
            if (log_rest <= sp_logsum_log(&acc) + log_tol) {
                sp_logsum_add(&acc, log_rest);
                break;
            }
        }
    }
    return (double)sp_logsum_log(&acc);
}

static double pair_minus(const sp_pair *s, double eps)
{
    const long double log_tol = logl(SP_TAIL_TOL);
    sp_logsum acc = {0.0L, 0.0L};
    long start = s->monotone ? first_above(s->lr, 0, s->len, -(long double)eps) : s->len - 1;
    if (start > s->len - 1) {
        start = s->len - 1;
    }
    for (long j = start; j >= 0; j--) {
        sp_logsum_add(&acc, cell_term(s, j, eps, 0));
        if (s->monotone && j < start - 1 && j > 0 && acc.sum > 0.0L && (start - j) % 8 == 0) {
            long double log_rest = s->lcq[j - 1];
            if (log_rest <= sp_logsum_log(&acc) + log_tol) {
                sp_logsum_add(&acc, log_rest);
                break;
            }
        }
    }
    return (double)sp_logsum_log(&acc);
}

double sp_pair_log_hockey(const sp_pair *pair, double eps, int direction)
{
    if (dd_geq(eps, 0.0L, pair->zero_hi[direction], pair->zero_lo[direction])) {
        return -INFINITY;
    }
    return direction == SP_PLUS ? pair_plus(pair, eps) : pair_minus(pair, eps);
}

static double pair_direction(const sp_pair *s, double eps, int direction)
{
    if (eps >= 0.0) {
        return sp_pair_log_hockey(s, eps, direction);
    }
    int reverse = direction == SP_PLUS ? SP_MINUS : SP_PLUS;
    return sp_log_hockey_negative_eps(eps, sp_pair_log_hockey(s, -eps, reverse));
}

double sp_pair_curve_log_delta(double eps, int direction, const void *ctx)
{
    const sp_pair *s = ctx;
    if (direction != SP_MAX) {
        return pair_direction(s, eps, direction);
    }
    return fmax(pair_direction(s, eps, SP_PLUS), pair_direction(s, eps, SP_MINUS));
}
