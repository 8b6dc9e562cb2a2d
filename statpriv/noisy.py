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
  sum_k (P(k) - e^eps Q(k)) P[N(k, sigma^2) in interval], summed per atom in
  log space.  The Gaussian kernel is totally positive, so f_P - e^eps f_Q
  changes sign at most as often as k -> P(k) - e^eps Q(k) (Karlin's variation
  diminishing property): when P/Q is monotone on the atoms -- true of every
  law built here: shifts of log-concave counts, the sampling mixtures
  (Breutigam & Reischuk, "Statistical Privacy"), the secret sample -- there is
  one sign change, solved for; otherwise every root is found on a grid of
  sigma/8 and refined.  Exact for every sigma > 0: as sigma -> 0 the normal
  masses become 0 or 1 and the curve tends to the noiseless one.

Laplace(b) and geometric(alpha) noise make every count here pure DP
(|ln f_P/f_Q| <= 1/b, resp. -ln alpha; seed 000 Lemma 5 — each law is a
mixture of pairs shifted by one), so delta is exactly 0 from that eps on.
"""
import numpy as np

from statpriv import _core
from statpriv.noise import Gaussian, Geometric, Laplace

# Laplace and geometric noise: atoms more than this many nats below the
# largest are dropped before adding noise (mass < e^-3000): results are exact
# wherever ln delta > -2900.  Gaussian noise keeps every atom it is given: at
# large eps its positive part comes from the extreme atoms of the support.
DROP_NATS = 3000.0


def trim(lp, lq):
    """Keep the atoms where P or Q is within DROP_NATS of its maximum."""
    keep = (lp >= np.max(lp) - DROP_NATS) | (lq >= np.max(lq) - DROP_NATS)
    idx = np.flatnonzero(keep)
    sl = slice(idx[0], idx[-1] + 1)
    return lp[sl], lq[sl]


def core(lp, lq, noise, monotone_ratio):
    """C evaluator for count laws (lp, lq) plus ``noise``.

    monotone_ratio: P is Q shifted by one (no sampling); kept for callers.
    The Gaussian path decides on its own: it solves for one crossing when
    P/Q is non-decreasing on the atoms (checked here, up to rounding), since
    the Gaussian location kernel is TP2 and preserves the monotone likelihood
    ratio for every sigma (Karlin), and scans a grid otherwise.
    """
    lp, lq = np.asarray(lp, dtype=np.longdouble), np.asarray(lq, dtype=np.longdouble)
    if isinstance(noise, Gaussian):
        return _core.GaussCurveCore(lp, lq, noise.sigma, monotone_likelihood_ratio(lp, lq))
    lp, lq = trim(lp, lq)
    if isinstance(noise, Geometric):
        cell_lp, cell_lq = _core.geometric_cells(lp, lq, noise.alpha)
        return _core.PairCurveCore(cell_lp, cell_lq, _log_ratio(cell_lp, cell_lq),
                                   max_log_ratio=-np.log(noise.alpha))
    if isinstance(noise, Laplace):
        cell_lp, cell_lq, ll_p, lr_p, ll_q, lr_q = _core.laplace_cells(lp, lq, noise.scale)
        return _core.PairCurveCore(cell_lp, cell_lq, _log_ratio(cell_lp, cell_lq),
                                   laplace=(ll_p, lr_p, ll_q, lr_q, noise.scale),
                                   max_log_ratio=1.0 / noise.scale)
    raise ValueError(f"noise must be statpriv.Laplace, Gaussian or Geometric, got {noise!r}")


def monotone_likelihood_ratio(lp, lq):
    """ln P(k) - ln Q(k) is non-decreasing over the atoms where P + Q > 0
    (-inf where P = 0, +inf where Q = 0), up to the rounding of the logs."""
    live = np.isfinite(lp) | np.isfinite(lq)
    lp, lq = lp[live], lq[live]
    if lp.size < 2:
        return True
    with np.errstate(invalid="ignore"):
        lr = lp - lq
    finite = np.isfinite(lr)
    # -inf (P = 0) only before, +inf (Q = 0) only after the finite ratios
    neg, pos = np.flatnonzero(lr == -np.inf), np.flatnonzero(lr == np.inf)
    fin = np.flatnonzero(finite)
    if fin.size and ((neg.size and neg[-1] > fin[0]) or (pos.size and pos[0] < fin[-1])):
        return False
    if neg.size and pos.size and neg[-1] > pos[0]:
        return False
    r = lr[finite]
    tol = 1e-12 * (1.0 + np.abs(lp[finite]) + np.abs(lq[finite]))
    return bool(np.all(np.diff(r) >= -np.maximum(tol[1:], tol[:-1])))


def _log_ratio(lp, lq):
    with np.errstate(invalid="ignore"):
        lr = lp - lq
    lr[np.isnan(lr)] = 0.0     # both zero: the cell contributes nothing either way
    return lr
