"""Composition as an accountant does it: statpriv against dp-accounting, prv-accountant and RDP.

    python bench/bench_accountants.py           # full run (a minute or two)
    python bench/bench_accountants.py --quick   # without the 10^5-step row's peers

One run, one markdown table, every method on the same work, PASS/MISS per
target.  Each cell is ONE timed run from nothing to the answer (building the
composition and asking the query; imports and a small warm-up done before),
so compare ratios within the run, not absolute times across runs.

Work (eps at delta, the composed mechanism):

* 1000 x ``dp.gaussian(20)``, delta = 1e-9.  Truth: the k-fold Gaussian is
  ``dp.gaussian(20 / sqrt(1000))``.  dp-accounting:
  ``from_gaussian_mechanism(20).self_compose(1000)`` and its query.
  Targets: statpriv's upper within 1e-6 relative of the truth, in <= 0.5x
  dp-accounting's time.
* 100 x ``dp.gaussian(20)`` on the 1000-step row's grid h, delta = 1e-9: the
  naive way beside statpriv and dp-accounting -- the grid PMF statpriv
  composes (its pessimistic measure of one step) convolved step by step,
  one FFT convolution per step (scipy.signal.fftconvolve), eps by root
  finding.  100 steps, not 1000: the work grows as k^2 (about 7 s at 100
  steps here, so 1000 would take minutes).  Truth: ``dp.gaussian(2)``.
* 1000 x ``counting(10**6, 0.3)``, delta = 1e-9.  dp-accounting composes
  statpriv's own export ``to_dp_accounting()`` (export timed with it).
  Targets: statpriv's upper <= dp-accounting's eps, in <= 0.5x its time.
* 10 x ``counting(10**6, 0.3, noise=Gaussian(3))`` + 100 x ``dp.gaussian(20)``
  (an Accountant), delta = 1e-9.  Target: the bracket's width <= 1e-3 of eps.
* DP-SGD: Poisson rate 0.01, sigma = 1, 1000 steps, delta = 1e-5,
  add/remove.  dp-accounting: ``PLDAccountant`` on
  ``PoissonSampledDpEvent(0.01, GaussianDpEvent(1))``; prv-accountant:
  ``PoissonSubsampledGaussianMechanism`` (eps_error 0.01, as its README);
  RDP: dp-accounting's ``RdpAccountant``.  Targets: upper <= dp-accounting's
  eps x (1 + 1e-6), lower within 1e-3 relative of upper, <= 0.5x the
  PLDAccountant's time.
* DP-SGD at rate 0.001, sigma = 0.8, 10^5 steps, delta = 1e-5.  Target:
  statpriv <= 2 s.
* 10^4 x ``dp.laplace(100)``, delta = 1e-6, in a fresh process.  Targets:
  <= 2 s CPU, <= 1 GiB peak resident memory.

"lower / upper" is statpriv's ``epsilon_bounds`` (the true eps is proven
inside) and prv-accountant's (lower, upper); dp-accounting's pessimistic PLD
gives an upper value only, RDP an upper bound only.
"""
import argparse
import math
import os
import resource
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bench_counting import fmt_time, header, markdown_table  # noqa: E402

import statpriv  # noqa: E402


# each cell is timed (wall clock) up to REPEATS times, the least counting,
# while its runs so far took under REPEAT_BUDGET seconds: on a shared machine
# one run of a 30 ms cell can take 3x its time, and a ratio of two single
# runs swung from 0.30x to 0.88x between two runs of this script.  (Process
# CPU time is no fairer: it counts the FFT's worker threads and BLAS threads
# spinning.)
REPEATS = 3
REPEAT_BUDGET = 2.0


def _timed(fn):
    best, spent, value = math.inf, 0.0, None
    for _ in range(REPEATS):
        start = time.perf_counter()
        value = fn()
        took = time.perf_counter() - start
        best, spent = min(best, took), spent + took
        if spent >= REPEAT_BUDGET:
            break
    return best, value


