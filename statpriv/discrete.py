"""Privacy curves of any two discrete laws on a common integer support.

``from_log_pmfs(log_p, log_q)`` is the generic entry point: give the laws P
(target present / positive) and Q (absent / negative) of what the attacker
sees as natural-log pmf arrays on the atoms support_start, support_start + 1,
...; the curve is

    delta_plus(eps)  = H_eps(P || Q) = sum_x (P(x) - e^eps Q(x))_+ ,
    delta_minus(eps) = H_eps(Q || P),   delta = max of the two

(the hockey-stick divergence; Breutigam & Reischuk, "Statistical Privacy",
Def. 5), evaluated by the same C pair kernel as the counting curves on the
atoms sorted by likelihood ratio (sums from the threshold outward in
extended-precision log space).
"""
from __future__ import annotations

import operator
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from statpriv import _validate
from statpriv.laws import pair_curve
from statpriv.curve import PrivacyCurve
from statpriv.curve.recipe import factory
from statpriv.laws.discrete import SUM_TOLERANCE, discrete_reference, laws_from_log_pmfs
from statpriv.laws.pair import LogPmfs

__all__ = ["LogPmfs", "SUM_TOLERANCE", "from_log_pmfs"]


def _log_pmf_array(name: str, values: ArrayLike) -> NDArray[np.float64]:
    arr = _validate.real_array(name, values, allow_inf=True, dims=(1,))
    if arr.size == 0:
        raise ValueError(f"{name} must hold at least one atom")
    if np.isposinf(arr).any():
        raise ValueError(f"{name} holds ln P(x) <= 0: +inf is not a log-probability")
    return np.ascontiguousarray(arr)


@factory
def from_log_pmfs(log_p: ArrayLike, log_q: ArrayLike, *, support_start: int = 0) -> PrivacyCurve:
    """Privacy curve of two discrete laws given by their log-pmfs.

    Parameters
    ----------
    log_p, log_q : 1-D arrays of floats, the same length
        ln P(x) and ln Q(x) on the atoms x = support_start, support_start + 1,
        ...: P is the law of the release when the target record is present
        (or positive), Q when it is absent (negative).  Entries are finite or
        -inf (an atom without mass); NaN and +inf raise ValueError.  Each law
        must sum to 1 within SUM_TOLERANCE = 1e-9 (``|sum exp(log_p) - 1| <=
        1e-9``, summed in extended precision); the curve is then that of the
        normalised laws P / sum P and Q / sum Q, exactly (so that delta <= 1
        and the identity below hold whatever the rounding of the caller's
        logs).  The entries are taken as exact binary values.
    support_start : int, optional
        The integer outcome of index 0 (default 0).  The hockey-stick sums do
        not depend on it; it is returned by ``curve.log_pmfs()``.

    Returns
    -------
    PrivacyCurve
        delta_plus(eps) = H_eps(P || Q) = sum_x (P(x) - e^eps Q(x))_+,
        delta_minus(eps) = H_eps(Q || P), delta = max of the two, for every
        real eps (for eps < 0 through ``H_eps(P||Q) = 1 - e^eps + e^eps
        H_-eps(Q||P)``).  ``epsilon(0)`` is the largest ln P(x)/Q(x) (inf if Q
        vanishes where P does not).  ``precision="mp"`` evaluates the mpmath
        brute force over the given atoms; ``log_pmfs()`` returns the laws.

    Notes
    -----
    The hockey-stick sums do not depend on the order of the atoms, so the
    atoms are sorted by ln P(x)/Q(x) (atoms where both laws vanish are
    dropped) and the C pair kernel sums from the likelihood-ratio threshold
    outward with a remainder bound, whatever the shape of the ratio in x.
    The log ratios of the atoms
    where the curve reaches 0 (and of those whose rounding would matter
    near the threshold) are refined to double-double from the exact inputs,
    so delta keeps its relative accuracy up to the zero point.  That needs
    the normalising sums in mpmath: for laws with more than 200,000 atoms
    within ~110 nats of their largest the log ratios are extended precision
    only (~1e-18 absolute), and relative accuracy within ~1e-6 of a zero
    point is then not promised.  Construction costs O(len) plus up to a few
    thousand mpmath operations; queries as for counting curves.

    Examples
    --------
    Two Poisson laws, means 3 and 2, on 0..59 (the mass beyond is < 1e-40):

    >>> import math, numpy as np, statpriv
    >>> x = np.arange(60)
    >>> lgam = np.array([math.lgamma(k + 1.0) for k in x])
    >>> log_p = x * math.log(3.0) - 3.0 - lgam
    >>> log_q = x * math.log(2.0) - 2.0 - lgam
    >>> log_p -= np.logaddexp.reduce(log_p)      # exactly normalised on 0..59
    >>> log_q -= np.logaddexp.reduce(log_q)
    >>> curve = statpriv.from_log_pmfs(log_p, log_q)
    >>> print(f"{curve.delta_plus(0.5):.12e}")
    1.172045214577e-01
    >>> curve.log_pmfs().support_start
    0
    """
    lp = _log_pmf_array("log_p", log_p)
    lq = _log_pmf_array("log_q", log_q)
    if lp.shape != lq.shape:
        raise ValueError(f"log_p and log_q must have the same length, got {lp.size} "
                         f"and {lq.size}")
    if isinstance(support_start, (bool, np.bool_)):
        raise _validate.ParameterTypeError("support_start must be an integer, not a bool")
    try:
        start = operator.index(support_start)
    except TypeError:
        raise _validate.ParameterTypeError(
            f"support_start must be an integer, got {type(support_start).__name__} "
            f"{support_start!r}") from None
    laws = laws_from_log_pmfs(lp, lq, start)
    def certified() -> Any:                      # the given floats, exactly, in Arb
        from statpriv.oracle import arb
        return arb.ExactLogPmfs(lp, lq)
    return pair_curve(laws, discrete_reference(lp, lq),
                      f"discrete laws on {start}..{start + lp.size - 1}", certified=certified)
