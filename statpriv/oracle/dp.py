"""Oracle for the worst-case DP curves of the Laplace, Gaussian and two-sided
geometric mechanisms (sensitivity 1): mpmath quadrature of
max(f(x-1) - e^eps f(x), 0) split at the kinks and the sign change (Laplace,
Gaussian), a direct sum with exact geometric tails (geometric) -- never the
closed forms the fast path uses.
"""
from typing import Any

import mpmath
from mpmath import mp, mpf

from statpriv.oracle._common import _check_direction, _eps_list, _guard, _pick, _to_mpf

__all__ = ["dp_laplace_delta", "dp_gaussian_delta", "dp_geometric_delta",
           "dp_randomized_response_delta"]


# --------------------------------------------------------------------------
# worst-case DP curves (sensitivity 1), by quadrature / direct summation
# --------------------------------------------------------------------------

def _quad_piece(g: Any, a: Any, b: Any, scale: Any, depth: Any = 0) -> Any:
    """int_a^b max(g, 0) with a RELATIVE accuracy check.

    mpmath.quad stops on an absolute error ~ mp.eps, which is useless for
    integrals like 1e-200; so the integrand is divided by ``scale`` (a rough
    magnitude of the densities on the piece) and the returned error estimate
    is checked against the result; finite pieces are bisected on failure.
    """
    s = scale
    if s == 0:
        s = mpf(1)
    val, err = mpmath.quad(lambda x: max(g(x), mpf(0)) / s, [a, b], error=True)
    # relative tolerance, plus an absolute floor at the rounding-noise level
    # of the normalised integrand (g is a difference of terms of size ~1
    # after normalisation, so nothing below ~2^-prec is meaningful anyway)
    tol = mpmath.ldexp(abs(val) + 1, -mp.prec + 20)
    if err <= tol:
        return val * s
    if depth >= 12:
        raise ArithmeticError(
            f"quadrature did not converge on [{mpmath.nstr(a, 8)}, "
            f"{mpmath.nstr(b, 8)}]: value {mpmath.nstr(val * s, 8)}, "
            f"error {mpmath.nstr(err * s, 3)}")
    if a == mpmath.ninf:
        mid = b - 1 - abs(b)
    elif b == mpmath.inf:
        mid = a + 1 + abs(a)
    else:
        mid = (a + b) / 2
    return (_quad_piece(g, a, mid, scale, depth + 1)
            + _quad_piece(g, mid, b, scale, depth + 1))


def _integrate_positive_part(g: Any, h: Any, points: Any) -> Any:
    """int_{-inf}^{inf} max(g(x), 0) dx, split at the sorted finite ``points``
    (kinks and sign changes of g, plus scale points), so that g is smooth and
    of constant sign on every piece.  h(x) > 0 is a magnitude of the
    integrand's ingredients, used to normalise each piece."""
    pts = sorted(set(points))
    edges = [mpmath.ninf] + pts + [mpmath.inf]
    total = mpf(0)
    for a, b in zip(edges[:-1], edges[1:]):
        if a == mpmath.ninf:
            scale = h(b)
        elif b == mpmath.inf:
            scale = h(a)
        else:
            scale = max(h(a), h(b), h((a + b) / 2))
        total += _quad_piece(g, a, b, scale)
    return total


def _continuous_dp(f: Any, eps: Any, direction: Any, dps: Any, breakpoints: Any) -> Any:
    """Shared driver: f density, breakpoints(e, sign) -> split points."""
    _check_direction(direction)
    with mp.workdps(dps):
        eps_vals, scalar = _eps_list(eps)
        out = []
        # integrate with a few guard digits, round at the end
        for e in eps_vals:
            with mp.workdps(dps + 15):
                ee = mpmath.exp(e)

                # h_*: size of the two terms of the integrand (normalisation)
                plus = minus = None
                if direction in ("plus", "max"):
                    plus = _integrate_positive_part(
                        lambda x: f(x - 1) - ee * f(x),
                        lambda x: f(x - 1) + ee * f(x), breakpoints(e, +1))
                if direction in ("minus", "max"):
                    minus = _integrate_positive_part(
                        lambda x: f(x) - ee * f(x - 1),
                        lambda x: f(x) + ee * f(x - 1), breakpoints(e, -1))
            v = _pick(direction, plus, minus)
            out.append(+v)  # round to working precision
        return out[0] if scalar else out


def dp_laplace_delta(scale: Any, eps: Any, dps: Any = 50, *, direction: Any = "max") -> Any:
    """Worst-case DP curve of the Laplace(0, scale) mechanism, sensitivity 1:
    int max(f(x-1) - e^eps f(x), 0) dx by mpmath.quad.

    Split points: kinks of f(x-1), f(x) at x = 0, 1; on [0, 1] the log-ratio
    log f(x-1) - log f(x) = (2x - 1)/b (constant -1/b left of 0, +1/b right
    of 1), so the crossing for delta_plus is x = (1 + eps b)/2 and for
    delta_minus (roles swapped) x = (1 - eps b)/2, when inside (0, 1).
    Extra split points at multiples of b help quadrature of the tails.
    """
    with mp.workdps(dps + 15):
        b = _to_mpf(scale, "scale")
        if b <= 0:
            raise ValueError(f"scale must be > 0, got {scale!r}")

    def f(x: Any) -> Any:
        return mpmath.exp(-abs(x) / b) / (2 * b)

    def breakpoints(e: Any, sign: Any) -> Any:
        pts = [mpf(0), mpf(1)]
        xc = (1 + sign * e * b) / 2
        if 0 < xc < 1:
            pts.append(xc)
        for k in (1, 4, 16):
            pts += [-k * b, 1 + k * b]
        return pts

    return _continuous_dp(f, eps, direction, dps, breakpoints)


