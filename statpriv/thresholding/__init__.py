"""Thresholded counts against an attacker with background knowledge.

M_tau releases the count K if K >= tau and a suppression marker (bottom)
otherwise (Desfontaines, Mohammadi, Krahmer & Basin, "Differential Privacy
with Partial Knowledge", Def. 15, Example 7, Thm 4, Prop. 8).  The attacker
targets one record, knows the values of ``known`` other records (b of them
are ones) and is uncertain about the rest, whose count Z has pmf z and cdf F.
Given b the output is a thresholded count with threshold t = tau - b on Z,
and its pair of laws (target one: P_b, target zero: Q_b) gives, exactly,

    delta_plus^b(eps)  = sum_{k>=t} (z(k-1) - e^eps z(k))_+ + (F(t-2) - e^eps F(t-1))_+
    delta_minus^b(eps) = sum_{k>=t} (z(k) - e^eps z(k-1))_+ + (F(t-1) - e^eps F(t-2))_+

(pmf and cdf are 0 at negative counts; t <= 0 means always released).

* active attacker (APKDP: the attacker can choose or plant the known
  records): delta(eps) = max over every possible b of delta^b(eps);
* passive attacker (PPKDP: the known records are drawn from the data):
  delta(eps) = sum_b P(b) delta^b(eps), the hockey stick of the joint law
  of (b, release).

Either way delta_plus and delta_minus are taken separately (max or average
direction by direction) and delta = max(delta_plus, delta_minus).
"""
from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np
from numpy.typing import ArrayLike

from statpriv import _lazy, _validate, oracle
from statpriv.laws import grid_pld, windows
from statpriv.curve import PrivacyCurve
from statpriv.curve.recipe import factory

__all__ = ["thresholded"]

_thr = _lazy.module("statpriv.thresholding._thresholding")
_core = _lazy.module("statpriv._core")
_law_kernels = _lazy.module("statpriv.laws._kernels")
_per_record = _lazy.module("statpriv.counting.per_record")

# Every C evaluation sweeps the window of Z once: the whole support up to
# FULL_SUPPORT atoms, else the atoms within DROP_NATS of the largest (the
# product tree of per-record laws trims at the same depth); the mass outside
# (< e^-DROP_NATS per atom) is bounded and added, so ln delta is exact
# wherever it lies above that bound.
FULL_SUPPORT = 4096
DROP_NATS = 11000.0

ATTACKERS = ("passive", "active")


