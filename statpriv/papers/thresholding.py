"""Desfontaines, Mohammadi, Krahmer & Basin, "Differential Privacy with Partial
Knowledge", Fig. 4: thresholding a count of rare events, Thm 4's (eps, delta)
against the exact curve; and Thm 5, the k-anonymous histogram's (eps, delta)
(``theorem5_bound``, its reading choices in its docstring), against the exact
statpriv.k_anonymity bracket (``theorem5_gap_data``, the table of
docs/thresholding.md).

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

The theorem's two further statements, re-derived the same way:

* ``theorem4_poisson``: "for large n, lambda fixed, the Poisson
  approximation": the same two formulas with B the Poisson(mu) pmf,
  mu = (n-1) p, and r = mu / tau (Lemma 2 for the Poisson limit).  An
  approximation, not a bound.
* ``theorem4_background_bound``: an attacker who passively knows m records
  (PPKDP), with at most b ones among them except with small probability.
  With N' = n-1-m unknown others and T(N, k) = B_N(k) / (1 - r_N(k)),
  r_N(k) = (N-k) p / ((k+1)(1-p)), Lemma 2's bound on P[Bin(N, p) >= k]:

      delta_BK = T(m, b+1) + T(N', tau-b-1)
      eps_BK   = -ln(1 - B_N'(tau-b-1) / (1 - T(N', tau-b-1)))

  (the first term: more than b known ones; the second: a release is possible
  at the lowest effective threshold tau - b; on the suppression marker the
  loss is largest at b' = b known ones).
"""
import math
from typing import Any, Callable, Dict, List

import numpy as np

from statpriv.papers import _plotting as plotting
from statpriv.papers import _renamed

__all__ = ["theorem4_bound", "theorem4_poisson", "theorem4_background_bound",
           "theorem5_bound", "theorem5_gap_data", "THM5_CONFIGURATIONS",
           "thresholding_regime_data", "desfontaines_fig4", "FIG4_N", "FIG4_EXPECTED"]

__getattr__ = _renamed.module_getattr(globals())    # deprecated names still work

# ASSUMED parameters (the figure's own were lost in extraction): n records,
# expected count (n-1) p of the other records, thresholds from just above it
# to a few times it.
FIG4_N = 1000
FIG4_EXPECTED = (1.0, 3.0, 10.0)


_NO_GUARANTEE = (math.inf, 1.0)


def _lemma2_tail(N: Any, p: Any, k: Any) -> Any:
    """(B_N(k), T) with T = B_N(k) / (1 - r), r = (N-k) p / ((k+1)(1-p)): Lemma 2's
    bound on P[Bin(N, p) >= k] (the pmf ratio B(j+1)/B(j) decreases in j, so the
    tail is below a geometric series of ratio r); None where r >= 1.  mpmath,
    inside the caller's working precision."""
    r = (N - k) * p / ((k + 1) * (1 - p))
    if r >= 1:
        return None
    b = _binomial_pmf(N, p, k)
    return b, b / (1 - r)


def _binomial_pmf(N: Any, p: Any, k: Any) -> Any:
    """P[Bin(N, p) = k] in mpmath, inside the caller's working precision."""
    import mpmath
    return mpmath.binomial(N, k) * p ** k * (1 - p) ** (N - k)


def _eps_delta(term: Any, delta: Any) -> Any:
    """(eps, delta) from the suppression-cell term B and the release bound delta:
    eps = -ln(1 - B / (1 - delta)); no guarantee where that is undefined."""
    import mpmath
    if delta >= 1 or term >= 1 - delta:
        return _NO_GUARANTEE
    return float(-mpmath.log1p(-term / (1 - delta))), float(delta)


def _checked(n: Any, p: Any, threshold: Any) -> Any:
    from statpriv import _validate
    n = _validate.count("n", n, low=1)
    return n, _validate.real("p", p, low=0.0, high=1.0, low_open=True, high_open=True), \
        _validate.count("threshold", threshold, low=0)


