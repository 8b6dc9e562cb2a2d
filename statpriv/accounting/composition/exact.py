"""The exact product of two privacy-loss distributions, without a grid.

For two curves with at most EXACT_MAX_ATOMS atoms per direction.  Up to
EXACT_PRODUCT_ATOMS pairs it is one sorted PLDSide with the atoms
(l_i + l_j, p_i q_j): each loss a two-sum hi + lo carrying the parts' low parts
(near the zero point delta ~ p (l - eps) with l - eps a few float64 ulps),
rounded up by a bound on the parts' loss errors (none where both parts'
losses are exact, PLDSide.losses_exact: their sum is carried exactly, and a
zero point eps0_a + eps0_b that is a float stays that float); delta(eps) is an O(log atoms)
suffix-sum query and epsilon(delta) its closed-form inverse on the loss
interval found by binary search (epsilon(0): the largest finite loss rounded
up, inf with mass at +inf).  Larger products evaluate delta(eps) = sum_i p_i
delta_b(eps - l_i) (+ the +inf masses), the shifts in extended precision, and
invert it by a bounded float bisection -- the oracle of the grid path.
"""
import math
from typing import Any

import numpy as np

from statpriv import _validate
from statpriv._xprec import ceil_float as _ceil_float, two_sum as _two_sum
from statpriv.accounting.composition.composed import (ComposedCurve, certified_product,
                                                      composed_curve, description)
from statpriv.laws import pld as _pld

__all__ = ["EXACT_MAX_ATOMS", "EXACT_PRODUCT_ATOMS", "compose_exact"]

# compose(..., exact=True): atoms per direction of each of the two curves.
EXACT_MAX_ATOMS = 10_000
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


def _loss_error(side: Any) -> float:
    """The bound on a part's loss errors, relative to |l|: 0 where its losses
    are exact (PLDSide.losses_exact: randomized response's +-eps0 and 0),
    4e-30 where it gives low parts, two long-double ulps otherwise."""
    if side.losses_exact:
        return 0.0
    return _DD_REL if side._lo is not None else _LD_ULP


def _sum_losses(la: Any, lo_a: Any, rel_a: float, lb: Any, lo_b: Any, rel_b: float) -> Any:
    """(hi, lo): the losses l_a + l_b (arrays broadcast) as a normalised
    unevaluated sum, never below the true sum: a two-sum of the high parts,
    the low parts added with a bound on that addition's rounding (none where
    both are 0: the sum of two exact losses is then carried exactly, its zero
    point not moved), and the parts' own loss errors rel |l|."""
    hi, err = _two_sum(la, lb)
    with np.errstate(invalid="ignore"):
        lo = err + lo_a + lo_b
        # |fl(fl(err + lo_a) + lo_b) - (err + lo_a + lo_b)| <= 2u (1 + u) S, S the
        # sum of magnitudes (u = eps/2): 4u S, and the rounding of adding it,
        # are covered by _LD_ULP S
        rounded = (lo_a != 0) | (lo_b != 0)
        pad = np.where(rounded, _LD_ULP * (np.abs(err) + np.abs(lo_a) + np.abs(lo_b)), 0.0)
        lo = lo + (pad + (rel_a * np.abs(la) + rel_b * np.abs(lb)))
    return _two_sum(hi, lo)


