#include <math.h>
#include "binomial_tail.h"
#include "logspace.h"
#include "xprec.h"

/* a b + c for long doubles to ~2^-64 of the result, as a fused multiply-add
 * gives it: Dekker's split product and Knuth's two-sum (xprec.h), exact up
 * to the last two roundings (the error terms' sum and the final add).
 * glibc's fmal on x87 long doubles is software that saves and restores the
 * floating-point environment (five fenv calls a call): 45% of a grid's delta
 * sweep at n = 1e6 went there. */
static long double fma_ext(long double a, long double b, long double c)
{
    const sp_qq product = sp_qq_two_prod(a, b);
    const sp_qq sum = sp_qq_two_sum(product.hi, c);
    return sum.hi + (sum.lo + product.lo);
}

/* Numerator of r(k) - e^eps for the shift S+1 vs S:
 *   r(k) = b(k-1)/b(k) = k q / ((n-k) p),  n = N + 1,
 *   k q - e^eps (n-k) p = (k q - (n-k) p) - (e^eps - 1)(n - k) p,
 * and k q - (n-k) p is k - n p, or equally n q - (n - k): the form with the
 * smaller of p, q is used, because that one is the exactly given pi (the
 * other may be 1 - pi rounded) and its rounding error ~2^-64 min(np, nq) is
 * the smaller.  Near the threshold both parts are ~ eps*n*p and cancel;
 * extended precision and a single-rounding fma keep the difference exact to
 * ~1e-19 relative to them, which is what makes delta accurate to 1e-12 at
 * n = 1e9. */
static long double shift_numerator(double k, double n, const sp_binom *b, long double em1)
{
    const long double p = b->p_ext, q = b->q_ext;
    long double base = p <= q ? fma_ext(-(long double)n, p, (long double)k)
                              : fma_ext((long double)n, q, (long double)k - (long double)n);
    return base - em1 * ((long double)(n - k) * p);
}

/* First k in [1, n] with r(k) > e^eps (n = N + 1), em1 = e^eps - 1; the
 * closed form is within one step, the exact numerator decides. */
static double shift_first_above(const sp_binom *b, double n, long double em1)
{
    const long double p = b->p_ext, q = b->q_ext;
    double k0 = floor((double)((1.0L + em1) * p * n / (q + (1.0L + em1) * p))) + 1.0;
    if (k0 < 1.0) {
        k0 = 1.0;
    }
    if (k0 > n) {
        k0 = n;
    }
    for (int guard = 0; guard < 4 && k0 < n && shift_numerator(k0, n, b, em1) <= 0.0L; guard++) {
        k0 += 1.0;
    }
    for (int guard = 0; guard < 4 && k0 > 1.0 && shift_numerator(k0 - 1.0, n, b, em1) > 0.0L; guard++) {
        k0 -= 1.0;
    }
    return k0;
}

/* The closed-form cases of the shift divergence (no sum needed): returns 1
 * and sets *out, or 0 when the sum from the threshold is needed. */
static int shift_closed_form(const sp_binom *b, double eps, double *out)
{
    const double N = b->N;
    if (b->p == 0.0) {
        *out = 0.0;             /* S = 0 surely: the count reveals the target */
        return 1;
    }
    /* The largest finite ratio is r(N) = N q / p; from eps = ln r(N) on only
     * the all-positive outcome k = n (out of Q's reach) counts: delta = p^N.
     * This also covers q = 0 (S = N surely) and q so small (mirrored law of a
     * tiny pi) that no other atom can pass the threshold.  The margin covers
     * the rounding of ln r(N); just below it the exact numerator decides. */
    if (b->q_ext == 0.0L || N == 0.0) {
        *out = N * b->log_p;
        return 1;
    }
    const double log_r_max = log(N) + b->log_q - b->log_p;
    if (eps > log_r_max + 0x1p-40 * (1.0 + fabs(log_r_max))) {
        *out = N * b->log_p;
        return 1;
    }
    return 0;
}

