"""Brute-force mpmath oracle for statpriv (slow, independent, obviously correct).

Everything here is computed the dumbest possible way:

* the full pmfs P (target record = 1) and Q (target record = 0) of the
  released count are built over *all* outcomes with exact-rational or
  50-significant-digit mpmath arithmetic;
* the hockey-stick divergence ``H_eps(P||Q) = sum_x max(P(x) - e^eps Q(x), 0)``
  is summed term by term, with no thresholds and no monotonicity assumptions;
* the worst-case DP curves of the continuous mechanisms are obtained by
  numerical quadrature of ``max(f(x-1) - e^eps f(x), 0)`` (never from the
  closed forms of MATH.md section 5, which are what the fast code uses).

Conventions
-----------
* Inputs (floats, ints) are taken as EXACT binary values: ``mpf(float)`` is
  exact, and every derived quantity (``1 - pi``, ``e^eps``, ``m / n``...) is
  computed in mpmath, never in float.
* Every public function takes ``dps`` (default 50) and works inside
  ``mp.workdps(dps)``; the global ``mp.dps`` is never modified.
* ``eps`` may be a real scalar or a list/tuple of scalars.  A scalar gives a
  single ``mpf``; a list gives a list of ``mpf`` (pmfs are built once).
  ``eps`` may be zero or negative.
* ``direction``: ``"plus"`` -> H(P||Q) (delta_plus), ``"minus"`` -> H(Q||P)
  (delta_minus), ``"max"`` (default) -> the larger of the two.

Pure Python + mpmath only; imports nothing else from statpriv.
"""

import math
from fractions import Fraction

import mpmath
from mpmath import mp, mpf

__all__ = [
    "hockey_stick",
    "counting_pmfs",
    "counting_delta",
    "secret_sample_pmfs",
    "secret_sample_delta",
    "dp_laplace_delta",
    "dp_gaussian_delta",
    "dp_geometric_delta",
]

_DIRECTIONS = ("plus", "minus", "max")
_SAMPLINGS = ("without_replacement", "poisson")


# --------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------

def _is_sequence(x):
    if isinstance(x, (str, bytes)):
        return False
    if isinstance(x, (list, tuple)):
        return True
    # anything iterable with a length that is not a scalar mp/number type
    return hasattr(x, "__len__") and hasattr(x, "__iter__")


def _to_mpf(x, what):
    """Exact conversion of a real scalar to mpf (done inside a workdps ctx)."""
    if isinstance(x, bool):
        raise ValueError(f"{what} must be a real number, got bool {x!r}")
    if isinstance(x, Fraction):
        v = mpf(x.numerator) / mpf(x.denominator)
    else:
        try:
            v = mpf(x)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{what} must be a real number, got {x!r}") from exc
    if not mpmath.isfinite(v):
        raise ValueError(f"{what} must be finite, got {x!r}")
    return v


def _eps_list(eps):
    """Return (list_of_mpf_eps, is_scalar)."""
    if _is_sequence(eps):
        vals = [_to_mpf(e, "eps") for e in eps]
        return vals, False
    return [_to_mpf(eps, "eps")], True


def _check_prob(p, what):
    v = _to_mpf(p, what)
    if v < 0 or v > 1:
        raise ValueError(f"{what} must lie in [0, 1], got {p!r}")
    return v


def _check_int(x, what, lo=None, hi=None):
    if isinstance(x, bool):
        raise ValueError(f"{what} must be an integer, got {x!r}")
    try:
        iv = int(x)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what} must be an integer, got {x!r}") from exc
    if iv != x:
        raise ValueError(f"{what} must be an integer, got {x!r}")
    if lo is not None and iv < lo:
        raise ValueError(f"{what} must be >= {lo}, got {x!r}")
    if hi is not None and iv > hi:
        raise ValueError(f"{what} must be <= {hi}, got {x!r}")
    return iv


def _check_direction(direction):
    if direction not in _DIRECTIONS:
        raise ValueError(
            f"direction must be one of {_DIRECTIONS}, got {direction!r}")


