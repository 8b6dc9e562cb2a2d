"""Differential test of statpriv against the independent oracle (tests/independent_oracle.py).

Shared by tools/difftest.py (command line) and tests/test_differential.py (pytest).
Random curves of every kind are drawn with the parameters pushed to the edges on
purpose (pi in {0, 1, 5e-324, 1e-300, 1e-17, 1e-9, 1 - 2^-53, 1 - 1e-9}, n from 1
to 1e12, sampling rates m/n down to 1e-9, noise scales from tiny to huge, eps from
-0.7 to 1e4 incl. 0, the threshold scale and far tails).  Each case is seeded by
(seed, kind, index) alone, so results do not depend on the order or the number of
worker processes.

The contract checked (statpriv's precision promise):
- ln delta > -700: |delta/truth - 1| <= 1e-12 (noiseless counts) or 1e-10 (noise, DP);
- otherwise |ln delta - ln truth| <= max(1e-10, 8 ulps of |ln truth|);
- ours below truth beyond that tolerance is an UNDER-REPORT;
- -inf (delta = 0) only where the truth is exactly 0;
- no Python warning reaches the caller;
- zero points: delta at eps0 (1 - 10^-k), at the float below eps0 and at eps0, and
  epsilon(0.0) == the smallest float >= eps0 (inf if there is no finite eps0);
- epsilon(d): the true delta at the returned eps is <= d (1 + 1e-12); "not tight"
  when the true delta at eps (1 - 1e-9) is already <= d.
A constructor raising ValueError is counted as "refused", a check the oracle cannot
afford (TooExpensive, a nan stored truth, a timeout) as "skipped"; run() only counts
them and tests/test_differential.py bounds them per kind (no refusal of the drawn,
valid cases; a cap on skips and no "not tight" epsilon in the default slices).

The truth (truth="arb", the default of run()): where the curve's kind has certified
Arb intervals (curve.log_delta_interval, statpriv.oracle.arb) the delta values at the
drawn eps and near the zero points are checked against the proven interval [lower,
upper] -- never below lower (1 - tol), never above upper (1 + tol) -- and the mpmath
oracle is the second opinion on every ARB_SECOND_OPINION-th of them (both checks,
and the two oracles must agree); the other kinds, an interval refused as too long a
sum or wider than ARB_WIDTH, the zero points and the epsilon checks ask the mpmath
oracle.  Result.by_truth counts the comparisons by truth source.  truth="mpmath":
the mpmath oracle everywhere (the default slices, on stored values).
"""
import contextlib
import functools
import math
import pickle
import random
import sys
import time
import warnings
from dataclasses import dataclass, field

import mpmath
from fractions import Fraction
from mpmath import mpf

import independent_oracle as O

REL_NOISELESS = 1e-12
REL_NOISY = 1e-10
LOG_ABS = 1e-10
ARB_SECOND_OPINION = 10     # cases 0, 10, 20, ... of a covered kind: mpmath too (0: none)
ARB_WIDTH = 1e-14           # a wider interval (ln delta units) is no truth at 1e-12
# The Arb sums of the truth are capped at this many terms (statpriv.oracle.arb's
# own cap, MAX_TERMS = 1e7, is ~15 s a sum; a single point of counting(2754398,
# 1e-17) took 4 s in Arb and milliseconds in mpmath): a longer sum is refused
# and the point goes to the mpmath oracle, as any refused sum does.
ARB_MAX_TERMS = 1e6

KINDS = ("binomial", "per_record", "subsample", "poisson", "secret",
         "dp_laplace", "dp_gaussian", "dp_geometric", "laplace", "gaussian", "geometric")
# The partial-knowledge curves (Desfontaines, Mohammadi, Krahmer & Basin), shuffling
# and composition, each against a brute force over explicit laws (small n), except
# pk_bracket (large n: the branch-and-bound bracket against single vertices),
# compose_grid (the grid composition: no under-report, and its delta_bounds bracket)
# compose_mix (random mixes on the grid, Gaussian ones against the composed
# Gaussian, the same checks) and compose_sampled (DP-SGD steps, the Poisson-
# sampled Gaussian mechanism, with Gaussian mechanisms: the same checks against
# the nested quadrature of the product laws); with_replacement (a count over m
# draws with replacement, small n and m) against the draws' multinomial split.
# dp_rr: k-ary randomized response (eps0 >= 1e-3, 0 included), alone or run on a
# Poisson or fixed-size sample, against its explicit laws; dp_rr_tiny the same at
# eps0 in (0, 1e-3) (5e-324 and 1e-300 among the draws); rr_compose: exact
# compositions of two randomized responses, or of one with a small count;
# corr_lattice: k <= 4 counts on the same correlated records (statpriv.
# correlated_counts, the whole lattice: small n), corr_window: k = 2 on the window
# of the lattice (forced at small n, and at n beyond the route switch with answer
# vectors on two cells; corr_window_tiny the same with a cell at 1e-17 or below
# beside a large one), against the multinomial split of the others; kanon_residue:
# k-anonymity (either bound) with the source and target categories summing to 1
# in floats, the third category's probability the rounding residue.
NEW_KINDS = ("pk_worst", "pk_bracket", "pk_blanket", "thr_active", "thr_passive",
             "kanon_lower", "kanon_upper", "shuffle_clones", "shuffle_rr", "compose_exact",
             "compose_grid", "compose_mix", "compose_sampled", "with_replacement",
             "dp_rr", "dp_rr_tiny", "rr_compose", "corr_lattice", "corr_window",
             "corr_window_tiny", "kanon_residue")
ALL_KINDS = KINDS + NEW_KINDS

EDGE_PIS = (0.0, 1.0, 5e-324, 1e-300, 1e-17, 1e-9, 1.0 - 2.0 ** -53, 1.0 - 1e-9, 0.5)
VAR_CAP = 1e8            # n pi (1-pi) above this: the oracle window is too wide (redraw)
DIRECTIONS = ("plus", "minus", "max")


# ---------------------------------------------------------------------------
# drawing cases
# ---------------------------------------------------------------------------

def draw_pi(rng):
    r = rng.random()
    if r < 0.45:
        return rng.choice(EDGE_PIS)
    if r < 0.70:
        return rng.random()
    if r < 0.85:
        return 10.0 ** rng.uniform(-30, 0)
    return 1.0 - 10.0 ** rng.uniform(-15, 0)


def draw_interior_pi(rng):
    while True:
        p = draw_pi(rng)
        if 0.0 < p < 1.0:
            return p


def draw_n(rng, hi=10 ** 12):
    r = rng.random()
    if r < 0.3:
        n = rng.randint(1, 30)
    elif r < 0.5:
        n = int(10 ** rng.uniform(9, 12))
    else:
        n = int(10 ** rng.uniform(0, 12))
    return max(1, min(n, hi))


def draw_eps(rng, scale=1.0, eps0=None, k=6):
    """k eps values: 0, negatives, the threshold scale, small, far tails, near eps0."""
    out = []
    for _ in range(k):
        r = rng.random()
        if r < 0.12:
            e = 0.0
        elif r < 0.22:
            e = rng.uniform(-0.7, 0.0)
        elif r < 0.50:
            e = scale * 10 ** rng.uniform(-2, 1.5)
        elif r < 0.62:
            e = 10 ** rng.uniform(-10, 0)
        elif r < 0.80:
            e = 10 ** rng.uniform(0, 4)
        elif r < 0.88:
            e = rng.choice([5e-324, 1e-300, 1e-17, 700.0, 1e4])
        else:
            if eps0 is not None and math.isfinite(eps0) and eps0 > 0:
                e = eps0 * rng.uniform(0.3, 1.0)
            else:
                e = scale * rng.uniform(0.1, 3.0)
        e = min(e, 1e4)
        out.append(float(e))
    return out


def _sd_scale(n, pi):
    v = max(n * pi * (1.0 - pi), 1e-300)
    return 1.0 / math.sqrt(v) if v > 0 else 1.0


@dataclass
class Case:
    kind: str
    expr: str                  # Python expression building statpriv's curve
    oracle: object             # independent_oracle.OracleCurve
    eps: list
    rel: float
    redrawn: int = 0
    info: dict = field(default_factory=dict)
    mode: str = "exact"        # "upper": only an under-report fails (+ delta_bounds);
    #                            "window": an upper curve below WINDOW_EXACT_FROM


