"""Accountant-grade composition: statpriv.Accountant, PrivacyCurve.compose, the
default grid's brackets against closed forms and mpmath sums, bad input."""
import math
import pickle

import mpmath
import numpy as np
import pytest

import statpriv
from independent_oracle import gaussian_delta_mp, geometric_noise_mp


def _gaussian_truth(sigma, k, eps):
    """delta(eps) of k Gaussian mechanisms of sigma: one of sigma / sqrt(k), in mpmath."""
    with mpmath.workdps(40):
        return gaussian_delta_mp(mpmath.mpf(sigma) / mpmath.sqrt(k), eps)


def _gaussian_log_slope(sigma, k, eps):
    """-d ln delta / d eps of k Gaussian mechanisms of sigma at eps, in mpmath:
    delta' = -e^eps Phi(-1/(2 s) - eps s) (s = sigma / sqrt(k))."""
    with mpmath.workdps(40):
        s, e = mpmath.mpf(sigma) / mpmath.sqrt(k), mpmath.mpf(eps)
        return mpmath.exp(e) * mpmath.ncdf(-1 / (2 * s) - e * s) / _gaussian_truth(sigma, k, e)


def _check_k_fold_gaussian(sigma, k):
    curve = statpriv.dp.gaussian(sigma).compose(k)
    s = sigma / math.sqrt(k)
    mu = 1.0 / s                       # the composed mechanism's privacy loss scale
    eps = [0.0, 0.5 * mu * mu, mu * mu / 2 + mu, mu * mu / 2 + 4 * mu]
    lower, upper = curve.delta_bounds(np.array(eps))
    for e, lo, hi in zip(eps, lower, upper):
        truth = _gaussian_truth(sigma, k, e)
        assert hi >= truth * (1 - 1e-12), (k, e, hi, truth)       # never below the truth
        assert lo <= truth * (1 + 1e-12), (k, e, lo, truth)       # lower never above it
        # the default grid aims at a bracket DEFAULT_EPSILON_ERROR (1e-5) wide in
        # eps, i.e. that times the slope of ln delta in delta: 1e-3 relative
        # unless the slope passes 100 (sigma = 100, k = 1: loss scale 0.01,
        # slope 443 at eps = 0.04, delta = 7.1e-8; the bracket is 1.46e-3
        # relative there, 3.3e-6 wide in eps)
        width = max(1e-3, float(_gaussian_log_slope(sigma, k, e))
                    * statpriv.accounting.composition.DEFAULT_EPSILON_ERROR)
        assert hi - lo <= width * truth, (k, e, lo, hi)
    for d in (1e-3, 1e-6, 1e-9):
        lo, hi = curve.epsilon_bounds(d)
        # the true delta at the upper eps is at most d, just below the lower eps above d
        assert _gaussian_truth(sigma, k, hi) <= d * (1 + 1e-12), (k, d)
        assert _gaussian_truth(sigma, k, math.nextafter(lo, -math.inf)) >= d * (1 - 1e-12)
        assert hi - lo <= 1e-3 * hi + 1e-12


@pytest.mark.parametrize("sigma, k", [(2.0, 1), (20.0, 1000)])
def test_k_fold_gaussian_is_bracketed_at_the_default_grid(sigma, k):
    _check_k_fold_gaussian(sigma, k)


@pytest.mark.exhaustive
@pytest.mark.parametrize("k", [1, 2, 3, 7, 10, 30, 100, 300, 1000, 3000, 10 ** 4])
@pytest.mark.parametrize("sigma", [0.5, 1.0, 5.0, 20.0, 100.0])
def test_k_fold_gaussian_sweep(sigma, k):
    _check_k_fold_gaussian(sigma * math.sqrt(k) / 3.0 if sigma < 1 else sigma, k)


def test_noisy_count_composed_twice_against_an_mpmath_double_sum():
    """counting(4, 0.3, noise=Geometric(0.5)) twice on the default grid: its bracket
    holds the hockey stick of the product laws summed in mpmath (noise tails beyond
    60 atoms weigh < 1e-18 of these deltas)."""
    curve = statpriv.compose(statpriv.counting(4, 0.3, noise=statpriv.Geometric(0.5)),
                             times=2)
    with mpmath.workdps(40):
        P, Q = geometric_noise_mp(4, 0.3, 0.5, 60)
        for e in (0.0, 0.4, 1.0):
            E = mpmath.exp(e)
            for d, (A, B) in (("plus", (P, Q)), ("minus", (Q, P))):
                truth = mpmath.fsum(max(a1 * a2 - E * b1 * b2, 0) for a1, b1 in zip(A, B)
                                    for a2, b2 in zip(A, B))
                lo, hi = curve.delta_bounds(e, direction=d)
                assert hi >= truth * (1 - 1e-12) and lo <= truth * (1 + 1e-12), (e, d)
                assert hi - lo <= 1e-3 * truth + 1e-290, (e, d, lo, hi)


