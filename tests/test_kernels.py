"""The C kernels: the pmfs (Loader's binomial and hypergeometric log-pmfs, with
stirlerr and bd0) at points against mpmath, and the edges of the curves built on
the discrete pair kernel.

Pair kernel: extreme sampling rates, the
zero point eps0 (delta -> 0 at a finite eps, where delta is a difference of
nearly equal numbers), Poisson sampling far tails, and no leaked warnings.

The references are written here from the definitions in mpmath (60 digits):
the count laws from binomial / hypergeometric coefficients, delta as the sum
(or integral) of (P - e^eps Q)_+.
"""
import math
import warnings

import mpmath
import numpy as np
import pytest

import statpriv
from statpriv import Geometric, Laplace, _core, counting, secret_sample
from statpriv.laws import _kernels as law_kernels
from helpers import assert_matches

DPS = 60
KS = range(1, 15)          # eps0 (1 - 10^-k)
KS_SHORT = (1, 3, 6, 9, 12, 14)


def _binom(N, p):
    return [math.comb(N, k) * p ** k * (1 - p) ** (N - k) for k in range(N + 1)]


def _hypergeom(N, K, m):
    den = math.comb(N, m)
    return [mpmath.mpf(math.comb(K, j) * math.comb(N - K, m - j)) / den for j in range(m + 1)]


def _mixture(lam, A, B, length):
    """P(j) = lam A(j-1) + (1-lam) B(j), Q(j) = lam A(j) + (1-lam) B(j)."""
    P = [mpmath.mpf(0)] * length
    Q = [mpmath.mpf(0)] * length
    for i, a in enumerate(A):
        if i + 1 < length:
            P[i + 1] += lam * a
        Q[i] += lam * a
    for i, b in enumerate(B):
        P[i] += (1 - lam) * b
        Q[i] += (1 - lam) * b
    return P, Q


def _subsample(n, pi, m):
    p = mpmath.mpf(pi)
    return _mixture(mpmath.mpf(m) / n, _binom(m - 1, p), _binom(m, p), m + 1)


def _secret(n, m, K):
    return _mixture(mpmath.mpf(m) / n, _hypergeom(n - 1, K, m - 1), _hypergeom(n - 1, K, m), m + 1)


def _poisson(n, pi, rate):
    z = _binom(n - 1, mpmath.mpf(rate) * mpmath.mpf(pi))
    return _mixture(mpmath.mpf(rate), z, z, n + 1)


def _hs(P, Q, eps):
    e = mpmath.exp(mpmath.mpf(eps))
    return mpmath.fsum(max(p - e * q, 0) for p, q in zip(P, Q))


def _laplace_hs(P, Q, b, eps):
    """int (f_P - e^eps f_Q)_+ dx, f_A(x) = sum_k A(k) e^(-|x-k|/b) / (2b), atoms
    0..L-1: closed-form tails (constant sign), each unit interval split at its
    root (a sum of two exponentials changes sign at most once) and integrated by
    quadrature."""
    b = mpmath.mpf(b)
    e = mpmath.exp(mpmath.mpf(eps))
    L = len(P)

    def g(x):
        return mpmath.fsum((p - e * q) * mpmath.exp(-abs(x - k) / b)
                           for k, (p, q) in enumerate(zip(P, Q))) / (2 * b)

    left = mpmath.fsum((p - e * q) * mpmath.exp(-k / b) for k, (p, q) in enumerate(zip(P, Q))) / 2
    right = mpmath.fsum((p - e * q) * mpmath.exp(-(L - 1 - k) / b)
                        for k, (p, q) in enumerate(zip(P, Q))) / 2
    total = max(left, 0) + max(right, 0)
    for k in range(L - 1):
        a, c = mpmath.mpf(k), mpmath.mpf(k + 1)
        ga, gc = g(a), g(c)
        if ga <= 0 and gc <= 0:
            continue
        if ga > 0 and gc > 0:
            total += mpmath.quad(g, [a, c])
            continue
        root = mpmath.findroot(g, (a, c), solver="anderson")
        total += mpmath.quad(g, [a, root] if ga > 0 else [root, c])
    return total


