"""statpriv.accounting: export to dp-accounting, the accountant adapter, audits,
and the dp-accounting conventions (aliases, sampling_prob, sensitivity).

dp-accounting is in the test extra: imported directly, never skipped.
References: mpmath sums from the definitions, dp-accounting's own exact
(undiscretised) privacy losses, and closed forms evaluated with scipy.
"""
import math

import mpmath
import numpy as np
import pytest
from dp_accounting import dp_event, privacy_accountant
from dp_accounting.pld import pld_privacy_accountant
from dp_accounting.pld import privacy_loss_distribution as dpl
from dp_accounting.pld import privacy_loss_mechanism as dpm
from scipy import stats

import statpriv
from statpriv import _connect_dots as connect_dots, accounting
from statpriv.curve import export

H = 1e-3          # the default 1e-4 is tested where it is cheap; 1e-3 keeps grids short
# eps off the loss grid (a grid point is where connect-the-dots is exact)
EPS = np.sort(np.concatenate([np.linspace(-0.3, 0.6, 37) + 0.37 * H, [0.0, 0.05 + 0.5 * H]]))
REPLACE_ONE = privacy_accountant.NeighboringRelation.REPLACE_ONE


def _mp_count_delta(n, pi, eps):
    """delta(eps) of counting(n, pi) from the definition: S ~ Bin(n-1, pi),
    P(j) = Pr[S = j-1], Q(j) = Pr[S = j], max of the two hockey sticks."""
    with mpmath.workdps(40):
        b = [mpmath.binomial(n - 1, k) * mpmath.mpf(pi) ** k * (1 - mpmath.mpf(pi)) ** (n - 1 - k)
             for k in range(n)]
        p = [mpmath.mpf(0)] + b
        q = b + [mpmath.mpf(0)]
        t = mpmath.exp(eps)
        plus = mpmath.fsum(max(x - t * y, 0) for x, y in zip(p, q))
        minus = mpmath.fsum(max(y - t * x, 0) for x, y in zip(p, q))
        return float(max(plus, minus))


def _export_bounds(curve, pld, eps, h=H, tail=1e-15):
    """(pld's delta, curve.delta(eps), (1 + c) curve.delta(eps - h) + T): the
    export must lie between the last two (docs/accounting.md)."""
    exact = curve.delta(eps)
    got = pld.get_delta_for_epsilon(eps)
    tail = max(tail, 1e-9 * curve.delta(math.inf))
    upper = curve.delta(eps - h) * (1 + export._ctd_inflation(h)) + tail
    return got, exact, upper


def _within(curve, pld, eps, h=H, tail=1e-15):
    """curve.delta(eps) <= pld's delta <= (1 + c) curve.delta(eps - h) + T."""
    got, exact, upper = _export_bounds(curve, pld, eps, h, tail)
    assert np.all(got >= exact * (1 - 1e-12)), np.min(got / exact)
    assert np.all(got <= upper * (1 + 1e-12) + 1e-16), np.max(got - upper)
    return got, exact


# -- export ------------------------------------------------------------------
def test_export_counting_against_mpmath_definition():
    curve = statpriv.counting(30, 0.5)
    pld = curve.to_dp_accounting()                        # h = 1e-4
    for eps in (0.0, 0.1 + 0.37e-4, 0.5 + 0.37e-4, 1.2 + 0.37e-4):
        ref = _mp_count_delta(30, 0.5, eps)
        got = pld.get_delta_for_epsilon(eps)
        assert ref <= got <= ref * (1 + 1e-6)          # exact at grid points, chord between


