#include <float.h>
#include <math.h>
#include "shuffle.h"
#include "binomial_tail.h"
#include "logspace.h"
#include "search.h"

void sp_clones_init(sp_clones *c, double n, double eps0)
{
    const double N = n - 1.0;
    const long double p = expl(-(long double)eps0), q = -expm1l(-(long double)eps0);
    /* The mean of the smaller side, N min(p, q), in extended precision: N p
     * with p near 1 would carry p's absolute rounding (~1e-19), which is
     * all of N q at eps0 ~ 1e-17.  With q the smaller one, the law is set up
     * mirrored (the law of N - S, S ~ Bin(N, q)), whose mean N - N q the
     * initialiser forms exactly from N q's double-double. */
    const int mirrored = q < p;
    const long double small = mirrored ? q : p;
    const long double mean = (long double)N * small;
    const double mean_hi = (double)mean, mean_lo = (double)(mean - (long double)mean_hi);
    const double log_p = -eps0, log_q = (double)logl(q);
    c->n = n;
    c->eps0 = eps0;
    if (mirrored) {
        sp_binom_init_ext(&c->mix, N, q, p, mean_hi, mean_lo, log_q, log_p, 1);
    } else {
        sp_binom_init_ext(&c->mix, N, p, q, mean_hi, mean_lo, log_p, log_q, 0);
    }
    c->mode = fmin(N, floor((double)((long double)(N + 1.0) * p)));
    c->sd = sqrt((double)((long double)N * p * q));
}

/* ln a and e^eps' - 1 of the reduction to a shift divergence (shuffle.h),
 * for 0 <= eps < eps0, in extended precision (no cancellation: both come
 * from expm1 of eps and of eps0 - eps). */
static void reduce(const sp_clones *c, double eps, long double *log_a, long double *em1p)
{
    const long double e0 = (long double)c->eps0;
    const long double d0 = expm1l(e0 - (long double)eps);           /* e^(eps0-eps) - 1 > 0 */
    const long double log1p_e0 = e0 + log1pl(expl(-e0));             /* ln(1 + e^eps0) */
    *log_a = (long double)eps + logl(d0) - log1p_e0;
    *em1p = expl(log1p_e0 - (long double)eps) * expm1l((long double)eps) / d0;
}

double sp_clones_log_inner(const sp_clones *c, double cc, double eps)
{
    if (isnan(eps)) {
        return NAN;
    }
    if (!(eps < c->eps0)) {
        return -INFINITY;
    }
    long double log_a, em1p;
    reduce(c, eps, &log_a, &em1p);
    sp_binom b;
    sp_binom_init(&b, cc, 0.5, 0);
    const double g = sp_binom_shift_log_hockey_em1(&b, (double)log1pl(em1p), em1p);
    return (double)(log_a + (long double)g);
}

/* ---------------------------------------------------------------------------
 * The sum over c, one c at a time in O(1).  With m = c + 1 and beta_m the
 * Bin(m, 1/2) pmf, the identity b_c(k-1) / k = 2 beta_m(k) / m turns the
 * shift sum of H_eps'(A_c + 1 || A_c) = sum_{k >= j} (b_c(k-1) - rho b_c(k)),
 * rho = e^eps', j = the first k with k > kappa = rho m / (1 + rho), into
 *   G_c = (2 / m) [ (1 + rho) R_m(j) + num(j) S_m(j) ],
 *   S_m(j) = sum_{k >= j} beta_m(k),  R_m(j) = sum_{k > j} S_m(k),
 *   num(j) = (1 + rho) j - rho m = (2j - m) - (rho - 1)(m - j) > 0:
 * two positive parts, no cancellation.  Adding a fair bit (m -> m + 1) is
 *   S += beta_m(j-1) / 2,  R += S_old / 2,  beta(j-1) = (beta(j-1) + beta(j-2)) / 2,
 * all additions of positive numbers, and moving j up by one (the threshold
 * moves by rho / (1 + rho) < 1 per step) is S -= beta(j), R -= S.  The walk
 * is anchored on directly summed S, R every WALK_BLOCK steps and checked
 * against a fresh anchor at the block's end; a block that disagrees by more
 * than WALK_CHECK (relative) is walked again in blocks of WALK_SUB, and those
 * that still disagree are summed c by c from fresh anchors. */
