"""Sampling with replacement: a count over m uniform draws from the n records
(Breutigam & Reischuk, "Statistical Privacy", future work).

The n - 1 other records are iid Bernoulli(pi); m draws are made uniformly
with replacement from all n records and the number of draws that hit a record
with the property is released (a record drawn twice counts twice).  Given the
others' count A = a ~ Bin(n-1, pi), every draw hits a one independently with
probability (x + a)/n (x the target's bit), so the released count C is
Bin(m, (x + a)/n) given A = a (docs/mathematics.md §5, "With replacement"):

    P(c) = sum_a Bin(a; n-1, pi) Bin(c; m, (a+1)/n)     (x = 1)
    Q(c) = sum_a Bin(a; n-1, pi) Bin(c; m, a/n)         (x = 0).

(Splitting the draws into the T ~ Bin(m, 1/n) copies of the target and the
m - T draws from the others, Bin(c - t; m - t, a/(n-1)) given T = t, gives
the same laws: thinning a multinomial.)  Both are mixtures of ONE kernel
row family K_u(c) = Bin(c; m, u/n), u = 0..n, with weights Bin(u-1; n-1, pi)
(P) and Bin(u; n-1, pi) (Q): the cost is (number of u kept) x (m + 1) cells,
evaluated block by block in extended precision with a running log-sum-exp.
The weights' ratio u (1-pi) / ((n-u) pi) increases in u and K is totally
positive of order 2, so P(c)/Q(c) is non-decreasing in c: the zero points are
the ratios at c = m (delta_plus) and c = 0 (delta_minus), summed exactly in
integers (like every cell whose ratio delta needs beyond extended precision).

The u kept: all of 0..n while n (m + 1) <= FULL_CELLS; else the window of
Bin(n-1, pi) (statpriv.laws.windows.unimodal_window) widened by m atoms on
each side (the posterior of A given C = c moves by up to about m (1-pi)
atoms), its left-out mass bounded and added to delta (never dropped).  More
than MAX_CELLS cells are refused up front with the cost.
"""
import functools
import math
from typing import Any

import numpy as np

from statpriv import _lazy, _xprec
from statpriv.curve import PrivacyCurve
from statpriv.laws import Laws, pair_curve, refine, windows

__all__ = ["with_replacement_curve", "FULL_CELLS", "MAX_CELLS"]

_law_kernels = _lazy.module("statpriv.laws._kernels")

# Kernel cells (u, c) summed over the whole support of the others' count.
FULL_CELLS = 20_000_000
# Largest number of kernel cells evaluated (about 1 s per 1e7 cells on one core).
MAX_CELLS = 100_000_000
# Cells per block of the log-sum-exp (16 bytes each: ~32 MiB per working array).
_BLOCK_CELLS = 1 << 21
# Drop (nats) of the window of the others' count when it is windowed: the
# left-out mass is below n e^-800 (unimodality), bounded and added to delta.
_WINDOW_DROP = 800.0
# Terms within this many nats of the largest are summed exactly for the
# refined ratios (the rest, log-concave, is below 1e-43 of the sum each: near
# a zero point delta is linear in ln P/Q - eps, which the tests probe down to
# 1e-18 relative).
_EXACT_DROP = 100.0
# Fixed-point bits of the weights in the exact sums (_exact_log_ratio).
_FIXED_BITS = 400


def with_replacement_curve(n: int, pi: Any, m: int, noise: Any, ref: Any) -> PrivacyCurve:
    """counting(n, pi, sample_size=m, sampling="with_replacement", noise=noise)."""
    def certified() -> Any:                  # the laws in Arb (statpriv.oracle.arb)
        from statpriv.oracle import arb
        return arb.WithReplacement(n, m, pi)
    return pair_curve(_with_replacement_laws(n, pi, m), ref,
                      f"counting n={n}, pi={pi}, sample_size={m} with replacement", noise,
                      certified=certified)


