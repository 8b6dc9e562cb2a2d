"""The k-anonymity mechanism seen by an attacker with partial knowledge.

Def. 16 of Desfontaines, Mohammadi, Krahmer & Basin, "Differential Privacy
with Partial Knowledge": n iid records fall into categories, the histogram is
released with every count below k suppressed; records in the remaining
category (probability 1 - sum(pi), "bottom") are never released.  The
target's record moves from category ``source`` to ``target``.  With A, B the
other records' counts in the two categories and m = A + B:

    m ~ Bin(n-1, pa+pb),   A | m ~ Bin(m, rho),   rho = pa / (pa+pb),
    P (target in source): (thr(A+1), thr(B)),  Q (target in target): (thr(A), thr(B+1)),

thr(x) = x if x >= k, else suppressed.  Two exact curves bracket the truth:

* ``upper``: the attacker also learns m (how many others fall outside the
  two categories).  Given m, any released coordinate reveals A, so the pair
  is the shift pair of Bin(m, rho) with the cells where both counts are
  suppressed merged into one:
  delta = sum_m w(m) [ sum over revealing cells u of (g_m(u-1) - e^eps g_m(u))_+
  + (P_m(both suppressed) - e^eps Q_m(both suppressed))_+ ].
  The released histogram is a function of (the two thresholded counts, the
  other categories' counts), and given m the other categories' counts are
  independent of the target's move: so the full histogram's curve is at
  most this one, and equals it when every other category is always
  released and the bottom category is empty (then m is n - 1 minus their
  sum: the "total is known" weakness the paper discusses).
* ``lower``: the attacker sees only the two released counts (a function
  of the histogram, so the histogram's curve is at least this one).  Both
  released: the shift cells u in [k, m+1-k] given m; one or both
  suppressed: cells whose masses sum over m.

The truth for the full released histogram lies between: lower <= truth <= upper.
"""
from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from statpriv import _lazy, _validate, oracle
from statpriv.laws import grid_pld, windows
from statpriv.laws.pair import DeltaOnly
from statpriv.curve import PrivacyCurve
from statpriv.curve.recipe import factory

__all__ = ["k_anonymity", "KAnonymity"]

_thr = _lazy.module("statpriv.thresholding._thresholding")
_core = _lazy.module("statpriv._core")
_law_kernels = _lazy.module("statpriv.laws._kernels")

# Windows of m (the upper curve's; the lower curve's sum over m runs past it
# while positive, in C) and of A where B < k and B where A < k (the lower
# curve's suppressed cells): the atoms within this many nats of each law's
# largest; the mass outside is bounded (unimodality) and added to delta.
DROP_NATS = 1500.0
# ... except laws with at most this many atoms, kept whole (nothing bounded):
# with a tiny category probability delta can lie thousands of nats below the
# largest atom, far under any DROP_NATS rest bound.
FULL_SUPPORT = 1024
# ... and the lower curve's suppressed cells whole up to this many atoms of A
# (or B): their windows' rest scales with Pr[B < k] (Pr[A < k]), which need
# not be small where delta is.
FULL_CELLS = 4096
# Refuse constructions whose cell sums would exceed this many pmf terms, and
# curves whose every evaluation would (about 1e8 terms a second here).
MAX_CELL_TERMS = 3e8
MAX_EVAL_TERMS = 3e8


class KAnonymity(NamedTuple):
    """The two curves of statpriv.k_anonymity (immutable): ``lower`` (the
    attacker sees the source and target counts only) and ``upper`` (the
    attacker also learns how many other records fall outside the two
    categories).  The full released histogram's curve lies between them.

    Attributes
    ----------
    lower : PrivacyCurve
        The attacker sees the source and target counts only.
    upper : PrivacyCurve
        The attacker also learns how many other records fall elsewhere.
    description : str
        What the pair is.

    Examples
    --------
    >>> import statpriv
    >>> ka = statpriv.k_anonymity(100, [0.05, 0.05, 0.6], 5, source=0, target=1)
    >>> print(f"{ka.lower.delta(0.5):.6e} <= {ka.upper.delta(0.5):.6e}")
    8.461201e-02 <= 9.786809e-02
    """

    lower: PrivacyCurve
    upper: PrivacyCurve
    description: str


