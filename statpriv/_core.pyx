# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Typed wrappers over the C kernels in csrc/.

Nothing here validates input: statpriv's Python layer does that and documents
the formulas.  Every loop runs without the GIL; curve objects are immutable
after construction, so one object may be queried from many threads.
"""
import numpy as np
cimport numpy as cnp
from libc.float cimport DBL_MAX
from libc.stdlib cimport free
from cpython.exc cimport PyErr_CheckSignals
from libc.math cimport logl, fmax, exp, log, log1p, expm1, INFINITY, M_SQRT1_2, M_2_SQRTPI
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


cdef const long double *_data(long double[::1] a):
    return &a[0]


def _extended(a):
    return np.ascontiguousarray(a, dtype=np.longdouble)


def _log_cumsum(a, bint reverse=False):
    """ln of the cumulative sums of e^a (from the right with reverse)."""
    cdef long double[::1] va = _extended(a)
    out = np.empty(va.shape[0], dtype=np.longdouble)
    cdef long double[::1] res = out
    with nogil:
        sp_log_cumsum(&va[0], va.shape[0], reverse, &res[0])
    return out


cdef class PairCurveCore(CurveCore):
    """Shift divergence between two pmfs given by log arrays (MATH.md §2, §4),
    or between Laplace cells (``laplace=(ll_p, lr_p, ll_q, lr_q, scale)``).
    Arrays are held in extended precision (numpy.longdouble).
    ``max_log_ratio``: a proven bound on |ln P/Q|; delta is 0 from there on."""
    cdef sp_pair pair
    cdef object arrays     # keeps the buffers alive
    cdef readonly bint monotone

    def __cinit__(self, lp, lq, lr, laplace=None, double max_log_ratio=INFINITY):
        lp, lq, lr = _extended(lp), _extended(lq), _extended(lr)
        if not (lp.shape == lq.shape == lr.shape) or lp.ndim != 1 or lp.shape[0] == 0:
            raise ValueError("lp, lq, lr must be equal-length non-empty 1-d arrays")
        with np.errstate(invalid="ignore"):
            lsp = _log_cumsum(lp, reverse=True)
            lcq = _log_cumsum(lq)
            self.monotone = bool(np.all(np.diff(lr) >= -1e-12 * (1.0 + np.abs(lr[:len(lr) - 1]))))
        self.arrays = [lp, lq, lr, lsp, lcq]
        self.pair.lp = _data(lp)
        self.pair.lq = _data(lq)
        self.pair.lr = _data(lr)
        self.pair.lsp = _data(lsp)
        self.pair.lcq = _data(lcq)
        self.pair.len = lp.shape[0]
        self.pair.monotone = self.monotone
        self.pair.ll_p = self.pair.lr_p = self.pair.ll_q = self.pair.lr_q = NULL
        self.pair.max_log_ratio = max_log_ratio
        if laplace is not None:
            cells = [_extended(a) for a in laplace[:4]]
            if any(a.shape != lp.shape for a in cells):
                raise ValueError("Laplace cell arrays must match lp in length")
            self.arrays.extend(cells)
            self.pair.ll_p = _data(cells[0])
            self.pair.lr_p = _data(cells[1])
            self.pair.ll_q = _data(cells[2])
            self.pair.lr_q = _data(cells[3])
            self.pair.scale = float(laplace[4])
        self.fn = sp_pair_curve_log_delta
        self.ctx = &self.pair


cdef double _log_ndtr(double x) noexcept nogil:
    return log_ndtr(x)


cdef class GaussCurveCore(CurveCore):
    """Count laws P, Q (log pmfs on consecutive atoms) plus N(0, sigma^2) noise."""
    cdef sp_gauss g
    cdef object arrays

    def __cinit__(self, lp, lq, double sigma, bint monotone):
        lp, lq = _extended(lp), _extended(lq)
        if lp.shape != lq.shape or lp.ndim != 1 or lp.shape[0] == 0:
            raise ValueError("lp, lq must be equal-length non-empty 1-d arrays")
        cums = [_log_cumsum(lp, reverse=True), _log_cumsum(lp),
                _log_cumsum(lq, reverse=True), _log_cumsum(lq)]
        self.arrays = [lp, lq] + cums
        self.g.lp = _data(lp)
        self.g.lq = _data(lq)
        self.g.lsp = _data(cums[0])
        self.g.lcp = _data(cums[1])
        self.g.lsq = _data(cums[2])
        self.g.lcq = _data(cums[3])
        self.g.len = lp.shape[0]
        self.g.sigma = sigma
        self.g.lpmax = np.max(lp)
        self.g.lqmax = np.max(lq)
        self.g.monotone = monotone
        self.g.log_ndtr = _log_ndtr
        self.fn = sp_gauss_curve_log_delta
        self.ctx = &self.g


def laplace_cells(lp, lq, double scale):
    """Cells of count laws (log pmfs on atoms 0..n-1) plus Laplace(scale) noise:
    (cell_lp, cell_lq, ll_p, lr_p, ll_q, lr_q), each of length n + 1, longdouble."""
    cdef long double[::1] vp = _extended(lp)
    cdef long double[::1] vq = _extended(lq)
    cdef long n = vp.shape[0]
    out = [np.empty(n + 1, dtype=np.longdouble) for _ in range(6)]
    cdef long double[::1] a = out[0], b = out[1], c = out[2], d = out[3], e = out[4], f = out[5]
    with nogil:
        sp_laplace_cells(&vp[0], &vq[0], n, scale, &a[0], &b[0], &c[0], &d[0], &e[0], &f[0])
    return tuple(out)


def geometric_cells(lp, lq, double alpha):
    """Cells of count laws plus two-sided geometric(alpha) noise: the pmf on the
    n atoms' positions and the two aggregated tails, length n + 2, longdouble."""
    cdef long double[::1] vp = _extended(lp)
    cdef long double[::1] vq = _extended(lq)
    cdef long n = vp.shape[0]
    cell_lp = np.empty(n + 2, dtype=np.longdouble)
    cell_lq = np.empty(n + 2, dtype=np.longdouble)
    cdef long double[::1] a = cell_lp, b = cell_lq
    cdef int status
    with nogil:
        status = sp_geometric_cells(&vp[0], &vq[0], n, alpha, &a[0], &b[0])
    if status != 0:
        raise MemoryError("could not allocate the geometric-noise workspace")
    return cell_lp, cell_lq