/* The sums of shift_sums where the terms vary slowly, by the Euler-Maclaurin
 * formula on the terms' continuation to real x (Loader's pmf is Stirling's
 * form of Gamma functions, analytic in k).  With the terms relative to
 * b(i0), i0 = k0 - 1,
 *   f(x) = beta(x) num(i0 + 1 + x) / ((i0 + 1 + x) q),  beta(x) = b(i0 + x) / b(i0),
 *   g(x) = beta(x + 1) = beta(x) (N - i0 - x) / (i0 + 1 + x) p / q
 * (b(k+1)/b(k) = (N-k)/(k+1) p/q holds for real k: Gamma(k+1)/Gamma(k+2) = 1/(k+1)),
 *   sum_{j=0..J-1} f(j) = int_0^J f + (f(0) - f(J))/2 - (f'(0) - f'(J))/12 + R,
 * |R| ~ f^(3)/720.  f varies on the scale s = sd / (1 + eps sd) (beta decays
 * at the rate -ln rho ~ 1/s, and sd is its Gaussian width), so f^(m) ~ f / s^m
 * while the sum is ~ s f: with s >= SHIFT_EM_MIN_SCALE = 2^16 the dropped
 * terms are below 1e-16 of the sum, f'(0) is taken as f(1) - f(0) (off by
 * f''(0)/2: ~1/s^3 of the sum after the 1/12), and f(J), f'(J) at the stop
 * (where beta is below 2^-60 of the sum) are left to the tail bound.  The
 * integral is 16-point Gauss-Legendre on panels of s/4 (error ~(1/4)^32 / 32!
 * of a panel's mass).  The tail from J on is bounded as in shift_sums:
 * t(k) <= b(k-1) and the ratios rho = b(k+1)/b(k) decrease, so both
 * sum_{j>=J} f(j) and sum_{j>=J} g(j) are <= beta(J) / (1 - rho(J)).
 * Cost: ~(42 s + 9 sd) / (s/4) panels of 16 nodes -- ~3000 of Loader's
 * terms at N = 1e15, against ~1.1e8 terms summed one by one.  Error: each
 * node carries the rounding of two of Loader's logs, |ln b| <= ~40 at ~3 ulps
 * each (~3e-14 relative); weights and sums add ~1e-16: within shift_sums'
 * own bound (binom_walk_log_hockey's comment).  Returns 0, or 1 where the
 * law's far end is within reach of the panels (the caller sums term by term). */
#define SHIFT_EM_MIN_SCALE 65536.0
#define SHIFT_EM_MAX_PANELS 20000
static const double GL16_NODE[8] = {
    0.095012509837637440185, 0.28160355077925891323, 0.45801677765722738634,
    0.61787624440264374845, 0.7554044083550030339, 0.86563120238783174388,
    0.94457502307323257608, 0.9894009349916499326};
static const double GL16_WEIGHT[8] = {
    0.18945061045506849629, 0.18260341504492358887, 0.16915651939500253819,
    0.14959598881657673208, 0.12462897125553387205, 0.09515851168249278481,
    0.062253523938647892863, 0.027152459411754094852};

typedef struct {
    const sp_binom *b;
    double i0, log_b0, num0, slope, qd, ratio_pq;
} shift_terms;

/* beta(x) at a real offset x >= 0.  i0 + x rounds to the double grid (1/32
 * at 1e14): a node moved by that shifts ln beta by ~1/(32 s), far more than
 * the precision kept, so Loader's term is taken at the rounded k and moved
 * back by the exact residual r = i0 + x - k times the slope
 * d ln b/dk = ln((N - k) p / (k q)) + O(1/k) (r^2 and r/k terms: < 1e-20). */
static double shift_term_beta(const shift_terms *c, long double x)
{
    const double k = (double)((long double)c->i0 + x);
    const long double r = x - ((long double)k - (long double)c->i0);
    const double log_slope = log((c->b->N - k) / k * c->ratio_pq);
    return exp(sp_log_binom_pmf(c->b, k) - c->log_b0 + (double)r * log_slope);
}

