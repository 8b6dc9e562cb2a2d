"""Argument checks shared by every public constructor.

Each raises ValueError naming the parameter and its allowed range, so bad
input never turns into a silent NaN, a crash or an endless loop below.
"""
import math
import numbers

import numpy as np


def real(name, value, *, low=-math.inf, high=math.inf, low_open=False, high_open=False,
         allow_inf=False):
    """A real scalar in [low, high] (ends open on request)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    value = float(value)
    if math.isnan(value) or (math.isinf(value) and not allow_inf):
        raise ValueError(f"{name} must be finite, got {value!r}")
    below = value <= low if low_open else value < low
    above = value >= high if high_open else value > high
    if below or above:
        lo = "(" if low_open else "["
        hi = ")" if high_open else "]"
        raise ValueError(f"{name} must be in {lo}{low}, {high}{hi}, got {value!r}")
    return value


def probability(name, value):
    """A probability in [0, 1]."""
    return real(name, value, low=0.0, high=1.0)


def count(name, value, *, low=0, high=None):
    """An integer >= low (and <= high), given as int or integral float."""
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if isinstance(value, numbers.Integral):
        value = int(value)
    elif isinstance(value, numbers.Real) and math.isfinite(value) and float(value).is_integer():
        value = int(value)
    else:
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < low or (high is not None and value > high):
        bound = f"[{low}, {high}]" if high is not None else f">= {low}"
        raise ValueError(f"{name} must be an integer {bound}, got {value}")
    if value > 2 ** 53:
        raise ValueError(f"{name} must be at most 2**53 to be exact in float64, got {value}")
    return value


def real_array(name, values, *, low=-math.inf, high=math.inf, allow_inf=False):
    """A float64 array (any shape) with every entry in [low, high]."""
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be real numbers, got {values!r}") from None
    if np.isnan(arr).any():
        raise ValueError(f"{name} must not contain NaN")
    if not allow_inf and np.isinf(arr).any():
        raise ValueError(f"{name} must be finite")
    if arr.size and (arr.min() < low or arr.max() > high):
        raise ValueError(f"{name} must lie in [{low}, {high}]")
    return arr


def choice(name, value, options):
    if value not in options:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, options))}, got {value!r}")
    return value
