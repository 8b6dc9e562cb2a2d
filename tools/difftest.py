#!/usr/bin/env python
"""Differential test of a statpriv build against certified Arb intervals and the
independent mpmath oracle.

Usage (from the worktree whose build you want to test):

    cd /path/to/worktree && PYTHONPATH=$PWD python /path/to/tools/difftest.py \\
        --kinds binomial,subsample --count 300 --seed 1 [--zero-point] [--epsilon] [--jobs 2] \\
        [--truth arb|mpmath] [--second-opinion 10]

statpriv is imported from sys.path (PYTHONPATH); the oracle and the case generator
(tests/independent_oracle.py, tests/differential.py) from ../tests relative to this
file.  Prints per-kind counts (comparisons, failures, under-reports, max errors), then
every failing case with a ready-to-paste reproducer and the truth, and the
comparisons by truth source (the certified Arb intervals where the kind has them,
the mpmath oracle as their second opinion on every tenth case and elsewhere).
Exit code 1 on any failure (tolerance, under-report, warning leaking to the user,
exception, the two oracles disagreeing).
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "tests"))

import differential  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kinds", default="all",
                    help="comma-separated subset of: " + ",".join(differential.ALL_KINDS))
    ap.add_argument("--count", type=int, default=50, help="random curves per kind")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--zero-point", action="store_true",
                    help="query eps0 (1 - 10^-k), the float below eps0, eps0; check epsilon(0)")
    ap.add_argument("--epsilon", action="store_true", help="check epsilon(d) against the oracle")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    ap.add_argument("--max-lines", type=int, default=200, help="failing cases printed")
    ap.add_argument("--verbose", action="store_true", help="one line per finished case")
    ap.add_argument("--truth", choices=("arb", "mpmath"), default="arb",
                    help="arb: the certified intervals where the kind has them (default)")
    ap.add_argument("--second-opinion", type=int, default=differential.ARB_SECOND_OPINION,
                    help="with --truth arb, the mpmath oracle also checks cases 0, N, 2N, ... "
                         "of each covered kind (0: none)")
    args = ap.parse_args(argv)
    kinds = differential.ALL_KINDS if args.kinds == "all" else tuple(args.kinds.split(","))
    bad = [k for k in kinds if k not in differential.ALL_KINDS]
    if bad:
        ap.error(f"unknown kinds {bad}; choose from {','.join(differential.ALL_KINDS)}")
    import statpriv
    print(f"statpriv from {os.path.dirname(statpriv.__file__)}; kinds {','.join(kinds)}; "
          f"count {args.count}; seed {args.seed}; zero-point {args.zero_point}; "
          f"epsilon {args.epsilon}", flush=True)
    t0 = time.time()

    def progress(r):
        if args.verbose:
            print(f"  {r.kind}: {r.comparisons} comparisons, {len(r.failures)} failures, "
                  f"{r.seconds:.1f}s", flush=True)

    differential.ARB_SECOND_OPINION = args.second_opinion     # (inherited by --jobs workers)
    results = differential.run(kinds, args.count, args.seed, zero_point=args.zero_point,
                               epsilon=args.epsilon, jobs=args.jobs, progress=progress,
                               truth=args.truth)
    failures = differential.report(results, max_lines=args.max_lines)
    print(f"\n{time.time() - t0:.1f} s wall", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
