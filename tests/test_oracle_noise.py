"""Tests of the noisy-count oracle: reference.noisy_counting_delta and
reference.normal_approx_delta.

Nothing here is checked against the oracle's own output alone.  Expected values
come from
  * the closed forms of docs/mathematics.md §6 evaluated in mpmath here, and the
    existing worst-case DP oracles dp_*_delta (n = 1: no other records);
  * an independent computation written differently (below): the crossing of
    f_P and e^eps f_Q is found by plain bisection over the full, unpruned
    mixture, and delta is then the closed-form sum
    sum_k (P(k) - e^eps Q(k)) Pr[N > r - k] (no quadrature at all); for n = 2
    also a direct mpmath.quad over the whole line at higher precision;
  * exact integer arithmetic (geometric noise with alpha = 1/16, pi = 1/2);
  * structural facts: monotonicity, range, pi <-> 1-pi symmetry, eps = 0 is
    the total variation, small-noise limits, the normal approximation for
    large noise.
"""

import math

import mpmath
import pytest
from mpmath import mp, mpf

from statpriv import reference as ref
from helpers import DP_GAUSSIAN_AT_0_01, oracle


def rel_err(a, b):
    with mp.workdps(80):
        a, b = mpf(a), mpf(b)
        if b == 0:
            return abs(a)
        return abs(a - b) / abs(b)


# ---------------------------------------------------------------------------
# independent computations
# ---------------------------------------------------------------------------

def _kernels(kind, par):
    """(unnormalised kernel, survival Pr[N > t], cdf Pr[N <= t]) in mpmath."""
    par = mpf(par)
    if kind == "gaussian":
        r2s = par * mpmath.sqrt(2)
        return (lambda t: mpmath.exp(-(t / par) ** 2 / 2),
                lambda t: mpmath.erfc(t / r2s) / 2,
                lambda t: mpmath.erfc(-t / r2s) / 2)
    assert kind == "laplace"
    return (lambda t: mpmath.exp(-abs(t) / par),
            lambda t: mpmath.exp(-t / par) / 2 if t >= 0 else 1 - mpmath.exp(t / par) / 2,
            lambda t: mpmath.exp(t / par) / 2 if t <= 0 else 1 - mpmath.exp(-t / par) / 2)


def _crossing(P, Q, eps, kind, par, direction):
    """(d, root, sign left, sign right) of g = sum_k d_k nu(x - k),
    d_k = A(k) - e^eps B(k), by bisection on the full (unpruned) sum.
    Assumes (and asserts) that d changes sign at most once, so that g does
    too (the kernels are log-concave); root is None if g has constant sign."""
    kern, _, _ = _kernels(kind, par)
    A, B = (P, Q) if direction == "plus" else (Q, P)
    ee = mpmath.exp(mpf(eps))
    d = [a - ee * b for a, b in zip(A, B)]
    nz = [k for k in range(len(d)) if d[k] != 0]
    sg = [1 if d[k] > 0 else -1 for k in nz]
    assert sum(1 for u, v in zip(sg, sg[1:]) if u != v) <= 1

    def g(x):
        return mpmath.fsum(d[k] * kern(x - k) for k in nz)

    if kind == "laplace":          # beyond the atoms g is one exponential
        lo, hi = mpf(nz[0]) - 1, mpf(nz[-1]) + 1
        s_lo, s_hi = mpmath.sign(g(lo)), mpmath.sign(g(hi))
    else:                          # the outermost coefficients dominate
        s_lo, s_hi = sg[0], sg[-1]
        lo, w = mpf(nz[0]) - 1, mpf(1)
        while mpmath.sign(g(lo)) != s_lo:
            w *= 2
            lo = nz[0] - w
        hi, w = mpf(nz[-1]) + 1, mpf(1)
        while mpmath.sign(g(hi)) != s_hi:
            w *= 2
            hi = nz[-1] + w
    if s_lo == s_hi:
        return d, None, s_lo, s_hi
    for _ in range(mp.prec + 10):
        m = (lo + hi) / 2
        if mpmath.sign(g(m)) == s_lo:
            lo = m
        else:
            hi = m
    return d, (lo + hi) / 2, s_lo, s_hi


