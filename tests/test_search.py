"""epsilon(delta) (PrivacyCurve.epsilon, the searches of csrc/search.c): the
smallest eps >= 0 with delta(eps) <= delta, on every curve kind; its guarantee on
the true curve; epsilon(1) = 0 and epsilon(0) = the zero point.

epsilon of the noiseless count at huge n (the located-then-settled search
of sp_binom_smallest_eps) against a plain bisection on the exact kernel, and
delta(0) (the total variation, summed in O(1)) against mpmath."""
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import statpriv
from helpers import oracle


def _aim(d):
    """The target the C search aims at (below d by its rounding margin)."""
    ld = math.log(d)
    return ld - 2.0 ** -48 * max(1.0, abs(ld))


def _log_delta(curve, direction, eps):
    return float((curve.log_delta_plus if direction == "plus" else curve.log_delta_minus)(eps))


def _bisect(curve, direction, d):
    """Smallest float eps with the exact kernel's ln delta <= aim: bisection
    on the bit patterns of non-negative doubles (monotone in eps)."""
    aim = _aim(d)
    lo, hi = 0.0, 1.0
    assert _log_delta(curve, direction, lo) > aim >= _log_delta(curve, direction, hi)
    a = np.float64(lo).view(np.int64)
    b = np.float64(hi).view(np.int64)
    while b - a > 1:
        mid = (a + b) // 2
        if _log_delta(curve, direction, float(np.int64(mid).view(np.float64))) <= aim:
            b = mid
        else:
            a = mid
    return float(np.int64(b).view(np.float64))


def _ulps(x, y):
    return abs(int(np.float64(x).view(np.int64)) - int(np.float64(y).view(np.int64)))


@pytest.mark.parametrize("n", [10**9, 10**11])
@pytest.mark.parametrize("pi", [0.3, 0.97])
@pytest.mark.parametrize("d", [1e-9, 1e-100, 1e-300])
def test_epsilon_huge_n_equals_exact_bisection(n, pi, d):
    curve = statpriv.counting(n, pi)
    for direction in ("plus", "minus"):
        found = curve.epsilon(d, direction=direction)
        ref = _bisect(curve, direction, d)
        assert _ulps(found, ref) <= 4, (direction, found, ref)
        assert _log_delta(curve, direction, found) <= _aim(d)        # never above the target
    assert curve.epsilon(d) == max(curve.epsilon(d, direction="plus"),
                                   curve.epsilon(d, direction="minus"))


def _check_minimal(curve, d, direction):
    """delta(eps) <= d with the margin, and above it 1e-12 relative lower."""
    found = curve.epsilon(d, direction=direction)
    assert 0.0 < found < math.inf
    assert _log_delta(curve, direction, found) <= _aim(d)
    assert _log_delta(curve, direction, found * (1 - 1e-12)) > _aim(d)
    return found


@pytest.mark.parametrize("d", [1e-9, 1e-300])
def test_epsilon_n_1e12(d):
    curve = statpriv.counting(10**12, 0.3)
    _check_minimal(curve, d, "plus")
    assert curve.epsilon(1e-3) == 0.0       # total variation ~ 8.7e-7 < 1e-3


@pytest.mark.exhaustive
@pytest.mark.parametrize("d", [1e-9, 1e-100])
def test_epsilon_n_1e15(d):
    curve = statpriv.counting(10**15, 0.3)
    for direction in ("plus", "minus"):
        _check_minimal(curve, d, direction)


@pytest.mark.parametrize("n, pi", [(10**6, 0.3), (10**9, 0.5), (10**12, 0.01), (10**15, 0.3),
                                   (7, 0.4)])
def test_total_variation_is_the_mode_atom(n, pi):
    """delta_plus(0) = sum_k (b(k-1) - b(k))_+ = max_k b(k) for S ~ Bin(n-1, pi)
    (unimodal): the value of the pmf at the mode, from mpmath at 50 digits."""
    mpmath.mp.dps = 50
    N = n - 1
    p = mpmath.mpf(pi)

    def logb(k):
        return (mpmath.loggamma(N + 1) - mpmath.loggamma(k + 1) - mpmath.loggamma(N - k + 1)
                + k * mpmath.log(p) + (N - k) * mpmath.log1p(-p))

    mode = int(mpmath.floor((N + 1) * p))
    truth = max(mpmath.exp(logb(k)) for k in range(max(0, mode - 2), min(N, mode + 2) + 1))
    got = statpriv.counting(n, pi).delta_plus(0.0)
    assert got >= float(truth) * (1 - 1e-13)           # Loader's pmf: a few ulps
    assert abs(got / float(truth) - 1) <= 1e-12


