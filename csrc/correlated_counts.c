#include <stddef.h>
#include <stdlib.h>
#include <math.h>
#include "correlated_counts.h"

/* The next row of the box [0, extent]^(k-1) of outer coordinates c (the
 * first k - 1; the last coordinate runs along the row): 1, or 0 after the
 * last row. */
static int next_row(long k, long extent, long *c)
{
    long j = k - 2;
    while (j >= 0 && c[j] == extent) {
        c[j] = 0;
        j--;
    }
    if (j < 0) {
        return 0;
    }
    c[j]++;
    return 1;
}

int sp_corr_lattice_log_law(long k, long N, const double *joint, long double *out,
                            long double *work)
{
    if (k < 1 || k > SP_CORR_MAX_K || N < 0 || joint == NULL || out == NULL || work == NULL) {
        return -2;
    }
    const long side = N + 1;
    long total = 1, stride[SP_CORR_MAX_K];
    for (long j = k - 1; j >= 0; j--) {
        stride[j] = total;
        total *= side;
    }
    /* the nonzero cells: their probability and answer vector */
    long double prob[1 << SP_CORR_MAX_K];
    int bits[1 << SP_CORR_MAX_K][SP_CORR_MAX_K];
    int cells = 0;
    for (long v = 0; v < (1L << k); v++) {
        if (!(joint[v] >= 0.0)) {
            return -2;
        }
        if (joint[v] == 0.0) {
            continue;
        }
        prob[cells] = (long double)joint[v];
        for (long j = 0; j < k; j++) {
            bits[cells][j] = (int)((v >> (k - 1 - j)) & 1);
        }
        cells++;
    }
    if (cells == 0) {
        return -2;
    }
    for (long s = 0; s < total; s++) {
        out[s] = 0.0L;
        work[s] = 0.0L;
    }
    /* No rescaling: the largest atom of a law on (i + 1)^k points is at
     * least (i + 1)^-k, and the caller keeps every atom above
     * (min joint)^N >= e^-11000, inside long double's normal range. */
    out[0] = 1.0L;
    long double *cur = out, *nxt = work;
    for (long i = 1; i <= N; i++) {
        /* nxt(s) = sum_v joint(v) cur(s - v) on [0, i]^k, row by row along
         * the last coordinate: the rows of cur a cell reads are the row at
         * the outer coordinates minus the cell's outer answers */
        long c[SP_CORR_MAX_K] = {0};
        do {
            long row = 0;
            for (long j = 0; j < k - 1; j++) {
                row += c[j] * stride[j];
            }
            /* the cells whose source row lies in [0, i-1]^(k-1): the row, the
             * shift along it and the probability */
            const long double *src[1 << SP_CORR_MAX_K];
            long shift[1 << SP_CORR_MAX_K];
            long double pv[1 << SP_CORR_MAX_K];
            int live = 0;
            for (int cell = 0; cell < cells; cell++) {
                long from = row;
                int inside = 1;
                for (long j = 0; j < k - 1; j++) {
                    const long a = c[j] - bits[cell][j];
                    if (a < 0 || a > i - 1) {
                        inside = 0;
                        break;
                    }
                    from -= bits[cell][j] * stride[j];
                }
                if (inside) {
                    src[live] = cur + from;
                    shift[live] = bits[cell][k - 1];
                    pv[live] = prob[cell];
                    live++;
                }
            }
            /* nxt(t) = sum over the live cells of p cur(t - shift) with
             * 0 <= t - shift <= i - 1: the ends t = 0 and t = i checked, the
             * inside (every cell in range) summed in a register, stored once */
            long double *dst = nxt + row;
            for (long t = 0; t <= i; t += i) {
                long double acc = 0.0L;
                for (int l = 0; l < live; l++) {
                    const long at = t - shift[l];
                    if (at >= 0 && at <= i - 1) {
                        acc += pv[l] * src[l][at];
                    }
                }
                dst[t] = acc;
            }
            for (long t = 1; t < i; t++) {
                long double acc = 0.0L;
                for (int l = 0; l < live; l++) {
                    acc += pv[l] * src[l][t - shift[l]];
                }
                dst[t] = acc;
            }
        } while (next_row(k, i, c));
        long double *swap = cur;
        cur = nxt;
        nxt = swap;
    }
    for (long s = 0; s < total; s++) {
        out[s] = cur[s] > 0.0L ? logl(cur[s]) : -INFINITY;
    }
    return 0;
}

