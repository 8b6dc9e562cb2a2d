"""Brute-force mpmath oracle for statpriv (slow, independent, obviously correct).

Everything here is computed the dumbest possible way:

* the full pmfs P (target record = 1) and Q (target record = 0) of the
  released count are built over *all* outcomes with exact-rational or
  50-significant-digit mpmath arithmetic;
* the hockey-stick divergence ``H_eps(P||Q) = sum_x max(P(x) - e^eps Q(x), 0)``
  is summed term by term, with no thresholds and no monotonicity assumptions;
* the worst-case DP curves of the continuous mechanisms are obtained by
  numerical quadrature of ``max(f(x-1) - e^eps f(x), 0)`` (never from the
  closed forms of docs/mathematics.md §6, which are what the fast code uses).

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

import contextlib
import contextvars
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
    "estimate_terms",
    "term_budget",
    "DEFAULT_MAX_TERMS",
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


def _pick(direction, plus, minus):
    """The value a direction asks for: plus, minus or the larger."""
    if direction == "plus":
        return plus
    if direction == "minus":
        return minus
    return max(plus, minus)


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
                raise RuntimeError("statpriv.reference internal error: an atom of the shifted "
                                   "law falls outside the support; please report")
            Q[i] += lam * a
    if lam != 1:
        w = 1 - lam
        for i, b in enumerate(B):
            P[i] += w * b
            Q[i] += w * b
    return P, Q


# --------------------------------------------------------------------------
# size guard: refuse up front what would run for more than about a minute
# --------------------------------------------------------------------------
#
# The brute force builds the full pmfs (every outcome 0..L, with exact
# big-integer binomial coefficients) and sums or integrates over all of them,
# so its cost grows like a power of n: it cannot answer n = 10^9.  Each public
# function below estimates its cost in "terms" (about one mpmath operation,
# ~3 microseconds on the development machine, 2 cores shared by several
# jobs) before doing anything and raises ValueError if the estimate exceeds
# the budget: the ``max_terms`` argument, else the one set by ``term_budget``
# (PrivacyCurve.delta(..., precision="mp", max_terms=...) sets it), else
# DEFAULT_MAX_TERMS = 3e7 (about a minute on an idle core, 1.5 minutes
# measured on the loaded development machine; the largest landed oracle
# test, the n = 20000 binomial row, needs 2.7e7).  The estimate covers building the laws and evaluating ONE eps
# value in the requested direction(s); a list of k eps values costs up to k
# times the evaluation part.  Models (fitted to timings at n = 10^2..10^4):
#
# * a binomial or hypergeometric row over N others: N + N^3 / 3e5 (each
#   C(N, k) is an N-bit integer); a Poisson-binomial convolution: n^2;
# * noiseless hockey-stick sum: 2 L per direction (L + 1 outcomes);
# * geometric noise: 2 L min(L + 1, 1 + 250 / |ln alpha|) per direction;
# * Laplace / Gaussian noise (quadrature of O(sqrt L) significant pieces at
#   dps + 15 digits): 4e5 sqrt(L + 1) per direction.

DEFAULT_MAX_TERMS = 3 * 10 ** 7
_SECONDS_PER_TERM = 3e-6
_BUDGET = contextvars.ContextVar("statpriv_reference_max_terms", default=None)


@contextlib.contextmanager
def term_budget(max_terms):
    """Within the block, reference functions called without ``max_terms`` use
    this budget (None: DEFAULT_MAX_TERMS).  Thread- and context-local."""
    token = _BUDGET.set(max_terms)
    try:
        yield
    finally:
        _BUDGET.reset(token)


def _row_terms(N):
    """A binomial (or hypergeometric) row over N others with exact C(N, k)."""
    N = max(float(N), 0.0)
    return N + N ** 3 / 3e5


def _eval_terms(L, noise, direction):
    """One eps value, noiseless or with noise = (kind, param)."""
    dirs = 2 if direction == "max" else 1
    L = float(L)
    if noise is None:
        return 2.0 * L * dirs
    kind, par = noise
    if kind == "geometric":
        try:
            lna = abs(math.log(float(par)))
        except (ValueError, TypeError, OverflowError):
            lna = math.inf
        window = min(L + 1.0, 1.0 + 250.0 / lna) if lna > 0 else L + 1.0
        return 2.0 * L * window * dirs
    return 4e5 * math.sqrt(L + 1.0) * dirs


def _counting_size(n, pi, sample_size, sample_rate, sampling):
    """(L, pmf terms) of counting_pmfs, from the raw arguments; None when they
    are invalid (counting_pmfs then raises the precise error)."""
    try:
        if _is_sequence(pi):
            k = len(pi)
            n = k + 1 if n is None else _check_int(n, "n", lo=1)
            return n, float(n) ** 2
        n = _check_int(n, "n", lo=1)
        if sampling == "poisson" or (sample_size is None and sample_rate is None):
            return n, _row_terms(n - 1)
        if sample_size is not None:
            m = _check_int(sample_size, "sample_size", lo=0, hi=n)
        else:
            m = round(float(sample_rate) * n)
        return m, 2.0 * _row_terms(m)
    except (ValueError, TypeError, OverflowError):
        return None


def estimate_terms(n, pi, *, sample_size=None, sample_rate=None,
                   sampling="without_replacement", noise=None, direction="max"):
    """Estimated cost (in terms, ~1 mpmath operation each) of
    ``noisy_counting_delta`` (``noise`` a (kind, param) pair) or
    ``counting_delta`` (noise None) at one eps value; see the size-guard
    notes above for the models."""
    size = _counting_size(n, pi, sample_size, sample_rate, sampling)
    if size is None:
        raise ValueError("invalid arguments: see counting_pmfs")
    L, build = size
    return build + _eval_terms(L, noise, direction)


def _round_up(x):
    """x rounded up to two significant digits."""
    if not x > 0 or not math.isfinite(x):
        return x
    e = 10.0 ** (math.floor(math.log10(x)) - 1)
    return math.ceil(x / e) * e


def _guard(terms, max_terms, what):
    budget = max_terms if max_terms is not None else _BUDGET.get()
    if budget is None:
        budget = DEFAULT_MAX_TERMS
    if terms > budget:
        raise ValueError(
            f"precision='mp' (the mpmath brute force) would need about {terms:.2g} terms, "
            f"~{terms * _SECONDS_PER_TERM:.2g} s per eps value, for {what}: more than "
            f"max_terms={budget:.3g}.  Pass max_terms={_round_up(terms):g} (or larger) to run "
            "it anyway, or choose a smaller n / sample_size.")


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
                  sampling="without_replacement", dps=50, max_terms=None):
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

    Refuses (ValueError) sizes whose estimated cost exceeds ``max_terms``
    (default: term_budget, else DEFAULT_MAX_TERMS).
    """
    if sampling not in _SAMPLINGS:
        raise ValueError(f"sampling must be one of {_SAMPLINGS}, got {sampling!r}")
    size = _counting_size(n, pi, sample_size, sample_rate, sampling)
    if size is not None:
        _guard(size[1], max_terms, f"the counting pmfs over {size[0] + 1} outcomes")
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
                   sampling="without_replacement", direction="max", dps=50, max_terms=None):
    """Privacy curve of a counting query: hockey stick of counting_pmfs.

    Refuses (ValueError) sizes whose estimated cost per eps value
    (estimate_terms) exceeds ``max_terms``."""
    _check_direction(direction)
    size = _counting_size(n, pi, sample_size, sample_rate, sampling)
    if size is not None:
        _guard(size[1] + _eval_terms(size[0], None, direction), max_terms,
               f"a count over {size[0]} records")
    with mp.workdps(dps):
        P, Q = counting_pmfs(n, pi, sample_size=sample_size,
                             sample_rate=sample_rate, sampling=sampling, dps=dps,
                             max_terms=math.inf)
        eps_vals, scalar = _eps_list(eps)
        res = _directional(P, Q, eps_vals, direction)
        return res[0] if scalar else res


