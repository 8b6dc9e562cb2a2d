"""statpriv.compose: tight composition on a grid, exact products, basic bounds."""
import math
import sys

import mpmath
import numpy as np
import pytest

import statpriv
from helpers import assert_matches
from independent_oracle import binomial_mp, gaussian_delta_mp, geometric_noise_mp
from statpriv import oracle

EPS = [-0.1, 0.0, 0.05, 0.2, 0.5, 1.0]


def test_exact_product_matches_the_mpmath_oracle():
    a, b = statpriv.counting(6, 0.3), statpriv.counting(5, 0.6)
    curve = statpriv.compose(a, b, exact=True)
    laws = [(x.log_p, x.log_q) for x in (a.log_pmfs(), b.log_pmfs())]
    for direction, fn in (("plus", curve.log_delta_plus), ("minus", curve.log_delta_minus),
                          ("max", curve.log_delta)):
        refs = oracle.composed_delta(laws, EPS, direction)
        for e, ours, ref in zip(EPS, fn(EPS), refs):
            assert_matches(float(ours), ref, what=f"{direction} eps={e}")
    lower, upper = curve.delta_bounds(0.2)
    assert lower == upper


def test_exact_product_with_geometric_noise_matches_mpmath():
    """Product of a noiseless count and a count with geometric(0.5) noise, against the
    hockey stick of the product laws summed in mpmath (noise tails beyond 120
    atoms weigh < 1e-36)."""
    a = statpriv.counting(5, 0.4)
    b = statpriv.counting(4, 0.3, noise=statpriv.Geometric(0.5))
    curve = statpriv.compose(a, b, exact=True)
    eps = [0.0, 0.3, 0.9]
    with mpmath.workdps(40):
        z = binomial_mp(4, 0.4)
        Pa, Qa = [mpmath.mpf(0)] + z, z + [mpmath.mpf(0)]
        Pb, Qb = geometric_noise_mp(4, 0.3, 0.5, 120)
        for e in eps:
            E = mpmath.exp(e)
            plus = mpmath.fsum(max(p * q - E * r * s, 0) for p, r in zip(Pa, Qa)
                               for q, s in zip(Pb, Qb))
            minus = mpmath.fsum(max(r * s - E * p * q, 0) for p, r in zip(Pa, Qa)
                                for q, s in zip(Pb, Qb))
            assert_matches(curve.log_delta_plus(e), plus, what=f"plus {e}")
            assert_matches(curve.log_delta_minus(e), minus, what=f"minus {e}")


@pytest.mark.parametrize("h", [None, 1e-3])
def test_grid_is_never_below_the_exact_product_and_within_its_bound(h):
    a = statpriv.counting(300, 0.3)
    b = statpriv.counting(200, 0.5, noise=statpriv.Geometric(0.8))
    exact = statpriv.compose(a, b, exact=True)
    grid = statpriv.compose(a, b, value_discretization_interval=h)
    eps = np.array([-0.2, 0.0, 0.1, 0.3, 0.6, 0.9])
    for direction in ("plus", "minus", "max"):
        ref = exact.delta_bounds(eps, direction)[1]
        lower, upper = grid.delta_bounds(eps, direction)
        assert np.all(upper >= ref * (1 - 1e-12)), direction
        assert np.all(lower <= ref * (1 + 1e-12)), direction
        assert np.all(upper - lower <= 0.2 * ref + 1e-14)      # steep deep in the tail
    assert np.allclose(grid.delta(eps), grid.delta_bounds(eps)[1], rtol=1e-14, atol=0)


