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

NO_REST = (-math.inf, -math.inf, math.inf, -math.inf)


def _pair_curve(laws, reference_fn, description, noise=None):
    """Wrap count laws (lp, lq, lr, monotone_ratio[, rest]) as a curve, with noise if given.

    The arrays may be sub-measures of the true laws on a window (P = P_w + R_P
    with R_P >= 0 atom by atom, total mass <= e^log_rest_p, same for Q);
    ``rest = (log_rest_p, log_rest_q, lr_max, lr_min)`` then adds the bound
    rest_p (1 - e^(eps - lr_max))_+ (rest_q (1 - e^(eps + lr_min))_+ for
    delta_minus) to the window's curve, lr_max/lr_min bounding ln P/Q over
    the full laws (the arrays' lr is that true ratio, so R_P's terms obey it).
    delta_plus is exactly 0 from eps = lr_max on (delta_minus from -lr_min),
    with or without noise (bounded.h).  The result is never below the true
    curve and equals it wherever delta >> rest: with windows cut at
    noisy.DROP_NATS = 3000 nats below the largest atom, rest <= (n + 1) e^-3000,
    so every delta above e^-2900 is exact to far below 1e-12 relative, smaller
    ones (ln delta < -2900) are certified upper bounds, and ln delta = -inf
    still only where delta is exactly 0.
    """
    lp, lq, lr, monotone_ratio = laws[:4]
    log_rest_p, log_rest_q, lr_max, lr_min = laws[4] if len(laws) > 4 else NO_REST
    live = np.flatnonzero(np.isfinite(lp) | np.isfinite(lq))
    sl = slice(live[0], live[-1] + 1)
    lp, lq, lr = lp[sl], lq[sl], lr[sl]
    if np.isnan(lr).any():
        raise AssertionError("internal: support of P and Q is not contiguous")
    # delta_plus = 0 from eps = sup ln P/Q on, also after adding noise (each
    # noisy density is a mixture of the atoms' pairs), and from the noise's
    # own bound on (Laplace, geometric)
    zero_plus, zero_minus = lr_max, -lr_min
    if noise is not None:
        lp, lq, cut_p, cut_q = noisy.trim_bounded(np.asarray(lp, dtype=np.longdouble),
                                                  np.asarray(lq, dtype=np.longdouble))
        log_rest_p = float(np.logaddexp(log_rest_p, cut_p))
        log_rest_q = float(np.logaddexp(log_rest_q, cut_q))
        # the noisy kernels compare the sub-measures themselves: the rest is
        # bounded by its mass alone
        lr_max, lr_min = math.inf, -math.inf
        zero_plus = min(zero_plus, noisy.max_log_ratio(noise))
        zero_minus = min(zero_minus, noisy.max_log_ratio(noise))
        core = noisy.core(lp, lq, noise, monotone_ratio)
        description = f"{description}, noise={noise!r}"
    else:
        core = _core.PairCurveCore(lp, lq, lr)
    if log_rest_p > -math.inf or log_rest_q > -math.inf:
        core = _core.BoundedCurveCore(core, log_rest_p, log_rest_q, lr_max, lr_min,
                                      zero_plus, zero_minus)
    return PrivacyCurve(core, reference_fn, description)


