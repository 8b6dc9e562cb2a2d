# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Typed wrappers of the noise kernels (csrc/laplace.c, geometric.c, gaussian.c,
dp.c): the noise room's compiled half.

Nothing here validates input: statpriv.noise does that and documents the
formulas.  Every loop runs without the GIL.
"""
import math

import numpy as np
cimport numpy as cnp
from libc.math cimport fma, INFINITY, isfinite
from scipy.special.cython_special cimport erfcx, log_ndtr, ndtr

from statpriv._csrc cimport *
from statpriv._core cimport CurveCore, _data
from statpriv._core import _extended, _log_cumsum

cnp.import_array()


cdef double _log_ndtr(double x) noexcept nogil:
    return log_ndtr(x)


def _positive_mask(lp, lq):
    """Directions in which a count plus Gaussian noise has delta > 0 at every
    finite eps: f_P/f_Q is unbounded iff P has an atom above Q's highest or
    below Q's lowest (the Gaussian tails of that atom dominate); otherwise
    f_P/f_Q <= max_k P(k)/Q(k) and delta_plus reaches 0.  Bit mask for
    sp_smallest_eps."""
    fp = np.flatnonzero(np.isfinite(lp))
    fq = np.flatnonzero(np.isfinite(lq))
    if fp.size == 0 or fq.size == 0:
        return 0
    return _mask_from(fp.min(), fp.max(), fq.min(), fq.max())


def _mask_from(p_first, p_last, q_first, q_last):
    """_positive_mask from the first and last atoms of P and of Q."""
    plus = int(p_last > q_last or p_first < q_first)
    minus = int(q_last > p_last or q_first < p_first)
    return (plus << SP_PLUS) | (minus << SP_MINUS) | ((plus | minus) << SP_MAX)


cdef double _erfcx(double x) noexcept nogil:
    return erfcx(x)


def _gauss_ratios(lp, lq, lr, lr_lo):
    """The log ratios a Gaussian core reads, in one pass over the atoms:
    (lr, lo, ext, live, wide, positive) with lr = the given ratio where it
    and lp - lq are finite, else lp - lq (+-inf: an atom of one law; NaN: of
    neither), lo the given low part where that lr is finite, else 0 (lr None:
    lp - lq and zeros); ext = [lr, lr, lo, lo at the first maximum and the
    first minimum of lr + lo over the live atoms (P + Q > 0), max lp,
    max lq]; live: their number; wide: the atoms with lp > max lp - 60;
    positive: the mask of _positive_mask.  The values of the numpy
    expressions this replaced (np.where, argmax, flatnonzero, count_nonzero:
    a dozen full-length temporaries, 0.13 s at 1e6 atoms) bit for bit."""
    cdef Py_ssize_t i, n = lp.shape[0], i_max = -1, i_min = -1, live = 0, wide = 0
    cdef Py_ssize_t p_first = -1, p_last = -1, q_first = -1, q_last = -1
    cdef long double[::1] vp = lp, vq = lq, vr, vl, ro, lo_out, vext
    cdef long double g, r, low, v
    cdef long double best_hi = 0, best_lo = 0
    cdef long double pmax = -INFINITY, qmax = -INFINITY, cut
    cdef bint given = lr is not None
    out_r = np.empty(n, dtype=np.longdouble)
    out_l = np.empty(n, dtype=np.longdouble)
    ext = np.empty(6, dtype=np.longdouble)
    ro, lo_out = out_r, out_l
    if given:
        vr = lr
        vl = lr_lo
    with nogil:
        for i in range(n):
            g = vp[i] - vq[i]
            r = g
            if given and isfinite(vr[i]) and isfinite(g):
                r = vr[i]
            low = vl[i] if given and isfinite(r) else 0
            ro[i] = r
            lo_out[i] = low
            if vp[i] > pmax:
                pmax = vp[i]
            if vq[i] > qmax:
                qmax = vq[i]
            if isfinite(vp[i]):
                p_last = i
                if p_first < 0:
                    p_first = i
            if isfinite(vq[i]):
                q_last = i
                if q_first < 0:
                    q_first = i
            if isfinite(vp[i]) or isfinite(vq[i]):
                v = r + low
                if live == 0 or v > best_hi:
                    best_hi = v
                    i_max = i
                if live == 0 or v < best_lo:
                    best_lo = v
                    i_min = i
                live += 1
        cut = pmax - 60
        for i in range(n):
            if vp[i] > cut:
                wide += 1
    vext = ext                 # C long doubles through a buffer (not a Python float)
    vext[4] = pmax
    vext[5] = qmax
    if live:
        vext[0] = ro[i_max]
        vext[1] = ro[i_min]
        vext[2] = lo_out[i_max]
        vext[3] = lo_out[i_min]
    positive = 0 if p_first < 0 or q_first < 0 else _mask_from(p_first, p_last, q_first, q_last)
    return out_r, out_l, ext, live, wide, positive


def _gauss_tail_sums(lp, lq):
    """[lsp, lcp, lsq, lcq]: the log survival and cdf sums of P and Q.

    A pure shift (lp[k] = lq[k-1] bit for bit, lp[0] = lq[-1] = -inf: every
    count law the counting room gives) repeats Q's running sums one atom on,
    the same additions in the same order: lcp[k] = lcq[k-1] (lcp[0] = -inf),
    lsp[k] = lsq[k-1] and lsp[0] = lsq[0] (P(0) = 0).  Two sums of exps
    and logs instead of four (1e6 atoms: 0.13 s of the construction's 0.45 s),
    each stored once in a buffer one atom longer than the laws, with both
    laws' sums views of it."""
    cdef Py_ssize_t n = lp.shape[0]
    cdef long double[::1] vq, vc, vs
    if (n > 1 and lp[0] == -np.inf and lq[n - 1] == -np.inf
            and np.array_equal(lp[1:], lq[:n - 1])):
        cdf = np.empty(n + 1, dtype=np.longdouble)
        sf = np.empty(n + 1, dtype=np.longdouble)
        vq, vc, vs = lq, cdf, sf
        with nogil:
            vc[0] = -INFINITY
            sp_log_cumsum(&vq[0], n, 0, &vc[1])
            sp_log_cumsum(&vq[0], n, 1, &vs[1])
            vs[0] = vs[1]
        return [sf[:n], cdf[:n], sf[1:], cdf[1:]]
    return [_log_cumsum(lp, reverse=True), _log_cumsum(lp),
            _log_cumsum(lq, reverse=True), _log_cumsum(lq)]


cdef class GaussCurveCore(CurveCore):
    """Count laws P, Q (log pmfs on consecutive atoms) plus N(0, sigma^2) noise.

    ``monotone``: P/Q is non-decreasing on the atoms (the caller checks);
    then f_P - e^eps f_Q has one sign change for every eps and sigma."""
    cdef sp_gauss g
    cdef object arrays

    def __cinit__(self, lp, lq, double sigma, bint monotone, lr=None, lr_lo=None):
        cdef long double[::1] ext
        lp, lq = _extended(lp), _extended(lq)
        if lp.shape != lq.shape or lp.ndim != 1 or lp.shape[0] == 0:
            raise ValueError("lp, lq must be equal-length non-empty 1-d arrays")
        if not sigma > 0.0:
            raise ValueError(f"sigma must be > 0, got {sigma}")
        if lr is not None:
            lr = _extended(lr)
            lr_lo = (np.zeros(lp.shape[0], dtype=np.longdouble) if lr_lo is None
                     else _extended(lr_lo))
            if lr.shape != lp.shape or lr_lo.shape != lp.shape:
                raise ValueError("lr, lr_lo must have the shape of lp")
        # ln P/Q: the caller's accurate one (closed forms, low parts) where
        # given, else lp - lq; the extreme ratios (the zero points) in
        # double-double
        lr, lo, ext, live, wide, positive = _gauss_ratios(lp, lq, lr, lr_lo)
        if live == 0:
            raise ValueError("P and Q have no atom")
        cums = _gauss_tail_sums(lp, lq)
        self.arrays = [lp, lq] + cums + [lr, lo]
        self.g.lp = _data(lp)
        self.g.lq = _data(lq)
        self.g.lsp = _data(cums[0])
        self.g.lcp = _data(cums[1])
        self.g.lsq = _data(cums[2])
        self.g.lcq = _data(cums[3])
        self.g.len = lp.shape[0]
        self.g.sigma = sigma
        # through a long double buffer: a numpy longdouble scalar assigned to
        # a C long double would pass through a Python float (double)
        self.g.lpmax = ext[4]
        self.g.lqmax = ext[5]
        self.g.lr_max = ext[0]
        self.g.lr_min = ext[1]
        self.g.lr_max_lo = ext[2]
        self.g.lr_min_lo = ext[3]
        self.g.lr = _data(lr)
        self.g.lr_lo = _data(lo)
        self.g.monotone = monotone
        self.g.log_ndtr = _log_ndtr
        self.log_tol = 1e-10    # noisy curves: delta promised to 1e-10 relative
        self.positive = positive

        self.g.erfcx = _erfcx
        self.fn = sp_gauss_curve_log_delta
        self.ctx = &self.g
        if monotone and wide >= 20000:
            # a wide law (the walk past the threshold, ~its width, dominates
            # the root finding): epsilon() searches an estimate, verified on fn
            self._set_estimate(sp_gauss_curve_log_delta_estimate, &self.g, 2.0 ** -34)


def laplace_cells(lp, lq, double scale):
    """Cells of count laws (log pmfs on atoms 0..n-1) plus Laplace(scale) noise:
    (cell_lp, cell_lq, ll_p, lr_p, ll_q, lr_q), each of length n + 1, longdouble."""
    cdef long double[::1] vp = _extended(lp)
    cdef long double[::1] vq = _extended(lq)
    cdef long n = vp.shape[0]
    out = [np.empty(n + 1, dtype=np.longdouble) for _ in range(6)]
    cdef long double[::1] a = out[0], b = out[1], c = out[2], d = out[3], e = out[4], f = out[5]
    with nogil:
        sp_laplace_cells(&vp[0], &vq[0], n, scale, &a[0], &b[0], &c[0], &d[0], &e[0], &f[0])
    return tuple(out)


def laplace_cells_diff(lp, lq, law_lr, double scale):
    """Cells of count laws plus Laplace(scale) noise in one pass, P's logs from
    the difference law D = Q expm1(law_lr) where P and Q nearly agree
    (law_lr: the accurate ln P/Q per atom, or None for the plain cells; see
    sp_laplace_cells_diff): (cell_lp, cell_lq, ll_p, lr_p, ll_q, lr_q,
    cell_lr) longdouble and (err_c, err_l, err_r) float64, each of length
    n + 1 (cell_lr: the cells' log mass ratio; err_*: estimates of the
    absolute error of the cells', L's and R's log ratios)."""
    cdef long double[::1] vp = _extended(lp)
    cdef long double[::1] vq = _extended(lq)
    cdef long n = vp.shape[0]
    cdef long double[::1] vr
    cdef const long double *pr = NULL
    if vq.shape[0] != n:
        raise ValueError("laplace_cells_diff: arrays of inconsistent lengths")
    if law_lr is not None:
        vr = _extended(law_lr)
        if vr.shape[0] != n:
            raise ValueError("laplace_cells_diff: arrays of inconsistent lengths")
        pr = &vr[0]
    out = [np.empty(n + 1, dtype=np.longdouble) for _ in range(7)]
    errs = [np.empty(n + 1, dtype=np.float64) for _ in range(3)]
    cdef long double[::1] a = out[0], b = out[1], c = out[2], d = out[3], e = out[4], f = out[5]
    cdef long double[::1] g = out[6]
    cdef double[::1] x = errs[0], y = errs[1], z = errs[2]
    cdef int rc
    with nogil:
        rc = sp_laplace_cells_diff(&vp[0], &vq[0], pr, n, scale, &a[0], &b[0], &c[0], &d[0],
                                   &e[0], &f[0], &g[0], &x[0], &y[0], &z[0])
    if rc != 0:
        raise MemoryError("laplace_cells_diff: out of memory")
    return tuple(out) + tuple(errs)


def laplace_atom_ratios(lp, lq, law_lr, law_lo, double scale, ll_p, lr_p, ll_q, lr_q,
                        double[::1] err_l, double[::1] err_r, ll_lo, rr_lo):
    """The Laplace L and R log ratios from the laws' own ratio where the noise
    barely mixes (sp_laplace_atom_ratios): modifies ll_p, lr_p, err_l,
    err_r, ll_lo, rr_lo in place (longdouble / float64 arrays of n + 1
    cells; law_lo may be None)."""
    cdef long double[::1] vp = _extended(lp)
    cdef long double[::1] vq = _extended(lq)
    cdef long double[::1] vr = _extended(law_lr)
    cdef long double[::1] vlo
    cdef const long double *plo = NULL
    cdef long n = vp.shape[0]
    cdef long double[::1] a = ll_p, b = lr_p, c = ll_q, d = lr_q, e = ll_lo, f = rr_lo
    if (vq.shape[0] != n or vr.shape[0] != n or a.shape[0] != n + 1 or b.shape[0] != n + 1
            or c.shape[0] != n + 1 or d.shape[0] != n + 1 or e.shape[0] != n + 1
            or f.shape[0] != n + 1 or err_l.shape[0] != n + 1 or err_r.shape[0] != n + 1):
        raise ValueError("laplace_atom_ratios: arrays of inconsistent lengths")
    if law_lo is not None:
        vlo = _extended(law_lo)
        if vlo.shape[0] != n:
            raise ValueError("laplace_atom_ratios: arrays of inconsistent lengths")
        plo = &vlo[0]
    if n < 2:
        return
    with nogil:
        sp_laplace_atom_ratios(&vp[0], &vq[0], &vr[0], plo, n, scale, &a[0], &b[0], &c[0],
                               &d[0], &err_l[0], &err_r[0], &e[0], &f[0])


def laplace_cells_one(la, double scale):
    """One law's Laplace(scale) cells: (cell_la, ll, lr), each of length n + 1,
    longdouble (as laplace_cells returns for P)."""
    cdef long double[::1] va = _extended(la)
    cdef long n = va.shape[0]
    out = [np.empty(n + 1, dtype=np.longdouble) for _ in range(3)]
    cdef long double[::1] a = out[0], c = out[1], d = out[2]
    with nogil:
        sp_laplace_cells_one(&va[0], n, scale, &a[0], &c[0], &d[0])
    return tuple(out)


def geometric_cells(lp, lq, double alpha, bint shift=False):
    """Cells of count laws plus two-sided geometric(alpha) noise: the pmf on the
    n atoms' positions and the two aggregated tails, length n + 2, longdouble.
    shift: the laws are a pure shift, lp[k] = lq[k-1] (the caller checked):
    the same cells at half the cost (sp_geometric_shift_cells)."""
    cdef long double[::1] vp = _extended(lp)
    cdef long double[::1] vq = _extended(lq)
    cdef long n = vp.shape[0]
    if vq.shape[0] != n:
        raise ValueError("geometric_cells: lp and lq of different lengths")
    cell_lp = np.empty(n + 2, dtype=np.longdouble)
    cell_lq = np.empty(n + 2, dtype=np.longdouble)
    cdef long double[::1] a = cell_lp, b = cell_lq
    cdef int status
    with nogil:
        if shift:
            status = sp_geometric_shift_cells(&vp[0], &vq[0], n, alpha, &a[0], &b[0])
        else:
            status = sp_geometric_cells(&vp[0], &vq[0], n, alpha, &a[0], &b[0])
    if status != 0:
        raise MemoryError("could not allocate the geometric-noise workspace")
    return cell_lp, cell_lq


def geometric_difference_ratios(lp, lq, law_lr, double alpha, cell_lq, lr):
    """Overwrite the cell log ratios ``lr`` (longdouble, n + 2, modified in
    place) by the difference-law form where it is the more accurate; returns
    the absolute error bounds (see csrc/geometric.h)."""
    cdef long double[::1] vp = _extended(lp)
    cdef long double[::1] vq = _extended(lq)
    cdef long double[::1] vr = _extended(law_lr)
    cdef long double[::1] vc = _extended(cell_lq)
    cdef long double[::1] out = lr
    cdef long n = vp.shape[0]
    if vq.shape[0] != n or vr.shape[0] != n or vc.shape[0] != n + 2 or out.shape[0] != n + 2:
        raise ValueError("geometric_difference_ratios: arrays of inconsistent lengths")
    err = np.empty(n + 2, dtype=np.float64)
    cdef double[::1] e = err
    cdef int status
    with nogil:
        status = sp_geometric_difference_ratios(&vp[0], &vq[0], &vr[0], n, alpha, &vc[0],
                                                &out[0], &e[0])
    if status != 0:
        raise MemoryError("could not allocate the geometric-noise workspace")
    return err


def geometric_shift_ratios(lp, lq, law_lr, double alpha):
    """(cell_lp, cell_lq, lr, err) of a pure shift (lp[k] = lq[k-1], the
    caller checked): geometric_cells(..., shift=True), their log ratios
    (_cells._log_ratio) and geometric_difference_ratios on them, bit for
    bit, in one pass over Q's atoms (sp_geometric_shift_ratios)."""
    cdef long double[::1] vp = _extended(lp)
    cdef long double[::1] vq = _extended(lq)
    cdef long double[::1] vr = _extended(law_lr)
    cdef long n = vp.shape[0]
    if vq.shape[0] != n or vr.shape[0] != n or n == 0:
        raise ValueError("geometric_shift_ratios: arrays of inconsistent lengths")
    out = [np.empty(n + 2, dtype=np.longdouble) for _ in range(3)]
    err = np.empty(n + 2, dtype=np.float64)
    cdef long double[::1] a = out[0], b = out[1], r = out[2]
    cdef double[::1] e = err
    cdef int status
    with nogil:
        status = sp_geometric_shift_ratios(&vp[0], &vq[0], &vr[0], n, alpha, &a[0], &b[0],
                                           &r[0], &e[0])
    if status != 0:
        raise MemoryError("could not allocate the geometric-noise workspace")
    return out[0], out[1], out[2], err


def geometric_deficits(la, lb, lr_ab, cell_la, double alpha, r_hi, r_lo, bint mirror=False,
                       lo_ab=None, bint closed=True):
    """(deficit, rel_err): D(x) = ln R - ln f_A(x)/f_B(x) at the atoms under
    geometric(alpha) noise, R = exp(r_hi + r_lo) the exact right-tail ratio,
    with relative error bounds (inf where not computed); mirror: the left
    tail, arrays read from the far end and lr_ab negated; lr_ab a closed form
    (with its low parts lo_ab, or None) or, closed=False, ln A - ln B; see
    csrc/geometric.h."""
    cdef long double[::1] va = _extended(la)
    cdef long double[::1] vb = _extended(lb)
    cdef long double[::1] vr = _extended(lr_ab)
    cdef long double[::1] vc = _extended(cell_la)
    cdef long double[::1] vlo = _extended(lr_ab if lo_ab is None else lo_ab)
    cdef const long double *plo = NULL if lo_ab is None else &vlo[0]
    cdef long n = va.shape[0]
    if vb.shape[0] != n or vr.shape[0] != n or vc.shape[0] != n or vlo.shape[0] != n:
        raise ValueError("geometric_deficits: arrays of different lengths")
    deficit = np.zeros(n, dtype=np.longdouble)
    rel = np.empty(n, dtype=np.float64)
    cdef long double[::1] d = deficit
    cdef double[::1] e = rel
    # through a long double array: a Python-level conversion rounds to double
    cdef long double[::1] vhl = _extended([r_hi, r_lo])
    cdef long double hi = vhl[0], lo = vhl[1]
    if n > 0:
        with nogil:
            sp_geometric_deficits(&va[0], &vb[0], &vr[0], plo, closed, &vc[0], n, mirror, alpha,
                                  hi, lo, &d[0], &e[0])
    return deficit, rel


def laplace_deficits(la, lb, lr_ab, lo_ab, ll_a, rb, cell_a, double scale, r_hi, r_lo,
                     bint mirror=False):
    """(first, dl, er, dc, rel_l, rel_r, rel_c): the deficit of the Laplace L
    log ratio below, the excess of the R log ratio above and the deficit of
    the cell-mass log ratio below the exact right-tail ratio ln R = r_hi +
    r_lo, with relative error bounds (inf where not computed), on the cells
    first .. first + len - 1 that the kernel reached (it stops where the
    forms no longer help: every other cell has no value).  lr_ab: the
    closed-form atom log ratio (None: the difference of the laws' logs);
    lo_ab may be None; mirror: the left tail (see csrc/laplace.h)."""
    cdef long double[::1] va = _extended(la)
    cdef long double[::1] vb = _extended(lb)
    cdef long double[::1] vr
    cdef long double[::1] vo
    cdef long double[::1] vl = _extended(ll_a)
    cdef long double[::1] vrb = _extended(rb)
    cdef long double[::1] vca = _extended(cell_a)
    cdef long n = va.shape[0]
    cdef const long double *po = NULL
    cdef const long double *pr = NULL
    if vb.shape[0] != n or vl.shape[0] != n + 1 or vrb.shape[0] != n + 1 or vca.shape[0] != n + 1:
        raise ValueError("laplace_deficits: arrays of inconsistent lengths")
    if lr_ab is not None:
        vr = _extended(lr_ab)
        if vr.shape[0] != n:
            raise ValueError("laplace_deficits: arrays of inconsistent lengths")
        if n > 0:
            pr = &vr[0]
    if lo_ab is not None:
        vo = _extended(lo_ab)
        if vo.shape[0] != n:
            raise ValueError("laplace_deficits: arrays of inconsistent lengths")
        if n > 0:
            po = &vo[0]
    # calloc'ed (np.zeros): the kernel writes only the cells it reaches, so
    # the pages of the others are never touched (first touches are slow)
    dl = np.zeros(n + 1, dtype=np.longdouble)
    er = np.zeros(n + 1, dtype=np.longdouble)
    dc = np.zeros(n + 1, dtype=np.longdouble)
    rel_l = np.zeros(n + 1)
    rel_r = np.zeros(n + 1)
    rel_c = np.zeros(n + 1)
    cdef long double[::1] d = dl
    cdef long double[::1] x = er
    cdef long double[::1] y = dc
    cdef double[::1] el = rel_l
    cdef double[::1] ex = rel_r
    cdef double[::1] ey = rel_c
    # through a long double array: a Python-level conversion would round to double
    cdef long double[::1] vhl = _extended([r_hi, r_lo])
    cdef long double hi = vhl[0], lo = vhl[1]
    cdef long done = n
    if n > 1:
        with nogil:
            done = sp_laplace_deficits(&va[0], &vb[0], pr, po, &vl[0], &vrb[0], &vca[0], n,
                                       mirror, scale, hi, lo, &d[0], &x[0], &y[0], &el[0],
                                       &ex[0], &ey[0])
    # the cells written: done + 1 .. n - 1 (mirrored: 1 .. n - 1 - done)
    first, stop = (1, max(n - done, 1)) if mirror else (done + 1, max(n, done + 1))
    return (first,) + tuple(a[first:stop] for a in (dl, er, dc, rel_l, rel_r, rel_c))


# Worst-case DP curves, sensitivity 1: the closed forms live in csrc/dp.c.

cdef double _ndtr(double x) noexcept nogil:
    return ndtr(x)


def neg_log_double_double(double alpha):
    """-ln alpha as a double-double (hi, lo), hi + lo within ~1e-60 relative
    of the real value: the zero point of the geometric DP curve.  mpmath
    (imported here, on first use) gives the ~106 correct bits that double
    arithmetic cannot; lo has the exact sign of -ln alpha - hi."""
    # mpmath's low-level functions take the precision as an argument: no
    # global context is touched (thread safe).
    from mpmath.libmp import from_float, mpf_log, mpf_neg, mpf_sub, to_float, round_nearest
    exact = mpf_neg(mpf_log(from_float(alpha), 200, round_nearest))
    hi = to_float(exact, rnd=round_nearest)
    return hi, to_float(mpf_sub(exact, from_float(hi), 200, round_nearest), rnd=round_nearest)


def laplace_zero_point_up(double scale):
    """The smallest float >= 1/b: delta(eps) = 0 exactly from there on for a
    count plus Laplace(b) noise; at the float below it delta > 0.  Use it
    (not 1.0/b, which may round down) wherever eps >= 1/b means delta = 0."""
    cdef double hi = 1.0 / scale
    cdef double lo = fma(-hi, scale, 1.0) if math.isfinite(hi) else 0.0   # = b (1/b - hi), exact
    return math.nextafter(hi, math.inf) if lo > 0.0 else hi


def geometric_zero_point_up(double alpha):
    """The smallest float >= -ln alpha (geometric(alpha) noise; see
    laplace_zero_point_up)."""
    hi, lo = neg_log_double_double(alpha)
    return math.nextafter(hi, math.inf) if lo > 0.0 else hi


cdef class DPCurveCore(CurveCore):
    """The worst-case DP curve of one noise kind (csrc/dp.c); each kind's
    subclass initialises ``dp`` in its __cinit__."""
    cdef sp_dp_curve dp

    @property
    def zero_point(self):
        """The zero point eps0 (delta = 0 exactly for eps >= eps0) as a
        double-double (hi, lo); (inf, 0.0) for the Gaussian."""
        return self.dp.eps0_hi, self.dp.eps0_lo


cdef class LaplaceDPCore(DPCurveCore):
    """Laplace(scale) noise: delta = max(0, 1 - exp((eps - 1/b)/2))."""

    def __cinit__(self, double scale):
        sp_dp_init_laplace(&self.dp, scale)
        self.fn = sp_dp_curve_log_delta
        self.ctx = &self.dp
        self.closed_form = True      # (the scalar path keeps the GIL: ~50 ns)


cdef class GaussianDPCore(DPCurveCore):
    """N(0, sigma^2) noise (Balle & Wang Thm. 8); delta > 0 at every finite eps."""

    def __cinit__(self, double sigma):
        cdef sp_normal_fns fns
        fns.ndtr = _ndtr
        fns.log_ndtr = _log_ndtr
        fns.erfcx = _erfcx
        sp_dp_init_gaussian(&self.dp, sigma, &fns)
        self.positive = (1 << SP_PLUS) | (1 << SP_MINUS) | (1 << SP_MAX)
        self.fn = sp_dp_curve_log_delta
        self.ctx = &self.dp
        self.closed_form = True      # (the scalar path keeps the GIL: ~50 ns)


cdef class GeometricDPCore(DPCurveCore):
    """Geometric(alpha) noise: delta = max(0, 1 - alpha e^eps) / (1 + alpha);
    ``zero_point`` = (hi, lo) may pass -ln alpha as a double-double
    (neg_log_double_double is used otherwise)."""

    def __cinit__(self, double alpha, zero_point=None):
        hi, lo = neg_log_double_double(alpha) if zero_point is None else zero_point
        sp_dp_init_geometric(&self.dp, alpha, hi, lo)
        self.fn = sp_dp_curve_log_delta
        self.ctx = &self.dp
        self.closed_form = True      # (the scalar path keeps the GIL: ~50 ns)


cdef class ReplaceDPCore(CurveCore):
    """A Poisson-subsampled worst-case DP curve under replace-one (csrc/dp_replace.h):
    (1-q) N + q (N + 1) against (1-q) N + q (N - 1), N = Laplace(b) or
    N(0, sigma^2) at sensitivity 1, 0 < q < 1 (the caller checks)."""
    cdef sp_dp_replace_curve curve

    def __cinit__(self, str kind, double param, double q):
        cdef sp_normal_fns fns
        fns.ndtr = _ndtr
        fns.log_ndtr = _log_ndtr
        fns.erfcx = _erfcx
        if kind == "gaussian":
            sp_dp_replace_init(&self.curve, SP_DP_GAUSSIAN, param, q, 0.0, 0.0, &fns)
            self.positive = (1 << SP_PLUS) | (1 << SP_MINUS) | (1 << SP_MAX)
        elif kind == "laplace":
            z_hi, z_lo = _laplace_replace_zero_point(param, q)
            sp_dp_replace_init(&self.curve, SP_DP_LAPLACE, param, q, z_hi, z_lo, NULL)
        else:
            raise ValueError(f"ReplaceDPCore: kind must be 'gaussian' or 'laplace', got {kind!r}")
        self.fn = sp_dp_replace_log_delta
        self.ctx = &self.curve
        self.closed_form = True      # (the scalar path keeps the GIL: ~0.1 us)


def _laplace_replace_zero_point(double b, double q):
    """z = ln((e^t + r)/(e^-t + r)), t = 1/b, r = (1-q)/q, the largest log
    ratio of the replace-one Laplace pair, as a double-double (hi, lo) from
    mpmath at 40 digits (imported here, on first use): delta = 0 exactly from
    z on."""
    import mpmath
    with mpmath.workdps(40):
        t, r = 1 / mpmath.mpf(b), (1 - mpmath.mpf(q)) / mpmath.mpf(q)
        z = mpmath.log((mpmath.exp(t) + r) / (mpmath.exp(-t) + r))
        hi = float(z)
        return hi, float(z - hi)


def dp_renyi(str kind, alpha, double param):
    """(D_alpha, certain) at every order of the float64 array ``alpha``: the
    closed forms of csrc/dp_renyi.h for 'laplace' (param b) or 'geometric'
    (param alpha of the noise); certain[i] False where the double is not
    proven to be the correctly rounded value."""
    cdef const double[::1] a = np.ascontiguousarray(alpha, dtype=np.float64)
    cdef long n = a.shape[0]
    out = np.empty(n, dtype=np.float64)
    flags = np.empty(n, dtype=np.intc)
    cdef double[::1] o = out
    cdef int[::1] f = flags
    if kind not in ("laplace", "geometric"):
        raise ValueError(f"dp_renyi: kind must be 'laplace' or 'geometric', got {kind!r}")
    cdef bint laplace = kind == "laplace"
    if n:
        with nogil:
            if laplace:
                sp_dp_renyi_laplace(&a[0], n, param, &o[0], &f[0])
            else:
                sp_dp_renyi_geometric(&a[0], n, param, &o[0], &f[0])
    return out, flags.astype(bool)
