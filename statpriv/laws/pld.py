"""Privacy-loss distributions (PLDs) of privacy curves.

For laws P (target present / positive) and Q (absent / negative) of what the
attacker sees, the privacy loss of an outcome x is L(x) = ln P(x)/Q(x); its
law under X ~ P is the PLD of the pair in the direction "plus", that of
ln Q(x)/P(x) under X ~ Q the direction "minus".  Every hockey-stick
divergence is an expectation over the PLD (Dwork & Rothblum, "Concentrated
differential privacy"; Sommer, Meiser & Mohammadi, "Privacy loss classes: the
central limit theorem in differential privacy"):

    delta_plus(eps) = H_eps(P || Q) = E_P[(1 - e^(eps - L))_+]
                    = sum_{l_i > eps} p_i (1 - e^(eps - l_i)) + P[L = +inf],

so delta is non-decreasing in the losses (moving mass to a larger loss never
lowers it: the pessimistic rounding of statpriv.composition), and for
mechanisms on independent data the PLD of the composition is the law of the
SUM of independent losses (a convolution).

A ``PrivacyLossDistribution`` holds both directions as ``PLDSide`` objects:
sorted finite losses with their probabilities (extended precision where they
come from the pmfs), the mass at +inf (outcomes with Q = 0 < P), and a
``tail_mass``: a bound on the mass the arrays leave out (a window of a large
law, trimmed noise cells, truncated grid tails), reported and added to delta
at the loss ``tail_loss`` (an upper bound on the losses it can have; +inf when
none is known) -- never dropped.

Evaluation: with the atoms sorted, l_0 < l_1 < ..., and j the first atom above
eps, delta(eps) = D_j + (1 - e^(eps - l_j)) W_j + P[L = inf] with

    W_j = sum_{i >= j} p_i e^(l_j - l_i),
    D_j = sum_{i > j} p_i (1 - e^(l_j - l_i)) = sum_{k > j} (1 - e^(l_{k-1} - l_k)) W_k,

both sums of non-negative terms (no cancellation), precomputed once in
extended precision: a query is a binary search and O(1) arithmetic.
"""
from __future__ import annotations

import copy
import math
from typing import Any, Optional, Sequence, Union, cast, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from statpriv import _validate
from statpriv.curve import PrivacyCurve
from statpriv.curve.recipe import Recipe
from statpriv.laws.renyi import renyi_from_pld

_Arrayish = Union[NDArray[Any], Sequence[float], Sequence[Sequence[float]]]


__all__ = ["LOSS_CAP", "PLDCore", "PLDSide", "PrivacyLossDistribution", "from_laws", "from_log_pmfs",
           "renyi_from_pld"]

_LD: "type[np.longdouble]" = np.longdouble
# Losses are shifted by their midpoint before e^(-l) is formed: extended
# precision holds e^(+-11000), so losses may span up to this many nats.
_MAX_LOSS_SPAN = 22000.0
# Exact PLDs from log pmfs keep their losses within +-LOSS_CAP (_side_from_logs).
LOSS_CAP = _LOSS_CAP = _MAX_LOSS_SPAN / 2
_DIRECTIONS = ("plus", "minus", "max")


def _ld(values: Any) -> NDArray[np.longdouble]:
    return np.ascontiguousarray(np.asarray(values, dtype=_LD))


