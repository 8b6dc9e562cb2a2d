"""The scalar fast path of PrivacyCurve (a float, int or numpy float64 at the
default precision goes straight to CurveCore.log_delta1 & co.) returns what the
validating array path returns, bit for bit, and raises its errors word for word.

What "the same" means per method (the scalar results before the fast path):
log_delta* and epsilon of one value equal element 0 of the one-element array
call; delta* of one value is math.exp of that log (the array path's np.exp may
differ from libm's exp in the last bit, and the scalar delta has always been
math.exp's).
"""
import math

import numpy as np
import pytest

import statpriv
from statpriv import _core, _validate, dp, shuffle
from statpriv.noise import Gaussian, Geometric, Laplace

# every kind of core: closed forms, binomial, sampled, Poisson, per-record,
# secret sample, the pair kernel (noise, from_log_pmfs), Gaussian noise,
# thresholding, k-anonymity, shuffling, partial knowledge; a core written in
# Python (a composition's PLD core) keeps the validating path
CURVES = {
    "dp.gaussian(3)": lambda: dp.gaussian(3.0),
    "dp.laplace(2)": lambda: dp.laplace(2.0),
    "dp.laplace(17.079...)": lambda: dp.laplace(17.07938327700137),
    "dp.geometric(0.6)": lambda: dp.geometric(0.6),
    "counting(1000, 0.5)": lambda: statpriv.counting(1000, 0.5),
    "counting(10**6, 0.3)": lambda: statpriv.counting(10**6, 0.3),
    "counting(10, 5e-324)": lambda: statpriv.counting(10, 5e-324),
    "counting(50, 0.0)": lambda: statpriv.counting(50, 0.0),
    "sample_size": lambda: statpriv.counting(1000, 0.3, sample_size=100),
    "poisson": lambda: statpriv.counting(100, 0.3, sample_rate=0.2, sampling="poisson"),
    "per-record": lambda: statpriv.counting(None, [0.1, 0.5, 0.9]),
    "secret_sample": lambda: statpriv.secret_sample(100, 10, positives=30),
    "Laplace noise": lambda: statpriv.counting(100, 0.5, noise=Laplace(3.0)),
    "Gaussian noise": lambda: statpriv.counting(100, 0.5, noise=Gaussian(2.0)),
    "Geometric noise": lambda: statpriv.counting(100, 0.5, noise=Geometric(0.5)),
    "from_log_pmfs": lambda: statpriv.from_log_pmfs(np.log([0.2, 0.5, 0.3]),
                                                    np.log([0.3, 0.4, 0.3])),
    "thresholded": lambda: statpriv.thresholded(12, 0.3, 5, known=4, attacker="active"),
    "k_anonymity": lambda: statpriv.k_anonymity(14, [0.15, 0.25, 0.4], 3, source=1,
                                                target=0).upper,
    "clones": lambda: shuffle.clones(1000, 1.0),
    "partial_knowledge vertices": lambda: statpriv.partial_knowledge(20, 0.1).worst_case,
    "partial_knowledge blanket": lambda: statpriv.partial_knowledge(200, 0.1).blanket,
    "compose (Python core)": lambda: statpriv.compose(dp.laplace(2.0), times=2),
}
EPS = [-math.inf, -1.0, 0.0, 5e-324, 1e-300, 0.5, 30.0, 1e4, math.inf]
TARGETS = [0.0, 1e-300, 1e-9, 0.5, 1.0]
DIRECTIONS = ("max", "plus", "minus")


@pytest.fixture(scope="module", params=list(CURVES))
def curve(request):
    return CURVES[request.param]()


def bits(x):
    """The float's 64 bits (tells -0.0 from 0.0; NaN never expected here)."""
    assert type(x) is float, f"{x!r} is a {type(x).__name__}, not a float"
    return np.float64(x).view(np.int64)


def scalar_forms(x):
    """x as each type the fast path takes: float, numpy float64, and int where
    x is one."""
    forms = [x, np.float64(x)]
    if math.isfinite(x) and x == int(x):
        forms.append(int(x))
    return forms


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_log_delta_and_delta_equal_the_array_path(curve, direction):
    suffix = "" if direction == "max" else "_" + direction
    log_method = getattr(curve, "log_delta" + suffix)
    delta_method = getattr(curve, "delta" + suffix)
    for e in EPS:
        array_log = log_method(np.array([e]))[0]
        for x in scalar_forms(e):
            assert bits(log_method(x)) == bits(float(array_log)), (direction, e, type(x))
            assert bits(delta_method(x)) == bits(math.exp(array_log)), (direction, e, type(x))


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_epsilon_equals_the_array_path(curve, direction):
    for d in TARGETS:
        array_eps = curve.epsilon(np.array([d]), direction)[0]
        for x in scalar_forms(d):
            assert bits(curve.epsilon(x, direction)) == bits(float(array_eps)), (d, type(x))


