"""Validation of the independent oracle (tests/independent_oracle.py) itself:
published values, agreement with statpriv.oracle (a separate mpmath brute force)
on small cases, and its own alternative paths (closed forms vs quadrature/sums,
windowed vs full sums)."""
from fractions import Fraction

import mpmath
import pytest
from mpmath import mp, mpf

import independent_oracle as O
import statpriv.oracle as statpriv_oracle
from helpers import (DP_GAUSSIAN_AT_0_01, FAR_TAIL_LOG_DELTA, STATISTICAL_PRIVACY_VALUES, oracle,
                     zip_equal)
from independent_oracle import laplace_noise_quad


def close(a, b, tol=mpf(10) ** -30):
    a, b = mpf(a), mpf(b)
    if a == b:
        return True
    return abs(a - b) <= tol * max(abs(a), abs(b))


# -- published values ---------------------------------------------------------

@pytest.mark.parametrize("n, pi, eps, value", STATISTICAL_PRIVACY_VALUES)
def test_statistical_privacy_published(n, pi, eps, value):
    # Breutigam & Reischuk's pure statistical privacy, values at 20 digits (float eps)
    with mp.workdps(30):
        assert close(O.binomial(n, pi).delta(eps), mpf(value), mpf(10) ** -19)


@pytest.mark.parametrize("n, ln_delta", FAR_TAIL_LOG_DELTA)
def test_far_tail_published(n, ln_delta):
    # the windowed sum at n = 10^6, 10^7 (pi = 0.3, eps = 0.05); the published 20 digits
    # carry ~1e-17 relative error of their own (checked: the window agrees with the full
    # sum and with statpriv.reference to 1e-30 at n <= 20001)
    with mp.workdps(30):
        got = mpmath.log(O.binomial(n, 0.3).delta(0.05))
        assert abs(got - mpf(ln_delta)) < mpf(10) ** -13


@pytest.mark.parametrize("sigma, value", DP_GAUSSIAN_AT_0_01)
def test_dp_gaussian_published(sigma, value):
    # Gaussian mechanism at eps = 0.01, noise level nu = sigma (count units)
    assert abs(O.dp_gaussian(sigma).delta("0.01") / mpf(value) - 1) < 1e-14


# -- against statpriv.oracle (an independent mpmath brute force) ---------------

ref = statpriv_oracle
EPS = [-0.3, 0.0, 0.01, 0.2, 1.5]


def _both(curve, eps):
    return [x for pair in curve.deltas(eps) for x in pair]


def _ref_both(fn, eps):
    plus = fn(eps, "plus")
    minus = fn(eps, "minus")
    return [x for pair in zip_equal(plus, minus) for x in pair]


@pytest.mark.parametrize("n, pi", [(1, 0.3), (2, 0.5), (30, 0.3), (200, 1e-17), (57, 0.999),
                                   (40, 0.0), (40, 1.0)])
def test_binomial_vs_reference(n, pi):
    ours = _both(O.binomial(n, pi), EPS)
    theirs = _ref_both(lambda e, d: ref.counting_delta(n, pi, e, direction=d), EPS)
    assert all(close(a, b) for a, b in zip_equal(ours, theirs))


@pytest.mark.parametrize("n, pi, m", [(100, 0.3, 10), (10 ** 9, 0.3, 10), (50, 1e-9, 49),
                                      (20, 0.5, 20)])
def test_subsample_vs_reference(n, pi, m):
    ours = _both(O.subsample(n, pi, m), EPS)
    theirs = _ref_both(lambda e, d: ref.counting_delta(n, pi, e, sample_size=m, direction=d),
                       EPS)
    assert all(close(a, b) for a, b in zip_equal(ours, theirs))


@pytest.mark.parametrize("n, pi, rate", [(100, 0.3, 0.1), (40, 0.9, 0.5), (300, 1e-3, 1e-6)])
def test_poisson_vs_reference(n, pi, rate):
    ours = _both(O.poisson_sample(n, pi, rate), EPS)
    theirs = _ref_both(lambda e, d: ref.counting_delta(n, pi, e, sample_rate=rate,
                                                       sampling="poisson", direction=d), EPS)
    assert all(close(a, b) for a, b in zip_equal(ours, theirs))


def test_per_record_vs_reference():
    pis = [0.1, 0.5, 0.9, 0.2, 0.0, 1.0, 1e-12, 0.5]
    ours = _both(O.per_record(pis), EPS)
    theirs = _ref_both(lambda e, d: ref.counting_delta(len(pis) + 1, pis, e, direction=d), EPS)
    assert all(close(a, b) for a, b in zip_equal(ours, theirs))


