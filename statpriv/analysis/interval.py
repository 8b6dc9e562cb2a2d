"""Choosing eps by interval estimation (docs/mathematics.md §7; Naldi & D'Acquisto, Naldi & D'Acquisto).

A count c > 0 is released as c_hat = c + N with zero-mean noise N (count
units, sensitivity 1).  The analyst's interval [c_hat - w c, c_hat + w c]
contains c with probability (Naldi & D'Acquisto eqs. (7)-(8))

    p = P[c_hat - w c < c < c_hat + w c] = ``P[|N| < w c]``,

so the pair (w, p) -- relative half-width and confidence level -- fixes the
noise, and the noise fixes eps.  The noise kind is chosen by its class,
``noise=statpriv.Laplace`` (the default), ``statpriv.Geometric`` or
``statpriv.Gaussian`` (the class carries the kind's formulas; its parameter
is what these functions compute, so a noise object is refused).  The kind's
name (``noise_kind="gaussian"``, the former spelling) still works, with a
DeprecationWarning.  Three noise kinds:

- Laplace: scale 1/eps, ``P[|N| < t]`` = 1 - e^(-eps t) (Naldi & D'Acquisto eq. (9)),
  hence eps = -ln(1 - p)/(w c) (eq. (10)).
- Geometric: two-sided geometric P(k) = (1-alpha)/(1+alpha) alpha^|k| with
  alpha = e^(-eps) (eps-DP for sensitivity 1).  With K = ceil(w c),
  ``P[|N| < w c]`` = ``P[|N| <= K - 1]`` = 1 - 2 alpha^K / (1 + alpha).
- Gaussian: N(0, sigma^2), ``P[|N| < t]`` = 2 Phi(t/sigma) - 1 = erf(t/(sigma sqrt 2)).
  Gaussian noise is not pure eps-DP: with delta in (0, 1) the level is the
  smallest eps with delta_sigma(eps) <= delta on the worst-case DP curve
  statpriv.dp.gaussian(sigma).

The same noise object (interval_noise) can be passed to
statpriv.counting(n, pi, noise=...) to see its statistical-privacy curve for
a given population.  Every function accepts arrays for its numeric arguments
(they broadcast) and returns a float for scalar input.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Optional, Type, TypeVar, Union, cast, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from statpriv import _validate
from statpriv.analysis._noise_class import noise_class, spelled
from statpriv.noise import Laplace, Noise
from statpriv.noise import NOISE_KINDS as _KIND_CLASSES

_N = TypeVar("_N", bound=Noise)
# one value for scalar arguments, an array for arrays
_Result = Union[float, NDArray[np.float64]]

__all__ = ["interval_epsilon", "interval_confidence", "interval_width", "interval_noise"]

# The noise kinds, from the one table (statpriv.noise.NOISE_KINDS): the pure
# eps-DP kinds first, then those that need a delta.  The per-kind formulas
# live on the noise classes (_interval_epsilon, ...), in their modules.
NOISE_KINDS = tuple(sorted(_KIND_CLASSES, key=lambda kind: not _KIND_CLASSES[kind].pure_dp))
_ORDERED = {kind: _KIND_CLASSES[kind] for kind in NOISE_KINDS}


# -- argument checks ---------------------------------------------------------
def _reals(name: Any, value: Any, *, low: Any, high: Any = math.inf, low_open: Any = False,
           high_open: Any = False) -> Any:
    """A real scalar (-> float) or array (-> float64 array) in the given range;
    bools, strings, None, complex: ParameterTypeError; ragged: ValueError."""
    return _validate.reals(name, value, low=low, high=high,
                           low_open=low_open, high_open=high_open)


def _count(count: Any) -> Any:
    value = _reals("count", count, low=0.0)
    if np.any(value == 0.0):
        raise ValueError("count must be > 0: with count = 0 the interval "
                         "[c_hat - w c, c_hat + w c] is empty, got 0")
    return value


def _width(width: Any) -> Any:
    return _reals("width", width, low=0.0, low_open=True)


def _confidence(confidence: Any) -> Any:
    return _reals("confidence", confidence, low=0.0, high=1.0, low_open=True, high_open=True)


def _eps(eps: Any) -> Any:
    return _reals("eps", eps, low=0.0, low_open=True)


def _kind(noise: Any) -> Any:
    """The noise class chosen (see noise_class: a class, or a kind's name)."""
    return noise_class(noise, _ORDERED)


def _kind_delta(noise: Any, delta: Any) -> Any:
    """(the noise class, delta checked): delta in (0, 1) for the kinds that
    are not pure eps-DP, None for the others."""
    cls = _kind(noise)
    if not cls.pure_dp:
        if delta is None:
            raise ValueError(f"delta is required for noise={spelled(cls)} ({cls.__name__} "
                             "noise is not pure eps-DP): delta must be in (0.0, 1.0)")
        return cls, _reals("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    if delta is not None:
        with_delta = " or ".join(f"noise={spelled(other)}" for other in _ORDERED.values()
                                 if not other.pure_dp)
        raise ValueError(f"delta must be None for noise={spelled(cls)} (pure eps-DP); "
                         f"it is used only with {with_delta}")
    return cls, None


def _apply(fn: Callable[..., float], **named: Any) -> _Result:
    """fn on floats (positional, in the order given); broadcast over arrays
    (float out for all-scalar input).  Arrays that do not broadcast raise a
    ValueError naming the parameters and their shapes."""
    args = list(named.values())
    if all(np.ndim(a) == 0 for a in args):
        return float(fn(*(float(a) for a in args)))
    return cast(NDArray[np.float64],
                np.vectorize(fn, otypes=[np.float64])(*_validate.broadcast(**named)))


# -- public API -----------------------------------------------------------------
@overload
def interval_epsilon(width: float, confidence: float, count: float,
                     noise: Union[str, Type[Noise]] = ...,
                     delta: Optional[float] = ...) -> float: ...
@overload
def interval_epsilon(width: ArrayLike, confidence: ArrayLike, count: ArrayLike,
                     noise: Union[str, Type[Noise]] = ...,
                     delta: Optional[ArrayLike] = ...) -> _Result: ...


@_validate.renamed(noise_kind="noise")
def interval_epsilon(width: ArrayLike, confidence: ArrayLike, count: ArrayLike,
                     noise: Union[str, Type[Noise]] = Laplace,
                     delta: Optional[ArrayLike] = None) -> _Result:
    """The eps whose noise puts the count c in [c_hat - w c, c_hat + w c] with
    probability exactly p = confidence (Naldi & D'Acquisto eqs. (7)-(10)).

    - Laplace:   eps = -ln(1 - p)/(w c)  (eq. (10); computed as -log1p(-p)/(w c)).
      Example (Naldi & D'Acquisto §3): c = 100, w = 0.2, p = 0.8 gives
      eps = ln 5 / 20 = 0.0804718956..., which the paper rounds to 0.08.
    - Geometric: the eps with 1 - 2 alpha^K/(1+alpha) = p, alpha = e^-eps,
      K = ceil(w c) (closed form eps = ln((1+p)/(1-p)) for K = 1, else a
      bracketed root; see statpriv.noise.geometric._geometric_epsilon).
    - Gaussian:  sigma = w c / Phi^{-1}((1+p)/2), then
      eps = statpriv.dp.gaussian(sigma).epsilon(delta), the smallest eps >= 0
      with delta_sigma(eps) <= delta.  It is 0.0 when sigma is so large that
      the total-variation distance of N and N+1 is already <= delta.

    Parameters
    ----------
    width : float > 0 or array
        Relative half-width w of the interval.
    confidence : float in (0, 1) or array
        Confidence level p.
    count : float > 0 or array
        True count c (count = 0 would make the interval empty).
    noise : statpriv.Laplace (default), statpriv.Geometric or statpriv.Gaussian
        The noise class (the module docstring: kind names are deprecated).
    delta : float in (0, 1) or None
        Required for Gaussian noise only (None otherwise).

    Returns
    -------
    float or numpy.ndarray
        eps; an array of the broadcast shape when an argument is an array
        (all numeric arguments broadcast).

    Examples
    --------
    >>> import statpriv
    >>> print(f"{statpriv.interval_epsilon(0.2, 0.8, 100):.10f}")
    0.0804718956
    >>> print(f"{statpriv.interval_epsilon(0.2, 0.8, 100, noise=statpriv.Geometric):.6f}")
    0.082492
    """
    cls, delta = _kind_delta(noise, delta)
    args = dict(width=_width(width), confidence=_confidence(confidence), count=_count(count))
    fn = cls._interval_epsilon
    if delta is not None:
        return _apply(fn, **args, delta=delta)
    return _apply(lambda w, p, c: fn(w, p, c, None), **args)


@overload
def interval_confidence(eps: float, width: float, count: float,
                        noise: Union[str, Type[Noise]] = ...,
                        delta: Optional[float] = ...) -> float: ...
@overload
def interval_confidence(eps: ArrayLike, width: ArrayLike, count: ArrayLike,
                        noise: Union[str, Type[Noise]] = ...,
                        delta: Optional[ArrayLike] = ...) -> _Result: ...


@_validate.renamed(noise_kind="noise")
def interval_confidence(eps: ArrayLike, width: ArrayLike, count: ArrayLike,
                        noise: Union[str, Type[Noise]] = Laplace,
                        delta: Optional[ArrayLike] = None) -> _Result:
    """Confidence p = ``P[|N| < w c]`` of the interval [c_hat - w c, c_hat + w c]
    under eps-calibrated noise (the inverse of interval_epsilon in p).

    - Laplace:   p = 1 - e^(-eps w c)   (Naldi & D'Acquisto eq. (9)).
    - Geometric: p = 1 - 2 alpha^K/(1 + alpha), alpha = e^-eps, K = ceil(w c)
      (a step function of w: every w in ((K-1)/c, K/c] gives the same p).
    - Gaussian:  p = 2 Phi(w c / sigma) - 1 with sigma the smallest noise
      for which the Gaussian mechanism is (eps, delta)-DP.

    Parameters
    ----------
    eps : float > 0 or array
        The eps the noise is calibrated to.
    width : float > 0 or array
        Relative half-width w of the interval.
    count : float > 0 or array
        True count c.
    noise : statpriv.Laplace (default), statpriv.Geometric or statpriv.Gaussian
        The noise class, as for interval_epsilon.
    delta : float in (0, 1) or None
        Required for Gaussian noise only (None otherwise).

    Returns
    -------
    float or numpy.ndarray
        The confidence p (arrays broadcast).

    Examples
    --------
    >>> import statpriv
    >>> print(f"{statpriv.interval_confidence(0.2, 0.2, 100):.6f}")     # 1 - e^-4
    0.981684
    >>> print(f"{statpriv.interval_confidence(0.5, 0.2, 100, noise=statpriv.Gaussian, delta=1e-6):.6f}")
    0.986940
    """
    cls, delta = _kind_delta(noise, delta)
    args = dict(eps=_eps(eps), width=_width(width), count=_count(count))
    fn = cls._interval_confidence
    if delta is not None:
        return _apply(fn, **args, delta=delta)
    return _apply(lambda e, w, c: fn(e, w, c, None), **args)


@overload
def interval_width(eps: float, confidence: float, count: float,
                   noise: Union[str, Type[Noise]] = ..., delta: Optional[float] = ...) -> float: ...
@overload
def interval_width(eps: ArrayLike, confidence: ArrayLike, count: ArrayLike,
                   noise: Union[str, Type[Noise]] = ...,
                   delta: Optional[ArrayLike] = ...) -> _Result: ...


@_validate.renamed(noise_kind="noise")
def interval_width(eps: ArrayLike, confidence: ArrayLike, count: ArrayLike,
                   noise: Union[str, Type[Noise]] = Laplace,
                   delta: Optional[ArrayLike] = None) -> _Result:
    """Relative half-width w with ``P[|N| < w c]`` = p under eps-calibrated noise
    (the inverse of interval_epsilon in w).

    - Laplace:   w = -ln(1 - p)/(eps c).
    - Gaussian:  w = sigma Phi^{-1}((1+p)/2) / c, sigma the smallest
      (eps, delta)-DP Gaussian noise.
    - Geometric: the confidence is a step function of w, so no w meets p
      exactly in general.  Returned is w = K/c with K the smallest integer
      with 1 - 2 alpha^K/(1+alpha) >= p: every w in ((K-1)/c, K/c] gives this
      (smallest achievable) interval ``{|N| <= K - 1}`` and confidence >= p;
      K/c is the one with an integer w c.

    Parameters
    ----------
    eps : float > 0 or array
        The eps the noise is calibrated to.
    confidence : float in (0, 1) or array
        Confidence level p.
    count : float > 0 or array
        True count c.
    noise : statpriv.Laplace (default), statpriv.Geometric or statpriv.Gaussian
        The noise class, as for interval_epsilon.
    delta : float in (0, 1) or None
        Required for Gaussian noise only (None otherwise).

    Returns
    -------
    float or numpy.ndarray
        The relative half-width w (arrays broadcast).

    Examples
    --------
    >>> import math, statpriv
    >>> print(f"{statpriv.interval_width(math.log(5) / 20, 0.8, 100):.6f}")
    0.200000
    """
    cls, delta = _kind_delta(noise, delta)
    args = dict(eps=_eps(eps), confidence=_confidence(confidence), count=_count(count))
    fn = cls._interval_width
    if delta is not None:
        return _apply(fn, **args, delta=delta)
    return _apply(lambda e, p, c: fn(e, p, c, None), **args)


@overload
def interval_noise(width: float, confidence: float, count: float) -> Laplace: ...
@overload
def interval_noise(width: float, confidence: float, count: float, noise: Type[_N]) -> _N: ...
@overload
def interval_noise(width: float, confidence: float, count: float, noise: str) -> Noise: ...


@_validate.renamed(noise_kind="noise")
def interval_noise(width: float, confidence: float, count: float,
                   noise: Union[str, Type[Noise]] = Laplace) -> Noise:
    """The noise object of class ``noise`` meeting the interval target
    ``P[|N| < w c]`` = p exactly:

    - Laplace:   Laplace(scale = w c / -ln(1 - p))        (scale = 1/eps);
    - Geometric: Geometric(alpha = e^-eps), eps from interval_epsilon;
    - Gaussian:  Gaussian(sigma = w c / Phi^{-1}((1+p)/2)) (no delta needed:
      the interval fixes sigma; delta only enters the DP level).

    Feed it to statpriv.counting(n, pi, noise=...) for the statistical-privacy
    curve of the same mechanism over a population, or call .dp_curve() for the
    worst-case DP curve.

    Parameters
    ----------
    width : float > 0
        Relative half-width w of the interval.
    confidence : float in (0, 1)
        Confidence level p.
    count : float > 0
        True count c.
    noise : statpriv.Laplace (default), statpriv.Geometric or statpriv.Gaussian
        The noise class.

    Returns
    -------
    statpriv.Laplace, statpriv.Geometric or statpriv.Gaussian
        The noise object (scalar arguments only).

    Examples
    --------
    >>> import statpriv
    >>> statpriv.interval_noise(0.2, 0.8, 100, noise=statpriv.Gaussian)
    Gaussian(15.60608292144758)
    """
    cls = _kind(noise)
    w = _validate.real("width", width, low=0.0, low_open=True)
    p = _validate.real("confidence", confidence, low=0.0, high=1.0,
                       low_open=True, high_open=True)
    c = _count(count)
    if np.ndim(c) != 0:
        raise _validate.ParameterTypeError("count must be a single real number for interval_noise")
    return cast(Noise, cls._interval_noise(w, p, c))
