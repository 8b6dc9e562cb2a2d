"""Sampling: a count over a sample of the records (Breutigam & Reischuk,
"Statistical Privacy", Thm 4.1; A. Smith 2009, "Differential privacy and the
secrecy of the sample").

Three ways the target may be left out of the released count, each a mixture
of the laws of the others' count with the target in and out of the sample
(docs/mathematics.md §5):

- sampling without replacement: a uniform sample of m of the n records, iid
  Bernoulli(pi) (``statpriv.counting(..., sample_size=m)``);
- Poisson sampling: every record kept independently with probability rate
  (``statpriv.counting(..., sample_rate=rate, sampling="poisson")``); the
  noiseless curve reduces to the shift curve of Bin(n-1, rate pi);
- the secret sample: the attacker knows the population (K positives among
  the n-1 others) but not the sample: hypergeometric laws
  (``secret_sample``, statpriv.counting.secret_sample).

Draws with replacement (a record counted once per draw) are a mixture of
binomials over the others' count: statpriv.counting.with_replacement.

The laws are built here (with closed-form log ratios, exact tail ratios and
bounded windows) and wrapped by statpriv.laws.pair_curve, with noise if given.
"""
import math
from typing import Any

import numpy as np

from statpriv import _lazy, _xprec
from statpriv.curve import PrivacyCurve
from statpriv.laws import LazyLaws, Laws, pair_curve, refine, windows
from statpriv.laws.mixture import mixture, mixture_rest

__all__ = ["poisson_curve", "poisson_tail_ratio", "subsample_curve"]

_core = _lazy.module("statpriv._core")            # scipy.special: loaded on first use
_law_kernels = _lazy.module("statpriv.laws._kernels")


def subsample_curve(n: Any, pi: Any, m: Any, noise: Any, ref: Any) -> PrivacyCurve:
    """counting(n, pi, sample_size=m, noise=noise) for m < n."""
    def certified() -> Any:                  # the laws in Arb (statpriv.oracle.arb)
        from statpriv.oracle import arb
        return arb.SubsampleShift(n, m, pi)
    return pair_curve(_subsample_laws(n, pi, m, noise is not None), ref,
                       f"counting n={n}, pi={pi}, sample_size={m}", noise, certified=certified)


def poisson_curve(n: Any, pi: Any, rate: Any, noise: Any, ref: Any) -> PrivacyCurve:
    """counting(n, pi, sample_rate=rate, sampling="poisson", noise=noise)."""
    def certified() -> Any:                  # the laws in Arb (statpriv.oracle.arb)
        from statpriv.oracle import arb
        return arb.BinomialShift(n, pi, rate)
    core = None if noise is not None else _poisson_curve_core(n, pi, rate)
    if core is not None:
        return PrivacyCurve(core, ref, f"counting n={n}, pi={pi}, poisson rate={rate}",
                            laws=LazyLaws(lambda: _poisson_sample_laws(n, pi, rate))
                            .with_certified(certified))
    return pair_curve(_poisson_sample_laws(n, pi, rate, noise is not None), ref,
                       f"counting n={n}, pi={pi}, poisson rate={rate}", noise, certified=certified)


