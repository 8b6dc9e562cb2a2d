"""Worst-case differential privacy curves (sensitivity 1).

Worst-case DP is statistical privacy without data randomness: the attacker
knows every other record, so the released value is Z = N (the noise) under
one hypothesis and N + 1 under the other (Breutigam & Reischuk, "Statistical
Privacy").  Each noise kind (statpriv.noise) owns its curve: laplace,
gaussian and geometric here validate the parameters and ask the kind for it.
``randomized_response`` is the k-ary local mechanism, as exact discrete laws.
Without sampling every curve is symmetric (delta_plus = delta_minus), and
for eps < 0, delta(eps) = 1 - e^eps + e^eps delta(-eps).

``sampling_prob=q`` and ``relation`` (laplace, gaussian, geometric) give the
mechanism run on a Poisson sample (each record kept with probability q)
under the add/remove or replace-one relation -- the pairs dp-accounting
uses (statpriv.noise._sampled; docs/accounting.md says which relation each
statpriv curve uses): under add/remove delta_plus is the "remove" and
delta_minus the "add" hockey stick, no longer equal.

The closed forms are evaluated in C (csrc/dp.c) with full relative accuracy
up to the zero point eps0 (Laplace, geometric: delta = 0 exactly for
eps >= eps0, and ``epsilon(0.0)`` is eps0 rounded up to a float) and with
ln delta accurate to a few ulps in the far tail (Gaussian: delta > 0 at every
finite eps, ``epsilon(0.0)`` is inf).
"""
from __future__ import annotations

import math
from typing import Any, Optional, Tuple, Type, Union, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from statpriv import _validate, _xprec
from statpriv.curve import PrivacyCurve
from statpriv.curve.recipe import factory
from statpriv.laws import pair_curve
from statpriv.laws.discrete import laws_from_log_pmfs
from statpriv.noise import Gaussian, Geometric, Laplace
from statpriv.noise._sampled import RELATIONS


@factory
def laplace(scale: float, sensitivity: float = 1.0, *, sampling_prob: Optional[float] = None,
            relation: str = "add_remove") -> PrivacyCurve:
    """Laplace mechanism with scale b (count units), sensitivity s (default 1).

    Sensitivity s: the outputs differ by s, which is the curve of scale b/s
    at sensitivity 1 (dp-accounting's ``sensitivity``); below, b is the
    effective scale b/s.

    delta(eps) = max(0, 1 - exp((eps - 1/b)/2)), zero for eps >= eps0 = 1/b
    (Breutigam & Reischuk, "Statistical Privacy").  Near eps0 it is evaluated
    as -expm1((eps - eps0)/2) with eps0 held as a double-double, so the relative
    accuracy holds up to the last float below eps0.

    Parameters
    ----------
    scale : float > 0
        The Laplace scale b (count units); inf is rejected.
    sensitivity : float > 0, optional
        How far the target moves the released value (default 1).
    sampling_prob : float in [0, 1] or None, keyword only
        Poisson subsampling: each record is kept with this probability
        (dp-accounting's ``sampling_prob``); None (default) or 1: no sampling.
    relation : {"add_remove", "replace_one"}, keyword only
        The neighbouring relation (default "add_remove", dp-accounting's
        default).  The sensitivity bounds one record's contribution: adding
        or removing a record moves the release by at most s, replacing one
        by at most 2 s (dp-accounting's REPLACE_ONE).  add_remove with q:
        delta_plus = H_eps((1-q) N + q (N + s) || N) ("remove"), delta_minus
        the reverse ("add"); replace_one: (1-q) N + q (N + s) against
        (1-q) N + q (N - s), symmetric; without sampling N - s against N + s.

    Returns
    -------
    PrivacyCurve
        Without sampling the symmetric curve delta_plus = delta_minus = delta
        above, exactly 0 from eps0 = 1/b on (``epsilon(0.0)`` is eps0 rounded
        up to a float); with sampling_prob the exact curve of the sampled
        pair (closed forms, csrc/poisson_sampling.h and csrc/dp_replace.h);
        ``precision="mp"`` integrates the Laplace densities in mpmath.

    Examples
    --------
    >>> curve = laplace(2.0)
    >>> print(f"{curve.delta(0.25):.10f}")        # 1 - exp((0.25 - 0.5) / 2)
    0.1175030974
    >>> curve.delta(0.5), curve.epsilon(0.0)
    (0.0, 0.5)
    >>> sampled = laplace(2.0, sampling_prob=0.1)   # 0.1 delta(ln(1 + (e^0.01 - 1)/0.1))
    >>> print(f"{sampled.delta_plus(0.01):.10f}")
    0.0183000609
    """
    return _noise_curve(Laplace, scale, sensitivity, sampling_prob, relation)


