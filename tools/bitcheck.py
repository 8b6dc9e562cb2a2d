"""Bit-for-bit regression check of every curve kind across a refactor.

    python tools/bitcheck.py write BATTERY.json [--per-kind 6]   # on the old build
    python tools/bitcheck.py check BATTERY.json                  # on the new build

``write`` builds a fixed battery of curves (every kind: iid, per-record,
sampling without replacement, Poisson sampling, the secret sample, Laplace /
geometric / Gaussian noise, worst-case DP; the fixed edge cases of
tests/differential.py and tests/test_pair_edges.py; seeded random draws of
tests/differential.py's generator), evaluates delta, log_delta (plus, minus,
max) at each curve's eps list, epsilon at a list of targets and the zero
points, and stores every float as repr() together with the expressions.
``check`` re-evaluates the stored expressions and reports every float whose
repr differs (bit-identical means identical repr).  Exit status 1 on any
difference.  Run from the repository root after an in-place build.
"""
import json
import math
import os
import sys
import time
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402

import statpriv  # noqa: E402
from statpriv import Gaussian, Geometric, Laplace, counting, secret_sample  # noqa: E402,F401

EPS_COMMON = [-0.7, -0.01, 0.0, 5e-324, 1e-9, 0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 30.0, 1e4,
              math.inf]
TARGETS = [0.0, 1e-300, 1e-100, 1e-30, 1e-12, 1e-9, 1e-6, 1e-3, 0.05, 0.5, 1.0]

# (expression, extra eps) -- the edge cases of tests/test_pair_edges.py and
# tests/test_differential.py, plus one of each path
FIXED = [
    ("counting(10, 1e-300)", [-0.01]),
    ("counting(10, 5e-324)", [3.0]),
    ("counting(10, 0.0)", []),
    ("counting(10, 1.0)", []),
    ("counting(10, 1 - 2.0 ** -53)", []),
    ("counting(1000000, 1e-06)", []),
    ("counting(100, 0.3)", []),
    ("counting(10**9, 0.3)", []),
    ("counting(10**12, 0.3)", []),
    ("counting(None, [0.1, 0.5, 0.9])", []),
    ("counting(None, [5e-324, 0.5, 1 - 2.0 ** -53])", []),
    ("counting(None, np.linspace(0.01, 0.99, 300))", []),
    ("counting(10**9, 0.3, sample_size=10)", [1e-9]),
    ("counting(661493835, 0.4044, sample_size=3)", []),
    ("counting(10**8, 0.02, sample_size=7)", []),
    ("counting(10**7, 0.97, sample_size=40)", []),
    ("counting(14926575, 0.6467, sample_size=54)", [1e-6]),
    ("counting(10**9, 1e-300, sample_size=10)", []),
    ("counting(15, 5e-324, sample_size=9)", []),
    ("counting(10**5, 0.5, sample_size=10**5 - 1)", []),
    ("counting(1000, 0.3, sample_size=100)", []),
    ("counting(50, 0.3, sample_rate=1e-9, sampling='poisson')", []),
    ("counting(50, 0.3, sample_rate=1.0, sampling='poisson')", []),
    ("counting(50, 1.0 - 2.0 ** -53, sample_rate=0.5, sampling='poisson')", []),
    ("counting(10**6, 0.01, sample_rate=0.3, sampling='poisson')", []),
    ("counting(None, [5e-324, 0.5, 1 - 2.0 ** -53], sample_rate=0.5, sampling='poisson')", []),
    ("counting(None, [0.1, 0.2, 0.7, 0.4], sample_rate=0.3, sampling='poisson')", []),
    ("secret_sample(7, 1, positives=5)", [math.log(2) * (1 - 1e-12)]),
    ("secret_sample(10, 10, positives=0)", []),
    ("secret_sample(22, 22, positives=10)", []),
    ("secret_sample(1000, 100, positives=300)", []),
    ("counting(4, 0.5342, noise=Laplace(3.6364))", [(1 / 3.6364) * (1 - 1e-12)]),
    ("counting(50, 0.3, sample_size=5, noise=Laplace(1.5))", []),
    ("counting(None, [0.1, 0.5, 0.9], noise=Laplace(0.7))", []),
    ("counting(8, 0.3, sample_rate=0.2, sampling='poisson', noise=Laplace(1.5))", []),
    ("counting(10**9, 0.3, sample_size=10, noise=Laplace(3.0))", []),
    ("counting(40, 0.3, sample_rate=0.5, sampling='poisson', noise=Laplace(0.5))", []),
    ("counting(1000, 0.3, noise=Laplace(2.0))", []),
    ("counting(10**6, 0.3, noise=Laplace(10.0))", []),
    ("secret_sample(10, 5, positives=9, noise=Laplace(0.5))", []),
    ("counting(6, 0.3, noise=Geometric(0.7))", []),
    ("counting(50, 0.3, sample_size=5, noise=Geometric(0.6))", []),
    ("counting(8, 0.3, sample_rate=0.2, sampling='poisson', noise=Geometric(0.5))", []),
    ("counting(None, [0.1, 0.5, 0.9, 0.3], noise=Geometric(0.3))", []),
    ("counting(10**9, 0.3, sample_size=10, noise=Geometric(0.9))", []),
    ("secret_sample(10, 5, positives=9, noise=Geometric(0.5))", []),
    ("counting(1000, 0.3, noise=Geometric(0.8))", []),
    ("counting(661493835, 0.4044, sample_size=3, noise=Gaussian(8.83))", []),
    ("counting(20, 0.44, sample_rate=0.86, sampling='poisson', noise=Gaussian(4.85))", [11.5]),
    ("secret_sample(11, 1, positives=0, noise=Gaussian(3.43))", [16.2]),
    ("counting(100, 0.3, noise=Gaussian(1e-10))", []),
    ("counting(100, 0.3, noise=Gaussian(2.0))", []),
    ("counting(None, [0.1, 0.5, 0.9], noise=Gaussian(0.7))", []),
    ("statpriv.dp.laplace(17.07938327700137)", [(1 / 17.07938327700137) * (1 - 1e-12)]),
    ("statpriv.dp.laplace(1.0)", []),
    ("statpriv.dp.gaussian(0.05520881730815853)", []),
    ("statpriv.dp.gaussian(1.0)", []),
    ("statpriv.dp.geometric(0.5)", []),
    ("statpriv.dp.geometric(0.999)", []),
]


