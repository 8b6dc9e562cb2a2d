"""Extended precision beyond float64: the Python twin of csrc/xprec.h.

The curves keep their relative accuracy up to a zero point (where delta
reaches 0 linearly in ln P/Q - eps) only if the log ratios there carry more
than the 64 bits of a long double: closed forms are evaluated in mpmath (40
digits) and stored as double-doubles or long-double pairs hi + lo.  These are
the conversions every layer shares -- mpmath numbers to and from floats and
long doubles with a known rounding direction, and the error-free sum of two
long doubles -- so that no module carries its own copy.  mpmath is imported
on first use (importing statpriv does not load it).
"""
from __future__ import annotations

import math
import sys

from typing import Any, Tuple, Union

import numpy as np

__all__ = ["ceil_float", "dd", "float_up", "log1p_mp", "long_double", "low_part", "mpf_exact",
           "two_sum"]


def mpf_exact(x: Union[float, np.longdouble]) -> Any:
    """A float or long double as an exact mpmath number (its binary value)."""
    import mpmath
    num, den = x.as_integer_ratio()          # den = 2^k: (mantissa, exponent) directly
    return mpmath.mpf((num, 1 - den.bit_length()))


def long_double(value: Any) -> np.longdouble:
    """An mpmath number as the nearest long double (a low part stored as a
    double would be denormal where the ratio it corrects is ~1e-300)."""
    import mpmath
    return np.longdouble(mpmath.nstr(value, 25, strip_zeros=False))


def low_part(value: Any) -> Any:
    """A low part (an mpmath number) for a long double array: the nearest
    double, or -- where that would be subnormal or 0, the part correcting a
    ratio near 1e-300 or below -- the nearest long double (long_double)."""
    f = float(value)
    return f if abs(f) >= sys.float_info.min or value == 0 else long_double(value)


def float_up(value: Any) -> float:
    """The smallest double >= an mpmath number (+-inf kept)."""
    import mpmath
    if mpmath.isinf(value):
        return math.inf if value > 0 else -math.inf
    f = float(value)
    if math.isinf(f):                  # beyond the double range (1/b of Laplace b = 1e-315)
        return f if f > 0 else -sys.float_info.max
    if mpf_exact(np.longdouble(f)) < value:
        f = math.nextafter(f, math.inf)
    return f


def log1p_mp(x: float) -> Any:
    """log1p of a double, as an mpmath number at the current precision."""
    import mpmath
    return mpmath.log1p(mpmath.mpf(x))


def dd(x: Any) -> Tuple[float, float]:
    """(hi, lo) doubles with hi + lo = the mpmath number x to ~2^-106 relative."""
    hi = float(x)
    return hi, float(x - hi)


def two_sum(a: Any, b: Any) -> Tuple[Any, Any]:
    """(s, e): s = fl(a + b) and its exact rounding error e = a + b - s
    (Knuth's two-sum; long double scalars or arrays, inf/nan propagate quietly)."""
    with np.errstate(invalid="ignore"):
        total = a + b
        bb = total - a
        return total, (a - (total - bb)) + (b - bb)


def ceil_float(hi: Any, lo: Any) -> float:
    """The smallest float64 >= the unevaluated long double sum hi + lo."""
    f = float(hi + lo)
    return math.nextafter(f, math.inf) if (hi - np.longdouble(f)) + lo > 0 else f