@factory
def gaussian(sigma: float, sensitivity: float = 1.0, *, sampling_prob: Optional[float] = None,
             relation: str = "add_remove") -> PrivacyCurve:
    """Gaussian mechanism N(0, sigma^2), sensitivity s (default 1).

    Sensitivity s: the outputs differ by s, which is the curve of sigma/s at
    sensitivity 1 (dp-accounting's ``sensitivity``); below, sigma is the
    effective sigma/s.

    delta(eps) = Phi(1/(2 sigma) - eps sigma) - e^eps Phi(-1/(2 sigma) - eps sigma)
    (Balle & Wang, "Improving the Gaussian mechanism for differential
    privacy", ICML 2018, Thm. 8).  Positive at every finite eps.  Where the two
    terms cancel (1/sigma small against eps sigma) it is evaluated from
    delta = int_0^inf phi(y - a) (1 - e^(-y/sigma)) dy, a = 1/(2 sigma) - eps sigma,
    expanded in 1/sigma; in the far tail ln delta = -a^2/2 + ... with a^2 as a
    double-double.

    Parameters
    ----------
    sigma : float > 0
        Standard deviation of the noise (count units); inf is rejected.
    sensitivity : float > 0, optional
        How far the target moves the released value (default 1).
    sampling_prob : float in [0, 1] or None, keyword only
    relation : {"add_remove", "replace_one"}, keyword only
        Poisson subsampling and the neighbouring relation, as in ``laplace``
        (N the noise, s the sensitivity).

    Returns
    -------
    PrivacyCurve
        Without sampling the symmetric curve above; delta > 0 at every finite
        eps, so ``epsilon(0.0)`` is inf.  With sampling_prob q the exact curve
        of the sampled pair: add_remove by the exact reduction to the curve
        above (delta_plus = q delta(ln(1 + (e^eps - 1)/q))), replace_one as
        q (delta(e1) + e^(eps - e2) delta(e2)) at the two points around the
        likelihood-ratio crossing (csrc/dp_replace.h); ``precision="mp"``
        integrates the normal densities in mpmath.

    Examples
    --------
    >>> curve = gaussian(1.0)
    >>> print(f"{curve.delta(1.0):.10f}")         # Phi(-1/2) - e Phi(-3/2)
    0.1269367375
    >>> print(f"{curve.epsilon(1e-5):.10f}")
    4.3771780957

    DP-SGD's step, add/remove (dp-accounting's PLD of
    ``GaussianDpEvent(1.0)`` Poisson-sampled at 0.01):

    >>> step = gaussian(1.0, sampling_prob=0.01)
    >>> print(f"{step.delta_plus(0.05):.6e} {step.delta_minus(0.05):.1f}")
    3.110654e-04 0.0
    """
    return _noise_curve(Gaussian, sigma, sensitivity, sampling_prob, relation)


def _sampling(sampling_prob: Optional[float], relation: str) -> Tuple[Optional[float], str]:
    """(q, relation): validated; q None without sampling."""
    relation = _validate.choice("relation", relation, RELATIONS)
    if sampling_prob is not None:
        sampling_prob = _validate.real("sampling_prob", sampling_prob, low=0.0, high=1.0)
    return sampling_prob, relation


