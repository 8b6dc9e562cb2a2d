#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "poisson_binomial.h"
#include "pmf.h"

typedef struct {
    long off;            /* the first atom */
    long len;
    long double *v;      /* pmf values, linear */
} sp_poly;

/* First k in [lo, hi] with ln b(k) >= floor_ (ln b non-decreasing up to hi). */
static long first_at_least(const sp_binom *b, long lo, long hi, double floor_)
{
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (sp_log_binom_pmf(b, (double)mid) >= floor_) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return lo;
}

/* Last k in [lo, hi] with ln b(k) >= floor_ (ln b non-increasing from lo). */
static long last_at_least(const sp_binom *b, long lo, long hi, double floor_)
{
    while (lo < hi) {
        long mid = hi - (hi - lo) / 2;
        if (sp_log_binom_pmf(b, (double)mid) >= floor_) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    return lo;
}

/* The spacing of the long double subnormals (C11's LDBL_TRUE_MIN). */
#define SUBNORMAL_SPACING (LDBL_MIN * LDBL_EPSILON)

/* An upper bound on `atoms` atoms of at most e^log_atom each.  Below the
 * long double range (e^-11355) expl rounds to a subnormal or to 0, and a cut
 * that rounded to 0 would vanish from *rest: e.g. the top atom of 8 records
 * at pi = 1e-300 and 8 at 5e-324, e^-11481.7.  Half a subnormal spacing is
 * the most the rounding can lose; a whole one is added. */
static long double cut_bound(long double atoms, double log_atom)
{
    long double v = expl((long double)log_atom);
    return atoms * (v < LDBL_MIN ? v + SUBNORMAL_SPACING : v);
}

/* Bin(c, p) on its window; the cut tails' mass bound is added to *rest. */
static int leaf(double p, long c, double drop, long max_len, sp_poly *out, long double *rest)
{
    if (c == 1) {                 /* a single record: both atoms, exactly */
        out->v = malloc(2 * sizeof *out->v);
        if (out->v == NULL) {
            return -1;
        }
        out->off = 0;
        out->len = 2;
        out->v[0] = 1.0L - (long double)p;
        out->v[1] = (long double)p;
        return 0;
    }
    sp_binom b;
    sp_binom_init(&b, (double)c, p, 0);
    long mode = (long)floor(((double)c + 1.0) * p);
    mode = mode < 0 ? 0 : (mode > c ? c : mode);
    double floor_ = sp_log_binom_pmf(&b, (double)mode) - drop;
    long lo = first_at_least(&b, 0, mode, floor_);
    long hi = last_at_least(&b, mode, c, floor_);
    long n = hi - lo + 1;
    if (n > max_len) {
        return -2;
    }
    out->v = malloc((size_t)n * sizeof *out->v);
    if (out->v == NULL) {
        return -1;
    }
    out->off = lo;
    out->len = n;
    sp_binom_window_logl((double)c, p, (double)lo, n, out->v);
    for (long i = 0; i < n; i++) {
        out->v[i] = expl(out->v[i]);
    }
    /* unimodal: every cut atom is at most its neighbour at the window edge */
    if (lo > 0) {
        *rest += cut_bound((long double)lo, sp_log_binom_pmf(&b, (double)(lo - 1)));
    }
    if (hi < c) {
        *rest += cut_bound((long double)(c - hi), sp_log_binom_pmf(&b, (double)(hi + 1)));
    }
    return 0;
}

/* Terms x[i] y[k-i] more than this many nats below the largest term of
 * their output are skipped.  The terms are log-concave in i, so past the cut
 * they fall at least geometrically, with a ratio r whose 1/(1 - r) is at most
 * ~ the terms' spread / sqrt(2 * 45) (< 1e3 for any node up to 1e8 records):
 * the skipped part is < 2e3 e^-45 ~ 6e-17 of the output, and for the
 * windows here (spread <~ 1e2) ~1e-18, the order of the sum's own rounding.
 * A skipped term only makes the output smaller (a sub-measure: see
 * poisson_binomial.h); the relative loss is far inside the 1e-12 contract. */
#ifndef SP_TERM_NATS
#define SP_TERM_NATS 45.0
#endif

/* ln x, ln y in double (logl: values go far below the double range). */
static double *logs_of(const sp_poly *a)
{
    double *l = malloc((size_t)a->len * sizeof *l);
    if (l != NULL) {
        for (long i = 0; i < a->len; i++) {
            l[i] = (double)logl(a->v[i]);
        }
    }
    return l;
}

/* c = a * b by direct convolution, then the ends below e^-drop of the
 * largest atom are cut into *rest.  For each output k the terms
 * f(i) = ln x[i] + ln y[k-i] are concave in i (both nodes are log-concave),
 * so the terms that matter form one interval around the largest, found by
 * bisection; only those are summed.  a and b are freed. */
static int merge(sp_poly *a, sp_poly *b, double drop, long max_len, sp_poly *c, long double *rest,
                 double *work)
{
    const long la = a->len, lb = b->len, n = la + lb - 1;
    long double *v = malloc((size_t)n * sizeof *v);
    double *lx = logs_of(a), *ly = logs_of(b);
    if (v == NULL || lx == NULL || ly == NULL) {
        free(v);
        free(lx);
        free(ly);
        return -1;
    }
    const long double *x = a->v, *y = b->v;
    /* Outputs below the normal range (products of two kept atoms reach
     * e^-22000, far below e^-11355) are sums of products rounded to
     * subnormals, each off by at most half a subnormal spacing (the sums of
     * subnormals are exact): they lie below every node's cut, so they go to
     * *rest, with this much added for the rounding (a top atom that rounded
     * to 0 would otherwise be cut as mass 0). */
    long double underflow = 0.0L;
    for (long k = 0; k < n; k++) {
        long lo = k - (lb - 1) > 0 ? k - (lb - 1) : 0;
        long hi = k < la - 1 ? k : la - 1;
        /* the largest term: first i with f(i+1) < f(i) */
        long s = lo, e = hi;
        while (s < e) {
            long mid = s + (e - s) / 2;
            if (lx[mid + 1] + ly[k - mid - 1] >= lx[mid] + ly[k - mid]) {
                s = mid + 1;
            } else {
                e = mid;
            }
        }
        const double floor_ = lx[s] + ly[k - s] - SP_TERM_NATS;
        long l0 = lo, l1 = s;            /* first i in [lo, s] with f(i) >= floor_ */
        while (l0 < l1) {
            long mid = l0 + (l1 - l0) / 2;
            if (lx[mid] + ly[k - mid] >= floor_) {
                l1 = mid;
            } else {
                l0 = mid + 1;
            }
        }
        long h0 = s, h1 = hi;            /* last i in [s, hi] with f(i) >= floor_ */
        while (h0 < h1) {
            long mid = h1 - (h1 - h0) / 2;
            if (lx[mid] + ly[k - mid] >= floor_) {
                h0 = mid;
            } else {
                h1 = mid - 1;
            }
        }
        /* four partial sums break the x87 add latency chain */
        long double s0 = 0.0L, s1 = 0.0L, s2 = 0.0L, s3 = 0.0L;
        long i = l0;
        for (; i + 3 <= h0; i += 4) {
            s0 += x[i] * y[k - i];
            s1 += x[i + 1] * y[k - i - 1];
            s2 += x[i + 2] * y[k - i - 2];
            s3 += x[i + 3] * y[k - i - 3];
        }
        for (; i <= h0; i++) {
            s0 += x[i] * y[k - i];
        }
        v[k] = (s0 + s1) + (s2 + s3);
        if (v[k] < LDBL_MIN) {
            underflow += (long double)(h0 - l0 + 2) * SUBNORMAL_SPACING;
        }
        *work += (double)(h0 - l0 + 1);
    }
    *rest += underflow;
    free(lx);
    free(ly);
    long double top = 0.0L;
    for (long k = 0; k < n; k++) {
        top = v[k] > top ? v[k] : top;
    }
    const long double thr = top * expl(-(long double)drop);
    long s = 0, e = n - 1;
    while (s < e && v[s] < thr) {
        *rest += v[s++];
    }
    while (e > s && v[e] < thr) {
        *rest += v[e--];
    }
    free(a->v);
    free(b->v);
    a->v = b->v = NULL;
    if (e - s + 1 > max_len) {
        free(v);
        return -2;
    }
    memmove(v, v + s, (size_t)(e - s + 1) * sizeof *v);
    c->off = a->off + b->off + s;
    c->len = e - s + 1;
    c->v = v;
    return 0;
}

int sp_binomial_sum_window(const double *probs, const double *counts, long groups,
                           double drop_nats, long max_len, long double **out, long *first,
                           long *len, long double *rest)
{
    return sp_binomial_sum_window_progress(probs, counts, groups, drop_nats, max_len, out,
                                           first, len, rest, NULL, NULL, 0.0);
}

int sp_binomial_sum_window_progress(const double *probs, const double *counts, long groups,
                                    double drop_nats, long max_len, long double **out,
                                    long *first, long *len, long double *rest,
                                    sp_progress_fn progress, void *ctx, double step)
{
    double work = 0.0;
    *out = NULL;
    *first = 0;
    *len = 0;
    *rest = 0.0L;
    sp_poly *nodes = calloc((size_t)(groups > 0 ? groups : 1), sizeof *nodes);
    if (nodes == NULL) {
        return -1;
    }
    long count = 0;
    int status = 0;
    for (long g = 0; g < groups && status == 0; g++) {
        long c = (long)counts[g];
        if (c > 0 && probs[g] > 0.0 && probs[g] < 1.0) {
            status = leaf(probs[g], c, drop_nats, max_len, &nodes[count], rest);
            count += status == 0;
        }
    }
    if (status == 0 && count == 0) {     /* no random record: S = 0 */
        nodes[0].v = malloc(sizeof *nodes[0].v);
        status = nodes[0].v == NULL ? -1 : 0;
        if (status == 0) {
            nodes[0].off = 0;
            nodes[0].len = 1;
            nodes[0].v[0] = 1.0L;
            count = 1;
        }
    }
    /* balanced product tree: each level merges neighbours, count halves */
    while (status == 0 && count > 1) {
        long next = 0;
        for (long i = 0; i < count && status == 0; i += 2) {
            if (i + 1 < count) {
                status = merge(&nodes[i], &nodes[i + 1], drop_nats, max_len, &nodes[next], rest,
                               &work);
                if (status == 0 && progress != NULL && work >= step) {
                    status = progress(ctx, work) != 0 ? -3 : 0;
                    work = 0.0;
                }
            } else {
                nodes[next] = nodes[i];
            }
            if (next != i && status == 0) {
                nodes[i].v = NULL;
            }
            next++;
        }
        count = next;
    }
    if (status == 0) {
        long double *v = nodes[0].v;
        for (long k = 0; k < nodes[0].len; k++) {
            v[k] = v[k] > 0.0L ? logl(v[k]) : -INFINITY;
        }
        *out = v;
        *first = nodes[0].off;
        *len = nodes[0].len;
        nodes[0].v = NULL;
    }
    for (long i = 0; i < groups; i++) {
        free(nodes[i].v);
    }
    free(nodes);
    return status;
}
