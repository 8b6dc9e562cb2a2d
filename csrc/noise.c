#include <math.h>
#include <stdlib.h>
#include "noise.h"
#include "logpmf.h"
#include "shift_tail.h"
#include "logsum.h"
#include "search.h"

#define LN2 0.693147180559945309417232121458L

/* ---------------------------------------------------------------- Laplace */

/* (a/2)(1 - e^(-t0/b))^2 is the exact integral up to the interior root t0
 * (use a e^(-t0/b) = |c| e^(-(1-t0)/b) to eliminate |c|): no cancellation. */
static double one_sided(double a, double c, double b)
{
    /* a > 0 > c: positive on [0, t0) */
    double t0 = 0.5 * (1.0 + b * log(a / -c));
    if (t0 <= 0.0) {
        return 0.0;
    }
    if (t0 >= 1.0) {
        return 0.5 * (a + c) * -expm1(-1.0 / b);
    }
    double s = -expm1(-t0 / b);
    return 0.5 * a * s * s;
}

/* (e^x - e^(y + eps)) / e^m for m >= x, y + eps, with x - y - eps formed as
 * ((x - y) + lo) - eps: x - y is exact in long double where x and y are
 * close, so near a sign change the difference keeps the accuracy of the
 * log ratio x - y + lo (a double-double where the caller has one), not the
 * 1e-16 / |result| of two rounded exps. */
static double signed_difference(long double x, long double y, long double lo, long double eps,
                                long double m)
{
    if (y == -INFINITY) {
        return exp((double)(x - m));
    }
    if (x == -INFINITY) {
        return -exp((double)(y + eps - m));
    }
    long double d = ((x - y) + lo) - eps;
    if (fabsl(d) > 1.0L) {
        return exp((double)(x - m)) - exp((double)(y + eps - m));
    }
    return exp((double)(y + eps - m)) * expm1((double)d);
}

long double sp_laplace_cell_log_positive(long double la_p, long double lc_p, long double la_q,
                                         long double lc_q, long double eps, long double la_lo,
                                         long double lc_lo, double b)
{
    long double m = fmaxl(fmaxl(la_p, lc_p), fmaxl(la_q + eps, lc_q + eps));
    if (m == -INFINITY) {
        return -INFINITY;
    }
    double a = signed_difference(la_p, la_q, la_lo, eps, m);
    double c = signed_difference(lc_p, lc_q, lc_lo, eps, m);
    double v;
    if (a >= 0.0 && c >= 0.0) {
        v = 0.5 * (a + c) * -expm1(-1.0 / b);
    } else if (a <= 0.0 && c <= 0.0) {
        v = 0.0;
    } else if (a > 0.0) {
        v = one_sided(a, c, b);
    } else {
        v = one_sided(c, a, b);          /* mirror t -> 1 - t */
    }
    return v > 0.0 ? m + log(v) : -INFINITY;
}

/* A(k) / A_max in linear extended precision (long double reaches 1e-4951,
 * far below the e^-3000 the caller keeps), so the recursions below are
 * multiplications and additions of positive numbers. */
static long double scale_atoms(const long double *la, long n, long double *w)
{
    long double m = -INFINITY;
    for (long k = 0; k < n; k++) {
        m = fmaxl(m, la[k]);
    }
    for (long k = 0; k < n; k++) {
        w[k] = sp_fast_expl(la[k] - m);
    }
    return m;
}