def _others_window(n: int, pi: Any, m: int) -> Any:
    """(first, last, log_rest): the values u of the kernel rows kept (u = a and
    u = a + 1 for the others' counts a kept), and ln of a bound on the mass of
    the others' count left out."""
    N = n - 1
    if pi == 0.0:                       # A = 0: the rows u = 0 (Q) and u = 1 (P)
        return 0, min(1, n), -math.inf
    if pi == 1.0:                       # A = n - 1: the rows u = n - 1 (Q) and u = n (P)
        return N, n, -math.inf
    if n * (m + 1) <= FULL_CELLS:
        return 0, n, -math.inf

    def log_pmf(k: Any) -> Any:
        return float(_law_kernels.log_binom_pmf(float(N), pi, np.array([float(k)]))[0])

    mode = min(max(math.floor((N + 1) * pi), 0), N)
    first, last, log_rest = windows.unimodal_window(log_pmf, 0, N, mode, _WINDOW_DROP)
    first, last = max(first - m, 0), min(last + m, N)
    if first == 0 and last == N:
        log_rest = -math.inf
    else:
        # the widened window leaves out less than the unimodal bound of the narrow one
        log_rest += 1e-12 * (1.0 + abs(log_rest))
    return first, last + 1, log_rest


def _check_cost(rows: int, m: int, n: int, pi: Any) -> None:
    cells = rows * (m + 1)
    if cells > MAX_CELLS:
        raise ValueError(
            f"sampling='with_replacement' mixes {rows:,} binomial rows (the others' count "
            f"where its mass matters) of sample_size + 1 = {m + 1:,} atoms: {cells:.3g} "
            f"kernel cells, about {cells / 1e7:.3g} s; the limit is {MAX_CELLS:.3g} cells "
            f"(statpriv.counting.with_replacement.MAX_CELLS).  Use a smaller sample_size "
            f"or n (n = {n}, pi = {pi})")


def _log_binom_coefficients(m: int) -> Any:
    """ln C(m, c), c = 0..m, in extended precision: ln Bin(m, 1/2)(c) + m ln 2."""
    ld = np.longdouble
    return (_law_kernels.binom_window_logl(float(m), 0.5, 0, m + 1)
            + ld(m) * np.log(ld(2)))


