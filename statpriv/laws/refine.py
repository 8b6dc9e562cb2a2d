"""Log ratios refined beyond extended precision where the curve needs them.

delta keeps its relative accuracy up to a zero point only if ln P/Q is known
there to far more than a long double's 64 bits (delta reaches 0 linearly in
ln P/Q - eps).  The mechanisms give a closed form of ln P(j)/Q(j); this module
evaluates it in mpmath (40 digits) on the cells that need it and stores the
low parts (Laws.log_ratio_lo), and bounds the ratio over the full support
(Laws.log_ratio_max / log_ratio_min) from the closed form at its extreme atoms.
"""
from typing import Any, Set

import numpy as np

from statpriv import _lazy, _xprec

_law_kernels = _lazy.module("statpriv.laws._kernels")

# Cells whose log ratio is refined in higher precision, at most, per curve.
MAX_REFINED = 1024


def rest_ratio_bounds(exact: Any, j_lo: Any, j_hi: Any) -> Any:
    """(log_ratio_max, log_ratio_min) for Laws: the closed-form ln P(j)/Q(j)
    (mpmath, ``exact(j)`` at absolute atoms j), increasing in j, at the
    extreme atoms j_lo, j_hi of the FULL support, rounded outward to doubles
    -- so that log_ratio_max is the smallest double with delta_plus = 0 on
    the true curve."""
    import mpmath
    with mpmath.workdps(40):
        return _xprec.float_up(exact(j_hi)), -_xprec.float_up(-exact(j_lo))


def refine_log_ratio(lp: Any, lq: Any, lr: Any, err: Any, exact: Any) -> Any:
    """Low parts lr_lo with lr + lr_lo = ln P/Q to ~1e-30 on the cells that need it.

    delta(eps) = sum_j P(j) (1 - e^(eps - lr_j))_+ .  An error e_j in lr_j
    moves delta by up to P(j) e_j, while just below eps = lr_j delta is at
    least P(j+1) (1 - e^(lr_j - lr_{j+1})) (the next cell's term, lr
    increasing) -- so a cell needs more than its extended-precision lr where
    P(j) e_j exceeds 1e-14 of that (likewise Q and j-1 for delta_minus; deep
    in the tails, where delta underflows, the tolerance on ln delta), and
    always at the zero points (the extreme cells), where delta -> 0 linearly
    in lr - eps.  ``err``: a bound on |lr error| per cell; ``exact(j)``: the
    closed-form ln P(j)/Q(j) as an mpmath number.  At most MAX_REFINED cells
    (the neediest) are refined.
    """
    import mpmath
    n = len(lr)
    lo = np.zeros(n, dtype=np.longdouble)
    # One pass over the cells (statpriv.laws._kernels.refine_candidates): the
    # selection is a heuristic on magnitudes, so float64 is enough for it (a
    # gap that rounds to 0 only selects the cell) -- ln of the gap factor
    # 1 - e^(lr_j - lr_{j+1}), need = the larger of ln(P(j) e_j) and
    # ln(Q(j+1) e_{j+1}) over that of the neighbouring cell's term, against
    # ln 1e-14.  Where delta underflows (min(ln P, ln Q) <= -700) the promise
    # is on ln delta: 1e-10 absolute or 8 ulps of |ln delta|, so cells that
    # deep need correspondingly less (tolerance max(1e-11, 1e-16 |ln P|)).
    candidates, need, first, last = _law_kernels.refine_candidates(
        lp, lq, lr, err, -700.0, float(np.log(1e-14)))
    if first < 0:
        return lo
    if len(candidates) > MAX_REFINED:
        np.negative(need, out=need)                 # (its own array: no copy)
        top = np.argpartition(need, MAX_REFINED)[:MAX_REFINED]
        candidates = (top + candidates.start if isinstance(candidates, range)
                      else candidates[top])
    cells = set(candidates.tolist() if isinstance(candidates, np.ndarray) else candidates)
    cells.update((first, last))
    with mpmath.workdps(40):
        for j in sorted(cells):
            value = exact(j)
            if mpmath.isfinite(value):
                lo[j] = _xprec.low_part(value - _xprec.mpf_exact(lr[j]))
    return lo



def refine_extremes(lr: Any, lr_lo: Any, exact: Any) -> None:
    """Low parts, in place in ``lr_lo``, of the cells at the extreme log
    ratios and of every cell tied with them up to the rounding of ``lr``
    (at most MAX_REFINED each): the zero points are the extreme ratios
    wherever they sit (the ratio need not be monotone), and delta reaches 0
    there linearly in ln P/Q - eps.  ``exact(i)``: ln P/Q of cell i as an
    mpmath number at the caller's precision."""
    finite = np.flatnonzero(np.isfinite(lr))
    if not finite.size:
        return
    vals = lr[finite].astype(np.float64)
    cells: Set[int] = set()
    for top in (vals.max(), vals.min()):
        tied = finite[np.abs(vals - top) <= 1e-15 * (1.0 + abs(top))]
        cells.update(int(i) for i in tied[:MAX_REFINED])
    for i in sorted(cells):
        lr_lo[i] = _xprec.low_part(exact(i) - _xprec.mpf_exact(lr[i]))