def indep_delta(P, Q, eps, kind, par, direction="plus", dps=60):
    """delta by bisection for the crossing + closed-form tail probabilities."""
    with mp.workdps(dps):
        P = [mpf(p) for p in P]
        Q = [mpf(q) for q in Q]
        d, r, s_lo, s_hi = _crossing(P, Q, eps, kind, par, direction)
        if r is None:
            return mpf(0) if s_hi < 0 else mpmath.fsum(d)
        _, surv, cdf = _kernels(kind, par)
        if s_hi > 0:               # g > 0 right of the crossing
            return mpmath.fsum(d[k] * surv(r - k) for k in range(len(d)) if d[k])
        return mpmath.fsum(d[k] * cdf(r - k) for k in range(len(d)) if d[k])


def direct_quad_delta(P, Q, eps, kind, par, direction="plus", dps=50):
    """int max(f_A - e^eps f_B, 0) by mpmath.quad over the whole line, split
    at every integer from -60 scales to L + 60 scales, at +-1, 4, 16 scales
    around the atoms and at the bisected crossing (tanh-sinh, default)."""
    with mp.workdps(dps):
        P = [mpf(p) for p in P]
        Q = [mpf(q) for q in Q]
        kern, _, _ = _kernels(kind, par)
        par = mpf(par)
        norm = 1 / (par * mpmath.sqrt(2 * mpmath.pi)) if kind == "gaussian" else 1 / (2 * par)
        A, B = (P, Q) if direction == "plus" else (Q, P)
        ee = mpmath.exp(mpf(eps))
        _, r, _, _ = _crossing(P, Q, eps, kind, par, direction)
        L = len(P) - 1
        W = int(60 * par) + 2
        pts = set(mpf(j) for j in range(-W, L + W + 1))
        for k in range(L + 1):
            for m in (1, 4, 16):
                pts.update([k - m * par, k + m * par])
        if r is not None:
            pts.add(r)
        pts = sorted(pts)

        def f(x):
            v = mpmath.fsum((A[k] - ee * B[k]) * kern(x - k) for k in range(L + 1))
            return v * norm if v > 0 else mpf(0)

        return mpmath.quad(f, [mpmath.ninf] + pts + [mpmath.inf])


def geometric_direct(P, Q, eps, alpha, direction="plus", window=200, dps=60):
    """sum over x in [-window, L + window] of (f_A - e^eps f_B)_+, no tail
    formula (the mass outside is < alpha^window, negligible for the tests)."""
    with mp.workdps(dps):
        a = mpf(alpha)
        c = (1 - a) / (1 + a)
        A, B = (P, Q) if direction == "plus" else (Q, P)
        A = [mpf(v) for v in A]
        B = [mpf(v) for v in B]
        ee = mpmath.exp(mpf(eps))
        L = len(P) - 1
        s = mpf(0)
        for x in range(-window, L + window + 1):
            fa = c * mpmath.fsum(A[k] * a ** abs(x - k) for k in range(L + 1))
            fb = c * mpmath.fsum(B[k] * a ** abs(x - k) for k in range(L + 1))
            t = fa - ee * fb
            if t > 0:
                s += t
        return s


# closed forms of docs/mathematics.md §6 (n = 1), evaluated here in mpmath
def cf_laplace(b, eps):
    with mp.workdps(60):
        b, e = mpf(b), mpf(eps)
        if e < -1 / b:
            return 1 - mpmath.exp(e)      # g >= 0 everywhere
        return max(mpf(0), 1 - mpmath.exp((e - 1 / b) / 2))


def cf_geometric(alpha, eps):
    with mp.workdps(60):
        a, e = mpf(alpha), mpf(eps)
        if e < mpmath.log(a):
            return 1 - mpmath.exp(e)
        return max(mpf(0), 1 - a * mpmath.exp(e)) / (1 + a)


def cf_gaussian(sigma, eps):
    with mp.workdps(60):
        s, e = mpf(sigma), mpf(eps)
        return mpmath.ncdf(1 / (2 * s) - e * s) - mpmath.exp(e) * mpmath.ncdf(-1 / (2 * s) - e * s)


CF = {"laplace": cf_laplace, "gaussian": cf_gaussian, "geometric": cf_geometric}
DP = {"laplace": ref.dp_laplace_delta, "gaussian": ref.dp_gaussian_delta,
      "geometric": ref.dp_geometric_delta}


