#include <math.h>
#include "pmf.h"
#include "logspace.h"
#include "ldmath.h"

#define LN_SQRT_2PI 0.918938533204672741780329736406

/* stirlerr(m) for m = 0..50, from mpmath at 40 digits (0 is a placeholder:
 * callers never need it because b(0) and b(N) are handled directly). */
static const double STIRLERR_TABLE[51] = {
    0.0, /* 0 */
    0.08106146679532725821967026, /* 1 */
    0.04134069595540929409382208, /* 2 */
    0.02767792568499833914878929, /* 3 */
    0.02079067210376509311152277, /* 4 */
    0.01664469118982119216319487, /* 5 */
    0.01387612882307074799874573, /* 6 */
    0.01189670994589177009505572, /* 7 */
    0.01041126526197209649747857, /* 8 */
    0.009255462182712732917728637, /* 9 */
    0.008330563433362871256469319, /* 10 */
    0.007573675487951840794972024, /* 11 */
    0.006942840107209529865664153, /* 12 */
    0.006408994188004207068439631, /* 13 */
    0.005951370112758847735624416, /* 14 */
    0.00555473355196280137103869, /* 15 */
    0.005207655919609640440717997, /* 16 */
    0.004901395948434737860716818, /* 17 */
    0.004629153749334028592427213, /* 18 */
    0.004385560249232324268287736, /* 19 */
    0.004166319691996922457462923, /* 20 */
    0.003967954218640859617287637, /* 21 */
    0.003787618068444434577866677, /* 22 */
    0.003622960224683094707381198, /* 23 */
    0.003472021382978766962945115, /* 24 */
    0.003333155636728092875807019, /* 25 */
    0.003204970228055038011184157, /* 26 */
    0.003086278682608777063256241, /* 27 */
    0.002976063983550408826021163, /* 28 */
    0.002873449362352466387552351, /* 29 */
    0.002777674929752693603594904, /* 30 */
    0.002688078828531142867802099, /* 31 */
    0.002604081919251656422419193, /* 32 */
    0.002525175249756784364002446, /* 33 */
    0.002450909735438118343141977, /* 34 */
    0.002380887608234111985727839, /* 35 */
    0.002314755290514683866814115, /* 36 */
    0.002252197424337523742169285, /* 37 */
    0.002192931843287834061023698, /* 38 */
    0.00213670531775250019580838, /* 39 */
    0.002083289938302421748749125, /* 40 */
    0.00203248002825663066928827, /* 41 */
    0.001984089497245795550019025, /* 42 */
    0.001937949563995799461991535, /* 43 */
    0.001893906789600634536900658, /* 44 */
    0.001851821372993179516432272, /* 45 */
    0.00181156566871963062698312, /* 46 */
    0.001773022893912853868077303, /* 47 */
    0.001736085996876597314982286, /* 48 */
    0.001700656664196061708191726, /* 49 */
    0.001666644446983365509949325, /* 50 */
};

double sp_stirlerr(double m)
{
    if (m <= 50.0) {
        return STIRLERR_TABLE[(int)m];
    }
    /* Asymptotic series 1/(12m) - 1/(360m^3) + 1/(1260m^5) - 1/(1680m^7) + 1/(1188m^9);
     * the next term at m = 51 is below 1e-21. */
    const double s0 = 1.0 / 12, s1 = 1.0 / 360, s2 = 1.0 / 1260, s3 = 1.0 / 1680, s4 = 1.0 / 1188;
    double mm = m * m;
    return (s0 - (s1 - (s2 - (s3 - s4 / mm) / mm) / mm) / mm) / m;
}

double sp_bd0(double x, double M, double d)
{
    if (x == 0.0) {
        return M;
    }
    if (fabs(d) < 0.35 * (x + M)) {
        /* x ln(x/M) + M - x = d v + 2x sum_{j>=1} v^(2j+1)/(2j+1), v = d/(x+M):
         * the sum is at most 2|v|/3 < 1/4 of d v, so little cancellation.
         * The closed form below loses up to 10x (a factor a / (a - 1 + e^-a),
         * a = ln(x/M)) at |v| = 0.1 and about 3x at |v| = 0.35, where this
         * series needs ~17 terms (|v|^2 < 0.1225 per term). */
        static const double inv_odd[32] = {
            1.0 / 3, 1.0 / 5, 1.0 / 7, 1.0 / 9, 1.0 / 11, 1.0 / 13, 1.0 / 15, 1.0 / 17,
            1.0 / 19, 1.0 / 21, 1.0 / 23, 1.0 / 25, 1.0 / 27, 1.0 / 29, 1.0 / 31, 1.0 / 33,
            1.0 / 35, 1.0 / 37, 1.0 / 39, 1.0 / 41, 1.0 / 43, 1.0 / 45, 1.0 / 47, 1.0 / 49,
            1.0 / 51, 1.0 / 53, 1.0 / 55, 1.0 / 57, 1.0 / 59, 1.0 / 61, 1.0 / 63, 1.0 / 65};
        double v = d / (x + M);
        double s = d * v;
        double ej = 2.0 * x * v;
        double vv = v * v;
        for (int j = 0; j < 32; j++) {    /* 0.1225^32 < 1e-29: converged well before */
            ej *= vv;
            double s1 = s + ej * inv_odd[j];
            if (s1 == s) {
                return s1;
            }
            s = s1;
        }
        return s;
    }
    return x * log(x / M) - d;
}

