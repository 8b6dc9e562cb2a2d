"""statpriv.conjecture: Breutigam & Reischuk §7's subsampling conjecture checker (docs/mathematics.md §5).

The checker must (a) find nothing where the inequality holds (it is a theorem
for eps >= 0, see the module docstring), (b) report a violation when one is
injected, with the right parameters, and (c) not report float rounding.
"""
import math

import numpy as np
import pytest

from statpriv import conjecture, counting, reference
from statpriv.conjecture import Counterexample, conjecture_check, exceeds, sample_sizes

SMALL = dict(n_values=(10, 50, 200), pi_values=(0.05, 0.5, 0.95), rates=(0.1, 0.5, 0.9),
             eps_values=(0.0, 0.01, 0.5, 2.0))


def test_holds_on_small_grid():
    assert conjecture_check(**SMALL) == []
    assert conjecture_check(**SMALL, directions=("plus", "minus")) == []
    assert conjecture_check(**SMALL, directions=("plus", "minus"), refined=True) == []


def test_default_grid_holds():
    assert conjecture_check() == []


def test_underflow_compared_in_log_space():
    # Both sides far below 1e-308: ln delta_SAMP ~ -980, ln bound ~ -566.
    n, m, eps = 10000, 5000, 1.0
    eps_prime = math.log1p(0.5 * math.expm1(eps))
    log_samp = counting(n, 0.5, sample_size=m).log_delta(eps_prime)
    log_bound = math.log(0.5) + counting(m, 0.5).log_delta(eps)
    assert -2000 < log_samp < -745 and -2000 < log_bound < -300
    assert conjecture_check(n_values=(n,), pi_values=(0.5,), rates=(0.5,),
                            eps_values=(eps,)) == []
    # An injected violation down there is still seen.
    assert exceeds(log_bound + 1e-6, log_bound)


def test_exceeds_tolerance():
    assert exceeds(math.log(1.1), 0.0)
    assert not exceeds(math.log1p(1e-12), 0.0, rtol=1e-9)     # rounding: not reported
    assert exceeds(math.log1p(1e-6), 0.0, rtol=1e-9)
    assert not exceeds(-math.inf, -math.inf)                  # 0 <= 0
    assert not exceeds(-math.inf, -800.0)                     # 0 <= anything
    assert exceeds(-800.0, -math.inf)                         # > 0 vs 0
    np.testing.assert_array_equal(exceeds([0.0, -1.0], [-0.5, 0.0]), [True, False])


def test_sample_sizes_are_integers():
    assert sample_sizes(10, (0.01, 0.5, 0.55, 0.99)) == [1, 5, 6, 9]
    assert sample_sizes(1000, (0.1, 0.1004)) == [100]
    assert sample_sizes(10, (1.0,)) == [9]        # m = n (identity) is never tested


def _fake_sampled(factor):
    """A wrong delta_SAMP: factor * lambda * delta_pure(m; eps), recovering eps from eps'."""
    def fake(n, pi, m, eps_prime, direction):
        rate = m / n
        eps = np.log1p(np.expm1(eps_prime) / rate)
        return math.log(factor) + math.log(rate) + conjecture._pure_log_delta(m, pi, eps,
                                                                              direction)
    return fake


def test_injected_violation_is_reported(monkeypatch):
    monkeypatch.setattr(conjecture, "_sampled_log_delta", _fake_sampled(1.5))
    found = conjecture_check(n_values=(20,), pi_values=(0.3,), rates=(0.25, 0.5),
                             eps_values=(0.1, 1.0))
    assert len(found) == 4                          # m in {5, 10} x two eps
    for c in found:
        assert isinstance(c, Counterexample)
        assert c.n == 20 and c.pi == 0.3 and c.m in (5, 10) and c.rate == c.m / 20
        assert c.eps_prime == pytest.approx(math.log1p(c.rate * math.expm1(c.eps)), rel=1e-14)
        assert c.ratio == pytest.approx(1.5, rel=1e-12)
        assert c.delta_samp == pytest.approx(1.5 * c.bound, rel=1e-12)
        assert c.bound == pytest.approx(c.rate * counting(c.m, 0.3).delta(c.eps), rel=1e-12)
        assert c.as_dict()["direction"] == "max"


def test_rounding_sized_excess_is_not_reported(monkeypatch):
    monkeypatch.setattr(conjecture, "_sampled_log_delta", _fake_sampled(1.0 + 1e-12))
    assert conjecture_check(n_values=(20,), pi_values=(0.3,), rates=(0.5,),
                            eps_values=(0.1, 1.0)) == []
    monkeypatch.setattr(conjecture, "_sampled_log_delta", _fake_sampled(1.0 + 1e-7))
    assert len(conjecture_check(n_values=(20,), pi_values=(0.3,), rates=(0.5,),
                                eps_values=(0.1, 1.0))) == 2


def test_closest_case_agrees_with_mpmath():
    # The grid point closest to equality found in a broad sweep (ratio 0.99996):
    # both sides from the 50-digit brute force.
    n, pi, m, eps = 59, 0.02, 58, 0.1
    rate = m / n
    eps_prime = math.log1p(rate * math.expm1(eps))
    samp = reference.counting_delta(n, pi, eps_prime, sample_size=m)
    bound = rate * reference.counting_delta(m, pi, eps)
    ours = counting(n, pi, sample_size=m).delta(eps_prime) / (rate * counting(m, pi).delta(eps))
    assert float(samp / bound) == pytest.approx(ours, rel=1e-11)
    assert float(samp / bound) < 1.0


def test_equality_at_eps_zero():
    # eps = 0: both sides are total variations and P - Q = lambda (A1 - A0).
    for n, pi, m in ((30, 0.2, 7), (100, 0.5, 60)):
        lhs = counting(n, pi, sample_size=m).delta(0.0)
        rhs = m / n * counting(m, pi).delta(0.0)
        assert lhs == pytest.approx(rhs, rel=1e-12)


def test_bad_arguments():
    with pytest.raises(ValueError):
        conjecture_check(eps_values=(-0.1,))
    with pytest.raises(ValueError):
        conjecture_check(refined=True)                      # refined needs plus/minus
    with pytest.raises(ValueError):
        conjecture_check(directions=("sideways",))
    with pytest.raises(ValueError):
        conjecture_check(rtol=-1.0)
