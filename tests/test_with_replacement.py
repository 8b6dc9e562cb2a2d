"""counting(n, pi, sample_size=m, sampling="with_replacement"): m uniform draws
with replacement from the n records, a record counted once per draw.

Three references, none of them the fast path's formula P = E Bin(m, (A+1)/n):
- ``_enumerated``: the definition itself, in exact rationals, for tiny n and m:
  every bit vector of the n - 1 others and every sequence of m draws;
- the independent oracle (tests/independent_oracle.py): the target's copies
  T ~ Bin(m, 1/n) and the other draws Bin(m - t, a/(n-1)) given A = a;
- statpriv's own mpmath oracle (``precision="mp"``).
"""
import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import statpriv
import independent_oracle as O
from statpriv.counting import with_replacement

REL = 1e-12
EPS = (0.0, 1e-3, 0.05, 0.3, 1.0, 3.0, 12.0)


def _curve(n, pi, m, **kwargs):
    return statpriv.counting(n, pi, sample_size=m, sampling="with_replacement", **kwargs)


def _enumerated(n, pi, m):
    """(P, Q) as exact Fractions on 0..m, from the definition: the target is
    record 0 with bit x; the others' bits b_1..b_{n-1} iid Bernoulli(pi); m draws
    i_1..i_m uniform on the n records; the release is sum_k bit(i_k)."""
    p = Fraction(pi)
    laws = []
    for x in (1, 0):
        law = [Fraction(0)] * (m + 1)
        for bits in itertools.product((0, 1), repeat=n - 1):
            weight = Fraction(1)
            for b in bits:
                weight *= p if b else 1 - p
            if weight == 0:
                continue
            record = (x,) + bits
            for draws in itertools.product(range(n), repeat=m):
                law[sum(record[i] for i in draws)] += weight / n ** m
        laws.append(law)
    return laws


def _hockey(P, Q, eps):
    """sum_c (P(c) - e^eps Q(c))_+ at 50 digits (P, Q exact Fractions)."""
    with mpmath.workdps(50):
        e = mpmath.exp(mpmath.mpf(eps))
        return mpmath.fsum(max(_mp(a) - e * _mp(b), 0) for a, b in zip(P, Q))


def _mp(fraction):
    return mpmath.mpf(fraction.numerator) / fraction.denominator


def _close(ours, truth, rel=REL):
    truth = float(truth)
    if truth == 0.0:
        return ours == 0.0
    return abs(ours / truth - 1.0) <= rel


@pytest.mark.parametrize("n, pi, m", [
    (1, 0.3, 1), (1, 0.5, 3), (2, 0.5, 1), (2, 0.25, 3), (3, 0.3, 2), (3, 0.7, 4),
    (4, 0.1, 3), (2, 0.0, 2), (3, 1.0, 3), (3, 1e-9, 2), (4, 1.0 - 2.0 ** -40, 2)])
def test_definition_by_enumeration(n, pi, m):
    P, Q = _enumerated(n, pi, m)
    assert sum(P) == 1 and sum(Q) == 1
    # statpriv's mpmath oracle holds the same laws
    with mpmath.workdps(50):
        oP, oQ = statpriv.oracle.counting_pmfs(n, pi, sample_size=m,
                                               sampling="with_replacement")
        for a, b in zip(P + Q, list(oP) + list(oQ)):
            assert abs(_mp(a) - b) <= mpmath.mpf(10) ** -45
    curve = _curve(n, pi, m)
    for eps in EPS:
        assert _close(curve.delta_plus(eps), _hockey(P, Q, eps)), (eps, "plus")
        assert _close(curve.delta_minus(eps), _hockey(Q, P, eps)), (eps, "minus")


# (the two largest, 2-4 s of live mpmath each, run with -m exhaustive)
CASES = [pytest.param(200, 0.3, 30, marks=pytest.mark.exhaustive),
         pytest.param(30, 0.5, 40, marks=pytest.mark.exhaustive), (12, 1e-12, 5),
         (12, 1 - 1e-12, 5), (2, 0.5, 9), (200, 0.02, 1), (5, 1e-300, 3), (40, 0.0, 7),
         (40, 1.0, 7)]


