# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Typed wrappers over csrc/partial_knowledge.h: the vertex sweep (the exact
worst case over [p, 1-p]^N, generic over the target's report pair) and the
privacy-blanket sum.  Nothing here validates input (statpriv.partial_knowledge
and statpriv.shuffle do); every loop runs without the GIL.  The cores subclass CurveCore
(log_delta, epsilon) and override only its search (_smallest_eps)."""
import numpy as np
cimport numpy as cnp
from libc.stdlib cimport malloc, free

from statpriv._core cimport CurveCore
from statpriv._csrc cimport *

cnp.import_array()


cdef class VertexCore(CurveCore):
    """The worst case over the vertices a = 0..N of [p, 1-p]^N, with the
    target's report Bernoulli(1 - q0) under P and Bernoulli(q0) under Q:
    a shift (q0 = 0) or, with rr = eps0 > 0, eps0-randomized response
    (q0 = p = 1 / (1 + e^eps0), carried exactly from eps0: p is ignored)."""
    cdef sp_vertex_sys sys

    def __cinit__(self, double N, double p, double rr=0.0):
        if rr > 0.0:
            sp_vertex_init_rr(&self.sys, N, rr)
        else:
            sp_vertex_init(&self.sys, N, p, 0.0, 1.0)
        self.fn = sp_vertex_curve_log_delta
        self.ctx = &self.sys

    @property
    def zero_point(self):
        """The smallest eps with delta = 0 (eps0 for randomized response,
        +inf for a shift)."""
        return self.sys.eps0

    cdef double _smallest_eps(self, double log_target, sp_direction d,
                              bint estimate) noexcept nogil:
        """Every vertex searched only where it exceeds the running answer
        (sp_vertex_smallest_eps)."""
        return sp_vertex_smallest_eps(&self.sys, log_target, self.log_tol)

    def vertex_log_delta(self, double[::1] a, double eps):
        """ln H_eps(P_a || Q_a) at each vertex a (eps >= 0)."""
        cdef Py_ssize_t i, n = a.shape[0]
        out = np.empty(n)
        cdef double[::1] res = out
        with nogil:
            for i in range(n):
                res[i] = sp_vertex_log_hockey(&self.sys, a[i], eps)
        return out

    def bounds(self, double[::1] n1, double[::1] n2, double eps, double depth):
        """(upper, lower) ln H_eps(P || Q) on Bin(n1, p) + Bin(n2, 1 - p) for
        each pair, on the window of depth nats (sp_vertex_log_hockey_bounds)."""
        cdef Py_ssize_t i, n = n1.shape[0]
        up = np.empty(n)
        lo = np.empty(n)
        cdef double[::1] ru = up
        cdef double[::1] rl = lo
        with nogil:
            for i in range(n):
                ru[i] = sp_vertex_log_hockey_bounds(&self.sys, n1[i], n2[i], eps, depth, &rl[i])
        return up, lo

    def window_epsilon(self, double[::1] n1, double[::1] n2, double depth, double log_target):
        """The smallest eps with the windowed upper bound <= the aim of
        log_target, for each law Bin(n1, p) + Bin(n2, 1 - p)."""
        cdef Py_ssize_t i, n = n1.shape[0]
        out = np.empty(n)
        cdef double[::1] res = out
        with nogil:
            for i in range(n):
                res[i] = sp_vertex_window_smallest_eps(&self.sys, n1[i], n2[i], depth, log_target,
                                                       self.log_tol)
        return out

    def worst(self, double eps):
        """(ln delta, argmax a) over the swept vertices at eps >= 0."""
        cdef double arg = 0.0, v
        with nogil:
            v = sp_vertex_worst_log_hockey(&self.sys, eps, &arg)
        return v, arg


cdef class BlanketCore(CurveCore):
    """The privacy-blanket bound sum_b Bin(N, 2p)(b) H_eps(A_b + 1 || A_b)
    (sp_blanket in csrc/partial_knowledge.h; the window of b is built once)."""
    cdef sp_blanket bl
    cdef long double *work

    def __cinit__(self, double N, double p, double rel_tol):
        cdef long n = sp_blanket_work_len(N, p)
        self.work = <long double *>malloc(n * sizeof(long double))
        if self.work == NULL:
            raise MemoryError("privacy blanket: no memory for the window")
        if sp_blanket_init(&self.bl, N, p, rel_tol, self.work, n):
            raise MemoryError("privacy blanket: window larger than its buffer")
        self.fn = sp_blanket_curve_log_delta
        self.ctx = &self.bl

    cdef double _smallest_eps(self, double log_target, sp_direction d,
                              bint estimate) noexcept nogil:
        """Searched from the eps of the law at the mean b
        (sp_blanket_smallest_eps): a few evaluations of the sum."""
        return sp_blanket_smallest_eps(&self.bl, log_target, self.log_tol)

    def __dealloc__(self):
        free(self.work)
