/* Thresholded counts against an attacker with background knowledge
 * (Desfontaines, Mohammadi, Krahmer & Basin, "Differential Privacy with
 * Partial Knowledge", §3 and §4.2; docs/thresholding.md).
 *
 * M_tau releases K = X + b + Z if K >= tau and "bottom" otherwise: X the
 * target's record, b the ones among the records the attacker knows, Z the
 * count of the unknown others (law z, log-concave: binomial or
 * Poisson-binomial).  For one b the pair is (P_b, Q_b) with threshold
 * t = tau - b on Z:
 *   delta_plus^b  = sum_{k>=t} (z(k-1) - e^eps z(k))_+ + (F(t-2) - e^eps F(t-1))_+,
 *   delta_minus^b = sum_{k>=t} (z(k) - e^eps z(k-1))_+ + (F(t-1) - e^eps F(t-2))_+,
 * F the cdf of Z.  The active attacker (chooses the known records) gets
 * max_b delta^b, the passive one sum_b P(b) delta^b (the hockey stick of
 * the joint law of (b, release)).  For eps >= 0 the first bottom term is 0
 * and the second is F(t-1) (1 - e^(eps - ln F(t-1)/F(t-2))); every term is
 * formed from its log ratio (given as hi + lo where refined), so it keeps its
 * relative accuracy near the zero points.
 *
 * z is given on a window (a sub-measure); the mass left out (log_rest) is
 * added to every delta^b, and the passive b-law's mass not enumerated
 * (log_rest_b) to the average.  The sums over k of all thresholds are taken
 * in ONE sweep of the window from the top down (the likelihood ratio
 * z(k-1)/z(k) is non-decreasing, so every positive part is a term of a
 * running sum of non-negative terms: no cancellation).
 * Layer: uses sp_curve.h, logspace.h and (in the .c) xprec.h.  Pure, no global state; only
 * sp_thr_refine_records allocates (one checked buffer, freed before it returns). */
#ifndef STATPRIV_THRESHOLDING_H
#define STATPRIV_THRESHOLDING_H

#include "sp_curve.h"

typedef struct {
    const long double *lz;    /* ln z(first + i), i = 0..len-1 (every entry finite) */
    const long double *lr;    /* lr[i] = ln z(first+i-1) / z(first+i), i = 0..len:
                               * lr[0] = -inf, lr[len] = +inf (the window's edges) */
    const long double *lr_lo; /* NULL, or low parts: lr[i] + lr_lo[i] = ln z(k-1)/z(k) to
                               * ~1e-30 where refined (near the zero points the terms
                               * z (1 - e^(eps - lr)) need lr - eps far beyond long double) */
    const long double *lcz;   /* ln sum_{j<=i} z(first + j), i = 0..len-1 */
    long first, len;
    const long *t;            /* thresholds tau - b on Z, non-increasing */
    const long double *lw;    /* ln P(b) of each threshold (passive), NULL: active (max) */
    long nt;
    const long double *lb_hi, *lb_lo; /* NULL, or per threshold t[j]: ln F(t-1)/F(t-2) as
                               * hi + lo (to ~1e-30; +inf if F(t-2) = 0 on the window) */
    double log_rest;          /* ln bound on z's mass outside the window (-inf: none) */
    double log_rest_b;        /* passive: ln bound on P(b) not enumerated (-inf: none) */
    /* Optional (set by sp_thr_prepare; fast = 0: the full sweep): the
     * sums from the threshold cells outward with a bounded rest. */
    const long double *lsz;   /* ln sum_{j>=i} z(first + j), i = 0..len-1 */
    const long double *lws;   /* passive: ln sum_{j'>=j} P(b_j'), j = 0..nt-1 */
    const long double *lwp;   /* passive: ln sum_{j'<=j} P(b_j'), j = 0..nt-1 */
    int fast;
} sp_thr_curve;

/* The fast evaluation (see thresholding.c): fills lsz (len entries) and,
 * passive, lws and lwp (nt entries each) and sets c->fast = 1 where it applies: the
 * thresholds consecutive (t[j] = t[0] - j), lr non-decreasing, and the
 * refinements lb_hi / lb_lo given with ln F(t-1)/F(t-2) non-increasing in t
 * (both hold exactly for a log-concave z; a rounding that breaks them
 * keeps the full sweep).  c->lsz / c->lws / c->lwp point into the buffers. */
void sp_thr_prepare(sp_thr_curve *c, long double *lsz, long double *lws, long double *lwp);

/* The sp_curve_fn of a thresholded curve: ln delta(eps), any eps, any direction. */
double sp_thr_curve_log_delta(double eps, sp_direction direction, const void *ctx);

/* The log ratios of Bin(N, pi) on the window first..first+len-1, as
 * sp_thr_curve reads them (len + 1 entries): lr[0] = -inf, lr[len] = +inf,
 * lr[i] = ((ln k + log1p(-pi)) - ln(N - k + 1)) - ln pi for k = first + i,
 * each log by the C library's logl / log1pl in that order (the values of
 * numpy's long double ufuncs on the same expression, without its five
 * window-size temporaries). */
void sp_thr_binomial_log_ratios(long double N, double pi, long first, long len, long double *lr);

/* Construction-time refinements for sp_thr_curve (xprec.h arithmetic, one
 * O(len) sweep): lr_lo[i] (i = 0..len) with lr[i] + lr_lo[i] = ln z(k-1)/z(k)
 * to ~1e-35, and per threshold t[j] (non-increasing) lb_hi[j] + lb_lo[j] =
 * ln F(t-1)/F(t-2) = log1p(z(t-1)/F(t-2)) (F from the window's start; +inf, 0
 * where F(t-2) = 0 or t-1 is outside the window).
 * Binomial: Z ~ Bin(N, pi), 0 < pi < 1, window first..first+len-1, from the
 * exact ratios k (1-pi) / ((N-k+1) pi), far from 0 and N by their
 * recurrence in k between exact values every 64 atoms (thresholding.c). */
void sp_thr_refine_binomial(double N, double pi, long first, long len, const long double *lr,
                            const long *t, long nt, long double *lr_lo, long double *lb_hi,
                            long double *lb_lo);

/* The same for Z = ones + the count of n independent Bernoulli(p[i]),
 * 0 < p[i] < 1, the window's first atom being lo = first - ones of that
 * count: the exact convolution on the atoms that reach the window
 * (O(n (len + n)) operations, one allocation of lo + len scaled values).
 * Returns 0, -1 (allocation failure) or -2 (a window outside 0..n). */
int sp_thr_refine_records(const double *p, long n, long lo, long first, long len,
                          const long double *lr, const long *t, long nt, long double *lr_lo,
                          long double *lb_hi, long double *lb_lo);

#endif
