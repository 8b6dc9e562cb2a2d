/* Doubled long-double arithmetic with a separate binary exponent, for the
 * construction-time refinements of log ratios (thresholding.c,
 * k_anonymity.c): positive pmf values far outside any float range, carried
 * to ~2^-2p relative (p = LDBL_MANT_DIG: ~1e-38 with x87 long doubles), and
 * their logs to ~1e-37 absolute.
 *
 * sp_qq  hi + lo, |lo| <= ulp(hi)/2 (an unevaluated sum of long doubles);
 * sp_xq  (hi + lo) * 2^e with 0.5 <= |hi| < 1, or zero (hi = lo = 0).
 * Every operation is built from the error-free transformations (Knuth's
 * two-sum, Dekker's split product: exact for any binary format with
 * round-to-nearest, the compiler contracting nothing under -std=c99) and
 * renormalised, so a product or quotient loses ~2 units of 2^-2p and a sum
 * of same-sign terms ~2.  Logs: ln(m 2^e) = e ln 2 + 2 atanh(s) with
 * s = (m - 1)/(m + 1), m in [1/sqrt 2, sqrt 2), the series (Horner, from a
 * caller's table of 1/(2j+1)) cut where its terms fall below 2^-2p; ln 2 as
 * three doubles (159 bits).
 * Everything is static inline, pure and allocation-free.
 * Layer: uses logspace.h (the x87 exponent access). */
#ifndef STATPRIV_XPREC_H
#define STATPRIV_XPREC_H

#include <float.h>
#include <math.h>
#include "logspace.h"

typedef struct {
    long double hi, lo;
} sp_qq;

typedef struct {
    sp_qq m;
    long e;
} sp_xq;

/* Dekker's splitter for the long double format: 2^ceil(p/2) + 1. */
#define SP_QQ_SPLIT ((long double)(1ULL << ((LDBL_MANT_DIG + 1) / 2)) + 1.0L)
/* 2^-2p: the relative size of a term that no longer moves a sum */
#define SP_QQ_EPS (LDBL_EPSILON * LDBL_EPSILON * 0.25L)

static inline sp_qq sp_qq_two_sum(long double a, long double b)
{
    sp_qq r;
    long double s = a + b, bb = s - a;
    r.lo = (a - (s - bb)) + (b - bb);
    r.hi = s;
    return r;
}

static inline sp_qq sp_qq_fast_two_sum(long double a, long double b)    /* |a| >= |b| */
{
    sp_qq r;
    r.hi = a + b;
    r.lo = b - (r.hi - a);
    return r;
}

static inline sp_qq sp_qq_two_prod(long double a, long double b)
{
    sp_qq r;
    long double t = SP_QQ_SPLIT * a, ah = t - (t - a), al = a - ah;
    t = SP_QQ_SPLIT * b;
    long double bh = t - (t - b), bl = b - bh;
    r.hi = a * b;
    r.lo = ((ah * bh - r.hi) + ah * bl + al * bh) + al * bl;
    return r;
}

static inline sp_qq sp_qq_add(sp_qq a, sp_qq b)
{
    sp_qq s = sp_qq_two_sum(a.hi, b.hi), t = sp_qq_two_sum(a.lo, b.lo);
    s.lo += t.hi;
    s = sp_qq_fast_two_sum(s.hi, s.lo);
    s.lo += t.lo;
    return sp_qq_fast_two_sum(s.hi, s.lo);
}

static inline sp_qq sp_qq_neg(sp_qq a)
{
    a.hi = -a.hi;
    a.lo = -a.lo;
    return a;
}

static inline sp_qq sp_qq_mul(sp_qq a, sp_qq b)
{
    sp_qq p = sp_qq_two_prod(a.hi, b.hi);
    p.lo += a.hi * b.lo + a.lo * b.hi;
    return sp_qq_fast_two_sum(p.hi, p.lo);
}

static inline sp_qq sp_qq_mul_ld(sp_qq a, long double b)
{
    sp_qq p = sp_qq_two_prod(a.hi, b);
    p.lo += a.lo * b;
    return sp_qq_fast_two_sum(p.hi, p.lo);
}

/* a / b (b != 0): three quotient digits with exact remainders */
static inline sp_qq sp_qq_div(sp_qq a, sp_qq b)
{
    const long double q1 = a.hi / b.hi;
    sp_qq r = sp_qq_add(a, sp_qq_neg(sp_qq_mul_ld(b, q1)));
    const long double q2 = r.hi / b.hi;
    r = sp_qq_add(r, sp_qq_neg(sp_qq_mul_ld(b, q2)));
    const long double q3 = r.hi / b.hi;
    sp_qq q = sp_qq_fast_two_sum(q1, q2);
    sp_qq c = {q3, 0.0L};
    return sp_qq_add(q, c);
}

