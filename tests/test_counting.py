"""statpriv.counting: the noiseless count, iid (``counting(n, pi)``) and per record
(``counting(None, pis)``), against the mpmath oracle (statpriv.reference, values
stored in tests/data), the published values, and at its edges.

Edges: every float pi
(0, subnormal, 1 - 2^-53, 1), far tails where delta underflows, and n up to 2^53.

The oracle here is written from the definitions alone and shares nothing with
the fast path: with S ~ Bin(N, pi), N = n - 1, P the law of S + 1 and Q that of S,
    delta_plus(eps)  = sum_k (P(k) - e^eps Q(k))_+,
    delta_minus(eps) = sum_k (Q(k) - e^eps P(k))_+,
the binomial pmf from mpmath's loggamma at 50 digits with ln pi and ln(1 - pi)
taken from the exact float pi (so 1 - 5e-324 never rounds).  Small n: every atom.
Large n: the positive part of P - e^eps Q is {k >= k0} (the ratio
P(k)/Q(k) = k q / ((n - k) p) increases in k), summed term by term with a
geometric remainder bound, or by Euler-Maclaurin (mpmath.sumem) on the smooth
summand when sqrt(N pi (1 - pi)) is in the thousands and beyond and |eps| is
small enough (< 2e-3) that the summand changes little from atom to atom.  delta_minus is
delta_plus of the mirrored law N - S (ln p and ln q swapped).

Accuracy asserted (Breutigam & Reischuk, "Statistical Privacy", the contract
of statpriv): relative error <= 1e-12 where delta is a normal float, else
|ln delta error| <= max(1e-10, 8 ulps of |ln delta|); never below the truth by
more than that; -inf only where delta is exactly 0.
"""
import math

import mpmath as mp
import numpy as np
import pytest
from mpmath import mpf

import statpriv
from statpriv import _core
from statpriv.laws import _kernels as law_kernels
from helpers import (FAR_TAIL_LOG_DELTA, STATISTICAL_PRIVACY_VALUES, assert_matches,
                     assert_within_certified, certified, check_curve, oracle, prefetch)

# The oracle of this file is tests/independent_oracle.py counting_log_delta (its
# values stored in tests/data/reference/independent.json, recomputed by the
# exhaustive test of tests/test_reference_store.py).

REL = 1e-12


# ---------------------------------------------------------------------------
# oracle
# ---------------------------------------------------------------------------

def check(n, pi, eps, direction):
    curve = statpriv.counting(n, pi)
    f = curve.log_delta_plus if direction == "plus" else curve.log_delta_minus
    ours = float(f(eps))
    ref = oracle("counting_log_delta", n, pi, eps, direction)     # stored
    what = f"counting({n}, {pi!r}) {direction} eps={eps!r}: ours {ours!r}, oracle ln {mp.nstr(ref, 17)}"
    if ref == mp.ninf:
        assert ours == -math.inf, what
        return
    assert ours > -math.inf, what
    diff = float(mpf(ours) - ref)
    if ref > -700:
        tol = -math.log1p(-REL)
    else:
        tol = max(1e-10, 8 * math.ulp(abs(float(ref))))
    assert abs(diff) <= tol, f"{what}: ln delta off by {diff:.3e}"
    assert_within_certified(ours, certified("counting_log_delta", n, pi, eps, direction),
                            rel=REL, what=what + " (certified)")
    return diff


# ---------------------------------------------------------------------------
# class 1: every float pi
# ---------------------------------------------------------------------------

EXTREME_PIS = [0.0, 5e-324, 1e-310, 1e-300, 1e-20, 1e-17, 2.0 ** -53, 1e-9,
               1 - 2.0 ** -53, 1 - 1e-9, 1.0]
EXTREME_EPS = [-5.0, -0.01, 0.0, 0.5, 5.0, 700.0, 745.5, 760.0, 1e4]


@pytest.mark.parametrize("pi", EXTREME_PIS)
def test_extreme_pi_small_n(pi):
    for n in (1, 2, 10, 300):
        for eps in EXTREME_EPS:
            for direction in ("plus", "minus"):
                check(n, pi, eps, direction)


@pytest.mark.parametrize("pi", [5e-324, 1e-300, 1e-17, 1 - 2.0 ** -53])
def test_extreme_pi_large_n(pi):
    for n in (10 ** 4, 10 ** 6, 10 ** 9):
        # eps up to ln r(N) = ln(N q / p), the last finite likelihood ratio
        log_r_max = math.log(n - 1) + math.log1p(-pi) - math.log(pi)
        for eps in (-0.01, 0.0, 0.5, 5.0, 0.5 * log_r_max, log_r_max - 1e-6, log_r_max + 1.0):
            for direction in ("plus", "minus"):
                check(n, pi, eps, direction)


