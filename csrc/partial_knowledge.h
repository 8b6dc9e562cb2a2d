/* Partial knowledge (Desfontaines, Mohammadi, Krahmer & Basin, "Differential
 * Privacy with Partial Knowledge"): the exact worst case of a count over the
 * others' unknown probabilities pi_j in [p, 1 - p], and the privacy blanket.
 *
 * The worst case is attained at a vertex of the box (joint convexity of the
 * hockey-stick divergence); by exchangeability the vertices are a = 0..N:
 * a records at p, N - a at q = 1 - p, S_a = Bin(a, p) + Bin(N - a, q).  The
 * target's report is Bernoulli(q1) under P and Bernoulli(q0) under Q with
 * q0 = 1 - q1 (a pure shift: q1 = 1; shuffled randomized response:
 * q1 = e^eps0 / (1 + e^eps0)), so P_a = q1 (S_a + 1) + (1 - q1) S_a and
 * Q_a = q0 (S_a + 1) + (1 - q0) S_a, and mirroring S_a -> N - S_a maps
 * H(P_a || Q_a) onto H(Q_{N-a} || P_{N-a}): the worst case of either
 * direction is max_a H_eps(P_a || Q_a).
 *
 * The pmf c_k of S_a (the coefficients of (q + p z)^a (p + q z)^(N-a))
 * satisfies, from (q + p z)(p + q z) G' = (a p (p + q z) + (N - a) q (q + p z)) G,
 *   p q (k+1) c_{k+1} = A_k c_k + p q (N - k + 1) c_{k-1},
 *   A_k = a p^2 + (N - a) q^2 - (p^2 + q^2) k.
 * Below k* = (a p^2 + (N - a) q^2) / (p^2 + q^2) both coefficients of the
 * upward step are >= 0, above it both coefficients of the downward step
 * c_{k-1} = (p q (k+1) c_{k+1} - A_k c_k) / (p q (N - k + 1)) are: each step
 * is then a positive combination, whose relative error is at most the larger
 * relative error of its inputs plus a few roundings.  So the pmf is built
 * upward from the closed forms c_0, c_1 up to k* and downward from c_N,
 * c_{N-1} down to k*, with relative error <= ~4 N u (u = 2^-64), and no
 * cancellation anywhere.  The hockey-stick terms are summed on the fly, so
 * a vertex costs O(N) time and O(1) memory, on the whole support (no
 * truncation: exact at every eps).
 *
 * Layer: uses sp_curve.h, logspace.h, pmf.h, binomial_tail.h (the blanket's
 * per-b shift curves).  Pure functions, no global state. */
#ifndef STATPRIV_PARTIAL_KNOWLEDGE_H
#define STATPRIV_PARTIAL_KNOWLEDGE_H

#include "sp_curve.h"

typedef struct {
    double N;               /* the others (integer valued, >= 0) */
    double p;               /* 0 < p <= 1/2: vertex records are at p or q = 1 - p */
    long double pe, qe;     /* p, q in extended precision (q from the exact p) */
    long double lp, lq;     /* ln p, ln q */
    long double q0;         /* the target's report probability under Q; q1 = 1 - q0 */
    long double d;          /* q1 - q0 (> 0) */
    long double lq1;        /* ln q1 */
    double a_lo, a_hi;      /* the vertices swept: a_lo..a_hi */
    double eps0;            /* ln(q1 / q0) exactly: the zero point (+inf for a shift) */
} sp_vertex_sys;

/* p in (0, 1/2], q0 in [0, 1/2), d = 1 - 2 q0 given accurately; sweeps 0..N.
 * With q0 > 0 the zero point is taken as ln(q1 / q0) computed from q0. */
void sp_vertex_init(sp_vertex_sys *s, double N, double p, long double q0, long double d);

/* Shuffled eps0-randomized response, the randomization carried exactly:
 * p = q0 = 1 / (1 + e^eps0) and q = q1 = 1 - p each computed from eps0 in
 * extended precision (ln p = -log1p(e^eps0), ln q = -log1p(e^-eps0)), and
 * the target's coefficients from eps0 itself (A = q1 (1 - e^(eps - eps0)),
 * B = q0 (e^(eps + eps0) - 1): no cancellation near eps0), delta = 0
 * exactly from eps = eps0 on.  s->p is p rounded to double (window
 * estimates and the binomial anchors only). */
