"""The law-pair machinery shared by every count mechanism.

A mechanism reduces to two laws on consecutive integer atoms, P (the target
record has the property) and Q (it has not), with delta_plus(eps) =
H_eps(P||Q) and delta_minus(eps) = H_eps(Q||P) (Breutigam & Reischuk,
"Statistical Privacy", Thm 4.2).  This module holds what every mechanism
module (statpriv.counting, statpriv.sampling, statpriv.discrete) shares: the
container _Laws (log pmfs, log ratio, optional low parts, exact tail ratio,
bounded rest), the mixture of a sampled law, the windows of unimodal laws
with the left-out mass bounded, the refinement of log ratios in higher
precision, and _pair_curve, which wraps laws -- with noise
(statpriv.noise) or without -- as a PrivacyCurve.
"""
import math
import sys

import numpy as np

from statpriv import _lazy
from statpriv.curve import PrivacyCurve
from statpriv.noise import _cells

_core = _lazy.module("statpriv._core")            # scipy.special: loaded on first use
discrete = _lazy.module("statpriv.discrete")      # PrivacyCurve.log_pmfs of the laws

# Windows of the laws (issue "Cost and memory"; policy in _window).  Pair
# curves take the FULL support (nothing bounded) up to FULL_SUPPORT atoms;
# larger supports are cut to the atoms within a drop D of the largest -- the
# deepest D = _cells.DROP_NATS * 2^k whose window fits in WINDOW_BUDGET atoms,
# at most 64 DROP_NATS without noise (the kernels work on logs) and
# DROP_NATS with noise (atoms go to linear long double scale, whose range
# ends near e^-11355), at least DROP_NATS / 4 -- and the mass left out is
# bounded and added to delta (_pair_curve).
FULL_SUPPORT = 1_000_000
WINDOW_BUDGET = 1_000_000
# Largest window (atoms where the laws' mass matters) the array paths
# allocate.  Windows are found before anything is allocated (O(log n)) and a
# larger one is refused with a ValueError that says what it would cost.
MAX_SUPPORT = 4_000_000
# Peak bytes per window atom (working arrays in extended precision, noise
# cells included), measured by bench/bench_cost.py; for the error message.
BYTES_PER_ATOM = 300

NO_REST = (-math.inf, -math.inf, math.inf, -math.inf)


class _Laws(tuple):
    """(lp, lq, lr, monotone_ratio) of a count pair, with three optional extras:

    lr_lo : low parts of the log ratio (ln P/Q = lr + lr_lo to ~1e-30 on the
        cells where a closed form was evaluated in higher precision), or None;
    tail_ratio : callable w -> G_P(w) / G_Q(w) as an mpmath number, the ratio
        of the generating functions sum_k P(k) w^k, exactly (from the
        definitions, not from the arrays), or None.  With Laplace(b) noise the
        density ratio beyond the last atom is this at w = e^(1/b) (before the
        first atom: w = e^(-1/b)), with geometric(alpha) noise at w = 1/alpha
        (alpha); for these monotone-ratio laws that is the largest (smallest)
        ratio, i.e. the zero point of delta_plus (delta_minus).
    rest : (log_rest_p, log_rest_q, lr_max, lr_min): ln of bounds on the P
        and Q mass the arrays leave out (-inf when they hold the full laws;
        else they are sub-measures P_w <= P, Q_w <= Q on a window), and
        lr_max >= ln P/Q >= lr_min over the FULL support (floats rounded
        outward from the closed-form ratio at the true extreme atoms: the
        exact zero points; +-inf if unbounded or unknown).  NO_REST: nothing.
    """

    def __new__(cls, lp, lq, lr, monotone_ratio, lr_lo=None, tail_ratio=None, rest=NO_REST):
        self = super().__new__(cls, (lp, lq, lr, monotone_ratio))
        self.lr_lo = lr_lo
        self.tail_ratio = tail_ratio
        self.rest = rest
        return self


