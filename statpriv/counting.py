"""Privacy curves of counting (property) queries, noiseless or with added noise.

The released value is the number of records with a property (plus noise).  Records are
independent, record j has the property with probability pi_j, the attacker
targets record 1 and knows everything but the others' values.  With S the
count of the others, delta_plus(eps) = H_eps(S+1 || S) and delta_minus(eps) =
H_eps(S || S+1) (MATH.md §2; seed 000 Thm 4.2).  Sampling mixes the two
laws (MATH.md §4; seed 000 Thm 4.1, seed 001).  Noise is added to either
law (MATH.md §5, statpriv.noisy).
"""
import math

import numpy as np

from statpriv import _core, _validate, noisy, reference
from statpriv.curve import PrivacyCurve
from statpriv.noise import Gaussian, Noise

# Largest support the array path (sampling, per-record pi) precomputes.
MAX_SUPPORT = 50_000_000


class _Laws(tuple):
    """(lp, lq, lr, monotone_ratio) of a count pair, with two optional extras:

    lr_lo : low parts of the log ratio (ln P/Q = lr + lr_lo to ~1e-30 on the
        cells where a closed form was evaluated in higher precision), or None;
    tail_ratio : callable w -> G_P(w) / G_Q(w) as an mpmath number, the ratio
        of the generating functions sum_k P(k) w^k, exactly (from the
        definitions, not from the arrays), or None.  With Laplace(b) noise the
        density ratio beyond the last atom is this at w = e^(1/b) (before the
        first atom: w = e^(-1/b)), with geometric(alpha) noise at w = 1/alpha
        (alpha); for these monotone-ratio laws that is the largest (smallest)
        ratio, i.e. the zero point of delta_plus (delta_minus).
    """

    def __new__(cls, lp, lq, lr, monotone_ratio, lr_lo=None, tail_ratio=None):
        self = super().__new__(cls, (lp, lq, lr, monotone_ratio))
        self.lr_lo = lr_lo
        self.tail_ratio = tail_ratio
        return self


def _pair_curve(laws, reference_fn, description, noise=None):
    """Wrap count laws (_Laws or (lp, lq, lr, monotone_ratio)) as a curve, with noise if given."""
    lp, lq, lr, monotone_ratio = laws[:4]
    lr_lo = getattr(laws, "lr_lo", None)
    live = np.flatnonzero(np.isfinite(lp) | np.isfinite(lq))
    sl = slice(live[0], live[-1] + 1)
    lp, lq, lr = lp[sl], lq[sl], lr[sl]
    if np.isnan(lr).any():
        raise AssertionError("internal: support of P and Q is not contiguous")
    if noise is not None:
        return PrivacyCurve(noisy.core(lp, lq, noise, monotone_ratio,
                                       tail_ratio=getattr(laws, "tail_ratio", None),
                                       log_ratio=lr),
                            reference_fn, f"{description}, noise={noise!r}")
    if lr_lo is not None:
        lr_lo = lr_lo[sl]
    return PrivacyCurve(_core.PairCurveCore(lp, lq, lr, lr_lo=lr_lo), reference_fn, description)


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
def _binomial_support(N, pi):
    """ln Bin(N, pi) on 0..N; in extended precision with neighbours consistent
    to ~1e-19 for 0 < pi < 1 (see _core.binom_window_logl)."""
    if 0.0 < pi < 1.0:
        return _core.binom_window_logl(float(N), pi, 0, N + 1)
    return _core.log_binom_pmf(float(N), pi, np.arange(N + 1, dtype=np.float64))


def _check_support(size, what):
    if size > MAX_SUPPORT:
        raise ValueError(f"{what} must be at most {MAX_SUPPORT} for the array path, got {size}")


