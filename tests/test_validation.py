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
    (lambda: statpriv.amplify(1.0, 0.1, 1.5), r"sample_rate must lie in \[0.0, 1.0\]"),
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


# ---------------------------------------------------------------------------
# Issue 12: bad input that used to be accepted
# ---------------------------------------------------------------------------
import pickle
import re

from hypothesis import HealthCheck, Phase, given, settings, strategies as st

import mechanisms
from helpers import optional_extra
from statpriv import reference
from statpriv._validate import ParameterTypeError


def test_parameter_type_error_is_both():
    # wrong types raise TypeError; landed callers catching ValueError keep working
    assert issubclass(ParameterTypeError, TypeError)
    assert issubclass(ParameterTypeError, ValueError)


@pytest.mark.parametrize("call,match", [
    (lambda: statpriv.counting(100, 0.3).delta("0.1"), r"eps must be real numbers, got str"),
    (lambda: statpriv.counting(100, 0.3).delta(True), r"eps must be real numbers, not bools"),
    (lambda: statpriv.counting(100, 0.3).epsilon(True), r"delta must be real numbers, not bools"),
    (lambda: statpriv.counting(100, 0.3).epsilon("1e-6"), r"delta must be real numbers"),
    (lambda: statpriv.counting(100, 0.3).delta([0.1, True]), r"eps must be real numbers, not bools"),
    (lambda: statpriv.counting(100, 0.3).delta(b"0.1"), r"eps must be real numbers, got bytes"),
    (lambda: statpriv.counting(100, 0.3).delta(0.1 + 0j), r"eps must be real numbers, not complex"),
    (lambda: statpriv.counting(100, 0.3).delta(None), r"eps must be real numbers, got NoneType"),
    (lambda: statpriv.amplify("1", 1e-6, 0.1), r"eps must be real numbers, got str"),
    (lambda: statpriv.amplify(1.0, True, 0.1), r"delta must be real numbers, not bools"),
    (lambda: statpriv.counting(None, [True, False]), r"pi must be real numbers, not bools"),
    (lambda: statpriv.counting(3, [0.2, True]), r"pi must be real numbers, not bools"),
    (lambda: statpriv.counting(10, "0.3"), r"pi must be a real number, not a string"),
    (lambda: statpriv.counting(10, True), r"pi must be a real number, not a bool"),
    (lambda: statpriv.counting(10, 0.3, sample_rate=True), r"sample_rate must be a real number"),
    (lambda: statpriv.Laplace(True), r"scale must be a real number, not a bool"),
    (lambda: statpriv.Geometric("0.5"), r"alpha must be a real number, not a string"),
    (lambda: statpriv.dp.gaussian(1j), r"sigma must be a real number, got complex"),
    (lambda: statpriv.counting(100, 0.3).delta(0.1, precision=None), r"precision must be one of"),
    (lambda: statpriv.utility_loss(10, 0.5, noise=2.0), r"noise must be a statpriv.noise"),
])
def test_wrong_types_raise_type_error(call, match):
    with pytest.raises(TypeError, match=match):
        call()


@pytest.mark.parametrize("pi,match", [
    (np.array([[0.2, 0.3], [0.4, 0.5]]), r"pi must be 1-D, got an array of shape \(2, 2\)"),
    ([[0.2], [0.3]], r"pi must be 1-D, got an array of shape \(2, 1\)"),
    ([[0.2], [0.3, 0.4]], r"pi must be a regular array of numbers, got a ragged"),
    ([0.2, [0.3]], r"pi must be a regular array of numbers, got a ragged"),
])
def test_pi_must_be_one_dimensional(pi, match):
    n = None if isinstance(pi, np.ndarray) else 3
    with pytest.raises(ValueError, match=match):
        statpriv.counting(n, pi)


def test_noise_is_immutable():
    z = statpriv.Laplace(1.0)
    for name in ("param", "scale", "kind", "variance", "_param", "other"):
        with pytest.raises(AttributeError, match="immutable"):
            setattr(z, name, math.nan)
    with pytest.raises(AttributeError):
        del z.param
    assert z.param == 1.0
    assert statpriv.counting(100, 0.3, noise=z).delta(0.1) > 0.0
    # every public attribute kept
    for noise, name, variance in ((statpriv.Laplace(2.0), "scale", 8.0),
                                  (statpriv.Gaussian(2.0), "sigma", 4.0),
                                  (statpriv.Geometric(0.5), "alpha", 4.0)):
        assert getattr(noise, name) == noise.param
        assert noise.variance == variance
        assert noise.kind == type(noise).__name__.lower()
        assert repr(noise) == f"{type(noise).__name__}({noise.param!r})"
        assert noise == type(noise)(noise.param) and hash(noise) == hash(type(noise)(noise.param))
        assert pickle.loads(pickle.dumps(noise)) == noise
        assert noise.dp_curve().delta(0.1) == getattr(statpriv.dp, noise.kind)(noise.param).delta(0.1)
    assert statpriv.Laplace(1.0) != statpriv.Gaussian(1.0)
    with pytest.raises(TypeError, match="abstract"):
        statpriv.noise.Noise(1.0)