@factory
@_validate.renamed(probs="pi")
def k_anonymity(n: int, pi: ArrayLike, k: int, *, source: int, target: int) -> KAnonymity:
    """Privacy curves of a k-anonymous histogram for a record moving between two categories.

    n records fall iid into categories with probabilities ``pi`` (and
    1 - sum(pi) into a category that is never released); every count is
    released if >= k and suppressed otherwise (Desfontaines, Mohammadi,
    Krahmer & Basin, "Differential Privacy with Partial Knowledge",
    Def. 16).  The target's record is in category ``source`` (P) or
    ``target`` (Q); the other n - 1 records are iid.  With A, B the others'
    counts in the two categories, m = A + B ~ Bin(n-1, pa+pb) and
    A | m ~ Bin(m, pa/(pa+pb)) = g_m, and thr(x) = x if x >= k else bottom:

    * ``.upper``: the attacker sees (thr(A+1), thr(B)) vs (thr(A), thr(B+1))
      and m.  delta = sum_m w(m) H_eps(P_m || Q_m), where P_m, Q_m are the
      shift pair g_m(u-1), g_m(u) with the cells u in [m-k+2, k-1] (both
      counts suppressed) merged.  An upper bound on the curve of the whole
      released histogram, equal to it when the other categories are always
      released and the never-released category is empty.
    * ``.lower``: the attacker sees only the two thresholded counts: cells
      u in [k, m+1-k] of each g_m, plus the cells with one or both counts
      suppressed, their masses summed over m.  A lower bound on the curve
      of the whole released histogram (a function of it).

    Exact 2-D sums in C (over m and the cells of g_m, from the likelihood-
    ratio threshold outward with geometric remainder bounds); the mass of
    m (upper), of A where B < k and of B where A < k (the lower curve's
    suppressed cells) beyond DROP_NATS nats below their modes is bounded
    and added.

    Parameters
    ----------
    n : int >= 1
        Number of records, the target included.
    pi : sequence of floats >= 0 with sum <= 1
        The released categories' probabilities: the probability of each
        record to fall into each (``probs=``: the old, deprecated keyword).
    k : int >= 1
        Counts below k are suppressed.
    source, target : int
        Distinct indices into ``pi``.

    Returns
    -------
    KAnonymity with ``.lower`` and ``.upper`` PrivacyCurves (precision="mp":
    statpriv.oracle.k_anonymity_delta).

    Examples
    --------
    >>> ka = k_anonymity(100, [0.05, 0.05, 0.6], 5, source=0, target=1)
    >>> lo, hi = ka.lower.delta(0.5), ka.upper.delta(0.5)
    >>> print(f"{lo:.6f} <= truth <= {hi:.6f}")
    0.084612 <= truth <= 0.097868
    """
    n = _validate.count("n", n, low=1)
    ps = _validate.real_array("pi", pi, low=0.0, high=1.0, dims=(1,))
    if ps.size < 2:
        raise ValueError(f"pi must hold at least two categories, got {ps.size}")
    total = math.fsum(ps.tolist())
    if total > 1.0 + 4.0 * ps.size * 2.0 ** -53:
        raise ValueError(f"pi must sum to at most 1 (the rest is the never-released "
                         f"category), got sum {total!r}")
    k = _validate.count("k", k, low=1)
    source = _validate.count("source", source, low=0, high=ps.size - 1)
    target = _validate.count("target", target, low=0, high=ps.size - 1)
    if source == target:
        raise ValueError(f"source and target must be different categories, got {source} twice")
    pa, pb = float(ps[source]), float(ps[target])
    N = n - 1
    pm = min(1.0, pa + pb)
    # the others' chance to fall elsewhere, 1 - pa - pb of the floats (rounded
    # once): pa + pb may round to 1 while it is not 0
    pc = max(0.0, math.fsum([1.0, -pa, -pb]))
    m_lo, m_hi, rest_m = _window(N, pm, pc)
    # the lower curve's (u, bottom) and (bottom, v) cells: A where B < k, B where A < k
    a_win, b_win = _window_given_few(N, pa, pb, pc, k), _window_given_few(N, pb, pa, pc, k)
    nu = max(0, a_win[1] + 2 - max(k, a_win[0]))
    nv = max(0, b_win[1] + 2 - max(k, b_win[0]))
    line = min(k, N + 1)
    cells = ((nu + nv) * line + 2.0 * line * line + 2.0 * k * min(2 * k, m_hi - m_lo + 1))
    if cells > MAX_CELL_TERMS:
        raise ValueError(f"k-anonymity with n={n}, k={k}: the suppressed cells need about "
                         f"{cells:.1e} pmf terms, more than statpriv.thresholding.k_anonymity."
                         f"MAX_CELL_TERMS = {MAX_CELL_TERMS:.0e}; use a smaller k or n")
    # one evaluation: the m within ~12 sd of the mode, each a sum over ~10 sd of A | m
    sd_m = math.sqrt(N * pm * (1.0 - pm))
    sd_a = math.sqrt(N * pm * min(pa, pb) / pm) if pm > 0.0 else 0.0
    work = min(m_hi - m_lo + 1, 24.0 * sd_m + 1.0) * (10.0 * sd_a + 10.0)
    if work > MAX_EVAL_TERMS:
        raise ValueError(f"k-anonymity with n={n}: every evaluation would sum about {work:.1e} "
                         f"terms (~{work / 1e8:.0f} s), more than statpriv.thresholding.k_anonymity."
                         f"MAX_EVAL_TERMS = {MAX_EVAL_TERMS:.0e}; use a smaller n")
    # (the lower curve's sum over m bounds its own rest past m's window: C)
    rest_lower = float(np.logaddexp(a_win[2], b_win[2]))
    ref_probs = ps.tolist()
    what = f"k-anonymity n={n}, k={k}, {source}->{target} (pa={pa}, pb={pb})"

    def curve(bound: str, core: Any) -> PrivacyCurve:
        def ref(eps: Any, direction: Any) -> Any:
            return oracle.k_anonymity_delta(n, ref_probs, k, source, target, eps, bound=bound,
                                            direction=direction)

        def certified() -> Any:              # the pair in Arb (statpriv.oracle.arb)
            from statpriv.oracle import arb
            return arb.KAnonymityLaws(n, pa, pb, k, upper=bound == "upper")
        # the upper curve is the pair an attacker who sees more faces (a
        # post-processing bound of the release): composable through its delta;
        # the lower one is known through its delta and certified interval only
        laws = (grid_pld.DeltaLaws(core, eval_terms=work) if bound == "upper"
                else DeltaOnly())
        return PrivacyCurve(core, ref, f"{what}, {bound} (attacker sees "
                            + ("the two counts and how many others are elsewhere)"
                               if bound == "upper" else "the two released counts only)"),
                            laws=laws.with_certified(certified))

    refined = None
    if a_win[2] == -math.inf and b_win[2] == -math.inf:
        refined = _lower_ratios(N, pa, pb, k, a_win, b_win)
    lower = curve("lower", _thr.KAnonymityCore(float(N), pa, pb, k, False, m_lo, m_hi,
                                               a_win[:2], b_win[:2], rest_lower, refined))
    upper = curve("upper", _thr.KAnonymityCore(float(N), pa, pb, k, True, m_lo, m_hi,
                                               a_win[:2], b_win[:2], rest_m,
                                               _merged_ratios(pa, pb, k, m_lo, m_hi)))
    return KAnonymity(lower, upper, what)


