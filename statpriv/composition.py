"""Composition of privacy curves of mechanisms on independent data.

Desfontaines, Mohammadi, Krahmer & Basin, "Differential privacy with partial
knowledge", §5: noiseless mechanisms do not compose in general (Example 8:
two counts that differ in one record reveal it), but mechanisms on
independent parts of the data do (Prop. 9), and their joint release has the
laws P = P_1 x P_2 x ... and Q = Q_1 x Q_2 x ....  The privacy loss of the
joint release is then the SUM of independent losses, so its privacy-loss
distribution (statpriv.pld) is the convolution of the PLDs, direction by
direction, and

    delta_plus(eps) = E[(1 - e^(eps - L_1 - L_2 - ...))_+],  L_i ~ PLD_i (plus),

likewise delta_minus.  This module gives

* ``compose(*curves, times=k)``: the tight composition on a grid h Z.  Each
  loss is rounded UP to the grid (delta is non-decreasing in the losses, so
  the grid curve is never below the true one); the grid PLDs are convolved by
  FFT (numpy), with the round-off bounded and added to delta.  Tails beyond
  ``tail_mass_truncation`` are moved up (the lower tail to the first kept
  point, the upper tail to +inf), never dropped.  Since every loss moved up
  by at most h per rounding, the TRUE curve lies between
  delta_grid(eps + k h) - moved - round-off and delta_grid(eps): the curve
  reports that bracket (``delta_bounds``).
* ``compose(a, b, exact=True)``: the product PLD without a grid, for two
  curves with at most EXACT_MAX_ATOMS atoms per direction.  Up to
  EXACT_PRODUCT_ATOMS pairs it is one sorted PLDSide with the atoms
  (l_i + l_j, p_i q_j): each loss a two-sum hi + lo carrying the parts' low
  parts (near the zero point delta ~ p (l - eps) with l - eps a few float64
  ulps), rounded up by a bound on the parts' loss errors; delta(eps) is an
  O(log atoms) suffix-sum query and epsilon(delta) its closed-form inverse on
  the loss interval found by binary search (epsilon(0): the largest finite
  loss rounded up, inf with mass at +inf).  Larger products evaluate
  delta(eps) = sum_i p_i delta_b(eps - l_i) (+ the +inf masses), the shifts in
  extended precision, and invert it by a bounded float bisection -- the oracle
  of the grid path.
* ``basic_composition`` (sum eps, sum delta) and the bounded-dependency
  composition of Thm. 6 of the same paper (``bounded_dependency_composition``).
"""
import math

import numpy as np

from statpriv import _progress, _validate
from statpriv import pld as _pld
from statpriv.curve import PrivacyCurve

__all__ = ["ComposedCurve", "EXACT_MAX_ATOMS", "MAX_GRID", "basic_composition",
           "bounded_dependency_composition", "compose"]

# compose(..., exact=True): atoms per direction of each of the two curves.
EXACT_MAX_ATOMS = 10_000
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


class ComposedCurve(PrivacyCurve):
    """The curve of a composition (statpriv.compose): a PrivacyCurve whose delta
    comes from a composed privacy-loss distribution, with the bracket of the
    true curve it certifies (``delta_bounds``)."""

    _parts = None               # (curves, times) of the composition

    def delta_bounds(self, eps, direction="max"):
        """(lower, upper): the true delta(eps) of the composition lies in between.

        upper = delta(eps) (the grid curve, never below the true one); lower =
        delta_grid(eps + rounding_bound) - moved mass - round-off (the losses
        were rounded up by at most rounding_bound = k h in total).  For exact
        compositions both are the exact value up to floating-point rounding."""
        _validate.choice("direction", direction, ("plus", "minus", "max"))
        upper = self._pld.delta(eps, direction)
        lower = self._pld.delta_lower_bound(eps, direction)
        return lower, upper

    def discretization_error(self, eps, direction="max"):
        """upper - lower of ``delta_bounds``: a bound on how far delta(eps) is
        above the true value."""
        lower, upper = self.delta_bounds(eps, direction)
        return upper - lower


def _curves(curves, times):
    if not curves:
        raise ValueError("compose needs at least one curve")
    for i, c in enumerate(curves):
        if not isinstance(c, PrivacyCurve):
            raise _validate.ParameterTypeError(
                f"curves[{i}] must be a PrivacyCurve, got {type(c).__name__}")
    return _validate.count("times", times, low=1, high=10 ** 9)


