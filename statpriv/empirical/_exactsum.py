"""Correctly rounded per-group sums, independent of the order of the terms.

The per-database totals S_r feed the query values q and, through the
bandwidth rule, every delta_i; the in-memory path and the Dask path (which
sums partition by partition, in any order) must agree on them bit for bit.
So both sum exactly and round once:

    x = m 2^e (numpy.frexp), M = m 2^53 an integer (|M| < 2^53),
    M = H 2^26 + L   with 0 <= L < 2^26,  |H| <= 2^27.

Per (group, e), the sums of H and of L are sums of integers below 2^27 in
absolute value: exact in float64 while a (group, e) cell holds fewer than
2^26 terms (any summation order -- numpy, pandas, a Dask tree reduction).
The cells are then combined exactly in int64 limbs of 24 bits, vectorised
over all groups (see combine), and each group's total is rounded once to the
nearest double.
"""
from typing import Any
import numpy as np

__all__ = ["split", "combine", "group_sums", "MAX_CELL_TERMS"]

MAX_CELL_TERMS = 1 << 26
_SHIFT = 1126          # 2^-1126 is below the exponent of every M 2^(e-53)


def split(values: Any) -> Any:
    """(e, H, L) per value: x = (H 2^26 + L) 2^(e - 53), H and L as float64
    integers (|H| <= 2^27, 0 <= L < 2^26)."""
    values = np.asarray(values, dtype=np.float64)
    m, e = np.frexp(values)
    mant = (m * 2.0 ** 53).astype(np.int64)
    hi = mant >> 26
    lo = mant - (hi << 26)
    return e.astype(np.int64), hi.astype(np.float64), lo.astype(np.float64)


