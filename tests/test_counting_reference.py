"""Float path vs the independent mpmath brute force (statpriv.reference)."""
import math

import mpmath
import numpy as np
import pytest

import statpriv
from statpriv import reference
from helpers import EPS, assert_matches, check_curve, windowed_delta_plus

PIS = [1e-9, 0.01, 0.3, 0.5, 0.99, 1 - 1e-9]


@pytest.mark.parametrize("n", [1, 2, 10, 100, 10**4])
@pytest.mark.parametrize("pi", PIS)
def test_iid_grid(n, pi):
    check_curve(statpriv.counting(n, pi), ("counting_delta", (n, pi), {}), label=f"n={n} pi={pi}")


@pytest.mark.parametrize("pi", [0.0, 1.0])
def test_known_records_reveal_target(pi):
    # All others known: the count reveals the target, delta = 1 at every eps.
    curve = statpriv.counting(50, pi)
    assert np.all(curve.delta([0.0, 1.0, 30.0]) == 1.0)
    check_curve(curve, ("counting_delta", (50, pi), {}), label=f"pi={pi}")


@pytest.mark.parametrize("n,m", [(1000, 1), (1000, 10), (1000, 100), (1000, 999), (10, 5)])
@pytest.mark.parametrize("pi", [1e-9, 0.01, 0.5, 0.99])
def test_subsample_grid(n, m, pi):
    check_curve(statpriv.counting(n, pi, sample_size=m),
                ("counting_delta", (n, pi), dict(sample_size=m)), label=f"n={n} m={m} pi={pi}")


@pytest.mark.parametrize("rate", [0.01, 0.3, 1.0])
@pytest.mark.parametrize("pi", [0.01, 0.5])
def test_poisson_sampling_grid(rate, pi):
    n = 400
    curve = statpriv.counting(n, pi, sample_rate=rate, sampling="poisson")
    spec = ("counting_delta", (n, pi), dict(sample_rate=rate, sampling="poisson"))
    check_curve(curve, spec, label=f"poisson rate={rate} pi={pi}")


@pytest.mark.parametrize("sampling", [None, "poisson"])
def test_per_record_pi(sampling):
    rng = np.random.default_rng(7)
    pi = rng.uniform(0.0, 1.0, 150)
    pi[:5] = [0.0, 1.0, 1e-9, 1 - 1e-9, 0.5]
    kwargs = {} if sampling is None else dict(sample_rate=0.2, sampling="poisson")
    curve = statpriv.counting(None, pi, **kwargs)
    check_curve(curve, ("counting_delta", (151, [float(p) for p in pi]), kwargs), label=f"per-record {sampling}")


@pytest.mark.parametrize("n,m,K", [(500, 1, 0), (500, 50, 10), (500, 50, 250), (500, 499, 499),
                                   (500, 500, 100), (40, 20, 39), (2, 1, 1)])
def test_secret_sample_grid(n, m, K):
    check_curve(statpriv.secret_sample(n, m, K), ("secret_sample_delta", (n, m, K), {}),
                label=f"secret n={n} m={m} K={K}")


def test_secret_sample_worst_case_is_dp():
    # docs/mathematics.md §5: the worst case over K of a noiseless sampled count is delta = lambda.
    n, m = 200, 20
    worst = max(statpriv.secret_sample(n, m, K).delta(0.3) for K in range(n))
    assert worst == pytest.approx(m / n, rel=1e-13)


# docs/mathematics.md §3 and §3: public reference values at full precision.
SECTION_10 = [
    (1000, 0.5, 0.01, "0.02065555306422242041"),
    (1000, 0.1, 0.01, "0.037526706067839093489"),
    (100, 0.5, 0.01, "0.075364038978937394363"),
    (1000, 0.5, 0.5, "3.6855698469109621793e-17"),
    (2000, 0.5, 1.0, "3.0741764275012817247e-101"),
]


@pytest.mark.parametrize("n,pi,eps,value", SECTION_10)
def test_math_section_10(n, pi, eps, value):
    assert_matches(statpriv.counting(n, pi).log_delta(eps), mpmath.mpf(value), rel=1e-13)


@pytest.mark.parametrize("n,log_value", [(10**6, "-272.22876404680295545"),
                                         (10**7, "-2606.3055921879885945")])
def test_math_section_3_log_delta(n, log_value):
    ours = statpriv.counting(n, 0.3).log_delta(0.05)
    assert abs(ours - float(mpmath.mpf(log_value))) <= 1e-10
    assert statpriv.counting(n, 0.3).delta(0.05) == math.exp(ours)


@pytest.mark.parametrize("n,eps", [(10**9, 2e-4), (10**9, 5e-4), (10**8, 1e-3)])
def test_huge_n_against_mpmath(n, eps):
    ref = windowed_delta_plus(n, 0.3, eps)
    assert_matches(statpriv.counting(n, 0.3).log_delta_plus(eps), ref, what=f"n={n} eps={eps}")