static void laplace_side(const long double *la, long n, long double b, long double *cell,
                         long double *ll, long double *lr)
{
    /* L_j = sum_{k<=j} A(k) e^(-(j-k)/b), R_j = sum_{k>j} A(k) e^(-(k-j-1)/b),
     * computed in place as linear values relative to max A: L_j in ll[j+1],
     * R_j in lr[j+1] (cell j+1 is the interval [j, j+1]); w in cell[]. */
    long double *w = cell, *L = ll + 1, *R = lr + 1;
    const long double m = scale_atoms(la, n, w);
    const long double u = expl(-1.0L / b), half_width = -expm1l(-1.0L / b) / 2.0L;
    L[0] = w[0];
    for (long j = 1; j < n; j++) {
        L[j] = u * L[j - 1] + w[j];
    }
    R[n - 1] = 0.0L;
    for (long j = n - 2; j >= 0; j--) {
        R[j] = w[j + 1] + u * R[j + 1];
    }
    /* left tail: int_{-inf}^0 sum_k A(k) e^(-(k-x)/b) / (2b) = (A(0) + u R_0) / 2;
     * right tail: L_{n-1} / 2; interval [j, j+1]: (1 - u)(L_j + R_j) / 2 */
    const long double left = (w[0] + u * R[0]) / 2.0L, right = L[n - 1] / 2.0L;
    cell[0] = m + sp_fast_logl(left);
    for (long j = 0; j + 1 < n; j++) {
        cell[j + 1] = m + sp_fast_logl(half_width * (L[j] + R[j]));
        L[j] = m + sp_fast_logl(L[j]);
        R[j] = m + sp_fast_logl(R[j]);
    }
    cell[n] = m + sp_fast_logl(right);
    ll[0] = lr[0] = -INFINITY;
    ll[n] = lr[n] = -INFINITY;     /* atom n-1's L, R are not a cell's */
}

void sp_laplace_cells(const long double *lp, const long double *lq, long n, double b,
                      long double *cell_lp, long double *cell_lq,
                      long double *ll_p, long double *lr_p, long double *ll_q, long double *lr_q)
{
    laplace_side(lp, n, b, cell_lp, ll_p, lr_p);
    laplace_side(lq, n, b, cell_lq, ll_q, lr_q);
}

/* -------------------------------------------------------------- geometric */