# ---------------------------------------------------------------------------
# n = 1: the noisy curve is the worst-case DP curve
# ---------------------------------------------------------------------------

EPS1 = [-2.0, -0.3, 0.0, 0.25, 1.0, 3.0]


@pytest.mark.parametrize("kind,par", [
    ("laplace", 1.0), ("laplace", 0.3), ("laplace", 4.0),
    ("gaussian", 1.0), ("gaussian", 0.05), ("gaussian", 3.0),
    ("geometric", 0.5), ("geometric", 0.9), ("geometric", 0.01),
])
@pytest.mark.exhaustive  # slow self-check of the oracle
def test_n1_is_worst_case_dp(kind, par):
    got = ref.noisy_counting_delta(1, 0.5, EPS1, (kind, par))
    for e, v in zip(EPS1, got):
        cf = CF[kind](par, e)
        assert 0 <= v <= 1
        if cf == 0:
            assert v == 0, (kind, par, e, v)
        else:
            assert rel_err(v, cf) < 1e-27, (kind, par, e, v, cf)
    # the existing (slow) worst-case oracles, at a few eps
    sub = [1, 3, 4]
    dp = DP[kind](par, [EPS1[i] for i in sub], dps=40)
    for i, w in zip(sub, dp):
        v = got[i]
        if v == 0:
            # dp_laplace_delta's quadrature leaves ~1e-57 of rounding noise
            # where the exact value is 0 (eps = 1/b)
            assert abs(w) < 1e-50
        else:
            assert rel_err(v, w) < 1e-27, (kind, par, EPS1[i], v, w)
    # n = 1 is symmetric: both directions give the same curve
    plus = ref.noisy_counting_delta(1, 0.5, EPS1, (kind, par), direction="plus")
    minus = ref.noisy_counting_delta(1, 0.5, EPS1, (kind, par), direction="minus")
    for a, b in zip(plus, minus):
        assert rel_err(a, b) < 1e-27


def test_n1_gaussian_far_tail_and_seed_values():
    # the crossing x* = 1/2 + eps sigma^2 lies far outside the initial scan
    for sigma, eps in [(1.0, 50.0), (10.0, 8.0), (0.05, 100.0)]:
        v = ref.noisy_counting_delta(1, 0.5, eps, ("gaussian", sigma))
        assert rel_err(v, cf_gaussian(sigma, eps)) < 1e-27
    # docs/mathematics.md §6 (Breutigam & Reischuk section 5): DP, n = 1000, eps = 0.01
    for sigma, value in DP_GAUSSIAN_AT_0_01:
        assert rel_err(ref.noisy_counting_delta(1, 0.5, 0.01, ("gaussian", sigma)),
                       mpf(value)) < 1e-14


# ---------------------------------------------------------------------------
# n = 2 (one other record, P = (0, 1-pi, pi), Q = (1-pi, pi, 0)) and small n
# ---------------------------------------------------------------------------

@pytest.mark.exhaustive  # slow self-check of the oracle
@pytest.mark.parametrize("pi", [0.3, 0.9])
@pytest.mark.parametrize("kind,par", [("gaussian", 0.7), ("gaussian", 0.2),
                                      ("laplace", 0.5), ("laplace", 2.0)])
def test_n2_against_independent_computations(pi, kind, par):
    P, Q = ref.counting_pmfs(2, pi, dps=60)
    # the pmfs are the obvious ones
    with mp.workdps(60):
        p = mpf(pi)
        assert P == [0, 1 - p, p] and Q == [1 - p, p, 0]
    eps = [0.0, 0.2, 1.3, -0.5]
    for direction in ("plus", "minus"):
        got = ref.noisy_counting_delta(2, pi, eps, (kind, par), direction=direction)
        for e, v in zip(eps, got):
            w = indep_delta(P, Q, e, kind, par, direction)
            assert rel_err(v, w) < 1e-27, (pi, kind, par, direction, e, v, w)
    # a second, quadrature-based route (slower; one eps per case)
    for direction in ("plus", "minus"):
        v = ref.noisy_counting_delta(2, pi, 0.2, (kind, par), direction=direction)
        w = direct_quad_delta(P, Q, 0.2, kind, par, direction)
        assert rel_err(v, w) < 1e-25, (pi, kind, par, direction, v, w)


