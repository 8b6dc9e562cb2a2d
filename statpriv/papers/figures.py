"""Regenerate the figures of Breutigam & Reischuk (Figs. 1-8) and Desfontaines et al.'s
Fig. 6 (nested noise) from the exact curves (Fig. 4, thresholding: statpriv.papers.thresholding),
and register every paper's figures in FIGURES (Naldi & D'Acquisto's Figs. 1-2:
statpriv.papers.interval_estimation).

Every plotted statistical-privacy (SP) value comes from ``statpriv.counting(...)``,
the exact curve (docs/mathematics.md §3-6).  Where Breutigam & Reischuk's figures rest on its normal
approximation (Lemma 6, and Lemma 10 = Lemma 6 at the equal-utility sigma: the only
formulas the paper gives for Gaussian noise, so presumably every Gaussian-noise curve
of Figs. 1, 2, 5, 6 and 8), the approximation is drawn as well, dashed and labelled
"normal approx. (Lemma 6)", with its largest relative deviation from the exact curve
printed in the plot; every other line is exact and says so.  (At these parameters
the approximation is within 0.03%-2.3% of the exact values.)
Worst-case DP comparisons use ``statpriv.dp``.

Units (docs/mathematics.md §2): counts, sensitivity 1.  Breutigam & Reischuk's "noise level nu" (sigma =
nu * s with s = 1/n in fraction units) is the Gaussian sigma = nu, resp. the
Laplace scale b = nu, in count units.  Equal utility (docs/mathematics.md §6, Breutigam & Reischuk §4.4)
comes from ``statpriv.utility.equal_utility_noise``: Laplace scale
b = n sqrt(pi(1-pi)(1/m - 1/n)/2), Gaussian sigma = n sqrt(pi(1-pi)(1/m - 1/n)).

The data of each figure is computed by a ``*_data`` function (numpy arrays, no
matplotlib) so that it can be tested; ``fig1`` .. ``fig8`` and ``desfontaines_fig6``
plot it and ``make_figures`` writes them all.  matplotlib is an optional extra
(``pip install ".[plot]"``); it is imported only when plotting, through its
non-interactive Agg canvas (no pyplot, no change of the user's backend).
"""
import math
import os
from typing import Any

import numpy as np

from statpriv import _progress, dp
from statpriv.analysis.utility import equal_utility_noise
from statpriv.counting import counting
from statpriv.dp import amplify
from statpriv.noise import Gaussian, Geometric, Laplace
from statpriv.papers import _plotting as plotting
from statpriv.papers import _renamed
from statpriv.papers import interval_estimation as _interval_figures
from statpriv.papers import partial_knowledge as _pk_figures
from statpriv.papers.thresholding import desfontaines_fig4

__all__ = ["make_figures", "figure_numbers", "FIGURES",
           "noise_vs_pi_data", "ratio_vs_nu_data", "equal_utility_vs_pi_data",
           "amplification_data", "equal_utility_vs_rate_data", "nested_noise_data",
           "fig1", "fig2", "fig3", "fig4", "fig5", "fig6", "fig7", "fig8",
           "desfontaines_fig6"]

__getattr__ = _renamed.module_getattr(globals())    # deprecated names still work

# Breutigam & Reischuk §5: n = 1000, eps = 0.01, noise levels nu1 = 1, nu2 = 3, pi in (0, 1/2].
N_RECORDS = 1000
EPS = 0.01
NOISE_LEVELS = (1.0, 3.0)
PIS_RATIO = (0.5, 0.1, 0.01)        # Fig. 2/4/6: pi1, pi2, pi3
NORMAL_LABEL = "normal approx. (Lemma 6)"

# Desfontaines et al. Fig. 6 (nested noise): the extracted text keeps no parameters; these are
# assumed (see nested_noise_data).
NESTED_P = 0.1                      # uncertainty p of every unknown record (the paper's
                                    # running example: "at least 10%")
NESTED_N_UNKNOWN = 100              # unknown records (the target included)
NESTED_EPS0 = 0.5                   # geometric noise alpha = exp(-eps0): eps0-DP alone
NESTED_EPS_FIXED = 0.25             # eps of the right-hand panel


