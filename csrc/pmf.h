/* Log-space probability mass functions accurate to a few ulps at any size.
 *
 * Binomial terms use Loader's saddle-point form ("Fast and accurate
 * computation of binomial probabilities", 2000; the method behind R's dbinom):
 *   b(k) = sqrt(N / (2 pi k (N-k)))
 *          * exp(stirlerr(N) - stirlerr(k) - stirlerr(N-k) - bd0(k, Np) - bd0(N-k, Nq)).
 * lgamma differences lose ~log10(N) digits; this form does not (docs/mathematics.md §3).
 * Hypergeometric pmfs are three such terms.  Uses logspace.h only. */
#ifndef STATPRIV_PMF_H
#define STATPRIV_PMF_H

/* Bin(N, p) with everything a term needs precomputed.  The mean N*p is kept
 * as an unevaluated sum so that k - N*p is exact near the mode even when
 * N ~ 1e9; p and q = 1 - p may be rounded doubles (1 - 1e-300 is 1.0) but
 * log_p, log_q are accurate and p_ext, q_ext carry both to 2^-64 relative:
 * whichever of them is the given pi is exact, even when the other rounds
 * to 1, so no formula ever needs to form 1 - p. */
typedef struct {
    double N;                 /* trials, integer valued, >= 0 */
    double p, q;              /* success / failure probability (rounded) */
    double log_p, log_q;      /* accurate logs of the exact p and 1 - p */
    double mean_hi, mean_lo;  /* N*p = mean_hi + mean_lo */
    long double p_ext, q_ext; /* p and 1 - p in extended precision */
} sp_binom;

/* Bin(N, pi) or, with mirrored != 0, the law of N - S, i.e. Bin(N, 1 - pi),
 * built from the exact double pi so that no rounded 1 - pi leaks into logs. */
void sp_binom_init(sp_binom *b, double N, double pi, int mirrored);

/* Bin(N, p) from p and q = 1 - p in extended precision (e.g. p the exact
 * product of a sampling rate and pi, below the double range at 1e-330), the
 * mean N p as a double-double and the accurate logs of p and q; with
 * mirrored != 0 the law of N - S.  A p or q that rounds to 0 in double is
 * stored as the smallest subnormal there (it only marks the law as not
 * degenerate; every formula uses p_ext, q_ext and the logs). */
void sp_binom_init_ext(sp_binom *b, double N, long double p, long double q, double mean_hi,
                       double mean_lo, double log_p, double log_q, int mirrored);

double sp_stirlerr(double m);                 /* ln m! - ln(sqrt(2 pi m) (m/e)^m), integer m >= 0 */
double sp_bd0(double x, double M, double d);  /* x ln(x/M) + M - x, with d = x - M given exactly */
double sp_log_binom_pmf(const sp_binom *b, double k);

/* Hypergeometric: j positives in a sample of m drawn from N records of which
 * K are positive.  Three Loader binomial terms (as R's dhyper). */
double sp_log_hypergeom_pmf(double j, double N, double K, double m);

/* ln b(k) for k = first .. first+count-1 in extended precision, neighbours
 * consistent to ~1e-19 relative: Loader's form at the mode (its ~1e-16
 * error is common to all k), then the exact ratios b(k+1)/b(k) outward.
 * Atoms far in a tail have |ln b| ~ 300+, where independent double logs
 * would differ from their neighbours by ~1e-14 and cancellation near the
 * likelihood-ratio threshold amplifies that ~1e4-fold at n ~ 1e6. */
void sp_binom_window_logl(double N, double pi, double first, long count, long double *out);

/* The laws of a count with the target kept with probability rate: with
 * shifted(j) = a(j-1), same(j) = a(j), base(j) = b(j) (0 outside a's na,
 * b's nb atoms), for j = 0..size-1
 *   lp[j] = ln(rate shifted(j) + (1 - rate) base(j)),
 *   lq[j] = ln(rate same(j) + (1 - rate) base(j)),
 * from log_a, log_b and log_in = ln rate, log_out = ln(1 - rate): each a
 * logaddexp as numpy's (x + ln 2 where x = y, else max + log1p(e^-|x - y|)),
 * with the accurate fast long double exp and log1p of ldmath.h. */
void sp_log_mixture(const long double *log_a, long na, const long double *log_b, long nb,
                    long double log_in, long double log_out, long size, long double *lp,
                    long double *lq);

#endif
