"""Independent mpmath oracle for statpriv's privacy curves, written from the definitions.

It shares no code with statpriv (it does not import statpriv or its reference
module); it is the "truth" of the differential test (tests/differential.py,
tools/difftest.py).  Everything is evaluated with mpmath at >= 50 significant
digits; mpmath has no underflow, so delta is returned as an mpf even where it
is e^-100000.

Definitions.  For laws P (target record has the property) and Q (it has not)
of what the attacker sees, the hockey-stick divergence is

    H_eps(P || Q) = sum_x (P(x) - e^eps Q(x))_+     (densities: an integral),

delta_plus(eps) = H_eps(P || Q), delta_minus(eps) = H_eps(Q || P) and
delta(eps) = max(delta_plus, delta_minus) (Breutigam & Reischuk, "Statistical
Privacy", Def. 5; Balle et al.'s privacy profile).  For a count of records
X_1..X_n (independent Bernoulli, the target is record 1) with S the count of the
others and independent noise N, P is the law of 1 + S + N and Q that of S + N.

Precision.  Every curve is evaluated at two working precisions (D and D + 20
digits, the laws rebuilt at each); the result is accepted when both agree to
1e-40 relative, else D is raised by the digits lost and the evaluation repeated
(this covers every cancellation, e.g. near a zero point or in the deep tails).
Sums over huge supports (n up to 1e12) are windowed, with the neglected terms
bounded by a geometric series; the windows are widened until the bound is
below 1e-32 of the value.  Work is bounded: a case that would need more than
MAX_TERMS terms (or MAX_ATOMS atoms, or more than MAX_DPS digits) raises
TooExpensive (a ValueError) instead of hanging.

Public entry points (each returns an OracleCurve; ``curve.deltas(eps_list)``
gives [(delta_plus, delta_minus), ...] as mpf, ``curve.zero_point(direction)``
the eps0 where delta falls to 0, mpmath.inf if it never does):

    binomial(n, pi)                          noiseless iid count
    per_record(pis, rate=1)                  Poisson-binomial (optionally Poisson-sampled)
    subsample(n, pi, m)                      m of n without replacement
    poisson_sample(n, pi, rate)              each record kept w.p. rate
    with_replacement(n, pi, m)               m draws with replacement (a record counted per draw)
    secret_sample(n, m, K)                   A. Smith 2009, secrecy of the sample
    dp_laplace(b), dp_gaussian(sigma), dp_geometric(alpha)    worst-case DP
    noisy(count_curve, ("laplace"|"gaussian"|"geometric", param))   count + noise
    worst_case(N, p, vertices=None)          partial knowledge: max over the vertices
    shuffled_rr(n, eps0, vertices=None)      shuffled randomized response (the same, rr pair)
    blanket(N, p)                            the privacy-blanket bound (brute-force sum)
    thresholded(n, pi, tau, known, attacker) thresholded count, active / passive attacker
    k_anonymity(n, pa, pb, k, bound)         k-anonymous histogram, lower / upper
    clones(n, eps0)                          shuffling by the clone reduction
    product(a, b)                            two independent discrete releases (composition)
    randomized_response(eps0, k)             k-ary randomized response (Warner)
    subsampled(curve, q, sampling)           a discrete release run on a Poisson / fixed-size sample
    correlated_counts(n, joint, target)      k counts on the same correlated records

Reference computations of single curves and laws from the definitions (at the end;
plain mpmath, not the two-precision scheme above), used by the tests directly or
through their stored values (tests/data/reference/independent.json):

    counting_log_delta, windowed_delta_plus  the noiseless iid count (full sum; windowed)
    poisson_tail_log_delta, first_above, log_binom   Poisson sampling (Smith 2009, Alg. 2)
    secret_sample_log_delta_plus             the secret sample, atoms from the top down
    sampled_gaussian_log_delta, gaussian_log_delta_mp, mixture_mp   sampled count + Gaussian
    laplace_noise_quad                       explicit laws + Laplace noise by quadrature
    independent_deltas                       deltas of a curve above, flattened for storing
    binomial_mp, geometric_noise_mp, gaussian_delta_mp   explicit laws, the Gaussian mechanism
    sampled_dp_log_delta, sampled_geometric_product_delta   Poisson-subsampled DP (one
                                             DP-SGD step; products of the geometric one)
    sampled_gaussian_product_delta           k <= 3 DP-SGD steps (the sampled Gaussian's
                                             product laws, nested quadrature)
    sampled_gaussian_mix(sigma, q, relation, folds, gaussians)   an OracleCurve: DP-SGD
                                             steps beside Gaussian mechanisms (the
                                             differential test's compose_sampled)
    (both take arithmetic="arb": the same quadrature on python-flint's Arb balls,
    ~10 times faster than mpmath's pure-Python arithmetic; the stored values are
    mpmath's)
"""
import contextlib
import itertools
import math
from fractions import Fraction

import mpmath
from mpmath import mp, mpf

DPS = 50                 # significant digits of every result
CHECK_STEP = 20          # second evaluation at DPS + CHECK_STEP digits
AGREE = mpf(10) ** -40   # relative agreement required between the two
MAX_DPS = 4000           # beyond this the oracle refuses (TooExpensive)
MAX_TERMS = 3_000_000    # windowed binomial sums
MAX_ATOMS = 6000         # explicit laws (brute-force sums)
MAX_NOISY_ATOMS = 2500   # laws convolved with continuous/discrete noise
BRUTE_N = 3000           # iid counts with n - 1 <= BRUTE_N are summed over every k
WINDOW_REL = Fraction(1, 10 ** 32)   # neglected terms <= this fraction of the value


class TooExpensive(ValueError):
    """The oracle would exceed its work bound for this case."""


# ---------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------

def _mp(x):
    """Exact mpf of a float/int/Fraction (at the current precision for Fractions)."""
    if isinstance(x, Fraction):
        return mpf(x.numerator) / x.denominator
    return mpf(x)


def _frac(x):
    """The exact rational value of a float (floats are dyadic)."""
    return Fraction(x)


def _binom_int(N, k):
    return math.comb(N, k)


def _eps_value(e):
    """eps as given: a float is exact; a decimal string (e.g. '0.05') is converted by
    mpmath at each working precision (for published values stated in decimal)."""
    return e if isinstance(e, str) else float(e)


def _agree(a, b):
    if a == b:
        return True
    scale = max(abs(a), abs(b))
    return abs(a - b) <= AGREE * scale


def _noise_floor():
    """Relative size of rounding noise at the current precision: a difference
    p - E q smaller than this times p + E q is indistinguishable from 0 and is
    counted as 0 (so exact zeros, e.g. at a zero point, come out exactly 0 at
    every precision; a genuine tiny value shows up as a disagreement between the
    two precisions and the precision is raised)."""
    return mpf(2) ** (10 - mp.prec)


def _pos(p, q, E, floor, em1=None):
    """(p - E q) if it is positive beyond the rounding noise, else 0.  With em1 =
    expm1(eps) given, an atom with p == q gives -em1 q exactly (> 0 for eps < 0, even
    where e^eps rounds to 1 at the working precision, e.g. eps = -5e-324)."""
    if em1 is not None and p == q:
        t = -em1 * q
        return t if t > 0 else mpf(0)
    t = p - E * q
    if t > floor * (abs(p) + E * abs(q)):
        return t
    return mpf(0)


def _hs(P, Q, E, em1=None):
    """sum_x (P(x) - E Q(x))_+ over aligned lists (em1 = expm1(eps): see _pos)."""
    s = mpf(0)
    floor = _noise_floor()
    for p, q in zip(P, Q):
        s += _pos(p, q, E, floor, em1)
    return s


def _exp_eps(eps):
    """(E, E - 1) = (e^eps, expm1(eps)) at the current precision; eps a float."""
    e = mpf(eps)
    return mpmath.exp(e), mpmath.expm1(e)


# ---------------------------------------------------------------------------
# the curve object: two-precision evaluation
# ---------------------------------------------------------------------------

class OracleCurve:
    """A privacy curve of the oracle.

    Subclasses implement ``_eval(eps, dps) -> (delta_plus, delta_minus)`` at
    ``dps`` working digits (laws may be cached per dps) and ``_zero(direction)``.
    """

    kind = "curve"
    extra_dps = 0            # digits added to DPS for this curve (large n, tiny sigma)
    self_checked = False     # _eval carries its own rigorous error bound

    def __repr__(self):
        return f"<oracle {self.kind} {self.params}>"

    def deltas(self, eps_list):
        """[(delta_plus, delta_minus)] as mpf for each float eps of eps_list."""
        return [self._checked(_eps_value(e)) for e in eps_list]

    def delta(self, eps, direction="max"):
        dp, dm = self._checked(_eps_value(eps))
        return {"plus": dp, "minus": dm, "max": max(dp, dm)}[direction]

    def _checked(self, eps):
        """(delta_plus, delta_minus) at eps, evaluated once per curve and eps (the
        differential test asks the same eps for several directions: the zero
        points of "max" are those of "plus" or "minus")."""
        memo = self.__dict__.setdefault("_memo", {})
        if eps not in memo:
            memo[eps] = self._checked_eval(eps)
        return memo[eps]

    def _checked_eval(self, eps):
        dps = DPS + 10 + self.extra_dps
        if self.self_checked:
            with mp.workdps(dps):
                return tuple(+v for v in self._eval(eps, dps))
        for _ in range(8):
            if dps > MAX_DPS:
                break
            with mp.workdps(dps):
                lo = self._eval(eps, dps)
            with mp.workdps(dps + CHECK_STEP):
                hi = self._eval(eps, dps + CHECK_STEP)
                if all(_agree(a, b) for a, b in zip(lo, hi)):
                    return hi
                # digits lost between the two evaluations
                lost = 0
                for a, b in zip(lo, hi):
                    if a != b:
                        scale = max(abs(a), abs(b))
                        rel = abs(a - b) / scale if scale > 0 else mpf(1)
                        lost = max(lost, int(-mpmath.log10(rel)) if rel > 0 else 0)
                need = 40 - lost + CHECK_STEP
                dps = max(dps + CHECK_STEP, dps + need + 10, int(dps * 1.5))
        raise TooExpensive(f"{self!r} at eps={eps!r}: no agreement below {MAX_DPS} digits")

    def zero_point(self, direction="max"):
        """eps0 = ln sup over outcomes of P/Q (plus), Q/P (minus), or the max of both:
        the smallest eps with delta(eps) = 0 (mpmath.inf if delta > 0 for every eps).
        Each direction evaluated once per curve (the differential test asks the
        draw's "max", then every direction)."""
        if direction == "max":
            return max(self.zero_point("plus"), self.zero_point("minus"))
        memo = self.__dict__.setdefault("_zero_memo", {})
        if direction not in memo:
            with mp.workdps(DPS + 10 + self.extra_dps):
                memo[direction] = self._zero(direction)
        return memo[direction]


class _DiscreteCurve(OracleCurve):
    """Curves given by explicit count laws P, Q on atoms offset..offset+L-1.

    ``_laws()`` (at the current precision) returns (P, Q) as aligned lists of mpf;
    delta_plus = sum (P - e^eps Q)_+, delta_minus = sum (Q - e^eps P)_+.
    """

    def __init__(self):
        self._cache = {}

    def _get(self, dps):
        """The laws (P, Q) built at dps digits (cached, a few precisions at most)."""
        if dps not in self._cache:
            with mp.workdps(dps):
                P, Q = self._laws()
            if len(P) > MAX_ATOMS:
                raise TooExpensive(f"{self!r}: {len(P)} atoms > {MAX_ATOMS}")
            if len(self._cache) >= 3:
                self._cache.pop(next(iter(self._cache)))
            self._cache[dps] = (P, Q)
        return self._cache[dps]

    def _eval(self, eps, dps):
        P, Q = self._get(dps)
        E, em1 = _exp_eps(eps)
        return _hs(P, Q, E, em1), _hs(Q, P, E, em1)

    def _zero(self, direction):
        P, Q = self._get(DPS + 10 + self.extra_dps)
        return _log_max_ratio(P, Q) if direction != "minus" else _log_max_ratio(Q, P)


def _log_max_ratio(P, Q):
    """ln max_k P(k)/Q(k) over the atoms of P (inf if P has an atom where Q has
    none): the zero point of H_eps(P||Q)."""
    best = mpf(0)
    for p, q in zip(P, Q):
        if p > 0:
            if q == 0:
                return mpmath.inf
            best = max(best, p / q)
    return mpmath.log(best)


def _shift(Z):
    """P(j) = Z(j-1), Q(j) = Z(j) on j = 0..len(Z)."""
    return [mpf(0)] + list(Z), list(Z) + [mpf(0)]


def _mixture(A, B, lam):
    """P(j) = lam A(j-1) + (1-lam) B(j), Q(j) = lam A(j) + (1-lam) B(j), j = 0..L-1.

    A is the law of the others' count when the target is in the sample, B when it
    is not (B may be empty: the target is always in the sample)."""
    L = max(len(A) + 1, len(B))
    P = [mpf(0)] * L
    Q = [mpf(0)] * L
    one_minus = 1 - lam
    for j, a in enumerate(A):
        P[j + 1] += lam * a
        Q[j] += lam * a
    for j, b in enumerate(B):
        P[j] += one_minus * b
        Q[j] += one_minus * b
    return P, Q


def _binomial_pmf(N, p, q):
    """[C(N,k) p^k q^(N-k) for k = 0..N] (q = 1 - p, given separately so it is accurate)."""
    if N > MAX_ATOMS:
        raise TooExpensive(f"Bin({N}) has more than {MAX_ATOMS} atoms")
    if p == 0:
        return [mpf(1)] + [mpf(0)] * N
    if q == 0:
        return [mpf(0)] * N + [mpf(1)]
    return [_binom_int(N, k) * p ** k * q ** (N - k) for k in range(N + 1)]


def _one_minus(x):
    """1 - x for a float x, exactly where the precision allows (mpf arithmetic)."""
    return mpf(1) - mpf(x)


# ---------------------------------------------------------------------------
# windowed binomial shift sums (huge n): exact integer arithmetic, rigorous bounds
# ---------------------------------------------------------------------------

def _log_binom_term(N, k, rho):
    """ln [C(N,k) rho^k (1-rho)^(N-k)] for a Fraction 0 < rho < 1 (current precision)."""
    u, v = rho.numerator, rho.denominator
    return (mpmath.loggamma(N + 1) - mpmath.loggamma(k + 1) - mpmath.loggamma(N - k + 1)
            + k * mpmath.log(u) + (N - k) * mpmath.log(v - u) - N * mpmath.log(v))


