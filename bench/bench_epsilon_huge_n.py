"""epsilon(d) of the noiseless count counting(n, pi) at huge n (issue targets:
<= 50 ms at n <= 1e9, <= 1 s at n = 1e15).

    python bench/bench_epsilon_huge_n.py            # n = 1e6 .. 1e15
    python bench/bench_epsilon_huge_n.py --quick    # n <= 1e12

Prints one markdown table: the best of `repeats` time.process_time samples
(CPU time: the machines here are shared) per (n, d), direction "max".
"""
import argparse
import time

import statpriv

TARGETS = (1e-3, 1e-8, 1e-9, 1e-100, 1e-300)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--pi", type=float, default=0.3)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    sizes = [10**6, 10**9, 10**12] + ([] if args.quick else [10**13, 10**15])
    print(f"pi = {args.pi}; CPU ms, best of {args.repeats}\n")
    print("| n | " + " | ".join(f"d = {d:g}" for d in TARGETS) + " |")
    print("|---|" + "---|" * len(TARGETS))
    for n in sizes:
        curve = statpriv.counting(n, args.pi)
        cells = []
        for d in TARGETS:
            best = float("inf")
            for _ in range(args.repeats):
                t = time.process_time()
                curve.epsilon(d)
                best = min(best, time.process_time() - t)
            cells.append(f"{best * 1e3:.1f}")
        print(f"| {n:.0e} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