class PLDSide:
    """One direction of a PLD: the law of L = ln A(x)/B(x) under X ~ A.

    Attributes (read-only)
    ----------------------
    losses : numpy.ndarray of longdouble
        The finite losses l_i, sorted ascending.
    probs : numpy.ndarray of longdouble
        Their probabilities A(l_i) (>= 0).
    infinity_mass : float
        A[L = +inf]: the mass of A where B vanishes.
    tail_mass : float or numpy.longdouble
        A bound on the A-mass left out of ``losses`` (window, truncation);
        delta counts it at ``tail_loss``.  A long double where the bound is
        below the float64 range (windows cut e^-11000 below the largest atom),
        so that ln delta stays meaningful that deep.
    tail_loss : float
        An upper bound on the losses of the left-out mass (+inf if unknown:
        then it is counted like infinity_mass).
    extra_mass : float
        Mass added to delta at every eps (a bound on round-off, e.g. of FFT
        convolutions), 0 for exact PLDs.
    losses_exact : bool
        True when every loss (with its low part) is ln A(x)/B(x) exactly, or
        above it (a tail at its bound, an atom moved up to the loss cap): no
        rounding error for an exact composition to pay (randomized response's
        +-eps0 and 0); False where the losses are rounded (the default).
    """

    def __init__(self, losses: ArrayLike, probs: ArrayLike, infinity_mass: Any = 0.0,
                 tail_mass: Any = 0.0, tail_loss: float = math.inf, extra_mass: float = 0.0,
                 losses_lo: Optional[ArrayLike] = None, losses_exact: bool = False) -> None:
        losses, probs = _ld(losses), _ld(probs)
        keep = probs > 0
        losses, probs = losses[keep], probs[keep]
        lo_kept = None if losses_lo is None else _ld(losses_lo)[keep]
        # sorted by the loss hi + lo: by hi, ties by their low parts
        order = (np.argsort(losses, kind="stable") if lo_kept is None
                 else np.lexsort((lo_kept, losses)))
        self._losses, self._probs = losses[order], probs[order]
        # low parts: the loss of atom i is losses[i] + losses_lo[i] (None: unknown)
        self._lo = None if lo_kept is None else lo_kept[order]
        self.losses_exact = bool(losses_exact)
        self._losses.flags.writeable = False
        self._probs.flags.writeable = False
        # a long double where the mass is below the float64 range (Q = 0 < P on
        # an atom of mass e^-5000 still makes delta > 0 at every eps)
        self.infinity_mass = (infinity_mass if isinstance(infinity_mass, _LD)
                              and float(infinity_mass) == 0.0 < infinity_mass
                              else float(infinity_mass))
        self.tail_mass = tail_mass if isinstance(tail_mass, _LD) else float(tail_mass)
        self.tail_loss = float(tail_loss)
        self.extra_mass = float(extra_mass)
        # evaluation arrays: the tail as one more atom (or at +inf)
        l_eval, p_eval = self._losses, self._probs
        lo_eval = np.zeros(l_eval.size, dtype=_LD) if self._lo is None else self._lo
        const = _LD(self.infinity_mass) + _LD(self.extra_mass)
        if self.tail_mass > 0.0:
            if math.isfinite(self.tail_loss):
                at = np.searchsorted(l_eval, _LD(self.tail_loss))
                l_eval = np.insert(l_eval, at, _LD(self.tail_loss))
                p_eval = np.insert(p_eval, at, _LD(self.tail_mass))
                lo_eval = np.insert(lo_eval, at, _LD(0.0))
            else:
                const += _LD(self.tail_mass)
        self._const = const
        self._eval_losses, self._eval_probs, self._eval_lo = l_eval, p_eval, lo_eval
        _check_span(l_eval)

    def _sums(self) -> Any:
        """(W, D, delta at eps = l_j), built on first use (a composition reads
        only the atoms)."""
        sums = self.__dict__.get("_sums_built")
        if sums is None:
            w, d = _suffix_sums(self._eval_losses, self._eval_probs, self._eval_lo)
            sums = self._sums_built = (w, d, d + self._const)     # delta at l_j, decreasing
        return sums

    _w = property(lambda self: self._sums()[0])
    _d = property(lambda self: self._sums()[1])
    _values = property(lambda self: self._sums()[2])

    losses = property(lambda self: self._losses)
    probs = property(lambda self: self._probs)

    @property
    def size(self) -> int:
        """The number of finite atoms."""
        return int(self._losses.size)

    def total_mass(self) -> float:
        """sum p_i + infinity_mass + tail_mass (1 up to rounding and the tail bound)."""
        return float(np.sum(self._probs)) + float(self.infinity_mass) + float(self.tail_mass)

    def __repr__(self) -> Any:
        return (f"<PLDSide {self.size} atoms, infinity_mass={_fmt_mass(self.infinity_mass)}, "
                f"tail_mass={_fmt_mass(self.tail_mass)}>")

    def _delta_ld(self, eps: Any) -> Any:
        """delta at an array of eps (float64, or long double shifts), extended precision."""
        eps = np.asarray(eps)
        eps = eps.astype(_LD if eps.dtype == _LD else np.float64).astype(_LD)
        n = self._eval_losses.size
        out = np.full(eps.shape, self._const, dtype=_LD)
        if n == 0:
            return np.minimum(out, _LD(1.0))
        j = np.searchsorted(self._eval_losses, eps, side="right")
        # an eps between l_{j-1} and l_{j-1} + lo_{j-1} is still below that atom
        prev = np.maximum(j - 1, 0)
        with np.errstate(invalid="ignore"):
            j = np.where((j > 0) & (eps - self._eval_losses[prev] < self._eval_lo[prev]),
                         j - 1, j)
        inside = j < n
        jj = j[inside]
        with np.errstate(over="ignore", invalid="ignore"):
            gap = (eps[inside] - self._eval_losses[jj]) - self._eval_lo[jj]
            out[inside] += self._d[jj] - np.expm1(gap) * self._w[jj]
        # an atom above eps: delta > 0 even where it underflows the long double
        out[inside & (out <= 0)] = np.finfo(_LD).smallest_subnormal
        return np.minimum(out, _LD(1.0))        # bounds may add up past 1; delta <= 1

    @overload
    def delta(self, eps: float) -> float: ...
    @overload
    def delta(self, eps: _Arrayish) -> NDArray[np.float64]: ...
    @overload
    def delta(self, eps: ArrayLike) -> Union[float, NDArray[np.float64]]: ...

    def delta(self, eps: ArrayLike) -> Union[float, NDArray[np.float64]]:
        """H_eps = E[(1 - e^(eps - L))_+] (+inf mass, tail and extra mass included)."""
        arr = _validate.real_array("eps", eps, allow_inf=True)
        out = self._delta_ld(arr).astype(np.float64)
        return float(out[()]) if arr.ndim == 0 else out

    def _log_delta(self, eps: Any) -> Any:
        with np.errstate(divide="ignore"):
            return np.log(self._delta_ld(eps)).astype(np.float64)

    def _epsilon(self, log_target: Any) -> Any:
        """Smallest eps (any real, -inf if none needed) with delta(eps) <= e^log_target."""
        target = np.exp(np.asarray(log_target, dtype=_LD))
        out = np.full(target.shape, -np.inf)
        floor = np.minimum(self._const, _LD(1.0))          # delta at eps = +inf
        out[target < floor] = np.inf
        n = self._eval_losses.size
        active = (target >= floor) & (n > 0)
        if not active.any():
            return out
        t = target[active]
        # first j with delta(l_j) = values[j] <= t (values decrease; values[n-1] = const)
        j = np.searchsorted(-self._values, -t, side="left")
        j = np.minimum(j, n - 1)
        j[t <= self._const] = n - 1      # delta = const only from the largest loss on
        # on (l_{j-1}, l_j]: delta = D_j + (1 - e^(eps - l_j)) W_j + const = t
        with np.errstate(divide="ignore", invalid="ignore"):
            frac = (t - self._values[j]) / self._w[j]
            frac[t <= self._const] = 0.0     # (w may underflow there)
            eps = self._eval_losses[j] + np.log1p(-np.minimum(frac, _LD(1.0)))
        eps = np.where(np.isnan(eps), _LD(-np.inf), eps)
        rounded = eps.astype(np.float64)                  # rounded UP to a float
        with np.errstate(invalid="ignore"):
            up = np.isfinite(rounded) & ((eps - rounded.astype(_LD)) + self._eval_lo[j] > 0)
        rounded[up] = np.nextafter(rounded[up], np.inf)
        eps = rounded
        # round up until the evaluated delta is at or below the target
        for _ in range(8):
            # (a margin of 1e-15: the float64 query path rounds differently)
            bad = np.isfinite(eps) & (self._delta_ld(eps) > t * _LD(1 - 1e-15))
            if not bad.any():
                break
            eps[bad] = np.nextafter(eps[bad], np.inf) if _ < 2 else \
                np.nextafter(eps[bad] + 1e-15 * np.abs(eps[bad]), np.inf)
        out[active] = eps
        return out


