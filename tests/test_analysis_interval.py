"""statpriv.interval: choosing eps by interval estimation (Naldi & D'Acquisto, docs/mathematics.md §7).

Expected confidences come from direct mpmath summation / integration of the
noise distribution in this file, and the Gaussian eps from an mpmath
integral of the hockey-stick divergence -- not from the code under test.
"""
import math
import warnings
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import statpriv
from statpriv.interval import (interval_confidence, interval_epsilon, interval_noise,
                               interval_width)
from statpriv.noise import Gaussian, Geometric, Laplace

KINDS = [pytest.param(cls, delta, id=f"{cls.__name__}-{delta}")
         for cls, delta in [(Laplace, None), (Geometric, None), (Gaussian, 1e-6), (Gaussian, 0.05)]]


@pytest.fixture(autouse=True)
def _mp_precision():
    """40 digits for the oracles here, without touching the global mpmath state."""
    with mpmath.workdps(40):
        yield


# -- direct mpmath evaluations of the noise distributions --------------------------
def mp_laplace_inside(scale, t):
    """P[|N| < t] by integrating the Laplace density e^(-|x|/b)/(2b)."""
    b = mpmath.mpf(scale)
    return mpmath.quad(lambda x: mpmath.exp(-abs(x) / b) / (2 * b), [-t, 0, t])


def mp_geometric_inside(alpha, t):
    """P[|N| < t] by summing P(k) = (1-a)/(1+a) a^|k| over the integers |k| < t
    (t exact: an int or Fraction)."""
    a = mpmath.mpf(alpha)
    kmax = math.ceil(t) - 1             # largest integer k with k < t
    return mpmath.fsum((1 - a) / (1 + a) * a ** abs(k) for k in range(-kmax, kmax + 1))


def mp_gaussian_inside(sigma, t):
    """P[|N| < t] by integrating the N(0, sigma^2) density."""
    s = mpmath.mpf(sigma)
    return mpmath.quad(lambda x: mpmath.exp(-x * x / (2 * s * s)) / (s * mpmath.sqrt(2 * mpmath.pi)),
                       [-t, 0, t])


def mp_gaussian_hockey_stick(sigma, eps):
    """delta(eps) = int (phi_s(x-1) - e^eps phi_s(x))_+ dx; the integrand is positive
    exactly for x > 1/2 + eps sigma^2 (the log ratio (2x-1)/(2 sigma^2) exceeds eps)."""
    s, e = mpmath.mpf(sigma), mpmath.mpf(eps)
    x0 = mpmath.mpf(1) / 2 + e * s * s

    def phi(x):
        return mpmath.exp(-x * x / (2 * s * s)) / (s * mpmath.sqrt(2 * mpmath.pi))
    return mpmath.quad(lambda x: phi(x - 1) - mpmath.exp(e) * phi(x),
                       [x0, x0 + s, x0 + 10 * s, mpmath.inf])


# -- Naldi & D'Acquisto example -------------------------------------------------------------------
def test_seed_002_example():
    eps = interval_epsilon(0.2, 0.8, 100)
    expected = -mpmath.log(1 - mpmath.mpf("0.8")) / (mpmath.mpf("0.2") * 100)   # ln 5 / 20
    assert eps == pytest.approx(float(expected), rel=1e-15)
    assert eps == pytest.approx(0.0804718956217, abs=1e-12)
    assert round(eps, 2) == 0.08                        # as printed in Naldi & D'Acquisto §3
    assert interval_confidence(eps, 0.2, 100) == pytest.approx(0.8, rel=1e-15)
    assert interval_width(eps, 0.8, 100) == pytest.approx(0.2, rel=1e-15)
    assert interval_noise(0.2, 0.8, 100) == Laplace(1.0 / eps)
    assert interval_noise(0.2, 0.8, 100).scale == pytest.approx(20 / math.log(5), rel=1e-15)


# -- the formulas against direct evaluation of the noise law ------------------------------
@pytest.mark.parametrize("eps,w,c", [(0.08, 0.2, 100), (1.0, 0.05, 30), (0.003, 0.5, 1000)])
def test_laplace_against_integration(eps, w, c):
    p = interval_confidence(eps, w, c, Laplace)
    assert p == pytest.approx(float(mp_laplace_inside(1 / mpmath.mpf(eps), mpmath.mpf(w) * c)), rel=1e-13)


