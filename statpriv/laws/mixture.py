"""The laws of a count with the target in or out: shifts and sampling mixtures.

With A the law of the others' count when the target is in the release (or
sampled) and B when it is not, P(j) = rate A(j-1) + (1-rate) B(j) and
Q(j) = rate A(j) + (1-rate) B(j) (Breutigam & Reischuk, "Statistical
Privacy", Thm 4.1; A. Smith 2009); rate = 1 is the plain shift P = Z(.-1),
Q = Z of an unsampled count.
"""
import math
from typing import Any

import numpy as np

from statpriv import _lazy, _xprec
from statpriv.laws import refine, windows

_core = _lazy.module("statpriv._core")            # scipy.special: loaded on first use
_law_kernels = _lazy.module("statpriv.laws._kernels")


def mixture(log_a: Any, log_b: Any, rate: Any, log_weights: Any = None, ratio: Any = True) -> Any:
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
        lp, lq = _law_kernels.log_mixture(log_a, log_b, log_weights[0], log_weights[1], size)
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


def mixture_rest(rest_a: Any, rest_b: Any, log_weights: Any) -> Any:
    """ln of the bound on the mixture's mass left out: rate rest_a + (1-rate) rest_b."""
    parts = [float(log_weights[0]) + rest_a]
    if rest_b > -math.inf and float(log_weights[1]) > -math.inf:
        parts.append(float(log_weights[1]) + rest_b)
    r = float(np.logaddexp.reduce(parts))
    return r + 1e-12 * (1.0 + abs(r)) if r > -math.inf else r


def binomial_shift(N: Any, pi: Any, first: Any, last: Any) -> Any:
    """(lp, lq, lr) of the plain shift of Z = Bin(N, pi) on first..last, as
    mixture(log_z, log_z, 1.0): P = Z(. - 1), Q = Z on L + 1 atoms.  Both
    laws are views of ONE buffer [-inf, ln Z, -inf] (lp its first L + 1
    atoms, lq its last): no copies of ln Z (fresh full-size arrays cost
    more than the arithmetic at n = 1e9).  The views must stay read-only."""
    if not 0.0 < pi < 1.0:
        log_z = windows.binomial_log_pmf(N, pi, first, last)
        return mixture(log_z, log_z, 1.0)
    count = last - first + 1
    buf = np.empty(count + 2, dtype=np.longdouble)
    buf[0] = buf[count + 1] = -np.inf
    _law_kernels.binom_window_logl(float(N), pi, first, count, out=buf[1:count + 1])
    lp, lq = buf[:count + 1], buf[1:]
    with np.errstate(invalid="ignore"):
        lr = lp - lq
    return lp, lq, lr


def log_mix(q: Any, x: Any) -> Any:
    """ln(1 + q (e^x - 1)) = ln((1-q) + q e^x): the log ratio of the mixture
    (1-q) B + q A to B where ln A/B = x (long double arrays, 0 <= q <= 1):
    log1p / expm1 (no cancellation where q e^x is small, the mixture close to
    B), x + ln(q + (1-q) e^-x) where e^x would overflow; -inf -> ln(1-q),
    +inf -> +inf."""
    ld = np.longdouble
    x = np.asarray(x, dtype=ld)
    q = ld(q)
    with np.errstate(over="ignore", invalid="ignore"):
        small = np.log1p(q * np.expm1(np.minimum(x, ld(30))))
        large = x + np.log(q + (1 - q) * np.exp(-np.maximum(x, ld(30))))
    return np.where(x <= 30, small, large)


