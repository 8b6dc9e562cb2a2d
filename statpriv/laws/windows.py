"""Windows of the count laws: the atoms where the mass matters, the rest bounded.

A law on a huge support (Bin(1e9, pi) has 1e9 + 1 atoms) is evaluated on a
window of it: the atoms within a drop D nats of the largest.  Unimodality
bounds every atom left out by the window's edge atoms, so the mass outside
is bounded from above (``log_rest``) and added to delta (Laws.log_rest_p /
log_rest_q): never dropped.  One policy (``window``) serves every array path;
windows are found before anything is allocated (O(log n) pmf calls) and a
window larger than MAX_SUPPORT atoms is refused up front with its cost.
"""
import math
from typing import Any

import numpy as np

from statpriv import _lazy

_core = _lazy.module("statpriv._core")            # scipy.special: loaded on first use
_law_kernels = _lazy.module("statpriv.laws._kernels")

# Atoms more than this many nats below the largest are cut where the atoms go
# to linear long double scale (noise cells, privacy-loss distributions: the
# long double range ends near e^-11355); the mass cut is bounded and added to
# delta: results are exact wherever ln delta > ln(rest) + 28 (rest <= atoms *
# e^-DROP_NATS relative to the largest atom) and certified upper bounds below.
DROP_NATS = 11000.0
# Pair curves take the FULL support (nothing bounded) up to FULL_SUPPORT atoms;
# larger supports are cut to the atoms within a drop D of the largest -- the
# deepest D = DROP_NATS * 2^k whose window fits in WINDOW_BUDGET atoms, at most
# 64 DROP_NATS without noise (the kernels work on logs) and DROP_NATS with
# noise (atoms go to linear long double scale), at least DROP_NATS / 4 -- and
# the mass left out is bounded and added to delta (statpriv.laws.pair).
FULL_SUPPORT = 1_000_000
WINDOW_BUDGET = 1_000_000
# Largest window (atoms where the laws' mass matters) the array paths
# allocate.  Windows are found before anything is allocated (O(log n)) and a
# larger one is refused with a ValueError that says what it would cost.
MAX_SUPPORT = 4_000_000
# Peak bytes per window atom (working arrays in extended precision, noise
# cells included), measured by bench/bench_cost.py; for the error message.
BYTES_PER_ATOM = 300


def unimodal_window(log_pmf: Any, lo: Any, hi: Any, mode: Any, drop: Any) -> Any:
    """Window [first, last] of a unimodal law on lo..hi with maximum at ``mode``:
    the atoms with ln pmf >= ln pmf(mode) - drop, found by bisection on each
    side (O(log(hi - lo)) calls of ``log_pmf(k) -> float``).

    Returns (first, last, log_rest), e^log_rest >= the mass outside the window:
    unimodality bounds every atom left of first by pmf(first - 1) and every
    atom right of last by pmf(last + 1), so the rest is at most
    (first - lo) pmf(first - 1) + (hi - last) pmf(last + 1) (doubled against
    the pmf's own rounding).
    """
    floor = log_pmf(mode) - drop
    a, b = lo, mode                       # first k in [lo, mode] above the floor
    while a < b:
        mid = (a + b) // 2
        a, b = (a, mid) if log_pmf(mid) >= floor else (mid + 1, b)
    first = a
    a, b = mode, hi                       # last k in [mode, hi] above the floor
    while a < b:
        mid = (a + b + 1) // 2
        a, b = (mid, b) if log_pmf(mid) >= floor else (a, mid - 1)
    last = a
    parts = [-math.inf]
    if first > lo:
        parts.append(math.log(first - lo) + log_pmf(first - 1))
    if last < hi:
        parts.append(math.log(hi - last) + log_pmf(last + 1))
    log_rest = float(np.logaddexp.reduce(parts))
    return first, last, (log_rest + math.log(2.0) if log_rest > -math.inf else log_rest)


def window(log_pmf: Any, lo: Any, hi: Any, mode: Any, noisy_path: Any) -> Any:
    """The one window policy of every array path: (first, last, log_rest).

    The full support lo..hi if it has at most FULL_SUPPORT atoms (log_rest
    = -inf: exact everywhere; with noise, the noise then trims at DROP_NATS).
    Else the atoms within D = DROP_NATS * 2^k nats of the largest, for the
    largest k whose window fits in WINDOW_BUDGET atoms: k = 6..-2 without
    noise (the pair kernels work on logs, no underflow: D up to 704000),
    k = 0..-2 with noise (atoms go to linear scale relative to the largest:
    D <= DROP_NATS); D = DROP_NATS / 4 if none fits.
    A window wider than MAX_SUPPORT is refused by the caller (check_support).
    """
    if hi - lo + 1 <= FULL_SUPPORT:
        return lo, hi, -math.inf
    top = 0 if noisy_path else 6
    for d in (DROP_NATS * 2.0 ** k for k in range(top, -3, -1)):
        found = unimodal_window(log_pmf, lo, hi, mode, d)
        if found[1] - found[0] + 1 <= WINDOW_BUDGET:
            return found
    return found


def binomial_window(N: Any, pi: Any, noisy_path: Any, drop: Any = None) -> Any:
    """(first, last, log_rest): the window of Bin(N, pi) (see window).

    drop: a path that trims the atoms more than this many nats below the
    largest anyway (Laplace and geometric noise; the privacy-loss
    distribution) cuts the window there up front, the rest bounded by
    unimodality (unimodal_window), instead of building the full support
    first (at n = 1e6 that is 1e6 atoms of which ~14% are kept)."""
    def log_pmf(k: Any) -> Any:
        return float(_law_kernels.log_binom_pmf(float(N), pi, np.array([float(k)]))[0])

    mode = min(max(math.floor((N + 1) * pi), 0), N)
    first, last, log_rest = window(log_pmf, 0, N, mode, noisy_path)
    if drop is not None and log_rest == -math.inf and 0.0 < pi < 1.0 and last - first > 4096:
        first, last, log_rest = unimodal_window(log_pmf, first, last, mode, drop)
    return first, last, log_rest


def binomial_log_pmf(N: Any, pi: Any, first: Any, last: Any, out: Any = None) -> Any:
    """ln Bin(N, pi) on first..last; in extended precision with neighbours
    consistent to ~1e-19 for 0 < pi < 1 (see statpriv.laws._kernels.binom_window_logl).
    out: a contiguous long double array of last - first + 1 atoms to write
    into (e.g. a view of a larger buffer), returned."""
    if 0.0 < pi < 1.0:
        return _law_kernels.binom_window_logl(float(N), pi, first, last - first + 1, out=out)
    values = _law_kernels.log_binom_pmf(float(N), pi, np.arange(first, last + 1, dtype=np.float64))
    if out is None:
        return values
    out[...] = values
    return out


def check_support(size: Any, what: Any) -> None:
    """Refuse a window of more than MAX_SUPPORT atoms, before allocating it."""
    if size > MAX_SUPPORT:
        raise ValueError(
            f"the laws' window where the mass matters (within {DROP_NATS / 4:g} nats "
            f"of the largest atom at least) holds {size:,} atoms, about "
            f"{size * BYTES_PER_ATOM / 2**30:.1f} GiB of working arrays; the limit is "
            f"{MAX_SUPPORT:,} atoms (statpriv.laws.windows.MAX_SUPPORT).  The window grows like "
            f"sqrt(variance of the count): use a smaller {what}")
