"""What the worst case over the vertices knows of its laws, for a composition.

The worst case max_a H_eps(P_a || Q_a) over the vertices a = 0..N
(statpriv.partial_knowledge.vertices; the shuffled randomized response
shares it) is a maximum over N + 1 pairs of laws.  A maximum of hockey-stick
curves is convex in e^eps, so it is itself the curve of a pair that every
vertex's pair is a post-processing of: composing its connect-the-dots
measure gives an upper bound of any composition the attacker can face.  A
LOWER bound needs a pair the attacker does face: one vertex attaining the
maximum at every eps (per direction: the worst case is symmetric, the minus
direction's vertex is the mirror N - a).  Where one exists the composition
is bracketed tightly; where the attaining vertex changes with eps no pair
dominates and the composition is refused, with the eps where it changes.
"""
import math

import numpy as np

from statpriv.laws import LawSource, grid_pld

__all__ = ["NoComposition", "VertexLaws"]


class _VertexSource:
    """One vertex's delta (both directions: the worst case is symmetric) as a
    delta source of statpriv.laws.grid_pld.Bracket."""

    def __init__(self, core, a):
        self.core, self.a = core, np.array([float(a)])

    def delta(self, eps):
        logs = [self.core.vertex_log_delta(self.a, float(e))[0] for e in np.asarray(eps)]
        return np.exp(np.array(logs, dtype=np.longdouble))       # (a loop over grid points)

    def at_inf(self):
        return float(self.delta(np.array([math.inf]))[0])


# The eps at which a composition samples the attaining vertex first (refusing
# early when it changes), and the relative gap below which a vertex counts as
# attaining the worst case (the sweep's own accuracy).
_DOMINANCE_SAMPLES = 17
_DOMINANCE_GAP = 1e-9


class VertexLaws(LawSource):
    """What the worst case over the vertices knows of its laws: a maximum over
    N + 1 pairs, which composes as a pair only where ONE vertex attains the
    maximum at every eps (per direction; the worst case is symmetric, the
    minus direction's vertex the mirror N - a).  Then the composition's
    upper side is the worst case's own connect-the-dots measure (a maximum
    of hockey-stick curves is convex in e^eps, so it is itself a pair's
    curve, and every vertex's pair is a post-processing of that pair), its
    lower side that vertex's (a composition of pairs the attacker can face).
    Otherwise no pair dominates and the composition has no certified lower
    end: ``grid_bracket`` refuses, saying where the attaining vertex
    changes."""

    def __init__(self, core, N):
        self.core, self.N = core, N

    def grid_bracket(self, value_discretization_interval, tail_mass_truncation,
                     description=None):
        h, tail = value_discretization_interval, tail_mass_truncation
        worst = grid_pld.CurveSource(self.core, "plus")
        span = grid_pld.tail_span(worst, tail)[0]
        if not math.isfinite(span):
            raise ValueError(f"{description}: delta does not come within "
                             f"tail_mass_truncation={tail!r} of its limit at a finite eps; "
                             "no privacy-loss distribution on a grid")
        samples = np.linspace(0.0, span, _DOMINANCE_SAMPLES)
        attained = [(e, *self.core.worst(float(e))) for e in samples]
        e0, log0, a0 = attained[len(attained) // 2]
        vertex = _VertexSource(self.core, a0)
        for e, log_v, a in attained:
            mine = float(self.core.vertex_log_delta(vertex.a, float(e))[0])
            if log_v - mine > _DOMINANCE_GAP:
                raise ValueError(
                    f"{description}: the worst case over the vertices is attained at vertex "
                    f"a={int(a)} at eps={e:.4g} but at a={int(a0)} at eps={e0:.4g}: no single "
                    "pair of laws dominates the others, so a composition of this curve has "
                    "no certified lower end (compose a vertex's curve, or the privacy-blanket "
                    "bound .blanket, instead)")
        sources = {"plus": worst, "minus": worst}
        lowers = {"plus": vertex, "minus": vertex}
        bracket = grid_pld.Bracket(sources, lowers, h, tail, description)
        up = bracket.evaluated(worst, "plus")[0]
        low = bracket.evaluated(vertex, "plus")[0]
        with np.errstate(divide="ignore", invalid="ignore"):
            gap = np.where(up > 0, (up - low) / up, 0)
        i = int(np.argmax(gap))
        if gap[i] > _DOMINANCE_GAP:
            raise ValueError(
                f"{description}: vertex a={int(a0)} attains the worst case at the sampled eps "
                f"but not at eps={i * h:.6g} (relative gap {float(gap[i]):.3g}): no single pair "
                "of laws dominates the others, so a composition of this curve has no certified "
                "lower end")
        return bracket

    def privacy_loss_distribution(self, value_discretization_interval=1e-4,
                                  tail_mass_truncation=1e-15, description=None):
        return self.grid_bracket(value_discretization_interval, tail_mass_truncation,
                                 description).pld()

    renyi = grid_pld.DeltaLaws.renyi          # known through delta only: none


class NoComposition(LawSource):
    """The laws of a worst case whose delta costs a branch and bound per eps
    (more than ``others`` others): no privacy-loss distribution."""

    def __init__(self, others):
        self.others = others

    def privacy_loss_distribution(self, value_discretization_interval=None,
                                  tail_mass_truncation=None, description=None):
        raise ValueError(f"{description}: the worst case over more than {self.others} "
                         "others is found by branch and bound at each eps, too slow to "
                         "evaluate on a loss grid; no privacy-loss distribution (compose the "
                         "privacy-blanket bound .blanket instead)")

    renyi = grid_pld.DeltaLaws.renyi
