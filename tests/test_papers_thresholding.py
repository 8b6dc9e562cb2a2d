"""Desfontaines et al. Thm 4's Poisson approximation and its bound with background
knowledge (statpriv.papers.thresholding): each formula against an independent
mpmath evaluation written here, and its documented relation to the exact
statpriv.thresholded curve (docs/thresholding.md quotes the gaps)."""
import math

import mpmath
import numpy as np
import pytest

import statpriv
from statpriv.papers.thresholding import (theorem4_background_bound, theorem4_bound,
                                          theorem4_poisson)


def _tail_bound(N, p, k):
    """Lemma 2 written out: P[Bin(N, p) >= k] <= C(N,k) p^k (1-p)^(N-k) / (1 - (N-k)p/((k+1)(1-p)))."""
    pmf = mpmath.binomial(N, k) * p ** k * (1 - p) ** (N - k)
    return pmf, pmf / (1 - (N - k) * p / ((k + 1) * (1 - p)))


@pytest.mark.parametrize("n, p, tau", [(1000, 3 / 999, 9), (10 ** 4, 3 / 9999, 12),
                                       (1000, 10 / 999, 25), (500, 0.002, 4)])
def test_poisson_approximation_against_mpmath(n, p, tau):
    with mpmath.workdps(30):
        mu = (n - 1) * mpmath.mpf(p)
        pmf = mpmath.exp(-mu) * mu ** (tau - 1) / mpmath.factorial(tau - 1)
        delta = pmf / (1 - mu / tau)
        eps = -mpmath.log(1 - pmf / (1 - delta))
    got_eps, got_delta = theorem4_poisson(n, p, tau)
    assert got_delta == pytest.approx(float(delta), rel=1e-13)
    assert got_eps == pytest.approx(float(eps), rel=1e-13)


def test_poisson_approximation_converges_to_thm4_and_is_no_bound():
    # mu = 3, tau = 9: the relative gap to Thm 4's delta shrinks like 1/n
    gaps = [theorem4_poisson(n, 3 / (n - 1), 9)[1] / theorem4_bound(n, 3 / (n - 1), 9)[1] - 1
            for n in (1000, 10 ** 4, 10 ** 5)]
    assert gaps[0] == pytest.approx(0.0111, abs=5e-4)
    assert gaps[1] == pytest.approx(gaps[0] / 10, rel=0.05)
    assert gaps[2] == pytest.approx(gaps[1] / 10, rel=0.05)
    # the docs' worst case on Fig. 4's grid: n = 1000, mu = 10, tau = 60 -> 237% above
    p = 10 / 999
    assert theorem4_poisson(1000, p, 60)[1] / theorem4_bound(1000, p, 60)[1] - 1 == \
        pytest.approx(2.366, abs=5e-3)
    # and up to lambda = 3 (tau = 30) within 19.5%
    assert theorem4_poisson(1000, p, 30)[1] / theorem4_bound(1000, p, 30)[1] - 1 == \
        pytest.approx(0.1954, abs=5e-4)


def test_thm4_delta_is_one_over_one_minus_r_above_the_exact_delta_at_zero():
    for n, p, tau in [(1000, 3 / 999, 9), (1000, 10 / 999, 30), (10 ** 4, 1 / 9999, 4)]:
        r = (n - tau) * p / (tau * (1 - p))
        exact0 = statpriv.thresholded(n, p, tau).delta(0.0)
        assert theorem4_bound(n, p, tau)[1] / exact0 == pytest.approx(1 / (1 - r), rel=1e-11)


def test_poisson_vectorised_and_out_of_regime():
    eps, delta = theorem4_poisson([1000, 10 ** 4], [3 / 999, 3 / 9999], 9)
    assert eps.shape == delta.shape == (2,)
    assert delta[0] == theorem4_poisson(1000, 3 / 999, 9)[1]
    assert theorem4_poisson(1000, 3 / 999, 3) == (math.inf, 1.0)     # tau <= mu


@pytest.mark.parametrize("known, ones", [(100, 1), (100, 2), (300, 3), (50, 0)])
def test_background_bound_against_mpmath_and_the_exact_passive_curve(known, ones):
    n, p, tau = 1000, 0.003, 10
    with mpmath.workdps(30):
        pm = mpmath.mpf(p)
        first = _tail_bound(known, pm, ones + 1)[1]
        pmf, second = _tail_bound(n - 1 - known, pm, tau - ones - 1)
        delta = first + second
        eps = -mpmath.log(1 - pmf / (1 - second))
    got_eps, got_delta = theorem4_background_bound(n, p, tau, known, ones)
    assert got_delta == pytest.approx(float(delta), rel=1e-13)
    assert got_eps == pytest.approx(float(eps), rel=1e-13)
    exact = statpriv.thresholded(n, p, tau, known=known, attacker="passive")
    assert exact.delta(got_eps) <= got_delta


def test_background_bound_quoted_gap_and_reduction_to_thm4():
    eps, delta = theorem4_background_bound(1000, 0.003, 10, 100, 2)
    assert (eps, delta) == pytest.approx((0.0142, 0.0243), abs=5e-5)
    exact = statpriv.thresholded(1000, 0.003, 10, known=100).delta(eps)
    assert exact == pytest.approx(2.63e-3, abs=5e-6)
    assert delta / exact == pytest.approx(9.2, abs=0.05)
    assert theorem4_background_bound(1000, 0.003, 10, 100, 0)[1] == pytest.approx(0.264, abs=5e-4)
    # no known records, no known ones: Thm 4 itself
    assert theorem4_background_bound(1000, 0.003, 8, 0, 0) == theorem4_bound(1000, 0.003, 8)
    # the known ones reach the threshold: no guarantee
    assert theorem4_background_bound(1000, 0.003, 8, 100, 7) == (math.inf, 1.0)


@pytest.mark.parametrize("call, name", [
    (lambda: theorem4_poisson(1000, 1.5, 9), "p"),
    (lambda: theorem4_poisson(0, 0.1, 9), "n"),
    (lambda: theorem4_poisson(1000, 0.1, -1), "threshold"),
    (lambda: theorem4_background_bound(1000, 0.01, 20, 1000, 0), "known"),
    (lambda: theorem4_background_bound(1000, 0.01, 20, 10, -1), "known_ones"),
])
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=rf"^{name} must"):
        call()


def test_background_bound_broadcasts():
    eps, delta = theorem4_background_bound(1000, 0.003, 10, [100, 300], np.array([2, 3]))
    assert delta.shape == (2,)
    assert delta[1] == theorem4_background_bound(1000, 0.003, 10, 300, 3)[1]