def _fmt_mass(x: Any) -> Any:
    """A mass for repr: 3 digits, long doubles below the float range too."""
    return f"{float(x):.3g}" if float(x) != 0.0 or x == 0 else \
        np.format_float_scientific(x, precision=2)


def _check_span(losses: Any) -> None:
    if losses.size and float(losses[-1] - losses[0]) > _MAX_LOSS_SPAN:
        lo, hi = float(losses[0]), float(losses[-1])
        raise ValueError(f"losses must span at most {_MAX_LOSS_SPAN:g} nats (extended "
                         f"precision holds e^(+-{_MAX_LOSS_SPAN / 2:g}) about their midpoint); "
                         f"the losses span {hi - lo:.6g} nats, from {lo:.6g} to {hi:.6g}")


def _suffix_sums(losses: Any, probs: Any, losses_lo: Any = None) -> Any:
    """(W, D) of the module docstring, extended precision, as suffix cumsums.

    ``losses_lo``: the low parts (loss i is losses[i] + losses_lo[i]).  The gaps
    l_k - l_(k-1) of D's factors 1 - e^(l_(k-1) - l_k) take them: two
    composed losses 40 + 2.3e-8 and 40 + 2.8e-8 are long doubles only to
    3.5e-18, 7e-10 of their gap (delta off by that much near them)."""
    if losses.size == 0:
        empty = np.zeros(0, dtype=_LD)
        return empty, empty
    lo, hi = losses[0], losses[-1]
    _check_span(losses)
    mid = (lo + hi) / 2
    with np.errstate(under="ignore"):
        scaled = probs * np.exp(mid - losses)                # p_i e^(-(l_i - mid))
        u = np.cumsum(scaled[::-1])[::-1]                    # sum_{i >= j}
        w = u * np.exp(losses - mid)
        gaps = losses[:-1] - losses[1:]                      # l_{k-1} - l_k, k >= 1
        if losses_lo is not None:
            gaps = gaps + (losses_lo[:-1] - losses_lo[1:])
        c = -np.expm1(gaps)                                  # 1 - e^(l_{k-1} - l_k)
        terms = c * w[1:]
        d = np.zeros(losses.size, dtype=_LD)
        d[:-1] = np.cumsum(terms[::-1])[::-1]
    return w, d


