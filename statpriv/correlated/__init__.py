"""Repeated noiseless counts on the same correlated records.

Desfontaines, Mohammadi, Krahmer & Basin, "Differential Privacy with Partial
Knowledge" (§4.1, §5 and their Example 8) show that noiseless counts do not
compose like independent releases when they are taken on the same data: a
count released every day on the same people leaks the day-to-day changes.
Here each of n records (the target included) answers k binary questions; the
answer vector a in {0,1}^k of every other record is iid with the law
``joint`` (2^k probabilities, index v = sum_j a_j 2^(k-j), the order of
``np.ravel`` of a 2 x ... x 2 array indexed [a1, ..., ak]); the release is
the vector of the k counts.  With S the sum of the N = n - 1 others' vectors
and the target answering x (P) or x' (Q):

    P(c) = L(c - x),   Q(c) = L(c - x'),   L = the law of S,
    delta(eps) = sum over the lattice of (P(c) - e^eps Q(c))_+
               = sum_s (L(s) - e^eps L(s + x - x'))_+ ,

so a pair enters only through d = x - x'.  Without a target the curve is the
worst case over every pair x != x' (the max of the pairs' curves; a pair and
its swap are the two directions of one curve, so there are (3^k - 1) / 2).

``method="exact"`` builds L on the whole lattice [0, N]^k in C (one record
at a time, or for k = 2 conditioned on the first answer: with m others
answering a1 = 1, L(m, c) = Bin(N, p1)(m) [Bin(m, q1) * Bin(N - m, q0)](c);
extended precision, nothing truncated; csrc/correlated_counts.h)
and hands the two laws to the pair kernel (sums sorted by likelihood ratio,
in log space).  For k = 2 beyond that lattice's budget (n ~ 1200) it builds
L on a box only: per count the window [lo, hi] outside which Chernoff's
bound P[Bin(N, p) <= a] <= e^(-N KL(a/N || p)) leaves at most e^-160 / 4 a
side, the rows m of the box by a binary tree of convolutions of binomials
(positive terms: every cell to ~1e-16 relative however small), and delta
summed cell by cell on the box with that bound (the mass outside it) ADDED:

    delta_box(eps) = sum_(s in box) (L(s) - e^eps L(s + d))_+ + tail

is never below delta.  The box is built a cell wider a side than the
windows, so the cells whose partner s + d falls outside (counted in full)
are that rim, outside the windows: at most the tail again.  A partner
below what the box's doubles resolve (cut, or past the double range: a
joint entry of 1e-300 puts neighbours e^690 apart) would count its cell in
full too; where that cell weighs above e^-190 / (box cells), the pair's
term is L(s) (1 - e^(eps + r))_+ with r = ln L(s + d) / L(s) evaluated in
log space at construction (csrc/correlated_counts.h:
sp_corr_window_resolve).  So delta_box stays within 1e-12 relative of
delta wherever delta is ~1e13 times the tail (3e-70), and below that at
most twice the bound.  At n = 10^4 the box holds ~3e6 cells (the lattice 1e8, its law
1.7e11 terms).  k = 3 beyond the lattice's budget (n ~ 110) takes a box the
same way, each of the three counts' windows leaving at most e^-160 / 6 a
side.
Conditioned on the first answer, with m others answering a1 = 1,

    L(m, c2, c3) = Bin(N, p1)(m) [J1^(*m) * J0^(*(N - m))](c2, c3),

J1 and J0 the laws of (a2, a3) given a1 = 1 and a1 = 0 (2-D convolution
powers).  The slices m come from the k = 2 tree's split on planes: a node
[lo, hi] holds J1^(*lo) * J0^(*(N - hi)), its halves that times hi - mid
records of J0 and mid + 1 - lo of J1, one record at a time (four positive
terms a cell, so every cell keeps ~N ulps relative however small); each
plane only where its slices can still reach the box (exact) and cut to the
rectangle of its cells that can weigh e^-200 in the law (the cut cells'
count times that bound is added too).  The slices come out in order of m,
so delta is summed holding two slices (m pairs with m + d1), never the
whole box (~1.4e8 cells at n = 10^3); each delta rebuilds them.  The same
argument makes it never below delta.

``method="histogram"`` is the certified upper curve the paper suggests:
one query with 2^k options, the histogram of answer vectors.  The k counts
are a function of that histogram, so its curve is at least theirs; it is
the histogram curve of statpriv.k_anonymity with k = 1 (nothing
suppressed), whose ``upper`` attacker learns how many others are in neither
of the two cells -- which the full histogram reveals.  It stays cheap for
any n.
"""
from __future__ import annotations