def _peers():
    import logging
    logging.getLogger("absl").setLevel(logging.ERROR)    # RDP orders that do not converge
    found = {}
    for name in ("dp_accounting", "prv_accountant"):
        try:
            found[name] = (__import__(name), None)
        except Exception as err:               # noqa: BLE001 - reported in the header
            found[name] = (None, f"{type(err).__name__}: {err}")
    return found


# ---------------------------------------------------------------------------
# the peers, one function per (peer, work): each returns eps (or (lower, upper))
# ---------------------------------------------------------------------------

def dpa_gaussian(sigma, k, delta):
    from dp_accounting.pld import privacy_loss_distribution as pldlib
    return pldlib.from_gaussian_mechanism(sigma).self_compose(k).get_epsilon_for_delta(delta)


def dpa_export(make_curve, k, delta):
    return make_curve().to_dp_accounting().self_compose(k).get_epsilon_for_delta(delta)


def dpa_mix(k_count, sigma, k_gauss, delta):
    from dp_accounting.pld import privacy_loss_distribution as pldlib
    h = 1e-4
    count = statpriv.counting(10 ** 6, 0.3, noise=statpriv.Gaussian(3.0))
    pld = count.to_dp_accounting(h).self_compose(k_count)
    gauss = pldlib.from_gaussian_mechanism(sigma, value_discretization_interval=h)
    return pld.compose(gauss.self_compose(k_gauss)).get_epsilon_for_delta(delta)


def naive_sequential(grid, h, k, delta):
    """eps at delta of ``grid`` (a GridPMF on h Z) composed k times by k - 1
    sequential FFT convolutions, float64, no tilt and no bounds."""
    import numpy as np
    import scipy.optimize
    import scipy.signal
    mass = grid.mass.copy()
    for _ in range(k - 1):
        mass = scipy.signal.fftconvolve(mass, grid.mass)
    mass = np.maximum(mass, 0.0)               # (round-off leaves tiny negatives)
    losses = (k * grid.offset + np.arange(mass.size)) * h
    infinity = -math.expm1(k * math.log1p(-grid.infinity))

    def excess(eps):
        above = losses > eps
        return infinity + float(np.sum(mass[above] * -np.expm1(eps - losses[above]))) - delta
    return scipy.optimize.brentq(excess, 0.0, float(losses[-1]), xtol=1e-12)


def _sgd_event(q, sigma):
    import dp_accounting
    return dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma))


def dpa_sgd_pld(q, sigma, steps, delta):
    from dp_accounting.pld import PLDAccountant
    acc = PLDAccountant()
    acc.compose(_sgd_event(q, sigma), steps)
    return acc.get_epsilon(delta)


def dpa_sgd_rdp(q, sigma, steps, delta):
    from dp_accounting.rdp import RdpAccountant
    acc = RdpAccountant()    # its default orders
    acc.compose(_sgd_event(q, sigma), steps)
    return acc.get_epsilon(delta)


def dpa_gaussian_rdp(sigma, k, delta):
    import dp_accounting
    from dp_accounting.rdp import RdpAccountant
    acc = RdpAccountant()    # its default orders
    acc.compose(dp_accounting.GaussianDpEvent(sigma), k)
    return acc.get_epsilon(delta)


def prv_gaussian(sigma, k, delta, q=None):
    from prv_accountant import PRVAccountant
    from prv_accountant import privacy_random_variables as prvs
    prv = (prvs.GaussianMechanism(noise_multiplier=sigma) if q is None else
           prvs.PoissonSubsampledGaussianMechanism(noise_multiplier=sigma,
                                                   sampling_probability=q))
    acc = PRVAccountant(prvs=[prv], max_self_compositions=[k], eps_error=0.01,
                        delta_error=delta / 1000)
    low, _, high = acc.compute_epsilon(delta=delta, num_self_compositions=[k])
    return low, high


# ---------------------------------------------------------------------------
# statpriv
# ---------------------------------------------------------------------------

def sp_upper(curve_fn, delta):
    return curve_fn().epsilon(delta)


