"""curve.renyi and statpriv.rdp_to_dp against mpmath from the definitions."""
import math

import mpmath
import numpy as np
import pytest

import statpriv
from independent_oracle import binomial_mp, geometric_noise_mp

ORDERS = [0.3, 0.5, 0.9, 1.0, 1.5, 2.0, 5.0, 20.0]


def _renyi_mp(P, Q, a):
    """D_a(P||Q) from the definition (mpmath lists); KL at a = 1, max ratio at inf."""
    pairs = [(p, q) for p, q in zip(P, Q) if p > 0]
    if a >= 1 and any(q == 0 for _, q in pairs):
        return mpmath.inf
    if a == 1:
        return mpmath.fsum(p * mpmath.log(p / q) for p, q in pairs)
    if a == math.inf:
        return max(mpmath.log(p / q) for p, q in pairs)
    s = mpmath.fsum(p ** a * q ** (1 - a) for p, q in pairs if q > 0)
    return mpmath.log(s) / (a - 1)


def assert_renyi_matches_mpmath(curve, P, Q, orders, rel=1e-12):
    for direction, (A, B) in (("plus", (P, Q)), ("minus", (Q, P))):
        ours = curve.renyi(orders, direction)
        for a, v in zip(orders, ours):
            ref = _renyi_mp(A, B, a)
            if ref == mpmath.inf:
                assert v == math.inf, (direction, a)
            else:
                assert abs(v - float(ref)) <= rel * abs(float(ref)) + 1e-300, (direction, a, v, ref)
                assert v >= float(ref) * (1 - rel)


def test_noiseless_count():
    """Shift laws: supports differ, so D_alpha = inf for alpha >= 1 both ways."""
    n, pi = 25, 0.3
    with mpmath.workdps(40):
        z = binomial_mp(n - 1, pi)
        assert_renyi_matches_mpmath(statpriv.counting(n, pi), [mpmath.mpf(0)] + z, z + [mpmath.mpf(0)],
               [0.3, 0.5, 0.9, 1.0, 2.0, math.inf])


def test_poisson_sampled_count():
    """P = r Z(.-1) + (1-r) Z, Q = Z: D(Q||P) is finite for every order."""
    n, pi, r = 30, 0.4, 0.25
    with mpmath.workdps(40):
        z = binomial_mp(n - 1, pi * r)
        Z = z + [mpmath.mpf(0)]
        P = [r * (Z[j - 1] if j else 0) + (1 - r) * Z[j] for j in range(n + 1)]
        assert_renyi_matches_mpmath(statpriv.counting(n, pi, sample_rate=r, sampling="poisson"), P, Z,
               ORDERS + [math.inf])


def test_geometric_noise_count():
    with mpmath.workdps(30):
        P, Q = geometric_noise_mp(12, 0.3, 0.6, 100)       # beyond: < 0.6^100 = 7e-23
        assert_renyi_matches_mpmath(statpriv.counting(12, 0.3, noise=statpriv.Geometric(0.6)), P, Q,
               ORDERS + [math.inf], rel=1e-11)


def test_dp_closed_forms_against_quadrature():
    sigma, b, g = 1.3, 0.7, 0.55
    with mpmath.workdps(20):
        def normal(x, m):
            return mpmath.npdf(x, m, sigma)

        def lap(x, m):
            return mpmath.exp(-abs(x - m) / b) / (2 * b)

        cases = [(statpriv.dp.gaussian(sigma), normal, 2.0)] + [
            (statpriv.dp.laplace(b), lap, a) for a in (0.3, 1.0, 6.0)]
        pts = [-mpmath.inf, 0, 1, mpmath.inf]
        for curve, f, a in cases:
            if a == 1.0:
                ref = mpmath.quad(lambda x: f(x, 0) * mpmath.log(f(x, 0) / f(x, 1)), pts)
            else:
                ref = mpmath.log(mpmath.quad(lambda x: f(x, 0) ** a * f(x, 1) ** (1 - a),
                                             pts)) / (a - 1)
            assert curve.renyi(a) == pytest.approx(float(ref), rel=1e-12), (curve, a)
        c = (1 - mpmath.mpf(g)) / (1 + g)
        geo = [c * mpmath.mpf(g) ** abs(x) for x in range(-130, 132)]
        geo1 = [c * mpmath.mpf(g) ** abs(x - 1) for x in range(-130, 132)]
        for a in (0.3, 1.0, 6.0):
            ref = _renyi_mp(geo, geo1, a)
            assert statpriv.dp.geometric(g).renyi(a) == pytest.approx(float(ref), rel=1e-12)
    assert statpriv.dp.laplace(b).renyi(math.inf) == pytest.approx(1 / b)
    assert statpriv.dp.gaussian(sigma).renyi([2.0, 4.0]).tolist() == [2.0 / (2 * sigma ** 2),
                                                                      4.0 / (2 * sigma ** 2)]