@pytest.mark.parametrize("n, m, K", [(7, 1, 5), (50, 10, 20), (22, 22, 10), (1000, 30, 0),
                                     (1000, 30, 999)])
def test_secret_sample_vs_reference(n, m, K):
    ours = _both(O.secret_sample(n, m, K), EPS)
    theirs = _ref_both(lambda e, d: ref.secret_sample_delta(n, m, K, e, direction=d), EPS)
    assert all(close(a, b) for a, b in zip_equal(ours, theirs))


@pytest.mark.parametrize("noise", [("laplace", 0.7), ("geometric", 0.6), ("gaussian", 1.3)])
def test_noisy_vs_reference(noise):
    # statpriv.oracle's values stored (tests/data/reference), recomputed by the exhaustive run
    eps = [0.0, 0.3, 1.0]
    ours = _both(O.noisy(O.binomial(8, 0.3), noise), eps)
    theirs = _ref_both(lambda e, d: oracle("noisy_counting_delta", 8, 0.3, e, noise,
                                           direction=d, dps=40), eps)
    assert all(close(a, b, mpf(10) ** -25) for a, b in zip_equal(ours, theirs))


@pytest.mark.parametrize("make, fn", [
    (O.dp_laplace, "dp_laplace_delta"),
    pytest.param(O.dp_gaussian, "dp_gaussian_delta", marks=pytest.mark.exhaustive)])
def test_dp_vs_reference(make, fn):
    for param in (0.3, 2.0):
        ours = [p for p, _ in make(param).deltas(EPS)]
        theirs = oracle(fn, param, EPS)       # stored statpriv.reference values
        assert all(close(a, b, mpf(10) ** -25) for a, b in zip_equal(ours, theirs))


# -- internal paths ------------------------------------------------------------
# The slow alternative path (quadrature, full sums) of each pair is stored in
# tests/data/reference (independent_deltas) and recomputed by the exhaustive run.

def _stored(spec, eps):
    """[(delta_plus, delta_minus), ...] of the stored independent-oracle curve spec."""
    flat = oracle("independent_deltas", spec, list(eps))
    assert len(flat) == 2 * len(eps), (spec, len(flat))
    return list(zip_equal(flat[::2], flat[1::2]))


@pytest.mark.parametrize("b", [0.3, 1.0, 17.07938327700137])
def test_dp_laplace_closed_vs_quad(b):
    eps = [-5.0, -0.2, 0.0, 0.02, 0.5 / b, (1 / b) * (1 - 1e-12), 1 / b, 3.0]
    closed = O.dp_laplace(b).deltas(eps)
    quad = _stored(("dp_laplace", (b,), {"method": "quad"}), eps)
    assert all(close(a[0], q[0], mpf(10) ** -25) for a, q in zip_equal(closed, quad))


@pytest.mark.parametrize("sigma", [0.2, 1.0, 5.0])
def test_dp_gaussian_closed_vs_quad(sigma):
    eps = [-0.5, 0.0, 0.1, 2.0]
    closed = O.dp_gaussian(sigma).deltas(eps)
    quad = _stored(("dp_gaussian", (sigma,), {"method": "quad"}), eps)
    assert all(close(a[0], q[0], mpf(10) ** -20) for a, q in zip_equal(closed, quad))


@pytest.mark.parametrize("alpha", [0.1, 0.6, 0.999])
def test_dp_geometric_closed_vs_sum(alpha):
    eps = [-1.0, -0.05, 0.0, 0.3, -mpmath.log(alpha) * 0.999]
    eps = [float(e) for e in eps]
    closed = O.dp_geometric(alpha).deltas(eps)
    summed = O.dp_geometric(alpha, method="sum").deltas(eps)
    assert all(close(a[0], s[0]) for a, s in zip_equal(closed, summed))


def _windowed(curve):
    curve.windowed = True
    curve.self_checked = True
    return curve


@pytest.mark.parametrize("n, pi", [(2001, 0.3), (2500, 1e-3), (1500, 0.999)])
def test_binomial_window_vs_full(n, pi):
    eps = [-0.7, -1e-3, 0.0, 1e-3, 0.05, 0.5, 3.0, 50.0]
    full = _stored(("binomial", (n, pi), {}), eps)
    win = _windowed(O.binomial(n, pi)).deltas(eps)
    assert all(close(a, b) for fa, wa in zip_equal(full, win) for a, b in zip_equal(fa, wa))


