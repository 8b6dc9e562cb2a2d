#include <stddef.h>
#include <stdlib.h>
#include <math.h>
#include "k_anonymity.h"
#include "logspace.h"
#include "xprec.h"

/* ln SP_TAIL_TOL */
#define LOG_TAIL_TOL (-41.58883083359671856503L)

/* Bin(N, p) from p and q = 1 - p both accurate to extended precision: the
 * mean is formed on the smaller of the two (N q = N - N p would lose the
 * relative accuracy of a tiny q), the law mirrored when p is the larger. */
static void binom_from(sp_binom *b, double N, long double p, long double q, double log_p,
                       double log_q)
{
    const int mirrored = p > q;
    const long double small = mirrored ? q : p;
    const long double mean = (long double)N * small;
    const double hi = (double)mean;
    if (mirrored) {
        sp_binom_init_ext(b, N, q, p, hi, (double)(mean - (long double)hi), log_q, log_p, 1);
    } else {
        sp_binom_init_ext(b, N, p, q, hi, (double)(mean - (long double)hi), log_p, log_q, 0);
    }
}

/* 1 - pa - pb, the others' chance to fall elsewhere, as hi + lo to ~2^-128 of
 * itself: 1 - pa is exact in two long doubles (a two-sum), and the accurate
 * sum of pairs keeps that relative accuracy through the cancellation with pb.
 * (One long double subtraction 1 - pa rounds at 2^-64 of 1: where pa + pb is
 * 1 in the floats and the residue ~1e-16, that is ~1e-4 of the residue, and
 * the m = A + B law's ln P[m] carries it (N - m) times.) */
static sp_qq residue(double pa, double pb)
{
    return sp_qq_add(sp_qq_two_sum(1.0L, -(long double)pa), sp_qq_from(-(long double)pb));
}

void sp_kanon_init(sp_kanon_curve *c, double n_others, double pa, double pb, long k, int upper)
{
    const long double p = (long double)pa + (long double)pb;       /* to 2^-64 of itself */
    const sp_qq rest = residue(pa, pb);
    long double q = rest.hi + rest.lo;
    if (q < 0.0L) {
        q = 0.0L;
    }
    binom_from(&c->m_law, n_others, p, q, p > 0.0L ? (double)logl(p) : -INFINITY,
               q > 0.0L ? (double)logl(q) : -INFINITY);
    c->log_a = pa > 0.0 ? logl((long double)pa) : -INFINITY;
    c->log_b = pb > 0.0 ? logl((long double)pb) : -INFINITY;
    c->log_c = q > 0.0L ? logl(q) : -INFINITY;
    if (p > 0.0L) {
        c->rho = (long double)pa / p;
        c->rho_c = (long double)pb / p;
    } else {                         /* m = 0 surely: rho is irrelevant */
        c->rho = 0.5L;
        c->rho_c = 0.5L;
    }
    c->log_rho = c->rho > 0.0L ? (double)logl(c->rho) : -INFINITY;
    c->log_rho_c = c->rho_c > 0.0L ? (double)logl(c->rho_c) : -INFINITY;
    c->k = k;
    c->upper = upper;
    c->m_lo = 0;
    c->m_hi = (long)n_others;
    double mode = floor((n_others + 1.0) * (double)p);
    c->m_mode = (long)fmin(mode, n_others);
    c->merged_x = c->merged_y = c->merged_c = NULL;
    c->n_merged = 0;
    c->merged_hi = c->merged_lo = NULL;
    c->pu = c->qu = c->pv = c->qv = NULL;
    c->u_first = c->nu = c->v_first = c->nv = 0;
    c->bb_x = c->bb_y = c->bb_c = -INFINITY;
    c->lu_hi = c->lu_lo = c->lv_hi = c->lv_lo = NULL;
    c->bb_hi = c->bb_lo = 0.0L;
    c->bb_refined = 0;
    c->log_rest = -INFINITY;
}

/* g_m = Bin(m, rho), the law of A given m. */
static void cond_law(const sp_kanon_curve *c, long m, sp_binom *g)
{
    binom_from(g, (double)m, c->rho, c->rho_c, c->log_rho, c->log_rho_c);
}

double sp_kanon_log_f(const sp_kanon_curve *c, long a, long b)
{
    if (a < 0 || b < 0) {
        return -INFINITY;
    }
    const double lw = sp_log_binom_pmf(&c->m_law, (double)(a + b));
    if (lw == -INFINITY) {
        return -INFINITY;
    }
    sp_binom g;
    cond_law(c, a + b, &g);
    return lw + sp_log_binom_pmf(&g, (double)a);
}

/* ln (X - e^eps Y - (e^eps - 1) C)_+ from logs: (P - e^eps Q)_+ of a cell
 * with P = X + C, Q = Y + C; eps >= 0 or +inf. */