def _sampling_text(q: Optional[float], relation: str) -> str:
    """The description's sampling part ("" for the default call)."""
    if q is None and relation == "add_remove":
        return ""
    return ("" if q is None else f", sampling_prob={q}") + f", relation={relation}"


def _noise_curve(kind: Union[Type[Laplace], Type[Gaussian]], value: float, sensitivity: float,
                 sampling_prob: Optional[float], relation: str) -> PrivacyCurve:
    """dp.laplace / dp.gaussian: the noise kind's closed form (csrc/dp.c) at
    the noise parameter value / sensitivity, at sensitivity 1; sampled
    (statpriv.noise._sampled) with sampling_prob."""
    name = kind.param_name
    value = _validate.real(name, value, low=0.0, low_open=True)
    sensitivity = _validate.real("sensitivity", sensitivity, low=0.0, low_open=True)
    q, relation = _sampling(sampling_prob, relation)
    unit = value / sensitivity
    if not 0.0 < unit < math.inf:
        raise ValueError(f"{name} / sensitivity must be in (0.0, inf), got {value!r} / "
                         f"{sensitivity!r}")
    described = "" if sensitivity == 1.0 else f", sensitivity={sensitivity}"
    description = f"DP {kind.kind} {name}={value}{described}{_sampling_text(q, relation)}"
    if q is None or q == 1.0:
        # replace-one without sampling: N - s against N + s, the add/remove
        # curve at sensitivity 2 s (exact: unit / 2 is a power-of-two scaling)
        return kind(unit if relation == "add_remove" else unit / 2.0)._dp_curve(description)
    return kind(unit)._dp_sampled_curve(1, q, relation, description)


@factory
def geometric(alpha: float, sensitivity: int = 1, *, sampling_prob: Optional[float] = None,
              relation: str = "add_remove") -> PrivacyCurve:
    """Two-sided geometric (discrete Laplace) noise P(k) = (1-alpha)/(1+alpha) alpha^|k|,
    integer sensitivity s (default 1).

    This is dp-accounting's discrete Laplace DLap(a), pmf e^(-a|k|) tanh(a/2),
    with parameter a = -ln alpha (tanh(a/2) = (1-alpha)/(1+alpha)); its
    ``sensitivity`` is s here.  For s = 1 the closed form below holds; for
    s > 1 the outcomes x <= 0 (all of likelihood ratio alpha^s) and x >= s
    (ratio alpha^-s) are lumped, which leaves the curve unchanged, and the
    curve is that of the s + 1 atoms (``statpriv.from_log_pmfs``):
    P = (alpha^s, c alpha^(s-1), ..., c alpha, 1) / ..., Q the mirror image,
    c = (1-alpha)/(1+alpha); P[x <= 0] = alpha^s/(1+alpha), P[x >= s] =
    1/(1+alpha).

    delta(eps) = max(0, 1 - alpha e^eps) / (1 + alpha), zero for
    eps >= eps0 = -ln alpha.  eps0 is computed once here to ~106 bits (mpmath,
    imported on first use) and held as a double-double, so that delta keeps its
    relative accuracy up to the last float below eps0 and ``epsilon(0.0)`` is
    eps0 rounded up to a float.

    Parameters
    ----------
    alpha : float in (0, 1)
        The geometric ratio (alpha = e^(-1/b) for a discrete Laplace of scale b).
    sensitivity : int in [1, 10**6], optional
        How far the target moves the released integer (default 1).  s > 1
        costs O(s) at construction (the s + 1 atoms' normalisers in mpmath:
        about a second at s = 10**4 .. 10**6 when alpha is near 1).
    sampling_prob : float in [0, 1] or None, keyword only
    relation : {"add_remove", "replace_one"}, keyword only
        Poisson subsampling and the neighbouring relation, as in ``laplace``
        (N the noise, s the sensitivity).
        With sampling the laws are exact and discrete: the outcomes beyond
        the shifts lumped (s + 1 atoms under add_remove, 2 s + 1 under
        replace_one), each lump of one likelihood ratio.

    Returns
    -------
    PrivacyCurve
        The symmetric curve above, exactly 0 from eps0 = -ln alpha on;
        ``precision="mp"`` sums the pmfs in mpmath.

    Examples
    --------
    >>> curve = geometric(0.5)
    >>> print(f"{curve.delta(0.3):.10f}")         # (1 - 0.5 e^0.3) / 1.5
    0.2167137308
    >>> curve.epsilon(0.0)                        # -ln 0.5 rounded up to a float
    0.6931471805599454
    """
    alpha = _validate.real("alpha", alpha, low=0.0, high=1.0, low_open=True, high_open=True)
    sensitivity = _validate.count("sensitivity", sensitivity, low=1, high=MAX_GEOMETRIC_SENSITIVITY)
    q, relation = _sampling(sampling_prob, relation)
    noise = Geometric(alpha)
    described = "" if sensitivity == 1 else f", sensitivity={sensitivity}"
    description = f"DP geometric alpha={alpha}{described}{_sampling_text(q, relation)}"
    if q is not None and q < 1.0:
        return noise._dp_sampled_curve(sensitivity, q, relation, description)
    # replace-one without sampling: N - s against N + s, a shift of 2 s
    shift = sensitivity if relation == "add_remove" else 2 * sensitivity
    if shift == 1:
        return noise._dp_curve(description)
    return noise._dp_lumped_curve(shift, description)


