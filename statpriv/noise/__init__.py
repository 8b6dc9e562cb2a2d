"""Additive noise for counts, in count units with sensitivity 1 (docs/mathematics.md §6).

A noise object only describes the distribution; ``statpriv.counting(...,
noise=...)`` turns it into the exact statistical-privacy curve of the noisy
count, and ``noise.dp_curve()`` gives the worst-case DP curve (the special
case without data randomness).  Breutigam & Reischuk measures noise in fraction units:
a fraction-unit scale psi is psi * n here.

One module per kind (laplace, gaussian, geometric): the class -- its
parameter, validation, dp_curve, the small formulas statpriv.interval needs
-- and the builder of its noisy-count evaluator (``Noise._core``);
_cells holds the pipeline they share.  NOISE_KINDS, below, is the one table
of the kinds: the command line, statpriv.interval and statpriv.utility read
it.  A new kind is a subclass in a new module here, added to that table
(plus its C cells and its oracle module).
"""
from statpriv import _validate, dp  # noqa: F401  (statpriv.noise.dp: a landed name)
from statpriv.noise import _cells

__all__ = ["NOISE_KINDS", "Gaussian", "Geometric", "Laplace", "Noise"]


class Noise:
    """Base class: ``kind`` names the family, ``param`` its one parameter.

    Noise objects are immutable (like the curves built from them): ``param``
    and the named parameter (``scale``, ``sigma``, ``alpha``) are read-only,
    so a curve can never see a parameter that was not validated.  Equal
    objects hash equal; build a new object for a new parameter.

    A kind sets, besides ``kind``:

    param_name : the name of its parameter (a read-only property alike).
    pure_dp : True if the noise alone is (eps, 0)-DP for some eps (delta is
        exactly 0 from a finite eps on); statpriv.interval asks for a delta
        for the other kinds.
    _tail_w : None, or mpf p -> w (mpmath): beyond the last atom the noisy
        densities' ratio is G_P(w)/G_Q(w) (generating functions of the count
        laws), before the first G_P(1/w)/G_Q(1/w) -- the exact zero points
        (e^(1/b) for Laplace(b), 1/alpha for geometric).
    _trims : the evaluator scales the atoms linearly (long double range), so
        atoms more than _cells.DROP_NATS below the largest are cut first,
        their mass bounded (``_trim``).
    _variance_factor : variance / param^2 where that is a constant, else
        None (statpriv.utility's equal-utility noise).
    _core(lp, lq, monotone_ratio, tail_ratio, log_ratio, log_ratio_lo) :
        the C evaluator of the count laws plus this noise (see _cells.core).
    _interval_epsilon / _interval_confidence / _interval_width /
    _interval_noise : the per-kind formulas of statpriv.interval.
    """

    __slots__ = ("_param",)
    kind = None
    param_name = None
    pure_dp = False
    _tail_w = None
    _trims = True
    _variance_factor = None

    def __init__(self, param):
        if self.kind is None:
            raise TypeError(f"Noise is abstract: use {kinds_text()}")
        object.__setattr__(self, "_param", float(param))

    @property
    def param(self):
        return self._param

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} objects are immutable: "
                             f"build a new one instead of setting {name!r}")

    def __delattr__(self, name):
        raise AttributeError(f"{type(self).__name__} objects are immutable")

    def __reduce__(self):
        return type(self), (self._param,)

    def __repr__(self):
        return f"{type(self).__name__}({self._param!r})"

    def __eq__(self, other):
        if not isinstance(other, Noise):
            return NotImplemented
        return type(self) is type(other) and self._param == other._param

    def __hash__(self):
        return hash((self.kind, self._param))

    def _trim(self, lp, lq, lr, lr_lo):
        """(lp, lq, lr, lr_lo, cut_p, cut_q): the laws without the atoms far
        below the largest, ln of the P and Q mass cut (statpriv._laws._pair_curve)."""
        return _cells.trim_laws(lp, lq, lr, lr_lo)

    def _core(self, lp, lq, monotone_ratio, tail_ratio, log_ratio, log_ratio_lo):
        raise ValueError(f"noise must be {kinds_text()}, got {self!r}")


def kinds_text(prefix="statpriv."):
    """'statpriv.Laplace, Gaussian or Geometric': the kinds, for messages."""
    names = [cls.__name__ for cls in NOISE_KINDS.values()]
    return prefix + ", ".join(names[:-1]) + " or " + names[-1]


from statpriv.noise.laplace import Laplace  # noqa: E402  (the kinds subclass Noise)
from statpriv.noise.gaussian import Gaussian  # noqa: E402
from statpriv.noise.geometric import Geometric  # noqa: E402

# The one table of noise kinds: kind name -> class.
NOISE_KINDS = {cls.kind: cls for cls in (Laplace, Gaussian, Geometric)}
