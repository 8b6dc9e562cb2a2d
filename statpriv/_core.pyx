# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Typed wrappers over the C kernels in csrc/.

Nothing here validates input: statpriv's Python layer does that and documents
the formulas -- except the scalar methods (CurveCore.log_delta1 & co.), which
are PrivacyCurve's whole scalar query and reject NaN and out-of-range values
with statpriv._validate's own errors.  Every loop runs without the GIL; curve
objects are immutable after construction, so one object may be queried from
many threads.
"""
import math

import numpy as np
cimport numpy as cnp
from libc.float cimport DBL_MAX
from libc.stdlib cimport free
from cpython.exc cimport PyErr_CheckSignals
from libc.math cimport nextafter, logl, fmax, fma, exp, log, log1p, expm1, INFINITY, M_SQRT1_2, M_2_SQRTPI
from scipy.special.cython_special cimport erfcx, log_ndtr, ndtr

from statpriv._csrc cimport *
from statpriv import _validate

cnp.import_array()

PLUS = SP_PLUS
MINUS = SP_MINUS
MAX = SP_MAX


cdef object _evaluate(sp_curve_fn fn, const void *ctx, double[::1] eps, int direction):
    """fn at each eps in a direction (the GIL released around the loop)."""
    cdef Py_ssize_t i, n = eps.shape[0]
    out = np.empty(n)
    cdef double[::1] res = out
    cdef sp_direction d = <sp_direction> direction
    with nogil:
        for i in range(n):
            res[i] = fn(eps[i], d, ctx)
    return out


# The scalar epsilon's ln(delta) is numpy's own float64 log loop, called on one
# value: the array path takes np.log, and glibc's log (math.log) differs from
# numpy's AVX-512 log in the last bit on ~0.1% of (0, 1] (7004 of 6e6 random
# doubles on an AVX-512 machine), which can move epsilon by an ulp.
cdef cnp.PyUFuncGenericFunction _numpy_log_loop = NULL
cdef void *_numpy_log_data = NULL


cdef _bind_numpy_log():
    """Find np.log's float64 -> float64 inner loop (the one its dispatch chose)."""
    global _numpy_log_loop, _numpy_log_data
    cdef cnp.ufunc ufunc = np.log
    cdef int i
    for i in range(ufunc.ntypes):
        if ufunc.types[2 * i] == cnp.NPY_DOUBLE and ufunc.types[2 * i + 1] == cnp.NPY_DOUBLE:
            _numpy_log_loop = ufunc.functions[i]
            _numpy_log_data = ufunc.data[i]
            return
    raise ImportError("numpy.log has no float64 loop")


_bind_numpy_log()


cdef inline double _numpy_log(double x) noexcept:
    """np.log(x), bit for bit: the same loop on a one-element array."""
    cdef double out
    cdef char *args[2]
    cdef cnp.npy_intp n = 1
    cdef cnp.npy_intp steps[2]
    args[0] = <char *> &x
    args[1] = <char *> &out
    steps[0] = steps[1] = sizeof(double)
    _numpy_log_loop(args, &n, steps, _numpy_log_data)
    return out


def _numpy_log_at(double[::1] x):
    """_numpy_log at each x (for the tests: the same bits as np.log)."""
    out = np.empty(x.shape[0])
    cdef double[::1] res = out
    cdef Py_ssize_t i
    for i in range(x.shape[0]):
        res[i] = _numpy_log(x[i])
    return out


cdef int _reject(str name, double value, dict bounds) except -1:
    """Raise the ValueError statpriv._validate.real_array raises for this
    value, word for word (the scalar methods detect it in C)."""
    _validate.real_array(name, value, **bounds)
    raise AssertionError(f"{name} = {value!r} failed the scalar check only")


