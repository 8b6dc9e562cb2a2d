"""The pair of laws (P, Q) behind a curve, and its noiseless curve.

Every count mechanism reduces to two laws on consecutive integer atoms, P
(the target record has the property, or is in) and Q (it has not, or is out),
with delta_plus(eps) = H_eps(P||Q) and delta_minus(eps) = H_eps(Q||P)
(Breutigam & Reischuk, "Statistical Privacy", Thm 4.2).  ``Laws`` is that
pair as one immutable value -- log pmfs in extended precision, the accurate
log ratio with its low parts, the exact generating-function ratio of the
tails, and the bounded rest of a window -- shared by the pair kernel, by
``from_log_pmfs``, by ``PrivacyCurve.log_pmfs()`` and by the privacy-loss
distribution.  ``pair_curve`` wraps laws as a PrivacyCurve, with noise
(``noise.curve(laws, ...)``, each kind's strategy) or without.
"""
import collections
import copy
import dataclasses
import math
from typing import Any, Callable, Optional, cast

import numpy as np

from statpriv import _lazy
from statpriv.curve import PrivacyCurve
from statpriv.laws import pld

_core = _lazy.module("statpriv._core")            # scipy.special: loaded on first use

__all__ = ["DeltaOnly", "LawSource", "Laws", "LazyLaws", "LogPmfs", "TwoPairLaws",
           "exactly_subsampled", "pair_core", "pair_curve", "subsampled_laws"]


class LogPmfs(collections.namedtuple(
        "LogPmfs", "support_start log_p log_q log_rest_p log_rest_q")):
    """The discrete laws behind a curve (``PrivacyCurve.log_pmfs()``).

    Attributes
    ----------
    support_start : int
        The atom (integer outcome) of index 0 of the arrays.
    log_p, log_q : numpy.ndarray of float64 (read-only)
        ln P(x) and ln Q(x) on x = support_start, support_start + 1, ...
        (-inf where an atom has no mass); for ``from_log_pmfs`` curves the
        arrays as given (the curve normalises them, see there).
    log_rest_p, log_rest_q : float
        ln of an upper bound on the P and Q mass outside the arrays: -inf
        when the arrays hold the whole laws.  Curves of large counts work on a
        window of the laws (the atoms whose mass matters); the rest is bounded
        by these and added to delta, never dropped.
    """
    __slots__ = ()


class LawSource:
    """What a curve knows of its pair of laws (``PrivacyCurve(..., laws=...)``).

    The curve asks its laws for ``log_pmfs()`` (where ``has_log_pmfs``), for
    ``privacy_loss_distribution(h, tail_mass_truncation, description)``, and,
    where a kind defines them, for a closed-form ``renyi(alpha, direction)``
    and a native dp-accounting PLD ``dp_accounting_pld(h)``.  The base
    supplies the defaults: no atoms, no PLD."""

    has_log_pmfs = False

    def log_pmfs(self) -> Any:
        raise ValueError("no discrete laws are available for this curve (noisy, sampled or "
                         "continuous mechanisms)")

    def privacy_loss_distribution(self, value_discretization_interval: Any = None,
                                  tail_mass_truncation: Any = None,
                                  description: Any = None) -> None:
        raise ValueError(f"{description}: no privacy-loss distribution is available for this "
                         "curve (counts with Laplace or Gaussian noise, labelled approximations)")

    def subsample(self, sampling_prob: Any, sampling: Any, core: Any = None) -> Any:
        """The laws of the pair under sampling (PrivacyCurve.subsample): exact
        discrete laws from ``log_pmfs()`` (subsampled_laws) where this source
        has atoms, else DeltaOnly (the sampled curve is known by its delta,
        and its certified interval where this source has one; a source known
        through delta overrides this with the sampled ``core``'s
        connect-the-dots laws)."""
        if not self.has_log_pmfs:
            return DeltaOnly()
        return subsampled_laws(self.log_pmfs(), sampling_prob, sampling)

    def exact_core(self) -> Any:
        """The compiled evaluator of these laws where a curve built from them
        (PrivacyCurve.subsample) should evaluate them directly rather than
        reduce its parent's delta: laws whose log ratios are exact
        (Laws.exact_ratio); None otherwise (the default)."""
        return None

    # () -> the pair in Arb (see certified_laws), or None
    certified: Optional[Callable[[], Any]] = None

    def certified_laws(self) -> Any:
        """The pair in Arb ball arithmetic for ``PrivacyCurve.delta_interval``
        (a statpriv.oracle.arb law: ``ArbWindowLaws`` or ``ArbClosedForm``,
        built from the mechanism's parameters): ``certified()``, or None
        where the kind has none (the default)."""
        return None if self.certified is None else self.certified()

    def with_certified(self, certified: Optional[Callable[[], Any]]) -> Any:
        """A shallow copy whose ``certified`` is this (() -> the Arb laws)."""
        new = copy.copy(self)
        new.certified = certified
        return new