@pytest.mark.parametrize("make", [
    lambda: statpriv.counting(1000, 0.5),
    lambda: statpriv.counting(10**5, 0.01),
    lambda: statpriv.counting(None, [0.1, 0.5, 0.9, 0.2] * 10),
    lambda: statpriv.secret_sample(2000, 100, positives=300),
    lambda: statpriv.counting(300, 0.3, noise=statpriv.Laplace(3.0)),
    lambda: statpriv.counting(2000, 0.3, sample_size=100),
    lambda: statpriv.dp.laplace(2.0),
    lambda: statpriv.dp.gaussian(3.0),
    lambda: statpriv.dp.geometric(0.6),
    lambda: statpriv.dp.geometric(0.6, sensitivity=3),
], ids=["count", "count-rare", "per-record", "secret", "laplace-noise", "sampled",
        "dp-laplace", "dp-gaussian", "dp-geometric", "dp-geometric-s3"])
def test_export_is_pessimistic_and_within_the_discretisation_bound(make):
    curve = make()
    got, exact, upper = _export_bounds(curve, curve.to_dp_accounting(H), EPS)
    assert np.all(got >= exact * (1 - 1e-12)), np.min(got / exact)            # pessimistic
    assert np.all(got <= upper * (1 + 1e-12) + 1e-16), np.max(got - upper)    # within the bound


def test_pmf_route_is_pessimistic_and_looser_than_connect_the_dots():
    curve = statpriv.counting(1000, 0.5)
    ctd, exact = _within(curve, curve.to_dp_accounting(H, method="connect_dots"), EPS)
    pmf, _ = _within(curve, curve.to_dp_accounting(H, method="pmf"), EPS)
    live = exact > 1e-13
    # the measured reason for method="auto" (docs/accounting.md)
    assert np.median(pmf[live] / exact[live] - 1) > 100 * np.median(ctd[live] / exact[live] - 1)


def test_pmf_route_equals_dp_accountings_two_pmf_factory_lower_first():
    # n = 21: no loss on a grid point (where our rounding adds one bin for the
    # logs' own rounding error, e.g. the loss 0 of counting(20, 0.3) at j = 6)
    curve = statpriv.counting(21, 0.3)
    laws = curve.log_pmfs()
    lp = {i: v for i, v in enumerate(laws.log_p.tolist())}
    lq = {i: v for i, v in enumerate(laws.log_q.tolist())}
    # dp-accounting takes the LOWER law first: (Q, P) is the remove side (delta_plus)
    theirs = dpl.from_two_probability_mass_functions(lq, lp, symmetric=False,
                                                     value_discretization_interval=H)
    ours = curve.to_dp_accounting(H, method="pmf", tail_mass=0.0)
    grid = np.linspace(-1.0, 2.0, 301) + 0.37 * H
    np.testing.assert_allclose(ours.get_delta_for_epsilon(grid),
                               theirs.get_delta_for_epsilon(grid), rtol=1e-12, atol=1e-17)
    swapped = dpl.from_two_probability_mass_functions(
        lp, lq, value_discretization_interval=H)              # upper first: delta_minus
    # dp-accounting's pessimistic grid rounds each loss up by less than H:
    # delta_minus(eps) <= its delta(eps) <= delta_minus(eps - H)
    got = swapped.get_delta_for_epsilon(grid)
    exact, upper = curve.delta_minus(grid), curve.delta_minus(grid - H)
    assert np.all(got >= exact * (1 - 1e-12)), np.min(got / exact)
    assert np.all(got <= upper * (1 + 1e-12) + 1e-16), np.max(got - upper)
    assert np.all(exact < upper)        # the bracket has width: both sides can fail


def test_connect_the_dots_equals_dp_accountings_fixed_gap_factory():
    from dp_accounting.pld import pld_pmf
    curve = statpriv.counting(50, 0.3)
    grid = np.arange(-2000, 3001)
    deltas = curve.delta_plus(grid * H)
    theirs = pld_pmf.create_pmf_pessimistic_connect_dots_fixed_gap(H, -2000, 3000, deltas)
    probs, infinity = connect_dots.pessimistic(deltas, H)
    ours = pld_pmf.DensePLDPmf(H, -2000, probs, infinity, True)
    e = np.linspace(-3.0, 4.0, 201) + 0.37 * H
    np.testing.assert_allclose(ours.get_delta_for_epsilon(e), theirs.get_delta_for_epsilon(e),
                               rtol=1e-12, atol=1e-300)
    assert connect_dots.pessimistic([0.3], H)[1] == 0.3