def test_curve_is_not_casually_mutable():
    curve = statpriv.counting(100, 0.3)
    for name in ("description", "exact", "anything"):
        with pytest.raises(AttributeError, match="immutable"):
            setattr(curve, name, False)
    assert curve.exact is True and "counting n=100" in curve.description
    assert statpriv.counting(100, 0.3, approx="normal").exact is False


def test_amplify_broadcasts():
    eps, delta = statpriv.amplify([1.0, 2.0], [[1e-6], [1e-7], [1e-8]], 0.1)
    assert eps.shape == delta.shape == (3, 2)
    assert eps[2, 1] == math.log1p(0.1 * math.expm1(2.0))
    assert delta[2, 1] == 0.1 * 1e-8
    assert isinstance(statpriv.amplify(1.0, 1e-6, np.array(0.1))[0], float)
    with pytest.raises(ValueError, match=r"eps, delta, sample_rate must broadcast to a common "
                                         r"shape, got eps \(2,\), delta \(3,\), sample_rate \(\)"):
        statpriv.amplify([1, 2], [1e-6, 1e-7, 1e-8], 0.1)
    # rate 0 releases nothing, also for eps = inf (was nan)
    assert statpriv.amplify(math.inf, 0.5, 0.0) == (0.0, 0.0)


@pytest.mark.parametrize("call,match", [
    (lambda: statpriv.Laplace(-1.0), r"scale must be in \(0.0, inf\), got -1.0"),
    (lambda: statpriv.Gaussian(0.0), r"sigma must be in \(0.0, inf\), got 0.0"),
    (lambda: statpriv.amplify(-1.0, 0.0, 0.5), r"eps must lie in \[0.0, inf\], got -1.0"),
    (lambda: statpriv.interval_epsilon(0.2, 0.8, -5), r"count must be in \[0.0, inf\)"),
    (lambda: statpriv.Laplace(10 ** 400), r"scale must be finite, got a number too large"),
])
def test_range_text_is_exact(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_huge_integer_eps_is_infinite():
    curve = statpriv.counting(20, 0.25)
    assert curve.delta(10 ** 400) == curve.delta(INF)
    assert curve.delta(-(10 ** 400)) == 1.0


# -- the mpmath reference refuses what it cannot do in about a minute ---------
@pytest.mark.parametrize("make", [
    lambda: statpriv.counting(10 ** 9, 0.3),
    lambda: statpriv.counting(10 ** 9, 0.3, sample_size=10 ** 6),
    lambda: statpriv.counting(10 ** 6, 0.3, sample_rate=0.01, sampling="poisson"),
    lambda: statpriv.counting(None, np.full(10 ** 4, 0.3)),
    lambda: statpriv.counting(10 ** 5, 0.3, noise=statpriv.Laplace(1.0)),
    lambda: statpriv.counting(10 ** 5, 0.3, noise=statpriv.Geometric(0.5)),
    lambda: statpriv.secret_sample(10 ** 6, 10 ** 5, 10),
])
def test_mp_refuses_up_front(make):
    curve = make()
    with pytest.raises(ValueError, match=r"precision='mp'.*would need about .* terms.*"
                                         r"Pass max_terms=.* or choose a smaller n"):
        curve.delta(0.1, precision="mp")


def test_mp_max_terms():
    curve = statpriv.counting(100, 0.3)
    with pytest.raises(ValueError, match=r"more than max_terms=10\b"):
        curve.delta_plus(0.1, precision="mp", max_terms=10)
    value = curve.delta_plus(0.1, precision="mp", max_terms=10 ** 6)
    assert abs(float(value) / curve.delta_plus(0.1) - 1) < 1e-12
    with pytest.raises(ValueError, match=r"max_terms applies to precision='mp' only"):
        curve.delta(0.1, max_terms=10 ** 6)
    with pytest.raises(ValueError, match=r"max_terms must be in \(0.0, inf\]"):
        curve.delta(0.1, precision="mp", max_terms=0)
    with pytest.raises(TypeError, match=r"max_terms must be a real number"):
        curve.delta(0.1, precision="mp", max_terms="1e9")
    # direct calls of the oracle: argument, term_budget, default
    with pytest.raises(ValueError, match=r"max_terms"):
        reference.counting_delta(10 ** 9, 0.3, 0.1)
    with pytest.raises(ValueError, match=r"max_terms"):
        reference.counting_delta(100, 0.3, 0.1, max_terms=10)
    with reference.term_budget(10):
        with pytest.raises(ValueError, match=r"max_terms=10\b"):
            reference.noisy_counting_delta(5, 0.3, 0.1, ("laplace", 1.0))
    assert reference.estimate_terms(10 ** 9, 0.3) > 1e14
    # the sizes the landed oracle tests use stay under the default budget
    # (about a minute); a count of 3.3e5 records is just over it
    big = reference.estimate_terms(330_000, 0.5)
    assert reference.DEFAULT_MAX_TERMS < big < 3e7
    with pytest.raises(ValueError, match=r"Pass max_terms=1\.8e\+07"):
        reference.counting_delta(330_000, 0.5, 0.1)
    for args, kw in [((1000, 0.5), {}), ((None, [0.3] * 800), {}),
                     ((400, 0.5), dict(noise=("laplace", 0.1))),
                     ((300, 0.99), dict(noise=("gaussian", 0.05), direction="plus")),
                     ((400, 0.5), dict(noise=("geometric", 0.9)))]:
        assert reference.estimate_terms(*args, **kw) < reference.DEFAULT_MAX_TERMS, args


# -- hypothesis sweep: every public function, every parameter, every bad class --
#
# For each (function, parameter) the other arguments are fixed to good values
# (small n, so a good call costs milliseconds) and the parameter is replaced
# by a value from one bad-input class.  The call must raise TypeError or
# ValueError whose message names the parameter -- never another exception --
# unless the class is listed as valid for that parameter (e.g. -inf for eps),
# in which case it may also return a sane (NaN-free) result.

def _grid(good):
    g = good if isinstance(good, (int, float)) and not isinstance(good, bool) else 0.5
    return g


BAD = {
    "bool": st.sampled_from([True, False, np.bool_(True)]),
    "str": st.text(max_size=6).filter(lambda t: t not in (
        "plus", "minus", "max", "float", "mp", "laplace", "gaussian", "geometric",
        "poisson", "without_replacement", "normal")),
    "numeric_str": st.sampled_from(["0.1", "1", "inf", "-1", "nan", "1e-6"]),
    "bytes": st.binary(max_size=4) | st.just(b"0.5"),
    "none": st.none(),
    "complex": st.sampled_from([0.5 + 0j, 1j, np.complex128(0.3), complex(math.nan, 0)]),
    "object": st.sampled_from([object(), {}, {0.5}, [None], (lambda: 0.5), Ellipsis]),
    "nan": st.sampled_from([NAN, np.float64(NAN), np.float32(NAN)]),
    "posinf": st.sampled_from([INF, np.float64(INF)]),
    "neginf": st.sampled_from([-INF, np.float64(-INF)]),
    "negative": st.floats(-1e6, -1e-9) | st.integers(-10 ** 6, -1),
    "huge_pos": st.sampled_from([2 ** 64, 10 ** 400, 2 ** 1023 * 2]),
    "huge_neg": st.sampled_from([-(2 ** 64), -(10 ** 400)]),
    "ragged": st.sampled_from([[[0.5], [0.5, 0.5]], [0.5, [0.5]], [[0.5, 0.5], 0.5]]),
    "zero_d_bad": st.sampled_from([np.array(NAN), np.array(True), np.array("0.5"),
                                   np.array(None, dtype=object), np.array(1j)]),
}
# built from the parameter's good value, so they are valid where arrays are
SHAPED = {
    "nested": lambda g: [[_grid(g)] * 2] * 2,
    "two_d": lambda g: np.full((2, 2), _grid(g)),
}
CLASSES = sorted(BAD) + sorted(SHAPED)

CURVE = statpriv.counting(20, 0.3)
_PHASES = (Phase.explicit, Phase.generate, Phase.shrink)


def _case(label, fn, good, param, valid=()):
    return pytest.param(fn, good, param, frozenset(valid), id=f"{label}-{param}")


_EPS_VALID = ("posinf", "neginf", "negative", "huge_pos", "huge_neg", "nested", "two_d")
_ARRAYS = ("nested", "two_d")
_COUNT_SETUP = dict(n=3, pi=0.3)

SWEEP = [
    *[_case("counting", statpriv.counting, _COUNT_SETUP, p) for p in ("n", "pi")],
    *[_case("counting", statpriv.counting, dict(_COUNT_SETUP, **{p: None}), p, ["none"])
      for p in ("sample_size", "sample_rate", "noise", "approx")],
    _case("counting", statpriv.counting, dict(_COUNT_SETUP, sampling="poisson",
                                              sample_rate=0.5), "sampling"),
    *[_case("secret_sample", statpriv.secret_sample,
            dict(n=5, sample_size=2, positives=1), p) for p in ("n", "sample_size", "positives")],
    _case("secret_sample", statpriv.secret_sample,
          dict(n=5, sample_size=2, positives=1, noise=None), "noise", ["none"]),
    *[_case(m, getattr(CURVE, m), dict(eps=0.1), "eps", _EPS_VALID)
      for m in ("delta", "delta_plus", "delta_minus", "log_delta", "log_delta_plus",
                "log_delta_minus")],
    *[_case(m, getattr(CURVE, m), dict(eps=0.1, precision="float"), "precision")
      for m in ("delta", "log_delta_minus")],
    _case("delta_mp", CURVE.delta_plus, dict(eps=0.1, precision="mp", max_terms=10 ** 6),
          "max_terms", ["none", "posinf", "huge_pos"]),
    _case("epsilon", CURVE.epsilon, dict(delta=1e-3), "delta", _ARRAYS),
    _case("epsilon", CURVE.epsilon, dict(delta=1e-3, direction="plus"), "direction"),
    _case("Laplace", statpriv.Laplace, dict(scale=1.0), "scale", ["huge_pos"]),
    _case("Gaussian", statpriv.Gaussian, dict(sigma=1.0), "sigma", ["huge_pos"]),
    _case("Geometric", statpriv.Geometric, dict(alpha=0.5), "alpha"),
    _case("dp.laplace", statpriv.dp.laplace, dict(scale=1.0), "scale", ["huge_pos"]),
    _case("dp.gaussian", statpriv.dp.gaussian, dict(sigma=1.0), "sigma", ["huge_pos"]),
    _case("dp.geometric", statpriv.dp.geometric, dict(alpha=0.5), "alpha"),
    _case("amplify", statpriv.amplify, dict(eps=1.0, delta=1e-6, sample_rate=0.1), "eps",
          ["posinf", "huge_pos", *_ARRAYS]),
    *[_case("amplify", statpriv.amplify, dict(eps=1.0, delta=1e-6, sample_rate=0.1), p, _ARRAYS)
      for p in ("delta", "sample_rate")],
    *[_case("interval_epsilon", statpriv.interval_epsilon,
            dict(width=0.2, confidence=0.8, count=100, noise=statpriv.Laplace), p,
            ["huge_pos", *_ARRAYS] if p in ("width", "count") else
            _ARRAYS if p == "confidence" else ())
      for p in ("width", "confidence", "count", "noise")],
    _case("interval_epsilon", statpriv.interval_epsilon,
          dict(width=0.2, confidence=0.8, count=100, noise=statpriv.Gaussian, delta=1e-6),
          "delta", _ARRAYS),
    *[_case("interval_confidence", statpriv.interval_confidence,
            dict(eps=0.1, width=0.2, count=100, noise=statpriv.Geometric), p,
            ["huge_pos", *_ARRAYS] if p != "noise" else ())
      for p in ("eps", "width", "count", "noise")],
    *[_case("interval_width", statpriv.interval_width,
            dict(eps=0.1, confidence=0.8, count=100), p,
            ["huge_pos", *_ARRAYS] if p != "confidence" else _ARRAYS)
      for p in ("eps", "confidence", "count")],
    *[_case("interval_noise", statpriv.interval_noise,
            dict(width=0.2, confidence=0.8, count=100, noise=statpriv.Laplace), p,
            ["huge_pos"] if p in ("width", "count") else ())
      for p in ("width", "confidence", "count", "noise")],
    *[_case("utility_loss", statpriv.utility_loss, dict(n=10, pi=0.5), p,
            _ARRAYS if p == "pi" else ()) for p in ("n", "pi")],
    *[_case("utility_loss", statpriv.utility_loss, dict(n=10, pi=0.5, **{p: None}), p,
            ["none"]) for p in ("noise", "sample_size")],
    *[_case("equal_utility_noise", statpriv.equal_utility_noise,
            dict(n=10, pi=0.5, sample_size=5, noise=statpriv.Laplace), p)
      for p in ("n", "pi", "sample_size", "noise")],
    *[_case("equal_utility_epsilon", statpriv.equal_utility_epsilon,
            dict(n=10, pi=0.5, sample_size=5), p, _ARRAYS if p == "pi" else ())
      for p in ("n", "pi", "sample_size")],
    *[_case("conjecture_check", statpriv.conjecture_check,
            dict(n_values=(10,), pi_values=(0.3,), rates=(0.5,), eps_values=(0.1,),
                 rtol=1e-9, directions=("plus",), refined=False), p,
            {"rtol": ["huge_pos"], "eps_values": ["huge_pos"], "refined": ["bool"]}.get(p, ()))
      for p in ("n_values", "pi_values", "rates", "eps_values", "rtol", "directions",
                "refined")],
]


# parameters whose values are strings: a wrong string is a wrong value (ValueError)
_LABELS = ()
_CHOICES = ("precision", "direction", "sampling", "approx", "noise_kind", "kind", "attacker",
            "method", "estimator", "distance", "kernel")


def _draw_bad(data, cls, good):
    if cls in SHAPED:
        return SHAPED[cls](good)
    return data.draw(BAD[cls], label=cls)


def _no_nan(result):
    if isinstance(result, statpriv.PrivacyCurve):
        result = result.delta([0.0, 0.1])
    elif isinstance(result, statpriv.noise.Noise):
        result = result.param
    elif hasattr(result, "get_delta_for_epsilon"):         # dp-accounting's PLD
        result = result.get_delta_for_epsilon(0.1)
    elif isinstance(result, statpriv.pld.PrivacyLossDistribution):
        result = result.delta([0.0, 0.1])
    elif hasattr(result, "total_risk"):                    # EmpiricalPrivacy, Conditioned
        result = result.delta([0.0, 0.5])
    elif hasattr(result, "to_numpy"):                      # a pandas Series
        result = result.to_numpy()
    elif type(result).__name__ == "NoiseSampler":
        result = result(4)
    elif isinstance(result, dict):                         # audit, audit_pld
        result = [v for v in result.values() if isinstance(v, (float, np.ndarray))]
        return all(_no_nan(v) for v in result)
    elif hasattr(result, "worst_case"):                    # partial_knowledge
        result = result.worst_case.delta(0.1)
    elif hasattr(result, "upper"):                         # histogram_partial_knowledge
        result = (result.lower.delta(0.1), result.upper.delta(0.1))
    elif hasattr(result, "min_ratio"):                     # audit_pld
        result = result.min_ratio
    if isinstance(result, tuple):
        return all(_no_nan(r) for r in result)
    if isinstance(result, list):                           # conjecture_check
        return True
    return not np.isnan(np.asarray(result, dtype=float)).any()


def assert_bad_input_rejected(fn, good, param, valid, cls, value):
    kwargs = dict(good, **{param: value})
    try:
        result = fn(**kwargs)
    except (TypeError, ValueError) as exc:
        assert re.search(rf"(?<![A-Za-z_]){re.escape(param)}(?![A-Za-z_])", str(exc)), (
            f"{param}={value!r} ({cls}): message does not name {param!r}: {exc}")
        wrong_type = ("bool", "bytes", "complex", "object") if param in _CHOICES \
            else ("bool", "str", "numeric_str", "bytes", "complex", "object")
        if cls in wrong_type and param != "noise" and param not in _LABELS:
            assert isinstance(exc, TypeError), f"{param}={value!r} ({cls}): {exc!r}"
        return
    assert cls in valid, f"{param}={value!r} ({cls}) accepted, returned {result!r}"
    assert _no_nan(result), f"{param}={value!r} ({cls}) gave NaN: {result!r}"


def assert_drawn_bad_input_rejected(fn, good, param, valid, data):
    cls = data.draw(st.sampled_from(CLASSES), label="class")
    assert_bad_input_rejected(fn, good, param, valid, cls, _draw_bad(data, cls, good[param]))


_SWEEP_SETTINGS = dict(deadline=None, derandomize=True, phases=_PHASES,
                       suppress_health_check=[HealthCheck.too_slow,
                                              HealthCheck.differing_executors])


@pytest.mark.parametrize("fn,good,param,valid", SWEEP)
@settings(max_examples=30, **_SWEEP_SETTINGS)
@given(data=st.data())
def test_bad_input_sweep(fn, good, param, valid, data):
    assert_drawn_bad_input_rejected(fn, good, param, valid, data)


def test_zero_d_arrays_act_as_scalars():
    a = np.array
    assert statpriv.counting(a(20), a(0.3)).delta(a(0.1)) == statpriv.counting(20, 0.3).delta(0.1)
    assert isinstance(statpriv.counting(20, 0.3).delta(a(0.1)), float)
    assert statpriv.Laplace(a(2.0)) == statpriv.Laplace(2.0)
    assert statpriv.dp.geometric(a(0.5)).delta(0.1) == statpriv.dp.geometric(0.5).delta(0.1)
    assert statpriv.secret_sample(a(7), a(3), a(2)).delta(0.1) == \
        statpriv.secret_sample(7, 3, 2).delta(0.1)
    assert statpriv.interval_epsilon(a(0.2), a(0.8), a(100)) == \
        statpriv.interval_epsilon(0.2, 0.8, 100)
    assert statpriv.utility_loss(a(10), a(0.5)) == statpriv.utility_loss(10, 0.5)


def test_secret_sample_checks_noise_before_building_laws():
    # a size whose laws would take long to build: the bad noise is refused first
    import time
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match="noise must be"):
        statpriv.secret_sample(10**9, 10**8, positives=4 * 10**8, noise="laplace")
    assert time.perf_counter() - t0 < 1.0


