"""Counting queries with partial knowledge: the exact worst case over the
attacker's uncertainty, the privacy blanket, histograms.

Desfontaines, Mohammadi, Krahmer & Basin, "Differential Privacy with Partial
Knowledge", ask how private a released count is when the attacker does not
know N of the other records and is at least p-uncertain about each: every
unknown record j has the property with an unknown probability pi_j in
[p, 1 - p].  Their Thm 3 bounds the curve between the uniform configuration
(all pi_j = p) and the privacy-blanket bound of Balle, Bell, Gascon &
Nissim ("The Privacy Blanket of the Shuffle Model").  statpriv computes the
worst case itself.

The vertex argument.  delta_plus = sum_k (P(k) - e^eps Q(k))_+ is a sum of
positive parts of linear functions of (P, Q), hence jointly convex in the
pair, and P, Q are affine in each pi_j (the others are independent).  So
delta is convex in each pi_j separately and its maximum over the box
[p, 1-p]^N is attained at a vertex; the count is exchangeable in the
records, so the vertices reduce to a = 0..N: a records at p and N - a at
q = 1 - p, the others' count S_a = Bin(a, p) + Bin(N - a, q).  Mirroring
S_a -> N - S_a maps delta_minus at a onto delta_plus at N - a, so

    worst_case(eps) = max_{a = 0..N} H_eps(S_a + 1 || S_a)        (both directions).

Each vertex's pmf comes from the three-term recurrence of the coefficients
of (q + p z)^a (p + q z)^(N-a), run upward below and downward above
k* = (a p^2 + (N-a) q^2) / (p^2 + q^2): on each side both coefficients are
non-negative, so every step is a positive combination and the relative
error grows at most by a few roundings per step (csrc/partial_knowledge.h).
Up to 1000 unknown others the worst case evaluates every vertex (O(N^2)
per eps, exact to ~1e-14 relative at every eps, nothing truncated); beyond,
branch and bound over ranges of vertices (see PartialKnowledge.worst_case)
closes to the exact worst case.

The closed form Desfontaines et al. compare Thm 3 with (their Prop. 7,
Ghosh & Kleinberg's Thm 3, a Berry-Esseen bound from the records' average
second and third moments) is ``ghosh_kleinberg_delta``: a formula of the
configuration pi_j itself, not of the bound p.

Known records (Desfontaines et al.: for counts, active and passive partial knowledge
coincide and knowing k records equals knowing none among n - k) are
dropped: N = n - 1 - known.

The uncertainty bound p of the paper (and of the formulas here) is the
parameter ``pi`` of partial_knowledge and histogram_partial_knowledge: the
record probability is called pi throughout statpriv (``p=`` is a deprecated
spelling).
"""
from __future__ import annotations

import math
from typing import Any, Optional, Sequence, Union, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from statpriv import _lazy, _validate, oracle
from statpriv.counting import counting
from statpriv.curve import PrivacyCurve
from statpriv.curve.recipe import Recipe
from statpriv.laws import grid_pld
from statpriv.partial_knowledge import vertices
from statpriv.partial_knowledge.vertices import WorstCaseCurve

__all__ = ["partial_knowledge", "histogram_partial_knowledge", "PartialKnowledge",
           "HistogramPartialKnowledge", "ghosh_kleinberg_delta"]

_partial = _lazy.module("statpriv.partial_knowledge._partial")
_Arrayish = Union[NDArray[Any], Sequence[float]]

# The blanket sum: every b is summed while the window of Bin(N, 2p) has at
# most 4096 atoms; beyond, blocks of b on which H is bounded by its value at
# the block's start, refined until the excess over the lower sum is at most
# this relative tolerance (the result is an upper bound of the exact sum).
BLANKET_REL_TOL = 1e-4