cdef class CurveCore:
    """ln delta(eps) of one curve, evaluated by a C function on a C context.

    log_tol: how far the float ln delta may lie below the true one beyond
    1e-12 relative (0 for curves exact to 1e-12; noisy curves promised to
    1e-10 set ~1e-10): epsilon() aims that much below its target so that the
    TRUE delta at the returned eps is <= target (1 + 1e-12).
    positive: bit mask, bit (1 << direction) set where delta > 0 at every
    finite eps in that direction (see _positive_mask), so that epsilon(0) is
    inf whatever the float curve underflows to.  The attributes (fn, ctx,
    log_tol, positive, and the optional estimate est_fn / est_ctx /
    est_margin / estimates used by epsilon()) are declared in
    statpriv/_core.pxd, so that other extensions can subclass this class."""

    cdef void _set_estimate(self, sp_curve_fn fn, const void *curve, double margin):
        """epsilon() searches fn (an estimate of ln delta on curve's context,
        in its three variants), verified on self.fn (search.h)."""
        cdef int i
        for i in range(3):
            self.estimates[i].curve = curve
            self.estimates[i].with_err = 0 if i == 0 else (1 if i == 1 else -1)
            self.est_ctx[i] = &self.estimates[i]
        self.est_fn = fn
        self.est_margin = margin

    def log_delta(self, double[::1] eps, int direction):
        """ln delta at each eps (float64, C-contiguous) in a direction."""
        return _evaluate(self.fn, self.ctx, eps, direction)

    def log_delta_estimate(self, double[::1] eps, int direction, int bound=0):
        """epsilon()'s estimate of ln delta at each eps: plain (bound 0), its
        upper (1) or lower (-1) bound; None if this curve has none."""
        if self.est_fn == NULL:
            return None
        return _evaluate(self.est_fn, self.est_ctx[0 if bound == 0 else (1 if bound > 0 else 2)],
                         eps, direction)

    cdef double _smallest_eps(self, double log_target, sp_direction d, bint estimate) noexcept nogil:
        if self.est_fn != NULL and estimate:
            return sp_smallest_eps_estimated(self.fn, self.ctx, self.est_fn, self.est_ctx,
                                             self.est_margin, d, log_target, self.log_tol,
                                             self.positive)
        return sp_smallest_eps_lean(self.fn, self.ctx, d, log_target, self.log_tol, self.positive)

    def epsilon(self, double[::1] log_target, int direction, bint estimate=True):
        """Smallest eps >= 0 with ln delta(eps) <= each log_target (searched
        on the estimate where this curve has one, unless estimate=False; a
        subclass with its own search overrides _smallest_eps)."""
        cdef Py_ssize_t i, n = log_target.shape[0]
        out = np.empty(n)
        cdef double[::1] res = out
        cdef sp_direction d = <sp_direction> direction
        with nogil:
            for i in range(n):
                res[i] = self._smallest_eps(log_target[i], d, estimate)
        return out

    # -- one value: PrivacyCurve's scalar queries, the same C calls as the
    # array methods (bit-identical), the GIL released around the C call
    # (another thread may query meanwhile) except for a closed form, where
    # releasing it (~50 ns) would cost half the evaluation

    cpdef double log_delta1(self, double eps, int direction) except? -1:
        """ln delta at one eps (NaN: statpriv's ValueError naming eps)."""
        if eps != eps:
            _reject("eps", eps, {"allow_inf": True})
        if self.closed_form:
            return self.fn(eps, <sp_direction> direction, self.ctx)
        cdef double r
        with nogil:
            r = self.fn(eps, <sp_direction> direction, self.ctx)
        return r

    cpdef double delta1(self, double eps, int direction) except? -1:
        """delta at one eps: e^log_delta1 by libm's exp, the function
        math.exp calls (the scalar path's exponential before this method)."""
        return exp(self.log_delta1(eps, direction))

    cpdef double epsilon1(self, double log_target, int direction, bint estimate=True) except? -1:
        """epsilon() at one log target."""
        cdef double r
        with nogil:
            r = self._smallest_eps(log_target, <sp_direction> direction, estimate)
        return r

    cpdef double epsilon_of_delta1(self, double delta, int direction) except? -1:
        """epsilon1 at ln delta, delta in [0, 1] (else statpriv's ValueError
        naming delta), the log taken as np.log takes it."""
        if not (0.0 <= delta <= 1.0):
            _reject("delta", delta, {"low": 0.0, "high": 1.0})
        return self.epsilon1(_numpy_log(delta), direction)


cdef class BinomialCurveCore(CurveCore):
    """Noiseless count with Bin(N, pi) other records (docs/mathematics.md §3)."""
    cdef sp_binom_curve curve

    def __cinit__(self, double N, double pi):
        sp_binom_curve_init(&self.curve, N, pi)
        self.fn = sp_binom_curve_log_delta
        self.ctx = &self.curve

    cdef double _smallest_eps(self, double log_target, sp_direction d, bint estimate) noexcept nogil:
        """The generic search, settled at large N on one exact sum (see
        sp_binom_smallest_eps in csrc/search.h)."""
        return sp_binom_smallest_eps(&self.curve, d, log_target, self.log_tol)


cdef double _sampled_zero_point(sp_curve_fn fn, const void *ctx, int direction, double l1g_hi):
    if direction != SP_MINUS or l1g_hi == -INFINITY:
        return INFINITY
    cdef double d = -l1g_hi
    cdef int guard
    for guard in range(8):           # the double-double low part moves it by < 1 ulp
        if fn(d, SP_MINUS, ctx) == -INFINITY:
            break
        d = nextafter(d, INFINITY)
    for guard in range(8):
        if fn(nextafter(d, 0.0), SP_MINUS, ctx) != -INFINITY:
            break
        d = nextafter(d, 0.0)
    return d


cdef class PoissonCurveCore(CurveCore):
    """Noiseless count under Poisson sampling at rate g, Z ~ Bin(N, rho),
    rho = g pi given as double-doubles (rho and 1 - rho) with accurate logs,
    reduced to Z's shift curve (sp_poisson_curve in csrc/poisson_sampling.h).
    pq: (rho, 1 - rho) as a long double array."""
    cdef sp_poisson_curve curve

    def __cinit__(self, double N, pq, double mean_hi, double mean_lo, double log_p,
                  double log_q, double g, double l1g_hi, double l1g_lo):
        cdef long double[::1] v = _extended(pq)       # (rho, 1 - rho)
        sp_poisson_curve_init(&self.curve, N, v[0], v[1], mean_hi, mean_lo, log_p, log_q, g,
                              l1g_hi, l1g_lo)
        self.fn = sp_poisson_curve_log_delta
        self.ctx = &self.curve
        self.positive = 1 << SP_PLUS     # P(N+1) = g rho^N > 0 = Q(N+1)

    def zero_point(self, int direction):
        """The smallest double with delta = 0 in a direction: -ln(1 - g)
        rounded up for SP_MINUS (where the curve's own test u >= 0 turns),
        +inf for SP_PLUS."""
        return _sampled_zero_point(self.fn, self.ctx, direction, self.curve.l1g_hi)

    cdef double _smallest_eps(self, double log_target, sp_direction d, bint estimate) noexcept nogil:
        """At large N solved on the exact shift sums of Z with the
        reduction's moving target (sp_poisson_smallest_eps in
        csrc/poisson_sampling.h), else the generic search."""
        return sp_poisson_smallest_eps(&self.curve, d, log_target, self.log_tol, self.positive)


