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
The cells are then combined in Python integers (exact) and each group's total
is rounded once to the nearest double (Python's int / int division is
correctly rounded).
"""
import numpy as np

__all__ = ["split", "combine", "group_sums", "MAX_CELL_TERMS"]

MAX_CELL_TERMS = 1 << 26
_SHIFT = 1126          # 2^-1126 is below the exponent of every M 2^(e-53)


def split(values):
    """(e, H, L) per value: x = (H 2^26 + L) 2^(e - 53), H and L as float64
    integers (|H| <= 2^27, 0 <= L < 2^26)."""
    values = np.asarray(values, dtype=np.float64)
    m, e = np.frexp(values)
    mant = (m * 2.0 ** 53).astype(np.int64)
    hi = mant >> 26
    lo = mant - (hi << 26)
    return e.astype(np.int64), hi.astype(np.float64), lo.astype(np.float64)


def combine(groups, e, hi_sums, lo_sums, n_groups):
    """Round the exact totals of every group: groups / e / hi_sums / lo_sums
    give, per (group, e) cell, the exact sums of H and L (float64 integers).
    Returns float64 (n_groups,)."""
    exact = [0] * n_groups
    for g, ex, h, l in zip(np.asarray(groups).tolist(), np.asarray(e).tolist(),
                           np.asarray(hi_sums).tolist(), np.asarray(lo_sums).tolist()):
        exact[g] += ((int(h) << 26) + int(l)) << (ex - 53 + _SHIFT)
    scale = 1 << _SHIFT
    return np.array([t / scale for t in exact], dtype=np.float64)


def group_sums(codes, values, n_groups):
    """sum of values[codes == g] for g in 0..n_groups-1, correctly rounded."""
    codes = np.asarray(codes, dtype=np.int64)
    e, hi, lo = split(values)
    key = codes * np.int64(2400) + (e + 1200)
    cells, inverse = np.unique(key, return_inverse=True)
    inverse = inverse.ravel()
    hs = np.bincount(inverse, weights=hi, minlength=len(cells))
    ls = np.bincount(inverse, weights=lo, minlength=len(cells))
    return combine(cells // 2400, cells % 2400 - 1200, hs, ls, n_groups)