def theorem4_bound(n: Any, p: Any, threshold: Any) -> Any:
    """(eps_T4, delta_T4) of Thm 4 (no background knowledge), as re-derived
    from its proof; (inf, 1) where its condition tau > (n-1) p (r < 1) fails.
    See the module docstring for the formulas."""
    import mpmath
    N, tau = n - 1, int(threshold)
    with mpmath.workdps(40):
        if tau < 1:
            return _NO_GUARANTEE
        tail = _lemma2_tail(N, mpmath.mpf(p), tau - 1)
        return _NO_GUARANTEE if tail is None else _eps_delta(*tail)


def _poisson_one(mu: Any, tau: Any) -> Any:
    import mpmath
    with mpmath.workdps(40):
        mu = mpmath.mpf(mu)
        r = mu / tau
        if tau < 1 or r >= 1:
            return _NO_GUARANTEE
        b = mpmath.exp(-mu) * mu ** (tau - 1) / mpmath.factorial(tau - 1)
        return _eps_delta(b, b / (1 - r))


def theorem4_poisson(n: Any, p: Any, threshold: Any) -> Any:
    """Thm 4's Poisson approximation (n large, lambda = tau / ((n-1) p) fixed):
    with mu = (n-1) p and P(k) = e^-mu mu^k / k!,

        delta_P = P(tau-1) / (1 - mu/tau),   eps_P = -ln(1 - P(tau-1) / (1 - delta_P)),

    i.e. theorem4_bound with the binomial replaced by its Poisson limit.  An
    approximation of Thm 4's pair, not a bound on the exact curve (docs/thresholding.md
    gives the measured gaps).  (inf, 1) where tau <= mu.

    n : int >= 1; p : float in (0, 1); threshold : int >= 0, or arrays of them
    (they broadcast).  Returns (eps, delta), floats or float arrays.
    """
    n, p, threshold = np.broadcast_arrays(n, p, threshold)
    out = [_poisson_one((nn - 1) * pp, tt) for nn, pp, tt in
           (_checked(*args) for args in zip(n.ravel(), p.ravel(), threshold.ravel()))]
    return _unpack(out, n.shape)


def _background_one(n: Any, p: Any, tau: Any, known: Any, known_ones: Any) -> Any:
    import mpmath
    unknown = n - 1 - known
    k = tau - known_ones - 1          # the others' count that reaches the lowest threshold
    with mpmath.workdps(40):
        p = mpmath.mpf(p)
        if k < 0:
            return _NO_GUARANTEE
        if known_ones + 1 > known:    # cannot know more ones than known records
            too_many = mpmath.mpf(0)
        else:
            tail = _lemma2_tail(known, p, known_ones + 1)
            if tail is None:
                return _NO_GUARANTEE
            too_many = tail[1]
        release = _lemma2_tail(unknown, p, k)
        if release is None:
            return _NO_GUARANTEE
        eps, _ = _eps_delta(*release)
        delta = too_many + release[1]
        return _NO_GUARANTEE if delta >= 1 or not math.isfinite(eps) else (eps, float(delta))


def theorem4_background_bound(n: Any, p: Any, threshold: Any, known: Any, known_ones: Any) -> Any:
    """Thm 4 against a passive attacker who knows ``known`` = m records (PPKDP),
    assuming at most ``known_ones`` = b ones among them (the rest of the
    probability goes into delta), as re-derived from the proof:

        delta_BK = T(m, b+1) + T(n-1-m, tau-b-1),
        eps_BK   = -ln(1 - B_{n-1-m}(tau-b-1) / (1 - T(n-1-m, tau-b-1))),

    B_N the Bin(N, p) pmf, T(N, k) = B_N(k) / (1 - (N-k) p / ((k+1)(1-p))) Lemma 2's
    bound on P[Bin(N, p) >= k] (0 when k > N).  A bound: the exact passive
    curve statpriv.thresholded(n, p, tau, known=m) has delta(eps_BK) <= delta_BK.
    (inf, 1) where a Lemma 2 ratio is >= 1 or tau - b - 1 < 0.  known = 0,
    known_ones = 0 is theorem4_bound.

    n : int >= 1; p : float in (0, 1); threshold : int >= 0; known : int in
    [0, n-1]; known_ones : int >= 0; arrays broadcast.  Returns (eps, delta).
    """
    from statpriv import _validate
    arrays = np.broadcast_arrays(n, p, threshold, known, known_ones)
    out = []
    for nn, pp, tt, mm, bb in zip(*(a.ravel() for a in arrays)):
        nn, pp, tt = _checked(nn, pp, tt)
        mm = _validate.count("known", mm, low=0, high=nn - 1)
        bb = _validate.count("known_ones", bb, low=0)
        out.append(_background_one(nn, pp, tt, mm, bb))
    return _unpack(out, arrays[0].shape)


