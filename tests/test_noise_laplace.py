"""statpriv.noise.Laplace: counts plus Laplace noise near the zero point 1/b,
against mpmath written from the definitions.  (The noisy-count grid against the
oracle and the properties of every noise kind are in test_noise.py; the pair
kernel's Laplace zero points in test_kernels.py.)"""
import math

import mpmath
import pytest

import statpriv
from statpriv import _core
from helpers import assert_matches


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
