"""statpriv.utility: utility loss (Breutigam & Reischuk Def. 7, Lemmas 7-9) and equal-utility noise.

Expected values come from hand-derived formulas, from an exact rational
enumeration over the data and the sample, and from Monte-Carlo simulation
with a fixed seed and a 5-standard-error tolerance -- never from the code
under test.
"""
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from statpriv import dp
from statpriv.noise import Gaussian, Geometric, Laplace
from statpriv.utility import equal_utility_epsilon, equal_utility_noise, utility_loss


# -- hand-derived values --------------------------------------------------------
def test_hand_values():
    # pi (1-pi)(1/m - 1/n) = 0.25 * (1/5 - 1/10) = 0.025
    assert utility_loss(10, 0.5, sample_size=5) == pytest.approx(0.025, rel=1e-15)
    # Var(Laplace(2)) / n^2 = 8 / 100
    assert utility_loss(10, 0.5, noise=Laplace(2.0)) == pytest.approx(0.08, rel=1e-15)
    # Var(Gaussian(3)) / n^2 = 9 / 100, independent of pi
    assert utility_loss(10, 0.1, noise=Gaussian(3.0)) == pytest.approx(0.09, rel=1e-15)
    # Var(Geometric(1/2)) = 2 (1/2) / (1/2)^2 = 4, over n^2 = 400
    assert utility_loss(20, 0.3, noise=Geometric(0.5)) == pytest.approx(0.01, rel=1e-15)
    # both: 0.025 + 8 / 5^2 = 0.345
    assert utility_loss(10, 0.5, noise=Laplace(2.0), sample_size=5) == pytest.approx(0.345, rel=1e-15)
    # n = 1000, pi = 0.3, m = 100: 0.21 * 0.009 = 0.00189
    assert utility_loss(1000, 0.3, sample_size=100) == pytest.approx(0.00189, rel=1e-14)


def test_degenerate_cases():
    assert utility_loss(10, 0.3) == 0.0                       # no mechanism
    assert utility_loss(10, 0.3, sample_size=10) == 0.0       # sample of everything
    assert utility_loss(10, 0.0, sample_size=3) == 0.0        # no data randomness
    assert utility_loss(10, 1.0, sample_size=3) == 0.0
    assert utility_loss(1, 0.5) == 0.0
    # sample_size = n with noise is the noise-only loss Var(N)/n^2
    assert utility_loss(10, 0.3, noise=Laplace(1.0), sample_size=10) == pytest.approx(0.02, rel=1e-15)
    assert isinstance(utility_loss(10, 0.3, sample_size=4), float)


def test_vectorized_over_pi():
    pi = np.array([[0.0, 0.1, 0.5], [0.7, 0.99, 1.0]])
    out = utility_loss(50, pi, noise=Gaussian(2.0), sample_size=20)
    assert isinstance(out, np.ndarray) and out.shape == pi.shape
    for idx in np.ndindex(pi.shape):
        p = pi[idx]
        assert out[idx] == pytest.approx(p * (1 - p) * (1 / 20 - 1 / 50) + 4.0 / 400, rel=1e-14)
        assert out[idx] == utility_loss(50, float(p), noise=Gaussian(2.0), sample_size=20)
    assert utility_loss(50, [0.5], sample_size=25).shape == (1,)


# -- exact enumeration (rational arithmetic) -------------------------------------
def _exact_sampling_mse(n, pi, m):
    """E[(J/m - K/n)^2] with K ~ Bin(n, pi) and J | K hypergeometric, summed exactly."""
    total = Fraction(0)
    for K in range(n + 1):
        pK = math.comb(n, K) * pi ** K * (1 - pi) ** (n - K)
        for J in range(max(0, m - (n - K)), min(K, m) + 1):
            pJ = Fraction(math.comb(K, J) * math.comb(n - K, m - J), math.comb(n, m))
            total += pK * pJ * (Fraction(J, m) - Fraction(K, n)) ** 2
    return total


@pytest.mark.parametrize("n,pi,m", [(7, Fraction(3, 10), 3), (12, Fraction(1, 2), 1),
                                     (12, Fraction(1, 7), 11), (9, Fraction(9, 10), 9)])
def test_lemma7_exact_enumeration(n, pi, m):
    exact = _exact_sampling_mse(n, pi, m)
    assert exact == pi * (1 - pi) * (Fraction(1, m) - Fraction(1, n))   # Lemma 7, exactly
    assert utility_loss(n, float(pi), sample_size=m) == pytest.approx(float(exact), rel=1e-14)
    # combined: the cross term vanishes (zero-mean independent noise), noise adds Var/m^2
    noise = Gaussian(0.75)
    assert utility_loss(n, float(pi), noise=noise, sample_size=m) == pytest.approx(
        float(exact + Fraction(0.75) ** 2 / m ** 2), rel=1e-14)


