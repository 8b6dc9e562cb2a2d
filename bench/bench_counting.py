"""Benchmark of statpriv's counting and worst-case DP curves against the
computations a user would otherwise write (numpy/scipy, mpmath) and against
Google's dp-accounting package.

    python bench/bench_counting.py           # full run (about 1-2 minutes)
    python bench/bench_counting.py --quick   # smoke run (a few seconds)

Prints the machine, the date and ONE markdown table, all measured in this
one run.  Every time is the median over repeated samples taken with
time.perf_counter after one warm-up call; for calls well under a
millisecond a sample is a batch of `loops` calls and the per-call time is
reported.  The "repeats x loops" column says how many samples went in.
Machines here are noisy: compare ratios within one run, not absolute times
across runs.  See bench/README.md.

dp-accounting is NOT a statpriv dependency; install it by hand for the
bench (`pip install dp-accounting`).  Without it those rows say so.
"""
import argparse
import datetime
import math
import os
import platform
import statistics
import sys
import time

import mpmath
import numpy as np
import scipy
import scipy.stats

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))   # the in-place build in the repo root

import statpriv  # noqa: E402
import statpriv.dp  # noqa: E402
import statpriv.oracle  # noqa: E402
import statpriv.reference  # noqa: E402

PI = 0.3
EPS = 0.05
TARGET = 1e-9
BISECTION_STEPS = 50


# ---------------------------------------------------------------------------
# timing
# ---------------------------------------------------------------------------

class Timing:
    def __init__(self, per_call, repeats, loops, value):
        self.per_call = per_call
        self.repeats = repeats
        self.loops = loops
        self.value = value


def measure(fn, *, repeats, batch_time, budget):
    """Median per-call time of fn() after one warm-up call.

    Calls faster than batch_time are grouped into batches of `loops` calls
    (one perf_counter sample per batch).  The number of samples is
    `repeats`, lowered (to no fewer than 3) so that the measurement stays
    within about `budget` seconds.
    """
    t0 = time.perf_counter()
    value = fn()                                      # warm-up
    first = time.perf_counter() - t0
    loops = 1
    if first < batch_time:
        # calibrate on a second call: the warm-up one may include first-use costs
        t0 = time.perf_counter()
        fn()
        single = max(time.perf_counter() - t0, 1e-7)
        loops = max(1, int(batch_time / single))
    else:
        single = first
    reps = max(3, min(repeats, int(budget / max(single * loops, 1e-9))))
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(loops):
            fn()
        samples.append((time.perf_counter() - t0) / loops)
    return Timing(statistics.median(samples), reps, loops, value)


def fmt_time(t):
    if t < 1e-3:
        return f"{t * 1e6:.1f} µs"
    if t < 1.0:
        return f"{t * 1e3:.2f} ms"
    return f"{t:.2f} s"


def fmt_ratio(base, ref):
    r = base / ref
    if r >= 100:
        return f"{r:,.0f}×"
    if r >= 10:
        return f"{r:.0f}×"
    return f"{r:.2g}×"


def fmt_num(x, digits=12):
    return mpmath.nstr(mpmath.mpf(x), digits) if x != 0 else "0"


def rel_diff(value, log_ref):
    """|value - e^log_ref| / e^log_ref at 30 digits (e^log_ref may underflow float64).

    statpriv's delta is taken as e^(its float ln delta), so this carries the
    ~|ln delta| * 1e-16 relative rounding of that float.
    """
    with mpmath.workdps(30):
        ref = mpmath.exp(mpmath.mpf(log_ref))
        return mpmath.nstr(abs(mpmath.mpf(value) - ref) / ref, 2) + " rel"


def abs_diff(a, b):
    return f"{abs(float(a) - float(b)):.1e} abs"


# ---------------------------------------------------------------------------
# the naive computations a user would write
# ---------------------------------------------------------------------------

