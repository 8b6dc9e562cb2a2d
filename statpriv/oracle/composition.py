"""Compositions of discrete laws (statpriv.compose), brute force over outcome tuples."""
import itertools
import math
from typing import Any

import mpmath

from statpriv.oracle._common import _directional, _guard

__all__ = ["composed_delta"]


def composed_delta(laws: Any, eps_list: Any, direction: Any = "max") -> Any:
    """H_eps(P||Q) (plus), H_eps(Q||P) (minus) or their max for the product laws
    P = P_1 x P_2 x ..., Q = Q_1 x Q_2 x ... at each eps.

    ``laws``: a list of (log_p, log_q) arrays, each law normalised here
    (inputs taken as exact binary values, 50 digits); the hockey stick is
    summed over every tuple of outcomes, term by term.
    """
    sizes = [len(lp) for lp, _ in laws]
    _guard(2.0 * math.prod(sizes) * max(len(eps_list), 1), None, "compose")
    with mpmath.workdps(50):
        pmfs = []
        for lp, lq in laws:
            P = [mpmath.exp(mpmath.mpf(float(x))) for x in lp]
            Q = [mpmath.exp(mpmath.mpf(float(x))) for x in lq]
            sp, sq = mpmath.fsum(P), mpmath.fsum(Q)
            pmfs.append(([p / sp for p in P], [q / sq for q in Q]))
        joint_p, joint_q = [], []
        for tup in itertools.product(*(range(s) for s in sizes)):
            joint_p.append(mpmath.fprod(pmfs[i][0][x] for i, x in enumerate(tup)))
            joint_q.append(mpmath.fprod(pmfs[i][1][x] for i, x in enumerate(tup)))

        for eps in eps_list:
            if not math.isfinite(eps):
                raise ValueError(f"eps must be finite, got {eps!r}")
        return _directional(joint_p, joint_q, [mpmath.mpf(e) for e in eps_list], direction)