# --------------------------------------------------------------------------
# 4. secrecy of the sample
# --------------------------------------------------------------------------

def _secret_sample_terms(n, m):
    """Two hypergeometric rows of m + 1 terms, each a product of C(., .) of
    up to n bits."""
    return 2.0 * (m + 1) * (1.0 + float(n) ** 2 / 3e5)


def secret_sample_pmfs(n, sample_size, positives, dps=50, max_terms=None):
    """(P, Q) for "secrecy of the sample" (docs/mathematics.md §5, Smith 2009 section 3).

    N = n-1 others with K = ``positives`` ones among them, m = sample_size,
    lam = m/n, H(N,K,m) hypergeometric;
    P(j) = lam H(N,K,m-1)(j-1) + (1-lam) H(N,K,m)(j),
    Q(j) = lam H(N,K,m-1)(j)   + (1-lam) H(N,K,m)(j),  j = 0..m.
    """
    n = _check_int(n, "n", lo=1)
    m = _check_int(sample_size, "sample_size", lo=0, hi=n)
    N = n - 1
    K = _check_int(positives, "positives", lo=0, hi=N)
    _guard(_secret_sample_terms(n, m), max_terms, f"the secret-sample pmfs, n={n}, m={m}")
    with mp.workdps(dps):
        lam = mpf(m) / mpf(n)
        A = _hypergeom_pmf(N, K, m - 1) if m >= 1 else None   # weight lam = 0 if m = 0
        B = _hypergeom_pmf(N, K, m) if m <= N else None       # weight 0 if m = n
        return _mixture_shift(lam, A, B, m + 1)


def secret_sample_delta(n, sample_size, positives, eps, direction="max", dps=50,
                        max_terms=None):
    """Hockey stick of secret_sample_pmfs (refuses sizes over ``max_terms``)."""
    _check_direction(direction)
    n_ = _check_int(n, "n", lo=1)
    m_ = _check_int(sample_size, "sample_size", lo=0, hi=n_)
    _guard(_secret_sample_terms(n_, m_) + _eval_terms(m_, None, direction), max_terms,
           f"a secret sample of {m_} of n={n_} records")
    with mp.workdps(dps):
        P, Q = secret_sample_pmfs(n, sample_size, positives, dps=dps, max_terms=math.inf)
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
            v = _pick(direction, plus, minus)
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
            v = _pick(direction, plus, minus)
            out.append(+v)
        return out[0] if scalar else out


# --------------------------------------------------------------------------
# 6. counting query + additive noise (docs/mathematics.md §6), brute force
# --------------------------------------------------------------------------
#
# The released value is Y = C + N with C ~ P (target positive) or C ~ Q
# (target negative), P and Q the pmfs of counting_pmfs on the atoms 0..L, and
# N independent noise in count units.  The laws of Y are the mixtures
#     f_P(x) = sum_k P(k) nu(x - k),   f_Q(x) = sum_k Q(k) nu(x - k),
# and delta_plus = int (f_P - e^eps f_Q)_+ (a sum over the integers for
# geometric noise), delta_minus with P and Q swapped.
#
# Every density value is a direct sum over the atoms at the point x itself
# (no recursions over atoms, no closed-form per-interval coefficients, no
# closed-form integrals); the integrals are mpmath quadratures of the
# pointwise positive part, split at every sign change found by a grid scan.
# These two functions default to dps=30 (the others here: 50); quadrature of
# O(n) pieces at 50 digits would be markedly slower.

