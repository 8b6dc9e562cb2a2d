# cython: language_level=3, cdivision=True
"""Connect the dots: privacy-loss distributions on a loss grid from delta at the grid points.

Doroshenko, Ghazi, Kamath, Kumar & Manurangsi, "Connect the Dots: Tighter
Discrete Approximations of Privacy Loss Distributions" (PETS 2022).  As a
function of t = e^eps, one direction's curve

    delta(t) = E_P[(1 - t e^(-L))_+] + P[L = +inf]

is convex and non-increasing, with delta -> (total mass) = 1 as t -> 0 and
delta -> P[L = +inf] as t -> inf.  A measure on the losses eps_i = (lo + i) h
and +inf has a delta that is piecewise linear in t with kinks at t_i =
e^(eps_i) only, the mass at eps_i being t_i times the jump of the slope:

    p_i = t_i (s_i - s_(i-1)),   s_i = (g_(i+1) - g_i) / (t_(i+1) - t_i),

for the values g_i it takes at the grid points (the mass at +inf is its
value beyond the last point).  Whatever the mechanism, two such measures
bracket the curve:

* ``pessimistic`` -- the paper's Algorithm 1: g_i = d_i = delta(eps_i), the
  chord of the convex curve, which lies above it; below the grid the chord
  from (t = 0, 1), above it the constant d_hi (the mass at +inf).  With a
  fixed gap h the masses are (dp-accounting's
  create_pmf_pessimistic_connect_dots_fixed_gap, without its Python dict)

      p_lo = 1 - d_lo + (d_(lo+1) - d_lo) / (e^h - 1),
      p_k  = ((d_(k+1) - d_k) - e^h (d_k - d_(k-1))) / (e^h - 1),
      p_hi = (d_hi - d_(hi-1)) / (e^-h - 1),   mass at +inf = d_hi.

  Values that are not convex in t (upper bounds with their own errors)
  make some p_k negative; ``convex_hull_of_bounds`` gives instead the chord
  of their lower convex hull through (0, 1): a probability measure above
  every convex curve below them (every true curve).

* ``optimistic`` -- a measure on the same grid whose delta lies below the
  curve.  The chord of cell [t_i, t_(i+1)] rises above the curve by at most

      gap_i = D_i a b / (a + b),   a = s_i - s_(i-1),  b = s_(i+1) - s_i,  D_i = t_(i+1) - t_i,

  known from convexity alone: on the cell the curve lies above both
  neighbouring chords extended (slopes s_(i-1), s_(i+1)), whose crossing is
  where the chord can be farthest above it (with one neighbour missing, the
  far end of the cell: gap_i = D_i a, resp. D_i b).  Every dot lowered by
  the larger gap of its two cells, the chords of the lowered dots lie below
  the curve; dots below the floor P[L = +inf] are raised to it (their cell's
  other dot then at most the value at the cell's right end, so that the
  cell's chord stays below the curve, which is non-increasing); the last dot
  is the floor (the value beyond the grid).  The greatest convex minorant of
  the dots (their lower convex hull, with the virtual dot at t = 0, where the
  curve is 1) is convex and piecewise linear with kinks at grid points only:
  a measure, with delta below the curve everywhere.  The error is of the
  order of the chord's, O(h^2) relative where the curve is smooth; an atom
  of the loss between two grid points costs O(h) of its mass (a grid cannot
  do better: the kink is not on it).

* ``certify`` -- both constructions are exact in exact arithmetic; in
  floating point the masses carry rounding (second differences over
  e^h - 1: ~2^-64 / h relative in extended precision) and are rounded to
  float64 for the FFT.  certify evaluates the float64 measure's delta at
  every grid point in extended precision (suffix sums of non-negative
  terms) and scales the whole measure by the smallest factor that puts it
  on the right side of the targets at every grid point, at t = 0 and beyond
  the grid: between grid points both are linear in t, so the measure is on
  the right side everywhere.

Used by the dp-accounting export (statpriv.curve.export) and by the
pessimistic / optimistic privacy-loss distributions of every curve that is
known through its delta (statpriv.laws.grid_pld), which the composition
(statpriv.accounting.composition) multiplies in the Fourier domain.
"""
import math

import numpy as np
cimport cython
from libc.math cimport INFINITY, expl, expm1l, nextafter

