# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Typed wrappers of the accounting kernels (csrc/renyi.h) for statpriv.renyi.

No validation here: statpriv.renyi checks its input.  The GIL is released
around every loop over atoms.
"""
import numpy as np

from statpriv._csrc cimport *


def renyi_log_moment(log_p, loss, double t):
    """ln sum_i e^(log_p[i] + t loss[i]) (long double in, long double out)."""
    cdef const long double[::1] a = np.ascontiguousarray(log_p, dtype=np.longdouble)
    cdef const long double[::1] b = np.ascontiguousarray(loss, dtype=np.longdouble)
    cdef long n = a.shape[0]
    cdef long double out = -np.inf
    if b.shape[0] != n:
        raise ValueError("renyi_log_moment: log_p and loss of different lengths")
    if n:
        with nogil:
            out = sp_renyi_log_moment(&a[0], &b[0], n, t)
    return np.longdouble(out)