def _pair_curve(laws, reference_fn, description, noise=None):
    """Wrap count laws (_Laws or (lp, lq, lr, monotone_ratio)) as a curve, with noise if given.

    With a window (laws.rest, see _Laws) the curve is
    delta_window(eps) + rest_p (1 - e^(eps - lr_max))_+ (rest_q (1 -
    e^(eps + lr_min))_+ for delta_minus; rest_p + rest_q for eps < 0), which
    is never below the true curve and equals it to 1e-12 relative wherever
    delta >= 1e12 rest (bounded.h); delta_plus is exactly 0 from the float
    lr_max on (the true sup ln P/Q rounded up), delta_minus from -lr_min.
    With noise, the atoms more than _cells.DROP_NATS below the largest are
    trimmed too (_cells.trim_bounded), their mass added to the rest; the rest
    then has no ratio bound of its own (the noisy densities of the rest are
    compared by mass), and the zero points are the noise's (1/b, -ln alpha)
    or, where the exact generating-function ratio is known, the exact ones.
    """
    lp, lq, lr, monotone_ratio = laws[:4]
    lr_lo = getattr(laws, "lr_lo", None)
    log_rest_p, log_rest_q, lr_max, lr_min = getattr(laws, "rest", NO_REST)
    live = np.flatnonzero(np.isfinite(lp) | np.isfinite(lq))
    sl = slice(live[0], live[-1] + 1)
    lp, lq, lr = lp[sl], lq[sl], lr[sl]
    if lr_lo is not None:
        lr_lo = lr_lo[sl]
    if np.isnan(lr).any():
        raise RuntimeError("statpriv internal error: the support of P and Q is not contiguous "
                           "(an atom where both laws vanish inside it); please report")
    zero_plus, zero_minus = lr_max, -lr_min
    tail_ratio = getattr(laws, "tail_ratio", None)
    if noise is not None:
        lp, lq = np.asarray(lp, dtype=np.longdouble), np.asarray(lq, dtype=np.longdouble)
        if noise._trims:
            # Laplace/geometric cells scale the atoms linearly (long double
            # range): atoms more than _cells.DROP_NATS below the largest are
            # cut, their mass bounded (Noise._trim); the Gaussian kernel works
            # in logs and keeps every atom (at large eps its positive part
            # comes from the extreme atoms)
            lp, lq, lr, lr_lo, cut_p, cut_q = noise._trim(lp, lq, lr, lr_lo)
            log_rest_p = float(np.logaddexp(log_rest_p, cut_p))
            log_rest_q = float(np.logaddexp(log_rest_q, cut_q))
        windowed = log_rest_p > -math.inf or log_rest_q > -math.inf
        core = _cells.core(lp, lq, noise, monotone_ratio, tail_ratio=tail_ratio, log_ratio=lr,
                           log_ratio_lo=lr_lo)
        description = f"{description}, noise={noise!r}"
        if windowed:
            # each noisy density is a mixture of the atoms' pairs: its ratio
            # is within the laws' (lr_min, lr_max), and within the noise's
            noise_plus, noise_minus = _cells.zero_points(noise, tail_ratio)
            zero_plus, zero_minus = min(zero_plus, noise_plus), min(zero_minus, noise_minus)
            lr_max, lr_min = math.inf, -math.inf
    else:
        windowed = log_rest_p > -math.inf or log_rest_q > -math.inf
        core = _core.PairCurveCore(lp, lq, lr, lr_lo=lr_lo)
    if windowed:
        core = _core.BoundedCurveCore(core, log_rest_p, log_rest_q, lr_max, lr_min,
                                      zero_plus, zero_minus)
    curve = PrivacyCurve(core, reference_fn, description)
    if noise is None:
        curve._pld_laws = _law_source(lp, lq, lr, lr_lo, log_rest_p, log_rest_q, zero_plus,
                                      -zero_minus)
    elif noise.kind == "geometric":
        curve._pld_laws = _geometric_source(lp, lq, noise.param, log_rest_p, log_rest_q,
                                            zero_plus, -zero_minus)
    if noise is None and getattr(laws, "start", None) is not None:
        # PrivacyCurve.log_pmfs(): the laws on atoms start + sl.start, ...
        curve._log_pmfs = discrete._laws_log_pmfs(laws.start + sl.start, lp, lq,
                                                  log_rest_p, log_rest_q)
    return curve


