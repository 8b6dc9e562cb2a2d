"""Gaussian noise: the class and the exact curve of a count plus N(0, sigma^2).

delta_plus = sum over the intervals where f_P > e^eps f_Q of
sum_k (P(k) - e^eps Q(k)) P[N(k, sigma^2) in interval], summed per atom in
log space (csrc/gaussian.c).  The Gaussian kernel is totally positive, so
f_P - e^eps f_Q changes sign at most as often as k -> P(k) - e^eps Q(k)
(Karlin's variation diminishing property): when P/Q is monotone on the atoms
-- true of every law built here: shifts of log-concave counts, the sampling
mixtures (Breutigam & Reischuk, "Statistical Privacy"), the secret sample --
there is one sign change, solved for; otherwise every root is found on a grid
of sigma/8 and refined.  Exact for every sigma > 0: as sigma -> 0 the normal
masses become 0 or 1 and the curve tends to the noiseless one.  Gaussian
noise is not pure DP: delta > 0 at every finite eps.
"""
from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np
from numpy.typing import NDArray

from statpriv import _lazy, _validate, oracle
from statpriv.noise import Noise, _cells, _dp_accounting_pld_module

_core = _lazy.module("statpriv._core")            # scipy.special: loaded on first use
_kernels = _lazy.module("statpriv.noise._kernels")


class Gaussian(Noise):
    """Gaussian noise N(0, sigma^2).

    Parameters
    ----------
    sigma : float > 0
        The standard deviation, in count units (sensitivity 1).

    Examples
    --------
    >>> import statpriv
    >>> statpriv.Gaussian(3.0).variance
    9.0
    >>> print(f"{statpriv.counting(1000, 0.5, noise=statpriv.Gaussian(3.0)).delta(0.01):.6e}")
    2.021261e-02
    """

    __slots__ = ()
    kind = "gaussian"
    param_name = "sigma"
    _variance_factor = 1.0

    def __init__(self, sigma: float) -> None:
        super().__init__(_validate.real("sigma", sigma, low=0.0, low_open=True))

    @property
    def sigma(self) -> float:
        """The standard deviation sigma (count units), read-only."""
        return self.param

    @property
    def variance(self) -> float:
        """The variance of the noise, sigma^2."""
        return self.param * self.param

    def window_drop(self) -> Optional[float]:
        return None                # the kernel works in logs and keeps every atom

    def _trim(self, laws: Any) -> Any:
        return laws                # (at large eps the extreme atoms dominate)

    def _core(self, laws: Any) -> Any:
        # the accurate ln P/Q (and its low parts) gives every D_k = P(k) -
        # e^eps Q(k) its relative accuracy (csrc/gaussian.c, gauss_log_d)
        # monotone_ratio (P is Q shifted by one, Q log-concave: binomial,
        # Poisson-binomial) implies the monotone likelihood ratio; no check
        lp, lq = laws.log_p, laws.log_q
        mlr = bool(laws.monotone_ratio) or _cells.monotone_likelihood_ratio(lp, lq)
        return _kernels.GaussCurveCore(lp, lq, self.sigma, mlr, lr=laws.log_ratio,
                                    lr_lo=laws.log_ratio_lo)

    def certified_noise(self) -> Any:
        from statpriv.oracle import arb
        return arb.GaussianNoise(self.sigma)

    # -- worst-case DP (Balle & Wang, "Improving the Gaussian mechanism for
    # differential privacy", Thm. 8; csrc/dp.c)
    def certified_dp_laws(self) -> Any:
        from statpriv.oracle import arb
        return arb.GaussianDP(self.sigma)

    def dp_core(self) -> Any:
        return _kernels.GaussianDPCore(self.sigma)

    def _dp_reference(self) -> Any:
        sigma = self.sigma
        return lambda eps: oracle.dp_gaussian_delta(sigma, eps)

    def dp_renyi(self, alpha: float) -> float:
        """alpha / (2 sigma^2) (Mironov, "Renyi differential privacy")."""
        return alpha / (2.0 * self.sigma * self.sigma)

    def dp_renyi_orders(self, alphas: NDArray[np.float64]) -> NDArray[np.float64]:
        """alpha / (2 sigma^2) at every order (the same floats as dp_renyi)."""
        return alphas / (2.0 * self.sigma * self.sigma)

    def dp_loss_span(self) -> float:
        # dp-accounting's grid, truncated at its default log mass -50:
        # |L| <= 1/(2 sigma^2) + 10/sigma
        return 1.0 / self.sigma ** 2 + 20.0 / self.sigma

    def dp_accounting_pld(self, value_discretization_interval: Any, sensitivity: Any = 1) -> Any:
        return _dp_accounting_pld_module().from_gaussian_mechanism(
            self.sigma, value_discretization_interval=value_discretization_interval)

    def dp_accounting_sampled_pld(self, value_discretization_interval: Any, sensitivity: Any,
                                  sampling_prob: Any, relation: Any) -> Any:
        pld_module = _dp_accounting_pld_module()
        neighbours = pld_module.NeighborRel
        return pld_module.from_gaussian_mechanism(
            self.sigma, value_discretization_interval=value_discretization_interval,
            sampling_prob=sampling_prob,
            neighboring_relation=(neighbours.ADD_OR_REMOVE_ONE if relation == "add_remove"
                                  else neighbours.REPLACE_ONE))

    # statpriv.interval: P[|N| < t] = 2 Phi(t/sigma) - 1 = erf(t/(sigma sqrt 2));
    # not pure DP: the level is the smallest eps with delta_sigma(eps) <= delta
    # on the worst-case curve Gaussian(sigma).dp_curve()
    @staticmethod
    def _interval_epsilon(width: Any, confidence: Any, count: Any, delta: Any) -> Any:
        sigma = width * count / _gaussian_z(confidence)
        return Gaussian(sigma).dp_curve().epsilon(delta)

    @staticmethod
    def _interval_confidence(eps: Any, width: Any, count: Any, delta: Any) -> Any:
        sigma = _gaussian_sigma_for(eps, delta)
        from scipy import special
        return float(special.erf(width * count / (sigma * math.sqrt(2.0))))

    @staticmethod
    def _interval_width(eps: Any, confidence: Any, count: Any, delta: Any) -> Any:
        return _gaussian_sigma_for(eps, delta) * _gaussian_z(confidence) / count

    @classmethod
    def _interval_noise(cls, width: Any, confidence: Any, count: Any) -> Any:
        return cls(width * count / _gaussian_z(confidence))