def _geometric_hs(P, Q, alpha, eps):
    """sum_x (f_P(x) - e^eps f_Q(x))_+, f_A(x) = c sum_k A(k) alpha^|x-k|,
    c = (1-alpha)/(1+alpha); beyond the atoms the two geometric tails in
    closed form (constant ratio there)."""
    al = mpmath.mpf(alpha)
    e = mpmath.exp(mpmath.mpf(eps))
    c = (1 - al) / (1 + al)
    L = len(P)
    d = [p - e * q for p, q in zip(P, Q)]
    total = mpmath.mpf(0)
    for x in range(L):
        total += max(c * mpmath.fsum(dk * al ** abs(x - k) for k, dk in enumerate(d)), 0)
    left = c * mpmath.fsum(dk * al ** k for k, dk in enumerate(d)) * al / (1 - al)
    right = c * mpmath.fsum(dk * al ** (L - 1 - k) for k, dk in enumerate(d)) * al / (1 - al)
    return total + max(left, 0) + max(right, 0)


def _check_zero_point(curve, direction, eps0, delta_of, rel, what, ks=KS):
    """delta at eps0 (1 - 10^-k), at the float just below the true eps0, and 0
    from the float at or above it on; eps0 an mpmath number."""
    up = float(eps0)
    if up < eps0:
        up = math.nextafter(up, math.inf)
    code = statpriv._core.PLUS if direction == "plus" else statpriv._core.MINUS
    assert curve._core.zero_point(code) == up, f"{what}: zero point"
    log_fn = getattr(curve, "log_delta_" + direction)
    assert log_fn(up) == -math.inf
    assert log_fn(math.nextafter(up, math.inf)) == -math.inf
    eps_list = [float(eps0) * (1 - 10.0 ** -k) for k in ks] + [math.nextafter(up, 0.0)]
    for e in eps_list:
        with mpmath.workdps(DPS):
            ref = delta_of(e)
        assert_matches(log_fn(e), ref, rel=rel, what=f"{what} {direction} eps={e!r}")


@pytest.mark.parametrize("n,pi,m", [(10**9, 0.3, 10), (661493835, 0.4044, 3),
                                    (10**8, 0.02, 7), (10**7, 0.97, 40)])
def test_subsample_extreme_rate(n, pi, m):
    """m/n <= 1e-6: the sampling log ratio in log1p form with the exact m/n."""
    curve = counting(n, pi, sample_size=m)
    with mpmath.workdps(DPS):
        P, Q = _subsample(n, pi, m)
        for e in (0.0, 1e-9, 1e-7, -1e-8):
            assert_matches(curve.log_delta_plus(e), _hs(P, Q, e), what=f"plus eps={e}")
            assert_matches(curve.log_delta_minus(e), _hs(Q, P, e), what=f"minus eps={e}")


@pytest.mark.parametrize("n,pi,m", [(14926575, 0.6467, 54), (1000, 0.3, 37), (60, 0.05, 59)])
def test_subsample_zero_point(n, pi, m):
    curve = counting(n, pi, sample_size=m)
    with mpmath.workdps(DPS):
        P, Q = _subsample(n, pi, m)
        # the extreme ratios P(m)/Q(m) and Q(0)/P(0)
        _check_zero_point(curve, "plus", mpmath.log(P[m] / Q[m]), lambda e: _hs(P, Q, e),
                          1e-12, "subsample")
        _check_zero_point(curve, "minus", mpmath.log(Q[0] / P[0]), lambda e: _hs(Q, P, e),
                          1e-12, "subsample")


@pytest.mark.parametrize("n,m,K", [(7, 1, 5), (30, 7, 12), (200, 150, 3), (41, 40, 17)])
def test_secret_sample_zero_point(n, m, K):
    curve = secret_sample(n, m, positives=K)
    with mpmath.workdps(DPS):
        P, Q = _secret(n, m, K)
        top = max(j for j in range(m + 1) if P[j] > 0)
        bottom = min(j for j in range(m + 1) if Q[j] > 0)
        if Q[top] > 0:
            _check_zero_point(curve, "plus", mpmath.log(P[top] / Q[top]),
                              lambda e: _hs(P, Q, e), 1e-12, "secret")
        if P[bottom] > 0:
            _check_zero_point(curve, "minus", mpmath.log(Q[bottom] / P[bottom]),
                              lambda e: _hs(Q, P, e), 1e-12, "secret")