class PartialKnowledge:
    """Counts with N = n - 1 - known unknown others, each pi_j in [pi, 1 - pi].

    Built by ``statpriv.partial_knowledge``.  Attributes: ``worst_case``,
    ``uniform``, ``blanket`` (curves), ``closed_form_epsilon(delta)``; ``n``,
    ``pi``, ``known``, ``others`` (``p``: a deprecated name of ``pi``).

    Parameters
    ----------
    n : int >= 1
        Records, the target included.
    pi : float in (0, 1/2]
        The bound of every unknown pi_j in [pi, 1 - pi].
    known : int in [0, n - 1]
        Other records the attacker knows exactly.

    Examples
    --------
    >>> import statpriv
    >>> statpriv.partial_knowledge(1000, 0.1)
    <PartialKnowledge n=1000, pi=0.1, known=0: 999 unknown others>
    """

    p = _validate.renamed_attribute("p", "pi")

    @_validate.renamed(p="pi")
    def __init__(self, n: int, pi: float, known: int) -> None:
        self.n, self.pi, self.known = n, pi, known
        self.others = n - 1 - known
        self._worst: Optional[WorstCaseCurve] = None
        self._blanket: Optional[PrivacyCurve] = None

    def __reduce__(self) -> Any:
        return partial_knowledge, (self.n, self.pi), {"known": self.known}

    def _recipe(self, curve: str) -> Recipe:
        """The call that rebuilds one of this object's curves (pickling)."""
        return Recipe(partial_knowledge, (self.n, self.pi), {"known": self.known}, (curve,))

    def __repr__(self) -> Any:
        return (f"<PartialKnowledge n={self.n}, pi={self.pi}, known={self.known}: "
                f"{self.others} unknown others>")

    @property
    def worst_case(self) -> WorstCaseCurve:
        """The exact worst case max_a H_eps(S_a + 1 || S_a) over the vertices
        (a curve with ``bracket``; see the module docstring).  Up to 1000
        unknown others every vertex is evaluated; beyond, branch and bound
        over ranges a1..a2 of vertices, each bounded by post-processing: with
        F = Bin(a1, p) + Bin(N - a2, 1 - p) (the records at p, resp. 1 - p,
        throughout the range) every S_a = F + W with W independent of F and
        of the target, and an attacker who learns W sees F shifted, so
        H(S_a + 1 || S_a) <= H(F + 1 || F).  Ranges within 1 + 1e-13 of the
        attained vertex are closed, the others halved: the bracket closes and
        the curve is the exact worst case (statpriv.partial_knowledge.vertices,
        docs/partial_knowledge.md)."""
        if self._worst is None:
            N, p = self.others, self.pi
            uniform = self.uniform        # a vertex: its ln delta is a floor of the worst case
            self._worst = self._recipe("worst_case").attach(vertices.worst_case_curve(
                N, p, self._worst_ref, self._describe("worst case"),
                log_delta_floor=lambda eps: float(uniform.log_delta(eps))))
        return self._worst

    def _worst_ref(self, eps: Any, direction: Any) -> Any:
        return oracle.worst_case_delta(self.others, self.pi, eps, direction)

    @property
    def uniform(self) -> PrivacyCurve:
        """Every unknown pi_j = pi: the curve of counting(n - known, pi)."""
        return counting(self.n - self.known, self.pi)

    @property
    def blanket(self) -> PrivacyCurve:
        """The privacy-blanket bound, a certified upper bound of the worst case:
        sum_b Bin(N, 2p)(b) H_eps(A_b + 1 || A_b), A_b ~ Bin(b, 1/2).

        Each record is X_j = I_j U_j + (1 - I_j) V_j with I_j ~ Bern(2p),
        U_j ~ Bern(1/2), V_j ~ Bern((pi_j - p) / (1 - 2p)) independent; an
        attacker who also learns every I_j and V_j sees A_b + const, so by
        post-processing delta <= E_b H_eps(A_b + 1 || A_b) (both directions
        are equal by symmetry).  Summed over every b while the window of
        Bin(N, 2p) has at most 4096 atoms; beyond, in blocks [b_j, b_(j+1))
        bounded by H(b_j) (H is non-increasing in b: adding a fair coin is
        post-processing), refined until the excess over the lower sum is at
        most 1e-4 of the sum.  The mass of Bin(N, 2p) outside its window
        (beyond 1100 nats, bounded by log-concavity) is added with H <= 1."""
        if self._blanket is None:
            N, p = self.others, self.pi
            core = _partial.BlanketCore(float(N), float(p), BLANKET_REL_TOL)

            def ref(eps: Any, direction: Any) -> Any:
                return oracle.blanket_delta(N, p, eps)

            # one pair (a mixture over b, both directions alike): composable
            self._blanket = self._recipe("blanket").attach(
                PrivacyCurve(core, ref, self._describe("privacy blanket"),
                             laws=grid_pld.DeltaLaws(core, symmetric=True)))
        return self._blanket

    @overload
    def closed_form_epsilon(self, delta: float) -> float: ...
    @overload
    def closed_form_epsilon(self, delta: _Arrayish) -> NDArray[np.float64]: ...
    @overload
    def closed_form_epsilon(self, delta: ArrayLike) -> Union[float, NDArray[np.float64]]: ...

    def closed_form_epsilon(self, delta: ArrayLike) -> Union[float, NDArray[np.float64]]:
        """The closed form of Balle, Bell, Gascon & Nissim (Thm 3.1, k = 2
        categories, blanket probability gamma = 2p) that Desfontaines et al.
        quote: (eps, delta) holds for eps <= 1 when
        2p >= max(14 k ln(2/delta) / (N eps^2), 27 k / (N eps)), i.e.

            eps = max(sqrt(14 ln(2/delta) / (N p)), 27 / (N p)),

        and inf where that exceeds 1 (the theorem's conditions fail) or N = 0.

        Parameters
        ----------
        delta : float in (0, 1] or array of floats
            The target delta.

        Returns
        -------
        float or numpy.ndarray
            eps (inf where the theorem's conditions fail).

        Examples
        --------
        >>> import statpriv
        >>> statpriv.partial_knowledge(10**6, 0.1).closed_form_epsilon([1e-6, 1e-9])
        array([0.04506899, 0.05475674])
        >>> statpriv.partial_knowledge(1000, 0.1).closed_form_epsilon(1e-6)
        inf
        """
        arr = _validate.real_array("delta", delta, low=0.0, high=1.0, low_open=True)
        N, p = self.others, self.pi
        with np.errstate(divide="ignore"):
            eps = np.maximum(np.sqrt(14.0 * np.log(2.0 / arr) / (N * p)), 27.0 / (N * p)) \
                if N > 0 else np.full(arr.shape, np.inf)
        eps = np.where(eps <= 1.0, eps, np.inf)
        return float(eps) if eps.ndim == 0 else eps

    def _describe(self, what: Any) -> Any:
        return f"partial knowledge {what}, n={self.n}, pi={self.pi}, known={self.known}"