__all__ = ["certify", "convex_hull_of_bounds", "grid_delta", "lower_hull", "optimistic",
           "pessimistic"]

_LD = np.longdouble
# long double unit roundoff (x87 extended: 64-bit mantissa); 2^-52 where
# long double is plain double
_U_LD = float(np.finfo(_LD).eps) / 2.0


# (Cython converts a Python number to or from a C long double through a C
# double: extended-precision scalars cross the boundary in one-element arrays)
cdef long double _ld_in(object x) except? -1:
    cdef long double[::1] box = np.ascontiguousarray(np.reshape(np.asarray(x, dtype=_LD), 1))
    return box[0]


cdef object _ld_out(long double v):
    out = np.empty(1, dtype=_LD)
    cdef long double[::1] box = out
    box[0] = v
    return out[0]


# Terms per block of _fill_exp: one expl per block and BLOCK for the powers
# inside it.  x87 expl costs ~35 ns where a multiply costs ~1: per-point expl
# was most of an upper side's time on 8e4 grid points (hull abscissae,
# grid_delta's two scalings).  A block's value is base * power, each within
# an ulp of the exponential and the product rounded once: ~2.5 ulps of long
# double relative (2e-19 and the argument's own rounding, as with one expl),
# far inside certify's slack of 4 (n + 2) u.
cdef enum:
    EXP_BLOCK = 64


@cython.boundscheck(False)
@cython.wraparound(False)
cdef void _fill_exp(long double[::1] out, Py_ssize_t start, long double step) noexcept nogil:
    """out[i] = e^((start + i) step) for every i: expl of the block's first
    argument times e^(r step), r < EXP_BLOCK, from a table."""
    cdef long double powers[EXP_BLOCK]
    cdef long double base
    cdef Py_ssize_t n = out.shape[0], b, r, stop
    for r in range(EXP_BLOCK):
        powers[r] = expl(<long double>r * step)
    b = 0
    while b < n:
        base = expl(<long double>(start + b) * step)
        stop = n - b if n - b < EXP_BLOCK else EXP_BLOCK
        for r in range(stop):
            out[b + r] = base * powers[r]
        b += EXP_BLOCK


def pessimistic(deltas, h):
    """(probs, infinity mass) of the pessimistic connect-the-dots measure on the
    losses lo h, ..., hi h from delta at those eps (module docstring).

    float64 deltas: float64 arithmetic (the dp-accounting export's, bit for
    bit); long double deltas: the same formulas in extended precision (one
    typed loop).  Negative masses (rounding) are set to 0, which only
    raises delta."""
    arr = np.asarray(deltas)
    if arr.dtype == _LD:
        return _pessimistic_ld(np.ascontiguousarray(arr), h)
    d = np.minimum.accumulate(np.asarray(arr, dtype=np.float64))
    em1, e, em1_neg = math.expm1(h), math.exp(h), math.expm1(-h)
    if d.size == 1:
        return np.array([1.0 - d[0]]), float(d[0])
    dd = np.diff(d)
    probs = np.empty_like(d)
    probs[0] = 1.0 - d[0] + dd[0] / em1
    probs[1:-1] = (dd[1:] - dd[:-1] * e) / em1
    probs[-1] = dd[-1] / em1_neg
    return np.maximum(probs, 0.0), float(d[-1])


@cython.boundscheck(False)
@cython.wraparound(False)
def _pessimistic_ld(long double[::1] raw, double h):
    """pessimistic in extended precision: the running minimum of the values,
    their differences and the masses in one pass (the operations, in their
    order, of the array formulas above, so the same bits)."""
    cdef Py_ssize_t n = raw.shape[0], i
    out = np.empty(n, dtype=_LD)
    cdef long double[::1] probs = out
    cdef long double hl = h
    cdef long double em1 = expm1l(hl), e = expl(hl), em1_neg = expm1l(-hl)
    cdef long double prev, cur, dd_prev, dd, p
    if n == 0:
        raise ValueError("deltas: at least one value")
    with nogil:
        prev = raw[0]
        if n == 1:
            probs[0] = 1.0 - prev
        else:
            cur = raw[1] if raw[1] < prev else prev
            dd_prev = cur - prev
            p = (1.0 - prev) + dd_prev / em1
            probs[0] = p if p >= 0 else 0.0
            prev = cur
            for i in range(2, n):
                cur = raw[i] if raw[i] < prev else prev
                dd = cur - prev
                p = (dd - dd_prev * e) / em1
                probs[i - 1] = p if p >= 0 else 0.0
                dd_prev, prev = dd, cur
            p = dd_prev / em1_neg
            probs[n - 1] = p if p >= 0 else 0.0
    return out, _ld_out(prev)