def _subsample_laws(n, pi, m):
    """Sample of m of the n records without replacement, iid Bernoulli(pi)."""
    _check_support(m, "sample_size")
    rate = m / n
    ln = np.log(np.longdouble(n))
    log_weights = (np.log(np.longdouble(m)) - ln,
                   np.log(np.longdouble(n - m)) - ln if m < n else np.longdouble(-np.inf))
    lp, lq, lr = _mixture(_binomial_support(m - 1, pi), _binomial_support(m, pi), rate,
                          log_weights)
    if not 0.0 < pi < 1.0:
        return _Laws(lp, lq, lr, m == n)
    # P(j)/Q(j) in closed form (Breutigam & Reischuk, "Statistical Privacy"):
    # with lambda = m/n, A(j-1)/B(j) = j/(m pi), A(j)/B(j) = (m-j)/(m(1-pi)), so
    # with d = j - m pi, P/Q = (1 + d/(n pi)) / (1 - d/(n (1-pi))): two log1p
    # of small arguments when m/n is small, no rounded rate.  The threshold
    # terms need lr to full relative accuracy, which a difference of logs lacks.
    ld = np.longdouble
    j = np.arange(len(lr), dtype=ld)
    d = j - ld(m) * ld(pi)
    x, y = d / (ld(n) * ld(pi)), -d / (ld(n) * (1 - ld(pi)))
    with np.errstate(divide="ignore"):
        t1, t2 = np.log1p(x), np.log1p(y)
    lr = t1 - t2
    err = (4e-19 * (np.abs(t1.astype(np.float64)) + np.abs(t2.astype(np.float64)))
           + 2e-19 * m * pi * (1 / (n * pi) + 1 / (n * (1 - pi))))

    def exact(jj):
        import mpmath
        p = mpmath.mpf(pi)
        dd = jj - m * p
        return mpmath.log1p(dd / (n * p)) - mpmath.log1p(-dd / (n * (1 - p)))

    def tail_ratio(w):
        import mpmath
        lam, p = mpmath.mpf(m) / n, mpmath.mpf(pi)
        M = 1 + p * (w - 1)            # generating function of Bernoulli(pi)
        return (lam * w + (1 - lam) * M) / (lam + (1 - lam) * M)

    if m == n:
        return _Laws(lp, lq, lr, True, None, lambda w: w)
    return _Laws(lp, lq, lr, False, _refine_log_ratio(lp, lq, lr, err, exact), tail_ratio)


def _poisson_tail_ratio(rate):
    """G_P/G_Q for P = rate Z(.-1) + (1-rate) Z, Q = Z: rate w + 1 - rate."""
    def tail_ratio(w):
        import mpmath
        return 1 + mpmath.mpf(rate) * (w - 1)
    return tail_ratio


def _poisson_sample_laws(n, pi, rate):
    """Each other record kept w.p. rate: Z ~ Bin(n-1, rate*pi), P = rate Z(.-1) + (1-rate) Z."""
    _check_support(n, "n")
    rho = rate * pi
    log_z = _binomial_support(n - 1, rho)
    ld = np.longdouble
    if 0.0 < rho < 1.0:
        # rho is the rounded product; ln Z(k) moves by (k - (n-1) rho)/(rho (1-rho))
        # per unit of rho, which at n ~ 1e7 turns a 1e-16 rounding into 1e-9 in
        # the far tails: correct to first order for the exact rate * pi.
        import mpmath
        with mpmath.workdps(40):
            shift = float(mpmath.mpf(rate) * mpmath.mpf(pi) - mpmath.mpf(rho))
        if shift != 0.0:
            k = np.arange(len(log_z), dtype=ld)
            log_z = log_z + (k - ld(n - 1) * ld(rho)) / (ld(rho) * (1 - ld(rho))) * ld(shift)
    lp, lq, lr = _mixture(log_z, log_z, rate)
    tail_ratio = _poisson_tail_ratio(rate)
    if not 0.0 < rho < 1.0:
        return _Laws(lp, lq, lr, rate == 1.0, None, tail_ratio)
    # P(j)/Q(j) = rate Z(j-1)/Z(j) + 1 - rate = 1 + (j - n rho)/((n - j) pi),
    # rho = rate pi exactly: one log1p, inf at j = n (Q(n) = 0), and
    # ln(1 - rate) at j = 0, the zero point of delta_minus.
    j = np.arange(len(lr), dtype=ld)
    with np.errstate(divide="ignore", invalid="ignore"):
        lr = np.log1p((j - ld(n) * ld(rate) * ld(pi)) / ((ld(n) - j) * ld(pi)))
    lr[n] = np.inf
    if rate == 1.0:
        lr[0] = -np.inf
    jf = np.arange(len(lr), dtype=np.float64)
    err = 4e-19 * np.abs(lr.astype(np.float64)) + 2e-19 * n * rate / np.maximum(n - jf, 1)

    def exact(jj):
        import mpmath
        lam, p = mpmath.mpf(rate), mpmath.mpf(pi)
        return mpmath.log1p((jj - n * lam * p) / ((n - jj) * p))

    return _Laws(lp, lq, lr, rate == 1.0,
                 None if rate == 1.0 else _refine_log_ratio(lp, lq, lr, err, exact),
                 tail_ratio)