class DeltaOnly(LawSource):
    """The laws of a curve known through its delta -- and its certified
    interval, where ``certified`` is set -- only: one end of a bracket
    (k_anonymity's lower curve) or a worst case over pairs that is no pair
    of laws (correlated_counts without a target).  No privacy-loss
    distribution, and no composition (``composable`` False)."""

    composable = False

    def privacy_loss_distribution(self, value_discretization_interval: Any = None,
                                  tail_mass_truncation: Any = None,
                                  description: Any = None) -> None:
        raise ValueError(f"{description}: no privacy-loss distribution is available for this "
                         "curve: it is known through its delta only (one end of a bracket, or "
                         "a worst case over pairs); it cannot be composed")


@dataclasses.dataclass(frozen=True, eq=False)
class Laws(LawSource):
    """A pair of laws on consecutive atoms: the value every pair curve is built from.

    Attributes
    ----------
    log_p, log_q : arrays (float64 or long double)
        ln P and ln Q on the atoms (-inf where a law has no mass).
    log_ratio : array or None
        ln P/Q on the atoms, from a closed form where the mechanism has one
        (-inf where P = 0, +inf where Q = 0); None: ln P - ln Q.
    monotone_ratio : bool
        P is Q shifted by one atom of a log-concave law (no sampling), so
        the ratio is non-decreasing and the noise kernels keep it monotone.
    log_ratio_lo : array or None
        Low parts: ln P/Q = log_ratio + log_ratio_lo to ~1e-30 on the cells
        where a closed form was evaluated in higher precision.
    tail_ratio : callable or None
        w -> G_P(w) / G_Q(w) as an mpmath number: the ratio of the laws'
        generating functions sum_k P(k) w^k, exactly (from the definitions,
        not from the arrays).  With Laplace(b) noise the noisy ratio beyond
        the last atom is this at w = e^(1/b) (before the first: w = e^(-1/b)),
        with geometric(alpha) noise at w = 1/alpha (alpha): the exact zero
        points of these monotone-ratio laws.
    log_rest_p, log_rest_q : float
        ln of bounds on the P and Q mass the arrays leave out (-inf when they
        hold the full laws; else they are sub-measures on a window).
    log_ratio_max, log_ratio_min : float
        log_ratio_max >= ln P/Q >= log_ratio_min over the FULL support
        (rounded outward from the closed form at the true extreme atoms: the
        exact zero points; +-inf if unbounded or unknown).
    start : int or None
        The integer outcome of index 0 (None: the atoms are not outcomes in
        order, e.g. sorted by ratio).
    given : LogPmfs or None
        The laws as the caller gave them (from_log_pmfs), returned by
        ``log_pmfs()`` instead of these arrays.
    exact_ratio : bool
        log_ratio + log_ratio_lo is ln P/Q from the definition (a closed
        form, or the exact inputs), refined at the zero points and wherever
        its rounding matters: a sampled pair's ratios are formed from it
        (``subsample``) and that pair's curve evaluates its own atoms.
    certified : callable or None
        () -> the mechanism's pair in Arb (statpriv.oracle.arb), for
        ``PrivacyCurve.delta_interval``; set by ``pair_curve(...,
        certified=...)`` on a noiseless curve, dropped by ``replace``.
    log_ratio_exact : bool
        log_ratio + log_ratio_lo is ln P/Q exactly on every atom (randomized
        response's +-eps0 and 0), so the privacy-loss distribution's losses
        carry no rounding error (PLDSide.losses_exact); kept by ``live`` and
        ``with_cut`` (which only slice), dropped by ``replace`` otherwise.
    """

    log_p: np.ndarray
    log_q: np.ndarray
    log_ratio: Optional[np.ndarray]
    monotone_ratio: bool = False
    log_ratio_lo: Optional[np.ndarray] = None
    tail_ratio: Optional[Callable[..., Any]] = None
    log_rest_p: float = -math.inf
    log_rest_q: float = -math.inf
    log_ratio_max: float = math.inf
    log_ratio_min: float = -math.inf
    start: Optional[int] = None
    given: Optional[LogPmfs] = None
    certified: Optional[Callable[[], Any]] = None
    exact_ratio: bool = False
    log_ratio_exact: bool = False

    def replace(self, **changes: Any) -> Any:
        """A copy with the given fields changed (dataclasses.replace).  The copy
        keeps ``certified`` and ``log_ratio_exact`` only when the change names
        them: Arb laws describe the mechanism's exact pair, and exact log
        ratios the atoms they came with, not laws derived from these atoms."""
        changes.setdefault("certified", None)
        changes.setdefault("log_ratio_exact", False)
        return dataclasses.replace(self, **changes)

    def with_certified(self, certified: Optional[Callable[[], Any]]) -> Any:
        return self.replace(certified=certified, log_ratio_exact=self.log_ratio_exact)

    @property
    def windowed(self) -> Any:
        """True when the arrays leave mass out (a window, trimmed atoms)."""
        return self.log_rest_p > -math.inf or self.log_rest_q > -math.inf

    def live(self) -> Any:
        """The laws on the atoms from the first to the last where P or Q > 0."""
        live = np.flatnonzero(np.isfinite(self.log_p) | np.isfinite(self.log_q))
        sl = slice(live[0], live[-1] + 1)
        lr = None if self.log_ratio is None else self.log_ratio[sl]
        if lr is not None and np.isnan(lr).any():
            raise RuntimeError("statpriv internal error: the support of P and Q is not contiguous "
                               "(an atom where both laws vanish inside it); please report")
        return self.replace(log_p=self.log_p[sl], log_q=self.log_q[sl], log_ratio=lr,
                            log_ratio_lo=None if self.log_ratio_lo is None
                            else self.log_ratio_lo[sl],
                            start=None if self.start is None else self.start + sl.start,
                            log_ratio_exact=self.log_ratio_exact)

    def with_cut(self, sl: Any, cut_p: Any, cut_q: Any) -> Any:
        """The laws on the atoms ``sl``, the P and Q mass cut off (ln) added to the rests."""
        return self.replace(
            log_p=self.log_p[sl], log_q=self.log_q[sl],
            log_ratio=None if self.log_ratio is None else self.log_ratio[sl],
            log_ratio_lo=None if self.log_ratio_lo is None else self.log_ratio_lo[sl],
            log_rest_p=float(np.logaddexp(self.log_rest_p, cut_p)),
            log_rest_q=float(np.logaddexp(self.log_rest_q, cut_q)),
            log_ratio_exact=self.log_ratio_exact)

    # -- what a curve asks its laws -------------------------------------------
    @property
    def has_log_pmfs(self) -> bool:  # type: ignore[override]  # LawSource's: a class attribute
        return self.given is not None or self.start is not None

    def log_pmfs(self) -> Any:
        """LogPmfs: the arrays as given, or float64 copies of these atoms."""
        if self.given is not None:
            return self.given
        if self.start is None:
            return super().log_pmfs()
        a, b = np.array(self.log_p, dtype=np.float64), np.array(self.log_q, dtype=np.float64)
        a.flags.writeable = False
        b.flags.writeable = False
        return LogPmfs(int(self.start), a, b, float(self.log_rest_p), float(self.log_rest_q))

    def privacy_loss_distribution(self, value_discretization_interval: Any = None,
                                  tail_mass_truncation: Any = None, description: Any = None) -> Any:
        """The exact PLD of these atoms (statpriv.laws.pld.from_laws)."""
        return pld.from_laws(self, description)

    def subsample(self, sampling_prob: Any, sampling: Any, core: Any = None) -> Any:
        """The sampled laws (LawSource.subsample); with exact ratios on all
        the atoms (no window) and 0 < q, the sampled pair's ratios formed
        from these (exactly_subsampled)."""
        if not self.exact_ratio or self.windowed or not sampling_prob > 0.0:
            return super().subsample(sampling_prob, sampling, core)
        return exactly_subsampled(self, sampling_prob, sampling)

    def exact_core(self) -> Any:
        """pair_core of these laws where their ratios are exact, else None."""
        return pair_core(self) if self.exact_ratio else None