@pytest.mark.parametrize("pi", [0.3, 0.9])
@pytest.mark.parametrize("alpha", [0.5, 0.05])
def test_n2_geometric_direct_sum(pi, alpha):
    P, Q = ref.counting_pmfs(2, pi, dps=60)
    eps = [0.0, 0.3, 2.0, -0.5]
    for direction in ("plus", "minus"):
        got = ref.noisy_counting_delta(2, pi, eps, ("geometric", alpha), direction=direction)
        for e, v in zip(eps, got):
            w = geometric_direct(P, Q, e, alpha, direction)
            assert rel_err(v, w) < 1e-27, (pi, alpha, direction, e, v, w)


@pytest.mark.parametrize("n,pi,kind,par,eps,direction,kw", [
    (40, 0.3, "gaussian", 0.6, 0.4, "plus", {}),
    (40, 0.3, "gaussian", 0.1, 1.5, "minus", {}),
    (40, 0.3, "gaussian", 5.0, 0.05, "plus", {}),
    (40, 0.3, "laplace", 0.5, 0.4, "minus", {}),
    (40, 0.3, "laplace", 0.08, 3.0, "plus", {}),
    (40, 0.3, "laplace", 3.0, 0.1, "plus", {}),
    (30, 0.4, "gaussian", 0.5, 0.3, "plus", {"sample_size": 12}),
    (30, 0.4, "laplace", 0.5, 0.3, "minus", {"sample_size": 12}),
    (30, 0.4, "gaussian", 0.5, 0.3, "plus", {"sample_rate": 0.25, "sampling": "poisson"}),
    (None, [0.1, 0.5, 0.9, 0.3, 0.99, 0.02], "laplace", 0.7, 0.4, "plus", {}),
    (None, [0.1, 0.5, 0.9, 0.3, 0.99, 0.02], "gaussian", 0.3, 0.4, "minus", {}),
])
def test_small_n_against_bisection_closed_form(n, pi, kind, par, eps, direction, kw):
    # oracle(): ref.noisy_counting_delta, stored (recomputed by the exhaustive run)
    v = oracle("noisy_counting_delta", n, pi, eps, (kind, par), direction=direction, **kw)
    P, Q = ref.counting_pmfs(n, pi, dps=60, **kw)
    w = indep_delta(P, Q, eps, kind, par, direction)
    assert rel_err(v, w) < 1e-27, (v, w)


# ---------------------------------------------------------------------------
# structure
# ---------------------------------------------------------------------------

EPS_GRID = [-1.0, -0.3, 0.0, 0.1, 0.5, 1.0, 2.0]


@pytest.mark.parametrize("noise", [("gaussian", 0.8), ("laplace", 0.6), ("geometric", 0.4)])
def test_monotone_and_range(noise):
    for direction in ("plus", "minus", "max"):
        # oracle(): the same call, stored in tests/data (recomputed by the exhaustive run)
        vals = oracle("noisy_counting_delta", 12, 0.3, EPS_GRID, noise, direction=direction)
        for v in vals:
            assert 0 <= v <= 1
        for a, b in zip(vals, vals[1:]):
            assert b <= a * (1 + mpf(10) ** -28)
        assert vals[0] > vals[-1]


@pytest.mark.parametrize("noise", [("gaussian", 0.8), ("laplace", 0.6), ("geometric", 0.4)])
def test_symmetry_pi_one_minus_pi(noise):
    eps = [0.0, 0.2, 1.0]
    # oracle(): ref.noisy_counting_delta, stored (recomputed by the exhaustive run)
    a_plus = oracle("noisy_counting_delta", 15, 0.25, eps, noise, direction="plus")
    a_minus = oracle("noisy_counting_delta", 15, 0.25, eps, noise, direction="minus")
    b_plus = oracle("noisy_counting_delta", 15, 0.75, eps, noise, direction="plus")
    b_minus = oracle("noisy_counting_delta", 15, 0.75, eps, noise, direction="minus")
    for x, y in zip(a_plus, b_minus):
        assert rel_err(x, y) < 1e-27
    for x, y in zip(a_minus, b_plus):
        assert rel_err(x, y) < 1e-27
    assert abs(a_plus[1] - a_minus[1]) > 1e-6      # pi != 1/2: not symmetric


