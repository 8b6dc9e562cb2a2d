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

from statpriv import _validate, noise

__all__ = ["interval_epsilon", "interval_confidence", "interval_width", "interval_noise"]

# The noise kinds, from the one table (statpriv.noise.NOISE_KINDS): the pure
# eps-DP kinds first, then those that need a delta.  The per-kind formulas
# live on the noise classes (_interval_epsilon, ...), in their modules.
NOISE_KINDS = tuple(sorted(noise.NOISE_KINDS, key=lambda kind: not noise.NOISE_KINDS[kind].pure_dp))


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


def _kind(noise_kind):
    """The noise class of a kind name (ValueError naming the kinds otherwise)."""
    _validate.choice("noise_kind", noise_kind, NOISE_KINDS)
    return noise.NOISE_KINDS[noise_kind]


def _kind_delta(noise_kind, delta):
    cls = _kind(noise_kind)
    if not cls.pure_dp:
        if delta is None:
            raise ValueError(f"delta is required for noise_kind={noise_kind!r} ({cls.__name__} "
                             "noise is not pure eps-DP): delta must be in (0.0, 1.0)")
        return _reals("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    if delta is not None:
        with_delta = " or ".join(f"noise_kind={kind!r}" for kind in NOISE_KINDS
                                 if not noise.NOISE_KINDS[kind].pure_dp)
        raise ValueError(f"delta must be None for noise_kind={noise_kind!r} (pure eps-DP); "
                         f"it is used only with {with_delta}")
    return None


def _apply(fn, **named):
    """fn on floats (positional, in the order given); broadcast over arrays
    (float out for all-scalar input).  Arrays that do not broadcast raise a
    ValueError naming the parameters and their shapes."""
    args = list(named.values())
    if all(np.ndim(a) == 0 for a in args):
        return float(fn(*(float(a) for a in args)))
    return np.vectorize(fn, otypes=[np.float64])(*_validate.broadcast(**named))


# -- public API -----------------------------------------------------------------
def interval_epsilon(width, confidence, count, noise_kind="laplace", delta=None):
    """The eps whose noise puts the count c in [c_hat - w c, c_hat + w c] with
    probability exactly p = confidence (Naldi & D'Acquisto eqs. (7)-(10)).

    - "laplace":   eps = -ln(1 - p)/(w c)  (eq. (10); computed as -log1p(-p)/(w c)).
      Example (Naldi & D'Acquisto §3): c = 100, w = 0.2, p = 0.8 gives
      eps = ln 5 / 20 = 0.0804718956..., which the paper rounds to 0.08.
    - "geometric": the eps with 1 - 2 alpha^K/(1+alpha) = p, alpha = e^-eps,
      K = ceil(w c) (closed form eps = ln((1+p)/(1-p)) for K = 1, else a
      bracketed root; see statpriv.noise.geometric._geometric_epsilon).
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
    fn = _kind(noise_kind)._interval_epsilon
    if delta is not None:
        return _apply(fn, **args, delta=delta)
    return _apply(lambda w, p, c: fn(w, p, c, None), **args)


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
    fn = _kind(noise_kind)._interval_confidence
    if delta is not None:
        return _apply(fn, **args, delta=delta)
    return _apply(lambda e, w, c: fn(e, w, c, None), **args)


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
    fn = _kind(noise_kind)._interval_width
    if delta is not None:
        return _apply(fn, **args, delta=delta)
    return _apply(lambda e, p, c: fn(e, p, c, None), **args)


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
    cls = _kind(noise_kind)
    w = _validate.real("width", width, low=0.0, low_open=True)
    p = _validate.real("confidence", confidence, low=0.0, high=1.0,
                       low_open=True, high_open=True)
    c = _count(count)
    if np.ndim(c) != 0:
        raise _validate.ParameterTypeError("count must be a single real number for interval_noise")
    return cls._interval_noise(w, p, c)