class PrivacyLossDistribution:
    """Both directions of a privacy-loss distribution (see the module docstring).

    Attributes
    ----------
    plus : PLDSide
        The law of ln P(x)/Q(x) under X ~ P (delta_plus).
    minus : PLDSide
        The law of ln Q(x)/P(x) under X ~ Q (delta_minus).
    exact : bool
        True when the atoms are the curve's own (only the reported tail mass
        bounded); False for a pessimistic discretization (continuous curves,
        compositions on a grid).
    discretization : float or None
        The grid spacing h of a discretized PLD (losses are multiples of h,
        rounded up), None for an exact one.
    rounding_bound : float
        An upper bound on how far the losses were rounded up (0 exact; for
        a composition of k grid-rounded PLDs, k h).
    moved_mass : float
        A bound on the mass moved pessimistically beyond that rounding
        (truncated grid tails moved up or to +inf, windows' rest masses):
        the true delta(eps) is at least
        delta(eps + rounding_bound) - moved_mass - extra mass.
    optimistic : PrivacyLossDistribution or None
        Its partner whose delta is never ABOVE the true curve: the
        optimistic connect-the-dots PLD of a grid PLD
        (statpriv.laws.grid_pld), the atoms without their bounded tails for
        an exact one (itself when it has none); None where no lower bound is
        known.

    Examples
    --------
    >>> import statpriv
    >>> statpriv.counting(1000, 0.5).privacy_loss_distribution()
    <PrivacyLossDistribution counting n=1000, pi=0.5 (exact): plus 999 atoms, minus 999 atoms>
    """

    def __init__(self, plus: PLDSide, minus: PLDSide, *, exact: bool = True,
                 discretization: Optional[float] = None, rounding_bound: float = 0.0,
                 moved_mass: float = 0.0, description: str = "privacy-loss distribution",
                 optimistic: Optional[PrivacyLossDistribution] = None) -> None:
        self.plus, self.minus = plus, minus
        self.exact = bool(exact)
        self.discretization = discretization
        self.rounding_bound = float(rounding_bound)
        self.moved_mass = float(moved_mass)
        self.description = str(description)
        self._optimistic = optimistic

    @property
    def optimistic(self) -> Optional[PrivacyLossDistribution]:
        if self._optimistic is None and self.exact:
            sides = (self.plus, self.minus)
            if all(s.tail_mass == 0 and s.extra_mass == 0 for s in sides):
                return self
            self._optimistic = PrivacyLossDistribution(
                *(PLDSide(s.losses, s.probs, s.infinity_mass, losses_lo=s._lo) for s in sides),
                description=self.description)
        return self._optimistic

    # the public call that made this PLD (PrivacyCurve.privacy_loss_distribution
    # of a curve built by a public factory; statpriv.curve.recipe), or None
    _recipe = None

    def _with_recipe(self, recipe: Any) -> PrivacyLossDistribution:
        """A shallow copy of this PLD that remembers ``recipe`` (its curve's
        call and the grid): to_dict, and the curve of ``to_curve``, name it."""
        twin = copy.copy(self)
        twin._recipe = recipe
        return twin

    def __repr__(self) -> Any:
        kind = "exact" if self.exact else f"pessimistic, h={self.discretization}"
        return (f"<PrivacyLossDistribution {self.description} ({kind}): "
                f"plus {self.plus.size} atoms, minus {self.minus.size} atoms>")

    def side(self, direction: str) -> PLDSide:
        """The PLDSide of 'plus' or 'minus'.

        Parameters
        ----------
        direction : {"plus", "minus"}
            Which direction.

        Returns
        -------
        PLDSide
            ``plus`` or ``minus``.

        Examples
        --------
        >>> import statpriv
        >>> pld = statpriv.counting(1000, 0.5).privacy_loss_distribution()
        >>> pld.side("plus") is pld.plus
        True
        """
        _validate.choice("direction", direction, ("plus", "minus"))
        return self.plus if direction == "plus" else self.minus

    @overload
    def delta(self, eps: float, direction: str = "max") -> float: ...
    @overload
    def delta(self, eps: _Arrayish, direction: str = "max") -> NDArray[np.float64]: ...
    @overload
    def delta(self, eps: ArrayLike,
              direction: str = "max") -> Union[float, NDArray[np.float64]]: ...

    def delta(self, eps: ArrayLike, direction: str = "max") -> Union[float, NDArray[np.float64]]:
        """delta(eps) from the PLD: E[(1 - e^(eps - L))_+] per direction, or their max.

        Parameters
        ----------
        eps : float or array of floats
            The eps at which delta is wanted.
        direction : {"max", "plus", "minus"}, optional
            delta = max(delta_plus, delta_minus) (default), or one direction.

        Returns
        -------
        float or numpy.ndarray
            delta(eps), an array of the shape of ``eps`` for an array.

        Examples
        --------
        >>> import statpriv
        >>> pld = statpriv.counting(1000, 0.5).privacy_loss_distribution()
        >>> print(f"{pld.delta(0.1):.10e}")        # the curve's delta(0.1)
        1.6192050965e-03
        """
        _validate.choice("direction", direction, _DIRECTIONS)
        arr = _validate.real_array("eps", eps, allow_inf=True)
        if direction == "max":
            out = np.maximum(self.plus._delta_ld(arr), self.minus._delta_ld(arr))
        else:
            out = self.side(direction)._delta_ld(arr)
        out = out.astype(np.float64)
        return float(out[()]) if arr.ndim == 0 else out

    @overload
    def delta_lower_bound(self, eps: float, direction: str = "max") -> float: ...
    @overload
    def delta_lower_bound(self, eps: _Arrayish, direction: str = "max") -> NDArray[np.float64]: ...
    @overload
    def delta_lower_bound(self, eps: ArrayLike,
                          direction: str = "max") -> Union[float, NDArray[np.float64]]: ...

    def delta_lower_bound(self, eps: ArrayLike,
                          direction: str = "max") -> Union[float, NDArray[np.float64]]:
        """A lower bound on the TRUE delta(eps) of the mechanism the PLD bounds:
        the ``optimistic`` partner's delta where there is one (for an exact
        PLD with no tail, delta(eps) itself), else delta(eps + rounding_bound)
        - moved_mass - extra mass (0 at least).

        Parameters
        ----------
        eps : float or array of floats
            The eps at which delta is wanted.
        direction : {"max", "plus", "minus"}, optional
            delta = max(delta_plus, delta_minus) (default), or one direction.

        Returns
        -------
        float or numpy.ndarray
            The lower bound, an array of the shape of ``eps`` for an array.

        Examples
        --------
        >>> import statpriv
        >>> pld = statpriv.dp.gaussian(1.0).privacy_loss_distribution(1e-3)   # a grid PLD
        >>> bool(pld.delta_lower_bound(1.0) <= statpriv.dp.gaussian(1.0).delta(1.0) <= pld.delta(1.0))
        True
        """
        _validate.choice("direction", direction, _DIRECTIONS)
        arr = _validate.real_array("eps", eps, allow_inf=True)
        if self._optimistic is not None:
            return self._optimistic.delta(arr, direction)
        sides = (self.plus, self.minus) if direction == "max" else (self.side(direction),)
        lows = []
        for s in sides:
            # (the subtracted masses rounded up, delta's own rounding 1e-12 relative)
            shifted = s._delta_ld(arr + self.rounding_bound)
            low = shifted * _LD(1 - 1e-12) - (_LD(self.moved_mass + s.extra_mass)
                                              + _LD(s.tail_mass)) * _LD(1 + 1e-9)
            lows.append(np.maximum(low, _LD(0.0)))
        out = np.maximum.reduce(lows).astype(np.float64)
        return float(out[()]) if arr.ndim == 0 else out

    def to_curve(self) -> PrivacyCurve:
        """The PrivacyCurve of this PLD (delta, epsilon, log_delta; O(log atoms) per
        query), e.g. for a PLD built by hand or by another accountant.

        Returns
        -------
        PrivacyCurve
            The curve whose delta is this PLD's delta.

        Examples
        --------
        >>> import statpriv
        >>> pld = statpriv.counting(1000, 0.5).privacy_loss_distribution()
        >>> print(f"{pld.to_curve().epsilon(1e-3):.6f}")
        0.112816
        """
        curve = PrivacyCurve(PLDCore(self), None, self.description, exact=self.exact, laws=self)
        return cast(PrivacyCurve,
                    Recipe(PrivacyLossDistribution.to_curve, (self,), {}).attach(curve))

    @overload
    def renyi(self, alpha: float, direction: str = "max") -> float: ...
    @overload
    def renyi(self, alpha: _Arrayish, direction: str = "max") -> NDArray[np.float64]: ...
    @overload
    def renyi(self, alpha: ArrayLike,
              direction: str = "max") -> Union[float, NDArray[np.float64]]: ...

    def renyi(self, alpha: ArrayLike, direction: str = "max") -> Union[float, NDArray[np.float64]]:
        """D_alpha per direction ('plus': D(P||Q), 'minus': D(Q||P)) or the max,
        vectorised over alpha (see renyi_from_pld).

        Parameters
        ----------
        alpha : float > 0 or array of floats
            The order(s).
        direction : {"max", "plus", "minus"}, optional
            delta = max(delta_plus, delta_minus) (default), or one direction.

        Returns
        -------
        float or numpy.ndarray
            D_alpha, an array of the shape of ``alpha`` for an array.

        Examples
        --------
        >>> import statpriv
        >>> pld = statpriv.counting(1000, 0.5).privacy_loss_distribution()
        >>> pld.renyi(0.5) == statpriv.counting(1000, 0.5).renyi(0.5)
        True
        """
        return cast(Union[float, NDArray[np.float64]], renyi_from_pld(self, alpha, direction))

    # the laws of a curve built from this PLD (PrivacyCurve's ``laws``)
    has_log_pmfs = False

    def privacy_loss_distribution(self, value_discretization_interval: Optional[float] = None,
                                  tail_mass_truncation: Optional[float] = None,
                                  description: Optional[str] = None) -> PrivacyLossDistribution:
        """This PLD itself (a curve built by ``to_curve`` or a composition).

        Parameters
        ----------
        value_discretization_interval, tail_mass_truncation, description : optional
            Ignored: the PLD is already built.

        Returns
        -------
        PrivacyLossDistribution
            ``self``.

        Examples
        --------
        >>> import statpriv
        >>> pld = statpriv.counting(1000, 0.5).privacy_loss_distribution()
        >>> pld.privacy_loss_distribution() is pld
        True
        """
        return self


