"""Shuffled binary randomized response: the exact curve, worst case over the
others' inputs.

n users each report their bit through eps0-randomized response (the true bit
with probability e^eps0 / (1 + e^eps0), flipped otherwise) and the reports
are shuffled: the release is the number of 1-reports.  The target's input is
1 (P) or 0 (Q); the other n - 1 = N users' inputs are arbitrary.  With
p = 1 / (1 + e^eps0), an other user with input 0 reports 1 with probability
p, one with input 1 with probability 1 - p, so if N - a of them have input 1
their reports sum to S_a = Bin(a, p) + Bin(N - a, 1 - p), and

    P = (1 - p) (S_a + 1) + p S_a,    Q = p (S_a + 1) + (1 - p) S_a.

The curve is max over a = 0..N of H_eps(P || Q): a data-independent
guarantee, both directions (mirroring a -> N - a swaps them).  This is the
partial-knowledge vertex machinery with the target's report pair
(Bernoulli(1 - p), Bernoulli(p)) instead of a shift (statpriv.partial_knowledge.vertices,
csrc/partial_knowledge.h): every vertex on its whole support up to 1000
others, else branch and bound over ranges of inputs that closes to the exact
maximum.  delta = 0 exactly from eps = eps0 on (P/Q <= e^eps0 atom by atom),
and epsilon(0) = eps0.  The randomization is carried exactly from eps0
(p and 1 - p each in extended precision, the target's coefficients from
eps -+ eps0), not from p rounded to a float.
"""
from __future__ import annotations

import math
from typing import Any

from statpriv import _validate, oracle
from statpriv.curve import PrivacyCurve
from statpriv.curve.recipe import factory
from statpriv.partial_knowledge import vertices
from statpriv.shuffle.clones import MAX_EPS0       # beyond it: no local privacy at all

__all__ = ["randomized_response"]


@factory
def randomized_response(n: int, eps0: float) -> PrivacyCurve:
    """The privacy curve of n shuffled eps0-randomized-response bits.

    Returns a curve (delta, delta_plus, delta_minus, log_delta, epsilon,
    precision="mp" for small n) with ``bracket(eps)`` -> (attained,
    certified, ones): ``ones`` is the number of other users with input 1 at
    the attained worst case.

    >>> import statpriv.shuffle
    >>> curve = statpriv.shuffle.randomized_response(1000, 1.0)
    >>> print(f"{curve.delta(0.1):.6e}")
    1.709740e-05
    """
    n = _validate.count("n", n, low=1)
    eps0 = _validate.real("eps0", eps0, low=0.0, high=MAX_EPS0, low_open=True)
    # the flip probability 1 / (1 + e^eps0) rounded, for the work estimates
    # only: the kernel and the reference carry it exactly from eps0
    p = 1.0 / (1.0 + math.exp(eps0))
    N = n - 1

    def ref(eps: Any, direction: str) -> Any:
        return oracle.worst_case_delta(N, p, eps, direction, rr=eps0)

    return vertices.worst_case_curve(
        N, p, ref, f"shuffled randomized response n={n}, eps0={eps0}", rr=eps0,
        alternative=f"statpriv.shuffle.clones({n}, {eps0!r}) (a certified upper bound for any "
                    f"eps0-LDP randomizer, cheap at any n)")