# (eps, w as decimal string, c): t = w c non-integer, integer (0.3 * 10 is
# 3.0000000000000004 in float64), below 1 (only k = 0 inside) and large.
GEOM_CASES = [(0.1, "0.25", 10), (0.1, "0.3", 10), (0.7, "0.05", 7), (0.02, "1", 40),
              (0.5, "0.1", 10), (2.0, "0.15", 20), (0.001, "0.37", 1234)]


@pytest.mark.parametrize("eps,w,c", GEOM_CASES)
def test_geometric_confidence_against_summation(eps, w, c):
    t = Fraction(w) * c
    alpha = mpmath.exp(-mpmath.mpf(eps))
    direct = mp_geometric_inside(alpha, t)
    # the closed form 1 - 2 alpha^K/(1+alpha), K = ceil(t), equals the direct sum
    assert abs(direct - (1 - 2 * alpha ** math.ceil(t) / (1 + alpha))) < mpmath.mpf(10) ** -35
    assert interval_confidence(eps, float(w), c, Geometric) == pytest.approx(float(direct), rel=1e-13)


@pytest.mark.parametrize("p", [0.05, 0.5, 0.8, 0.99])
@pytest.mark.parametrize("eps,w,c", GEOM_CASES)
def test_geometric_epsilon_against_summation(eps, w, c, p):
    got = interval_epsilon(float(w), p, c, Geometric)
    t = Fraction(w) * c
    assert float(mp_geometric_inside(mpmath.exp(-mpmath.mpf(got)), t)) == pytest.approx(p, rel=1e-13)
    noise = interval_noise(float(w), p, c, Geometric)
    assert isinstance(noise, Geometric)
    assert noise.alpha == pytest.approx(math.exp(-got), rel=1e-15)


def test_geometric_k1_closed_form():
    # t <= 1: only k = 0 inside, p = P[N = 0] = (1-a)/(1+a) = tanh(eps/2)
    for eps in (0.01, 0.5, 3.0):
        assert interval_confidence(eps, 0.01, 50, Geometric) == pytest.approx(math.tanh(eps / 2), rel=1e-14)
        assert interval_epsilon(0.02, math.tanh(eps / 2), 50, Geometric) == pytest.approx(eps, rel=1e-14)


@pytest.mark.parametrize("w,p,c", [(0.2, 0.8, 100), (0.05, 0.95, 40), (1.0, 0.3, 3), (0.01, 0.999, 10000)])
def test_gaussian_against_integration(w, p, c):
    t = mpmath.mpf(w) * c
    noise = interval_noise(w, p, c, Gaussian)
    assert isinstance(noise, Gaussian)
    assert float(mp_gaussian_inside(noise.sigma, t)) == pytest.approx(p, rel=1e-13)
    for delta in (1e-6, 0.05):
        eps = interval_epsilon(w, p, c, Gaussian, delta=delta)
        assert eps == noise.dp_curve().epsilon(delta)
        if eps > 0:
            hs = float(mp_gaussian_hockey_stick(noise.sigma, eps))
            assert hs == pytest.approx(delta, rel=1e-9)      # the level is tight ...
            assert hs <= delta * (1 + 1e-12)                 # ... and (eps, delta) holds
        # interval_confidence: p = 2 Phi(t / sigma) - 1 with sigma the (eps, delta)-DP noise
        q = interval_confidence(eps, w, c, Gaussian, delta=delta) if eps > 0 else None
        if q is not None:
            sigma_q = t / (mpmath.sqrt(2) * mpmath.erfinv(mpmath.mpf(q)))
            assert float(mp_gaussian_hockey_stick(sigma_q, eps)) == pytest.approx(delta, rel=1e-8)


def test_gaussian_huge_noise_gives_eps_zero():
    # sigma = 1000 / Phi^-1(0.75) ~ 1483: total variation of N, N+1 is ~2.7e-4 < delta
    assert interval_epsilon(1.0, 0.5, 1000, Gaussian, delta=0.01) == 0.0


# -- round trips ------------------------------------------------------------------------
EPS_W_C = [(0.08, 0.2, 100), (1.3, 0.1, 25), (0.01, 0.02, 1000), (0.3, 0.07, 50)]


