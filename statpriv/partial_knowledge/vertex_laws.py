"""What the worst case over the vertices knows of its laws, for a composition.

The worst case max_a H_eps(P_a || Q_a) over the vertices a = 0..N
(statpriv.partial_knowledge.vertices; the shuffled randomized response
shares it) is a maximum over N + 1 pairs of laws.  As a function of t =
e^eps, each pair's curve -- eps >= 0 its own, eps < 0 its other direction's
by 1 - delta_+(eps) = e^eps (1 - delta_-(-eps)) -- is convex, 1 at t = 0,
with slope >= -1 there; the maximum over the pairs keeps all three (the
worst case is symmetric, so its two directions are the maxima of the
vertices' two directions, and the identity commutes with the maximum).  So
the worst case is itself the privacy profile of a pair (P*, Q*), and every
vertex's pair, hockey-stick dominated by it at every eps in both
directions, is a post-processing of (P*, Q*) (Blackwell; Zhu, Dong & Wang,
"Optimal accounting of differential privacy via characteristic
function"): composing the worst case's own connect-the-dots measure bounds
any composition the attacker can face, each step's vertex chosen
adaptively, from above.  From below, a composition of a pair the attacker
does face: one vertex's, the same at every step.  Where one vertex attains
the maximum at every eps (per direction; the minus direction's vertex is the
mirror N - a) the bracket is tight; where the attaining vertex changes with
eps the lower side is the vertex that comes closest to the maximum over the
sampled eps -- still a lower bound, not a tight one.
"""
import math
from typing import Any

import numpy as np

from statpriv.laws import LawSource, grid_pld

__all__ = ["NoComposition", "VertexLaws"]


class _VertexSource:
    """One vertex's delta_plus (its delta_minus is vertex N - a's delta_plus)
    as a delta source of statpriv.laws.grid_pld.Bracket."""

    def __init__(self, core: Any, a: Any) -> None:
        self.core, self.a = core, np.array([float(a)])

    def delta(self, eps: Any) -> Any:
        logs = [self.core.vertex_log_delta(self.a, float(e))[0] for e in np.asarray(eps)]
        return np.exp(np.array(logs, dtype=np.longdouble))       # (a loop over grid points)

    def at_inf(self) -> Any:
        return float(self.delta(np.array([math.inf]))[0])


# The eps at which the lower side's vertex is chosen (the vertices attaining
# the worst case there are the candidates).
_DOMINANCE_SAMPLES = 17


def _log_gap(worst_logs: Any, logs: Any) -> Any:
    """max over the samples of ln(worst) - ln(vertex), >= 0 (0 where both
    are 0, inf where only the vertex's is)."""
    with np.errstate(invalid="ignore"):
        gap = np.where(worst_logs == logs, 0.0, worst_logs - logs)
    return max(float(np.max(gap)), 0.0)


class VertexLaws(LawSource):
    """What the worst case over the vertices knows of its laws (module
    docstring): its upper side is the worst case's own connect-the-dots
    measure, its lower side a vertex's (a composition of pairs the attacker
    can face) -- the one attaining the maximum at every eps where there is
    one, else the closest to it over the sampled eps."""

    def __init__(self, core: Any, N: Any) -> None:
        self.core, self.N = core, N

    def grid_bracket(self, value_discretization_interval: Any, tail_mass_truncation: Any,
                     description: Any = None) -> Any:
        h, tail = value_discretization_interval, tail_mass_truncation
        worst = grid_pld.CurveSource(self.core, "plus")
        span = grid_pld.tail_span(worst, tail)[0]
        if not math.isfinite(span):
            raise ValueError(f"{description}: delta does not come within "
                             f"tail_mass_truncation={tail!r} of its limit at a finite eps; "
                             "no privacy-loss distribution on a grid")
        samples = np.linspace(0.0, span, _DOMINANCE_SAMPLES)
        attained = [self.core.worst(float(e)) for e in samples]
        worst_logs = np.array([log_v for log_v, _ in attained])
        # the lower side: among the vertices attaining the maximum somewhere,
        # the one whose largest log-gap to it over the samples is smallest
        # (zero: it attains the maximum at every sampled eps)
        candidates = sorted({int(a) for _, a in attained})
        gaps = [_log_gap(worst_logs, np.array([self.core.vertex_log_delta(
            np.array([float(a)]), float(e))[0] for e in samples])) for a in candidates]
        a = candidates[int(np.argmin(gaps))]
        sources = {"plus": worst, "minus": worst}
        # pair a's two directions: its own curve and its mirror's (the minus
        # direction of vertex a is the plus direction of vertex N - a), so
        # that the lower side is a pair the attacker faces
        lowers = {"plus": _VertexSource(self.core, a), "minus": _VertexSource(self.core, self.N - a)}
        return grid_pld.Bracket(sources, lowers, h, tail, description)

    def privacy_loss_distribution(self, value_discretization_interval: Any = 1e-4,
                                  tail_mass_truncation: Any = 1e-15,
                                  description: Any = None) -> Any:
        return self.grid_bracket(value_discretization_interval, tail_mass_truncation,
                                 description).pld()

    renyi = grid_pld.DeltaLaws.renyi          # known through delta only: none


class NoComposition(LawSource):
    """The laws of a worst case whose delta costs a branch and bound per eps
    (more than ``others`` others): no privacy-loss distribution."""

    def __init__(self, others: Any) -> None:
        self.others = others

    def privacy_loss_distribution(self, value_discretization_interval: Any = None,
                                  tail_mass_truncation: Any = None,
                                  description: Any = None) -> None:
        raise ValueError(f"{description}: the worst case over more than {self.others} "
                         "others is found by branch and bound at each eps, too slow to "
                         "evaluate on a loss grid; no privacy-loss distribution (compose the "
                         "privacy-blanket bound .blanket instead)")

    renyi = grid_pld.DeltaLaws.renyi