/* One Pascal step in place: row r of Bin(., q) (entries 0..r-1 hold
 * Bin(r - 1, q), entry r is overwritten) to Bin(r, q); q + qc = 1. */
static void pascal_step(long double *b, long r, long double q, long double qc)
{
    b[r] = q * b[r - 1];
    for (long i = r - 1; i > 0; i--) {
        b[i] = qc * b[i] + q * b[i - 1];
    }
    b[0] = qc * b[0];
}

int sp_corr_two_log_law(long N, const double *joint, long double *out, long double *work)
{
    if (N < 0 || joint == NULL || out == NULL || work == NULL) {
        return -2;
    }
    for (int v = 0; v < 4; v++) {
        if (!(joint[v] >= 0.0)) {
            return -2;
        }
    }
    const long side = N + 1;
    const long double j00 = joint[0], j01 = joint[1], j10 = joint[2], j11 = joint[3];
    const long double p1 = j10 + j11, p1c = j00 + j01;    /* P(a1 = 1), P(a1 = 0) */
    if (p1 + p1c <= 0.0L) {
        return -2;
    }
    /* a2 given a1 = 1 (q1) and given a1 = 0 (q0), each with its complement
     * from the entries themselves (no 1 - q) */
    const long double q1 = p1 > 0.0L ? j11 / p1 : 0.0L, q1c = p1 > 0.0L ? j10 / p1 : 1.0L;
    const long double q0 = p1c > 0.0L ? j01 / p1c : 0.0L, q0c = p1c > 0.0L ? j00 / p1c : 1.0L;
    long double *rows0 = work;                 /* row r: Bin(r, q0) on 0..r */
    long double *first = work + side * side;   /* Bin(N, p1) */
    long double *b1 = first + side;            /* Bin(m, q1), m = 0, 1, ... */
    rows0[0] = 1.0L;
    for (long r = 1; r <= N; r++) {
        long double *row = rows0 + r * side, *prev = rows0 + (r - 1) * side;
        for (long i = 0; i < r; i++) {
            row[i] = prev[i];
        }
        pascal_step(row, r, q0, q0c);
    }
    first[0] = 1.0L;
    for (long r = 1; r <= N; r++) {
        pascal_step(first, r, p1, p1c);
    }
    b1[0] = 1.0L;
    for (long m = 0; m <= N; m++) {
        if (m > 0) {
            pascal_step(b1, m, q1, q1c);
        }
        const long double lw = first[m] > 0.0L ? logl(first[m]) : -INFINITY;
        const long double *b0 = rows0 + (N - m) * side;   /* Bin(N - m, q0) */
        long double *dst = out + m * side;
        for (long j = 0; j <= N; j++) {
            const long lo = j - (N - m) > 0 ? j - (N - m) : 0, hi = j < m ? j : m;
            long double acc = 0.0L;
            for (long i = lo; i <= hi; i++) {
                acc += b1[i] * b0[j - i];
            }
            dst[j] = acc > 0.0L && lw > -INFINITY ? lw + logl(acc) : -INFINITY;
        }
    }
    return 0;
}

double sp_corr_max_log_delta(double eps, sp_direction direction, const void *ctx)
{
    const sp_corr_max_curve *m = (const sp_corr_max_curve *)ctx;
    double best = -INFINITY;
    (void)direction;       /* every direction is the max over both of every pair */
    for (long i = 0; i < m->count; i++) {
        const double v = m->fns[i](eps, SP_MAX, m->ctxs[i]);
        if (isnan(v)) {
            return v;
        }
        if (v > best) {
            best = v;
        }
    }
    return best;
}

/* Bin(n, p) on [lo, hi] (inside [0, n]) into out[0 .. hi - lo], p + pc = 1:
 * ln b at the mode (clamped into the window) from lgammal -- its ~1e-14
 * absolute error is one factor common to the whole window -- then the exact
 * ratios b(k + 1) / b(k) = (n - k) p / ((k + 1) pc) outward, so that
 * neighbours agree to ~1e-19 (a delta near its threshold compares them). */
