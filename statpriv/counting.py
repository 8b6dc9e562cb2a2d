"""Privacy curves of counting (property) queries, noiseless or with added noise.

The released value is the number of records with a property (plus noise).  Records are
independent, record j has the property with probability pi_j, the attacker
targets record 1 and knows everything but the others' values.  With S the
count of the others, delta_plus(eps) = H_eps(S+1 || S) and delta_minus(eps) =
H_eps(S || S+1) (docs/mathematics.md §2; Breutigam & Reischuk Thm 4.2).  Sampling mixes the two
laws (docs/mathematics.md §5; Breutigam & Reischuk Thm 4.1, Smith 2009; statpriv.sampling).
Noise is added to either law (docs/mathematics.md §6, statpriv.noise).

counting() dispatches: iid records (the binomial shift curve, or its laws on
a window with noise), per-record probabilities (the Poisson-binomial, by a
product tree, below), sampling (statpriv.sampling); the law-pair machinery
they share is statpriv._laws.
"""
import math

import numpy as np

from statpriv import _laws, _lazy, _progress, _validate, oracle
from statpriv import sampling as _sampling
from statpriv._laws import (NO_REST, _Laws, _binomial_log_pmf, _check_support,
                            _dd, _float_up, _log1p_mp, _mixture, _mpf_exact, _pair_curve)
from statpriv.curve import PrivacyCurve
from statpriv.noise import Gaussian, Noise, _cells, kinds_text
from statpriv.sampling import secret_sample

__all__ = ["counting", "secret_sample"]

_core = _lazy.module("statpriv._core")            # scipy.special: loaded on first use
discrete = _lazy.module("statpriv.discrete")      # PrivacyCurve.log_pmfs of the laws

# Per-record pi: refuse product trees estimated above this many multiply-adds
# (about a minute here, ~3e6 distinct pi); see _poisson_binomial_window.
MAX_CONVOLUTION_WORK = 3e10
# Estimated multiply-adds (_product_tree_work, ~1.3x the real count) per cpu
# second of the product tree, measured at n = 1e5 to 1e6 distinct pi (3.6e8
# to 4.4e8); for the message and the progress bar (statpriv._progress).
CONVOLUTION_RATE = 4e8
# Per-record pi: up to this many records with 0 < pi < 1 the Poisson-binomial
# is convolved in log space on its whole support whenever the (linear-range)
# product tree would cut atoms: exact deep tails, ~0.1 s at the limit.
EXACT_LOG_RECORDS = 1000


def counting(n, pi, *, sample_size=None, sample_rate=None, sampling="without_replacement",
             noise=None, approx=None, sampling_prob=None):
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
    sampling_prob : float in (0, 1], optional
        dp-accounting's name for ``sample_rate`` (give one of the two).
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
    rate_name, sample_rate = _validate.alias("sample_rate", sample_rate,
                                             "sampling_prob", sampling_prob)
    n, pi, per_record = _validate.records(n, pi)
    probs = pi

    if sample_size is not None and sample_rate is not None:
        raise ValueError("give sample_size or sample_rate, not both")
    if sample_size is not None and sampling == "poisson":
        raise ValueError("sampling='poisson' takes sample_rate, not sample_size")
    if sample_rate is not None:
        sample_rate = _validate.real(rate_name, sample_rate, low=0.0, high=1.0, low_open=True)
        if sampling == "without_replacement":
            sample_size = round(sample_rate * n)
            if sample_size < 1:
                raise ValueError(f"{rate_name} * n must round to at least 1 record, "
                                 f"got {sample_rate} * {n}")
    if sample_size is not None:
        sample_size = _validate.count("sample_size", sample_size, low=1, high=n)
        sample_rate = None

    if noise is not None and not isinstance(noise, Noise):
        raise ValueError(f"noise must be {kinds_text()}, got {noise!r}")
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
        return _per_record_curve(n, probs, 1.0 if sample_rate is None else sample_rate, noise,
                                 ref)
    if sample_rate is not None:
        return _sampling._poisson_curve(n, pi, sample_rate, noise, ref)
    if sample_size is not None and sample_size < n:
        return _sampling._subsample_curve(n, pi, sample_size, noise, ref)
    if noise is not None:
        drop = _cells.DROP_NATS if noise._trims else None   # see _pair_curve
        return _pair_curve(_binomial_window_laws(n - 1, pi, drop), ref,
                           f"counting n={n}, pi={pi}", noise)
    curve = PrivacyCurve(_core.BinomialCurveCore(float(n - 1), pi), ref,
                         f"counting n={n}, pi={pi}")
    curve._log_pmfs = lambda: discrete._binomial_shift_log_pmfs(n, pi)
    curve._pld_laws = discrete._binomial_shift_source(n, pi)
    return curve


def _per_record_curve(n, probs, rate, noise, ref):
    """counting(None, probs, ...): the others' count Z is Poisson-binomial
    (sum of Bernoulli(pi_j)), Poisson-sampled at ``rate`` (1: no sampling):
    Q = Z, P = rate Z(. - 1) + (1 - rate) Z (Smith 2009 Alg. 2)."""
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
        curve = PrivacyCurve(_core.SampledShiftCurveCore(inner, rate, l1g_hi, l1g_lo), ref,
                             f"counting n={n}, per-record pi, poisson rate={rate}")
        curve._pld_laws = lambda: _laws._laws_source(_per_record_laws(probs, rate))()
        return curve
    kind = "" if rate == 1.0 else f", poisson rate={rate}"
    return _pair_curve(_per_record_laws(probs, rate), ref,
                       f"counting n={n}, per-record pi{kind}", noise)