# -- Monte Carlo ----------------------------------------------------------------
N_MC, PI_MC, M_MC, SCALE_MC, R_MC = 40, 0.3, 10, 1.5, 60_000


def _simulate(rng, *, sample, noise_scale):
    """Squared errors of R_MC independent runs: n Bernoulli(pi) records, optionally
    a sample of m without replacement, optionally Laplace noise on the released count."""
    records = rng.random((R_MC, N_MC)) < PI_MC
    truth = records.mean(axis=1)
    if sample:
        order = np.argsort(rng.random((R_MC, N_MC)), axis=1)[:, :M_MC]
        count = np.take_along_axis(records, order, axis=1).sum(axis=1).astype(float)
        size = M_MC
    else:
        count = records.sum(axis=1).astype(float)
        size = N_MC
    if noise_scale is not None:
        count = count + rng.laplace(0.0, noise_scale, R_MC)
    sq = (count / size - truth) ** 2
    return sq.mean(), sq.std(ddof=1) / math.sqrt(R_MC)


@pytest.mark.parametrize("sample,noise_scale,seed", [(True, None, 1), (False, SCALE_MC, 2),
                                                    (True, SCALE_MC, 3)])
def test_monte_carlo(sample, noise_scale, seed):
    mean, se = _simulate(np.random.default_rng(seed), sample=sample, noise_scale=noise_scale)
    noise = None if noise_scale is None else Laplace(noise_scale)
    m = M_MC if sample else None
    ul = utility_loss(N_MC, PI_MC, noise=noise, sample_size=m)
    assert abs(mean - ul) <= 5 * se, f"MC {mean} +- {se} vs {ul}"
    # the hand formula, for the record
    mm = M_MC if sample else N_MC
    var = 0.0 if noise_scale is None else 2 * noise_scale ** 2
    assert ul == pytest.approx(PI_MC * (1 - PI_MC) * (1 / mm - 1 / N_MC) + var / mm ** 2, rel=1e-14)
    if sample and noise_scale is not None:
        # the simulation has the power to reject noise measured in full-count units
        wrong = PI_MC * (1 - PI_MC) * (1 / M_MC - 1 / N_MC) + var / N_MC ** 2
        assert abs(mean - wrong) > 20 * se


# -- equal utility ----------------------------------------------------------------
CASES = [(1000, 0.5, 100), (1000, 0.1, 900), (100, 0.01, 1), (10 ** 7, 0.3, 12345), (2, 0.5, 1)]


@pytest.mark.parametrize("n,pi,m", CASES)
@pytest.mark.parametrize("cls,var_factor", [(Laplace, 2.0), (Gaussian, 1.0)])
def test_equal_utility_noise(n, pi, m, cls, var_factor):
    noise = equal_utility_noise(n, pi, m, noise=cls)
    assert type(noise) is cls
    target = utility_loss(n, pi, sample_size=m)
    assert utility_loss(n, pi, noise=noise) == pytest.approx(target, rel=1e-14)
    # docs/mathematics.md §6, fraction units: psi = sqrt(pi(1-pi)(1/m - 1/n) / var_factor); count units psi n
    psi = mpmath.sqrt(mpmath.mpf(pi) * (1 - mpmath.mpf(pi))
                      * (mpmath.mpf(1) / m - mpmath.mpf(1) / n) / var_factor)
    assert noise.param == pytest.approx(float(psi * n), rel=1e-14)


def test_equal_utility_default_kind():
    assert equal_utility_noise(1000, 0.5, 100) == equal_utility_noise(1000, 0.5, 100, Laplace)


@pytest.mark.parametrize("n,pi,m", CASES)
def test_equal_utility_epsilon_is_one_over_scale(n, pi, m):
    eps = equal_utility_epsilon(n, pi, m)
    scale = equal_utility_noise(n, pi, m, noise=Laplace).scale
    assert eps == pytest.approx(1.0 / scale, rel=1e-14)
    # Breutigam & Reischuk §4.4, in mpmath: sqrt(2/(pi(1-pi))) sqrt(lambda/(n-m))
    p, lam = mpmath.mpf(pi), mpmath.mpf(m) / n
    assert eps == pytest.approx(float(mpmath.sqrt(2 / (p * (1 - p))) * mpmath.sqrt(lam / (n - m))),
                                rel=1e-14)
    # and it is the pure-DP level of that Laplace noise on the worst-case curve
    curve = dp.laplace(scale)
    assert curve.delta(eps * (1 + 1e-12)) == 0.0
    assert curve.delta(eps * (1 - 1e-6)) > 0.0


