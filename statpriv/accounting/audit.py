"""Cross-check another accountant's (eps, delta) numbers against the exact curve."""
from __future__ import annotations

import math
from typing import Any, Tuple

import numpy as np
from numpy.typing import ArrayLike

from statpriv import _validate
from statpriv.curve import PrivacyCurve
from statpriv.laws.pld import PrivacyLossDistribution

__all__ = ["AuditResult", "audit", "audit_pld"]

# Relative error of statpriv's float delta (docs/precision.md): a claim this
# close below the computed delta is not flagged as optimistic.
_AUDIT_SLACK = 1e-10


class AuditResult(dict):  # type: ignore[type-arg]  # keys: str, values: any
    """The outcome of ``audit`` / ``audit_pld``: a dict (keys also readable as
    attributes); ``str()`` is the message.  ``optimistic`` is the alarm: the
    claim lies below the exact curve.

    Examples
    --------
    >>> import statpriv
    >>> result = statpriv.audit(0.01, 1e-6, statpriv.counting(10**6, 0.5))
    >>> result.optimistic, result["optimistic"]
    (False, False)
    >>> print(result)
    ok: the claim (0.01, 1e-06) holds; it is pessimistic by a factor 9304 in delta (exact 1.07478e-10) and 1.71 in eps (exact 0.00584805)
    """

    def __getattr__(self, name: Any) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __str__(self) -> Any:
        return self["message"]


def _ratio(claimed: Any, exact: Any) -> Any:
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(exact > 0, np.asarray(claimed, dtype=float) / np.where(exact > 0, exact, 1.0),
                     np.where(np.asarray(claimed) > 0, np.inf, 1.0))
    return r


def _check_curve(curve: Any) -> None:
    if not isinstance(curve, PrivacyCurve):
        raise _validate.ParameterTypeError(
            f"curve must be a statpriv PrivacyCurve, got {type(curve).__name__}")


def audit(claimed_eps: ArrayLike, claimed_delta: ArrayLike, curve: PrivacyCurve, *,
          certified: bool = False) -> AuditResult:
    """Cross-check an (eps, delta) claim of another accountant against the exact curve.

    The claim "the release is (claimed_eps, claimed_delta)-DP" holds iff
    claimed_delta >= delta(claimed_eps) of the exact curve.  With
    ``certified=True`` the verdict rests on a proof instead of the float
    curve: ``curve.delta_interval(claimed_eps)`` = (lower, upper) holds the
    true delta (Arb ball arithmetic), so the claim is proven to hold where
    claimed_delta >= upper and proven false where claimed_delta < lower.

    Parameters
    ----------
    claimed_eps : float >= 0
        The eps of the claim (inf allowed).
    claimed_delta : float in [0, 1]
        The delta of the claim.
    curve : PrivacyCurve
        The exact curve of the mechanism.
    certified : bool, default False
        Decide on the certified interval of delta (needs the ``certified``
        extra and a curve kind that has ``delta_interval``).

    Returns
    -------
    AuditResult
        A dict with
        ``exact_delta`` = curve.delta(claimed_eps), ``delta_ratio`` =
        claimed_delta / exact_delta (> 1: pessimistic by that factor; < 1:
        optimistic), ``exact_eps`` = curve.epsilon(claimed_delta) and
        ``eps_ratio`` = claimed_eps / exact_eps, ``optimistic`` (bool, the
        alarm: claimed_delta below the exact delta beyond statpriv's own
        1e-10 relative error) and ``message``.  With ``certified=True`` also
        ``delta_interval`` = (lower, upper), ``verdict`` ("holds": proven,
        claimed_delta >= upper; "fails": proven false, claimed_delta <
        lower; "undecided": inside the interval) and ``exact_eps`` from
        ``curve.epsilon(claimed_delta, certified=True)`` (delta there proven
        <= claimed_delta); ``optimistic`` is then True only where proven.

    Raises
    ------
    NotImplementedError
        ``certified=True`` on a curve kind without certified intervals.

    Examples
    --------
    >>> import statpriv
    >>> r = statpriv.audit(0.01, 1e-6, statpriv.counting(10**6, 0.5))
    >>> r.optimistic, round(r.delta_ratio)
    (False, 9304)
    """
    eps = _validate.real("claimed_eps", claimed_eps, low=0.0, allow_inf=True)
    d = _validate.real("claimed_delta", claimed_delta, low=0.0, high=1.0)
    _check_curve(curve)
    if not isinstance(certified, (bool, np.bool_)):
        raise _validate.ParameterTypeError(f"certified must be True or False, got {certified!r}")
    if certified:
        return _audit_certified(eps, d, curve)
    exact = float(curve.delta(eps))
    exact_eps = float(curve.epsilon(d))
    ratio, eps_ratio = _claim_ratios(eps, d, exact, exact_eps)
    optimistic = d < exact * (1.0 - _AUDIT_SLACK)
    if optimistic:
        message = (f"OPTIMISTIC: the claim ({eps:g}, {d:.6g}) is below the exact curve: "
                   f"delta({eps:g}) = {exact:.6g} ({ratio:.4g} x the exact delta); the "
                   f"smallest eps for delta {d:.6g} is {exact_eps:.6g}")
    else:
        message = (f"ok: the claim ({eps:g}, {d:.6g}) holds; it is pessimistic by a factor "
                   f"{ratio:.4g} in delta (exact {exact:.6g}) and {eps_ratio:.4g} in eps "
                   f"(exact {exact_eps:.6g})")
    return AuditResult(claimed_eps=eps, claimed_delta=d, exact_delta=exact,
                       delta_ratio=ratio, exact_eps=exact_eps, eps_ratio=eps_ratio,
                       optimistic=bool(optimistic), message=message)