static void binom_window(long n, long double p, long double pc, long lo, long hi,
                         long double *out)
{
    if (p <= 0.0L || pc <= 0.0L) {
        const long at = p <= 0.0L ? 0 : n;      /* a point mass */
        for (long k = lo; k <= hi; k++) {
            out[k - lo] = k == at ? 1.0L : 0.0L;
        }
        return;
    }
    long mode = (long)floorl((long double)(n + 1) * p);
    mode = mode > n ? n : mode;
    mode = mode < lo ? lo : (mode > hi ? hi : mode);
    out[mode - lo] = expl(lgammal((long double)n + 1.0L) - lgammal((long double)mode + 1.0L)
                          - lgammal((long double)(n - mode) + 1.0L) + (long double)mode * logl(p)
                          + (long double)(n - mode) * logl(pc));
    const long double odds = p / pc;
    for (long k = mode; k < hi; k++) {
        out[k + 1 - lo] = out[k - lo] * ((long double)(n - k) * odds / (long double)(k + 1));
    }
    for (long k = mode; k > lo; k--) {
        out[k - 1 - lo] = out[k - lo] * ((long double)k / ((long double)(n - k + 1) * odds));
    }
}

/* The span [first, last] of a pmf array b[0 .. n] where b >= max e^-cut
 * (log-concave: one interval). */
static void significant_span(const long double *b, long n, double cut, long *first, long *last)
{
    long double top = 0.0L;
    for (long k = 0; k <= n; k++) {
        top = b[k] > top ? b[k] : top;
    }
    const long double floor_ = top * expl(-(long double)cut);
    long a = 0, z = n;
    while (a < n && b[a] < floor_) {
        a++;
    }
    while (z > a && b[z] < floor_) {
        z--;
    }
    *first = a;
    *last = z;
}

/* The state of the tree of sp_corr_two_window_law: a node [lo, hi] of rows
 * holds its base G(lo, N - hi) = Bin(lo, q1) * Bin(N - hi, q0) on a range of
 * c, in levels[depth]; its rows add hi - lo more records. */
typedef struct {
    long m_lo, c_lo, c_hi;
    long double q1, q1c, q0, q0c;
    double cut;
    const long double *weight;    /* Bin(N, p1)(m), m = m_lo .. m_hi */
    double *out;
    long double *wide;            /* one binomial pmf in long double (scratch) */
    double *kernel;               /* the same in doubles, cut (scratch) */
    double *levels;               /* one base per depth, stride `stride` */
    long stride;
    /* memos, -1 until known: the cut span [lo, hi] of Bin(s, q0) (index 0)
     * and Bin(s, q1) (1) by s; the least and most a subtree of r rows moves
     * c (its kernels' spans summed along a path) by r */
    long *span_lo[2], *span_hi[2], *reach_lo, *reach_hi;
} window_tree;

/* dst[c - d_lo] = sum_j b[j] src[c - j - s_lo], j in [j_lo, j_hi], for c in
 * [d_lo, d_hi], src zero outside [s_lo, s_hi]: positive terms only (no
 * cancellation: every cell keeps a few ulps relative whatever its size).
 * Doubles, one kernel entry at a time across the row (an axpy the compiler
 * vectorises): x87 long doubles took 3.3 ns a term, 0.15 s at N = 1e4. */
static void convolve(const double *src, long s_lo, long s_hi, const double *b, long j_lo,
                     long j_hi, double *dst, long d_lo, long d_hi)
{
    for (long c = d_lo; c <= d_hi; c++) {
        dst[c - d_lo] = 0.0;
    }
    for (long j = j_lo; j <= j_hi; j++) {
        const long lo = d_lo > s_lo + j ? d_lo : s_lo + j;
        const long hi = d_hi < s_hi + j ? d_hi : s_hi + j;
        const double bj = b[j];
        double *restrict to = dst + (lo - d_lo);
        const double *restrict from = src + (lo - j - s_lo);
        const long count = hi - lo + 1;
        long i = 0;
        /* independent pairs (no add chain), which -O2's straight-line
         * vectoriser packs two doubles at a time */
        for (; i + 4 <= count; i += 4) {
            const double x0 = from[i], x1 = from[i + 1], x2 = from[i + 2], x3 = from[i + 3];
            const double y0 = to[i], y1 = to[i + 1], y2 = to[i + 2], y3 = to[i + 3];
            to[i] = y0 + bj * x0;
            to[i + 1] = y1 + bj * x1;
            to[i + 2] = y2 + bj * x2;
            to[i + 3] = y3 + bj * x3;
        }
        for (; i < count; i++) {
            to[i] += bj * from[i];
        }
    }
}

