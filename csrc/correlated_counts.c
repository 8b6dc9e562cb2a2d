/* POSIX threads (the k = 3 box's two halves) under -std=c99 */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "correlated_counts.h"
#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#define SP_CORR_THREADS 1
#endif

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

/* One cell's term (L - e M)_+ the slow way (the rows of pair_sum that hold a
 * resolved cell): `partner` NULL when the partner lies outside the plane. */
static double cell_term(double cell, const double *partner, int infinite, double e)
{
    if (partner == NULL) {
        return cell;
    }
    if (infinite) {
        return *partner > 0.0 ? 0.0 : cell;
    }
    const double v = cell - e * *partner;
    return v > 0.0 ? v : 0.0;
}

/* sum over the cells s of a plane of `cols` columns, those of the
 * rectangle [r0, r1] x [t0, t1] (zero elsewhere), of (L(s) - e M(s + d))_+,
 * M a plane of the same layout, zero outside its rectangle orect = {rows
 * o[0] .. o[1], columns o[2] .. o[3]} (M = `other`: L itself for k = 2, the
 * next or previous slice for k = 3; NULL: zero everywhere), in doubles (the box's cells are
 * doubles; a term's error is ~1e-16 of P + e Q at the threshold, 1e-14 of
 * delta where P's mass beyond it is 100 delta); four accumulators, no
 * branch (3.1e6 cells at N = 1e4: ~3 ms).  e = +inf (eps past 709) counts
 * the cells whose partner is 0, without inf * 0.  `skip` (increasing flat
 * indices r cols + t, n_skip of them; NULL for none): cells left out (their
 * rows summed cell by cell). */