static long double log_pos_shared(long double lx, long double ly, long double lc, double eps)
{
    if (lx == -INFINITY) {
        return -INFINITY;
    }
    if (eps == INFINITY) {
        return ly == -INFINITY && lc == -INFINITY ? lx : -INFINITY;
    }
    long double lb = (long double)eps + ly;
    if (eps > 0.0 && lc > -INFINITY) {
        /* (skipped at C = 0: beyond eps = 11356 ln(e^eps - 1) is +inf, and
         * inf + ln 0 a NaN that would drop the cell X = P - e^eps Q) */
        lb = sp_logaddexpl(lb, logl(expm1l((long double)eps)) + lc);
    }
    return lb < lx ? lx + sp_log1mexpl(lb - lx) : -INFINITY;
}

/* ln (x_num - e^eps x_den)_+ from logs (x_den may be 0). */
static long double log_pos(long double lnum, long double lden, double eps)
{
    if (lnum == -INFINITY) {
        return -INFINITY;
    }
    if (lden == -INFINITY) {
        return lnum;
    }
    const long double x = (long double)eps + lden - lnum;
    return x < 0.0L ? lnum + sp_log1mexpl(x) : -INFINITY;
}

/* ln (P - e^eps Q)_+ = ln P + ln(1 - e^(eps - L)) from ln P and L = ln P/Q
 * given as hi + lo (hi = +inf: Q = 0). */
static long double log_pos_ratio(long double lnum, long double hi, long double lo, double eps)
{
    if (lnum == -INFINITY) {
        return -INFINITY;
    }
    if (hi == INFINITY) {
        return lnum;
    }
    const long double x = ((long double)eps - hi) - lo;
    return x < 0.0L ? lnum + sp_log1mexpl(x) : -INFINITY;
}

/* ln sum_{u=lo}^{hi} of the shift terms of g = Bin(m, rho) (g(-1) = g(m+1) = 0):
 *   plus  (g(u-1) - e^eps g(u))_+ = g(u-1) (u rho_c - e^eps (m-u+1) rho) / (u rho_c),
 *   minus (g(u) - e^eps g(u-1))_+ = g(u) ((m-u+1) rho - e^eps u rho_c) / ((m-u+1) rho),
 * eps >= 0 or +inf.  The numerators are linear in u and positive only beyond
 * the likelihood-ratio threshold, so the sum runs from there outward (g
 * decreasing): g carried by exact ratios from Loader's form at the start,
 * re-anchored every 256 steps, the rest bounded geometrically and added once
 * it is below SP_TAIL_TOL of the sum. */
