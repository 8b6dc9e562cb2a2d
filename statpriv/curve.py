"""PrivacyCurve: one object per privacy curve, with delta(eps) and epsilon(delta).

For distributions P (target record present / positive) and Q (absent /
negative) of what the attacker sees,

    delta_plus(eps)  = H_eps(P || Q) = sum_x (P(x) - e^eps Q(x))_+
    delta_minus(eps) = H_eps(Q || P)
    delta(eps)       = max(delta_plus, delta_minus)

(MATH.md §1, seed 000 Def. 5).  delta is non-increasing in eps, lies in
[0, 1] and equals the total-variation distance at eps = 0; eps may be any
real.  The float path evaluates C kernels (exact to ~1e-13 relative and
rounded up where a tail is bounded rather than summed); ``precision="mp"``
evaluates the independent mpmath brute force in statpriv.reference instead.
"""
import math

import mpmath
import numpy as np

from statpriv import _core
from statpriv import _validate

_DIRECTIONS = {"plus": _core.PLUS, "minus": _core.MINUS, "max": _core.MAX}


class PrivacyCurve:
    """delta(eps) of one mechanism; build instances with statpriv.counting & co.

    Parameters
    ----------
    core : statpriv._core.CurveCore
        The C evaluator of ln delta.
    reference : callable(eps_list, direction) -> list of mpmath.mpf, optional
        The mpmath brute force for ``precision="mp"``.
    description : str
        What the curve is, for repr.
    exact : bool
        False for labelled approximations (``approx="normal"``).
    """

    def __init__(self, core, reference=None, description="privacy curve", exact=True):
        self._core = core
        self._reference = reference
        self.description = description
        self.exact = exact

    def __repr__(self):
        return f"<PrivacyCurve {self.description}>"

    # -- evaluation -------------------------------------------------------
    def _log_delta(self, eps, direction, precision):
        _validate.choice("precision", precision, ("float", "mp"))
        scalar = np.ndim(eps) == 0
        arr = _validate.real_array("eps", eps, allow_inf=True)
        if precision == "mp":
            if self._reference is None:
                raise ValueError("this curve has no mpmath reference")
            values = self._reference([float(e) for e in arr.ravel()], direction)
            logs = [mpmath.log(v) if v > 0 else mpmath.mpf("-inf") for v in values]
            out = np.array(logs, dtype=object).reshape(arr.shape)
            return out[()] if scalar else out
        flat = np.ascontiguousarray(arr.ravel())
        out = self._core.log_delta(flat, _DIRECTIONS[direction]).reshape(arr.shape)
        return float(out[()]) if scalar else out

    def log_delta(self, eps, precision="float"):
        """ln delta(eps): finite even where delta underflows float64 (1e-308)."""
        return self._log_delta(eps, "max", precision)

    def log_delta_plus(self, eps, precision="float"):
        """ln delta_plus(eps) = ln H_eps(P || Q)."""
        return self._log_delta(eps, "plus", precision)

    def log_delta_minus(self, eps, precision="float"):
        """ln delta_minus(eps) = ln H_eps(Q || P)."""
        return self._log_delta(eps, "minus", precision)

    def _delta(self, eps, direction, precision):
        logs = self._log_delta(eps, direction, precision)
        if precision == "mp":
            exp = np.frompyfunc(mpmath.exp, 1, 1)
            return mpmath.exp(logs) if np.ndim(logs) == 0 else exp(logs)
        return math.exp(logs) if np.ndim(logs) == 0 else np.exp(logs)

    def delta(self, eps, precision="float"):
        """delta(eps) = max(delta_plus, delta_minus); float or array like eps.

        ``precision="mp"`` returns mpmath.mpf values from the brute-force
        reference (50 digits) instead of the C core.
        """
        return self._delta(eps, "max", precision)

    def delta_plus(self, eps, precision="float"):
        """delta_plus(eps) = sum_x (P(x) - e^eps Q(x))_+, P: target positive."""
        return self._delta(eps, "plus", precision)

    def delta_minus(self, eps, precision="float"):
        """delta_minus(eps) = sum_x (Q(x) - e^eps P(x))_+."""
        return self._delta(eps, "minus", precision)

    # -- inverse ----------------------------------------------------------
    def epsilon(self, delta, direction="max"):
        """Smallest eps >= 0 with delta(eps) <= delta (searched in C).

        Returns inf where no finite eps reaches the target (e.g. a noiseless
        count never goes below max(pi, 1-pi)^(n-1)).  The returned eps is
        rounded up by the curve's own error bound: delta(epsilon(d)) <= d holds
        for the float curve and the TRUE delta there is <= d (1 + 1e-12).
        epsilon(1) = 0 for every curve (delta <= 1); epsilon(0) is the smallest
        float with delta = 0 exactly, inf where delta > 0 at every finite eps.
        """
        _validate.choice("direction", direction, tuple(_DIRECTIONS))
        scalar = np.ndim(delta) == 0
        arr = _validate.real_array("delta", delta, low=0.0, high=1.0)
        with np.errstate(divide="ignore"):
            log_target = np.ascontiguousarray(np.log(arr).ravel())
        out = self._core.epsilon(log_target, _DIRECTIONS[direction]).reshape(arr.shape)
        return float(out[()]) if scalar else out

    def total_variation(self):
        """delta(0): the total-variation distance between P and Q."""
        return self.delta(0.0)