def test_dp_sgd_one_line():
    lo, hi = statpriv.dp.gaussian(1.0, sampling_prob=0.1).compose(50).epsilon_bounds(1e-5)
    assert 0 < lo <= hi <= lo * (1 + 1e-3)
    assert statpriv.compose(statpriv.dp.gaussian(1.0, sampling_prob=0.1), times=50).epsilon(
        1e-5) == hi


@pytest.mark.exhaustive
@pytest.mark.parametrize("q", [0.01, 0.1, 0.5])
def test_dp_sgd_one_step_against_the_mixture(q):
    one = statpriv.dp.gaussian(1.0, sampling_prob=q).compose(1)
    for e, d in ((0.0, "plus"), (0.2, "plus"), (0.0, "minus"), (0.05, "minus")):
        truth = statpriv.oracle.dp_sampled_delta("gaussian", 1.0, q, e,
                                                 relation="add_remove", direction=d)
        lo, hi = one.delta_bounds(e, direction=d)
        assert hi >= truth * (1 - 1e-12) and lo <= truth * (1 + 1e-12), (e, d)


def test_accountant_is_compose_release_by_release():
    step = statpriv.dp.gaussian(4.0)
    acc = statpriv.Accountant(expected_releases=16)
    for _ in range(16):
        acc.compose(statpriv.dp.gaussian(4.0))       # equal calls share one grid
    assert len(acc.releases) == 1 and acc.releases[0][1] == 16
    direct = statpriv.compose(step, times=16)
    eps = np.array([0.0, 0.5, 1.0, 3.0])
    assert np.array_equal(acc.delta(eps), direct.delta(eps))
    assert acc.epsilon_bounds(1e-6) == direct.epsilon_bounds(1e-6)
    assert acc.bounds(delta=1e-6) == acc.epsilon_bounds(1e-6)
    assert acc.bounds(eps=1.0) == acc.delta_bounds(1.0)
    lo, hi = acc.delta_bounds(1.0)
    truth = _gaussian_truth(4.0, 16, 1.0)
    assert lo <= truth <= hi


def test_accountant_mix_pickles_and_restores():
    acc = statpriv.Accountant(expected_releases=10)
    acc.compose(statpriv.counting(30, 0.3), times=3)
    acc.compose(statpriv.dp.gaussian(5.0), times=4)
    before = acc.epsilon_bounds(1e-3)
    restored = pickle.loads(pickle.dumps(acc))
    assert restored.epsilon_bounds(1e-3) == before
    assert 0 < before[0] <= before[1] < math.inf
    restored.compose(statpriv.dp.gaussian(5.0))
    assert restored.releases[1][1] == 5
    assert restored.epsilon(1e-3) > before[1]
    # the mix is above each of its parts
    assert before[0] >= statpriv.compose(statpriv.dp.gaussian(5.0), times=4).epsilon(1e-3) \
        * (1 - 1e-3)


def test_accountant_and_compose_bad_input():
    g = statpriv.dp.gaussian(1.0)
    with pytest.raises(ValueError, match="relation must be one of"):
        statpriv.Accountant(relation="add-remove")
    with pytest.raises(ValueError, match="expected_releases"):
        statpriv.Accountant(expected_releases=0)
    for name, value in (("epsilon_error", 0.0), ("epsilon_error", -1.0), ("delta_error", 0.0),
                        ("delta_error", 0.5)):
        with pytest.raises(ValueError, match=name):
            statpriv.Accountant(**{name: value})
        with pytest.raises(ValueError, match=name):
            statpriv.compose(g, **{name: value})
    acc = statpriv.Accountant()
    with pytest.raises(ValueError, match="no release"):
        acc.epsilon(1e-6)
    for times in (0, -3, 10 ** 10):
        with pytest.raises(ValueError, match="times"):
            acc.compose(g, times=times)
        with pytest.raises(ValueError, match="times"):
            g.compose(times)
    with pytest.raises(TypeError, match="curve must be a PrivacyCurve"):
        acc.compose(0.5)
    # 10^9 mechanisms at most in all: nested compositions multiply their times,
    # an accountant's releases add up
    with pytest.raises(ValueError, match=r"times: the composition counts 1e\+18 mechanisms"):
        statpriv.compose(statpriv.compose(g, times=10 ** 9), times=10 ** 9)
    with pytest.raises(ValueError, match=r"times: 1,000,000,000 releases held, 1 more"):
        statpriv.Accountant().compose(g, times=10 ** 9).compose(g)
    with pytest.raises(ValueError, match=r"relation: .*'add_remove'.*replace_one"):
        acc.compose(statpriv.dp.gaussian(1.0, relation="replace_one"))
    with pytest.raises(ValueError, match="exactly one of eps= and delta="):
        acc.compose(g).bounds()
    # a labelled approximation has no privacy-loss distribution: refused by name
    lower = statpriv.k_anonymity(30, [0.2, 0.3, 0.1], 3, source=0, target=1).lower
    with pytest.raises(ValueError, match="cannot be composed"):
        statpriv.Accountant().compose(lower)