def _r(x):
    return repr(float(x))


def _cases(per_kind):
    cases = [(expr, EPS_COMMON + extra) for expr, extra in FIXED]
    if per_kind:
        sys.path.insert(0, os.path.join(ROOT, "tests"))
        import differential as D
        for kind, expr, _build, eps in D.EDGE_CASES:
            cases.append((expr, sorted(set(EPS_COMMON + list(eps)))))
        for seed in (1, 2):
            for kind in D.KINDS:
                for i in range(per_kind):
                    c = D.draw_case(seed, kind, i)
                    cases.append((c.expr, list(c.eps) + [-0.3, 0.0, 0.5]))
    return cases


def evaluate(expr, eps_list):
    """{key: repr} for one curve."""
    out = {}
    t0 = time.perf_counter()
    try:
        curve = eval(expr)
    except Exception as exc:          # a refused construction must stay refused
        return {"build": f"{type(exc).__name__}: {exc}"}
    eps = np.array(eps_list, dtype=float)
    for name in ("delta", "log_delta", "delta_plus", "delta_minus", "log_delta_plus",
                 "log_delta_minus"):
        vals = getattr(curve, name)(eps)
        for e, v in zip(eps_list, np.atleast_1d(vals)):
            out[f"{name}({e!r})"] = _r(v)
    for direction in ("max", "plus", "minus"):
        vals = curve.epsilon(np.array(TARGETS), direction=direction)
        for d, v in zip(TARGETS, np.atleast_1d(vals)):
            out[f"epsilon({d!r},{direction})"] = _r(v)
    core = curve._core
    if hasattr(core, "zero_point"):
        zp = core.zero_point
        if callable(zp):
            for code in (statpriv._core.PLUS, statpriv._core.MINUS, statpriv._core.MAX):
                try:
                    out[f"zero_point({code})"] = _r(zp(code))
                except Exception as exc:
                    out[f"zero_point({code})"] = type(exc).__name__
        else:
            out["zero_point"] = repr(tuple(float(z) for z in zp))
    out["_seconds"] = time.perf_counter() - t0
    return out


def main(argv):
    if len(argv) < 2 or argv[0] not in ("write", "check"):
        print(__doc__)
        return 2
    mode, path = argv[0], argv[1]
    warnings.simplefilter("ignore")
    if mode == "write":
        per_kind = int(argv[argv.index("--per-kind") + 1]) if "--per-kind" in argv else 6
        battery = []
        for expr, eps in _cases(per_kind):
            battery.append({"expr": expr, "eps": eps, "out": evaluate(expr, eps)})
        with open(path, "w") as fh:
            json.dump(battery, fh, indent=0)
        n = sum(len(b["out"]) for b in battery)
        print(f"wrote {len(battery)} curves, {n} values to {path}")
        return 0
    with open(path) as fh:
        battery = json.load(fh)
    diffs = values = 0
    t_old = t_new = 0.0
    for b in battery:
        new = evaluate(b["expr"], b["eps"])
        t_old += b["out"].get("_seconds", 0.0)
        t_new += new.get("_seconds", 0.0)
        for key, old in b["out"].items():
            if key == "_seconds":
                continue
            values += 1
            if new.get(key) != old:
                diffs += 1
                if diffs <= 40:
                    print(f"DIFF {b['expr']} {key}: old {old} new {new.get(key)}")
    print(f"{len(battery)} curves, {values} values, {diffs} differ "
          f"(query time {t_old:.2f}s then, {t_new:.2f}s now)")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
