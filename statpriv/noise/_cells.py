"""The generic pipeline of a count plus independent noise (docs/mathematics.md §6).

The count has laws P (target positive) and Q (target negative), given as log
pmfs on consecutive integer atoms.  The released value adds noise N, so
delta_plus(eps) = H_eps(P*N || Q*N).  No quadrature and no normal
approximation: each noise kind builds its exact evaluator in its own module
(statpriv.noise.laplace, .gaussian, .geometric: ``Noise._core``, called
by ``Noise.curve``); this module holds what they share -- trimming the atoms
far below the largest with the cut mass bounded, the exact tail cells, the
ratio forms near the tails, the monotone likelihood-ratio check.

Laplace(b) and geometric(alpha) noise make every count here pure DP
(|ln f_P/f_Q| <= 1/b, resp. -ln alpha; Breutigam & Reischuk Lemma 5 — each law is a
mixture of pairs shifted by one), so delta is exactly 0 from that eps on.
"""
from typing import Any

import numpy as np

from statpriv import _lazy, _xprec
from statpriv.laws import windows

_law_kernels = _lazy.module("statpriv.laws._kernels")

# Atoms more than windows.DROP_NATS below the largest are cut before adding
# Laplace or geometric noise (the kernels scale atoms relative to the largest
# in long double, whose range ends near e^-11355); the mass cut is bounded
# and added to delta (Noise.curve).  Gaussian noise keeps every atom it is
# given: at large eps its positive part comes from the extreme atoms.


def _largest(la: Any) -> Any:
    """np.max(la) (NaN if any), by argmax: ~3x faster on long doubles."""
    return la[np.argmax(la)]


def _trim_slice(lp: Any, lq: Any) -> Any:
    drop = windows.DROP_NATS
    keep = lp >= _largest(lp) - drop
    if lq is not lp:
        keep |= lq >= _largest(lq) - drop
    # the first and last kept atoms (argmax: the first True), without the
    # index array of every kept atom
    return slice(int(np.argmax(keep)), len(keep) - int(np.argmax(keep[::-1])))


def trim(laws: Any) -> Any:
    """The laws (statpriv.laws.Laws) on the atoms where P or Q is within
    DROP_NATS of its maximum, ln of the P and Q mass cut (trim_bounded)
    added to their rests: ``Noise._trim`` of the kinds whose cells scale
    atoms linearly."""
    sl, cut_p, cut_q = trim_bounded(laws.log_p, laws.log_q)
    return laws.with_cut(sl, cut_p, cut_q)


def trim_bounded(lp: Any, lq: Any) -> Any:
    """(slice, cut_p, cut_q): the slice trim() keeps and ln of the P and Q mass
    it cuts off (-inf if none), summed in log space; the caller adds the cut
    mass to delta as a bound (Noise.curve)."""
    sl = _trim_slice(lp, lq)
    outside = np.concatenate((np.arange(0, sl.start), np.arange(sl.stop, len(lp))))
    if outside.size == 0:
        return sl, -np.inf, -np.inf
    cuts = []
    for la in (lp, lq):
        c = _log_sum(la[outside])
        # the sum is rounded: move it up by far more than its error
        cuts.append(c + 1e-9 * (1.0 + abs(c)) if c > -np.inf else c)
    return sl, cuts[0], cuts[1]


def _log_sum(la: Any) -> Any:
    """ln sum exp(la) as a float: max + ln sum exp(la - max) (one pass of
    exp in double, unlike the sequential long double np.logaddexp.reduce:
    ~50x faster on 1e6 atoms); the caller rounds it up."""
    top = np.max(la) if la.size else -np.inf
    if not np.isfinite(top):
        return float(top)
    # float64 exps: relative error ~1e-16 |la - top|, far inside the caller's margin
    return float(top) + float(np.log(np.sum(np.exp((la - top).astype(np.float64)))))


def trim_shift(lz: Any, shift: Any = None) -> Any:
    """(lp, lq, cut, cut) for the pure shift P = Z(. - 1), Q = Z (lz: Q's log
    pmf, Z's plus a last -inf atom): Z trimmed like trim() and the shift
    rebuilt on the window, ln of Z's cut mass (rounded up) twice.  shift:
    the arrays (lp, lq) themselves, returned as they are if nothing is cut."""
    lz = lz[:-1]
    sl, cut, _ = trim_bounded(lz, lz)
    if sl.start == 0 and sl.stop == len(lz) and shift is not None:
        return shift[0], shift[1], cut, cut      # nothing cut: the shift as given
    z = lz[sl]
    pad = np.full(1, -np.inf, dtype=z.dtype)
    return np.concatenate((pad, z)), np.concatenate((z, pad)), cut, cut


