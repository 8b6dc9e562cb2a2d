"""Worst-case DP curves vs the mpmath quadrature oracle, Breutigam & Reischuk's numbers,
and subsampling amplification."""
import math

import mpmath
import numpy as np
import pytest

import statpriv
from helpers import (DP_GAUSSIAN_AT_0_01, assert_matches, assert_within_certified,
                     certified, oracle, zip_equal)

EPS = [-1.0, 0.0, 0.01, 0.1, 1.0, 5.0]


@pytest.mark.parametrize("sigma", [0.05, 0.5, 1.0, 3.0, 10.0])
def test_gaussian_vs_quadrature(sigma):
    curve = statpriv.dp.gaussian(sigma)
    ref = oracle("dp_gaussian_delta", sigma, EPS)
    cert = certified("dp_gaussian_delta", sigma, EPS)
    for e, ours, r, c in zip_equal(EPS, curve.log_delta(EPS), ref, cert):
        assert_within_certified(ours, c, what=f"gaussian sigma={sigma} eps={e} (certified)")
        assert_matches(ours, r, what=f"gaussian sigma={sigma} eps={e}")


@pytest.mark.parametrize("scale", [0.1, 1.0, 3.0, 30.0])
def test_laplace_vs_quadrature(scale):
    curve = statpriv.dp.laplace(scale)
    ref = oracle("dp_laplace_delta", scale, EPS)
    cert = certified("dp_laplace_delta", scale, EPS)
    for e, ours, r, c in zip_equal(EPS, curve.log_delta(EPS), ref, cert):
        assert_within_certified(ours, c, what=f"laplace scale={scale} eps={e} (certified)")
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
    cert = certified("dp_geometric_delta", alpha, EPS)
    for e, ours, r, c in zip_equal(EPS, curve.log_delta(EPS), ref, cert):
        assert_within_certified(ours, c, what=f"geometric alpha={alpha} eps={e} (certified)")
        assert_matches(ours, r, what=f"geometric alpha={alpha} eps={e}")


@pytest.mark.parametrize("nu,value", DP_GAUSSIAN_AT_0_01)
def test_published_gaussian_values(nu, value):
    # docs/mathematics.md §6 / Breutigam & Reischuk §5: n = 1000, eps = 0.01, noise level nu in count units.
    assert statpriv.dp.gaussian(nu).delta(0.01) == pytest.approx(float(value), rel=1e-13)


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


# --- Precision near the zero point and in the far tails ----------------------
# Truth from the definitions, at 50 digits (mpmath), never from the code under
# test.  Laplace(b), sensitivity 1: delta(eps) = int (f(x-1) - e^eps f(x))_+ dx
# = max(0, 1 - exp((eps - 1/b)/2)); geometric(alpha): sum_k (P(k-1) -
# e^eps P(k))_+ = max(0, 1 - alpha e^eps)/(1 + alpha); Gaussian(sigma):
# Phi(1/(2 sigma) - eps sigma) - e^eps Phi(-1/(2 sigma) - eps sigma)
# (Balle & Wang 2018, Thm. 8).  eps < 0: delta(eps) = 1 - e^eps + e^eps delta(-eps).

def _negative_side(eps, positive):
    e = mpmath.mpf(eps)
    if e >= 0:
        return positive(e)
    return 1 - mpmath.exp(e) + mpmath.exp(e) * positive(-e)


def laplace_truth(b, eps):
    with mpmath.workdps(50):
        b = mpmath.mpf(b)
        return _negative_side(eps, lambda e: max(mpmath.mpf(0), 1 - mpmath.exp((e - 1 / b) / 2)))


def geometric_truth(alpha, eps):
    with mpmath.workdps(50):
        a = mpmath.mpf(alpha)
        return _negative_side(eps, lambda e: max(mpmath.mpf(0), 1 - a * mpmath.exp(e)) / (1 + a))


def gaussian_truth(sigma, eps):
    # The two terms agree to up to ~12 digits where 1/sigma is small against
    # eps sigma: 90 digits leave > 50 after the cancellation.
    with mpmath.workdps(90):
        s, e = mpmath.mpf(sigma), mpmath.mpf(eps)
        return mpmath.ncdf(1 / (2 * s) - e * s) - mpmath.exp(e) * mpmath.ncdf(-1 / (2 * s) - e * s)


def _ulp_tolerance(ref):
    """ln delta within max(1e-10, 8 ulps of |ln delta|) where delta underflows."""
    with mpmath.workdps(50):
        ln = abs(float(mpmath.log(ref))) if ref > 0 else 0.0
    return max(1e-10, 8 * math.ulp(ln))


