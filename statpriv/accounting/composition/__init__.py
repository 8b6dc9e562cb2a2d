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

* ``compose(*curves, times=k)``: the tight composition on a grid h Z
  (statpriv.accounting.composition.grid).  Each part gives a measure on
  the grid whose delta is above its curve at every eps and one below
  (connect-the-dots of the curve's own delta, statpriv.laws.grid_pld); both
  are composed in the Fourier domain, tilted so that the tail a query asks
  for is computed to full relative precision
  (statpriv.accounting.composition.fourier), with the truncated tails, the
  wrap-around of the circular convolution and the round-off bounded --
  added to the upper side, subtracted from the lower side.  The curve's
  delta is the upper side; ``delta_bounds`` / ``epsilon_bounds`` give both.
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
from __future__ import annotations

from typing import Any, Optional, cast

import numpy as np

from statpriv import _validate
from statpriv.accounting.composition.composed import ComposedCurve, check_curves
from statpriv.accounting.composition.exact import (EXACT_MAX_ATOMS, EXACT_PRODUCT_ATOMS,
                                                   compose_exact)
from statpriv.accounting.composition.grid import (DEFAULT_DELTA_ERROR, DEFAULT_EPSILON_ERROR,
                                                  MAX_GRID, compose_on_grid)
from statpriv.accounting.composition.guarantees import (basic_composition,
                                                        bounded_dependency_composition)
from statpriv.curve import PrivacyCurve
from statpriv.curve.recipe import factory

__all__ = ["ComposedCurve", "DEFAULT_DELTA_ERROR", "DEFAULT_EPSILON_ERROR", "EXACT_MAX_ATOMS",
           "EXACT_PRODUCT_ATOMS", "MAX_GRID",
           "basic_composition", "bounded_dependency_composition", "compose"]


@factory
def compose(*curves: PrivacyCurve, times: int = 1,
            value_discretization_interval: Optional[float] = None,
            tail_mass_truncation: Optional[float] = None, exact: bool = False,
            epsilon_error: Optional[float] = None,
            delta_error: Optional[float] = None) -> ComposedCurve:
    """Privacy curve of mechanisms on independent data run together.

    ``compose(c1, c2, ...)`` composes the curves, ``compose(c, times=k)`` k
    runs of c (and ``compose(c1, c2, times=k)`` k runs of the pair).  The
    joint laws are the products P_1 x P_2 x ... and Q_1 x Q_2 x ...
    (Desfontaines et al., "Differential privacy with partial knowledge",
    Prop. 9: mechanisms on independent parts of the data), so the loss of
    the composition is the sum of the parts' losses, direction by direction:

        delta_plus(eps) = E[(1 - e^(eps - L_1 - L_2 - ...))_+],  L_i ~ PLD_i (plus).

    Each part gives two measures on the loss grid h Z, one whose delta is
    above its curve at every eps and one below (connect-the-dots of the
    curve's own delta: statpriv.laws.grid_pld); both are composed in the
    Fourier domain (one FFT per part, a power, one inverse: not k
    convolutions) with every truncation, the wrap-around and the round-off
    bounded (statpriv.accounting.composition.fourier, docs/composition.md).

    Parameters
    ----------
    *curves : PrivacyCurve
        Any curve with a privacy-loss distribution: counts (with or without
        noise, sampled, per-record, secret sample), from_log_pmfs, every
        statpriv.dp curve, thresholded counts, the k-anonymity upper curve,
        the shuffle clones, compositions (their parts are composed again).
    times : int in [1, 10^9]
        Number of runs of the whole list.
    value_discretization_interval : float in (0, 1], optional
        The grid spacing h; default: chosen from ``epsilon_error``.
    tail_mass_truncation : float in (0, 0.5], optional
        Per part and direction, where its grid ends: the pessimistic side
        keeps at most this much above the grid at +inf.  Default
        delta_error / (4 K) for K mechanisms.
    exact : bool
        True: the exact product PLD of two curves (``compose(a, b, exact=True)``
        or ``compose(a, times=2, exact=True)``) with at most EXACT_MAX_ATOMS
        atoms per direction each, no grid.
    epsilon_error : float in (0, 1], optional
        The width in eps of the bracket aimed at (absolute, as prv-accountant's
        eps_error), default 1e-5: h is chosen so that connect-the-dots'
        error, which adds up over the K parts, stays about there at delta
        near 1e-12 (the bracket itself is certified whatever h is).  Where
        that grid does not fit (every part's grid in
        statpriv.laws.grid_pld.MAX_GRID points per direction, the composed
        window in the largest FFT) h is coarsened until it does, and the
        bracket is wider than epsilon_error.
    delta_error : float in (0, 0.01], optional
        The mass the truncations may add to delta in all (default 1e-15):
        the tails beyond the parts' grids.

    Returns
    -------
    ComposedCurve
        A PrivacyCurve: delta(eps) is the upper end of the bracket (never
        below the true curve), ``delta_bounds(eps)`` and
        ``epsilon_bounds(delta)`` give (lower, upper) with the true value
        inside, ``privacy_loss_distribution()`` the composed PLD.

    Examples
    --------
    >>> import statpriv
    >>> g = statpriv.compose(statpriv.dp.gaussian(4.0), times=16)  # = gaussian(1.0)
    >>> print(f"{g.delta(1.0):.6f} {statpriv.dp.gaussian(1.0).delta(1.0):.6f}")
    0.126937 0.126937
    """
    times = check_curves(curves, times)
    if not isinstance(exact, (bool, np.bool_)):
        raise _validate.ParameterTypeError(f"exact must be True or False, got {exact!r}")
    tail = tail_mass_truncation
    if tail is not None:
        tail = _validate.real("tail_mass_truncation", tail, low=0.0, high=0.5, low_open=True)
    if exact:
        return compose_exact(curves, times)
    h = value_discretization_interval
    if h is not None:
        # a coarser grid moves every loss by > 1 nat
        h = _validate.real("value_discretization_interval", h, low=0.0, high=1.0, low_open=True)
        if epsilon_error is not None:
            raise ValueError("give value_discretization_interval or epsilon_error, not both "
                             "(epsilon_error chooses the grid)")
    epsilon_error = DEFAULT_EPSILON_ERROR if epsilon_error is None else _validate.real(
        "epsilon_error", epsilon_error, low=0.0, high=1.0, low_open=True)
    delta_error = DEFAULT_DELTA_ERROR if delta_error is None else _validate.real(
        "delta_error", delta_error, low=0.0, high=0.01, low_open=True)
    return cast(ComposedCurve,
                compose_on_grid(curves, times, h, tail, epsilon_error, delta_error))


PrivacyCurve._composer = compose