def binomial_shift_sum(N, rho, E, *, reverse=False, max_terms=MAX_TERMS):
    """H(E) = sum_{k=0}^{N+1} (b(k-1) - E b(k))_+ for b = Bin(N, rho), rho a Fraction in (0,1).

    With ``reverse`` the roles are swapped: sum_k (b(k) - E b(k-1))_+, which is
    the same sum for Bin(N, 1 - rho) (reflect k -> N + 1 - k).  E > 0 an mpf.

    Method (a window with a proven bound).  The ratio r(k) = b(k-1)/b(k) =
    k (1-rho) / ((N-k+1) rho) increases in k, so the positive terms are exactly
    k >= k+ = floor(kappa) + 1, kappa = E rho (N+1) / (1 - rho + E rho).
    - If E > 1, k+ - 1 >= mode = floor((N+1) rho) and the terms b(k-1) for k >= k+
      decrease; H = sum_{k=k+}^{K} t(k) + R with 0 <= R <= sum_{j>=K} b(j)
      <= b(K) / (1 - b(K+1)/b(K)) (the ratios b(j+1)/b(j) decrease in j).
    - If E <= 1, sum_k t(k) = 1 - E over all k, so H = (1 - E) + sum_{k<k+} (E b(k) -
      b(k-1)), every term >= 0; summed from k+ - 1 down to K with remainder
      R <= E sum_{j<K} b(j) <= E b(K-1) / (1 - b(K-2)/b(K-1)).
    The terms are generated by the exact rational ratio b(k+1)/b(k) =
    (N-k) u / ((k+1)(v-u)), rho = u/v, in fixed-point integers of >= 400 bits from
    one anchor b(k) computed with loggamma; the rounding error of the recurrence is
    bounded explicitly and must be below 1e-34 of the sum, else more bits are used.
    The window grows until R <= 1e-32 H.  Returns an mpf (the sum plus R/2; the
    error bound R/2 is below 1e-32 relative).
    """
    if reverse:
        rho = 1 - rho
    u, v = rho.numerator, rho.denominator
    w = v - u
    if not (0 < u < v):
        raise ValueError("rho must be in (0, 1)")
    kappa = E * u * (N + 1) / (w + E * u)
    kplus = int(mpmath.floor(kappa)) + 1
    mode = ((N + 1) * u) // v
    if E > 1 and kplus - 1 < mode:          # cannot happen (see docstring); be safe
        kplus = mode + 1
    upward = E > 1
    if upward:
        anchor = kplus - 1                 # b(k+ - 1) is the first b(k-1)
        if anchor > N:                     # only t(N+1) = b(N)
            anchor = N
    else:
        anchor = min(kplus - 1, N)         # E b(k) - b(k-1) for k = k+ - 1 downwards
        if anchor < 0:
            return 1 - E
    if not upward:
        # Everything the window adds is sum_{k <= anchor} (E b(k) - b(k-1)) <=
        # E sum_{j <= anchor} b(j) <= E b(anchor) / (1 - b(anchor-1)/b(anchor))
        # (the ratio b(j-1)/b(j) = j w / ((N-j+1) u) increases in j).  When that
        # is below WINDOW_REL of 1 - E the sum is 1 - E plus at most that: no
        # fixed-point window at all (its scale 2^-log2 b(anchor) would be an
        # integer of up to ~1e11 bits when b(anchor) is astronomically small).
        num, den = anchor * w, (N - anchor + 1) * u
        if anchor >= 1 and num < den:
            with mp.workprec(mp.prec + 64):
                bound = 2 * E * mpmath.exp(_log_binom_term(N, anchor, rho)) * den / (den - num)
                if bound <= _mp(WINDOW_REL) * (1 - E):
                    return +((1 - E) + bound / 4)
    bits = 400
    for _attempt in range(4):
        with mp.workprec(bits + 64 + int(2 * math.log2(N + 2))):
            la = _log_binom_term(N, anchor, rho)
            # b(anchor) = mant * 2^(-F)
            F = bits - int(mpmath.floor(la / mpmath.log(2)))
            B_anchor = int(mpmath.nint(mpmath.exp(la + F * mpmath.log(2))))
            G = bits
            Efp = int(mpmath.nint(E * mpf(2) ** G))
        scale_exp = F + G
        if not upward and scale_exp > 10 ** 6:
            # 1 - E scaled by 2^scale_exp would not fit a reasonable integer
            raise TooExpensive(f"binomial window: scale 2^{scale_exp} (N={N})")
        with mp.workprec(bits + 64):
            one_minus_E_scaled = 0 if upward else int((1 - E) * mpf(2) ** scale_exp)
        total = 0
        steps = 0
        err = 0           # bound on |computed - exact| of the scaled sum
        if upward:
            # t(k) = b(k-1) - E b(k) for k = anchor+1, ... ; b(k-1) with k-1 = anchor first
            k = anchor + 1
            b_prev = B_anchor      # b(k-1)
            e_prev = 1             # error bound of b_prev (units)
            # the case k+ - 1 > N handled: anchor = N, k = N+1 term is b(N)
            while True:
                if k <= N:
                    b_cur = b_prev * (N - k + 1) * u // (k * w)
                    e_cur = e_prev + 1
                else:
                    b_cur, e_cur = 0, 0
                t = (b_prev << G) - Efp * b_cur
                if t > 0:
                    total += t
                err += (e_prev << G) + Efp * e_cur + b_cur
                steps += 1
                if steps > max_terms:
                    raise TooExpensive(f"binomial window over {max_terms} terms (N={N})")
                if k > N:
                    rem = 0
                    break
                # remainder: sum_{j >= k} b(j) <= b(k) / (1 - ratio(k)), ratio(k)=b(k+1)/b(k)
                num = (N - k) * u
                den = (k + 1) * w
                if num < den and total > 0:
                    # rem_scaled = b_cur * 2^G / (1 - num/den)
                    rem = ((b_cur + e_cur) << G) * den // (den - num) + 1
                    if rem * WINDOW_REL.denominator <= total * WINDOW_REL.numerator:
                        break
                b_prev, e_prev = b_cur, e_cur
                k += 1
            value_scaled = total
        else:
            # terms E b(k) - b(k-1) for k = anchor, anchor-1, ..., 0
            k = anchor
            b_cur = B_anchor       # b(k)
            e_cur = 1
            while True:
                if k >= 1:
                    # b(k-1) = b(k) * k (v-u) / ((N-k+1) u)
                    b_prev = b_cur * k * w // ((N - k + 1) * u)
                    e_prev = e_cur + 1
                else:
                    b_prev, e_prev = 0, 0
                t = Efp * b_cur - (b_prev << G)
                if t > 0:
                    total += t
                err += (e_prev << G) + Efp * e_cur + b_cur
                steps += 1
                if steps > max_terms:
                    raise TooExpensive(f"binomial window over {max_terms} terms (N={N})")
                if k == 0:
                    rem = 0
                    break
                # remainder: E sum_{j <= k-1} b(j) <= E b(k-1) / (1 - b(k-2)/b(k-1))
                j = k - 1
                num = j * w                 # b(j-1)/b(j) = j w / ((N-j+1) u)
                den = (N - j + 1) * u
                if num < den:
                    rem = (Efp * (b_prev + e_prev)) * den // (den - num) + 1
                    if rem * WINDOW_REL.denominator <= (total + one_minus_E_scaled) \
                            * WINDOW_REL.numerator:
                        break
                b_cur, e_cur = b_prev, e_prev
                k -= 1
            value_scaled = total
        # rounding of the recurrence must be negligible; else more bits
        if value_scaled == 0 and rem == 0 and upward:
            return mpf(0)
        if err * 10 ** 34 <= value_scaled + one_minus_E_scaled:
            with mp.workprec(bits + 64):
                out = (mpf(value_scaled) + mpf(rem) / 2) / mpf(2) ** scale_exp
            if not upward:
                out = out + (1 - E)
            return +out
        bits *= 2
    raise TooExpensive("binomial window: recurrence rounding not controlled")


# ---------------------------------------------------------------------------
# noiseless count curves
# ---------------------------------------------------------------------------

class _Binomial(_DiscreteCurve):
    """S ~ Bin(n-1, pi): delta_plus = sum_k (b(k-1) - e^eps b(k))_+,
    delta_minus = sum_k (b(k) - e^eps b(k-1))_+, k = 0..n (b(-1) = b(n) = 0).
    n - 1 <= BRUTE_N: every k summed.  Larger n: binomial_shift_sum (window + bound)."""

    kind = "binomial"

    def __init__(self, n, pi):
        super().__init__()
        self.n, self.pi = int(n), float(pi)
        self.params = dict(n=self.n, pi=self.pi)
        self.N = self.n - 1
        self.extra_dps = int(math.log10(self.n + 1)) + 2
        self.windowed = self.N > BRUTE_N and 0.0 < self.pi < 1.0
        if self.windowed:
            self.self_checked = True

    def _laws(self):
        if self.pi in (0.0, 1.0) or self.N == 0:
            return _shift([mpf(1)])       # S is a known constant: point masses
        return _shift(_binomial_pmf(self.N, mpf(self.pi), _one_minus(self.pi)))

    def _eval(self, eps, dps):
        if not self.windowed:
            return super()._eval(eps, dps)
        E, _ = _exp_eps(eps)
        rho = _frac(self.pi)
        return (binomial_shift_sum(self.N, rho, E),
                binomial_shift_sum(self.N, rho, E, reverse=True))

    def _zero(self, direction):
        # the all-positive outcome n (plus) / all-negative outcome 0 (minus) has
        # probability > 0 under one law only when 0 < pi < 1; for pi in {0,1} or
        # n = 1 the laws are disjoint point masses: never 0.
        return mpmath.inf


def binomial(n, pi):
    """Noiseless iid count over n records, the others S ~ Bin(n-1, pi)."""
    return _Binomial(n, pi)


class _PerRecord(_DiscreteCurve):
    """S = sum of independent Bernoulli(rate * pi_j) (Poisson-binomial), by exact
    convolution z <- z (1 - p) + z(.-1) p record by record (records with p in {0,1}
    only shift).  P(j) = rate Z(j-1) + (1 - rate) Z(j), Q(j) = Z(j) (Poisson
    sampling of every record at ``rate``; rate = 1: the plain shift)."""

    kind = "per_record"

    def __init__(self, pis, rate=1.0):
        super().__init__()
        self.pis = [float(p) for p in pis]
        self.rate = float(rate)
        self.params = dict(n=len(self.pis) + 1, rate=self.rate)
        if len(self.pis) > 2000:
            raise TooExpensive("per-record oracle: at most 2000 records")

    def _laws(self):
        r = mpf(self.rate)
        z = [mpf(1)]
        shift = 0
        for p in self.pis:
            rho = r * mpf(p)          # exact product of two doubles at >= 32 digits
            if rho == 0:
                continue
            if rho == 1:
                shift += 1
                continue
            om = 1 - rho
            new = [mpf(0)] * (len(z) + 1)
            for k, zk in enumerate(z):
                new[k] += zk * om
                new[k + 1] += zk * rho
            z = new
        z = [mpf(0)] * shift + z
        if self.rate == 1.0:
            return _shift(z)
        return _mixture(z, z, r)


def per_record(pis, rate=1.0):
    """Count with per-record probabilities pis (the n-1 others), optionally every
    record Poisson-sampled at ``rate``."""
    return _PerRecord(pis, rate)


class _Sampled(_DiscreteCurve):
    """A uniform sample of m of the n records (the target among them with
    probability lam = m/n): with C_k the law of the count among k sampled others,
    P(j) = lam C_{m-1}(j-1) + (1-lam) C_m(j), Q(j) = lam C_{m-1}(j) + (1-lam) C_m(j).
    Subclasses give C_k as ``_component(k)``.  m <= MAX_ATOMS."""

    def __init__(self, n, m, **params):
        super().__init__()
        self.n, self.m = int(n), int(m)
        self.params = dict(n=self.n, m=self.m, **params)
        if self.m > MAX_ATOMS:
            raise TooExpensive(f"sample size {self.m} > {MAX_ATOMS}")
        self.extra_dps = int(math.log10(self.n)) + 2

    def _laws(self):
        A = self._component(self.m - 1)
        if self.m == self.n:
            return _shift(A)
        return _mixture(A, self._component(self.m), mpf(self.m) / self.n)


class _Subsample(_Sampled):
    """A uniform sample of m of the n records without replacement, records iid
    Bernoulli(pi) (Breutigam & Reischuk, Thm 4.1): C_k = Bin(k, pi) in _Sampled
    (the target is in the sample with probability m/n; then the other m-1
    sampled records are iid, else all m are)."""

    kind = "subsample"

    def __init__(self, n, pi, m):
        self.pi = float(pi)
        super().__init__(n, m, pi=self.pi)

    def _component(self, k):
        return _binomial_pmf(k, mpf(self.pi), _one_minus(self.pi))


def subsample(n, pi, m):
    """Sampling m of n without replacement (iid pi)."""
    return _Subsample(n, pi, m)


class _WithReplacement(_DiscreteCurve):
    """m draws uniformly WITH replacement from the n records, the count of the
    draws that hit a record with the property released (a record drawn twice
    counts twice); the n - 1 others iid Bernoulli(pi).

    Derivation (from the draws, not from a closed form): given the others'
    count A = a ~ Bin(n-1, pi), the m draws are multinomial over (the target,
    the a ones, the n-1-a zeros) with probabilities (1/n, a/n, (n-1-a)/n).
    So the target is drawn T ~ Bin(m, 1/n) times, and given T = t the other
    m - t draws are uniform over the n - 1 others, each a one with
    probability a/(n-1): B ~ Bin(m - t, a/(n-1)).  The release is x T + B:
    P(c) = sum_a Bin(a; n-1, pi) sum_t Bin(t; m, 1/n) Bin(c - t; m - t, a/(n-1)),
    Q(c) = sum_a Bin(a; n-1, pi) sum_t Bin(t; m, 1/n) Bin(c; m - t, a/(n-1)).
    (n = 1: T = m surely.)  Cost n m^2 terms: small n and m only."""

    kind = "with_replacement"

    def __init__(self, n, pi, m):
        super().__init__()
        self.n, self.pi, self.m = int(n), float(pi), int(m)
        self.params = dict(n=self.n, pi=self.pi, m=self.m)
        if self.n * (self.m + 1) ** 2 > MAX_TERMS:
            raise TooExpensive(f"{self!r}: {self.n * (self.m + 1) ** 2} terms")
        self.extra_dps = int(math.log10(self.n * self.m + 1)) + 2

    def _laws(self):
        n, m = self.n, self.m
        N = n - 1
        A = _binomial_pmf(N, mpf(self.pi), _one_minus(self.pi))
        T = _binomial_pmf(m, mpf(1) / n, mpf(n - 1) / n)
        P = [mpf(0)] * (m + 1)
        Q = [mpf(0)] * (m + 1)
        for a, wa in enumerate(A):
            if wa == 0:
                continue
            for t, wt in enumerate(T):
                if wt == 0:
                    continue
                if N == 0:
                    B = [mpf(1)] + [mpf(0)] * (m - t)
                else:
                    B = _binomial_pmf(m - t, mpf(a) / N, mpf(N - a) / N)
                for b, wb in enumerate(B):
                    P[b + t] += wa * wt * wb
                    Q[b] += wa * wt * wb
        return P, Q


def with_replacement(n, pi, m):
    """m draws with replacement from n iid records."""
    return _WithReplacement(n, pi, m)


class _PoissonSample(_DiscreteCurve):
    """Every record kept independently with probability r (A. Smith 2009, Alg. 2).

    Derivation: an other record contributes 1 iff it is kept (prob. r) and has the
    property (prob. pi), independently, so the kept others' count is Z ~ Bin(n-1, r pi).
    The target contributes X_1 B with B ~ Bernoulli(r) independent of Z, so
    Q = law(Z) (X_1 = 0) and P = law(Z + B) = r Z(.-1) + (1-r) Z (X_1 = 1).

    Small n: the laws are built and summed over every atom.  Large n: with
    E = e^eps, P - E Q = r Z(k-1) - (E - 1 + r) Z(k), so
    delta_plus = 1 - E if E - 1 + r <= 0, else r H((E - 1 + r)/r);
    Q - E P = (1 - E(1-r)) Z(k) - E r Z(k-1), so delta_minus = 0 if
    1 - E(1-r) <= 0, else (1 - E(1-r)) H'(E r/(1 - E(1-r))),
    with H, H' the windowed shift sums of Bin(n-1, r pi) (binomial_shift_sum)."""

    kind = "poisson"

    def __init__(self, n, pi, rate):
        super().__init__()
        self.n, self.pi, self.rate = int(n), float(pi), float(rate)
        self.params = dict(n=self.n, pi=self.pi, rate=self.rate)
        self.N = self.n - 1
        self.rho = _frac(self.pi) * _frac(self.rate)
        self.extra_dps = int(math.log10(self.n + 1)) + 2
        self.windowed = self.N > BRUTE_N and 0 < self.rho < 1
        if self.windowed:
            self.self_checked = True

    def _laws(self):
        rho = _mp(self.rho)
        Z = [mpf(1)] if self.rho in (0, 1) else _binomial_pmf(self.N, rho, 1 - rho)
        if self.rate == 1.0:
            return _shift(Z)
        return _mixture(Z, Z, mpf(self.rate))

    def _eval(self, eps, dps):
        if not self.windowed:
            return super()._eval(eps, dps)
        E, _ = _exp_eps(eps)
        r = mpf(self.rate)
        a = self._one_minus_scaled(eps, sign=-1)     # E - 1 + r = E - (1 - r)
        if a <= 0:
            dplus = 1 - E
        else:
            dplus = r * binomial_shift_sum(self.N, self.rho, a / r)
        c = self._one_minus_scaled(eps, sign=1)      # 1 - E (1 - r)
        if c <= 0:
            dminus = mpf(0)
        else:
            dminus = c * binomial_shift_sum(self.N, self.rho, E * r / c, reverse=True)
        return dplus, dminus

    def _one_minus_scaled(self, eps, sign):
        """sign = +1: 1 - e^eps (1 - r); sign = -1: e^eps - (1 - r), each to full
        relative precision at the current working precision.

        Written as -expm1(eps + ln(1 - r)) and (1 - r) expm1(eps - ln(1 - r)): no
        difference of two large numbers (E - (E - 1) is 0 at any fixed precision
        once e^eps exceeds 10^dps).  r = 1: exactly 1 and e^eps.  Near the sign
        change the exponent eps +- ln(1 - r) cancels; it is recomputed with
        enough extra digits that it keeps the working precision (eps is a float
        and ln(1 - r) is irrational for 0 < r < 1, so it is never exactly 0
        unless eps = 0 and r = 0)."""
        e = mpf(eps)
        if self.rate == 1.0:
            return mpf(1) if sign > 0 else mpmath.exp(e)
        prec = mp.prec
        extra = 0
        while True:
            with mp.workprec(prec + extra + 20):
                s = e + sign * mpmath.log1p(-mpf(self.rate))
                size = max(abs(e), 1)
                if s == 0 and self.rate == 0.0 and eps == 0.0:
                    return mpf(0)
                if s != 0 and abs(s) >= size * mpf(2) ** (-extra):
                    out = -mpmath.expm1(s) if sign > 0 else \
                        _one_minus(self.rate) * mpmath.expm1(s)
                    break
            extra += 64
            if extra > 4 * prec + 4000:
                raise TooExpensive(f"{self!r}: eps={eps!r} too close to the zero point")
        return +out

    def _zero(self, direction):
        if self.rate == 1.0:
            return mpmath.inf
        if not self.windowed:
            return super()._zero(direction)
        # plus: the top outcome n has Q = 0 < P (rate > 0): never 0.
        # minus: Q/P = 1/(r Z(k-1)/Z(k) + 1 - r) is largest at k = 0: -ln(1 - r).
        if direction == "plus":
            return mpmath.inf
        return -mpmath.log1p(-mpf(self.rate))


