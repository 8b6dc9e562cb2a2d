"""Certified enclosures of delta(eps): Arb ball arithmetic (python-flint).

    delta_plus(eps)  = sum_x (P(x) - e^eps Q(x))_+,   delta_minus: P and Q swapped

summed in Arb balls, every P(x), Q(x) computed in Arb from the mechanism's
parameters (never from statpriv's float kernels), so the true value is proven
to lie in the interval returned -- for auditors, and as an oracle that is
faster than the mpmath brute force.  A term whose sign the ball cannot decide
adds its positive part's upper end to the upper sum and 0 to the lower; the
mass a law puts outside a finite window is bounded rigorously (in Arb) and
added to the upper end only, since (P - e^eps Q)_+ <= P.

Each law kind supplies its Arb facts (the scipy.stats pattern); the generic
driver ``enclose`` never asks which kind it holds:

- a discrete pair (``ArbWindowLaws``) gives ``window(drop)``: its P and Q as
  Arb balls on a window of consecutive atoms, and upper bounds on the mass it
  leaves out; ``atoms(drop)``: the window's size, estimated before any work;
- a closed form (``ArbClosedForm``) gives ``delta_ball(eps, direction)``.

The curves' laws hand these out (``certified_laws()``; None: not covered).
python-flint is an optional dependency (``pip install "statpriv[certified]"``),
imported on first use.
"""
from __future__ import annotations

import math
import threading
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

__all__ = ["ArbClosedForm", "ArbWindowLaws", "BinomialShift", "ExactLogPmfs", "GaussianDP",
           "GeometricDP", "LaplaceDP", "MAX_TERMS", "PRECISION_BITS", "PoissonBinomialShift",
           "SecretSample",
           "enclose", "flint"]

# Working precision of the balls (bits): the intervals come out ~1e-45 wide
# relative at n = 1e4 (round-off of ~1e4 terms and lgamma(1e4)'s magnitude).
PRECISION_BITS = 192
# The window reaches this many nats below delta (the hint), so the tail
# bounds cost ~e^-80 ~ 1.8e-35 of delta in width.
TAIL_NATS = 80.0
# Refused up front: more Arb terms (window atoms x (1 + directions) x eps
# values, or the convolution's products) than this (~1-3 us of Arb work each
# from Python: ~10-20 s).
MAX_TERMS = 1e7

# (see enclose)
_PRECISION_LOCK = threading.Lock()


def flint() -> Any:
    """The python-flint module, or ImportError naming the extra to install."""
    try:
        import flint as module
    except ImportError as err:
        raise ImportError("certified intervals (delta_interval) need python-flint: "
                          'pip install "statpriv[certified]"') from err
    return module


def _guard(terms: float, what: str) -> None:
    if terms > MAX_TERMS:
        raise ValueError(f"the certified sum would take ~{terms:.3g} Arb terms ({what}; about "
                         f"{terms * 1.5e-6:.3g} s), above MAX_TERMS = {MAX_TERMS:.0e}")


class ArbWindowLaws:
    """A discrete pair of laws given in Arb on a window of consecutive atoms.
    ``windowed`` False: the window is the whole support whatever ``drop``
    (built once for every eps)."""

    windowed = True

    def atoms(self, drop: float) -> float:
        """The number of window atoms for ``window(drop)`` (an estimate, before any work)."""
        raise NotImplementedError

    def cost(self, drop: float) -> float:
        """The Arb operations of ``window(drop)`` (an estimate, before any work)."""
        return self.atoms(drop)

    def window(self, drop: float) -> Tuple[List[Any], List[Any], Any, Any]:
        """(P, Q, rest_p, rest_q): the laws as Arb balls on the atoms whose mass
        is within ``drop`` nats of the largest (or more), and upper bounds
        (Arb) on the P and Q mass outside them."""
        raise NotImplementedError

    def log_peak(self) -> float:
        """ln of (about) the largest atom: drop is counted from it."""
        return 0.0


class ArbClosedForm:
    """A pair whose delta has a closed form, evaluated in Arb."""

    def delta_ball(self, eps: Any, direction: str) -> Any:
        """delta_<direction>(eps) as an Arb ball (eps an exact Arb number)."""
        raise NotImplementedError