@pytest.mark.parametrize("sigma, k, h", [(3.0, 9, 1e-3), (1.5, 5, 1e-3)])
def test_gaussian_composition_matches_the_composed_gaussian(sigma, k, h):
    """k Gaussian mechanisms with sigma = one with sigma / sqrt(k) (closed form of
    Balle & Wang, evaluated in mpmath) -- within the reported grid bound."""
    curve = statpriv.compose(statpriv.dp.gaussian(sigma), times=k,
                             value_discretization_interval=h)
    eps = np.array([0.0, 0.5, 1.0, 2.0])
    with mpmath.workdps(30):
        ref = np.array([float(gaussian_delta_mp(mpmath.mpf(sigma) / mpmath.sqrt(k), e))
                        for e in eps])
    lower, upper = curve.delta_bounds(eps)
    assert np.all(upper >= ref * (1 - 1e-10))
    assert np.all(lower <= ref * (1 + 1e-10))
    assert np.all(upper - lower <= 0.05 * ref)


def test_times_and_repeated_arguments_agree():
    c = statpriv.counting(400, 0.4, noise=statpriv.Geometric(0.9))
    h = 2e-4
    one = statpriv.compose(c, times=3, value_discretization_interval=h)
    three = statpriv.compose(c, c, c, value_discretization_interval=h)
    eps = np.array([0.0, 0.2, 0.5])
    assert np.allclose(one.delta(eps), three.delta(eps), rtol=1e-9, atol=1e-15)


def test_mixed_composition_is_between_the_parts_and_the_basic_bound():
    count = statpriv.counting(2000, 0.3)
    gauss = statpriv.dp.gaussian(3.0)
    both = statpriv.compose(count, gauss)
    for e1, e2 in ((0.05, 0.5), (0.1, 1.0)):
        lower, upper = both.delta_bounds(e1 + e2)
        assert lower <= count.delta(e1) + gauss.delta(e2)        # basic composition
        assert upper >= max(count.delta(e1 + e2), gauss.delta(e1 + e2))


def test_epsilon_of_a_composition():
    comp = statpriv.compose(statpriv.counting(5000, 0.3), times=10)
    for target in (1e-3, 1e-9):
        eps = comp.epsilon(target)
        assert comp.delta(eps) <= target
        assert comp.delta(eps * (1 - 1e-9)) > target * (1 - 1e-6)
    assert comp.epsilon(1.0) == 0.0
    assert comp.epsilon([1e-3, 1e-9]).shape == (2,)


def test_reference_precision_mp_on_a_small_composition():
    c = statpriv.counting(6, 0.3)
    comp = statpriv.compose(c, times=2)
    ref = comp.delta(0.2, precision="mp")
    exact = statpriv.compose(c, times=2, exact=True)
    assert abs(exact.delta(0.2) / float(ref) - 1) <= 1e-12
    assert comp.delta(0.2) >= float(ref) * (1 - 1e-12)
    with pytest.raises(ValueError, match="no mpmath reference"):
        statpriv.compose(statpriv.dp.gaussian(1.0), times=2).delta(0.1, precision="mp")


def test_composed_pld_round_trip():
    comp = statpriv.compose(statpriv.counting(300, 0.3), times=2)
    pld = comp.privacy_loss_distribution()
    assert not pld.exact and pld.discretization > 0
    again = statpriv.compose(comp, statpriv.counting(300, 0.3),
                             value_discretization_interval=pld.discretization)
    direct = statpriv.compose(statpriv.counting(300, 0.3), times=3,
                              value_discretization_interval=pld.discretization)
    assert np.allclose(again.delta([0.1, 0.3]), direct.delta([0.1, 0.3]), rtol=1e-9)


