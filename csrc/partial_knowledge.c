#include <float.h>
#include <stddef.h>
#include <math.h>
#include "partial_knowledge.h"
#include "logspace.h"
#include "pmf.h"
#include "binomial_tail.h"
#include "search.h"

void sp_vertex_init(sp_vertex_sys *s, double N, double p, long double q0, long double d)
{
    s->N = N;
    s->p = p;
    s->pe = (long double)p;
    s->qe = 1.0L - (long double)p;        /* exact for p >= 2^-11; else log1p below */
    s->lp = logl((long double)p);
    s->lq = log1pl(-(long double)p);
    s->q0 = q0;
    s->d = d;
    s->lq1 = log1pl(-q0);
    s->a_lo = 0.0;
    s->a_hi = N;
    s->eps0 = q0 > 0.0L ? (double)(s->lq1 - logl(q0)) : INFINITY;
}

void sp_vertex_init_rr(sp_vertex_sys *s, double N, double eps0)
{
    const long double e = (long double)eps0;
    s->N = N;
    s->pe = 1.0L / (1.0L + expl(e));
    s->qe = 1.0L / (1.0L + expl(-e));
    s->p = (double)s->pe;
    s->lp = -log1pl(expl(e));
    s->lq = -log1pl(expl(-e));
    s->q0 = s->pe;
    s->d = tanhl(0.5L * e);                 /* q1 - q0 */
    s->lq1 = s->lq;
    s->a_lo = 0.0;
    s->a_hi = N;
    s->eps0 = eps0;
}

/* Rescaling of the recurrence state: values are kept within 2^+-SCALE_BITS
 * of 1 (long double reaches 2^+-16382), the scale in nats aside. */
#define SCALE_BITS 2048
#define LN2L 0.693147180559945309417232121458L

typedef struct {
    long double tot;     /* ln of the flushed part of the sum */
    long double sum;     /* linear part, relative to the current scale */
} vsum;

static void vsum_flush(vsum *v, long double scale)
{
    if (v->sum > 0.0L) {
        v->tot = sp_logaddexpl(v->tot, logl(v->sum) + scale);
    }
    v->sum = 0.0L;
}

/* Rescale the pair (x, y) and the sum (flushed first) if x has left the
 * band; returns the new scale. */
static long double vrescale(long double *x, long double *y, vsum *v, long double scale)
{
    if (*x > 0x1p2048L || (*x < 0x1p-2048L && *y < 0x1p-2048L)) {
        vsum_flush(v, scale);
        int e = ilogbl(*x > *y ? *x : *y);
        *x = ldexpl(*x, -e);
        *y = ldexpl(*y, -e);
        scale += (long double)e * LN2L;
    }
    return scale;
}

/* ln sum_{k=lo+1}^{hi} (A c_{k-1} - B c_k)_+ for the law c of
 * S = Bin(n1, p) + Bin(n2, q) (N = n1 + n2 >= 1, 0 <= lo < hi <= N), from
 * the anchors ln c_lo, c_{lo+1}/c_lo (upward) and ln c_hi, c_{hi-1}/c_hi
 * (downward); the three-term recurrence is run upward to the split and
 * downward to it (see the header: both steps are positive combinations). */
