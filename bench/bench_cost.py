"""Construction cost and peak memory of statpriv curves at large sizes.

    python bench/bench_cost.py                 # every scenario, one child process each
    python bench/bench_cost.py --only persample,refuse
    python bench/bench_cost.py --timeout 200 --mem-gib 8

Each scenario runs in its own child process (a fresh interpreter, address
space capped at --mem-gib with RLIMIT_AS, killed after --timeout seconds):
it imports statpriv, builds three tiny curves (the one-time first-use
imports of scipy and mpmath, ~0.25 s cpu, printed as "warm-up"), then
times the construction of one curve (wall and process cpu time: the
machine may be shared), delta(0.05), epsilon(1e-9) and delta at that
epsilon (where delta ~ 1e-9: the costly query), and reports the peak resident set
of the child (resource.getrusage(RUSAGE_SELF).ru_maxrss, imports included;
the "import only" row is the baseline).  A scenario that statpriv refuses up
front prints the time to the ValueError and its message.  Prints one
markdown table of the measurements, then one row per target with the measured
number and PASS/MISS.  Targets (construction cost at large sizes): every
construction at n <= 1e9 within 2 s and 1 GiB; per-record pi with 1e5
distinct values within 2 s; epsilon(1e-9) within 50 ms at n <= 1e9 and 1 s at
n = 1e15; noisy delta queries (both above) within 50 ms after construction;
what cannot be made cheap is refused up front.  Times are judged on CPU time.

Then the single calls of QUERIES (their own CPU-time targets): one child
each builds the curve and times each listed call once (CPU time; the
expression is compiled before the clock starts), against its own target; a
row without a target is reported only.  A call refused up front with its cost
in the message ("about ... terms") is reported REFUSED, the answer the issue
accepts where no algorithm meets the target.
"""
import argparse
import json
import os
import platform
import re
import resource
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (key, label, expression, size class, noisy): size class "n9" = n <= 1e9 (construction
# <= 2 s / 1 GiB, epsilon <= 50 ms), "n15" = n = 1e15 (epsilon <= 1 s; construction and
# memory not targeted), "perrecord" (construction <= 2 s), "big" = n > 1e9 below 1e15
# (reported, no target), "refuse" (must be refused up front).
SCENARIOS = [
    ("import", "import only", "None", None, False),
    ("iid9", "iid: n=1e9, pi=.3", "statpriv.counting(10**9, 0.3)", "n9", False),
    ("iid15", "iid: n=1e15, pi=.3", "statpriv.counting(10**15, 0.3)", "n15", False),
    ("sample", "sample_size: n=1e9, m=5e7, pi=.3",
     "statpriv.counting(10**9, 0.3, sample_size=5 * 10**7)", "n9", False),
    ("poisson", "poisson: n=5e7, rate=.5, pi=.3",
     "statpriv.counting(5 * 10**7, 0.3, sample_rate=0.5, sampling='poisson')", "n9", False),
    ("poisson9", "poisson: n=1e9, rate=.5, pi=.3",
     "statpriv.counting(10**9, 0.3, sample_rate=0.5, sampling='poisson')", "n9", False),
    ("poisson12", "poisson: n=1e12, rate=.5, pi=.3",
     "statpriv.counting(10**12, 0.3, sample_rate=0.5, sampling='poisson')", "big", False),
    ("poisson15", "poisson: n=1e15, rate=.5, pi=.3",
     "statpriv.counting(10**15, 0.3, sample_rate=0.5, sampling='poisson')", "n15", False),
    ("geometric", "geometric(.5) noise, n=1e9, m=5e7",
     "statpriv.counting(10**9, 0.3, sample_size=5 * 10**7, noise=statpriv.Geometric(0.5))",
     "n9", True),
    ("geometric9", "geometric(.5) noise, n=1e9, pi=.3",
     "statpriv.counting(10**9, 0.3, noise=statpriv.Geometric(0.5))", "n9", True),
    ("laplace", "Laplace(3) noise, n=1e9, pi=.5",
     "statpriv.counting(10**9, 0.5, noise=statpriv.Laplace(3.0))", "n9", True),
    ("laplace_poisson", "Laplace(3) noise, poisson n=1e9, rate=.5",
     "statpriv.counting(10**9, 0.3, sample_rate=0.5, sampling='poisson', "
     "noise=statpriv.Laplace(3.0))", "n9", True),
    ("gauss", "Gaussian(3) noise, n=1e9, m=5e7",
     "statpriv.counting(10**9, 0.3, sample_size=5 * 10**7, noise=statpriv.Gaussian(3.0))",
     "n9", True),
    ("gauss_small", "Gaussian(.05) noise, n=1e9, m=1e6",
     "statpriv.counting(10**9, 0.3, sample_size=10**6, noise=statpriv.Gaussian(0.05))",
     "n9", True),
    ("gauss_half", "Gaussian(.05) noise, n=1e9, m=5e8",
     "statpriv.counting(10**9, 0.3, sample_size=5 * 10**8, noise=statpriv.Gaussian(0.05))",
     "n9", True),
    ("gauss_poisson", "Gaussian(3) noise, poisson n=1e6, rate=.5",
     "statpriv.counting(10**6, 0.3, sample_rate=0.5, sampling='poisson', "
     "noise=statpriv.Gaussian(3.0))", "n9", True),
    ("secret", "secret sample: n=1e9, m=5e7, K=3e8",
     "statpriv.secret_sample(10**9, 5 * 10**7, 3 * 10**8)", "n9", False),
    ("perrecord", "per-record pi, 1e5 distinct (uniform)",
     "statpriv.counting(None, np.random.default_rng(1).uniform(0, 1, 10**5))", "perrecord", False),
    ("perrecord_half", "per-record pi, 1e5 distinct near .5",
     "statpriv.counting(None, 0.5 + 0.01 * np.random.default_rng(2).uniform(-1, 1, 10**5))",
     "perrecord", False),
    ("refuse", "Laplace(3) noise, n=1e12 (refused)",
     "statpriv.counting(10**12, 0.3, noise=statpriv.Laplace(3.0))", "refuse", True),
]

# Single calls with their own CPU-time targets:
# (key, label, setup expression, construction target in s or None,
#  [(query label, expression on `curve`, target in s), ...]).  Each query is
# timed once, as a user calls it, right after the construction.
_EMPIRICAL_FRAME = ("(lambda rng: pd.DataFrame({'db': rng.integers(0, 50, 2 * 10**6), "
                    "'id': rng.integers(0, 10**5, 2 * 10**6), "
                    "'value': rng.normal(0.0, 1.0, 2 * 10**6)}))(np.random.default_rng(7))")
QUERIES = [
    ("pk8", "partial_knowledge(1e8, .1).worst_case",
     "statpriv.partial_knowledge(10**8, 0.1).worst_case", None,
     [("delta(0.001)", "curve.delta(0.001)", 1.0), ("epsilon(1e-9)", "curve.epsilon(1e-9)", 2.0)]),
    ("pk9", "partial_knowledge(1e9, .1).worst_case",
     "statpriv.partial_knowledge(10**9, 0.1).worst_case", None,
     [("delta(0.001)", "curve.delta(0.001)", 2.0)]),
    ("shuffle_rr8", "shuffle.randomized_response(1e8, 1.0)",
     "statpriv.shuffle.randomized_response(10**8, 1.0)", None,
     [("delta(0.001)", "curve.delta(0.001)", 1.0), ("epsilon(1e-6)", "curve.epsilon(1e-6)", 2.0)]),
    ("thr_active", "thresholded(1e8, .3, 3e7, active)",
     "None", None,
     [("construction + delta(0.05)",
       "statpriv.thresholded(10**8, 0.3, 3 * 10**7, attacker='active').delta(0.05)", 1.0)]),
    ("empirical_kde", "EmpiricalPrivacy(2e6 rows, 1e5 ids, 50 dbs, mean, kde-gauss)",
     f"statpriv.empirical.EmpiricalPrivacy({_EMPIRICAL_FRAME}, 'mean', estimator='kde-gauss')", None,
     [("delta(0.05)", "curve.delta(0.05)", 10.0)]),
    ("gauss6", "counting(1e6, .3, Gaussian(3))",
     "statpriv.counting(10**6, 0.3, noise=statpriv.Gaussian(3.0))", 0.3,
     [("delta(0.05)", "curve.delta(0.05)", 1e-3)]),
    ("laplace6", "counting(1e6, .3, Laplace(3))",
     "statpriv.counting(10**6, 0.3, noise=statpriv.Laplace(3.0))", None,
     [("delta(0.05)", "curve.delta(0.05)", 2e-4)]),
    # composition's own helper owns this row's target; reported here
    ("compose_laplace", "compose(dp.laplace(100.0), times=1e4)",
     "statpriv.dp.laplace(100.0)", None,
     [("compose(..., times=1e4)", "statpriv.compose(curve, times=10**4)", None)]),
]

QUERY_CHILD = r"""
import json, resource, sys, time
import numpy as np
import pandas as pd
import statpriv
statpriv.counting(50, 0.3, sample_size=20, noise=statpriv.Geometric(0.5))
statpriv.counting(None, [0.2, 0.3, 0.4], noise=statpriv.Gaussian(1.0))
out = {}
c0 = time.process_time()
try:
    curve = eval(sys.argv[1])
    out["build_cpu"] = time.process_time() - c0
    print(json.dumps(out), flush=True)
    for i, expr in enumerate(json.loads(sys.argv[2])):
        code = compile(expr, "<query>", "eval")      # the call is timed, not its parsing
        c1 = time.process_time()
        try:
            value = eval(code)
        except ValueError as exc:                    # a query refused up front
            out[f"r{i}"] = time.process_time() - c1
            out[f"m{i}"] = str(exc)
            print(json.dumps(out), flush=True)
            continue
        out[f"q{i}"] = time.process_time() - c1
        out[f"v{i}"] = value if isinstance(value, float) else repr(value)[:60]
        print(json.dumps(out), flush=True)
except ValueError as exc:
    out["refused"] = time.process_time() - c0
    out["message"] = str(exc)
out["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
print(json.dumps(out))
"""


CHILD = r"""
import json, resource, sys, time
import numpy as np
import statpriv
out = {}
# one-time first-use imports (scipy, mpmath: ~0.25 s cpu), timed apart
c0 = time.process_time()
if sys.argv[1] != "None":
    statpriv.counting(50, 0.3, sample_size=20, noise=statpriv.Geometric(0.5))
    statpriv.counting(50, 0.3, sample_rate=0.5, sampling="poisson", noise=statpriv.Laplace(1.0))
    statpriv.counting(None, [0.2, 0.3, 0.4], noise=statpriv.Gaussian(1.0))
out["warm_cpu"] = time.process_time() - c0
t0, c0 = time.perf_counter(), time.process_time()
try:
    curve = eval(sys.argv[1])
    out["build"] = time.perf_counter() - t0
    out["build_cpu"] = time.process_time() - c0
    out["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(json.dumps(out), flush=True)
    if curve is not None:
        t1, c1 = time.perf_counter(), time.process_time()
        out["delta"] = curve.delta(0.05)
        out["t_delta"] = time.perf_counter() - t1
        out["c_delta"] = time.process_time() - c1
        print(json.dumps(out), flush=True)
        t1, c1 = time.perf_counter(), time.process_time()
        out["eps"] = curve.epsilon(1e-9)
        out["t_eps"] = time.perf_counter() - t1
        out["c_eps"] = time.process_time() - c1
        print(json.dumps(out), flush=True)
        if 0.0 < out["eps"] < float("inf"):     # delta where it is ~1e-9: the costly query
            t1, c1 = time.perf_counter(), time.process_time()
            curve.delta(out["eps"])
            out["t_delta_at"] = time.perf_counter() - t1
            out["c_delta_at"] = time.process_time() - c1
except ValueError as exc:
    out["refused"] = time.perf_counter() - t0
    out["message"] = str(exc)
except MemoryError:
    out["memory_error"] = time.perf_counter() - t0
out["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
print(json.dumps(out))
"""


def run(expr, timeout, mem_gib, child=CHILD, extra=()):
    def limit():
        cap = int(mem_gib * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    t0 = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, "-c", child, expr, *extra], cwd=ROOT, capture_output=True,
                              text=True, timeout=timeout, preexec_fn=limit)
    except subprocess.TimeoutExpired as exc:
        partial = (exc.stdout or b"")
        partial = partial.decode() if isinstance(partial, bytes) else partial
        lines = partial.strip().splitlines()
        res = json.loads(lines[-1]) if lines else {}
        res["timeout"] = time.perf_counter() - t0
        return res
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        return {"crash": proc.stderr.strip().splitlines()[-1:] or ["?"],
                "elapsed": time.perf_counter() - t0}
    return json.loads(lines[-1])


