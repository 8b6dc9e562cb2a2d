"""Composition on a grid: losses rounded up to h Z, grid PLDs convolved by FFT.

Each loss is rounded UP to the grid (delta is non-decreasing in the losses, so
the grid curve is never below the true one); the grid PLDs are convolved by
FFT (scipy.fft), with the round-off bounded and added to delta, and a
self-composition is a power by repeated squaring.  Tails beyond
``tail_mass_truncation`` are moved up (the lower tail to the first kept point,
the upper tail to +inf), never dropped.  Since every loss moved up by at most
h per rounding, the TRUE curve lies between delta_grid(eps + k h) - moved -
round-off and delta_grid(eps) (ComposedCurve.delta_bounds).
"""
import math

import numpy as np

from statpriv import _progress, _validate
from statpriv.accounting.composition.composed import composed_curve, description
from statpriv.laws import pld as _pld

__all__ = ["MAX_GRID", "compose_on_grid", "default_interval"]

# Largest grid (points) of one PLD side the FFT path allocates.
MAX_GRID = 1 << 24
# Round-off of an FFT convolution (Higham, "Accuracy and stability of numerical
# algorithms", §24.1: ||fl(FFT x) - FFT x||_2 <= c u log2(N) ||FFT x||_2):
# the constant c taken generously.
_FFT_C = 5.0
_U = 2.0 ** -53


class _Grid:
    """One direction of a grid PLD: mass[i] at loss (offset + i) h (float64),
    plus the +inf mass and the bookkeeping of the bounds."""

    __slots__ = ("mass", "offset", "inf", "moved", "err", "rounding")

    def __init__(self, mass, offset, inf, moved, err, rounding):
        self.mass, self.offset = mass, int(offset)
        self.inf, self.moved, self.err, self.rounding = float(inf), float(moved), float(err), \
            float(rounding)

    def total(self):
        return float(np.sum(self.mass)) + self.inf


def _tail_cut(mass, tail):
    """(lo, hi, below, above): the first and last kept indices of a mass vector
    (float64) when at most tail/2 is cut at each end, and the masses cut."""
    cum = np.cumsum(mass)
    lo = int(np.searchsorted(cum, tail / 2.0, side="right"))      # first kept index
    rev = np.cumsum(mass[::-1])
    hi = mass.size - 1 - int(np.searchsorted(rev, tail / 2.0, side="right"))  # last kept
    if lo > hi:                      # everything within the truncation: keep the largest
        lo = hi = int(np.argmax(mass))
    below = float(cum[lo - 1]) if lo > 0 else 0.0
    above = float(rev[mass.size - 2 - hi]) if hi < mass.size - 1 else 0.0
    return lo, hi, below, above


def _truncate(g, tail):
    """Move the lowest tail/2 of the mass up to the first kept point and the
    highest tail/2 to +inf (both counted in g.moved); trim the vector."""
    mass = g.mass
    if mass.size == 0:
        return g
    lo, hi, below, above = _tail_cut(mass, tail)
    kept = mass[lo:hi + 1].copy()
    kept[0] += below
    return _Grid(kept, g.offset + lo, g.inf + above, g.moved + below + above, g.err,
                 g.rounding)


def _to_grid(side, pld, h, tail):
    """A PLDSide on the grid h Z, losses rounded up (reused as they are when the
    PLD already lies on this grid)."""
    losses, probs = side._eval_losses, side._eval_probs
    inf = side._const - np.longdouble(side.extra_mass)        # +inf mass (and an infinite tail)
    moved = float(side.tail_mass)
    if pld.discretization == h:
        idx = np.rint(losses / np.longdouble(h))
        rounding = pld.rounding_bound
    else:
        idx = np.ceil(losses / np.longdouble(h))
        idx[idx * np.longdouble(h) < losses] += 1               # rounded up, whatever the ulps
        rounding = pld.rounding_bound + h
    moved += pld.moved_mass
    if idx.size == 0:
        return _Grid(np.zeros(0), 0, float(inf), moved, side.extra_mass, rounding)
    if not np.isfinite(idx).all() or float(idx[-1] - idx[0]) >= 2 ** 53:
        raise ValueError(f"value_discretization_interval={h!r} is too fine for losses "
                         f"up to {float(losses[-1]):.6g}")
    idx = idx.astype(np.int64)
    # drop the tails by mass before allocating the dense vector
    p = probs.astype(np.float64)
    lo, hi, below, above = _tail_cut(p, tail)
    width = int(idx[hi] - idx[lo]) + 1
    if width > MAX_GRID:
        raise ValueError(f"value_discretization_interval={h!r} gives {width} grid points "
                         f"for {pld.description} (at most {MAX_GRID}); use a coarser grid")
    mass = np.bincount(idx[lo:hi + 1] - idx[lo], weights=p[lo:hi + 1], minlength=width)
    mass[0] += below
    return _Grid(mass, idx[lo], float(inf) + above, moved + below + above, side.extra_mass,
                 rounding)


