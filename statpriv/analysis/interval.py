"""Choosing eps by interval estimation (docs/mathematics.md §7; Naldi & D'Acquisto, Naldi & D'Acquisto).

A count c > 0 is released as c_hat = c + N with zero-mean noise N (count
units, sensitivity 1).  The analyst's interval [c_hat - w c, c_hat + w c]
contains c with probability (Naldi & D'Acquisto eqs. (7)-(8))

    p = P[c_hat - w c < c < c_hat + w c] = P[|N| < w c],

so the pair (w, p) -- relative half-width and confidence level -- fixes the
noise, and the noise fixes eps.  Three noise kinds:

- "laplace": scale 1/eps, P[|N| < t] = 1 - e^(-eps t) (Naldi & D'Acquisto eq. (9)),
  hence eps = -ln(1 - p)/(w c) (eq. (10)).
- "geometric": two-sided geometric P(k) = (1-alpha)/(1+alpha) alpha^|k| with
  alpha = e^(-eps) (eps-DP for sensitivity 1).  With K = ceil(w c),
  P[|N| < w c] = P[|N| <= K - 1] = 1 - 2 alpha^K / (1 + alpha).
- "gaussian": N(0, sigma^2), P[|N| < t] = 2 Phi(t/sigma) - 1 = erf(t/(sigma sqrt 2)).
  Gaussian noise is not pure eps-DP: with delta in (0, 1) the level is the
  smallest eps with delta_sigma(eps) <= delta on the worst-case DP curve
  statpriv.dp.gaussian(sigma).

The same noise object (interval_noise) can be passed to
statpriv.counting(n, pi, noise=...) to see its statistical-privacy curve for
a given population.  Every function accepts arrays for its numeric arguments
(they broadcast) and returns a float for scalar input.
"""
import math

import numpy as np

from statpriv import _validate, dp
from statpriv.noise import Gaussian, Geometric, Laplace

__all__ = ["interval_epsilon", "interval_confidence", "interval_width", "interval_noise"]

NOISE_KINDS = ("laplace", "geometric", "gaussian")
_LN2 = math.log(2.0)


# -- argument checks ---------------------------------------------------------
def _reals(name, value, *, low, high=math.inf, low_open=False, high_open=False):
    """A real scalar (-> float) or array (-> float64 array) in the given range;
    bools, strings, None, complex: ParameterTypeError; ragged: ValueError."""
    return _validate.reals(name, value, low=low, high=high,
                           low_open=low_open, high_open=high_open)


def _count(count):
    value = _reals("count", count, low=0.0)
    if np.any(value == 0.0):
        raise ValueError("count must be > 0: with count = 0 the interval "
                         "[c_hat - w c, c_hat + w c] is empty, got 0")
    return value


def _width(width):
    return _reals("width", width, low=0.0, low_open=True)


def _confidence(confidence):
    return _reals("confidence", confidence, low=0.0, high=1.0, low_open=True, high_open=True)


def _eps(eps):
    return _reals("eps", eps, low=0.0, low_open=True)