class LazyLaws(LawSource):
    """Laws built on first use, each time (nothing is cached on the curve):
    ``build()`` returns the Laws; ``log_pmfs`` says whether the curve
    promises its atoms (``PrivacyCurve.log_pmfs()``)."""

    def __init__(self, build: Any, *, log_pmfs: Any = False) -> None:
        self._build = build
        self.has_log_pmfs = bool(log_pmfs)

    def laws(self) -> Any:
        """The Laws value, built now."""
        return self._build()

    def log_pmfs(self) -> Any:
        if not self.has_log_pmfs:
            return super().log_pmfs()
        return self.laws().live().log_pmfs()

    def privacy_loss_distribution(self, value_discretization_interval: Any = None,
                                  tail_mass_truncation: Any = None, description: Any = None) -> Any:
        return pld.from_laws(self.laws(), description)


class TwoPairLaws(LawSource):
    """Each direction from its own pair of laws: delta_plus = H(P1 || Q1)
    (the plus side of ``plus``) and delta_minus = H(Q2 || P2) (the minus side
    of ``minus``), as sampling without replacement under replace-one gives
    (subsampled_laws): the exact PLD of both sides, no atoms of one pair."""

    def __init__(self, plus: Any, minus: Any) -> None:
        self.plus, self.minus = plus, minus

    def exact_core(self) -> Any:
        """Each direction from its own pair's exact core (None unless both
        pairs have exact ratios)."""
        plus, minus = self.plus.exact_core(), self.minus.exact_core()
        if plus is None or minus is None:
            return None
        return _core.DirectionsCurveCore(plus, minus)

    def privacy_loss_distribution(self, value_discretization_interval: Any = None,
                                  tail_mass_truncation: Any = None, description: Any = None) -> Any:
        plus = pld.from_laws(self.plus, description).plus
        minus = pld.from_laws(self.minus, description).minus
        return pld.PrivacyLossDistribution(plus, minus, exact=True,
                                           description=description or "privacy-loss distribution")