import itertools
import math
from typing import Any, Iterable, List, Optional, Sequence, Tuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from statpriv import _lazy, _validate, oracle
from statpriv.curve import PrivacyCurve
from statpriv.curve.recipe import factory
from statpriv.laws import pair_curve
from statpriv.laws.discrete import laws_from_log_pmfs
from statpriv.laws.pair import DeltaOnly
from statpriv.thresholding.k_anonymity import k_anonymity

__all__ = ["correlated_counts", "markov", "MAX_QUESTIONS", "MAX_LAW_TERMS", "MAX_ATOMS",
           "MAX_WINDOW_CELLS", "MAX_BOX_TERMS", "MAX_BOX_PLANES", "METHODS"]

_kernels = _lazy.module("statpriv.correlated._correlated")

# k of the exact lattice (csrc/correlated_counts.h: SP_CORR_MAX_K)
MAX_QUESTIONS = 4
# the histogram route takes joints of up to 2^16 cells, and worst cases over
# up to this many pairs of cells
MAX_HISTOGRAM_QUESTIONS = 16
MAX_HISTOGRAM_PAIRS = 2016
# Refuse exact lattices whose law needs more multiply-adds than this (about
# 1e8 a second here), or whose pairs hold more atoms in all (memory: each
# atom takes ~60 bytes in the pair kernel's arrays).
MAX_LAW_TERMS = 3e8
MAX_ATOMS = 4e6
# k = 2 beyond that budget: the law on a box (sp_corr_two_window_law) whose
# outside holds at most e^WINDOW_LOG_TAIL = 3e-70 of mass (Chernoff bounds of
# the two counts, added to delta), the binomial factors inside cut
# WINDOW_CUT_NATS further down (their error stays e^-100 below that bound);
# refused beyond MAX_LAW_TERMS multiply-adds of its tree or MAX_WINDOW_CELLS
# cells (16 bytes each).
WINDOW_LOG_TAIL = -160.0
WINDOW_CUT_NATS = 100.0
# a cell of the box resolves relatively to e^-WINDOW_RESOLVE_NATS once it is
# this far above the cut's error
WINDOW_RESOLVE_NATS = 30.0
MAX_WINDOW_CELLS = 1.6e7
# k = 3 beyond the lattice's budget: the law on a box (sp_corr_box_log_delta)
# whose outside holds at most e^WINDOW_LOG_TAIL (six Chernoff sides), its
# planes' cells cut below e^-(BOX_CUT_NATS - WINDOW_LOG_TAIL) of the law
# (the cut's bound, ~e^-180 at n = 10^3, added as well); refused beyond
# MAX_BOX_TERMS cell updates of its tree (about 1.5e9 a second here) or
# MAX_BOX_PLANES doubles of its planes' buffers (8 bytes each).
BOX_CUT_NATS = 40.0
MAX_BOX_TERMS = 2e10
MAX_BOX_PLANES = 5.5e7
# every atom of the law is at least (min joint)^N times the largest: long
# double holds that when N |ln min joint| stays below this
MAX_LOG_RANGE = 11000.0
# |sum of joint - 1| accepted (rounded products such as statpriv.markov's)
SUM_TOLERANCE = 1e-13
METHODS = ("exact", "histogram")


def _questions(joint: ArrayLike) -> Tuple[NDArray[np.float64], int]:
    """joint validated: 2^k probabilities >= 0 summing to 1 -> (array, k)."""
    probs = _validate.real_array("joint", joint, low=0.0, high=1.0, dims=(1,))
    k = probs.size.bit_length() - 1
    if probs.size < 2 or probs.size != 2 ** k or k > MAX_HISTOGRAM_QUESTIONS:
        raise ValueError(f"joint must hold 2^k probabilities, k in [1, "
                         f"{MAX_HISTOGRAM_QUESTIONS}] (one per answer vector), got {probs.size}")
    total = math.fsum(probs.tolist())
    if abs(total - 1.0) > SUM_TOLERANCE:
        raise ValueError(f"joint must sum to 1 (within {SUM_TOLERANCE:g}), got sum {total!r}")
    return probs, k