static void shift_term_fg(const shift_terms *c, long double x, double *f, double *g)
{
    const double beta = shift_term_beta(c, x);
    const double xd = (double)x, i = c->i0 + xd;
    *f = beta * ((c->num0 + xd * c->slope) / ((i + 1.0) * c->qd));
    *g = beta * ((c->b->N - i) / (i + 1.0) * c->ratio_pq);
}

static int shift_sums_smooth(const shift_terms *c, double scale, long double *t, long double *tb)
{
    const double N = c->b->N, sd = sp_binom_shift_sd(c->b);
    /* the panels stop ~42 s + 9 sd past i0 (2^-60 of exponential and
     * Gaussian decay); twice that must stay inside the support */
    if (N - c->i0 < 2.0 * (42.0 * scale + 10.0 * sd)) {
        return 1;
    }
    const double w = floor(scale / 4.0);       /* integer panels: every J is an atom */
    double f0, g0, f1, g1;
    shift_term_fg(c, 0.0L, &f0, &g0);
    shift_term_fg(c, 1.0L, &f1, &g1);
    /* the end corrections f(0)/2 - f'(0)/12, f'(0) ~ f(1) - f(0) */
    long double sum_f = 0.5L * f0 - (f1 - f0) / 12.0L;
    long double sum_g = 0.5L * g0 - (g1 - g0) / 12.0L;
    const double half = 0.5 * w;
    for (int panel = 0; panel < SHIFT_EM_MAX_PANELS; panel++) {
        const double mid = ((double)panel + 0.5) * w;      /* exact: w is an integer */
        double pf = 0.0, pg = 0.0;
        for (int node = 0; node < 8; node++) {
            /* the nodes in extended precision: rounded to double, a node
             * ~1e7 from i0 moves by ~1e-9, ~1e-14 of a term at s ~ 1e5 */
            const long double dx = (long double)half * (long double)GL16_NODE[node];
            double fa, ga, fb, gb;
            shift_term_fg(c, (long double)mid - dx, &fa, &ga);
            shift_term_fg(c, (long double)mid + dx, &fb, &gb);
            pf += GL16_WEIGHT[node] * (fa + fb);
            pg += GL16_WEIGHT[node] * (ga + gb);
        }
        sum_f += (long double)(half * pf);
        sum_g += (long double)(half * pg);
        /* the rest from J = (panel + 1) w on, bounded (both sums) */
        const double J = (double)(panel + 1) * w, i = c->i0 + J;
        const double rho = (N - i) / (i + 1.0) * c->ratio_pq;
        if (rho < 1.0) {
            const double bound = shift_term_beta(c, (long double)J) / (1.0 - rho);
            if (bound <= SP_TAIL_TOL * (double)sum_f) {
                *t = sum_f + bound;
                *tb = sum_g + bound;
                return 0;
            }
        }
    }
    return 1;
}

/* The sum from the threshold outward (see sp_binom_shift_log_hockey), with
 * the sums relative to b(k0 - 1) stored in *s; with want_b != 0 also the sum
 * of b(k) over k >= k0 (the eps-derivative of delta, used by the search).
 * Returns 1 with *closed = ln delta if a closed form applies (s unset). */
