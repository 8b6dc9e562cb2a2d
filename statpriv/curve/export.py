"""A curve as a dp-accounting privacy-loss distribution (the optional extra ``accounting``).

A privacy-loss distribution (PLD) of a pair of laws (P, Q) is the law of the
privacy loss L = ln P(x)/Q(x) for x ~ P, with an atom at +inf for the P mass
where Q vanishes; the hockey-stick divergence is read off it as

    H_eps(P || Q) = Pr[L = inf] + E[(1 - e^(eps - L))_+]

(Meiser & Mohammadi, "Tight on budget?"; Koskela, Jälkö & Honkela, "Computing
tight differential privacy guarantees using FFT"; Doroshenko, Ghazi, Kamath,
Kumar & Manurangsi, "Connect the Dots").  dp-accounting holds PLDs on a grid
of losses k h (h = ``value_discretization_interval``) and composes them by
convolution.  This module exports a statpriv curve into such a PLD
(``to_dp_accounting``, also ``PrivacyCurve.to_dp_accounting``); the event and
accountant that compose curves inside dp-accounting, and the audit of another
accountant's numbers, are statpriv.accounting's.

Directions and neighbouring relation.  statpriv's P is the law of the release
when the target's record is positive (present), Q when it is negative; the
neighbouring datasets differ in the target's value (replace-one).  The
exported PLD is dp-accounting's non-symmetric kind: its "remove" pmf is the
PLD of (upper P, lower Q), giving delta_plus, its "add" pmf that of (upper Q,
lower P), giving delta_minus, and ``get_delta_for_epsilon`` their maximum,
which is the curve's delta.

Pessimism.  Both routes below give a PLD whose delta is never below the
curve's at any eps, and at most the curve's delta at eps - h, up to a
relative c = max(1e-12, 1e-15/h) (connect-the-dots, below) and the mass T
moved to +inf (T = ``tail_mass_truncation``, or 1e-9 delta(+inf) where that is larger;
the curve's own bounded window rest is part of its delta already):

    delta(eps) <= delta_PLD(eps) <= (1 + c) delta(eps - h) + T.

- ``method="pmf"`` (dp-accounting's ``from_two_probability_mass_functions``
  route, vectorised here): every atom's exact loss is rounded UP to the grid.
  Raising a loss raises (1 - e^(eps - L))_+, so delta can only grow; a loss
  raised by at most h gives at most delta(eps - h).
- ``method="connect_dots"``: the pessimistic connect-the-dots PLD of
  Doroshenko et al. built from the curve's own delta_plus / delta_minus on the
  grid k h, lo <= k <= hi.  It reproduces delta exactly at the grid points and,
  between them, the chord of the convex function e^eps -> delta, which lies
  above it; below the grid the chord from (0, 1), above it the constant
  delta(hi h).  It needs only delta(eps), so it serves every curve.

The connect-the-dots masses are statpriv._connect_dots.pessimistic (the one
implementation, shared with the pessimistic / optimistic PLDs of
statpriv.laws.grid_pld that the composition uses).

``method="auto"`` takes dp-accounting's own PLD for ``statpriv.dp.*`` curves
(its closed-form connect-the-dots, as tight as ours) and connect-the-dots for
every other curve, discrete laws included: the pmf route pays up to h in loss
on every atom, connect-the-dots is exact at the grid points and above the
curve only by the chord between them (the measured gaps are in
docs/benchmarks.md, from bench/bench_accounting.py).  The connect-the-dots
probabilities are second differences of delta divided by e^h - 1, so their
float error is ~2^-53/h relative; the deltas fed to it are raised by
max(1e-12, 1e-15/h) relative (1e-11 at h = 1e-4) to keep the PLD above the
curve anyway.  The pmf route stays available (``method="pmf"``) where the
loss atoms themselves are wanted: it is dp-accounting's
``from_two_probability_mass_functions`` (lower law first, then upper)
without its Python loop over atoms.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from statpriv import _connect_dots as connect_dots, _validate

if TYPE_CHECKING:
    from statpriv.curve import PrivacyCurve

__all__ = ["MAX_GRID", "to_dp_accounting"]

# Atoms whose mass underflows (ln mass below this) go to the +inf atom.
_LOG_TINY = -690.0
# The largest PLD grid the export builds (each side); beyond it a ValueError
# asks for a larger value_discretization_interval.
MAX_GRID = 4_000_000


def _dp_accounting() -> Any:
    try:
        from dp_accounting.pld import pld_pmf, privacy_loss_distribution
    except ImportError as err:          # pragma: no cover - the extra is in the test extra
        raise ImportError("statpriv's dp-accounting export needs the optional extra: "
                          'pip install ".[accounting]" from a statpriv checkout') from err
    return pld_pmf, privacy_loss_distribution


def _pmf_side(log_upper: Any, log_lower: Any, log_rest_upper: Any, h: Any, tail_mass: Any) -> Any:
    """(lower index, dense probs, infinity mass) of the PLD of (upper, lower):
    losses rounded up to the grid k h; the +inf atom holds the upper mass
    where lower vanishes, the rest bound, the underflowing atoms and up to
    tail_mass of the largest finite losses; the smallest losses are raised
    to the lowest kept bin (both pessimistic)."""
    lu = np.asarray(log_upper, dtype=np.float64)
    ll = np.asarray(log_lower, dtype=np.float64)
    live = lu > -np.inf
    lu, ll = lu[live], ll[live]
    inf_atoms = ll == -np.inf
    log_inf = [lu[inf_atoms], [log_rest_upper]]
    lu, ll = lu[~inf_atoms], ll[~inf_atoms]
    tiny = lu < _LOG_TINY
    log_inf.append(lu[tiny])
    lu, ll = lu[~tiny], ll[~tiny]
    loss = lu - ll
    # ceil(loss / h), then one more bin wherever rounding left k h below the
    # loss plus its own rounding error (|loss| 2^-52 + the logs' ulps)
    k = np.ceil(loss / h)
    err = (np.abs(loss) + np.abs(lu) + np.abs(ll)) * 2.3e-16
    k[k * h < loss + err] += 1.0
    mass = np.exp(lu)
    order = np.argsort(k, kind="stable")
    k, mass = k[order], mass[order]
    infinity = math.fsum(np.exp(np.concatenate([np.asarray(a, dtype=np.float64)
                                                for a in log_inf])))
    if k.size == 0:
        return 0, np.zeros(1), infinity
    # up to tail_mass of the top losses to +inf, up to tail_mass of the bottom
    # ones raised to the lowest kept bin
    top = np.cumsum(mass[::-1])
    cut_hi = k.size - int(np.searchsorted(top, tail_mass, side="right"))
    cut_hi = max(cut_hi, 1)
    infinity += math.fsum(mass[cut_hi:])
    k, mass = k[:cut_hi], mass[:cut_hi]
    cut_lo = int(np.searchsorted(np.cumsum(mass), tail_mass, side="right"))
    cut_lo = min(cut_lo, k.size - 1)
    k[:cut_lo] = k[cut_lo]
    lo = int(k[0])
    size = int(k[-1]) - lo + 1
    if size > MAX_GRID:
        raise ValueError(f"value_discretization_interval={h!r} needs a PLD of {size} bins "
                         f"(more than {MAX_GRID}); take a larger interval")
    probs = np.bincount((k - lo).astype(np.int64), weights=mass, minlength=size)
    return lo, probs, min(infinity, 1.0)


def _pmf_route(curve: Any, h: Any, tail_mass: Any) -> Any:
    pld_pmf, pld = _dp_accounting()
    laws = curve.log_pmfs()
    lo_r, probs_r, inf_r = _pmf_side(laws.log_p, laws.log_q, laws.log_rest_p, h, tail_mass)
    lo_a, probs_a, inf_a = _pmf_side(laws.log_q, laws.log_p, laws.log_rest_q, h, tail_mass)
    remove = pld_pmf.DensePLDPmf(h, lo_r, probs_r, inf_r, True)
    add = pld_pmf.DensePLDPmf(h, lo_a, probs_a, inf_a, True)
    return pld.PrivacyLossDistribution(remove, add)


def _ctd_side(curve: Any, direction: Any, other: Any, h: Any, tail_mass: Any) -> Any:
    """Pessimistic connect-the-dots pmf of one direction on the grid k h,
    lo <= k <= hi: hi where delta_dir reaches delta_dir(inf) + tail_mass,
    lo = -(the same point of the other direction) (below it the P mass is
    at most e^-E times a Q mass of at most tail_mass)."""
    pld_pmf, _ = _dp_accounting()

    def reach(d: Any) -> Any:
        # epsilon() keeps its own 1e-12 relative margin: a target within
        # 1e-12 of delta(+inf) would never be reached
        at_inf = float(getattr(curve, f"delta_{d}")(math.inf))
        return curve.epsilon(min(1.0, at_inf + max(tail_mass, 1e-9 * at_inf)), direction=d)
    hi_eps, lo_eps = reach(direction), reach(other)
    if not (math.isfinite(hi_eps) and math.isfinite(lo_eps)):
        raise ValueError(f"{curve.description}: delta does not come within tail_mass of its "
                         "limit at a finite eps; no connect-the-dots grid")
    hi = int(math.ceil(hi_eps / h)) + 1
    lo = min(int(math.floor(-lo_eps / h)) - 1, hi - 1)
    if hi - lo + 1 > MAX_GRID:
        raise ValueError(f"value_discretization_interval={h!r} needs a grid of {float(hi - lo + 1):.3g} "
                         f"losses (more than {MAX_GRID}); take a larger interval")
    eps = np.arange(lo, hi + 1, dtype=np.float64) * h
    # the connect-the-dots probabilities are second differences of delta over
    # e^h - 1: float errors of ~2^-53 / h relative; deltas raised by
    # _ctd_inflation(h) keep the PLD above the curve despite them
    deltas = getattr(curve, f"delta_{direction}")(eps)
    deltas = np.minimum(deltas * (1.0 + _ctd_inflation(h)), 1.0)
    probs, infinity = connect_dots.pessimistic(deltas, h)
    return pld_pmf.DensePLDPmf(h, lo, probs, infinity, True)


def _ctd_inflation(h: Any) -> Any:
    """Relative raise of the deltas fed to connect-the-dots: 1e-15 / h
    (1e-11 at h = 1e-4), at least 1e-12 (statpriv's own relative error);
    without it, the PLD's delta fell below the curve's by up to 3e-12
    relative at h = 1e-5 (counting + noise, sampled counts); tests/
    test_accounting.py checks the inflated export at h = 1e-5 (exhaustive)."""
    return max(1e-12, 1e-15 / h)


def _ctd_route(curve: Any, h: Any, tail_mass: Any) -> Any:
    _, pld = _dp_accounting()
    return pld.PrivacyLossDistribution(_ctd_side(curve, "plus", "minus", h, tail_mass),
                                       _ctd_side(curve, "minus", "plus", h, tail_mass))


@_validate.renamed(tail_mass="tail_mass_truncation")
def to_dp_accounting(curve: PrivacyCurve, value_discretization_interval: float = 1e-4, *,
                     method: str = "auto", tail_mass_truncation: float = 1e-15) -> Any:
    """A pessimistic dp-accounting PrivacyLossDistribution of ``curve``.

    delta_PLD(eps) = max over the two directions of Pr[L = inf] + E[(1 -
    e^(eps - L))_+] on the grid of losses k h (module docstring), with

        curve.delta(eps) <= delta_PLD(eps) <= (1 + c) curve.delta(eps - h) + T,

    c = max(1e-12, 1e-15/h), T = max(tail_mass_truncation, 1e-9 curve.delta(inf)).

    Parameters
    ----------
    curve : PrivacyCurve
    value_discretization_interval : float > 0
        The loss grid h (dp-accounting's name; PLDs compose only on a common h).
    method : {"auto", "pmf", "connect_dots"}
        "pmf": the exact atoms of ``curve.log_pmfs()``, losses rounded up to
        the grid (dp-accounting's from_two_probability_mass_functions, which
        takes the LOWER law first, vectorised); "connect_dots": the
        pessimistic connect-the-dots pmf from the curve's delta_plus and
        delta_minus on the grid; "auto": dp-accounting's own PLD for
        ``statpriv.dp.*`` curves, else "connect_dots" (the tighter for
        discrete laws too; measurements in the module docstring and
        docs/accounting.md).
    tail_mass_truncation : float in [0, 1e-6]
        At most this much mass of the largest losses per direction goes to
        the +inf atom (pessimistic) to keep the grid short; as much of the
        smallest losses is raised to the lowest kept bin (pessimistic).

    Returns
    -------
    dp_accounting.pld.privacy_loss_distribution.PrivacyLossDistribution
        Non-symmetric: remove = (upper P, lower Q) gives delta_plus, add =
        (upper Q, lower P) delta_minus.  Composes with dp-accounting's own
        PLDs of the same interval (``pld.compose(other)``).

    Examples
    --------
    >>> import statpriv
    >>> curve = statpriv.counting(1000, 0.5)
    >>> pld = curve.to_dp_accounting()
    >>> exact, exported = curve.delta(0.1), pld.get_delta_for_epsilon(0.1)
    >>> bool(exact <= exported <= curve.delta(0.1 - 1e-4))
    True
    """
    h = _validate.real("value_discretization_interval", value_discretization_interval,
                       low=0.0, high=1.0, low_open=True)
    method = _validate.choice("method", method, ("auto", "pmf", "connect_dots"))
    tail_mass = _validate.real("tail_mass_truncation", tail_mass_truncation, low=0.0, high=1e-6)
    native = getattr(curve.laws, "dp_accounting_pld", None)
    if method == "auto":
        if native is not None:
            exported = native(h)            # a statpriv.dp.* curve: dp-accounting's own PLD
            if exported is not None:
                return exported
        method = "connect_dots"
    if method == "pmf":
        return _pmf_route(curve, h, tail_mass)
    return _ctd_route(curve, h, tail_mass)