static long double vertex_window_sum(const sp_vertex_sys *s, double n1, double n2, long lo, long hi,
                                     long double lc_lo, long double r_up, long double lc_hi,
                                     long double r_dn, long double A, long double B)
{
    const long double p = s->pe, q = s->qe;
    const long double pq = p * q, D = p * p + q * q;
    const long double C = (long double)n1 * p * p + (long double)n2 * q * q;
    const long double p2 = p * p, q2 = q * q;
    const long Ni = (long)(n1 + n2);
    /* The recurrence's coefficient C - D k = (n1 - k) p^2 + (n2 - k) q^2 from
     * the exact integers n1 - k, n2 - k: formed as C - D k it loses ~1e-19 C
     * absolutely, and at k = n2 with p << q it is the tiny (n1 - n2) p^2
     * (2e-14 at p = 4.6e-8), so c(n2 + 1) came out 2e-6 off (delta ~ 1
     * then 2e-12 above the truth: shuffle.randomized_response(45, 16.9)) */
#define SLOPE(k) ((long double)(n1 - (double)(k)) * p2 + (long double)(n2 - (double)(k)) * q2)
    double ks = ceil((double)(C / D));
    long split = ks < (double)(lo + 1) ? lo + 1 : (ks > (double)hi ? hi : (long)ks);

    vsum up = {-INFINITY, 0.0L};
    long double scale = lc_lo;
    long double prev = 1.0L, cur = r_up;
    long double t = A * prev - B * cur;                  /* term lo + 1 */
    if (t > 0.0L) {
        up.sum += t;
    }
    for (long k = lo + 1; k < split; k++) {
        long double next = (SLOPE(k) * cur + pq * (long double)(Ni - k + 1) * prev)
                           / (pq * (long double)(k + 1));
        prev = cur;
        cur = next;
        t = A * prev - B * cur;                          /* term k + 1 */
        if (t > 0.0L) {
            up.sum += t;
        }
        scale = vrescale(&cur, &prev, &up, scale);
    }
    vsum_flush(&up, scale);

    vsum dn = {-INFINITY, 0.0L};
    scale = lc_hi;
    long double nxt = 1.0L, at = r_dn;                   /* c_hi, c_{hi-1} */
    if (hi >= split + 1) {
        t = A * at - B * nxt;                            /* term hi */
        if (t > 0.0L) {
            dn.sum += t;
        }
    }
    for (long k = hi - 1; k >= split + 1; k--) {
        long double below = (pq * (long double)(k + 1) * nxt - SLOPE(k) * at)
                            / (pq * (long double)(Ni - k + 1));
        nxt = at;
        at = below;
        t = A * at - B * nxt;                            /* term k */
        if (t > 0.0L) {
            dn.sum += t;
        }
        scale = vrescale(&at, &nxt, &dn, scale);
    }
    vsum_flush(&dn, scale);
#undef SLOPE
    return sp_logaddexpl(up.tot, dn.tot);
}

/* A = q1 - e^eps q0 and B = e^eps (1 - q0) - (1 - q1); 0 if A <= 0, i.e.
 * from eps >= eps0 = ln(q1 / q0) on (decided on eps0 itself; A and B are
 * then formed from eps -+ eps0: A is a difference of nearly equal numbers
 * near eps0). */
static int target_coefficients(const sp_vertex_sys *s, double eps, long double *A, long double *B)
{
    if (s->q0 > 0.0L) {
        /* randomized response: q1 / q0 = e^eps0, so A = q1 (1 - e^(eps - eps0))
         * and B = q0 (e^(eps + eps0) - 1), from the exact difference eps - eps0 */
        if (eps >= s->eps0) {
            return 0;
        }
        *A = -(1.0L - s->q0) * expm1l((long double)eps - (long double)s->eps0);
        *B = s->q0 * expm1l((long double)eps + (long double)s->eps0);
        return *A > 0.0L;
    }
    /* q0 = 0 here: A = d - (e^eps - 1) q0 = d at every eps (not formed as
     * that product: e^eps - 1 overflows beyond eps = 11356, and inf * 0 is a
     * NaN that would drop the mass where Q = 0, delta's floor) */
    const long double em1 = expm1l((long double)eps);
    *A = s->d;
    *B = s->d + em1 * (1.0L - s->q0);
    return *A > 0.0L;
}

/* ln S(k) for S = Bin(n1, p) + Bin(n2, q): the convolution sum over j of
 * Bin(n1, p)(j) Bin(n2, q)(k - j), from its largest term outward by the
 * exact term ratios until the terms are 2^-70 of the largest; the rest of
 * each side is bounded geometrically (the terms are log-concave in j) and
 * added, so the result is an upper bound within 2^-60 relative. */
