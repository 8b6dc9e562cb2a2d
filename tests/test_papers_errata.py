"""docs/mathematics.md §9, "Where the printed formulas differ": every number quoted
there, recomputed so that the docs cannot drift.

The printed formulas are evaluated here as printed, with mpmath at 40 digits
straight from the papers' sums (not through statpriv); the truth they are
compared with is statpriv's exact curve, which the rest of the suite verifies
independently.
"""
import math

import mpmath
import pytest

from statpriv import counting
from statpriv.analysis.interval import interval_epsilon
from statpriv.papers.figures import equal_utility_vs_pi_data, ratio_vs_nu_data

DPS = 40


def _thm41_printed_terms(m, lam, pi, e):
    """Breutigam & Reischuk Thm 4.1's summands of delta_+ and delta_- for j < m, as printed:
    pi^(j-1) (1-pi)^(m-j-1) C(m-1, j) (lam (j(1-pi)/(m-j) - e pi) + (1-lam)(1-e) m pi (1-pi)/(m-j)),
    and the same with lam (pi - e j(1-pi)/(m-j)).  (lam = 1 is Thm 4.2.)"""
    def base(j):
        return pi ** (j - 1) * (1 - pi) ** (m - j - 1) * mpmath.binomial(m - 1, j)

    def plus(j):
        return base(j) * (lam * (j * (1 - pi) / (m - j) - e * pi)
                          + (1 - lam) * (1 - e) * m * pi * (1 - pi) / (m - j))

    def minus(j):
        return base(j) * (lam * (pi - e * j * (1 - pi) / (m - j))
                          + (1 - lam) * (1 - e) * m * pi * (1 - pi) / (m - j))
    return plus, minus


def _thm41(n, m, pi, eps, *, corrected):
    """(j+*, j-*, delta_+, delta_-) of Thm 4.1 as printed (min{lam, ...}, up to ceil j-*)
    or as its derivation has it (min{lam/pi, ...}, up to floor j-*); the j = m term,
    0 * inf as printed, is left out as the printed sum must."""
    with mpmath.workdps(DPS):
        pi, e = mpmath.mpf(pi), mpmath.exp(mpmath.mpf(eps))
        lam, xi = mpmath.mpf(m) / n, pi / (1 - pi)
        first = lam / pi if corrected else lam
        j_plus = min(first, lam + (e - 1) / (1 + e * xi)) * n * pi
        j_minus = max(0, lam + (1 / e - 1) / (1 + xi / e)) * n * pi
        plus, minus = _thm41_printed_terms(m, lam, pi, e)
        top = int(mpmath.floor(j_minus)) if corrected else int(mpmath.ceil(j_minus))
        d_plus = mpmath.fsum(plus(j) for j in range(int(mpmath.ceil(j_plus)), m))
        d_minus = mpmath.fsum(minus(j) for j in range(0, top + 1))
        return j_plus, j_minus, d_plus, d_minus


def _thm42(n, pi, eps, reading):
    """Thm 4.2 (lam = 1) with the thresholds read as printed "1 + gamma n pi"
    ('literal'), without the "1 +" ('dropped') or as (1 + gamma) n pi ('parenthesis');
    delta_- summed up to ceil j-* as printed and up to floor j-*."""
    with mpmath.workdps(DPS):
        pi, e = mpmath.mpf(pi), mpmath.exp(mpmath.mpf(eps))
        xi = pi / (1 - pi)
        g_plus, g_minus = (e - 1) / (1 + e * xi), (1 / e - 1) / (1 + xi / e)
        j_plus, j_minus = {"literal": (1 + g_plus * n * pi, 1 + g_minus * n * pi),
                           "dropped": (g_plus * n * pi, g_minus * n * pi),
                           "parenthesis": ((1 + g_plus) * n * pi, (1 + g_minus) * n * pi)}[reading]
        plus, minus = _thm41_printed_terms(n, mpmath.mpf(1), pi, e)
        d_plus = mpmath.fsum(plus(j) for j in range(int(mpmath.ceil(j_plus)), n))
        d_minus_ceil = mpmath.fsum(minus(j) for j in range(0, int(mpmath.ceil(j_minus)) + 1))
        d_minus_floor = mpmath.fsum(minus(j) for j in range(0, int(mpmath.floor(j_minus)) + 1))
        return j_plus, j_minus, d_plus, d_minus_ceil, d_minus_floor


# -- Thm 4.1 ------------------------------------------------------------------------
def test_thm41_printed_threshold_is_the_mean_and_loses_a_third_of_delta_plus():
    curve = counting(1000, 0.5, sample_size=100)
    exact_plus, exact_minus = curve.delta_plus(0.01), curve.delta_minus(0.01)
    assert exact_plus == pytest.approx(3.9921e-3, abs=5e-8)
    assert exact_minus == pytest.approx(exact_plus, rel=1e-12)       # pi = 1/2: symmetric
    j_plus, j_minus, d_plus, d_minus = _thm41(1000, 100, 0.5, 0.01, corrected=False)
    assert j_plus == 50                                              # the mean m pi
    assert float(j_minus) == pytest.approx(47.50002, abs=1e-5)
    assert float(d_plus) == pytest.approx(2.5739e-3, abs=5e-8)
    assert 1 - float(d_plus) / exact_plus == pytest.approx(0.355, abs=5e-4)
    assert float(d_minus) == pytest.approx(3.8443e-3, abs=5e-8)
    assert 1 - float(d_minus) / exact_minus == pytest.approx(0.037, abs=5e-4)