def _claim_ratios(eps: float, d: float, exact: float, exact_eps: float) -> Tuple[float, float]:
    """(claimed delta / exact delta, claimed eps / exact eps; 0 where the exact
    eps is infinite)."""
    return (float(_ratio(d, exact)),
            float(_ratio(eps, exact_eps)) if math.isfinite(exact_eps) else 0.0)


def _audit_certified(eps: float, d: float, curve: PrivacyCurve) -> AuditResult:
    """audit(..., certified=True): the verdict from delta_interval."""
    lower, upper = (float(v) for v in curve.delta_interval(eps))
    exact = float(curve.delta(eps))
    exact_eps = float(curve.epsilon(d, certified=True))
    ratio, eps_ratio = _claim_ratios(eps, d, exact, exact_eps)
    shown = f"delta({eps:g}) in [{lower:.17g}, {upper:.17g}] (proven)"
    if d >= upper:
        verdict = "holds"
        message = (f"proven: the claim ({eps:g}, {d:.6g}) holds: {shown}; it is pessimistic "
                   f"by a factor {ratio:.4g} in delta and {eps_ratio:.4g} in eps (eps "
                   f"{exact_eps:.6g} is proven to give delta <= {d:.6g})")
    elif d < lower:
        verdict = "fails"
        message = (f"OPTIMISTIC (proven): the claim ({eps:g}, {d:.6g}) is below the curve: "
                   f"{shown}; the smallest eps proven to give delta <= {d:.6g} is "
                   f"{exact_eps:.6g}")
    else:
        verdict = "undecided"
        message = (f"undecided: the claim ({eps:g}, {d:.6g}) lies inside {shown}: neither "
                   "proven to hold nor to fail")
    return AuditResult(claimed_eps=eps, claimed_delta=d, exact_delta=exact,
                       delta_ratio=ratio, exact_eps=exact_eps, eps_ratio=eps_ratio,
                       optimistic=verdict == "fails", delta_interval=(lower, upper),
                       verdict=verdict, message=message)