def sp_bounds(curve_fn, delta):
    return curve_fn().epsilon_bounds(delta)


def sp_mix(delta):
    acc = statpriv.Accountant()
    acc.compose(statpriv.counting(10 ** 6, 0.3, noise=statpriv.Gaussian(3.0)), times=10)
    acc.compose(statpriv.dp.gaussian(20.0), times=100)
    return acc.epsilon_bounds(delta)


def laplace_row():
    """10^4 x dp.laplace(100): CPU seconds and peak RSS of this process."""
    cpu0 = time.process_time()
    eps = statpriv.compose(statpriv.dp.laplace(100.0), times=10 ** 4).epsilon(1e-6)
    cpu = time.process_time() - cpu0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(f"{eps!r} {cpu!r} {peak}")


# ---------------------------------------------------------------------------
# the run
# ---------------------------------------------------------------------------

def _cell(t, ref_t):
    return "-" if t is None else f"{fmt_time(t)} ({t / ref_t:.2f}×)" if ref_t else fmt_time(t)


def _fmt_eps(v):
    if v is None:
        return "-"
    if isinstance(v, tuple):
        return f"{v[0]:.9g} / {v[1]:.9g}"
    return f"{v:.9g}"


def _verdict(ok, what):
    return f"{'PASS' if ok else 'MISS'}: {what}"


def _run_peer(found, peer, fn, *args):
    if found[peer][0] is None:
        return None, None
    return _timed(lambda: fn(*args))


