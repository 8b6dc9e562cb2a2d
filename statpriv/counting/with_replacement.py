"""Sampling with replacement: a count over m uniform draws from the n records
(Breutigam & Reischuk, "Statistical Privacy", future work).

The n - 1 other records are iid Bernoulli(pi); m draws are made uniformly
with replacement from all n records and the number of draws that hit a record
with the property is released (a record drawn twice counts twice).  Given the
others' count A = a ~ Bin(n-1, pi), every draw hits a one independently with
probability (x + a)/n (x the target's bit), so the released count C is
Bin(m, (x + a)/n) given A = a (docs/mathematics.md §5.4):

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
the ratios at c = m (delta_plus) and c = 0 (delta_minus), evaluated in mpmath.

The u kept: all of 0..n while n (m + 1) <= FULL_CELLS; else the window of
Bin(n-1, pi) (statpriv.laws.windows.unimodal_window) widened by m atoms on
each side (the posterior of A given C = c moves by up to about m (1-pi)
atoms), its left-out mass bounded and added to delta (never dropped).  More
than MAX_CELLS cells are refused up front with the cost.
"""
import functools
import math

import numpy as np

from statpriv import _lazy, _xprec
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
# left-out mass is below e^-745 times the window's size, added to delta.
_WINDOW_DROP = 800.0
# Terms within this many nats of the largest are summed in mpmath for the
# exact extreme ratios (the rest, log-concave, is below 1e-52 of the sum each).
_EXACT_DROP = 120.0


def with_replacement_curve(n, pi, m, noise, ref):
    """counting(n, pi, sample_size=m, sampling="with_replacement", noise=noise)."""
    return pair_curve(_with_replacement_laws(n, pi, m), ref,
                      f"counting n={n}, pi={pi}, sample_size={m} with replacement", noise)


def _others_window(n, pi, m):
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

    def log_pmf(k):
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


def _check_cost(rows, m, n, pi):
    cells = rows * (m + 1)
    if cells > MAX_CELLS:
        raise ValueError(
            f"sampling='with_replacement' mixes {rows:,} binomial rows (the others' count "
            f"where its mass matters) of sample_size + 1 = {m + 1:,} atoms: {cells:.3g} "
            f"kernel cells, about {cells / 1e7:.3g} s; the limit is {MAX_CELLS:.3g} cells "
            f"(statpriv.counting.with_replacement.MAX_CELLS).  Use a smaller sample_size "
            f"or n (n = {n}, pi = {pi})")


def _log_binom_coefficients(m):
    """ln C(m, c), c = 0..m, in extended precision: ln Bin(m, 1/2)(c) + m ln 2."""
    ld = np.longdouble
    return (_law_kernels.binom_window_logl(float(m), 0.5, 0, m + 1)
            + ld(m) * np.log(ld(2)))


