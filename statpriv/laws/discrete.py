"""The laws of ``from_log_pmfs``: any two discrete laws, normalised and sorted by ratio.

The hockey-stick sums do not depend on the order of the atoms, so the atoms
are sorted by ln P(x)/Q(x) (atoms where both laws vanish are dropped) and the
pair kernel sums from the likelihood-ratio threshold outward.  The laws are
normalised exactly (P / sum P, Q / sum Q, the sums in extended precision), and
the log ratios of the atoms where the curve reaches 0 (and of those whose
rounding would matter near the threshold) are refined to double-double from
the exact inputs, with the normalising sums in mpmath.
"""
import math
from typing import Any

import numpy as np

from statpriv import _xprec
from statpriv.laws import refine
from statpriv.laws.pair import Laws, LogPmfs

__all__ = ["SUM_TOLERANCE", "discrete_reference", "laws_from_log_pmfs", "log_total"]

# |sum of a law's pmf - 1| accepted by from_log_pmfs (then normalised exactly).
SUM_TOLERANCE = 1e-9

# Largest number of atoms within the significant range of the largest (see
# _mp_log_total) for which the normalising constants are summed in mpmath to
# give the zero points' log ratios in double-double; above it the log ratios
# are extended precision (~1e-18 absolute) only.
_MAX_MP_NORMALISER = 200_000


def log_total(name: Any, arr: Any) -> Any:
    """ln sum_x e^arr[x] in extended precision; ValueError unless within SUM_TOLERANCE of 0."""
    ld = np.longdouble
    k = int(np.argmax(arr))
    top = ld(arr[k])
    if top == -np.inf:
        raise ValueError(f"{name} has no mass: every entry is -inf")
    # top + log1p(the others relative to the largest): a law within 1e-24 of
    # normalised keeps that 1e-24 (a log of a sum near 1 would round it away)
    others = np.exp(np.delete(arr, k).astype(ld) - top)
    log_total = top + np.log1p(np.sum(others))       # pairwise summation
    if not abs(float(np.expm1(log_total))) <= SUM_TOLERANCE:
        raise ValueError(f"{name} must be a log-pmf: sum exp({name}) = "
                         f"{float(np.exp(log_total))!r}, not 1 within {SUM_TOLERANCE:g} "
                         f"(statpriv.discrete.SUM_TOLERANCE)")
    return log_total


def _mp_log_total(arr: Any) -> Any:
    """ln sum_x e^arr[x] in mpmath at the current precision (mp.dps digits):
    the atoms within dps ln 10 + ln len + 5 nats of the largest (the others
    weigh less than the precision asked for), or None when there are more
    than _MAX_MP_NORMALISER of them."""
    import mpmath
    top = float(np.max(arr))
    nats = mpmath.mp.dps * math.log(10.0) + math.log(arr.size + 1.0) + 5.0
    near = arr[arr >= top - nats]
    if near.size > _MAX_MP_NORMALISER:
        return None
    return mpmath.log(mpmath.fsum(mpmath.exp(_xprec.mpf_exact(x)) for x in near))