void sp_binom_init(sp_binom *b, double N, double pi, int mirrored)
{
    double mean_hi, mean_lo;
    sp_two_prod(N, pi, &mean_hi, &mean_lo);
    b->N = N;
    if (!mirrored) {
        b->p = pi;
        b->q = 1.0 - pi;
        b->log_p = log(pi);
        b->log_q = log1p(-pi);
        b->mean_hi = mean_hi;
        b->mean_lo = mean_lo;
        b->p_ext = (long double)pi;
        b->q_ext = 1.0L - (long double)pi;
    } else {
        /* N(1 - pi) = N - mean_hi - mean_lo, renormalised. */
        double s, e;
        sp_two_sum(N, -mean_hi, &s, &e);
        e -= mean_lo;
        b->p = 1.0 - pi;
        b->q = pi;
        b->log_p = log1p(-pi);
        b->log_q = log(pi);
        b->mean_hi = s + e;
        b->mean_lo = e - (b->mean_hi - s);
        b->p_ext = 1.0L - (long double)pi;
        b->q_ext = (long double)pi;
    }
}

void sp_binom_init_ext(sp_binom *b, double N, long double p, long double q, double mean_hi,
                       double mean_lo, double log_p, double log_q, int mirrored)
{
    b->N = N;
    if (mirrored) {
        long double t = p;
        p = q;
        q = t;
        double u = log_p;
        log_p = log_q;
        log_q = u;
        /* N q = N - mean_hi - mean_lo, renormalised */
        double s, e;
        sp_two_sum(N, -mean_hi, &s, &e);
        e -= mean_lo;
        mean_hi = s + e;
        mean_lo = e - (mean_hi - s);
    }
    b->p = (double)p;
    b->q = (double)q;
    if (b->p == 0.0 && p > 0.0L) {
        b->p = 0x1p-1074;
    }
    if (b->q == 0.0 && q > 0.0L) {
        b->q = 0x1p-1074;
    }
    b->log_p = log_p;
    b->log_q = log_q;
    b->mean_hi = mean_hi;
    b->mean_lo = mean_lo;
    b->p_ext = p;
    b->q_ext = q;
}

/* bd0(x, M) = x ln(x/M) + M - x with M = N p and d = x - M given in extended
 * precision (sp_bd0 rounds them once).  Where M is subnormal or tiny
 * (p ~ 1e-300 and below) its double-double is not exact and x/M may
 * overflow: ln x - ln N - ln p is used, in long double. */
static double bd0_ext(double x, long double M, long double d, double N, long double p)
{
    if (x == 0.0) {
        return (double)M;
    }
    if (M > 0x1p-900L && (long double)x / M < 0x1p1000L) {
        return sp_bd0(x, (double)M, (double)d);
    }
    /* M = N p tiny means p tiny, and then p (p_ext or q_ext) is the exact pi
     * or 1 - pi (exact by Sterbenz for pi near 1) */
    const long double xl = x;
    return (double)(xl * (logl(xl) - logl((long double)N) - logl(p)) - d);
}

