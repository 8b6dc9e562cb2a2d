"""Counts plus noise (docs/mathematics.md §6): the exact C paths against the mpmath
quadrature/summation oracle, independent code paths against each other, and
the properties every noisy curve must have."""
import math

import mpmath

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import statpriv
from statpriv import _core
from statpriv import reference
from statpriv.counting import _binomial_window_laws, _subsample_laws
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
    lp, lq = _binomial_window_laws(299, 0.4)[:2]
    eps = np.array([0.0, 0.003, 0.05, 0.4, 2.0])
    for sigma in (0.05, 0.2, 1.0, 4.0):
        solved = _core.GaussCurveCore(lp, lq, sigma, True)
        scanned = _core.GaussCurveCore(lp, lq, sigma, False)
        for direction in (0, 1):
            a, b = solved.log_delta(eps, direction), scanned.log_delta(eps, direction)
            assert np.allclose(a, b, rtol=1e-11, atol=1e-11), (sigma, direction, a - b)


def test_geometric_matches_direct_convolution():
    # numpy convolution of the count pmf with the geometric pmf on a wide window
    n, pi, alpha = 40, 0.3, 0.6
    lp, lq = _subsample_laws(n, pi, n)[:2]
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


# ---------------------------------------------------------------------------
# Laplace noise on a pure shift (no sampling) near the zero point 1/b.
# Reference from the definitions: n records with the target among them, so
# P = Bin(n - 1, pi) shifted by one, Q = Bin(n - 1, pi),
# f_A = A * Laplace(b); the likelihood ratio f_P/f_Q is monotone (log-concave
# noise keeps the monotone ratio of the shift), so {f_P > e^eps f_Q} is a
# half-line [x*, inf) and delta_plus = sum_k (P(k) - e^eps Q(k)) P[k + N > x*],
# with x* found by bisection at 60 digits.

def _laplace_shift_delta_plus(n, pi, b, eps, dps=60):
    n = n - 1                                # the others
    with mpmath.workdps(dps):
        p, b, e = mpmath.mpf(pi), mpmath.mpf(b), mpmath.exp(mpmath.mpf(eps))
        Q = [mpmath.binomial(n, k) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)]
        Q.append(mpmath.mpf(0))
        P = [mpmath.mpf(0)] + Q[:-1]

        def dens(A, x):
            return sum(a * mpmath.exp(-abs(x - k) / b) for k, a in enumerate(A) if a)

        def surv(x, k):                      # P[k + Laplace(b) > x]
            return (mpmath.exp(-(x - k) / b) / 2 if x >= k
                    else 1 - mpmath.exp((x - k) / b) / 2)

        def h(x):
            return dens(P, x) - e * dens(Q, x)

        lo, hi = mpmath.mpf(-60) * b, mpmath.mpf(n + 1)
        assert h(lo) < 0 < h(hi)
        for _ in range(400):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if h(mid) < 0 else (lo, mid)
        return sum((P[k] - e * Q[k]) * surv(hi, k) for k in range(n + 2))


@pytest.mark.parametrize("n, pi, b, k", [
    (5, 2.1361785554740366e-19, 638.0024380883865, 12),
    (5, 2.1361785554740366e-19, 638.0024380883865, None),    # the float below 1/b
    (45, 3.3059886068797693e-13, 256.20713643511573, 14),
    (9, 0.9864992402812972, 3.5378024256700624, 10),
])
def test_laplace_shift_near_zero_point(n, pi, b, k):
    eps0 = statpriv.counting(n, pi, noise=statpriv.Laplace(b)).epsilon(0.0, direction="plus")
    assert eps0 == _core.zero_point_up("laplace", b)
    eps = math.nextafter(eps0, 0.0) if k is None else eps0 * (1 - 10.0 ** -k)
    ref = _laplace_shift_delta_plus(n, pi, b, eps)
    got = statpriv.counting(n, pi, noise=statpriv.Laplace(b)).log_delta_plus(eps)
    assert_matches(got, ref, rel=1e-10, what=f"counting({n}, {pi}, Laplace({b})) at {eps!r}")


# Geometric noise near the zero point.  The reference is written from the
# definitions in mpmath: f_A(y) = sum_k A(k) (1-alpha)/(1+alpha) alpha^|y-k|,
# delta_plus(eps) = sum_y (f_P(y) - e^eps f_Q(y))_+ over all integers y, the
# two tails (y < 0 and y > last atom, where the sign is constant) summed as
# geometric series; eps0 = sup_y ln f_P/f_Q = ln G_P(1/alpha)/G_Q(1/alpha).

