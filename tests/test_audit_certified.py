"""audit(..., certified=True): the verdict rests on the certified interval of
delta (Arb), checked against the stored 50-digit references of the same
curves (an independent truth) and against claims placed on either side of it."""
import math

import mpmath
import pytest

import statpriv
from helpers import import_extra, oracle

import_extra("flint")


@pytest.mark.parametrize("n, pi, eps", [(1000, 0.3, 0.1), (10, 0.5, 0.0), (2000, 0.01, 1.0)])
def test_claims_on_either_side_of_the_interval(n, pi, eps):
    curve = statpriv.counting(n, pi)
    lower, upper = curve.delta_interval(eps)
    # the interval holds the independent 50-digit truth (tests/independent_oracle.py)
    with mpmath.workdps(50):
        exact = max(mpmath.exp(oracle("counting_log_delta", n, pi, eps, d))
                    for d in ("plus", "minus"))
        assert mpmath.mpf(lower) <= exact <= mpmath.mpf(upper)
    truth = float(exact)
    above = statpriv.audit(eps, min(1.0, math.nextafter(upper, 2.0)), curve, certified=True)
    assert above.verdict == "holds" and not above.optimistic
    assert above.delta_interval == (lower, upper)
    below = statpriv.audit(eps, math.nextafter(lower, -1.0), curve, certified=True)
    assert below.verdict == "fails" and below.optimistic
    assert "OPTIMISTIC (proven)" in str(below)
    # the proven eps for a claimed delta gives at most that delta, certified
    claim = 2.0 * truth if truth > 0 else 1e-3
    r = statpriv.audit(eps, min(claim, 1.0), curve, certified=True)
    assert r.verdict == "holds"
    assert curve.delta_interval(r.exact_eps)[1] <= min(claim, 1.0)


def test_a_claim_inside_the_interval_is_undecided():
    curve = statpriv.counting(1000, 0.3)
    lower, upper = curve.delta_interval(0.1)
    assert lower < upper
    inside = math.nextafter(lower, 1.0)
    if inside < upper:
        assert statpriv.audit(0.1, inside, curve, certified=True).verdict == "undecided"


def test_an_optimistic_accountant_is_refuted_with_proof():
    """A claim of delta at eps that the true curve exceeds by 10%."""
    curve = statpriv.counting(10**4, 0.3)
    truth = curve.delta(0.05)
    r = statpriv.audit(0.05, 0.9 * truth, curve, certified=True)
    assert r.verdict == "fails" and r.delta_interval[0] > 0.9 * truth


def test_uncovered_kind_and_bad_flag():
    # a Gaussian mechanism is no discrete factor of a certified product
    composed = statpriv.compose(statpriv.dp.gaussian(1.0), statpriv.counting(100, 0.3))
    with pytest.raises(NotImplementedError):
        statpriv.audit(0.1, 0.01, composed, certified=True)
    with pytest.raises(TypeError, match="certified"):
        statpriv.audit(0.1, 0.01, statpriv.counting(100, 0.3), certified="yes")