def test_dp_curves_use_dp_accountings_own_plds():
    for curve, theirs in [(statpriv.dp.laplace(2.0), dpl.from_laplace_mechanism(2.0)),
                          (statpriv.dp.gaussian(3.0), dpl.from_gaussian_mechanism(
                              3.0, value_discretization_interval=H))]:
        ours = curve.to_dp_accounting(H if "gaussian" in curve.description else 1e-4)
        np.testing.assert_array_equal(ours.get_delta_for_epsilon(EPS),
                                      theirs.get_delta_for_epsilon(EPS))


def test_export_composes_with_dp_accountings_gaussian():
    """counting(30, 0.5) composed with a Gaussian mechanism (sensitivity 1,
    sigma 2) inside dp-accounting, against the exact product:
    H_eps(P x N1 || Q x N0) = P(inf atoms) + sum_x P(x) H_(eps - l_x)(N1 || N0)."""
    curve, sigma = statpriv.counting(30, 0.5), 2.0
    composed = curve.to_dp_accounting(H).compose(
        dpl.from_gaussian_mechanism(sigma, value_discretization_interval=H))
    laws = curve.log_pmfs()

    def gauss(e):      # Balle & Wang's closed form, in scipy
        return (stats.norm.cdf(0.5 / sigma - e * sigma)
                - np.exp(e) * stats.norm.cdf(-0.5 / sigma - e * sigma))

    def side(lu, ll, e):
        pu = np.exp(lu)
        finite = np.isfinite(ll) & np.isfinite(lu)
        return pu[np.isfinite(lu) & ~np.isfinite(ll)].sum() + np.sum(
            pu[finite] * gauss(e - (lu[finite] - ll[finite])))
    for e in (0.2 + 0.37 * H, 0.7 + 0.37 * H, 1.5 + 0.37 * H):
        exact = max(side(laws.log_p, laws.log_q, e), side(laws.log_q, laws.log_p, e))
        got = composed.get_delta_for_epsilon(e)
        assert exact * (1 - 1e-9) <= got <= exact * (1 + 1e-2)


def test_export_composes_with_dp_accountings_laplace():
    curve = statpriv.counting(1000, 0.5)
    ours = curve.to_dp_accounting(H)
    lap = dpl.from_laplace_mechanism(5.0, value_discretization_interval=H)
    both = ours.compose(lap)
    # composition can only add privacy loss: above each part
    grid = np.linspace(0.1, 1.0, 10) + 0.37 * H
    assert np.all(both.get_delta_for_epsilon(grid) >= ours.get_delta_for_epsilon(grid))
    assert np.all(both.get_delta_for_epsilon(grid) >= lap.get_delta_for_epsilon(grid))
    # exact: 1-fold Laplace with l_x shift, as in the Gaussian test
    laws = curve.log_pmfs()
    lu, ll = laws.log_p, laws.log_q
    f = np.isfinite(lu) & np.isfinite(ll)
    lap_curve = statpriv.dp.laplace(5.0)
    e = 0.3 + 0.37 * H
    exact = np.exp(lu[np.isfinite(lu) & ~np.isfinite(ll)]).sum() + np.sum(
        np.exp(lu[f]) * lap_curve.delta(e - (lu[f] - ll[f])))
    assert exact * (1 - 1e-9) <= both.get_delta_for_epsilon(e) <= exact * (1 + 1e-2)