@pytest.mark.parametrize("n,pi,rate", [(30, 0.3, 0.2), (12, 0.9, 0.7), (25, 0.01, 1e-6)])
def test_poisson_zero_point(n, pi, rate):
    """delta_minus is 0 from eps0 = -ln(1 - rate) on (P(0)/Q(0) = 1 - rate);
    delta_plus is positive at every finite eps (Q(n) = 0 < P(n))."""
    curve = counting(n, pi, sample_rate=rate, sampling="poisson")
    assert curve._core.zero_point(statpriv._core.PLUS) == math.inf
    with mpmath.workdps(DPS):
        P, Q = _poisson(n, pi, rate)
        _check_zero_point(curve, "minus", -mpmath.log1p(-mpmath.mpf(rate)),
                          lambda e: _hs(Q, P, e), 1e-12, "poisson")


def test_poisson_far_tail_exact_rate():
    """rho = rate * pi is a rounded product; near rho = 1 the far-tail
    ln delta depends on it as n / (1 - rho) times its rounding (5e-9 here)."""
    n, pi, rate = 10**5, 0.9999, 0.999
    curve = counting(n, pi, sample_rate=rate, sampling="poisson")
    with mpmath.workdps(DPS):
        r = mpmath.mpf(rate) * mpmath.mpf(pi)
        for e in (6.9, 6.907):        # eps0 = -ln(1 - rate) = 6.9078
            # delta_minus: only the lowest atoms have Q/P = 1/(rate Z(j-1)/Z(j) + 1 - rate) > e^eps
            ee = mpmath.exp(e)
            terms = []
            z_prev, z = mpmath.mpf(0), (1 - r) ** (n - 1)        # Z(j-1), Z(j)
            for j in range(n):
                q, p = z, rate * z_prev + (1 - rate) * z
                if q <= ee * p:
                    break
                terms.append(q - ee * p)
                z_prev, z = z, z * (n - 1 - j) / (j + 1) * r / (1 - r)
            ref = mpmath.fsum(terms)
            # the contract deep in the tail: 1e-10 or 8 ulps of |ln delta|
            tol = max(1e-10, 8 * math.ulp(float(-mpmath.log(ref))))
            assert_matches(curve.log_delta_minus(e), ref, log_abs=tol, what=f"eps={e}")


def test_per_record_poisson_zero_point():
    probs = [0.1, 0.5, 0.9, 0.3]
    rate = 0.3
    curve = counting(None, probs, sample_rate=rate, sampling="poisson")
    with mpmath.workdps(DPS):
        z = [mpmath.mpf(1)]
        for p in probs:
            p = mpmath.mpf(rate) * mpmath.mpf(p)
            z = [(z[k] if k < len(z) else 0) * (1 - p) + (z[k - 1] * p if k else 0)
                 for k in range(len(z) + 1)]
        P, Q = _mixture(mpmath.mpf(rate), z, z, len(z) + 1)
        _check_zero_point(curve, "minus", -mpmath.log1p(-mpmath.mpf(rate)),
                          lambda e: _hs(Q, P, e), 1e-12, "per-record poisson")