def _zero_point_sweep(eps0):
    """eps0 (1 - 10^-k), k = 1..14, the floats around eps0 (an mpf), and the
    mirror images at -eps; returns (floats, the float eps0 rounded up)."""
    up = float(eps0)
    if up < eps0:
        up = math.nextafter(up, math.inf)
    pts = [float(eps0 * (1 - mpmath.mpf(10) ** -k)) for k in range(1, 15)]
    pts += [math.nextafter(up, 0.0), up, math.nextafter(up, math.inf), 2 * up]
    return pts + [-p for p in pts[:14:3]] + [-math.nextafter(up, 0.0)], up


@pytest.mark.parametrize("scale", [17.07938327700137, 1e-3, 0.1, 1.0, 3.0, 1e4, 2.0 ** -20])
def test_laplace_zero_point(scale):
    curve = statpriv.dp.laplace(scale)
    with mpmath.workdps(50):
        eps0 = 1 / mpmath.mpf(scale)
    pts, up = _zero_point_sweep(eps0)
    logs = curve.log_delta(pts)
    for e, ours in zip(pts, logs):
        assert_matches(ours, laplace_truth(scale, e), what=f"laplace b={scale} eps={e!r}")
    assert curve.delta(up) == 0.0 and curve.delta(math.nextafter(up, 0.0)) > 0.0
    assert curve.epsilon(0.0) == up


def test_laplace_issue_value():
    b = 17.07938327700137
    e = (1 / b) * (1 - 1e-12)
    ours = statpriv.dp.laplace(b).delta(e)
    # Truth at this float e: 2.92755226590069652e-14 (the old 1 - exp form
    # returned 2.927519e-14, 1.1e-6 low).
    assert ours == pytest.approx(float(laplace_truth(b, e)), rel=1e-12)
    assert ours >= float(laplace_truth(b, e)) * (1 - 1e-12)


@pytest.mark.parametrize("alpha", [0.3, 0.5, 0.9, 1 - 2.0 ** -40, 1e-6, 1e-300, 5e-324,
                                   0.42410648544401286])
def test_geometric_zero_point(alpha):
    curve = statpriv.dp.geometric(alpha)
    with mpmath.workdps(50):
        eps0 = -mpmath.log(mpmath.mpf(alpha))
    pts, up = _zero_point_sweep(eps0)
    logs = curve.log_delta(pts)
    for e, ours in zip(pts, logs):
        assert_matches(ours, geometric_truth(alpha, e), what=f"geometric alpha={alpha} eps={e!r}")
    assert curve.delta(up) == 0.0 and curve.delta(math.nextafter(up, 0.0)) > 0.0
    assert curve.epsilon(0.0) == up


GAUSS_FAR_EPS = [0.0, 1e-6, 1e-3, 0.02, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1e3, 3e3, 1e4,
                 -0.5, -5.0]


@pytest.mark.parametrize("sigma", [1e-3, 0.05, 1.0, 30.0, 1e3, 1e5, 1e7])
def test_gaussian_far_tail(sigma):
    curve = statpriv.dp.gaussian(sigma)
    for e, ours in zip(GAUSS_FAR_EPS, curve.log_delta(GAUSS_FAR_EPS)):
        ref = gaussian_truth(sigma, e)
        assert_matches(ours, ref, log_abs=_ulp_tolerance(ref), what=f"gaussian sigma={sigma} eps={e}")


def test_gaussian_branch_boundaries():
    # Around the switches between the closed forms and the series in 1/sigma
    # (c = eps sigma - 1/(2 sigma) near 0 and 2, 1/sigma near c/4 and 1/6).
    rng = np.random.default_rng(11)
    for _ in range(60):
        sigma = 10 ** rng.uniform(-1, 2.5)
        c = rng.uniform(-3, 6)
        e = (c + 0.5 / sigma) / sigma
        ref = gaussian_truth(sigma, e)
        assert_matches(statpriv.dp.gaussian(sigma).log_delta(e), ref, log_abs=_ulp_tolerance(ref),
                       what=f"gaussian sigma={sigma!r} eps={e!r}")