@pytest.mark.parametrize("make", [
    lambda: statpriv.counting(1, 0.5),             # disjoint laws: delta = 1
    lambda: statpriv.counting(2, 0.5),             # delta_plus(+inf) = 1/2
    lambda: statpriv.from_log_pmfs(np.log([0.5, 0.5]), np.log([0.5, 0.5])),   # no leak
    lambda: statpriv.counting(10**4, 0.3, sampling_prob=0.01, sampling="poisson"),
], ids=["disjoint", "half-at-inf", "identical", "poisson"])
def test_export_edge_curves(make):
    curve = make()
    for method in ("auto", "pmf") if curve.laws is not None and curve.laws.has_log_pmfs else ("auto",):
        got, exact, upper = _export_bounds(curve, curve.to_dp_accounting(H, method=method), EPS)
        assert np.all(got >= exact * (1 - 1e-12)), (method, np.min(got / exact))
        assert np.all(got <= upper * (1 + 1e-12) + 1e-16), (method, np.max(got - upper))


def test_export_refuses_grids_too_long():
    with pytest.raises(ValueError, match="larger interval"):
        statpriv.dp.gaussian(1e-3).to_dp_accounting()
    with pytest.raises(ValueError, match="larger interval"):
        statpriv.dp.laplace(1e-3).to_dp_accounting(method="connect_dots")


@pytest.mark.exhaustive
@pytest.mark.parametrize("make", [
    lambda: statpriv.counting(10**6, 0.3),
    lambda: statpriv.counting(10**4, 0.3, noise=statpriv.Laplace(3.0)),
    lambda: statpriv.counting(10**5, 0.3, sample_size=1000),
    lambda: statpriv.counting(1000, 0.5),
], ids=["count", "laplace-noise", "sampled", "small-count"])
def test_export_fine_grid_stays_pessimistic(make):
    """h = 1e-5: the connect-the-dots float error grows as 1/h (the
    inflation c = 1e-10 here must cover it), 3000 eps."""
    curve = make()
    rng = np.random.default_rng(5)
    eps = np.sort(np.concatenate([rng.uniform(-0.1, 0.5, 3000), np.arange(-0.1, 0.5, 0.01)]))
    got, exact, upper = _export_bounds(curve, curve.to_dp_accounting(1e-5), eps, 1e-5)
    assert np.all(got >= exact * (1 - 1e-12)), np.min(got / exact)            # pessimistic
    assert np.all(got <= upper * (1 + 1e-12) + 1e-16), np.max(got - upper)    # within the bound


def test_export_arguments_are_validated():
    curve = statpriv.counting(100, 0.5)
    for bad in (0.0, -1e-4, 2.0, math.nan):
        with pytest.raises(ValueError, match="value_discretization_interval"):
            curve.to_dp_accounting(bad)
    with pytest.raises(ValueError, match="method"):
        curve.to_dp_accounting(method="buckets")
    with pytest.raises(ValueError, match="tail_mass"):
        curve.to_dp_accounting(tail_mass=0.1)
    with pytest.raises(ValueError, match="no discrete laws"):
        statpriv.counting(100, 0.5, noise=statpriv.Laplace(2.0)).to_dp_accounting(method="pmf")
    with pytest.raises(statpriv.ParameterTypeError):
        curve.to_dp_accounting(True)


# -- the accountant ----------------------------------------------------------
def test_accountant_tracks_a_statpriv_count_beside_a_gaussian():
    curve = statpriv.counting(1000, 0.5)
    acc = accounting.StatprivPLDAccountant(value_discretization_interval=H)
    assert acc.neighboring_relation == REPLACE_ONE
    acc.compose(accounting.StatprivCurveEvent(curve), 3)
    acc.compose(dp_event.GaussianDpEvent(4.0))
    manual = curve.to_dp_accounting(H).self_compose(3).compose(
        dpl.from_gaussian_mechanism(4.0, neighboring_relation=REPLACE_ONE,
                                    value_discretization_interval=H))
    for e in (0.5, 1.0):
        assert acc.get_delta(e) == pytest.approx(manual.get_delta_for_epsilon(e), rel=1e-9)
    eps = acc.get_epsilon(1e-6)
    assert eps == pytest.approx(manual.get_epsilon_for_delta(1e-6), rel=1e-9)
    # more releases cost more
    alone = accounting.StatprivPLDAccountant(value_discretization_interval=H).compose(
        accounting.StatprivCurveEvent(curve), 3)
    assert alone.get_epsilon(1e-6) < eps


