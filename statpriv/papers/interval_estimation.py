"""Naldi & D'Acquisto, "Differential Privacy: An Estimation Theory-Based Method
for Choosing Epsilon" (arXiv:1510.00917): Figs. 1 and 2 recomputed, with the
geometric and Gaussian noise statpriv adds to the paper's Laplace noise.

The paper chooses eps so that the true count c lies in the released
c_hat +- w c with probability p: for Laplace noise of scale 1/eps,
p = 1 - e^(-eps w c) (its eq. (9)) and eps = -ln(1 - p)/(w c) (eq. (10)).  The
curves come from statpriv.analysis.interval (interval_confidence,
interval_epsilon):

* Fig. 1, "iso-lambda curves": the confidence p against the relative
  half-width w at c = 100 (the paper's count), one curve per eps;
* Fig. 2, "inverse dependence on the true value": eps against the count c,
  one curve per (w, p).

The extracted text keeps neither the eps values of Fig. 1 nor the (w, p)
pairs of Fig. 2; the ones used here are ASSUMED and say so on the plots
(they include the paper's worked example c = 100, w = 0.2, p = 0.8, eps =
0.0805).  Gaussian noise is not pure DP: its eps is the one at DELTA = 1e-6
(ASSUMED) on the worst-case Gaussian curve.  Geometric noise is the
two-sided geometric with alpha = e^-eps (eps-DP); its confidence is a step
function of w.
"""
from typing import Any
import numpy as np

from statpriv.analysis.interval import interval_confidence, interval_epsilon
from statpriv.noise import Gaussian, Geometric, Laplace
from statpriv.papers import _plotting as plotting

__all__ = ["iso_epsilon_data", "epsilon_vs_count_data", "naldi_dacquisto_fig1",
           "naldi_dacquisto_fig2", "COUNT", "FIG1_EPS", "FIG2_PAIRS", "DELTA"]

COUNT = 100                                     # the paper's count in Fig. 1 and its example
FIG1_EPS = (0.02, 0.05, 0.0804718956, 0.2)     # ASSUMED; 0.0805 = the example's eps
FIG2_PAIRS = ((0.1, 0.9), (0.2, 0.8), (0.3, 0.95))    # (w, p), ASSUMED; (0.2, 0.8) the example
DELTA = 1e-6                                    # ASSUMED, for Gaussian noise only

# noise class -> (label, line style, delta to pass)
_NOISES = ((Laplace, "Laplace (paper)", "-", None),
           (Geometric, "geometric", "--", None),
           (Gaussian, f"Gaussian, delta = {DELTA:g}", ":", DELTA))


def iso_epsilon_data(*, count: Any = COUNT, eps_values: Any = FIG1_EPS, widths: Any = None) -> Any:
    """Fig. 1: the confidence p = P[|N| < w c] against w for each eps and noise.

    Returns ``width`` (array), ``eps`` (tuple), ``count`` and
    ``confidence[kind][eps]`` (arrays over w) for kind in "laplace",
    "geometric", "gaussian".
    """
    widths = np.linspace(0.005, 0.5, 100) if widths is None else np.asarray(widths, float)
    confidence = {cls.kind: {eps: interval_confidence(eps, widths, count, noise=cls, delta=delta)
                             for eps in eps_values}
                  for cls, _, _, delta in _NOISES}
    return {"width": widths, "eps": tuple(eps_values), "count": count,
            "confidence": confidence}


def epsilon_vs_count_data(*, pairs: Any = FIG2_PAIRS, counts: Any = None) -> Any:
    """Fig. 2: eps against the true count c for each (w, p) and noise.

    Returns ``count`` (array), ``pairs`` (tuple) and ``eps[kind][(w, p)]``
    (arrays over c).
    """
    counts = np.geomspace(10, 10 ** 4, 61) if counts is None else np.asarray(counts, float)
    eps = {cls.kind: {(w, p): interval_epsilon(w, p, counts, noise=cls, delta=delta)
                      for w, p in pairs}
           for cls, _, _, delta in _NOISES}
    return {"count": counts, "pairs": tuple(pairs), "eps": eps}


def naldi_dacquisto_fig1(out_dir: Any, dpi: Any = 120) -> Any:
    """Naldi & D'Acquisto Fig. 1: iso-eps curves, confidence against width at c = 100
    (eps values ASSUMED)."""
    data = iso_epsilon_data()
    fig, (ax,) = plotting.figure()
    for color, eps in zip(plotting.COLORS, data["eps"]):
        for cls, label, ls, _ in _NOISES:
            ax.plot(data["width"], data["confidence"][cls.kind][eps], color=color, ls=ls,
                    lw=1.8 if ls == "-" else 1.2,
                    label=f"eps = {eps:.4g}, {label}")
    ax.plot([0.2], [0.8], "ko", ms=5, label="the paper's example (w = 0.2, p = 0.8)")
    ax.set_xlim(0.0, 0.5)
    ax.set_ylim(0.0, 1.0)
    plotting.style(ax, "w (relative half-width of the interval)", "p (confidence level)",
                   f"Naldi & D'Acquisto Fig. 1: iso-eps curves, c = {data['count']} "
                   "(eps values ASSUMED)\nsolid: Laplace (the paper); dashed: geometric; "
                   f"dotted: Gaussian at delta = {DELTA:g}", logy=False, legend_loc="lower right")
    return plotting.save(fig, out_dir, "naldi_dacquisto_fig1", dpi)


def naldi_dacquisto_fig2(out_dir: Any, dpi: Any = 120) -> Any:
    """Naldi & D'Acquisto Fig. 2: eps against the true count for several (w, p)
    ((w, p) pairs ASSUMED)."""
    data = epsilon_vs_count_data()
    fig, (ax,) = plotting.figure()
    for color, pair in zip(plotting.COLORS, data["pairs"]):
        for cls, label, ls, _ in _NOISES:
            ax.plot(data["count"], plotting.nan_zeros(data["eps"][cls.kind][pair]), color=color,
                    ls=ls, lw=1.8 if ls == "-" else 1.2,
                    label=f"w = {pair[0]:g}, p = {pair[1]:g}, {label}")
    ax.set_xscale("log")
    plotting.style(ax, "c (true count)", "eps",
                   "Naldi & D'Acquisto Fig. 2: eps against the true count ((w, p) ASSUMED)\n"
                   "solid: Laplace (the paper); dashed: geometric; "
                   f"dotted: Gaussian at delta = {DELTA:g}", legend_loc="lower left")
    return plotting.save(fig, out_dir, "naldi_dacquisto_fig2", dpi)
