"""Argument checks shared by every public function.

Each check raises an error naming the parameter and its allowed range, so bad
input never turns into a silent NaN, a crash or an endless loop below:

- a value of the wrong *type* (bool, str, bytes, None, complex, an object that
  is not a number, a list where one number is expected) raises
  ``ParameterTypeError``;
- a value of the right type outside the allowed set (NaN, +-inf where they are
  not allowed, out of range, a 2-D or ragged array where a 1-D one is needed,
  arrays that do not broadcast) raises ``ValueError``.

``ParameterTypeError`` subclasses both ``TypeError`` (what it is) and
``ValueError`` (what statpriv raised for every bad argument before, so that
``except ValueError`` in callers keeps working).  Bools are rejected wherever a
number is expected: ``True`` is not a probability, a privacy parameter or a
count.  Range texts are exact: ``(0.0, inf)`` means that inf is rejected,
``[0.0, inf]`` that it is allowed.
"""
from __future__ import annotations

import functools
import math
import numbers
import reprlib
import sys
import warnings
from types import FrameType
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, TypeVar, Union, cast

import numpy as np
from numpy.typing import NDArray

_T = TypeVar("_T")
_F = TypeVar("_F", bound=Callable[..., Any])

__all__ = ["ParameterTypeError", "real", "probability", "count", "real_array", "reals",
           "ndim", "broadcast", "choice", "alias", "seed", "renamed", "renamed_attribute",
           "deprecated"]

_short = reprlib.Repr()
_short.maxstring = 40
_short.maxother = 40
_short.maxlist = _short.maxtuple = 6


class ParameterTypeError(TypeError, ValueError):
    """A parameter of the wrong type (bool, str, bytes, None, complex, ...).

    Both a TypeError and a ValueError: statpriv raised ValueError for every
    bad argument before wrong types got their own class, and code catching
    ValueError keeps working.

    Examples
    --------
    >>> import statpriv
    >>> try:
    ...     statpriv.counting("10", 0.5)
    ... except statpriv.ParameterTypeError as exc:
    ...     print(exc)
    n must be an integer, not a string ('10'); convert it with float() or int() first
    """


def _describe(value: object) -> str:
    return f"{type(value).__name__} {_short.repr(value)}"


def _interval(low: float, high: float, low_open: bool, high_open: bool, allow_inf: bool) -> str:
    """'[0.0, 1.0]', '(0.0, inf)', ...: exact, an infinite end is closed only
    when that infinity is accepted."""
    lo_open = low_open or (low == -math.inf and not allow_inf)
    hi_open = high_open or (high == math.inf and not allow_inf)
    return f"{'(' if lo_open else '['}{low}, {high}{')' if hi_open else ']'}"


def _scalar(name: str, value: Any, what: str = "a real number") -> Any:
    """Unwrap a 0-d array; reject what is not a (non-bool) real number."""
    if isinstance(value, np.ndarray):
        if value.ndim != 0:
            raise ParameterTypeError(f"{name} must be {what}, got an array of shape "
                                     f"{value.shape}")
        value = value[()]
    if isinstance(value, (bool, np.bool_)):
        raise ParameterTypeError(f"{name} must be {what}, not a bool ({value!r})")
    if isinstance(value, (str, bytes, np.str_, np.bytes_)):
        raise ParameterTypeError(f"{name} must be {what}, not a string ({_short.repr(value)}); "
                                 "convert it with float() or int() first")
    if not isinstance(value, numbers.Real):
        raise ParameterTypeError(f"{name} must be {what}, got {_describe(value)}")
    return value


def _to_float(name: str, value: Any, allow_inf: bool = False) -> float:
    """float(value); an integer beyond float64 is +-inf where inf is allowed,
    else a ValueError."""
    try:
        return float(value)
    except OverflowError:
        if allow_inf:
            return math.inf if value > 0 else -math.inf
        raise ValueError(f"{name} must be finite, got a number too large for float64") from None


def real(name: str, value: object, *, low: float = -math.inf, high: float = math.inf,
         low_open: bool = False, high_open: bool = False, allow_inf: bool = False) -> float:
    """A real scalar in [low, high] (ends open on request) -> float.

    A 0-d numpy array counts as a scalar.  NaN is always rejected, +-inf
    unless ``allow_inf``.
    """
    value = _to_float(name, _scalar(name, value), allow_inf)
    if math.isnan(value) or (math.isinf(value) and not allow_inf):
        raise ValueError(f"{name} must be finite, got {value!r}")
    below = value <= low if low_open else value < low
    above = value >= high if high_open else value > high
    if below or above:
        raise ValueError(f"{name} must be in "
                         f"{_interval(low, high, low_open, high_open, allow_inf)}, "
                         f"got {value!r}")
    return value


def probability(name: str, value: object) -> float:
    """A probability in [0, 1]."""
    return real(name, value, low=0.0, high=1.0)