def poisson_sample(n, pi, rate):
    """Poisson sampling at ``rate`` of n iid records."""
    return _PoissonSample(n, pi, rate)


def _hypergeom_pmf(N, K, k):
    """[C(K,j) C(N-K,k-j) / C(N,k) for j = 0..k] (zeros outside the support),
    via loggamma at the current precision plus log10(N) digits."""
    out = [mpf(0)] * (k + 1)
    lo, hi = max(0, k - (N - K)), min(K, k)
    extra = int(math.log10(N + 2)) + 5
    with mp.workdps(mp.dps + extra):
        lg = mpmath.loggamma
        base = lg(N - k + 1) + lg(k + 1) - lg(N + 1) + lg(K + 1) + lg(N - K + 1)
        for j in range(lo, hi + 1):
            out[j] = mpmath.exp(base - lg(j + 1) - lg(K - j + 1)
                                - lg(k - j + 1) - lg(N - K - k + j + 1))
    return [+x for x in out]


class _SecretSample(_Sampled):
    """Secrecy of the sample (A. Smith 2009, "Differential privacy and the secrecy of
    the sample"): the n-1 others are a fixed population with K positives, a uniform
    sample of m of the n records is counted: C_k in _Sampled is the hypergeometric
    pmf H_k of the positives among k draws from the n-1 others."""

    kind = "secret"

    def __init__(self, n, m, K):
        self.K = int(K)
        super().__init__(n, m, K=self.K)

    def _component(self, k):
        return _hypergeom_pmf(self.n - 1, self.K, k)


def secret_sample(n, m, K):
    """Secret sample of m of n, K positives among the n-1 others."""
    return _SecretSample(n, m, K)


# ---------------------------------------------------------------------------
# worst-case DP curves (Z = N: the noise alone)
# ---------------------------------------------------------------------------

class _DPLaplace(OracleCurve):
    """P = Laplace(1, b), Q = Laplace(0, b) (density e^(-|x|/b)/(2b)).

    The log ratio ln f_P/f_Q = (|x| - |x-1|)/b is -1/b for x <= 0, (2x-1)/b on
    [0,1], 1/b for x >= 1.  For -1/b <= eps <= 1/b the set {f_P > e^eps f_Q} is
    x > x* = (1 + b eps)/2 and
    delta = P[x > x*] - e^eps Q[x > x*] = (1 - e^((x*-1)/b)/2) - e^eps e^(-x*/b)/2
          = 1 - e^((eps - 1/b)/2) = -expm1((eps - 1/b)/2);
    eps > 1/b: 0; eps < -1/b: the whole line, 1 - e^eps.  Symmetric (plus = minus).
    ``method="quad"`` integrates (f_P - e^eps f_Q)_+ numerically instead (tests)."""

    kind = "dp_laplace"

    def __init__(self, b, method="closed"):
        self.b = float(b)
        self.method = method
        self.params = dict(b=self.b)

    def _eval(self, eps, dps):
        b, e = mpf(self.b), mpf(eps)
        if self.method == "quad":
            E = mpmath.exp(e)

            def g(x):
                return (mpmath.exp(-abs(x - 1) / b) - E * mpmath.exp(-abs(x) / b)) / (2 * b)

            pts = [-mpmath.inf, 0, 1, mpmath.inf]
            if -1 / b < e < 1 / b:
                xs = (1 + b * e) / 2
                val = mpmath.quad(g, [xs, 1, mpmath.inf])
            elif e <= -1 / b:
                val = mpmath.quad(g, pts)
            else:
                val = mpf(0)
            return val, val
        if e >= 1 / b:
            d = mpf(0)
        elif e <= -1 / b:
            d = -mpmath.expm1(e)
        else:
            d = -mpmath.expm1((e - 1 / b) / 2)
        return d, d

    def _zero(self, direction):
        return 1 / mpf(self.b)


def dp_laplace(b, method="closed"):
    return _DPLaplace(b, method)


def _Phi(z):
    """Standard normal cdf via erfc (relative accuracy in both tails)."""
    return mpmath.erfc(-z / mpmath.sqrt(2)) / 2


def _Phibar(z):
    return mpmath.erfc(z / mpmath.sqrt(2)) / 2


class _DPGaussian(OracleCurve):
    """P = N(1, s^2), Q = N(0, s^2): ln f_P/f_Q = (2x - 1)/(2 s^2) increases, so
    {f_P > e^eps f_Q} = {x > x*}, x* = 1/2 + eps s^2, and
    delta = Phibar((x*-1)/s) - e^eps Phibar(x*/s) = Phi(1/(2s) - eps s) - e^eps Phi(-1/(2s) - eps s).
    Symmetric.  ``method="quad"``: mpmath.quad of each density over (x*, inf)."""

    kind = "dp_gaussian"

    def __init__(self, sigma, method="closed"):
        self.sigma = float(sigma)
        self.method = method
        self.params = dict(sigma=self.sigma)
        self.extra_dps = 2 * max(0, int(-math.log10(self.sigma))) + max(
            0, int(math.log10(self.sigma)))

    def _eval(self, eps, dps):
        s, e = mpf(self.sigma), mpf(eps)
        E = mpmath.exp(e)
        xs = mpf(1) / 2 + e * s * s
        if self.method == "quad":
            def fP(x):
                return mpmath.npdf(x, 1, s)

            def fQ(x):
                return mpmath.npdf(x, 0, s)
            pts = [xs, xs + s, xs + 4 * s, xs + 16 * s, mpmath.inf]
            val = mpmath.quad(fP, pts) - E * mpmath.quad(fQ, pts)
            return val, val
        d = _Phi(1 / (2 * s) - e * s) - E * _Phi(-1 / (2 * s) - e * s)
        return d, d

    def _zero(self, direction):
        return mpmath.inf


def dp_gaussian(sigma, method="closed"):
    return _DPGaussian(sigma, method)


class _DPGeometric(OracleCurve):
    """Two-sided geometric noise G(k) = c alpha^|k|, c = (1-alpha)/(1+alpha); P = G(.-1),
    Q = G.  G(k-1)/G(k) = 1/alpha for k >= 1, alpha for k <= 0.  With E = e^eps:
    E <= alpha: every term positive, delta = 1 - E;
    alpha < E < 1/alpha: the terms k >= 1, sum_{k>=1} G(k-1) - E G(k) =
      c/(1-alpha) - E c alpha/(1-alpha) = (1 - alpha E)/(1 + alpha);
    E >= 1/alpha: 0.  Symmetric.  ``method="sum"``: brute-force sum over |k| <= K
    plus the two geometric tails in closed form (tests)."""

    kind = "dp_geometric"

    def __init__(self, alpha, method="closed"):
        self.alpha = float(alpha)
        self.method = method
        self.params = dict(alpha=self.alpha)

    def _eval(self, eps, dps):
        a, E = mpf(self.alpha), mpmath.exp(mpf(eps))
        if self.method == "sum":
            c = (1 - a) / (1 + a)

            def G(k):
                return c * a ** abs(k)
            K = 200
            s = mpf(0)
            for k in range(-K, K + 1):
                t = G(k - 1) - E * G(k)
                if t > 0:
                    s += t
            # k > K: G(k-1) - E G(k) = G(k-1)(1 - E a), geometric in k
            s += max(mpf(0), G(K) * (1 - E * a)) / (1 - a)
            # k < -K: G(k-1) - E G(k) = G(k)(a - E)
            s += max(mpf(0), G(-K - 1) * (a - E)) / (1 - a)
            return s, s
        if E <= a:
            d = 1 - E
        elif E * a < 1:
            d = (1 - a * E) / (1 + a)
        else:
            d = mpf(0)
        return d, d

    def _zero(self, direction):
        return -mpmath.log(mpf(self.alpha))


def dp_geometric(alpha, method="closed"):
    return _DPGeometric(alpha, method)


# ---------------------------------------------------------------------------
# count plus noise
# ---------------------------------------------------------------------------

def _window_law(count, dps):
    """(P, Q, mu) for a count curve: explicit laws, or for a windowed binomial the
    atoms within T nats of the mode and mu = a bound on the mass left out of each of
    P and Q.  Returns aligned lists (common offset is irrelevant under noise)."""
    if isinstance(count, _Binomial) and count.windowed:
        return _binomial_window(count.N, _frac(count.pi), count._T, dps)
    P, Q = count._get(dps)
    # drop the end atoms below e^-T of the largest (their exact mass is mu)
    with mp.workdps(dps):
        floor = max(max(P), max(Q)) * mpmath.exp(-count._T)
        lo = 0
        while lo < len(P) and P[lo] <= floor and Q[lo] <= floor:
            lo += 1
        hi = len(P)
        while hi > lo and P[hi - 1] <= floor and Q[hi - 1] <= floor:
            hi -= 1
        mu = max(mpmath.fsum(P[:lo] + P[hi:]), mpmath.fsum(Q[:lo] + Q[hi:]))
    return P[lo:hi], Q[lo:hi], mu


def _binomial_window(N, rho, T, dps):
    """Shift laws of Bin(N, rho) on the atoms k with ln b(k) >= ln b(mode) - T;
    mu >= the mass of the left-out atoms on either side (geometric bounds from the
    ratios of consecutive terms, which decrease away from the mode)."""
    u, v = rho.numerator, rho.denominator
    w = v - u
    mode = ((N + 1) * u) // v
    mode = min(mode, N)
    with mp.workdps(dps + int(math.log10(N + 2)) + 5):
        lb = _log_binom_term(N, mode, rho)
        floor = lb - T
        terms = {mode: mpmath.exp(lb)}
        # right
        k = mode
        b = terms[mode]
        while k < N:
            b = b * (N - k) * u / ((k + 1) * w)
            k += 1
            terms[k] = b
            if len(terms) > MAX_NOISY_ATOMS:
                raise TooExpensive("binomial window for noise too wide")
            if mpmath.log(b) < floor:
                break
        hi = k
        k = mode
        b = terms[mode]
        while k > 0:
            b = b * k * w / ((N - k + 1) * u)
            k -= 1
            terms[k] = b
            if len(terms) > MAX_NOISY_ATOMS:
                raise TooExpensive("binomial window for noise too wide")
            if mpmath.log(b) < floor:
                break
        lo = k
        mu = mpf(0)
        if hi < N:   # sum_{j > hi} b(j) <= b(hi) r / (1 - r), r = b(hi+1)/b(hi)
            r = mpf((N - hi) * u) / ((hi + 1) * w)
            mu += terms[hi] * r / (1 - r)
        if lo > 0:
            r = mpf(lo * w) / ((N - lo + 1) * u)
            mu += terms[lo] * r / (1 - r)
        Z = [+terms[j] for j in range(lo, hi + 1)]
    P, Q = _shift(Z)
    return P, Q, mu