static int shift_sums(const sp_binom *b, double eps, long double em1, int want_b, sp_binom_sums *s,
                      double *closed)
{
    if (shift_closed_form(b, eps, closed)) {
        return 1;
    }
    const double N = b->N, n = N + 1.0;
    const long double p = b->p_ext, q = b->q_ext;
    const double k0 = shift_first_above(b, n, em1);
    if (k0 >= n) {
        *closed = N * b->log_p;     /* t(n) = b(N) - e^eps * 0 */
        return 1;
    }
    const double i0 = k0 - 1.0;
    const double log_b0 = sp_log_binom_pmf(b, i0);
    s->eps = eps;
    s->k0 = k0;
    s->log_b0 = log_b0;
    s->t = 0.0L;
    s->b = 0.0L;
    if (em1 == 0.0L && !want_b) {
        /* eps = 0: the terms b(k-1) - b(k), k >= k0, telescope to b(k0-1)
         * (b(N+1) = 0): the total variation distance, exactly. */
        s->t = 1.0L;
        return 0;
    }

    /* Sum t(k) = b(k-1) num(k) / (k q) over i = k-1 = k0-1 .. N, with b(i)
     * carried as beta * b(k0-1) and re-anchored on Loader's form at the start
     * of every block of 256 steps so the product of ratios never drifts.
     * num(k) grows linearly, num(k0 + j) = num(k0) + j (q + e^eps p): only
     * num(k0) needs extended precision, the increments are positive and add
     * without cancellation.  Each block is summed in double and the blocks in
     * long double: at n ~ 1e12 the sum has ~1e6 terms, and one double
     * accumulator picks up a rounding bias of ~4e-12 relative over them. */
    const double ratio_pq = (double)(p / q);
    const double num0 = (double)shift_numerator(k0, n, b, em1);
    const double slope = (double)(q + (1.0L + em1) * p);
    const double qd = (double)q;
    const double sd = sp_binom_shift_sd(b), scale = sd / (1.0 + eps * sd);
    if (scale >= SHIFT_EM_MIN_SCALE && i0 >= 64.0) {
        const shift_terms terms = {b, i0, log_b0, num0, slope, qd, ratio_pq};
        if (shift_sums_smooth(&terms, scale, &s->t, &s->b) == 0) {
            return 0;
        }
    }
    long double total = 0.0L, total_b = 0.0L;
    double beta = 1.0, i = i0;
    int done = 0;
    while (!done) {                 /* i advances by >= 16 per pass, up to N */
        if (i > i0) {
            beta = exp(sp_log_binom_pmf(b, i) - log_b0);
        }
        double block = 0.0, block_b = 0.0;
        for (int chunk = 0; chunk < 16; chunk++) {
            const double stop = fmin(N, i + 15.0);
            for (; i <= stop; i += 1.0) {
                double num = i == i0 ? num0 : num0 + (i - i0) * slope;   /* slope may be inf at i0 */
                block += beta * (num / ((i + 1.0) * qd));
                beta *= (N - i) / (i + 1.0) * ratio_pq;       /* beta ~ b(i+1) */
                if (want_b) {
                    block_b += beta;
                }
            }
            if (stop >= N) {
                done = 1;
                break;
            }
            /* Every term from i on is t(i+1) <= b(i), and the ratios
             * rho = b(i+1)/b(i) decrease along the tail: the rest is at most
             * b(i) / (1 - rho) (for both sums). */
            double rho = (N - i) / (i + 1.0) * ratio_pq;
            if (rho < 1.0) {
                double bound = beta / (1.0 - rho);
                if (bound <= SP_TAIL_TOL * (double)(total + block)) {
                    block += bound;     /* conservative: never under-report */
                    block_b += bound;
                    done = 1;
                    break;
                }
            }
        }
        total += block;
        total_b += block_b;
    }
    s->t = total;
    s->b = total_b;
    return 0;
}

double sp_binom_shift_log_hockey(const sp_binom *b, double eps)
{
    return sp_binom_shift_log_hockey_em1(b, eps, expm1l((long double)eps));
}

double sp_binom_shift_log_hockey_em1(const sp_binom *b, double eps, long double em1)
{
    sp_binom_sums s;
    double closed;
    if (shift_sums(b, eps, em1, 0, &s, &closed)) {
        return closed;
    }
    double sum = (double)s.t;
    /* delta <= 1: clamping the rounding of a sum that is 1 is still conservative */
    return sum > 0.0 ? fmin(0.0, s.log_b0 + log(sum)) : -INFINITY;
}

int sp_binom_shift_sums(const sp_binom *b, double eps, sp_binom_sums *s)
{
    double closed;
    return shift_sums(b, eps, expm1l((long double)eps), 1, s, &closed);
}

