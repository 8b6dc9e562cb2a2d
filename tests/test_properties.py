"""hypothesis properties of the iid count (docs/mathematics.md §1-2; the checks shared with
the table of every curve kind, tests/mechanisms.py) and agreement between
independent code paths: the on-the-fly binomial tail sum, the Poisson-binomial
convolution + array tail, the Poisson-sampling array path at rate 1, and the
incomplete-beta closed form P[S >= k-1] - e^eps P[S >= k]."""
import math

import mpmath
import numpy as np
import pytest
import scipy.special
from hypothesis import given, settings, strategies as st

import statpriv
from mechanisms import check_mirror, check_non_increasing, check_probability

ns = st.integers(min_value=1, max_value=100_000)
small_ns = st.integers(min_value=1, max_value=400)
pis = st.floats(min_value=0.0, max_value=1.0)
interior_pis = st.floats(min_value=1e-6, max_value=1 - 1e-6)
epss = st.floats(min_value=-5.0, max_value=20.0)
PROPERTY_SETTINGS = settings(max_examples=150, deadline=None)


@PROPERTY_SETTINGS
@given(ns, pis, epss)
def test_delta_is_a_probability(n, pi, eps):
    check_probability(statpriv.counting(n, pi), eps)


@PROPERTY_SETTINGS
@given(ns, pis, epss, st.floats(min_value=0.0, max_value=5.0))
def test_non_increasing_in_eps(n, pi, eps, step):
    check_non_increasing(statpriv.counting(n, pi), [eps, eps + step])


def _check_total_variation(n, pi):
    # TV(S+1, S) = 1/2 sum_k |b(k-1) - b(k)|, b summed directly at 30 digits.
    with mpmath.workdps(30):
        p, N = mpmath.mpf(pi), n - 1
        b = [mpmath.binomial(N, k) * p ** k * (1 - p) ** (N - k) for k in range(n)]
        shifted, same = [0] + b, b + [0]
        tv = sum(abs(x - y) for x, y in zip(shifted, same)) / 2
    assert statpriv.counting(n, pi).delta(0.0) == pytest.approx(float(tv), rel=1e-12, abs=1e-300)


# An mpmath sum of up to 400 terms per example: 50 examples in the default run,
# 500 in the exhaustive one (the other properties are float-only: 150).
@settings(max_examples=50, deadline=None)
@given(small_ns, pis)
def test_delta_at_zero_is_total_variation(n, pi):
    _check_total_variation(n, pi)


@pytest.mark.exhaustive
@settings(max_examples=500, deadline=None)
@given(small_ns, pis)
def test_delta_at_zero_is_total_variation_many(n, pi):
    _check_total_variation(n, pi)


@PROPERTY_SETTINGS
@given(ns, st.integers(min_value=0, max_value=2 ** 20), epss)
def test_symmetry_swaps_plus_and_minus(n, numerator, eps):
    pi = numerator / 2 ** 20           # 1 - pi is exact in binary
    check_mirror(statpriv.counting(n, pi), statpriv.counting(n, 1.0 - pi), eps)


def _close_in_log(x, y, tol):
    if x == -math.inf or y == -math.inf:
        return x == y
    return abs(x - y) <= tol * max(1.0, abs(x))


@PROPERTY_SETTINGS
@given(small_ns, interior_pis, st.floats(min_value=-2.0, max_value=8.0))
def test_binomial_kernel_agrees_with_convolution_path(n, pi, eps):
    fast = statpriv.counting(n, pi)
    convolved = statpriv.counting(None, np.full(n - 1, pi))
    poisson_rate_1 = statpriv.counting(n, pi, sample_rate=1.0, sampling="poisson")
    for direction in ("log_delta_plus", "log_delta_minus"):
        x = getattr(fast, direction)(eps)
        assert _close_in_log(x, getattr(convolved, direction)(eps), 1e-12)
        assert _close_in_log(x, getattr(poisson_rate_1, direction)(eps), 1e-12)


@PROPERTY_SETTINGS
@given(st.integers(min_value=2, max_value=10**7), interior_pis, st.floats(min_value=0.0, max_value=3.0))
def test_tail_sum_agrees_with_incomplete_beta(n, pi, eps):
    # delta_plus = P[S >= k-1] - e^eps P[S >= k], P[S >= k] = I_pi(k, N - k + 1).
    # The difference cancels; the allowed error scales with the cancellation.
    # scipy's betainc (Boost ibeta) is the less accurate side: at n = 2e6,
    # pi = 1e-6 it is off by 9e-11 relative where the tail sum matches a
    # 40-digit mpmath sum to 3e-16, hence 1e-9 rather than 1e-12.
    N = n - 1
    with mpmath.workdps(40):
        e, p = mpmath.exp(eps), mpmath.mpf(pi)
        k = int(mpmath.floor(e * p * n / (1 - p + e * p))) + 1
    k = min(max(k, 1), n)

    def sf(j):  # P[S >= j]
        if j <= 0:
            return 1.0
        if j > N:
            return 0.0
        return scipy.special.betainc(j, N - j + 1, pi)

    first, second = sf(k - 1), math.exp(eps) * sf(k)
    closed_form = first - second
    ours = statpriv.counting(n, pi).delta_plus(eps)
    scale = max(first, 1e-300)
    assert abs(ours - closed_form) <= 1e-9 * scale + 1e-300


@PROPERTY_SETTINGS
@given(st.integers(min_value=2, max_value=2000), st.data())
def test_subsample_reduces_delta_bounded_by_rate(n, data):
    m = data.draw(st.integers(min_value=1, max_value=n))
    pi = data.draw(interior_pis)
    eps = data.draw(st.floats(min_value=0.0, max_value=5.0))
    # Subsampled count: delta never exceeds the DP bound lambda = m/n of the
    # sampled noiseless count (the worst case over the others' values).
    assert statpriv.counting(n, pi, sample_size=m).delta(eps) <= m / n * (1 + 1e-12)
