"""Which noise kind an analysis function is asked about: a Noise class.

statpriv.analysis.interval and statpriv.analysis.utility compute a noise
parameter (the scale of Laplace noise meeting an interval target, of the noise
whose utility loss equals a sample's), so they take the kind, not a noise
object: the class itself (``noise=statpriv.Gaussian``), as the noise table
statpriv.noise.NOISE_KINDS lists it.  An instance is refused (its parameter
would be ignored: it is what these functions compute).  The kind's name
("gaussian") still works, with a DeprecationWarning.
"""
from __future__ import annotations

from typing import Any, Mapping, Type

from statpriv import _validate
from statpriv.noise import NOISE_KINDS, Noise

__all__ = ["noise_class", "spelled"]


def spelled(cls: type) -> str:
    """How a noise class is written: 'statpriv.Gaussian'."""
    return f"statpriv.{cls.__name__}"


def _listed(kinds: Mapping[str, Type[Noise]]) -> str:
    names = [spelled(cls) for cls in kinds.values()]
    return ", ".join(names[:-1]) + " or " + names[-1]


def noise_class(value: object, kinds: Mapping[str, Type[Noise]] = NOISE_KINDS, *,
                name: str = "noise") -> Type[Noise]:
    """The Noise subclass ``value`` names, one of ``kinds`` (kind name ->
    class): the class itself, or (deprecated) its kind name.  ValueError for
    another kind or an unknown name, ParameterTypeError for an instance or
    anything else, each naming the parameter."""
    allowed = tuple(kinds.values())
    if isinstance(value, type) and issubclass(value, Noise):
        if value not in allowed:
            raise ValueError(f"{name} must be {_listed(kinds)}, got {spelled(value)}")
        return value
    if isinstance(value, Noise):
        raise _validate.ParameterTypeError(
            f"{name} must be a noise class ({_listed(kinds)}), not a noise object: the "
            f"parameter is what this function computes; got {value!r}, pass "
            f"{name}={spelled(type(value))}")
    if isinstance(value, str):
        if value not in kinds:
            listed = ", ".join(map(repr, kinds))
            raise ValueError(f"{name} must be {_listed(kinds)} (or, deprecated, one of "
                             f"{listed}), got {value!r}")
        _validate.deprecated(f"naming the noise kind by a string is deprecated: pass "
                             f"{name}={spelled(kinds[value])} instead of {value!r}")
        return kinds[value]
    raise _validate.ParameterTypeError(f"{name} must be a noise class ({_listed(kinds)}), "
                                       f"got {_validate._describe(value)}")