def fmt_s(x):
    return "" if x is None else (f"{x * 1e3:.2f} ms" if x < 1.0 else f"{x:.2f} s")


def timed_cell(res, wall, cpu):
    return f"{fmt_s(res[wall])} ({fmt_s(res[cpu])} cpu)" if wall in res else ""


def verdicts(res, size, noisy):
    """(target, measured, PASS/MISS) triples for one scenario; times are CPU
    times (the machine is shared: wall time includes waiting for a core)."""
    out = []

    def check(target, key, limit, unit="s"):
        if key not in res:
            out.append((target, "not reached", "MISS"))
            return
        val = res[key]
        shown = f"{val:.0f} MiB" if unit == "MiB" else fmt_s(val)
        out.append((target, shown, "PASS" if val <= limit else "MISS"))

    if size == "refuse":
        ok = "refused" in res and res["refused"] < 5.0
        shown = f"refused in {fmt_s(res['refused'])}" if "refused" in res else "not refused"
        return [("refused up front (< 5 s)", shown, "PASS" if ok else "MISS")]
    if "refused" in res:
        return [("construction", f"refused: {res['message'][:60]}", "MISS")]
    if size in ("n9", "perrecord"):
        check("construction <= 2 s cpu", "build_cpu", 2.0)
    if size == "n9":
        check("peak <= 1 GiB", "peak_mib", 1024.0, "MiB")
        check("epsilon <= 50 ms cpu", "c_eps", 0.05)
    if size == "n15":
        check("epsilon <= 1 s cpu", "c_eps", 1.0)
    if noisy:
        check("delta(0.05) <= 50 ms cpu", "c_delta", 0.05)
        check("delta(eps(1e-9)) <= 50 ms cpu", "c_delta_at", 0.05)
    return out