def _pi_grid() -> Any:
    """pi in (0, 1/2]: dense near 0, where the data's own randomness vanishes."""
    return np.unique(np.round(np.concatenate([np.geomspace(1e-4, 0.05, 30),
                                              np.linspace(0.05, 0.5, 37)]), 10))


def _nu_grid() -> Any:
    return np.linspace(1.0, 10.0, 37)


def _noise(kind: Any, level: Any) -> Any:
    if kind == "gaussian":
        return Gaussian(level)
    if kind == "laplace":
        return Laplace(level)
    raise ValueError(f"kind must be 'gaussian' or 'laplace', got {kind!r}")


def _dp_delta(kind: Any, level: Any, eps: Any) -> Any:
    return float(_noise(kind, level).dp_curve().delta(eps))


# ---------------------------------------------------------------- data ---
def noise_vs_pi_data(kind: Any, *, n: Any = N_RECORDS, eps: Any = EPS, nus: Any = NOISE_LEVELS,
                     pis: Any = None) -> Any:
    """Figs. 1 (Gaussian) and 3 (Laplace): delta(eps) against pi for each noise level nu.

    Returns a dict with ``pi`` (array), ``nu`` (tuple), ``sp[nu]`` (exact SP delta,
    array over pi), ``dp[nu]`` (worst-case DP delta, float) and, for Gaussian
    noise, ``normal[nu]`` (Breutigam & Reischuk Lemma 6, an approximation).
    """
    pis = _pi_grid() if pis is None else np.asarray(pis, dtype=float)
    out = {"kind": kind, "n": n, "eps": eps, "pi": pis, "nu": tuple(nus),
           "sp": {}, "dp": {}, "normal": {}}
    for nu in nus:
        noise = _noise(kind, nu)
        out["dp"][nu] = _dp_delta(kind, nu, eps)
        out["sp"][nu] = np.array([counting(n, p, noise=noise).delta(eps) for p in pis])
        if kind == "gaussian":
            out["normal"][nu] = np.array([counting(n, p, noise=noise, approx="normal").delta(eps)
                                          for p in pis])
    return out


def ratio_vs_nu_data(kind: Any, *, n: Any = N_RECORDS, eps: Any = EPS, pis: Any = PIS_RATIO,
                     nus: Any = None) -> Any:
    """Figs. 2, 4 (n = 1000) and 6 (n = 100): delta_DP / delta_SP against nu in [1, 10].

    Returns ``nu`` (array), ``dp`` (array over nu), ``sp[pi]`` and ``ratio[pi]``
    (exact), and for Gaussian noise ``normal_sp[pi]``, ``normal_ratio[pi]``
    (Lemma 6 approximation).
    """
    nus = _nu_grid() if nus is None else np.asarray(nus, dtype=float)
    dp_vals = np.array([_dp_delta(kind, nu, eps) for nu in nus])
    out = {"kind": kind, "n": n, "eps": eps, "nu": nus, "pi": tuple(pis), "dp": dp_vals,
           "sp": {}, "ratio": {}, "normal_sp": {}, "normal_ratio": {}}
    for p in pis:
        sp = np.array([counting(n, p, noise=_noise(kind, nu)).delta(eps) for nu in nus])
        out["sp"][p] = sp
        out["ratio"][p] = dp_vals / sp
        if kind == "gaussian":
            approx = np.array([counting(n, p, noise=Gaussian(nu), approx="normal").delta(eps)
                               for nu in nus])
            out["normal_sp"][p] = approx
            out["normal_ratio"][p] = dp_vals / approx
    return out


def _equal_utility_point(n: Any, p: Any, m: Any, eps: Any) -> Any:
    """delta(eps) of subsampling m of n, and of Laplace / Gaussian noise on the full
    count with the same utility loss; plus the Lemma 6 (Lemma 10) approximation."""
    lap = equal_utility_noise(n, p, m, Laplace)
    gau = equal_utility_noise(n, p, m, Gaussian)
    return (counting(n, p, sample_size=m).delta(eps),
            counting(n, p, noise=lap).delta(eps),
            counting(n, p, noise=gau).delta(eps),
            counting(n, p, noise=gau, approx="normal").delta(eps),
            lap.scale, gau.sigma)