def _items(name: str, value: Any, what: str) -> Tuple[Any, ...]:
    """``value`` as a tuple (a sequence, not a string), else TypeError naming it."""
    if isinstance(value, (str, bytes)):
        raise _validate.ParameterTypeError(f"{name} must be {what}, got {value!r}")
    try:
        return tuple(value)
    except TypeError:
        raise _validate.ParameterTypeError(f"{name} must be {what}, got {value!r}") from None


def _answers(name: str, value: Any, k: int) -> Tuple[int, ...]:
    """A tuple of k answers in {0, 1}."""
    items = _items(name, value, f"a tuple of k = {k} answers in {{0, 1}}")
    if len(items) != k:
        raise ValueError(f"{name} must hold k = {k} answers in {{0, 1}}, got {len(items)}")
    return tuple(_validate.count(f"{name} entry", a, low=0, high=1) for a in items)


def _target(target: Any, k: int) -> Optional[Tuple[Tuple[int, ...], Tuple[int, ...]]]:
    """None (the worst case) or the pair (x, x'), different tuples of k answers."""
    if target is None:
        return None
    items = _items("target", target, "a pair (x, x_prime) of answer tuples")
    if len(items) != 2:
        raise ValueError(f"target must be a pair (x, x_prime) of answer tuples, got "
                         f"{len(items)} entries")
    x, x_prime = _answers("target x", items[0], k), _answers("target x_prime", items[1], k)
    if x == x_prime:
        raise ValueError(f"target must be two different answer tuples, got {x} twice")
    return x, x_prime


def _shift_pairs(k: int) -> List[Tuple[Tuple[int, ...], Tuple[int, ...]]]:
    """One target pair (x, x') per d = x - x' != 0 up to sign: x_j = 1 where
    d_j = 1, x'_j = 1 where d_j = -1 (the first non-zero d_j is +1)."""
    pairs = []
    for d in itertools.product((0, 1, -1), repeat=k):
        first = next((v for v in d if v != 0), 0)
        if first == 1:
            pairs.append((tuple(int(v == 1) for v in d), tuple(int(v == -1) for v in d)))
    return pairs


def _index(answers: Sequence[int]) -> int:
    return int(sum(a << (len(answers) - 1 - j) for j, a in enumerate(answers)))


def _exact_cost(N: int, k: int, probs: NDArray[np.float64], pairs: int) -> Tuple[float, float]:
    """(multiply-adds of the law, atoms of the pairs) of the exact lattice.
    k = 2 conditions on the first answer: sum_m (m + 1)(N - m + 1) ~ N^3/6
    for the convolutions, plus the Pascal triangles; otherwise one record at
    a time, cells * sum_{i=1}^{N} i^k (the lattice after record i has
    (i + 1)^k points, each a sum over the cells).  Atoms: pairs (N + 2)^k."""
    if k == 2:
        terms = (float(N) + 1.0) * (float(N) + 2.0) * (float(N) + 3.0) / 6.0 \
            + 2.0 * (float(N) + 1.0) ** 2
    elif N <= 10**6:
        cells = int(np.count_nonzero(probs))
        terms = cells * float(np.sum(np.arange(1, N + 1, dtype=np.float64) ** k))
    else:
        terms = int(np.count_nonzero(probs)) * float(N) ** (k + 1) / (k + 1)
    return terms, pairs * float(N + 2) ** k


def _kl(a: float, p: float, q: float) -> float:
    """Kullback-Leibler divergence of Bernoulli(a) from Bernoulli(p), q = 1 - p
    (given, not formed: p may round to 1 with q = 1e-17 > 0)."""
    out = 0.0
    if a > 0.0:
        out += a * math.log(a / p)
    if a < 1.0:
        out += (1.0 - a) * math.log((1.0 - a) / q)
    return out


