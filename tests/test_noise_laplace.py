"""statpriv.noise.Laplace: counts plus Laplace noise near the zero point 1/b,
against mpmath written from the definitions.  (The noisy-count grid against the
oracle and the properties of every noise kind are in test_noise.py; the pair
kernel's Laplace zero points in test_kernels.py.)"""
import math

import mpmath
import numpy as np
import pytest

import statpriv
from statpriv import _core
from statpriv.noise import _kernels as noise_kernels
from helpers import assert_matches, near_zero_point, oracle
from independent_oracle import (binomial_mp, laplace_noise_quad, laplace_shift_delta_plus,
                                smallest_float_at_least as smallest_float_at_or_above)


# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n, pi, b, k", [
    (5, 2.1361785554740366e-19, 638.0024380883865, 12),
    (5, 2.1361785554740366e-19, 638.0024380883865, None),    # the float below 1/b
    (45, 3.3059886068797693e-13, 256.20713643511573, 14),
    (9, 0.9864992402812972, 3.5378024256700624, 10),
])
def test_laplace_shift_near_zero_point(n, pi, b, k):
    eps0 = statpriv.counting(n, pi, noise=statpriv.Laplace(b)).epsilon(0.0, direction="plus")
    assert eps0 == noise_kernels.laplace_zero_point_up(b)
    eps = math.nextafter(eps0, 0.0) if k is None else eps0 * (1 - 10.0 ** -k)
    ref = laplace_shift_delta_plus(n, pi, b, eps)
    got = statpriv.counting(n, pi, noise=statpriv.Laplace(b)).log_delta_plus(eps)
    assert_matches(got, ref, rel=1e-10, what=f"counting({n}, {pi}, Laplace({b})) at {eps!r}")


# Laplace noise near the zero point of sampled / Poisson-sampled laws.  The
# reference is written from the definitions in mpmath: on [j, j+1]
# f_A(x) = (alpha_A e^(-x/b) + beta_A e^(x/b)) / (2b) with alpha_A = sum_{k<=j}
# A(k) e^(k/b), beta_A = sum_{k>j} A(k) e^(-k/b), so f_P - e^eps f_Q changes sign
# at most once there and its positive part integrates in closed form; the
# tails x < 0 and x > K are single exponentials.  eps0 = ln G_P(w)/G_Q(w),
# w = e^(1/b) (the ratio of the right tails, the largest density ratio).

def _laplace_noisy_mp(p, q, b, eps):
    """delta_plus(eps) of count laws p, q (mpmath lists on 0..K) + Laplace(b)."""
    b, e, K = mpmath.mpf(b), mpmath.exp(eps), len(p) - 1
    g = [p[k] - e * q[k] for k in range(K + 1)]          # signed atoms of P - e^eps Q
    up = [mpmath.exp(k / b) for k in range(K + 1)]
    alpha, beta = mpmath.mpf(0), mpmath.fsum(g[k] / up[k] for k in range(K + 1))

    def anti(x):                                         # int of (alpha e^-x/b + beta e^x/b)/2b
        return (-alpha * mpmath.exp(-x / b) + beta * mpmath.exp(x / b)) / 2

    total = max(beta, 0) / 2                             # x < 0: beta e^(x/b) / (2b)
    for j in range(K):
        alpha += g[j] * up[j]
        beta -= g[j] / up[j]
        lo, hi = mpmath.mpf(j), mpmath.mpf(j + 1)
        if alpha * beta < 0:                             # one root: e^(2x/b) = -alpha/beta
            root = min(max(b * mpmath.log(-alpha / beta) / 2, lo), hi)
            lo, hi = (lo, root) if alpha > 0 else (root, hi)
        elif alpha <= 0 and beta <= 0:
            continue
        total += anti(hi) - anti(lo)
    alpha += g[K] * up[K]
    return total + max(alpha, 0) * mpmath.exp(-K / b) / 2   # x > K