def _claimed_deltas(pld: Any, eps: Any) -> Any:
    """pld.get_delta_for_epsilon at every eps: one call on the sorted grid
    (dp-accounting's vectorised form wants ascending eps), else one call per
    eps for PLDs that take scalars only."""
    order = np.argsort(eps, kind="stable")
    try:
        got = np.asarray(pld.get_delta_for_epsilon(eps[order]), dtype=float)
    except (TypeError, ValueError):
        got = None
    if got is None or got.shape != eps.shape:
        return np.array([float(pld.get_delta_for_epsilon(float(e))) for e in eps])
    claimed = np.empty_like(eps)
    claimed[order] = got
    return claimed


def audit_pld(pld: Any, curve: PrivacyCurve, eps_grid: ArrayLike) -> AuditResult:
    """Cross-check another accountant's PLD against the exact curve on a grid of eps.

    Parameters
    ----------
    pld : PLD or PrivacyCurve
        The claim: anything with ``get_delta_for_epsilon(eps)`` (a
        dp-accounting PrivacyLossDistribution, a PrivacyCurve) or a statpriv
        PrivacyLossDistribution (``curve.privacy_loss_distribution()``,
        read through its ``delta(eps)``).
    curve : PrivacyCurve
        The exact curve of the mechanism.
    eps_grid : 1-D array of floats
        The eps at which the two deltas are compared (at least one).

    Returns
    -------
    AuditResult
        A dict with arrays ``eps``, ``claimed_delta``, ``exact_delta``,
        ``delta_ratio`` (claimed / exact), ``optimistic`` (per eps), and
        ``any_optimistic``, ``worst_eps`` (the eps of the smallest ratio),
        ``min_ratio``, ``max_ratio`` and ``message``.

    Examples
    --------
    >>> import statpriv
    >>> curve = statpriv.counting(1000, 0.5)
    >>> r = statpriv.audit_pld(curve.to_dp_accounting(), curve, [0.0, 0.1, 0.2])
    >>> r.any_optimistic, 1.0 <= r.min_ratio < 1.01
    (False, True)
    >>> statpriv.audit_pld(curve.privacy_loss_distribution(), curve, [0.0, 0.1]).any_optimistic
    False
    """
    statpriv_pld = isinstance(pld, PrivacyLossDistribution)
    if not statpriv_pld and not callable(getattr(pld, "get_delta_for_epsilon", None)):
        raise _validate.ParameterTypeError(
            f"pld must be a PrivacyLossDistribution or have a get_delta_for_epsilon method, "
            f"got {type(pld).__name__}")
    _check_curve(curve)
    eps = _validate.real_array("eps_grid", eps_grid, allow_inf=True, dims=(1,))
    if eps.size == 0:
        raise ValueError("eps_grid must hold at least one eps")
    claimed = (np.asarray(pld.delta(eps), dtype=float) if statpriv_pld
               else _claimed_deltas(pld, eps))
    exact = np.asarray(curve.delta(eps), dtype=float)
    ratio = _ratio(claimed, exact)
    optimistic = claimed < exact * (1.0 - _AUDIT_SLACK)
    worst = int(np.argmin(ratio))
    if optimistic.any():
        bad = np.flatnonzero(optimistic)
        message = (f"OPTIMISTIC at {bad.size} of {eps.size} eps: at eps = {eps[worst]:g} the "
                   f"PLD claims delta = {claimed[worst]:.6g}, the exact curve has "
                   f"{exact[worst]:.6g} ({ratio[worst]:.4g} x)")
    else:
        message = (f"ok: the PLD is never below the exact curve on {eps.size} eps; "
                   f"pessimistic by a factor {ratio.min():.4g} to {ratio.max():.4g}")
    return AuditResult(eps=eps, claimed_delta=claimed, exact_delta=exact, delta_ratio=ratio,
                       optimistic=optimistic, any_optimistic=bool(optimistic.any()),
                       worst_eps=float(eps[worst]), min_ratio=float(ratio.min()),
                       max_ratio=float(ratio.max()), message=message)