def _binomial_window(N: int, p: float, q: float, log_side: float) -> Tuple[int, int, float]:
    """(lo, hi, mass): Bin(N, p) (q = 1 - p, from the joint's entries) outside
    [lo, hi] has at most ``mass``, each side at most e^log_side, by Chernoff's
    bound P[X <= a] <= e^(-N KL(a/N || p)) for a <= Np (and its mirror); a
    side is cut only where that bound allows, so [0, N] with mass 0 when it
    never does."""
    if p <= 0.0 or q <= 0.0:
        at = 0 if p <= 0.0 else N
        return at, at, 0.0
    need = -log_side

    def largest(lo: int, hi: int, good: Any) -> int:
        """The largest a in [lo, hi] with good(a), good monotone true-then-false."""
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if good(mid) else (lo, mid - 1)
        return lo

    mean = N * p
    lo, hi, mass = 0, N, 0.0
    below = min(int(math.floor(mean)), N)
    if N * _kl(0.0, p, q) >= need:   # some a <= mean has a tail bound <= e^log_side
        a = largest(0, below, lambda a: N * _kl(a / N, p, q) >= need)
        lo, mass = a + 1, mass + math.exp(-N * _kl(a / N, p, q))
    above = min(int(math.ceil(mean)), N)
    if N * _kl(1.0, p, q) >= need:
        # the smallest b >= mean with bound <= e^log_side: mirror of the above
        b = N - largest(0, N - above, lambda t: N * _kl((N - t) / N, p, q) >= need)
        hi, mass = b - 1, mass + math.exp(-N * _kl(b / N, p, q))
    return lo, max(hi, lo), mass


def _window_curves(N: int, probs: NDArray[np.float64],
                   pairs: List[Tuple[Tuple[int, ...], Tuple[int, ...]]], ref: Any,
                   description: str, log_tail: float = WINDOW_LOG_TAIL) -> List[PrivacyCurve]:
    """k = 2 on a box holding all but e^log_tail of the law (see
    correlated_counts): one curve per pair, the mass outside the box added."""
    total = math.fsum(probs.tolist())
    # each count's law, the complements from the entries (no 1 - p)
    p1, q1 = math.fsum(probs[2:].tolist()) / total, math.fsum(probs[:2].tolist()) / total
    p2, q2 = math.fsum(probs[1::2].tolist()) / total, math.fsum(probs[::2].tolist()) / total
    side = log_tail - math.log(4.0)      # four sides, each at most a quarter
    m_lo, m_hi, mass_1 = _binomial_window(N, p1, q1, side)
    c_lo, c_hi, mass_2 = _binomial_window(N, p2, q2, side)
    rows, cols = m_hi - m_lo + 1, c_hi - c_lo + 1
    work = rows * (cols + rows) * max(1.0, math.log2(rows))
    if rows * cols > MAX_WINDOW_CELLS or work > MAX_LAW_TERMS:
        raise ValueError(
            f"correlated counts with n={N + 1}, k=2: the window holding all but "
            f"e^{log_tail:g} of the law takes {rows} x {cols} cells and about {work:.1e} "
            f"terms, more than statpriv.correlated.MAX_WINDOW_CELLS = {MAX_WINDOW_CELLS:.1e} / "
            f"MAX_LAW_TERMS = {MAX_LAW_TERMS:.0e}; method='histogram' gives a certified upper "
            "curve (the histogram of answer vectors) at any n")
    cut = -log_tail + WINDOW_CUT_NATS
    # one cell more a side (inside the lattice): the box's edge cells get their
    # partners, and what counts in full is that rim, outside the Chernoff box
    m_lo, m_hi, c_lo, c_hi = max(m_lo - 1, 0), min(m_hi + 1, N), max(c_lo - 1, 0), min(c_hi + 1, N)
    rows, cols = m_hi - m_lo + 1, c_hi - c_lo + 1
    law = _kernels.two_window_law(N, probs, m_lo, m_hi, c_lo, c_hi, cut)
    # what the box misses: the mass outside it; the binomial factors' cuts
    # (each level of the tree loses < 2 (N + 1) e^-cut of a row); cells
    # flushed below the double range (< 2.3e-308 each)
    levels = math.ceil(math.log2(rows)) + 2
    cut_error = levels * 2.0 * (N + 1) * math.exp(-cut)
    tail = mass_1 + mass_2 + cut_error + rows * cols * 2.3e-308
    if mass_1 + mass_2 > 0.0:
        description += f" (on a window of the lattice; mass outside <= {tail:.1e}, added)"
    # a partner below cut_error e^WINDOW_RESOLVE_NATS is not resolved by the
    # box's doubles; where its cell weighs above e^(log_tail - 30) / cells
    # (below, all such cells together stay e^-30 below the tail bound) the
    # pair's term takes the log ratio of the two cells (window_resolved)
    cell_floor = math.exp(log_tail - 30.0) / (rows * cols)
    partner_floor = max(cut_error * math.exp(WINDOW_RESOLVE_NATS), 1e-290)
    curves = []
    for x, xp in pairs:
        d = (x[0] - xp[0], x[1] - xp[1])
        resolved = [a for sign in (1, -1) for a in _kernels.window_resolved(
            N, probs, m_lo, c_lo, law, sign * d[0], sign * d[1], cell_floor, partner_floor)]
        curves.append(PrivacyCurve(_kernels.WindowCore(law, d[0], d[1], tail, resolved), ref,
                                   description))
    return curves