def _tv_by_quad(P, Q, kind, par):
    """int |f_P - f_Q| / 2 by mpmath.quad, split at the integers and at the
    crossing of f_P and f_Q (bisection)."""
    with mp.workdps(50):
        P = [mpf(p) for p in P]
        Q = [mpf(q) for q in Q]
        kern, _, _ = _kernels(kind, par)
        s = mpf(par)
        norm = 1 / (s * mpmath.sqrt(2 * mpmath.pi)) if kind == "gaussian" else 1 / (2 * s)
        _, r, _, _ = _crossing(P, Q, 0, kind, par, "plus")
        L = len(P) - 1
        W = int(40 * s) + 2
        pts = sorted(set([mpf(j) for j in range(-W, L + W + 1)] + ([r] if r is not None else [])))

        def f(x):
            return abs(mpmath.fsum((P[k] - Q[k]) * kern(x - k) for k in range(L + 1))) * norm / 2

        return mpmath.quad(f, [mpmath.ninf] + pts + [mpmath.inf])


@pytest.mark.exhaustive  # slow self-check of the oracle
@pytest.mark.parametrize("kind,par", [("gaussian", 0.9), ("gaussian", 0.3), ("laplace", 0.7)])
def test_eps0_is_total_variation(kind, par):
    n, pi = 10, 0.35
    v = ref.noisy_counting_delta(n, pi, 0.0, (kind, par))
    P, Q = ref.counting_pmfs(n, pi, dps=50)
    assert rel_err(v, _tv_by_quad(P, Q, kind, par)) < 1e-25
    # at eps = 0 the two directions agree (both equal the TV distance)
    plus = ref.noisy_counting_delta(n, pi, 0.0, (kind, par), direction="plus")
    minus = ref.noisy_counting_delta(n, pi, 0.0, (kind, par), direction="minus")
    assert rel_err(plus, minus) < 1e-27


def test_eps0_geometric_total_variation():
    n, pi, alpha = 10, 0.35, 0.3
    v = ref.noisy_counting_delta(n, pi, 0.0, ("geometric", alpha))
    P, Q = ref.counting_pmfs(n, pi, dps=60)
    with mp.workdps(60):
        a = mpf(alpha)
        c = (1 - a) / (1 + a)
        tv = mpf(0)
        for x in range(-150, n + 151):
            tv += abs(mpmath.fsum((P[k] - Q[k]) * a ** abs(x - k) for k in range(n + 1)))
        tv *= c / 2
    assert rel_err(v, tv) < 1e-27


# ---------------------------------------------------------------------------
# limits
# ---------------------------------------------------------------------------

def test_geometric_alpha_to_zero_is_noiseless():
    eps = [-0.5, 0.0, 0.3, 1.0]
    base = ref.counting_delta(20, 0.3, eps, dps=40)
    got0 = ref.noisy_counting_delta(20, 0.3, eps, ("geometric", 0.0))
    for a, b in zip(got0, base):
        assert rel_err(a, b) < 1e-27
    prev = None
    for alpha in (2.0 ** -20, 2.0 ** -40, 2.0 ** -70):
        got = ref.noisy_counting_delta(20, 0.3, eps, ("geometric", alpha))
        errs = [rel_err(a, b) for a, b in zip(got, base)]
        assert max(errs) < 40 * alpha
        if prev is not None:
            assert max(errs) < prev
        prev = max(errs)


def _kink_distance(n, pi, eps):
    """distance of eps to the nearest kink ln(P(k)/Q(k)) of the noiseless
    curve (P(k)/Q(k) = k (1-pi) / ((n-k) pi))."""
    lr = [math.log(k * (1 - pi) / ((n - k) * pi)) for k in range(1, n)]
    return min(abs(eps - x) for x in lr)


