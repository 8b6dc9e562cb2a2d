# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Typed loops of the Fourier-domain composition (statpriv.accounting.composition.fourier).

* ``power``: z^k of every entry of a complex spectrum by repeated squaring,
  one entry at a time -- the same products, in the same order, as squaring
  whole arrays (so the same rounding and the same a-priori bound), without
  the log2(k) passes over an array of 10^5-10^6 entries that numpy makes.
* ``suffix_sums``: the read-back's two discounted suffix sums,
  w_j = u_j + a w_(j+1) and e_j = w_j + b e_(j+1), d_j = scale e_(j+1),
  in one backward pass.  Every term is >= 0 and every factor in (0, 1], so
  nothing overflows and nothing cancels: each step is one product and one
  sum, the factor's own rounding one more, so a term i - j steps away
  carries at most 3 (i - j) u of relative error (u = 2^-53) plus the one ulp
  of libm's exp in a and b -- 4 u per term, which the caller allows.

Nothing here validates input: the Python layer does that.  Loops run
without the GIL.
"""
import numpy as np


def power(z, long k):
    """z^k elementwise (complex128 array, k >= 1), by repeated squaring."""
    src_arr = np.ascontiguousarray(z, dtype=np.complex128).view(np.float64)
    cdef double[::1] src = src_arr
    out = np.empty(src.shape[0], dtype=np.float64)
    cdef double[::1] dst = out
    cdef Py_ssize_t i, n = src.shape[0] // 2
    cdef long m
    cdef double br, bi, rr, ri, t
    cdef bint started
    with nogil:
        for i in range(n):
            br, bi = src[2 * i], src[2 * i + 1]
            m = k
            started = False
            rr, ri = 1.0, 0.0
            while True:
                if m & 1:
                    if started:
                        # (x + iy)(u + iv) as numpy forms it: xu - yv, xv + yu
                        t = rr * br - ri * bi
                        ri = rr * bi + ri * br
                        rr = t
                    else:
                        rr, ri = br, bi
                        started = True
                m >>= 1
                if m == 0:
                    break
                t = br * br - bi * bi
                bi = br * bi + bi * br
                br = t
            dst[2 * i], dst[2 * i + 1] = rr, ri
    return out.view(np.complex128)


def suffix_sums(u, double a, double b, double scale):
    """(w, d): w_j = sum_(i >= j) u_i a^(i - j) and d_j = scale sum_(k > j)
    w_k b^(k - j - 1) (d_(n-1) = 0), for u >= 0 and 0 <= a, b <= 1."""
    cdef double[::1] uu = np.ascontiguousarray(u, dtype=np.float64)
    cdef Py_ssize_t j, n = uu.shape[0]
    w_out = np.empty(n)
    d_out = np.empty(n)
    cdef double[::1] w = w_out
    cdef double[::1] d = d_out
    cdef double wj = 0.0, ej = 0.0
    with nogil:
        for j in range(n - 1, -1, -1):
            d[j] = scale * ej
            wj = uu[j] + a * wj
            w[j] = wj
            ej = wj + b * ej
    return w_out, d_out

