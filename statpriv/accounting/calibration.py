"""Calibration: the parameter value at which a mechanism just meets (epsilon, delta).

An accountant's other question: not "what does this mechanism cost" but
"how much noise, how many steps, how large a sample may I afford".  For a
family of curves ``make_curve(value)`` whose delta at epsilon moves
monotonically with the value (more noise: smaller delta; more steps: larger
delta), the feasible values -- delta(epsilon) <= the target -- form an
interval ending at a boundary; ``calibrate`` returns that boundary on its
feasible side: the smallest sigma, the largest number of steps.

The curve's ``delta`` is the number asked (for a composition it is the upper
end of its certified bracket, so the answer is valid, never optimistic).
Five interior values are probed first: feasibility must switch once along
them (a bisection alone never sees a parameter on which delta is not
monotone).  Real parameters are then solved by scipy's brentq on ln
delta(epsilon) - ln target in the switching cell and moved onto the feasible
side; integer parameters (both bounds ints) by bisection on the integers.
"""
from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING, Any, Callable, List, Optional

import numpy as np

from statpriv import _validate

if TYPE_CHECKING:
    from statpriv.curve import PrivacyCurve

__all__ = ["calibrate"]

# The relative tolerance of a real answer: within this of the boundary, on its
# feasible side.
RTOL = 1e-4
# ln delta - ln target is clipped to +-this for brentq (delta = 0: -inf).
_CLIP = 1e3
# Interior values probed before the bisection (the monotonicity check).
SCAN_POINTS = 5


class _Probe:
    """make_curve's feasibility at the values tried, with a monotonicity check
    on them: every value tried on the feasible side of a feasible one must be
    feasible (else the function is not monotone on the bracket)."""

    def __init__(self, make_curve: Callable[[Any], PrivacyCurve], epsilon: float,
                 log_target: float) -> None:
        self.make_curve, self.epsilon, self.log_target = make_curve, epsilon, log_target
        self.feasible_high: Optional[bool] = None          # known once both ends are probed
        self.feasible: List[float] = []
        self.infeasible: List[float] = []

    def excess(self, value: Any) -> Any:
        """ln delta(epsilon) - ln target at ``value`` (clipped, finite)."""
        curve = self.make_curve(value)
        log_delta = float(curve.log_delta(self.epsilon))
        excess = log_delta - self.log_target
        if self.log_target == -math.inf:
            # delta = 0 asked: a step function; -_CLIP (not 0) on the feasible
            # side, else brentq takes a feasible end of the cell as its root
            excess = -_CLIP if log_delta == -math.inf else _CLIP
        self._record(value, excess <= 0.0)
        return min(max(excess, -_CLIP), _CLIP) if not math.isnan(excess) else _CLIP

    def _record(self, value: Any, feasible: Any) -> None:
        (self.feasible if feasible else self.infeasible).append(value)
        if self.feasible_high is None or not (self.feasible and self.infeasible):
            return
        if self.feasible_high:
            bad = max(self.infeasible) >= min(self.feasible)
        else:
            bad = max(self.feasible) >= min(self.infeasible)
        if bad:
            self._not_monotone()

    def _not_monotone(self) -> None:
        raise ValueError(
            "make_curve(value).delta(epsilon) is not monotone in the value on [lower, upper]: "
            f"feasible at {sorted(self.feasible)!r} but not at {sorted(self.infeasible)!r}")


