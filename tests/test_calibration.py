"""statpriv.calibrate: the boundary of the feasible parameter values, on its feasible side.

The exact boundaries come from closed forms solved by mpmath (the Gaussian
mechanism's delta, Balle & Wang; the Laplace mechanism's 1 - e^((eps - 1/b)/2)),
not from statpriv's curves."""
import math

import mpmath
import pytest

import statpriv
from independent_oracle import gaussian_delta_mp
from statpriv import dp


@pytest.mark.parametrize("epsilon, delta", [(1.0, 1e-5), (0.1, 1e-9), (4.0, 0.3)])
def test_gaussian_sigma_is_just_feasible(epsilon, delta):
    sigma = statpriv.calibrate(lambda s: dp.gaussian(s), epsilon=epsilon, delta=delta,
                               lower=0.05, upper=500.0)
    with mpmath.workdps(40):
        exact = mpmath.findroot(lambda s: mpmath.log(gaussian_delta_mp(s, epsilon) / delta),
                                (mpmath.mpf(0.05), mpmath.mpf(500)), solver="illinois")
    assert dp.gaussian(sigma).delta(epsilon) <= delta
    assert float(exact) <= sigma <= float(exact) * (1 + 1e-4)


def test_laplace_scale_for_pure_dp():
    # delta = 0 from eps = 1/b on: the smallest feasible b is 1/eps
    b = statpriv.calibrate(lambda s: dp.laplace(s), epsilon=0.5, delta=0.0, lower=0.1, upper=10.0)
    assert 2.0 <= b <= 2.0 * (1 + 1e-4)
    assert dp.laplace(b).delta(0.5) == 0.0


def test_the_largest_sampling_rate_is_the_boundary_from_below():
    # small rates are feasible: the answer is the largest feasible one
    q = statpriv.calibrate(lambda r: dp.gaussian(1.0, sampling_prob=r), epsilon=0.5,
                           delta=1e-3, lower=1e-4, upper=1.0)
    assert dp.gaussian(1.0, sampling_prob=q).delta(0.5) <= 1e-3
    assert dp.gaussian(1.0, sampling_prob=q * (1 + 1e-4)).delta(0.5) > 1e-3


def test_integer_parameters_give_the_exact_boundary():
    # k runs of N(0, 20^2) are dp.gaussian(20 / sqrt(k)) exactly
    k = statpriv.calibrate(lambda k: dp.gaussian(20.0 / math.sqrt(k)), epsilon=1.0,
                           delta=1e-5, lower=1, upper=2000)
    assert isinstance(k, int)
    with mpmath.workdps(40):
        assert gaussian_delta_mp(20 / mpmath.sqrt(k), 1.0) <= 1e-5
        assert gaussian_delta_mp(20 / mpmath.sqrt(k + 1), 1.0) > 1e-5


def test_no_boundary_in_the_bracket():
    with pytest.raises(ValueError, match="at both ends.*widen the bracket"):
        statpriv.calibrate(lambda s: dp.gaussian(s), epsilon=1.0, delta=1e-5, lower=10.0,
                           upper=20.0)
    with pytest.raises(ValueError, match="miss.*at both ends"):
        statpriv.calibrate(lambda s: dp.gaussian(s), epsilon=1.0, delta=1e-5, lower=0.1,
                           upper=0.2)


def test_a_parameter_that_is_not_monotone_is_refused():
    # feasible at both ends of the bracket but not in the middle: delta(eps) of
    # dp.gaussian(|v - 5| + 0.1) rises and falls again over [0, 10]
    with pytest.raises(ValueError, match="no boundary|not monotone"):
        statpriv.calibrate(lambda v: dp.gaussian(abs(v - 5.0) + 0.1), epsilon=1.0, delta=1e-3,
                           lower=0.0, upper=10.0)
    # the upper end feasible, a feasible island below the boundary (sigma = 10
    # on (1, 2), sigma = v elsewhere, feasible from v ~ 3 on): the interior
    # probes at 0.5 * 20^(i/6) see feasible, infeasible, feasible
    with pytest.raises(ValueError, match="not monotone"):
        statpriv.calibrate(lambda v: dp.gaussian(10.0 if 1.0 < v < 2.0 else v), epsilon=1.0,
                           delta=1e-3, lower=0.5, upper=10.0)


@pytest.mark.parametrize("kwargs, name", [
    ({"epsilon": -1.0}, "epsilon"), ({"delta": 1.0}, "delta"), ({"delta": -1e-9}, "delta"),
    ({"lower": 5.0, "upper": 1.0}, "lower"), ({"lower": math.nan}, "lower")])
def test_bad_input_names_the_parameter(kwargs, name):
    args = dict(epsilon=1.0, delta=1e-5, lower=0.1, upper=100.0)
    args.update(kwargs)
    with pytest.raises(ValueError, match=name):
        statpriv.calibrate(lambda s: dp.gaussian(s), **args)


def test_make_curve_must_be_callable():
    with pytest.raises(TypeError, match="make_curve"):
        statpriv.calibrate(dp.gaussian(1.0), epsilon=1.0, delta=1e-5, lower=0.1, upper=1.0)
