"""Exact curves of a count plus independent noise (MATH.md §5).

The count has laws P (target positive) and Q (target negative), given as log
pmfs on consecutive integer atoms.  The released value adds noise N, so
delta_plus(eps) = H_eps(P*N || Q*N).  No quadrature and no normal
approximation:

- two-sided geometric noise: the exact pmf of the sum on the atoms, plus the
  two geometric tails summed in closed form (their sign is constant);
- Laplace(b) noise: on every unit interval between atoms both densities are
  (L e^(-t/b) + R e^(-(1-t)/b)) / (2b), so f_P - e^eps f_Q changes sign at
  most once there and its positive part integrates in closed form; O(atoms);
- Gaussian noise: delta_plus = sum over the intervals where f_P > e^eps f_Q of
  sum_k (P(k) - e^eps Q(k)) P[N(k, sigma^2) in interval]; the sign changes
  are the single root of the monotone log-ratio (log-concave count, shift
  structure), or else every root found on a grid of sigma/8 and refined.

Laplace(b) and geometric(alpha) noise make every count here pure DP
(|ln f_P/f_Q| <= 1/b, resp. -ln alpha; seed 000 Lemma 5 — each law is a
mixture of pairs shifted by one), so delta is exactly 0 from that eps on.
"""
import numpy as np

from statpriv import _core
from statpriv.noise import Gaussian, Geometric, Laplace

# Atoms more than this many nats below the largest are dropped (mass
# < (n+1) e^-3000) and their mass is added to delta as a bound
# (statpriv.counting._pair_curve): results are exact wherever ln delta > -2900
# and certified upper bounds below.
DROP_NATS = 3000.0


def trim(lp, lq):
    """Keep the atoms where P or Q is within DROP_NATS of its maximum."""
    return trim_bounded(lp, lq)[:2]


def trim_bounded(lp, lq):
    """trim(), also returning ln of the P and Q mass cut off (-inf if none),
    summed exactly in log space: the caller adds it to delta as a bound
    (statpriv.counting._pair_curve)."""
    keep = (lp >= np.max(lp) - DROP_NATS) | (lq >= np.max(lq) - DROP_NATS)
    idx = np.flatnonzero(keep)
    sl = slice(idx[0], idx[-1] + 1)
    cut = np.ones(len(lp), dtype=bool)
    cut[sl] = False
    cut_p = np.logaddexp.reduce(lp[cut]) if cut.any() else -np.inf
    cut_q = np.logaddexp.reduce(lq[cut]) if cut.any() else -np.inf
    return lp[sl], lq[sl], float(cut_p), float(cut_q)


def max_log_ratio(noise):
    """A proven bound on |ln f_P/f_Q| of any count plus this noise (1/b for
    Laplace, -ln alpha for geometric, inf for Gaussian): delta is 0 from there on."""
    if isinstance(noise, Laplace):
        return 1.0 / noise.scale
    if isinstance(noise, Geometric):
        return float(-np.log(noise.alpha))
    return float("inf")


def core(lp, lq, noise, monotone_ratio):
    """C evaluator for count laws (lp, lq) plus ``noise``.

    monotone_ratio: P is Q shifted by one (no sampling).  If Q is also
    log-concave (checked here), f_P/f_Q is increasing for every noise: the
    shift family of a log-concave sequence has monotone likelihood ratio and a
    TP2 kernel (Gaussian location) preserves it (Karlin's composition
    formula) — even for sigma << 1, where f itself is not log-concave.  The
    Gaussian path then solves for one crossing instead of scanning a grid.
    """
    lp, lq = trim(np.asarray(lp, dtype=np.longdouble), np.asarray(lq, dtype=np.longdouble))
    monotone_ratio = monotone_ratio and _log_concave(lq)
    if isinstance(noise, Geometric):
        cell_lp, cell_lq = _core.geometric_cells(lp, lq, noise.alpha)
        return _core.PairCurveCore(cell_lp, cell_lq, _log_ratio(cell_lp, cell_lq),
                                   max_log_ratio=-np.log(noise.alpha))
    if isinstance(noise, Laplace):
        cell_lp, cell_lq, ll_p, lr_p, ll_q, lr_q = _core.laplace_cells(lp, lq, noise.scale)
        return _core.PairCurveCore(cell_lp, cell_lq, _log_ratio(cell_lp, cell_lq),
                                   laplace=(ll_p, lr_p, ll_q, lr_q, noise.scale),
                                   max_log_ratio=1.0 / noise.scale)
    if isinstance(noise, Gaussian):
        return _core.GaussCurveCore(lp, lq, noise.sigma, bool(monotone_ratio))
    raise ValueError(f"noise must be statpriv.Laplace, Gaussian or Geometric, got {noise!r}")


def _log_concave(la):
    """Second differences of the finite part of ln A are <= 0 (up to rounding)
    and the support has no holes."""
    finite = np.flatnonzero(np.isfinite(la))
    if finite.size and finite[-1] - finite[0] + 1 != finite.size:
        return False
    la = la[finite]
    if la.size < 3:
        return True
    second = la[2:] - 2.0 * la[1:-1] + la[:-2]
    return bool(np.all(second <= 1e-9 * (1.0 + np.abs(la[1:-1]))))


def _log_ratio(lp, lq):
    with np.errstate(invalid="ignore"):
        lr = lp - lq
    lr[np.isnan(lr)] = 0.0     # both zero: the cell contributes nothing either way
    return lr