_NOISE_KINDS = ("laplace", "gaussian", "geometric")
_LN2 = math.log(2.0)


def _check_noise(noise):
    """("laplace", b) | ("gaussian", sigma) | ("geometric", alpha) -> (kind, raw)."""
    if (isinstance(noise, (str, bytes)) or not _is_sequence(noise)
            or len(noise) != 2):
        raise ValueError(
            "noise must be a pair (kind, parameter) with kind in "
            f"{_NOISE_KINDS}, got {noise!r}")
    kind, par = noise[0], noise[1]
    if kind not in _NOISE_KINDS:
        raise ValueError(f"noise kind must be one of {_NOISE_KINDS}, got {kind!r}")
    return kind, par


def _float_log(v):
    """float ln(v) of a non-negative mpf (-inf for 0); no float underflow."""
    if v == 0:
        return -math.inf
    return float(mpmath.log(v))


class _NoisyMixture:
    """Pointwise evaluation of f_P(x), f_Q(x) = sum_k {P,Q}(k) nu(x - k).

    Atoms are the integers kmin..kmax (indices into P, Q).  Rigorous pruning
    of negligible terms, per point x: with w_k = max(P(k), Q(k)) and
    t_k = w_k nu(x - k), only terms with ln t_k >= M - T are summed, where
    M = max_k ln t_k (computed in float from ln w_k and ln nu, which are known
    to ~1e-9 absolute, far inside the 2-nat margin in T).  Every dropped term is
    < e^(M - T) and there are at most L + 1 of them, so the dropped part of
    f_P and of f_Q is < (L+1) e^(-T) e^M <= (L+1) e^(-T) (f_P(x) + f_Q(x)).
    T = prec ln 2 + ln(L+1) + |eps|max + 2 makes this smaller than one unit
    of rounding of f_P + e^eps f_Q at the working precision: the pruned sums
    are as accurate (relatively, pointwise) as the full sums.  The scan over
    k walks outward from the atom nearest to x and stops in each direction as
    soon as lnw_max + ln nu(distance) < M_so_far - T (nu is decreasing in the
    distance, so no later term can be kept).
    """

    def __init__(self, P, Q, kind, par, T):
        self.P, self.Q = P, Q
        self.kind = kind
        nz = [k for k in range(len(P)) if P[k] != 0 or Q[k] != 0]
        self.kmin, self.kmax = nz[0], nz[-1]
        self.lw = [_float_log(max(p, q)) for p, q in zip(P, Q)]
        self.lP = [_float_log(p) for p in P]
        self.lQ = [_float_log(q) for q in Q]
        self.lwmax = max(self.lw)
        self.T = T
        self.cache = {}
        self.fcache = {}
        self._tab = []
        if kind == "gaussian":
            s = par
            self.scale = s
            self.inv2s2 = 1 / (2 * s * s)
            self.fl_inv2s2 = float(self.inv2s2)
            self.C = 1 / (s * mpmath.sqrt(2 * mpmath.pi))
        elif kind == "laplace":
            b = par
            self.scale = b
            self.invb = 1 / b
            self.fl_invb = float(self.invb)
            self.C = 1 / (2 * b)
        else:  # geometric, integer x only
            a = par
            self.alpha = a
            self.fl_lna = math.log(float(a)) if a > 0 else -math.inf
            self.C = (1 - a) / (1 + a)
        self.lnC = float(mpmath.log(self.C))

    # float log of the (unnormalised) kernel at distance d >= 0
    def _logker(self, d):
        if self.kind == "gaussian":
            return -d * d * self.fl_inv2s2
        if self.kind == "laplace":
            return -d * self.fl_invb
        if d == 0:
            return 0.0
        return d * self.fl_lna  # -inf for alpha = 0

    def _kept(self, xf, lw, T):
        """Atoms k whose term lw[k] + logker(|xf - k|) is >= max - T, and the
        atom kc nearest to xf (clamped to [kmin, kmax])."""
        kmin, kmax = self.kmin, self.kmax
        lwmax = self.lwmax
        logker = self._logker
        kc = int(round(xf)) if math.isfinite(xf) else (kmax if xf > 0 else kmin)
        kc = min(max(kc, kmin), kmax)
        M = -math.inf
        terms = []
        k = kc
        while k >= kmin:                    # distances increase from here on
            lk = logker(abs(xf - k))
            if lwmax + lk < M - T:
                break
            t = lw[k] + lk
            if t > M:
                M = t
            terms.append((t, k))
            k -= 1
        k = kc + 1
        while k <= kmax:
            lk = logker(k - xf)
            if lwmax + lk < M - T:
                break
            t = lw[k] + lk
            if t > M:
                M = t
            terms.append((t, k))
            k += 1
        if M == -math.inf:
            return [], kc
        return [k for t, k in terms if t >= M - T], kc

    def _table(self, m):
        """unnormalised kernel factor table: Gaussian e^(-m^2/(2 s^2)),
        Laplace e^(-m/b), geometric alpha^m, m = 0, 1, ... (grown on demand,
        each entry computed directly)."""
        tab = self._tab
        while len(tab) <= m:
            j = len(tab)
            if self.kind == "gaussian":
                tab.append(mpmath.exp(-mpf(j * j) * self.inv2s2))
            elif self.kind == "laplace":
                tab.append(mpmath.exp(-mpf(j) * self.invb))
            else:
                tab.append(mpf(1) if j == 0 else self.alpha ** j)
        return tab

    def _kernels(self, x, klo, khi, kc):
        """unnormalised nu(x - k) for k = klo..khi (klo <= kc <= khi), from
        exact identities (d = x - kc, m = k - kc):
          Gaussian  e^(-(d-m)^2/(2s^2)) = e^(-d^2/(2s^2)) (e^(d/s^2))^m e^(-m^2/(2s^2))
          Laplace   e^(-|x-k|/b) = e^(-(x-j)/b) e^(-(j-k)/b)      (k <= j = floor x)
                                 = e^(-(j+1-x)/b) e^(-(k-j-1)/b) (k >= j+1)
          geometric alpha^|x-k| (x an integer).
        The powers are built by repeated multiplication (relative rounding
        error <= (L+1) 2^-prec, far inside the guard digits)."""
        out = {}
        if self.kind == "gaussian":
            tab = self._table(max(kc - klo, khi - kc))
            d = x - kc
            base = mpmath.exp(-(d * d) * self.inv2s2)
            r = mpmath.exp(2 * d * self.inv2s2)
            out[kc] = base
            pw = base
            for m in range(1, khi - kc + 1):
                pw *= r
                out[kc + m] = pw * tab[m]
            rinv = 1 / r
            pw = base
            for m in range(1, kc - klo + 1):
                pw *= rinv
                out[kc - m] = pw * tab[m]
        elif self.kind == "laplace":
            # j = floor(x) clamped to [klo - 1, khi]: still x - j >= 0 for
            # k <= j and j + 1 - x >= 0 for k >= j + 1 (empty if clamped)
            j = min(max(int(mpmath.floor(x)), klo - 1), khi)
            tab = self._table(khi - klo + 1)
            left = mpmath.exp(-(x - j) * self.invb)
            right = mpmath.exp(-(j + 1 - x) * self.invb)
            for k in range(klo, khi + 1):
                out[k] = left * tab[j - k] if k <= j else right * tab[k - j - 1]
        else:
            xi = int(x)
            tab = self._table(max(abs(xi - klo), abs(khi - xi)))
            for k in range(klo, khi + 1):
                out[k] = tab[abs(xi - k)]
        return out

    def __call__(self, x):
        """(f_P(x), f_Q(x)), cached."""
        r = self.cache.get(x)
        if r is not None:
            return r
        keep, kc = self._kept(float(x), self.lw, self.T)
        if not keep:
            r = (mpf(0), mpf(0))
        else:
            klo, khi = min(keep), max(keep)
            kc = min(max(kc, klo), khi)
            kern = self._kernels(x, klo, khi, kc)
            ks = range(klo, khi + 1)
            ker = [kern[k] for k in ks]
            fP = mpmath.fdot(self.P[klo:khi + 1], ker) * self.C
            fQ = mpmath.fdot(self.Q[klo:khi + 1], ker) * self.C
            r = (fP, fQ)
        self.cache[x] = r
        return r

    def log_pair(self, xf):
        """float (ln f_P(x), ln f_Q(x)) up to the common constant ln C, each
        by a float log-sum-exp over the atoms within 60 + ln(L+1) nats of its
        own largest term (-inf for an exact zero); used only to read signs
        away from roots."""
        r = self.fcache.get(xf)
        if r is not None:
            return r
        out = []
        for lv in (self.lP, self.lQ):
            # each log on its own (pruned relative to its own largest term)
            keep, _ = self._kept(xf, lv, 60.0 + math.log(len(lv)))
            ts = [lv[k] + self._logker(abs(xf - k)) for k in keep]
            ts = [t for t in ts if t > -math.inf]
            if not ts:
                out.append(-math.inf)
                continue
            M = max(ts)
            out.append(M + math.log(math.fsum(math.exp(t - M) for t in ts)))
        r = (out[0], out[1])
        self.fcache[xf] = r
        return r

    def log_mass_bound(self, a, b, which):
        """Float upper bound of ln int_a^b f_which (which = "P" or "Q").

        Finite [a, b]: int <= (b - a) sup_[a,b] f <= (b - a) sum_k w_k
        nu(dist(k, [a, b])), dist = 0 for atoms inside.  Infinite pieces are
        Laplace tails outside the atoms only: there f = f(a) e^(-|x-a|/b) and
        the integral is exactly b f(a).  Terms more than 45 nats below the
        largest are replaced by (L+1) e^(M-45); ln 2 of slack covers float
        rounding.
        """
        lw = self.lP if which == "P" else self.lQ
        L = len(lw) - 1
        if a == mpmath.ninf or b == mpmath.inf:
            edge = b if a == mpmath.ninf else a
            fP, fQ = self(edge)
            v = fP if which == "P" else fQ
            if v == 0:
                return -math.inf
            return _float_log(v) + math.log(float(self.scale)) + _LN2
        af, bf = float(a), float(b)
        terms = []
        for k in range(self.kmin, self.kmax + 1):
            if lw[k] == -math.inf:
                continue
            d = af - k if k < af else (k - bf if k > bf else 0.0)
            terms.append(lw[k] + self._logker(max(d, 0.0)))
        if not terms:
            return -math.inf
        M = max(terms)
        if M == -math.inf:
            return -math.inf
        s = sum(math.exp(t - M) for t in terms if t >= M - 45)
        s += (L + 1) * math.exp(-45)
        # (b - a may be far below float resolution: a root next to a split)
        return _float_log(b - a) + M + math.log(s) + self.lnC + _LN2


