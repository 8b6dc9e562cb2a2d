"""Breutigam & Reischuk §7's subsampling conjecture, checked numerically on a grid (docs/mathematics.md §5).

Records are iid Bernoulli(pi).  A count over a uniform sample of m = lambda n of the
n records, without replacement, is compared with the noiseless count over m records:

    delta_SAMP(n, lambda; eps') <= lambda * delta_pure(m; eps),
    eps' = ln(1 + lambda (e^eps - 1)),

with delta_SAMP = statpriv.counting(n, pi, sample_size=m).delta(eps') and
delta_pure = statpriv.counting(m, pi).delta(eps).  ``conjecture_check`` evaluates
both sides on a grid (in log space, so values below 1e-308 are compared too) and
returns every grid point where the left side exceeds the right by more than a
relative ``rtol``.

Why no counterexample is expected (a proof for eps >= 0).  Write the sampled laws
as mixtures: with A1 = law of 1 + Bin(m-1, pi) (target sampled and positive),
A0 = law of Bin(m-1, pi) (target sampled, negative) and B = Bin(m, pi) (target not
sampled), P = lambda A1 + (1-lambda) B and Q = lambda A0 + (1-lambda) B.  The
advanced joint convexity of Balle, Barthe & Gaboardi (2018, Thm. 2; an identity,
checked term by term) gives, with beta = e^(eps' - eps) in (0, 1],

    H_eps'(P || Q) = lambda H_eps(A1 || (1-beta) B + beta A0).

B is itself the mixture pi A1 + (1-pi) A0 (one more iid record), so the second
argument is c A1 + (1-c) A0 with c = (1-beta) pi, and convexity of H_eps in its
second argument with H_eps(A1 || A1) = 0 (eps >= 0) gives

    delta_plus_SAMP(eps')  <= lambda (1 - (1-beta) pi)     delta_plus_pure(m; eps),
    delta_minus_SAMP(eps') <= lambda (1 - (1-beta)(1-pi)) delta_minus_pure(m; eps),

which is the conjecture, sharpened (``refined=True`` checks these sharper per-direction
bounds).  The same argument covers the general form of the conjecture (any
symmetric query on iid records, as long as delta_pure bounds every pair of target
values).  At eps = 0 both sides are equal (total variation: P - Q = lambda (A1 - A0)),
so points near eps = 0 sit at the tolerance boundary by construction.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Dict, Iterable, List

import numpy as np

from statpriv import _validate
from statpriv.counting import counting

__all__ = ["Counterexample", "conjecture_check", "exceeds", "sample_sizes",
           "DEFAULT_N", "DEFAULT_PI", "DEFAULT_RATES", "DEFAULT_EPS"]

DEFAULT_N = (10, 20, 50, 100, 200, 500, 1000, 2000)
DEFAULT_PI = (0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 0.99)
DEFAULT_RATES = (0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9)
DEFAULT_EPS = (0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 2.0, 3.0)

_DIRECTIONS = ("max", "plus", "minus")


@dataclass(frozen=True)
class Counterexample:
    """One grid point where delta_SAMP(n, lambda; eps') > bound * (1 + rtol).

    ``bound`` is lambda * delta_pure(m; eps) (times the refinement factor with
    ``refined=True``); ``ratio`` = delta_samp / bound, computed from the logs so it
    is meaningful where both underflow (then delta_samp and bound print as 0.0 and
    ``log_delta_samp``, ``log_bound`` hold the values).
    """
    n: int
    pi: float
    rate: float
    m: int
    eps: float
    eps_prime: float
    delta_samp: float
    bound: float
    ratio: float
    log_delta_samp: float
    log_bound: float
    direction: str = "max"

    def as_dict(self) -> Dict[str, Any]:
        return asdict(self)


def exceeds(log_lhs: Any, log_rhs: Any, rtol: Any = 1e-9) -> Any:
    """True where lhs > rhs (1 + rtol), compared as logs (arrays broadcast).

    lhs = 0 (log -inf) never exceeds; lhs > 0 with rhs = 0 always does.
    """
    log_lhs = np.asarray(log_lhs, dtype=float)
    log_rhs = np.asarray(log_rhs, dtype=float)
    with np.errstate(invalid="ignore"):
        out = np.where(np.isneginf(log_lhs), False,
                       np.where(np.isneginf(log_rhs), True,
                                log_lhs - log_rhs > math.log1p(rtol)))
    return out[()] if out.ndim == 0 else out


def sample_sizes(n: Any, rates: Any) -> Any:
    """The integer sample sizes m = round(rate * n), clipped to [1, n-1], deduplicated
    (m = n is the identity delta_SAMP = delta_pure and is skipped)."""
    ms = {min(max(1, round(r * n)), n - 1) for r in rates}
    return sorted(m for m in ms if 1 <= m < n)


# The two curves, split out so that tests can inject a wrong one.
def _sampled_log_delta(n: Any, pi: Any, m: Any, eps_prime: Any, direction: Any) -> Any:
    curve = counting(n, pi, sample_size=m)
    return _log_delta(curve, eps_prime, direction)


def _pure_log_delta(m: Any, pi: Any, eps: Any, direction: Any) -> Any:
    return _log_delta(counting(m, pi), eps, direction)


def _log_delta(curve: Any, eps: Any, direction: Any) -> Any:
    if direction == "plus":
        return np.asarray(curve.log_delta_plus(eps), dtype=float)
    if direction == "minus":
        return np.asarray(curve.log_delta_minus(eps), dtype=float)
    return np.asarray(curve.log_delta(eps), dtype=float)


def _refinement(pi: Any, eps: Any, eps_prime: Any, direction: Any) -> Any:
    """ln of the factor 1 - (1-beta) pi (plus) or 1 - (1-beta)(1-pi) (minus)."""
    one_minus_beta = -np.expm1(eps_prime - eps)
    weight = pi if direction == "plus" else 1.0 - pi
    return np.log1p(-one_minus_beta * weight)


def _safe_exp(x: Any) -> Any:
    return float(np.exp(x)) if x > -745.0 else 0.0


def _check_arguments(n_values: Any, pi_values: Any, rates: Any, eps_values: Any, rtol: Any,
                     directions: Any, refined: Any) -> Any:
    """Grids as 1-D sequences (a scalar is a grid of one); wrong types raise
    ParameterTypeError (a TypeError and a ValueError), bad values ValueError."""
    if not isinstance(refined, (bool, np.bool_)):
        raise _validate.ParameterTypeError(f"refined must be True or False, got {refined!r}")
    if isinstance(directions, str) or not isinstance(directions, (list, tuple)):
        raise _validate.ParameterTypeError(
            f"directions must be a list or tuple of {_DIRECTIONS}, got {directions!r}")
    directions = tuple(directions)
    for d in directions:
        _validate.choice("directions", d, _DIRECTIONS)
        if refined and d == "max":
            raise ValueError("refined=True applies to directions 'plus' and 'minus' only")
    if isinstance(n_values, (str, bytes)) or n_values is None:
        raise _validate.ParameterTypeError(f"n_values must be integers, got {n_values!r}")
    dims = _validate.ndim("n_values", n_values)
    if dims > 1:
        raise ValueError(f"n_values must be 1-D, got {dims}-D")
    n_values = [_validate.count("n_values", n, low=1)
                for n in np.asarray(n_values, dtype=object).ravel()]
    pi_values = _validate.real_array("pi_values", pi_values, low=0.0, high=1.0,
                                     dims=(0, 1)).ravel()
    rates = _validate.real_array("rates", rates, low=0.0, high=1.0, dims=(0, 1)).ravel()
    eps = _validate.real_array("eps_values", eps_values, low=0.0, dims=(0, 1)).ravel()
    if eps.size == 0:
        raise ValueError("eps_values must hold at least one eps >= 0 (the conjecture is "
                         "for eps >= 0)")
    rtol = _validate.real("rtol", rtol, low=0.0)
    return n_values, pi_values, rates, eps, rtol, directions


def conjecture_check(n_values: Iterable[int] = DEFAULT_N, pi_values: Iterable[float] = DEFAULT_PI,
                     rates: Iterable[float] = DEFAULT_RATES,
                     eps_values: Iterable[float] = DEFAULT_EPS, *, rtol: float = 1e-9,
                     directions: Iterable[str] = ("max",),
                     refined: bool = False) -> List[Counterexample]:
    """Test Breutigam & Reischuk §7's conjecture on a grid; return the counterexamples (or []).

    For every n in ``n_values``, pi in ``pi_values`` and sample size
    m = round(rate n) (``sample_sizes``; lambda = m/n exactly), and every eps in
    ``eps_values`` (eps >= 0), it compares

        delta_SAMP(n, lambda; eps')  with  lambda * delta_pure(m; eps),
        eps' = ln(1 + lambda (e^eps - 1)),

    in log space, and reports the points where the left side exceeds the right by
    more than the relative tolerance ``rtol`` (the float curves are exact to
    ~1e-13 relative, so 1e-9 hides rounding only).

    The default grid: n from 10 to 2000, pi from 0.01 to 0.99, rates 0.01 to 0.9,
    eps from 0.001 to 3.

    Parameters
    ----------
    n_values : iterable of int >= 2
        Numbers of records.
    pi_values : iterable of float in (0, 1)
        Probabilities of the property.
    rates : iterable of float in (0, 1]
        Sampling rates; m = round(rate n).
    eps_values : iterable of float >= 0
        The eps of the pure side.
    rtol : float >= 0, keyword only
        Relative tolerance of the comparison (default 1e-9).
    directions : iterable of {"max", "plus", "minus"}, keyword only
        "max" (the conjecture: delta = max(delta_plus, delta_minus) on both
        sides), "plus", "minus" (the same inequality for each direction
        separately).
    refined : bool, keyword only
        Also multiply the bound by the factor of the proof in the module
        docstring, 1 - (1-beta) pi (plus) or 1 - (1-beta)(1-pi) (minus), beta =
        e^(eps'-eps) (only for "plus"/"minus"): a sharper statement, equal to the
        conjecture at eps = 0.

    Returns
    -------
    list of Counterexample
        Sorted by decreasing ratio; empty if none.

    Examples
    --------
    >>> import statpriv
    >>> statpriv.conjecture_check(n_values=[100], pi_values=[0.1, 0.5], rates=[0.1, 0.5],
    ...                           eps_values=[0.01, 0.5])
    []
    """
    n_values, pi_values, rates, eps, rtol, directions = _check_arguments(
        n_values, pi_values, rates, eps_values, rtol, directions, refined)

    found = []
    pure_cache = {}
    for n in n_values:
        n = int(n)
        if n < 2:
            continue
        for pi in pi_values:
            pi = float(pi)
            for m in sample_sizes(n, rates):
                rate = m / n
                with np.errstate(over="ignore"):          # eps' = inf for huge eps
                    eps_prime = np.log1p(rate * np.expm1(eps))
                for direction in directions:
                    key = (m, pi, direction)
                    if key not in pure_cache:
                        pure_cache[key] = _pure_log_delta(m, pi, eps, direction)
                    log_bound = math.log(rate) + pure_cache[key]
                    if refined:
                        log_bound = log_bound + _refinement(pi, eps, eps_prime, direction)
                    log_samp = _sampled_log_delta(n, pi, m, eps_prime, direction)
                    bad = np.atleast_1d(exceeds(log_samp, log_bound, rtol))
                    for i in np.flatnonzero(bad):
                        ls, lb = float(log_samp[i]), float(log_bound[i])
                        found.append(Counterexample(
                            n=n, pi=pi, rate=rate, m=m, eps=float(eps[i]),
                            eps_prime=float(eps_prime[i]), delta_samp=_safe_exp(ls),
                            bound=_safe_exp(lb),
                            ratio=math.inf if lb == -math.inf else math.exp(min(ls - lb, 700.0)),
                            log_delta_samp=ls, log_bound=lb, direction=direction))
    found.sort(key=lambda c: -c.ratio)
    return found
