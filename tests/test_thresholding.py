"""statpriv.thresholded: thresholded counts against active and passive attackers.

Reference values: the mpmath oracle (statpriv.oracle.thresholded_delta, every
output enumerated from the definition), stored in
tests/data/reference/thresholding.json by tools/precompute_reference.py, a few
live; Example 7 of Desfontaines, Mohammadi, Krahmer & Basin, "Differential
Privacy with Partial Knowledge"; the definition of the active / passive
attacker through curves without background knowledge; Thm 4's bound.
"""
import math

import mpmath
import numpy as np
import pytest

import statpriv
from statpriv import ParameterTypeError, oracle
from statpriv.papers.thresholding import theorem4_bound
from helpers import assert_matches, check_curve, zip_equal

EPS = [-0.5, 0.0, 0.05, 0.3, 1.0, 3.0]
# per-record probabilities of 24 other records (0 and 1 included: they move the count)
PROBS = [0.31, 0.0, 0.82, 0.15, 1.0, 0.47, 0.05, 0.66, 0.23, 0.9, 0.0, 0.38, 0.71, 0.12, 1.0,
         0.55, 0.27, 0.08, 0.93, 0.44, 0.61, 0.19, 0.35, 0.5]
# Bin(2999, 1/2), 3000 atoms (beyond the 2048 the refinements once stopped at):
# eps0 = ln F(1397)/F(1396) (the b = 1 bottom cell, 0.14435417353874910...),
# the floats around it and eps0 (1 - 1e-9); delta_minus there is ~1e-21
# and needs the log ratio to ~1e-35.
NEAR_ZERO = [0.0, 0.14435417339439494, 0.14435417353874908, 0.1443541735387491,
             0.14435417353874913]
# (name, (n, pi, threshold), kwargs, eps grid): the stored oracle values
CASES = [
    ("iid known=8", (40, 0.2, 10), {"known": 8}, EPS),
    ("iid known=0", (200, 0.01, 6), {}, EPS),
    ("tiny pi", (60, 1e-5, 3), {"known": 10}, EPS),
    ("per-record", (None, PROBS, 9), {"known": 6}, EPS),
    ("example 7", (1000, 1e-7, 100), {"known": 100}, [0.0, 1.0, 10.0]),
    ("3000 atoms near eps0", (3001, 0.5, 1400), {"known": 1}, NEAR_ZERO),
]


@pytest.mark.parametrize("attacker", ["active", "passive"])
@pytest.mark.parametrize("name, args, kwargs, eps", CASES, ids=[c[0] for c in CASES])
def test_against_stored_oracle(name, args, kwargs, eps, attacker):
    curve = statpriv.thresholded(*args, **kwargs, attacker=attacker)
    check_curve(curve, ("thresholded_delta", args, dict(kwargs, attacker=attacker,
                                                         max_terms=1e8)),
                eps=eps, label=f"{name} {attacker}")


def test_live_oracle_small():
    probs = [0.4, 1.0, 0.0, 0.7, 0.2, 0.9, 0.05, 0.5]
    for attacker in ("active", "passive"):
        curve = statpriv.thresholded(None, probs, 4, known=3, attacker=attacker)
        eps = [-0.2, 0.0, 0.4, 2.0]
        for direction in ("plus", "minus"):
            ours = getattr(curve, f"log_delta_{direction}")(eps)
            refs = oracle.thresholded_delta(None, probs, 4, eps, known=3, attacker=attacker,
                                            direction=direction)
            for o, r in zip_equal(ours, refs):
                assert_matches(float(o), r, what=f"{attacker} {direction}")
    curve = statpriv.thresholded(12, 0.3, 5, known=4, attacker="active")
    assert float(curve.delta(0.3, precision="mp")) == pytest.approx(curve.delta(0.3), rel=1e-12)


def test_example_7():
    """1000 voters, yes with probability 1e-7, released from 100 yes votes on,
    100 votes known: not private against an active attacker (delta near 1 at
    every eps), private against a passive one."""
    active = statpriv.thresholded(1000, 1e-7, 100, known=100, attacker="active")
    passive = statpriv.thresholded(1000, 1e-7, 100, known=100, attacker="passive")
    eps = [0.0, 0.1, 1.0, 10.0, 100.0]
    assert np.all(active.delta(eps) > 0.9999)
    # the planted 100 yes votes leave a plain count of the 899 unknown others:
    # delta_minus = P[all of them vote no] at every eps >= 0
    assert np.allclose(active.delta_minus(eps), (1 - 1e-7) ** 899, rtol=1e-13, atol=0)
    assert active.epsilon(0.5) == math.inf
    assert np.all(passive.log_delta(eps) < -1276.0)
    assert passive.epsilon(1e-300) == 0.0