static long double conv_log(const sp_vertex_sys *s, double n1, double n2, double k)
{
    const long double p = s->pe, q = s->qe, rho = p / q;
    double jlo = fmax(0.0, k - n2), jhi = fmin(n1, k);
    if (jlo > jhi) {
        return -INFINITY;
    }
    /* the largest term: t(j+1)/t(j) = (n1-j)(k-j) rho^2 / ((j+1)(n2-k+j+1)) crosses 1 */
    long double a2 = p * p - q * q;
    long double a1 = -(p * p * (long double)(n1 + k) + q * q * (long double)(n2 - k + 2.0));
    long double a0 = p * p * (long double)n1 * (long double)k - q * q * (long double)(n2 - k + 1.0);
    long double root;
    if (fabsl(a2) < 1e-30L) {
        root = -a0 / a1;
    } else {
        long double disc = a1 * a1 - 4.0L * a2 * a0;
        disc = disc > 0.0L ? sqrtl(disc) : 0.0L;
        long double r1 = (-a1 - disc) / (2.0L * a2), r2 = (-a1 + disc) / (2.0L * a2);
        root = (r1 >= (long double)jlo - 1.0L && r1 <= (long double)jhi + 1.0L) ? r1 : r2;
    }
    double j0 = floor((double)root) + 1.0;
    j0 = fmin(fmax(j0, jlo), jhi);
#define TERM_RATIO(j) (((long double)(n1 - (j)) * (long double)(k - (j)) * rho * rho) / \
                       ((long double)((j) + 1.0) * (long double)(n2 - k + (j) + 1.0)))
    for (int guard = 0; guard < 64 && j0 < jhi && TERM_RATIO(j0) > 1.0L; guard++) {
        j0 += 1.0;
    }
    for (int guard = 0; guard < 64 && j0 > jlo && TERM_RATIO(j0 - 1.0) >= 1.0L; guard++) {
        j0 -= 1.0;
    }
    sp_binom b1, b2;
    sp_binom_init(&b1, n1, (double)p, 0);
    sp_binom_init(&b2, n2, s->p, 1);                     /* Bin(n2, 1 - p) */
    const long double lt0 = (long double)sp_log_binom_pmf(&b1, j0) + (long double)sp_log_binom_pmf(&b2, k - j0);
    const long double stop = 0x1p-70L;
    /* Each side is summed without divisions: with the term ratios
     * r_j = num_j / den_j, t_j = T_j / D_j (T, D running products) and the
     * partial sum times D_j, U_j = U_{j-1} den_j + T_j, so the sum is U / D
     * at the end; T, D, U are rescaled together by powers of two. */
    long double total = 1.0L;
    for (int side = 0; side < 2; side++) {
        long double T = 1.0L, D = 1.0L, U = 1.0L, num = 0.0L, den = 1.0L;
        double j = j0;
        const double end = side == 0 ? jhi : jlo;
        while (side == 0 ? j < end : j > end) {
            if (side == 0) {                      /* t(j+1) / t(j) */
                num = (long double)(n1 - j) * (long double)(k - j) * rho * rho;
                den = (long double)(j + 1.0) * (long double)(n2 - k + j + 1.0);
                j += 1.0;
            } else {                              /* t(j-1) / t(j) */
                num = (long double)j * (long double)(n2 - k + j);
                den = (long double)(n1 - j + 1.0) * (long double)(k - j + 1.0) * rho * rho;
                j -= 1.0;
            }
            T *= num;
            D *= den;
            U = U * den + T;
            if (D > 0x1p4000L || T > 0x1p4000L) {
                T = ldexpl(T, -4000);
                D = ldexpl(D, -4000);
                U = ldexpl(U, -4000);
            }
            if (T < stop * U) {
                break;
            }
        }
        long double part = U / D;                 /* 1 + the terms of this side */
        if (side == 0 ? j < end : j > end) {      /* the rest, geometric beyond */
            long double r = num / den, t = T / D;
            part += r < 1.0L ? t * r / (1.0L - r) : t * (long double)fabs(end - j);
        }
        total += part - 1.0L;
    }
