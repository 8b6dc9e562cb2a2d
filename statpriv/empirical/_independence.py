"""Are the databases independent draws?  A permutation test of the serial
correlation of the query values.

Empirical differential privacy (Burchard, Daoud & Dotterrer, "Empirical
Differential Privacy") treats the databases X^1..X^R as independent draws
from one distribution: the density estimates p and p_i are kernel estimates
of iid samples, and delta_i is read from them.  Days of a year, years of a
panel and similar sequences are often serially dependent (trends, seasons,
persistence).  The check here uses what the analysis already has, the query
on every full database in database order, q_1..q_R, and its lag-k
autocorrelation

    r_k = sum_{t=1}^{R-k} (q_t - mean q)(q_{t+k} - mean q) / sum_{t=1}^{R} (q_t - mean q)^2.

Under independent, identically distributed draws every order of q_1..q_R is
equally likely, so the permutation distribution of r_k is its exact null
distribution (no normality assumed); ``scipy.stats.permutation_test``
resamples it (every permutation when R! <= n_resamples).  A small p-value
says the sequence is not exchangeable: neighbouring databases resemble each
other (r_k > 0: persistence, trends) or alternate (r_k < 0).  A large
p-value is no proof of independence: the test sees only dependence that
shows up in the order of the databases.

A vector query (q_r in R^d) is tested jointly: the rows q_r are permuted
together (under iid draws of the databases every order of the rows is
equally likely), and the statistic is the most extreme component,
max_j |r_k(q_{.,j})| (two-sided), max_j r_k(q_{.,j}) ("greater") or
min_j r_k(q_{.,j}) ("less").  Its permutation distribution is again exact,
so the p-value needs no correction for testing d components; each
component's r_k is reported as well.
"""
import math
from dataclasses import dataclass
from typing import Any, Optional, Tuple

import numpy as np

from statpriv import _validate

__all__ = ["IndependenceCheck", "independence_check", "ALTERNATIVES"]

ALTERNATIVES = ("two-sided", "greater", "less")


@dataclass(frozen=True)
class IndependenceCheck:
    """The result of ``EmpiricalPrivacy.independence_check``.

    Attributes
    ----------
    statistic : float
        The lag-``lag`` autocorrelation r_k of the query values in database order.
    p_value : float
        Its permutation p-value (``alternative``).
    method : str
        How p_value was computed (exact over every order, or random permutations).
    lag : int
        The lag k.
    alternative : str
        "two-sided", "greater" or "less".
    n_databases : int
        R, the number of databases.
    alpha : float
        The level the interpretation uses; ``rejected`` is p_value < alpha.
    interpretation : str
        One line saying what the result means for the numbers.
    components : tuple of float or None
        For a vector query, r_k of each component (``statistic`` is then the
        joint test's: the largest absolute value of an r_k, the largest or
        the smallest r_k);
        None for a scalar query.

    Examples
    --------
    >>> from statpriv.empirical import EmpiricalPrivacy
    >>> from statpriv.empirical.data import synthetic
    >>> check = EmpiricalPrivacy(synthetic(30, 40, seed=1), "sum").independence_check()
    >>> 0.0 <= check.p_value <= 1.0, check.n_databases
    (True, 40)
    """
    statistic: float
    p_value: float
    method: str
    lag: int
    alternative: str
    n_databases: int
    alpha: float
    interpretation: str
    components: Optional[Tuple[float, ...]] = None

    @property
    def rejected(self) -> bool:
        """True when p_value < alpha: the databases do not look like independent draws."""
        return bool(self.p_value < self.alpha)

    def __str__(self) -> str:
        return self.interpretation


def autocorrelation(x: Any, lag: int = 1, axis: int = -1) -> Any:
    """r_k of x along ``axis`` (the formula of the module docstring); vectorised."""
    x = np.moveaxis(np.asarray(x, dtype=np.float64), axis, -1)
    centred = x - x.mean(axis=-1, keepdims=True)
    num = np.sum(centred[..., :-lag] * centred[..., lag:], axis=-1)
    den = np.sum(centred * centred, axis=-1)
    return num / den


