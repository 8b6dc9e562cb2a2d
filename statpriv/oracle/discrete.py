"""Two discrete laws given as log-pmf arrays (statpriv.from_log_pmfs), brute force."""
import math
from typing import Any

import mpmath

from statpriv.oracle._common import _guard

__all__ = ["discrete_delta"]


def discrete_delta(log_p: Any, log_q: Any, eps_list: Any, direction: Any = "max") -> Any:
    """H_eps(P||Q) (plus), H_eps(Q||P) (minus) or their max, at each eps.

    P = e^log_p / sum e^log_p and Q likewise (inputs taken as exact binary
    values, 50 digits); the hockey stick is summed over every atom, term by
    term.
    """
    _guard(2.0 * len(log_p) * max(len(eps_list), 1), None, "from_log_pmfs")
    with mpmath.workdps(50):
        P = [mpmath.exp(mpmath.mpf(float(x))) for x in log_p]
        Q = [mpmath.exp(mpmath.mpf(float(x))) for x in log_q]
        sp, sq = mpmath.fsum(P), mpmath.fsum(Q)
        P = [p / sp for p in P]
        Q = [q / sq for q in Q]

        def hockey(A: Any, B: Any, eps: Any) -> Any:
            if not math.isfinite(eps):
                raise ValueError(f"eps must be finite, got {eps!r}")
            ee = mpmath.exp(mpmath.mpf(eps))
            return mpmath.fsum(max(a - ee * b, 0) for a, b in zip(A, B))

        out = []
        for eps in eps_list:
            plus = hockey(P, Q, eps) if direction in ("plus", "max") else None
            minus = hockey(Q, P, eps) if direction in ("minus", "max") else None
            out.append(plus if minus is None else minus if plus is None else max(plus, minus))
        return out