@pytest.mark.parametrize("kind,delta", KINDS)
@pytest.mark.parametrize("eps,w,c", EPS_W_C)
def test_round_trip_eps_p_eps(kind, delta, eps, w, c):
    rel = 1e-12 if kind is not Gaussian else 1e-9
    p = interval_confidence(eps, w, c, kind, delta=delta)
    assert 0 < p < 1
    assert interval_epsilon(w, p, c, kind, delta=delta) == pytest.approx(eps, rel=rel)


@pytest.mark.parametrize("kind,delta", KINDS)
@pytest.mark.parametrize("eps,p,c", [(0.08, 0.8, 100), (1.3, 0.5, 25), (0.01, 0.99, 1000), (0.3, 0.2, 50)])
def test_round_trip_eps_w_eps(kind, delta, eps, p, c):
    w = interval_width(eps, p, c, kind, delta=delta)
    assert w > 0
    if kind is not Geometric:
        rel = 1e-12 if kind is Laplace else 1e-9
        assert interval_epsilon(w, p, c, kind, delta=delta) == pytest.approx(eps, rel=rel)
        assert interval_confidence(eps, w, c, kind, delta=delta) == pytest.approx(p, rel=rel)
        return
    # geometric: the confidence is a step function of w; w = K/c is the smallest
    # integer half-width reaching p, so the eps giving exactly p there is <= eps ...
    K = round(w * c)
    assert w == K / c and K >= 1
    assert interval_confidence(eps, w, c, kind) >= p
    assert interval_epsilon(w, p, c, kind) <= eps * (1 + 1e-14)
    if K > 1:   # ... and one integer less misses p: it would need a larger eps
        assert interval_confidence(eps, (K - 1) / c, c, kind) < p
        assert interval_epsilon((K - 1) / c, p, c, kind) > eps
    # with p taken on a step (w c = K exactly) the round trip is exact
    p_step = interval_confidence(eps, w, c, kind)
    assert interval_width(eps, p_step, c, kind) == w
    assert interval_epsilon(w, p_step, c, kind) == pytest.approx(eps, rel=1e-12)


@pytest.mark.parametrize("kind,delta", KINDS)
def test_round_trip_p_eps_p_and_w_eps_w(kind, delta):
    for w, p, c in [(0.2, 0.8, 10), (0.05, 0.6, 40), (0.5, 0.95, 6)]:
        eps = interval_epsilon(w, p, c, kind, delta=delta)
        assert eps > 0
        rel = 1e-12 if kind is not Gaussian else 1e-9
        assert interval_confidence(eps, w, c, kind, delta=delta) == pytest.approx(p, rel=rel)
        if kind is not Geometric:
            assert interval_width(eps, p, c, kind, delta=delta) == pytest.approx(w, rel=rel)


@pytest.mark.parametrize("kind,delta", KINDS)
def test_monotone(kind, delta):
    c = 10 if kind is Gaussian else 100     # keep the Gaussian eps > 0 at delta = 0.05
    ws = [0.05, 0.1, 0.2, 0.4]
    eps = [interval_epsilon(w, 0.8, c, kind, delta=delta) for w in ws]
    assert all(a > b for a, b in zip(eps, eps[1:]))          # wider interval: smaller eps
    ps = [0.2, 0.5, 0.8, 0.95]
    eps = [interval_epsilon(0.2, p, c, kind, delta=delta) for p in ps]
    assert all(a < b for a, b in zip(eps, eps[1:]))          # more confidence: larger eps


# -- noise objects ----------------------------------------------------------------------
def test_interval_noise_matches_epsilon():
    w, p, c = 0.2, 0.8, 100
    lap = interval_noise(w, p, c, Laplace)
    assert 1 / lap.scale == pytest.approx(interval_epsilon(w, p, c, Laplace), rel=1e-15)
    assert lap.dp_curve().delta(interval_epsilon(w, p, c) * (1 + 1e-12)) == 0.0
    geo = interval_noise(w, p, c, Geometric)
    assert -math.log(geo.alpha) == pytest.approx(interval_epsilon(w, p, c, Geometric), rel=1e-14)
    assert interval_noise(w, p, c) == lap


