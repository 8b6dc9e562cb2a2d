/* The generic discrete pair tail sum: H_eps(P||Q) = sum_j (P(j) - e^eps Q(j))_+
 * for two laws given as log pmfs on cells 0..len-1, summed in log space from
 * the likelihood-ratio threshold outward, with the rest bounded by the log
 * survival / cdf functions where the ratio is monotone.  Cells that are not
 * point masses (e.g. the unit intervals of a count plus Laplace noise, on
 * which f_P - e^eps f_Q may change sign inside the cell) are evaluated by an
 * optional cell-term callback supplied by the mechanism: this kernel holds
 * no mechanism data and has no mechanism branch (laplace.h supplies one).
 * Layer: uses sp_curve.h and logspace.h; mechanisms include this header,
 * never the reverse.  Pure functions: no global state, no allocation. */
#ifndef STATPRIV_PAIR_TAIL_H
#define STATPRIV_PAIR_TAIL_H

#include "sp_curve.h"
#include "logspace.h"

/* The cell-term callback: ln of the part of cell j that counts towards
 * delta in a direction at eps >= 0 (eps = +inf allowed), i.e.
 *   SP_PLUS:  ln int_cell (f_P - e^eps f_Q)_+,
 *   SP_MINUS: ln int_cell (f_Q - e^eps f_P)_+
 * (-inf if that is 0).  Returns 1 and sets *out for a cell it evaluates;
 * returns 0 (and leaves *out alone) for a cell that is a point mass with
 * masses e^lp[j], e^lq[j] and log ratio lr[j] (+ lr_lo[j]), which the
 * kernel then evaluates itself.  Never called with direction SP_MAX. */
typedef int (*sp_cell_fn)(const void *ctx, long j, double eps, sp_direction direction,
                          long double *out);

/* A pair (P, Q) of pmfs on 0..len-1 given by logs, with lr = ln P - ln Q
 * supplied by the caller (accurately: it decides the threshold), the log
 * survival function of P (lsp[j] = ln sum_{i>=j} P(i)) and the log cdf of Q.
 * If lr is non-decreasing (monotone != 0) the sums stop early with a bound;
 * otherwise every term is summed.  The logs are long double: at |ln P| ~ 300
 * a double log is only good to ~1e-14 relative, which the cancellation in
 * P - e^eps Q near the threshold would amplify.  With a cell callback, lp
 * and lq are still every cell's total masses (the bounds use them) and lr
 * their log ratio (the threshold search uses it: with a monotone ratio the
 * positive part starts at the first cell whose ratio exceeds e^eps or
 * inside the cell before it). */
typedef struct {
    const long double *lp, *lq, *lr, *lsp, *lcq;
    long len;
    int monotone;
    /* Optional (NULL when unused): the cell-term callback and its context
     * (see sp_cell_fn).  With it, the densities' ratio inside a cell is not
     * the cell's lr: the zero points come from the cells only if the ratio
     * is monotone (then its sup is the end cells' ratio), otherwise from
     * max_log_ratio alone. */
    sp_cell_fn cell_log_positive;
    const void *cell_ctx;
    /* A proven bound on |ln f_P/f_Q| (INFINITY if none): 1/b for Laplace
     * noise, -ln alpha for geometric (Breutigam & Reischuk, "Statistical
     * Privacy", Lemma 5: every count law here is a mixture of pairs shifted
     * by one).  From eps = bound on, delta is 0 exactly, not the rounding
     * noise of P - e^eps Q in the tails. */
    double max_log_ratio;
    /* Optional (NULL when unused): low parts of the log ratios, so that
     * lr[j] + lr_lo[j] is ln P(j)/Q(j) to ~1e-30 relative where it was
     * computed from a closed form in higher precision.  Near the zero point
     * eps0 = max lr, delta ~ P(j) (lr[j] - eps) needs lr far beyond long
     * double: at the float just below eps0, lr - eps is ~1e-16 eps0. */
    const long double *lr_lo;
    /* The zero points as unevaluated sums hi + lo: delta_plus(eps) = 0 exactly
     * iff eps >= zero_hi[SP_PLUS] + zero_lo[SP_PLUS] (likewise SP_MINUS);
     * +inf if delta stays positive.  sp_pair_init_zero sets them. */
    long double zero_hi[2], zero_lo[2];
    /* Optional (NULL when unused): the other two tail sums, lsq[j] = ln
     * sum_{i>=j} Q(i) and lcp[j] = ln sum_{i<=j} P(i), for the estimate
     * sp_pair_curve_log_delta_estimate (with lsp, lcq: closed forms of the
     * fully positive cells). */
    const long double *lsq, *lcp;
    /* The relative size below which the sums stop and bound the rest (added):
     * 0 for SP_TAIL_TOL; noisy cells, promised to 1e-10, use 2^-40 (the rest
     * bound then adds at most ~1e-12 of delta, and the sums stop ~25% sooner). */
    double tail_tol;
    /* Optional: the four tail sums as checkpoints (sp_log_cumsum_marks,
     * logspace.h) instead of arrays: where lsp (lcq, lsq, lcp) is NULL and
     * lsp_marks.marks (...) is not, the kernel recomputes the same values at
     * the few cells a query reads, bit for bit; 32 bytes per SP_CUMSUM_STEP
     * cells each instead of 16 per cell.  Zero-initialise them when unused
     * (marks NULL: the arrays, or no sum, as above). */
    sp_log_cumsum_marks lsp_marks, lcq_marks, lsq_marks, lcp_marks;
    /* Non-zero: with tail_tol set, a monotone ratio and all four tail sums,
     * the exact sums stop once the closed form of the fully positive cells
     * beyond (the estimate's, below) is known to 2^-52 (|ln A| + eps) of
     * the sum (the precision of the summed cells' logs), and add it with its
     * error bound (pair_tail.c, closed_tail_stop).  0: they stop only where
     * the rest's mass itself is below tail_tol, and add it. */
    int closed_rest;
} sp_pair;

