"""Bit-for-bit check of statpriv's public results (the phase-2 refactor).

    python tools/bitcheck_py.py write FILE    # results of this build, repr floats
    python tools/bitcheck_py.py check FILE    # compare this build against FILE

Every curve kind (iid, per-record, sampling without replacement, Poisson,
secret sample, noise of every kind on each, windowed supports, worst-case DP,
from_log_pmfs, the normal approximation), delta / log_delta / epsilon in both
directions, log_pmfs where defined, the interval / utility helpers and the
CLI; plus the fixed edge cases of tests/differential.py.  Exit status 1 on
any difference.  Run from the worktree root (in-place build).
"""
import hashlib
import io
import json
import os
import sys
from contextlib import redirect_stdout

import numpy as np

sys.path.insert(0, os.getcwd())
import statpriv  # noqa: E402
from statpriv import dp  # noqa: E402

L, G, Ge = statpriv.Laplace, statpriv.Gaussian, statpriv.Geometric
EPS = [-np.inf, -1.0, -0.01, 0.0, 1e-9, 1e-4, 0.01, 0.1, 0.3, 0.7, 1.0, 2.0, 5.0, 30.0, np.inf]
DELTAS = [0.0, 1e-300, 1e-30, 1e-12, 1e-6, 1e-3, 0.05, 0.5, 1.0]

CURVES = [
    # iid
    "statpriv.counting(1, 0.5)", "statpriv.counting(2, 0.3)", "statpriv.counting(1000, 0.5)",
    "statpriv.counting(10**6, 0.5)", "statpriv.counting(10**12, 0.3)",
    "statpriv.counting(50, 0.0)", "statpriv.counting(50, 1.0)",
    "statpriv.counting(10, 1e-300)", "statpriv.counting(10, 5e-324)",
    "statpriv.counting(10, 0.9999999999999999)", "statpriv.counting(1000000, 1e-06)",
    # sampling without replacement
    "statpriv.counting(1000, 0.5, sample_size=100)", "statpriv.counting(60, 0.3, sample_size=12)",
    "statpriv.counting(60, 0.3, sample_size=60)", "statpriv.counting(100, 0.0, sample_size=10)",
    "statpriv.counting(100, 1.0, sample_size=10)", "statpriv.counting(1000, 0.3, sample_rate=0.05)",
    "statpriv.counting(1000000000, 0.3, sample_size=10)",
    "statpriv.counting(14926575, 0.6467, sample_size=54)",
    "statpriv.counting(3 * 10**6, 0.4, sample_size=2 * 10**6)",
    # Poisson
    "statpriv.counting(1000, 0.3, sample_rate=0.1, sampling='poisson')",
    "statpriv.counting(20, 0.44, sample_rate=0.86, sampling='poisson')",
    "statpriv.counting(100, 0.0, sample_rate=0.3, sampling='poisson')",
    "statpriv.counting(100, 1.0, sample_rate=0.3, sampling='poisson')",
    "statpriv.counting(100, 0.3, sample_rate=1.0, sampling='poisson')",
    "statpriv.counting(10**7, 0.3, sample_rate=1e-3, sampling='poisson')",
    # per-record
    "statpriv.counting(None, [0.1, 0.5, 0.9, 0.3, 0.3])",
    "statpriv.counting(None, [0.0, 1.0, 0.2])",
    "statpriv.counting(None, np.linspace(0.01, 0.99, 300))",
    "statpriv.counting(None, [5e-324, 0.5, 0.5])",
    "statpriv.counting(None, [0.1, 0.5, 0.9, 0.3], sample_rate=0.2, sampling='poisson')",
    "statpriv.counting(None, [5e-324, 0.3, 0.7], sample_rate=0.5, sampling='poisson')",
    "statpriv.counting(None, np.full(2000, 0.3) + np.arange(2000) * 1e-5)",
    # secret sample
    "statpriv.secret_sample(100, 10, positives=30)", "statpriv.secret_sample(7, 1, positives=5)",
    "statpriv.secret_sample(22, 22, positives=10)", "statpriv.secret_sample(11, 1, positives=0)",
    "statpriv.secret_sample(5000, 300, positives=2500)",
    # approximations, DP
    "statpriv.counting(1000, 0.3, approx='normal')",
    "statpriv.counting(1000, 0.3, noise=statpriv.Gaussian(3.0), approx='normal')",
    "dp.laplace(2.0)", "dp.gaussian(1.5)", "dp.geometric(0.6)",
    "dp.laplace(17.07938327700137)", "dp.gaussian(0.05520881730815853)",
    "L(2.0).dp_curve()", "G(0.7).dp_curve()", "Ge(0.3).dp_curve()",
    # from_log_pmfs
    "statpriv.from_log_pmfs(np.log([0.2, 0.5, 0.3]), np.log([0.3, 0.4, 0.3]))",
    "statpriv.from_log_pmfs(np.log([0.1, 0.2, 0.7]), np.log([0.6, 0.3, 0.1]), support_start=5)",
]
NOISY_BASES = [
    "statpriv.counting(400, 0.5{})", "statpriv.counting(4, 0.5342{})", "statpriv.counting(1, 0.5{})",
    "statpriv.counting(60, 0.3, sample_size=12{})",
    "statpriv.counting(60, 0.3, sample_rate=0.25, sampling='poisson'{})",
    "statpriv.counting(None, [0.1, 0.5, 0.9, 0.3, 0.3, 0.7, 0.2, 0.4]{})",
    "statpriv.counting(None, [0.1, 0.5, 0.9], sample_rate=0.3, sampling='poisson'{})",
    "statpriv.secret_sample(40, 8, positives=15{})", "statpriv.secret_sample(11, 11, positives=4{})",
    "statpriv.counting(100, 0.0, sample_size=10{})", "statpriv.counting(15, 1e-9{})",
    "statpriv.counting(10**5, 0.3{})", "statpriv.counting(3 * 10**6, 0.3{})",
]
NOISES = ["L(3.0)", "L(0.4)", "G(2.0)", "G(1e-10)", "Ge(0.5)", "Ge(0.1)"]
for base in NOISY_BASES:
    for noise in NOISES:
        if "3 * 10**6" in base and noise not in ("L(3.0)", "Ge(0.5)"):
            continue
        CURVES.append(base.format(f", noise={noise}"))
