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
- a closed form (``ArbClosedForm``) gives ``delta_ball(eps, direction)``;
- a max over pairs (``MaxOfLaws``: an active attacker's choice) is the max
  of the members' lower ends and of their upper ends;
- a count plus noise (``NoisyCount``) is a discrete pair's window with an
  ``ArbNoise`` (Laplace, geometric, Gaussian), whose ``hockey_stick(c)``
  bounds the divergence of the window's signed measure c = P - e^eps Q
  convolved with the noise; the rests bound the rest (see NoisyCount).

The curves' laws hand these out (``certified_laws()``; None: not covered).
python-flint is an optional dependency (``pip install "statpriv[certified]"``),
imported on first use.
"""
from __future__ import annotations

import math
import threading
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

__all__ = ["ArbClosedForm", "ArbNoise", "ArbWindowLaws", "BinomialShift", "ExactLogPmfs",
           "GaussianDP", "GaussianNoise", "GeometricDP", "GeometricNoise", "GeometricShift",
           "LaplaceDP", "LaplaceNoise", "LumpedGeometric", "MAX_TERMS", "MaxOfLaws", "NoisyCount",
           "PRECISION_BITS", "PoissonBinomialShift", "ProductLaws", "RandomizedResponse",
           "SampledAddRemove",
           "SampledReplaceOne", "ThresholdedCount", "VertexPair", "vertex_worst_case",
           "active_threshold", "CountLattice", "KAnonymityLaws", "LatticeShift",
           "SampledPair", "SampledWithoutReplacement", "lattice_worst_case", "subsampled",
           "SecretSample", "SubsampleShift", "WithReplacement", "decimal_down", "decimal_up",
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
    (built once for every eps).  ``exact_atoms`` False: the window's P(x),
    Q(x) are parts of the laws' values (sub-measures: a mixture whose
    weights are cut to a window), the rests bounding what is missing."""

    windowed = True
    exact_atoms = True

    def atoms(self, drop: float) -> float:
        """The number of window atoms for ``window(drop)`` (an estimate, before any work)."""
        raise NotImplementedError

    def cost(self, drop: float) -> float:
        """The Arb operations of ``window(drop)`` (an estimate, before any work)."""
        return self.atoms(drop)

    def window(self, drop: float) -> Tuple[List[Any], List[Any], Any, Any]:
        """(P, Q, rest_p, rest_q): the laws as Arb balls on the atoms whose mass
        is within ``drop`` nats of the largest (or more), and upper bounds
        (Arb) on the P and Q mass outside them.  Every returned P(x), Q(x)
        holds the law's own value at x (an atom where part of the value is
        cut off is left out, its mass in the rests: _mixture)."""
        raise NotImplementedError

    def log_peak(self) -> float:
        """ln of (about) the largest atom: drop is counted from it."""
        return 0.0

    def factor(self) -> Optional["ArbWindowLaws"]:
        """This pair as a factor of a product (ProductLaws): itself where its
        delta is the plain sum over its atoms, None where a kind sums
        otherwise (a count plus noise: the noisy laws are not its atoms)."""
        return self if type(self).positive_part_sums is ArbWindowLaws.positive_part_sums else None

    def positive_part_sums(self, a: List[Any], b: List[Any], w: Optional[Any],
                           rest_b: Any) -> Tuple[Any, Any]:
        """Lower and upper Arb bounds on the window's share of
        sum (a - w b)_+ (w None: e^eps = inf), ``rest_b`` bounding b's mass
        outside the window; the caller adds a's rest to the upper end.  The
        default sums the atoms' own terms (exact terms of the full sum); for
        sub-measures a_W <= a, b_W <= b (not ``exact_atoms``),
        (a - w b)_+ >= (a_W - w b_W)_+ - w (b - b_W), so the lower end gives
        up w rest_b (all of it at w = inf)."""
        if w is None:
            lower, upper = _disjoint_mass(a, b)
            return (lower if self.exact_atoms or rest_b.is_zero() else flint().arb(0)), upper
        lower, upper = _positive_part_sums(a, b, w)
        return (lower if self.exact_atoms else lower - w * rest_b), upper


class ArbClosedForm:
    """A pair whose delta has a closed form, evaluated in Arb."""

    def delta_ball(self, eps: Any, direction: str) -> Any:
        """delta_<direction>(eps) as an Arb ball (eps an exact Arb number)."""
        raise NotImplementedError

    def factor(self) -> Optional[ArbWindowLaws]:
        """The pair as discrete window laws (a factor of ProductLaws), or None:
        a continuous pair (the default)."""
        return None


def _positive_part_sums(a: Sequence[Any], b: Sequence[Any], w: Any) -> Tuple[Any, Any]:
    """Lower and upper Arb sums of (a(x) - w b(x))_+ over the window."""
    return _positive_parts(ax - w * bx for ax, bx in zip(a, b))


def _positive_parts(terms: Iterable[Any]) -> Tuple[Any, Any]:
    """Lower and upper Arb sums of the terms' positive parts."""
    arb = flint().arb
    lower, upper = arb(0), arb(0)
    # A Python loop over the terms (~1-3 us each), against the house rule:
    # python-flint has no vector operations on Arb balls, and calling Arb from
    # C would make FLINT a build dependency of every install; this path is the
    # certificate, not the fast one (4-7 ms at n = 1e4, refused past 1e7 terms)
    for t in terms:
        if t > 0:
            lower += t
            upper += t
        elif not t < 0:                  # sign undecided: only the upper end takes it
            upper += t.upper()
    return lower, upper


# A hint of delta = 0 (the float path's -inf) asks for the whole support
# unless that takes more than this share of MAX_TERMS (see _drop)
ZERO_HINT_SHARE = 0.1


def _drop(laws: ArbWindowLaws, log_hint: float, eps: float, sides: int) -> float:
    """The window's depth in nats below the largest atom: TAIL_NATS below
    the hinted delta, eps more for sub-measures (their lower end gives up
    e^eps times the rest: ArbWindowLaws.exact_atoms); for a hint of 0 the
    whole support (an exact 0 where the sum is one) if affordable, else the
    deepest window (halving from there, not below ~1000 nats) within
    ZERO_HINT_SHARE of the budget -- its rest still bounds the upper end,
    now ~e^-drop instead of 0."""
    if math.isfinite(log_hint):
        lift = eps if 0.0 < eps < math.inf and not laws.exact_atoms else 0.0
        return max(TAIL_NATS, TAIL_NATS + lift + laws.log_peak() - log_hint)
    drop = TAIL_NATS + laws.log_peak() + 1e6
    budget = ZERO_HINT_SHARE * MAX_TERMS
    while drop > 2000.0 and laws.cost(drop) + laws.atoms(drop) * sides > budget:
        drop /= 2.0
    return drop


def _window_sums(laws: ArbWindowLaws, eps_list: List[float], direction: str,
                 log_hints: List[float]) -> List[Tuple[Any, Any]]:
    """Each eps on its own window: down to TAIL_NATS below its hinted delta
    -- or every eps on the deepest of them, where that is estimated cheaper
    (laws whose building costs far more than their sums: WithReplacement)."""
    drops, terms = _plan(laws, eps_list, direction, log_hints)
    _guard(terms, "building the laws, summing per eps")
    return _sums_on(laws, eps_list, direction, drops)


def _plan(laws: ArbWindowLaws, eps_list: List[float], direction: str,
          log_hints: List[float]) -> Tuple[List[float], float]:
    """(the window depth per eps, the estimated Arb terms): see _window_sums."""
    sides = 2 if direction == "max" else 1
    drops = [_drop(laws, h, e, sides) for h, e in zip(log_hints, eps_list)]
    if not laws.windowed:
        drops = [TAIL_NATS] * len(drops)
    per_drop = (sum(laws.cost(d) for d in set(drops))
                + sum(laws.atoms(d) * sides for d in drops))
    deepest = max(drops)
    once = laws.cost(deepest) + len(drops) * laws.atoms(deepest) * sides
    if once < per_drop:
        return [deepest] * len(drops), once
    return drops, per_drop


def _max_of_sums(laws: "MaxOfLaws", eps_list: List[float], direction: str,
                 log_hints: List[float]) -> List[Tuple[Any, Any]]:
    """Per eps the max of the members' lower ends and of their upper ends
    (the size guard on the sum of the members' estimates, before any work)."""
    members = laws.oriented(direction)
    plans: List[Tuple[List[float], float]] = []
    terms = 0.0
    for m, side in members:      # (past the budget: the members seen so far, scaled)
        plans.append(_plan(m, eps_list, side, log_hints))
        terms += plans[-1][1]
        if terms > MAX_TERMS:
            terms *= len(members) / len(plans)
            break
    _guard(terms, f"{len(members)} pairs, building and summing each")
    sums = [_sums_on(m, eps_list, side, drops)
            for (m, side), (drops, _) in zip(members, plans)]
    return [_max_ends(list(ends)) for ends in zip(*sums)]


def _sums_on(laws: ArbWindowLaws, eps_list: List[float], direction: str,
             drops: List[float]) -> List[Tuple[Any, Any]]:
    """The (lower, upper) Arb sums per eps on the planned windows."""
    arb = flint().arb
    out = []
    windows: Dict[float, Tuple[List[Any], List[Any], Any, Any]] = {}
    for eps, drop in zip(eps_list, drops):
        if drop not in windows:
            windows[drop] = laws.window(drop)
        p, q, rest_p, rest_q = windows[drop]
        w = None if eps == math.inf else arb(eps).exp()
        ends = []
        for d in (("plus", "minus") if direction == "max" else (direction,)):
            a, b, rest, rest_b = ((p, q, rest_p, rest_q) if d == "plus"
                                  else (q, p, rest_q, rest_p))
            lo, hi = laws.positive_part_sums(a, b, w, rest_b)
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
            log: bool = False, digits: Optional[int] = None) -> Tuple[List[Any], List[Any]]:
    """(lower, upper) floats per eps with lower <= delta_direction(eps) <=
    upper proven (ln delta with ``log``), rounded outward from the Arb sums.
    ``log_hints``: about ln delta at each eps (from the float path): they
    only size the windows (the tails are bounded whatever they are).
    ``digits``: the ends as decimal strings of that many significant digits
    instead, rounded outward from the Arb ends themselves (not from floats:
    the enclosure's own width, ~1e-40 relative, not float64's 1e-16)."""
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
            elif isinstance(laws, MaxOfLaws):
                balls = _max_of_sums(laws, eps, direction, log_hints)
            else:
                balls = _window_sums(laws, eps, direction, log_hints)
            if digits is not None:
                return ([_text_down(lo, log, digits) for lo, _ in balls],
                        [_text_up(hi, log, digits) for _, hi in balls])
            lower = [_end_down(lo, log) for lo, _ in balls]
            upper = [_end_up(hi, log) for _, hi in balls]
            return lower, upper
        finally:
            module.ctx.prec = old


