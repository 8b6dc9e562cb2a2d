"""Per-record probabilities: the others' count is Poisson-binomial.

counting(None, pi) with one probability per other record: Z = sum of
independent Bernoulli(pi_j), by an exact product tree in extended precision
(csrc/poisson_binomial.c; equal values grouped into binomials), its cost
estimated and refused up front when too large; Poisson sampling at rate g
takes Z of g pi_j (A. Smith 2009, Alg. 2).  Products g pi_j below the double
range are carried as exact mpmath logs.
"""
import math
from typing import Any

import numpy as np

from statpriv import _lazy, _progress, _xprec
from statpriv.counting.sampling import poisson_tail_ratio
from statpriv.curve import PrivacyCurve
from statpriv.laws import LazyLaws, Laws, pair_core, pair_curve, windows
from statpriv.laws.mixture import mixture
from statpriv.laws.windows import binomial_log_pmf as _binomial_log_pmf

__all__ = ["CONVOLUTION_RATE", "EXACT_LOG_RECORDS", "MAX_CONVOLUTION_WORK", "per_record_curve",
           "per_record_laws", "poisson_binomial_window"]

_core = _lazy.module("statpriv._core")            # scipy.special: loaded on first use
_law_kernels = _lazy.module("statpriv.laws._kernels")

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


def per_record_curve(n: Any, probs: Any, rate: Any, noise: Any, ref: Any) -> PrivacyCurve:
    """counting(None, probs, ...): the others' count Z is Poisson-binomial
    (sum of Bernoulli(pi_j)), Poisson-sampled at ``rate`` (1: no sampling):
    Q = Z, P = rate Z(. - 1) + (1 - rate) Z (Smith 2009 Alg. 2)."""
    if noise is None and rate < 1.0:
        # P - e^eps Q = rate (Z(k-1) - e^eps' Z(k)) and Q - e^eps P =
        # c (Z(k) - e^eps'' Z(k-1)) (see _poisson_curve_core): the curve of
        # the unsampled Poisson-binomial Z of rate * pi_j, reduced
        import mpmath
        with mpmath.workdps(40):
            l1g_hi, l1g_lo = _xprec.dd(mpmath.log1p(-mpmath.mpf(rate)))
        inner = _tiny_rate_products_core(probs, rate)
        if inner is None:        # the curve of counting(None, rate * probs)
            inner = pair_core(per_record_laws(rate * probs, 1.0).live())
        return PrivacyCurve(_core.SampledShiftCurveCore(inner, rate, l1g_hi, l1g_lo), ref,
                            f"counting n={n}, per-record pi, poisson rate={rate}",
                            laws=LazyLaws(lambda: per_record_laws(probs, rate), log_pmfs=True)
                            .with_certified(_certified_laws(probs, rate)))
    kind = "" if rate == 1.0 else f", poisson rate={rate}"
    return pair_curve(per_record_laws(probs, rate), ref,
                       f"counting n={n}, per-record pi{kind}", noise,
                       certified=_certified_laws(probs, rate))


def _certified_laws(probs: Any, rate: Any) -> Any:
    """() -> the (Poisson-sampled) shift of the Poisson-binomial count in Arb
    (statpriv.oracle.arb)."""
    def build() -> Any:
        from statpriv.oracle import arb
        return arb.PoissonBinomialShift(probs.tolist(), rate)
    return build


def per_record_laws(probs: Any, rate: Any) -> Any:
    """Laws of the per-record count Poisson-sampled at ``rate`` (see per_record_curve)."""
    log_z = _tiny_rate_log_pmf(probs, rate) if rate < 1.0 else None
    if log_z is None:
        first, log_z, log_rest = poisson_binomial_window(rate * probs)
    else:                       # rate * pi_j below the double range: exact logs
        first, log_rest = 0, -math.inf
    lp, lq, lr = mixture(log_z, log_z, rate)
    lr_lo = None
    # Q/P <= 1/(1 - rate) at every atom (P/Q unbounded: P(j) > 0 = Q(j) at the top)
    lr_min = -math.inf if rate == 1.0 else -_xprec.float_up(-_xprec.log1p_mp(-rate))
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
                lr_lo[0] = float(_xprec.log1p_mp(-rate) - _xprec.mpf_exact(lr[0]))
    return Laws(lp, lq, lr, rate == 1.0, lr_lo, poisson_tail_ratio(rate), *rest,
                start=first)        # start: the atom of index 0 (PrivacyCurve.log_pmfs)


def _product_tree_work(values: Any, counts: Any, drop: Any) -> Any:
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


