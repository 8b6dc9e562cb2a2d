"""The measured error bounds that docs/precision.md states for two paths, on a
fixed random sample, against the mpmath brute force (statpriv.oracle):

* compose(a, b, exact=True) of two from_log_pmfs laws with atoms spread over
  hundreds of nats, eps 12-20: ln delta within a few ulps of |ln delta| of the
  truth, both ways;
* per-record probabilities with Poisson sampling: never below by more than a
  few ulps of |ln delta|, above by at most 1e-10 relative (over-reports up to
  7.5e-11 were measured where ln delta ~ -300).

Compared in ln delta: a float delta near or below 1e-308 carries the relative
error of its own rounding (7e-11 at delta = 1.7e-314), not the curve's."""
import math

import mpmath
import numpy as np

import statpriv
from statpriv import oracle


def _ulps(ln_truth):
    return 8 * math.ulp(abs(float(ln_truth)))


def _normalised_law(rng, k):
    spread = float(rng.choice([5.0, 40.0, 300.0, 700.0]))
    lp = -rng.uniform(0, spread, k)
    lq = lp + rng.normal(0, float(rng.choice([0.5, 3.0, 10.0])), k)
    with mpmath.workdps(30):
        for v in (lp, lq):
            v -= float(mpmath.log(mpmath.fsum(mpmath.exp(mpmath.mpf(float(x))) for x in v)))
    return lp, lq


def _errors(ours, truth):
    """(ln ours - ln truth, 8 ulps of |ln truth|) for the positive truths."""
    out = []
    for o, t in zip(ours, truth):
        if t > 0:
            ln_t = mpmath.log(t)
            out.append((float(mpmath.mpf(float(o)) - ln_t), _ulps(ln_t)))
        else:
            assert o == -math.inf
    return out


def test_exact_composition_of_unequal_laws_at_large_eps():
    rng = np.random.default_rng(20261127)
    compared = 0
    for _ in range(6):
        laws = [_normalised_law(rng, int(rng.integers(2, 25))) for _ in range(2)]
        curve = statpriv.compose(*(statpriv.from_log_pmfs(lp, lq) for lp, lq in laws), exact=True)
        eps = list(rng.uniform(12, 20, 6))
        for err, slack in _errors(curve.log_delta(np.array(eps)), oracle.composed_delta(laws, eps)):
            assert abs(err) <= slack, (err, slack)
            compared += 1
    assert compared >= 12


def test_per_record_poisson_sampling_bound():
    rng = np.random.default_rng(1127)
    compared = 0
    for _ in range(6):
        k = int(rng.integers(2, 40))
        pis = 10 ** rng.uniform(-12, 0, k) if rng.random() < 0.5 else rng.uniform(0, 1, k)
        rate = float(10 ** rng.uniform(-6, 0))
        curve = statpriv.counting(None, pis, sample_rate=rate, sampling="poisson")
        eps = list(rng.uniform(0, 20, 6)) + list(10 ** rng.uniform(-6, 1, 3))
        truth = oracle.counting_delta(k + 1, list(pis), eps, sample_rate=rate, sampling="poisson")
        for err, slack in _errors(curve.log_delta(np.array(eps)), truth):
            assert -slack <= err <= 1e-10, (err, slack)
            compared += 1
    assert compared >= 24