CURVES += [
    "statpriv.counting(661493835, 0.4044, sample_size=3, noise=statpriv.Gaussian(8.83))",
    "statpriv.counting(20, 0.44, sample_rate=0.86, sampling='poisson', noise=statpriv.Gaussian(4.85))",
    "statpriv.secret_sample(11, 1, positives=0, noise=statpriv.Gaussian(3.43))",
    "statpriv.counting(100, 0.3, noise=statpriv.Gaussian(1e-10))",
    "statpriv.counting(10, 0.3, sample_size=5, noise=statpriv.Geometric(0.427303138549747))",
    "statpriv.counting(10**6, 0.3, sample_rate=1e-6, sampling='poisson', noise=Ge(0.5))",
]


def _r(x):
    if isinstance(x, np.ndarray):
        return [_r(v) for v in x.tolist()]
    if isinstance(x, (list, tuple)):
        return [_r(v) for v in x]
    if isinstance(x, (float, np.floating)):
        return repr(float(x))
    return repr(x)


def _digest(arr):
    a = np.ascontiguousarray(np.asarray(arr))
    return hashlib.sha256(a.tobytes()).hexdigest()[:16] + f":{a.dtype}:{a.shape}"


def _try(fn):
    try:
        return _r(fn())
    except Exception as exc:          # the error is part of the behaviour
        return f"{type(exc).__name__}: {exc}"