def test_the_scalar_methods_are_the_fast_path(monkeypatch):
    """A float, int or float64 never reaches the Python validation on a C
    core; a bool, a 0-d array or precision="mp" still does."""
    curve = dp.gaussian(3.0)
    calls = []
    real_array = _validate.real_array

    def spy(name, values, **bounds):
        calls.append(name)
        return real_array(name, values, **bounds)

    monkeypatch.setattr(_validate, "real_array", spy)
    for x in (0.5, 1, np.float64(0.5)):
        curve.delta(x), curve.log_delta_minus(x), curve.epsilon(x)
        curve.epsilon(0.5, "plus"), curve.total_variation()
    assert calls == []
    curve.delta(np.array(0.5))
    assert calls == ["eps"]
    with pytest.raises(statpriv.ParameterTypeError):
        curve.delta(True)
    with pytest.raises(statpriv.ParameterTypeError):
        curve.epsilon(True)
    assert calls == ["eps", "eps", "delta"]


# (call, the error; the same through the validating path: a 0-d array)
BAD = [
    (lambda c, x: c.delta(x), math.nan, "eps must not contain NaN"),
    (lambda c, x: c.log_delta_plus(x), math.nan, "eps must not contain NaN"),
    (lambda c, x: c.delta_minus(x), math.nan, "eps must not contain NaN"),
    (lambda c, x: c.epsilon(x), math.nan, "delta must not contain NaN"),
    (lambda c, x: c.epsilon(x), 1.5, "delta must lie in [0.0, 1.0], got 1.5"),
    (lambda c, x: c.epsilon(x), -1e-9, "delta must lie in [0.0, 1.0], got -1e-09"),
    (lambda c, x: c.epsilon(x, "minus"), 2, "delta must lie in [0.0, 1.0], got 2.0"),
    (lambda c, x: c.epsilon(x), math.inf, "delta must be finite"),
    (lambda c, x: c.epsilon(x), -math.inf, "delta must be finite"),
    (lambda c, x: c.epsilon(x), 10 ** 400,
     "delta must be finite, got a number too large for float64"),
]


@pytest.mark.parametrize("name", ["dp.laplace(2)", "counting(1000, 0.5)", "Laplace noise",
                                  "compose (Python core)"])
@pytest.mark.parametrize("call, value, message", BAD)
def test_errors_are_the_validating_paths(name, call, value, message):
    curve = CURVES[name]()
    forms = [value] if isinstance(value, int) else [value, np.float64(value)]
    for x in forms:
        with pytest.raises(ValueError) as fast:
            call(curve, x)
        assert str(fast.value) == message
        assert type(fast.value) is ValueError
    if not isinstance(value, int):
        with pytest.raises(ValueError) as generic:
            call(curve, np.array(value))
        assert str(generic.value) == message


@pytest.mark.parametrize("bad", [True, np.bool_(False), "0.5", None, 0.5 + 0j])
def test_wrong_types_still_raise_parameter_type_errors(bad):
    curve = dp.laplace(2.0)
    for call in (curve.delta, curve.log_delta, curve.epsilon):
        with pytest.raises(statpriv.ParameterTypeError):
            call(bad)


def test_arguments_beyond_the_fast_path_are_still_validated():
    curve = dp.laplace(2.0)
    with pytest.raises(statpriv.ParameterTypeError, match="direction must be one of"):
        curve.epsilon(0.5, ["max"])
    with pytest.raises(ValueError, match="direction must be one of 'plus', 'minus', 'max', "
                                         "got 'both'"):
        curve.epsilon(0.5, "both")
    with pytest.raises(ValueError, match="max_terms applies to precision='mp' only"):
        curve.delta(0.5, max_terms=10)
    with pytest.raises(ValueError, match="precision must be one of"):
        curve.log_delta(0.5, precision="double")


def test_integers_beyond_float64_are_infinite_eps():
    curve = statpriv.counting(1000, 0.5)
    assert bits(curve.delta(10 ** 400)) == bits(curve.delta(math.inf))
    assert bits(curve.log_delta(-10 ** 400)) == bits(curve.log_delta(-math.inf))
    assert curve.delta(-10 ** 400) == 1.0


def test_the_delta_exponential_is_math_exp():
    """delta1 exponentiates in C with libm's exp, the function math.exp
    calls: the same bits on 20000 random points of ln delta in [-711, -1]
    (np.exp differs from it in the last bit on ~5% of such points)."""
    core = dp.gaussian(1.0)._core
    eps = np.random.default_rng(7).uniform(0.0, 38.0, 20000)
    logs = core.log_delta(eps, _core.MAX)
    assert logs.min() < -700 and logs.max() > -1.5
    delta = np.array([core.delta1(e, _core.MAX) for e in eps.tolist()])
    assert np.array_equal(delta.view(np.int64),
                          np.array([math.exp(v) for v in logs.tolist()]).view(np.int64))


def test_the_target_logarithm_is_numpys():
    """epsilon_of_delta1 takes ln delta with np.log's own float64 loop: the
    same bits as np.log on uniform, log-uniform and random-bit-pattern doubles
    of [0, 1] (glibc's log differs from numpy's AVX-512 log on ~0.1% of them)."""
    rng = np.random.default_rng(11)
    x = np.concatenate([
        rng.random(100_000), np.exp(-rng.uniform(0.0, 745.0, 100_000)),
        rng.integers(1, 0x3FF0000000000000, 100_000).view(np.float64),
        [0.0, 5e-324, 2.2250738585072014e-308, 0.5, 1.0 - 2.0 ** -53, 1.0]])
    with np.errstate(divide="ignore"):
        expected = np.log(x)
    assert np.array_equal(_core._numpy_log_at(x).view(np.int64), expected.view(np.int64))