static void geometric_side(const long double *la, long n, long double alpha, long double *cell,
                           long double *w)
{
    /* f(x) = c (L_x + R_x), L_x = sum_{k<=x} A(k) alpha^(x-k), R_x = sum_{k>x} A(k) alpha^(k-x),
     * linear relative to max A (w: workspace of n); L is kept in cell[1..n]. */
    const long double m = scale_atoms(la, n, w);
    const long double lc = log1pl(-alpha) - log1pl(alpha);
    const long double tail = alpha / (1.0L - alpha);           /* sum_{d>=1} alpha^d */
    long double L = 0.0L;
    for (long x = 0; x < n; x++) {
        L = alpha * L + w[x];
        cell[x + 1] = L;
    }
    cell[n + 1] = m + lc + sp_fast_logl(L * tail);           /* x > n-1: L_{n-1} */
    long double R = 0.0L;                                    /* R_x */
    for (long x = n - 1; x >= 0; x--) {
        cell[x + 1] = m + lc + sp_fast_logl(cell[x + 1] + R);
        R = alpha * (R + w[x]);                              /* R_{x-1} */
    }
    cell[0] = m + lc + sp_fast_logl(R / alpha * tail);       /* x < 0: (A(0) + R_0) */
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

/* --------------------------------------------------------------- Gaussian */

/* ln sum_k A(k) exp(-(x-k)^2 / (2 sigma^2)), expanding from the atom nearest
 * x until no further atom can add more than e^-45 of the sum. */
static long double log_density(const long double *la, long double amax, long len, double sigma,
                               double x)
{
    const long double inv2s2 = 0.5L / ((long double)sigma * sigma);
    long k0 = sp_nearest_atom(x, len);
    sp_logsum acc = {0.0L, 0.0L};
    for (long k = k0; k >= 0; k--) {
        long double d = (long double)x - (long double)k;
        if (d > 0.0 && amax - d * d * inv2s2 < sp_logsum_log(&acc) - 45.0) {
            break;
        }
        sp_logsum_add(&acc, la[k] - d * d * inv2s2);
    }
    for (long k = k0 + 1; k < len; k++) {
        long double d = (long double)k - (long double)x;
        if (d > 0.0 && amax - d * d * inv2s2 < sp_logsum_log(&acc) - 45.0) {
            break;
        }
        sp_logsum_add(&acc, la[k] - d * d * inv2s2);
    }
    return sp_logsum_log(&acc);
}

/* h(x) = ln f_A(x) - ln f_B(x) - eps with (A, B) = (P, Q) or (Q, P). */
typedef struct {
    const sp_gauss *g;
    int plus;
    double eps;
} ratio_fn;

static double ratio_h(const ratio_fn *r, double x)
{
    const sp_gauss *g = r->g;
    long double fp = log_density(g->lp, g->lpmax, g->len, g->sigma, x);
    long double fq = log_density(g->lq, g->lqmax, g->len, g->sigma, x);
    long double h = r->plus ? fp - fq : fq - fp;
    return (double)(h - r->eps);
}

static double ratio_h_fn(double x, const void *ctx)
{
    return ratio_h(ctx, x);
}

/* Root of h in [lo, hi] given h(lo) and h(hi) of opposite signs. */
static double bracket_root(const ratio_fn *r, double lo, double flo, double hi, double fhi)
{
    sp_illinois(ratio_h_fn, r, &lo, &flo, &hi, &fhi, 1e-13, SP_GAUSS_MAX_ROOT_EVALS);
    return 0.5 * (lo + hi);
}

/* ln of the N(k, sigma^2) mass of [a, b] (a < b, either may be infinite),
 * without cancellation: upper tails differenced in the upper tail, lower in
 * the lower. */
static double log_normal_mass(const sp_gauss *g, double a, double b)
{
    double (*lndtr)(double) = g->log_ndtr;
    if (a >= 0.0) {            /* Phi_bar(a) - Phi_bar(b) */
        double la = lndtr(-a), lb = lndtr(-b);
        return lb == -INFINITY ? la : la + sp_log1mexp(lb - la);
    }
    if (b <= 0.0) {            /* Phi(b) - Phi(a) */
        double lb = lndtr(b), la = lndtr(a);
        return la == -INFINITY ? lb : lb + sp_log1mexp(la - lb);
    }
    /* a < 0 < b: 1 - Phi(a) - Phi_bar(b) >= 1 - 2 * 1/2 ... stays well above 0 */
    return log1p(-(exp(lndtr(a)) + exp(lndtr(-b))));
}

/* ln sum_k A(k) P[N(k, sigma^2) in [a, b]], expanding from the atoms near the
 * interval; outside it the rest is bounded by the tail mass of A times the
 * normal tail at the current atom, and stops below e^-45 of the sum. */
static long double log_interval_mass(const sp_gauss *g, const long double *la,
                                     const long double *lsa, const long double *lca, double a,
                                     double b)
{
    const double s = g->sigma;
    long len = g->len;
    double mid = isfinite(a) && isfinite(b) ? 0.5 * (a + b) : (isfinite(a) ? a : b);
    long k0 = sp_nearest_atom(mid, len);
    sp_logsum acc = {0.0L, 0.0L};
    for (long k = k0; k >= 0; k--) {
        double kk = (double)k;
        /* atoms k' <= k add at most CDF_A(k) times the normal mass beyond a */
        if (acc.sum > 0.0
            && lca[k] + (kk < a ? g->log_ndtr((kk - a) / s) : 0.0) < sp_logsum_log(&acc) - 45.0) {
            break;
        }
        sp_logsum_add(&acc, la[k] + log_normal_mass(g, (a - kk) / s, (b - kk) / s));
    }
    for (long k = k0 + 1; k < len; k++) {
        double kk = (double)k;
        if (acc.sum > 0.0
            && lsa[k] + (kk > b ? g->log_ndtr((b - kk) / s) : 0.0) < sp_logsum_log(&acc) - 45.0) {
            break;
        }
        sp_logsum_add(&acc, la[k] + log_normal_mass(g, (a - kk) / s, (b - kk) / s));
    }
    return sp_logsum_log(&acc);
}

/* ln int_a^b (f_A - e^eps f_B) for an interval on which it is >= 0. */
static long double log_piece(const sp_gauss *g, int plus, double eps, double a, double b)
{
    const long double *la = plus ? g->lp : g->lq, *lb = plus ? g->lq : g->lp;
    const long double *lsa = plus ? g->lsp : g->lsq, *lca = plus ? g->lcp : g->lcq;
    const long double *lsb = plus ? g->lsq : g->lsp, *lcb = plus ? g->lcq : g->lcp;
    long double ma = log_interval_mass(g, la, lsa, lca, a, b);
    long double mb = log_interval_mass(g, lb, lsb, lcb, a, b) + eps;
    if (!(ma > mb)) {
        return -INFINITY;
    }
    return ma + sp_log1mexpl(mb - ma);
}

static double gauss_direction(const sp_gauss *g, double eps, int plus)
{
    ratio_fn r = {g, plus, eps};
    const double s = g->sigma, first = 0.0, last = (double)(g->len - 1);
    sp_logsum acc = {0.0L, 0.0L};
    if (g->monotone) {
        /* h increases (plus) or decreases (minus) in x: one crossing x*, and
         * the positive part is [x*, inf) or (-inf, x*]. */
        double step = fmax(s, 1.0), lo = first - step, hi = last + step;
        double flo = ratio_h(&r, lo), fhi = ratio_h(&r, hi);
        const int left_positive = !plus;      /* sign of h far to the left */
        for (int it = 0; it < 200 && (flo > 0.0) != left_positive; it++) {
            hi = lo, fhi = flo;
            lo -= step, step *= 2.0;
            flo = ratio_h(&r, lo);
        }
        for (int it = 0; it < 200 && (fhi > 0.0) == left_positive; it++) {
            lo = hi, flo = fhi;
            hi += step, step *= 2.0;
            fhi = ratio_h(&r, hi);
        }
        if (!((flo > 0.0) == left_positive && (fhi > 0.0) != left_positive)) {
            /* No crossing within the bounded search (eps so large that x* is
             * beyond 2^200 sigma): fall back to an upper bound.  The curve is
             * a mixture of worst-case Gaussian pairs, so by joint convexity
             * delta <= delta_DP(eps) <= Phi(1/(2 sigma) - eps sigma). */
            return g->log_ndtr(0.5 / s - eps * s);
        }
        double x = bracket_root(&r, lo, flo, hi, fhi);
        return (double)(plus ? log_piece(g, 1, eps, x, INFINITY)
                             : log_piece(g, 0, eps, -INFINITY, x));
    }
    /* General case: scan a grid fine against sigma and the atom spacing,
     * refine each sign change, and add up the positive pieces; beyond the
     * grid the extreme atoms dominate and the sign no longer changes. */
    double pad = 40.0 * s + 1.0;
    double step = fmin(s / SP_GAUSS_GRID_PER_SIGMA, 0.125);
    long points = (long)ceil((last - first + 2.0 * pad) / step) + 1;
    if (points > SP_GAUSS_MAX_GRID) {
        points = SP_GAUSS_MAX_GRID;
        step = (last - first + 2.0 * pad) / (double)(points - 1);
    }
    double x_prev = first - pad, h_prev = ratio_h(&r, x_prev);
    double start = h_prev > 0.0 ? -INFINITY : NAN;   /* left end of an open positive piece */
    for (long i = 1; i < points; i++) {
        double x = first - pad + (double)i * step;
        double h = ratio_h(&r, x);
        if ((h > 0.0) != (h_prev > 0.0)) {
            double root = bracket_root(&r, x_prev, h_prev, x, h);
            if (h > 0.0) {
                start = root;
            } else {
                sp_logsum_add(&acc, log_piece(g, plus, eps, start, root));
                start = NAN;
            }
        }
        x_prev = x, h_prev = h;
    }
    if (!isnan(start)) {
        sp_logsum_add(&acc, log_piece(g, plus, eps, start, INFINITY));
    }
    return (double)sp_logsum_log(&acc);
}

double sp_gauss_curve_log_delta(double eps, int direction, const void *ctx)
{
    const sp_gauss *g = ctx;
    if (eps < 0.0) {
        int reverse = direction == SP_PLUS ? 0 : 1;   /* plus <-> minus */
        if (direction == SP_MAX) {
            return fmax(sp_gauss_curve_log_delta(eps, SP_PLUS, ctx),
                        sp_gauss_curve_log_delta(eps, SP_MINUS, ctx));
        }
        return sp_log_hockey_negative_eps(eps, gauss_direction(g, -eps, reverse));
    }
    if (eps == INFINITY) {
        return -INFINITY;      /* Gaussian ratios are unbounded but finite: H -> 0 */
    }
    if (direction == SP_MAX) {
        return fmax(gauss_direction(g, eps, 1), gauss_direction(g, eps, 0));
    }
    return gauss_direction(g, eps, direction == SP_PLUS);
}
