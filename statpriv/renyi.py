"""Renyi divergences of privacy curves, and the conversion of Renyi DP to (eps, delta).

For laws P, Q and an order alpha in (0, 1) or (1, inf),

    D_alpha(P || Q) = ln( sum_x P(x)^alpha Q(x)^(1 - alpha) ) / (alpha - 1)
                    = ln E_P[e^((alpha - 1) L)] / (alpha - 1),   L = ln P/Q

(Renyi, "On measures of entropy and information"; Mironov, "Renyi
differential privacy"), with the limits D_1 = KL(P||Q) = E_P[L] and
D_inf = max L.  For alpha >= 1 it is +inf as soon as P has mass where Q has
none.  On curves with discrete outcomes the sum runs over the exact
privacy-loss distribution (statpriv.pld) in extended-precision log space
(a log-sum-exp in C, csrc/renyi.h), on compositions the sum of the parts' divergences (Renyi
divergences of product laws add up); the mass a window leaves out is bounded by its tail mass at
the largest loss it can have (alpha > 1: an upper bound; +inf when no bound
on the loss is known) and left out for alpha < 1 (where it can only lower the
divergence), so the value returned is never below the true one.  Closed forms
for the worst-case DP curves:

    dp.gaussian(sigma):  D_alpha = alpha / (2 sigma^2)
    dp.laplace(b):       D_alpha = ln( alpha/(2alpha-1) e^((alpha-1)/b)
                                      + (alpha-1)/(2alpha-1) e^(-alpha/b) ) / (alpha - 1)
                         (Mironov, Table II; alpha = 1/2 as the limit)
    dp.geometric(a):     D_alpha = ln( (a^(1-alpha) + a^alpha) / (1 + a) ) / (alpha - 1)

``rdp_to_dp`` converts Renyi DP (a list of orders and their divergence
bounds) into (eps, delta) by the conversion of Canonne, Kamath & Steinke, "The
discrete Gaussian for differential privacy", Prop. 12 (the same as Asoodeh et
al. and Balle et al., "Hypothesis testing interpretations and Renyi
differential privacy", Thm. 21):

    delta = e^((alpha-1)(tau - eps)) / alpha * (1 - 1/alpha)^(alpha - 1),
    eps   = tau + ln(1 - 1/alpha) - (ln delta + ln alpha) / (alpha - 1),

minimised over the orders.  It is an UPPER bound: the exact curve
(PrivacyCurve.delta) is smaller, often much smaller.
"""
import math

import numpy as np

from statpriv import _lazy, _validate

_accounting = _lazy.module("statpriv._accounting")   # the C log moment (csrc/renyi.h)

__all__ = ["curve_renyi", "rdp_to_dp", "renyi_from_pld"]

_LD = np.longdouble


def _orders(alpha):
    arr = _validate.real_array("alpha", alpha, low=0.0, low_open=True, allow_inf=True)
    return arr


def _side_renyi(side, a):
    """D_a(A || B) from the PLDSide of L = ln A/B under A (upper bound, see the module)."""
    losses, probs = side.losses, side.probs
    if a == math.inf:
        if side.infinity_mass > 0.0 or (side.tail_mass > 0.0 and side.tail_loss == math.inf):
            return math.inf
        top = float(losses[-1]) if losses.size else -math.inf
        return max(top, side.tail_loss) if side.tail_mass > 0.0 else top
    if a >= 1.0 and side.infinity_mass > 0.0:
        return math.inf
    if a >= 1.0 and side.tail_mass > 0.0 and side.tail_loss == math.inf:
        return math.inf
    if a == 1.0:
        kl = np.sum(probs * losses)
        if side.tail_mass > 0.0:
            kl += _LD(side.tail_mass) * _LD(max(side.tail_loss, 0.0))
        return float(kl)
    with np.errstate(divide="ignore"):
        log_p = np.log(probs)
    if a > 1.0 and side.tail_mass > 0.0:
        log_p = np.append(log_p, np.log(_LD(side.tail_mass)))
        losses = np.append(losses, _LD(side.tail_loss))
    if log_p.size == 0:
        return math.inf if a < 1.0 else 0.0
    log_sum = _accounting.renyi_log_moment(log_p, losses, a - 1.0)    # C, without the GIL
    if not np.isfinite(log_sum):
        return math.inf
    return float(log_sum / _LD(a - 1.0))