def test_interval_noise_feeds_counting():
    for kind in (Laplace, Geometric, Gaussian):
        noise = interval_noise(0.2, 0.8, 100, kind)
        curve = statpriv.counting(1000, 0.1, noise=noise)
        # data randomness can only help: statistical privacy <= worst-case DP
        for e in (0.02, 0.05, 0.5):
            assert curve.delta(e) <= noise.dp_curve().delta(e) * (1 + 1e-9)
        if kind is not Gaussian:   # pure eps-DP at the interval's eps
            eps = interval_epsilon(0.2, 0.8, 100, kind)
            assert curve.delta(eps * (1 + 1e-9)) == 0.0


# -- vectorization ---------------------------------------------------------------------------
@pytest.mark.parametrize("kind,delta", KINDS)
def test_vectorized(kind, delta):
    ws = np.array([0.05, 0.2, 0.5])
    eps = interval_epsilon(ws, 0.8, 100, kind, delta=delta)
    assert isinstance(eps, np.ndarray) and eps.shape == (3,)
    for w, e in zip(ws, eps):
        assert e == interval_epsilon(float(w), 0.8, 100, kind, delta=delta)
    ps = interval_confidence(0.1, ws[:, None], np.array([50, 100]), kind, delta=delta)
    assert ps.shape == (3, 2)
    assert ps[1, 0] == interval_confidence(0.1, 0.2, 50, kind, delta=delta)
    wd = interval_width(np.array([0.05, 0.1]), 0.8, 100, kind, delta=delta)
    assert wd[1] == interval_width(0.1, 0.8, 100, kind, delta=delta)
    assert isinstance(interval_width(0.1, 0.8, 100, kind, delta=delta), float)