def _count_law(rng, small, kind=None):
    """(expr, oracle curve, threshold scale, redraws) of a random count law of ``kind``
    (random if None); ``small`` keeps the support to a few hundred atoms (for noise)."""
    if kind is None:
        kind = rng.choice(("binomial", "binomial", "subsample", "poisson", "per_record",
                           "secret"))
    redraw = 0
    if kind == "binomial":
        for _ in range(50):
            n, pi = draw_n(rng), draw_pi(rng)
            v = (n - 1) * pi * (1 - pi)
            if small and (n > 400 and v > 30):
                redraw += 1
                continue
            if not small and n - 1 > O.BRUTE_N and v > VAR_CAP:
                redraw += 1
                continue
            break
        return (f"statpriv.counting({n}, {pi!r})", O.binomial(n, pi),
                _sd_scale(n, pi), redraw)
    if kind == "subsample":
        n = draw_n(rng)
        mmax = 300 if small else 2000
        r = rng.random()
        if r < 0.4:
            m = rng.randint(1, min(n, 12))
        elif r < 0.7:
            m = max(1, min(n, mmax, int(n * 10 ** rng.uniform(-9, 0))))
        else:
            m = rng.randint(1, min(n, mmax))
        pi = draw_pi(rng)
        return (f"statpriv.counting({n}, {pi!r}, sample_size={m})", O.subsample(n, pi, m),
                _sd_scale(m, pi), redraw)
    if kind == "poisson":
        for _ in range(50):
            n = draw_n(rng, hi=300 if small else 10 ** 12)
            pi = draw_pi(rng)
            rate = rng.choice([1.0, 1e-9, 0.5, 1 - 1e-9, rng.random(), 10 ** rng.uniform(-9, 0)])
            rate = max(rate, 1e-12)
            v = (n - 1) * pi * rate
            if n - 1 > O.BRUTE_N and v > VAR_CAP:
                redraw += 1
                continue
            break
        return (f"statpriv.counting({n}, {pi!r}, sample_rate={rate!r}, sampling='poisson')",
                O.poisson_sample(n, pi, rate), _sd_scale(n, pi * rate), redraw)
    if kind == "per_record":
        # a few groups of equal probabilities (the fast path groups them), written
        # as [p]*c + ... so that reproducers stay short
        groups = [(draw_pi(rng), rng.randint(1, 12 if small else 60))
                  for _ in range(rng.randint(1, 5))]
        pis = [p for p, c in groups for _ in range(c)]
        pexpr = " + ".join(f"[{p!r}]*{c}" for p, c in groups)
        if rng.random() < 0.3:
            rate = rng.choice([0.5, 1e-6, rng.random()])
            expr = f"statpriv.counting(None, {pexpr}, sample_rate={rate!r}, sampling='poisson')"
            orc = O.per_record(pis, rate)
        else:
            expr = f"statpriv.counting(None, {pexpr})"
            orc = O.per_record(pis)
        var = sum(p * (1 - p) for p in pis)
        return expr, orc, 1.0 / math.sqrt(max(var, 1e-300)), redraw
    # secret sample
    n = draw_n(rng, hi=10 ** 9)
    mmax = 300 if small else 1000
    r = rng.random()
    if r < 0.4:
        m = rng.randint(1, min(n, 10))
    elif r < 0.6:
        m = n if n <= mmax else rng.randint(1, mmax)
    else:
        m = rng.randint(1, min(n, mmax))
    r = rng.random()
    if r < 0.5:
        K = rng.choice([0, 1, n - 1, max(0, n - 2), min(n - 1, m), max(0, n - 1 - m)])
    else:
        K = rng.randint(0, n - 1)
    p = K / max(n - 1, 1)
    return (f"statpriv.secret_sample({n}, {m}, positives={K})", O.secret_sample(n, m, K),
            _sd_scale(m, p), redraw)


def draw_case(seed, kind, index):
    """The case (kind, index) of a run with this seed: deterministic."""
    rng = random.Random(f"{seed}-{kind}-{index}")
    if kind in NEW_KINDS:
        return _draw_new(rng, kind)
    if kind in ("binomial", "subsample", "poisson", "per_record", "secret"):
        expr, orc, scale, redraw = _count_law(rng, small=False, kind=kind)
        eps0 = _finite_zero(orc)
        return Case(kind, expr, orc, draw_eps(rng, scale, eps0), REL_NOISELESS, redraw)
    if kind.startswith("dp_"):
        r = rng.random()
        if kind == "dp_laplace":
            b = 10 ** rng.uniform(-3, 4) if r < 0.8 else rng.choice([1e-8, 1e8, 1.0])
            return Case(kind, f"statpriv.dp.laplace({b!r})", O.dp_laplace(b),
                        draw_eps(rng, 1.0 / b, 1.0 / b), REL_NOISY)
        if kind == "dp_gaussian":
            s = 10 ** rng.uniform(-2, 3) if r < 0.8 else rng.choice([1e-4, 1e5, 0.05520881730815853])
            return Case(kind, f"statpriv.dp.gaussian({s!r})", O.dp_gaussian(s),
                        draw_eps(rng, 1.0 / s), REL_NOISY)
        a = rng.choice([rng.random(), 1 - 10 ** rng.uniform(-9, 0), 10 ** rng.uniform(-10, 0)])
        a = min(max(a, 1e-12), 1 - 1e-12)
        return Case(kind, f"statpriv.dp.geometric({a!r})", O.dp_geometric(a),
                    draw_eps(rng, -math.log(a), -math.log(a)), REL_NOISY)
    # count plus noise
    redraw = 0
    for _ in range(100):
        expr, count, scale, rd = _count_law(rng, small=True)
        redraw += rd
        if not (count.kind == "poisson" and count.windowed):
            break
    if kind == "laplace":
        b = 10 ** rng.uniform(-2, 3) if rng.random() < 0.85 else rng.choice([1e-3, 1e4])
        noise = ("laplace", b)
        nexpr = f"statpriv.Laplace({b!r})"
        nscale = 1.0 / b
    elif kind == "gaussian":
        s = 10 ** rng.uniform(-1.5, 2.5) if rng.random() < 0.85 else rng.choice([1e-3, 1e-2, 1e3])
        noise = ("gaussian", s)
        nexpr = f"statpriv.Gaussian({s!r})"
        nscale = 1.0 / s
    else:
        a = rng.choice([rng.random(), 1 - 10 ** rng.uniform(-6, 0), 10 ** rng.uniform(-8, 0)])
        a = min(max(a, 1e-12), 1 - 1e-9)
        noise = ("geometric", a)
        nexpr = f"statpriv.Geometric({a!r})"
        nscale = -math.log(a)
    expr = expr[:-1] + f", noise={nexpr})"
    orc = O.noisy(count, noise)
    eps0 = _finite_zero(orc)
    return Case(kind, expr, orc, draw_eps(rng, min(scale, nscale) if scale > 0 else nscale,
                                          eps0), REL_NOISY, redraw)


def _finite_zero(orc):
    try:
        z = orc.zero_point("max")
    except O.TooExpensive:
        return None
    return float(z) if z != mpmath.inf else None


# ---------------------------------------------------------------------------
# comparing
# ---------------------------------------------------------------------------

def compare(ours_log, truth, rel):
    """(ok, under, err, label) for ours (ln delta, float) against truth (mpf delta)."""
    if isinstance(ours_log, float) and math.isnan(ours_log):
        return False, False, math.inf, "nan"
    if truth == 0:
        if ours_log == -math.inf:
            return True, False, 0.0, ""
        return False, False, math.inf, "truth is 0"
    lt = mpmath.log(truth)
    if ours_log == -math.inf:
        return False, True, math.inf, "-inf where truth > 0"
    if ours_log == math.inf:
        return False, False, math.inf, "+inf"
    diff = float(mpf(ours_log) - lt)
    if lt > -700:
        err = math.expm1(diff)
        ok = abs(err) <= rel
        under = err < -rel
        return ok, under, err, "rel"
    tol = max(LOG_ABS, 8 * math.ulp(float(abs(lt))))
    return abs(diff) <= tol, diff < -tol, diff, "log"