def test_bad_input():
    c = statpriv.counting(10, 0.5)
    with pytest.raises(ValueError, match="at least one"):
        statpriv.compose()
    with pytest.raises(TypeError, match="PrivacyCurve"):
        statpriv.compose(c, 0.5)
    with pytest.raises(ValueError, match="times"):
        statpriv.compose(c, times=0)
    with pytest.raises(TypeError, match="times"):
        statpriv.compose(c, times=True)
    with pytest.raises(ValueError, match="value_discretization_interval"):
        statpriv.compose(c, value_discretization_interval=0.0)
    with pytest.raises(ValueError, match="tail_mass_truncation"):
        statpriv.compose(c, tail_mass_truncation=1.0)
    with pytest.raises(TypeError, match="exact"):
        statpriv.compose(c, c, exact=1)
    with pytest.raises(ValueError, match="exactly two"):
        statpriv.compose(c, c, c, exact=True)
    with pytest.raises(ValueError, match="discrete"):
        statpriv.compose(c, statpriv.dp.gaussian(1.0), exact=True)
    with pytest.raises(ValueError, match="EXACT_MAX_ATOMS"):
        statpriv.compose(c, statpriv.counting(20000, 0.5), exact=True)
    with pytest.raises(ValueError, match="grid points"):
        statpriv.compose(statpriv.dp.gaussian(0.01), value_discretization_interval=1e-9)
    no_laws = statpriv.k_anonymity(100, [0.05, 0.05, 0.6], 5, source=0, target=1).lower
    with pytest.raises(ValueError, match="no privacy-loss distribution"):
        statpriv.compose(no_laws, c)
    with pytest.raises(ValueError, match="epsilon_error"):
        statpriv.compose(c, epsilon_error=0.0)
    with pytest.raises(ValueError, match="epsilon_error"):
        statpriv.compose(c, epsilon_error=float("nan"))
    with pytest.raises(ValueError, match="delta_error"):
        statpriv.compose(c, delta_error=-1e-9)
    with pytest.raises(ValueError, match="delta_error"):
        statpriv.compose(c, delta_error=0.5)
    with pytest.raises(ValueError, match="not both"):
        statpriv.compose(c, value_discretization_interval=1e-3, epsilon_error=1e-4)
    with pytest.raises(ValueError, match="times"):
        statpriv.compose(c, times=10 ** 10)


def test_the_automatic_grid_coarsens_until_every_part_fits():
    # dp.gaussian(1000) has a loss spread of 1e-3: the grid epsilon_error asks for
    # is 1.25e-4 or finer, on which dp.laplace(2e-4), whose loss reaches 5000
    # nats, needs 4e7 points (at most grid_pld.MAX_GRID = 4e6): h is coarsened
    # to fit it, not refused.  (choose_interval alone, no grid built; the
    # composed spread as compose_on_grid measures it on the parts' grids where
    # the spread from the tails overstates it -- a count of 50 at pi = 8.8e-19
    # beside a sample of 55 from 7e6 records asked for 4.2e7 points so)
    from statpriv.accounting.composition import grid
    from statpriv.laws import grid_pld
    parts = [(statpriv.dp.gaussian(1000.0), 1), (statpriv.dp.laplace(2e-4), 1)]
    h = grid.choose_interval(parts, 1e-5, 1e-15 / 8, window_spread=1e-3)
    assert 5000.0 / h + 1 <= grid_pld.MAX_GRID
    assert 5000.0 / h + 1 >= 0.99 * grid_pld.MAX_GRID      # no coarser than it must be
    # a part that does not fit even on the coarsest grid (h = 1): refused, with the
    # cost and the parameters that matter
    with pytest.raises(ValueError, match=r"loss reaches 1e\+07 .*tail_mass_truncation.*"
                                         r"1e\+07 grid points per direction even at the "
                                         r"coarsest grid"):
        statpriv.compose(statpriv.dp.laplace(1e-7))


@pytest.mark.exhaustive
def test_three_near_deterministic_geometric_mechanisms_have_a_useful_lower_end():
    # dp.geometric(5e-324) puts all but O(alpha) of its loss at ln(1/alpha): three
    # of them, delta(eps) = 1 - e^(eps - 3 ln(1/alpha)) and epsilon(delta) =
    # 3 ln(1/alpha) + ln(1 - delta).  The lower end is 0 only within 4 n u of
    # delta = 1 (n = 8e5 window points: delta > 1 - 3.6e-10; docs/composition.md)
    curve = statpriv.compose(statpriv.dp.geometric(5e-324), times=3)
    top = -3.0 * math.log(5e-324)
    for delta, width in ((0.5, 1e-2), (0.99, 1e-2), (1.0 - 1e-9, 5.0)):
        truth = top + math.log1p(-delta)
        lower, upper = curve.epsilon_bounds(delta)
        assert lower <= truth <= upper <= lower + width, (delta, lower, upper, truth)