def _hs_sum(P, Q, eeps):
    """sum_x max(P(x) - eeps*Q(x), 0), term by term (current precision)."""
    s = mpf(0)
    for p, q in zip(P, Q):
        t = p - eeps * q
        if t > 0:
            s += t
    return s


def _directional(P, Q, eps_vals, direction):
    out = []
    for e in eps_vals:
        ee = mpmath.exp(e)
        if direction == "plus":
            out.append(_hs_sum(P, Q, ee))
        elif direction == "minus":
            out.append(_hs_sum(Q, P, ee))
        else:
            out.append(max(_hs_sum(P, Q, ee), _hs_sum(Q, P, ee)))
    return out


def _binomial_pmf(N, p):
    """pmf of Bin(N, p) on 0..N; p an mpf in [0, 1] (current precision).

    b(k) = C(N,k) p^k (1-p)^(N-k) with the integer C(N,k) exact (math.comb)
    and 0^0 = 1.
    """
    q = 1 - p
    out = []
    for k in range(N + 1):
        pk = mpf(1) if k == 0 else p ** k
        qk = mpf(1) if N - k == 0 else q ** (N - k)
        out.append(mpf(math.comb(N, k)) * pk * qk)
    return out


def _poisson_binomial_pmf(ps):
    """pmf of a sum of independent Bernoulli(p_j) by exact convolution."""
    pmf = [mpf(1)]
    for p in ps:
        q = 1 - p
        new = [mpf(0)] * (len(pmf) + 1)
        for k, v in enumerate(pmf):
            new[k] += v * q
            new[k + 1] += v * p
        pmf = new
    return pmf


def _hypergeom_pmf(N, K, m):
    """H(N,K,m)(j) = C(K,j) C(N-K,m-j) / C(N,m), j = 0..m, as exact rationals
    rounded once to mpf.  Requires 0 <= m <= N."""
    den = math.comb(N, m)
    out = []
    for j in range(m + 1):
        if j > K or m - j > N - K:
            out.append(mpf(0))
        else:
            num = math.comb(K, j) * math.comb(N - K, m - j)
            out.append(mpf(num) / mpf(den))
    return out


def _mixture_shift(lam, A, B, length):
    """P(j) = lam*A(j-1) + (1-lam)*B(j), Q(j) = lam*A(j) + (1-lam)*B(j),
    j = 0..length-1.  A or B may be None when its weight is exactly 0."""
    P = [mpf(0)] * length
    Q = [mpf(0)] * length
    if lam != 0:
        for i, a in enumerate(A):
            if i + 1 < length:
                P[i + 1] += lam * a
            elif a != 0:
                raise AssertionError("support overflow (internal error)")
            Q[i] += lam * a
    if lam != 1:
        w = 1 - lam
        for i, b in enumerate(B):
            P[i] += w * b
            Q[i] += w * b
    return P, Q


# --------------------------------------------------------------------------
# 1. hockey stick
# --------------------------------------------------------------------------

def hockey_stick(P, Q, eps, dps=50):
    """H_eps(P||Q) = sum_x max(P(x) - e^eps Q(x), 0).

    P, Q: sequences of equal length indexed by the same outcomes.
    eps: scalar -> mpf; list/tuple -> list of mpf.
    """
    with mp.workdps(dps):
        P = [_to_mpf(p, "P entry") for p in P]
        Q = [_to_mpf(q, "Q entry") for q in Q]
        if len(P) != len(Q):
            raise ValueError(
                f"P and Q must have the same length ({len(P)} != {len(Q)})")
        eps_vals, scalar = _eps_list(eps)
        res = _directional(P, Q, eps_vals, "plus")
        return res[0] if scalar else res


# --------------------------------------------------------------------------
# 2./3. counting queries
# --------------------------------------------------------------------------

