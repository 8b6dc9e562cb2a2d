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

__all__ = ["certify", "convex_hull_of_bounds", "grid_delta", "lower_hull", "optimistic",
           "pessimistic"]

_LD = np.longdouble
# long double unit roundoff (x87 extended: 64-bit mantissa); 2^-52 where
# long double is plain double
_U_LD = float(np.finfo(_LD).eps) / 2.0


def pessimistic(deltas, h):
    """(probs, infinity mass) of the pessimistic connect-the-dots measure on the
    losses lo h, ..., hi h from delta at those eps (module docstring).

    float64 deltas: float64 arithmetic (the dp-accounting export's, bit for
    bit); long double deltas: the same formulas in extended precision.
    Negative masses (rounding) are set to 0, which only raises delta."""
    arr = np.asarray(deltas)
    if arr.dtype == _LD:
        d = np.minimum.accumulate(arr)
        h_ld = _LD(h)
        em1, e, em1_neg = np.expm1(h_ld), np.exp(h_ld), np.expm1(-h_ld)
        one = _LD(1.0)
    else:
        d = np.minimum.accumulate(np.asarray(arr, dtype=np.float64))
        em1, e, em1_neg = math.expm1(h), math.exp(h), math.expm1(-h)
        one = 1.0
    if d.size == 1:
        return np.array([one - d[0]], dtype=d.dtype), d[0] if arr.dtype == _LD else float(d[0])
    dd = np.diff(d)
    probs = np.empty_like(d)
    probs[0] = one - d[0] + dd[0] / em1
    probs[1:-1] = (dd[1:] - dd[:-1] * e) / em1
    probs[-1] = dd[-1] / em1_neg
    zero = _LD(0.0) if arr.dtype == _LD else 0.0
    return np.maximum(probs, zero), d[-1] if arr.dtype == _LD else float(d[-1])


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
    r = np.broadcast_to(np.asarray(relative_error, dtype=_LD), (n,))
    d = raw * (_LD(1.0) - r)
    floor = min(_LD(floor), d[-1])
    # scaled abscissae: t_i / t_lo (the gaps and the masses are invariant under
    # the scaling), with the virtual dot (0, 1) in front
    x = np.concatenate((np.zeros(1, dtype=_LD), np.exp(np.arange(n, dtype=_LD) * _LD(h))))
    y = np.concatenate((np.ones(1, dtype=_LD), d))
    width = np.diff(x)
    slope = np.diff(y) / width                        # cells -1 .. n-2
    # neighbours' slopes: none left of the virtual cell; 0 right of the last
    # dot (the curve tends to a constant, its chord to infinity is flat)
    right = np.concatenate((slope[1:], np.zeros(1, dtype=_LD)))
    b = np.maximum(right - slope, 0)
    a = np.concatenate((np.full(1, np.inf, dtype=_LD), np.maximum(slope[1:] - slope[:-1], 0)))
    with np.errstate(invalid="ignore", divide="ignore"):
        gap = width * np.where(np.isinf(a), b, np.where(a + b > 0, a * b / (a + b), 0))
    if mid is not None and n > 1:
        gap[1:] = np.minimum(gap[1:], _midpoint_gaps(raw, r, mid, h, first))
    # each dot: the larger gap of its two cells (the virtual dot: its one cell;
    # the last dot: its left cell), plus the slack for the values' own errors
    lower_gap = np.concatenate((gap, np.zeros(1, dtype=_LD)))
    upper_gap = np.concatenate((np.zeros(1, dtype=_LD), gap))
    e = np.maximum(lower_gap, upper_gap)
    if np.any(r > 0):
        # the values are non-increasing: the largest of dots i-2 .. i+2 is dot
        # i-2; their errors: the largest of theirs (the virtual dot is exact)
        r_ext = np.concatenate((np.zeros(1, dtype=_LD), r, r[-1:], r[-1:]))
        r_near = np.maximum.reduce([r_ext[np.clip(np.arange(n + 1) + k, 0, n + 2)]
                                    for k in (-2, -1, 0, 1, 2)])
        near = y[np.maximum(np.arange(n + 1) - 2, 0)]
        e = e + _LD(20.0) * r_near * near
    g = y - e
    raised = g < floor
    g = np.maximum(g, floor)
    g[-1] = floor                                     # the value beyond the grid
    # a cell whose right dot was raised: its left dot at most the curve at the
    # cell's right end, so that the chord stays below the (non-increasing) curve
    g[:-1] = np.where(raised[1:], np.minimum(g[:-1], y[1:]), g[:-1])
    vertices = lower_hull(x, g)
    hx, hy = x[vertices], g[vertices]
    hull_slope = np.diff(hy) / np.diff(hx)
    jumps = np.diff(np.concatenate((hull_slope, np.zeros(1, dtype=_LD))))
    probs = np.zeros(n, dtype=_LD)
    # (the virtual dot at x = 0 carries no mass: its value is the total mass)
    probs[vertices[1:] - 1] = np.maximum(hx[1:] * jumps, 0)
    return probs, floor, g


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
    y_arr = np.minimum.accumulate(np.minimum(np.asarray(targets, dtype=_LD), _LD(1.0)))
    n = y_arr.size
    x_arr = np.concatenate((np.zeros(1, dtype=_LD), np.exp(np.arange(n, dtype=_LD) * _LD(h))))
    ys = np.concatenate((np.ones(1, dtype=_LD), y_arr))
    vertices = lower_hull(x_arr, ys)
    values = ys.copy()
    if vertices.size > 1:
        seg_slope = np.diff(ys[vertices]) / np.diff(x_arr[vertices])
        seg = np.clip(np.searchsorted(vertices, np.arange(n + 1), side="right") - 1,
                      0, seg_slope.size - 1)
        hull = ys[vertices[seg]] + seg_slope[seg] * (x_arr - x_arr[vertices[seg]])
        # (at a vertex the hull is the dot itself; elsewhere at most the dot)
        values = np.minimum(hull, ys)
        values[vertices] = ys[vertices]
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