def _kind_delta(noise_kind, delta):
    _validate.choice("noise_kind", noise_kind, NOISE_KINDS)
    if noise_kind == "gaussian":
        if delta is None:
            raise ValueError("delta is required for noise_kind='gaussian' (Gaussian noise "
                             "is not pure eps-DP): delta must be in (0.0, 1.0)")
        return _reals("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    if delta is not None:
        raise ValueError(f"delta must be None for noise_kind={noise_kind!r} (pure eps-DP); "
                         "it is used only with noise_kind='gaussian'")
    return None


def _apply(fn, **named):
    """fn on floats (positional, in the order given); broadcast over arrays
    (float out for all-scalar input).  Arrays that do not broadcast raise a
    ValueError naming the parameters and their shapes."""
    args = list(named.values())
    if all(np.ndim(a) == 0 for a in args):
        return float(fn(*(float(a) for a in args)))
    return np.vectorize(fn, otypes=[np.float64])(*_validate.broadcast(**named))


# -- geometric: the strict inequality |k| < t on the integers ------------------
def _integer_bound(t):
    """K = ceil(t) for t > 0, the number of |k| values excluded by |k| < t being
    those with |k| >= K.  A t within 4 ulps of an integer is taken as that
    integer (0.3 * 10 = 3.0000000000000004 means t = 3, so K = 3)."""
    r = round(t)
    if r >= 1 and abs(t - r) <= 4.0 * math.ulp(r):
        return int(r)
    return max(1, math.ceil(t))


def _geometric_tail_log(eps, K):
    """ln P[|N| >= K] = ln(2 alpha^K / (1 + alpha)), alpha = e^-eps."""
    return _LN2 - K * eps - math.log1p(math.exp(-eps))


def _geometric_confidence(eps, K):
    return -math.expm1(_geometric_tail_log(eps, K))


def _geometric_epsilon(K, p):
    """eps solving 1 - 2 alpha^K/(1 + alpha) = p, alpha = e^-eps.

    h(eps) = ln 2 - K eps - ln(1 + e^-eps) - ln(1 - p) falls strictly
    (h' = -K + 1/(1 + e^eps) < 0) from -ln(1-p) > 0 at eps = 0 to -inf, and
    ln(1 + e^-eps) in (0, ln 2) brackets the root in
    [-ln(1-p)/K, (ln 2 - ln(1-p))/K].  K = 1 is closed-form:
    p = (1-alpha)/(1+alpha) = tanh(eps/2), eps = ln(1+p) - ln(1-p).
    """
    log_q = math.log1p(-p)
    if K == 1:
        return math.log1p(p) - log_q

    def h(eps):
        return _geometric_tail_log(eps, K) - log_q

    lo, hi = -log_q / K, (_LN2 - log_q) / K
    from scipy import optimize
    return optimize.brentq(h, lo, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500)


def _geometric_width_bound(eps, p):
    """Smallest integer K >= 1 with 1 - 2 alpha^K/(1+alpha) >= p."""
    log_q = math.log1p(-p)
    guess = (_LN2 - math.log1p(math.exp(-eps)) - log_q) / eps
    K = max(1, math.ceil(guess)) if math.isfinite(guess) else 1
    while K > 1 and _geometric_confidence(eps, K - 1) >= p:
        K -= 1
    while _geometric_confidence(eps, K) < p:
        K += 1
    return K


# -- gaussian -----------------------------------------------------------------
def _gaussian_z(p):
    """Phi^{-1}((1 + p)/2) = sqrt(2) erfinv(p), without forming (1 + p)/2."""
    from scipy import special
    return math.sqrt(2.0) * float(special.erfinv(p))


def _gaussian_sigma_for(eps, delta):
    """Smallest sigma with delta_sigma(eps) <= delta on dp.gaussian(sigma).

    delta_sigma(eps) falls strictly from 1 (sigma -> 0) to 0 (sigma -> inf), so
    the root of ln delta_sigma(eps) = ln delta in ln sigma is bracketed by
    doubling from the classical sqrt(2 ln(1.25/delta))/eps and found by brentq.
    """
    log_target = math.log(delta)

    def f(log_sigma):
        return dp.gaussian(math.exp(log_sigma)).log_delta(eps) - log_target

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


# -- scalar kernels -------------------------------------------------------------
def _epsilon_scalar(kind, width, confidence, count, delta):
    if kind == "laplace":
        return -math.log1p(-confidence) / (width * count)
    if kind == "geometric":
        return _geometric_epsilon(_integer_bound(width * count), confidence)
    sigma = width * count / _gaussian_z(confidence)
    return dp.gaussian(sigma).epsilon(delta)


def _confidence_scalar(kind, eps, width, count, delta):
    if kind == "laplace":
        return -math.expm1(-eps * width * count)
    if kind == "geometric":
        return _geometric_confidence(eps, _integer_bound(width * count))
    sigma = _gaussian_sigma_for(eps, delta)
    from scipy import special
    return float(special.erf(width * count / (sigma * math.sqrt(2.0))))


def _width_scalar(kind, eps, confidence, count, delta):
    if kind == "laplace":
        return -math.log1p(-confidence) / (eps * count)
    if kind == "geometric":
        return _geometric_width_bound(eps, confidence) / count
    return _gaussian_sigma_for(eps, delta) * _gaussian_z(confidence) / count


# -- public API -----------------------------------------------------------------
def interval_epsilon(width, confidence, count, noise_kind="laplace", delta=None):
    """The eps whose noise puts the count c in [c_hat - w c, c_hat + w c] with
    probability exactly p = confidence (Naldi & D'Acquisto eqs. (7)-(10)).

    - "laplace":   eps = -ln(1 - p)/(w c)  (eq. (10); computed as -log1p(-p)/(w c)).
      Example (Naldi & D'Acquisto §3): c = 100, w = 0.2, p = 0.8 gives
      eps = ln 5 / 20 = 0.0804718956..., which the seed rounds to 0.08.
    - "geometric": the eps with 1 - 2 alpha^K/(1+alpha) = p, alpha = e^-eps,
      K = ceil(w c) (closed form eps = ln((1+p)/(1-p)) for K = 1, else a
      bracketed root; see _geometric_epsilon).
    - "gaussian":  sigma = w c / Phi^{-1}((1+p)/2), then
      eps = statpriv.dp.gaussian(sigma).epsilon(delta), the smallest eps >= 0
      with delta_sigma(eps) <= delta.  It is 0.0 when sigma is so large that
      the total-variation distance of N and N+1 is already <= delta.

    Parameters
    ----------
    width : float > 0        relative half-width w of the interval.
    confidence : float in (0, 1)   confidence level p.
    count : float > 0        true count c (count = 0 would make the interval empty).
    noise_kind : "laplace", "geometric" or "gaussian"
    delta : float in (0, 1), required for "gaussian" only (None otherwise).

    All numeric arguments may be arrays (they broadcast).
    """
    delta = _kind_delta(noise_kind, delta)
    args = dict(width=_width(width), confidence=_confidence(confidence), count=_count(count))
    if noise_kind == "gaussian":
        return _apply(lambda w, p, c, d: _epsilon_scalar(noise_kind, w, p, c, d), **args,
                      delta=delta)
    return _apply(lambda w, p, c: _epsilon_scalar(noise_kind, w, p, c, None), **args)


def interval_confidence(eps, width, count, noise_kind="laplace", delta=None):
    """Confidence p = P[|N| < w c] of the interval [c_hat - w c, c_hat + w c]
    under eps-calibrated noise (the inverse of interval_epsilon in p).

    - "laplace":   p = 1 - e^(-eps w c)   (Naldi & D'Acquisto eq. (9)).
    - "geometric": p = 1 - 2 alpha^K/(1 + alpha), alpha = e^-eps, K = ceil(w c)
      (a step function of w: every w in ((K-1)/c, K/c] gives the same p).
    - "gaussian":  p = 2 Phi(w c / sigma) - 1 with sigma the smallest noise
      for which the Gaussian mechanism is (eps, delta)-DP.

    eps > 0, width > 0, count > 0, delta in (0, 1) for "gaussian" only.
    """
    delta = _kind_delta(noise_kind, delta)
    args = dict(eps=_eps(eps), width=_width(width), count=_count(count))
    if noise_kind == "gaussian":
        return _apply(lambda e, w, c, d: _confidence_scalar(noise_kind, e, w, c, d), **args,
                      delta=delta)
    return _apply(lambda e, w, c: _confidence_scalar(noise_kind, e, w, c, None), **args)


def interval_width(eps, confidence, count, noise_kind="laplace", delta=None):
    """Relative half-width w with P[|N| < w c] = p under eps-calibrated noise
    (the inverse of interval_epsilon in w).

    - "laplace":   w = -ln(1 - p)/(eps c).
    - "gaussian":  w = sigma Phi^{-1}((1+p)/2) / c, sigma the smallest
      (eps, delta)-DP Gaussian noise.
    - "geometric": the confidence is a step function of w, so no w meets p
      exactly in general.  Returned is w = K/c with K the smallest integer
      with 1 - 2 alpha^K/(1+alpha) >= p: every w in ((K-1)/c, K/c] gives this
      (smallest achievable) interval {|N| <= K - 1} and confidence >= p;
      K/c is the one with an integer w c.

    eps > 0, confidence in (0, 1), count > 0, delta in (0, 1) for "gaussian" only.
    """
    delta = _kind_delta(noise_kind, delta)
    args = dict(eps=_eps(eps), confidence=_confidence(confidence), count=_count(count))
    if noise_kind == "gaussian":
        return _apply(lambda e, p, c, d: _width_scalar(noise_kind, e, p, c, d), **args,
                      delta=delta)
    return _apply(lambda e, p, c: _width_scalar(noise_kind, e, p, c, None), **args)


def interval_noise(width, confidence, count, noise_kind="laplace"):
    """The noise object meeting the interval target P[|N| < w c] = p exactly:

    - "laplace":   Laplace(scale = w c / -ln(1 - p))        (scale = 1/eps);
    - "geometric": Geometric(alpha = e^-eps), eps from interval_epsilon;
    - "gaussian":  Gaussian(sigma = w c / Phi^{-1}((1+p)/2)) (no delta needed:
      the interval fixes sigma; delta only enters the DP level).

    Feed it to statpriv.counting(n, pi, noise=...) for the statistical-privacy
    curve of the same mechanism over a population, or call .dp_curve() for the
    worst-case DP curve.  Scalar arguments only.
    """
    _validate.choice("noise_kind", noise_kind, NOISE_KINDS)
    w = _validate.real("width", width, low=0.0, low_open=True)
    p = _validate.real("confidence", confidence, low=0.0, high=1.0,
                       low_open=True, high_open=True)
    c = _count(count)
    if np.ndim(c) != 0:
        raise _validate.ParameterTypeError("count must be a single real number for interval_noise")
    if noise_kind == "laplace":
        return Laplace(w * c / -math.log1p(-p))
    if noise_kind == "geometric":
        return Geometric(math.exp(-_geometric_epsilon(_integer_bound(w * c), p)))
    return Gaussian(w * c / _gaussian_z(p))