def _count_laws(probs: NDArray[np.float64], k: int) -> List[Tuple[float, float]]:
    """(p_j, q_j) of each count: P(a_j = 1) and P(a_j = 0), each summed
    from the joint's entries (no 1 - p) and normalised."""
    total = math.fsum(probs.tolist())
    out = []
    for j in range(k):
        bit = np.array([(v >> (k - 1 - j)) & 1 for v in range(2 ** k)], dtype=bool)
        out.append((math.fsum(probs[bit].tolist()) / total,
                    math.fsum(probs[~bit].tolist()) / total))
    return out


def _box_curve(N: int, probs: NDArray[np.float64],
               pairs: List[Tuple[Tuple[int, ...], Tuple[int, ...]]], ref: Any,
               description: str, log_tail: float = WINDOW_LOG_TAIL) -> PrivacyCurve:
    """k = 3 on a box holding all but e^log_tail of the law (see
    correlated_counts): one curve for the given pairs (the largest of their
    deltas in each direction), the mass outside the box added."""
    side = log_tail - math.log(6.0)      # six sides, each at most a sixth
    windows = [_binomial_window(N, p, q, side) for p, q in _count_laws(probs, 3)]
    (m_lo, m_hi, _), (b_lo, b_hi, _), (c_lo, c_hi, _) = windows
    rows, plane = m_hi - m_lo + 1, (b_hi - b_lo + 1) * (c_hi - c_lo + 1)
    depth = math.ceil(math.log2(rows)) + 2
    work = rows * plane * depth
    # two buffers a depth, each a plane of the box widened by the rows
    # still to add (the root's chain: two more at the widest), and five
    # slices of the box (two a half, one kept for the halves' seam); the
    # root's second half built in a second thread takes two buffers a depth
    # of its own below the root: two threads where that fits
    def planes(depths: Iterable[int]) -> float:
        return 2.0 * sum((b_hi - b_lo + 1 + rows / 2.0 ** d) * (c_hi - c_lo + 1 + rows / 2.0 ** d)
                         for d in depths)
    buffers = planes([0] + list(range(depth))) + 5.0 * plane
    threads = 2 if buffers + planes(range(1, depth)) <= MAX_BOX_PLANES else 1
    if work > MAX_BOX_TERMS or buffers > MAX_BOX_PLANES:
        raise ValueError(
            f"correlated counts with n={N + 1}, k=3: the box holding all but e^{log_tail:g} of "
            f"the law takes {rows} x {b_hi - b_lo + 1} x {c_hi - c_lo + 1} cells, about "
            f"{work:.1e} cell updates and {buffers:.1e} doubles of planes, more than "
            f"statpriv.correlated.MAX_BOX_TERMS = {MAX_BOX_TERMS:.0e} / MAX_BOX_PLANES = "
            f"{MAX_BOX_PLANES:.0e}; method='histogram' gives a certified upper curve (the "
            "histogram of answer vectors) at any n")
    # what the box misses: the mass outside it; cells flushed below the
    # double range (< 2.3e-308 each); the cut's bound is added in C
    tail = math.fsum(w[2] for w in windows) + rows * plane * 2.3e-308
    if tail > rows * plane * 2.3e-308:
        description += f" (on a box of the lattice; mass outside <= {tail:.1e}, added)"
    shifts = [[a - b for a, b in zip(x, xp)] for x, xp in pairs]
    core = _kernels.BoxCore(N, probs, (m_lo, m_hi, b_lo, b_hi, c_lo, c_hi),
                            -log_tail + BOX_CUT_NATS, shifts, tail, threads)
    return PrivacyCurve(core, ref, description)


