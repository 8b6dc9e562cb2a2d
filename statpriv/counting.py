"""Privacy curves of counting (property) queries, noiseless or with added noise.

The released value is the number of records with a property (plus noise).  Records are
independent, record j has the property with probability pi_j, the attacker
targets record 1 and knows everything but the others' values.  With S the
count of the others, delta_plus(eps) = H_eps(S+1 || S) and delta_minus(eps) =
H_eps(S || S+1) (docs/mathematics.md §2; Breutigam & Reischuk Thm 4.2).  Sampling mixes the two
laws (docs/mathematics.md §5; Breutigam & Reischuk Thm 4.1, Smith 2009).  Noise is added to either
law (docs/mathematics.md §6, statpriv.noisy).
"""
import math

import numpy as np

from statpriv import _lazy, _validate, noisy, oracle
from statpriv.curve import PrivacyCurve
from statpriv.noise import Gaussian, Laplace, Noise

_core = _lazy.module("statpriv._core")            # scipy.special: loaded on first use
discrete = _lazy.module("statpriv.discrete")      # PrivacyCurve.log_pmfs of the laws

# Windows of the laws (issue "Cost and memory"; policy in _window).  Pair
# curves take the FULL support (nothing bounded) up to FULL_SUPPORT atoms;
# larger supports are cut to the atoms within a drop D of the largest -- the
# deepest D = noisy.DROP_NATS * 2^k whose window fits in WINDOW_BUDGET atoms,
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
# Per-record pi: refuse product trees estimated above this many multiply-adds
# (about a minute here, ~3e6 distinct pi); see _poisson_binomial_window.
MAX_CONVOLUTION_WORK = 3e10
# Estimated multiply-adds (_product_tree_work, ~1.3x the real count) per cpu
# second of the product tree, measured at n = 1e5 to 1e6 distinct pi (3.6e8
# to 4.4e8); for the message and the progress bar.
CONVOLUTION_RATE = 4e8
# Show a progress bar (tqdm, only on a terminal) above this estimated time.
PROGRESS_SECONDS = 3.0
# Per-record pi: up to this many records with 0 < pi < 1 the Poisson-binomial
# is convolved in log space on its whole support whenever the (linear-range)
# product tree would cut atoms: exact deep tails, ~0.1 s at the limit.
EXACT_LOG_RECORDS = 1000

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
    With noise, the atoms more than noisy.DROP_NATS below the largest are
    trimmed too (noisy.trim_bounded), their mass added to the rest; the rest
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
        if not isinstance(noise, Gaussian):
            # Laplace/geometric cells scale the atoms linearly (long double
            # range); the Gaussian kernel works in logs and keeps every atom
            # (at large eps its positive part comes from the extreme atoms)
            if isinstance(noise, Laplace) and noisy._is_shift(lp, lq):
                # a pure shift P = Z(. - 1), Q = Z: trim Z and rebuild the
                # shift, so the window stays an exact shift (noisy.core's
                # closed-form Laplace ratios); both laws lose Z's cut mass
                lp, lq, cut_p, cut_q = noisy.trim_shift(lq)
                lr = lr_lo = None    # the shift's ratios come in closed form
            else:
                tsl, cut_p, cut_q = noisy.trim_bounded(lp, lq)
                lp, lq, lr = lp[tsl], lq[tsl], lr[tsl]
                if lr_lo is not None:
                    lr_lo = lr_lo[tsl]
            log_rest_p = float(np.logaddexp(log_rest_p, cut_p))
            log_rest_q = float(np.logaddexp(log_rest_q, cut_q))
        windowed = log_rest_p > -math.inf or log_rest_q > -math.inf
        core = noisy.core(lp, lq, noise, monotone_ratio, tail_ratio=tail_ratio, log_ratio=lr,
                          log_ratio_lo=lr_lo)
        description = f"{description}, noise={noise!r}"
        if windowed:
            # each noisy density is a mixture of the atoms' pairs: its ratio
            # is within the laws' (lr_min, lr_max), and within the noise's
            noise_plus, noise_minus = noisy.zero_points(noise, tail_ratio)
            zero_plus, zero_minus = min(zero_plus, noise_plus), min(zero_minus, noise_minus)
            lr_max, lr_min = math.inf, -math.inf
    else:
        windowed = log_rest_p > -math.inf or log_rest_q > -math.inf
        core = _core.PairCurveCore(lp, lq, lr, lr_lo=lr_lo)
    if windowed:
        core = _core.BoundedCurveCore(core, log_rest_p, log_rest_q, lr_max, lr_min,
                                      zero_plus, zero_minus)
    curve = PrivacyCurve(core, reference_fn, description)
    if noise is None and getattr(laws, "start", None) is not None:
        # PrivacyCurve.log_pmfs(): the laws on atoms start + sl.start, ...
        curve._log_pmfs = discrete._laws_log_pmfs(laws.start + sl.start, lp, lq,
                                                  log_rest_p, log_rest_q)
    return curve


def _mixture(log_a, log_b, rate, log_weights=None):
    """Logs of P(j) = rate A(j-1) + (1-rate) B(j), Q(j) = rate A(j) + (1-rate) B(j).

    A is the law of the others' count when the target is in the sample, B when
    it is not; with rate = 1 this is the plain shift P = A(.-1), Q = A.
    ``log_weights`` = (ln rate, ln(1 - rate)) accurately (e.g. from the exact
    m/n); by default ln rate and log1p(-rate) in extended precision.
    Returns lp, lq on j = 0..L-1 and the generic log ratio lp - lq.
    """
    size = max(len(log_a) + 1, len(log_b))
    dtype = np.result_type(log_a, log_b, np.float64)     # longdouble stays longdouble
    shifted = np.full(size, -np.inf, dtype=dtype)
    shifted[1:len(log_a) + 1] = log_a
    same = np.full(size, -np.inf, dtype=dtype)
    same[:len(log_a)] = log_a
    base = np.full(size, -np.inf, dtype=dtype)
    base[:len(log_b)] = log_b
    if rate == 1.0:
        lp, lq = shifted, same           # the plain shift: nothing to mix
    else:
        if log_weights is None:
            log_weights = (np.log(np.longdouble(rate)), np.log1p(-np.longdouble(rate)))
        log_in, log_out = (np.asarray(w, dtype=dtype) for w in log_weights)
        lp = np.logaddexp(log_in + shifted, log_out + base)
        lq = np.logaddexp(log_in + same, log_out + base)
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