def _counted_transforms(monkeypatch):
    """The list the forward FFTs of parts (fourier.Spectrum._transform) append to."""
    from statpriv.accounting.composition import fourier
    transforms = []
    original = fourier.Spectrum._transform

    def counted(self, grid):
        transforms.append(grid)
        return original(self, grid)
    monkeypatch.setattr(fourier.Spectrum, "_transform", counted)
    return transforms


def test_one_more_release_reuses_the_transforms_and_answers_as_restored(monkeypatch):
    transforms = _counted_transforms(monkeypatch)
    acc = statpriv.Accountant(expected_releases=1000)
    acc.compose(statpriv.dp.gaussian(20.0), times=999)
    before = acc.epsilon_bounds(1e-9)
    transforms.clear()
    acc.compose(statpriv.dp.gaussian(20.0))
    after = acc.epsilon_bounds(1e-9)
    # the common path: the same tilt and FFT size, the part's transform kept
    assert transforms == []
    assert after[0] > before[1]
    restored = pickle.loads(pickle.dumps(acc))
    assert restored.epsilon_bounds(1e-9) == after
    fresh = statpriv.Accountant(expected_releases=1000)
    fresh.compose(statpriv.dp.gaussian(20.0), times=1000)
    assert fresh.epsilon_bounds(1e-9) == after
    truth = statpriv.dp.gaussian(20.0 / math.sqrt(1000)).epsilon(1e-9)
    assert after[0] <= truth <= after[1]


def test_accountant_grid_is_composes_for_a_sampled_gaussian(monkeypatch):
    # the spread from a sampled Gaussian's tails is ~100x its bulk's: the
    # accountant's grid, like compose's, is refined from the spread measured
    # on the grid (before, 10^4 releases gave the bracket (0.7386, 0.9479))
    step = statpriv.dp.gaussian(0.8, sampling_prob=0.001)
    acc = statpriv.Accountant()
    acc.compose(statpriv.dp.gaussian(0.8, sampling_prob=0.001), times=999)
    acc.epsilon_bounds(1e-5)
    transforms = _counted_transforms(monkeypatch)
    acc.compose(statpriv.dp.gaussian(0.8, sampling_prob=0.001))
    lo, hi = acc.epsilon_bounds(1e-5)
    assert transforms == []          # the grid kept: no part transformed again
    c_lo, c_hi = statpriv.compose(step, times=1000).epsilon_bounds(1e-5)
    assert c_hi - c_lo < 0.02 * c_hi
    assert hi - lo <= 2.0 * (c_hi - c_lo)
    assert lo <= c_hi and c_lo <= hi                   # both contain the truth
    assert pickle.loads(pickle.dumps(acc)).epsilon_bounds(1e-5) == (lo, hi)


@pytest.mark.parametrize("k", [1000, 10 ** 4])
def test_accountant_and_compose_contain_the_k_fold_gaussian(k):
    # k x dp.gaussian(sigma) is dp.gaussian(sigma / sqrt(k)); the accountant
    # sized for fewer releases than it gets re-chooses its grid
    acc = statpriv.Accountant(expected_releases=100)
    acc.compose(statpriv.dp.gaussian(30.0), times=k // 2)
    acc.epsilon_bounds(1e-9)
    acc.compose(statpriv.dp.gaussian(30.0), times=k - k // 2)
    lo, hi = acc.epsilon_bounds(1e-9)
    # (the same per-part tail: past expected_releases their sum, 2.5e-14 at
    # 10^4, is what widens both brackets at delta 1e-9)
    c_lo, c_hi = statpriv.compose(statpriv.dp.gaussian(30.0), times=k,
                                  tail_mass_truncation=acc.tail).epsilon_bounds(1e-9)
    truth = statpriv.dp.gaussian(30.0 / math.sqrt(k)).epsilon(1e-9)
    assert lo <= truth <= hi and c_lo <= truth <= c_hi
    assert hi - lo <= 2.0 * (c_hi - c_lo)
