/* A count plus two-sided geometric(alpha) noise (P(k) = (1-alpha)/(1+alpha)
 * alpha^|k|): the noisy laws are exact pmfs on the atoms' positions plus
 * the two geometric tails aggregated into one cell each (on a tail the
 * ratio f_P/f_Q is constant), handed to the pair kernel as point-mass cells
 * (pair_tail.h, no callback needed); the cell log ratios are refined where
 * P and Q nearly agree or near the zero point.
 * Layer: uses logspace.h only. */
#ifndef STATPRIV_GEOMETRIC_H
#define STATPRIV_GEOMETRIC_H

/* Two-sided geometric(alpha) noise: exact pmf on the n atoms' positions plus
 * the two geometric tails aggregated into one cell each (n + 2 cells; the
 * sign of P - e^eps Q is constant on each tail).  Returns 0, or -1 if the
 * workspace could not be allocated. */
int sp_geometric_cells(const long double *lp, const long double *lq, long n, double alpha,
                        long double *cell_lp, long double *cell_lq);

/* sp_geometric_cells of a pure shift, lp[k] = lq[k-1] (lp[0] = lq[n-1] =
 * -inf; not checked): P's cells are Q's one on except at the ends, the same
 * values bit for bit at half the cost.  Returns 0, or -1 if out of memory. */
int sp_geometric_shift_cells(const long double *lp, const long double *lq, long n, double alpha,
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

/* sp_geometric_shift_cells, their log ratios (cell_lp - cell_lq, 0 where both are
 * -inf) and sp_geometric_difference_ratios on them in one call, for a pure
 * shift (lp[k] = lq[k-1], not checked): the same values bit for bit, with
 * Q's atoms scaled and summed once.  Returns 0, or -1 if out of memory. */
int sp_geometric_shift_ratios(const long double *lp, const long double *lq,
                              const long double *law_lr, long n, double alpha,
                              long double *cell_lp, long double *cell_lq, long double *lr,
                              double *err);

/* Deficits D(x) = ln R - ln f_A(x)/f_B(x) >= 0 of the geometric-noise density
 * ratio at the atom positions x = 0..n-1, below the exact right-tail ratio
 * ln R = r_hi + r_lo (ln G_A(1/alpha)/G_B(1/alpha)), each to relative error
 * rel_err[x] (INFINITY where not computed: F = A - R B changes sign above x,
 * or below the first x with D > 1).  lr_ab: ln A(k)/B(k), a closed form
 * (closed != 0; lo_ab, if not NULL, its low parts, which the sums leave out)
 * or a difference of the laws' logs; its error bound (sp_atom_log_ratio_err,
 * plus the low part) over ln A(k)/B(k) - ln R is in rel_err: with tiny noise
 * (alpha -> 0) R tends to the extreme atom's ratio and that difference to 0.
 * cell_la: ln f_A(x).  Returns the lowest x computed (n if none).  mirror != 0:
 * the arrays are read and written from the far end and lr_ab negated (the
 * left tail, with A = Q, B = P, ln R = -(left tail ln P/Q)).  Allocates
 * nothing. */
long sp_geometric_deficits(const long double *la, const long double *lb,
                           const long double *lr_ab, const long double *lo_ab, int closed,
                           const long double *cell_la, long n, int mirror, double alpha,
                           long double r_hi, long double r_lo, long double *deficit,
                           double *rel_err);

#endif
