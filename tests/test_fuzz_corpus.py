"""Replay of the fuzzing corpus (tests/data/fuzz/, made by tools/fuzz_curves.py):
every input goes through the fuzzer's checks again -- an accepted input's curve
has delta in [0, 1], non-increasing, a finite log_delta where delta > 0 and an
epsilon consistent with delta; a rejected input raises ValueError/TypeError
naming a parameter -- with the fuzzer's per-input time limit.  The inputs that
found bugs are among them; the named tests below pin those bugs directly."""
import importlib.util
import math
import pathlib

import pytest

import statpriv

ROOT = pathlib.Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "data" / "fuzz"
# inputs whose curves cost 5-10 s each to put on a loss grid (k-anonymity
# upper curves, shuffled randomized response with n = 10), and a former
# timeout now accepted in ~5 s: replayed with -m exhaustive
SLOW_CORPUS = ROOT / "tests" / "data" / "fuzz_slow"


def _fuzz_curves():
    spec = importlib.util.spec_from_file_location("fuzz_curves", ROOT / "tools" / "fuzz_curves.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# the corpus in this many slices, one test each (the run's workers share them)
SLICES = 8


@pytest.mark.parametrize("part", range(SLICES))
def test_corpus_replays_through_the_fuzz_checks(part):
    fuzz = _fuzz_curves()
    files = sorted(CORPUS.iterdir())
    assert len(files) >= 50, "the corpus is missing"
    mine = files[part::SLICES]
    counts = fuzz.replay([str(path) for path in mine])
    assert sum(counts.values()) == len(mine)
    # both branches of the checks are exercised in every slice, not only rejections
    assert counts.get("accepted", 0) >= 3 and counts.get("rejected", 0) >= 3, counts


@pytest.mark.exhaustive
def test_slow_corpus_replays_through_the_fuzz_checks():
    files = sorted(SLOW_CORPUS.iterdir())
    assert files, "the slow corpus is missing"
    counts = _fuzz_curves().replay([str(path) for path in files])
    assert counts.get("accepted", 0) == len(files), counts


@pytest.mark.parametrize("make", [lambda: statpriv.dp.laplace(6.951983e-318),
                                  lambda: statpriv.dp.gaussian(1e-300),
                                  lambda: statpriv.dp.gaussian(1e-160)])
def test_pld_of_a_vanishing_dp_parameter_is_a_value_error(make):
    # found by the fuzzer: 1/b overflowed to inf (OverflowError in math.floor)
    # or 2 sigma^2 underflowed to 0 (ZeroDivisionError) building the grid
    # (refused by the grid size, or because delta does not reach the tail at a
    # finite eps on the connect-the-dots grid)
    curve = make()
    message = "value_discretization_interval|tail_mass_truncation"
    with pytest.raises(ValueError, match=message):
        curve.privacy_loss_distribution()
    with pytest.raises(ValueError, match=message):
        statpriv.compose(curve, statpriv.counting(10, 0.5))


@pytest.mark.parametrize("make", [
    lambda: statpriv.secret_sample(10000, 858, 7, noise=statpriv.Laplace(1e-9)),
    lambda: statpriv.counting(2, 0.09421685939435775, sample_rate=0.5, sampling="poisson",
                              noise=statpriv.Laplace(1.1102230246251565e-16))])
def test_laplace_noise_delta_at_inf_is_the_limit_past_the_zero_point(make):
    # found by the fuzzer: the cells' Q masses e^(-1/scale) underflow to 0,
    # so P's mass there was counted as alone at eps = inf: delta(inf) > 0 =
    # delta(zero point), and epsilon(d > 0) = inf while epsilon(0) is finite
    curve = make()
    zero = curve.epsilon(0.0)
    assert math.isfinite(zero) and curve.delta(zero) == 0.0
    assert curve.delta(math.inf) == 0.0
    for target in (1e-300, 1e-12):
        eps = curve.epsilon(target)
        assert eps <= zero and curve.delta(eps) <= target


def test_epsilon_below_2_to_minus_390_is_found_exactly():
    # found by the fuzzer: an answer far below 1 took more halvings of [0, 1]
    # than the search's evaluation budget, and 2^-397 = 3.1e-120 came back
    # (valid, delta there <= target, but not the smallest eps: epsilon(0) was
    # 2.9e-247, below it)
    curve = statpriv.shuffle.randomized_response(1, 2.941486746436083e-247)
    zero = curve.epsilon(0.0)
    eps = curve.epsilon(1e-300)
    assert 0.0 < eps <= zero < 1e-246
    assert curve.delta(eps) <= 1e-300 < curve.delta(math.nextafter(eps, 0.0))


def test_laplace_scale_at_the_smallest_subnormal_is_defined_behaviour():
    # found by the fuzzer under UBSan (fatal in tools/sanitize_tests.sh): the
    # scaled sums of a Laplace cell at scale 5e-324 passed e^(-2.9e323) to
    # sp_fast_expl, which converted -4e323 to int (undefined; 0 came out)
    curve = statpriv.counting(10, 0.45076669413966286, sample_rate=1e-300, sampling="poisson",
                              noise=statpriv.Laplace(5e-324))
    delta = curve.delta([0.0, 1.0, math.inf])
    assert ((0.0 <= delta) & (delta <= 1.0)).all()
    assert delta[0] >= delta[1] >= delta[2]


def test_k_anonymity_epsilon_search_at_overflowing_e_eps_is_defined_behaviour():
    # found by the fuzzer under UBSan (fatal in tools/sanitize_tests.sh): the
    # epsilon search tries eps up to DBL_MAX, e^eps = inf made the first
    # cell u = floor(inf / inf) + 1 a conversion of NaN to long (undefined)
    ka = statpriv.k_anonymity(234, [1.390671161566976e-309, 5.500000000000001e-301, 0.05], 2,
                              source=0, target=1)
    for curve in (ka.lower, ka.upper):
        eps = curve.epsilon(1e-12)
        assert eps >= 0.0
        assert not math.isfinite(eps) or curve.delta(eps) <= 1e-12
        assert curve.delta(1e300) <= curve.delta(1.0)


def test_laplace_scale_below_1e_308_has_an_infinite_zero_point_bound():
    # found by the fuzzer: 1/b = 8.6e314 overflows a double, and rounding the
    # exact ln of the tail ratio up to a double raised OverflowError
    curve = statpriv.counting(100, 8.854538000696023e-159, sample_size=100,
                              noise=statpriv.Laplace(1.166609567e-315))
    delta = curve.delta([0.0, 1.0, math.inf])
    assert ((0.0 <= delta) & (delta <= 1.0)).all() and delta[0] >= delta[1] >= delta[2]


@pytest.mark.parametrize("h", [5e-324, 1e-300])
def test_a_subnormal_grid_of_atoms_is_refused_naming_value_discretization_interval(h):
    # found by the fuzzer: the atoms' grid indices losses / h passed 2^63 and
    # wrapped around in the int64 cast (numpy's bincount: "'list' argument
    # must have no negative elements"); the losses span 7.86 nats here
    with pytest.raises(ValueError, match=rf"value_discretization_interval={h!r} needs .* grid "
                                         r"points for the atoms \(at most 4000000\): it must be "
                                         r"in \[1\.97e-06, 1\]"):
        statpriv.compose(statpriv.counting(52, .5), statpriv.counting(10, .5),
                         value_discretization_interval=h)