def _binomial_window_laws(N, pi):
    """Shift laws of Bin(N, pi) restricted to the atoms within noisy.DROP_NATS
    of the mode, found by bisection on the concave log pmf (O(log N) calls)."""
    def log_pmf(k):
        return _core.log_binom_pmf(float(N), pi, np.array([float(k)]))[0]

    mode = min(max(math.floor((N + 1) * pi), 0), N)
    floor = log_pmf(mode) - noisy.DROP_NATS
    lo, hi = 0, mode                      # first k in [0, mode] above the floor
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if log_pmf(mid) >= floor else (mid + 1, hi)
    first = lo
    lo, hi = mode, N                      # last k in [mode, N] above the floor
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if log_pmf(mid) >= floor else (lo, mid - 1)
    log_z = _core.binom_window_logl(float(N), pi, first, lo - first + 1)
    lp, lq, lr = _mixture(log_z, log_z, 1.0)
    return _Laws(lp, lq, lr, True, None, lambda w: w)


def _poisson_binomial_log_pmf(probs):
    """ln pmf of a sum of independent Bernoulli(probs), grouping equal values."""
    probs = probs[(probs > 0.0) & (probs < 1.0)]   # known records only shift the count
    if probs.size == 0:
        return np.zeros(1, dtype=np.longdouble)
    values, counts = np.unique(probs, return_counts=True)
    return _core.binomial_sum_log_pmf(np.ascontiguousarray(values),
                                      np.ascontiguousarray(counts, dtype=np.float64))


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
        attacker and dropped, MATH.md §2).
    sample_size : int in [1, n], optional
        Count over a uniform sample of m records without replacement
        (seed 000 Thm 4.1).  Rate lambda = m/n; with the counts B_k ~ Bin(k, pi),
        P(j) = lambda B_{m-1}(j-1) + (1-lambda) B_m(j) and
        Q(j) = lambda B_{m-1}(j) + (1-lambda) B_m(j).
    sample_rate : float in (0, 1], optional
        With ``sampling="without_replacement"``: m = round(rate * n).  With
        ``sampling="poisson"``: every record kept independently with this
        probability (seed 001 Alg. 2): Q = Z, P = rate (Z+1) + (1-rate) Z,
        Z the sampled others' count.
    sampling : "without_replacement" or "poisson"
    noise : statpriv.Laplace, statpriv.Gaussian or statpriv.Geometric, optional
        Noise added to the (sampled) count, in count units (MATH.md §5).  The
        curve is then H_eps(P*N || Q*N), computed exactly: closed-form cell
        integrals for Laplace, exact convolution for geometric, normal tail
        sums at the exact sign changes for Gaussian.
    approx : None or "normal"
        "normal" replaces the binomial count by a normal one (seed 000
        Lemma 6): the curve is the Gaussian DP curve with
        sigma_eff = sqrt((n-1) pi (1-pi) + sigma^2).  An approximation, kept to
        reproduce seed 000's figures; the curve says ``exact=False``.  iid pi,
        no sampling, noise None or Gaussian only.

    Returns
    -------
    PrivacyCurve
        delta_plus(eps) = H_eps(P||Q) (target has the property),
        delta_minus(eps) = H_eps(Q||P).  Without sampling and iid pi,
        delta_plus(eps) = P[S >= k-1] - e^eps P[S >= k] with
        k = floor(e^eps pi n / (1 - pi + e^eps pi)) + 1 (MATH.md §3), summed
        from the threshold outward in log space.

    Examples
    --------
    >>> curve = counting(1000, 0.5)
    >>> round(curve.delta(0.01), 12)
    0.020655553064
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
        _check_support(n, "n")
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
            return reference.noisy_counting_delta(n, ref_pi, eps, noise_ref,
                                                  sample_size=sample_size,
                                                  sample_rate=sample_rate, sampling=sampling,
                                                  direction=direction)
        return reference.counting_delta(n, ref_pi, eps, sample_size=sample_size,
                                        sample_rate=sample_rate, sampling=sampling,
                                        direction=direction)

    if per_record:
        if sample_size is not None and sample_size < n:
            raise ValueError("sample_size (sampling without replacement) needs iid records: "
                             "pass pi as a single probability, or use sampling='poisson'")
        rate = 1.0 if sample_rate is None else sample_rate
        log_z = _poisson_binomial_log_pmf(rate * probs)
        lp, lq, lr = _mixture(log_z, log_z, rate)
        lr_lo = None
        if rate < 1.0:
            # P(j)/Q(j) = 1 + rate (Z(j-1)/Z(j) - 1): log1p of a product with
            # the rate keeps its relative accuracy at tiny rates (a difference
            # of the mixture logs does not); inf where Z(j) = 0.
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                shifted = np.concatenate(([-np.inf], log_z))[:len(lr)]
                same = np.concatenate((log_z, [-np.inf]))[:len(lr)]
                closed = np.log1p(np.longdouble(rate) * np.expm1(shifted - same))
            lr = np.where(np.isfinite(same), closed, lr)
            # P(0)/Q(0) = 1 - rate exactly: the zero point of delta_minus
            lr[0] = np.log1p(-np.longdouble(rate))
            lr_lo = np.zeros(len(lr), dtype=np.longdouble)
            import mpmath
            with mpmath.workdps(40):
                lr_lo[0] = float(mpmath.log1p(-mpmath.mpf(rate)) - _mpf_exact(lr[0]))
        kind = "" if rate == 1.0 else f", poisson rate={rate}"
        return _pair_curve(_Laws(lp, lq, lr, rate == 1.0, lr_lo, _poisson_tail_ratio(rate)), ref,
                           f"counting n={n}, per-record pi{kind}", noise)
    if sample_rate is not None:
        return _pair_curve(_poisson_sample_laws(n, pi, sample_rate), ref,
                           f"counting n={n}, pi={pi}, poisson rate={sample_rate}", noise)
    if sample_size is not None and sample_size < n:
        return _pair_curve(_subsample_laws(n, pi, sample_size), ref,
                           f"counting n={n}, pi={pi}, sample_size={sample_size}", noise)
    if noise is not None:
        return _pair_curve(_binomial_window_laws(n - 1, pi), ref,
                           f"counting n={n}, pi={pi}", noise)
    return PrivacyCurve(_core.BinomialCurveCore(float(n - 1), pi), ref,
                        f"counting n={n}, pi={pi}")


