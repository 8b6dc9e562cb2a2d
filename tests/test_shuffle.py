"""statpriv.shuffle.clones: the clone reduction of shuffled eps0-LDP reports
(Feldman, McMillan & Talwar, "Hiding among the clones") against the mpmath
oracle (every atom of the two laws at 50 digits) and the published numbers."""
import math

import mpmath
import numpy as np
import pytest

from helpers import assert_matches, oracle as stored_oracle, zip_equal
from statpriv import ParameterTypeError, oracle, shuffle

# the stored oracle values (tests/data/reference/shuffle.json): (n, eps0) on the grid EPS
EPS = [0.0, 1e-3, 0.05, 0.2, 0.5, -0.1, -1.0]
CASES = [(120, 1.0), (300, 0.5), (250, 3.0), (60, 8.0)]


@pytest.mark.parametrize("n, eps0", CASES, ids=[f"n{n}-eps0_{e}" for n, e in CASES])
def test_stored_oracle(n, eps0):
    curve = shuffle.clones(n, eps0)
    refs = stored_oracle("clones_delta", n, eps0, EPS, direction="plus")
    for direction in ("log_delta", "log_delta_plus", "log_delta_minus"):
        ours = getattr(curve, direction)(EPS)
        for e, o, r in zip_equal(EPS, ours, refs):
            if e >= eps0:                   # delta = 0; the oracle holds its 50-digit rounding
                assert o == -math.inf and r < mpmath.mpf(10) ** -40
                continue
            assert_matches(o, r, what=f"{n} {e} {direction}")


@pytest.mark.parametrize("n, eps0", [(1, 1.0), (2, 0.3), (9, 2.0), (40, 1.0), (30, 700.0), (12, 1e-3)])
def test_live_oracle_small(n, eps0):
    # up to the float below eps0, where a = (e^eps0 - e^eps) / (1 + e^eps0) ~ 1e-16 eps0
    eps = [0.0, 0.01, 0.3, eps0 * 0.999, math.nextafter(eps0, 0.0), eps0, 2 * eps0, -0.2, -3.0]
    eps = [e for e in eps if e < eps0 or e in (eps0, 2 * eps0)]
    refs = oracle.clones_delta(n, eps0, eps, direction="max")
    curve = shuffle.clones(n, eps0)
    for e, o, r in zip_equal(eps, curve.log_delta(eps), refs):
        if e >= eps0:
            assert o == -math.inf         # the largest likelihood ratio is e^eps0
            assert abs(r) < mpmath.mpf(10) ** -45
            continue
        assert_matches(o, r, what=f"n={n} eps={e}")


