"""The curve of a composition: a PrivacyCurve whose delta is the upper end of a
certified bracket of the true composed curve (``delta_bounds``,
``epsilon_bounds``), with the exact Renyi divergence of the product (the sum
over the parts)."""
from __future__ import annotations


import math
from typing import (Any, Callable, Dict, List, Optional, Sequence, Tuple, Union, cast,
                    overload)

import numpy as np
from numpy.typing import ArrayLike, NDArray

from statpriv import _core, _threads, _validate
from statpriv.curve import PrivacyCurve, Reference
from statpriv.laws import pld as _pld

__all__ = ["ComposedCurve", "certified_product", "check_curves", "composed_curve", "description",
           "grid_composed_curve"]

_NAMES = {_core.PLUS: ("plus",), _core.MINUS: ("minus",), _core.MAX: ("plus", "minus")}


_Arrayish = Union[NDArray[Any], Sequence[float], Sequence[Sequence[float]]]
# (lower, upper) of an array of values, of one value or of either
_Pairs = Tuple[NDArray[np.float64], NDArray[np.float64]]
_Bounds = Union[Tuple[float, float], _Pairs]


class ComposedCurve(PrivacyCurve):
    """The curve of a composition (statpriv.compose): delta is the upper end of
    a bracket of the true composed curve, ``delta_bounds`` and
    ``epsilon_bounds`` give both ends.

    Built by ``statpriv.compose``, ``PrivacyCurve.compose`` and
    ``Accountant.curve``, not directly.

    Examples
    --------
    >>> import statpriv
    >>> composed = statpriv.compose(statpriv.counting(100, 0.5), times=3)
    >>> composed.parts
    ((<PrivacyCurve counting n=100, pi=0.5>,), 3)
    """

    def __init__(self, pld: Any, reference: Optional[Reference], description: str,
                 parts: Tuple[Tuple[PrivacyCurve, ...], int], *, core: Any = None,
                 grid_sides: Optional[Dict[Tuple[str, bool], Any]] = None,
                 counts: Optional[Tuple[int, ...]] = None) -> None:
        super().__init__(_pld.PLDCore(pld) if core is None else core, reference, description,
                         laws=pld)
        self._parts = parts
        self._grid_sides = grid_sides
        self._counts = (1,) * len(parts[0]) if counts is None else tuple(counts)

    @property
    def parts(self) -> Tuple[Tuple[PrivacyCurve, ...], int]:
        """(curves, times): the composition of ``times`` runs of the curves
        (each curve ``counts[i]`` times per run)."""
        return self._parts

    @property
    def counts(self) -> Tuple[int, ...]:
        """How many times each of ``parts[0]`` enters one run (all 1 for
        statpriv.compose; an Accountant's releases of one curve add up)."""
        return self._counts

    @property
    def grid_sides(self) -> Optional[Dict[Tuple[str, bool], Any]]:
        """{(direction, upper): ComposedSide} of a composition on a grid (None
        for an exact product): statpriv.accounting.composition.grid."""
        return self._grid_sides

    @overload
    def delta_bounds(self, eps: float, direction: str = "max") -> Tuple[float, float]: ...
    @overload
    def delta_bounds(self, eps: _Arrayish,
                     direction: str = "max") -> _Pairs: ...
    @overload
    def delta_bounds(self, eps: ArrayLike,
                     direction: str = "max") -> _Bounds: ...

    def delta_bounds(self, eps: ArrayLike,
                     direction: str = "max") -> _Bounds:
        """(lower, upper): the true delta(eps) of the composition lies in between.

        On a grid: upper = delta(eps), the composition of the parts'
        pessimistic measures (never below the true curve), lower = the
        composition of their optimistic ones (never above it), each with its
        truncated tails, wrap-around and round-off bounded (the upper side
        adds them, the lower side subtracts them).  For exact compositions
        both are the exact value up to floating-point rounding.

        Parameters
        ----------
        eps : float or array of floats
            The eps at which delta is wanted.
        direction : {"max", "plus", "minus"}, optional
            delta = max(delta_plus, delta_minus) (default), or one direction.

        Returns
        -------
        tuple
            (lower, upper), floats or arrays of the shape of ``eps``.

        Examples
        --------
        >>> import statpriv
        >>> composed = statpriv.compose(statpriv.counting(100, 0.5), times=3)
        >>> lower, upper = composed.delta_bounds(0.5)
        >>> print(f"{lower:.4e} <= delta <= {upper:.4e}")
        1.5044e-02 <= delta <= 1.5054e-02
        """
        _validate.choice("direction", direction, ("plus", "minus", "max"))
        if self._grid_sides is None:
            return self.laws.delta_lower_bound(eps, direction), self.laws.delta(eps, direction)
        arr = _validate.real_array("eps", eps, allow_inf=True)
        names = ("plus", "minus") if direction == "max" else (direction,)
        flat = arr.ravel()
        # (a scalar through libm's exp, an array through numpy's: as the
        # curve's own delta, so that upper == delta(eps) to the bit)
        sides = self._grid_sides
        bounds = tuple(math.exp(float(e[0])) if arr.ndim == 0 else np.exp(e).reshape(arr.shape)
                       for e in _bracket_of_max(
                           lambda d, upper, x: sides[(d, upper)].log_delta(x), names, flat,
                           beside=lambda a, b, x: _beside(sides[(a, True)], sides[(b, True)],
                                                          eps=x)))
        return cast(_Bounds, bounds)

    @overload
    def epsilon_bounds(self, delta: float, direction: str = "max") -> Tuple[float, float]: ...
    @overload
    def epsilon_bounds(self, delta: _Arrayish,
                       direction: str = "max") -> _Pairs: ...
    @overload
    def epsilon_bounds(self, delta: ArrayLike,
                       direction: str = "max") -> _Bounds: ...

    def epsilon_bounds(self, delta: ArrayLike,
                       direction: str = "max") -> _Bounds:
        """(lower, upper): the true smallest eps with delta(eps) <= delta lies in
        between; upper = epsilon(delta) (from the upper side, rounded up), lower
        from the lower side (rounded down).  Exact compositions: both ends are
        epsilon(delta).  Within about 4 n u of delta = 1 (n: the grid points of
        the read-back window, u = 2^-53; the lower side's suffix sums are
        lowered by that rounding bound) the lower end is 0 (docs/composition.md,
        "Near delta = 1").

        Parameters
        ----------
        delta : float in [0, 1] or array of floats
            The target delta.
        direction : {"max", "plus", "minus"}, optional
            delta = max(delta_plus, delta_minus) (default), or one direction.

        Returns
        -------
        tuple
            (lower, upper), floats or arrays of the shape of ``delta``.

        Examples
        --------
        >>> import statpriv
        >>> composed = statpriv.compose(statpriv.counting(100, 0.5), times=3)
        >>> lower, upper = composed.epsilon_bounds(1e-3)
        >>> print(f"{lower:.4f} <= eps <= {upper:.4f}")
        0.8826 <= eps <= 0.8828
        """
        _validate.choice("direction", direction, ("plus", "minus", "max"))
        arr = _validate.real_array("delta", delta, low=0.0, high=1.0)
        if self._grid_sides is None:
            value = self.epsilon(arr, direction)
            return value, value
        with np.errstate(divide="ignore"):
            logs = np.log(arr).ravel()
        names = ("plus", "minus") if direction == "max" else (direction,)
        ends = [np.where(logs >= 0.0, 0.0, np.maximum(eps, 0.0)).reshape(arr.shape)
                for eps in _epsilon_bracket(self._grid_sides, names, logs)]
        return cast(_Bounds, tuple(float(e[()]) if arr.ndim == 0 else e for e in ends))

    @overload
    def discretization_error(self, eps: float, direction: str = "max") -> float: ...
    @overload
    def discretization_error(self, eps: _Arrayish,
                             direction: str = "max") -> NDArray[np.float64]: ...
    @overload
    def discretization_error(self, eps: ArrayLike,
                             direction: str = "max") -> Union[float, NDArray[np.float64]]: ...

    def discretization_error(self, eps: ArrayLike,
                             direction: str = "max") -> Union[float, NDArray[np.float64]]:
        """upper - lower of ``delta_bounds``: a bound on how far delta(eps) is
        above the true value.

        Parameters
        ----------
        eps : float or array of floats
            The eps at which delta is wanted.
        direction : {"max", "plus", "minus"}, optional
            delta = max(delta_plus, delta_minus) (default), or one direction.

        Returns
        -------
        float or numpy.ndarray
            upper - lower.

        Examples
        --------
        >>> import statpriv
        >>> composed = statpriv.compose(statpriv.counting(100, 0.5), times=3)
        >>> print(f"{composed.discretization_error(0.5):.1e}")
        1.0e-05
        """
        lower, upper = self.delta_bounds(eps, direction)
        return upper - lower

    @overload
    def renyi(self, alpha: float, direction: str = "max") -> float: ...
    @overload
    def renyi(self, alpha: _Arrayish, direction: str = "max") -> NDArray[np.float64]: ...
    @overload
    def renyi(self, alpha: ArrayLike,
              direction: str = "max") -> Union[float, NDArray[np.float64]]: ...

    def renyi(self, alpha: ArrayLike, direction: str = "max") -> Union[float, NDArray[np.float64]]:
        """D_alpha of the composition: the sum of the parts' divergences, exactly
        (D_alpha(P1 x P2 || Q1 x Q2) = D_alpha(P1||Q1) + D_alpha(P2||Q2)), no grid,
        direction by direction (see PrivacyCurve.renyi).

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
        >>> composed = statpriv.compose(statpriv.counting(100, 0.5), times=3)
        >>> composed.renyi(0.5) == 3 * statpriv.counting(100, 0.5).renyi(0.5)
        True
        """
        _validate.choice("direction", direction, ("plus", "minus", "max"))
        curves, times = self._parts
        sides = ("plus", "minus") if direction == "max" else (direction,)
        with np.errstate(invalid="ignore"):
            sums = [times * sum(k * np.asarray(c.renyi(alpha, d), dtype=np.float64)
                                for c, k in zip(curves, self._counts)) for d in sides]
        out = np.maximum.reduce(cast(Any, sums))
        return float(out) if np.ndim(out) == 0 else out