@pytest.mark.parametrize("n, pi, m", CASES)
def test_against_the_mpmath_oracles(n, pi, m):
    curve = _curve(n, pi, m)
    eps = list(EPS)
    ours_plus = [curve.delta_plus(e) for e in eps]
    ours_minus = [curve.delta_minus(e) for e in eps]
    mp_plus = curve.delta_plus(eps, precision="mp")
    mp_minus = curve.delta_minus(eps, precision="mp")
    for i, e in enumerate(eps):
        assert _close(ours_plus[i], mp_plus[i]), (e, ours_plus[i], mp_plus[i])
        assert _close(ours_minus[i], mp_minus[i]), (e, ours_minus[i], mp_minus[i])
    if n * (m + 1) ** 2 <= 60_000:                  # the independent oracle's formula
        truth = O.with_replacement(n, pi, m).deltas(eps)
        for i, (tp, tm) in enumerate(truth):
            assert _close(ours_plus[i], tp) and _close(ours_minus[i], tm), eps[i]


def test_zero_points_are_the_extreme_ratios():
    # P/Q is non-decreasing in c: delta_plus vanishes from ln P(m)/Q(m) on,
    # delta_minus from ln Q(0)/P(0); epsilon(0) is the smallest float at or above
    n, pi, m = 4, 0.35, 5
    P, Q = _enumerated(n, pi, m)
    ratios = [a / b for a, b in zip(P, Q)]
    assert ratios == sorted(ratios)
    with mpmath.workdps(50):
        top = mpmath.log(_mp(P[m]) / _mp(Q[m]))
        bottom = mpmath.log(_mp(Q[0]) / _mp(P[0]))
    curve = _curve(n, pi, m)
    assert curve.epsilon(0.0) == O.smallest_float_at_least(max(top, bottom))
    below = math.nextafter(float(top), 0.0)
    assert curve.delta_plus(below) > 0.0
    assert curve.delta_plus(O.smallest_float_at_least(top)) == 0.0


def test_tiny_deltas_in_log_space():
    # far below the double range (the top atom P(400) ~ 20^-400): log_delta
    # against the mpmath oracle
    curve = _curve(20, 1e-30, 400)
    eps = curve.epsilon(0.0) * (1 - 1e-4)
    ours = curve.log_delta(eps)
    truth = mpmath.log(curve.delta(eps, precision="mp"))
    assert truth < -750
    assert abs(ours - float(truth)) <= 1e-10 * abs(float(truth))


@pytest.mark.parametrize("n, pi, m", [(50, 0.3, 20), (3, 0.5, 7), (1, 0.2, 4), (500, 0.9, 40)])
def test_properties(n, pi, m):
    curve = _curve(n, pi, m)
    eps = np.concatenate([[0.0], np.geomspace(1e-4, 30.0, 40)])
    for direction in ("plus", "minus"):
        d = np.array([getattr(curve, f"delta_{direction}")(e) for e in eps])
        assert np.all((d >= 0.0) & (d <= 1.0))
        assert np.all(np.diff(d) <= 1e-15 * d[:-1])
    P, Q = _enumerated(n, pi, m) if n <= 3 else (None, None)
    if P is not None:
        tv = sum(abs(a - b) for a, b in zip(P, Q)) / 2
        assert _close(curve.delta(0.0), tv)
    assert curve.delta_plus(0.0) == pytest.approx(curve.delta_minus(0.0), rel=1e-12)


def test_symmetric_at_half():
    # flipping every bit maps P to Q reflected (c -> m - c)
    curve = _curve(9, 0.5, 13)
    for e in EPS:
        assert curve.delta_plus(e) == pytest.approx(curve.delta_minus(e), rel=1e-13, abs=0)


