"""Oracle for thresholded counts with background knowledge and for the
k-anonymity histogram (Desfontaines, Mohammadi, Krahmer & Basin,
"Differential Privacy with Partial Knowledge", Def. 15, Def. 16, Example 7):
every outcome of the other records enumerated from the definition with its
exact probability, the release it gives with the target one (P) and zero (Q),
and the hockey stick summed cell by cell at ``dps`` digits.  No formula of
the fast path is used.

A release cell collects the outcomes that map to it under P only, under Q
only, or under both; (P - e^eps Q)(x) = only_P - e^eps only_Q - (e^eps - 1) both
is formed from those three sums, so the mass the two laws share in a cell
(the suppressed cell's: F(t-2) of F(t-1) vs F(t-2)) cancels exactly instead
of being subtracted at 50 digits (a suppressed cell's difference may be
10^-500 of its mass).
"""

from typing import Any, Dict

import mpmath
from mpmath import mp, mpf

from statpriv.oracle._common import (_binomial_row, _check_direction, _check_int, _check_prob,
                                     _eps_list, _guard, _is_sequence, _pick)
from statpriv.oracle.binomial import _binomial_pmf, _poisson_binomial_pmf

__all__ = ["thresholded_delta", "k_anonymity_delta"]

BOTTOM = "bottom"


def _release(count: Any, threshold: Any) -> Any:
    return count if count >= threshold else BOTTOM


def _add(cells: Any, out_p: Any, out_q: Any, mass: Any) -> None:
    """One outcome of probability ``mass`` releasing out_p under P, out_q under Q."""
    if out_p == out_q:
        cells.setdefault(out_p, [mpf(0)] * 3)[2] += mass
    else:
        cells.setdefault(out_p, [mpf(0)] * 3)[0] += mass
        cells.setdefault(out_q, [mpf(0)] * 3)[1] += mass


def _directions(cells: Any, eps: Any) -> Any:
    """(plus, minus): sum over cells of (only_P - e^eps only_Q - (e^eps - 1) both)_+
    and the same with P and Q swapped; each cell as one difference of two
    non-negative sums."""
    ee, em1 = mpmath.exp(eps), mpmath.expm1(eps)
    zero = mpf(0)
    plus, minus = [], []
    # the shared part on the side where it is positive (adding an exact 0 to
    # the other side would change no bit, and costs as much as a term)
    if eps < 0:
        for only_p, only_q, both in cells.values():
            shared = -em1 * both
            plus.append(max(only_p + shared - ee * only_q, zero))
            minus.append(max(only_q + shared - ee * only_p, zero))
    else:
        for only_p, only_q, both in cells.values():
            shared = em1 * both
            plus.append(max(only_p - (ee * only_q + shared), zero))
            minus.append(max(only_q - (ee * only_p + shared), zero))
    return mpmath.fsum(plus), mpmath.fsum(minus)


def _cells_given_b(z: Any, b: Any, threshold: Any) -> Any:
    """The release cells given b known ones: target one -> 1 + b + Z, zero -> b + Z."""
    cells: Dict[Any, Any] = {}
    for j, mass in enumerate(z):
        _add(cells, _release(1 + b + j, threshold), _release(b + j, threshold), mass)
    return cells


