# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Typed wrappers over csrc/thresholding.c and csrc/k_anonymity.c.

Nothing here validates input: statpriv.thresholding (thresholded) and
statpriv.thresholding.k_anonymity do that and document the formulas.  The
cores subclass statpriv._core.CurveCore (log_delta, epsilon: the interface
statpriv.curve.PrivacyCurve calls).  Every loop runs without the GIL; the
cores are immutable after construction (the arrays they read are kept alive
here), so one curve may be queried from many threads.
"""
import numpy as np
cimport numpy as cnp

from statpriv._csrc cimport *
from statpriv._core cimport CurveCore

cnp.import_array()


def _ld(a):
    return np.ascontiguousarray(a, dtype=np.longdouble)


cdef long double *_p(long double[::1] a) noexcept nogil:
    return &a[0] if a.shape[0] > 0 else NULL


cdef class ThresholdCore(CurveCore):
    """Thresholded count (csrc/thresholding.h): Z's window (ln pmf lz on
    first.., the log ratios lr, len + 1 entries), the thresholds t (non-
    increasing) and, for the passive attacker, their log weights lw;
    optional refinements (None: unused): lr_lo the low parts of lr, lb_hi +
    lb_lo = ln F(t-1)/F(t-2) per threshold.  ``fast`` (default): the sums
    from the threshold cells outward with a bounded rest where they apply
    (sp_thr_prepare); False: one full sweep of the window per query."""
    cdef sp_thr_curve c
    cdef object arrays          # keeps the buffers the context points into alive

    def __cinit__(self, lz, lr, long first, t, lw, double log_rest, double log_rest_b,
                  lr_lo=None, lb_hi=None, lb_lo=None, bint fast=True):
        cdef long double[::1] vz = _ld(lz)
        cdef long double[::1] vr = _ld(lr)
        cdef long double[::1] vc = np.empty(vz.shape[0], dtype=np.longdouble)
        cdef long[::1] vt = np.ascontiguousarray(t, dtype=np.int_)
        cdef long double[::1] vw
        cdef long double[::1] vrl = None
        cdef long double[::1] vbh = None
        cdef long double[::1] vbl = None
        cdef long double[::1] vsz, vws, vwp
        if vz.shape[0] == 0 or vr.shape[0] != vz.shape[0] + 1 or vt.shape[0] == 0:
            raise ValueError("statpriv internal error: bad thresholding window; please report")
        with nogil:
            sp_log_cumsum(&vz[0], vz.shape[0], 0, &vc[0])
        self.c.lz = &vz[0]
        self.c.lr = &vr[0]
        self.c.lcz = &vc[0]
        self.c.first = first
        self.c.len = vz.shape[0]
        self.c.t = &vt[0]
        self.c.nt = vt.shape[0]
        self.c.lw = NULL
        if lw is not None:
            vw = _ld(lw)
            self.c.lw = &vw[0]
        else:
            vw = None
        self.c.lr_lo = NULL
        if lr_lo is not None:
            vrl = _ld(lr_lo)
            if vrl.shape[0] != vr.shape[0]:
                raise ValueError("statpriv internal error: bad thresholding refinement")
            self.c.lr_lo = &vrl[0]
        self.c.lb_hi = NULL
        self.c.lb_lo = NULL
        if lb_hi is not None:
            vbh = _ld(lb_hi)
            vbl = _ld(lb_lo)
            if vbh.shape[0] != vt.shape[0] or vbl.shape[0] != vt.shape[0]:
                raise ValueError("statpriv internal error: bad thresholding refinement")
            self.c.lb_hi = &vbh[0]
            self.c.lb_lo = &vbl[0]
        self.c.log_rest = log_rest
        self.c.log_rest_b = log_rest_b
        vsz = np.empty(vz.shape[0], dtype=np.longdouble)
        vws = np.empty(max(vt.shape[0], 1), dtype=np.longdouble)
        vwp = np.empty(max(vt.shape[0], 1), dtype=np.longdouble)
        with nogil:
            sp_thr_prepare(&self.c, &vsz[0], &vws[0], &vwp[0])
        if not fast:
            self.c.fast = 0
        self.arrays = (vz, vr, vc, vt, vw, vrl, vbh, vbl, vsz, vws, vwp)
        self.fn = sp_thr_curve_log_delta
        self.ctx = &self.c

    @property
    def fast(self):
        """Whether queries take the sums from the threshold cells outward."""
        return bool(self.c.fast)


cdef class KAnonymityCore(CurveCore):
    """k-anonymity, two released counts (csrc/k_anonymity.h): the laws of
    m = A + B and A | m, the window [m_lo, m_hi] of m, and for the lower
    curve the windows of A over its (u, bottom) cells (where B < k) and of B
    over its (bottom, v) cells (where A < k)."""
    cdef sp_kanon_curve c
    cdef object arrays

    def __cinit__(self, double n_others, double pa, double pb, long k, bint upper, long m_lo,
                  long m_hi, a_window, b_window, double log_rest, refined=None):
        cdef long a_lo = a_window[0], a_hi = a_window[1], b_lo = b_window[0], b_hi = b_window[1]
        cdef long count, u_first, nu, v_first, nv
        cdef long double[::1] mx, my, mc, pu, qu, pv, qv, line, vbb
        sp_kanon_init(&self.c, n_others, pa, pb, k, upper)
        self.c.m_lo = m_lo
        self.c.m_hi = m_hi
        self.c.log_rest = log_rest
        if upper:
            count = max(0, min(m_hi, 2 * k - 3) - m_lo + 1)
            mx, my, mc = (np.empty(count, dtype=np.longdouble) for _ in range(3))
            with nogil:
                sp_kanon_fill_merged(&self.c, count, _p(mx), _p(my), _p(mc))
            self.arrays = (mx, my, mc)
            if refined is not None:
                # ln P/Q of the merged cells as hi + lo
                rh, rl = _ld(refined[0]), _ld(refined[1])
                if len(rh) != count or len(rl) != count:
                    raise ValueError("statpriv internal error: bad k-anonymity refinement")
                if count > 0:
                    self.c.merged_hi, self.c.merged_lo = _p(rh), _p(rl)
                self.arrays += (rh, rl)
        else:
            # (u, bottom) cells: u - 1 or u in A's window, u >= k
            u_first = max(k, a_lo)
            nu = max(0, a_hi + 1 - u_first + 1)
            v_first = max(k, b_lo)
            nv = max(0, b_hi + 1 - v_first + 1)
            pu = np.empty(nu, dtype=np.longdouble)
            qu = np.empty(nu, dtype=np.longdouble)
            pv = np.empty(nv, dtype=np.longdouble)
            qv = np.empty(nv, dtype=np.longdouble)
            line = np.empty(max(k, 1), dtype=np.longdouble)      # workspace
            with nogil:     # (the suppressed count summed whole over 0 .. k-1)
                sp_kanon_fill_lower(&self.c, 0, k - 1, 0, k - 1, u_first, nu, _p(pu), _p(qu),
                                    v_first, nv, _p(pv), _p(qv), _p(line))
            self.arrays = (pu, qu, pv, qv)
            if refined is not None:
                # ln P/Q of the one-suppressed cells and of (bottom, bottom) as hi + lo
                lu_hi, lu_lo, lv_hi, lv_lo, bb = refined
                lu_hi, lu_lo, lv_hi, lv_lo = _ld(lu_hi), _ld(lu_lo), _ld(lv_hi), _ld(lv_lo)
                if len(lu_hi) != nu or len(lv_hi) != nv:
                    raise ValueError("statpriv internal error: bad k-anonymity refinement")
                self.c.lu_hi, self.c.lu_lo = _p(lu_hi), _p(lu_lo)
                self.c.lv_hi, self.c.lv_lo = _p(lv_hi), _p(lv_lo)
                vbb = _ld(bb)          # as long doubles: a double lo may be denormal
                self.c.bb_hi, self.c.bb_lo = vbb[0], vbb[1]
                self.c.bb_refined = 1
                self.arrays += (lu_hi, lu_lo, lv_hi, lv_lo)
        self.fn = sp_kanon_curve_log_delta
        self.ctx = &self.c

    def log_f(self, long a, long b):
        """ln P[A = a, B = b] (for tests)."""
        return sp_kanon_log_f(&self.c, a, b)


def binomial_log_ratios(N, double pi, long first, long last):
    """ln b(k-1)/b(k) of Bin(N, pi) for k = first+1..last, with -inf before
    and +inf after (last - first + 2 long doubles; 0 < pi < 1): the C sweep
    sp_thr_binomial_log_ratios.  N (an int) reaches C as the long double
    numpy would make of it: hi + lo, two exact doubles, summed once."""
    cdef double hi = float(N)
    cdef double lo = float(N - int(hi))
    cdef long double n = <long double>hi + <long double>lo
    cdef long length = last - first + 1
    out = np.empty(length + 1, dtype=np.longdouble)
    cdef long double[::1] v = out
    with nogil:
        sp_thr_binomial_log_ratios(n, pi, first, length, &v[0])
    return out


def thr_refine(lr, long first, t, double N=0.0, double pi=0.0, p=None, long lo=0):
    """(lr_lo, lb_hi, lb_lo) for ThresholdCore (csrc/thresholding.h): Z ~
    Bin(N, pi) (p None) or Z = ones + a sum of Bernoulli(p) whose window
    starts at atom lo of that sum; one C sweep in doubled long double."""
    cdef long double[::1] vr = _ld(lr)
    cdef long[::1] vt = np.ascontiguousarray(t, dtype=np.int_)
    cdef long length = vr.shape[0] - 1
    cdef long nt = vt.shape[0]
    cdef long double[::1] lr_lo = np.zeros(length + 1, dtype=np.longdouble)
    cdef long double[::1] lb_hi = np.empty(nt, dtype=np.longdouble)
    cdef long double[::1] lb_lo = np.empty(nt, dtype=np.longdouble)
    cdef double[::1] vp
    cdef int rc = 0
    if length < 1 or nt < 1:
        raise ValueError("statpriv internal error: bad thresholding refinement; please report")
    if p is None:
        with nogil:
            sp_thr_refine_binomial(N, pi, first, length, &vr[0], &vt[0], nt, &lr_lo[0],
                                   &lb_hi[0], &lb_lo[0])
    else:
        vp = np.ascontiguousarray(p, dtype=np.float64)
        with nogil:
            rc = sp_thr_refine_records(&vp[0] if vp.shape[0] else NULL, vp.shape[0], lo, first,
                                       length, &vr[0], &vt[0], nt, &lr_lo[0], &lb_hi[0],
                                       &lb_lo[0])
        _check_refine(rc, "thresholding")
    return np.asarray(lr_lo), np.asarray(lb_hi), np.asarray(lb_lo)


def _check_refine(int rc, what):
    if rc == -2:
        raise ValueError(f"statpriv internal error: bad {what} refinement; please report")
    if rc != 0:
        raise MemoryError(f"statpriv: the {what} refinement could not allocate its tables")


def kanon_refine_merged(double pa, double pb, long k, long m_lo, long count):
    """(hi, lo): ln P/Q of the upper k-anonymity curve's merged cells
    (csrc/k_anonymity.h, sp_kanon_refine_merged)."""
    cdef long double[::1] hi = np.zeros(max(count, 0), dtype=np.longdouble)
    cdef long double[::1] lo = np.zeros(max(count, 0), dtype=np.longdouble)
    cdef int rc
    with nogil:
        rc = sp_kanon_refine_merged(pa, pb, k, m_lo, count, _p(hi), _p(lo))
    _check_refine(rc, "k-anonymity")
    return np.asarray(hi), np.asarray(lo)


def kanon_refine_lower(double N, double pa, double pb, long k, long u_first, long nu,
                       long v_first, long nv):
    """(lu_hi, lu_lo, lv_hi, lv_lo, bb): ln P/Q of the lower k-anonymity
    curve's suppressed cells (csrc/k_anonymity.h, sp_kanon_refine_lower)."""
    cdef long double[::1] lu_hi = np.zeros(max(nu, 0), dtype=np.longdouble)
    cdef long double[::1] lu_lo = np.zeros(max(nu, 0), dtype=np.longdouble)
    cdef long double[::1] lv_hi = np.zeros(max(nv, 0), dtype=np.longdouble)
    cdef long double[::1] lv_lo = np.zeros(max(nv, 0), dtype=np.longdouble)
    cdef long double[::1] bb = np.zeros(2, dtype=np.longdouble)
    cdef int rc
    with nogil:
        rc = sp_kanon_refine_lower(N, pa, pb, k, u_first, nu, v_first, nv, _p(lu_hi),
                                   _p(lu_lo), _p(lv_hi), _p(lv_lo), &bb[0])
    _check_refine(rc, "k-anonymity")
    return (np.asarray(lu_hi), np.asarray(lu_lo), np.asarray(lv_hi), np.asarray(lv_lo),
            np.asarray(bb))
