#include <math.h>
#include "dp_renyi.h"

/* The error bound of a value summed from terms of these magnitudes: 2^-59
 * relative to their sum, ~30 ulps of long double (each term takes ~10
 * operations of <= 1 ulp, libm's expm1l/log1pl included). */
#define SP_RENYI_REL_ERR 0x1p-59L

/* f1(z) = z + e^(-z) - 1 = sum_{k>=2} (-z)^k / k!  (>= 0): the series for
 * |z| < 1/2 (terms fall by |z|/k: 20 terms reach 2^-70), else expm1l, whose
 * cancellation costs at most a factor z / f1(z) <= 5 there. */
static long double f1(long double z)
{
    if (fabsl(z) < 0.5L) {
        long double term = z * z / 2.0L, sum = 0.0L;
        for (int k = 3; k < 40 && term != 0.0L; k++) {
            sum += term;
            term *= -z / k;
        }
        return sum;
    }
    return z + expm1l(-z);
}

/* f2(x) = ln(1 + x) - x  (<= 0), x > -1.  Near 0 by u = x/(2 + x):
 * ln(1 + x) = 2 atanh(u), so f2 = -x^2/(2 + x) + 2 (u^3/3 + u^5/5 + ...),
 * |u| <= 1/3 for |x| < 1/2 (terms fall by u^2 <= 1/9: 25 terms reach
 * 2^-79); else log1pl, losing at most a factor x / |f2(x)| <= 6 there. */
static long double f2(long double x)
{
    if (fabsl(x) < 0.5L) {
        const long double u = x / (2.0L + x), u2 = u * u;
        long double power = u * u2, sum = 0.0L;
        for (int k = 3; k < 60 && power != 0.0L; k += 2) {
            sum += power / k;
            power *= u2;
        }
        return -x * x / (2.0L + x) + 2.0L * sum;
    }
    return log1pl(x) - x;
}

/* out = (double) value, certain = whether every real within err of value
 * rounds to that same double. */
static void certify(long double value, long double err, double *out, int *certain)
{
    *out = (double)value;
    *certain = isfinite(value) && (double)(value - err) == (double)(value + err);
}

void sp_dp_renyi_laplace(const double *alpha, long n, double b, double *out, int *certain)
{
    const long double t = 1.0L / (long double)b;
    for (long i = 0; i < n; i++) {
        const long double a = alpha[i];
        if (a == INFINITY) {            /* the largest loss 1/b, correctly rounded */
            out[i] = 1.0 / b;
            certain[i] = 1;
            continue;
        }
        long double t1, t2;
        if (a == 1.0L) {                /* KL = 1/b + e^(-1/b) - 1 */
            t1 = f1(t);
            t2 = 0.0L;
        } else if (a == 0.5L) {         /* the limit: t - 2 ln(1 + t/2) */
            t1 = 0.0L;
            t2 = -2.0L * f2(0.5L * t);
        } else {
            const long double am1 = a - 1.0L, tam1 = 2.0L * a - 1.0L;
            const long double z = tam1 * t;
            t1 = f1(z) / tam1;
            t2 = f2(-am1 * (-expm1l(-z) / tam1)) / am1;
        }
        certify(t1 + t2, SP_RENYI_REL_ERR * (fabsl(t1) + fabsl(t2)),
                &out[i], &certain[i]);
    }
}

void sp_dp_renyi_geometric(const double *alpha, long n, double g, double *out, int *certain)
{
    const long double gl = g;
    const long double big_l = -logl(gl);
    const long double ratio = (1.0L - gl) / (1.0L + gl);
    for (long i = 0; i < n; i++) {
        const long double a = alpha[i];
        long double t0, t1 = 0.0L, t2 = 0.0L;
        if (a == INFINITY) {            /* the largest loss -ln g */
            t0 = big_l;
        } else {
            t0 = big_l * ratio;         /* the KL divergence; the rest vanishes at a = 1 */
            if (a != 1.0L) {
                const long double am1 = a - 1.0L, w = 2.0L * am1 * big_l;
                t1 = gl * f1(w) / ((1.0L + gl) * am1);
                t2 = f2(gl * expm1l(-w) / (1.0L + gl)) / am1;
            }
        }
        certify(t0 + t1 + t2,
                SP_RENYI_REL_ERR * (fabsl(t0) + fabsl(t1) + fabsl(t2)),
                &out[i], &certain[i]);
    }
}