def test_active_and_passive_from_their_definitions():
    """active = max over b of the no-knowledge curves with threshold tau - b on the
    n-1-known unknown others; passive = their average under Bin(known, pi)."""
    n, pi, tau, known = 50, 0.25, 12, 7
    active = statpriv.thresholded(n, pi, tau, known=known, attacker="active")
    passive = statpriv.thresholded(n, pi, tau, known=known, attacker="passive")
    eps = np.array([-0.3, 0.0, 0.2, 0.7, 2.0])
    per_b = [statpriv.thresholded(n - known, pi, max(tau - b, 0)) for b in range(known + 1)]
    weights = [math.comb(known, b) * pi ** b * (1 - pi) ** (known - b) for b in range(known + 1)]
    for direction in ("plus", "minus"):
        values = np.array([getattr(c, f"delta_{direction}")(eps) for c in per_b])
        np.testing.assert_allclose(getattr(active, f"delta_{direction}")(eps), values.max(axis=0),
                                   rtol=1e-12)
        np.testing.assert_allclose(getattr(passive, f"delta_{direction}")(eps),
                                   np.dot(weights, values), rtol=1e-12)
    assert np.all(active.delta(eps) >= passive.delta(eps))


def test_no_knowledge_and_zero_threshold():
    # known = 0: both attackers coincide; threshold 0: a plain count
    a = statpriv.thresholded(300, 0.02, 9, attacker="active")
    p = statpriv.thresholded(300, 0.02, 9, attacker="passive")
    eps = [0.0, 0.5, 3.0]
    np.testing.assert_array_equal(a.log_delta(eps), p.log_delta(eps))
    plain = statpriv.counting(300 - 20, 0.3)
    for attacker in ("active", "passive"):
        thr = statpriv.thresholded(300, 0.3, 0, known=20, attacker=attacker)
        np.testing.assert_allclose(thr.log_delta(eps), plain.log_delta(eps), rtol=1e-13)
    # the threshold out of reach: delta = 0 at every eps >= 0
    far = statpriv.thresholded(10, 0.5, 12)
    assert far.delta(0.0) == 0.0 and far.epsilon(0.0) == 0.0


def test_per_record_known_entries_are_the_first():
    """With an array pi the first ``known`` entries are the known records."""
    probs = [1.0, 1.0, 0.3, 0.6, 0.2]
    a = statpriv.thresholded(None, probs, 3, known=2, attacker="passive")
    b = statpriv.thresholded(None, probs[2:], 1)     # the two known ones lower tau by 2
    np.testing.assert_allclose(a.log_delta([0.0, 0.4]), b.log_delta([0.0, 0.4]), rtol=1e-13)


def test_theorem_4_bounds_the_exact_curve():
    """Thm 4 (re-derived from its proof): delta(eps_T4) <= delta_T4 on the exact curve."""
    checked = 0
    for n, p, tau in [(1000, 0.001, 3), (1000, 0.003, 8), (500, 0.02, 25), (10**5, 2e-5, 6),
                      (200, 0.05, 30)]:
        eps4, delta4 = theorem4_bound(n, p, tau)
        assert math.isfinite(eps4)
        curve = statpriv.thresholded(n, p, tau)
        assert curve.delta(eps4) <= delta4
        assert curve.delta(0.0) <= delta4                   # delta(0) = z(tau-1) < delta_T4
        checked += 1
    assert checked == 5
    # below the expected count the theorem says nothing
    assert theorem4_bound(1000, 0.01, 5) == (math.inf, 1.0)


def test_figure_4_data():
    from statpriv.papers.thresholding import thresholding_regime_data
    data = thresholding_regime_data(n=300, expected=(2.0,), lambdas=[2.0, 4.0],
                                    curve_lambdas=(3.0,))
    row = data["rows"][2.0]
    assert list(row["tau"]) == [4.0, 8.0]
    assert np.all(row["exact_delta_at_eps_t4"] <= row["delta_t4"])
    assert np.all(row["exact_delta_at_0"] <= row["delta_t4"])
    # delta(0) is the total variation z(tau - 1), tau - 1 ones among the 299 others
    p = 2.0 / 299
    tv = [math.comb(299, t - 1) * p ** (t - 1) * (1 - p) ** (300 - t) for t in (4, 8)]
    np.testing.assert_allclose(row["exact_delta_at_0"], tv, rtol=1e-12)