def query_check(label, what, cpu, target, res, refused=None):
    """(call, measured, target, PASS/MISS/REFUSED/report) of one timed call;
    refused: (cpu time, message) of a query refused up front (the issue's
    answer where no algorithm meets the target: it must say the cost)."""
    shown_target = "" if target is None else f"<= {fmt_s(target)}"
    if refused is not None:
        seconds, message = refused
        cost = re.search(r"about \S+ terms(?: \([^)]*\))?", message)
        shown = f"REFUSED in {fmt_s(seconds)} ({cost.group(0) if cost else message[:80]})"
        return (f"{label}: {what}", shown, shown_target, "REFUSED" if cost else "MISS")
    if cpu is None:
        why = f"killed after {res['timeout']:.0f} s" if "timeout" in res else "not reached"
        return (f"{label}: {what}", why, shown_target, "report" if target is None else "MISS")
    verdict = "report" if target is None else ("PASS" if cpu <= target else "MISS")
    return (f"{label}: {what}", fmt_s(cpu), shown_target, verdict)


def row(label, res):
    if "timeout" in res and "build" not in res:
        return [label, f"> {res['timeout']:.0f} s (killed)", "", "", "", "", ""]
    if "crash" in res:
        return [label, f"crashed after {res['elapsed']:.1f} s: {res['crash'][0][:60]}",
                "", "", "", "", ""]
    peak = f"{res['peak_mib']:.0f}"
    if "memory_error" in res:
        return [label, f"MemoryError after {res['memory_error']:.1f} s", "", "", "", peak, ""]
    if "refused" in res:
        return [label, f"refused in {fmt_s(res['refused'])}", "", "", "", peak,
                res["message"][:110]]
    cells = [label, timed_cell(res, "build", "build_cpu"), timed_cell(res, "t_delta", "c_delta"),
             timed_cell(res, "t_eps", "c_eps"), timed_cell(res, "t_delta_at", "c_delta_at"), peak]
    if "timeout" in res:
        return cells + [f"killed after {res['timeout']:.0f} s"]
    if res.get("delta") is None:
        return cells + [""]
    return cells + [f"delta(0.05)={res['delta']:.6g}, eps(1e-9)={res['eps']:.6g}"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated scenario keys")
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--mem-gib", type=float, default=8.0)
    args = ap.parse_args()
    keys = [k for k in args.only.split(",") if k]
    print(f"# statpriv construction cost, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"# {platform.machine()} {os.cpu_count()} cores, {platform.system()}, "
          f"Python {platform.python_version()}; child cap {args.mem_gib} GiB, "
          f"timeout {args.timeout:.0f} s\n")
    header = ["scenario", "construction (wall, cpu)", "delta(0.05)", "epsilon(1e-9)",
              "delta(eps(1e-9))", "peak MiB", "result"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    checks, warm = [], []
    for key, label, expr, size, noisy in SCENARIOS:
        if keys and key not in keys:
            continue
        res = run(expr, args.timeout, args.mem_gib)
        if "warm_cpu" in res and expr != "None":
            warm.append(res["warm_cpu"])
        print("| " + " | ".join(row(label, res)) + " |", flush=True)
        checks += [(label,) + v for v in verdicts(res, size, noisy)]
    qchecks = []
    for key, label, setup, build_target, queries in QUERIES:
        if keys and key not in keys:
            continue
        res = run(setup, args.timeout, args.mem_gib, QUERY_CHILD,
                  [json.dumps([q[1] for q in queries])])
        if "refused" in res:
            qchecks.append((f"{label}: construction", f"refused: {res['message'][:80]}", "",
                            "MISS"))
            continue
        if build_target is not None or "build_cpu" not in res:
            qchecks.append(query_check(label, "construction", res.get("build_cpu"), build_target,
                                       res))
        for i, (qlabel, _, target) in enumerate(queries):
            refused = (res[f"r{i}"], res[f"m{i}"]) if f"r{i}" in res else None
            qchecks.append(query_check(label, qlabel, res.get(f"q{i}"), target, res, refused))
    if qchecks:
        print("\n## Single calls (CPU time of one call after the construction)\n")
        print("| call | measured | target | verdict |")
        print("|---|---|---|---|")
        for c in qchecks:
            print("| " + " | ".join(c) + " |")
        checks += [(c[0], c[2], c[1], c[3]) for c in qchecks if c[3] != "report"]
    print("\nwarm-up (first-use imports, not in the construction column): "
          + ", ".join(sorted({f"{w * 1e3:.0f} ms" for w in warm})) + " cpu")
    print("\n## Targets (issue \"Robustness\", cost section; CPU time)\n")
    print("| scenario | target | measured | verdict |")
    print("|---|---|---|---|")
    for c in checks:
        print("| " + " | ".join(c) + " |")
    misses = sum(c[3] == "MISS" for c in checks)
    refusals = sum(c[3] == "REFUSED" for c in checks)
    print(f"\n{len(checks) - misses - refusals} PASS, {refusals} REFUSED (with the cost), "
          f"{misses} MISS")


if __name__ == "__main__":
    main()