#undef TERM_RATIO
    return lt0 + logl(total);
}

/* Bounds on ln H_eps(P || Q) for the target pair on S = Bin(n1, p) +
 * Bin(n2, q): on the whole support (depth <= 0 or a window that reaches both
 * ends) the exact value (*log_lower = result); else on the window of atoms
 * within ~depth nats of the mode, *log_lower the window's terms (a lower
 * bound) and the result an upper bound (the top term A c_hi and A times the
 * mass outside the window, bounded by log-concavity, added). */
static double two_binom_log_hockey(const sp_vertex_sys *s, double n1, double n2, double eps,
                                   double depth, double *log_lower)
{
    const long double lp = s->lp, lq = s->lq;
    const double N = n1 + n2;
    *log_lower = NAN;
    if (isnan(eps) || isnan(n1) || isnan(n2)) {
        return NAN;
    }
    const long double lcN = (long double)n1 * lp + (long double)n2 * lq;     /* ln c_N */
    if (eps == INFINITY) {
        double v = s->q0 > 0.0L ? -INFINITY : (double)(s->lq1 + lcN);
        *log_lower = v;
        return v;
    }
    long double A, B;
    if (!target_coefficients(s, eps, &A, &B)) {
        *log_lower = -INFINITY;
        return -INFINITY;
    }
    if (N == 0.0) {
        *log_lower = (double)logl(A);
        return *log_lower;
    }
    const long double p = s->pe, q = s->qe;
    double lo = 0.0, hi = N;
    int zero_below = 0;                                 /* every term k <= lo is <= 0 */
    long double lc_lo = 0.0L, r_up = 0.0L, lc_hi, r_dn;
    if (depth > 0.0) {
        const double mu = (double)((long double)n1 * p + (long double)n2 * q);
        /* Bernstein: P(|S - mu| >= t) <= 2 exp(-t^2 / (2 (V + t/3))), so the
         * atoms beyond t = depth/3 + sqrt(depth^2/9 + 2 depth V) lie ~depth
         * nats down (the rest is bounded from the window's ends anyway) */
        const double V = N * (double)(p * q);
        const double h = ceil(depth / 3.0 + sqrt(depth * depth / 9.0 + 2.0 * depth * V)) + 16.0;
        lo = fmax(0.0, floor(mu - h));
        hi = fmin(N, ceil(mu + h));
        /* The terms (A c_{k-1} - B c_k)_+ = c_k (A c_{k-1}/c_k - B)_+ are
         * zero below the first k with c_{k-1}/c_k > B/A (c is log-concave,
         * so the ratio increases in k): start the window just below the
         * normal estimate k* ~ mu + V ln(B/A) of that k.  Checked below on
         * the exact anchor ratio; if the estimate overshot, the old start. */
        const double kstar = mu + 0.5 + V * (double)logl(B / A);
        const double guess = floor(kstar - 64.0 - 0.25 * sqrt(V));
        if (guess > lo && guess + 2.0 < hi) {
            long double lg = conv_log(s, n1, n2, guess);
            long double rg = expl(conv_log(s, n1, n2, guess + 1.0) - lg);
            if (A <= B * rg) {               /* term guess + 1 <= 0: so every term below */
                lo = guess;
                lc_lo = lg;
                r_up = rg;
                zero_below = 1;
            }
        }
    }
    if (zero_below) {
        /* anchors set above */
    } else if (lo == 0.0) {
        lc_lo = (long double)n1 * lq + (long double)n2 * lp;
        r_up = (long double)n1 * (p / q) + (long double)n2 * (q / p);
    } else {
        lc_lo = conv_log(s, n1, n2, lo);
        r_up = expl(conv_log(s, n1, n2, lo + 1.0) - lc_lo);
    }
    if (hi == N) {
        lc_hi = lcN;
        r_dn = (long double)n1 * (q / p) + (long double)n2 * (p / q);
    } else {
        lc_hi = conv_log(s, n1, n2, hi);
        r_dn = expl(conv_log(s, n1, n2, hi - 1.0) - lc_hi);
    }
    long double win = vertex_window_sum(s, n1, n2, (long)lo, (long)hi, lc_lo, r_up, lc_hi, r_dn, A, B);
    long double top = logl(A) + lc_hi;                  /* A c_hi: exact (c_{N+1} = 0) at hi = N */
    long double lower = hi == N ? sp_logaddexpl(win, top) : win;
    long double upper = sp_logaddexpl(win, top);
    long double log_rest = -INFINITY;                   /* ln of the mass outside */
    if (lo > 0.0 && !zero_below) {                       /* c_{lo-j} <= c_lo (c_lo/c_{lo+1})^j */
        long double r = 1.0L / r_up;
        log_rest = r < 1.0L ? lc_lo + logl(r / (1.0L - r)) : INFINITY;
    }
    if (hi < N) {
        long double r = 1.0L / r_dn;
        log_rest = sp_logaddexpl(log_rest, r < 1.0L ? lc_hi + logl(r / (1.0L - r)) : INFINITY);
    }
    if (log_rest > -INFINITY) {
        upper = sp_logaddexpl(upper, logl(A) + log_rest);
    }
    *log_lower = lower > 0.0L ? 0.0 : (double)lower;
    return upper > 0.0L ? 0.0 : (double)upper;
}