@dataclass
class Result:
    kind: str
    comparisons: int = 0
    failures: list = field(default_factory=list)
    under: int = 0
    warnings: int = 0
    refused: int = 0
    skipped: int = 0
    redrawn: int = 0
    not_tight: int = 0
    timeouts: int = 0
    curves: int = 0
    max_rel: float = 0.0
    max_log: float = 0.0
    seconds: float = 0.0
    refusals: list = field(default_factory=list)
    not_tight_cases: list = field(default_factory=list)
    by_truth: dict = field(default_factory=dict)   # truth source -> comparisons

    def count(self, source):
        self.by_truth[source] = self.by_truth.get(source, 0) + 1

    def merge(self, other):
        for name in ("comparisons", "under", "warnings", "refused", "skipped", "redrawn",
                     "not_tight", "timeouts", "curves", "seconds"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.failures += other.failures
        self.refusals += other.refusals
        self.not_tight_cases += other.not_tight_cases
        self.max_rel = max(self.max_rel, other.max_rel)
        self.max_log = max(self.max_log, other.max_log)
        for source, n in other.by_truth.items():
            self.by_truth[source] = self.by_truth.get(source, 0) + n


_METHOD = {"plus": "log_delta_plus", "minus": "log_delta_minus", "max": "log_delta"}


_IN_CALL = []            # the statpriv call in progress (to tell a hang from a slow oracle)


def _call(expr_obj, method, *args, **kw):
    """Call statpriv, catching warnings; returns (value, [warning texts], exception)."""
    _IN_CALL[:] = [f"{method}{args!r}{kw if kw else ''}"]
    out = _call_inner(expr_obj, method, *args, **kw)   # a CaseTimeout leaves _IN_CALL set
    _IN_CALL.clear()
    return out


def _call_inner(expr_obj, method, *args, **kw):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        try:
            value = getattr(expr_obj, method)(*args, **kw)
            exc = None
        except Exception as e:     # noqa: BLE001 -- reported as a failure
            value, exc = None, e
    return value, [f"{w.category.__name__}: {w.message}" for w in rec], exc


# ---------------------------------------------------------------------------
# stored truths: the default pytest run reads the oracle's values from
# tests/data/reference/differential.json (tests/helpers.py
# oracle("differential_truth", ...)) instead of evaluating the mpmath oracle live;
# the exhaustive test of tests/test_reference_store.py recomputes them.
# ---------------------------------------------------------------------------

def _raw_truth(orc, method, arg):
    """The oracle's answer as a list of mpf: deltas -> [delta_plus, delta_minus] at
    the float eps ``arg``; zero_point -> [eps0, the smallest float >= eps0] (the float
    kept exactly, eps0 to the store's 50 digits); [nan] where the oracle refuses."""
    try:
        if method == "deltas":
            return list(orc.deltas([arg])[0])
        z = orc.zero_point(arg)
        return [z, mpf(O.smallest_float_at_least(z))]
    except O.TooExpensive:
        return [mpmath.nan]


_DRAWN = {}             # case id -> its oracle curve as drawn, pickled


def case_oracle(case_id):
    """A new oracle curve of a case id: ("random", seed, kind, index) or ("edge", i).
    New for every stored value: the oracle widens its windows as it is queried, so a
    shared curve's answers (and refusals) would depend on the order of the queries.
    Each one is a copy of the curve as drawn (unpickled: the same state, the draw's
    zero point and laws included), the draw made once per case id and process."""
    if case_id not in _DRAWN:
        drawn = (EDGE_CASES[case_id[1]][2]() if case_id[0] == "edge"
                 else draw_case(*case_id[1:]).oracle)
        _DRAWN[case_id] = pickle.dumps(drawn)
    return pickle.loads(_DRAWN[case_id])


def stored_truth(case_id, method, arg):
    """_raw_truth of the case's oracle (the function helpers.oracle stores)."""
    return _raw_truth(case_oracle(case_id), method, arg)


class StoredOracle:
    """A case's oracle curve whose answers come from tests/helpers.py's stored
    oracle values (computed live and reported where missing)."""

    def __init__(self, case_id):
        self.case_id = case_id

    def _get(self, method, arg):
        from helpers import oracle
        arg = float(arg) if method == "deltas" else arg
        value = oracle("differential_truth", self.case_id, method, arg)
        if mpmath.isnan(value[0]):
            raise O.TooExpensive(f"{self.case_id} {method}({arg!r}) (stored)")
        return value

    def deltas(self, eps_list):
        return [tuple(self._get("deltas", e)) for e in eps_list]

    def delta(self, eps, direction="max"):
        dp, dm = self._get("deltas", eps)
        return {"plus": dp, "minus": dm, "max": max(dp, dm)}[direction]

    def zero_point_and_float(self, direction):
        z, f = self._get("zero_point", direction)
        return z, float(f)


def _zero_and_float(orc, direction):
    """(eps0, the smallest float >= eps0) of the oracle curve."""
    if isinstance(orc, StoredOracle):
        return orc.zero_point_and_float(direction)
    z = orc.zero_point(direction)
    return z, O.smallest_float_at_least(z)


def _truth(orc, eps, direction):
    """The oracle's delta at eps in one direction (a quadrature oracle computes
    that direction alone)."""
    return orc.delta(eps, direction)


def _fail(res, case, call, ours, truth, why, under=False):
    if isinstance(truth, tuple):
        t, lt = f"ln delta in [{truth[0]!r}, {truth[1]!r}]", " (Arb)"
    else:
        t = "0" if truth == 0 else mpmath.nstr(truth, 17)
        lt = "" if truth == 0 else f" (ln {mpmath.nstr(mpmath.log(truth), 17)})"
    tag = "UNDER-REPORT " if under else ""
    res.failures.append(f"[{case.kind}] {tag}{why}: {case.expr}.{call} -> {ours!r}; "
                        f"truth {t}{lt}")


def compare_interval(ours_log, lower, upper, rel):
    """compare() against a certified interval [lower, upper] of ln delta (floats):
    an error only outside it, UNDER below lower (1 - rel), over above upper (1 + rel)."""
    if isinstance(ours_log, float) and math.isnan(ours_log):
        return False, False, math.inf, "nan"
    if upper == -math.inf:
        if ours_log == -math.inf:
            return True, False, 0.0, ""
        return False, False, math.inf, "truth is 0"
    if ours_log == -math.inf:
        return False, True, math.inf, "-inf where truth > 0"
    if ours_log == math.inf:
        return False, False, math.inf, "+inf"
    below, above = ours_log - lower, ours_log - upper
    diff = below if below < 0 else max(above, 0.0)
    if upper > -700:
        err = math.expm1(diff)
        return abs(err) <= rel, err < -rel, err, "rel"
    tol = max(LOG_ABS, 8 * math.ulp(abs(lower)))
    return abs(diff) <= tol, diff < -tol, diff, "log"


def check_values(res, case, curve, eps, direction, truth, source="mpmath"):
    """One delta value against the truth: an mpf delta (the mpmath oracle) or
    a (ln lower, ln upper) certified interval (source "arb")."""
    method = _METHOD[direction]
    ours, warns, exc = _call(curve, method, eps)
    call = f"{method}({eps!r})"
    res.comparisons += 1
    if source != "mpmath":
        res.count(source)
    if exc is not None:
        _fail(res, case, call, repr(exc), truth, "exception")
        return
    if warns:
        res.warnings += 1
        _fail(res, case, call, ours, truth, "warning " + "; ".join(warns))
    ok, under, err, label = (compare_interval(float(ours), *truth, case.rel)
                             if isinstance(truth, tuple) else compare(float(ours), truth, case.rel))
    if case.mode == "upper":
        ok = not under and label != "nan"
        if "bounds" in case.info:
            _bounds_check(res, case, curve, eps, direction, truth)
    elif case.mode == "window" and not ok and not under and label != "nan":
        ok = _within_window_tail(float(ours), truth, case.rel)
    if label == "rel":
        res.max_rel = max(res.max_rel, abs(err))
    elif label == "log":
        res.max_log = max(res.max_log, abs(err))
    if not ok:
        if under:
            res.under += 1
        _fail(res, case, call, ours, truth, f"err {err:.3g} ({label})" if label in
              ("rel", "log") else label, under)


# correlated_counts' window route (k = 2 beyond the whole lattice's budget) adds
# the mass outside its box to delta, at most e^-160 = 3.2e-70 (WINDOW_TAIL): its
# promise is 1e-12 relative wherever delta >= 1e13 times that (WINDOW_EXACT_FROM),
# and below, an upper curve (never below the truth) staying below that level
WINDOW_TAIL = mpf("3.3e-70")
WINDOW_EXACT_FROM = 1e13 * WINDOW_TAIL


def _within_window_tail(ours_log, truth, rel):
    """A window-route delta (ln) where the truth is below WINDOW_EXACT_FROM: in
    [truth (1 - rel), WINDOW_EXACT_FROM]."""
    if not isinstance(truth, mpf) or ours_log == math.inf or truth >= WINDOW_EXACT_FROM:
        return False
    ours = mpmath.exp(mpf(ours_log)) if ours_log > -math.inf else mpf(0)
    return truth * (1 - mpf(rel)) <= ours <= WINDOW_EXACT_FROM


class ArbTruth:
    """The certified truth of one case's curve (curve.log_delta_interval):
    ``second``: the mpmath oracle checks this case as well (the second opinion)."""

    def __init__(self, curve, second):
        self.curve = curve
        self.covered = True          # False from the first NotImplementedError on
        self.second = second
        self.cache = {}              # (eps, direction) -> (ln lower, ln upper)

    def prefetch(self, eps_list, directions):
        """The intervals at every eps of a list in one sum per direction (the
        laws' windows built once, not once per eps); a refused batch is left to
        the single points."""
        if not self.covered:
            return
        eps_list = sorted(set(eps_list))
        for d in ("plus", "minus") if "max" in directions else directions:
            try:
                with warnings.catch_warnings(), _arb_term_cap():
                    warnings.simplefilter("ignore")
                    lower, upper = self.curve.log_delta_interval(eps_list, d)
            except NotImplementedError:
                self.covered = False
                return
            except ValueError:
                continue
            for e, lo, hi in zip(eps_list, lower, upper):
                self.cache[e, d] = (float(lo), float(hi))

    def _ends(self, eps, d):
        if (eps, d) not in self.cache:
            with _arb_term_cap():
                lo, hi = self.curve.log_delta_interval(eps, d)
            self.cache[eps, d] = (float(lo), float(hi))
        return self.cache[eps, d]

    def ends(self, res, eps, directions):
        """{direction: (ln lower, ln upper)} at eps for ``directions`` (one sum
        per direction: "max" asks for both); None where the kind is not
        covered, the sum is refused as too long, or an interval is wider than
        ARB_WIDTH (counted in res.by_truth as "arb refused" / "arb too wide")."""
        if not self.covered:
            return None
        out = {}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for d in ("plus", "minus") if "max" in directions else directions:
                    out[d] = self._ends(eps, d)
        except NotImplementedError:
            self.covered = False
            return None
        except ValueError:
            res.count("arb refused")
            return None
        if "max" in directions:
            (pl, ph), (ml, mh) = out["plus"], out["minus"]
            out["max"] = (max(pl, ml), max(ph, mh))
        if not all(_narrow(lo, hi) for lo, hi in out.values()):
            res.count("arb too wide")
            return None
        return out


@contextlib.contextmanager
def _arb_term_cap():
    """statpriv.oracle.arb's term cap lowered to ARB_MAX_TERMS while a truth
    is summed (the cases run one at a time in a process)."""
    from statpriv.oracle import arb
    saved, arb.MAX_TERMS = arb.MAX_TERMS, min(arb.MAX_TERMS, ARB_MAX_TERMS)
    try:
        yield
    finally:
        arb.MAX_TERMS = saved


def _narrow(lower, upper):
    if upper == -math.inf:
        return True                       # delta = 0 proven
    return lower > -math.inf and upper - lower <= ARB_WIDTH * max(1.0, abs(lower))


def _check_at(res, case, curve, eps, directions):
    """The delta checks at eps: against the certified interval where the case has
    one (case.info["arb"]), the mpmath oracle where not and on the second-opinion
    cases (there both, and the two oracles must agree)."""
    arb = case.info.get("arb")
    ends = arb.ends(res, eps, directions) if arb is not None else None
    mp = None
    if ends is None or arb.second:
        try:
            dp, dm = case.oracle.deltas([eps])[0]
            mp = {"plus": dp, "minus": dm, "max": max(dp, dm)}
        except O.TooExpensive:
            if ends is None:
                res.skipped += 1
                return
    for direction in directions:
        if ends is not None:
            check_values(res, case, curve, eps, direction, ends[direction], "arb")
        if mp is not None:
            source = "mpmath" if ends is None else "mpmath (second opinion)"
            check_values(res, case, curve, eps, direction, mp[direction], source)
        if ends is not None and mp is not None:
            _oracles_agree(res, case, eps, direction, ends[direction], mp[direction])


def _oracles_agree(res, case, eps, direction, ends, truth):
    """The mpmath value inside the certified interval (its ends rounded outward
    to floats: no slack)."""
    lower, upper = ends
    log_truth = -mpmath.inf if truth == 0 else mpmath.log(truth)
    if not (mpf(lower) <= log_truth <= mpf(upper) if truth != 0 else upper == -math.inf):
        res.failures.append(f"[{case.kind}] ORACLES DISAGREE: {case.expr} {direction} at eps "
                            f"{eps!r}: Arb ln delta in [{lower!r}, {upper!r}], mpmath ln delta "
                            f"{mpmath.nstr(log_truth, 20)}")


def _build(case, res):
    import statpriv  # noqa: F401  (the expression refers to it)
    import statpriv.shuffle  # noqa: F401
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        try:
            curve = eval(case.expr, {"statpriv": statpriv})
        except ValueError as e:
            res.refused += 1
            res.refusals.append(f"[{case.kind}] {case.expr}: {e}")
            return None
        except Exception as e:   # noqa: BLE001
            res.failures.append(f"[{case.kind}] exception building {case.expr}: {e!r}")
            return None
    if rec:
        res.warnings += 1
        res.failures.append(f"[{case.kind}] warning building {case.expr}: "
                            + "; ".join(str(w.message) for w in rec))
    return curve


# CPU seconds (ITIMER_PROF: a loaded machine does not make a case time out)
CASE_SECONDS = 90        # a case taking longer is abandoned and counted as skipped
NEW_CASE_SECONDS = 30    # the same for NEW_KINDS (a hang inside statpriv is a failure)
# compose_sampled: the oracle's quadrature takes ~1 s a value (a case with a
# Gaussian mechanism up to 55 s in all), and a grid for a step sampled at
# q ~ 1e-9 beside a Gaussian mechanism is fine (h ~ the sampled loss's
# spread): statpriv takes seconds a query there
# compose_mix: a mix whose automatic grid is coarsened to fit a part of 4e6
# points per direction (a secret sample of 4e4 to 2e5 records beside a count
# of tiny loss spread; refused before) costs ~27 s of CPU in its queries
# alone, the lower side's measures built once on that grid
KIND_SECONDS = {"compose_sampled": 150, "compose_mix": 90}


class CaseTimeout(BaseException):
    """Raised by the alarm; a BaseException so that no `except Exception` swallows it."""


def _alarm(signum, frame):
    raise CaseTimeout()


# Kinds whose zero-point and epsilon checks are known to fail and left out by
# run(..., skip_open=True): none at present (the last open class, Gaussian
# noise near the zero points of bounded-ratio laws, is fixed: the Gaussian
# kernel carries the laws' log ratio in double-double).  A kind listed here
# needs its own strict xfail in test_differential.
OPEN_ZERO_POINT_KINDS = ()


def run_case(seed, kind, index, zero_point=False, epsilon=False, skip_open=False,
             stored=False, truth="arb"):
    """Draw one case and run every check on it (at most CASE_SECONDS of CPU time,
    where SIGPROF exists); returns a Result.  stored: the oracle's answers from the stored values
    (StoredOracle); truth: "arb" (the certified intervals where covered) or "mpmath"."""
    import signal
    res = Result(kind)
    use_alarm = hasattr(signal, "SIGPROF")
    if use_alarm:
        old = signal.signal(signal.SIGPROF, _alarm)
        signal.setitimer(signal.ITIMER_PROF, KIND_SECONDS.get(
            kind, CASE_SECONDS if kind in KINDS else NEW_CASE_SECONDS))
    try:
        if skip_open and kind in OPEN_ZERO_POINT_KINDS:
            zero_point = False
        return _run_case(res, seed, kind, index, zero_point, epsilon, stored, truth)
    except CaseTimeout:
        if _IN_CALL:
            res.failures.append(f"[{kind}] HANG: statpriv call {_IN_CALL[0]} still running "
                                f"after the case's time limit (case {seed}-{kind}-{index})")
            _IN_CALL.clear()
            return res
        res.skipped += 1
        res.timeouts += 1
        res.refusals.append(f"[{kind}] case {seed}-{kind}-{index}: oracle over "
                            f"{CASE_SECONDS} s of CPU time, abandoned (counted as skipped)")
        return res
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGPROF, old)