def test_rdp_to_dp():
    g = statpriv.dp.gaussian(5.0)
    orders = np.array([1.5, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0])
    rdp = g.renyi(orders)
    eps = statpriv.rdp_to_dp(orders, rdp, delta=1e-6)
    assert eps >= g.epsilon(1e-6)
    # the formula, one order, in mpmath
    with mpmath.workdps(30):
        a, tau = mpmath.mpf(8), mpmath.mpf(8) / 50
        ref = tau + mpmath.log(1 - 1 / a) - (mpmath.log(mpmath.mpf(1e-6)) + mpmath.log(a)) / (a - 1)
        assert statpriv.rdp_to_dp([8.0], [0.16], delta=1e-6) == pytest.approx(float(ref), rel=1e-14)
        d = (mpmath.exp((a - 1) * (tau - 1)) / a) * (1 - 1 / a) ** (a - 1)
        assert statpriv.rdp_to_dp([8.0], [0.16], epsilon=1.0) == pytest.approx(float(d), rel=1e-13)
    delta = statpriv.rdp_to_dp(orders, rdp, epsilon=eps)
    assert delta <= 1e-6 * (1 + 1e-9) and delta >= g.delta(eps)
    assert statpriv.rdp_to_dp([2.0], [0.0], delta=0.5) == 0.0
    assert statpriv.rdp_to_dp([2.0, 3.0], [math.inf, math.inf], epsilon=1.0) == 1.0


def test_bad_input():
    c = statpriv.counting(20, 0.3)
    with pytest.raises(ValueError, match="alpha"):
        c.renyi(0.0)
    with pytest.raises(ValueError, match="alpha"):
        c.renyi(float("nan"))
    with pytest.raises(TypeError):
        c.renyi("2")
    with pytest.raises(ValueError, match="direction"):
        c.renyi(2.0, "up")
    with pytest.raises(ValueError, match="known through delta only"):
        statpriv.counting(20, 0.3, noise=statpriv.Laplace(1.0)).renyi(2.0)
    with pytest.raises(ValueError, match="exactly one"):
        statpriv.rdp_to_dp([2.0], [0.1])
    with pytest.raises(ValueError, match="exactly one"):
        statpriv.rdp_to_dp([2.0], [0.1], delta=1e-5, epsilon=1.0)
    with pytest.raises(ValueError, match="order > 1"):
        statpriv.rdp_to_dp([0.5, 1.0], [0.1, 0.2], delta=1e-5)
    with pytest.raises(ValueError, match="same length"):
        statpriv.rdp_to_dp([2.0, 3.0], [0.1], delta=1e-5)
    with pytest.raises(ValueError, match="delta"):
        statpriv.rdp_to_dp([2.0], [0.1], delta=0.0)
    with pytest.raises(ValueError, match="rdp"):
        statpriv.rdp_to_dp([2.0], [-0.1], delta=1e-5)


def test_composition_adds_up():
    a = statpriv.counting(12, 0.3, noise=statpriv.Geometric(0.6))
    b = statpriv.dp.gaussian(2.0)
    orders = np.array([0.5, 2.0, 8.0])
    for comp in (statpriv.compose(a, b, times=3), statpriv.compose(a, a, exact=True)):
        parts, times = comp._parts
        for d in ("plus", "minus"):
            want = times * sum(c.renyi(orders, d) for c in parts)
            assert np.allclose(comp.renyi(orders, d), want, rtol=1e-15)
    with mpmath.workdps(30):
        P, Q = geometric_noise_mp(12, 0.3, 0.6, 100)
        ref = 2 * _renyi_mp(P, Q, 2.0)
    assert statpriv.compose(a, a, exact=True).renyi(2.0, "plus") == pytest.approx(float(ref),
                                                                              rel=1e-11)