def _end_down(ball: Any, log: bool) -> float:
    """A float at or below the ball's lower end (or its ln), clipped to [0, 1]
    (laws of floats taken as exact may hold a mass of 1 + an ulp)."""
    end = ball.lower()
    if not end > 0:
        return -math.inf if log else 0.0
    if end >= 1:
        return 0.0 if log else 1.0
    return float_down(end.log() if log else end)


def _end_up(ball: Any, log: bool) -> float:
    """A float at or above the ball's upper end (or its ln), clipped to delta <= 1."""
    end = ball.upper()
    if not end.is_finite() or end >= 1:
        return 0.0 if log else 1.0
    if not end > 0:
        return -math.inf if log else 0.0
    return float_up(end.log() if log else end)


def _text_down(ball: Any, log: bool, digits: int) -> str:
    """``_end_down`` as a decimal string of ``digits`` significant digits."""
    end = ball.lower()
    if not end > 0:
        return "-inf" if log else "0"
    return decimal_down(end.log() if log else end, digits)


def _text_up(ball: Any, log: bool, digits: int) -> str:
    """``_end_up`` as a decimal string of ``digits`` significant digits."""
    end = ball.upper()
    if not end.is_finite() or end >= 1:
        return "0" if log else "1"
    if not end > 0:
        return "-inf" if log else "0"
    return decimal_up(end.log() if log else end, digits)


def decimal_down(x: Any, digits: int) -> str:
    """The largest decimal of ``digits`` significant digits <= the Arb ball's lower end."""
    return _decimal_outward(x.lower(), digits, -1)


def decimal_up(x: Any, digits: int) -> str:
    """The smallest decimal of ``digits`` significant digits >= the Arb ball's upper end."""
    return _decimal_outward(x.upper(), digits, 1)


def _decimal_outward(end: Any, digits: int, side: int) -> str:
    """Arb's nearest decimal of the exact point ``end``, stepped by one unit
    in its last digit (outward: side -1 down, +1 up) until the parsed
    decimal's ball lies on that side of ``end``."""
    import decimal
    arb = flint().arb
    context = decimal.Context(prec=digits)
    value = context.plus(decimal.Decimal(end.str(digits, radius=False, more=True)))
    while not (arb(str(value)) <= end if side < 0 else arb(str(value)) >= end):
        value = context.next_minus(value) if side < 0 else context.next_plus(value)
    return str(value)


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
    """counting(n, pi) without noise, Poisson-sampled at ``rate`` (1: no
    sampling; A. Smith, "Differential privacy and the secrecy of the
    sample", Alg. 2): Z ~ Bin(N, rho), N = n - 1, rho = rate * pi (the exact
    product, in Arb), P = rate Z(. - 1) + (1 - rate) Z, Q = Z.  Z's pmf at
    the mode from Arb's lgamma, the others by the exact ratio
    Pr[Z = k+1] / Pr[Z = k] = (N - k) rho / ((k + 1)(1 - rho)); the tails
    beyond the window [a, b] bounded by geometric series with the ratio at
    the window's edges (the ratio is monotone):
    sum_{k > b} <= Pr[Z = b] r / (1 - r), r = (N - b) rho / ((b + 1)(1 - rho)),
    and likewise below a; P's rest is Z's (a mixture of two shifts of Z)."""

    def __init__(self, n: int, pi: float, rate: float = 1.0) -> None:
        self.N, self.pi, self.rate = int(n) - 1, float(pi), float(rate)
        self.rho = self.pi * self.rate            # (the float: window sizes only)

    def log_peak(self) -> float:
        return _binomial_log_peak(self.N, self.rho)

    def atoms(self, drop: float) -> float:
        return min(self.N + 2.0, _binomial_atoms(self.N, self.rho, drop))

    def window(self, drop: float) -> Tuple[List[Any], List[Any], Any, Any]:
        z = _binomial_window(self.N, _exact(self.pi) * _exact(self.rate), self.rho, drop)
        return _sampled_shift(z, self.rate)


def _binomial_log_peak(N: float, rho: float) -> float:
    """About ln of Bin(N, rho)'s largest atom (window depths only)."""
    sd = math.sqrt(max(N * rho * (1.0 - rho), 1e-300))
    return -math.log(max(1.0, math.sqrt(2.0 * math.pi) * sd))


def _binomial_atoms(N: int, rho: float, drop: float) -> float:
    """About the window atoms of Bin(N, rho) ``drop`` nats deep."""
    sd = math.sqrt(max(N * rho * (1.0 - rho), 0.0))
    return 2.0 * (sd * math.sqrt(2.0 * drop) + drop) + 3.0


# A pmf on a window of its support (_unimodal_window): (first atom, the pmf's
# balls from there on, a bound on the mass outside, the support's ends)
Window = Tuple[int, List[Any], Any, int, int]


def _binomial_window(N: int, rho: Any, rho_float: float, drop: float,
                     complement: Optional[Any] = None) -> Window:
    """Bin(N, rho), rho an exact Arb number, on its window (_unimodal_window);
    ``complement``: 1 - rho as its own ball (accurate where rho is a ball
    near 1; None: 1 - rho)."""
    arb = flint().arb
    if N == 0 or rho == 0:
        return 0, [arb(1)], arb(0), 0, 0     # Z = 0 surely
    if rho == 1 or (complement is not None and complement == 0):
        return N, [arb(1)], arb(0), N, N     # Z = N surely
    mode = min(N, int(math.floor((N + 1) * rho_float)))
    if complement is None:
        odds = rho / (1 - rho)
        log_mode = _log_binomial(N, mode) + mode * rho.log() + (N - mode) * (-rho).log1p()
    else:
        odds = rho / complement
        log_mode = _log_binomial(N, mode) + mode * rho.log() + (N - mode) * complement.log()
    return _unimodal_window(log_mode, mode, 0, N, lambda k: (N - k) * odds / (k + 1), drop)


def _sampled_shift(z: Window, rate: float) -> Tuple[List[Any], List[Any], Any, Any]:
    """(P, Q, rest_p, rest_q) of P = rate Z(. - 1) + (1 - rate) Z, Q = Z
    (rate 1: the plain shift) from Z's window (_mixture)."""
    if rate == 1.0:
        return _mixture([(z, 1, 1, 0), (z, 1, 0, 1)])
    g = _exact(rate)
    return _mixture([(z, g, 1, 0), (z, 1 - g, 0, 0), (z, 1, 0, 1)])


def _mixture(terms: List[Tuple[Window, Any, int, int]]) -> Tuple[List[Any], List[Any], Any, Any]:
    """(P, Q, rest_p, rest_q) of P(j) = sum weight f(j - shift) over the terms
    (f, weight, shift, 0) and Q(j) likewise over (f, weight, shift, 1), each
    f known on a window.  Only the atoms where every term is known -- inside
    its window or outside its support (exactly 0) -- are returned, so each
    returned P(x), Q(x) is the law's own (the sum's terms are exact terms of
    delta's); what the others hold, and the windows' rests, goes to the
    rests (the first and last run of atoms of a window whose neighbour falls
    outside it: at most a few atoms per edge)."""
    arb = flint().arb
    first = min(w[0] + shift for w, _, shift, _ in terms)
    last = max(w[0] + len(w[1]) - 1 + shift for w, _, shift, _ in terms)
    size = last - first + 1
    sides: Tuple[List[Any], List[Any]] = ([arb(0)] * size, [arb(0)] * size)
    rests = [arb(0), arb(0)]
    exact = [True] * size
    for (start, values, rest, low, high), weight, shift, side in terms:
        into = sides[side]
        at = start + shift - first
        into[at:at + len(values)] = [x + weight * v
                                     for x, v in zip(into[at:at + len(values)], values)]
        rests[side] += weight * rest
        end = start + len(values) - 1
        # the atoms j whose j - shift is in the support [low, high] but not in
        # the window [start, end]: the runs from either end of the support
        for a, b in ((low, start - 1), (end + 1, high)):
            a, b = max(a + shift, first) - first, min(b + shift, last) - first
            if a <= b:
                exact[a:b + 1] = [False] * (b - a + 1)
    # the longest run of known atoms (one run: the windows overlap)
    best, run_start, run = (0, 0), 0, 0
    for i, known in enumerate(exact + [False]):
        if known:
            run += 1
        else:
            if run > best[1] - best[0]:
                best = (run_start, run_start + run)
            run_start, run = i + 1, 0
    lo, hi = best
    for side in (0, 1):
        rests[side] += sum(sides[side][:lo], arb(0)) + sum(sides[side][hi:], arb(0))
    return sides[0][lo:hi], sides[1][lo:hi], rests[0], rests[1]


def _log_binomial(n: int, k: int) -> Any:
    """ln C(n, k) in Arb."""
    arb = flint().arb
    return arb(n + 1).lgamma() - arb(k + 1).lgamma() - arb(n - k + 1).lgamma()


