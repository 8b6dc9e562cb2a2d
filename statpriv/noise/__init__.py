"""Additive noise for counts, in count units with sensitivity 1 (docs/mathematics.md §6).

A noise object describes the distribution and is the strategy of everything
that depends on it: ``statpriv.counting(..., noise=...)`` hands the count's
laws to ``noise.curve(laws, ...)``, which trims them once where the kind needs
it, builds the kind's exact evaluator and bounds what was cut; the same object
owns the kind's worst-case DP facts -- ``dp_curve()`` (the special case
without data randomness), the zero point, the closed-form Renyi divergence,
the DP privacy-loss distribution and dp-accounting's own PLD of the mechanism
-- so generic code calls methods and never asks which kind it holds.
Breutigam & Reischuk measure noise in fraction units: a fraction-unit scale
psi is psi * n here.

One module per kind (laplace, gaussian, geometric) holds its class; _cells
holds the cell pipeline the linear-scale kinds share.  NOISE_KINDS, below, is
the one table of the kinds: the command line, statpriv.interval and
statpriv.utility read it.  A new kind is one module with a ``Noise``
subclass plus one entry in that table (and its C cells and oracle branch;
docs/architecture.md walks through it).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional, Tuple, Type, cast

import numpy as np
from numpy.typing import NDArray

from statpriv import _lazy
from statpriv.curve import PrivacyCurve
from statpriv.curve.recipe import factory
from statpriv.laws import LawSource, grid_pld, windows
from statpriv.laws import renyi as _renyi
from statpriv.noise import _cells

__all__ = ["DPPair", "NOISE_KINDS", "Gaussian", "Geometric", "Laplace", "Noise",
           "SampledDPPair"]

_core = _lazy.module("statpriv._core")            # scipy.special: loaded on first use
_noise_kernels = _lazy.module("statpriv.noise._kernels")


class Noise:
    """Base class: ``kind`` names the family, ``param`` its one parameter.

    Noise objects are immutable (like the curves built from them): ``param``
    and the named parameter (``scale``, ``sigma``, ``alpha``) are read-only,
    so a curve can never see a parameter that was not validated.  Equal
    objects hash equal; build a new object for a new parameter.

    A kind sets ``kind``, ``param_name`` (the name of its parameter, a
    read-only property alike), ``pure_dp`` (True if the noise alone is
    (eps, 0)-DP for some eps: statpriv.interval asks for a delta for the
    other kinds), ``_variance_factor`` (variance / param^2 where that is a
    constant, else None: statpriv.utility's equal-utility noise), and
    ``_tail_w`` (None, or mpf p -> w: beyond the last atom the noisy
    densities' ratio is G_P(w)/G_Q(w) of the count laws' generating
    functions, before the first G_P(1/w)/G_Q(1/w) -- the exact zero points:
    e^(1/b) for Laplace(b), 1/alpha for geometric), and implements:

    _core(laws) : the C evaluator of (trimmed, live) count laws plus this noise;
    _trim(laws) : the laws the evaluator takes (default: the atoms within
        DROP_NATS of the largest, the cut mass added to the rests);
    zero_point_up() : the smallest float >= sup |ln f_P/f_Q| of any count
        plus this noise (inf if none);
    dp_core(), _dp_reference() : the worst-case DP curve's C evaluator and
        mpmath brute force;
    dp_renyi(alpha), dp_renyi_orders(alphas), dp_privacy_loss_distribution(h,
    tail), dp_accounting_pld(h, sensitivity), dp_loss_span() : its DP facts;
    _dp_sampled_curve(...) : the Poisson-subsampled mechanism (noise._sampled);
    _interval_epsilon / _interval_confidence / _interval_width /
    _interval_noise : the per-kind formulas of statpriv.interval;
    optionally certified_dp_laws(), certified_noise() : the worst-case pair
    and the noise itself in Arb (statpriv.oracle.arb), for delta_interval.
    """

    __slots__ = ("_param",)
    if TYPE_CHECKING:
        # what every kind implements (see above), for the type checker only
        _param: float

        def dp_core(self) -> Any: ...

        def _dp_reference(self) -> Callable[[Any], Any]: ...

        def dp_renyi(self, alpha: float) -> float: ...

        @property
        def variance(self) -> float: ...
    kind: Optional[str] = None
    param_name: Optional[str] = None
    pure_dp = False
    _tail_w: Any = None
    _variance_factor: Optional[float] = None

    def __init__(self, param: float) -> None:
        if self.kind is None:
            raise TypeError(f"Noise is abstract: use {kinds_text()}")
        object.__setattr__(self, "_param", float(param))

    @property
    def param(self) -> float:
        """The kind's one parameter (``scale``, ``sigma`` or ``alpha``), read-only."""
        return self._param

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} objects are immutable: "
                             f"build a new one instead of setting {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} objects are immutable")

    def certified_dp_laws(self) -> Any:
        """The worst-case DP pair N against N + 1 in Arb (a closed form of
        statpriv.oracle.arb, for PrivacyCurve.delta_interval), or None: the
        kind has none (the default)."""
        return None

    def certified_lumped_dp_laws(self, shift: int, sampling_prob: float, relation: str) -> Any:
        """The lumped discrete pair of the DP curve at an integer ``shift``,
        Poisson-sampled at ``sampling_prob`` (1: not sampled) under
        ``relation``, in Arb; None: the kind has none (the default)."""
        return None

    def certified_noise(self) -> Any:
        """This noise in Arb (a statpriv.oracle.arb.ArbNoise: the hockey-stick
        divergence of counts plus it, for PrivacyCurve.delta_interval), or
        None: the kind has none (the default)."""
        return None

    def __reduce__(self) -> Tuple[Type[Noise], Tuple[float]]:
        return type(self), (self._param,)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._param!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Noise):
            return NotImplemented
        return type(self) is type(other) and self._param == other._param

    def __hash__(self) -> int:
        return hash((self.kind, self._param))

    # -- a count plus this noise -----------------------------------------------
    def window_drop(self) -> Optional[float]:
        """Atoms more than this many nats below the largest are cut before the
        noise is added (the cells scale atoms linearly), or None (every atom
        is kept): a window may be cut there up front."""
        return windows.DROP_NATS

    def _trim(self, laws: Any) -> Any:
        return _cells.trim(laws)

    def _core(self, laws: Any) -> Any:
        raise ValueError(f"noise must be {kinds_text()}, got {self!r}")

    def _release_laws(self, laws: Any, zero_plus: Any, zero_minus: Any) -> Any:
        """What the noisy curve knows of its laws (PrivacyCurve's ``laws``)
        beyond its delta: nothing by default (the noisy outcomes are
        continuous; the curve then gets the connect-the-dots PLDs of its own
        delta, statpriv.laws.grid_pld.DeltaLaws)."""
        return None

    def curve(self, laws: Any, reference: Any, description: Any, *,
              certified: Optional[Callable[[], Any]] = None) -> Any:
        """The curve of count laws (statpriv.laws.Laws, live atoms) plus this noise:
        H_eps(P*N || Q*N).  The laws are trimmed once (``_trim``); with a
        window the mass left out is added to delta (BoundedCurveCore), and
        delta is 0 from the zero points on: the laws' bounds on ln P/Q (a
        noisy density is a mixture of the atoms' pairs) and the noise's own
        (``zero_points``).  ``certified``: () -> the count's laws in Arb
        (statpriv.oracle.arb); with this kind's ``certified_noise()`` they
        make the curve's certified laws (delta_interval)."""
        ld = np.longdouble
        laws = self._trim(laws.replace(log_p=np.asarray(laws.log_p, dtype=ld),
                                       log_q=np.asarray(laws.log_q, dtype=ld)))
        core = self._core(laws)
        zero_plus, zero_minus = laws.log_ratio_max, -laws.log_ratio_min
        if laws.windowed:
            noise_plus, noise_minus = self.zero_points(laws.tail_ratio)
            zero_plus, zero_minus = min(zero_plus, noise_plus), min(zero_minus, noise_minus)
            core = _core.BoundedCurveCore(core, laws.log_rest_p, laws.log_rest_q, math.inf,
                                          -math.inf, zero_plus, zero_minus)
        released = self._release_laws(laws, zero_plus, zero_minus)
        source = grid_pld.DeltaLaws(core) if released is None else released
        if certified is not None and self.certified_noise() is not None:
            count_laws = certified

            def noisy() -> Any:
                from statpriv.oracle import arb
                return arb.NoisyCount(count_laws(), self.certified_noise())
            source = source.with_certified(noisy)
        return PrivacyCurve(core, reference, f"{description}, noise={self!r}", laws=source)

    def zero_point_up(self) -> float:
        """The smallest float >= the largest ``|ln f_P/f_Q|`` of any count plus
        this noise (Breutigam & Reischuk Lemma 5): delta is 0 from there on;
        inf for noise that is not pure DP."""
        return math.inf

    def zero_points(self, tail_ratio: Optional[Callable[[Any], Any]] = None) -> Tuple[float, float]:
        """(zero_plus, zero_minus): floats at or above sup ln f_P/f_Q (resp.
        f_Q/f_P) of the FULL count laws plus this noise, whatever was cut:
        the exact ln G_P(w)/G_Q(w) rounded up where the generating-function
        ratio is known (``tail_ratio``; w from ``_tail_w``), else the pure-DP
        bound zero_point_up(); inf for noise without one (Gaussian)."""
        if self._tail_w is None:
            return math.inf, math.inf
        bound = self.zero_point_up()
        if tail_ratio is None:
            return bound, bound
        import mpmath
        from statpriv._xprec import float_up
        with mpmath.workdps(40):
            w = self._tail_w(mpmath.mpf(self.param))
            plus = float_up(mpmath.log(tail_ratio(w)))
            minus = float_up(-mpmath.log(tail_ratio(1 / w)))
        return min(plus, bound), min(minus, bound)

    # -- worst-case DP: the noise alone, N against N + 1 ------------------------
    @factory
    def dp_curve(self) -> PrivacyCurve:
        """The worst-case DP curve of this noise (sensitivity 1).

        Returns
        -------
        PrivacyCurve
            The same curve as ``statpriv.dp.laplace(scale)``,
            ``statpriv.dp.gaussian(sigma)`` or ``statpriv.dp.geometric(alpha)``.

        Examples
        --------
        >>> import statpriv
        >>> print(f"{statpriv.Gaussian(3.0).dp_curve().delta(0.01):.6f}")
        0.128067
        >>> statpriv.Geometric(0.5).dp_curve().epsilon(0.0)      # -ln 0.5: pure DP
        0.6931471805599454
        """
        return self._dp_curve(f"DP {self.kind} {self.param_name}={self.param}")

    def _dp_curve(self, description: Any) -> PrivacyCurve:
        reference = self._dp_reference()
        return PrivacyCurve(self.dp_core(), lambda eps, direction: reference(eps),
                            description, laws=DPPair(self))

    def dp_privacy_loss_distribution(self, value_discretization_interval: Any,
                                     tail_mass_truncation: Any) -> Any:
        """The worst-case DP curve's PLD on the grid h Z: pessimistic
        connect-the-dots of its closed-form delta (both directions alike),
        with the optimistic one as its ``optimistic`` (statpriv.laws.grid_pld);
        a kind with exact atoms overrides it."""
        return self.dp_grid_bracket(value_discretization_interval, tail_mass_truncation).pld()

    def dp_grid_bracket(self, value_discretization_interval: Any, tail_mass_truncation: Any) -> Any:
        """The Bracket on h Z of the worst-case DP curve (statpriv.laws.grid_pld)."""
        return grid_pld.curve_bracket(self.dp_core(), value_discretization_interval,
                                      tail_mass_truncation,
                                      f"DP {self.kind} {self.param_name}={self.param}",
                                      symmetric=True,
                                      seconds_per_point=grid_pld.CLOSED_FORM_SECONDS)

    def dp_loss_span(self) -> float:
        """The width of the losses dp-accounting's PLD of the mechanism spans
        (its grid needs about span / h bins); 0 where it is a few atoms."""
        return 0.0

    def dp_renyi_orders(self, alphas: NDArray[np.float64]) -> NDArray[np.float64]:
        """D_alpha of the worst-case DP pair at every order of a float64
        array, in one C call (csrc/dp_renyi.h), each value the one
        ``dp_renyi`` gives, bit for bit: the C value is the correctly rounded
        one where its error bound proves it, and the few orders it cannot
        prove (about one in ten) are computed by dp_renyi in mpmath."""
        out, certain = _noise_kernels.dp_renyi(self.kind, alphas, self.param)
        for i in np.flatnonzero(~certain):
            out[i] = self.dp_renyi(float(alphas[i]))
        return cast(NDArray[np.float64], out)

    def _dp_sampled_curve(self, sensitivity: Any, sampling_prob: Any, relation: Any,
                          description: Any) -> PrivacyCurve:
        """The mechanism with Poisson subsampling at rate sampling_prob under
        ``relation`` (statpriv.noise._sampled)."""
        from statpriv.noise import _sampled
        return cast(PrivacyCurve, _sampled.sampled_curve(self, sensitivity, sampling_prob, relation,
                                                         description))

    def _dp_sampled_pair(self, sensitivity: Any, sampling_prob: Any, relation: Any) -> Any:
        """(C evaluator, laws) of the sampled mechanism, 0 < sampling_prob < 1:
        for continuous noise the reduction of dp_core or the replace-one
        closed forms (statpriv.noise._sampled.continuous_pair)."""
        from statpriv.noise import _sampled
        return _sampled.continuous_pair(self, sensitivity, sampling_prob, relation)

    def dp_accounting_sampled_pld(self, value_discretization_interval: Any, sensitivity: Any,
                                  sampling_prob: Any, relation: Any) -> Any:
        """dp-accounting's own PLD of the sampled mechanism, or None where it
        has none (then the export takes the curve's delta)."""
        return None


