"""Desfontaines, Mohammadi, Krahmer & Basin, "Differential Privacy with Partial
Knowledge": Figures 2, 3 and 5 recomputed from the exact curves.

The extracted text of the paper kept none of the figures' parameters; the
ones used here are ASSUMED and stated on each plot: p = 0.1 (the paper's
running "at least 10% uncertain" example), eps = 0.5, delta = 1e-6 -- but
for Fig. 2's two cases, whose p = 0.05 Desfontaines' thesis states.

* Fig. 2 -- Thm 3's bounds against the number of records: the closed form
  of Balle, Bell, Gascon & Nissim (the paper quotes it), the numerically
  evaluated privacy blanket, the uniform configuration (all pi_j = p, the
  paper's lower end) and statpriv's exact worst case over [p, 1-p]^N.
* Fig. 2 as the paper draws it (``desfontaines_fig2_cases``): delta
  against eps in the paper's two configurations, p = 0.05 (as in Desfontaines'
  thesis "Lowering the cost of anonymization", which describes the figure)
  -- Case 1, all records but one at pi = 0.5 and one at p (Thm 3 sees only
  p and underperforms); Case 2, the pi_j uniform on [p, 1-p] (ASSUMED:
  evenly spaced, the uniform law's quantiles) -- Thm 3's bounds and the
  paper's Prop. 7 (Ghosh & Kleinberg, "Inferential Privacy Guarantees for
  Differentially Private Mechanisms", Thm 3: a Berry-Esseen bound from the
  records' average second and third moments,
  statpriv.partial_knowledge.ghosh_kleinberg_delta) against statpriv's exact
  curve of that very configuration (statpriv.counting(None, pis)), for
  n = 1000 and 10^4 (ASSUMED: the thesis's text and caption disagree).
* Fig. 3 -- delta against the number of known records, for several p: the
  exact worst case over the remaining unknown records.
* Fig. 5 -- the double guarantee of §5.2: delta against the number of known
  records, noiseless (exact worst case and blanket) and with post-processing
  noise.  Noise is added to the uniform configuration (exact convolution);
  the worst case over [p, 1-p]^N with noise is bounded by the smaller of the
  noiseless worst case and the noise's own DP curve (post-processing), both
  drawn.
"""
import math
from typing import Any, Dict, List

import numpy as np

from statpriv import dp
from statpriv.counting import counting
from statpriv.noise import Geometric
from statpriv.papers import _plotting as plotting
from statpriv.papers import _renamed
from statpriv.partial_knowledge import ghosh_kleinberg_delta, partial_knowledge

__all__ = ["thm3_vs_n_data", "thm3_cases_data", "case_probabilities", "known_records_data",
           "double_guarantee_data", "desfontaines_fig2", "desfontaines_fig2_cases",
           "desfontaines_fig3", "desfontaines_fig5"]

__getattr__ = _renamed.module_getattr(globals())    # deprecated names still work

P = 0.1
EPS = 0.5
DELTA = 1e-6
N_RECORDS = 1000                     # Figs 3 and 5: records, the target included
CASES_N = (1000, 10 ** 4)            # Fig. 2's two cases: records, the target included
CASES_P = 0.05                       # Fig. 2's two cases: the paper's p (lambda in the thesis)
NOISE_EPS0 = 1.0                     # Fig 5: geometric noise alpha = e^-1 (1-DP alone)


def _closed_form_delta(N: Any, p: Any, eps: Any) -> Any:
    """delta of the closed form at eps: 2 exp(-eps^2 N p / 14) where eps <= 1
    and eps >= 27 / (N p) (the theorem's conditions), else 1 (no guarantee)."""
    ok = (eps <= 1.0) & (eps >= 27.0 / (N * p))
    return np.where(ok, np.minimum(1.0, 2.0 * np.exp(-eps * eps * N * p / 14.0)), 1.0)


def thm3_vs_n_data(*, p: Any = P, eps: Any = EPS, delta: Any = DELTA, ns: Any = None) -> Any:
    """delta(eps) and epsilon(delta) against n for the four curves of Fig. 2."""
    ns = np.unique(np.round(np.geomspace(30, 10 ** 4, 11)).astype(int)) if ns is None else ns
    out: Dict[str, List[Any]] = {
        k: [] for k in ("uniform", "worst_case", "blanket", "eps_uniform", "eps_worst_case",
                        "eps_blanket", "eps_closed_form")}
    for n in ns:
        pk = partial_knowledge(int(n), p)
        for name, curve in (("uniform", pk.uniform), ("worst_case", pk.worst_case),
                            ("blanket", pk.blanket)):
            out[name].append(curve.delta(eps))
            out["eps_" + name].append(curve.epsilon(delta))
        out["eps_closed_form"].append(pk.closed_form_epsilon(delta))
    data = {k: np.array(v) for k, v in out.items()}
    data["closed_form"] = _closed_form_delta(ns - 1.0, p, eps)
    data.update(n=np.asarray(ns), p=p, eps=eps, delta=delta)
    return data


