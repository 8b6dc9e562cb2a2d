/* Repeated noiseless counts on the same correlated records (Desfontaines,
 * Mohammadi, Krahmer & Basin, "Differential Privacy with Partial
 * Knowledge", Example 8): each record answers k binary questions, its
 * answer vector a in {0,1}^k has the law `joint` (2^k probabilities, index
 * v = sum_j a_j 2^(k-j)), and the k counts are released.  With S the sum of
 * the N = n - 1 other records' vectors, the release is S + x (P) or S + x'
 * (Q), and delta depends on the pair only through x - x' (the curve is the
 * pair kernel's, pair_tail.h, on the lattice laws built here).
 *
 * The law of S on the whole lattice [0, N]^k (nothing truncated): one
 * record at a time, L_i(s) = sum_v joint(v) L_{i-1}(s - v), in extended
 * precision (positive terms only: relative error <= ~2^k N 2^-64 per
 * atom), one row of the lattice at a time (the rows of L_{i-1} it reads
 * stay in cache).  Every atom of L_N is at least (min nonzero joint)^N, so
 * it stays inside long double's range (e^-11355) when N |ln min joint| <
 * 11000; the caller checks that (no atom is flushed).
 * O(cells (N + 1)^k N / (k + 1)) multiply-adds, where cells = the nonzero
 * entries of joint, each a contiguous row of the lattice.
 *
 * Layer: uses sp_curve.h (the max of curves) only.  Pure, no global
 * state, no allocation. */
#ifndef STATPRIV_CORRELATED_COUNTS_H
#define STATPRIV_CORRELATED_COUNTS_H

#include "sp_curve.h"

/* The largest k (questions per record) the lattice kernel takes. */
#define SP_CORR_MAX_K 4

/* ln P[S = s] for every s in [0, N]^k into out ((N + 1)^k long doubles,
 * C order: s_1 varies slowest), -inf where S never lands; work: a
 * workspace of as many long doubles.  k in 1..4, N >= 0, joint: 2^k
 * probabilities (>= 0, summing to 1).  Returns 0, or -2 for bad arguments
 * (nothing written). */
int sp_corr_lattice_log_law(long k, long N, const double *joint, long double *out,
                            long double *work);

/* k = 2 by conditioning on the first answer: with m records answering
 * a1 = 1,
 *   L(m, c2) = Bin(N, p1)(m) [Bin(m, q1) * Bin(N - m, q0)](c2),
 * p1 = P(a1 = 1), q1 = P(a2 = 1 | a1 = 1), q0 = P(a2 = 1 | a1 = 0), each
 * with its complement from the joint's entries in extended precision; the
 * binomial pmfs by Pascal's rule (positive terms), the convolution summed
 * directly: O(N^3 / 6) multiply-adds (sp_corr_lattice_log_law: 4 N^3 / 3),
 * the same range condition.  out: (N + 1)^2 as sp_corr_lattice_log_law
 * with k = 2, joint: 4 entries; work: (N + 1)^2 + 2 (N + 1) long doubles.
 * Returns 0, or -2 for bad arguments. */
int sp_corr_two_log_law(long N, const double *joint, long double *out, long double *work);

/* The maximum of several curves, each one sp_curve_fn with its context:
 * the worst case over a set of target pairs closed under swapping P and Q
 * (a pair and its swap are one curve's two directions), so every
 * direction of the maximum is the max over the curves of their SP_MAX. */
typedef struct {
    const sp_curve_fn *fns;
    const void *const *ctxs;
    long count;
} sp_corr_max_curve;

/* max over the curves of their ln delta (eps, SP_MAX) in any direction:
 * the curve of sp_corr_max_curve (ctx); NaN if any is NaN, -inf for no
 * curve. */
double sp_corr_max_log_delta(double eps, sp_direction direction, const void *ctx);

#endif
