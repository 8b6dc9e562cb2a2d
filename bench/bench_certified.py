"""Benchmark of the certified intervals (curve.delta_interval: Arb ball sums,
python-flint) against the float path and the mpmath brute force
(``precision="mp"``) on the same query at eps = 0.1: counting(n, 0.3), then
the sampled and noisy kinds (sample_size, Poisson sampling, Laplace and
geometric noise at n = 1e4, Gaussian noise at n = 1e3), k-anonymity (both
curves), correlated counts (one pair, worst cases, the histogram route) and
curve.subsample.

    python bench/bench_certified.py           # full run (~3 min: the mpmath brute force up to ~1 min a row)
    python bench/bench_certified.py --quick   # smoke run (no mpmath, n = 1e4 only)

Prints the machine, the date and two markdown tables measured in this run:
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


def arb_width(laws, log_hint):
    """(upper - lower) / lower of the Arb ends themselves (before rounding to floats)."""
    import flint
    from statpriv.oracle import arb
    flint.ctx.prec = arb.PRECISION_BITS
    try:
        sums = arb._max_of_sums if isinstance(laws, arb.MaxOfLaws) else arb._window_sums
        lower, upper = sums(laws, [EPS], "max", [log_hint])[0]
        return float((upper.upper() - lower.lower()) / lower.lower())
    finally:
        flint.ctx.prec = 53


def other_kinds():
    """(label, curve, its Arb laws) of the sampled and noisy kinds."""
    from statpriv.oracle import arb
    n4, n3 = 10 ** 4, 10 ** 3
    return [
        ("sample_size=1000, n=1e4", statpriv.counting(n4, 0.3, sample_size=1000),
         arb.SubsampleShift(n4, 1000, 0.3)),
        ("poisson rate 0.1, n=1e4",
         statpriv.counting(n4, 0.3, sample_rate=0.1, sampling="poisson"),
         arb.BinomialShift(n4, 0.3, 0.1)),
        ("Laplace(1), n=1e4", statpriv.counting(n4, 0.3, noise=statpriv.Laplace(1.0)),
         arb.NoisyCount(arb.BinomialShift(n4, 0.3), arb.LaplaceNoise(1.0))),
        ("Geometric(0.5), n=1e4", statpriv.counting(n4, 0.3, noise=statpriv.Geometric(0.5)),
         arb.NoisyCount(arb.BinomialShift(n4, 0.3), arb.GeometricNoise(0.5))),
        ("Gaussian(1), n=1e3", statpriv.counting(n3, 0.3, noise=statpriv.Gaussian(1.0)),
         arb.NoisyCount(arb.BinomialShift(n3, 0.3), arb.GaussianNoise(1.0))),
        ("with replacement, m=50, n=1e3",
         statpriv.counting(n3, 0.3, sample_size=50, sampling="with_replacement"),
         arb.WithReplacement(n3, 50, 0.3)),
        ("Laplace(1), sample_size=1000, n=1e4",
         statpriv.counting(n4, 0.3, sample_size=1000, noise=statpriv.Laplace(1.0)),
         arb.NoisyCount(arb.SubsampleShift(n4, 1000, 0.3), arb.LaplaceNoise(1.0))),
    ] + [(label, curve, curve.laws.certified_laws()) for label, curve in new_kinds()]


def new_kinds():
    """(label, curve): k-anonymity, correlated counts, curve.subsample."""
    ka = statpriv.k_anonymity(1000, [0.05, 0.05, 0.6], 5, source=0, target=1)
    joint = [0.3, 0.1, 0.2, 0.4]
    return [
        ("k_anonymity lower, n=1e3, k=5", ka.lower),
        ("k_anonymity upper, n=1e3, k=5", ka.upper),
        ("k_anonymity upper, n=1e4, k=20",
         statpriv.k_anonymity(10 ** 4, [0.05, 0.05, 0.6], 20, source=0, target=1).upper),
        ("correlated_counts k=2, n=40, one pair",
         statpriv.correlated_counts(40, joint, target=((1, 0), (0, 1)))),
        ("correlated_counts k=2, n=40, worst case", statpriv.correlated_counts(40, joint)),
        ("correlated_counts k=3, n=10, worst case",
         statpriv.correlated_counts(10, [0.1, 0.05, 0.2, 0.15, 0.1, 0.1, 0.2, 0.1])),
        ("correlated_counts histogram, n=1e3, one pair",
         statpriv.correlated_counts(1000, joint, target=((1, 0), (0, 1)), method="histogram")),
        ("counting(1e4, 0.3).subsample(0.01)", statpriv.counting(10 ** 4, 0.3).subsample(0.01)),
        ("counting(1e4, 0.3).subsample(0.01, without_replacement)",
         statpriv.counting(10 ** 4, 0.3).subsample(0.01, sampling="without_replacement")),
        ("Laplace(1) count n=1e3 .subsample(0.1)",
         statpriv.counting(10 ** 3, 0.3, noise=statpriv.Laplace(1.0)).subsample(0.1)),
    ]


def mp_cell(curve):
    """precision="mp": its time, or the refusal's estimate (it refuses past max_terms)."""
    start = time.perf_counter()
    try:
        curve.delta(EPS, precision="mp")                 # one call: seconds
        return f"{time.perf_counter() - start:.3g} s"
    except ValueError as err:
        text = str(err)
        if "terms, " not in text:
            return "refused (its size guard)"
        estimate = text.split("terms, ")[1].split(" per eps")[0]
        return f"refused ({estimate})"


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
        from statpriv.oracle import arb
        width = f"Arb ends {arb_width(arb.BinomialShift(n, 0.3), curve.log_delta(EPS)):.2e}; "
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
    print()
    print('| curve (eps = 0.1) | delta_interval | width (Arb ends) | delta, float | '
          'delta, precision="mp" |')
    print("|---|---|---|---|---|")
    for label, curve, laws in other_kinds():
        certified = median_time(lambda: curve.delta_interval(EPS), 5)
        width = arb_width(laws, curve.log_delta(EPS))
        plain = median_time(lambda: curve.delta(EPS), 20)
        mp = "(--quick)" if args.quick else mp_cell(curve)
        print(f"| {label} | {certified:.3g} s | {width:.2e} | {plain:.3g} s | {mp} |")
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