class _Noisy(OracleCurve):
    """A count curve (laws P, Q on integer atoms) plus independent noise N:
    delta_plus = H_eps(P*N || Q*N), delta_minus = H_eps(Q*N || P*N).

    - geometric(alpha), G(t) = c alpha^|t|: f_P(x) = sum_k P(k) G(x-k) on the integers,
      computed on the atom range [0, L-1] (by the exact two-sided recursion
      l(x) = alpha l(x-1) + P(x), r(x) = alpha (r(x+1) + P(x+1)), f = c (l + r));
      outside it f_P(x) = alpha^dist f_P(boundary) for both laws, so each outer tail
      adds alpha/(1-alpha) (f_P - e^eps f_Q)_+ at the boundary atom.
    - laplace(b): on [j, j+1] (u = x - j), f(x) = (Lj e^(-u/b) + Rj e^(-(1-u)/b))/(2b)
      with Lj = sum_{k<=j} z(k) e^(-(j-k)/b), Rj = sum_{k>j} z(k) e^(-(k-j-1)/b), so
      g = f_P - e^eps f_Q = (a e^(-u/b) + c e^(-(1-u)/b))/(2b) has at most one root
      u* = (1 + b ln(-a/c))/2 and its positive part integrates in closed form; left of
      atom 0, g = e^(x/b) C-/(2b) (integral (C-)_+/2), right of atom L-1 likewise.
      ``method="quad"``: mpmath.quad of g_+ on every piece between atoms and roots.
    - gaussian(sigma): g(x) = sum_k c_k phi((x-k)/sigma)/sigma, c_k = P(k) - e^eps Q(k).
      The Gaussian kernel is totally positive, so g has at most as many sign changes
      as (c_k); the count laws here have a monotone ratio P/Q (checked: (c_k) changes
      sign at most once, else TooExpensive), so g has at most one root x*, found by
      bracketed Illinois iteration on the increasing ln(sum_{c>0}) - ln(sum_{c<0});
      the integral over the positive side is sum_k c_k Phibar((x*-k)/sigma) (or Phi).
    Laws of a windowed binomial are truncated with a bounded left-out mass mu; the
    result's error from it is at most mu (1 + e^eps), required <= 1e-32 of the value
    (else the window is widened)."""

    kind = "noisy"

    def __init__(self, count, noise, method="closed"):
        self.count = count
        self.noise = (str(noise[0]), float(noise[1]))
        self.method = method
        self.params = dict(count.params, count=count.kind, noise=self.noise)
        self.extra_dps = count.extra_dps
        kind, par = self.noise
        if kind == "gaussian":
            self.extra_dps += 2 * max(0, int(-math.log10(par))) + max(0, int(math.log10(par)))
        count._T = mpf(200)
        self._cache = {}

    def _laws(self, dps):
        if dps not in self._cache:
            P, Q, mu = _window_law(self.count, dps)
            if len(P) > MAX_NOISY_ATOMS:
                raise TooExpensive(f"{len(P)} atoms > {MAX_NOISY_ATOMS} under noise")
            with mp.workdps(dps):
                pre = self._precompute(P, Q)
            self._cache[dps] = (P, Q, mu, pre)
        return self._cache[dps]

    def _precompute(self, P, Q):
        kind, par = self.noise
        if kind == "geometric":
            a = mpf(par)
            c = (1 - a) / (1 + a)
            return [self._geo_conv(Z, a, c) for Z in (P, Q)]
        if kind == "laplace":
            b = mpf(par)
            d = mpmath.exp(-1 / b)
            return [self._lap_coeffs(Z, d) for Z in (P, Q)] + [d]
        return None

    @staticmethod
    def _geo_conv(Z, a, c):
        L = len(Z)
        left = [mpf(0)] * L
        right = [mpf(0)] * L
        acc = mpf(0)
        for x in range(L):
            acc = a * acc + Z[x]
            left[x] = acc
        acc = mpf(0)
        for x in range(L - 1, -1, -1):
            right[x] = acc                       # sum_{k > x} Z(k) a^(k-x)
            acc = a * (acc + Z[x])
        return [c * (l + r) for l, r in zip(left, right)]

    @staticmethod
    def _lap_coeffs(Z, d):
        """Lj (j = 0..L-1), Rj (j = -1..L-2 stored at j+1): see the class docstring."""
        L = len(Z)
        Lc = [mpf(0)] * L
        acc = mpf(0)
        for j in range(L):
            acc = acc * d + Z[j]
            Lc[j] = acc                          # sum_{k<=j} Z(k) d^(j-k)
        Rc = [mpf(0)] * (L + 1)                  # Rc[j+1] = sum_{k>j} Z(k) d^(k-j-1)
        acc = mpf(0)
        for j in range(L - 1, -2, -1):
            Rc[j + 1] = acc
            if j >= 0:
                acc = acc * d + Z[j]
        return Lc, Rc

    def _eval(self, eps, dps):
        P, Q, mu, pre = self._laws(dps)
        E = mpmath.exp(mpf(eps))
        kind, par = self.noise
        out = []
        for sgn in (0, 1):
            A, B = (P, Q) if sgn == 0 else (Q, P)
            if kind == "geometric":
                fA, fB = (pre[0], pre[1]) if sgn == 0 else (pre[1], pre[0])
                val = self._geo_delta(fA, fB, E, mpf(par))
            elif kind == "laplace":
                cA, cB = (pre[0], pre[1]) if sgn == 0 else (pre[1], pre[0])
                val = self._lap_delta(cA, cB, E, mpf(par), pre[2], A, B)
            else:
                val = self._gauss_delta(A, B, E, mpf(par))
            if mu > 0:
                bound = mu * (1 + E)
                if bound > val * mpf(10) ** -32:
                    raise _Widen()
            out.append(val)
        return tuple(out)

    def _checked(self, eps):
        for _ in range(6):
            try:
                return super()._checked(eps)
            except _Widen:
                windowed = getattr(self.count, "windowed", False)
                self.count._T = self.count._T * 4 if windowed else mpmath.inf
                self._cache = {}
        raise TooExpensive("noisy window could not be made wide enough")

    @staticmethod
    def _geo_delta(fA, fB, E, a):
        floor = _noise_floor()
        s = mpf(0)
        for x, y in zip(fA, fB):
            s += _pos(x, y, E, floor)
        tail = a / (1 - a)
        for x, y in ((fA[0], fB[0]), (fA[-1], fB[-1])):
            s += tail * _pos(x, y, E, floor)
        return s

    def _lap_delta(self, cA, cB, E, b, d, A, B):
        LA, RA = cA
        LB, RB = cB
        L = len(LA)
        if self.method == "quad":
            return self._lap_quad(A, B, E, b)
        s = mpf(0)
        floor = _noise_floor()

        def sig(x, y):
            # x - E y, or 0 where it is within the rounding noise of x + E y
            t = x - E * y
            return mpf(0) if abs(t) <= floor * (x + E * y) else t

        def part(j, lo, hi):
            # integral over u in [lo, hi] of (a e^(-u/b) + c e^(-(1-u)/b))_+ du / (2b),
            # with a = LA_j - E LB_j, c = RA_{j+1} - E RB_{j+1}, on an interval where
            # the integrand keeps one sign.  e^(-u/b) and e^(-(1-u)/b) integrate to
            # b I1 = b (e^(-lo/b) - e^(-hi/b)) and b I2 = b (e^(-(1-hi)/b) - e^(-(1-lo)/b)).
            # The value is 0 where it is within the rounding noise of the same integral
            # of the absolute terms (LA_j + E LB_j) e^(-u/b) + (RA + E RB) e^(-(1-u)/b):
            # the noise scale of THIS interval, not of the cell's end points (for small
            # b the coefficients at one end are e^(1/b) larger than the integrand on a
            # piece near the other end).
            I1 = mpmath.exp(-lo / b) * -mpmath.expm1(-(hi - lo) / b)
            I2 = mpmath.exp(-(1 - hi) / b) * -mpmath.expm1(-(hi - lo) / b)
            a = LA[j] - E * LB[j]
            c = RA[j + 1] - E * RB[j + 1]
            v = (a * I1 + c * I2) / 2
            scale = ((LA[j] + E * LB[j]) * I1 + (RA[j + 1] + E * RB[j + 1]) * I2) / 2
            return mpf(0) if v <= 4 * floor * scale else v
        # left of atom 0: f(x) = e^(x/b) sum_k Z(k) e^(-k/b) / (2b) = e^(x/b) Rc[0]/(2b)
        # with Rc[0] = sum_{k>=0} Z(k) d^k; integral over (-inf, 0] = (Rc[0] C)_+ / 2
        cm = sig(RA[0], RB[0])
        if cm > 0:
            s += cm / 2
        # right of atom L-1: f(x) = e^(-(x-(L-1))/b) L_{L-1}/(2b)
        cp = sig(LA[L - 1], LB[L - 1])
        if cp > 0:
            s += cp / 2
        zero, one = mpf(0), mpf(1)
        for j in range(L - 1):
            a = LA[j] - E * LB[j]
            c = RA[j + 1] - E * RB[j + 1]
            if a >= 0 and c >= 0:
                s += part(j, zero, one)
            elif a <= 0 and c <= 0:
                continue
            else:
                # one root: a e^(-u/b) = -c e^(-(1-u)/b) at u* = (1 + b ln(-a/c))/2
                us = (1 + b * mpmath.log(-a / c)) / 2
                if a > 0:          # positive on [0, u*]
                    if us > 0:
                        s += part(j, zero, min(us, one))
                else:              # positive on [u*, 1]
                    if us < 1:
                        s += part(j, max(us, zero), one)
        return s

    @staticmethod
    def _lap_quad(A, B, E, b):
        """mpmath.quad of (f_A - E f_B)_+ split at every atom and every sign change."""
        L = len(A)
        c = [x - E * y for x, y in zip(A, B)]

        def g(x):
            return sum(ck * mpmath.exp(-abs(x - k) / b) for k, ck in enumerate(c)) / (2 * b)

        pts = [mpf(j) for j in range(L)]
        total = mpf(0)
        # tails: g is a single exponential there
        left = sum(ck * mpmath.exp(-k / b) for k, ck in enumerate(c))
        right = sum(ck * mpmath.exp(-(L - 1 - k) / b) for k, ck in enumerate(c))
        if left > 0:
            total += mpmath.quad(g, [-mpmath.inf, 0])
        if right > 0:
            total += mpmath.quad(g, [L - 1, mpmath.inf])
        for j in range(L - 1):
            lo, hi = pts[j], pts[j + 1]
            glo, ghi = g(lo), g(hi)
            # one root at most on (lo, hi): find it by bisection
            if glo * ghi < 0:
                x0 = mpmath.findroot(g, (lo, hi), solver="anderson")
                if glo > 0:
                    total += mpmath.quad(g, [lo, x0])
                else:
                    total += mpmath.quad(g, [x0, hi])
            elif glo > 0 or ghi > 0:
                total += mpmath.quad(g, [lo, hi])
        return total

    @staticmethod
    def _gauss_delta(A, B, E, s):
        floor = _noise_floor()
        c = [x - E * y for x, y in zip(A, B)]
        c = [mpf(0) if abs(ck) <= floor * (x + E * y) else ck for ck, x, y in zip(c, A, B)]
        idx = [k for k, ck in enumerate(c) if ck != 0]
        if not idx:
            return mpf(0)
        signs = [1 if c[k] > 0 else -1 for k in idx]
        changes = sum(1 for i in range(1, len(signs)) if signs[i] != signs[i - 1])
        if changes == 0:
            return sum(c) if signs[0] > 0 else mpf(0)
        if changes > 1:
            raise TooExpensive("gaussian noise: P/Q not monotone (several sign changes)")
        pos_right = signs[-1] > 0
        pos = [(k, ck) for k, ck in enumerate(c) if ck > 0]
        neg = [(k, -ck) for k, ck in enumerate(c) if ck < 0]
        two_s2 = 2 * s * s

        def h(x):
            # ln sum_{c>0} c e^(-(x-k)^2/2s^2) - ln sum_{c<0} |c| e^(...): increasing in x
            # when the positive atoms are on the right (mpmath does not underflow)
            sp = mpmath.fsum(ck * mpmath.exp(-(x - k) ** 2 / two_s2) for k, ck in pos)
            sn = mpmath.fsum(ck * mpmath.exp(-(x - k) ** 2 / two_s2) for k, ck in neg)
            d = mpmath.log(sp) - mpmath.log(sn)
            return d if pos_right else -d

        # bracket
        lo, hi = mpf(idx[0]), mpf(idx[-1])
        step = max(s, mpf(1))
        hlo, hhi = h(lo), h(hi)
        it = 0
        while hlo > 0:
            lo -= step
            step *= 2
            hlo = h(lo)
            it += 1
            if it > 400:
                raise TooExpensive("gaussian root bracket")
        step = max(s, mpf(1))
        while hhi < 0:
            hi += step
            step *= 2
            hhi = h(hi)
            it += 1
            if it > 800:
                raise TooExpensive("gaussian root bracket")
        # Illinois iteration, keeping the bracket
        tol = (abs(lo) + abs(hi) + s) * mpf(10) ** (-(mp.dps - 5))
        side = 0
        for _ in range(2000):
            if hi - lo <= tol or hlo == 0 or hhi == 0:
                break
            x = (lo * hhi - hi * hlo) / (hhi - hlo)
            if not (lo < x < hi):
                x = (lo + hi) / 2
            hx = h(x)
            if hx == 0:
                lo = hi = x
                break
            if hx < 0:
                lo, hlo = x, hx
                if side == -1:
                    hhi /= 2
                side = -1
            else:
                hi, hhi = x, hx
                if side == 1:
                    hlo /= 2
                side = 1
            # bisection safeguard every so often
            if _ % 8 == 7:
                mid = (lo + hi) / 2
                hm = h(mid)
                if hm < 0:
                    lo, hlo = mid, hm
                else:
                    hi, hhi = mid, hm
        else:
            raise TooExpensive("gaussian root did not converge")
        xs = (lo + hi) / 2
        r2 = mpmath.sqrt(2)
        total = mpf(0)
        scale = mpf(0)
        for k, ck in enumerate(c):
            if A[k] == 0 and B[k] == 0:
                continue
            z = (xs - k) / s
            tail = mpmath.erfc(z / r2) / 2 if pos_right else mpmath.erfc(-z / r2) / 2
            total += ck * tail
            scale += (A[k] + E * B[k]) * tail
        # a total within the rounding noise of its terms counts as 0
        return total if total > 4 * len(c) * floor * scale else mpf(0)

    def _zero(self, direction):
        dps = DPS + 10 + self.extra_dps
        if getattr(self.count, "windowed", False):
            P, Q, mu, pre = self._laws(dps)      # shift laws: the sup sits at +-inf
        else:
            T = self.count._T
            self.count._T = mpmath.inf           # every atom: trimming moves eps0
            try:
                P, Q, mu = _window_law(self.count, dps)
            finally:
                self.count._T = T
            pre = self._precompute(P, Q)
        if direction == "minus":
            P, Q = Q, P
        kind, par = self.noise
        if kind == "gaussian":
            # f_P/f_Q -> P(top)/Q(top) as x -> inf and is increasing when P/Q is
            # (monotone likelihood ratio is kept by the Gaussian kernel): sup = the
            # discrete sup if the ratio increases, else evaluate the bottom limit too.
            idx = [k for k in range(len(P)) if P[k] > 0 or Q[k] > 0]
            vals = []
            for k in (idx[0], idx[-1]):
                if Q[k] == 0:
                    return mpmath.inf
                vals.append(P[k] / Q[k])
            ratios = [P[k] / Q[k] for k in idx if Q[k] > 0]
            if any(Q[k] == 0 for k in idx):
                return mpmath.inf
            inc = all(ratios[i] <= ratios[i + 1] for i in range(len(ratios) - 1))
            dec = all(ratios[i] >= ratios[i + 1] for i in range(len(ratios) - 1))
            if not (inc or dec):
                raise TooExpensive("gaussian zero point of a non-monotone ratio")
            return mpmath.log(max(vals))
        if kind == "geometric":
            fP, fQ = pre[0], pre[1]
            if direction == "minus":
                fP, fQ = fQ, fP
            return mpmath.log(max(x / y for x, y in zip(fP, fQ)))
        # laplace: on each unit interval the ratio of two sums of the same two
        # exponentials is monotone, so the sup is at an atom or at +-inf.
        LA, RA = pre[0]
        LB, RB = pre[1]
        if direction == "minus":
            LA, RA, LB, RB = LB, RB, LA, RA
        L = len(LA)
        cand = [RA[0] / RB[0], LA[L - 1] / LB[L - 1]]
        for j in range(L):
            # f at atom j: L_j + R_j d  (u = 0 on [j, j+1]); the same for both laws
            fa = LA[j] + RA[j + 1] * pre[2]
            fb = LB[j] + RB[j + 1] * pre[2]
            cand.append(fa / fb)
        return mpmath.log(max(cand))


class _Widen(Exception):
    pass


def noisy(count, noise, method="closed"):
    """Count curve ``count`` (binomial, per_record, subsample, poisson_sample,
    secret_sample) plus noise ("laplace", b) | ("gaussian", sigma) | ("geometric", alpha)."""
    if isinstance(count, _PoissonSample) and count.windowed:
        raise TooExpensive("noisy Poisson sampling at large n is not windowed in the oracle")
    return _Noisy(count, noise, method)


# ---------------------------------------------------------------------------
# convenience: functions returning [(delta_plus, delta_minus)] for an eps list
# ---------------------------------------------------------------------------

def deltas(curve, eps_list):
    """[(delta_plus, delta_minus)] of an OracleCurve at every eps."""
    return curve.deltas(eps_list)


def smallest_float_at_least(x):
    """The smallest float f with f >= x (x an mpf; inf stays inf)."""
    if x == mpmath.inf:
        return math.inf
    f = float(x)
    if mpf(f) < x:
        f = math.nextafter(f, math.inf)
    return f


# ---------------------------------------------------------------------------
# partial knowledge, thresholding, k-anonymity, shuffling, composition
# (Desfontaines, Mohammadi, Krahmer & Basin, "Differential Privacy with Partial
# Knowledge"; Feldman, McMillan & Talwar, "Hiding among the clones"), brute force
# over explicit laws of what the attacker sees
# ---------------------------------------------------------------------------

MAX_LAW_PAIRS_ATOMS = 40_000     # total atoms of the law pairs of a max-over-pairs curve


def _convolve(A, B):
    """The law of the sum of independent counts of laws A and B: out[k] =
    sum_i A[i] B[k - i], each atom one dot product summed exactly and rounded
    once (mpmath.fdot: ~4x faster than the term-by-term sum)."""
    n, m = len(A), len(B)
    Br = B[::-1]            # B[k - i] = Br[m - 1 - k + i]
    out = []
    for k in range(n + m - 1):
        lo, hi = max(0, k - m + 1), min(k, n - 1)
        out.append(mpmath.fdot(A[lo:hi + 1], Br[m - 1 - k + lo:m - k + hi]))
    return out


def _bin_law(N, p, q):
    """Bin(N, p) pmf (p, q = 1 - p given as mpf)."""
    if N > MAX_ATOMS:
        raise TooExpensive(f"Bin({N}) has more than {MAX_ATOMS} atoms")
    return [_binom_int(N, k) * p ** k * q ** (N - k) for k in range(N + 1)]


def _explicit(PQ):
    """Aligned lists (P, Q) from a dict outcome -> [P mass, Q mass]."""
    keys = list(PQ)
    return [PQ[k][0] for k in keys], [PQ[k][1] for k in keys]


def _add(PQ, key, which, mass):
    if mass != 0:
        PQ.setdefault(key, [mpf(0), mpf(0)])[which] += mass


class _MaxOfPairs(OracleCurve):
    """delta_plus = max_i H(P_i || Q_i), delta_minus = max_i H(Q_i || P_i) over a
    family of explicit law pairs given by ``_pairs()`` (at the current precision)."""

    def __init__(self):
        self._cache = {}

    def _get(self, dps):
        if dps not in self._cache:
            with mp.workdps(dps):
                pairs = self._pairs()
            if sum(len(P) for P, _ in pairs) > MAX_LAW_PAIRS_ATOMS:
                raise TooExpensive(f"{self!r}: more than {MAX_LAW_PAIRS_ATOMS} atoms")
            if len(self._cache) >= 3:
                self._cache.pop(next(iter(self._cache)))
            self._cache[dps] = pairs
        return self._cache[dps]

    def _eval(self, eps, dps):
        E, em1 = _exp_eps(eps)
        pairs = self._get(dps)
        return (max(_hs(P, Q, E, em1) for P, Q in pairs),
                max(_hs(Q, P, E, em1) for P, Q in pairs))

    def _zero(self, direction):
        pairs = self._get(DPS + 10 + self.extra_dps)
        return max(_log_max_ratio(P, Q) if direction != "minus" else _log_max_ratio(Q, P)
                   for P, Q in pairs)


