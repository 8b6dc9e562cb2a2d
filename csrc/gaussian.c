#include <float.h>
#include <math.h>
#include <stddef.h>
#include "gaussian.h"
#include "logspace.h"

#define LN2 0.693147180559945309417232121458L

/* sp_logsum_add with the reference moved up to every term that exceeds it
 * by more than 1 nat: sp_logsum_add keeps the first term as the reference
 * until one is 600 nats above it, and the double exponent of e^(term - ref)
 * then carries an absolute rounding of ulp(term - ref) (1.4e-14 at 107
 * nats) into the largest terms -- too much for the far-tail sums, whose
 * positive and negative parts cancel to 1e-4..1e-8 relative.  After the
 * rebase every term within 1 nat of the largest is added with an exponent
 * in (-inf, 1], the smaller ones with errors below their own (small)
 * share. */
static inline void gauss_logsum_add(sp_logsum *a, long double log_term)
{
    if (a->sum > 0.0L && log_term > a->ref + 1.0L) {
        a->sum *= exp((double)(a->ref - log_term));
        a->ref = log_term;
    }
    sp_logsum_add(a, log_term);
}

/* The same with every exponential in long double (each term to ~1e-19
 * relative, not the 1.1e-16 of a double exp), for the extended pass of the
 * one-sided tail sums (log_tail_piece); ext = 0 is gauss_logsum_add. */
static inline void gauss_logsum_addl(sp_logsum *a, long double log_term, int ext)
{
    if (!ext) {
        gauss_logsum_add(a, log_term);
        return;
    }
    if (log_term == -INFINITY) {
        return;
    }
    if (a->sum == 0.0L) {
        a->ref = log_term;
        a->sum = 1.0L;
    } else if (log_term > a->ref) {
        a->sum = a->sum * expl(a->ref - log_term) + 1.0L;
        a->ref = log_term;
    } else {
        a->sum += expl(log_term - a->ref);
    }
}

/* The index of the atom nearest x, within [0, len-1]. */
static inline long sp_nearest_atom(double x, long len)
{
    double k = floor(x + 0.5);
    return k < 0.0 ? 0 : (k > (double)(len - 1) ? len - 1 : (long)k);
}


/* With phi the N(0, sigma^2) density,
 *   f_P(x) - e^eps f_Q(x) = sum_k D_k phi(x - k),  D_k = P(k) - e^eps Q(k).
 * The Gaussian kernel is totally positive, so (variation diminishing,
 * Karlin) x -> f_P - e^eps f_Q changes sign at most as often as k -> D_k.
 * When P/Q is non-decreasing on the atoms (monotone likelihood ratio: every
 * law statpriv builds -- shifts of log-concave counts, the sampling
 * mixtures, the secret sample), D_k changes sign once, from - to +, so
 * f_P - e^eps f_Q has exactly one sign change x* (for ln min P/Q < eps <
 * ln max P/Q) and
 *   delta_plus(eps)  = sum_k D_k  P[N(k, sigma^2) > x*],
 *   delta_minus(eps) = sum_k D'_k P[N(k, sigma^2) < x*],  D'_k = Q(k) - e^eps P(k),
 * summed per atom in log space (positive and negative D apart), exact for
 * every sigma > 0: as sigma -> 0 the normal masses become 0/1 and the sum
 * becomes the noiseless sum_k (D_k)_+.
 *
 * Densities are evaluated relative to the atom k0 nearest x: with
 * t = x - k0 and j = k0 - k, (x - k)^2 - t^2 = j (2t + j), so
 *   ln f_A(x) = -t^2 / (2 sigma^2) + ln sum_k A(k) e^(-j (2t + j) / (2 sigma^2)) + c,
 * and the common first term cancels in ln f_P - ln f_Q: the log ratio is
 * exact even where (x - k)^2 / sigma^2 is 1e20 or more (sigma down to the
 * smallest double; the exponents are long double, whose range covers
 * 1/sigma^2 for every double sigma). */

/* ln |D_k| for D_k = A(k) - e^eps B(k), (A, B) = (P, Q) (plus) or (Q, P);
 * returns the sign of D_k (0: D_k = 0, nothing to add).  With u = ln A(k)/B(k)
 * - eps, D_k = A(k)(1 - e^-u) for u > 0 and -e^eps B(k)(1 - e^u) for u < 0:
 * one log1mexp of u, which comes from the accurate ln P/Q (g->lr, g->lr_lo:
 * closed forms, double-double where refined) when the caller gave it, so
 * D_k keeps its relative accuracy when P(k) and Q(k) agree to 1e-9 (tiny
 * sampling rates) and when eps is near ln A(k)/B(k) (the zero point).
 * ln(1 - e^-|u|) is ~ln|u| (-25 at u ~ 1e-11): in double (ext = 0) it
 * carries half an ulp of its size, 1.8e-15 absolute there, which the
 * cancelling tail sums amplify (log_tail_piece); ext = 1 takes it in long
 * double.  *mag (if not NULL) is raised to |ln(1 - e^-|u|)|. */