def _normal_approximation(n, pi, per_record, sample_size, sample_rate, noise):
    """Seed 000 Lemma 6: S ~ N(mu, (n-1) pi (1-pi)), so the noisy count is a
    Gaussian mechanism with sigma_eff^2 = (n-1) pi (1-pi) + sigma^2."""
    if per_record or sample_size is not None or sample_rate is not None:
        raise ValueError("approx='normal' takes iid pi without sampling (seed 000 Lemma 6)")
    if noise is not None and not isinstance(noise, Gaussian):
        raise ValueError("approx='normal' takes noise=None or statpriv.Gaussian")
    sigma_noise = 0.0 if noise is None else noise.sigma
    variance = (n - 1) * pi * (1.0 - pi) + sigma_noise ** 2
    if variance <= 0.0:
        raise ValueError("approx='normal' needs randomness: 0 < pi < 1 (and n > 1) or noise")
    sigma = math.sqrt(variance)

    def ref(eps, direction):
        return reference.normal_approx_delta(n, pi, eps, sigma_noise, direction=direction)

    return PrivacyCurve(_core.DPCurveCore("gaussian", sigma), ref,
                        f"counting n={n}, pi={pi}, noise={noise!r}, normal approximation "
                        f"(seed 000 Lemma 6, sigma_eff={sigma:.6g})", exact=False)