def _theorem5_rare_step(n: Any, lam: Any, k: Any) -> Any:
    """(delta_r, eps_r) of Thm 5's rare case for one move t <-> bottom: the
    count of t is released with probability <= delta_r = f(k-1) / (1 - r)
    (Lemma 2's tail from k - 1, the others' count at which the target's
    record makes k; its ratio (n-k) lam / (k (1-lam)) is <= r), and on the
    suppressed cell the loss is <= eps_r, the larger of the printed
    -ln(1 - f(k-1) / (1 - r)) and Thm 4's -ln(1 - f(k-1) / (1 - delta_r))."""
    import mpmath
    with mpmath.workdps(40):
        lam = mpmath.mpf(lam)
        r = lam * (n - 1) / ((1 - lam) * k)
        f = _binomial_pmf(n - 1, lam, k - 1)
        delta_r = f / (1 - r)
        eps_r = max(_eps_delta(f, r)[0], _eps_delta(f, delta_r)[0])
        return math.nextafter(float(delta_r), math.inf), math.nextafter(eps_r, math.inf)


def _ratio_tail_epsilon(N: int, q: float, delta: float) -> float:
    """The smallest eps with P[X >= e^eps Y] <= delta, X, Y independent
    Bin(N, q) (X/Y = inf where Y = 0): Thm 5's transcription of Thm 3's
    condition, read as the tail of the likelihood ratio X/Y.  Float
    bisection on eps with the tail summed over Y's support by scipy,
    inflated by 1e-12 before the comparison; returns the bracket's upper
    end (inf where P[Y = 0] alone exceeds delta)."""
    from scipy import stats
    y = np.arange(N + 1, dtype=float)
    weight = stats.binom.pmf(y, N, q)

    def above(eps: float) -> bool:
        need = np.ceil(math.exp(eps) * y * (1.0 - 1e-15))       # X >= need
        return float(weight @ stats.binom.sf(need - 1.0, N, q)) * (1.0 + 1e-12) > delta

    lo, hi = 0.0, math.log(N + 1.0) + 1.0        # at hi only Y = 0 is left
    if above(hi):
        return math.inf
    if not above(lo):
        return 0.0
    for _ in range(64):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if above(mid) else (lo, mid)
    return hi


