"""The worst case over the vertices a = 0..N of [p, 1-p]^N, generic over the
target's report pair (Bernoulli(1 - q0) under P, Bernoulli(q0) under Q):
partial knowledge (q0 = 0, a shift) and shuffled randomized response share it.

Every vertex law S_a = Bin(a, p) + Bin(N - a, 1 - p) is evaluated in C by a
three-term recurrence that is a positive combination in the direction it is
run (csrc/partial_knowledge.h).  Up to FULL_SWEEP_OTHERS others every vertex is
evaluated on its whole support (O(N^2) per eps).  Beyond, branch and bound
over ranges of a gives a certified bracket:

* attained (lower end): the window terms of explicit vertices (a grid, the
  midpoints of the ranges still open, a local refinement around the best):
  sums of non-negative terms of the vertex's law, so at most its delta;
* certified (upper end): for a range a1..a2 of vertices, every vertex law is
  S_a = F + W with F = Bin(a1, p) + Bin(N - a2, 1 - p) (the records that
  are at p, resp. at 1 - p, throughout the range) and W the sum of the
  m = a2 - a1 undecided records, independent of F and of the target.  An
  attacker who also learns W sees F plus a known shift, so by
  post-processing H_eps(P_a || Q_a) <= H_eps(P_F || Q_F) for every a in the
  range: vertex a1 of the system of N - m others, evaluated on a window of
  its law with the mass outside bounded (log-concavity) and added.  A range
  whose bound is within ``ratio`` of the attained value is closed; the others
  are halved, down to single vertices (whose bound is their own delta plus
  the bounded rest).  certified = the largest bound of a closed range.

With ratio = 1 + 1e-13 (the default of the curves) the bracket closes: the
certified end is the exact worst case to ~1e-13, at the cost of evaluating
the vertices near the maximum one by one (windows of O(sqrt N) atoms).  A
work budget (MAX_RANGES) stops the refinement; the certified end is then the
largest open bound (still a proof, a wider bracket).
"""
import math
from typing import Any, Callable, Optional, Tuple

import numpy as np

from statpriv import _lazy, _progress
from statpriv.curve import PrivacyCurve, Reference
from statpriv.partial_knowledge.vertex_laws import NoComposition, VertexLaws

_partial = _lazy.module("statpriv.partial_knowledge._partial")

FULL_SWEEP_OTHERS = 1000      # every vertex on its whole support up to here
EXACT_RATIO = 1.0 + 1e-13     # close ranges within this of the attained: exact
MAX_RANGES = 1 << 14          # work budget: ranges evaluated in all
RANGE_ATOMS = 1.5e8           # window atoms one branch and bound may sum (~0.5 s here)
MIN_RANGES = 256
WORK_LIMIT = 3e9              # atoms of one bracket / epsilon search beyond which we refuse
# Vertex windows wider than this are refused up front, whatever the depth.
# The vertex laws share their variance N p (1 - p) and differ only in their
# skew, so ln delta moves by ~6e-11 per vertex at N = 1e8, p = 0.1, while a
# range of m vertices loses the variance of m records (~6e-8 per record
# there): the ranges near the maximum only close as single vertices, the
# search spends its whole budget (4 RANGE_ATOMS window atoms with the
# midpoints and the last round's overshoot: 13 s for 5.7e8 atoms at
# N = 1e8, p = 0.1, eps = 0.001, the bracket still 0.3 % open).  At 5e4
# atoms (N p (1 - p) ~ 5e6 at the shallowest depth) one law costs ~0.5 ms.
MAX_WINDOW_ATOMS = 5e4
TERMS_PER_SECOND = 5e7        # window atoms summed per cpu second (shared 2-core machine)
GRID = 65
CHUNK_ATOMS = 2e7             # with a progress bar: window atoms between two reports (~0.3 s)


def _window_atoms(N: Any, p: Any, depth: Any) -> Any:
    """About how many atoms one vertex window holds at this depth (nats)."""
    return 2.0 * math.sqrt(2.0 * max(depth, 1.0) * (N * p * (1.0 - p) + 1.0)) + 1.0