@pytest.mark.parametrize("n, pi, rate", [(2001, 0.3, 0.1), (1500, 0.6, 0.9), (2500, 0.01, 1e-3),
                                         (2001, 1e-5, 1.0), (2001, 0.999999, 1e-9)])
def test_poisson_window_vs_full(n, pi, rate):
    eps = [-0.7, -0.05, 0.0, 0.01, 0.5, 5.0, 200.0, 800.0]
    full = _stored(("poisson_sample", (n, pi, rate), {}), eps)
    win = _windowed(O.poisson_sample(n, pi, rate))
    for fa, wa in zip_equal(full, win.deltas(eps)):
        assert all(close(a, b) for a, b in zip_equal(fa, wa))
    # zero points: plus never (the top outcome has Q = 0 < P); minus at the
    # largest Q/P = 1/(1 - r) (outcome 0), never for r = 1
    assert win.zero_point("plus") == mpmath.inf
    if rate == 1.0:
        assert win.zero_point("minus") == mpmath.inf
    else:
        with mp.workdps(60):
            assert close(win.zero_point("minus"), -mpmath.log1p(-mpf(rate)))


@pytest.mark.parametrize("n, pi", [(300188, 5e-324), (59305728, 2.156e-27)])
def test_poisson_rate_one_delta_minus_at_large_eps(n, pi):
    # rate 1, pi so small that Z(k)/Z(k-1) = (n-k) pi / (k (1-pi)) < 1 <= e^eps for
    # every k >= 1: delta_minus(eps) = Z(0) = (1 - pi)^(n-1) exactly (was 0 once
    # e^eps exceeded 10^dps: 1 - e^eps (1 - r) was formed as r e^eps - expm1(eps))
    curve = O.poisson_sample(n, pi, 1.0)
    with mpmath.workdps(60):
        z0 = (1 - mpf(pi)) ** (n - 1)
    for eps in (0.5, 200.0, 700.0, 1e5):
        assert close(curve.delta(eps, "minus"), z0)


@pytest.mark.parametrize("n, pi, rate, eps", [
    (6657507712, 0.9999999999999999, 1e-09, -0.47693640136094395),
    (744777737453, 0.9997643360099169, 5.148334390515826e-06, -0.5345194353638821)])
def test_poisson_negative_eps_huge_n_is_cheap(n, pi, rate, eps):
    # The window below the threshold holds only astronomically small terms
    # (b(anchor) ~ 10^-10^9): the bounded rest says delta = 1 - e^eps to 1e-32,
    # with no fixed-point integers of 10^11 bits (this took ~23 GB once).
    # Both directions are 1 - e^eps + e^eps delta_plus(-eps), delta_plus(-eps) ~ 0.
    curve = O.poisson_sample(n, pi, rate)
    with mpmath.workdps(60):
        one_minus_e = -mpmath.expm1(mpf(eps))
    dplus, dminus = curve.deltas([eps])[0]
    assert close(dplus, one_minus_e) and close(dminus, one_minus_e)


def test_binomial_shift_sum_bound_at_huge_n():
    # n = 1e12: the windowed sum at eps and its reflection agree with the symmetric case
    E = mpmath.exp(mpf("0.001"))
    a = O.binomial_shift_sum(10 ** 12 - 1, Fraction(1, 2), E)
    b = O.binomial_shift_sum(10 ** 12 - 1, Fraction(1, 2), E, reverse=True)
    assert close(a, b)


@pytest.mark.parametrize("b", [0.4, 2.5])
def test_noisy_laplace_closed_vs_quad(b):
    count = O.subsample(30, 0.4, 5)
    eps = [0.0, 0.1, 0.9 / b]
    closed = O.noisy(count, ("laplace", b)).deltas(eps)
    quad = _stored(("noisy", (("subsample", (30, 0.4, 5), {}), ("laplace", b)), {"method": "quad"}),
                   eps)
    assert all(close(x, y, mpf(10) ** -20) for c, q in zip_equal(closed, quad) for x, y in zip_equal(c, q))