def _gaussian_z(p: Any) -> Any:
    """Phi^{-1}((1 + p)/2) = sqrt(2) erfinv(p), without forming (1 + p)/2."""
    from scipy import special
    return math.sqrt(2.0) * float(special.erfinv(p))


def _gaussian_sigma_for(eps: Any, delta: Any) -> Any:
    """Smallest sigma with delta_sigma(eps) <= delta on Gaussian(sigma).dp_curve().

    delta_sigma(eps) falls strictly from 1 (sigma -> 0) to 0 (sigma -> inf), so
    the root of ln delta_sigma(eps) = ln delta in ln sigma is bracketed by
    doubling from the classical sqrt(2 ln(1.25/delta))/eps and found by brentq.
    """
    log_target = math.log(delta)

    def f(log_sigma: Any) -> Any:
        return Gaussian(math.exp(log_sigma)).dp_curve().log_delta(eps) - log_target

    guess = math.log(max(math.sqrt(2.0 * math.log(1.25 / delta)) / eps, 1e-300))
    lo = hi = guess
    for _ in range(2000):
        if f(hi) <= 0:
            break
        hi += 1.0
    for _ in range(2000):
        if f(lo) > 0:
            break
        lo -= 1.0
    if not f(lo) > 0 >= f(hi):
        raise ArithmeticError(f"no Gaussian sigma found for eps={eps!r}, delta={delta!r}")
    from scipy import optimize
    return math.exp(optimize.brentq(f, lo, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps,
                                    maxiter=500))