# -- the same sweep over the public names added after issue 12 ----------------
PK = statpriv.partial_knowledge(6, 0.3)
PLD = CURVE.privacy_loss_distribution()
COMPOSED = statpriv.compose(CURVE, times=2)
_GUARANTEE_VALID = ("nested", "two_d")         # a 2x2 value unpacks as a pair of pairs: rejected


def _compose_one(curves, **kw):
    return statpriv.compose(curves, **kw)


def _basic_one(guarantees, **kw):
    return statpriv.basic_composition(guarantees, **kw)


def _basic_pair(eps, delta):
    return statpriv.basic_composition((eps, delta))


def _clones(n, eps0):
    return statpriv.shuffle.clones(n, eps0)


def _rr(n, eps0):
    return statpriv.shuffle.randomized_response(n, eps0)


SWEEP_NEW = [
    *[_case("partial_knowledge", statpriv.partial_knowledge, dict(n=6, pi=0.3, known=1), p)
      for p in ("n", "pi", "known")],
    _case("worst_case.bracket", PK.worst_case.bracket, dict(eps=0.1), "eps", ["huge_pos"]),
    # the queries of every curve kind (the table of tests/mechanisms.py)
    *[_case(f"{row}.delta", mechanisms.curve(row).delta, dict(eps=0.1), "eps", _EPS_VALID)
      for row in mechanisms.BY_ID],
    *[_case(f"{row}.epsilon", mechanisms.curve(row).epsilon, dict(delta=1e-3), "delta",
            _ARRAYS) for row in mechanisms.BY_ID],
    _case("closed_form_epsilon", PK.closed_form_epsilon, dict(delta=1e-3), "delta", _ARRAYS),
    *[_case("histogram_partial_knowledge", statpriv.histogram_partial_knowledge,
            dict(n=6, pi=0.3, categories=3), p) for p in ("n", "pi", "categories")],
    *[_case("thresholded", statpriv.thresholded,
            dict(n=6, pi=0.3, threshold=2, known=1, attacker="passive"), p)
      for p in ("n", "pi", "threshold", "known", "attacker")],
    *[_case("k_anonymity", statpriv.k_anonymity,
            dict(n=6, pi=[0.3, 0.3, 0.4], k=2, source=0, target=1), p,
            _ARRAYS[:0] if p != "pi" else ())
      for p in ("n", "pi", "k", "source", "target")],
    *[_case("shuffle.clones", _clones, dict(n=6, eps0=1.0), p) for p in ("n", "eps0")],
    *[_case("shuffle.randomized_response", _rr, dict(n=6, eps0=1.0), p, ["huge_pos"]
            if p == "eps0" else ()) for p in ("n", "eps0")],
    _case("compose", _compose_one, dict(curves=CURVE), "curves"),
    *[_case("compose", _compose_one, dict(curves=CURVE, times=2, exact=False,
                                          value_discretization_interval=1e-3,
                                          tail_mass_truncation=1e-15), p,
            {"value_discretization_interval": ["none"], "exact": ["bool"],
             "tail_mass_truncation": ["none"]}.get(p, ()))
      for p in ("times", "exact", "value_discretization_interval", "tail_mass_truncation")],
    *[_case("compose", _compose_one, dict(curves=CURVE, times=2, epsilon_error=1e-4,
                                          delta_error=1e-15), p, ["none"])
      for p in ("epsilon_error", "delta_error")],
    _case("basic_composition", _basic_one, dict(guarantees=(0.5, 1e-6)), "guarantees",
          _GUARANTEE_VALID[:0]),
    _case("basic_composition", _basic_one, dict(guarantees=(0.5, 1e-6), times=2), "times"),
    _case("basic_composition", _basic_pair, dict(eps=0.5, delta=1e-6), "eps",
          ["posinf", "huge_pos"]),
    _case("basic_composition", _basic_pair, dict(eps=0.5, delta=1e-6), "delta"),
    *[_case("bounded_dependency_composition", statpriv.bounded_dependency_composition,
            dict(first=(0.5, 1e-6), second=(0.5, 1e-6), alpha=0.1, beta=1e-7), p,
            ["posinf", "huge_pos"] if p == "alpha" else ())
      for p in ("first", "second", "alpha", "beta")],
    *[_case("rdp_to_dp", statpriv.rdp_to_dp,
            dict(orders=[2.0, 4.0], rdp=[0.1, 0.3], delta=1e-6), p,
            {"orders": ["posinf", "huge_pos"], "rdp": ["posinf", "huge_pos"]}.get(p, ()))
      for p in ("orders", "rdp", "delta")],
    _case("rdp_to_dp", statpriv.rdp_to_dp,
          dict(orders=[2.0, 4.0], rdp=[0.1, 0.3], epsilon=1.0), "epsilon",
          ["posinf", "huge_pos"]),
    *[_case("curve.renyi", CURVE.renyi, dict(alpha=2.0, direction="max"), p,
            ["posinf", "huge_pos", *_ARRAYS] if p == "alpha" else ())
      for p in ("alpha", "direction")],
    *[_case(f"{label}.privacy_loss_distribution", c.privacy_loss_distribution,
            dict(value_discretization_interval=None, tail_mass_truncation=1e-15), p,
            ["none"] if p == "value_discretization_interval" else ())
      for p in ("value_discretization_interval", "tail_mass_truncation")
      for label, c in (("counting", CURVE), ("dp.laplace", statpriv.dp.laplace(1.0)))],
    *[_case("pld.renyi", PLD.renyi, dict(alpha=2.0, direction="max"), p,
            ["posinf", "huge_pos", *_ARRAYS] if p == "alpha" else ())
      for p in ("alpha", "direction")],
    *[_case("curve.to_dp_accounting", CURVE.to_dp_accounting,
            dict(value_discretization_interval=1e-2, method="auto", tail_mass_truncation=1e-15), p)
      for p in ("value_discretization_interval", "method", "tail_mass_truncation")],
    *[_case(f"{label}.{m}", getattr(obj, m), dict(eps=0.1, direction="max"), p,
            _EPS_VALID if p == "eps" else ())
      for label, obj in (("pld", PLD), ("composed", COMPOSED))
      for m in (("delta", "delta_lower_bound") if label == "pld"
                else ("delta_bounds", "discretization_error"))
      for p in ("eps", "direction")],
    _case("pld.side", PLD.side, dict(direction="plus"), "direction"),
    _case("get_delta_for_epsilon", CURVE.get_delta_for_epsilon, dict(epsilon=0.1), "epsilon",
          _EPS_VALID),
    _case("get_epsilon_for_delta", CURVE.get_epsilon_for_delta, dict(delta=1e-3), "delta",
          _ARRAYS),
    *[_case("audit", statpriv.audit, dict(claimed_eps=0.5, claimed_delta=1e-3, curve=CURVE), p,
            ["posinf", "huge_pos"] if p == "claimed_eps" else ())
      for p in ("claimed_eps", "claimed_delta", "curve")],
    *[_case("audit_pld", statpriv.audit_pld, dict(pld=CURVE, curve=CURVE, eps_grid=[0.0, 0.1]),
            p, ["posinf", "neginf", "negative", "huge_pos", "huge_neg"]
            if p == "eps_grid" else ())
      for p in ("pld", "curve", "eps_grid")],
]