static int gauss_log_d(const sp_gauss *g, sp_direction direction, long k, double eps, int ext,
                       long double *ld, long double *mag)
{
    const long double la = direction == SP_PLUS ? g->lp[k] : g->lq[k];
    const long double lb = (direction == SP_PLUS ? g->lq[k] : g->lp[k]) + (long double)eps;
    long double u;
    if (la == -INFINITY && lb == -INFINITY) {
        return 0;
    }
    if (g->lr != NULL && isfinite(g->lr[k]) && isfinite(la) && isfinite(lb)) {
        const long double lo = g->lr_lo != NULL ? g->lr_lo[k] : 0.0L;
        u = direction == SP_PLUS ? (g->lr[k] - (long double)eps) + lo : (-g->lr[k] - (long double)eps) - lo;
    } else {
        u = la - lb;
    }
    /* u is exact to ~1e-30 absolute */
    if (u == 0.0L) {
        return 0;
    }
    const long double au = -fabsl(u);
    const long double l = au == -INFINITY ? 0.0L
                          : (ext ? sp_log1mexpl(au) : (long double)sp_log1mexp((double)au));
    if (mag != NULL) {
        *mag = fmaxl(*mag, -l);
    }
    *ld = (u > 0.0L ? la : lb) + l;
    return u > 0.0L ? 1 : -1;
}

static long double log_density_rel(const long double *la, long double amax, long len,
                                   long double inv2s2, long k0, double t)
{
    /* stop where no further atom can add e^-45 of the largest term so far
     * (the exponents fall at least linearly past the nearest atom, so the
     * rest sums to less than a few times its first term) */
    sp_logsum acc = {0.0L, 0.0L};
    long double best = -INFINITY;
    for (long k = k0; k >= 0; k--) {
        long double j = (long double)(k0 - k);
        long double e = j == 0.0L ? 0.0L : -j * (2.0L * t + j) * inv2s2;
        if (j > 0.0L && amax + e < best - 45.0L) {
            break;
        }
        best = fmaxl(best, la[k] + e);
        gauss_logsum_add(&acc, la[k] + e);
    }
    for (long k = k0 + 1; k < len; k++) {
        long double j = (long double)(k0 - k);
        long double e = -j * (2.0L * t + j) * inv2s2;
        if (amax + e < best - 45.0L) {
            break;
        }
        best = fmaxl(best, la[k] + e);
        gauss_logsum_add(&acc, la[k] + e);
    }
    /* sp_logsum_log clamps at 0 (a probability); these are not */
    return acc.sum > 0.0L ? acc.ref + sp_fast_logl(acc.sum) : -INFINITY;
}

/* ln f_P(x) - ln f_Q(x) - ln P(k0)/Q(k0) = log1p((S_P - S_Q) / (1 + S_Q)) with
 * S_A = sum_{k != k0} A(k)/A(k0) w_k, w_k = e^(-j (2t + j) / (2 sigma^2)),
 * and S_P - S_Q summed term by term as Q(k)/Q(k0) w_k expm1(L_k - L_k0)
 * (L = lr + lr_lo, the accurate log ratio), positive and negative terms
 * apart: the difference keeps its relative accuracy where P and Q nearly
 * agree, instead of being the difference of two rounded log1p's (requires
 * g->lr and finite lp[k0], lq[k0], lr[k0]).  The walk on each side stops
 * where no further atom can add e^-45 of the largest term of either sum so
 * far (the exponents fall at least linearly past the nearest atom). */
static long double log_ratio_excess(const sp_gauss *g, long double inv2s2, long k0, double t)
{
    const long double *lp = g->lp, *lq = g->lq;
    const long double bp = lp[k0], bq = lq[k0];
    const long double l0 = g->lr[k0] + (g->lr_lo != NULL ? g->lr_lo[k0] : 0.0L);
    /* a bound on ln(A(k)/A(k0)) over k for either law, for the stopping rule */
    const long double top = fmaxl(g->lpmax - bp, g->lqmax - bq) + LN2;
    sp_logsum sq = {0.0L, 0.0L}, sp = {0.0L, 0.0L}, dpos = {0.0L, 0.0L}, dneg = {0.0L, 0.0L};
    /* largest term so far of the shares (the k0 term, 1) and of S_P - S_Q:
     * every |term| of S_P - S_Q is below max(A(k)/A(k0) w_k over A = P, Q)
     * (|expm1(d)| < max(1, e^d)), so an atom both of whose shares are e^-50
     * below the largest term of a sum adds nothing to that sum */
    long double best_s = 0.0L, best_d = -INFINITY;
    for (int side = 0; side < 2; side++) {
        const long step = side == 0 ? -1 : 1;
        for (long k = k0 + step; k >= 0 && k < g->len; k += step) {
            const long double j = (long double)(k0 - k);
            const long double e = -j * (2.0L * t + j) * inv2s2;
            const long double floor = best_d > -INFINITY ? fminl(best_s, best_d) : best_s;
            if (top + e < floor - 45.0L) {
                break;
            }
            const long double aq = (lq[k] - bq) + e, ap = (lp[k] - bp) + e;
            const long double amax = fmaxl(aq, ap);
            if (amax >= best_s - 50.0L) {
                gauss_logsum_add(&sq, aq);
                gauss_logsum_add(&sp, ap);
                best_s = fmaxl(best_s, amax);
            }
            if (best_d > -INFINITY && amax < best_d - 50.0L) {
                continue;
            }
            long double term;
            int sign;
            if (lq[k] == -INFINITY) {
                if (lp[k] == -INFINITY) {
                    continue;
                }
                term = ap, sign = 1;               /* an atom of P only */
            } else if (lp[k] == -INFINITY) {
                term = aq, sign = -1;              /* of Q only: expm1(-inf) = -1 */
            } else {
                long double lk = isfinite(g->lr[k])
                                     ? g->lr[k] + (g->lr_lo != NULL ? g->lr_lo[k] : 0.0L)
                                     : lp[k] - lq[k];
                long double d = lk - l0;
                if (d == 0.0L) {
                    continue;
                }
                long double em = expm1l(d);
                term = aq + logl(fabsl(em)), sign = em > 0.0L ? 1 : -1;
            }
            best_d = fmaxl(best_d, term);
            gauss_logsum_add(sign > 0 ? &dpos : &dneg, term);
        }
    }
    const long double lpos = dpos.sum > 0.0L ? dpos.ref + logl(dpos.sum) : -INFINITY;
    const long double lneg = dneg.sum > 0.0L ? dneg.ref + logl(dneg.sum) : -INFINITY;
    if (lpos == lneg) {
        return 0.0L;                       /* includes both empty */
    }
    /* ln(1 + S) from the log of S, without losing a small S */
    long double lsq = 0.0L, lsp = 0.0L;
    if (sq.sum > 0.0L) {
        long double L = sq.ref + logl(sq.sum);
        lsq = L > 0.0L ? L + log1pl(expl(-L)) : log1pl(expl(L));
    }
    if (sp.sum > 0.0L) {
        long double L = sp.ref + logl(sp.sum);
        lsp = L > 0.0L ? L + log1pl(expl(-L)) : log1pl(expl(L));
    }
    long double v;                        /* (S_P - S_Q) / (1 + S_Q) */
    if (lpos > lneg) {
        v = expl(lpos + sp_log1mexpl(lneg - lpos) - lsq);
    } else {
        v = -expl(lneg + sp_log1mexpl(lpos - lneg) - lsq);
    }
    /* |v| small: log1p of the accurate difference; else the ratio of the
     * two sums is far from 1 and their logs differ without cancellation */
    return fabsl(v) <= 0.5L ? log1pl(v) : lsp - lsq;
}

