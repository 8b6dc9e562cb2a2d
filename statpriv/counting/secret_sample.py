"""The secrecy of the sample (A. Smith 2009, "Differential privacy and the secrecy of the sample", §3).

The attacker knows the population -- K positives among the n-1 others -- but
not which m records were sampled: the others' count is hypergeometric, and P, Q
mix the draws with and without the target (docs/mathematics.md §5).
"""
from __future__ import annotations

import math
from typing import Any, Callable, Optional, Tuple, cast

import numpy as np
from numpy.typing import NDArray

from statpriv import _lazy, _validate, oracle
from statpriv.curve import PrivacyCurve
from statpriv.curve.recipe import factory
from statpriv.laws import Laws, pair_curve, refine, windows
from statpriv.laws.mixture import mixture, mixture_rest
from statpriv.noise import Noise, kinds_text

__all__ = ["secret_sample"]

_core = _lazy.module("statpriv._core")            # scipy.special: loaded on first use
_law_kernels = _lazy.module("statpriv.laws._kernels")


@factory
def secret_sample(n: int, sample_size: int, positives: int, *,
                  noise: Optional[Noise] = None) -> PrivacyCurve:
    """Curve when the attacker knows the population but not the sample (Smith 2009 §3).

    K = ``positives`` of the n-1 other records have the property; a uniform
    sample of m = ``sample_size`` of the n records is counted.  With
    H_k(j) = C(K, j) C(n-1-K, k-j) / C(n-1, k) and lambda = m/n,
    P(j) = lambda H_{m-1}(j-1) + (1-lambda) H_m(j),
    Q(j) = lambda H_{m-1}(j) + (1-lambda) H_m(j).
    The worst case over K is the DP guarantee delta = lambda (docs/mathematics.md §5).
    ``noise`` (statpriv.Laplace, Gaussian, Geometric) is added to the count.

    Parameters
    ----------
    n : int >= 1
        Records in the population, the target included.
    sample_size : int in [1, n]
        m, the size of the uniform sample that is counted.
    positives : int in [0, n - 1]
        K, how many of the n - 1 other records have the property (known to
        the attacker).
    noise : statpriv.Laplace, statpriv.Gaussian or statpriv.Geometric, keyword only
        Noise added to the sampled count (default None: noiseless).

    Returns
    -------
    PrivacyCurve
        delta_plus(eps) = H_eps(P||Q), delta_minus(eps) = H_eps(Q||P) of the
        laws P, Q above (with the noise convolved in).

    Examples
    --------
    >>> curve = secret_sample(100, 10, positives=30)
    >>> print(f"{curve.delta(0.05):.10e}")
    1.0696330864e-02
    >>> print(f"{curve.epsilon(0.0):.10f}")      # delta = 0 from ln(31/21) on
    0.3894647668
    """
    n = _validate.count("n", n, low=1)
    m = _validate.count("sample_size", sample_size, low=1, high=n)
    K = _validate.count("positives", positives, low=0, high=n - 1)
    if noise is not None and not isinstance(noise, Noise):
        raise ValueError(f"noise must be {kinds_text()}, got {noise!r}")
    N = float(n - 1)
    # windows of H_{m-1} and H_m (log-concave; the full supports when small,
    # see _window), the rest bounded in the Laws' rests
    noisy_path = noise is not None
    first, last, rest_in = _hypergeom_window(n - 1, K, m - 1, noisy_path)
    last += 1                       # P(j) = ... H_{m-1}(j - 1)
    rest_out = -math.inf
    if m < n:
        b0, b1, rest_out = _hypergeom_window(n - 1, K, m, noisy_path)
        first, last = min(first, b0), max(last, b1)
    windows.check_support(last - first + 1, "sample_size (or n)")
    j = first + np.arange(last - first + 1, dtype=np.float64)
    log_in = _law_kernels.log_hypergeom_pmf(j[j <= m - 1], N, float(K), float(m - 1))
    log_out = _law_kernels.log_hypergeom_pmf(j, N, float(K), float(m)) if m < n else np.full(1, -np.inf)
    if noisy_path:
        # noise smooths the laws over many atoms, and in its far tails delta is
        # a difference of nearly equal sums over neighbouring atoms: the
        # atoms' log pmfs relative to each other must be extended precision
        log_in = _log_hypergeom_ext(log_in, first, n - 1, K, m - 1)
        if m < n:
            log_out = _log_hypergeom_ext(log_out, first, n - 1, K, m)
    rate = m / n
    ln = np.log(np.longdouble(n))
    log_weights = (np.log(np.longdouble(m)) - ln,
                   np.log(np.longdouble(n - m)) - ln if m < n else np.longdouble(-np.inf))
    lp, lq, lr = mixture(log_in, log_out, rate, log_weights)
    log_rest = mixture_rest(rest_in, rest_out, log_weights)
    rest = (log_rest, log_rest, math.inf, -math.inf)
    lr_lo = tail_ratio = None
    if m < n:
        # P(j)/Q(j) in closed form: with A = H_{m-1}, B = H_m and lambda = m/n,
        # lambda A(j-1)/B(j) + 1 - lambda = (N-m+1)/n (K+1)/(K-j+1) and
        # lambda A(j)/B(j) + 1 - lambda = (N-m+1)/n (N-K+1)/(N-K-m+j+1), so
        # P/Q = (K+1)(N-K-m+j+1) / ((K-j+1)(N-K+1)): two log1p of exact
        # integer quotients (inf where Q = 0 < P, -inf where P = 0 < Q).
        ld = np.longdouble
        jj = ld(first) + np.arange(len(lr), dtype=ld)
        with np.errstate(divide="ignore", invalid="ignore"):
            t1 = np.log1p((jj - m) / ld(N - K + 1))
            t2 = np.log1p(-jj / ld(K + 1))
            exact_lr = t1 - t2
        live = np.isfinite(lp) | np.isfinite(lq)
        lr = np.where(live, exact_lr, lr)
        err = 4e-19 * (np.abs(t1.astype(np.float64)) + np.abs(t2.astype(np.float64)))

        def exact(j: int) -> Any:              # at the absolute atom j
            import mpmath
            return mpmath.log1p(mpmath.mpf(j - m) / (N - K + 1)) - mpmath.log1p(-mpmath.mpf(j) / (K + 1))

        lr_lo = refine.refine_log_ratio(lp, lq, lr, err, lambda i: exact(first + i))
        # true extreme atoms of P and Q
        rest = rest[:2] + refine.rest_ratio_bounds(exact, max(0, m - 1 - (n - 1 - K)), min(K + 1, m))
        if m <= _MAX_TAIL_SUM:
            tail_ratio = _secret_tail_ratio(int(N), K, m)

    def ref(eps: Any, direction: str) -> Any:
        if noise is not None:
            raise ValueError("the mpmath reference covers secret_sample without noise")
        return oracle.secret_sample_delta(n, m, K, eps, direction=direction)

    laws = Laws(lp, lq, lr, m == n, lr_lo, (lambda w: w) if m == n else tail_ratio, *rest,
                start=first)            # start: the atom of index 0 (PrivacyCurve.log_pmfs)
    def certified() -> Any:                  # the laws in Arb (statpriv.oracle.arb)
        from statpriv.oracle import arb
        return arb.SecretSample(n, m, K)
    return pair_curve(laws, ref, f"secret sample n={n}, sample_size={m}, positives={K}", noise,
                      certified=certified)