def count(name: str, value: object, *, low: int = 0, high: Optional[int] = None) -> int:
    """An integer >= low (and <= high), given as int or integral float."""
    value = _scalar(name, value, "an integer")
    if isinstance(value, numbers.Integral):
        value = int(value)
    else:
        as_float = _to_float(name, value)
        if not (math.isfinite(as_float) and as_float.is_integer()):
            raise ValueError(f"{name} must be an integer, got {value!r}")
        value = int(as_float)
    if value < low or (high is not None and value > high):
        bound = f"[{low}, {high}]" if high is not None else f">= {low}"
        raise ValueError(f"{name} must be an integer {bound}, got {value}")
    if value > 2 ** 53:
        raise ValueError(f"{name} must be at most 2**53 to be exact in float64, got {value}")
    return value


def ndim(name: str, value: Any) -> int:
    """np.ndim(value), with an error naming ``name`` for ragged sequences."""
    if isinstance(value, (str, bytes)):
        return 0
    try:
        return np.ndim(value)
    except ValueError:
        raise ValueError(f"{name} must be a regular array of numbers, got a ragged "
                         f"sequence {_short.repr(value)}") from None


def _reject_nested_bools(name: str, values: Union[List[Any], Tuple[Any, ...]]) -> None:
    """numpy turns [0.5, True] into [0.5, 1.0]: look for bools in lists/tuples."""
    stack: List[Union[List[Any], Tuple[Any, ...]]] = [values]
    while stack:
        seq = stack.pop()
        for item in seq:
            if isinstance(item, (bool, np.bool_)):
                raise ParameterTypeError(f"{name} must be real numbers, not bools "
                                         f"(found {item!r} in {_short.repr(values)})")
            if isinstance(item, (list, tuple)):
                stack.append(item)


def _check_float_entry(name: str, value: float, low: float, high: float, low_open: bool,
                       high_open: bool, allow_inf: bool) -> None:
    """real_array's checks and messages for one Python float."""
    if value != value:
        raise ValueError(f"{name} must not contain NaN")
    if not allow_inf and (value == math.inf or value == -math.inf):
        raise ValueError(f"{name} must be finite")
    if (value <= low if low_open else value < low) or (value >= high if high_open
                                                        else value > high):
        raise ValueError(f"{name} must lie in "
                         f"{_interval(low, high, low_open, high_open, allow_inf)}, got {value!r}")


def real_array(name: str, values: object, *, low: float = -math.inf, high: float = math.inf,
               low_open: bool = False, high_open: bool = False, allow_inf: bool = False,
               dims: Optional[Tuple[int, ...]] = None) -> NDArray[np.float64]:
    """A float64 array with every entry in [low, high] (ends open on request).

    ``dims``: None (any shape) or a tuple of the accepted numbers of
    dimensions, e.g. (1,) for one value per record.  Scalars give 0-d arrays.
    """
    if type(values) is float and (dims is None or 0 in dims):   # common scalar query: in Python
        _check_float_entry(name, values, low, high, low_open, high_open, allow_inf)
        return np.array(values)
    if values is None or isinstance(values, (str, bytes)):
        raise ParameterTypeError(f"{name} must be real numbers, got {_describe(values)}")
    if isinstance(values, (list, tuple)):
        _reject_nested_bools(name, values)
    try:
        raw = np.asarray(values)
    except (ValueError, TypeError):
        raise ValueError(f"{name} must be a regular array of numbers, got a ragged "
                         f"sequence {_short.repr(values)}") from None
    kind = raw.dtype.kind
    if kind == "b":
        raise ParameterTypeError(f"{name} must be real numbers, not bools")
    if kind == "O":
        flat = [_scalar(name, v, "real numbers") for v in raw.ravel()]
        arr = np.array([_to_float(name, v, allow_inf) for v in flat],
                       dtype=np.float64).reshape(raw.shape)
    elif kind in "iuf":
        arr = raw.astype(np.float64)
    else:
        what = {"c": "complex numbers", "U": "strings", "S": "bytes"}.get(kind, str(raw.dtype))
        raise ParameterTypeError(f"{name} must be real numbers, not {what}")
    if dims is not None and arr.ndim not in dims:
        want = " or ".join(f"{d}-D" for d in dims)
        raise ValueError(f"{name} must be {want}, got an array of shape {arr.shape}")
    if np.isnan(arr).any():
        raise ValueError(f"{name} must not contain NaN")
    if not allow_inf and np.isinf(arr).any():
        raise ValueError(f"{name} must be finite")
    if arr.size:
        below = arr <= low if low_open else arr < low
        above = arr >= high if high_open else arr > high
        bad = below | above
        if bad.any():
            first = float(arr.ravel()[np.flatnonzero(bad.ravel())[0]])
            raise ValueError(f"{name} must lie in "
                             f"{_interval(low, high, low_open, high_open, allow_inf)}, "
                             f"got {first!r}")
    return arr


def reals(name: str, value: object, **bounds: Any) -> Union[float, NDArray[np.float64]]:
    """``real`` for a scalar (-> float), ``real_array`` for an array (-> float64 array)."""
    if ndim(name, value) == 0:
        return real(name, value, **bounds)
    return real_array(name, value, **bounds)


