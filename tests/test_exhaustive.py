"""Long sweeps (pytest -m exhaustive; minutes).  Run before a release; CI
runs the representative grids in the other files.

Two truths, each independent of the float kernels under test: the mpmath
brute force (statpriv.oracle at 50 digits, or tests/independent_oracle.py,
which shares no code with statpriv) and the certified Arb interval
(curve.log_delta_interval, statpriv/oracle/arb.py: a proof).  Where the mpmath
brute force takes seconds to minutes per curve (n = 20000, the noisy counts at
n = 1000-2000, sampling 4999 of 5000, 800 per-record probabilities, n = 1e9)
the Arb interval computed live checks every eps (about a second), and mpmath
checks a deterministic sample of them: every point an interval leaves
undecided (its lower end 0 beyond a zero point) and the cases listed per test."""
import numpy as np
import pytest

import independent_oracle
import statpriv
from helpers import (EPS, NOISY_REL, assert_matches, assert_within_certified, check_certified_live,
                     check_curve, check_independent, live_certified, pins_delta, zip_equal)
from independent_oracle import windowed_delta_plus

pytestmark = pytest.mark.exhaustive

PIS = [1e-9, 1e-4, 0.01, 0.1, 0.3, 0.5, 0.7, 0.99, 1 - 1e-9]
IID_EPS = EPS + [1e-8, 0.03, 0.3, 2.0, 12.0, -3.0]


@pytest.mark.parametrize("n", [3, 7, 31, 1000])
@pytest.mark.parametrize("pi", PIS)
def test_iid_brute_force(n, pi):
    check_curve(statpriv.counting(n, pi), ("counting_delta", (n, pi), {}), eps=IID_EPS,
                label=f"n={n} pi={pi}")


@pytest.mark.parametrize("pi", PIS)
def test_iid_certified_n_20000(pi):
    # n = 20000: the live Arb interval and the independent oracle's windowed
    # sum (binomial_shift_sum, its neglected terms bounded), about a second each
    n = 20000
    curve = statpriv.counting(n, pi)
    check_certified_live(curve, IID_EPS, label=f"n={n} pi={pi}")
    check_independent(curve, independent_oracle.binomial(n, pi), IID_EPS, label=f"n={n} pi={pi}")


HUGE_PIS = [0.01, 0.3, 0.5, 0.9]
SCALED_EPS = [0.3, 1.0, 3.0, 10.0]
# n = 1e9: the windowed mpmath sum takes 5-10 s per case (pi = 0.01: ~1.5 s);
# every case against the live Arb interval (test_huge_n_certified), pi = 0.01
# also against mpmath
HUGE_WINDOWED = [(n, pi) for n in (10**6, 10**7) for pi in HUGE_PIS] + [(10**9, 0.01)]


def _scaled(n, pi, scaled_eps):
    # eps in units of 1/sigma of the count, so delta spans 1e-1 .. 1e-25
    return scaled_eps / np.sqrt(n * pi * (1 - pi))


@pytest.mark.parametrize("n,pi", HUGE_WINDOWED)
@pytest.mark.parametrize("scaled_eps", SCALED_EPS)
def test_huge_n_windowed(n, pi, scaled_eps):
    eps = _scaled(n, pi, scaled_eps)
    ref = windowed_delta_plus(n, pi, eps)
    assert_matches(statpriv.counting(n, pi).log_delta_plus(eps), ref,
                   what=f"n={n} pi={pi} eps={eps}")


@pytest.mark.parametrize("pi", HUGE_PIS)
def test_huge_n_certified(pi):
    n = 10**9
    eps = [_scaled(n, pi, s) for s in SCALED_EPS]
    curve = statpriv.counting(n, pi)
    for e, ours, ends in zip_equal(eps, curve.log_delta_plus(eps),
                                   live_certified(curve, eps, "plus")):
        assert pins_delta(ends), f"n={n} pi={pi} eps={e}: certified interval {ends} undecided"
        assert_within_certified(ours, ends, what=f"n={n} pi={pi} eps={e} plus (certified)")


SUBSAMPLE_PIS = [1e-9, 0.05, 0.5, 0.95]


@pytest.mark.parametrize("n,m", [(5000, 50), (5000, 2500), (20000, 1000)])
@pytest.mark.parametrize("pi", SUBSAMPLE_PIS)
def test_subsample_brute_force(n, m, pi):
    check_curve(statpriv.counting(n, pi, sample_size=m),
                ("counting_delta", (n, pi), dict(sample_size=m)), label=f"n={n} m={m} pi={pi}")


@pytest.mark.parametrize("pi", SUBSAMPLE_PIS)
def test_subsample_certified_nearly_all(pi):
    # 4999 of 5000 (the mpmath mixture: ~10 s per pi; sampling half of them
    # is brute-forced above): every direction inside the live Arb interval,
    # which decides every point
    n, m = 5000, 4999
    curve = statpriv.counting(n, pi, sample_size=m)
    assert check_certified_live(curve, EPS, label=f"n={n} m={m} pi={pi}") == []


@pytest.mark.parametrize("n,m,K", [(3000, 300, k) for k in (0, 1, 30, 1500, 2998, 2999)])
def test_secret_sample_brute_force(n, m, K):
    check_curve(statpriv.secret_sample(n, m, K), ("secret_sample_delta", (n, m, K), {}),
                label=f"secret n={n} m={m} K={K}")


@pytest.mark.parametrize("seed", range(4))
def test_per_record_brute_force(seed):
    # every seed inside the live Arb interval (which decides every point);
    # seed 0 also against the mpmath convolution (~10 s a seed)
    pi = np.random.default_rng(seed).beta(0.5, 0.5, 800)
    curve = statpriv.counting(None, pi)
    assert check_certified_live(curve, EPS, label=f"per-record seed={seed}") == []
    if seed == 0:
        check_curve(curve, ("counting_delta", (801, [float(p) for p in pi]), {}),
                    label=f"per-record seed={seed}")


NOISES = [statpriv.Laplace(0.7), statpriv.Laplace(5.0), statpriv.Gaussian(0.05),
          statpriv.Gaussian(0.5), statpriv.Gaussian(4.0), statpriv.Geometric(0.2),
          statpriv.Geometric(0.95)]
NOISY_LARGE_EPS = [0.0, 1e-3, 0.03, 0.3, 2.0]
# the mpmath sample of test_noisy_count_oracle_large beside the undecided points
NOISY_SAMPLE = {(1000, 0.02): [0.03]}


@pytest.mark.parametrize("noise", NOISES, ids=repr)
@pytest.mark.parametrize("n,pi", [(1000, 0.5), (1000, 0.02), (2000, 0.9)])
def test_noisy_count_oracle_large(noise, n, pi):
    # statpriv.oracle's brute force takes 10 s - 5 min per case here: every
    # eps against the live Arb interval, and the independent oracle's mpmath
    # where an interval leaves delta undecided (Laplace noise beyond its zero
    # point 1/b: delta = 0 is bounded, not proven; Gaussian(0.05) at eps = 0,
    # pi = 0.5: sigma far below one count, no proven crossing) and on the
    # sample NOISY_SAMPLE
    curve = statpriv.counting(n, pi, noise=noise)
    label = f"n={n} pi={pi} {noise}"
    undecided = check_certified_live(curve, NOISY_LARGE_EPS, rel=NOISY_REL, label=label)
    sample = sorted(set(undecided) | set(NOISY_SAMPLE.get((n, pi), [])))
    truth = independent_oracle.noisy(independent_oracle.binomial(n, pi), (noise.kind, noise.param))
    check_independent(curve, truth, sample, rel=NOISY_REL, label=label)