def _subsample_laws(n: Any, pi: Any, m: Any, noisy_path: Any = False) -> Any:
    """Sample of m of the n records without replacement, iid Bernoulli(pi).

    The laws live on the union of the windows of Bin(m-1, pi) and Bin(m, pi)
    (from j = first on; the full supports when small, see _window); the mass
    they leave out is bounded in the Laws' rests.
    """
    rate = m / n
    a0, a1, rest_a = windows.binomial_window(m - 1, pi, noisy_path)
    b0, b1, rest_b = windows.binomial_window(m, pi, noisy_path)
    first, last = min(a0, b0), max(a1 + 1, b1)
    windows.check_support(last - first + 1, "sample_size (or n)")
    ln = np.log(np.longdouble(n))
    log_weights = (np.log(np.longdouble(m)) - ln,
                   np.log(np.longdouble(n - m)) - ln if m < n else np.longdouble(-np.inf))
    # the generic ratio lp - lq only where no closed form replaces it below
    lp, lq, lr = mixture(windows.binomial_log_pmf(m - 1, pi, first, min(last, m - 1)),
                          windows.binomial_log_pmf(m, pi, first, min(last, m)), rate, log_weights,
                          ratio=not 0.0 < pi < 1.0)
    log_rest = mixture_rest(rest_a, rest_b, log_weights)
    rest = (log_rest, log_rest, math.inf, -math.inf)
    if not 0.0 < pi < 1.0:
        if m == n:
            return Laws(lp, lq, lr, True, None, None, *rest)
        # Known records: P and Q share one atom, j = m (pi = 1) or j = 0
        # (pi = 0), where P/Q = n/(n-m) or (n-m)/n: the zero point, in
        # double-double like every other extreme ratio.
        def degenerate(jj: Any) -> Any:
            import mpmath
            ratio = mpmath.log(n) - mpmath.log(n - m)
            return ratio if pi == 1.0 else -ratio

        lr_lo = refine.refine_log_ratio(lp, lq, lr, np.full(len(lr), 4e-19),
                                  lambda i: degenerate(first + i))
        return Laws(lp, lq, lr, False, lr_lo, _subsample_tail_ratio(n, m, pi), *rest)
    # P(j)/Q(j) in closed form (Breutigam & Reischuk, "Statistical Privacy"):
    # with lambda = m/n, A(j-1)/B(j) = j/(m pi), A(j)/B(j) = (m-j)/(m(1-pi)), so
    # with d = j - m pi, P/Q = (1 + d/(n pi)) / (1 - d/(n (1-pi))): two log1p
    # of small arguments when m/n is small, no rounded rate.  The threshold
    # terms need lr to full relative accuracy, which a difference of logs lacks.
    # One C pass for lr and the bound on its error, 4e-19 (|log1p| + |log1p|)
    # + the rounding of m pi.
    lr, err = _law_kernels.subsample_log_ratio(
        n, m, pi, first, len(lp), 2e-19 * m * pi * (1 / (n * pi) + 1 / (n * (1 - pi))))

    import mpmath
    with mpmath.workdps(40):       # the precision exact() is called at (refine)
        p = mpmath.mpf(pi)
        mp_, np_, nq_ = m * p, n * p, n * (1 - p)

    def exact(jj: Any) -> Any:                 # at the absolute atom jj
        dd = jj - mp_
        return mpmath.log1p(dd / np_) - mpmath.log1p(-dd / nq_)

    tail_ratio = _subsample_tail_ratio(n, m, pi)
    if m < n:                      # true extreme atoms j = 0 and j = m
        rest = rest[:2] + refine.rest_ratio_bounds(exact, 0, m)
    if m == n:
        return Laws(lp, lq, lr, True, None, lambda w: w, *rest)
    lr_lo = refine.refine_log_ratio(lp, lq, lr, err, lambda i: exact(first + i))
    return Laws(lp, lq, lr, False, lr_lo, tail_ratio, *rest)


def _subsample_tail_ratio(n: Any, m: Any, pi: Any) -> Any:
    """G_P(w)/G_Q(w) of the sample of m of n records without replacement, iid
    Bernoulli(pi) (pi = 0 and 1 included): with lambda = m/n and M(w) = 1 +
    pi (w - 1) the Bernoulli generating function, P = lambda A(.-1) +
    (1-lambda) B, Q = lambda A + (1-lambda) B, G_B = M G_A, so the common
    G_A cancels: (lambda w + (1-lambda) M) / (lambda + (1-lambda) M)."""
    def tail_ratio(w: Any) -> Any:
        import mpmath
        lam, p = mpmath.mpf(m) / n, mpmath.mpf(pi)
        M = 1 + p * (w - 1)            # generating function of Bernoulli(pi)
        return (lam * w + (1 - lam) * M) / (lam + (1 - lam) * M)
    return tail_ratio


def poisson_tail_ratio(rate: Any) -> Any:
    """G_P/G_Q for P = rate Z(.-1) + (1-rate) Z, Q = Z: rate w + 1 - rate,
    summed as two non-negative terms (1 + rate (w - 1) cancels at w = e^(-1/b)
    ~ 1e-40 and rate = 1: the left tail's ratio, exactly w there, came out 0 or
    a few digits)."""
    def tail_ratio(w: Any) -> Any:
        import mpmath
        r = mpmath.mpf(rate)
        return r * w + (1 - r)
    return tail_ratio


# Largest count support built from exact logs where rate * pi is below the
# double range's full precision (_poisson_sample_laws).
_EXACT_TINY_RHO_ATOMS = 1000


def _exact_binomial_log_pmf(N: Any, rate: Any, pi: Any) -> Any:
    """ln Bin(N, rho)(j), j = 0..N, rho = rate * pi exactly (it may lie below
    the double range): ln C(N, j) + j ln rho + (N - j) ln(1 - rho) in mpmath,
    rounded to extended precision."""
    import mpmath
    with mpmath.workdps(40):
        rho = mpmath.mpf(rate) * mpmath.mpf(pi)
        lr, lq = mpmath.log(rho), mpmath.log1p(-rho)
        return np.array([mpmath.nstr(mpmath.log(mpmath.binomial(N, j)) + j * lr + (N - j) * lq, 30)
                         for j in range(N + 1)], dtype=np.longdouble)


