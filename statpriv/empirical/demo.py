"""``statpriv empirical-demo``: empirical differential privacy of the mean
arrival delay of the day, 2013 New York City flights.

Burchard, Daoud & Dotterrer, "Empirical Differential Privacy": the 365 days
are independent draws of a database, the aircraft (tail numbers) are the
individuals, the published statistic is the mean arrival delay of the day.
For every aircraft i the 365 daily means with and without i's flights give
two density estimates p and p_i (Laplace kernels, bandwidth by held-out
log-likelihood), and

    delta_i(eps) = max( int (p - e^eps p_i)_+ , int (p_i - e^eps p)_+ ),
    delta(eps)   = max_i delta_i(eps),
    delta*(eps)  = 1 - prod_i (1 - delta_i(eps))   (total risk).

The noise that closes the gap (their Proposition 1, with the matching
distance): Laplace kernels of scale lambda = max_i d(q, q_i) / eps, d the
largest gap between the sorted daily means with and without i matched in
order, keep every log density ratio within eps, i.e. delta(eps) = 0.  (The
paper states it with the Hausdorff distance, which ignores repeated values
and can fall short; see docs/empirical.md.)  With the curator's Laplace kernel of
width s <= lambda the noise to add is exact and closed form: nothing with
probability (s / lambda)^2, else Laplace(lambda).

Before the numbers, the demo checks the assumption they rest on, that the
days are independent draws: a permutation test of the lag-1 autocorrelation
of the daily means (``EmpiricalPrivacy.independence_check``).  On the full
year it fails (neighbouring days resemble each other), which the output says.

The numbers are computed by ``demo_data`` (no printing, no matplotlib), printed
by ``run`` and plotted by ``plots`` (their Figs. 3-5: delta(eps), delta*(eps),
the two densities of the most exposed aircraft).
"""
import os
from typing import Any

import numpy as np

__all__ = ["EPSILONS", "EPS_FOCUS", "demo_data", "run", "plots"]

EPSILONS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5)   # the printed table
EPS_FOCUS = 0.05                              # the ten most exposed, the densities
EPS_NOISE = (0.01, 0.05, 0.1)                 # calibrated noise scales


def _analysis(days: Any = None, data: Any = None) -> Any:
    from statpriv.empirical import EmpiricalPrivacy
    from statpriv.empirical.data import flights
    df = flights() if data is None else data
    if days is not None:
        df = df[df["db"] <= days]
    return df, EmpiricalPrivacy(df, "mean")


def demo_data(days: Any = None, *, data: Any = None, eps_grid: Any = None,
              focus: Any = EPS_FOCUS) -> Any:
    """Everything the demo prints and plots, as a dict of numbers and arrays.

    days: only the first ``days`` days of 2013; data: another long-format
    frame with columns db / id / value instead of the flights; eps_grid: the
    plotted eps (default: 30 points from 0 to 1.25 eps_0, eps_0 the smallest
    eps with delta = 0, or to 1 if there is none below 512).
    """
    df, ep = _analysis(days, data)
    eps_zero = ep.epsilon(0.0)
    if eps_grid is None:
        top = 1.25 * eps_zero if 0.0 < eps_zero < np.inf else 1.0
        eps_grid = np.linspace(0.0, top, 31)
    eps_grid = np.asarray(eps_grid, dtype=float)
    table = [(e, ep.delta(e), ep.total_risk(e), int((ep.deltas(e) > 0).sum()))
             for e in EPSILONS]
    exposed = ep.most_exposed(10, focus)
    per = df.groupby("id")["value"].agg(["size", "mean"])
    days_flown = df.groupby("id")["db"].nunique()
    top = [(label, float(d), int(per.at[label, "size"]), int(days_flown[label]),
            float(per.at[label, "mean"])) for label, d in exposed.items()]
    noise = [(e, ep.noise_scale(e)) for e in EPS_NOISE]
    worst = exposed.index[0]
    q = ep.q.to_numpy()
    pad = 4.0 * ep.bandwidth
    x = np.linspace(q.min() - pad, q.max() + pad, 800)
    p, p_i = ep.densities(x, worst)
    return {
        "records": len(df), "databases": int(df["db"].nunique()),
        "individuals": int(df["id"].nunique()),
        "bandwidth": ep.bandwidth, "query_values": q,
        "independence": ep.independence_check(),
        "table": table, "focus": focus, "top": top, "noise": noise, "eps_zero": eps_zero,
        "eps_grid": eps_grid,
        "delta_curve": np.array([ep.delta(e) for e in eps_grid]),
        "total_risk_curve": np.array([ep.total_risk(e) for e in eps_grid]),
        "worst": worst, "density_x": x, "density_p": p, "density_p_i": p_i,
    }


def _fmt(value: Any) -> Any:
    return "0" if value == 0 else f"{value:.3g}"