def broadcast(**named: object) -> Tuple[NDArray[Any], ...]:
    """np.broadcast_arrays of the named arrays, or ValueError naming their shapes."""
    arrays = {k: np.asarray(v) for k, v in named.items()}
    try:
        return np.broadcast_arrays(*arrays.values())
    except ValueError:
        shapes = ", ".join(f"{k} {a.shape}" for k, a in arrays.items())
        raise ValueError(f"{', '.join(arrays)} must broadcast to a common shape, got "
                         f"{shapes}") from None


def alias(name: str, value: _T, alias_name: str,
          alias_value: Optional[_T]) -> Tuple[str, Optional[_T]]:
    """(the name given, its value) of a parameter that has a second name
    (dp-accounting's): whichever was given; ValueError when both were."""
    if alias_value is None:
        return name, value
    if value is not None:
        raise ValueError(f"give {name} or {alias_name} (the same parameter), not both")
    return alias_name, alias_value


def deprecated(message: str) -> None:
    """A DeprecationWarning attributed to the first caller outside statpriv
    (the line the user wrote, however deep inside statpriv it is raised)."""
    level = 2
    frame: Optional[FrameType] = sys._getframe(1)    # stacklevel 2: the caller of deprecated()
    while frame is not None and frame.f_globals.get("__name__", "").partition(".")[0] \
            == "statpriv":
        level, frame = level + 1, frame.f_back
    warnings.warn(message, DeprecationWarning, stacklevel=level)


def renamed(**new_names: str) -> Callable[[_F], _F]:
    """Decorator of a function whose parameters were renamed:
    ``@renamed(p="pi")`` still accepts the keyword ``p=`` (DeprecationWarning)
    and passes its value on as ``pi``; the signature shows the new names only.
    Positional calls are unaffected (the positions did not change).  Both
    spellings at once: ParameterTypeError naming both."""
    def decorate(fn: _F) -> _F:
        called = fn.__qualname__.removesuffix(".__init__")    # a class: its name

        @functools.wraps(fn)
        def with_old_names(*args: Any, **kwargs: Any) -> Any:
            for old, new in new_names.items():
                if old in kwargs:
                    if new in kwargs:
                        raise ParameterTypeError(f"give {new} or its old name {old} (the same "
                                                 f"parameter), not both")
                    deprecated(f"{called}({old}=...) is deprecated: the parameter is "
                               f"called {new} now")
                    kwargs[new] = kwargs.pop(old)
            return fn(*args, **kwargs)
        return with_old_names  # type: ignore[return-value]  # functools.wraps keeps fn's signature
    return decorate


def renamed_attribute(old: str, new: str) -> property:
    """A read-only property ``old`` that returns the attribute ``new``, with a
    DeprecationWarning (an attribute renamed in the public API)."""
    def get(self: object) -> Any:
        deprecated(f"{type(self).__name__}.{old} is deprecated: use .{new}")
        return getattr(self, new)
    return property(get, doc=f"Deprecated name of ``{new}``.")


def seed(name: str, value: object) -> Union[None, int, np.random.Generator, np.random.SeedSequence]:
    """A random seed: None, an integer >= 0 (any size) or a numpy Generator /
    SeedSequence -- what np.random.default_rng takes, bools and strings not."""
    if value is None or isinstance(value, (np.random.Generator, np.random.SeedSequence)):
        return value
    value = _scalar(name, value, "None, an integer >= 0 or a numpy Generator")
    if not isinstance(value, numbers.Integral):
        raise ParameterTypeError(f"{name} must be None, an integer >= 0 or a numpy "
                                 f"Generator, got {_describe(value)}")
    if value < 0:
        raise ValueError(f"{name} must be an integer >= 0, got {value}")
    return int(value)


def choice(name: str, value: Any, options: Sequence[_T]) -> _T:
    """One of ``options`` (strings and/or None), compared without coercion."""
    listed = ", ".join(map(repr, options))
    if isinstance(value, str) or (value is None and None in options):
        if value in options:
            return cast(_T, value)
    elif all(o is None or isinstance(o, str) for o in options):
        raise ParameterTypeError(f"{name} must be one of {listed}, got {_describe(value)}")
    elif value in options:
        return cast(_T, value)
    raise ValueError(f"{name} must be one of {listed}, got {_short.repr(value)}")


def records(n: object, pi: object) -> Tuple[int, Union[float, NDArray[np.float64]], bool]:
    """(n, pi, per_record) of a count over n records with probability pi:
    pi a probability (iid; n required) or an array of the n-1 OTHER records'
    probabilities (n may be None: taken from its length)."""
    if ndim("pi", pi) > 0:          # ragged: an error naming pi
        probs = real_array("pi", pi, low=0.0, high=1.0, dims=(1,))
        if n is None:
            n = probs.size + 1
        n = count("n", n, low=1)
        if probs.size != n - 1:
            raise ValueError(f"pi must hold the n-1 = {n - 1} other records' probabilities, "
                             f"got {probs.size}")
        return n, probs, True
    if n is None:
        raise ValueError("n is required when pi is a single probability")
    return count("n", n, low=1), probability("pi", pi), False