def test_basic_and_bounded_dependency_composition():
    assert statpriv.basic_composition((0.5, 1e-6), (0.25, 1e-7), times=2) == (1.5, 2.2e-06)
    assert statpriv.basic_composition((1.0, 0.6), (1.0, 0.6)) == (2.0, 1.0)
    eps, delta = statpriv.bounded_dependency_composition((0.5, 1e-6), (0.5, 1e-6), 0.1, 1e-7)
    assert eps == pytest.approx(1.1, rel=1e-15) and delta == pytest.approx(2.1e-6, rel=1e-15)
    assert statpriv.bounded_dependency_composition((0.5, 0.0), (0.5, 0.0), 0.0, 0.0) == \
        statpriv.basic_composition((0.5, 0.0), (0.5, 0.0))
    with pytest.raises(ValueError, match="at least one"):
        statpriv.basic_composition()
    with pytest.raises(TypeError, match="pair"):
        statpriv.basic_composition(0.5)
    with pytest.raises(ValueError, match="delta"):
        statpriv.basic_composition((0.5, 2.0))
    with pytest.raises(ValueError, match="eps"):
        statpriv.basic_composition((-0.5, 0.1))
    with pytest.raises(ValueError, match="alpha"):
        statpriv.bounded_dependency_composition((0.5, 0.0), (0.5, 0.0), -1.0, 0.0)
    with pytest.raises(ValueError, match="beta"):
        statpriv.bounded_dependency_composition((0.5, 0.0), (0.5, 0.0), 0.0, 1.5)
    assert math.isinf(statpriv.basic_composition((math.inf, 0.0))[0])


@pytest.mark.exhaustive
def test_grid_brackets_the_exact_product_sweep():
    """Random pairs of discrete curves (counts, sampled, noisy, secret sample): the
    grid curve is never below the exact product and its bracket contains it."""
    rng = np.random.default_rng(9)
    makers = [
        lambda: statpriv.counting(int(rng.integers(20, 3000)), float(rng.uniform(0.05, 0.95))),
        lambda: statpriv.counting(int(rng.integers(50, 2000)), float(rng.uniform(0.1, 0.9)),
                                  noise=statpriv.Geometric(float(rng.uniform(0.3, 0.95)))),
        lambda: statpriv.counting(int(rng.integers(100, 3000)), float(rng.uniform(0.1, 0.9)),
                                  sample_rate=float(rng.uniform(0.05, 0.9)), sampling="poisson"),
        lambda: statpriv.secret_sample(int(rng.integers(200, 2000)), 100, 80),
        lambda: statpriv.dp.geometric(float(rng.uniform(0.2, 0.9))),
    ]
    eps = np.array([-0.3, 0.0, 0.05, 0.2, 0.5, 1.0, 2.0])
    for _ in range(25):
        a, b = (makers[int(rng.integers(len(makers)))]() for _ in range(2))
        exact = statpriv.compose(a, b, exact=True)
        h = float(rng.choice([1e-4, 1e-3]))
        grid = statpriv.compose(a, b, value_discretization_interval=h)
        for direction in ("plus", "minus"):
            ref = exact.delta_bounds(eps, direction)[1]
            lower, upper = grid.delta_bounds(eps, direction)
            assert np.all(upper >= ref * (1 - 1e-12)), (a, b, direction)
            assert np.all(lower <= ref * (1 + 1e-12)), (a, b, direction)
        target = float(rng.choice([1e-2, 1e-4, 1e-6]))
        assert grid.epsilon(target) >= exact.epsilon(target) * (1 - 1e-12) - 1e-15


