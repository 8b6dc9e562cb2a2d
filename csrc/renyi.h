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

/* The log moments at m values t[j] in one call: out[j] = ln sum_{i<n}
 * e^(log_p[i] + t[j] loss[i]), plus the tail atom (tail_log_p, tail_loss)
 * for the t[j] > 0 (alpha > 1: the mass a window left out, counted at its
 * largest loss; tail_log_p = -inf for none), rounded to double.  The same
 * arithmetic, term by term, as sp_renyi_log_moment over the atoms with the
 * tail appended last, so each value is the one-order call's, bit for bit. */
void sp_renyi_log_moments(const long double *log_p, const long double *loss, long n,
                          long double tail_log_p, long double tail_loss, const double *t,
                          long m, double *out);

#endif
