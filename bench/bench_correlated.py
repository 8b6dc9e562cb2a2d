"""Benchmark of statpriv.correlated_counts against a naive numpy computation
of the same lattice sums.

    python bench/bench_correlated.py

One run, one table; PASS/MISS per target.  Machines here are shared and
noisy: compare the ratios within one run.

Naive implementation (what a user would write with numpy): the law of the
n - 1 others' count vector built one record at a time on the whole lattice
in float64 (2^k shifted adds of the array per record), the two shifted laws
P, Q and the larger of sum((P - e^eps Q)_+) and sum((Q - e^eps P)_+)
with numpy.  The targets of the task: k = 2 at
n = 10^4 in 50 ms and k = 3 at n = 10^3 in 1 s for one delta -- beyond the
exact lattice's budget (refused up front with the cost), so those rows time
the histogram route (the certified upper curve) instead; the exact rows are
at the largest n the budget takes.
"""
import math
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import statpriv  # noqa: E402

ROWS = []
EPS = 0.5


def timed(fn):
    t = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - t


def naive_delta(n, joint, x, x_prime, eps):
    k = int(math.log2(len(joint)))
    N = n - 1
    law = np.zeros((N + 1,) * k)
    law[(0,) * k] = 1.0
    cells = [(tuple((v >> (k - 1 - j)) & 1 for j in range(k)), joint[v])
             for v in range(2 ** k) if joint[v] > 0]
    for _ in range(N):
        new = np.zeros_like(law)
        for bits, p in cells:
            dst = tuple(slice(b, None) for b in bits)
            src = tuple(slice(0, N + 1 - b) for b in bits)
            new[dst] += p * law[src]
        law = new
    P = np.zeros((N + 2,) * k)
    Q = np.zeros((N + 2,) * k)
    P[tuple(slice(a, a + N + 1) for a in x)] = law
    Q[tuple(slice(a, a + N + 1) for a in x_prime)] = law
    e = math.exp(eps)
    return max(float(np.sum(np.clip(P - e * Q, 0.0, None))),
               float(np.sum(np.clip(Q - e * P, 0.0, None))))


def exact_row(n, joint, target, label):
    curve, build = timed(lambda: statpriv.correlated_counts(n, joint, target=target))
    ours, query = timed(lambda: curve.delta(EPS))
    naive, t_naive = timed(lambda: naive_delta(n, joint, *target, EPS))
    rel = abs(naive - ours) / ours
    ROWS.append((label, f"{(build + query) * 1e3:.0f} ms (build {build * 1e3:.0f} + "
                 f"delta {query * 1e3:.1f})", f"{t_naive * 1e3:.0f} ms",
                 f"{t_naive / (build + query):.2f}x", f"{ours:.10e} (naive rel. diff {rel:.1e})",
                 "-"))


def target_row(n, joint, target, label, budget):
    try:
        statpriv.correlated_counts(n, joint, target=target)
        refused = "no"
    except ValueError as err:
        refused = str(err).split(":")[1].split(",")[0].strip()
    curve, build = timed(lambda: statpriv.correlated_counts(n, joint, target=target,
                                                            method="histogram"))
    ours, query = timed(lambda: curve.delta(EPS))
    total = build + query
    ROWS.append((label, f"histogram {total * 1e3:.1f} ms", "-", "-",
                 f"upper {ours:.6e}; exact refused ({refused})",
                 f"{'MISS' if refused != 'no' else 'PASS'} (exact), histogram "
                 f"{'PASS' if total <= budget else 'MISS'} vs {budget * 1e3:.0f} ms"))


def main():
    j2 = [0.3, 0.1, 0.2, 0.4]
    j3 = statpriv.markov(0.3, [[0.8, 0.2], [0.3, 0.7]], days=3).tolist()
    j4 = statpriv.markov(0.3, [[0.8, 0.2], [0.3, 0.7]], days=4).tolist()
    target_row(10**4, j2, ((1, 0), (0, 1)), "k=2, n=1e4, one delta", 0.05)
    target_row(10**3, j3, ((1, 0, 0), (0, 0, 1)), "k=3, n=1e3, one delta", 1.0)
    exact_row(600, j2, ((1, 0), (0, 1)), "k=2, n=600, exact, one delta")
    exact_row(1200, j2, ((1, 0), (0, 1)), "k=2, n=1200, exact, one delta")
    exact_row(100, j3, ((1, 0, 0), (0, 0, 1)), "k=3, n=100, exact, one delta")
    exact_row(35, j4, ((1, 0, 0, 0), (0, 0, 0, 1)), "k=4, n=35, exact, one delta")
    print(f"bench_correlated {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, eps = {EPS}")
    print("| case | statpriv | naive numpy | naive / statpriv | delta | target |")
    print("|---|---|---|---|---|---|")
    for r in ROWS:
        print("| " + " | ".join(r) + " |")


if __name__ == "__main__":
    main()