def _gl_piece(F, a, b, depth=0):
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


def _ts_piece(F, a, b):
    """int over a half-infinite piece by tanh-sinh (mpmath's default)."""
    val, err = mpmath.quad(F, [a, b], error=True)
    if err > mpmath.ldexp(abs(val) + 1, -mp.prec + 20):
        raise ArithmeticError(
            f"quadrature did not converge on [{mpmath.nstr(a, 10)}, "
            f"{mpmath.nstr(b, 10)}] (error {mpmath.nstr(err, 3)})")
    return val, err


def _bracket_root(G, a, b, Ga, Gb):
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


def _sign(v):
    return 1 if v > 0 else (-1 if v < 0 else 0)


def _geometric_hs(mix, A, B, ee):
    """sum over the integers x of (A-density(x) - ee B-density(x))_+,
    (A, B) = ("P","Q") for delta_plus, ("Q","P") for delta_minus.

    Explicit sum for x in [kmin - 3, kmax + 3].  Tails: for x >= x_hi >= kmax
    every atom k <= kmax has |x - k| = (x - x_hi) + (x_hi - k), so
    f_P(x) = f_P(x_hi) alpha^(x - x_hi) and likewise f_Q: the term
    t(x) = t(x_hi) alpha^(x - x_hi) keeps the sign of t(x_hi) and
    sum_{x > x_hi} t(x)_+ = t(x_hi)_+ alpha / (1 - alpha); the left tail
    x < x_lo <= kmin is the mirror image with t(x_lo).
    """
    a = mix.alpha
    x_lo, x_hi = mix.kmin - 3, mix.kmax + 3
    pick = (lambda r: (r[0], r[1])) if A == "P" else (lambda r: (r[1], r[0]))

    def t(x):
        u, v = pick(mix(mpf(x)))
        return u - ee * v

    s = mpf(0)
    for x in range(x_lo, x_hi + 1):
        tx = t(x)
        if tx > 0:
            s += tx
    if a > 0:
        s += (max(t(x_hi), 0) + max(t(x_lo), 0)) * a / (1 - a)
    return s