# one fixed value of every class for every new (function, parameter): the default run
_FIXED = {"bool": True, "str": "abc", "numeric_str": "0.1", "bytes": b"0.5", "none": None,
          "complex": 0.5 + 0j, "object": object(), "nan": NAN, "posinf": INF, "neginf": -INF,
          "negative": -1.0, "huge_pos": 10 ** 400, "huge_neg": -(10 ** 400),
          "ragged": [[0.5], [0.5, 0.5]], "zero_d_bad": np.array(NAN)}


def assert_rejects_every_class(fn, good, param, valid):
    for cls in CLASSES:
        value = SHAPED[cls](good[param]) if cls in SHAPED else _FIXED[cls]
        assert_bad_input_rejected(fn, good, param, valid, cls, value)


@pytest.mark.parametrize("fn,good,param,valid", SWEEP_NEW)
def test_new_names_reject_every_class(fn, good, param, valid):
    assert_rejects_every_class(fn, good, param, valid)


# ... and hypothesis draws within each class
@pytest.mark.parametrize("fn,good,param,valid", SWEEP_NEW)
@settings(max_examples=8, **_SWEEP_SETTINGS)
@given(data=st.data())
def test_new_names_bad_input_sweep(fn, good, param, valid, data):
    assert_drawn_bad_input_rejected(fn, good, param, valid, data)