int sp_binom_shift_model(const sp_binom *b, const sp_binom_sums *at, double eps, long double *t,
                         long double *sb)
{
    double closed;
    if (!(eps > 0.0) || shift_closed_form(b, eps, &closed)) {
        return 1;
    }
    const double N = b->N, n = N + 1.0;
    const long double p = b->p_ext, q = b->q_ext;
    const long double em1 = expm1l((long double)eps);
    const double k0 = shift_first_above(b, n, em1);
    if (k0 >= n || fabs(k0 - at->k0) > SP_MODEL_MAX_CELLS) {
        return 1;
    }
    /* Same cells: delta(eps) - delta(x) = -(e^eps - e^x) sum_{k>=k0} b(k). */
    const long double du = expl((long double)at->eps) * expm1l((long double)eps - (long double)at->eps);
    if (fabsl(du * at->b) > 0.25L * at->t) {
        return 1;                   /* too far: the correction would cancel */
    }
    long double tt = at->t - du * at->b, bb = at->b;
    /* Cells that entered (k0 < at->k0) or left (k0 > at->k0) the positive
     * set: their terms b(k-1) - e^eps b(k), exact ratios from b(at->k0 - 1). */
    long double rel = 1.0L;         /* b(k) / b(at->k0 - 1) as k walks */
    for (double k = at->k0 - 1.0; k >= k0; k -= 1.0) {      /* rel = b(k) */
        long double prev = rel * (long double)k * q / ((long double)(N - k + 1.0) * p);
        tt += prev * shift_numerator(k, n, b, em1) / ((long double)k * q);
        bb += rel;
        rel = prev;
    }
    for (double k = at->k0; k < k0; k += 1.0) {            /* rel = b(k-1) */
        long double next = rel * (long double)(N - k + 1.0) / (long double)k * p / q;
        tt -= rel * shift_numerator(k, n, b, em1) / ((long double)k * q);   /* term <= 0 */
        bb -= next;
        rel = next;
    }
    *t = tt;
    *sb = bb;
    return 0;
}

/* A cheap approximation of ln H_eps(S+1 || S) for the search at huge N: the
 * sum of t(i0 + j) over j by the trapezoid rule with stride h (terms vary on
 * the scale sd / (1 + eps sd), sd = sqrt(N p q); h is 1/32 of it), with the
 * Euler-Maclaurin end corrections f(0)/2 and (h^2 - 1) f'(0) / 12.  Relative
 * error ~1e-9; NOT a bound -- only used to locate the answer, which the
 * search then settles on the exact sum. */
double sp_binom_shift_log_hockey_approx(const sp_binom *b, double eps)
{
    double closed;
    if (!(eps > 0.0) || shift_closed_form(b, eps, &closed)) {
        return sp_binom_shift_log_hockey(b, eps);
    }
    const double N = b->N, n = N + 1.0;
    const long double p = b->p_ext, q = b->q_ext;
    const long double em1 = expm1l((long double)eps);
    const double sd = sqrt(N * b->p * b->q);
    const double h = floor(sd / (1.0 + eps * sd) / 32.0);
    const double k0 = shift_first_above(b, n, em1);
    if (h < 2.0 || k0 >= n) {
        return sp_binom_shift_log_hockey(b, eps);
    }
    const double i0 = k0 - 1.0, log_b0 = sp_log_binom_pmf(b, i0);
    const double num0 = (double)shift_numerator(k0, n, b, em1);
    const double slope = (double)(q + (1.0L + em1) * p);
    const double qd = (double)q;
#define APPROX_TERM(j) (exp(sp_log_binom_pmf(b, i0 + (j)) - log_b0) \
                        * ((num0 + (j) * slope) / ((i0 + (j) + 1.0) * qd)))
    const double f0 = num0 / ((i0 + 1.0) * qd), f1 = APPROX_TERM(1.0);
    double sum = 0.0;
    for (double m = 1.0; m <= 1e6 && i0 + m * h <= N; m += 1.0) {
        double f = APPROX_TERM(m * h);
        sum += f;
        if (f <= 1e-20 * sum && m * h > sd / (1.0 + eps * sd)) {
            break;
        }
    }
