# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Typed wrappers over the C kernels in csrc/.

Nothing here validates input: statpriv's Python layer does that and documents
the formulas.  Every loop runs without the GIL; curve objects are immutable
after construction, so one object may be queried from many threads.
"""
import numpy as np
cimport numpy as cnp
from libc.math cimport exp, log, log1p, expm1, INFINITY, M_SQRT1_2
from scipy.special.cython_special cimport erfcx, log_ndtr, ndtr

from statpriv._csrc cimport *

cnp.import_array()

PLUS = SP_PLUS
MINUS = SP_MINUS
MAX = SP_MAX


cdef class CurveCore:
    """ln delta(eps) of one curve, evaluated by a C function on a C context."""
    cdef sp_curve_fn fn
    cdef const void *ctx

    def log_delta(self, double[::1] eps, int direction):
        """ln delta at each eps (float64, C-contiguous) in a direction."""
        cdef Py_ssize_t i, n = eps.shape[0]
        out = np.empty(n)
        cdef double[::1] res = out
        with nogil:
            for i in range(n):
                res[i] = self.fn(eps[i], direction, self.ctx)
        return out

    def epsilon(self, double[::1] log_target, int direction):
        """Smallest eps >= 0 with ln delta(eps) <= each log_target."""
        cdef Py_ssize_t i, n = log_target.shape[0]
        out = np.empty(n)
        cdef double[::1] res = out
        with nogil:
            for i in range(n):
                res[i] = sp_smallest_eps(self.fn, self.ctx, direction, log_target[i])
        return out


cdef class BinomialCurveCore(CurveCore):
    """Noiseless count with Bin(N, pi) other records (MATH.md §3)."""
    cdef sp_binom_curve curve

    def __cinit__(self, double N, double pi):
        sp_binom_curve_init(&self.curve, N, pi)
        self.fn = sp_binom_curve_log_delta
        self.ctx = &self.curve


cdef class PairCurveCore(CurveCore):
    """Shift divergence between two pmfs given by log arrays (MATH.md §2, §4)."""
    cdef sp_pair pair
    cdef object arrays     # keeps the buffers alive
    cdef readonly bint monotone

    def __cinit__(self, lp, lq, lr):
        lp = np.ascontiguousarray(lp, dtype=np.float64)
        lq = np.ascontiguousarray(lq, dtype=np.float64)
        lr = np.ascontiguousarray(lr, dtype=np.float64)
        if not (lp.shape == lq.shape == lr.shape) or lp.ndim != 1 or lp.shape[0] == 0:
            raise ValueError("lp, lq, lr must be equal-length non-empty 1-d arrays")
        lsp = np.ascontiguousarray(np.logaddexp.accumulate(lp[::-1])[::-1])
        lcq = np.ascontiguousarray(np.logaddexp.accumulate(lq))
        self.monotone = bool(np.all(np.diff(lr) >= 0.0))
        self.arrays = (lp, lq, lr, lsp, lcq)
        cdef double[::1] vlp = lp, vlq = lq, vlr = lr, vlsp = lsp, vlcq = lcq
        self.pair.lp = &vlp[0]
        self.pair.lq = &vlq[0]
        self.pair.lr = &vlr[0]
        self.pair.lsp = &vlsp[0]
        self.pair.lcq = &vlcq[0]
        self.pair.len = lp.shape[0]
        self.pair.monotone = self.monotone
        self.fn = sp_pair_curve_log_delta
        self.ctx = &self.pair


# Worst-case DP curves, sensitivity 1 (MATH.md §5).  Each is symmetric, so
# delta_plus = delta_minus; eps < 0 uses delta(eps) = 1 - e^eps + e^eps delta(-eps).

ctypedef double (*dp_fn)(double eps, double param) noexcept nogil


cdef double _laplace(double eps, double scale) noexcept nogil:
    # 1 - exp((eps - 1/b)/2) for eps < 1/b, else 0
    cdef double x = 0.5 * (eps - 1.0 / scale)
    return sp_log1mexp(x) if x < 0.0 else -INFINITY


cdef double _geometric(double eps, double alpha) noexcept nogil:
    # (1 - alpha e^eps)_+ / (1 + alpha)
    cdef double x = log(alpha) + eps
    return sp_log1mexp(x) - log1p(alpha) if x < 0.0 else -INFINITY


cdef double _gaussian(double eps, double sigma) noexcept nogil:
    # Phi(a) - e^eps Phi(b), a = 1/(2 sigma) - eps sigma, b = a - 1/sigma.
    if eps == INFINITY:
        return -INFINITY
    cdef double a = 0.5 / sigma - eps * sigma
    cdef double b = -0.5 / sigma - eps * sigma
    cdef double d
    if a < 0.0:
        # Deep tail: b^2/2 - eps = a^2/2 exactly, so with Phi(-t) =
        # erfcx(t/sqrt 2) e^(-t^2/2) / 2 both terms share e^(-a^2/2) and
        # delta = e^(-a^2/2) (erfcx(-a/sqrt 2) - erfcx(-b/sqrt 2)) / 2: no
        # exp/log of huge exponents, so no digits lost to them.
        d = erfcx(-a * M_SQRT1_2) - erfcx(-b * M_SQRT1_2)
        return -0.5 * a * a + log(0.5 * d) if d > 0.0 else -INFINITY
    # Phi(a) >= 1/2 here; delta cancels by at most a factor ~ 2.5 sigma.
    d = ndtr(a) - exp(eps + log_ndtr(b))
    return log(d) if d > 0.0 else -INFINITY


ctypedef struct dp_ctx:
    dp_fn fn
    double param


cdef double _dp_curve(double eps, int direction, const void *ctx) noexcept nogil:
    cdef const dp_ctx *c = <const dp_ctx *> ctx
    if eps >= 0.0:
        return c.fn(eps, c.param)
    return sp_log_hockey_negative_eps(eps, c.fn(-eps, c.param))


cdef class DPCurveCore(CurveCore):
    """kind: 'laplace' (param = scale b), 'gaussian' (sigma), 'geometric' (alpha)."""
    cdef dp_ctx dp

    def __cinit__(self, str kind, double param):
        if kind == "laplace":
            self.dp.fn = _laplace
        elif kind == "gaussian":
            self.dp.fn = _gaussian
        elif kind == "geometric":
            self.dp.fn = _geometric
        else:
            raise ValueError(f"unknown DP curve kind {kind!r}")
        self.dp.param = param
        self.fn = _dp_curve
        self.ctx = &self.dp


def log_binom_pmf(double N, double pi, double[::1] k):
    """ln Bin(N, pi) pmf at each k by Loader's saddle-point form."""
    cdef sp_binom b
    cdef Py_ssize_t i, n = k.shape[0]
    out = np.empty(n)
    cdef double[::1] res = out
    sp_binom_init(&b, N, pi, 0)
    with nogil:
        for i in range(n):
            res[i] = sp_log_binom_pmf(&b, k[i])
    return out


def log_hypergeom_pmf(double[::1] j, double N, double K, double m):
    """ln P[J = j], J positives in m draws from N records with K positive."""
    cdef Py_ssize_t i, n = j.shape[0]
    out = np.empty(n)
    cdef double[::1] res = out
    with nogil:
        for i in range(n):
            res[i] = sp_log_hypergeom_pmf(j[i], N, K, m)
    return out


def binomial_sum_log_pmf(double[::1] probs, double[::1] counts):
    """ln pmf of sum_g Bin(counts[g], probs[g]) on 0..sum(counts)."""
    cdef long total = <long> np.sum(counts)
    out = np.empty(total + 1)
    cdef double[::1] res = out
    cdef int status
    with nogil:
        status = sp_binomial_sum_log_pmf(&probs[0], &counts[0], probs.shape[0], &res[0], total)
    if status != 0:
        raise MemoryError("could not allocate the convolution buffers")
    return out
