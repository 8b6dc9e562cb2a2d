/* Hockey-stick integrals of kernel density estimates; see kde.h. */
#include "kde.h"

#include <float.h>
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

/* An upper bound of the piece under rounding: ea, eb bound the errors of
 * alpha, beta, and the integral of the positive part is non-decreasing in
 * both, so I(alpha + ea, beta + eb) >= I(alpha, beta); a piece that stays
 * non-positive under the perturbation adds exactly 0. */
static double piece_bounded(double alpha, double beta, double ea, double eb, double h,
                            double s)
{
    return piece_positive(alpha + ea, beta + eb, h, s) * (1.0 + 8.0 * DBL_EPSILON);
}

/* a tail s (A)_+ with |error of A| <= ea, likewise */
static double tail_bounded(double A, double ea, double s)
{
    return s * fmax(A + ea, 0.0) * (1.0 + 4.0 * DBL_EPSILON);
}

/* 1 when the two sorted sets (and their widths, if given) are identical:
 * then both integrals are exactly (1 - e^eps)_+ */
static int same_set(const double *a, const double *wa, size_t n, const double *b,
                    const double *wb, size_t m)
{
    if (n != m)
        return 0;
    for (size_t j = 0; j < n; j++)
        if (a[j] != b[j] || (wa && wa[j] != wb[j]))
            return 0;
    return 1;
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
        if (same_set(a, NULL, n, b, NULL, m)) {
            out_plus[k] = out_minus[k] = fmax(-expm1(eps), 0.0);
            continue;
        }
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
        /* backward sums B_l = sum over knots >= l of weight e^{-(t_j - t_l)/s}.
         * Rounding: each step (exp of a rounded gap, a product, a sum of
         * positive terms) adds at most (4 + gap/s) eps_mach of relative error;
         * rel_total sums the steps, rel_f the steps left of the current knot. */
        double rel_total = 0.0;
        bp[K - 1] = dp[K - 1];
        bq[K - 1] = dq[K - 1];
        for (size_t r = K - 1; r-- > 0;) {
            double hs = (t[r + 1] - t[r]) / s;
            double e = exp(-hs);
            bp[r] = bp[r + 1] * e + dp[r];
            bq[r] = bq[r + 1] * e + dq[r];
            rel_total += (4.0 + hs) * DBL_EPSILON;
        }
        const double u3 = 3.0 * DBL_EPSILON;    /* the weights, c, the difference */
        /* left tail x < t_0: densities bp[0] e^{-(t_0 - x)/s}, bq[0] ... */
        double eb0 = (rel_total + u3) * (bp[0] + c * bq[0]);
        double plus = tail_bounded(bp[0] - c * bq[0], eb0, s);
        double minus = tail_bounded(bq[0] - c * bp[0], eb0, s);
        double fp = 0.0, fq = 0.0;   /* forward sums at t_l */
        double rel_f = 0.0;
        for (size_t r = 0; r < K; r++) {
            if (r > 0) {
                double hs = (t[r] - t[r - 1]) / s;
                double e = exp(-hs);
                fp *= e;
                fq *= e;
                rel_f += (4.0 + hs) * DBL_EPSILON;
            }
            fp += dp[r];
            fq += dq[r];
            if (r + 1 < K) {
                double h = t[r + 1] - t[r];
                if (h > 0.0) {
                    double rel_b = fmax(rel_total - rel_f - (4.0 + h / s) * DBL_EPSILON, 0.0);
                    double ea = (rel_f + u3) * (fp + c * fq + fq + c * fp);
                    double eb = (rel_b + u3) * (bp[r + 1] + c * bq[r + 1] + bq[r + 1] + c * bp[r + 1]);
                    plus += piece_bounded(fp - c * fq, bp[r + 1] - c * bq[r + 1], ea, eb, h, s);
                    minus += piece_bounded(fq - c * fp, bq[r + 1] - c * bp[r + 1], ea, eb, h, s);
                }
            }
        }
        /* right tail */
        double ef = (rel_f + u3) * (fp + c * fq + fq + c * fp);
        plus += tail_bounded(fp - c * fq, ef, s);
        minus += tail_bounded(fq - c * fp, ef, s);
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

#define SP_KDE_MAXCELLS 200000       /* per row: then undecided cells are bounded */

typedef struct {
    enum sp_kernel kernel;
    const double *x;
    const double *w;
    size_t n;
    double wmin, wmax;
    double window;        /* Gaussian kernels beyond window widths: bounded */
    double window_phi;    /* >= phi(window), the bound per skipped kernel * w */
} kset;

static void set_widths(kset *s)
{
    s->wmin = INFINITY;
    s->wmax = 0.0;
    for (size_t j = 0; j < s->n; j++) {
        s->wmin = fmin(s->wmin, s->w[j]);
        s->wmax = fmax(s->wmax, s->w[j]);
    }
}

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

/* first index with x[j] >= v (x sorted) */
static size_t lower_index(const double *x, size_t n, double v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (x[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* What one set's density f is on the cell [x0, x1] = [m - r, m + r].
 * Laplace kernels (taylor == 0): lo <= f <= hi, each kernel between its
 * values at the farthest and the nearest point of the cell.  Gaussian
 * kernels (taylor == 1): f(m + t) = val + der t + e(t), |e(t)| <= g2 t^2 / 2
 * for |t| <= r, with g2 >= sup |f''| from |phi''(z)| = |z^2 - 1| phi(z) <=
 * max(1, z^2) phi(z) kernel by kernel; kernels farther than s->window
 * widths are skipped, their sum bounded by drop (each <= phi(window) / w_min;
 * set_window makes all of them together <= 1e-3 of the density budget). */
typedef struct {
    int taylor;
    double lo, hi;
    double val, der, g2, drop;
} local;

static void set_local(const kset *s, double x0, double x1, local *out)
{
    double inv_n = 1.0 / (double)s->n;
    if (s->kernel == SP_KERNEL_LAPLACE) {
        double l = 0.0, u = 0.0;
        for (size_t j = 0; j < s->n; j++) {
            double a = s->x[j];
            double near = a < x0 ? x0 - a : (a > x1 ? a - x1 : 0.0);
            double far = fmax(fabs(x0 - a), fabs(x1 - a));
            u += kern(s->kernel, near, s->w[j]);
            l += kern(s->kernel, far, s->w[j]);
        }
        *out = (local){0, l * inv_n, u * inv_n, 0.0, 0.0, 0.0, 0.0};
        return;
    }
    double m = 0.5 * (x0 + x1), r = 0.5 * (x1 - x0);
    size_t j0 = lower_index(s->x, s->n, x0 - s->window * s->wmax);
    size_t j1 = lower_index(s->x, s->n, x1 + s->window * s->wmax);
    double val = 0.0, der = 0.0, g2 = 0.0;
    for (size_t j = j0; j < j1; j++) {
        double w = s->w[j];
        double z = (m - s->x[j]) / w;
        double az = fabs(z), rho = r / w;
        double phi = exp(-0.5 * z * z) * 0.3989422804014327;
        val += phi / w;
        der -= z * phi / (w * w);
        /* sup of phi over |z'| in [az - rho, az + rho] */
        double sup_phi = az <= rho ? 0.3989422804014327
                       : rho * az < 1.0 ? phi * exp(rho * (az - 0.5 * rho))
                       : exp(-0.5 * (az - rho) * (az - rho)) * 0.3989422804014327;
        double zz = az + rho;
        g2 += fmax(1.0, zz * zz) * sup_phi / (w * w * w);
    }
    double drop = (double)(s->n - (j1 - j0)) * s->window_phi / s->wmin;
    *out = (local){1, 0.0, 0.0, val * inv_n, der * inv_n, g2 * inv_n, drop * inv_n};
}

/* lo <= f - c g <= hi on the cell (half width r) */
static void diff_bounds(const local *f, const local *g, double c, double r,
                        double *lo, double *hi)
{
    if (!f->taylor) {
        *lo = f->lo - c * g->hi;
        *hi = f->hi - c * g->lo;
        return;
    }
    double mid = f->val - c * g->val;
    double slack = fabs(f->der - c * g->der) * r + 0.5 * (f->g2 + c * g->g2) * r * r;
    *lo = mid - slack - c * g->drop;
    *hi = mid + slack + f->drop;
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
    double err;           /* rounding bound of the run integrals (added) */
} run;

static void run_flush(run *r, const kset *p, const kset *q, double c)
{
    if (r->end > r->start) {
        /* each CDF difference F(z1) - F(z0) is a difference of two tail values
         * <= 1, each good to 2 eps_mach (erfc, exp): absolute error <= 4 eps_mach
         * per term, so <= 4 eps_mach per mass (an average); the sums of
         * positive terms add (n - 1) eps_mach relative */
        double mp = set_mass(p, r->start, r->end), mq = set_mass(q, r->start, r->end);
        r->sum += fmax(mp - c * mq, 0.0);
        r->err += 4.0 * DBL_EPSILON * (1.0 + c)
                  + (double)(p->n + q->n + 4) * DBL_EPSILON * (mp + c * mq);
    }
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

/* the window beyond which a Gaussian kernel is bounded instead of summed:
 * phi(window) / w_min <= 1e-3 budget, window in [6, 37] */
static void set_window(kset *s, double budget)
{
    double target = 1e-3 * budget * s->wmin;
    double t2 = -2.0 * log(target / 0.3989422804014327);
    double T = t2 > 36.0 ? sqrt(t2) : 6.0;
    if (!(T < 37.0))
        T = 37.0;
    s->window = T;
    s->window_phi = exp(-0.5 * T * T) * 0.3989422804014327 * (1.0 + 1e-9);
}

/* Where a direction's integrand can be positive, from the kernels paired one
 * to one.  With Gaussian kernels, n = m and the i-th smallest point of each
 * set of the same width w (every pair, as with one bandwidth for all), the
 * plus integrand is (1/n) sum_j g_j, g_j(x) = K(x - a_j) - c K(x - b_j), and
 *   g_j(x) > 0  <=>  (a_j - b_j)(2x - a_j - b_j) > 2 w^2 ln c
 * (the log ratio of the two kernels is linear in x).  For c >= 1 a pair with
 * a_j = b_j is never positive, a_j < b_j only left of
 * T_j = (a_j + b_j)/2 - w^2 ln c / (b_j - a_j), a_j > b_j only right of it;
 * minus (a and b exchanged) likewise.  Outside (-inf, lo) u (hi, inf),
 * lo = max of the left and hi = min of the right thresholds, every g_j is
 * <= 0, so the integrand is: cells there contribute exactly nothing and are
 * not evaluated.  A leave-one-out set moves its points by ~1e-4 widths on
 * databases of ~10^4 records, which puts the thresholds hundreds of widths
 * out, beyond the domain (+-40 widths): such a row costs O(n) instead of the
 * thousands of cells of the bisection (10^5 rows x 50 databases of 4 10^4
 * records: 0.3 s instead of more than 180 s).
 * The thresholds are widened by 1e-12 of their size against their rounding
 * (a few ulps).  Returns 0 (nothing excluded) where it does not apply. */
static int pair_limits(enum sp_kernel kernel, const double *a, const double *wa, size_t n,
                       const double *b, const double *wb, size_t m, double eps,
                       double lo[2], double hi[2])
{
    if (kernel != SP_KERNEL_GAUSS || n != m || !(eps >= 0.0))
        return 0;
    for (int dir = 0; dir < 2; dir++) {
        lo[dir] = -INFINITY;
        hi[dir] = INFINITY;
    }
    for (size_t j = 0; j < n; j++) {
        if (wa[j] != wb[j])
            return 0;
        if (a[j] == b[j])
            continue;
        const double mid = 0.5 * a[j] + 0.5 * b[j], gap = fabs(a[j] - b[j]);
        const double shift = wa[j] * wa[j] * eps / gap;
        if (!isfinite(shift))
            continue;            /* positive only beyond +-inf: never */
        const double slack = 1e-12 * (fabs(mid) + shift) + DBL_MIN;
        const double left = mid - shift + slack, right = mid + shift - slack;
        /* plus: a < b left of T, a > b right of it; minus the other way */
        const int plus_left = a[j] < b[j];
        if (plus_left) {
            lo[0] = fmax(lo[0], left);
            hi[1] = fmin(hi[1], right);
        } else {
            hi[0] = fmin(hi[0], right);
            lo[1] = fmax(lo[1], left);
        }
    }
    return 1;
}

int sp_kde_bound_delta(enum sp_kernel kernel, const double *a, const double *wa, size_t n,
                       const double *rows, const double *wrows, size_t m, size_t count,
                       double eps, double tol,
                       double *out_plus, double *out_minus, double *out_bound)
{
    double c = exp(eps);
    kset p = {kernel, a, wa, n, 0.0, 0.0, 37.0, 0.0};
    set_widths(&p);
    for (size_t k = 0; k < count; k++) {
        if (same_set(a, wa, n, rows + k * m, wrows + k * m, m)) {
            out_plus[k] = out_minus[k] = fmax(-expm1(eps), 0.0);
            out_bound[k] = 0.0;
            continue;
        }
        kset q = {kernel, rows + k * m, wrows + k * m, m, 0.0, 0.0, 37.0, 0.0};
        set_widths(&q);
        double pos_lo[2], pos_hi[2];
        const int paired = pair_limits(kernel, a, wa, n, rows + k * m, wrows + k * m, m, eps,
                                       pos_lo, pos_hi);
        double L = INFINITY, U = -INFINITY;
        domain(&p, &L, &U);
        domain(&q, &L, &U);
        double bound_plus = set_outside(&p, L, U);
        double bound_minus = set_outside(&q, L, U);
        double density_budget = tol / (U - L);
        /* each set's skipped kernels enter one direction times c: up to
         * c = 64 the 1e-3 margin of set_window absorbs it; beyond, the window
         * widens with c (else at eps ~ 8..21, c = 3e3..1e9, the skipped mass
         * c * drop outgrew the budget, no cell near the far-tail crossing
         * could be decided, and the bisection ran into SP_KDE_MAXCELLS with
         * delta_i bounded by 1) */
        const double cbudget = density_budget / fmax(1.0, c / 64.0);
        set_window(&p, cbudget);
        set_window(&q, cbudget);
        run rp = {1.0, 0.0, 0.0, 0.0}, rm = {1.0, 0.0, 0.0, 0.0};
        cell stack[SP_KDE_MAXDEPTH + 8];
        int top = 0;
        long cells = 0;
        stack[top++] = (cell){L, U, 0, 3};
        while (top > 0) {
            cell cl = stack[--top];
            cells++;
            if (paired) {
                /* a direction whose integrand is <= 0 on the whole cell: done */
                for (int dir = 0; dir < 2; dir++) {
                    if (cl.x0 >= pos_lo[dir] && cl.x1 <= pos_hi[dir])
                        cl.need &= ~(1 << dir);
                }
                if (!cl.need)
                    continue;
            }
            local lp, lq;
            set_local(&p, cl.x0, cl.x1, &lp);
            set_local(&q, cl.x0, cl.x1, &lq);
            double width = cl.x1 - cl.x0;
            int split = 0;
            double mid = 0.5 * (cl.x0 + cl.x1);
            int last = cl.depth >= SP_KDE_MAXDEPTH || cells > SP_KDE_MAXCELLS
                       || !(mid > cl.x0 && mid < cl.x1);
            for (int dir = 0; dir < 2; dir++) {
                if (!(cl.need & (1 << dir)))
                    continue;
                double lo, hi;
                if (dir == 0)
                    diff_bounds(&lp, &lq, c, 0.5 * width, &lo, &hi);
                else
                    diff_bounds(&lq, &lp, c, 0.5 * width, &lo, &hi);
                if (lo >= 0.0)            /* certified positive: exact integral */
                    run_add(dir == 0 ? &rp : &rm, dir == 0 ? &p : &q, dir == 0 ? &q : &p,
                            c, cl.x0, cl.x1);
                else if (hi <= 0.0)       /* certified non-positive */
                    ;
                else if (last || hi <= density_budget)   /* <= the cell's mass */
                    *(dir == 0 ? &bound_plus : &bound_minus) +=
                        fmin(hi * width, dir == 0 ? set_mass(&p, cl.x0, cl.x1) + 1e-300
                                                  : set_mass(&q, cl.x0, cl.x1) + 1e-300);
                else
                    split |= 1 << dir;
            }
            if (split) {
                /* right child first: cells pop left to right, so runs coalesce */
                stack[top++] = (cell){mid, cl.x1, cl.depth + 1, split};
                stack[top++] = (cell){cl.x0, mid, cl.depth + 1, split};
            }
        }
        run_flush(&rp, &p, &q, c);
        run_flush(&rm, &q, &p, c);
        bound_plus += rp.err;
        bound_minus += rm.err;
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

/* ------------------------------------------------------------------ */
/* Product kernels in d <= 3 dimensions: certified adaptive boxes        */

/* F(z1) - F(z0), z0 <= z1, of the unit kernel, and a bound of its rounding
 * error in *err (the tails upper() are good to 2 eps_mach relative; a
 * Laplace difference on one side of 0 is formed as e^{-z0} (1 - e^{-h}) / 2,
 * good to a few eps_mach relative) */
static double mass_err(enum sp_kernel kernel, double z0, double z1, double *err)
{
    if (kernel == SP_KERNEL_LAPLACE && (z0 >= 0.0 || z1 <= 0.0)) {
        double near = z0 >= 0.0 ? z0 : -z1;
        double v = -0.5 * exp(-near) * expm1(-(z1 - z0));
        *err = 6.0 * DBL_EPSILON * v;
        return v;
    }
    /* the two tail values cdf_diff subtracts */
    double u0 = upper(kernel, z0 >= 0.0 ? z0 : (z1 <= 0.0 ? -z1 : -z0));
    double u1 = upper(kernel, z0 >= 0.0 ? z1 : (z1 <= 0.0 ? -z0 : z1));
    double v = cdf_diff(kernel, z0, z1);
    *err = 4.0 * DBL_EPSILON * (u0 + u1 + fabs(v));
    return v;
}

/* the log ratio ln K(x - a) / K(x - b) of one axis' unit-width kernels
 * (width s): Gaussian (a - b)(2x - a - b) / (2 s^2) (linear in x), Laplace
 * (|x - b| - |x - a|) / s (monotone in x) */
static double log_ratio(enum sp_kernel kernel, double x, double a, double b, double s)
{
    if (kernel == SP_KERNEL_GAUSS)
        return (a - b) * ((x - a) + (x - b)) / (2.0 * s * s);
    return (fabs(x - b) - fabs(x - a)) / s;
}


/* range [lo, hi] of the unit-width kernel's derivative K'(x - a) (width w)
 * for x in [x0, x1]: Laplace -sign(x - a) K / w (both signs when the
 * interval holds the kink at a); Gaussian -(z / w) K, z = (x - a) / w, whose
 * extremes are at the ends or at z = +-1 */
static void deriv_range(enum sp_kernel kernel, double x0, double x1, double a, double w,
                        double klo, double khi, double *lo, double *hi)
{
    if (kernel == SP_KERNEL_LAPLACE) {
        if (x0 >= a) {                 /* decreasing side: K' = -K / w */
            *lo = -khi / w;
            *hi = -klo / w;
        } else if (x1 <= a) {
            *lo = klo / w;
            *hi = khi / w;
        } else {
            *lo = -khi / w;
            *hi = khi / w;
        }
        return;
    }
    double z0 = (x0 - a) / w, z1 = (x1 - a) / w;
    double v0 = -z0 * kern(kernel, fabs(x0 - a), w) / w;
    double v1 = -z1 * kern(kernel, fabs(x1 - a), w) / w;
    *lo = fmin(v0, v1);
    *hi = fmax(v0, v1);
    double peak = 0.2419707245191434 / (w * w);        /* phi(1) / w^2 */
    if (z0 <= -1.0 && z1 >= -1.0)
        *hi = peak;
    if (z0 <= 1.0 && z1 >= 1.0)
        *lo = -peak;
    double widen = 8.0 * DBL_EPSILON * (fabs(*lo) + fabs(*hi));
    *lo -= widen;
    *hi += widen;
}

/* [lo, hi] x [plo, phi] for a positive interval [plo, phi] */
static void times_positive(double lo, double hi, double plo, double phi, double *olo,
                           double *ohi)
{
    *olo = lo * (lo >= 0.0 ? plo : phi);
    *ohi = hi * (hi >= 0.0 ? phi : plo);
}

/* int over [0, r_1] x .. x [0, r_d] of (alpha + sum_k beta_k u_k)_+ du, and a
 * bound of its rounding in *err.  Where the linear function keeps one sign
 * the integral is the volume times the mean (or 0); else the d-th divided
 * difference of the truncated power T(z) = z_+^{d+1} / (d+1)!:
 *   sum_{e in {0,1}^d} (-1)^{d - |e|} T(alpha + sum_k e_k beta_k r_k) / prod_k beta_k.
 * An axis with |beta_k| r_k below 1e-3 of the spread is first replaced by
 * its extreme value (up: max, else min): the result stays a bound of the
 * right side, off by at most |beta_k| r_k times the volume. */
static double linear_positive(int d, double alpha, const double *beta, const double *r,
                              int up, double *err)
{
    double b[3], vol = 1.0, spread = fabs(alpha);
    for (int k = 0; k < d; k++) {
        vol *= r[k];
        spread += fabs(beta[k]) * r[k];
    }
    int live[3], nl = 0;
    for (int k = 0; k < d; k++) {
        double p = beta[k] * r[k];
        if (fabs(p) < 1e-3 * spread) {
            alpha += up ? fmax(p, 0.0) : fmin(p, 0.0);
        } else {
            b[nl] = beta[k];
            live[nl++] = k;
        }
    }
    double zmin = alpha, zmax = alpha, mean = alpha;
    for (int j = 0; j < nl; j++) {
        double p = b[j] * r[live[j]];
        zmin += fmin(p, 0.0);
        zmax += fmax(p, 0.0);
        mean += 0.5 * p;
    }
    if (zmin >= 0.0) {
        *err = 4.0 * d * DBL_EPSILON * vol * (fabs(alpha) + spread);
        return vol * mean;
    }
    if (zmax <= 0.0) {
        *err = 0.0;
        return 0.0;
    }
    double fact = nl == 1 ? 2.0 : (nl == 2 ? 6.0 : 24.0);
    double sum = 0.0, biggest = 0.0, denom = 1.0, rest = 1.0;
    for (int j = 0; j < nl; j++)
        denom *= b[j];
    for (int k = 0; k < d; k++) {
        int is_live = 0;
        for (int j = 0; j < nl; j++)
            is_live |= live[j] == k;
        if (!is_live)
            rest *= r[k];
    }
    for (int e = 0; e < (1 << nl); e++) {
        double z = alpha;
        int ones = 0;
        for (int j = 0; j < nl; j++)
            if (e & (1 << j)) {
                z += b[j] * r[live[j]];
                ones++;
            }
        double t = z > 0.0 ? pow(z, nl + 1) / fact : 0.0;
        biggest = fmax(biggest, t);
        sum += ((nl - ones) % 2 ? -t : t);
    }
    double v = sum / denom * rest;
    *err = (double)(1 << nl) * (nl + 6) * DBL_EPSILON * biggest / fabs(denom) * rest
           + 4.0 * DBL_EPSILON * fabs(v);
    return fmax(v, 0.0);
}

/* int over the box (centre m, half widths r) of (alpha + sum_k (g_k t_k +
 * side dev_k |t_k|))_+ dt, t = x - m: the orthants one by one (linear on
 * each); side = +1 gives an upper, -1 a lower bound of int F_+ when
 * F(m + t) - alpha lies between the two for every t (mean value theorem with
 * the gradient of F in [g - dev, g + dev] on the box) */
static double orthants(int d, double alpha, const double *g, const double *dev,
                       const double *r, int side, double *err)
{
    double total = 0.0, beta[3];
    *err = 0.0;
    for (int o = 0; o < (1 << d); o++) {
        for (int k = 0; k < d; k++) {
            double sign = (o & (1 << k)) ? -1.0 : 1.0;
            beta[k] = sign * g[k] + side * dev[k];
        }
        double e;
        total += linear_positive(d, alpha, beta, r, side > 0, &e);
        *err += e;
    }
    return total;
}

typedef struct {
    double x0[3], x1[3];
    double lo[2], up[2];     /* the box's part of the two integrals lies in [lo, up] */
    double key;              /* up - lo, both directions */
    int open;                /* some direction undecided: worth splitting */
} sp_box;

/* (v - c) times the bound of K that makes the product extreme: the sign of
 * v - c picks the larger or the smaller kernel value; an infinite ratio
 * bounds nothing (+inf) */
static double ratio_term(double v, double c, double kmax, double kmin, int upper_bound)
{
    if (isinf(v))
        return upper_bound ? INFINITY : -INFINITY;
    double t = v - c;
    if (upper_bound)
        return t * (t > 0.0 ? kmax : kmin);
    return t * (t < 0.0 ? kmax : kmin);
}

/* Bounds of the two integrands on the box and their exact integrals over it.
 * Pair j (the database j with and without the individual): kernels A at a_j,
 * B at b_j; the plus integrand is (1/n) sum_j (A_j - c B_j), the minus one
 * (1/n) sum_j (B_j - c A_j).  Per pair, each is bounded on the box two ways,
 * and the tighter bound is kept: from the kernels' extreme values (A at its
 * nearest / farthest point of the box, a product over the axes), and as
 * B (r - c) with r = A / B in [e^{L_lo}, e^{L_hi}], L = ln(A / B) a sum over
 * the axes of functions monotone in x_k (linear for Gaussians), so its range
 * on the box is exact from the box's corners axis by axis.  A pair that did
 * not move (a_j = b_j) is (1 - c) A_j.  The box integral of each kernel is a
 * product of CDF differences (exact up to rounding, bounded in err). */
/* one set's kernel at point p over the box, axis by axis: its extreme values
 * [lo_k, hi_k], its value at the centre, its derivative's range, its mass
 * (a product over the axes) with the mass's rounding bound */
typedef struct {
    double lo[3], hi[3], mid[3], dlo[3], dhi[3];
    double plo, phi, pmid, mass, err;
} axes;

static void kernel_axes(enum sp_kernel kernel, int d, const double *p, const sp_box *bx,
                        const double *s, axes *out)
{
    out->plo = out->phi = out->pmid = out->mass = 1.0;
    out->err = 0.0;
    for (int k = 0; k < d; k++) {
        double x0 = bx->x0[k], x1 = bx->x1[k], w = s[k];
        double near = p[k] < x0 ? x0 - p[k] : (p[k] > x1 ? p[k] - x1 : 0.0);
        double far = fmax(fabs(x0 - p[k]), fabs(x1 - p[k]));
        double e, m = mass_err(kernel, (x0 - p[k]) / w, (x1 - p[k]) / w, &e);
        /* error of a product of masses: each factor's error times the others */
        out->err = out->err * (m + e) + e * out->mass;
        out->mass *= m;
        out->hi[k] = kern(kernel, near, w) * (1.0 + 4.0 * DBL_EPSILON);
        out->lo[k] = kern(kernel, far, w) * (1.0 - 4.0 * DBL_EPSILON);
        out->mid[k] = kern(kernel, fabs(0.5 * (x0 + x1) - p[k]), w);
        deriv_range(kernel, x0, x1, p[k], w, out->lo[k], out->hi[k], &out->dlo[k],
                    &out->dhi[k]);
        out->plo *= out->lo[k];
        out->phi *= out->hi[k];
        out->pmid *= out->mid[k];
    }
    out->err += 2.0 * d * DBL_EPSILON * out->mass;
}

/* the range of the partial derivative along axis k of the product kernel */
static void partial_range(int d, const axes *x, int k, double *lo, double *hi)
{
    double plo = 1.0, phi = 1.0;
    for (int j = 0; j < d; j++)
        if (j != k) {
            plo *= x->lo[j];
            phi *= x->hi[j];
        }
    times_positive(x->dlo[k], x->dhi[k], plo, phi, lo, hi);
}

/* Bounds of the two integrands on the box and their exact integrals over it.
 * Pair j (the database j with and without the individual): kernels A at a_j,
 * B at b_j; the plus integrand is (1/n) sum_j (A_j - c B_j), the minus one
 * (1/n) sum_j (B_j - c A_j).
 * (i) Range: per pair the tighter of two bounds, from the kernels' extreme
 * values (A at its nearest / farthest point of the box, a product over the
 * axes) and as B (r - c) with r = A / B in [e^{L_lo}, e^{L_hi}], L = ln(A/B)
 * a sum over the axes of functions monotone in x_k (linear for Gaussians),
 * exact on the box from its faces.  A pair that did not move is (1 - c) A.
 * (ii) Box integral: products of kernel CDF differences (exact up to the
 * bounded rounding).
 * (iii) Gradient: the range of each partial derivative on the box (interval
 * products of the axes' kernel and derivative ranges).  By the mean value
 * theorem F(m + t) lies between F(m) + sum_k (g_k t_k -+ dev_k |t_k|), g_k
 * and dev_k the centre and half width of the k-th derivative's range: the
 * positive parts of these two (linear per orthant) integrate in closed form
 * (orthants), a second-order pair of bounds where (i) is first order.
 * A box whose sign is certified by (i) contributes its exact integral or 0;
 * an undecided one the interval [max(integral, (iii) lower, 0), min((i)
 * bang-bang, (iii) upper)]. */
static void box_eval(enum sp_kernel kernel, int d, const double *a, const double *b, size_t n,
                     const double *s, double c, sp_box *bx)
{
    double lo[2] = {0.0, 0.0}, hi[2] = {0.0, 0.0}, I[2] = {0.0, 0.0}, eI[2] = {0.0, 0.0};
    double val[2] = {0.0, 0.0}, glo[2][3] = {{0.0}}, ghi[2][3] = {{0.0}}, gmag[3] = {0.0};
    double mag = 0.0, vol = 1.0, r[3];
    for (int k = 0; k < d; k++) {
        vol *= bx->x1[k] - bx->x0[k];
        r[k] = 0.5 * (bx->x1[k] - bx->x0[k]);
    }
    axes A, B;
    for (size_t j = 0; j < n; j++) {
        const double *pa = a + j * (size_t)d, *pb = b + j * (size_t)d;
        int moved = 0;
        for (int k = 0; k < d; k++)
            moved |= pa[k] != pb[k];
        kernel_axes(kernel, d, pa, bx, s, &A);
        if (!moved) {
            double t = 1.0 - c;        /* (1 - c) A in both directions */
            double th = t * (t > 0.0 ? A.phi : A.plo), tl = t * (t > 0.0 ? A.plo : A.phi);
            for (int dir = 0; dir < 2; dir++) {
                hi[dir] += th;
                lo[dir] += tl;
                I[dir] += t * A.mass;
                eI[dir] += fabs(t) * A.err;
                val[dir] += t * A.pmid;
            }
            for (int k = 0; k < d; k++) {
                double dl, dh;
                partial_range(d, &A, k, &dl, &dh);
                double tl2 = t >= 0.0 ? t * dl : t * dh, th2 = t >= 0.0 ? t * dh : t * dl;
                for (int dir = 0; dir < 2; dir++) {
                    glo[dir][k] += tl2;
                    ghi[dir][k] += th2;
                }
                gmag[k] += (1.0 + c) * fmax(fabs(dl), fabs(dh));
            }
            mag += (1.0 + c) * A.phi;
            continue;
        }
        kernel_axes(kernel, d, pb, bx, s, &B);
        double l_lo = 0.0, l_hi = 0.0;
        for (int k = 0; k < d; k++) {
            double l0 = log_ratio(kernel, bx->x0[k], pa[k], pb[k], s[k]);
            double l1 = log_ratio(kernel, bx->x1[k], pa[k], pb[k], s[k]);
            /* widened against the rounding of the formula (a few ulps) */
            double slack = 1e-13 * (1.0 + fabs(l0) + fabs(l1));
            l_lo += fmin(l0, l1) - slack;
            l_hi += fmax(l0, l1) + slack;
        }
        /* plus: A - c B = B (r - c), r = A / B */
        hi[0] += fmin(A.phi - c * B.plo, ratio_term(exp(l_hi), c, B.phi, B.plo, 1));
        lo[0] += fmax(A.plo - c * B.phi, ratio_term(exp(l_lo), c, B.phi, B.plo, 0));
        /* minus: B - c A = A (1/r - c) */
        hi[1] += fmin(B.phi - c * A.plo, ratio_term(exp(-l_lo), c, A.phi, A.plo, 1));
        lo[1] += fmax(B.plo - c * A.phi, ratio_term(exp(-l_hi), c, A.phi, A.plo, 0));
        I[0] += A.mass - c * B.mass;
        I[1] += B.mass - c * A.mass;
        eI[0] += A.err + c * B.err;
        eI[1] += B.err + c * A.err;
        val[0] += A.pmid - c * B.pmid;
        val[1] += B.pmid - c * A.pmid;
        for (int k = 0; k < d; k++) {
            double al, ah, bl, bh;
            partial_range(d, &A, k, &al, &ah);
            partial_range(d, &B, k, &bl, &bh);
            glo[0][k] += al - c * bh;
            ghi[0][k] += ah - c * bl;
            glo[1][k] += bl - c * ah;
            ghi[1][k] += bh - c * al;
            gmag[k] += (1.0 + c) * (fmax(fabs(al), fabs(ah)) + fmax(fabs(bl), fabs(bh)));
        }
        mag += (1.0 + c) * (A.phi + B.phi);
    }
    double inv_n = 1.0 / (double)n;
    /* rounding of the sums over pairs: n eps_mach of the magnitudes */
    double margin = (double)(n + 8) * DBL_EPSILON * mag * inv_n;
    bx->key = 0.0;
    bx->open = 0;
    for (int dir = 0; dir < 2; dir++) {
        double h = hi[dir] * inv_n + margin, l = lo[dir] * inv_n - margin;
        double mass = I[dir] * inv_n;
        /* (iii) bounds the range too: F(m) +- sum_k (|g_k| + dev_k) r_k */
        double g[3], dev[3], alpha = val[dir] * inv_n, reach = 0.0;
        for (int k = 0; k < d; k++) {
            g[k] = 0.5 * (glo[dir][k] + ghi[dir][k]) * inv_n;
            dev[k] = 0.5 * (ghi[dir][k] - glo[dir][k]) * inv_n
                     + (double)(n + 8) * DBL_EPSILON * gmag[k] * inv_n;
            reach += (fabs(g[k]) + dev[k]) * r[k];
        }
        reach *= 1.0 + 8.0 * DBL_EPSILON;
        h = fmin(h, alpha + margin + reach);
        l = fmax(l, alpha - margin - reach);
        double em = eI[dir] * inv_n + (double)(n + 8) * DBL_EPSILON * margin * vol;
        if (l >= 0.0) {                /* positive on the box: the exact integral */
            bx->lo[dir] = fmax(mass - em, 0.0);
            bx->up[dir] = mass + em;
        } else if (h <= 0.0) {         /* non-positive on the box */
            bx->lo[dir] = bx->up[dir] = 0.0;
        } else {
            /* F in [l, h] with integral mass: int F_+ >= max(mass, 0), and
             * <= the bang-bang extreme h * theta * vol, theta the share at h */
            bx->open = 1;
            double low = fmax(mass - em, 0.0);
            double up = fmin(h * ((mass + em) - l * vol) / (h - l), h * vol);
            double e_up, e_lo;
            double up2 = orthants(d, alpha + margin, g, dev, r, 1, &e_up);
            double low2 = orthants(d, alpha - margin, g, dev, r, -1, &e_lo);
            up = fmin(up, up2 * (1.0 + 8.0 * DBL_EPSILON) + e_up);
            low = fmax(low, low2 * (1.0 - 8.0 * DBL_EPSILON) - e_lo);
            bx->lo[dir] = low;
            bx->up[dir] = fmax(up, low);
        }
        bx->key += bx->up[dir] - bx->lo[dir];
    }
}

static void heap_push(sp_box *heap, size_t *len, const sp_box *bx)
{
    size_t i = (*len)++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (heap[parent].key >= bx->key)
            break;
        heap[i] = heap[parent];
        i = parent;
    }
    heap[i] = *bx;
}

static sp_box heap_pop(sp_box *heap, size_t *len)
{
    sp_box top = heap[0], last = heap[--(*len)];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, big = i;
        double kbig = last.key;
        if (l < *len && heap[l].key > kbig) { big = l; kbig = heap[l].key; }
        if (r < *len && heap[r].key > kbig) big = r;
        if (big == i)
            break;
        heap[i] = heap[big];
        i = big;
    }
    if (*len > 0)
        heap[i] = last;
    return top;
}

int sp_kde_box_delta(enum sp_kernel kernel, int d, const double *a, const double *rows,
                     size_t n, size_t count, const double *s, double eps, double tol,
                     long max_boxes, double *out_plus, double *out_minus, double *out_bound)
{
    double c = exp(eps);
    const size_t D = (size_t)d;
    size_t cap = (size_t)(max_boxes > 16 ? max_boxes : 16) + 2;
    sp_box *heap = malloc(cap * sizeof *heap);
    if (!heap)
        return -1;
    for (size_t k = 0; k < count; k++) {
        const double *b = rows + k * n * D;
        if (same_set(a, NULL, n * D, b, NULL, n * D)) {
            out_plus[k] = out_minus[k] = fmax(-expm1(eps), 0.0);
            out_bound[k] = 0.0;
            continue;
        }
        sp_box root;
        for (size_t ax = 0; ax < D; ax++) {
            root.x0[ax] = INFINITY;
            root.x1[ax] = -INFINITY;
        }
        for (size_t j = 0; j < n; j++)
            for (size_t ax = 0; ax < D; ax++) {
                double u = fmin(a[j * D + ax], b[j * D + ax]);
                double v = fmax(a[j * D + ax], b[j * D + ax]);
                root.x0[ax] = fmin(root.x0[ax], u - SP_KDE_TAIL * s[ax]);
                root.x1[ax] = fmax(root.x1[ax], v + SP_KDE_TAIL * s[ax]);
            }
        /* outside the domain: each direction's integrand is at most its
         * first density, whose mass there is at most the sum over the axes
         * of the kernels' tails beyond the domain's faces */
        double tail[2] = {0.0, 0.0};
        for (size_t j = 0; j < n; j++)
            for (size_t ax = 0; ax < D; ax++) {
                double w = s[ax];
                tail[0] += upper(kernel, (a[j * D + ax] - root.x0[ax]) / w)
                           + upper(kernel, (root.x1[ax] - a[j * D + ax]) / w);
                tail[1] += upper(kernel, (b[j * D + ax] - root.x0[ax]) / w)
                           + upper(kernel, (root.x1[ax] - b[j * D + ax]) / w);
            }
        double done_lo[2] = {0.0, 0.0}, done_up[2];
        done_up[0] = 2.0 * tail[0] / (double)n;
        done_up[1] = 2.0 * tail[1] / (double)n;
        double open_lo[2] = {0.0, 0.0}, open_up[2] = {0.0, 0.0};
        size_t len = 0;
        long boxes = 1;
        box_eval(kernel, d, a, b, n, s, c, &root);
        heap_push(heap, &len, &root);
        for (int dir = 0; dir < 2; dir++) {
            open_lo[dir] = root.lo[dir];
            open_up[dir] = root.up[dir];
        }
        /* delta = max(plus, minus) lies in [max of the lower ends, max of the upper ends] */
        while (len > 0 && boxes + 2 <= max_boxes
               && fmax(done_up[0] + open_up[0], done_up[1] + open_up[1])
                  - fmax(done_lo[0] + open_lo[0], done_lo[1] + open_lo[1]) > tol) {
            sp_box bx = heap_pop(heap, &len);
            size_t axis = 0;
            double widest = -1.0;
            for (size_t ax = 0; ax < D; ax++) {
                double wdt = (bx.x1[ax] - bx.x0[ax]) / s[ax];
                if (wdt > widest) { widest = wdt; axis = ax; }
            }
            double mid = 0.5 * (bx.x0[axis] + bx.x1[axis]);
            if (!(mid > bx.x0[axis] && mid < bx.x1[axis])) {
                /* cannot be split any more: its bounds are final */
                for (int dir = 0; dir < 2; dir++) {
                    done_lo[dir] += bx.lo[dir];
                    done_up[dir] += bx.up[dir];
                    open_lo[dir] -= bx.lo[dir];
                    open_up[dir] -= bx.up[dir];
                }
                continue;
            }
            sp_box child[2] = {bx, bx};
            child[0].x1[axis] = mid;
            child[1].x0[axis] = mid;
            for (int dir = 0; dir < 2; dir++) {
                open_lo[dir] -= bx.lo[dir];
                open_up[dir] -= bx.up[dir];
            }
            for (int h = 0; h < 2; h++) {
                box_eval(kernel, d, a, b, n, s, c, &child[h]);
                boxes++;
                if (child[h].open) {
                    heap_push(heap, &len, &child[h]);
                    for (int dir = 0; dir < 2; dir++) {
                        open_lo[dir] += child[h].lo[dir];
                        open_up[dir] += child[h].up[dir];
                    }
                } else {
                    for (int dir = 0; dir < 2; dir++) {
                        done_lo[dir] += child[h].lo[dir];
                        done_up[dir] += child[h].up[dir];
                    }
                }
            }
        }
        /* the open boxes summed afresh (the running sums drift by rounding) */
        double tot_lo[2] = {done_lo[0], done_lo[1]}, tot_up[2] = {done_up[0], done_up[1]};
        for (size_t i = 0; i < len; i++)
            for (int dir = 0; dir < 2; dir++) {
                tot_lo[dir] += heap[i].lo[dir];
                tot_up[dir] += heap[i].up[dir];
            }
        /* the sums of many positive parts: n_boxes eps_mach relative */
        double grow = 1.0 + (double)(boxes + 4) * DBL_EPSILON;
        out_plus[k] = fmin(tot_up[0] * grow, 1.0);
        out_minus[k] = fmin(tot_up[1] * grow, 1.0);
        out_bound[k] = fmax(out_plus[k], out_minus[k])
                       - fmax(tot_lo[0] / grow, tot_lo[1] / grow);
    }
    free(heap);
    return 0;
}