def _continuous_hs(mix, A, eps, ee, dps):
    """int (f_A - ee f_B)_+ dx for Laplace / Gaussian noise (A = "P": plus).

    See noisy_counting_delta for the method.  Runs at the current (working)
    precision; dps is the requested output precision (for the error budget).
    """
    kind = mix.kind
    s = mix.scale
    kmin, kmax = mix.kmin, mix.kmax
    plus = (A == "P")

    def fg(x):
        fP, fQ = mix(x)
        if plus:
            return fP - ee * fQ, fP + ee * fQ
        return fQ - ee * fP, fQ + ee * fP

    def g(x):
        return fg(x)[0]

    def G(x):                       # g / h in [-1, 1]: scale-free sign test
        gv, hv = fg(x)
        return gv / hv if hv != 0 else mpf(0)

    # coefficient sign changes V of d_k = A(k) - ee B(k) (Gaussian: Descartes'
    # rule for the exponential sum g(x) = e^(-x^2/2s^2) sum_k c_k e^(kx/s^2)
    # bounds the number of real zeros of g by V)
    Wt, Bt = (mix.P, mix.Q) if plus else (mix.Q, mix.P)
    dsgn = []
    noise_floor = mpmath.ldexp(1, -mp.prec + 10)
    for k in range(kmin, kmax + 1):
        dk = Wt[k] - ee * Bt[k]
        if abs(dk) > noise_floor * (Wt[k] + ee * Bt[k]):
            dsgn.append(_sign(dk))
    V = sum(1 for u, v in zip(dsgn, dsgn[1:]) if u != v)

    tol_rel = mpmath.mpf(10) ** (-(dps + 10))   # budget for neglected mass
    small = s < mpf(1) / 2

    def local_splits(lo_int, hi_int):
        """extra split points k +- s 2^i (s < 1/2) around the atoms."""
        pts = []
        if small:
            offs = []
            o = s
            while o < mpf(1) / 2:
                offs.append(o)
                o *= 2
            for k in range(lo_int, hi_int + 1):
                for o in offs:
                    pts += [k - o, k + o]
        return pts

    piece_cache = {}
    root_cache = {}

    def integrate(pieces):
        """pieces: list of (a, b) with g > 0 inside (checked at the midpoint
        by the caller).  Integrate in decreasing order of a rigorous mass
        bound, stop when the sum of the remaining bounds is below tol_rel D.
        Returns (D, error estimate + neglected bound)."""
        bounds = []
        for a, b in pieces:
            lb = mix.log_mass_bound(a, b, A)
            bounds.append((lb, a, b))
        bounds.sort(key=lambda t: -t[0])
        # suffix sums of the bounds (mpf, no underflow)
        rem = [mpf(0)] * (len(bounds) + 1)
        for i in range(len(bounds) - 1, -1, -1):
            lb = bounds[i][0]
            rem[i] = rem[i + 1] + (mpmath.exp(lb) if lb > -math.inf else 0)
        D = mpf(0)
        err = mpf(0)
        for i, (lb, a, b) in enumerate(bounds):
            if rem[i] <= tol_rel * D:
                err += rem[i]
                break
            key = (a, b)
            if key not in piece_cache:
                piece_cache[key] = integrate_piece(a, b)
            v, e = piece_cache[key]
            D += v
            err += e
        return D, err

    def integrate_piece(a, b):
        if a == mpmath.ninf:
            sc = fg(b)[1]
        elif b == mpmath.inf:
            sc = fg(a)[1]
        else:
            sc = max(fg(a)[1], fg(b)[1], fg((a + b) / 2)[1])
        if sc == 0:
            sc = mpf(1)

        def F(x):
            gv = g(x)
            return gv / sc if gv > 0 else mpf(0)

        if a == mpmath.ninf or b == mpmath.inf:
            v, e = _ts_piece(F, a, b)
        else:
            v, e = _gl_piece(F, a, b)
        return v * sc, e * sc

    ef = float(eps)

    def sign_at(x):
        """sign of g(x): read from the float logs when
        |ln f_A - ln f_B - eps| > 1e-7 (1 + |ln f_A| + |ln f_B| + |eps|)
        (float error of those logs is < 1e-10 of that scale), else from the
        mpmath values."""
        lP, lQ = mix.log_pair(float(x))
        la, lb = (lP, lQ) if plus else (lQ, lP)
        if la == -math.inf and lb == -math.inf:
            return _sign(g(x))
        if lb == -math.inf:
            return 1
        if la == -math.inf:
            return -1
        diff = la - lb - ef
        if abs(diff) > 1e-7 * (1 + abs(la) + abs(lb) + abs(ef)):
            return 1 if diff > 0 else -1
        return _sign(g(x))

    def scan(points):
        """sorted grid points -> list of roots (each sign change refined by
        _bracket_root on the mpmath G, exact zeros kept) and the number of
        sign changes."""
        roots = []
        nchange = 0
        prev_x, prev_s = None, None
        for x in points:
            sx = sign_at(x)
            if sx == 0:
                # exact zero on the grid: a root (or a touching point); the
                # next bracket starts after it
                roots.append(x)
                nchange += 1
                prev_x = prev_s = None
                continue
            if prev_x is not None and prev_s != sx:
                nchange += 1
                key = (prev_x, x)
                if key not in root_cache:
                    Ga, Gb = G(prev_x), G(x)
                    if _sign(Ga) != prev_s or _sign(Gb) != sx:
                        raise ArithmeticError(
                            "noisy oracle: float and mpmath signs disagree")
                    root_cache[key] = _bracket_root(G, prev_x, x, Ga, Gb)
                roots.append(root_cache[key])
            prev_x, prev_s = x, sx
        return roots, nchange

    def positive_pieces(breaks):
        out = []
        for a, b in zip(breaks[:-1], breaks[1:]):
            if not a < b:
                continue
            if sign_at((a + b) / 2) > 0:
                out.append((a, b))
        return out

    if kind == "laplace":
        # Rigorous root location: on every [j, j+1] between consecutive
        # integers each term is c e^(+-x/b), so g = A e^(x/b) + B e^(-x/b)
        # has at most one zero there unless it vanishes identically; beyond
        # the outermost atoms g is a single exponential (constant sign).
        # Hence the signs at the integers (plus midpoints, which only make
        # the brackets tighter) find every sign change.
        grid = []
        for j in range(kmin, kmax + 1):
            grid.append(mpf(j))
            if j < kmax:
                grid.append(mpf(j) + mpf(1) / 2)
        roots, _ = scan(grid)
        breaks = sorted(set([mpf(j) for j in range(kmin, kmax + 1)] + roots
                            + local_splits(kmin, kmax)))
        breaks = [x for x in breaks if kmin <= x <= kmax]
        pieces = positive_pieces(breaks)
        # tails: g(x) = g(kmax) e^(-(x-kmax)/b) beyond kmax, mirror below kmin;
        # integrated by quadrature too, split at kmax + b {1, 4, 16, 64}.
        for edge, sgn in ((mpf(kmax), 1), (mpf(kmin), -1)):
            if g(edge) > 0:
                pts = [edge] + [edge + sgn * m * s for m in (1, 4, 16, 64)]
                pts.append(mpmath.inf if sgn > 0 else mpmath.ninf)
                if sgn < 0:
                    pts = pts[::-1]
                pieces += list(zip(pts[:-1], pts[1:]))
        D, err = integrate(pieces)
        if err > mpmath.mpf(10) ** (-(dps + 3)) * D:
            raise ArithmeticError(
                f"noisy oracle: error budget {mpmath.nstr(err, 3)} too large "
                f"for delta = {mpmath.nstr(D, 5)}")
        return D

    # ---------------- Gaussian ----------------
    # Grid of step h <= s/8 anchored at 0 (so refinements / extensions reuse
    # cached values) over [kmin - W s, kmax + W s]; the mass of f_A outside
    # is <= 2 Phibar(W) and is neglected only once that is < tol_rel D
    # (otherwise W grows).  If fewer sign changes than V are found the grid
    # is halved (at most twice).
    h = s / 8
    u = max(1, int(mpmath.floor(s)))            # split spacing
    W = mpf(14)
    refine = 0
    for _ in range(40):
        lo = kmin - W * s
        hi = kmax + W * s
        j0 = int(mpmath.floor(lo / h))
        j1 = int(mpmath.ceil(hi / h))
        grid = [j * h for j in range(j0, j1 + 1)]
        roots, F_found = scan(grid)
        if F_found < V and refine < 2:
            refine += 1
            h /= 2
            continue
        i0 = int(mpmath.floor(grid[0] / u))
        i1 = int(mpmath.ceil(grid[-1] / u))
        splits = [mpf(i * u) for i in range(i0, i1 + 1)]
        breaks = sorted(set(splits + roots + local_splits(kmin, kmax)
                            + [grid[0], grid[-1]]))
        breaks = [x for x in breaks if grid[0] <= x <= grid[-1]]
        pieces = positive_pieces(breaks)
        D, err = integrate(pieces)
        # mass of f_A outside [lo, hi]: each atom is >= W s inside, total
        # weight <= 1 (+ rounding): <= 2 * 1.01 * Phibar(W)
        Wg = min(grid[-1] - kmax, kmin - grid[0]) / s
        tail = 2 * mpf("1.01") * mpmath.erfc(Wg / mpmath.sqrt(2)) / 2
        if D > 0 and tail <= tol_rel * D:
            err += tail
            if err > mpmath.mpf(10) ** (-(dps + 3)) * D:
                raise ArithmeticError(
                    f"noisy oracle: error budget {mpmath.nstr(err, 3)} too "
                    f"large for delta = {mpmath.nstr(D, 5)}")
            return D
        if D > 0:
            # smallest W with 2.02 Phibar(W) <= tol_rel D (Phibar(W) <=
            # phi(W)/W), then a little more
            target = mpmath.log(tol_rel * D / mpf("2.02"))
            Wn = mpmath.sqrt(-2 * target)
            while -Wn * Wn / 2 - mpmath.log(Wn * mpmath.sqrt(2 * mpmath.pi)) > target:
                Wn *= mpf("0.98")
            W = max(W * mpf("1.25"), Wn * mpf("1.05"))
        else:
            W *= 2
        if W > 10 ** 6:
            break
    raise ArithmeticError(
        "noisy oracle: could not bound the Gaussian tails (delta seems to be 0)")


