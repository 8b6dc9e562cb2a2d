"""Desfontaines, Mohammadi, Krahmer & Basin, "Differential Privacy with Partial
Knowledge", Fig. 4: thresholding a count of rare events, Thm 4's (eps, delta)
against the exact curve.

Thm 4 (no background knowledge, every record one with probability <= p,
threshold tau above the expected count: lambda = tau / ((n-1) p) > 1) splits
the output space: the count is suppressed with probability >= 1 - delta, and
on the suppression marker the privacy loss is at most eps.  Its printed
formulas are lost in our copy of the text; ``theorem4_bound`` re-derives them
from the proof, with B(k) = P[Bin(n-1, p) = k] the law of the other records'
count and Lemma 2's geometric tail bound:

    delta_T4 = B(tau-1) / (1 - r),  r = (n-tau) p / (tau (1-p))    (>= P[release])
    eps_T4   = -ln(1 - B(tau-1) / (1 - delta_T4))                  (>= ln F(tau-1)/F(tau-2))

Both are bounds on the exact curve: at eps >= eps_T4 the suppressed cell adds
nothing to either hockey stick, so delta(eps_T4) <= P[release] <= delta_T4
(tests/test_thresholding.py checks it).  The figure puts Thm 4's pair next to
the exact statpriv.thresholded curve: the exact delta at Thm 4's eps and the
exact eps at Thm 4's delta.
"""
import math

import numpy as np

from statpriv.papers import _plotting as plotting
from statpriv.papers import _renamed

__all__ = ["theorem4_bound", "thresholding_regime_data", "partial_knowledge_fig4",
           "FIG4_N", "FIG4_EXPECTED"]

__getattr__ = _renamed.module_getattr(globals())    # deprecated names still work

# ASSUMED parameters (the figure's own were lost in extraction): n records,
# expected count (n-1) p of the other records, thresholds from just above it
# to a few times it.
FIG4_N = 1000
FIG4_EXPECTED = (1.0, 3.0, 10.0)


def theorem4_bound(n, p, threshold):
    """(eps_T4, delta_T4) of Thm 4 (no background knowledge), as re-derived
    from its proof; (inf, 1) where its condition tau > (n-1) p (r < 1) fails.
    See the module docstring for the formulas."""
    import mpmath
    N, tau = n - 1, int(threshold)
    with mpmath.workdps(40):
        p = mpmath.mpf(p)
        r = (N - (tau - 1)) * p / (tau * (1 - p))
        if tau < 1 or r >= 1:
            return math.inf, 1.0
        b = mpmath.binomial(N, tau - 1) * p ** (tau - 1) * (1 - p) ** (N - tau + 1)
        delta = b / (1 - r)
        if delta >= 1 or b >= 1 - delta:
            return math.inf, 1.0
        eps = -mpmath.log1p(-b / (1 - delta))
        return float(eps), float(delta)


def thresholding_regime_data(*, n=FIG4_N, expected=FIG4_EXPECTED, lambdas=None,
                             curve_mu=3.0, curve_lambdas=(2.0, 3.0, 4.0)):
    """For each expected count mu = (n-1) p and thresholds tau = ceil(lambda mu)
    (lambda from 1.5 to 6): Thm 4's (eps, delta), the exact delta at Thm 4's
    eps and the exact delta(0) (the total variation, z(tau-1)); and, at
    mu = ``curve_mu``, the exact curves delta(eps) for a few thresholds next
    to Thm 4's points.  statpriv.thresholded with no known records (the
    active and the passive attacker then coincide)."""
    from statpriv.thresholding import thresholded

    if lambdas is None:
        lambdas = np.linspace(1.5, 6.0, 19)
    rows = {}
    for mu in expected:
        p = mu / (n - 1)
        taus = sorted({max(2, math.ceil(lam * mu)) for lam in lambdas})
        points = [theorem4_bound(n, p, tau) for tau in taus]
        curves = [thresholded(n, p, tau) for tau in taus]
        rows[mu] = {"tau": np.array(taus, dtype=float), "lambda": np.array(taus) / mu,
                    "eps_t4": np.array([e for e, _ in points]),
                    "delta_t4": np.array([d for _, d in points]),
                    "exact_delta_at_eps_t4": np.array(
                        [c.delta(e) if math.isfinite(e) else math.nan
                         for c, (e, _) in zip(curves, points)]),
                    "exact_delta_at_0": np.array([c.delta(0.0) for c in curves])}
    eps = np.logspace(-4, 0.6, 200)
    p = curve_mu / (n - 1)
    curves = {}
    for lam in curve_lambdas:
        tau = max(2, math.ceil(lam * curve_mu))
        curves[tau] = {"delta": thresholded(n, p, tau).delta(eps),
                       "t4": theorem4_bound(n, p, tau)}
    return {"n": n, "expected": tuple(expected), "rows": rows, "eps": eps,
            "curve_mu": curve_mu, "curves": curves}


def partial_knowledge_fig4(out_dir, dpi=120):
    """Desfontaines et al. Fig. 4: Thm 4's (eps, delta) vs the exact thresholded curve
    (parameters ASSUMED: n = FIG4_N, expected counts FIG4_EXPECTED)."""
    data = thresholding_regime_data()
    fig, (left, right) = plotting.figure(ncols=2)
    for color, (mu, row) in zip(plotting.COLORS, data["rows"].items()):
        left.plot(row["lambda"], row["delta_t4"], color=color, lw=1.3, ls=(0, (4, 2.5)),
                  label=f"Thm 4 delta, (n-1)p = {mu:g}")
        left.plot(row["lambda"], row["eps_t4"], color=color, lw=1.0, ls=":",
                  label=f"Thm 4 eps, (n-1)p = {mu:g}")
        left.plot(row["lambda"], plotting.nan_zeros(row["exact_delta_at_eps_t4"]), color=color,
                  lw=2.0,
                  label=f"exact delta at Thm 4's eps, (n-1)p = {mu:g}")
    plotting.style(left, "lambda = threshold / expected count", "eps, delta",
                   f"Desfontaines et al. Fig. 4 (ASSUMED n = {data['n']}): thresholding,\n"
                   "Thm 4's (eps, delta) vs the exact delta at that eps", legend_loc="lower left")
    for color, (tau, curve) in zip(plotting.COLORS, data["curves"].items()):
        right.plot(data["eps"], plotting.nan_zeros(curve["delta"]), color=color, lw=2.0,
                   label=f"exact delta(eps), threshold {tau}")
        e4, d4 = curve["t4"]
        right.plot([e4], [d4], "o", color=color, ms=6, label=f"Thm 4 (eps, delta), threshold {tau}")
    right.set_xscale("log")
    right.set_ylim(1e-8, 1.0)
    plotting.style(right, "eps", "delta(eps)",
                   f"exact curves at (n-1)p = {data['curve_mu']:g}: Thm 4's point lies above them",
                   legend_loc="lower left")
    return plotting.save(fig, out_dir, "partial_knowledge_fig4", dpi)