def test_n_one_is_the_all_or_nothing_count():
    # the only record is drawn m times: the count is m x, the laws do not overlap
    curve = _curve(1, 0.5, 3)
    assert curve.delta(0.0) == 1.0 and curve.delta(50.0) == 1.0


def test_windowed_others_count_never_below(monkeypatch):
    # a window of the others' count (forced here by lowering the full-support
    # budget) bounds the mass left out and adds it: never below the full sum
    n, pi, m = 2000, 0.3, 30
    full = _curve(n, pi, m)
    monkeypatch.setattr(with_replacement, "FULL_CELLS", 1000)
    monkeypatch.setattr(with_replacement, "_WINDOW_DROP", 60.0)
    windowed = _curve(n, pi, m)
    for e in (0.0, 0.1, 0.5, 1.0, 2.0):
        w, f = windowed.delta(e), full.delta(e)
        assert w >= f
        assert w <= f * (1 + 1e-12) + 1e-20
    # and the window did cut: more than 1e-30 of the mass is bounded, not summed
    assert windowed.log_delta(30.0) > -200.0


def test_gaussian_noise_against_the_oracle():
    curve = _curve(20, 0.3, 8, noise=statpriv.Gaussian(1.5))
    for e in (0.0, 0.3, 1.5):
        assert _close(curve.delta(e), curve.delta(e, precision="mp"), 1e-10)


def test_refusals():
    with pytest.raises(ValueError, match="sample_size"):
        statpriv.counting(10, 0.3, sampling="with_replacement")
    with pytest.raises(ValueError, match="iid"):
        statpriv.counting(None, [0.1, 0.2], sample_size=3, sampling="with_replacement")
    for noise in (statpriv.Laplace(1.0), statpriv.Geometric(0.5)):
        with pytest.raises(ValueError, match="Gaussian"):
            _curve(10, 0.3, 3, noise=noise)
    with pytest.raises(ValueError, match="sample_size.*MAX_CELLS|MAX_CELLS.*sample_size"):
        _curve(10 ** 9, 0.3, 10 ** 5)
    with pytest.raises(ValueError, match="sample_size"):
        _curve(10, 0.3, 0)


def test_sample_rate_rounds_to_draws():
    a = statpriv.counting(100, 0.3, sample_rate=0.1, sampling="with_replacement")
    b = _curve(100, 0.3, 10)
    assert a.delta(0.2) == b.delta(0.2)


def test_differential_slice():
    # two random curves of the differential test (edges drawn on purpose), every
    # check: values, zero points, epsilon
    import differential
    results = differential.run(("with_replacement",), 2, seed=20261129, zero_point=True,
                               epsilon=True)
    assert differential.report(results, max_lines=40) == 0
    assert sum(r.comparisons for r in results.values()) >= 50


@pytest.mark.exhaustive
@pytest.mark.first
def test_differential_sweep():
    # 25 curves beside the exhaustive differential test's 25 (seed 1)
    import differential
    results = differential.run(("with_replacement",), 25, seed=3, zero_point=True,
                               epsilon=True)
    failures = differential.report(results, max_lines=40)
    assert failures == 0


@pytest.mark.parametrize("n, pi, m", [(1000, 0.3, 100), (200, 0.1, 300), (20, 1e-30, 400),
                                      (3, 1e-9, 2)])
def test_log_ratio_error_bound_holds(n, pi, m, monkeypatch):
    # the extended-precision ln P/Q is within the error bound handed to the
    # refinement wherever the mpmath value was taken (low part = its error)
    from statpriv.laws import refine
    seen = {}
    original = refine.refine_log_ratio

    def spy(lp, lq, lr, err, exact):
        seen["lo"], seen["err"] = original(lp, lq, lr, err, exact), err
        return seen["lo"]

    monkeypatch.setattr(refine, "refine_log_ratio", spy)
    with_replacement._with_replacement_laws(n, pi, m)
    lo = np.abs(seen["lo"].astype(np.float64))
    assert np.count_nonzero(lo) >= 2
    assert np.all(lo <= 10.0 * seen["err"])          # err is passed at a tenth
