"""The clone reduction of shuffled eps0-LDP reports (Feldman, McMillan &
Talwar, "Hiding among the clones: a simple and nearly optimal analysis of
privacy amplification by shuffling").

n users each run an eps0-LDP randomizer and the reports are shuffled.  The
shuffled output on two neighbouring data sets is a post-processing of the
laws P, Q below, so their curve bounds the shuffled mechanism's curve:

    delta(eps) = sum_c Bin(n-1, e^-eps0)(c) H_eps(P_c || Q_c),
    P_c = alpha A_c + (1 - alpha)(A_c + 1),  Q_c = (1 - alpha) A_c + alpha (A_c + 1),
    A_c ~ Bin(c, 1/2),  alpha = e^eps0 / (1 + e^eps0).

Each inner term is a binomial shift divergence, H_eps(P_c || Q_c) =
a H_eps'(A_c || A_c + 1) with a = (e^eps0 - e^eps) / (1 + e^eps0) and
e^eps' - 1 = (1 + e^eps0)(e^eps - 1) / (e^eps0 - e^eps), summed in C by the
binomial shift kernel (csrc/binomial_tail.h).  docs/shuffle.md has the argument
and the guarantee.
"""
from __future__ import annotations

from typing import Any

from statpriv import _lazy, _validate, oracle
from statpriv.curve import PrivacyCurve
from statpriv.curve.recipe import factory
from statpriv.laws import grid_pld

__all__ = ["clones"]

_clones = _lazy.module("statpriv.shuffle._clones")

# eps0 beyond this is no local privacy at all (e^-eps0 < 1e-304: no clones)
MAX_EPS0 = 700.0


@factory
def clones(n: int, eps0: float) -> PrivacyCurve:
    """Privacy curve of n shuffled eps0-LDP reports by the clone reduction.

    delta(eps) = sum_c Bin(n-1, e^-eps0)(c) H_eps(P_c || Q_c) with
    P_c = alpha A_c + (1-alpha)(A_c + 1), Q_c = (1-alpha) A_c + alpha (A_c + 1),
    A_c ~ Bin(c, 1/2), alpha = e^eps0 / (1 + e^eps0) (Feldman, McMillan &
    Talwar, "Hiding among the clones", Thm. 3.2): an upper bound on the
    curve of ANY eps0-LDP randomizer shuffled among n users, tight for some.

    Parameters
    ----------
    n : int >= 1
        Number of users (the target included).
    eps0 : float in (0, 700]
        The local randomizer's (pure) differential-privacy parameter.

    The sum is exact (to ~1e-13 relative; the numbers of clones far from the
    mode are bounded, using that H_eps(P_c || Q_c) is non-increasing in c,
    and the bound is added).  Both directions are equal (delta_plus =
    delta_minus); delta = 0 exactly from eps = eps0 on, so ``epsilon(0)`` is
    eps0.

    >>> from statpriv import shuffle
    >>> print(f"{shuffle.clones(10**4, 1.0).epsilon(1e-6):.6f}")
    0.053005
    """
    n = _validate.count("n", n, low=1)
    eps0 = _validate.real("eps0", eps0, low=0.0, high=MAX_EPS0, low_open=True)

    def reference(eps: Any, direction: str) -> Any:
        return oracle.clones_delta(n, eps0, eps, direction=direction)

    core = _clones.ClonesCurveCore(float(n), eps0)
    # the clone pair is one pair of laws (both directions alike): composable
    # through its delta (connect-the-dots PLDs)
    return PrivacyCurve(core, reference, f"clones(n={n}, eps0={eps0:g}): {n} shuffled "
                        f"{eps0:g}-LDP reports (clone reduction)",
                        laws=grid_pld.DeltaLaws(core, symmetric=True))