@pytest.mark.parametrize("make,laws,b", [
    (lambda: counting(4, 0.5342, noise=Laplace(3.6364)),
     lambda: _mixture(1, _binom(3, mpmath.mpf(0.5342)), [], 5), 3.6364),
    (lambda: counting(50, 0.3, sample_size=5, noise=Laplace(1.5)),
     lambda: _subsample(50, 0.3, 5), 1.5),
    (lambda: counting(None, [0.1, 0.5, 0.9], noise=Laplace(0.7)),
     lambda: _mixture(1, _pb([0.1, 0.5, 0.9]), [], 5), 0.7),
    (lambda: counting(8, 0.3, sample_rate=0.2, sampling="poisson", noise=Laplace(1.5)),
     lambda: _poisson(8, 0.3, 0.2), 1.5),
])
def test_laplace_zero_point(make, laws, b):
    """Laplace(b) noise: the density ratio is constant beyond the atoms,
    G_P(e^(+-1/b)) / G_Q(e^(+-1/b)), and that is its extreme (e^(1/b) for the
    plain shift)."""
    curve = make()
    with mpmath.workdps(DPS):
        P, Q = laws()
        w = mpmath.exp(1 / mpmath.mpf(b))
        eps_plus = mpmath.log(_gen(P, w) / _gen(Q, w))
        eps_minus = mpmath.log(_gen(Q, 1 / w) / _gen(P, 1 / w))
        _check_zero_point(curve, "plus", eps_plus, lambda e: _laplace_hs(P, Q, b, e), 1e-10,
                          "laplace", KS_SHORT)
        _check_zero_point(curve, "minus", eps_minus, lambda e: _laplace_hs(Q, P, b, e), 1e-10,
                          "laplace", KS_SHORT)


@pytest.mark.parametrize("make,laws,alpha", [
    (lambda: counting(6, 0.3, noise=Geometric(0.7)),
     lambda: _mixture(1, _binom(5, mpmath.mpf(0.3)), [], 7), 0.7),
    (lambda: counting(50, 0.3, sample_size=5, noise=Geometric(0.6)),
     lambda: _subsample(50, 0.3, 5), 0.6),
    (lambda: counting(8, 0.3, sample_rate=0.2, sampling="poisson", noise=Geometric(0.5)),
     lambda: _poisson(8, 0.3, 0.2), 0.5),
    (lambda: counting(None, [0.1, 0.5, 0.9, 0.3], noise=Geometric(0.3)),
     lambda: _mixture(1, _pb([0.1, 0.5, 0.9, 0.3]), [], 6), 0.3),
])
def test_geometric_zero_point(make, laws, alpha):
    curve = make()
    with mpmath.workdps(DPS):
        P, Q = laws()
        w = 1 / mpmath.mpf(alpha)
        eps_plus = mpmath.log(_gen(P, w) / _gen(Q, w))
        eps_minus = mpmath.log(_gen(Q, 1 / w) / _gen(P, 1 / w))
        _check_zero_point(curve, "plus", eps_plus, lambda e: _geometric_hs(P, Q, alpha, e), 1e-10,
                          "geometric")
        _check_zero_point(curve, "minus", eps_minus, lambda e: _geometric_hs(Q, P, alpha, e),
                          1e-10, "geometric")


def _gen(A, w):
    return mpmath.fsum(a * w ** k for k, a in enumerate(A))


def _pb(probs):
    z = [mpmath.mpf(1)]
    for p in probs:
        p = mpmath.mpf(p)
        z = [(z[k] if k < len(z) else 0) * (1 - p) + (z[k - 1] * p if k else 0)
             for k in range(len(z) + 1)]
    return z


def test_noisy_extreme_rate():
    """Geometric and Laplace noise on a sample with m/n = 1e-8."""
    n, pi, m = 10**9, 0.3, 10
    with mpmath.workdps(DPS):
        P, Q = _subsample(n, pi, m)
        for noise, hs in ((Geometric(0.8), lambda A, B, e: _geometric_hs(A, B, 0.8, e)),
                          (Laplace(2.0), lambda A, B, e: _laplace_hs(A, B, 2.0, e))):
            curve = counting(n, pi, sample_size=m, noise=noise)
            for e in (0.0,):
                assert_matches(curve.log_delta_plus(e), hs(P, Q, e), rel=1e-10,
                               what=f"{noise} plus eps={e}")
                assert_matches(curve.log_delta_minus(e), hs(Q, P, e), rel=1e-10,
                               what=f"{noise} minus eps={e}")