def calibrate(make_curve: Callable[[Any], PrivacyCurve], *, epsilon: float, delta: float,
              lower: float, upper: float) -> float:
    """The value in [lower, upper] at which ``make_curve(value)`` just meets (epsilon, delta).

    The feasible values (``make_curve(value).delta(epsilon) <= delta``) must
    lie on one side of the bracket: the answer is the boundary of that set on
    its feasible side -- the smallest feasible value when the large values are
    feasible (noise: sigma, scale), the largest when the small ones are (the
    number of steps, the sampling rate) -- so ``make_curve(answer)`` meets
    (epsilon, delta).  A real answer is within a relative 1e-4 of the
    boundary (scipy.optimize.brentq on ln delta - ln target, then moved onto
    the feasible side and checked); with int bounds the answer is the exact
    boundary integer (bisection).  With F = {v in [lower, upper] :
    make_curve(v).delta(epsilon) <= delta}:

        answer = inf F  if upper is feasible,   sup F  if lower is,

    for reals up to v* <= answer <= v* (1 + 1e-4) (resp. v* (1 - 1e-4) <=
    answer <= v*), v* the boundary.

    Parameters
    ----------
    make_curve : callable(value) -> PrivacyCurve
        The family, e.g. ``lambda s: statpriv.dp.gaussian(s)``; delta is its
        ``delta(epsilon)`` (a composition's upper end).
    epsilon : float >= 0
    delta : float in [0, 1)
    lower, upper : float or int, lower < upper
        The bracket; ints for an integer parameter (steps, sample sizes).

    Returns
    -------
    float or int
        The boundary value, feasible.

    Raises
    ------
    ValueError
        When both ends of the bracket are feasible or both infeasible (no
        boundary inside: widen it), or when the values tried (the ends, five
        interior values spread over the bracket, then the bisection's) show that
        delta(epsilon) is not monotone in the value on the bracket.

    Examples
    --------
    The smallest sigma of the Gaussian mechanism for (1, 1e-5):

    >>> import statpriv
    >>> sigma = calibrate(lambda s: statpriv.dp.gaussian(s), epsilon=1.0, delta=1e-5,
    ...                   lower=0.1, upper=100.0)
    >>> print(f"{sigma:.4f}", statpriv.dp.gaussian(sigma).delta(1.0) <= 1e-5)
    3.7307 True

    (the exact boundary is 3.73063...: the answer lies above it by less than
    1e-4 relative).  The largest number of runs of ``dp.gaussian(20)`` within
    (1, 1e-5), composed by statpriv.compose -- and by the exact k-fold
    identity, k runs of N(0, sigma^2) being ``dp.gaussian(sigma / sqrt(k))``:

    >>> g = statpriv.dp.gaussian(20.0)
    >>> calibrate(lambda k: statpriv.compose(g, times=k, value_discretization_interval=1e-3),
    ...           epsilon=1.0, delta=1e-5, lower=1, upper=2000)
    28
    >>> calibrate(lambda k: statpriv.dp.gaussian(20.0 / k ** 0.5), epsilon=1.0, delta=1e-5,
    ...           lower=1, upper=2000)
    28
    """
    if not callable(make_curve):
        raise TypeError(f"make_curve must be callable (value -> PrivacyCurve), got "
                        f"{type(make_curve).__name__}")
    epsilon = _validate.real("epsilon", epsilon, low=0.0)
    delta = _validate.real("delta", delta, low=0.0, high=1.0, high_open=True)
    integer = (isinstance(lower, numbers.Integral) and isinstance(upper, numbers.Integral)
               and not isinstance(lower, bool) and not isinstance(upper, bool))
    if integer:
        lower, upper = int(lower), int(upper)
    else:
        lower = _validate.real("lower", lower)
        upper = _validate.real("upper", upper)
    if not lower < upper:
        raise ValueError(f"lower must be below upper, got lower={lower!r}, upper={upper!r}")
    log_target = math.log(delta) if delta > 0.0 else -math.inf
    probe = _Probe(make_curve, epsilon, log_target)
    at_lower, at_upper = probe.excess(lower), probe.excess(upper)
    if (at_lower <= 0.0) == (at_upper <= 0.0):
        side = "meet" if at_lower <= 0.0 else "miss"
        raise ValueError(
            f"no boundary in [lower, upper] = [{lower!r}, {upper!r}]: make_curve(value) would "
            f"{side} (epsilon={epsilon!r}, delta={delta!r}) at both ends (delta(epsilon) at "
            f"lower is e^{at_lower:+.3g} times the target, at upper e^{at_upper:+.3g}); "
            "widen the bracket")
    probe.feasible_high = at_upper <= 0.0
    lower, upper = _scan(probe, lower, upper, integer)
    if integer:
        return _integer_boundary(probe, int(lower), int(upper))
    return _real_boundary(probe, lower, upper)


def _scan(probe: Any, lower: Any, upper: Any, integer: Any) -> Any:
    """SCAN_POINTS interior values (log-spaced on a positive bracket spanning
    more than a factor 10, else evenly): the feasibility must switch once
    along them (a bisection alone never sees a function that is not monotone:
    it only probes between a feasible and an infeasible value), and the cell
    where it switches is the bracket returned."""
    if lower > 0 and upper > 10 * lower:
        points: Any = np.geomspace(lower, upper, SCAN_POINTS + 2)[1:-1]
    else:
        points = np.linspace(lower, upper, SCAN_POINTS + 2)[1:-1]
    points = [float(p) for p in points]
    if integer:
        points = sorted({int(round(p)) for p in points} - {lower, upper})
    ends = [lower] + points + [upper]
    feasible = [False] * len(ends)
    feasible[0], feasible[-1] = not probe.feasible_high, probe.feasible_high
    for i, value in enumerate(points, 1):
        feasible[i] = probe.excess(value) <= 0.0      # (probe raises on a second switch)
    switch = feasible.index(True) if probe.feasible_high else feasible.index(False)
    return ends[switch - 1], ends[switch]


def _integer_boundary(probe: _Probe, lower: int, upper: int) -> int:
    """Bisection on the integers: the feasible end of the last bracket of width 1."""
    feasible, infeasible = (upper, lower) if probe.feasible_high else (lower, upper)
    while abs(feasible - infeasible) > 1:
        mid = (feasible + infeasible) // 2
        if probe.excess(mid) <= 0.0:
            feasible = mid
        else:
            infeasible = mid
    return feasible


def _real_boundary(probe: _Probe, lower: float, upper: float) -> float:
    """brentq to RTOL / 10, then the root moved onto the feasible side by
    growing steps until a feasible value is found (checked, within RTOL)."""
    from scipy import optimize
    root: float = optimize.brentq(probe.excess, lower, upper, xtol=1e-300, rtol=RTOL / 10.0,
                           maxiter=200)
    if probe.excess(root) <= 0.0:
        return root
    toward = 1.0 if probe.feasible_high else -1.0
    step = RTOL / 10.0 * max(abs(root), 1e-300)
    for _ in range(60):
        value = min(max(root + toward * step, lower), upper)
        if probe.excess(value) <= 0.0:
            return value
        step *= 2.0
    raise ArithmeticError(f"calibrate: no feasible value found near {root!r}")   # pragma: no cover
