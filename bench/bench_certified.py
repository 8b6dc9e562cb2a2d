"""Benchmark of the certified intervals (curve.delta_interval: Arb ball sums,
python-flint) against the float path and the mpmath brute force
(``precision="mp"``) on the same query, counting(n, 0.3) at eps = 0.1.

    python bench/bench_certified.py           # full run (~30 s: mpmath at n = 1e4 ~10 s)
    python bench/bench_certified.py --quick   # smoke run (no mpmath, n = 1e4 only)

Prints the machine, the date and one markdown table measured in this run:
median time per call (after one warm-up call), the interval's relative width
(upper - lower) / lower of the Arb ends and of the float ends
(ln-scale where delta underflows), and the ratio of each time to the certified one.  Needs the
optional extra: pip install "statpriv[certified]".
"""
import argparse
import datetime
import math
import os
import platform
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))   # the in-place build in the repo root

import statpriv  # noqa: E402

EPS = 0.1


def median_time(call, repeats):
    call()                                     # warm-up
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def arb_width(n, log_hint):
    """(upper - lower) / lower of the Arb ends themselves (before rounding to floats)."""
    import flint
    from statpriv.oracle import arb
    flint.ctx.prec = arb.PRECISION_BITS
    try:
        lower, upper = arb._window_sums(arb.BinomialShift(n, 0.3), [EPS], "max", [log_hint])[0]
        return float((upper.upper() - lower.lower()) / lower.lower())
    finally:
        flint.ctx.prec = 53


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smoke run: n = 1e4, no mpmath")
    args = parser.parse_args()
    import flint
    print(f"{platform.platform()}, Python {platform.python_version()}, python-flint "
          f"{flint.__version__}, {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC")
    print()
    print("| n | query | time | vs certified | certified width |")
    print("|---|---|---|---|---|")
    for n in ([10 ** 4] if args.quick else [10 ** 4, 10 ** 6]):
        curve = statpriv.counting(n, 0.3)
        certified = median_time(lambda: curve.log_delta_interval(EPS), 1 if n > 10 ** 5 else 5)
        lower, upper = curve.log_delta_interval(EPS)
        width = f"Arb ends {arb_width(n, curve.log_delta(EPS)):.2e}; "
        if curve.delta(EPS) > 0:
            lo, hi = curve.delta_interval(EPS)
            width += f"float ends {(hi - lo) / lo:.2e}"
        else:
            width += f"float ln ends {upper - lower:.2e} apart (delta underflows)"
        rows = [("delta_interval (Arb, 192 bits)", certified, width)]
        rows.append(("delta, float path", median_time(lambda: curve.delta(EPS), 50), ""))
        if n == 10 ** 4 and not args.quick:
            rows.append(('delta, precision="mp"',
                         median_time(lambda: curve.delta(EPS, precision="mp"), 1), ""))
        for name, t, w in rows:
            print(f"| {n:.0e} | {name} | {t:.3g} s | {t / certified:.3g}x | {w} |")
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