def _range_budget(N: Any, p: Any, depth: Any, budget: Any = MAX_RANGES) -> Any:
    """The ranges one branch and bound may evaluate: ``budget`` while the
    windows are small, fewer when they are large (deep tails, large N), so
    that a bracket costs about RANGE_ATOMS atoms.  When the budget runs out
    the open ranges are closed with their bounds: the certified end stays a
    proof, the bracket is only wider."""
    return int(min(budget, max(MIN_RANGES, RANGE_ATOMS / _window_atoms(N, p, depth))))


def check_work(N: Any, p: Any, depth: Any, what: Any, alternative: Any = None) -> None:
    """Refuse up front what would take seconds to minutes: a search whose
    windows are so wide (ln delta ~ -depth at N others) that even
    MIN_RANGES ranges and the vertex grid exceed WORK_LIMIT atoms, or whose
    vertex windows exceed MAX_WINDOW_ATOMS (the bracket then cannot close:
    see there).  alternative: what answers fast instead (the message's
    advice; default: partial knowledge's .blanket and .uniform)."""
    atoms = _window_atoms(N, p, depth)
    if alternative is None:
        alternative = (".blanket (a certified upper bound, cheap at any n) with .uniform "
                       "(an attained lower bound)")
    work = (8 * GRID + 2 * MIN_RANGES) * atoms
    if work > WORK_LIMIT:
        raise ValueError(
            f"{what}: the exact worst case over the vertices at {N:.4g} others with "
            f"ln delta near {-depth:.4g} would sum about {work:.2g} terms (minutes); "
            f"use {alternative}, or ask at a larger delta (smaller eps)")
    if atoms > MAX_WINDOW_ATOMS:
        levels = 1 + int(math.log(max(N, 1.0)) / math.log(16.0))
        work = (GRID + 33 * levels + 4 * _range_budget(N, p, depth)) * atoms
        raise ValueError(
            f"{what}: the worst case over the vertices at {N:.4g} others (n p (1 - p) = "
            f"{N * p * (1.0 - p):.3g}) has vertex windows of ~{atoms:.2g} atoms: the branch "
            f"and bound would sum about {work:.2g} terms (~{work / TERMS_PER_SECOND:.0f} s) "
            f"and its budget would likely leave the bracket open; use {alternative}")


def _bounds(core: Any, n1: Any, n2: Any, eps: Any, depth: Any, bar: Any = None) -> Any:
    """core.bounds (upper, lower) on the laws Bin(n1, p) + Bin(n2, 1 - p);
    with a progress bar, in chunks of about CHUNK_ATOMS window atoms, each
    reported as its number of laws (the values are the same: one law at a
    time in C)."""
    if bar is None:
        return core.bounds(n1, n2, eps, depth)
    size = max(1, int(CHUNK_ATOMS / _window_atoms(float(np.max(n1 + n2, initial=0.0)), 0.5,
                                                  depth)))
    parts = [core.bounds(n1[i:j], n2[i:j], eps, depth)
             for i, j in _progress.chunks(n1.size, size, bar)]
    if not parts:
        return np.empty(0), np.empty(0)
    return tuple(np.concatenate(column) for column in zip(*parts))


def vertex_core(N: Any, p: Any, rr: Any = None) -> Any:
    """The C vertex system: a shift target (rr None), or eps0-randomized
    response with rr = eps0 (p then only rounds 1 / (1 + e^eps0): the kernel
    carries the randomization exactly from eps0)."""
    if rr is True or rr is False:
        raise TypeError("rr is eps0 (a float) or None")
    return _partial.VertexCore(float(N), float(p), float(rr) if rr is not None else 0.0)


def _depth(log_delta: Any, N: Any) -> Any:
    """Window depth (nats below the mode): the mass outside the window is
    far below delta."""
    return 50.0 + max(0.0, -log_delta) + 0.5 * math.log(N + 1.0)