def secret_sample(n, sample_size, positives, *, noise=None):
    """Curve when the attacker knows the population but not the sample (seed 001 §3).

    K = ``positives`` of the n-1 other records have the property; a uniform
    sample of m = ``sample_size`` of the n records is counted.  With
    H_k(j) = C(K, j) C(n-1-K, k-j) / C(n-1, k) and lambda = m/n,
    P(j) = lambda H_{m-1}(j-1) + (1-lambda) H_m(j),
    Q(j) = lambda H_{m-1}(j) + (1-lambda) H_m(j).
    The worst case over K is the DP guarantee delta = lambda (MATH.md §4).
    ``noise`` (statpriv.Laplace, Gaussian, Geometric) is added to the count.
    """
    n = _validate.count("n", n, low=1)
    m = _validate.count("sample_size", sample_size, low=1, high=n)
    K = _validate.count("positives", positives, low=0, high=n - 1)
    _check_support(m, "sample_size")
    N = float(n - 1)
    j = np.arange(m + 1, dtype=np.float64)
    log_in = _core.log_hypergeom_pmf(j[:m], N, float(K), float(m - 1))
    log_out = _core.log_hypergeom_pmf(j, N, float(K), float(m)) if m < n else np.full(1, -np.inf)
    rate = m / n
    ln = np.log(np.longdouble(n))
    log_weights = (np.log(np.longdouble(m)) - ln,
                   np.log(np.longdouble(n - m)) - ln if m < n else np.longdouble(-np.inf))
    lp, lq, lr = _mixture(log_in, log_out, rate, log_weights)
    lr_lo = tail_ratio = None
    if m < n:
        # P(j)/Q(j) in closed form: with A = H_{m-1}, B = H_m and lambda = m/n,
        # lambda A(j-1)/B(j) + 1 - lambda = (N-m+1)/n (K+1)/(K-j+1) and
        # lambda A(j)/B(j) + 1 - lambda = (N-m+1)/n (N-K+1)/(N-K-m+j+1), so
        # P/Q = (K+1)(N-K-m+j+1) / ((K-j+1)(N-K+1)): two log1p of exact
        # integer quotients (inf where Q = 0 < P, -inf where P = 0 < Q).
        ld = np.longdouble
        jj = np.arange(len(lr), dtype=ld)
        with np.errstate(divide="ignore", invalid="ignore"):
            t1 = np.log1p((jj - m) / ld(N - K + 1))
            t2 = np.log1p(-jj / ld(K + 1))
            exact_lr = t1 - t2
        live = np.isfinite(lp) | np.isfinite(lq)
        lr = np.where(live, exact_lr, lr)
        err = 4e-19 * (np.abs(t1.astype(np.float64)) + np.abs(t2.astype(np.float64)))

        def exact(j):
            import mpmath
            return mpmath.log1p(mpmath.mpf(j - m) / (N - K + 1)) - mpmath.log1p(-mpmath.mpf(j) / (K + 1))

        lr_lo = _refine_log_ratio(lp, lq, lr, err, exact)
        if m <= _MAX_TAIL_SUM:
            tail_ratio = _secret_tail_ratio(int(N), K, m)

    if noise is not None and not isinstance(noise, Noise):
        raise ValueError(f"noise must be statpriv.Laplace, Gaussian or Geometric, got {noise!r}")

    def ref(eps, direction):
        if noise is not None:
            raise ValueError("the mpmath reference covers secret_sample without noise")
        return reference.secret_sample_delta(n, m, K, eps, direction=direction)

    laws = _Laws(lp, lq, lr, m == n, lr_lo, (lambda w: w) if m == n else tail_ratio)
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
