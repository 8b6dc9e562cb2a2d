"""Benchmark of statpriv.correlated_counts against a naive numpy computation
of the same lattice sums.

    python bench/bench_correlated.py

One run, one table; PASS/MISS per target.  Machines here are shared and
noisy: compare the ratios within one run.

Naive implementation (what a user would write with numpy): the law of the
n - 1 others' count vector built one record at a time on the whole lattice
in float64 (2^k shifted adds of the array per record), the two shifted laws
P, Q and the larger of sum((P - e^eps Q)_+) and sum((Q - e^eps P)_+)
with numpy.  The targets: k = 2 at n = 10^4 in 50 ms and k = 3 at
n = 10^3 in 1 s for one delta (construction + one delta).  Beyond the
whole lattice's budget k = 2 runs on a window of it and k = 3 on a box (the
law on a Chernoff box holding all but 3e-70 of it, the bound added); the
naive lattice is not run there (its array alone would take 8 (n - 1)^k
bytes, 8 GB for k = 3 at n = 10^3; its cost, ~2^k n N^k, is estimated from
the n = 600 row for k = 2 and the n = 100 row for k = 3).  The window is
also run at n = 1200 and the box at n = 100 (where it holds the whole
lattice), next to the whole lattice and the naive sums there.
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


def cpu_timed(fn):
    """(value, wall seconds, this process's CPU seconds): on a shared machine
    the wall time is the CPU time plus the wait for a core."""
    t, c = time.perf_counter(), time.process_time()
    value = fn()
    return value, time.perf_counter() - t, time.process_time() - c


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
    return ours, naive, t_naive


def part_row(n, joint, target, label, lattice, naive, t_naive):
    """The window (k = 2) or box (k = 3) route at an n the whole lattice also
    takes (called directly)."""
    from statpriv import correlated
    probs = np.asarray(joint, dtype=float)

    def build_curve():
        if len(joint) == 4:
            return correlated._window_curves(n - 1, probs, [target], None, "window")[0]
        return correlated._box_curve(n - 1, probs, [target], None, "box")
    curve, build = timed(build_curve)
    ours, query = timed(lambda: curve.delta(EPS))
    total = build + query
    ROWS.append((label, f"{total * 1e3:.1f} ms (build {build * 1e3:.1f} + delta "
                 f"{query * 1e3:.1f})", f"{t_naive * 1e3:.0f} ms", f"{t_naive / total:.0f}x",
                 f"{ours:.10e} (rel. diff: lattice {abs(ours - lattice) / lattice:.1e}, naive "
                 f"{abs(ours - naive) / naive:.1e})", "-"))


def target_row(n, joint, target, label, budget, naive_at):
    k = int(math.log2(len(joint)))
    try:
        curve, build, build_cpu = cpu_timed(
            lambda: statpriv.correlated_counts(n, joint, target=target))
    except ValueError as err:
        refused = str(err).split(":")[1].split(",")[0].strip()
        curve, build, build_cpu = None, 0.0, 0.0
    upper, h_build = timed(lambda: statpriv.correlated_counts(n, joint, target=target,
                                                              method="histogram"))
    h_delta, h_query = timed(lambda: upper.delta(EPS))
    histogram = f"histogram {(h_build + h_query) * 1e3:.1f} ms (upper {h_delta:.3e})"
    if curve is None:
        ROWS.append((label, f"exact refused ({refused}); {histogram}", "-", "-", "-",
                     f"MISS vs {budget * 1e3:.0f} ms (exact refused)"))
        return
    ours, query, query_cpu = cpu_timed(lambda: curve.delta(EPS))
    total = build + query
    # the naive lattice: n records of 2^k shifted adds of (n)^k cells, ~n^(k+1),
    # scaled from the naive row at n0 with the same k
    n0, t0 = naive_at
    estimate = t0 * (n / n0) ** (k + 1)
    ROWS.append((label, f"{total * 1e3:.1f} ms (build {build * 1e3:.1f} + delta "
                 f"{query * 1e3:.1f}; CPU {(build_cpu + query_cpu) * 1e3:.1f} ms); {histogram}",
                 f"not run (~{estimate:.0f} s)",
                 f"~{estimate / total:.0e}x", f"{ours:.10e} ({'window' if k == 2 else 'box'})",
                 f"{'PASS' if total <= budget else 'MISS'} vs {budget * 1e3:.0f} ms"))


def main():
    j2 = [0.3, 0.1, 0.2, 0.4]
    j3 = statpriv.markov(0.3, [[0.8, 0.2], [0.3, 0.7]], days=3).tolist()
    j4 = statpriv.markov(0.3, [[0.8, 0.2], [0.3, 0.7]], days=4).tolist()
    _, _, naive_600 = exact_row(600, j2, ((1, 0), (0, 1)), "k=2, n=600, exact, one delta")
    target_row(10**4, j2, ((1, 0), (0, 1)), "k=2, n=1e4, one delta", 0.05, (600, naive_600))
    three = ((1, 0, 0), (0, 0, 1))
    lattice_3, naive_3, naive_100 = exact_row(100, j3, three, "k=3, n=100, exact, one delta")
    target_row(10**3, j3, three, "k=3, n=1e3, one delta", 1.0, (100, naive_100))
    part_row(100, j3, three, "k=3, n=100, box, one delta", lattice_3, naive_3, naive_100)
    lattice, naive, t_naive = exact_row(1200, j2, ((1, 0), (0, 1)),
                                        "k=2, n=1200, exact, one delta")
    part_row(1200, j2, ((1, 0), (0, 1)), "k=2, n=1200, window, one delta", lattice, naive,
               t_naive)
    exact_row(35, j4, ((1, 0, 0, 0), (0, 0, 0, 1)), "k=4, n=35, exact, one delta")
    print(f"bench_correlated {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, eps = {EPS}")
    print("| case | statpriv | naive numpy | naive / statpriv | delta | target |")
    print("|---|---|---|---|---|---|")
    for r in ROWS:
        print("| " + " | ".join(r) + " |")


if __name__ == "__main__":
    main()