def binom_window_logl(double N, double pi, long first, long count):
    """ln Bin(N, pi) pmf at first..first+count-1 in extended precision, with
    neighbours consistent to ~1e-19 (exact ratios from Loader's value at the mode)."""
    out = np.empty(count, dtype=np.longdouble)
    cdef long double[::1] res = out
    with nogil:
        sp_binom_window_logl(N, pi, <double> first, count, &res[0])
    return out


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
    cdef double d, u, v, w, ww
    if a < 0.0:
        # Deep tail: b^2/2 - eps = a^2/2 exactly, so with Phi(-t) =
        # erfcx(t/sqrt 2) e^(-t^2/2) / 2 both terms share e^(-a^2/2) and
        # delta = e^(-a^2/2) (erfcx(-a/sqrt 2) - erfcx(-b/sqrt 2)) / 2: no
        # exp/log of huge exponents, so no digits lost to them.
        u = -a * M_SQRT1_2
        v = -b * M_SQRT1_2
        d = erfcx(u) - erfcx(v)
        if d <= 1e-6 * erfcx(u):
            # eps sigma^2 so large that the two erfcx values agree to 6+
            # digits: difference by the mean value theorem at w = (u+v)/2 with
            # -erfcx'(w) = (1/w^2 - 3/(2w^4) + 15/(4w^6)) / sqrt(pi) (w large);
            # (v-u)/w < 1e-6 makes the error ~1e-12 relative; v - u = 1/(sigma sqrt 2).
            w = 0.5 * (u + v)
            ww = 1.0 / (w * w)
            d = M_SQRT1_2 / sigma * ww * (1.0 - ww * (1.5 - 3.75 * ww)) * M_2_SQRTPI * 0.5
        # delta > 0 for every finite eps: where a^2 overflows, report the most
        # negative finite log rather than ln 0
        return fmax(-0.5 * a * a + log(0.5 * d), -DBL_MAX)
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


cdef int _progress(void *ctx, double work) noexcept with gil:
    # reports to a tqdm-like object's update(); non-zero (abandon) on Ctrl-C
    try:
        (<object> ctx).update(work)
        PyErr_CheckSignals()
    except BaseException:
        return 1
    return 0


def binomial_sum_window(double[::1] probs, double[::1] counts, double drop_nats, long max_len,
                        progress=None, double step=1e8):
    """ln pmf of S = sum_g Bin(counts[g], probs[g]) on the window where it matters:
    (first, log_pmf longdouble, log_rest) with e^log_rest >= the mass of S the
    window does not carry (see convolve.h).  Raises ValueError if a window would exceed
    max_len atoms.  ``progress``: an object with update(multiply_adds), called
    every ``step`` multiply-adds (e.g. a tqdm bar); KeyboardInterrupt stops the work."""
    cdef long double *buf = NULL
    cdef long first = 0, n = 0
    cdef long double rest = 0.0
    cdef int status
    cdef long groups = probs.shape[0]
    cdef const double *pp = &probs[0] if groups > 0 else NULL
    cdef const double *pc = &counts[0] if groups > 0 else NULL
    cdef sp_progress_fn fn = NULL
    if progress is not None:
        fn = _progress
    cdef void *ctx = <void *> progress
    with nogil:
        status = sp_binomial_sum_window_progress(pp, pc, groups, drop_nats, max_len, &buf,
                                                 &first, &n, &rest, fn, ctx, step)
    if status == -1:
        raise MemoryError("could not allocate the convolution buffers")
    if status == -2:
        raise ValueError(f"the Poisson-binomial window would exceed {max_len} atoms")
    if status == -3:
        raise KeyboardInterrupt("per-record convolution interrupted")
    out = np.empty(n, dtype=np.longdouble)
    cdef long double[::1] res = out
    cdef long i
    for i in range(n):
        res[i] = buf[i]
    free(buf)
    return first, out, float(logl(rest)) if rest > 0 else -np.inf


cdef class BoundedCurveCore(CurveCore):
    """A curve of laws given on a window plus the mass left out, bounded:
    ln of delta_window(eps) + rest * (1 - e^(eps - lr_max))_+, and exactly 0
    from eps = zero_plus (zero_minus for delta_minus) on (see bounded.h)."""
    cdef sp_bounded b
    cdef object inner      # keeps the window's core alive

    def __cinit__(self, CurveCore inner, double log_rest_p, double log_rest_q,
                  double lr_max=INFINITY, double lr_min=-INFINITY,
                  double zero_plus=INFINITY, double zero_minus=INFINITY):
        self.inner = inner
        self.b.fn = inner.fn
        self.b.ctx = inner.ctx
        self.b.log_rest_p = log_rest_p
        self.b.log_rest_q = log_rest_q
        self.b.lr_max = lr_max
        self.b.lr_min = lr_min
        self.b.zero_plus = zero_plus
        self.b.zero_minus = zero_minus
        self.fn = sp_bounded_log_delta
        self.ctx = &self.b
