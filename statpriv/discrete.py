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
import collections
import importlib
import math
import operator

import numpy as np

from statpriv import _validate

__all__ = ["LogPmfs", "SUM_TOLERANCE", "from_log_pmfs"]

# |sum of a law's pmf - 1| accepted by from_log_pmfs (then normalised exactly).
SUM_TOLERANCE = 1e-9

# Largest number of atoms within the significant range of the largest (see
# _mp_log_total) for which the normalising constants are summed in mpmath to
# give the zero points' log ratios in double-double; above it the log ratios
# are extended precision (~1e-18 absolute) only.
_MAX_MP_NORMALISER = 200_000


class LogPmfs(collections.namedtuple(
        "LogPmfs", "support_start log_p log_q log_rest_p log_rest_q")):
    """The discrete laws behind a curve (``PrivacyCurve.log_pmfs()``).

    Attributes
    ----------
    support_start : int
        The atom (integer outcome) of index 0 of the arrays.
    log_p, log_q : numpy.ndarray of float64 (read-only)
        ln P(x) and ln Q(x) on x = support_start, support_start + 1, ...
        (-inf where an atom has no mass); for ``from_log_pmfs`` curves the
        arrays as given (the curve normalises them, see there).
    log_rest_p, log_rest_q : float
        ln of an upper bound on the P and Q mass outside the arrays: -inf
        when the arrays hold the whole laws.  Curves of large counts work on a
        window of the laws (the atoms whose mass matters); the rest is bounded
        by these and added to delta, never dropped.
    """
    __slots__ = ()


def _log_pmf_array(name, values):
    arr = _validate.real_array(name, values, allow_inf=True, dims=(1,))
    if arr.size == 0:
        raise ValueError(f"{name} must hold at least one atom")
    if np.isposinf(arr).any():
        raise ValueError(f"{name} holds ln P(x) <= 0: +inf is not a log-probability")
    return np.ascontiguousarray(arr)


def _log_total(name, arr):
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


def _mp_log_total(arr):
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
    return mpmath.log(mpmath.fsum(mpmath.exp(mpmath.mpf(float(x))) for x in near))


def _reference(lp, lq):
    """The mpmath brute force (statpriv.oracle.discrete_delta) on these atoms."""
    def ref(eps_list, direction):
        from statpriv import oracle
        return oracle.discrete_delta(lp, lq, eps_list, direction)
    return ref