def _per_record_laws(probs, rate):
    """_Laws of the per-record count Poisson-sampled at ``rate`` (see _per_record_curve)."""
    log_z = _tiny_rate_log_pmf(probs, rate) if rate < 1.0 else None
    if log_z is None:
        first, log_z, log_rest = _poisson_binomial_window(rate * probs)
    else:                       # rate * pi_j below the double range: exact logs
        first, log_rest = 0, -math.inf
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
    laws = _Laws(lp, lq, lr, rate == 1.0, lr_lo, _sampling._poisson_tail_ratio(rate), rest)
    laws.start = first              # the atom of index 0 (PrivacyCurve.log_pmfs)
    return laws


def _binomial_window_laws(N, pi, drop=None):
    """Shift laws of Bin(N, pi) for the noisy paths, on the window of _window
    (the rest bounded in _Laws.rest).  drop: the noise path trims the atoms
    more than this many nats below the largest anyway (_cells.trim_bounded,
    Laplace and geometric noise): the window is cut there up front, the rest
    bounded by unimodality (_unimodal_window), instead of building the full
    support first (at n = 1e6 that is 1e6 atoms of which ~14% are kept)."""
    first, last, log_rest = _laws._binomial_window(N, pi, True, drop)
    _check_support(last - first + 2, "n")
    lp, lq, lr = _laws._binomial_shift(N, pi, first, last)
    rest = NO_REST if log_rest == -math.inf else (log_rest, log_rest, math.inf, -math.inf)
    return _Laws(lp, lq, lr, True, None, lambda w: w, rest)


def _product_tree_work(values, counts, drop):
    """(final window bound, estimated multiply-adds) of the product tree in
    poisson_binomial.c, simulated on (variance, atoms) per node: a merge computes each
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


def _tiny_rate_log_pmf(probs, rate):
    """ln pmf (extended precision, whole support 0..records) of Z = sum of
    Bernoulli(rate pi_j) where some products rate * pi_j fall below the double
    range's full precision (< 1e-290, or to 0, e.g. pi_j = 5e-324 at rate 1e-6):
    the binomials of those groups from exact mpmath logs of rate * pi_j, convolved
    in log space (_log_space_convolve).  None if no product is that small or there
    are more than EXACT_LOG_RECORDS records (the caller then uses the rounded
    products: a product rounded to 0 drops its record)."""
    live = probs[probs > 0.0]
    if live.size == 0 or live.size > EXACT_LOG_RECORDS or not (rate * live < 1e-290).any():
        return None
    import mpmath
    values, counts = np.unique(live, return_counts=True)
    groups = []
    with mpmath.workdps(40):
        for v, k in zip(values.tolist(), counts.tolist()):
            if v * rate >= 1.0:        # pi_j = 1 at rate 1: a known record shifts both laws
                continue
            rho = mpmath.mpf(rate) * mpmath.mpf(v)
            if v * rate >= 1e-290:
                groups.append(np.asarray(_binomial_log_pmf(k, v * rate, 0, k), dtype=np.longdouble))
                continue
            lr, lq = mpmath.log(rho), mpmath.log1p(-rho)
            groups.append(np.array([mpmath.nstr(mpmath.log(mpmath.binomial(k, j)) + j * lr
                                                + (k - j) * lq, 30) for j in range(k + 1)],
                                   dtype=np.longdouble))
    return _log_space_convolve(groups)


def _tiny_rate_products_core(probs, rate):
    """Shift curve of Z = sum of Bernoulli(rate pi_j) where some products
    rate * pi_j fall below the double range's full precision: Z from
    _tiny_rate_log_pmf on the whole support; None where that returns None."""
    log_z = _tiny_rate_log_pmf(probs, rate)
    if log_z is None:
        return None
    lp, lq, lr = _mixture(log_z, log_z, 1.0)
    laws = _Laws(lp, lq, lr, True, None, _sampling._poisson_tail_ratio(1.0), NO_REST)
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
    of poisson_binomial.c (direct convolution in extended precision, trimmed at
    _cells.DROP_NATS below the largest atom with the trimmed mass bounded: the
    tree multiplies in linear extended precision, whose range ends near
    e^-11355, so unlike _window it cuts even small supports, noisy or not).  Its cost is estimated
    first and a tree above MAX_SUPPORT atoms or MAX_CONVOLUTION_WORK
    multiply-adds is refused before any work."""
    probs = probs[(probs > 0.0) & (probs < 1.0)]   # known records only shift the count
    if probs.size == 0:
        return 0, np.zeros(1, dtype=np.longdouble), -math.inf
    values, counts = np.unique(probs, return_counts=True)
    drop = _cells.DROP_NATS
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
            drop, _laws.MAX_SUPPORT)
    with _progress.bar(work, f"convolving {probs.size:,} per-record pi", unit="MAC",
                       unit_scale=True, seconds=work / CONVOLUTION_RATE) as bar:
        first, log_z, log_rest = _core.binomial_sum_window(*args, progress=bar,
                                                           step=_progress.step(work))
    if log_rest > -math.inf and probs.size <= EXACT_LOG_RECORDS:
        # the tree's linear range cut atoms that deep tails need (delta_plus
        # at large eps is the top atoms, e.g. a product of pi_j ~ 1e-300):
        # few records, so convolve the whole support in log space instead
        return 0, _log_space_poisson_binomial(values, counts), -math.inf
    return first, log_z, log_rest


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
