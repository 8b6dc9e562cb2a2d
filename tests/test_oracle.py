"""Tests of the brute-force mpmath oracle statpriv.reference.

Every expected value here comes from somewhere other than the oracle itself:
published reference numbers (docs/mathematics.md sections 5 and 10), closed forms
evaluated in mpmath inside the test, small cases derived by hand (derivations
in the comments), or structural identities (symmetry, mixtures, limits).
"""

import math
from fractions import Fraction

import mpmath
import pytest
from mpmath import mp, mpf

import statpriv
from statpriv import reference as ref
from helpers import DP_GAUSSIAN_AT_0_01, STATISTICAL_PRIVACY_VALUES, oracle

DPS = 50


def close(a, b, rel, abs_=0):
    with mp.workdps(60):
        a, b = mpf(a), mpf(b)
        return abs(a - b) <= max(rel * abs(b), abs_)


def hp(x):
    """High-precision mpf of an exact float/int/string."""
    with mp.workdps(60):
        return mpf(x)


def ratio(a, b):
    """a/b rounded at 60 digits (never at the global 15-digit precision)."""
    with mp.workdps(60):
        return mpf(a) / mpf(b)


# ---------------------------------------------------------------------------
# docs/mathematics.md §10: public reference values (pi taken as the binary float)
# ---------------------------------------------------------------------------

SECTION10 = STATISTICAL_PRIVACY_VALUES
PUBLISHED = {(n, pi, eps): value for n, pi, eps, value in SECTION10}


@pytest.mark.parametrize("n,pi,eps,expected", SECTION10)
def test_section10_reference_values(n, pi, eps, expected):
    got = ref.counting_delta(n, pi, eps)
    assert isinstance(got, mpf)
    assert close(got, hp(expected), 1e-15)
    # the published digits are themselves ~20 significant digits
    assert close(got, hp(expected), 1e-18)


def test_section10_list_eps_matches_scalar():
    got = ref.counting_delta(1000, 0.5, [0.01, 0.5])
    assert isinstance(got, list) and len(got) == 2
    assert close(got[0], hp(PUBLISHED[1000, 0.5, 0.01]), 1e-18)
    assert close(got[1], hp(PUBLISHED[1000, 0.5, 0.5]), 1e-18)
    got_t = ref.counting_delta(100, 0.5, (0.01,))
    assert isinstance(got_t, list) and len(got_t) == 1
    assert close(got_t[0], hp(PUBLISHED[100, 0.5, 0.01]), 1e-18)


# ---------------------------------------------------------------------------
# docs/mathematics.md §6: worst-case DP curves
# ---------------------------------------------------------------------------

def test_gaussian_dp_published_values():
    # Breutigam & Reischuk section 5: eps = 0.01, sigma = nu in count units
    # oracle(): ref.dp_gaussian_delta, stored (recomputed by the exhaustive run);
    # test_gaussian_dp_each_direction runs the quadrature live
    for sigma, value in DP_GAUSSIAN_AT_0_01:
        assert close(oracle("dp_gaussian_delta", sigma, 0.01), hp(value), 1e-14)


@pytest.mark.exhaustive  # slow self-check of the oracle
@pytest.mark.parametrize("sigma", [0.25, 2.0, 30.0])
def test_gaussian_dp_closed_form(sigma):
    # Phi(1/(2s) - eps s) - e^eps Phi(-1/(2s) - eps s), valid for all real eps
    # (the log-likelihood ratio (2x-1)/(2 s^2) is monotone).  sigma = 30,
    # eps = 1 gives ~9e-201: checks the quadrature is relative, not absolute.
    epss = [-1.5, 0.0, 0.7] if sigma != 30.0 else [1.0]
    got = ref.dp_gaussian_delta(sigma, epss)
    for e, g in zip(epss, got):
        with mp.workdps(80):
            s, E = mpf(sigma), mpf(e)
            cf = (mpmath.ncdf(1 / (2 * s) - E * s)
                  - mpmath.exp(E) * mpmath.ncdf(-1 / (2 * s) - E * s))
        assert close(g, cf, 1e-40), (sigma, e, g, cf)