# Largest integer sensitivity of dp.geometric (s + 1 atoms).
MAX_GEOMETRIC_SENSITIVITY = 10**6


# Largest k of dp.randomized_response (its k - 2 other values are one lumped atom).
MAX_RANDOMIZED_RESPONSE_K = 10**12


@factory
def randomized_response(eps0: float, k: int = 2) -> PrivacyCurve:
    """k-ary randomized response with parameter eps0 (Warner 1965; the local
    eps0-DP mechanism): the report is the true value with probability
    e^eps0 / (e^eps0 + k - 1) and each of the k - 1 other values with
    probability 1 / (e^eps0 + k - 1).

    Neighbouring inputs are the target's value a and another value b
    (replace-one): P = (e^eps0, 1, 1, ..., 1) / Z on the reports (a, b,
    others), Q = (1, e^eps0, 1, ..., 1) / Z, Z = e^eps0 + k - 1, so

        delta(eps) = max(0, e^eps0 - e^eps) / (e^eps0 + k - 1)   (eps >= 0),

    zero from eps0 on; symmetric.  The k - 2 other reports have the same
    probability under P and Q and are lumped into one atom (the curve does not
    change), so k costs nothing.  Exact discrete laws: the privacy-loss
    distribution, Renyi divergences and compositions are exact.

    Parameters
    ----------
    eps0 : float >= 0
        The local privacy parameter (inf rejected).
    k : int in [2, 10**12], optional
        The number of values (default 2: binary randomized response).

    Returns
    -------
    PrivacyCurve
        The curve above; ``epsilon(0.0)`` is eps0; ``precision="mp"`` sums the
        k outcomes in mpmath.

    Examples
    --------
    >>> curve = randomized_response(1.0)
    >>> print(f"{curve.delta(0.5):.10f}")          # (e - e^0.5) / (e + 1)
    0.2876491366
    >>> curve.epsilon(0.0)
    1.0
    """
    eps0 = _validate.real("eps0", eps0, low=0.0)
    k = _validate.count("k", k, low=2, high=MAX_RANDOMIZED_RESPONSE_K)
    log_z = eps0 + math.log1p((k - 1) * math.exp(-eps0))
    # reports (a, b[, the k - 2 others lumped]): ln P and ln Q
    log_p = [eps0 - log_z, -log_z] + ([math.log(k - 2) - log_z] if k > 2 else [])
    log_q = [-log_z, eps0 - log_z] + log_p[2:]
    lp, lq = np.array(log_p), np.array(log_q)
    ratios = (1, -1, 0)                     # ln P/Q of each report: eps0, -eps0, 0

    def log_ratio(i: int) -> Any:
        return ratios[i] * _xprec.mpf_exact(eps0)
    return pair_curve(laws_from_log_pmfs(lp, lq, 0, log_ratio=log_ratio, exact_log_ratio=True),
                      lambda eps, direction: _rr_reference(eps0, k, eps, direction),
                      f"DP randomized response eps0={eps0}, k={k}",
                      certified=lambda: _rr_certified(eps0, k))