def test_degenerate_parts():
    """A part that reveals the target (n = 1: all mass at +inf) makes delta = 1."""
    for comp in (statpriv.compose(statpriv.counting(1, 0.5), statpriv.counting(100, 0.3)),
                 statpriv.compose(statpriv.counting(1, 0.5), statpriv.counting(100, 0.3),
                                  exact=True),
                 statpriv.compose(statpriv.counting(10, 1.0), times=3)):
        assert np.all(comp.delta([0.0, 0.5, 5.0]) == 1.0)
        assert comp.epsilon(0.1) == math.inf
        assert comp.epsilon(1.0) == 0.0


# -- compose(exact=True): hangs, lost +inf masses, the zero point ------------------

def test_exact_product_epsilon_is_inf_without_a_search():
    # mass at +inf in the minus direction (positives=0): inf at once, no bisection
    c = statpriv.compose(statpriv.counting(14, 0.5), statpriv.secret_sample(798316, 9, positives=0),
                         exact=True)
    assert c.epsilon(1e-6, direction="minus") == math.inf
    assert c.epsilon(0.0, direction="minus") == math.inf


def test_exact_product_keeps_plus_inf_mass_below_the_float_range():
    # P = 1e-300^7 ... on outcomes with Q = 0: delta > 0 at every eps
    c = statpriv.compose(statpriv.counting(None, [0.0] * 3 + [1e-300] * 7 + [0.0] * 4), times=2,
                         exact=True)
    assert c.epsilon(0.0, direction="plus") == math.inf


@pytest.mark.parametrize("build, parts", [
    (lambda: statpriv.compose(statpriv.counting(33, 0.5, sample_size=8),
                              statpriv.counting(31, 0.9999999999997639, sample_size=3), exact=True),
     lambda O: (O.subsample(33, 0.5, 8), O.subsample(31, 0.9999999999997639, 3))),
    (lambda: statpriv.compose(statpriv.secret_sample(60, 3, positives=59), times=2, exact=True),
     lambda O: (O.secret_sample(60, 3, 59), O.secret_sample(60, 3, 59))),
])
def test_exact_product_near_its_zero_point(build, parts):
    import independent_oracle as O
    curve, orc = build(), O.product(*parts(O))   # mpmath over outcome pairs
    z = orc.zero_point("plus")
    assert curve.epsilon(0.0, direction="plus") == O.smallest_float_at_least(z)
    for k in (3, 9, 13):
        eps = float(z * (1 - mpmath.mpf(10) ** -k))
        for e in (eps, math.nextafter(O.smallest_float_at_least(z), 0.0)):
            truth = orc.deltas([e])[0][0]
            ours = curve.log_delta_plus(e)
            err = math.expm1(float(mpmath.mpf(ours) - mpmath.log(truth)))
            assert -1e-12 <= err <= 1e-12, (k, e, err)


def _log_delta_error(curve, orc, eps, direction):
    """ours / truth - 1 at eps, truth the mpmath product laws (tests/independent_oracle.py)."""
    ours = {"plus": curve.log_delta_plus, "minus": curve.log_delta_minus,
            "max": curve.log_delta}[direction](eps)
    return math.expm1(float(mpmath.mpf(ours) - mpmath.log(orc.delta(eps, direction))))


@pytest.mark.parametrize("eps, direction", [(40.000000019419666, "minus"),
                                            (40.000000034944485, "plus"),
                                            (39.99999965941966, "minus"),
                                            (39.99999967494448, "max")])
def test_exact_product_of_close_losses_keeps_their_gaps(eps, direction):
    """Randomized response (losses +-40, 0) times a count sampled from 7.8e8 records
    (losses within 7.5e-8 of 0): the product's losses 40 + l sit 5.2e-9 apart,
    beyond long double resolution at 40 (3.5e-18, 7e-10 of a gap) unless the sums
    carry their low parts; delta there was 6.5e-11 below the truth (minus, the first
    eps) and 8e-12 above it."""
    import independent_oracle as O
    n, pi, m = 784489069, 0.4422285499137264, 26
    curve = statpriv.compose(statpriv.dp.randomized_response(40.0, 10920242373),
                             statpriv.counting(n, pi, sample_size=m), exact=True)
    orc = O.product(O.randomized_response(40.0, 10920242373), O.subsample(n, pi, m))
    err = _log_delta_error(curve, orc, eps, direction)
    assert -1e-14 <= err <= 1e-12, err