# -- constructors ------------------------------------------------------------

def _side_from_logs(log_a: Any, log_b: Any, loss: Any, log_rest: Any, loss_bound: Any,
                    loss_lo: Any = None, exact: bool = False) -> Any:
    """(side, low): the PLDSide of L = ln A/B under A from aligned log pmfs
    (extended precision; loss + loss_lo where the low parts are known; exact:
    those are ln A/B exactly, PLDSide.losses_exact), and
    None, or where atoms lie above the loss cap, the side of a lower bound:
    the atoms without the tails, those above the cap at the cap."""
    log_a, log_b = _ld(log_a), _ld(log_b)
    if loss is None:
        with np.errstate(invalid="ignore"):
            loss = log_a - log_b
    loss = _ld(loss)
    live = np.isfinite(log_a)
    at_inf = live & np.isposinf(loss)
    finite = live & np.isfinite(loss) & ~at_inf
    with np.errstate(under="ignore"):
        # an atom below the long double range (e^-11400) is kept at the smallest
        # positive long double (an over-report there), never dropped
        probs = np.maximum(np.exp(log_a[finite]), np.finfo(_LD).smallest_subnormal)
    inf_mass = max(np.sum(np.exp(log_a[at_inf]), dtype=_LD),
                   np.finfo(_LD).smallest_subnormal) if at_inf.any() else 0.0
    lo = None if loss_lo is None else _ld(loss_lo)[finite]
    losses, tail, tail_loss = loss[finite], _mass_bound(log_rest), float(loss_bound)
    # Losses beyond +-_LOSS_CAP (ln P/Q of laws with log-probabilities near
    # -1e300): extended precision cannot hold e^(-l) over a wider span.
    # Above the cap: the atoms join the tail at +inf -- delta counts them as
    # p instead of p (1 - e^(eps - l)), the same to long double precision for
    # every eps <= l - 45, above it only larger; the optimistic partner has
    # them at the cap (a lower loss: delta only lower).  Below -cap: moved
    # up to -cap -- an atom adds p (1 - e^(eps - l))_+ to delta, 0 at every
    # eps >= l, so nothing changes at eps >= -cap, and below it the raised
    # loss only raises delta, by at most p <= e^-cap (P <= e^l Q there).
    down = losses < -_LOSS_CAP
    if down.any():
        losses = np.where(down, _LD(-_LOSS_CAP), losses)
        lo = None if lo is None else np.where(down, _LD(0.0), lo)
    up = losses > _LOSS_CAP
    low = None
    if up.any():
        keep = ~up
        low = PLDSide(np.append(losses[keep], _LD(_LOSS_CAP)),
                      np.append(probs[keep], np.sum(probs[up], dtype=_LD) * _LD(1 - 1e-15)),
                      inf_mass, losses_lo=None if lo is None else np.append(lo[keep], _LD(0.0)))
        far = np.sum(probs[up], dtype=_LD) * _LD(1 + 1e-15)
        tail = (math.nextafter(float(far) + float(tail), math.inf) if float(far) > 0
                else _LD(tail) + far)
        tail_loss = math.inf
        losses, probs = losses[~up], probs[~up]
        lo = None if lo is None else lo[~up]
    if tail_loss > _LOSS_CAP:
        tail_loss = math.inf            # (a rest tail beyond the cap: at +inf, only larger)
    tail_loss = max(tail_loss, -_LOSS_CAP)
    return PLDSide(losses, probs, inf_mass, tail, tail_loss, losses_lo=lo,
                   losses_exact=exact), low


