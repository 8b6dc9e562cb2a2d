/* Counts plus independent noise (docs/mathematics.md §6): the noisy laws are mixtures
 * f_A(x) = sum_k A(k) noise(x - k) of the count laws A = P (target positive)
 * and Q (target negative), given as log pmfs on consecutive integer atoms.
 * No quadrature and no grids where the structure allows closed forms:
 * Laplace and geometric noise reduce to cells handled by the pair kernel,
 * Gaussian noise to normal tail sums at the sign changes of f_P - e^eps f_Q.
 * Logs of masses are long double throughout (see shift_tail.h's sp_pair). */
#ifndef STATPRIV_NOISE_H
#define STATPRIV_NOISE_H

/* ln of int_0^1 (a e^(-t/b) + c e^(-(1-t)/b))_+ dt / (2b) with
 * a = e^la_p - e^(eps + la_q), c = e^lc_p - e^(eps + lc_q): the exact
 * positive part of f_P - e^eps f_Q on one unit cell of a count plus
 * Laplace(b) noise.  At most one sign change; closed form.  la_lo, lc_lo:
 * low parts of the log ratios la_p - la_q and lc_p - lc_q (0 if none). */
long double sp_laplace_cell_log_positive(long double la_p, long double lc_p, long double la_q,
                                         long double lc_q, long double eps, long double la_lo,
                                         long double lc_lo, double b);

/* Laplace(b) cells for atoms 0..n-1 (n >= 1): n + 1 cells, the left tail
 * (-inf, 0], the unit intervals [j, j+1], the right tail [n-1, inf).
 * Writes the log masses of every cell under P and Q (cell_lp, cell_lq) and,
 * for the interior cells 1..n-1, the logs of L and R of P and Q
 * (sp_pair's ll_p ...); entries 0 and n of those are set to -inf.
 * Exps and logs to long double accuracy (expl, logl). */
void sp_laplace_cells(const long double *lp, const long double *lq, long n, double b,
                      long double *cell_lp, long double *cell_lq,
                      long double *ll_p, long double *lr_p, long double *ll_q, long double *lr_q);

/* One law's Laplace(b) cells (cell_la, ll, lr as sp_laplace_cells writes for
 * P): for a pure shift P = Q(. - 1) the caller derives P's from Q's.  Exps
 * and logs to ~1e-16 (fast): the shift's ratios near +-1/b are closed forms. */
void sp_laplace_cells_one(const long double *la, long n, double b, long double *cell_la,
                          long double *ll, long double *lr);

/* Laplace(b) cells near the right-tail zero point: the L and R log ratios
 * of cell [x, x+1] (cell c = x + 1) as ln R - dl[c] and ln R + er[c], with
 * ln R = r_hi + r_lo = ln G_A(w)/G_B(w) (w = e^(1/b)) the exact tail ratio and
 * dl = log1p(S(x) / L_A(x)), er = log1p(T(x) / (R R_B(x))) from the signed law
 * F = A - R B (sum_k F(k) w^k = 0): S(x) = sum_{k>x} F(k) w^(k-x) and
 * T(x) = sum_{k>x} F(k) u^(k-x-1), u = 1/w, sums of positive terms above
 * the crossing of the atom ratio, so dl and er keep their relative accuracy
 * (rel_l, rel_r; INFINITY where not computed) however small they are.
 * lr_ab + lo_ab (lo_ab may be NULL): ln A(k)/B(k) to absolute error
 * lr_err[k]; ll_a, rb, cell_a (n + 1 cells): ln L_A, ln R_B and ln of A's
 * cell masses; dc: the deficit of the cell-mass log ratio (R C_B - C_A is
 * hw (S - T), a difference: rel_c carries its amplification).  mirror != 0: the
 * left tail of B/A, read from the far end -- pass A = Q, B = P, ll_a = ln
 * R_Q, rb = ln L_P and ln R = -(left ln P/Q); then dl, er are the deficit of
 * ln R_Q/R_P and the excess of ln L_Q/L_P (dc of ln C_Q/C_P), at the
 * original cells.  Returns
 * the lowest atom x computed (n if none).  Allocates nothing. */
long sp_laplace_deficits(const long double *la, const long double *lb, const long double *lr_ab,
                         const long double *lo_ab, const double *lr_err, const long double *ll_a,
                         const long double *rb, const long double *cell_a, long n, int mirror,
                         double b, long double r_hi, long double r_lo, long double *dl,
                         long double *er, long double *dc, double *rel_l, double *rel_r,
                         double *rel_c);

/* Two-sided geometric(alpha) noise: exact pmf on the n atoms' positions plus
 * the two geometric tails aggregated into one cell each (n + 2 cells; the
 * sign of P - e^eps Q is constant on each tail).  Returns 0, or -1 if the
 * workspace could not be allocated. */
int sp_geometric_cells(const long double *lp, const long double *lq, long n, double alpha,
                        long double *cell_lp, long double *cell_lq);