def _mixed_log_pmfs(n, m, log_w, u0):
    """ln P and ln Q on c = 0..m: the log-sum-exp over the kernel rows u =
    u0..u0+len(log_w) of w_P(u) K_u(c) and w_Q(u) K_u(c), with ln w_Q(u) =
    log_w[u - u0] (-inf past the end) and ln w_P(u) = log_w[u - u0 - 1]."""
    ld = np.longdouble
    rows = len(log_w) + 1
    wq = np.full(rows, -np.inf, dtype=ld)
    wq[:-1] = log_w
    wp = np.full(rows, -np.inf, dtype=ld)
    wp[1:] = log_w
    u = ld(u0) + np.arange(rows, dtype=ld)
    with np.errstate(divide="ignore"):
        la = np.log(u) - np.log(ld(n))                  # ln(u/n), -inf at u = 0
        lb = np.log(ld(n) - u) - np.log(ld(n))          # ln(1 - u/n), -inf at u = n
    c = np.arange(m + 1, dtype=ld)
    best = {key: np.full(m + 1, -np.inf, dtype=ld) for key in "pq"}
    total = {key: np.zeros(m + 1, dtype=ld) for key in "pq"}
    step = max(1, _BLOCK_CELLS // (m + 1))
    for start in range(0, rows, step):
        sl = slice(start, min(start + step, rows))
        # ln K_u(c) - ln C(m, c) = c ln(u/n) + (m - c) ln(1 - u/n), with 0 ln 0 = 0
        with np.errstate(invalid="ignore"):
            base = np.multiply.outer(la[sl], c)
            base += np.multiply.outer(lb[sl], m - c)
        base[np.isnan(base)] = 0.0
        if u0 + sl.start == 0:
            base[0, 1:] = -np.inf                      # u = 0: all mass at c = 0
        if u0 + sl.stop - 1 == n:
            base[-1, :-1] = -np.inf                    # u = n: all mass at c = m
        for key, w in (("p", wp), ("q", wq)):
            terms = base + w[sl, None]
            top = terms.max(axis=0)
            new_best = np.maximum(best[key], top)
            finite = np.isfinite(new_best)
            shift = np.where(finite, new_best, 0.0)
            with np.errstate(invalid="ignore"):
                total[key] *= np.exp(np.where(finite, best[key] - shift, -np.inf))
                total[key] += np.exp(terms - shift).sum(axis=0)
            best[key] = new_best
    log_c = _log_binom_coefficients(m)
    with np.errstate(divide="ignore"):
        lp = best["p"] + np.log(total["p"]) + log_c
        lq = best["q"] + np.log(total["q"]) + log_c
    return lp, lq


def _exact_log_ratio(n, pi, m, c, log_terms_p, log_terms_q, u0):
    """ln P(c)/Q(c) in mpmath (40 digits): the terms within _EXACT_DROP nats
    of the largest (their float logs ``log_terms_*`` over the rows u = u0...;
    log-concave in u, so the rest is below 1e-50 of the sum), from exact
    integers; None where a law vanishes.  The weights Bin(a; n-1, pi) enter
    relative to the first one kept (the common factor cancels in the ratio,
    like C(m, c)), by the exact recurrence
    Bin(a+1)/Bin(a) = (n-1-a) pi / ((a+1) (1-pi))."""
    import mpmath
    kept = []
    for terms in (log_terms_p, log_terms_q):
        finite = np.isfinite(terms)
        if not finite.any():
            return None
        kept.append(np.flatnonzero(finite & (terms >= terms[finite].max() - _EXACT_DROP)))
    # the others' counts a of the kept terms (row u weighs a = u - 1 for P, u for Q)
    a_lo = u0 + int(min(kept[0][0] - 1, kept[1][0]))
    a_hi = u0 + int(max(kept[0][-1] - 1, kept[1][-1]))
    with mpmath.workdps(40):
        p = mpmath.mpf(pi)
        weight = {a_lo: mpmath.mpf(1)}              # Bin(a; n-1, pi) / Bin(a_lo; n-1, pi)
        for a in range(a_lo, a_hi):                 # (none when a single count is kept)
            weight[a + 1] = weight[a] * (n - 1 - a) * p / ((a + 1) * (1 - p))
        sums = []
        for rows, shift in ((kept[0], 1), (kept[1], 0)):
            total = mpmath.mpf(0)
            for u in (u0 + rows).tolist():
                w = weight.get(u - shift)
                if w is not None:               # Bin(c; m, u/n) / C(m, c), 0^0 = 1
                    k = mpmath.mpf(1)
                    if c:
                        k *= (mpmath.mpf(u) / n) ** c
                    if m - c:
                        k *= (mpmath.mpf(n - u) / n) ** (m - c)
                    total += w * k
            sums.append(total)
        if not (sums[0] > 0 and sums[1] > 0):
            return None
        return mpmath.log(sums[0]) - mpmath.log(sums[1])


def _with_replacement_laws(n, pi, m):
    """The laws of the count over m draws with replacement (module docstring)."""
    u_first, u_last, log_rest = _others_window(n, pi, m)
    rows = u_last - u_first + 1
    _check_cost(rows, m, n, pi)
    windows.check_support(m + 1, "sample_size")
    # the others' counts kept: a = u_first..u_last - 1 (rows u = a for Q, a + 1 for P)
    log_w = windows.binomial_log_pmf(n - 1, pi, u_first, u_last - 1)
    lp, lq = _mixed_log_pmfs(n, m, log_w, u_first)
    with np.errstate(invalid="ignore"):
        lr = lp - lq
    # empty atoms inside the support (n = 1: P = atom m, Q = atom 0): no mass, ratio 0
    empty = np.isneginf(lp) & np.isneginf(lq)
    lr[empty] = 0.0
    # P/Q is non-decreasing (module docstring); rounding may break ties between
    # cells of (nearly) equal ratio (pi near 0 or 1): the running maximum is
    # within the rounding of the truth and lets the refinement see those ties
    np.maximum.accumulate(lr, out=lr)
    if log_rest > -math.inf:
        return Laws(lp, lq, lr, False, None, None, log_rest, log_rest, math.inf, -math.inf,
                    start=0)
    # ln P(c)/Q(c) refined in mpmath where delta needs it (statpriv.laws.refine): the
    # zero points c = m and c = 0 (the ratio is non-decreasing), and the cells whose
    # neighbours' ratios are close (pi near 0 or 1)
    u = (u_first + np.arange(rows)).astype(np.float64)
    with np.errstate(divide="ignore"):
        la, lb = np.log(u / n), np.log1p(-u / n)
    wq = np.append(log_w.astype(np.float64), -np.inf)
    wp = np.insert(log_w.astype(np.float64), 0, -np.inf)

    @functools.lru_cache(maxsize=None)
    def exact(c):
        with np.errstate(invalid="ignore"):
            lk = (c * la if c else 0.0) + ((m - c) * lb if m - c else 0.0)
        return _exact_log_ratio(n, pi, m, c, wp + lk, wq + lk, u_first)

    # error of the extended-precision lr: ~2 ulps of the largest log summed
    scale = np.abs(lp.astype(np.float64)) + np.abs(lq.astype(np.float64))
    scale[~np.isfinite(scale)] = 0.0
    err = 4e-19 * (scale + m * math.log(n + 1.0) + float(np.max(np.abs(wq[np.isfinite(wq)])))
                   + 10.0)
    lo = refine.refine_log_ratio(lp, lq, lr, err, lambda c: _none_inf(exact(c)))
    bounds = []
    for c in (m, 0):
        value = exact(c) if np.isfinite(lr[c]) else None
        if value is None:
            bounds.append(math.inf if c == m else -math.inf)
        else:
            bounds.append(_xprec.float_up(value) if c == m else -_xprec.float_up(-value))
    return Laws(lp, lq, lr, False, lo, None, log_rest, log_rest, bounds[0], bounds[1], start=0)


def _none_inf(value):
    """An mpmath value for refine (nan: not refined) from exact()'s None."""
    import mpmath
    return mpmath.nan if value is None else value
