# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Typed wrappers over the C kernels in csrc/.

Nothing here validates input: statpriv's Python layer does that and documents
the formulas -- except the scalar methods (CurveCore.log_delta1 & co.), which
are PrivacyCurve's whole scalar query and reject NaN and out-of-range values
with statpriv._validate's own errors.  Every loop runs without the GIL; curve
objects are immutable after construction, so one object may be queried from
many threads.
"""
import numpy as np
cimport numpy as cnp
from libc.math cimport exp, fmax, nextafter, INFINITY

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

    def log_delta_ascending(self, double[::1] eps, int direction):
        """log_delta for many eps, fastest in ascending order (a grid): here
        the same evaluation; a core whose kernel walks a sorted grid
        incrementally overrides it (its values within its stated bound of
        log_delta's)."""
        return self.log_delta(eps, direction)

    def log_delta_estimate(self, double[::1] eps, int direction, int bound=0):
        """epsilon()'s estimate of ln delta at each eps: plain (bound 0), its
        upper (1) or lower (-1) bound; None if this curve has none."""
        if self.est_fn == NULL:
            return None
        return _evaluate(self.est_fn, self.est_ctx[0 if bound == 0 else (1 if bound > 0 else 2)],
                         eps, direction)

    cdef double _smallest_eps(self, double log_target, sp_direction d,
                              bint estimate) noexcept nogil:
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

    def log_delta_ascending(self, double[::1] eps, int direction):
        """log_delta walked up the eps incrementally (one exact sum per few
        dozen points of a grid): within 3.6e-13 relative of log_delta's delta
        (sp_binom_curve_log_delta_ascending in csrc/binomial_tail.c)."""
        out = np.empty(eps.shape[0])
        cdef double[::1] res = out
        if eps.shape[0] == 0:
            return out
        with nogil:
            sp_binom_curve_log_delta_ascending(&self.curve, &eps[0], <long> eps.shape[0],
                                               <sp_direction> direction, &res[0])
        return out

    cdef double _smallest_eps(self, double log_target, sp_direction d,
                              bint estimate) noexcept nogil:
        """The generic search, settled at large N on one exact sum (see
        sp_binom_smallest_eps in csrc/search.h)."""
        return sp_binom_smallest_eps(&self.curve, d, log_target, self.log_tol)


cdef double _sampled_zero_point(sp_curve_fn fn, const void *ctx, int direction, double l1g_hi):
    if direction != SP_MINUS or l1g_hi == -INFINITY:
        return INFINITY
    cdef double d = -l1g_hi
    cdef int _guard
    for _guard in range(8):          # the double-double low part moves it by < 1 ulp
        if fn(d, SP_MINUS, ctx) == -INFINITY:
            break
        d = nextafter(d, INFINITY)
    for _guard in range(8):
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

    cdef double _smallest_eps(self, double log_target, sp_direction d,
                              bint estimate) noexcept nogil:
        """At large N solved on the exact shift sums of Z with the
        reduction's moving target (sp_poisson_smallest_eps in
        csrc/poisson_sampling.h), else the generic search."""
        return sp_poisson_smallest_eps(&self.curve, d, log_target, self.log_tol, self.positive)


cdef class SampledShiftCurveCore(CurveCore):
    """Poisson sampling at rate g of a pair (P, Q) given by its curve (inner:
    plus = H(P || Q), minus = H(Q || P); a count Z: P = Z+1, Q = Z), the pair
    (g P + (1-g) Q, Q), by the reduction of sp_sampled_shift_curve
    (csrc/poisson_sampling.h); with ``without_replacement`` a g fraction
    sampled without replacement under replace-one (each direction its own
    pair).  0 <= g <= 1 (the caller checks)."""
    cdef sp_sampled_shift_curve curve
    cdef readonly object inner

    def __cinit__(self, CurveCore inner, double g, double l1g_hi, double l1g_lo,
                  bint without_replacement=False):
        self.inner = inner
        self.curve.inner = inner.fn
        self.curve.inner_ctx = inner.ctx
        self.curve.g = g
        self.curve.l1g_hi = l1g_hi
        self.curve.l1g_lo = l1g_lo
        self.curve.without_replacement = without_replacement
        self.fn = sp_sampled_shift_curve_log_delta
        self.ctx = &self.curve
        self.log_tol = inner.log_tol
        self.positive = 1 << SP_PLUS     # P(top + 1) = g Z(top) > 0 = Q(top + 1)

    def zero_point(self, int direction):
        """The smallest double with delta = 0 in a direction: -ln(1 - g)
        rounded up for SP_MINUS (where the curve's own test u >= 0 turns),
        +inf for SP_PLUS."""
        return _sampled_zero_point(self.fn, self.ctx, direction, self.curve.l1g_hi)


cdef struct _directions:
    sp_curve_fn plus_fn
    const void *plus_ctx
    sp_curve_fn minus_fn
    const void *minus_ctx


cdef double _directions_log_delta(double eps, sp_direction direction,
                                  const void *ctx) noexcept nogil:
    """ln delta_plus from the plus curve, ln delta_minus from the minus curve,
    ln delta their max."""
    cdef const _directions *c = <const _directions *> ctx
    if direction == SP_PLUS:
        return c.plus_fn(eps, SP_PLUS, c.plus_ctx)
    if direction == SP_MINUS:
        return c.minus_fn(eps, SP_MINUS, c.minus_ctx)
    return fmax(c.plus_fn(eps, SP_PLUS, c.plus_ctx), c.minus_fn(eps, SP_MINUS, c.minus_ctx))


cdef class DirectionsCurveCore(CurveCore):
    """A curve whose delta_plus is one core's and delta_minus another's (each
    direction its own pair of laws, as sampling without replacement under
    replace-one gives): delta = max of the two; epsilon each direction's own
    search (at delta = 0 its core's zero point, where it has one), for delta
    the larger of the two (both curves are non-increasing)."""
    cdef _directions curve
    cdef readonly CurveCore plus
    cdef readonly CurveCore minus
    cdef double zero_plus, zero_minus      # NaN: the core has no zero_point

    def __cinit__(self, CurveCore plus, CurveCore minus):
        self.plus, self.minus = plus, minus
        self.curve.plus_fn, self.curve.plus_ctx = plus.fn, plus.ctx
        self.curve.minus_fn, self.curve.minus_ctx = minus.fn, minus.ctx
        self.fn = _directions_log_delta
        self.ctx = &self.curve
        self.log_tol = max(plus.log_tol, minus.log_tol)
        cdef int p = (plus.positive >> SP_PLUS) & 1, m = (minus.positive >> SP_MINUS) & 1
        self.positive = (p << SP_PLUS) | (m << SP_MINUS) | ((p | m) << SP_MAX)
        self.zero_plus = max(plus.zero_point(SP_PLUS), 0.0) \
            if hasattr(plus, "zero_point") else float("nan")
        self.zero_minus = max(minus.zero_point(SP_MINUS), 0.0) \
            if hasattr(minus, "zero_point") else float("nan")

    cdef double _smallest_eps(self, double log_target, sp_direction d,
                              bint estimate) noexcept nogil:
        cdef double p = -INFINITY, m = -INFINITY
        cdef bint zero = log_target == -INFINITY
        if d != SP_MINUS:
            p = (self.zero_plus if zero and self.zero_plus == self.zero_plus
                 else self.plus._smallest_eps(log_target, SP_PLUS, estimate))
        if d != SP_PLUS:
            m = (self.zero_minus if zero and self.zero_minus == self.zero_minus
                 else self.minus._smallest_eps(log_target, SP_MINUS, estimate))
        return fmax(p, m)

    def zero_point(self, int direction):
        """Smallest double eps >= 0 with delta = 0 in a direction (inf if none)."""
        return self._smallest_eps(-INFINITY, <sp_direction> direction, True)


cdef const long double *_data(long double[::1] a) noexcept:
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
    ``closed_rest``: on noisy cells (a finite bound, 1024 cells or more, a
    monotone ratio) the sums stop by the closed form of the fully positive
    cells beyond, its error bound added: exact to ~2^-51 (csrc/pair_tail.h);
    False: by the rest's mass alone, added (up to 2^-40 above).
    The zero points -- the smallest eps with delta = 0, per direction -- are
    the largest log ratio over the cells (the bound for non-monotone Laplace
    cells); ``zero_point(direction)`` returns the smallest double at or
    above it (inf if delta > 0 at every finite eps)."""
    cdef sp_pair pair
    cdef sp_laplace_pair laplace   # the Laplace cells' data (the pair's cell callback context)
    cdef object arrays     # keeps the buffers alive
    cdef readonly bint monotone

    def __cinit__(self, lp, lq, lr, laplace=None, double max_log_ratio=INFINITY, lr_lo=None,
                  bint closed_rest=True):
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
        # noisy cells: the sums stop by the closed form of the fully positive
        # cells beyond (False: by the rest's mass alone, for tests)
        self.pair.closed_rest = closed_rest
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
            # ... whose upper bound spares a bounded max the smaller direction
            self.upper_fn = sp_pair_log_delta_upper
            self.upper_ctx = &self.pair

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


cdef class BoundedCurveCore(CurveCore):
    """A curve of laws given on a window plus the mass left out, bounded:
    ln of delta_window(eps) + rest * (1 - e^(eps - lr_max))_+, and exactly 0
    from eps = zero_plus (zero_minus for delta_minus) on (see bounded.h).
    discrete: laws without noise, whose rest may hold mass where the other law
    has none: delta(+inf) keeps the rest of a direction with lr_max = +inf
    (resp. lr_min = -inf)."""
    cdef sp_bounded b
    cdef sp_bounded b_est[3]   # the same bound on the window's estimates
    cdef object inner      # keeps the window's core alive

    def __cinit__(self, CurveCore inner, double log_rest_p, double log_rest_q,
                  double lr_max=INFINITY, double lr_min=-INFINITY,
                  double zero_plus=INFINITY, double zero_minus=INFINITY, bint discrete=False):
        self.inner = inner
        self.b.fn = inner.fn
        self.b.ctx = inner.ctx
        self.b.log_rest_p = log_rest_p
        self.b.log_rest_q = log_rest_q
        self.b.lr_max = lr_max
        self.b.lr_min = lr_min
        self.b.zero_plus = zero_plus
        self.b.zero_minus = zero_minus
        self.b.discrete = discrete
        self.b.upper = inner.upper_fn
        self.b.upper_ctx = inner.upper_ctx
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
                self.b_est[i].upper = NULL       # the estimates evaluate both directions
                self.b_est[i].fn = inner.est_fn
                self.b_est[i].ctx = inner.est_ctx[i]
                self.est_ctx[i] = &self.b_est[i]
            self.est_fn = sp_bounded_log_delta
            self.est_margin = inner.est_margin
