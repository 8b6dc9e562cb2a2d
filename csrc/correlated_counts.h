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
 * state; only the window and box kernels (k = 2 and 3 beyond the whole
 * lattice) allocate (their workspace, freed), and only the box starts a
 * thread (POSIX; its two halves at once, joined before it returns; the
 * same arithmetic without one). */
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

/* k = 2 on a window: L(m, c) for m in [m_lo, m_hi], c in [c_lo, c_hi] only
 * (the caller picks the box from a tail bound and adds the mass outside it
 * to delta; statpriv.correlated).  The whole lattice costs N^3 / 6 terms
 * (1.7e11 at N = 1e4); the box holds ~(18 sqrt N)^2 cells at a 3e-70 tail
 * (1756 x 1793 at N = 1e4).
 * Row m is Bin(N, p1)(m) f_m, f_m = G(m, N - m) with
 *   G(a, b) = Bin(a, q1) * Bin(b, q0)
 * (q1 = P(a2 = 1 | a1 = 1), q0 = P(a2 = 1 | a1 = 0)).  Consecutive rows
 * differ by one record, but f_(m+1) from f_m is a division by a Bernoulli
 * polynomial, and that recurrence's errors alternate and grow (a factor 1e18
 * off in the tails by N = 120), so the rows come from a binary tree of
 * convolutions with positive terms only: a node [lo, hi] holds
 * G(lo, N - hi), its halves that times Bin(hi - mid, q0) and
 * Bin(mid + 1 - lo, q1).  Each base is kept only where its rows can still
 * reach the box (the least and most its kernels below move c: exact) and
 * each binomial factor is cut where it falls e^-cut below its mode (an
 * absolute error < (N + 1) e^-cut of the row's scale per level: with cut
 * 100 nats beyond the caller's tail bound, far below it).  Every cell keeps
 * a few ulps relative error however small.  About (log2 rows) x rows x
 * (box width + rows) multiply-adds, ~15 ms of CPU at N = 1e4.  Doubles
 * (positive terms: no accuracy to keep beyond theirs; x87 long doubles took
 * 4x as long): the cells the box holds, >= e^-cut of the largest, stay far
 * above 1e-308 while that cut is below ~600 nats (anything lower is
 * flushed: < 1e-308 a cell, which the caller adds to its bound).
 * out: (m_hi - m_lo + 1) x (c_hi - c_lo + 1) doubles (row m_lo first),
 * the probabilities themselves (not logs).  Allocates its workspace
 * (~(log2 rows) (box width + rows) doubles, 2 N long doubles, 6 rows
 * longs) and frees it.  Returns 0, -1 out of memory, -2 for bad
 * arguments. */
int sp_corr_two_window_law(long N, const double *joint, long m_lo, long m_hi, long c_lo,
                           long c_hi, double cut, double *out);

/* delta of one target pair on the box of sp_corr_two_window_law: the
 * others' law L on rows x cols (zero outside), the pair's shift d = x - x'
 * in box coordinates, and `tail`, a bound on L's mass outside the box:
 *   delta_plus(eps) = sum_(s in box) (L(s) - e^eps L(s + d))_+ + tail
 * (delta_minus: -d), at most 1.  Every term of the true sum is a term here
 * or a cell outside the box (at most its mass), so this is never below the
 * true delta; it exceeds it by at most tail plus the mass of the box's edge
 * cells whose partner s + d lies outside (those count in full: the caller
 * widens the box by a cell a side beyond its tail bound, so that they hold
 * at most that bound).  A partner the box holds below what its doubles
 * resolve (cut, or past the double range: cells beside a joint entry of
 * 1e-300) would make its cell count in full; the resolved cells of each
 * direction (resolved[0] for +d, [1] for -d; sp_corr_window_resolve) are
 * left out of the sum and added as L(s) (1 - e^(eps + r))_+ from their log
 * ratio r = ln L(s + d) / L(s) (-inf: the partner is 0).  Everything is
 * borrowed (must outlive the context). */
typedef struct {
    const double *law;
    long rows, cols;
    long d_row, d_col;
    double tail;
    const long *resolved[2];          /* increasing flat indices r cols + t */
    const double *resolved_log[2];    /* their r */
    long n_resolved[2];
} sp_corr_window;

