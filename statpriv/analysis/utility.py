"""Utility loss of subsampling and additive noise (docs/mathematics.md §5-6; Breutigam & Reischuk §4.4).

Records X_1..X_n are iid Bernoulli(pi); the true answer is the fraction
Y = K/n, K = sum_j X_j.  A mechanism releases an estimate Y_M of Y, and its
utility loss is the mean squared error over data *and* mechanism
(Breutigam & Reischuk Def. 7)

    UL = E[(Y_M - Y)^2]                                   (fraction units).

Noise objects (statpriv.noise) are in count units with sensitivity 1; a
count-unit variance V is V / n^2 in fraction units (V / m^2 when it is added
to the count of a sample of m and released as a fraction of m).
"""
from __future__ import annotations

import math
from typing import Any, Optional, Type, TypeVar, Union, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from statpriv import _validate
from statpriv.analysis._noise_class import noise_class
from statpriv.noise import NOISE_KINDS, Laplace, Noise, kinds_text

_N = TypeVar("_N", bound=Noise)

__all__ = ["utility_loss", "equal_utility_noise", "equal_utility_epsilon"]

# The kinds whose variance is a constant times param^2 (Noise._variance_factor),
# from the one table: their equal-utility parameter is a square root.
_EQUAL_UTILITY_KINDS = tuple(kind for kind, cls in NOISE_KINDS.items()
                             if cls._variance_factor is not None)
_EQUAL_UTILITY_CLASSES = {kind: NOISE_KINDS[kind] for kind in _EQUAL_UTILITY_KINDS}


def _pi(pi: Any, *, interior: Any = False) -> Any:
    """pi as a float (scalar in) or float64 array (array in), checked to lie in [0, 1]
    (in (0, 1) with interior=True)."""
    return _validate.reals("pi", pi, low=0.0, high=1.0, low_open=interior, high_open=interior)


def _sizes(n: Any, sample_size: Any) -> Any:
    n = _validate.count("n", n, low=1)
    m = n if sample_size is None else _validate.count("sample_size", sample_size, low=1, high=n)
    return n, m


def _sampling_loss(n: Any, m: Any, pi: Any) -> Any:
    """pi (1 - pi) (1/m - 1/n), with 1/m - 1/n = (n - m)/(m n) formed exactly."""
    return pi * (1.0 - pi) * ((n - m) / m / n)


def utility_loss(n: int, pi: ArrayLike, *, noise: Optional[Noise] = None,
                 sample_size: Optional[int] = None) -> Union[float, NDArray[np.float64]]:
    """Mean squared error E[(Y_M - Y)^2] of the released fraction Y_M against the
    true fraction Y = K/n (fraction units; Breutigam & Reischuk Def. 7, Lemmas 7-9).

    Parameters
    ----------
    n : int >= 1
        Number of records; each has the property independently with probability pi.
    pi : float or array in [0, 1]
        Probability of the property.  An array gives an array of the same shape.
    noise : statpriv.noise.Laplace, Gaussian or Geometric, optional
        Zero-mean noise added to the released count (count units).
    sample_size : int in [1, n], optional
        Release the count of a sample of m = sample_size records drawn without
        replacement (default: all n records, no subsampling).

    Returns
    -------
    float or ndarray
        ``pi (1-pi) (1/m - 1/n) + Var(N) / m^2``, with m = n when there is no
        subsampling and Var(N) = 0 when there is no noise:

        - subsampling only (Lemma 7):  pi (1-pi) (1/m - 1/n);
        - noise only (Lemma 9):        Var(N) / n^2;
        - both:                        pi (1-pi) (1/m - 1/n) + Var(N) / m^2.

    Derivation of the combined case.  Let J be the count in the sample, so
    Y_M = (J + N)/m and

        Y_M - Y = (J/m - K/n) + N/m.

    Squaring and taking expectations,

        E[(Y_M - Y)^2] = E[(J/m - K/n)^2] + 2 E[(J/m - K/n) N]/m + E[N^2]/m^2.

    N is independent of the data and of the sample and has mean 0, so the
    cross term is E[J/m - K/n] E[N]/m = 0 and E[N^2] = Var(N).  The first term
    is Lemma 7: given K, J is hypergeometric with E[J/m | K] = K/n and
    Var[J/m | K] = (K/n)(1 - K/n)(n - m)/(m (n - 1)); averaging over
    K ~ Bin(n, pi), E[(K/n)(1 - K/n)] = pi (1-pi)(1 - 1/n), which gives
    pi (1-pi)(n - m)/(m n) = pi (1-pi)(1/m - 1/n).  With m = n the first term
    vanishes and the second is Var(N)/n^2 (Lemma 9 in fraction units:
    a count-unit noise N is N/n in fraction units).

    Examples
    --------
    >>> utility_loss(10, 0.5, sample_size=5)          # 0.25 * (1/5 - 1/10)
    0.025
    >>> from statpriv.noise import Laplace
    >>> utility_loss(10, 0.5, noise=Laplace(2.0))     # 2 * 2^2 / 10^2
    0.08
    """
    n, m = _sizes(n, sample_size)
    pi = _pi(pi)
    if noise is not None and not isinstance(noise, Noise):
        raise _validate.ParameterTypeError(
            f"noise must be a {kinds_text('statpriv.noise.')} "
            f"instance (or None), got {noise!r}")
    loss = _sampling_loss(n, m, pi)
    if noise is not None:
        loss = loss + noise.variance / m / m
    return float(loss) if np.ndim(loss) == 0 else loss