def _run_case(res, seed, kind, index, zero_point, epsilon, stored=False, truth="arb"):
    t0 = time.time()
    try:
        case = draw_case(seed, kind, index)
    except O.TooExpensive:
        res.skipped += 1
        return res
    res.redrawn += case.redrawn
    if stored:
        case.oracle = StoredOracle(("random", seed, kind, index))
    curve = _build(case, res)
    if curve is None:
        return res
    res.curves += 1
    if case.mode == "bracket":
        _bracket_checks(res, case, curve, epsilon, random.Random(f"eps-{seed}-{kind}-{index}"))
        res.seconds = time.time() - t0
        return res
    _use_arb(case, curve, truth, index)
    if "arb" in case.info:
        case.info["arb"].prefetch(case.eps, DIRECTIONS)
    for eps in case.eps:
        _check_at(res, case, curve, eps, DIRECTIONS)
    if zero_point:
        _zero_point_checks(res, case, curve)
    if epsilon:
        _epsilon_checks(res, case, curve, random.Random(f"eps-{seed}-{kind}-{index}"))
    res.seconds = time.time() - t0
    return res


def _use_arb(case, curve, truth, index):
    """With truth "arb", an exact-mode case's delta checks go to the certified
    intervals, every ARB_SECOND_OPINION-th case (by index) to mpmath too; a
    live case with an oracle on Arb numbers (info["on_arb"], its maker: the
    compose_sampled quadrature, the same rule ~8 times faster) asks that one
    (the stored truths are the mpmath oracle's)."""
    if truth == "arb" and "on_arb" in case.info and not isinstance(case.oracle, StoredOracle):
        case.oracle = case.info["on_arb"]()
    if truth == "arb" and case.mode == "exact":
        case.info["arb"] = ArbTruth(curve, second=ARB_SECOND_OPINION > 0
                                    and index % ARB_SECOND_OPINION == 0)


def _zero_point_checks(res, case, curve):
    for direction in DIRECTIONS:
        try:
            z, expected = _zero_and_float(case.oracle, direction)
        except O.TooExpensive:
            res.skipped += 1
            continue
        call = f"epsilon(0.0, direction={direction!r})"
        got, warns, exc = _call(curve, "epsilon", 0.0, direction=direction)
        res.comparisons += 1
        bad = (got < expected if case.mode in ("upper", "window") and exc is None
               else got != expected)
        if exc is not None or warns or bad:
            why = "exception" if exc is not None else ("warning" if warns else
                                                       f"expected {expected!r}")
            ztxt = mpmath.nstr(z, 20) if z != mpmath.inf else "inf"
            res.failures.append(f"[{case.kind}] zero point {why}: {case.expr}.{call} -> "
                                f"{got if exc is None else exc!r}; eps0 = {ztxt}")
            if exc is None and not warns and got < expected:
                res.under += 1   # an eps where delta > 0 claimed as delta = 0
        if not math.isfinite(expected):
            continue
        pts = [float(z * (1 - mpf(10) ** -k)) for k in range(1, 15)]
        pts += [math.nextafter(expected, -math.inf), expected]
        if "arb" in case.info:
            case.info["arb"].prefetch(pts, (direction,))
        for eps in sorted(set(pts)):
            _check_at(res, case, curve, eps, (direction,))


def _epsilon_checks(res, case, curve, rng):
    targets = [1.0, 10 ** rng.uniform(-30, 0), 10 ** rng.uniform(-12, -1), rng.random(),
               rng.choice([1e-300, 1e-12, 1e-9, 1e-6])]
    for d in targets:
        direction = rng.choice(DIRECTIONS)
        call = f"epsilon({d!r}, direction={direction!r})"
        e, warns, exc = _call(curve, "epsilon", d, direction=direction)
        res.comparisons += 1
        if exc is not None or warns:
            res.failures.append(f"[{case.kind}] epsilon {'exception' if exc else 'warning'}: "
                                f"{case.expr}.{call} -> {exc or warns!r}")
            continue
        if d == 1.0 and e != 0.0:
            res.failures.append(f"[{case.kind}] epsilon(1) must be 0: {case.expr}.{call} -> {e!r}")
            continue
        if not math.isfinite(e) or e < 0:
            if math.isnan(e) or e < 0:
                res.failures.append(f"[{case.kind}] epsilon bad value: {case.expr}.{call} -> {e!r}")
            continue
        try:
            truth = _truth(case.oracle, e, direction)
        except O.TooExpensive:
            res.skipped += 1
            continue
        if truth > mpf(d) * (1 + mpf(1e-12)):
            res.under += 1
            res.failures.append(f"[{case.kind}] UNDER-REPORT epsilon: {case.expr}.{call} -> "
                                f"{e!r}; true delta there {mpmath.nstr(truth, 17)} > {d!r}")
        elif case.info.get("bounds"):
            # a grid composition is tight to its bracket, not to 1e-9: its lower end
            # must be at or below the true eps (the true delta there at least d)
            _epsilon_bounds_check(res, case, curve, d, direction)
        elif e > 0 and not (case.mode == "window" and d < WINDOW_EXACT_FROM):
            # tightness (the true delta just below e): asked only here, where it
            # is read (an oracle value costs seconds for the quadrature kinds)
            try:
                below = _truth(case.oracle, e * (1 - 1e-9), direction)
            except O.TooExpensive:
                res.skipped += 1
                continue
            if below <= d:
                res.not_tight += 1
                res.not_tight_cases.append(f"[{case.kind}] {case.expr}.{call} -> {e!r}: "
                                           f"true delta at eps(1-1e-9) = "
                                           f"{mpmath.nstr(below, 12)}")


# ---------------------------------------------------------------------------
# running many cases
# ---------------------------------------------------------------------------

def _run_one(args):
    return run_case(*args)


# The kinds whose cases cost seconds each (the DP-SGD quadratures, the grid
# compositions, the branch-and-bound vertices, the clone sums): handed to the
# worker processes first, so that no long case is left for the end of a run
COSTLY_KINDS = ("compose_sampled", "compose_mix", "pk_bracket", "compose_grid",
                "shuffle_clones")


def run(kinds, count, seed, zero_point=False, epsilon=False, jobs=1, progress=None,
        skip_open=False, stored=False, truth="arb"):
    """Run ``count`` cases per kind; returns {kind: Result} (in the order of
    ``kinds``; the cases run COSTLY_KINDS first)."""
    order = sorted(kinds, key=lambda kind: kind not in COSTLY_KINDS)
    tasks = [(seed, kind, i, zero_point, epsilon, skip_open, stored, truth)
             for kind in order for i in range(count)]
    results = {kind: Result(kind) for kind in kinds}
    if jobs > 1:
        import multiprocessing
        with multiprocessing.Pool(jobs) as pool:
            for r in pool.imap_unordered(_run_one, tasks, chunksize=1):
                results[r.kind].merge(r)
                if progress:
                    progress(r)
    else:
        for t in tasks:
            r = _run_one(t)
            results[r.kind].merge(r)
            if progress:
                progress(r)
    return results


