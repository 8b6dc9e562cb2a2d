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
    s->lq1 = (double)log1pl(-q0);
    s->a_lo = 0.0;
    s->a_hi = N;
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

double sp_vertex_log_hockey(const sp_vertex_sys *s, double a, double eps)
{
    const double N = s->N;
    const long double p = s->pe, q = s->qe;
    const long double q0 = s->q0, d = s->d;
    if (isnan(eps) || isnan(a)) {
        return NAN;
    }
    const long double lcN = (long double)a * s->lp + (long double)(N - a) * s->lq;  /* ln c_N */
    if (eps == INFINITY) {
        /* the mass of P where Q has none: P(N + 1) = q1 c_N if q0 = 0 */
        return q0 > 0.0L ? -INFINITY : (double)((long double)s->lq1 + lcN);
    }
    const long double em1 = expm1l((long double)eps);
    const long double A = d - em1 * q0;                  /* q1 - e^eps q0 */
    const long double B = d + em1 * (1.0L - q0);         /* e^eps (1 - q0) - (1 - q1) */
    if (!(A > 0.0L)) {
        return -INFINITY;                                /* P / Q <= e^eps everywhere */
    }
    if (N == 0.0) {
        return (double)logl(A);
    }
    const long double pq = p * q, D = p * p + q * q;
    const long double C = (long double)a * p * p + (long double)(N - a) * q * q;
    double ks = ceil((double)(C / D));
    if (ks < 1.0) {
        ks = 1.0;
    }
    if (ks > N) {
        ks = N;
    }
    const long split = (long)ks;
    const long Ni = (long)N;

    /* Upward: c_0 = q^a p^(N-a) (scale), c_1 / c_0 = a p/q + (N-a) q/p;
     * terms k = 1..split. */
    vsum up = {-INFINITY, 0.0L};
    long double scale = (long double)a * s->lq + (long double)(N - a) * s->lp;
    long double prev = 1.0L;
    long double cur = (long double)a * (p / q) + (long double)(N - a) * (q / p);
    long double t = A * prev - B * cur;
    if (t > 0.0L) {
        up.sum += t;
    }
    for (long k = 1; k < split; k++) {
        long double next = ((C - D * (long double)k) * cur + pq * (long double)(Ni - k + 1) * prev)
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

    /* Downward: c_N (scale), c_{N-1} / c_N = a q/p + (N-a) p/q; terms
     * k = N+1 (A c_N) and k = N..split+1. */
    vsum dn = {-INFINITY, 0.0L};
    scale = lcN;
    long double nxt = 1.0L;                              /* c_{k+1} */
    long double at = (long double)a * (q / p) + (long double)(N - a) * (p / q);   /* c_k, k = N-1 */
    dn.sum = A;
    if (Ni >= split + 1) {
        t = A * at - B * nxt;                            /* term N */
        if (t > 0.0L) {
            dn.sum += t;
        }
    }
    for (long k = Ni - 1; k >= split + 1; k--) {
        long double below = (pq * (long double)(k + 1) * nxt - (C - D * (long double)k) * at)
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
    long double r = sp_logaddexpl(up.tot, dn.tot);
    return r > 0.0L ? 0.0 : (double)r;
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
    long double budget;        /* per block: P(block)/Pmax (H(b) - H(e)) allowed */
    long double U, L;
    int depth_fail;
} blanket_ctx;

static void blanket_block(blanket_ctx *c, double b, double e, long double Hb, long double He, int depth)
{
    const long double P = c->cum[(long)(e - c->lo) + 1] - c->cum[(long)(b - c->lo)];
    if (e == b || P * (Hb - He) <= c->budget || depth > 60) {
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

double sp_blanket_log_delta(double N, double p, double eps, double rel_tol, long double *work,
                            long work_len)
{
    if (isnan(eps)) {
        return NAN;
    }
    if (eps < 0.0) {
        return sp_log_hockey_negative_eps(eps, sp_blanket_log_delta(N, p, -eps, rel_tol, work,
                                                                    work_len));
    }
    if (p >= 0.5) {               /* every record is a fair coin: b = N surely */
        sp_binom law;
        sp_binom_init(&law, N, 0.5, 0);
        return sp_binom_shift_log_hockey(&law, eps);
    }
    double lo, hi;
    blanket_window(N, p, &lo, &hi);
    const long len = (long)(hi - lo) + 1;
    if (work_len < 2 * (len + 1)) {
        return NAN;
    }
    long double *lw = work, *cum = work + len + 1;
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
    blanket_ctx c = {cum, lo, eps, 0.0L, 0.0L, 0.0L, 0};
    if (len <= BLANKET_ALL_B) {
        for (long i = 0; i < len; i++) {
            long double P = cum[i + 1] - cum[i];
            long double H = blanket_H(lo + (double)i, eps);
            c.U += P * H;
        }
    } else {
        /* a proven lower bound of the sum (H non-increasing): the mass up to
         * the middle of the window times H there; blocks split until each
         * adds at most rel_tol * L0 / 64 beyond its lower sum */
        double mid = floor(0.5 * (lo + hi));
        long double Hmid = blanket_H(mid, eps);
        long double L0 = cum[(long)(mid - lo) + 1] * Hmid;
        c.budget = (long double)rel_tol * L0 / 64.0L;
        blanket_block(&c, lo, hi, blanket_H(lo, eps), blanket_H(hi, eps), 0);
    }
    /* outside mass: H <= 1 */
    long double total = c.U + rest;
    if (!(total > 0.0L)) {
        return -INFINITY;
    }
    long double r = logl(total) + mx;
    return r > 0.0L ? 0.0 : (double)r;
}