def _unimodal_window(log_at_mode: Any, mode: int, low: int, high: int, ratio: Any,
                     drop: float) -> Window:
    """A log-concave pmf f on the support [low, high] as Arb balls on the window
    [a, b] around its mode: f(mode) = e^log_at_mode, then outward by the exact
    ratio f(k+1) / f(k) = ratio(k) (Arb) while within ``drop`` nats of the
    mode.  Returns (a, [f(a), ..., f(b)], rest, low, high): rest bounds the mass outside
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
    return a, z, rest, low, high


class _SampleMixture(ArbWindowLaws):
    """A count over a uniform sample of m of the n records: with C_k the law
    of the positives among k of the N = n - 1 others (``_component``) and
    lambda = m / n (the target sampled),
    P(j) = lambda C_{m-1}(j - 1) + (1 - lambda) C_m(j),
    Q(j) = lambda C_{m-1}(j) + (1 - lambda) C_m(j); each C_k log-concave on
    its window, its tails bounded by _unimodal_window, the rests mixed alike."""

    def __init__(self, n: int, m: int) -> None:
        self.N, self.m = int(n) - 1, int(m)

    def _spread(self) -> float:
        """About the standard deviation of C_m (window sizes only)."""
        raise NotImplementedError

    def _component(self, k: int, drop: float) -> Window:
        """C_k on its window."""
        raise NotImplementedError

    def atoms(self, drop: float) -> float:
        sd = self._spread()
        return 2.0 * min(self.m + 2.0, 2.0 * (sd * math.sqrt(2.0 * drop) + drop) + 3.0)

    def window(self, drop: float) -> Tuple[List[Any], List[Any], Any, Any]:
        lam = flint().arb(self.m) / (self.N + 1)
        inside = self._component(self.m - 1, drop)
        terms = [(inside, lam, 1, 0), (inside, lam, 0, 1)]
        if self.m <= self.N:             # m < n: the target may be left out
            outside = self._component(self.m, drop)
            terms += [(outside, 1 - lam, 0, 0), (outside, 1 - lam, 0, 1)]
        return _mixture(terms)


class SecretSample(_SampleMixture):
    """secret_sample(n, m, K) without noise: C_k = H_k, the hypergeometric law
    of the positives among k of the N = n - 1 others, K of them positive; H_k
    in Arb from its mode (lgamma) by the exact ratio
    (K - j)(k - j) / ((j + 1)(N - K - k + j + 1))."""

    def __init__(self, n: int, m: int, K: int) -> None:
        super().__init__(n, m)
        self.K = int(K)

    def _spread(self) -> float:
        frac = self.K / self.N if self.N else 0.0
        return math.sqrt(self.m * frac * (1.0 - frac))

    def _component(self, k: int, drop: float) -> Window:
        N, K = self.N, self.K
        low, high = max(0, k - (N - K)), min(K, k)
        mode = min(high, max(low, (k + 1) * (K + 1) // (N + 2)))
        log_mode = (_log_binomial(K, mode) + _log_binomial(N - K, k - mode)
                    - _log_binomial(N, k))
        return _unimodal_window(log_mode, mode, low, high,
                                lambda j: flint().arb((K - j) * (k - j))
                                / ((j + 1) * (N - K - k + j + 1)), drop)


class SubsampleShift(_SampleMixture):
    """counting(n, pi, sample_size=m), m < n, without replacement (Breutigam &
    Reischuk, "Statistical Privacy", Thm 4.1): C_k = Bin(k, pi), iid records."""

    def __init__(self, n: int, m: int, pi: float) -> None:
        super().__init__(n, m)
        self.pi = float(pi)

    def _spread(self) -> float:
        return math.sqrt(self.m * self.pi * (1.0 - self.pi))

    def _component(self, k: int, drop: float) -> Window:
        return _binomial_window(k, _exact(self.pi), self.pi, drop)


class WithReplacement(ArbWindowLaws):
    """counting(n, pi, sample_size=m, sampling="with_replacement"): m draws
    with replacement, the count given the others' count A ~ Bin(n - 1, pi)
    is Bin(m, (A + 1)/n) (P) or Bin(m, A/n) (Q), so with B_u = Bin(m, u/n)
    on its whole support 0..m (Arb, from its mode by the exact ratio),
    P = sum_a Pr[A = a] B_{a+1}, Q = sum_a Pr[A = a] B_a over A's window
    (_binomial_window): sub-measures, the mass of the cut weights (A's rest)
    missing from every atom (``exact_atoms`` False)."""

    exact_atoms = False

    def __init__(self, n: int, m: int, pi: float) -> None:
        self.n, self.m, self.pi = int(n), int(m), float(pi)

    def atoms(self, drop: float) -> float:
        return self.m + 1.0

    def cost(self, drop: float) -> float:
        rows = min(float(self.n), _binomial_atoms(self.n - 1, self.pi, drop)) + 1.0
        return 3.0 * rows * (self.m + 1.0)      # B_u (one ratio, one product) and two sums

    def window(self, drop: float) -> Tuple[List[Any], List[Any], Any, Any]:
        arb = flint().arb
        n, m = self.n, self.m
        a0, weights, rest, _, _ = _binomial_window(n - 1, _exact(self.pi), self.pi, drop)
        rows = {}
        for u in range(a0, a0 + len(weights) + 1):
            start, values, _, _, _ = _binomial_window(m, arb(u) / n, u / n, math.inf)
            row = [arb(0)] * (m + 1)
            row[start:start + len(values)] = values
            rows[u] = row
        p, q = [arb(0)] * (m + 1), [arb(0)] * (m + 1)
        for i, weight in enumerate(weights):
            for c, (x, y) in enumerate(zip(rows[a0 + i + 1], rows[a0 + i])):
                p[c] += weight * x
                q[c] += weight * y
        return p, q, rest, rest


class PoissonBinomialShift(ArbWindowLaws):
    """counting(None, probs), Poisson-sampled at ``rate`` (1: no sampling):
    Z = the others' Poisson-binomial count of rate * p_j (exact products in
    Arb), P = rate Z(. - 1) + (1 - rate) Z, Q = Z; Z's pmf the exact product
    of (1 - x_j + x_j t) convolved record by record in Arb (every term
    non-negative: relative accuracy at every atom)."""

    windowed = False

    def __init__(self, probs: Sequence[float], rate: float = 1.0) -> None:
        self.probs, self.rate = [float(p) for p in probs], float(rate)

    def atoms(self, drop: float) -> float:
        return len(self.probs) + 2.0

    def cost(self, drop: float) -> float:
        k = len(self.probs)
        return k + k * k                      # the convolution: two products per term

    def window(self, drop: float) -> Tuple[List[Any], List[Any], Any, Any]:
        return _sampled_shift(_poisson_binomial(self.probs, self.rate), self.rate)


def _poisson_binomial(probs: Sequence[float], rate: float = 1.0) -> Window:
    """The count of independent Bernoulli(rate * p_j) on its whole support
    0..len(probs): the exact product of (1 - x_j + x_j t) convolved record
    by record in Arb (every term non-negative: relative accuracy at every
    atom; exact zeros where p_j is 0 or 1)."""
    arb = flint().arb
    z, g = [arb(1)], _exact(rate)
    for p in probs:
        x = _exact(p) * g
        y = 1 - x
        z = [z[0] * y] + [z[k] * y + z[k - 1] * x for k in range(1, len(z))] + [z[-1] * x]
    return 0, z, arb(0), 0, len(z) - 1


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


class RandomizedResponse(ArbWindowLaws):
    """dp.randomized_response(eps0, k): P = (e^eps0, 1[, k - 2]) / Z and
    Q = (1, e^eps0[, k - 2]) / Z on the reports (a, b[, the k - 2 others
    lumped]), Z = e^eps0 + k - 1, in Arb from eps0 (the float taken as
    exact) and k -- not from the curve's rounded log-pmfs."""

    windowed = False

    def __init__(self, eps0: float, k: int) -> None:
        self.eps0, self.k = float(eps0), int(k)

    def atoms(self, drop: float) -> float:
        return 3.0 if self.k > 2 else 2.0

    def window(self, drop: float) -> Tuple[List[Any], List[Any], Any, Any]:
        arb = flint().arb
        e = _exact(self.eps0).exp()
        z = e + (self.k - 1)
        p = [e / z, 1 / z] + ([arb(self.k - 2) / z] if self.k > 2 else [])
        q = [1 / z, e / z] + p[2:]
        return p, q, arb(0), arb(0)


class LumpedGeometric(ArbWindowLaws):
    """dp.geometric at an integer shift s, unsampled (q = 1) or Poisson-sampled
    at q (Geometric._dp_sampled_laws' formulas, here in Arb from alpha, s, q):
    with G(x) = c alpha^|x|, c = (1 - alpha)/(1 + alpha), and the tails
    G(x <= -k) = G(x >= k) = alpha^k / (1 + alpha), k >= 0,
    add_remove: A = (1-q) G + q G(. - s) against B = G on x <= 0, 1, ..., s-1,
    x >= s; replace_one: A against C = (1-q) G + q G(. + s) on x <= -s, ...,
    s - 1, x >= s.  G(x - s)/G(x) = alpha^clip(s - 2x, -s, s) and G(x + s)/G(x)
    = alpha^clip(s + 2x, -s, s) are constant on each lump, so the lumps are
    the whole laws (every atom exact, no tails)."""

    windowed = False

    def __init__(self, alpha: float, shift: int, sampling_prob: float, relation: str) -> None:
        self.alpha, self.shift = float(alpha), int(shift)
        self.q, self.relation = float(sampling_prob), relation

    def atoms(self, drop: float) -> float:
        return float(self.shift + 1 if self.relation == "add_remove" else 2 * self.shift + 1)

    def window(self, drop: float) -> Tuple[List[Any], List[Any], Any, Any]:
        arb = flint().arb
        alpha, q, s = _exact(self.alpha), _exact(self.q), self.shift
        first = 0 if self.relation == "add_remove" else -s
        c = (1 - alpha) / (1 + alpha)

        def g(x: int) -> Any:                       # G's lump at x
            if x == first or x == s:
                return alpha ** abs(x) / (1 + alpha)
            return c * alpha ** abs(x)

        def mix(x: int, sign: int) -> Any:          # 1 + q (G(x - sign s)/G(x) - 1)
            power = max(-s, min(s, s - sign * 2 * x))
            return 1 + q * (alpha ** power - 1)
        xs = range(first, s + 1)
        p = [g(x) * mix(x, 1) for x in xs]
        other = [g(x) for x in xs] if self.relation == "add_remove" else \
            [g(x) * mix(x, -1) for x in xs]
        return p, other, arb(0), arb(0)


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

    # the noise N itself (SampledReplaceOne): its likelihood ratio against a
    # shift by one is constant beyond one count from 0
    flat_beyond_one = True

    def density(self, x: Any) -> Any:
        b = _exact(self.scale)
        return (-abs(x) / b).exp() / (2 * b)

    def tail(self, x: Any) -> Any:
        """Pr[N > x] at an exact point x."""
        b = _exact(self.scale)
        if x >= 0:
            return (-x / b).exp() / 2
        return 1 - (x / b).exp() / 2


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

    def factor(self) -> ArbWindowLaws:
        return GeometricShift(self.alpha)


