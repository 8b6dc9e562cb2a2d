"""Pessimistic and optimistic privacy-loss distributions on a loss grid h Z,
from a curve's own delta.

Every curve answers delta_plus(eps) and delta_minus(eps) exactly (to its
documented 1e-12 relative); as a function of t = e^eps each is convex.  By
connect-the-dots (Doroshenko, Ghazi, Kamath, Kumar & Manurangsi, "Connect
the Dots: Tighter Discrete Approximations of Privacy Loss Distributions";
the math in statpriv._connect_dots) the values at the grid points eps_i = i h
give two measures on h Z and +inf per direction:

* the pessimistic one, whose delta is the chord of the curve's values --
  piecewise linear in e^eps, so never below the curve (it is convex there);
  where the values (upper bounds, raised by their error bounds) are not
  convex in e^eps, the chord of their lower convex hull through (t = 0, 1),
  which is above every convex curve below them, the true one included
  (statpriv._connect_dots.convex_hull_of_bounds), so that it stays a
  probability measure;
* the optimistic one, the chords of the values lowered by a convexity bound
  on the chord's rise, made convex (lower hull) -- never above the curve.

The grid runs from lo = -(where the other direction's delta comes within
``tail`` of its limit) to hi = where this direction's does: beyond hi the
pessimistic measure keeps delta(hi) (<= its limit + tail) at +inf, the
optimistic one the limit itself.  Both are certified in extended precision
at every grid point (statpriv._connect_dots.certify), the curve's 1e-12
relative error and the float64 rounding of the grid points i h included.

A measure whose delta is above (below) a curve's at EVERY eps composes to a
delta above (below) the composed curve's: delta(eps) = E[phi(e^-L)] with
phi(x) = (1 - e^eps x)_+ convex and non-increasing in x, so "above at every
eps" is the decreasing convex order of e^-L, which products of independent
factors preserve (statpriv.accounting.composition).

``DeltaLaws`` is the capability (PrivacyCurve's ``laws``) of the curves known
through their delta only -- counts with Laplace or Gaussian noise (sampled,
per-record, secret sample), thresholded counts, the k-anonymity upper curve,
the shuffle clones: their ``privacy_loss_distribution(h)`` is the pessimistic
PLD with the optimistic one as its ``optimistic``.  ``grid_bracket`` gives
the pair on h Z of ANY PrivacyLossDistribution (exact atoms included), the
input of the composition.
"""
import collections
import functools
import gc
import math
import time
from typing import Any, Dict, Optional

import numpy as np

from statpriv import _connect_dots, _lazy, _progress, _threads
from statpriv.laws import pld as _pld
from statpriv.laws.pair import LawSource

_core = _lazy.module("statpriv._core")            # scipy.special: loaded on first use

__all__ = ["Bracket", "CLOSED_FORM_SECONDS", "CURVE_RELATIVE_ERROR", "CurveSource", "DeltaLaws", "EVAL_OVERHEAD_SECONDS",
           "GridCostError", "GridPMF", "MAX_CURVE_TERMS", "MAX_GRID", "MAX_SECONDS",
           "TERMS_PER_SECOND", "check_seconds", "curve_bracket", "from_curve", "grid_bracket",
           "tail_span", "tail_target"]

_LD = np.longdouble
# The relative error of a curve's delta the PLDs allow for (statpriv's kernels
# are exact to ~1e-13; epsilon() promises the true delta <= d (1 + 1e-12)).
CURVE_RELATIVE_ERROR = 1e-12
# The largest grid (points per direction) built from a curve's delta.
MAX_GRID = 4_000_000
# The work of a grid is predicted before any of it is done, in CPU seconds:
# its delta at every grid point (and at the cells' midpoints for the lower
# side) plus connect-the-dots over the values.  Beyond MAX_SECONDS the grid
# is refused, naming the cost and a grid that fits; beyond
# statpriv._progress.SECONDS it gets a progress bar.  (A fuzz harness lowers
# MAX_SECONDS so that every input either finishes within its time limit or
# is refused.)
MAX_SECONDS = 10.0
# A curve whose one evaluation sums a known number of terms (``eval_terms`` of
# its CurveSource, e.g. the k-anonymity upper curve's 2-D sum: ~6e4 terms at
# n = 872) is priced at TERMS_PER_SECOND terms a CPU second (this machine);
# any other by a probe: its delta at PROBE_RUNS runs of PROBE_RUN consecutive
# grid points spread over the grid, timed (runs, because a core may walk an
# ascending grid incrementally: the first point of a run costs the most).
TERMS_PER_SECOND = 1e8
# ... plus this much CPU a call beyond its terms (a 2-D sum's set-up and
# refinements: the k-anonymity upper curve at n = 195 took 62 us a direction
# for 1436 terms, at n = 3000 1.8 ms for 2e5; priced by its terms alone, a
# grid of 1.4e5 points predicted at 2.4 s took 7.9 s)
EVAL_OVERHEAD_SECONDS = 5e-5
PROBE_RUNS, PROBE_RUN = 4, 64
# a grid priced below this many CPU seconds by one probe run is not probed
# further (100x below the 1 s a refinement may take)
_PROBE_SURE_BELOW = 1e-2
# MAX_SECONDS in terms (kept for code that reads it; the limit is MAX_SECONDS)
MAX_CURVE_TERMS = MAX_SECONDS * TERMS_PER_SECOND
# CPU seconds of connect-the-dots per value of one side (both directions'
# values, _values): measured on 1.5e5- and 3e5-value sides of a sampled
# Gaussian on a loaded 2-core machine, the convex hull and certify of an
# upper side 0.35 us a value, an optimistic lower side with its cells'
# midpoints 0.55 us (rounded up; mostly the three extended-precision exps
# per value of statpriv._connect_dots).
CONNECT_SECONDS = {"upper": 0.5e-6, "lower": 0.8e-6}
# CPU seconds of one grid point of a closed-form delta (a sampled Gaussian's or
# Laplace's crossing and tails; a DP kind's closed form), priced without a
# probe so that the grid a refinement settles on -- and the bracket -- is the
# same on every run: a probe's timing moved with the machine's load (0.35 to
# 0.9 us a point between runs) and with it the grid of a refinement priced
# near REFINE_SECONDS.  Measured on long grids, least of 7 runs: 0.20-0.34 us
# for q in [0.001, 0.3], plus the long-double exp of CurveSource.delta; rounded
# up.
CLOSED_FORM_SECONDS = 0.5e-6