cdef class SampledShiftCurveCore(CurveCore):
    """Poisson sampling at rate g of a count Z given by its shift curve
    (inner: plus = H(Z+1 || Z), minus = H(Z || Z+1)), by the reduction of
    sp_sampled_shift_curve (csrc/poisson_sampling.h)."""
    cdef sp_sampled_shift_curve curve
    cdef readonly object inner

    def __cinit__(self, CurveCore inner, double g, double l1g_hi, double l1g_lo):
        self.inner = inner
        self.curve.inner = inner.fn
        self.curve.inner_ctx = inner.ctx
        self.curve.g = g
        self.curve.l1g_hi = l1g_hi
        self.curve.l1g_lo = l1g_lo
        self.fn = sp_sampled_shift_curve_log_delta
        self.ctx = &self.curve
        self.log_tol = inner.log_tol
        self.positive = 1 << SP_PLUS     # P(top + 1) = g Z(top) > 0 = Q(top + 1)

    def zero_point(self, int direction):
        """The smallest double with delta = 0 in a direction: -ln(1 - g)
        rounded up for SP_MINUS (where the curve's own test u >= 0 turns),
        +inf for SP_PLUS."""
        return _sampled_zero_point(self.fn, self.ctx, direction, self.curve.l1g_hi)


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


cdef bint _nearly_non_decreasing(long double[::1] lr):
    """lr[i+1] - lr[i] >= -1e-12 (1 + |lr[i]|) for every i, in long double (the
    same test as the numpy expression np.all(np.diff(lr) >= -1e-12 * (1.0 +
    np.abs(lr[:-1]))), NaN failing it, in one pass without temporaries)."""
    cdef Py_ssize_t i, n = lr.shape[0]
    cdef long double tol = <long double>(<double>-1e-12)
    cdef long double a, d
    with nogil:
        for i in range(n - 1):
            a = lr[i]
            if a < 0:
                a = -a
            d = lr[i + 1] - lr[i]
            if not (d >= tol * (1.0 + a)):
                return False
    return True


cdef class PairCurveCore(CurveCore):
    """Shift divergence between two pmfs given by log arrays (docs/mathematics.md §2, §5),
    or between Laplace cells (``laplace=(ll_p, lr_p, ll_q, lr_q, scale[, ll_lo, rr_lo])``,
    the optional low parts of ll_p - ll_q and lr_p - lr_q).
    Arrays are held in extended precision (numpy.longdouble).

    ``lr_lo`` (optional): low parts of the log ratio, ln P/Q = lr + lr_lo to
    ~1e-30 where the caller computed it in higher precision (zero elsewhere).
    ``max_log_ratio``: a proven bound on |ln P/Q|; delta is 0 from there on.
    The zero points -- the smallest eps with delta = 0, per direction -- are
    the largest log ratio over the cells (the bound for non-monotone Laplace
    cells); ``zero_point(direction)`` returns the smallest double at or
    above it (inf if delta > 0 at every finite eps)."""
    cdef sp_pair pair
    cdef sp_laplace_pair laplace   # the Laplace cells' data (the pair's cell callback context)
    cdef object arrays     # keeps the buffers alive
    cdef readonly bint monotone

    def __cinit__(self, lp, lq, lr, laplace=None, double max_log_ratio=INFINITY, lr_lo=None):
        lp, lq, lr = _extended(lp), _extended(lq), _extended(lr)
        if not (lp.shape == lq.shape == lr.shape) or lp.ndim != 1 or lp.shape[0] == 0:
            raise ValueError("lp, lq, lr must be equal-length non-empty 1-d arrays")
        self.monotone = _nearly_non_decreasing(lr)
        # the other tails, for the estimate that epsilon() searches on
        # (where the cells are many: on a few the exact search is as cheap)
        estimated = self.monotone and max_log_ratio < INFINITY and lp.shape[0] >= 1024
        self.arrays = [lp, lq, lr]
        self.pair.lp = _data(lp)
        self.pair.lq = _data(lq)
        self.pair.lr = _data(lr)
        self.pair.len = lp.shape[0]
        self.pair.monotone = self.monotone
        self.pair.cell_log_positive = NULL
        self.pair.cell_ctx = NULL
        self.pair.lr_lo = NULL
        # the tail sums as checkpoints (the kernel reads them at a few cells
        # per query): lsp, lcq always, lsq, lcp for the estimate
        self.pair.lsp = self.pair.lcq = self.pair.lsq = self.pair.lcp = NULL
        # (each law's two directions in one pass over it)
        self.pair.lsq_marks.marks = self.pair.lcp_marks.marks = NULL
        self._mark(&self.pair.lcp_marks if estimated else NULL, &self.pair.lsp_marks, lp)
        self._mark(&self.pair.lcq_marks, &self.pair.lsq_marks if estimated else NULL, lq)
        self.pair.max_log_ratio = max_log_ratio
        self.pair.tail_tol = 0.0
        if max_log_ratio < INFINITY:
            self.log_tol = 1e-10    # Laplace/geometric noise: promised to 1e-10
            self.pair.tail_tol = 2.0 ** -40   # ... so the sums may stop sooner
        if lr_lo is not None:
            lr_lo = _extended(lr_lo)
            if lr_lo.shape != lp.shape:
                raise ValueError("lr_lo must match lp in length")
            self.arrays.append(lr_lo)
            self.pair.lr_lo = _data(lr_lo)
        if laplace is not None:
            cells = [_extended(a) for a in laplace[:4]]
            if any(a.shape != lp.shape for a in cells):
                raise ValueError("Laplace cell arrays must match lp in length")
            self.arrays.extend(cells)
            self.laplace.ll_p = _data(cells[0])
            self.laplace.lr_p = _data(cells[1])
            self.laplace.ll_q = _data(cells[2])
            self.laplace.lr_q = _data(cells[3])
            self.laplace.ll_lo = self.laplace.rr_lo = NULL
            self.laplace.len = lp.shape[0]
            sp_laplace_pair_set_scale(&self.laplace, float(laplace[4]))
            if len(laplace) > 5:
                # low parts of ll_p - ll_q and lr_p - lr_q
                low = [_extended(a) for a in laplace[5:7]]
                if any(a.shape != lp.shape for a in low):
                    raise ValueError("Laplace low-part arrays must match lp in length")
                self.arrays.extend(low)
                self.laplace.ll_lo = _data(low[0])
                self.laplace.rr_lo = _data(low[1])
            self.pair.cell_log_positive = sp_laplace_cell_term
            self.pair.cell_ctx = &self.laplace
        sp_pair_init_zero(&self.pair)
        self.fn = sp_pair_curve_log_delta
        self.ctx = &self.pair
        if estimated:
            # noisy cells (promised to 1e-10): epsilon() searches an estimate
            self._set_estimate(sp_pair_curve_log_delta_estimate, &self.pair, 2.0 ** -38)

    cdef _mark(self, sp_log_cumsum_marks *fwd, sp_log_cumsum_marks *rev, la):
        """Checkpoints of the log cumulative sums of e^la from the left into fwd
        and from the right into rev (either NULL: not wanted), in one pass;
        the buffers are kept alive in self.arrays."""
        cdef long double[::1] va = la
        cdef long n = va.shape[0]
        cdef long k = max(sp_log_cumsum_marks_len(n), 1)
        cdef sp_logsum *out[2]
        cdef sp_log_cumsum_marks *m
        cdef long double[::1] vb
        out[0] = out[1] = NULL
        for side in range(2):
            m = fwd if side == 0 else rev
            if m == NULL:
                continue
            # sp_logsum is two long doubles: a long double buffer of twice the length
            buf = np.empty(2 * k, dtype=np.longdouble)
            vb = buf
            self.arrays.append(buf)
            out[side] = <sp_logsum *> &vb[0]
            m.la = &va[0]
            m.n = n
            m.reverse = side == 1
            m.marks = out[side]
        with nogil:
            sp_log_cumsum_mark_both(&va[0], n, out[0], out[1])

    def epsilon(self, double[::1] log_target, int direction, bint estimate=True):
        """As CurveCore.epsilon, but a target of delta = 0 returns the zero
        point exactly: the smallest double at or above the largest log ratio
        (inf if delta > 0 at every finite eps), not a bisection's bracket."""
        out = CurveCore.epsilon(self, log_target, direction, estimate)
        zero = np.asarray(log_target) == -INFINITY
        if zero.any():
            out[zero] = max(self.zero_point(direction), 0.0)
        return out

    cpdef double epsilon1(self, double log_target, int direction, bint estimate=True) except? -1:
        """As epsilon() at one target (the zero point at delta = 0)."""
        if log_target == -INFINITY:
            return max(self.zero_point(direction), 0.0)
        return CurveCore.epsilon1(self, log_target, direction, estimate)

    def zero_point(self, int direction):
        """Smallest double eps with delta = 0 in a direction (PLUS, MINUS or
        MAX); inf if delta > 0 at every finite eps."""
        if direction == SP_MAX:
            return max(sp_pair_zero_point(&self.pair, SP_PLUS),
                       sp_pair_zero_point(&self.pair, SP_MINUS))
        return sp_pair_zero_point(&self.pair, <sp_direction> direction)