class DPPair(LawSource):
    """The laws of a worst-case DP curve: noise N against N + sensitivity.

    What the curve knows of them (PrivacyCurve's ``laws``): the noise kind's
    closed-form Renyi divergence and DP privacy-loss distribution, and
    dp-accounting's own PLD of the mechanism (the export's native route) --
    or, where the pair is given as discrete ``laws`` (dp.geometric at an
    integer sensitivity > 1: the lumped atoms; sampled dp.geometric), the
    exact PLD and Renyi divergence of those.  ``native_export`` False keeps
    the export on the curve's own delta (connect-the-dots): a labelled
    approximation that is not dp-accounting's mechanism.

    ``sampling_prob`` (None: no sampling) and ``relation`` ("add_remove",
    "replace_one") say which mechanism the pair is: statpriv.dp's
    ``sampling_prob=`` / ``relation=`` (statpriv.noise._sampled).  A sampled
    pair of continuous noise is a ``SampledDPPair``: no closed-form Renyi
    divergence and no exact PLD, its curve known through its exact delta."""

    def __init__(self, noise: Any, sensitivity: Any = 1, *, laws: Any = None,
                 native_export: Any = True, sampling_prob: Any = None,
                 relation: Any = "add_remove") -> None:
        self.noise, self.sensitivity, self.laws = noise, sensitivity, laws
        self.native_export = bool(native_export)
        self.sampling_prob, self.relation = sampling_prob, relation

    @property
    def has_log_pmfs(self) -> bool:  # type: ignore[override]  # LawSource's: a class attribute
        return self.laws is not None and self.laws.has_log_pmfs

    def log_pmfs(self) -> Any:
        return super().log_pmfs() if self.laws is None else self.laws.log_pmfs()

    def privacy_loss_distribution(self, value_discretization_interval: Any = 1e-4,
                                  tail_mass_truncation: Any = 1e-15,
                                  description: Any = None) -> Any:
        if self.laws is not None:
            return self.laws.privacy_loss_distribution(value_discretization_interval,
                                                       tail_mass_truncation, description)
        return self.noise.dp_privacy_loss_distribution(value_discretization_interval,
                                                       tail_mass_truncation)

    def grid_bracket(self, value_discretization_interval: Any, tail_mass_truncation: Any,
                     description: Any = None) -> Any:
        """The Bracket on h Z that a composition multiplies: the noise kind's
        connect-the-dots bracket, or that of the exact PLD of the given laws."""
        h, tail = value_discretization_interval, tail_mass_truncation
        if self.laws is not None or type(self.noise).dp_privacy_loss_distribution is not \
                Noise.dp_privacy_loss_distribution:
            return grid_pld.grid_bracket(self.privacy_loss_distribution(h, tail, description),
                                         h, tail, description)
        return self.noise.dp_grid_bracket(h, tail)

    def certified_laws(self) -> Any:
        """The kind's Arb closed form (Noise.certified_dp_laws) of the unsampled
        pair at sensitivity 1; for lumped atoms (an integer shift, sampled or
        not) the kind's lumps in Arb (Noise.certified_lumped_dp_laws); None
        for a sampled pair otherwise."""
        if self.laws is not None:
            q = 1.0 if self.sampling_prob is None else self.sampling_prob
            return self.noise.certified_lumped_dp_laws(self.sensitivity, q, self.relation)
        if self.sampling_prob is not None or self.sensitivity != 1:
            return None
        return self.noise.certified_dp_laws()

    def renyi(self, alpha: Any, direction: Any = "max") -> Any:
        """D_alpha (symmetric: every direction alike): the kind's closed form,
        or the exact PLD's of the lumped atoms."""
        if self.laws is not None:
            return self.privacy_loss_distribution().renyi(alpha, direction)
        arr = _renyi.orders(alpha)
        out = self.noise.dp_renyi_orders(arr.ravel()).reshape(arr.shape)
        return float(out[()]) if arr.ndim == 0 else out

    def subsample(self, sampling_prob: Any, sampling: Any, core: Any = None) -> Any:
        """The laws of this pair sampled (PrivacyCurve.subsample): Poisson
        sampling of the unsampled mechanism is the sampled mechanism (the
        kind's laws: exact atoms, dp-accounting's own PLD); otherwise the
        sampled atoms where the pair has them (LawSource.subsample), else
        the sampled ``core``'s delta (connect-the-dots)."""
        if sampling == "poisson" and self.sampling_prob is None and self.relation == "add_remove":
            return self.noise._dp_sampled_pair(self.sensitivity, sampling_prob, "add_remove")[1]
        laws = super().subsample(sampling_prob, sampling, core)
        if laws is None and core is not None:
            laws = grid_pld.DeltaLaws(core)
        return laws

    def dp_accounting_pld(self, value_discretization_interval: Any) -> Any:
        """dp-accounting's own PLD of the mechanism (None: not the export's route)."""
        if not self.native_export:
            return None
        from statpriv.curve.export import MAX_GRID
        h = value_discretization_interval
        span = self.noise.dp_loss_span()
        if span / h > MAX_GRID:
            raise ValueError(f"value_discretization_interval={h!r} needs a PLD of about "
                             f"{span / h:.3g} bins (more than {MAX_GRID}); take a larger interval")
        if self.sampling_prob is None:
            return self.noise.dp_accounting_pld(h, self.sensitivity)
        return self.noise.dp_accounting_sampled_pld(h, self.sensitivity, self.sampling_prob,
                                                    self.relation)