def _others_probs(n, pi):
    """Return (n, scalar_pi_or_None, list_of_pi_or_None) with validation."""
    if _is_sequence(pi):
        ps = [_check_prob(p, "pi entry") for p in pi]
        if n is None:
            n = len(ps) + 1
        n = _check_int(n, "n", lo=1)
        if len(ps) != n - 1:
            raise ValueError(
                f"pi sequence must hold the n-1 = {n - 1} probabilities of "
                f"the other records, got {len(ps)}")
        return n, None, ps
    if n is None:
        raise ValueError("n is required when pi is a scalar")
    n = _check_int(n, "n", lo=1)
    return n, _check_prob(pi, "pi"), None


def counting_pmfs(n, pi, *, sample_size=None, sample_rate=None,
                  sampling="without_replacement", dps=50):
    """(P, Q): pmfs of the released count with target = 1 / target = 0.

    * no sampling: S = count of the n-1 others (Bin(n-1, pi) or
      Poisson-binomial if ``pi`` is a sequence of the others' probabilities);
      P(k) = s(k-1), Q(k) = s(k), k = 0..n.
    * ``sample_size=m`` (or ``sample_rate=lam`` -> m = round(lam*n)), without
      replacement, iid pi only; lam = m/n:
      P(j) = lam B_{m-1}(j-1) + (1-lam) B_m(j),
      Q(j) = lam B_{m-1}(j)   + (1-lam) B_m(j),  j = 0..m.
    * ``sampling="poisson"``, ``sample_rate=lam``: Z = sum of the n-1 others'
      Bernoulli(lam*pi_j); Q = Z, P = lam (Z+1) + (1-lam) Z, on 0..n.
    """
    if sampling not in _SAMPLINGS:
        raise ValueError(f"sampling must be one of {_SAMPLINGS}, got {sampling!r}")
    with mp.workdps(dps):
        n, p, ps = _others_probs(n, pi)

        if sampling == "poisson":
            if sample_size is not None:
                raise ValueError("poisson sampling takes sample_rate, not sample_size")
            if sample_rate is None:
                raise ValueError("poisson sampling requires sample_rate")
            lam = _check_prob(sample_rate, "sample_rate")
            if ps is None:
                Z = _binomial_pmf(n - 1, lam * p)
            else:
                Z = _poisson_binomial_pmf([lam * x for x in ps])
            return _mixture_shift(lam, Z, Z, n + 1)

        # without replacement (or no sampling at all)
        if sample_size is not None and sample_rate is not None:
            raise ValueError("give sample_size or sample_rate, not both")
        if sample_size is None and sample_rate is None:
            S = _binomial_pmf(n - 1, p) if ps is None else _poisson_binomial_pmf(ps)
            P = [mpf(0)] + S          # P(k) = s(k-1), k = 0..n
            Q = S + [mpf(0)]          # Q(k) = s(k)
            return P, Q

        if ps is not None:
            raise ValueError(
                "sampling without replacement needs a scalar (iid) pi")
        if sample_size is not None:
            m = _check_int(sample_size, "sample_size", lo=0, hi=n)
        else:
            rate = _check_prob(sample_rate, "sample_rate")
            m = int(mpmath.nint(rate * n))
        lam = mpf(m) / mpf(n)
        A = _binomial_pmf(m - 1, p) if m >= 1 else None   # weight lam = 0 if m = 0
        B = _binomial_pmf(m, p) if m < n else None        # weight 1-lam = 0 if m = n
        return _mixture_shift(lam, A, B, m + 1)


def counting_delta(n, pi, eps, *, sample_size=None, sample_rate=None,
                   sampling="without_replacement", direction="max", dps=50):
    """Privacy curve of a counting query: hockey stick of counting_pmfs."""
    _check_direction(direction)
    with mp.workdps(dps):
        P, Q = counting_pmfs(n, pi, sample_size=sample_size,
                             sample_rate=sample_rate, sampling=sampling, dps=dps)
        eps_vals, scalar = _eps_list(eps)
        res = _directional(P, Q, eps_vals, direction)
        return res[0] if scalar else res


# --------------------------------------------------------------------------
# 4. secrecy of the sample
# --------------------------------------------------------------------------