def truth_counts(r):
    """(Arb, mpmath second opinion, mpmath alone) comparisons of a Result, and the
    points where the Arb sum was refused or too wide (mpmath asked instead)."""
    arb, second = r.by_truth.get("arb", 0), r.by_truth.get("mpmath (second opinion)", 0)
    return (arb, second, r.comparisons - arb - second, r.by_truth.get("arb refused", 0),
            r.by_truth.get("arb too wide", 0))


def report(results, out=sys.stdout, max_lines=200):
    """Print per-kind counts, then the failing cases (one per line); returns the
    total number of failures."""
    head = (f"{'kind':14s} {'curves':>6s} {'compar.':>8s} {'fail':>6s} {'under':>6s} "
            f"{'warn':>5s} {'refused':>7s} {'skipped':>7s} {'redrawn':>7s} {'not-tight':>9s} "
            f"{'max rel err':>11s} {'max |ln err|':>12s} {'sec':>6s}")
    print(head, file=out)
    total = Result("total")
    for kind, r in results.items():
        total.merge(r)
        print(f"{kind:14s} {r.curves:6d} {r.comparisons:8d} {len(r.failures):6d} {r.under:6d} "
              f"{r.warnings:5d} {r.refused:7d} {r.skipped:7d} {r.redrawn:7d} {r.not_tight:9d} "
              f"{r.max_rel:11.3g} {r.max_log:12.3g} {r.seconds:6.1f}", file=out)
    r = total
    print(f"{'TOTAL':14s} {r.curves:6d} {r.comparisons:8d} {len(r.failures):6d} {r.under:6d} "
          f"{r.warnings:5d} {r.refused:7d} {r.skipped:7d} {r.redrawn:7d} {r.not_tight:9d} "
          f"{r.max_rel:11.3g} {r.max_log:12.3g} {r.seconds:6.1f}", file=out)
    print(f"\ncomparisons by truth source:\n{'kind':14s} {'arb':>8s} {'mp 2nd':>8s} "
          f"{'mpmath':>8s} {'arb refused':>11s} {'arb wide':>8s}", file=out)
    for kind, r in list(results.items()) + [("TOTAL", total)]:
        print(f"{kind:14s} " + " ".join(f"{n:{w}d}" for n, w in zip(truth_counts(r),
                                                                     (8, 8, 8, 11, 8))),
              file=out)
    if total.failures:
        print(f"\nFAILURES ({len(total.failures)}; reproduce with `import statpriv` and the "
              f"expression before '->'):", file=out)
        for line in total.failures[:max_lines]:
            print(line, file=out)
        if len(total.failures) > max_lines:
            print(f"... {len(total.failures) - max_lines} more", file=out)
    if total.timeouts:
        print(f"\n{total.timeouts} case(s) abandoned after {CASE_SECONDS} s (in 'skipped')",
              file=out)
    if total.refusals:
        print(f"\nREFUSED by statpriv (ValueError at construction) or abandoned cases "
              f"(not failures):", file=out)
        for line in total.refusals[:20]:
            print(line, file=out)
    if total.not_tight_cases:
        print(f"\nNOT TIGHT epsilon (not failures):", file=out)
        for line in total.not_tight_cases[:20]:
            print(line, file=out)
    return len(total.failures)


# ---------------------------------------------------------------------------
# fixed edge cases (the examples of the precision issues), checked in every run
# ---------------------------------------------------------------------------

_TOP_UNDERFLOWS = [1e-300, 5e-324, 5e-324, 5e-324, 5e-324, 1e-300, 5e-324, 1e-300, 1e-300,
                   5e-324, 1e-300, 1e-300, 5e-324, 1e-300, 1e-300, 5e-324]

EDGE_CASES = (
    # (kind, statpriv expression, oracle builder, eps list)
    ("binomial", "statpriv.counting(10, 1e-300)", lambda: O.binomial(10, 1e-300),
     [-0.01, 0.0, 0.5]),
    ("binomial", "statpriv.counting(10, 5e-324)", lambda: O.binomial(10, 5e-324), [0.0, 3.0]),
    ("binomial", "statpriv.counting(10, 0.9999999999999999)",
     lambda: O.binomial(10, 1 - 2 ** -53), [0.0, 1.0]),
    ("binomial", "statpriv.counting(1000000, 1e-06)", lambda: O.binomial(10 ** 6, 1e-6),
     [0.0, 1.0, 30.0]),
    ("subsample", "statpriv.counting(1000000000, 0.3, sample_size=10)",
     lambda: O.subsample(10 ** 9, 0.3, 10), [0.0, 1e-9]),
    ("subsample", "statpriv.counting(14926575, 0.6467, sample_size=54)",
     lambda: O.subsample(14926575, 0.6467, 54), [0.0, 1e-6]),
    ("gaussian", "statpriv.counting(661493835, 0.4044, sample_size=3, "
                 "noise=statpriv.Gaussian(8.83))",
     lambda: O.noisy(O.subsample(661493835, 0.4044, 3), ("gaussian", 8.83)), [0.0, 0.01]),
    ("gaussian", "statpriv.counting(20, 0.44, sample_rate=0.86, sampling='poisson', "
                 "noise=statpriv.Gaussian(4.85))",
     lambda: O.noisy(O.poisson_sample(20, 0.44, 0.86), ("gaussian", 4.85)), [11.5]),
    ("gaussian", "statpriv.secret_sample(11, 1, positives=0, noise=statpriv.Gaussian(3.43))",
     lambda: O.noisy(O.secret_sample(11, 1, 0), ("gaussian", 3.43)), [16.2]),
    ("gaussian", "statpriv.counting(100, 0.3, noise=statpriv.Gaussian(1e-10))",
     lambda: O.noisy(O.binomial(100, 0.3), ("gaussian", 1e-10)), [0.1]),
    ("laplace", "statpriv.counting(4, 0.5342, noise=statpriv.Laplace(3.6364))",
     lambda: O.noisy(O.binomial(4, 0.5342), ("laplace", 3.6364)), [0.0, 0.2]),
    ("dp_laplace", "statpriv.dp.laplace(17.07938327700137)",
     lambda: O.dp_laplace(17.07938327700137), [0.0, 0.05]),
    ("dp_gaussian", "statpriv.dp.gaussian(0.05520881730815853)",
     lambda: O.dp_gaussian(0.05520881730815853), [0.0, 1.0]),
    ("secret", "statpriv.secret_sample(7, 1, positives=5)", lambda: O.secret_sample(7, 1, 5),
     [0.0, 0.5]),
    ("secret", "statpriv.secret_sample(22, 22, positives=10)",
     lambda: O.secret_sample(22, 22, 10), [0.0, 0.5]),
    # the top atom prod pi_j = e^-11481.7 below the long double range (it was cut
    # as 0: ln delta_plus(1000) read -10735.2)
    ("per_record", f"statpriv.counting(None, {_TOP_UNDERFLOWS!r})",
     lambda: O.per_record(_TOP_UNDERFLOWS), [1000.0, 700.0]),
    # delta_plus = 1/2 at every eps >= 0: epsilon(1/2) = 0 (it was +inf)
    ("secret", "statpriv.secret_sample(2, 1, positives=0)", lambda: O.secret_sample(2, 1, 0),
     [0.0, 3.0]),
    ("secret", "statpriv.secret_sample(8, 7, positives=3)", lambda: O.secret_sample(8, 7, 3),
     [0.0, 2.0]),
    # 2.0e-12 above the truth (the vertex recurrence's coefficient)
    ("shuffle_rr", "statpriv.shuffle.randomized_response(45, 16.898448478007367)",
     lambda: O.shuffled_rr(45, 16.898448478007367), [0.0]),
)


def run_edge_cases(zero_point=True, epsilon=True, seed=0, skip_open=False, kinds=None,
                   stored=False, truth="arb"):
    """The fixed EDGE_CASES, with the same checks as random cases; {kind: Result}."""
    results = {}
    for i, (kind, expr, build, eps) in enumerate(EDGE_CASES):
        if kinds is not None and kind not in kinds:
            continue
        res = Result(kind)
        t0 = time.time()
        try:
            orc = build()
            if stored:
                orc = StoredOracle(("edge", i))
        except O.TooExpensive:
            res.skipped += 1
            results.setdefault(kind, Result(kind)).merge(res)
            continue
        rel = REL_NOISELESS if kind in ("binomial", "subsample", "poisson", "per_record",
                                        "secret", "shuffle_rr") else REL_NOISY
        case = Case(kind, expr, orc, list(eps), rel)
        curve = _build(case, res)
        if curve is not None:
            res.curves += 1
            _use_arb(case, curve, truth, i)
            for e in case.eps:
                _check_at(res, case, curve, e, DIRECTIONS)
            open_class = skip_open and kind in OPEN_ZERO_POINT_KINDS
            if zero_point and not open_class:
                _zero_point_checks(res, case, curve)
            if epsilon and not open_class:
                _epsilon_checks(res, case, curve, random.Random(f"edge-{seed}-{i}"))
        res.seconds = time.time() - t0
        results.setdefault(kind, Result(kind)).merge(res)
    return results


# ---------------------------------------------------------------------------
# the partial-knowledge, shuffle, composition and with-replacement kinds (NEW_KINDS)
# ---------------------------------------------------------------------------

PK_PS = (5e-324, 1e-300, 1e-17, 1e-9, 0.5, 0.5 - 2.0 ** -54, 0.25, 0.49)
EPS0S = (5e-324, 1e-300, 1e-17, 1e-6, 700.0, 40.0, 1.0)


def _draw_p_half(rng):
    """p in (0, 1/2]: the edges on purpose, else uniform or log-uniform."""
    r = rng.random()
    if r < 0.45:
        return rng.choice(PK_PS)
    if r < 0.75:
        return max(rng.uniform(0.0, 0.5), 5e-324)
    return 0.5 * 10.0 ** rng.uniform(-20, 0)