@factory
def thresholded(n: Optional[int], pi: ArrayLike, threshold: int, *, known: int = 0,
                attacker: str = "passive") -> PrivacyCurve:
    """Exact privacy curve of a thresholded count with ``known`` records known.

    The mechanism releases the number K of records with the property if
    K >= ``threshold`` and a suppression marker otherwise (Desfontaines,
    Mohammadi, Krahmer & Basin, "Differential Privacy with Partial
    Knowledge", Def. 15).  With b the ones among the known records and Z the
    count of the unknown others (pmf z, cdf F), the target's record moving
    from 0 to 1 gives, at threshold t = threshold - b on Z,

        delta_plus^b  = sum_{k>=t} (z(k-1) - e^eps z(k))_+ + (F(t-2) - e^eps F(t-1))_+
        delta_minus^b = sum_{k>=t} (z(k) - e^eps z(k-1))_+ + (F(t-1) - e^eps F(t-2))_+

    and the curve is max_b delta^b (``attacker="active"``: the known records
    may be planted, every possible b counts) or sum_b P(b) delta^b
    (``"passive"``: b drawn from the data), direction by direction.  Summed
    in C in one sweep of Z's support per eps (every positive part is a
    non-negative term, the likelihood ratio z(k-1)/z(k) being monotone);
    mass of Z or of b's law outside the summed window is bounded and added.

    Parameters
    ----------
    n : int >= 1, or None when ``pi`` is an array
        Number of records, the target included.
    pi : float in [0, 1] or array of n-1 floats in [0, 1]
        Probability that a record has the property: one value for iid
        records, or one per OTHER record (the target excluded, as in
        statpriv.counting).  With an array, the known records are its first
        ``known`` entries and the unknown ones the rest; unlike a plain count,
        records with pi_j in {0, 1} are kept (they move the count relative to
        the threshold).
    threshold : int >= 0
        tau: K is released iff K >= tau (tau = 0: a plain count).
    known : int in [0, n-1]
        How many of the other records the attacker knows.
    attacker : "passive" or "active"

    Returns
    -------
    PrivacyCurve
        With delta / delta_plus / delta_minus / log_delta / epsilon and
        ``precision="mp"`` (statpriv.oracle.thresholded_delta).

    Examples
    --------
    Example 7 of the paper: 1000 voters, each votes yes with probability
    1e-7, the count is released from 100 on, the attacker knows 100 votes.
    An active attacker plants 100 yes votes and the threshold is gone; a
    passive one almost surely sees only "no" votes and a suppressed count:

    >>> active = thresholded(1000, 1e-7, 100, known=100, attacker="active")
    >>> print(f"{active.delta(1.0):.6f} {active.delta(10.0):.6f}")
    0.999910 0.999910
    >>> passive = thresholded(1000, 1e-7, 100, known=100)
    >>> print(f"{passive.log_delta(0.0):.2f}")
    -1276.08
    """
    _validate.choice("attacker", attacker, ATTACKERS)
    n, pi, per_record = _validate.records(n, pi)
    probs: Any = pi
    threshold = _validate.count("threshold", threshold, low=0)
    known = _validate.count("known", known, low=0, high=n - 1)

    if per_record:
        first, lz, lr, log_rest = _per_record_law(probs[known:])
        b_first, lb, _, log_rest_b = _per_record_law(probs[:known])
        b_range = _support_range(probs[:known])
    else:
        first, lz, lr, log_rest = _iid_law(n - 1 - known, pi)
        b_first, lb, _, log_rest_b = _iid_law(known, pi)
        b_range = (0 if pi < 1.0 else known, known if pi > 0.0 else 0)
    last = first + len(lz) - 1
    if attacker == "active":
        lo, hi = threshold - b_range[1], threshold - b_range[0]
        # thresholds at or below the window's start act alike, and so do
        # those from last + 2 on (nothing released): clip the range
        c_lo = min(max(lo, first), hi)
        c_hi = max(min(hi, last + 2), c_lo)
        t = np.arange(c_hi, c_lo - 1, -1, dtype=np.int64)
        lw, log_rest_b = None, -math.inf
    else:
        t = threshold - (b_first + np.arange(len(lb), dtype=np.int64))
        lw = lb
    if per_record:
        lr_lo, lb_hi, lb_lo = _per_record_refinements(probs[known:], first, lr, t)
    else:
        lr_lo, lb_hi, lb_lo = _iid_refinements(n - 1 - known, pi, first, lr, t)
    core = _thr.ThresholdCore(lz, lr, first, t, lw, log_rest, log_rest_b, lr_lo, lb_hi, lb_lo)

    ref_pi = probs.tolist() if per_record else pi

    def ref(eps: Any, direction: Any) -> Any:
        return oracle.thresholded_delta(n, ref_pi, threshold, eps, known=known,
                                        attacker=attacker, direction=direction)

    what = "per-record pi" if per_record else f"pi={pi}"

    def certified() -> Any:                  # the laws in Arb (statpriv.oracle.arb)
        from statpriv.oracle import arb
        others: Any
        known_count: Any
        if per_record:
            others, known_count = (arb.PoissonBinomialCount(probs[known:].tolist()),
                                   arb.PoissonBinomialCount(probs[:known].tolist()))
        else:
            others = arb.BinomialCount(n - 1 - known, float(pi))
            known_count = arb.BinomialCount(known, float(pi))
        if attacker == "active":
            return arb.active_threshold(others, known_count, threshold)
        return arb.ThresholdedCount(others, known_count, threshold)

    # (a pair of laws known through its delta: connect-the-dots PLDs, composition)
    return PrivacyCurve(core, ref, f"thresholded count n={n}, {what}, threshold={threshold}, "
                                   f"known={known}, {attacker} attacker",
                        laws=grid_pld.DeltaLaws(core).with_certified(certified))


# Near a zero point eps0 the terms z (1 - e^(eps - L)) need L - eps to
# ~1e-12 relative where it is ~1e-16 eps0: L = ln z(k-1)/z(k) and
# ln F(t-1)/F(t-2) are refined at construction to ~1e-35 (lr + lr_lo,
# lb_hi + lb_lo) by one C sweep over Z's window in doubled long double
# (csrc/xprec.h): from the exact ratios k (1-pi)/((N-k+1) pi) of a binomial
# (any window), from the exact convolution of a Poisson binomial's records
# (while that takes at most REFINE_WORK operations: O(records x atoms)).
REFINE_WORK = 4e6