static inline sp_qq sp_qq_from(long double x)
{
    sp_qq r = {x, 0.0L};
    return r;
}

/* The reciprocals 1/(2j+1), j < SP_QQ_TERMS, of the atanh series: filled
 * once per sweep by the caller (no global state), read by every log. */
#define SP_QQ_TERMS 96
typedef struct {
    sp_qq inv[SP_QQ_TERMS];
} sp_qq_logtab;

static inline void sp_qq_logtab_init(sp_qq_logtab *t)
{
    for (int j = 0; j < SP_QQ_TERMS; j++) {
        t->inv[j] = sp_qq_div(sp_qq_from(1.0L), sp_qq_from((long double)(2 * j + 1)));
    }
}

/* 2 atanh(s) = ln((1 + s)/(1 - s)) for |s| <= ~0.3, to ~2^-2p relative:
 * 2 s sum_j s^2j / (2j+1) by Horner, as many terms as s^2j needs to fall
 * below 2^-2p (at most SP_QQ_TERMS: |s| <= 0.3 needs < 40).  The terms from
 * s^2j <= 2^-(p+4) on are summed in plain long double: their rounding is
 * below 2^-(2p+4) of the sum. */
static inline sp_qq sp_qq_atanh2(sp_qq s, const sp_qq_logtab *t)
{
    const sp_qq s2 = sp_qq_mul(s, s);
    const long double tail_at = LDBL_EPSILON * 0.0625L;
    int n = 0, split = -1;
    for (long double p = 1.0L; p > SP_QQ_EPS && n < SP_QQ_TERMS - 1; n++) {
        if (split < 0 && p <= tail_at) {
            split = n;
        }
        p *= s2.hi;
    }
    if (split < 0) {
        split = n;
    }
    long double tail = t->inv[n].hi;
    for (int j = n - 1; j >= split; j--) {
        tail = tail * s2.hi + t->inv[j].hi;
    }
    sp_qq sum = {tail, 0.0L};
    for (int j = split - 1; j >= 0; j--) {
        sum = sp_qq_add(sp_qq_mul(sum, s2), t->inv[j]);
    }
    sum = sp_qq_mul(sum, s);
    return sp_qq_add(sum, sum);
}

/* ln(1 + x) for |x| <= 0.45: 2 atanh(x / (2 + x)), relatively accurate */
static inline sp_qq sp_qq_log1p_small(sp_qq x, const sp_qq_logtab *t)
{
    return sp_qq_atanh2(sp_qq_div(x, sp_qq_add(x, sp_qq_from(2.0L))), t);
}

/* e * ln 2 to ~2^-2p relative (ln 2 = L1 + L2 + L3, three doubles) */
static inline sp_qq sp_qq_ln2_times(long e)
{
    const double L1 = 0x1.62e42fefa39efp-1, L2 = 0x1.abc9e3b39803fp-56,
                 L3 = 0x1.7b57a079a1934p-111;
    const long double x = (long double)e;
    sp_qq r = sp_qq_mul_ld(sp_qq_from((long double)L1), x);
    r = sp_qq_add(r, sp_qq_mul_ld(sp_qq_from((long double)L2), x));
    return sp_qq_add(r, sp_qq_mul_ld(sp_qq_from((long double)L3), x));
}

/* --- scaled values ---------------------------------------------------- */

/* 2^k exactly, |k| < 16000 (the x87 format is written directly: 3x faster
 * than ldexpl in the per-atom loops). */
static inline long double sp_pow2l(long k)
{
#if SP_LDBL_X87
    sp_ldbl_bits u;
    u.v = 0.0L;
    u.p.mant = 0x8000000000000000ULL;
    u.p.sexp = (unsigned short)(16383 + k);
    return u.v;
#else
    return ldexpl(1.0L, (int)k);
#endif
}

/* the binary exponent k of x != 0 finite with |x| / 2^k in [0.5, 1) */
static inline long sp_expl(long double x)
{
#if SP_LDBL_X87
    sp_ldbl_bits u;
    u.v = x;
    const int field = u.p.sexp & 0x7fff;
    if (field != 0) {
        return (long)field - 16382;
    }
#endif
    int k;
    (void)frexpl(x, &k);
    return k;
}