def test_issue_examples_tiny_pi():
    # P and Q are (nearly) point masses at 1 and 0: delta_minus = (1-pi)^9 at every eps.
    curve = statpriv.counting(10, 1e-300)
    assert curve.delta_minus(0.0) == 1.0
    assert curve.delta_plus(-0.01) == 1.0
    assert curve.delta_minus(50.0) == 1.0
    # no finite eps brings delta_minus (hence delta) to 0.5
    assert curve.epsilon(0.5, direction="minus") == math.inf
    assert curve.epsilon(0.5) == math.inf
    # delta_plus ~ 1 - 9 pi e^eps crosses 1/2 near eps = ln(1/(18 pi)) ~ 687.9
    e = curve.epsilon(0.5, direction="plus")
    assert 687.0 < e < 689.0
    assert oracle("counting_log_delta", 10, 1e-300, e, "plus") <= math.log(0.5) + 1e-12
    assert oracle("counting_log_delta", 10, 1e-300, e * (1 - 1e-9), "plus") > math.log(0.5)


@pytest.mark.parametrize("pi,other", [(2.0 ** -53, 1 - 2.0 ** -53), (2.0 ** -30, 1 - 2.0 ** -30),
                                      (0.25, 0.75), (0.0, 1.0)])
def test_mirror_symmetry(pi, other):
    # N - S ~ Bin(N, 1 - pi): pi <-> 1 - pi swaps delta_plus and delta_minus
    # (both floats here are exact complements).
    eps = np.array([-0.3, 0.0, 0.01, 1.0, 20.0, 40.0, 400.0])
    for n in (2, 57, 10 ** 5, 10 ** 9):
        a, b = statpriv.counting(n, pi), statpriv.counting(n, other)
        for x, y in ((a.log_delta_plus(eps), b.log_delta_minus(eps)),
                     (a.log_delta_minus(eps), b.log_delta_plus(eps))):
            assert np.all((x == y) | (np.abs(x - y) <= 1e-13 * np.maximum(1.0, np.abs(x)))), (n, x, y)


def test_total_variation_subnormal_pi():
    # TV(S+1, S) = max_k b(k) = b(0) = (1 - pi)^N for pi = 5e-324
    for n in (2, 1000, 10 ** 12):
        curve = statpriv.counting(n, 5e-324)
        assert curve.total_variation() == curve.delta(0.0) == 1.0


def test_log_pmf_near_the_ends():
    # Loader's form at k close to N, where ln(1 - k/N) from a rounded k/N lost
    # digits (the mirrored law of a small pi lives there), and for subnormal pi.
    cases = [(1e9 - 1, 1 - 1e-9), (1e9 - 1, 1e-9), (1e6, 0.999), (1e12, 0.5),
             (20.0, 5e-324), (1e4, 1e-310), (1e4, 1 - 2.0 ** -53), (2.0 ** 53 - 1, 0.3)]
    with mp.workdps(40):
        for N, pi in cases:
            ks = np.array(sorted({1.0, 2.0, math.floor(N / 2), N - 2, N - 1, max(N - 1e5, 1.0)}))
            ours = law_kernels.log_binom_pmf(N, pi, ks)
            for k, o in zip(ks, ours):
                p = mpf(pi)
                ref = (mp.loggamma(N + 1) - mp.loggamma(k + 1) - mp.loggamma(N - k + 1)
                       + k * mp.log(p) + (N - k) * mp.log1p(-p))
                tol = max(2e-14, 8 * math.ulp(abs(float(ref))))
                assert abs(float(o - ref)) <= tol, (N, pi, k, o, float(ref))
    # the extended-precision window agrees at subnormal pi and at pi = 0, 1
    w = law_kernels.binom_window_logl(1e4, 1e-310, 0, 4)
    ref = [float(mp.log1p(-mpf(1e-310)) * 10000),
           float(mp.log(10000) + mp.log(mpf(1e-310)) + 9999 * mp.log1p(-mpf(1e-310)))]
    assert abs(float(w[0]) - ref[0]) <= 1e-12 and abs(float(w[1]) - ref[1]) <= 1e-9
    assert list(law_kernels.binom_window_logl(5.0, 0.0, 0, 3)) == [0.0, -math.inf, -math.inf]
    assert list(law_kernels.binom_window_logl(5.0, 1.0, 3, 3)) == [-math.inf, -math.inf, 0.0]