def _poisson_sample_laws(n: Any, pi: Any, rate: Any, noisy_path: Any = False) -> Any:
    """Each other record kept w.p. rate: Z ~ Bin(n-1, rate*pi), P = rate Z(.-1) + (1-rate) Z.

    Z is taken on its window (_window); Q/P <= 1/(1-rate) bounds the rest for
    delta_minus, P/Q is unbounded (inf at j = n).
    """
    rho = rate * pi
    ld = np.longdouble
    tiny = pi > 0.0 and rate > 0.0 and rho < 1e-290 and n - 1 <= _EXACT_TINY_RHO_ATOMS
    closed = 0.0 < rho < 1.0 and not tiny      # ln P/Q in closed form below
    log_q = None
    if tiny:
        # rate * pi below the double range's full precision (or rounded to
        # 0): Z on its whole support from exact logs of rho, no rest to
        # bound (the far atoms, P(n) > 0 = Q(n) above all, decide delta at
        # large eps under noise)
        first, last, log_rest = 0, n - 1, -math.inf
        log_z = _exact_binomial_log_pmf(n - 1, rate, pi)
    else:
        first, last, log_rest = windows.binomial_window(n - 1, rho, noisy_path)
        windows.check_support(last - first + 2, "n (or sample_rate)")
        if closed:
            # ln Z in a buffer one -inf atom longer: that is ln Q itself
            # (Q = rate Z + (1 - rate) Z = Z; _poisson_closed_laws)
            log_q = np.empty(last - first + 2, dtype=ld)
            log_q[-1] = -np.inf
            log_z = windows.binomial_log_pmf(n - 1, rho, first, last, out=log_q[:-1])
        else:
            log_z = windows.binomial_log_pmf(n - 1, rho, first, last)
    if closed:
        # rho is the rounded product; ln Z(k) moves by (k - (n-1) rho)/(rho (1-rho))
        # per unit of rho, which at n ~ 1e7 turns a 1e-16 rounding into 1e-9 in
        # the far tails: correct to first order for the exact rate * pi.
        import mpmath
        with mpmath.workdps(40):
            shift = float(mpmath.mpf(rate) * mpmath.mpf(pi) - mpmath.mpf(rho))
        if shift != 0.0:
            k = ld(first) + np.arange(len(log_z), dtype=ld)
            log_z += (k - ld(n - 1) * ld(rho)) / (ld(rho) * (1 - ld(rho))) * ld(shift)
    if closed and rate < 1.0:
        lp, lq, lr, err = _poisson_closed_laws(n, pi, rate, first, log_q)
    else:
        # the generic ratio lp - lq only where no closed form replaces it below
        lp, lq, lr = mixture(log_z, log_z, rate, ratio=not closed)
    tail_ratio = poisson_tail_ratio(rate)
    if log_rest > -math.inf:
        log_rest += 1e-12 * (1.0 + abs(log_rest))
    rest = (log_rest, log_rest, math.inf, -math.inf)
    if not (0.0 < rho < 1.0 or tiny):
        if rho == 0.0 and rate < 1.0:
            # pi = 0: Z = 0 surely, P/Q = 1 - rate at j = 0 (the zero point of
            # delta_minus), in double-double
            def degenerate(jj: Any) -> Any:
                import mpmath
                return mpmath.log1p(-mpmath.mpf(rate))

            lr_lo = refine.refine_log_ratio(lp, lq, lr, np.full(len(lr), 4e-19),
                                      lambda i: degenerate(first + i))
            return Laws(lp, lq, lr, False, lr_lo, tail_ratio, *rest)
        return Laws(lp, lq, lr, rate == 1.0, None, tail_ratio, *rest)
    if not closed or rate == 1.0:
        lr, err = _poisson_log_ratio(n, pi, rate, first, len(lp))

    import mpmath
    with mpmath.workdps(40):       # the precision exact() is called at (refine)
        p = mpmath.mpf(pi)
        mean = n * mpmath.mpf(rate) * p

    def exact(jj: Any) -> Any:                 # at the absolute atom jj
        return mpmath.log1p((jj - mean) / ((n - jj) * p))

    if rate < 1.0:                 # true extreme atoms j = 0 (lr = log1p(-rate)) and n (inf)
        rest = rest[:2] + (math.inf,
                           -math.inf if rate == 1.0 else refine.rest_ratio_bounds(exact, 0, 0)[1])
    return Laws(lp, lq, lr, rate == 1.0,
                None if rate == 1.0 else refine.refine_log_ratio(lp, lq, lr, err,
                                                                 lambda i: exact(first + i)),
                tail_ratio, *rest)


