"""Partial knowledge and shuffled randomized response, brute force (mpmath).

Every vertex a = 0..N of the box [p, 1-p]^N (a records at p, N - a at 1 - p)
gets its full pmf by the plain convolution of Bin(a, p) and Bin(N - a, 1 - p);
the target's report is Bernoulli(q1) under P and Bernoulli(q0) under Q, so
P = q1 (S+1) + (1-q1) S and Q = q0 (S+1) + (1-q0) S, and the hockey stick is
summed over every outcome in both directions.  The worst case is the max over
every vertex and both directions: nothing is pruned and no symmetry is used.
The blanket sum is summed over every b.
"""
import math
from typing import Any

import mpmath
from mpmath import mp, mpf

from statpriv.oracle._common import _directional, _guard, _row_terms

__all__ = ["vertex_laws", "vertex_delta", "worst_case_delta", "blanket_delta",
           "poisson_binomial_delta"]


def _binom_row(N: Any, pi: Any) -> Any:
    return [mpmath.binomial(N, k) * pi ** k * (1 - pi) ** (N - k) for k in range(N + 1)]


def _convolve(x: Any, y: Any) -> Any:
    out = [mpf(0)] * (len(x) + len(y) - 1)
    for i, u in enumerate(x):
        for j, v in enumerate(y):
            out[i + j] += u * v
    return out


def _target_pair(S: Any, q1: Any, q0: Any) -> Any:
    """P = q1 (S+1) + (1-q1) S and Q likewise, on 0..len(S)."""
    lo = [mpf(0)] + list(S)          # S + 1
    hi = list(S) + [mpf(0)]          # S
    P = [q1 * u + (1 - q1) * v for u, v in zip(lo, hi)]
    Q = [q0 * u + (1 - q0) * v for u, v in zip(lo, hi)]
    return P, Q


def vertex_laws(N: Any, a: Any, p: Any, q1: Any = 1, q0: Any = 0) -> Any:
    """(P, Q) at vertex a (current precision): S = Bin(a, p) + Bin(N - a, 1 - p)."""
    p = mpf(p)
    S = _convolve(_binom_row(a, p), _binom_row(N - a, 1 - p))
    return _target_pair(S, mpf(q1), mpf(q0))


def _q_pair(rr: Any, p: Any) -> Any:
    """The target's report probabilities (q1, q0): a shift (1, 0), or
    randomized response with the records' own flip probability p: (1 - p, p)."""
    return (1 - mpf(p), mpf(p)) if rr else (mpf(1), mpf(0))


def _flip(rr: Any, p: Any) -> Any:
    """The records' flip probability at the current precision: p, or with
    rr = eps0 (a number, not True) 1 / (1 + e^eps0) from eps0 itself."""
    if rr is True or not rr:
        return mpf(p)
    return 1 / (1 + mpmath.exp(mpf(rr)))


def _rr_dps(rr: Any, dps: Any) -> Any:
    """Digits to resolve p = 1/2 - eps0/4 + ... next to 1/2 (rr = eps0 < 1)."""
    if rr is True or not rr or rr >= 1.0:
        return dps
    return dps + int(-math.log10(rr)) + 2


def vertex_delta(N: Any, a: Any, p: Any, eps_list: Any, direction: Any = "max", rr: Any = False,
                 dps: Any = 50) -> Any:
    """delta at vertex a: shift target, or (rr) randomized response whose
    reports flip with probability p (the target's too; rr = eps0: the flip
    probability 1 / (1 + e^eps0), p ignored)."""
    _guard(N * N + 4.0 * N * len(eps_list), None, "partial knowledge (one vertex)")
    with mp.workdps(_rr_dps(rr, dps)):
        p = _flip(rr, p)
        q1, q0 = _q_pair(rr, p)
        P, Q = vertex_laws(N, a, p, q1, q0)
        return _directional(P, Q, [mpf(e) for e in eps_list], direction)


def worst_case_delta(N: Any, p: Any, eps_list: Any, direction: Any = "max", rr: Any = False,
                     dps: Any = 50) -> Any:
    """max over every vertex a = 0..N of delta_a (both directions as asked;
    rr as in vertex_delta)."""
    _guard((N + 1) * (N * N / 2 + 4.0 * N * len(eps_list)), None, "partial knowledge worst case")
    with mp.workdps(_rr_dps(rr, dps)):
        p = _flip(rr, p)
        q1, q0 = _q_pair(rr, p)
        best = [mpf(0)] * len(eps_list)
        for a in range(N + 1):
            P, Q = vertex_laws(N, a, p, q1, q0)
            vals = _directional(P, Q, [mpf(e) for e in eps_list], direction)
            best = [max(u, v) for u, v in zip(best, vals)]
        return best


def poisson_binomial_delta(pis: Any, eps_list: Any, direction: Any = "max", dps: Any = 50) -> Any:
    """The shift curve of a count whose others have probabilities pis."""
    _guard(len(pis) ** 2 + 4.0 * len(pis) * len(eps_list), None, "Poisson-binomial")
    with mp.workdps(dps):
        S = [mpf(1)]
        for pi in pis:
            pi = mpf(pi)
            S = _convolve(S, [1 - pi, pi])
        P, Q = _target_pair(S, mpf(1), mpf(0))
        return _directional(P, Q, [mpf(e) for e in eps_list], direction)


def blanket_delta(N: Any, p: Any, eps_list: Any, dps: Any = 50) -> Any:
    """sum_b Bin(N, 2p)(b) H_eps(A_b + 1 || A_b), A_b ~ Bin(b, 1/2), every b."""
    _guard(_row_terms(N) * N + 4.0 * N * N * len(eps_list), None, "privacy blanket")
    with mp.workdps(dps):
        w = _binom_row(N, 2 * mpf(p))
        half = mpf(1) / 2
        out = []
        for e in eps_list:
            ee = mpmath.exp(mpf(e))
            total = mpf(0)
            for b in range(N + 1):
                A = _binom_row(b, half)
                P, Q = _target_pair(A, mpf(1), mpf(0))
                total += w[b] * mpmath.fsum(max(u - ee * v, 0) for u, v in zip(P, Q))
            out.append(total)
        return out