def test_thm41_with_the_derivations_thresholds_is_exact():
    curve = counting(1000, 0.5, sample_size=100)
    j_plus, _, d_plus, d_minus = _thm41(1000, 100, 0.5, 0.01, corrected=True)
    assert float(j_plus) == pytest.approx(52.49998, abs=1e-5)
    assert float(d_plus) == pytest.approx(curve.delta_plus(0.01), rel=1e-12)
    assert float(d_minus) == pytest.approx(curve.delta_minus(0.01), rel=1e-12)
    # the j = m term the printed sum cannot carry: lam pi^(m-1) + (1-lam) pi^m = 8e-32
    assert 0.1 * 0.5 ** 99 + 0.9 * 0.5 ** 100 == pytest.approx(7.9e-32, rel=0.01)


# -- Thm 4.2 ------------------------------------------------------------------------
def test_thm42_threshold_is_a_missing_parenthesis_not_a_spurious_term():
    exact = counting(1000, 0.5).delta_plus(0.01)
    assert exact == pytest.approx(0.020655553064222, rel=1e-13)
    for reading, threshold in (("literal", 3.49998), ("dropped", 2.49998)):
        j_plus, _, d_plus, _, _ = _thm42(1000, 0.5, 0.01, reading)
        assert float(j_plus) == pytest.approx(threshold, abs=1e-5)
        assert float(d_plus) == pytest.approx(-0.010050, abs=5e-7)      # negative: no reading
    j_plus, _, d_plus, _, _ = _thm42(1000, 0.5, 0.01, "parenthesis")
    assert float(j_plus) == pytest.approx(502.49998, abs=1e-5)
    assert float(d_plus) == pytest.approx(exact, rel=1e-12)


@pytest.mark.parametrize("n, pi, eps, printed, low", [
    (1000, 0.5, 0.01, 0.020605, 0.0024),
    (100, 0.1, 0.1, None, 0.143),
    (10, 0.5, 0.3, None, 0.547),
    (10, 0.3, 0.5, -0.0334, 1.239),
])
def test_thm42_ceiling_makes_delta_minus_low_and_the_floor_is_exact(n, pi, eps, printed, low):
    exact = counting(n, pi).delta_minus(eps)
    _, _, _, d_ceil, d_floor = _thm42(n, pi, eps, "parenthesis")
    assert 1 - float(d_ceil) / exact == pytest.approx(low, abs=5e-4)
    if printed is not None:
        assert float(d_ceil) == pytest.approx(printed, abs=5e-5)
    assert float(d_floor) == pytest.approx(exact, rel=1e-12)


def test_thm42_loses_the_all_positive_term():
    exact = counting(10, 0.5).delta_plus(0.3)
    _, _, d_plus, _, _ = _thm42(10, 0.5, 0.3, "parenthesis")
    assert 1 - float(d_plus) / exact == pytest.approx(0.0124, abs=5e-5)
    assert exact - float(d_plus) == pytest.approx(0.5 ** 9, rel=1e-10)


# -- Naldi & D'Acquisto -----------------------------------------------------------------
def test_naldi_dacquisto_example_drops_the_minus_sign():
    printed = math.log(1 - 0.8) / (0.2 * 100)
    assert printed == pytest.approx(-0.080472, abs=5e-7)
    assert interval_epsilon(0.2, 0.8, 100) == pytest.approx(-math.log(0.2) / 20, rel=1e-14)
    assert interval_epsilon(0.2, 0.8, 100) == pytest.approx(0.080472, abs=5e-7)
    assert round(interval_epsilon(0.2, 0.8, 100), 2) == 0.08


# -- Breutigam & Reischuk's figure claims ----------------------------------------------------
def test_fig5_laplace_is_39_to_54_percent_worse_not_20():
    data = equal_utility_vs_pi_data(pis=[0.05, 0.1, 0.5])
    worse = data["laplace"] / data["subsampling"] - 1
    assert worse == pytest.approx([0.391, 0.448, 0.524], abs=5e-4)
    assert data["laplace"][-1] == pytest.approx(6.0855e-3, abs=5e-8)
    assert abs(data["gaussian"] / data["subsampling"] - 1).max() < 0.025


def test_fig2_ratio_at_pi_001_and_nu_10_is_barely_above_one():
    data = ratio_vs_nu_data("gaussian", pis=(0.01,), nus=[10.0])
    assert data["ratio"][0.01][0] == pytest.approx(1.0544, abs=5e-5)
    assert data["normal_ratio"][0.01][0] == pytest.approx(1.0549, abs=5e-5)