/* h(x) = ln f_A(x) - ln f_B(x) - eps with (A, B) = (P, Q) or (Q, P). */
typedef struct {
    const sp_gauss *g;
    sp_direction direction;
    double eps;
    long double inv2s2;
} ratio_fn;

static double ratio_h(const ratio_fn *r, double x)
{
    const sp_gauss *g = r->g;
    long k0 = sp_nearest_atom(x, g->len);
    double t = x - (double)k0;               /* exact: |x| < 2^52 where it matters */
    if (g->lr != NULL && isfinite(g->lp[k0]) && isfinite(g->lq[k0]) && isfinite(g->lr[k0])) {
        /* ln f_P - ln f_Q = ln P(k0)/Q(k0) + excess_P - excess_Q: h keeps
         * its accuracy relative to its own size near the zero point, where
         * ln P(k0)/Q(k0) - eps is 1e-14 (the crossing, and through it delta,
         * would otherwise move with the rounding of ln f) */
        long double excess = log_ratio_excess(g, r->inv2s2, k0, t);
        long double lo = g->lr_lo != NULL ? g->lr_lo[k0] : 0.0L;
        long double h = r->direction == SP_PLUS ? ((g->lr[k0] - (long double)r->eps) + lo) + excess
                                : ((-g->lr[k0] - (long double)r->eps) - lo) - excess;
        return (double)h;
    }
    long double fp = log_density_rel(g->lp, g->lpmax, g->len, r->inv2s2, k0, t);
    long double fq = log_density_rel(g->lq, g->lqmax, g->len, r->inv2s2, k0, t);
    long double h = r->direction == SP_PLUS ? fp - fq : fq - fp;
    return (double)(h - r->eps);
}

/* Root of h in [lo, hi] given h(lo) and h(hi) of opposite signs: Illinois
 * secant steps alternating with bisections, so the bracket at least halves
 * every two evaluations even where h is a staircase (sigma << 1: plateaus
 * at the atoms, jumps between them).  The retained end's value is halved
 * only when the same end is kept twice in a row (Dowell & Jarratt's
 * Illinois rule): halving it at every step made the secant land a third of
 * the way across a bracket whose root was at its middle, so a nearly
 * linear h converged by halvings, ~19 evaluations per root instead of ~6.
 * delta is stationary in the root (the integrand vanishes there), so a
 * root error d changes delta only by ~ |h'| f d^2 / 2. */
static double bracket_root(const ratio_fn *r, double lo, double flo, double hi, double fhi)
{
    const int lo_positive = flo > 0.0;
    int kept = 0;                                /* the end kept last time: -1 lo, +1 hi */
    double older = INFINITY, old = INFINITY;     /* widths one and two steps back */
    for (int it = 0; it < SP_GAUSS_MAX_ROOT_EVALS; it++) {
        double width = hi - lo, scale = fmax(fabs(lo), fabs(hi));
        if (width <= 1e-15 * scale || width <= 4.0 * (nextafter(scale, INFINITY) - scale)) {
            break;
        }
        double x = lo + 0.5 * width;
        /* secant unless two steps did not halve the bracket */
        if (width <= 0.5 * older && isfinite(flo) && isfinite(fhi) && flo != fhi) {
            double secant = hi - fhi * width / (fhi - flo);
            if (secant > lo && secant < hi) {
                x = secant;
            }
        }
        older = old, old = width;
        if (x == lo + 0.5 * width) {
            older = old = INFINITY;               /* a bisection resets the test */
        }
        double fx = ratio_h(r, x);
        if (isnan(fx)) {
            break;
        }
        if (fx == 0.0) {
            return x;
        }
        if ((fx > 0.0) == lo_positive) {
            lo = x, flo = fx;
            if (kept == 1) {
                fhi *= 0.5;               /* Illinois: damp an end kept twice */
            }
            kept = 1;
        } else {
            hi = x, fhi = fx;
            if (kept == -1) {
                flo *= 0.5;
            }
            kept = -1;
        }
    }
    return 0.5 * (lo + hi);
}