def case_probabilities(case: Any, n: Any, p: Any) -> Any:
    """The n - 1 other records' probabilities in Fig. 2's configurations:
    case 1, one record at p and the rest at 0.5; case 2, evenly spaced on
    [p, 1 - p] (the midpoints of n - 1 equal cells: the uniform law's quantiles)."""
    if case == 1:
        return np.r_[p, np.full(n - 2, 0.5)]
    if case == 2:
        return p + (1.0 - 2.0 * p) * (np.arange(1, n) - 0.5) / (n - 1)
    raise ValueError(f"case must be 1 or 2, got {case!r}")


def _prop7_delta(pis: Any, eps: Any) -> Any:
    """Prop. 7's delta at every eps, 1 at eps = 0 (no guarantee there)."""
    out = np.ones(eps.shape)
    positive = eps > 0.0
    out[positive] = ghosh_kleinberg_delta(pis, eps[positive])
    return out


def thm3_cases_data(*, p: Any = CASES_P, ns: Any = CASES_N, eps: Any = None) -> Any:
    """delta against eps in Fig. 2's two cases: ``exact[case][n]`` (statpriv's
    exact curve of the configuration), ``prop7[case][n]`` (the paper's Prop. 7,
    Ghosh & Kleinberg's bound of the configuration), ``blanket[n]`` and
    ``closed_form[n]`` (Thm 3, which sees only p and so is the same in both
    cases)."""
    eps = np.linspace(0.0, 1.0, 51) if eps is None else np.asarray(eps, dtype=float)
    configurations = {case: {n: case_probabilities(case, n, p) for n in ns} for case in (1, 2)}
    exact = {case: {n: counting(None, pis).delta(eps) for n, pis in by_n.items()}
             for case, by_n in configurations.items()}
    prop7 = {case: {n: _prop7_delta(pis, eps) for n, pis in by_n.items()}
             for case, by_n in configurations.items()}
    blanket = {n: partial_knowledge(n, p).blanket.delta(eps) for n in ns}
    closed_form = {n: _closed_form_delta(n - 1.0, p, eps) for n in ns}
    return {"eps": eps, "p": p, "ns": tuple(ns), "exact": exact, "prop7": prop7,
            "blanket": blanket, "closed_form": closed_form}


def known_records_data(*, n: Any = N_RECORDS, ps: Any = (0.5, 0.25, 0.1, 0.05), eps: Any = EPS,
                       knowns: Any = None) -> Any:
    """The exact worst case delta(eps) against the number of known records."""
    knowns = np.unique(np.round(np.linspace(0, n - 2, 21)).astype(int)) if knowns is None else knowns
    rows = {p: np.array([partial_knowledge(n, p, known=int(k)).worst_case.delta(eps)
                         for k in knowns]) for p in ps}
    return {"known": np.asarray(knowns), "delta": rows, "n": n, "eps": eps}


def double_guarantee_data(*, n: Any = N_RECORDS, p: Any = P, eps: Any = EPS, eps0: Any = NOISE_EPS0,
                          knowns: Any = None) -> Any:
    """delta(eps) against known records: noiseless (worst case, blanket),
    uniform + geometric noise (exact), the noise alone (worst-case DP) and the
    post-processing bound min(noiseless worst case, noise alone)."""
    knowns = np.unique(np.round(np.linspace(0, n - 1, 21)).astype(int)) if knowns is None else knowns
    noise = Geometric(math.exp(-eps0))
    alone = float(dp.geometric(math.exp(-eps0)).delta(eps))
    worst: Any = []
    blanket: List[Any] = []
    noisy: List[Any] = []
    for k in knowns:
        pk = partial_knowledge(n, p, known=int(k))
        worst.append(pk.worst_case.delta(eps))
        blanket.append(pk.blanket.delta(eps))
        noisy.append(counting(n - int(k), p, noise=noise).delta(eps))
    worst = np.array(worst)
    return {"known": np.asarray(knowns), "worst_case": worst, "blanket": np.array(blanket),
            "uniform_noisy": np.array(noisy), "noise_alone": alone,
            "post_processing_bound": np.minimum(worst, alone), "n": n, "p": p, "eps": eps,
            "eps0": eps0}


