"""Poisson-subsampled DP mechanisms (dp.* with sampling_prob= / relation=) and curve.subsample.

The truth is computed from the mixture laws' densities at 50 digits by two
mpmath brute forces that share nothing with the fast path: statpriv.oracle's
dp_sampled_delta (quadrature split at the kinks and the crossing; sums for
geometric noise; stored in tests/data/reference/reference.json) and
tests/independent_oracle.py (no statpriv code at all: the normal cdf at the
crossing, Laplace quadrature, exact geometric sums and their products; stored
in independent.json).  dp-accounting's exact privacy losses
(get_delta_for_epsilon) are a cross-check, not the truth.
"""
import math

import mpmath
import numpy as np
import pytest

import independent_oracle
import statpriv
from helpers import assert_matches, import_extra, oracle, zip_equal
from statpriv import dp

RELATIONS = ("add_remove", "replace_one")
# negative, tiny, moderate, large (ln delta ~ -12800 for sigma = 20); the
# quadratures take seconds per value, their values are stored
EPS = [-1.0, 1e-9, 1.0, 8.0]
EPS_GRID = [-math.inf, -5.0, -0.5, 0.0, 5e-324, 1e-12, 0.01, 0.3, 1.0, 4.0, 30.0, 1e300, math.inf]


def _check_against_quadrature(curve, kind, param, q, relation, sensitivity=1):
    for d in ("plus", "minus"):
        truth = oracle("dp_sampled_delta", kind, param, q, EPS, relation=relation,
                       sensitivity=sensitivity, direction=d)
        ours = getattr(curve, f"log_delta_{d}")(EPS)
        for e, o, t in zip_equal(EPS, ours, truth):
            assert_matches(float(o), t, what=f"{curve!r} {d} eps={e}")


@pytest.mark.parametrize("relation", RELATIONS)
@pytest.mark.parametrize("q", [1e-6, 0.5])
@pytest.mark.parametrize("param", [0.5, 20.0])
@pytest.mark.parametrize("kind", ["gaussian", "laplace"])
def test_continuous_noise_against_the_mixture_quadrature(kind, param, q, relation):
    # param: sigma (Gaussian) or the scale b (Laplace)
    curve = getattr(dp, kind)(param, sampling_prob=q, relation=relation)
    _check_against_quadrature(curve, kind, param, q, relation)


@pytest.mark.parametrize("relation", RELATIONS)
@pytest.mark.parametrize("q", [1e-6, 0.01, 0.5])
@pytest.mark.parametrize("alpha, sensitivity", [(0.3, 1), (0.9, 1), (0.6, 3)])
def test_geometric_against_the_mixture_sums(alpha, sensitivity, q, relation):
    curve = dp.geometric(alpha, sensitivity, sampling_prob=q, relation=relation)
    _check_against_quadrature(curve, "geometric", alpha, q, relation, sensitivity)


# -- the independent oracle (tests/independent_oracle.py, no statpriv code) -------
INDEPENDENT_EPS = [-0.5, 0.0, 0.05, 1.0, 4.0]


def _check_independent(curve, eps_list, truth_of):
    for plus, name in ((True, "plus"), (False, "minus")):
        ours = getattr(curve, f"log_delta_{name}")(eps_list)
        for e, o in zip_equal(eps_list, ours):
            truth = mpmath.exp(truth_of(e, plus))
            assert_matches(float(o), truth, what=f"{curve!r} {name} eps={e}")


@pytest.mark.parametrize("relation", RELATIONS)
@pytest.mark.parametrize("kind, param, q", [
    ("gaussian", 0.8, 0.01), ("gaussian", 1.0, 0.5), ("gaussian", 4.0, 0.001),
    ("gaussian", 0.5, 1.0), ("laplace", 1.0, 0.01), ("laplace", 0.5, 0.3)])