def theorem5_bound(n: Any, lam: Any, k: Any, delta: Any) -> Any:
    """(eps_T5, delta_T5) of Thm 5 (the k-anonymous histogram under partial
    knowledge), in its most conservative reading.

    The setting: n independent records (the target included), each in one
    category or in a never-released category bottom; a lam such that every
    category is rare (every record in it with probability <= lam) or
    common (every record's probability in [lam, 1 - lam]) and bottom has
    probability in [lam, 1 - lam] for every record; counts below k are
    suppressed.  The proof moves the target t <-> bottom <-> t' and bounds
    each move by Thm 4 (t rare) or Thm 3 (t common).  With f = the
    Bin(n-1, lam) pmf and r = lam (n-1) / ((1-lam) k) < 1:

        delta_r = f(k-1) / (1 - r),        delta_0 = 2 delta_r,
        eps_r   = max(-ln(1 - f(k-1) / (1 - r)), -ln(1 - f(k-1) / (1 - delta_r))),
        eps_c   = max(blanket eps at delta, smallest eps with P[X >= e^eps Y] <= delta),
        eps_T5  = 2 max(eps_r, eps_c),
        delta_T5 = (1 + e^(eps_T5 / 2)) delta,

    X, Y independent Bin(n-1, 2 lam); the blanket eps is Thm 3's hockey-stick
    bound evaluated numerically (statpriv.partial_knowledge(n, lam).blanket).
    The reading choices (docs/thresholding.md): the threshold releases
    counts >= k, so the tail starts at f(k-1) (the printed f(k) fits counts
    > k); Thm 3's printed condition P[X/Y >= eps] is read with e^eps, and
    both its forms are taken, the larger winning; the rare eps is the
    larger of the printed form and Thm 4's; chaining the two moves gives
    delta + e^(eps_T5/2) delta, not the printed undoubled delta.

    n : int >= 2; lam : float in (0, 1/2]; k : int >= 1 with r < 1;
    delta : float in [delta_0, 1) or an array of them.  Returns (eps, delta)
    -- floats, or arrays of delta's shape; (inf, 1) where eps_c is infinite
    (the blanket cannot reach delta) or delta_T5 >= 1.

    >>> eps, delta = theorem5_bound(1000, 0.05, 100, 1e-6)
    >>> print(f"{eps:.4f} {delta:.3g}")
    1.8007 3.46e-06
    """
    from statpriv import _validate
    from statpriv.partial_knowledge import partial_knowledge
    n = _validate.count("n", n, low=2)
    lam = _validate.real("lam", lam, low=0.0, high=0.5, low_open=True)
    k = _validate.count("k", k, low=1)
    smallest_k = lam * (n - 1) / (1 - lam)
    if smallest_k >= k:
        raise ValueError(f"k must be > lam (n - 1) / (1 - lam) = {smallest_k!r} (Thm 5's "
                         f"r = lam (n - 1) / ((1 - lam) k) < 1), got {k}")
    deltas = _validate.real_array("delta", delta, low=0.0, high=1.0, low_open=True,
                                  high_open=True)
    delta_r, eps_r = _theorem5_rare_step(n, lam, k)
    delta0 = 2.0 * delta_r
    if deltas.size and float(deltas.min()) < delta0:
        raise ValueError(f"delta must be in [delta0, 1), delta0 = 2 f(k-1, n-1, lam) / (1 - r) "
                         f"= {delta0!r}, got {float(deltas.min())!r}")
    flat = deltas.ravel()
    blanket = np.asarray(partial_knowledge(n, lam).blanket.epsilon(flat), dtype=float)
    ratio = np.array([_ratio_tail_epsilon(n - 1, min(1.0, 2.0 * lam), d) for d in flat])
    step = np.maximum(eps_r, np.maximum(blanket, ratio))
    with np.errstate(over="ignore"):
        out_delta = flat * (1.0 + np.exp(step))
    void = ~np.isfinite(step) | (out_delta >= 1.0)
    eps = np.where(void, math.inf, 2.0 * step).reshape(deltas.shape)
    out_delta = np.where(void, 1.0, out_delta).reshape(deltas.shape)
    if deltas.ndim == 0:
        return float(eps), float(out_delta)
    return eps, out_delta


# Thm 5's measured gap: category configurations inside the theorem's class
# (every category rare, <= lam, or common, in [lam, 1 - lam]; bottom, the
# rest, in [lam, 1 - lam]), as functions of lam: two categories at the
# boundary lam, bottom at its least (lam) beside rare and common ones, and
# two rare and two common categories.
THM5_CONFIGURATIONS: Dict[str, Callable[[float], List[float]]] = {
    "[lam, lam]": lambda lam: [lam, lam],
    "[lam, lam, 1-3lam]": lambda lam: [lam, lam, 1 - 3 * lam],
    "[lam/2, lam/2, 1-2lam]": lambda lam: [lam / 2, lam / 2, 1 - 2 * lam],
    "[lam/2, lam/2, 0.4, 0.3]": lambda lam: [lam / 2, lam / 2, 0.4, 0.3],
}