def independence_check(q: Any, *, lag: int = 1, n_resamples: int = 9999,
                       alternative: str = "two-sided", alpha: float = 0.05,
                       seed: Any = 0) -> "IndependenceCheck":
    """Permutation test of the lag-``lag`` autocorrelation of q (database order).

    q: the query on every database, R >= 3 finite values, not all equal; for
    a vector query an (R, d) array, each component not constant (the joint
    test of the module docstring: the databases' rows permuted together, the
    largest autocorrelation of a component the statistic);
    lag: 1 .. R - 2; n_resamples: random permutations (>= 1; an exact test
    over all R! orders when that is not more); alternative: "two-sided"
    (any serial dependence), "greater" (r_k > 0: neighbours alike) or
    "less"; alpha in (0, 1): the level of the interpretation; seed: the
    permutations' random seed (None, an integer >= 0 or a numpy Generator;
    the default 0 makes the p-value reproducible)."""
    from scipy import stats

    q = _validate.real_array("q", q, dims=(1, 2))
    R = len(q)
    if R < 3:
        raise ValueError(f"the independence check needs at least 3 databases, got {R}")
    lag = _validate.count("lag", lag, low=1, high=R - 2)
    n_resamples = _validate.count("n_resamples", n_resamples, low=1)
    _validate.choice("alternative", alternative, ALTERNATIVES)
    alpha = _validate.real("alpha", alpha, low=0.0, high=1.0, low_open=True, high_open=True)
    seed = _validate.seed("seed", seed)
    if q.ndim == 2 and q.shape[1] == 0:
        raise ValueError("q has no components: give an (R,) or an (R, d) array, d >= 1")
    constant = np.flatnonzero(~(np.ptp(q, axis=0) > 0.0))
    if len(constant):
        which = "the query" if q.ndim == 1 else f"component {int(constant[0])} of the query"
        raise ValueError(f"{which} takes the same value on every database: its "
                         f"autocorrelation is undefined")
    components = None
    if q.ndim == 1:
        test, tail = (lambda x, axis: autocorrelation(x, lag, axis)), alternative
    else:
        # the components' rows (d, R), permuted together along the last axis
        q = np.ascontiguousarray(q.T)
        components = tuple(float(r) for r in autocorrelation(q, lag))
        test, tail = _joint_statistic(lag, alternative)

    exact = math.factorial(R) <= n_resamples if R < 20 else False
    result = stats.permutation_test((q,), test, permutation_type="pairings",
                                    vectorized=True, n_resamples=n_resamples,
                                    alternative=tail, batch=1000, axis=-1,
                                    rng=np.random.default_rng(seed))
    method = (f"exact permutation test over all {math.factorial(R)} orders" if exact else
              f"permutation test, {n_resamples} random orders")
    r, p = float(result.statistic), float(result.pvalue)
    if components is None:
        what = (f"lag-{lag} autocorrelation {r:+.3f} of the query across {R} databases "
                f"(p = {p:.3g})")
    else:
        extreme = {"two-sided": "largest |r|", "greater": "largest r",
                   "less": "smallest r"}[alternative]
        listed = ", ".join(f"{c:+.3f}" for c in components)
        what = (f"lag-{lag} autocorrelations ({listed}) of the query's {len(components)} "
                f"components across {R} databases ({extreme} {r:.3f}, joint p = {p:.3g})")
    if p < alpha:
        text = (f"{what} < {alpha:g}: the databases do not look like independent draws; "
                f"delta_i and the density estimates are not privacy statements for them")
    else:
        text = (f"{what} >= {alpha:g}: no evidence against independent draws in the "
                f"database order (which the test cannot prove)")
    return IndependenceCheck(r, p, f"{method} (scipy.stats.permutation_test)", lag,
                             alternative, R, alpha, text, components)


def _joint_statistic(lag: int, alternative: str) -> Any:
    """(statistic, scipy alternative) of the joint test of d components:
    max_k |r_k| ("greater" tail) for "two-sided", max_k r_k for "greater",
    min_k r_k for "less"."""
    def largest_magnitude(x: Any, axis: int) -> Any:
        return np.max(np.abs(autocorrelation(x, lag, axis)), axis=-1)

    def largest(x: Any, axis: int) -> Any:
        return np.max(autocorrelation(x, lag, axis), axis=-1)

    def smallest(x: Any, axis: int) -> Any:
        return np.min(autocorrelation(x, lag, axis), axis=-1)

    if alternative == "two-sided":
        return largest_magnitude, "greater"
    return (largest, "greater") if alternative == "greater" else (smallest, "less")
