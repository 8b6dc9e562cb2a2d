"""Empirical differential privacy: per-individual delta from many draws of a database.

Burchard, Daoud & Dotterrer, "Empirical Differential Privacy".  Databases
X^1..X^R (days, years, random splits) are drawn iid; records carry an
individual id.  For a query f, q = {f(X^r)} and, for each individual i,
q_i = {f(X^r minus i's records)} (Algorithm 1).  With density estimates p of
q and p_i of q_i (Algorithm 2)

    delta_i(eps) = max( int (p - e^eps p_i)_+ , int (p_i - e^eps p)_+ ),
    delta(eps)   = max_i delta_i(eps),
    delta*(eps)  = 1 - prod_i (1 - delta_i(eps))      (total risk, Def. 3),

and the Laplace noise scale that makes every pair eps-close:
lambda = max_i d_inf(q, q_i) / eps, d_inf the matching (bottleneck) distance
of the two multisets (Prop. 1 of the paper uses the Hausdorff distance
d_H <= d_inf, which is not enough when values repeat or cluster; see
docs/empirical.md).

    >>> import numpy as np, pandas as pd
    >>> from statpriv.empirical import EmpiricalPrivacy
    >>> rng = np.random.default_rng(0)
    >>> data = pd.DataFrame({"db": np.repeat(np.arange(50), 20),
    ...                      "id": np.tile(np.arange(20), 50),
    ...                      "value": rng.normal(size=1000)})
    >>> ep = EmpiricalPrivacy(data, "mean", bandwidth="silverman")
    >>> bool(0.0 <= ep.delta(0.5) <= ep.total_risk(0.5) <= 1.0)
    True

Internal building blocks (stable signatures; the Dask path reuses them per
partition):

(a) leave-one-out values, statpriv.empirical._loo:
    ``encode(data, individual, database, value) -> Encoded`` (integer codes);
    ``database_statistics(db_codes, values, n_databases, query) -> DatabaseStats``
    (per-database sums, counts, sorted values for quantiles, and q);
    ``DatabaseStats.from_sums(query, total, count)`` for sum / count / mean
    from already aggregated sums;
    ``leave_one_out(stats, ind_codes, db_codes, values, n_individuals) -> Q``,
    Q[i, r] = q_{i,r} for a batch of individuals (their codes local to the
    batch, 0..n-1; every record of each; database codes global);
    ``generic_leave_one_out(func, enc, workers=None, progress=None) -> (q, Q)``.
(b) delta_i for a batch, statpriv.empirical._estimators:
    ``fit_estimator(q, estimator, bandwidth) -> Estimator`` (fit once on q);
    ``Estimator.deltas(Q, eps) -> (delta_i array, bound array)`` (bound: the
    quadrature bound already added, 0 where exact); ``Estimator.prepare(Q)``
    + ``Estimator.deltas_prepared(prepared, eps)`` to sort a batch once and
    evaluate many eps; ``hausdorff(q, Q) -> d_H per row`` (this module).
``EmpiricalPrivacy._from_arrays(q, Q, individuals, databases, ...)`` builds
the object from those arrays.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional, Sequence, Union, cast, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from statpriv import _validate

# e^eps overflows float64 beyond eps ~ 709.78: delta_i(eps) is evaluated up to here
MAX_EPS = 700.0
from statpriv.empirical import _loo, _vector
from statpriv.empirical._estimators import ESTIMATORS, fit_estimator
from statpriv.empirical._independence import IndependenceCheck

if TYPE_CHECKING:
    import pandas as pd
    from statpriv.empirical._estimators import Estimator

_Arrayish = Union[NDArray[Any], Sequence[float], Sequence[Sequence[float]]]

_EPS_MAX = 512.0

__all__ = ["EmpiricalPrivacy", "Conditioned", "ESTIMATORS", "IndependenceCheck", "hausdorff",
           "matching_distance"]


def hausdorff(q: ArrayLike, Q: ArrayLike) -> NDArray[np.float64]:
    """The Hausdorff distance d_H(q, q_i) for every row q_i of Q (finite sets of reals).

    Parameters
    ----------
    q : 1-D array of floats
        One set of values.
    Q : 2-D array of floats (or 1-D: one row)
        One set per row.

    Returns
    -------
    numpy.ndarray
        d_H(q, q_i) per row of Q.

    Examples
    --------
    >>> from statpriv.empirical import hausdorff
    >>> hausdorff([0.0, 1.0], [[0.0, 1.5], [2.0, 3.0]])
    array([0.5, 2. ])
    """
    from statpriv.empirical import _kde
    Q = np.atleast_2d(np.asarray(Q, dtype=np.float64))
    return _kde.hausdorff(np.sort(np.asarray(q, dtype=np.float64)), np.sort(Q, axis=1))


def matching_distance(q: ArrayLike, Q: ArrayLike) -> NDArray[np.float64]:
    """``max_j |q_(j) - q_i(j)|`` for every row q_i of Q (sorted values matched in order).

    Parameters
    ----------
    q : 1-D array of floats
        One sample of values.
    Q : 2-D array of floats (or 1-D: one row)
        One sample per row, each as long as ``q``.

    Returns
    -------
    numpy.ndarray
        The largest difference of the matched sorted values, per row of Q.

    Examples
    --------
    >>> from statpriv.empirical import matching_distance
    >>> matching_distance([0.0, 1.0], [[0.0, 1.5], [2.0, 3.0]])
    array([0.5, 2. ])
    """
    Q = np.atleast_2d(np.asarray(Q, dtype=np.float64))
    return cast(NDArray[np.float64],
                np.max(np.abs(np.sort(Q, axis=1) - np.sort(np.asarray(q, dtype=np.float64))),
                       axis=1, initial=0.0))


def vector_columns(databases: Any, d: int) -> Any:
    """The columns of a vector query's leave-one-out table: (database, component k)."""
    import pandas as pd
    return pd.MultiIndex.from_product([databases, range(d)],
                                      names=[databases.name, "component"])