def _shifted(law: NDArray[Any], x: Tuple[int, ...]) -> NDArray[Any]:
    """ln P on [0, N + 1]^k: the law of S + x, flattened (long doubles: the
    pair's log ratios keep the law's ~1e-18)."""
    out = np.full(tuple(s + 1 for s in law.shape), -np.inf, dtype=np.longdouble)
    out[tuple(slice(a, a + s) for a, s in zip(x, law.shape))] = law
    return out.ravel()


@factory
def correlated_counts(n: int, joint: ArrayLike, *, target: Any = None,
                      method: str = "exact") -> PrivacyCurve:
    """Privacy curve of k noiseless counts released on the same correlated records.

    Each of n records (the target included) answers k binary questions; the
    other records' answer vectors are iid with law ``joint`` and the k
    counts are released (Desfontaines, Mohammadi, Krahmer & Basin,
    "Differential Privacy with Partial Knowledge", Example 8: counts on the
    same data do not compose by the product rule).  With L the law of the
    sum S of the n - 1 others' answer vectors, the target answering x (P)
    or x' (Q):

        delta(eps) = sum_c (L(c - x) - e^eps L(c - x'))_+ ,

    summed over the lattice of count vectors c.  Without ``target``: the
    worst case, max over every pair x != x' of its delta (direction by
    direction: both directions of a pair are covered by its swap).

    Parameters
    ----------
    n : int >= 1
        Records, the target included.
    joint : sequence of 2^k floats >= 0 summing to 1
        The law of one record's answer vector (a1, ..., ak): entry
        sum_j a_j 2^(k-j), i.e. ``np.ravel`` of a 2 x ... x 2 array indexed
        [a1, ..., ak]; ``statpriv.markov`` builds it for answers that
        follow a Markov chain.  k in [1, 4] for ``method="exact"``, [1, 16]
        for ``"histogram"``.
    target : (x, x_prime), optional
        The target's answers in the two worlds, tuples of k values in {0, 1},
        different.  Default: the worst case over every pair.
    method : {"exact", "histogram"}
        ``"exact"``: the k counts, the law of S on the whole lattice [0, n-1]^k
        (C, extended precision, nothing truncated: for k = 2 conditioned on
        the first answer, L(m, c) = Bin(n-1, p1)(m) [Bin(m, q1) * Bin(n-1-m,
        q0)](c); otherwise one record at a time), the sums by the pair
        kernel in log space; refused with a ValueError stating the cost
        beyond MAX_LAW_TERMS = 3e8 multiply-adds or MAX_ATOMS = 4e6 atoms.
        k = 2 beyond that: the law on a box holding all but e^-160 = 3e-70
        of it (Chernoff bounds of the two counts), delta summed on the box
        with that bound added (never below the true delta; within 1e-12
        relative of it wherever delta >~ 1e-57; below that the bound
        itself, an upper curve); refused beyond MAX_WINDOW_CELLS = 1.6e7
        cells or MAX_LAW_TERMS terms of its tree (n ~ 4e4).  k = 3 beyond
        the lattice's budget likewise on a box (the three counts' Chernoff
        windows, each delta rebuilding the law slice by slice), refused
        beyond MAX_BOX_TERMS = 2e10 cell updates or MAX_BOX_PLANES = 5.5e7
        doubles of planes (n ~ 3900).
        ``"histogram"``: the curve of the histogram of answer vectors
        (statpriv.k_anonymity(n, [joint[x], joint[x']], 1, ...).upper), a
        certified upper curve of the counts' (they are a function of it),
        for any n.

    Returns
    -------
    PrivacyCurve
        Its description says which: one target pair, or the worst case over
        every target pair.  ``precision="mp"``: statpriv.oracle.correlated_counts_delta
        (every multinomial outcome of the others enumerated, mpmath).  One
        exact pair is a pair of laws (``log_pmfs()`` on the lattice [0, n]^k
        flattened in C order; privacy-loss distribution, composition); the
        worst case over pairs is known through its delta only and does not
        compose.  The windowed pairs (k = 2 or 3 beyond the lattice's
        budget) are known through their delta only as well; their
        description says so and the bound added.

    Examples
    --------
    Two questions answered alike by everyone (mass on 00 and 11 only): a
    target who answered (1, 0) is told apart from (0, 0) for sure, since the
    others' counts are equal (Example 8: delta = 1 at every eps):

    >>> import statpriv
    >>> same = [0.5, 0.0, 0.0, 0.5]
    >>> f"{statpriv.correlated_counts(50, same, target=((1, 0), (0, 0))).delta(5.0):.12f}"
    '1.000000000000'

    Answers that mostly stay from one day to the next (a Markov chain), the
    worst target pair, and the histogram's upper curve above it:

    >>> daily = statpriv.markov(0.5, [[0.9, 0.1], [0.1, 0.9]], days=2)
    >>> exact = statpriv.correlated_counts(30, daily)
    >>> upper = statpriv.correlated_counts(30, daily, method="histogram")
    >>> print(f"{exact.delta(0.5):.6f} <= {upper.delta(0.5):.6f}")
    0.325576 <= 0.335494
    """
    n = _validate.count("n", n, low=1)
    probs, k = _questions(joint)
    pair = _target(target, k)
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    N = n - 1
    ref_joint = probs.tolist()
    if pair is None:
        what = "worst case over every target pair x != x'"
    else:
        what = f"target x={pair[0]} vs x'={pair[1]}"
    description = f"correlated counts n={n}, k={k}, {method}: {what}"

    def ref(eps: Any, direction: Any) -> Any:
        x, x_prime = pair if pair is not None else (None, None)
        return oracle.correlated_counts_delta(
            n, ref_joint, x, x_prime, eps, direction=direction,
            release="counts" if method == "exact" else "histogram")

    if method == "histogram":
        return _histogram_curve(n, probs, k, pair, ref, description)
    if k > MAX_QUESTIONS:
        raise ValueError(f"joint must hold 2^k probabilities with k in [1, {MAX_QUESTIONS}] "
                         f"for method='exact', got k = {k}; method='histogram' gives a "
                         "certified upper curve for any k")
    pairs = [pair] if pair is not None else _shift_pairs(k)
    terms, atoms = _exact_cost(N, k, probs, len(pairs))
    def certified() -> Any:              # the lattice in Arb (statpriv.oracle.arb)
        from statpriv.oracle import arb
        if pair is not None:
            return arb.LatticeShift(arb.CountLattice(N, ref_joint), *pair)
        return arb.lattice_worst_case(N, ref_joint, pairs)
    # (the window and box routes: known through their delta, and a certified
    # interval from the whole lattice in Arb -- refused up front with its cost
    # at the sizes that take these routes)
    laws = DeltaOnly().with_certified(certified)
    if (terms > MAX_LAW_TERMS or atoms > MAX_ATOMS) and k == 2:
        curves = _window_curves(N, probs, pairs, ref, description)
        core = curves[0]._core if pair is not None else \
            _kernels.MaxCore([c._core for c in curves])
        return PrivacyCurve(core, ref, curves[0].description, laws=laws)
    if (terms > MAX_LAW_TERMS or atoms > MAX_ATOMS) and k == 3:
        box = _box_curve(N, probs, pairs, ref, description)
        # (the worst case: every direction of it, the max over the pairs' two)
        core = box._core if pair is not None else _kernels.MaxCore([box._core])
        return PrivacyCurve(core, ref, box.description, laws=laws)
    if terms > MAX_LAW_TERMS or atoms > MAX_ATOMS:
        raise ValueError(
            f"correlated counts with n={n}, k={k}: the exact lattice takes about {terms:.1e} "
            f"terms and {atoms:.1e} atoms, more than statpriv.correlated.MAX_LAW_TERMS = "
            f"{MAX_LAW_TERMS:.0e} / MAX_ATOMS = {MAX_ATOMS:.0e}; method='histogram' gives a "
            "certified upper curve (the histogram of answer vectors) at any n")
    smallest = float(probs[probs > 0.0].min())
    if N * -math.log(smallest) > MAX_LOG_RANGE:
        raise ValueError(
            f"correlated counts with n={n}: joint's smallest non-zero probability {smallest!r} "
            f"spreads the law over more than e^{MAX_LOG_RANGE:.0f} (n - 1 times |ln p| must "
            "stay below that); method='histogram' gives a certified upper curve")
    law = _kernels.lattice_log_law(k, N, probs)
    if pair is not None:
        return pair_curve(laws_from_log_pmfs(_shifted(law, pair[0]), _shifted(law, pair[1]), 0,
                                             equal_totals=True),
                          ref, description, certified=certified)
    curves = [pair_curve(laws_from_log_pmfs(_shifted(law, x), _shifted(law, x_prime), 0,
                                            equal_totals=True),
                         ref, description) for x, x_prime in pairs]
    # (known through its delta and certified interval only: no composition)
    return PrivacyCurve(_kernels.MaxCore([c._core for c in curves]), ref, description,
                        laws=laws)


