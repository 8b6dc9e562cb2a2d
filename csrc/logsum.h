/* Small shared helpers for the kernels: a log-space running sum and index
 * clamping.  Header-only (static inline) so every kernel stays a pure,
 * allocation-free function. */
#ifndef STATPRIV_LOGSUM_H
#define STATPRIV_LOGSUM_H

#include <float.h>
#include <math.h>

/* Running sum of exp(log terms) with a movable reference point, so terms from
 * e^-3000 to e^0 add without underflow and with one exp per term. */
typedef struct {
    long double ref;
    long double sum;
} sp_logsum;

/* The terms' logs are long double (see shift_tail.h), and a double
 * reference would round them back to ~1e-14 at |ln| ~ 300.  Differences to
 * the reference are small and exact in long double, so their exp can be a
 * (fast) double exp without losing anything. */
static inline void sp_logsum_add(sp_logsum *a, long double log_term)
{
    if (log_term == -INFINITY) {
        return;
    }
    if (a->sum == 0.0L) {
        a->ref = log_term;
        a->sum = 1.0L;
        return;
    }
    if (log_term > a->ref + 600.0L) {
        a->sum *= exp((double)(a->ref - log_term));
        a->ref = log_term;
    }
    a->sum += exp((double)(log_term - a->ref));
}

/* ln of the sum, clamped at 0: every sum here is a probability, and clamping
 * the rounding of a sum that is 1 keeps the result conservative. */
static inline long double sp_logsum_log(const sp_logsum *a)
{
    return a->sum > 0.0L ? fminl(0.0L, a->ref + log((double)a->sum)) : -INFINITY;
}

/* x87 80-bit long double (64-bit mantissa): the exponent field is read and
 * written directly (2x faster than frexpl / roundl + ldexpl, same values);
 * other formats take the portable route. */
#if LDBL_MANT_DIG == 64 && defined(__x86_64__)
#define SP_LDBL_X87 1
typedef union {
    long double v;
    struct {
        unsigned long long mant;
        unsigned short sexp;
    } p;
} sp_ldbl_bits;
#else
#define SP_LDBL_X87 0
#endif

/* ln x for a long double x > 0 (any exponent), to ~1e-16 absolute: the
 * exponent is split off exactly, only the mantissa goes through double log. */
static inline long double sp_fast_logl(long double x)
{
#if SP_LDBL_X87
    sp_ldbl_bits u;
    u.v = x;
    if (x > 0.0L && x < INFINITY && u.p.sexp != 0) {
        const int e = (int)u.p.sexp - 16382;        /* x = mant * 2^e, mant in [0.5, 1) */
        u.p.sexp = 16382;
        return (long double)log((double)u.v) + (long double)e * 0.693147180559945309417232121458L;
    }
#endif
    int e;
    long double mant = frexpl(x, &e);
    return x > 0.0L ? (long double)log((double)mant) + (long double)e * 0.693147180559945309417232121458L
                    : (x == 0.0L ? -INFINITY : NAN);
}

/* e^d for long double d <= 0 down to ~-11000, to ~1e-16 relative: the
 * multiple of ln 2 is taken out exactly, only the remainder goes through
 * double exp. */
static inline long double sp_fast_expl(long double d)
{
    if (d == -INFINITY) {
        return 0.0L;
    }
    const long double ln2 = 0.693147180559945309417232121458L;
#if SP_LDBL_X87
    const double kd = floor((double)d * 1.4426950408889634 + 0.5);
    if (kd > -16000.0 && kd < 16000.0) {
        sp_ldbl_bits u;
        u.p.mant = 0x8000000000000000ULL;          /* 2^k exactly */
        u.p.sexp = (unsigned short)(16383 + (int)kd);
        return (long double)exp((double)(d - (long double)kd * ln2)) * u.v;
    }
#endif
    long double k = roundl(d / ln2);
    return ldexpl((long double)exp((double)(d - k * ln2)), (int)k);
}

/* The index of the atom nearest x, within [0, len-1]. */
static inline long sp_nearest_atom(double x, long len)
{
    double k = floor(x + 0.5);
    return k < 0.0 ? 0 : (k > (double)(len - 1) ? len - 1 : (long)k);
}

#endif
