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


# Thm 5 (the k-anonymous histogram), written out from the statement in mpmath
# at 50 digits, in its conservative reading (docs/thresholding.md lists the
# choices): f the Bin(n-1, lam) pmf, r = lam (n-1) / ((1-lam) k),
# delta_r = f(k-1) / (1-r), the rare eps the larger of -ln(1 - f(k-1)/(1-r))
# and -ln(1 - f(k-1)/(1 - delta_r)), the common eps the larger of the blanket's
# and the smallest eps with P[X >= e^eps Y] <= delta (X, Y iid Bin(n-1, 2 lam)).

def _thm5_rare_mp(n, lam, k):
    with mpmath.workdps(50):
        lam = mpmath.mpf(lam)
        r = lam * (n - 1) / ((1 - lam) * k)
        f = mpmath.binomial(n - 1, k - 1) * lam ** (k - 1) * (1 - lam) ** (n - k)
        delta_r = f / (1 - r)
        eps_r = max(-mpmath.log(1 - f / (1 - r)), -mpmath.log(1 - f / (1 - delta_r)))
        return delta_r, eps_r


def _ratio_tail_mp(n, lam, eps):
    """P[X >= e^eps Y], X, Y iid Bin(n-1, 2 lam), summed term by term at 50 digits."""
    with mpmath.workdps(50):
        q, N, c = 2 * mpmath.mpf(lam), n - 1, mpmath.exp(eps)
        pmf = [mpmath.binomial(N, j) * q ** j * (1 - q) ** (N - j) for j in range(N + 1)]
        total = mpmath.mpf(0)
        for y in range(N + 1):
            need = int(mpmath.ceil(c * y))
            total += pmf[y] * mpmath.fsum(pmf[need:])
        return total


@pytest.mark.parametrize("n, lam, k", [(100, 0.1, 20), (300, 0.05, 30), (1000, 0.05, 100)])
def test_thm5_rare_step_and_delta0_against_mpmath(n, lam, k):
    from statpriv.papers.thresholding import _theorem5_rare_step, theorem5_bound
    delta_r, eps_r = _thm5_rare_mp(n, lam, k)
    got_delta, got_eps = _theorem5_rare_step(n, lam, k)
    assert got_delta == pytest.approx(float(delta_r), rel=1e-14) and got_delta >= delta_r
    assert got_eps == pytest.approx(float(eps_r), rel=1e-14) and got_eps >= eps_r
    delta0 = 2 * float(delta_r)
    if delta0 < 0.5:
        theorem5_bound(n, lam, k, delta0 * (1 + 1e-9))       # accepted from delta0 on
    with pytest.raises(ValueError, match=r"^delta must be in \[delta0, 1\)"):
        theorem5_bound(n, lam, k, delta0 * (1 - 1e-9))


@pytest.mark.parametrize("n, lam, k, delta", [(100, 0.1, 20, 0.02), (100, 0.2, 50, 1e-3),
                                              (200, 0.05, 20, 0.05)])
def test_thm5_pair_against_mpmath(n, lam, k, delta):
    from statpriv.papers.thresholding import theorem5_bound
    eps, delta_t5 = theorem5_bound(n, lam, k, delta)
    assert math.isfinite(eps)
    step = eps / 2
    _, eps_r = _thm5_rare_mp(n, lam, k)
    blanket = statpriv.partial_knowledge(n, lam).blanket.epsilon(delta)
    # the step eps is the largest of the three readings
    assert step >= eps_r and step >= blanket
    assert _ratio_tail_mp(n, lam, step) <= delta
    if step > max(blanket, float(eps_r)) * (1 + 1e-12):
        # the ratio reading decides: just below its eps the tail exceeds delta
        assert _ratio_tail_mp(n, lam, step * (1 - 1e-9)) > delta
    else:
        assert step == pytest.approx(max(blanket, float(eps_r)), rel=1e-15)
    with mpmath.workdps(50):
        assert delta_t5 == pytest.approx(float((1 + mpmath.exp(mpmath.mpf(step))) * delta),
                                         rel=1e-14)