static long double range_sum(const sp_kanon_curve *c, long m, long lo, long hi, double eps,
                             sp_direction d)
{
    if (lo < 0) {
        lo = 0;
    }
    if (hi > m + 1) {
        hi = m + 1;
    }
    if (lo > hi) {
        return -INFINITY;
    }
    if (c->rho == 0.0L || c->rho_c == 0.0L) {
        /* g is the point mass at u* = 0 or m: one term, 1, at u* + 1 (plus) or u* (minus) */
        const long at = (c->rho == 0.0L ? 0 : m) + (d == SP_PLUS ? 1 : 0);
        return at >= lo && at <= hi ? 0.0L : -INFINITY;
    }
    sp_binom g;
    cond_law(c, m, &g);
    if (eps == INFINITY) {          /* only where the other law vanishes */
        if (d == SP_PLUS) {
            return hi == m + 1 ? (long double)m * c->log_rho : -INFINITY;
        }
        return lo == 0 ? (long double)m * c->log_rho_c : -INFINITY;
    }
    /* e^eps overflows long double beyond eps = 11356: e^11000 instead (the
     * same terms: e^11000 rho > m rho_c for every rho >= 5e-324 and m < 2^63,
     * so only the term where the other law vanishes, at u = m + 1 (plus) or
     * u = 0 (minus), stays positive; an infinite e^eps would make its
     * e^eps * 0 a NaN and lose it) */
    long double ee = expl((long double)eps);
    if (ee == INFINITY) {
        ee = expl(11000.0L);
    }
    const long double rho = c->rho, rc = c->rho_c;
    const long double mp1 = (long double)(m + 1);
    long u;
    if (d == SP_PLUS) {
        /* first u with u rho_c > e^eps (m-u+1) rho */
        long double x = ee * mp1 * rho / (rc + ee * rho);
        if (!(x <= mp1)) {
            /* x is below m + 1 up to rounding, which floorl absorbs; NaN
             * (inf / inf) or inf where e^eps overflows (the search tries eps
             * up to DBL_MAX): the limit m + 1, not an undefined conversion
             * of NaN to long */
            x = mp1;
        }
        u = (long)floorl(x) + 1;
        for (int guard = 0; guard < 4 && (long double)(u - 1) * rc - ee * (mp1 - (u - 1)) * rho > 0.0L
                            && u > 1; guard++) {
            u--;
        }
        for (int guard = 0; guard < 4 && (long double)u * rc - ee * (mp1 - u) * rho <= 0.0L; guard++) {
            u++;
        }
        if (u < lo) {
            u = lo;
        }
        if (u < 1) {
            u = 1;
        }
    } else {
        /* last u with (m-u+1) rho > e^eps u rho_c */
        u = (long)ceill(mp1 * rho / (rho + ee * rc)) - 1;
        for (int guard = 0; guard < 4 && (mp1 - (u + 1)) * rho - ee * (long double)(u + 1) * rc > 0.0L
                            && u < m; guard++) {
            u++;
        }
        for (int guard = 0; guard < 4 && (mp1 - u) * rho - ee * (long double)u * rc <= 0.0L && u > 0;
             guard++) {
            u--;
        }
        if (u > hi) {
            u = hi;
        }
        if (u > m) {
            u = m;
        }
    }
    if (u < lo || u > hi) {
        return -INFINITY;
    }
    /* beta = g(u-1) (plus) or g(u) (minus), relative to its value at the start */
    const int up = d == SP_PLUS;
    const long double la0 = sp_log_binom_pmf(&g, (double)(up ? u - 1 : u));
    long double beta = 1.0L, sum = 0.0L;
    for (long steps = 0; u >= lo && u <= hi; steps++) {
        if (steps > 0 && steps % 256 == 0) {
            beta = expl((long double)sp_log_binom_pmf(&g, (double)(up ? u - 1 : u)) - la0);
        }
        if (up) {
            const long double num = (long double)u * rc - ee * (mp1 - u) * rho;
            if (num > 0.0L) {
                sum += beta * num / ((long double)u * rc);
            }
            beta *= (mp1 - u) * rho / ((long double)u * rc);           /* g(u) */
            /* the rest, u' > u: sum g(u'-1) <= g(u) / (1 - g(u+1)/g(u)) */
            const long double ratio = (long double)(m - u) * rho / ((long double)(u + 1) * rc);
            if (ratio < 1.0L && sum > 0.0L && beta / (1.0L - ratio) <= SP_TAIL_TOL * sum) {
                sum += beta / (1.0L - ratio);
                break;
            }
            u++;
        } else {
            const long double num = (mp1 - u) * rho - ee * (long double)u * rc;
            if (num > 0.0L) {
                sum += beta * num / ((mp1 - u) * rho);
            }
            beta *= (long double)u * rc / ((mp1 - u) * rho);            /* g(u-1) */
            /* the rest, u' < u: sum g(u') <= g(u-1) / (1 - g(u-2)/g(u-1)) */
            const long double ratio = (long double)(u - 1) * rc / ((mp1 - u + 1) * rho);
            if (u >= 1 && ratio < 1.0L && sum > 0.0L && beta / (1.0L - ratio) <= SP_TAIL_TOL * sum) {
                sum += beta / (1.0L - ratio);
                break;
            }
            u--;
        }
    }
    return sum > 0.0L ? la0 + logl(sum) : -INFINITY;
}

void sp_kanon_fill_merged(sp_kanon_curve *c, long count, long double *lx, long double *ly,
                          long double *lc)
{
    /* the cells u in [lo, hi]: P = sum g(u-1) = g(lo-1) + C, Q = sum g(u) = C + g(hi),
     * C = sum_{s=lo}^{hi-1} g(s) */
    for (long i = 0; i < count; i++) {
        const long m = c->m_lo + i;
        const long lo = m - c->k + 2 > 0 ? m - c->k + 2 : 0;
        const long hi = m + 1 < c->k - 1 ? m + 1 : c->k - 1;
        sp_binom g;
        cond_law(c, m, &g);
        sp_logsum shared = {0.0L, 0.0L};
        for (long s = lo; s <= hi - 1; s++) {
            sp_logsum_add(&shared, sp_log_binom_pmf(&g, (double)s));
        }
        lx[i] = lo >= 1 ? sp_log_binom_pmf(&g, (double)(lo - 1)) : -INFINITY;
        ly[i] = hi <= m ? sp_log_binom_pmf(&g, (double)hi) : -INFINITY;
        lc[i] = sp_logsum_log(&shared);
    }
    c->merged_x = lx;
    c->merged_y = ly;
    c->merged_c = lc;
    c->n_merged = count;
}

