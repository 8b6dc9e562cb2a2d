"""Long mpmath sweeps (pytest -m exhaustive; minutes).  Run before resolving
an issue; CI runs the representative grids in the other files."""
import numpy as np
import pytest

import statpriv
from helpers import EPS, assert_matches, check_against_reference, check_curve
from independent_oracle import windowed_delta_plus

pytestmark = pytest.mark.exhaustive

PIS = [1e-9, 1e-4, 0.01, 0.1, 0.3, 0.5, 0.7, 0.99, 1 - 1e-9]


@pytest.mark.parametrize("n", [3, 7, 31, 1000, 20000])
@pytest.mark.parametrize("pi", PIS)
def test_iid_brute_force(n, pi):
    eps = EPS + [1e-8, 0.03, 0.3, 2.0, 12.0, -3.0]
    # n = 20000 (2.7e7 terms, ~1.5 min) is above the oracle's default budget
    kwargs = dict(max_terms=3e7) if n == 20000 else {}
    check_curve(statpriv.counting(n, pi), ("counting_delta", (n, pi), kwargs), eps=eps,
                label=f"n={n} pi={pi}")


@pytest.mark.parametrize("n", [10**6, 10**7, 10**9])
@pytest.mark.parametrize("pi", [0.01, 0.3, 0.5, 0.9])
@pytest.mark.parametrize("scaled_eps", [0.3, 1.0, 3.0, 10.0])
def test_huge_n_windowed(n, pi, scaled_eps):
    # eps in units of 1/sigma of the count, so delta spans 1e-1 .. 1e-25
    eps = scaled_eps / np.sqrt(n * pi * (1 - pi))
    ref = windowed_delta_plus(n, pi, eps)
    assert_matches(statpriv.counting(n, pi).log_delta_plus(eps), ref,
                   what=f"n={n} pi={pi} eps={eps}")


@pytest.mark.parametrize("n,m", [(5000, 50), (5000, 2500), (5000, 4999), (20000, 1000)])
@pytest.mark.parametrize("pi", [1e-9, 0.05, 0.5, 0.95])
def test_subsample_brute_force(n, m, pi):
    check_curve(statpriv.counting(n, pi, sample_size=m),
                ("counting_delta", (n, pi), dict(sample_size=m)), label=f"n={n} m={m} pi={pi}")


@pytest.mark.parametrize("n,m,K", [(3000, 300, k) for k in (0, 1, 30, 1500, 2998, 2999)])
def test_secret_sample_brute_force(n, m, K):
    check_curve(statpriv.secret_sample(n, m, K), ("secret_sample_delta", (n, m, K), {}),
                label=f"secret n={n} m={m} K={K}")


@pytest.mark.parametrize("seed", range(4))
def test_per_record_brute_force(seed):
    rng = np.random.default_rng(seed)
    pi = rng.beta(0.5, 0.5, 800)
    check_curve(statpriv.counting(None, pi), ("counting_delta", (801, [float(p) for p in pi]), {}),
                label=f"per-record seed={seed}")


@pytest.mark.parametrize("noise", [statpriv.Laplace(0.7), statpriv.Laplace(5.0), statpriv.Gaussian(0.05),
                                   statpriv.Gaussian(0.5), statpriv.Gaussian(4.0),
                                   statpriv.Geometric(0.2), statpriv.Geometric(0.95)], ids=repr)
@pytest.mark.parametrize("n,pi", [(1000, 0.5), (1000, 0.02), (2000, 0.9)])
def test_noisy_count_oracle_large(noise, n, pi):
    # n = 2000 needs ~1.8e7 oracle terms per eps, above the default budget
    # of precision="mp" (about a minute): raised explicitly here
    with statpriv.oracle.term_budget(3e7):
        check_against_reference(statpriv.counting(n, pi, noise=noise), n, pi, noise,
                                eps=[0.0, 1e-3, 0.03, 0.3, 2.0])