def _poisson_log_ratio(n: Any, pi: Any, rate: Any, first: Any, size: Any) -> Any:
    """(lr, err) on the atoms first .. first+size-1: P(j)/Q(j) = rate
    Z(j-1)/Z(j) + 1 - rate = 1 + (j - n rho)/((n - j) pi), rho = rate pi
    exactly: one log1p, inf at j = n (Q(n) = 0), and ln(1 - rate) at j = 0,
    the zero point of delta_minus; one C pass for lr and its error bound
    err = 4e-19 |lr| + 2e-19 n rate / max(n - j, 1) (the rounding of the
    mean n rate pi)."""
    lr, err = _law_kernels.poisson_log_ratio(n, rate, pi, first, size, with_err=True)
    for j, value in ((n - first, np.inf), (0 if rate == 1.0 and first == 0 else -1, -np.inf)):
        if 0 <= j < len(lr):
            lr[j], err[j] = value, np.inf
    return lr, err


def _poisson_closed_laws(n: Any, pi: Any, rate: Any, first: Any, log_q: Any) -> Any:
    """(lp, lq, lr, err) of the Poisson-sampled laws for 0 < rho < 1, rate < 1,
    from log_q = ln Z on the window with one -inf atom after it: Q = rate Z +
    (1 - rate) Z = Z is ln Z itself, and inside the window ln P = ln Q + ln
    P/Q with the closed-form ratio (_poisson_log_ratio; it is needed anyway)
    -- one addition per atom instead of a logaddexp.  The window's edges
    take the truncated Z's mixture: P(first) = (1 - rate) Z(first) (Z(first
    - 1) left out) and P(last + 1) = rate Z(last); so do the atoms where ln Z
    underflowed (none in practice)."""
    ld = np.longdouble
    size = len(log_q)
    lr, err = _poisson_log_ratio(n, pi, rate, first, size)
    log_in, log_out = np.log(ld(rate)), np.log1p(-ld(rate))
    lp = np.empty(size, dtype=ld)
    with np.errstate(invalid="ignore"):
        np.add(log_q[1:-1], lr[1:-1], out=lp[1:-1])
    lp[0] = log_out + log_q[0]
    lp[-1] = log_in + log_q[-2]
    bad = 1 + np.flatnonzero(~np.isfinite(lp[1:-1]))
    if len(bad):
        lp[bad] = np.logaddexp(log_in + log_q[bad - 1], log_out + log_q[bad])
    return lp, log_q, lr, err


def _poisson_curve_core(n: Any, pi: Any, rate: Any) -> Any:
    """The noiseless Poisson-sampled curve by reduction to the shift curve of
    Z ~ Bin(n-1, rho), rho = rate * pi (Smith 2009 Alg. 2):
    P = rate Z(.-1) + (1-rate) Z and Q = Z give
    P - e^eps Q = rate (Z(k-1) - e^eps' Z(k)) with e^eps' = 1 + (e^eps - 1)/rate, and
    Q - e^eps P = c (Z(k) - e^eps'' Z(k-1)) with c = 1 - e^eps (1 - rate),
    e^eps'' = e^eps rate / c (delta_minus = 0 where c <= 0).  rho and 1 - rho
    are passed in extended precision, the mean and ln(1 - rate) as
    double-doubles (the rounding of the product
    would move ln Z(k) by (k - N rho) 2^-53 / (1 - rho) in the far tails;
    rho may lie below the double range).  None where rho is 0 or 1 (a point
    mass: the law arrays handle those) or n = 1."""
    import mpmath
    with mpmath.workdps(60):
        g, p = mpmath.mpf(rate), mpmath.mpf(pi)
        rho = g * p
        if not 0 < rho < 1 or n < 2:
            return None
        pq = np.array([mpmath.nstr(rho, 30), mpmath.nstr(1 - rho, 30)], dtype=np.longdouble)
        mean_hi, mean_lo = _xprec.dd((n - 1) * rho)
        log_p, log_q = float(mpmath.log(rho)), float(mpmath.log1p(-rho))
        if rate == 1.0:
            l1g_hi, l1g_lo = -math.inf, 0.0
        else:
            l1g_hi, l1g_lo = _xprec.dd(mpmath.log1p(-g))
    return _core.PoissonCurveCore(float(n - 1), pq, mean_hi, mean_lo, log_p, log_q,
                                  float(rate), l1g_hi, l1g_lo)