/* A line of ln f(a, b) along one coordinate j in [lo, hi], the other one
 * (`fixed`: a if along_b, else b) held: started from Loader's form, then
 * moved to fixed +- 1 by the exact ratio
 *   f(fixed + 1, j) / f(fixed, j) = (N - fixed - j) / (fixed + 1) * p_fixed / p_c
 * in extended precision -- so neighbouring lines agree to ~1e-19 and a
 * cell that compares them (P - e^eps Q of lines u-1 and u) keeps its
 * relative accuracy where P ~ e^eps Q (independent double logs of ~100
 * nats differ by ~1e-14, which the cancellation would amplify). */
static void line_start(const sp_kanon_curve *c, long fixed, int along_b, long lo, long hi,
                       long double *line)
{
    for (long j = lo; j <= hi; j++) {
        line[j - lo] = along_b ? sp_kanon_log_f(c, fixed, j) : sp_kanon_log_f(c, j, fixed);
    }
}

static void line_advance(const sp_kanon_curve *c, long fixed, int along_b, long lo, long hi,
                         long double *line)
{
    if (c->log_c == -INFINITY) {            /* p_c = 0: no ratio, Loader's form again */
        line_start(c, fixed + 1, along_b, lo, hi, line);
        return;
    }
    const long double lr = (along_b ? c->log_a : c->log_b) - c->log_c;
    for (long j = lo; j <= hi; j++) {
        const long double rest = (long double)c->m_law.N - (long double)(fixed + j);
        line[j - lo] = rest > 0.0L ? line[j - lo] + logl(rest / (long double)(fixed + 1)) + lr
                                   : -INFINITY;
    }
}

/* The line at fixed - 1 from the line at fixed (fixed >= 1), the inverse
 * ratio; the entry j = N - fixed + 1, whose f(fixed, j) is off the lattice
 * (a + b > N), from its neighbour j - 1 of the new line by
 * f(x, j) / f(x, j - 1) = (N - x - j + 1) / j * p_j / p_c (Loader's form
 * where j - 1 is off the line). */
static void line_retreat(const sp_kanon_curve *c, long fixed, int along_b, long lo, long hi,
                         long double *line)
{
    const long double lr = (along_b ? c->log_a : c->log_b) - c->log_c;
    if (c->log_c == -INFINITY || lr == -INFINITY) {  /* no ratio: Loader's form again */
        line_start(c, fixed - 1, along_b, lo, hi, line);
        return;
    }
    const long double lr_j = (along_b ? c->log_b : c->log_a) - c->log_c;
    const long double N = (long double)c->m_law.N;
    for (long j = lo; j <= hi; j++) {
        const long double rest = N - (long double)(fixed - 1 + j);   /* N - x - j, x = fixed - 1 */
        if (!(rest >= 0.0L)) {
            line[j - lo] = -INFINITY;
        } else if (line[j - lo] > -INFINITY) {
            line[j - lo] += logl((long double)fixed / rest) - lr;
        } else if (j > lo && j > 0 && line[j - 1 - lo] > -INFINITY) {
            line[j - lo] = line[j - 1 - lo] + logl((rest + 1.0L) / (long double)j) + lr_j;
        } else {
            line[j - lo] = along_b ? sp_kanon_log_f(c, fixed - 1, j) : sp_kanon_log_f(c, j, fixed - 1);
        }
    }
}

/* The line (`fixed`) where f peaks on the strip j in [lo, hi]: f is log-
 * concave, so its largest atom there lies at j = the mode of j's marginal
 * Bin(N, p_j) clamped to [lo, hi] (the middle of [lo, hi] instead put the
 * start of k_anonymity(29, [5.3e-17, 1 - 2^-53], 28, source=0, target=1)'s
 * (bottom, v) walk at ln f ~ -34 in doubles, ~4e-15 off, and its cell of
 * mass 1 - 3e-15 next to it carried that), and given j, `fixed` ~
 * Bin(N - j, p_fixed / (p_fixed + p_c)). */
static long line_peak(const sp_kanon_curve *c, int along_b, long lo, long hi)
{
    const long double lp = along_b ? c->log_a : c->log_b;
    const long double lj = along_b ? c->log_b : c->log_a;
    const double N = c->m_law.N;
    double j = floor((N + 1.0) * (double)expl(lj));
    j = fmin(fmax(j, (double)lo), fmin((double)hi, N));
    const double share = lp == -INFINITY ? 0.0 : (double)(1.0L / (1.0L + expl(c->log_c - lp)));
    return (long)fmin(floor((N - j + 1.0) * share), N - j);
}

/* ln sum of line[j - lo] over j in [lo, to]. */
static long double line_logsum(const long double *line, long lo, long to)
{
    sp_logsum s = {0.0L, 0.0L};
    for (long j = lo; j <= to; j++) {
        sp_logsum_add(&s, line[j - lo]);
    }
    return sp_logsum_log(&s);
}