@pytest.mark.parametrize("sigma,eps", [(0.5, 200.0), (3.0, 0.01)])
def test_gaussian_dp_each_direction(sigma, eps):
    # delta_plus = delta_minus by symmetry; each computed separately must
    # match the closed form (delta ~ 4e-2133 for the first case).
    with mp.workdps(120):
        s, E = mpf(sigma), mpf(eps)
        cf = (mpmath.ncdf(1 / (2 * s) - E * s)
              - mpmath.exp(E) * mpmath.ncdf(-1 / (2 * s) - E * s))
    # (the quadratures' values stored: tests/data/reference/reference.json,
    # recomputed by the exhaustive store test)
    for d in ("plus", "minus"):
        assert close(oracle("dp_gaussian_delta", sigma, eps, direction=d), cf, 1e-40), d


@pytest.mark.exhaustive  # slow self-check of the oracle
@pytest.mark.parametrize("b", [0.5, 1.0, 7.0])
def test_laplace_dp_closed_form(b):
    # For eps >= -1/b: max(0, 1 - e^((eps - 1/b)/2)).
    # For eps < -1/b the log-ratio (|x| - |x-1|)/b >= -1/b > eps everywhere,
    # so the integrand is positive everywhere and delta = 1 - e^eps
    # (the docs/mathematics.md closed form does not hold there).
    epss = [-3 / b, -1 / b, -0.2, 0.0, 0.05, 1 / (2 * b), 1 / b, 2 / b]
    got = ref.dp_laplace_delta(b, epss)
    for e, g in zip(epss, got):
        with mp.workdps(80):
            B, E = mpf(b), mpf(e)
            if E >= -1 / B:
                cf = max(mpf(0), 1 - mpmath.exp((E - 1 / B) / 2))
            else:
                cf = 1 - mpmath.exp(E)
        assert close(g, cf, 1e-40, abs_=1e-45), (b, e, g, cf)
    for d in ("plus", "minus"):
        g = ref.dp_laplace_delta(b, 0.05, direction=d)
        with mp.workdps(80):
            cf = 1 - mpmath.exp((mpf(0.05) - 1 / mpf(b)) / 2)
        assert close(g, cf, 1e-40)


@pytest.mark.parametrize("alpha", [0.0, 0.1, 0.5, 0.9])
def test_geometric_dp_closed_form(alpha):
    # For e^eps >= alpha: max(0, 1 - alpha e^eps)/(1 + alpha).
    # For e^eps < alpha every term P(k-1) - e^eps P(k) is positive, so
    # delta = 1 - e^eps.
    epss = [-4.0, -1.0, -0.05, 0.0, 0.01, 0.5, 3.0]
    got = ref.dp_geometric_delta(alpha, epss)
    for e, g in zip(epss, got):
        with mp.workdps(80):
            A, E = mpf(alpha), mpf(e)
            if A == 0 or E >= mpmath.log(A):
                cf = max(mpf(0), 1 - A * mpmath.exp(E)) / (1 + A)
            else:
                cf = 1 - mpmath.exp(E)
        assert close(g, cf, 1e-45, abs_=1e-48), (alpha, e, g, cf)
    for d in ("plus", "minus"):
        g = ref.dp_geometric_delta(alpha, 0.01, direction=d)
        with mp.workdps(80):
            cf = (1 - mpf(alpha) * mpmath.exp(mpf(0.01))) / (1 + mpf(alpha))
        assert close(g, cf, 1e-45)


