#include <math.h>
#include <stdlib.h>
#include "geometric.h"
#include "logspace.h"


/* The linear sums S_j with f(cell j) = c e^m S_j for atoms w[k] = A(k) e^-m:
 * S = L_x + R_x on the atoms, L_x = sum_{k<=x} w_k alpha^(x-k),
 * R_x = sum_{k>x} w_k alpha^(k-x); the tails (x < 0 and x > n-1) aggregated. */
static long double geometric_tail(long double alpha)
{
    return alpha / (1.0L - alpha);                           /* sum_{d>=1} alpha^d */
}

/* geometric_sums, also setting *l_last = L_{n-2} (n >= 2) and *r_end =
 * R_{-1} (the value before the left tail's factor), for the shift below. */
static void geometric_sums_ends(const long double *w, long n, long double alpha, long double *cell,
                                long double *l_last, long double *r_end)
{
    const long double tail = geometric_tail(alpha);
    long double L = 0.0L;
    for (long x = 0; x < n; x++) {
        if (x == n - 1) {
            *l_last = L;
        }
        L = alpha * L + w[x];
        cell[x + 1] = L;
    }
    cell[n + 1] = L * tail;                                  /* x > n-1: L_{n-1} */
    long double R = 0.0L;                                    /* R_x */
    for (long x = n - 1; x >= 0; x--) {
        cell[x + 1] += R;
        R = alpha * (R + w[x]);                              /* R_{x-1} */
    }
    *r_end = R;
    cell[0] = R / alpha * tail;                              /* x < 0: (A(0) + R_0) */
}

static void geometric_sums(const long double *w, long n, long double alpha, long double *cell)
{
    long double l_last = 0.0L, r_end = 0.0L;
    geometric_sums_ends(w, n, alpha, cell, &l_last, &r_end);
}

/* geometric_sums of w+ = max(w, 0) into pos and of w- = max(-w, 0) into
 * neg in one pass each way: the same operations, interleaved. */
static void geometric_sums_signed(const long double *w, long n, long double alpha,
                                  long double *pos, long double *neg)
{
    const long double tail = geometric_tail(alpha);
    long double Lp = 0.0L, Ln = 0.0L;
    for (long x = 0; x < n; x++) {
        Lp = alpha * Lp + (w[x] > 0.0L ? w[x] : 0.0L);
        Ln = alpha * Ln + (w[x] < 0.0L ? -w[x] : 0.0L);
        pos[x + 1] = Lp;
        neg[x + 1] = Ln;
    }
    pos[n + 1] = Lp * tail;
    neg[n + 1] = Ln * tail;
    long double Rp = 0.0L, Rn = 0.0L;
    for (long x = n - 1; x >= 0; x--) {
        pos[x + 1] += Rp;
        neg[x + 1] += Rn;
        Rp = alpha * (Rp + (w[x] > 0.0L ? w[x] : 0.0L));
        Rn = alpha * (Rn + (w[x] < 0.0L ? -w[x] : 0.0L));
    }
    pos[0] = Rp / alpha * tail;
    neg[0] = Rn / alpha * tail;
}

/* The scaled signed difference law D = P - Q = Q expm1(lr) (= P where
 * Q = 0) in place of the scaled Q in wq (scale M). */
static void difference_law(const long double *lp, const long double *lq, const long double *law_lr,
                           long n, long double M, long double *wq)
{
    for (long k = 0; k < n; k++) {
        if (lq[k] == -INFINITY) {
            wq[k] = M == -INFINITY ? 0.0L : sp_fast_expl(lp[k] - M);
        } else if (isnan(law_lr[k])) {
            wq[k] = 0.0L;
        } else {
            /* double expm1: the bound below is for doubles anyway */
            wq[k] *= (long double)expm1((double)law_lr[k]);
        }
    }
}

/* Cell j's log ratio from the difference law where it is the more accurate
 * (see sp_geometric_difference_ratios); returns its error bound. */
static double difference_ratio(long double cell_lq, long double sq, long double sp,
                               long double sn, long double *lr)
{
    if (cell_lq == -INFINITY || !(sq > 0.0L)) {
        return 4e-16;                   /* a difference of two cell logs */
    }
    const double up = (double)(sp / sq), down = (double)(sn / sq);
    if (up + down < 0.25) {
        *lr = log1p(up - down);
        return 4e-16 * (up + down) + 1e-18;
    }
    return 4e-16;
}