/* Geometric-noise cell log ratios as log1p(((D+ - D-)*N) / (Q*N)), D = P - Q
 * with ln|D| = ln Q + ln|expm1(law_lr)| (ln P where Q = 0), each part
 * convolved with the noise on its own: where P and Q nearly agree (tiny
 * sampling rates) this keeps the relative accuracy a difference of two cell
 * logs loses.  On the n + 2 cells (cell_lq from sp_geometric_cells), lr is
 * overwritten where |D*N| < Q*N / 4; err[j] bounds the absolute error of
 * lr[j] (4e-16 where left alone).  Returns 0, or -1 if out of memory. */
int sp_geometric_difference_ratios(const long double *lp, const long double *lq,
                                   const long double *law_lr, long n, double alpha,
                                   const long double *cell_lq, long double *lr, double *err);

/* Deficits D(x) = ln R - ln f_A(x)/f_B(x) >= 0 of the geometric-noise density
 * ratio at the atom positions x = 0..n-1, below the exact right-tail ratio
 * ln R = r_hi + r_lo (ln G_A(1/alpha)/G_B(1/alpha)), each to relative error
 * rel_err[x] (INFINITY where not computed: F = A - R B changes sign above x,
 * or below the first x with D > 1).  lr_ab: accurate ln A(k)/B(k); cell_la:
 * ln f_A(x).  Returns the lowest x computed (n if none).  mirror != 0: the
 * arrays are read and written from the far end and lr_ab negated (the left
 * tail, with A = Q, B = P, ln R = -(left tail ln P/Q)).  Allocates nothing. */
long sp_geometric_deficits(const long double *la, const long double *lb,
                           const long double *lr_ab, const long double *cell_la, long n,
                           int mirror, double alpha, long double r_hi, long double r_lo,
                           long double *deficit, double *rel_err);

/* Count plus N(0, sigma^2) noise, sigma > 0 any double (down to the
 * smallest subnormal: exponents are long double).
 *
 * Exact per direction: delta = sum_k D_k P[N(k, sigma^2) on the positive
 * side of x*], D_k = A(k) - e^eps B(k), at the single sign change x* of
 * f_A - e^eps f_B (monotone laws; Karlin's variation diminishing property
 * of the Gaussian kernel), summed per atom in log space; ln delta is
 * accurate to ~1e-13 relative to |ln delta| + 1 (the double ln Phi of the
 * normal masses), wherever it lies, for the atoms in lp/lq.
 *
 * Return convention of sp_gauss_curve_log_delta:
 *   -inf      delta = 0 exactly: eps >= ln max_k A(k)/B(k) (possible only
 *             when that ratio is bounded, e.g. sampling without
 *             replacement), or eps = +inf;
 *   -DBL_MAX  delta > 0 but ln delta is below -DBL_MAX (eps sigma ~ 1e154
 *             or more): a marker, never reached at ordinary eps;
 *   NaN       eps is NaN. */
typedef struct {
    const long double *lp, *lq;     /* log pmfs on atoms 0..len-1 */
    const long double *lsp, *lcp;   /* log survival / log cdf of P */
    const long double *lsq, *lcq;   /* ... and of Q */
    long len;
    double sigma;
    long double lpmax, lqmax;       /* max of lp, lq */
    long double lr_max, lr_min;     /* max and min of ln P/Q over atoms with P + Q > 0 */
    long double lr_max_lo, lr_min_lo; /* their low parts (0 if none): ln P/Q = hi + lo */
    /* optional (NULL if none): ln P(k)/Q(k) = lr[k] + lr_lo[k] accurately (closed
     * forms of the laws, double-double where refined).  With them every
     * D_k = A(k) - e^eps B(k) is A(k)(1 - e^-(ln A/B - eps)) with the exponent
     * free of the rounding of lp - lq: relative accuracy where P and Q nearly
     * agree (tiny sampling rates) and near the zero point. */
    const long double *lr, *lr_lo;
    int monotone;               /* lp - lq non-decreasing on those atoms (MLR) */
    double (*log_ndtr)(double); /* ln Phi, supplied by the caller (scipy) */
    double (*erfcx)(double);    /* e^(x^2) erfc(x), likewise */
} sp_gauss;

double sp_gauss_curve_log_delta(double eps, int direction, const void *ctx);

/* Bounds of the work: evaluations of the ratio per root, grid points per
 * sigma and in all (the grid serves only laws without monotone ratio). */
#define SP_GAUSS_MAX_ROOT_EVALS 400
#define SP_GAUSS_GRID_PER_SIGMA 8.0
#define SP_GAUSS_MAX_GRID 4000000L
/* Atoms this many sd inside a one-sided tail count with mass 1 (error
 * Phi(-12) = 1.8e-33 relative): their sum of D comes from the cumulative sums. */
#define SP_GAUSS_INNER_SD 12.0

#endif