class GridCostError(ValueError):
    """A grid refused before it is built: its work is predicted above
    MAX_SECONDS.  ``fits``: a grid interval whose work fits (a caller that
    chose the grid itself may take it; one given by the user is refused)."""

    def __init__(self, message: str, fits: float) -> None:
        super().__init__(message)
        self.fits = fits


class GridPMF(collections.namedtuple("GridPMF", "offset mass infinity")):
    """One direction of a measure on h Z: mass[i] (float64) at the loss
    (offset + i) h, ``infinity`` at +inf; ``log_mass``: ln mass (-inf for 0),
    computed once (a composition's window and tilts ask it dozens of times)."""

    @functools.cached_property
    def log_mass(self) -> Any:
        with np.errstate(divide="ignore"):
            return np.log(self.mass)

    @functools.cached_property
    def empty(self) -> bool:
        """True when no finite loss has mass (all of it at +inf, or none)."""
        return bool(self.mass.size == 0 or not np.any(self.mass > 0))


class CurveSource:
    """One direction of a curve core as a delta source of a Bracket: ``delta(eps)``
    (long double array), ``at_inf()`` (the limit), ``reach(target)`` (the
    smallest eps with delta <= target)."""

    exact_between = True           # delta at any eps, not only at grid points

    def __init__(self, core: Any, direction: Any, eval_terms: Any = None,
                 seconds_per_point: Optional[float] = None) -> None:
        self.core, self.code = core, (_core.PLUS if direction == "plus" else _core.MINUS)
        # the terms one evaluation sums (None: cheap or unknown; no cost check)
        self.eval_terms = eval_terms
        # a fixed price of one grid point (closed forms: CLOSED_FORM_SECONDS);
        # None: priced by eval_terms, else probed
        self.seconds_per_point = seconds_per_point

    def delta(self, eps: Any) -> Any:
        # (a grid ascends: a core may walk it incrementally, within 3.6e-13 of
        # its one-point values -- inside CURVE_RELATIVE_ERROR)
        logs = np.asarray(self.core.log_delta_ascending(
            np.ascontiguousarray(eps, dtype=np.float64), self.code), dtype=_LD)
        return np.exp(logs)

    def at_inf(self) -> Any:
        return float(self.delta(np.array([math.inf]))[0])

    def reach(self, target: Any) -> Any:
        return float(self.core.epsilon(np.array([math.log(target)]), self.code)[0])


class _SideSource:
    """One PLDSide as a delta source (its extended-precision evaluation)."""

    exact_between = True

    def __init__(self, side: Any) -> None:
        self.side = side

    def delta(self, eps: Any) -> Any:
        return self.side._delta_ld(np.asarray(eps, dtype=np.float64))

    def at_inf(self) -> Any:
        return float(min(self.side._const, _LD(1.0)))

    def reach(self, target: Any) -> Any:
        return max(float(self.side._epsilon(np.array([math.log(target)]))[0]), 0.0)