# ---------------------------------------------------------------------------
# every curve kind
# ---------------------------------------------------------------------------

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


# --- epsilon at the ends and the guarantee on the TRUE curve -------------------
EVERY_KIND = {
    "iid count": lambda: statpriv.counting(40, 0.3),
    "per-record count": lambda: statpriv.counting(None, [0.2, 0.5, 0.7, 0.9]),
    "sampled": lambda: statpriv.counting(200, 0.4, sample_size=20),
    "poisson sampled": lambda: statpriv.counting(60, 0.4, sample_rate=0.3, sampling="poisson"),
    "secret sample": lambda: statpriv.secret_sample(22, 22, positives=10),
    "secret sample, part": lambda: statpriv.secret_sample(30, 7, positives=12),
    "laplace noise": lambda: statpriv.counting(20, 0.3, noise=statpriv.Laplace(2.0)),
    "geometric noise": lambda: statpriv.counting(20, 0.3, noise=statpriv.Geometric(0.6)),
    "gaussian noise": lambda: statpriv.counting(20, 0.3, noise=statpriv.Gaussian(1.5)),
    "dp laplace": lambda: statpriv.dp.laplace(0.7),
    "dp geometric": lambda: statpriv.dp.geometric(0.4),
    "dp gaussian": lambda: statpriv.dp.gaussian(0.05520881730815853),
}


@pytest.mark.parametrize("kind", sorted(EVERY_KIND))
def test_epsilon_of_one_is_zero(kind):
    # delta <= 1 always: epsilon(1) = 0 in every direction, whatever the curve.
    curve = EVERY_KIND[kind]()
    for direction in ("max", "plus", "minus"):
        assert curve.epsilon(1.0, direction=direction) == 0.0
    assert np.isnan(curve._core.epsilon(np.array([np.nan]), 2)[0])


def _exact_zero_point(kind, param):
    with mpmath.workdps(50):
        p = mpmath.mpf(param)
        eps0 = 1 / p if kind == "laplace" else -mpmath.log(p)
        up = float(eps0)
        return up if up >= eps0 else math.nextafter(up, math.inf)


@pytest.mark.parametrize("kind,param", [("laplace", 17.07938327700137), ("laplace", 3.0),
                                        ("laplace", 1e-3), ("laplace", 1e300),
                                        ("geometric", 0.3), ("geometric", 0.999999),
                                        ("geometric", 1e-200)])
def test_epsilon_zero_is_the_exact_zero_point(kind, param):
    # The smallest float with delta = 0 on the true curve: the real zero point
    # (1/b, -ln alpha) rounded up to a float.
    curve = getattr(statpriv.dp, kind)(param)
    up = _exact_zero_point(kind, param)
    assert curve.epsilon(0.0) == up
    assert curve.delta(up) == 0.0 and curve.delta(math.nextafter(up, 0.0)) > 0.0


def test_epsilon_zero_is_inf_for_the_gaussian():
    for sigma in (1e-3, 0.05520881730815853, 1.0, 1e4):
        assert statpriv.dp.gaussian(sigma).epsilon(0.0) == math.inf


def _dp_truth(kind, param, eps):
    """delta from the closed forms at 60 digits (definitions in test_dp.py)."""
    with mpmath.workdps(60):
        p, e = mpmath.mpf(param), mpmath.mpf(eps)
        if kind == "laplace":
            return max(mpmath.mpf(0), 1 - mpmath.exp((e - 1 / p) / 2))
        if kind == "geometric":
            return max(mpmath.mpf(0), 1 - p * mpmath.exp(e)) / (1 + p)
        return mpmath.ncdf(1 / (2 * p) - e * p) - mpmath.exp(e) * mpmath.ncdf(-1 / (2 * p) - e * p)