@pytest.mark.parametrize("call, name", [
    (lambda: _thm5(1, 0.1, 20, 0.05), "n"),
    (lambda: _thm5(100, 0.0, 20, 0.05), "lam"),
    (lambda: _thm5(100, 0.6, 20, 0.05), "lam"),
    (lambda: _thm5(100, 0.1, 0, 0.05), "k"),
    (lambda: _thm5(100, 0.1, 10, 0.05), "k"),             # r = 1.1 >= 1
    (lambda: _thm5(100, 0.1, 20, 1.0), "delta"),
    (lambda: _thm5(100, 0.1, 20, 0.0), "delta"),
    (lambda: _thm5(100, 0.1, 20, [0.5, 1e-3]), "delta"),   # 1e-3 < delta0 = 3.8e-3
])
def test_thm5_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=rf"^{name} must"):
        call()


def _thm5(*args):
    from statpriv.papers.thresholding import theorem5_bound
    return theorem5_bound(*args)


def test_thm5_r_condition_message_gives_the_range():
    with pytest.raises(ValueError, match=r"k must be > lam \(n - 1\) / \(1 - lam\) = 11\.0"):
        _thm5(100, 0.1, 10, 0.05)


def test_thm5_no_guarantee_and_arrays():
    # n lam = 1: the blanket cannot reach delta = 0.01 ((1 - lam)^(n-1) = 0.37 > delta)
    assert _thm5(1000, 0.001, 10, 0.01) == (math.inf, 1.0)
    eps, delta = _thm5(100, 0.2, 50, np.array([[1e-2], [1e-3]]))
    assert eps.shape == delta.shape == (2, 1)
    assert (eps[1, 0], delta[1, 0]) == _thm5(100, 0.2, 50, 1e-3)
    assert eps[0, 0] < eps[1, 0]


@pytest.mark.parametrize("n, k, delta, gap", [(100, 20, 1e-2, 2.071), (100, 50, 1e-3, 1.715)])
def test_thm5_holds_against_the_exact_bracket(n, k, delta, gap):
    """docs/thresholding.md's table, two rows: Thm 5's delta is above the exact
    upper curve at Thm 5's eps (the bound holds) for every configuration and
    pair of categories; the gap is the worst configuration's."""
    from statpriv.papers.thresholding import THM5_CONFIGURATIONS
    import itertools
    lam = 0.5 * k / (n - 1 + 0.5 * k)                         # r = 1/2
    eps, delta_t5 = _thm5(n, lam, k, delta)
    worst_eps = 0.0
    for make in THM5_CONFIGURATIONS.values():
        pi = make(lam)
        for source, target in itertools.combinations(range(len(pi)), 2):
            ka = statpriv.k_anonymity(n, pi, k, source=source, target=target)
            assert ka.lower.delta(eps) <= ka.upper.delta(eps) <= delta_t5
            worst_eps = max(worst_eps, ka.upper.epsilon(delta_t5))
    assert eps / worst_eps == pytest.approx(gap, abs=5e-4)


@pytest.mark.exhaustive
@pytest.mark.first
def test_thm5_table_holds_everywhere():
    """docs/thresholding.md's table: the exact upper curve is below Thm 5's
    delta in every row but one, where the brute force of the whole released
    histogram (tests/test_k_anonymity.py) decides: the bound holds there too."""
    from test_k_anonymity import _full_histogram_delta

    from statpriv.papers.thresholding import theorem5_gap_data
    rows = [row for row in theorem5_gap_data() if row["status"] == "ok"]
    assert len(rows) == 69
    undecided = []
    for row in rows:
        assert row["lower_delta"] <= row["delta_t5"]
        if row["upper_delta"] > row["delta_t5"]:
            undecided.append(row)
        else:
            assert row["upper_eps"] <= row["eps_t5"] / 1.5
    assert [(r["n"], r["k"], r["delta"], r["configuration"]) for r in undecided] == \
        [(100, 50, 1e-6, "[lam/2, lam/2, 1-2lam]")]
    row = undecided[0]
    lam = row["lam"]
    truth = _full_histogram_delta(100, [lam / 2, lam / 2, 1 - 2 * lam], 50, 0, 2, row["eps_t5"])
    assert row["lower_delta"] <= truth * (1 + 1e-9) and truth == pytest.approx(1.444e-20, rel=1e-3)
    assert truth < row["delta_t5"]