class _Vertices(_MaxOfPairs):
    """Partial knowledge (Desfontaines et al., Thm 3): N unknown others, each with the
    property w.p. pi_j in [p, 1-p]; delta is convex in each pi_j, so its max over the
    box is at a vertex: a others at p, N - a at 1 - p, S_a = Bin(a,p) + Bin(N-a,1-p).
    Target pair: the shift (S_a + 1 vs S_a) or, rr=True (shuffled randomized
    response with flip probability p), P = (1-p)(S_a+1) + p S_a, Q = p(S_a+1) + (1-p) S_a.
    ``vertices``: the a to evaluate (default all 0..N)."""

    kind = "vertices"

    def __init__(self, N, p, rr=False, vertices=None, eps0=None):
        super().__init__()
        self.N, self.p, self.rr, self.eps0 = int(N), p, rr, eps0
        self.vertices = list(range(self.N + 1)) if vertices is None else list(vertices)
        self.params = dict(N=self.N, p=p, rr=rr, eps0=eps0, vertices=len(self.vertices))
        self.extra_dps = int(math.log10(self.N + 1)) + 2
        if eps0 is not None and 0 < eps0 < 1:
            # p = 1/2 - eps0/4 + ...: the atoms must resolve eps0 next to 1/2
            self.extra_dps += int(-math.log10(eps0)) + 2

    def _zero(self, direction):
        if self.rr:      # P/Q <= (1-p)/p = e^eps0, attained at an extreme atom: exactly eps0
            return mpf(self.eps0)
        return super()._zero(direction)

    def _p(self):
        if self.eps0 is not None:             # p = 1 / (1 + e^eps0) exactly
            e = mpmath.exp(-mpf(self.eps0))
            return e / (1 + e), 1 / (1 + e)
        return mpf(self.p), _one_minus(self.p)

    def _pairs(self):
        p, q = self._p()
        out = []
        for a in self.vertices:
            S = _convolve(_bin_law(a, p, q), _bin_law(self.N - a, q, p))
            if not self.rr:
                out.append(_shift(S))
                continue
            P = [mpf(0)] * (len(S) + 1)
            Q = [mpf(0)] * (len(S) + 1)
            for k, s in enumerate(S):
                P[k + 1] += q * s
                P[k] += p * s
                Q[k + 1] += p * s
                Q[k] += q * s
            out.append((P, Q))
        return out


def worst_case(N, p, vertices=None):
    """Partial-knowledge worst case over the vertices (all a = 0..N by default)."""
    return _Vertices(N, p, vertices=vertices)


def shuffled_rr(n, eps0, vertices=None):
    """n shuffled eps0-randomized-response bits, worst case over the others' inputs."""
    return _Vertices(n - 1, None, rr=True, vertices=vertices, eps0=eps0)


class _Blanket(_DiscreteCurve):
    """Privacy blanket (Balle, Bell, Gascon & Nissim): the attacker learns b ~ Bin(N, 2p)
    and sees A_b + 1 vs A_b, A_b ~ Bin(b, 1/2): atoms (b, j)."""

    kind = "blanket"

    def __init__(self, N, p):
        super().__init__()
        self.N, self.p = int(N), float(p)
        self.params = dict(N=self.N, p=self.p)

    def _laws(self):
        g = 2 * mpf(self.p)
        w = _bin_law(self.N, g, 1 - g)
        PQ = {}
        for b, wb in enumerate(w):
            A = _bin_law(b, mpf(1) / 2, mpf(1) / 2)
            for j, a in enumerate(A):
                _add(PQ, (b, j + 1), 0, wb * a)
                _add(PQ, (b, j), 1, wb * a)
        return _explicit(PQ)


def blanket(N, p):
    return _Blanket(N, p)


def _count_law(pis):
    """pmf of a sum of independent Bernoulli(pi_j) (pi_j floats, exact convolution)."""
    z = [mpf(1)]
    for p in pis:
        p = mpf(p)
        q = 1 - p
        new = [mpf(0)] * (len(z) + 1)
        for k, zk in enumerate(z):
            new[k] += zk * q
            new[k + 1] += zk * p
        z = new
    return z


class _Thresholded(_MaxOfPairs):
    """Thresholded count (Desfontaines et al., Def. 15): K = x + b + Z released iff
    K >= tau (else a single suppression outcome); x = 1 (P) or 0 (Q), b the ones among
    the known records, Z the count of the unknown others.  Passive: the attacker sees
    (b, release) -- one joint law; active: max over every b of positive probability."""

    kind = "thresholded"

    def __init__(self, n, pis, tau, known, attacker):
        super().__init__()
        self.pis, self.tau, self.known, self.attacker = list(pis), int(tau), int(known), attacker
        self.params = dict(n=n, tau=tau, known=known, attacker=attacker)
        if len(self.pis) > 4000:
            raise TooExpensive("thresholded oracle: at most 4000 records")
        # Differences of cdfs near 1 (the suppressed outcome) are as small as the
        # smallest atom of the count laws, a ~ prod_j min(pi_j, 1 - pi_j), and at
        # a float eps next to such a cell's ln P/Q = a + a^2/2 + ... the cell's
        # term is of second order, ~a^2 (e.g. 1 - e^eps (1 - a) at eps = a): carry
        # twice that many digits more, or it reads 0.
        need = 2 * sum(-math.log10(min(p, 1.0 - p)) for p in self.pis if 0.0 < p < 1.0)
        # (capped so that the n^2 convolution stays affordable: beyond the cap a
        # difference below ~10^-cap of an atom may still read 0)
        cap = max(0, int(2e7 / (len(self.pis) + 1) ** 2))
        self.extra_dps = min(int(need) + 5 if need > 20 else 0, cap, MAX_DPS - DPS - 100)

    def _pairs(self):
        bl = _count_law(self.pis[:self.known])
        z = _count_law(self.pis[self.known:])
        pairs, PQ = [], {}
        for b, wb in enumerate(bl):
            if wb == 0:
                continue
            one = {}
            for k, zk in enumerate(z):
                for x in (1, 0):
                    K = x + b + k
                    out = K if K >= self.tau else None
                    _add(one, out, 1 - x, zk)
                    _add(PQ, (b, out), 1 - x, wb * zk)
            pairs.append(_explicit(one))
        return pairs if self.attacker == "active" else [_explicit(PQ)]


def thresholded(n, pi, tau, known=0, attacker="passive"):
    """pi a float (iid, n - 1 others) or a list of the n - 1 others' probabilities
    (the first ``known`` are the known records)."""
    pis = [pi] * (n - 1) if not isinstance(pi, (list, tuple)) else list(pi)
    return _Thresholded(n, pis, tau, known, attacker)


class _KAnonymity(_DiscreteCurve):
    """k-anonymous histogram (Desfontaines et al., Def. 16): the n - 1 others are iid in
    the source category (pa), the target category (pb) or elsewhere; A, B their counts.
    P: (thr(A+1), thr(B)), Q: (thr(A), thr(B+1)), thr(x) = x if x >= k else suppressed.
    lower: the attacker sees those two; upper: also m = A + B."""

    kind = "k_anonymity"

    def __init__(self, n, pa, pb, k, bound):
        super().__init__()
        self.N, self.pa, self.pb, self.k, self.bound = n - 1, pa, pb, k, bound
        self.params = dict(n=n, pa=pa, pb=pb, k=k, bound=bound)
        if (self.N + 1) ** 2 > 2 * MAX_ATOMS * 4:
            raise TooExpensive("k-anonymity oracle: n too large")
        # A suppressed outcome's P - Q is as small as the smallest atom, down to
        # min(pa, pb, rest)^N: carry those digits too (else 1 - tiny rounds to 1).
        rest = float(1 - Fraction(pa) - Fraction(pb))
        small = min([p for p in (pa, pb, rest) if p > 0.0], default=1.0)
        need = -self.N * math.log10(small) if small < 1.0 else 0.0
        # (capped so that the N^2 atoms stay affordable: beyond the cap a difference
        # below ~10^-cap of an atom may still read 0)
        cap = max(0, int(2e7 / (self.N + 1) ** 2))
        self.extra_dps = 5 + min(int(need) if need > 20 else 0, cap, MAX_DPS - DPS - 100)

    def _laws(self):
        fa, fb = Fraction(self.pa), Fraction(self.pb)
        fr = 1 - fa - fb
        if fr < 0:
            raise TooExpensive("probabilities sum above 1")
        pa, pb, pr = _mp(fa), _mp(fb), _mp(fr)
        N, k = self.N, self.k
        thr = lambda x: x if x >= k else None   # noqa: E731
        PQ = {}
        for A in range(N + 1):
            for B in range(N - A + 1):
                R = N - A - B
                w = (math.comb(N, A) * math.comb(N - A, B)) * pa ** A * pb ** B * pr ** R
                if w == 0:
                    continue
                extra = (A + B,) if self.bound == "upper" else ()
                _add(PQ, (thr(A + 1), thr(B)) + extra, 0, w)
                _add(PQ, (thr(A), thr(B + 1)) + extra, 1, w)
        return _explicit(PQ)


def k_anonymity(n, pa, pb, k, bound):
    return _KAnonymity(n, pa, pb, k, bound)


class _Clones(_DiscreteCurve):
    """Clone reduction (Feldman, McMillan & Talwar, Thm 3.2): C ~ Bin(n-1, e^-eps0),
    A ~ Bin(C, 1/2), D ~ Bern(e^eps0 / (1 + e^eps0)); P = (C, A + D), Q = (C, A + 1 - D)."""

    kind = "clones"

    def __init__(self, n, eps0):
        super().__init__()
        self.n, self.eps0 = int(n), float(eps0)
        self.params = dict(n=self.n, eps0=self.eps0)
        if self.n > 110:
            raise TooExpensive("clones oracle: n <= 110")
        # P and Q differ by ~eps0 relative (alpha - beta = tanh(eps0 / 2)), and
        # at eps a float below eps0 each atom's p - e^eps q by (eps0 - eps) /
        # eps0 >= 2^-53 of that again: below ~1e-60 those differences round
        # to exactly 0 at both working precisions, which would then "agree"
        # on delta = 0.  Carry the digits to resolve them from the start.
        if self.eps0 < 1e-20:
            self.extra_dps = int(-math.log10(self.eps0)) + 20

    def _zero(self, direction):
        # P/Q at atom (c, j) is (alpha A(j-1) + beta A(j)) / (alpha A(j) + beta A(j-1))
        # <= alpha / beta = e^eps0, attained at j = c + 1: exactly eps0
        return mpf(self.eps0)

    def _laws(self):
        e0 = mpf(self.eps0)
        c_p, c_q = mpmath.exp(-e0), -mpmath.expm1(-e0)
        alpha, beta = 1 / (1 + c_p), c_p / (1 + c_p)     # alpha = e^eps0 / (1 + e^eps0)
        PQ = {}
        for c, wc in enumerate(_bin_law(self.n - 1, c_p, c_q)):
            for j, a in enumerate(_bin_law(c, mpf(1) / 2, mpf(1) / 2)):
                m = wc * a
                _add(PQ, (c, j + 1), 0, alpha * m)
                _add(PQ, (c, j), 0, beta * m)
                _add(PQ, (c, j), 1, alpha * m)
                _add(PQ, (c, j + 1), 1, beta * m)
        return _explicit(PQ)


def clones(n, eps0):
    return _Clones(n, eps0)


class _Product(_DiscreteCurve):
    """Two independent releases: P = P1 x P2, Q = Q1 x Q2 (explicit discrete curves)."""

    kind = "product"

    def __init__(self, a, b):
        super().__init__()
        self.a, self.b = a, b
        self.params = dict(a=a.params, b=b.params)
        self.extra_dps = max(a.extra_dps, b.extra_dps)

    def _zero(self, direction):
        # sup of P1 P2 / Q1 Q2 over the pairs with P1 P2 > 0 is the product of the
        # parts' sups: eps0 = eps0_a + eps0_b, added exactly (the ratio of the
        # rounded product atoms puts an exact float sum ~1e-60 off, and the
        # smallest float at least it one float up)
        za, zb = self.a._zero(direction), self.b._zero(direction)
        if mpmath.isinf(za) or mpmath.isinf(zb):
            return za + zb
        return mpmath.fadd(za, zb, exact=True)

    def _laws(self):
        P1, Q1 = self.a._laws()
        P2, Q2 = self.b._laws()
        if len(P1) * len(P2) > MAX_ATOMS:
            raise TooExpensive("product law too large")
        return ([x * y for x in P1 for y in P2], [x * y for x in Q1 for y in Q2])


def product(a, b):
    return _Product(a, b)


class _RandomizedResponse(_DiscreteCurve):
    """k-ary randomized response (Warner, "Randomized response: a survey technique
    for eliminating evasive answer bias"): the report is the true value with
    probability e^eps0 / Z and each other value with probability 1 / Z, Z = e^eps0 +
    k - 1.  P: the target's value is a, Q: it is b; the reports a, b and each of
    the k - 2 others (one atom each up to RR_EXPLICIT_K values; beyond, the k - 2
    others, equally likely under P and Q, are one atom of mass (k - 2) / Z)."""

    kind = "randomized_response"
    RR_EXPLICIT_K = 50

    def __init__(self, eps0, k):
        super().__init__()
        self.eps0, self.k = float(eps0), int(k)
        self.params = dict(eps0=self.eps0, k=self.k)
        # P - e^eps Q is ~eps0 / Z at report a: resolve eps0 next to 1, and a float
        # eps just below eps0 (another 2^-53 of that) from the start
        if 0.0 < self.eps0 < 1.0:
            self.extra_dps = int(-math.log10(self.eps0)) + 25

    def _zero(self, direction):
        # P/Q is e^eps0 at report a (Q/P at report b), 1 elsewhere: exactly eps0
        return mpf(self.eps0)

    def _laws(self):
        e = mpmath.exp(mpf(self.eps0))
        z = e + (self.k - 1)
        P, Q = [e / z, 1 / z], [1 / z, e / z]
        others = [1 / z] * (self.k - 2) if self.k <= self.RR_EXPLICIT_K else \
            ([mpf(self.k - 2) / z] if self.k > 2 else [])
        return P + others, Q + others


def randomized_response(eps0, k=2):
    return _RandomizedResponse(eps0, k)


class _Subsampled(OracleCurve):
    """A discrete release (P, Q) run on a random sample, q the sampling probability
    (Balle, Barthe & Gaboardi, "Privacy amplification by subsampling: tight analyses
    via couplings and divergences"), summed atom by atom:
    poisson (add/remove: the target's record is in the sample with probability q,
    else the release is Q's): delta_plus = H(qP + (1-q)Q || Q), delta_minus =
    H(Q || qP + (1-q)Q);
    without_replacement (replace-one, the others' records fixed in the worst case):
    delta_plus = H(qP + (1-q)Q || Q), delta_minus = H(qQ + (1-q)P || P)."""

    kind = "subsampled"

    def __init__(self, inner, q, sampling):
        self.inner, self.q, self.sampling = inner, float(q), sampling
        self.params = dict(inner=inner.params, q=self.q, sampling=sampling)
        # the mixture's P - e^eps Q carries q (and the inner pair's differences)
        self.extra_dps = inner.extra_dps + (int(-math.log10(self.q)) + 5
                                            if 0.0 < self.q < 1e-3 else 0)

    def _pairs(self, dps):
        """[(A, B) of delta_plus, (C, D) of delta_minus] at the current precision."""
        P, Q = self.inner._get(dps)
        q = mpf(self.q)
        mix = [q * p + (1 - q) * x for p, x in zip(P, Q)]
        if self.sampling == "poisson":
            return [(mix, Q), (Q, mix)]
        return [(mix, Q), ([q * x + (1 - q) * p for p, x in zip(P, Q)], P)]

    def _eval(self, eps, dps):
        E, em1 = _exp_eps(eps)
        (A, B), (C, D) = self._pairs(dps)
        return _hs(A, B, E, em1), _hs(C, D, E, em1)

    def _zero(self, direction):
        if self.q == 1.0:
            # the mixture is the inner pair itself: its zero points exactly (the
            # ratio of its rounded atoms may land a rounding above a float eps0)
            return self.inner._zero(direction)
        dps = DPS + 10 + self.extra_dps
        (A, B), (C, D) = self._pairs(dps)
        plus, minus = _log_max_ratio(A, B), _log_max_ratio(C, D)
        return {"plus": plus, "minus": minus}.get(direction, max(plus, minus))


def subsampled(inner, q, sampling="poisson"):
    """``inner`` (an explicit discrete oracle curve) run on a sample: see _Subsampled."""
    return _Subsampled(inner, q, sampling)