@pytest.mark.exhaustive
@pytest.mark.parametrize("fn,good,param,valid", SWEEP_NEW)
@settings(max_examples=150, **_SWEEP_SETTINGS)
@given(data=st.data())
def test_new_names_bad_input_sweep_exhaustive(fn, good, param, valid, data):
    assert_drawn_bad_input_rejected(fn, good, param, valid, data)


# -- statpriv.empirical.EmpiricalPrivacy ----------------------------------------
def _frame(**columns):
    import pandas as pd
    base = dict(id=[f"i{k % 4}" for k in range(12)], db=[k // 4 for k in range(12)],
                value=[1.0, 2.5, 0.3, 4.0, 2.0, 1.5, 3.3, 0.7, 2.2, 1.1, 0.4, 3.9])
    base.update(columns)
    return pd.DataFrame(base)


def _empirical(**kw):
    good = dict(data=_frame(), query="mean")
    good.update(kw)
    return statpriv.empirical.EmpiricalPrivacy(good.pop("data"), good.pop("query"), **good)


pandas = optional_extra("pandas")     # the sweep above runs without it
_needs_pandas = pytest.mark.skipif(pandas is None, reason="pandas (optional extra) missing")
EMP = _empirical() if pandas is not None else None
EMP_GOOD = dict(query="mean", individual="id", database="db", value="value",
                estimator="kde-laplace", bandwidth="silverman", workers=None, progress=None)
_CHOICES += ("query", "bandwidth", "on")
# column labels: any hashable is a label (True, b"x" too), an absent one a ValueError
_LABELS = ("individual", "database", "value")

SWEEP_EMPIRICAL = [] if pandas is None else [
    _case("EmpiricalPrivacy", _empirical, dict(data=_frame(), **EMP_GOOD), "data"),
    *[_case("EmpiricalPrivacy", _empirical, dict(data=_frame(), **EMP_GOOD), p,
            {"bandwidth": ["huge_pos"], "workers": ["none"], "progress": ["none", "bool"]}
            .get(p, ()))
      for p in ("query", "individual", "database", "value", "estimator", "bandwidth",
                "workers", "progress")],
    *[_case(f"EmpiricalPrivacy.{m}", getattr(EMP, m), dict(eps=0.5), "eps",
            ["posinf", "neginf", "negative", "huge_pos", "huge_neg", *_ARRAYS]
            if m != "deltas" else ["posinf", "neginf", "negative", "huge_pos", "huge_neg"])
      for m in ("delta", "total_risk", "deltas")],
    _case("EmpiricalPrivacy.epsilon", EMP.epsilon, dict(delta=0.1), "delta", _ARRAYS),
    *[_case("EmpiricalPrivacy.most_exposed", EMP.most_exposed, dict(k=2, eps=0.5), p,
            ["huge_pos"] if p == "k" else ["posinf", "neginf", "negative", "huge_pos",
                                           "huge_neg"])
      for p in ("k", "eps")],
    *[_case("EmpiricalPrivacy.noise_scale", EMP.noise_scale, dict(eps=0.5, distance="matching"),
            p) for p in ("eps", "distance")],
    *[_case("EmpiricalPrivacy.noise_sampler", EMP.noise_sampler,
            dict(eps=0.5, kernel="gauss", seed=1, max_negative_mass=0.05, distance="matching"),
            p, ["none", "huge_pos"] if p == "seed" else ())
      for p in ("eps", "kernel", "seed", "max_negative_mass", "distance")],
    *[_case("EmpiricalPrivacy.conditioned", EMP.conditioned, dict(on="count", bins=1), p)
      for p in ("on", "bins")],
]


@pytest.mark.filterwarnings("ignore:Gaussian-kernel noise")
@pytest.mark.parametrize("fn,good,param,valid", SWEEP_EMPIRICAL)
def test_empirical_rejects_every_class(fn, good, param, valid):
    assert_rejects_every_class(fn, good, param, valid)


@pytest.mark.parametrize("make,kw,error,match", [
    (lambda: _frame().iloc[:0], {}, ValueError, r"data is empty"),
    (lambda: _frame().drop(columns="id"), {}, ValueError, r"individual='id' is not a column"),
    (lambda: _frame().drop(columns="value"), {}, ValueError, r"value='value' is not a column"),
    (lambda: _frame(), dict(database="nope"), ValueError, r"database='nope' is not a column"),
    (lambda: _frame(value=[NAN] + [1.0] * 11), {}, ValueError,
     r"value column 'value' has 1 NaN or infinite"),
    (lambda: _frame(value=[INF] + [1.0] * 11), {}, ValueError, r"value column 'value' has 1"),
    (lambda: _frame(value=["a"] * 12), {}, ValueError, r"value column 'value' must be numeric"),
    (lambda: _frame(value=[True, False] * 6), {}, ValueError,
     r"value column 'value' must be numeric"),
    (lambda: _frame(db=[0] * 12), {}, ValueError, r"data has one database only"),
    (lambda: _frame(id=[None] + ["i1"] * 11), {}, ValueError,
     r"individual column 'id' has missing labels"),
    (lambda: _frame().to_numpy(), {}, TypeError, r"data must be a pandas"),
    (lambda: _frame(), dict(query="quantile:2"), ValueError, r"query 'quantile:q' needs"),
    (lambda: _frame(), dict(query=lambda v: 1 / 0), ZeroDivisionError,
     r"query '<lambda>' failed on a database's values"),
    (lambda: _frame(), dict(estimator="kde"), ValueError, r"estimator must be one of"),
    (lambda: _frame(), dict(bandwidth="scott"), ValueError, r"bandwidth must be one of"),
    (lambda: _frame(), dict(bandwidth=1e9), ValueError,
     r"bandwidth must lie in \[1e-06, 1e\+06\] x the standard deviation"),
])
@_needs_pandas
def test_empirical_rejects_bad_frames(make, kw, error, match):
    with pytest.raises(error, match=match):
        _empirical(data=make(), **kw)


@_needs_pandas
def test_empirical_methods_reject():
    with pytest.raises(ValueError, match=r"eps must lie in \(-inf, 700.0\]"):
        EMP.delta(710.0)            # e^eps overflows: was NaN
    with pytest.raises(ValueError, match=r"bins must be a number of buckets or at least two"):
        EMP.conditioned("count", bins=[2.0, 1.0])
    with pytest.raises(TypeError, match=r"seed must be None, an integer >= 0"):
        EMP.noise_sampler(0.5, seed="1")
    with pytest.raises(ValueError, match=r"eps = 300 .*take a smaller eps"):
        EMP.noise_sampler(300.0, kernel="gauss")


def test_new_names_errors_name_the_parameter():
    # losses ln P/Q beyond +-11000 nats: a curve's PLD moves them to +inf or
    # up to -11000 (statpriv.laws.pld); a PLDSide built by hand is refused
    curve = statpriv.from_log_pmfs([0.0, -30000.0], [-30000.0, 0.0])
    pld = curve.privacy_loss_distribution()
    assert pld.delta(0.0) == curve.delta(0.0) == 1.0
    with pytest.raises(ValueError, match=r"losses must span at most 22000 nats .* the losses "
                                         r"span 60000 nats, from -30000 to 30000"):
        statpriv.laws.pld.PLDSide([-30000.0, 30000.0], [0.5, 0.5])
    # huge grids: the size in 3 digits, not a 300-digit integer
    with pytest.raises(ValueError, match=r"value_discretization_interval=1e-300 needs 1e\+300 "
                                         r"grid points per direction"):
        statpriv.dp.laplace(1.0).privacy_loss_distribution(1e-300)
    # a grid coarser than one nat is refused by the exact curves too (was ignored)
    with pytest.raises(ValueError, match=r"value_discretization_interval must be in \(0.0, 1.0\]"):
        CURVE.privacy_loss_distribution(2.0)
    with pytest.raises(ValueError, match=r"eps0 must be in \(0.0, 700.0\]"):
        statpriv.shuffle.randomized_response(5, 2.0 ** 64)        # was OverflowError
    with pytest.raises(ValueError, match=r"eps_grid must be 1-D, got an array of shape \(\)"):
        statpriv.audit_pld(CURVE, CURVE, 0.1)                   # was IndexError
    with pytest.raises(TypeError, match=r"guarantees\[0\] must be an \(eps, delta\) pair, "
                                        r"got b'\\x00\\x00'"):
        statpriv.basic_composition(b"\x00\x00")                  # was (0.0, 0.0)
    with pytest.raises(TypeError, match=r"first must be an \(eps, delta\) pair"):
        statpriv.bounded_dependency_composition({0.5, 1e-6}, (0.5, 0.0), 0.0, 0.0)
    with pytest.raises(TypeError, match=r"curve must be a statpriv PrivacyCurve, got float"):
        statpriv.audit(0.5, 1e-3, 0.5)                            # was AttributeError
