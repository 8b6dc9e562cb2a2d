/* The iid binomial shift curve: hockey-stick divergences of S + 1 vs S for
 * S ~ Bin(N, pi) (the count of the other records when the target's record
 * is or is not counted), summed in log space from the likelihood-ratio
 * threshold outward with a rigorous remainder bound (docs/mathematics.md
 * §2-3).  Every function returns ln H_eps; -inf means H = 0.  All functions
 * are pure: no global state, no allocation, safe without the GIL.
 * Layer: uses pmf.h (Loader's binomial terms), logspace.h, xprec.h (error-free
 * products), sp_curve.h. */
#ifndef STATPRIV_BINOMIAL_TAIL_H
#define STATPRIV_BINOMIAL_TAIL_H

#include "sp_curve.h"
#include "pmf.h"

/* ln H_eps(S+1 || S) for S ~ b, eps >= 0 (use eps = +inf for the floor).
 * With b mirrored this is ln H_eps(S || S+1) of the unmirrored law. */
double sp_binom_shift_log_hockey(const sp_binom *b, double eps);
/* The same with e^eps - 1 given in extended precision (em1; eps only its
 * rounding, used for the closed-form cases): for callers whose eps is
 * itself computed (the Poisson-sampling reduction). */
double sp_binom_shift_log_hockey_em1(const sp_binom *b, double eps, long double em1);

/* The sums behind sp_binom_shift_log_hockey at one eps, relative to b(k0-1)
 * (k0 the first atom above the likelihood-ratio threshold): the search uses
 * them to solve delta(eps) = target locally without summing again. */
typedef struct {
    double eps, k0, log_b0;   /* where evaluated; ln b(k0 - 1) */
    long double t;            /* sum_{k>=k0} (b(k-1) - e^eps b(k)) / b(k0-1), tail bound added */
    long double b;            /* sum_{k>=k0} b(k) / b(k0-1), tail bound added */
} sp_binom_sums;

/* 0 and *s filled, or 1 where a closed form applies (no sums). */
int sp_binom_shift_sums(const sp_binom *b, double eps, sp_binom_sums *s);

/* delta(eps) / b(at->k0 - 1) (*t) and sum_{k>=k0(eps)} b(k) / b(at->k0 - 1) (*sb)
 * from the sums at another eps: on the cells of at, delta is linear in e^eps,
 * delta(eps) = delta(x) - (e^eps - e^x) sum b(k); cells that entered or left
 * the positive set are added or removed term by term.  Returns 1 (nothing
 * set) if eps is more than SP_MODEL_MAX_CELLS cells away or so far that the
 * linear correction exceeds a quarter of delta (cancellation). */
#define SP_MODEL_MAX_CELLS 256.0
int sp_binom_shift_model(const sp_binom *b, const sp_binom_sums *at, double eps, long double *t,
                         long double *sb);

/* A cheap approximation (~1e-9 relative, NOT a bound) of
 * sp_binom_shift_log_hockey at large N, for locating a search's answer. */
double sp_binom_shift_log_hockey_approx(const sp_binom *b, double eps);
double sp_binom_shift_sd(const sp_binom *b);     /* sqrt(N p q) */

/* Noiseless iid counting curve: Bin(N, pi) others. */
typedef struct {
    sp_binom plus;    /* law of S */
    sp_binom minus;   /* law of N - S */
} sp_binom_curve;

void sp_binom_curve_init(sp_binom_curve *c, double N, double pi);
double sp_binom_curve_log_delta(double eps, sp_direction direction, const void *ctx);

/* out[i] = ln delta(eps[i]) for i < n, the same values as
 * sp_binom_curve_log_delta to within 3 ULPs of the exact sums' own error
 * (bound at sp_binom_curve_log_delta_ascending in binomial_tail.c), walked
 * incrementally where eps ascends: on the cells of one threshold delta is
 * linear in e^eps and each cell leaving the positive set removes one term,
 * so a grid of eps costs one exact sum per few dozen points.  Any order and
 * any eps are accepted (a point below its predecessor, negative, infinite
 * or NaN, or direction SP_MAX, is evaluated on its own). */
void sp_binom_curve_log_delta_ascending(const sp_binom_curve *c, const double *eps, long n,
                                        sp_direction direction, double *out);

#endif
