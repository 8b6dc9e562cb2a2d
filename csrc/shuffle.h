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
 * post-processing), which is what makes a certified sum cheap: the c are
 * grouped into buckets [lo, next lo), and each bucket's weight times H at
 * its lowest c bounds its terms from above (times H at the next bucket's lo
 * from below); the c outside a window around the mode are bounded by their
 * binomial mass times H_0 = a (below) or H at the window's end (above).  The
 * buckets are widened in the tails and shrunk until the upper and lower sums
 * agree to rel_tol; rel_tol = 0 takes every c in the window (the exact sum).
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
    double rel_tol;     /* allowed relative excess of the certified sum, >= 0 */
    sp_binom mix;       /* Bin(n - 1, e^-eps0): the number of clones */
    double mode;        /* the mode of mix */
    double sd;          /* sqrt((n - 1) p (1 - p)) */
} sp_clones;

/* Fill c; n >= 1 integer valued, eps0 > 0 finite, rel_tol >= 0 (none is
 * checked here: the Python layer validates). */
void sp_clones_init(sp_clones *c, double n, double eps0, double rel_tol);

/* ln H_eps(P_c || Q_c) for one number of clones cc >= 0 (integer valued) and
 * 0 <= eps (-inf from eps0 on): exact to the shift kernel's accuracy. */
double sp_clones_log_inner(const sp_clones *c, double cc, double eps);

/* ln delta(eps) of the clone reduction, any real eps, any direction (both
 * are equal): a certified upper bound, at most rel_tol (relative) above the
 * exact sum; with lower != NULL also ln of a certified lower bound of the
 * sum over the window (-inf where not computed).  An sp_curve_fn. */
double sp_clones_log_delta(double eps, sp_direction direction, const void *ctx);
double sp_clones_log_delta_bounds(const sp_clones *c, double eps, double *lower);

/* A cheap approximation of ln delta (coarse buckets at their midpoints and
 * the shift kernel's approximation; NOT a bound) for locating a search. */
double sp_clones_log_delta_approx(const sp_clones *c, double eps);

/* The smallest eps (to the search's few ulps, then settled on the certified
 * sum: the certified ln delta at the returned eps is <= the aim of
 * sp_smallest_eps) with delta(eps) <= e^log_target; eps0 for target 0 (delta
 * is 0 exactly from eps0 on and positive below), 0 for target >= 1. */
double sp_clones_smallest_eps(const sp_clones *c, double log_target, double log_tol);

#endif
