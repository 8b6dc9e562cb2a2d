#include <math.h>
#include <stddef.h>
#include "laplace.h"
#include "logspace.h"

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
 * ((x - y) - eps) + lo: x - y and then (x - y) - eps are exact in long double where x and y are
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
    long double d = ((x - y) - eps) + lo;   /* x - y - eps exact (Sterbenz) near a root */
    if (fabsl(d) > 1.0L) {
        return exp((double)(x - m)) - exp((double)(y + eps - m));
    }
    return exp((double)(y + eps - m)) * expm1((double)d);
}

/* The body of sp_laplace_cell_log_positive, inlined into the pair kernel's
 * callback (seven long double arguments would otherwise go through the
 * stack for every cell). */
static inline long double cell_log_positive(long double la_p, long double lc_p, long double la_q,
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

long double sp_laplace_cell_log_positive(long double la_p, long double lc_p, long double la_q,
                                         long double lc_q, long double eps, long double la_lo,
                                         long double lc_lo, double b)
{
    return cell_log_positive(la_p, lc_p, la_q, lc_q, eps, la_lo, lc_lo, b);
}

/* ln x to ~1e-19 (precise: logl) or ~1e-16 absolute (sp_fast_logl). */
static inline long double laplace_log(long double x, int precise)
{
    if (!precise) {
        return sp_fast_logl(x);
    }
    return x > 0.0L ? logl(x) : (x == 0.0L ? -INFINITY : NAN);
}

/* precise != 0: atoms and logs to long double accuracy (expl, logl), which
 * the difference-law cells of nearly equal laws need (their L and R cancel
 * to 1e-12 and less); 0: double-accurate exps and logs of the mantissa,
 * enough where the log ratios come from closed forms (the pure shift). */
static void laplace_side(const long double *la, long n, long double b, long double *cell,
                         long double *ll, long double *lr, int precise)
{
    /* L_j = sum_{k<=j} A(k) e^(-(j-k)/b), R_j = sum_{k>j} A(k) e^(-(k-j-1)/b),
     * computed in place as linear values relative to max A: L_j in ll[j+1],
     * R_j in lr[j+1] (cell j+1 is the interval [j, j+1]); w in cell[]. */
    long double *w = cell, *L = ll + 1, *R = lr + 1;
    const long double m = sp_exp_scaled(la, n, w);
    if (precise) {
        for (long k = 0; k < n; k++) {
            w[k] = la[k] == -INFINITY ? 0.0L : expl(la[k] - m);
        }
    }
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
    cell[0] = m + laplace_log(left, precise);
    for (long j = 0; j + 1 < n; j++) {
        cell[j + 1] = m + laplace_log(half_width * (L[j] + R[j]), precise);
        L[j] = m + laplace_log(L[j], precise);
        R[j] = m + laplace_log(R[j], precise);
    }
    cell[n] = m + laplace_log(right, precise);
    ll[0] = lr[0] = -INFINITY;
    ll[n] = lr[n] = -INFINITY;     /* atom n-1's L, R are not a cell's */
}

void sp_laplace_cells(const long double *lp, const long double *lq, long n, double b,
                      long double *cell_lp, long double *cell_lq,
                      long double *ll_p, long double *lr_p, long double *ll_q, long double *lr_q)
{
    laplace_side(lp, n, b, cell_lp, ll_p, lr_p, 1);
    laplace_side(lq, n, b, cell_lq, ll_q, lr_q, 1);
}

void sp_laplace_cells_one(const long double *la, long n, double b, long double *cell_la,
                          long double *ll, long double *lr)
{
    laplace_side(la, n, b, cell_la, ll, lr, 0);
}


int sp_laplace_cell_term(const void *ctx, long j, double eps, sp_direction direction,
                         long double *out)
{
    const sp_laplace_pair *c = ctx;
    if (j <= 0 || j >= c->len - 1) {
        return 0;                   /* the exponential tails: constant sign, point masses */
    }
    if (eps == INFINITY) {
        *out = -INFINITY;           /* both densities are positive everywhere */
        return 1;
    }
    long double l_lo = c->ll_lo == NULL ? 0.0L : c->ll_lo[j];
    long double r_lo = c->rr_lo == NULL ? 0.0L : c->rr_lo[j];
    *out = direction == SP_PLUS
               ? cell_log_positive(c->ll_p[j], c->lr_p[j], c->ll_q[j], c->lr_q[j], eps,
                                              l_lo, r_lo, c->scale)
               : cell_log_positive(c->ll_q[j], c->lr_q[j], c->ll_p[j], c->lr_p[j], eps,
                                              -l_lo, -r_lo, c->scale);
    return 1;
}