/* ln of the N(0, 1) mass of [a, b] (a < b, either may be infinite), without
 * cancellation: upper tails differenced in the upper tail, lower in the
 * lower. */
static double log_normal_mass(const sp_gauss *g, double a, double b)
{
    double (*lndtr)(double) = g->log_ndtr;
    if (!(a < b)) {
        return -INFINITY;
    }
    if (a >= 0.0) {            /* Phi_bar(a) - Phi_bar(b) */
        double la = lndtr(-a), lb = lndtr(-b);
        return lb == -INFINITY ? la : la + sp_log1mexp(lb - la);
    }
    if (b <= 0.0) {            /* Phi(b) - Phi(a) */
        double lb = lndtr(b), la = lndtr(a);
        return la == -INFINITY ? lb : lb + sp_log1mexp(la - lb);
    }
    /* a < 0 < b: 1 - Phi(a) - Phi_bar(b), and each of those is < 1/2 */
    return log1p(-(exp(lndtr(a)) + exp(lndtr(-b))));
}

/* (x - k) / sigma for the normal masses: 0 stays 0 and +-inf stays +-inf
 * even when sigma is so small that the quotient overflows. */
static double standardize(double x, double k, double s)
{
    double d = x - k;
    return d == 0.0 ? 0.0 : d / s;
}

/* The same in long double with ext (the extended pass of the tail sums:
 * ln erfcx(v / sqrt 2) moves by the relative error of v, 1.1e-16 in a
 * double), else the double one. */
static long double standardizel(double x, double k, double s, int ext)
{
    if (!ext) {
        return (long double)standardize(x, k, s);
    }
    long double d = (long double)x - (long double)k;
    return d == 0.0L ? 0.0L : d / (long double)s;
}

/* ln of sum_k D_k P[N(k, sigma^2) in [a, b]] with D_k = A(k) - e^eps B(k),
 * the positive and negative terms summed apart in log space (per atom
 * without cancellation: D_k = A(k)(1 - e^(eps + ln B(k) - ln A(k)))).
 * Expands from the atoms nearest the interval; the atoms not visited add at
 * most (tail mass of A + e^eps tail mass of B) times the normal mass of the
 * interval from the current atom, and the walk stops when that is below
 * e^-60 of the positive sum.  *lpos and *lneg receive the two logs. */
static void log_interval_sum(const sp_gauss *g, sp_direction direction, double eps, double a, double b,
                             long double *lpos, long double *lneg)
{
    const long double *lsa = direction == SP_PLUS ? g->lsp : g->lsq, *lca = direction == SP_PLUS ? g->lcp : g->lcq;
    const long double *lsb = direction == SP_PLUS ? g->lsq : g->lsp, *lcb = direction == SP_PLUS ? g->lcq : g->lcp;
    const double s = g->sigma;
    const long len = g->len;
    double mid = isfinite(a) && isfinite(b) ? 0.5 * (a + b) : (isfinite(a) ? a : b);
    long k0 = sp_nearest_atom(mid, len);
    sp_logsum pos = {0.0L, 0.0L}, neg = {0.0L, 0.0L};
    for (int side = 0; side < 2; side++) {
        long k = side == 0 ? k0 : k0 + 1, step = side == 0 ? -1 : 1;
        for (; k >= 0 && k < len; k += step) {
            double kk = (double)k;
            if (pos.sum > 0.0L) {
                long double tail = side == 0 ? sp_logaddexpl(lca[k], lcb[k] + eps)
                                             : sp_logaddexpl(lsa[k], lsb[k] + eps);
                double beyond = side == 0 ? (kk < a ? g->log_ndtr(standardize(kk, a, s)) : 0.0)
                                          : (kk > b ? g->log_ndtr(standardize(b, kk, s)) : 0.0);
                if (tail + beyond < pos.ref + sp_fast_logl(pos.sum) - 60.0L) {
                    break;
                }
            }
            long double ld;
            const int sign = gauss_log_d(g, direction, k, eps, 0, &ld, NULL);
            if (sign == 0) {
                continue;
            }
            long double m = (long double)log_normal_mass(g, standardize(a, kk, s),
                                                         standardize(b, kk, s));
            gauss_logsum_add(sign > 0 ? &pos : &neg, ld + m);
        }
    }
    *lpos = pos.sum > 0.0L ? pos.ref + sp_fast_logl(pos.sum) : -INFINITY;
    *lneg = neg.sum > 0.0L ? neg.ref + sp_fast_logl(neg.sum) : -INFINITY;
}

/* ln erfcx(z) = ln(e^(z^2) erfc(z)) for z >= 1/2, to ~1e-18 absolute: below
 * 30 as ln erfc(z) + z^2 in long double (erfcl is accurate to a few ulps of
 * long double and erfc(30) ~ 1e-393 is in its range); from 30 on by the
 * asymptotic series erfcx(z) = (1 / (z sqrt(pi))) sum_n (-1)^n (2n-1)!! / (2z^2)^n,
 * whose terms fall by (2n - 1) / (2 z^2) <= 1/30 over the first 40 (the
 * error is below the first term left out).  The double erfcx of the Faddeeva
 * package (scipy) is off by up to 1e-13 relative at z ~ 50..100 and far more
 * beyond 100, and the far-tail sums of the normal masses cancel to 1e-4..1e-8
 * relative. */