class GeometricShift(ArbWindowLaws):
    """dp.geometric's pair as discrete laws (a factor of ProductLaws):
    Q = N, P = N + 1, Pr[N = k] = kappa alpha^|k|, kappa = (1 - alpha) /
    (1 + alpha), on a window around 0 by the exact ratio (alpha, or 1/alpha
    below 0: log-concave), the tails bounded by _unimodal_window's
    geometric series."""

    # the support's ends in _unimodal_window (the window never reaches them)
    _FAR = 1 << 62

    def __init__(self, alpha: float) -> None:
        self.alpha = float(alpha)

    def log_peak(self) -> float:
        return math.log((1.0 - self.alpha) / (1.0 + self.alpha))

    def atoms(self, drop: float) -> float:
        return 2.0 * drop / -math.log(self.alpha) + 4.0

    def window(self, drop: float) -> Tuple[List[Any], List[Any], Any, Any]:
        alpha = _exact(self.alpha)
        inverse = 1 / alpha
        log_kappa = ((1 - alpha) / (1 + alpha)).log()
        z = _unimodal_window(log_kappa, 0, -self._FAR, self._FAR,
                             lambda k: alpha if k >= 0 else inverse, drop)
        return _sampled_shift(z, 1.0)


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

    # the noise N itself (SampledReplaceOne)
    flat_beyond_one = False

    def density(self, x: Any) -> Any:
        s = _exact(self.sigma)
        return (-(x * x) / (2 * s * s)).exp() / (s * (2 * flint().arb.pi()).sqrt())

    def tail(self, x: Any) -> Any:
        """Pr[N > x] = erfc(x / (sigma sqrt 2)) / 2."""
        return (x / (_exact(self.sigma) * flint().arb(2).sqrt())).erfc() / 2


class SampledAddRemove(ArbClosedForm):
    """A worst-case DP pair (an ArbClosedForm of N against M = N + 1, symmetric)
    Poisson-sampled at q under add/remove: A = (1-q) N + q M against N.  With
    w = e^eps, A - w N = q (M - w' N), w' = 1 + (w - 1)/q, so delta_plus =
    q delta(ln w') where w' > 0 and 1 - w where w' <= 0 (the integrand is
    then >= 0); N - w A = c (N - w'' M), c = 1 - (1-q) w, w'' = w q / c, so
    delta_minus = c delta(ln w'') where c > 0 and 0 where c <= 0 (Balle,
    Barthe & Gaboardi, "Privacy amplification by subsampling": exact
    identities, evaluated in Arb).  A w' or c whose sign the ball cannot
    decide takes the union of both sides' values."""

    def __init__(self, inner: ArbClosedForm, q: float) -> None:
        self.inner, self.q = inner, float(q)

    def delta_ball(self, eps: Any, direction: str) -> Any:
        arb = flint().arb
        if eps == math.inf:
            return arb(0)                # N's density is positive everywhere
        if direction == "plus":
            return _mixed_forward(self.inner, self.q, eps, "plus")
        q, w = _exact(self.q), eps.exp()
        c = 1 - (1 - q) * w
        if c > 0:
            return c * self.inner.delta_ball((w * q / c).log(), "minus")
        if c <= 0:
            return arb(0)
        return arb(0).union(arb(c.upper()))


def _mixed_forward(inner: ArbClosedForm, q_float: float, eps: Any, side: str) -> Any:
    """H_eps(q A + (1-q) B || B), the pair (A, B) the closed form's ``side``
    direction: q H_eps'(A || B), e^eps' = w' = 1 + (e^eps - 1)/q, where
    w' > 0, and 1 - e^eps where w' <= 0 (the integrand is then >= 0); a w'
    whose sign the ball cannot decide takes the union of both."""
    arb = flint().arb
    q, w = _exact(q_float), eps.exp()
    moved = 1 + eps.expm1() / q
    if moved > 0:
        return q * inner.delta_ball(moved.log(), side)
    if moved <= 0:
        return 1 - w
    return (1 - w).union(q * inner.delta_ball(arb(moved.upper()).log(), side).union(q))


class SampledWithoutReplacement(ArbClosedForm):
    """A closed-form pair (P, Q) run on a sample drawn without replacement
    (PrivacyCurve.subsample, replace-one): delta_plus = H(q P + (1-q) Q || Q),
    delta_minus = H(q Q + (1-q) P || P), each the exact reduction of the
    inner direction (_mixed_forward; 0 at eps = inf: the closed forms'
    noises have positive densities)."""

    def __init__(self, inner: ArbClosedForm, q: float) -> None:
        self.inner, self.q = inner, float(q)

    def delta_ball(self, eps: Any, direction: str) -> Any:
        if eps == math.inf:
            return flint().arb(0)
        return _mixed_forward(self.inner, self.q, eps, direction)


class SampledReplaceOne(ArbClosedForm):
    """A worst-case DP pair Poisson-sampled at q under replace-one: A = (1-q) N
    + q (N + 1) against C = (1-q) N + q (N - 1), N the inner kind's noise
    (its ``density`` and ``tail`` in Arb).  A/C is non-decreasing (its
    numerator's shift moves right, its denominator's left), so g = A - w C
    changes sign once, from - to +, at x*, and delta = F(x*), F(t) =
    integral of g over (t, inf) = (1-q) S(t) + q S(t-1) - w ((1-q) S(t) + q
    S(t+1)), S = Pr[N > .].  x* is bracketed by bisection on exact Arb
    points, the bracket proven by g's signs at its ends, and F is evaluated
    on the whole bracket (a ball holding F(x*)).  Laplace noise (ratio
    constant beyond one count: ``flat_beyond_one``): g(1) <= 0 proves
    delta = 0, g(-1) >= 0 proves delta = 1 - w.  Where no bracket is proven
    the bounds are [F(0)_+, 1] (F(t) <= delta at any t).  Symmetric (C is A
    mirrored): both directions alike."""

    # bisection steps (each halves the bracket: 2^-200 of its start)
    STEPS = 200

    def __init__(self, inner: Any, q: float) -> None:
        # inner: a closed form with the noise's ``density`` and ``tail``
        # (LaplaceDP, GaussianDP)
        self.inner, self.q = inner, float(q)

    def _g(self, x: Any, w: Any) -> Any:
        f, q = self.inner.density, _exact(self.q)
        return (1 - q) * f(x) * (1 - w) + q * (f(x - 1) - w * f(x + 1))

    def _F(self, t: Any, w: Any) -> Any:
        tail, q = self.inner.tail, _exact(self.q)
        return (1 - q) * tail(t) * (1 - w) + q * (tail(t - 1) - w * tail(t + 1))

    def delta_ball(self, eps: Any, direction: str) -> Any:
        arb = flint().arb
        if eps == math.inf:
            return arb(0)
        w = eps.exp()
        lo, hi = arb(-1), arb(1)
        if getattr(self.inner, "flat_beyond_one", False):
            if self._g(hi, w) <= 0:
                return arb(0)
            if self._g(lo, w) >= 0:
                return 1 - w
        else:
            for _ in range(64):
                if self._g(lo, w) < 0:
                    break
                lo *= 2
            for _ in range(64):
                if self._g(hi, w) > 0:
                    break
                hi *= 2
        if not (self._g(lo, w) < 0 and self._g(hi, w) > 0):
            return self._F(arb(0), w).max(arb(0)).union(arb(1))
        for _ in range(self.STEPS):
            mid = ((lo + hi) / 2).mid()
            g = self._g(mid, w)
            if g < 0:
                lo = mid
            elif g > 0:
                hi = mid
            else:
                break                    # g's sign lost in the ball: the bracket stays proven
        return self._F(lo.union(hi), w)


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



# -- products (compositions) -------------------------------------------------
class ProductLaws(ArbWindowLaws):
    """The composition of independent pairs: P = P_1 x P_2 x ..., Q = Q_1 x
    Q_2 x ... (each factor an ArbWindowLaws whose delta is its plain atom
    sum: ``factor()``), given as (factor, multiplicity) pairs.  The window
    is the product of the factors' windows (every product atom exact where
    every factor's atoms are), the rest a union bound: the P mass outside
    it is at most sum_i (factor i's P mass outside its window) times the
    others' totals (1: probability laws; the windows' sub-measures sum to
    at most that), likewise for Q.  Each factor's window is ``drop`` nats
    deep from its own peak (log_peak: the largest factor's), so each rest
    is ~e^-drop of the hinted delta whatever the number of factors."""

    def __init__(self, factors: Sequence[Tuple[ArbWindowLaws, int]]) -> None:
        self.factors = [(f, int(k)) for f, k in factors if int(k) > 0]
        self.exact_atoms = all(f.exact_atoms for f, _ in self.factors)
        self.windowed = any(f.windowed for f, _ in self.factors)

    def log_peak(self) -> float:
        return max((f.log_peak() for f, _ in self.factors), default=0.0)

    def atoms(self, drop: float) -> float:
        log_total = sum(k * math.log(f.atoms(drop)) for f, k in self.factors)
        return math.exp(log_total) if log_total < 690.0 else math.inf

    def cost(self, drop: float) -> float:
        return sum(f.cost(drop) for f, _ in self.factors) + self.atoms(drop)

    def window(self, drop: float) -> Tuple[List[Any], List[Any], Any, Any]:
        arb = flint().arb
        p, q, rest_p, rest_q = [arb(1)], [arb(1)], arb(0), arb(0)
        for f, k in self.factors:
            fp, fq, frest_p, frest_q = f.window(drop if f.windowed else TAIL_NATS)
            for _ in range(k):
                p = [x * y for x in p for y in fp]
                q = [x * y for x in q for y in fq]
                rest_p += frest_p
                rest_q += frest_q
        return p, q, rest_p.min(arb(1)), rest_q.min(arb(1))