def test_dp_sgd_step_against_the_independent_oracle(kind, param, q, relation):
    # one DP-SGD step: add/remove is max(H(P||Q), H(Q||P)) of
    # P = (1-q) N(0, s^2) + q N(1, s^2) against Q = N(0, s^2)
    curve = getattr(dp, kind)(param, sampling_prob=q, relation=relation)
    _check_independent(curve, INDEPENDENT_EPS, lambda e, plus: oracle(
        "sampled_dp_log_delta", kind, param, q, relation, e, plus))


@pytest.mark.parametrize("relation", RELATIONS)
@pytest.mark.parametrize("alpha, sensitivity, q", [(0.5, 1, 0.1), (0.7, 2, 0.5)])
def test_sampled_geometric_against_the_independent_oracle(alpha, sensitivity, q, relation):
    curve = dp.geometric(alpha, sensitivity, sampling_prob=q, relation=relation)
    _check_independent(curve, INDEPENDENT_EPS, lambda e, plus: oracle(
        "sampled_dp_log_delta", "geometric", alpha, q, relation, e, plus, sensitivity))


@pytest.mark.parametrize("relation", RELATIONS)
@pytest.mark.parametrize("alpha, sensitivity, q, folds", [
    (0.5, 1, 0.1, 2), (0.5, 1, 0.3, 3), (0.7, 2, 0.5, 2)])
def test_products_of_sampled_geometric_against_the_independent_oracle(alpha, sensitivity, q,
                                                                      folds, relation):
    # compose(exact=True) of the curve's laws (two at a time) against every
    # outcome tuple of the product of the mixture laws
    step = dp.geometric(alpha, sensitivity, sampling_prob=q, relation=relation)
    curve = step
    for _ in range(folds - 1):
        curve = statpriv.compose(curve, step, exact=True)
    _check_independent(curve, [-0.5, 0.0, 0.1, 1.0], lambda e, plus: mpmath.log(oracle(
        "sampled_geometric_product_delta", alpha, sensitivity, q, relation, folds, e, plus)))


def test_the_independent_geometric_laws_are_the_infinite_sums():
    # the lumped tails of the oracle's geometric laws against a plain window sum
    # (the mass beyond +-80 is below 0.5^80)
    with mpmath.workdps(40):
        a = mpmath.mpf(0.5)
        c = (1 - a) / (1 + a)
        P, Q = independent_oracle.sampled_dp_atoms(0.3, "replace_one", 2)
        A, B = independent_oracle.geometric_sampled_laws(P, Q, a)
        assert abs(mpmath.fsum(A) - 1) < mpmath.mpf(10) ** -35
        for e in (0.0, 0.4):
            window = mpmath.fsum(max(
                mpmath.fsum(P[j] * c * a ** abs(k - j) for j in range(5))
                - mpmath.exp(e) * mpmath.fsum(Q[j] * c * a ** abs(k - j) for j in range(5)), 0)
                for k in range(-80, 85))
            lumped = mpmath.fsum(max(x - mpmath.exp(e) * y, 0) for x, y in zip(A, B))
            assert abs(window - lumped) < mpmath.mpf(10) ** -20 * window


def test_sensitivity_scales_the_continuous_noise():
    # sigma / s at sensitivity 1, bit for bit
    a = dp.gaussian(3.0, sensitivity=2.0, sampling_prob=0.1, relation="replace_one")
    b = dp.gaussian(1.5, sampling_prob=0.1, relation="replace_one")
    np.testing.assert_array_equal(a.log_delta(EPS_GRID), b.log_delta(EPS_GRID))
    c = dp.laplace(4.0, sensitivity=2.0, sampling_prob=0.3)
    d = dp.laplace(2.0, sampling_prob=0.3)
    np.testing.assert_array_equal(c.log_delta_minus(EPS_GRID), d.log_delta_minus(EPS_GRID))