@pytest.mark.exhaustive
@pytest.mark.first
def test_noisy_gaussian_vs_quadrature():
    # independent: quad of (f_P - e^eps f_Q)_+ split at a grid and at the sign changes
    # of f_P - e^eps f_Q (located on the grid, refined by mpmath.findroot)
    count = O.binomial(6, 0.35)
    sigma = mpf(0.8)
    with mp.workdps(30):
        P, Q = count._get(40)
        for eps in (0.0, 0.4, 2.0):
            E = mpmath.exp(mpf(eps))

            def g(x):
                return sum((p - E * q) * mpmath.npdf(x, k, sigma)
                           for k, (p, q) in enumerate(zip_equal(P, Q)))
            grid = [mpf(k) / 8 - 6 for k in range(8 * 20)]
            roots = [mpmath.findroot(g, (x, y), solver="anderson")
                     for x, y in zip(grid, grid[1:]) if g(x) * g(y) < 0]
            pts = [-mpmath.inf] + sorted(grid + roots) + [mpmath.inf]
            want = mpmath.quad(lambda x: max(mpf(0), g(x)), pts)
            got = O.noisy(O.binomial(6, 0.35), ("gaussian", 0.8)).delta(eps, "plus")
            assert abs(got - want) <= mpf(10) ** -20 * want


def test_noisy_geometric_vs_sum():
    count = O.binomial(5, 0.5)
    mp.dps = 40
    a = mpf(0.3)
    P, Q = count._get(40)
    c = (1 - a) / (1 + a)
    for eps in (0.0, 0.5, 1.1):
        E = mpmath.exp(mpf(eps))
        tot = mpf(0)
        for x in range(-200, 206):
            fp = sum(p * c * a ** abs(x - k) for k, p in enumerate(P))
            fq = sum(q * c * a ** abs(x - k) for k, q in enumerate(Q))
            tot += max(mpf(0), fp - E * fq)
        got = O.noisy(O.binomial(5, 0.5), ("geometric", 0.3)).delta(eps, "plus")
        assert close(got, tot, mpf(10) ** -25)
    mp.dps = 15


def test_noisy_window_vs_full():
    # binomial n = 2000 under Laplace noise: windowed laws (bounded left-out mass)
    # against the full laws
    eps = [0.0, 0.05, 0.5]
    full = _stored(("noisy", (("binomial", (2000, 0.01), {}), ("laplace", 2.0)), {}), eps)
    win = O.noisy(_windowed(O.binomial(2000, 0.01)), ("laplace", 2.0)).deltas(eps)
    assert all(close(a, b) for fa, wa in zip_equal(full, win) for a, b in zip_equal(fa, wa))


def test_zero_points():
    assert close(O.dp_laplace(17.07938327700137).zero_point(), 1 / mpf(17.07938327700137))
    assert close(O.dp_geometric(0.7).zero_point(), -mpmath.log(mpf(0.7)))
    lam = mpf(9) / 15
    z = O.subsample(15, 0.25, 9).zero_point("plus")
    assert close(z, mpmath.log(1 + lam / ((1 - lam) * mpf(0.25))))
    assert close(O.secret_sample(7, 1, 5).zero_point("minus"), mpmath.log(2))
    assert O.binomial(10, 0.3).zero_point() == mpmath.inf
    assert close(O.noisy(O.binomial(10, 0.3), ("laplace", 3.0)).zero_point(), mpf(1) / 3)
    # delta is 0 at eps0 and positive just below it
    c = O.secret_sample(7, 1, 5)
    z = c.zero_point("max")
    assert c.delta(O.smallest_float_at_least(z)) == 0
    assert c.delta(float(z) * (1 - 1e-15)) > 0


def test_issue_examples():
    # values quoted in the precision issues, recomputed here
    d = O.subsample(10 ** 9, 0.3, 10).delta(0.0, "plus")
    assert abs(d / mpf("2.66827932e-9") - 1) < 1e-8
    lp = mpmath.log(O.noisy(O.binomial(20, 0.44), ("gaussian", 4.85)).delta(11.5, "plus"))
    assert lp < -600
    # delta ~ 2e-13 here moves by 1.6e-4 relative per ulp of eps: compare at the same float
    e = float(mpmath.log(2)) * (1 - 1e-12)
    want = ref.secret_sample_delta(7, 1, 5, [e])[0]
    assert close(O.secret_sample(7, 1, 5).delta(e), want, mpf(10) ** -25)