static long double log_erfcxl(long double z)
{
    if (z < 30.0L) {
        return logl(erfcl(z)) + z * z;
    }
    const long double r = 1.0L / (2.0L * z * z);
    long double term = 1.0L, sum = 1.0L;
    for (int n = 1; n <= 40; n++) {
        term *= -(long double)(2 * n - 1) * r;
        sum += term;
        if (fabsl(term) < 1e-21L) {
            break;
        }
    }
    /* ln(1 / sqrt(pi)) */
    return logl(sum) - logl(z) - 0.57236494292470008707171367567652935L;
}

/* ln P[N(0,1) > v] + cref: for v > 1 as -v^2/2 + ln(erfcx(v / sqrt 2) / 2)
 * with v^2/2 = c + jterm passed exactly (c = t^2 / (2 sigma^2), jterm =
 * j (2t + j) / (2 sigma^2) from the exact t = x - k0 and integer j, in long
 * double), not from the rounded double v; cref is 0 or c (a common factor
 * e^-c taken out of every term when x is beyond all atoms: the far-tail
 * terms that cancel then keep their differences exactly). */
static long double log_upper(const sp_gauss *g, long double v, long double jterm, long double c,
                             long double cref)
{
    if (v > 1.0L) {
        return -((c - cref) + jterm) + (log_erfcxl(v * 0.70710678118654752440084L) - LN2);
    }
    return (long double)g->log_ndtr((double)-v) + cref;
}

/* The one-sided sums of the monotone path: with T_k = P[N(k, sigma^2) > x]
 * (upper) or < x (lower) and D_k = A(k) - e^eps B(k), the logs of the sums
 * of the positive and of the negative D_k T_k.  ext = 0: the per-term
 * logarithms and exponentials in double (each term to ~2^-52 (*mag + 16)
 * relative, *mag >= |ln(1 - e^-|u|)| over the terms, see gauss_log_d);
 * ext = 1: all in long double (~1e-18 relative). */
static void log_tail_sum(const sp_gauss *g, sp_direction direction, double eps, double x, int upper,
                         long double inv2s2, const int *estimate, int ext, long double *lpos,
                         long double *lneg, long double *lref, long double *mag)
{
    const long double *lsa = direction == SP_PLUS ? g->lsp : g->lsq, *lca = direction == SP_PLUS ? g->lcp : g->lcq;
    const long double *lsb = direction == SP_PLUS ? g->lsq : g->lsp, *lcb = direction == SP_PLUS ? g->lcq : g->lcp;
    const double s = g->sigma;
    const long len = g->len;
    const long k0 = sp_nearest_atom(x, len);
    const double t = x - (double)k0;
    const long double c = (long double)t * (long double)t * inv2s2;
    /* x beyond every atom (all T_k < 1/2): take e^-c out of every term */
    const long double cref = (upper ? x >= (double)(len - 1) : x <= 0.0) ? c : 0.0L;
    sp_logsum pos = {0.0L, 0.0L}, neg = {0.0L, 0.0L};
    /* the inner side first (side 1 = atoms above k0), so that the positive
     * sum the cutoff compares with is there when the away side is walked */
    for (int pass = 0; pass < 2; pass++) {
        const int side = upper ? 1 - pass : pass;
        int walk_inner = 0;
        const long step = side == 0 ? -1 : 1;
        for (long k = side == 0 ? k0 : k0 + 1; k >= 0 && k < len; k += step) {
            const long double j = (long double)(k0 - k);
            /* v: distance of x from atom k in sd, on the far side of the tail */
            long double v = standardizel(x, (double)k, s, ext);
            if (!upper) {
                v = -v;
            }
            const long double jterm = j == 0.0L ? 0.0L : j * (2.0L * t + j) * inv2s2;
            const int away = (side == 0) == (upper != 0);
            int inner = !away && v < -SP_GAUSS_INNER_SD;
            if (inner && !walk_inner) {
                /* this atom and all beyond it lie > 12 sd inside the tail:
                 * T = 1 to 1e-32, and their sum of D is S_A - e^eps S_B in
                 * closed form from the cumulative sums (long double) -- if
                 * that difference does not cancel: the sums carry ~1e-18
                 * relative rounding, so where S_A and e^eps S_B agree to
                 * 1e-5 (P ~ Q at tiny sampling rates, or eps near the zero
                 * point) the atoms are summed one by one from here on, each
                 * D_k from the accurate log ratio (gauss_log_d) */
                long double ra = side == 0 ? lca[k] : lsa[k];
                long double rb = (side == 0 ? lcb[k] : lsb[k]) + eps;
                if (fabsl(ra - rb) > 1e-5L || ra == -INFINITY || rb == -INFINITY
                    || estimate != NULL) {
                    if (ra != rb) {
                        const long double d = -fabsl(ra - rb);
                        const long double l = ext ? sp_log1mexpl(d)
                                                  : (long double)sp_log1mexp((double)d);
                        *mag = fmaxl(*mag, -l);
                        gauss_logsum_addl(ra > rb ? &pos : &neg, fmaxl(ra, rb) + l + cref, ext);
                    }
                    if (estimate != NULL && *estimate != 0 && ra > -INFINITY
                        && rb > -INFINITY) {
                        /* the closed form's error: the cumulative sums to
                         * 2^-50 each (+ len 2^-63 accumulated, for the upper
                         * bound), their logs to 2^-52 of their size */
                        long double rel = 0x1p-49L + 0x1p-52L * (fabsl(ra) + fabsl(rb));
                        if (*estimate > 0) {
                            rel += 2.0L * (long double)len * 0x1p-63L;
                        }
                        gauss_logsum_addl(*estimate > 0 ? &pos : &neg,
                                          fmaxl(ra, rb) + logl(rel) + cref, ext);
                    }
                    break;
                }
                walk_inner = 1;
            }
            /* > 12 sd inside: T = 1 to 1e-32 (as in the closed form above) */
            const long double lt = inner ? cref : log_upper(g, v, jterm, c, cref);
            if (pos.sum > 0.0L) {
                /* atoms beyond k add at most (tail mass of A + e^eps tail
                 * mass of B) times T at k on the side away from the tail
                 * (T decreases there), times 1 on the inner side */
                long double tail = side == 0 ? fmaxl(lca[k], lcb[k] + eps)
                                             : fmaxl(lsa[k], lsb[k] + eps);
                tail += LN2 + (away ? lt : cref);
                if (tail < pos.ref + sp_fast_logl(pos.sum) - 60.0L) {
                    break;
                }
            }
            long double ld;
            const int sign = gauss_log_d(g, direction, k, eps, ext, &ld, mag);
            if (sign != 0) {
                gauss_logsum_addl(sign > 0 ? &pos : &neg, ld + lt, ext);
            }
        }
    }
    /* sp_fast_logl is good to 1e-16 absolute: logl in the extended pass */
    *lpos = pos.sum > 0.0L ? pos.ref + (ext ? logl(pos.sum) : sp_fast_logl(pos.sum)) : -INFINITY;
    *lneg = neg.sum > 0.0L ? neg.ref + (ext ? logl(neg.sum) : sp_fast_logl(neg.sum)) : -INFINITY;
    *lref = cref;
}