def _positive_part_sums(a: Sequence[Any], b: Sequence[Any], w: Any) -> Tuple[Any, Any]:
    """Lower and upper Arb sums of (a(x) - w b(x))_+ over the window."""
    arb = flint().arb
    lower, upper = arb(0), arb(0)
    # A Python loop over the terms (~1-3 us each), against the house rule:
    # python-flint has no vector operations on Arb balls, and calling Arb from
    # C would make FLINT a build dependency of every install; this path is the
    # certificate, not the fast one (4-7 ms at n = 1e4, refused past 1e7 terms)
    for ax, bx in zip(a, b):
        t = ax - w * bx
        if t > 0:
            lower += t
            upper += t
        elif not t < 0:                  # sign undecided: only the upper end takes it
            upper += t.upper()
    return lower, upper


def _window_sums(laws: ArbWindowLaws, eps_list: List[float], direction: str,
                 log_hints: List[float]) -> List[Tuple[Any, Any]]:
    """Each eps on its own window: down to TAIL_NATS below its hinted delta."""
    drops = [max(TAIL_NATS, TAIL_NATS + laws.log_peak() - (h if math.isfinite(h) else -1e6))
             for h in log_hints]
    if not laws.windowed:
        drops = [TAIL_NATS] * len(drops)
    sides = 2 if direction == "max" else 1
    builds = len(set(drops)) if laws.windowed else 1
    _guard(max(laws.cost(d) for d in drops) * builds
           + sum(laws.atoms(d) * sides for d in drops), "building the laws, summing per eps")
    arb = flint().arb
    out = []
    window: Optional[Tuple[float, Any]] = None
    for eps, drop in zip(eps_list, drops):
        if window is None or window[0] != drop:
            window = (drop, laws.window(drop))
        p, q, rest_p, rest_q = window[1]
        w = None if eps == math.inf else arb(eps).exp()
        ends = []
        for d in (("plus", "minus") if direction == "max" else (direction,)):
            a, b, rest = (p, q, rest_p) if d == "plus" else (q, p, rest_q)
            lo, hi = _disjoint_mass(a, b) if w is None else _positive_part_sums(a, b, w)
            ends.append((lo, hi + rest))
        out.append(_max_ends(ends))
    return out


def _disjoint_mass(a: Sequence[Any], b: Sequence[Any]) -> Tuple[Any, Any]:
    """delta(inf) = the mass of a where b is exactly 0 (b's zeros are exact)."""
    arb = flint().arb
    lower, upper = arb(0), arb(0)
    for ax, bx in zip(a, b):
        if bx.is_zero():
            lower += ax
            upper += ax
        elif not bx > 0:
            upper += ax.upper()
    return lower, upper


def _max_ends(ends: List[Tuple[Any, Any]]) -> Tuple[Any, Any]:
    lo, hi = ends[0]
    for a, b in ends[1:]:
        lo, hi = lo.max(a), hi.max(b)
    return lo, hi


def enclose(laws: Any, eps: List[float], direction: str, log_hints: List[float],
            log: bool = False) -> Tuple[List[float], List[float]]:
    """(lower, upper) floats per eps with lower <= delta_direction(eps) <=
    upper proven (ln delta with ``log``), rounded outward from the Arb sums.
    ``log_hints``: about ln delta at each eps (from the float path): they
    only size the windows (the tails are bounded whatever they are)."""
    module = flint()
    # python-flint's working precision is one process-wide setting: calls
    # from several threads take turns (an Arb ball is a proof at any
    # precision, but another thread's restore would widen this one's)
    with _PRECISION_LOCK:
        old = module.ctx.prec
        module.ctx.prec = PRECISION_BITS
        try:
            if isinstance(laws, ArbClosedForm):
                balls = [(b, b) for b in (_closed(laws, e, direction) for e in eps)]
            else:
                balls = _window_sums(laws, eps, direction, log_hints)
            lower = [_end_down(lo, log) for lo, _ in balls]
            upper = [_end_up(hi, log) for _, hi in balls]
            return lower, upper
        finally:
            module.ctx.prec = old


def _end_down(ball: Any, log: bool) -> float:
    """A float at or below the ball's lower end (or its ln), clipped to delta >= 0."""
    end = ball.lower()
    if not end > 0:
        return -math.inf if log else 0.0
    return float_down(end.log() if log else end)


def _end_up(ball: Any, log: bool) -> float:
    """A float at or above the ball's upper end (or its ln), clipped to delta <= 1."""
    end = ball.upper()
    if not end.is_finite() or end >= 1:
        return 0.0 if log else 1.0
    if not end > 0:
        return -math.inf if log else 0.0
    return float_up(end.log() if log else end)