# -- thresholded counts --------------------------------------------------------
class CountLaw:
    """A count's law for ThresholdedCount: ``window(drop)`` (a Window, kept
    per drop), ``atoms(drop)``, ``log_peak()``, ``support`` (low, high) and
    ``windowed`` (False: the whole support whatever drop)."""

    windowed = True
    support: Tuple[int, int] = (0, 0)

    def __init__(self) -> None:
        self._windows: Dict[float, Window] = {}

    def atoms(self, drop: float) -> float:
        raise NotImplementedError

    def cost(self, drop: float) -> float:
        return self.atoms(drop)

    def log_peak(self) -> float:
        raise NotImplementedError

    def window(self, drop: float) -> Window:
        if drop not in self._windows:
            self._windows[drop] = self._build(drop)
        return self._windows[drop]

    def _build(self, drop: float) -> Window:
        raise NotImplementedError


class BinomialCount(CountLaw):
    """Bin(N, pi) (_binomial_window)."""

    def __init__(self, N: int, pi: float) -> None:
        super().__init__()
        self.N, self.pi = int(N), float(pi)
        if self.N == 0 or self.pi == 0.0:
            self.support = (0, 0)   # (the class attribute's default, spelled out)
        elif self.pi == 1.0:
            self.support = (self.N, self.N)
        else:
            self.support = (0, self.N)

    def atoms(self, drop: float) -> float:
        return min(self.N + 1.0, _binomial_atoms(self.N, self.pi, drop))

    def log_peak(self) -> float:
        return BinomialShift(self.N + 1, self.pi).log_peak()

    def _build(self, drop: float) -> Window:
        return _binomial_window(self.N, _exact(self.pi), self.pi, drop)


class PoissonBinomialCount(CountLaw):
    """The count of independent Bernoulli(p_j) (_poisson_binomial, whole support)."""

    windowed = False

    def __init__(self, probs: Sequence[float]) -> None:
        super().__init__()
        self.probs = [float(p) for p in probs]
        ones = sum(1 for p in self.probs if p == 1.0)
        self.support = (ones, ones + sum(1 for p in self.probs if 0.0 < p < 1.0))

    def atoms(self, drop: float) -> float:
        return len(self.probs) + 1.0

    def cost(self, drop: float) -> float:
        return float(len(self.probs)) ** 2

    def log_peak(self) -> float:
        return 0.0

    def _build(self, drop: float) -> Window:
        return _poisson_binomial(self.probs)


def _threshold_pair(z: Window, t: int) -> Tuple[List[Any], List[Any], Any, Any]:
    """(P, Q, rest_p, rest_q) of a count Z thresholded at t on Z (thresholding's
    module docstring): released atoms k >= t with P(k) = z(k - 1), Q(k) = z(k)
    where both are known (inside Z's window or outside its support), then the
    suppressed atom P = F(t - 2), Q = F(t - 1): the window's partial sum S
    widened to the ball [S, S + r] by Z's rest r (the mass cut off may lie
    below t; exactly 0 or 1 below or past Z's support).  The window's atoms of a released k not returned go to the
    rests with Z's rest."""
    arb = flint().arb
    a, values, rest, low, high = z
    e = a + len(values) - 1

    def at(j: int) -> Any:
        return values[j - a] if a <= j <= e else arb(0)
    first = a if a == low else a + 1          # z(first - 1) known: 0 below the support
    last = e + 1 if e == high else e
    released = range(max(t, first), last + 1)
    p = [at(j - 1) for j in released]
    q = [at(j) for j in released]
    rest_p = rest_q = rest
    if last == e and e + 1 >= t:              # P(e + 1) = z(e) left out
        rest_p = rest_p + values[-1]
    if first == a + 1 and a >= t:             # Q(a) = z(a) left out
        rest_q = rest_q + values[0]
    widen = arb(0).union(rest)

    def cdf(j: int) -> Any:
        if j < low or j >= high:                # below or past the whole support: exact
            return arb(0 if j < low else 1)
        return sum(values[:max(0, min(j, e) - a + 1)], arb(0)) + widen
    return p + [cdf(t - 2)], q + [cdf(t - 1)], rest_p, rest_q


class ThresholdedCount(ArbWindowLaws):
    """statpriv.thresholded with a passive attacker: the hockey stick of the
    joint law of (b, release), b ~ B the known records' count, the release
    a count Z of the unknown others thresholded at t = threshold - b
    (_threshold_pair): the atoms of every b in B's window (weights exact),
    weighted and concatenated; the rest sum_b w_b rest_b plus B's rest (each
    pair's total is 1).  With ``b`` an int: that b alone (weight 1), one
    pair of an active attacker's max (MaxOfLaws)."""

    def __init__(self, others: CountLaw, known: Optional[CountLaw], threshold: int,
                 b: int = 0) -> None:
        self.others, self.known, self.threshold, self.b = others, known, int(threshold), int(b)
        self.windowed = others.windowed or (known is not None and known.windowed)

    def _b_atoms(self, drop: float) -> float:
        return 1.0 if self.known is None else self.known.atoms(drop)

    def atoms(self, drop: float) -> float:
        return self._b_atoms(drop) * (self.others.atoms(drop) + 1.0)

    def cost(self, drop: float) -> float:
        return self.others.cost(drop) + 2.0 * self.atoms(drop)

    def log_peak(self) -> float:
        return max(self.others.log_peak(),
                   self.known.log_peak() if self.known is not None else -math.inf)

    def window(self, drop: float) -> Tuple[List[Any], List[Any], Any, Any]:
        arb = flint().arb
        z = self.others.window(drop)
        if self.known is None:
            return _threshold_pair(z, self.threshold - self.b)
        start, weights, rest_b, _, _ = self.known.window(drop)
        p: List[Any] = []
        q: List[Any] = []
        rest_p, rest_q = rest_b, rest_b
        for i, weight in enumerate(weights):
            bp, bq, bp_rest, bq_rest = _threshold_pair(z, self.threshold - (start + i))
            p += [weight * x for x in bp]
            q += [weight * x for x in bq]
            rest_p += weight * bp_rest
            rest_q += weight * bq_rest
        return p, q, rest_p.min(arb(1)), rest_q.min(arb(1))


def active_threshold(others: CountLaw, known: CountLaw, threshold: int) -> "MaxOfLaws":
    """statpriv.thresholded with an active attacker: the max over every b in
    the known count's support of b's pair; thresholds t = threshold - b at
    or below Z's support's low end act alike (everything released), and so
    do those from its high end + 2 on (nothing released): one pair each."""
    low, high = others.support
    ts = sorted({min(max(threshold - b, low), high + 2)
                 for b in range(known.support[0], known.support[1] + 1)})
    return MaxOfLaws([ThresholdedCount(others, None, threshold, threshold - t) for t in ts])


class MaxOfLaws:
    """delta = max over several pairs (an active attacker's choice): lower =
    the max of the pairs' lower ends, upper = the max of their upper ends
    (enclose; the size guard takes the sum of the pairs' costs).  ``roles``
    (one per member, optional): (for_plus, for_minus), the member's
    direction ("plus", "minus" or "max") that counts towards the curve's
    delta_plus and delta_minus, None: none -- (None, "plus") makes a pair
    give only delta_minus, by its delta_plus (each direction its own pair:
    sampling without replacement), ("max", "max") a pair and its swap (a
    worst case over ordered pairs); default ("plus", "minus")."""

    def __init__(self, members: Sequence[Any],
                 roles: Optional[Sequence[Tuple[Optional[str], Optional[str]]]] = None) -> None:
        self.members = list(members)
        self.roles = (list(roles) if roles is not None
                      else [("plus", "minus")] * len(self.members))

    def oriented(self, direction: str) -> List[Tuple[Any, str]]:
        """(member, the direction it is summed in) for delta_<direction>
        (delta_max: the larger of a member's two roles)."""
        out = []
        for m, (plus, minus) in zip(self.members, self.roles):
            if direction != "max":
                side = plus if direction == "plus" else minus
            else:
                both = {r for r in (plus, minus) if r is not None}
                side = "max" if "max" in both or len(both) == 2 else next(iter(both), None)
            if side is not None:
                out.append((m, side))
        return out

    def factor(self) -> None:
        return None            # the composition of a max is no max of compositions


# -- worst cases over the vertices (partial knowledge, shuffled randomized response)
class VertexPair(ArbWindowLaws):
    """One vertex of statpriv.partial_knowledge.vertices: a of the N others
    at p, N - a at 1 - p, S_a = Bin(a, p) + Bin(N - a, 1 - p), the coefficients
    of ((1 - p) + p x)^a (p + (1 - p) x)^(N - a) as an Arb polynomial (every
    term non-negative), on its whole support.  The target's report pair: a
    shift (P = S_a + 1, Q = S_a; ``eps0`` None) or eps0-randomized response
    with p = 1 / (1 + e^eps0) from eps0 in Arb (P = (1 - p)(S_a + 1) + p S_a,
    Q = p (S_a + 1) + (1 - p) S_a)."""

    windowed = False

    def __init__(self, N: int, a: int, p: float, eps0: Optional[float] = None) -> None:
        self.N, self.a, self.p, self.eps0 = int(N), int(a), float(p), eps0

    def atoms(self, drop: float) -> float:
        return self.N + 2.0

    def cost(self, drop: float) -> float:
        return 4.0 * (self.N + 1.0)

    def window(self, drop: float) -> Tuple[List[Any], List[Any], Any, Any]:
        module = flint()
        p = (_exact(self.p) if self.eps0 is None
             else 1 / (1 + module.arb(self.eps0).exp()))
        poly = module.arb_poly
        s = poly([1 - p, p]) ** self.a * poly([p, 1 - p]) ** (self.N - self.a)
        z: Window = (0, [s[k] for k in range(self.N + 1)], module.arb(0), 0, self.N)
        if self.eps0 is None:
            return _sampled_shift(z, 1.0)
        return _mixture([(z, 1 - p, 1, 0), (z, p, 0, 0), (z, p, 1, 1), (z, 1 - p, 0, 1)])


def vertex_worst_case(N: int, p: float, eps0: Optional[float] = None) -> "MaxOfLaws":
    """The worst case over the vertices a = 0..N (VertexPair): a max of laws."""
    return MaxOfLaws([VertexPair(N, a, p, eps0) for a in range(int(N) + 1)])