/* ln int_x^inf (upper) or int_-inf^x of (f_A - e^eps f_B), an interval on
 * which it is >= 0: pos - neg of the tail sums.  Their difference loses
 * the factor (pos + neg) / (pos - neg) of their relative error: far beyond
 * the atoms the normal masses of neighbouring atoms differ by ~1/(sigma t)
 * relative (t: the crossing's distance from the atoms in sd; 1e-5 at
 * sigma = 200, t = 470), and where P ~ Q or eps is near the zero point the
 * D_k nearly balance.  The sums are taken in double first (each term to
 * 2^-52 (mag + 16) relative) and again in long double where that error,
 * so amplified, could exceed 2^-40 of delta (the estimate keeps the double
 * pass: the search verifies it on the exact curve). */
static long double log_tail_piece(const sp_gauss *g, sp_direction direction, double eps, double x, int upper,
                                  long double inv2s2, const int *estimate)
{
    long double lpos, lneg, cref, mag = 0.0L;
    log_tail_sum(g, direction, eps, x, upper, inv2s2, estimate, 0, &lpos, &lneg, &cref, &mag);
    if (estimate == NULL && lpos > -INFINITY) {
        const long double d = lneg - lpos;      /* <= 0 unless the sums cancel below rounding */
        const long double amplify = d < 0.0L ? (1.0L + expl(d)) / -expm1l(d) : INFINITY;
        if (amplify * 0x1p-52L * (mag + 16.0L) > 0x1p-40L) {
            log_tail_sum(g, direction, eps, x, upper, inv2s2, estimate, 1, &lpos, &lneg, &cref,
                         &mag);
        }
    }
    if (lpos == -INFINITY) {
        return -INFINITY;
    }
    if (!(lpos > lneg)) {
        return lpos - cref;   /* cancellation below rounding: the conservative bound */
    }
    return lpos + sp_log1mexpl(lneg - lpos) - cref;
}

/* ln int_a^b (f_A - e^eps f_B) for an interval on which it is >= 0. */
static long double log_piece(const sp_gauss *g, sp_direction direction, double eps, double a, double b)
{
    long double lpos, lneg;
    log_interval_sum(g, direction, eps, a, b, &lpos, &lneg);
    if (lpos == -INFINITY) {
        return -INFINITY;
    }
    if (!(lpos > lneg)) {
        /* cancellation below the rounding of the sums: the positive part is
         * the conservative bound */
        return lpos;
    }
    return lpos + sp_log1mexpl(lneg - lpos);
}

/* ln sum_k A(k) P[N(k, sigma^2) > x] (upper) or < x: an upper bound of the
 * positive part beyond x, used where the sign change cannot be bracketed. */
static long double log_tail_bound(const sp_gauss *g, sp_direction direction, double x, int upper)
{
    long double lpos, lneg;
    /* eps = -inf turns every D_k into A(k): the plain mass of A */
    log_interval_sum(g, direction, -INFINITY, upper ? x : -INFINITY, upper ? INFINITY : x, &lpos,
                     &lneg);
    return lpos;
}

/* Sign of f_A - e^eps f_B as x -> +inf (dir > 0) or -inf: the sign of D at
 * the extreme atom with D != 0 (0 if there is none). */
