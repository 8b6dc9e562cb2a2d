"""Oracle for thresholded counts with background knowledge and for the
k-anonymity histogram (Desfontaines, Mohammadi, Krahmer & Basin,
"Differential Privacy with Partial Knowledge", Def. 15, Def. 16, Example 7):
every output enumerated from the definition, its probability under both
values of the target accumulated in a dict, the hockey stick summed term by
term at ``dps`` digits.  No formula of the fast path is used.  Being a plain
sum, a value at ``dps`` digits is exact to about 10^-dps ABSOLUTE only: the
suppressed cell's two masses may be near 1 and differ by far less (a threshold
far above the expected count: Example 7 needs ~600 digits).  So by default
(``dps=None``) every value below 10^(12 - dps) is recomputed at twice the
digits, from 50 up to MAX_DPS; an explicit ``dps`` is used as given.
"""

import math

import mpmath
from mpmath import mp, mpf

from statpriv.oracle._common import (_check_direction, _check_int, _check_prob, _eps_list, _guard,
                                     _hs_sum, _is_sequence, _pick)
from statpriv.oracle.binomial import _binomial_pmf, _poisson_binomial_pmf

__all__ = ["thresholded_delta", "k_anonymity_delta"]

BOTTOM = "bottom"
MAX_DPS = 1600


def _adaptive(evaluate, eps, dps):
    """evaluate(eps_list, dps) -> list of mpf; with dps None, values below
    10^(12 - digits) are recomputed at twice the digits (up to MAX_DPS)."""
    eps_vals, scalar = (list(eps), False) if _is_sequence(eps) else ([eps], True)
    if dps is not None:
        out = evaluate(eps_vals, dps)
    else:
        digits = 50
        out = evaluate(eps_vals, digits)
        while digits < MAX_DPS:
            low = [i for i, v in enumerate(out) if v < mpf(10) ** (12 - digits)]
            if not low:
                break
            digits *= 2
            for i, v in zip(low, evaluate([eps_vals[i] for i in low], digits)):
                out[i] = v
    return out[0] if scalar else out


def _release(count, threshold):
    return count if count >= threshold else BOTTOM


def _laws_given_b(z, b, threshold):
    """{output: P}, {output: Q} of the release given b known ones:
    target one -> 1 + b + Z, target zero -> b + Z, thresholded."""
    P, Q = {}, {}
    for j, mass in enumerate(z):
        o1, o0 = _release(1 + b + j, threshold), _release(b + j, threshold)
        P[o1] = P.get(o1, mpf(0)) + mass
        Q[o0] = Q.get(o0, mpf(0)) + mass
    return P, Q


def _directions(P, Q, eeps):
    """(plus, minus) hockey sticks of one pair."""
    keys = sorted(set(P) | set(Q), key=str)
    p = [P.get(x, mpf(0)) for x in keys]
    q = [Q.get(x, mpf(0)) for x in keys]
    return _hs_sum(p, q, eeps), _hs_sum(q, p, eeps)


def thresholded_delta(n, pi, threshold, eps, *, known=0, attacker="passive", direction="max",
                      dps=None, max_terms=None):
    """delta(eps) of M_tau (release K if K >= threshold, else bottom) when the
    attacker knows ``known`` other records: for every b (ones among them)
    the laws of the release with the target one / zero; active: max over b
    with P(b) > 0, passive: the hockey stick of the joint law of (b, release).
    ``pi``: a probability (iid) or the n-1 other records' probabilities,
    the first ``known`` of them the known records."""
    _check_direction(direction)
    if attacker not in ("passive", "active"):
        raise ValueError(f"attacker must be 'passive' or 'active', got {attacker!r}")
    return _adaptive(lambda e, d: _thresholded(n, pi, threshold, e, known, attacker, direction, d,
                                               max_terms), eps, dps)


def _thresholded(n, pi, threshold, eps, known, attacker, direction, dps, max_terms):
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
        eps_vals, _ = _eps_list(eps)
        if _is_sequence(pi):
            zb, zz = _poisson_binomial_pmf(probs[:known]), _poisson_binomial_pmf(probs[known:])
        else:
            zb, zz = _binomial_pmf(known, probs[0] if probs else mpf(0)), \
                _binomial_pmf(n - 1 - known, probs[0] if probs else mpf(0))
        pairs = [(wb, _laws_given_b(zz, b, threshold)) for b, wb in enumerate(zb) if wb > 0]
        out = []
        for e in eps_vals:
            ee = mpmath.exp(e)
            per_b = [(wb, _directions(P, Q, ee)) for wb, (P, Q) in pairs]
            if attacker == "active":
                plus = max(v[0] for _, v in per_b)
                minus = max(v[1] for _, v in per_b)
            else:
                plus = mpmath.fsum(wb * v[0] for wb, v in per_b)
                minus = mpmath.fsum(wb * v[1] for wb, v in per_b)
            out.append(_pick(direction, plus, minus))
        return out


def k_anonymity_delta(n, probs, k, source, target, eps, *, bound="lower", direction="max",
                      dps=None, max_terms=None):
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
    return _adaptive(lambda e, d: _k_anonymity(n, probs, k, source, target, e, bound, direction,
                                               d, max_terms), eps, dps)


def _k_anonymity(n, probs, k, source, target, eps, bound, direction, dps, max_terms):
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
        P, Q = {}, {}
        for a in range(N + 1):
            for b in range(N + 1 - a):
                c = N - a - b
                mass = (mpf(math.comb(N, a) * math.comb(N - a, b))
                        * (pa ** a if a else mpf(1)) * (pb ** b if b else mpf(1))
                        * (pc ** c if c else mpf(1)))
                if mass == 0:
                    continue
                extra = (c,) if bound == "upper" else ()
                o1 = (_release(a + 1, k), _release(b, k)) + extra
                o0 = (_release(a, k), _release(b + 1, k)) + extra
                P[o1] = P.get(o1, mpf(0)) + mass
                Q[o0] = Q.get(o0, mpf(0)) + mass
        eps_vals, _ = _eps_list(eps)
        return [_pick(direction, *_directions(P, Q, mpmath.exp(e))) for e in eps_vals]
