#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include "laplace.h"
#include "logspace.h"
#include "ldmath.h"

/* (a/2)(1 - e^(-t0/b))^2 is the exact integral up to the interior root t0
 * (use a e^(-t0/b) = |c| e^(-(1-t0)/b) to eliminate |c|): no cancellation. */
static double one_sided(double a, double c, double b, double one_minus_u)
{
    /* a > 0 > c: positive on [0, t0) */
    double t0 = 0.5 * (1.0 + b * log(a / -c));
    if (t0 <= 0.0) {
        return 0.0;
    }
    if (t0 >= 1.0) {
        return 0.5 * (a + c) * one_minus_u;
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

/* ln |e^x - e^(y + eps)| and its sign (+1, -1, 0), as signed_difference forms
 * it but without scaling to a double: for parts of one cell whose sizes
 * differ by more than the double range (b < ~1/700). */
static long double log_signed_difference(long double x, long double y, long double lo,
                                         long double eps, int *sign)
{
    if (y == -INFINITY || x == -INFINITY) {
        *sign = y == -INFINITY ? (x == -INFINITY ? 0 : 1) : -1;
        return y == -INFINITY ? x : y + eps;
    }
    const long double d = ((x - y) - eps) + lo;
    *sign = d > 0.0L ? 1 : (d < 0.0L ? -1 : 0);
    if (*sign == 0) {
        return -INFINITY;
    }
    /* |e^(y + eps) expm1(d)|: the larger term times |expm1| of the gap */
    return d > 0.0L ? x + (long double)log(-expm1((double)-d))
                    : y + eps + (long double)log(-expm1((double)d));
}

/* cell_log_positive in logs: the positive part of a e^(-t/b) + c e^(-(1-t)/b)
 * over [0, 1] (halved), with ln|a|, ln|c| (no underflow of the smaller part). */
static long double cell_log_positive_wide(long double la_p, long double lc_p, long double la_q,
                                          long double lc_q, long double eps, long double la_lo,
                                          long double lc_lo, double b)
{
    int sa, sc;
    const long double la = log_signed_difference(la_p, la_q, la_lo, eps, &sa);
    const long double lc = log_signed_difference(lc_p, lc_q, lc_lo, eps, &sc);
    const long double lhw = (long double)log(-expm1(-1.0 / b)) - 0.693147180559945309417232121458L;
    if (sa <= 0 && sc <= 0) {
        return -INFINITY;
    }
    if (sa >= 0 && sc >= 0) {                  /* (|a| + |c|) (1 - u) / 2 */
        const long double top = fmaxl(la, lc), low = fminl(la, lc);
        return top + (long double)log1p(exp((double)(low - top))) + lhw;
    }
    /* one positive part p (at t = 0 after mirroring), one negative n */
    const long double lp = sa > 0 ? la : lc, ln = sa > 0 ? lc : la;
    const long double t0 = 0.5L * (1.0L + (long double)b * (lp - ln));
    if (t0 <= 0.0L) {
        return -INFINITY;
    }
    if (t0 >= 1.0L) {                          /* (p - |n|) (1 - u) / 2 */
        return lp + (long double)log(-expm1((double)(ln - lp))) + lhw;
    }
    const double s = -expm1(-(double)t0 / b);  /* (p / 2) (1 - e^(-t0/b))^2 */
    return lp - 0.693147180559945309417232121458L + 2.0L * (long double)log(s);
}

/* fmaxl / fminl as glibc's x86-64 versions compute them, inline: (y < x ? x
 * : y) and (x <= y ? x : y), a NaN y giving x.  The libm calls were 7 % of
 * a noisy count's delta (six per cell below). */
static inline long double max_ld(long double x, long double y)
{
    return (y < x || isnan(y)) ? x : y;
}

static inline long double min_ld(long double x, long double y)
{
    return (x <= y || isnan(y)) ? x : y;
}

/* The body of sp_laplace_cell_log_positive, inlined into the pair kernel's
 * callback (seven long double arguments would otherwise go through the
 * stack for every cell). */
static inline long double cell_log_positive(long double la_p, long double lc_p, long double la_q,
                                            long double lc_q, long double eps, long double la_lo,
                                            long double lc_lo, double b, double one_minus_u)
{
    long double m = max_ld(max_ld(la_p, lc_p), max_ld(la_q + eps, lc_q + eps));
    if (m == -INFINITY) {
        return -INFINITY;
    }
    /* the smaller part would underflow once scaled by e^-m (tiny b) */
    const long double small = min_ld(max_ld(la_p, la_q + eps), max_ld(lc_p, lc_q + eps));
    if (small > -INFINITY && m - small > 600.0L) {
        return cell_log_positive_wide(la_p, lc_p, la_q, lc_q, eps, la_lo, lc_lo, b);
    }
    double a = signed_difference(la_p, la_q, la_lo, eps, m);
    double c = signed_difference(lc_p, lc_q, lc_lo, eps, m);
    double v;
    if (a >= 0.0 && c >= 0.0) {
        v = 0.5 * (a + c) * one_minus_u;
    } else if (a <= 0.0 && c <= 0.0) {
        v = 0.0;
    } else if (a > 0.0) {
        v = one_sided(a, c, b, one_minus_u);
    } else {
        v = one_sided(c, a, b, one_minus_u);          /* mirror t -> 1 - t */
    }
    return v > 0.0 ? m + log(v) : -INFINITY;
}

long double sp_laplace_cell_log_positive(long double la_p, long double lc_p, long double la_q,
                                         long double lc_q, long double eps, long double la_lo,
                                         long double lc_lo, double b)
{
    return cell_log_positive(la_p, lc_p, la_q, lc_q, eps, la_lo, lc_lo, b, -expm1(-1.0 / b));
}

/* ln x to ~1e-19 (precise: sp_ld_log) or ~1e-16 absolute (sp_fast_logl). */
static inline long double laplace_log(long double x, int precise)
{
    if (!precise) {
        return sp_fast_logl(x);
    }
    return x > 0.0L ? sp_ld_log(x) : (x == 0.0L ? -INFINITY : NAN);
}

static long double laplace_max(const long double *la, long n)
{
    long double m = -INFINITY;
    for (long k = 0; k < n; k++) {
        m = la[k] > m ? la[k] : m;            /* NaN skipped (fmaxl is a libm call) */
    }
    return m;
}

/* precise != 0: atoms and logs to long double accuracy (ldmath.h), which
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
    long double m;
    if (precise) {
        m = laplace_max(la, n);
        for (long k = 0; k < n; k++) {
            w[k] = la[k] == -INFINITY ? 0.0L : sp_ld_exp(la[k] - m);
        }
    } else {
        m = sp_exp_scaled(la, n, w);
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

/* D(k) = P(k) - Q(k) = Q(k) expm1(ln P(k)/Q(k)) from the accurate atom log
 * ratio lr (so D keeps its relative accuracy where P and Q nearly agree),
 * = P(k) where Q(k) = 0, and P (1 - e^-lr) where Q e^lr would overflow or Q
 * underflowed; p, q: the atoms, linear (relative to the same e^m). */
static long double laplace_atom_difference(long double p, long double q, long double lq,
                                           long double lr)
{
    if (lq == -INFINITY) {
        return p;
    }
    if (isnan(lr)) {
        return 0.0L;
    }
    const long double x = sp_ld_expm1(lr);
    if (q > 0.0L && x < 1e4000L) {
        return q * x;
    }
    return p * -sp_ld_expm1(-lr);
}

/* One cell's (or one L's, one R's) logs from the linear values relative to
 * e^m: base (Q's), own (P's), dv (D's, signed), av (|D|'s).  With the
 * difference law (diff) and |D| < base / 4: ln P = ln Q + log1p(D / Q),
 * error estimate 4e-16 |D|/Q + 1e-18 (as the numpy form had it); else the
 * log of P's own value, error estimate 4e-16 (diff) or 2e-19 (1 + |ln P| +
 * |ln Q|) (plain: the two long double logs; 4e-16 where one is infinite).
 * *ratio: ln P - ln Q (log1p form, or the difference of the logs, 0 where
 * both are -inf). */
static inline void laplace_emit(long double m, long double base, long double own, long double dv,
                         long double av, int diff, long double *lbase, long double *lown,
                         long double *ratio, double *err)
{
    const long double lb = base > 0.0L ? m + sp_ld_log(base) : (base == 0.0L ? -INFINITY : NAN);
    *lbase = lb;
    if (diff && base > 0.0L && av < 0.25L * base && isfinite(lb)) {
        const long double t = sp_ld_log1p(dv / base);
        *lown = lb + t;
        *ratio = t;
        *err = 4e-16 * (double)(av / base) + 1e-18;
        return;
    }
    const long double lo = own > 0.0L ? m + sp_ld_log(own) : (own == 0.0L ? -INFINITY : NAN);
    *lown = lo;
    const long double r = lo - lb;
    *ratio = isnan(r) ? 0.0L : r;
    if (diff) {
        *err = 4e-16;
    } else {
        const double e = 2e-19 * (1.0 + fabs((double)lo) + fabs((double)lb));
        *err = isfinite(e) ? e : 4e-16;
    }
}

int sp_laplace_cells_diff(const long double *lp, const long double *lq, const long double *law_lr,
                          long n, double b, long double *cell_lp, long double *cell_lq,
                          long double *ll_p, long double *lr_p, long double *ll_q,
                          long double *lr_q, long double *cell_lr, double *err_c, double *err_l,
                          double *err_r)
{
    const int diff = law_lr != NULL;
    /* D(k) in cell_lr[k + 1] until the forward pass writes cell k + 1 there
     * (after reading it): no workspace (a fresh array's first touch costs
     * more than the arithmetic) */
    long double *dd = cell_lr + 1;
    long double m = fmaxl(laplace_max(lp, n), laplace_max(lq, n));
    if (!isfinite(m)) {
        m = 0.0L;
    }
    const long double inv_b = 1.0L / (long double)b;
    const long double u = expl(-inv_b), hw = -expm1l(-inv_b) / 2.0L;
    /* the atoms, linear relative to e^m: P(k) in ll_p[k+1], Q(k) in ll_q[k+1]
     * (read back before the forward pass overwrites them), D(k) in dd[k] */
    for (long k = 0; k < n; k++) {
        const long double p = lp[k] == -INFINITY ? 0.0L : sp_ld_exp(lp[k] - m);
        const long double q = lq[k] == -INFINITY ? 0.0L : sp_ld_exp(lq[k] - m);
        ll_p[k + 1] = p;
        ll_q[k + 1] = q;
        if (diff) {
            dd[k] = laplace_atom_difference(p, q, lq[k], law_lr[k]);
        }
    }
    /* R_A(j) = sum_{k>j} A(k) u^(k-j-1), at index j + 1: P's in lr_p, Q's in
     * lr_q, D's in cell_lp, |D|'s in cell_lq (each read before overwritten) */
    lr_p[n] = lr_q[n] = cell_lp[n] = cell_lq[n] = 0.0L;
    for (long j = n - 2; j >= 0; j--) {
        lr_p[j + 1] = ll_p[j + 2] + u * lr_p[j + 2];
        lr_q[j + 1] = ll_q[j + 2] + u * lr_q[j + 2];
        if (diff) {
            cell_lp[j + 1] = dd[j + 1] + u * cell_lp[j + 2];
            cell_lq[j + 1] = fabsl(dd[j + 1]) + u * cell_lq[j + 2];
        }
    }
    /* L_A(j) = sum_{k<=j} A(k) u^(j-k), forward; cells: the left tail
     * (A(0) + u R_0) / 2, [j, j+1]: (1 - u)(L_j + R_j) / 2, the right tail
     * L_{n-1} / 2 */
    long double l_p = 0.0L, l_q = 0.0L, l_d = 0.0L, l_a = 0.0L;
    for (long j = 0; j < n; j++) {
        const long double d = diff ? dd[j] : 0.0L;
        l_p = u * l_p + ll_p[j + 1];
        l_q = u * l_q + ll_q[j + 1];
        l_d = u * l_d + d;
        l_a = u * l_a + fabsl(d);
        if (j + 1 < n) {
            const long double r_p = lr_p[j + 1], r_q = lr_q[j + 1];
            const long double r_d = diff ? cell_lp[j + 1] : 0.0L;
            const long double r_a = diff ? cell_lq[j + 1] : 0.0L;
            if (j == 0) {
                laplace_emit(m, (ll_q[1] + u * r_q) / 2.0L, (ll_p[1] + u * r_p) / 2.0L,
                             (d + u * r_d) / 2.0L, (fabsl(d) + u * r_a) / 2.0L, diff,
                             &cell_lq[0], &cell_lp[0], &cell_lr[0], &err_c[0]);
            }
            long double unused;
            laplace_emit(m, hw * (l_q + r_q), hw * (l_p + r_p), hw * (l_d + r_d),
                         hw * (l_a + r_a), diff, &cell_lq[j + 1], &cell_lp[j + 1],
                         &cell_lr[j + 1], &err_c[j + 1]);
            laplace_emit(m, l_q, l_p, l_d, l_a, diff, &ll_q[j + 1], &ll_p[j + 1], &unused,
                         &err_l[j + 1]);
            laplace_emit(m, r_q, r_p, r_d, r_a, diff, &lr_q[j + 1], &lr_p[j + 1], &unused,
                         &err_r[j + 1]);
        } else {
            if (j == 0) {                      /* one atom: R_0 = 0 */
                laplace_emit(m, ll_q[1] / 2.0L, ll_p[1] / 2.0L, d / 2.0L, fabsl(d) / 2.0L, diff,
                             &cell_lq[0], &cell_lp[0], &cell_lr[0], &err_c[0]);
            }
            laplace_emit(m, l_q / 2.0L, l_p / 2.0L, l_d / 2.0L, l_a / 2.0L, diff, &cell_lq[n],
                         &cell_lp[n], &cell_lr[n], &err_c[n]);
        }
    }
    ll_p[0] = lr_p[0] = ll_q[0] = lr_q[0] = -INFINITY;
    ll_p[n] = lr_p[n] = ll_q[n] = lr_q[n] = -INFINITY;     /* atom n-1's L, R are not a cell's */
    err_l[0] = err_r[0] = err_l[n] = err_r[n] = 4e-16;
    return 0;
}


void sp_laplace_atom_ratios(const long double *lp, const long double *lq,
                            const long double *law_lr, const long double *law_lo, long n, double b,
                            long double *ll_p, long double *lr_p, const long double *ll_q,
                            const long double *lr_q, double *err_l, double *err_r,
                            long double *ll_lo, long double *rr_lo)
{
    const long double ib = 1.0L / (long double)b;
    for (int side = 0; side < 2; side++) {
        /* L reads L(j - 1) of the cell to its left, R reads R(j + 1) of the
         * cell to its right: walk away from what is read, so every form is
         * built from the values before this side's changes */
        for (long step = 1; step < n; step++) {
            const long i = side == 0 ? n - step : step;          /* interior cell */
            const long atom = side == 0 ? i - 1 : i;             /* the atom j or j + 1 */
            long double prev_p, prev_q;
            if (side == 0) {
                prev_p = ll_p[i - 1];
                prev_q = ll_q[i - 1];
            } else {
                prev_p = i + 1 < n ? lr_p[i + 1] : -INFINITY;
                prev_q = i + 1 < n ? lr_q[i + 1] : -INFINITY;
            }
            const long double lawr = law_lr[atom];
            /* a closed-form law ratio (law_lo given) is good to ~4e-19 |lr|,
             * ~1e-30 where refined (a non-zero low part); a difference of
             * the laws' logs only to ~2e-19 (|ln P| + |ln Q|) */
            const double own = law_lo != NULL
                ? (law_lo[atom] != 0.0L ? 1e-30 : 4e-19) * (1.0 + fabs((double)lawr))
                : 2e-19 * (1.0 + fabs((double)lp[atom]) + fabs((double)lq[atom]));
            double *err = side == 0 ? err_l : err_r;
            /* bound = own + 4e-16 (cp + cq) >= own + 4e-16 cp >= own (cp, cq
             * >= 0, rounding monotone): the cell fails where these do,
             * before the second exp */
            if (!(own < err[i])) {
                continue;
            }
            const double cp = sp_exp_quiet((double)((prev_p - ib) - lp[atom]));
            if (!(own + 4e-16 * cp < err[i])) {
                continue;
            }
            const double cq = sp_exp_quiet((double)((prev_q - ib) - lq[atom]));
            const double bound = own + 4e-16 * (cp + cq);
            if (!(bound < err[i])) {
                continue;
            }
            const long double corr = sp_ld_log1p((long double)cp) - sp_ld_log1p((long double)cq);
            long double *base_p = side == 0 ? ll_p : lr_p, *lo_out = side == 0 ? ll_lo : rr_lo;
            const long double base_q = side == 0 ? ll_q[i] : lr_q[i];
            if (!(isfinite(lp[atom]) && isfinite(lq[atom]) && isfinite(lawr) && isfinite(corr)
                  && isfinite(base_q))) {
                continue;
            }
            const long double dl = lawr + corr;
            const long double new_p = base_q + dl;
            base_p[i] = new_p;
            lo_out[i] = (dl - (new_p - base_q)) + (law_lo != NULL ? law_lo[atom] : 0.0L);
            err[i] = bound;
        }
    }
}

void sp_laplace_pair_set_scale(sp_laplace_pair *pair, double scale)
{
    pair->scale = scale;
    pair->one_minus_u = -expm1(-1.0 / scale);
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
                                              l_lo, r_lo, c->scale, c->one_minus_u)
               : cell_log_positive(c->ll_q[j], c->lr_q[j], c->ll_p[j], c->lr_p[j], eps,
                                              -l_lo, -r_lo, c->scale, c->one_minus_u);
    return 1;
}

/* A sum of positive terms kept as v e^(sc + m / b): v rescaled to 1 past
 * 1e+-1000 (logl, ~2^-62 relative per rescale), and the growth by e^(+-1/b)
 * per step counted in m where 1/b > 64 (the long double range would not
 * hold it; m / b rounds once, ~2^-64 of it), so sums whose terms span more
 * than the long double range stay finite. */
typedef struct {
    long double v, sc;
    long m;
    int rescales;
} laplace_scaled;

static long double laplace_scaled_log(const laplace_scaled *s, long double inv_b)
{
    return s->v > 0.0L ? s->sc + (long double)s->m * inv_b + logl(s->v) : -INFINITY;
}

static void laplace_scaled_add(laplace_scaled *s, long double lf, long double inv_b)
{
    /* s += e^lf */
    if (lf == -INFINITY || isnan(lf)) {
        return;
    }
    if (s->v == 0.0L) {
        s->v = 1.0L;
        s->sc = lf;
        s->m = 0;
        return;
    }
    const long double d = lf - (s->sc + (long double)s->m * inv_b);
    if (d > 64.0L) {
        s->v = s->v * sp_fast_expl(-d) + 1.0L;
        s->sc = lf;
        s->m = 0;
        return;
    }
    s->v += sp_fast_expl(d);
}

/* s *= e^(step / b) (step = +-1; factor = e^(step / b) where counted == 0) */
static void laplace_scaled_step(laplace_scaled *s, int step, long double factor, int counted)
{
    if (s->v == 0.0L) {
        return;
    }
    if (counted) {
        s->m += step;
        return;
    }
    s->v *= factor;
    if (s->v > 1e1000L || s->v < 1e-1000L) {
        s->sc += logl(s->v);
        s->v = 1.0L;
        s->rescales++;
    }
}

/* e^(ln s - base) as a double (inf past e^700, 0 for an empty sum). */
static double laplace_scaled_ratio(const laplace_scaled *s, long double base, long double inv_b)
{
    const long double arg = laplace_scaled_log(s, inv_b) - base;
    return arg > 700.0L ? INFINITY : (arg == -INFINITY ? 0.0 : exp((double)arg));
}

/* A signed sum: positive and negative terms apart, with an absolute error bound. */
typedef struct {
    laplace_scaled pos, neg, err;
} laplace_signed;

static void laplace_signed_add(laplace_signed *s, long double lf, int negative, long double l_err,
                               long double inv_b)
{
    laplace_scaled_add(negative ? &s->neg : &s->pos, lf, inv_b);
    laplace_scaled_add(&s->err, l_err, inv_b);
}

static void laplace_signed_step(laplace_signed *s, int step, long double factor, int counted)
{
    laplace_scaled_step(&s->pos, step, factor, counted);
    laplace_scaled_step(&s->neg, step, factor, counted);
    laplace_scaled_step(&s->err, step, factor, counted);
}

/* sum / e^base as (value, absolute error bound); acc: the relative rounding
 * of each part (the recursions, the rescales, the final exps). */
static void laplace_signed_ratio(const laplace_signed *s, long double base, long double inv_b,
                                 double acc, double *value, double *abs_err)
{
    const double rp = laplace_scaled_ratio(&s->pos, base, inv_b);
    const double rn = laplace_scaled_ratio(&s->neg, base, inv_b);
    *value = rp - rn;
    *abs_err = (rp + rn) * acc + laplace_scaled_ratio(&s->err, base, inv_b);
}

/* log1p(r) and a bound on its relative error from r's absolute error a;
 * rel is INFINITY where r's error could reach -1 or the result is 0 with an
 * error. */
static double laplace_log1p_rel(double r, double a, double *rel)
{
    const double d = log1p(r);
    if (!(1.0 + r - a > 0.0) || !isfinite(d)) {
        *rel = INFINITY;
        return d;
    }
    const double abs_d = 1.01 * a / (1.0 + r - a) + 0x1p-52 * fabs(d);
    *rel = d != 0.0 ? abs_d / fabs(d) : (abs_d > 0.0 ? INFINITY : 0.0);
    return d;
}

/* Deficits of the Laplace-noise L and R log ratios against the right-tail
 * ratio (see laplace.h).  With u = e^(-1/b), w = 1/u, F = A - R B and
 * sum_k F(k) w^k = 0 (R = G_A(w) / G_B(w)), for the cell [x, x+1]:
 *   R L_B(x) - L_A(x) = sum_{k>x} F(k) w^(k-x)   =: S(x),
 *   R_A(x) - R R_B(x) = sum_{k>x} F(k) u^(k-x-1) =: T(x),
 * so ln L_A/L_B = ln R - log1p(S / L_A) and ln R_A/R_B = ln R + log1p(T / (R R_B)).
 * By one-step recursions S(x) = w (S(x+1) + F(x+1)), T(x) = F(x+1) + u T(x+1),
 * the positive and negative terms apart: above the crossing of the atom
 * ratio every F(k) >= 0 and S, T keep their relative accuracy however small;
 * below it the cancellation is in the error bound. */
long sp_laplace_deficits(const long double *la_in, const long double *lb_in,
                         const long double *lr_in, const long double *lo_in,
                         const long double *ll_a_in,
                         const long double *rb_in, const long double *cell_a_in, long n,
                         int mirror, double b, long double r_hi, long double r_lo,
                         long double *dl_out, long double *er_out, long double *dc_out,
                         double *rel_l_out, double *rel_r_out, double *rel_c_out)
{
#define AT(arr, i) ((arr)[mirror ? n - 1 - (i) : (i)])
#define CELL(arr, c) ((arr)[mirror ? n - (c) : (c)])
    const long double inv_b = 1.0L / (long double)b;
    const int counted = inv_b > 64.0L;       /* e^(1/b) past what v may absorb */
    const long double u = counted ? 0.0L : expl(-inv_b), w = counted ? 0.0L : expl(inv_b);
    const double sign = mirror ? -1.0 : 1.0;
    const long double ln_half_width = logl(-expm1l(-inv_b) / 2.0L);   /* cell = hw (L + R) */
    const laplace_scaled empty = {0.0L, 0.0L, 0, 0};
    laplace_signed s = {empty, empty, empty}, t = {empty, empty, empty};
    long done = n;
    for (long x = n - 2; x >= 0; x--) {
        const long k = x + 1;
        const long double la = AT(la_in, k), lb = AT(lb_in, k);
        /* lf = ln |F(k)|; l_err = ln of a bound on its absolute error: the
         * double transcendentals (~2^-50 of F) and the atom ratio's own error
         * e, which moves F by A(k) e -- however small F is (near the crossing,
         * or where the ratio agrees with R to more digits than it has) */
        long double lf = -INFINITY, l_err = -INFINITY;
        int negative = 0;
        if (lb == -INFINITY) {
            lf = la;                       /* F = A(k) >= 0 */
            l_err = la + logl(0x1p-50L + 0x1p-63L * fabsl(la));
        } else if (la == -INFINITY) {
            lf = lb + r_hi + r_lo;         /* F = -R B(k) */
            negative = 1;
            l_err = lf + logl(0x1p-50L + 0x1p-63L * fabsl(lb));
        } else {
            /* the atom ratio: closed form (lr_in, + lo_in) or the difference
             * of the laws' logs */
            long double lr;
            if (lr_in != NULL) {
                lr = sign * AT(lr_in, k);
            } else {
                lr = la - lb;
                lr = isnan(lr) ? 0.0L : lr;
            }
            const long double lo = lo_in == NULL ? 0.0L : sign * AT(lo_in, k);
            if (isnan(lr)) {
                break;
            }
            /* d = ln A(k)/B(k) - ln R, the sum of two double-doubles */
            const long double d = lr == INFINITY ? INFINITY : ((lr - r_hi) + (lo - r_lo));
            negative = d < 0.0L;
            if (d > 0.5L) {
                lf = la + log(-expm1(-(double)d));          /* A (1 - e^-d) */
            } else if (d > 0.0L) {
                lf = lb + r_hi + r_lo + log(expm1((double)d));   /* R B (e^d - 1) */
            } else if (d < -0.5L) {
                lf = lb + r_hi + r_lo + log(-expm1((double)d));  /* R B (1 - e^d) */
            } else if (d < 0.0L) {
                lf = la + log(expm1(-(double)d));            /* A (e^-d - 1) */
            }
            const long double e = sp_atom_log_ratio_err(lr_in == NULL ? lr : AT(lr_in, k),
                                                        lo_in == NULL ? 0.0L : AT(lo_in, k),
                                                        mirror ? lb : la, mirror ? la : lb,
                                                        lr_in != NULL);
            l_err = logl(expl(la) * e + (lf > -INFINITY ? expl(lf) : 0.0L)
                         * (0x1p-50L + 0x1p-63L * (fabsl(la) + fabsl(lb))));
            if (!(l_err > -INFINITY) || !isfinite(l_err)) {
                /* beyond the long double range: in logs */
                l_err = la + logl(e + (0x1p-50L + 0x1p-63L * (fabsl(la) + fabsl(lb)))
                                      * (d > 0.0L ? 1.0L : fmaxl(1.0L, expl(fminl(-d, 11000.0L)))));
            }
        }
        laplace_signed_add(&s, lf, negative, l_err, inv_b);
        laplace_signed_step(&s, 1, w, counted);
        laplace_signed_step(&t, -1, u, counted);
        laplace_signed_add(&t, lf, negative, l_err, inv_b);
        done = x;
        const long c = x + 1;
        CELL(rel_l_out, c) = CELL(rel_r_out, c) = CELL(rel_c_out, c) = INFINITY;
        CELL(dl_out, c) = CELL(er_out, c) = CELL(dc_out, c) = 0.0L;
        const long double ll_a = CELL(ll_a_in, c), rb = CELL(rb_in, c);
        /* the sums' own roundings: ~2^-63 per step and per rescale, and m / b */
        const int rescales = s.pos.rescales + s.neg.rescales + t.pos.rescales + t.neg.rescales;
        const long steps = labs(s.pos.m) + labs(s.neg.m) + labs(t.pos.m) + labs(t.neg.m);
        const double acc = 0x1p-50 + 0x1p-62 * (double)(4 * (n - x) + 4 * rescales)
                           + 0x1p-62 * (double)steps * (double)inv_b;
        double dl = INFINITY, er = INFINITY, dc = INFINITY, rel, r, a;
        if (ll_a > -INFINITY) {
            laplace_signed_ratio(&s, ll_a, inv_b, acc + 0x1p-63 * fabs((double)ll_a), &r, &a);
            dl = laplace_log1p_rel(r, a, &rel);
            CELL(dl_out, c) = dl;
            CELL(rel_l_out, c) = rel;
        }
        if (rb > -INFINITY) {
            laplace_signed_ratio(&t, rb + r_hi + r_lo, inv_b, acc + 0x1p-63 * fabs((double)rb),
                                 &r, &a);
            er = laplace_log1p_rel(r, a, &rel);
            CELL(er_out, c) = er;
            CELL(rel_r_out, c) = rel;
        }
        /* the cell masses: R C_B - C_A = hw (S - T) */
        const long double cell_a = CELL(cell_a_in, c);
        if (cell_a > -INFINITY) {
            const long double base = cell_a - ln_half_width;          /* ln(L_A + R_A) */
            const double acc_c = acc + 0x1p-63 * fabs((double)cell_a);
            double rs, as, rt, at;
            laplace_signed_ratio(&s, base, inv_b, acc_c, &rs, &as);
            laplace_signed_ratio(&t, base, inv_b, acc_c, &rt, &at);
            dc = laplace_log1p_rel(rs - rt, as + at + 0x1p-53 * fabs(rs - rt), &rel);
            CELL(dc_out, c) = dc;
            CELL(rel_c_out, c) = rel;
        }
        /* deeper cells: far from the tail ratio, where a plain difference of
         * logs is as good, or the cancellation has eaten the accuracy */
        const int far = !(fabs(dl) < 0.25) && !(fabs(er) < 0.25) && !(fabs(dc) < 0.25);
        const int lost = !(CELL(rel_l_out, c) * fabs(dl) < 1e-17)
                         && !(CELL(rel_r_out, c) * fabs(er) < 1e-17)
                         && !(CELL(rel_c_out, c) * fabs(dc) < 1e-17);
        if (far || (lost && x < n - 2)) {
            break;
        }
    }
#undef AT
#undef CELL
    return done;
}