def _mixture(log_a, log_b, rate):
    """Logs of P(j) = rate A(j-1) + (1-rate) B(j), Q(j) = rate A(j) + (1-rate) B(j).

    A is the law of the others' count when the target is in the sample, B when
    it is not; with rate = 1 this is the plain shift P = A(.-1), Q = A.
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
        log_in, log_out = np.log(rate), np.log1p(-rate)
        lp = np.logaddexp(log_in + shifted, log_out + base)
        lq = np.logaddexp(log_in + same, log_out + base)
    with np.errstate(invalid="ignore"):
        lr = lp - lq
    return lp, lq, lr


def _unimodal_window(log_pmf, lo, hi, mode, drop=None):
    """Window [first, last] of a unimodal law on lo..hi with maximum at ``mode``:
    the atoms with ln pmf >= ln pmf(mode) - drop (noisy.DROP_NATS), found by
    bisection on each side (O(log(hi - lo)) calls of ``log_pmf(k) -> float``).

    Returns (first, last, log_rest), e^log_rest >= the mass outside the window:
    unimodality bounds every atom left of first by pmf(first - 1) and every
    atom right of last by pmf(last + 1), so the rest is at most
    (first - lo) pmf(first - 1) + (hi - last) pmf(last + 1) (doubled against
    the pmf's own rounding).
    """
    drop = noisy.DROP_NATS if drop is None else drop
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


def _binomial_window(N, pi):
    """(first, last, log_rest): the window of Bin(N, pi) (see _unimodal_window)."""
    def log_pmf(k):
        return float(_core.log_binom_pmf(float(N), pi, np.array([float(k)]))[0])

    mode = min(max(math.floor((N + 1) * pi), 0), N)
    return _unimodal_window(log_pmf, 0, N, mode)


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
            f"the laws' window where the mass matters (within {noisy.DROP_NATS:g} nats of "
            f"the largest atom) holds {size:,} atoms, about "
            f"{size * BYTES_PER_ATOM / 2**30:.1f} GiB of working arrays; the limit is "
            f"{MAX_SUPPORT:,} atoms (statpriv.counting.MAX_SUPPORT).  The window grows like "
            f"sqrt(variance of the count): use a smaller {what}")


def _ratio_margin(x, up):
    """x moved outward by ~4.5 ulps: the closed-form ratio bounds below are two
    log1p's of positive terms, each within ~2 ulps (a bound must not round inward)."""
    if not math.isfinite(x):
        return x
    return x + (1 if up else -1) * (1e-15 * abs(x) + 1e-300)


def _subsample_laws(n, pi, m):
    """Sample of m of the n records without replacement, iid Bernoulli(pi).

    The laws are built on the union of the windows of Bin(m-1, pi) and
    Bin(m, pi) (from j = first on); the mass they leave out is bounded in
    the fifth element (see _pair_curve).
    """
    rate = m / n
    a0, a1, rest_a = _binomial_window(m - 1, pi)
    b0, b1, rest_b = _binomial_window(m, pi)
    first, last = min(a0, b0), max(a1 + 1, b1)
    _check_support(last - first + 1, "sample_size (or n)")
    log_a = _binomial_log_pmf(m - 1, pi, first, min(last, m - 1))
    log_b = _binomial_log_pmf(m, pi, first, min(last, m))
    lp, lq, lr = _mixture(log_a, log_b, rate)
    log_rest = float(np.logaddexp(math.log(rate) + rest_a,
                                  (np.log1p(-rate) if rate < 1.0 else -math.inf) + rest_b))
    lr_max, lr_min = math.inf, -math.inf
    if 0.0 < pi < 1.0:
        if rate < 1.0:      # the closed-form ratio below at j = m and j = 0
            lr_max = _ratio_margin(math.log1p(rate * (1.0 - pi) / pi) - math.log1p(-rate), True)
            lr_min = _ratio_margin(math.log1p(-rate) - math.log1p(rate * pi / (1.0 - pi)), False)
        # Q+(j) = P(j)/Q(j) in closed form (MATH.md §4): the threshold terms
        # need lr to full relative accuracy, which a difference of logs lacks.
        j = first + np.arange(len(lr), dtype=np.float64)
        with np.errstate(divide="ignore"):
            lr = (np.log(rate * j / (m * pi) + (1.0 - rate))
                  - np.log(rate * (m - j) / (m * (1.0 - pi)) + (1.0 - rate)))
    return lp, lq, lr, m == n, (log_rest, log_rest, lr_max, lr_min)


def _poisson_sample_laws(n, pi, rate):
    """Each other record kept w.p. rate: Z ~ Bin(n-1, rate*pi), P = rate Z(.-1) + (1-rate) Z.

    Z is taken on its window; Q/P <= 1/(1-rate) bounds the rest for delta_minus.
    """
    rho = rate * pi
    first, last, log_rest = _binomial_window(n - 1, rho)
    _check_support(last - first + 2, "n (or sample_rate)")
    log_z = _binomial_log_pmf(n - 1, rho, first, last)
    lp, lq, lr = _mixture(log_z, log_z, rate)
    lr_min = _ratio_margin(math.log1p(-rate), False) if rate < 1.0 else -math.inf
    if 0.0 < rho < 1.0:
        j = first + np.arange(len(lr), dtype=np.float64)
        with np.errstate(divide="ignore"):
            odds = j * (1.0 - rho) / ((n - j) * rho)   # Z(j-1)/Z(j); inf at j = n
            lr = np.log(rate * odds + (1.0 - rate))
    return lp, lq, lr, rate == 1.0, (log_rest, log_rest, math.inf, lr_min)


def _binomial_window_laws(N, pi):
    """Shift laws of Bin(N, pi) restricted to the atoms within noisy.DROP_NATS
    of the mode (_binomial_window), the rest bounded in the fifth element."""
    first, last, log_rest = _binomial_window(N, pi)
    _check_support(last - first + 2, "n")
    log_z = _binomial_log_pmf(N, pi, first, last)
    lp, lq, lr = _mixture(log_z, log_z, 1.0)
    return lp, lq, lr, True, (log_rest, log_rest, math.inf, -math.inf)


def _window_width_bound(variance, atoms):
    """Upper bound on the window of a sum of independent Bernoullis with this
    variance over ``atoms`` atoms: Bernstein's inequality
    P[|S - mu| >= t] <= 2 exp(-t^2 / (2 (variance + t/3))) puts every atom
    farther than t = D/3 + sqrt(D^2/9 + 2 D variance) from the mean below
    e^-DROP_NATS / atoms <= e^-DROP_NATS * max pmf, D = DROP_NATS + ln(2 atoms)."""
    d = noisy.DROP_NATS + np.log(2.0 * atoms)
    t = d / 3.0 + np.sqrt(d * d / 9.0 + 2.0 * d * variance)
    return np.minimum(atoms, 2.0 * np.ceil(t) + 1.0)


def _product_tree_work(values, counts):
    """(final window bound, estimated multiply-adds) of the product tree in
    convolve.c, simulated on (variance, atoms) per node: a merge computes each
    output atom from the terms within 45 nats of its largest, about
    2 sqrt(90 v_a v_b / (v_a + v_b)) + 1 of them (at most min(len a, len b))."""
    var = counts * values * (1.0 - values)
    atoms = counts + 1.0
    width = _window_width_bound(var, atoms)
    work = 0.0
    while var.size > 1:
        even = var.size - var.size % 2
        va, vb = var[0:even:2], var[1:even:2]
        wa, wb = width[0:even:2], width[1:even:2]
        v, a = va + vb, atoms[0:even:2] + atoms[1:even:2] - 1.0
        w = _window_width_bound(v, a)
        terms = np.minimum(np.minimum(wa, wb),
                           2.0 * np.sqrt(90.0 * va * vb / np.maximum(v, 1e-300)) + 1.0)
        work += float(np.sum((wa + wb - 1.0) * terms))
        var = np.concatenate([v, var[even:]])
        atoms = np.concatenate([a, atoms[even:]])
        width = np.concatenate([w, width[even:]])
    return float(width[0]), work


def _poisson_binomial_window(probs):
    """(first, ln pmf on the window, log_rest) of a sum of independent
    Bernoulli(probs), equal values grouped into binomials, by the product tree
    of convolve.c (direct convolution in extended precision, trimmed at
    noisy.DROP_NATS with the trimmed mass bounded).  Its cost is estimated
    first and a tree above MAX_SUPPORT atoms or MAX_CONVOLUTION_WORK
    multiply-adds is refused before any work."""
    probs = probs[(probs > 0.0) & (probs < 1.0)]   # known records only shift the count
    if probs.size == 0:
        return 0, np.zeros(1, dtype=np.longdouble), -math.inf
    values, counts = np.unique(probs, return_counts=True)
    width, work = _product_tree_work(values, counts.astype(np.float64))
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
            noisy.DROP_NATS, MAX_SUPPORT)
    if work < PROGRESS_SECONDS * CONVOLUTION_RATE:
        return _core.binomial_sum_window(*args)
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
    per_record = np.ndim(pi) > 0
    if per_record:
        probs = _validate.real_array("pi", pi, low=0.0, high=1.0).ravel()
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
        _, log_z, log_rest = _poisson_binomial_window(rate * probs)
        lp, lq, lr = _mixture(log_z, log_z, rate)
        lr_min = _ratio_margin(math.log1p(-rate), False) if rate < 1.0 else -math.inf
        kind = "" if rate == 1.0 else f", poisson rate={rate}"
        return _pair_curve((lp, lq, lr, rate == 1.0, (log_rest, log_rest, math.inf, lr_min)), ref,
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
    N = float(n - 1)
    rate = m / n
    # windows of H_{m-1} and H_m (log-concave), the rest bounded (_unimodal_window)
    first, last, log_rest_in = _hypergeom_window(n - 1, K, m - 1)
    log_rest = math.log(rate) + log_rest_in
    if m < n:
        b0, b1, log_rest_out = _hypergeom_window(n - 1, K, m)
        first, last = min(first, b0), max(last + 1, b1)
        log_rest = float(np.logaddexp(log_rest, math.log1p(-rate) + log_rest_out))
    _check_support(last - first + 1, "sample_size (or n)")
    j = first + np.arange(last - first + 1, dtype=np.float64)
    log_in = _core.log_hypergeom_pmf(j[j <= m - 1], N, float(K), float(m - 1))
    log_out = _core.log_hypergeom_pmf(j, N, float(K), float(m)) if m < n else np.full(1, -np.inf)
    lp, lq, lr = _mixture(log_in, log_out, rate)
    lr_max, lr_min = math.inf, -math.inf
    if m < n:
        j = first + np.arange(len(lr), dtype=np.float64)
        support_m = (j >= max(0, m - (N - K))) & (j <= min(K, m))   # where H_m(j) > 0
        # the closed-form ratio below is monotone in j; its values at j = m
        # (if H_m(m) > 0, else P/Q = inf at j = K + 1) and j = 0 bound it
        up_m = m / (K - m + 1) * (N - m + 1) / m if K >= m else math.inf
        down_0 = m / (N - K - m + 1) * (N - m + 1) / m if N - K >= m else math.inf
        if K >= m:
            lr_max = _ratio_margin(math.log(rate * up_m + (1 - rate)) - math.log1p(-rate), True)
        if N - K >= m:
            lr_min = _ratio_margin(math.log1p(-rate) - math.log(rate * down_0 + (1 - rate)),
                                   False)
        # P(j)/Q(j) in closed form where H_m(j) > 0: with A = H_{m-1}, B = H_m,
        # A(j-1)/B(j) = j/(K-j+1) (N-m+1)/m and A(j)/B(j) = (m-j)/(N-K-m+j+1) (N-m+1)/m.
        scale = (N - m + 1) / m
        with np.errstate(divide="ignore", invalid="ignore"):
            up = j / (K - j + 1) * scale
            down = (m - j) / (N - K - m + j + 1) * scale
            exact = np.log(rate * up + (1 - rate)) - np.log(rate * down + (1 - rate))
        lr = np.where(support_m, exact, lr)

    if noise is not None and not isinstance(noise, Noise):
        raise ValueError(f"noise must be statpriv.Laplace, Gaussian or Geometric, got {noise!r}")

    def ref(eps, direction):
        if noise is not None:
            raise ValueError("the mpmath reference covers secret_sample without noise")
        return reference.secret_sample_delta(n, m, K, eps, direction=direction)

    return _pair_curve((lp, lq, lr, m == n, (log_rest, log_rest, lr_max, lr_min)), ref,
                       f"secret sample n={n}, sample_size={m}, positives={K}", noise)


def _hypergeom_window(N, K, m):
    """Window (first, last, log_rest) of the hypergeometric law of the
    positives in m draws from N records of which K are positive."""
    def log_pmf(j):
        return float(_core.log_hypergeom_pmf(np.array([float(j)]), float(N), float(K),
                                             float(m))[0])

    lo, hi = max(0, m - (N - K)), min(K, m)
    mode = min(max((m + 1) * (K + 1) // (N + 2), lo), hi)
    return _unimodal_window(log_pmf, lo, hi, mode)