def _float_up(value):
    """The smallest double >= an mpmath number (+-inf kept)."""
    import mpmath
    if mpmath.isinf(value):
        return math.inf if value > 0 else -math.inf
    f = float(value)
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
    lpf, lqf = lp.astype(np.float64), lq.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        log_err = np.log(np.asarray(err, dtype=np.float64))
        gap = np.diff(lr).astype(np.float64)
        log_gap = np.log(-np.expm1(-gap))           # ln(1 - e^(lr_j - lr_{j+1}))
        up = log_err[:-1] + lpf[:-1] - lpf[1:] - log_gap
        down = log_err[1:] + lqf[1:] - lqf[:-1] - log_gap
    need = np.full(n, -np.inf)
    need[:-1] = np.fmax(need[:-1], up)
    need[1:] = np.fmax(need[1:], down)
    # Where delta underflows, the promise is on ln delta: 1e-10 absolute or
    # 8 ulps of |ln delta|, so cells that deep need correspondingly less.
    depth = np.fmin(lpf, lqf)
    log_tol = np.where(depth > -700.0, np.log(1e-14),
                       np.log(np.fmax(1e-11, 1e-16 * np.abs(depth))))
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
    = -inf: exact everywhere; with noise, noisy.trim_bounded then cuts at
    noisy.DROP_NATS).  Else the atoms within D = noisy.DROP_NATS * 2^k nats
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
    for d in (noisy.DROP_NATS * 2.0 ** k for k in range(top, -3, -1)):
        found = _unimodal_window(log_pmf, lo, hi, mode, d)
        if found[1] - found[0] + 1 <= WINDOW_BUDGET:
            return found
    return found


def _binomial_window(N, pi, noisy_path):
    """(first, last, log_rest): the window of Bin(N, pi) (see _window)."""
    def log_pmf(k):
        return float(_core.log_binom_pmf(float(N), pi, np.array([float(k)]))[0])

    mode = min(max(math.floor((N + 1) * pi), 0), N)
    return _window(log_pmf, 0, N, mode, noisy_path)