def test_epsilon_contract_live():
    curve = statpriv.thresholded(30, 0.2, 8, known=4, attacker="active")
    for d in (1e-2, 1e-4):
        e = curve.epsilon(d)
        assert float(curve.delta(e, precision="mp")) <= d * (1 + 1e-12)
        assert float(curve.delta(math.nextafter(e, 0.0), precision="mp")) > d * (1 - 1e-9)
    assert curve.epsilon(1.0) == 0.0


def test_eps_infinity_is_the_limit():
    # the all-ones outcome only the target's one reaches is released; the
    # all-zeros outcome only its zero reaches is suppressed (threshold 2)
    curve = statpriv.thresholded(6, 0.5, 2)
    assert curve.delta_plus(math.inf) == pytest.approx(0.5 ** 5, rel=1e-14)
    assert curve.delta_minus(math.inf) == 0.0
    plain = statpriv.thresholded(6, 0.5, 0)
    assert plain.delta_minus(math.inf) == pytest.approx(0.5 ** 5, rel=1e-14)


@pytest.mark.parametrize("kwargs, match", [
    (dict(n=10, pi=0.3, threshold=-1), "threshold"),
    (dict(n=10, pi=0.3, threshold=2, known=10), "known"),
    (dict(n=10, pi=0.3, threshold=2, known=-1), "known"),
    (dict(n=10, pi=1.5, threshold=2), "pi"),
    (dict(n=10, pi=0.3, threshold=2.5), "threshold"),
    (dict(n=10, pi=[0.3, 0.2], threshold=2), "pi"),
    (dict(n=None, pi=0.3, threshold=2), "n"),
    (dict(n=0, pi=0.3, threshold=2), "n"),
    (dict(n=10, pi=0.3, threshold=2, attacker="lazy"), "attacker"),
])
def test_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        statpriv.thresholded(**kwargs)


def test_bad_types():
    with pytest.raises(ParameterTypeError):
        statpriv.thresholded(10, 0.3, True)
    with pytest.raises(ParameterTypeError):
        statpriv.thresholded(10, "0.3", 2)


@pytest.mark.exhaustive
def test_random_small_cases_against_live_oracle():
    rng = np.random.default_rng(2026)
    for _ in range(40):
        n = int(rng.integers(2, 40))
        known = int(rng.integers(0, n))
        tau = int(rng.integers(0, n + 2))
        if rng.random() < 0.5:
            pi = float(rng.choice([0.0, 1.0, 1e-6, rng.random()]))
        else:
            pi = rng.choice([0.0, 1.0, 0.5, 1e-4, 0.9], size=n - 1) * (rng.random(n - 1) < 0.3) \
                + rng.random(n - 1) * (rng.random(n - 1) >= 0.3)
            pi = np.clip(pi, 0.0, 1.0).tolist()
        eps = [float(e) for e in rng.choice([-1.0, -0.1, 0.0, 0.01, 0.2, 1.0, 4.0], size=3)]
        for attacker in ("active", "passive"):
            curve = statpriv.thresholded(n, pi, tau, known=known, attacker=attacker)
            for direction in ("plus", "minus"):
                ours = getattr(curve, f"log_delta_{direction}")(eps)
                refs = oracle.thresholded_delta(n, pi, tau, eps, known=known, attacker=attacker,
                                                direction=direction)
                for o, r in zip_equal(ours, refs):
                    assert_matches(float(o), r, what=f"n={n} pi={pi} tau={tau} known={known} "
                                                     f"{attacker} {direction}")


# Near a zero point P - e^eps Q cancels: the cells' log ratios carry low parts
# (found by the differential test; truth from the independent mpmath oracle).
_NEAR_ZERO = [
    ((2, 0.0024051543880138026, 2, 0), "minus", 0.00240805141796399),
    ((25, 0.49715569152445194, 8, 1), "minus", 1.1732788551859517),
    ((2, [1e-300], 2, 0), "minus", 9e-301),
]


