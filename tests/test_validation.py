"""Bad input raises ValueError naming the parameter and its allowed range."""
import math

import numpy as np
import pytest

import statpriv

NAN, INF = math.nan, math.inf


@pytest.mark.parametrize("kwargs,match", [
    (dict(n=0, pi=0.5), r"n must be an integer >= 1"),
    (dict(n=-3, pi=0.5), r"n must be an integer >= 1"),
    (dict(n=2.5, pi=0.5), r"n must be an integer"),
    (dict(n="10", pi=0.5), r"n must be an integer"),
    (dict(n=True, pi=0.5), r"n must be an integer"),
    (dict(n=2 ** 60, pi=0.5), r"n must be at most 2\*\*53"),
    (dict(n=None, pi=0.5), r"n is required"),
    (dict(n=10, pi=-0.1), r"pi must be in \[0.0, 1.0\]"),
    (dict(n=10, pi=1.5), r"pi must be in \[0.0, 1.0\]"),
    (dict(n=10, pi=NAN), r"pi must be finite"),
    (dict(n=10, pi=INF), r"pi must be finite"),
    (dict(n=10, pi=[0.5, 2.0]), r"pi must lie in \[0.0, 1.0\]"),
    (dict(n=10, pi=[0.5, NAN]), r"pi must not contain NaN"),
    (dict(n=10, pi=[0.5, 0.5]), r"pi must hold the n-1 = 9"),
    (dict(n=10, pi=0.5, sample_size=11), r"sample_size must be an integer \[1, 10\]"),
    (dict(n=10, pi=0.5, sample_size=0), r"sample_size must be an integer \[1, 10\]"),
    (dict(n=10, pi=0.5, sample_rate=0.0), r"sample_rate must be in \(0.0, 1.0\]"),
    (dict(n=10, pi=0.5, sample_rate=1.5), r"sample_rate must be in"),
    (dict(n=10, pi=0.5, sample_rate=0.01), r"sample_rate \* n must round to at least 1"),
    (dict(n=10, pi=0.5, sample_size=3, sample_rate=0.3), r"not both"),
    (dict(n=10, pi=0.5, sample_size=3, sampling="poisson"), r"takes sample_rate"),
    (dict(n=10, pi=0.5, sampling="bernoulli"), r"sampling must be one of"),
    (dict(n=3, pi=[0.2, 0.3], sample_size=2), r"needs iid records"),
])
def test_counting_rejects(kwargs, match):
    with pytest.raises(ValueError, match=match):
        statpriv.counting(**kwargs)


@pytest.mark.parametrize("args,match", [
    ((0, 1, 0), r"n must be an integer >= 1"),
    ((10, 11, 0), r"sample_size must be an integer \[1, 10\]"),
    ((10, 0, 0), r"sample_size must be an integer \[1, 10\]"),
    ((10, 5, 10), r"positives must be an integer \[0, 9\]"),
    ((10, 5, -1), r"positives must be an integer \[0, 9\]"),
])
def test_secret_sample_rejects(args, match):
    with pytest.raises(ValueError, match=match):
        statpriv.secret_sample(*args)


@pytest.mark.parametrize("make,match", [
    (lambda: statpriv.dp.laplace(-1.0), r"scale must be in \(0.0, inf\)"),
    (lambda: statpriv.dp.laplace(0.0), r"scale must be in \(0.0"),
    (lambda: statpriv.dp.gaussian(NAN), r"sigma must be finite"),
    (lambda: statpriv.dp.gaussian(-2), r"sigma must be in"),
    (lambda: statpriv.dp.geometric(1.0), r"alpha must be in \(0.0, 1.0\)"),
    (lambda: statpriv.dp.geometric(0.0), r"alpha must be in \(0.0, 1.0\)"),
    (lambda: statpriv.amplify(-1.0, 0.0, 0.5), r"eps must lie in"),
    (lambda: statpriv.amplify(1.0, 2.0, 0.5), r"delta must lie in \[0.0, 1.0\]"),
    (lambda: statpriv.amplify(1.0, 0.1, 1.5), r"rate must lie in \[0.0, 1.0\]"),
])
def test_dp_rejects(make, match):
    with pytest.raises(ValueError, match=match):
        make()


@pytest.mark.parametrize("call,match", [
    (lambda c: c.delta(NAN), r"eps must not contain NaN"),
    (lambda c: c.delta([0.1, NAN]), r"eps must not contain NaN"),
    (lambda c: c.delta("a"), r"eps must be real numbers"),
    (lambda c: c.delta(0.1, precision="quad"), r"precision must be one of"),
    (lambda c: c.epsilon(1.5), r"delta must lie in \[0.0, 1.0\]"),
    (lambda c: c.epsilon(-1e-9), r"delta must lie in \[0.0, 1.0\]"),
    (lambda c: c.epsilon(NAN), r"delta must not contain NaN"),
    (lambda c: c.epsilon(0.1, direction="up"), r"direction must be one of"),
])
def test_queries_reject(call, match):
    with pytest.raises(ValueError, match=match):
        call(statpriv.counting(100, 0.3))


def test_infinite_eps_is_the_floor():
    curve = statpriv.counting(20, 0.25)
    assert curve.delta_plus(INF) == pytest.approx(0.25 ** 19, rel=1e-14)
    assert curve.delta_minus(INF) == pytest.approx(0.75 ** 19, rel=1e-14)
    assert curve.delta(-INF) == 1.0
    assert np.isfinite(curve.log_delta([INF, 1e300])).all()