def _record_probability(pi: Any) -> Any:
    """pi in (0, 1/2]: the bound of every unknown pi_j in [pi, 1 - pi]."""
    return _validate.real("pi", pi, low=0.0, high=0.5, low_open=True)


@_validate.renamed(p="pi")
def partial_knowledge(n: int, pi: float, *, known: int = 0) -> PartialKnowledge:
    """Privacy of a count of n records (the target included) when the attacker
    knows ``known`` of the others exactly and, about each of the remaining
    N = n - 1 - known, only that it has the property with some probability
    pi_j in [pi, 1 - pi] (Desfontaines et al., Thm 3, where pi is called p;
    the keyword ``p=`` still works, deprecated).

    Parameters
    ----------
    n : int >= 1
        Records, the target included.
    pi : float in (0, 1/2]
        Every unknown record has the property with some probability in
        [pi, 1 - pi].
    known : int in [0, n - 1], keyword only
        Other records the attacker knows exactly (default 0).

    Returns
    -------
    PartialKnowledge
        With ``worst_case`` (exact: the max over the vertices a = 0..N of
        H_eps(S_a + 1 || S_a), S_a = Bin(a, pi) + Bin(N - a, 1 - pi);
        ``bracket(eps)`` gives (attained, certified, a_attained)), ``uniform``
        (all pi_j = pi: counting(n - known, pi)), ``blanket`` (the
        privacy-blanket upper bound) and ``closed_form_epsilon(delta)`` (the
        closed form Desfontaines et al. quote).

    Examples
    --------
    >>> import statpriv
    >>> pk = statpriv.partial_knowledge(1000, 0.1)
    >>> f"{pk.uniform.delta(0.3):.4g} {pk.worst_case.delta(0.3):.4g} {pk.blanket.delta(0.3):.4g}"
    '0.0001794 0.0001806 0.00106'
    """
    n = _validate.count("n", n, low=1)
    pi = _record_probability(pi)
    known = _validate.count("known", known, low=0, high=n - 1)
    return PartialKnowledge(n, pi, known)


