"""Renyi divergences of a pair of laws, from its privacy-loss distribution.

For laws P, Q and an order alpha in (0, 1) or (1, inf),

    D_alpha(P || Q) = ln( sum_x P(x)^alpha Q(x)^(1 - alpha) ) / (alpha - 1)
                    = ln E_P[e^((alpha - 1) L)] / (alpha - 1),   L = ln P/Q

(Renyi, "On measures of entropy and information"; Mironov, "Renyi
differential privacy"), with the limits D_1 = KL(P||Q) = E_P[L] and
D_inf = max L; +inf for alpha >= 1 as soon as P has mass where Q has none.
The sum runs over the PLD's atoms in extended-precision log space (a
log-sum-exp in C, csrc/renyi.h); the mass a window leaves out is counted at
the largest loss it can have (alpha > 1: an upper bound; +inf when no bound
on the loss is known) and left out for alpha < 1 (where it can only lower the
divergence), so the value returned is never below the true one.
"""
import math

import numpy as np

from statpriv import _lazy, _validate

_renyi_kernel = _lazy.module("statpriv.laws._kernels")   # the C log moment (csrc/renyi.h)

__all__ = ["orders", "renyi_from_pld"]

_LD = np.longdouble


def orders(alpha):
    """The orders alpha > 0 (inf allowed) as a validated float array."""
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
    log_sum = _renyi_kernel.renyi_log_moment(log_p, losses, a - 1.0)    # C, without the GIL
    if not np.isfinite(log_sum):
        return math.inf
    return float(log_sum / _LD(a - 1.0))


def renyi_from_pld(pld, alpha, direction="max"):
    """D_alpha per direction ('plus': D(P||Q), 'minus': D(Q||P)) or the max, from a
    PrivacyLossDistribution; vectorised over alpha."""
    _validate.choice("direction", direction, ("plus", "minus", "max"))
    arr = orders(alpha)
    sides = (pld.plus, pld.minus) if direction == "max" else (pld.side(direction),)
    out = np.array([max(_side_renyi(s, float(a)) for s in sides) for a in arr.ravel()])
    out = out.reshape(arr.shape)
    return float(out[()]) if arr.ndim == 0 else out
