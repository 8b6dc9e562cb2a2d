"""Closed-form composition bounds of (eps, delta) guarantees: the basic
composition theorem and the bounded-dependency composition of Desfontaines,
Mohammadi, Krahmer & Basin, "Differential privacy with partial knowledge"."""
from __future__ import annotations

import math
from typing import Any, Tuple

import numpy as np

from statpriv import _validate

__all__ = ["basic_composition", "bounded_dependency_composition"]


def _guarantee(name: str, pair: object) -> Tuple[float, float]:
    try:
        if not isinstance(pair, (tuple, list, np.ndarray)):   # not bytes, sets, dicts, ...
            raise TypeError
        eps, delta = pair
    except (TypeError, ValueError):
        raise _validate.ParameterTypeError(
            f"{name} must be an (eps, delta) pair, got {pair!r}") from None
    eps = _validate.real(f"{name} eps", eps, low=0.0, allow_inf=True)
    delta = _validate.probability(f"{name} delta", delta)
    return eps, delta


def basic_composition(*guarantees: Tuple[float, float], times: int = 1) -> Tuple[float, float]:
    """(sum eps_i, min(1, sum delta_i)): the basic composition theorem.

    Each argument is an (eps, delta) pair of one mechanism; ``times`` repeats
    the whole list.  For mechanisms on independent data it holds under partial
    knowledge too (Desfontaines et al., "Differential privacy with partial
    knowledge", Prop. 9 with Thm. 6 at alpha = beta = 0); ``compose`` gives the
    tight curve instead.

    Parameters
    ----------
    *guarantees : (eps, delta) pairs
        One pair per mechanism, eps >= 0 (inf allowed), delta in [0, 1]; at
        least one.
    times : int >= 1, keyword only
        How many times the whole list is run (default 1).

    Returns
    -------
    tuple of float
        (eps, delta) of the joint release: (times sum eps_i,
        min(1, times sum delta_i)).

    Examples
    --------
    >>> from statpriv import basic_composition
    >>> basic_composition((0.5, 1e-6), (0.25, 1e-7), times=2)
    (1.5, 2.2e-06)
    """
    if not guarantees:
        raise ValueError("basic_composition needs at least one (eps, delta) pair")
    times = _validate.count("times", times, low=1)
    pairs = [_guarantee(f"guarantees[{i}]", g) for i, g in enumerate(guarantees)]
    eps = times * math.fsum(e for e, _ in pairs)
    delta = min(1.0, times * math.fsum(d for _, d in pairs))
    return eps, delta


def bounded_dependency_composition(first: Tuple[float, float], second: Tuple[float, float],
                                   alpha: float, beta: float) -> Tuple[float, float]:
    """(eps_1 + eps_2 + alpha, delta_1 + delta_2 + beta) for (alpha, beta)-bounded
    dependent mechanisms.

    Desfontaines, Mohammadi, Krahmer & Basin, "Differential privacy with
    partial knowledge", Def. 18 and Thm. 6: if the dependency of the second
    mechanism's privacy loss on the first one's output is at most alpha except
    on events of probability beta, and the mechanisms are (eps_1, delta_1)-
    and (eps_2, delta_2)-private under partial knowledge, their joint release
    is (eps_1 + eps_2 + alpha, delta_1 + delta_2 + beta)-private.  Mechanisms
    on independent parts of the data have alpha = beta = 0 (Prop. 9); with
    day-to-day correlation bounded as in the paper's Example 9 (each day's
    records (alpha, beta)-indistinguishable given the previous day's), chain
    this helper day by day.

    Parameters
    ----------
    first, second : (eps, delta) pairs
        The guarantees of the two mechanisms, eps >= 0 (inf allowed), delta
        in [0, 1].
    alpha : float >= 0
        The bound on the dependency of the second mechanism's privacy loss
        on the first one's output (inf allowed).
    beta : float in [0, 1]
        The probability of the events on which that bound may fail.

    Returns
    -------
    tuple of float
        (eps_1 + eps_2 + alpha, min(1, delta_1 + delta_2 + beta)).

    Examples
    --------
    >>> from statpriv import bounded_dependency_composition
    >>> bounded_dependency_composition((0.5, 1e-6), (0.5, 1e-6), 0.1, 1e-7)
    (1.1, 2.1e-06)
    """
    e1, d1 = _guarantee("first", first)
    e2, d2 = _guarantee("second", second)
    alpha = _validate.real("alpha", alpha, low=0.0, allow_inf=True)
    beta = _validate.probability("beta", beta)
    return math.fsum((e1, e2, alpha)), min(1.0, math.fsum((d1, d2, beta)))
