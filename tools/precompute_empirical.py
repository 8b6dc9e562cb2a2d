"""Store mpmath values of the empirical-DP hockey-stick integrals for the tests.

    python tools/precompute_empirical.py

Writes tests/data/empirical_oracle.json: for each case the two point sets,
their kernel widths, the kernel and, per eps, (plus, minus) from
statpriv.oracle.kde_hockey_stick (mpmath quadrature from the definition,
30 digits).  Takes about two minutes.
"""
import json
import os

import mpmath
import numpy as np

from statpriv.oracle import kde_hockey_stick

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "data", "empirical_oracle.json")


def cases():
    rng = np.random.default_rng(20261123)
    a = np.sort(rng.normal(size=8))
    b = np.sort(a + rng.normal(scale=0.3, size=8))
    yield "laplace", a, np.full(8, 0.4), b, np.full(8, 0.4), [0.0, 0.1, 0.5]
    yield "gauss", a, np.full(8, 0.4), b, np.full(8, 0.4), [0.0, 0.1, 0.5]
    # ties: half of the points unchanged; a negative eps
    a = np.sort(rng.normal(size=10))
    b = a.copy()
    b[::2] += rng.normal(scale=0.2, size=5)
    b = np.sort(b)
    yield "laplace", a, np.full(10, 0.25), b, np.full(10, 0.25), [-0.2, 0.3, 1.0]
    yield "gauss", a, np.full(10, 0.25), b, np.full(10, 0.25), [-0.2, 0.3, 1.0]
    # variable widths (Breiman-Meisel-Purcell style), one per point
    a = np.sort(rng.standard_t(3, size=8))
    b = np.sort(a + rng.normal(scale=0.1, size=8))
    wa = 0.2 + 0.3 * rng.random(8)
    wb = 0.2 + 0.3 * rng.random(8)
    yield "gauss", a, wa, b, wb, [0.05, 0.3]
    yield "laplace", a, wa, b, wb, [0.05, 0.3]
    # small deltas: a narrow kernel, large eps
    a = np.sort(rng.normal(size=8))
    b = np.sort(a + 0.02 * rng.normal(size=8))
    yield "laplace", a, np.full(8, 0.3), b, np.full(8, 0.3), [0.2, 0.4]
    yield "gauss", a, np.full(8, 0.5), b, np.full(8, 0.5), [0.1, 0.2]
    # near the zero point of a Laplace pair (the largest log ratio, on a grid)
    xs = np.linspace(-6.0, 6.0, 120001)
    log_p = np.log(np.mean(np.exp(-np.abs(xs[:, None] - a) / 0.3), axis=1))
    log_q = np.log(np.mean(np.exp(-np.abs(xs[:, None] - b) / 0.3), axis=1))
    top = float(np.max(log_p - log_q))
    yield "laplace", a, np.full(8, 0.3), b, np.full(8, 0.3), [top * (1 - 1e-4), top * (1 - 1e-6)]


def main():
    out = []
    for kernel, a, wa, b, wb, eps_list in cases():
        values = []
        for eps in eps_list:
            plus, minus = kde_hockey_stick(a, wa, b, wb, eps, kernel)
            values.append([eps, mpmath.nstr(plus, 25), mpmath.nstr(minus, 25)])
        out.append({"kernel": kernel, "a": a.tolist(), "wa": wa.tolist(), "b": b.tolist(),
                    "wb": wb.tolist(), "values": values})
        print(kernel, values, flush=True)
    with open(OUT, "w") as fh:
        json.dump(out, fh, indent=1)


if __name__ == "__main__":
    main()