@pytest.mark.parametrize("case, laws, eps", [
    # counting(2, 0.5) + Laplace(0.001): the ratio crosses e^eps 5e-4 below the top atom
    ("binomial", lambda: ([0, mpf(1) / 2, mpf(1) / 2], [mpf(1) / 2, mpf(1) / 2, 0]), 999.0),
    # Poisson sampling, rate 1 - 1e-9, pi = 1 - 1e-16, n = 3 (the n = 300 case of the
    # differential test in small): Q = Bin(2, rho), P = rate Q(. - 1) + (1 - rate) Q
    ("poisson_high", None, 999.0),
    # Poisson sampling, rate 1e-9, pi = 0.3695, n = 4, eps = 978.3 (e^eps P(4)/Q(3) ~ e^999)
    ("poisson_low", None, 978.3),
])
def test_noisy_laplace_tiny_b_vs_quadrature(case, laws, eps):
    # b = 0.001: the positive part of a cell next to the top atom sits within ~b of it,
    # where the cell's coefficients at the far end are e^(1/b) larger than the integrand
    # (the oracle once dropped such a piece as rounding noise: about half of delta)
    with mp.workdps(40):
        if case == "binomial":
            P, Q = laws()
            count = O.binomial(2, 0.5)
        else:
            n, pi, rate = (3, 1 - 1e-16, 1 - 1e-9) if case == "poisson_high" else \
                (4, 0.3695, 1e-9)
            rho = mpf(rate) * mpf(pi)
            Bn = [mpmath.binomial(n - 1, k) * rho ** k * (1 - rho) ** (n - 1 - k)
                  for k in range(n)]
            Q = Bn + [mpf(0)]
            P = [mpf(rate) * (Bn[k - 1] if k else 0) + (1 - mpf(rate)) * Q[k]
                 for k in range(n + 1)]
            count = O.poisson_sample(n, pi, rate)
        want = laplace_noise_quad(P, Q, 0.001, eps)
        got = O.noisy(count, ("laplace", 0.001)).delta(eps, "plus")
        assert want > 0
        assert abs(got - want) <= mpf(10) ** -25 * want, (got, want)


# One DP-SGD step beside Gaussian mechanisms (the differential test's
# compose_sampled truth): the smooth quadrature (30 digits and up, 12 nodes,
# pieces bisected to 1e-24 of the value) against the closed form where there
# is one and against the 45-digit nested quadrature (24 nodes, graded pieces,
# 1e-40 absolute) where there is none.  ~3 s a value: exhaustive.
@pytest.mark.exhaustive
@pytest.mark.parametrize("sigma, g, k, relation, eps", [
    (0.7, 2.0, 3, "add_remove", 0.4), (1.5, 0.9, 1, "replace_one", 1.3),
    (0.4, 30.0, 1000, "add_remove", 9.0)])
def test_sampled_mix_at_rate_one_is_the_gaussian_mechanism(sigma, g, k, relation, eps):
    # at q = 1 the step is N(s, sigma^2) against N(0, sigma^2), s = 1 (add/remove)
    # or 2 (replace-one): with the k runs of N(1, g^2) / N(0, g^2) one Gaussian
    # mechanism of 1 / sigma_eff^2 = s^2 / sigma^2 + k / g^2
    curve = O.sampled_gaussian_mix(sigma, 1.0, relation, 1, ((g, k),))
    shift = 1 if relation == "add_remove" else 2
    with mpmath.workdps(60):
        sigma_eff = 1 / mpmath.sqrt(shift ** 2 / mpf(sigma) ** 2 + k / mpf(g) ** 2)
        exact = O.gaussian_delta_mp(sigma_eff, eps)
        for direction in ("plus", "minus"):
            assert close(curve.delta(eps, direction), exact, mpf(10) ** -20), direction


@pytest.mark.exhaustive
@pytest.mark.parametrize("sigma, q, relation, gaussians, eps", [
    (0.35, 0.015, "replace_one", ((0.67, 1), (80.0, 1000)), 1.2),
    (5.0, 0.5, "add_remove", ((3.3, 1),), 2.56)])
def test_sampled_mix_smooth_quadrature_matches_the_nested_one(sigma, q, relation, gaussians,
                                                              eps):
    curve = O.sampled_gaussian_mix(sigma, q, relation, 1, gaussians)
    with mpmath.workdps(45):
        A, B, s = O._sampled_gaussian_pair(sigma, q, relation, True)
        g = 1 / mpmath.sqrt(mpmath.fsum(k / mpf(gi) ** 2 for gi, k in gaussians))
        nested = O._SampledGaussianProduct(A, B, s, 24, 1, 16, g).delta(1, mpf(eps),
                                                                         adaptive=True)
        assert close(curve.delta(eps, "plus"), nested, mpf(10) ** -20)