/* Record the line at `fixed` (see walk_cells). */
static void walk_record(const sp_kanon_curve *c, long first, long count, long fixed, long lo,
                        long hi, const long double *line, long double *full, long double *cut)
{
    if (fixed <= first + count - 2) {
        full[fixed - first + 1] = line_logsum(line, lo, hi);
    }
    if (fixed >= first) {
        cut[fixed - first] = line_logsum(line, lo, hi < c->k - 2 ? hi : c->k - 2);
    }
}

/* The cells i < count with one count suppressed: full[i] = ln of the line at
 * fixed = first + i - 1 over [lo, hi], cut[i] = ln of the line at first + i
 * over [lo, min(hi, k-2)]; hi <= k - 1.  The walk starts at the line where f
 * peaks and runs outward both ways: a line's log carries the absolute error
 * of the start's (~1e-16 of its magnitude, Loader's form in doubles) and the
 * steps', so each line is accurate relative to its own magnitude (a start
 * deep in a tail, ln f ~ -1e4, would leave ~1e-12 on the lines near the
 * peak). */
static void walk_cells(const sp_kanon_curve *c, long first, long count, int along_b, long lo,
                       long hi, long double *full, long double *cut, long double *line)
{
    if (lo > hi) {
        for (long i = 0; i < count; i++) {
            full[i] = cut[i] = -INFINITY;
        }
        return;
    }
    if (count <= 0) {
        return;
    }
    const long f0 = first - 1, f1 = first + count - 1;     /* the lines walked */
    long anchor = line_peak(c, along_b, lo, hi);
    anchor = anchor < f0 ? f0 : (anchor > f1 ? f1 : anchor);
    line_start(c, anchor, along_b, lo, hi, line);
    walk_record(c, first, count, anchor, lo, hi, line, full, cut);
    for (long fixed = anchor; fixed < f1; fixed++) {
        line_advance(c, fixed, along_b, lo, hi, line);
        walk_record(c, first, count, fixed + 1, lo, hi, line, full, cut);
    }
    if (anchor > f0) {
        line_start(c, anchor, along_b, lo, hi, line);
        for (long fixed = anchor; fixed > f0; fixed--) {
            line_retreat(c, fixed, along_b, lo, hi, line);
            walk_record(c, first, count, fixed - 1, lo, hi, line, full, cut);
        }
    }
}

void sp_kanon_fill_lower(sp_kanon_curve *c, long a_lo, long a_hi, long b_lo, long b_hi,
                         long u_first, long nu, long double *pu, long double *qu, long v_first,
                         long nv, long double *pv, long double *qv, long double *line)
{
    const long k = c->k;
    const long a0 = a_lo > 0 ? a_lo : 0, a1 = a_hi < k - 1 ? a_hi : k - 1;
    const long b0 = b_lo > 0 ? b_lo : 0, b1 = b_hi < k - 1 ? b_hi : k - 1;
    /* (u, bottom): rows a = u - 1 (P: b <= k-1) and a = u (Q: b <= k-2);
     * (bottom, v): columns b = v - 1 (Q: a <= k-1) and b = v (P: a <= k-2) */
    walk_cells(c, u_first, nu, 1, b0, b1, pu, qu, line);
    walk_cells(c, v_first, nv, 0, a0, a1, qv, pv, line);
    /* (bottom, bottom): P = {a <= k-2, b <= k-1}, Q = {a <= k-1, b <= k-2}, sharing
     * C = {a <= k-2, b <= k-2}: X = f(. <= k-2, k-1), Y = f(k-1, . <= k-2);
     * rows a = a0 .. a1 over b in [b0, b1] */
    sp_logsum shared = {0.0L, 0.0L}, x = {0.0L, 0.0L};
    c->bb_y = -INFINITY;
    if (a0 <= a1 && b0 <= b1) {
        line_start(c, a0, 1, b0, b1, line);
        for (long a = a0; a <= a1; a++) {
            if (a > a0) {
                line_advance(c, a - 1, 1, b0, b1, line);
            }
            const long double below = line_logsum(line, b0, b1 < k - 2 ? b1 : k - 2);
            if (a <= k - 2) {
                sp_logsum_add(&shared, below);
                if (b1 == k - 1) {
                    sp_logsum_add(&x, line[k - 1 - b0]);
                }
            } else {
                c->bb_y = below;                    /* a = k - 1 */
            }
        }
    }
    c->bb_c = sp_logsum_log(&shared);
    c->bb_x = sp_logsum_log(&x);
    c->pu = pu;
    c->qu = qu;
    c->pv = pv;
    c->qv = qv;
    c->u_first = u_first;
    c->nu = nu;
    c->v_first = v_first;
    c->nv = nv;
}