def _branch_and_bound(core: Any, N: Any, eps: Any, depth: Any, close: Any, L: Any, a_best: Any,
                      attaining: Any = True, budget: Any = MAX_RANGES, start: Any = None,
                      give_up: Any = False, bar: Any = None) -> Any:
    """Close every range whose bound is <= close(L) (close: a function of the
    running attained ln L, raised by the midpoints of the open ranges if
    attaining), starting from the ranges start = (a1, a2) (default: a grid
    covering 0..N).  Returns (ln certified, ln attained, a_attained,
    open single vertices whose own bound exceeded close), or, if more than
    budget ranges would be evaluated and give_up, (None, a1, a2): the ranges
    still open (without give_up the open ranges are closed with their bounds
    instead).  bar: a progress bar (statpriv._progress) told the laws evaluated."""
    def attain(a: Any) -> None:
        nonlocal L, a_best
        a = np.unique(np.clip(np.round(a), 0, N))
        _, lo = _bounds(core, a, N - a, eps, depth, bar)
        i = int(np.argmax(lo))
        if lo[i] > L:
            L, a_best = float(lo[i]), int(a[i])

    if start is None:
        a1 = np.unique(np.round(np.linspace(0.0, N + 1.0, GRID)))[:-1]
        a2 = np.append(a1[1:] - 1.0, float(N))
    else:
        a1, a2 = start
    certified, spent, flagged = -math.inf, 0, []
    while a1.size:
        spent += a1.size
        upper, _ = _bounds(core, a1, N - a2, eps, depth, bar)  # vertex a1 of N - (a2 - a1) others
        if attaining:
            attain(np.floor(0.5 * (a1 + a2)))
        single = a1 == a2
        done = (upper <= close(L)) | single
        if spent > budget:
            if give_up:
                # open: the ranges not closed and the single vertices flagged
                # so far (their own bound exceeded close)
                flagged.append(a1[single & (upper > close(L))])
                singles = np.concatenate(flagged)
                return None, np.concatenate([a1[~done], singles]), np.concatenate([a2[~done], singles])
            done[:] = True
        if done.any():
            certified = max(certified, float(upper[done].max()))
        flagged.append(a1[single & (upper > close(L))])
        a1, a2 = a1[~done], a2[~done]
        mid = np.floor(0.5 * (a1 + a2))
        a1, a2 = np.concatenate([a1, mid + 1.0]), np.concatenate([mid, a2])
    # (flagged is empty when the search resumed from no open range at all)
    return certified, L, a_best, np.concatenate(flagged or [np.empty(0)])


def log_bracket(core: Any, N: Any, p: Any, eps: Any, ratio: Any = EXACT_RATIO,
                log_delta_floor: Any = None, alternative: Any = None) -> Any:
    """(ln attained, ln certified, a_attained) of the worst case at eps >= 0.
    log_delta_floor: a function of eps giving a lower bound of ln delta (the
    uniform vertex), to refuse up front what would take minutes (without
    it, the windows are checked at the shallowest depth, delta <= 1);
    alternative: check_work's advice."""
    if eps == math.inf:
        up, lo = core.bounds(np.array([0.0]), np.array([float(N)]), eps, 0.0)
        return float(lo[0]), float(up[0]), 0
    if eps < core.zero_point:      # from the zero point on delta = 0 at every vertex: cheap
        floor = log_delta_floor(eps) if log_delta_floor is not None else 0.0
        check_work(N, p, _depth(floor, N), f"delta at eps = {eps:.6g}", alternative)
    grid = np.unique(np.round(np.linspace(0.0, N, GRID)))
    depth = 60.0
    for _ in range(8):            # deepen the window until the grid sees delta
        up, low = core.bounds(grid, N - grid, eps, depth)
        best = int(np.argmax(low))
        L, a_best = float(low[best]), int(grid[best])
        if L > -math.inf and _depth(L, N) <= depth:
            break
        depth = max(2.0 * depth, _depth(float(np.max(up)), N))
    depth = _depth(L, N) if L > -math.inf else 0.0        # 0: the whole support
    budget = _range_budget(N, p, depth)
    levels = 1 + int(math.log(max(N, 1.0)) / math.log(16.0))
    # the laws evaluated: the refinement, then the ranges and their midpoints
    # (each up to twice the budget: the last round of halvings overshoots it)
    with _progress.bar(33 * levels + 4 * budget, f"worst case over {N:.3g} vertices",
                       unit="law") as bar:
        # local refinement around the best vertex (a grid shrinking 16x per level)
        step = max(1.0, math.floor(N / (GRID - 1)))
        while True:
            a = np.unique(np.clip(a_best + step * np.arange(-16.0, 17.0), 0, N))
            _, lo = _bounds(core, a, N - a, eps, depth, bar)
            i = int(np.argmax(lo))
            if lo[i] > L:
                L, a_best = float(lo[i]), int(a[i])
            if step == 1.0:
                break
            step = max(1.0, math.floor(step / 16.0))
        log_ratio = math.log(ratio)
        certified, L, a_best, _ = _branch_and_bound(core, N, eps, depth,
                                                    lambda L: L + log_ratio, L, a_best,
                                                    budget=budget, bar=bar)
    return L, max(certified, L), a_best


