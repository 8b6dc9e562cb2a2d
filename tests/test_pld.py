"""statpriv.pld: privacy-loss distributions of discrete curves (and of dp.*)."""
import math

import mpmath
import numpy as np
import pytest

import statpriv
from independent_oracle import binomial_mp, gaussian_delta_mp

EPS = [-0.2, 0.0, 0.003, 0.02, 0.1, 0.3, 0.7, 1.5]

DISCRETE = {
    "counting": lambda: statpriv.counting(1000, 0.3),
    "counting_large": lambda: statpriv.counting(1_200_000, 0.2),    # windowed PLD
    "geometric_noise": lambda: statpriv.counting(500, 0.2, noise=statpriv.Geometric(0.7)),
    "subsample": lambda: statpriv.counting(800, 0.4, sample_size=300),
    "poisson": lambda: statpriv.counting(800, 0.4, sample_rate=0.3, sampling="poisson"),
    "per_record": lambda: statpriv.counting(None, np.linspace(0.05, 0.6, 400)),
    "per_record_poisson": lambda: statpriv.counting(None, np.linspace(0.05, 0.6, 400),
                                                    sample_rate=0.4, sampling="poisson"),
    "secret_sample": lambda: statpriv.secret_sample(1000, 100, 300),
    "dp_geometric": lambda: statpriv.dp.geometric(0.6),
}


@pytest.mark.parametrize("name", sorted(DISCRETE))
def test_pld_delta_equals_curve_delta(name):
    curve = DISCRETE[name]()
    pld = curve.privacy_loss_distribution()
    if name == "counting_large":
        # a window: the rest is bounded (below the float64 range), never dropped
        assert 0.0 < pld.plus.tail_mass < np.longdouble("1e-4000")
        assert pld.plus.tail_loss == math.inf
        assert pld.plus.size < 10 ** 6
    assert pld.exact
    for direction in ("plus", "minus", "max"):
        ours = pld.delta(EPS, direction)
        ref = {"plus": curve.delta_plus, "minus": curve.delta_minus,
               "max": curve.delta}[direction](EPS)
        live = ref > 1e-290
        assert np.all(np.abs(ours[live] / ref[live] - 1) <= 1e-12), (name, direction)
        assert np.all(ours >= ref * (1 - 1e-12))
    for side in (pld.plus, pld.minus):
        assert abs(side.total_mass() - 1.0) <= 1e-12
        assert np.all(np.diff(side.losses.astype(np.float64)) >= 0)


def test_pld_atoms_match_the_definition():
    """counting(n, pi): P(j) = Bin(n-1)(j-1), Q(j) = Bin(n-1)(j), j = 0..n; the atoms
    are ln P/Q with P-mass; P(n) > 0 = Q(n) is the +inf mass (mpmath, 40 digits)."""
    n, pi = 30, 0.35
    pld = statpriv.counting(n, pi).privacy_loss_distribution()
    with mpmath.workdps(40):
        z = binomial_mp(n - 1, pi)
        P = [mpmath.mpf(0)] + z
        Q = z + [mpmath.mpf(0)]
        loss = [mpmath.log(P[j] / Q[j]) for j in range(1, n)]
        assert pld.plus.size == n - 1
        for ours, ref, p in zip(pld.plus.losses, loss, P[1:n]):
            assert abs(mpmath.mpf(float(ours)) - ref) <= 1e-15 * (1 + abs(ref))
        assert np.allclose(pld.plus.probs.astype(float), [float(p) for p in P[1:n]],
                           rtol=1e-15, atol=0)
        assert pld.plus.infinity_mass == pytest.approx(float(P[n]), rel=1e-15)
        assert pld.minus.infinity_mass == pytest.approx(float(Q[0]), rel=1e-15)
        # ln Q/P under Q: the same atoms, negated and reordered
        assert np.allclose(np.sort(-pld.minus.losses.astype(float)),
                           pld.plus.losses.astype(float), rtol=0, atol=1e-15)


def test_geometric_noise_pld_is_finite_and_bounded():
    alpha = 0.7
    pld = DISCRETE["geometric_noise"]().privacy_loss_distribution()
    for side in (pld.plus, pld.minus):
        assert side.infinity_mass == 0.0
        assert float(np.max(np.abs(side.losses))) <= -math.log(alpha) * (1 + 1e-15)


def test_dp_gaussian_pld_is_pessimistic_within_its_bound():
    curve = statpriv.dp.gaussian(2.0)
    pld = curve.privacy_loss_distribution(1e-3)
    assert not pld.exact and pld.discretization == 1e-3
    eps = np.array([0.0, 0.2, 0.5, 1.0, 2.0])
    with mpmath.workdps(30):
        ref = np.array([float(gaussian_delta_mp(2, e)) for e in eps])
    assert np.all(pld.delta(eps) >= ref * (1 - 1e-12))
    assert np.all(pld.delta_lower_bound(eps) <= ref * (1 + 1e-12))
    assert np.all(pld.delta(eps) - pld.delta_lower_bound(eps) <= 0.05 * ref)