def _histogram_curve(n: int, probs: NDArray[np.float64], k: int,
                     pair: Optional[Tuple[Tuple[int, ...], Tuple[int, ...]]], ref: Any,
                     description: str) -> PrivacyCurve:
    """The curve of the histogram of answer vectors (see correlated_counts)."""
    if pair is not None:
        cells = [(_index(pair[0]), _index(pair[1]))]
    else:
        cells = list(itertools.combinations(range(2 ** k), 2))
        if len(cells) > MAX_HISTOGRAM_PAIRS:
            raise ValueError(f"correlated counts, method='histogram': the worst case over "
                             f"every target pair takes {len(cells)} pairs of cells (k = {k}), "
                             f"more than {MAX_HISTOGRAM_PAIRS}; give a target")
    # (two cells holding the whole joint may sum to 1 + an ulp or two: the
    # second is clipped to 1 - the first)
    uppers = [k_anonymity(n, [float(probs[a]), min(float(probs[b]), 1.0 - float(probs[a]))], 1,
                          source=0, target=1).upper for a, b in cells]
    if pair is not None:
        return PrivacyCurve(uppers[0]._core, ref, description, laws=uppers[0].laws)

    def worst_case() -> Any:    # the max over the histogram curves (and swaps) in Arb
        from statpriv.oracle import arb
        return arb.MaxOfLaws([u.laws.certified_laws() for u in uppers],
                             [("max", "max")] * len(uppers))
    return PrivacyCurve(_kernels.MaxCore([c._core for c in uppers]), ref, description,
                        laws=DeltaOnly().with_certified(worst_case))