def _iid_refinements(N: Any, pi: Any, first: Any, lr: Any, t: Any) -> Any:
    """(lr_lo, lb_hi, lb_lo) for ThresholdCore, or Nones (a point law):
    lr + lr_lo = ln z(k-1)/z(k) and lb_hi + lb_lo = ln F(t-1)/F(t-2) = log1p
    (z(t-1)/F(t-2)) (F on the window, as the C sums take it) to ~1e-35."""
    if len(lr) < 3 or not 0.0 < pi < 1.0:
        return None, None, None
    return _thr.thr_refine(lr, first, t, N=float(N), pi=pi)


def _per_record_refinements(probs: Any, first: Any, lr: Any, t: Any) -> Any:
    """The same for a sum of independent Bernoulli(probs): the exact
    convolution of the records with 0 < pi < 1 on the atoms that reach the
    window, while its work (records x atoms) is at most REFINE_WORK."""
    ones = int(np.count_nonzero(probs == 1.0))
    live = probs[(probs > 0.0) & (probs < 1.0)]
    length = len(lr) - 1
    lo = first - ones
    if length < 2 or live.size == 0:
        return None, None, None
    i = np.arange(1, live.size + 1, dtype=np.float64)
    work = np.maximum(np.minimum(i, lo + length - 1) - np.maximum(0, lo - live.size + i) + 1, 0)
    if work.sum() > REFINE_WORK:
        return None, None, None
    return _thr.thr_refine(lr, first, t, p=live, lo=lo)


def _iid_law(N: Any, pi: Any) -> Any:
    """(first, ln pmf on the window, log ratios, log_rest) of Bin(N, pi):
    the whole support up to FULL_SUPPORT atoms, else the atoms within
    DROP_NATS of the largest (the rest bounded by unimodality); the log
    ratios ln b(k-1)/b(k) = ln(k (1-pi) / ((N-k+1) pi)) in closed form."""
    if N == 0 or not 0.0 < pi < 1.0:
        return _point_law(N if pi == 1.0 else 0)
    if N + 1 <= FULL_SUPPORT:
        first, last, log_rest = 0, N, -math.inf
    else:
        def log_pmf(j: Any) -> Any:
            return float(_law_kernels.log_binom_pmf(float(N), pi, np.array([float(j)]))[0])

        mode = min(max(math.floor((N + 1) * pi), 0), N)
        first, last, log_rest = windows.unimodal_window(log_pmf, 0, N, mode, DROP_NATS)
    windows.check_support(last - first + 1, "n")
    lz = np.asarray(windows.binomial_log_pmf(N, pi, first, last), dtype=np.longdouble)
    return first, lz, _thr.binomial_log_ratios(N, pi, first, last), log_rest


def _per_record_law(probs: Any) -> Any:
    """The same for a sum of independent Bernoulli(probs): the records with
    pi = 1 shift it, the others (0 < pi < 1) are convolved exactly
    (statpriv.counting's product tree, its trimmed mass bounded); the log
    ratios are differences of the extended-precision logs."""
    ones = int(np.count_nonzero(probs == 1.0))
    live = probs[(probs > 0.0) & (probs < 1.0)]
    if live.size == 0:
        return _point_law(ones)
    first, lz, log_rest = _per_record.poisson_binomial_window(live)
    lz = np.asarray(lz, dtype=np.longdouble)
    keep = np.flatnonzero(np.isfinite(lz))
    lz = lz[keep[0]:keep[-1] + 1]
    first += int(keep[0])
    lr = np.concatenate(([-np.inf], lz[:-1] - lz[1:], [np.inf])).astype(np.longdouble)
    return ones + first, lz, lr, log_rest


def _point_law(at: Any) -> Any:
    """The point mass at ``at`` (a known count)."""
    return (at, np.zeros(1, dtype=np.longdouble),
            np.array([-np.inf, np.inf], dtype=np.longdouble), -math.inf)


def _support_range(probs: Any) -> Any:
    """(smallest, largest) possible count of independent Bernoulli(probs)."""
    ones = int(np.count_nonzero(probs == 1.0))
    return ones, ones + int(np.count_nonzero((probs > 0.0) & (probs < 1.0)))