# -- bad input ----------------------------------------------------------------------------------
@pytest.mark.parametrize("args,kwargs,match", [
    ((0.0, 0.8, 100), {}, r"width must be in \(0.0, inf\)"),
    ((-0.2, 0.8, 100), {}, r"width must be in \(0.0"),
    ((math.nan, 0.8, 100), {}, r"width must be finite"),
    (([0.2, 0.0], 0.8, 100), {}, r"width must lie in \(0.0, inf\)"),
    ((0.2, 0.0, 100), {}, r"confidence must be in \(0.0, 1.0\)"),
    ((0.2, 1.0, 100), {}, r"confidence must be in \(0.0, 1.0\)"),
    ((0.2, 1.5, 100), {}, r"confidence must be in \(0.0, 1.0\)"),
    ((0.2, [0.5, 1.0], 100), {}, r"confidence must lie in \(0.0, 1.0\)"),
    ((0.2, "0.8", 100), {}, r"confidence must be a real number"),
    ((0.2, 0.8, 0), {}, r"count must be > 0.*empty"),
    ((0.2, 0.8, [10, 0]), {}, r"count must be > 0"),
    ((0.2, 0.8, -5), {}, r"count must be in \[0.0, inf\)"),
    ((0.2, 0.8, math.inf), {}, r"count must be finite"),
    ((0.2, 0.8, 100), dict(noise=statpriv.Gaussian),
     r"delta is required for noise=statpriv.Gaussian.*\(0.0, 1.0\)"),
    ((0.2, 0.8, 100), dict(noise=statpriv.Gaussian, delta=0.0), r"delta must be in \(0.0, 1.0\)"),
    ((0.2, 0.8, 100), dict(noise=statpriv.Gaussian, delta=1.0), r"delta must be in \(0.0, 1.0\)"),
    ((0.2, 0.8, 100), dict(noise=statpriv.Gaussian, delta=math.nan), r"delta must be finite"),
    ((0.2, 0.8, 100), dict(delta=1e-6),
     r"delta must be None for noise=statpriv.Laplace .*only with noise=statpriv.Gaussian$"),
    ((0.2, 0.8, 100), dict(noise=statpriv.Geometric, delta=1e-6), r"delta must be None"),
])
def test_interval_epsilon_rejects(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        interval_epsilon(*args, **kwargs)


@pytest.mark.parametrize("fn", [interval_confidence, interval_width])
@pytest.mark.parametrize("eps,match", [(0.0, r"eps must be in \(0.0, inf\)"),
                                       (-1.0, r"eps must be in \(0.0"),
                                       (math.inf, r"eps must be finite"),
                                       ([0.1, 0.0], r"eps must lie in \(0.0, inf\)")])
def test_eps_rejects(fn, eps, match):
    with pytest.raises(ValueError, match=match):
        fn(eps, 0.2, 100)


def test_confidence_width_reject_other_args():
    with pytest.raises(ValueError, match=r"width must be in \(0.0"):
        interval_confidence(0.1, 0.0, 100)
    with pytest.raises(ValueError, match=r"confidence must be in \(0.0, 1.0\)"):
        interval_width(0.1, 1.0, 100)
    with pytest.raises(ValueError, match=r"count must be > 0"):
        interval_width(0.1, 0.5, 0)
    with pytest.raises(ValueError, match=r"delta is required"):
        interval_confidence(0.1, 0.2, 100, Gaussian)


@pytest.mark.parametrize("args,match", [
    ((0.0, 0.8, 100, Laplace), r"width must be in \(0.0"),
    ((0.2, 1.0, 100, Gaussian), r"confidence must be in \(0.0, 1.0\)"),
    ((0.2, 0.8, 0, Geometric), r"count must be > 0"),
    (([0.2], 0.8, 100, Laplace), r"width must be a real number"),
])
def test_interval_noise_rejects(args, match):
    with pytest.raises(ValueError, match=match):
        interval_noise(*args)


# -- choosing the noise: a class; kind names (the former spelling) deprecated ---------------
FUNCTIONS = [(interval_epsilon, (0.2, 0.8, 100)), (interval_confidence, (0.1, 0.2, 100)),
             (interval_width, (0.1, 0.8, 100)), (interval_noise, (0.2, 0.8, 100))]


@pytest.mark.parametrize("fn,args", FUNCTIONS, ids=lambda f: getattr(f, "__name__", ""))
@pytest.mark.parametrize("name,cls", [("laplace", Laplace), ("geometric", Geometric),
                                      ("gaussian", Gaussian)])
def test_kind_names_still_work_with_a_deprecation_warning(fn, args, name, cls):
    delta = {} if cls.pure_dp or fn is interval_noise else dict(delta=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")           # the class spelling warns nothing
        expected = fn(*args, noise=cls, **delta)
    with pytest.warns(DeprecationWarning, match=f"noise=statpriv.{cls.__name__} instead of "
                                                f"'{name}'"):
        assert fn(*args, name, **delta) == expected          # positional, as before
    with pytest.warns(DeprecationWarning) as record:
        assert fn(*args, noise_kind=name, **delta) == expected   # the old keyword
    messages = [str(w.message) for w in record]
    assert any("noise_kind=...) is deprecated: the parameter is called noise" in m
               for m in messages), messages
    assert all(w.filename == __file__ for w in record)      # attributed to this caller
    with pytest.warns(DeprecationWarning):
        assert fn(*args, noise_kind=cls, **delta) == expected     # old keyword, new value


def test_laplace_is_the_default():
    assert interval_epsilon(0.2, 0.8, 100) == interval_epsilon(0.2, 0.8, 100, noise=Laplace)
    assert interval_noise(0.2, 0.8, 100) == interval_noise(0.2, 0.8, 100, noise=Laplace)


@pytest.mark.parametrize("fn,args", FUNCTIONS, ids=lambda f: getattr(f, "__name__", ""))
@pytest.mark.parametrize("noise,error,match", [
    (Laplace(2.0), TypeError, r"noise must be a noise class .*not a noise object.*Laplace\(2.0\)"
                              r".*pass noise=statpriv.Laplace"),
    (statpriv.noise.Noise, ValueError, r"noise must be statpriv.Laplace, statpriv.Geometric or "
                                       r"statpriv.Gaussian, got statpriv.Noise"),
    ("cauchy", ValueError, r"noise must be statpriv.Laplace.* \(or, deprecated, one of "
                           r"'laplace', 'geometric', 'gaussian'\), got 'cauchy'"),
    (1.0, TypeError, r"noise must be a noise class .*got float 1.0"),
    (None, TypeError, r"noise must be a noise class .*got NoneType None"),
])
def test_noise_must_be_a_class(fn, args, noise, error, match):
    with pytest.raises(error, match=match):
        fn(*args, noise=noise)


def test_both_spellings_at_once_are_refused():
    with pytest.raises(TypeError, match="give noise or its old name noise_kind"):
        interval_epsilon(0.2, 0.8, 100, noise=Laplace, noise_kind="laplace")