def _draw_eps0(rng):
    return rng.choice(EPS0S) if rng.random() < 0.4 else 10.0 ** rng.uniform(-3, 1.5)


def _small_count(rng, atoms=60):
    """(expr, oracle) of a small discrete count curve (edge parameters on purpose)."""
    kind = rng.choice(("binomial", "binomial", "secret", "subsample", "per_record"))
    if kind == "binomial":
        n = rng.choice([1, 2, rng.randint(1, atoms - 1)])
        pi = draw_pi(rng)
        return f"statpriv.counting({n}, {pi!r})", O.binomial(n, pi)
    if kind == "secret":
        n = rng.randint(1, 10 ** 6) if rng.random() < 0.5 else rng.randint(1, atoms)
        m = rng.randint(1, min(n, atoms - 2))
        K = rng.choice([0, n - 1, rng.randint(0, n - 1)])
        return f"statpriv.secret_sample({n}, {m}, positives={K})", O.secret_sample(n, m, K)
    if kind == "subsample":
        n = rng.choice([rng.randint(1, atoms), int(10 ** rng.uniform(0, 12))])
        m = rng.randint(1, min(n, atoms - 2))
        pi = draw_pi(rng)
        return (f"statpriv.counting({n}, {pi!r}, sample_size={m})", O.subsample(n, pi, m))
    groups = [(draw_pi(rng), rng.randint(1, 8)) for _ in range(rng.randint(1, 3))]
    pis = [p for p, c in groups for _ in range(c)]
    pexpr = " + ".join(f"[{p!r}]*{c}" for p, c in groups)
    return f"statpriv.counting(None, {pexpr})", O.per_record(pis)


def _sd(N, p):
    return 1.0 / math.sqrt(max(N * p * (1 - p), 1e-300))


def _draw_with_replacement(rng):
    """m draws with replacement from n iid records: n and m small (the oracle sums
    n m^2 terms), the edges on purpose: n = 1 and 2, m = 1, m > n, pi at its edges."""
    n = rng.choice([1, 2, 3, rng.randint(1, 12), rng.randint(1, 120)])
    m = rng.choice([1, 2, n, n + 1, 3 * n, rng.randint(1, 40)])
    m = max(1, min(m, 60))
    pi = draw_pi(rng)
    orc = O.with_replacement(n, pi, m)
    expr = f"statpriv.counting({n}, {pi!r}, sample_size={m}, sampling='with_replacement')"
    scale = _sd(m, min(max(pi, 1.0 / n), 1 - 1.0 / (n + 1)))
    return Case("with_replacement", expr, orc, draw_eps(rng, scale, _finite_zero(orc)),
                REL_NOISELESS)


RR_EPS0S = (0.0, 1e-3, 0.5, 1.0, 40.0, 39.99999999999999, 700.0)
RR_TINY_EPS0S = (5e-324, 1e-300, 1e-17, 1e-9, 1e-6, 2.0 ** -52)
RR_KS = (2, 2, 3, 10 ** 12, 10 ** 12 - 1)
RR_QS = (1e-9, 1e-4, 0.01, 0.5, 0.99, 1.0 - 1e-9, 1.0)


def _draw_rr_curve(rng, tiny=False):
    """(expr, oracle, eps0) of a k-ary randomized response: eps0 at 0, 40 and
    700 among the draws (tiny: in (0, 1e-3), 5e-324 among them), k = 2, a few
    and up to 10^12."""
    if tiny:
        eps0 = rng.choice(RR_TINY_EPS0S) if rng.random() < 0.5 else 10.0 ** rng.uniform(-16, -3)
    else:
        eps0 = rng.choice(RR_EPS0S) if rng.random() < 0.4 else 10.0 ** rng.uniform(-3, 1.7)
    r = rng.random()
    k = (rng.choice(RR_KS) if r < 0.5 else rng.randint(2, 60) if r < 0.8
         else int(10 ** rng.uniform(2, 12)))
    return (f"statpriv.dp.randomized_response({eps0!r}, {k})", O.randomized_response(eps0, k),
            eps0)


def _draw_rr(rng, kind):
    """dp_rr / dp_rr_tiny: randomized response alone (half the draws) or run on
    a Poisson sample (add/remove) or a fixed-size one (replace-one), q at 1e-9,
    1 - 1e-9 and 1 among the draws, against the sampled pair summed atom by atom."""
    expr, orc, eps0 = _draw_rr_curve(rng, tiny=kind == "dp_rr_tiny")
    r = rng.random()
    scale = max(eps0, 1e-3)
    if r >= 0.5:
        q = rng.choice(RR_QS) if rng.random() < 0.5 else 10.0 ** rng.uniform(-6, 0)
        sampling = "poisson" if r < 0.75 else "without_replacement"
        expr += f".subsample({q!r}, sampling={sampling!r})"
        orc = O.subsampled(orc, q, sampling)
        scale = max(q * eps0, 1e-6)
    return Case(kind, expr, orc, draw_eps(rng, scale, _finite_zero(orc)), REL_NOISELESS)


def _draw_rr_compose(rng):
    """rr_compose: compose(a, b, exact=True) with a a randomized response and b
    another one, the same one (times=2) or a small count."""
    e1, o1, _ = _draw_rr_curve(rng)
    r = rng.random()
    if r < 0.3:
        args, orc = f"{e1}, times=2", O.product(o1, o1)
    else:
        e2, o2 = _draw_rr_curve(rng)[:2] if r < 0.7 else _small_count(rng, atoms=40)
        args, orc = f"{e1}, {e2}", O.product(o1, o2)
    return Case("rr_compose", f"statpriv.compose({args}, exact=True)", orc,
                draw_eps(rng, 1.0, _finite_zero(orc)), REL_NOISELESS)


# the largest n of the correlated kinds' whole-lattice draws, by k: the oracle's
# multinomial split of the others over 2^k cells stays a few thousand terms
CORR_LATTICE_N = {1: 300, 2: 40, 3: 7, 4: 5}
CORR_CELL_EDGES = (0.0, 0.0, 1e-300, 5e-324, 1e-17, 1e-9)
# the window route's draws: cells down to 1e-12 (corr_window) or a cell at 1e-17
# and below beside a large one (corr_window_tiny: partners far below the box's
# doubles, resolved in log space)
WINDOW_CELL_EDGES = (0.0, 0.0, 1e-9, 1e-12)
WINDOW_TINY_CELLS = (1e-300, 5e-324, 1e-17, 1e-200)
CORR_LOG_RANGE = 11000.0      # statpriv.correlated.MAX_LOG_RANGE (a documented refusal)


def _answers(v, k):
    return tuple((v >> (k - 1 - j)) & 1 for j in range(k))


def _normalised(weights):
    """The weights scaled to sum to 1, the last positive entry the complement of
    the others (within an ulp of the sum 1)."""
    total = math.fsum(weights)
    probs = [w / total for w in weights]
    last = max(i for i, p in enumerate(probs) if p > 0.0)
    probs[last] = max(0.0, 1.0 - math.fsum(probs[:last] + probs[last + 1:]))
    return probs


def _draw_joint(rng, k, two_cells=False, edges=CORR_CELL_EDGES, tiny=1e-300):
    """A law of one record's k answers (2^k floats): dense with the cells
    ``edges`` among the draws, perfectly correlated (all 0 or all 1, one of
    them at ``tiny`` among the draws), independent answers (a product of
    marginals), or one certain vector; ``two_cells``: two random cells only
    (the others 0), the smaller at ``tiny`` among the draws."""
    size = 2 ** k
    if two_cells:
        p = rng.choice((0.5, tiny, 1e-9, 1.0 - 1e-9, rng.random(), 10 ** rng.uniform(-12, 0)))
        weights = [0.0] * size
        a, b = rng.sample(range(size), 2)
        weights[a], weights[b] = p, 1.0 - p
        return _normalised(weights)
    r = rng.random()
    if r < 0.15:
        p = rng.choice((0.5, tiny, rng.random()))
        weights = [0.0] * size
        weights[0], weights[-1] = 1.0 - p, p
        return _normalised(weights)
    if r < 0.35:
        margins = [rng.choice((0.5, 1e-6, rng.random(), 1 - 1e-9)) for _ in range(k)]
        weights = [math.prod(m if a else 1.0 - m for m, a in zip(margins, _answers(v, k)))
                   for v in range(size)]
        return _normalised(weights)
    if r < 0.42:
        certain = rng.randrange(size)
        return [float(v == certain) for v in range(size)]
    weights = [rng.choice(edges) if rng.random() < 0.3 else rng.random()
               for _ in range(size)]
    if not any(w >= 1e-9 for w in weights):
        weights[rng.randrange(size)] = 1.0
    return _normalised(weights)


def _fit_log_range(n, joint):
    """n lowered until (n - 1) |ln smallest positive cell| is within statpriv's
    documented range (beyond it correlated_counts refuses the lattice)."""
    smallest = min(p for p in joint if p > 0.0)
    if smallest < 1.0:
        n = min(n, 1 + int(CORR_LOG_RANGE / -math.log(smallest)))
    return max(n, 1)


def _draw_target(rng, k):
    x = tuple(rng.randint(0, 1) for _ in range(k))
    x_prime = x
    while x_prime == x:
        x_prime = tuple(rng.randint(0, 1) for _ in range(k))
    return x, x_prime


def _draw_window_joint(rng, kind, two_cells):
    """corr_window: cells down to 1e-12; corr_window_tiny: one cell in
    WINDOW_TINY_CELLS beside a large one."""
    if kind == "corr_window":
        return _draw_joint(rng, 2, two_cells, WINDOW_CELL_EDGES, tiny=1e-12)
    tiny = rng.choice(WINDOW_TINY_CELLS)
    if two_cells:
        joint = [0.0] * 4
        a, b = rng.sample(range(4), 2)
        joint[a], joint[b] = tiny, 1.0
        return joint
    joint = _draw_joint(rng, 2, edges=WINDOW_CELL_EDGES + (tiny,), tiny=tiny)
    if min(p for p in joint if p > 0.0) > 1e-17:
        small = min(range(4), key=lambda v: joint[v])
        joint[small] = tiny
        joint = _normalised(joint)
    return joint