def subsampled_laws(log_pmfs: Any, q: Any, sampling: Any) -> Any:
    """The laws of the pair (P, Q) of ``log_pmfs`` (LogPmfs) sampled at rate
    0 < q < 1 (Balle, Barthe & Gaboardi, "Privacy amplification by
    subsampling"; Zhu, Dong & Wang, "Optimal accounting of differential
    privacy via characteristic function"):

    "poisson" (add/remove: P the target in, Q out): the one pair
    (q P + (1-q) Q, Q), a Laws value on the same atoms;
    "without_replacement" (replace-one): each direction its own pair,
    (q P + (1-q) Q, Q) for delta_plus and (q Q + (1-q) P, P) for
    delta_minus (TwoPairLaws).  The rests of a window mix alike; their
    losses are unbounded (counted at +inf: never below the true delta)."""
    from statpriv.laws.mixture import sampled_pair
    ld = np.longdouble
    with np.errstate(divide="ignore"):              # q = 0: ln q = -inf
        lq_w, l1q_w = float(np.log(ld(q))), float(np.log1p(-ld(q)))

    def mixed(lp: Any, lq: Any, rest_p: Any, rest_q: Any) -> Any:
        log_a, log_b, lr = sampled_pair(lp, lq, q)
        rest_a = float(np.logaddexp(lq_w + rest_p, l1q_w + rest_q))
        return Laws(log_a, log_b, lr, log_rest_p=rest_a, log_rest_q=float(rest_q),
                    start=log_pmfs.support_start)

    lp, lq = log_pmfs.log_p, log_pmfs.log_q
    forward = mixed(lp, lq, log_pmfs.log_rest_p, log_pmfs.log_rest_q)
    if sampling == "poisson":
        return forward
    back = mixed(lq, lp, log_pmfs.log_rest_q, log_pmfs.log_rest_p)
    # (P, q Q + (1-q) P): its minus side is H(q Q + (1-q) P || P)
    reverse = Laws(back.log_q, back.log_p, -back.log_ratio, log_rest_p=back.log_rest_q,
                   log_rest_q=back.log_rest_p, start=back.start)
    return TwoPairLaws(forward, reverse)


