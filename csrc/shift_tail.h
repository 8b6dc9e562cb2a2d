/* Hockey-stick divergences of shifted and mixed counts, summed in log space
 * from the likelihood-ratio threshold outward with a rigorous remainder bound
 * (docs/mathematics.md §2-5).  Every function returns ln H_eps; -inf means H = 0.
 * All functions are pure: no global state, no allocation, safe without the GIL. */
#ifndef STATPRIV_SHIFT_TAIL_H
#define STATPRIV_SHIFT_TAIL_H

#include "logpmf.h"

enum { SP_PLUS = 0, SP_MINUS = 1, SP_MAX = 2 };

/* Relative size below which the remaining tail is bounded and added, not summed. */
#define SP_TAIL_TOL 0x1p-60

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

/* A pair (P, Q) of pmfs on 0..len-1 given by logs, with lr = ln P - ln Q
 * supplied by the caller (accurately: it decides the threshold), the log
 * survival function of P (lsp[j] = ln sum_{i>=j} P(i)) and the log cdf of Q.
 * If lr is non-decreasing (monotone != 0) the sums stop early with a bound;
 * otherwise every term is summed.  The logs are long double: at |ln P| ~ 300
 * a double log is only good to ~1e-14 relative, which the cancellation in
 * P - e^eps Q near the threshold would amplify. */
typedef struct {
    const long double *lp, *lq, *lr, *lsp, *lcq;
    long len;
    int monotone;
    /* Optional (NULL when unused): the cells are the unit intervals of a
     * count plus Laplace noise (see noise.h).  Cell j's densities are
     * (L e^(-t/b) + R e^(-(1-t)/b)) / (2b) on t in [0, 1], with logs of L and R
     * for P and Q here; the first and last cells are the exponential tails,
     * whose sign is constant, and use lp/lq like a discrete cell. */
    const long double *ll_p, *lr_p, *ll_q, *lr_q;
    /* Optional (NULL when unused): low parts of ll_p - ll_q and lr_p - lr_q
     * (double-double log ratios of L and R near the zero point). */
    const long double *ll_lo, *rr_lo;
    double scale;
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
} sp_pair;

/* Zero points from the cells: the largest lr + lr_lo (plus) and -(lr + lr_lo)
 * (minus) over the cells where the numerator law has mass, capped by
 * max_log_ratio.  For Laplace cells the interior densities' ratio is not a
 * cell's lr: there the cells are used only if the ratio is monotone (then its
 * sup is the tail cells' ratio), otherwise only the bound max_log_ratio. */
void sp_pair_init_zero(sp_pair *pair);

/* The smallest double >= the zero point of a direction (+inf if none). */
double sp_pair_zero_point(const sp_pair *pair, int direction);

/* out[j] = ln sum_{i<=j} e^la[i] (or sum_{i>=j} with reverse != 0): the log
 * cdf / survival functions behind the remainder bounds. */
void sp_log_cumsum(const long double *la, long n, int reverse, long double *out);

/* ln H_eps(P||Q) (SP_PLUS) or ln H_eps(Q||P) (SP_MINUS), eps >= 0. */
double sp_pair_log_hockey(const sp_pair *pair, double eps, int direction);

/* H_eps(P||Q) = 1 - e^eps + e^eps H_{-eps}(Q||P): extends any eps >= 0
 * routine to eps < 0 without cancellation (all terms are non-negative). */
double sp_log_hockey_negative_eps(double eps, double log_reverse_at_minus_eps);

/* The curve interface shared by every curve: ln delta(eps) in a direction. */
typedef double (*sp_curve_fn)(double eps, int direction, const void *ctx);

/* Noiseless iid counting curve: Bin(N, pi) others. */
typedef struct {
    sp_binom plus;    /* law of S */
    sp_binom minus;   /* law of N - S */
} sp_binom_curve;

void sp_binom_curve_init(sp_binom_curve *c, double N, double pi);
double sp_binom_curve_log_delta(double eps, int direction, const void *ctx);
double sp_pair_curve_log_delta(double eps, int direction, const void *ctx);

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
double sp_poisson_curve_log_delta(double eps, int direction, const void *ctx);

/* The same reduction on any count law Z given by its shift curve: inner(eps,
 * SP_PLUS) = ln H_eps(Z+1 || Z), inner(eps, SP_MINUS) = ln H_eps(Z || Z+1)
 * (e.g. a pair curve of a Poisson-binomial Z, per-record pi).  eps' and eps''
 * are rounded down to doubles (conservative). */
typedef struct {
    sp_curve_fn inner;
    const void *inner_ctx;
    double g;
    double l1g_hi, l1g_lo;
} sp_sampled_shift_curve;

double sp_sampled_shift_curve_log_delta(double eps, int direction, const void *ctx);

#endif