class _AtomsSource:
    """One direction of an exact PLD (a PLDSide) as a delta source on h Z: each
    atom split between its two neighbouring grid points, keeping its mass and
    its e^-L (connect-the-dots of the atoms, exact at the grid points), and
    delta at the grid points from the split measure's suffix sums
    (statpriv._connect_dots.grid_delta) -- no cancellation, no evaluation of
    the atoms at every grid point.  ``lower``: the atoms without the side's
    bounded tail and extra mass (a lower bound of the true curve).  The
    outermost atoms holding at most tail / 4 at each end are moved first:
    up to the lowest kept atom and to +inf (upper), or dropped (lower)."""

    total: Any     # the mass on the grid (long double)
    e: Any

    def __init__(self, side: Any, h: Any, tail: Any, lower: Any = False) -> None:
        self.h = h
        if lower:
            losses, probs, const = side.losses, side.probs, _LD(side.infinity_mass)
        else:
            losses, probs, const = side._eval_losses, side._eval_probs, side._const
        probs = np.asarray(probs, dtype=_LD)
        keep_lo = int(np.searchsorted(np.cumsum(probs), _LD(tail / 4.0), side="right"))
        keep_hi = probs.size - int(np.searchsorted(np.cumsum(probs[::-1]), _LD(tail / 4.0),
                                                   side="right"))
        if keep_lo >= keep_hi:
            keep_lo, keep_hi = 0, probs.size
        below, above = np.sum(probs[:keep_lo]), np.sum(probs[keep_hi:])
        losses, probs = np.asarray(losses[keep_lo:keep_hi], dtype=_LD), probs[keep_lo:keep_hi]
        if not lower:
            const = const + above
            if probs.size:
                probs = probs.copy()
                probs[0] += below
        self.const = const
        if probs.size == 0:
            self.first, self.d, self.total, self.e = 0, np.zeros(1, dtype=_LD) + const, 0, 0
            return
        k = np.floor(losses / _LD(h))
        # (in extended precision, before the indices become int64: a subnormal h
        # puts them past 2^63, where the cast wraps around)
        points = k[-1] - k[0] + 2
        if not points <= MAX_GRID or max(abs(k[0]), abs(k[-1])) >= _LD(2.0 ** 62):
            span = float(losses[-1] - losses[0])
            low = max(span / (MAX_GRID - 3), float(max(abs(losses[0]), abs(losses[-1]))) / 2 ** 62)
            raise ValueError(f"value_discretization_interval={h!r} needs {float(points):.3g} "
                             f"grid points for the atoms (at most {MAX_GRID}): it must be in "
                             f"[{low:.3g}, 1] for the losses from {float(losses[0]):.6g} to "
                             f"{float(losses[-1]):.6g}; use a coarser grid")
        y = losses - k * _LD(h)
        up = np.expm1(-y) / np.expm1(-_LD(h))          # to k + 1; the rest to k
        k = k.astype(np.int64)
        first = int(k[0])
        size = int(k[-1]) - first + 2
        mass = (np.bincount(k - first, weights=(probs * (1 - up)).astype(np.float64), minlength=size)
                + np.bincount(k - first + 1, weights=(probs * up).astype(np.float64),
                              minlength=size))
        self.first = first
        self.d = _connect_dots.grid_delta(mass, const, h)
        self.total = np.sum(mass, dtype=_LD)
        self.e = np.sum(mass.astype(_LD) * np.exp(-(first + np.arange(size, dtype=_LD))
                                                 * _LD(h)))

    def delta(self, eps: Any) -> Any:
        i = np.rint(np.asarray(eps, dtype=np.float64) / self.h).astype(np.int64) - self.first
        out = np.full(i.shape, self.const, dtype=_LD)
        inside = (i >= 0) & (i < self.d.size)
        out[inside] = self.d[i[inside]]
        below = i < 0
        with np.errstate(over="ignore"):
            out[below] = self.const + self.total - np.exp(
                np.asarray(eps, dtype=_LD)[below]) * self.e
        return np.clip(out, _LD(0.0), _LD(1.0))

    def at_inf(self) -> Any:
        return float(min(self.const, _LD(1.0)))

    def reach(self, target: Any) -> Any:
        above = np.flatnonzero(self.d <= _LD(target))
        j = int(above[0]) if above.size else self.d.size - 1
        return max((self.first + j) * self.h, 0.0)


def tail_span(source: Any, tail: Any) -> Any:
    """(eps, limit): where a delta source comes within ``tail`` (or 1e-9 of
    itself) of its limit, and the limit."""
    limit = source.at_inf()
    return source.reach(tail_target(limit, tail)), limit


def timed(fn: Any, *args: Any) -> Any:
    """(fn(*args), CPU seconds it took in this thread), the cyclic garbage
    collector paused meanwhile: the prices that steer a grid (_per_point)
    are a few milliseconds of work, which a full collection in a large
    process, or another thread's CPU (process_time counts every thread),
    can inflate many times over -- and a price 100x too high coarsens the
    grid (one bench run, not reproduced, got a bracket 0.62 of eps wide at
    10^5 DP-SGD steps)."""
    was = gc.isenabled()
    gc.disable()
    try:
        clock = time.thread_time()
        value = fn(*args)
        return value, time.thread_time() - clock
    finally:
        if was:
            gc.enable()