def renyi_from_pld(pld, alpha, direction="max"):
    """D_alpha per direction ('plus': D(P||Q), 'minus': D(Q||P)) or the max, from a
    PrivacyLossDistribution; vectorised over alpha."""
    _validate.choice("direction", direction, ("plus", "minus", "max"))
    arr = _orders(alpha)
    sides = (pld.plus, pld.minus) if direction == "max" else (pld.side(direction),)
    out = np.array([max(_side_renyi(s, float(a)) for s in sides) for a in arr.ravel()])
    out = out.reshape(arr.shape)
    return float(out[()]) if arr.ndim == 0 else out


def _dp_renyi(kind, param, a):
    """Closed forms of the worst-case DP curves (symmetric: both directions equal)."""
    import mpmath
    with mpmath.workdps(40):
        if kind == "gaussian":
            return a / (2.0 * param * param)
        if kind == "laplace":
            b = mpmath.mpf(param)
            if a == math.inf:
                return float(1 / b)
            if a == 1.0:
                return float(1 / b + mpmath.expm1(-1 / b))
            al = mpmath.mpf(a)
            if a == 0.5:
                s = mpmath.exp(-1 / (2 * b)) * (1 + 1 / (2 * b))
            else:
                s = (al / (2 * al - 1) * mpmath.exp((al - 1) / b)
                     + (al - 1) / (2 * al - 1) * mpmath.exp(-al / b))
            return float(mpmath.log(s) / (al - 1))
        # geometric(alpha_g): P(x <= 0) = 1/(1+a) at loss -ln a, the rest at ln a
        g = mpmath.mpf(param)
        if a == math.inf:
            return float(-mpmath.log(g))
        if a == 1.0:
            return float(-mpmath.log(g) * (1 - g) / (1 + g))
        al = mpmath.mpf(a)
        s = (g ** (1 - al) + g ** al) / (1 + g)
        return float(mpmath.log(s) / (al - 1))


def curve_renyi(curve, alpha, direction="max"):
    """PrivacyCurve.renyi: closed forms for dp.* curves, else the exact PLD."""
    from statpriv import pld as _pld
    _validate.choice("direction", direction, ("plus", "minus", "max"))
    parts = getattr(curve, "_parts", None)
    if parts is not None:
        # products of independent laws: D_alpha(P1 x P2 || Q1 x Q2) = D_alpha(P1||Q1)
        # + D_alpha(P2||Q2), exactly (no grid), direction by direction
        curves, times = parts
        sides = ("plus", "minus") if direction == "max" else (direction,)
        with np.errstate(invalid="ignore"):
            sums = [times * sum(np.asarray(curve_renyi(c, alpha, d), dtype=np.float64)
                                for c in curves) for d in sides]
        out = np.maximum.reduce(sums)
        return float(out) if np.ndim(out) == 0 else out
    dp_kind = _pld._dp_kind(curve)
    if dp_kind is not None:
        arr = _orders(alpha)
        out = np.array([_dp_renyi(*dp_kind, float(a)) for a in arr.ravel()]).reshape(arr.shape)
        return float(out[()]) if arr.ndim == 0 else out
    return renyi_from_pld(curve.privacy_loss_distribution(), alpha, direction)


def rdp_to_dp(orders, rdp, *, delta=None, epsilon=None):
    """(eps, delta) from Renyi DP: the best conversion over the given orders.

    Parameters
    ----------
    orders : array of floats > 1 (orders <= 1 are not usable and are skipped;
        at least one must be > 1; inf allowed: then eps = tau, delta = 0)
    rdp : array of floats >= 0 (inf allowed), the same shape
        tau_alpha >= D_alpha of the mechanism (e.g. ``curve.renyi(orders)``, or
        a sum over composed mechanisms).
    delta : float in (0, 1], or epsilon : float >= 0 -- exactly one of them.

    Returns
    -------
    float
        eps = min_alpha max(0, tau + ln(1 - 1/alpha) - (ln delta + ln alpha) /
        (alpha - 1)) for a given delta; delta = min(1, min_alpha e^((alpha-1)
        (tau - eps)) (1 - 1/alpha)^(alpha-1) / alpha) for a given eps
        (Canonne, Kamath & Steinke, "The discrete Gaussian for differential
        privacy", Prop. 12).  An upper bound on the exact curve.

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
