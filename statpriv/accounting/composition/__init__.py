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
  (statpriv.accounting.composition.grid).  Each
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
import numpy as np

from statpriv import _validate
from statpriv.accounting.composition.composed import ComposedCurve, check_curves
from statpriv.accounting.composition.exact import (EXACT_MAX_ATOMS, EXACT_PRODUCT_ATOMS,
                                                   compose_exact)
from statpriv.accounting.composition.grid import MAX_GRID, compose_on_grid
from statpriv.accounting.composition.guarantees import (basic_composition,
                                                        bounded_dependency_composition)
from statpriv.curve.recipe import factory

__all__ = ["ComposedCurve", "EXACT_MAX_ATOMS", "EXACT_PRODUCT_ATOMS", "MAX_GRID",
           "basic_composition", "bounded_dependency_composition", "compose"]


@factory
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
    times = check_curves(curves, times)
    if not isinstance(exact, (bool, np.bool_)):
        raise _validate.ParameterTypeError(f"exact must be True or False, got {exact!r}")
    tail = _validate.real("tail_mass_truncation", tail_mass_truncation, low=0.0, high=0.5,
                          low_open=True)
    if exact:
        return compose_exact(curves, times)
    return compose_on_grid(curves, times, value_discretization_interval, tail)