# -- a count plus noise --------------------------------------------------------
class NoisyCount(ArbWindowLaws):
    """A count's laws (an ArbWindowLaws) plus independent noise (an ArbNoise,
    sensitivity 1 in count units): delta is the hockey-stick divergence of
    the noisy laws P*N and Q*N.  On the count's window (sub-measures P_W,
    Q_W; the rests r_P, r_Q bound the mass outside),
    (f_{P_W} - w f_{Q_W})_+ - w f_{Q_rest} <= (f_P - w f_Q)_+
    <= (f_{P_W} - w f_{Q_W})_+ + f_{P_rest}, so
    H(P_W*N, Q_W*N) - w r_Q <= delta <= H(P_W*N, Q_W*N) + r_P; the noise
    kind bounds H of the window's signed measure c = P_W - w Q_W."""

    exact_atoms = False

    def __init__(self, count: ArbWindowLaws, noise: "ArbNoise") -> None:
        self.count, self.noise = count, noise
        self.windowed = count.windowed

    def atoms(self, drop: float) -> float:
        return self.count.atoms(drop) * self.noise.terms_per_atom

    def cost(self, drop: float) -> float:
        return self.count.cost(drop)

    def window(self, drop: float) -> Tuple[List[Any], List[Any], Any, Any]:
        return self.count.window(drop)

    def log_peak(self) -> float:
        return self.count.log_peak()

    def positive_part_sums(self, a: List[Any], b: List[Any], w: Optional[Any],
                           rest_b: Any) -> Tuple[Any, Any]:
        arb = flint().arb
        if w is None:            # the noises have positive densities everywhere:
            return arb(0), arb(0)    # no mass where the other noisy law vanishes
        lower, upper = self.noise.hockey_stick([x - w * y for x, y in zip(a, b)])
        return lower - w * rest_b, upper


class ArbNoise:
    """Additive noise N in Arb: ``hockey_stick(c)`` bounds the integral (or
    sum) over x of (sum_k c_k f_N(x - k))_+ for a signed measure c on the
    consecutive atoms k = 0, 1, ... (a list of balls)."""

    # Arb operations per window atom (the size guard's estimate)
    terms_per_atom = 8.0

    def hockey_stick(self, c: List[Any]) -> Tuple[Any, Any]:
        raise NotImplementedError


def _exponential_sums(c: List[Any], d: Any) -> Tuple[List[Any], List[Any]]:
    """left[j] = sum_{k <= j} c_k d^(j - k) and right[j] = sum_{k > j} c_k
    d^(k - j - 1), by the recurrences left[j] = d left[j-1] + c_j and
    right[j] = d right[j+1] + c_{j+1}."""
    arb = flint().arb
    left, acc = [], arb(0)
    for x in c:
        acc = acc * d + x
        left.append(acc)
    right, acc = [arb(0)] * len(c), arb(0)
    for j in range(len(c) - 2, -1, -1):
        acc = acc * d + c[j + 1]
        right[j] = acc
    return left, right


class GeometricNoise(ArbNoise):
    """Two-sided geometric noise Pr[N = t] = kappa alpha^|t|, kappa = (1 - alpha)
    / (1 + alpha).  The noisy measure at an integer x is kappa (left[x] +
    alpha right[x]) inside the atoms' span (_exponential_sums with d = alpha)
    and a geometric sequence beyond: kappa alpha^-x (c_0 + alpha right[0])
    for x < 0, kappa alpha^(x - L + 1) left[L-1] for x >= L, whose positive
    parts sum to kappa alpha / (1 - alpha) times their first factor's."""

    terms_per_atom = 6.0

    def __init__(self, alpha: float) -> None:
        self.alpha = float(alpha)

    def hockey_stick(self, c: List[Any]) -> Tuple[Any, Any]:
        alpha = _exact(self.alpha)
        left, right = _exponential_sums(c, alpha)
        tail = alpha / (1 - alpha)
        terms = [x + alpha * y for x, y in zip(left, right)]
        terms += [(c[0] + alpha * right[0]) * tail, left[-1] * tail]
        lower, upper = _positive_parts(terms)
        kappa = (1 - alpha) / (1 + alpha)
        return kappa * lower, kappa * upper


class LaplaceNoise(ArbNoise):
    """Laplace(b) noise, density e^(-|t|/b) / (2b).  With d = e^(-1/b) and
    left, right of _exponential_sums, on the cell [j, j + 1] between atoms
    2b g(j + u) = alpha e^(-u/b) + beta e^(-(1-u)/b), alpha = left[j],
    beta = right[j]: the cell integrates to (alpha + beta)(1 - d) / 2 where
    both are >= 0, 0 where both are <= 0, else to the closed form on the side
    of the one crossing u* = (1 + b ln(alpha / -beta)) / 2 (clipped to
    [0, 1]) where g > 0; beyond the atoms g is one exponential, integrating
    to (c_0 + d right[0]) / 2 (x < 0) and left[L-1] / 2 (x > L - 1).  A cell
    whose signs the balls cannot decide adds (alpha_+ + beta_+)(1 - d) / 2
    to the upper end only."""

    terms_per_atom = 10.0

    def __init__(self, scale: float) -> None:
        self.scale = float(scale)

    def hockey_stick(self, c: List[Any]) -> Tuple[Any, Any]:
        arb = flint().arb
        b = _exact(self.scale)
        d = (-1 / b).exp()
        half_cell = -(-1 / b).expm1() / 2          # (1 - d) / 2
        left, right = _exponential_sums(c, d)
        lower, upper = _positive_parts([(c[0] + d * right[0]) / 2, left[-1] / 2])
        zero, one = arb(0), arb(1)
        for alpha, beta in zip(left[:-1], right[:-1]):
            if alpha >= 0 and beta >= 0:
                part = (alpha + beta) * half_cell
            elif alpha <= 0 and beta <= 0:
                continue
            elif (alpha > 0 and beta < 0) or (alpha < 0 and beta > 0):
                u = ((1 + b * (alpha / -beta).log()) / 2).max(zero).min(one)
                e_left, e_right = (-u / b).exp(), (-(1 - u) / b).exp()
                if alpha > 0:                         # g > 0 on [0, u*)
                    part = (alpha * (1 - e_left) + beta * (e_right - d)) / 2
                else:                                 # g > 0 on (u*, 1]
                    part = (alpha * (e_left - d) + beta * (1 - e_right)) / 2
            else:                                     # a sign undecided
                upper += ((alpha.max(zero) + beta.max(zero)) * half_cell).upper()
                continue
            lower += part
            upper += part
        return lower, upper


class GaussianNoise(ArbNoise):
    """Gaussian N(0, sigma^2) noise.  The Gaussian kernel is totally positive,
    so g(x) = sum_k c_k phi((x - k)/sigma) has no more sign changes than the
    sequence c (variation diminishing: S. Karlin, "Total Positivity", 1968):
    where the balls prove c to change sign once, from - to + (+ to -), g
    changes sign at one point x* and the integral of g_+ is
    sum_k c_k Phibar((x* - k)/sigma) (sum_k c_k Phi((x* - k)/sigma)).  x* is
    bracketed by safeguarded Newton steps on exact Arb points, the bracket
    proven by g's signs at its ends; the sum is evaluated at the bracket's
    midpoint, widened by its half-width times a bound on |g| over the
    bracket (the sum's derivative is -g, resp. g).  Where c's signs are not
    proven to change once, the bounds are [0, sum_k (c_k)_+]
    (g_+ <= sum (c_k)_+ phi); where no bracket is proven, the lower end is
    the sum at the middle of c's sign change (any t's tail is below delta)."""

    terms_per_atom = 40.0
    # Bracket of x* at the end (relative to 1 + |x*|)
    ROOT_WIDTH = 1e-40

    def __init__(self, sigma: float) -> None:
        self.sigma = float(sigma)

    def hockey_stick(self, c: List[Any]) -> Tuple[Any, Any]:
        arb = flint().arb
        signs = "".join("-" if x < 0 else "+" if x > 0 else "" if x.is_zero() else "?"
                        for x in c)
        if "+" not in signs and "?" not in signs:
            return arb(0), arb(0)
        if "-" not in signs and "?" not in signs:
            total = sum(c, arb(0))
            return total, total
        pattern = signs.replace("?", "")
        fallback = (arb(0), sum(((x.max(arb(0))).upper() for x in c), arb(0)))
        if signs.count("?") > 1 or "-" not in pattern or "+" not in pattern:
            return fallback
        if pattern == "-" * pattern.count("-") + "+" * pattern.count("+"):
            sense = 1                       # g: - then +
        elif pattern == "+" * pattern.count("+") + "-" * pattern.count("-"):
            sense = -1
        else:
            return fallback
        if "?" in signs and not _undecided_between(c, sense):
            return fallback
        bracket = self._root(c, sense)
        if bracket is None:
            # F(t) <= delta at any t: at the middle of c's sign change
            # (the noiseless delta where sigma is far below 1)
            middle = _sign_change(c, sense)
            return self._tail_sum(c, arb(middle), sense), fallback[1]
        lo, hi = bracket
        # delta = F(x*), |F'| = |g|: F(x*) lies within rad * sup_T |g| of F(mid),
        # T = [lo, hi], and sup_T |g| <= sum_k |c_k| phi((T - k)/sigma) / sigma
        mid, rad = ((lo + hi) / 2).mid(), (hi - lo) / 2
        sigma = _exact(self.sigma)
        scale = sigma * arb(2).sqrt()
        whole = arb(mid, rad.upper())
        slope = arb(0)
        for k, ck in enumerate(c):
            spread = (whole - k) / scale
            slope += abs(ck) * (-(spread * spread)).exp()
        slope /= sigma * (2 * arb.pi()).sqrt()
        total = self._tail_sum(c, mid, sense) + arb(0, (rad * slope).upper())
        return total, total

    def _tail_sum(self, c: List[Any], t: Any, sense: int) -> Any:
        """F(t) = sum_k c_k Phibar((t - k)/sigma) (sense 1: the integral of g
        over [t, inf)), or sum_k c_k Phi((t - k)/sigma) (sense -1: over
        (-inf, t]), at an exact point t."""
        arb = flint().arb
        scale = _exact(self.sigma) * arb(2).sqrt()
        total = arb(0)
        for k, ck in enumerate(c):
            z = (t - k) / scale
            total += ck * (z if sense == 1 else -z).erfc()
        return total / 2

    def _g(self, c: List[Any], x: Any) -> Tuple[Any, Any]:
        """sigma sqrt(2 pi) g(x) and its derivative: sum c_k e_k, e_k =
        e^(-(x - k)^2 / (2 sigma^2)) by the recurrence e_{k+1} = e_k r_k,
        r_{k+1} = r_k e^(-1/sigma^2)."""
        arb = flint().arb
        sigma = _exact(self.sigma)
        s2 = sigma * sigma
        e = (-(x * x) / (2 * s2)).exp()
        r = ((2 * x - 1) / (2 * s2)).exp()
        q = (-1 / s2).exp()
        value, slope = arb(0), arb(0)
        for k, ck in enumerate(c):
            t = ck * e
            value += t
            slope += t * (k - x)
            e, r = e * r, r * q
        return value, slope / s2

    def _root(self, c: List[Any], sense: int) -> Optional[Tuple[Any, Any]]:
        """(lo, hi) exact Arb points with sense * g(lo) < 0 < sense * g(hi), hi - lo
        tiny, or None (not found)."""
        arb = flint().arb

        def h(x: Any) -> Tuple[Any, Any]:
            v, dv = self._g(c, x)
            return v * sense, dv * sense
        lo = hi = arb(_sign_change(c, sense))
        step = arb(1)
        for _ in range(64):                   # h < 0 far left of the atoms
            if h(lo)[0] < 0:
                break
            lo, step = lo - step, step * 2
        else:
            return None
        step = arb(1)
        for _ in range(64):
            if h(hi)[0] > 0:
                break
            hi, step = hi + step, step * 2
        else:
            return None
        # rtsafe (Press et al., "Numerical Recipes"): Newton steps while they stay
        # inside the bracket and halve, else bisection
        x, last_step = ((lo + hi) / 2).mid(), float((hi - lo).mid())
        for _ in range(400):
            v, dv = h(x)
            if v < 0:
                lo = x
            elif v > 0:
                hi = x
            else:                              # |g(x)| below the balls' radius
                break
            tol = self.ROOT_WIDTH * (1 + abs(float(x.mid())))
            if float((hi - lo).mid()) < tol:
                return lo, hi
            step = float((v / dv).mid()) if dv > 0 else math.inf
            newton = (x - v / dv).mid() if dv > 0 else None
            if newton is not None and lo < newton < hi and abs(step) < 0.5 * last_step:
                x, last_step = newton, abs(step)
                if abs(step) < tol:
                    break                      # converged: the bracket is checked below
            else:
                x, last_step = ((lo + hi) / 2).mid(), float((hi - lo).mid()) / 2
        # narrow the bracket around x (Newton's limit, or where g's sign is
        # lost in the balls): the smallest proven x -+ tol 100^i, cut to it
        tol = self.ROOT_WIDTH * (1 + abs(float(x.mid())))
        while tol < float((hi - lo).mid()):
            a, b = (x - tol).mid(), (x + tol).mid()
            if h(a)[0] < 0 and h(b)[0] > 0:
                return a.max(lo), b.min(hi)
            tol *= 100.0
        return lo, hi