def test_no_warnings_leak():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        curves = [
            counting(10**9, 0.3, sample_size=10),
            counting(10**9, 1e-300, sample_size=10),
            counting(15, 5e-324, sample_size=9),
            counting(10**5, 0.5, sample_size=10**5 - 1),
            counting(50, 0.3, sample_rate=1e-9, sampling="poisson"),
            counting(50, 0.3, sample_rate=1.0, sampling="poisson"),
            counting(50, 1.0 - 2.0 ** -53, sample_rate=0.5, sampling="poisson"),
            counting(None, [5e-324, 0.5, 1 - 2.0 ** -53], sample_rate=0.5, sampling="poisson"),
            counting(None, [5e-324, 0.5, 1 - 2.0 ** -53]),
            counting(10**9, 0.3, sample_size=10, noise=Geometric(0.9)),
            counting(10**9, 0.3, sample_size=10, noise=Laplace(3.0)),
            counting(40, 0.3, sample_rate=0.5, sampling="poisson", noise=Laplace(0.5)),
            secret_sample(7, 1, positives=5),
            secret_sample(10, 10, positives=0),
            secret_sample(10, 5, positives=9, noise=Geometric(0.5)),
        ]
        for c in curves:
            # warnings are errors here; the values must also be probabilities
            d = c.delta(np.array([-1.0, 0.0, 0.3, 5.0, 800.0, np.inf]))
            assert np.all((d >= 0.0) & (d <= 1.0)), c
            assert np.all(c.log_delta_plus(np.array([0.0, 2.0, np.inf])) <= 0.0), c
            assert not np.any(np.isnan(c.epsilon(np.array([0.0, 1e-9, 0.5])))), c


def test_tiny_rate_generic_laws():
    """Laws without a closed-form ratio at tiny rates: per-record Poisson
    sampling (log1p(rate expm1(ln Z(j-1)/Z(j)))), and pi = 0 with geometric
    noise (cells from the convolved difference P - Q)."""
    probs, rate = [0.3, 0.6, 0.2], 1e-7
    curve = counting(None, probs, sample_rate=rate, sampling="poisson")
    n, m = 30530668239, 137
    noisy = counting(n, 0.0, sample_size=m, noise=Geometric(0.427303138549747))
    with mpmath.workdps(DPS):
        z = _pb([mpmath.mpf(rate) * mpmath.mpf(p) for p in probs])
        P, Q = _mixture(mpmath.mpf(rate), z, z, len(z) + 1)
        for e in (0.0, 1e-8):
            assert_matches(curve.log_delta_plus(e), _hs(P, Q, e), what=f"per-record plus {e}")
            assert_matches(curve.log_delta_minus(e), _hs(Q, P, e), what=f"per-record minus {e}")
        lam = mpmath.mpf(m) / n
        P, Q = [1 - lam, lam], [mpmath.mpf(1), mpmath.mpf(0)]
        for e in (0.0, 1e-300):
            assert_matches(noisy.log_delta_plus(e), _geometric_hs(P, Q, 0.427303138549747, e),
                           rel=1e-10, what=f"pi=0 geometric plus {e}")
            assert_matches(noisy.log_delta_minus(e), _geometric_hs(Q, P, 0.427303138549747, e),
                           rel=1e-10, what=f"pi=0 geometric minus {e}")


@pytest.mark.parametrize("kwargs", [{}, {"sample_rate": 0.5, "sampling": "poisson"}])
def test_eps_inf_is_the_limit_on_pair_curves(kwargs):
    # delta(+inf) = the numerator's mass where the other law is 0: the mpmath
    # brute force at eps = 1e4 (e^eps Q(x) is 0 or astronomically large) is
    # that limit.  delta_plus > 0 there (the top count needs the target);
    # delta_minus too without sampling, 0 with it (Q/P <= 1/(1 - rate)).
    curve = statpriv.counting(None, [0.3, 0.5, 0.9], **kwargs)
    for direction in ("plus", "minus"):
        ref = float(curve._reference([1e4], direction)[0])
        got = getattr(curve, f"delta_{direction}")(math.inf)
        assert got == pytest.approx(ref, rel=1e-14, abs=0.0)
        assert (ref > 0) == (direction == "plus" or not kwargs)
    assert curve.delta(math.inf) == pytest.approx(float(curve.delta(1e4, precision="mp")),
                                                   rel=1e-14, abs=0.0)