def tail_target(limit: Any, tail: Any) -> Any:
    """The delta at which a grid stops: within ``tail`` (or 1e-9 of itself) of
    the curve's limit at eps = inf, at most 1."""
    return min(1.0, limit + max(tail, 1e-9 * limit))


def _relative_errors(d: Any, eps: Any, h: Any, base: Any) -> Any:
    """base plus the effect of evaluating at fl(i h) instead of i h: ulp(eps)
    times the local slope of ln delta (from the neighbouring grid values)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(np.maximum(d, np.finfo(_LD).tiny)).astype(np.float64)
        slope = np.abs(np.diff(logs)) / h
    steep = np.maximum(np.concatenate(([0.0], slope)), np.concatenate((slope, [0.0])))
    steep = np.where(np.isfinite(steep), steep, 1e300)
    return base + np.minimum(steep * np.spacing(np.abs(eps)) * 2.0, 1e-3)


def _delta_at(source: Any, eps: Any, progress: Any) -> Any:
    """source.delta(eps); with a progress bar, piece by piece (each eps is
    evaluated on its own either way: the same values)."""
    if progress is None:
        return source.delta(eps)
    out = np.empty(eps.size, dtype=_LD)
    for start, stop in _progress.chunks(eps.size, int(_progress.step(eps.size)), progress):
        out[start:stop] = source.delta(eps[start:stop])
    return out


def _evaluate(source: Any, i_hi: Any, h: Any, progress: Any = None) -> Any:
    """(delta, relative errors) of a source at eps = 0, h, ..., i_hi h."""
    if i_hi + 1 > MAX_GRID:
        raise ValueError(f"value_discretization_interval={h!r} needs {i_hi + 1:.3g} grid points "
                         f"per direction (at most {MAX_GRID}); use a coarser grid")
    eps = np.arange(i_hi + 1, dtype=np.float64) * h
    d = np.minimum(_delta_at(source, eps, progress), _LD(1.0))
    return d, _relative_errors(d, eps, h, CURVE_RELATIVE_ERROR).astype(_LD)


def _evaluate_mid(source: Any, i_hi: Any, h: Any, progress: Any = None) -> Any:
    """(eps, delta) of a source at the cells' midpoints in eps, (i + 1/2) h for
    i = 0 .. i_hi - 1 (its relative error: CURVE_RELATIVE_ERROR)."""
    eps = (np.arange(i_hi, dtype=np.float64) + 0.5) * h
    return eps, np.minimum(_delta_at(source, eps, progress), _LD(1.0))


def _mid_values(own: Any, other: Any) -> Any:
    """(eps, delta, relative errors) at one point inside each cell of _values,
    left to right: below 0 the other direction's midpoints by the identity of
    _values, above it the own ones."""
    e_own, d_own = own
    e_other, d_other = other
    eps = -e_other[::-1]
    flip = d_other[::-1]
    scale = np.exp(eps.astype(_LD))
    d_left = _LD(1.0) - scale * (_LD(1.0) - flip)
    r = _LD(CURVE_RELATIVE_ERROR)
    with np.errstate(invalid="ignore", divide="ignore"):
        r_left = np.where(d_left > 0, scale * flip * r / d_left, 0)
    return (np.concatenate((eps, e_own)), np.concatenate((d_left, d_own)),
            np.concatenate((r_left, np.full(d_own.size, r, dtype=_LD))))


def _values(own: Any, other: Any, h: Any) -> Any:
    """(i_lo, delta, relative errors) of one direction on i_lo h .. i_hi h: its
    own values at eps >= 0, and below 0 the other direction's by the identity
    1 - delta_plus(eps) = e^eps (1 - delta_minus(-eps)) (both laws of total
    mass 1), which keeps 1 - delta accurate where delta is near 1 -- there a
    float64 delta would leave its rounding (~1e-16 / h) as spurious masses.
    With upper (lower) bounds of the other direction it gives upper (lower)
    bounds."""
    d_own, r_own = own
    d_other, r_other = other
    n = d_other.size - 1
    eps = -np.arange(n, 0, -1, dtype=_LD) * _LD(h)
    flip = d_other[:0:-1]
    c = np.exp(eps) * (_LD(1.0) - flip)
    d_left = _LD(1.0) - c
    with np.errstate(invalid="ignore", divide="ignore"):
        r_left = np.where(d_left > 0, np.exp(eps) * flip * r_other[:0:-1] / d_left, 0)
    return -n, np.concatenate((d_left, d_own)), np.concatenate((r_left, r_own))


def _raised(values: Any) -> Any:
    """(i_lo, the curve's values raised by their errors, capped at 1) from _values."""
    i_lo, d, r = values
    return i_lo, np.minimum(d * (_LD(1.0) + r), _LD(1.0))


def _upper(values: Any, h: Any) -> Any:
    """The upper GridPMF from _values (upper bounds of the curve at the grid points)."""
    i_lo, targets = _raised(values)
    # (the chord of their lower convex hull, not of the values: the raised
    # values need not be convex in e^eps, and the chord's negative masses set
    # to 0 would give a measure of total mass > 1; every true curve below the
    # values is below the hull -- statpriv._connect_dots.convex_hull_of_bounds)
    probs, inf, hull = _connect_dots.convex_hull_of_bounds(targets, h)
    return GridPMF(i_lo, *_connect_dots.certify(probs, inf, hull, h, True))


def _lower(values: Any, floor: Any, h: Any, mids: Any = None) -> Any:
    """The lower GridPMF from _values (lower bounds at the grid points), a
    lower bound ``floor`` of the curve's limit and, if given, the values
    inside the cells (_mid_values)."""
    i_lo, d, r = values
    floor = _LD(floor) * (_LD(1.0) - _LD(CURVE_RELATIVE_ERROR))
    probs, inf, dots = _connect_dots.optimistic(d, h, floor, r, mid=mids, first=i_lo)
    return GridPMF(i_lo, *_connect_dots.certify(probs, inf, dots[1:], h, False, total=dots[0]))


class Bracket:
    """Per direction, the upper and lower GridPMFs on h Z of one curve (or PLD),
    built on first use from its delta at the grid points (evaluated once per
    delta source and kept: the lower side of an expensive curve asked later
    costs no new evaluation).  Sources that are the same object (a symmetric
    curve's two directions) give the same measures.

    ``upper(direction)``, ``lower(direction)``: GridPMFs; ``pld()``: the
    pessimistic PrivacyLossDistribution with the optimistic one as its
    ``optimistic``."""

    _tops: Dict[str, int]
    _evaluated: Dict[Any, Any]
    _built: Dict[Any, Any]

    def __init__(self, uppers: Any, lowers: Any, h: Any, tail: Any, description: Any) -> None:
        self.h, self.description = h, description
        self._uppers, self._lowers = uppers, lowers
        self._tops, self._evaluated, self._built = {}, {}, {}
        self._probed: Dict[int, float] = {}
        for d in ("plus", "minus"):
            span = tail_span(uppers[d], tail)[0]
            if not math.isfinite(span):
                raise ValueError(f"{description}: delta_{d} does not come within "
                                 f"tail_mass_truncation={tail!r} of its limit at a finite eps; "
                                 "no privacy-loss distribution on a grid")
            points = math.ceil(span / h) + 1 if span / h < 2.0 * MAX_GRID else math.inf
            if points > MAX_GRID:            # (also span / h = inf: a subnormal h)
                raise ValueError(f"value_discretization_interval={h!r} needs "
                                 f"{span / h + 1:.3g} grid points per direction (at most "
                                 f"{MAX_GRID}); use a coarser grid")
            self._tops[d] = max(int(points), 1)
        self._check_cost(tail)

    @property
    def values_per_side(self) -> int:
        """The grid values one side is built from: both directions' grid
        points and eps = 0."""
        return self._tops["plus"] + self._tops["minus"] + 1

    def _jobs(self, which: Any) -> Any:
        """The evaluations the ``which`` sides ("upper", "lower") still need:
        (key, source, direction, midpoints?) each, every source once."""
        jobs, seen = [], set(self._evaluated)
        for side in which:
            sources = self._uppers if side == "upper" else self._lowers
            exact = all(getattr(sources[d], "exact_between", False) for d in sources)
            for d, source in sources.items():
                for mid in ((False, True) if side == "lower" and exact else (False,)):
                    key = (id(source), "mid") if mid else id(source)
                    if key not in seen:
                        seen.add(key)
                        jobs.append((key, source, d, mid))
        return jobs

    def _per_point(self, source: Any, direction: str) -> float:
        """CPU seconds of one delta of ``source`` on this grid: priced by its
        ``eval_terms`` if it has them, else probed (once per source).  A probe
        stops as soon as what it has seen already prices the grid above
        MAX_SECONDS (a curve whose one delta takes seconds is not evaluated
        PROBE_RUNS * PROBE_RUN times to learn that)."""
        fixed = getattr(source, "seconds_per_point", None)
        if fixed is not None:
            return float(fixed)
        terms = getattr(source, "eval_terms", None)
        if terms is not None:
            return float(terms) / TERMS_PER_SECOND + EVAL_OVERHEAD_SECONDS
        key = id(source)
        if key not in self._probed:
            top = self._tops[direction]
            points = 2 * top + 1                      # its grid and the cells' midpoints
            starts = np.unique(np.linspace(0, max(top - PROBE_RUN, 0), PROBE_RUNS)
                               .astype(np.int64))
            seen, spent = 0, 0.0
            for start in starts:                      # (at most PROBE_RUNS runs)
                eps = (start + np.arange(min(PROBE_RUN, top + 1), dtype=np.float64)) * self.h
                spent += timed(source.delta, eps)[1]
                seen += eps.size
                # (past MAX_SECONDS: refused whatever the rest; far below every
                # limit the price is used against -- the refusal, a refinement's
                # REFINE_SECONDS, the coarsening's fits -- a run is enough: the
                # runs sample the grid for a cost that varies along it)
                if not _PROBE_SURE_BELOW <= spent / seen * points <= MAX_SECONDS:
                    break
            self._probed[key] = spent / seen
        return self._probed[key]

    def predicted_seconds(self, which: Any = ("upper", "lower")) -> Any:
        """(points, CPU seconds) the ``which`` sides not yet built would cost:
        the deltas still to evaluate (_per_point each) and connect-the-dots
        over each side's values (CONNECT_SECONDS a value; both directions'
        values make one side, and a symmetric curve's two directions are one
        side)."""
        points, seconds = 0, 0.0
        for _, source, d, mid in self._jobs(which):
            count = self._tops[d] + (0 if mid else 1)
            points += count
            seconds += count * self._per_point(source, d)
        values = self.values_per_side
        for side in which:
            sources = self._uppers if side == "upper" else self._lowers
            built = sum((side, d) in self._built for d in sources)
            sides = 1 if sources["plus"] is sources["minus"] else 2
            seconds += max(sides - built, 0) * values * CONNECT_SECONDS[side]
        return points, seconds

    def _check_cost(self, tail: Any) -> None:
        """Refuse, before any evaluation, a grid predicted to cost more than
        MAX_SECONDS of CPU (the work scales as 1 / h)."""
        points, seconds = self.predicted_seconds()
        if seconds <= MAX_SECONDS:
            return
        raise GridCostError(
            f"{self.description or 'this curve'}: value_discretization_interval={self.h!r} "
            f"needs its delta at {points} points (grid and cell midpoints, "
            f"tail_mass_truncation={tail!r}) and connect-the-dots over "
            f"{self.values_per_side} values per side: about "
            f"{seconds:.3g} s of CPU, more than statpriv.laws.grid_pld.MAX_SECONDS = "
            f"{MAX_SECONDS:g}; value_discretization_interval={_fits(self.h, seconds):.2g} fits "
            "(or query the curve's delta / epsilon directly)", fits=_fits(self.h, seconds))

    def _prefetch(self, which: Any) -> None:
        """Evaluate what the ``which`` sides need, under one progress bar when
        that is predicted to take seconds (else lazily, as asked)."""
        jobs = self._jobs(which)
        points, seconds = self.predicted_seconds(which)
        if seconds < _progress.SECONDS:
            return
        with _progress.bar(points, "delta on the loss grid", unit="point",
                           seconds=seconds) as progress:
            for key, source, d, mid in jobs:
                run = _evaluate_mid if mid else _evaluate
                self._evaluated[key] = run(source, self._tops[d], self.h, progress)

    def evaluated(self, source: Any, direction: Any) -> Any:
        """(delta, relative errors) of ``source`` (one of this bracket's) at eps =
        0, h, ..., up to the grid's top in ``direction``, evaluated once."""
        key = id(source)
        if key not in self._evaluated:
            self._evaluated[key] = _evaluate(source, self._tops[direction], self.h)
        return self._evaluated[key]

    def _both(self, sources: Any, d: Any, mid: bool) -> Any:
        """The two directions' evaluations (key (id, "mid") for the midpoints),
        the other direction's in a second thread where both are missing and
        the sources differ (the compiled sums run without the GIL)."""
        other = "minus" if d == "plus" else "plus"
        run = _evaluate_mid if mid else _evaluate
        jobs = [((id(sources[x]), "mid") if mid else id(sources[x]), sources[x], x)
                for x in (d, other)]
        missing = [job for job in jobs if job[0] not in self._evaluated]
        if len(missing) == 2 and sources[d] is not sources[other]:
            (key_a, src_a, dir_a), (key_b, src_b, dir_b) = missing
            second = _threads.in_thread(run, src_b, self._tops[dir_b], self.h)
            try:
                first = run(src_a, self._tops[dir_a], self.h)
            finally:
                value = second()
            self._evaluated[key_a], self._evaluated[key_b] = first, value
        for key, src, x in missing:
            if key not in self._evaluated:
                self._evaluated[key] = run(src, self._tops[x], self.h)
        return self._evaluated[jobs[0][0]], self._evaluated[jobs[1][0]]

    def _values(self, sources: Any, d: Any) -> Any:
        """_values of one direction, formed once (a chord, then the upper side
        it steers, ask for the same)."""
        other = "minus" if d == "plus" else "plus"
        key = ("values", id(sources[d]), id(sources[other]))
        if key not in self._evaluated:
            own, theirs = self._both(sources, d, False)
            self._evaluated[key] = _values(own, theirs, self.h)
        return self._evaluated[key]

    def _mid_values(self, sources: Any, d: Any) -> Any:
        """The values inside the cells (_mid_values), or None where a source
        is exact at the grid points only (split atoms)."""
        other = "minus" if d == "plus" else "plus"
        if not all(getattr(sources[x], "exact_between", False) for x in (d, other)):
            return None
        return _mid_values(*self._both(sources, d, True))

    def _side(self, which: Any, d: Any) -> Any:
        sources = self._uppers if which == "upper" else self._lowers
        twin = "minus" if d == "plus" else "plus"
        if sources[d] is sources[twin] and (which, twin) in self._built:
            return self._built[(which, twin)]
        key = (which, d)
        if key not in self._built:
            self._prefetch((which,))
            values = self._values(sources, d)
            self._built[key] = _upper(values, self.h) if which == "upper" else \
                _lower(values, sources[d].at_inf(), self.h, self._mid_values(sources, d))
        return self._built[key]

    def upper(self, direction: Any) -> Any:
        return self._side("upper", direction)

    def chord(self, direction: Any) -> Any:
        """The upper side's measure before its hull and certification (the
        chord of the raised values, negative masses at 0): within rounding of
        the upper measure wherever the values are convex, at a fraction of
        its cost -- for the loss's spread, which steers the grid (the upper
        measure itself if built already)."""
        built = self._built.get(("upper", direction))
        if built is not None:
            return built
        self._prefetch(("upper",))
        i_lo, targets = _raised(self._values(self._uppers, direction))
        probs, inf = _connect_dots.pessimistic(targets, self.h)
        return GridPMF(i_lo, np.asarray(probs, dtype=np.float64), float(inf))

    def lower(self, direction: Any) -> Any:
        return self._side("lower", direction)

    def pld(self) -> Any:
        def build(side: Any, optimistic: Any = None) -> Any:
            return _pld.PrivacyLossDistribution(
                _grid_side(side("plus"), self.h), _grid_side(side("minus"), self.h),
                exact=False, discretization=self.h, description=self.description,
                optimistic=optimistic)
        self._prefetch(("upper", "lower"))
        return build(self.upper, optimistic=build(self.lower))


class _GivenBracket:
    """The Bracket interface over measures already on the grid."""

    def __init__(self, pld: Any, low_pld: Any, h: Any) -> None:
        self._pld, self._low, self.h = pld, low_pld, h

    def upper(self, direction: Any) -> Any:
        return _grid_pmf(self._pld.side(direction), self.h)

    def lower(self, direction: Any) -> Any:
        return _grid_pmf(self._low.side(direction), self.h)

    def pld(self) -> Any:
        return self._pld


def _fits(h: float, seconds: float, limit: Optional[float] = None) -> float:
    """A grid interval whose work fits ``limit`` seconds (None: MAX_SECONDS),
    from the work ``seconds`` predicted at h (proportional to 1 / h; 5 %
    coarser and rounded up to two digits for the +1 point of each grid)."""
    fits = h * seconds / (MAX_SECONDS if limit is None else limit) * 1.05
    unit = 10.0 ** (math.floor(math.log10(fits)) - 1)
    return math.ceil(fits / unit) * unit


def check_seconds(brackets: Any, h: float, description: str,
                  limit: Optional[float] = None) -> None:
    """Refuse, before any of them is built, brackets whose work together is
    predicted above ``limit`` (None: MAX_SECONDS; a composition's parts on
    one grid h)."""
    costs = [(b.predicted_seconds()[1], b) for b in brackets if isinstance(b, Bracket)]
    total = sum(c for c, _ in costs)
    limit = MAX_SECONDS if limit is None else limit
    if total <= limit:
        return
    worst_cost, worst = max(costs, key=lambda pair: pair[0])
    raise GridCostError(
        f"{description}: its parts on the grid value_discretization_interval={h:.3g} are "
        f"predicted to cost {total:.3g} s of CPU, more than "
        + (f"statpriv.laws.grid_pld.MAX_SECONDS = {MAX_SECONDS:g}" if limit == MAX_SECONDS
           else f"the {limit:g} s allowed") +
        f" ({worst.description}: {worst_cost:.3g} s, "
        f"{worst.values_per_side} grid values per side); "
        f"value_discretization_interval={_fits(h, total, limit):.2g} fits, or a larger "
        "epsilon_error / tail_mass_truncation", fits=_fits(h, total, limit))


def _grid_side(g: Any, h: Any) -> Any:
    losses = (np.arange(g.mass.size, dtype=_LD) + g.offset) * _LD(h)
    return _pld.PLDSide(losses, g.mass, infinity_mass=g.infinity)


def curve_bracket(core: Any, h: Any, tail: Any, description: Any, symmetric: Any = False,
                  eval_terms: Any = None, seconds_per_point: Optional[float] = None) -> Any:
    """The Bracket on h Z of the curve whose evaluator is ``core`` (log_delta /
    epsilon by direction code); ``symmetric``: both directions are one curve
    (evaluated once); ``eval_terms``: the terms one evaluation sums, if
    known; ``seconds_per_point``: a fixed price of one grid point (closed
    forms); with neither the cost is probed (Bracket.predicted_seconds)."""
    plus = CurveSource(core, "plus", eval_terms, seconds_per_point)
    sources = {"plus": plus,
               "minus": plus if symmetric else CurveSource(core, "minus", eval_terms,
                                                           seconds_per_point)}
    return Bracket(sources, sources, h, tail, description)


def from_curve(core: Any, h: Any, tail: Any, description: Any, symmetric: Any = False,
               eval_terms: Any = None) -> Any:
    """The pessimistic PLD (optimistic as its ``optimistic``) on h Z of the curve
    whose evaluator is ``core`` (curve_bracket(...).pld())."""
    return curve_bracket(core, h, tail, description, symmetric, eval_terms).pld()


def grid_bracket(pld: Any, h: Any, tail: Any, description: Any) -> Any:
    """The Bracket on h Z of ANY PrivacyLossDistribution: measures whose delta is
    above, resp. below, the TRUE curve the PLD stands for at every eps.  A
    PLD already on this grid with an optimistic partner gives its own
    measures; any other (exact atoms, another grid) is connected anew from
    its delta -- the upper from the PLD's own, the lower from its optimistic
    partner's (the atoms without their bounded tails for an exact PLD)."""
    low_pld = pld.optimistic
    if low_pld is None:
        raise ValueError(f"{description}: its privacy-loss distribution has no lower bound "
                         "(a labelled approximation); it cannot be composed with a bracket")
    if pld.discretization == h and low_pld is not pld:
        return _GivenBracket(pld, low_pld, h)
    sides = {d: pld.side(d) for d in ("plus", "minus")}
    if pld.exact and all(isinstance(x, _pld.PLDSide) for x in sides.values()):
        uppers: Dict[str, Any] = {d: _AtomsSource(x, h, tail) for d, x in sides.items()}
        # (the lower partner's atoms: the atoms without their tails, or with
        # atoms beyond the loss cap at the cap -- statpriv.laws.pld)
        lowers: Dict[str, Any] = {d: _AtomsSource(low_pld.side(d), h, tail, lower=True)
                                  for d in sides}
        return Bracket(uppers, lowers, h, tail, description)
    uppers = {d: _SideSource(x) for d, x in sides.items()}
    lowers = {d: (uppers[d] if low_pld is pld else _SideSource(low_pld.side(d)))
              for d in ("plus", "minus")}
    return Bracket(uppers, lowers, h, tail, description)


def _grid_pmf(side: Any, h: Any) -> Any:
    """A PLDSide whose losses lie on h Z as a GridPMF (a bounded tail at its
    loss bound becomes one more grid atom, rounded up; extra mass and an
    unbounded tail go to +inf)."""
    losses, probs = side._eval_losses, side._eval_probs
    idx = np.ceil(losses / _LD(h) - _LD(1e-9)).astype(np.int64)
    if idx.size == 0:
        return GridPMF(0, np.zeros(0), float(side._const))
    mass = np.bincount(idx - idx[0], weights=probs.astype(np.float64))
    return GridPMF(int(idx[0]), mass, float(side._const))


class DeltaLaws(LawSource):
    """The laws of a curve known through its delta only (PrivacyCurve's
    ``laws``): the connect-the-dots PLDs of its core (``from_curve``).  No
    Renyi divergence (a bracket of the hockey-stick curve bounds no Renyi
    divergence from below) and no atoms.  ``eval_terms``: the terms one
    evaluation of the core sums, for a curve whose every evaluation is
    expensive (curve_bracket)."""

    def __init__(self, core: Any, *, symmetric: Any = False, eval_terms: Any = None) -> None:
        self.core, self.symmetric, self.eval_terms = core, bool(symmetric), eval_terms

    def privacy_loss_distribution(self, value_discretization_interval: Any = 1e-4,
                                  tail_mass_truncation: Any = 1e-15,
                                  description: Any = None) -> Any:
        return self.grid_bracket(value_discretization_interval, tail_mass_truncation,
                                 description).pld()

    def grid_bracket(self, value_discretization_interval: Any, tail_mass_truncation: Any,
                     description: Any = None) -> Any:
        """The Bracket of the curve on h Z (what a composition multiplies)."""
        return curve_bracket(self.core, value_discretization_interval, tail_mass_truncation,
                             description, self.symmetric,
                             # (classes borrowing this method may have no estimate)
                             getattr(self, "eval_terms", None),
                             getattr(self, "seconds_per_point", None))

    def subsample(self, sampling_prob: Any, sampling: Any, core: Any = None) -> Any:
        """Sampled (PrivacyCurve.subsample): known through the sampled ``core``'s
        delta too (not symmetric: sampling moves the two directions apart)."""
        return None if core is None else DeltaLaws(core)

    def renyi(self, alpha: Any, direction: Any = "max") -> None:
        raise ValueError("renyi: no Renyi divergence is available for this curve: its laws are known "
                         "through delta only (counts with Laplace or Gaussian noise, "
                         "thresholded counts, shuffle and k-anonymity bounds)")