def exactly_subsampled(laws: Any, q: Any, sampling: Any) -> Any:
    """subsampled_laws of Laws with exact ratios and no window, 0 < q < 1:
    the same pairs on the same atoms (in the order of ``laws``), their log
    ratios ln(1 - q + q e^L) formed from the parent's exact L
    (statpriv.laws.mixture.exact_sampled_pair: the sampled zero points are
    then exact, not an ulp of the mixture's rounded logs off), exact_ratio
    set.  ``log_pmfs()`` keeps subsampled_laws' arrays (the parent's as
    given, mixed)."""
    from statpriv.laws.mixture import exact_sampled_pair
    lr_lo = laws.log_ratio_lo
    log_a, log_b, lr, lo = exact_sampled_pair(laws.log_p, laws.log_q, laws.log_ratio, lr_lo, q)
    given = subsampled_laws(laws.log_pmfs(), q, "poisson").log_pmfs() if laws.has_log_pmfs \
        else None
    forward = Laws(log_a, log_b, lr, False, lo, start=laws.start, given=given, exact_ratio=True)
    if sampling == "poisson":
        return forward
    # without replacement, delta_minus = H(q Q + (1-q) P || P): the sampled
    # pair of (Q, P), whose ratio is -L, held as (P, q Q + (1-q) P) so that
    # its minus side is that divergence and its ratio ascends with L
    back_lo = None if lr_lo is None else -lr_lo
    log_c, log_d, lr_back, lo_back = exact_sampled_pair(laws.log_q, laws.log_p, -laws.log_ratio,
                                                        back_lo, q)
    reverse = Laws(log_d, log_c, -lr_back, False, -lo_back, start=laws.start, exact_ratio=True)
    return TwoPairLaws(forward, reverse)


def pair_core(laws: Any) -> Any:
    """The noiseless C evaluator of live laws: the pair kernel on the arrays,
    and with a window (laws.windowed) the curve delta_window(eps) + rest_p
    (1 - e^(eps - log_ratio_max))_+ (rest_q (1 - e^(eps + log_ratio_min))_+
    for delta_minus; rest_p + rest_q for eps < 0), which is never below the
    true curve and equals it to 1e-12 relative wherever delta >= 1e12 rest
    (bounded.h); delta_plus is exactly 0 from the float log_ratio_max on (the
    true sup ln P/Q rounded up), delta_minus from -log_ratio_min; where that
    is +inf, delta(+inf) keeps the rest (it may be mass where the other law
    vanishes)."""
    core = _core.PairCurveCore(laws.log_p, laws.log_q, laws.log_ratio, lr_lo=laws.log_ratio_lo)
    if laws.windowed:
        core = _core.BoundedCurveCore(core, laws.log_rest_p, laws.log_rest_q,
                                      laws.log_ratio_max, laws.log_ratio_min,
                                      laws.log_ratio_max, -laws.log_ratio_min, discrete=True)
    return core


def pair_curve(laws: Any, reference: Any, description: Any, noise: Any = None, *,
               certified: Optional[Callable[[], Any]] = None) -> PrivacyCurve:
    """The PrivacyCurve of count laws, plus ``noise`` if given (its strategy:
    ``noise.curve``), on the atoms where either law has mass.  ``certified``:
    () -> the same laws in Arb (statpriv.oracle.arb) from the mechanism's
    parameters (Laws.certified; with noise, the noise's certified_noise()
    is added to them)."""
    laws = laws.live()
    if noise is not None:
        return cast(PrivacyCurve, noise.curve(laws, reference, description,
                                              certified=certified))
    return PrivacyCurve(pair_core(laws), reference, description,
                        laws=laws.with_certified(certified))