def naive_pmf(n, pi):
    """b(k) = P[S = k], S ~ Bin(n-1, pi), k = 0..n-1 (float64, scipy)."""
    return scipy.stats.binom.pmf(np.arange(n), n - 1, pi)


def naive_delta_from_pmf(b, eps):
    """delta for P(k) = b(k-1), Q(k) = b(k), k = 0..n (b(-1) = b(n) = 0)."""
    e = math.exp(eps)
    # delta_plus = sum_k max(P(k) - e^eps Q(k), 0): k = n contributes b(n-1)
    delta_plus = b[-1] + np.sum(np.maximum(b[:-1] - e * b[1:], 0.0))
    # delta_minus = sum_k max(Q(k) - e^eps P(k), 0): k = 0 contributes b(0)
    delta_minus = b[0] + np.sum(np.maximum(b[1:] - e * b[:-1], 0.0))
    return float(max(delta_plus, delta_minus))


def naive_delta(n, pi, eps):
    return naive_delta_from_pmf(naive_pmf(n, pi), eps)


def naive_with_replacement_delta(n, pi, m, eps):
    """delta of m draws with replacement from n records (float64, scipy): given
    the others' ones-count a ~ Bin(n-1, pi) the released count is Bin(m,
    (a+1)/n) with the target a one (P), Bin(m, a/n) without (Q)."""
    a = np.arange(n)
    w = scipy.stats.binom.pmf(a, n - 1, pi)
    c = np.arange(m + 1)[:, None]
    P = scipy.stats.binom.pmf(c, m, (a + 1) / n) @ w
    Q = scipy.stats.binom.pmf(c, m, a / n) @ w
    e = math.exp(eps)
    return float(max(np.sum(np.maximum(P - e * Q, 0.0)), np.sum(np.maximum(Q - e * P, 0.0))))


def bisect_epsilon(delta_fn, target, steps=BISECTION_STEPS):
    """Smallest eps >= 0 with delta_fn(eps) <= target, by bisection (returns hi)."""
    if delta_fn(0.0) <= target:
        return 0.0
    hi = 1.0
    while delta_fn(hi) > target:      # bracket
        hi *= 2.0
        if hi > 1e3:
            return math.inf
    lo = 0.0
    for _ in range(steps):
        mid = 0.5 * (lo + hi)
        if delta_fn(mid) <= target:
            hi = mid
        else:
            lo = mid
    return hi


def naive_epsilon_pmf_once(n, pi, target):
    b = naive_pmf(n, pi)
    return bisect_epsilon(lambda e: naive_delta_from_pmf(b, e), target)


def naive_epsilon_rebuild(n, pi, target):
    return bisect_epsilon(lambda e: naive_delta(n, pi, e), target)


# ---------------------------------------------------------------------------
# the benchmark
# ---------------------------------------------------------------------------

def header():
    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = f"{cpu or platform.machine()} / {line.split(':', 1)[1].strip()}"
                    break
    except OSError:
        pass
    lines = [
        f"# statpriv benchmark — {datetime.datetime.now().astimezone():%Y-%m-%d %H:%M %Z}",
        "",
        f"- machine: {cpu or platform.machine()}, {os.cpu_count()} CPUs, {platform.platform()}",
        f"- python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"mpmath {mpmath.__version__}, statpriv {statpriv.__version__}",
        f"- OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}",
    ]
    return lines


