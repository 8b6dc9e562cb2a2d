"""statpriv.from_log_pmfs (statpriv/discrete.py) and PrivacyCurve.log_pmfs().

Truth: the hockey-stick sums sum_x (P(x) - e^eps Q(x))_+ written here in mpmath
(50 digits) from the laws' definitions -- never statpriv's own reference.
"""
import math

import mpmath
import numpy as np
import pytest

import statpriv
from statpriv.discrete import LogPmfs, from_log_pmfs
from helpers import assert_matches

EPS = (-0.7, -1e-3, 0.0, 1e-3, 0.3, 1.0, 2.5, 6.0, 30.0)


def _hockey(P, Q, eps):
    """H_eps(P||Q) from the definition, in mpmath."""
    with mpmath.workdps(50):
        ee = mpmath.exp(mpmath.mpf(eps))
        return mpmath.fsum(max(p - ee * q, 0) for p, q in zip(P, Q))


def _check(curve, P, Q, eps_values=EPS, rel=1e-12):
    for eps in eps_values:
        plus, minus = _hockey(P, Q, eps), _hockey(Q, P, eps)
        assert_matches(curve.log_delta_plus(eps), plus, rel=rel, what=f"plus eps={eps}")
        assert_matches(curve.log_delta_minus(eps), minus, rel=rel, what=f"minus eps={eps}")
        assert_matches(curve.log_delta(eps), max(plus, minus), rel=rel, what=f"max eps={eps}")


def _mp_laws(pmf, atoms):
    """mpmath pmf values on ``atoms``, normalised there, and their float logs."""
    with mpmath.workdps(50):
        vals = [pmf(k) for k in atoms]
        total = mpmath.fsum(vals)
        vals = [v / total for v in vals]
        logs = np.array([float(mpmath.log(v)) if v > 0 else -math.inf for v in vals])
    return logs


def _exact(logs):
    """The normalised law of float log-pmfs, exactly as the factory defines it."""
    with mpmath.workdps(50):
        vals = [mpmath.exp(mpmath.mpf(float(x))) for x in logs]
        total = mpmath.fsum(vals)
        return [v / total for v in vals]


def test_two_poisson_laws():
    atoms = range(80)
    lp = _mp_laws(lambda k: mpmath.mpf(3) ** k / mpmath.factorial(k), atoms)
    lq = _mp_laws(lambda k: mpmath.mpf(2) ** k / mpmath.factorial(k), atoms)
    curve = from_log_pmfs(lp, lq)
    _check(curve, _exact(lp), _exact(lq))
    # the zero point: the largest ln P/Q (at the last atom), as the smallest double above it
    P, Q = _exact(lp), _exact(lq)
    with mpmath.workdps(50):
        top = mpmath.log(P[-1] / Q[-1])
        z = curve.epsilon(0.0)
        assert z >= top and math.nextafter(z, 0.0) < top
        near = float(top) * (1 - 1e-12)
    assert_matches(curve.log_delta_plus(near), _hockey(P, Q, near), what="near the zero point")
    assert curve.delta_plus(z) == 0.0


def test_laplace_vs_shifted_laplace_discretised():
    # the discrete Laplace (two-sided geometric) law on -K..K and its shift by one
    alpha, K = mpmath.mpf("0.6"), 60
    atoms = list(range(-K, K + 2))
    lp = _mp_laws(lambda k: alpha ** abs(k - 1) if k >= 1 - K else 0, atoms)
    lq = _mp_laws(lambda k: alpha ** abs(k) if k <= K else 0, atoms)
    curve = from_log_pmfs(lp, lq, support_start=-K)
    P, Q = _exact(lp), _exact(lq)
    _check(curve, P, Q, EPS + (-math.log(0.6) * (1 - 1e-9), 1e300))
    assert curve.log_pmfs().support_start == -K
    # the truncated pair differs only at its ends: P/Q = 1/alpha between them
    assert curve.epsilon(0.0) == math.inf        # Q(K + 1) = 0 < P(K + 1)


def test_agrees_with_counting():
    n, pi = 40, 0.3
    laws = statpriv.counting(n, pi).log_pmfs()
    assert laws.support_start == 0 and laws.log_rest_p == -math.inf
    ours = from_log_pmfs(laws.log_p, laws.log_q)
    with mpmath.workdps(50):
        p = mpmath.mpf(pi)
        b = [mpmath.binomial(n - 1, k) * p ** k * (1 - p) ** (n - 1 - k) for k in range(n)]
    P, Q = [mpmath.mpf(0)] + b, b + [mpmath.mpf(0)]
    _check(ours, P, Q, rel=1e-12)
    ref = statpriv.counting(n, pi)
    for eps in EPS:
        a, c = ours.delta(eps), ref.delta(eps)
        assert abs(a - c) <= 2e-12 * c + 1e-300