def optimistic(deltas, h, floor, relative_error=0.0, mid=None, first=0):
    """(probs, infinity mass, dots), long double, of the optimistic measure on
    the losses lo h, ..., hi h: its delta is at most the curve's everywhere
    (module docstring); ``dots`` are the lowered values (the virtual dot at
    t = 0 first), whose chords lie below the curve -- the targets of
    ``certify`` (total = dots[0], targets = dots[1:]) -- given

    deltas : delta at the grid points (a convex, non-increasing function of
        t = e^eps, each value within ``relative_error`` of the truth: a
        number or one per point);
    floor : a lower bound of the curve's limit P[L = +inf] (<= every delta);
    mid : None, or (eps, delta, relative errors) of the curve at one point
        inside each cell (the dots being at (first + i) h): with the chord's
        rise r at that point, at the fraction lam of the cell in t, the
        chord of a convex curve rises by at most r / min(lam, 1 - lam) on
        the cell (on the left part the curve lies above the secant through
        the point and the right dot, extended; on the right part, the
        other), so each cell's gap is the smaller of the two bounds: about
        2 r against the neighbours' 4 r where the curve is smooth.

    The values are lowered by relative_error first; the slopes they give
    then carry errors of up to 2 relative_error d / D per value, so each
    dot is lowered by 20 relative_error times the largest value among its
    neighbours more (the gap formula is 1-Lipschitz in a and b, times D, and
    a dot's two gaps involve dots i-2 .. i+2)."""
    raw = np.minimum.accumulate(np.asarray(deltas, dtype=_LD))
    n = raw.size
    r = np.ascontiguousarray(np.broadcast_to(np.asarray(relative_error, dtype=_LD), (n,)))
    d_last = raw[-1] * (_LD(1.0) - r[-1])
    floor = min(_LD(floor), d_last)
    mid_gaps = None
    if mid is not None and n > 1:
        mid_gaps = np.ascontiguousarray(_midpoint_gaps(raw, r, mid, h, first), dtype=_LD)
    x, g = _lowered_dots(np.ascontiguousarray(raw), r, h, np.array([floor], dtype=_LD),
                         mid_gaps, bool(np.any(r > 0)))
    probs = _hull_masses(x, g, lower_hull(x, g))
    return probs, floor, g