# Largest sample for which the secret sample's generating functions are summed
# in mpmath (for the exact zero point with Laplace/geometric noise).
_MAX_TAIL_SUM = 2000


def _secret_tail_ratio(N: int, K: int, m: int) -> Callable[[Any], Any]:
    """G_P(w)/G_Q(w) for the secret sample's mixture of hypergeometric laws."""
    import math

    def tail_ratio(w: Any) -> Any:
        import mpmath

        # sum_j C(K, j) C(N-K, draws-j) w^j  (common 1/C(N, draws) dropped)
        def G(draws: int) -> Any:
            return mpmath.fsum(math.comb(K, j) * math.comb(N - K, draws - j) * w ** j
                               for j in range(max(0, draws - (N - K)), min(K, draws) + 1))

        lam = mpmath.mpf(m) / (N + 1)
        ga = G(m - 1) / math.comb(N, m - 1)
        gb = G(m) / math.comb(N, m)
        return (lam * w * ga + (1 - lam) * gb) / (lam * ga + (1 - lam) * gb)
    return tail_ratio


def _log_hypergeom_ext(log_pmf: NDArray[Any], first: int, N: int, K: int,
                       m: int) -> NDArray[np.longdouble]:
    """ln H(j) on j = first, first + 1, ... in extended precision, from the
    double values ``log_pmf`` (Loader's form, a few ulps): anchored at the
    largest term, the others by the exact ratio of consecutive terms
    H(j+1)/H(j) = (K - j)(m - j) / ((j + 1)(N - K - m + j + 1)), whose
    integer factors are exact in long double, summed outward.  The relative
    sizes of the atoms are then accurate to ~1e-18 per step instead of ulps
    of |ln H(j)| (~1e-13 where H(j) ~ 1e-200)."""
    ld = np.longdouble
    out = np.asarray(log_pmf, dtype=ld).copy()
    live = np.flatnonzero(np.isfinite(log_pmf))
    if len(live) < 2:
        return out
    lo, hi = int(live[0]), int(live[-1])
    a = lo + int(np.argmax(log_pmf[lo:hi + 1]))
    jj = ld(first) + np.arange(lo, hi, dtype=ld)          # j of each step j -> j + 1
    step = np.log(((ld(K) - jj) * (ld(m) - jj)) / ((jj + 1) * (ld(N - K - m + 1) + jj)))
    up = np.cumsum(step[a - lo:])                           # ln H(a + i) - ln H(a), i >= 1
    down = np.cumsum(step[:a - lo][::-1])                   # ln H(a) - ln H(a - i), i >= 1
    out[a + 1:hi + 1] = out[a] + up
    out[lo:a] = (out[a] - down)[::-1]
    return out


def _hypergeom_window(N: int, K: int, m: int, noisy_path: bool) -> Tuple[int, int, float]:
    """(first, last, log_rest): the window of the hypergeometric law of the
    positives in m draws from N records of which K are positive."""
    def log_pmf(j: int) -> float:
        return float(_law_kernels.log_hypergeom_pmf(np.array([float(j)]), float(N), float(K),
                                             float(m))[0])

    lo, hi = max(0, m - (N - K)), min(K, m)
    mode = min(max((m + 1) * (K + 1) // (N + 2), lo), hi)
    return cast(Tuple[int, int, float], windows.window(log_pmf, lo, hi, mode, noisy_path))
