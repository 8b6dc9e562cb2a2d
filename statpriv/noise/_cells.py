"""The generic pipeline of a count plus independent noise (docs/mathematics.md §6).

The count has laws P (target positive) and Q (target negative), given as log
pmfs on consecutive integer atoms.  The released value adds noise N, so
delta_plus(eps) = H_eps(P*N || Q*N).  No quadrature and no normal
approximation: each noise kind builds its exact evaluator in its own module
(statpriv.noise.laplace, .gaussian, .geometric: ``Noise._core``); this
module holds what they share -- trimming the atoms far below the largest
with the cut mass bounded, the zero points from the pure-DP bound or the
exact generating-function ratio, the exact tail cells, the monotone
likelihood-ratio check -- and ``core``, the one entry point
(statpriv._laws._pair_curve calls it).

Laplace(b) and geometric(alpha) noise make every count here pure DP
(|ln f_P/f_Q| <= 1/b, resp. -ln alpha; Breutigam & Reischuk Lemma 5 — each law is a
mixture of pairs shifted by one), so delta is exactly 0 from that eps on.
"""
import numpy as np

from statpriv import _lazy

_core = _lazy.module("statpriv._core")            # scipy.special: loaded on first use

# Atoms more than this many nats below the largest are cut before adding
# noise (the kernels scale atoms relative to the largest in long double,
# whose range ends near e^-11355); the mass cut is bounded and added to delta
# (statpriv._laws._pair_curve): results are exact wherever
# ln delta > ln(rest) + 28 (rest <= atoms * e^-DROP_NATS relative to the
# largest atom) and certified upper bounds below.
DROP_NATS = 11000.0
# Gaussian noise keeps every atom it is given: at large eps its positive part
# comes from the extreme atoms of the support.


def _trim_slice(lp, lq):
    keep = (lp >= np.max(lp) - DROP_NATS) | (lq >= np.max(lq) - DROP_NATS)
    idx = np.flatnonzero(keep)
    return slice(idx[0], idx[-1] + 1)


def trim(lp, lq):
    """Keep the atoms where P or Q is within DROP_NATS of its maximum."""
    sl = _trim_slice(lp, lq)
    return lp[sl], lq[sl]


def trim_bounded(lp, lq):
    """(slice, cut_p, cut_q): the slice trim() keeps and ln of the P and Q mass
    it cuts off (-inf if none), summed in log space; the caller adds the cut
    mass to delta as a bound (statpriv._laws._pair_curve)."""
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


def _log_sum(la):
    """ln sum exp(la) as a float: max + ln sum exp(la - max) (one pass of
    exp in double, unlike the sequential long double np.logaddexp.reduce:
    ~50x faster on 1e6 atoms); the caller rounds it up."""
    top = np.max(la) if la.size else -np.inf
    if not np.isfinite(top):
        return float(top)
    # float64 exps: relative error ~1e-16 |la - top|, far inside the caller's margin
    return float(top) + float(np.log(np.sum(np.exp((la - top).astype(np.float64)))))


def trim_shift(lz):
    """(lp, lq, cut, cut) for the pure shift P = Z(. - 1), Q = Z (lz: Z's log
    pmf, one atom shorter than the shift arrays): Z trimmed like trim() and
    the shift rebuilt on the window, ln of Z's cut mass (rounded up) twice."""
    lz = lz[:-1]
    sl, cut, _ = trim_bounded(lz, lz)
    z = lz[sl]
    pad = np.full(1, -np.inf, dtype=z.dtype)
    return np.concatenate((pad, z)), np.concatenate((z, pad)), cut, cut


def zero_points(noise, tail_ratio=None):
    """(zero_plus, zero_minus): floats at or above sup ln f_P/f_Q (resp.
    f_Q/f_P) of the FULL count laws plus this noise, whatever was cut: the
    exact ln G_P(w)/G_Q(w) rounded up where the generating-function ratio is
    known (see core; w from ``noise._tail_w``), else the pure-DP bound (1/b
    for Laplace, -ln alpha for geometric; Breutigam & Reischuk Lemma 5)
    rounded up; inf for noise without one (Gaussian)."""
    if noise._tail_w is None:
        return np.inf, np.inf
    bound = _core.zero_point_up(noise.kind, noise.param)
    if tail_ratio is None:
        return bound, bound
    import mpmath
    from statpriv._laws import _float_up
    with mpmath.workdps(40):
        w = noise._tail_w(mpmath.mpf(noise.param))
        plus = _float_up(mpmath.log(tail_ratio(w)))
        minus = _float_up(-mpmath.log(tail_ratio(1 / w)))
    return min(plus, bound), min(minus, bound)


def max_log_ratio(noise):
    """A proven bound on |ln f_P/f_Q| of any count plus this noise (1/b for
    Laplace, -ln alpha for geometric, inf for Gaussian): delta is 0 from there on."""
    return zero_points(noise)[0]