@pytest.mark.parametrize("sigma", [0.088, 1e-3, 1e-6, 9.72638e-12])
def test_gaussian_tiny_sigma_near_its_bulk(sigma):
    # eps > 64 with eps sigma <= 1/(2 sigma): delta ~ Phi(a), a in [0, 8].  The
    # closed form eps + ln Phi(b) cancelled two terms of size ~eps there (at
    # sigma ~ 1e-11 it returned ln delta = -inf where delta ~ 1, and epsilon(d)
    # came out below the curve's bulk, found by fuzzing).
    curve = statpriv.dp.gaussian(sigma)
    for c in (-8.0, -3.0, -1.0, -0.1, 0.0):
        e = (c + 0.5 / sigma) / sigma
        if e <= 64.0:
            continue
        ref = gaussian_truth(sigma, e)
        assert_matches(curve.log_delta(e), ref, log_abs=_ulp_tolerance(ref),
                       what=f"gaussian sigma={sigma!r} eps={e!r}")
    # epsilon(d) is valid (truth <= d) and tight to 1e-6 of the curve's scale 1/sigma
    for d in (0.5, 1e-3, 1e-12, 1e-300):
        e = curve.epsilon(d)
        step = 1e-6 / sigma + 8 * math.ulp(e)
        assert gaussian_truth(sigma, e) <= d * (1 + 1e-12)
        assert gaussian_truth(sigma, e - step) > d


@pytest.mark.parametrize("sigma", [1e-150, 1e-20, 1e-3, 0.04])
def test_gaussian_tiny_sigma_below_the_crossing(sigma):
    # eps in (256, 1/(2 sigma^2)): e^eps Phi(-1/(2 sigma) - eps sigma) from
    # e^(-a^2/2) erfcx, since eps + ln Phi(...) cancels (sigma = 1e-150:
    # delta read 0 at eps = 5e299 (1 - 1e-9), where it is 1).
    with mpmath.workdps(50):
        crossing = 1 / (2 * mpmath.mpf(sigma) ** 2)
    ks = [1e-9, 1e-12, 1e-14, 1e-15, 2e-16] if sigma < 1e-3 else [0.1, 1e-3, 1e-6]
    pts = [float(crossing * (1 - mpmath.mpf(k))) for k in ks]
    curve = statpriv.dp.gaussian(sigma)
    for e, ours in zip(pts, curve.log_delta(pts)):
        assert e > 256.0
        ref = gaussian_truth(sigma, e)
        assert_matches(ours, ref, log_abs=_ulp_tolerance(ref), what=f"gaussian sigma={sigma!r} eps={e!r}")
    if sigma == 1e-150:
        eps = curve.epsilon(0.5)
        # delta falls from ~1 to ~0 within an ulp of 1/(2 sigma^2) = 5e299:
        # the answer is within the search's 4-ulp tolerance above it
        assert gaussian_truth(sigma, eps) <= 0.5 < gaussian_truth(sigma, eps * (1 - 1e-15))


def test_gaussian_positive_everywhere():
    # delta > 0 at every finite eps: ln delta stays finite, epsilon(0) = inf.
    for sigma in (1e-3, 1.0, 1e3):
        curve = statpriv.dp.gaussian(sigma)
        assert np.all(np.isfinite(curve.log_delta([1e6, 1e12, 1e300])))
        assert curve.log_delta(math.inf) == -math.inf
        assert curve.epsilon(0.0) == math.inf


@pytest.mark.parametrize("kind,param", [("laplace", 17.07938327700137), ("laplace", 3.0),
                                        ("laplace", 0.1), ("laplace", 1e-3), ("laplace", 2.0 ** -20),
                                        ("geometric", 0.3), ("geometric", 0.999),
                                        ("geometric", 1e-10), ("geometric", 5e-324)])
def test_zero_point_up(kind, param):
    # The float at which "eps >= zero point" may declare delta = 0: the real
    # 1/b or -ln alpha rounded up, never down (1.0/b may round down).
    with mpmath.workdps(50):
        p = mpmath.mpf(param)
        exact = 1 / p if kind == "laplace" else -mpmath.log(p)
        z = statpriv.noise.NOISE_KINDS[kind](param).zero_point_up()
        assert z >= exact and math.nextafter(z, 0.0) < exact


@pytest.mark.parametrize("scale", [17.07938327700137, 0.7])
def test_laplace_noise_pure_dp_point(scale):
    # Count + Laplace(b): f_P/f_Q = e^(1/b) exactly beyond the atoms, so the
    # curve is 0 from the real 1/b on and positive just below it.
    curve = statpriv.counting(6, 0.3, noise=statpriv.Laplace(scale))
    z = statpriv.noise._kernels.laplace_zero_point_up(scale)
    assert curve.epsilon(0.0) == z
    assert curve.delta(z) == 0.0 and curve.delta(math.nextafter(z, 0.0)) > 0.0


