/* Shuffle-model amplification: the clone reduction of Feldman, McMillan &
 * Talwar ("Hiding among the clones: a simple and nearly optimal analysis of
 * privacy amplification by shuffling").
 *
 * n users each apply an eps0-LDP randomizer and the reports are shuffled.
 * The shuffled output on two neighbouring data sets is a post-processing of
 * the pair of laws
 *   P = sum_c w(c) P_c,  Q = sum_c w(c) Q_c,   w = Bin(n - 1, e^-eps0),
 *   P_c = alpha A_c + (1 - alpha)(A_c + 1),  Q_c = (1 - alpha) A_c + alpha (A_c + 1),
 * A_c ~ Bin(c, 1/2), alpha = e^eps0 / (1 + e^eps0), with c observed (it is the
 * total count minus one), so
 *   delta(eps) = H_eps(P || Q) = sum_c w(c) H_c(eps),  H_c = H_eps(P_c || Q_c).
 * Both directions are equal (x -> c + 1 - x maps P_c onto Q_c).  Each H_c is
 * one binomial shift divergence (binomial_tail.h):
 *   P_c - e^eps Q_c = a (A_c - e^eps' (A_c + 1)),
 *   a = (e^eps0 - e^eps) / (1 + e^eps0),
 *   e^eps' - 1 = (1 + e^eps0)(e^eps - 1) / (e^eps0 - e^eps),
 * so H_c = a H_eps'(A_c || A_c + 1) for 0 <= eps < eps0, and 0 from eps0 on
 * (the largest likelihood ratio is alpha / (1 - alpha) = e^eps0).
 *
 * H_c is non-increasing in c (A_{c+1} = A_c + an independent fair bit:
 * post-processing), so the c outside a window around the mode of the mixing
 * binomial are bounded by their mass times H_0 = a (below) or H at the
 * window's end (above) and the bound is added.  Inside the window the sum
 * is exact, one c at a time in O(1) (a recursion over c on two positive
 * tail sums, anchored on direct sums and checked; see shuffle.c).
 *
 * Layer: uses binomial_tail.h (the shift sums), pmf.h (Loader's binomial
 * terms), logspace.h, search.h (the aim of a search), sp_curve.h.  Pure: no
 * global state, no allocation; safe to call from many threads on one
 * (const) sp_clones. */
#ifndef STATPRIV_SHUFFLE_H
#define STATPRIV_SHUFFLE_H

#include "sp_curve.h"
#include "pmf.h"

typedef struct {
    double n;           /* users, integer valued, >= 1 */
    double eps0;        /* local privacy parameter, > 0 and finite */
    sp_binom mix;       /* Bin(n - 1, e^-eps0): the number of clones */
    double mode;        /* the mode of mix */
    double sd;          /* sqrt((n - 1) p (1 - p)) */
} sp_clones;

/* Fill c; n >= 1 integer valued, eps0 in (0, 700] (neither is checked
 * here: the Python layer validates).  No allocation; c is then read-only. */
void sp_clones_init(sp_clones *c, double n, double eps0);

/* ln H_eps(P_c || Q_c) for one number of clones cc >= 0 (integer valued)
 * and eps >= 0 (-inf from eps0 on), from the binomial shift kernel. */
double sp_clones_log_inner(const sp_clones *c, double cc, double eps);

/* ln delta(eps) of the clone reduction, any real eps, any direction (both
 * are equal); -inf exactly from eps0 on.  An sp_curve_fn (ctx: sp_clones). */
double sp_clones_log_delta(double eps, sp_direction direction, const void *ctx);

/* The smallest eps with delta(eps) <= e^log_target (sp_smallest_eps_lean's
 * contract); eps0 for target 0 (delta is 0 exactly from eps0 on and
 * positive below), 0 for target >= 1. */
double sp_clones_smallest_eps(const sp_clones *c, double log_target, double log_tol);

#endif