# ---------------------------------------------------------------------------
# class 2: far tails (delta < 1e-300) at large n and small pi
# ---------------------------------------------------------------------------

FAR_TAIL = [
    (3013361, 3.0145101043069244e-06, 6.641082456658125, "plus"),
    (1492489, 0.00020113645268986333, 15.407630772822145, "plus"),
    (8854023, 0.00033600532590476206, 6.905759006533778, "plus"),
    (2000000, 1e-3, 4.0, "minus"),
    (10 ** 7, 1e-6, 20.0, "minus"),
    (576701, 0.9992870953351582, 8.29424207033002, "minus"),
    (10 ** 6, 1e-5, -30.0, "plus"),
    (10 ** 9, 1e-9, 0.0, "minus"),
    # Loader's bd0 far from the mean: x ln(x/M) and x - M cancel to ~1e-1
    (48049259713, 0.0003428675143031273, 0.2574429146082487, "plus"),
    (48049259713, 0.0003428675143031273, 0.2574429146082487, "minus"),
]


@pytest.mark.parametrize("n,pi,eps,direction", FAR_TAIL)
def test_far_tail_large_n(n, pi, eps, direction):
    check(n, pi, eps, direction)


# ---------------------------------------------------------------------------
# class 3: huge n (summation with ~1e6..1e8 terms)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("n,pi,c,direction", [(10 ** 12, 0.3, 0.5, "plus"),
                                             (10 ** 12, 0.3, 3.0, "minus")])
def test_huge_n(n, pi, c, direction):
    eps = c / math.sqrt(n * pi * (1 - pi))
    check(n, pi, eps, direction)


# Where the terms vary on a scale s = sigma / (1 + eps sigma) >= 2^16, the sum
# from the threshold is taken by the Euler-Maclaurin formula (Gauss-Legendre
# panels over the terms' continuation, csrc/binomial_tail.c); c = eps sigma
# from the mode out to ~30 sigma (ln delta ~ -460) and past the switch:
# s = 7.2e4 (c = 200, smooth) and 6.3e4 (c = 230, term by term) at n = 1e15.
SMOOTH_SUMS = [(10 ** 13, 0.3, 0.3, "plus"), (10 ** 13, 0.01, 2.0, "minus"),
               (10 ** 15, 0.3, 1.8, "plus"), (10 ** 15, 0.3, 1.8, "minus"),
               (10 ** 15, 0.7, 30.0, "minus"), (10 ** 15, 0.3, 200.0, "plus"),
               (10 ** 15, 0.3, 230.0, "plus"), (2 ** 53, 0.5, 5.0, "plus"),
               (197325226787002, 0.025443040472851276, 30.0, "minus")]


@pytest.mark.parametrize("n,pi,c,direction", SMOOTH_SUMS)
def test_smooth_sums(n, pi, c, direction):
    check(n, pi, c / math.sqrt((n - 1) * pi * (1 - pi)), direction)


@pytest.mark.exhaustive
@pytest.mark.first
def test_smooth_sums_random():
    """Random draws where the sums are smooth: n in [1e12, 2^53], pi
    log-uniform or uniform, eps sigma in [0, 60]."""
    rng = np.random.default_rng(20261129)
    for _ in range(40):
        n = int(10 ** rng.uniform(12, 15.95))
        pi = float(10 ** rng.uniform(-3, 0)) if rng.random() < 0.5 else float(rng.uniform(1e-3, 0.999))
        c = float(rng.uniform(0, 60))
        direction = "plus" if rng.random() < 0.5 else "minus"
        check(n, pi, c / math.sqrt((n - 1) * pi * (1 - pi)), direction)


HUGE_NS = [10 ** 10, 10 ** 11, 10 ** 12, 10 ** 13, 2 ** 53]
HUGE_PIS = [0.3, 0.01, 1e-6]


