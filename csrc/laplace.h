/* A count plus Laplace(b) noise (density e^(-|x|/b) / (2b)), reduced to
 * cells for the pair kernel: the left tail (-inf, 0], the unit intervals
 * [j, j+1] between atoms and the right tail [n-1, inf).  On a tail the sign
 * of f_P - e^eps f_Q is constant (a point-mass cell for pair_tail.h); on a
 * unit interval the densities are (L e^(-t/b) + R e^(-(1-t)/b)) / (2b),
 * t in [0, 1], with L, R per law, and the positive part of f_P - e^eps f_Q
 * there is a closed form (at most one sign change): sp_laplace_cell_term is
 * the pair kernel's cell callback that evaluates it.
 * Layer: uses pair_tail.h (the callback type), logspace.h, sp_curve.h. */
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
 * Exps and logs to long double accuracy (expl, logl). */
void sp_laplace_cells(const long double *lp, const long double *lq, long n, double b,
                      long double *cell_lp, long double *cell_lq,
                      long double *ll_p, long double *lr_p, long double *ll_q, long double *lr_q);

/* One law's Laplace(b) cells (cell_la, ll, lr as sp_laplace_cells writes for
 * P): for a pure shift P = Q(. - 1) the caller derives P's from Q's.  Exps
 * and logs to ~1e-16 (fast): the shift's ratios near +-1/b are closed forms. */
void sp_laplace_cells_one(const long double *la, long n, double b, long double *cell_la,
                          long double *ll, long double *lr);

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
} sp_laplace_pair;

/* The sp_cell_fn of an sp_laplace_pair (ctx): the interior cells 1..len-2
 * by sp_laplace_cell_log_positive (0 for eps = +inf); the two tail cells
 * are declined (point masses for the pair kernel). */
int sp_laplace_cell_term(const void *ctx, long j, double eps, sp_direction direction,
                         long double *out);

#endif