double sp_vertex_log_hockey(const sp_vertex_sys *s, double a, double eps)
{
    double lower;
    return two_binom_log_hockey(s, a, s->N - a, eps, 0.0, &lower);
}

double sp_vertex_log_hockey_bounds(const sp_vertex_sys *s, double n1, double n2, double eps,
                                   double depth, double *log_lower)
{
    return two_binom_log_hockey(s, n1, n2, eps, depth, log_lower);
}

double sp_vertex_worst_log_hockey(const sp_vertex_sys *s, double eps, double *arg)
{
    double best = -INFINITY, best_a = s->a_lo;
    for (double a = s->a_lo; a <= s->a_hi; a += 1.0) {
        double v = sp_vertex_log_hockey(s, a, eps);
        if (isnan(v)) {
            best = NAN;
            break;
        }
        if (v > best) {
            best = v;
            best_a = a;
        }
    }
    if (arg) {
        *arg = best_a;
    }
    return best;
}

double sp_vertex_curve_log_delta(double eps, sp_direction direction, const void *ctx)
{
    (void)direction;
    const sp_vertex_sys *s = (const sp_vertex_sys *)ctx;
    if (isnan(eps)) {
        return NAN;
    }
    if (eps < 0.0) {
        /* H_eps(P||Q) = 1 - e^eps + e^eps H_-eps(Q||P); the worst Q||P is
         * the worst P||Q (mirror), attained at the same maximiser */
        return sp_log_hockey_negative_eps(eps, sp_vertex_worst_log_hockey(s, -eps, NULL));
    }
    return sp_vertex_worst_log_hockey(s, eps, NULL);
}

typedef struct {
    const sp_vertex_sys *s;
    double a;
} vertex_ctx;

static double vertex_fn(double eps, sp_direction direction, const void *ctx)
{
    (void)direction;
    const vertex_ctx *v = (const vertex_ctx *)ctx;
    if (eps < 0.0) {
        /* mirror vertex for the reverse direction */
        return sp_log_hockey_negative_eps(eps, sp_vertex_log_hockey(v->s, v->s->N - v->a, -eps));
    }
    return sp_vertex_log_hockey(v->s, v->a, eps);
}