def run(quick):
    found = _peers()
    lines = header()
    from importlib import metadata
    for name, (module, err) in found.items():
        dist = name.replace("_", "-")
        lines.append(f"- {dist}: " + (metadata.version(dist) if module else f"missing ({err})"))
    # warm-up: imports and first calls of every method outside the timings
    statpriv.compose(statpriv.dp.gaussian(5.0), times=3).epsilon_bounds(1e-6)
    if found["dp_accounting"][0]:
        dpa_gaussian(5.0, 3, 1e-6)
        dpa_sgd_rdp(0.1, 1.0, 3, 1e-5)
    if found["prv_accountant"][0]:
        prv_gaussian(5.0, 3, 1e-6)
    rows, verdicts = [], []

    def add(work, method, t, value, ref_t, note=""):
        rows.append([work, method, _cell(t, ref_t), _fmt_eps(value), note])

    # 1000 x dp.gaussian(20)
    work, k, d = "1000 × dp.gaussian(20), δ=1e-9", 1000, 1e-9
    exact = statpriv.dp.gaussian(20.0 / math.sqrt(k)).epsilon(d)
    t_sp, up = _timed(lambda: sp_upper(lambda: statpriv.compose(statpriv.dp.gaussian(20.0),
                                                                 times=k), d))
    _, bounds = _timed(lambda: sp_bounds(lambda: statpriv.compose(statpriv.dp.gaussian(20.0),
                                                                   times=k), d))
    t_dpa, v_dpa = _run_peer(found, "dp_accounting", dpa_gaussian, 20.0, k, d)
    t_prv, v_prv = _run_peer(found, "prv_accountant", prv_gaussian, 20.0, k, d)
    t_rdp, v_rdp = _run_peer(found, "dp_accounting", dpa_gaussian_rdp, 20.0, k, d)
    add(work, "exact: dp.gaussian(20/√1000)", None, exact, None)
    add(work, "statpriv epsilon / epsilon_bounds", t_sp, bounds, t_dpa,
        f"upper {up:.12g}, {(up - exact) / exact:+.1e} rel. of exact")
    add(work, "dp-accounting PLD", t_dpa, v_dpa, t_dpa,
        "" if v_dpa is None else f"{(v_dpa - exact) / exact:+.1e} rel. of exact")
    add(work, "prv-accountant (eps_error 0.01)", t_prv, v_prv, t_dpa)
    add(work, "RDP (dp-accounting)", t_rdp, v_rdp, t_dpa)
    verdicts.append(_verdict(exact <= up <= exact * (1 + 1e-6),
                             f"{work}: upper within 1e-6 rel. of exact ({(up - exact) / exact:.1e})"))
    if t_dpa:
        verdicts.append(_verdict(t_sp <= 0.5 * t_dpa,
                                 f"{work}: time {t_sp / t_dpa:.2f}× dp-accounting (<= 0.5×)"))

    # 100 x dp.gaussian(20) on that row's grid: statpriv, dp-accounting, naive
    k_naive = 100
    work = f"{k_naive} × dp.gaussian(20) on the grid of the 1000-step row, δ=1e-9"
    h_row = statpriv.compose(statpriv.dp.gaussian(20.0), times=k).grid_sides[("plus", True)].h
    exact = statpriv.dp.gaussian(20.0 / math.sqrt(k_naive)).epsilon(d)
    t_sp, up = _timed(lambda: statpriv.compose(statpriv.dp.gaussian(20.0), times=k_naive,
                                               value_discretization_interval=h_row).epsilon(d))
    t_dpa, v_dpa = _run_peer(found, "dp_accounting", dpa_gaussian, 20.0, k_naive, d)
    # (the grid PMF built outside the timing: the column times the composing)
    one = statpriv.compose(statpriv.dp.gaussian(20.0), times=k_naive,
                           value_discretization_interval=h_row).grid_sides[("plus", True)]
    t_naive, v_naive = _timed(lambda: naive_sequential(one.parts[0][0], h_row, k_naive, d))
    add(work, f"exact: dp.gaussian(20/√{k_naive})", None, exact, None)
    add(work, "statpriv epsilon", t_sp, up, t_dpa, f"{(up - exact) / exact:+.1e} rel. of exact")
    add(work, "dp-accounting PLD", t_dpa, v_dpa, t_dpa,
        "" if v_dpa is None else f"{(v_dpa - exact) / exact:+.1e} rel. of exact")
    add(work, f"naive: {k_naive - 1} sequential FFT convolutions of statpriv's grid PMF", t_naive,
        v_naive, t_dpa, f"{(v_naive - exact) / exact:+.1e} rel. of exact, "
                        f"{t_naive / t_sp:.0f}× statpriv's time")

    # 1000 x counting(10**6, 0.3)
    work = "1000 × counting(10^6, 0.3), δ=1e-9"
    def count():
        return statpriv.counting(10 ** 6, 0.3)
    t_sp, up = _timed(lambda: sp_upper(lambda: statpriv.compose(count(), times=k), d))
    _, bounds = _timed(lambda: sp_bounds(lambda: statpriv.compose(count(), times=k), d))
    t_dpa, v_dpa = _run_peer(found, "dp_accounting", dpa_export, count, k, d)
    add(work, "statpriv epsilon / epsilon_bounds", t_sp, bounds, t_dpa, f"upper {up:.12g}")
    add(work, "dp-accounting on to_dp_accounting()", t_dpa, v_dpa, t_dpa)
    if t_dpa:
        verdicts.append(_verdict(up <= v_dpa, f"{work}: upper {up:.9g} <= dp-accounting "
                                              f"{v_dpa:.9g}"))
        verdicts.append(_verdict(t_sp <= 0.5 * t_dpa,
                                 f"{work}: time {t_sp / t_dpa:.2f}× dp-accounting (<= 0.5×)"))

    # the mix
    work = "10 × counting(10^6, 0.3, Gaussian(3)) + 100 × dp.gaussian(20), δ=1e-9"
    t_sp, bounds = _timed(lambda: sp_mix(d))
    t_dpa, v_dpa = _run_peer(found, "dp_accounting", dpa_mix, 10, 20.0, 100, d)
    width = (bounds[1] - bounds[0]) / bounds[1]
    add(work, "statpriv Accountant epsilon_bounds", t_sp, bounds, t_dpa,
        f"width {width:.1e} of eps")
    add(work, "dp-accounting on to_dp_accounting() + Gaussian", t_dpa, v_dpa, t_dpa)
    verdicts.append(_verdict(width <= 1e-3, f"{work}: bracket width {width:.1e} <= 1e-3"))

    # DP-SGD
    for q, sigma, steps, dd in ((0.01, 1.0, 1000, 1e-5), (0.001, 0.8, 10 ** 5, 1e-5)):
        work = f"DP-SGD q={q}, σ={sigma}, {steps:,} steps, δ={dd:g}"
        t_sp, bounds = _timed(lambda: statpriv.dp.gaussian(
            sigma, sampling_prob=q).compose(steps).epsilon_bounds(dd))
        big = steps > 10 ** 4
        skip = quick and big
        t_dpa, v_dpa = (None, None) if skip else _run_peer(found, "dp_accounting", dpa_sgd_pld,
                                                           q, sigma, steps, dd)
        t_prv, v_prv = (None, None) if skip else _run_peer(found, "prv_accountant",
                                                           prv_gaussian, sigma, steps, dd, q)
        t_rdp, v_rdp = _run_peer(found, "dp_accounting", dpa_sgd_rdp, q, sigma, steps, dd)
        add(work, "statpriv dp.gaussian(σ, sampling_prob=q).compose(steps).epsilon_bounds",
            t_sp, bounds, t_dpa, f"width {(bounds[1] - bounds[0]) / bounds[1]:.1e} of eps")
        add(work, "dp-accounting PLDAccountant", t_dpa, v_dpa, t_dpa)
        add(work, "prv-accountant (eps_error 0.01)", t_prv, v_prv, t_dpa)
        add(work, "RDP (dp-accounting RdpAccountant)", t_rdp, v_rdp, t_dpa)
        if not big and t_dpa:
            verdicts.append(_verdict(bounds[1] <= v_dpa * (1 + 1e-6),
                                     f"{work}: upper {bounds[1]:.9g} <= dp-accounting "
                                     f"{v_dpa:.9g} × (1 + 1e-6)"))
            verdicts.append(_verdict(bounds[1] - bounds[0] <= 1e-3 * bounds[1],
                                     f"{work}: lower within 1e-3 rel. of upper"))
            verdicts.append(_verdict(t_sp <= 0.5 * t_dpa,
                                     f"{work}: time {t_sp / t_dpa:.2f}× PLDAccountant (<= 0.5×)"))
        if big:
            verdicts.append(_verdict(t_sp <= 2.0, f"{work}: {t_sp:.2f} s <= 2 s"))

    # 10^4 x dp.laplace(100) in a fresh process
    out = subprocess.run([sys.executable, __file__, "--laplace-row"], capture_output=True,
                         text=True, check=True).stdout.split()
    eps, cpu, peak = float(out[0]), float(out[1]), int(out[2])
    work = "10^4 × dp.laplace(100), δ=1e-6 (fresh process)"
    add(work, "statpriv epsilon", None, eps, None,
        f"{cpu:.2f} s CPU, peak RSS {peak / 2 ** 20:.0f} MiB")
    verdicts.append(_verdict(cpu <= 2.0, f"{work}: {cpu:.2f} s CPU <= 2 s"))
    verdicts.append(_verdict(peak <= 2 ** 30, f"{work}: peak {peak / 2 ** 20:.0f} MiB <= 1 GiB"))

    lines.append("- each cell from nothing to the answer, wall clock, the least of up to 3 runs "
                 "(fewer past 2 s); (r×): time / "
                 "dp-accounting's on the same work")
    cols = ["work", "method", "time (÷ dp-accounting)", "eps (lower / upper)", "note"]
    return lines + [""] + markdown_table(cols, rows) + [""] + verdicts


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="skip the peers on the 10^5-step DP-SGD row")
    parser.add_argument("--laplace-row", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.laplace_row:
        laplace_row()
        return
    start = time.perf_counter()
    lines = run(args.quick)
    print("\n".join(lines + ["", f"total wall time of this run: "
                                 f"{time.perf_counter() - start:.1f} s"]))


if __name__ == "__main__":
    main()