/* Bin(n, p) on [0, n] as doubles (binom_window's values; `wide` its long
 * double scratch of n + 1), cut to its significant span [*first, *last]. */
static void binom_kernel(long n, long double p, long double pc, double cut, long double *wide,
                         double *out, long *first, long *last)
{
    binom_window(n, p, pc, 0, n, wide);
    significant_span(wide, n, cut, first, last);
    for (long k = *first; k <= *last; k++) {
        out[k] = (double)wide[k];
    }
}

static void window_node(window_tree *t, long lo, long hi, long b_lo, long b_hi, int depth);

/* The span of Bin(s, q_which) once cut (binom_kernel's), memoised. */
static void kernel_span(window_tree *t, int which, long s, long *lo, long *hi)
{
    if (t->span_lo[which][s] < 0) {
        binom_window(s, which ? t->q1 : t->q0, which ? t->q1c : t->q0c, 0, s, t->wide);
        significant_span(t->wide, s, t->cut, &t->span_lo[which][s], &t->span_hi[which][s]);
    }
    *lo = t->span_lo[which][s];
    *hi = t->span_hi[which][s];
}

/* [*least, *most]: how far the rows of a subtree of r rows move c from its
 * base (window_node's split: the left half, (r - 1) / 2 + 1 rows, gets
 * Bin(rest, q0), the right half Bin(left, q1)).  A base is needed on
 * [c_lo - most, c_hi - least] only: with the factors cut, nothing outside
 * reaches the box (at n = 1e4 this trims the top levels' bases by ~1/4). */
static void subtree_reach(window_tree *t, long r, long *least, long *most)
{
    if (r == 1) {
        *least = 0;
        *most = 0;
        return;
    }
    if (t->reach_lo[r] < 0) {
        const long left = (r - 1) / 2 + 1, right = r - left;
        long k0_lo, k0_hi, k1_lo, k1_hi, l_lo, l_hi, r_lo, r_hi;
        kernel_span(t, 0, right, &k0_lo, &k0_hi);
        kernel_span(t, 1, left, &k1_lo, &k1_hi);
        subtree_reach(t, left, &l_lo, &l_hi);
        subtree_reach(t, right, &r_lo, &r_hi);
        t->reach_lo[r] = k0_lo + l_lo < k1_lo + r_lo ? k0_lo + l_lo : k1_lo + r_lo;
        t->reach_hi[r] = k0_hi + l_hi > k1_hi + r_hi ? k0_hi + l_hi : k1_hi + r_hi;
    }
    *least = t->reach_lo[r];
    *most = t->reach_hi[r];
}

/* The child [lo, hi] of a node whose base (levels[depth] on [b_lo, b_hi])
 * lacks `records` more records of answer probability q: its base is that
 * base * Bin(records, q), needed only where its rows can still reach the
 * box (subtree_reach: exact, not a cut). */
static void window_child(window_tree *t, long lo, long hi, long b_lo, long b_hi, int depth,
                         long records, long double q, long double qc)
{
    long k_lo, k_hi, least, most;
    subtree_reach(t, hi - lo + 1, &least, &most);
    binom_kernel(records, q, qc, t->cut, t->wide, t->kernel, &k_lo, &k_hi);
    const long n_lo = t->c_lo - most > b_lo + k_lo ? t->c_lo - most : b_lo + k_lo;
    const long n_hi = t->c_hi - least < b_hi + k_hi ? t->c_hi - least : b_hi + k_hi;
    convolve(t->levels + depth * t->stride, b_lo, b_hi, t->kernel, k_lo, k_hi,
             t->levels + (depth + 1) * t->stride, n_lo, n_hi);
    window_node(t, lo, hi, n_lo, n_hi, depth + 1);
}