def _equal_utility_arrays(points: Any) -> Any:
    cols = np.array(points, dtype=float).T
    keys = ("subsampling", "laplace", "gaussian", "gaussian_normal", "laplace_scale",
            "gaussian_sigma")
    return dict(zip(keys, cols))


def equal_utility_vs_pi_data(*, n: Any = N_RECORDS, rate: Any = 0.1, eps: Any = EPS,
                             pis: Any = None) -> Any:
    """Fig. 5: the three mechanisms at equal utility loss (m = rate n) against pi.

    Returns ``pi``, ``m`` and arrays ``subsampling``, ``laplace``, ``gaussian``
    (exact delta(eps)), ``gaussian_normal`` (Lemma 10 = Lemma 6 approximation),
    ``laplace_scale``, ``gaussian_sigma`` (count units).
    """
    pis = _pi_grid() if pis is None else np.asarray(pis, dtype=float)
    m = int(round(rate * n))
    out = {"n": n, "m": m, "rate": m / n, "eps": eps, "pi": pis}
    out.update(_equal_utility_arrays([_equal_utility_point(n, p, m, eps) for p in pis]))
    return out


def equal_utility_vs_rate_data(*, n: Any = N_RECORDS, pi: Any = 0.5, eps: Any = EPS,
                               sample_sizes: Any = None) -> Any:
    """Fig. 8: the three mechanisms at equal utility loss against lambda = m/n (m < n).

    Same keys as equal_utility_vs_pi_data, with ``m`` and ``rate`` arrays.
    """
    ms = (np.arange(10, n, 10) if sample_sizes is None
          else np.asarray(sample_sizes, dtype=int))
    out = {"n": n, "pi": pi, "eps": eps, "m": ms, "rate": ms / n}
    out.update(_equal_utility_arrays([_equal_utility_point(n, pi, int(m), eps) for m in ms]))
    return out


def amplification_data(*, n: Any = N_RECORDS, pi: Any = 0.5, eps: Any = 0.1,
                       sample_sizes: Any = None) -> Any:
    """Fig. 7: delta_SAMP(n, lambda; eps') with eps' = ln(1 + lambda (e^eps - 1)) against
    lambda * delta_pure(m = lambda n; eps) (Breutigam & Reischuk §7's conjecture, docs/mathematics.md §5).

    Returns ``m``, ``rate``, ``eps_prime`` and exact ``samp``, ``bound`` arrays.
    """
    ms = (np.arange(5, n + 1, 5) if sample_sizes is None
          else np.asarray(sample_sizes, dtype=int))
    rates = ms / n
    eps_prime, _ = amplify(eps, 0.0, rates)
    samp = np.array([counting(n, pi, sample_size=int(m)).delta(e)
                     for m, e in zip(ms, eps_prime)])
    bound = np.array([r * counting(int(m), pi).delta(eps) for m, r in zip(ms, rates)])
    return {"n": n, "pi": pi, "eps": eps, "m": ms, "rate": rates, "eps_prime": eps_prime,
            "samp": samp, "bound": bound}