@cython.boundscheck(False)
@cython.wraparound(False)
def _lowered_dots(const long double[::1] raw, const long double[::1] r, double h,
                  const long double[::1] floor_box,
                  mid_gaps, bint any_error):
    """(x, g) of ``optimistic``: the abscissae t_i / t_lo with the virtual dot
    (0, 1) in front, and the dots lowered by their gaps and errors, raised to
    the floor (one typed pass per step of the array formulas it replaced, the
    same operations in the same order; numpy's maximum / minimum keep their
    first operand on ties, and so do these)."""
    cdef Py_ssize_t n = raw.shape[0], i, k, m
    cdef long double hl = h, floor = floor_box[0]
    x_arr = np.empty(n + 1, dtype=_LD)
    y_arr = np.empty(n + 1, dtype=_LD)
    gap_arr = np.empty(n, dtype=_LD)
    g_arr = np.empty(n + 1, dtype=_LD)
    raised_arr = np.empty(n + 1, dtype=np.uint8)
    cdef long double[::1] x = x_arr
    cdef long double[::1] y = y_arr
    cdef long double[::1] gap = gap_arr
    cdef long double[::1] g = g_arr
    cdef unsigned char[::1] raised = raised_arr
    cdef const long double[::1] mg
    cdef bint have_mid = mid_gaps is not None
    if have_mid:
        mg = mid_gaps
    cdef long double width, slope, slope_prev = 0.0, slope_next, a, b, e, lg, ug, rn, v, gi
    with nogil:
        x[0], y[0] = 0.0, 1.0
        _fill_exp(x[1:], 0, hl)
        for i in range(n):
            y[i + 1] = raw[i] * (1.0 - r[i])
        # cell i (-1 .. n-2 in the dots' numbering) spans x[i] .. x[i + 1]
        # (its slope is the previous cell's slope_next: the same operations)
        slope_next = (y[1] - y[0]) / (x[1] - x[0])
        for i in range(n):
            width = x[i + 1] - x[i]
            slope = slope_next
            if i + 1 < n:
                slope_next = (y[i + 2] - y[i + 1]) / (x[i + 2] - x[i + 1])
            else:
                slope_next = 0.0
            b = slope_next - slope
            b = b if b >= 0 else 0.0
            if i == 0:
                a = INFINITY
            else:
                a = slope - slope_prev
                a = a if a >= 0 else 0.0
            if a == INFINITY or a == -INFINITY:
                v = b
            elif a + b > 0:
                v = a * b / (a + b)
            else:
                v = 0.0
            gap[i] = width * v
            if have_mid and i >= 1:
                gap[i] = gap[i] if gap[i] <= mg[i - 1] else mg[i - 1]
            slope_prev = slope
        for i in range(n + 1):
            lg = gap[i] if i < n else 0.0
            ug = gap[i - 1] if i >= 1 else 0.0
            e = lg if lg >= ug else ug
            if any_error:
                # the largest error among dots i-2 .. i+2 (the virtual dot's is
                # 0, past the last the last one's), times the value of dot i-2
                rn = 0.0
                for k in range(i - 2, i + 3):
                    m = k if k > 0 else 0
                    m = m if m < n + 2 else n + 2
                    v = 0.0 if m == 0 else r[m - 1 if m - 1 < n else n - 1]
                    rn = rn if rn >= v else v
                e = e + (20.0 * rn) * y[i - 2 if i >= 2 else 0]
            gi = y[i] - e
            raised[i] = gi < floor
            g[i] = gi if gi >= floor else floor
        g[n] = floor
        for i in range(n):
            if raised[i + 1]:
                g[i] = g[i] if g[i] <= y[i + 1] else y[i + 1]
    return x_arr, g_arr


@cython.boundscheck(False)
@cython.wraparound(False)
def _hull_masses(long double[::1] x, long double[::1] g, Py_ssize_t[::1] vert):
    """The masses of the chord of the hull through the dots ``vert`` (x, g):
    x_k times the jump of the slope at each vertex k but the virtual first,
    at least 0; the slope beyond the last vertex is 0."""
    cdef Py_ssize_t n = x.shape[0] - 1, nv = vert.shape[0], k
    probs_arr = np.zeros(n, dtype=_LD)
    cdef long double[::1] probs = probs_arr
    cdef long double hs, hs_next, p
    if nv < 2:
        return probs_arr
    with nogil:
        hs = (g[vert[1]] - g[vert[0]]) / (x[vert[1]] - x[vert[0]])
        for k in range(nv - 1):
            if k + 2 < nv:
                hs_next = (g[vert[k + 2]] - g[vert[k + 1]]) / (x[vert[k + 2]] - x[vert[k + 1]])
            else:
                hs_next = 0.0
            p = x[vert[k + 1]] * (hs_next - hs)
            probs[vert[k + 1] - 1] = p if p >= 0 else 0.0
            hs = hs_next
    return probs_arr


def _midpoint_gaps(raw, r, mid, h, first):
    """Per cell, the bound r_m / min(lam, 1 - lam) on the rise of the TRUE
    curve's chord (``optimistic``): the true values at the dots at most
    raw (1 + 2 r), at the point at least its value (1 - its error)."""
    mid_eps, mid_d, mid_r = (np.asarray(v, dtype=_LD) for v in mid)
    k = np.arange(raw.size - 1, dtype=_LD)
    lam = np.expm1(mid_eps - (_LD(first) + k) * _LD(h)) / np.expm1(_LD(h))
    r_pair = np.maximum(r[:-1], r[1:])
    chord = ((_LD(1.0) - lam) * raw[:-1] + lam * raw[1:]) * (_LD(1.0) + _LD(2.0) * r_pair)
    with np.errstate(invalid="ignore", divide="ignore"):
        rise = np.maximum(chord - mid_d * (_LD(1.0) - mid_r), 0) / np.minimum(lam, _LD(1.0) - lam)
    # (a point not strictly inside its cell bounds nothing)
    return np.where((lam > 0) & (lam < 1) & np.isfinite(rise), rise, np.inf)