def _closed(laws: ArbClosedForm, eps: float, direction: str) -> Any:
    arb = flint().arb
    if eps == -math.inf:                 # e^eps = 0: the whole mass of P
        return arb(1)
    e = arb(eps) if math.isfinite(eps) else eps
    if direction == "max":
        plus, minus = laws.delta_ball(e, "plus"), laws.delta_ball(e, "minus")
        return plus.max(minus)
    return laws.delta_ball(e, direction)


def float_down(x: Any) -> float:
    """The largest float <= the Arb ball's lower end (0 <= x assumed clipped by the caller)."""
    arb = flint().arb
    end = x.lower()
    f = float(end.mid())
    while arb(f) > end:
        f = math.nextafter(f, -math.inf)
    return f


def float_up(x: Any) -> float:
    """The smallest float >= the Arb ball's upper end."""
    arb = flint().arb
    end = x.upper()
    f = float(end.mid())
    while arb(f) < end:
        f = math.nextafter(f, math.inf)
    return f


# -- the kinds ---------------------------------------------------------------
def _exact(x: float) -> Any:
    return flint().arb(float(x))          # a float's exact value


class BinomialShift(ArbWindowLaws):
    """counting(n, pi) without noise: S ~ Bin(N, pi), N = n - 1, P = S + 1,
    Q = S.  The pmf at the mode from Arb's lgamma, the others by the exact
    ratio Pr[S = k+1] / Pr[S = k] = (N - k) pi / ((k + 1)(1 - pi)); the tails
    beyond the window [a, b] bounded by geometric series with the ratio at
    the window's edges (the ratio is monotone):
    sum_{k > b} <= Pr[S = b] r / (1 - r), r = (N - b) pi / ((b + 1)(1 - pi)),
    and likewise below a."""

    def __init__(self, n: int, pi: float) -> None:
        self.N, self.pi = int(n) - 1, float(pi)
        self.mode = min(self.N, int(math.floor((self.N + 1) * self.pi)))

    def log_peak(self) -> float:
        sd = math.sqrt(max(self.N * self.pi * (1.0 - self.pi), 1e-300))
        return -math.log(max(1.0, math.sqrt(2.0 * math.pi) * sd))

    def atoms(self, drop: float) -> float:
        sd = math.sqrt(self.N * self.pi * (1.0 - self.pi))
        return min(self.N + 1.0, 2.0 * (sd * math.sqrt(2.0 * drop) + drop) + 3.0)

    def window(self, drop: float) -> Tuple[List[Any], List[Any], Any, Any]:
        arb = flint().arb
        N, m, zero = self.N, self.mode, arb(0)
        if self.pi in (0.0, 1.0) or N == 0:
            z, rest = [arb(1)], zero         # S = 0 or N surely
        else:
            pi = _exact(self.pi)
            odds = pi / (1 - pi)
            log_mode = (_log_binomial(N, m) + m * pi.log() + (N - m) * (-pi).log1p())
            _, z, rest = _unimodal_window(log_mode, m, 0, N,
                                          lambda k: (N - k) * odds / (k + 1), drop)
        # atoms j = a .. b + 1: P(j) = Pr[S = j - 1], Q(j) = Pr[S = j]
        return [zero] + z, z + [zero], rest, rest


def _log_binomial(n: int, k: int) -> Any:
    """ln C(n, k) in Arb."""
    arb = flint().arb
    return arb(n + 1).lgamma() - arb(k + 1).lgamma() - arb(n - k + 1).lgamma()