# The epsilon search certifies eps (1 + eta) above the vertices' own answer:
# eta = 0 needs every vertex whose delta is within the ranges' slack of the
# target one by one; a slightly larger eps lets wider ranges close.  Each eta
# gets a budget of range evaluations; the first that certifies wins.
EPSILON_SCHEDULE = ((0.0, 400), (1e-6, 400), (1e-5, 800), (1e-4, 3000), (1e-3, 6000),
                    (1e-2, MAX_RANGES))


def log_epsilon(core: Any, N: Any, p: Any, log_target: Any, alternative: Any = None) -> Any:
    """An eps at which the certified worst case is <= the target, within a
    relative eta of the smallest one (eta = 0 unless the branch and bound
    needs more than its budget there; see EPSILON_SCHEDULE): the vertices'
    own searches on their windowed upper bounds (the largest is a lower
    bound of the answer), every other vertex certified below the target by
    branch and bound at eps (1 + eta)."""
    if math.isnan(log_target):
        return math.nan
    if log_target >= 0.0:
        return 0.0
    if log_target == -math.inf and core.zero_point < math.inf:
        return core.zero_point           # delta = 0 exactly from eps0 on, > 0 below
    if log_target == -math.inf:
        return math.inf                  # a shift: the top atom of P has Q = 0 at every eps
    depth = _depth(log_target, N)
    check_work(N, p, depth, f"epsilon at delta = {math.exp(log_target):.6g}", alternative)
    ends = np.array([0.0, float(N)])
    eps = float(np.max(core.window_epsilon(ends, N - ends, depth, log_target)))
    # A range certified below the target at one trial eps stays so at every
    # larger one (H_eps is non-increasing in eps), and the trials only grow:
    # each search resumes from the ranges the previous one left open.
    start = None
    # the ranges evaluated if each eta spends its budget once (the usual worst)
    total = sum(_range_budget(N, p, depth, budget) for _, budget in EPSILON_SCHEDULE)
    with _progress.bar(total, f"epsilon over {N:.3g} vertices", unit="law") as bar:
        for eta, budget in EPSILON_SCHEDULE:
            last = budget == MAX_RANGES
            budget = _range_budget(N, p, depth, budget)
            for _ in range(16):
                if eps == math.inf:
                    return eps
                trial = eps * (1.0 + eta)
                found = _branch_and_bound(core, N, trial, depth, lambda L: log_target,
                                          -math.inf, 0, attaining=False, budget=budget,
                                          start=start, give_up=not last, bar=bar)
                if found[0] is None:
                    start = found[1:]
                    break                              # over budget: a larger eta
                flagged = found[3]
                if flagged.size == 0:
                    return trial
                start = (flagged, flagged)
                eps = max(eps, float(np.max(core.window_epsilon(flagged, N - flagged, depth,
                                                                log_target))))
    return math.inf