cdef double _log_ndtr(double x) noexcept nogil:
    return log_ndtr(x)


def _positive_mask(lp, lq):
    """Directions in which a count plus Gaussian noise has delta > 0 at every
    finite eps: f_P/f_Q is unbounded iff P has an atom above Q's highest or
    below Q's lowest (the Gaussian tails of that atom dominate); otherwise
    f_P/f_Q <= max_k P(k)/Q(k) and delta_plus reaches 0.  Bit mask for
    sp_smallest_eps."""
    fp = np.flatnonzero(np.isfinite(lp))
    fq = np.flatnonzero(np.isfinite(lq))
    if fp.size == 0 or fq.size == 0:
        return 0
    plus = int(fp.max() > fq.max() or fp.min() < fq.min())
    minus = int(fq.max() > fp.max() or fq.min() < fp.min())
    return (plus << SP_PLUS) | (minus << SP_MINUS) | ((plus | minus) << SP_MAX)


cdef double _erfcx(double x) noexcept nogil:
    return erfcx(x)


cdef class GaussCurveCore(CurveCore):
    """Count laws P, Q (log pmfs on consecutive atoms) plus N(0, sigma^2) noise.

    ``monotone``: P/Q is non-decreasing on the atoms (the caller checks);
    then f_P - e^eps f_Q has one sign change for every eps and sigma."""
    cdef sp_gauss g
    cdef object arrays

    def __cinit__(self, lp, lq, double sigma, bint monotone, lr=None, lr_lo=None):
        cdef long double[::1] ext
        lp, lq = _extended(lp), _extended(lq)
        if lp.shape != lq.shape or lp.ndim != 1 or lp.shape[0] == 0:
            raise ValueError("lp, lq must be equal-length non-empty 1-d arrays")
        if not sigma > 0.0:
            raise ValueError(f"sigma must be > 0, got {sigma}")
        live = np.isfinite(lp) | np.isfinite(lq)
        if not live.any():
            raise ValueError("P and Q have no atom")
        # ln P/Q: the caller's accurate one (closed forms, low parts) where
        # given, else lp - lq; the extreme ratios (the zero points) in
        # double-double
        with np.errstate(invalid="ignore"):
            generic = lp - lq
        if lr is None:
            lr = generic
            lo = np.zeros(lp.shape[0], dtype=np.longdouble)
        else:
            lr = _extended(lr)
            lo = np.zeros(lp.shape[0], dtype=np.longdouble) if lr_lo is None else _extended(lr_lo)
            if lr.shape != lp.shape or lo.shape != lp.shape:
                raise ValueError("lr, lr_lo must have the shape of lp")
            # +-inf and NaN (an atom of one law only, or of neither) from lp - lq
            lr = np.where(np.isfinite(lr) & np.isfinite(generic), lr, generic)
            lo = np.where(np.isfinite(lr), lo, 0.0)
        full = (lr + lo)[live]
        i_max, i_min = int(np.argmax(full)), int(np.argmin(full))
        lr_live, lo_live = lr[live], lo[live]
        cums = [_log_cumsum(lp, reverse=True), _log_cumsum(lp),
                _log_cumsum(lq, reverse=True), _log_cumsum(lq)]
        self.arrays = [lp, lq] + cums + [lr, lo]
        self.g.lp = _data(lp)
        self.g.lq = _data(lq)
        self.g.lsp = _data(cums[0])
        self.g.lcp = _data(cums[1])
        self.g.lsq = _data(cums[2])
        self.g.lcq = _data(cums[3])
        self.g.len = lp.shape[0]
        self.g.sigma = sigma
        # through a long double buffer: a numpy longdouble scalar assigned to
        # a C long double would pass through a Python float (double)
        ext = np.array(
            [lr_live[i_max], lr_live[i_min], lo_live[i_max], lo_live[i_min],
             np.max(lp), np.max(lq)], dtype=np.longdouble)
        self.g.lpmax = ext[4]
        self.g.lqmax = ext[5]
        self.g.lr_max = ext[0]
        self.g.lr_min = ext[1]
        self.g.lr_max_lo = ext[2]
        self.g.lr_min_lo = ext[3]
        self.g.lr = _data(lr)
        self.g.lr_lo = _data(lo)
        self.g.monotone = monotone
        self.g.log_ndtr = _log_ndtr
        self.log_tol = 1e-10    # noisy curves: delta promised to 1e-10 relative
        self.positive = _positive_mask(lp, lq)


        self.g.erfcx = _erfcx
        self.fn = sp_gauss_curve_log_delta
        self.ctx = &self.g
        if monotone and np.count_nonzero(lp > lp.max() - 60) >= 20000:
            # a wide law (the walk past the threshold, ~its width, dominates
            # the root finding): epsilon() searches an estimate, verified on fn
            self._set_estimate(sp_gauss_curve_log_delta_estimate, &self.g, 2.0 ** -34)


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