def _asked(log_target: Any) -> Any:
    """The ln targets that ask for a read-back: finite and below 0 (delta = 0
    and delta >= 1 are answered without one)."""
    return log_target[np.isfinite(log_target) & (log_target < 0.0)]


def _epsilon_bracket(sides: Any, names: Any, logs: Any, upper_only: bool = False) -> Any:
    """_bracket_of_max of the grid sides' epsilon at each ln target: where an
    upper side has a tilt still to read back, the direction estimated
    largest read back first, another one skipped where Chernoff's bound
    already places it below (``_within``), or read back beside the first in
    a second thread where it will be needed (``_beside``); where every tilt
    asked for is read back already, the directions one after the other
    (microseconds each: no estimate, bound or thread pays)."""
    def side_value(d: str, upper: bool, x: Any) -> Any:
        return sides[(d, upper)].epsilon(x)
    finite = _asked(logs)
    if len(names) < 2 or finite.size == 0 or not any(
            sides[(d, True)].pending(log_target=finite) for d in names):
        return _bracket_of_max(side_value, names, logs, upper_only=upper_only)

    def within(d: str, x: Any, eps: Any) -> Any:
        side = sides[(d, True)]
        return (_within(side, x, eps) if side.pending(log_target=_asked(x))
                else np.zeros(np.shape(x), dtype=bool))
    return _bracket_of_max(side_value, _largest_first(sides, names, logs), logs, within=within,
                           beside=lambda a, b, x: _beside(sides[(a, True)], sides[(b, True)], x),
                           upper_only=upper_only)