def thresholded_delta(n: Any, pi: Any, threshold: Any, eps: Any, *, known: Any = 0,
                      attacker: Any = "passive", direction: Any = "max", dps: Any = 50,
                      max_terms: Any = None) -> Any:
    """delta(eps) of M_tau (release K if K >= threshold, else bottom) when the
    attacker knows ``known`` other records: for every b (ones among them)
    the laws of the release with the target one / zero; active: max over b
    with P(b) > 0, passive: the hockey stick of the joint law of (b, release).
    ``pi``: a probability (iid) or the n-1 other records' probabilities,
    the first ``known`` of them the known records."""
    _check_direction(direction)
    if attacker not in ("passive", "active"):
        raise ValueError(f"attacker must be 'passive' or 'active', got {attacker!r}")
    with mp.workdps(dps):
        if _is_sequence(pi):
            probs = [_check_prob(p, "pi entry") for p in pi]
            n = len(probs) + 1 if n is None else _check_int(n, "n", lo=1)
            if len(probs) != n - 1:
                raise ValueError("pi must hold the n-1 other records' probabilities")
        else:
            n = _check_int(n, "n", lo=1)
            probs = [_check_prob(pi, "pi")] * (n - 1)
        threshold = _check_int(threshold, "threshold", lo=0)
        known = _check_int(known, "known", lo=0, hi=n - 1)
        _guard(float(n) ** 2 * 4, max_terms, f"thresholded n={n}")
        eps_vals, scalar = _eps_list(eps)
        if _is_sequence(pi):
            zb, zz = _poisson_binomial_pmf(probs[:known]), _poisson_binomial_pmf(probs[known:])
        else:
            zb, zz = _binomial_pmf(known, probs[0] if probs else mpf(0)), \
                _binomial_pmf(n - 1 - known, probs[0] if probs else mpf(0))
        pairs = [(wb, _cells_given_b(zz, b, threshold)) for b, wb in enumerate(zb) if wb > 0]
        out = []
        for e in eps_vals:
            per_b = [(wb, _directions(cells, e)) for wb, cells in pairs]
            if attacker == "active":
                plus = max(v[0] for _, v in per_b)
                minus = max(v[1] for _, v in per_b)
            else:
                plus = mpmath.fsum(wb * v[0] for wb, v in per_b)
                minus = mpmath.fsum(wb * v[1] for wb, v in per_b)
            out.append(_pick(direction, plus, minus))
        return out[0] if scalar else out


def k_anonymity_delta(n: Any, probs: Any, k: Any, source: Any, target: Any, eps: Any, *,
                      bound: Any = "lower", direction: Any = "max", dps: Any = 50,
                      max_terms: Any = None) -> Any:
    """delta(eps) of the k-anonymity histogram seen through two released counts.

    n - 1 other records iid over the categories (probabilities ``probs``,
    the rest 1 - sum(probs) on a never-released category); the target's
    record is in ``source`` (P) or ``target`` (Q).  With A, B the others in
    source and target and C the others elsewhere, the attacker sees
    (thr(A + [target in source]), thr(B + [target in target])) -- and C too
    for ``bound="upper"``; thr(x) = x if x >= k else bottom.  Every (A, B)
    enumerated with its exact trinomial probability."""
    _check_direction(direction)
    if bound not in ("lower", "upper"):
        raise ValueError(f"bound must be 'lower' or 'upper', got {bound!r}")
    with mp.workdps(dps):
        n = _check_int(n, "n", lo=1)
        k = _check_int(k, "k", lo=1)
        ps = [_check_prob(p, "probs entry") for p in probs]
        pa, pb = ps[source], ps[target]
        pc = 1 - pa - pb
        if pc < 0:
            pc = mpf(0)
        N = n - 1
        _guard(float(N + 1) ** 2 * 4, max_terms, f"k-anonymity n={n}")
        cells: Dict[Any, Any] = {}
        for a, in_source in enumerate(_binomial_row(N)):
            for b, in_target in enumerate(_binomial_row(N - a)):
                c = N - a - b
                mass = (mpf(in_source * in_target)
                        * (pa ** a if a else mpf(1)) * (pb ** b if b else mpf(1))
                        * (pc ** c if c else mpf(1)))
                if mass == 0:
                    continue
                extra = (c,) if bound == "upper" else ()
                _add(cells, (_release(a + 1, k), _release(b, k)) + extra,
                     (_release(a, k), _release(b + 1, k)) + extra, mass)
        eps_vals, scalar = _eps_list(eps)
        out = [_pick(direction, *_directions(cells, e)) for e in eps_vals]
        return out[0] if scalar else out
