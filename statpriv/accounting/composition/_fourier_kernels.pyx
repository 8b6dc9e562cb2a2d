# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Typed loops of the Fourier-domain composition (statpriv.accounting.composition.fourier).

* ``power``: z^k of every entry of a complex spectrum by repeated squaring,
  a block of entries at a time -- the same products, in the same order, as
  squaring whole arrays (so the same rounding and the same a-priori bound),
  without the log2(k) passes over an array of 10^5-10^6 entries that numpy
  makes.
* ``rotate_left``: a circular shift in place (the read-back window wrapping
  around index 0 of the inverse transform), with one buffer of the shorter
  part.
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
from libc.math cimport exp, log
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memmove


# entries raised together: the same bit of k is applied to a block of entries at
# a time (the loops over the block are free of dependencies, which the compiler
# vectorises); each entry still gets the same products in the same order
DEF POWER_BLOCK = 256


def power(z, long k):
    """z^k elementwise (complex128 array, k >= 1), by repeated squaring."""
    src_arr = np.ascontiguousarray(z, dtype=np.complex128).view(np.float64)
    cdef double[::1] src = src_arr
    out = np.empty(src.shape[0], dtype=np.float64)
    cdef double[::1] dst = out
    cdef Py_ssize_t j, b, cnt, n = src.shape[0] // 2
    cdef long m
    cdef double t
    cdef double br[POWER_BLOCK]
    cdef double bi[POWER_BLOCK]
    cdef double rr[POWER_BLOCK]
    cdef double ri[POWER_BLOCK]
    cdef bint started
    with nogil:
        for b in range(0, n, POWER_BLOCK):
            cnt = n - b if n - b < POWER_BLOCK else POWER_BLOCK
            for j in range(cnt):
                br[j], bi[j] = src[2 * (b + j)], src[2 * (b + j) + 1]
            m = k
            started = False
            while True:
                if m & 1:
                    if started:
                        # (x + iy)(u + iv) as numpy forms it: xu - yv, xv + yu
                        for j in range(cnt):
                            t = rr[j] * br[j] - ri[j] * bi[j]
                            ri[j] = rr[j] * bi[j] + ri[j] * br[j]
                            rr[j] = t
                    else:
                        for j in range(cnt):
                            rr[j], ri[j] = br[j], bi[j]
                        started = True
                m >>= 1
                if m == 0:
                    break
                for j in range(cnt):
                    t = br[j] * br[j] - bi[j] * bi[j]
                    bi[j] = br[j] * bi[j] + bi[j] * br[j]
                    br[j] = t
            for j in range(cnt):
                dst[2 * (b + j)], dst[2 * (b + j) + 1] = rr[j], ri[j]
    return out.view(np.complex128)


def rotate_left(double[::1] x, Py_ssize_t first):
    """x rotated in place so that x[first] comes first (0 <= first < len(x));
    returns x's base array."""
    cdef Py_ssize_t n = x.shape[0], k = n - first
    cdef double *buf
    if n == 0 or first == 0:
        return x.base
    if first < 0 or first >= n:
        raise ValueError(f"first={first}: must be in [0, {n})")
    cdef Py_ssize_t keep = first if first <= k else k
    buf = <double *>malloc(keep * sizeof(double))
    if buf == NULL:
        raise MemoryError()
    with nogil:
        if first <= k:
            # the head is the shorter part: hold it, move the tail down
            memcpy(buf, &x[0], first * sizeof(double))
            memmove(&x[0], &x[first], k * sizeof(double))
            memcpy(&x[k], buf, first * sizeof(double))
        else:
            memcpy(buf, &x[first], k * sizeof(double))
            memmove(&x[k], &x[0], first * sizeof(double))
            memcpy(&x[0], buf, k * sizeof(double))
    free(buf)
    return x.base


def suffix_sums(u, double a, double b, double scale, double factor=1.0):
    """(factor w, factor d): w_j = sum_(i >= j) u_i a^(i - j) and d_j = scale
    sum_(k > j) w_k b^(k - j - 1) (d_(n-1) = 0), for u >= 0 and 0 <= a, b <= 1."""
    cdef double[::1] uu = np.ascontiguousarray(u, dtype=np.float64)
    cdef Py_ssize_t j, n = uu.shape[0]
    w_out = np.empty(n)
    d_out = np.empty(n)
    cdef double[::1] w = w_out
    cdef double[::1] d = d_out
    cdef double wj = 0.0, ej = 0.0
    with nogil:
        for j in range(n - 1, -1, -1):
            d[j] = factor * (scale * ej)
            wj = uu[j] + a * wj
            w[j] = factor * wj
            ej = wj + b * ej
    return w_out, d_out


