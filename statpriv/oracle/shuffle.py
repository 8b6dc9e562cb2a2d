"""Oracle for the shuffle model's clone reduction (Feldman, McMillan & Talwar,
"Hiding among the clones"): the two laws written out atom by atom.

n users, eps0-LDP reports, shuffled.  The number of clones is
C ~ Bin(n-1, e^-eps0); given C = c, A ~ Bin(c, 1/2) and, with
alpha = e^eps0 / (1 + e^eps0),

    P(c, x) = w(c) (alpha b_c(x) + (1 - alpha) b_c(x - 1)),
    Q(c, x) = w(c) ((1 - alpha) b_c(x) + alpha b_c(x - 1)),   x = 0 .. c + 1,

(1 - alpha computed as 1 / (1 + e^eps0), exact at any eps0)

w = Bin(n-1, e^-eps0) pmf, b_c = Bin(c, 1/2) pmf.  delta(eps) is the hockey
stick of P and Q over every pair (c, x), summed term by term at ``dps``
digits: no tail sum, no monotonicity, no window.
"""

from typing import Any

from mpmath import mp, mpf

from statpriv.oracle._common import (
    _binomial_row, _check_direction, _check_int, _directional, _eps_list, _guard, _to_mpf)

__all__ = ["clones_pmfs", "clones_delta"]


def _clones_terms(n: Any) -> Any:
    """Atoms (c, x): sum_c (c + 2), each with an exact binomial coefficient."""
    return (n + 2.0) * (n + 1.0) / 2.0 * (1.0 + n / 3e5)


def _guard_digits(e0: Any) -> Any:
    """Digits beyond ``dps`` that the sums carry: P and Q differ by ~eps0
    relative (alpha - beta = tanh(eps0 / 2)), and at a float eps just below
    eps0 each atom's P - e^eps Q by another (eps0 - eps) / eps0 >= 2^-53;
    at eps0 = 1e-300 both would round away at 50 digits (delta read as 0)."""
    return max(0, int(-mp.log10(e0))) + 20 if e0 < 1 else 20


def _clones_laws(n: Any, e0: Any) -> Any:
    """P, Q over (c, x) at the current precision (e0 an mpf > 0)."""
    p = mp.exp(-e0)
    q = -mp.expm1(-e0)                          # 1 - p, not formed by cancellation
    alpha = mp.exp(e0) / (1 + mp.exp(e0))
    beta = 1 / (1 + mp.exp(e0))                 # 1 - alpha, not formed by cancellation
    N = n - 1
    P, Q = [], []
    for c, coefficient in enumerate(_binomial_row(N)):
        w = mpf(coefficient) * p ** c * q ** (N - c)
        half = mpf(2) ** (-c)
        b = [mpf(x) * half for x in _binomial_row(c)]
        for x in range(c + 2):
            here = b[x] if x <= c else mpf(0)
            below = b[x - 1] if x >= 1 else mpf(0)
            P.append(w * (alpha * here + beta * below))
            Q.append(w * (beta * here + alpha * below))
    return P, Q


def _checked_eps0(eps0: Any) -> Any:
    e0 = _to_mpf(eps0, "eps0")
    if e0 <= 0:
        raise ValueError(f"eps0 must be > 0, got {eps0!r}")
    return e0


def clones_pmfs(n: Any, eps0: Any, dps: Any = 50) -> Any:
    """The laws P, Q of the clone reduction as flat lists over (c, x)
    (each atom to ``dps`` digits)."""
    n = _check_int(n, "n", lo=1)
    with mp.workdps(dps):
        e0 = _checked_eps0(eps0)
    with mp.workdps(dps + _guard_digits(e0)):
        P, Q = _clones_laws(n, e0)
    with mp.workdps(dps):
        return [+v for v in P], [+v for v in Q]


def clones_delta(n: Any, eps0: Any, eps: Any, *, direction: Any = "max", dps: Any = 50,
                 max_terms: Any = None) -> Any:
    """delta(eps) of n shuffled eps0-LDP reports by the clone reduction: the
    hockey stick of clones_pmfs, term by term, the laws and sums carried at
    ``dps`` plus the digits that resolve P - e^eps Q (~eps0 (eps0 - eps)
    relative) and the result rounded to ``dps``.  Refuses (ValueError) sizes
    whose estimated cost exceeds ``max_terms``."""
    _check_direction(direction)
    n = _check_int(n, "n", lo=1)
    dirs = 2 if direction == "max" else 1
    _guard(_clones_terms(n) * (1 + dirs), max_terms, f"the clone reduction over {n} users")
    with mp.workdps(dps):
        e0 = _checked_eps0(eps0)
    with mp.workdps(dps + _guard_digits(e0)):
        P, Q = _clones_laws(n, e0)
        eps_vals, scalar = _eps_list(eps)
        res = _directional(P, Q, eps_vals, direction)
    with mp.workdps(dps):
        res = [+v for v in res]
        return res[0] if scalar else res