@pytest.mark.exhaustive  # slow self-check of the oracle
@pytest.mark.parametrize("noise", [("gaussian", 0.05), ("laplace", 0.01)])
def test_tiny_noise_approaches_noiseless(noise):
    n, pi = 20, 0.3
    eps = [0.34, 0.95, -0.4]
    for e in eps:
        assert _kink_distance(n, pi, e) > 0.08
    base = ref.counting_delta(n, pi, eps, dps=40)
    for direction in ("max",):
        got = ref.noisy_counting_delta(n, pi, eps, noise, direction=direction)
        for a, b in zip(got, base):
            # the bumps overlap by ~e^-50 (Gaussian e^(-1/(8 s^2)), Laplace
            # e^(-1/(2b)) of mass outside |x - k| < 1/2)
            assert rel_err(a, b) < 1e-15, (noise, a, b)


# ---------------------------------------------------------------------------
# normal approximation (Breutigam & Reischuk Lemma 6)
# ---------------------------------------------------------------------------

def test_normal_approx_formula():
    # equals the worst-case Gaussian DP curve with sigma_eff^2 = (n-1) pi (1-pi) + sigma^2
    for n, pi, sigma, eps in [(1000, 0.5, 1.0, 0.01), (100, 0.1, 3.0, 0.2), (1, 0.5, 2.0, 0.5),
                              (200, 0.3, 0.0, 1.5)]:
        v = ref.normal_approx_delta(n, pi, eps, sigma)
        with mp.workdps(60):
            s = mpmath.sqrt((n - 1) * mpf(pi) * (1 - mpf(pi)) + mpf(sigma) ** 2)
        assert rel_err(v, cf_gaussian(s, eps)) < 1e-27
        for d in ("plus", "minus"):
            assert rel_err(ref.normal_approx_delta(n, pi, eps, sigma, direction=d), v) < 1e-27
    # a sequence of equal probabilities is the scalar case
    a = ref.normal_approx_delta(None, [0.3] * 49, [0.1, 0.5], 2.0)
    b = ref.normal_approx_delta(50, 0.3, [0.1, 0.5], 2.0)
    assert all(rel_err(x, y) < 1e-27 for x, y in zip(a, b))
    # n = 1: identical to the exact noisy oracle and the DP curve
    assert rel_err(ref.normal_approx_delta(1, 0.5, 0.7, 1.3),
                   ref.noisy_counting_delta(1, 0.5, 0.7, ("gaussian", 1.3))) < 1e-27


@pytest.mark.exhaustive  # slow self-check of the oracle
def test_normal_approx_close_for_large_noise():
    # sanity only: with sigma = 50 the Gaussian noise dominates the binomial
    # part and the normal approximation is accurate in the bulk
    eps = [0.001, 0.01, 0.05]
    exact = ref.noisy_counting_delta(200, 0.5, eps, ("gaussian", 50.0), direction="plus")
    approx = ref.normal_approx_delta(200, 0.5, eps, 50.0)
    for a, b in zip(exact, approx):
        assert rel_err(a, b) < 1e-3
    # ... but it is only an approximation
    assert rel_err(exact[0], approx[0]) > 1e-12


# ---------------------------------------------------------------------------
# tiny deltas
# ---------------------------------------------------------------------------

@pytest.mark.exhaustive  # slow self-check of the oracle
def test_tiny_delta_gaussian():
    args = (400, 0.5, 5.0, ("gaussian", 1.0))
    a = ref.noisy_counting_delta(*args, dps=30)
    b = ref.noisy_counting_delta(*args, dps=45)
    assert 0 < a < mpf(10) ** -100
    assert rel_err(a, b) < 1e-25
    # independent: bisection + erfc sums (both directions; pi = 1/2 symmetric)
    P, Q = ref.counting_pmfs(400, 0.5, dps=60)
    w = indep_delta(P, Q, 5.0, "gaussian", 1.0, "plus", dps=60)
    assert rel_err(b, w) < 1e-27
    # the brief's example n = 100 is ~1e-35 (P[all 99 others positive] =
    # 2^-99 bounds delta from below), not below 1e-100
    c = ref.noisy_counting_delta(100, 0.5, 5.0, ("gaussian", 1.0))
    P, Q = ref.counting_pmfs(100, 0.5, dps=60)
    assert rel_err(c, indep_delta(P, Q, 5.0, "gaussian", 1.0, "plus")) < 1e-27
    assert mpf(10) ** -36 < c < mpf(10) ** -34


