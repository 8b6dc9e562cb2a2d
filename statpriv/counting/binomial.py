"""iid records: the others' count is Bin(n-1, pi).

Without noise or sampling the curve is the binomial shift curve summed in C
from the likelihood-ratio threshold outward (csrc/binomial_tail.c; no arrays);
its laws are built only when asked for (``log_pmfs``, the privacy-loss
distribution).  With noise, the shift laws on the window where the mass
matters go to the noise's strategy.
"""
from typing import Any

import numpy as np

from statpriv import _lazy
from statpriv.curve import PrivacyCurve
from statpriv.laws import LawSource, Laws, LogPmfs, pair_curve, pld, windows
from statpriv.laws.mixture import binomial_shift

__all__ = ["BinomialShiftLaws", "binomial_window_laws", "iid_curve"]

_core = _lazy.module("statpriv._core")            # scipy.special: loaded on first use


def iid_curve(n: Any, pi: Any, noise: Any, reference: Any) -> PrivacyCurve:
    """counting(n, pi[, noise]) without sampling: S ~ Bin(n-1, pi), P = S + 1, Q = S."""
    description = f"counting n={n}, pi={pi}"
    if noise is not None:
        return pair_curve(binomial_window_laws(n - 1, pi, noise.window_drop()), reference,
                          description, noise, certified=BinomialShiftLaws(n, pi).certified_laws)
    return PrivacyCurve(_core.BinomialCurveCore(float(n - 1), pi), reference, description,
                        laws=BinomialShiftLaws(n, pi))


class BinomialShiftLaws(LawSource):
    """The laws of counting(n, pi) without noise or sampling, built on demand:
    ``log_pmfs()`` on the window of statpriv.laws.windows.window (the whole
    support up to FULL_SUPPORT atoms), the privacy-loss distribution on the
    narrower window of the linear-scale paths (mass within DROP_NATS nats of
    the largest atom: its atoms go to linear long double scale)."""

    has_log_pmfs = True

    def __init__(self, n: Any, pi: Any) -> None:
        self.n, self.pi = n, pi

    def log_pmfs(self) -> Any:
        first, lp, lq, _, log_rest = _shift_arrays(self.n, self.pi)
        lp, lq = lp.astype(np.float64), lq.astype(np.float64)
        lp.flags.writeable = False
        lq.flags.writeable = False
        return LogPmfs(first, lp, lq, log_rest, log_rest)

    def privacy_loss_distribution(self, value_discretization_interval: Any = None,
                                  tail_mass_truncation: Any = None, description: Any = None) -> Any:
        _, lp, lq, loss, log_rest = _shift_arrays(self.n, self.pi, True)
        return pld.from_laws(Laws(lp, lq, loss, log_rest_p=log_rest, log_rest_q=log_rest),
                             description)

    def certified_laws(self) -> Any:
        """The shift of Bin(n - 1, pi) in Arb (statpriv.oracle.arb.BinomialShift)."""
        from statpriv.oracle import arb
        return arb.BinomialShift(self.n, self.pi)


def _shift_arrays(n: Any, pi: Any, pld_window: Any = False) -> Any:
    """counting(n, pi) without noise or sampling: S ~ Bin(n-1, pi),
    P(j) = Pr[S = j - 1], Q(j) = Pr[S = j], on the atoms j = first..last+1 of
    the window where the mass matters (statpriv.laws.windows.window; the whole
    support up to windows.FULL_SUPPORT atoms), in extended precision.

    Returns (first, lp, lq, loss, log_rest): loss = ln Pr[S = j-1]/Pr[S = j]
    from the pmf one atom beyond the window on each side (finite at the window's
    edges unless the support ends there), log_rest bounds the mass left out.
    ``pld_window``: the narrower window of the noisy paths (mass within
    windows.DROP_NATS nats of the largest atom), enough for a PLD."""
    drop = windows.DROP_NATS if pld_window else None
    first, last, log_rest = windows.binomial_window(n - 1, pi, pld_window, drop)
    lo, hi = max(first - 1, 0), min(last + 1, n - 1)
    ext = np.asarray(windows.binomial_log_pmf(n - 1, pi, lo, hi), dtype=np.longdouble)
    none = np.array([-np.inf], dtype=np.longdouble)
    z = np.concatenate((none if lo == first else ext[:0], ext, none if hi == last else ext[:0]))
    log_z = z[1:-1]                                  # z(first-1+k) at index k
    lp = np.concatenate((none, log_z))
    lq = np.concatenate((log_z, none))
    with np.errstate(invalid="ignore"):
        loss = z[:-1] - z[1:]                        # atoms j = first..last+1
    return first, lp, lq, loss, float(log_rest)


def binomial_window_laws(N: Any, pi: Any, drop: Any = None) -> Any:
    """Shift laws of Bin(N, pi) for the noisy paths, on the window of _window
    (the rest bounded in the Laws' rests).  drop: the noise path trims the atoms
    more than this many nats below the largest anyway (Laplace and geometric noise): the window is cut there up front, the rest
    bounded by unimodality (_unimodal_window), instead of building the full
    support first (at n = 1e6 that is 1e6 atoms of which ~14% are kept)."""
    first, last, log_rest = windows.binomial_window(N, pi, True, drop)
    windows.check_support(last - first + 2, "n")
    lp, lq, lr = binomial_shift(N, pi, first, last)
    return Laws(lp, lq, lr, True, None, lambda w: w, log_rest, log_rest)
