"""Construction cost and peak memory of statpriv curves at large sizes.

    python bench/bench_cost.py                 # every scenario, one child process each
    python bench/bench_cost.py --only persample,refuse
    python bench/bench_cost.py --timeout 200 --mem-gib 8

Each scenario runs in its own child process (a fresh interpreter, address
space capped at --mem-gib with RLIMIT_AS, killed after --timeout seconds):
it imports statpriv, then times the construction of one curve (wall and
process cpu time: the machine may be shared), one delta(eps) and one
epsilon(delta) query, and reports the peak resident set
of the child (resource.getrusage(RUSAGE_SELF).ru_maxrss, imports included;
the "import only" row is the baseline).  A scenario that statpriv refuses up
front prints the time to the ValueError and its message.  Prints one
markdown table.  Targets (issue "Robustness", cost section): every
construction at n <= 1e9 within 2 s and 1 GiB; per-record pi with 1e5
distinct values within 2 s; what cannot be made cheap is refused up front.
"""
import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SCENARIOS = [
    ("import", "import only", "None"),
    ("sample", "sample_size: n=1e9, m=5e7, pi=.3",
     "statpriv.counting(10**9, 0.3, sample_size=5 * 10**7)"),
    ("poisson", "poisson: n=5e7, rate=.5, pi=.3",
     "statpriv.counting(5 * 10**7, 0.3, sample_rate=0.5, sampling='poisson')"),
    ("poisson9", "poisson: n=1e9, rate=.5, pi=.3",
     "statpriv.counting(10**9, 0.3, sample_rate=0.5, sampling='poisson')"),
    ("geometric", "geometric(.5) noise, n=1e9, m=5e7",
     "statpriv.counting(10**9, 0.3, sample_size=5 * 10**7, noise=statpriv.Geometric(0.5))"),
    ("laplace", "Laplace(3) noise, n=1e9, pi=.5",
     "statpriv.counting(10**9, 0.5, noise=statpriv.Laplace(3.0))"),
    ("gauss", "Gaussian(3) noise, n=1e9, m=5e7",
     "statpriv.counting(10**9, 0.3, sample_size=5 * 10**7, noise=statpriv.Gaussian(3.0))"),
    ("secret", "secret sample: n=1e9, m=5e7, K=3e8",
     "statpriv.secret_sample(10**9, 5 * 10**7, 3 * 10**8)"),
    ("perrecord", "per-record pi, 1e5 distinct (uniform)",
     "statpriv.counting(None, np.random.default_rng(1).uniform(0, 1, 10**5))"),
    ("perrecord_half", "per-record pi, 1e5 distinct near .5",
     "statpriv.counting(None, 0.5 + 0.01 * np.random.default_rng(2).uniform(-1, 1, 10**5))"),
    ("refuse", "Laplace(3) noise, n=1e12 (refused)",
     "statpriv.counting(10**12, 0.3, noise=statpriv.Laplace(3.0))"),
]

CHILD = r"""
import json, resource, sys, time
import numpy as np
import statpriv
out = {}
t0, c0 = time.perf_counter(), time.process_time()
try:
    curve = eval(sys.argv[1])
    out["build"] = time.perf_counter() - t0
    out["build_cpu"] = time.process_time() - c0
    out["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(json.dumps(out), flush=True)
    if curve is not None:
        t1 = time.perf_counter()
        out["delta"] = curve.delta(0.05)
        out["t_delta"] = time.perf_counter() - t1
        t1 = time.perf_counter()
        out["eps"] = curve.epsilon(1e-9)
        out["t_eps"] = time.perf_counter() - t1
except ValueError as exc:
    out["refused"] = time.perf_counter() - t0
    out["message"] = str(exc)
except MemoryError:
    out["memory_error"] = time.perf_counter() - t0
out["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
print(json.dumps(out))
"""


def run(expr, timeout, mem_gib):
    def limit():
        cap = int(mem_gib * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    t0 = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, "-c", CHILD, expr], cwd=ROOT, capture_output=True,
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


def build_cell(res):
    return f"{fmt_s(res['build'])} ({fmt_s(res['build_cpu'])} cpu)"


def row(label, res):
    if "timeout" in res and "build" not in res:
        return [label, f"> {res['timeout']:.0f} s (killed)", "", "", "", ""]
    if "timeout" in res:
        return [label, build_cell(res), f"> {res['timeout'] - res['build']:.0f} s (killed)",
                "", f"{res['peak_mib']:.0f}", "queries killed (construction done)"]
    if "crash" in res:
        return [label, f"crashed after {res['elapsed']:.1f} s: {res['crash'][0][:60]}",
                "", "", "", ""]
    peak = f"{res['peak_mib']:.0f}"
    if "memory_error" in res:
        return [label, f"MemoryError after {res['memory_error']:.1f} s", "", "", peak, ""]
    if "refused" in res:
        return [label, f"refused in {fmt_s(res['refused'])}", "", "", peak,
                res["message"][:110]]
    if res.get("delta") is None:
        return [label, build_cell(res), "", "", peak, ""]
    return [label, build_cell(res), fmt_s(res["t_delta"]), fmt_s(res["t_eps"]), peak,
            f"delta(0.05)={res['delta']:.6g}, eps(1e-9)={res['eps']:.6g}"]


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
    header = ["scenario", "construction (wall, cpu)", "delta(0.05)", "epsilon(1e-9)", "peak MiB", "result"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for key, label, expr in SCENARIOS:
        if keys and key not in keys:
            continue
        print("| " + " | ".join(row(label, run(expr, args.timeout, args.mem_gib))) + " |",
              flush=True)


if __name__ == "__main__":
    main()