def _product_side(a: Any, b: Any) -> Any:
    """The exact product of two PLDSides: a PLDSide with the atoms (l_i + l_j,
    p_i q_j) of their evaluation arrays (tails at their loss bounds) in extended
    precision, and the mass at +inf sum_i p_i c_b + c_a (T_b + e_b) (c: the +inf,
    unbounded-tail and extra masses, T the total mass); delta(eps) is then the
    PLDSide's O(log atoms) suffix-sum query and epsilon(delta) its closed-form
    inverse on the loss interval found by binary search."""
    la, pa, lb, pb = a._eval_losses, a._eval_probs, b._eval_losses, b._eval_probs
    # delta is non-decreasing in the losses: each sum is rounded UP by a bound on
    # the parts' loss errors relative to |l_i| + |l_j| (_loss_error; none for
    # exact parts), so that near the zero point, where delta ~ p (l - eps) and
    # l - eps is a few float64 ulps, the loss error cannot make an under-report.
    hi, lo = _sum_losses(la[:, None], a._eval_lo[:, None], _loss_error(a),
                         lb[None, :], b._eval_lo[None, :], _loss_error(b))
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

    def __init__(self, a: Any, b: Any) -> None:
        if a._eval_losses.size > b._eval_losses.size:
            a, b = b, a                       # the outer sum over the smaller side
        self.a, self.b = a, b
        # (b's own constant is inside each b._delta_ld term)
        self.const = a._const * (np.longdouble(b.total_mass()) + np.longdouble(b.extra_mass))
        # delta's floor (eps -> inf): also sum_i p_i c_b
        self.floor = self.const + np.sum(a._eval_probs, dtype=np.longdouble) * b._const
        self.rel_a, self.rel_b = _loss_error(a), _loss_error(b)
        la, lb = a._eval_losses, b._eval_losses
        # the largest finite loss: delta = const beyond it
        self.top = None
        if la.size and lb.size:                  # its low part, rounded up
            self.top, self.top_lo = _sum_losses(la[-1], a._eval_lo[-1], self.rel_a,
                                                lb[-1], b._eval_lo[-1], self.rel_b)

    def _delta_ld(self, eps: Any) -> Any:
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

    def _log_delta(self, eps: Any) -> Any:
        with np.errstate(divide="ignore"):
            return np.log(self._delta_ld(eps)).astype(np.float64)

    def _epsilon(self, log_target: Any) -> Any:
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


class _ProductPLD:
    """The minimal PrivacyLossDistribution interface of an exact product."""

    exact = True
    discretization = None
    rounding_bound = 0.0
    moved_mass = 0.0

    def __init__(self, plus: Any, minus: Any, description: Any, parts: Any) -> None:
        self.plus, self.minus, self.description = plus, minus, description
        self.parts = parts              # (curves, times): certified_laws

    def delta(self, eps: Any, direction: Any = "max") -> Any:
        arr = _validate.real_array("eps", eps, allow_inf=True)
        sides = {"plus": (self.plus,), "minus": (self.minus,),
                 "max": (self.plus, self.minus)}[direction]
        out = np.maximum.reduce([s._delta_ld(arr) for s in sides]).astype(np.float64)
        return float(out[()]) if arr.ndim == 0 else out

    delta_lower_bound = delta

    @property
    def optimistic(self) -> Any:
        """Itself: the product is exact (statpriv.laws.pld.PrivacyLossDistribution.optimistic)."""
        return self

    def side(self, direction: Any) -> Any:
        return self.plus if direction == "plus" else self.minus

    # the laws of the composed curve (PrivacyCurve's ``laws``)
    has_log_pmfs = False

    def privacy_loss_distribution(self, value_discretization_interval: Any = None,
                                  tail_mass_truncation: Any = None, description: Any = None) -> Any:
        return self

    def certified_laws(self) -> Any:
        """The product of the parts' laws in Arb (certified_product), or None."""
        return certified_product(*self.parts)


def compose_exact(curves: Any, times: Any) -> ComposedCurve:
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
    what = description(curves, times) + " (exact)"
    sides = []
    for x, y in ((pa.plus, pb.plus), (pa.minus, pb.minus)):
        small = x._eval_losses.size * y._eval_losses.size <= EXACT_PRODUCT_ATOMS
        sides.append(_product_side(x, y) if small else _ProductSide(x, y))
    pld = _ProductPLD(sides[0], sides[1], what, (curves, times))
    return composed_curve(pld, curves, times, what)