@pytest.mark.parametrize("kind", ["laplace", "geometric", "gaussian"])
def test_epsilon_guarantee_on_the_true_curve(kind):
    # delta_true(epsilon(d)) <= d (1 + 1e-12) for random d, and epsilon(d) is
    # not much larger than needed: the true delta just below it exceeds d.
    rng = np.random.default_rng({"laplace": 1, "geometric": 2, "gaussian": 3}[kind])
    for _ in range(40):
        if kind == "laplace":
            param = 10 ** rng.uniform(-3, 3)
        elif kind == "geometric":
            param = float(rng.uniform(1e-6, 1 - 1e-6)) if rng.random() < 0.7 else 10 ** rng.uniform(-300, -1)
        else:
            param = 10 ** rng.uniform(-2, 3)
        curve = getattr(statpriv.dp, kind)(param)
        d = 10 ** rng.uniform(-300, 0) if rng.random() < 0.5 else 10 ** rng.uniform(-16, 0)
        eps = curve.epsilon(d)
        assert 0.0 <= eps < math.inf
        with mpmath.workdps(60):
            assert _dp_truth(kind, param, eps) <= mpmath.mpf(d) * (1 + mpmath.mpf("1e-12")), (kind, param, d)
            if eps > 1e-300:
                assert _dp_truth(kind, param, eps * (1 - 1e-9)) > d, (kind, param, d, eps)
        assert curve.delta(eps) <= d


def test_search_bracket_is_bounded():
    # Crossings far out (eps ~ 1e200) and within ulps of a zero point: found,
    # with a bounded number of evaluations, and rounded up.
    curve = statpriv.dp.laplace(1e-200)
    eps = curve.epsilon(1e-300)
    assert eps == _exact_zero_point("laplace", 1e-200)
    curve = statpriv.dp.gaussian(1e-150)
    eps = curve.epsilon(0.5)
    assert 0 < eps < math.inf and curve.delta(eps) <= 0.5 < curve.delta(eps * (1 - 1e-9))


def test_epsilon_zero_gaussian_noise():
    # Count + Gaussian noise: P has an atom (n-1 others + target) above Q's
    # highest, so f_P/f_Q is unbounded and delta > 0 at every finite eps in
    # both directions, however far the float curve underflows.
    curve = statpriv.counting(20, 0.3, noise=statpriv.Gaussian(1.5))
    for direction in ("max", "plus", "minus"):
        assert curve.epsilon(0.0, direction=direction) == math.inf
    curve = statpriv.secret_sample(11, 1, positives=0, noise=statpriv.Gaussian(3.43))
    assert curve.epsilon(0.0, direction="plus") == math.inf


def test_positive_mask():
    from statpriv._core import PLUS, MINUS, MAX
    from statpriv.noise._kernels import _positive_mask
    ninf = -np.inf
    same = np.log([0.2, 0.5, 0.3]), np.log([0.3, 0.5, 0.2])
    assert _positive_mask(*same) == 0                       # f_P/f_Q bounded
    shifted = np.array([ninf, np.log(0.5), np.log(0.5)]), np.array([np.log(0.5), np.log(0.5), ninf])
    assert _positive_mask(*shifted) == (1 << PLUS) | (1 << MINUS) | (1 << MAX)
    wider = np.log([0.2, 0.5, 0.3]), np.array([ninf, 0.0, ninf])
    assert _positive_mask(*wider) == (1 << PLUS) | (1 << MAX)


# ---- epsilon of large noisy curves: searched on an estimate, verified exactly ----

# (curve, directions, the plain estimate's tolerance in ln delta relative to
# max(1, |ln delta|)); the Gaussian case is a law wide enough (~2000 sd) for
# its estimate to be used
_ESTIMATED = [
    (lambda: statpriv.counting(10**5, 0.3, noise=statpriv.Laplace(10.0)), (2,), 1e-12),
    (lambda: statpriv.counting(10**5, 0.3, noise=statpriv.Geometric(0.8)), (2,), 1e-12),
    pytest.param(lambda: statpriv.counting(10**5, 0.3, noise=statpriv.Laplace(10.0)), (0, 1, 2),
                 1e-12, marks=pytest.mark.exhaustive),
    pytest.param(lambda: statpriv.counting(10**5, 0.3, noise=statpriv.Geometric(0.8)),
                 (0, 1, 2), 1e-12, marks=pytest.mark.exhaustive),
    pytest.param(lambda: statpriv.counting(10**5, 0.3, sample_rate=0.5, sampling="poisson",
                                           noise=statpriv.Laplace(3.0)), (0, 1, 2), 1e-12,
                 marks=pytest.mark.exhaustive),
    pytest.param(lambda: statpriv.counting(2 * 10**7, 0.3, noise=statpriv.Gaussian(3.0)), (2,),
                 1e-10, marks=pytest.mark.exhaustive),
]