def _laplace_zero_point_mp(p, q, b):
    w = mpmath.exp(1 / mpmath.mpf(b))
    return mpmath.log(mpmath.fsum(p[k] * w ** k for k in range(len(p)))
                      / mpmath.fsum(q[k] * w ** k for k in range(len(q))))


@pytest.mark.parametrize("case", ["poisson", "sample_pi_near_1", "poisson_pi0_small_b"])
def test_laplace_noise_near_zero_point_vs_definition(case):
    # "poisson" and "sample_pi_near_1" under-reported by up to 24x (and 1e-10
    # from eps0 (1 - 1e-3) on) before the L/R log ratios were formed as
    # ln R -+ a deficit from F = P - R Q; "poisson_pi0_small_b" guards the
    # small-b case (e^(1/b) ~ e^53) where F is below the atom ratio's precision
    with mpmath.workdps(80):
        if case == "poisson":      # each record sampled w.p. r: S ~ Bin(n-1, r pi)
            n, pi, r, b = 300, 0.47739983908463934, 8.073929577079656e-07, 40.13861567333483
            curve = statpriv.counting(n, pi, sample_rate=r, sampling="poisson",
                                      noise=statpriv.Laplace(b))
            s = binomial_mp(n - 1, mpmath.mpf(r) * mpmath.mpf(pi))[:40]
            # atoms beyond 40 are below (300 r pi)^40 / 40! < 1e-200 of the mass
            # (times w^40 < e^1 in G(w)): far below 1e-10 of delta here
            rr = mpmath.mpf(r)
            p = [(1 - rr) * s[0]] + [rr * s[j - 1] + (1 - rr) * s[j] for j in range(1, len(s))]
            p.append(rr * s[-1])
            q = s + [mpmath.mpf(0)]
        elif case == "sample_pi_near_1":   # m of n without replacement (Breutigam & Reischuk)
            n, pi, m, b = 233746990842, 0.9999999980317764, 300, 414.3451031486227
            curve = statpriv.counting(n, pi, sample_size=m, noise=statpriv.Laplace(b))
            lam = mpmath.mpf(m) / n
            c1, c0 = binomial_mp(m - 1, pi), binomial_mp(m, pi)
            p = [(1 - lam) * c0[0]] + [lam * c1[j - 1] + (1 - lam) * c0[j] for j in range(1, m + 1)]
            q = [lam * c1[j] + (1 - lam) * c0[j] for j in range(m)] + [(1 - lam) * c0[m]]
        else:                      # pi = 0: P = (1 - r) + r at 1, Q = 1 at 0
            r, b = 5.455122168743246e-07, 0.018872736162475992
            curve = statpriv.counting(8, 0.0, sample_rate=r, sampling="poisson",
                                      noise=statpriv.Laplace(b))
            rr = mpmath.mpf(r)
            p, q = [1 - rr, rr], [mpmath.mpf(1), mpmath.mpf(0)]
        for direction, (pp, qq) in (("plus", (p, q)), ("minus", (q[::-1], p[::-1]))):
            # delta_minus is delta_plus of (Q, P) on the mirrored support
            eps0 = _laplace_zero_point_mp(pp, qq, b)
            assert curve.epsilon(0.0, direction=direction) == smallest_float_at_or_above(eps0)
            log_delta = curve.log_delta_plus if direction == "plus" else curve.log_delta_minus
            for eps in [0.0, float(eps0) / 2] + near_zero_point(eps0):
                assert_matches(log_delta(eps), _laplace_noisy_mp(pp, qq, b, eps),
                               rel=1e-10, what=f"{case} {direction} eps={eps!r}")