@cython.boundscheck(False)
@cython.wraparound(False)
def convex_hull_of_bounds(targets, h):
    """(probs, infinity mass, values at the dots), long double: the chord of
    the lower convex hull H of (t = 0, 1) and the ``targets`` (non-increasing
    upper bounds of a curve's delta at the grid points), a PROBABILITY
    measure whose delta is >= every convex curve below the targets.

    Why the hull, and why it is enough: the targets are upper bounds of a
    true curve (its values raised by their error bounds; an upper curve such
    as a clone reduction; a maximum over pairs) and need not be convex in
    t = e^eps -- the kernels' ~1e-14 relative noise over e^h - 1 ~ h already
    breaks the second differences, a per-point error bound that jumps (4e-7
    relative next to the zero of a clone reduction's delta) more so.  Their
    chord (``pessimistic``) then has negative masses, and setting them to 0
    adds their size to the total (1 + 8.4e-7 for clones(3, 10)): a measure
    of mass > 1 is no pair of laws, and the composition's dominance argument
    (decreasing convex order of probability measures) does not cover it.
    But every pair's delta is convex in t with delta(t = 0) = 1, so a true
    curve at or below the targets at the dots is at or below the GREATEST
    convex function below them and (0, 1) -- their lower convex hull H --
    at every dot, and, being convex, below H's chord between the dots.  H
    is convex, non-increasing (the last dot, the smallest value, is a
    vertex) and through (0, 1): its chord's masses x_i (s_i - s_(i-1)) are
    >= 0 (up to rounding, ~4 u H / h in extended precision, u = 2^-64,
    those below 0 set to 0), of total 1, with Q-mass -s_(-1) <= 1.  H <= the
    targets, so it is tighter than any convex majorant of them (a majorant
    raises a near-linear stretch of the tail by the largest bump's excess)."""
    cdef long double[::1] t = np.ascontiguousarray(targets, dtype=_LD)
    cdef Py_ssize_t n = t.shape[0], i, j, k, nv
    x_arr = np.empty(n + 1, dtype=_LD)
    ys_arr = np.empty(n + 1, dtype=_LD)
    cdef long double[::1] x = x_arr
    cdef long double[::1] ys = ys_arr
    cdef long double hl = <double>h, run = 1.0, v, hull
    with nogil:
        # the targets capped at 1 and made non-increasing (their running
        # minimum), after the virtual dot (0, 1)
        x[0], ys[0] = 0.0, 1.0
        _fill_exp(x[1:], 0, hl)
        for i in range(n):
            v = t[i] if t[i] <= 1.0 else 1.0
            run = run if run <= v else v
            ys[i + 1] = run
    vertices_arr = lower_hull(x_arr, ys_arr)
    cdef Py_ssize_t[::1] vert = vertices_arr
    nv = vert.shape[0]
    values = ys_arr.copy()
    cdef long double[::1] val = values
    slope_arr = np.empty(max(nv - 1, 1), dtype=_LD)
    cdef long double[::1] slope = slope_arr
    if nv > 1:
        with nogil:
            for k in range(nv - 1):
                slope[k] = (ys[vert[k + 1]] - ys[vert[k]]) / (x[vert[k + 1]] - x[vert[k]])
            # each dot on the hull's segment from the last vertex at or before
            # it (the last dot: the last segment); at a vertex the hull is the
            # dot itself, elsewhere at most the dot
            k = 0
            for j in range(n + 1):
                while k + 1 < nv - 1 and vert[k + 1] <= j:
                    k += 1
                hull = ys[vert[k]] + slope[k] * (x[j] - x[vert[k]])
                val[j] = hull if hull <= ys[j] else ys[j]
            for k in range(nv):
                val[vert[k]] = ys[vert[k]]
    probs, infinity = pessimistic(values[1:], h)
    return probs, infinity, values[1:]