/* The cells of the box of sp_corr_two_window_law (law, rows x cols, from
 * (m_lo, c_lo) of the lattice; joint: the 4 entries) whose partner s + d
 * lies in the box but below `partner_floor` while the cell is at least
 * `cell_floor`: their flat indices (increasing) into index and their log
 * ratio ln L(s + d) / L(s), both in log space from the binomial factors
 * (lgammal, O(N) terms a cell), into log_ratio -- the first `capacity` of
 * them (index NULL: count only).  A row of the box is log-concave (a
 * convolution of binomials), so its cells between the first and the last
 * at least a floor are taken to be at least it: each row is read from its
 * ends inward only.  Returns their count, -2 for bad arguments. */
long sp_corr_window_resolve(long N, const double *joint, long m_lo, long c_lo, const double *law,
                            long rows, long cols, long d_row, long d_col, double cell_floor,
                            double partner_floor, long *index, double *log_ratio,
                            long capacity);

/* ln delta(eps) of sp_corr_window (ctx) in one direction; NaN for NaN eps. */
double sp_corr_window_log_delta(double eps, sp_direction direction, const void *ctx);

/* k = 3 on a box: m = c1 in [m_lo, m_hi], c2 in [b_lo, b_hi], c3 in
 * [c_lo, c_hi] (the caller picks it from tail bounds and adds the mass
 * outside it to delta; statpriv.correlated).  Conditioned on the first
 * answer as for k = 2: with m records answering a1 = 1,
 *   L(m, c2, c3) = Bin(N, p1)(m) f_m(c2, c3),
 *   f_m = J1^(*m) * J0^(*(N - m))   (2-D convolution powers),
 * J1 and J0 the laws of (a2, a3) given a1 = 1 and a1 = 0.  Slice m is
 * built by the k = 2 tree's split on planes: a node [lo, hi] holds
 * J1^(*lo) * J0^(*(N - hi)), its halves that times hi - mid records of J0
 * and mid + 1 - lo of J1, one record at a time (4 positive terms a cell,
 * doubles: every cell keeps ~N ulps relative however small), each plane
 * only where its slices can still reach the box (exact: a record moves c2
 * and c3 up by 0 or 1) and cut to the rectangle of its cells >= e^-cut / w,
 * w the largest weight Bin(N, p1)(m) of the node's slices (the cut cells'
 * count times that floor times the slices' summed weight bounds the mass
 * lost, added to delta: *dropped).  About 4 rows log2(rows) (box plane)
 * multiply-adds (each level of the tree adds rows records to planes about
 * the box's cross-section).  The root's two halves (slices below and above
 * its middle) share only the root's plane, which they read: the second
 * half runs in a thread of its own, with its own buffers (threads = 2;
 * else after the first, in the same buffers).  Each half's
 * slices come out in order of m, so delta is summed holding two slices a
 * half (never the whole box), the terms kept per slice and added in order
 * of m at the end (the bits of one pass):
 *   delta_plus(eps) = max_(d in shifts) sum_(s in box) (L(s) - e^eps L(s + d))_+
 *                     + tail + dropped
 * (delta_minus: -d; L zero outside the box), never below the true delta
 * (every term is a term here, a cell outside the box or a cut cell, at
 * most its mass), above it by at most tail + dropped + the mass of the
 * box's edge cells whose partner lies outside.  The joint: 8 entries. */
typedef struct {
    long N;
    double joint[8];
    long m_lo, m_hi, b_lo, b_hi, c_lo, c_hi;
    double cut;
    const long *shifts;     /* count shifts d = x - x', 3 longs each (borrowed) */
    long count;
    double tail;            /* the bound on the mass outside the box */
    int threads;            /* 2: the root's halves at once (their own buffers); 1 or 0: in turn */
} sp_corr_box;

/* L on the box (shifts unused): out holds (m_hi - m_lo + 1) x (b_hi - b_lo
 * + 1) x (c_hi - c_lo + 1) doubles, C order; *dropped the bound on the mass
 * cut.  Returns 0, -1 out of memory, -2 for bad arguments. */
int sp_corr_three_box_law(const sp_corr_box *box, double *out, double *dropped);

/* sums[2 i] = sum_(s in box) (L(s) - e L(s + d_i))_+, sums[2 i + 1] the
 * same with -d_i, for the box's shifts (no tail added), built slice by
 * slice; *dropped as above.  Returns 0, -1 out of memory, -2 for bad
 * arguments. */
int sp_corr_box_sums(const sp_corr_box *box, double e, double *sums, double *dropped);

/* ln delta(eps) of sp_corr_box (ctx): the largest sum over the shifts in
 * the direction asked (SP_MAX: either), plus tail and dropped, at most 1;
 * NaN for NaN eps or when out of memory.  Rebuilds the box each call. */
double sp_corr_box_log_delta(double eps, sp_direction direction, const void *ctx);

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