def laws_from_log_pmfs(lp: Any, lq: Any, start: Any, *, equal_totals: bool = False,
                       log_ratio: Any = None, exact_log_ratio: bool = False) -> Any:
    """Laws of two validated float64 (or long double: the entries taken as
    exact binary values either way) log-pmf arrays of equal length (each
    summing to 1 within SUM_TOLERANCE): normalised, sorted by ln P/Q, the
    extreme and threshold-critical ratios refined; ``given`` keeps the
    arrays as given (read-only) with their first outcome ``start``.
    ``equal_totals``: lq holds the same atoms as lp, moved (a shifted law):
    the two sums are equal and their normalising shift is 0 exactly.
    ``log_ratio``: where the laws have a closed form, ``log_ratio(i)`` is
    ln P(i)/Q(i) of outcome i exactly (an mpmath number at the current
    precision): the ratios, their order and their refinement come from it,
    not from the rounded logs (whose difference is the ratio only to an ulp
    of the normaliser: randomized response's e^eps0 / Z against 1 / Z puts
    its zero point 1e-16 off, all of eps0 = 1e-17).  ``exact_log_ratio``:
    ``log_ratio``'s values are exact binary numbers (randomized response's
    +-eps0 and 0), not roundings of a closed form: where a long double holds
    each of them exactly the laws say so (Laws.log_ratio_exact), and an exact
    composition adds no rounding bound to their losses."""
    total_p = log_total("log_p", lp)
    total_q = total_p if equal_totals else log_total("log_q", lq)

    ld = np.longdouble
    live = np.flatnonzero(np.isfinite(lp) | np.isfinite(lq))
    # atoms where both laws vanish add nothing to either sum: dropped (the
    # noiseless pair kernel does not need consecutive atoms)
    cp = lp[live].astype(ld) - total_p
    cq = lq[live].astype(ld) - total_q
    import mpmath
    ratios_exact = False
    if log_ratio is not None:
        with mpmath.workdps(60):
            exact_ratios = [log_ratio(int(j)) for j in live]
            lr = np.array([_xprec.long_double(v) for v in exact_ratios], dtype=ld)
            # (log_ratio is an mpmath callable: one call per atom, as above)
            ratios_exact = exact_log_ratio and all(
                _xprec.mpf_exact(x) == v for x, v in zip(lr, exact_ratios))
    else:
        with np.errstate(invalid="ignore"):
            lr = (lp[live].astype(ld) - lq[live].astype(ld)) - (total_p - total_q)
    lr[np.isneginf(cp)] = -np.inf
    lr[np.isneginf(cq) & np.isfinite(cp)] = np.inf
    # The hockey-stick sums do not depend on the order of the atoms: sorted
    # by ln P/Q the ratio is monotone, and the kernel sums from the
    # threshold outward with its remainder bound (O(len) otherwise)
    order = np.argsort(lr, kind="stable")
    live, cp, cq, lr = live[order], cp[order], cq[order], lr[order]

    lr_lo = None
    # digits: 45 beyond the smallest |extreme log ratio| (a zero point near
    # eps = 0 needs ln P/Q to 1e-45 of itself, not of the O(1) logs it comes from)
    finite_lr = lr[np.isfinite(lr)].astype(np.float64)
    need = 0.0
    if finite_lr.size:
        for v in (finite_lr.max(), finite_lr.min()):
            if v != 0.0:
                need = max(need, -math.log10(abs(v)))
    with mpmath.workdps(45 + min(int(math.ceil(need)), 120)):
        if equal_totals:
            mp_p = mp_q = mpmath.mpf(0)
        else:
            mp_p, mp_q = _mp_log_total(lp), _mp_log_total(lq)
        if mp_p is not None and mp_q is not None:
            shift = mp_p - mp_q
            # |error| of lr: the difference of two doubles in long double, the
            # normalisers' pairwise sums
            err = (np.abs(lr.astype(np.float64)) * 1.1e-19 + 1e-18 * math.log2(len(lp) + 2.0))

            def exact(i: Any) -> Any:
                a, b = lp[live[i]], lq[live[i]]
                if a == -math.inf or b == -math.inf:
                    return mpmath.mpf("-inf") if a == -math.inf else mpmath.mpf("inf")
                if log_ratio is not None:
                    return log_ratio(int(live[i]))
                return _xprec.mpf_exact(a) - _xprec.mpf_exact(b) - shift

            lr_lo = refine.refine_log_ratio(cp, cq, lr, err, exact)
            refine.refine_extremes(lr, lr_lo, exact)
    lp.flags.writeable = False
    lq.flags.writeable = False
    # exact_ratio: every ratio from the definition, the zero points' refined
    # (a sampled pair's ratios may then be formed from these: Laws.subsample);
    # log_ratio_exact: moreover every ratio a long double exactly
    return Laws(cp, cq, lr, False, lr_lo, given=LogPmfs(start, lp, lq, -math.inf, -math.inf),
                exact_ratio=lr_lo is not None, log_ratio_exact=ratios_exact)


def discrete_reference(lp: Any, lq: Any) -> Any:
    """The mpmath brute force (statpriv.oracle.discrete_delta) over these atoms,
    as a curve's ``reference``."""
    def ref(eps_list: Any, direction: Any) -> Any:
        from statpriv import oracle
        return oracle.discrete_delta(lp, lq, eps_list, direction)
    return ref