@cython.boundscheck(False)
@cython.wraparound(False)
def lower_hull(x, y):
    """Indices of the vertices of the lower convex hull of the points (x_i, y_i),
    x strictly increasing (long double): Andrew's monotone chain, O(n), the
    first and last point always included, collinear points dropped."""
    cdef long double[::1] xs = np.ascontiguousarray(x, dtype=_LD)
    cdef long double[::1] ys = np.ascontiguousarray(y, dtype=_LD)
    cdef Py_ssize_t n = xs.shape[0], i, top = 0
    out = np.empty(n, dtype=np.intp)
    cdef Py_ssize_t[::1] stack = out
    cdef long double cross
    with nogil:
        for i in range(n):
            while top >= 2:
                # keep the turn from stack[top-2] -> stack[top-1] -> i counter-clockwise
                cross = ((xs[stack[top - 1]] - xs[stack[top - 2]]) * (ys[i] - ys[stack[top - 2]])
                         - (ys[stack[top - 1]] - ys[stack[top - 2]]) * (xs[i] - xs[stack[top - 2]]))
                if cross > 0:
                    break
                top -= 1
            stack[top] = i
            top += 1
    return out[:top].copy()


@cython.boundscheck(False)
@cython.wraparound(False)
def grid_delta(probs, infinity, h):
    """delta at each grid point lo h, ..., hi h of the measure with masses
    ``probs`` there and ``infinity`` at +inf, in extended precision:
    delta_j = infinity + D_j with W_k = sum_(i >= k) p_i e^(-(i - k) h) and
    D_j = (1 - e^-h) sum_(k > j) W_k -- sums of non-negative terms, so the
    relative error is a few ulps (of long double) per term summed.  (The
    terms are scaled by e^((mid - i) h) about the middle point, so that
    neither end over- or underflows; the scalings from _fill_exp.)"""
    cdef long double[::1] p = np.ascontiguousarray(probs, dtype=_LD)
    cdef Py_ssize_t n = p.shape[0], i
    out = np.zeros(n, dtype=_LD)
    if n == 0:
        return out
    cdef long double[::1] d = out
    w_arr = np.empty(n, dtype=_LD)
    cdef long double[::1] w = w_arr
    down_arr = np.empty(n, dtype=_LD)
    up_arr = np.empty(n, dtype=_LD)
    cdef long double[::1] down = down_arr
    cdef long double[::1] up = up_arr
    cdef long double hl = <double>h, inf_ld = _ld_in(infinity), acc = 0.0
    cdef long double c = -expm1l(-hl)
    cdef Py_ssize_t mid = n // 2
    with nogil:
        _fill_exp(down, -mid, -hl)           # e^((mid - i) h)
        _fill_exp(up, -mid, hl)              # e^((i - mid) h)
        for i in range(n - 1, -1, -1):
            acc = acc + p[i] * down[i]
            w[i] = acc * up[i]
        acc = 0.0
        d[n - 1] = inf_ld
        for i in range(n - 2, -1, -1):
            acc = acc + w[i + 1]
            d[i] = acc * c + inf_ld
    return out


@cython.boundscheck(False)
@cython.wraparound(False)
def _worst_relative(long double[::1] values, long double[::1] wanted, bint upper):
    """The largest relative shortfall (wanted - values) / values (``upper``) or
    excess (values - wanted) / values over the points, as certify's factor
    needs it: a shortfall where values is 0 is +inf (0 if wanted is 0 too);
    an excess there is 0."""
    cdef Py_ssize_t n = values.shape[0], i
    cdef long double worst = -INFINITY, r
    with nogil:
        for i in range(n):
            if values[i] > 0:
                r = (wanted[i] - values[i]) / values[i] if upper else \
                    (values[i] - wanted[i]) / values[i]
            elif upper:
                r = INFINITY if wanted[i] > 0 else 0.0
            else:
                r = 0.0
            if r > worst:
                worst = r
    return _ld_out(worst)


