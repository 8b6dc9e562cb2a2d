"""Oracle for counting queries: the full pmfs of the released count by brute
force (binomial, Poisson-binomial, sampling with and without replacement
mixtures (sampling with replacement: a mixture of binomials over the others'
count); the hypergeometric pmf for the secret sample), and their hockey
stick summed term by term.

The count of the n - 1 other records is Bin(n-1, pi) (iid pi, Breutigam &
Reischuk "Statistical Privacy") or Poisson-binomial (per-record pi); the
target adds 1 under P and 0 under Q.  Exact big-integer binomial
coefficients, every term at ``dps`` digits, no window, no pruning.
"""

import math
from typing import Any

import mpmath
from mpmath import mp, mpf

from statpriv.oracle._common import (
    _binomial_row, _check_direction, _check_int, _check_prob, _directional, _eps_list, _eval_terms,
    _guard, _is_sequence, _row_terms, _tick)

__all__ = ["counting_pmfs", "counting_delta", "estimate_terms"]

_SAMPLINGS = ("without_replacement", "with_replacement", "poisson")


def _binomial_pmf(N: Any, p: Any) -> Any:
    """pmf of Bin(N, p) on 0..N; p an mpf in [0, 1] (current precision).

    b(k) = C(N,k) p^k (1-p)^(N-k) with the integer C(N,k) exact
    (_binomial_row) and 0^0 = 1.
    """
    q = 1 - p
    out = []
    for k, coefficient in enumerate(_binomial_row(N)):
        pk = mpf(1) if k == 0 else p ** k
        qk = mpf(1) if N - k == 0 else q ** (N - k)
        out.append(mpf(coefficient) * pk * qk)
        _tick()
    return out


def _poisson_binomial_pmf(ps: Any) -> Any:
    """pmf of a sum of independent Bernoulli(p_j) by exact convolution."""
    pmf = [mpf(1)]
    for p in ps:
        q = 1 - p
        new = [mpf(0)] * (len(pmf) + 1)
        for k, v in enumerate(pmf):
            new[k] += v * q
            new[k + 1] += v * p
        pmf = new
        _tick(len(pmf))
    return pmf


def _hypergeom_pmf(N: Any, K: Any, m: Any) -> Any:
    """H(N,K,m)(j) = C(K,j) C(N-K,m-j) / C(N,m), j = 0..m, as exact rationals
    rounded once to mpf.  Requires 0 <= m <= N."""
    den = math.comb(N, m)
    chosen, others = _binomial_row(K, m), _binomial_row(N - K, m)
    out = []
    for j in range(m + 1):
        if j > K or m - j > N - K:
            out.append(mpf(0))
        else:
            num = chosen[j] * others[m - j]
            out.append(mpf(num) / mpf(den))
        _tick()
    return out


def _with_replacement_pmfs(n: int, p: Any, m: int) -> Any:
    """(P, Q) of the count over m draws with replacement from the n records,
    the n - 1 others iid Bernoulli(p): given the others' count A = a, each
    draw independently hits a record with the property with probability
    (x + a)/n (x the target's bit), so P = sum_a Bin(a; n-1, p) Bin(m, (a+1)/n)
    and Q = sum_a Bin(a; n-1, p) Bin(m, a/n), on 0..m."""
    weights = _binomial_pmf(n - 1, p)
    P = [mpf(0)] * (m + 1)
    Q = [mpf(0)] * (m + 1)
    for a, w in enumerate(weights):
        if w == 0:
            continue
        for law, hit in ((P, mpf(a + 1) / n), (Q, mpf(a) / n)):
            for c, b in enumerate(_binomial_pmf(m, hit)):
                law[c] += w * b
    return P, Q


def _mixture_shift(lam: Any, A: Any, B: Any, length: Any) -> Any:
    """P(j) = lam*A(j-1) + (1-lam)*B(j), Q(j) = lam*A(j) + (1-lam)*B(j),
    j = 0..length-1.  A or B may be None when its weight is exactly 0."""
    P = [mpf(0)] * length
    Q = [mpf(0)] * length
    if lam != 0:
        for i, a in enumerate(A):
            if i + 1 < length:
                P[i + 1] += lam * a
            elif a != 0:
                raise RuntimeError("statpriv.oracle internal error: an atom of the shifted "
                                   "law falls outside the support; please report")
            Q[i] += lam * a
    if lam != 1:
        w = 1 - lam
        for i, b in enumerate(B):
            P[i] += w * b
            Q[i] += w * b
    return P, Q