@pytest.mark.parametrize("a, b", [((0.5, 2), (2.746668849594804, 2)),
                                  ((11.544401832926672, 106766), (11.544401832926672, 106766)),
                                  ((40.0, 321267162), (0.0, 11324862)),
                                  ((10.087327732439775, 59), (1.0, 999999999999))])
def test_exact_product_of_randomized_responses_keeps_an_exact_zero_point(a, b):
    """ln P/Q of randomized response is +-eps0 or 0 exactly, so the product's largest
    loss is eps0_a + eps0_b: where that sum is a float, epsilon(0) is that float
    (it was the next one up, delta there ~e^-68 instead of 0), and delta at the
    float below is the truth's."""
    import independent_oracle as O
    from fractions import Fraction
    zero = a[0] + b[0]
    assert Fraction(zero) == Fraction(a[0]) + Fraction(b[0])       # the sum is exact
    curve = statpriv.compose(statpriv.dp.randomized_response(*a),
                             statpriv.dp.randomized_response(*b), exact=True)
    orc = O.product(O.randomized_response(*a), O.randomized_response(*b))
    for direction in ("plus", "minus", "max"):
        assert curve.epsilon(0.0, direction=direction) == zero
    assert curve.log_delta(zero) == -math.inf and orc.delta(zero) == 0
    below = math.nextafter(zero, 0.0)
    for direction in ("plus", "minus"):
        assert -1e-14 <= _log_delta_error(curve, orc, below, direction) <= 1e-12


def test_only_exact_log_ratios_skip_the_loss_error_bound():
    """Randomized response's PLD says its losses are exact; the laws of its
    subsampled pair (mixtures, rounded log ratios) and of a count do not."""
    rr = statpriv.dp.randomized_response(1.0, 3)
    assert rr.privacy_loss_distribution().plus.losses_exact
    assert rr.privacy_loss_distribution().minus.losses_exact
    for curve in (rr.subsample(0.5, sampling="poisson"), statpriv.counting(10, 0.3)):
        assert not curve.privacy_loss_distribution().plus.losses_exact
    # a zero point of an inexact part is still rounded up: never below the truth
    c = statpriv.compose(rr, statpriv.counting(33, 0.5, sample_size=8), exact=True)
    import independent_oracle as O
    z = O.product(O.randomized_response(1.0, 3), O.subsample(33, 0.5, 8)).zero_point("plus")
    assert c.epsilon(0.0, direction="plus") >= z


def test_exact_product_large_path_agrees_with_the_materialized_one(monkeypatch):
    from statpriv.accounting.composition import exact
    a, b = statpriv.counting(60, 0.5), statpriv.counting(40, 0.3)
    small = statpriv.compose(a, b, exact=True)
    monkeypatch.setattr(exact, "EXACT_PRODUCT_ATOMS", 10)
    large = statpriv.compose(a, b, exact=True)
    assert type(large.laws.plus).__name__ == "_ProductSide"
    eps = [0.0, 0.1, 0.7, 3.0]
    for direction in ("plus", "minus"):
        want = np.array([float(x) for x in oracle.composed_delta(
            [(x.log_p, x.log_q) for x in (a.log_pmfs(), b.log_pmfs())], eps, direction)])
        for c in (small, large):
            got = c.delta_plus(eps) if direction == "plus" else c.delta_minus(eps)
            assert np.all(got >= want * (1 - 1e-12))
            np.testing.assert_allclose(got, want, rtol=1e-9)
        for d in (1e-3, 1e-9):
            e_large, e_small = (c.epsilon(d, direction=direction) for c in (large, small))
            assert e_large == e_small or abs(e_large - e_small) < 1e-9