def results():
    out = {}
    eps = np.array(EPS)
    for expr in CURVES:
        try:
            curve = eval(expr)
        except Exception as exc:
            out[expr] = f"{type(exc).__name__}: {exc}"
            continue
        row = {"repr": repr(curve)}
        for name in ("delta", "delta_plus", "delta_minus", "log_delta", "log_delta_plus",
                     "log_delta_minus"):
            row[name] = _try(lambda: getattr(curve, name)(eps))
            row[name + "_scalar"] = _try(lambda: getattr(curve, name)(0.05))
        for direction in ("max", "plus", "minus"):
            row["epsilon_" + direction] = [_try(lambda: curve.epsilon(d, direction=direction))
                                           for d in DELTAS]
        row["log_pmfs"] = _try(lambda: [(_digest(v) if isinstance(v, np.ndarray) else v)
                                        for v in curve.log_pmfs()])
        row["tv"] = _try(curve.total_variation)
        out[expr] = row
    misc = {}
    for kind in statpriv.interval.NOISE_KINDS if hasattr(statpriv.interval, "NOISE_KINDS") else ():
        pass
    for kind, delta in (("laplace", None), ("geometric", None), ("gaussian", 1e-6)):
        for w, p, c in ((0.2, 0.8, 100.0), (0.05, 0.99, 37.0), (0.3, 0.5, 10.0), (1.0, 0.9, 1.0)):
            misc[f"ie {kind} {w} {p} {c}"] = _try(
                lambda: statpriv.interval_epsilon(w, p, c, kind, delta))
            misc[f"ic {kind} {w} {p} {c}"] = _try(
                lambda: statpriv.interval_confidence(0.1 * p + 0.01, w, c, kind, delta))
            misc[f"iw {kind} {w} {p} {c}"] = _try(
                lambda: statpriv.interval_width(0.1 * p + 0.01, p, c, kind, delta))
            misc[f"in {kind} {w} {p} {c}"] = _try(
                lambda: repr(statpriv.interval_noise(w, p, c, kind)))
        misc[f"ie arr {kind}"] = _try(lambda: statpriv.interval_epsilon(
            np.array([0.1, 0.2]), 0.8, np.array([[10.0], [100.0]]), kind, delta))
        misc[f"ie err {kind}"] = _try(lambda: statpriv.interval_epsilon(0.1, 0.8, 10.0, kind,
                                                                      0.5 if delta is None else None))
    misc["ie err kind"] = _try(lambda: statpriv.interval_epsilon(0.1, 0.8, 10.0, "cauchy"))
    misc["in err kind"] = _try(lambda: statpriv.interval_noise(0.1, 0.8, 10.0, "cauchy"))
    for kind in ("laplace", "gaussian", "geometric"):
        misc[f"eun {kind}"] = _try(lambda: repr(statpriv.equal_utility_noise(1000, 0.3, 100, kind)))
    misc["eue"] = _try(lambda: statpriv.equal_utility_epsilon(1000, 0.3, 100))
    for noise in NOISES:
        misc[f"ul {noise}"] = _try(lambda: statpriv.utility_loss(1000, 0.3, sample_size=100,
                                                                noise=eval(noise)))
        n = eval(noise)
        misc[f"noise {noise}"] = _try(lambda: [repr(n), n.kind, n.param, n.variance, hash(n) == hash(type(n)(n.param))])
    misc["amplify"] = _try(lambda: dp.amplify(1.0, 1e-6, 0.01))
    from statpriv import cli
    for argv in (["delta", "--n", "1000", "--pi", "0.5", "--eps", "0.1"],
                 ["delta", "--n", "100", "--pi", "0.3", "--eps", "0.5", "--noise", "laplace:3"],
                 ["delta", "--n", "100", "--pi", "0.3", "--eps", "0.5", "--noise", "gaussian:2"],
                 ["epsilon", "--n", "100", "--pi", "0.3", "--delta", "1e-3", "--noise", "geometric:0.5"],
                 ["epsilon", "--n", "100", "--pi", "0.3", "--delta", "1e-3", "--sample-size", "10"],
                 ["delta", "--n", "100", "--pi", "0.3", "--eps", "0.5", "--noise", "cauchy:2"],
                 ["delta", "--help"]):
        buf, err = io.StringIO(), io.StringIO()
        from contextlib import redirect_stderr
        try:
            with redirect_stdout(buf), redirect_stderr(err):
                status = cli.main(argv)
        except SystemExit as exc:
            status = exc.code
        misc["cli " + " ".join(argv)] = [status, buf.getvalue(), err.getvalue()]
    out["misc"] = misc
    return out


def main():
    mode, path = sys.argv[1], sys.argv[2]
    res = results()
    if mode == "write":
        with open(path, "w") as f:
            json.dump(res, f, indent=0, sort_keys=True)
        print(f"wrote {len(res)} groups to {path}")
        return 0
    with open(path) as f:
        ref = json.load(f)
    res = json.loads(json.dumps(res))
    bad = 0
    for key in sorted(set(ref) | set(res)):
        a, b = ref.get(key), res.get(key)
        if a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            for k in sorted(set(a) | set(b)):
                if a.get(k) != b.get(k):
                    bad += 1
                    print(f"DIFF {key} [{k}]:\n  was {a.get(k)}\n  now {b.get(k)}")
        else:
            bad += 1
            print(f"DIFF {key}:\n  was {a}\n  now {b}")
    total = sum(len(v) if isinstance(v, dict) else 1 for v in ref.values())
    print(f"{'OK' if not bad else 'FAILED'}: {total} entries, {bad} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