#define WALK_BLOCK 2048
#define WALK_SUB 32
#define WALK_CHECK 1e-13L

typedef struct {
    double m, j;            /* law Bin(m, 1/2), threshold index j */
    long double scale;      /* the values below are relative to e^scale */
    long double beta1;      /* beta_m(j - 1) */
    long double s, r;       /* S_m(j), R_m(j) */
} walk_state;

/* (2j - m) - em1 (m - j): the sign decides whether k = j is above the
 * threshold; exact integers and one rounding of em1 (m - j). */
static long double walk_num(double j, double m, long double em1)
{
    return (long double)(2.0 * j - m) - em1 * (long double)(m - j);
}

/* The first k in [1, m] with walk_num(k) > 0 (walk_num(m) = m > 0). */
static double walk_threshold(double m, long double em1)
{
    double k = floor((double)((1.0L + em1) * (long double)m / (2.0L + em1))) + 1.0;
    k = fmin(fmax(k, 1.0), m);
    for (int guard = 0; guard < 8 && k < m && walk_num(k, m, em1) <= 0.0L; guard++) {
        k += 1.0;
    }
    for (int guard = 0; guard < 8 && k > 1.0 && walk_num(k - 1.0, m, em1) > 0.0L; guard++) {
        k -= 1.0;
    }
    return k;
}

/* S and R summed directly from beta_m(j - 1) outward: ratios re-anchored on
 * Loader's term every 256 steps, blocks of 32 terms summed in double and the
 * blocks in long double; the rest bounded and added: above the mode the
 * ratios rho_k = beta(k+1)/beta(k) decrease, so sum_{k>K} beta(k) <= beta(K)
 * rho / (1 - rho) and sum_{k>K} (k - j) beta(k) <= beta(K) ((K - j) rho /
 * (1 - rho) + rho / (1 - rho)^2), rho = rho_K. */
static void walk_anchor(double m, double j, walk_state *st)
{
    sp_binom b;
    sp_binom_init(&b, m, 0.5, 0);
    const double lb = sp_log_binom_pmf(&b, j - 1.0);
    long double s = 0.0L, r = 0.0L;
    double beta = 1.0, k = j - 1.0;
    for (int pass = 0; k < m; pass++) { /* k advances by 32 per pass, up to m */
        if (pass > 0 && pass % 8 == 0) {
            beta = exp(sp_log_binom_pmf(&b, k) - lb);
        }
        const double stop = fmin(m, k + 32.0);
        double bs = 0.0, br = 0.0;
        for (; k < stop; k += 1.0) {
            beta *= (m - k) / (k + 1.0);
            bs += beta;
            br += (k + 1.0 - j) * beta;
        }
        s += bs;
        r += br;
        const double next = (m - k) / (k + 1.0);
        if (k < m && next < 1.0) {
            const double g = next / (1.0 - next);
            const double bound_s = beta * g, bound_r = beta * ((k - j) * g + g / (1.0 - next));
            if (bound_s <= 0x1p-62 * (double)s && bound_r <= 0x1p-62 * (double)(r + s)) {
                s += bound_s;
                r += bound_r;
                break;
            }
        }
    }
    st->m = m;
    st->j = j;
    st->scale = (long double)lb;
    st->beta1 = 1.0L;
    st->s = s;
    st->r = r;
}