def test_bounds_of_the_max_skip_only_a_side_that_cannot_raise_it():
    curve = statpriv.dp.gaussian(1.0, sampling_prob=0.1).compose(50)
    deltas = np.array([1e-5, 1e-3])
    lo, hi = curve.epsilon_bounds(deltas)
    sides = curve.grid_sides
    # the minus direction's upper end is below the plus direction's lower end:
    # its lower side was not built
    assert ("minus", False) not in sides
    logs = np.log(deltas)
    assert np.all(sides[("minus", True)].epsilon(logs) <= sides[("plus", False)].epsilon(logs))
    full = [np.maximum(np.maximum(sides[("plus", u)].epsilon(logs),
                                  sides[("minus", u)].epsilon(logs)), 0.0) for u in (False, True)]
    assert np.array_equal(lo, full[0]) and np.array_equal(hi, full[1])
    eps = np.array([0.5, 2.0])
    dlo, dhi = curve.delta_bounds(eps)
    full = [np.exp(np.maximum(sides[("plus", u)].log_delta(eps),
                              sides[("minus", u)].log_delta(eps))) for u in (False, True)]
    assert np.array_equal(dlo, full[0]) and np.array_equal(dhi, full[1])


def test_a_direction_chernoff_places_below_is_not_read_back():
    # DP-SGD's remove direction: its eps at 1e-5 is ~1.4 against the add
    # direction's ~1.8, and Chernoff's bound of its measure at the larger eps
    # is already below 1e-5 -- its upper side is never read back, and the
    # answers are those with it read back
    curve = statpriv.dp.gaussian(1.0, sampling_prob=0.01).compose(300)
    lo, hi = curve.epsilon_bounds(1e-5)
    eps = curve.epsilon(1e-5)
    sides = curve.grid_sides
    assert not sides[("minus", True)]._readbacks
    log_t = np.array([math.log(1e-5)])
    plus = sides[("plus", True)].epsilon(log_t)[0]
    minus = sides[("minus", True)].epsilon(log_t)[0]
    assert minus < plus and hi == eps == plus
    assert lo == sides[("plus", False)].epsilon(log_t)[0]
    # the bound it rests on: Chernoff's at that eps is below the target, and
    # above the side's own delta there
    bound = sides[("minus", True)].chernoff_log_delta(np.array([plus]))[0]
    assert sides[("minus", True)].log_delta(np.array([plus]))[0] <= bound < math.log(1e-5)


def test_both_directions_read_back_in_two_threads_give_the_same_bits(monkeypatch):
    from statpriv.accounting.composition import composed
    def build():
        return statpriv.compose(statpriv.counting(10 ** 4, 0.3), times=200)
    targets = np.array([1e-9, 1e-6, 1e-3])
    beside = composed._beside(build().grid_sides[("plus", True)],
                              build().grid_sides[("minus", True)], np.log(targets))
    assert beside                 # (both directions of an asymmetric count are needed)
    together = build()
    got = (together.epsilon(targets), together.epsilon_bounds(targets))
    monkeypatch.setattr(composed, "_beside", lambda *args: False)
    alone = build()
    want = (alone.epsilon(targets), alone.epsilon_bounds(targets))
    assert np.array_equal(got[0], want[0])
    assert all(np.array_equal(a, b) for a, b in zip(got[1], want[1]))


def test_no_second_thread_once_every_tilt_is_read_back(monkeypatch):
    from statpriv.accounting.composition import composed
    curve = statpriv.compose(statpriv.counting(10 ** 4, 0.3), times=200)
    first = (curve.epsilon(1e-6), curve.delta(0.3), curve.epsilon_bounds(1e-6))
    started = []
    monkeypatch.setattr(composed._threads, "in_thread",
                        lambda *args: started.append(args) or (lambda: None))
    # (the same queries again: their tilts are read back, nothing to share out)
    again = (curve.epsilon(1e-6), curve.delta(0.3), curve.epsilon_bounds(1e-6))
    assert not started and again == first