def _sign_change(c: List[Any], sense: int) -> float:
    """The middle between the last sure - and the first sure + of sense * c."""
    signs = [(-1 if x < 0 else 1 if x > 0 else 0) * sense for x in c]
    last_neg = max(k for k, s in enumerate(signs) if s < 0)
    first_pos = min(k for k, s in enumerate(signs) if s > 0)
    return (last_neg + first_pos) / 2


def _undecided_between(c: List[Any], sense: int) -> bool:
    """The one undecided c_k lies between the last sure - and the first sure + (sense 1)."""
    ks = [k for k, x in enumerate(c) if not (x < 0 or x > 0 or x.is_zero())]
    neg = [k for k, x in enumerate(c) if (x < 0 if sense == 1 else x > 0)]
    pos = [k for k, x in enumerate(c) if (x > 0 if sense == 1 else x < 0)]
    return all((not neg or k > max(neg)) and (not pos or k < min(pos)) for k in ks)


# -- k-anonymity (statpriv.k_anonymity) ----------------------------------------
def _rational(x: float) -> Any:
    """A float's exact value as a FLINT rational (sums of floats stay exact)."""
    num, den = float(x).as_integer_ratio()
    return flint().fmpq(num, den)


class KAnonymityLaws(ArbWindowLaws):
    """statpriv.k_anonymity's curves (``upper`` False: ``.lower``).  Of the N
    = n - 1 others, A fall in the source category and B in the target:
    f(a, b) = Pr[A = a, B = b] = W(m) g_m(a), m = a + b, W = Bin(N, s),
    g_m = Bin(m, pa / s), s = pa + pb (s, 1 - s, pa / s and pb / s each its
    own ball from the floats' exact rationals).  The target in the source
    (P) makes the counts (a + 1, b), in the target (Q) (a, b + 1), each
    released if >= k, else suppressed; the attacker's outcome of (a, b):

    * lower: the two thresholded counts;
    * upper: m too, with (given m) the outcomes where both counts are
      suppressed merged into one (either released count reveals a).

    Every f on the windows (W's window, g_m's window for each of its m) is
    added to its P and its Q outcome.  The f off the windows sum to at most
    R = W's rest + sum_m W(m) (g_m's rest).  An outcome of one (a, b) per
    law (both counts released, or revealing given m) is returned where both
    of its f are on the windows or off the lattice (exact 0), else its known
    part goes to the rests; an outcome summing several (a, b) (a count
    suppressed) is returned with the ball [S, S + R] for a law whose sum S
    misses some f (which it then holds).  The rests: R plus the known parts
    left out."""

    def __init__(self, n: int, pa: float, pb: float, k: int, upper: bool) -> None:
        self.N, self.pa, self.pb, self.k, self.upper = int(n) - 1, float(pa), float(pb), \
            int(k), bool(upper)
        total = self.pa + self.pb
        self.s = min(1.0, total)                  # (the floats: window sizes only)
        self.rho = self.pa / total if total > 0.0 else 0.0

    def log_peak(self) -> float:
        return (_binomial_log_peak(self.N, self.s)
                + _binomial_log_peak(self.N * self.s, self.rho))

    def atoms(self, drop: float) -> float:
        rows = (1.0 if self.s in (0.0, 1.0)       # m = 0 or N surely
                else min(self.N + 1.0, _binomial_atoms(self.N, self.s, drop)))
        start = min(max(0.0, self.N * self.s - rows / 2.0), self.N + 1.0 - rows)
        m = np.arange(math.floor(start), math.floor(start) + rows)    # about W's window
        sd = np.sqrt(m * self.rho * (1.0 - self.rho))
        cols = np.minimum(m + 1.0, 2.0 * (sd * math.sqrt(2.0 * drop) + drop) + 3.0)
        return float(np.sum(cols))       # (_binomial_atoms of each g_m, W's depth: at most)

    def cost(self, drop: float) -> float:
        # each f twice, and the look-ups of the suppressed outcomes' (a, b)
        rows = min(self.N + 1.0, _binomial_atoms(self.N, self.s, drop))
        return 3.0 * self.atoms(drop) + 2.0 * self.k * (self.k + 2.0 * rows)

    def _outcome(self, x: int, y: int, m: int) -> Tuple[int, int]:
        """The attacker's outcome of the counts (x, y) (-1: suppressed, or
        the merged outcome of m)."""
        k = self.k
        if self.upper:
            return m, (x if x >= k or y >= k else -1)
        return (x if x >= k else -1), (y if y >= k else -1)

    def _points(self, key: Tuple[int, int]) -> Tuple[List[Tuple[int, int]],
                                                     List[Tuple[int, int]]]:
        """The (a, b) of outcome ``key`` under P and under Q (one each: released)."""
        k = self.k
        if self.upper:
            m, x = key
            if x >= 0:
                return [(x - 1, m + 1 - x)], [(x, m - x)]
            return ([(a, m - a) for a in range(max(0, m + 1 - k), min(m, k - 2) + 1)],
                    [(a, m - a) for a in range(max(0, m + 2 - k), min(m, k - 1) + 1)])
        x, y = key
        if x >= 0 and y >= 0:
            return [(x - 1, y)], [(x, y - 1)]
        if x >= 0:
            return [(x - 1, b) for b in range(k)], [(x, b) for b in range(k - 1)]
        if y >= 0:
            return [(a, y) for a in range(k - 1)], [(a, y - 1) for a in range(k)]
        return ([(a, b) for a in range(k - 1) for b in range(k)],
                [(a, b) for a in range(k) for b in range(k - 1)])

    def _f(self, drop: float) -> Tuple[Dict[int, Tuple[int, List[Any], int, int]],
                                       Tuple[int, int], Any]:
        """({m: (first a, [f(a, m - a), ...], g_m's support)}, W's support, R)."""
        module = flint()
        arb = module.arb
        pa, pb = _rational(self.pa), _rational(self.pb)
        total = pa + pb
        s, rest_s = (arb(total), arb(1 - total)) if total <= 1 else (arb(1), arb(0))
        m0, weights, rest, low_m, high_m = _binomial_window(self.N, s, self.s, drop, rest_s)
        rho, rho_c = (arb(pa / total), arb(pb / total)) if total > 0 else (arb(0), arb(1))
        rows = {}
        top = max(float(w.mid()) for w in weights)
        for i, w in enumerate(weights):
            # g_m as deep as W(m) leaves of drop: its rest is weighted by W(m)
            depth = drop + math.log(max(float(w.mid()), 1e-300) / top) if top > 0 else drop
            a0, g, g_rest, low, high = _binomial_window(m0 + i, rho, self.rho, max(depth, 0.0),
                                                        rho_c)
            rows[m0 + i] = (a0, [w * x for x in g], low, high)
            rest += w * g_rest
        return rows, (low_m, high_m), rest

    def window(self, drop: float) -> Tuple[List[Any], List[Any], Any, Any]:
        arb = flint().arb
        zero = arb(0)
        rows, (low_m, high_m), rest = self._f(drop)

        def known(a: int, b: int) -> Optional[Any]:
            """f(a, b) on the windows, 0 off the lattice, None otherwise."""
            m = a + b
            if a < 0 or b < 0 or not low_m <= m <= high_m:
                return zero
            if m not in rows:
                return None
            a0, values, low, high = rows[m]
            if a0 <= a < a0 + len(values):
                return values[a - a0]
            return zero if not low <= a <= high else None
        p: Dict[Tuple[int, int], Any] = {}
        q: Dict[Tuple[int, int], Any] = {}
        for m, (a0, values, _, _) in rows.items():
            for a, v in enumerate(values, a0):
                key = self._outcome(a + 1, m - a, m)
                p[key] = p.get(key, zero) + v
                key = self._outcome(a, m - a + 1, m)
                q[key] = q.get(key, zero) + v
        widen = zero.union(rest)
        p_out: List[Any] = []
        q_out: List[Any] = []
        rest_p = rest_q = rest
        for key in list(p) + [key for key in q if key not in p]:
            p_points, q_points = self._points(key)
            p_open = any(known(a, b) is None for a, b in p_points)
            q_open = any(known(a, b) is None for a, b in q_points)
            px, qx = p.get(key, zero), q.get(key, zero)
            if len(p_points) == len(q_points) == 1 and (p_open or q_open):
                rest_p += px                 # a released outcome half known: to the rests
                rest_q += qx
                continue
            p_out.append(px + widen if p_open else px)
            q_out.append(qx + widen if q_open else qx)
        return p_out, q_out, rest_p.min(arb(1)), rest_q.min(arb(1))


