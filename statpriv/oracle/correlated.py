"""Oracle for repeated noiseless counts on the same correlated records
(Desfontaines, Mohammadi, Krahmer & Basin, "Differential Privacy with
Partial Knowledge", Example 8): every multinomial outcome of the n - 1
other records over the 2^k answer vectors enumerated with its exact
probability, the release it gives with the target's answers x (P) and x'
(Q) -- the k counts, or the whole histogram of answer vectors -- and the
hockey stick summed cell by cell at ``dps`` digits.  No formula of the fast
path is used.
"""

import itertools
import math
from typing import Any, Dict

from mpmath import mp, mpf

from statpriv.oracle._common import (_check_direction, _check_int, _check_prob, _eps_list, _guard,
                                     _pick)
from statpriv.oracle.thresholding import _add, _directions

__all__ = ["correlated_counts_delta"]


def _compositions(total: int, parts: int) -> Any:
    """Every tuple of ``parts`` integers >= 0 summing to ``total``."""
    for bars in itertools.combinations(range(total + parts - 1), parts - 1):
        edges = (-1,) + bars + (total + parts - 1,)
        yield tuple(edges[i + 1] - edges[i] - 1 for i in range(parts))


def _outcomes(N: int, k: int, probs: Any) -> Any:
    """(counts, probability) of every multinomial outcome of the N others over
    the 2^k answer vectors with a positive probability (one list for every
    target pair)."""
    out = []
    for counts in _compositions(N, 2 ** k):
        mass = mpf(math.factorial(N))
        for c, p in zip(counts, probs):
            mass = mass * (p ** c if c else mpf(1)) / math.factorial(c)
        if mass != 0:
            out.append((counts, mass))
    return out


def _pair_cells(k: int, outcomes: Any, x: Any, x_prime: Any, release: str) -> Any:
    cells: Dict[Any, Any] = {}
    vectors = [tuple((v >> (k - 1 - j)) & 1 for j in range(k)) for v in range(2 ** k)]
    index = {vec: v for v, vec in enumerate(vectors)}
    for counts, mass in outcomes:
        if release == "counts":
            sums = tuple(sum(c * vec[j] for c, vec in zip(counts, vectors)) for j in range(k))
            out_p = tuple(s + a for s, a in zip(sums, x))
            out_q = tuple(s + a for s, a in zip(sums, x_prime))
        else:
            out_p = tuple(c + (v == index[tuple(x)]) for v, c in enumerate(counts))
            out_q = tuple(c + (v == index[tuple(x_prime)]) for v, c in enumerate(counts))
        _add(cells, out_p, out_q, mass)
    return cells


def correlated_counts_delta(n: Any, joint: Any, x: Any = None, x_prime: Any = None, eps: Any = 0.0,
                            *, release: Any = "counts", direction: Any = "max", dps: Any = 50,
                            max_terms: Any = None) -> Any:
    """delta(eps) of k noiseless counts released on the same n records.

    Each of the n - 1 other records has the answer vector a in {0,1}^k with
    probability joint[sum_j a_j 2^(k-j)], independently; the target answers
    x (P) or x_prime (Q).  ``release="counts"``: the attacker sees the k
    counts; ``"histogram"``: the number of records with each answer vector.
    x = x_prime = None: the largest delta over every target pair x != x'
    (both directions of each pair).  Every multinomial outcome enumerated."""
    _check_direction(direction)
    if release not in ("counts", "histogram"):
        raise ValueError(f"release must be 'counts' or 'histogram', got {release!r}")
    with mp.workdps(dps):
        n = _check_int(n, "n", lo=1)
        probs = [_check_prob(p, "joint entry") for p in joint]
        k = len(probs).bit_length() - 1
        if len(probs) != 2 ** k or k < 1:
            raise ValueError(f"joint must hold 2^k probabilities, got {len(probs)}")
        N = n - 1
        _guard(float(math.comb(N + 2 ** k - 1, 2 ** k - 1)) * 2 ** k, max_terms,
               f"correlated counts n={n}, k={k}")
        if x is None:
            vectors = list(itertools.product((0, 1), repeat=k))
            pairs = list(itertools.combinations(vectors, 2))
            direction = "max"
        else:
            pairs = [(tuple(x), tuple(x_prime))]
        eps_vals, scalar = _eps_list(eps)
        out = [mpf(0)] * len(eps_vals)
        outcomes = _outcomes(N, k, probs)
        for a, b in pairs:
            cells = _pair_cells(k, outcomes, a, b, release)
            for i, e in enumerate(eps_vals):
                out[i] = max(out[i], _pick(direction, *_directions(cells, e)))
        return out[0] if scalar else out
