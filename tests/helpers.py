"""Shared test helpers (the one helper module of the suite; no test file imports
another test file).  Test files do ``from helpers import ...``; tests/conftest.py
holds only pytest hooks and fixtures built on this module.

Comparisons against the mpmath oracle.  An oracle value r (an mpmath.mpf,
r = delta) is matched by a float-path ln delta value `ours` when
  - r = 0 and ours = -inf, or
  - delta is representable (ln r > -700): |delta/r - 1| <= rel, and
  - always: ours >= ln r + ln(1 - rel) (conservative: never below by more than
    rel, or than 8 ulps of ln r where a float64 log cannot resolve rel),
  - ln r <= -700 (delta underflows or nearly): |ours - ln r| <= log_abs.

Stored oracle values: ``oracle(name, ...)`` reads tests/data/oracle_values.json
(written by tools/precompute_oracle.py) and computes a missing value live.
"""
import json
import math
import os
import pathlib

import mpmath

REL = 1e-12
LOG_ABS = 1e-10


def assert_matches(ours_log, ref, *, rel=REL, log_abs=LOG_ABS, what=""):
    ref = mpmath.mpf(ref)
    if ref == 0:
        assert ours_log == -math.inf, f"{what}: oracle says delta = 0, got ln delta = {ours_log}"
        return
    ref_log = mpmath.log(ref)
    assert ours_log > -math.inf, f"{what}: got delta = 0, oracle ln delta = {ref_log}"
    diff = float(mpmath.mpf(ours_log) - ref_log)
    if ref_log > -700:
        rel_err = math.expm1(diff)
        assert abs(rel_err) <= rel, f"{what}: relative error {rel_err:.3e} (oracle {ref})"
    else:
        assert abs(diff) <= log_abs, f"{what}: ln delta off by {diff:.3e} (oracle ln {ref_log})"
    # Below the oracle by at most rel, or by a few ulps of ln delta where a
    # float64 logarithm cannot resolve rel (|ln delta| > ~4000).
    slack = max(-math.log1p(-rel), 8 * math.ulp(float(abs(ref_log))))
    assert diff >= -slack, f"{what}: below the oracle by {-diff:.3e} relative"


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


# ---------------------------------------------------------------------------
# Stored oracle values.  The mpmath oracle (statpriv.reference) takes seconds
# per curve; the default run reads its values from tests/data/oracle_values.json,
# written by tools/precompute_oracle.py (which runs the tests with
# STATPRIV_RECORD_ORACLE=1).  A value missing from the file is computed live
# (correct, only slower) and reported at the end of the run; the exhaustive
# test test_stored_oracle_values_are_current recomputes every stored value.
ORACLE_FILE = pathlib.Path(__file__).parent / "data" / "oracle_values.json"
ORACLE_DPS = 50
_RECORDING = os.environ.get("STATPRIV_RECORD_ORACLE") == "1"
_MISSES = []


def _load_store():
    if ORACLE_FILE.exists():
        return json.loads(ORACLE_FILE.read_text())["values"]
    return {}


_STORE = _load_store()


def oracle_key(name, args, kwargs):
    """The key of one oracle call: floats by repr (exact round trip)."""
    return f"{name}{tuple(args)!r}{sorted(kwargs.items())!r}"


def oracle_function(name):
    """The function a stored value named ``name`` comes from: one of the
    slow reference computations registered in STORED_FUNCTIONS (written in
    this module), else statpriv.reference.<name>."""
    if name in STORED_FUNCTIONS:
        return STORED_FUNCTIONS[name]
    from statpriv import reference
    return getattr(reference, name)


def oracle(name, *args, **kwargs):
    """oracle_function(name)(*args, **kwargs) as mpf values (a list when the
    call returns one), from the stored file or computed live."""
    key = oracle_key(name, args, kwargs)
    with mpmath.workdps(ORACLE_DPS):
        if key in _STORE:
            return stored_value(_STORE[key]["value"])
        value = oracle_function(name)(*args, **kwargs)
        if not _RECORDING:
            _MISSES.append(key)
        text = [str(v) for v in value] if isinstance(value, list) else str(value)
        _STORE[key] = {"call": [name, repr(tuple(args)), repr(dict(kwargs))], "value": text}
        return value