/* One fair bit more (m -> m + 1), then j moved to the new threshold. */
static void walk_step(walk_state *st, long double em1)
{
    const double m = st->m, j = st->j;
    const long double beta2 = j >= 2.0 ? st->beta1 * (long double)((j - 1.0) / (m - j + 2.0)) : 0.0L;
    st->r += 0.5L * st->s;
    st->s += 0.5L * st->beta1;
    st->beta1 = 0.5L * (st->beta1 + beta2);
    st->m = m + 1.0;
    /* the threshold moves by rho / (1 + rho) < 1 per step: check its sign */
    while (st->j < st->m && walk_num(st->j, st->m, em1) <= 0.0L) {
        /* S(j+1) = S(j) - beta(j), R(j+1) = R(j) - S(j+1) */
        const long double bj = st->beta1 * (long double)(st->m - st->j + 1.0) / (long double)st->j;
        st->s = fmaxl(st->s - bj, 0.0L);
        st->r = fmaxl(st->r - st->s, 0.0L);
        st->beta1 = bj;
        st->j += 1.0;
    }
    while (st->j > 1.0 && walk_num(st->j - 1.0, st->m, em1) > 0.0L) {
        /* S(j-1) = S(j) + beta(j-1), R(j-1) = R(j) + S(j) */
        const long double b2 = st->beta1 * (long double)(st->j - 1.0) / (long double)(st->m - st->j + 2.0);
        st->r += st->s;
        st->s += st->beta1;
        st->beta1 = b2;
        st->j -= 1.0;
    }
    if (st->s < 0x1p-8000L || st->s > 0x1p8000L) {      /* keep the values in range */
        const long double shift = logl(st->s);
        st->scale += shift;
        st->beta1 *= expl(-shift);
        st->r *= expl(-shift);
        st->s = 1.0L;
    }
}

/* ln G_c of the state (m = c + 1). */
static long double walk_log_g(const walk_state *st, long double em1)
{
    const long double g = (2.0L + em1) * st->r + walk_num(st->j, st->m, em1) * st->s;
    return st->scale + sp_fast_logl(2.0L * g / (long double)st->m);
}

/* The walk agrees with a fresh anchor (same m and j): S / beta(j-1) and
 * R / beta(j-1) to WALK_CHECK, and beta(j-1) itself to WALK_CHECK plus the
 * accuracy of a Loader log-pmf (a few ulps of |ln beta|: at |ln beta| ~
 * 2000 that is ~1e-12 relative, common to every term of the sum and within
 * the contract's 1e-10 on ln delta there). */
static int walk_agrees(const walk_state *a, const walk_state *b)
{
    const long double sa = a->s / a->beta1, sb = b->s / b->beta1;
    const long double ra = a->r / a->beta1, rb = b->r / b->beta1;
    const long double la = a->scale + logl(a->beta1), lb = b->scale + logl(b->beta1);
    return a->j == b->j && fabsl(sa / sb - 1.0L) <= WALK_CHECK
           && (rb == 0.0L ? ra == 0.0L : fabsl(ra / rb - 1.0L) <= WALK_CHECK)
           && fabsl(la - lb) <= WALK_CHECK + 16.0L * DBL_EPSILON * fabsl(lb);
}

/* ln sum of w(c) G_c over c = start .. start + len - 1 into *out, walking
 * from the fresh anchor *from (at c = start); *end receives the fresh anchor
 * at c = start + len.  Returns 1 if the walk agrees with it there. */
static int walk_block(const sp_clones *c, double start, int len, long double em1, const walk_state *from,
                      walk_state *end, double *out)
{
    const double N = c->mix.N;
    const long double ratio_pq = c->mix.p_ext / c->mix.q_ext;
    walk_state st = *from;
    sp_logsum sum = {0.0L, 0.0L};
    const long double lw0 = (long double)sp_log_binom_pmf(&c->mix, start);
    long double w = 1.0L;              /* w(c) / w(start): exact ratios in extended precision */
    for (int i = 0; i < len; i++) {
        const double cc = start + i;
        if (i > 0) {
            walk_step(&st, em1);
            w *= (long double)(N - cc + 1.0) / (long double)cc * ratio_pq;
        }
        sp_logsum_add(&sum, lw0 + sp_fast_logl(w) + walk_log_g(&st, em1));
    }
    walk_step(&st, em1);
    walk_anchor(st.m, walk_threshold(st.m, em1), end);
    *out = (double)sp_logsum_log(&sum);
    return len == 1 || walk_agrees(&st, end);
}