# -- the curves without sampling stay what they were ---------------------------
@pytest.mark.parametrize("build", [
    lambda **kw: dp.gaussian(1.3, **kw), lambda **kw: dp.laplace(0.7, 2.0, **kw),
    lambda **kw: dp.geometric(0.4, **kw), lambda **kw: dp.geometric(0.8, 3, **kw)])
def test_no_sampling_and_rate_one_are_the_unsampled_curve(build):
    plain = build()
    for other in (build(relation="add_remove"), build(sampling_prob=1.0)):
        for d in ("", "_plus", "_minus"):
            np.testing.assert_array_equal(getattr(plain, f"log_delta{d}")(EPS_GRID),
                                          getattr(other, f"log_delta{d}")(EPS_GRID))
        assert other.epsilon(1e-6) == plain.epsilon(1e-6)
    assert "sampling" not in plain.description and "relation" not in plain.description


def test_replace_one_without_sampling_doubles_the_sensitivity():
    # N - s against N + s: the add/remove curve of the noise at sensitivity 2 s
    pairs = [(dp.gaussian(1.2, relation="replace_one"), dp.gaussian(0.6)),
             (dp.laplace(3.0, relation="replace_one"), dp.laplace(1.5)),
             (dp.geometric(0.5, relation="replace_one"), dp.geometric(0.5, 2)),
             (dp.geometric(0.5, 2, sampling_prob=1.0, relation="replace_one"),
              dp.geometric(0.5, 4))]
    for replaced, doubled in pairs:
        np.testing.assert_array_equal(replaced.log_delta(EPS_GRID), doubled.log_delta(EPS_GRID))


def test_nothing_sampled_releases_nothing():
    for c in (dp.gaussian(1.0, sampling_prob=0.0), dp.laplace(1.0, sampling_prob=0.0,
                                                               relation="replace_one"),
              dp.geometric(0.5, sampling_prob=0.0), dp.randomized_response(2.0).subsample(0.0)):
        np.testing.assert_array_equal(c.delta([0.0, 1e-9, 1.0]), [0.0, 0.0, 0.0])
        assert c.delta(-1.0) == pytest.approx(-math.expm1(-1.0), rel=1e-15)
        assert c.epsilon(0.0) == 0.0


# -- structure: directions, zero points -----------------------------------------
@pytest.mark.parametrize("build, shrink", [
    (lambda q: dp.gaussian(0.8, sampling_prob=q), lambda: 1),
    (lambda q: dp.laplace(0.5, sampling_prob=q), lambda: -mpmath.expm1(-2)),
    (lambda q: dp.geometric(0.3, sampling_prob=q), lambda: 1 - mpmath.mpf(0.3))])
@pytest.mark.parametrize("q", [1e-3, 0.2, 0.9])
def test_add_direction_zero_point(build, shrink, q):
    # H_eps(N || (1-q) N + q (N+1)) = 0 from eps = -ln(1 - q c) on, c = 1 for
    # Gaussian noise (e^eps (1-q) >= 1), c = 1 - e^(-1/b) for Laplace(b) and
    # 1 - alpha for geometric(alpha) (where the reduced eps'' reaches their own
    # zero point)
    curve = build(q)
    z = curve.epsilon(0.0, direction="minus")
    with mpmath.workdps(60):
        exact = -mpmath.log1p(-mpmath.mpf(q) * shrink())
        assert abs(mpmath.mpf(z) - exact) <= 2 * math.ulp(z), (z, exact)
    assert curve.delta_minus(z) == 0.0 and curve.delta_minus(math.nextafter(z, 0.0)) > 0.0
    # remove dominates add at every eps >= 0 (dp-accounting's observation)
    eps = np.array([0.0, 1e-6, 0.01, 0.1, 1.0, 3.0])
    assert np.all(curve.delta_plus(eps) >= curve.delta_minus(eps))