/* Zero points from the cells: the largest lr + lr_lo (plus) and -(lr + lr_lo)
 * (minus) over the cells where the numerator law has mass, capped by
 * max_log_ratio.  With a cell callback the cells are used only if the ratio
 * is monotone, otherwise only the bound max_log_ratio. */
void sp_pair_init_zero(sp_pair *pair);

/* The smallest double >= the zero point of a direction (+inf if none). */
double sp_pair_zero_point(const sp_pair *pair, sp_direction direction);

/* ln H_eps(P||Q) (SP_PLUS) or ln H_eps(Q||P) (SP_MINUS), eps >= 0. */
double sp_pair_log_hockey(const sp_pair *pair, double eps, sp_direction direction);

/* The sp_curve_fn of an sp_pair (ctx): any eps, any direction. */
double sp_pair_curve_log_delta(double eps, sp_direction direction, const void *ctx);

/* A cheap estimate of ln delta for the epsilon search (O(log len) per
 * evaluation).  With a monotone ratio the cells
 * beyond the two cells around the threshold are fully positive (the ratio
 * at their near end already exceeds e^eps), so their part of delta is the
 * closed form SP(o) - e^eps SQ(o) of the tail sums (SP(o) = sum_{j>=o} P(j);
 * for SP_MINUS the lower tails of Q and P); only the threshold cells are
 * evaluated term by term.  The closed form cancels to ~delta / SP(o), so
 * its error, from the tail sums' relative error eta = 2^-50 + len 2^-63 and
 * their logs' 2^-52 (|ln SP| + |ln SQ|), is err = SP(o) (2 eta + 2^-52 (|ln
 * SP| + |ln SQ| + eps)) / (1 - e^eps SQ/SP) relative; with_err = 1
 * adds err (an upper bound, up to the tail sums' accuracy), -1 subtracts its
 * typical part (eta = 2^-50: a likely lower bound, for the search's check
 * that its answer is tight), 0 returns the plain estimate.  Where the estimate does not apply (ratio not
 * monotone, tail sums absent, eps < 0 or +inf, err above 2^-20 of the
 * estimate) the exact sp_pair_curve_log_delta is returned.  Not a curve:
 * the search verifies its answer on the exact curve (search.h,
 * sp_smallest_eps_estimated).  ctx: an sp_estimate whose curve is the
 * sp_pair. */
double sp_pair_curve_log_delta_estimate(double eps, sp_direction direction, const void *ctx);

/* The estimate's upper bound (with_err = 1 above) in one direction, or NaN
 * where it does not apply (no exact evaluation is made): the cheap bound of
 * sp_bounded's `upper` (bounded.h), by which SP_MAX spares the exact sum of
 * the smaller direction.  ctx: the sp_pair.  Never called with SP_MAX. */
double sp_pair_log_delta_upper(double eps, sp_direction direction, const void *ctx);

#endif
