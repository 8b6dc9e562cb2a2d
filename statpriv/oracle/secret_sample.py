"""Oracle for the secrecy of the sample (A. Smith 2009, "Differential privacy
and the secrecy of the sample"): the count of a uniform sample of m of the n
records, K positives among the n - 1 others, as a mixture of two exact
hypergeometric pmfs, and its hockey stick summed term by term.
"""

import math
from typing import Any

from mpmath import mp, mpf

from statpriv.oracle._common import (
    _check_direction, _check_int, _directional, _eps_list, _eval_terms, _guard)
from statpriv.oracle.binomial import _hypergeom_pmf, _mixture_shift

__all__ = ["secret_sample_pmfs", "secret_sample_delta"]


# --------------------------------------------------------------------------
# secrecy of the sample
# --------------------------------------------------------------------------

def _secret_sample_terms(n: Any, m: Any) -> Any:
    """Two hypergeometric rows of m + 1 terms, each a product of C(., .) of
    up to n bits."""
    return 2.0 * (m + 1) * (1.0 + float(n) ** 2 / 3e5)


def secret_sample_pmfs(n: Any, sample_size: Any, positives: Any, dps: Any = 50,
                       max_terms: Any = None) -> Any:
    """(P, Q) for "secrecy of the sample" (docs/mathematics.md §5, Smith 2009 section 3).

    N = n-1 others with K = ``positives`` ones among them, m = sample_size,
    lam = m/n, H(N,K,m) hypergeometric;
    P(j) = lam H(N,K,m-1)(j-1) + (1-lam) H(N,K,m)(j),
    Q(j) = lam H(N,K,m-1)(j)   + (1-lam) H(N,K,m)(j),  j = 0..m.
    """
    n = _check_int(n, "n", lo=1)
    m = _check_int(sample_size, "sample_size", lo=0, hi=n)
    N = n - 1
    K = _check_int(positives, "positives", lo=0, hi=N)
    _guard(_secret_sample_terms(n, m), max_terms, f"the secret-sample pmfs, n={n}, m={m}")
    with mp.workdps(dps):
        lam = mpf(m) / mpf(n)
        A = _hypergeom_pmf(N, K, m - 1) if m >= 1 else None   # weight lam = 0 if m = 0
        B = _hypergeom_pmf(N, K, m) if m <= N else None       # weight 0 if m = n
        return _mixture_shift(lam, A, B, m + 1)


def secret_sample_delta(n: Any, sample_size: Any, positives: Any, eps: Any, direction: Any = "max",
                        dps: Any = 50, max_terms: Any = None) -> Any:
    """Hockey stick of secret_sample_pmfs (refuses sizes over ``max_terms``)."""
    _check_direction(direction)
    n_ = _check_int(n, "n", lo=1)
    m_ = _check_int(sample_size, "sample_size", lo=0, hi=n_)
    _guard(_secret_sample_terms(n_, m_) + _eval_terms(m_, None, direction), max_terms,
           f"a secret sample of {m_} of n={n_} records")
    with mp.workdps(dps):
        P, Q = secret_sample_pmfs(n, sample_size, positives, dps=dps, max_terms=math.inf)
        eps_vals, scalar = _eps_list(eps)
        res = _directional(P, Q, eps_vals, direction)
        return res[0] if scalar else res