def noisy_counting_delta(n, pi, eps, noise, *, sample_size=None,
                         sample_rate=None, sampling="without_replacement",
                         direction="max", dps=30, max_terms=None):
    """Privacy curve of a noisy counting query Y = C + N, by brute force.

    C is the noiseless count with laws P (target positive) and Q (target
    negative) from ``counting_pmfs`` (same ``n``, ``pi`` -- scalar or the
    sequence of the others' probabilities -- ``sample_size``,
    ``sample_rate``, ``sampling``), pmfs on the atoms 0..L.  ``noise`` (count
    units, sensitivity 1):

    * ``("laplace", b)``: density e^(-|x|/b) / (2b), b > 0;
    * ``("gaussian", sigma)``: N(0, sigma^2), sigma > 0;
    * ``("geometric", alpha)``: P(k) = (1-alpha)/(1+alpha) alpha^|k| on the
      integers, 0 <= alpha < 1 (alpha = 0: no noise).

    The laws of Y are f_P(x) = sum_k P(k) nu(x-k) and f_Q likewise;
    delta_plus = int (f_P - e^eps f_Q)_+ dx (a sum over the integers for
    geometric noise), delta_minus with P and Q swapped, "max" the larger.
    ``eps`` scalar -> mpf, list -> list of mpf (any real eps).

    Method (all at dps + 15 digits, rounded to dps at the end):

    * Density values: f_P(x), f_Q(x) are summed directly over the atoms at
      each point x (mpmath.fdot of the weights with the kernel values
      nu(x - k), built from exact identities such as
      e^(-(x-k)^2/2s^2) = e^(-d^2/2s^2) (e^(d/s^2))^m e^(-m^2/2s^2),
      d = x - k_c, m = k - k_c; geometric: powers alpha^m), dropping only
      terms that are rigorously below one rounding unit of f_P(x) + f_Q(x)
      in total (see _NoisyMixture).  Nothing is carried from one x to the
      next except a cache of values at identical points.
    * Geometric: exact sum over the integers of the window
      [kmin - 3, kmax + 3] (kmin, kmax the outermost atoms); beyond it f_P
      and f_Q are both c alpha^|x| times constants, so the summand keeps its
      sign and each tail is a geometric series, t(edge)_+ alpha/(1-alpha).
    * Laplace / Gaussian: g = f_P - e^eps f_Q is scanned on a grid and every
      sign change (of the scale-free G = g/(f_P + e^eps f_Q)) is refined with
      mpmath.findroot (Anderson-Bjoerk bracketing solver; bisection
      fallback).  Signs at grid points are read from float logs of f_P, f_Q
      when ln f_P - ln f_Q - eps is clearly away from 0, else from the mpmath
      values; every bracket is re-checked in mpmath before findroot.  The
      line is cut at the roots and at split points (every integer for
      Laplace -- the kinks --; every max(1, floor(sigma)) for Gaussian; plus
      atom +- s 2^i when the scale s < 1/2), the sign of g on each piece is
      read at its midpoint and each positive piece is integrated by
      mpmath.quad (Gauss-Legendre; tanh-sinh on the infinite Laplace
      tails).  As in dp_laplace_delta / dp_gaussian_delta, quad's absolute
      error control is made relative by dividing the integrand by its size
      f_P + e^eps f_Q on the piece, so tiny deltas (1e-100 and far below)
      keep full relative accuracy.  Pieces are integrated in decreasing order
      of a rigorous bound (length x sup of f_P on the piece, from
      nu(distance of each atom to the piece)); the rest are dropped once
      their bounds sum to < 1e-(dps+10) times the running total.
      - Laplace grid: the integers kmin..kmax and midpoints.  This finds
        every root: on [j, j+1] g = A e^(x/b) + B e^(-x/b) has at most one
        zero (unless it vanishes identically), and outside [kmin, kmax] g is
        a single exponential of constant sign.  The two outer tails are
        integrated by quad to +-infinity (split at kmax + b {1,4,16,64}).
      - Gaussian grid: step sigma/8, anchored at 0, over
        [kmin - W sigma, kmax + W sigma]; the mass of f_P outside is
        <= 2 Phibar(W) and it is neglected only once that is below
        1e-(dps+10) delta; W starts at 14 and grows as needed (so deltas
        living far out in the tail -- large eps -- are found).  By Descartes'
        rule of signs for exponential sums,
        g(x) = e^(-x^2/(2 sigma^2)) sum_k c_k e^(k x/sigma^2),
        c_k = (P(k) - e^eps Q(k)) e^(-k^2/(2 sigma^2)), has at most V real
        zeros, V = number of sign changes of P(k) - e^eps Q(k); if the scan
        finds fewer than V the grid step is halved (twice at most).  (For
        the pmfs of counting_pmfs P/Q is monotone, so V <= 1 and, the
        Gaussian and Laplace kernels being PF2, g changes sign at most once;
        the oracle does not rely on this.)
    * Shortcuts (exact): if P(k) - e^eps Q(k) <= 0 for all k, g <= 0 and
      delta = 0; if >= 0 for all k, delta = sum_k (P(k) - e^eps Q(k)).
    * The quadrature error estimates plus all neglected bounds must be
      below 1e-(dps+3) delta, else ArithmeticError.

    Slow but simple: cost ~ (#positive pieces) x (~45 quad nodes) x (#atoms
    within ~15 noise scales).  Sizes whose estimated cost per eps value
    (estimate_terms) exceeds ``max_terms`` are refused up front (ValueError).
    """
    _check_direction(direction)
    kind, par = _check_noise(noise)
    size = _counting_size(n, pi, sample_size, sample_rate, sampling)
    if size is not None:
        _guard(size[1] + _eval_terms(size[0], (kind, par), direction), max_terms,
               f"a count over {size[0]} records with {kind} noise")
    wp = dps + 15
    with mp.workdps(dps):
        eps_vals, scalar = _eps_list(eps)
    with mp.workdps(wp):
        p = _to_mpf(par, "noise parameter")
        if kind == "geometric":
            if not (0 <= p < 1):
                raise ValueError(f"geometric alpha must lie in [0, 1), got {par!r}")
        elif p <= 0:
            raise ValueError(f"{kind} noise scale must be > 0, got {par!r}")
        P, Q = counting_pmfs(n, pi, sample_size=sample_size,
                             sample_rate=sample_rate, sampling=sampling, dps=wp,
                             max_terms=math.inf)
        L = len(P) - 1
        emax = max(abs(float(e)) for e in eps_vals)
        T = mp.prec * _LN2 + math.log(L + 1) + emax + 2.0
        mix = _NoisyMixture(P, Q, kind, p, T)
        out = []
        for e in eps_vals:
            ee = mpmath.exp(e)
            vals = {}
            for A, B in (("P", "Q"), ("Q", "P")):
                if direction == "plus" and A == "Q":
                    continue
                if direction == "minus" and A == "P":
                    continue
                Wt, Bt = (P, Q) if A == "P" else (Q, P)
                d = [w - ee * v for w, v in zip(Wt, Bt)]
                if all(x <= 0 for x in d):
                    # g = sum_k d_k nu(x - k) <= 0 everywhere
                    vals[A] = mpf(0)
                elif all(x >= 0 for x in d):
                    # g >= 0 everywhere: delta = int g = sum_k d_k
                    vals[A] = mpmath.fsum(d)
                elif kind == "geometric":
                    vals[A] = _geometric_hs(mix, A, B, ee)
                else:
                    vals[A] = _continuous_hs(mix, A, e, ee, dps)
            out.append(max(vals.values()))
    with mp.workdps(dps):
        out = [+v for v in out]
    return out[0] if scalar else out