# ---------------------------------------------------------------------------
# pmf kernels: Loader's form
#   ln b(k) = -0.5 ln(2 pi k (N-k)/N) + stirlerr(N) - stirlerr(k) - stirlerr(N-k)
#             - bd0(k, N p) - bd0(N-k, N q),
# stirlerr(m) = ln m! - ln(sqrt(2 pi m) (m/e)^m), bd0(x, M) = x ln(x/M) + M - x.
# stirlerr and bd0 are not exposed; they are tested through the pmfs at points
# where each dominates.  Truth: ln C(N,k) + k ln p + (N-k) ln(1-p) by mpmath's
# loggamma at 40 digits (p the exact float).
# ---------------------------------------------------------------------------

def _ln_binom_pmf(N, p, k):
    with mpmath.workdps(40):
        p = mpmath.mpf(p)
        return (mpmath.loggamma(N + 1) - mpmath.loggamma(k + 1) - mpmath.loggamma(N - k + 1)
                + k * mpmath.log(p) + (N - k) * mpmath.log1p(-p))


def _ln_hypergeom_pmf(j, N, K, m):
    with mpmath.workdps(40):
        return (mpmath.log(mpmath.binomial(K, j)) + mpmath.log(mpmath.binomial(N - K, m - j))
                - mpmath.log(mpmath.binomial(N, m)))


def _assert_ulps(ours, ref, ulps, what):
    err = abs(float(mpmath.mpf(ours) - ref))
    assert err <= ulps * math.ulp(max(abs(float(ref)), 1.0)), (what, ours, float(ref), err)


# k = N p exactly: both bd0 terms are exactly 0, so ln b(k) is the Stirling
# corrections plus the normalising log: stirlerr's table (m <= 50), the switch
# to its asymptotic series at 50/51, and the series out to 2^42.
STIRLERR_KS = [1, 2, 3, 7, 12, 25, 49, 50, 51, 52, 53, 100, 1000, 12345, 10 ** 6, 10 ** 9,
               10 ** 12, 2 ** 40]


@pytest.mark.parametrize("p,mult", [(0.5, 2), (0.25, 4), (0.125, 8)])
def test_log_binom_pmf_at_the_mean_stirlerr(p, mult):
    for k in STIRLERR_KS:
        N = mult * k
        ours = law_kernels.log_binom_pmf(float(N), p, np.array([float(k)]))[0]
        _assert_ulps(ours, _ln_binom_pmf(N, p, k), 2, f"N={N} p={p} k={k}")


def _bd0_points(N, p):
    """k around the mean M = N p: the cancellation-free series of bd0 (|k - M| small),
    both sides of its switch to the closed form at |k - M| = 0.35 (k + M)
    (k ~ 2.077 M above, k ~ 0.4815 M below), and far tails."""
    M = N * p
    ks = {round(M) + s * d for d in (1, 2, 3, 10, 30, 100, 1000, 10 ** 4, 10 ** 5, 10 ** 6, 10 ** 9)
          for s in (1, -1)}
    for edge in (0.7 / 0.65 * M, -0.7 / 1.35 * M):
        ks |= {round(M + edge) + j for j in (-2, -1, 0, 1, 2)}
    return sorted(k for k in ks if 0 < k < N)


@pytest.mark.parametrize("N,p", [(1e6, 0.3), (1e3, 0.5), (1e12, 0.1), (60.0, 0.5), (200.0, 0.01),
                                 (1e9, 1e-6), (1e8, 0.01), (1e15, 1e-9)])
def test_log_binom_pmf_off_the_mean_bd0(N, p):
    ks = _bd0_points(N, p)
    # Measured: <= 1.6 ulps of |ln b| except just above the switch (k ~ 2.077 M),
    # where the closed form x ln(x/M) - d cancels (up to 8.2 ulps seen there,
    # e.g. N = 1e15, p = 1e-9, k = 2076953): the bound is 10 ulps.
    ours = law_kernels.log_binom_pmf(N, p, np.array(ks, dtype=float))
    for k, o in zip(ks, ours):
        _assert_ulps(o, _ln_binom_pmf(int(N), p, k), 10, f"N={N} p={p} k={k}")