def stored_value(text):
    """mpf (or list of mpf) from the stored decimal strings."""
    with mpmath.workdps(ORACLE_DPS):
        return [mpmath.mpf(v) for v in text] if isinstance(text, list) else mpmath.mpf(text)


def stored_calls():
    """(name, args, kwargs, stored value) of every stored oracle value."""
    namespace = {"inf": math.inf, "nan": math.nan, "__builtins__": {}}
    for entry in _STORE.values():
        name, args, kwargs = entry["call"]
        yield name, eval(args, namespace), eval(kwargs, namespace), stored_value(entry["value"])


def write_store_if_recording():
    """With STATPRIV_RECORD_ORACLE=1 (tools/precompute_oracle.py): rewrite the
    store with every value computed in this run (called at session end)."""
    if not _RECORDING:
        return
    ORACLE_FILE.parent.mkdir(exist_ok=True)
    payload = {
        "how": "statpriv.reference (mpmath brute force) at 50 digits, or the mpmath "
               "computation of tests/helpers.py STORED_FUNCTIONS of the same name, "
               "written by tools/precompute_oracle.py; keys are name(args)[kwargs] "
               "with floats by repr",
        "mpmath": mpmath.__version__,
        "values": dict(sorted(_STORE.items())),
    }
    ORACLE_FILE.write_text(json.dumps(payload, indent=0) + "\n")


def report_misses(write_line):
    if _MISSES:
        write_line(f"{len(_MISSES)} oracle values were computed live (not in "
                   f"{ORACLE_FILE.name}); run tools/precompute_oracle.py to store them")


# ---------------------------------------------------------------------------
# Float path against the oracle, direction by direction.
EPS = [0.0, 1e-4, 0.01, 0.1, 1.0, 5.0, -0.5]
NOISY_REL = 1e-10      # the bar for the noise paths
NOISY_EPS = [0.0, 0.01, 0.1, 1.0, 5.0, -0.3]


def check_curve(curve, spec, eps=EPS, label=""):
    """Compare every direction of ``curve`` with the oracle call ``spec`` =
    (reference function name, its positional args before eps, its kwargs)."""
    name, args, kwargs = spec
    plus = oracle(name, *args, list(eps), direction="plus", **kwargs)
    minus = oracle(name, *args, list(eps), direction="minus", **kwargs)
    ours_plus = curve.log_delta_plus(eps)
    ours_minus = curve.log_delta_minus(eps)
    ours_max = curve.log_delta(eps)
    for i, e in enumerate(eps):
        what = f"{label} eps={e}"
        assert_matches(ours_plus[i], plus[i], what=what + " plus")
        assert_matches(ours_minus[i], minus[i], what=what + " minus")
        assert_matches(ours_max[i], max(plus[i], minus[i]), what=what + " max")



def check_against_reference(curve, n, pi, noise, eps=NOISY_EPS, **kwargs):
    spec = (noise.kind, noise.param)
    for direction, ours in (("plus", curve.log_delta_plus(eps)),
                            ("minus", curve.log_delta_minus(eps))):
        ref = oracle("noisy_counting_delta", n, pi, list(eps), spec, direction=direction,
                     **kwargs)
        for e, o, r in zip(eps, ours, ref):
            assert_matches(o, r, rel=NOISY_REL, what=f"n={n} pi={pi} {noise} eps={e} {direction}")



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


# Slow mpmath computations written in this module whose values are stored like
# statpriv.reference's (oracle(name, ...)); test_stored_oracle_values_are_current
# (exhaustive) recomputes them.
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


def _independent_curve(spec):
    """The tests/independent_oracle.py curve of spec = (name, args, kwargs);
    for "noisy", args = (count spec, noise)."""
    import independent_oracle
    name, args, kwargs = spec
    if name == "noisy":
        return independent_oracle.noisy(_independent_curve(args[0]), args[1], **kwargs)
    return getattr(independent_oracle, name)(*args, **kwargs)