def _is_dask(data: object) -> bool:
    return type(data).__module__.split(".")[0] == "dask"


class EmpiricalPrivacy:
    """EmpiricalPrivacy(data, query, *, individual="id", database="db", value="value", estimator="kde-laplace", bandwidth="cv", workers=None, progress=None)

    Empirical (eps, delta) of a query over many draws of a database.

    Parameters
    ----------
    data : pandas.DataFrame
        Long format: one row per record, columns ``individual``, ``database``
        and ``value``.  An individual may have any number of records in a
        database, or none (then q_{i,r} = q_r).
    query : "mean", "sum", "count", "median", "quantile:q", callable, or a list of these names
        The statistic of one database's values.  Built-in queries compute
        every leave-one-out value in closed form (vectorised); a callable is
        evaluated on each database with each present individual removed.
        A vector query (d <= 3 components): a list of names, one per value
        column (or all on one column), or one name for a list of value
        columns, or a callable returning d numbers (it receives an (n, k)
        array of the k value columns); see statpriv.empirical._vector.
    individual, database, value : str, keyword only
        The column names of the individual, the database and the value
        (default "id", "db", "value"); ``value`` may be a list of up to 3
        columns (a vector query).
    estimator : {"kde-laplace", "kde-gauss", "kde-adaptive", "ecdf"}, keyword only
        "kde-laplace" (exact integrals, the default), "kde-gauss",
        "kde-adaptive" (Breiman-Meisel-Purcell) or "ecdf".
    bandwidth : "cv", "silverman" or float, keyword only
        "cv" (held-out log-likelihood, the default), "silverman" or a number;
        for a vector query one rule for every axis (applied to each axis's
        values) or a list of one per component.
    workers : int, optional
        Processes for a callable query (concurrent.futures).
    progress : bool, optional
        Progress bar of the callable path: None (shown on a terminal when
        the pass takes more than a few seconds), True (always), False (never).

    Notes
    -----
    The estimator is fitted once on q and applied unchanged to every q_i
    (docs/empirical.md).  delta_i is never below the integral of the
    estimates: Laplace kernels in closed form plus its rounding bound, ECDF
    exact sums, Gaussian kernels by certified adaptive integration with its
    bound (~1e-14) added.

    Examples
    --------
    >>> from statpriv.empirical import EmpiricalPrivacy
    >>> from statpriv.empirical.data import synthetic
    >>> frame = synthetic(30, 40, seed=1)       # 30 individuals, 40 databases
    >>> ep = EmpiricalPrivacy(frame, "sum")
    >>> print(f"{ep.delta(0.5):.6f}  {ep.epsilon(0.01):.6f}")
    0.028091  1.428181
    """

    def __new__(cls, data: Any = None, *args: Any, **kwargs: Any) -> "EmpiricalPrivacy":
        # a dask DataFrame: the scale-out subclass (statpriv.empirical.distributed)
        if cls is EmpiricalPrivacy and _is_dask(data):
            from statpriv.empirical.distributed import DaskEmpiricalPrivacy
            cls = DaskEmpiricalPrivacy
        return super().__new__(cls)

    def __init__(self, data: "pd.DataFrame", query: Union[str, Callable[..., float]], *,
                 individual: str = "id", database: str = "db", value: str = "value",
                 estimator: str = "kde-laplace", bandwidth: Union[str, float] = "cv",
                 workers: Optional[int] = None, progress: Optional[bool] = None) -> None:
        _validate.choice("estimator", estimator, ESTIMATORS)
        if workers is not None:
            workers = _validate.count("workers", workers, low=1)
        if progress is not None and not isinstance(progress, (bool, np.bool_)):
            raise _validate.ParameterTypeError(f"progress must be None, True or False, got "
                                               f"{type(progress).__name__}")
        if _is_dask(data):
            raise TypeError("data is a dask DataFrame: this in-memory path takes a pandas "
                            "DataFrame (compute() it, or use the Dask path)")
        if _vector.is_vector(query, value):
            q, Q, enc, name = _vector.vector_leave_one_out(data, query, value, individual,
                                                           database, workers, progress)
            self._setup(q, Q, enc.individuals, enc.databases,
                        _loo.Query("vector", name=name), estimator, bandwidth)
            self._encoded = None
            return
        parsed = _loo.parse_query(query)
        enc = _loo.encode(data, individual, database, value)
        if parsed.kind == "callable":
            q, Q = _loo.generic_leave_one_out(parsed.func, enc, workers=workers,
                                              progress=progress)
        else:
            stats = _loo.database_statistics(enc.db_codes, enc.values, len(enc.databases),
                                             parsed)
            Q = _loo.leave_one_out(stats, enc.ind_codes, enc.db_codes, enc.values,
                                   len(enc.individuals), individuals=enc.individuals,
                                   databases=enc.databases)
            q = stats.q
            if not np.isfinite(q).all():
                bad = enc.databases[np.flatnonzero(~np.isfinite(q))[0]]
                raise ValueError(f"query {parsed.name!r} is not finite on database {bad!r}")
        self._setup(q, Q, enc.individuals, enc.databases, parsed, estimator, bandwidth)
        self._encoded = enc

    @classmethod
    def _from_arrays(cls, q: Any, Q: Any, individuals: Any, databases: Any, query: Any,
                     estimator: Any = "kde-laplace", bandwidth: Any = "cv") -> Any:
        """From q (R,) and Q (I, R) already computed (the Dask path, buckets)."""
        self = cls.__new__(cls)
        if np.ndim(q) == 2:
            parsed = query if isinstance(query, _loo.Query) else \
                _loo.Query("vector", name=str(query))
        else:
            parsed = query if isinstance(query, _loo.Query) else _loo.parse_query(query)
        self._setup(np.asarray(q, dtype=np.float64), np.asarray(Q, dtype=np.float64),
                    individuals, databases, parsed, estimator, bandwidth)
        self._encoded = None
        return self

    def _setup(self, q: Any, Q: Any, individuals: Any, databases: Any, query: Any, estimator: Any,
               bandwidth: Any) -> None:
        import pandas as pd

        _validate.choice("estimator", estimator, ESTIMATORS)
        if len(q) < 2:
            raise ValueError("empirical privacy needs at least two databases")
        if q.ndim == 2:
            q, Q = _vector.check_arrays(q, Q, len(individuals))
            if q.shape[1] == 1:
                # one component: the scalar estimators (exact for Laplace kernels)
                q, Q = q[:, 0], Q[:, :, 0]
                if isinstance(bandwidth, (list, tuple, np.ndarray)):
                    if len(bandwidth) != 1:
                        raise ValueError(f"bandwidth gives {len(bandwidth)} widths for a "
                                         f"query of 1 component")
                    bandwidth = bandwidth[0]
        if Q.shape != (len(individuals), len(q)) + q.shape[1:]:
            raise ValueError(f"Q has shape {Q.shape}, expected ({len(individuals)}, {len(q)})")
        self._query = query
        self._bandwidth_rule = bandwidth
        self.individuals = pd.Index(individuals)
        self.databases = pd.Index(databases)
        self._q = q
        self._Q = Q
        self._estimator: Estimator = fit_estimator(q, estimator, bandwidth) if q.ndim == 1 \
            else cast("Estimator", _vector.fit_product_estimator(q, estimator, bandwidth))
        self._prepared: Any = None
        self._cache: Dict[float, NDArray[np.float64]] = {}
        # eps -> max_i delta_i (where the list is not needed)
        self._max_cache: Dict[float, float] = {}
        self._hausdorff: Optional[NDArray[np.float64]] = None
        self._matching: Optional[NDArray[np.float64]] = None

    # -- what was computed ------------------------------------------------
    @property
    def estimator(self) -> "Estimator":
        """The fitted density estimator (kind, scale, per-database widths)."""
        return self._estimator

    @property
    def bandwidth(self) -> Any:
        """The kernel scale used (Laplace b, Gaussian sd; nan for ecdf); for a
        vector query a tuple, one width per component."""
        return self._estimator.scale

    def _scalar_only(self, what: str) -> None:
        """Refuse a method defined for scalar queries only."""
        if self._q.ndim == 2:
            raise ValueError(f"{what} is defined for scalar queries; this query has "
                             f"{self._q.shape[1]} components")

    @property
    def q(self) -> Any:
        """The query on every full database (pandas Series by database; a
        DataFrame, one column per component, for a vector query)."""
        import pandas as pd
        if self._q.ndim == 2:
            return pd.DataFrame(self._q, index=self.databases)
        return pd.Series(self._q, index=self.databases, name="q")

    @property
    def leave_one_out(self) -> "pd.DataFrame":
        """q_{i,r}: a DataFrame, one row per individual, one column per database
        (per (database, component) for a vector query)."""
        import pandas as pd
        if self._Q.ndim == 3:
            return pd.DataFrame(self._Q.reshape(len(self._Q), -1), index=self.individuals,
                                columns=vector_columns(self.databases, self._Q.shape[2]))
        return pd.DataFrame(self._Q, index=self.individuals, columns=self.databases)

    def independence_check(self, *, lag: int = 1, n_resamples: int = 9999,
                           alternative: str = "two-sided", alpha: float = 0.05, seed: Any = 0,
                           order: Any = None) -> "IndependenceCheck":
        """Test the assumption that the databases are independent draws.

        A permutation test (scipy.stats.permutation_test) of the lag-``lag``
        autocorrelation of the query values q in database order (the sorted
        database labels),

            r_k = sum_t (q_t - mean q)(q_{t+k} - mean q) / sum_t (q_t - mean q)^2,

        whose permutation distribution is its exact null distribution under
        iid draws.  Returns an IndependenceCheck (statistic, p_value, method,
        interpretation, ...).  A small p-value means delta_i, delta and delta*
        are not privacy statements for these databases (docs/empirical.md);
        a large one does not prove independence.  ``seed`` (default 0) fixes
        the permutations, so the p-value is reproducible.  ``order``: every
        database label once, in the order in which the databases were drawn
        (time order), when sorting the labels does not give it (default:
        the sorted labels).  The other parameters are described in
        statpriv.empirical._independence.  A vector query is tested jointly
        (the databases' rows permuted together, the most extreme component's
        r_k the statistic; each component's r_k in ``components``)."""
        from statpriv.empirical._independence import independence_check
        q = self._q
        if order is not None:
            import pandas as pd
            labels = pd.Index(order if _validate.ndim("order", order) else [order])
            if len(labels) != len(self.databases) or not labels.is_unique or \
                    not labels.isin(self.databases).all():
                raise ValueError(f"order must list each of the {len(self.databases)} "
                                 f"database labels once, got {len(labels)} labels "
                                 f"({int(labels.isin(self.databases).sum())} of them known)")
            q = q[self.databases.get_indexer(labels)]
        return independence_check(q, lag=lag, n_resamples=n_resamples,
                                  alternative=alternative, alpha=alpha, seed=seed)

    def densities(self, x: ArrayLike, individual: Any) -> Any:
        """(p(x), p_i(x)): the estimates with and without ``individual``.

        Parameters
        ----------
        x : float or array of floats
            Where the densities are evaluated.
        individual : label
            An individual of the data.

        Returns
        -------
        tuple
            (p(x), p_i(x)).

        Examples
        --------
        >>> from statpriv.empirical import EmpiricalPrivacy
        >>> from statpriv.empirical.data import synthetic
        >>> ep = EmpiricalPrivacy(synthetic(30, 40, seed=1), "sum")
        >>> p, p_i = ep.densities(0.0, 21)
        >>> print(f"{float(p):.6f} {float(p_i):.6f}")
        0.053465 0.055731
        """
        i = self.individuals.get_loc(individual)
        return self._estimator.density(x), self._estimator.density(x, self._Q[i])

    # -- delta ---------------------------------------------------------------
    def _delta_values(self, eps: Any) -> Any:
        """delta_i for every individual at one float eps (cached)."""
        eps = float(eps)
        if eps not in self._cache:
            if self._prepared is None:
                self._prepared = self._estimator.prepare(self._Q)
            if len(self._cache) > 64:
                self._cache.clear()
            self._cache[eps] = self._estimator.deltas_prepared(self._prepared, eps)[0]
        return self._cache[eps]

    def _max_delta(self, eps: Any) -> Any:
        """max_i delta_i at one float eps.  Where the estimator bounds every
        row cheaply (Estimator.pair_bounds) and the full list is not cached,
        only the rows whose bound exceeds the running maximum are
        integrated, largest bound first, in batches that double: each
        delta_i is integrated on its own, so the maximum is the same as over
        every row (unless a skipped row's own quadrature bound, DEFAULT_TOL,
        would lift it above; the result bounds every delta_i either way)."""
        eps = float(eps)
        if eps in self._cache or type(self)._delta_values is not EmpiricalPrivacy._delta_values:
            return float(np.max(self._delta_values(eps), initial=0.0))
        if eps not in self._max_cache:
            if self._prepared is None:
                self._prepared = self._estimator.prepare(self._Q)
            bounds = self._estimator.pair_bounds(self._prepared, eps)
            if bounds is None:
                return float(np.max(self._delta_values(eps), initial=0.0))
            rows, wrows = self._prepared
            order = np.argsort(-bounds, kind="stable")
            best, start, size = 0.0, 0, 64
            while start < len(order) and bounds[order[start]] > best:
                idx = order[start:start + size]
                idx = idx[bounds[idx] > best]
                batch = (rows[idx], None if wrows is None else wrows[idx])
                best = max(best, float(np.max(self._estimator.deltas_prepared(batch, eps)[0])))
                start, size = start + size, 2 * size
            if len(self._max_cache) > 64:
                self._max_cache.clear()
            self._max_cache[eps] = best
        return self._max_cache[eps]

    def _vectorised(self, eps: ArrayLike,
                    fn: Callable[[float], float]) -> Union[float, NDArray[np.float64]]:
        arr = _validate.real_array("eps", eps, high=MAX_EPS)
        out = np.array([fn(e) for e in arr.ravel()], dtype=np.float64).reshape(arr.shape)
        return float(out) if arr.ndim == 0 else out

    @overload
    def delta(self, eps: float) -> float: ...
    @overload
    def delta(self, eps: _Arrayish) -> NDArray[np.float64]: ...
    @overload
    def delta(self, eps: ArrayLike) -> Union[float, NDArray[np.float64]]: ...

    def delta(self, eps: ArrayLike) -> Union[float, NDArray[np.float64]]:
        """delta(eps) = max_i delta_i(eps) (eps a number or an array).

        Parameters
        ----------
        eps : float or array of floats
            The eps (>= 0).

        Returns
        -------
        float or numpy.ndarray
            The largest delta_i(eps).

        Examples
        --------
        >>> from statpriv.empirical import EmpiricalPrivacy
        >>> from statpriv.empirical.data import synthetic
        >>> ep = EmpiricalPrivacy(synthetic(30, 40, seed=1), "sum")
        >>> print(f"{ep.delta(0.5):.6f}")
        0.028091
        """
        return self._vectorised(eps, self._max_delta)

    def deltas(self, eps: float) -> "pd.Series":
        """delta_i(eps) for every individual: a pandas Series indexed by individual.

        Parameters
        ----------
        eps : float
            The eps (>= 0).

        Returns
        -------
        pandas.Series
            delta_i(eps), indexed by individual.

        Examples
        --------
        >>> from statpriv.empirical import EmpiricalPrivacy
        >>> from statpriv.empirical.data import synthetic
        >>> ep = EmpiricalPrivacy(synthetic(30, 40, seed=1), "sum")
        >>> ep.deltas(0.5).round(6).nlargest(2).to_dict()
        {21: 0.028091, 2: 0.005462}
        """
        import pandas as pd
        e = _validate.real("eps", eps, high=MAX_EPS)
        return pd.Series(self._delta_values(e), index=self.individuals, name="delta")

    @overload
    def total_risk(self, eps: float) -> float: ...
    @overload
    def total_risk(self, eps: _Arrayish) -> NDArray[np.float64]: ...
    @overload
    def total_risk(self, eps: ArrayLike) -> Union[float, NDArray[np.float64]]: ...

    def total_risk(self, eps: ArrayLike) -> Union[float, NDArray[np.float64]]:
        """delta*(eps) = 1 - prod_i (1 - delta_i(eps)), summed in log space.

        Parameters
        ----------
        eps : float or array of floats
            The eps (>= 0).

        Returns
        -------
        float or numpy.ndarray
            The total risk delta*(eps).

        Examples
        --------
        >>> from statpriv.empirical import EmpiricalPrivacy
        >>> from statpriv.empirical.data import synthetic
        >>> ep = EmpiricalPrivacy(synthetic(30, 40, seed=1), "sum")
        >>> print(f"{ep.total_risk(0.5):.6f}")
        0.052431
        """
        def risk(e: Any) -> Any:
            d = self._delta_values(e)
            if np.any(d >= 1.0):
                return 1.0
            # 0.0 - x, not -x: no risk at all is +0.0 (-expm1(0.0) would be -0.0)
            return float(0.0 - np.expm1(np.sum(np.log1p(-d))))
        return self._vectorised(eps, risk)

    def most_exposed(self, k: int = 10, eps: float = 1.0) -> "pd.Series":
        """The k individuals with the largest delta_i(eps), largest first.

        Parameters
        ----------
        k : int >= 1, optional
            How many individuals (default 10).
        eps : float, optional
            The eps (default 1).

        Returns
        -------
        pandas.Series
            delta_i(eps) of the k individuals, indexed by individual.

        Examples
        --------
        >>> from statpriv.empirical import EmpiricalPrivacy
        >>> from statpriv.empirical.data import synthetic
        >>> ep = EmpiricalPrivacy(synthetic(30, 40, seed=1), "sum")
        >>> ep.most_exposed(2, 0.5).round(6).to_dict()
        {21: 0.028091, 2: 0.005462}
        """
        k = _validate.count("k", k, low=1)
        return self.deltas(eps).sort_values(ascending=False, kind="stable").head(k)

    @overload
    def epsilon(self, delta: float) -> float: ...
    @overload
    def epsilon(self, delta: _Arrayish) -> NDArray[np.float64]: ...
    @overload
    def epsilon(self, delta: ArrayLike) -> Union[float, NDArray[np.float64]]: ...

    def epsilon(self, delta: ArrayLike) -> Union[float, NDArray[np.float64]]:
        """The smallest eps >= 0 (to 1e-12 relative, rounded up) with
        delta(eps) <= delta; inf if delta(eps) stays above it up to eps = 512
        (e.g. an ECDF bin that only one of the two sets occupies).

        Parameters
        ----------
        delta : float in [0, 1] or array of floats
            The target delta.

        Returns
        -------
        float or numpy.ndarray
            eps, an array of the shape of ``delta`` for an array.

        Examples
        --------
        >>> from statpriv.empirical import EmpiricalPrivacy
        >>> from statpriv.empirical.data import synthetic
        >>> ep = EmpiricalPrivacy(synthetic(30, 40, seed=1), "sum")
        >>> print(f"{ep.epsilon(0.01):.6f}")
        1.428181
        """
        arr = _validate.real_array("delta", delta, low=0.0, high=1.0)
        out = np.array([self._epsilon(float(d)) for d in arr.ravel()]).reshape(arr.shape)
        return float(out) if arr.ndim == 0 else out

    def _epsilon(self, target: Any) -> Any:
        est = self._estimator
        d0 = self._delta_values(0.0)
        if d0.max(initial=0.0) <= target:
            return 0.0
        # delta_i is non-increasing in eps: an individual at or below the target
        # at some eps stays there for every larger eps, so it leaves the search
        rows = est.prepare(self._Q[np.flatnonzero(d0 > target)])

        def above(e: Any) -> Any:
            nonlocal rows
            vals = est.deltas_prepared(rows, e)[0]
            keep = vals > target
            if keep.any():
                rows = (rows[0][keep], None if rows[1] is None else rows[1][keep])
            return keep.any()

        lo, hi = 0.0, 1.0
        while above(hi):
            lo, hi = hi, 2.0 * hi
            if hi > _EPS_MAX:
                return math.inf
        while hi - lo > 1e-12 * hi:
            mid = 0.5 * (lo + hi)
            if above(mid):
                lo = mid
            else:
                hi = mid
        return hi

    # -- noise -----------------------------------------------------------------
    def hausdorff(self) -> "pd.Series":
        """d_H(q, q_i) for every individual (pandas Series).

        Returns
        -------
        pandas.Series
            The Hausdorff distance of q and q_i, indexed by individual.

        Examples
        --------
        >>> from statpriv.empirical import EmpiricalPrivacy
        >>> from statpriv.empirical.data import synthetic
        >>> ep = EmpiricalPrivacy(synthetic(30, 40, seed=1), "sum")
        >>> bool((ep.hausdorff() <= ep.matching_distance()).all())
        True
        """
        self._scalar_only("hausdorff")
        import pandas as pd
        if self._hausdorff is None:
            self._hausdorff = hausdorff(self._q, self._Q)
        return pd.Series(self._hausdorff, index=self.individuals, name="hausdorff")

    def matching_distance(self) -> "pd.Series":
        """``d_inf(q, q_i) = max_j |q_(j) - q_i(j)|`` (sorted values matched in
        order: the bottleneck distance of two equal-size multisets) per individual.

        Returns
        -------
        pandas.Series
            d_inf(q, q_i), indexed by individual.

        Examples
        --------
        >>> from statpriv.empirical import EmpiricalPrivacy
        >>> from statpriv.empirical.data import synthetic
        >>> ep = EmpiricalPrivacy(synthetic(30, 40, seed=1), "sum")
        >>> print(f"{ep.matching_distance().max():.6f}")        # noise_scale(1) is this / 1
        7.945458
        """
        self._scalar_only("matching_distance")
        import pandas as pd
        if self._matching is None:
            self._matching = matching_distance(self._q, self._Q)
        return pd.Series(self._matching, index=self.individuals, name="matching")

    def noise_scale(self, eps: float, distance: str = "matching") -> float:
        """lambda such that the Laplace KDEs of scale lambda of q and of every q_i
        differ by a factor <= e^eps everywhere.

        Parameters
        ----------
        eps : float > 0
            The eps the noise must reach.
        distance : {"matching", "hausdorff"}, optional
            Which distance of q and q_i sets lambda (below).

        Returns
        -------
        float
            lambda.

        Notes
        -----
        distance="matching" (default): lambda = max_i d_inf(q, q_i) / eps, which
        guarantees it: with q_(j) matched to q_i(j), every kernel pair has ratio
        within ``e^(+-|q_(j) - q_i(j)|/lambda)``, hence so do the two averages.
        distance="hausdorff": lambda = max_i d_H(q, q_i) / eps, Prop. 1 of
        Burchard, Daoud & Dotterrer as published -- NOT a guarantee: d_H ignores
        multiplicities (q = {0, 2, 2.001}, q_i = {0, 0.001, 2}, eps = 0.3 breaks
        it; docs/empirical.md).  d_H <= d_inf always.

        Examples
        --------
        >>> from statpriv.empirical import EmpiricalPrivacy
        >>> from statpriv.empirical.data import synthetic
        >>> ep = EmpiricalPrivacy(synthetic(30, 40, seed=1), "sum")
        >>> print(f"{ep.noise_scale(1.0):.6f} {ep.noise_scale(1.0, distance='hausdorff'):.6f}")
        7.945458 6.140933
        """
        self._scalar_only("noise_scale")
        e = _validate.real("eps", eps, low=0.0, low_open=True, high=MAX_EPS)
        _validate.choice("distance", distance, ("matching", "hausdorff"))
        d = self.matching_distance() if distance == "matching" else self.hausdorff()
        return float(d.max()) / e

    def noise_sampler(self, eps: float, kernel: str = "laplace", seed: Any = None,
                      max_negative_mass: float = 0.05,
                      distance: str = "matching") -> Callable[..., Any]:
        """A callable drawing the noise h with k * h = Laplace(lambda) density,
        k the curator's kernel (the fitted bandwidth when the estimator uses that
        kernel, else the bandwidth rule refitted for it); see statpriv.empirical._noise.

        Parameters
        ----------
        eps : float > 0
            The eps the noise must reach (its scale is ``noise_scale(eps, distance)``).
        kernel : {"laplace", "gauss"}, optional
            The curator's kernel k (default "laplace").
        seed : int or None, optional
            The seed of the random draws (None: fresh entropy).
        max_negative_mass : float in [0, 1], optional
            For the Gaussian kernel: the largest negative mass of the
            deconvolved density that is accepted (default 0.05).
        distance : {"matching", "hausdorff"}, optional
            As for noise_scale.

        Returns
        -------
        callable
            ``draw(size)`` returns an array of ``size`` noise values.

        Examples
        --------
        >>> from statpriv.empirical import EmpiricalPrivacy
        >>> from statpriv.empirical.data import synthetic
        >>> ep = EmpiricalPrivacy(synthetic(30, 40, seed=1), "sum")
        >>> draw = ep.noise_sampler(1.0, seed=0)
        >>> draw(3).shape
        (3,)
        """
        from statpriv.empirical import _noise
        from statpriv.empirical._estimators import choose_scale

        _validate.choice("kernel", kernel, ("laplace", "gauss"))
        seed = _validate.seed("seed", seed)
        max_negative_mass = _validate.probability("max_negative_mass", max_negative_mass)
        lam = self.noise_scale(eps, distance)
        if self._estimator.kind == f"kde-{kernel}":
            s = self._estimator.scale
        else:
            s = choose_scale(self._q, f"kde-{kernel}", self._bandwidth_rule)
        if kernel == "laplace":
            return cast(Callable[..., Any], _noise.laplace_kernel_noise(s, lam, eps, seed))
        return cast(Callable[..., Any],
                    _noise.gaussian_kernel_noise(s, lam, eps, seed, max_negative_mass))

    # -- adversary knowledge (Def. 4) ---------------------------------------------
    def conditioned(self, on: Any, bins: int = 4) -> "Conditioned":
        """delta per bucket of a statistic g the attacker knows (Def. 4).

        on: a pandas Series of g(X^r) indexed by database, or a query ("mean",
        "count", ..., a callable) evaluated on each full database.  bins: a
        number of equal-count buckets (quantiles of g) or a sequence of edges.
        Each bucket's databases form their own EmpiricalPrivacy (estimator
        refitted on them); buckets need at least two databases.

        Parameters
        ----------
        on : pandas.Series, str or callable
            g(X^r) indexed by database, or a query evaluated on each full database.
        bins : int >= 1 or sequence of floats, optional
            Equal-count buckets (default 4) or increasing bucket edges.

        Returns
        -------
        Conditioned
            delta, deltas and total_risk per bucket.

        Examples
        --------
        >>> from statpriv.empirical import EmpiricalPrivacy
        >>> from statpriv.empirical.data import synthetic
        >>> ep = EmpiricalPrivacy(synthetic(30, 40, seed=1), "sum")
        >>> ep.conditioned(on="count", bins=2).delta(0.5).round(6).tolist()
        [0.008876, 0.014861]
        """
        import pandas as pd

        g = self._known_statistic(on)
        if _validate.ndim("bins", bins) == 0:
            nb = _validate.count("bins", bins, low=1)
            labels = pd.qcut(g, nb, duplicates="drop")
        else:
            edges = _validate.real_array("bins", bins, allow_inf=True, dims=(1,))
            if edges.size < 2 or not (np.diff(edges) > 0).all():
                raise ValueError(f"bins must be a number of buckets or at least two "
                                 f"increasing edges, got {edges.tolist()}")
            labels = pd.cut(g, edges)
        if labels.isna().any():
            raise ValueError(f"bins leave {int(labels.isna().sum())} database(s) outside "
                             f"every bucket")
        buckets = {}
        for label in labels.cat.categories:
            cols = np.flatnonzero((labels == label).to_numpy())
            if len(cols) == 0:
                continue
            if len(cols) < 2:
                raise ValueError(f"bucket {label} holds {len(cols)} database: each bucket "
                                 f"needs at least two (use fewer bins)")
            buckets[label] = EmpiricalPrivacy._from_arrays(
                self._q[cols], self._Q[:, cols], self.individuals, self.databases[cols],
                self._query, self._estimator.kind, self._bandwidth_rule)
        return Conditioned(buckets)

    def _known_statistic(self, on: Any) -> Any:
        import pandas as pd

        if isinstance(on, pd.Series):
            missing = self.databases.difference(on.index)
            if len(missing):
                raise ValueError(f"on has no value for database(s) {list(missing[:5])}")
            g = on.reindex(self.databases).astype(np.float64)
        else:
            if self._encoded is None:
                raise ValueError("on must be a pandas Series indexed by database here")
            parsed = _loo.parse_query(on, "on")
            enc = self._encoded
            if parsed.kind == "callable":
                order = np.argsort(enc.db_codes, kind="stable")
                bounds = np.searchsorted(enc.db_codes[order], np.arange(len(self.databases) + 1))
                vals = [_loo.evaluate(parsed.func, enc.values[order[bounds[r]:bounds[r + 1]]],
                                      "on") for r in range(len(self.databases))]
            else:
                vals = _loo.database_statistics(enc.db_codes, enc.values,
                                                len(self.databases), parsed).q
            g = pd.Series(vals, index=self.databases)
        if not np.isfinite(g.to_numpy()).all():
            raise ValueError("the known statistic `on` must be finite on every database")
        return g

    def __repr__(self) -> str:
        width = ", ".join(f"{w:.6g}" for w in np.atleast_1d(self.bandwidth))
        return (f"<EmpiricalPrivacy query={self._query.name!r}, {len(self.databases)} "
                f"databases, {len(self.individuals)} individuals, "
                f"estimator={self._estimator.kind!r}, bandwidth={width}>")