def nested_noise_data(*, p: Any = NESTED_P, n_unknown: Any = NESTED_N_UNKNOWN,
                      eps0: Any = NESTED_EPS0, eps_values: Any = None,
                      eps_fixed: Any = NESTED_EPS_FIXED, n_values: Any = None) -> Any:
    """Desfontaines et al. Fig. 6 (§5.2, nested noise): a noiseless count plus two-sided geometric
    noise, computed as the exact discrete convolution (docs/mathematics.md §6, §7).

    Desfontaines et al.'s formulas and figure parameters were lost in extraction; ASSUMED here:
    every record the attacker does not know has the property with probability
    p = 0.1 (the paper's running example, "uncertainty at least 10%"; all pi_j = p is
    the attained worst case of docs/mathematics.md), n_unknown = 100 unknown records (the
    target included; known records only shift the count, docs/mathematics.md §2), and the
    geometric noise has alpha = exp(-eps0) with eps0 = 0.5, so that the noise alone
    is eps0-DP.  Left panel: delta(eps) of the noiseless count, of the noise alone
    (worst-case DP) and of both (nested), with the post-processing bound
    min(noiseless, noise alone).  Right panel: delta(eps_fixed) against the number
    of unknown records.
    """
    alpha = math.exp(-eps0)
    noise = Geometric(alpha)
    if eps_values is None:   # dense just below eps0, where the noisy curves reach 0
        eps_values = np.union1d(np.linspace(0.0, 1.2, 61),
                                eps0 - np.geomspace(1e-4, 0.04, 12))
    eps_values = np.asarray(eps_values, dtype=float)
    n_values = (np.unique(np.round(np.geomspace(1, 1000, 40)).astype(int)) if n_values is None
                else np.asarray(n_values, dtype=int))
    dp_curve = dp.geometric(alpha)
    noiseless = counting(n_unknown, p).delta(eps_values)
    noise_only = dp_curve.delta(eps_values)
    nested = counting(n_unknown, p, noise=noise).delta(eps_values)
    by_n_noiseless = np.array([counting(int(k), p).delta(eps_fixed) for k in n_values])
    by_n_nested = np.array([counting(int(k), p, noise=noise).delta(eps_fixed)
                            for k in n_values])
    return {"p": p, "n_unknown": n_unknown, "eps0": eps0, "alpha": alpha,
            "eps": eps_values, "noiseless": noiseless, "noise_only": noise_only,
            "nested": nested, "post_processing_bound": np.minimum(noiseless, noise_only),
            "eps_fixed": eps_fixed, "n_values": n_values,
            "by_n_noiseless": by_n_noiseless, "by_n_nested": by_n_nested,
            "by_n_noise_only": float(dp_curve.delta(eps_fixed))}


def figure_numbers() -> Any:
    """The numbers Breutigam & Reischuk prints or states in its text, recomputed.

    ``dp_gaussian_nu1`` / ``dp_gaussian_nu3``: worst-case DP Gaussian delta at
    eps = 0.01 for nu = 1 and 3 (the paper prints 0.38 and 0.128; docs/mathematics.md §6 has
    0.379841760124599 and 0.128067047707446).  The other entries are the exact SP
    values at n = 1000, pi = 0.5 behind Figs. 1 and 5 and the equal-utility
    Laplace DP level of §4.4 at lambda = 0.1.

    Returns
    -------
    dict
        name -> float, the names above.

    Examples
    --------
    >>> from statpriv.papers.figures import figure_numbers
    >>> numbers = figure_numbers()
    >>> print(f"{numbers['dp_gaussian_nu1']:.15f} {numbers['dp_gaussian_nu3']:.15f}")
    0.379841760124599 0.128067047707446
    """
    n, eps = N_RECORDS, EPS
    m = n // 10
    lap = equal_utility_noise(n, 0.5, m, Laplace)
    gau = equal_utility_noise(n, 0.5, m, Gaussian)
    samp = counting(n, 0.5, sample_size=m).delta(eps)
    lap_delta = counting(n, 0.5, noise=lap).delta(eps)
    return {
        "dp_gaussian_nu1": float(dp.gaussian(1.0).delta(eps)),
        "dp_gaussian_nu3": float(dp.gaussian(3.0).delta(eps)),
        "dp_laplace_nu1": float(dp.laplace(1.0).delta(eps)),
        "dp_laplace_nu3": float(dp.laplace(3.0).delta(eps)),
        "sp_gaussian_nu1_pi05": counting(n, 0.5, noise=Gaussian(1.0)).delta(eps),
        "sp_gaussian_nu3_pi05": counting(n, 0.5, noise=Gaussian(3.0)).delta(eps),
        "sp_noiseless_pi05": counting(n, 0.5).delta(eps),
        "equal_utility_laplace_eps_rate01_pi05": 1.0 / lap.scale,
        "fig5_subsampling_pi05": samp,
        "fig5_laplace_pi05": lap_delta,
        "fig5_gaussian_pi05": counting(n, 0.5, noise=gau).delta(eps),
        "fig5_laplace_over_subsampling_pi05": lap_delta / samp,
    }