def _largest_first(sides: Any, names: Any, logs: Any) -> Any:
    """The directions ordered by their upper sides' saddle-point estimates of
    eps at the largest finite target, the largest first (``_bracket_of_max``
    reads that one back first)."""
    finite = _asked(logs)
    if len(names) < 2 or finite.size == 0:
        return names
    target = float(np.max(finite))
    return tuple(sorted(names, key=lambda d: -sides[(d, True)].estimate(target)))


def _within(side: Any, log_target: Any, eps: Any) -> Any:
    """Where ``side``'s epsilon at each target is proven at most ``eps``
    without reading it back: its Chernoff bound at eps is already below the
    target (ComposedSide.chernoff_log_delta, a bound of the measure this
    side composes; an upper side's delta is at least that measure's, and
    its epsilon only matters where it is larger than eps)."""
    ok = np.isfinite(eps) & np.isfinite(log_target)
    out = np.zeros(np.shape(eps), dtype=bool)
    if ok.any():
        # (a margin of 1e-9 nats for the bound's own rounding)
        out[ok] = side.chernoff_log_delta(eps[ok]) <= log_target[ok] - 1e-9
    return out


def _beside(first: Any, other: Any, log_target: Any = None, eps: Any = None) -> bool:
    """Whether ``other``'s upper side is read back in a second thread while
    ``first``'s is, for a query of epsilon at ``log_target`` (or of delta at
    ``eps``): where the two share no part measure (each has its own tilts,
    read-backs and entries in the transforms' cache; the transforms, the
    power and the kernels run without the GIL), both have a tilt still to
    read back (else the query takes microseconds, less than a thread's
    start), and, for epsilon, Chernoff's bound of ``other`` at ``first``'s
    estimated eps does not place it below (it will be read back anyway: both
    directions of an asymmetric count)."""
    if first is other:
        return False
    mine = {id(g) for g, _ in first.parts}
    if any(id(g) in mine for g, _ in other.parts):
        return False
    if eps is not None:
        return bool(first.pending(eps=eps) and other.pending(eps=eps))
    finite = _asked(log_target)
    if finite.size == 0 or not (first.pending(log_target=finite)
                                and other.pending(log_target=finite)):
        return False
    estimate = first.estimate(float(np.max(finite)))
    return not bool(np.all(_within(other, finite, np.full(finite.shape, estimate))))