def test_equal_utility_epsilon_vectorized():
    pis = np.array([0.01, 0.3, 0.5, 0.9])
    out = equal_utility_epsilon(1000, pis, 100)
    assert out.shape == pis.shape
    for p, e in zip(pis, out):
        assert e == pytest.approx(equal_utility_epsilon(1000, float(p), 100), rel=1e-15)


# -- bad input ----------------------------------------------------------------------
@pytest.mark.parametrize("args,kwargs,match", [
    ((0, 0.5), {}, r"n must be an integer >= 1"),
    ((2.5, 0.5), {}, r"n must be an integer"),
    ((True, 0.5), {}, r"n must be an integer"),
    ((10, -0.1), {}, r"pi must be in \[0.0, 1.0\]"),
    ((10, 1.1), {}, r"pi must be in \[0.0, 1.0\]"),
    ((10, math.nan), {}, r"pi must be finite"),
    ((10, [0.2, 1.5]), {}, r"pi must lie in \[0.0, 1.0\]"),
    ((10, [0.2, math.nan]), {}, r"pi must not contain NaN"),
    ((10, "a"), {}, r"pi must be a real number"),
    ((10, 0.5), dict(sample_size=0), r"sample_size must be an integer \[1, 10\]"),
    ((10, 0.5), dict(sample_size=11), r"sample_size must be an integer \[1, 10\]"),
    ((10, 0.5), dict(sample_size=2.5), r"sample_size must be an integer"),
    ((10, 0.5), dict(noise=2.0), r"noise must be a statpriv.noise"),
    ((10, 0.5), dict(noise="laplace"), r"noise must be a statpriv.noise"),
])
def test_utility_loss_rejects(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        utility_loss(*args, **kwargs)


@pytest.mark.parametrize("args,match", [
    ((10, 0.5, 10), r"sample_size must be in \[1, n - 1\].*no Laplace or Gaussian noise has zero variance"),
    ((10, 0.5, 11), r"sample_size must be an integer \[1, 10\]"),
    ((10, 0.5, 0), r"sample_size must be an integer \[1, 10\]"),
    ((1, 0.5, 1), r"n must be an integer >= 2"),
    ((10, 0.0, 5), r"pi must be in \(0.0, 1.0\)"),
    ((10, 1.0, 5), r"pi must be in \(0.0, 1.0\)"),
    ((10, 1.2, 5), r"pi must be in \(0.0, 1.0\)"),
])
def test_equal_utility_rejects(args, match):
    with pytest.raises(ValueError, match=match):
        equal_utility_noise(*args)
    with pytest.raises(ValueError, match=match):
        equal_utility_epsilon(*args)


def test_equal_utility_rejects_other():
    with pytest.raises(ValueError, match=r"noise must be statpriv.Laplace or statpriv.Gaussian, "
                                         r"got statpriv.Geometric"):
        equal_utility_noise(10, 0.5, 5, noise=Geometric)
    with pytest.raises(ValueError, match=r"noise must be statpriv.Laplace or statpriv.Gaussian "
                                         r"\(or, deprecated, one of 'laplace', 'gaussian'\), "
                                         r"got 'geometric'"):
        equal_utility_noise(10, 0.5, 5, "geometric")
    with pytest.raises(TypeError, match=r"noise must be a noise class .*not a noise object"):
        equal_utility_noise(10, 0.5, 5, noise=Laplace(1.0))
    with pytest.raises(ValueError, match=r"pi must be a single real number"):
        equal_utility_noise(10, [0.5, 0.2], 5)
    with pytest.raises(ValueError, match=r"pi must lie in \(0.0, 1.0\)"):
        equal_utility_epsilon(10, [0.5, 0.0], 5)


@pytest.mark.parametrize("name,cls", [("laplace", Laplace), ("gaussian", Gaussian)])
def test_equal_utility_kind_names_are_deprecated(name, cls):
    expected = equal_utility_noise(1000, 0.3, 100, noise=cls)
    with pytest.warns(DeprecationWarning, match=f"pass noise=statpriv.{cls.__name__} instead"):
        assert equal_utility_noise(1000, 0.3, 100, name) == expected
    with pytest.warns(DeprecationWarning) as record:
        assert equal_utility_noise(1000, 0.3, 100, kind=name) == expected
    messages = sorted(str(w.message) for w in record)       # the old keyword and the name
    assert len(messages) == 2, messages
    assert "equal_utility_noise(kind=...) is deprecated: the parameter is called noise now" \
        in messages
    with pytest.warns(DeprecationWarning, match=r"kind=\.\.\.\) is deprecated"):
        assert equal_utility_noise(1000, 0.3, 100, kind=cls) == expected