def dp_gaussian_delta(sigma: Any, eps: Any, dps: Any = 50, *, direction: Any = "max") -> Any:
    """Worst-case DP curve of the N(0, sigma^2) mechanism, sensitivity 1:
    int max(f(x-1) - e^eps f(x), 0) dx by mpmath.quad.

    log f(x-1) - log f(x) = (2x - 1)/(2 sigma^2): the crossing for
    delta_plus is x* = 1/2 + eps sigma^2 (delta_minus: 1/2 - eps sigma^2).
    Extra split points at x* +- k sigma and around 0, 1 keep every piece on
    the scale of the integrand.
    """
    with mp.workdps(dps + 15):
        s = _to_mpf(sigma, "sigma")
        if s <= 0:
            raise ValueError(f"sigma must be > 0, got {sigma!r}")

    def f(x: Any) -> Any:
        return mpmath.exp(-(x / s) ** 2 / 2) / (s * mpmath.sqrt(2 * mpmath.pi))

    def breakpoints(e: Any, sign: Any) -> Any:
        xs = mpf(1) / 2 + sign * e * s ** 2
        pts = [xs]
        for k in (1, 2, 4, 8, 16, 32):
            pts += [xs + k * s, xs - k * s, -k * s, 1 + k * s]
        pts += [mpf(0), mpf(1)]
        return pts

    return _continuous_dp(f, eps, direction, dps, breakpoints)


def dp_geometric_delta(alpha: Any, eps: Any, dps: Any = 50, *, direction: Any = "max") -> Any:
    """Worst-case DP curve of two-sided geometric noise
    P(k) = (1-alpha)/(1+alpha) alpha^|k|, sensitivity 1.

    delta_plus = sum_k max(P(k-1) - e^eps P(k), 0).  Terms with |k| <= W
    are summed directly.  For k >= 1 both P(k-1) and P(k) are c alpha^(k-1)
    times a constant, and for k <= 0 both are c alpha^(-k) times a constant,
    so each tail term is t(k) = t(edge) alpha^(distance): the right tail
    k >= W+1 sums to t(W+1)/(1-alpha) and the left tail k <= -W-1 to
    t(-W-1)/(1-alpha) (same for delta_minus with P(k) - e^eps P(k-1)).
    """
    _check_direction(direction)
    W = 64
    with mp.workdps(dps):
        eps_vals, scalar = _eps_list(eps)
        with mp.workdps(dps + 15):
            a = _to_mpf(alpha, "alpha")
        if not (0 <= a < 1):
            raise ValueError(f"alpha must lie in [0, 1), got {alpha!r}")
        out = []
        for e in eps_vals:
            with mp.workdps(dps + 15):
                c = (1 - a) / (1 + a)
                ee = mpmath.exp(e)

                def P(k: Any) -> Any:
                    return c if k == 0 else c * a ** abs(k)

                def side(t: Any) -> Any:
                    s = mpf(0)
                    for k in range(-W, W + 1):
                        s += max(t(k), mpf(0))
                    s += max(t(W + 1), mpf(0)) / (1 - a)
                    s += max(t(-W - 1), mpf(0)) / (1 - a)
                    return s

                plus = side(lambda k: P(k - 1) - ee * P(k))
                minus = side(lambda k: P(k) - ee * P(k - 1))
            v = _pick(direction, plus, minus)
            out.append(+v)
        return out[0] if scalar else out


def dp_randomized_response_delta(eps0: Any, k: Any, eps: Any, dps: Any = 50, *,
                                 direction: Any = "max") -> Any:
    """k-ary randomized response with parameter eps0: the report is the true
    value w.p. e^eps0 / Z and each other value w.p. 1 / Z, Z = e^eps0 + k - 1;
    P is the report's law for the target's value a, Q for b != a.  The
    hockey stick summed over all k outcomes, term by term."""
    _check_direction(direction)
    with mp.workdps(dps):
        eps_vals, scalar = _eps_list(eps)
        with mp.workdps(dps + 15):
            e0 = _to_mpf(eps0, "eps0")
        k = int(k)
        if not (e0 >= 0 and k >= 2):
            raise ValueError(f"need eps0 >= 0 and k >= 2, got {eps0!r}, {k!r}")
        _guard(2.0 * k * max(len(eps_vals), 1), None, "k-ary randomized response")
        out = []
        for e in eps_vals:
            with mp.workdps(dps + 15):
                z = mpmath.exp(e0) + (k - 1)
                p = [mpmath.exp(e0) / z, 1 / z] + [1 / z] * (k - 2)
                q = [1 / z, mpmath.exp(e0) / z] + [1 / z] * (k - 2)
                ee = mpmath.exp(e)
                plus = mpmath.fsum(max(a - ee * b, mpf(0)) for a, b in zip(p, q))
                minus = mpmath.fsum(max(b - ee * a, mpf(0)) for a, b in zip(p, q))
            out.append(+_pick(direction, plus, minus))
        return out[0] if scalar else out