@pytest.mark.exhaustive  # slow self-check of the oracle
def test_tiny_delta_laplace():
    a = ref.noisy_counting_delta(400, 0.5, 3.0, ("laplace", 0.3), direction="plus")
    assert 0 < a < mpf(10) ** -90
    P, Q = ref.counting_pmfs(400, 0.5, dps=70)
    assert rel_err(a, indep_delta(P, Q, 3.0, "laplace", 0.3, "plus", dps=70)) < 1e-27


@pytest.mark.exhaustive  # slow self-check of the oracle
def test_tiny_delta_geometric_exact_integers():
    """pi = 1/2, alpha = 1/16, n = 800: with the weights C(799, j) and the
    kernel 16^(D - |x-k|) everything is an integer; the set where
    f_P > e^eps f_Q is decided per x, and delta = c 2^-799 16^-D
    (sum_S F_P - e^eps sum_S F_Q) with c = 15/17 -- exact up to that single
    final mpmath combination.  x runs over [-100, 900]: the mass outside is
    < 16^-100 of the edge values (negligible)."""
    n, N, W, eps = 800, 799, 100, 2.7
    a = ref.noisy_counting_delta(n, 0.5, eps, ("geometric", 1 / 16), dps=30)
    b = ref.noisy_counting_delta(n, 0.5, eps, ("geometric", 1 / 16), dps=45)
    assert 0 < a < mpf(10) ** -100
    assert rel_err(a, b) < 1e-25
    Pw = [0] + [math.comb(N, j) for j in range(N + 1)]
    Qw = [math.comb(N, j) for j in range(N + 1)] + [0]
    D = n + W
    pw = [16 ** (D - m) for m in range(D + 1)]
    with mp.workdps(120):
        ee = mpmath.exp(mpf(eps))
        res = []
        for A, B in ((Pw, Qw), (Qw, Pw)):
            SA = SB = 0
            for x in range(-W, n + W + 1):
                FA = FB = 0
                for k in range(n + 1):
                    t = pw[abs(x - k)]
                    FA += A[k] * t
                    FB += B[k] * t
                if mpf(FA) > ee * mpf(FB):
                    SA += FA
                    SB += FB
            res.append((mpf(SA) - ee * mpf(SB)) * mpf(15) / 17
                       / (mpf(2) ** N * mpf(16) ** D))
        exact = max(res)
        assert rel_err(res[0], res[1]) < 1e-40          # pi = 1/2: symmetric
    assert rel_err(b, exact) < 1e-27


# ---------------------------------------------------------------------------
# interface
# ---------------------------------------------------------------------------

def test_interface_and_validation():
    v = ref.noisy_counting_delta(5, 0.3, 0.5, ("laplace", 1.0))
    assert isinstance(v, mpf)
    lst = ref.noisy_counting_delta(5, 0.3, [0.5, 1.0], ("laplace", 1.0))
    assert isinstance(lst, list) and len(lst) == 2 and lst[0] == v
    assert isinstance(ref.normal_approx_delta(5, 0.3, 0.5, 1.0), mpf)
    # sample_size = 0: nothing released but noise, P = Q
    assert ref.noisy_counting_delta(5, 0.3, 0.2, ("gaussian", 1.0), sample_size=0) == 0
    with mp.workdps(40):
        assert rel_err(ref.noisy_counting_delta(5, 0.3, -0.2, ("gaussian", 1.0), sample_size=0),
                       1 - mpmath.exp(mpf(-0.2))) < 1e-28
    for bad in [("cauchy", 1.0), ("laplace",), "laplace", ("laplace", 1.0, 2.0)]:
        with pytest.raises(ValueError):
            ref.noisy_counting_delta(5, 0.3, 0.5, bad)
    for bad in [("laplace", 0.0), ("gaussian", -1.0), ("geometric", 1.0), ("geometric", -0.1)]:
        with pytest.raises(ValueError):
            ref.noisy_counting_delta(5, 0.3, 0.5, bad)
    with pytest.raises(ValueError):
        ref.noisy_counting_delta(5, 0.3, 0.5, ("laplace", 1.0), direction="both")
    with pytest.raises(ValueError):
        ref.normal_approx_delta(5, 0.3, 0.5, 1.0, direction="both")
    with pytest.raises(ValueError):
        ref.normal_approx_delta(1, 0.3, 0.5, 0.0)     # no randomness at all