class HistogramPartialKnowledge:
    """A target moving between two categories of a released histogram.

    ``upper``: the privacy-blanket bound (Desfontaines et al., Cor 1).
    ``lower``: an attained configuration.  With three or more categories,
    every other record in the source and in the target category with
    probability pi (and elsewhere with 1 - 2 pi) attains the blanket sum
    exactly: the other categories' counts reveal t = X_source + X_target,
    t ~ Bin(N, 2 pi), and given t the source count is Bin(t, 1/2) shifted by
    the target, so lower == upper.  With two categories the histogram is
    the count of one of them: lower is the exact worst case over
    [pi, 1 - pi]^N (partial_knowledge(...).worst_case).  Attributes ``n``,
    ``pi``, ``categories`` (``p``: a deprecated name of ``pi``).

    Built by ``statpriv.histogram_partial_knowledge``.

    Parameters
    ----------
    n : int >= 1
        Records, the target included.
    pi : float in (0, 1/2]
        The least probability of every other record in each of the two categories.
    categories : int >= 2
        Categories of the histogram.

    Examples
    --------
    >>> import statpriv
    >>> statpriv.histogram_partial_knowledge(1000, 0.1, 3)
    <HistogramPartialKnowledge n=1000, pi=0.1, categories=3>
    """

    p = _validate.renamed_attribute("p", "pi")

    @_validate.renamed(p="pi")
    def __init__(self, n: int, pi: float, categories: int) -> None:
        self.n, self.pi, self.categories = n, pi, categories
        self._pk = PartialKnowledge(n, pi, 0)

    def __reduce__(self) -> Any:
        return histogram_partial_knowledge, (self.n, self.pi, self.categories)

    def __repr__(self) -> Any:
        return (f"<HistogramPartialKnowledge n={self.n}, pi={self.pi}, "
                f"categories={self.categories}>")

    @property
    def upper(self) -> PrivacyCurve:
        """The privacy-blanket bound (a certified upper bound)."""
        return self._pk.blanket

    @property
    def lower(self) -> PrivacyCurve:
        """An attained lower bound (see the class docstring)."""
        return self._pk.blanket if self.categories >= 3 else self._pk.worst_case


@_validate.renamed(p="pi")
def histogram_partial_knowledge(n: int, pi: float, categories: int) -> HistogramPartialKnowledge:
    """Histogram of n records over ``categories`` categories, partial knowledge.

    The target moves between two categories; every other record is in each
    of the two with probability at least pi.

    Parameters
    ----------
    n : int >= 1
        Records, the target included.
    pi : float in (0, 1/2]
        The attacker's uncertainty: every other record is in each of the
        two categories with probability at least pi (the keyword ``p=``
        still works, deprecated).
    categories : int >= 2
        Categories of the histogram.

    Returns
    -------
    HistogramPartialKnowledge
        ``.upper`` (the privacy-blanket bound, a PrivacyCurve) and
        ``.lower`` (an attained configuration's PrivacyCurve).

    Examples
    --------
    >>> import statpriv
    >>> h = statpriv.histogram_partial_knowledge(1000, 0.1, 3)
    >>> h.lower.delta(0.3) == h.upper.delta(0.3)
    True
    """
    n = _validate.count("n", n, low=1)
    pi = _record_probability(pi)
    categories = _validate.count("categories", categories, low=2)
    return HistogramPartialKnowledge(n, pi, categories)


# The constants of the bound as Desfontaines et al. state it (Prop. 7): 1.25 of
# the Gaussian mechanism's delta and 1.12 = 2 x 0.56, twice a Berry-Esseen
# constant for sums of non-identically distributed terms.
_GK_GAUSSIAN = 1.25
_GK_BERRY_ESSEEN = 1.12