def test_laplace_tiny_scale_cell_parts_beyond_double_range():
    # b = 0.001: on the cell [299, 300] the two parts of f_P - e^eps f_Q differ
    # by ~e^1000; the smaller one underflowed when scaled to doubles, and the
    # cell's positive part [x*, 300] (0.077 of the 0.393) was dropped.  The
    # reference integrates the densities f_A(x) = sum_k A(k) e^(-|x-k|/b)/(2b)
    # by quadrature from the root x* (bisection) on, at 50 digits; the laws
    # keep the atoms 295..300 (the others are below 1e-2000 relative).
    n, pi, r, b, eps = 300, 0.9999999999999999, 0.999999999, 0.001, 999.0
    curve = statpriv.counting(n, pi, sample_rate=r, sampling="poisson",
                              noise=statpriv.Laplace(b))
    with mpmath.workdps(50):
        rr, bb, e = mpmath.mpf(r), mpmath.mpf(b), mpmath.exp(mpmath.mpf(eps))
        rho = rr * mpmath.mpf(pi)
        z = {k: mpmath.binomial(n - 1, k) * rho ** k * (1 - rho) ** (n - 1 - k)
             for k in range(295, n)}
        p = {k: rr * z.get(k - 1, 0) + (1 - rr) * z.get(k, 0) for k in range(295, n + 1)}
        q = {k: z.get(k, 0) for k in range(295, n + 1)}

        def g(x):
            return mpmath.fsum((p[k] - e * q[k]) * mpmath.exp(-abs(x - k) / bb)
                               for k in p) / (2 * bb)

        lo, hi = mpmath.mpf(299), mpmath.mpf(n)          # g(299) < 0 < g(300)
        for _ in range(120):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if g(mid) < 0 else (lo, mid)
        # beyond 300 the ratio is constant (e^1000 > e^eps): g > 0 on [x*, inf)
        ref = (mpmath.quad(g, mpmath.linspace(hi, n, 8))
               + mpmath.quad(g, [n, n + 0.01, n + 0.1, mpmath.inf]))
    assert_matches(curve.log_delta_plus(eps), ref, rel=1e-10, what="Laplace(0.001) at 999")


def test_laplace_per_record_rate_times_pi_below_double_range():
    # Poisson sampling at rate 1e-6 of records with pi = 5e-324: rate * pi rounds to 0,
    # which dropped those 7 records from the count under noise (ln delta -95.7 where
    # the truth is -5403.5: conservative but 5300 nats off).  Reference: the laws from
    # the definition (Z = sum of Bernoulli(rate pi_j), exact in mpmath; P = rate
    # Z(. - 1) + (1 - rate) Z, Q = Z) and a quadrature of (f_P - e^eps f_Q)_+.
    pis, r, b = [5e-324] * 7 + [0.0771230246395775] * 5, 1e-6, 0.001
    curve = statpriv.counting(None, pis, sample_rate=r, sampling="poisson",
                              noise=statpriv.Laplace(b))
    with mpmath.workdps(40):
        rr = mpmath.mpf(r)
        z = [mpmath.mpf(1)]
        for pj in pis:
            rho = rr * mpmath.mpf(pj)
            z = [(1 - rho) * (z[k] if k < len(z) else 0) + (rho * z[k - 1] if k else 0)
                 for k in range(len(z) + 1)]
        q = z + [mpmath.mpf(0)]
        p = [rr * (z[k - 1] if k else 0) + (1 - rr) * q[k] for k in range(len(q))]
        for eps in (887.5660404978322, 985.1983049525936):
            ref = laplace_noise_quad(p, q, b, eps)
            assert_matches(curve.log_delta_plus(eps), ref, rel=1e-10, what=f"eps={eps}")