static int far_sign(const sp_gauss *g, sp_direction direction, double eps, int dir)
{
    for (long i = 0; i < g->len; i++) {
        long k = dir > 0 ? g->len - 1 - i : i;
        long double ld;
        int sign = gauss_log_d(g, direction, k, eps, 0, &ld, NULL);
        if (sign != 0) {
            return sign;
        }
    }
    return 0;
}

/* A sign change of h beyond x0 in direction dir (h(x0) = f0), by doubling
 * steps; the root, or NAN if none within the bounded search. */
static double outer_root(const ratio_fn *r, double x0, double f0, double step, int dir)
{
    double x = x0, fx = f0;
    for (int it = 0; it < 400; it++) {
        double y = x + dir * step, fy = ratio_h(r, y);
        if (!isfinite(y) || isnan(fy)) {
            return NAN;
        }
        if ((fy > 0.0) != (fx > 0.0)) {
            return dir > 0 ? bracket_root(r, x, fx, y, fy) : bracket_root(r, y, fy, x, fx);
        }
        x = y, fx = fy, step *= 2.0;
    }
    return NAN;
}

/* General laws (P/Q not monotone on the atoms): scan a grid fine against
 * sigma and the atom spacing over the atoms +- 40 sigma, refine each sign
 * change, and add up the positive pieces.  Beyond the grid the sign tends
 * to that of D's extreme atoms; where it differs from the grid end's, the
 * crossing is searched outward (an even number of further crossings beyond
 * the grid is not excluded: this path is exact only for laws whose D has
 * no more sign changes than the grid finds, as with every law statpriv
 * builds -- those take the monotone path anyway). */
static long double gauss_scan(const sp_gauss *g, const ratio_fn *r, double eps, sp_direction direction)
{
    const double s = g->sigma, first = 0.0, last = (double)(g->len - 1);
    sp_logsum acc = {0.0L, 0.0L};
    double pad = 40.0 * s + 1.0;
    double step = fmin(s / SP_GAUSS_GRID_PER_SIGMA, 0.125);
    long points = (long)ceil((last - first + 2.0 * pad) / step) + 1;
    if (points > SP_GAUSS_MAX_GRID) {
        points = SP_GAUSS_MAX_GRID;
        step = (last - first + 2.0 * pad) / (double)(points - 1);
    }
    double x_prev = first - pad, h_prev = ratio_h(r, x_prev);
    double start = NAN;                       /* left end of an open positive piece */
    int left = far_sign(g, direction, eps, -1);
    if (left > 0 && h_prev > 0.0) {
        start = -INFINITY;
    } else if ((left > 0) != (h_prev > 0.0)) {
        double root = outer_root(r, x_prev, h_prev, fmax(s, 1.0), -1);
        if (!isnan(root)) {
            if (h_prev > 0.0) {
                start = root;
            } else {
                gauss_logsum_add(&acc, log_piece(g, direction, eps, -INFINITY, root));
            }
        } else if (h_prev > 0.0) {
            start = -INFINITY;               /* conservative: take all of the left */
        } else {
            gauss_logsum_add(&acc, log_tail_bound(g, direction, x_prev, 0));
        }
    }
    for (long i = 1; i < points; i++) {
        double x = first - pad + (double)i * step;
        double h = ratio_h(r, x);
        if ((h > 0.0) != (h_prev > 0.0)) {
            double root = bracket_root(r, x_prev, h_prev, x, h);
            if (h > 0.0) {
                start = root;
            } else {
                gauss_logsum_add(&acc, log_piece(g, direction, eps, start, root));
                start = NAN;
            }
        }
        x_prev = x, h_prev = h;
    }
    int right = far_sign(g, direction, eps, 1);
    if ((right > 0) != (h_prev > 0.0)) {
        double root = outer_root(r, x_prev, h_prev, fmax(s, 1.0), 1);
        if (isnan(root)) {
            if (h_prev > 0.0) {
                gauss_logsum_add(&acc, log_piece(g, direction, eps, start, INFINITY));
            } else {
                gauss_logsum_add(&acc, log_tail_bound(g, direction, x_prev, 1));
            }
            start = NAN;
        } else if (h_prev > 0.0) {
            gauss_logsum_add(&acc, log_piece(g, direction, eps, start, root));
            start = NAN;
        } else {
            start = root;
        }
    }
    if (!isnan(start)) {
        gauss_logsum_add(&acc, log_piece(g, direction, eps, start, INFINITY));
    }
    return acc.sum > 0.0L ? acc.ref + sp_fast_logl(acc.sum) : -INFINITY;
}

/* ln P(k)/Q(k) at atom k as the bracket's start reads it: the accurate
 * ratio where given, else lp - lq; an atom of neither law (NaN) counts as
 * -inf. */
static long double atom_ratio(const sp_gauss *g, long k)
{
    long double v = g->lp[k] - g->lq[k];
    if (g->lr != NULL && isfinite(g->lr[k]) && isfinite(v)) {
        v = g->lr[k] + (g->lr_lo != NULL ? g->lr_lo[k] : 0.0L);
    }
    return isnan(v) ? -INFINITY : v;
}

/* The first atom k with atom_ratio(k) > x (len if none; the ratio is
 * non-decreasing on a monotone pair). */