def close_ratios(lp: Any, lq: Any, log_ratio: Any, log_ratio_lo: Any) -> Any:
    """The law ratio for a cell builder that scales atoms linearly (Laplace,
    geometric), on trimmed laws: (log_ratio, law_lr, law_lo, atom_log_ratio)
    with law_lr / law_lo ln P/Q and its low parts (None if not given),
    atom_log_ratio = law_lr, and log_ratio = law_lr only where P and Q are
    close (total variation < 1/4: cancellation to avoid), else None."""
    law_lr = law_lo = atom_log_ratio = None
    if log_ratio is not None:
        log_ratio = np.asarray(log_ratio, dtype=np.longdouble)
        law_lr = atom_log_ratio = log_ratio
        if log_ratio_lo is not None:
            law_lo = np.asarray(log_ratio_lo, dtype=np.longdouble)
        tv = _total_variation(lp, lq)
        if not tv < 0.25:
            log_ratio = None        # P and Q far apart: no cancellation to avoid
    return log_ratio, law_lr, law_lo, atom_log_ratio


def _total_variation(lp: Any, lq: Any, chunk: Any = 1 << 16) -> Any:
    """sum |P - Q| in doubles (enough for a threshold, and exp of long
    doubles is slow), in chunks: no full-length temporaries."""
    tv = 0.0
    with np.errstate(invalid="ignore"):
        for start in range(0, len(lp), chunk):
            p = np.exp(lp[start:start + chunk].astype(np.float64))
            p -= np.exp(lq[start:start + chunk].astype(np.float64))
            tv += float(np.sum(np.abs(p, out=p)))
    return tv


def is_shift(lp: Any, lq: Any) -> Any:
    """P is Q shifted by one atom (no sampling): lp[k] = lq[k-1] exactly."""
    return (len(lp) >= 2 and lp[0] == -np.inf and lq[-1] == -np.inf
            and np.array_equal(lp[1:], lq[:-1]))


def exact_tails(lr: Any, tail_ratio: Any, tail_w: Any, param: Any, cells: Any) -> Any:
    """Overwrite lr on the tail cells with the exact ln G_P(w)/G_Q(w) as
    hi + lo (returns the lo array, or None).  cells = (left cells, right
    cells).  Skipped where the computed cell ratio disagrees by more than
    1e-12 (the laws were trimmed to a window that changes the tail)."""
    if tail_ratio is None:
        return None, ()
    import mpmath
    lo = np.zeros(len(lr), dtype=np.longdouble)
    sides = []
    with mpmath.workdps(40):
        p = mpmath.mpf(param)
        w_right = tail_w(p)
        for side, w, group in ((0, 1 / w_right, cells[0]), (1, w_right, cells[1])):
            value = mpmath.log(tail_ratio(w))
            hi = np.longdouble(mpmath.nstr(value, 25, strip_zeros=False))
            if all(abs(lr[j] - hi) <= 1e-12 * max(1.0, abs(float(value))) for j in group):
                for j in group:
                    lr[j] = hi
                    lo[j] = float(value - _xprec.mpf_exact(hi))
                sides.append(side)
    return (lo, tuple(sides)) if sides else (None, ())


def monotone_likelihood_ratio(lp: Any, lq: Any) -> Any:
    """ln P(k) - ln Q(k) is non-decreasing over the atoms where P + Q > 0
    (-inf where P = 0, +inf where Q = 0), up to the rounding of the logs:
    for long double laws in one pass (statpriv.laws._kernels), else as
    monotone_likelihood_ratio_numpy."""
    if np.asarray(lp).dtype == np.longdouble and np.asarray(lq).dtype == np.longdouble:
        return bool(_law_kernels.monotone_likelihood_ratio(lp, lq))
    return monotone_likelihood_ratio_numpy(lp, lq)


def monotone_likelihood_ratio_numpy(lp: Any, lq: Any) -> Any:
    """monotone_likelihood_ratio in numpy (any float dtype): -inf ratios only
    before, +inf only after the finite ones, and each finite ratio at least
    the previous one minus the larger tolerance 1e-12 (1 + |ln P| + |ln Q|)."""
    live = np.isfinite(lp) | np.isfinite(lq)
    lp, lq = lp[live], lq[live]
    if lp.size < 2:
        return True
    with np.errstate(invalid="ignore"):
        lr = lp - lq
    finite = np.isfinite(lr)
    # -inf (P = 0) only before, +inf (Q = 0) only after the finite ratios
    neg, pos = np.flatnonzero(lr == -np.inf), np.flatnonzero(lr == np.inf)
    fin = np.flatnonzero(finite)
    if fin.size and ((neg.size and neg[-1] > fin[0]) or (pos.size and pos[0] < fin[-1])):
        return False
    if neg.size and pos.size and neg[-1] > pos[0]:
        return False
    r = lr[finite]
    tol = 1e-12 * (1.0 + np.abs(lp[finite]) + np.abs(lq[finite]))
    return bool(np.all(np.diff(r) >= -np.maximum(tol[1:], tol[:-1])))


def _log_ratio(lp: Any, lq: Any) -> Any:
    with np.errstate(invalid="ignore"):
        lr = lp - lq
    lr[np.isnan(lr)] = 0.0     # both zero: the cell contributes nothing either way
    return lr
