"""Benchmark of statpriv's dp-accounting export (statpriv.accounting).

    python bench/bench_accounting.py           # full run (about a minute)
    python bench/bench_accounting.py --quick   # smoke run

One run, three markdown tables:

1. counting(10**6, 0.3) exported at h = 1e-4 and composed 100 times inside
   dp-accounting (``self_compose(100)``): export time, composition time and
   epsilon(1e-9), for the two export routes, beside what a user would write
   without statpriv's export (dp-accounting's own
   ``from_two_probability_mass_functions`` on dicts of the log-pmfs), and
   beside ``statpriv.compose`` where that exists in the checkout.
2. Which route is tighter (the reason for ``method="auto"``): the exported
   delta over the exact one at 2000 eps off the loss grid, for several curve
   kinds; min (must be >= 1: pessimistic), median, max.
3. After composition: 2-fold counting(200, 0.5) against the exact product of
   its atoms; dp.* curves: dp-accounting's own PLD against connect-the-dots
   from statpriv's delta.

Timing helpers and the header come from bench_counting.py (median of
repeated perf_counter samples after one warm-up).  Compare ratios within one
run, not absolute times across runs.
"""
import argparse
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bench_counting import fmt_time, header, markdown_table, measure  # noqa: E402

import numpy as np  # noqa: E402

import statpriv  # noqa: E402
from statpriv import accounting  # noqa: E402

H = 1e-4
TARGET = 1e-9
TIMES = 100
COMPOSE_TARGET_S = 1.0          # the target for compose(..., times=100).epsilon(1e-9)


def _dp_accounting():
    import dp_accounting
    from dp_accounting.pld import privacy_loss_distribution as dpl
    return dp_accounting, dpl


def naive_export(curve):
    """What a user writes without statpriv's export: dicts of the log-pmfs into
    dp-accounting's from_two_probability_mass_functions (lower law first)."""
    _, dpl = _dp_accounting()
    laws = curve.log_pmfs()
    lp = dict(enumerate(laws.log_p.tolist()))
    lq = dict(enumerate(laws.log_q.tolist()))
    return dpl.from_two_probability_mass_functions(lq, lp, symmetric=False,
                                                   value_discretization_interval=H)


def table_composition(quick):
    curve = statpriv.counting(10**6, 0.3)
    rows = []
    budget = 3.0 if quick else 10.0
    exports = [("statpriv connect-the-dots (auto)", lambda: curve.to_dp_accounting(H)),
               ("statpriv pmf route", lambda: curve.to_dp_accounting(H, method="pmf")),
               ("naive: from_two_probability_mass_functions on dicts", lambda: naive_export(curve))]
    base_export = None
    for label, make in exports:
        t_export = measure(make, repeats=3 if quick else 5, batch_time=0.05, budget=budget)
        pld = t_export.value
        t0 = time.perf_counter()
        composed = pld.self_compose(TIMES)
        t_comp = time.perf_counter() - t0
        t0 = time.perf_counter()
        eps = composed.get_epsilon_for_delta(TARGET)
        t_eps = time.perf_counter() - t0
        base_export = base_export or t_export.per_call
        rows.append([label, fmt_time(t_export.per_call), f"{t_export.per_call / base_export:.2f}",
                     fmt_time(t_comp + t_eps), f"{eps:.6f}",
                     "PASS" if t_comp + t_eps <= COMPOSE_TARGET_S else "MISS"])
    compose = getattr(statpriv, "compose", None)
    if compose is not None:
        t0 = time.perf_counter()
        eps = compose(curve, times=TIMES).epsilon(TARGET)
        t = time.perf_counter() - t0
        rows.append(["statpriv.compose(curve, times=100)", "-", "-", fmt_time(t), f"{eps:.6f}",
                     "PASS" if t <= COMPOSE_TARGET_S else "MISS"])
    else:
        rows.append(["statpriv.compose", "not in this checkout", "-", "-", "-", "-"])
    lines = [f"## counting(10**6, 0.3), h = {H:g}: export, dp-accounting self_compose({TIMES}), "
             f"epsilon({TARGET:g})", ""]
    lines += markdown_table(["route", "export", "export / auto", "compose + epsilon",
                             f"epsilon({TARGET:g})", f"<= {COMPOSE_TARGET_S:g} s"], rows)
    return lines