def core(lp, lq, noise, monotone_ratio, tail_ratio=None, log_ratio=None, log_ratio_lo=None):
    """C evaluator for count laws (lp, lq) plus ``noise``.

    monotone_ratio: P is Q shifted by one (no sampling); kept for callers.
    The Gaussian path decides on its own: it solves for one crossing when
    P/Q is non-decreasing on the atoms (checked here, up to rounding), since
    the Gaussian location kernel is TP2 and preserves the monotone likelihood
    ratio for every sigma (Karlin), and scans a grid otherwise.  It keeps
    every atom it is given (at large eps the extreme atoms dominate).

    tail_ratio: optional callable w -> G_P(w)/G_Q(w), the exact ratio of the
    laws' generating functions (statpriv._laws._Laws).  Beyond the last
    atom the noisy densities' ratio is constant, G_P(w)/G_Q(w) with
    w = e^(1/b) (Laplace) or 1/alpha (geometric), and before the first atom
    the same at 1/w; every count law here has a monotone ratio, which the
    log-concave Laplace and geometric kernels preserve, so these are the
    extreme ratios: the exact zero points of delta_plus and delta_minus.
    They are set on the tail cells in double-double, so delta keeps its
    relative accuracy up to the float just below the zero point.

    log_ratio: optional accurate ln P/Q of the count laws (closed forms);
    log_ratio_lo: its low parts (Gaussian noise uses both for D = P - e^eps Q).
    With geometric noise it gives the difference law D = P - Q = Q expm1(lr)
    accurately, and the cells' log ratios as log1p((D*N)/(Q*N)): where P and
    Q nearly agree (tiny sampling rates) that keeps the relative accuracy
    that a difference of two cell logs loses.
    """
    lp, lq = np.asarray(lp, dtype=np.longdouble), np.asarray(lq, dtype=np.longdouble)
    return noise._core(lp, lq, monotone_ratio, tail_ratio, log_ratio, log_ratio_lo)


def trim_laws(lp, lq, lr, lr_lo):
    """(lp, lq, lr, lr_lo, cut_p, cut_q): the laws on the atoms trim() keeps
    (lr, lr_lo sliced alike; lr_lo may be None) and ln of the cut masses
    (trim_bounded): the default ``Noise._trim`` of the kinds whose cells
    scale atoms linearly."""
    tsl, cut_p, cut_q = trim_bounded(lp, lq)
    lp, lq, lr = lp[tsl], lq[tsl], lr[tsl]
    if lr_lo is not None:
        lr_lo = lr_lo[tsl]
    return lp, lq, lr, lr_lo, cut_p, cut_q


def trimmed_ratios(lp, lq, log_ratio, log_ratio_lo):
    """The laws for a cell builder that scales atoms linearly (Laplace,
    geometric): the atoms trim() keeps, with the accurate law ratio if any.

    Returns (lp, lq, log_ratio, law_lr, law_lo, atom_log_ratio): law_lr /
    law_lo the trimmed ln P/Q and its low parts (None if not given),
    atom_log_ratio = law_lr, and log_ratio = law_lr only where P and Q are
    close (total variation < 1/4: cancellation to avoid), else None.
    """
    sl = _trim_slice(lp, lq)
    lp, lq = lp[sl], lq[sl]
    law_lr = law_lo = atom_log_ratio = None
    if log_ratio is not None:
        log_ratio = np.asarray(log_ratio, dtype=np.longdouble)[sl]
        law_lr = atom_log_ratio = log_ratio
        if log_ratio_lo is not None:
            law_lo = np.asarray(log_ratio_lo, dtype=np.longdouble)[sl]
        with np.errstate(invalid="ignore"):
            # doubles suffice for a threshold (and exp of long doubles is
            # slow); in place: two temporaries (first touches are slow)
            a, b = lp.astype(np.float64), lq.astype(np.float64)
            np.exp(a, out=a)
            np.exp(b, out=b)
            np.subtract(a, b, out=a)
            tv = np.sum(np.abs(a, out=a))
        if not tv < 0.25:
            log_ratio = None        # P and Q far apart: no cancellation to avoid
    return lp, lq, log_ratio, law_lr, law_lo, atom_log_ratio


def _is_shift(lp, lq):
    """P is Q shifted by one atom (no sampling): lp[k] = lq[k-1] exactly."""
    return (len(lp) >= 2 and lp[0] == -np.inf and lq[-1] == -np.inf
            and np.array_equal(lp[1:], lq[:-1]))


def exact_tails(lr, tail_ratio, tail_w, param, cells):
    """Overwrite lr on the tail cells with the exact ln G_P(w)/G_Q(w) as
    hi + lo (returns the lo array, or None).  cells = (left cells, right
    cells).  Skipped where the computed cell ratio disagrees by more than
    1e-12 (the laws were trimmed to a window that changes the tail)."""
    if tail_ratio is None:
        return None, ()
    import mpmath
    from statpriv._laws import _mpf_exact
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
                    lo[j] = float(value - _mpf_exact(hi))
                sides.append(side)
    return (lo, tuple(sides)) if sides else (None, ())


def _two_sum(a, b):
    """(s, e): s = fl(a + b) and its exact rounding error (long double arrays)."""
    total = a + b
    bb = total - a
    return total, (a - (total - bb)) + (b - bb)


def monotone_likelihood_ratio(lp, lq):
    """ln P(k) - ln Q(k) is non-decreasing over the atoms where P + Q > 0
    (-inf where P = 0, +inf where Q = 0), up to the rounding of the logs."""
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


def _log_ratio(lp, lq):
    with np.errstate(invalid="ignore"):
        lr = lp - lq
    lr[np.isnan(lr)] = 0.0     # both zero: the cell contributes nothing either way
    return lr
