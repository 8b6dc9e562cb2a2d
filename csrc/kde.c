/* Hockey-stick integrals of kernel density estimates; see kde.h. */
#include "kde.h"

#include <math.h>
#include <stdlib.h>

/* ------------------------------------------------------------------ */
/* Laplace kernels of one scale: exact, piecewise exponentials          */

/* int_0^h (alpha e^{-u/s} + beta e^{-(h-u)/s})_+ du.
 * With one sign change at u0 (alpha e^{-u0/s} = -beta e^{-(h-u0)/s}) the
 * integrand is -2 alpha r sinh((u - u0)/s), r = e^{-u0/s}, whose integral over
 * [0, u0] is alpha s (1 - e^{-u0/s})^2: no cancellation. */
static double piece_positive(double alpha, double beta, double h, double s)
{
    double hs = h / s;
    if (alpha >= 0.0 && beta >= 0.0)
        return -(alpha + beta) * s * expm1(-hs);
    if (alpha <= 0.0 && beta <= 0.0)
        return 0.0;
    /* u0 = (h + s ln(-alpha/beta)) / 2 */
    double us = 0.5 * (hs + log(-alpha / beta));   /* u0/s */
    if (alpha > 0.0) {          /* positive on [0, u0] */
        if (us <= 0.0)
            return 0.0;
        if (us >= hs)
            return -(alpha + beta) * s * expm1(-hs);
        double e = expm1(-us);
        return alpha * s * e * e;
    }
    /* alpha < 0 < beta: positive on [u0, h] */
    if (us >= hs)
        return 0.0;
    if (us <= 0.0)
        return -(alpha + beta) * s * expm1(-hs);
    double e = expm1(-(hs - us));
    return beta * s * e * e;
}

