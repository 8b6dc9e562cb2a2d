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
