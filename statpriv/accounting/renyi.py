"""Renyi differential privacy to (eps, delta), and Renyi divergences of curves.

``curve.renyi(alpha)`` gives D_alpha of a curve's pair of laws (closed forms
for the worst-case DP curves from their noise kind, sums over the exact
privacy-loss distribution otherwise: statpriv.laws.renyi; compositions add
up their parts).  ``rdp_to_dp`` converts Renyi DP (a list of orders and their
divergence bounds) into (eps, delta) by the conversion of Canonne, Kamath &
Steinke, "The discrete Gaussian for differential privacy", Prop. 12 (the same
as Asoodeh et al. and Balle et al., "Hypothesis testing interpretations and
Renyi differential privacy", Thm. 21):

    delta = e^((alpha-1)(tau - eps)) / alpha * (1 - 1/alpha)^(alpha - 1),
    eps   = tau + ln(1 - 1/alpha) - (ln delta + ln alpha) / (alpha - 1),

minimised over the orders.  It is an UPPER bound: the exact curve
(PrivacyCurve.delta) is smaller, often much smaller.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Optional, Union

import numpy as np
from numpy.typing import ArrayLike, NDArray

from statpriv import _validate
from statpriv.laws.renyi import renyi_from_pld

if TYPE_CHECKING:
    from statpriv.curve import PrivacyCurve

__all__ = ["curve_renyi", "rdp_to_dp", "renyi_from_pld"]


def curve_renyi(curve: PrivacyCurve, alpha: ArrayLike,
                direction: str = "max") -> Union[float, NDArray[np.float64]]:
    """D_alpha of a curve: ``curve.renyi(alpha, direction)``."""
    return curve.renyi(alpha, direction)


def rdp_to_dp(orders: ArrayLike, rdp: ArrayLike, *, delta: Optional[float] = None,
              epsilon: Optional[float] = None) -> float:
    """(eps, delta) from Renyi DP: the best conversion over the given orders.

    Parameters
    ----------
    orders : array of floats > 1
        The Renyi orders (orders <= 1 are not usable and are skipped; at
        least one must be > 1; inf allowed: then eps = tau, delta = 0).
    rdp : array of floats >= 0, the shape of ``orders``
        tau_alpha >= D_alpha of the mechanism (e.g. ``curve.renyi(orders)``,
        or a sum over composed mechanisms); inf allowed.
    delta : float in (0, 1], keyword only
        The target delta: returns eps.  Give exactly one of delta and epsilon.
    epsilon : float >= 0, keyword only
        The target eps: returns delta.

    Returns
    -------
    float
        eps = min_alpha max(0, tau + ln(1 - 1/alpha) - (ln delta + ln alpha) /
        (alpha - 1)) for a given delta; delta = min(1, min_alpha e^((alpha-1)
        (tau - eps)) (1 - 1/alpha)^(alpha-1) / alpha) for a given eps
        (Canonne, Kamath & Steinke, "The discrete Gaussian for differential
        privacy", Prop. 12).  An upper bound on the exact curve.

    Examples
    --------
    >>> import statpriv
    >>> g = statpriv.dp.gaussian(5.0)
    >>> orders = [1.5, 2, 4, 8, 16, 32, 64]
    >>> eps = statpriv.rdp_to_dp(orders, g.renyi(orders), delta=1e-6)
    >>> print(f"{eps:.4f} >= {g.epsilon(1e-6):.4f}")
    0.9421 >= 0.8341
    """
    orders = _validate.real_array("orders", orders, low=0.0, low_open=True, allow_inf=True,
                                  dims=(0, 1))
    rdp = _validate.real_array("rdp", rdp, low=0.0, allow_inf=True, dims=(0, 1))
    orders, rdp = np.atleast_1d(orders), np.atleast_1d(rdp)
    if orders.shape != rdp.shape:
        raise ValueError(f"orders and rdp must have the same length, got {orders.size} "
                         f"and {rdp.size}")
    if (delta is None) == (epsilon is None):
        raise ValueError("give exactly one of delta and epsilon")
    use = orders > 1.0
    if not use.any():
        raise ValueError("orders must hold at least one order > 1")
    a, tau = orders[use], rdp[use]
    finite_a = np.isfinite(a)
    if delta is not None:
        delta = _validate.real("delta", delta, low=0.0, high=1.0, low_open=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            eps = np.where(finite_a,
                           tau + np.log1p(-1.0 / a) - (math.log(delta) + np.log(a)) / (a - 1.0),
                           tau)
        eps = np.where(np.isnan(eps), np.inf, eps)
        return float(max(0.0, np.min(eps)))
    epsilon = _validate.real("epsilon", epsilon, low=0.0, allow_inf=True)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        log_d = np.where(finite_a,
                         (a - 1.0) * (tau - epsilon) + (a - 1.0) * np.log1p(-1.0 / a)
                         - np.log(a),
                         np.where(tau <= epsilon, -np.inf, 0.0))
    log_d = np.where(np.isnan(log_d), 0.0, log_d)
    return float(min(1.0, math.exp(min(0.0, float(np.min(log_d))))))