def grid_delta(probs, infinity, h):
    """delta at each grid point lo h, ..., hi h of the measure with masses
    ``probs`` there and ``infinity`` at +inf, in extended precision:
    delta_j = infinity + D_j with W_k = sum_(i >= k) p_i e^(-(i - k) h) and
    D_j = (1 - e^-h) sum_(k > j) W_k -- sums of non-negative terms, so the
    relative error is a few ulps (of long double) per term summed."""
    p = np.asarray(probs, dtype=_LD)
    n = p.size
    if n == 0:
        return np.zeros(0, dtype=_LD)
    k = np.arange(n, dtype=_LD) * _LD(h)
    mid = k[n // 2]
    with np.errstate(under="ignore", over="ignore"):
        scaled = p * np.exp(mid - k)
        w = np.cumsum(scaled[::-1])[::-1] * np.exp(k - mid)
    d = np.zeros(n, dtype=_LD)
    d[:-1] = np.cumsum(w[:0:-1])[::-1] * -np.expm1(-_LD(h))
    return d + _LD(infinity)


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
    targets = np.asarray(targets, dtype=_LD)
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
        with np.errstate(divide="ignore", invalid="ignore"):
            relative = np.where(have > 0, (targets - have) / have, np.where(targets > 0, np.inf, 0))
        beyond_rounding = float(np.max(relative)) > 64.0 * float(slack)
        if short_ld > 0 and beyond_rounding and p64[0] >= 2.0 * short:
            moved = short * (1.0 + 4.0 * float(slack))
            p64 = p64.copy()
            p64[0] = max(p64[0] - moved, 0.0)
            inf64 = math.nextafter(inf64 + moved, math.inf)
            have = grid_delta(p64, inf64, h)
    have_total = np.sum(p64, dtype=_LD) + _LD(inf64)
    values = np.concatenate((have, [have_total, _LD(inf64)]))
    wanted = np.concatenate((targets, [_LD(total), targets[-1]]))
    with np.errstate(divide="ignore", invalid="ignore"):
        if upper:
            short = np.where(values > 0, (wanted - values) / values,
                             np.where(wanted > 0, np.inf, 0))
            factor = _LD(1.0) + max(_LD(0.0), np.max(short)) + slack
        else:
            excess = np.where(values > 0, (values - wanted) / values, 0)
            factor = _LD(1.0) - max(_LD(0.0), np.max(excess)) - slack
    if not np.isfinite(factor) or factor <= 0:
        raise ArithmeticError("connect-the-dots: the measure cannot be scaled onto its targets")
    if factor == 1:
        return p64, inf64
    scaled = (p64.astype(_LD) * factor)
    out = scaled.astype(np.float64)
    inf_out = float(_LD(inf64) * factor)
    if upper:
        # (rounding to float64 may have lowered a mass by half an ulp)
        out = np.where(out.astype(_LD) < scaled, np.nextafter(out, np.inf), out)
        if _LD(inf_out) < _LD(inf64) * factor:
            inf_out = math.nextafter(inf_out, math.inf)
    else:
        out = np.where(out.astype(_LD) > scaled, np.nextafter(out, 0), out)
        if _LD(inf_out) > _LD(inf64) * factor:
            inf_out = math.nextafter(inf_out, 0)
    return out, inf_out
