#include <float.h>
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
    const long double m = scale_atoms(la, n, w);
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
 * ratio (see noise.h).  With u = e^(-1/b), w = 1/u, F = A - R B and
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
                         const double *lr_err_in, const long double *ll_a_in,
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
    for (long c = 0; c <= n; c++) {
        rel_l_out[c] = INFINITY;
        rel_r_out[c] = INFINITY;
        rel_c_out[c] = INFINITY;
        dl_out[c] = 0.0L;
        er_out[c] = 0.0L;
        dc_out[c] = 0.0L;
    }
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
            const long double lr = sign * AT(lr_in, k);
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
            const long double e = AT(lr_err_in, k);
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

/* -------------------------------------------------------------- geometric */

/* The linear sums S_j with f(cell j) = c e^m S_j for atoms w[k] = A(k) e^-m:
 * S = L_x + R_x on the atoms, L_x = sum_{k<=x} w_k alpha^(x-k),
 * R_x = sum_{k>x} w_k alpha^(k-x); the tails (x < 0 and x > n-1) aggregated. */
static void geometric_sums(const long double *w, long n, long double alpha, long double *cell)
{
    const long double tail = alpha / (1.0L - alpha);           /* sum_{d>=1} alpha^d */
    long double L = 0.0L;
    for (long x = 0; x < n; x++) {
        L = alpha * L + w[x];
        cell[x + 1] = L;
    }
    cell[n + 1] = L * tail;                                  /* x > n-1: L_{n-1} */
    long double R = 0.0L;                                    /* R_x */
    for (long x = n - 1; x >= 0; x--) {
        cell[x + 1] += R;
        R = alpha * (R + w[x]);                              /* R_{x-1} */
    }
    cell[0] = R / alpha * tail;                              /* x < 0: (A(0) + R_0) */
}