# -- repeated counts on correlated records (statpriv.correlated_counts) --------
class CountLattice:
    """The law L of the sum of N iid answer vectors in {0, 1}^k (``joint``:
    entry sum_j a_j 2^(k-j), the floats taken as exact) on [0, N]^k in Arb,
    record by record: L_{i+1}(c) = sum_v joint[v] L_i(c - v) (every term
    non-negative: relative accuracy at every point; exact zeros where no
    outcome reaches c), built once for every pair that shares it."""

    def __init__(self, N: int, joint: Sequence[float]) -> None:
        self.N, self.joint = int(N), [float(p) for p in joint]
        self.k = len(self.joint).bit_length() - 1
        self._law: Optional[Any] = None

    def cost(self) -> float:
        """Arb products and sums of building L (before any work)."""
        cells = sum(1 for p in self.joint if p > 0.0)
        return 2.0 * cells * float(np.sum(np.arange(1, self.N + 1, dtype=np.float64) ** self.k))

    def law(self) -> Any:
        """L as a k-dimensional numpy array of Arb balls (object dtype)."""
        if self._law is None:
            arb, k = flint().arb, self.k
            cells = [(tuple((v >> (k - 1 - j)) & 1 for j in range(k)), _exact(p))
                     for v, p in enumerate(self.joint) if p > 0.0]
            law = np.full((1,) * k, arb(1), dtype=object)
            for i in range(1, self.N + 1):
                grown = np.full((i + 1,) * k, arb(0), dtype=object)
                for v, p in cells:         # (numpy object arrays: one Arb call per point)
                    at = tuple(slice(a, a + i) for a in v)
                    grown[at] = grown[at] + law * p
                law = grown
            self._law = law
        return self._law


class LatticeShift(ArbWindowLaws):
    """correlated_counts, one target pair: P(c) = L(c - x), Q(c) = L(c - x')
    on the lattice [0, N + 1]^k (CountLattice's L, whole support, no
    tails).  ``share``: how many pairs share the lattice (its building
    cost is counted once among them)."""

    windowed = False

    def __init__(self, lattice: CountLattice, x: Sequence[int], x_prime: Sequence[int],
                 share: int = 1) -> None:
        self.lattice, self.x, self.x_prime = lattice, tuple(x), tuple(x_prime)
        self.share = int(share)

    def atoms(self, drop: float) -> float:
        return float(self.lattice.N + 2) ** self.lattice.k

    def cost(self, drop: float) -> float:
        return self.lattice.cost() / self.share + self.atoms(drop)

    def window(self, drop: float) -> Tuple[List[Any], List[Any], Any, Any]:
        arb = flint().arb
        law = self.lattice.law()

        def shifted(x: Tuple[int, ...]) -> List[Any]:
            out = np.full(tuple(s + 1 for s in law.shape), arb(0), dtype=object)
            out[tuple(slice(a, a + s) for a, s in zip(x, law.shape))] = law
            return list(out.ravel())
        return shifted(self.x), shifted(self.x_prime), arb(0), arb(0)


def lattice_worst_case(N: int, joint: Sequence[float],
                       pairs: Sequence[Tuple[Sequence[int], Sequence[int]]]) -> MaxOfLaws:
    """correlated_counts without a target: the max over the pairs (x, x') and
    their swaps, every direction (MaxOfLaws' roles ("max", "max")), of their
    LatticeShift, one lattice built for all."""
    lattice = CountLattice(N, joint)
    return MaxOfLaws([LatticeShift(lattice, x, xp, len(pairs)) for x, xp in pairs],
                     [("max", "max")] * len(pairs))


# -- a pair run on a sample (PrivacyCurve.subsample) ---------------------------
class SampledPair(ArbWindowLaws):
    """The pair (q P + (1-q) Q, Q) of a discrete pair (P, Q) (``inner``, an
    ArbWindowLaws) -- ``mirror``: (q Q + (1-q) P, P) -- on the inner
    window's atoms, the rests mixed alike (q rest_P + (1-q) rest_Q, rest_Q).
    The sums are the inner kind's (a count plus noise: the noise convolves
    the mixed window)."""

    def __init__(self, inner: ArbWindowLaws, q: float, mirror: bool = False) -> None:
        self.inner, self.q, self.mirror = inner, float(q), bool(mirror)
        self.windowed, self.exact_atoms = inner.windowed, inner.exact_atoms

    def atoms(self, drop: float) -> float:
        return self.inner.atoms(drop)

    def cost(self, drop: float) -> float:
        return self.inner.cost(drop) + 2.0 * self.inner.atoms(drop)

    def log_peak(self) -> float:
        return self.inner.log_peak()

    def factor(self) -> Optional[ArbWindowLaws]:
        return None if self.mirror or self.inner.factor() is None else self

    def positive_part_sums(self, a: List[Any], b: List[Any], w: Optional[Any],
                           rest_b: Any) -> Tuple[Any, Any]:
        return self.inner.positive_part_sums(a, b, w, rest_b)

    def window(self, drop: float) -> Tuple[List[Any], List[Any], Any, Any]:
        p, q, rest_p, rest_q = self.inner.window(drop)
        if self.mirror:
            p, q, rest_p, rest_q = q, p, rest_q, rest_p
        g = _exact(self.q)
        return [g * x + (1 - g) * y for x, y in zip(p, q)], q, g * rest_p + (1 - g) * rest_q, \
            rest_q


def subsampled(laws: Any, q: float, sampling: str) -> Any:
    """The Arb laws of PrivacyCurve.subsample(q, sampling=...) from the
    parent's (None: not covered).  With e^eps' = 1 + (e^eps - 1)/q and
    e^eps'' = q e^eps / c, c = 1 - (1-q) e^eps, the sampled curve is
    delta_plus(eps) = q delta_plus(eps') -- H(q P + (1-q) Q || Q) -- and,
    Poisson (add/remove), delta_minus(eps) = c delta_minus(eps'') -- H(Q ||
    q P + (1-q) Q) -- or, without replacement (replace-one), delta_minus(eps)
    = q delta_minus(eps') -- H(q Q + (1-q) P || P) -- (Balle, Barthe &
    Gaboardi, "Privacy amplification by subsampling"; the curve's own
    reduction).  Discrete laws: SampledPair of (P, Q) and of its mirror
    (Q, P) in the roles that give these (a max over pairs: the reduction is
    monotone in each member's delta, each member's roles carried through);
    a closed form (q > 0; the closed forms' noises have positive densities):
    SampledAddRemove (Poisson) or SampledWithoutReplacement."""
    if isinstance(laws, ArbClosedForm):
        if q <= 0.0:
            return None
        return (SampledAddRemove if sampling == "poisson" else SampledWithoutReplacement)(laws, q)
    members = _sampled_members(laws, q, sampling, ("plus", "minus"))
    if members is None:
        return None
    if len(members) == 1 and members[0][1] == ("plus", "minus"):
        return members[0][0]
    return MaxOfLaws([m for m, _ in members], [roles for _, roles in members])


Roles = Tuple[Optional[str], Optional[str]]


def _sampled_members(laws: Any, q: float, sampling: str,
                     roles: Roles) -> Optional[List[Tuple[Any, Roles]]]:
    """(sampled pair, its roles) of discrete laws in ``roles``, or of a max of
    them (subsampled): the curve's delta_plus takes H(q P + (1-q) Q || Q)
    where the member's plus counts and H(q Q + (1-q) P || P) where its minus
    does; delta_minus (Poisson) H(Q || q P + (1-q) Q) for its minus and
    H(P || q Q + (1-q) P) for its plus, (without replacement) the mirror's
    delta_plus for its minus and the pair's for its plus."""
    if isinstance(laws, MaxOfLaws):
        out: List[Tuple[Any, Roles]] = []
        for member, member_roles in zip(laws.members, laws.roles):
            inner = _sampled_members(member, q, sampling, member_roles)
            if inner is None:
                return None
            out += inner
        return out
    if not isinstance(laws, ArbWindowLaws):
        return None
    plus, minus = roles

    def role(parent_role: Optional[str], side: str, summed: str) -> Optional[str]:
        """``summed`` where the parent's role covers its ``side``, else None."""
        return summed if parent_role in (side, "max") else None
    if sampling == "poisson":
        own = (role(plus, "plus", "plus"), role(minus, "minus", "minus"))
        mirrored = (role(plus, "minus", "plus"), role(minus, "plus", "minus"))
    else:
        own = (role(plus, "plus", "plus"), role(minus, "plus", "plus"))
        mirrored = (role(plus, "minus", "plus"), role(minus, "minus", "plus"))
    pairs = [(SampledPair(laws, q), own), (SampledPair(laws, q, mirror=True), mirrored)]
    return [(m, r) for m, r in pairs if r != (None, None)]