def test_accountant_nested_events_and_the_parent():
    curve = statpriv.counting(200, 0.5)
    event = dp_event.ComposedDpEvent([accounting.StatprivCurveEvent(curve),
                                      dp_event.SelfComposedDpEvent(
                                          accounting.StatprivCurveEvent(curve), 2)])
    acc = accounting.StatprivPLDAccountant(value_discretization_interval=H)
    assert acc.supports(event)
    acc.compose(event)
    three = curve.to_dp_accounting(H).self_compose(3)
    assert acc.get_delta(0.5) == pytest.approx(three.get_delta_for_epsilon(0.5), rel=1e-9)
    # the parent's own refusals stand (Laplace is not a replace-one event there)
    assert not acc.supports(dp_event.LaplaceDpEvent(1.0))


def test_event_and_accountant_are_module_names():
    # built on first use (dp-accounting is optional) but named as module attributes
    for name in ("StatprivCurveEvent", "StatprivPLDAccountant"):
        cls = getattr(accounting, name)
        assert (cls.__module__, cls.__qualname__) == ("statpriv.accounting.dp_accounting", name)
    with pytest.raises(AttributeError):
        accounting.NoSuchThing


def test_accountant_refuses_statpriv_curves_under_add_or_remove():
    relation = privacy_accountant.NeighboringRelation.ADD_OR_REMOVE_ONE
    acc = accounting.StatprivPLDAccountant(relation)
    event = accounting.StatprivCurveEvent(statpriv.counting(100, 0.5))
    assert not acc.supports(event)
    with pytest.raises(privacy_accountant.UnsupportedEventError, match="replace-one"):
        acc.compose(event)
    assert acc.supports(dp_event.LaplaceDpEvent(1.0))


def test_accountant_checks_the_relation_a_curve_names():
    # dp.* curves name their neighbouring relation ("add_remove" by default): an
    # accountant of the other relation refuses them, naming both
    sampled = statpriv.dp.gaussian(1.0, sampling_prob=0.1)
    event = accounting.StatprivCurveEvent(sampled)
    replace_one = accounting.StatprivPLDAccountant()
    assert not replace_one.supports(event)
    with pytest.raises(privacy_accountant.UnsupportedEventError,
                       match=r"relation: this accountant counts .*REPLACE_ONE neighbours, but "
                             r"the curve was built with relation='add_remove'"):
        replace_one.compose(event)
    add_remove = privacy_accountant.NeighboringRelation.ADD_OR_REMOVE_ONE
    assert not accounting.StatprivPLDAccountant(add_remove).supports(
        accounting.StatprivCurveEvent(statpriv.dp.gaussian(1.0, relation="replace_one")))
    # the matching accountant composes it: ten steps against dp-accounting's own
    # Poisson-sampled Gaussian event on the same grid
    acc = accounting.StatprivPLDAccountant(add_remove, value_discretization_interval=H)
    acc.compose(event, 10)
    theirs = pld_privacy_accountant.PLDAccountant(add_remove, H).compose(
        dp_event.PoissonSampledDpEvent(0.1, dp_event.GaussianDpEvent(1.0)), 10)
    assert acc.get_delta(1.0) == pytest.approx(theirs.get_delta(1.0), rel=1e-6)
    # a curve that names no relation (a count) stays replace-one only
    assert replace_one.supports(accounting.StatprivCurveEvent(statpriv.counting(100, 0.5)))