@pytest.mark.exhaustive
@pytest.mark.first
@pytest.mark.parametrize("n", HUGE_NS)
@pytest.mark.parametrize("pi", HUGE_PIS)
def test_huge_n_sweep(n, pi):
    sigma = math.sqrt(n * pi * (1 - pi))
    calls = [(n, pi, c / sigma, direction)
             for c, direction in [(0.0, "plus"), (0.3, "plus"), (1.0, "minus"), (4.0, "minus")]]
    # every value against the mpmath sum; the certified interval (an Arb
    # window of up to 4e6 atoms, ~20 s each) of one value on every other
    # case (a checkerboard over n and pi: each n and each pi has one), the
    # four taken in turn
    where = HUGE_NS.index(n) + HUGE_PIS.index(pi)
    certify = [calls[where // 2 % len(calls)]] if where % 2 == 0 else []
    prefetch("counting_log_delta", calls, certify=certify)
    for call in calls:
        check(*call)


# ---------------------------------------------------------------------------
# against the oracle (statpriv.reference; stored values) and published values
# ---------------------------------------------------------------------------

PIS = [1e-9, 0.01, 0.3, 0.5, 0.99, 1 - 1e-9]


@pytest.mark.parametrize("n", [1, 2, 10, 100, 10**4])
@pytest.mark.parametrize("pi", PIS)
def test_iid_grid(n, pi):
    check_curve(statpriv.counting(n, pi), ("counting_delta", (n, pi), {}), label=f"n={n} pi={pi}")


@pytest.mark.parametrize("pi", [0.0, 1.0])
def test_known_records_reveal_target(pi):
    # All others known: the count reveals the target, delta = 1 at every eps.
    curve = statpriv.counting(50, pi)
    assert np.all(curve.delta([0.0, 1.0, 30.0]) == 1.0)
    check_curve(curve, ("counting_delta", (50, pi), {}), label=f"pi={pi}")


@pytest.mark.parametrize("sampling", [None, "poisson"])
def test_per_record_pi(sampling):
    rng = np.random.default_rng(7)
    pi = rng.uniform(0.0, 1.0, 150)
    pi[:5] = [0.0, 1.0, 1e-9, 1 - 1e-9, 0.5]
    kwargs = {} if sampling is None else dict(sample_rate=0.2, sampling="poisson")
    curve = statpriv.counting(None, pi, **kwargs)
    check_curve(curve, ("counting_delta", (151, [float(p) for p in pi]), kwargs), label=f"per-record {sampling}")


@pytest.mark.parametrize("n,pi,eps,value", STATISTICAL_PRIVACY_VALUES)
def test_published_values(n, pi, eps, value):
    assert_matches(statpriv.counting(n, pi).log_delta(eps), mp.mpf(value), rel=1e-13)


@pytest.mark.parametrize("n,log_value", FAR_TAIL_LOG_DELTA)
def test_published_far_tail_log_delta(n, log_value):
    ours = statpriv.counting(n, 0.3).log_delta(0.05)
    assert abs(ours - float(mp.mpf(log_value))) <= 1e-10
    assert statpriv.counting(n, 0.3).delta(0.05) == math.exp(ours)


@pytest.mark.parametrize("n,eps", [(10**9, 2e-4), (10**9, 5e-4), (10**8, 1e-3)])
def test_huge_n_against_mpmath(n, eps):
    # independent_oracle.windowed_delta_plus (a 50-digit windowed sum), stored in tests/data
    ref = oracle("windowed_delta_plus", n, 0.3, eps)
    assert_matches(statpriv.counting(n, 0.3).log_delta_plus(eps), ref, what=f"n={n} eps={eps}")


@pytest.mark.parametrize("N, pi, h", [(10 ** 6, 0.3, 1.4e-5), (10 ** 4, 0.5, 1e-4),
                                      (1000, 0.05, 1.7e-3), (10 ** 8, 0.01, 1.4e-5)])
def test_ascending_walk_matches_the_one_point_delta(N, pi, h):
    # the grid values of curve_bracket (log_delta_ascending: one exact sum per
    # few dozen points, the rest walked) against the one-point exact delta at
    # every grid point and cell middle: bound 3.6e-13 (csrc/binomial_tail.c),
    # observed <= 3e-14 (the resolution of float64 logs near -40)
    from statpriv import _core
    core = statpriv.counting(N, pi)._core
    for code in (_core.PLUS, _core.MINUS):
        top = min(float(core.epsilon(np.array([np.log(1e-18)]), code)[0]), 3.0)
        grid = np.arange(int(top / h) + 2) * h
        for eps in (grid, grid + h / 2, np.concatenate((grid[:50], grid[10:30]))):
            one = core.log_delta(eps, code)
            walked = core.log_delta_ascending(eps, code)
            finite = np.isfinite(one)
            assert np.array_equal(np.isfinite(walked), finite)
            assert np.max(np.abs(np.expm1(walked[finite] - one[finite]))) <= 1e-13