def laplace_cells_diff(lp, lq, law_lr, double scale):
    """Cells of count laws plus Laplace(scale) noise in one pass, P's logs from
    the difference law D = Q expm1(law_lr) where P and Q nearly agree
    (law_lr: the accurate ln P/Q per atom, or None for the plain cells; see
    sp_laplace_cells_diff): (cell_lp, cell_lq, ll_p, lr_p, ll_q, lr_q,
    cell_lr) longdouble and (err_c, err_l, err_r) float64, each of length
    n + 1 (cell_lr: the cells' log mass ratio; err_*: estimates of the
    absolute error of the cells', L's and R's log ratios)."""
    cdef long double[::1] vp = _extended(lp)
    cdef long double[::1] vq = _extended(lq)
    cdef long n = vp.shape[0]
    cdef long double[::1] vr
    cdef const long double *pr = NULL
    if vq.shape[0] != n:
        raise ValueError("laplace_cells_diff: arrays of inconsistent lengths")
    if law_lr is not None:
        vr = _extended(law_lr)
        if vr.shape[0] != n:
            raise ValueError("laplace_cells_diff: arrays of inconsistent lengths")
        pr = &vr[0]
    out = [np.empty(n + 1, dtype=np.longdouble) for _ in range(7)]
    errs = [np.empty(n + 1, dtype=np.float64) for _ in range(3)]
    cdef long double[::1] a = out[0], b = out[1], c = out[2], d = out[3], e = out[4], f = out[5]
    cdef long double[::1] g = out[6]
    cdef double[::1] x = errs[0], y = errs[1], z = errs[2]
    cdef int rc
    with nogil:
        rc = sp_laplace_cells_diff(&vp[0], &vq[0], pr, n, scale, &a[0], &b[0], &c[0], &d[0],
                                   &e[0], &f[0], &g[0], &x[0], &y[0], &z[0])
    if rc != 0:
        raise MemoryError("laplace_cells_diff: out of memory")
    return tuple(out) + tuple(errs)


def laplace_atom_ratios(lp, lq, law_lr, law_lo, double scale, ll_p, lr_p, ll_q, lr_q,
                        double[::1] err_l, double[::1] err_r, ll_lo, rr_lo):
    """The Laplace L and R log ratios from the laws' own ratio where the noise
    barely mixes (sp_laplace_atom_ratios): modifies ll_p, lr_p, err_l,
    err_r, ll_lo, rr_lo in place (longdouble / float64 arrays of n + 1
    cells; law_lo may be None)."""
    cdef long double[::1] vp = _extended(lp)
    cdef long double[::1] vq = _extended(lq)
    cdef long double[::1] vr = _extended(law_lr)
    cdef long double[::1] vlo
    cdef const long double *plo = NULL
    cdef long n = vp.shape[0]
    cdef long double[::1] a = ll_p, b = lr_p, c = ll_q, d = lr_q, e = ll_lo, f = rr_lo
    if (vq.shape[0] != n or vr.shape[0] != n or a.shape[0] != n + 1 or b.shape[0] != n + 1
            or c.shape[0] != n + 1 or d.shape[0] != n + 1 or e.shape[0] != n + 1
            or f.shape[0] != n + 1 or err_l.shape[0] != n + 1 or err_r.shape[0] != n + 1):
        raise ValueError("laplace_atom_ratios: arrays of inconsistent lengths")
    if law_lo is not None:
        vlo = _extended(law_lo)
        if vlo.shape[0] != n:
            raise ValueError("laplace_atom_ratios: arrays of inconsistent lengths")
        plo = &vlo[0]
    if n < 2:
        return
    with nogil:
        sp_laplace_atom_ratios(&vp[0], &vq[0], &vr[0], plo, n, scale, &a[0], &b[0], &c[0],
                               &d[0], &err_l[0], &err_r[0], &e[0], &f[0])


