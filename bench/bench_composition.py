"""Benchmark of statpriv.compose (tight composition by convolving privacy-loss
distributions) against dp-accounting composing the same PLD and against a naive
numpy/scipy loop.

    python bench/bench_composition.py           # full run (well under a minute)
    python bench/bench_composition.py --quick   # fewer samples

Prints the machine, the date and ONE markdown table measured in this run, and
PASS/MISS per target:
  * compose(counting(10**6, 0.3), times=100).epsilon(1e-9) <= 1 s (construction
    included);
  * curve.delta(eps) of that 100-fold composition <= 50 us after construction.
dp-accounting (optional) composes the SAME pessimistic grid PLD (statpriv's
exact PLD rounded up to statpriv's grid, handed over with
create_from_rounded_probability), so values should agree to the truncation
policies; the naive loop convolves dense grids with scipy.signal.fftconvolve
99 times.  Compare ratios within one run, not absolute times across runs.
"""
import argparse
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bench_counting import fmt_ratio, fmt_time, header, markdown_table, measure  # noqa: E402

import mpmath  # noqa: E402
import numpy as np  # noqa: E402
import scipy.signal  # noqa: E402

import statpriv  # noqa: E402

N, PI, K, TARGET = 10 ** 6, 0.3, 100, 1e-9
T_COMPOSE, T_DELTA = 1.0, 50e-6


def _grid_pmf(curve, h):
    """statpriv's exact PLD of the curve rounded up to h Z: (dict index -> mass, inf) per side."""
    pld = curve.privacy_loss_distribution()
    out = []
    for side in (pld.plus, pld.minus):
        idx = np.ceil(side.losses / np.longdouble(h)).astype(np.int64)
        mass = np.bincount(idx - idx.min(), weights=side.probs.astype(np.float64))
        keep = mass > 0
        where = np.flatnonzero(keep) + idx.min()
        out.append(({int(i): float(m) for i, m in zip(where, mass[keep])},
                    side.infinity_mass + float(side.tail_mass)))
    return out


def dp_accounting_epsilon(curve, h):
    from dp_accounting.pld import privacy_loss_distribution as pldlib
    (plus, inf_p), (minus, inf_m) = _grid_pmf(curve, h)
    pld = pldlib.PrivacyLossDistribution.create_from_rounded_probability(
        plus, inf_p, h, pessimistic_estimate=True,
        rounded_probability_mass_function_add=minus, infinity_mass_add=inf_m, symmetric=False)
    return pld.self_compose(K).get_epsilon_for_delta(TARGET)


def naive_epsilon(curve, h):
    """Dense grids, K-1 scipy fftconvolve calls per direction, delta by a full sum,
    epsilon by bisection (what a user would write with numpy/scipy)."""
    results = []
    for pmf, inf in _grid_pmf(curve, h):
        lo = min(pmf)
        dense = np.zeros(max(pmf) - lo + 1)
        for i, m in pmf.items():
            dense[i - lo] = m
        acc, off = dense, lo
        for _ in range(K - 1):
            acc = np.maximum(scipy.signal.fftconvolve(acc, dense), 0.0)
            off += lo
            keep = np.flatnonzero(acc > 1e-30)
            acc, off = acc[keep[0]:keep[-1] + 1], off + keep[0]
        losses = (np.arange(acc.size) + off) * h
        inf_total = 1.0 - (1.0 - inf) ** K

        def delta(eps):
            above = losses > eps
            return float(np.sum(acc[above] * -np.expm1(eps - losses[above]))) + inf_total
        a, b = 0.0, float(losses[-1])
        for _ in range(60):
            mid = 0.5 * (a + b)
            a, b = (a, mid) if delta(mid) <= TARGET else (mid, b)
        results.append(b)
    return max(results)


def run(quick):
    lines = header()
    counting = statpriv.counting(N, PI)
    rows = []
    verdicts = []

    def ours():
        return statpriv.compose(counting, times=K).epsilon(TARGET)
    t_ours = measure(ours, repeats=3 if quick else 5, batch_time=0.0, budget=10.0)
    composed = statpriv.compose(counting, times=K)
    h = composed.privacy_loss_distribution().discretization
    eps = composed.epsilon(TARGET)
    lower, upper = composed.delta_bounds(eps)
    rows.append([f"statpriv compose(counting(10^6, 0.3), times=100).epsilon(1e-9), h={h:g}",
                 fmt_time(t_ours.per_call), "1.0", f"{eps:.6f}",
                 f"true delta(eps) in [{lower:.3e}, {upper:.3e}]"])
    verdicts.append(("compose + epsilon <= 1 s", t_ours.per_call <= T_COMPOSE))

    t_delta = measure(lambda: composed.delta(eps), repeats=5 if quick else 15,
                      batch_time=0.02, budget=3.0)
    rows.append(["statpriv composed curve.delta(eps) (after construction)",
                 fmt_time(t_delta.per_call), "-", f"{t_delta.value:.6e}", ""])
    verdicts.append(("delta(eps) of a 100-fold composition <= 50 us", t_delta.per_call <= T_DELTA))

    try:
        t_dpa = measure(lambda: dp_accounting_epsilon(counting, h), repeats=3, batch_time=0.0,
                        budget=20.0)
        rows.append(["dp-accounting: the same grid PLD, self_compose(100), "
                     "get_epsilon_for_delta", fmt_time(t_dpa.per_call),
                     fmt_ratio(t_dpa.per_call, t_ours.per_call), f"{t_dpa.value:.6f}",
                     f"rel. diff {t_dpa.value / eps - 1:+.2e}"])
    except ImportError as exc:
        rows.append(["dp-accounting", "skipped", "-", "-", str(exc)])

    if not quick:
        t_naive = measure(lambda: naive_epsilon(counting, h), repeats=1, batch_time=0.0,
                          budget=60.0)
        rows.append(["naive numpy/scipy: dense grid, 99 fftconvolve, bisection",
                     fmt_time(t_naive.per_call), fmt_ratio(t_naive.per_call, t_ours.per_call),
                     f"{t_naive.value:.6f}", f"rel. diff {t_naive.value / eps - 1:+.2e}"])

    # accuracy: 100 Gaussian mechanisms sigma = 10 are one with sigma = 1
    gauss = statpriv.compose(statpriv.dp.gaussian(10.0), times=K)
    with mpmath.workdps(30):
        e = mpmath.mpf(1.0)
        exact = float(mpmath.ncdf(0.5 - e) - mpmath.exp(e) * mpmath.ncdf(-0.5 - e))
    lower, upper = gauss.delta_bounds(1.0)
    rows.append(["accuracy: compose(dp.gaussian(10), times=100).delta(1) vs closed form "
                 "sigma=1", "-", "-", f"{upper:.6e}",
                 f"exact {exact:.6e} in [{lower:.6e}, {upper:.6e}]: "
                 f"{'yes' if lower <= exact <= upper else 'NO'}"])

    lines += ["", *markdown_table(["what", "time", "ratio to statpriv", "value", "note"], rows),
              ""]
    lines += [f"- {'PASS' if ok else 'MISS'}: {what}" for what, ok in verdicts]
    print("\n".join(lines))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer samples, no naive loop")
    run(parser.parse_args(argv).quick)


if __name__ == "__main__":
    main()