static double pair_sum(const double *law, const double *other, const long *orect, long cols,
                       long r0, long r1, long t0, long t1, long d_row, long d_col, double e,
                       const long *skip, long n_skip)
{
    double acc = 0.0;
    const int infinite = isinf(e);
    long next = 0;
    for (long r = r0; r <= r1; r++) {
        const double *row = law + r * cols;
        const long pr = r + d_row;
        const int outside = other == NULL || pr < orect[0] || pr > orect[1];
        while (next < n_skip && skip[next] < r * cols) {
            next++;
        }
        if (next < n_skip && skip[next] < (r + 1) * cols) {
            for (long t = t0; t <= t1; t++) {
                if (next < n_skip && skip[next] == r * cols + t) {
                    next++;
                    continue;
                }
                const long pt = t + d_col;
                acc += cell_term(row[t], outside || pt < orect[2] || pt > orect[3] ? NULL
                                 : other + pr * cols + pt, infinite, e);
            }
            continue;
        }
        if (outside) {
            for (long t = t0; t <= t1; t++) {
                acc += row[t];
            }
            continue;
        }
        const double *partner = other + pr * cols + d_col;
        /* the columns whose partner column t + d_col lies in its rectangle */
        const long lo = t0 > orect[2] - d_col ? t0 : orect[2] - d_col;
        const long hi = t1 + 1 < orect[3] + 1 - d_col ? t1 + 1 : orect[3] + 1 - d_col;
        for (long t = t0; t < lo; t++) {
            acc += row[t];
        }
        for (long t = hi > lo ? hi : lo; t <= t1; t++) {
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

/* ln of the k = 2 law's factors, from the joint's entries (no 1 - p):
 * Bin(N, p1) for the first count, Bin(., q1) and Bin(., q0) for the second
 * given a1 = 1 and a1 = 0 (-inf for a probability 0). */
typedef struct {
    long double lp1, lp1c, lq1, lq1c, lq0, lq0c;
} two_logs;

static void two_law_logs(const double *joint, two_logs *g)
{
    const long double j00 = joint[0], j01 = joint[1], j10 = joint[2], j11 = joint[3];
    const long double one = j10 + j11, zero = j00 + j01, total = one + zero;
    g->lp1 = logl(one) - logl(total);
    g->lp1c = logl(zero) - logl(total);
    g->lq1 = one > 0.0L ? logl(j11) - logl(one) : -INFINITY;
    g->lq1c = one > 0.0L ? logl(j10) - logl(one) : 0.0L;
    g->lq0 = zero > 0.0L ? logl(j01) - logl(zero) : -INFINITY;
    g->lq0c = zero > 0.0L ? logl(j00) - logl(zero) : 0.0L;
}

/* ln Bin(n, q)(k) from ln q and ln (1 - q): lgammal (~1e-19 relative, ~1e-15
 * absolute at n = 1e4); -inf outside [0, n] or where a factor is 0. */
static long double log_binomial(long n, long k, long double lq, long double lqc)
{
    if (k < 0 || k > n) {
        return -INFINITY;
    }
    long double out = lgammal((long double)n + 1.0L) - lgammal((long double)k + 1.0L)
                      - lgammal((long double)(n - k) + 1.0L);
    if (k > 0) {
        out += (long double)k * lq;
    }
    if (n - k > 0) {
        out += (long double)(n - k) * lqc;
    }
    return out;
}

/* ln L(m, c) of the k = 2 law in log space, any cell of [0, N]^2:
 *   ln Bin(N, p1)(m) + ln sum_i Bin(m, q1)(i) Bin(N - m, q0)(c - i)
 * (the sum's terms in extended precision from the largest; -inf where S
 * never lands).  O(min(m, N - m)) terms. */
static long double log_two_cell(const two_logs *g, long N, long m, long c)
{
    const long double lw = log_binomial(N, m, g->lp1, g->lp1c);
    const long lo = c - (N - m) > 0 ? c - (N - m) : 0, hi = c < m ? c : m;
    if (lw == -INFINITY || lo > hi) {
        return -INFINITY;
    }
    long double top = -INFINITY;
    for (long i = lo; i <= hi; i++) {
        const long double v = log_binomial(m, i, g->lq1, g->lq1c)
                              + log_binomial(N - m, c - i, g->lq0, g->lq0c);
        top = v > top ? v : top;
    }
    if (top == -INFINITY) {
        return -INFINITY;
    }
    long double sum = 0.0L;
    for (long i = lo; i <= hi; i++) {
        sum += expl(log_binomial(m, i, g->lq1, g->lq1c)
                    + log_binomial(N - m, c - i, g->lq0, g->lq0c) - top);
    }
    return lw + top + logl(sum);
}

/* [*first, *last]: the first and last cells of row[0 .. cols - 1] at least
 * floor_ (read from each end inward; *first > *last: none). */
static void live_span(const double *row, long cols, double floor_, long *first, long *last)
{
    long a = 0, z = cols - 1;
    while (a < cols && !(row[a] >= floor_)) {
        a++;
    }
    while (z > a && !(row[z] >= floor_)) {
        z--;
    }
    *first = a;
    *last = a < cols ? z : a - 1;
}

long sp_corr_window_resolve(long N, const double *joint, long m_lo, long c_lo, const double *law,
                            long rows, long cols, long d_row, long d_col, double cell_floor,
                            double partner_floor, long *index, double *log_ratio,
                            long capacity)
{
    if (N < 0 || joint == NULL || law == NULL || rows < 1 || cols < 1 || m_lo < 0 || c_lo < 0
        || m_lo + rows - 1 > N || c_lo + cols - 1 > N) {
        return -2;
    }
    two_logs g;
    two_law_logs(joint, &g);
    long count = 0;
    /* the columns whose partner lies in the box */
    const long lo = d_col < 0 ? -d_col : 0, hi = d_col > 0 ? cols - d_col : cols;
    for (long r = 0; r < rows; r++) {
        const long pr = r + d_row;
        if (pr < 0 || pr >= rows) {
            continue;
        }
        const double *row = law + r * cols, *partner = law + pr * cols;
        long first, last, p_first, p_last;
        live_span(row, cols, cell_floor, &first, &last);
        live_span(partner, cols, partner_floor, &p_first, &p_last);
        /* the candidates: partner columns outside [p_first, p_last] (the
         * row's cells are log-concave: inside, they stay >= the floor) */
        first = first > lo ? first : lo;
        last = last < hi - 1 ? last : hi - 1;
        for (long t = first; t <= last; t++) {
            const long pt = t + d_col;
            if (pt >= p_first && pt <= p_last) {
                t = p_last - d_col;     /* (the loop's t++ steps past the span) */
                continue;
            }
            if (!(row[t] >= cell_floor) || partner[pt] >= partner_floor) {
                continue;
            }
            if (index != NULL && count < capacity) {
                const long m = m_lo + r, c = c_lo + t;
                const long double here = log_two_cell(&g, N, m, c);
                const long double there = log_two_cell(&g, N, m + d_row, c + d_col);
                index[count] = r * cols + t;
                log_ratio[count] = there == -INFINITY ? -INFINITY : (double)(there - here);
            }
            count++;
        }
    }
    return count;
}

/* The k = 2 box: the plane paired with itself, the resolved cells of the
 * direction (`which`: 0 for +d, 1 for -d) left out of the plane's sum and
 * added from their log ratios, L(s) (1 - e^(eps + ln L(s + d) / L(s)))_+. */
static double window_sum(const sp_corr_window *w, int which, double eps, double e)
{
    const long d_row = which ? -w->d_row : w->d_row, d_col = which ? -w->d_col : w->d_col;
    const long whole[4] = {0, w->rows - 1, 0, w->cols - 1};
    double acc = pair_sum(w->law, w->law, whole, w->cols, 0, w->rows - 1, 0, w->cols - 1, d_row,
                          d_col, e, w->resolved[which], w->n_resolved[which]);
    for (long i = 0; i < w->n_resolved[which]; i++) {
        const double cell = w->law[w->resolved[which][i]], lr = w->resolved_log[which][i];
        if (lr == -INFINITY) {
            acc += cell;
        } else if (eps + lr < 0.0) {
            acc += -cell * expm1(eps + lr);
        }
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
        const double plus = window_sum(w, 0, eps, e);
        const double minus = window_sum(w, 1, eps, e);
        total = plus > minus ? plus : minus;
    } else {
        total = window_sum(w, direction == SP_PLUS ? 0 : 1, eps, e);
    }
    total += w->tail;
    /* delta <= 1 (sum of P); the box's rounding or the tail may pass it */
    total = total < 1.0 ? total : 1.0;
    return total > 0.0 ? log(total) : -INFINITY;
}

/* ---- k = 3 on a box (sp_corr_box) ---- */

/* A rectangle of a 2-D law: rows y in [y0, y1], each holding z in [z0, z1]
 * contiguously, `stride` doubles apart (a trim moves v and keeps the
 * stride: nothing is copied); empty when y0 > y1 or z0 > z1. */
typedef struct {
    double *v;
    long y0, y1, z0, z1, stride;
} plane;

static long plane_cells(const plane *p)
{
    return p->y1 < p->y0 || p->z1 < p->z0 ? 0 : (p->y1 - p->y0 + 1) * (p->z1 - p->z0 + 1);
}

/* One row of a plane times one record of the 2 x 2 law j (j[2 a2 + a3]):
 * out[z - oz0] = j00 a(z) + j01 a(z - 1) + j10 b(z) + j11 b(z - 1) for z in
 * [oz0, oz1] (inside [sz0, sz1 + 1]), a and b the source rows y and y - 1
 * on [sz0, sz1] (zero beyond; an absent row is a row of zeros).  Positive
 * terms only. */
static void record_row(double *restrict out, long oz0, long oz1, const double *restrict a,
                       const double *restrict b, long sz0, long sz1, const double *j)
{
    const double j00 = j[0], j01 = j[1], j10 = j[2], j11 = j[3];
    long z = oz0;
    if (z == sz0 && z <= oz1) {                 /* z - 1 lies outside */
        out[0] = j00 * a[0] + j10 * b[0];
        z++;
    }
    const long hi = oz1 < sz1 ? oz1 : sz1;      /* z and z - 1 inside */
    if (z <= hi) {
        double *restrict o = out + (z - oz0);
        const double *restrict ap = a + (z - sz0), *restrict bp = b + (z - sz0);
        const long count = hi - z + 1;
        long i = 0;
#if defined(__GNUC__)
        /* two cells at a time in GCC's generic vectors (-O2 vectorises
         * neither this loop, which needs an epilogue, nor its unrolled
         * pairs): the same products and sums per cell, in the same order */
        typedef double pair_t __attribute__((vector_size(2 * sizeof(double))));
        const pair_t k00 = {j00, j00}, k01 = {j01, j01}, k10 = {j10, j10}, k11 = {j11, j11};
        for (; i + 2 <= count; i += 2) {
            pair_t a_now, a_before, b_now, b_before;
            memcpy(&a_now, ap + i, sizeof a_now);
            memcpy(&a_before, ap + i - 1, sizeof a_before);
            memcpy(&b_now, bp + i, sizeof b_now);
            memcpy(&b_before, bp + i - 1, sizeof b_before);
            const pair_t cell = (k00 * a_now + k01 * a_before) + (k10 * b_now + k11 * b_before);
            memcpy(o + i, &cell, sizeof cell);
        }
#endif
        for (; i < count; i++) {
            o[i] = (j00 * ap[i] + j01 * ap[i - 1]) + (j10 * bp[i] + j11 * bp[i - 1]);
        }
        z = hi + 1;
    }
    if (z == sz1 + 1 && z <= oz1) {             /* z lies outside */
        out[z - oz0] = j01 * a[z - 1 - sz0] + j11 * b[z - 1 - sz0];
    }
}

/* dst = src times one record of j, on its support inside [ny0, ny1] x
 * [nz0, nz1] (dst->v holds enough cells; `zero`: a row of zeros at least
 * as wide as src). */
static void plane_record(const plane *src, const double *j, long ny0, long ny1, long nz0,
                         long nz1, const double *zero, plane *dst)
{
    dst->y0 = src->y0 > ny0 ? src->y0 : ny0;
    dst->y1 = src->y1 + 1 < ny1 ? src->y1 + 1 : ny1;
    dst->z0 = src->z0 > nz0 ? src->z0 : nz0;
    dst->z1 = src->z1 + 1 < nz1 ? src->z1 + 1 : nz1;
    if (plane_cells(src) == 0 || plane_cells(dst) == 0) {
        dst->y1 = dst->y0 - 1;
        return;
    }
    const long sw = src->stride, dw = dst->z1 - dst->z0 + 1;
    dst->stride = dw;
    for (long y = dst->y0; y <= dst->y1; y++) {
        const double *a = y <= src->y1 ? src->v + (y - src->y0) * sw : zero;
        const double *b = y - 1 >= src->y0 ? src->v + (y - 1 - src->y0) * sw : zero;
        record_row(dst->v + (y - dst->y0) * dw, dst->z0, dst->z1, a, b, src->z0, src->z1, j);
    }
}

/* Whether row r of p holds a cell >= floor_. */
static int row_live(const plane *p, long r, double floor_)
{
    const double *row = p->v + r * p->stride;
    const long w = p->z1 - p->z0 + 1;
    int live = 0;
    for (long z = 0; z < w; z++) {
        live |= row[z] >= floor_;
    }
    return live;
}

/* Whether column z of rows [first, last] of p holds a cell >= floor_. */
static int column_live(const plane *p, long z, long first, long last, double floor_)
{
    for (long r = first; r <= last; r++) {
        if (p->v[r * p->stride + z] >= floor_) {
            return 1;
        }
    }
    return 0;
}

/* Shrink p to the rectangle of its cells >= floor_ (v moved inside the same
 * rows, the stride kept); every cell cut is below floor_ and reaches the
 * law with at most the weight `scale`, so *dropped grows by their count
 * times floor_ scale, a bound on the mass cut.  The rectangle's sides are
 * found from the plane's edges inward (its rows and columns are read only
 * up to the first that holds such a cell: a trim after every record reads
 * little more than the new edges). */
static void plane_trim(plane *p, double floor_, double scale, double *dropped)
{
    const long cells = plane_cells(p);
    if (cells == 0) {
        return;
    }
    const long w = p->z1 - p->z0 + 1, h = p->y1 - p->y0 + 1;
    long first = 0;
    while (first < h && !row_live(p, first, floor_)) {
        first++;
    }
    if (first == h) {
        *dropped += (double)cells * floor_ * scale;
        p->y1 = p->y0 - 1;
        return;
    }
    long last = h - 1;
    while (last > first && !row_live(p, last, floor_)) {
        last--;
    }
    long zf = 0, zl = w - 1;
    while (!column_live(p, zf, first, last, floor_)) {
        zf++;
    }
    while (!column_live(p, zl, first, last, floor_)) {
        zl--;
    }
    p->v += first * p->stride + zf;
    p->y0 += first;
    p->y1 = p->y0 + (last - first);
    p->z1 = p->z0 + zl;
    p->z0 += zf;
    *dropped += (double)(cells - plane_cells(p)) * floor_ * scale;
}

/* The state of the tree of the k = 3 box (the k = 2 tree's split, on
 * planes): a node [lo, hi] of slices m holds its base, the law of (c2, c3)
 * of lo records answering a1 = 1 and N - hi answering a1 = 0. */
typedef struct {
    long m_lo, b_lo, b_hi, c_lo, c_hi;
    double j1[4], j0[4];          /* (a2, a3) given a1 = 1, given a1 = 0 */
    double cut_floor;             /* e^-cut: a cell of the law below it is cut */
    double dropped;
    const long double *weight;    /* Bin(N, p1)(m), m = m_lo .. m_hi */
    double *zero;                 /* N + 2 doubles */
    double *slice;                /* where the next slice goes (box rows x cols) */
    int zero_fill;                /* zero the slice outside its rectangle */
    int threads;                  /* sp_corr_box's */
    /* receives each slice and the rectangle of its non-zero cells (rows
     * r0, r1, columns t0, t1 of the box; r0 > r1: none) */
    double *(*emit)(void *ctx, long m, double *slice, const long *rect);
    void *ctx;
    /* two buffers a depth of the tree (depth 0: the root's chain), grown as
     * needed: a plane lives in one until its subtree is done */
    double *pool[2 * 66];
    long capacity[2 * 66];
    int failed;
} box_tree;


/* Buffer `which` of depth `depth` with room for `size` doubles, or NULL. */
static double *pool_buffer(box_tree *t, int depth, int which, long size)
{
    const int slot = 2 * depth + which;
    if (t->capacity[slot] < size) {
        free(t->pool[slot]);
        t->pool[slot] = malloc((size_t)size * sizeof(double));
        t->capacity[slot] = t->pool[slot] != NULL ? size : 0;
    }
    return t->pool[slot];
}

/* base times `count` >= 1 records of j, each step on the part that can
 * still reach [ny0, ny1] x [nz0, nz1] after the steps left (each record
 * moves y and z up by 0 or 1: exact), cut below floor_ (its cells reach
 * the law with weight <= scale); in depth's buffers (v = NULL out of
 * memory). */
static plane add_records(box_tree *t, int depth, const plane *base, const double *j, long count,
                         long ny0, long ny1, long nz0, long nz1, double floor_, double scale)
{
    plane cur = *base, next = {NULL, 0, -1, 0, -1, 1};
    const long ylo = base->y0 > ny0 - count ? base->y0 : ny0 - count;
    const long yhi = base->y1 + count < ny1 ? base->y1 + count : ny1;
    const long zlo = base->z0 > nz0 - count ? base->z0 : nz0 - count;
    const long zhi = base->z1 + count < nz1 ? base->z1 + count : nz1;
    const long size = (yhi >= ylo && zhi >= zlo ? (yhi - ylo + 1) * (zhi - zlo + 1) : 0) + 1;
    double *buf[2] = {pool_buffer(t, depth, 0, size), pool_buffer(t, depth, 1, size)};
    if (buf[0] == NULL || buf[1] == NULL) {
        return next;
    }
    for (long s = 1; s <= count; s++) {
        const long left = count - s;
        next.v = buf[s % 2];
        plane_record(&cur, j, ny0 - left, ny1, nz0 - left, nz1, t->zero, &next);
        plane_trim(&next, floor_, scale, &t->dropped);
        cur = next;
    }
    return cur;
}

/* A node's slices reach the law with weight Bin(N, p1)(m) each: a cell of
 * its planes below e^-cut / (their largest weight) is cut, and counts with
 * the weights' sum. */
static void node_floor(const box_tree *t, long lo, long hi, double *floor_, double *scale)
{
    long double top = 0.0L, sum = 0.0L;
    for (long m = lo; m <= hi; m++) {
        const long double w = t->weight[m - t->m_lo];
        top = w > top ? w : top;
        sum += w;
    }
    *floor_ = top > 0.0L ? t->cut_floor / (double)top : INFINITY;
    *scale = (double)sum;
}

static void box_node(box_tree *t, int depth, const plane *base, long lo, long hi);

/* One child of node [lo, hi] (split at mid): side 0 [lo, mid] adds hi - mid
 * records answering a1 = 0, side 1 [mid + 1, hi] adds mid + 1 - lo
 * answering a1 = 1; each child's slices add at most (its rows - 1)
 * records more.  The planes it builds live in t's buffers of depth + 1 and
 * below: base is only read. */
static void box_child(box_tree *t, int depth, const plane *base, long lo, long hi, long mid,
                      int side)
{
    const long c_lo = side ? mid + 1 : lo, c_hi = side ? hi : mid, reach = c_hi - c_lo;
    double floor_, scale;
    node_floor(t, c_lo, c_hi, &floor_, &scale);
    plane child = add_records(t, depth + 1, base, side ? t->j1 : t->j0,
                              side ? mid + 1 - lo : hi - mid, t->b_lo - reach, t->b_hi,
                              t->c_lo - reach, t->c_hi, floor_, scale);
    if (child.v == NULL) {
        t->failed = 1;
        return;
    }
    box_node(t, depth + 1, &child, c_lo, c_hi);
}

static void box_node(box_tree *t, int depth, const plane *base, long lo, long hi)
{
    if (t->failed) {
        return;
    }
    const long width = t->c_hi - t->c_lo + 1;
    if (lo == hi) {            /* the slice: Bin(N, p1)(m) times the base, on the box */
        const double w = (double)t->weight[lo - t->m_lo];
        double *dst = t->slice;
        if (t->zero_fill) {    /* (the sums read a slice inside its rectangle only) */
            const long cells = (t->b_hi - t->b_lo + 1) * width;
            for (long i = 0; i < cells; i++) {
                dst[i] = 0.0;
            }
        }
        const long y0 = base->y0 > t->b_lo ? base->y0 : t->b_lo;
        const long y1 = base->y1 < t->b_hi ? base->y1 : t->b_hi;
        const long z0 = base->z0 > t->c_lo ? base->z0 : t->c_lo;
        const long z1 = base->z1 < t->c_hi ? base->z1 : t->c_hi;
        long rect[4] = {0, -1, 0, -1};
        if (plane_cells(base) > 0 && y0 <= y1 && z0 <= z1) {
            const long bw = base->stride;
            rect[0] = y0 - t->b_lo;
            rect[1] = y1 - t->b_lo;
            rect[2] = z0 - t->c_lo;
            rect[3] = z1 - t->c_lo;
            for (long y = y0; y <= y1; y++) {
                const double *src = base->v + (y - base->y0) * bw + (z0 - base->z0);
                double *row = dst + (y - t->b_lo) * width + (z0 - t->c_lo);
                for (long z = 0; z <= z1 - z0; z++) {
                    row[z] = w * src[z];
                }
            }
        }
        t->slice = t->emit(t->ctx, lo, dst, rect);
        return;
    }
    const long mid = lo + (hi - lo) / 2;
    box_child(t, depth, base, lo, hi, mid, 0);
    box_child(t, depth, base, lo, hi, mid, 1);
}

/* Where a run's slices go: the first at `first`, each handed to emit (which
 * returns where the next goes). */
typedef struct {
    double *first;
    double *(*emit)(void *ctx, long m, double *slice, const long *rect);
    void *ctx;
} slice_sink;

/* The root's second half [mid + 1, m_hi] in a tree of its own (its own
 * buffers, sink and cut bound; the root plane and the weights are shared
 * and only read), so that it can run in a second thread. */
typedef struct {
    box_tree t;
    const plane *root;
    long lo, hi, mid;
} box_half;

static void *run_half(void *arg)
{
    box_half *h = (box_half *)arg;
    box_child(&h->t, 0, h->root, h->lo, h->hi, h->mid, 1);
    return NULL;
}

static void free_pool(box_tree *t)
{
    for (int i = 0; i < 2 * 66; i++) {
        free(t->pool[i]);
        t->pool[i] = NULL;
        t->capacity[i] = 0;
    }
}

/* The root node [m_lo, m_hi]: its two halves are independent (each reads
 * the root plane only), so with t->threads = 2 the second runs in a
 * thread of its own, in a tree of its own (where threads exist and one
 * starts; else after the first: the same arithmetic; t->threads = 1: after
 * the first in t's buffers, the caller's memory bound): the box's time is ~95% the tree's below the root, split
 * 0.61 / 0.51 s of CPU between the halves at n = 1e3 (one delta 1.14 s of
 * CPU, ~0.65 s on two cores).  Slices [m_lo, mid] go to sinks[0], [mid + 1,
 * m_hi] to sinks[1]; t->dropped gains the second half's bound. */
static void root_node(box_tree *t, const plane *root, long hi, const slice_sink *sinks)
{
    const long lo = t->m_lo;
    if (lo == hi) {
        box_node(t, 0, root, lo, hi);
        return;
    }
    const long mid = lo + (hi - lo) / 2;
    if (t->threads < 2) {      /* in turn, in the same buffers */
        box_child(t, 0, root, lo, hi, mid, 0);
        t->slice = sinks[1].first;
        t->emit = sinks[1].emit;
        t->ctx = sinks[1].ctx;
        box_child(t, 0, root, lo, hi, mid, 1);
        return;
    }
    box_half half;
    half.t = *t;
    for (int i = 0; i < 2 * 66; i++) {
        half.t.pool[i] = NULL;
        half.t.capacity[i] = 0;
    }
    half.t.dropped = 0.0;
    half.t.slice = sinks[1].first;
    half.t.emit = sinks[1].emit;
    half.t.ctx = sinks[1].ctx;
    half.root = root;
    half.lo = lo;
    half.hi = hi;
    half.mid = mid;
    int threaded = 0;
#ifdef SP_CORR_THREADS
    pthread_t thread;
    threaded = pthread_create(&thread, NULL, run_half, &half) == 0;
#endif
    box_child(t, 0, root, lo, hi, mid, 0);
#ifdef SP_CORR_THREADS
    if (threaded) {
        pthread_join(thread, NULL);
    }
#endif
    if (!threaded) {
        run_half(&half);
    }
    t->dropped += half.t.dropped;
    t->failed |= half.t.failed;
    free_pool(&half.t);
}

/* Build the box's slices m_lo .. m_hi, [m_lo, mid] in order into
 * sinks[0] and [mid + 1, m_hi] in order into sinks[1] (mid = m_lo +
 * (m_hi - m_lo) / 2; the two may run at once, root_node).  Returns 0, -1 out of memory, -2 for bad arguments; *dropped: the bound
 * on the mass cut below the floors. */
static int box_run(const sp_corr_box *box, int zero_fill, const slice_sink *sinks,
                   double *dropped)
{
    const long N = box->N;
    if (N < 0 || box->m_lo < 0 || box->m_hi > N || box->m_lo > box->m_hi || box->b_lo < 0
        || box->b_hi > N || box->b_lo > box->b_hi || box->c_lo < 0 || box->c_hi > N
        || box->c_lo > box->c_hi || !(box->cut > 0.0)) {
        return -2;
    }
    long double one = 0.0L, zero_ = 0.0L;
    for (int v = 0; v < 8; v++) {
        if (!(box->joint[v] >= 0.0)) {
            return -2;
        }
        if (v < 4) {
            zero_ += box->joint[v];
        } else {
            one += box->joint[v];
        }
    }
    const long double total = one + zero_;
    if (!(total > 0.0L)) {
        return -2;
    }
    box_tree t;
    for (int v = 0; v < 4; v++) {   /* the conditional laws (zero if never answered) */
        t.j1[v] = one > 0.0L ? (double)(box->joint[4 + v] / one) : 0.0;
        t.j0[v] = zero_ > 0.0L ? (double)(box->joint[v] / zero_) : 0.0;
    }
    t.m_lo = box->m_lo;
    t.b_lo = box->b_lo;
    t.b_hi = box->b_hi;
    t.c_lo = box->c_lo;
    t.c_hi = box->c_hi;
    t.cut_floor = exp(-box->cut);
    t.dropped = 0.0;
    t.slice = sinks[0].first;
    t.zero_fill = zero_fill;
    t.threads = box->threads;
    t.emit = sinks[0].emit;
    t.ctx = sinks[0].ctx;
    t.failed = 0;
    for (int i = 0; i < 2 * 66; i++) {
        t.pool[i] = NULL;
        t.capacity[i] = 0;
    }
    const long rows = box->m_hi - box->m_lo + 1;
    long double *weight = malloc((size_t)(N + 1) * sizeof(long double));
    double *scratch = calloc((size_t)(N + 2), sizeof(double));
    int rc = 0;
    if (weight == NULL || scratch == NULL) {
        rc = -1;
    } else {
        t.zero = scratch;
        binom_window(N, one / total, zero_ / total, box->m_lo, box->m_hi, weight);
        t.weight = weight;
        /* the root: m_lo records answering a1 = 1, then N - m_hi answering
         * 0, from the point mass at (0, 0) (in depth 0's buffers; the
         * chain's first half ends in depth 65's) */
        double point = 1.0, floor_, scale;
        node_floor(&t, box->m_lo, box->m_hi, &floor_, &scale);
        plane root = {&point, 0, 0, 0, 0, 1};
        const long rest = N - box->m_hi;
        if (box->m_lo > 0) {
            root = add_records(&t, 65, &root, t.j1, box->m_lo, box->b_lo - (rows - 1) - rest,
                               box->b_hi, box->c_lo - (rows - 1) - rest, box->c_hi, floor_,
                               scale);
        }
        if (root.v != NULL && rest > 0) {
            root = add_records(&t, 0, &root, t.j0, rest, box->b_lo - (rows - 1), box->b_hi,
                               box->c_lo - (rows - 1), box->c_hi, floor_, scale);
        }
        if (root.v != NULL) {
            root_node(&t, &root, box->m_hi, sinks);
        }
        rc = root.v == NULL || t.failed ? -1 : 0;
    }
    free_pool(&t);
    free(weight);
    free(scratch);
    *dropped = t.dropped;
    return rc;
}

static double *store_slice(void *ctx, long m, double *slice, const long *rect)
{
    (void)m;
    (void)rect;
    return slice + *(const long *)ctx;      /* the next slice follows */
}

int sp_corr_three_box_law(const sp_corr_box *box, double *out, double *dropped)
{
    if (box == NULL || out == NULL || dropped == NULL) {
        return -2;
    }
    long cells = (box->b_hi - box->b_lo + 1) * (box->c_hi - box->c_lo + 1);
    const long mid = box->m_lo + (box->m_hi - box->m_lo) / 2;
    const slice_sink sinks[2] = {{out, store_slice, &cells},
                                 {out + (mid + 1 - box->m_lo) * cells, store_slice, &cells}};
    return box_run(box, 1, sinks, dropped);
}

/* The sums of sp_corr_box_sums as the slices arrive, one sink a half of
 * the box (box_run): slice m pairs with m + d1, so when m arrives the
 * terms of m (d1 = 0, -1) and of m - 1 (d1 = +1) are found, each over its
 * slice's non-zero rectangle, and kept as that arrival's row of `terms`
 * (2 count a row, rows + 1 rows: the last for the last slice's partners
 * outside the box), to be summed in order of m at the end (the same
 * additions, in the same order, as one pass: the halves' split leaves the
 * sums' bits alone).  The second half's first slice pairs with the first
 * half's last: that arrival's d1 != 0 terms are found after both halves
 * (box_sums_join), its slice kept in buf[0] meanwhile. */
typedef struct {
    const sp_corr_box *box;
    long cols;
    double e;
    double *terms;
    int joins;               /* the second half: the first slice's partner is the other's */
    double *buf[3];          /* two slices alternating; the second half keeps buf[0] */
    const double *prev;
    long prev_rect[4];
    long first_rect[4];
} box_sums;

/* pair_sum over the non-zero rectangle of `law`, its partner `other` zero
 * outside its own (orect). */
static double slice_sum(const box_sums *s, const double *law, const long *rect,
                        const double *other, const long *orect, long d_row, long d_col)
{
    return pair_sum(law, other, orect, s->cols, rect[0], rect[1], rect[2], rect[3], d_row,
                    d_col, s->e, NULL, 0);
}

/* shift i's d in direction `sign` (1: -d) */
static void signed_shift(const sp_corr_box *box, long i, int sign, long *d)
{
    for (int j = 0; j < 3; j++) {
        d[j] = sign ? -box->shifts[3 * i + j] : box->shifts[3 * i + j];
    }
}

static double *sum_slice(void *ctx, long m, double *slice, const long *rect)
{
    box_sums *s = (box_sums *)ctx;
    double *terms = s->terms + 2 * s->box->count * (m - s->box->m_lo);
    const int first = s->prev == NULL;
    for (long i = 0; i < s->box->count; i++) {
        for (int sign = 0; sign < 2; sign++) {
            long d[3];
            signed_shift(s->box, i, sign, d);
            double add = 0.0;
            if (d[0] == 0) {
                add = slice_sum(s, slice, rect, slice, rect, d[1], d[2]);
            } else if (first && s->joins) {
                add = 0.0;          /* box_sums_join */
            } else if (d[0] < 0) {
                add = slice_sum(s, slice, rect, s->prev, s->prev_rect, d[1], d[2]);
            } else if (!first) {
                add = slice_sum(s, s->prev, s->prev_rect, slice, rect, d[1], d[2]);
            }
            terms[2 * i + sign] = add;
        }
    }
    s->prev = slice;
    for (int i = 0; i < 4; i++) {
        s->prev_rect[i] = rect[i];
        if (first) {
            s->first_rect[i] = rect[i];
        }
    }
    if (s->joins) {
        return slice == s->buf[1] ? s->buf[2] : s->buf[1];
    }
    return slice == s->buf[0] ? s->buf[1] : s->buf[0];
}

/* The terms of the second half's first slice (buf[0], m = mid + 1) with
 * the first half's last (its prev, m = mid), in that arrival's row. */
static void box_sums_join(const box_sums *before, const box_sums *after, long mid)
{
    const sp_corr_box *box = before->box;
    double *terms = after->terms + 2 * box->count * (mid + 1 - box->m_lo);
    for (long i = 0; i < box->count; i++) {
        for (int sign = 0; sign < 2; sign++) {
            long d[3];
            signed_shift(box, i, sign, d);
            if (d[0] < 0) {
                terms[2 * i + sign] = slice_sum(after, after->buf[0], after->first_rect,
                                                before->prev, before->prev_rect, d[1], d[2]);
            } else if (d[0] > 0) {
                terms[2 * i + sign] = slice_sum(before, before->prev, before->prev_rect,
                                                after->buf[0], after->first_rect, d[1], d[2]);
            }
        }
    }
}

int sp_corr_box_sums(const sp_corr_box *box, double e, double *sums, double *dropped)
{
    if (box == NULL || sums == NULL || dropped == NULL || box->count < 0
        || (box->count > 0 && box->shifts == NULL)) {
        return -2;
    }
    const long rows = box->b_hi - box->b_lo + 1, cols = box->c_hi - box->c_lo + 1;
    const long slices = box->m_hi - box->m_lo + 1, row = 2 * box->count;
    for (long i = 0; i < row; i++) {
        sums[i] = 0.0;
    }
    if (rows < 1 || cols < 1 || slices < 1) {
        return -2;
    }
    box_sums half[2];
    for (int h = 0; h < 2; h++) {
        half[h].box = box;
        half[h].cols = cols;
        half[h].e = e;
        half[h].joins = h;
        half[h].prev = NULL;
        for (int i = 0; i < 4; i++) {
            half[h].prev_rect[i] = half[h].first_rect[i] = 0;
        }
    }
    /* five slices (two for the first half, three for the second) and the terms */
    double *space = malloc((size_t)(5 * rows * cols + row * (slices + 1)) * sizeof(double));
    if (space == NULL) {
        return -1;
    }
    for (int i = 0; i < 5; i++) {
        double *slice = space + i * rows * cols;
        if (i < 2) {
            half[0].buf[i] = slice;
        } else {
            half[1].buf[i - 2] = slice;
        }
    }
    half[0].buf[2] = NULL;
    half[0].terms = half[1].terms = space + 5 * rows * cols;
    for (long i = 0; i < row * (slices + 1); i++) {
        half[0].terms[i] = 0.0;
    }
    const slice_sink sinks[2] = {{half[0].buf[0], sum_slice, &half[0]},
                                 {half[1].buf[0], sum_slice, &half[1]}};
    const int rc = box_run(box, 0, sinks, dropped);
    if (rc == 0) {
        const box_sums *last = &half[0];
        if (slices > 1) {
            box_sums_join(&half[0], &half[1], box->m_lo + (box->m_hi - box->m_lo) / 2);
            last = &half[1];
        }
        /* the last slice's partners m_hi + 1 lie outside: zero */
        double *terms = half[0].terms + row * slices;
        for (long i = 0; i < box->count; i++) {
            for (int sign = 0; sign < 2; sign++) {
                long d[3];
                signed_shift(box, i, sign, d);
                if (d[0] > 0) {
                    terms[2 * i + sign] = slice_sum(last, last->prev, last->prev_rect, NULL,
                                                    NULL, 0, 0);
                }
            }
        }
        for (long a = 0; a <= slices; a++) {
            for (long i = 0; i < row; i++) {
                sums[i] += half[0].terms[row * a + i];
            }
        }
    }
    free(space);
    return rc;
}

double sp_corr_box_log_delta(double eps, sp_direction direction, const void *ctx)
{
    const sp_corr_box *box = (const sp_corr_box *)ctx;
    if (isnan(eps)) {
        return eps;
    }
    double stack[2 * 16], *sums = box->count <= 16 ? stack
                                  : malloc((size_t)(2 * box->count) * sizeof(double));
    double dropped = 0.0;
    if (sums == NULL || sp_corr_box_sums(box, exp(eps), sums, &dropped) != 0) {
        if (sums != stack) {
            free(sums);
        }
        return NAN;
    }
    double total = 0.0;
    for (long i = 0; i < box->count; i++) {
        const double plus = sums[2 * i], minus = sums[2 * i + 1];
        const double v = direction == SP_PLUS ? plus
                         : direction == SP_MINUS ? minus : (plus > minus ? plus : minus);
        total = v > total ? v : total;
    }
    if (sums != stack) {
        free(sums);
    }
    total += box->tail + dropped;
    total = total < 1.0 ? total : 1.0;
    return total > 0.0 ? log(total) : -INFINITY;
}