def log_mixture(log_a, log_b, log_in, log_out, long size):
    """(lp, lq) longdouble of length size: ln(rate A(j-1) + (1-rate) B(j)) and
    ln(rate A(j) + (1-rate) B(j)) from the log pmfs log_a, log_b and log_in =
    ln rate, log_out = ln(1 - rate) (sp_log_mixture: numpy's logaddexp with
    the accurate fast long double exp and log1p)."""
    cdef long double[::1] va = _extended(log_a)
    cdef long double[::1] vb = _extended(log_b)
    cdef long na = va.shape[0], nb = vb.shape[0]
    if size < na + 1 and size < nb:
        raise ValueError("log_mixture: size below the laws' support")
    lp = np.empty(size, dtype=np.longdouble)
    lq = np.empty(size, dtype=np.longdouble)
    cdef long double[::1] vp = lp, vq = lq
    # (a Python scalar would pass through double: the weights go as an array)
    cdef long double[::1] w = _extended(np.array([log_in, log_out], dtype=np.longdouble))
    cdef const long double *pa = &va[0] if na else NULL
    cdef const long double *pb = &vb[0] if nb else NULL
    if size == 0:
        return lp, lq
    with nogil:
        sp_log_mixture(pa, na, pb, nb, w[0], w[1], size, &vp[0], &vq[0])
    return lp, lq


def poisson_log_ratio(n, double rate, double pi, first, long count):
    """ln P(j)/Q(j) = log1p((j - n rate pi)/((n - j) pi)) of the Poisson-sampled
    count laws at j = first .. first+count-1, longdouble (sp_poisson_log_ratio)."""
    # n and first through a long double array (a Python int may exceed 2^53)
    cdef long double[::1] v = _extended(np.array([np.longdouble(n), np.longdouble(first)]))
    out = np.empty(max(count, 0), dtype=np.longdouble)
    cdef long double[::1] o = out
    if count > 0:
        with nogil:
            sp_poisson_log_ratio(v[0], rate, pi, v[1], count, &o[0])
    return out


def _ldmath(name, x):
    """The accurate fast long double functions of csrc/ldmath.h on an array
    (name: 'exp', 'expm1', 'log', 'log1p'); for the tests."""
    cdef long double[::1] v = _extended(np.ravel(x))
    out = np.empty(v.shape[0], dtype=np.longdouble)
    cdef long double[::1] o = out
    cdef long i, n = v.shape[0]
    cdef int kind = ("exp", "expm1", "log", "log1p").index(name)
    with nogil:
        for i in range(n):
            if kind == 0:
                o[i] = sp_ld_exp(v[i])
            elif kind == 1:
                o[i] = sp_ld_expm1(v[i])
            elif kind == 2:
                o[i] = sp_ld_log(v[i])
            else:
                o[i] = sp_ld_log1p(v[i])
    return out


def laplace_cells_one(la, double scale):
    """One law's Laplace(scale) cells: (cell_la, ll, lr), each of length n + 1,
    longdouble (as laplace_cells returns for P)."""
    cdef long double[::1] va = _extended(la)
    cdef long n = va.shape[0]
    out = [np.empty(n + 1, dtype=np.longdouble) for _ in range(3)]
    cdef long double[::1] a = out[0], c = out[1], d = out[2]
    with nogil:
        sp_laplace_cells_one(&va[0], n, scale, &a[0], &c[0], &d[0])
    return tuple(out)


def geometric_cells(lp, lq, double alpha, bint shift=False):
    """Cells of count laws plus two-sided geometric(alpha) noise: the pmf on the
    n atoms' positions and the two aggregated tails, length n + 2, longdouble.
    shift: the laws are a pure shift, lp[k] = lq[k-1] (the caller checked):
    the same cells at half the cost (sp_geometric_shift_cells)."""
    cdef long double[::1] vp = _extended(lp)
    cdef long double[::1] vq = _extended(lq)
    cdef long n = vp.shape[0]
    if vq.shape[0] != n:
        raise ValueError("geometric_cells: lp and lq of different lengths")
    cell_lp = np.empty(n + 2, dtype=np.longdouble)
    cell_lq = np.empty(n + 2, dtype=np.longdouble)
    cdef long double[::1] a = cell_lp, b = cell_lq
    cdef int status
    with nogil:
        if shift:
            status = sp_geometric_shift_cells(&vp[0], &vq[0], n, alpha, &a[0], &b[0])
        else:
            status = sp_geometric_cells(&vp[0], &vq[0], n, alpha, &a[0], &b[0])
    if status != 0:
        raise MemoryError("could not allocate the geometric-noise workspace")
    return cell_lp, cell_lq


def geometric_difference_ratios(lp, lq, law_lr, double alpha, cell_lq, lr):
    """Overwrite the cell log ratios ``lr`` (longdouble, n + 2, modified in
    place) by the difference-law form where it is the more accurate; returns
    the absolute error bounds (see csrc/geometric.h)."""
    cdef long double[::1] vp = _extended(lp)
    cdef long double[::1] vq = _extended(lq)
    cdef long double[::1] vr = _extended(law_lr)
    cdef long double[::1] vc = _extended(cell_lq)
    cdef long double[::1] out = lr
    cdef long n = vp.shape[0]
    if vq.shape[0] != n or vr.shape[0] != n or vc.shape[0] != n + 2 or out.shape[0] != n + 2:
        raise ValueError("geometric_difference_ratios: arrays of inconsistent lengths")
    err = np.empty(n + 2, dtype=np.float64)
    cdef double[::1] e = err
    cdef int status
    with nogil:
        status = sp_geometric_difference_ratios(&vp[0], &vq[0], &vr[0], n, alpha, &vc[0],
                                                &out[0], &e[0])
    if status != 0:
        raise MemoryError("could not allocate the geometric-noise workspace")
    return err