def test_non_monotone_ratio():
    rng = np.random.default_rng(7)
    raw_p, raw_q = rng.random(9), rng.random(9)
    raw_p[2] = 0.0                 # P vanishes at one atom, Q at another
    raw_q[5] = 0.0
    with np.errstate(divide="ignore"):
        lp = np.log(raw_p / raw_p.sum())
        lq = np.log(raw_q / raw_q.sum())
    curve = from_log_pmfs(lp, lq, support_start=5)
    _check(curve, _exact(lp), _exact(lq), EPS + (1e300,))
    assert curve.epsilon(0.0) == math.inf
    assert curve.epsilon(1.0) == 0.0
    laws = curve.log_pmfs()
    assert isinstance(laws, LogPmfs) and laws.support_start == 5
    assert np.array_equal(laws.log_p, lp) and np.array_equal(laws.log_q, lq)


def test_both_zero_atoms_and_point_masses():
    # atoms where both laws vanish are allowed (e.g. a law on even outcomes)
    lp = np.array([math.log(0.5), -math.inf, math.log(0.5), -math.inf, -math.inf])
    lq = np.array([math.log(0.25), -math.inf, math.log(0.25), -math.inf, math.log(0.5)])
    curve = from_log_pmfs(lp, lq)
    _check(curve, _exact(lp), _exact(lq), EPS + (1e300,))
    point = from_log_pmfs([0.0, -math.inf], [-math.inf, 0.0])
    assert point.delta(0.0) == 1.0 and point.delta(1e6) == 1.0 and point.epsilon(0.5) == math.inf


def test_normalisation_within_tolerance():
    lp = np.log(np.array([0.2, 0.3, 0.5]) * (1 + 5e-10))
    lq = np.log([0.5, 0.3, 0.2])
    curve = from_log_pmfs(lp, lq)
    _check(curve, _exact(lp), _exact(lq))
    assert curve.delta(-50.0) <= 1.0


def test_eps_inf_convention():
    # delta(+inf) is the limit: the mass of one law where the other is 0
    # (Q(1) = 0.5, P(1) = 0), as the iid binomial curve gives P(Q = 0)
    curve = from_log_pmfs([0.0, -math.inf], [math.log(0.5), math.log(0.5)])
    assert curve.delta(math.inf) == 0.5 and curve.delta(1e300) == 0.5
    assert curve.delta_plus(math.inf) == 0.0 and curve.delta_minus(math.inf) == 0.5
    with pytest.raises(ValueError, match="finite"):
        curve.delta(math.inf, precision="mp")


def test_mp_reference_and_epsilon():
    lp = np.log([0.1, 0.2, 0.3, 0.4])
    lq = np.log([0.4, 0.3, 0.2, 0.1])
    curve = from_log_pmfs(lp, lq)
    P, Q = _exact(lp), _exact(lq)
    with mpmath.workdps(50):
        assert abs(curve.delta(0.5, precision="mp") - _hockey(P, Q, 0.5)) < mpmath.mpf(10) ** -45
    for d in (0.5, 0.1, 1e-3):
        e = curve.epsilon(d)
        assert float(_hockey(P, Q, e)) <= d * (1 + 1e-12)
        if e > 0:
            assert float(_hockey(P, Q, e * (1 - 1e-9))) > d
    assert curve.epsilon(0.5) == 0.0          # delta(0) = total variation = 0.4


@pytest.mark.parametrize("log_p, log_q, match", [
    ([0.0, float("nan")], [0.0, -math.inf], "log_p must not contain NaN"),
    ([math.inf, -math.inf], [0.0, -math.inf], "log_p"),
    ([[0.0]], [[0.0]], "log_p must be 1-D"),
    ([0.0], [math.log(0.5), math.log(0.5)], "same length"),
    ([math.log(0.5), math.log(0.4)], [0.0, -math.inf], "log_p must be a log-pmf"),
    ([0.0, -math.inf], [math.log(0.7), math.log(0.7)], "log_q must be a log-pmf"),
    ([-math.inf, -math.inf], [0.0, -math.inf], "log_p has no mass"),
    ([], [], "log_p must hold at least one atom"),
])
def test_bad_laws(log_p, log_q, match):
    with pytest.raises(ValueError, match=match):
        from_log_pmfs(log_p, log_q)


@pytest.mark.parametrize("bad", [True, 1.5, "0", None])
def test_bad_support_start(bad):
    with pytest.raises(TypeError, match="support_start"):
        from_log_pmfs([0.0], [0.0], support_start=bad)


def test_log_pmfs_of_other_curves():
    laws = statpriv.counting(5, 0.4).log_pmfs()
    with mpmath.workdps(30):
        p = mpmath.mpf(0.4)
        for j in range(5):
            want = mpmath.binomial(4, j) * p ** j * (1 - p) ** (4 - j)
            assert abs(math.exp(laws.log_q[j]) / float(want) - 1) < 1e-14
            assert math.exp(laws.log_p[j + 1]) == pytest.approx(float(want), rel=1e-14)
    big = statpriv.counting(10**9, 0.3).log_pmfs()          # a window, the rest bounded
    assert big.support_start > 0 and len(big.log_p) < 10**7 and -math.inf < big.log_rest_p < -1000
    with pytest.raises(ValueError, match="no discrete laws"):
        statpriv.dp.laplace(1.0).log_pmfs()
    with pytest.raises(ValueError, match="no discrete laws"):
        statpriv.counting(10, 0.3, noise=statpriv.Laplace(1.0)).log_pmfs()


