"""Worst-case DP curves vs the mpmath quadrature oracle, seed 000's numbers,
and subsampling amplification."""
import mpmath
import numpy as np
import pytest

import statpriv
from statpriv import reference
from conftest import assert_matches, oracle

EPS = [-1.0, 0.0, 0.01, 0.1, 1.0, 5.0]


@pytest.mark.parametrize("sigma", [0.05, 0.5, 1.0, 3.0, 10.0])
def test_gaussian_vs_quadrature(sigma):
    curve = statpriv.dp.gaussian(sigma)
    ref = oracle("dp_gaussian_delta", sigma, EPS)
    for e, ours, r in zip(EPS, curve.log_delta(EPS), ref):
        assert_matches(ours, r, what=f"gaussian sigma={sigma} eps={e}")


@pytest.mark.parametrize("scale", [0.1, 1.0, 3.0, 30.0])
def test_laplace_vs_quadrature(scale):
    curve = statpriv.dp.laplace(scale)
    ref = oracle("dp_laplace_delta", scale, EPS)
    for e, ours, r in zip(EPS, curve.log_delta(EPS), ref):
        if e >= 1 / scale:
            # delta is exactly 0 here (the integrand is <= 0 everywhere); the
            # 50-digit quadrature of max(g, 0) leaves only rounding noise.
            assert ours == -float("inf") and r < mpmath.mpf("1e-60")
            continue
        assert_matches(ours, r, what=f"laplace scale={scale} eps={e}")


@pytest.mark.parametrize("alpha", [1e-6, 0.3, 0.9, 0.999])
def test_geometric_vs_sum(alpha):
    curve = statpriv.dp.geometric(alpha)
    ref = oracle("dp_geometric_delta", alpha, EPS)
    for e, ours, r in zip(EPS, curve.log_delta(EPS), ref):
        assert_matches(ours, r, what=f"geometric alpha={alpha} eps={e}")


@pytest.mark.parametrize("nu,value", [(1.0, 0.379841760124599), (3.0, 0.128067047707446)])
def test_seed_000_gaussian_values(nu, value):
    # MATH.md §5 / seed 000 §5: n = 1000, eps = 0.01, noise level nu in count units.
    assert statpriv.dp.gaussian(nu).delta(0.01) == pytest.approx(value, rel=1e-13)


def test_symmetric_curves():
    for curve in (statpriv.dp.gaussian(0.7), statpriv.dp.laplace(2.0), statpriv.dp.geometric(0.5)):
        assert np.array_equal(curve.delta_plus(EPS), curve.delta_minus(EPS))


def test_amplify_matches_formula():
    with mpmath.workdps(40):
        for eps, delta, rate in [(1.0, 1e-6, 0.1), (0.01, 0.0, 0.5), (8.0, 0.2, 1e-3)]:
            e2, d2 = statpriv.amplify(eps, delta, rate)
            ref = mpmath.log(1 + mpmath.mpf(rate) * (mpmath.exp(eps) - 1))
            assert e2 == pytest.approx(float(ref), rel=1e-14)
            assert d2 == pytest.approx(rate * delta, rel=1e-15)
    eps, delta = statpriv.amplify([0.5, 1.0], 1e-5, [0.1, 0.2])
    assert eps.shape == delta.shape == (2,)
    assert statpriv.amplify(3.0, 0.1, 1.0) == pytest.approx((3.0, 0.1), rel=1e-15)
