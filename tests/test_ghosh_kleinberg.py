"""statpriv.partial_knowledge.ghosh_kleinberg_delta: Desfontaines, Mohammadi,
Krahmer & Basin's Prop. 7 (Ghosh & Kleinberg, "Inferential Privacy Guarantees
for Differentially Private Mechanisms", Thm 3) against the paper's formula
evaluated in mpmath from its own parameter delta2, against the exact curve of
the configuration (an upper bound in the paper's configurations, not when
every record is fair), and its argument checks."""
import math

import mpmath
import numpy as np
import pytest

import statpriv
from statpriv.partial_knowledge import ghosh_kleinberg_delta
from statpriv.papers.partial_knowledge import case_probabilities


def _paper_formula(pis, delta2):
    """(eps, delta) of the proposition at delta2, in mpmath (50 digits), term by term."""
    with mpmath.workdps(50):
        n = len(pis)
        ps = [mpmath.mpf(p) for p in pis]
        mu2 = mpmath.fsum(p * (1 - p) for p in ps) / n
        mu3 = mpmath.fsum(p * (1 - p) * abs(1 - 2 * p) for p in ps) / n
        delta2 = mpmath.mpf(delta2)
        assert delta2 >= mpmath.mpf("1.25") * mpmath.exp(-n * mu2 / 2)   # the proposition's condition
        eps = mpmath.sqrt(2 * mpmath.log(mpmath.mpf("1.25") / delta2) / (n * mu2))
        delta = mpmath.mpf("1.12") * mu3 / (mpmath.sqrt(n) * mu2 ** 3) * (1 + mpmath.exp(eps)) + delta2
        return eps, delta


@pytest.mark.parametrize("pis,delta2", [([0.48, 0.5, 0.52, 0.5] * 500, 1e-3),
                                        ([0.05] + [0.5] * 499, 1e-6),
                                        (list(np.linspace(0.3, 0.7, 2001)), 0.02)])
def test_matches_the_paper_formula_in_mpmath(pis, delta2):
    eps, delta = _paper_formula(pis, delta2)
    got = ghosh_kleinberg_delta(pis, float(eps))
    assert float(delta) < 1.0
    assert got == pytest.approx(float(delta), rel=1e-12)


@pytest.mark.parametrize("case", [1, 2])
@pytest.mark.parametrize("n,p", [(1000, 0.1), (10 ** 4, 0.05), (10 ** 4, 0.2)])
def test_upper_bound_of_the_exact_curve_in_the_papers_cases(case, n, p):
    pis = case_probabilities(case, n, p)
    eps = np.linspace(0.05, 1.0, 20)
    exact = statpriv.counting(None, pis).delta(eps)
    bound = ghosh_kleinberg_delta(pis, eps)
    assert np.all(bound >= exact), (bound / exact).min()
    assert np.all(bound > 0.0) and np.all(bound <= 1.0)
    if case == 1:
        assert bound.min() < 1e-2
    elif n == 10 ** 4:                  # Case 2 at n = 1000: the formula exceeds 1 everywhere
        assert bound.min() < 0.5


def test_not_an_upper_bound_when_every_record_is_fair():
    """mu3 = |E (X - 1/2)^3| = 0: the formula is the Gaussian mechanism's delta
    alone, and the exact delta of Bin(999, 1/2) at eps = 1 (the target against
    999 fair records, summed in mpmath) exceeds it."""
    n = 999
    with mpmath.workdps(50):
        e = mpmath.e
        pmf = [mpmath.mpf(2) ** -n]
        for k in range(n):
            pmf.append(pmf[-1] * (n - k) / (k + 1))
        # P: the count is S + 1, Q: the count is S; delta_plus = sum_k (P(k) - e Q(k))_+
        exact = mpmath.fsum(max(pmf[k - 1] - e * pmf[k], 0) for k in range(1, n + 1)) + pmf[n]
        gaussian = mpmath.mpf("1.25") * mpmath.exp(-mpmath.mpf(n) / 8)
    bound = ghosh_kleinberg_delta(np.full(n, 0.5), 1.0)
    assert bound == pytest.approx(float(gaussian), rel=1e-12)
    assert float(exact) == pytest.approx(statpriv.counting(None, np.full(n, 0.5)).delta(1.0), rel=1e-10)
    assert float(exact) > 100 * bound


def test_no_guarantee_beyond_eps_one_or_without_randomness():
    pis = case_probabilities(1, 1000, 0.1)
    assert ghosh_kleinberg_delta(pis, 1.0) < 1.0
    assert ghosh_kleinberg_delta(pis, math.nextafter(1.0, 2.0)) == 1.0
    assert list(ghosh_kleinberg_delta(pis, [0.5, 2.0, 10.0])[1:]) == [1.0, 1.0]
    assert ghosh_kleinberg_delta([0.0, 1.0, 1.0], 0.5) == 1.0


@pytest.mark.parametrize("pi,eps,match", [([], 0.5, "pi must hold at least one"),
                                          ([0.2, 1.5], 0.5, "pi must lie in"),
                                          ([[0.2, 0.3]], 0.5, "pi must be 1-D"),
                                          ([0.2, 0.3], 0.0, "eps must lie in"),
                                          ([0.2, 0.3], [0.5, -1.0], "eps must lie in"),
                                          ([0.2, 0.3], float("nan"), "eps must")])
def test_bad_arguments_name_the_parameter(pi, eps, match):
    with pytest.raises(ValueError, match=match):
        ghosh_kleinberg_delta(pi, eps)
