"""Additive noise for counts, in count units with sensitivity 1 (docs/mathematics.md §6).

A noise object only describes the distribution; ``statpriv.counting(...,
noise=...)`` turns it into the exact statistical-privacy curve of the noisy
count, and ``noise.dp_curve()`` gives the worst-case DP curve (the special
case without data randomness).  Breutigam & Reischuk measures noise in fraction units:
a fraction-unit scale psi is psi * n here.
"""
from statpriv import _validate, dp


class Noise:
    """Base class: ``kind`` names the family, ``param`` its one parameter.

    Noise objects are immutable (like the curves built from them): ``param``
    and the named parameter (``scale``, ``sigma``, ``alpha``) are read-only,
    so a curve can never see a parameter that was not validated.  Equal
    objects hash equal; build a new object for a new parameter.
    """

    __slots__ = ("_param",)
    kind = None

    def __init__(self, param):
        if self.kind is None:
            raise TypeError("Noise is abstract: use statpriv.Laplace, Gaussian or Geometric")
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


class Laplace(Noise):
    """Laplace noise, density exp(-|x|/scale) / (2 scale); variance 2 scale^2."""

    __slots__ = ()
    kind = "laplace"

    def __init__(self, scale):
        super().__init__(_validate.real("scale", scale, low=0.0, low_open=True))

    @property
    def scale(self):
        return self.param

    @property
    def variance(self):
        return 2.0 * self.param * self.param

    def dp_curve(self):
        return dp.laplace(self.param)


class Gaussian(Noise):
    """Gaussian noise N(0, sigma^2)."""

    __slots__ = ()
    kind = "gaussian"

    def __init__(self, sigma):
        super().__init__(_validate.real("sigma", sigma, low=0.0, low_open=True))

    @property
    def sigma(self):
        return self.param

    @property
    def variance(self):
        return self.param * self.param

    def dp_curve(self):
        return dp.gaussian(self.param)


class Geometric(Noise):
    """Two-sided geometric (discrete Laplace) noise on the integers,
    P(k) = (1-alpha)/(1+alpha) alpha^|k|; variance 2 alpha / (1-alpha)^2."""

    __slots__ = ()
    kind = "geometric"

    def __init__(self, alpha):
        super().__init__(_validate.real("alpha", alpha, low=0.0, high=1.0,
                                        low_open=True, high_open=True))

    @property
    def alpha(self):
        return self.param

    @property
    def variance(self):
        return 2.0 * self.param / (1.0 - self.param) ** 2

    def dp_curve(self):
        return dp.geometric(self.param)