void sp_vertex_init_rr(sp_vertex_sys *s, double N, double eps0);

/* ln H_eps(P_a || Q_a) at one vertex, eps >= 0 (+inf allowed). */
double sp_vertex_log_hockey(const sp_vertex_sys *s, double a, double eps);

/* Bounds on ln H_eps(P || Q) for the target pair on S = Bin(n1, p) +
 * Bin(n2, 1 - p) evaluated on the window of atoms within ~depth nats of the
 * mode (anchors at its ends from the convolution sum, bounded to 2^-60):
 * returns an upper bound (the mass outside the window, bounded by
 * log-concavity, added with the largest coefficient A) and sets *log_lower
 * to the window's terms alone (a lower bound); depth <= 0: the whole
 * support, both exact.  O(window) time, no memory. */
double sp_vertex_log_hockey_bounds(const sp_vertex_sys *s, double n1, double n2, double eps,
                                   double depth, double *log_lower);

/* The smallest eps >= 0 at which the upper bound of
 * sp_vertex_log_hockey_bounds (same n1, n2, depth) is <= the search aim of
 * log_target (sp_smallest_eps_lean). */
double sp_vertex_window_smallest_eps(const sp_vertex_sys *s, double n1, double n2, double depth,
                                     double log_target, double log_tol);

/* max over a in [a_lo, a_hi] of ln H_eps(P_a || Q_a); *arg = the maximising a
 * (the smallest one on ties; may be NULL). */
double sp_vertex_worst_log_hockey(const sp_vertex_sys *s, double eps, double *arg);

/* The sp_curve_fn of the worst case (ctx: sp_vertex_sys), any eps and
 * direction (both directions are equal; eps < 0 by the negative-eps
 * identity). */
double sp_vertex_curve_log_delta(double eps, sp_direction direction, const void *ctx);

/* The smallest eps >= 0 with worst-case ln delta <= the search aim of
 * log_target: the max over the vertices of their own smallest eps, found by
 * one search at a first vertex and one evaluation at every other vertex (a
 * vertex is searched only if it exceeds the running answer). */
double sp_vertex_smallest_eps(const sp_vertex_sys *s, double log_target, double log_tol);

/* The privacy-blanket bound (Balle, Bell, Gascon & Nissim, "The Privacy
 * Blanket of the Shuffle Model"): ln sum_b Bin(N, 2p)(b) H_eps(A_b + 1 || A_b),
 * A_b ~ Bin(b, 1/2).  While the window of Bin(N, 2p) (atoms within 1100
 * nats of the mode) has at most 4096 atoms every b is summed.  Beyond, H is
 * non-increasing in b (adding a fair coin is post-processing), so blocks
 * [b, e] contribute P(block) H(b) (an upper bound) and P(block) H(e) (a
 * lower one); blocks are split until the two sums are within rel_tol.  The
 * mass of Bin(N, 2p) outside the window (log-concavity) is added with H <= 1.
 * sp_blanket_init precomputes the window's cumulative masses in work (at
 * least sp_blanket_work_len(N, p) long doubles, owned by the caller);
 * returns 1 if work is too small. */
typedef struct {
    double N, p, rel_tol;
    double lo, hi;            /* the window of b */
    long len;
    const long double *cum;   /* cum[i] = sum_{j < i} Bin(N, 2p)(lo + j) / max */
    long double mx;           /* ln of that max */
    long double rest;         /* mass outside the window / max (bound) */
} sp_blanket;

long sp_blanket_work_len(double N, double p);
int sp_blanket_init(sp_blanket *bl, double N, double p, double rel_tol, long double *work,
                    long work_len);
double sp_blanket_log_delta(const sp_blanket *bl, double eps);
double sp_blanket_curve_log_delta(double eps, sp_direction direction, const void *ctx);
/* The smallest eps with the blanket bound <= e^log_target (log_tol as in
 * sp_smallest_eps), searched from the eps of the law at the mean b. */
double sp_blanket_smallest_eps(const sp_blanket *bl, double log_target, double log_tol);

#endif
