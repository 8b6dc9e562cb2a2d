"""The normal approximation of the Gaussian-noise counting curve (Breutigam &
Reischuk, "Statistical Privacy", Lemma 6), evaluated directly in mpmath.  A
labelled approximation, not the exact curve (that is noise.noisy_counting_delta).
"""
from typing import Any

import mpmath
from mpmath import mp, mpf

from statpriv.oracle._common import _check_direction, _eps_list, _pick, _to_mpf
from statpriv.oracle.binomial import _others_probs

__all__ = ["normal_approx_delta"]


def normal_approx_delta(n: Any, pi: Any, eps: Any, sigma: Any, direction: Any = "max",
                        dps: Any = 30) -> Any:
    """Breutigam & Reischuk Lemma 6: the NORMAL APPROXIMATION of the Gaussian-noise curve
    (count units) -- a labelled approximation, not the exact curve.

    S + N ~ N(mu, v) with v = sum_j pi_j (1 - pi_j) + sigma^2 over the n-1
    others ((n-1) pi (1-pi) + sigma^2 for scalar pi), mu = sum_j pi_j;
    under P the law is shifted by +1.  Evaluated directly:
      delta_plus  = Phibar((x* - mu - 1)/s) - e^eps Phibar((x* - mu)/s),
                    x*  = mu + 1/2 + eps v  (crossing of the two densities),
      delta_minus = Phi((x** - mu)/s) - e^eps Phi((x** - mu - 1)/s),
                    x** = mu + 1/2 - eps v,
    s = sqrt(v).  Both equal the worst-case Gaussian DP curve with
    sigma_eff = s: Phi(1/(2s) - eps s) - e^eps Phi(-1/(2s) - eps s).
    The two terms nearly cancel when eps v is large (relative gap ~
    1/(eps v)); extra guard digits log10(2 + |eps| v) are added.
    """
    _check_direction(direction)
    with mp.workdps(dps):
        eps_vals, scalar = _eps_list(eps)

    def mean_var() -> Any:
        n_, p, ps = _others_probs(n, pi)
        sg = _to_mpf(sigma, "sigma")
        if sg < 0:
            raise ValueError(f"sigma must be >= 0, got {sigma!r}")
        if ps is None:
            mu = (n_ - 1) * p
            v = (n_ - 1) * p * (1 - p) + sg * sg
        else:
            mu = mpmath.fsum(ps)
            v = mpmath.fsum(x * (1 - x) for x in ps) + sg * sg
        if v <= 0:
            raise ValueError("variance is 0 (no noise and no uncertain records)")
        return mu, v

    out = []
    for e in eps_vals:
        with mp.workdps(dps + 15):
            _, v = mean_var()
            guard = int(mpmath.log10(2 + abs(e) * v)) + 1
        with mp.workdps(dps + 15 + guard):
            mu, v = mean_var()
            s = mpmath.sqrt(v)
            ee = mpmath.exp(e)
            r2 = mpmath.sqrt(2)

            def Phibar(z: Any) -> Any:
                return mpmath.erfc(z / r2) / 2

            def Phi(z: Any) -> Any:
                return mpmath.erfc(-z / r2) / 2

            xs = mu + mpf(1) / 2 + e * v
            plus = Phibar((xs - mu - 1) / s) - ee * Phibar((xs - mu) / s)
            xss = mu + mpf(1) / 2 - e * v
            minus = Phi((xss - mu) / s) - ee * Phi((xss - mu - 1) / s)
            val = _pick(direction, plus, minus)
        out.append(val)
    with mp.workdps(dps):
        out = [+v for v in out]
    return out[0] if scalar else out