# Near P/Q = e^eps a cell term P (1 - e^(eps - ln P/Q)) needs the log ratio far
# beyond long double: the lower curve's suppressed cells and the upper
# curve's merged cells get ln P/Q as hi + lo (~1e-35) from exact sums of the
# pmfs in doubled long double (csrc/xprec.h, one C pass each), when that
# takes at most REFINE_TERMS pmf terms.
REFINE_TERMS = 2e6


def _lower_ratios(N: Any, pa: Any, pb: Any, k: Any, a_win: Any, b_win: Any) -> Any:
    """ln P/Q of the lower curve's one-suppressed cells and of (bottom, bottom),
    each as hi + lo (long doubles), from exact sums of f(a, b) = P[A = a, B = b]
    (C: sp_kanon_refine_lower) -- or None beyond REFINE_TERMS terms.  The
    windows must hold all the mass (nothing left out)."""
    u_first = max(k, a_win[0])
    nu = max(0, a_win[1] + 2 - u_first)
    v_first = max(k, b_win[0])
    nv = max(0, b_win[1] + 2 - v_first)
    tables = 2.0 * (max(u_first + nu, k) + max(v_first + nv, k))
    if (nu + nv + k + 2.0) * k + tables > REFINE_TERMS:
        return None
    return _thr.kanon_refine_lower(float(N), pa, pb, k, u_first, nu, v_first, nv)