def normal_approx_delta(n, pi, eps, sigma, direction="max", dps=30):
    """Breutigam & Reischuk Lemma 6: the NORMAL APPROXIMATION of the Gaussian-noise curve
    (count units) -- a labelled approximation, not the exact curve.

    S + N ~ N(mu, v) with v = sum_j pi_j (1 - pi_j) + sigma^2 over the n-1
    others ((n-1) pi (1-pi) + sigma^2 for scalar pi), mu = sum_j pi_j;
    under P the law is shifted by +1.  Evaluated directly:
      delta_plus  = Phibar((x* - mu - 1)/s) - e^eps Phibar((x* - mu)/s),
                    x*  = mu + 1/2 + eps v  (crossing of the two densities),
      delta_minus = Phi((x** - mu)/s) - e^eps Phi((x** - mu - 1)/s),
                    x** = mu + 1/2 - eps v,
    s = sqrt(v).  Both equal the worst-case Gaussian DP curve with
    sigma_eff = s: Phi(1/(2s) - eps s) - e^eps Phi(-1/(2s) - eps s).
    The two terms nearly cancel when eps v is large (relative gap ~
    1/(eps v)); extra guard digits log10(2 + |eps| v) are added.
    """
    _check_direction(direction)
    with mp.workdps(dps):
        eps_vals, scalar = _eps_list(eps)

    def mean_var():
        n_, p, ps = _others_probs(n, pi)
        sg = _to_mpf(sigma, "sigma")
        if sg < 0:
            raise ValueError(f"sigma must be >= 0, got {sigma!r}")
        if ps is None:
            mu = (n_ - 1) * p
            v = (n_ - 1) * p * (1 - p) + sg * sg
        else:
            mu = mpmath.fsum(ps)
            v = mpmath.fsum(x * (1 - x) for x in ps) + sg * sg
        if v <= 0:
            raise ValueError("variance is 0 (no noise and no uncertain records)")
        return mu, v

    out = []
    for e in eps_vals:
        with mp.workdps(dps + 15):
            _, v = mean_var()
            guard = int(mpmath.log10(2 + abs(e) * v)) + 1
        with mp.workdps(dps + 15 + guard):
            mu, v = mean_var()
            s = mpmath.sqrt(v)
            ee = mpmath.exp(e)
            r2 = mpmath.sqrt(2)

            def Phibar(z):
                return mpmath.erfc(z / r2) / 2

            def Phi(z):
                return mpmath.erfc(-z / r2) / 2

            xs = mu + mpf(1) / 2 + e * v
            plus = Phibar((xs - mu - 1) / s) - ee * Phibar((xs - mu) / s)
            xss = mu + mpf(1) / 2 - e * v
            minus = Phi((xss - mu) / s) - ee * Phi((xss - mu - 1) / s)
            val = _pick(direction, plus, minus)
        out.append(val)
    with mp.workdps(dps):
        out = [+v for v in out]
    return out[0] if scalar else out


__all__ += ["noisy_counting_delta", "normal_approx_delta"]