def independent_deltas(spec, eps):
    """[delta_plus(e0), delta_minus(e0), delta_plus(e1), ...] of the independent
    oracle's curve ``spec`` (see _independent_curve): its slow alternative paths
    (quadrature, full sums) are stored like statpriv.reference's values."""
    return [x for pair in _independent_curve(spec).deltas(list(eps)) for x in pair]


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
            return mpmath.log(mpmath.sumem(term, [k0, min(N + 1, k0 + 60 * sigma)]))
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
    are below 1e-30 of the sum (they fall like a Gaussian tail).  Plus: terms
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
        if term < total * mpmath.mpf(10) ** -30:
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
        step = max(sigma, 1)
        hi = (atoms[-1] if plus else atoms[0]) + sgn * step
        while h(hi) <= 0:
            step *= 2
            hi += sgn * step
        step = max(sigma, 1)
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


def differential_truth(case_id, method, arg):
    """The independent oracle's answer for one case of tests/differential.py
    (its stored_truth: deltas at eps, or the zero point and the float above it)."""
    import differential
    return differential.stored_truth(case_id, method, arg)


STORED_FUNCTIONS = {
    "differential_truth": differential_truth,
    "sampled_gaussian_log_delta": sampled_gaussian_log_delta,
    "counting_log_delta": counting_log_delta,
    "poisson_tail_log_delta": poisson_tail_log_delta,
    "windowed_delta_plus": windowed_delta_plus,
    "independent_deltas": independent_deltas,
    "secret_sample_log_delta_plus": secret_sample_log_delta_plus,
}


# ---------------------------------------------------------------------------
# Published reference values, each written once (docs/mathematics.md §3, §6).
# delta(eps) of the noiseless iid count counting(n, pi) (pi the binary float),
# 20 significant digits, from a 50-digit brute force (Breutigam & Reischuk,
# "Statistical Privacy", pure statistical privacy): (n, pi, eps, delta).
STATISTICAL_PRIVACY_VALUES = [
    (1000, 0.5, 0.01, "0.02065555306422242041"),
    (1000, 0.1, 0.01, "0.037526706067839093489"),
    (100, 0.5, 0.01, "0.075364038978937394363"),
    (1000, 0.5, 0.5, "3.6855698469109621793e-17"),
    (2000, 0.5, 1.0, "3.0741764275012817247e-101"),
]
# ln delta(0.05) of counting(n, 0.3) in the far tail: (n, ln delta), 20 digits.
FAR_TAIL_LOG_DELTA = [(10 ** 6, "-272.22876404680295545"),
                      (10 ** 7, "-2606.3055921879885945")]
# The Gaussian mechanism at eps = 0.01 with noise level nu = sigma in count
# units (Breutigam & Reischuk §5): (sigma, delta).
DP_GAUSSIAN_AT_0_01 = [(1.0, "0.379841760124599"), (3.0, "0.128067047707446")]


# Near-zero-point queries of the noise tests (test_noise_*.py).

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
    s, e = mpmath.mpf(sigma), mpmath.mpf(eps)
    return mpmath.ncdf(1 / (2 * s) - e * s) - mpmath.exp(e) * mpmath.ncdf(-1 / (2 * s) - e * s)


def near_zero_point(eps0):
    """eps0 (1 - 10^-k), k = 6, 9, 12, and the float just below eps0."""
    below = float(eps0)
    while below >= eps0:
        below = math.nextafter(below, 0.0)
    return [float(eps0 * (1 - mpmath.mpf(10) ** -k)) for k in (6, 9, 12)] + [below]


def smallest_float_at_or_above(x):
    """The smallest float >= the mpmath number x."""
    f = float(x)
    while f < x:
        f = math.nextafter(f, math.inf)
    while math.nextafter(f, -math.inf) >= x:
        f = math.nextafter(f, -math.inf)
    return f


def assert_stored_case(curve, case):
    """A curve against one case of tests/data/thresholding_oracle.json: the
    stored oracle delta_plus / delta_minus (strings) on the case's eps grid."""
    import numpy as np
    eps = np.array(case["eps"])
    for direction in ("plus", "minus"):
        ours = getattr(curve, f"log_delta_{direction}")(eps)
        for e, o, ref in zip(eps, ours, case["values"][direction]):
            assert_matches(float(o), mpmath.mpf(ref), what=f"{case['name']} {direction} eps={e}")