def _law_source(lp, lq, lr, lr_lo, log_rest_p, log_rest_q, loss_max, loss_min):
    """PrivacyCurve._pld_laws of noiseless laws: a callable returning
    statpriv.pld.DiscreteLaws (the log ratio with its low part, extended
    precision; the rest and the bounds on ln P/Q over the full support)."""
    def source():
        from statpriv import pld
        hi = np.asarray(lr, dtype=np.longdouble)
        loss, loss_lo = hi, None
        if lr_lo is not None:
            lo = np.asarray(lr_lo, dtype=np.longdouble)
            loss = hi + lo
            with np.errstate(invalid="ignore"):
                loss_lo = np.where(np.isfinite(loss), (hi - loss) + lo, 0.0)  # the residual
        return pld.DiscreteLaws(lp, lq, loss, float(log_rest_p), float(log_rest_q),
                                float(loss_max), float(loss_min), loss_lo)
    return source


def _geometric_source(lp, lq, alpha, log_rest_p, log_rest_q, loss_max, loss_min):
    """PrivacyCurve._pld_laws of count laws plus two-sided geometric(alpha) noise:
    the noisy pmf on the atoms and the two aggregated tails (_core.geometric_cells;
    beyond the last atom both noisy pmfs decay like alpha^t, so each tail is one
    atom of constant loss)."""
    def source():
        from statpriv import pld
        cell_lp, cell_lq = _core.geometric_cells(lp, lq, alpha)
        return pld.DiscreteLaws(cell_lp, cell_lq, None, float(log_rest_p), float(log_rest_q),
                                float(loss_max), float(loss_min))
    return source


def _laws_source(laws):
    """_law_source of unsliced _Laws (curves whose core does not use the arrays)."""
    lp, lq, lr = laws[:3]
    log_rest_p, log_rest_q, lr_max, lr_min = getattr(laws, "rest", NO_REST)
    return _law_source(lp, lq, lr, getattr(laws, "lr_lo", None), log_rest_p, log_rest_q,
                       lr_max, lr_min)


def _mixture(log_a, log_b, rate, log_weights=None, ratio=True):
    """Logs of P(j) = rate A(j-1) + (1-rate) B(j), Q(j) = rate A(j) + (1-rate) B(j).

    A is the law of the others' count when the target is in the sample, B when
    it is not; with rate = 1 this is the plain shift P = A(.-1), Q = A.
    ``log_weights`` = (ln rate, ln(1 - rate)) accurately (e.g. from the exact
    m/n); by default ln rate and log1p(-rate) in extended precision.
    Returns lp, lq on j = 0..L-1 and the generic log ratio lp - lq (None
    with ratio=False: a caller with a closed form spares the array).
    """
    size = max(len(log_a) + 1, len(log_b))
    dtype = np.result_type(log_a, log_b, np.float64)     # longdouble stays longdouble
    if dtype == np.longdouble and rate != 1.0:
        # one C pass, no full-size temporaries (numpy's long double
        # logaddexp with the accurate fast exp/log1p of csrc/ldmath.h)
        if log_weights is None:
            log_weights = (np.log(np.longdouble(rate)), np.log1p(-np.longdouble(rate)))
        lp, lq = _core.log_mixture(log_a, log_b, log_weights[0], log_weights[1], size)
        if not ratio:
            return lp, lq, None
        with np.errstate(invalid="ignore"):
            lr = lp - lq
        return lp, lq, lr
    # -inf where A (B) has no atom; the arrays written once each
    shifted = np.empty(size, dtype=dtype)
    shifted[0] = -np.inf
    shifted[1:len(log_a) + 1] = log_a
    shifted[len(log_a) + 1:] = -np.inf
    same = np.empty(size, dtype=dtype)
    same[:len(log_a)] = log_a
    same[len(log_a):] = -np.inf
    if rate == 1.0:
        lp, lq = shifted, same           # the plain shift: nothing to mix
    else:
        base = np.full(size, -np.inf, dtype=dtype)
        base[:len(log_b)] = log_b
        if log_weights is None:
            log_weights = (np.log(np.longdouble(rate)), np.log1p(-np.longdouble(rate)))
        log_in, log_out = (np.asarray(w, dtype=dtype) for w in log_weights)
        # in place (the same values as logaddexp(log_in + shifted, log_out
        # + base), ...): no full-length temporaries
        np.add(shifted, log_in, out=shifted)
        np.add(same, log_in, out=same)
        np.add(base, log_out, out=base)
        lp = np.logaddexp(shifted, base, out=shifted)
        lq = np.logaddexp(same, base, out=same)
    if not ratio:
        return lp, lq, None
    with np.errstate(invalid="ignore"):
        lr = lp - lq
    return lp, lq, lr


