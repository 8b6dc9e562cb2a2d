"""statpriv.noise: counts plus noise of every kind (docs/mathematics.md §6) -- the
exact C paths against the mpmath quadrature/summation oracle, independent code
paths against each other, and the properties every noisy curve must have.  One
file per kind for its own edges: test_noise_laplace.py, test_noise_gaussian.py,
test_noise_geometric.py."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import statpriv
from statpriv import _core
from statpriv.counting.binomial import binomial_window_laws
from statpriv.counting.sampling import _subsample_laws
from statpriv.noise import _kernels as noise_kernels
from helpers import assert_matches, check_against_reference, oracle

NOISES = [statpriv.Laplace(0.5), statpriv.Laplace(3.0), statpriv.Gaussian(0.05),
          statpriv.Gaussian(1.0), statpriv.Gaussian(3.0), statpriv.Geometric(0.3),
          statpriv.Geometric(0.9)]


@pytest.mark.parametrize("noise", NOISES, ids=repr)
@pytest.mark.parametrize("n,pi", [(1, 0.5), (2, 0.3), (10, 0.01), (100, 0.5), (300, 0.99)])
def test_noisy_count_vs_oracle(noise, n, pi):
    check_against_reference(statpriv.counting(n, pi, noise=noise), n, pi, noise)


@pytest.mark.parametrize("noise", [statpriv.Laplace(1.0), statpriv.Gaussian(0.05),
                                   statpriv.Gaussian(2.0), statpriv.Geometric(0.5)], ids=repr)
def test_sampled_noisy_count_vs_oracle(noise):
    # sampling mixtures: monotone ratio too (one crossing with Gaussian noise)
    check_against_reference(statpriv.counting(60, 0.3, sample_size=12, noise=noise), 60, 0.3,
                            noise, sample_size=12)
    check_against_reference(statpriv.counting(60, 0.3, sample_rate=0.25, sampling="poisson",
                                              noise=noise), 60, 0.3, noise,
                            sample_rate=0.25, sampling="poisson")


@pytest.mark.parametrize("noise", [statpriv.Laplace(2.0), statpriv.Gaussian(1.5),
                                   statpriv.Geometric(0.6)], ids=repr)
def test_per_record_noisy_count_vs_oracle(noise):
    pi = [0.1, 0.5, 0.5, 0.9, 0.02, 1.0, 0.0, 0.7]
    check_against_reference(statpriv.counting(None, pi, noise=noise), 9, pi, noise)


@pytest.mark.parametrize("noise,eps", [(statpriv.Gaussian(1.0), 20.0), (statpriv.Laplace(0.1), 9.0),
                                       (statpriv.Geometric(0.0005), 7.0)], ids=repr)
def test_tiny_delta_vs_oracle(noise, eps):
    curve = statpriv.counting(400, 0.5, noise=noise)
    assert curve.log_delta(eps) < math.log(1e-100)
    check_against_reference(curve, 400, 0.5, noise, eps=[eps])


def test_gaussian_monotone_and_grid_paths_agree():
    # One crossing solved for vs every sign change found on a sigma/8 grid.
    laws = binomial_window_laws(299, 0.4)
    lp, lq = laws.log_p, laws.log_q
    eps = np.array([0.0, 0.003, 0.05, 0.4, 2.0])
    for sigma in (0.05, 0.2, 1.0, 4.0):
        solved = noise_kernels.GaussCurveCore(lp, lq, sigma, True)
        scanned = noise_kernels.GaussCurveCore(lp, lq, sigma, False)
        for direction in (0, 1):
            a, b = solved.log_delta(eps, direction), scanned.log_delta(eps, direction)
            assert np.allclose(a, b, rtol=1e-11, atol=1e-11), (sigma, direction, a - b)


def test_geometric_matches_direct_convolution():
    # numpy convolution of the count pmf with the geometric pmf on a wide window
    n, pi, alpha = 40, 0.3, 0.6
    laws = _subsample_laws(n, pi, n)
    lp, lq = laws.log_p, laws.log_q
    k = np.arange(-400, 401)
    g = (1 - alpha) / (1 + alpha) * alpha ** np.abs(k)
    fp, fq = np.convolve(np.exp(lp), g), np.convolve(np.exp(lq), g)
    curve = statpriv.counting(n, pi, noise=statpriv.Geometric(alpha))
    for e in (0.0, 0.05, 0.3):
        direct = np.maximum(fp - math.exp(e) * fq, 0).sum()
        assert curve.delta_plus(e) == pytest.approx(direct, rel=1e-12)


def test_normal_approximation_is_labelled_and_matches_lemma_6():
    exact = statpriv.counting(1000, 0.3, noise=statpriv.Gaussian(3.0))
    approx = statpriv.counting(1000, 0.3, noise=statpriv.Gaussian(3.0), approx="normal")
    assert exact.exact and not approx.exact
    assert "normal approximation" in repr(approx)
    eps = [0.0, 0.01, 0.1]
    ref = oracle("normal_approx_delta", 1000, 0.3, eps, 3.0)
    for e, ours, r in zip(eps, approx.log_delta(eps), ref):
        assert_matches(ours, r, what=f"normal approx eps={e}")
    # an approximation: close to the exact curve at moderate eps, not equal
    assert approx.delta(0.01) == pytest.approx(exact.delta(0.01), rel=0.05)
    assert approx.delta(0.01) != exact.delta(0.01)


@pytest.mark.parametrize("kwargs,match", [
    (dict(noise="laplace"), r"noise must be statpriv.Laplace, Gaussian or Geometric"),
    (dict(noise=statpriv.Laplace(1.0), approx="normal"), r"noise=None or statpriv.Gaussian"),
    (dict(approx="poisson"), r"approx must be one of"),
    (dict(sample_size=5, approx="normal"), r"iid pi without sampling"),
])
def test_noise_arguments_rejected(kwargs, match):
    with pytest.raises(ValueError, match=match):
        statpriv.counting(10, 0.3, **kwargs)


@pytest.mark.parametrize("make,match", [
    (lambda: statpriv.Laplace(0.0), r"scale must be in \(0.0"),
    (lambda: statpriv.Gaussian(-1.0), r"sigma must be in \(0.0"),
    (lambda: statpriv.Gaussian(math.inf), r"sigma must be finite"),
    (lambda: statpriv.Geometric(1.0), r"alpha must be in \(0.0, 1.0\)"),
])
def test_bad_noise_parameters(make, match):
    with pytest.raises(ValueError, match=match):
        make()


noises = st.one_of(st.floats(0.05, 20.0).map(statpriv.Laplace),
                   st.floats(0.05, 20.0).map(statpriv.Gaussian),
                   st.floats(0.01, 0.99).map(statpriv.Geometric))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 3000), st.floats(0.0, 1.0), noises, st.floats(-3.0, 8.0),
       st.floats(0.0, 3.0))
def test_noisy_curve_properties(n, pi, noise, eps, step):
    curve = statpriv.counting(n, pi, noise=noise)
    lo, hi = curve.log_delta([eps, eps + step])
    # slack: the Gaussian path's ln delta carries ~1e-13 |ln delta| from double
    # normal-tail logs (|ln delta| ~ 230: 2e-11, i.e. delta to 2e-11 relative)
    slack = 1e-12 + 2e-13 * abs(lo) if lo > -math.inf else 0.0
    assert hi <= lo + slack and lo <= 0.0
    if eps >= 0:
        # post-processing: noise never hurts, and the data never hurt either
        assert lo <= statpriv.counting(n, pi).log_delta(eps) + slack
        assert lo <= noise.dp_curve().log_delta(eps) + slack


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 500), st.integers(0, 2 ** 16), noises, st.floats(0.0, 3.0))
def test_noisy_symmetry_swaps_plus_and_minus(n, numerator, noise, eps):
    pi = numerator / 2 ** 16
    a, b = statpriv.counting(n, pi, noise=noise), statpriv.counting(n, 1 - pi, noise=noise)
    assert a.log_delta_plus(eps) == pytest.approx(b.log_delta_minus(eps), rel=1e-11, abs=1e-12)


# delta of a bounded noisy curve evaluates exactly only the direction whose
# cheap upper bound is larger, and the other only where its bound reaches that
# value (csrc/bounded.c): the answer must still be the larger direction, to the bit,
# across the eps where the two directions cross or differ by 1e3.
_MAX_CURVES = {
    "laplace": lambda: statpriv.counting(10**6, 0.3, noise=statpriv.Laplace(3.0)),
    "laplace-sampled": lambda: statpriv.counting(10**5, 0.5, sample_size=3 * 10**4,
                                                 noise=statpriv.Laplace(2.0)),
    "geometric": lambda: statpriv.counting(10**5, 0.1, noise=statpriv.Geometric(0.6)),
    "laplace-poisson": lambda: statpriv.counting(2 * 10**4, 0.7, sample_rate=0.4,
                                                 sampling="poisson", noise=statpriv.Laplace(1.0)),
}


@pytest.mark.parametrize("name", sorted(_MAX_CURVES))
def test_delta_max_spares_the_smaller_direction_exactly(name):
    curve = _MAX_CURVES[name]()
    top = min(curve.epsilon(0.0, direction="plus"), curve.epsilon(0.0, direction="minus"), 5.0)
    eps = np.concatenate([np.linspace(0.0, top, 97), np.geomspace(1e-9, top, 61)])
    plus, minus = curve.log_delta_plus(eps), curve.log_delta_minus(eps)
    both = curve.log_delta(eps)
    np.testing.assert_array_equal(both, np.maximum(plus, minus))
    assert np.any(plus != minus)                         # a direction to spare
    for e in eps[::7]:                                   # the scalar path alike
        assert curve.log_delta(float(e)) == max(curve.log_delta_plus(float(e)),
                                               curve.log_delta_minus(float(e)))