class _CorrelatedCounts(OracleCurve):
    """k noiseless counts on the same records (Desfontaines, Mohammadi, Krahmer &
    Basin, "Differential Privacy with Partial Knowledge", Example 8): each of the
    N = n - 1 others answers k binary questions, the answer vectors iid with law
    ``joint`` (entry v = sum_j a_j 2^(k-j), the floats taken as exact).  L, the law
    of the sum S of the others' vectors, from the multinomial split of the N others
    over the cells of positive probability (N! / prod n_v! prod p_v^n_v at S = sum
    n_v v).  Target x (P(c) = L(c - x)) against x' (Q(c) = L(c - x')):

        delta_plus(eps) = sum_s (L(s) - e^eps L(s + d))_+,  d = x - x',

    delta_minus the same at -d; without a target the max over every d in
    {-1, 0, 1}^k other than 0, both directions."""

    kind = "correlated_counts"
    MAX_SPLITS = 60_000        # multinomial splits of the others
    MAX_SUPPORT_SUMS = 400_000  # support points times shifts d

    def __init__(self, n, joint, target=None):
        self.N, self.joint = int(n) - 1, [float(p) for p in joint]
        self.k = len(self.joint).bit_length() - 1
        self.params = dict(n=n, joint=self.joint, target=target)
        cells = sum(1 for p in self.joint if p > 0.0)
        if math.comb(self.N + cells - 1, cells - 1) > self.MAX_SPLITS:
            raise TooExpensive(f"correlated counts oracle: more than {self.MAX_SPLITS} splits")
        if target is None:
            self.shifts = [d for d in itertools.product((-1, 0, 1), repeat=self.k) if any(d)]
        else:
            d = tuple(a - b for a, b in zip(*target))
            self.shifts = [d, tuple(-v for v in d)]
        self.worst = target is None
        self._cache = {}

    def _law(self, dps):
        """Per shift d, (L(s), L(s + d)) over the s where L(s) > 0, at dps digits."""
        if dps not in self._cache:
            with mp.workdps(dps):
                cells = [(tuple((v >> (self.k - 1 - j)) & 1 for j in range(self.k)), mpf(p))
                         for v, p in enumerate(self.joint) if p > 0.0]
                N = self.N
                law = {}

                def split(i, left, at, weight):
                    vec, p = cells[i]
                    if i == len(cells) - 1:
                        s = tuple(a + left * b for a, b in zip(at, vec))
                        law[s] = law.get(s, mpf(0)) + weight * p ** left
                        return
                    for m in range(left + 1):
                        split(i + 1, left - m, tuple(a + m * b for a, b in zip(at, vec)),
                              weight * math.comb(left, m) * p ** m)
                split(0, N, (0,) * self.k, mpf(1))
            if len(law) * len(self.shifts) > self.MAX_SUPPORT_SUMS:
                raise TooExpensive("correlated counts oracle: support too large")
            keys = list(law)
            if len(self._cache) >= 3:
                self._cache.pop(next(iter(self._cache)))
            # per shift d the aligned lists (L(s), L(s + d)) over the support of L
            self._cache[dps] = [([law[s] for s in keys],
                                 [law.get(tuple(a + b for a, b in zip(s, d)), mpf(0))
                                  for s in keys]) for d in self.shifts]
        return self._cache[dps]

    def _eval(self, eps, dps):
        E, em1 = _exp_eps(eps)
        sums = [_hs(P, Q, E, em1) for P, Q in self._law(dps)]
        if self.worst:
            return max(sums), max(sums)
        return sums[0], sums[1]

    def _zero(self, direction):
        zeros = [_log_max_ratio(P, Q) for P, Q in self._law(DPS + 10 + self.extra_dps)]
        if self.worst or direction == "max":
            return max(zeros)
        return zeros[0] if direction == "plus" else zeros[1]


def correlated_counts(n, joint, target=None):
    """k counts on the same correlated records: see _CorrelatedCounts."""
    return _CorrelatedCounts(n, joint, target)


# ---------------------------------------------------------------------------
# Reference computations of single curves from the definitions, for the tests
# that compare statpriv against them (their slow values are stored in
# tests/data/reference/independent.json, read through tests/helpers.py's
# oracle(name, ...)).  Plain mpmath at the precision each one sets.
# ---------------------------------------------------------------------------


# Laplace noise on a pure shift (no sampling) near the zero point 1/b.
# Reference from the definitions: n records with the target among them, so
# P = Bin(n - 1, pi) shifted by one, Q = Bin(n - 1, pi),
# f_A = A * Laplace(b); the likelihood ratio f_P/f_Q is monotone (log-concave
# noise keeps the monotone ratio of the shift), so {f_P > e^eps f_Q} is a
# half-line [x*, inf) and delta_plus = sum_k (P(k) - e^eps Q(k)) P[k + N > x*],
# with x* found by bisection at 60 digits.

def laplace_shift_delta_plus(n, pi, b, eps, dps=60, atoms=None):
    """``atoms`` = (lo, hi): only the others' counts lo <= k < hi (the rest's
    mass below the sum's last digit), the densities summed over atoms within
    200 b of x (e^-200 of the nearest)."""
    n = n - 1                                # the others
    lo_k, hi_k = atoms or (0, n + 1)
    with mpmath.workdps(dps):
        p, b, e = mpmath.mpf(pi), mpmath.mpf(b), mpmath.exp(mpmath.mpf(eps))
        Q = {k: mpmath.binomial(n, k) * p ** k * (1 - p) ** (n - k) for k in range(lo_k, hi_k)}
        P = {k + 1: q for k, q in Q.items()}
        ks = sorted(set(P) | set(Q))

        def dens(A, x):
            return mpmath.fsum(a * mpmath.exp(-abs(x - k) / b) for k, a in A.items()
                               if a and abs(x - k) < 200 * b)

        def surv(x, k):                      # P[k + Laplace(b) > x]
            return (mpmath.exp(-(x - k) / b) / 2 if x >= k
                    else 1 - mpmath.exp((x - k) / b) / 2)

        def h(x):
            return dens(P, x) - e * dens(Q, x)

        lo, hi = lo_k - mpmath.mpf(60) * b, mpmath.mpf(hi_k)
        assert h(lo) < 0 < h(hi)
        for _ in range(dps * 4):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if h(mid) < 0 else (lo, mid)
        return mpmath.fsum((P.get(k, 0) - e * Q.get(k, 0)) * surv(hi, k) for k in ks)


def laplace_noise_quad(P, Q, b, eps):
    """Direct quadrature of (f_P - e^eps f_Q)_+ over the real line, f_Z(x) =
    sum_k Z(k) e^(-|x-k|/b) / (2b): split at every atom, at b-multiples next to every
    atom (where the densities change on the scale b) and at every sign change of the
    integrand on that grid (bisection to full precision)."""
    b, E = mpmath.mpf(b), mpmath.exp(mpmath.mpf(eps))
    c = [p - E * q for p, q in zip(P, Q)]

    def g(x):
        return mpmath.fsum(ck * mpmath.exp(-abs(x - k) / b) for k, ck in enumerate(c)) / (2 * b)

    offs = [b * t for t in (1, 4, 16, 64)]
    L = len(c)
    grid = [-mpmath.inf] + [-o for o in reversed(offs)]
    for k in range(L):
        grid.append(mpmath.mpf(k))
        if k < L - 1:
            grid += [k + o for o in offs] + [k + 1 - o for o in reversed(offs)]
    grid += [L - 1 + o for o in offs] + [mpmath.inf]
    roots = []
    for lo, hi in zip(grid[1:-2], grid[2:-1]):
        glo = g(lo)
        if glo * g(hi) < 0:
            for _ in range(mpmath.mp.prec + 20):          # bisection on the sign of g
                mid = (lo + hi) / 2
                if g(mid) * glo > 0:
                    lo = mid
                else:
                    hi = mid
            roots.append(lo)
    pts = sorted(grid + roots)
    total = mpmath.mpf(0)
    for lo, hi in zip(pts, pts[1:]):
        if lo == -mpmath.inf:
            mid = hi - 1
        elif hi == mpmath.inf:
            mid = lo + 1
        else:
            mid = (lo + hi) / 2
        if g(mid) > 0:
            # mpmath.quad stops at an absolute error of ~10^-dps: scale the integrand
            # to order 1 on the segment (delta can be 1e-38 and below)
            s = max(abs(g(x)) for x in (lo, mid, hi) if abs(x) != mpmath.inf)
            total += s * mpmath.quad(lambda x: g(x) / s, [lo, hi])
    return total


def windowed_delta_plus(n, pi, eps):
    """50-digit sum of (b(k-1) - e^eps b(k))_+ from just below the threshold
    upward until the terms fall below 1e-45 of the total; b(k0) from mpmath's
    log-gamma, then the exact ratio b(k+1)/b(k) in 50 digits.  Independent of
    Loader's form and of the C code; the neglected tail decays geometrically."""
    with mpmath.workdps(50):
        N, p, e = n - 1, mpmath.mpf(pi), mpmath.exp(mpmath.mpf(eps))
        q = 1 - p
        k0 = int(mpmath.floor(e * p * n / (q + e * p))) + 1
        k = max(k0 - 3, 1)
        b_prev = mpmath.exp(mpmath.loggamma(N + 1) - mpmath.loggamma(k) - mpmath.loggamma(N - k + 2)
                            + (k - 1) * mpmath.log(p) + (N - k + 1) * mpmath.log(q))  # b(k-1)
        total = mpmath.mpf(0)
        while k <= N:
            b_k = b_prev * (N - k + 1) * p / (k * q)
            term = b_prev - e * b_k
            if term > 0:
                total += term
            if k > k0 + 10 and b_prev < total * mpmath.mpf("1e-45"):
                break
            b_prev, k = b_k, k + 1
        return total


def secret_sample_log_delta_plus(n, m, K, eps):
    """ln delta_plus of the secret sample from the definitions: the sum of
    (P(j) - e^eps Q(j))_+ over the atoms from the top down, P, Q the
    mixtures of hypergeometric laws (loggamma at 30 digits)."""
    N = n - 1
    lg = mpmath.loggamma
    with mpmath.workdps(30):
        lam = mpmath.mpf(m) / n

        def H(k, j):
            if j < 0 or j > K or k - j < 0 or k - j > N - K:
                return mpmath.mpf(0)
            return mpmath.exp(lg(K + 1) - lg(j + 1) - lg(K - j + 1) + lg(N - K + 1)
                              - lg(k - j + 1) - lg(N - K - k + j + 1) - lg(N + 1) + lg(k + 1)
                              + lg(N - k + 1))
        e, total = mpmath.exp(eps), mpmath.mpf(0)
        for j in range(m, -1, -1):
            d = lam * H(m - 1, j - 1) + (1 - lam) * H(m, j) - e * (
                lam * H(m - 1, j) + (1 - lam) * H(m, j))
            if d <= 0:
                break          # P/Q increases with j: nothing positive below
            total += d
        return mpmath.log(total)


def _curve_of_spec(spec):
    """The curve of this module named by spec = (name, args, kwargs); for
    "noisy", args = (count spec, noise)."""
    name, args, kwargs = spec
    if name == "noisy":
        return noisy(_curve_of_spec(args[0]), args[1], **kwargs)
    return globals()[name](*args, **kwargs)


def independent_deltas(spec, eps):
    """[delta_plus(e0), delta_minus(e0), delta_plus(e1), ...] of this module's
    curve ``spec`` (see _curve_of_spec), as one flat list: the form its stored
    values take (the slow alternative paths, quadrature and full sums)."""
    return [x for pair in _curve_of_spec(spec).deltas(list(eps)) for x in pair]


# The noiseless iid count from the definitions (tests/test_counting.py).
COUNTING_DPS = 50


def _counting_logs(pi, direction):
    pi = mpmath.mpf(pi)
    lp = mpmath.log(pi) if pi > 0 else mpmath.ninf
    lq = mpmath.log1p(-pi) if pi < 1 else mpmath.ninf
    return (lq, lp) if direction == "minus" else (lp, lq)


def counting_log_delta(n, pi, eps, direction):
    """ln delta of counting(n, pi) in a direction ('plus', 'minus'), as mpf, from
    the definitions alone (tests/test_counting.py's oracle; its docstring has the
    derivation): the binomial pmf from loggamma at 50 digits with ln pi, ln(1 - pi)
    of the exact float pi; every atom for n <= 3000, else the positive set
    {k >= k0} term by term with a geometric remainder bound, or Euler-Maclaurin
    (mpmath.sumem) where sqrt(N pi (1 - pi)) > 3000 and |eps| < 2e-3."""
    with mpmath.workdps(COUNTING_DPS):
        N = mpmath.mpf(n - 1)
        lp, lq = _counting_logs(pi, direction)
        if lp == mpmath.ninf or lq == mpmath.ninf:
            return mpmath.mpf(0)                   # point masses one apart: delta = 1
        eps = mpmath.mpf(eps)
        lg_n = mpmath.loggamma(N + 1)

        def logb(k):
            if k < 0 or k > N:
                return mpmath.ninf
            return lg_n - mpmath.loggamma(k + 1) - mpmath.loggamma(N - k + 1) + k * lp + (N - k) * lq

        if n <= 3000:
            total = mpmath.mpf(0)
            for k in range(n + 1):
                t = mpmath.exp(logb(k - 1)) - mpmath.exp(eps + logb(k))
                if t > 0:
                    total += t
            return mpmath.log(total) if total > 0 else mpmath.ninf

        def log_ratio(k):                   # ln P(k)/Q(k) = ln b(k-1)/b(k)
            return mpmath.log(k) - mpmath.log(n - k) + lq - lp if k < n else mpmath.inf

        c = mpmath.exp(eps + lp - lq)
        k0 = int(mpmath.floor(n * c / (1 + c))) + 1
        while k0 > 1 and log_ratio(k0 - 1) > eps:
            k0 -= 1
        while k0 < n and not log_ratio(k0) > eps:
            k0 += 1
        sigma = mpmath.sqrt(N * mpmath.exp(lp) * mpmath.exp(lq))
        if sigma > 3000 and abs(eps) < 2e-3:
            # the summand decays by ~e^-eps per atom: smooth on the unit scale
            def term(x):
                return mpmath.exp(logb(x - 1)) - mpmath.exp(eps + logb(x))
            # the terms decay on the scale s = sigma / (1 + eps sigma) (geometric
            # at e^(-1/s) per atom far out, Gaussian of width sigma near the
            # mean): the integral is Gauss-Legendre on panels of s/2 up to 120 s
            # (e^-120 of the sum), so that it resolves a decay much shorter
            # than sigma (deep in the tail, eps sigma ~ 30, tanh-sinh on one
            # interval of 60 sigma missed the mass by 12%)
            scale = sigma / (1 + eps * sigma)
            end = min(N + 1, k0 + 120 * scale)
            cuts = [k0 + m * scale / 2 for m in range(int(2 * (end - k0) / scale) + 1)] + [end]
            integral = mpmath.quad(term, cuts, method="gauss-legendre")
            return mpmath.log(mpmath.sumem(term, [k0, end], integral=integral))
        # terms relative to b(k0 - 1): t(k) = b(k-1) (1 - e^eps / r(k))
        w, total, k = mpmath.mpf(1), mpmath.mpf(0), k0
        tol = mpmath.mpf(10) ** (-COUNTING_DPS)
        em, mean = mpmath.exp(eps), N * mpmath.exp(lp)
        while k <= n:
            r = mpmath.exp(log_ratio(k)) if k < n else mpmath.inf
            total += w * (1 - em / r)
            if k == n:
                break
            w = w / r                       # b(k) / b(k0 - 1)
            if k > mean + 1:                # decreasing ratios: geometric bound
                rho = (N - k) / (k + 1) * mpmath.exp(lp - lq)
                if rho < 1 and w / (1 - rho) < tol * total:
                    total += w / (1 - rho)
                    break
            k += 1
        return logb(k0 - 1) + mpmath.log(total)


# Noiseless Poisson sampling from the definitions (Smith 2009, "Differential
# privacy and the secrecy of the sample", Alg. 2; used by tests/test_sampling.py):
# every other record is kept with probability g, Z ~ Bin(N, rho) the count of the
# kept others (rho = g pi), P(k) = g Z(k-1) + (1-g) Z(k), Q(k) = Z(k).

def log_binom(N, rho, k):
    """ln of the Bin(N, rho) pmf at k (mpmath loggamma, current precision)."""
    return (mpmath.loggamma(N + 1) - mpmath.loggamma(k + 1) - mpmath.loggamma(N - k + 1)
            + k * mpmath.log(rho) + (N - k) * mpmath.log1p(-rho))


def first_above(N, rho, g, eps):
    """First k with P(k)/Q(k) > e^eps (exact, mpmath)."""
    g, w = mpmath.mpf(g), mpmath.exp(mpmath.mpf(eps))
    # 1 - g + g k (1 - rho) / ((N + 1 - k) rho) > w  <=>  k > (w - 1 + g) (N + 1) rho / (g (1 - rho) + (w - 1 + g) rho)
    a = w - 1 + g
    k = int(mpmath.floor(a * (N + 1) * rho / (g * (1 - rho) + a * rho))) + 1
    k = min(k, N + 1)

    def ratio(j):           # P(j)/Q(j); Q(N+1) = 0
        return mpmath.inf if j >= N + 1 else 1 - g + g * j * (1 - rho) / ((N + 1 - j) * rho)

    while ratio(k) <= w:
        k += 1
    while k > 1 and ratio(k - 1) > w:
        k -= 1
    return k