def markov(initial: float, transition: ArrayLike, days: int) -> NDArray[np.float64]:
    """The joint law of k = ``days`` daily answers that follow a Markov chain.

    Day 1 is 1 with probability ``initial``; day t + 1 is b with probability
    transition[a][b] given day t is a (a 2 x 2 row-stochastic matrix: row a
    is the law of the next day's answer after a).  The result is the
    ``joint`` of statpriv.correlated_counts: entry sum_t a_t 2^(days-t) is
    P[a1] prod_t transition[a_t][a_(t+1)].

    Parameters
    ----------
    initial : float in [0, 1]
        P(a1 = 1).
    transition : 2 x 2 array of floats in [0, 1], rows summing to 1
        transition[a][b] = P(a_(t+1) = b | a_t = a).
    days : int in [1, 16]
        The number of answers k.

    Returns
    -------
    numpy.ndarray
        2^days probabilities.

    Examples
    --------
    >>> import statpriv
    >>> statpriv.markov(0.5, [[0.9, 0.1], [0.2, 0.8]], days=2)
    array([0.45, 0.05, 0.1 , 0.4 ])
    """
    p1 = _validate.real("initial", initial, low=0.0, high=1.0)
    T = _validate.real_array("transition", transition, low=0.0, high=1.0, dims=(2,))
    if T.shape != (2, 2):
        raise ValueError(f"transition must be a 2 x 2 matrix, got shape {T.shape}")
    for a in range(2):
        total = float(T[a, 0] + T[a, 1])
        if abs(total - 1.0) > 1e-12:
            raise ValueError(f"transition rows must sum to 1 (row-stochastic), got row {a} "
                             f"summing to {total!r}")
    days = _validate.count("days", days, low=1, high=MAX_HISTOGRAM_QUESTIONS)
    law = np.array([1.0 - p1, p1])
    for _ in range(days - 1):
        # law over (a1..at) -> (a1..at, a_(t+1)): the last answer picks T's row
        law = (law.reshape(-1, 2)[:, :, None] * T[None, :, :]).ravel()
    return law