# -- conventions -------------------------------------------------------------
def test_dp_accounting_aliases_on_every_curve():
    for curve in (statpriv.counting(1000, 0.5), statpriv.dp.gaussian(2.0),
                  statpriv.from_log_pmfs(np.log([0.2, 0.8]), np.log([0.5, 0.5]))):
        eps = np.array([[0.0, 0.1], [0.5, 1.0]])
        np.testing.assert_array_equal(curve.get_delta_for_epsilon(eps), curve.delta(eps))
        assert curve.get_delta_for_epsilon(0.1) == curve.delta(0.1)
        d = [1e-3, 1e-6]
        np.testing.assert_array_equal(curve.get_epsilon_for_delta(d), curve.epsilon(d))
        assert curve.get_epsilon_for_delta(1e-3) == curve.epsilon(1e-3)


def test_sampling_prob_aliases():
    a = statpriv.counting(1000, 0.3, sampling_prob=0.1, sampling="poisson")
    b = statpriv.counting(1000, 0.3, sample_rate=0.1, sampling="poisson")
    assert a.delta(0.1) == b.delta(0.1)
    c = statpriv.counting(1000, 0.3, sampling_prob=0.1)
    assert c.delta(0.1) == statpriv.counting(1000, 0.3, sample_size=100).delta(0.1)
    with pytest.raises(ValueError, match="sampling_prob"):
        statpriv.counting(1000, 0.3, sample_rate=0.1, sampling_prob=0.1)
    assert statpriv.amplify(1.0, 1e-6, sampling_prob=0.01) == statpriv.amplify(1.0, 1e-6, 0.01)
    with pytest.raises(ValueError, match="sampling_prob"):
        statpriv.amplify(1.0, 1e-6, 0.01, sampling_prob=0.01)
    with pytest.raises(ValueError, match="rate"):
        statpriv.amplify(1.0, 1e-6)
    with pytest.raises(ValueError, match="sampling_prob"):
        statpriv.counting(1000, 0.3, sampling_prob=1.5)


def test_sensitivity_scales_the_noise():
    grid = np.linspace(-1.0, 3.0, 41)
    np.testing.assert_array_equal(statpriv.dp.laplace(3.0, sensitivity=2.0).delta(grid),
                                  statpriv.dp.laplace(1.5).delta(grid))
    np.testing.assert_array_equal(statpriv.dp.gaussian(3.0, 2.0).delta(grid),
                                  statpriv.dp.gaussian(1.5).delta(grid))
    assert "sensitivity=2.0" in statpriv.dp.gaussian(3.0, 2.0).description
    # sensitivity s: dp-accounting's Gaussian with sensitivity s, undiscretised
    loss = dpm.GaussianPrivacyLoss(3.0, sensitivity=2.0)
    for e in (0.0, 0.5, 1.0):
        assert statpriv.dp.gaussian(3.0, 2.0).delta(e) == pytest.approx(
            loss.get_delta_for_epsilon(e), rel=1e-9)
    for bad in (0.0, -1.0, math.inf):
        with pytest.raises(ValueError, match="sensitivity"):
            statpriv.dp.laplace(1.0, sensitivity=bad)
    with pytest.raises(statpriv.ParameterTypeError):
        statpriv.dp.gaussian(1.0, sensitivity=True)
    with pytest.raises(ValueError, match="sensitivity"):
        statpriv.dp.gaussian(1e-300, sensitivity=1e-300 * 0 + 1e300)
    for bad in (0, 1.5, -2):
        with pytest.raises(ValueError, match="sensitivity"):
            statpriv.dp.geometric(0.5, sensitivity=bad)


def _mp_geometric_delta(alpha, s, eps):
    """sum_x (c alpha^|x-s| - e^eps c alpha^|x|)_+ over x in [-200, 200 + s] (mpmath)."""
    with mpmath.workdps(40):
        a = mpmath.mpf(alpha)
        c = (1 - a) / (1 + a)
        t = mpmath.exp(eps)
        return float(mpmath.fsum(max(c * a ** abs(x - s) - t * c * a ** abs(x), 0)
                                 for x in range(-200, 201 + s)))