def _rr_certified(eps0: float, k: int) -> Any:
    from statpriv.oracle import arb      # (python-flint: imported on first use)
    return arb.RandomizedResponse(eps0, k)


def _rr_reference(eps0: float, k: int, eps: Any, direction: str) -> Any:
    from statpriv import oracle
    return oracle.dp_randomized_response_delta(eps0, k, eps, direction=direction)


# amplify's eps' and delta': floats for scalar arguments, else arrays
_Value = Union[float, NDArray[np.float64]]


@overload
def amplify(eps: float, delta: float, sample_rate: Optional[float] = None, *,
            sampling_prob: Optional[float] = None) -> Tuple[float, float]: ...
@overload
def amplify(eps: ArrayLike, delta: ArrayLike, sample_rate: Optional[ArrayLike] = None, *,
            sampling_prob: Optional[ArrayLike] = None) -> Tuple[_Value, _Value]: ...


@_validate.renamed(rate="sample_rate")
def amplify(eps: ArrayLike, delta: ArrayLike, sample_rate: Optional[ArrayLike] = None, *,
            sampling_prob: Optional[ArrayLike] = None) -> Tuple[_Value, _Value]:
    """Privacy amplification by subsampling (Balle, Barthe & Gaboardi 2018,
    "Privacy amplification by subsampling: tight analyses via couplings and
    divergences").

    An (eps, delta)-DP mechanism run on a rate-lambda subsample is
    (ln(1 + lambda (e^eps - 1)), lambda delta)-DP.  Vectorized: the three
    arguments broadcast together (numpy rules); a ValueError names their
    shapes when they do not.  All-scalar input gives a pair of floats, else a
    pair of arrays of the broadcast shape.  Bools and strings are rejected
    (ParameterTypeError, a TypeError).

    Parameters
    ----------
    eps : float or array in [0, inf]
        The mechanism's eps.
    delta : float or array in [0, 1]
        The mechanism's delta.
    sample_rate : float or array in [0, 1]
        The sampling rate lambda (each record kept with this probability, or
        a uniform sample of a lambda fraction); the name ``counting`` uses
        (``rate=``: a deprecated name).
    sampling_prob : float or array in [0, 1], keyword only
        dp-accounting's name for ``sample_rate`` (give one of the two).

    Returns
    -------
    (eps', delta') : pair of floats (all-scalar input) or of arrays
        eps' = ln(1 + lambda (e^eps - 1)) (log1p/expm1, accurate at tiny
        rates) and delta' = lambda delta.

    Examples
    --------
    >>> eps, delta = amplify(1.0, 1e-6, 0.01)
    >>> print(f"{eps:.12f} {delta:.3g}")           # ln(1 + 0.01 (e - 1))
    0.017036863236 1e-08
    """
    rate_name, rate = _validate.alias("sample_rate", sample_rate, "sampling_prob", sampling_prob)
    if rate is None:
        raise ValueError("give sample_rate (or sampling_prob), the sampling rate in [0, 1]")
    eps = _validate.real_array("eps", eps, low=0.0, allow_inf=True)
    delta = _validate.real_array("delta", delta, low=0.0, high=1.0)
    rate = _validate.real_array(rate_name, rate, low=0.0, high=1.0)
    eps, delta, rate = _validate.broadcast(eps=eps, delta=delta, **{rate_name: rate})
    with np.errstate(over="ignore", invalid="ignore"):
        # rate = 0 releases nothing: eps' = 0 also at eps = inf (not 0 * inf)
        eps_out = np.where(rate == 0.0, 0.0, np.log1p(rate * np.expm1(eps)))
    delta_out = rate * delta
    if eps_out.ndim == 0:
        return float(eps_out), float(delta_out)
    return eps_out, delta_out
