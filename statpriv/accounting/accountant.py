"""A privacy accountant: releases composed as they happen, one budget across restarts.

``Accountant(relation="add_remove")`` keeps the releases made so far --
each a curve and how many times it was run -- and answers ``delta(eps)``,
``epsilon(delta)`` and their certified brackets (``delta_bounds``,
``epsilon_bounds``) for their composition (statpriv.compose's grid
composition, statpriv.accounting.composition.grid).

The grid is chosen at query time the way statpriv.compose chooses it for
the releases made so far (``epsilon_error`` over at least
``expected_releases`` releases; the window's room from the loss's spread
measured on the grid, which a heavy-tailed loss -- a sampled Gaussian --
needs: its spread from the tails is 100x its bulk), unless
``value_discretization_interval`` fixes it.  Once chosen it stays put
while compose's choice for the releases is within a factor 2^(1/4) finer
or 2 coarser (the bracket's width goes as h^2: at most sqrt(2) x
compose's), so each
distinct curve is put on it once: its pessimistic and optimistic measures
(connect-the-dots of its own delta) are built at its first query and kept.
One more release of a curve already seen is a count raised by one -- in
the Fourier domain a power one higher, no measure rebuilt; the parts'
tilted transforms are kept too, so that a query after it costs the powers
and their product, no forward FFT, while the tilt and the FFT size the
query needs stay the same (they are rounded so that they do:
statpriv.accounting.composition.grid and .fourier).  Past the factor the
grid is chosen again and every part rebuilt on it.  The per-part truncated
tails are sized for ``expected_releases`` releases (delta_error / (4
expected_releases) each) and their sum is added to delta whatever the
count: past ``expected_releases`` the bracket stays certified, only wider
than ``epsilon_error``.

The state pickles as its settings, the grid last chosen and the (curve,
count) list: curves pickle by rebuilding from their factory call
(statpriv.curve.recipe), and the grid's choice depends on nothing else, so
a restored accountant answers exactly what the saved one did.

``relation`` is the neighbouring relation of the budget: a release whose
curve says it was built under the other (dp.gaussian(...,
relation="replace_one") in an add/remove accountant) is refused.  Counting
curves are the same under both (the target's record changes the count by
one either way).
"""
from __future__ import annotations

from typing import Any, Dict, Hashable, List, Optional, Sequence, Tuple, Union, cast, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from statpriv import _validate
from statpriv.accounting.composition import composed as _composed
from statpriv.accounting.composition import grid as _grid
from statpriv.curve import PrivacyCurve
from statpriv.curve.recipe import Recipe, neighbouring_relation

_Arrayish = Union[NDArray[Any], Sequence[float], Sequence[Sequence[float]]]
# (lower, upper) of an array of values, of one value or of either
_Pairs = Tuple[NDArray[np.float64], NDArray[np.float64]]
_Bounds = Union[Tuple[float, float], _Pairs]

__all__ = ["Accountant", "RELATIONS"]

RELATIONS = ("add_remove", "replace_one")
# the grid stays while compose's choice t for the releases has t / 2 <= h <=
# t 2^(1/4): the bracket's width goes as h^2, so at most sqrt(2) x compose's; a
# finer grid only costs time, up to 2x (its FFTs are longer).  With h ~ K^(-1/2)
# for K releases it is re-chosen each time the releases grow by sqrt(2)
_KEEP_COARSER = 2.0 ** 0.25
_KEEP_FINER = 2.0


