"""epsilon of the noiseless count at huge n (the located-then-settled search
of sp_binom_smallest_eps) against a plain bisection on the exact kernel, and
delta(0) (the total variation, summed in O(1)) against mpmath."""
import math

import mpmath
import numpy as np
import pytest

import statpriv


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