def certify(probs, infinity, targets, h, upper, total=1.0):
    """(probs, infinity) as float64 / float, scaled so that the measure's delta
    is >= ``targets`` at every grid point (``upper``), or <= them, and beyond
    the grid >= resp. <= the last target, and its total mass (delta at t = 0)
    >= resp. <= ``total``: the measure lies on the right side of the chord of
    the targets everywhere (both are linear in t between grid points).  An
    upper measure short at the grid points first moves the shortfall from
    its lowest atom to +inf (total unchanged); the scaling that remains
    raises the total by the rounding slack only (4 (n + 2) u + 2^-52).

    The check is the measure's delta at the grid points in extended
    precision (grid_delta, exact to ~n 2^-64 relative); the scale factor
    takes that error on top."""
    p64 = np.asarray(np.maximum(probs, 0), dtype=np.float64)
    inf64 = float(infinity)
    if upper and _LD(inf64) < _LD(infinity):
        inf64 = math.nextafter(inf64, math.inf)
    targets = np.ascontiguousarray(targets, dtype=_LD)
    have = grid_delta(p64, inf64, h)
    slack = _LD(4.0 * (p64.size + 2) * _U_LD + 2.0 ** -52)
    if upper and p64.size:
        # A shortfall at the grid points is first made up by moving mass from
        # the lowest atom to +inf: that atom adds nothing to delta at any grid
        # point (its loss is the lowest eps of the grid), +inf adds its mass
        # at every one, and the total stays -- where scaling would raise the
        # total with delta (by 5e-5 for a shortfall of 1e-324 at a target of
        # 1.2e-324 that float64 holds to 4 digits only: the shuffled
        # randomized response with eps0 = 5e-324).
        # Only where the shortfall is more than rounding: a rounding-level one
        # is cheaper scaled (it raises delta by ~1e-16 of itself, where moving
        # it to +inf raises it by ~1e-16 of the bulk everywhere -- in the
        # tail, where compositions read, that doubled the +inf mass of
        # dp.gaussian(30), 2.5e-18, and widened 10^4 of them by 60%).
        # (in extended precision: a shortfall below the float64 range, 1.6e-327
        # at a subnormal target, is still one; the move below adds at least
        # one float64 ulp to +inf)
        short_ld = np.max(np.concatenate((targets - have, [targets[-1] - _LD(inf64)])))
        short = float(short_ld)
        beyond_rounding = float(_worst_relative(have, targets, True)) > 64.0 * float(slack)
        if short_ld > 0 and beyond_rounding and p64[0] >= 2.0 * short:
            moved = short * (1.0 + 4.0 * float(slack))
            p64 = p64.copy()
            p64[0] = max(p64[0] - moved, 0.0)
            inf64 = math.nextafter(inf64 + moved, math.inf)
            have = grid_delta(p64, inf64, h)
    have_total = np.sum(p64, dtype=_LD) + _LD(inf64)
    values = np.concatenate((have, [have_total, _LD(inf64)]))
    wanted = np.concatenate((targets, [_LD(total), targets[-1]]))
    worst = max(_LD(0.0), _worst_relative(values, wanted, upper))
    factor = _LD(1.0) + worst + slack if upper else _LD(1.0) - worst - slack
    if not np.isfinite(factor) or factor <= 0:
        raise ArithmeticError("connect-the-dots: the measure cannot be scaled onto its targets")
    if factor == 1:
        return p64, inf64
    out = _scaled_outward(p64, factor, upper)
    inf_out = float(_LD(inf64) * factor)
    if upper:
        if _LD(inf_out) < _LD(inf64) * factor:
            inf_out = math.nextafter(inf_out, math.inf)
    else:
        if _LD(inf_out) > _LD(inf64) * factor:
            inf_out = math.nextafter(inf_out, 0)
    return out, inf_out


@cython.boundscheck(False)
@cython.wraparound(False)
def _scaled_outward(const double[::1] p, factor_ld, bint upper):
    """p * factor (in extended precision) rounded to float64 away from the
    measure's side: up for an upper measure (rounding to nearest may have
    lowered a mass by half an ulp), down (towards 0) for a lower one."""
    cdef Py_ssize_t n = p.shape[0], i
    out_arr = np.empty(n, dtype=np.float64)
    cdef double[::1] out = out_arr
    cdef long double scaled, factor = _ld_in(factor_ld)
    cdef double r
    with nogil:
        for i in range(n):
            scaled = <long double>p[i] * factor
            r = <double>scaled
            if upper and <long double>r < scaled:
                r = nextafter(r, INFINITY)
            elif not upper and <long double>r > scaled:
                r = nextafter(r, 0.0)
            out[i] = r
    return out_arr
