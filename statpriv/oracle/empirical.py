"""Oracle for empirical differential privacy: the hockey-stick integrals of
two kernel density estimates by mpmath quadrature, straight from the
definition (Burchard, Daoud & Dotterrer, "Empirical Differential Privacy",
Algorithm 2):

    plus  = int (p(x) - e^eps p_i(x))_+ dx,   minus = int (p_i(x) - e^eps p(x))_+ dx,
    p(x)  = 1/n sum_j K_{w_j}(x - a_j),        p_i likewise from (b_j, v_j).

The line is cut at every sample point and every 60/8 widths out to 60 widths
beyond the outermost points; each piece is scanned at ``scan`` points, every
sign change of the integrand is located by bisection, and mpmath's
quadrature integrates the positive sub-pieces (the tails beyond, of one sign,
to +-inf).
Plain and slow: meant for a few dozen points.
"""
from typing import Any, Dict
from mpmath import mp, mpf

__all__ = ["kde_density", "kde_hockey_stick"]


def kde_density(x: Any, points: Any, widths: Any, kernel: Any) -> Any:
    """1/n sum_j K_{w_j}(x - a_j) in mpmath (kernel "laplace" or "gauss")."""
    total = mpf(0)
    for a, w in zip(points, widths):
        z = (x - a) / w
        if kernel == "laplace":
            total += mp.exp(-abs(z)) / (2 * w)
        else:
            total += mp.exp(-z * z / 2) / (w * mp.sqrt(2 * mp.pi))
    return total / len(points)


def _root(g: Any, lo: Any, hi: Any, glo: Any) -> Any:
    for _ in range(mp.prec + 20):
        mid = (lo + hi) / 2
        gm = g(mid)
        if (gm > 0) == (glo > 0):
            lo, glo = mid, gm
        else:
            hi = mid
    return (lo + hi) / 2


def _positive_integral(g: Any, cuts: Any, scan: Any) -> Any:
    total = mpf(0)
    for lo, hi in zip(cuts[:-1], cuts[1:]):
        if lo == hi:
            continue
        if mp.isinf(lo) or mp.isinf(hi):
            # a tail: the integrand has one sign beyond the outermost point
            # (checked at two points), integrate it whole
            end = hi if mp.isinf(lo) else lo
            step = -1 if mp.isinf(lo) else 1
            s1, s2 = g(end + step * mpf("1e-30")), g(end + step * 50)
            if s1 > 0 or s2 > 0:
                total += mp.quad(lambda x: max(g(x), 0), [lo, hi])
            continue
        xs = [lo + (hi - lo) * k / scan for k in range(scan + 1)]
        gs = [g(x) for x in xs]
        sub = [lo]
        for k in range(scan):
            if (gs[k] > 0) != (gs[k + 1] > 0) and gs[k] != 0 and gs[k + 1] != 0:
                sub.append(_root(g, xs[k], xs[k + 1], gs[k]))
        sub.append(hi)
        for s0, s1 in zip(sub[:-1], sub[1:]):
            if g((s0 + s1) / 2) > 0:
                total += mp.quad(g, [s0, s1])
    return total


def kde_hockey_stick(a: Any, wa: Any, b: Any, wb: Any, eps: Any, kernel: Any = "laplace",
                     dps: Any = 30, scan: Any = 24) -> Any:
    """(plus, minus) for the KDEs of points a (widths wa) and b (widths wb)."""
    with mp.workdps(dps):
        a = [mpf(x) for x in a]
        b = [mpf(x) for x in b]
        wa = [mpf(x) for x in wa]
        wb = [mpf(x) for x in wb]
        c = mp.exp(mpf(eps))
        pts = sorted(set(a) | set(b))
        reach = 60 * max(wa + wb)          # kernels beyond are below e^-60
        fine = [pts[0] - reach * k / 8 for k in range(8, 0, -1)] + pts + \
               [pts[-1] + reach * k / 8 for k in range(1, 9)]
        cuts = [-mp.inf] + fine + [mp.inf]

        # both integrals scan the same points: each density evaluated once there
        seen_p: Dict[Any, Any] = {}
        seen_pi: Dict[Any, Any] = {}

        def p(x: Any) -> Any:
            if x not in seen_p:
                seen_p[x] = kde_density(x, a, wa, kernel)
            return seen_p[x]

        def pi(x: Any) -> Any:
            if x not in seen_pi:
                seen_pi[x] = kde_density(x, b, wb, kernel)
            return seen_pi[x]

        plus = _positive_integral(lambda x: p(x) - c * pi(x), cuts, scan)
        minus = _positive_integral(lambda x: pi(x) - c * p(x), cuts, scan)
        return plus, minus
