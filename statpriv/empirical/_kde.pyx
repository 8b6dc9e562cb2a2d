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


def _check(int rc, name):
    if rc != 0:
        raise MemoryError(f"{name}: out of memory")


def laplace_delta(a, rows, double s, double eps):
    """Exact (delta_plus, delta_minus) per row for Laplace kernels of scale s."""
    cdef double[::1] av = _c(a)
    cdef double[:, ::1] rv = _c(rows)
    cdef size_t count = rv.shape[0], m = rv.shape[1], n = av.shape[0]
    out = np.zeros((2, count))
    cdef double[:, ::1] ov = out
    cdef int rc = 0
    if count > 0:
        with nogil:
            rc = sp_kde_laplace_delta(&av[0], n, &rv[0, 0], m, count, s, eps,
                                      &ov[0, 0], &ov[1, 0])
    _check(rc, "sp_kde_laplace_delta")
    return out[0], out[1]


def bound_delta(int kernel, a, wa, rows, wrows, double eps, double tol):
    """Certified (delta_plus, delta_minus, bound) per row, widths per point."""
    cdef double[::1] av = _c(a), wav = _c(wa)
    cdef double[:, ::1] rv = _c(rows), wrv = _c(wrows)
    cdef size_t count = rv.shape[0], m = rv.shape[1], n = av.shape[0]
    out = np.zeros((3, count))
    cdef double[:, ::1] ov = out
    cdef int rc = 0
    if count > 0:
        with nogil:
            rc = sp_kde_bound_delta(<sp_kernel>kernel, &av[0], &wav[0], n, &rv[0, 0],
                                    &wrv[0, 0], m, count, eps, tol,
                                    &ov[0, 0], &ov[1, 0], &ov[2, 0])
    _check(rc, "sp_kde_bound_delta")
    return out[0], out[1], out[2]


def hist_delta(inner_edges, p_mass, rows, double eps):
    """Exact (delta_plus, delta_minus) per row for ECDF bins."""
    cdef double[::1] ev = _c(inner_edges), pm = _c(p_mass)
    cdef double[:, ::1] rv = _c(rows)
    cdef size_t count = rv.shape[0], m = rv.shape[1], nbins = pm.shape[0]
    out = np.zeros((2, count))
    cdef double[:, ::1] ov = out
    cdef int rc = 0
    cdef const double *edges = &ev[0] if ev.shape[0] > 0 else NULL
    if count > 0:
        with nogil:
            rc = sp_hist_delta(edges, nbins, &pm[0], &rv[0, 0], m, count, eps,
                               &ov[0, 0], &ov[1, 0])
    _check(rc, "sp_hist_delta")
    return out[0], out[1]


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


def box_delta(int kernel, a, rows, s, double eps, double tol, long max_boxes):
    """Certified (delta_plus, delta_minus, bound) per row for product kernels:
    a (n, d), rows (count, n, d) paired with a point by point, s (d,) widths."""
    cdef double[:, ::1] av = _c(a)
    cdef double[:, :, ::1] rv = _c(rows)
    cdef double[::1] sv = _c(s)
    cdef size_t count = rv.shape[0], n = av.shape[0]
    cdef int d = <int>av.shape[1]
    out = np.zeros((3, count))
    cdef double[:, ::1] ov = out
    cdef int rc = 0
    if count > 0:
        with nogil:
            rc = sp_kde_box_delta(<sp_kernel>kernel, d, &av[0, 0], &rv[0, 0, 0], n, count,
                                  &sv[0], eps, tol, max_boxes, &ov[0, 0], &ov[1, 0], &ov[2, 0])
    _check(rc, "sp_kde_box_delta")
    return out[0], out[1], out[2]