def _tail_delta_by_ratios(N, rho, g, eps, direction):
    """ln delta of a large iid count from its definition, summed from the
    threshold outward with exact pmf ratios Z(k)/Z(k-1) = (N-k+1) rho / (k (1-rho))
    at 50 digits, relative to Z at the first positive term, until the terms
    are below 1e-45 of the sum (they fall like a Gaussian tail: what is left
    is a few times the last term; a stop at 1e-30 showed beside Arb's
    intervals, ~3e-30 relative).  Plus: terms
    P(k) - e^eps Q(k) = g Z(k-1) + (1-g-e^eps) Z(k) for k >= k0 (the first k with
    P/Q(k) > e^eps, Smith's P/Q increasing); minus: Q(k) - e^eps P(k) for
    k <= k1 (the last k with Q/P(k) > e^eps)."""
    g, w = mpmath.mpf(g), mpmath.exp(mpmath.mpf(eps))
    up = lambda k: (N - k + 1) * rho / (k * (1 - rho))          # Z(k) / Z(k-1)
    if direction == "plus":
        k = first_above(N, rho, g, eps)
        lz, zprev, z, step = log_binom(N, rho, k - 1), mpmath.mpf(1), up(k), 1
        term_of = lambda zp, zk: g * zp + (1 - g - w) * zk
    else:
        c = 1 - w * (1 - g)
        k = first_above(N, rho, g, eps)        # Q/P(j) > e^eps needs P/Q(j) < e^-eps
        ratio = lambda j: 1 - g + g * j * (1 - rho) / ((N + 1 - j) * rho)      # P/Q(j)
        while k > 0 and not ratio(k) < 1 / w:
            k -= 1
        while ratio(k + 1) < 1 / w:
            k += 1
        lz, z, zprev, step = log_binom(N, rho, k), mpmath.mpf(1), 1 / up(k), -1
        term_of = lambda zp, zk: c * zk - w * g * zp
    total = mpmath.mpf(0)
    for _ in range(10 ** 6):
        term = term_of(zprev, z)
        assert term > 0
        total += term
        if term < total * mpmath.mpf(10) ** -45:
            return lz + mpmath.log(total)
        k += step
        if step > 0:
            zprev, z = z, z * up(k) if k <= N else mpmath.mpf(0)
        else:
            z, zprev = zprev, zprev / up(k) if k >= 1 else mpmath.mpf(0)
    raise AssertionError("reference did not converge")


def poisson_tail_log_delta(N, pi, g, eps, direction):
    """ln delta (plus or minus) at eps of the noiseless Poisson-sampled iid count
    with N other records, rate g: _tail_delta_by_ratios at rho = g pi (50 digits)."""
    with mpmath.workdps(50):
        return _tail_delta_by_ratios(N, mpmath.mpf(g) * mpmath.mpf(pi), g, eps, direction)


# A sampled count plus Gaussian noise from the definitions (tests/test_noise_gaussian.py).

def mixture_mp(A, B, lam):
    """The sampled laws P(j) = lam A(j-1) + (1-lam) B(j), Q(j) = lam A(j) + (1-lam) B(j)."""
    lam = mpmath.mpf(lam)
    size = max(len(A) + 1, len(B))
    P, Q = [], []
    for j in range(size):
        a1 = A[j - 1] if 1 <= j <= len(A) else 0
        a0 = A[j] if j < len(A) else 0
        b = B[j] if j < len(B) else 0
        P.append(lam * a1 + (1 - lam) * b)
        Q.append(lam * a0 + (1 - lam) * b)
    return P, Q


def gaussian_log_delta_mp(P, Q, sigma, eps, plus):
    """ln delta of the laws P, Q (mpmath lists on 0..L-1) plus Gaussian(sigma) noise
    from the definition (single sign change of the noisy log ratio), 50 digits."""
    with mpmath.workdps(50):
        sigma, eps = mpmath.mpf(sigma), mpmath.mpf(eps)
        A, B = (P, Q) if plus else (Q, P)
        D = [a - mpmath.exp(eps) * b for a, b in zip(A, B)]
        if all(d <= 0 for d in D):
            return -mpmath.inf
        atoms = [k for k in range(len(A)) if A[k] > 0 or B[k] > 0]

        def h(x):
            fa = mpmath.fsum(A[k] * mpmath.exp(-(x - k) ** 2 / (2 * sigma ** 2)) for k in atoms)
            fb = mpmath.fsum(B[k] * mpmath.exp(-(x - k) ** 2 / (2 * sigma ** 2)) for k in atoms)
            return mpmath.inf if fb == 0 else (-mpmath.inf if fa == 0 else mpmath.log(fa / fb) - eps)

        sgn = 1 if plus else -1
        # (mpmath numbers from the start: with integer ends the bisection ran in
        # Python floats and stopped at 1e-16 of the crossing, and x - k in floats
        # moved each atom's argument differently -- ~1e-18 relative in delta)
        step = mpmath.mpf(max(sigma, 1))
        hi = (atoms[-1] if plus else atoms[0]) + sgn * step
        while h(hi) <= 0:
            step *= 2
            hi += sgn * step
        step = mpmath.mpf(max(sigma, 1))
        lo = (atoms[0] if plus else atoms[-1]) - sgn * step
        while h(lo) > 0:
            step *= 2
            lo -= sgn * step
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (lo, mid) if h(mid) > 0 else (mid, hi)
            if abs(hi - lo) < mpmath.mpf(10) ** -30 * (1 + abs(hi)):
                break
        x = (lo + hi) / 2
        side = (lambda k: mpmath.ncdf((k - x) / sigma)) if plus else (lambda k: mpmath.ncdf((x - k) / sigma))
        return mpmath.log(mpmath.fsum(d * side(k) for k, d in enumerate(D) if d != 0))


def sampled_gaussian_log_delta(sampling, n, pi, size, sigma, eps, plus):
    """ln delta (plus if ``plus`` else minus) of counting(n, pi, noise=Gaussian(sigma))
    sampled with sample_size=size (sampling "sample_size": P, Q the mixtures of
    Bin(m-1, pi) and Bin(m, pi) with lambda = m/n) or Poisson sampling at
    rate=size (Z = Bin(n-1, rate pi), P, Q its mixtures), at 50 digits."""
    with mpmath.workdps(50):
        if sampling == "poisson":
            Z = binomial_mp(n - 1, mpmath.mpf(size) * mpmath.mpf(pi))
            P, Q = mixture_mp(Z, Z, size)
        else:
            P, Q = mixture_mp(binomial_mp(size - 1, pi), binomial_mp(size, pi),
                              mpmath.mpf(size) / n)
        return gaussian_log_delta_mp(P, Q, sigma, eps, plus)


# Explicit laws of the noise and composition tests (test_noise_*.py, test_pld.py, ...).

def binomial_mp(N, pi):
    """Bin(N, pi) pmf on 0..N as mpmath numbers (the caller sets the precision)."""
    return [mpmath.binomial(N, k) * mpmath.mpf(pi) ** k * (1 - mpmath.mpf(pi)) ** (N - k)
            for k in range(N + 1)]


def geometric_noise_mp(n, pi, alpha, span):
    """counting(n, pi) plus two-sided geometric(alpha) noise: the laws P, Q of the
    noisy count on -span..n+span as mpmath numbers (the caller sets the precision;
    the mass beyond is below alpha^span)."""
    z = binomial_mp(n - 1, pi)
    P = [mpmath.mpf(0)] + z
    Q = z + [mpmath.mpf(0)]
    a = mpmath.mpf(alpha)
    c = (1 - a) / (1 + a)
    ys = range(-span, n + span + 1)
    return ([mpmath.fsum(P[k] * c * a ** abs(y - k) for k in range(n + 1)) for y in ys],
            [mpmath.fsum(Q[k] * c * a ** abs(y - k) for k in range(n + 1)) for y in ys])


def gaussian_delta_mp(sigma, eps):
    """delta(eps) of the Gaussian mechanism, sensitivity 1 (Balle & Wang, Thm. 8),
    as an mpmath number: Phi(1/(2 s) - eps s) - e^eps Phi(-1/(2 s) - eps s)."""
    return _gaussian_mechanism_delta(MPMATH, mpmath.mpf(sigma), mpmath.mpf(eps))


def _gaussian_mechanism_delta(num, s, e):
    """gaussian_delta_mp's formula in the arithmetic ``num`` (s, e its numbers)."""
    return num.ncdf(1 / (2 * s) - e * s) - num.exp(e) * num.ncdf(-1 / (2 * s) - e * s)


# Poisson-subsampled worst-case DP (one DP-SGD step: the target's record is in
# the batch with probability q) and products of its geometric version.

def sampled_dp_atoms(q, relation, s=1):
    """The laws of the sampled record's contribution on the atoms 0..L-1 (unit
    spacing; the noise is added on top): add/remove P = (1-q) d_0 + q d_s
    against Q = d_0; replace-one (shifted by s) P = (1-q) d_s + q d_2s against
    Q = (1-q) d_s + q d_0."""
    q = mpmath.mpf(q)
    if relation == "add_remove":
        P, Q = [mpmath.mpf(0)] * (s + 1), [mpmath.mpf(0)] * (s + 1)
        P[0], P[s], Q[0] = 1 - q, q, mpmath.mpf(1)
    else:
        P, Q = [mpmath.mpf(0)] * (2 * s + 1), [mpmath.mpf(0)] * (2 * s + 1)
        P[s], P[2 * s], Q[s], Q[0] = 1 - q, q, 1 - q, q
    return P, Q


def sampled_dp_log_delta(kind, param, q, relation, eps, plus, sensitivity=1):
    """ln delta (plus if ``plus`` else minus) at eps of Gaussian(sigma = param) or
    Laplace(b = param) noise (unit sensitivity) or geometric(alpha = param) noise
    (integer ``sensitivity``) added to the atoms of sampled_dp_atoms: the
    Gaussian by the single crossing of the noisy log ratio and the normal cdf
    (gaussian_log_delta_mp), the Laplace by quadrature (laplace_noise_quad), the
    geometric by the exact sum (geometric_sampled_laws).  50 digits."""
    with mpmath.workdps(50):
        P, Q = sampled_dp_atoms(q, relation, int(sensitivity))
        if kind == "gaussian" and eps < 0:
            # gaussian_log_delta_mp needs a crossing, which eps < 0 may lack:
            # H_eps(A||B) = 1 - e^eps + e^eps H_-eps(B||A) (sum both sides of
            # (A - e^eps B)_+ - (A - e^eps B)_- = A - e^eps B)
            e = mpmath.mpf(eps)
            other = mpmath.exp(gaussian_log_delta_mp(P, Q, param, -e, not plus))
            return mpmath.log(-mpmath.expm1(e) + mpmath.exp(e) * other)
        if kind == "gaussian":
            return gaussian_log_delta_mp(P, Q, param, eps, plus)
        A, B = (P, Q) if plus else (Q, P)
        if kind == "laplace":
            return mpmath.log(laplace_noise_quad(A, B, param, eps))
        A, B = geometric_sampled_laws(A, B, param)
        return mpmath.log(_hockey_stick_mp(A, B, eps))


def geometric_sampled_laws(P, Q, alpha):
    """P, Q on 0..L-1 plus two-sided geometric(alpha) noise, exactly, as laws on
    L + 2 outcomes: the outcomes 0..L-1 and the two tails.  Beyond the atoms
    every noisy law is its edge value times alpha^distance, so P/Q is constant
    on each tail and lumping a tail into one outcome keeps the privacy-loss
    distribution (the hockey sticks and those of every product) exactly."""
    a = mpmath.mpf(alpha)
    c = (1 - a) / (1 + a)
    L = len(P)

    def noisy(Z):
        inside = [mpmath.fsum(Z[j] * c * a ** abs(k - j) for j in range(L)) for k in range(L)]
        return inside + [inside[0] * a / (1 - a), inside[-1] * a / (1 - a)]
    return noisy(P), noisy(Q)


def _hockey_stick_mp(P, Q, eps):
    E = mpmath.exp(mpmath.mpf(eps))
    return mpmath.fsum(max(p - E * q, 0) for p, q in zip(P, Q))


def sampled_geometric_product_delta(alpha, sensitivity, q, relation, folds, eps, plus):
    """delta (plus if ``plus`` else minus) at eps of ``folds`` independent runs of
    the sampled geometric mechanism: the hockey stick of the product laws, every
    outcome tuple summed.  50 digits."""
    with mpmath.workdps(50):
        P, Q = sampled_dp_atoms(q, relation, int(sensitivity))
        A, B = geometric_sampled_laws(P, Q, alpha)
        PP, QQ = [mpmath.mpf(1)], [mpmath.mpf(1)]
        for _ in range(folds):
            PP = [x * y for x in PP for y in A]
            QQ = [x * y for x in QQ for y in B]
        return _hockey_stick_mp(PP, QQ, eps) if plus else _hockey_stick_mp(QQ, PP, eps)


# Products of the sampled Gaussian mechanism (DP-SGD steps): k runs of the pair
# A = sum_j A_j N(j, s^2) against B = sum_j B_j N(j, s^2) (the atoms of
# sampled_dp_atoms).  Conditioning on the first coordinate of the product,
#
#     H_e(A^k || B^k) = int A(x) H_{e - l(x)}(A^(k-1) || B^(k-1)) dx,  l = ln A/B,
#
# (the hockey stick of the remaining k - 1 coordinates at the shifted eps; e may
# be negative), down to one run, whose hockey stick is the normal cdf at the one
# crossing of l (A/B is a ratio of polynomials in u = e^(x/s^2), monotone).

def _sampled_gaussian_pair(sigma, q, relation, plus):
    """(A_j, B_j, s): the atom weights of the pair in the direction asked."""
    P, Q = sampled_dp_atoms(q, relation)
    return (P, Q, mpmath.mpf(sigma)) if plus else (Q, P, mpmath.mpf(sigma))


def _gaussian_pair_crossing(A, B, s, scales, e, num=None):
    """(x, upper): the x where l(x) = e and whether l > e above it, or (None,
    l > e everywhere).  The positive root u of c_0 + c_1 u + c_2 u^2,
    c_j = (A_j - e^e B_j) e^(-j^2/(2 s^2)) (scales[j] the last factor),
    x = s^2 ln u (the ratio is monotone in x: at most one root is positive).
    ``num``: the arithmetic of the numbers (default mpmath)."""
    num = MPMATH if num is None else num
    E = num.exp(e)
    c0, c1, c2 = [(a - E * b) * g for a, b, g in zip(A, B, scales)] + [num.zero] * (3 - len(A))
    if c2 == 0:
        root = -c0 / c1 if c1 != 0 else num.zero
    else:
        # the two roots without cancellation: r1 = (-c1 - sign(c1) d) / (2 c2), r2 = c0 / (c2 r1)
        d = num.sqrt(c1 * c1 - 4 * c2 * c0)
        r1 = (-c1 - (d if c1 >= 0 else -d)) / (2 * c2)
        root = max(r1, c0 / (c2 * r1)) if r1 != 0 else -c1 / c2
    if root <= 0:
        # one sign everywhere: read it at u = 1 (x = 0)
        return None, c0 + c1 + c2 > 0
    # the side of the root where l > e: the sign of the polynomial at u e (x + s^2)
    u = root * num.e
    return s * s * num.log(root), c0 + c1 * u + c2 * u * u > 0


def _gaussian_pair_hockey_stick(A, B, s, scales, e, num=None):
    """H_e(A || B) of the Gaussian mixtures, exactly: {l > e} is a half-line
    (or empty, or everything) cut at the crossing."""
    num = MPMATH if num is None else num
    x, upper = _gaussian_pair_crossing(A, B, s, scales, e, num)
    E = num.exp(e)
    if x is None:
        return num.fsum(A) - E * num.fsum(B) if upper else num.zero
    sign = 1 if upper else -1
    return num.fsum((a - E * b) * num.ncdf(sign * (j - x) / s)
                    for j, (a, b) in enumerate(zip(A, B)) if num.nonzero(a) or num.nonzero(b))


class _MpmathNumbers:
    """The arithmetic of the nested quadratures below: mpmath (the default;
    the stored values' own).  _ArbNumbers does the same operations on Arb
    balls (python-flint), ~10 times faster per node."""

    zero = mpf(0)
    e = mpmath.e
    exp, log, sqrt = staticmethod(mpmath.exp), staticmethod(mpmath.log), staticmethod(mpmath.sqrt)
    ncdf, npdf, fsum = staticmethod(mpmath.ncdf), staticmethod(mpmath.npdf), staticmethod(mpmath.fsum)
    # an mpf (kept as it is: the rule's nodes carry guard digits) or int in
    # this arithmetic
    of = staticmethod(mpmath.mpmathify)

    @staticmethod
    def nonzero(x):
        return bool(x)

    @staticmethod
    def to_mp(x):
        return x

    @staticmethod
    def working():
        """The context the numbers are computed in (mpmath's own precision)."""
        return contextlib.nullcontext()