def desfontaines_fig2(out_dir: Any, dpi: Any = 120) -> Any:
    """Desfontaines et al. Fig. 2: Thm 3's bounds against n (ASSUMED p, eps, delta)."""
    data = thm3_vs_n_data()
    fig, (left, right) = plotting.figure(ncols=2)
    n = data["n"]
    for ax, prefix, ylabel in ((left, "", f"delta(eps = {data['eps']:g})"),
                               (right, "eps_", f"epsilon(delta = {data['delta']:g})")):
        closed_form = data[prefix + "closed_form"]
        ax.plot(n, plotting.nan_zeros(closed_form) if prefix else closed_form,
                color="grey", ls="--", lw=1.5, label="closed form (BBGN19 Thm 3.1)")
        ax.plot(n, data[prefix + "blanket"], color="tab:orange", lw=1.8,
                label="privacy blanket, numerically exact (upper bound)")
        ax.plot(n, data[prefix + "worst_case"], color="tab:green", lw=3.0, alpha=0.6,
                label="exact worst case over [p, 1-p]^N (statpriv)")
        ax.plot(n, data[prefix + "uniform"], color="tab:blue", lw=1.2, ls=":",
                label="all pi_j = p (paper's lower end)")
        ax.set_xscale("log")
        if not prefix:
            ax.set_ylim(1e-40, 3.0)
        plotting.style(ax, "records n (target included)", ylabel,
                       f"Desfontaines et al. Fig. 2 (ASSUMED p = {data['p']:g}): "
                       "Thm 3's sandwich closed",
                       legend_loc="lower left")
    return plotting.save(fig, out_dir, "desfontaines_fig2", dpi)


def desfontaines_fig2_cases(out_dir: Any, dpi: Any = 120) -> Any:
    """Desfontaines et al. Fig. 2 as drawn in the paper: its Cases 1 and 2, Thm 3
    and Prop. 7 against the exact curve (ASSUMED n)."""
    data = thm3_cases_data()
    fig, axes = plotting.figure(ncols=2)
    titles = {1: "Case 1: all pi_j = 0.5 but one at p", 2: "Case 2: pi_j uniform on [p, 1-p]"}
    for ax, case in zip(axes, (1, 2)):
        for color, n in zip(plotting.COLORS, data["ns"]):
            ax.plot(data["eps"], plotting.nan_zeros(data["exact"][case][n]), color=color,
                    label=f"exact curve of the case, n = {n} (statpriv)", **plotting.EXACT)
            ax.plot(data["eps"], data["blanket"][n], color=color, lw=1.3, ls="--",
                    label=f"Thm 3, numerically evaluated, n = {n}")
            ax.plot(data["eps"], data["closed_form"][n], color=color, lw=1.0, ls=":",
                    label=f"Thm 3, closed form (BBGN19), n = {n}")
            ax.plot(data["eps"], data["prop7"][case][n], color=color, lw=1.3, ls="-.",
                    label=f"Prop. 7 (Ghosh & Kleinberg Thm 3), n = {n}")
        ax.set_ylim(1e-40, 3.0)
        plotting.style(ax, "eps", "delta(eps)",
                       f"Desfontaines et al. Fig. 2, {titles[case]}\n"
                       f"(p = {data['p']:g}; ASSUMED n = {data['ns'][0]}, {data['ns'][1]})",
                       legend_loc="lower left")
    return plotting.save(fig, out_dir, "desfontaines_fig2_cases", dpi)


def desfontaines_fig3(out_dir: Any, dpi: Any = 120) -> Any:
    """Desfontaines et al. Fig. 3: delta against the number of known records."""
    data = known_records_data()
    fig, (ax,) = plotting.figure()
    for color, (p, row) in zip(plotting.COLORS, data["delta"].items()):
        ax.plot(data["known"], plotting.nan_zeros(row), color=color, lw=1.8, label=f"p = {p:g}")
    plotting.style(ax, "known records", f"worst-case delta(eps = {data['eps']:g})",
                   f"Desfontaines et al. Fig. 3 (ASSUMED n = {data['n']}, eps = {data['eps']:g}):"
                   "\nexact worst case over the unknown records", legend_loc="upper left")
    return plotting.save(fig, out_dir, "desfontaines_fig3", dpi)


def desfontaines_fig5(out_dir: Any, dpi: Any = 120) -> Any:
    """Desfontaines et al. Fig. 5: partial knowledge plus post-processing noise."""
    data = double_guarantee_data()
    fig, (ax,) = plotting.figure()
    k = data["known"]
    ax.plot(k, data["worst_case"], color="tab:blue", lw=1.8, label="noiseless, exact worst case")
    ax.plot(k, data["blanket"], color="tab:blue", lw=1.0, ls="--", label="noiseless, blanket bound")
    ax.axhline(data["noise_alone"], color="tab:orange", lw=1.8,
               label=f"geometric noise alone (alpha = e^-{data['eps0']:g}, worst-case DP)")
    ax.plot(k, data["post_processing_bound"], color="grey", lw=7.0, alpha=0.25,
            label="min of the two (post-processing bound, worst case + noise)")
    ax.plot(k, data["uniform_noisy"], color="tab:green", lw=1.8,
            label="all pi_j = p + geometric noise (exact)")
    plotting.style(ax, "known records", f"delta(eps = {data['eps']:g})",
                   f"Desfontaines et al. Fig. 5 (ASSUMED n = {data['n']}, p = {data['p']:g}):"
                   "\nthe double guarantee", legend_loc="upper left")
    return plotting.save(fig, out_dir, "desfontaines_fig5", dpi)
