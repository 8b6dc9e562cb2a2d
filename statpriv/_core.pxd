# The base class of every C curve's typed wrapper, declared here so that a
# room's own extension (e.g. statpriv/shuffle/_clones.pyx) can subclass it:
# `from statpriv._core cimport CurveCore`, set fn and ctx in __cinit__, and
# inherit log_delta / epsilon (see statpriv/_core.pyx for the contract); a
# kernel with its own inverse overrides _smallest_eps only.  The scalar methods
# (log_delta1, delta1, epsilon1, epsilon_of_delta1) are the same C calls on one
# value, for PrivacyCurve's scalar queries.
from statpriv._csrc cimport sp_curve_fn, sp_direction, sp_estimate


cdef class CurveCore:
    cdef sp_curve_fn fn
    cdef const void *ctx
    cdef public double log_tol
    cdef public int positive
    # fn is a closed form of ~0.1 us (the DP curves): log_delta1 keeps the GIL
    cdef bint closed_form
    # Optional (NULL when unused): a cheap estimate of ln delta for epsilon()
    # on three contexts: plain, upper bound, lower bound
    # (sp_smallest_eps_estimated: searched on the estimate, verified on fn)
    cdef sp_curve_fn est_fn
    cdef const void *est_ctx[3]
    cdef double est_margin     # the search's margin for the estimate's error (search.h)
    cdef sp_estimate estimates[3]   # est_ctx of a kernel's own estimate: 0, +1, -1
    # Optional (NULL when unused): a cheap upper bound on ln delta in one
    # direction, NaN where it has none (sp_bounded's `upper`, bounded.h)
    cdef sp_curve_fn upper_fn
    cdef const void *upper_ctx

    cdef void _set_estimate(self, sp_curve_fn fn, const void *curve, double margin)
    # epsilon() of one target, without the GIL: the generic search (on the
    # estimate if set); a kernel with its own search overrides only this
    cdef double _smallest_eps(self, double log_target, sp_direction d, bint estimate) noexcept nogil
    cpdef double log_delta1(self, double eps, int direction) except? -1
    cpdef double delta1(self, double eps, int direction) except? -1
    cpdef double epsilon1(self, double log_target, int direction, bint estimate=*) except? -1
    cpdef double epsilon_of_delta1(self, double delta, int direction) except? -1


# A long double memoryview's data pointer, for the rooms' own wrappers.
cdef const long double *_data(long double[::1] a) noexcept