# ---------------------------------------------------------------------------
# hand-derived small cases
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("N", [0, 1, 2, 57, 1000])
def test_binomial_row_is_math_comb(N):
    """The brute force's rows by the recurrence are math.comb's integers
    (whole, and the first count + 1 of them)."""
    from statpriv.oracle._common import _binomial_row
    assert _binomial_row(N) == [math.comb(N, k) for k in range(N + 1)]
    for count in (0, 1, N // 3, N, N + 5):
        assert _binomial_row(N, count) == [math.comb(N, k) for k in range(min(N, count) + 1)]


@pytest.mark.parametrize("pi", [0.0, 0.3, 1.0])
def test_n1_is_fully_revealing(pi):
    # no other records: P = point mass at 1, Q = point mass at 0 -> delta = 1
    P, Q = ref.counting_pmfs(1, pi)
    assert P == [0, 1] and Q == [1, 0]
    for d in ("plus", "minus", "max"):
        assert ref.counting_delta(1, pi, [-2.0, 0.0, 0.5, 40.0], direction=d) == [1, 1, 1, 1]
    assert ref.counting_delta(None, [], 3.0) == 1


@pytest.mark.parametrize("pi", [0.25, 0.5, 0.3, 0.9])
def test_n2_hand_derived(pi):
    # One other record, Bernoulli(pi).  Outcomes k = 0, 1, 2:
    #   P = (0, 1-pi, pi)   (target 1 + other),   Q = (1-pi, pi, 0).
    # delta_plus  = (0 - e^eps (1-pi))_+ + (1-pi - e^eps pi)_+ + (pi - 0)_+
    #             = (1 - pi - e^eps pi)_+ + pi
    # delta_minus = (1-pi)_+ + (pi - e^eps (1-pi))_+ + (0 - e^eps pi)_+
    #             = 1 - pi + (pi - e^eps (1-pi))_+
    epss = [-1.0, 0.0, 0.1, 2.0]
    plus = ref.counting_delta(2, pi, epss, direction="plus")
    minus = ref.counting_delta(2, pi, epss, direction="minus")
    both = ref.counting_delta(2, pi, epss)
    for e, gp, gm, gb in zip(epss, plus, minus, both):
        with mp.workdps(80):
            p, ee = mpf(pi), mpmath.exp(mpf(e))
            dp = max(1 - p - ee * p, 0) + p
            dm = 1 - p + max(p - ee * (1 - p), 0)
        assert close(gp, dp, 1e-48)
        assert close(gm, dm, 1e-48)
        assert close(gb, max(dp, dm), 1e-48)


def test_n3_poisson_binomial_hand_derived():
    # Others Bernoulli(a), Bernoulli(b): S pmf = ((1-a)(1-b), a(1-b)+(1-a)b, ab)
    a, b = 0.2, 0.7
    P, Q = ref.counting_pmfs(3, [a, b])
    with mp.workdps(80):
        A, B = mpf(a), mpf(b)
        s = [(1 - A) * (1 - B), A * (1 - B) + (1 - A) * B, A * B]
    assert len(P) == len(Q) == 4
    for got, exp in zip(P, [0] + s):
        assert close(got, exp, 1e-48, abs_=1e-60)
    for got, exp in zip(Q, s + [0]):
        assert close(got, exp, 1e-48, abs_=1e-60)


def test_subsample_hand_derived():
    # n = 2, m = 1, lam = 1/2; B_0 = point mass at 0, B_1 = (1-pi, pi):
    #   P(0) = (1-pi)/2,          P(1) = 1/2 + pi/2
    #   Q(0) = 1/2 + (1-pi)/2,    Q(1) = pi/2
    pi, e = 0.3, 0.2
    P, Q = ref.counting_pmfs(2, pi, sample_size=1)
    with mp.workdps(80):
        p, ee = mpf(pi), mpmath.exp(mpf(e))
        Pe = [(1 - p) / 2, (1 + p) / 2]
        Qe = [(2 - p) / 2, p / 2]
        dp = sum(max(x - ee * y, 0) for x, y in zip(Pe, Qe))
        dm = sum(max(y - ee * x, 0) for x, y in zip(Pe, Qe))
    for g, x in zip(P + Q, Pe + Qe):
        assert close(g, x, 1e-48)
    assert close(ref.counting_delta(2, pi, e, sample_size=1, direction="plus"), dp, 1e-48)
    assert close(ref.counting_delta(2, pi, e, sample_size=1, direction="minus"), dm, 1e-48)
    # sample_rate 0.5 of n = 2 -> m = 1
    assert ref.counting_pmfs(2, pi, sample_rate=0.5) == (P, Q)


def test_poisson_sampling_hand_derived():
    # n = 2, one other record kept w.p. lam: Z ~ Bernoulli(lam pi),
    #   Q = (1 - lam pi, lam pi, 0),
    #   P = lam (0, 1 - lam pi, lam pi) + (1 - lam)(1 - lam pi, lam pi, 0)
    pi, lam = 0.4, 0.25
    P, Q = ref.counting_pmfs(2, pi, sample_rate=lam, sampling="poisson")
    with mp.workdps(80):
        p, l = mpf(pi), mpf(lam)
        z = l * p
        Qe = [1 - z, z, 0]
        Pe = [(1 - l) * (1 - z), l * (1 - z) + (1 - l) * z, l * z]
    for g, x in zip(P + Q, Pe + Qe):
        assert close(g, x, 1e-48, abs_=1e-60)


def test_secret_sample_hand_derived():
    # n = 3 (N = 2 others), K = 1 positive, m = 1, lam = 1/3:
    # H(2,1,0) = point mass at 0, H(2,1,1) = (1/2, 1/2)
    #   P(0) = 2/3 * 1/2 = 1/3,        P(1) = 1/3 * 1 + 2/3 * 1/2 = 2/3
    #   Q(0) = 1/3 * 1 + 2/3 * 1/2,    Q(1) = 2/3 * 1/2 = 1/3
    P, Q = ref.secret_sample_pmfs(3, 1, 1)
    third = ratio(1, 3)
    two_thirds = ratio(2, 3)
    for g, x in zip(P + Q, [third, two_thirds, two_thirds, third]):
        assert close(g, x, 1e-48)
    e = 0.1
    with mp.workdps(80):
        ee = mpmath.exp(mpf(e))
        t = mpf(1) / 3
        dp = max(t - ee * 2 * t, 0) + max(2 * t - ee * t, 0)
    assert close(ref.secret_sample_delta(3, 1, 1, e, direction="plus"), dp, 1e-48)
    assert close(ref.secret_sample_delta(3, 1, 1, e), dp, 1e-48)  # symmetric case


# ---------------------------------------------------------------------------
# structural identities
# ---------------------------------------------------------------------------

def test_eps0_is_total_variation_and_max_of_unimodal_pmf():
    # At eps = 0 both directions equal TV = 1/2 sum |P - Q|.  For a unimodal
    # pmf z, TV(z(.-1), z) = sum of positive increments = max_k z(k); for
    # Bin(10, 1/2) that is C(10,5)/2^10 = 252/1024 exactly.
    n, pi = 11, 0.5
    assert ref.counting_delta(n, pi, 0.0, direction="plus") == ratio(252, 1024)
    assert ref.counting_delta(n, pi, 0.0, direction="minus") == ratio(252, 1024)
    # general pi (TV formula evaluated on the pmfs, mode from exact rationals)
    n, pi = 40, 0.3
    P, Q = ref.counting_pmfs(n, pi)
    with mp.workdps(80):
        tv = sum(abs(p - q) for p, q in zip(P, Q)) / 2
    fp = Fraction(pi)
    mode = max(math.comb(n - 1, k) * fp ** k * (1 - fp) ** (n - 1 - k) for k in range(n))
    with mp.workdps(80):
        modev = mpf(mode.numerator) / mode.denominator
    for d in ("plus", "minus", "max"):
        g = ref.counting_delta(n, pi, 0, direction=d)
        assert close(g, tv, 1e-45)
        assert close(g, modev, 1e-45)


def test_symmetry_pi_swaps_directions():
    epss = [-0.3, 0.0, 0.05, 0.4]
    for n, pi in [(30, 0.375), (25, 0.3)]:
        with mp.workdps(80):
            qi = 1 - mpf(pi)        # exact: never 1 - pi in float
        plus = ref.counting_delta(n, pi, epss, direction="plus")
        minus_sw = ref.counting_delta(n, qi, epss, direction="minus")
        minus = ref.counting_delta(n, pi, epss, direction="minus")
        plus_sw = ref.counting_delta(n, qi, epss, direction="plus")
        for a, b in zip(plus + minus, minus_sw + plus_sw):
            assert close(a, b, 1e-45)
    # heterogeneous pi
    ps = [0.1, 0.5, 0.8, 0.25]
    with mp.workdps(80):
        qs = [1 - mpf(p) for p in ps]
    assert close(ref.counting_delta(None, ps, 0.2, direction="plus"),
                 ref.counting_delta(None, qs, 0.2, direction="minus"), 1e-45)


def test_subsample_m_equals_n_is_unsampled():
    n, pi, epss = 40, 0.3, [0.0, 0.1, 1.0]
    full = ref.counting_delta(n, pi, epss)
    assert ref.counting_delta(n, pi, epss, sample_size=n) == full
    assert ref.counting_delta(n, pi, epss, sample_rate=1.0) == full
    # Poisson sampling with rate 1 is also the unsampled curve
    pois = ref.counting_delta(n, pi, epss, sample_rate=1.0, sampling="poisson")
    for a, b in zip(pois, full):
        assert close(a, b, 1e-45)
    # rate 0: nothing of the target is released
    assert ref.counting_delta(n, pi, 0.0, sample_size=0) == 0
    assert ref.counting_delta(n, pi, 0.0, sample_rate=0.0, sampling="poisson") == 0


def test_poisson_binomial_equal_pi_is_binomial():
    n, pi, epss = 30, 0.3, [-0.2, 0.0, 0.1, 0.8]
    a = ref.counting_delta(n, pi, epss)
    b = ref.counting_delta(n, [pi] * (n - 1), epss)
    c = ref.counting_delta(None, [pi] * (n - 1), epss)
    for x, y, z in zip(a, b, c):
        assert close(x, y, 1e-45) and y == z
    ap, aq = ref.counting_pmfs(n, pi, sample_rate=0.4, sampling="poisson")
    bp, bq = ref.counting_pmfs(n, [pi] * (n - 1), sample_rate=0.4, sampling="poisson")
    for x, y in zip(ap + aq, bp + bq):
        assert close(x, y, 1e-45, abs_=1e-60)


def test_secret_sample_mixture_over_K_is_iid_subsample():
    # Averaging the hypergeometric over K ~ Bin(N, pi) gives the binomial,
    # so sum_K Bin(N,pi)(K) * secret_sample_pmfs(n, m, K) = counting_pmfs(n,
    # pi, sample_size=m).
    n, m, pi = 9, 4, 0.3
    N = n - 1
    P_iid, Q_iid = ref.counting_pmfs(n, pi, sample_size=m)
    with mp.workdps(80):
        p = mpf(pi)
        Pm = [mpf(0)] * (m + 1)
        Qm = [mpf(0)] * (m + 1)
        for K in range(N + 1):
            w = mpf(math.comb(N, K)) * p ** K * (1 - p) ** (N - K)
            P, Q = ref.secret_sample_pmfs(n, m, K)
            Pm = [a + w * x for a, x in zip(Pm, P)]
            Qm = [a + w * x for a, x in zip(Qm, Q)]
    for a, b in zip(Pm + Qm, P_iid + Q_iid):
        assert close(a, b, 1e-45, abs_=1e-60)


def test_secret_sample_worst_case_is_lambda():
    # Noiseless count: K = 0 -> P = (1-lam, lam, 0..), Q = (1, 0, ..): delta_plus = lam;
    # K = N -> delta_minus = lam.  Worst case over K is the DP guarantee lam.
    n, m = 12, 5
    lam = ratio(m, n)
    for e in (0.0, 1e-6, 0.3):
        vals = [ref.secret_sample_delta(n, m, K, e) for K in range(n)]
        assert close(max(vals[0], vals[-1]), lam, 1e-48)
        with mp.workdps(60):
            assert max(vals) <= lam * (1 + mpf(10) ** -45)
    # m = n: the whole population is released -> fully revealing
    assert ref.secret_sample_delta(n, n, 4, 0.5) == 1
    # m = 0: nothing released
    assert ref.secret_sample_delta(n, 0, 4, 0.0) == 0


def test_curve_properties():
    # non-increasing in eps, values in [0, 1], convex in e^eps (spot check)
    epss = [-1.0, -0.1, 0.0, 0.05, 0.1, 0.3, 1.0, 3.0]
    for kw in ({}, {"sample_size": 20}, {"sample_rate": 0.3, "sampling": "poisson"}):
        vals = ref.counting_delta(50, 0.2, epss, **kw)
        assert all(0 <= v <= 1 for v in vals)
        assert all(a >= b for a, b in zip(vals, vals[1:]))
    # convexity in t = e^eps on three equally spaced t
    with mp.workdps(60):
        ts = [mpf(1), mpf(1.5), mpf(2)]
        es = [mpmath.log(t) for t in ts]
    v = ref.counting_delta(50, 0.2, es)
    with mp.workdps(60):
        assert v[1] <= (v[0] + v[2]) / 2 + mpf(10) ** -45


# ---------------------------------------------------------------------------
# hockey_stick, precision handling, validation
# ---------------------------------------------------------------------------

def test_hockey_stick_direct():
    P = [mpf(0.5), mpf(0.25), mpf(0.25)]
    Q = [mpf(0.25), mpf(0.25), mpf(0.5)]
    # eps = 0: (0.5-0.25) = 0.25;  eps = ln 2: all terms <= 0 -> 0
    assert ref.hockey_stick(P, Q, 0) == hp(0.25)
    with mp.workdps(60):
        ln2 = mpmath.log(2)
        mln2 = -ln2
    assert abs(ref.hockey_stick(P, Q, ln2)) < mpf(10) ** -48
    # eps = -ln 2: (0.5-0.125) + (0.25-0.125) + (0.25-0.25) = 0.5
    assert close(ref.hockey_stick(P, Q, [mln2])[0], hp(0.5), 1e-48)
    with pytest.raises(ValueError):
        ref.hockey_stick(P, Q[:2], 0.1)


def test_dps_and_global_precision_untouched():
    before = mp.dps
    a = ref.counting_delta(200, 0.3, 0.05, dps=30)
    b = ref.counting_delta(200, 0.3, 0.05, dps=60)
    assert mp.dps == before
    assert close(a, b, 1e-28)
    ref.dp_laplace_delta(2.0, 0.1, dps=20)
    ref.dp_geometric_delta(0.5, 0.1, dps=20)
    assert mp.dps == before


@pytest.mark.parametrize("kwargs", [
    dict(n=0, pi=0.5),
    dict(n=5, pi=-0.1),
    dict(n=5, pi=1.5),
    dict(n=5, pi=float("nan")),
    dict(n=5, pi=0.5, sample_size=6),
    dict(n=5, pi=0.5, sample_size=-1),
    dict(n=5, pi=0.5, sample_rate=1.2),
    dict(n=5, pi=0.5, sample_size=2, sample_rate=0.4),
    dict(n=5, pi=[0.5, 0.5]),
    dict(n=5, pi=[0.5] * 4, sample_size=2),
    dict(n=5, pi=0.5, sampling="poisson"),
    dict(n=5, pi=0.5, sampling="bogus"),
    dict(n=None, pi=0.5),
])
def test_validation_counting(kwargs):
    with pytest.raises(ValueError):
        ref.counting_pmfs(**kwargs)


def test_validation_other():
    with pytest.raises(ValueError):
        ref.counting_delta(5, 0.5, 0.1, direction="both")
    with pytest.raises(ValueError):
        ref.counting_delta(5, 0.5, float("nan"))
    with pytest.raises(ValueError):
        ref.secret_sample_pmfs(5, 2, 5)      # K > n-1
    with pytest.raises(ValueError):
        ref.secret_sample_pmfs(5, 6, 1)      # m > n
    with pytest.raises(ValueError):
        ref.dp_laplace_delta(0.0, 0.1)
    with pytest.raises(ValueError):
        ref.dp_gaussian_delta(-1.0, 0.1)
    with pytest.raises(ValueError):
        ref.dp_geometric_delta(1.0, 0.1)


def test_reference_is_the_oracle_subpackage():
    # statpriv.reference re-exports exactly the public names of statpriv.oracle
    from statpriv import oracle
    assert sorted(ref.__all__) == sorted(
        ["hockey_stick", "counting_pmfs", "counting_delta", "secret_sample_pmfs",
         "secret_sample_delta", "dp_laplace_delta", "dp_gaussian_delta", "dp_geometric_delta",
         "estimate_terms", "term_budget", "DEFAULT_MAX_TERMS", "noisy_counting_delta",
         "normal_approx_delta"])
    for name in ref.__all__:
        assert getattr(ref, name) is getattr(oracle, name), name
    with pytest.raises(AttributeError):
        oracle.no_such_function


def test_import_statpriv_loads_no_oracle_module(tmp_path):
    # the oracle modules (and their mpmath work) load on first use only; the
    # child imports the statpriv of this run, from a neutral cwd (a checkout's
    # unbuilt source tree must not shadow it)
    import os
    import pathlib
    import subprocess
    import sys
    root = str(pathlib.Path(statpriv.__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [root] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    code = ("import sys, statpriv; "
            "print(sorted(m for m in sys.modules if m.startswith('statpriv.oracle.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=tmp_path, env=env).stdout
    assert out.strip() == "[]"