class Accountant:
    """Releases composed as they happen (see the module docstring).

    Parameters
    ----------
    relation : {"add_remove", "replace_one"}
        The neighbouring relation of the budget (dp-accounting's default
        add/remove).
    epsilon_error : float in (0, 1], keyword only
        The bracket's width in eps aimed at, up to ``expected_releases``
        releases (default 1e-5).
    delta_error : float in (0, 0.01], keyword only
        The truncated mass that may be added to delta in all (default 1e-15).
    expected_releases : int in [1, 10^9], keyword only
        How many releases the grid and the tails are sized for (default 1000).
    value_discretization_interval : float in (0, 1], optional, keyword only
        The grid spacing h (instead of choosing it from ``epsilon_error``).

    Examples
    --------
    >>> import statpriv
    >>> acc = statpriv.Accountant()
    >>> step = statpriv.dp.gaussian(4.0)
    >>> for _ in range(16):
    ...     acc = acc.compose(step)
    >>> print(f"{acc.delta(1.0):.6f}")     # 16 x gaussian(4) = gaussian(1)
    0.126937
    """

    def __init__(self, relation: str = "add_remove", *, epsilon_error: Optional[float] = None,
                 delta_error: Optional[float] = None, expected_releases: int = 1000,
                 value_discretization_interval: Optional[float] = None) -> None:
        self.relation = _validate.choice("relation", relation, RELATIONS)
        self.expected_releases = _validate.count("expected_releases", expected_releases,
                                                 low=1, high=10 ** 9)
        self.epsilon_error = _grid.DEFAULT_EPSILON_ERROR if epsilon_error is None else \
            _validate.real("epsilon_error", epsilon_error, low=0.0, high=1.0, low_open=True)
        self.delta_error = _grid.DEFAULT_DELTA_ERROR if delta_error is None else \
            _validate.real("delta_error", delta_error, low=0.0, high=0.01, low_open=True)
        h = value_discretization_interval
        if h is not None:
            if epsilon_error is not None:
                raise ValueError("give value_discretization_interval or epsilon_error, not "
                                 "both (epsilon_error chooses the grid)")
            h = _validate.real("value_discretization_interval", h, low=0.0, high=1.0,
                               low_open=True)
        self._fixed_h = h is not None
        self._h = h
        self._releases: List[List[Any]] = []          # [curve, count]
        # key -> its loss reach (grid.loss_reach), any grid
        self._reaches: Dict[Hashable, Any] = {}
        self._clear_grid()

    def _clear_grid(self) -> None:
        """Forget everything built on the grid h (a new h rebuilds it)."""
        self._brackets: Dict[Hashable, Any] = {}          # key -> Bracket on the grid
        # key -> its loss variance on the grid (grid.loss_variance)
        self._variances: Dict[Hashable, float] = {}
        # the parts' tilted transforms (fourier.Spectrum.multiply)
        self._transforms: Dict[Any, Any] = {}
        self._curve: Optional[_composed.ComposedCurve] = None

    @property
    def tail(self) -> Any:
        """The tail mass each part's grid may leave beyond its end."""
        return self.delta_error / (4.0 * self.expected_releases)

    @property
    def releases(self) -> Any:
        """((curve, count), ...): the releases so far, one entry per distinct curve."""
        return tuple((c, k) for c, k in self._releases)

    @property
    def value_discretization_interval(self) -> Any:
        """The grid spacing h (None until the first query chooses it)."""
        return self._h

    def _sized_parts(self) -> Any:
        """[(curve, count)] with the counts scaled up to ``expected_releases`` in
        all: the grid is sized for at least that many releases, so that it
        stays put while they are made."""
        total = sum(k for _, k in self._releases)
        scale = max(1.0, self.expected_releases / total)
        return [(c, k * scale) for c, k in self._releases]

    def _bracket(self, curve: Any) -> Any:
        key = _key(curve)
        if key not in self._brackets:
            self._brackets[key] = _grid.part_bracket(curve, self._h, self.tail)
        return self._brackets[key]

    def _choose_grid(self) -> None:
        """h for the releases so far: compose's choice (statpriv.compose: rough
        from the parts' tails, refined once they are on that grid), kept while
        that choice stays near it (_KEEP_COARSER, _KEEP_FINER).  A function of h
        and the releases only (a restored accountant decides the same)."""
        if self._fixed_h:
            return
        parts = self._sized_parts()
        reaches = []
        for c, _ in parts:
            key = _key(c)
            if key not in self._reaches:
                self._reaches[key] = _grid.loss_reach(c, self.tail)
            reaches.append(self._reaches[key])
        rough = _grid.choose_interval(parts, self.epsilon_error, self.tail, reaches=reaches)
        first = self._h is None
        if first:
            self._h = rough
        variances = []
        for c, _ in parts:
            key = _key(c)
            if key not in self._variances:
                self._variances[key] = _grid.loss_variance(self._bracket(c), self._h)
            variances.append(self._variances[key])
        # compose's choice: the first time to the bit (refined from the rough
        # grid); after it measured on this grid (the loss's variance hardly
        # depends on h)
        target = _grid.refined_interval(parts, self.epsilon_error, self.tail, rough, variances,
                                        reaches=reaches)
        if not first and target / _KEEP_FINER <= self._h <= target * _KEEP_COARSER:
            return
        if target != self._h:
            self._h = target
            self._clear_grid()

    def compose(self, curve: PrivacyCurve, times: int = 1) -> "Accountant":
        """Record ``times`` more releases of ``curve``; returns the accountant.

        Parameters
        ----------
        curve : PrivacyCurve
            The curve of one release.
        times : int >= 1, optional
            How many releases of it (default 1).

        Returns
        -------
        Accountant
            This accountant (calls chain).

        Examples
        --------
        >>> import statpriv
        >>> acc = statpriv.Accountant().compose(statpriv.dp.gaussian(2.0), times=10)
        >>> acc.releases
        ((<PrivacyCurve DP gaussian sigma=2.0>, 10),)
        """
        if not isinstance(curve, PrivacyCurve):
            raise _validate.ParameterTypeError(
                f"curve must be a PrivacyCurve, got {type(curve).__name__}")
        times = _validate.count("times", times, low=1, high=_grid.MAX_MECHANISMS)
        held = sum(k for _, k in self._releases)
        if held + times > _grid.MAX_MECHANISMS:
            raise ValueError(f"times: {held:,} releases held, {times:,} more pass the "
                             f"{_grid.MAX_MECHANISMS:,} one composition counts")
        own = neighbouring_relation(curve)
        if own is not None and own != self.relation:
            raise ValueError(f"relation: this accountant counts {self.relation!r} neighbours, "
                             f"but the curve was built with relation={own!r} "
                             f"({curve.description})")
        _grid.require_laws(curve)
        key = _key(curve)
        if all(_key(c) != key for c, _ in self._releases):
            self._releases.append([curve, 0])
        for entry in self._releases:
            if _key(entry[0]) == key:
                entry[1] += times
        self._curve = None
        return self

    def curve(self) -> _composed.ComposedCurve:
        """The composition of the releases so far as a curve.

        Returns
        -------
        ComposedCurve
            A PrivacyCurve whose delta is the upper end of its certified bracket.

        Examples
        --------
        >>> import statpriv
        >>> acc = statpriv.Accountant().compose(statpriv.dp.gaussian(2.0), times=10)
        >>> print(f"{acc.curve().delta(1.0):.6f}")
        0.352518
        """
        if not self._releases:
            raise ValueError("no release has been composed yet (Accountant.compose)")
        if self._curve is None:
            self._choose_grid()
            brackets = [(self._bracket(c), k) for c, k in self._releases]
            # (the transforms are kept across releases: a query after one more
            # release at the same tilt and FFT size -- the common case, tilts and
            # sizes being rounded for it -- costs each part's power and the
            # product, no forward FFT.  A different tilt or size (the loss's
            # spread moved past a rounding step) transforms that part again:
            # the window and the tilt follow the composition, so no spectrum
            # can be kept for every future state)
            sides = _grid.ComposedSides(brackets, self._h, self._transforms)
            curves = tuple(c for c, _ in self._releases)
            counts = tuple(k for _, k in self._releases)
            what = "accountant: " + " + ".join(f"{c.description} x {k}" for c, k in
                                               self._releases)
            curve = _composed.grid_composed_curve(sides, cast(float, self._h), curves, 1,
                                                  counts=counts, what=what)
            # (the curve remembers the state that gives it -- settings, grid,
            # releases -- so that it pickles and compares by value like a
            # factory's curve: statpriv.curve.recipe)
            self._curve = Recipe(_curve_of_state, (self.__getstate__(),), {}).attach(curve)
        return self._curve

    @overload
    def delta(self, eps: float, direction: str = "max") -> float: ...
    @overload
    def delta(self, eps: _Arrayish, direction: str = "max") -> NDArray[np.float64]: ...
    @overload
    def delta(self, eps: ArrayLike,
              direction: str = "max") -> Union[float, NDArray[np.float64]]: ...

    def delta(self, eps: ArrayLike, direction: str = "max") -> Union[float, NDArray[np.float64]]:
        """delta(eps) of the composition (the upper end: never below the truth).

        Parameters
        ----------
        eps : float or array of floats
            The eps at which delta is wanted.
        direction : {"max", "plus", "minus"}, optional
            delta = max(delta_plus, delta_minus) (default), or one direction.

        Returns
        -------
        float or numpy.ndarray
            The upper end of the certified bracket of delta(eps).

        Examples
        --------
        >>> import statpriv
        >>> acc = statpriv.Accountant().compose(statpriv.dp.gaussian(2.0), times=10)
        >>> print(f"{acc.delta(1.0):.6f}")        # 10 x gaussian(2): gaussian(2 / sqrt(10))
        0.352518
        """
        _validate.choice("direction", direction, ("plus", "minus", "max"))
        curve = self.curve()
        return cast(Union[float, NDArray[np.float64]],
                    curve.delta(eps) if direction == "max"
                    else getattr(curve, f"delta_{direction}")(eps))

    @overload
    def epsilon(self, delta: float, direction: str = "max") -> float: ...
    @overload
    def epsilon(self, delta: _Arrayish, direction: str = "max") -> NDArray[np.float64]: ...
    @overload
    def epsilon(self, delta: ArrayLike,
                direction: str = "max") -> Union[float, NDArray[np.float64]]: ...

    def epsilon(self, delta: ArrayLike,
                direction: str = "max") -> Union[float, NDArray[np.float64]]:
        """The smallest eps with delta(eps) <= delta (never below the truth).

        Parameters
        ----------
        delta : float in [0, 1] or array of floats
            The target delta.
        direction : {"max", "plus", "minus"}, optional
            delta = max(delta_plus, delta_minus) (default), or one direction.

        Returns
        -------
        float or numpy.ndarray
            eps, the upper end of the certified bracket of epsilon(delta).

        Examples
        --------
        >>> import statpriv
        >>> acc = statpriv.Accountant().compose(statpriv.dp.gaussian(2.0), times=10)
        >>> print(f"{acc.epsilon(1e-6):.4f}")
        8.3062
        """
        return self.curve().epsilon(delta, direction)

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
        """(lower, upper) with the true delta(eps) inside.

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
        >>> acc = statpriv.Accountant().compose(statpriv.dp.gaussian(2.0), times=10)
        >>> lower, upper = acc.delta_bounds(1.0)
        >>> print(f"{lower:.7f} <= delta <= {upper:.7f}")
        0.3525180 <= delta <= 0.3525181
        """
        return self.curve().delta_bounds(eps, direction)

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
        """(lower, upper) with the true epsilon(delta) inside.

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
        >>> acc = statpriv.Accountant().compose(statpriv.dp.gaussian(2.0), times=10)
        >>> lower, upper = acc.epsilon_bounds(1e-6)
        >>> print(f"{lower:.5f} <= eps <= {upper:.5f}")
        8.30622 <= eps <= 8.30623
        """
        return self.curve().epsilon_bounds(delta, direction)

    def bounds(self, *, eps: Optional[ArrayLike] = None, delta: Optional[ArrayLike] = None,
               direction: str = "max") -> Tuple[Any, Any]:
        """``delta_bounds(eps)`` or ``epsilon_bounds(delta)``: give exactly one.

        Parameters
        ----------
        eps : float or array of floats, keyword only
            Bracket delta(eps).
        delta : float in [0, 1] or array of floats, keyword only
            Bracket epsilon(delta).
        direction : {"max", "plus", "minus"}, optional
            delta = max(delta_plus, delta_minus) (default), or one direction.

        Returns
        -------
        tuple
            (lower, upper) of delta_bounds or epsilon_bounds.

        Examples
        --------
        >>> import statpriv
        >>> acc = statpriv.Accountant().compose(statpriv.dp.gaussian(2.0), times=10)
        >>> acc.bounds(eps=1.0) == acc.delta_bounds(1.0)
        True
        """
        if (eps is None) == (delta is None):
            raise ValueError("bounds needs exactly one of eps= and delta=")
        if eps is not None:
            return self.delta_bounds(eps, direction)
        return self.epsilon_bounds(cast(ArrayLike, delta), direction)

    def __getstate__(self) -> Dict[str, Any]:
        return dict(relation=self.relation, epsilon_error=self.epsilon_error,
                    delta_error=self.delta_error, expected_releases=self.expected_releases,
                    h=self._h, fixed_h=self._fixed_h,
                    releases=[(c, k) for c, k in self._releases])

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.relation = state["relation"]
        self.epsilon_error, self.delta_error = state["epsilon_error"], state["delta_error"]
        self.expected_releases, self._h = state["expected_releases"], state["h"]
        # (a state saved before the grid was chosen at query time had it fixed)
        self._fixed_h = state.get("fixed_h", self._h is not None)
        self._releases = [[curve, count] for curve, count in state["releases"]]
        self._reaches = {}
        self._clear_grid()

    def __repr__(self) -> str:  # noqa: D105
        total = sum(k for _, k in self._releases)
        return (f"Accountant(relation={self.relation!r}, {total:,} releases of "
                f"{len(self._releases)} curves, h={self._h!r})")


def _curve_of_state(state: Any) -> PrivacyCurve:
    """The curve of an accountant in ``state`` (Accountant.__getstate__): how
    an accountant's curve is rebuilt (pickling)."""
    accountant = Accountant.__new__(Accountant)
    accountant.__setstate__(state)
    return accountant.curve()


def _key(curve: PrivacyCurve) -> Hashable:
    """Two releases of one mechanism share a grid: the same factory call
    (statpriv.curve.recipe), else the same object."""
    recipe = getattr(curve, "_recipe", None)
    if recipe is None:
        return id(curve)
    return (recipe.function.__module__, recipe.function.__qualname__, repr(recipe.args),
            repr(sorted(recipe.kwargs.items())), recipe.then)