static void geometric_side(const long double *la, long n, long double alpha, long double *cell,
                           long double *w)
{
    /* f(x) = c (L_x + R_x), linear relative to max A (w: workspace of n) */
    const long double m = sp_exp_scaled(la, n, w);
    const long double lc = log1pl(-alpha) - log1pl(alpha);
    geometric_sums(w, n, alpha, cell);
    for (long j = 0; j < n + 2; j++) {
        cell[j] = m + lc + sp_fast_logl(cell[j]);
    }
}

int sp_geometric_shift_cells(const long double *lp, const long double *lq, long n, double alpha,
                             long double *cell_lp, long double *cell_lq)
{
    if (n < 3) {
        return sp_geometric_cells(lp, lq, n, alpha, cell_lp, cell_lq);
    }
    long double *w = malloc((size_t)n * sizeof *w);
    if (w == NULL) {
        return -1;
    }
    /* Q's side as geometric_side, keeping L_{n-2} and R_{-1} */
    const long double a = alpha;
    const long double m = sp_exp_scaled(lq, n, w);           /* = P's scale (the same atoms) */
    const long double lc = log1pl(-a) - log1pl(a);
    long double l_last = 0.0L, r_end = 0.0L;
    geometric_sums_ends(w, n, a, cell_lq, &l_last, &r_end);
    free(w);
    /* P's scaled atoms are Q's one on (w_P(0) = 0: lp[0] = -inf), so each
     * step of P's recursions repeats Q's one cell earlier: L_P(x) =
     * L_Q(x-1), R_P(x) = R_Q(x-1), the same roundings.  Only P's ends
     * differ: f_P(0) = 0 + R_Q(-1), the right tail L_P(n-1) = L_Q(n-2)
     * times the tail factor, the left R_P(-1) = alpha (R_Q(-1) + 0) over
     * alpha times it -- each the expression geometric_sums evaluates. */
    const long double tail = geometric_tail(a);
    const long double p0 = 0.0L + r_end, p_right = l_last * tail;
    const long double p_left = a * (r_end + 0.0L) / a * tail;
    cell_lp[0] = m + lc + sp_fast_logl(p_left);
    cell_lp[1] = m + lc + sp_fast_logl(p0);
    cell_lp[n + 1] = m + lc + sp_fast_logl(p_right);
    for (long j = 0; j < n + 2; j++) {
        cell_lq[j] = m + lc + sp_fast_logl(cell_lq[j]);
    }
    for (long j = 2; j <= n; j++) {
        cell_lp[j] = cell_lq[j - 1];
    }
    return 0;
}

int sp_geometric_cells(const long double *lp, const long double *lq, long n, double alpha,
                       long double *cell_lp, long double *cell_lq)
{
    long double *w = malloc((size_t)n * sizeof *w);
    if (w == NULL) {
        return -1;
    }
    geometric_side(lp, n, alpha, cell_lp, w);
    geometric_side(lq, n, alpha, cell_lq, w);
    free(w);
    return 0;
}

/* Cell log ratios through the difference law D = P - Q (see geometric.h). */
int sp_geometric_difference_ratios(const long double *lp, const long double *lq,
                                   const long double *law_lr, long n, double alpha,
                                   const long double *cell_lq, long double *lr, double *err)
{
    /* Everything linear relative to M = max(ln P, ln Q) >= ln|P - Q|: the
     * noisy Q and the two parts of D share one scale, so the ratios need no
     * logs (the laws were trimmed to ~11000 nats below M: no underflow). */
    long double *wq = calloc((size_t)(n > 0 ? n : 1), sizeof *wq);
    long double *sq = malloc((size_t)(n + 2) * sizeof *sq);
    long double *sp = malloc((size_t)(n + 2) * sizeof *sp);
    long double *sn = malloc((size_t)(n + 2) * sizeof *sn);
    if (wq == NULL || sq == NULL || sp == NULL || sn == NULL) {
        free(wq);
        free(sq);
        free(sp);
        free(sn);
        return -1;
    }
    long double M = -INFINITY;
    for (long k = 0; k < n; k++) {
        M = fmaxl(M, fmaxl(lp[k], lq[k]));
    }
    for (long k = 0; k < n; k++) {
        wq[k] = M == -INFINITY ? 0.0L : sp_fast_expl(lq[k] - M);
    }
    geometric_sums(wq, n, alpha, sq);
    /* wq -> signed D = P - Q = Q expm1(lr) (= P where Q = 0): no cancellation */
    difference_law(lp, lq, law_lr, n, M, wq);
    geometric_sums_signed(wq, n, alpha, sp, sn);
    for (long j = 0; j < n + 2; j++) {
        err[j] = difference_ratio(cell_lq[j], sq[j], sp[j], sn[j], &lr[j]);
    }
    free(wq);
    free(sq);
    free(sp);
    free(sn);
    return 0;
}