def _ratios(curve, pld, rng):
    top = min(curve.epsilon(min(1.0, float(curve.delta(math.inf)) + 1e-14)), 20.0)
    eps = np.sort(rng.uniform(-0.5 * top, top, 2000))
    exact = curve.delta(eps)
    live = exact > 1e-13            # above the tails moved to +inf (tail_mass = 1e-15)
    return pld.get_delta_for_epsilon(eps)[live] / exact[live]


def table_routes(quick):
    rng = np.random.default_rng(2026)
    curves = [statpriv.counting(1000, 0.5), statpriv.counting(10**6, 0.3),
              statpriv.counting(10**5, 0.01), statpriv.counting(None, [0.1, 0.5, 0.9, 0.2] * 50),
              statpriv.secret_sample(10**4, 500, positives=1200)]
    if not quick:
        curves.append(statpriv.counting(10**4, 0.3, noise=statpriv.Laplace(3.0)))
    rows = []
    for curve in curves:
        for method in ("pmf", "connect_dots"):
            try:
                pld = curve.to_dp_accounting(H, method=method)
            except ValueError:
                rows.append([curve.description, method, "no discrete laws", "", "", ""])
                continue
            r = _ratios(curve, pld, rng)
            rows.append([curve.description, method, f"{r.min() - 1:+.1e}",
                         f"{np.median(r) - 1:.1e}", f"{r.max() - 1:.1e}",
                         "PASS" if r.min() >= 1.0 - 1e-12 else "MISS"])
    lines = ["", f"## Export routes at h = {H:g}: exported delta / exact delta - 1 at 2000 "
             "eps off the grid (exact delta > 1e-13)", ""]
    lines += markdown_table(["curve", "route", "min", "median", "max", "pessimistic"], rows)
    return lines


def _exact_two_fold(lu, ll, eps):
    f = np.isfinite(lu)
    loss = np.where(np.isfinite(ll[f]), lu[f] - ll[f], np.inf)
    p = np.exp(lu[f])
    l2 = (loss[:, None] + loss[None, :]).ravel()
    p2 = (p[:, None] * p[None, :]).ravel()
    out = []
    for e in eps:
        m = l2 > e
        gain = np.where(np.isinf(l2[m]), 1.0, -np.expm1(e - np.where(np.isinf(l2[m]), 0.0,
                                                                      l2[m])))
        out.append(np.sum(p2[m] * gain))
    return np.array(out)


def table_composed():
    _, dpl = _dp_accounting()
    rows = []
    curve = statpriv.counting(200, 0.5)
    laws = curve.log_pmfs()
    eps = np.linspace(0.0, 1.0, 41) + 0.37 * H
    exact = np.maximum(_exact_two_fold(laws.log_p, laws.log_q, eps),
                       _exact_two_fold(laws.log_q, laws.log_p, eps))
    live = exact > 1e-13
    for method in ("pmf", "connect_dots"):
        pld = curve.to_dp_accounting(H, method=method)
        r = pld.compose(pld).get_delta_for_epsilon(eps)[live] / exact[live]
        rows.append(["counting(200, 0.5) twice, vs exact product", method,
                     f"{r.min() - 1:+.1e}", f"{np.median(r) - 1:.1e}"])
    e = np.linspace(0.0, 3.0, 301) + 0.37 * H
    for curve, own in [(statpriv.dp.gaussian(3.0), dpl.from_gaussian_mechanism(3.0)),
                       (statpriv.dp.laplace(2.0), dpl.from_laplace_mechanism(2.0)),
                       (statpriv.dp.geometric(0.6), dpl.from_discrete_laplace_mechanism(
                           -math.log(0.6), use_connect_dots=True))]:
        exact = curve.delta(e)
        live = exact > 1e-13
        for label, pld in [("dp-accounting's own", own),
                           ("connect-the-dots of statpriv", curve.to_dp_accounting(
                               H, method="connect_dots"))]:
            r = pld.get_delta_for_epsilon(e)[live] / exact[live]
            rows.append([curve.description, label, f"{r.min() - 1:+.1e}",
                         f"{np.median(r) - 1:.1e}"])
    lines = ["", f"## After composition, and the dp.* curves (h = {H:g}): delta / exact - 1", ""]
    lines += markdown_table(["case", "PLD", "min", "median"], rows)
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer samples and curves")
    args = parser.parse_args(argv)
    _dp_accounting()
    lines = header()
    from importlib import metadata
    lines.append(f"- dp-accounting {metadata.version('dp-accounting')}")
    lines.append("")
    lines += table_composition(args.quick)
    lines += table_routes(args.quick)
    lines += table_composed()
    print("\n".join(lines))


if __name__ == "__main__":
    main()