def ghosh_kleinberg_delta(pi: ArrayLike, eps: ArrayLike) -> Union[float, NDArray[np.float64]]:
    """delta(eps) of Desfontaines, Mohammadi, Krahmer & Basin's Prop. 7 (their
    restatement of Ghosh & Kleinberg, "Inferential Privacy Guarantees for
    Differentially Private Mechanisms", Thm 3) for the count of records with
    independent probabilities pi_j, as the paper states it.

    With n = len(pi) records and their average second and (as written)
    absolute third moments

        mu2 = (1/n) sum_j pi_j (1 - pi_j),
        mu3 = (1/n) sum_j pi_j (1 - pi_j) |1 - 2 pi_j|,

    the count is (eps, delta)-private for every delta2 >= 1.25 exp(-n mu2 / 2)
    with

        eps   = sqrt(2 ln(1.25 / delta2) / (n mu2)),
        delta = 1.12 mu3 / (sqrt(n) mu2^3) (1 + e^eps) + delta2.

    The condition on delta2 is eps <= 1, so solving the first line for
    delta2 = 1.25 exp(-eps^2 n mu2 / 2) gives delta as a function of eps in
    (0, 1]; beyond (and where mu2 = 0) the proposition gives nothing and the
    returned delta is 1, as it is wherever the formula exceeds 1.  The
    statement is transcribed from Prop. 27 of Desfontaines' thesis "Lowering
    the cost of anonymization" (ETH Zurich, 2020), which restates the
    paper's Prop. 7; the power of mu2 is 3 there (a Berry-Esseen ratio
    would have mu2^(3/2): mu2^3 is the larger, more cautious term).

    pi are the probabilities of the records the attacker does not know,
    the target excluded (the records whose count hides the target), as in
    ``statpriv.counting(None, pi)``, whose curve is the exact delta of the
    same configuration.

    Not always an upper bound.  The mu3 above is |E (X - pi)^3|, not the
    third absolute moment E |X - pi|^3 = pi (1 - pi) (pi^2 + (1 - pi)^2) that
    the Berry-Esseen theorem needs: it vanishes at pi_j = 1/2, and where
    every pi_j = 1/2 the formula is the Gaussian mechanism's delta alone,
    below the exact curve at larger eps (999 records at 1/2, eps = 1:
    7.32e-55 against the exact 1.29e-52; tests/test_partial_knowledge.py).
    In the paper's two configurations (one record at p, the others at 1/2;
    pi_j spread evenly over [p, 1 - p]) it lies above the exact curve.

    Parameters
    ----------
    pi : 1-D array of floats in [0, 1], at least one
        The unknown records' probabilities (the target excluded).
    eps : float or array of floats > 0
        Where to evaluate.

    Returns
    -------
    float or numpy.ndarray
        delta (1 where the proposition gives no guarantee).

    Examples
    --------
    >>> import statpriv
    >>> from statpriv.partial_knowledge import ghosh_kleinberg_delta
    >>> pis = [0.1] + [0.5] * 998
    >>> f"{ghosh_kleinberg_delta(pis, 0.5):.4g} {statpriv.counting(None, pis).delta(0.5):.4g}"
    '0.0004338 3.745e-17'
    """
    probs = _validate.real_array("pi", pi, low=0.0, high=1.0, dims=(1,))
    if probs.size == 0:
        raise ValueError("pi must hold at least one record's probability, got none")
    arr = _validate.real_array("eps", eps, low=0.0, low_open=True)
    n = float(probs.size)
    spread = probs * (1.0 - probs)
    mu2 = float(np.mean(spread))
    mu3 = float(np.mean(spread * np.abs(1.0 - 2.0 * probs)))
    if mu2 == 0.0:
        delta = np.ones(arr.shape)
    else:
        gaussian = _GK_GAUSSIAN * np.exp(-arr * arr * n * mu2 / 2.0)
        berry_esseen = _GK_BERRY_ESSEEN * mu3 / (math.sqrt(n) * mu2 ** 3) * (1.0 + np.exp(arr))
        delta = np.where(arr <= 1.0, np.minimum(1.0, berry_esseen + gaussian), 1.0)
    return float(delta) if delta.ndim == 0 else delta
