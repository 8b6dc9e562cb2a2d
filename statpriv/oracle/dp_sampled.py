"""Oracle for the Poisson-subsampled worst-case DP curves (statpriv.dp's
``sampling_prob=`` / ``relation=``): the hockey sticks of the mixture laws
taken from their densities -- mpmath quadrature split at the kinks and at
the sign change (found by bisection on the log ratio), a direct sum with
exact geometric tails for geometric noise -- never the reductions or closed
forms the fast path uses.

The pairs (unit sensitivity for Laplace and Gaussian; geometric at its
integer sensitivity s), f the noise density and q the sampling probability:

    add_remove:   P = (1-q) f(x) + q f(x - s),  Q = f(x)
    replace_one:  P = (1-q) f(x) + q f(x - s),  Q = (1-q) f(x) + q f(x + s)

delta_plus = H_eps(P || Q), delta_minus = H_eps(Q || P).
"""
from typing import Any

import mpmath
from mpmath import mp, mpf

from statpriv.oracle._common import _check_direction, _eps_list, _pick, _to_mpf
from statpriv.oracle._quad import _bracket_root
from statpriv.oracle.dp import _integrate_positive_part

__all__ = ["dp_sampled_delta"]

_KINDS = ("laplace", "gaussian", "geometric")


def _mixtures(f: Any, q: Any, s: Any, relation: Any) -> Any:
    def P(x: Any) -> Any:
        return (1 - q) * f(x) + q * f(x - s)

    def Q(x: Any) -> Any:
        return f(x) if relation == "add_remove" else (1 - q) * f(x) + q * f(x + s)
    return P, Q


def _crossing(A: Any, B: Any, e: Any) -> Any:
    """The x where ln A(x)/B(x) = e, A/B monotone, or None if it has no
    sign change on [-2^40, 2^40]."""
    def G(x: Any) -> Any:
        return mpmath.log(A(x)) - mpmath.log(B(x)) - e
    lo, hi = mpf(-1), mpf(2)
    g_lo, g_hi = G(lo), G(hi)
    for _ in range(40):
        if (g_lo > 0) != (g_hi > 0):
            return _bracket_root(G, lo, hi, g_lo, g_hi)
        lo, hi = 2 * lo, 2 * hi
        g_lo, g_hi = G(lo), G(hi)
    return None


def _continuous(kind: Any, param: Any, q: Any, eps_vals: Any, relation: Any, direction: Any) -> Any:
    p = param
    if kind == "laplace":
        def f(x: Any) -> Any:
            return mpmath.exp(-abs(x) / p) / (2 * p)
    else:
        def f(x: Any) -> Any:
            return mpmath.exp(-(x / p) ** 2 / 2) / (p * mpmath.sqrt(2 * mpmath.pi))
    P, Q = _mixtures(f, q, 1, relation)
    base = [mpf(-1), mpf(0), mpf(1)]
    for k in (1, 2, 4, 8, 16, 32):
        base += [k * p, -k * p, 1 + k * p, -1 - k * p]
    out = []
    for e in eps_vals:
        ee = mpmath.exp(e)
        sides = []
        for A, B, edge in ((P, Q, mpf(1)), (Q, P, mpf(-1))):
            if kind == "laplace" and mpmath.log(A(edge) / B(edge)) - e <= mpmath.ldexp(1, 20 - mp.prec):
                # the Laplace ratio is monotone and constant beyond the kink at
                # +-1, where it is largest: below e^eps everywhere (up to
                # rounding), so the integrand's positive part is empty
                sides.append(mpf(0))
                continue
            pts = list(base)
            x = _crossing(A, B, e)
            if x is not None:
                pts += [x] + [x + k * p for k in (-8, -4, -2, -1, 1, 2, 4, 8)]
            sides.append(_integrate_positive_part(lambda t, A=A, B=B: A(t) - ee * B(t),
                                                  lambda t, A=A, B=B: A(t) + ee * B(t), pts))
        out.append(_pick(direction, *sides))
    return out


def _geometric(alpha: Any, q: Any, s: Any, eps_vals: Any, relation: Any, direction: Any) -> Any:
    c = (1 - alpha) / (1 + alpha)

    def f(k: Any) -> Any:
        return c * alpha ** abs(k)
    P, Q = _mixtures(f, q, s, relation)
    W = 64 + 2 * s
    out = []
    for e in eps_vals:
        ee = mpmath.exp(e)
        sides = []
        for A, B in ((P, Q), (Q, P)):
            total = mpf(0)
            for k in range(-W, W + 1):
                total += max(A(k) - ee * B(k), mpf(0))
            # beyond +-W every law is proportional to alpha^|k| (W > 2 s): the
            # tails are geometric series of the edge terms
            total += max(A(W + 1) - ee * B(W + 1), mpf(0)) / (1 - alpha)
            total += max(A(-W - 1) - ee * B(-W - 1), mpf(0)) / (1 - alpha)
            sides.append(total)
        out.append(_pick(direction, *sides))
    return out


def dp_sampled_delta(kind: Any, param: Any, q: Any, eps: Any, dps: Any = 50, *,
                     relation: Any = "add_remove", sensitivity: Any = 1,
                     direction: Any = "max") -> Any:
    """delta of the Poisson-subsampled worst-case DP pair (see the module).

    kind: "laplace" (param: the scale at sensitivity 1), "gaussian" (sigma at
    sensitivity 1) or "geometric" (alpha, with the integer ``sensitivity``);
    q: the sampling probability in [0, 1]."""
    _check_direction(direction)
    if kind not in _KINDS:
        raise ValueError(f"kind must be one of {_KINDS}, got {kind!r}")
    if relation not in ("add_remove", "replace_one"):
        raise ValueError(f"relation must be 'add_remove' or 'replace_one', got {relation!r}")
    with mp.workdps(dps):
        eps_vals, scalar = _eps_list(eps)
        with mp.workdps(dps + 15):
            p = _to_mpf(param, "param")
            qq = _to_mpf(q, "q")
            if qq == 0:
                # P = Q = f: H_eps(f || f) = max(0, 1 - e^eps) from the definition
                # (a quadrature would integrate the same density twice)
                out = [max(mpf(0), -mpmath.expm1(e)) for e in eps_vals]
            elif kind == "geometric":
                out = _geometric(p, qq, int(sensitivity), eps_vals, relation, direction)
            else:
                out = _continuous(kind, p, qq, eps_vals, relation, direction)
        out = [+v for v in out]
        return out[0] if scalar else out
