/* The k-anonymity mechanism (Desfontaines, Mohammadi, Krahmer & Basin,
 * "Differential Privacy with Partial Knowledge", Def. 16): a histogram of
 * n iid records, each count released if >= k, suppressed otherwise.  The
 * target's record moves from category s to category t; A, B are the other
 * records' counts in s and t, m = A + B ~ Bin(n-1, pa+pb) and
 * A | m ~ Bin(m, rho), rho = pa / (pa + pb) (docs/thresholding.md).
 *
 * P (target in s): released pair (thr(A+1), thr(B)); Q (target in t):
 * (thr(A), thr(B+1)); thr(x) = x if x >= k, else bottom.  With the cell
 * index u (the value of A under Q), P = g_m(u-1), Q = g_m(u) on every cell
 * whose output reveals u.
 *
 * upper: the attacker also learns m (equivalently how many others are in
 * neither category).  Given m, a released coordinate reveals u, so the pair
 * is the shift pair of Bin(m, rho) with the cells u in
 * [m-k+2, k-1] (both counts suppressed) merged into one:
 *   delta = sum_m w(m) [ shift sums over u outside the merged cells + merged cell ].
 * lower: the attacker sees only the two released counts.  Both released:
 * the shift cells u in [k, m+1-k] per m; one or both suppressed: cells
 * summed over m (arrays precomputed at construction):
 *   (u, bottom): P = sum_{b<k} f(u-1, b),   Q = sum_{b<k-1} f(u, b),
 *   (bottom, v): P = sum_{a<k-1} f(a, v),   Q = sum_{a<k} f(a, v-1),
 *   (bottom, bottom): P = sum_{a<k-1,b<k} f, Q = sum_{a<k,b<k-1} f,
 * f(a, b) = P[A = a, B = b].  Every sum of positive parts runs from the
 * likelihood-ratio threshold outward with a geometric remainder bound
 * (added); the mass the windows leave out (log_rest) is added to delta.
 * The lower curve's sum over m runs past m's window while it is positive
 * (its rest bounded against the sum itself, not in log_rest): delta far
 * below the window's rest keeps its relative accuracy.
 * Layer: uses pmf.h, logspace.h, sp_curve.h and (in the .c) xprec.h.  Pure, no
 * global state; the refinements allocate one checked buffer each. */
#ifndef STATPRIV_K_ANONYMITY_H
#define STATPRIV_K_ANONYMITY_H

#include "sp_curve.h"
#include "pmf.h"

typedef struct {
    sp_binom m_law;              /* m = A + B ~ Bin(n - 1, pa + pb) */
    long double rho, rho_c;      /* A | m ~ Bin(m, rho); rho_c = 1 - rho */
    long double log_a, log_b, log_c;  /* ln pa, ln pb, ln(1 - pa - pb) */
    double log_rho, log_rho_c;
    long k;
    long m_lo, m_hi, m_mode;     /* the window of m (m_mode: the law's mode, clamped) */
    int upper;                   /* 1: the attacker also learns m */
    /* upper: the merged cell of m = m_lo + i, i < n_merged, as P = X + C,
     * Q = Y + C (logs; C the part the two laws share, so that P - e^eps Q =
     * X - e^eps Y - (e^eps - 1) C keeps its relative accuracy when P ~ Q) */
    const long double *merged_x, *merged_y, *merged_c;
    long n_merged;
    /* optional (NULL when unused): ln P/Q of the merged cells as hi + lo to ~1e-30 */
    const long double *merged_hi, *merged_lo;
    /* lower: (u, bottom) cells u = u_first + i, (bottom, v) cells, (bottom, bottom) */
    const long double *pu, *qu, *pv, *qv;
    long u_first, nu, v_first, nv;
    long double bb_x, bb_y, bb_c;   /* (bottom, bottom): P = X + C, Q = Y + C */
    /* Optional (NULL / bb_refined = 0 when unused): ln P/Q of the (u, bottom)
     * and (bottom, v) cells and of (bottom, bottom) as hi + lo to ~1e-30, so
     * that P - e^eps Q = P (1 - e^(eps - ln P/Q)) keeps its relative accuracy
     * where P/Q is near e^eps (and delta = 0 exactly from eps = ln P/Q on) */
    const long double *lu_hi, *lu_lo, *lv_hi, *lv_lo;
    long double bb_hi, bb_lo;
    int bb_refined;
    double log_rest;             /* ln bound on the mass left out by the windows
                                    (lower: of the suppressed cells only) */
} sp_kanon_curve;

/* The laws: n_others = n - 1, pa, pb the two categories' probabilities
 * (pa + pb <= 1); the arrays are set by the caller (sp_kanon_fill_*). */
void sp_kanon_init(sp_kanon_curve *c, double n_others, double pa, double pb, long k, int upper);

/* ln P[A = a, B = b] (ln w(a+b) + ln g_{a+b}(a)). */
double sp_kanon_log_f(const sp_kanon_curve *c, long a, long b);

/* Fill lx, ly, lc (count entries) with the upper curve's merged cells for
 * m = m_lo .. m_lo + count - 1 and attach them to c (c keeps the pointers). */
void sp_kanon_fill_merged(sp_kanon_curve *c, long count, long double *lx, long double *ly,
                          long double *lc);

/* Fill the lower curve's one-suppressed cells on u = u_first .. u_first+nu-1
 * and v = v_first .. v_first+nv-1 (the inner sums restricted to the windows
 * [a_lo, a_hi] of A and [b_lo, b_hi] of B) and the (bottom, bottom) cell, and
 * attach them to c (c keeps the pointers).  line: workspace of k entries. */
void sp_kanon_fill_lower(sp_kanon_curve *c, long a_lo, long a_hi, long b_lo, long b_hi,
                         long u_first, long nu, long double *pu, long double *qu, long v_first,
                         long nv, long double *pv, long double *qv, long double *line);

double sp_kanon_curve_log_delta(double eps, sp_direction direction, const void *ctx);

/* Construction-time refinements (xprec.h arithmetic: the pmfs to ~1e-37
 * relative, their log ratios to ~1e-35 absolute), each with one checked
 * allocation; return 0, -1 (allocation failure) or -2 (bad arguments).
 * Merged cells of the upper curve, m = m_lo .. m_lo + count - 1: ln P/Q as
 * hi[i] + lo[i], P = X + C, Q = Y + C, formed as log1p((X - Y)/(Y + C)) where
 * that is small (C cancels exactly); O(count k). */
int sp_kanon_refine_merged(double pa, double pb, long k, long m_lo, long count,
                           long double *hi, long double *lo);

/* The lower curve's (u, bottom) cells u = u_first .. u_first + nu - 1 (u_first
 * >= 1), (bottom, v) cells and the (bottom, bottom) cell (bb[0] + bb[1]),
 * from f(a, b) = P[A = a, B = b] with A, B the counts of the n_others = N
 * other records in the two categories (every atom: nothing windowed);
 * O((nu + nv + k) k + u_first + v_first) operations. */
int sp_kanon_refine_lower(double N, double pa, double pb, long k, long u_first, long nu,
                          long v_first, long nv, long double *lu_hi, long double *lu_lo,
                          long double *lv_hi, long double *lv_lo, long double *bb);

#endif