def test_laplace_per_record_shift_left_tail_ratio_exact():
    # a pure shift (per-record pi, no sampling) under Laplace(b): delta_minus reaches
    # 0 at eps0 = 1/b, the left tail's ratio G_P(u)/G_Q(u) = 1/u, u = e^(-1/b).  The
    # tail ratio 1 + rate (u - 1) cancelled at rate = 1 (u ~ 1e-40), so the exact
    # tail value was refused and 1/b kept its long double rounding (~1e-17): delta
    # ~1e-17 / (eps0 - eps) relative low (-1e-5 at eps0 (1 - 1e-14)).  Reference: the
    # Poisson-binomial laws in mpmath and a quadrature of (f_Q - e^eps f_P)_+.
    pis = ([1e-17] * 3 + [3.1804569425265565e-06] * 4 + [0.9214416423601345] * 3
           + [7.157158620949432e-26] * 2 + [0.9999999783564335] * 4)
    b = 0.010837380346727371
    curve = statpriv.counting(None, pis, noise=statpriv.Laplace(b))
    with mpmath.workdps(40):
        z = [mpmath.mpf(1)]
        for pj in pis:
            pj = mpmath.mpf(pj)
            z = [(1 - pj) * (z[k] if k < len(z) else 0) + (pj * z[k - 1] if k else 0)
                 for k in range(len(z) + 1)]
        p, q = [mpmath.mpf(0)] + z, z + [mpmath.mpf(0)]
        eps0 = 1 / mpmath.mpf(b)
        assert curve.epsilon(0.0, direction="minus") == smallest_float_at_or_above(eps0)
        for k in (9, 14):
            eps = float(eps0 * (1 - mpmath.mpf(10) ** -k))
            ref = laplace_noise_quad(q, p, b, eps)          # delta_minus = H(Q || P)
            assert_matches(curve.log_delta_minus(eps), ref, rel=1e-10, what=f"k={k}")


@pytest.mark.parametrize("make", [
    lambda: statpriv.counting(10**5, 0.3, noise=statpriv.Laplace(3.0)),
    lambda: statpriv.counting(2 * 10**4, 0.05, noise=statpriv.Laplace(0.7)),
    lambda: statpriv.counting(10**5, 0.3, sample_size=3 * 10**4, noise=statpriv.Laplace(2.0)),
    lambda: statpriv.counting(5 * 10**4, 0.4, noise=statpriv.Geometric(0.6)),
])
def test_closed_rest_matches_the_walk(make, monkeypatch):
    """Noisy cells (>= 1024): the sums stop once the closed form of the fully
    positive cells beyond is known to 2^-52 (|ln A| + eps) of the sum and add it with its
    error bound; without it they walk on until the rest's mass is below
    2^-40 of the sum and add that.  Both are upper bounds of the same sum,
    within 2^-52 (resp. 2^-40) of it: they agree to 2^-39, at eps across the
    curve, in both directions, including eps = 0 and the far tail."""
    fast = make()
    pair = _core.PairCurveCore
    monkeypatch.setattr(_core, "PairCurveCore",
                        lambda *a, **k: pair(*a, closed_rest=False, **k))
    walk = make()
    eps = np.array([0.0, 1e-4, 1e-3, 0.01, 0.03, 0.05, 0.1, 0.2, 0.3])
    for name in ("log_delta_plus", "log_delta_minus"):
        a, b = getattr(fast, name)(eps), getattr(walk, name)(eps)
        assert np.array_equal(np.isneginf(a), np.isneginf(b)), name
        ok = np.isfinite(b)
        assert ok.sum() >= 6, name
        assert np.all(np.abs(a[ok] - b[ok]) <= 2.0 ** -39), (name, a - b)


@pytest.mark.parametrize("eps", [pytest.param(0.01, marks=pytest.mark.exhaustive), 0.1])
def test_closed_rest_against_mpmath(eps):
    """The closed-form stop's sum is the exact one to ~1e-16 (the walk's
    stop, which adds the rest's whole mass, was ~3e-13 above it here):
    n = 2e4, pi = .05 (counts 600..1500 hold all but ~1e-60 of the mass),
    Laplace(0.7), against the half-line sum of the definitions at 40 digits."""
    n, pi, b = 2 * 10**4, 0.05, 0.7
    ref = oracle("laplace_shift_delta_plus", n, pi, b, eps, dps=40, atoms=(600, 1500))
    got = statpriv.counting(n, pi, noise=statpriv.Laplace(b)).log_delta_plus(eps)
    assert_matches(got, ref, rel=4e-15, what=f"eps={eps}")
