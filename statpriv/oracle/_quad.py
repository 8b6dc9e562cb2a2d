"""Quadrature and root finding for the noise oracle: Gauss-Legendre on finite
pieces (bisected until mpmath's error estimate is at the rounding level),
tanh-sinh on half-infinite ones, bracketed roots of a sign change.
"""
from typing import Any

import mpmath
from mpmath import mp


def _gl_piece(F: Any, a: Any, b: Any, depth: Any = 0) -> Any:
    """int_a^b F (F smooth on the closed piece) by Gauss-Legendre quad,
    accepting mpmath's error estimate err <= 2^(20-prec) (|val| + 1) (F is
    normalised to size ~1, so the +1 is the rounding-noise floor); bisects
    on failure.  Returns (value, error estimate)."""
    val, err = mpmath.quad(F, [a, b], method="gauss-legendre", error=True)
    if err <= mpmath.ldexp(abs(val) + 1, -mp.prec + 20):
        return val, err
    if depth >= 10:
        raise ArithmeticError(
            f"quadrature did not converge on [{mpmath.nstr(a, 10)}, "
            f"{mpmath.nstr(b, 10)}] (error {mpmath.nstr(err, 3)})")
    mid = (a + b) / 2
    v1, e1 = _gl_piece(F, a, mid, depth + 1)
    v2, e2 = _gl_piece(F, mid, b, depth + 1)
    return v1 + v2, e1 + e2


def _ts_piece(F: Any, a: Any, b: Any) -> Any:
    """int over a half-infinite piece by tanh-sinh (mpmath's default)."""
    val, err = mpmath.quad(F, [a, b], error=True)
    if err > mpmath.ldexp(abs(val) + 1, -mp.prec + 20):
        raise ArithmeticError(
            f"quadrature did not converge on [{mpmath.nstr(a, 10)}, "
            f"{mpmath.nstr(b, 10)}] (error {mpmath.nstr(err, 3)})")
    return val, err


def _bracket_root(G: Any, a: Any, b: Any, Ga: Any, Gb: Any) -> Any:
    """Root of G in (a, b) with G(a) G(b) < 0: mpmath.findroot with the
    Anderson-Bjoerk bracketing solver; if that fails or leaves the bracket,
    plain bisection to full precision."""
    try:
        r = mpmath.findroot(G, (a, b), solver="anderson")
        if a <= r <= b and abs(G(r)) <= mpmath.ldexp(1, -mp.prec + 30):
            return r
    except (ValueError, ZeroDivisionError):
        pass
    lo, hi, glo = a, b, Ga
    for _ in range(mp.prec + 20):
        mid = (lo + hi) / 2
        if mid == lo or mid == hi:
            break
        gm = G(mid)
        if gm == 0:
            return mid
        if (gm > 0) == (glo > 0):
            lo, glo = mid, gm
        else:
            hi = mid
    return (lo + hi) / 2


def _sign(v: Any) -> Any:
    return 1 if v > 0 else (-1 if v < 0 else 0)