@pytest.mark.parametrize("N,K,m", [(10, 3, 4), (100, 50, 50), (1000, 300, 100), (10 ** 6, 3 * 10 ** 5, 1000),
                                   (10 ** 9, 10 ** 8, 10 ** 4), (10 ** 12, 5 * 10 ** 11, 10 ** 6)])
def test_log_hypergeom_pmf_points(N, K, m):
    # three Loader binomial terms (b(j; K, m/N) b(m-j; N-K, m/N) / b(m; N, m/N))
    mode = (m + 1) * (K + 1) // (N + 2)
    js = sorted({0, 1, mode - 10, mode - 1, mode, mode + 1, mode + 10, m // 2, min(K, m)})
    js = [j for j in js if 0 <= j <= min(K, m) and m - j <= N - K]
    ours = law_kernels.log_hypergeom_pmf(np.array(js, dtype=float), float(N), float(K), float(m))
    for j, o in zip(js, ours):
        _assert_ulps(o, _ln_hypergeom_pmf(j, N, K, m), 8, f"N={N} K={K} m={m} j={j}")


def test_log_hypergeom_pmf_exact_small_case_and_support():
    # N = 10, K = 3, m = 4: P[J = j] = C(3, j) C(7, 4 - j) / C(10, 4) = (35, 105, 63, 7) / 210
    ours = law_kernels.log_hypergeom_pmf(np.array([-1.0, 0.0, 1.0, 2.0, 3.0, 4.0]), 10.0, 3.0, 4.0)
    assert ours[0] == ours[5] == -math.inf
    for o, c in zip(ours[1:5], (35, 105, 63, 7)):
        _assert_ulps(o, mpmath.log(mpmath.mpf(c) / 210), 4, f"j for {c}/210")
    # m = 0 and m = N: J is determined
    assert list(law_kernels.log_hypergeom_pmf(np.array([0.0, 1.0]), 10.0, 3.0, 0.0)) == [0.0, -math.inf]
    assert law_kernels.log_hypergeom_pmf(np.array([3.0]), 10.0, 3.0, 10.0)[0] == 0.0


def test_monotone_flag_is_the_numpy_test():
    """PairCurveCore.monotone (one Cython pass) is exactly the test
    np.all(np.diff(lr) >= -1e-12 * (1 + |lr[:-1]|)) in long double, NaN and
    infinities included."""
    rng = np.random.default_rng(7)
    cases = [np.array(v, dtype=np.longdouble) for v in
             ([0.0], [-np.inf, 0.0, np.inf], [0.0, np.nan, 1.0], [np.inf, np.inf], [1.0, -np.inf])]
    for _ in range(300):
        step = rng.normal(0.0, 1e-12, 40) * rng.choice([1.0, 1e3, 1e-3])
        cases.append(np.cumsum(step).astype(np.longdouble) + rng.choice([0.0, 5.0, -300.0]))
    seen = set()
    for lr in cases:
        with np.errstate(invalid="ignore"):
            want = bool(np.all(np.diff(lr) >= -1e-12 * (1.0 + np.abs(lr[:len(lr) - 1]))))
        lp = np.full(len(lr), -1.0, dtype=np.longdouble)
        assert _core.PairCurveCore(lp, lp, lr).monotone == want
        seen.add(want)
    assert seen == {True, False}


def test_binomial_shift_views_match_the_mixture_bit_for_bit():
    # the noisy paths' shift laws as two views of one padded buffer: the same
    # arrays as mixture(ln Z, ln Z, 1) on a full window and a cut one
    from statpriv.laws import mixture, windows
    for N, pi, first, last in ((1000, 0.3, 0, 1000), (10**6, 0.5, 499000, 501000), (7, 0.9, 2, 5)):
        log_z = windows.binomial_log_pmf(N, pi, first, last)
        want = mixture.mixture(log_z, log_z, 1.0)
        got = mixture.binomial_shift(N, pi, first, last)
        for a, b in zip(got, want):
            assert a.dtype == b.dtype and np.array_equal(a, b)
        assert np.shares_memory(got[0], got[1])
    with pytest.raises(ValueError, match="out"):
        law_kernels.binom_window_logl(10.0, 0.5, 0, 3, out=np.empty(2, dtype=np.longdouble))
