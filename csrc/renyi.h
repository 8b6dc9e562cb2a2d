/* Renyi divergences from a privacy-loss distribution: the log moment
 *
 *   ln E_P[e^(t L)] = ln sum_i e^(log_p[i] + t loss[i]),
 *
 * so that D_alpha(P||Q) = ln E_P[e^((alpha-1) L)] / (alpha - 1) (Mironov,
 * "Renyi differential privacy").  Pure function: no global state, no
 * allocation, safe without the GIL. */
#ifndef STATPRIV_RENYI_H
#define STATPRIV_RENYI_H

/* ln sum_{i<n} e^(log_p[i] + t loss[i]) in extended precision (the largest
 * term, then the sum of expl relative to it); -inf for an empty sum, +inf if
 * a term overflows.  Atoms with log_p = -inf add nothing; loss finite. */
long double sp_renyi_log_moment(const long double *log_p, const long double *loss, long n,
                                long double t);

#endif