def _geometric_noisy_mp(p, q, alpha, eps):
    """delta_plus(eps) of count laws p, q (mpmath lists on 0..K) + geometric(alpha)."""
    import mpmath
    a, e = mpmath.mpf(alpha), mpmath.exp(eps)
    c, K = (1 - a) / (1 + a), len(p) - 1

    def f(law, y):
        return c * mpmath.fsum(law[k] * a ** abs(y - k) for k in range(K + 1))

    total = mpmath.fsum(max(f(p, y) - e * f(q, y), 0) for y in range(K + 1))
    for w, count in ((a, a / (1 - a)), (1 / a, a / (1 - a))):   # y < 0, y > K
        gp = mpmath.fsum(p[k] * w ** k for k in range(K + 1))
        gq = mpmath.fsum(q[k] * w ** k for k in range(K + 1))
        edge = 0 if w < 1 else K            # f_A(y) = c alpha^|y - edge| G_A(w) w^-edge
        total += max(gp - e * gq, 0) * c * count * w ** -edge
    return total


def _geometric_zero_point_mp(p, q, alpha):
    import mpmath
    w = 1 / mpmath.mpf(alpha)
    return mpmath.log(mpmath.fsum(p[k] * w ** k for k in range(len(p)))
                      / mpmath.fsum(q[k] * w ** k for k in range(len(q))))


def _binomial_mp(N, pi):
    import mpmath
    return [mpmath.binomial(N, k) * mpmath.mpf(pi) ** k * (1 - mpmath.mpf(pi)) ** (N - k)
            for k in range(N + 1)]


def _near_zero_point(eps0):
    """eps0 (1 - 10^-k), k = 6, 9, 12, and the float just below eps0."""
    import mpmath
    below = float(eps0)
    while below >= eps0:
        below = math.nextafter(below, 0.0)
    return [float(eps0 * (1 - mpmath.mpf(10) ** -k)) for k in (6, 9, 12)] + [below]


def _smallest_float_at_or_above(x):
    f = float(x)
    while f < x:
        f = math.nextafter(f, math.inf)
    while math.nextafter(f, -math.inf) >= x:
        f = math.nextafter(f, -math.inf)
    return f


@pytest.mark.parametrize("case", ["shift", "poisson", "sample_pi0"])
def test_geometric_noise_near_zero_point_vs_definition(case):
    # each case under-reported or missed 1e-10 near eps0 before the log
    # ratios were formed as ln R - D(x) (deficit from the exact tail ratio)
    import mpmath
    with mpmath.workdps(50):
        if case == "shift":        # counting(15, 1e-9): P = 1 + S, Q = S
            alpha = 3.9748768781385663e-08
            curve = statpriv.counting(15, 1e-9, noise=statpriv.Geometric(alpha))
            s = _binomial_mp(14, 1e-9)
            p, q = [mpmath.mpf(0)] + s, s + [mpmath.mpf(0)]
        elif case == "poisson":    # each record sampled w.p. r: S ~ Bin(n-1, r pi)
            n, pi, r, alpha = 300, 4.239498004287386e-09, 0.999999999, 0.3657519346952236
            curve = statpriv.counting(n, pi, sample_rate=r, sampling="poisson",
                                      noise=statpriv.Geometric(alpha))
            s = _binomial_mp(n - 1, mpmath.mpf(r) * mpmath.mpf(pi))[:40]
            # atoms beyond 40 are below (300 r pi)^40 / 40! < 1e-280 of the
            # mass (times w^40 < 1e18 in G(w)): far below 1e-10 of delta here
            rr = mpmath.mpf(r)
            p = [(1 - rr) * s[0]] + [rr * s[j - 1] + (1 - rr) * s[j] for j in range(1, len(s))]
            p.append(rr * s[-1])
            q = s + [mpmath.mpf(0)]
        else:                      # sample of 137 of n records, pi = 0
            n, m, alpha = 30530668239, 137, 0.427303138549747
            curve = statpriv.counting(n, 0.0, sample_size=m, noise=statpriv.Geometric(alpha))
            lam = mpmath.mpf(m) / n
            p, q = [1 - lam, lam], [mpmath.mpf(1), mpmath.mpf(0)]
        for direction, (pp, qq) in (("plus", (p, q)), ("minus", (q[::-1], p[::-1]))):
            # delta_minus is delta_plus of (Q, P) on the mirrored support
            eps0 = _geometric_zero_point_mp(pp, qq, alpha)
            assert curve.epsilon(0.0, direction=direction) == _smallest_float_at_or_above(eps0)
            log_delta = curve.log_delta_plus if direction == "plus" else curve.log_delta_minus
            for eps in _near_zero_point(eps0):
                assert_matches(log_delta(eps), _geometric_noisy_mp(pp, qq, alpha, eps),
                               rel=1e-10, what=f"{case} {direction} eps={eps!r}")