/* The part of delta given m (without the weight w(m)). */
static long double per_m(const sp_kanon_curve *c, long m, double eps, sp_direction d)
{
    const long k = c->k;
    if (!c->upper) {
        return range_sum(c, m, k, m + 1 - k, eps, d);
    }
    if (m > 2 * k - 3) {
        return range_sum(c, m, 0, m + 1, eps, d);
    }
    const long lo = m - k + 2 > 0 ? m - k + 2 : 0;
    const long hi = m + 1 < k - 1 ? m + 1 : k - 1;
    long double v = sp_logaddexpl(range_sum(c, m, 0, lo - 1, eps, d),
                                  range_sum(c, m, hi + 1, m + 1, eps, d));
    const long i = m - c->m_lo;
    if (i >= 0 && i < c->n_merged) {
        long double cell;
        if (c->merged_hi != NULL) {
            cell = d == SP_PLUS
                ? log_pos_ratio(sp_logaddexpl(c->merged_x[i], c->merged_c[i]), c->merged_hi[i],
                                c->merged_lo[i], eps)
                : log_pos_ratio(sp_logaddexpl(c->merged_y[i], c->merged_c[i]), -c->merged_hi[i],
                                -c->merged_lo[i], eps);
        } else {
            cell = d == SP_PLUS
                ? log_pos_shared(c->merged_x[i], c->merged_y[i], c->merged_c[i], eps)
                : log_pos_shared(c->merged_y[i], c->merged_x[i], c->merged_c[i], eps);
        }
        v = sp_logaddexpl(v, cell);
    }
    return v;
}

static double kanon_nonneg(const sp_kanon_curve *c, double eps, sp_direction d)
{
    sp_logsum s = {0.0L, 0.0L};
    /* the lower curve's cells with a suppressed count (few, every one summed) */
    if (!c->upper) {
        for (long i = 0; i < c->nu; i++) {
            if (c->lu_hi != NULL) {
                sp_logsum_add(&s, d == SP_PLUS ? log_pos_ratio(c->pu[i], c->lu_hi[i], c->lu_lo[i], eps)
                                       : log_pos_ratio(c->qu[i], -c->lu_hi[i], -c->lu_lo[i], eps));
            } else {
                sp_logsum_add(&s, d == SP_PLUS ? log_pos(c->pu[i], c->qu[i], eps)
                                       : log_pos(c->qu[i], c->pu[i], eps));
            }
        }
        for (long i = 0; i < c->nv; i++) {
            if (c->lv_hi != NULL) {
                sp_logsum_add(&s, d == SP_PLUS ? log_pos_ratio(c->pv[i], c->lv_hi[i], c->lv_lo[i], eps)
                                       : log_pos_ratio(c->qv[i], -c->lv_hi[i], -c->lv_lo[i], eps));
            } else {
                sp_logsum_add(&s, d == SP_PLUS ? log_pos(c->pv[i], c->qv[i], eps)
                                       : log_pos(c->qv[i], c->pv[i], eps));
            }
        }
        if (c->bb_refined) {
            sp_logsum_add(&s, d == SP_PLUS ? log_pos_ratio(sp_logaddexpl(c->bb_x, c->bb_c), c->bb_hi,
                                                   c->bb_lo, eps)
                                   : log_pos_ratio(sp_logaddexpl(c->bb_y, c->bb_c), -c->bb_hi,
                                                   -c->bb_lo, eps));
        } else {
            sp_logsum_add(&s, d == SP_PLUS ? log_pos_shared(c->bb_x, c->bb_y, c->bb_c, eps)
                                   : log_pos_shared(c->bb_y, c->bb_x, c->bb_c, eps));
        }
    }
    /* sum over m outward from the mode of w(m) (unimodal): once the rest of
     * a side, at most (atoms left) * w(m), is below SP_TAIL_TOL of the sum,
     * it is added as a bound (each part given m is <= 1).  The lower curve
     * runs past the window [m_lo, m_hi] (its rest is not in log_rest) to
     * the whole support while the sum is positive: where delta lies far
     * below the window's rest the sum goes on until its own rest is below
     * SP_TAIL_TOL of it; past the window with nothing summed yet the rest
     * is added as a bound at once. */
    const long first = c->upper ? c->m_lo : 0, last = c->upper ? c->m_hi : (long)c->m_law.N;
    long mode = c->m_mode < c->m_lo ? c->m_lo : (c->m_mode > c->m_hi ? c->m_hi : c->m_mode);
    for (int side = 0; side < 2; side++) {
        const long step = side == 0 ? 1 : -1;
        for (long m = side == 0 ? mode : mode - 1; m >= first && m <= last; m += step) {
            const long double lw = sp_log_binom_pmf(&c->m_law, (double)m);
            const long left = side == 0 ? last - m + 1 : m - first + 1;
            const long double bound = lw + logl((long double)left);
            const int past = m < c->m_lo || m > c->m_hi;
            if (s.sum > 0.0L ? bound <= sp_logsum_log(&s) + LOG_TAIL_TOL : past) {
                sp_logsum_add(&s, bound);
                break;
            }
            sp_logsum_add(&s, lw + per_m(c, m, eps, d));
        }
    }
    return (double)sp_logaddexpl(sp_logsum_log(&s), (long double)c->log_rest);
}