def test_laplace_replace_one_zero_point_is_exact():
    # z = ln((e^t + r)/(e^-t + r)), r = (1-q)/q, t = 1/b; delta keeps its relative
    # accuracy up to the float below z
    for b, q in ((1.0, 0.5), (0.3, 0.9), (5.0, 1e-6)):
        curve = dp.laplace(b, sampling_prob=q, relation="replace_one")
        z = curve.epsilon(0.0)
        with mpmath.workdps(60):
            t, r = 1 / mpmath.mpf(b), (1 - mpmath.mpf(q)) / mpmath.mpf(q)
            exact = mpmath.log((mpmath.exp(t) + r) / (mpmath.exp(-t) + r))
            # (b = 1, q = 1/2: z = ln e = 1 exactly, 60 digits leave ~1e-61)
            assert mpmath.mpf(z) >= exact - 1e-50
            assert mpmath.mpf(math.nextafter(z, 0.0)) < exact
        below = math.nextafter(z, 0.0)
        truth = oracle("dp_sampled_delta", "laplace", b, q, [below], relation="replace_one",
                       direction="plus")[0]
        assert_matches(curve.log_delta_plus(below), truth, rel=1e-12)
        assert curve.delta(z) == 0.0


def test_replace_one_is_symmetric_and_add_remove_is_not():
    replaced = dp.gaussian(0.7, sampling_prob=0.05, relation="replace_one")
    np.testing.assert_array_equal(replaced.log_delta_plus(EPS_GRID),
                                  replaced.log_delta_minus(EPS_GRID))
    sampled = dp.gaussian(0.7, sampling_prob=0.05)
    assert sampled.delta_plus(0.01) > sampled.delta_minus(0.01) > 0.0
    # beyond -ln(1 - 0.05) = 0.0513 only the "remove" direction is left
    assert sampled.delta_plus(0.06) > 0.0 == sampled.delta_minus(0.06)


# -- dp-accounting's exact privacy losses: a cross-check ------------------------
def _dp_accounting_losses():
    return import_extra("dp_accounting.pld.privacy_loss_mechanism")


def _cross_check(ours, loss, eps):
    ref = loss.get_delta_for_epsilon(eps)
    # dp-accounting forms mu_upper_cdf - e^eps mu_lower_cdf from scipy's cdfs:
    # a difference that loses digits where delta is small
    if ref > 1e-8:
        assert ours == pytest.approx(ref, rel=1e-8), (loss, eps, ours, ref)
    else:
        assert abs(ours - ref) <= 1e-15, (loss, eps, ours, ref)


@pytest.mark.parametrize("sigma, q", [(0.8, 0.01), (1.0, 0.3), (5.0, 0.001), (2.0, 0.9)])
def test_gaussian_matches_dp_accounting(sigma, q):
    plm = _dp_accounting_losses()
    A = plm.AdjacencyType
    sampled = dp.gaussian(sigma, sampling_prob=q)
    replaced = dp.gaussian(sigma, sampling_prob=q, relation="replace_one")
    for eps in (0.0, 0.05, 0.3, 1.0, 2.0):
        for adjacency, ours in ((A.REMOVE, sampled.delta_plus(eps)),
                                (A.ADD, sampled.delta_minus(eps)),
                                (A.REPLACE, replaced.delta(eps))):
            loss = plm.GaussianPrivacyLoss(sigma, sampling_prob=q, adjacency_type=adjacency)
            _cross_check(ours, loss, eps)


@pytest.mark.parametrize("scale, q", [(0.5, 0.01), (1.0, 0.3), (3.0, 0.8)])
def test_laplace_matches_dp_accounting(scale, q):
    plm = _dp_accounting_losses()
    A = plm.AdjacencyType
    sampled = dp.laplace(scale, sampling_prob=q)
    for eps in (0.0, 0.05, 0.3, 1.0):
        for adjacency, ours in ((A.REMOVE, sampled.delta_plus(eps)),
                                (A.ADD, sampled.delta_minus(eps))):
            _cross_check(ours, plm.LaplacePrivacyLoss(scale, sampling_prob=q,
                                                      adjacency_type=adjacency), eps)


