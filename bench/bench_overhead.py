"""What PrivacyCurve's public scalar queries cost beyond the typed core.

    python bench/bench_overhead.py           # full run (about a minute)
    python bench/bench_overhead.py --quick   # smoke run (a few seconds)

For each curve, delta(0.05), log_delta(0.05) and epsilon(1e-9) are timed as
the bare core call (CurveCore.log_delta1 / epsilon1 on one value: the C
function and nothing else), as the public scalar query (curve.delta(0.05):
the fast path), as the public query on a one-element array (the validating
array path), and, as the reference from before the scalar fast path, the
core's array method on a one-element array (what every scalar query called
then, beside its Python validation).  Cores written in Python have no scalar
methods: their "core" column is the array call, and their ratio is reported,
not checked.

Every time is the median of `samples` values, each the best of 5 timeit
repeats of a short batch of calls (per call): short batches, so that some
repeat runs undisturbed on a shared machine; the entries of a row are measured
in turn within each sample, so that the machine's drift hits them alike.
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
REPEATS = 5                      # timeit repeats per sample (the best is kept)

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
    """{name: median over samples of the best-of-REPEATS per-call time} of each
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
            best = min(timeit.repeat(fn, number=loops[name], repeat=REPEATS))
            times[name].append(best / loops[name])
    return {name: statistics.median(t) for name, t in times.items()}


def fmt_ns(t):
    return f"{t * 1e9:,.0f} ns" if t < 1e-5 else f"{t * 1e6:,.1f} µs"


def same_bits(a, b):
    return "yes" if np.float64(a).view(np.int64) == np.float64(b).view(np.int64) else "NO"


def queries(curve):
    """(query, bare core call, public scalar, public 1-element array, old core
    call, (public value, the array path's value)) per query."""
    core = curve._core
    c_core = hasattr(core, "log_delta1")
    one_eps, one_target = np.array([EPS]), np.array([TARGET])
    log_target = math.log(TARGET)
    one_log_target = np.log(one_target)
    old_core_log = lambda: core.log_delta(one_eps, MAX)      # noqa: E731
    core_log = (lambda: core.log_delta1(EPS, MAX)) if c_core else old_core_log
    old_core_eps = lambda: core.epsilon(one_log_target, MAX)   # noqa: E731
    core_eps = (lambda: core.epsilon1(log_target, MAX)) if c_core else old_core_eps
    array_log = float(curve.log_delta(one_eps)[0])
    return c_core, [
        ("delta(0.05)", core_log, lambda: curve.delta(EPS), lambda: curve.delta(one_eps),
         old_core_log, (curve.delta(EPS), math.exp(array_log))),
        ("log_delta(0.05)", core_log, lambda: curve.log_delta(EPS),
         lambda: curve.log_delta(one_eps), old_core_log, (curve.log_delta(EPS), array_log)),
        ("epsilon(1e-9)", core_eps, lambda: curve.epsilon(TARGET),
         lambda: curve.epsilon(one_target), old_core_eps,
         (curve.epsilon(TARGET), float(curve.epsilon(one_target)[0]))),
    ]


def run(quick):
    samples, batch_time = (3, 0.001) if quick else (9, 0.002)
    rows, verdicts = [], []
    for name, build in CURVES:
        curve = build()
        c_core, qs = queries(curve)
        kind = type(curve._core).__name__ + ("" if c_core else " (Python)")
        for query, core, public, array, old_core, (value, array_value) in qs:
            t = per_call({"core": core, "public": public, "array": array, "old core": old_core},
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
                         f"{t['public'] / t['old core']:.2f}×", same_bits(value, array_value)])
    return rows, verdicts, samples, batch_time


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smoke run (fewer, shorter samples)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    lines = header()
    rows, verdicts, samples, batch_time = run(args.quick)
    lines.append(f"- mode: {'--quick' if args.quick else 'full'}; time per call = median of "
                 f"{samples} samples, each the best of {REPEATS} timeit repeats of a "
                 f"~{batch_time * 1e3:g} ms batch")
    lines.append(f"- target: public scalar / bare core call <= {TARGET_RATIO}× on C cores: "
                 f"{verdicts.count('PASS')} PASS, {verdicts.count('MISS')} MISS")
    lines.append("- old core call: the core's array method on a one-element array, what "
                 "every scalar query called before the fast path (beside its validation)")
    cols = ["curve", "core", "query", "bare core call", "public scalar", "public / core",
            "target", "public, 1-element array", "array / core", "old core call",
            "public / old core call", "same bits as array path"]
    table = markdown_table(cols, rows)
    wall = f"total wall time of this run: {time.perf_counter() - start:.1f} s"
    print("\n".join(lines + [""] + table + ["", wall]))


if __name__ == "__main__":
    main()