def _equal_utility_args(n: Any, pi: Any, sample_size: Any) -> Any:
    n = _validate.count("n", n, low=2)
    sample_size = _validate.count("sample_size", sample_size, low=1, high=n)
    if sample_size == n:
        raise ValueError(
            f"sample_size must be in [1, n - 1] = [1, {n - 1}] for equal-utility noise: "
            "a sample of all n records loses no utility, and no Laplace or Gaussian "
            "noise has zero variance")
    return n, sample_size, pi


@overload
def equal_utility_noise(n: int, pi: float, sample_size: int) -> Laplace: ...
@overload
def equal_utility_noise(n: int, pi: float, sample_size: int, noise: Type[_N]) -> _N: ...
@overload
def equal_utility_noise(n: int, pi: float, sample_size: int, noise: str) -> Noise: ...


@_validate.renamed(kind="noise")
def equal_utility_noise(n: int, pi: float, sample_size: int,
                        noise: Union[str, Type[Noise]] = Laplace) -> Noise:
    """The Laplace or Gaussian noise on the full count whose utility loss equals
    that of subsampling m = sample_size of the n records (docs/mathematics.md §6; Breutigam & Reischuk
    §4.4, §6).

    Equating Var(N)/n^2 with pi (1-pi)(1/m - 1/n) (Lemmas 7 and 9) gives, in
    fraction units,

        Laplace:   2 psi^2 = pi (1-pi)(1/m - 1/n),  psi = sqrt(pi (1-pi)(1/m - 1/n) / 2)
        Gaussian:    psi^2 = pi (1-pi)(1/m - 1/n),  psi = sqrt(pi (1-pi)(1/m - 1/n))

    and the count-unit parameter (Laplace scale, Gaussian sigma) is psi * n.
    (Breutigam & Reischuk Lemma 10 prints psi = pi(1-pi)(1/lambda - 1/n): that is the
    variance, and 1/lambda should read 1/m.)

    Parameters
    ----------
    n : int >= 2
    pi : float in (0, 1)
        pi = 0 or 1 makes the subsampling loss zero, which no noise matches.
    sample_size : int in [1, n - 1]
        m = n loses no utility, which no noise matches: ValueError.
    noise : statpriv.Laplace (default) or statpriv.Gaussian
        The noise class (its parameter is what this function computes, so a
        noise object is refused).  The former spelling ``kind="laplace"`` /
        ``"gaussian"`` (the kind's name) still works, with a DeprecationWarning.

    Returns
    -------
    statpriv.noise.Laplace or statpriv.noise.Gaussian
        The noise of that utility loss, its parameter in count units.

    Examples
    --------
    >>> import statpriv
    >>> statpriv.equal_utility_noise(1000, 0.5, 100, noise=statpriv.Gaussian)
    Gaussian(47.43416490252569)
    """
    cls = noise_class(noise, _EQUAL_UTILITY_CLASSES)
    n, m, pi = _equal_utility_args(n, pi, sample_size)
    if _validate.ndim("pi", pi) != 0:
        raise _validate.ParameterTypeError("pi must be a single real number for "
                                           "equal_utility_noise")
    pi = _pi(pi, interior=True)
    loss = _sampling_loss(n, m, pi)
    factor = cls._variance_factor     # Var = factor param^2: 2 for Laplace, 1 for Gaussian
    return cls(n * math.sqrt(loss / factor))


def equal_utility_epsilon(n: int, pi: ArrayLike,
                          sample_size: int) -> Union[float, NDArray[np.float64]]:
    """The DP level eps = 1/scale of the equal-utility Laplace noise (Breutigam & Reischuk §4.4):

        eps = sqrt(2 / (pi (1-pi))) * sqrt(lambda / (n - m)),   lambda = m / n.

    It is 1/(psi n) with psi the fraction-unit Laplace scale of
    equal_utility_noise: (psi n)^2 = pi (1-pi)(n - m) n / (2 m)
    = pi (1-pi)(n - m) / (2 lambda).  The Laplace mechanism is (eps, 0)-DP
    (Breutigam & Reischuk Lemma 5); subsampling at rate lambda reaches the same eps only
    with some delta > 0.

    Parameters
    ----------
    n : int >= 2
        Number of records.
    pi : float in (0, 1) or array
        Probability of the property.
    sample_size : int in [1, n - 1]
        m, the size of the sample whose utility loss is matched.

    Returns
    -------
    float or numpy.ndarray
        eps, an array of the shape of ``pi`` for an array.

    Examples
    --------
    >>> import statpriv
    >>> print(f"{statpriv.equal_utility_epsilon(1000, 0.5, 100):.6f}")
    0.029814
    >>> print(f"{1 / statpriv.equal_utility_noise(1000, 0.5, 100).scale:.6f}")
    0.029814
    """
    n, m, pi = _equal_utility_args(n, pi, sample_size)
    probs: Any = _pi(pi, interior=True)
    eps = np.sqrt(2.0 / (probs * (1.0 - probs))) * math.sqrt((m / n) / (n - m))
    return float(eps) if np.ndim(eps) == 0 else eps
