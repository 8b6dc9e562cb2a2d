# The base class of every C curve core (defined in statpriv/_core.pyx): other
# typed wrappers cimport it to subclass it (`from statpriv._core cimport CurveCore`).
from statpriv._csrc cimport sp_curve_fn


cdef class CurveCore:
    cdef sp_curve_fn fn
    cdef const void *ctx
    cdef public double log_tol
    cdef public int positive