class WorstCaseCurve(PrivacyCurve):
    """The worst-case privacy curve over the vertices, with ``bracket(eps)``.

    ``bracket``: eps >= 0 -> (ln attained, ln certified, reported vertex),
    the function behind ``bracket(eps)`` (given at construction: the full
    sweep's or the branch and bound's, see worst_case_curve)."""

    def __init__(self, core: Any, reference: Optional[Reference], description: str, *,
                 bracket: Callable[[float], Tuple[float, float, int]], laws: Any = None) -> None:
        super().__init__(core, reference, description, laws=laws)
        self._log_bracket = bracket

    def bracket(self, eps: float) -> Tuple[float, float, int]:
        """(attained, certified, a_attained) at one eps >= 0.

        ``attained`` is a lower bound of delta at the explicit vertex
        a_attained (a_attained others at p, the rest at 1 - p: delta_plus
        there, which is delta_minus at the mirrored vertex N - a_attained);
        ``certified`` is a proven upper bound of the worst case.  They agree
        to ~1e-13 where the bracket closes (always, unless the work budget
        ran out): the exact worst case.
        """
        from statpriv import _validate
        eps = _validate.real("eps", eps, low=0.0)
        L, U, a = self._log_bracket(eps)
        return math.exp(L), math.exp(U), a


class BracketCore:
    """The certified end of the bracket as a curve core (log_delta, epsilon)."""

    log_tol = 0.0
    positive = 0

    def __init__(self, core: Any, N: Any, p: Any, log_delta_floor: Any = None,
                 alternative: Any = None) -> None:
        self.core, self.N, self.p, self.floor = core, N, p, log_delta_floor
        self.alternative = alternative

    def _bracket(self, eps: Any) -> Any:
        return log_bracket(self.core, self.N, self.p, eps, log_delta_floor=self.floor,
                           alternative=self.alternative)

    def _log_delta(self, eps: Any) -> Any:
        if math.isnan(eps):
            return math.nan
        if eps < 0.0:
            # H_eps(P||Q) = 1 - e^eps + e^eps H_-eps(Q||P); the worst Q||P is the worst P||Q
            up = self._bracket(-eps)[1]
            return float(np.logaddexp(math.log(-math.expm1(eps)), eps + up))
        return self._bracket(eps)[1]

    def log_delta(self, eps: Any, direction: Any) -> Any:
        return np.array([self._log_delta(float(e)) for e in eps])

    def epsilon(self, log_target: Any, direction: Any) -> Any:
        return np.array([log_epsilon(self.core, self.N, self.p, float(t), self.alternative)
                         for t in log_target])


def worst_case_curve(N: Any, p: Any, ref: Any, description: Any, rr: Any = None,
                     log_delta_floor: Any = None, alternative: Any = None) -> WorstCaseCurve:
    """The exact worst case: every vertex on its whole support up to
    FULL_SWEEP_OTHERS others, else the closed branch-and-bound bracket.
    rr = eps0: the target's report pair is eps0-randomized response with
    flip probability p = 1 / (1 + e^eps0), carried exactly from eps0 (else
    a shift); bracket then reports N - a (the others with input 1).
    log_delta_floor(eps): a lower bound of ln delta (e.g. the uniform
    vertex), used to refuse up front what would take minutes; alternative:
    what the refusal advises instead (check_work)."""
    core = vertex_core(N, p, rr)
    if N <= FULL_SWEEP_OTHERS:
        curve_core = core

        def by_vertex(eps: Any) -> Any:
            log_v, a = core.worst(eps)
            return log_v, log_v, int(a)
    else:
        curve_core = BracketCore(core, N, p, log_delta_floor, alternative)
        by_vertex = curve_core._bracket
    if rr is None:
        bracket = by_vertex
    else:
        def bracket(eps: Any) -> Any:
            L, U, a = by_vertex(eps)
            return L, U, N - a        # the others with input 1
    laws = VertexLaws(core, N) if N <= FULL_SWEEP_OTHERS else NoComposition(FULL_SWEEP_OTHERS)

    def certified() -> Any:                  # every vertex's pair in Arb (statpriv.oracle.arb)
        from statpriv.oracle import arb
        return arb.vertex_worst_case(N, p, rr)
    return WorstCaseCurve(curve_core, ref, description, bracket=bracket,
                          laws=laws.with_certified(certified))