# Cells whose log ratio is refined in higher precision, at most, per curve.
_MAX_REFINED = 1024


def _mpf_exact(x):
    """An extended-precision float as an exact mpmath number."""
    import mpmath
    num, den = x.as_integer_ratio()
    return mpmath.mpf(num) / den


def _long_double(value):
    """An mpmath number as the nearest long double (the low part of a split log
    ratio as a double would be denormal where the ratio is ~1e-300)."""
    import mpmath
    return np.longdouble(mpmath.nstr(value, 25, strip_zeros=False))


def _float_up(value):
    """The smallest double >= an mpmath number (+-inf kept)."""
    import mpmath
    if mpmath.isinf(value):
        return math.inf if value > 0 else -math.inf
    f = float(value)
    if math.isinf(f):                  # beyond the double range (1/b of Laplace b = 1e-315)
        return f if f > 0 else -sys.float_info.max
    if _mpf_exact(np.longdouble(f)) < value:
        f = math.nextafter(f, math.inf)
    return f


def _log1p_mp(x):
    """log1p of a double, as an mpmath number at the current precision."""
    import mpmath
    return mpmath.log1p(mpmath.mpf(x))


def _rest_ratio_bounds(exact, j_lo, j_hi):
    """(lr_max, lr_min) for _Laws.rest: the closed-form ln P(j)/Q(j) (mpmath,
    ``exact(j)`` at absolute atoms j), increasing in j, at the extreme atoms
    j_lo, j_hi of the FULL support, rounded outward to doubles -- so that
    lr_max is the smallest double with delta_plus = 0 on the true curve."""
    import mpmath
    with mpmath.workdps(40):
        return _float_up(exact(j_hi)), -_float_up(-exact(j_lo))


