# The base class of every C curve's typed wrapper, declared here so that a
# room's own extension (e.g. statpriv/shuffle/_clones.pyx) can subclass it:
# `from statpriv._core cimport CurveCore`, set fn and ctx in __cinit__, and
# inherit log_delta / epsilon (see statpriv/_core.pyx for the contract).
from statpriv._csrc cimport sp_curve_fn


cdef class CurveCore:
    cdef sp_curve_fn fn
    cdef const void *ctx
    cdef public double log_tol
    cdef public int positive