# ------------------------------------------------------------ plotting ---
def _file_name(fig_no: Any) -> Any:
    """The PNG file name (without .png) of Breutigam & Reischuk's Fig. ``fig_no``."""
    return f"breutigam_reischuk_fig{fig_no}"


def _plot_noise_vs_pi(data: Any, out_dir: Any, dpi: Any, fig_no: Any) -> Any:
    fig, (ax,) = plotting.figure()
    gaussian = data["kind"] == "gaussian"
    noise_word = "Gaussian sigma" if gaussian else "Laplace scale b"
    diffs = []
    for color, nu in zip(plotting.COLORS, data["nu"]):
        ax.plot(data["pi"], data["sp"][nu], color=color, label=f"SP, nu = {nu:g} (exact)",
                **plotting.EXACT)
        if gaussian:
            ax.plot(data["pi"], data["normal"][nu], color=color,
                    label=f"SP, nu = {nu:g}, {NORMAL_LABEL}", **plotting.APPROX)
            diffs.append(plotting.max_rel_diff(data["normal"][nu], data["sp"][nu]))
        ax.axhline(data["dp"][nu], color=color, lw=1.2, ls=":",
                   label=f"worst-case DP, nu = {nu:g} (exact): {data['dp'][nu]:.3g}")
    ax.set_xlim(0.0, 0.5)
    if gaussian:
        plotting.note(ax, "normal approx. vs exact: max relative difference\n"
                          + ", ".join(f"nu = {nu:g}: {d:.2%}" for nu, d in zip(data["nu"], diffs)),
                      loc="lower left")
    approx_note = "; dashed: normal approx." if gaussian else "; all curves exact"
    plotting.style(ax, "pi (probability of the property)", f"delta(eps = {data['eps']:g})",
                   f"Breutigam & Reischuk Fig. {fig_no}: {data['kind'].capitalize()} noise, "
                   f"n = {data['n']}\n{noise_word} = nu (count units)\n"
                   f"solid: exact SP; dotted: worst-case DP{approx_note}", legend_loc="upper right")
    return plotting.save(fig, out_dir, _file_name(fig_no), dpi)


def _plot_ratio_axes(ax: Any, data: Any, title: Any) -> None:
    gaussian = data["kind"] == "gaussian"
    diffs = []
    for color, p in zip(plotting.COLORS, data["pi"]):
        ax.plot(data["nu"], data["ratio"][p], color=color, label=f"pi = {p:g} (exact)",
                **plotting.EXACT)
        if gaussian:
            ax.plot(data["nu"], data["normal_ratio"][p], color=color,
                    label=f"pi = {p:g}, {NORMAL_LABEL}", **plotting.APPROX)
            diffs.append(plotting.max_rel_diff(data["normal_ratio"][p], data["ratio"][p]))
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.set_xlim(1.0, 10.0)
    if gaussian:
        plotting.note(ax, "normal approx. vs exact ratio: max relative difference\n"
                          + ", ".join(f"pi = {p:g}: {d:.2%}" for p, d in zip(data["pi"], diffs)),
                      loc="center right")
    plotting.style(ax, "nu (noise level, count units)",
                   f"delta_DP / delta_SP at eps = {data['eps']:g}", title, legend_loc="upper right")


def _plot_ratio(data: Any, out_dir: Any, dpi: Any, fig_no: Any) -> Any:
    fig, (ax,) = plotting.figure()
    kind = data["kind"].capitalize()
    note = "dashed: normal approx." if data["kind"] == "gaussian" else "all curves exact"
    _plot_ratio_axes(ax, data, f"Breutigam & Reischuk Fig. {fig_no}: DP/SP delta ratio, {kind} noise, "
                               f"n = {data['n']}\nsolid: exact; {note}")
    return plotting.save(fig, out_dir, _file_name(fig_no), dpi)