def _unimodal_window(log_at_mode: Any, mode: int, low: int, high: int, ratio: Any,
                     drop: float) -> Tuple[int, List[Any], Any]:
    """A log-concave pmf f on the support [low, high] as Arb balls on the window
    [a, b] around its mode: f(mode) = e^log_at_mode, then outward by the exact
    ratio f(k+1) / f(k) = ratio(k) (Arb) while within ``drop`` nats of the
    mode.  Returns (a, [f(a), ..., f(b)], rest): rest bounds the mass outside
    by geometric series from the edges -- log-concave: the ratio does not
    increase, so sum_{k > b} f(k) <= f(b) r / (1 - r), r = ratio(b), and below
    a likewise with r = 1 / ratio(a - 1)."""
    arb = flint().arb
    up, k, log_z = [log_at_mode.exp()], mode, 0.0
    while k < high and log_z > -drop:
        r = ratio(k)
        up.append(up[-1] * r)
        log_z += math.log(max(float(r.mid()), 1e-300))   # the window's size only
        k += 1
    b = k
    down: List[Any] = []
    last, k, log_z = up[0], mode, 0.0
    while k > low and log_z > -drop:
        r = ratio(k - 1)
        last = last / r
        down.append(last)
        log_z -= math.log(max(float(r.mid()), 1e-300))
        k -= 1
    a = k
    z = down[::-1] + up
    rest = arb(0)
    if b < high:
        r = ratio(b)
        rest += z[-1] * r / (1 - r) if r < 1 else arb(1)
    if a > low:
        r = 1 / ratio(a - 1)
        rest += z[0] * r / (1 - r) if r < 1 else arb(1)
    return a, z, rest