def combine(groups: Any, e: Any, hi_sums: Any, lo_sums: Any, n_groups: Any) -> Any:
    """Round the exact totals of every group: groups / e / hi_sums / lo_sums
    give, per (group, e) cell, the exact sums of H and L (float64 integers).
    Returns float64 (n_groups,).

    Vectorised and exact: every cell is the integer H 2^26 + L times
    2^(e - 53), i.e. two integers below 2^53 at bit positions p = e - 27 +
    _SHIFT and e - 53 + _SHIFT of a fixed-point total in units of 2^-_SHIFT.
    Their 24-bit digits, shifted by p mod 24, are cut again at 24 bits, so
    every piece added into a limb of 24 bits is below 2^24 in absolute value
    and the limb sums (np.bincount, float64) are exact integers.  The carries
    are propagated limb by limb across all groups at once, and each group's
    total is rounded once from its top four limbs (96 bits, the limbs below
    folded into a sticky half unit: x1 2^48 + (x2 + 1/2) rounds as the exact
    total does).  Totals in the subnormal range (where scaling would round a
    second time) are redone in Python integers, group by group.  Groups are
    taken in blocks of at most _BLOCK limbs in all.
    """
    groups = np.asarray(groups, dtype=np.int64)
    e = np.asarray(e, dtype=np.int64)
    hi_sums = np.asarray(hi_sums, dtype=np.float64)
    lo_sums = np.asarray(lo_sums, dtype=np.float64)
    out = np.zeros(n_groups, dtype=np.float64)
    if groups.size == 0:
        return out
    q_all = np.concatenate([e - 27, e - 53]) + _SHIFT
    q0 = int(q_all.min()) // _LIMB
    width = int(q_all.max()) // _LIMB - q0 + 3 + 5        # digits, pieces, carries
    block = max(1, _BLOCK // width)
    if block >= n_groups:
        out[:] = _combine_block(groups, e, hi_sums, lo_sums, n_groups, q0, width)
    else:
        order = np.argsort(groups, kind="stable")
        sg = groups[order]
        for g0 in range(0, n_groups, block):
            a, b = np.searchsorted(sg, [g0, g0 + block])
            idx = order[a:b]
            g1 = min(g0 + block, n_groups)
            out[g0:g1] = _combine_block(groups[idx] - g0, e[idx], hi_sums[idx], lo_sums[idx],
                                        g1 - g0, q0, width)
    tiny = np.flatnonzero((out != 0.0) & (np.abs(out) < np.finfo(np.float64).tiny))
    if tiny.size:
        out[tiny] = _combine_ints(groups, e, hi_sums, lo_sums, tiny)
    return out


_LIMB = 24
_BLOCK = 1 << 22          # limbs (groups x width) held at once


def _combine_block(groups: Any, e: Any, hi_sums: Any, lo_sums: Any, n_groups: Any, q0: Any,
                   width: Any) -> Any:
    """combine for one block of groups (limb q0 of the fixed point at column 0)."""
    big = np.concatenate([hi_sums, lo_sums]).astype(np.int64)
    pos = np.concatenate([e - 27, e - 53]) + _SHIFT
    owner = np.concatenate([groups, groups]) * width
    q, r = np.divmod(pos, _LIMB)
    q -= q0
    mask = (1 << _LIMB) - 1
    keys, pieces = [], []
    for i, d in enumerate((big & mask, (big >> _LIMB) & mask, big >> (2 * _LIMB))):
        w = d << r                                  # |w| < 2^47
        keys += [owner + q + i, owner + q + i + 1]
        pieces += [w & mask, w >> _LIMB]            # each below 2^24 in absolute value
    sums = np.bincount(np.concatenate(keys), weights=np.concatenate(pieces).astype(np.float64),
                       minlength=n_groups * width)
    limbs = sums.astype(np.int64).reshape(n_groups, width)
    _carry(limbs)
    negative = limbs[:, -1] < 0
    if negative.any():
        limbs[negative] = -limbs[negative]
        _carry(limbs)
    out = np.zeros(n_groups, dtype=np.float64)
    nonzero = limbs != 0
    live = np.flatnonzero(nonzero.any(axis=1))
    if live.size == 0:
        return out
    padded = np.concatenate([np.zeros((live.size, 4), dtype=np.int64), limbs[live]], axis=1)
    top = width - 1 - np.argmax(nonzero[live, ::-1], axis=1) + 4     # index in padded
    rows = np.arange(live.size)
    sticky = np.logical_or.accumulate(padded != 0, axis=1)[rows, top - 4]
    v = [padded[rows, top - i].astype(np.float64) for i in range(4)]
    x1 = v[0] * 2.0 ** _LIMB + v[1]             # exact: below 2^48
    x2 = v[2] * 2.0 ** _LIMB + v[3] + np.where(sticky, 0.5, 0.0)
    with np.errstate(over="ignore"):
        total = np.ldexp(x1 * 2.0 ** (2 * _LIMB) + x2, _LIMB * (top - 7 + q0) - _SHIFT)
    out[live] = np.where(negative[live], -total, total)
    return out


def _carry(limbs: Any) -> None:
    """Propagate carries so every limb but the top one is in [0, 2^_LIMB)
    (in place, one vectorised step per limb position)."""
    for j in range(limbs.shape[1] - 1):
        c = limbs[:, j] >> _LIMB
        limbs[:, j] -= c << _LIMB
        limbs[:, j + 1] += c


def _combine_ints(groups: Any, e: Any, hi_sums: Any, lo_sums: Any, which: Any) -> Any:
    """The totals of the groups ``which`` in Python integers (the subnormal
    range: int / int division rounds correctly there too)."""
    groups = np.asarray(groups)
    sel = np.isin(groups, which)
    exact = dict.fromkeys(np.asarray(which).tolist(), 0)
    for g, ex, h, l in zip(groups[sel].tolist(), np.asarray(e)[sel].tolist(),
                           np.asarray(hi_sums)[sel].tolist(), np.asarray(lo_sums)[sel].tolist()):
        exact[g] += ((int(h) << 26) + int(l)) << (ex - 53 + _SHIFT)
    scale = 1 << _SHIFT
    return np.array([exact[g] / scale for g in np.asarray(which).tolist()], dtype=np.float64)


def group_sums(codes: Any, values: Any, n_groups: Any) -> Any:
    """sum of values[codes == g] for g in 0..n_groups-1, correctly rounded."""
    codes = np.asarray(codes, dtype=np.int64)
    e, hi, lo = split(values)
    key = codes * np.int64(2400) + (e + 1200)
    cells, inverse = np.unique(key, return_inverse=True)
    inverse = inverse.ravel()
    hs = np.bincount(inverse, weights=hi, minlength=len(cells))
    ls = np.bincount(inverse, weights=lo, minlength=len(cells))
    return combine(cells // 2400, cells % 2400 - 1200, hs, ls, n_groups)
