/* A count plus Laplace(b) noise (density e^(-|x|/b) / (2b)), reduced to
 * cells for the pair kernel: the left tail (-inf, 0], the unit intervals
 * [j, j+1] between atoms and the right tail [n-1, inf).  On a tail the sign
 * of f_P - e^eps f_Q is constant (a point-mass cell for pair_tail.h); on a
 * unit interval the densities are (L e^(-t/b) + R e^(-(1-t)/b)) / (2b),
 * t in [0, 1], with L, R per law, and the positive part of f_P - e^eps f_Q
 * there is a closed form (at most one sign change): sp_laplace_cell_term is
 * the pair kernel's cell callback that evaluates it.
 * Layer: uses pair_tail.h (the callback type), logspace.h, ldmath.h, sp_curve.h. */
#ifndef STATPRIV_LAPLACE_H
#define STATPRIV_LAPLACE_H

#include "sp_curve.h"
#include "pair_tail.h"

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
 * (sp_laplace_pair's ll_p ...); entries 0 and n of those are set to -inf.
 * Exps and logs to long double accuracy (ldmath.h). */
void sp_laplace_cells(const long double *lp, const long double *lq, long n, double b,
                      long double *cell_lp, long double *cell_lq,
                      long double *ll_p, long double *lr_p, long double *ll_q, long double *lr_q);

/* One law's Laplace(b) cells (cell_la, ll, lr as sp_laplace_cells writes for
 * P): for a pure shift P = Q(. - 1) the caller derives P's from Q's.  Exps
 * and logs to ~1e-16 (fast): the shift's ratios near +-1/b are closed forms. */
void sp_laplace_cells_one(const long double *la, long n, double b, long double *cell_la,
                          long double *ll, long double *lr);

/* sp_laplace_cells in one pass, with the P side from the difference law
 * where P and Q nearly agree.  law_lr: the accurate ln P(k)/Q(k) (NULL: the
 * plain cells of sp_laplace_cells).  With it, D = P - Q = Q expm1(law_lr)
 * is convolved beside P and Q (D and |D| by the same linear recursions, all
 * relative to one scale), and where |D| * N < (Q * N) / 4 on a cell (resp.
 * its L, its R) P's log is Q's + log1p((D * N) / (Q * N)): the log ratio
 * keeps its relative accuracy where a difference of two rounded logs
 * would cancel.  Besides sp_laplace_cells' outputs, writes cell_lr (n + 1):
 * ln of the cells' mass ratio P/Q (the log1p term, or cell_lp - cell_lq; 0
 * where both vanish), and err_c, err_l, err_r (n + 1 doubles): estimates of
 * the absolute error of the cells', L's and R's log ratios (4e-16 |D|/Q +
 * 1e-18 on the log1p form, 4e-16 on the others with law_lr; without it
 * 2e-19 (1 + |ln P| + |ln Q|), 4e-16 where either is infinite).  Exps and
 * logs to long double accuracy (ldmath.h).  Allocates nothing (D lives in
 * cell_lr until its cells are written); returns 0. */
int sp_laplace_cells_diff(const long double *lp, const long double *lq, const long double *law_lr,
                          long n, double b, long double *cell_lp, long double *cell_lq,
                          long double *ll_p, long double *lr_p, long double *ll_q,
                          long double *lr_q, long double *cell_lr, double *err_c, double *err_l,
                          double *err_r);

/* L and R log ratios of the interior cells from the laws' own ratio where
 * the noise barely mixes: L_A(j) = A(j) + u L_A(j-1), R_A(j) = A(j+1) +
 * u R_A(j+1) (u = e^(-1/b)), so
 *   ln L_P(j)/L_Q(j) = ln P(j)/Q(j) + log1p(u L_P(j-1)/P(j)) - log1p(u L_Q(j-1)/Q(j))
 * and likewise R with the atom j + 1: the law's ratio law_lr (+ law_lo, may
 * be NULL) plus two corrections cp, cq known to their own relative precision
 * (double exps of long double differences).  Its error bound, own + 4e-16
 * (cp + cq) with own ~4e-19 |lr| (~1e-30 where law_lo is non-zero; 2e-19
 * (1 + |ln P| + |ln Q|) without law_lo), is compared with err_l / err_r:
 * where it is smaller the form is set (ll_p / lr_p = ln Q's + the ratio's
 * high part, ll_lo / rr_lo its low part) and err_l / err_r lowered to the
 * bound.  Each form is built from the values before this pass.  Arrays of
 * n + 1 cells (interior 1..n-1); modifies them in place. */
void sp_laplace_atom_ratios(const long double *lp, const long double *lq,
                            const long double *law_lr, const long double *law_lo, long n, double b,
                            long double *ll_p, long double *lr_p, const long double *ll_q,
                            const long double *lr_q, double *err_l, double *err_r,
                            long double *ll_lo, long double *rr_lo);

/* The interior cells' data of a pair under Laplace(b) noise: the logs of L
 * and R of P and Q per cell (as sp_laplace_cells writes them; the cells are
 * those of the sp_pair it goes with, len of them), and optionally (NULL when
 * unused) the low parts of ll_p - ll_q and lr_p - lr_q (double-double log
 * ratios of L and R near the zero point). */
typedef struct {
    const long double *ll_p, *lr_p, *ll_q, *lr_q;
    const long double *ll_lo, *rr_lo;
    long len;
    double scale;
    double one_minus_u;     /* -expm1(-1 / scale), once (sp_laplace_pair_set_scale) */
} sp_laplace_pair;

/* Sets scale and one_minus_u of an sp_laplace_pair. */
void sp_laplace_pair_set_scale(sp_laplace_pair *pair, double scale);

/* The sp_cell_fn of an sp_laplace_pair (ctx): the interior cells 1..len-2
 * by sp_laplace_cell_log_positive (0 for eps = +inf); the two tail cells
 * are declined (point masses for the pair kernel). */
int sp_laplace_cell_term(const void *ctx, long j, double eps, sp_direction direction,
                         long double *out);

/* Laplace(b) cells near the right-tail zero point: the L and R log ratios
 * of cell [x, x+1] (cell c = x + 1) as ln R - dl[c] and ln R + er[c], with
 * ln R = r_hi + r_lo = ln G_A(w)/G_B(w) (w = e^(1/b)) the exact tail ratio and
 * dl = log1p(S(x) / L_A(x)), er = log1p(T(x) / (R R_B(x))) from the signed law
 * F = A - R B (sum_k F(k) w^k = 0): S(x) = sum_{k>x} F(k) w^(k-x) and
 * T(x) = sum_{k>x} F(k) u^(k-x-1), u = 1/w, sums of positive terms above
 * the crossing of the atom ratio, so dl and er keep their relative accuracy
 * (rel_l, rel_r; INFINITY where not computed) however small they are; below
 * the crossing the positive and negative terms are summed apart and the
 * cancellation goes into the bounds.  lr_ab + lo_ab (lo_ab may be NULL):
 * the closed-form ln A(k)/B(k), good to ~4e-19 (1 + |lr|) (~1e-30 where lo_ab
 * is non-zero); lr_ab NULL: ln A(k) - ln B(k), good to ~2e-19 (1 + |ln A| +
 * |ln B|) (0 where both vanish); ll_a, rb, cell_a (n + 1 cells):
 * ln L_A, ln R_B and ln of A's cell masses; dc: the deficit of the cell-mass
 * log ratio (R C_B - C_A = hw (S - T), a difference: rel_c carries its
 * amplification).  mirror != 0: the left tail of B/A, read from the far end
 * -- pass A = Q, B = P, ll_a = ln R_Q, rb = ln L_P and ln R = -(left ln P/Q);
 * then dl, er are the deficit of ln R_Q/R_P and the excess of ln L_Q/L_P (dc
 * of ln C_Q/C_P), at the original cells.  Returns the lowest atom x computed
 * (n if none): only the cells x + 1 .. n - 1 (mirrored: 1 .. n - 1 - x) of
 * the outputs are written (0 and INFINITY where not computed there), the
 * others are left as they are (so a caller's untouched pages stay
 * unmapped).  Allocates nothing. */
long sp_laplace_deficits(const long double *la, const long double *lb, const long double *lr_ab,
                         const long double *lo_ab, const long double *ll_a,
                         const long double *rb, const long double *cell_a, long n, int mirror,
                         double b, long double r_hi, long double r_lo, long double *dl,
                         long double *er, long double *dc, double *rel_l, double *rel_r,
                         double *rel_c);

#endif