def _refine_log_ratio(lp, lq, lr, err, exact):
    """Low parts lr_lo with lr + lr_lo = ln P/Q to ~1e-30 on the cells that need it.

    delta(eps) = sum_j P(j) (1 - e^(eps - lr_j))_+ .  An error e_j in lr_j
    moves delta by up to P(j) e_j, while just below eps = lr_j delta is at
    least P(j+1) (1 - e^(lr_j - lr_{j+1})) (the next cell's term, lr
    increasing) -- so a cell needs more than its extended-precision lr where
    P(j) e_j exceeds 1e-14 of that (likewise Q and j-1 for delta_minus; deep
    in the tails, where delta underflows, the tolerance on ln delta), and
    always at the zero points (the extreme cells), where delta -> 0 linearly
    in lr - eps.  ``err``: a bound on |lr error| per cell; ``exact(j)``: the
    closed-form ln P(j)/Q(j) as an mpmath number.  At most _MAX_REFINED cells
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
        log_gap = np.diff(lr).astype(np.float64)    # ln(1 - e^(lr_j - lr_{j+1})):
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
    if len(candidates) > _MAX_REFINED:
        candidates = candidates[np.argpartition(-need[candidates], _MAX_REFINED)[:_MAX_REFINED]]
    cells = set(candidates.tolist())
    idx = np.flatnonzero(finite)
    cells.update((int(idx[0]), int(idx[-1])))
    with mpmath.workdps(40):
        for j in sorted(cells):
            value = exact(j)
            if mpmath.isfinite(value):
                lo[j] = float(value - _mpf_exact(lr[j]))
    return lo


def _unimodal_window(log_pmf, lo, hi, mode, drop):
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


def _window(log_pmf, lo, hi, mode, noisy_path):
    """The one window policy of every array path: (first, last, log_rest).

    The full support lo..hi if it has at most FULL_SUPPORT atoms (log_rest
    = -inf: exact everywhere; with noise, _cells.trim_bounded then cuts at
    _cells.DROP_NATS).  Else the atoms within D = _cells.DROP_NATS * 2^k nats
    of the largest, for the largest k whose window fits in WINDOW_BUDGET
    atoms: k = 6..-2 without noise (the pair kernels work on logs, no
    underflow: D up to 704000), k = 0..-2 with noise (atoms go to linear
    scale relative to the largest: D <= DROP_NATS); D = DROP_NATS / 4 if
    none fits.
    A window wider than MAX_SUPPORT is refused by the caller (_check_support).
    """
    if hi - lo + 1 <= FULL_SUPPORT:
        return lo, hi, -math.inf
    top = 0 if noisy_path else 6
    for d in (_cells.DROP_NATS * 2.0 ** k for k in range(top, -3, -1)):
        found = _unimodal_window(log_pmf, lo, hi, mode, d)
        if found[1] - found[0] + 1 <= WINDOW_BUDGET:
            return found
    return found


def _binomial_window(N, pi, noisy_path, drop=None):
    """(first, last, log_rest): the window of Bin(N, pi) (see _window).

    drop: a path that trims the atoms more than this many nats below the
    largest anyway (Laplace and geometric noise, _cells.trim_bounded; the
    privacy-loss distribution) cuts the window there up front, the rest
    bounded by unimodality (_unimodal_window), instead of building the full
    support first (at n = 1e6 that is 1e6 atoms of which ~14% are kept)."""
    def log_pmf(k):
        return float(_core.log_binom_pmf(float(N), pi, np.array([float(k)]))[0])

    mode = min(max(math.floor((N + 1) * pi), 0), N)
    first, last, log_rest = _window(log_pmf, 0, N, mode, noisy_path)
    if drop is not None and log_rest == -math.inf and 0.0 < pi < 1.0 and last - first > 4096:
        first, last, log_rest = _unimodal_window(log_pmf, first, last, mode, drop)
    return first, last, log_rest


def _binomial_log_pmf(N, pi, first, last):
    """ln Bin(N, pi) on first..last; in extended precision with neighbours
    consistent to ~1e-19 for 0 < pi < 1 (see _core.binom_window_logl)."""
    if 0.0 < pi < 1.0:
        return _core.binom_window_logl(float(N), pi, first, last - first + 1)
    return _core.log_binom_pmf(float(N), pi, np.arange(first, last + 1, dtype=np.float64))


def _binomial_shift(N, pi, first, last):
    """(lp, lq, lr) of the plain shift of Z = Bin(N, pi) on first..last, as
    _mixture(log_z, log_z, 1.0): P = Z(. - 1), Q = Z on L + 1 atoms.  Both
    laws are views of ONE buffer [-inf, ln Z, -inf] (lp its first L + 1
    atoms, lq its last): no copies of ln Z (fresh full-size arrays cost
    more than the arithmetic at n = 1e9).  The views must stay read-only."""
    if not 0.0 < pi < 1.0:
        log_z = _binomial_log_pmf(N, pi, first, last)
        return _mixture(log_z, log_z, 1.0)
    count = last - first + 1
    buf = np.empty(count + 2, dtype=np.longdouble)
    buf[0] = buf[count + 1] = -np.inf
    _core.binom_window_logl(float(N), pi, first, count, out=buf[1:count + 1])
    lp, lq = buf[:count + 1], buf[1:]
    with np.errstate(invalid="ignore"):
        lr = lp - lq
    return lp, lq, lr


def _check_support(size, what):
    """Refuse a window of more than MAX_SUPPORT atoms, before allocating it."""
    if size > MAX_SUPPORT:
        raise ValueError(
            f"the laws' window where the mass matters (within {_cells.DROP_NATS / 4:g} nats "
            f"of the largest atom at least) holds {size:,} atoms, about "
            f"{size * BYTES_PER_ATOM / 2**30:.1f} GiB of working arrays; the limit is "
            f"{MAX_SUPPORT:,} atoms (statpriv._laws.MAX_SUPPORT).  The window grows like "
            f"sqrt(variance of the count): use a smaller {what}")


def _mixture_rest(rest_a, rest_b, log_weights):
    """ln of the bound on the mixture's mass left out: rate rest_a + (1-rate) rest_b."""
    parts = [float(log_weights[0]) + rest_a]
    if rest_b > -math.inf and float(log_weights[1]) > -math.inf:
        parts.append(float(log_weights[1]) + rest_b)
    r = float(np.logaddexp.reduce(parts))
    return r + 1e-12 * (1.0 + abs(r)) if r > -math.inf else r


def _dd(x):
    """(hi, lo) doubles with hi + lo = the mpf x to ~2^-106 relative."""
    hi = float(x)
    return hi, float(x - hi)