def sampled_pair(log_p: Any, log_q: Any, q: Any) -> Any:
    """Logs of A = q P + (1-q) Q and B = Q, and ln A/B (long double arrays on
    the atoms of P and Q): the pair of (P, Q) under Poisson sampling at rate q
    (Balle, Barthe & Gaboardi, "Privacy amplification by subsampling").  ln
    A/B = log_mix(q, ln P/Q), +inf where Q = 0 < P (A = q P there); NaN on
    atoms of neither law (no mass: the PLD drops them)."""
    ld = np.longdouble
    lp, lq = np.asarray(log_p, dtype=ld), np.asarray(log_q, dtype=ld)
    with np.errstate(invalid="ignore", divide="ignore"):       # q = 0: ln q = -inf
        ratio = lp - lq
        only_p = np.isneginf(lq) & np.isfinite(lp)
        lr = np.where(only_p, np.inf, log_mix(q, ratio))
        log_a = np.where(only_p, np.log(ld(q)) + lp, lq + lr)
    log_a[np.isneginf(lp) & np.isneginf(lq)] = -np.inf
    return log_a, lq, lr


def exact_log_mix(q: Any, x: Any) -> Any:
    """ln(1 + q (e^x - 1)) of an mpmath number x at the current precision (q
    a float in (0, 1]): log1p(q expm1(x)), so that neither a tiny x (the
    mixture's ratio ~ q x would sit in the low bits of 1 + q x) nor q near 1
    (1 - q is never formed: it would round where q = 1 - 1e-9 meets e^x ~ 1)
    costs digits; -inf -> ln(1 - q), +inf -> +inf."""
    import mpmath
    return mpmath.log1p(_xprec.mpf_exact(q) * mpmath.expm1(x))


def exact_sampled_pair(log_p: Any, log_q: Any, log_ratio: Any, log_ratio_lo: Any, q: Any) -> Any:
    """sampled_pair of atoms whose ln P/Q = log_ratio + log_ratio_lo is known
    exactly where it matters (a closed form, or refined at the zero points:
    Laws.exact_ratio), 0 < q <= 1: (ln A, ln B, ln A/B, its low parts).  ln
    A/B = ln(1 - q + q P/Q) is formed from the PARENT'S ratio, not from the
    difference of the mixture's rounded logs (which puts a zero point an ulp
    of ln A off): log_mix in extended precision on every atom, and
    exact_log_mix of the double-double parent ratio (40 digits) on the atoms
    whose rounding would matter near the threshold and at the extreme
    ratios (statpriv.laws.refine), so the sampled pair's zero points keep
    the parent's exactness."""
    import mpmath
    ld = np.longdouble
    lp, lq = np.asarray(log_p, dtype=ld), np.asarray(log_q, dtype=ld)
    hi = np.asarray(log_ratio, dtype=ld)
    lo = np.zeros(hi.shape, dtype=ld) if log_ratio_lo is None else np.asarray(log_ratio_lo, ld)
    with np.errstate(invalid="ignore", divide="ignore"):
        only_p = np.isneginf(lq) & np.isfinite(lp)
        lr = np.where(only_p, np.inf, log_mix(q, hi + lo))
        log_a = np.where(only_p, np.log(ld(q)) + lp, lq + lr)
    # |error| of lr: a few extended-precision roundings of log_mix, and the
    # parent's own on cells it did not refine (d ln A/B / d ln P/Q <= 1)
    with np.errstate(invalid="ignore"):
        err = ((np.abs(lr.astype(np.float64)) + np.abs(hi.astype(np.float64))) * 2.2e-19
               + 1e-18 * math.log2(len(lr) + 2.0))
    err = np.where(np.isfinite(err), err, 0.0)

    def exact(j: Any) -> Any:
        if not np.isfinite(hi[j]):
            return exact_log_mix(q, mpmath.mpf(float(hi[j])))
        x = mpmath.fadd(_xprec.mpf_exact(hi[j]), _xprec.mpf_exact(lo[j]), exact=True)
        return exact_log_mix(q, x)

    lr_lo = refine.refine_log_ratio(log_a, lq, lr, err, exact)
    with mpmath.workdps(45):
        refine.refine_extremes(lr, lr_lo, exact)
    return log_a, lq, lr, lr_lo