def _plot_equal_utility(ax: Any, data: Any, x: Any, xlabel: Any, title: Any,
                        legend_loc: Any = "lower right", note_loc: Any = "upper left") -> None:
    ax.plot(x, data["subsampling"], color="tab:blue", lw=6.0, alpha=0.4,
            solid_capstyle="butt", label="subsampling (exact)")
    ax.plot(x, data["gaussian"], color="tab:green", lw=1.8, label="Gaussian noise (exact)")
    ax.plot(x, data["gaussian_normal"], color="black", lw=1.0, ls=(0, (4, 2.5)),
            label=f"Gaussian noise, {NORMAL_LABEL}")
    zero = data["laplace"] == 0.0
    ax.plot(x, np.where(zero, np.nan, data["laplace"]), color="tab:orange", lw=1.8,
            label="Laplace noise (exact)")
    if zero.any():
        # Laplace noise of scale b is (1/b, 0)-DP (Breutigam & Reischuk Lemma 5): delta = 0 for
        # eps >= 1/b, invisible on a log axis; mark where.
        ax.plot(x[zero], np.full(zero.sum(), np.min(data["subsampling"]) * 0.8), "v",
                color="tab:orange", ms=6, label="Laplace: delta = 0 here (eps >= 1/b)")
    plotting.note(ax, "Gaussian normal approx. vs exact: max relative difference "
                      f"{plotting.max_rel_diff(data['gaussian_normal'], data['gaussian']):.2%}",
                  loc=note_loc)
    plotting.style(ax, xlabel, f"delta(eps = {data['eps']:g})", title, legend_loc=legend_loc)


def fig1(out_dir: Any, dpi: Any = 120) -> Any:
    """Fig. 1: Gaussian noise, delta(0.01) against pi for nu = 1, 3, n = 1000."""
    return _plot_noise_vs_pi(noise_vs_pi_data("gaussian"), out_dir, dpi, 1)


def fig2(out_dir: Any, dpi: Any = 120) -> Any:
    """Fig. 2: Gaussian noise, delta_DP / delta_SP against nu for pi = 0.5, 0.1, 0.01."""
    return _plot_ratio(ratio_vs_nu_data("gaussian"), out_dir, dpi, 2)


def fig3(out_dir: Any, dpi: Any = 120) -> Any:
    """Fig. 3: as Fig. 1 with Laplace noise of scale nu (no normal approximation: Lemma 6
    is for Gaussian noise only)."""
    return _plot_noise_vs_pi(noise_vs_pi_data("laplace"), out_dir, dpi, 3)


def fig4(out_dir: Any, dpi: Any = 120) -> Any:
    """Fig. 4: as Fig. 2 with Laplace noise."""
    return _plot_ratio(ratio_vs_nu_data("laplace"), out_dir, dpi, 4)


def fig5(out_dir: Any, dpi: Any = 120) -> Any:
    """Fig. 5: subsampling (lambda = 0.1) vs Laplace and Gaussian noise of equal utility
    loss, delta(0.01) against pi, n = 1000."""
    data = equal_utility_vs_pi_data()
    fig, (ax,) = plotting.figure()
    _plot_equal_utility(ax, data, data["pi"], "pi (probability of the property)",
                        f"Breutigam & Reischuk Fig. 5: equal utility loss, n = {data['n']}, "
                        f"lambda = {data['rate']:g} (m = {data['m']})\n"
                        "solid: exact; dashed: normal approx.", legend_loc="upper right",
                        note_loc="center right")
    ax.set_xlim(0.0, 0.5)
    return plotting.save(fig, out_dir, _file_name(5), dpi)


def fig6(out_dir: Any, dpi: Any = 120) -> Any:
    """Fig. 6: DP/SP delta ratio for n = 100.  The paper's caption does not say which
    noise; its text discusses it with Laplace noise, so both panels are drawn."""
    fig, axes = plotting.figure(ncols=2)
    for ax, kind in zip(axes, ("laplace", "gaussian")):
        data = ratio_vs_nu_data(kind, n=100)
        note = "dashed: normal approx." if kind == "gaussian" else "all curves exact"
        _plot_ratio_axes(ax, data, f"Breutigam & Reischuk Fig. 6: DP/SP delta ratio, n = 100, "
                                   f"{kind.capitalize()} noise\nsolid: exact; {note}")
    return plotting.save(fig, out_dir, _file_name(6), dpi)