static double kanon_direction(const sp_kanon_curve *c, double eps, sp_direction d)
{
    double v = eps >= 0.0 ? kanon_nonneg(c, eps, d)
                          : sp_log_hockey_negative_eps(eps, kanon_nonneg(c, -eps, sp_reverse(d)));
    return fmin(0.0, v);
}

double sp_kanon_curve_log_delta(double eps, sp_direction direction, const void *ctx)
{
    const sp_kanon_curve *c = ctx;
    if (isnan(eps)) {
        return NAN;
    }
    if (direction != SP_MAX) {
        return kanon_direction(c, eps, direction);
    }
    return fmax(kanon_direction(c, eps, SP_PLUS), kanon_direction(c, eps, SP_MINUS));
}

/* --- construction-time refinements (xprec.h) ---------------------------- */

/* t[i] = x^i / i!, i = 0..n-1 (0^0 = 1) */
static void power_over_factorial(double x, long n, sp_xq *t)
{
    const sp_qq q = sp_qq_from((long double)x);
    for (long i = 0; i < n; i++) {
        t[i] = i == 0 ? sp_xq_from(1.0L)
                      : sp_xq_div(sp_xq_mul_qq(t[i - 1], q), sp_xq_from((long double)i));
    }
}

/* ln P/Q as hi + lo, P, Q >= 0 (0/0 -> 0, P/0 -> +inf, 0/Q -> -inf) */
static void log_ratio(sp_xq p, sp_xq q, const sp_qq_logtab *tab, long double *hi,
                      long double *lo)
{
    *lo = 0.0L;
    if (sp_xq_is_zero(p) || sp_xq_is_zero(q)) {
        *hi = sp_xq_is_zero(p) ? (sp_xq_is_zero(q) ? 0.0L : -INFINITY) : INFINITY;
        return;
    }
    const sp_qq v = sp_xq_log(sp_xq_div(p, q), tab);
    *hi = v.hi;
    *lo = v.lo;
}

/* ln (X + C)/(Y + C) as hi + lo: log1p((X - Y)/(Y + C)) where that is
 * small (the shared part C cancels exactly), else the plain ratio */
static void log_ratio_shared(sp_xq x, sp_xq y, sp_xq c, const sp_qq_logtab *tab,
                             long double *hi, long double *lo)
{
    const sp_xq p = sp_xq_add(x, c), q = sp_xq_add(y, c);
    const sp_xq d = sp_xq_add(x, sp_xq_neg(y));
    if (sp_xq_is_zero(d) || sp_xq_is_zero(p) || sp_xq_is_zero(q)) {
        log_ratio(sp_xq_is_zero(d) ? q : p, q, tab, hi, lo);
        return;
    }
    const sp_xq r = sp_xq_div(d, q);
    if (r.e >= 0) {                                  /* |r| >= 1/2 */
        log_ratio(p, q, tab, hi, lo);
        return;
    }
    const sp_qq v = sp_xq_log1p(r, tab);
    *hi = v.hi;
    *lo = v.lo;
}

int sp_kanon_refine_merged(double pa, double pb, long k, long m_lo, long count,
                           long double *hi, long double *lo)
{
    if (count <= 0) {
        return 0;
    }
    if (pa + pb == 0.0) {
        pa = pb = 1.0;                   /* rho = 1/2 */
    }
    /* g_m(s) = C(m, s) rho^s (1-rho)^(m-s) is proportional (in m) to
     * pa^s / s! * pb^(m-s) / (m-s)!: the factor cancels in every ratio */
    const long size = m_lo + count;
    sp_xq *ta = malloc(2 * (size_t)size * sizeof *ta);
    if (ta == NULL) {
        return -1;
    }
    sp_xq *tb = ta + size;
    sp_qq_logtab tab;
    sp_qq_logtab_init(&tab);
    power_over_factorial(pa, size, ta);
    power_over_factorial(pb, size, tb);
    for (long i = 0; i < count; i++) {
        const long m = m_lo + i;
        const long s_lo = m - k + 2 > 0 ? m - k + 2 : 0, s_hi = m + 1 < k - 1 ? m + 1 : k - 1;
        const sp_xq zero = sp_xq_from(0.0L);
        const sp_xq x = s_lo >= 1 ? sp_xq_mul(ta[s_lo - 1], tb[m - s_lo + 1]) : zero;
        const sp_xq y = s_hi <= m ? sp_xq_mul(ta[s_hi], tb[m - s_hi]) : zero;
        sp_xq c = zero;
        for (long s = s_lo; s < s_hi; s++) {
            c = sp_xq_add(c, sp_xq_mul(ta[s], tb[m - s]));
        }
        log_ratio_shared(x, y, c, &tab, &hi[i], &lo[i]);
    }
    free(ta);
    return 0;
}