def _counting_size(n: Any, pi: Any, sample_size: Any, sample_rate: Any, sampling: Any) -> Any:
    """(L, pmf terms) of counting_pmfs, from the raw arguments; None when they
    are invalid (counting_pmfs then raises the precise error)."""
    try:
        if _is_sequence(pi):
            k = len(pi)
            n = k + 1 if n is None else _check_int(n, "n", lo=1)
            return n, float(n) ** 2
        n = _check_int(n, "n", lo=1)
        if sampling == "with_replacement":
            m = (_check_int(sample_size, "sample_size", lo=1) if sample_size is not None
                 else round(float(sample_rate) * n))
            return m, _row_terms(n - 1) + 3.0 * n * (m + 1)
        if sampling == "poisson" or (sample_size is None and sample_rate is None):
            return n, _row_terms(n - 1)
        if sample_size is not None:
            m = _check_int(sample_size, "sample_size", lo=0, hi=n)
        else:
            m = round(float(sample_rate) * n)
        return m, 2.0 * _row_terms(m)
    except (ValueError, TypeError, OverflowError):
        return None


def estimate_terms(n: Any, pi: Any, *, sample_size: Any = None, sample_rate: Any = None,
                   sampling: Any = "without_replacement", noise: Any = None,
                   direction: Any = "max") -> Any:
    """Estimated cost (in terms, ~1 mpmath operation each) of
    ``noisy_counting_delta`` (``noise`` a (kind, param) pair) or
    ``counting_delta`` (noise None) at one eps value; see the size-guard
    notes above for the models."""
    size = _counting_size(n, pi, sample_size, sample_rate, sampling)
    if size is None:
        raise ValueError("invalid arguments: see counting_pmfs")
    L, build = size
    return build + _eval_terms(L, noise, direction)



# --------------------------------------------------------------------------
# counting queries
# --------------------------------------------------------------------------

def _others_probs(n: Any, pi: Any) -> Any:
    """Return (n, scalar_pi_or_None, list_of_pi_or_None) with validation."""
    if _is_sequence(pi):
        ps = [_check_prob(p, "pi entry") for p in pi]
        if n is None:
            n = len(ps) + 1
        n = _check_int(n, "n", lo=1)
        if len(ps) != n - 1:
            raise ValueError(
                f"pi sequence must hold the n-1 = {n - 1} probabilities of "
                f"the other records, got {len(ps)}")
        return n, None, ps
    if n is None:
        raise ValueError("n is required when pi is a scalar")
    n = _check_int(n, "n", lo=1)
    return n, _check_prob(pi, "pi"), None