static void window_node(window_tree *t, long lo, long hi, long b_lo, long b_hi, int depth)
{
    const double *base = t->levels + depth * t->stride;
    if (lo == hi) {       /* the row itself: G(m, N - m) = f_m, times Bin(N, p1)(m) */
        const long cols = t->c_hi - t->c_lo + 1;
        double *dst = t->out + (lo - t->m_lo) * cols;
        /* the weight rounded to double (one rounding per row, as the
         * cells'): an x87 product per cell took 40% of the time */
        const double w = (double)t->weight[lo - t->m_lo];
        const long from = b_lo > t->c_lo ? b_lo : t->c_lo;
        const long to = b_hi < t->c_hi ? b_hi : t->c_hi;
        for (long c = t->c_lo; c < from && c <= t->c_hi; c++) {
            dst[c - t->c_lo] = 0.0;
        }
        for (long c = from; c <= to; c++) {
            dst[c - t->c_lo] = w * base[c - b_lo];
        }
        for (long c = to + 1 > from ? to + 1 : from; c <= t->c_hi; c++) {
            dst[c - t->c_lo] = 0.0;
        }
        return;
    }
    const long mid = lo + (hi - lo) / 2;
    /* [lo, mid]: G(lo, N - mid), hi - mid more records answering a1 = 0;
     * [mid + 1, hi]: G(mid + 1, N - hi), mid + 1 - lo more answering a1 = 1 */
    window_child(t, lo, mid, b_lo, b_hi, depth, hi - mid, t->q0, t->q0c);
    window_child(t, mid + 1, hi, b_lo, b_hi, depth, mid + 1 - lo, t->q1, t->q1c);
}

int sp_corr_two_window_law(long N, const double *joint, long m_lo, long m_hi, long c_lo,
                           long c_hi, double cut, double *out)
{
    if (N < 0 || joint == NULL || out == NULL || m_lo < 0 || m_hi > N || m_lo > m_hi
        || c_lo < 0 || c_hi > N || c_lo > c_hi || !(cut > 0.0)) {
        return -2;
    }
    for (int v = 0; v < 4; v++) {
        if (!(joint[v] >= 0.0)) {
            return -2;
        }
    }
    const long double j00 = joint[0], j01 = joint[1], j10 = joint[2], j11 = joint[3];
    /* the first answer's law normalised (a joint summing to 1 - 1e-16 would
     * otherwise leave the law's total 1e-12 short at N = 1e4; the lattice
     * route normalises its laws too) */
    const long double total = (j10 + j11) + (j00 + j01);
    if (!(total > 0.0L)) {
        return -2;
    }
    const long double p1 = (j10 + j11) / total, p1c = (j00 + j01) / total;
    window_tree t;
    /* as sp_corr_two_log_law: complements from the entries, no 1 - q */
    t.q1 = p1 > 0.0L ? j11 / p1 : 0.0L;
    t.q1c = p1 > 0.0L ? j10 / p1 : 1.0L;
    t.q0 = p1c > 0.0L ? j01 / p1c : 0.0L;
    t.q0c = p1c > 0.0L ? j00 / p1c : 1.0L;
    t.m_lo = m_lo;
    t.c_lo = c_lo;
    t.c_hi = c_hi;
    t.cut = cut;
    t.out = out;
    long depth = 1;
    for (long r = m_hi - m_lo + 1; r > 1; r = (r + 1) / 2) {
        depth++;
    }
    /* a base spans at most [c_lo - (m_hi - m_lo), c_hi] */
    t.stride = c_hi - c_lo + (m_hi - m_lo) + 1;
    const long root_n1 = m_lo, root_n0 = N - m_hi, rows = m_hi - m_lo + 1;
    long double *wide = malloc((size_t)(rows + N + 1) * sizeof(long double));
    double *work = malloc((size_t)(2 * (N + 1) + depth * t.stride) * sizeof(double));
    long *memo = malloc((size_t)(6 * (rows + 1)) * sizeof(long));
    if (wide == NULL || work == NULL || memo == NULL) {
        free(wide);
        free(work);
        free(memo);
        return -1;
    }
    for (long i = 0; i < 6 * (rows + 1); i++) {
        memo[i] = -1;
    }
    for (int which = 0; which < 2; which++) {
        t.span_lo[which] = memo + (2 * which) * (rows + 1);
        t.span_hi[which] = memo + (2 * which + 1) * (rows + 1);
    }
    t.reach_lo = memo + 4 * (rows + 1);
    t.reach_hi = memo + 5 * (rows + 1);
    t.weight = wide;
    t.wide = wide + (m_hi - m_lo + 1);
    t.kernel = work;                     /* also Bin(root_n1, q1) */
    double *b0 = work + (N + 1);         /* Bin(root_n0, q0) */
    t.levels = b0 + (N + 1);
    binom_window(N, p1, p1c, m_lo, m_hi, wide);
    /* the root: G(m_lo, N - m_hi), each binomial cut e^-cut below its mode
     * (the cut mass, < (N + 1) e^-cut of the scale, is what the caller's
     * cut leaves far below its tail bound) */
    long i_lo, i_hi, j_lo, j_hi;
    binom_kernel(root_n1, t.q1, t.q1c, cut, t.wide, t.kernel, &i_lo, &i_hi);
    binom_kernel(root_n0, t.q0, t.q0c, cut, t.wide, b0, &j_lo, &j_hi);
    long least, most;
    subtree_reach(&t, rows, &least, &most);
    const long r_lo = c_lo - most > j_lo + i_lo ? c_lo - most : j_lo + i_lo;
    const long r_hi = c_hi - least < j_hi + i_hi ? c_hi - least : j_hi + i_hi;
    if (r_lo <= r_hi) {
        convolve(b0 + j_lo, j_lo, j_hi, t.kernel, i_lo, i_hi, t.levels, r_lo, r_hi);
        window_node(&t, m_lo, m_hi, r_lo, r_hi, 0);
    } else {
        for (long s = 0; s < (m_hi - m_lo + 1) * (c_hi - c_lo + 1); s++) {
            out[s] = 0.0;
        }
    }
    free(wide);
    free(work);
    free(memo);
    return 0;
}