double sp_vertex_smallest_eps(const sp_vertex_sys *s, double log_target, double log_tol)
{
    if (isnan(log_target)) {
        return NAN;
    }
    if (log_target >= 0.0) {
        return 0.0;
    }
    if (log_target == -INFINITY && isfinite(s->eps0)) {
        /* delta = 0 exactly from eps0 on, and > 0 below it (the atom S = N
         * of any vertex, with P / Q = e^eps0): the zero point is eps0 */
        return s->eps0;
    }
    const double aim = sp_search_aim(log_target, log_tol);
    /* start at the middle vertex and the uniform one, then every vertex is
     * checked at the running answer and searched only if it exceeds it */
    vertex_ctx v = {s, floor(0.5 * (s->a_lo + s->a_hi))};
    double best = sp_smallest_eps_lean(vertex_fn, &v, SP_PLUS, log_target, log_tol, 0);
    if (isnan(best) || best == INFINITY) {
        return best;
    }
    for (double a = s->a_lo; a <= s->a_hi; a += 1.0) {
        double val = sp_vertex_log_hockey(s, a, best);
        if (isnan(val)) {
            return NAN;
        }
        if (val > aim) {
            v.a = a;
            double e = sp_smallest_eps_lean(vertex_fn, &v, SP_PLUS, log_target, log_tol, 0);
            if (isnan(e)) {
                return NAN;
            }
            if (e > best) {
                best = e;
            }
            if (best == INFINITY) {
                return best;
            }
        }
    }
    return best;
}

/* ---- the privacy blanket ------------------------------------------------ */

#define BLANKET_DEPTH 1100.0         /* nats below the mode kept in the window */
#define BLANKET_ALL_B 4096           /* windows up to this size: every b summed */

static void blanket_window(double N, double p, double *lo, double *hi)
{
    const double g = 2.0 * p;
    const double m = N * g, sd = sqrt(N * g * (1.0 - g));
    const double h = ceil(1.3 * sqrt(2.0 * BLANKET_DEPTH) * sd) + 32.0;
    *lo = fmax(0.0, floor(m - h));
    *hi = fmin(N, ceil(m + h));
}

long sp_blanket_work_len(double N, double p)
{
    double lo, hi;
    blanket_window(N, p, &lo, &hi);
    return 2 * ((long)(hi - lo) + 2);
}

static long double blanket_H(double b, double eps)
{
    sp_binom law;
    sp_binom_init(&law, b, 0.5, 0);
    return expl((long double)sp_binom_shift_log_hockey(&law, eps));
}

typedef struct {
    const long double *cum;    /* cum[i] = sum_{j < i} w[j], w relative to the max */
    double lo;
    double eps;
    long double budget;        /* per atom of block width: P(block)/Pmax (H(b) - H(e)) allowed */
    long double U, L;
    int depth_fail;
} blanket_ctx;

static void blanket_block(blanket_ctx *c, double b, double e, long double Hb, long double He, int depth)
{
    const long double P = c->cum[(long)(e - c->lo) + 1] - c->cum[(long)(b - c->lo)];
    if (e == b || P * (Hb - He) <= c->budget * (long double)(e - b + 1.0) || depth > 60) {
        c->U += P * Hb;
        c->L += P * He;
        return;
    }
    double mid = floor(0.5 * (b + e));
    long double Hm = blanket_H(mid, c->eps);
    long double Hm1 = blanket_H(mid + 1.0, c->eps);
    blanket_block(c, b, mid, Hb, Hm, depth + 1);
    blanket_block(c, mid + 1.0, e, Hm1, He, depth + 1);
}