def test_dp_laplace_pld_brackets_the_curve():
    curve = statpriv.dp.laplace(0.8)
    pld = curve.privacy_loss_distribution(1e-4)
    eps = np.array([0.0, 0.3, 1.0, 1.2])
    ref = curve.delta(eps)
    assert np.all(pld.delta(eps) >= ref * (1 - 1e-12))
    assert np.all(pld.delta_lower_bound(eps) <= ref * (1 + 1e-12))


def test_pld_to_curve():
    curve = DISCRETE["subsample"]()
    again = curve.privacy_loss_distribution().to_curve()
    eps = [0.0, 0.1, 0.4]
    assert np.allclose(again.delta(eps), curve.delta(eps), rtol=1e-12, atol=0)
    assert again.epsilon(1e-6) == pytest.approx(curve.epsilon(1e-6), rel=1e-9)


def test_pld_epsilon_inverts_delta():
    curve = DISCRETE["geometric_noise"]()
    core = statpriv.pld.PLDCore(curve.privacy_loss_distribution())
    assert core.epsilon(np.array([math.log(0.3)]), 2)[0] == 0.0       # delta(0) < 0.3
    for target in (0.02, 1e-3, 1e-8):
        eps = float(core.epsilon(np.array([math.log(target)]), 2)[0])
        assert core.log_delta(np.array([eps]), 2)[0] <= math.log(target)
        below = math.nextafter(eps, -math.inf) - 1e-12 * eps
        assert core.log_delta(np.array([below]), 2)[0] > math.log(target) - 1e-9
        assert eps == pytest.approx(curve.epsilon(target), rel=1e-9)


def test_no_pld_without_laws_and_bad_input():
    lower = statpriv.k_anonymity(100, [0.05, 0.05, 0.6], 5, source=0, target=1).lower
    with pytest.raises(ValueError, match="no privacy-loss distribution"):
        lower.privacy_loss_distribution()
    with pytest.raises(ValueError, match="value_discretization_interval"):
        statpriv.dp.gaussian(1.0).privacy_loss_distribution(-1.0)
    with pytest.raises(TypeError):
        statpriv.dp.gaussian(1.0).privacy_loss_distribution("fine")
    with pytest.raises(ValueError, match="tail_mass_truncation"):
        statpriv.dp.gaussian(1.0).privacy_loss_distribution(1e-3, tail_mass_truncation=0.0)
    pld = statpriv.counting(10, 0.5).privacy_loss_distribution()
    with pytest.raises(ValueError, match="direction"):
        pld.delta(0.1, "both")
    with pytest.raises(ValueError, match="eps"):
        pld.delta(float("nan"))


# -- pessimistic grid PLDs of upper curves: probability measures ------------

def _total_mass(side):
    return float(np.sum(side.probs, dtype=np.longdouble) + side.infinity_mass)


UPPER_CURVES = {
    # found by the fuzzer: the clamped connect-the-dots masses summed to
    # 1 + 8.4e-7, 1 + 4.4e-8 and (a subnormal target met by scaling the whole
    # measure) 1 + 5e-5 (the k-anonymity upper curves and shuffled randomized
    # response with n = 10 of the fuzz corpus: 1 + 2.3e-9, 1 + 2.6e-8)
    "clones(3, 10)": (lambda: statpriv.shuffle.clones(3, 10.0), 1e-4),
    "clones(2, 1)": (lambda: statpriv.shuffle.clones(2, 1.0), 1e-4),
    "shuffled rr(2, 5e-324)": (lambda: statpriv.shuffle.randomized_response(2, 5e-324), 1e-4),
    # a shortfall of 1.6e-327 at a subnormal target: below float64's range, it
    # read as 0 and the measure was scaled instead (1 + 2.1e-3)
    "shuffled rr(7, 5e-324)": (lambda: statpriv.shuffle.randomized_response(7, 5e-324), 1e-3),
}