# terms per block of the tilted sums: one exp per block, the rest by products
# (within a block the factor's rounding grows by at most BLOCK + 2 u)
DEF BLOCK = 64
TILT_BLOCK = BLOCK


def tilted_sums(mass, log_mass, long offset, double h, thetas, double floor_nats,
                bint moments=True):
    """(ln Z, mean, variance) per theta of the measure with masses ``mass``
    (ln: ``log_mass``, -inf for 0) at the losses (offset + i) h, tilted by
    e^(theta x): Z = sum_i m_i e^(theta x_i) with every term more than
    floor_nats below the largest counted at that level (an upper bound, no
    subnormal numbers), and the tilted measure's mean and variance (about
    the largest term's loss).  Two sweeps over the measure, every theta at
    each term (the measure is read twice, whatever the number of thetas):
    the largest ln term, then the sums, e^(theta x_i - top) from one exp per
    BLOCK terms times powers of e^(theta h) (relative error <= (BLOCK + 4) u
    per term: the caller adds it).  ln Z = -inf, mean = variance = nan
    where every mass is 0.  ``moments`` False: ln Z only (mean and variance
    nan; ln Z the same, bit for bit), a third fewer operations per term."""
    cdef double[::1] m = np.ascontiguousarray(mass, dtype=np.float64)
    cdef double[::1] la = np.ascontiguousarray(log_mass, dtype=np.float64)
    cdef double[::1] th = np.ascontiguousarray(thetas, dtype=np.float64)
    cdef Py_ssize_t i, q, left, n = la.shape[0], nt = th.shape[0]
    log_z_out = np.empty(nt)
    mean_out = np.empty(nt)
    var_out = np.empty(nt)
    cdef double[::1] lz = log_z_out
    cdef double[::1] mu = mean_out
    cdef double[::1] va = var_out
    state = np.zeros((7, nt))
    cdef double[::1] top = state[0]
    cdef double[::1] step = state[1]
    cdef double[::1] factor = state[2]
    cdef double[::1] s0 = state[3]
    cdef double[::1] s1 = state[4]
    cdef double[::1] s2 = state[5]
    cdef double[::1] arg_loss = state[6]
    cdef double z, w, x, xi, f, floor_w, inf = float("inf")
    with nogil:
        floor_w = exp(-floor_nats)
        for q in range(nt):
            top[q] = -inf
        for i in range(n):
            if la[i] > -inf:
                xi = (offset + i) * h
                for q in range(nt):
                    z = la[i] + th[q] * xi
                    if z > top[q]:
                        top[q] = z
                        arg_loss[q] = xi
        for q in range(nt):
            step[q] = exp(th[q] * h)
        # term by term, every theta at each term (independent sums: the
        # processor overlaps them), the block's exp hoisted out of the loop
        # over thetas; per theta the same products and sums in the same order
        # as one theta at a time
        left = 0                      # terms left in the block
        for i in range(n):
            xi = (offset + i) * h
            if left == 0:
                left = BLOCK
                for q in range(nt):
                    factor[q] = exp(th[q] * xi - top[q])
            else:
                for q in range(nt):
                    factor[q] = factor[q] * step[q]
            left -= 1
            if not la[i] > -inf:
                continue
            for q in range(nt):
                f = factor[q]
                if f > 1e-290 and f < 1e290:
                    w = m[i] * f
                else:
                    # (far from the largest term, where the factor left the
                    # normal range: the term itself)
                    z = la[i] + th[q] * xi - top[q]
                    w = exp(z if z > -floor_nats else -floor_nats)
                if w < floor_w:
                    w = floor_w
                s0[q] += w
                if moments:
                    x = xi - arg_loss[q]
                    s1[q] += w * x
                    s2[q] += w * x * x
        for q in range(nt):
            if top[q] == -inf:
                lz[q], mu[q], va[q] = -inf, 0.0 / 0.0, 0.0 / 0.0
            else:
                lz[q] = top[q] + log(s0[q])
                if moments:
                    mu[q] = arg_loss[q] + s1[q] / s0[q]
                    va[q] = s2[q] / s0[q] - (s1[q] / s0[q]) * (s1[q] / s0[q])
                else:
                    mu[q], va[q] = 0.0 / 0.0, 0.0 / 0.0
    return log_z_out, mean_out, var_out
