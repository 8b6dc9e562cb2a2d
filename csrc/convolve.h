/* Exact pmfs of sums of independent counts (MATH.md §3, heterogeneous pi). */
#ifndef STATPRIV_CONVOLVE_H
#define STATPRIV_CONVOLVE_H

/* ln pmf of sum_g Bin(counts[g], probs[g]) on 0..total (total = sum counts),
 * written to out[0..total] in extended precision.  Each group's pmf comes from Loader's form and
 * the groups are convolved in extended precision: all terms are positive,
 * so each entry keeps ~1e-19 * total relative accuracy, and x87 long double
 * (range 1e-4951) keeps tails down to ln pmf ~ -11000 (below: -inf).
 * Returns 0, or -1 if memory could not be allocated. */
int sp_binomial_sum_log_pmf(const double *probs, const double *counts, long groups,
                            long double *out, long total);

#endif