def fig7(out_dir: Any, dpi: Any = 120) -> Any:
    """Fig. 7: delta_SAMP(n, lambda; eps') and lambda delta_pure(m; eps) against lambda,
    n = 1000, pi = 0.5, eps = 0.1 (the §7 conjecture: the first never exceeds the second)."""
    data = amplification_data()
    fig, (ax,) = plotting.figure()
    ax.plot(data["rate"], data["samp"], color="tab:blue", lw=1.8,
            label="delta_SAMP(n, lambda; eps'),\neps' = ln(1 + lambda (e^eps - 1))  (exact)")
    ax.plot(data["rate"], data["bound"], color="orange", lw=1.8, ls="--",
            label="lambda * delta_pure(m = lambda n; eps)  (exact)")
    ax.set_xlim(0.0, 1.0)
    below = data["m"] < data["n"]
    ratio = data["samp"][below] / data["bound"][below]
    plotting.note(ax, f"max delta_SAMP / bound over lambda < 1: {ratio.max():.6f}\n"
                      "(at lambda = 1 both are delta_pure(n; eps))", loc="lower center")
    plotting.style(ax, "lambda = m / n (sampling rate)", "delta",
                   f"Breutigam & Reischuk Fig. 7: subsampling vs amplification bound\n"
                   f"n = {data['n']}, pi = {data['pi']:g}, eps = {data['eps']:g}; "
                   "both curves exact",
                   legend_loc="upper right")
    return plotting.save(fig, out_dir, _file_name(7), dpi)


def fig8(out_dir: Any, dpi: Any = 120) -> Any:
    """Fig. 8: the three mechanisms at equal utility loss against lambda, pi = 0.5, 0.1."""
    fig, axes = plotting.figure(ncols=2)
    for ax, p in zip(axes, (0.5, 0.1)):
        data = equal_utility_vs_rate_data(pi=p)
        _plot_equal_utility(ax, data, data["rate"], "lambda = m / n (sampling rate)",
                            f"Breutigam & Reischuk Fig. 8: equal utility loss, n = {data['n']}, "
                            f"pi = {p:g}\nsolid: exact; dashed: normal approx.")
        ax.set_xlim(0.0, 1.0)
    return plotting.save(fig, out_dir, _file_name(8), dpi)


def desfontaines_fig6(out_dir: Any, dpi: Any = 120) -> Any:
    """Desfontaines et al. Fig. 6: noiseless count + two-sided geometric noise (nested noise).
    Parameters ASSUMED (the paper's were lost): see nested_noise_data."""
    data = nested_noise_data()
    fig, (left, right) = plotting.figure(ncols=2)
    left.plot(data["eps"], data["noiseless"], color="tab:blue", lw=1.8,
              label=f"noiseless count, {data['n_unknown']} unknown records (exact)")
    left.plot(data["eps"], plotting.nan_zeros(data["noise_only"]), color="tab:orange", lw=1.8,
              label="geometric noise alone = worst-case DP (exact)")
    left.plot(data["eps"], plotting.nan_zeros(data["post_processing_bound"]), color="grey",
              lw=7.0, alpha=0.25, solid_capstyle="butt", zorder=1,
              label="min of the two (post-processing bound)")
    left.plot(data["eps"], plotting.nan_zeros(data["nested"]), color="tab:green", lw=2.0,
              label="count + geometric noise, nested (exact convolution)")
    left.set_ylim(1e-4, 0.5)
    left.axvline(data["eps0"], color="tab:orange", lw=0.8, ls=":")
    plotting.note(left, f"noise alone and nested:\ndelta = 0 for eps >= eps0 = {data['eps0']:g}",
                  loc="upper right")
    plotting.style(left, "eps", "delta(eps)",
                   f"Desfontaines et al. Fig. 6 (ASSUMED: p = {data['p']:g}, "
                   f"{data['n_unknown']} unknown records,"
                   f"\ngeometric alpha = e^-{data['eps0']:g}); all curves exact",
                   legend_loc="lower left")
    n_values = data["n_values"]
    right.plot(n_values, data["by_n_noiseless"], color="tab:blue", lw=1.8,
               label="noiseless count (exact)")
    right.axhline(data["by_n_noise_only"], color="tab:orange", lw=1.8,
                  label="geometric noise alone = worst-case DP (exact)")
    right.plot(n_values, data["by_n_nested"], color="tab:green", lw=2.0,
               label="count + geometric noise (exact)")
    right.set_xscale("log")
    plotting.style(right, "unknown records (target included)",
                   f"delta(eps = {data['eps_fixed']:g})",
                   f"Desfontaines et al. §5.2: noise takes over when few records are unknown\n"
                   f"(ASSUMED p = {data['p']:g}, alpha = e^-{data['eps0']:g}); all curves exact",
                   legend_loc="lower left")
    return plotting.save(fig, out_dir, "desfontaines_fig6", dpi)