@pytest.mark.parametrize("name", UPPER_CURVES)
def test_pessimistic_pld_of_an_upper_curve_is_a_probability_measure(name):
    make, h = UPPER_CURVES[name]
    curve = make()
    pld = curve.privacy_loss_distribution(h)
    for side in (pld.plus, pld.minus, pld.optimistic.plus, pld.optimistic.minus):
        assert np.all(side.probs >= 0)
        # the rounding slack of the extended-precision construction only
        assert _total_mass(side) <= 1 + 1e-9
    eps = np.array([0.0, 0.05, 0.5, 1.0, 2.5, 5.0, 9.99, 15.0, 19.0])
    true = curve.delta(eps)
    upper = np.array([pld.delta(e) for e in eps])
    lower = np.array([pld.optimistic.delta(e) for e in eps])
    assert np.all(upper >= true * (1 - 1e-12))
    assert np.all(lower <= true * (1 + 1e-12))
    # the hull raises delta by about the values' non-convexity, not more
    # (the clamped chord raised clones(3, 10) by 8.3e-7 relative at eps <= 9)
    assert np.all(upper <= true * (1 + 1e-8) + 1e-11)


def test_hull_of_bounds_is_a_probability_measure_above_every_convex_curve_below_them():
    from statpriv import _connect_dots
    h = 0.01
    ld = np.longdouble
    t = np.exp(np.arange(-200, 201).astype(ld) * ld(h))
    # delta of P = (0.7, 0.3), Q = (0.3, 0.7): convex in t, 1 at t = 0 (in
    # long double: its float64 rounding, 1e-16 of 0.15, is not convex itself)
    convex = np.maximum(0.7 - 0.3 * t, 0) + np.maximum(0.3 - 0.7 * t, 0)
    targets = convex.copy()
    targets[150] *= 1 + 1e-6                       # concave bumps: upper bounds
    targets[260] *= 1 + 1e-9
    clamped = _connect_dots.pessimistic(targets, h)[0]
    assert float(np.sum(clamped, dtype=np.longdouble)) > 1 + 1e-7  # the plain chord
    probs, inf, hull = _connect_dots.convex_hull_of_bounds(targets, h)
    assert np.all(probs >= 0)
    assert abs(float(np.sum(probs) + inf) - 1.0) < 1e-15
    have = _connect_dots.grid_delta(probs, inf, h)
    # above the convex curve under the bounds (the true one), at most the bounds
    assert np.all(have >= convex * (1 - 1e-15))
    assert np.all(hull <= targets)
    assert np.all(have <= targets * (1 + 1e-12) + 1e-18)
    # a convex curve below the bumped bounds between the dots too: its chord
    mid = np.exp((np.arange(-200, 200).astype(ld) + ld(0.5)) * ld(h))
    true_mid = np.maximum(0.7 - 0.3 * mid, 0.0) + np.maximum(0.3 - 0.7 * mid, 0.0)
    lam = (mid - t[:-1]) / (t[1:] - t[:-1])
    chord_mid = have[:-1] + lam * (have[1:] - have[:-1])
    assert np.all(chord_mid >= true_mid * (1 - 1e-14))
    # convex targets: the hull is the targets and the measure their chord
    probs_c, inf_c, _ = _connect_dots.convex_hull_of_bounds(convex, h)
    ref, ref_inf = _connect_dots.pessimistic(convex, h)
    assert np.allclose(probs_c.astype(float), ref.astype(float), rtol=0, atol=1e-12)
    assert abs(float(inf_c) - float(ref_inf)) < 1e-15


@pytest.mark.parametrize("name", ["clones(3, 10)", "clones(2, 1)"])
def test_composing_an_upper_curve_twice_stays_above_it(name):
    make, _ = UPPER_CURVES[name]
    curve = make()
    composed = statpriv.compose(curve, times=2)
    for e in (0.0, 0.5, 2.0, 8.0):
        lower, upper = composed.delta_bounds(e)
        # a composition with itself is at least the single curve (a marginal
        # is a post-processing of the product)
        assert upper >= curve.delta(e) * (1 - 1e-12)
        assert 0.0 <= lower <= upper <= 1.0


def test_pld_of_losses_beyond_the_cap_is_bracketed():
    # found by the fuzzer: log-probabilities of -1e300 made losses span 1e300
    # nats, and privacy_loss_distribution refused naming no parameter
    log_p = np.array([-math.log(3.0)] * 3 + [-1e300, -1e300])
    log_q = np.log(np.array([0.3, 0.1, 0.2, 0.2, 0.2]))
    curve = statpriv.from_log_pmfs(log_p, log_q, support_start=0)
    pld = curve.privacy_loss_distribution(1e-3)
    for e in (-1.0, 0.0, 0.5, 3.0, 1e4):
        true = curve.delta(e)
        assert true * (1 - 1e-12) <= pld.delta(e) <= true * (1 + 1e-12)
        assert pld.optimistic.delta(e) <= true
    # the atoms at loss 1e300 (Q-mass 0.4): at +inf above, at the cap below
    assert pld.optimistic.delta(3.0) == pytest.approx(0.4, rel=1e-12)
    lower, upper = statpriv.compose(curve, times=2).delta_bounds(0.5)
    assert lower <= 1 - 0.6 ** 2 <= upper
