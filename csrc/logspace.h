/* Log-space arithmetic shared by every kernel: logaddexp and log(1 - e^a)
 * without overflow, the sp_logsum running sum, fast exp/log of long doubles
 * (exponent split off exactly), double-double helpers (error-free sums and
 * products, comparisons of unevaluated sums), the log cumulative sums behind
 * the tail bounds, and the negative-eps identity of hockey-stick divergences.
 * Small helpers are static inline here so every kernel stays a pure,
 * allocation-free function; the rest is in logspace.c. */
#ifndef STATPRIV_LOGSPACE_H
#define STATPRIV_LOGSPACE_H

#include <float.h>
#include <math.h>

/* log(exp(a) + exp(b)) and log(1 - exp(a)) for a <= 0, without overflow;
 * sp_log1mexpl in extended precision. */
double sp_logaddexp(double a, double b);
double sp_log1mexp(double a);
long double sp_log1mexpl(long double a);

/* A bound on the absolute error of an atom's log ratio ln P/Q: ~4e-19
 * (1 + |lr|) for a closed form (closed != 0), ~1e-30 (1 + |lr|) where refined
 * (a non-zero low part lo), ~2e-19 (1 + |ln P| + |ln Q|) for a difference of
 * the laws' logs; INFINITY where that is not finite (the noise kernels'
 * deficit sums, where F = R Q expm1(ln P/Q - ln R) inherits it). */
double sp_atom_log_ratio_err(long double lr, long double lo, long double lp, long double lq,
                             int closed);

/* exp(x), the same double as libm's, without libm's underflow / overflow
 * path (errno and the exception, ~20 times slower than the exp itself):
 * 0 below -746 and inf above 710, where exp rounds to those anyway.  For
 * loops whose terms mostly lie far below their reference (the tails). */
static inline double sp_exp_quiet(double x)
{
    if (x < -746.0) {
        return 0.0;
    }
    if (x > 710.0) {
        return INFINITY;
    }
    return exp(x);
}

/* logaddexp in extended precision (m + log1p(e^-|a-b|)). */
static inline long double sp_logaddexpl(long double a, long double b)
{
    long double m = fmaxl(a, b);
    return m == -INFINITY ? -INFINITY : m + log1pl(expl(-fabsl(a - b)));
}

/* out[j] = ln sum_{i<=j} e^la[i] (or sum_{i>=j} with reverse != 0): the log
 * cdf / survival functions behind the remainder bounds. */
void sp_log_cumsum(const long double *la, long n, int reverse, long double *out);

/* H_eps(P||Q) = 1 - e^eps + e^eps H_{-eps}(Q||P): extends any eps >= 0
 * routine to eps < 0 without cancellation (all terms are non-negative);
 * returns ln H_eps(P||Q) from ln H_{-eps}(Q||P). */
double sp_log_hockey_negative_eps(double eps, double log_reverse_at_minus_eps);

/* w[k] = e^(la[k] - m), m = max_k la[k] (returned): atoms relative to the
 * largest in linear extended precision (long double reaches 1e-4951, far
 * below the e^-3000 the callers keep), so recursions over them are
 * multiplications and additions of positive numbers. */
long double sp_exp_scaled(const long double *la, long n, long double *w);

/* Error-free transformations (Dekker/Knuth; fma gives the exact product
 * error): hi + lo = a + b and hi + lo = a * b exactly. */
static inline void sp_two_sum(double a, double b, double *hi, double *lo)
{
    double s = a + b;
    double bb = s - a;
    *lo = (a - (s - bb)) + (b - bb);
    *hi = s;
}

static inline void sp_two_prod(double a, double b, double *hi, double *lo)
{
    *hi = a * b;
    *lo = fma(a, b, -*hi);
}

/* a >= b for unevaluated sums a_hi + a_lo, b_hi + b_lo (|lo| << |hi|). */
static inline int sp_dd_geq(long double a_hi, long double a_lo, long double b_hi, long double b_lo)
{
    if (isinf(a_hi) || isinf(b_hi)) {
        return a_hi >= b_hi;
    }
    return (a_hi - b_hi) + (a_lo - b_lo) >= 0.0L;
}

/* Running sum of exp(log terms) with a movable reference point, so terms from
 * e^-3000 to e^0 add without underflow and with one exp per term. */
typedef struct {
    long double ref;
    long double sum;
} sp_logsum;

/* The terms' logs are long double (see pair_tail.h), and a double
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
    a->sum += sp_exp_quiet((double)(log_term - a->ref));
}

/* Checkpoints of sp_log_cumsum: the running sum's state before every
 * SP_CUMSUM_STEP-th term in summation order, from which any out[j] of
 * sp_log_cumsum is recomputed bit for bit (the same additions in the same
 * order) with at most SP_CUMSUM_STEP terms.  Building them costs one exp
 * per term (no log, nothing written per term), and they take two long
 * doubles per SP_CUMSUM_STEP terms instead of one per term: for kernels
 * that read a cumulative sum at a few places per query (pair_tail.h). */
#define SP_CUMSUM_STEP 8
typedef struct {
    const long double *la;   /* the terms' logs, n of them (not owned) */
    long n;
    int reverse;             /* 0: sums of la[0..j]; else of la[j..n-1] */
    const sp_logsum *marks;  /* sp_log_cumsum_marks_len(n) states (not owned) */
} sp_log_cumsum_marks;

static inline long sp_log_cumsum_marks_len(long n)
{
    return n > 0 ? (n - 1) / SP_CUMSUM_STEP + 1 : 0;
}

/* marks[b] = the state of sp_log_cumsum's running sum before its term
 * number b * SP_CUMSUM_STEP (in summation order: from the right with
 * reverse); sp_log_cumsum_marks_len(n) of them. */
void sp_log_cumsum_mark(const long double *la, long n, int reverse, sp_logsum *marks);

/* sp_log_cumsum_mark from the left into fwd and from the right into rev
 * (either NULL: not wanted) in one pass over la, bit for bit as two calls. */
void sp_log_cumsum_mark_both(const long double *la, long n, sp_logsum *fwd, sp_logsum *rev);

/* out[j] of sp_log_cumsum(m->la, m->n, m->reverse, out), bit for bit, 0 <= j < n. */
long double sp_log_cumsum_at(const sp_log_cumsum_marks *m, long j);

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
    if (!(d >= -11500.0L && d <= 11500.0L)) {
        /* e^-11500 is below the smallest long double subnormal (2^-16445 =
         * e^-11399 in x87 format, 2^-16494 = e^-11433 in quad) and e^11500
         * above the largest: 0 and inf, which ldexpl below gives too, but
         * without converting a k beyond the range of int (undefined: a
         * Laplace sum at scale 1e-300 passed d = -2.9e323).  NaN stays NaN. */
        return isnan(d) ? d : (d < 0.0L ? 0.0L : (long double)INFINITY);
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

#endif
