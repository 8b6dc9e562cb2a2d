# Declarations of the C kernels in csrc/ (see the headers for the contracts).

cdef extern from "logpmf.h" nogil:
    ctypedef struct sp_binom:
        pass
    void sp_binom_init(sp_binom *b, double N, double pi, int mirrored)
    double sp_log_binom_pmf(const sp_binom *b, double k)
    double sp_log_hypergeom_pmf(double j, double N, double K, double m)
    double sp_log1mexp(double a)

cdef extern from "shift_tail.h" nogil:
    enum:
        SP_PLUS
        SP_MINUS
        SP_MAX
    ctypedef double (*sp_curve_fn)(double eps, int direction, const void *ctx) noexcept nogil
    ctypedef struct sp_pair:
        const double *lp
        const double *lq
        const double *lr
        const double *lsp
        const double *lcq
        long len
        int monotone
    ctypedef struct sp_binom_curve:
        pass
    void sp_binom_curve_init(sp_binom_curve *c, double N, double pi)
    double sp_binom_curve_log_delta(double eps, int direction, const void *ctx)
    double sp_pair_curve_log_delta(double eps, int direction, const void *ctx)
    double sp_log_hockey_negative_eps(double eps, double log_reverse_at_minus_eps)

cdef extern from "search.h" nogil:
    double sp_smallest_eps(sp_curve_fn log_delta, const void *ctx, int direction, double log_target)

cdef extern from "convolve.h" nogil:
    int sp_binomial_sum_log_pmf(const double *probs, const double *counts, long groups,
                                double *out, long total)