# Breutigam & Reischuk Figs. 1-8, then Desfontaines et al. Figs. 2-6
# (statpriv.papers.partial_knowledge, statpriv.papers.thresholding, nested noise here),
# then Naldi & D'Acquisto Figs. 1-2 (statpriv.papers.interval_estimation);
# a figure's deprecated name still finds it (statpriv.papers._renamed)
FIGURES = _renamed.RenamedKeys(
    fig1=fig1, fig2=fig2, fig3=fig3, fig4=fig4, fig5=fig5, fig6=fig6, fig7=fig7, fig8=fig8,
    desfontaines_fig2=_pk_figures.desfontaines_fig2,
    desfontaines_fig2_cases=_pk_figures.desfontaines_fig2_cases,
    desfontaines_fig3=_pk_figures.desfontaines_fig3,
    desfontaines_fig4=desfontaines_fig4,
    desfontaines_fig5=_pk_figures.desfontaines_fig5,
    desfontaines_fig6=desfontaines_fig6,
    naldi_dacquisto_fig1=_interval_figures.naldi_dacquisto_fig1,
    naldi_dacquisto_fig2=_interval_figures.naldi_dacquisto_fig2)


def make_figures(out_dir: Any, *, which: Any = None, dpi: Any = 120) -> Any:
    """Write the figures as PNG files into ``out_dir`` (created if missing).

    Parameters
    ----------
    out_dir : str or path
        The directory the PNG files are written to.
    which : iterable of str, or str, keyword only
        Names from FIGURES (default: all): "fig1" .. "fig8" (Breutigam & Reischuk,
        "Statistical Privacy"; files breutigam_reischuk_fig1.png ..), "desfontaines_fig2"
        .. "desfontaines_fig6" (Desfontaines et al., "Differential Privacy with Partial
        Knowledge"; files desfontaines_fig2.png ..), "naldi_dacquisto_fig1" and
        "naldi_dacquisto_fig2" (Naldi & D'Acquisto, arXiv:1510.00917).  A deprecated name
        still works, with a DeprecationWarning.
    dpi : int, keyword only
        Resolution of the PNG files (default 120).

    Returns
    -------
    dict
        name -> path of the written PNG (by current name; a deprecated name
        still finds its entry, with a DeprecationWarning).

    Notes
    -----
    Needs matplotlib (``pip install ".[plot]"`` from a statpriv checkout).

    Examples
    --------
    >>> import os, tempfile
    >>> from statpriv.papers.figures import make_figures
    >>> with tempfile.TemporaryDirectory() as out:
    ...     written = make_figures(out, which=["naldi_dacquisto_fig2"], dpi=40)
    ...     print(os.path.basename(written["naldi_dacquisto_fig2"]))
    naldi_dacquisto_fig2.png
    """
    if isinstance(which, str):
        which = [which]
    names = list(FIGURES) if which is None else [_renamed.current_name(name) for name in which]
    unknown = [name for name in names if name not in FIGURES]
    if unknown:
        raise ValueError(f"unknown figure(s) {unknown}; choose from {list(FIGURES)}")
    plotting.figure()   # fail early with the install hint if matplotlib is missing
    os.makedirs(out_dir, exist_ok=True)
    written = _renamed.RenamedKeys()
    with _progress.bar(len(names), "figures", unit="figure") as bar:
        for name in names:
            written[name] = FIGURES[name](out_dir, dpi=dpi)
            if bar is not None:
                bar.update()
    return written