@pytest.mark.parametrize("alpha, sensitivity, q", [(0.5, 1, 0.1), (0.8, 3, 0.5)])
def test_geometric_matches_dp_accounting(alpha, sensitivity, q):
    plm = _dp_accounting_losses()
    A = plm.AdjacencyType
    sampled = dp.geometric(alpha, sensitivity, sampling_prob=q)
    for eps in (0.0, 0.05, 0.3, 1.0):
        for adjacency, ours in ((A.REMOVE, sampled.delta_plus(eps)),
                                (A.ADD, sampled.delta_minus(eps))):
            loss = plm.DiscreteLaplacePrivacyLoss(-math.log(alpha), sensitivity=sensitivity,
                                                 sampling_prob=q, adjacency_type=adjacency)
            _cross_check(ours, loss, eps)


def test_export_takes_dp_accountings_sampled_pld():
    import_extra("dp_accounting")
    from dp_accounting.pld import privacy_loss_distribution as pld_module
    curve = dp.gaussian(1.0, sampling_prob=0.01)
    native = pld_module.from_gaussian_mechanism(1.0, value_discretization_interval=1e-3,
                                                sampling_prob=0.01)
    ours = curve.to_dp_accounting(1e-3)
    for eps in (0.0, 0.02, 0.1):
        assert ours.get_delta_for_epsilon(eps) == native.get_delta_for_epsilon(eps)
        # dp-accounting's pessimistic PLD: above the exact delta up to its rounding
        assert ours.get_delta_for_epsilon(eps) >= curve.delta(eps) * (1 - 1e-12)
    # no dp-accounting mechanism for the replace-one Laplace: the curve's own
    # delta (connect-the-dots), never below it
    replaced = dp.laplace(1.0, sampling_prob=0.1, relation="replace_one")
    exported = replaced.to_dp_accounting(1e-3)
    for eps in (0.0, 0.05, 0.1):
        assert exported.get_delta_for_epsilon(eps) >= replaced.delta(eps)


# -- laws -----------------------------------------------------------------------
def test_sampled_geometric_has_exact_laws():
    curve = dp.geometric(0.6, 2, sampling_prob=0.1, relation="replace_one")
    pld = curve.privacy_loss_distribution()
    assert pld.exact
    eps = np.array([-0.3, 0.0, 0.01, 0.1, 0.5])
    np.testing.assert_allclose(pld.plus.delta(eps), curve.delta_plus(eps), rtol=1e-12)
    np.testing.assert_allclose(pld.minus.delta(eps), curve.delta_minus(eps), rtol=1e-12)
    assert np.all(np.isfinite(curve.renyi([0.5, 2.0, 10.0])))


def test_sampled_continuous_laws_say_what_they_are():
    laws = dp.gaussian(1.0, sampling_prob=0.01, relation="replace_one").laws
    assert isinstance(laws, statpriv.noise.DPPair)
    assert (laws.sampling_prob, laws.relation) == (0.01, "replace_one")
    assert laws.renyi is None        # no closed form: the curve asks its PLD


# -- curve.subsample --------------------------------------------------------------
def test_subsample_of_dp_gaussian_is_its_sampled_mechanism():
    for sigma, q in ((1.0, 0.01), (0.6, 0.4)):
        a = dp.gaussian(sigma).subsample(q)
        b = dp.gaussian(sigma, sampling_prob=q)
        for d in ("", "_plus", "_minus"):
            np.testing.assert_array_equal(getattr(a, f"log_delta{d}")(EPS_GRID),
                                          getattr(b, f"log_delta{d}")(EPS_GRID))
    g = dp.geometric(0.5).subsample(0.3)
    h = dp.geometric(0.5, sampling_prob=0.3)
    np.testing.assert_allclose(g.privacy_loss_distribution().plus.delta([0.0, 0.2]),
                               h.delta_plus([0.0, 0.2]), rtol=1e-12)