@pytest.mark.parametrize("n, eps0", [(41, 1e-17), (80, 1e-300), (1, 5e-324), (7, 1e-12)])
def test_tiny_eps0(n, eps0):
    # the mixing law Bin(n - 1, e^-eps0) has mean N - N q with N q ~ N eps0:
    # formed as N e^-eps0 it loses q's digits (2% low at eps0 = 1e-17).
    # Reference at eps = 0 from the definitions: H_0(P_c || Q_c) = a max_x
    # b_c(x) = a C(c, c // 2) / 2^c (the shift's total variation), a = tanh(eps0 / 2).
    with mpmath.workdps(400):
        e0 = mpmath.mpf(eps0)
        p, q = mpmath.exp(-e0), -mpmath.expm1(-e0)
        exact = mpmath.tanh(e0 / 2) * mpmath.fsum(
            math.comb(n - 1, c) * p ** c * q ** (n - 1 - c) * math.comb(c, c // 2) / mpmath.mpf(2) ** c
            for c in range(n))
    curve = shuffle.clones(n, eps0)
    assert_matches(curve.log_delta(0.0), exact, what=f"n={n} eps0={eps0} eps=0")
    # and next to the zero point, where e^eps0 - e^eps ~ eps0 * 2^-53
    eps = [eps0 / 9, eps0 / 2, math.nextafter(eps0, 0.0), -math.nextafter(eps0, 0.0)]
    eps = [e for e in eps if e != 0.0]
    for e, o, r in zip_equal(eps, curve.log_delta(eps), oracle.clones_delta(n, eps0, eps)):
        assert_matches(o, r, what=f"n={n} eps0={eps0} eps={e}")


def test_precision_mp_is_the_oracle():
    curve = shuffle.clones(30, 1.0)
    ref = oracle.clones_delta(30, 1.0, 0.2)
    assert abs(curve.delta(0.2, precision="mp") / ref - 1) < mpmath.mpf(10) ** -40


def test_single_user_closed_form():
    # n = 1: no clones, delta = alpha - e^eps (1 - alpha) = (e^eps0 - e^eps) / (1 + e^eps0)
    eps0, eps = 1.5, 0.4
    with mpmath.workdps(40):
        exact = (mpmath.exp(eps0) - mpmath.exp(eps)) / (1 + mpmath.exp(eps0))
    assert_matches(shuffle.clones(1, eps0).log_delta(eps), exact)


def test_inner_is_the_hockey_stick_and_non_increasing_in_c():
    from statpriv.shuffle import _clones
    core = _clones.ClonesCurveCore(1000.0, 1.0)
    eps0, eps = 1.0, 0.07
    cs = [0, 1, 2, 5, 17, 80, 301]
    ours = core.log_inner(np.array(cs, dtype=float), eps)
    with mpmath.workdps(50):
        alpha = mpmath.exp(eps0) / (1 + mpmath.exp(eps0))
        ee = mpmath.exp(eps)
        for c, o in zip_equal(cs, ours):
            b = [mpmath.binomial(c, x) / mpmath.mpf(2) ** c for x in range(c + 1)] + [0]
            h = mpmath.fsum(max(0, alpha * b[x] + (1 - alpha) * b[x - 1]
                                - ee * ((1 - alpha) * b[x] + alpha * b[x - 1]))
                            for x in range(c + 2))
            assert_matches(o, h, what=f"c={c}")
    many = core.log_inner(np.arange(0.0, 400.0), eps)
    assert np.all(np.diff(many) <= 0.0)


# Public reference numbers (eps0 = 1, delta = 1e-6): the brackets of the
# numerical bound of "Hiding among the clones" and the exact value at n = 1e4.
@pytest.mark.parametrize("n, low, high", [(10 ** 4, 0.05297, 0.05452), (10 ** 5, 0.015271, 0.015451)])
def test_public_brackets(n, low, high):
    eps = shuffle.clones(n, 1.0).epsilon(1e-6)
    assert low <= eps <= high
    if n == 10 ** 4:
        assert abs(eps - 0.053005) < 1e-5


def test_epsilon_contract():
    curve = shuffle.clones(2000, 1.0)
    for target in (0.3, 1e-3, 1e-6, 1e-12, 1e-40):
        eps = curve.epsilon(target)
        assert curve.delta(eps) <= target
        if eps > 0:
            assert curve.delta(eps * (1 - 1e-6)) > target     # and not far from the smallest
    assert curve.epsilon(1.0) == 0.0
    assert curve.epsilon(0.0) == 1.0                       # delta = 0 exactly from eps0 on
    small = shuffle.clones(60, 0.8)
    eps = small.epsilon(1e-3)
    assert oracle.clones_delta(60, 0.8, eps) <= 1e-3 * (1 + 1e-12)


def test_monotone_in_n():
    ns = [1, 10, 100, 1000, 10 ** 4, 10 ** 5, 10 ** 6]
    eps = [shuffle.clones(n, 1.0).epsilon(1e-6) for n in ns]
    assert all(a > b for a, b in zip(eps, eps[1:]))
    deltas = [shuffle.clones(n, 1.0).delta(0.02) for n in ns]
    assert all(a >= b for a, b in zip(deltas, deltas[1:]))


@pytest.mark.parametrize("n, eps0, eps, sds", [
    (3 * 10 ** 5, 1.0, 0.008, 14),   # delta ~ 1e-6: blocks of the walk over c, checked
    (10 ** 4, 1.0, 0.5, None),      # delta ~ 1e-231: walks re-anchored c by c
    (5000, 0.2, 0.01, None), (5000, 5.0, 0.5, None), (2000, 1.0, 0.0, None),
])
def test_sum_over_c_equals_the_inner_kernels(n, eps0, eps, sds):
    """The O(1)-per-c walk against the plain sum of w(c) H_c over every c (or
    the c within sds standard deviations of the mean, where the rest is below
    1e-40 relative), every H_c from the binomial shift kernel and w(c) from
    mpmath (the ratios w(c+1)/w(c) = (N - c) p / ((c + 1) q) at 30 digits)."""
    from statpriv.shuffle import _clones
    core = _clones.ClonesCurveCore(float(n), eps0)
    N = n - 1
    with mpmath.workdps(30):
        p = mpmath.exp(-eps0)
        lo, hi = 0, N
        if sds is not None:
            sd = math.sqrt(N * float(p) * (1 - float(p)))
            lo, hi = int(N * float(p) - sds * sd), int(N * float(p) + sds * sd)
        ratio = p / (1 - p)
        w = mpmath.binomial(N, lo) * p ** lo * (1 - p) ** (N - lo)
        log_w = []
        for c in range(lo, hi + 1):
            log_w.append(float(mpmath.log(w)))
            w *= ratio * (N - c) / (c + 1)
    terms = np.array(log_w) + core.log_inner(np.arange(float(lo), hi + 1.0), eps)
    top = terms.max()
    plain = top + math.log(math.fsum(np.exp(terms - top)))
    ours = shuffle.clones(n, eps0).log_delta(eps)
    assert abs(math.expm1(ours - plain)) <= 1e-12


def test_directions_equal_and_vectorised():
    curve = shuffle.clones(500, 2.0)
    eps = np.array([[0.0, 0.1], [0.5, -0.5]])
    assert curve.delta(eps).shape == (2, 2)
    np.testing.assert_array_equal(curve.delta_plus(eps), curve.delta_minus(eps))


@pytest.mark.parametrize("kwargs, exc", [
    (dict(n=0, eps0=1.0), ValueError), (dict(n=2.5, eps0=1.0), ValueError),
    (dict(n=10, eps0=0.0), ValueError), (dict(n=10, eps0=-1.0), ValueError),
    (dict(n=10, eps0=math.inf), ValueError), (dict(n=10, eps0=math.nan), ValueError),
    (dict(n=10, eps0=701.0), ValueError), (dict(n=2 ** 60, eps0=1.0), ValueError),
    (dict(n=True, eps0=1.0), ParameterTypeError), (dict(n=10, eps0="1"), ParameterTypeError),
])
def test_bad_input(kwargs, exc):
    with pytest.raises(exc) as info:
        shuffle.clones(**kwargs)
    assert any(name in str(info.value) for name in kwargs)


def test_one_curve_from_many_threads():
    from concurrent.futures import ThreadPoolExecutor
    curve = shuffle.clones(10 ** 5, 1.0)
    eps = np.linspace(0.0, 0.05, 16)
    alone = curve.log_delta(eps)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda e: curve.log_delta(e), eps))
    np.testing.assert_array_equal(results, alone)
