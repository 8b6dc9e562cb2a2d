# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Typed wrappers of the law kernels (csrc/pmf.c, poisson_binomial.c,
poisson_sampling.c, ldmath.h, renyi.c): log pmfs, mixtures, the
Poisson-binomial product tree and the Renyi log moment, for statpriv.laws,
statpriv.counting and statpriv.thresholding.

Nothing here validates input: the Python layer does that and documents the
formulas.  Every loop over atoms runs without the GIL.
"""
import numpy as np
cimport numpy as cnp
from cpython.exc cimport PyErr_CheckSignals
from libc.math cimport INFINITY, expm1, fabs, fabsl, fmax, fmin, isfinite, log, logl
from libc.stdlib cimport free

from statpriv._csrc cimport *
from statpriv._core import _extended

cnp.import_array()


def log_mixture(log_a, log_b, log_in, log_out, long size):
    """(lp, lq) longdouble of length size: ln(rate A(j-1) + (1-rate) B(j)) and
    ln(rate A(j) + (1-rate) B(j)) from the log pmfs log_a, log_b and log_in =
    ln rate, log_out = ln(1 - rate) (sp_log_mixture: numpy's logaddexp with
    the accurate fast long double exp and log1p)."""
    cdef long double[::1] va = _extended(log_a)
    cdef long double[::1] vb = _extended(log_b)
    cdef long na = va.shape[0], nb = vb.shape[0]
    if size < na + 1 and size < nb:
        raise ValueError("log_mixture: size below the laws' support")
    lp = np.empty(size, dtype=np.longdouble)
    lq = np.empty(size, dtype=np.longdouble)
    cdef long double[::1] vp = lp, vq = lq
    # (a Python scalar would pass through double: the weights go as an array)
    cdef long double[::1] w = _extended(np.array([log_in, log_out], dtype=np.longdouble))
    cdef const long double *pa = &va[0] if na else NULL
    cdef const long double *pb = &vb[0] if nb else NULL
    if size == 0:
        return lp, lq
    with nogil:
        sp_log_mixture(pa, na, pb, nb, w[0], w[1], size, &vp[0], &vq[0])
    return lp, lq


def poisson_log_ratio(n, double rate, double pi, first, long count, bint with_err=False):
    """ln P(j)/Q(j) = log1p((j - n rate pi)/((n - j) pi)) of the Poisson-sampled
    count laws at j = first .. first+count-1, longdouble (sp_poisson_log_ratio);
    with_err: (lr, err), err the bound on its error, 4e-19 |lr| + 2e-19 n
    rate / max(n - j, 1) (float64)."""
    # n and first through a long double array (a Python int may exceed 2^53)
    cdef long double[::1] v = _extended(np.array([np.longdouble(n), np.longdouble(first)]))
    out = np.empty(max(count, 0), dtype=np.longdouble)
    err = np.empty(max(count, 0) if with_err else 1, dtype=np.float64)
    cdef long double[::1] o = out
    cdef double[::1] e = err
    cdef double *pe = NULL
    cdef double err_const = 2e-19 * n * rate
    if count > 0:
        if with_err:
            pe = &e[0]
        with nogil:
            sp_poisson_log_ratio(v[0], rate, pi, v[1], count, &o[0], err_const, pe)
    return (out, err) if with_err else out


def subsample_log_ratio(n, m, double pi, first, long count, double err_const):
    """(lr, err): ln P(j)/Q(j) = log1p(d/(n pi)) - log1p(-d/(n (1-pi))), d = j - m pi,
    of a sample of m of n records without replacement at j = first ..
    first+count-1 (longdouble), and the bound on its error (float64)
    (sp_subsample_log_ratio)."""
    # n, m and first through a long double array (a Python int may exceed 2^53)
    cdef long double[::1] v = _extended(np.array([np.longdouble(n), np.longdouble(m),
                                                  np.longdouble(first)]))
    lr = np.empty(max(count, 0), dtype=np.longdouble)
    err = np.empty(max(count, 0), dtype=np.float64)
    cdef long double[::1] o = lr
    cdef double[::1] e = err
    if count > 0:
        with nogil:
            sp_subsample_log_ratio(v[0], v[1], pi, v[2], count, err_const, &o[0], &e[0])
    return lr, err


def refine_candidates(lp, lq, lr, err, double deep, double log_tol_shallow):
    """The cells refine_log_ratio may refine, in one pass over the laws
    (statpriv.laws.refine documents the rule): (cells, need, first, last) --
    the finite cells whose need exceeds their tolerance, in order (a range
    where they are consecutive, as at large sizes where every cell is one:
    no index array), their need (float64), and the first and last finite
    cell (-1, -1 if none).
    Every magnitude in float64, the gaps lr_{j+1} - lr_j taken in long
    double first, as numpy forms them: no full-size temporaries but the two
    outputs, written only as far as the cells found."""
    cdef long double[::1] vp = _extended(lp), vq = _extended(lq), vr = _extended(lr)
    cdef double[::1] ve = np.ascontiguousarray(err, dtype=np.float64)
    cdef Py_ssize_t n = vr.shape[0], j, k, count = 0, first = -1, last = -1
    cdef Py_ssize_t first_cell = 0, gap_at = -1
    if vp.shape[0] != n or vq.shape[0] != n or ve.shape[0] != n:
        raise ValueError("lp, lq, lr and err must have the same length")
    cells = np.empty(n, dtype=np.intp)
    need_out = np.empty(n, dtype=np.float64)
    cdef Py_ssize_t[::1] vc = cells
    cdef double[::1] vn = need_out
    cdef double need, log_gap, up, down_prev = -INFINITY, depth, tol, lpj, lqj, lpn, lqn
    cdef double log_err = log(ve[0]) if n > 0 else 0.0, log_err_next
    with nogil:
        for j in range(n):
            lpj, lqj = <double> vp[j], <double> vq[j]
            need = -INFINITY
            if j + 1 < n:
                # ln(1 - e^(lr_j - lr_{j+1})), then P(j) e_j against the next
                # cell's term (up) and Q(j+1) e_{j+1} against this one's (down)
                lpn, lqn = <double> vp[j + 1], <double> vq[j + 1]
                log_err_next = log(ve[j + 1])
                log_gap = log(-expm1(-<double> (vr[j + 1] - vr[j])))
                up = ((log_err + lpj) - lpn) - log_gap
                need = fmax(need, up)
            need = fmax(need, down_prev)
            if j + 1 < n:
                down_prev = ((log_err_next + lqn) - lqj) - log_gap
                log_err = log_err_next
            if isfinite(vr[j]) and (isfinite(vp[j]) or isfinite(vq[j])):
                if first < 0:
                    first = j
                last = j
                depth = fmin(lpj, lqj)
                if depth > deep:
                    tol = log_tol_shallow
                else:
                    tol = log(fmax(1e-11, fabs(depth) * 1e-16))
                if need > tol:
                    # the indices are stored from the first gap in them on
                    # (a run first_cell, first_cell + 1, ... is implied)
                    if count == 0:
                        first_cell = j
                    elif gap_at < 0 and j != first_cell + count:
                        gap_at = count
                        for k in range(count):
                            vc[k] = first_cell + k
                    if gap_at >= 0:
                        vc[count] = j
                    vn[count] = need
                    count += 1
    if gap_at < 0:
        return range(first_cell, first_cell + count), need_out[:count], first, last
    return cells[:count], need_out[:count], first, last


def monotone_likelihood_ratio(lp, lq):
    """ln P(k) - ln Q(k) non-decreasing over the atoms where P + Q > 0, up to
    the rounding of the logs (statpriv.noise._cells.monotone_likelihood_ratio
    documents the rule), in one pass in long double without temporaries:
    -inf ratios only before, +inf only after the finite ones, and each finite
    ratio at least the previous one minus the larger of their tolerances
    1e-12 (1 + |ln P| + |ln Q|)."""
    cdef long double[::1] vp = _extended(lp), vq = _extended(lq)
    cdef Py_ssize_t n = vp.shape[0], i, live = 0
    cdef Py_ssize_t last_neg = -1, first_pos = -1, first_fin = -1, last_fin = -1
    cdef long double a, b, r, t, prev_r = 0.0, prev_t = 0.0
    cdef bint ok = True
    if vq.shape[0] != n:
        raise ValueError("lp and lq must have the same length")
    with nogil:
        for i in range(n):
            a, b = vp[i], vq[i]
            if not (isfinite(a) or isfinite(b)):
                continue
            live += 1
            r = a - b
            if r == -INFINITY:
                last_neg = i
            elif r == INFINITY:
                if first_pos < 0:
                    first_pos = i
            elif isfinite(r):
                t = (<long double> 1e-12) * ((1.0 + fabsl(a)) + fabsl(b))
                if first_fin >= 0 and not (r - prev_r >= -(t if t > prev_t else prev_t)):
                    ok = False
                if first_fin < 0:
                    first_fin = i
                last_fin = i
                prev_r, prev_t = r, t
    if live < 2:
        return True
    if first_fin >= 0 and ((last_neg >= 0 and last_neg > first_fin)
                           or (first_pos >= 0 and first_pos < last_fin)):
        return False
    if last_neg >= 0 and first_pos >= 0 and last_neg > first_pos:
        return False
    return ok


def binom_window_logl(double N, double pi, long first, long count, out=None):
    """ln Bin(N, pi) pmf at first..first+count-1 in extended precision, with
    neighbours consistent to ~1e-19 (exact ratios from Loader's value at the mode).
    out: a contiguous longdouble array of length count to write into (a view
    of a larger buffer, e.g. with padding atoms around it), returned."""
    if out is None:
        out = np.empty(count, dtype=np.longdouble)
    cdef long double[::1] res = out
    if res.shape[0] != count or count < 1:
        raise ValueError("out must hold count >= 1 atoms")
    with nogil:
        sp_binom_window_logl(N, pi, <double> first, count, &res[0])
    return out


def log_binom_pmf(double N, double pi, double[::1] k):
    """ln Bin(N, pi) pmf at each k by Loader's saddle-point form."""
    cdef sp_binom b
    cdef Py_ssize_t i, n = k.shape[0]
    out = np.empty(n)
    cdef double[::1] res = out
    sp_binom_init(&b, N, pi, 0)
    with nogil:
        for i in range(n):
            res[i] = sp_log_binom_pmf(&b, k[i])
    return out


def log_hypergeom_pmf(double[::1] j, double N, double K, double m):
    """ln P[J = j], J positives in m draws from N records with K positive."""
    cdef Py_ssize_t i, n = j.shape[0]
    out = np.empty(n)
    cdef double[::1] res = out
    with nogil:
        for i in range(n):
            res[i] = sp_log_hypergeom_pmf(j[i], N, K, m)
    return out


cdef int _progress(void *ctx, double work) noexcept with gil:
    # reports to a tqdm-like object's update(); non-zero (abandon) on Ctrl-C
    try:
        (<object> ctx).update(work)
        PyErr_CheckSignals()
    except BaseException:
        return 1
    return 0


def binomial_sum_window(double[::1] probs, double[::1] counts, double drop_nats, long max_len,
                        progress=None, double step=1e8):
    """ln pmf of S = sum_g Bin(counts[g], probs[g]) on the window where it matters:
    (first, log_pmf longdouble, log_rest) with e^log_rest >= the mass of S the
    window does not carry (see csrc/poisson_binomial.h).  Raises ValueError if a window would exceed
    max_len atoms.  ``progress``: an object with update(multiply_adds), called
    every ``step`` multiply-adds (e.g. a tqdm bar); KeyboardInterrupt stops the work."""
    cdef long double *buf = NULL
    cdef long first = 0, n = 0
    cdef long double rest = 0.0
    cdef int status
    cdef long groups = probs.shape[0]
    cdef const double *pp = &probs[0] if groups > 0 else NULL
    cdef const double *pc = &counts[0] if groups > 0 else NULL
    cdef sp_progress_fn fn = NULL
    if progress is not None:
        fn = _progress
    cdef void *ctx = <void *> progress
    with nogil:
        status = sp_binomial_sum_window_progress(pp, pc, groups, drop_nats, max_len, &buf,
                                                 &first, &n, &rest, fn, ctx, step)
    if status == -1:
        raise MemoryError("could not allocate the convolution buffers")
    if status == -2:
        raise ValueError(f"the Poisson-binomial window would exceed {max_len} atoms")
    if status == -3:
        raise KeyboardInterrupt("per-record convolution interrupted")
    out = np.empty(n, dtype=np.longdouble)
    cdef long double[::1] res = out
    cdef long i
    for i in range(n):
        res[i] = buf[i]
    free(buf)
    return first, out, float(logl(rest)) if rest > 0 else -np.inf


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


def renyi_log_moments(log_p, loss, tail_log_p, tail_loss, t):
    """ln sum_i e^(log_p[i] + t[j] loss[i]) at every t[j] (float64 array) in
    one C call, the tail atom (long doubles; tail_log_p = -inf: none) added
    where t[j] > 0; float64 out (sp_renyi_log_moments)."""
    cdef const long double[::1] a = np.ascontiguousarray(log_p, dtype=np.longdouble)
    cdef const long double[::1] b = np.ascontiguousarray(loss, dtype=np.longdouble)
    cdef const double[::1] ts = np.ascontiguousarray(t, dtype=np.float64)
    # through a long double buffer: a numpy longdouble assigned to a C long
    # double would pass through a Python float
    cdef long double[::1] tail = np.array([tail_log_p, tail_loss], dtype=np.longdouble)
    cdef long n = a.shape[0], m = ts.shape[0]
    if b.shape[0] != n:
        raise ValueError("renyi_log_moments: log_p and loss of different lengths")
    out = np.empty(m, dtype=np.float64)
    cdef double[::1] res = out
    if m:
        with nogil:
            sp_renyi_log_moments(&a[0] if n else NULL, &b[0] if n else NULL, n, tail[0],
                                 tail[1], &ts[0], m, &res[0])
    return out


def _ldmath(name, x):
    """The accurate fast long double functions of csrc/ldmath.h on an array
    (name: 'exp', 'expm1', 'log', 'log1p'); for the tests."""
    cdef long double[::1] v = _extended(np.ravel(x))
    out = np.empty(v.shape[0], dtype=np.longdouble)
    cdef long double[::1] o = out
    cdef long i, n = v.shape[0]
    cdef int kind = ("exp", "expm1", "log", "log1p").index(name)
    with nogil:
        for i in range(n):
            if kind == 0:
                o[i] = sp_ld_exp(v[i])
            elif kind == 1:
                o[i] = sp_ld_expm1(v[i])
            elif kind == 2:
                o[i] = sp_ld_log(v[i])
            else:
                o[i] = sp_ld_log1p(v[i])
    return out