@pytest.mark.parametrize("args, direction, eps", _NEAR_ZERO)
def test_near_zero_point_cancellation(args, direction, eps):
    import independent_oracle as O
    n, pi, tau, known = args
    curve = statpriv.thresholded(None if isinstance(pi, list) else n, pi, tau, known=known,
                                 attacker="active")
    ours = getattr(curve, f"log_delta_{direction}")(eps)
    truth = O.thresholded(n, pi, tau, known, "active").delta(eps, direction)
    err = math.expm1(float(mpmath.mpf(ours) - mpmath.log(truth)))
    assert abs(err) <= 1e-12


def test_exact_zero_point():
    # ln F(55)/F(54) of Bin(55, 1/2) = -ln(1 - 2^-55) is just above 2^-55
    curve = statpriv.thresholded(57, 0.5, 57, known=1, attacker="active")
    assert curve.epsilon(0.0, direction="minus") == math.nextafter(2.0 ** -55, 1.0)


@pytest.mark.parametrize("attacker", ["passive", "active"])
def test_outward_sums_match_the_full_sweep(monkeypatch, attacker):
    """The queries' sums from the threshold cells outward (rest bounded and
    added once below 2^-60 of the sum) against the full sweep of the window
    (csrc/thresholding.c), on a windowed law (the early stops do apply), at
    eps across the curve, its zero points and their neighbours: the same
    delta to rounding, never below it by more than rounding."""
    from statpriv import thresholding as T
    from statpriv.thresholding import _thresholding as core

    def curve(fast):
        monkeypatch.setattr(T, "_thr", type("M", (), {
            "ThresholdCore": staticmethod(lambda *a, **k: core.ThresholdCore(*a, fast=fast, **k)),
            "thr_refine": staticmethod(core.thr_refine),
            "binomial_log_ratios": staticmethod(core.binomial_log_ratios)}))
        c = statpriv.thresholded(20000, 0.3, 6050, known=400, attacker=attacker)
        assert c._core.fast == fast
        return c

    fast, full = curve(True), curve(False)
    eps = [-0.1, -1e-3, 0.0, 1e-6, 1e-3, 0.01, 0.03, 0.1, 0.5, math.inf]
    for direction in ("plus", "minus"):
        z = full.epsilon(0.0, direction=direction)
        if 0 < z < math.inf:
            eps += [z, float(np.nextafter(z, 0)), z * (1 - 1e-12)]
    for name in ("log_delta_plus", "log_delta_minus"):
        a, b = getattr(fast, name)(eps), getattr(full, name)(eps)
        assert np.array_equal(np.isneginf(a), np.isneginf(b))
        ok = np.isfinite(b)
        assert np.all(np.abs(a[ok] - b[ok]) <= 1e-13 * np.maximum(1.0, np.abs(b[ok]))), name


def _exact_long_double(x):
    """A numpy long double as an exact mpmath number."""
    mant, exp = np.frexp(x)
    return mpmath.mpf(int(mant * 2**64)) * mpmath.mpf(2) ** (int(exp) - 64)


@pytest.mark.parametrize("N, pi, center", [(10**8 - 1, 0.3, 3 * 10**7),
                                           (5 * 10**9, 0.5, 25 * 10**8 + 7 * 10**4)])
def test_log_ratio_recurrence_against_mpmath(N, pi, center):
    """Far from 0 and N the refinement takes ln z(k-1)/z(k) by its recurrence
    in k between exact values every 64 atoms (csrc/thresholding.c): lr + lr_lo
    stays within ~1e-37 of the 60-digit truth at every atom, the last ones
    before an exact value included; lr matches the numpy expression bit for bit."""
    from statpriv.thresholding import _thresholding as core
    first, last = center - 1000, center + 1000
    lr = core.binomial_log_ratios(N, pi, first, last)
    ld = np.longdouble
    k = np.arange(first + 1, last + 1, dtype=ld)
    numpy_lr = np.log(k) + np.log1p(-ld(pi)) - np.log(ld(N) - k + 1) - np.log(ld(pi))
    assert np.array_equal(lr[1:-1], numpy_lr) and lr[0] == -np.inf and lr[-1] == np.inf
    lr_lo, _, _ = core.thr_refine(lr, first, np.array([center], dtype=np.int64), N=float(N),
                                  pi=pi)
    with mpmath.workdps(60):
        p = mpmath.mpf(pi)
        for i in list(range(1, 200)) + list(range(1900, 2001)):
            kk = first + i
            truth = mpmath.log(kk * (1 - p) / ((N - kk + 1) * p))
            got = _exact_long_double(lr[i]) + _exact_long_double(lr_lo[i])
            assert abs(got - truth) < 2e-37, (i, float(got - truth))
