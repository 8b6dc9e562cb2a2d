"""Log ratios refined beyond extended precision where the curve needs them.

delta keeps its relative accuracy up to a zero point only if ln P/Q is known
there to far more than a long double's 64 bits (delta reaches 0 linearly in
ln P/Q - eps).  The mechanisms give a closed form of ln P(j)/Q(j); this module
evaluates it in mpmath (40 digits) on the cells that need it and stores the
low parts (Laws.log_ratio_lo), and bounds the ratio over the full support
(Laws.log_ratio_max / log_ratio_min) from the closed form at its extreme atoms.
"""
from typing import Any

import numpy as np

from statpriv import _xprec

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
    finite = np.isfinite(lr) & (np.isfinite(lp) | np.isfinite(lq))
    if not finite.any():
        return lo
    # The selection is a heuristic on magnitudes: float64 is enough for it
    # (a gap that rounds to 0 only selects the cell).
    # (in place where possible: every fresh full-size temporary costs its
    # first-touch page faults, more than the arithmetic)
    lpf, lqf = lp.astype(np.float64), lq.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        log_err = np.log(np.asarray(err, dtype=np.float64))
        # ln(1 - e^(lr_j - lr_{j+1})), the difference taken in extended
        # precision and rounded straight into doubles (no long double temporary)
        log_gap = np.subtract(lr[1:], lr[:-1], out=np.empty(n - 1), casting="same_kind")
        np.negative(log_gap, out=log_gap)
        np.expm1(log_gap, out=log_gap)
        np.negative(log_gap, out=log_gap)
        np.log(log_gap, out=log_gap)
        up = log_err[:-1] + lpf[:-1]
        up -= lpf[1:]
        up -= log_gap
        down = np.add(log_err[1:], lqf[1:], out=log_err[1:])
        down -= lqf[:-1]
        down -= log_gap
    need = np.full(n, -np.inf)
    np.fmax(need[:-1], up, out=need[:-1])
    np.fmax(need[1:], down, out=need[1:])
    # Where delta underflows, the promise is on ln delta: 1e-10 absolute or
    # 8 ulps of |ln delta|, so cells that deep need correspondingly less.
    depth = np.fmin(lpf, lqf, out=lpf)
    log_tol = np.abs(depth, out=lqf)
    log_tol *= 1e-16
    np.fmax(1e-11, log_tol, out=log_tol)
    np.log(log_tol, out=log_tol)
    log_tol[depth > -700.0] = np.log(1e-14)
    candidates = np.flatnonzero(finite & (need > log_tol))
    if len(candidates) > MAX_REFINED:
        candidates = candidates[np.argpartition(-need[candidates], MAX_REFINED)[:MAX_REFINED]]
    cells = set(candidates.tolist())
    idx = np.flatnonzero(finite)
    cells.update((int(idx[0]), int(idx[-1])))
    with mpmath.workdps(40):
        for j in sorted(cells):
            value = exact(j)
            if mpmath.isfinite(value):
                lo[j] = float(value - _xprec.mpf_exact(lr[j]))
    return lo