static inline sp_xq sp_xq_norm(sp_qq m, long e)
{
    sp_xq r;
    if (m.hi == 0.0L) {
        r.m.hi = r.m.lo = 0.0L;
        r.e = 0;
        return r;
    }
    const long k = sp_expl(m.hi);
    if (k > -16000 && k < 16000) {
        const long double scale = sp_pow2l(-k);
        r.m.hi = m.hi * scale;
        r.m.lo = m.lo * scale;
    } else {
        r.m.hi = ldexpl(m.hi, (int)-k);
        r.m.lo = ldexpl(m.lo, (int)-k);
    }
    r.e = e + k;
    return r;
}

static inline sp_xq sp_xq_from(long double x)
{
    return sp_xq_norm(sp_qq_from(x), 0);
}

static inline int sp_xq_is_zero(sp_xq a)
{
    return a.m.hi == 0.0L;
}

static inline sp_xq sp_xq_mul(sp_xq a, sp_xq b)
{
    if (sp_xq_is_zero(a) || sp_xq_is_zero(b)) {
        return sp_xq_from(0.0L);
    }
    return sp_xq_norm(sp_qq_mul(a.m, b.m), a.e + b.e);
}

static inline sp_xq sp_xq_mul_qq(sp_xq a, sp_qq b)
{
    return sp_xq_mul(a, sp_xq_norm(b, 0));
}

static inline sp_xq sp_xq_div(sp_xq a, sp_xq b)      /* b != 0 */
{
    if (sp_xq_is_zero(a)) {
        return a;
    }
    return sp_xq_norm(sp_qq_div(a.m, b.m), a.e - b.e);
}

/* a + b (any signs); a term below 2^-(2p+8) of the other is dropped. */
static inline sp_xq sp_xq_add(sp_xq a, sp_xq b)
{
    if (sp_xq_is_zero(a)) {
        return b;
    }
    if (sp_xq_is_zero(b)) {
        return a;
    }
    if (a.e < b.e) {
        sp_xq t = a;
        a = b;
        b = t;
    }
    const long d = a.e - b.e;
    if (d > 2 * LDBL_MANT_DIG + 8) {
        return a;
    }
    const long double scale = sp_pow2l(-d);
    sp_qq bm = {b.m.hi * scale, b.m.lo * scale};
    return sp_xq_norm(sp_qq_add(a.m, bm), a.e);
}

static inline sp_xq sp_xq_neg(sp_xq a)
{
    a.m = sp_qq_neg(a.m);
    return a;
}

/* a^n, n >= 0 (0^0 = 1), by repeated squaring */
static inline sp_xq sp_xq_pow(sp_xq a, unsigned long n)
{
    sp_xq r = sp_xq_from(1.0L);
    while (n > 0) {
        if (n & 1UL) {
            r = sp_xq_mul(r, a);
        }
        n >>= 1;
        if (n > 0) {
            a = sp_xq_mul(a, a);
        }
    }
    return r;
}

/* The value as an sp_qq (underflows to 0 / overflows to inf like ldexpl). */
static inline sp_qq sp_xq_to_qq(sp_xq a)
{
    const long e = a.e > 100000 ? 100000 : (a.e < -100000 ? -100000 : a.e);
    sp_qq r = {ldexpl(a.m.hi, (int)e), ldexpl(a.m.lo, (int)e)};
    return r;
}

/* ln a for a > 0, to ~2^-2p absolute (plus |e| 2^-2p ln 2). */
static inline sp_qq sp_xq_log(sp_xq a, const sp_qq_logtab *t)
{
    sp_qq m = a.m;
    long e = a.e;
    if (m.hi < 0.70710678118654752440L) {
        m.hi *= 2.0L;
        m.lo *= 2.0L;
        e -= 1;
    }
    /* m in [1/sqrt 2, sqrt 2): m - 1 is exact (Sterbenz) */
    sp_qq x = sp_qq_add(sp_qq_from(m.hi - 1.0L), sp_qq_from(m.lo));
    return sp_qq_add(sp_qq_ln2_times(e), sp_qq_log1p_small(x, t));
}

/* ln(1 + x) for x > -1, relatively accurate where |x| is small. */
static inline sp_qq sp_xq_log1p(sp_xq x, const sp_qq_logtab *t)
{
    if (sp_xq_is_zero(x)) {
        return sp_qq_from(0.0L);
    }
    if (x.e <= -2 || (x.e <= -1 && fabsl(x.m.hi) < 0.875L)) {
        return sp_qq_log1p_small(sp_xq_to_qq(x), t);           /* |x| < 0.4375 */
    }
    return sp_xq_log(sp_xq_add(x, sp_xq_from(1.0L)), t);
}

/* (hi, lo) long doubles of a - b for an sp_qq a and a long double b. */
static inline long double sp_qq_minus_ld(sp_qq a, long double b)
{
    sp_qq d = sp_qq_add(a, sp_qq_from(-b));
    return d.hi + d.lo;
}

#endif
