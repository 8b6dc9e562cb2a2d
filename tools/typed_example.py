"""statpriv's public API as a type checker sees it: checked by ``mypy --strict``.

    mypy --strict statpriv tools/typed_example.py      # (.ci/run does this)
    python tools/typed_example.py                      # and it runs

statpriv ships its annotations (PEP 561, statpriv/py.typed) and stubs of its
compiled modules.  The queries are overloaded: one real number in gives a
float out, an array (or a list) gives a float64 array, so code like the
lines below needs no casts.  ``reveal_type`` is not called: the explicit
annotations on the left-hand sides are what mypy checks against.
"""
from __future__ import annotations

from typing import List, Tuple

import numpy as np
from numpy.typing import NDArray

import statpriv
from statpriv import dp, shuffle


def counting_queries() -> Tuple[float, NDArray[np.float64], float]:
    """One eps -> a float, a list of them -> an array; epsilon likewise."""
    curve: statpriv.PrivacyCurve = statpriv.counting(1000, 0.5)
    one: float = curve.delta(0.1)
    many: NDArray[np.float64] = curve.delta([0.0, 0.5, 1.0])
    plus: float = curve.delta_plus(0.1)
    log_minus: NDArray[np.float64] = curve.log_delta_minus(np.array([0.1, 0.2]))
    eps: float = curve.epsilon(1e-6)
    assert 0.0 <= plus <= 1.0 and log_minus.shape == (2,) and one >= 0.0
    return one, many, eps


def mechanisms() -> List[statpriv.PrivacyCurve]:
    """The factories return curves; noise objects are typed by kind."""
    laplace: statpriv.Laplace = statpriv.Laplace(2.0)
    scale: float = laplace.scale
    curves = [
        statpriv.counting(100, 0.3, noise=laplace, sample_size=50),
        statpriv.secret_sample(100, 10, positives=30),
        statpriv.thresholded(1000, 1e-3, 5, known=10),
        dp.gaussian(1.0, sampling_prob=0.01),
        dp.laplace(scale),
        dp.geometric(0.5),
        dp.randomized_response(1.0),
        shuffle.clones(100, 1.0),
        statpriv.from_log_pmfs([np.log(0.6), np.log(0.4)], [np.log(0.4), np.log(0.6)]),
    ]
    return curves


def knowledge() -> Tuple[float, float, int]:
    """partial_knowledge's worst case has a bracket; k_anonymity two curves."""
    pk = statpriv.partial_knowledge(200, 0.1, known=10)
    attained, certified, vertex = pk.worst_case.bracket(0.5)
    blanket: float = pk.blanket.delta(0.5)
    pair = statpriv.k_anonymity(50, [0.1, 0.2], 2, source=0, target=1)
    upper: float = pair.upper.delta(0.5)
    assert attained <= certified and upper >= 0.0 and blanket >= 0.0
    return attained, certified, vertex


def accounting() -> Tuple[float, float, float]:
    """Composition, the accountant, calibration and the (eps, delta) helpers."""
    step = dp.gaussian(4.0)
    composed = statpriv.compose(step, times=16)
    lower, upper = composed.epsilon_bounds(1e-5)
    accountant = statpriv.Accountant()
    accountant.compose(step, times=16)
    delta: float = accountant.delta(1.0)
    sigma: float = statpriv.calibrate(lambda s: dp.gaussian(s), epsilon=1.0, delta=1e-5,
                                      lower=0.1, upper=10.0)
    eps, d = statpriv.basic_composition((0.5, 1e-6), (0.25, 1e-7), times=2)
    amplified: Tuple[float, float] = dp.amplify(1.0, 1e-6, 0.01)
    orders = [2.0, 4.0, 8.0]
    rdp: NDArray[np.float64] = step.renyi(orders)
    converted: float = statpriv.rdp_to_dp(orders, rdp, delta=1e-6)
    assert lower <= upper and eps > 0.0 and d > 0.0 and amplified[0] > 0.0 and converted > 0.0
    return delta, sigma, upper


def losses() -> Tuple[float, NDArray[np.float64]]:
    """The privacy-loss distribution: typed like the curve's queries."""
    pld = statpriv.counting(100, 0.5).privacy_loss_distribution()
    delta: float = pld.delta(0.5)
    renyi: NDArray[np.float64] = pld.renyi([2.0, 4.0])
    again: statpriv.PrivacyCurve = pld.to_curve()
    assert abs(again.delta(0.5) - delta) <= 1e-9
    return delta, renyi


def analysis() -> Tuple[float, float]:
    """Interval estimation and utility: scalars in, floats out."""
    eps: float = statpriv.interval_epsilon(0.2, 0.8, 100)
    noise = statpriv.interval_noise(0.2, 0.8, 100, noise=statpriv.Gaussian)
    loss = statpriv.utility_loss(1000, 0.5, noise=statpriv.Laplace(2.0))
    assert isinstance(noise, statpriv.Gaussian)
    return eps, float(loss)


if __name__ == "__main__":
    print(counting_queries()[0], len(mechanisms()), knowledge()[2], accounting()[0],
          losses()[0], analysis()[0])