def _hypergeom_window(N, K, m, noisy_path):
    """(first, last, log_rest): the window of the hypergeometric law of the
    positives in m draws from N records of which K are positive."""
    def log_pmf(j):
        return float(_core.log_hypergeom_pmf(np.array([float(j)]), float(N), float(K),
                                             float(m))[0])

    lo, hi = max(0, m - (N - K)), min(K, m)
    mode = min(max((m + 1) * (K + 1) // (N + 2), lo), hi)
    return _window(log_pmf, lo, hi, mode, noisy_path)


def _binomial_log_pmf(N, pi, first, last):
    """ln Bin(N, pi) on first..last; in extended precision with neighbours
    consistent to ~1e-19 for 0 < pi < 1 (see _core.binom_window_logl)."""
    if 0.0 < pi < 1.0:
        return _core.binom_window_logl(float(N), pi, first, last - first + 1)
    return _core.log_binom_pmf(float(N), pi, np.arange(first, last + 1, dtype=np.float64))


def _check_support(size, what):
    """Refuse a window of more than MAX_SUPPORT atoms, before allocating it."""
    if size > MAX_SUPPORT:
        raise ValueError(
            f"the laws' window where the mass matters (within {noisy.DROP_NATS / 4:g} nats "
            f"of the largest atom at least) holds {size:,} atoms, about "
            f"{size * BYTES_PER_ATOM / 2**30:.1f} GiB of working arrays; the limit is "
            f"{MAX_SUPPORT:,} atoms (statpriv.counting.MAX_SUPPORT).  The window grows like "
            f"sqrt(variance of the count): use a smaller {what}")


def _mixture_rest(rest_a, rest_b, log_weights):
    """ln of the bound on the mixture's mass left out: rate rest_a + (1-rate) rest_b."""
    parts = [float(log_weights[0]) + rest_a]
    if rest_b > -math.inf and float(log_weights[1]) > -math.inf:
        parts.append(float(log_weights[1]) + rest_b)
    r = float(np.logaddexp.reduce(parts))
    return r + 1e-12 * (1.0 + abs(r)) if r > -math.inf else r


def _subsample_laws(n, pi, m, noisy_path=False):
    """Sample of m of the n records without replacement, iid Bernoulli(pi).

    The laws live on the union of the windows of Bin(m-1, pi) and Bin(m, pi)
    (from j = first on; the full supports when small, see _window); the mass
    they leave out is bounded in _Laws.rest.
    """
    rate = m / n
    a0, a1, rest_a = _binomial_window(m - 1, pi, noisy_path)
    b0, b1, rest_b = _binomial_window(m, pi, noisy_path)
    first, last = min(a0, b0), max(a1 + 1, b1)
    _check_support(last - first + 1, "sample_size (or n)")
    ln = np.log(np.longdouble(n))
    log_weights = (np.log(np.longdouble(m)) - ln,
                   np.log(np.longdouble(n - m)) - ln if m < n else np.longdouble(-np.inf))
    lp, lq, lr = _mixture(_binomial_log_pmf(m - 1, pi, first, min(last, m - 1)),
                          _binomial_log_pmf(m, pi, first, min(last, m)), rate, log_weights)
    log_rest = _mixture_rest(rest_a, rest_b, log_weights)
    rest = (log_rest, log_rest, math.inf, -math.inf)
    if not 0.0 < pi < 1.0:
        if m == n:
            return _Laws(lp, lq, lr, True, rest=rest)
        # Known records: P and Q share one atom, j = m (pi = 1) or j = 0
        # (pi = 0), where P/Q = n/(n-m) or (n-m)/n: the zero point, in
        # double-double like every other extreme ratio.
        def degenerate(jj):
            import mpmath
            ratio = mpmath.log(n) - mpmath.log(n - m)
            return ratio if pi == 1.0 else -ratio

        lr_lo = _refine_log_ratio(lp, lq, lr, np.full(len(lr), 4e-19),
                                  lambda i: degenerate(first + i))
        return _Laws(lp, lq, lr, False, lr_lo, _subsample_tail_ratio(n, m, pi), rest=rest)
    # P(j)/Q(j) in closed form (Breutigam & Reischuk, "Statistical Privacy"):
    # with lambda = m/n, A(j-1)/B(j) = j/(m pi), A(j)/B(j) = (m-j)/(m(1-pi)), so
    # with d = j - m pi, P/Q = (1 + d/(n pi)) / (1 - d/(n (1-pi))): two log1p
    # of small arguments when m/n is small, no rounded rate.  The threshold
    # terms need lr to full relative accuracy, which a difference of logs lacks.
    ld = np.longdouble
    j = ld(first) + np.arange(len(lr), dtype=ld)
    d = j - ld(m) * ld(pi)
    x, y = d / (ld(n) * ld(pi)), -d / (ld(n) * (1 - ld(pi)))
    with np.errstate(divide="ignore"):
        t1, t2 = np.log1p(x), np.log1p(y)
    lr = t1 - t2
    err = (4e-19 * (np.abs(t1.astype(np.float64)) + np.abs(t2.astype(np.float64)))
           + 2e-19 * m * pi * (1 / (n * pi) + 1 / (n * (1 - pi))))

    def exact(jj):                 # at the absolute atom jj
        import mpmath
        p = mpmath.mpf(pi)
        dd = jj - m * p
        return mpmath.log1p(dd / (n * p)) - mpmath.log1p(-dd / (n * (1 - p)))

    tail_ratio = _subsample_tail_ratio(n, m, pi)
    if m < n:                      # true extreme atoms j = 0 and j = m
        rest = rest[:2] + _rest_ratio_bounds(exact, 0, m)
    if m == n:
        return _Laws(lp, lq, lr, True, None, lambda w: w, rest)
    lr_lo = _refine_log_ratio(lp, lq, lr, err, lambda i: exact(first + i))
    return _Laws(lp, lq, lr, False, lr_lo, tail_ratio, rest)


def _subsample_tail_ratio(n, m, pi):
    """G_P(w)/G_Q(w) of the sample of m of n records without replacement, iid
    Bernoulli(pi) (pi = 0 and 1 included): with lambda = m/n and M(w) = 1 +
    pi (w - 1) the Bernoulli generating function, P = lambda A(.-1) +
    (1-lambda) B, Q = lambda A + (1-lambda) B, G_B = M G_A, so the common
    G_A cancels: (lambda w + (1-lambda) M) / (lambda + (1-lambda) M)."""
    def tail_ratio(w):
        import mpmath
        lam, p = mpmath.mpf(m) / n, mpmath.mpf(pi)
        M = 1 + p * (w - 1)            # generating function of Bernoulli(pi)
        return (lam * w + (1 - lam) * M) / (lam + (1 - lam) * M)
    return tail_ratio


def _poisson_tail_ratio(rate):
    """G_P/G_Q for P = rate Z(.-1) + (1-rate) Z, Q = Z: rate w + 1 - rate."""
    def tail_ratio(w):
        import mpmath
        return 1 + mpmath.mpf(rate) * (w - 1)
    return tail_ratio


def _poisson_sample_laws(n, pi, rate, noisy_path=False):
    """Each other record kept w.p. rate: Z ~ Bin(n-1, rate*pi), P = rate Z(.-1) + (1-rate) Z.

    Z is taken on its window (_window); Q/P <= 1/(1-rate) bounds the rest for
    delta_minus, P/Q is unbounded (inf at j = n).
    """
    rho = rate * pi
    first, last, log_rest = _binomial_window(n - 1, rho, noisy_path)
    _check_support(last - first + 2, "n (or sample_rate)")
    log_z = _binomial_log_pmf(n - 1, rho, first, last)
    ld = np.longdouble
    if 0.0 < rho < 1.0:
        # rho is the rounded product; ln Z(k) moves by (k - (n-1) rho)/(rho (1-rho))
        # per unit of rho, which at n ~ 1e7 turns a 1e-16 rounding into 1e-9 in
        # the far tails: correct to first order for the exact rate * pi.
        import mpmath
        with mpmath.workdps(40):
            shift = float(mpmath.mpf(rate) * mpmath.mpf(pi) - mpmath.mpf(rho))
        if shift != 0.0:
            k = ld(first) + np.arange(len(log_z), dtype=ld)
            log_z = log_z + (k - ld(n - 1) * ld(rho)) / (ld(rho) * (1 - ld(rho))) * ld(shift)
    lp, lq, lr = _mixture(log_z, log_z, rate)
    tail_ratio = _poisson_tail_ratio(rate)
    if log_rest > -math.inf:
        log_rest += 1e-12 * (1.0 + abs(log_rest))
    rest = (log_rest, log_rest, math.inf, -math.inf)
    if not 0.0 < rho < 1.0:
        if rho == 0.0 and rate < 1.0:
            # pi = 0: Z = 0 surely, P/Q = 1 - rate at j = 0 (the zero point of
            # delta_minus), in double-double
            def degenerate(jj):
                import mpmath
                return mpmath.log1p(-mpmath.mpf(rate))

            lr_lo = _refine_log_ratio(lp, lq, lr, np.full(len(lr), 4e-19),
                                      lambda i: degenerate(first + i))
            return _Laws(lp, lq, lr, False, lr_lo, tail_ratio, rest)
        return _Laws(lp, lq, lr, rate == 1.0, None, tail_ratio, rest)
    # P(j)/Q(j) = rate Z(j-1)/Z(j) + 1 - rate = 1 + (j - n rho)/((n - j) pi),
    # rho = rate pi exactly: one log1p, inf at j = n (Q(n) = 0), and
    # ln(1 - rate) at j = 0, the zero point of delta_minus.
    j = ld(first) + np.arange(len(lr), dtype=ld)
    with np.errstate(divide="ignore", invalid="ignore"):
        lr = np.log1p((j - ld(n) * ld(rate) * ld(pi)) / ((ld(n) - j) * ld(pi)))
    if 0 <= n - first < len(lr):
        lr[n - first] = np.inf
    if rate == 1.0 and first == 0:
        lr[0] = -np.inf
    jf = first + np.arange(len(lr), dtype=np.float64)
    err = 4e-19 * np.abs(lr.astype(np.float64)) + 2e-19 * n * rate / np.maximum(n - jf, 1)

    def exact(jj):                 # at the absolute atom jj
        import mpmath
        lam, p = mpmath.mpf(rate), mpmath.mpf(pi)
        return mpmath.log1p((jj - n * lam * p) / ((n - jj) * p))

    if rate < 1.0:                 # true extreme atoms j = 0 (lr = log1p(-rate)) and n (inf)
        rest = rest[:2] + (math.inf,
                           -math.inf if rate == 1.0 else _rest_ratio_bounds(exact, 0, 0)[1])
    return _Laws(lp, lq, lr, rate == 1.0,
                 None if rate == 1.0 else _refine_log_ratio(lp, lq, lr, err,
                                                            lambda i: exact(first + i)),
                 tail_ratio, rest)


def _dd(x):
    """(hi, lo) doubles with hi + lo = the mpf x to ~2^-106 relative."""
    hi = float(x)
    return hi, float(x - hi)


def _poisson_curve_core(n, pi, rate):
    """The noiseless Poisson-sampled curve by reduction to the shift curve of
    Z ~ Bin(n-1, rho), rho = rate * pi (Smith 2009 Alg. 2):
    P = rate Z(.-1) + (1-rate) Z and Q = Z give
    P - e^eps Q = rate (Z(k-1) - e^eps' Z(k)) with e^eps' = 1 + (e^eps - 1)/rate, and
    Q - e^eps P = c (Z(k) - e^eps'' Z(k-1)) with c = 1 - e^eps (1 - rate),
    e^eps'' = e^eps rate / c (delta_minus = 0 where c <= 0).  rho and 1 - rho
    are passed in extended precision, the mean and ln(1 - rate) as
    double-doubles (the rounding of the product
    would move ln Z(k) by (k - N rho) 2^-53 / (1 - rho) in the far tails;
    rho may lie below the double range).  None where rho is 0 or 1 (a point
    mass: the law arrays handle those) or n = 1."""
    import mpmath
    with mpmath.workdps(60):
        g, p = mpmath.mpf(rate), mpmath.mpf(pi)
        rho = g * p
        if not 0 < rho < 1 or n < 2:
            return None
        pq = np.array([mpmath.nstr(rho, 30), mpmath.nstr(1 - rho, 30)], dtype=np.longdouble)
        mean_hi, mean_lo = _dd((n - 1) * rho)
        log_p, log_q = float(mpmath.log(rho)), float(mpmath.log1p(-rho))
        if rate == 1.0:
            l1g_hi, l1g_lo = -math.inf, 0.0
        else:
            l1g_hi, l1g_lo = _dd(mpmath.log1p(-g))
    return _core.PoissonCurveCore(float(n - 1), pq, mean_hi, mean_lo, log_p, log_q,
                                  float(rate), l1g_hi, l1g_lo)


def _binomial_window_laws(N, pi, drop=None):
    """Shift laws of Bin(N, pi) for the noisy paths, on the window of _window
    (the rest bounded in _Laws.rest).  drop: the noise path trims the atoms
    more than this many nats below the largest anyway (noisy.trim_bounded,
    Laplace and geometric noise): the window is cut there up front, the rest
    bounded by unimodality (_unimodal_window), instead of building the full
    support first (at n = 1e6 that is 1e6 atoms of which ~14% are kept)."""
    first, last, log_rest = _binomial_window(N, pi, True)
    if drop is not None and log_rest == -math.inf and 0.0 < pi < 1.0 and last - first > 4096:
        def log_pmf(k):
            return float(_core.log_binom_pmf(float(N), pi, np.array([float(k)]))[0])

        mode = min(max(math.floor((N + 1) * pi), 0), N)
        first, last, log_rest = _unimodal_window(log_pmf, first, last, mode, drop)
    _check_support(last - first + 2, "n")
    log_z = _binomial_log_pmf(N, pi, first, last)
    lp, lq, lr = _mixture(log_z, log_z, 1.0)
    rest = NO_REST if log_rest == -math.inf else (log_rest, log_rest, math.inf, -math.inf)
    return _Laws(lp, lq, lr, True, None, lambda w: w, rest)


def _product_tree_work(values, counts, drop):
    """(final window bound, estimated multiply-adds) of the product tree in
    convolve.c, simulated on (variance, atoms) per node: a merge computes each
    output atom from the terms within 45 nats of its largest, about
    2 sqrt(90 v_a v_b / (v_a + v_b)) + 1 of them (at most min(len a, len b))."""
    var = counts * values * (1.0 - values)
    atoms = counts + 1.0
    width = _window_width_bound(var, atoms, drop)
    work = 0.0
    while var.size > 1:
        even = var.size - var.size % 2
        va, vb = var[0:even:2], var[1:even:2]
        wa, wb = width[0:even:2], width[1:even:2]
        v, a = va + vb, atoms[0:even:2] + atoms[1:even:2] - 1.0
        w = _window_width_bound(v, a, drop)
        terms = np.minimum(np.minimum(wa, wb),
                           2.0 * np.sqrt(90.0 * va * vb / np.maximum(v, 1e-300)) + 1.0)
        work += float(np.sum((wa + wb - 1.0) * terms))
        var = np.concatenate([v, var[even:]])
        atoms = np.concatenate([a, atoms[even:]])
        width = np.concatenate([w, width[even:]])
    return float(width[0]), work


def _window_width_bound(variance, atoms, drop):
    """Upper bound on the window of a sum of independent Bernoullis with this
    variance over ``atoms`` atoms: Bernstein's inequality
    P[|S - mu| >= t] <= 2 exp(-t^2 / (2 (variance + t/3))) puts every atom
    farther than t = D/3 + sqrt(D^2/9 + 2 D variance) from the mean below
    e^-drop / atoms <= e^-drop * max pmf, D = drop + ln(2 atoms)."""
    d = drop + np.log(2.0 * atoms)
    t = d / 3.0 + np.sqrt(d * d / 9.0 + 2.0 * d * variance)
    return np.minimum(atoms, 2.0 * np.ceil(t) + 1.0)


def _log_space_poisson_binomial(values, counts):
    """ln pmf (extended precision, full support 0..sum(counts)) of a sum of
    independent Binomial(counts[i], values[i]), 0 < values < 1: the binomials
    in Loader's form (_binomial_log_pmf), convolved by logsumexp with no
    range limit.  O(records^2) work: for at most EXACT_LOG_RECORDS records."""
    return _log_space_convolve([np.asarray(_binomial_log_pmf(k, v, 0, k), dtype=np.longdouble)
                                for v, k in zip(values.tolist(),
                                                counts.astype(np.int64).tolist())])


def _tiny_rate_products_core(probs, rate):
    """Shift curve of Z = sum of Bernoulli(rate pi_j) where some products
    rate * pi_j fall below the double range's full precision (< 1e-290, e.g.
    pi_j = 5e-324): the binomials of those groups from exact mpmath logs,
    convolved in log space (_log_space_poisson_binomial's loop) on the whole
    support.  None if no product is that small or there are more than
    EXACT_LOG_RECORDS records (the caller then uses the rounded products)."""
    live = probs[probs > 0.0]
    if live.size == 0 or live.size > EXACT_LOG_RECORDS or not (rate * live < 1e-290).any():
        return None
    import mpmath
    values, counts = np.unique(live, return_counts=True)
    groups = []
    with mpmath.workdps(40):
        for v, k in zip(values.tolist(), counts.tolist()):
            rho = mpmath.mpf(rate) * mpmath.mpf(v)
            if v * rate >= 1e-290:
                groups.append(np.asarray(_binomial_log_pmf(k, v * rate, 0, k), dtype=np.longdouble))
                continue
            lr, lq = mpmath.log(rho), mpmath.log1p(-rho)
            groups.append(np.array([mpmath.nstr(mpmath.log(mpmath.binomial(k, j)) + j * lr
                                                + (k - j) * lq, 30) for j in range(k + 1)],
                                   dtype=np.longdouble))
    log_z = _log_space_convolve(groups)
    lp, lq, lr = _mixture(log_z, log_z, 1.0)
    laws = _Laws(lp, lq, lr, True, None, _poisson_tail_ratio(1.0), NO_REST)
    return _pair_curve(laws, None, "Poisson-binomial shift")._core


def _log_space_convolve(groups):
    """ln of the convolution of pmfs given as extended-precision log arrays."""
    ld = np.longdouble
    log_z = np.zeros(1, dtype=ld)
    for lb in groups:
        k = lb.size - 1
        if k == 1:
            ninf = np.full(1, -np.inf, dtype=ld)
            log_z = np.logaddexp(np.concatenate((log_z, ninf)) + lb[0],
                                 np.concatenate((ninf, log_z)) + lb[1])
            continue
        grid = np.full((k + 1, log_z.size + k), -np.inf, dtype=ld)
        for j in range(k + 1):
            grid[j, j:j + log_z.size] = log_z + lb[j]
        top = grid.max(axis=0)
        log_z = top + np.log(np.exp(grid - top).sum(axis=0))
    return log_z


def _poisson_binomial_window(probs):
    """(first, ln pmf on the window, log_rest) of a sum of independent
    Bernoulli(probs), equal values grouped into binomials, by the product tree
    of convolve.c (direct convolution in extended precision, trimmed at
    noisy.DROP_NATS below the largest atom with the trimmed mass bounded: the
    tree multiplies in linear extended precision, whose range ends near
    e^-11355, so unlike _window it cuts even small supports, noisy or not).  Its cost is estimated
    first and a tree above MAX_SUPPORT atoms or MAX_CONVOLUTION_WORK
    multiply-adds is refused before any work."""
    probs = probs[(probs > 0.0) & (probs < 1.0)]   # known records only shift the count
    if probs.size == 0:
        return 0, np.zeros(1, dtype=np.longdouble), -math.inf
    values, counts = np.unique(probs, return_counts=True)
    drop = noisy.DROP_NATS
    width, work = _product_tree_work(values, counts.astype(np.float64), drop)
    _check_support(int(width) + 1, "number of records with 0 < pi < 1")
    if work > MAX_CONVOLUTION_WORK:
        raise ValueError(
            f"the exact convolution of {probs.size:,} per-record probabilities "
            f"({values.size:,} distinct) would take about {work:.1e} extended-precision "
            f"multiply-adds (~{work / CONVOLUTION_RATE:.0f} s here); the limit is "
            f"{MAX_CONVOLUTION_WORK:.0e} (statpriv.counting.MAX_CONVOLUTION_WORK).  Use "
            f"fewer records, or fewer distinct values of pi (equal values are grouped "
            f"into one binomial: e.g. round pi)")
    args = (np.ascontiguousarray(values), np.ascontiguousarray(counts, dtype=np.float64),
            drop, MAX_SUPPORT)
    if work < PROGRESS_SECONDS * CONVOLUTION_RATE:
        first, log_z, log_rest = _core.binomial_sum_window(*args)
        if log_rest > -math.inf and probs.size <= EXACT_LOG_RECORDS:
            # the tree's linear range cut atoms that deep tails need (delta_plus
            # at large eps is the top atoms, e.g. a product of pi_j ~ 1e-300):
            # few records, so convolve the whole support in log space instead
            return 0, _log_space_poisson_binomial(values, counts), -math.inf
        return first, log_z, log_rest
    from tqdm.auto import tqdm     # only for long runs; disable=None: off when not a terminal

    with tqdm(total=work, disable=None, unit="MAC", unit_scale=True, leave=False,
              desc=f"convolving {probs.size:,} per-record pi") as bar:
        return _core.binomial_sum_window(*args, progress=bar, step=work / 200.0)


def counting(n, pi, *, sample_size=None, sample_rate=None, sampling="without_replacement",
             noise=None, approx=None):
    """Privacy curve of a count over n records, noiseless or with added noise.

    Parameters
    ----------
    n : int >= 1, or None when ``pi`` is an array
        Number of records, the target included.
    pi : float in [0, 1] or array of n-1 floats in [0, 1]
        Probability that a record has the property: one value for iid records
        (the others' count is S ~ Bin(n-1, pi)), or one per other record
        (S is Poisson-binomial; records with pi_j in {0, 1} are known to the
        attacker and dropped, docs/mathematics.md §2).
    sample_size : int in [1, n], optional
        Count over a uniform sample of m records without replacement
        (Breutigam & Reischuk Thm 4.1).  Rate lambda = m/n; with the counts B_k ~ Bin(k, pi),
        P(j) = lambda B_{m-1}(j-1) + (1-lambda) B_m(j) and
        Q(j) = lambda B_{m-1}(j) + (1-lambda) B_m(j).
    sample_rate : float in (0, 1], optional
        With ``sampling="without_replacement"``: m = round(rate * n).  With
        ``sampling="poisson"``: every record kept independently with this
        probability (Smith 2009 Alg. 2): Q = Z, P = rate (Z+1) + (1-rate) Z,
        Z the sampled others' count.
    sampling : "without_replacement" or "poisson"
    noise : statpriv.Laplace, statpriv.Gaussian or statpriv.Geometric, optional
        Noise added to the (sampled) count, in count units (docs/mathematics.md §6).  The
        curve is then H_eps(P*N || Q*N), computed exactly: closed-form cell
        integrals for Laplace, exact convolution for geometric, normal tail
        sums at the exact sign changes for Gaussian.
    approx : None or "normal"
        "normal" replaces the binomial count by a normal one (Breutigam & Reischuk
        Lemma 6): the curve is the Gaussian DP curve with
        sigma_eff = sqrt((n-1) pi (1-pi) + sigma^2).  An approximation, kept to
        reproduce Breutigam & Reischuk's figures; the curve says ``exact=False``.  iid pi,
        no sampling, noise None or Gaussian only.

    Returns
    -------
    PrivacyCurve
        delta_plus(eps) = H_eps(P||Q) (target has the property),
        delta_minus(eps) = H_eps(Q||P).  Without sampling and iid pi,
        delta_plus(eps) = P[S >= k-1] - e^eps P[S >= k] with
        k = floor(e^eps pi n / (1 - pi + e^eps pi)) + 1 (docs/mathematics.md §3), summed
        from the threshold outward in log space.

    Examples
    --------
    >>> curve = counting(1000, 0.5)
    >>> round(curve.delta(0.01), 12)
    0.020655553064
    >>> print(f"{curve.epsilon(1e-3):.10f}")     # smallest eps with delta(eps) <= 1e-3
    0.1128158312
    >>> print(f"{counting(1000, 0.5, sample_size=100).delta(0.01):.10e}")
    3.9920818948e-03
    """
    _validate.choice("sampling", sampling, ("without_replacement", "poisson"))
    per_record = _validate.ndim("pi", pi) > 0          # ragged: an error naming pi
    if per_record:
        probs = _validate.real_array("pi", pi, low=0.0, high=1.0, dims=(1,))
        if n is None:
            n = probs.size + 1
        n = _validate.count("n", n, low=1)
        if probs.size != n - 1:
            raise ValueError(f"pi must hold the n-1 = {n - 1} other records' probabilities, "
                             f"got {probs.size}")
    else:
        if n is None:
            raise ValueError("n is required when pi is a single probability")
        n = _validate.count("n", n, low=1)
        pi = _validate.probability("pi", pi)

    if sample_size is not None and sample_rate is not None:
        raise ValueError("give sample_size or sample_rate, not both")
    if sample_size is not None and sampling == "poisson":
        raise ValueError("sampling='poisson' takes sample_rate, not sample_size")
    if sample_rate is not None:
        sample_rate = _validate.real("sample_rate", sample_rate, low=0.0, high=1.0, low_open=True)
        if sampling == "without_replacement":
            sample_size = round(sample_rate * n)
            if sample_size < 1:
                raise ValueError(f"sample_rate * n must round to at least 1 record, "
                                 f"got {sample_rate} * {n}")
    if sample_size is not None:
        sample_size = _validate.count("sample_size", sample_size, low=1, high=n)
        sample_rate = None

    if noise is not None and not isinstance(noise, Noise):
        raise ValueError(f"noise must be statpriv.Laplace, Gaussian or Geometric, got {noise!r}")
    _validate.choice("approx", approx, (None, "normal"))
    if approx == "normal":
        return _normal_approximation(n, pi, per_record, sample_size, sample_rate, noise)

    ref_pi = probs.tolist() if per_record else pi
    noise_ref = None if noise is None else (noise.kind, noise.param)

    def ref(eps, direction):
        if noise_ref is not None:
            return oracle.noisy_counting_delta(n, ref_pi, eps, noise_ref,
                                               sample_size=sample_size,
                                               sample_rate=sample_rate, sampling=sampling,
                                               direction=direction)
        return oracle.counting_delta(n, ref_pi, eps, sample_size=sample_size,
                                     sample_rate=sample_rate, sampling=sampling,
                                     direction=direction)

    if per_record:
        if sample_size is not None and sample_size < n:
            raise ValueError("sample_size (sampling without replacement) needs iid records: "
                             "pass pi as a single probability, or use sampling='poisson'")
        rate = 1.0 if sample_rate is None else sample_rate
        if noise is None and rate < 1.0:
            # P - e^eps Q = rate (Z(k-1) - e^eps' Z(k)) and Q - e^eps P =
            # c (Z(k) - e^eps'' Z(k-1)) (see _poisson_curve_core): the curve of
            # the unsampled Poisson-binomial Z of rate * pi_j, reduced
            import mpmath
            with mpmath.workdps(40):
                l1g_hi, l1g_lo = _dd(mpmath.log1p(-mpmath.mpf(rate)))
            inner = _tiny_rate_products_core(probs, rate)
            if inner is None:
                inner = counting(None, rate * probs)._core
            return PrivacyCurve(_core.SampledShiftCurveCore(inner, rate, l1g_hi, l1g_lo), ref,
                                f"counting n={n}, per-record pi, poisson rate={rate}")
        first, log_z, log_rest = _poisson_binomial_window(rate * probs)
        lp, lq, lr = _mixture(log_z, log_z, rate)
        lr_lo = None
        # Q/P <= 1/(1 - rate) at every atom (P/Q unbounded: P(j) > 0 = Q(j) at the top)
        lr_min = -math.inf if rate == 1.0 else -_float_up(-_log1p_mp(-rate))
        rest = (log_rest, log_rest, math.inf, lr_min)
        if rate < 1.0:
            # P(j)/Q(j) = 1 + rate (Z(j-1)/Z(j) - 1): log1p of a product with
            # the rate keeps its relative accuracy at tiny rates (a difference
            # of the mixture logs does not); inf where Z(j) = 0.
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                shifted = np.concatenate(([-np.inf], log_z))[:len(lr)]
                same = np.concatenate((log_z, [-np.inf]))[:len(lr)]
                closed = np.log1p(np.longdouble(rate) * np.expm1(shifted - same))
            lr = np.where(np.isfinite(same), closed, lr)
            lr_lo = np.zeros(len(lr), dtype=np.longdouble)
            if first == 0:
                # P(0)/Q(0) = 1 - rate exactly: the zero point of delta_minus
                lr[0] = np.log1p(-np.longdouble(rate))
                import mpmath
                with mpmath.workdps(40):
                    lr_lo[0] = float(_log1p_mp(-rate) - _mpf_exact(lr[0]))
        kind = "" if rate == 1.0 else f", poisson rate={rate}"
        laws = _Laws(lp, lq, lr, rate == 1.0, lr_lo, _poisson_tail_ratio(rate), rest)
        laws.start = first              # the atom of index 0 (PrivacyCurve.log_pmfs)
        return _pair_curve(laws, ref,
                           f"counting n={n}, per-record pi{kind}", noise)
    if sample_rate is not None:
        core = None if noise is not None else _poisson_curve_core(n, pi, sample_rate)
        if core is not None:
            return PrivacyCurve(core, ref,
                                f"counting n={n}, pi={pi}, poisson rate={sample_rate}")
        return _pair_curve(_poisson_sample_laws(n, pi, sample_rate, noise is not None), ref,
                           f"counting n={n}, pi={pi}, poisson rate={sample_rate}", noise)
    if sample_size is not None and sample_size < n:
        return _pair_curve(_subsample_laws(n, pi, sample_size, noise is not None), ref,
                           f"counting n={n}, pi={pi}, sample_size={sample_size}", noise)
    if noise is not None:
        drop = None if isinstance(noise, Gaussian) else noisy.DROP_NATS   # see _pair_curve
        return _pair_curve(_binomial_window_laws(n - 1, pi, drop), ref,
                           f"counting n={n}, pi={pi}", noise)
    curve = PrivacyCurve(_core.BinomialCurveCore(float(n - 1), pi), ref,
                         f"counting n={n}, pi={pi}")
    curve._log_pmfs = lambda: discrete._binomial_shift_log_pmfs(n, pi)
    return curve


def _normal_approximation(n, pi, per_record, sample_size, sample_rate, noise):
    """Breutigam & Reischuk Lemma 6: S ~ N(mu, (n-1) pi (1-pi)), so the noisy count is a
    Gaussian mechanism with sigma_eff^2 = (n-1) pi (1-pi) + sigma^2."""
    if per_record or sample_size is not None or sample_rate is not None:
        raise ValueError("approx='normal' takes iid pi without sampling (Breutigam & Reischuk Lemma 6)")
    if noise is not None and not isinstance(noise, Gaussian):
        raise ValueError("approx='normal' takes noise=None or statpriv.Gaussian")
    sigma_noise = 0.0 if noise is None else noise.sigma
    variance = (n - 1) * pi * (1.0 - pi) + sigma_noise ** 2
    if variance <= 0.0:
        raise ValueError("approx='normal' needs randomness: 0 < pi < 1 (and n > 1) or noise")
    sigma = math.sqrt(variance)

    def ref(eps, direction):
        return oracle.normal_approx_delta(n, pi, eps, sigma_noise, direction=direction)

    return PrivacyCurve(_core.DPCurveCore("gaussian", sigma), ref,
                        f"counting n={n}, pi={pi}, noise={noise!r}, normal approximation "
                        f"(Breutigam & Reischuk Lemma 6, sigma_eff={sigma:.6g})", exact=False)


def secret_sample(n, sample_size, positives, *, noise=None):
    """Curve when the attacker knows the population but not the sample (Smith 2009 §3).

    K = ``positives`` of the n-1 other records have the property; a uniform
    sample of m = ``sample_size`` of the n records is counted.  With
    H_k(j) = C(K, j) C(n-1-K, k-j) / C(n-1, k) and lambda = m/n,
    P(j) = lambda H_{m-1}(j-1) + (1-lambda) H_m(j),
    Q(j) = lambda H_{m-1}(j) + (1-lambda) H_m(j).
    The worst case over K is the DP guarantee delta = lambda (docs/mathematics.md §5).
    ``noise`` (statpriv.Laplace, Gaussian, Geometric) is added to the count.

    Examples
    --------
    >>> curve = secret_sample(100, 10, positives=30)
    >>> print(f"{curve.delta(0.05):.10e}")
    1.0696330864e-02
    >>> print(f"{curve.epsilon(0.0):.10f}")      # delta = 0 from ln(31/21) on
    0.3894647668
    """
    n = _validate.count("n", n, low=1)
    m = _validate.count("sample_size", sample_size, low=1, high=n)
    K = _validate.count("positives", positives, low=0, high=n - 1)
    if noise is not None and not isinstance(noise, Noise):
        raise ValueError(f"noise must be statpriv.Laplace, Gaussian or Geometric, got {noise!r}")
    N = float(n - 1)
    # windows of H_{m-1} and H_m (log-concave; the full supports when small,
    # see _window), the rest bounded in _Laws.rest
    noisy_path = noise is not None
    first, last, rest_in = _hypergeom_window(n - 1, K, m - 1, noisy_path)
    last += 1                       # P(j) = ... H_{m-1}(j - 1)
    rest_out = -math.inf
    if m < n:
        b0, b1, rest_out = _hypergeom_window(n - 1, K, m, noisy_path)
        first, last = min(first, b0), max(last, b1)
    _check_support(last - first + 1, "sample_size (or n)")
    j = first + np.arange(last - first + 1, dtype=np.float64)
    log_in = _core.log_hypergeom_pmf(j[j <= m - 1], N, float(K), float(m - 1))
    log_out = _core.log_hypergeom_pmf(j, N, float(K), float(m)) if m < n else np.full(1, -np.inf)
    rate = m / n
    ln = np.log(np.longdouble(n))
    log_weights = (np.log(np.longdouble(m)) - ln,
                   np.log(np.longdouble(n - m)) - ln if m < n else np.longdouble(-np.inf))
    lp, lq, lr = _mixture(log_in, log_out, rate, log_weights)
    log_rest = _mixture_rest(rest_in, rest_out, log_weights)
    rest = (log_rest, log_rest, math.inf, -math.inf)
    lr_lo = tail_ratio = None
    if m < n:
        # P(j)/Q(j) in closed form: with A = H_{m-1}, B = H_m and lambda = m/n,
        # lambda A(j-1)/B(j) + 1 - lambda = (N-m+1)/n (K+1)/(K-j+1) and
        # lambda A(j)/B(j) + 1 - lambda = (N-m+1)/n (N-K+1)/(N-K-m+j+1), so
        # P/Q = (K+1)(N-K-m+j+1) / ((K-j+1)(N-K+1)): two log1p of exact
        # integer quotients (inf where Q = 0 < P, -inf where P = 0 < Q).
        ld = np.longdouble
        jj = ld(first) + np.arange(len(lr), dtype=ld)
        with np.errstate(divide="ignore", invalid="ignore"):
            t1 = np.log1p((jj - m) / ld(N - K + 1))
            t2 = np.log1p(-jj / ld(K + 1))
            exact_lr = t1 - t2
        live = np.isfinite(lp) | np.isfinite(lq)
        lr = np.where(live, exact_lr, lr)
        err = 4e-19 * (np.abs(t1.astype(np.float64)) + np.abs(t2.astype(np.float64)))

        def exact(j):              # at the absolute atom j
            import mpmath
            return mpmath.log1p(mpmath.mpf(j - m) / (N - K + 1)) - mpmath.log1p(-mpmath.mpf(j) / (K + 1))

        lr_lo = _refine_log_ratio(lp, lq, lr, err, lambda i: exact(first + i))
        # true extreme atoms of P and Q
        rest = rest[:2] + _rest_ratio_bounds(exact, max(0, m - 1 - (n - 1 - K)), min(K + 1, m))
        if m <= _MAX_TAIL_SUM:
            tail_ratio = _secret_tail_ratio(int(N), K, m)

    def ref(eps, direction):
        if noise is not None:
            raise ValueError("the mpmath reference covers secret_sample without noise")
        return oracle.secret_sample_delta(n, m, K, eps, direction=direction)

    laws = _Laws(lp, lq, lr, m == n, lr_lo, (lambda w: w) if m == n else tail_ratio, rest)
    laws.start = first                  # the atom of index 0 (PrivacyCurve.log_pmfs)
    return _pair_curve(laws, ref, f"secret sample n={n}, sample_size={m}, positives={K}", noise)


# Largest sample for which the secret sample's generating functions are summed
# in mpmath (for the exact zero point with Laplace/geometric noise).
_MAX_TAIL_SUM = 2000


def _secret_tail_ratio(N, K, m):
    """G_P(w)/G_Q(w) for the secret sample's mixture of hypergeometric laws."""
    import math

    def tail_ratio(w):
        import mpmath

        def G(draws):      # sum_j C(K, j) C(N-K, draws-j) w^j  (common 1/C(N, draws) dropped)
            return mpmath.fsum(math.comb(K, j) * math.comb(N - K, draws - j) * w ** j
                               for j in range(max(0, draws - (N - K)), min(K, draws) + 1))

        lam = mpmath.mpf(m) / (N + 1)
        ga = G(m - 1) / math.comb(N, m - 1)
        gb = G(m) / math.comb(N, m)
        return (lam * w * ga + (1 - lam) * gb) / (lam * ga + (1 - lam) * gb)
    return tail_ratio