def _bracket_of_max(side_value: Any, names: Any, x: Any, within: Any = None,
                    beside: Any = None, upper_only: bool = False) -> Any:
    """(lower, upper) of the larger of the directions' values at each x, where
    side_value(direction, upper, x) gives one side's value (both
    non-decreasing in the side: lower <= truth <= upper).  The upper end
    is the max of the upper sides.  The lower side of the direction whose
    upper is the smaller is computed only where that upper is above the
    other direction's lower: elsewhere its lower (<= its upper) cannot
    raise the max, which is then the other's lower -- the same numbers
    without building that side (its measures, tilts and transforms: about
    a third of a DP-SGD bracket's time).

    ``within(direction, x, value)``, if given: where that direction's true
    value is proven at most ``value`` (the max of the directions before it)
    without its upper side; there the upper side is not read back (the max
    and its bracket are the earlier directions': their lower end is at most
    the true max, their upper end at least it) -- the smaller direction of a
    DP-SGD step, whose read-back was a fifth of its bracket's time.
    ``beside(first, other, x)``, if given for two directions: True to read
    the other's upper side in a second thread while the first's is read
    (both are then computed in full: the same values).
    ``upper_only``: (None, upper), no lower side."""
    uppers: List[Any] = []
    if len(names) == 2 and beside is not None and beside(names[0], names[1], x):
        other = _threads.in_thread(side_value, names[1], True, x)
        try:
            uppers.append(np.asarray(side_value(names[0], True, x), dtype=np.float64))
        finally:
            second = other()
        uppers.append(np.asarray(second, dtype=np.float64))
    for d in names[len(uppers):]:
        u = np.full(np.shape(x), -np.inf)
        need = (~within(d, x, np.maximum.reduce(uppers)) if uppers and within is not None
                else np.ones(np.shape(x), dtype=bool))
        if need.all():
            u = np.asarray(side_value(d, True, x), dtype=np.float64)
        elif need.any():
            u[need] = side_value(d, True, x[need])
        uppers.append(u)
    upper = np.maximum.reduce(uppers)
    if upper_only:
        return None, upper
    first = int(np.argmax([np.sum(u == upper) for u in uppers]))
    lower = np.array(side_value(names[first], False, x), dtype=np.float64)
    for i, d in enumerate(names):
        need = (uppers[i] > lower) if i != first else np.zeros(x.shape, dtype=bool)
        if need.any():
            lower[need] = np.maximum(lower[need], side_value(d, False, x[need]))
    return lower, upper