@pytest.mark.parametrize("s", [1, 2, 5])
def test_geometric_is_dp_accountings_discrete_laplace(s):
    alpha = 0.6
    curve = statpriv.dp.geometric(alpha, sensitivity=s)
    loss = dpm.DiscreteLaplacePrivacyLoss(-math.log(alpha), sensitivity=s)
    for e in (0.0, 0.3, 0.9, 1.7):
        ref = _mp_geometric_delta(alpha, s, e)
        assert curve.delta(e) == pytest.approx(ref, rel=1e-12, abs=1e-300)
        assert curve.delta(e) == pytest.approx(loss.get_delta_for_epsilon(e), rel=1e-9, abs=1e-15)
    assert curve.epsilon(0.0) == pytest.approx(-s * math.log(alpha), rel=1e-12)
    pld = dpl.from_discrete_laplace_mechanism(-math.log(alpha), sensitivity=s,
                                              value_discretization_interval=H)
    _within(curve, pld, EPS)


# -- audits ------------------------------------------------------------------
def test_audit_flags_optimistic_claims():
    curve = statpriv.counting(1000, 0.5)
    exact = curve.delta(0.1)
    bad = statpriv.audit(0.1, exact / 2, curve)
    assert bad.optimistic and bad["optimistic"]
    assert bad.delta_ratio == pytest.approx(0.5)
    assert "OPTIMISTIC" in str(bad) and bad.exact_eps > 0.1
    good = statpriv.audit(0.1, 10 * exact, curve)
    assert not good.optimistic and good.delta_ratio == pytest.approx(10.0)
    assert good.exact_eps < 0.1 and good.eps_ratio > 1.0 and str(good).startswith("ok")
    assert not statpriv.audit(0.1, exact, curve).optimistic           # equal is fine
    with pytest.raises(ValueError, match="claimed_delta"):
        statpriv.audit(0.1, 1.5, curve)
    with pytest.raises(ValueError, match="claimed_eps"):
        statpriv.audit(-0.1, 0.1, curve)


def test_audit_pld():
    curve = statpriv.counting(1000, 0.5)
    grid = [0.3, 0.0, 0.1]
    good = statpriv.audit_pld(curve.to_dp_accounting(H), curve, grid)
    assert not good.any_optimistic and good.min_ratio >= 1.0
    np.testing.assert_array_equal(good.eps, grid)
    np.testing.assert_array_equal(good.exact_delta, curve.delta(grid))
    # an optimistic accountant: a Gaussian PLD with too much noise
    bad = statpriv.audit_pld(dpl.from_gaussian_mechanism(100.0, value_discretization_interval=H),
                             statpriv.dp.gaussian(1.0), grid)
    assert bad.any_optimistic and bad.optimistic.all() and "OPTIMISTIC" in bad.message
    # duck typing: anything with get_delta_for_epsilon (a curve too)
    same = statpriv.audit_pld(curve, curve, grid)
    assert not same.any_optimistic and same.max_ratio == 1.0
    # statpriv's own PLD (read through its delta): the exact atoms of the curve
    own = statpriv.audit_pld(curve.privacy_loss_distribution(), curve, grid)
    assert not own.any_optimistic
    np.testing.assert_allclose(own.claimed_delta, curve.delta(grid), rtol=1e-9)
    class ScalarOnly:           # a PLD whose get_delta_for_epsilon takes one float
        def get_delta_for_epsilon(self, eps):
            return float(curve.delta(float(eps))) * 2.0
    doubled = statpriv.audit_pld(ScalarOnly(), curve, grid)
    np.testing.assert_allclose(doubled.delta_ratio, 2.0)
    with pytest.raises(TypeError, match="get_delta_for_epsilon"):
        statpriv.audit_pld(object(), curve, grid)
    with pytest.raises(ValueError, match="eps_grid"):
        statpriv.audit_pld(curve, curve, [])
