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
from typing import Any

import numpy as np

from statpriv import _lazy, _validate

_renyi_kernel = _lazy.module("statpriv.laws._kernels")   # the C log moment (csrc/renyi.h)

__all__ = ["orders", "renyi_from_pld"]

_LD = np.longdouble


def orders(alpha: Any) -> Any:
    """The orders alpha > 0 (inf allowed) as a validated float array."""
    arr = _validate.real_array("alpha", alpha, low=0.0, low_open=True, allow_inf=True)
    return arr


def _side_renyi(side: Any, alphas: Any) -> Any:
    """D_a(A || B) at every order of the float64 array ``alphas``, from the
    PLDSide of L = ln A/B under A (upper bound, see the module): the log
    moments of every finite order in one C call (csrc/renyi.h), the same
    arithmetic per order as a call of its own."""
    losses, probs = side.losses, side.probs
    out = np.empty(alphas.shape, dtype=np.float64)
    unbounded_tail = side.tail_mass > 0.0 and side.tail_loss == math.inf
    # a = inf: the largest loss
    at_inf = alphas == math.inf
    if at_inf.any():
        if side.infinity_mass > 0.0 or unbounded_tail:
            top = math.inf
        else:
            top = float(losses[-1]) if losses.size else -math.inf
            top = max(top, side.tail_loss) if side.tail_mass > 0.0 else top
        out[at_inf] = top
    # a >= 1 with mass where B has none (or a tail of unknown loss): inf
    infinite = (alphas >= 1.0) & ~at_inf & (side.infinity_mass > 0.0 or unbounded_tail)
    out[infinite] = math.inf
    kl = (alphas == 1.0) & ~infinite
    if kl.any():
        value = np.sum(probs * losses)
        if side.tail_mass > 0.0:
            value += _LD(side.tail_mass) * _LD(max(side.tail_loss, 0.0))
        out[kl] = float(value)
    rest = ~(at_inf | infinite | kl)
    if not rest.any():
        return out
    a = alphas[rest]
    with np.errstate(divide="ignore"):
        log_p = np.log(probs)
    tail_log_p = np.log(_LD(side.tail_mass)) if side.tail_mass > 0.0 else _LD(-np.inf)
    t = a - 1.0
    # the moments of the finite orders, in one C call, without the GIL
    log_sum = _renyi_kernel.renyi_log_moments(log_p, losses, tail_log_p, _LD(side.tail_loss),
                                              t)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        value = (log_sum.astype(_LD) / t.astype(_LD)).astype(np.float64)
    value[~np.isfinite(log_sum)] = math.inf
    # no atoms (and for a > 1 no tail): inf below order 1, 0 above
    empty = (log_p.size == 0) & ((a < 1.0) | (side.tail_mass == 0.0))
    value[empty & (a < 1.0)] = math.inf
    value[empty & (a > 1.0)] = 0.0
    out[rest] = value
    return out


def renyi_from_pld(pld: Any, alpha: Any, direction: Any = "max") -> Any:
    """D_alpha per direction ('plus': D(P||Q), 'minus': D(Q||P)) or the max, from a
    PrivacyLossDistribution; vectorised over alpha (one C call per direction)."""
    _validate.choice("direction", direction, ("plus", "minus", "max"))
    arr = orders(alpha)
    flat = np.ascontiguousarray(arr.ravel(), dtype=np.float64)
    sides = (pld.plus, pld.minus) if direction == "max" else (pld.side(direction),)
    out = _side_renyi(sides[0], flat)
    for side in sides[1:]:
        out = np.maximum(out, _side_renyi(side, flat))
    out = out.reshape(arr.shape)
    return float(out[()]) if arr.ndim == 0 else out