/* ln sum_{c = lo..hi} w(c) G_c: blocks of WALK_BLOCK steps; a block whose
 * walk disagrees with the fresh anchor at its end is walked again in blocks
 * of WALK_SUB, and those that still disagree c by c from fresh anchors. */
static double window_sum(const sp_clones *c, double lo, double hi, long double em1)
{
    sp_logsum sum = {0.0L, 0.0L};
    walk_state at, end, at2, end2;
    double part;
    walk_anchor(lo + 1.0, walk_threshold(lo + 1.0, em1), &at);
    for (double s = lo; s <= hi; s += WALK_BLOCK) {
        const int len = (int)fmin(WALK_BLOCK, hi - s + 1.0);
        if (walk_block(c, s, len, em1, &at, &end, &part)) {
            sp_logsum_add(&sum, part);
            at = end;
            continue;
        }
        at2 = at;
        for (double s2 = s; s2 < s + len; s2 += WALK_SUB) {
            const int len2 = (int)fmin(WALK_SUB, s + len - s2);
            if (walk_block(c, s2, len2, em1, &at2, &end2, &part)) {
                sp_logsum_add(&sum, part);
                at2 = end2;
                continue;
            }
            for (int i = 0; i < len2; i++) {            /* c by c, fresh anchors */
                walk_block(c, s2 + i, 1, em1, &at2, &end2, &part);
                sp_logsum_add(&sum, part);
                at2 = end2;
            }
        }
        at = end;
    }
    return (double)sp_logsum_log(&sum);
}

/* ln of a bound on the mixing mass below lo (the ratios b(k-1)/b(k)
 * decrease downward: the rest is at most b(lo-1) / (1 - rho)), and above hi. */
static double log_mass_below(const sp_binom *w, double lo)
{
    if (lo <= 0.0) {
        return -INFINITY;
    }
    const double j = lo - 1.0;
    const double rho = j * (double)(w->q_ext / w->p_ext) / (w->N - j + 1.0);
    return rho < 1.0 ? sp_log_binom_pmf(w, j) - log1p(-rho) * (1.0 + 0x1p-40) : 0.0;
}

static double log_mass_above(const sp_binom *w, double hi)
{
    if (hi >= w->N) {
        return -INFINITY;
    }
    const double j = hi + 1.0;
    const double r = (w->N - j) * (double)(w->p_ext / w->q_ext) / (j + 1.0);
    return r < 1.0 ? sp_log_binom_pmf(w, j) - log1p(-r) * (1.0 + 0x1p-40) : 0.0;
}

/* ln delta for 0 <= eps < eps0: a window of c around the mode summed
 * exactly, the c outside it bounded (H_c <= H_0 = a below the window, <=
 * H_{hi+1} above it: H is non-increasing in c) and added; the window grows
 * by 2 sd on a side until that side's bound is below SP_TAIL_TOL of the sum. */
static double positive_log_delta(const sp_clones *c, double eps)
{
    long double log_a, em1;
    reduce(c, eps, &log_a, &em1);
    const double N = c->mix.N, sd = fmax(c->sd, 1.0), step = ceil(2.0 * sd);
    double lo = fmax(0.0, floor(c->mode - 8.0 * sd)), hi = fmin(N, ceil(c->mode + 8.0 * sd));
    double sum = window_sum(c, lo, hi, em1);
    const double tol = log(SP_TAIL_TOL);
    for (int guard = 0; guard < 100000; guard++) {     /* each pass widens the window */
        if (isnan(sum)) {
            return NAN;
        }
        const double body = (double)log_a + sum;
        const double t_lo = log_mass_below(&c->mix, lo) + (double)log_a;
        const double t_hi = log_mass_above(&c->mix, hi) + sp_clones_log_inner(c, hi + 1.0, eps);
        const int grow_lo = t_lo > body + tol, grow_hi = t_hi > body + tol;
        if (!grow_lo && !grow_hi) {
            return fmin(0.0, sp_logaddexp(body, sp_logaddexp(t_lo, t_hi)));
        }
        if (grow_lo) {
            const double next = fmax(0.0, lo - step);
            sum = sp_logaddexp(sum, window_sum(c, next, lo - 1.0, em1));
            lo = next;
        }
        if (grow_hi) {
            const double next = fmin(N, hi + step);
            sum = sp_logaddexp(sum, window_sum(c, hi + 1.0, next, em1));
            hi = next;
        }
    }
    return NAN;
}