int sp_kanon_refine_lower(double N, double pa, double pb, long k, long u_first, long nu,
                          long v_first, long nv, long double *lu_hi, long double *lu_lo,
                          long double *lv_hi, long double *lv_lo, long double *bb)
{
    /* f(a, b) = pa^a/a! pb^b/b! h(a+b), h(s) = N!/(N-s)! pc^(N-s) (0 for s > N) */
    const long a_max = (u_first + nu - 1 > k - 1 ? u_first + nu - 1 : k - 1);
    const long b_max = (v_first + nv - 1 > k - 1 ? v_first + nv - 1 : k - 1);
    const long s_max = a_max + b_max;
    if (k < 1 || u_first < 1 || v_first < 1 || N < 0.0) {
        return -2;
    }
    sp_xq *ta = malloc((size_t)(a_max + 1 + b_max + 1 + s_max + 1) * sizeof *ta);
    if (ta == NULL) {
        return -1;
    }
    sp_xq *tb = ta + a_max + 1, *th = tb + b_max + 1;
    sp_qq_logtab tab;
    sp_qq_logtab_init(&tab);
    power_over_factorial(pa, a_max + 1, ta);
    power_over_factorial(pb, b_max + 1, tb);
    const sp_qq pc = residue(pa, pb);
    const long top = (double)s_max < N ? s_max : (long)N;
    for (long s = top + 1; s <= s_max; s++) {
        th[s] = sp_xq_from(0.0L);
    }
    sp_xq h = sp_xq_pow(sp_xq_norm(pc, 0), (unsigned long)(N - (double)top));
    for (long i = 0; i < top; i++) {
        h = sp_xq_mul(h, sp_xq_from((long double)N - (long double)i));
    }
    for (long s = top; s >= 0; s--) {            /* h(s-1) = h(s) pc / (N-s+1) */
        th[s] = h;
        if (s > 0) {
            h = sp_xq_div(sp_xq_mul_qq(h, pc), sp_xq_from((long double)N - (long double)s + 1.0L));
        }
    }
#define F(a, b) sp_xq_mul(sp_xq_mul(ta[(a)], tb[(b)]), th[(a) + (b)])
    /* (u, bottom): P = sum_{b<k} f(u-1, b), Q = sum_{b<k-1} f(u, b) */
    sp_xq prev_k = sp_xq_from(0.0L);
    for (long a = u_first - 1; a < u_first + nu; a++) {
        sp_xq row = sp_xq_from(0.0L);
        for (long b = 0; b < k - 1; b++) {
            row = sp_xq_add(row, F(a, b));
        }
        if (a >= u_first) {
            log_ratio(prev_k, row, &tab, &lu_hi[a - u_first], &lu_lo[a - u_first]);
        }
        prev_k = sp_xq_add(row, F(a, k - 1));
    }
    /* (bottom, v): P = sum_{a<k-1} f(a, v), Q = sum_{a<k} f(a, v-1) */
    prev_k = sp_xq_from(0.0L);
    for (long b = v_first - 1; b < v_first + nv; b++) {
        sp_xq col = sp_xq_from(0.0L);
        for (long a = 0; a < k - 1; a++) {
            col = sp_xq_add(col, F(a, b));
        }
        if (b >= v_first) {
            log_ratio(col, prev_k, &tab, &lv_hi[b - v_first], &lv_lo[b - v_first]);
        }
        prev_k = sp_xq_add(col, F(k - 1, b));
    }
    /* (bottom, bottom): X = sum_{a<k-1} f(a, k-1), Y = sum_{b<k-1} f(k-1, b),
     * C = sum_{a,b<k-1} f(a, b) */
    sp_xq x = sp_xq_from(0.0L), y = x, c = x;
    for (long a = 0; a < k - 1; a++) {
        x = sp_xq_add(x, F(a, k - 1));
        y = sp_xq_add(y, F(k - 1, a));
        for (long b = 0; b < k - 1; b++) {
            c = sp_xq_add(c, F(a, b));
        }
    }
#undef F
    log_ratio_shared(x, y, c, &tab, &bb[0], &bb[1]);
    free(ta);
    return 0;
}