def _merged_ratios(pa: Any, pb: Any, k: Any, m_lo: Any, m_hi: Any) -> Any:
    """ln P/Q of the upper curve's merged cells (m = m_lo .. min(m_hi, 2k-3):
    P = X + C, Q = Y + C with X = g_m(lo-1), Y = g_m(hi), C = sum_{lo<=s<hi}
    g_m(s), g_m = Bin(m, rho)) as (hi, lo) arrays, from exact sums (C:
    sp_kanon_refine_merged); None beyond REFINE_TERMS terms."""
    count = max(0, min(m_hi, 2 * k - 3) - m_lo + 1)
    if count * (k + 1.0) + 2.0 * (m_lo + count) > REFINE_TERMS:
        return None
    return _thr.kanon_refine_merged(pa, pb, k, m_lo, count)


def _window(N: Any, p: Any, q: Any = None) -> Any:
    """(first, last, log_rest) of Bin(N, p): the whole support up to
    FULL_SUPPORT atoms, else the atoms within DROP_NATS of the mode.  ``q``:
    1 - p where it is known more accurately than the float 1 - p (p near 1:
    the law is then taken mirrored, N - Bin(N, q))."""
    if q is not None and p > q:
        first, last, log_rest = _window(N, q)
        return N - last, N - first, log_rest
    if N == 0 or p == 0.0 or p == 1.0:
        at = N if p == 1.0 else 0
        return at, at, -math.inf
    if N + 1 <= FULL_SUPPORT:
        return 0, N, -math.inf

    def log_pmf(j: Any) -> Any:
        return float(_law_kernels.log_binom_pmf(float(N), p, np.array([float(j)]))[0])

    mode = min(max(math.floor((N + 1) * p), 0), N)
    return windows.unimodal_window(log_pmf, 0, N, mode, DROP_NATS)


def _window_given_few(N: Any, p: Any, p_other: Any, pc: Any, k: Any) -> Any:
    """(first, last, log_rest) of X, the others' count in a category of
    probability p, where the count Y of the other category (p_other) is
    below k: the cells of the lower curve with Y suppressed.  Given Y = y,
    X ~ Bin(N - y, p / (p + pc)), stochastically decreasing in y: the window
    runs from the first atom of y = min(k - 1, N)'s window to the last of
    y = 0's, and the mass it leaves out is at most
    Pr[Y < k] (rest of y = 0's window + rest of y = min(k - 1, N)'s), with
    Pr[Y < k] <= k Bin(N, p_other)(k - 1) below Y's mode (else 1; doubled
    against the pmf's rounding): relative to these cells' own mass (a window
    of X's marginal would leave out up to e^-DROP_NATS, far above the cells
    where Y < k is itself rare)."""
    if p + pc == 0.0:                                  # X = 0 surely
        return 0, 0, -math.inf
    if N + 1 <= FULL_CELLS:
        return 0, N, -math.inf
    share, share_c = p / (p + pc), pc / (p + pc)
    y_max = min(k - 1, N)
    first, _, rest_first = _window(N - y_max, share, share_c)
    _, last, rest_last = _window(N, share, share_c)
    log_rest = float(np.logaddexp(rest_first, rest_last))
    if log_rest > -math.inf and y_max < math.floor((N + 1) * p_other):
        log_few = math.log(2.0 * (y_max + 1.0)) + float(
            _law_kernels.log_binom_pmf(float(N), p_other, np.array([float(y_max)]))[0])
        log_rest += min(0.0, log_few)
    return first, last, log_rest