def _draw_correlated(rng, kind):
    """corr_lattice: k in [1, 4] questions, n small (whole lattice), a target pair
    or the worst case over every pair.  corr_window(_tiny): k = 2 on the window of
    the lattice, forced at small n (correlated._window_curves, the route's own
    function: correlated_counts takes it from n ~ 1200 on) or at n beyond the
    route switch (answers on two cells: the oracle's split stays n terms)."""
    window = kind in ("corr_window", "corr_window_tiny")
    if window and rng.random() < 0.4:
        joint = _draw_window_joint(rng, kind, two_cells=True)
        target = _draw_target(rng, 2) if rng.random() < 0.6 else None
        switch = 1216 if target is not None else 1000      # the first n on the window
        n = rng.choice((switch, switch + 1, rng.randint(switch, switch + 20),
                        rng.randint(switch, 3000)))
        t_expr = f", target={target!r}" if target is not None else ""
        expr = f"statpriv.correlated_counts({n}, {joint!r}{t_expr})"
        return Case(kind, expr, O.correlated_counts(n, joint, target),
                    draw_eps(rng, 1.0 / math.sqrt(n)), REL_NOISELESS, mode="window")
    k = 2 if window else rng.choice((1, 2, 2, 2, 3, 3, 4))
    joint = _draw_window_joint(rng, kind, two_cells=False) if window else _draw_joint(rng, k)
    top = CORR_LATTICE_N[k]
    n = _fit_log_range(rng.choice((1, 2, top, rng.randint(1, top), rng.randint(1, top))), joint)
    if window:
        target = _draw_target(rng, 2)
        expr = (f"statpriv.correlated._window_curves({n - 1}, statpriv.correlated.np.array("
                f"{joint!r}), [{target!r}], None, 'window')[0]")
        mode = "window"
    else:
        target = _draw_target(rng, k) if rng.random() < (0.7 if k == 4 else 0.5) else None
        t_expr = f", target={target!r}" if target is not None else ""
        expr = f"statpriv.correlated_counts({n}, {joint!r}{t_expr})"
        mode = "exact"
    orc = O.correlated_counts(n, joint, target)
    return Case(kind, expr, orc, draw_eps(rng, 1.0 / math.sqrt(n), _finite_zero(orc)),
                REL_NOISELESS, mode=mode)


