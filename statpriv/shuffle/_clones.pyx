# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Typed wrapper of csrc/shuffle.h: the clone-reduction curve of shuffled
eps0-LDP reports.  No validation here (statpriv.shuffle.clones does it);
every kernel call runs without the GIL, and the core is immutable after
construction, so one object may be queried from many threads."""
import numpy as np

from statpriv._core cimport CurveCore
from statpriv._csrc cimport *


cdef class ClonesCurveCore(CurveCore):
    """delta(eps) = sum_c Bin(n-1, e^-eps0)(c) H_eps(P_c || Q_c) (csrc/shuffle.h).

    log_delta and epsilon are CurveCore's; the search brackets from the closed form instead
    of the generic search, which would evaluate the curve far out in eps
    (slow there: the sum over c widens).  log_tol = 0: exact to 1e-13."""
    cdef sp_clones curve

    def __cinit__(self, double n, double eps0):
        sp_clones_init(&self.curve, n, eps0)
        self.fn = sp_clones_log_delta
        self.ctx = &self.curve

    cdef double _smallest_eps(self, double log_target, sp_direction d,
                              bint estimate) noexcept nogil:
        """Bracketed from the closed form's order of magnitude, then Illinois."""
        return sp_clones_smallest_eps(&self.curve, log_target, self.log_tol)

    def log_inner(self, double[::1] clones, double eps):
        """ln H_eps(P_c || Q_c) at each number of clones c."""
        cdef Py_ssize_t i, n = clones.shape[0]
        out = np.empty(n)
        cdef double[::1] res = out
        with nogil:
            for i in range(n):
                res[i] = sp_clones_log_inner(&self.curve, clones[i], eps)
        return out