def secret_sample_pmfs(n, sample_size, positives, dps=50):
    """(P, Q) for "secrecy of the sample" (MATH.md section 4, seed 001 section 3).

    N = n-1 others with K = ``positives`` ones among them, m = sample_size,
    lam = m/n, H(N,K,m) hypergeometric;
    P(j) = lam H(N,K,m-1)(j-1) + (1-lam) H(N,K,m)(j),
    Q(j) = lam H(N,K,m-1)(j)   + (1-lam) H(N,K,m)(j),  j = 0..m.
    """
    n = _check_int(n, "n", lo=1)
    m = _check_int(sample_size, "sample_size", lo=0, hi=n)
    N = n - 1
    K = _check_int(positives, "positives", lo=0, hi=N)
    with mp.workdps(dps):
        lam = mpf(m) / mpf(n)
        A = _hypergeom_pmf(N, K, m - 1) if m >= 1 else None   # weight lam = 0 if m = 0
        B = _hypergeom_pmf(N, K, m) if m <= N else None       # weight 0 if m = n
        return _mixture_shift(lam, A, B, m + 1)


def secret_sample_delta(n, sample_size, positives, eps, direction="max", dps=50):
    """Hockey stick of secret_sample_pmfs."""
    _check_direction(direction)
    with mp.workdps(dps):
        P, Q = secret_sample_pmfs(n, sample_size, positives, dps=dps)
        eps_vals, scalar = _eps_list(eps)
        res = _directional(P, Q, eps_vals, direction)
        return res[0] if scalar else res


# --------------------------------------------------------------------------
# 5. worst-case DP curves (sensitivity 1), by quadrature / direct summation
# --------------------------------------------------------------------------

def _quad_piece(g, a, b, scale, depth=0):
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


def _integrate_positive_part(g, h, points):
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


def _continuous_dp(f, eps, direction, dps, breakpoints):
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
            if direction == "plus":
                v = plus
            elif direction == "minus":
                v = minus
            else:
                v = max(plus, minus)
            out.append(+v)  # round to working precision
        return out[0] if scalar else out


def dp_laplace_delta(scale, eps, dps=50, *, direction="max"):
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

    def f(x):
        return mpmath.exp(-abs(x) / b) / (2 * b)

    def breakpoints(e, sign):
        pts = [mpf(0), mpf(1)]
        xc = (1 + sign * e * b) / 2
        if 0 < xc < 1:
            pts.append(xc)
        for k in (1, 4, 16):
            pts += [-k * b, 1 + k * b]
        return pts

    return _continuous_dp(f, eps, direction, dps, breakpoints)


def dp_gaussian_delta(sigma, eps, dps=50, *, direction="max"):
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

    def f(x):
        return mpmath.exp(-(x / s) ** 2 / 2) / (s * mpmath.sqrt(2 * mpmath.pi))

    def breakpoints(e, sign):
        xs = mpf(1) / 2 + sign * e * s ** 2
        pts = [xs]
        for k in (1, 2, 4, 8, 16, 32):
            pts += [xs + k * s, xs - k * s, -k * s, 1 + k * s]
        pts += [mpf(0), mpf(1)]
        return pts

    return _continuous_dp(f, eps, direction, dps, breakpoints)


def dp_geometric_delta(alpha, eps, dps=50, *, direction="max"):
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

                def P(k):
                    return c if k == 0 else c * a ** abs(k)

                def side(t):
                    s = mpf(0)
                    for k in range(-W, W + 1):
                        s += max(t(k), mpf(0))
                    s += max(t(W + 1), mpf(0)) / (1 - a)
                    s += max(t(-W - 1), mpf(0)) / (1 - a)
                    return s

                plus = side(lambda k: P(k - 1) - ee * P(k))
                minus = side(lambda k: P(k) - ee * P(k - 1))
            if direction == "plus":
                v = plus
            elif direction == "minus":
                v = minus
            else:
                v = max(plus, minus)
            out.append(+v)
        return out[0] if scalar else out