class _GridCore:
    """The curve core (log_delta / epsilon by direction code) of a grid
    composition: the upper sides' read-backs."""

    def __init__(self, sides: Any) -> None:
        self.sides = sides

    def log_delta(self, eps: Any, direction: Any) -> Any:
        return np.maximum.reduce([self.sides[(d, True)].log_delta(eps)
                                  for d in _NAMES[direction]])

    def epsilon(self, log_target: Any, direction: Any) -> Any:
        log_target = np.asarray(log_target, dtype=np.float64)
        out = np.empty(log_target.shape)
        out.flat[:] = _epsilon_bracket(self.sides, _NAMES[direction], log_target.ravel(),
                                       upper_only=True)[1]
        out[np.asarray(log_target) >= 0.0] = 0.0        # delta <= 1 everywhere
        return np.maximum(out, 0.0)


class _GridLaws:
    """What a grid composition knows of its laws: its privacy-loss
    distribution, assembled from every tilt's read-back (the tightest bound
    per grid point), the optimistic one as its ``optimistic``."""

    has_log_pmfs = False

    def __init__(self, sides: Any, h: Any, description: Any,
                 parts: Tuple[Sequence[PrivacyCurve], int, Optional[Tuple[int, ...]]]) -> None:
        self.sides, self.h, self.description = sides, h, description
        self.parts = parts              # (curves, times, counts): certified_laws
        self._pld = None

    def privacy_loss_distribution(self, value_discretization_interval: Any = None,
                                  tail_mass_truncation: Any = None, description: Any = None) -> Any:
        if self._pld is None:
            self._check_cost()

            def pld(upper: Any, optimistic: Any = None) -> Any:
                return _pld.PrivacyLossDistribution(
                    self.sides[("plus", upper)].assembled(),
                    self.sides[("minus", upper)].assembled(), exact=False,
                    discretization=self.h, description=self.description, optimistic=optimistic)
            self._pld = pld(True, pld(False))
        return self._pld

    def _check_cost(self) -> None:
        """Refuse, before it is built, a distribution predicted to cost more than
        statpriv.laws.grid_pld.MAX_SECONDS of CPU: it reads the composition back
        at every tilt of every side (a query reads back one or two; 3 x
        dp.gaussian(0.5) with tail_mass_truncation=1e-300 needs 78 a side,
        ~31 ms each).  One read-back a side is timed (and kept) and the side's
        others are priced alike."""
        from statpriv.laws import grid_pld
        seconds, count, seen = 0.0, 0, set()
        for key in [(d, upper) for upper in (True, False) for d in ("plus", "minus")]:
            side = self.sides[key]        # (a lower side is made when first asked for)
            missing = side.missing_readbacks()
            if not missing or id(side) in seen:     # (a symmetric composition shares)
                continue
            seen.add(id(side))
            seconds += grid_pld.timed(side.readback, missing[0])[1] * len(missing)
            count += len(missing)
            if seconds > grid_pld.MAX_SECONDS:
                raise ValueError(
                    f"{self.description}: its privacy-loss distribution reads the composition "
                    f"back at {count}+ tilts, predicted to cost about {seconds:.3g} s of CPU, "
                    f"more than statpriv.laws.grid_pld.MAX_SECONDS = {grid_pld.MAX_SECONDS:g}; "
                    "query its delta / epsilon directly (one or two tilts each), or compose "
                    "with a larger epsilon_error or tail_mass_truncation")

    def log_pmfs(self) -> None:
        raise ValueError("no discrete laws are available for this curve (a composition on a grid)")

    def certified_laws(self) -> Any:
        """The exact product of the parts in Arb (certified_product): the
        grid's delta is a bound above the composition, the product's sum
        the composition itself."""
        return certified_product(*self.parts)