double sp_clones_log_delta(double eps, sp_direction direction, const void *ctx)
{
    const sp_clones *c = ctx;
    (void)direction;            /* both directions are equal */
    if (isnan(eps)) {
        return NAN;
    }
    if (eps >= c->eps0) {
        return -INFINITY;       /* the largest likelihood ratio is e^eps0 */
    }
    if (eps >= 0.0) {
        return positive_log_delta(c, eps);
    }
    /* H_eps(P||Q) = 1 - e^eps + e^eps H_{-eps}(Q||P), and H(Q||P) = H(P||Q) */
    return sp_log_hockey_negative_eps(eps, -eps >= c->eps0 ? -INFINITY : positive_log_delta(c, -eps));
}

typedef struct {
    const sp_clones *c;
    double aim;
} search_ctx;

static double excess(double eps, const void *ctx)
{
    const search_ctx *t = ctx;
    return sp_clones_log_delta(eps, SP_PLUS, t->c) - t->aim;
}

/* A starting point of the order of the answer: the closed form of "Hiding
 * among the clones" (Thm. 3.1), halved. */
static double eps_guess(const sp_clones *c, double log_target)
{
    const double e0 = c->eps0, l4 = log(4.0) - log_target;
    const double g = 0.5 * log1p(-expm1(-e0) * (8.0 * sqrt(exp(e0) * l4 / c->n) + 8.0 * exp(e0) / c->n) / 2.0);
    return fmin(0.5 * e0, fmax(g, 1e-300));
}

double sp_clones_smallest_eps(const sp_clones *c, double log_target, double log_tol)
{
    if (isnan(log_target) || isnan(log_tol)) {
        return NAN;
    }
    if (log_target >= 0.0) {
        return 0.0;             /* delta <= 1 everywhere */
    }
    if (log_target == -INFINITY) {
        return c->eps0;         /* delta > 0 below eps0 (a > 0), = 0 from eps0 on */
    }
    search_ctx t = {c, sp_search_aim(log_target, log_tol)};
    double lo = 0.0, flo = excess(0.0, &t);
    if (!(flo > 0.0)) {
        return isnan(flo) ? NAN : 0.0;
    }
    /* bracket from the guess: doubling up (eps0 has delta = 0) or halving down */
    double hi = c->eps0, fhi = -INFINITY;
    double x = eps_guess(c, log_target), fx = excess(x, &t);
    for (int guard = 0; guard < 2100 && !isnan(fx); guard++) {
        if (fx > 0.0) {
            lo = x;
            flo = fx;
            if (isfinite(fhi) || (hi == c->eps0 && x >= 0.5 * c->eps0)) {
                break;
            }
            x = fmin(2.0 * x, 0.5 * (x + c->eps0));
        } else {
            hi = x;
            fhi = fx;
            if (lo > 0.0 || x < 1e-300) {
                break;
            }
            x *= 0.5;
        }
        fx = excess(x, &t);
    }
    if (isnan(fx)) {
        return NAN;
    }
    sp_illinois(excess, &t, &lo, &flo, &hi, &fhi, 4.0 * DBL_EPSILON, SP_SEARCH_MAX_EVALS);
    return isnan(flo) ? NAN : hi;
}