#undef APPROX_TERM
    double total = h * (0.5 * f0 + sum) + 0.5 * f0 + (h * h - 1.0) * (f1 - f0) / 12.0;
    return total > 0.0 ? fmin(0.0, log_b0 + log(total)) : sp_binom_shift_log_hockey(b, eps);
}

double sp_binom_shift_sd(const sp_binom *b)
{
    return sqrt(b->N * b->p * b->q);
}

void sp_binom_curve_init(sp_binom_curve *c, double N, double pi)
{
    sp_binom_init(&c->plus, N, pi, 0);
    sp_binom_init(&c->minus, N, pi, 1);
}

static double binom_direction(const sp_binom_curve *c, double eps, sp_direction direction)
{
    const sp_binom *fwd = direction == SP_PLUS ? &c->plus : &c->minus;
    const sp_binom *rev = direction == SP_PLUS ? &c->minus : &c->plus;
    if (eps >= 0.0) {
        return sp_binom_shift_log_hockey(fwd, eps);
    }
    return sp_log_hockey_negative_eps(eps, sp_binom_shift_log_hockey(rev, -eps));
}

double sp_binom_curve_log_delta(double eps, sp_direction direction, const void *ctx)
{
    const sp_binom_curve *c = ctx;
    if (direction != SP_MAX) {
        return binom_direction(c, eps, direction);
    }
    return fmax(binom_direction(c, eps, SP_PLUS), binom_direction(c, eps, SP_MINUS));
}

/* The walk of sp_binom_curve_log_delta_ascending: the exact sums at an
 * anchor eps x (relative to b(k0x - 1), k0x the anchor's threshold) and the
 * cells k0x .. k - 1 that left the positive set since, their terms
 * b(k-1) - e^eps b(k) = b(k-1) (base(k) - (e^eps - 1)(n - k) p) / (k q)
 * (base(k) = k q - (n - k) p) kept as two sums so that any later eps reads
 * them without walking again. */
typedef struct {
    int valid;
    sp_binom_sums at;
    long double exp_x;          /* e^x */
    double k;                   /* the first cell still positive */
    long double rel;            /* b(k - 1) / b(k0x - 1) */
    long double removed_base;   /* sum of b(k'-1) base(k') / (k' q) / b(k0x - 1) */
    long double removed_em1;    /* sum of b(k'-1) (n - k') p / (k' q) / b(k0x - 1) */
} binom_walk;

/* A re-anchor after this many cells: rel is a product of ratios, each
 * rounded to ~3 x 2^-64, so it drifts by at most 4096 x 3 x 2^-64 = 6.7e-16
 * relative over them. */
#define BINOM_WALK_MAX_CELLS 4096.0

/* ln delta at eps >= 0 (finite, not below the walk's last eps) from the
 * walk, anchoring it anew at eps where the walk cannot reach.  The error
 * against the truth: the anchor's sums T = sum_{k>=k0x} t_x(k) (t_x(k) =
 * b(k-1) - e^x b(k) > 0) and B = sum_{k>=k0x} b(k) carry the exact kernel's
 * relative error rho (all terms and partial sums positive); the value is
 * t = T - du B - R (du = e^eps - e^x >= 0, R the left cells' terms at eps,
 * evaluated afresh in long double: ~1e-18 of them), so its error is at most
 * rho (T + du B) + 1e-18 (T + du B), and the walk goes on only while
 * 3 t >= T + du B: a relative error of at most 3 rho.  rho is that of
 * shift_sums: ratios over 256 steps at ~3 x 2^-53 each (8.5e-14), the
 * re-anchoring exp of Loader's terms (~30 x 2^-53 at |ln b| <= 30: 3.3e-15)
 * and double block sums of 256 terms (2.8e-14): ~1.2e-13 in the worst case,
 * so 3 rho = 3.6e-13 < CURVE_RELATIVE_ERROR = 1e-12 (statpriv.laws.grid_pld),
 * the error the connect-the-dots measures allow every grid value. */