static void geometric_side(const long double *la, long n, long double alpha, long double *cell,
                           long double *w)
{
    /* f(x) = c (L_x + R_x), linear relative to max A (w: workspace of n) */
    const long double m = scale_atoms(la, n, w);
    const long double lc = log1pl(-alpha) - log1pl(alpha);
    geometric_sums(w, n, alpha, cell);
    for (long j = 0; j < n + 2; j++) {
        cell[j] = m + lc + sp_fast_logl(cell[j]);
    }
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

/* Cell log ratios through the difference law D = P - Q (see noise.h). */
int sp_geometric_difference_ratios(const long double *lp, const long double *lq,
                                   const long double *law_lr, long n, double alpha,
                                   const long double *cell_lq, long double *lr, double *err)
{
    /* Everything linear relative to M = max(ln P, ln Q) >= ln|P - Q|: the
     * noisy Q and the two parts of D share one scale, so the ratios need no
     * logs (the laws were trimmed to ~11000 nats below M: no underflow). */
    long double *wq = calloc((size_t)(n > 0 ? n : 1), sizeof *wq);
    long double *w = calloc((size_t)(n > 0 ? n : 1), sizeof *w);
    long double *sq = malloc((size_t)(n + 2) * sizeof *sq);
    long double *sp = malloc((size_t)(n + 2) * sizeof *sp);
    long double *sn = malloc((size_t)(n + 2) * sizeof *sn);
    if (wq == NULL || w == NULL || sq == NULL || sp == NULL || sn == NULL) {
        free(wq);
        free(w);
        free(sq);
        free(sp);
        free(sn);
        return -1;
    }
    long double M = -INFINITY;
    for (long k = 0; k < n; k++) {
        M = fmaxl(M, fmaxl(lp[k], lq[k]));
    }
    for (long k = 0; k < n; k++) {
        wq[k] = M == -INFINITY ? 0.0L : sp_fast_expl(lq[k] - M);
    }
    geometric_sums(wq, n, alpha, sq);
    /* wq -> signed D = P - Q = Q expm1(lr) (= P where Q = 0): no cancellation */
    for (long k = 0; k < n; k++) {
        if (lq[k] == -INFINITY) {
            wq[k] = M == -INFINITY ? 0.0L : sp_fast_expl(lp[k] - M);
        } else if (isnan(law_lr[k])) {
            wq[k] = 0.0L;
        } else {
            /* double expm1: the bound below is for doubles anyway */
            wq[k] *= (long double)expm1((double)law_lr[k]);
        }
    }
    for (long k = 0; k < n; k++) {
        w[k] = wq[k] > 0.0L ? wq[k] : 0.0L;
    }
    geometric_sums(w, n, alpha, sp);
    for (long k = 0; k < n; k++) {
        w[k] = wq[k] < 0.0L ? -wq[k] : 0.0L;
    }
    geometric_sums(w, n, alpha, sn);
    for (long j = 0; j < n + 2; j++) {
        err[j] = 4e-16;                 /* a difference of two cell logs */
        if (cell_lq[j] == -INFINITY || !(sq[j] > 0.0L)) {
            continue;
        }
        const double up = (double)(sp[j] / sq[j]), down = (double)(sn[j] / sq[j]);
        if (up + down < 0.25) {
            lr[j] = log1p(up - down);
            err[j] = 4e-16 * (up + down) + 1e-18;
        }
    }
    free(wq);
    free(w);
    free(sq);
    free(sp);
    free(sn);
    return 0;
}

/* Deficits of the geometric-noise cell log ratios below the right-tail ratio.
 *
 * With c = (1-alpha)/(1+alpha), f_A(x) = c sum_k A(k) alpha^|x-k| and
 * R = G_A(1/alpha) / G_B(1/alpha) (G the generating function), the signed
 * law F = A - R B has sum_k F(k) alpha^-k = 0, so
 *   R f_B(x) - f_A(x) = -c sum_k F(k) alpha^|x-k|
 *                     = c sum_{k>x} F(k) (alpha^(x-k) - alpha^(k-x)) =: c V(x)
 * and the deficit D(x) = ln R - ln f_A(x)/f_B(x) = log1p(c V(x) / f_A(x)).
 * F(k) = B(k) R expm1(ln A(k)/B(k) - ln R) is formed from the accurate atom
 * log ratio, so D keeps its relative accuracy where A and B nearly agree and
 * where D is tiny (the cells next to the zero point of delta), unlike a
 * difference of two rounded cell logs.  Where every F(k), k > x, is >= 0
 * (the monotone-ratio laws above their crossing) V is a sum of positive
 * terms: S - T with S = sum F(k) alpha^(x-k), T = sum F(k) alpha^(k-x) <=
 * alpha^2 S, both by one-step recursions in scaled long double. */
long sp_geometric_deficits(const long double *la_in, const long double *lb_in,
                           const long double *lr_in, const long double *cell_in, long n,
                           int mirror, double alpha, long double r_hi, long double r_lo,
                           long double *deficit_out, double *rel_out)
{
    /* mirror: the arrays are read (and written) from the far end, and the
     * atom log ratio negated -- the left tail of Q/P without copies */
#define AT(arr, i) ((arr)[mirror ? n - 1 - (i) : (i)])
#define la(i) AT(la_in, i)
#define lb(i) AT(lb_in, i)
#define cell_la(i) AT(cell_in, i)
#define lr_ab(i) (mirror ? -AT(lr_in, i) : AT(lr_in, i))
#define deficit(i) AT(deficit_out, i)
#define rel_err(i) AT(rel_out, i)
    const long double a = alpha, inv_a = 1.0L / a;
    const long double lc = log1pl(-a) - log1pl(a);
    /* per-step rounding of the recursions and cell sums, amplified by the
     * cancellation S - T <= S (1 - alpha^2) and the geometric memory 1/(1-alpha) */
    const double amp = 16.0 + 8.0 / (double)(-expm1l(2.0L * logl(a)));
    long double s = 0.0L, t = 0.0L, sc = -INFINITY;
    long x = n - 1, done = n;
    for (long j = 0; j < n; j++) {
        rel_err(j) = INFINITY;
    }
    if (n < 1) {
        return 0;
    }
    deficit(n - 1) = 0.0L;             /* no atom above: f_A/f_B = R exactly */
    rel_err(n - 1) = 0.0;
    for (x = n - 2; x >= 0; x--) {
        const long k = x + 1;
        /* F(k) = A(k) - R B(k) <= A(k), as f = F e^-sc in linear long double */
        long double f = 0.0L;
        int have = 0;
        if (lb(k) == -INFINITY) {
            have = la(k) > -INFINITY;  /* F = A(k) >= 0 */
        } else if (la(k) == -INFINITY) {
            break;                     /* F = -R B(k) < 0: mixed signs below */
        } else {
            const long double d = (lr_ab(k) - r_hi) - r_lo;
            if (d < 0.0L || isnan(d)) {
                break;
            }
            have = d > 0.0L;
        }
        if (have) {
            if (sc == -INFINITY) {
                sc = la(k);
            } else if (la(k) > sc + 64.0L) {
                const long double g = sp_fast_expl(sc - la(k));
                s *= g;
                t *= g;
                sc = la(k);
            }
            if (lb(k) == -INFINITY) {
                f = sp_fast_expl(la(k) - sc);
            } else {
                /* transcendentals in double: F to ~1e-16 relative, as the cells */
                const long double d = (lr_ab(k) - r_hi) - r_lo;
                f = d > 0.5L ? sp_fast_expl(la(k) - sc) * -expm1((double)-d)
                             : sp_fast_expl(lb(k) + r_hi + r_lo - sc) * expm1((double)d);
            }
            s += f;
            t += f;
        }
        s *= inv_a;
        t *= a;
        if (s > 1e1000L) {
            sc += sp_fast_logl(s);
            t /= s;
            s = 1.0L;
        }
        long double dx = 0.0L;
        if (s > 0.0L) {
            /* D = log1p(c V / f_A), c V = e^(lc + sc) (s - t) */
            const long double arg = lc + sc - cell_la(x);
            const long double u = (s - t) * (fabsl(arg) < 700.0L ? (long double)exp((double)arg)
                                                                 : sp_fast_expl(arg));
            dx = log1p((double)u);
        }
        deficit(x) = dx;
        /* F, the cells (sp_fast_logl) and the last log1p/exp: ~2^-52 each */
        rel_err(x) = 0x1p-49 + 0x1p-63 * (amp + 4.0 * (double)(n - x));
        done = x;
        if (dx > 0.25L) {
            break;                     /* deeper cells: a plain difference is as good */
        }
    }
#undef AT
#undef la
#undef lb
#undef cell_la
#undef lr_ab
#undef deficit
#undef rel_err
    return done;
}

/* --------------------------------------------------------------- Gaussian */

/* With phi the N(0, sigma^2) density,
 *   f_P(x) - e^eps f_Q(x) = sum_k D_k phi(x - k),  D_k = P(k) - e^eps Q(k).
 * The Gaussian kernel is totally positive, so (variation diminishing,
 * Karlin) x -> f_P - e^eps f_Q changes sign at most as often as k -> D_k.
 * When P/Q is non-decreasing on the atoms (monotone likelihood ratio: every
 * law statpriv builds -- shifts of log-concave counts, the sampling
 * mixtures, the secret sample), D_k changes sign once, from - to +, so
 * f_P - e^eps f_Q has exactly one sign change x* (for ln min P/Q < eps <
 * ln max P/Q) and
 *   delta_plus(eps)  = sum_k D_k  P[N(k, sigma^2) > x*],
 *   delta_minus(eps) = sum_k D'_k P[N(k, sigma^2) < x*],  D'_k = Q(k) - e^eps P(k),
 * summed per atom in log space (positive and negative D apart), exact for
 * every sigma > 0: as sigma -> 0 the normal masses become 0/1 and the sum
 * becomes the noiseless sum_k (D_k)_+.
 *
 * Densities are evaluated relative to the atom k0 nearest x: with
 * t = x - k0 and j = k0 - k, (x - k)^2 - t^2 = j (2t + j), so
 *   ln f_A(x) = -t^2 / (2 sigma^2) + ln sum_k A(k) e^(-j (2t + j) / (2 sigma^2)) + c,
 * and the common first term cancels in ln f_P - ln f_Q: the log ratio is
 * exact even where (x - k)^2 / sigma^2 is 1e20 or more (sigma down to the
 * smallest double; the exponents are long double, whose range covers
 * 1/sigma^2 for every double sigma). */

static long double logaddexpl_(long double a, long double b)
{
    long double m = fmaxl(a, b);
    return m == -INFINITY ? -INFINITY : m + log1pl(expl(-fabsl(a - b)));
}

/* ln |D_k| for D_k = A(k) - e^eps B(k), (A, B) = (P, Q) (plus) or (Q, P);
 * returns the sign of D_k (0: D_k = 0, nothing to add).  With u = ln A(k)/B(k)
 * - eps, D_k = A(k)(1 - e^-u) for u > 0 and -e^eps B(k)(1 - e^u) for u < 0:
 * one log1mexp of u, which comes from the accurate ln P/Q (g->lr, g->lr_lo:
 * closed forms, double-double where refined) when the caller gave it, so
 * D_k keeps its relative accuracy when P(k) and Q(k) agree to 1e-9 (tiny
 * sampling rates) and when eps is near ln A(k)/B(k) (the zero point). */
static int gauss_log_d(const sp_gauss *g, int plus, long k, double eps, long double *ld)
{
    const long double la = plus ? g->lp[k] : g->lq[k];
    const long double lb = (plus ? g->lq[k] : g->lp[k]) + (long double)eps;
    long double u;
    if (la == -INFINITY && lb == -INFINITY) {
        return 0;
    }
    if (g->lr != NULL && isfinite(g->lr[k]) && isfinite(la) && isfinite(lb)) {
        const long double lo = g->lr_lo != NULL ? g->lr_lo[k] : 0.0L;
        u = plus ? (g->lr[k] - (long double)eps) + lo : (-g->lr[k] - (long double)eps) - lo;
    } else {
        u = la - lb;
    }
    /* u is exact to ~1e-30 absolute; ln(1 - e^-|u|) needs only double */
    if (u > 0.0L) {
        *ld = la + (u == INFINITY ? 0.0L : (long double)sp_log1mexp((double)-u));
        return 1;
    }
    if (u < 0.0L) {
        *ld = lb + (u == -INFINITY ? 0.0L : (long double)sp_log1mexp((double)u));
        return -1;
    }
    return 0;
}

static long double log_density_rel(const long double *la, long double amax, long len,
                                   long double inv2s2, long k0, double t)
{
    /* stop where no further atom can add e^-45 of the largest term so far
     * (the exponents fall at least linearly past the nearest atom, so the
     * rest sums to less than a few times its first term) */
    sp_logsum acc = {0.0L, 0.0L};
    long double best = -INFINITY;
    for (long k = k0; k >= 0; k--) {
        long double j = (long double)(k0 - k);
        long double e = j == 0.0L ? 0.0L : -j * (2.0L * t + j) * inv2s2;
        if (j > 0.0L && amax + e < best - 45.0L) {
            break;
        }
        best = fmaxl(best, la[k] + e);
        sp_logsum_add(&acc, la[k] + e);
    }
    for (long k = k0 + 1; k < len; k++) {
        long double j = (long double)(k0 - k);
        long double e = -j * (2.0L * t + j) * inv2s2;
        if (amax + e < best - 45.0L) {
            break;
        }
        best = fmaxl(best, la[k] + e);
        sp_logsum_add(&acc, la[k] + e);
    }
    /* sp_logsum_log clamps at 0 (a probability); these are not */
    return acc.sum > 0.0L ? acc.ref + sp_fast_logl(acc.sum) : -INFINITY;
}

/* ln f_P(x) - ln f_Q(x) - ln P(k0)/Q(k0) = log1p((S_P - S_Q) / (1 + S_Q)) with
 * S_A = sum_{k != k0} A(k)/A(k0) w_k, w_k = e^(-j (2t + j) / (2 sigma^2)),
 * and S_P - S_Q summed term by term as Q(k)/Q(k0) w_k expm1(L_k - L_k0)
 * (L = lr + lr_lo, the accurate log ratio), positive and negative terms
 * apart: the difference keeps its relative accuracy where P and Q nearly
 * agree, instead of being the difference of two rounded log1p's (requires
 * g->lr and finite lp[k0], lq[k0], lr[k0]).  The walk on each side stops
 * where no further atom can add e^-45 of the largest term of either sum so
 * far (the exponents fall at least linearly past the nearest atom). */
static long double log_ratio_excess(const sp_gauss *g, long double inv2s2, long k0, double t)
{
    const long double *lp = g->lp, *lq = g->lq;
    const long double bp = lp[k0], bq = lq[k0];
    const long double l0 = g->lr[k0] + (g->lr_lo != NULL ? g->lr_lo[k0] : 0.0L);
    /* a bound on ln(A(k)/A(k0)) over k for either law, for the stopping rule */
    const long double top = fmaxl(g->lpmax - bp, g->lqmax - bq) + LN2;
    sp_logsum sq = {0.0L, 0.0L}, sp = {0.0L, 0.0L}, dpos = {0.0L, 0.0L}, dneg = {0.0L, 0.0L};
    /* largest term so far of the shares (the k0 term, 1) and of S_P - S_Q:
     * every |term| of S_P - S_Q is below max(A(k)/A(k0) w_k over A = P, Q)
     * (|expm1(d)| < max(1, e^d)), so an atom both of whose shares are e^-50
     * below the largest term of a sum adds nothing to that sum */
    long double best_s = 0.0L, best_d = -INFINITY;
    for (int side = 0; side < 2; side++) {
        const long step = side == 0 ? -1 : 1;
        for (long k = k0 + step; k >= 0 && k < g->len; k += step) {
            const long double j = (long double)(k0 - k);
            const long double e = -j * (2.0L * t + j) * inv2s2;
            const long double floor = best_d > -INFINITY ? fminl(best_s, best_d) : best_s;
            if (top + e < floor - 45.0L) {
                break;
            }
            const long double aq = (lq[k] - bq) + e, ap = (lp[k] - bp) + e;
            const long double amax = fmaxl(aq, ap);
            if (amax >= best_s - 50.0L) {
                sp_logsum_add(&sq, aq);
                sp_logsum_add(&sp, ap);
                best_s = fmaxl(best_s, amax);
            }
            if (best_d > -INFINITY && amax < best_d - 50.0L) {
                continue;
            }
            long double term;
            int sign;
            if (lq[k] == -INFINITY) {
                if (lp[k] == -INFINITY) {
                    continue;
                }
                term = ap, sign = 1;               /* an atom of P only */
            } else if (lp[k] == -INFINITY) {
                term = aq, sign = -1;              /* of Q only: expm1(-inf) = -1 */
            } else {
                long double lk = isfinite(g->lr[k])
                                     ? g->lr[k] + (g->lr_lo != NULL ? g->lr_lo[k] : 0.0L)
                                     : lp[k] - lq[k];
                long double d = lk - l0;
                if (d == 0.0L) {
                    continue;
                }
                long double em = expm1l(d);
                term = aq + logl(fabsl(em)), sign = em > 0.0L ? 1 : -1;
            }
            best_d = fmaxl(best_d, term);
            sp_logsum_add(sign > 0 ? &dpos : &dneg, term);
        }
    }
    const long double lpos = dpos.sum > 0.0L ? dpos.ref + logl(dpos.sum) : -INFINITY;
    const long double lneg = dneg.sum > 0.0L ? dneg.ref + logl(dneg.sum) : -INFINITY;
    if (lpos == lneg) {
        return 0.0L;                       /* includes both empty */
    }
    /* ln(1 + S) from the log of S, without losing a small S */
    long double lsq = 0.0L, lsp = 0.0L;
    if (sq.sum > 0.0L) {
        long double L = sq.ref + logl(sq.sum);
        lsq = L > 0.0L ? L + log1pl(expl(-L)) : log1pl(expl(L));
    }
    if (sp.sum > 0.0L) {
        long double L = sp.ref + logl(sp.sum);
        lsp = L > 0.0L ? L + log1pl(expl(-L)) : log1pl(expl(L));
    }
    long double v;                        /* (S_P - S_Q) / (1 + S_Q) */
    if (lpos > lneg) {
        v = expl(lpos + sp_log1mexpl(lneg - lpos) - lsq);
    } else {
        v = -expl(lneg + sp_log1mexpl(lpos - lneg) - lsq);
    }
    /* |v| small: log1p of the accurate difference; else the ratio of the
     * two sums is far from 1 and their logs differ without cancellation */
    return fabsl(v) <= 0.5L ? log1pl(v) : lsp - lsq;
}

/* h(x) = ln f_A(x) - ln f_B(x) - eps with (A, B) = (P, Q) or (Q, P). */
typedef struct {
    const sp_gauss *g;
    int plus;
    double eps;
    long double inv2s2;
} ratio_fn;

static double ratio_h(const ratio_fn *r, double x)
{
    const sp_gauss *g = r->g;
    long k0 = sp_nearest_atom(x, g->len);
    double t = x - (double)k0;               /* exact: |x| < 2^52 where it matters */
    if (g->lr != NULL && isfinite(g->lp[k0]) && isfinite(g->lq[k0]) && isfinite(g->lr[k0])) {
        /* ln f_P - ln f_Q = ln P(k0)/Q(k0) + excess_P - excess_Q: h keeps
         * its accuracy relative to its own size near the zero point, where
         * ln P(k0)/Q(k0) - eps is 1e-14 (the crossing, and through it delta,
         * would otherwise move with the rounding of ln f) */
        long double x = log_ratio_excess(g, r->inv2s2, k0, t);
        long double lo = g->lr_lo != NULL ? g->lr_lo[k0] : 0.0L;
        long double h = r->plus ? ((g->lr[k0] - (long double)r->eps) + lo) + x
                                : ((-g->lr[k0] - (long double)r->eps) - lo) - x;
        return (double)h;
    }
    long double fp = log_density_rel(g->lp, g->lpmax, g->len, r->inv2s2, k0, t);
    long double fq = log_density_rel(g->lq, g->lqmax, g->len, r->inv2s2, k0, t);
    long double h = r->plus ? fp - fq : fq - fp;
    return (double)(h - r->eps);
}

static double ratio_h_fn(double x, const void *ctx)
{
    return ratio_h(ctx, x);
}

/* Root of h in [lo, hi] given h(lo) and h(hi) of opposite signs: Illinois
 * secant steps alternating with bisections, so the bracket at least halves
 * every two evaluations even where h is a staircase (sigma << 1: plateaus
 * at the atoms, jumps between them).  delta is stationary in the root (the
 * integrand vanishes there), so a root error d changes delta only by
 * ~ |h'| f d^2 / 2. */
static double bracket_root(const ratio_fn *r, double lo, double flo, double hi, double fhi)
{
    const int lo_positive = flo > 0.0;
    double older = INFINITY, old = INFINITY;     /* widths one and two steps back */
    for (int it = 0; it < SP_GAUSS_MAX_ROOT_EVALS; it++) {
        double width = hi - lo, scale = fmax(fabs(lo), fabs(hi));
        if (width <= 1e-15 * scale || width <= 4.0 * (nextafter(scale, INFINITY) - scale)) {
            break;
        }
        double x = lo + 0.5 * width;
        /* secant unless two steps did not halve the bracket */
        if (width <= 0.5 * older && isfinite(flo) && isfinite(fhi) && flo != fhi) {
            double secant = hi - fhi * width / (fhi - flo);
            if (secant > lo && secant < hi) {
                x = secant;
            }
        }
        older = old, old = width;
        if (x == lo + 0.5 * width) {
            older = old = INFINITY;               /* a bisection resets the test */
        }
        double fx = ratio_h(r, x);
        if (isnan(fx)) {
            break;
        }
        if (fx == 0.0) {
            return x;
        }
        if ((fx > 0.0) == lo_positive) {
            lo = x, flo = fx;
            fhi *= 0.5;                   /* Illinois: damp the retained end */
        } else {
            hi = x, fhi = fx;
            flo *= 0.5;
        }
    }
    return 0.5 * (lo + hi);
}

/* ln of the N(0, 1) mass of [a, b] (a < b, either may be infinite), without
 * cancellation: upper tails differenced in the upper tail, lower in the
 * lower. */
static double log_normal_mass(const sp_gauss *g, double a, double b)
{
    double (*lndtr)(double) = g->log_ndtr;
    if (!(a < b)) {
        return -INFINITY;
    }
    if (a >= 0.0) {            /* Phi_bar(a) - Phi_bar(b) */
        double la = lndtr(-a), lb = lndtr(-b);
        return lb == -INFINITY ? la : la + sp_log1mexp(lb - la);
    }
    if (b <= 0.0) {            /* Phi(b) - Phi(a) */
        double lb = lndtr(b), la = lndtr(a);
        return la == -INFINITY ? lb : lb + sp_log1mexp(la - lb);
    }
    /* a < 0 < b: 1 - Phi(a) - Phi_bar(b), and each of those is < 1/2 */
    return log1p(-(exp(lndtr(a)) + exp(lndtr(-b))));
}

/* (x - k) / sigma for the normal masses: 0 stays 0 and +-inf stays +-inf
 * even when sigma is so small that the quotient overflows. */
static double standardize(double x, double k, double s)
{
    double d = x - k;
    return d == 0.0 ? 0.0 : d / s;
}

/* ln of sum_k D_k P[N(k, sigma^2) in [a, b]] with D_k = A(k) - e^eps B(k),
 * the positive and negative terms summed apart in log space (per atom
 * without cancellation: D_k = A(k)(1 - e^(eps + ln B(k) - ln A(k)))).
 * Expands from the atoms nearest the interval; the atoms not visited add at
 * most (tail mass of A + e^eps tail mass of B) times the normal mass of the
 * interval from the current atom, and the walk stops when that is below
 * e^-60 of the positive sum.  *lpos and *lneg receive the two logs. */
static void log_interval_sum(const sp_gauss *g, int plus, double eps, double a, double b,
                             long double *lpos, long double *lneg)
{
    const long double *lsa = plus ? g->lsp : g->lsq, *lca = plus ? g->lcp : g->lcq;
    const long double *lsb = plus ? g->lsq : g->lsp, *lcb = plus ? g->lcq : g->lcp;
    const double s = g->sigma;
    const long len = g->len;
    double mid = isfinite(a) && isfinite(b) ? 0.5 * (a + b) : (isfinite(a) ? a : b);
    long k0 = sp_nearest_atom(mid, len);
    sp_logsum pos = {0.0L, 0.0L}, neg = {0.0L, 0.0L};
    for (int side = 0; side < 2; side++) {
        long k = side == 0 ? k0 : k0 + 1, step = side == 0 ? -1 : 1;
        for (; k >= 0 && k < len; k += step) {
            double kk = (double)k;
            if (pos.sum > 0.0L) {
                long double tail = side == 0 ? logaddexpl_(lca[k], lcb[k] + eps)
                                             : logaddexpl_(lsa[k], lsb[k] + eps);
                double beyond = side == 0 ? (kk < a ? g->log_ndtr(standardize(kk, a, s)) : 0.0)
                                          : (kk > b ? g->log_ndtr(standardize(b, kk, s)) : 0.0);
                if (tail + beyond < pos.ref + sp_fast_logl(pos.sum) - 60.0L) {
                    break;
                }
            }
            long double ld;
            const int sign = gauss_log_d(g, plus, k, eps, &ld);
            if (sign == 0) {
                continue;
            }
            long double m = (long double)log_normal_mass(g, standardize(a, kk, s),
                                                         standardize(b, kk, s));
            sp_logsum_add(sign > 0 ? &pos : &neg, ld + m);
        }
    }
    *lpos = pos.sum > 0.0L ? pos.ref + sp_fast_logl(pos.sum) : -INFINITY;
    *lneg = neg.sum > 0.0L ? neg.ref + sp_fast_logl(neg.sum) : -INFINITY;
}

/* ln P[N(0,1) > v] + cref: for v > 1 as -v^2/2 + ln(erfcx(v / sqrt 2) / 2)
 * with v^2/2 = c + jterm passed exactly (c = t^2 / (2 sigma^2), jterm =
 * j (2t + j) / (2 sigma^2) from the exact t = x - k0 and integer j, in long
 * double), not from the rounded double v; cref is 0 or c (a common factor
 * e^-c taken out of every term when x is beyond all atoms: the far-tail
 * terms that cancel then keep their differences exactly). */
static long double log_upper(const sp_gauss *g, double v, long double jterm, long double c,
                             long double cref)
{
    if (v > 1.0) {
        return -((c - cref) + jterm) + (long double)log(0.5 * g->erfcx(v * 0.70710678118654752440));
    }
    return (long double)g->log_ndtr(-v) + cref;
}

/* The one-sided sums of the monotone path: with T_k = P[N(k, sigma^2) > x]
 * (upper) or < x (lower) and D_k = A(k) - e^eps B(k), the logs of the sums
 * of the positive and of the negative D_k T_k. */
static void log_tail_sum(const sp_gauss *g, int plus, double eps, double x, int upper,
                         long double inv2s2, long double *lpos, long double *lneg,
                         long double *lref)
{
    const long double *lsa = plus ? g->lsp : g->lsq, *lca = plus ? g->lcp : g->lcq;
    const long double *lsb = plus ? g->lsq : g->lsp, *lcb = plus ? g->lcq : g->lcp;
    const double s = g->sigma;
    const long len = g->len;
    const long k0 = sp_nearest_atom(x, len);
    const double t = x - (double)k0;
    const long double c = (long double)t * (long double)t * inv2s2;
    /* x beyond every atom (all T_k < 1/2): take e^-c out of every term */
    const long double cref = (upper ? x >= (double)(len - 1) : x <= 0.0) ? c : 0.0L;
    sp_logsum pos = {0.0L, 0.0L}, neg = {0.0L, 0.0L};
    /* the inner side first (side 1 = atoms above k0), so that the positive
     * sum the cutoff compares with is there when the away side is walked */
    for (int pass = 0; pass < 2; pass++) {
        const int side = upper ? 1 - pass : pass;
        int walk_inner = 0;
        const long step = side == 0 ? -1 : 1;
        for (long k = side == 0 ? k0 : k0 + 1; k >= 0 && k < len; k += step) {
            const long double j = (long double)(k0 - k);
            /* v: distance of x from atom k in sd, on the far side of the tail */
            double v = standardize(x, (double)k, s);
            if (!upper) {
                v = -v;
            }
            const long double jterm = j == 0.0L ? 0.0L : j * (2.0L * t + j) * inv2s2;
            const int away = (side == 0) == (upper != 0);
            int inner = !away && v < -SP_GAUSS_INNER_SD;
            if (inner && !walk_inner) {
                /* this atom and all beyond it lie > 12 sd inside the tail:
                 * T = 1 to 1e-32, and their sum of D is S_A - e^eps S_B in
                 * closed form from the cumulative sums (long double) -- if
                 * that difference does not cancel: the sums carry ~1e-18
                 * relative rounding, so where S_A and e^eps S_B agree to
                 * 1e-5 (P ~ Q at tiny sampling rates, or eps near the zero
                 * point) the atoms are summed one by one from here on, each
                 * D_k from the accurate log ratio (gauss_log_d) */
                long double ra = side == 0 ? lca[k] : lsa[k];
                long double rb = (side == 0 ? lcb[k] : lsb[k]) + eps;
                if (fabsl(ra - rb) > 1e-5L || ra == -INFINITY || rb == -INFINITY) {
                    if (ra > rb) {
                        sp_logsum_add(&pos, ra + sp_log1mexp((double)(rb - ra)) + cref);
                    } else if (rb > ra) {
                        sp_logsum_add(&neg, rb + sp_log1mexp((double)(ra - rb)) + cref);
                    }
                    break;
                }
                walk_inner = 1;
            }
            /* > 12 sd inside: T = 1 to 1e-32 (as in the closed form above) */
            const long double lt = inner ? cref : log_upper(g, v, jterm, c, cref);
            if (pos.sum > 0.0L) {
                /* atoms beyond k add at most (tail mass of A + e^eps tail
                 * mass of B) times T at k on the side away from the tail
                 * (T decreases there), times 1 on the inner side */
                long double tail = side == 0 ? fmaxl(lca[k], lcb[k] + eps)
                                             : fmaxl(lsa[k], lsb[k] + eps);
                tail += LN2 + (away ? lt : cref);
                if (tail < pos.ref + sp_fast_logl(pos.sum) - 60.0L) {
                    break;
                }
            }
            long double ld;
            const int sign = gauss_log_d(g, plus, k, eps, &ld);
            if (sign != 0) {
                sp_logsum_add(sign > 0 ? &pos : &neg, ld + lt);
            }
        }
    }
    *lpos = pos.sum > 0.0L ? pos.ref + sp_fast_logl(pos.sum) : -INFINITY;
    *lneg = neg.sum > 0.0L ? neg.ref + sp_fast_logl(neg.sum) : -INFINITY;
    *lref = cref;
}

/* ln int_x^inf (upper) or int_-inf^x of (f_A - e^eps f_B), an interval on
 * which it is >= 0. */
static long double log_tail_piece(const sp_gauss *g, int plus, double eps, double x, int upper,
                                  long double inv2s2)
{
    long double lpos, lneg, cref;
    log_tail_sum(g, plus, eps, x, upper, inv2s2, &lpos, &lneg, &cref);
    if (lpos == -INFINITY) {
        return -INFINITY;
    }
    if (!(lpos > lneg)) {
        return lpos - cref;   /* cancellation below rounding: the conservative bound */
    }
    return lpos + sp_log1mexpl(lneg - lpos) - cref;
}

/* ln int_a^b (f_A - e^eps f_B) for an interval on which it is >= 0. */
static long double log_piece(const sp_gauss *g, int plus, double eps, double a, double b)
{
    long double lpos, lneg;
    log_interval_sum(g, plus, eps, a, b, &lpos, &lneg);
    if (lpos == -INFINITY) {
        return -INFINITY;
    }
    if (!(lpos > lneg)) {
        /* cancellation below the rounding of the sums: the positive part is
         * the conservative bound */
        return lpos;
    }
    return lpos + sp_log1mexpl(lneg - lpos);
}

/* ln sum_k A(k) P[N(k, sigma^2) > x] (upper) or < x: an upper bound of the
 * positive part beyond x, used where the sign change cannot be bracketed. */
static long double log_tail_bound(const sp_gauss *g, int plus, double x, int upper)
{
    long double lpos, lneg;
    /* eps = -inf turns every D_k into A(k): the plain mass of A */
    log_interval_sum(g, plus, -INFINITY, upper ? x : -INFINITY, upper ? INFINITY : x, &lpos,
                     &lneg);
    return lpos;
}

/* Sign of f_A - e^eps f_B as x -> +inf (dir > 0) or -inf: the sign of D at
 * the extreme atom with D != 0 (0 if there is none). */
static int far_sign(const sp_gauss *g, int plus, double eps, int dir)
{
    for (long i = 0; i < g->len; i++) {
        long k = dir > 0 ? g->len - 1 - i : i;
        long double ld;
        int sign = gauss_log_d(g, plus, k, eps, &ld);
        if (sign != 0) {
            return sign;
        }
    }
    return 0;
}

/* A sign change of h beyond x0 in direction dir (h(x0) = f0), by doubling
 * steps; the root, or NAN if none within the bounded search. */
static double outer_root(const ratio_fn *r, double x0, double f0, double step, int dir)
{
    double x = x0, fx = f0;
    for (int it = 0; it < 400; it++) {
        double y = x + dir * step, fy = ratio_h(r, y);
        if (!isfinite(y) || isnan(fy)) {
            return NAN;
        }
        if ((fy > 0.0) != (fx > 0.0)) {
            return dir > 0 ? bracket_root(r, x, fx, y, fy) : bracket_root(r, y, fy, x, fx);
        }
        x = y, fx = fy, step *= 2.0;
    }
    return NAN;
}

/* General laws (P/Q not monotone on the atoms): scan a grid fine against
 * sigma and the atom spacing over the atoms +- 40 sigma, refine each sign
 * change, and add up the positive pieces.  Beyond the grid the sign tends
 * to that of D's extreme atoms; where it differs from the grid end's, the
 * crossing is searched outward (an even number of further crossings beyond
 * the grid is not excluded: this path is exact only for laws whose D has
 * no more sign changes than the grid finds, as with every law statpriv
 * builds -- those take the monotone path anyway). */
static long double gauss_scan(const sp_gauss *g, const ratio_fn *r, double eps, int plus)
{
    const double s = g->sigma, first = 0.0, last = (double)(g->len - 1);
    sp_logsum acc = {0.0L, 0.0L};
    double pad = 40.0 * s + 1.0;
    double step = fmin(s / SP_GAUSS_GRID_PER_SIGMA, 0.125);
    long points = (long)ceil((last - first + 2.0 * pad) / step) + 1;
    if (points > SP_GAUSS_MAX_GRID) {
        points = SP_GAUSS_MAX_GRID;
        step = (last - first + 2.0 * pad) / (double)(points - 1);
    }
    double x_prev = first - pad, h_prev = ratio_h(r, x_prev);
    double start = NAN;                       /* left end of an open positive piece */
    int left = far_sign(g, plus, eps, -1);
    if (left > 0 && h_prev > 0.0) {
        start = -INFINITY;
    } else if ((left > 0) != (h_prev > 0.0)) {
        double root = outer_root(r, x_prev, h_prev, fmax(s, 1.0), -1);
        if (!isnan(root)) {
            if (h_prev > 0.0) {
                start = root;
            } else {
                sp_logsum_add(&acc, log_piece(g, plus, eps, -INFINITY, root));
            }
        } else if (h_prev > 0.0) {
            start = -INFINITY;               /* conservative: take all of the left */
        } else {
            sp_logsum_add(&acc, log_tail_bound(g, plus, x_prev, 0));
        }
    }
    for (long i = 1; i < points; i++) {
        double x = first - pad + (double)i * step;
        double h = ratio_h(r, x);
        if ((h > 0.0) != (h_prev > 0.0)) {
            double root = bracket_root(r, x_prev, h_prev, x, h);
            if (h > 0.0) {
                start = root;
            } else {
                sp_logsum_add(&acc, log_piece(g, plus, eps, start, root));
                start = NAN;
            }
        }
        x_prev = x, h_prev = h;
    }
    int right = far_sign(g, plus, eps, 1);
    if ((right > 0) != (h_prev > 0.0)) {
        double root = outer_root(r, x_prev, h_prev, fmax(s, 1.0), 1);
        if (isnan(root)) {
            if (h_prev > 0.0) {
                sp_logsum_add(&acc, log_piece(g, plus, eps, start, INFINITY));
            } else {
                sp_logsum_add(&acc, log_tail_bound(g, plus, x_prev, 1));
            }
            start = NAN;
        } else if (h_prev > 0.0) {
            sp_logsum_add(&acc, log_piece(g, plus, eps, start, root));
            start = NAN;
        } else {
            start = root;
        }
    }
    if (!isnan(start)) {
        sp_logsum_add(&acc, log_piece(g, plus, eps, start, INFINITY));
    }
    return acc.sum > 0.0L ? acc.ref + sp_fast_logl(acc.sum) : -INFINITY;
}

/* One direction for eps >= 0.  ln delta, or -inf exactly where delta = 0. */
static double gauss_direction(const sp_gauss *g, double eps, int plus)
{
    const double s = g->sigma, first = 0.0, last = (double)(g->len - 1);
    const long double inv2s2 = 0.5L / ((long double)s * (long double)s);
    ratio_fn r = {g, plus, eps, inv2s2};
    /* every D_k <= 0 (eps >= ln max A/B): f_A <= e^eps f_B everywhere */
    if ((plus ? ((long double)eps - g->lr_max) - g->lr_max_lo
              : ((long double)eps + g->lr_min) + g->lr_min_lo) >= 0.0L) {
        return -INFINITY;
    }
    double result;
    if (g->monotone) {
        /* h increases (plus) or decreases (minus) in x: one crossing x*, and
         * the positive part is [x*, inf) or (-inf, x*].  Bracket it by
         * doubling steps outward from the atoms; D's extreme atom of the
         * positive side is > 0, so the far side's sign is positive. */
        const double sign_in = plus ? 1.0 : -1.0;   /* direction where h > 0 */
        double step = fmax(s, 1.0);
        double in = plus ? last + step : first - step;   /* want h(in) > 0 */
        double out = plus ? first - step : last + step;  /* want h(out) <= 0 */
        double fin = ratio_h(&r, in), fout = ratio_h(&r, out);
        /* beyond the atoms h grows like (x - last) / sigma^2 (or tends to a
         * limit that eps is below), so at large eps the crossing lies about
         * sigma^2 eps out: start the outward steps at that scale */
        double st = fmax(step, 0.25 * s * s * eps);
        for (int it = 0; it < 400 && !(fin > 0.0) && isfinite(in); it++) {
            out = in, fout = fin;
            in += sign_in * st, st *= 2.0;
            fin = ratio_h(&r, in);
        }
        st = step;
        for (int it = 0; it < 400 && fout > 0.0 && isfinite(out); it++) {
            in = out, fin = fout;
            out -= sign_in * st, st *= 2.0;
            fout = ratio_h(&r, out);
        }
        long double v;
        if (!(fin > 0.0)) {
            /* not bracketed within 2^400 steps (or NaN): the positive part
             * lies beyond `in`, bounded by the mass of A there */
            v = log_tail_bound(g, plus, in, plus);
        } else if (fout > 0.0) {
            v = log_piece(g, plus, eps, -INFINITY, INFINITY);   /* h > 0 on the line */
        } else {
            double x = plus ? bracket_root(&r, out, fout, in, fin)
                            : bracket_root(&r, in, fin, out, fout);
            v = log_tail_piece(g, plus, eps, x, plus, inv2s2);
        }
        result = (double)v;
    } else {
        result = (double)gauss_scan(g, &r, eps, plus);
    }
    /* eps < ln max A/B here, so delta > 0: a result below the double range
     * is reported as the most negative finite double (see noise.h). */
    return result == -INFINITY ? -DBL_MAX : result;
}

double sp_gauss_curve_log_delta(double eps, int direction, const void *ctx)
{
    const sp_gauss *g = ctx;
    if (isnan(eps)) {
        return NAN;
    }
    if (eps < 0.0) {
        int reverse = direction == SP_PLUS ? 0 : 1;   /* plus <-> minus */
        if (direction == SP_MAX) {
            return fmax(sp_gauss_curve_log_delta(eps, SP_PLUS, ctx),
                        sp_gauss_curve_log_delta(eps, SP_MINUS, ctx));
        }
        return sp_log_hockey_negative_eps(eps, gauss_direction(g, -eps, reverse));
    }
    if (eps == INFINITY) {
        return -INFINITY;      /* H_inf = 0: the ratio is finite at every x */
    }
    if (direction == SP_MAX) {
        return fmin(0.0, fmax(gauss_direction(g, eps, 1), gauss_direction(g, eps, 0)));
    }
    /* delta <= 1: clamping the rounding of a total variation of 1 - 1e-20 is
     * still conservative */
    return fmin(0.0, gauss_direction(g, eps, direction == SP_PLUS));
}
