"""epsilon(delta): the smallest eps >= 0 with delta(eps) <= delta."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import statpriv


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=2, max_value=10**6), st.floats(min_value=1e-4, max_value=1 - 1e-4),
       st.floats(min_value=1e-3, max_value=3.0))
def test_round_trip(n, pi, eps):
    curve = statpriv.counting(n, pi)
    target = curve.delta(eps)
    if not (curve.delta(math.inf) * (1 + 1e-9) < target < curve.delta(0.0)) or target < 1e-300:
        return  # delta is 0, at its floor, or subnormal (5 digits): nothing to invert
    found = curve.epsilon(target)
    assert curve.delta(found) <= target                # rounded up: the guarantee holds
    assert found == pytest.approx(eps, rel=1e-8, abs=1e-12)


def test_epsilon_endpoints():
    curve = statpriv.counting(1000, 0.3)
    assert curve.epsilon(1.0) == 0.0
    # delta(0) itself: 0 up to the margin that keeps delta(eps) <= target after rounding
    assert 0.0 <= curve.epsilon(curve.delta(0.0)) <= 1e-12
    assert curve.epsilon(curve.delta(0.0) * (1 + 1e-12)) == 0.0
    # A noiseless count never goes below max(pi, 1-pi)^(n-1): no finite eps.
    floor = 0.7 ** 999
    assert curve.epsilon(floor / 2) == math.inf
    assert curve.epsilon(0.0) == math.inf
    assert math.isfinite(curve.epsilon(floor * 2))


def test_epsilon_vectorized_and_direction():
    curve = statpriv.counting(10**4, 0.2)
    targets = np.array([[1e-3, 1e-6], [1e-9, 1e-12]])
    eps = curve.epsilon(targets)
    assert eps.shape == targets.shape
    assert np.all(np.diff(eps.ravel()) > 0)
    assert np.all(curve.delta(eps) <= targets)
    plus = curve.epsilon(1e-6, direction="plus")
    assert curve.delta_plus(plus) <= 1e-6 and plus <= curve.epsilon(1e-6)


@pytest.mark.parametrize("make", [lambda: statpriv.dp.gaussian(2.0), lambda: statpriv.dp.laplace(0.5),
                                  lambda: statpriv.dp.geometric(0.4),
                                  lambda: statpriv.counting(500, 0.1, sample_size=50),
                                  lambda: statpriv.secret_sample(300, 30, 40)])
def test_epsilon_on_other_curves(make):
    curve = make()
    for target in (0.05, 1e-5, 1e-10):
        eps = curve.epsilon(target)
        if math.isinf(eps):
            assert curve.delta(1e6) > target
            continue
        assert curve.delta(eps) <= target
        if eps > 0:
            assert curve.delta(eps * (1 - 1e-9)) > target * (1 - 1e-6)