@pytest.mark.parametrize("sampling", ["poisson", "without_replacement"])
def test_subsample_laws_give_the_curve(sampling):
    base = statpriv.from_log_pmfs(np.log([0.1, 0.3, 0.6]), np.log([0.5, 0.3, 0.2]))
    curve = base.subsample(0.05, sampling=sampling)
    pld = curve.privacy_loss_distribution()
    eps = np.array([-0.2, 0.0, 1e-3, 0.02, 0.08])
    np.testing.assert_allclose(pld.plus.delta(eps), curve.delta_plus(eps), rtol=1e-12)
    np.testing.assert_allclose(pld.minus.delta(eps), curve.delta_minus(eps), rtol=1e-12)
    # against the reduction by hand: delta_plus(eps) = q delta_plus(eps')
    e = 0.02
    e1 = math.log1p(math.expm1(e) / 0.05)
    assert curve.delta_plus(e) == pytest.approx(0.05 * base.delta_plus(e1), rel=1e-13)


def test_subsample_pickles_and_remembers_its_call():
    import pickle
    curve = statpriv.counting(50, 0.4).subsample(0.3, sampling="without_replacement")
    again = pickle.loads(pickle.dumps(curve))
    np.testing.assert_array_equal(again.log_delta(EPS_GRID), curve.log_delta(EPS_GRID))
    assert curve.params["sampling_prob"] == 0.3
    assert curve.subsample(1.0).delta(0.1) == curve.delta(0.1)


def test_subsample_refuses_what_has_no_pair():
    rr = dp.randomized_response(1.0)
    with pytest.raises(ValueError, match="relation='add_remove'.*replace-one needs"):
        rr.subsample(0.1, relation="replace_one")
    with pytest.raises(ValueError, match="relation='replace_one'.*sample size"):
        rr.subsample(0.1, sampling="without_replacement", relation="add_remove")
    grid = statpriv.counting(20, 0.3).privacy_loss_distribution().to_curve()
    with pytest.raises(ValueError, match="compiled evaluator"):
        grid.subsample(0.1)


# -- bad input names the parameter ---------------------------------------------------
@pytest.mark.parametrize("factory", [dp.gaussian, dp.laplace])
@pytest.mark.parametrize("kwargs, name", [
    ({"relation": "add-remove"}, "relation"), ({"relation": 1}, "relation"),
    ({"relation": None}, "relation"),
    ({"sampling_prob": -0.1}, "sampling_prob"), ({"sampling_prob": 1.5}, "sampling_prob"),
    ({"sampling_prob": math.nan}, "sampling_prob"), ({"sampling_prob": "0.1"}, "sampling_prob"),
    ({"sampling_prob": True}, "sampling_prob"), ({"sensitivity": 0.0}, "sensitivity"),
    ({"sensitivity": -1.0}, "sensitivity"), ({"sensitivity": math.inf}, "sensitivity")])
def test_bad_input_names_the_parameter(factory, kwargs, name):
    with pytest.raises(ValueError, match=name):
        factory(1.0, **kwargs)


@pytest.mark.parametrize("kwargs, name", [
    ({"relation": "replace"}, "relation"), ({"sampling_prob": 2.0}, "sampling_prob"),
    ({"sensitivity": 1.5}, "sensitivity"), ({"sensitivity": 0}, "sensitivity")])
def test_geometric_bad_input_names_the_parameter(kwargs, name):
    with pytest.raises(ValueError, match=name):
        dp.geometric(0.5, **kwargs)


@pytest.mark.parametrize("args, kwargs, name", [
    ((1.5,), {}, "sampling_prob"), ((-1e-9,), {}, "sampling_prob"),
    ((0.1,), {"sampling": "bernoulli"}, "sampling"), ((0.1,), {"relation": "both"}, "relation")])
def test_subsample_bad_input_names_the_parameter(args, kwargs, name):
    with pytest.raises(ValueError, match=name):
        dp.gaussian(1.0).subsample(*args, **kwargs)