def _mixed_log_pmfs(n: int, m: int, log_w: Any, u0: Any) -> Any:
    """(ln P, ln Q, ln P/Q) on c = 0..m: the log-sum-exp over the kernel rows
    u = u0..u0+len(log_w) of w_P(u) K_u(c) and w_Q(u) K_u(c), with ln w_Q(u)
    = log_w[u - u0] (-inf past the end) and ln w_P(u) = log_w[u - u0 - 1].

    Each cell's terms are taken relative to its largest row u* (found in
    float64 first): ln w(u) - ln w(u*) + c ln(u/u*) + (m-c) ln((n-u)/(n-u*)),
    the kernel's logs as log1p of exact integer differences, so the terms that
    matter are small numbers rounded at ~1e-19 absolute and ln P/Q (the
    difference of the two sums, before the common ln w(u*) + ln K_u*(c) is
    added back) keeps that accuracy."""
    ld = np.longdouble
    rows = len(log_w) + 1
    wq = np.full(rows, -np.inf, dtype=ld)
    wq[:-1] = log_w
    wp = np.full(rows, -np.inf, dtype=ld)
    wp[1:] = log_w
    w_top = np.maximum(wp, wq)
    u = u0 + np.arange(rows, dtype=np.float64)
    with np.errstate(divide="ignore"):
        la, lb = np.log(u / n), np.log1p(-u / n)        # -inf at u = 0 and u = n
    c = np.arange(m + 1, dtype=np.float64)
    step = max(1, _BLOCK_CELLS // (m + 1))
    blocks = [slice(start, min(start + step, rows)) for start in range(0, rows, step)]

    def kernel(cc: Any, left: Any, right: Any) -> Any:
        """c ln(left) + (m-c) ln(right) on the block (rows x cells), 0 ln 0 = 0."""
        with np.errstate(invalid="ignore"):
            out = np.multiply(left, cc)
            out[np.isnan(out)] = 0.0
            other = np.multiply(right, m - cc)
        other[np.isnan(other)] = 0.0
        with np.errstate(invalid="ignore"):         # inf - inf: cells of no mass
            out += other
        return out

    # the largest row of each cell (either law), in float64
    top = np.full(m + 1, -np.inf)
    ref = np.zeros(m + 1, dtype=np.int64)
    w64 = w_top.astype(np.float64)
    for sl in blocks:
        terms = kernel(c, la[sl, None], lb[sl, None]) + w64[sl, None]
        arg = terms.argmax(axis=0)
        val = terms[arg, np.arange(m + 1)]
        better = val > top
        top[better], ref[better] = val[better], sl.start + arg[better]
    ref_u = (u0 + ref).astype(ld)
    ref_w = w_top[ref]
    cl = c.astype(ld)
    best = {key: np.full(m + 1, -np.inf, dtype=ld) for key in "pq"}
    total = {key: np.zeros(m + 1, dtype=ld) for key in "pq"}
    for sl in blocks:
        ub = (u0 + np.arange(sl.start, sl.stop)).astype(ld)
        d = np.subtract.outer(ub, ref_u)                         # u - u*, exact
        with np.errstate(divide="ignore", invalid="ignore"):
            left = np.log1p(d / ref_u)                           # ln(u/u*)
            right = np.log1p(-d / (ld(n) - ref_u))               # ln((n-u)/(n-u*))
        base = kernel(cl, left, right)
        for key, w in (("p", wp), ("q", wq)):
            terms = base + (w[sl, None] - ref_w)
            new_best = np.maximum(best[key], terms.max(axis=0))
            finite = np.isfinite(new_best)
            shift = np.where(finite, new_best, 0.0)
            with np.errstate(invalid="ignore"):
                total[key] *= np.exp(np.where(finite, best[key] - shift, -np.inf))
                total[key] += np.exp(terms - shift).sum(axis=0)
            best[key] = new_best
    with np.errstate(divide="ignore", invalid="ignore"):
        rel_p = best["p"] + np.log(total["p"])
        rel_q = best["q"] + np.log(total["q"])
        lr = rel_p - rel_q
        # the common part: ln w(u*) + ln C(m, c) + c ln(u*/n) + (m-c) ln(1 - u*/n)
        common = (ref_w + _log_binom_coefficients(m)
                  + np.where(cl > 0, cl * np.log(ref_u / ld(n)), 0.0)
                  + np.where(cl < m, (ld(m) - cl) * np.log1p(-ref_u / ld(n)), 0.0))
    lp, lq = rel_p + common, rel_q + common
    empty = ~np.isfinite(top)                       # no mass in either law (n = 1)
    lp[empty] = lq[empty] = -np.inf
    lr[empty] = 0.0
    return lp, lq, lr


def _exact_log_ratio(n: int, pi: Any, m: int, c: Any, log_terms_p: Any, log_terms_q: Any,
                     u0: Any) -> Any:
    """ln P(c)/Q(c) to 40 digits: the terms within _EXACT_DROP nats of the
    largest (their float logs ``log_terms_*`` over the rows u = u0...;
    log-concave in u, so the rest is below 1e-38 of the sum), summed in
    integers; None where a law vanishes.  The weights Bin(a; n-1, pi) enter
    relative to the first one kept (the common factor cancels in the ratio,
    like C(m, c) and n^m), by the exact recurrence
    Bin(a+1)/Bin(a) = (n-1-a) pi / ((a+1) (1-pi))."""
    import mpmath
    kept = []
    for terms in (log_terms_p, log_terms_q):
        finite = np.isfinite(terms)
        if not finite.any():
            return None
        kept.append(np.flatnonzero(finite & (terms >= terms[finite].max() - _EXACT_DROP)))
    # row u weighs a = u - 1 in P and a = u in Q
    rows = range(int(min(kept[0][0], kept[1][0])), int(max(kept[0][-1], kept[1][-1])) + 1)
    use_p, use_q = set(kept[0].tolist()), set(kept[1].tolist())
    # In integers: pi = num/den exactly (a float); the weights relative to the
    # first one kept by the recurrence as floats of _FIXED_BITS-bit mantissas
    # (truncated: relative error below 2^-390 a step) and binary exponents; the
    # kernel Bin(c; m, u/n) n^m / C(m, c) = u^c (n-u)^(m-c) exactly (0^0 = 1);
    # the terms summed exactly at the smallest exponent
    num, den = float(pi).as_integer_ratio()
    a_first = max(min([u0 + r - 1 for r in use_p] + [u0 + r for r in use_q]), 0)
    a_last = min(max([u0 + r - 1 for r in use_p] + [u0 + r for r in use_q]), n - 1)
    weight = {a_first: (1 << _FIXED_BITS, -_FIXED_BITS)}
    mant, expo = weight[a_first]
    spare = den.bit_length() + n.bit_length() + 8    # the quotient keeps its bits
    for a in range(a_first, a_last):
        mant = (mant * (n - 1 - a) * num << spare) // ((a + 1) * (den - num))
        expo -= spare
        shift = mant.bit_length() - _FIXED_BITS
        mant = mant >> shift if shift > 0 else mant << -shift
        expo += shift
        weight[a + 1] = (mant, expo)
    terms = []                              # (integer, exponent, law)
    for r in rows:
        u = u0 + r
        k = u ** c * (n - u) ** (m - c)
        if k == 0:
            continue
        for law, a, used in ((0, u - 1, use_p), (1, u, use_q)):
            if r in used and a in weight and weight[a][0]:
                terms.append((weight[a][0] * k, weight[a][1], law))
    if not terms:
        return None
    base = min(e for _, e, _ in terms)
    sums = [0, 0]
    for value, e, law in terms:
        sums[law] += value << (e - base)
    if not (sums[0] > 0 and sums[1] > 0):
        return None
    with mpmath.workdps(40):
        return mpmath.log(mpmath.mpf(sums[0])) - mpmath.log(mpmath.mpf(sums[1]))


def _with_replacement_laws(n: int, pi: Any, m: int) -> Any:
    """The laws of the count over m draws with replacement (module docstring)."""
    u_first, u_last, log_rest = _others_window(n, pi, m)
    rows = u_last - u_first + 1
    _check_cost(rows, m, n, pi)
    windows.check_support(m + 1, "sample_size")
    # the others' counts kept: a = u_first..u_last - 1 (rows u = a for Q, a + 1 for P)
    log_w = windows.binomial_log_pmf(n - 1, pi, u_first, u_last - 1)
    lp, lq, lr = _mixed_log_pmfs(n, m, log_w, u_first)
    # (empty atoms inside the support, n = 1: P = atom m, Q = atom 0, have ratio 0)
    # P/Q is non-decreasing (module docstring); rounding may break ties between
    # cells of (nearly) equal ratio (pi near 0 or 1): the running maximum is
    # within the rounding of the truth and lets the refinement see those ties
    np.maximum.accumulate(lr, out=lr)
    if log_rest > -math.inf:
        return Laws(lp, lq, lr, False, None, None, log_rest, log_rest, math.inf, -math.inf,
                    start=0)
    # ln P(c)/Q(c) refined to 40 digits where delta needs it (statpriv.laws.refine): the
    # zero points c = m and c = 0 (the ratio is non-decreasing), and the cells whose
    # neighbours' ratios are close (pi near 0 or 1)
    u = (u_first + np.arange(rows)).astype(np.float64)
    with np.errstate(divide="ignore"):
        la, lb = np.log(u / n), np.log1p(-u / n)
    wq = np.append(log_w.astype(np.float64), -np.inf)
    wp = np.insert(log_w.astype(np.float64), 0, -np.inf)

    @functools.lru_cache(maxsize=None)
    def exact(c: Any) -> Any:
        with np.errstate(invalid="ignore"):
            lk = (c * la if c else 0.0) + ((m - c) * lb if m - c else 0.0)
        return _exact_log_ratio(n, pi, m, c, wp + lk, wq + lk, u_first)

    # error of the extended-precision lr: the terms that matter are small
    # numbers relative to the cell's largest (_mixed_log_pmfs), rounded at a few
    # ulps each; the bound is checked against the refined values in the tests
    err = 4e-19 * (np.abs(lr.astype(np.float64)) + 20.0)
    # refine_log_ratio refines where an error could reach 1e-14 of delta; a
    # cell here sums thousands of big-integer terms at large n, so the bound goes
    # in at a tenth: refined where it could reach 1e-13 of delta (the promise
    # is 1e-12), or deep in the tails 1e-10 of ln delta (the promise itself)
    lo = refine.refine_log_ratio(lp, lq, lr, 0.1 * err, lambda c: _nan_if_none(exact(c)))
    bounds = []
    for c in (m, 0):
        value = exact(c) if np.isfinite(lr[c]) else None
        if value is None:
            bounds.append(math.inf if c == m else -math.inf)
        else:
            bounds.append(_xprec.float_up(value) if c == m else -_xprec.float_up(-value))
    return Laws(lp, lq, lr, False, lo, None, log_rest, log_rest, bounds[0], bounds[1], start=0)


def _nan_if_none(value: Any) -> Any:
    """exact()'s value for refine_log_ratio: nan (the cell is left as it is) for None."""
    import mpmath
    return mpmath.nan if value is None else value
