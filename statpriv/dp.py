"""Worst-case differential privacy curves (sensitivity 1, MATH.md §5).

Worst-case DP is statistical privacy without data randomness: the attacker
knows every other record, so the released value is Z = N (the noise) under
one hypothesis and N + 1 under the other.  All three curves are symmetric
(delta_plus = delta_minus).
"""
import numpy as np

from statpriv import _core, _validate, reference
from statpriv.curve import PrivacyCurve


def laplace(scale):
    """Laplace mechanism with scale b (count units):
    delta(eps) = max(0, 1 - exp((eps - 1/b)/2)), zero for eps >= 1/b
    (seed 000 Lemma 5)."""
    scale = _validate.real("scale", scale, low=0.0, low_open=True)
    return PrivacyCurve(_core.DPCurveCore("laplace", scale),
                        lambda eps, d: reference.dp_laplace_delta(scale, eps),
                        f"DP laplace scale={scale}")


def gaussian(sigma):
    """Gaussian mechanism N(0, sigma^2):
    delta(eps) = Phi(1/(2 sigma) - eps sigma) - e^eps Phi(-1/(2 sigma) - eps sigma)."""
    sigma = _validate.real("sigma", sigma, low=0.0, low_open=True)
    return PrivacyCurve(_core.DPCurveCore("gaussian", sigma),
                        lambda eps, d: reference.dp_gaussian_delta(sigma, eps),
                        f"DP gaussian sigma={sigma}")


def geometric(alpha):
    """Two-sided geometric (discrete Laplace) noise P(k) = (1-alpha)/(1+alpha) alpha^|k|:
    delta(eps) = max(0, 1 - alpha e^eps) / (1 + alpha)."""
    alpha = _validate.real("alpha", alpha, low=0.0, high=1.0, low_open=True, high_open=True)
    return PrivacyCurve(_core.DPCurveCore("geometric", alpha),
                        lambda eps, d: reference.dp_geometric_delta(alpha, eps),
                        f"DP geometric alpha={alpha}")


def amplify(eps, delta, rate):
    """Privacy amplification by subsampling (Balle-Barthe-Gaboardi; seed 000 §6).

    An (eps, delta)-DP mechanism run on a rate-lambda subsample is
    (ln(1 + lambda (e^eps - 1)), lambda delta)-DP.  Vectorized over all three.
    """
    eps = _validate.real_array("eps", eps, low=0.0, allow_inf=True)
    delta = _validate.real_array("delta", delta, low=0.0, high=1.0)
    rate = _validate.real_array("rate", rate, low=0.0, high=1.0)
    with np.errstate(over="ignore"):
        eps_out = np.log1p(rate * np.expm1(eps))
    delta_out = rate * delta
    if eps_out.ndim == 0 and delta_out.ndim == 0:
        return float(eps_out), float(delta_out)
    return eps_out, delta_out
