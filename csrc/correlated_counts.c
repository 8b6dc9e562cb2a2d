#include <stddef.h>
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