/* sum_(s in box) (L(s) - e L(s + d))_+ with L = 0 outside the box, in
 * doubles (the box's cells are doubles; a term's error is ~1e-16 of P + e Q
 * at the threshold, 1e-14 of delta where P's mass beyond it is 100 delta);
 * four accumulators, no branch (3.1e6 cells at N = 1e4: ~3 ms).  e = +inf
 * (eps past 709) counts the cells whose partner is 0, without inf * 0. */
static double window_sum(const sp_corr_window *w, long d_row, long d_col, double e)
{
    double acc = 0.0;
    const int infinite = isinf(e);
    for (long r = 0; r < w->rows; r++) {
        const double *row = w->law + r * w->cols;
        const long pr = r + d_row;
        if (pr < 0 || pr >= w->rows) {
            for (long t = 0; t < w->cols; t++) {
                acc += row[t];
            }
            continue;
        }
        const double *partner = w->law + pr * w->cols + d_col;
        /* the columns whose partner column t + d_col lies in the box */
        const long lo = d_col < 0 ? -d_col : 0;
        const long hi = d_col > 0 ? w->cols - d_col : w->cols;
        for (long t = 0; t < lo; t++) {
            acc += row[t];
        }
        for (long t = hi; t < w->cols; t++) {
            acc += row[t];
        }
        if (infinite) {
            for (long t = lo; t < hi; t++) {
                acc += partner[t] > 0.0 ? 0.0 : row[t];
            }
            continue;
        }
        double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
        long t = lo;
        for (; t + 4 <= hi; t += 4) {
            const double v0 = row[t] - e * partner[t], v1 = row[t + 1] - e * partner[t + 1];
            const double v2 = row[t + 2] - e * partner[t + 2];
            const double v3 = row[t + 3] - e * partner[t + 3];
            a0 += v0 > 0.0 ? v0 : 0.0;
            a1 += v1 > 0.0 ? v1 : 0.0;
            a2 += v2 > 0.0 ? v2 : 0.0;
            a3 += v3 > 0.0 ? v3 : 0.0;
        }
        for (; t < hi; t++) {
            const double v = row[t] - e * partner[t];
            a0 += v > 0.0 ? v : 0.0;
        }
        acc += (a0 + a1) + (a2 + a3);
    }
    return acc;
}

double sp_corr_window_log_delta(double eps, sp_direction direction, const void *ctx)
{
    const sp_corr_window *w = (const sp_corr_window *)ctx;
    if (isnan(eps)) {
        return eps;
    }
    const double e = exp(eps);
    double total;
    if (direction == SP_MAX) {
        const double plus = window_sum(w, w->d_row, w->d_col, e);
        const double minus = window_sum(w, -w->d_row, -w->d_col, e);
        total = plus > minus ? plus : minus;
    } else if (direction == SP_PLUS) {
        total = window_sum(w, w->d_row, w->d_col, e);
    } else {
        total = window_sum(w, -w->d_row, -w->d_col, e);
    }
    total += w->tail;
    /* delta <= 1 (sum of P); the box's rounding or the tail may pass it */
    total = total < 1.0 ? total : 1.0;
    return total > 0.0 ? log(total) : -INFINITY;
}