def from_log_pmfs(log_p, log_q, *, support_start=0):
    """Privacy curve of two discrete laws given by their log-pmfs.

    Parameters
    ----------
    log_p, log_q : 1-D arrays of floats, the same length
        ln P(x) and ln Q(x) on the atoms x = support_start, support_start + 1,
        ...: P is the law of the release when the target record is present
        (or positive), Q when it is absent (negative).  Entries are finite or
        -inf (an atom without mass); NaN and +inf raise ValueError.  Each law
        must sum to 1 within SUM_TOLERANCE = 1e-9 (|sum exp(log_p) - 1| <=
        1e-9, summed in extended precision); the curve is then that of the
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
        real eps (for eps < 0 through H_eps(P||Q) = 1 - e^eps + e^eps
        H_-eps(Q||P)).  ``epsilon(0)`` is the largest ln P(x)/Q(x) (inf if Q
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
    total_p, total_q = _log_total("log_p", lp), _log_total("log_q", lq)

    _laws = importlib.import_module("statpriv._laws")    # the shared pair machinery
    ld = np.longdouble
    live = np.flatnonzero(np.isfinite(lp) | np.isfinite(lq))
    # atoms where both laws vanish add nothing to either sum: dropped (the
    # noiseless pair kernel does not need consecutive atoms)
    cp = lp[live].astype(ld) - total_p
    cq = lq[live].astype(ld) - total_q
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
    import mpmath
    # digits: 45 beyond the smallest |extreme log ratio| (a zero point near
    # eps = 0 needs ln P/Q to 1e-45 of itself, not of the O(1) logs it comes from)
    finite_lr = lr[np.isfinite(lr)].astype(np.float64)
    need = 0.0
    if finite_lr.size:
        for v in (finite_lr.max(), finite_lr.min()):
            if v != 0.0:
                need = max(need, -math.log10(abs(v)))
    with mpmath.workdps(45 + min(int(math.ceil(need)), 120)):
        mp_p, mp_q = _mp_log_total(lp), _mp_log_total(lq)
        if mp_p is not None and mp_q is not None:
            shift = mp_p - mp_q
            # |error| of lr: the difference of two doubles in long double, the
            # normalisers' pairwise sums
            err = (np.abs(lr.astype(np.float64)) * 1.1e-19 + 1e-18 * math.log2(len(lp) + 2.0))

            def exact(i):
                a, b = float(lp[live[i]]), float(lq[live[i]])
                if a == -math.inf or b == -math.inf:
                    return mpmath.mpf("-inf") if a == -math.inf else mpmath.mpf("inf")
                return mpmath.mpf(a) - mpmath.mpf(b) - shift

            lr_lo = _laws._refine_log_ratio(cp, cq, lr, err, exact)
            # the zero points are the extreme ratios wherever they sit (the
            # ratio need not be monotone): those cells, and every cell tied
            # with them up to the rounding of lr, are refined too
            finite = np.flatnonzero(np.isfinite(lr))
            if finite.size:
                vals = lr[finite].astype(np.float64)
                cells = set()
                for top in (vals.max(), vals.min()):
                    tied = finite[np.abs(vals - top) <= 1e-15 * (1.0 + abs(top))]
                    cells.update(int(i) for i in tied[:_laws._MAX_REFINED])
                for i in sorted(cells):
                    lr_lo[i] = float(exact(i) - _laws._mpf_exact(lr[i]))
    laws = _laws._Laws(cp, cq, lr, False, lr_lo)
    curve = _laws._pair_curve(laws, _reference(lp, lq),
                                 f"discrete laws on {start}..{start + lp.size - 1}")
    lp.flags.writeable = False
    lq.flags.writeable = False
    curve._log_pmfs = LogPmfs(start, lp, lq, -math.inf, -math.inf)
    return curve


def _binomial_shift_laws(n, pi, pld_window=False):
    """counting(n, pi) without noise or sampling: S ~ Bin(n-1, pi),
    P(j) = Pr[S = j - 1], Q(j) = Pr[S = j], on the atoms j = first..last+1 of
    the window where the mass matters (statpriv._laws._window; the whole
    support up to _laws.FULL_SUPPORT atoms), in extended precision.

    Returns (first, lp, lq, loss, log_rest): loss = ln Pr[S = j-1]/Pr[S = j]
    from the pmf one atom beyond the window on each side (finite at the window's
    edges unless the support ends there), log_rest bounds the mass left out.
    ``pld_window``: the narrower window of the noisy paths (mass within
    _cells.DROP_NATS nats of the largest atom), enough for a PLD."""
    _laws = importlib.import_module("statpriv._laws")
    drop = _laws._cells.DROP_NATS if pld_window else None
    first, last, log_rest = _laws._binomial_window(n - 1, pi, pld_window, drop)
    lo, hi = max(first - 1, 0), min(last + 1, n - 1)
    ext = np.asarray(_laws._binomial_log_pmf(n - 1, pi, lo, hi), dtype=np.longdouble)
    none = np.array([-np.inf], dtype=np.longdouble)
    z = np.concatenate((none if lo == first else ext[:0], ext, none if hi == last else ext[:0]))
    log_z = z[1:-1]                                  # z(first-1+k) at index k
    lp = np.concatenate((none, log_z))
    lq = np.concatenate((log_z, none))
    with np.errstate(invalid="ignore"):
        loss = z[:-1] - z[1:]                        # atoms j = first..last+1
    return first, lp, lq, loss, float(log_rest)


def _binomial_shift_log_pmfs(n, pi):
    """LogPmfs of counting(n, pi) without noise or sampling (see _binomial_shift_laws)."""
    first, lp, lq, _, log_rest = _binomial_shift_laws(n, pi)
    lp, lq = lp.astype(np.float64), lq.astype(np.float64)
    lp.flags.writeable = False
    lq.flags.writeable = False
    return LogPmfs(first, lp, lq, log_rest, log_rest)


def _binomial_shift_source(n, pi):
    """PrivacyCurve._pld_laws of counting(n, pi) (see _binomial_shift_laws)."""
    def source():
        from statpriv import pld
        _, lp, lq, loss, log_rest = _binomial_shift_laws(n, pi, True)
        return pld.DiscreteLaws(lp, lq, loss, log_rest, log_rest, math.inf, -math.inf)
    return source


def _laws_log_pmfs(start, lp, lq, log_rest_p, log_rest_q):
    """A callable returning the LogPmfs of a pair curve's laws (float64 copies
    made on demand; the curve keeps its extended-precision arrays)."""
    def log_pmfs():
        a, b = np.array(lp, dtype=np.float64), np.array(lq, dtype=np.float64)
        a.flags.writeable = False
        b.flags.writeable = False
        return LogPmfs(int(start), a, b, float(log_rest_p), float(log_rest_q))
    return log_pmfs
