/* Poisson sampling (every record kept independently with probability g)
 * reduced to the shift curve of the sampled count (A. Smith 2009,
 * "Differential privacy and the secrecy of the sample", Alg. 2).
 * Layer: uses binomial_tail.h (the iid case) or any shift curve given as an
 * sp_curve_fn (e.g. a pair_tail.h curve of a Poisson-binomial count), and
 * search.h for its own epsilon search (sp_poisson_smallest_eps). */
#ifndef STATPRIV_POISSON_SAMPLING_H
#define STATPRIV_POISSON_SAMPLING_H

#include "sp_curve.h"
#include "binomial_tail.h"
#include "search.h"

/* Noiseless count under Poisson sampling (Smith 2009, "Differential privacy
 * and the secrecy of the sample", Alg. 2): every record kept w.p. g, the
 * others' sampled count Z ~ Bin(N, g pi) (z.plus; z.minus its mirror),
 * P = g Z(.-1) + (1-g) Z, Q = Z.  Reduced to the shift curve of Z:
 *   P - e^eps Q = g (Z(k-1) - e^eps' Z(k)),   e^eps' = 1 + (e^eps - 1)/g;
 *   Q - e^eps P = c (Z(k) - e^eps'' Z(k-1)),  c = 1 - e^eps (1-g), e^eps'' = e^eps g / c,
 * so delta_plus(eps) = g H_eps'(Z+1 || Z) and delta_minus(eps) = c H_eps''(Z || Z+1)
 * for c > 0, 0 from eps >= -ln(1-g) on.  ln(1-g) = l1g_hi + l1g_lo decides
 * that zero point exactly. */
typedef struct {
    sp_binom_curve z;
    double g;
    double l1g_hi, l1g_lo;   /* ln(1 - g) as a double-double (-inf, 0 for g = 1) */
} sp_poisson_curve;

void sp_poisson_curve_init(sp_poisson_curve *c, double N, long double p, long double q,
                           double mean_hi, double mean_lo, double log_p, double log_q, double g,
                           double l1g_hi, double l1g_lo);
double sp_poisson_curve_log_delta(double eps, sp_direction direction, const void *ctx);

/* sp_smallest_eps for the noiseless Poisson-sampled curve
 * (sp_poisson_curve_log_delta), fast at large N: both directions are
 * solved on the exact shift sums of Z as in sp_binom_smallest_eps, with the
 * target moved by the reduction's factor (g for plus; c = g / (g + (1-g)
 * e^eps'') for minus, which depends on the answer), then mapped back to eps
 * rounded up.  Falls back to sp_smallest_eps (search.h, with `positive`)
 * where this does not apply. */
double sp_poisson_smallest_eps(const sp_poisson_curve *c, sp_direction direction, double log_target,
                               double log_tol, int positive);

/* The same reduction on any pair (P, Q) given by its curve: inner(eps,
 * SP_PLUS) = ln H_eps(P || Q), inner(eps, SP_MINUS) = ln H_eps(Q || P) (e.g.
 * a pair curve of a Poisson-binomial Z, per-record pi: P = Z+1, Q = Z; or a
 * worst-case DP pair).  The sampled pair is (g P + (1-g) Q, Q): Poisson
 * sampling under add/remove (Balle, Barthe & Gaboardi, "Privacy
 * amplification by subsampling"; Zhu, Dong & Wang, "Optimal accounting of
 * differential privacy via characteristic function").  With
 * without_replacement set, a sample of a g fraction drawn without replacement
 * under replace-one: the pair of each direction is (g A + (1-g) B, B) with
 * (A, B) = (P, Q) resp. (Q, P), so both directions take the plus reduction,
 * delta_minus(eps) = g H_eps'(Q || P).  eps' and eps'' are rounded down to
 * doubles (conservative).  0 <= g <= 1 (g = 0: delta = (1 - e^eps)_+). */
typedef struct {
    sp_curve_fn inner;
    const void *inner_ctx;
    double g;
    double l1g_hi, l1g_lo;
    int without_replacement;
} sp_sampled_shift_curve;

double sp_sampled_shift_curve_log_delta(double eps, sp_direction direction, const void *ctx);

/* The atoms' log likelihood ratio of the Poisson-sampled count laws
 * (P = g Z(.-1) + (1-g) Z, Q = Z, Z ~ Bin(n-1, g pi)):
 *   ln P(j)/Q(j) = log1p((j - n g pi) / ((n - j) pi)),  j = first .. first+count-1,
 * in long double as numpy forms it (n g pi first, then one division and a
 * log1p: ldmath.h's; +inf at j = n).  With err (else NULL) also the bound
 * on its error, 4e-19 |ln P/Q| + err_const / max(n - j, 1) (in double: the
 * rounding of the mean, err_const = 2e-19 n g).  One pass, no temporaries. */
void sp_poisson_log_ratio(long double n, double g, double pi, long double first, long count,
                          long double *out, double err_const, double *err);

/* The same for a sample of m of the n records without replacement, iid
 * Bernoulli(pi) (Breutigam & Reischuk, "Statistical Privacy"): with
 * d = j - m pi,
 *   ln P(j)/Q(j) = log1p(d / (n pi)) - log1p(-d / (n (1 - pi))),
 * two log1p of small arguments (ldmath.h's) where m/n is small, -inf / +inf
 * at j = 0 / j = m when m = n; and err[i], the bound on its error,
 * 4e-19 (|log1p(..)| + |log1p(..)|) + err_const (the rounding of m pi, in
 * double).  One pass, no temporaries. */
void sp_subsample_log_ratio(long double n, long double m, double pi, long double first,
                            long count, double err_const, long double *out, double *err);

#endif