double sp_log_binom_pmf(const sp_binom *b, double k)
{
    double N = b->N;
    if (k < 0.0 || k > N) {
        return -INFINITY;
    }
    if (b->p == 0.0) {
        return k == 0.0 ? 0.0 : -INFINITY;
    }
    if (b->q == 0.0) {
        return k == N ? 0.0 : -INFINITY;
    }
    if (k == 0.0) {
        return N * b->log_q;
    }
    if (k == N) {
        return N * b->log_p;
    }
    /* d = k - Np exactly enough; (N-k) - Nq = -d. */
    const long double d = ((long double)k - b->mean_hi) - b->mean_lo;
    const long double Nq = ((long double)N - b->mean_hi) - b->mean_lo;
    const long double Np = (long double)b->mean_hi + b->mean_lo;
    double lc = sp_stirlerr(N) - sp_stirlerr(k) - sp_stirlerr(N - k)
                - bd0_ext(k, Np, d, N, b->p_ext) - bd0_ext(N - k, Nq, -d, N, b->q_ext);
    /* 0.5 ln(2 pi k (N-k)/N) = ln sqrt(2pi) + 0.5 (ln k + ln(1 - k/N)); for
     * k > N/2 the rounding of k/N would dominate 1 - k/N, so (N-k)/N (N - k
     * is exact) is used there. */
    double log_frac = k <= 0.5 * N ? log1p(-k / N) : log((N - k) / N);
    return lc - LN_SQRT_2PI - 0.5 * (log(k) + log_frac);
}

double sp_log_hypergeom_pmf(double j, double N, double K, double m)
{
    if (j < 0.0 || j > K || j > m || m - j > N - K) {
        return -INFINITY;
    }
    if (m == 0.0 || m == N) {
        return 0.0;   /* the whole population or nothing: j is determined */
    }
    /* C(K,j) C(N-K,m-j) / C(N,m) = b(j; K, f) b(m-j; N-K, f) / b(m; N, f), f = m/N:
     * the powers of f and 1-f cancel exactly, and with f = m/N the three
     * binomial terms sit near their modes where Loader's form is sharpest. */
    double f = m / N;
    sp_binom bk, bnk, bn;
    sp_binom_init(&bk, K, f, 0);
    sp_binom_init(&bnk, N - K, f, 0);
    sp_binom_init(&bn, N, f, 0);
    return sp_log_binom_pmf(&bk, j) + sp_log_binom_pmf(&bnk, m - j) - sp_log_binom_pmf(&bn, m);
}

void sp_binom_window_logl(double N, double pi, double first, long count, long double *out)
{
    if (!(pi > 0.0 && pi < 1.0)) {
        /* point mass at 0 (pi = 0) or at N (pi = 1) */
        const double atom = pi > 0.0 ? N : 0.0;
        for (long i = 0; i < count; i++) {
            out[i] = first + (double)i == atom ? 0.0L : -INFINITY;
        }
        return;
    }
    sp_binom b;
    sp_binom_init(&b, N, pi, 0);
    double mode = floor((N + 1.0) * pi);
    if (mode > N) {
        mode = N;
    }
    if (mode < first) {
        mode = first;
    }
    if (mode > first + (double)(count - 1)) {
        mode = first + (double)(count - 1);
    }
    const long m = (long)(mode - first);
    const long double p = (long double)pi;
    const long double log_odds = logl(p) - log1pl(-p);
    out[m] = (long double)sp_log_binom_pmf(&b, mode);
    for (long i = m; i + 1 < count; i++) {           /* b(k+1)/b(k) = (N-k)/(k+1) p/q */
        long double k = (long double)first + (long double)i;
        out[i + 1] = out[i] + logl(((long double)N - k) / (k + 1.0L)) + log_odds;
    }
    for (long i = m; i > 0; i--) {
        long double k = (long double)first + (long double)i;
        out[i - 1] = out[i] - logl(((long double)N - k + 1.0L) / k) - log_odds;
    }
}

/* numpy's logaddexp for long doubles (npy_logaddexpl), with ldmath.h */
static inline long double pmf_logaddexpl(long double x, long double y)
{
    if (x == y) {                       /* also equal infinities */
        return x + 0.693147180559945309417232121458176568L;
    }
    const long double d = x - y;
    if (d > 0.0L) {
        return x + sp_ld_log1p(sp_ld_exp(-d));
    }
    if (d <= 0.0L) {
        return y + sp_ld_log1p(sp_ld_exp(d));
    }
    return d;                           /* NaN */
}

void sp_log_mixture(const long double *log_a, long na, const long double *log_b, long nb,
                    long double log_in, long double log_out, long size, long double *lp,
                    long double *lq)
{
    for (long j = 0; j < size; j++) {
        const long double shifted = j >= 1 && j - 1 < na ? log_a[j - 1] : -INFINITY;
        const long double same = j < na ? log_a[j] : -INFINITY;
        const long double out = log_out + (j < nb ? log_b[j] : -INFINITY);
        lp[j] = pmf_logaddexpl(log_in + shifted, out);
        lq[j] = pmf_logaddexpl(log_in + same, out);
    }
}
