"""What PrivacyCurve's public scalar queries cost beyond the typed core.

    python bench/bench_overhead.py           # full run (about a minute)
    python bench/bench_overhead.py --quick   # smoke run (a few seconds)

For each curve, delta(0.05), log_delta(0.05) and epsilon(1e-9) are timed as
the bare core call (CurveCore.log_delta1 / epsilon1 on one value: the C
function and nothing else), as the public scalar query (curve.delta(0.05):
the fast path), as the public query on a one-element array (the validating
array path), and as before the scalar fast path existed: the core's array
method on a one-element array (what the scalar query called) and the public
query on a 0-d array, which runs the validating path that every scalar took
before.  Cores written in Python have no scalar methods: their "core" column
is the array call, and their ratio is reported, not checked.

Every time is the median of `samples` values, each the best of 3 timeit
repeats of a batch of calls (per call); the entries of a row are measured in
turn within each sample, so that the machine's drift hits them alike.
Compare ratios within one run, not absolute times across runs.  One markdown
table; the `target` column says PASS where public / core <= 1.5 on a C core.
See bench/README.md.
"""
import argparse
import math
import os
import statistics
import sys
import time
import timeit

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bench_counting import header, markdown_table  # noqa: E402

import numpy as np  # noqa: E402

import statpriv  # noqa: E402
from statpriv import dp  # noqa: E402

EPS = 0.05
TARGET = 1e-9
MAX = 2                          # statpriv._core.MAX: the direction of delta / epsilon
TARGET_RATIO = 1.5               # public scalar / bare core call, C cores

CURVES = [
    ("dp.gaussian(3)", lambda: dp.gaussian(3.0)),
    ("dp.laplace(2)", lambda: dp.laplace(2.0)),
    ("counting(1000, 0.5)", lambda: statpriv.counting(1000, 0.5)),
    ("counting(10**6, 0.3)", lambda: statpriv.counting(10**6, 0.3)),
    ("counting(1000, 0.5, noise=Laplace(3))",
     lambda: statpriv.counting(1000, 0.5, noise=statpriv.Laplace(3.0))),
    ("compose(counting(1000, 0.5), times=10)",
     lambda: statpriv.compose(statpriv.counting(1000, 0.5), times=10)),
    ("from_log_pmfs(3 atoms)",
     lambda: statpriv.from_log_pmfs(np.log([0.2, 0.5, 0.3]), np.log([0.3, 0.4, 0.3]))),
]


def per_call(fns, samples, batch_time):
    """{name: median over samples of the best-of-3 per-call time} of each
    fn() in fns (a dict), measured in turn within each sample."""
    loops = {}
    for name, fn in fns.items():
        fn()                                            # warm-up (first-use costs)
        t0 = time.perf_counter()
        fn()
        single = max(time.perf_counter() - t0, 1e-8)
        loops[name] = max(1, int(batch_time / single))
    times = {name: [] for name in fns}
    for _ in range(samples):
        for name, fn in fns.items():
            best = min(timeit.repeat(fn, number=loops[name], repeat=3))
            times[name].append(best / loops[name])
    return {name: statistics.median(t) for name, t in times.items()}


def fmt_ns(t):
    return f"{t * 1e9:,.0f} ns" if t < 1e-5 else f"{t * 1e6:,.1f} µs"


def same_bits(a, b):
    return "yes" if np.float64(a).view(np.int64) == np.float64(b).view(np.int64) else "NO"


def queries(curve):
    """(query, bare core call, public scalar, public 1-element array, old core
    call, old public scalar, (public value, the array path's value)) per query."""
    core = curve._core
    c_core = hasattr(core, "log_delta1")
    one_eps, zero_d_eps = np.array([EPS]), np.array(EPS)
    one_target, zero_d_target = np.array([TARGET]), np.array(TARGET)
    log_target = math.log(TARGET)
    one_log_target = np.log(one_target)
    old_core_log = lambda: core.log_delta(one_eps, MAX)      # noqa: E731
    core_log = (lambda: core.log_delta1(EPS, MAX)) if c_core else old_core_log
    old_core_eps = lambda: core.epsilon(one_log_target, MAX)   # noqa: E731
    core_eps = (lambda: core.epsilon1(log_target, MAX)) if c_core else old_core_eps
    array_log = float(curve.log_delta(one_eps)[0])
    return c_core, [
        ("delta(0.05)", core_log, lambda: curve.delta(EPS), lambda: curve.delta(one_eps),
         old_core_log, lambda: curve.delta(zero_d_eps),
         (curve.delta(EPS), math.exp(array_log))),
        ("log_delta(0.05)", core_log, lambda: curve.log_delta(EPS),
         lambda: curve.log_delta(one_eps), old_core_log, lambda: curve.log_delta(zero_d_eps),
         (curve.log_delta(EPS), array_log)),
        ("epsilon(1e-9)", core_eps, lambda: curve.epsilon(TARGET),
         lambda: curve.epsilon(one_target), old_core_eps, lambda: curve.epsilon(zero_d_target),
         (curve.epsilon(TARGET), float(curve.epsilon(one_target)[0]))),
    ]


def run(quick):
    samples, batch_time = (3, 0.002) if quick else (7, 0.01)
    rows, verdicts = [], []
    for name, build in CURVES:
        curve = build()
        c_core, qs = queries(curve)
        kind = type(curve._core).__name__ + ("" if c_core else " (Python)")
        for query, core, public, array, old_core, old_public, (value, array_value) in qs:
            t = per_call({"core": core, "public": public, "array": array,
                          "old core": old_core, "old public": old_public},
                         samples, batch_time)
            ratio = t["public"] / t["core"]
            if c_core:
                verdict = "PASS" if ratio <= TARGET_RATIO else "MISS"
                verdicts.append(verdict)
            else:
                verdict = "(Python core: reported)"
            rows.append([name, kind, query, fmt_ns(t["core"]), fmt_ns(t["public"]),
                         f"{ratio:.2f}×", verdict, fmt_ns(t["array"]),
                         f"{t['array'] / t['core']:.1f}×", fmt_ns(t["old core"]),
                         fmt_ns(t["old public"]), f"{t['old public'] / t['core']:.1f}×",
                         f"{t['old public'] / t['public']:.1f}×",
                         same_bits(value, array_value)])
    return rows, verdicts, samples, batch_time


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smoke run (fewer, shorter samples)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    lines = header()
    rows, verdicts, samples, batch_time = run(args.quick)
    lines.append(f"- mode: {'--quick' if args.quick else 'full'}; time per call = median of "
                 f"{samples} samples, each the best of 3 timeit repeats of a "
                 f"~{batch_time * 1e3:g} ms batch")
    lines.append(f"- target: public scalar / bare core call <= {TARGET_RATIO}× on C cores: "
                 f"{verdicts.count('PASS')} PASS, {verdicts.count('MISS')} MISS")
    lines.append("- old = before the scalar fast path: the core's array method on a "
                 "one-element array, and the public query on a 0-d array (the validating "
                 "path every scalar took)")
    lines.append("")
    cols = ["curve", "core", "query", "bare core call", "public scalar", "public / core",
            "target", "public, 1-element array", "array / core", "old: core array call",
            "old: public scalar", "old public / core", "speed-up", "same bits as array path"]
    lines += markdown_table(cols, rows)
    lines.append("")
    lines.append(f"total wall time of this run: {time.perf_counter() - start:.1f} s")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
