# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Typed wrappers over csrc/kde.c (empirical differential privacy).

No validation here: statpriv.empirical checks its input.  Arrays are float64,
C-contiguous; the reference set ``a`` and every row of ``rows`` are sorted
ascending.  The loop over rows (individuals) runs in C without the GIL.
"""
import numpy as np
cimport numpy as cnp

from statpriv._csrc cimport *

cnp.import_array()

GAUSS = SP_KERNEL_GAUSS
LAPLACE = SP_KERNEL_LAPLACE


def _c(x):
    return np.ascontiguousarray(x, dtype=np.float64)


def laplace_delta(a, rows, double s, double eps):
    """Exact (delta_plus, delta_minus) per row for Laplace kernels of scale s."""
    cdef double[::1] av = _c(a)
    cdef double[:, ::1] rv = _c(rows)
    cdef size_t count = rv.shape[0], m = rv.shape[1], n = av.shape[0]
    plus = np.empty(count)
    minus = np.empty(count)
    cdef double[::1] pv = plus, mv = minus
    cdef int rc = 0
    if count == 0:
        return plus, minus
    with nogil:
        rc = sp_kde_laplace_delta(&av[0], n, &rv[0, 0], m, count, s, eps, &pv[0], &mv[0])
    if rc != 0:
        raise MemoryError("sp_kde_laplace_delta: out of memory")
    return plus, minus


def bound_delta(int kernel, a, wa, rows, wrows, double eps, double tol):
    """Certified (delta_plus, delta_minus, bound) per row, widths per point."""
    cdef double[::1] av = _c(a), wav = _c(wa)
    cdef double[:, ::1] rv = _c(rows), wrv = _c(wrows)
    cdef size_t count = rv.shape[0], m = rv.shape[1], n = av.shape[0]
    plus = np.empty(count)
    minus = np.empty(count)
    bound = np.empty(count)
    cdef double[::1] pv = plus, mv = minus, bv = bound
    cdef int rc = 0
    if count == 0:
        return plus, minus, bound
    with nogil:
        rc = sp_kde_bound_delta(<sp_kernel>kernel, &av[0], &wav[0], n, &rv[0, 0], &wrv[0, 0],
                                m, count, eps, tol, &pv[0], &mv[0], &bv[0])
    if rc != 0:
        raise MemoryError("sp_kde_bound_delta: out of memory")
    return plus, minus, bound


def hist_delta(inner_edges, p_mass, rows, double eps):
    """Exact (delta_plus, delta_minus) per row for ECDF bins."""
    cdef double[::1] ev = _c(inner_edges), pm = _c(p_mass)
    cdef double[:, ::1] rv = _c(rows)
    cdef size_t count = rv.shape[0], m = rv.shape[1], nbins = pm.shape[0]
    plus = np.empty(count)
    minus = np.empty(count)
    cdef double[::1] pv = plus, mv = minus
    cdef int rc = 0
    cdef const double *edges = &ev[0] if ev.shape[0] > 0 else NULL
    if count == 0:
        return plus, minus
    with nogil:
        rc = sp_hist_delta(edges, nbins, &pm[0], &rv[0, 0], m, count, eps, &pv[0], &mv[0])
    if rc != 0:
        raise MemoryError("sp_hist_delta: out of memory")
    return plus, minus


def hausdorff(a, rows):
    """Hausdorff distance between the sorted set a and each sorted row."""
    cdef double[::1] av = _c(a)
    cdef double[:, ::1] rv = _c(rows)
    cdef size_t count = rv.shape[0], m = rv.shape[1], n = av.shape[0]
    out = np.empty(count)
    cdef double[::1] ov = out
    if count == 0:
        return out
    with nogil:
        sp_hausdorff(&av[0], n, &rv[0, 0], m, count, &ov[0])
    return out