class _ArbNumbers:
    """The same operations on Arb balls (python-flint; FLINT's arb_erfc, arb_exp,
    ...), at mpmath's working precision plus GUARD_BITS.  Only the midpoints are
    used (to_mp): the quadrature's own error is not in the balls, and a
    comparison of two balls that overlap (numbers equal to ~1e-50) takes either
    side, as a rounding would."""

    GUARD_BITS = 32

    def __init__(self):
        import flint            # python-flint: imported where the Arb arithmetic is asked for
        self.flint = flint
        self.arb = flint.arb

    @property
    def zero(self):
        return self.arb(0)

    def of(self, x):
        return self.arb(x)

    @staticmethod
    def exp(x):
        return x.exp()

    @staticmethod
    def log(x):
        return x.log()

    @staticmethod
    def sqrt(x):
        return x.sqrt()

    def ncdf(self, z):
        # Phi(z) = erfc(-z / sqrt 2) / 2
        return (-z / self.sqrt2).erfc() / 2

    def npdf(self, x, mu, s):
        return (-((x - mu) / s) ** 2 / 2).exp() / (s * self.sqrt2pi)

    def fsum(self, terms):
        return sum(terms, self.arb(0))

    @staticmethod
    def nonzero(x):
        return x != 0

    @staticmethod
    def to_mp(x):
        man, exp = x.mid().man_exp()
        return mpf((int(man), int(exp)))

    @contextlib.contextmanager
    def working(self):
        """python-flint's precision (one process-wide setting) for the call."""
        old = self.flint.ctx.prec
        self.flint.ctx.prec = mp.prec + self.GUARD_BITS
        # the constants at this precision
        self.e, self.sqrt2 = self.arb(1).exp(), self.arb(2).sqrt()
        self.sqrt2pi = (2 * self.arb.pi()).sqrt()
        try:
            yield
        finally:
            self.flint.ctx.prec = old


MPMATH = _MpmathNumbers()


def _numbers(arithmetic):
    """The arithmetic named ``arithmetic``: "mpmath" or "arb"."""
    if arithmetic == "mpmath":
        return MPMATH
    if arithmetic == "arb":
        return _ArbNumbers()
    raise ValueError(f"arithmetic must be 'mpmath' or 'arb', got {arithmetic!r}")


def _gauss_legendre_rule(nodes):
    """(t_i, w_i) of Gauss-Legendre on [-1, 1] with 3 2^(m-1) nodes, m the
    degree of mpmath's own rule."""
    degree = int(round(math.log2(nodes / 3))) + 1
    return mpmath.calculus.quadrature.GaussLegendre(mp).calc_nodes(degree, mp.prec)


class _SampledGaussianProduct:
    """The recursion H_e(A^k || B^k) = int A(x) H_{e - l(x)}(A^(k-1) || B^(k-1)) dx
    by Gauss-Legendre on pieces: width ``width`` s over the atoms +- 13 s (the
    mass beyond is below 1e-37), and pieces graded geometrically (s 2^-i,
    i <= grading) toward the x where e - l(x) is a sum of k - 1 limits of l
    at +-inf (ln(1 - q) for add/remove): there H_{e'}(A^(k-1) || B^(k-1))
    changes from its closed form 1 - e^e' to a function whose derivatives
    grow without bound -- the pieces keep the rule's convergence."""

    def __init__(self, A, B, s, nodes, width, grading, gaussian=None, num=None):
        # num: the arithmetic of the nodes' values (the pieces' ends stay mpf)
        self.num = num = MPMATH if num is None else num
        self.A, self.B, self.s = [num.of(a) for a in A], [num.of(b) for b in B], num.of(s)
        # optional: one Gaussian mechanism N(1, g^2) against N(0, g^2) (sigma g)
        # composed with the runs
        self.gaussian = None if gaussian is None else num.of(gaussian)
        self.scales = [num.exp(-num.of(j) ** 2 / (2 * self.s * self.s)) for j in range(len(A))]
        self.rule = [(num.of(t), num.of(w)) for t, w in _gauss_legendre_rule(nodes)]
        self._rules = {}         # (a, b) -> _nodes(a, b)
        atoms = [j for j, (a, b) in enumerate(zip(A, B)) if a or b]
        lo, hi = atoms[0] - 13 * s, atoms[-1] + 13 * s
        count = int(mpmath.ceil((hi - lo) / (width * s)))
        self.grid = [lo + (hi - lo) * i / count for i in range(count + 1)]
        self.grading = [s * mpmath.ldexp(1, -i) for i in range(grading + 1)]
        # l at -inf and +inf where the atoms at either end are common
        common = [j for j in atoms if A[j] and B[j]]
        A, B = self.A, self.B
        self.limits = [num.log(A[j] / B[j]) for j in {atoms[0], atoms[-1]} if j in common]
        self.centres = [num.log(self.density(num.of(j), A) / self.density(num.of(j), B))
                        for j in atoms]

    def density(self, x, weights):
        num = self.num
        return num.fsum(p * num.npdf(x, j, self.s) for j, p in enumerate(weights)
                        if num.nonzero(p))

    def _crossing_point(self, e):
        """The crossing of l with e (_gaussian_pair_crossing) as an mpf, or None."""
        x, _ = _gaussian_pair_crossing(self.A, self.B, self.s, self.scales, e, self.num)
        return None if x is None else self.num.to_mp(x)

    def delta(self, folds, e, adaptive=False, rel=None):
        """H_e of the folds runs (and the Gaussian mechanism); ``adaptive``: the
        outer quadrature bisects its pieces until they agree with their halves
        (the inner ones keep the fixed pieces) to 1e-40, or with ``rel`` to rel
        times the sum of the unbisected pieces (the integrand is >= 0: a bound
        relative to the value)."""
        num = self.num
        if folds == 0:
            return _gaussian_mechanism_delta(num, self.gaussian, e)
        if folds == 1 and self.gaussian is None:
            return _gaussian_pair_hockey_stick(self.A, self.B, self.s, self.scales, e, num)
        points = set(self.grid)
        lo, hi = self.grid[0], self.grid[-1]
        # (with the Gaussian mechanism inside, every inner hockey stick is smooth)
        limits = self.limits if self.gaussian is None else []
        for combo in itertools.combinations_with_replacement(limits, folds - 1):
            x = self._crossing_point(e - num.fsum(combo))
            if x is not None and lo < x < hi:
                points |= {min(max(x + sgn * t, lo), hi) for t in self.grading for sgn in (-1, 1)}
                points.add(x)
        if adaptive:
            # small sigma: the inner loss clusters around its values at the atoms,
            # l(j) (width l'(j) sigma), and the inner hockey stick changes within
            # ~1e-4 in x where e - l(x) meets a sum of them: graded pieces there
            # too, each bisected until it agrees with its halves
            for combo in itertools.combinations_with_replacement(self.centres, folds - 1):
                x = self._crossing_point(e - num.fsum(combo))
                if x is not None and lo < x < hi:
                    points |= {min(max(x + sgn * t, lo), hi) for t in self.grading
                               for sgn in (-1, 1)}
                    points.add(x)
            points = sorted(points)
            pieces = list(zip(points[:-1], points[1:]))
            wholes = [self._piece(folds, e, a, b) for a, b in pieces]
            # (rel: at most 1000 roundings of the working precision, which the
            # halves cannot resolve)
            tol = (mpf(10) ** -40 if rel is None else
                   max(rel * abs(num.to_mp(num.fsum(wholes))), mpf(10) ** (3 - mp.dps)))
            return num.fsum(self._adaptive_piece(folds, e, a, b, whole, tol=tol)
                            for (a, b), whole in zip(pieces, wholes))
        points = sorted(points)
        total = num.zero
        for a, b in zip(points[:-1], points[1:]):
            total += self._piece(folds, e, a, b)
        return total

    def _piece(self, folds, e, a, b):
        total = self.num.zero
        for weight, loss in self._nodes(a, b):
            total += weight * self.delta(folds - 1, e - loss)
        return total

    def _nodes(self, a, b):
        """The rule on [a, b]: (w half A(x), l(x)) at its nodes x, computed once
        per piece (the inner quadratures of three runs ask for the same pieces
        at every outer node)."""
        if (a, b) not in self._rules:
            num = self.num
            half, mid = num.of((b - a) / 2), num.of((a + b) / 2)
            nodes = []
            for t, w in self.rule:
                x = mid + half * t
                dens_a, dens_b = self.density(x, self.A), self.density(x, self.B)
                nodes.append((w * half * dens_a, num.log(dens_a / dens_b)))
            self._rules[a, b] = nodes
        return self._rules[a, b]

    def _adaptive_piece(self, folds, e, a, b, whole=None, depth=0, tol=None):
        """The piece bisected until the rule on it and on its halves agree to
        ``tol`` (absolute; default 1e-40)."""
        tol = mpf(10) ** -40 if tol is None else tol
        whole = self._piece(folds, e, a, b) if whole is None else whole
        mid = (a + b) / 2
        left, right = self._piece(folds, e, a, mid), self._piece(folds, e, mid, b)
        if abs(self.num.to_mp(left + right - whole)) <= tol or depth >= 40:
            return left + right
        return (self._adaptive_piece(folds, e, a, mid, left, depth + 1, tol)
                + self._adaptive_piece(folds, e, mid, b, right, depth + 1, tol))


def sampled_gaussian_product_delta(sigma, q, relation, folds, eps, plus, nodes=24, width=1,
                                   grading=16, arithmetic="mpmath"):
    """delta (plus if ``plus`` else minus) at eps of ``folds`` independent runs of
    the Poisson-sampled Gaussian mechanism (one DP-SGD step each: add/remove
    P = (1-q) N(0, s^2) + q N(1, s^2) against Q = N(0, s^2); replace-one
    against (1-q) N(0, s^2) + q N(-1, s^2)), 0 < q <= 1, folds <= 3: one run
    in closed form, more by the conditioning identity above, (folds - 1)
    nested Gauss-Legendre quadratures (_SampledGaussianProduct).  45 digits;
    tests check the rule against finer ones and against the closed form at
    q = 1 (k runs of N(1, s^2) against N(0, s^2) are the Gaussian mechanism
    at s / sqrt(k)).  folds = 3 takes minutes: its values are stored.
    ``arithmetic="arb"``: the same rule on Arb balls' midpoints at 45 digits
    and 32 bits more (_ArbNumbers; ~10 times faster, equal to ~1e-44)."""
    if not 0 < q <= 1 or folds not in (1, 2, 3):
        raise ValueError(f"need 0 < q <= 1 and folds in 1..3, got q={q!r}, folds={folds!r}")
    num = _numbers(arithmetic)
    with mpmath.workdps(45), num.working():
        A, B, s = _sampled_gaussian_pair(sigma, q, relation, plus)
        product = _SampledGaussianProduct(A, B, s, nodes, width, grading, num=num)
        return num.to_mp(product.delta(folds, num.of(mpf(eps))))


class _SampledGaussianMix(OracleCurve):
    """``folds`` runs of the Poisson-sampled Gaussian mechanism (see
    sampled_gaussian_product_delta), composed with Gaussian mechanisms
    ``gaussians`` = ((g_i, k_i), ...): k_i runs of N(1, g_i^2) against
    N(0, g_i^2), together one Gaussian mechanism with 1/g^2 = sum k_i / g_i^2
    (its hockey stick symmetric and in closed form at every e).  The nested
    quadrature's error does not depend on the working precision (its outer
    pieces are bisected until they agree with their halves to 1e-40; the rule
    is checked against finer ones and the closed form at q = 1 in
    tests/test_dp_sgd.py; one run beside Gaussian mechanisms: to 1e-24 of the
    value at the digits that asks, SMOOTH_DIGITS below), so one evaluation is
    taken as checked.  Each (eps, direction) is evaluated once, and delta(eps,
    direction) evaluates that direction alone.  Zero points: none with
    a Gaussian mechanism or under replace-one; under add/remove the "add"
    direction ends at the largest loss, folds ln(1/(1-q)).  ``arithmetic``:
    "mpmath" or "arb" (sampled_gaussian_product_delta's)."""

    kind = "sampled_gaussian_mix"
    self_checked = True

    # One run beside Gaussian mechanisms (the differential test's cases): the
    # integrand A(x) H_{e - l(x)}(Gaussian) is smooth and >= 0, and each of its
    # terms is at most A(x) (H <= 1), so the rounding error of the integral is
    # ~10^-dps absolute: pieces 2 sigma wide (no grading: nothing to resolve)
    # of 12 nodes, bisected to SMOOTH_REL of the value, at SMOOTH_DIGITS
    # working digits, and again at 4 digits more than SMOOTH_REL and 1/delta
    # ask where delta is small (the 45 digits, 24 nodes and 1e-40 absolute of
    # the nested quadratures cost ~4x more, for a truth checked at 1e-10;
    # tests/test_independent_oracle.py compares the two).
    SMOOTH_DIGITS = 30
    SMOOTH_REL = mpf(10) ** -24

    def __init__(self, sigma, q, relation, folds, gaussians=(), arithmetic="mpmath"):
        self.num = _numbers(arithmetic)
        gaussians = tuple((float(g), int(k)) for g, k in gaussians)
        if folds < 1 or folds + bool(gaussians) > 3 or not 0 < q <= 1:
            raise ValueError(f"need 0 < q <= 1 and 1 <= folds, folds + (Gaussians) <= 3, "
                             f"got q={q!r}, folds={folds!r}")
        self.sigma, self.q, self.relation = float(sigma), float(q), relation
        self.folds, self.gaussians = int(folds), gaussians
        self.params = dict(sigma=self.sigma, q=self.q, relation=relation, folds=self.folds,
                           gaussians=gaussians)
        self._values = {}        # (eps, plus) -> delta: the differential test asks twice

    def _quadrature(self, eps, plus, dps, smooth):
        num = self.num
        with mpmath.workdps(dps), num.working():
            A, B, s = _sampled_gaussian_pair(self.sigma, self.q, self.relation, plus)
            g = None
            if self.gaussians:
                g = 1 / mpmath.sqrt(mpmath.fsum(k / mpf(gi) ** 2 for gi, k in self.gaussians))
            e = num.of(mpf(eps))
            if smooth:
                return num.to_mp(_SampledGaussianProduct(A, B, s, 12, 2, 0, g, num).delta(
                    self.folds, e, adaptive=True, rel=self.SMOOTH_REL))
            return num.to_mp(_SampledGaussianProduct(A, B, s, 24, 1, 16, g, num).delta(
                self.folds, e, adaptive=True))

    def _value(self, eps, plus):
        """delta_plus (plus) or delta_minus at eps, computed once."""
        if (eps, plus) in self._values:
            return self._values[eps, plus]
        smooth = bool(self.gaussians) and self.folds == 1
        value = self._quadrature(eps, plus, self.SMOOTH_DIGITS if smooth else 45, smooth)
        # (smooth: delta > 0, and a value within the first pass's rounding error
        # ~1e-30 of 0 may come out <= 0)
        if ((self.gaussians or self.folds > 1) and 0 < value < mpf(10) ** -26
                or smooth and value <= 0):
            # the quadrature ends 13 sigma beyond the atoms: up to ~1e-37 of
            # the mass (absolute) is left out, more than 1e-11 relative here
            raise TooExpensive(f"{self!r}: delta {mpmath.nstr(value, 3)} at eps={eps} is "
                               "below what the truncated quadrature resolves")
        if smooth:
            # the rounding error ~10^-dps: 1e-4 of SMOOTH_REL of delta
            need = 4 - int(mpmath.log10(self.SMOOTH_REL)) + (
                int(mpmath.ceil(-mpmath.log10(value))) if value > 0 else 0)
            if need > self.SMOOTH_DIGITS:
                value = self._quadrature(eps, plus, need, True)
        self._values[eps, plus] = value
        return value

    def _eval(self, eps, dps):
        return self._value(eps, True), self._value(eps, False)

    def delta(self, eps, direction="max"):
        """delta in one direction: only its quadrature is computed ("max": both)."""
        eps = _eps_value(eps)
        with mp.workdps(DPS + 10):
            if direction == "max":
                return +max(self._value(eps, True), self._value(eps, False))
            return +self._value(eps, direction == "plus")

    def _zero(self, direction):
        if (self.gaussians or self.relation == "replace_one" or self.q == 1
                or direction != "minus"):
            return mpmath.inf
        return -self.folds * mpmath.log1p(-mpf(self.q))


def sampled_gaussian_mix(sigma, q, relation, folds, gaussians=(), arithmetic="mpmath"):
    return _SampledGaussianMix(sigma, q, relation, folds, gaussians, arithmetic)