int sp_geometric_shift_ratios(const long double *lp, const long double *lq,
                              const long double *law_lr, long n, double alpha,
                              long double *cell_lp, long double *cell_lq, long double *lr,
                              double *err)
{
    long double M = -INFINITY;
    for (long k = 0; k < n; k++) {
        M = fmaxl(M, fmaxl(lp[k], lq[k]));
    }
    long double *w = n >= 3 && M > -INFINITY ? malloc((size_t)n * sizeof *w) : NULL;
    long double *sp = w != NULL ? malloc((size_t)(n + 2) * sizeof *sp) : NULL;
    long double *sn = sp != NULL ? malloc((size_t)(n + 2) * sizeof *sn) : NULL;
    if (sn == NULL) {
        free(w);
        free(sp);
        /* (out of memory, or a degenerate law: the two steps, as they are) */
        if (sp_geometric_shift_cells(lp, lq, n, alpha, cell_lp, cell_lq) != 0) {
            return -1;
        }
        for (long j = 0; j < n + 2; j++) {
            const long double d = cell_lp[j] - cell_lq[j];
            lr[j] = isnan(d) ? 0.0L : d;
        }
        return sp_geometric_difference_ratios(lp, lq, law_lr, n, alpha, cell_lq, lr, err);
    }
    /* Q's linear sums: geometric_side's and sp_geometric_difference_ratios'
     * alike (one scale M = max ln Q = max ln P: the same atoms) */
    const long double a = alpha;
    const long double m = sp_exp_scaled(lq, n, w);
    const long double lc = log1pl(-a) - log1pl(a);
    long double l_last = 0.0L, r_end = 0.0L;
    geometric_sums_ends(w, n, a, cell_lq, &l_last, &r_end);
    difference_law(lp, lq, law_lr, n, M, w);
    geometric_sums_signed(w, n, a, sp, sn);
    free(w);
    /* the cells' logs (sp_geometric_shift_cells), their difference
     * (_cells._log_ratio: 0 where both vanish) and where better the
     * difference-law ratio, cell by cell from the left */
    const long double tail = geometric_tail(a);
    cell_lp[0] = m + lc + sp_fast_logl(a * (r_end + 0.0L) / a * tail);
    cell_lp[1] = m + lc + sp_fast_logl(0.0L + r_end);
    const long double p_right = m + lc + sp_fast_logl(l_last * tail);
    for (long j = 0; j < n + 2; j++) {
        const long double sq = cell_lq[j];
        cell_lq[j] = m + lc + sp_fast_logl(sq);
        if (j >= 2) {
            cell_lp[j] = j == n + 1 ? p_right : cell_lq[j - 1];
        }
        const long double d = cell_lp[j] - cell_lq[j];
        lr[j] = isnan(d) ? 0.0L : d;
        err[j] = difference_ratio(cell_lq[j], sq, sp[j], sn[j], &lr[j]);
    }
    free(sp);
    free(sn);
    return 0;
}

/* Deficits of the geometric-noise cell log ratios below the right-tail ratio.
 *
 * With c = (1-alpha)/(1+alpha), f_A(x) = c sum_k A(k) alpha^|x-k| and
 * R = G_A(1/alpha) / G_B(1/alpha) (G the generating function), the signed
 * law F = A - R B has sum_k F(k) alpha^-k = 0, so
 *   R f_B(x) - f_A(x) = -c sum_k F(k) alpha^|x-k|
 *                     = c sum_{k>x} F(k) (alpha^(x-k) - alpha^(k-x)) =: c V(x)
 * and the deficit D(x) = ln R - ln f_A(x)/f_B(x) = log1p(c V(x) / f_A(x)).
 * F(k) = B(k) R expm1(ln A(k)/B(k) - ln R) is formed from the accurate atom
 * log ratio, so D keeps its relative accuracy where A and B nearly agree and
 * where D is tiny (the cells next to the zero point of delta), unlike a
 * difference of two rounded cell logs.  Where every F(k), k > x, is >= 0
 * (the monotone-ratio laws above their crossing) V is a sum of positive
 * terms: S - T with S = sum F(k) alpha^(x-k), T = sum F(k) alpha^(k-x) <=
 * alpha^2 S, both by one-step recursions in scaled long double. */