def check_curves(curves: Any, times: Any) -> Any:
    if not curves:
        raise ValueError("compose needs at least one curve")
    for i, c in enumerate(curves):
        if not isinstance(c, PrivacyCurve):
            raise _validate.ParameterTypeError(
                f"curves[{i}] must be a PrivacyCurve, got {type(c).__name__}")
    return _validate.count("times", times, low=1, high=10 ** 9)


def certified_product(curves: Sequence[PrivacyCurve], times: int,
                      counts: Optional[Tuple[int, ...]] = None) -> Any:
    """The composition's laws in Arb for delta_interval: the product of the
    parts' certified laws (statpriv.oracle.arb.ProductLaws; each curve
    counts[i] times per run, times runs), or None where a part has none
    as discrete laws (Gaussian or Laplace mechanisms, noisy counts,
    labelled approximations)."""
    counts = (1,) * len(curves) if counts is None else counts
    factors = []
    for curve, count in zip(curves, counts):
        source = getattr(curve.laws, "certified_laws", None)
        laws = source() if source is not None and curve.exact else None
        factor = None if laws is None else laws.factor()
        if factor is None:
            return None
        factors.append((factor, count * times))
    from statpriv.oracle import arb
    return arb.ProductLaws(factors)


def description(curves: Any, times: Any) -> Any:
    inner = " + ".join(c.description for c in curves)
    return f"composition of [{inner}]" + (f" x {times}" if times > 1 else "")


def _reference(curves: Any, times: Any) -> Any:
    """The mpmath reference of a composition of discrete laws (oracle.composed_delta)."""
    if any(c.laws is None or not c.laws.has_log_pmfs for c in curves):
        return None

    def ref(eps_list: Any, direction: Any) -> Any:
        from statpriv import oracle
        laws = [c.log_pmfs() for c in curves] * times
        return oracle.composed_delta([(x.log_p, x.log_q) for x in laws], eps_list, direction)
    return ref


def composed_curve(pld: Any, curves: Sequence[PrivacyCurve], times: int,
                   what: str) -> ComposedCurve:
    """The ComposedCurve of a composed PLD (Renyi divergences add up over the parts)."""
    return ComposedCurve(pld, _reference(curves, times), what, (tuple(curves), times))


def grid_composed_curve(sides: Any, h: float, curves: Sequence[PrivacyCurve], times: int,
                        counts: Optional[Tuple[int, ...]] = None,
                        what: Optional[str] = None) -> ComposedCurve:
    """The ComposedCurve of a grid composition (statpriv.accounting.composition.grid);
    ``counts``: each curve's multiplicity within one run (default 1 each)."""
    what = description(curves, times) if what is None else what
    reference = _reference(curves, times) if counts is None else None
    return ComposedCurve(_GridLaws(sides, h, what, (curves, times, counts)), reference, what,
                         (tuple(curves), times), core=_GridCore(sides), grid_sides=sides,
                         counts=counts)