def counting_pmfs(n: Any, pi: Any, *, sample_size: Any = None, sample_rate: Any = None,
                  sampling: Any = "without_replacement", dps: Any = 50,
                  max_terms: Any = None) -> Any:
    """(P, Q): pmfs of the released count with target = 1 / target = 0.

    * no sampling: S = count of the n-1 others (Bin(n-1, pi) or
      Poisson-binomial if ``pi`` is a sequence of the others' probabilities);
      P(k) = s(k-1), Q(k) = s(k), k = 0..n.
    * ``sample_size=m`` (or ``sample_rate=lam`` -> m = round(lam*n)), without
      replacement, iid pi only; lam = m/n:
      P(j) = lam B_{m-1}(j-1) + (1-lam) B_m(j),
      Q(j) = lam B_{m-1}(j)   + (1-lam) B_m(j),  j = 0..m.
    * ``sampling="poisson"``, ``sample_rate=lam``: Z = sum of the n-1 others'
      Bernoulli(lam*pi_j); Q = Z, P = lam (Z+1) + (1-lam) Z, on 0..n.
    * ``sampling="with_replacement"``, ``sample_size=m`` (any m >= 1, or
      m = round(sample_rate*n)), iid pi only: m uniform draws from the n
      records, a record drawn k times counted k times; with A ~ Bin(n-1, pi)
      the others' count, P(c) = sum_a Bin(a; n-1, pi) Bin(c; m, (a+1)/n),
      Q(c) = sum_a Bin(a; n-1, pi) Bin(c; m, a/n), c = 0..m.

    Refuses (ValueError) sizes whose estimated cost exceeds ``max_terms``
    (default: term_budget, else DEFAULT_MAX_TERMS).
    """
    if sampling not in _SAMPLINGS:
        raise ValueError(f"sampling must be one of {_SAMPLINGS}, got {sampling!r}")
    size = _counting_size(n, pi, sample_size, sample_rate, sampling)
    if size is not None:
        _guard(size[1], max_terms, f"the counting pmfs over {size[0] + 1} outcomes")
    with mp.workdps(dps):
        n, p, ps = _others_probs(n, pi)

        if sampling == "poisson":
            if sample_size is not None:
                raise ValueError("poisson sampling takes sample_rate, not sample_size")
            if sample_rate is None:
                raise ValueError("poisson sampling requires sample_rate")
            lam = _check_prob(sample_rate, "sample_rate")
            if ps is None:
                Z = _binomial_pmf(n - 1, lam * p)
            else:
                Z = _poisson_binomial_pmf([lam * x for x in ps])
            return _mixture_shift(lam, Z, Z, n + 1)

        if sample_size is not None and sample_rate is not None:
            raise ValueError("give sample_size or sample_rate, not both")
        if sampling == "with_replacement":
            if ps is not None:
                raise ValueError("sampling with replacement needs a scalar (iid) pi")
            if sample_size is not None:
                m = _check_int(sample_size, "sample_size", lo=1)
            elif sample_rate is not None:
                m = int(mpmath.nint(_check_prob(sample_rate, "sample_rate") * n))
            else:
                raise ValueError("sampling with replacement requires sample_size or sample_rate")
            if m < 1:
                raise ValueError("sampling with replacement needs at least one draw")
            return _with_replacement_pmfs(n, p, m)

        # without replacement (or no sampling at all)
        if sample_size is None and sample_rate is None:
            S = _binomial_pmf(n - 1, p) if ps is None else _poisson_binomial_pmf(ps)
            P = [mpf(0)] + S          # P(k) = s(k-1), k = 0..n
            Q = S + [mpf(0)]          # Q(k) = s(k)
            return P, Q

        if ps is not None:
            raise ValueError(
                "sampling without replacement needs a scalar (iid) pi")
        if sample_size is not None:
            m = _check_int(sample_size, "sample_size", lo=0, hi=n)
        else:
            rate = _check_prob(sample_rate, "sample_rate")
            m = int(mpmath.nint(rate * n))
        lam = mpf(m) / mpf(n)
        A = _binomial_pmf(m - 1, p) if m >= 1 else None   # weight lam = 0 if m = 0
        B = _binomial_pmf(m, p) if m < n else None        # weight 1-lam = 0 if m = n
        return _mixture_shift(lam, A, B, m + 1)


def counting_delta(n: Any, pi: Any, eps: Any, *, sample_size: Any = None, sample_rate: Any = None,
                   sampling: Any = "without_replacement", direction: Any = "max", dps: Any = 50,
                   max_terms: Any = None) -> Any:
    """Privacy curve of a counting query: hockey stick of counting_pmfs.

    Refuses (ValueError) sizes whose estimated cost per eps value
    (estimate_terms) exceeds ``max_terms``."""
    _check_direction(direction)
    size = _counting_size(n, pi, sample_size, sample_rate, sampling)
    if size is not None:
        _guard(size[1] + _eval_terms(size[0], None, direction), max_terms,
               f"a count over {size[0]} records")
    with mp.workdps(dps):
        P, Q = counting_pmfs(n, pi, sample_size=sample_size,
                             sample_rate=sample_rate, sampling=sampling, dps=dps,
                             max_terms=math.inf)
        eps_vals, scalar = _eps_list(eps)
        res = _directional(P, Q, eps_vals, direction)
        return res[0] if scalar else res