def test_log_pmfs_per_record_and_secret_sample():
    # per-record pi: S is Poisson-binomial; P(j) = S(j - 1), Q(j) = S(j)
    probs = [0.2, 0.5, 0.9]
    laws = statpriv.counting(None, probs).log_pmfs()
    with mpmath.workdps(30):
        s = [mpmath.mpf(1)]
        for p in probs:
            p = mpmath.mpf(p)
            s = [(s[k] if k < len(s) else 0) * (1 - p) + (s[k - 1] * p if k else 0)
                 for k in range(len(s) + 1)]
        want_q = dict(enumerate(s))
        for i, (a, b) in enumerate(zip(laws.log_p, laws.log_q)):
            j = laws.support_start + i
            for got, want in ((b, want_q.get(j, 0)), (a, want_q.get(j - 1, 0))):
                assert (got == -math.inf) if want == 0 else abs(math.exp(got) / float(want) - 1) < 1e-14
    # the secret sample's laws agree with from_log_pmfs on them
    curve = statpriv.secret_sample(30, 6, positives=10)
    laws = curve.log_pmfs()
    assert laws.log_rest_p == -math.inf
    again = from_log_pmfs(laws.log_p, laws.log_q, support_start=laws.support_start)
    for eps in (0.0, 0.2, 0.5):
        assert again.delta(eps) == pytest.approx(curve.delta(eps), rel=1e-12)
    with pytest.raises(ValueError, match="no discrete laws"):
        statpriv.counting(100, 0.3, sample_size=10).log_pmfs()


@pytest.mark.parametrize("scale", [1.0, 1 + 5e-10, 1 - 7e-10])
def test_near_the_zero_points(scale):
    # a non-monotone ratio, laws normalised only to the tolerance: relative
    # accuracy up to the float just below each zero point
    lp = np.log(np.array([0.3, 0.1, 0.25, 0.35]) * scale)
    lq = np.log(np.array([0.2, 0.3, 0.4, 0.1]))
    curve = from_log_pmfs(lp, lq)
    P, Q = _exact(lp), _exact(lq)
    for direction, (A, B) in (("plus", (P, Q)), ("minus", (Q, P))):
        log_delta = getattr(curve, f"log_delta_{direction}")
        with mpmath.workdps(50):
            top = max(mpmath.log(a / b) for a, b in zip(A, B))
        z = curve.epsilon(0.0, direction=direction)
        assert z >= top and math.nextafter(z, 0.0) < top
        for eps in (float(top) * (1 - 1e-6), float(top) * (1 - 1e-12), math.nextafter(z, 0.0)):
            assert_matches(log_delta(eps), _hockey(A, B, eps), what=f"{direction} at {eps!r}")
        assert log_delta(z) == -math.inf


def _random_pair(rng):
    size = int(rng.integers(1, 25))
    out = []
    for _ in range(2):
        logs = rng.normal(0.0, rng.choice([0.5, 5.0, 200.0]), size)   # masses down to e^-700
        logs[rng.random(size) < 0.15] = -math.inf
        if not np.isfinite(logs).any():
            logs[int(rng.integers(size))] = 0.0
        out.append(logs - np.logaddexp.reduce(logs))
    return out


def _check_random_laws(seed):
    rng = np.random.default_rng(1000 + seed)
    lp, lq = _random_pair(rng)
    curve = from_log_pmfs(lp, lq, support_start=int(rng.integers(-5, 5)))
    P, Q = _exact(lp), _exact(lq)
    for direction, (A, B) in (("plus", (P, Q)), ("minus", (Q, P))):
        log_delta = getattr(curve, f"log_delta_{direction}")
        with mpmath.workdps(50):
            ratios = [mpmath.log(a / b) for a, b in zip(A, B) if a > 0 and b > 0]
            top = max(ratios) if ratios else None
        eps_values = [float(e) for e in rng.uniform(-1.0, 5.0, 4)]
        if top is not None and top > 0:
            eps_values += [float(top) * (1 - 1e-3), float(top) * (1 - 1e-11)]
        for eps in eps_values:
            assert_matches(log_delta(eps), _hockey(A, B, eps),
                           what=f"seed {seed} {direction} eps={eps!r}")
        for d in (0.3, 1e-4):
            e = curve.epsilon(d, direction=direction)
            if math.isfinite(e):
                assert float(_hockey(A, B, e)) <= d * (1 + 1e-12)


@pytest.mark.parametrize("seed", range(12))
def test_random_laws_against_mpmath(seed):
    _check_random_laws(seed)


@pytest.mark.exhaustive
def test_random_laws_sweep():
    # ~1,500 random pairs, over 10,000 comparisons (about 10-20 s)
    for seed in range(12, 1500):
        _check_random_laws(seed)