long sp_geometric_deficits(const long double *la_in, const long double *lb_in,
                           const long double *lr_in, const long double *lo_in, int closed,
                           const long double *cell_in, long n, int mirror, double alpha,
                           long double r_hi, long double r_lo, long double *deficit_out,
                           double *rel_out)
{
    /* mirror: the arrays are read (and written) from the far end, and the
     * atom log ratio negated -- the left tail of Q/P without copies */
#define AT(arr, i) ((arr)[mirror ? n - 1 - (i) : (i)])
#define la(i) AT(la_in, i)
#define lb(i) AT(lb_in, i)
#define cell_la(i) AT(cell_in, i)
#define lr_ab(i) (mirror ? -AT(lr_in, i) : AT(lr_in, i))
#define deficit(i) AT(deficit_out, i)
#define rel_err(i) AT(rel_out, i)
    const long double a = alpha, inv_a = 1.0L / a;
    const long double lc = log1pl(-a) - log1pl(a);
    /* per-step rounding of the recursions and cell sums, amplified by the
     * cancellation S - T <= S (1 - alpha^2) and the geometric memory 1/(1-alpha) */
    const double amp = 16.0 + 8.0 / (double)(-expm1l(2.0L * logl(a)));
    long double s = 0.0L, t = 0.0L, sc = -INFINITY;
    /* the largest relative error of the F(k) summed so far, from the atom
     * ratio's error over d = ln A(k)/B(k) - ln R: at alpha = 6.7e-12 on a
     * sampled count d was ~1e-19 against an error ~1e-27, and a cell ratio
     * taken from here came out 2e-10 off (an over-report of delta) */
    double f_rel = 0.0;
    long x = n - 1, done = n;
    for (long j = 0; j < n; j++) {
        rel_err(j) = INFINITY;
    }
    if (n < 1) {
        return 0;
    }
    deficit(n - 1) = 0.0L;             /* no atom above: f_A/f_B = R exactly */
    rel_err(n - 1) = 0.0;
    for (x = n - 2; x >= 0; x--) {
        const long k = x + 1;
        /* F(k) = A(k) - R B(k) <= A(k), as f = F e^-sc in linear long double */
        long double f = 0.0L;
        int have = 0;
        if (lb(k) == -INFINITY) {
            have = la(k) > -INFINITY;  /* F = A(k) >= 0 */
        } else if (la(k) == -INFINITY) {
            break;                     /* F = -R B(k) < 0: mixed signs below */
        } else {
            const long double d = (lr_ab(k) - r_hi) - r_lo;
            if (d < 0.0L || isnan(d)) {
                break;
            }
            have = d > 0.0L;
        }
        if (have) {
            if (sc == -INFINITY) {
                sc = la(k);
            } else if (la(k) > sc + 64.0L) {
                const long double g = sp_fast_expl(sc - la(k));
                s *= g;
                t *= g;
                sc = la(k);
            }
            if (lb(k) == -INFINITY) {
                f = sp_fast_expl(la(k) - sc);
            } else {
                /* transcendentals in double: F to ~1e-16 relative, as the cells */
                const long double d = (lr_ab(k) - r_hi) - r_lo;
                f = d > 0.5L ? sp_fast_expl(la(k) - sc) * -expm1((double)-d)
                             : sp_fast_expl(lb(k) + r_hi + r_lo - sc) * expm1((double)d);
                const long double lo = lo_in == NULL ? 0.0L : AT(lo_in, k);
                const double e = sp_atom_log_ratio_err(AT(lr_in, k), lo, la(k), lb(k), closed)
                                 + fabs((double)lo) + 1e-30 * (1.0 + fabs((double)r_hi));
                f_rel = fmax(f_rel, e / (double)d);
            }
            s += f;
            t += f;
        }
        s *= inv_a;
        t *= a;
        if (s > 1e1000L) {
            sc += sp_fast_logl(s);
            t /= s;
            s = 1.0L;
        }
        long double dx = 0.0L;
        if (s > 0.0L) {
            /* D = log1p(c V / f_A), c V = e^(lc + sc) (s - t) */
            const long double arg = lc + sc - cell_la(x);
            const long double u = (s - t) * (fabsl(arg) < 700.0L ? (long double)exp((double)arg)
                                                                 : sp_fast_expl(arg));
            dx = log1p((double)u);
        }
        deficit(x) = dx;
        /* F, the cells (sp_fast_logl) and the last log1p/exp: ~2^-52 each,
         * and the F's inherited error */
        rel_err(x) = 0x1p-49 + 0x1p-63 * (amp + 4.0 * (double)(n - x)) + f_rel;
        done = x;
        if (dx > 0.25L) {
            break;                     /* deeper cells: a plain difference is as good */
        }
    }
#undef AT
#undef la
#undef lb
#undef cell_la
#undef lr_ab
#undef deficit
#undef rel_err
    return done;
}