def _mass_bound(log_mass: Any) -> Any:
    """e^log_mass rounded up: a float, or a long double below the float range
    (never 0 for a positive mass: at worst the smallest positive long double)."""
    if log_mass == -math.inf:
        return 0.0
    if log_mass > -700.0:
        return math.exp(min(log_mass, 709.0)) * (1.0 + 1e-15)
    tiny = np.finfo(_LD).smallest_subnormal
    return max(np.exp(_LD(log_mass)) * _LD(1.0 + 1e-15), tiny)


def _from_logs(log_p: Any, log_q: Any, loss: Any, log_rest_p: Any, log_rest_q: Any,
               loss_max: Any, loss_min: Any, loss_lo: Any,
               description: Any, exact: bool = False) -> PrivacyLossDistribution:
    """The exact PLD (both directions) of aligned log pmfs: loss = ln P/Q on
    the atoms (None: log_p - log_q), with its low parts loss_lo (or None;
    exact: loss + loss_lo is ln P/Q exactly); the rests at the losses
    loss_max (plus) and -loss_min (minus)."""
    try:
        plus, low_plus = _side_from_logs(log_p, log_q, loss, log_rest_p, loss_max, loss_lo,
                                         exact)
        minus, low_minus = _side_from_logs(log_q, log_p, None if loss is None else -loss,
                                           log_rest_q, -loss_min,
                                           None if loss_lo is None else -loss_lo, exact)
    except ValueError as exc:         # the losses ln P/Q of the curve's laws: say whose
        raise ValueError(f"{description}: {exc}") from None
    optimistic = None
    if low_plus is not None or low_minus is not None:
        # atoms beyond the loss cap: the lower partner has them at the cap
        optimistic = PrivacyLossDistribution(
            *(low if low is not None else PLDSide(s.losses, s.probs, s.infinity_mass,
                                                  losses_lo=s._lo)
              for s, low in ((plus, low_plus), (minus, low_minus))), description=description)
    return PrivacyLossDistribution(plus, minus, exact=True, description=description,
                                   optimistic=optimistic)