class Conditioned:
    """delta per bucket of the attacker's known statistic (Def. 4).

    Built by ``EmpiricalPrivacy.conditioned``.

    Parameters
    ----------
    buckets : dict
        bucket -> the EmpiricalPrivacy of that bucket's databases.

    Examples
    --------
    >>> from statpriv.empirical import EmpiricalPrivacy
    >>> from statpriv.empirical.data import synthetic
    >>> by_count = EmpiricalPrivacy(synthetic(30, 40, seed=1), "sum").conditioned("count", bins=2)
    >>> len(by_count.buckets)
    2
    """

    def __init__(self, buckets: Dict[Any, "EmpiricalPrivacy"]) -> None:
        self.buckets = buckets

    def delta(self, eps: float) -> "pd.Series":
        """pandas Series: max_i delta_i(eps) within each bucket.

        Parameters
        ----------
        eps : float
            The eps (>= 0).

        Returns
        -------
        pandas.Series
            delta(eps) per bucket.

        Examples
        --------
        >>> from statpriv.empirical import EmpiricalPrivacy
        >>> from statpriv.empirical.data import synthetic
        >>> ep = EmpiricalPrivacy(synthetic(30, 40, seed=1), "sum")
        >>> ep.conditioned("count", bins=2).delta(0.5).round(6).tolist()
        [0.008876, 0.014861]
        """
        import pandas as pd
        return pd.Series({k: v.delta(eps) for k, v in self.buckets.items()}, name="delta")

    def total_risk(self, eps: float) -> "pd.Series":
        """pandas Series: delta* within each bucket.

        Parameters
        ----------
        eps : float
            The eps (>= 0).

        Returns
        -------
        pandas.Series
            total_risk(eps) per bucket.

        Examples
        --------
        >>> from statpriv.empirical import EmpiricalPrivacy
        >>> from statpriv.empirical.data import synthetic
        >>> ep = EmpiricalPrivacy(synthetic(30, 40, seed=1), "sum")
        >>> ep.conditioned("count", bins=2).total_risk(0.5).round(6).tolist()
        [0.028472, 0.023742]
        """
        import pandas as pd
        return pd.Series({k: v.total_risk(eps) for k, v in self.buckets.items()},
                         name="total_risk")

    def deltas(self, eps: float) -> "pd.DataFrame":
        """DataFrame: delta_i(eps), one column per bucket.

        Parameters
        ----------
        eps : float
            The eps (>= 0).

        Returns
        -------
        pandas.DataFrame
            delta_i(eps), one row per individual, one column per bucket.

        Examples
        --------
        >>> from statpriv.empirical import EmpiricalPrivacy
        >>> from statpriv.empirical.data import synthetic
        >>> ep = EmpiricalPrivacy(synthetic(30, 40, seed=1), "sum")
        >>> ep.conditioned("count", bins=2).deltas(0.5).shape
        (29, 2)
        """
        import pandas as pd
        return pd.DataFrame({k: v.deltas(eps) for k, v in self.buckets.items()})