class SecretSample(ArbWindowLaws):
    """secret_sample(n, m, K) without noise: with H_k the hypergeometric law of
    the positives among k of the N = n - 1 others and lambda = m / n,
    P(j) = lambda H_{m-1}(j - 1) + (1 - lambda) H_m(j),
    Q(j) = lambda H_{m-1}(j) + (1 - lambda) H_m(j); each H_k in Arb from its
    mode (lgamma) by the exact ratio (K - j)(k - j) / ((j + 1)(N - K - k + j + 1)),
    its tails bounded as log-concave (_unimodal_window)."""

    def __init__(self, n: int, m: int, K: int) -> None:
        self.N, self.m, self.K = int(n) - 1, int(m), int(K)

    def atoms(self, drop: float) -> float:
        N, m, K = self.N, self.m, self.K
        frac = K / N if N else 0.0
        sd = math.sqrt(m * frac * (1.0 - frac))
        return 2.0 * min(m + 2.0, 2.0 * (sd * math.sqrt(2.0 * drop) + drop) + 3.0)

    def _hypergeometric(self, k: int, drop: float) -> Tuple[int, List[Any], Any]:
        N, K = self.N, self.K
        low, high = max(0, k - (N - K)), min(K, k)
        mode = min(high, max(low, (k + 1) * (K + 1) // (N + 2)))
        log_mode = (_log_binomial(K, mode) + _log_binomial(N - K, k - mode)
                    - _log_binomial(N, k))
        return _unimodal_window(log_mode, mode, low, high,
                                lambda j: flint().arb((K - j) * (k - j))
                                / ((j + 1) * (N - K - k + j + 1)), drop)

    def window(self, drop: float) -> Tuple[List[Any], List[Any], Any, Any]:
        arb = flint().arb
        N, m = self.N, self.m
        lam = arb(m) / (N + 1)
        a1, inside, rest_in = self._hypergeometric(m - 1, drop)
        rest = lam * rest_in
        first, last = a1, a1 + len(inside)
        if m <= N:                       # m < n: the target may be left out
            a2, outside, rest_out = self._hypergeometric(m, drop)
            rest += (1 - lam) * rest_out
            first, last = min(first, a2), max(last, a2 + len(outside) - 1)
        size = last - first + 1
        p, q = [arb(0)] * size, [arb(0)] * size

        def add(law: List[Any], weight: Any, start: int, into: List[Any]) -> None:
            for i, v in enumerate(law):
                into[start - first + i] += weight * v
        add(inside, lam, a1 + 1, p)
        add(inside, lam, a1, q)
        if m <= N:
            add(outside, 1 - lam, a2, p)
            add(outside, 1 - lam, a2, q)
        return p, q, rest, rest


class PoissonBinomialShift(ArbWindowLaws):
    """counting(None, probs) without noise: Z = the others' Poisson-binomial
    count, P = Z + 1, Q = Z, Z's pmf the exact product of (1 - p_j + p_j x)
    convolved record by record in Arb (every term non-negative: relative
    accuracy at every atom)."""

    windowed = False

    def __init__(self, probs: Sequence[float]) -> None:
        self.probs = [float(p) for p in probs]

    def atoms(self, drop: float) -> float:
        return len(self.probs) + 2.0

    def cost(self, drop: float) -> float:
        k = len(self.probs)
        return k + k * k                      # the convolution: two products per term

    def window(self, drop: float) -> Tuple[List[Any], List[Any], Any, Any]:
        arb = flint().arb
        z = [arb(1)]
        for p in self.probs:
            x = _exact(p)
            y = 1 - x
            z = [z[0] * y] + [z[k] * y + z[k - 1] * x for k in range(1, len(z))] + [z[-1] * x]
        zero = arb(0)
        return [zero] + z, z + [zero], zero, zero


class ExactLogPmfs(ArbWindowLaws):
    """from_log_pmfs: the given floats taken as exact, P(x) = e^lp(x) / sum e^lp
    and Q likewise (the curve's normalisation), every atom summed (no tails)."""

    windowed = False

    def __init__(self, log_p: Any, log_q: Any) -> None:
        self.log_p = np.asarray(log_p, dtype=np.float64)
        self.log_q = np.asarray(log_q, dtype=np.float64)

    def atoms(self, drop: float) -> float:
        return float(self.log_p.size)

    def window(self, drop: float) -> Tuple[List[Any], List[Any], Any, Any]:
        arb = flint().arb

        def law(logs: Any) -> List[Any]:
            top = float(np.max(logs))
            vals = [arb(0) if v == -math.inf else (_exact(v) - _exact(top)).exp()
                    for v in logs.tolist()]
            total = sum(vals, arb(0))
            return [v / total for v in vals]
        return law(self.log_p), law(self.log_q), arb(0), arb(0)


class LaplaceDP(ArbClosedForm):
    """dp.laplace at sensitivity 1, scale b (eps0 = 1/b), both directions:
    delta = 1 - e^eps (eps <= -eps0), 1 - e^((eps - eps0)/2) (|eps| < eps0),
    0 (eps >= eps0)."""

    def __init__(self, scale: float) -> None:
        self.scale = float(scale)

    def delta_ball(self, eps: Any, direction: str) -> Any:
        arb = flint().arb
        if eps == math.inf:
            return arb(0)
        e0 = 1 / _exact(self.scale)
        low = 1 - eps.exp()
        mid = 1 - ((eps - e0) / 2).exp()
        high = arb(0)
        return _piecewise(eps, [(-e0, low), (e0, mid)], high)


class GeometricDP(ArbClosedForm):
    """dp.geometric at sensitivity 1: two-sided geometric noise Pr[N = k] ~
    alpha^|k|, eps0 = -ln alpha: delta = 1 - e^eps (eps <= -eps0),
    (1 - alpha e^eps) / (1 + alpha) (|eps| < eps0), 0 (eps >= eps0)."""

    def __init__(self, alpha: float) -> None:
        self.alpha = float(alpha)

    def delta_ball(self, eps: Any, direction: str) -> Any:
        arb = flint().arb
        if eps == math.inf:
            return arb(0)
        alpha = _exact(self.alpha)
        e0 = -alpha.log()
        mid = (1 - alpha * eps.exp()) / (1 + alpha)
        return _piecewise(eps, [(-e0, 1 - eps.exp()), (e0, mid)], arb(0))


class GaussianDP(ArbClosedForm):
    """dp.gaussian at sensitivity 1 (Balle & Wang, "Improving the Gaussian
    mechanism for differential privacy"): delta = Phi(1/(2 sigma) - eps sigma)
    - e^eps Phi(-1/(2 sigma) - eps sigma), Phi(x) = erfc(-x / sqrt 2) / 2."""

    def __init__(self, sigma: float) -> None:
        self.sigma = float(sigma)

    def delta_ball(self, eps: Any, direction: str) -> Any:
        arb = flint().arb
        if eps == math.inf:
            return arb(0)
        s = _exact(self.sigma)
        root2 = arb(2).sqrt()

        def phi(x: Any) -> Any:
            return (-x / root2).erfc() / 2
        return phi(1 / (2 * s) - eps * s) - eps.exp() * phi(-1 / (2 * s) - eps * s)


def _piecewise(eps: Any, pieces: List[Tuple[Any, Any]], last: Any) -> Any:
    """The value on the first piece whose right end (a ball) lies above eps
    (the pieces agree at their ends: a ball straddling an end takes both)."""
    value: Optional[Any] = None
    for end, piece in pieces:
        if eps < end:
            return piece if value is None else value.union(piece)
        if not eps >= end:               # undecided: continuous there, take both
            value = piece if value is None else value.union(piece)
    return last if value is None else value.union(last)
