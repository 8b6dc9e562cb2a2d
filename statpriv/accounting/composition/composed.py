"""The curve of a composition: a PrivacyCurve over a composed privacy-loss
distribution, with the bracket of the true curve it certifies and the exact
Renyi divergence of the product (the sum over the parts)."""
import numpy as np

from statpriv import _validate
from statpriv.curve import PrivacyCurve
from statpriv.laws import pld as _pld

__all__ = ["ComposedCurve", "check_curves", "composed_curve", "description"]


class ComposedCurve(PrivacyCurve):
    """The curve of a composition (statpriv.compose): a PrivacyCurve whose delta
    comes from a composed privacy-loss distribution, with the bracket of the
    true curve it certifies (``delta_bounds``)."""

    def __init__(self, pld, reference, description, parts):
        super().__init__(_pld.PLDCore(pld), reference, description, laws=pld)
        self._parts = parts

    @property
    def parts(self):
        """(curves, times): the composition of ``times`` runs of the curves."""
        return self._parts

    def delta_bounds(self, eps, direction="max"):
        """(lower, upper): the true delta(eps) of the composition lies in between.

        upper = delta(eps) (the grid curve, never below the true one); lower =
        delta_grid(eps + rounding_bound) - moved mass - round-off (the losses
        were rounded up by at most rounding_bound = k h in total).  For exact
        compositions both are the exact value up to floating-point rounding."""
        _validate.choice("direction", direction, ("plus", "minus", "max"))
        upper = self.laws.delta(eps, direction)
        lower = self.laws.delta_lower_bound(eps, direction)
        return lower, upper

    def discretization_error(self, eps, direction="max"):
        """upper - lower of ``delta_bounds``: a bound on how far delta(eps) is
        above the true value."""
        lower, upper = self.delta_bounds(eps, direction)
        return upper - lower

    def renyi(self, alpha, direction="max"):
        """D_alpha of the composition: the sum of the parts' divergences, exactly
        (D_alpha(P1 x P2 || Q1 x Q2) = D_alpha(P1||Q1) + D_alpha(P2||Q2)), no grid,
        direction by direction (see PrivacyCurve.renyi)."""
        _validate.choice("direction", direction, ("plus", "minus", "max"))
        curves, times = self._parts
        sides = ("plus", "minus") if direction == "max" else (direction,)
        with np.errstate(invalid="ignore"):
            sums = [times * sum(np.asarray(c.renyi(alpha, d), dtype=np.float64)
                                for c in curves) for d in sides]
        out = np.maximum.reduce(sums)
        return float(out) if np.ndim(out) == 0 else out


def check_curves(curves, times):
    if not curves:
        raise ValueError("compose needs at least one curve")
    for i, c in enumerate(curves):
        if not isinstance(c, PrivacyCurve):
            raise _validate.ParameterTypeError(
                f"curves[{i}] must be a PrivacyCurve, got {type(c).__name__}")
    return _validate.count("times", times, low=1, high=10 ** 9)


def description(curves, times):
    inner = " + ".join(c.description for c in curves)
    return f"composition of [{inner}]" + (f" x {times}" if times > 1 else "")


def _reference(curves, times):
    """The mpmath reference of a composition of discrete laws (oracle.composed_delta)."""
    if any(c.laws is None or not c.laws.has_log_pmfs for c in curves):
        return None

    def ref(eps_list, direction):
        from statpriv import oracle
        laws = [c.log_pmfs() for c in curves] * times
        return oracle.composed_delta([(x.log_p, x.log_q) for x in laws], eps_list, direction)
    return ref


def composed_curve(pld, curves, times, what):
    """The ComposedCurve of a composed PLD (Renyi divergences add up over the parts)."""
    return ComposedCurve(pld, _reference(curves, times), what, (tuple(curves), times))