static long first_ratio_above(const sp_gauss *g, long double x)
{
    long lo = 0, hi = g->len;
    while (lo < hi) {
        const long mid = lo + (hi - lo) / 2;
        if (atom_ratio(g, mid) > x) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return lo;
}

/* One direction for eps >= 0.  ln delta, or -inf exactly where delta = 0.
 * estimate (NULL: exact): the closed form of the cumulative sums also where
 * it cancels, *estimate = 0 plain, +1 plus its error bound, -1 less its
 * typical error (see sp_gauss_curve_log_delta_estimate). */
static double gauss_direction(const sp_gauss *g, double eps, sp_direction direction,
                              const int *estimate)
{
    const double s = g->sigma;
    const long double inv2s2 = 0.5L / ((long double)s * (long double)s);
    ratio_fn r = {g, direction, eps, inv2s2};
    /* every D_k <= 0 (eps >= ln max A/B): f_A <= e^eps f_B everywhere */
    if ((direction == SP_PLUS ? ((long double)eps - g->lr_max) - g->lr_max_lo
              : ((long double)eps + g->lr_min) + g->lr_min_lo) >= 0.0L) {
        return -INFINITY;
    }
    double result;
    if (g->monotone) {
        /* h increases (plus) or decreases (minus) in x: one crossing x*, and
         * the positive part is [x*, inf) or (-inf, x*].  Bracket it by
         * doubling steps outward from the atoms where D changes sign (x*
         * lies within a few sigma of them when the noise is narrower than
         * the law, else the steps walk out to it); D's extreme atom of the
         * positive side is > 0, so the far side's sign is positive.  Starting
         * at the atoms' ends instead put the first evaluations of h far in
         * the law's tails, where the walk of log_ratio_excess spans ~sigma
         * sqrt(2 |ln P(k0)|) atoms: ~55 evaluations per direction, ~20 of
         * them 1e5 nats down at n = 1e6, sigma = 3 (3.7 ms a delta; ~0.3 ms
         * from the sign change). */
        const double sign_in = direction == SP_PLUS ? 1.0 : -1.0;   /* direction where h > 0 */
        double step = fmax(s, 1.0);
        double in, out;                                     /* want h(in) > 0, h(out) <= 0 */
        if (direction == SP_PLUS) {
            const double kc = (double)first_ratio_above(g, (long double)eps);   /* D_kc > 0 */
            in = kc + step;
            out = kc - 1.0 - step;
        } else {
            const double km = (double)first_ratio_above(g, -(long double)eps) - 1.0;  /* D'_km > 0 */
            in = km - step;
            out = km + 1.0 + step;
        }
        double fin = ratio_h(&r, in), fout = ratio_h(&r, out);
        /* beyond the atoms h grows like (x - last) / sigma^2 (or tends to a
         * limit that eps is below), so at large eps the crossing lies about
         * sigma^2 eps out: start the outward steps at that scale */
        double st = fmax(step, 0.25 * s * s * eps);
        for (int it = 0; it < 400 && !(fin > 0.0) && isfinite(in); it++) {
            out = in, fout = fin;
            in += sign_in * st, st *= 2.0;
            fin = ratio_h(&r, in);
        }
        st = step;
        for (int it = 0; it < 400 && fout > 0.0 && isfinite(out); it++) {
            in = out, fin = fout;
            out -= sign_in * st, st *= 2.0;
            fout = ratio_h(&r, out);
        }
        long double v;
        if (!(fin > 0.0)) {
            /* not bracketed within 2^400 steps (or NaN): the positive part
             * lies beyond `in`, bounded by the mass of A there */
            v = log_tail_bound(g, direction, in, direction == SP_PLUS);
        } else if (fout > 0.0) {
            v = log_piece(g, direction, eps, -INFINITY, INFINITY);   /* h > 0 on the line */
        } else {
            double x = direction == SP_PLUS ? bracket_root(&r, out, fout, in, fin)
                            : bracket_root(&r, in, fin, out, fout);
            v = log_tail_piece(g, direction, eps, x, direction == SP_PLUS, inv2s2, estimate);
        }
        result = (double)v;
    } else {
        result = (double)gauss_scan(g, &r, eps, direction);
    }
    /* eps < ln max A/B here, so delta > 0: a result below the double range
     * is reported as the most negative finite double (see gaussian.h). */
    return result == -INFINITY ? -DBL_MAX : result;
}

static double gauss_curve(const sp_gauss *g, double eps, sp_direction direction,
                          const int *estimate)
{
    if (isnan(eps)) {
        return NAN;
    }
    if (eps < 0.0) {
        if (direction == SP_MAX) {
            return fmax(gauss_curve(g, eps, SP_PLUS, estimate),
                        gauss_curve(g, eps, SP_MINUS, estimate));
        }
        return sp_log_hockey_negative_eps(eps, gauss_direction(g, -eps, sp_reverse(direction),
                                                               estimate));
    }
    if (eps == INFINITY) {
        return -INFINITY;      /* H_inf = 0: the ratio is finite at every x */
    }
    if (direction == SP_MAX) {
        return fmin(0.0, fmax(gauss_direction(g, eps, SP_PLUS, estimate),
                              gauss_direction(g, eps, SP_MINUS, estimate)));
    }
    /* delta <= 1: clamping the rounding of a total variation of 1 - 1e-20 is
     * still conservative */
    return fmin(0.0, gauss_direction(g, eps, direction, estimate));
}

double sp_gauss_curve_log_delta(double eps, sp_direction direction, const void *ctx)
{
    return gauss_curve(ctx, eps, direction, NULL);
}

double sp_gauss_curve_log_delta_estimate(double eps, sp_direction direction, const void *ctx)
{
    const sp_estimate *e = ctx;
    return gauss_curve(e->curve, eps, direction, &e->with_err);
}