def _window_width_bound(variance: Any, atoms: Any, drop: Any) -> Any:
    """Upper bound on the window of a sum of independent Bernoullis with this
    variance over ``atoms`` atoms: Bernstein's inequality
    P[|S - mu| >= t] <= 2 exp(-t^2 / (2 (variance + t/3))) puts every atom
    farther than t = D/3 + sqrt(D^2/9 + 2 D variance) from the mean below
    e^-drop / atoms <= e^-drop * max pmf, D = drop + ln(2 atoms)."""
    d = drop + np.log(2.0 * atoms)
    t = d / 3.0 + np.sqrt(d * d / 9.0 + 2.0 * d * variance)
    return np.minimum(atoms, 2.0 * np.ceil(t) + 1.0)


def _log_space_poisson_binomial(values: Any, counts: Any) -> Any:
    """ln pmf (extended precision, full support 0..sum(counts)) of a sum of
    independent Binomial(counts[i], values[i]), 0 < values < 1: the binomials
    in Loader's form (_binomial_log_pmf), convolved by logsumexp with no
    range limit.  O(records^2) work: for at most EXACT_LOG_RECORDS records."""
    return _log_space_convolve([np.asarray(_binomial_log_pmf(k, v, 0, k), dtype=np.longdouble)
                                for v, k in zip(values.tolist(),
                                                counts.astype(np.int64).tolist())])


def _tiny_rate_log_pmf(probs: Any, rate: Any) -> Any:
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


def _tiny_rate_products_core(probs: Any, rate: Any) -> Any:
    """Shift curve of Z = sum of Bernoulli(rate pi_j) where some products
    rate * pi_j fall below the double range's full precision: Z from
    _tiny_rate_log_pmf on the whole support; None where that returns None."""
    log_z = _tiny_rate_log_pmf(probs, rate)
    if log_z is None:
        return None
    lp, lq, lr = mixture(log_z, log_z, 1.0)
    return pair_core(Laws(lp, lq, lr, True, None, poisson_tail_ratio(1.0)).live())


def _log_space_convolve(groups: Any) -> Any:
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


def poisson_binomial_window(probs: Any) -> Any:
    """(first, ln pmf on the window, log_rest) of a sum of independent
    Bernoulli(probs), equal values grouped into binomials, by the product tree
    of poisson_binomial.c (direct convolution in extended precision, trimmed at
    windows.DROP_NATS below the largest atom with the trimmed mass bounded: the
    tree multiplies in linear extended precision, whose range ends near
    e^-11355, so unlike _window it cuts even small supports, noisy or not).  Its cost is estimated
    first and a tree above MAX_SUPPORT atoms or MAX_CONVOLUTION_WORK
    multiply-adds is refused before any work."""
    probs = probs[(probs > 0.0) & (probs < 1.0)]   # known records only shift the count
    if probs.size == 0:
        return 0, np.zeros(1, dtype=np.longdouble), -math.inf
    values, counts = np.unique(probs, return_counts=True)
    drop = windows.DROP_NATS
    width, work = _product_tree_work(values, counts.astype(np.float64), drop)
    windows.check_support(int(width) + 1, "number of records with 0 < pi < 1")
    if work > MAX_CONVOLUTION_WORK:
        raise ValueError(
            f"the exact convolution of {probs.size:,} per-record probabilities "
            f"({values.size:,} distinct) would take about {work:.1e} extended-precision "
            f"multiply-adds (~{work / CONVOLUTION_RATE:.0f} s here); the limit is "
            f"{MAX_CONVOLUTION_WORK:.0e} (statpriv.counting.per_record.MAX_CONVOLUTION_WORK).  Use "
            f"fewer records, or fewer distinct values of pi (equal values are grouped "
            f"into one binomial: e.g. round pi)")
    args = (np.ascontiguousarray(values), np.ascontiguousarray(counts, dtype=np.float64),
            drop, windows.MAX_SUPPORT)
    with _progress.bar(work, f"convolving {probs.size:,} per-record pi", unit="MAC",
                       unit_scale=True, seconds=work / CONVOLUTION_RATE) as bar:
        first, log_z, log_rest = _law_kernels.binomial_sum_window(*args, progress=bar,
                                                           step=_progress.step(work))
    if log_rest > -math.inf and probs.size <= EXACT_LOG_RECORDS:
        # the tree's linear range cut atoms that deep tails need (delta_plus
        # at large eps is the top atoms, e.g. a product of pi_j ~ 1e-300):
        # few records, so convolve the whole support in log space instead
        return 0, _log_space_poisson_binomial(values, counts), -math.inf
    return first, log_z, log_rest