def from_laws(laws: Any, description: str = "privacy-loss distribution") -> PrivacyLossDistribution:
    """The exact PLD of a statpriv.laws.Laws value (both directions).

    The losses are ln P/Q = log_ratio + log_ratio_lo as one long double with
    its residual as the low part (near a zero point delta ~ P(x) (loss -
    eps) needs them); log_ratio None: ln P - ln Q.  The rests (window or
    trimmed mass) go to the tails at log_ratio_max and -log_ratio_min.  Laws
    whose log ratios are exact (log_ratio_exact) give exact losses: the
    residual of hi + lo is exact (a fast two-sum, |lo| <= |hi|)."""
    loss = loss_lo = None
    if laws.log_ratio is not None:
        hi = np.asarray(laws.log_ratio, dtype=_LD)
        loss = hi
        if laws.log_ratio_lo is not None:
            lo = np.asarray(laws.log_ratio_lo, dtype=_LD)
            loss = hi + lo
            with np.errstate(invalid="ignore"):
                loss_lo = np.where(np.isfinite(loss), (hi - loss) + lo, 0.0)   # the residual
        loss = _ld(loss)
        loss_lo = None if loss_lo is None else _ld(loss_lo)
    return _from_logs(laws.log_p, laws.log_q, loss, float(laws.log_rest_p),
                      float(laws.log_rest_q), float(laws.log_ratio_max),
                      float(laws.log_ratio_min), loss_lo, description,
                      laws.log_ratio is not None and laws.log_ratio_exact)