def test_one_fresh_composition_queried_from_many_threads():
    from concurrent.futures import ThreadPoolExecutor

    def build():
        return statpriv.compose(statpriv.counting(10 ** 4, 0.3), statpriv.dp.gaussian(30.0),
                                times=100)
    targets = [1e-9, 1e-6, 1e-3, 1e-2]
    expected = [build().epsilon_bounds(t) for t in targets]
    shared = build()              # its tilts and read-backs built by the threads at once
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)   # (threads switched as often as the interpreter can)
    try:
        with ThreadPoolExecutor(max_workers=4) as pool:
            got = list(pool.map(shared.epsilon_bounds, targets * 2))
    finally:
        sys.setswitchinterval(switch)
    assert got == expected * 2


@pytest.mark.parametrize("parts, zero_point", [
    ((statpriv.dp.laplace(2.0),), 0.5),
    ((statpriv.dp.laplace(2.0),) * 3, 1.5),
    ((statpriv.dp.geometric(0.5),) * 3, 3.0 * math.log(2.0)),
])
def test_epsilon_bounds_at_delta_zero_contain_the_zero_point(parts, zero_point):
    # the true eps at delta = 0 is the sum of the parts' largest losses
    # (Laplace: 1/b each; geometric: -ln alpha each); the lower end once read
    # the window's end, above it (0.50083 for one Laplace(2))
    lower, upper = statpriv.compose(*parts).epsilon_bounds(0.0)
    assert lower <= zero_point <= upper
    assert lower > zero_point - 0.01          # and is not a vacuous 0


def test_a_steep_tilt_never_reads_masses_it_cannot_hold():
    # at the steepest tilts of 3 x [Laplace(710) + Laplace(0.574)] the masses
    # at the low end of the window are below the float range in the tilted
    # scale: they were capped to 0 and delta(1.787) read 1e-300 there (true
    # 0.52), so epsilon(1e-6) came back 1.787 (true: just below the zero
    # point 3/710 + 3/0.574 = 5.229); found by the fuzz harness
    b1, b2 = 710.0, 0.5741836547851563
    curve = statpriv.compose(statpriv.dp.laplace(b1), statpriv.dp.laplace(b2), times=3,
                             tail_mass_truncation=1e-15)
    zero_point = 3.0 / b1 + 3.0 / b2
    # each Laplace loss sits at its largest value 1/b with probability 1/2, so
    # delta(eps) >= 2^-6 (1 - e^(eps - zero_point)): 3.2e-3 at eps = 5.0
    assert 2.0 ** -6 * -math.expm1(5.0 - zero_point) > 1e-6
    eps = curve.epsilon(1e-6)
    assert 5.0 < eps <= zero_point + 1e-3
    lower, upper = curve.epsilon_bounds(1e-6)
    assert lower <= eps == upper
    assert curve.delta(eps) <= 1e-6
    for key in (("plus", True), ("minus", True)):
        side = curve.grid_sides[key]
        for q in range(len(side.thetas)):
            # every tilt's read-back is an upper bound: at 1.787 delta is >= 2^-6 (1 - e^-3.4)
            assert side.readback(q).log_delta(np.array([1.787]))[0] >= math.log(0.015)


def test_assembled_upper_measure_has_total_mass_at_most_one():
    # each grid point's tightest upper bound over the tilts summed to 1 + 2.2e-9
    # here (found by the fuzz harness); the excess comes off the lowest losses
    curve = statpriv.compose(statpriv.dp.geometric(0.001), statpriv.dp.geometric(0.1), times=2,
                             tail_mass_truncation=1e-15)
    pld = curve.privacy_loss_distribution()
    side = pld.side("plus")
    total = np.sum(np.asarray(side.probs, dtype=np.longdouble)) + side.infinity_mass
    assert total <= 1 + 1e-15
    # still pessimistic: its delta is at or above the curve's lower end
    eps = np.linspace(0.0, 12.0, 25)
    lower, _ = curve.delta_bounds(eps, "plus")
    assert np.all(pld.delta(eps, "plus") >= lower * (1 - 1e-12))