def run(quick):
    repeats = 5 if quick else 15
    batch_time = 0.005 if quick else 0.02
    budget = 1.0 if quick else 10.0
    m = dict(repeats=repeats, batch_time=batch_time, budget=budget)

    rows = []

    def row(query, case, method, timing=None, ratio="", value="", diff="", note=None):
        if timing is None:
            rows.append([query, case, method, note or "n/a", ratio, value, diff, "–"])
        else:
            rows.append([query, case, method, fmt_time(timing.per_call), ratio, value, diff,
                         f"{timing.repeats}×{timing.loops}"])

    # -- 1. single-point delta(eps) of a noiseless count ---------------------
    ns = [10**3, 10**6, 10**7, 10**9]
    for n in ns:
        q = f"δ(ε={EPS}), count π={PI}"
        case = f"n=10^{round(math.log10(n))}"
        curve = statpriv.counting(n, PI)
        t_sp = measure(lambda: curve.delta(EPS), **m)
        log_d = curve.log_delta(EPS)
        row(q, case, "statpriv `delta`", t_sp, "1×",
            (f"δ={t_sp.value!r}" + (" (underflows float64)" if t_sp.value == 0 else "")
             + f", ln δ={log_d!r}"), "")

        if n >= 10**9:
            row(q, case, "naive numpy/scipy", note="n/a (8 GB array)")
        elif quick and n > 10**6:
            row(q, case, "naive numpy/scipy", note="skipped (--quick)")
        else:
            t = measure(lambda: naive_delta(n, PI, EPS), **m)
            row(q, case, "naive numpy/scipy", t, fmt_ratio(t.per_call, t_sp.per_call),
                repr(t.value), rel_diff(t.value, log_d))

        if n == 10**3:
            t = measure(lambda: statpriv.reference.counting_delta(n, PI, EPS), **m)
            row(q, case, "mpmath reference (50 digits)", t, fmt_ratio(t.per_call, t_sp.per_call),
                fmt_num(t.value, 17), rel_diff(t.value, log_d))
        else:
            row(q, case, "mpmath reference (50 digits)", note="n/a (O(n) at 50 digits)")

    # -- 2. epsilon(delta) ----------------------------------------------------
    for n in ns:
        q = f"ε(δ={TARGET:g}), count π={PI}"
        case = f"n=10^{round(math.log10(n))}"
        curve = statpriv.counting(n, PI)
        t_sp = measure(lambda: curve.epsilon(TARGET), **m)
        row(q, case, "statpriv `epsilon`", t_sp, "1×", repr(t_sp.value), "")
        if n > 10**6:
            row(q, case, f"naive bisection ({BISECTION_STEPS} steps)",
                note="n/a (not run above 10^6)")
            continue
        t = measure(lambda: naive_epsilon_pmf_once(n, PI, TARGET), **m)
        row(q, case, f"naive bisection, pmf once + {BISECTION_STEPS} steps", t,
            fmt_ratio(t.per_call, t_sp.per_call), repr(t.value),
            abs_diff(t.value, t_sp.value))
        if quick and n > 10**3:
            row(q, case, f"naive bisection, pmf every step", note="skipped (--quick)")
            continue
        mr = dict(m, repeats=3 if n > 10**3 else repeats)
        t = measure(lambda: naive_epsilon_rebuild(n, PI, TARGET), **mr)
        row(q, case, f"naive bisection, pmf every step", t,
            fmt_ratio(t.per_call, t_sp.per_call), repr(t.value),
            abs_diff(t.value, t_sp.value))

    # -- 3. sampling with replacement: construction + delta vs the mpmath brute force
    for n, draws in ([(200, 30)] if quick else [(200, 30), (1000, 100)]):
        q = f"δ(ε={EPS}), {draws} draws with replacement, π={PI}"
        case = f"n={n}, m={draws}"

        def build_and_query():
            return statpriv.counting(n, PI, sample_size=draws,
                                     sampling="with_replacement").delta(EPS)

        t_sp = measure(build_and_query, **m)
        row(q, case, "statpriv `counting(...).delta` (construction included)", t_sp, "1×",
            repr(t_sp.value), "")
        built = statpriv.counting(n, PI, sample_size=draws, sampling="with_replacement")
        t_q = measure(lambda: built.delta(EPS), **m)
        row(q, case, "statpriv `delta` on the built curve", t_q,
            fmt_ratio(t_q.per_call, t_sp.per_call), repr(t_q.value), "")
        t_naive = measure(lambda: naive_with_replacement_delta(n, PI, draws, EPS), **m)
        t = measure(lambda: statpriv.oracle.counting_delta(
            n, PI, EPS, sample_size=draws, sampling="with_replacement"), **dict(m, repeats=3))
        row(q, case, "naive numpy/scipy (mixture of binomials, float64)", t_naive,
            fmt_ratio(t_naive.per_call, t_sp.per_call), repr(t_naive.value),
            mpmath.nstr(abs(mpmath.mpf(t_naive.value) - t.value) / t.value, 2) + " rel")
        row(q, case, "mpmath brute force (statpriv.oracle, 50 digits)", t,
            fmt_ratio(t.per_call, t_sp.per_call), fmt_num(t.value, 17),
            mpmath.nstr(abs(mpmath.mpf(t_sp.value) - t.value) / t.value, 2) + " rel")

    # -- 4. worst-case DP vs dp-accounting ------------------------------------
    try:
        import dp_accounting  # noqa: F401
        from dp_accounting.pld import privacy_loss_distribution as pld
        from importlib.metadata import version
        dpa_version = version("dp-accounting")
        dpa_error = None
    except Exception as exc:   # not installed, or broken
        pld = None
        dpa_version = None
        dpa_error = f"{type(exc).__name__}: {exc}"

    mechanisms = [
        ("Gaussian σ=3", lambda: statpriv.dp.gaussian(3.0),
         lambda: pld.from_gaussian_mechanism(standard_deviation=3.0, sensitivity=1.0)),
        ("Laplace b=3", lambda: statpriv.dp.laplace(3.0),
         lambda: pld.from_laplace_mechanism(parameter=3.0, sensitivity=1.0)),
    ]
    for name, make_sp, make_pld in mechanisms:
        curve = make_sp()
        for query, sp_call, dpa_call in [
            (f"DP δ(ε={EPS})", lambda c: c.delta(EPS), lambda p: p.get_delta_for_epsilon(EPS)),
            (f"DP ε(δ={TARGET:g})", lambda c: c.epsilon(TARGET),
             lambda p: p.get_epsilon_for_delta(TARGET)),
        ]:
            t_sp = measure(lambda: sp_call(curve), **m)
            row(query, name, "statpriv", t_sp, "1×", repr(t_sp.value), "")
            if pld is None:
                row(query, name, "dp_accounting", note=f"skipped ({dpa_error})")
                continue
            built = make_pld()
            t = measure(lambda: dpa_call(built), **m)
            row(query, name, "dp_accounting PLD, prebuilt", t,
                fmt_ratio(t.per_call, t_sp.per_call), repr(float(t.value)),
                abs_diff(t.value, t_sp.value))
            t = measure(lambda: dpa_call(make_pld()), **m)
            row(query, name, "dp_accounting PLD, built inside timing", t,
                fmt_ratio(t.per_call, t_sp.per_call), repr(float(t.value)),
                abs_diff(t.value, t_sp.value))

    return rows, dpa_version, dpa_error


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fast smoke run (fewer repeats, "
                        "skips the slowest naive rows)")
    args = parser.parse_args(argv)

    start = time.perf_counter()
    lines = header()
    rows, dpa_version, dpa_error = run(args.quick)
    lines.append(f"- dp-accounting: {dpa_version or 'not available — ' + dpa_error}")
    lines.append(f"- mode: {'--quick' if args.quick else 'full'}; time = median per call "
                 "after one warm-up; repeats×loops = samples × calls per sample")
    lines.append("")
    cols = ["query", "case", "method", "median time", "time / statpriv", "value returned",
            "diff vs statpriv", "repeats×loops"]
    lines += markdown_table(cols, rows)
    lines.append("")
    lines.append(f"total wall time of this run: {time.perf_counter() - start:.1f} s")
    print("\n".join(lines))


def markdown_table(cols, rows):
    """Lines of a markdown table."""
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return lines


if __name__ == "__main__":
    main()
