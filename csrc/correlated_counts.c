#include <stddef.h>
#include <math.h>
#include "correlated_counts.h"

/* Visit the box [0, extent]^k of a lattice with the given strides: the
 * flat index of each row start (coordinate k fixed at 0), rows of
 * extent + 1 contiguous atoms.  Returns the next row start, or -1 after
 * the last; c holds the coordinates 1..k-1 of the row (c[k-1] unused). */
static long next_row(long k, long extent, const long *stride, long *c)
{
    long j = k - 2;
    while (j >= 0 && c[j] == extent) {
        c[j] = 0;
        j--;
    }
    if (j < 0) {
        return -1;
    }
    c[j]++;
    long s = 0;
    for (long i = 0; i < k - 1; i++) {
        s += c[i] * stride[i];
    }
    return s;
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
    /* the nonzero cells: their probability and flat offset */
    long double prob[1 << SP_CORR_MAX_K];
    long offset[1 << SP_CORR_MAX_K];
    int cells = 0;
    for (long v = 0; v < (1L << k); v++) {
        if (!(joint[v] >= 0.0)) {
            return -2;
        }
        if (joint[v] == 0.0) {
            continue;
        }
        prob[cells] = (long double)joint[v];
        offset[cells] = 0;
        for (long j = 0; j < k; j++) {
            offset[cells] += ((v >> (k - 1 - j)) & 1) * stride[j];
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
    out[0] = 1.0L;
    long double log_scale = 0.0L;
    long double *cur = out, *nxt = work;
    for (long i = 1; i <= N; i++) {
        long c[SP_CORR_MAX_K];
        /* nxt = 0 on [0, i]^k (it held L_{i-2} on [0, i-2]^k) */
        for (long j = 0; j < k; j++) {
            c[j] = 0;
        }
        for (long s = 0; s >= 0; s = next_row(k, i, stride, c)) {
            for (long t = 0; t <= i; t++) {
                nxt[s + t] = 0.0L;
            }
        }
        /* nxt(s + v) += joint(v) cur(s) over s in [0, i-1]^k, row by row */
        for (int cell = 0; cell < cells; cell++) {
            const long double pv = prob[cell];
            long double *dst = nxt + offset[cell];
            for (long j = 0; j < k; j++) {
                c[j] = 0;
            }
            for (long s = 0; s >= 0; s = next_row(k, i - 1, stride, c)) {
                for (long t = 0; t < i; t++) {
                    dst[s + t] += pv * cur[s + t];
                }
            }
        }
        /* rescale [0, i]^k to its largest atom */
        long double mx = 0.0L;
        for (long j = 0; j < k; j++) {
            c[j] = 0;
        }
        for (long s = 0; s >= 0; s = next_row(k, i, stride, c)) {
            for (long t = 0; t <= i; t++) {
                mx = nxt[s + t] > mx ? nxt[s + t] : mx;
            }
        }
        if (mx > 0.0L && mx != 1.0L) {
            const long double inv = 1.0L / mx;
            for (long j = 0; j < k; j++) {
                c[j] = 0;
            }
            for (long s = 0; s >= 0; s = next_row(k, i, stride, c)) {
                for (long t = 0; t <= i; t++) {
                    nxt[s + t] *= inv;
                }
            }
            log_scale += logl(mx);
        }
        long double *swap = cur;
        cur = nxt;
        nxt = swap;
    }
    for (long s = 0; s < total; s++) {
        out[s] = cur[s] > 0.0L ? logl(cur[s]) + log_scale : -INFINITY;
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