def geometric_shift_ratios(lp, lq, law_lr, double alpha):
    """(cell_lp, cell_lq, lr, err) of a pure shift (lp[k] = lq[k-1], the
    caller checked): geometric_cells(..., shift=True), their log ratios
    (_cells._log_ratio) and geometric_difference_ratios on them, bit for
    bit, in one pass over Q's atoms (sp_geometric_shift_ratios)."""
    cdef long double[::1] vp = _extended(lp)
    cdef long double[::1] vq = _extended(lq)
    cdef long double[::1] vr = _extended(law_lr)
    cdef long n = vp.shape[0]
    if vq.shape[0] != n or vr.shape[0] != n or n == 0:
        raise ValueError("geometric_shift_ratios: arrays of inconsistent lengths")
    out = [np.empty(n + 2, dtype=np.longdouble) for _ in range(3)]
    err = np.empty(n + 2, dtype=np.float64)
    cdef long double[::1] a = out[0], b = out[1], r = out[2]
    cdef double[::1] e = err
    cdef int status
    with nogil:
        status = sp_geometric_shift_ratios(&vp[0], &vq[0], &vr[0], n, alpha, &a[0], &b[0],
                                           &r[0], &e[0])
    if status != 0:
        raise MemoryError("could not allocate the geometric-noise workspace")
    return out[0], out[1], out[2], err


def geometric_deficits(la, lb, lr_ab, cell_la, double alpha, r_hi, r_lo, bint mirror=False):
    """(deficit, rel_err): D(x) = ln R - ln f_A(x)/f_B(x) at the atoms under
    geometric(alpha) noise, R = exp(r_hi + r_lo) the exact right-tail ratio,
    with relative error bounds (inf where not computed); mirror: the left
    tail, arrays read from the far end and lr_ab negated; see csrc/geometric.h."""
    cdef long double[::1] va = _extended(la)
    cdef long double[::1] vb = _extended(lb)
    cdef long double[::1] vr = _extended(lr_ab)
    cdef long double[::1] vc = _extended(cell_la)
    cdef long n = va.shape[0]
    if vb.shape[0] != n or vr.shape[0] != n or vc.shape[0] != n:
        raise ValueError("geometric_deficits: arrays of different lengths")
    deficit = np.zeros(n, dtype=np.longdouble)
    rel = np.empty(n, dtype=np.float64)
    cdef long double[::1] d = deficit
    cdef double[::1] e = rel
    # through a long double array: a Python-level conversion rounds to double
    cdef long double[::1] vhl = _extended([r_hi, r_lo])
    cdef long double hi = vhl[0], lo = vhl[1]
    if n > 0:
        with nogil:
            sp_geometric_deficits(&va[0], &vb[0], &vr[0], &vc[0], n, mirror, alpha, hi, lo,
                                  &d[0], &e[0])
    return deficit, rel


def laplace_deficits(la, lb, lr_ab, lo_ab, ll_a, rb, cell_a, double scale, r_hi, r_lo,
                     bint mirror=False):
    """(first, dl, er, dc, rel_l, rel_r, rel_c): the deficit of the Laplace L
    log ratio below, the excess of the R log ratio above and the deficit of
    the cell-mass log ratio below the exact right-tail ratio ln R = r_hi +
    r_lo, with relative error bounds (inf where not computed), on the cells
    first .. first + len - 1 that the kernel reached (it stops where the
    forms no longer help: every other cell has no value).  lr_ab: the
    closed-form atom log ratio (None: the difference of the laws' logs);
    lo_ab may be None; mirror: the left tail (see csrc/laplace.h)."""
    cdef long double[::1] va = _extended(la)
    cdef long double[::1] vb = _extended(lb)
    cdef long double[::1] vr
    cdef long double[::1] vo
    cdef long double[::1] vl = _extended(ll_a)
    cdef long double[::1] vrb = _extended(rb)
    cdef long double[::1] vca = _extended(cell_a)
    cdef long n = va.shape[0]
    cdef const long double *po = NULL
    cdef const long double *pr = NULL
    if vb.shape[0] != n or vl.shape[0] != n + 1 or vrb.shape[0] != n + 1 or vca.shape[0] != n + 1:
        raise ValueError("laplace_deficits: arrays of inconsistent lengths")
    if lr_ab is not None:
        vr = _extended(lr_ab)
        if vr.shape[0] != n:
            raise ValueError("laplace_deficits: arrays of inconsistent lengths")
        if n > 0:
            pr = &vr[0]
    if lo_ab is not None:
        vo = _extended(lo_ab)
        if vo.shape[0] != n:
            raise ValueError("laplace_deficits: arrays of inconsistent lengths")
        if n > 0:
            po = &vo[0]
    # calloc'ed (np.zeros): the kernel writes only the cells it reaches, so
    # the pages of the others are never touched (first touches are slow)
    dl = np.zeros(n + 1, dtype=np.longdouble)
    er = np.zeros(n + 1, dtype=np.longdouble)
    dc = np.zeros(n + 1, dtype=np.longdouble)
    rel_l = np.zeros(n + 1)
    rel_r = np.zeros(n + 1)
    rel_c = np.zeros(n + 1)
    cdef long double[::1] d = dl
    cdef long double[::1] x = er
    cdef long double[::1] y = dc
    cdef double[::1] el = rel_l
    cdef double[::1] ex = rel_r
    cdef double[::1] ey = rel_c
    # through a long double array: a Python-level conversion would round to double
    cdef long double[::1] vhl = _extended([r_hi, r_lo])
    cdef long double hi = vhl[0], lo = vhl[1]
    cdef long done = n
    if n > 1:
        with nogil:
            done = sp_laplace_deficits(&va[0], &vb[0], pr, po, &vl[0], &vrb[0], &vca[0], n,
                                       mirror, scale, hi, lo, &d[0], &x[0], &y[0], &el[0],
                                       &ex[0], &ey[0])
    # the cells written: done + 1 .. n - 1 (mirrored: 1 .. n - 1 - done)
    first, stop = (1, max(n - done, 1)) if mirror else (done + 1, max(n, done + 1))
    return (first,) + tuple(a[first:stop] for a in (dl, er, dc, rel_l, rel_r, rel_c))