def _in_theorem5_class(pi: List[float], lam: float) -> bool:
    """Every category rare or common, bottom in [lam, 1 - lam] (to 1e-12)."""
    bottom, tol = 1.0 - math.fsum(pi), 1e-12
    return lam - tol <= bottom <= 1.0 - lam + tol and \
        all(0.0 <= p <= lam + tol or lam - tol <= p <= 1.0 - lam + tol for p in pi)


def theorem5_gap_data(*, ns: Any = (100, 1000, 10 ** 4), ks: Any = (20, 50, 100),
                      rs: Any = (0.5, 0.8), deltas: Any = (1e-2, 1e-3, 1e-6)) -> Any:
    """Thm 5's (eps, delta) against the exact k-anonymity bracket: for each n,
    k and lam = r k / (n - 1 + r k) (so that Thm 5's r is the given r), each
    delta and each configuration of THM5_CONFIGURATIONS inside the theorem's
    class, the maxima over the pairs of released categories of the exact
    lower and upper delta at Thm 5's eps and of the upper (and lower)
    curve's eps at Thm 5's delta.  Rows with "status" "below delta0" or
    "no guarantee" (eps infinite) carry no exact values."""
    import itertools

    from statpriv.thresholding.k_anonymity import k_anonymity
    rows = []
    for n, k, r in itertools.product(ns, ks, rs):
        lam = r * k / (n - 1 + r * k)
        if lam > 0.5:
            continue
        for delta in deltas:
            row: Dict[str, Any] = {"n": n, "k": k, "r": r, "lam": lam, "delta": delta}
            try:
                eps_t5, delta_t5 = theorem5_bound(n, lam, k, delta)
            except ValueError:
                rows.append({**row, "status": "below delta0"})
                continue
            if not math.isfinite(eps_t5):
                rows.append({**row, "status": "no guarantee"})
                continue
            for name, make in THM5_CONFIGURATIONS.items():
                pi = make(lam)
                if not _in_theorem5_class(pi, lam):
                    continue
                worst = np.zeros(4)
                for source, target in itertools.combinations(range(len(pi)), 2):
                    ka = k_anonymity(n, pi, k, source=source, target=target)
                    worst = np.maximum(worst, [ka.lower.delta(eps_t5), ka.upper.delta(eps_t5),
                                               ka.lower.epsilon(delta_t5),
                                               ka.upper.epsilon(delta_t5)])
                rows.append({**row, "status": "ok", "configuration": name, "eps_t5": eps_t5,
                             "delta_t5": delta_t5, "lower_delta": worst[0],
                             "upper_delta": worst[1], "lower_eps": worst[2],
                             "upper_eps": worst[3]})
    return rows


def _unpack(pairs: Any, shape: Any) -> Any:
    """(eps, delta) as floats for scalar input, else two arrays of ``shape``."""
    if shape == ():
        return pairs[0]
    eps, delta = (np.array(col, dtype=float).reshape(shape) for col in zip(*pairs))
    return eps, delta


def thresholding_regime_data(*, n: Any = FIG4_N, expected: Any = FIG4_EXPECTED, lambdas: Any = None,
                             curve_mu: Any = 3.0, curve_lambdas: Any = (2.0, 3.0, 4.0)) -> Any:
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
    by_tau = {}
    for lam in curve_lambdas:
        tau = max(2, math.ceil(lam * curve_mu))
        by_tau[tau] = {"delta": thresholded(n, p, tau).delta(eps),
                       "t4": theorem4_bound(n, p, tau)}
    return {"n": n, "expected": tuple(expected), "rows": rows, "eps": eps,
            "curve_mu": curve_mu, "curves": by_tau}


def desfontaines_fig4(out_dir: Any, dpi: Any = 120) -> Any:
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
    return plotting.save(fig, out_dir, "desfontaines_fig4", dpi)