@pytest.mark.exhaustive
def test_dp_random_sweep():
    # ~6,000 comparisons: Gaussian sigma in [1e-3, 1e8], eps in [-5, 1e4];
    # Laplace/geometric near their zero points and on both sides of 0.
    rng = np.random.default_rng(2026)
    for _ in range(3000):
        sigma = 10 ** rng.uniform(-3, 8)
        e = 10 ** rng.uniform(-7, 4) * (-1 if rng.random() < 0.1 else 1)
        ref = gaussian_truth(sigma, e)
        assert_matches(statpriv.dp.gaussian(sigma).log_delta(e), ref, log_abs=_ulp_tolerance(ref),
                       what=f"gaussian sigma={sigma!r} eps={e!r}")
    for _ in range(100):
        b = 10 ** rng.uniform(-3.5, 4)
        alpha = float(rng.uniform(0, 1)) if rng.random() < 0.7 else 10 ** rng.uniform(-300, -1)
        for kind, param, truth in (("laplace", b, laplace_truth), ("geometric", alpha, geometric_truth)):
            with mpmath.workdps(50):
                eps0 = 1 / mpmath.mpf(param) if kind == "laplace" else -mpmath.log(mpmath.mpf(param))
            pts, up = _zero_point_sweep(eps0)
            pts += list(float(eps0) * rng.uniform(-2, 1, 8))
            curve = getattr(statpriv.dp, kind)(param)
            for e, ours in zip(pts, curve.log_delta(pts)):
                assert_matches(ours, truth(param, e), what=f"{kind} {param!r} eps={e!r}")
            assert curve.epsilon(0.0) == up


def test_old_parameter_names_still_work_with_a_warning():
    # amplify(..., rate=) is amplify(..., sample_rate=) (counting's name);
    # to_dp_accounting(tail_mass=) is tail_mass_truncation= (the PLD's name)
    with pytest.warns(DeprecationWarning, match="sample_rate"):
        old = statpriv.amplify(1.0, 1e-6, rate=0.01)
    assert old == statpriv.amplify(1.0, 1e-6, sample_rate=0.01) == statpriv.amplify(1.0, 1e-6, 0.01)
    with pytest.raises(statpriv.ParameterTypeError, match="sample_rate"):
        statpriv.amplify(1.0, 1e-6, rate=0.01, sample_rate=0.01)
    curve = statpriv.counting(100, 0.3)
    with pytest.warns(DeprecationWarning, match="tail_mass_truncation"):
        old = curve.to_dp_accounting(1e-3, tail_mass=1e-12)
    new = curve.to_dp_accounting(1e-3, tail_mass_truncation=1e-12)
    assert old.get_delta_for_epsilon(0.2) == new.get_delta_for_epsilon(0.2)


@pytest.mark.parametrize("eps0, k, eps", [
    (1e-17, 2, 0.0),                                          # the zero point 1e-17
    (1e-300, 3, 0.0),
    (0.0010614530410602847, 763861, 0.0010426794174038456),   # eps just below eps0
    (0.007532221653987845, 2, 0.007530229155928358),
    (5.0, 10 ** 12, 4.999999999999),
])
def test_randomized_response_near_its_zero_point_from_the_exact_ratio(eps0, k, eps):
    # ln P/Q of the reports is eps0, -eps0, 0 exactly (the rounded logs
    # e^eps0 / Z and 1 / Z differ by it only to an ulp of ln Z: 1e-16, all of
    # eps0 = 1e-17, and a 1.9e-11 error at the third row)
    curve = statpriv.dp.randomized_response(eps0, k)
    with mpmath.workdps(60):
        e0, e = mpmath.mpf(eps0), mpmath.mpf(eps)
        # (e^eps0 - e^eps) / (e^eps0 + k - 1), eps >= 0
        truth = mpmath.exp(e) * mpmath.expm1(e0 - e) / (mpmath.exp(e0) + k - 1)
    for direction in ("plus", "minus"):
        got = float(getattr(curve, f"log_delta_{direction}")(eps))
        assert abs(got - float(mpmath.log(truth))) <= 1e-12 * abs(float(mpmath.log(truth)))
    # epsilon at that delta is not below the eps that gives it
    target = float(truth)
    found = curve.epsilon(target)
    assert curve.delta(found) <= target