def binom_window_logl(double N, double pi, long first, long count, out=None):
    """ln Bin(N, pi) pmf at first..first+count-1 in extended precision, with
    neighbours consistent to ~1e-19 (exact ratios from Loader's value at the mode).
    out: a contiguous longdouble array of length count to write into (a view
    of a larger buffer, e.g. with padding atoms around it), returned."""
    if out is None:
        out = np.empty(count, dtype=np.longdouble)
    cdef long double[::1] res = out
    if res.shape[0] != count or count < 1:
        raise ValueError("out must hold count >= 1 atoms")
    with nogil:
        sp_binom_window_logl(N, pi, <double> first, count, &res[0])
    return out


# Worst-case DP curves, sensitivity 1: the closed forms live in csrc/dp.c.

cdef double _ndtr(double x) noexcept nogil:
    return ndtr(x)


def neg_log_double_double(double alpha):
    """-ln alpha as a double-double (hi, lo), hi + lo within ~1e-60 relative
    of the real value: the zero point of the geometric DP curve.  mpmath
    (imported here, on first use) gives the ~106 correct bits that double
    arithmetic cannot; lo has the exact sign of -ln alpha - hi."""
    # mpmath's low-level functions take the precision as an argument: no
    # global context is touched (thread safe).
    from mpmath.libmp import from_float, mpf_log, mpf_neg, mpf_sub, to_float, round_nearest
    exact = mpf_neg(mpf_log(from_float(alpha), 200, round_nearest))
    hi = to_float(exact, rnd=round_nearest)
    return hi, to_float(mpf_sub(exact, from_float(hi), 200, round_nearest), rnd=round_nearest)


def zero_point_up(str kind, double param):
    """The smallest float >= the real zero point of a sensitivity-1 noise
    mechanism: 1/b ('laplace'), -ln alpha ('geometric').  delta(eps) = 0 exactly
    from there on; at the float below it delta > 0.  Use it (not 1.0/b, which
    may round down) wherever eps >= zero point is taken to mean delta = 0."""
    cdef double hi, lo
    if kind == "laplace":
        hi = 1.0 / param
        lo = fma(-hi, param, 1.0) if math.isfinite(hi) else 0.0    # = b (1/b - hi), exact
    elif kind == "geometric":
        hi, lo = neg_log_double_double(param)
    else:
        raise ValueError(f"unknown kind {kind!r}")
    return math.nextafter(hi, math.inf) if lo > 0.0 else hi


cdef class DPCurveCore(CurveCore):
    """kind: 'laplace' (param = scale b), 'gaussian' (sigma), 'geometric' (alpha).

    For 'geometric', zero_point = (hi, lo) may pass -ln alpha as a
    double-double (see neg_log_double_double, which is used otherwise)."""
    cdef sp_dp_curve dp

    def __cinit__(self, str kind, double param, zero_point=None):
        cdef sp_normal_fns fns
        if kind == "laplace":
            sp_dp_init_laplace(&self.dp, param)
        elif kind == "gaussian":
            fns.ndtr = _ndtr
            fns.log_ndtr = _log_ndtr
            fns.erfcx = _erfcx
            sp_dp_init_gaussian(&self.dp, param, &fns)
            self.positive = (1 << SP_PLUS) | (1 << SP_MINUS) | (1 << SP_MAX)
        elif kind == "geometric":
            hi, lo = neg_log_double_double(param) if zero_point is None else zero_point
            sp_dp_init_geometric(&self.dp, param, hi, lo)
        else:
            raise ValueError(f"unknown DP curve kind {kind!r}")
        self.fn = sp_dp_curve_log_delta
        self.ctx = &self.dp
        self.closed_form = True

    @property
    def zero_point(self):
        """The zero point eps0 (delta = 0 exactly for eps >= eps0) as a
        double-double (hi, lo); (inf, 0.0) for the Gaussian."""
        return self.dp.eps0_hi, self.dp.eps0_lo

    @property
    def kind(self):
        """'laplace', 'gaussian' or 'geometric' (statpriv.pld reads it)."""
        return ("laplace", "gaussian", "geometric")[self.dp.kind]

    @property
    def param(self):
        """The scale b, sigma or alpha of the sensitivity-1 curve."""
        return self.dp.param


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
    window does not carry (see csrc/poisson_binomial.h).  Raises ValueError if a window would exceed
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
    cdef sp_bounded b_est[3]   # the same bound on the window's estimates
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
        self.log_tol = inner.log_tol       # the window's own error bound
        # (search.h) delta > 0 at every finite eps -- not in a direction with a
        # proven finite zero point, whatever the window's arrays suggest
        positive = inner.positive
        if zero_plus < INFINITY:
            positive &= ~(1 << SP_PLUS)
        if zero_minus < INFINITY:
            positive &= ~(1 << SP_MINUS)
        if zero_plus < INFINITY and zero_minus < INFINITY:
            positive &= ~(1 << SP_MAX)
        self.positive = positive
        self.fn = sp_bounded_log_delta
        self.ctx = &self.b
        if inner.est_fn != NULL:
            for i in range(3):
                self.b_est[i] = self.b
                self.b_est[i].fn = inner.est_fn
                self.b_est[i].ctx = inner.est_ctx[i]
                self.est_ctx[i] = &self.b_est[i]
            self.est_fn = sp_bounded_log_delta
            self.est_margin = inner.est_margin