int sp_blanket_init(sp_blanket *bl, double N, double p, double rel_tol, long double *work,
                    long work_len)
{
    bl->N = N;
    bl->p = p;
    bl->rel_tol = rel_tol;
    bl->cum = work;
    bl->len = 0;
    bl->mx = 0.0L;
    bl->rest = 0.0L;
    if (p >= 0.5) {               /* every record is a fair coin: b = N surely */
        bl->lo = bl->hi = N;
        return 0;
    }
    double lo, hi;
    blanket_window(N, p, &lo, &hi);
    const long len = (long)(hi - lo) + 1;
    if (work_len < 2 * (len + 1)) {
        return 1;
    }
    bl->lo = lo;
    bl->hi = hi;
    bl->len = len;
    long double *lw = work + len + 1, *cum = work;
    sp_binom_window_logl(N, 2.0 * p, lo, len, lw);
    long double mx = -INFINITY;
    for (long i = 0; i < len; i++) {
        mx = fmaxl(mx, lw[i]);
    }
    cum[0] = 0.0L;
    for (long i = 0; i < len; i++) {
        cum[i + 1] = cum[i] + sp_fast_expl(lw[i] - mx);
    }
    /* the mass outside the window, by log-concavity of the binomial pmf:
     * beyond an end the terms fall at least geometrically at the end ratio */
    long double rest = 0.0L;
    if (lo > 0.0 && len > 1) {
        long double r = expl(lw[0] - lw[1]);
        rest += r < 1.0L ? expl(lw[0] - mx) * r / (1.0L - r) : INFINITY;
    }
    if (hi < N && len > 1) {
        long double r = expl(lw[len - 1] - lw[len - 2]);
        rest += r < 1.0L ? expl(lw[len - 1] - mx) * r / (1.0L - r) : INFINITY;
    }
    bl->mx = mx;
    bl->rest = rest;
    return 0;
}

double sp_blanket_log_delta(const sp_blanket *bl, double eps)
{
    if (isnan(eps)) {
        return NAN;
    }
    if (eps < 0.0) {
        return sp_log_hockey_negative_eps(eps, sp_blanket_log_delta(bl, -eps));
    }
    if (bl->p >= 0.5) {
        sp_binom law;
        sp_binom_init(&law, bl->N, 0.5, 0);
        return sp_binom_shift_log_hockey(&law, eps);
    }
    const double lo = bl->lo, hi = bl->hi;
    const long len = bl->len;
    const long double *cum = bl->cum;
    blanket_ctx c = {cum, lo, eps, 0.0L, 0.0L, 0.0L, 0};
    if (len <= BLANKET_ALL_B) {
        for (long i = 0; i < len; i++) {
            c.U += (cum[i + 1] - cum[i]) * blanket_H(lo + (double)i, eps);
        }
    } else {
        /* L0, a proven lower bound of the sum (H non-increasing): the mass
         * up to the middle of the window times H there.  Blocks are split
         * until each adds at most budget * width beyond its lower sum, the
         * budget spread over the central +-6 sd; the gap U - L of the two
         * sums is then checked against rel_tol L and the budget cut 8-fold
         * if it is not met (U is an upper bound of the exact sum in any
         * case). */
        double mid = floor(0.5 * (lo + hi));
        long double L0 = cum[(long)(mid - lo) + 1] * blanket_H(mid, eps);
        const double sd = sqrt(bl->N * 2.0 * bl->p * (1.0 - 2.0 * bl->p));
        long double budget = (long double)bl->rel_tol * L0 / (12.0L * (long double)sd + 1.0L);
        const long double Hlo = blanket_H(lo, eps), Hhi = blanket_H(hi, eps);
        for (int round = 0; round < 4; round++) {
            c.U = c.L = 0.0L;
            c.budget = budget;
            blanket_block(&c, lo, hi, Hlo, Hhi, 0);
            if (c.U - c.L <= (long double)bl->rel_tol * c.L) {
                break;
            }
            budget /= 8.0L;
        }
    }
    /* the mass outside the window, with H <= 1 */
    long double total = c.U + bl->rest;
    if (!(total > 0.0L)) {
        return -INFINITY;
    }
    long double r = logl(total) + bl->mx;
    return r > 0.0L ? 0.0 : (double)r;
}

double sp_blanket_curve_log_delta(double eps, sp_direction direction, const void *ctx)
{
    (void)direction;
    return sp_blanket_log_delta((const sp_blanket *)ctx, eps);
}

typedef struct {
    const sp_vertex_sys *s;
    double n1, n2, depth;
} window_ctx;

