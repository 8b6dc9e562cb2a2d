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