static double binom_walk_log_hockey(const sp_binom *b, double eps, binom_walk *w)
{
    const double N = b->N, n = N + 1.0;
    const long double p = b->p_ext, q = b->q_ext;
    double closed;
    if (!(eps > 0.0) || shift_closed_form(b, eps, &closed)) {
        w->valid = 0;
        return sp_binom_shift_log_hockey(b, eps);
    }
    const long double em1 = expm1l((long double)eps);
    for (int attempt = 0; attempt < 2; attempt++) {
        if (!w->valid) {
            if (shift_sums(b, eps, em1, 1, &w->at, &closed)) {
                return closed;
            }
            w->valid = 1;
            w->exp_x = 1.0L + em1;
            w->k = w->at.k0;
            w->rel = 1.0L;
            w->removed_base = 0.0L;
            w->removed_em1 = 0.0L;
            double sum = (double)w->at.t;
            return sum > 0.0 ? fmin(0.0, w->at.log_b0 + log(sum)) : -INFINITY;
        }
        /* (a threshold further than the cap is anchored at once, not walked to;
         * nor is one further than 64 cells + 2 of the terms' scale sd / (1 +
         * eps sd) (sp_binom_shift_log_hockey_approx): a walked cell (long
         * double divisions) costs several of the exact sum's double terms, and
         * that far the walk's value has mostly left its 3t bound anyway --
         * walking 4096 cells to find that cost 0.6 ms a point at N = 1e8) */
        const double sd = sp_binom_shift_sd(b);
        const double reach = fmin(BINOM_WALK_MAX_CELLS, 64.0 + 2.0 * sd / (1.0 + eps * sd));
        if (shift_first_above(b, n, em1) - w->k > reach) {
            w->valid = 0;
            continue;
        }
        const long double du = w->exp_x * expm1l((long double)eps - (long double)w->at.eps);
        /* cells whose numerator is <= 0 at eps left the positive set (the
         * numerator grows with k: they are the lowest ones) */
        while (w->k < n && w->k - w->at.k0 < BINOM_WALK_MAX_CELLS
               && shift_numerator(w->k, n, b, em1) <= 0.0L) {
            const double k = w->k;
            const long double kq = (long double)k * q;
            w->removed_base += w->rel * shift_numerator(k, n, b, 0.0L) / kq;
            w->removed_em1 += w->rel * ((long double)(n - k) * p) / kq;
            w->rel *= (long double)(N - k + 1.0) / (long double)k * p / q;    /* b(k) */
            w->k = k + 1.0;
        }
        const long double t = w->at.t - du * w->at.b - (w->removed_base - em1 * w->removed_em1);
        if (w->k >= n || w->k - w->at.k0 >= BINOM_WALK_MAX_CELLS
            || !(3.0L * t >= w->at.t + du * w->at.b)) {
            w->valid = 0;           /* too far (the bound above): anchor here */
            continue;
        }
        double sum = (double)t;
        return sum > 0.0 ? fmin(0.0, w->at.log_b0 + log(sum)) : -INFINITY;
    }
    return sp_binom_shift_log_hockey(b, eps);      /* not reached: the anchor returns */
}

void sp_binom_curve_log_delta_ascending(const sp_binom_curve *c, const double *eps, long n,
                                        sp_direction direction, double *out)
{
    binom_walk walk;
    walk.valid = 0;
    const sp_binom *fwd = direction == SP_MINUS ? &c->minus : &c->plus;
    double last = -INFINITY;
    for (long i = 0; i < n; i++) {
        const double e = eps[i];
        if (direction == SP_MAX || !(e >= last) || !(e >= 0.0) || !isfinite(e)) {
            walk.valid = 0;
            out[i] = sp_binom_curve_log_delta(e, direction, c);
        } else {
            out[i] = binom_walk_log_hockey(fwd, e, &walk);
        }
        if (e == e) {
            last = e;
        }
    }
}