@pytest.mark.parametrize("make, directions, tol", _ESTIMATED)
def test_estimated_epsilon_matches_the_exact_search(make, directions, tol):
    """Noisy curves with many cells (sp_smallest_eps_estimated): the answer
    meets the target on the exact curve and lies within 1e-9 relative above
    the exact search's (sp_smallest_eps_lean, estimate=False), also on the
    nearly flat part of the curve just below delta(0)."""
    curve = make()
    core = curve._core
    assert core.log_delta_estimate(np.array([0.01]), 2) is not None
    d0 = float(curve.delta(0.0))
    targets = [1e-9, 1e-30, d0 * (1 - 1e-9)]
    if len(directions) > 1:
        targets += [1e-3]
        targets += [1e-6, 1e-12, 1e-100, d0 * (1 - 1e-6)]
    log_t = np.log(np.array(targets))
    for direction in directions:
        fast = core.epsilon(log_t, direction)
        exact = core.epsilon(log_t, direction, False)
        assert np.all(fast <= exact * (1 + 1e-9) + 1e-300), (direction, fast, exact)
        assert np.all(fast >= exact * (1 - 1e-15)), (direction, fast, exact)
        for t, e in zip(log_t, fast):
            assert core.log_delta(np.array([e]), direction)[0] <= _aim(math.exp(t)) + 1e-15


@pytest.mark.parametrize("make, directions, tol", _ESTIMATED)
def test_estimate_bounds_the_exact_curve(make, directions, tol):
    """The estimate (closed-form tails of the fully positive cells, or of the
    atoms deep inside the Gaussian tail) agrees with the exact sum, and its
    upper bound is not below it."""
    core = make()._core
    eps = np.linspace(0.0, 0.2, 41) if len(directions) > 1 else np.linspace(0.0, 0.05, 11)
    for direction in (0, 1):
        exact = core.log_delta(eps, direction)
        plain = core.log_delta_estimate(eps, direction)
        upper = core.log_delta_estimate(eps, direction, 1)
        ok = np.isfinite(exact) & (exact > -1e300)
        np.testing.assert_array_equal(np.isfinite(plain) & (plain > -1e300), ok)
        scale = np.maximum(1.0, np.abs(exact[ok]))
        assert np.all(np.abs(plain[ok] - exact[ok]) <= tol * scale)
        assert np.all(upper[ok] >= exact[ok] - 1e-15 * scale)


# A target at the curve's floor delta(+inf): the secret sample (A. Smith 2009,
# "Differential privacy and the secrecy of the sample") of 2 records, 1 sampled,
# no positives has delta_plus(eps) = 1/2 at every eps >= 0, so epsilon(1/2) = 0;
# the search aimed below 1/2 by its error margin, beneath the floor, and
# answered +inf.  The true values are tests/independent_oracle.py's (stored,
# 50 digits): [delta_plus, delta_minus] at eps = 0 and 1e300.
@pytest.mark.parametrize("n,m,k,floor", [(2, 1, 0, "0.5"), (8, 7, 3, "0.5")])
def test_epsilon_at_the_floor_of_the_curve(n, m, k, floor):
    curve = statpriv.secret_sample(n, m, positives=k)
    plus0, minus0, plus_far, minus_far = oracle("independent_deltas",
                                                ("secret_sample", (n, m, k), {}), [0.0, 1e300])
    assert max(plus_far, minus_far) == mpmath.mpf(floor)
    assert max(plus0, minus0) <= mpmath.mpf(floor) * (1 + mpmath.mpf(1e-12))
    assert curve.epsilon(float(floor)) == 0.0
    # a target below the floor is never met; one above it is met at eps 0
    assert curve.epsilon(float(floor) * (1 - 1e-9)) == math.inf
    assert curve.epsilon(float(floor) * (1 + 1e-9)) == 0.0


def test_epsilon_is_exact_where_delta_falls_within_a_few_ulps():
    # a Gaussian of sigma = 3.1e-17 at its crossing 1/(2 sigma^2) = 5.1e32:
    # delta falls from ~1 to ~0 within a few ulps of eps, the Illinois steps
    # ran out with the bracket 1e-9 wide, and the answers of two targets came
    # back in the wrong order; the bit bisection that finishes the search
    # gives the smallest float meeting each target
    curve = statpriv.dp.gaussian(3.12222e-17)
    targets = np.array([1e-3, 1e-6, 1e-9, 1e-12, 1e-300])
    eps = curve.epsilon(targets)
    assert np.all(np.diff(eps) >= 0)
    below = np.nextafter(eps, 0.0)
    assert np.all(curve.log_delta(eps) <= np.log(targets))
    assert np.all(curve.log_delta(below) > np.log(targets) - 1e-9)