class SampledDPPair(DPPair):
    """A Poisson-subsampled pair of continuous noise (dp.gaussian / dp.laplace
    with ``sampling_prob``): no closed-form Renyi divergence (``renyi`` is
    None, so the curve asks its privacy-loss distribution) and no exact PLD
    (the mixture's losses are continuous): the curve's own delta is exact,
    and its PLD is connect-the-dots of that delta on a loss grid
    (statpriv.laws.grid_pld; ``core`` is the curve's evaluator).  Under
    replace-one the pair is symmetric (one direction evaluated)."""

    renyi = None  # type: ignore[assignment]  # no closed form: the curve asks its PLD
    # a closed-form delta: its grid priced without a probe (the same grid every run)
    seconds_per_point = grid_pld.CLOSED_FORM_SECONDS

    def __init__(self, noise: Any, sensitivity: Any = 1, *, core: Any, sampling_prob: Any,
                 relation: Any) -> None:
        super().__init__(noise, sensitivity, sampling_prob=sampling_prob, relation=relation)
        self.core, self.symmetric = core, relation == "replace_one"

    def certified_laws(self) -> Any:
        """The sampled pair in Arb (statpriv.oracle.arb.SampledAddRemove or
        SampledReplaceOne around the kind's closed form), None where the kind
        has none."""
        inner = self.noise.certified_dp_laws()
        if inner is None or self.sensitivity != 1:
            return None
        from statpriv.oracle import arb
        sampled = arb.SampledAddRemove if self.relation == "add_remove" else arb.SampledReplaceOne
        return sampled(inner, self.sampling_prob)

    # the sampled curve's own delta on h Z (what a composition multiplies)
    privacy_loss_distribution = grid_pld.DeltaLaws.privacy_loss_distribution
    grid_bracket = grid_pld.DeltaLaws.grid_bracket


def kinds_text(prefix: str = "statpriv.") -> str:
    """'statpriv.Laplace, Gaussian or Geometric': the kinds, for messages."""
    names = [cls.__name__ for cls in NOISE_KINDS.values()]
    return prefix + ", ".join(names[:-1]) + " or " + names[-1]


def _dp_accounting_pld_module() -> Any:
    """dp-accounting's privacy_loss_distribution module (the optional extra)."""
    from statpriv.curve.export import _dp_accounting
    return _dp_accounting()[1]


from statpriv.noise.laplace import Laplace  # noqa: E402  (the kinds subclass Noise)
from statpriv.noise.gaussian import Gaussian  # noqa: E402
from statpriv.noise.geometric import Geometric  # noqa: E402

# The one table of noise kinds: kind name -> class.
NOISE_KINDS = {cls.kind: cls for cls in (Laplace, Gaussian, Geometric)}