def from_log_pmfs(log_pmfs: Any,
                  description: str = "privacy-loss distribution") -> PrivacyLossDistribution:
    """The exact PLD of a statpriv.laws.LogPmfs (float64 logs; rest masses as
    tails at +inf)."""
    return _from_logs(log_pmfs.log_p, log_pmfs.log_q, None, log_pmfs.log_rest_p,
                      log_pmfs.log_rest_q, math.inf, -math.inf, None, description)


class PLDCore:
    """A curve core (log_delta / epsilon, like statpriv._core.CurveCore) over a
    PrivacyLossDistribution: O(log atoms) per query (binary search over the
    precomputed suffix sums), both directions, vectorised."""

    def __init__(self, pld: Any) -> None:
        self.pld = pld

    def _sides(self, direction: Any) -> Any:
        return (self.pld.plus, self.pld.minus, (self.pld.plus, self.pld.minus))[direction]

    def log_delta(self, eps: Any, direction: Any) -> Any:
        # (one eps takes the same extended-precision path as an array: the same
        # bits alone or in a batch)
        sides = self._sides(direction)
        if not isinstance(sides, tuple):
            return sides._log_delta(eps)
        return np.maximum(sides[0]._log_delta(eps), sides[1]._log_delta(eps))

    def epsilon(self, log_target: Any, direction: Any) -> Any:
        sides = self._sides(direction)
        if not isinstance(sides, tuple):
            sides = (sides,)
        out = np.maximum.reduce([s._epsilon(log_target) for s in sides])
        out[np.asarray(log_target) >= 0.0] = 0.0     # delta <= 1 everywhere
        return np.maximum(out, 0.0)          # epsilon >= 0; epsilon(1) = 0

