# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Typed wrappers over csrc/correlated_counts.c.

Nothing here validates input: statpriv.correlated does that and documents
the formulas.  ``lattice_log_law`` and ``two_window_law`` run the C kernels
without the GIL; ``WindowCore`` is the curve of one target pair on the box
of ``two_window_law`` (the law kept alive here, read-only); ``MaxCore`` is a
statpriv._core.CurveCore whose C function is the maximum of other cores'
curves (kept alive here); both immutable after construction.
"""
import numpy as np
cimport numpy as cnp
from libc.stdlib cimport malloc, free

from statpriv._csrc cimport *
from statpriv._core cimport CurveCore

cnp.import_array()


def lattice_log_law(long k, long N, joint):
    """ln P[S = s] on [0, N]^k as a (N + 1,) * k long double array
    (csrc/correlated_counts.h: sp_corr_two_log_law for k = 2, else
    sp_corr_lattice_log_law)."""
    cdef double[::1] vj = np.ascontiguousarray(joint, dtype=np.float64)
    out = np.empty(int(N + 1) ** int(k), dtype=np.longdouble)
    cdef long double[::1] vo = out
    cdef long extra = 2 * (N + 1) if k == 2 else 0
    cdef long double[::1] vw = np.empty(out.shape[0] + extra, dtype=np.longdouble)
    cdef int rc
    if vj.shape[0] != (1 << k):
        raise ValueError("statpriv internal error: bad correlated-counts joint; please report")
    with nogil:
        if k == 2:
            rc = sp_corr_two_log_law(N, &vj[0], &vo[0], &vw[0])
        else:
            rc = sp_corr_lattice_log_law(k, N, &vj[0], &vo[0], &vw[0])
    if rc != 0:
        raise ValueError("statpriv internal error: bad correlated-counts lattice; please report")
    return out.reshape((N + 1,) * k)


def lattice_log_law_by_records(long k, long N, joint):
    """sp_corr_lattice_log_law for any k (the record-by-record kernel; for
    the tests of the k = 2 kernel)."""
    cdef double[::1] vj = np.ascontiguousarray(joint, dtype=np.float64)
    out = np.empty(int(N + 1) ** int(k), dtype=np.longdouble)
    cdef long double[::1] vo = out
    cdef long double[::1] vw = np.empty(out.shape[0], dtype=np.longdouble)
    cdef int rc
    if vj.shape[0] != (1 << k):
        raise ValueError("statpriv internal error: bad correlated-counts joint; please report")
    with nogil:
        rc = sp_corr_lattice_log_law(k, N, &vj[0], &vo[0], &vw[0])
    if rc != 0:
        raise ValueError("statpriv internal error: bad correlated-counts lattice; please report")
    return out.reshape((N + 1,) * k)


def two_window_law(long N, joint, long m_lo, long m_hi, long c_lo, long c_hi, double cut):
    """L(m, c) = P[S = (m, c)] on the box [m_lo, m_hi] x [c_lo, c_hi] as a
    (rows, cols) float64 array of probabilities (csrc/correlated_counts.h:
    sp_corr_two_window_law, a tree of positive convolutions)."""
    cdef double[::1] vj = np.ascontiguousarray(joint, dtype=np.float64)
    out = np.empty((m_hi - m_lo + 1) * (c_hi - c_lo + 1), dtype=np.float64)
    cdef double[::1] vo = out
    cdef int rc
    if vj.shape[0] != 4:
        raise ValueError("statpriv internal error: bad correlated-counts joint; please report")
    with nogil:
        rc = sp_corr_two_window_law(N, &vj[0], m_lo, m_hi, c_lo, c_hi, cut, &vo[0])
    if rc == -1:
        raise MemoryError("statpriv: the correlated-counts window could not allocate its "
                          "workspace")
    if rc != 0:
        raise ValueError("statpriv internal error: bad correlated-counts window; please report")
    return out.reshape((m_hi - m_lo + 1, c_hi - c_lo + 1))


def window_resolved(long N, joint, long m_lo, long c_lo, law, long d_row, long d_col,
                    double cell_floor, double partner_floor):
    """(index, log_ratio): the cells of the box of two_window_law (from
    (m_lo, c_lo) of the lattice) at least cell_floor whose partner s + d the
    box holds below partner_floor, and ln L(s + d) / L(s) in log space
    (csrc/correlated_counts.h: sp_corr_window_resolve)."""
    cdef double[::1] vj = np.ascontiguousarray(joint, dtype=np.float64)
    cdef const double[::1] flat = np.ascontiguousarray(law, dtype=np.float64).reshape(-1)
    cdef long rows = law.shape[0], cols = law.shape[1], count
    if vj.shape[0] != 4 or law.ndim != 2:
        raise ValueError("statpriv internal error: bad correlated-counts box; please report")
    with nogil:
        count = sp_corr_window_resolve(N, &vj[0], m_lo, c_lo, &flat[0], rows, cols, d_row,
                                       d_col, cell_floor, partner_floor, NULL, NULL, 0)
    if count < 0:
        raise ValueError("statpriv internal error: bad correlated-counts box; please report")
    index = np.empty(count, dtype=np.int64)
    ratio = np.empty(count, dtype=np.float64)
    cdef long[::1] vi = index
    cdef double[::1] vr = ratio
    if count > 0:
        with nogil:
            sp_corr_window_resolve(N, &vj[0], m_lo, c_lo, &flat[0], rows, cols, d_row, d_col,
                                   cell_floor, partner_floor, &vi[0], &vr[0], count)
    index.flags.writeable = False
    ratio.flags.writeable = False
    return index, ratio


cdef class WindowCore(CurveCore):
    """delta of one target pair on the box of two_window_law
    (sp_corr_window_log_delta): the law (kept alive here, read-only), the
    pair's shift d = x - x', the bound on the mass outside the box, added,
    and the resolved cells of each direction (window_resolved for d and for
    -d: (index, log_ratio, index, log_ratio), kept alive here)."""
    cdef sp_corr_window c
    cdef object law
    cdef object resolved

    def __cinit__(self, law, long d_row, long d_col, double tail, resolved):
        if law.ndim != 2 or law.dtype != np.float64 or not law.flags.c_contiguous:
            raise ValueError("statpriv internal error: bad correlated-counts box; please report")
        cdef const double[::1] flat = law.reshape(-1)
        cdef const long[::1] vi
        cdef const double[::1] vr
        cdef int which
        self.law = law
        self.c.law = &flat[0]
        law.flags.writeable = False
        self.c.rows = law.shape[0]
        self.c.cols = law.shape[1]
        self.c.d_row = d_row
        self.c.d_col = d_col
        self.c.tail = tail
        self.resolved = tuple(np.ascontiguousarray(a, dtype=np.int64 if i % 2 == 0 else
                                                   np.float64) for i, a in enumerate(resolved))
        if len(self.resolved) != 4:
            raise ValueError("statpriv internal error: bad correlated-counts cells; please report")
        for which in range(2):
            vi = self.resolved[2 * which]
            vr = self.resolved[2 * which + 1]
            if vi.shape[0] != vr.shape[0]:
                raise ValueError("statpriv internal error: bad correlated-counts cells; "
                                 "please report")
            self.c.n_resolved[which] = vi.shape[0]
            self.c.resolved[which] = &vi[0] if vi.shape[0] > 0 else NULL
            self.c.resolved_log[which] = &vr[0] if vr.shape[0] > 0 else NULL
        self.log_tol = 0.0
        # the tail, if any, is added at every eps: delta > 0 in every direction
        self.positive = ((1 << SP_PLUS) | (1 << SP_MINUS) | (1 << SP_MAX)) if tail > 0 else 0
        self.fn = sp_corr_window_log_delta
        self.ctx = &self.c


cdef int _fill_box(sp_corr_box *box, long N, joint, window, double cut,
                   int threads) except -1:
    """box's law fields from the joint (8 entries) and the window
    (m_lo, m_hi, b_lo, b_hi, c_lo, c_hi); threads: 2 to build the root's
    halves at once, 1 in turn (the same numbers)."""
    cdef double[::1] vj = np.ascontiguousarray(joint, dtype=np.float64)
    cdef int v
    if vj.shape[0] != 8 or len(window) != 6 or threads not in (1, 2):
        raise ValueError("statpriv internal error: bad correlated-counts box; please report")
    box.N = N
    for v in range(8):
        box.joint[v] = vj[v]
    box.m_lo, box.m_hi, box.b_lo, box.b_hi, box.c_lo, box.c_hi = window
    box.cut = cut
    box.shifts = NULL
    box.count = 0
    box.tail = 0.0
    box.threads = threads
    return 0


def three_box_law(long N, joint, window, double cut, int threads=2):
    """(L, dropped): L(m, c2, c3) = P[S = (m, c2, c3)] on the box window =
    (m_lo, m_hi, b_lo, b_hi, c_lo, c_hi) as a float64 array of
    probabilities, and the bound on the mass its cut lost
    (csrc/correlated_counts.h: sp_corr_three_box_law)."""
    cdef sp_corr_box box
    _fill_box(&box, N, joint, window, cut, threads)
    shape = (box.m_hi - box.m_lo + 1, box.b_hi - box.b_lo + 1, box.c_hi - box.c_lo + 1)
    out = np.empty(int(np.prod(shape)), dtype=np.float64)
    cdef double[::1] vo = out
    cdef double dropped = 0.0
    cdef int rc
    with nogil:
        rc = sp_corr_three_box_law(&box, &vo[0], &dropped)
    if rc == -1:
        raise MemoryError("statpriv: the correlated-counts box could not allocate its workspace")
    if rc != 0:
        raise ValueError("statpriv internal error: bad correlated-counts box; please report")
    return out.reshape(shape), dropped


cdef class BoxCore(CurveCore):
    """delta of k = 3 counts on a box (sp_corr_box_log_delta): the largest
    over the given shifts d = x - x' (n x 3) in the direction asked, the
    box rebuilt slice by slice at each call, the bound on the mass outside
    the box (``tail``) and the one on the cut mass added."""
    cdef sp_corr_box c
    cdef object shifts

    def __cinit__(self, long N, joint, window, double cut, shifts, double tail,
                  int threads=2):
        _fill_box(&self.c, N, joint, window, cut, threads)
        arr = np.ascontiguousarray(shifts, dtype=np.int64)
        if arr.ndim != 2 or arr.shape[1] != 3 or arr.shape[0] == 0:
            raise ValueError("statpriv internal error: bad correlated-counts shifts; please report")
        arr.flags.writeable = False
        self.shifts = arr
        cdef const long[:, ::1] vs = arr
        self.c.shifts = &vs[0, 0]
        self.c.count = arr.shape[0]
        self.c.tail = tail
        self.log_tol = 0.0
        self.positive = ((1 << SP_PLUS) | (1 << SP_MINUS) | (1 << SP_MAX)) if tail > 0 else 0
        self.fn = sp_corr_box_log_delta
        self.ctx = &self.c


cdef class MaxCore(CurveCore):
    """max over the given cores of their ln delta in direction max, for
    every direction (sp_corr_max_log_delta: the worst case over a set of
    pairs closed under swapping); epsilon() is the generic search on it."""
    cdef sp_corr_max_curve c
    cdef sp_curve_fn *fns
    cdef const void **ctxs
    cdef object cores          # keeps the inner cores (and their C state) alive

    def __cinit__(self, cores):
        cdef CurveCore inner
        cdef long i, n = len(cores)
        if n == 0:
            raise ValueError("statpriv internal error: a maximum of no curve; please report")
        self.cores = tuple(cores)
        self.fns = <sp_curve_fn *> malloc(n * sizeof(sp_curve_fn))
        self.ctxs = <const void **> malloc(n * sizeof(void *))
        if self.fns == NULL or self.ctxs == NULL:
            raise MemoryError("statpriv: the worst-case curve could not allocate its table")
        self.log_tol = 0.0
        self.positive = 0
        for i in range(n):
            inner = self.cores[i]
            self.fns[i] = inner.fn
            self.ctxs[i] = inner.ctx
            self.log_tol = max(self.log_tol, inner.log_tol)
            # every direction is the inner curves' max: delta > 0 at every
            # finite eps there if one inner curve's max is
            if (inner.positive >> SP_MAX) & 1:
                self.positive = (1 << SP_PLUS) | (1 << SP_MINUS) | (1 << SP_MAX)
        self.c.fns = self.fns
        self.c.ctxs = self.ctxs
        self.c.count = n
        self.fn = sp_corr_max_log_delta
        self.ctx = &self.c

    def __dealloc__(self):
        free(self.fns)
        free(<void *> self.ctxs)