int sp_kde_laplace_delta(const double *a, size_t n, const double *rows, size_t m,
                         size_t count, double s, double eps,
                         double *out_plus, double *out_minus)
{
    size_t K = n + m;
    double *t = malloc(K * sizeof *t);
    double *dp = malloc(K * sizeof *dp);
    double *dq = malloc(K * sizeof *dq);
    double *bp = malloc(K * sizeof *bp);
    double *bq = malloc(K * sizeof *bq);
    if (!t || !dp || !dq || !bp || !bq) {
        free(t); free(dp); free(dq); free(bp); free(bq);
        return -1;
    }
    double c = exp(eps);
    double wp = 1.0 / (2.0 * s * (double)n), wq = 1.0 / (2.0 * s * (double)m);
    for (size_t k = 0; k < count; k++) {
        const double *b = rows + k * m;
        /* merge the two sorted sets into knots */
        size_t i = 0, j = 0, l = 0;
        while (i < n || j < m) {
            if (j >= m || (i < n && a[i] <= b[j])) {
                t[l] = a[i++]; dp[l] = wp; dq[l] = 0.0;
            } else {
                t[l] = b[j++]; dp[l] = 0.0; dq[l] = wq;
            }
            l++;
        }
        /* backward sums B_l = sum over knots >= l of weight e^{-(t_j - t_l)/s} */
        bp[K - 1] = dp[K - 1];
        bq[K - 1] = dq[K - 1];
        for (size_t r = K - 1; r-- > 0;) {
            double e = exp(-(t[r + 1] - t[r]) / s);
            bp[r] = bp[r + 1] * e + dp[r];
            bq[r] = bq[r + 1] * e + dq[r];
        }
        /* left tail x < t_0: densities bp[0] e^{-(t_0 - x)/s}, bq[0] ... */
        double plus = s * fmax(bp[0] - c * bq[0], 0.0);
        double minus = s * fmax(bq[0] - c * bp[0], 0.0);
        double fp = 0.0, fq = 0.0;   /* forward sums at t_l */
        for (size_t r = 0; r < K; r++) {
            if (r > 0) {
                double e = exp(-(t[r] - t[r - 1]) / s);
                fp *= e;
                fq *= e;
            }
            fp += dp[r];
            fq += dq[r];
            if (r + 1 < K) {
                double h = t[r + 1] - t[r];
                if (h > 0.0) {
                    plus += piece_positive(fp - c * fq, bp[r + 1] - c * bq[r + 1], h, s);
                    minus += piece_positive(fq - c * fp, bq[r + 1] - c * bp[r + 1], h, s);
                }
            }
        }
        /* right tail */
        plus += s * fmax(fp - c * fq, 0.0);
        minus += s * fmax(fq - c * fp, 0.0);
        out_plus[k] = plus;
        out_minus[k] = minus;
    }
    free(t); free(dp); free(dq); free(bp); free(bq);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Kernels with a width per point: certified adaptive integration       */

#define SP_KDE_TAIL 40.0      /* domain: every point +- 40 widths */
#define SP_KDE_MAXDEPTH 200

typedef struct {
    enum sp_kernel kernel;
    const double *x;
    const double *w;
    size_t n;
} kset;

/* kernel density at distance d >= 0, width w */
static double kern(enum sp_kernel kernel, double d, double w)
{
    double z = d / w;
    if (kernel == SP_KERNEL_GAUSS)
        return exp(-0.5 * z * z) * (0.3989422804014327 / w);
    return exp(-z) * (0.5 / w);
}

/* upper tail 1 - F(z) of the unit kernel */
static double upper(enum sp_kernel kernel, double z)
{
    if (kernel == SP_KERNEL_GAUSS)
        return 0.5 * erfc(z * 0.7071067811865476);
    return z >= 0.0 ? 0.5 * exp(-z) : 1.0 - 0.5 * exp(z);
}

/* F(z1) - F(z0), z0 <= z1, without cancellation in either tail */
static double cdf_diff(enum sp_kernel kernel, double z0, double z1)
{
    if (z0 >= 0.0)
        return upper(kernel, z0) - upper(kernel, z1);
    if (z1 <= 0.0)
        return upper(kernel, -z1) - upper(kernel, -z0);
    return 1.0 - upper(kernel, -z0) - upper(kernel, z1);
}

static void set_bounds(const kset *s, double x0, double x1, double *lo, double *hi)
{
    double l = 0.0, u = 0.0;
    for (size_t j = 0; j < s->n; j++) {
        double a = s->x[j];
        double near = a < x0 ? x0 - a : (a > x1 ? a - x1 : 0.0);
        double far = fmax(fabs(x0 - a), fabs(x1 - a));
        u += kern(s->kernel, near, s->w[j]);
        l += kern(s->kernel, far, s->w[j]);
    }
    *lo = l / (double)s->n;
    *hi = u / (double)s->n;
}

static double set_mass(const kset *s, double x0, double x1)
{
    double acc = 0.0;
    for (size_t j = 0; j < s->n; j++)
        acc += cdf_diff(s->kernel, (x0 - s->x[j]) / s->w[j], (x1 - s->x[j]) / s->w[j]);
    return acc / (double)s->n;
}

/* mass of the set outside [lo, hi] */
static double set_outside(const kset *s, double lo, double hi)
{
    double acc = 0.0;
    for (size_t j = 0; j < s->n; j++) {
        acc += upper(s->kernel, (s->x[j] - lo) / s->w[j]);
        acc += upper(s->kernel, (hi - s->x[j]) / s->w[j]);
    }
    return acc / (double)s->n;
}

typedef struct {
    double x0, x1;
    int depth;
    int need;        /* bit 0: plus undecided, bit 1: minus undecided */
} cell;

typedef struct {
    double start, end;    /* open run of certified-positive cells; start > end: none */
    double sum;
} run;

static void run_flush(run *r, const kset *p, const kset *q, double c)
{
    if (r->end > r->start)
        r->sum += fmax(set_mass(p, r->start, r->end) - c * set_mass(q, r->start, r->end), 0.0);
    r->start = 1.0;
    r->end = 0.0;
}

static void run_add(run *r, const kset *p, const kset *q, double c, double x0, double x1)
{
    if (r->end > r->start && r->end == x0) {
        r->end = x1;
        return;
    }
    run_flush(r, p, q, c);
    r->start = x0;
    r->end = x1;
}

static void domain(const kset *s, double *lo, double *hi)
{
    for (size_t j = 0; j < s->n; j++) {
        *lo = fmin(*lo, s->x[j] - SP_KDE_TAIL * s->w[j]);
        *hi = fmax(*hi, s->x[j] + SP_KDE_TAIL * s->w[j]);
    }
}

int sp_kde_bound_delta(enum sp_kernel kernel, const double *a, const double *wa, size_t n,
                       const double *rows, const double *wrows, size_t m, size_t count,
                       double eps, double tol,
                       double *out_plus, double *out_minus, double *out_bound)
{
    double c = exp(eps);
    kset p = {kernel, a, wa, n};
    for (size_t k = 0; k < count; k++) {
        kset q = {kernel, rows + k * m, wrows + k * m, m};
        double L = INFINITY, U = -INFINITY;
        domain(&p, &L, &U);
        domain(&q, &L, &U);
        double bound_plus = set_outside(&p, L, U);
        double bound_minus = set_outside(&q, L, U);
        double density_budget = tol / (U - L);
        run rp = {1.0, 0.0, 0.0}, rm = {1.0, 0.0, 0.0};
        cell stack[SP_KDE_MAXDEPTH + 8];
        int top = 0;
        stack[top++] = (cell){L, U, 0, 3};
        while (top > 0) {
            cell cl = stack[--top];
            double plo, phi, qlo, qhi;
            set_bounds(&p, cl.x0, cl.x1, &plo, &phi);
            set_bounds(&q, cl.x0, cl.x1, &qlo, &qhi);
            double width = cl.x1 - cl.x0;
            int split = 0;
            double mid = 0.5 * (cl.x0 + cl.x1);
            int last = cl.depth >= SP_KDE_MAXDEPTH || !(mid > cl.x0 && mid < cl.x1);
            if (cl.need & 1) {
                if (plo - c * qhi >= 0.0)
                    run_add(&rp, &p, &q, c, cl.x0, cl.x1);
                else if (phi - c * qlo <= 0.0)
                    ;
                else if (last || phi <= density_budget)
                    bound_plus += fmax(phi - c * qlo, 0.0) * width;
                else
                    split |= 1;
            }
            if (cl.need & 2) {
                if (qlo - c * phi >= 0.0)
                    run_add(&rm, &q, &p, c, cl.x0, cl.x1);
                else if (qhi - c * plo <= 0.0)
                    ;
                else if (last || qhi <= density_budget)
                    bound_minus += fmax(qhi - c * plo, 0.0) * width;
                else
                    split |= 2;
            }
            if (split) {
                /* right child first: cells pop left to right, so runs coalesce */
                stack[top++] = (cell){mid, cl.x1, cl.depth + 1, split};
                stack[top++] = (cell){cl.x0, mid, cl.depth + 1, split};
            }
        }
        run_flush(&rp, &p, &q, c);
        run_flush(&rm, &q, &p, c);
        out_plus[k] = rp.sum + bound_plus;
        out_minus[k] = rm.sum + bound_minus;
        out_bound[k] = fmax(bound_plus, bound_minus);
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* ECDF differencing on fixed bins                                      */

static size_t bin_of(const double *edges, size_t ne, double v)
{
    size_t lo = 0, hi = ne;            /* number of edges <= v */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (edges[mid] <= v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int sp_hist_delta(const double *inner_edges, size_t nbins, const double *p_mass,
                  const double *rows, size_t m, size_t count, double eps,
                  double *out_plus, double *out_minus)
{
    double *cnt = malloc(nbins * sizeof *cnt);
    if (!cnt)
        return -1;
    double c = exp(eps);
    for (size_t k = 0; k < count; k++) {
        for (size_t b = 0; b < nbins; b++)
            cnt[b] = 0.0;
        for (size_t j = 0; j < m; j++)
            cnt[bin_of(inner_edges, nbins - 1, rows[k * m + j])] += 1.0;
        double plus = 0.0, minus = 0.0;
        for (size_t b = 0; b < nbins; b++) {
            double qb = cnt[b] / (double)m;
            plus += fmax(p_mass[b] - c * qb, 0.0);
            minus += fmax(qb - c * p_mass[b], 0.0);
        }
        out_plus[k] = plus;
        out_minus[k] = minus;
    }
    free(cnt);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Hausdorff distance of sorted sets                                    */

/* max over x in a of the distance to the nearest point of b (both sorted) */
static double directed(const double *a, size_t n, const double *b, size_t m)
{
    double worst = 0.0;
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        while (j + 1 < m && b[j + 1] <= a[i])
            j++;
        double d = fabs(a[i] - b[j]);
        if (j + 1 < m)
            d = fmin(d, fabs(b[j + 1] - a[i]));
        worst = fmax(worst, d);
    }
    return worst;
}

void sp_hausdorff(const double *a, size_t n, const double *rows, size_t m, size_t count,
                  double *out)
{
    for (size_t k = 0; k < count; k++) {
        const double *b = rows + k * m;
        out[k] = fmax(directed(a, n, b, m), directed(b, m, a, n));
    }
}
