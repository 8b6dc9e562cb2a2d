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