def _default_interval(plds, k):
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


def compose(*curves, times=1, value_discretization_interval=None, tail_mass_truncation=1e-15,
            exact=False):
    """Privacy curve of mechanisms on independent data run together.

    ``compose(c1, c2, ...)`` composes the curves, ``compose(c, times=k)`` k
    runs of c (and ``compose(c1, c2, times=k)`` k runs of the pair).  The
    joint laws are the products P_1 x P_2 x ... and Q_1 x Q_2 x ...
    (Desfontaines et al., "Differential privacy with partial knowledge",
    Prop. 9: mechanisms on independent parts of the data), so the privacy-loss
    distribution of the composition is the convolution of the curves' PLDs
    (``PrivacyCurve.privacy_loss_distribution``), per direction.

    Parameters
    ----------
    *curves : PrivacyCurve
        Curves with discrete outcomes (counts without noise or with geometric
        noise, sampled, per-record, secret sample, from_log_pmfs,
        dp.geometric), compositions, and dp.gaussian / dp.laplace (their
        continuous PLDs are discretized pessimistically on the same grid, the
        mass of ((i-1)h, ih] at ih, as dp-accounting's pessimistic estimate).
    times : int >= 1
        Number of runs of the whole list.
    value_discretization_interval : float > 0, optional
        The grid spacing h.  Default 1e-3 / (number of mechanisms composed)
        -- so the rounding moves eps by at most 1e-3 in total -- coarsened if
        the composed PLD would need more than 2^21 points.
    tail_mass_truncation : float in (0, 0.5]
        Mass per direction moved pessimistically at each truncation (the
        lowest half to the first kept point, the highest half to +inf).
    exact : bool
        True: the exact product PLD of two curves (``compose(a, b, exact=True)``
        or ``compose(a, times=2, exact=True)``) with at most EXACT_MAX_ATOMS
        atoms per direction each, no grid.

    Returns
    -------
    ComposedCurve
        A PrivacyCurve: delta_plus(eps) = E[(1 - e^(eps - sum_i L_i))_+]
        from the composed grid PLD, never below the true curve (losses
        rounded up, moved tails and the FFT round-off bound added);
        ``delta_bounds(eps)`` brackets the true value, ``discretization_error``
        is the width; ``privacy_loss_distribution()`` the composed PLD.
        delta(eps) and epsilon(delta) cost O(log grid) after construction.

    Examples
    --------
    >>> import statpriv
    >>> g = statpriv.compose(statpriv.dp.gaussian(4.0), times=16)  # = gaussian(1.0)
    >>> print(f"{g.delta(1.0):.4f} {statpriv.dp.gaussian(1.0).delta(1.0):.4f}")
    0.1270 0.1269
    """
    times = _curves(curves, times)
    if not isinstance(exact, (bool, np.bool_)):
        raise _validate.ParameterTypeError(f"exact must be True or False, got {exact!r}")
    tail = _validate.real("tail_mass_truncation", tail_mass_truncation, low=0.0, high=0.5,
                          low_open=True)
    if exact:
        return _compose_exact(curves, times)
    k = len(curves) * times
    if value_discretization_interval is not None:
        value_discretization_interval = _validate.real(
            "value_discretization_interval", value_discretization_interval, low=0.0,
            high=1.0, low_open=True)     # a coarser grid moves every loss by > 1 nat
    h = 1e-4 if value_discretization_interval is None else value_discretization_interval
    plds = [c.privacy_loss_distribution(h, tail_mass_truncation=tail) for c in curves]
    if value_discretization_interval is None:
        h = _default_interval([(p, times) for p in plds], k)
        # continuous PLDs (discretized at 1e-4 for the estimate) again on the grid h
        plds = [p if p.exact or c._pld is not None
                else c.privacy_loss_distribution(h, tail_mass_truncation=tail)
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
    description = _description(curves, times)
    pld = _pld.PrivacyLossDistribution(
        plus, minus, exact=False, discretization=h,
        rounding_bound=max(g.rounding for g in sides), moved_mass=max(g.moved for g in sides),
        description=description)
    return _curve(pld, curves, times, description)


def _description(curves, times):
    inner = " + ".join(c.description for c in curves)
    return f"composition of [{inner}]" + (f" x {times}" if times > 1 else "")


def _reference(curves, times):
    """The mpmath reference of a composition of discrete laws (oracle.composed_delta)."""
    if any(c._log_pmfs is None for c in curves):
        return None

    def ref(eps_list, direction):
        from statpriv import oracle
        laws = [c.log_pmfs() for c in curves] * times
        return oracle.composed_delta([(x.log_p, x.log_q) for x in laws], eps_list, direction)
    return ref


def _curve(pld, curves, times, description):
    curve = ComposedCurve(_pld.PLDCore(pld), _reference(curves, times), description)
    curve._pld = pld
    curve._parts = (tuple(curves), times)      # Renyi divergences add up (statpriv.renyi)
    return curve


# -- exact product of two PLDs -------------------------------------------------

# Product atoms (n_a n_b) up to which the exact product PLD is built as one
# PLDSide (sorted losses l_i + l_j and suffix sums, ~130 bytes per atom); above
# it delta is the outer sum over the smaller side.
EXACT_PRODUCT_ATOMS = 1 << 20
# two units in the last place of a long double (relative): the rounding up of a
# product loss l_i + l_j (see _product_side)
_LD_ULP = 2.0 * float(np.finfo(np.longdouble).eps)
# the same where the parts give their losses as hi + lo (closed forms refined
# beyond long double, ~1e-30 relative)
_DD_REL = 4e-30
_LD_TINY = np.finfo(np.longdouble).smallest_subnormal


def _product_side(a, b):
    """The exact product of two PLDSides: a PLDSide with the atoms (l_i + l_j,
    p_i q_j) of their evaluation arrays (tails at their loss bounds) in extended
    precision, and the mass at +inf sum_i p_i c_b + c_a (T_b + e_b) (c: the +inf,
    unbounded-tail and extra masses, T the total mass); delta(eps) is then the
    PLDSide's O(log atoms) suffix-sum query and epsilon(delta) its closed-form
    inverse on the loss interval found by binary search."""
    la, pa, lb, pb = a._eval_losses, a._eval_probs, b._eval_losses, b._eval_probs
    x, y = la[:, None], lb[None, :]
    hi, err = _two_sum(x, y)
    with np.errstate(invalid="ignore"):
        lo = err + a._eval_lo[:, None] + b._eval_lo[None, :]
    # delta is non-decreasing in the losses: each sum is rounded UP by a bound on
    # the parts' loss errors relative to |l_i| + |l_j| (two long-double ulps
    # where a part has no low parts, 4e-30 where it has them), so that near the
    # zero point, where delta ~ p (l - eps) and l - eps is a few float64 ulps,
    # the loss error cannot make an under-report.
    rel_a = _DD_REL if a._lo is not None else _LD_ULP
    rel_b = _DD_REL if b._lo is not None else _LD_ULP
    lo = lo + (rel_a * np.abs(x) + rel_b * np.abs(y))
    losses, losses_lo = hi.ravel(), lo.ravel()
    with np.errstate(under="ignore"):
        probs = (pa[:, None] * pb[None, :]).ravel()
        # a product below the long double range (e^-11400) is kept at the smallest
        # positive long double: an over-report there, never a lost atom
        probs[probs == 0] = _LD_TINY            # (the parts' probabilities are > 0)
        const = (np.sum(pa, dtype=np.longdouble) * b._const
                 + a._const * (np.longdouble(b.total_mass()) + np.longdouble(b.extra_mass)))
        if const == 0 and ((a._const > 0 and b.total_mass() > 0)
                           or (b._const > 0 and pa.size > 0)):
            const = _LD_TINY
    return _pld.PLDSide(losses, probs, 0.0, tail_mass=np.longdouble(const), tail_loss=math.inf,
                        losses_lo=losses_lo)


class _ProductSide:
    """delta of the product of two large PLDSides: sum_i p_i delta_b(eps - l_i) + const,
    the shifts eps - l_i in extended precision."""

    def __init__(self, a, b):
        if a._eval_losses.size > b._eval_losses.size:
            a, b = b, a                       # the outer sum over the smaller side
        self.a, self.b = a, b
        # (b's own constant is inside each b._delta_ld term)
        self.const = a._const * (np.longdouble(b.total_mass()) + np.longdouble(b.extra_mass))
        # delta's floor (eps -> inf): also sum_i p_i c_b
        self.floor = self.const + np.sum(a._eval_probs, dtype=np.longdouble) * b._const
        self.rel_a = _DD_REL if a._lo is not None else _LD_ULP
        self.rel_b = _DD_REL if b._lo is not None else _LD_ULP
        la, lb = a._eval_losses, b._eval_losses
        # the largest finite loss: delta = const beyond it
        self.top = None
        if la.size and lb.size:                  # its low part, rounded up
            self.top, err = _two_sum(la[-1], lb[-1])
            self.top_lo = (err + a._eval_lo[-1] + b._eval_lo[-1]
                           + self.rel_a * abs(la[-1]) + self.rel_b * abs(lb[-1]))

    def _delta_ld(self, eps):
        eps = np.asarray(eps, dtype=np.float64)
        out = np.empty(eps.shape, dtype=np.longdouble)
        flat = eps.ravel()
        res = out.reshape(-1)
        la, pa = self.a._eval_losses, self.a._eval_probs
        for k, e in enumerate(flat):          # a loop over eps values, not atoms
            if not math.isfinite(e):
                shifted = np.full(la.size, e)
            else:
                # eps - l_i - lo_i, lowered by the loss error bound (see _product_side)
                # and by the rounding of the long double shift itself (two ulps)
                shifted = (np.longdouble(e) - la) - self.a._eval_lo
                shifted = shifted - (self.rel_a * np.abs(la)
                                     + (self.rel_b + _LD_ULP) * np.abs(shifted))
            res[k] = np.sum(pa * self.b._delta_ld(shifted)) + self.const
        return np.minimum(out, np.longdouble(1.0))

    def _log_delta(self, eps):
        with np.errstate(divide="ignore"):
            return np.log(self._delta_ld(eps)).astype(np.float64)

    def _epsilon(self, log_target):
        """The smallest float eps with delta(eps) <= target: inf below the mass at
        +inf, the largest finite loss (rounded up) where the target is that mass,
        else a bisection of at most 2100 steps between -1100 - 2 * span and the
        largest loss (delta > 0 there only through atoms below it)."""
        target = np.exp(np.asarray(log_target, dtype=np.longdouble))
        out = np.empty(target.shape)
        floor = min(self.floor, np.longdouble(1.0))
        for k, t in enumerate(target.ravel()):
            if t < floor:
                out.flat[k] = math.inf
                continue
            if self.top is None:
                out.flat[k] = -math.inf
                continue
            top = _ceil_float(self.top, self.top_lo)
            if t <= floor:
                out.flat[k] = top
                continue
            span = float(self.top - self.a._eval_losses[0] - self.b._eval_losses[0])
            lo, hi = -1100.0 - 2.0 * span, top
            if self._delta_ld(lo)[()] <= t:
                out.flat[k] = -math.inf
                continue
            for _ in range(2100):             # float bisection: <= 2100 halvings
                mid = 0.5 * (lo + hi)
                if mid in (lo, hi):
                    break
                lo, hi = (lo, mid) if self._delta_ld(mid)[()] <= t else (mid, hi)
            out.flat[k] = hi
        return out


def _ceil_float(hi, lo):
    """The smallest float64 >= the unevaluated long double sum hi + lo."""
    f = float(hi + lo)
    return math.nextafter(f, math.inf) if (hi - np.longdouble(f)) + lo > 0 else f


def _two_sum(x, y):
    """(hi, err) with x + y = hi + err exactly (Knuth's two-sum, long double)."""
    with np.errstate(invalid="ignore"):
        hi = x + y
        yy = hi - x
        return hi, (x - (hi - yy)) + (y - yy)


class _ProductPLD:
    """The minimal PrivacyLossDistribution interface of an exact product."""

    exact = True
    discretization = None
    rounding_bound = 0.0
    moved_mass = 0.0

    def __init__(self, plus, minus, description):
        self.plus, self.minus, self.description = plus, minus, description

    def delta(self, eps, direction="max"):
        arr = _validate.real_array("eps", eps, allow_inf=True)
        sides = {"plus": (self.plus,), "minus": (self.minus,),
                 "max": (self.plus, self.minus)}[direction]
        out = np.maximum.reduce([s._delta_ld(arr) for s in sides]).astype(np.float64)
        return float(out[()]) if arr.ndim == 0 else out

    delta_lower_bound = delta

    def side(self, direction):
        return self.plus if direction == "plus" else self.minus


def _compose_exact(curves, times):
    if len(curves) * times != 2:
        raise ValueError(f"exact=True composes exactly two curves (compose(a, b, exact=True) "
                         f"or compose(a, times=2, exact=True)), got {len(curves) * times}")
    a, b = (curves * times)[:2]
    pa, pb = a.privacy_loss_distribution(), b.privacy_loss_distribution()
    for p, c in ((pa, a), (pb, b)):
        if not p.exact:
            raise ValueError(f"exact=True needs curves with discrete outcomes; {c.description} "
                             "has a continuous (discretized) privacy-loss distribution")
        if max(p.plus.size, p.minus.size) > EXACT_MAX_ATOMS:
            raise ValueError(f"exact=True takes at most EXACT_MAX_ATOMS = {EXACT_MAX_ATOMS} "
                             f"atoms per direction; {c.description} has "
                             f"{max(p.plus.size, p.minus.size)}")
    description = _description(curves, times) + " (exact)"
    sides = []
    for x, y in ((pa.plus, pb.plus), (pa.minus, pb.minus)):
        small = x._eval_losses.size * y._eval_losses.size <= EXACT_PRODUCT_ATOMS
        sides.append(_product_side(x, y) if small else _ProductSide(x, y))
    pld = _ProductPLD(sides[0], sides[1], description)
    return _curve(pld, curves, times, description)


# -- closed-form bounds ----------------------------------------------------------

def _guarantee(name, pair):
    try:
        if not isinstance(pair, (tuple, list, np.ndarray)):   # not bytes, sets, dicts, ...
            raise TypeError
        eps, delta = pair
    except (TypeError, ValueError):
        raise _validate.ParameterTypeError(
            f"{name} must be an (eps, delta) pair, got {pair!r}") from None
    eps = _validate.real(f"{name} eps", eps, low=0.0, allow_inf=True)
    delta = _validate.probability(f"{name} delta", delta)
    return eps, delta


def basic_composition(*guarantees, times=1):
    """(sum eps_i, min(1, sum delta_i)): the basic composition theorem.

    Each argument is an (eps, delta) pair of one mechanism; ``times`` repeats
    the whole list.  For mechanisms on independent data it holds under partial
    knowledge too (Desfontaines et al., "Differential privacy with partial
    knowledge", Prop. 9 with Thm. 6 at alpha = beta = 0); ``compose`` gives the
    tight curve instead.

    >>> basic_composition((0.5, 1e-6), (0.25, 1e-7), times=2)
    (1.5, 2.2e-06)
    """
    if not guarantees:
        raise ValueError("basic_composition needs at least one (eps, delta) pair")
    times = _validate.count("times", times, low=1)
    pairs = [_guarantee(f"guarantees[{i}]", g) for i, g in enumerate(guarantees)]
    eps = times * math.fsum(e for e, _ in pairs)
    delta = min(1.0, times * math.fsum(d for _, d in pairs))
    return eps, delta


def bounded_dependency_composition(first, second, alpha, beta):
    """(eps_1 + eps_2 + alpha, delta_1 + delta_2 + beta) for (alpha, beta)-bounded
    dependent mechanisms.

    Desfontaines, Mohammadi, Krahmer & Basin, "Differential privacy with
    partial knowledge", Def. 18 and Thm. 6: if the dependency of the second
    mechanism's privacy loss on the first one's output is at most alpha except
    on events of probability beta, and the mechanisms are (eps_1, delta_1)-
    and (eps_2, delta_2)-private under partial knowledge, their joint release
    is (eps_1 + eps_2 + alpha, delta_1 + delta_2 + beta)-private.  Mechanisms
    on independent parts of the data have alpha = beta = 0 (Prop. 9); with
    day-to-day correlation bounded as in the paper's Example 9 (each day's
    records (alpha, beta)-indistinguishable given the previous day's), chain
    this helper day by day.

    Parameters
    ----------
    first, second : (eps, delta) pairs, eps >= 0 (inf allowed), delta in [0, 1]
    alpha : float >= 0 (inf allowed), beta : float in [0, 1]

    >>> bounded_dependency_composition((0.5, 1e-6), (0.5, 1e-6), 0.1, 1e-7)
    (1.1, 2.1e-06)
    """
    e1, d1 = _guarantee("first", first)
    e2, d2 = _guarantee("second", second)
    alpha = _validate.real("alpha", alpha, low=0.0, allow_inf=True)
    beta = _validate.probability("beta", beta)
    return math.fsum((e1, e2, alpha)), min(1.0, math.fsum((d1, d2, beta)))