def _draw_new(rng, kind):
    if kind == "with_replacement":
        return _draw_with_replacement(rng)
    if kind in ("dp_rr", "dp_rr_tiny"):
        return _draw_rr(rng, kind)
    if kind == "rr_compose":
        return _draw_rr_compose(rng)
    if kind in ("corr_lattice", "corr_window", "corr_window_tiny"):
        return _draw_correlated(rng, kind)
    if kind in ("pk_worst", "pk_blanket", "pk_bracket"):
        p = _draw_p_half(rng)
        if kind == "pk_bracket":
            N = rng.randint(1001, 1150)
            n = N + 1 + rng.choice([0, 0, rng.randint(0, 10 ** 9)])
        else:
            n = rng.choice([1, 2, rng.randint(1, 41 if kind == "pk_worst" else 61)])
            N = None
        known = rng.choice([0, 0, n - 1, rng.randint(0, n - 1)]) if N is None else n - 1 - N
        N = n - 1 - known
        what = "blanket" if kind == "pk_blanket" else "worst_case"
        expr = f"statpriv.partial_knowledge({n}, {p!r}, known={known}).{what}"
        orc = O.blanket(N, p) if kind == "pk_blanket" else O.worst_case(N, p)
        k = 3 if kind == "pk_bracket" else 6
        case = Case(kind, expr, orc, draw_eps(rng, _sd(N, p), None, k=k), REL_NOISELESS)
        if kind == "pk_bracket":
            case.mode = "bracket"
            case.eps = [max(e, 0.0) for e in case.eps]
            case.info = dict(N=N, p=p)
        return case
    if kind in ("thr_active", "thr_passive"):
        n = rng.choice([1, 2, rng.randint(1, 60)])
        known = rng.choice([0, 1 if n > 1 else 0, n - 1, rng.randint(0, n - 1)])
        tau = rng.choice([0, 1, n, n + 1, n + 5, rng.randint(0, n + 2),
                          rng.randint(0, max(1, n // 3))])
        attacker = "active" if kind == "thr_active" else "passive"
        if rng.random() < 0.3 and n > 1:
            pis = [draw_pi(rng) for _ in range(n - 1)]
            pexpr = repr(pis)
            orc = O.thresholded(n, pis, tau, known, attacker)
            scale = 1.0 / math.sqrt(max(sum(p * (1 - p) for p in pis), 1e-300))
            n_expr = "None"
        else:
            pi = draw_pi(rng)
            pexpr, n_expr = repr(pi), str(n)
            orc = O.thresholded(n, pi, tau, known, attacker)
            scale = _sd(n, pi)
        expr = (f"statpriv.thresholded({n_expr}, {pexpr}, {tau}, known={known}, "
                f"attacker={attacker!r})")
        return Case(kind, expr, orc, draw_eps(rng, scale, _finite_zero(orc)), REL_NOISELESS,
                    info=dict(n=n))
    if kind in ("kanon_lower", "kanon_upper", "kanon_residue"):
        n = rng.choice([1, 2, rng.randint(1, 45)])
        edge = (5e-324, 1e-300, 1e-17, 0.0, 0.5, 1.0 - 2.0 ** -53, 2.0 ** -53)
        for _ in range(50):
            pa = rng.choice(edge) if rng.random() < 0.4 else rng.random() * rng.choice([1, 0.1, 1e-3])
            pb = rng.choice(edge) if rng.random() < 0.4 else rng.random() * (1 - pa)
            if rng.random() < 0.15:
                pb = float(1 - Fraction(pa)) if float(1 - Fraction(pa)) + pa == 1 else pb
            if Fraction(pa) + Fraction(pb) <= 1:
                break
        else:
            pa, pb = 0.25, 0.5
        # kanon_residue: the two categories summing to 1 in floats, the third one's
        # probability the rounding residue 1 - pa - pb (given explicitly: 0 to ~1e-17)
        residue_edge = kind == "kanon_residue"
        if residue_edge:
            pa = rng.choice((1.0 / 3.0, 0.1, 0.7, rng.random(), 10 ** rng.uniform(-17, 0)))
            pb = 1.0 - pa
            if Fraction(pa) + Fraction(pb) > 1:
                pb = math.nextafter(pb, 0.0)
        rest = float(1 - Fraction(pa) - Fraction(pb))
        others = []
        if residue_edge:
            others = [rest] if rest > 0 and Fraction(rest) == 1 - Fraction(pa) - Fraction(pb) \
                else []
        elif rng.random() < 0.5 and rest > 0:
            x = rest * rng.random()
            if Fraction(pa) + Fraction(pb) + Fraction(x) <= 1:
                others = [x]
        probs = [pa, pb] + others
        order = list(range(len(probs)))
        rng.shuffle(order)
        perm = [probs[i] for i in order]
        source, target = order.index(0), order.index(1)
        k = rng.choice([1, 2, n, n + 1, rng.randint(1, n + 2), rng.randint(1, 5)])
        bound = ("lower" if kind == "kanon_lower" else "upper" if kind == "kanon_upper"
                 else rng.choice(("lower", "upper")))
        expr = (f"statpriv.k_anonymity({n}, {perm!r}, {k}, source={source}, "
                f"target={target}).{bound}")
        orc = O.k_anonymity(n, pa, pb, k, bound)
        return Case(kind, expr, orc, draw_eps(rng, _sd(n, pa + pb) if pa + pb < 1 else 1.0,
                                              _finite_zero(orc)), REL_NOISELESS)
    if kind in ("shuffle_clones", "shuffle_rr"):
        eps0 = _draw_eps0(rng)
        if kind == "shuffle_clones":
            n = rng.choice([1, 2, rng.randint(1, 100)])
            expr, orc = f"statpriv.shuffle.clones({n}, {eps0!r})", O.clones(n, eps0)
        else:
            n = rng.choice([1, 2, rng.randint(1, 40)])
            expr = f"statpriv.shuffle.randomized_response({n}, {eps0!r})"
            orc = O.shuffled_rr(n, eps0)
        return Case(kind, expr, orc, draw_eps(rng, eps0 / math.sqrt(n), eps0), REL_NOISELESS)
    if kind == "compose_mix":
        return _draw_mix(rng)
    if kind == "compose_sampled":
        return _draw_sampled(rng)
    # compositions of two small discrete curves
    e1, o1 = _small_count(rng)
    if rng.random() < 0.3:
        e2, o2, args = e1, o1, f"{e1}, times=2"
    else:
        e2, o2 = _small_count(rng)
        args = f"{e1}, {e2}"
    orc = O.product(o1, o2)
    if kind == "compose_exact":
        return Case(kind, f"statpriv.compose({args}, exact=True)", orc,
                    draw_eps(rng, 1.0, _finite_zero(orc)), REL_NOISELESS)
    return Case(kind, f"statpriv.compose({args})", orc, draw_eps(rng, 1.0, _finite_zero(orc)),
                REL_NOISY, mode="upper", info=dict(bounds=True))


MIX_SIGMAS = (0.05, 0.3, 1.0, 20.0, 1000.0)
MIX_TIMES = (1, 2, 7, 100, 1000, 10 ** 4)


def _draw_mix(rng):
    """compose_mix: a random mix composed on the grid, checked for no under-report
    and for its delta_bounds bracket.  Half the draws are Gaussian mechanisms
    (sigmas at the edges on purpose, times up to 10^4): N(0, s_i^2) mechanisms
    composed k_i times are one with 1 / s^2 = sum_i k_i / s_i^2, the truth
    (O.dp_gaussian); the others two or three small discrete counts (n = 1, pi at
    0, 1, 5e-324 among the draws), against their explicit product."""
    if rng.random() < 0.5:
        sigmas = [rng.choice(MIX_SIGMAS) if rng.random() < 0.4 else 10 ** rng.uniform(-1, 2.5)
                  for _ in range(rng.randint(1, 3))]
        times = rng.choice(MIX_TIMES + (rng.randint(1, 50),))
        sigma = 1.0 / math.sqrt(times * sum(1.0 / s ** 2 for s in sigmas))
        parts = ", ".join(f"statpriv.dp.gaussian({s!r})" for s in sigmas)
        return Case("compose_mix", f"statpriv.compose({parts}, times={times})",
                    O.dp_gaussian(sigma), draw_eps(rng, 1.0 / sigma), REL_NOISY, mode="upper",
                    info=dict(bounds=True))
    drawn = [_small_count(rng, atoms=24) for _ in range(rng.choice([2, 2, 3]))]
    orc = drawn[0][1]
    for _, o in drawn[1:]:
        orc = O.product(orc, o)
    expr = f"statpriv.compose({', '.join(e for e, _ in drawn)})"
    return Case("compose_mix", expr, orc, draw_eps(rng, 1.0, _finite_zero(orc)), REL_NOISY,
                mode="upper", info=dict(bounds=True))


SAMPLED_SIGMAS = (0.3, 0.5, 1.0, 5.0)
SAMPLED_QS = (1e-9, 1e-4, 0.01, 0.5, 0.99, 1.0 - 1e-9, 1.0)


def _draw_sampled(rng):
    """compose_sampled: the Poisson-sampled Gaussian mechanism (one DP-SGD step;
    sigma down to 0.3, q at 1e-9, 1 - 1e-9 and 1 among the draws, either
    relation) composed on the grid alone or beside one or two Gaussian
    mechanisms run 1 to 1000 times: no under-report and the delta_bounds
    bracket, against the independent oracle (the step's closed form, or the
    quadrature of the step's laws against the Gaussian mechanisms' closed
    form; two and three steps: tests/test_dp_sgd.py)."""
    sigma = rng.choice(SAMPLED_SIGMAS) if rng.random() < 0.5 else 10 ** rng.uniform(-0.5, 1)
    q = rng.choice(SAMPLED_QS) if rng.random() < 0.5 else 10 ** rng.uniform(-4, 0)
    relation = rng.choice(("add_remove", "replace_one"))
    step = f"statpriv.dp.gaussian({sigma!r}, sampling_prob={q!r}, relation={relation!r})"
    gaussians = ()
    if rng.random() < 0.8:
        gaussians = tuple((10 ** rng.uniform(-0.5, 2), rng.choice((1, 1, 10, 1000)))
                          for _ in range(rng.randint(1, 2)))
    # the unsampled mechanism of the same relation: under replace-one N - 1
    # against N + 1, the pair N(1, g^2) / N(0, g^2) at sigma 2 g
    scale = 1.0 if relation == "add_remove" else 2.0
    parts = [step] + [f"statpriv.compose(statpriv.dp.gaussian({scale * g!r}, "
                      f"relation={relation!r}), times={k})" for g, k in gaussians]
    orc = O.sampled_gaussian_mix(sigma, q, relation, 1, gaussians)
    # (the "add" direction's zero point, where add/remove has one)
    z = orc.zero_point("minus")
    eps0 = float(z) if z != mpmath.inf else None
    return Case("compose_sampled", f"statpriv.compose({', '.join(parts)})", orc,
                draw_eps(rng, 1.0 / sigma, eps0, k=4), REL_NOISY, mode="upper",
                info=dict(bounds=True, on_arb=functools.partial(
                    O.sampled_gaussian_mix, sigma, q, relation, 1, gaussians, arithmetic="arb")))


def _bounds_check(res, case, curve, eps, direction, truth):
    """compose_grid: delta_bounds(eps) = (lower, upper) must bracket the truth."""
    lo_hi, warns, exc = _call(curve, "delta_bounds", eps, direction=direction)
    call = f"delta_bounds({eps!r}, direction={direction!r})"
    res.comparisons += 1
    if exc is not None or warns:
        _fail(res, case, call, repr(exc) if exc else warns, truth, "exception/warning")
        return
    lo, hi = (float(x) for x in lo_hi)
    if mpf(lo) > truth * (1 + mpf(case.rel)) + mpf(1e-300):
        _fail(res, case, call, (lo, hi), truth, "reported lower bound above the truth")
    if mpf(hi) < truth * (1 - mpf(case.rel)):
        res.under += 1
        _fail(res, case, call, (lo, hi), truth, "reported upper bound below the truth", True)


def _epsilon_bounds_check(res, case, curve, d, direction):
    """epsilon_bounds(d) = (lower, upper): the true delta just below the lower
    end is at least d (else the true eps is below the lower end)."""
    lo_hi, warns, exc = _call(curve, "epsilon_bounds", d, direction=direction)
    call = f"epsilon_bounds({d!r}, direction={direction!r})"
    res.comparisons += 1
    if exc is not None or warns:
        res.failures.append(f"[{case.kind}] {case.expr}.{call} -> {exc or warns!r}")
        return
    lo, hi = (float(x) for x in lo_hi)
    if not lo <= hi:
        res.failures.append(f"[{case.kind}] {case.expr}.{call} -> {lo_hi!r}: lower above upper")
    elif lo > 0:
        try:
            truth = _truth(case.oracle, math.nextafter(lo, 0.0), direction)
        except O.TooExpensive:
            res.skipped += 1
            return
        if truth < mpf(d) * (1 - mpf(case.rel)):
            res.failures.append(f"[{case.kind}] {case.expr}.{call} -> {lo_hi!r}: true delta "
                                f"below the lower end {mpmath.nstr(truth, 17)} < {d!r}")


def _log(x):
    return -math.inf if x == 0 else float(mpmath.log(x))


def _bracket_checks(res, case, curve, epsilon, rng):
    """pk_bracket (N > 1000 others: branch and bound).  At each eps: the vertex a the
    bracket reports attains at least ``attained`` (brute force of that vertex), and the
    certified end and the curve's delta (both directions) are at least the brute force
    at the vertices a, N - a, 0, N (a lower bound of the worst case).  epsilon(d): the
    true delta at the returned eps is at least that lower bound, so a lower bound above
    d is an under-report (a necessary check only)."""
    N, p = case.info["N"], case.info["p"]
    tol = 1e-12
    vertex_curves = {}      # a -> the oracle of vertex a alone (its laws built once a case)

    def vertex(a, eps):
        """(delta_plus, delta_minus) of vertex a at eps.  Vertex N - a is vertex
        a mirrored: Bin(N - a, p) + Bin(a, 1 - p) is N minus Bin(a, p) +
        Bin(N - a, 1 - p), and the shift pair (S + 1, S) of N - S is that of S
        read backwards with P and Q swapped, so its (plus, minus) is vertex a's
        (minus, plus); the oracle computes min(a, N - a) only (the
        convolutions are the cost)."""
        b = min(a, N - a)
        if b not in vertex_curves:
            vertex_curves[b] = O.worst_case(N, p, vertices=[b])
        plus, minus = vertex_curves[b].deltas([eps])[0]
        return (plus, minus) if b == a else (minus, plus)

    def vertex_deltas(vertices, eps):
        """(max delta_plus, max delta_minus) at eps over the vertices."""
        values = [vertex(a, eps) for a in vertices]
        return max(v[0] for v in values), max(v[1] for v in values)

    for eps in case.eps:
        br, warns, exc = _call(curve, "_log_bracket", eps)
        call = f"_log_bracket({eps!r})"
        res.comparisons += 1
        if exc is not None or warns:
            res.failures.append(f"[{case.kind}] {case.expr}.{call} -> {exc or warns!r}")
            continue
        L, U, a = br
        try:
            at = vertex_deltas([a], eps)[0]
            lb = vertex_deltas(sorted({a, N - a, 0, N}), eps)
        except O.TooExpensive:
            res.skipped += 1
            continue
        if L > _log(at) + tol * max(1.0, abs(L)):
            _fail(res, case, call + f" attained (a={a})", L, at, "attained above its vertex")
        res.comparisons += 1
        if U < _log(max(lb)) - tol * max(1.0, abs(U)):
            res.under += 1
            _fail(res, case, call + " certified", U, max(lb),
                  "certified below a vertex", True)
        for direction, truth in (("plus", lb[0]), ("minus", lb[1]), ("max", max(lb))):
            ours, warns, exc = _call(curve, _METHOD[direction], eps)
            res.comparisons += 1
            c2 = f"{_METHOD[direction]}({eps!r})"
            if exc is not None or warns:
                _fail(res, case, c2, repr(exc) if exc else warns, truth, "exception/warning")
            elif float(ours) < _log(truth) - tol * max(1.0, abs(float(ours))):
                res.under += 1
                _fail(res, case, c2, ours, truth, "below a vertex (lower bound)", True)
    if not epsilon:
        return
    for d in (1.0, 10 ** rng.uniform(-30, 0), rng.choice([1e-300, 1e-12, 1e-6])):
        e, warns, exc = _call(curve, "epsilon", d)
        call = f"epsilon({d!r})"
        res.comparisons += 1
        if exc is not None or warns or not e >= 0:
            res.failures.append(f"[{case.kind}] {case.expr}.{call} -> {exc or warns or e!r}")
            continue
        if d == 1.0 and e != 0.0:
            res.failures.append(f"[{case.kind}] epsilon(1) must be 0: {case.expr}.{call} -> {e!r}")
            continue
        if not math.isfinite(e):
            continue
        br = curve._log_bracket(e)
        try:
            lb = max(vertex_deltas(sorted({br[2], N - br[2], 0, N}), e))
        except O.TooExpensive:
            res.skipped += 1
            continue
        if lb > mpf(d) * (1 + mpf(1e-12)):
            res.under += 1
            res.failures.append(f"[{case.kind}] UNDER-REPORT epsilon: {case.expr}.{call} -> "
                                f"{e!r}; delta at a vertex there {mpmath.nstr(lb, 17)} > {d!r}")