static double window_fn(double eps, sp_direction direction, const void *ctx)
{
    (void)direction;
    const window_ctx *w = (const window_ctx *)ctx;
    double lower;
    if (eps < 0.0) {          /* mirrored law for the reverse direction */
        return sp_log_hockey_negative_eps(eps, two_binom_log_hockey(w->s, w->n2, w->n1, -eps,
                                                                   w->depth, &lower));
    }
    return two_binom_log_hockey(w->s, w->n1, w->n2, eps, w->depth, &lower);
}

double sp_vertex_window_smallest_eps(const sp_vertex_sys *s, double n1, double n2, double depth,
                                     double log_target, double log_tol)
{
    window_ctx w = {s, n1, n2, depth};
    return sp_smallest_eps_lean(window_fn, &w, SP_PLUS, log_target, log_tol, 0);
}

/* ---- the blanket's epsilon search ---------------------------------------- */

typedef struct {
    const sp_blanket *bl;
    double aim, root_aim;
} blanket_search;

/* sqrt(-aim) - sqrt(-ln delta): the sign of ln delta - aim, close to linear
 * in eps (as in sp_smallest_eps_lean) */
static double blanket_excess(double eps, const void *ctx)
{
    const blanket_search *s = (const blanket_search *)ctx;
    double v = sp_blanket_log_delta(s->bl, eps);
    if (isnan(v) || v == -INFINITY) {
        return v;
    }
    return (v - s->aim) / (s->root_aim + sqrt(-fmin(v, 0.0)));
}

static double mean_b_fn(double eps, sp_direction direction, const void *ctx)
{
    (void)direction;
    return (double)logl(blanket_H(*(const double *)ctx, eps));
}

double sp_blanket_smallest_eps(const sp_blanket *bl, double log_target, double log_tol)
{
    if (isnan(log_target) || isnan(log_tol) || !(log_target < 0.0) || !isfinite(log_target)
        || bl->p >= 0.5 || bl->len <= BLANKET_ALL_B) {
        return sp_smallest_eps_lean(sp_blanket_curve_log_delta, bl, SP_PLUS, log_target, log_tol, 0);
    }
    const double aim = sp_search_aim(log_target, log_tol);
    blanket_search s = {bl, aim, sqrt(-aim)};
    double glo = blanket_excess(0.0, &s);
    if (isnan(glo)) {
        return NAN;
    }
    if (!(glo > 0.0)) {
        return 0.0;
    }
    /* the start: the eps of the single law at the mean b (a few cheap
     * evaluations of one H), then a bracket around it widened 4-fold per
     * step; Illinois from there.  hi always has g(hi) <= 0: certified. */
    double m = floor(bl->N * 2.0 * bl->p);
    double x = sp_smallest_eps_lean(mean_b_fn, &m, SP_PLUS, aim, 0.0, 0);
    if (!(x > 0.0) || !isfinite(x)) {
        return sp_smallest_eps_lean(sp_blanket_curve_log_delta, bl, SP_PLUS, log_target, log_tol, 0);
    }
    double lo = 0.0, hi = INFINITY, ghi = -INFINITY, y = x, step = 1e-3;
    int up = -1;                  /* widen upward (g(x) > 0) or downward */
    for (int i = 0; i < 13 && !(isfinite(hi) && lo > 0.0); i++) {
        double gy = blanket_excess(y, &s);
        if (isnan(gy)) {
            return NAN;
        }
        if (gy > 0.0) {
            lo = y;
            glo = gy;
        } else {
            hi = y;
            ghi = gy;
        }
        if (up < 0) {
            up = gy > 0.0;
        }
        y = up ? x * (1.0 + step) : x / (1.0 + step);
        step *= 4.0;
    }
    if (!isfinite(hi) || !(lo > 0.0)) {
        return sp_smallest_eps_lean(sp_blanket_curve_log_delta, bl, SP_PLUS, log_target, log_tol, 0);
    }
    sp_illinois(blanket_excess, &s, &lo, &glo, &hi, &ghi, 4.0 * DBL_EPSILON, SP_SEARCH_MAX_EVALS);
    return isnan(glo) ? NAN : hi;
}
