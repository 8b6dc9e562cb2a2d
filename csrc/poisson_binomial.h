/* Exact pmfs of sums of independent binomial counts (Poisson-binomial laws). */
#ifndef STATPRIV_POISSON_BINOMIAL_H
#define STATPRIV_POISSON_BINOMIAL_H

/* ln pmf of S = sum_g Bin(counts[g], probs[g]) (0 < probs[g] < 1) on the
 * window where it matters, by a balanced product tree (pairwise merges) of
 * direct convolutions in extended precision.
 *
 * All terms are positive, so every entry keeps ~1e-19 * depth relative
 * accuracy (no FFT: its absolute error ~1e-16 * max would swamp the tails).
 * After each merge, and for each group's own pmf, the atoms at either end
 * below e^-drop_nats times that node's largest atom are cut off and their
 * mass is added to *rest; a node's window is contiguous because every node
 * is log-concave.  The cut mass is a rigorous upper bound on the mass of S
 * outside the returned window that the window does not carry: S = S_window
 * + R with R >= 0 and total mass of R <= *rest (each piece cut from a node
 * is convolved with laws of mass <= 1 afterwards).  Each group's own cut
 * tails are bounded by (number of atoms) * (largest atom there).  With
 * drop_nats <= 11000 and x87 long double (range ~e^-11355) no kept value
 * underflows (a node's largest atom is >= 1/len); cut atoms may, so where
 * one lies below the normal range its rounding (half a subnormal spacing per
 * product) is added to *rest as well: an atom cut as 0 still counts.
 *
 * On success returns 0 and sets *out (malloc'ed, the caller frees it) to
 * ln P[S = *first + i], i < *len, and *rest to the cut mass (linear).
 * Returns -1 if memory could not be allocated and -2 if a node's window
 * would exceed max_len atoms (nothing is returned then).
 * Work: sum over merges of len(a) * len(b); pure, no global state. */
typedef int (*sp_progress_fn)(void *ctx, double work);

int sp_binomial_sum_window(const double *probs, const double *counts, long groups,
                           double drop_nats, long max_len, long double **out, long *first,
                           long *len, long double *rest);

/* The same with progress reports: every time at least `step` multiply-adds
 * were done, progress(ctx, multiply-adds since the last call) is called
 * (progress may be NULL); a non-zero return abandons the work (returns -3,
 * everything freed). */
int sp_binomial_sum_window_progress(const double *probs, const double *counts, long groups,
                                    double drop_nats, long max_len, long double **out,
                                    long *first, long *len, long double *rest,
                                    sp_progress_fn progress, void *ctx, double step);

#endif