def run(out: Any = print, out_dir: Any = None, days: Any = None, dpi: Any = 110, *,
        data: Any = None) -> Any:
    """Print the demo (and write the plots to ``out_dir`` if given)."""
    d = demo_data(days, data=data)
    out("statpriv empirical-demo: empirical differential privacy (Burchard, Daoud & Dotterrer)")
    out(f"2013 NYC flights: {d['records']} flights, {d['databases']} days (databases), "
        f"{d['individuals']} aircraft (individuals)")
    out(f"published statistic: mean arrival delay of the day (minutes); Laplace-kernel "
        f"density, bandwidth {d['bandwidth']:.3g} min (held-out log-likelihood)")
    check = d["independence"]
    out(f"independent days? {check.interpretation}")
    out(f"  {check.method}; the numbers below assume independent days")
    out("")
    out(f"{'eps':>6s}{'delta':>12s}{'delta*':>12s}{'aircraft with delta_i > 0':>28s}")
    for eps, delta, risk, count in d["table"]:
        out(f"{eps:>6g}{_fmt(delta):>12s}{_fmt(risk):>12s}{count:>28d}")
    if d["eps_zero"] < np.inf:
        out(f"delta = 0 (every aircraft within a factor e^eps) from eps = {d['eps_zero']:.4g}")
    out("")
    out(f"the ten most exposed aircraft at eps = {d['focus']:g}:")
    out(f"{'tailnum':>10s}{'delta_i':>12s}{'flights':>9s}{'days':>6s}{'mean delay':>12s}")
    for label, delta, flights, days_flown, mean in d["top"]:
        out(f"{label:>10s}{_fmt(delta):>12s}{flights:>9d}{days_flown:>6d}{mean:>12.1f}")
    out("")
    out("noise that makes delta(eps) = 0 (Laplace scale lambda = max_i d(q, q_i) / eps, "
        "d the matching distance):")
    s = d["bandwidth"]
    for eps, lam in d["noise"]:
        keep = min(1.0, (s / lam) ** 2)
        out(f"  eps = {eps:<5g} lambda = {lam:8.3g} min: add nothing with probability "
            f"{keep:.3g}, else Laplace({lam:.3g}) noise")
    if out_dir is not None:
        paths = plots(d, out_dir, dpi=dpi)
        out("")
        out("plots: " + ", ".join(paths[k] for k in sorted(paths)))
    return d


def plots(d: Any, out_dir: Any, dpi: Any = 110) -> Any:
    """delta(eps), delta*(eps) and the densities of the most exposed aircraft
    (Burchard, Daoud & Dotterrer, Figs. 3-5) as PNG files in ``out_dir``."""
    from statpriv.papers import _plotting as plotting
    os.makedirs(out_dir, exist_ok=True)
    paths = {}
    for name, key, label in (("empirical_delta", "delta_curve", "delta(eps) = max_i delta_i"),
                             ("empirical_total_risk", "total_risk_curve",
                              "delta*(eps) = 1 - prod_i (1 - delta_i)")):
        fig, (ax,) = plotting.figure()
        y = d[key]
        ax.plot(d["eps_grid"], np.where(y > 0, y, np.nan), lw=2)
        ax.set_yscale("log")
        ax.set_xlabel("eps")
        ax.set_ylabel(label.split(" =")[0])
        ax.set_title(f"{label}: mean arrival delay of the day, 2013 NYC flights", fontsize=9)
        if d["eps_zero"] < np.inf:
            ax.axvline(d["eps_zero"], color="gray", ls=":", lw=1)
            ax.annotate(f"0 from eps = {d['eps_zero']:.3g}", (d["eps_zero"], 0.5),
                        xycoords=("data", "axes fraction"), fontsize=8, rotation=90,
                        ha="right", va="center")
        ax.grid(True, alpha=0.3)
        paths[name] = plotting.save(fig, out_dir, name, dpi)
    fig, (ax, ax2) = plotting.figure(ncols=2, width=5.2)
    x, p, p_i = d["density_x"], d["density_p"], d["density_p_i"]
    ax.plot(x, p, lw=2, label="all aircraft (p)")
    ax.plot(x, p_i, lw=1.5, ls="--", label=f"without {d['worst']} (p_i)")
    ax.plot(d["query_values"], np.zeros_like(d["query_values"]), "|", color="gray", ms=8)
    ax.set_xlabel("mean arrival delay of the day (minutes)")
    ax.set_ylabel("density")
    ax.set_title(f"the most exposed aircraft at eps = {d['focus']:g}: {d['worst']}", fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    ax2.plot(x, np.log(p / p_i), lw=1.5, color="tab:green")
    for sign in (1, -1):
        ax2.axhline(sign * d["focus"], color="tab:red", ls=":", lw=1)
    ax2.set_xlabel("mean arrival delay of the day (minutes)")
    ax2.set_ylabel("ln p(x) / p_i(x)")
    ax2.set_title(f"log density ratio; dotted: +-eps = {d['focus']:g}", fontsize=9)
    ax2.grid(True, alpha=0.3)
    paths["empirical_densities"] = plotting.save(fig, out_dir, "empirical_densities", dpi)
    return paths