def _fft_convolve(a, b):
    """Linear convolution of two non-negative vectors by FFT, with an L1 bound on
    its round-off (see _FFT_C); negative round-off clipped to 0."""
    from scipy import fft as sfft
    n = a.size + b.size - 1
    if min(a.size, b.size) <= 64:
        return np.convolve(a, b), 2.0 * n * _U * float(np.sum(a)) * float(np.sum(b))
    size = sfft.next_fast_len(n, real=True)
    c = sfft.irfft(sfft.rfft(a, size) * sfft.rfft(b, size), size)[:n]
    gamma = _FFT_C * _U * math.log2(size)
    na1, nb1 = float(np.sum(a)), float(np.sum(b))
    na2, nb2, nc2 = (math.sqrt(float(np.sum(v * v))) for v in (a, b, c))   # (no BLAS call)
    err = math.sqrt(n) * gamma * (na2 * nb1 + na1 * nb2 + nc2)
    return np.maximum(c, 0.0), err


def _convolve(a, b, tail):
    """The grid PLD of the sum of independent losses (one direction)."""
    ta, tb = a.total(), b.total()
    if a.mass.size == 0 or b.mass.size == 0:       # one side all at +inf
        mass, err = np.zeros(0), 0.0
    else:
        mass, err = _fft_convolve(a.mass, b.mass)
    fa = ta - a.inf
    inf = a.inf * tb + fa * b.inf
    g = _Grid(mass, a.offset + b.offset, inf,
              a.moved * max(tb, 1.0) + b.moved * max(ta, 1.0),
              a.err * max(tb, 1.0) + b.err * max(ta, 1.0) + err, a.rounding + b.rounding)
    if g.mass.size > MAX_GRID:
        raise ValueError(f"the composed grid has {g.mass.size} points (at most {MAX_GRID}); "
                         "use a coarser value_discretization_interval")
    return _truncate(g, tail)


def _power(g, k, tail, bar=None):
    """k-fold convolution of g by repeated squaring (bar: a progress bar
    told each convolution, _power_steps(k) in all)."""
    result = None
    base = g
    while True:
        if k & 1:
            result = base if result is None else _tick(bar, _convolve(result, base, tail))
        k >>= 1
        if not k:
            return result
        base = _tick(bar, _convolve(base, base, tail))


def _power_steps(k):
    """The convolutions of _power(g, k)."""
    return k.bit_length() - 1 + bin(k).count("1") - 1


def _tick(bar, value):
    """value, after one step reported to the progress bar (if any)."""
    if bar is not None:
        bar.update()
    return value


def _grid_side(g, h):
    losses = (np.arange(g.mass.size, dtype=np.longdouble) + g.offset) * np.longdouble(h)
    return _pld.PLDSide(losses, g.mass, infinity_mass=g.inf, extra_mass=g.err)


def default_interval(plds, k):
    """h = 1e-3 / k (so the rounding moves eps by at most 1e-3), coarsened so that
    the composed support -- about 2 sqrt(sum of the squared widths) once the
    tails are truncated, for sums of independent losses -- fits in 2^21 points."""
    width = 0.0
    for p, mult in plds:
        for s in (p.plus, p.minus):
            if s.size:
                q = np.cumsum(s.probs.astype(np.float64))
                lo = s.losses[min(int(np.searchsorted(q, 1e-16)), s.size - 1)]
                hi = s.losses[min(int(np.searchsorted(q, q[-1] - 1e-16)), s.size - 1)]
                width += mult * float(hi - lo) ** 2
    return max(1e-3 / k, 2.0 * math.sqrt(width) / 2 ** 21, 1e-9)


def compose_on_grid(curves, times, value_discretization_interval, tail):
    """compose(*curves, times=times) on the grid (see statpriv.compose)."""
    k = len(curves) * times
    if value_discretization_interval is not None:
        value_discretization_interval = _validate.real(
            "value_discretization_interval", value_discretization_interval, low=0.0,
            high=1.0, low_open=True)     # a coarser grid moves every loss by > 1 nat
    h = 1e-4 if value_discretization_interval is None else value_discretization_interval
    plds = [c.privacy_loss_distribution(h, tail_mass_truncation=tail) for c in curves]
    if value_discretization_interval is None:
        h = default_interval([(p, times) for p in plds], k)
        # continuous PLDs (discretized at 1e-4 for the estimate) again on the grid h
        # (a composed curve returns its own PLD whatever h is)
        plds = [p if p.exact else c.privacy_loss_distribution(h, tail_mass_truncation=tail)
                for p, c in zip(plds, curves)]
    sides = []
    # steps: per direction the convolutions, then the side's suffix sums
    steps = 2 * (len(curves) - 1 + _power_steps(times) + 1)
    with _progress.bar(steps, f"composing {k:,} mechanisms", unit="step") as bar:
        for direction in ("plus", "minus"):
            grids = [_to_grid(p.side(direction), p, h, tail) for p in plds]
            g = grids[0]
            for other in grids[1:]:
                g = _tick(bar, _convolve(g, other, tail))
            sides.append(_power(g, times, tail, bar))
        try:
            plus, minus = (_tick(bar, _grid_side(g, h)) for g in sides)
        except ValueError as exc:                 # the composed losses span too many nats
            raise ValueError(f"{exc}: too many compositions ({len(curves)} curve(s), "
                             f"times={times}); compose fewer") from None
    what = description(curves, times)
    pld = _pld.PrivacyLossDistribution(
        plus, minus, exact=False, discretization=h,
        rounding_bound=max(g.rounding for g in sides), moved_mass=max(g.moved for g in sides),
        description=what)
    return composed_curve(pld, curves, times, what)
