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
import math

import numpy as np

from statpriv import _validate

# e^eps overflows float64 beyond eps ~ 709.78: delta_i(eps) is evaluated up to here
MAX_EPS = 700.0
from statpriv.empirical import _loo
from statpriv.empirical._estimators import ESTIMATORS, fit_estimator
from statpriv.empirical._independence import IndependenceCheck

_EPS_MAX = 512.0

__all__ = ["EmpiricalPrivacy", "Conditioned", "ESTIMATORS", "IndependenceCheck", "hausdorff",
           "matching_distance"]


def hausdorff(q, Q):
    """d_H(q, q_i) for every row q_i of Q (finite sets of reals)."""
    from statpriv.empirical import _kde
    Q = np.atleast_2d(np.asarray(Q, dtype=np.float64))
    return _kde.hausdorff(np.sort(np.asarray(q, dtype=np.float64)), np.sort(Q, axis=1))


def matching_distance(q, Q):
    """max_j |q_(j) - q_i(j)| for every row q_i of Q (sorted values matched in order)."""
    Q = np.atleast_2d(np.asarray(Q, dtype=np.float64))
    return np.max(np.abs(np.sort(Q, axis=1) - np.sort(np.asarray(q, dtype=np.float64))),
                  axis=1, initial=0.0)


def _is_dask(data):
    return type(data).__module__.split(".")[0] == "dask"


class EmpiricalPrivacy:
    """Empirical (eps, delta) of a query over many draws of a database.

    Parameters
    ----------
    data : pandas.DataFrame
        Long format: one row per record, columns ``individual``, ``database``
        and ``value``.  An individual may have any number of records in a
        database, or none (then q_{i,r} = q_r).
    query : "mean", "sum", "count", "median", "quantile:q" or callable
        The statistic of one database's values.  Built-in queries compute
        every leave-one-out value in closed form (vectorised); a callable is
        evaluated on each database with each present individual removed.
    estimator : "kde-laplace" (exact integrals), "kde-gauss", "kde-adaptive"
        (Breiman-Meisel-Purcell), "ecdf"
    bandwidth : "cv" (held-out log-likelihood), "silverman" or a number
    workers : int, optional
        Processes for a callable query (concurrent.futures).
    progress : bool, optional
        Progress bar of the callable path: None (shown on a terminal when
        the pass takes more than a few seconds), True (always), False (never).

    The estimator is fitted once on q and applied unchanged to every q_i
    (docs/empirical.md).  delta_i is never below the integral of the
    estimates: Laplace kernels in closed form plus its rounding bound, ECDF
    exact sums, Gaussian kernels by certified adaptive integration with its
    bound (~1e-14) added.
    """

    def __new__(cls, data=None, *args, **kwargs):
        # a dask DataFrame: the scale-out subclass (statpriv.empirical.distributed)
        if cls is EmpiricalPrivacy and _is_dask(data):
            from statpriv.empirical.distributed import DaskEmpiricalPrivacy
            cls = DaskEmpiricalPrivacy
        return super().__new__(cls)

    def __init__(self, data, query, *, individual="id", database="db", value="value",
                 estimator="kde-laplace", bandwidth="cv", workers=None, progress=None):
        _validate.choice("estimator", estimator, ESTIMATORS)
        parsed = _loo.parse_query(query)
        if workers is not None:
            workers = _validate.count("workers", workers, low=1)
        if progress is not None and not isinstance(progress, (bool, np.bool_)):
            raise _validate.ParameterTypeError(f"progress must be None, True or False, got "
                                               f"{type(progress).__name__}")
        if _is_dask(data):
            raise TypeError("data is a dask DataFrame: this in-memory path takes a pandas "
                            "DataFrame (compute() it, or use the Dask path)")
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
    def _from_arrays(cls, q, Q, individuals, databases, query, estimator="kde-laplace",
                     bandwidth="cv"):
        """From q (R,) and Q (I, R) already computed (the Dask path, buckets)."""
        self = cls.__new__(cls)
        parsed = query if isinstance(query, _loo.Query) else _loo.parse_query(query)
        self._setup(np.asarray(q, dtype=np.float64), np.asarray(Q, dtype=np.float64),
                    individuals, databases, parsed, estimator, bandwidth)
        self._encoded = None
        return self

    def _setup(self, q, Q, individuals, databases, query, estimator, bandwidth):
        import pandas as pd

        _validate.choice("estimator", estimator, ESTIMATORS)
        if len(q) < 2:
            raise ValueError("empirical privacy needs at least two databases")
        if Q.shape != (len(individuals), len(q)):
            raise ValueError(f"Q has shape {Q.shape}, expected ({len(individuals)}, {len(q)})")
        self._query = query
        self._bandwidth_rule = bandwidth
        self.individuals = pd.Index(individuals)
        self.databases = pd.Index(databases)
        self._q = q
        self._Q = Q
        self._estimator = fit_estimator(q, estimator, bandwidth)
        self._prepared = None
        self._cache = {}
        self._max_cache = {}          # eps -> max_i delta_i (where the list is not needed)
        self._hausdorff = None
        self._matching = None

    # -- what was computed ------------------------------------------------
    @property
    def estimator(self):
        """The fitted density estimator (kind, scale, per-database widths)."""
        return self._estimator

    @property
    def bandwidth(self):
        """The kernel scale used (Laplace b, Gaussian sd; nan for ecdf)."""
        return self._estimator.scale

    @property
    def q(self):
        """The query on every full database (pandas Series by database)."""
        import pandas as pd
        return pd.Series(self._q, index=self.databases, name="q")

    @property
    def leave_one_out(self):
        """q_{i,r}: a DataFrame, one row per individual, one column per database."""
        import pandas as pd
        return pd.DataFrame(self._Q, index=self.individuals, columns=self.databases)

    def independence_check(self, *, lag=1, n_resamples=9999, alternative="two-sided",
                           alpha=0.05, seed=0, order=None):
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
        statpriv.empirical._independence."""
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

    def densities(self, x, individual):
        """(p(x), p_i(x)): the estimates with and without ``individual``."""
        i = self.individuals.get_loc(individual)
        return self._estimator.density(x), self._estimator.density(x, self._Q[i])

    # -- delta ---------------------------------------------------------------
    def _delta_values(self, eps):
        """delta_i for every individual at one float eps (cached)."""
        eps = float(eps)
        if eps not in self._cache:
            if self._prepared is None:
                self._prepared = self._estimator.prepare(self._Q)
            if len(self._cache) > 64:
                self._cache.clear()
            self._cache[eps] = self._estimator.deltas_prepared(self._prepared, eps)[0]
        return self._cache[eps]

    def _max_delta(self, eps):
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

    def _vectorised(self, eps, fn):
        arr = _validate.real_array("eps", eps, high=MAX_EPS)
        out = np.array([fn(e) for e in arr.ravel()], dtype=np.float64).reshape(arr.shape)
        return float(out) if arr.ndim == 0 else out

    def delta(self, eps):
        """delta(eps) = max_i delta_i(eps) (eps a number or an array)."""
        return self._vectorised(eps, self._max_delta)

    def deltas(self, eps):
        """delta_i(eps) for every individual: a pandas Series indexed by individual."""
        import pandas as pd
        e = _validate.real("eps", eps, high=MAX_EPS)
        return pd.Series(self._delta_values(e), index=self.individuals, name="delta")

    def total_risk(self, eps):
        """delta*(eps) = 1 - prod_i (1 - delta_i(eps)), summed in log space."""
        def risk(e):
            d = self._delta_values(e)
            if np.any(d >= 1.0):
                return 1.0
            # 0.0 - x, not -x: no risk at all is +0.0 (-expm1(0.0) would be -0.0)
            return float(0.0 - np.expm1(np.sum(np.log1p(-d))))
        return self._vectorised(eps, risk)

    def most_exposed(self, k=10, eps=1.0):
        """The k individuals with the largest delta_i(eps), largest first."""
        k = _validate.count("k", k, low=1)
        return self.deltas(eps).sort_values(ascending=False, kind="stable").head(k)

    def epsilon(self, delta):
        """The smallest eps >= 0 (to 1e-12 relative, rounded up) with
        delta(eps) <= delta; inf if delta(eps) stays above it up to eps = 512
        (e.g. an ECDF bin that only one of the two sets occupies)."""
        arr = _validate.real_array("delta", delta, low=0.0, high=1.0)
        out = np.array([self._epsilon(float(d)) for d in arr.ravel()]).reshape(arr.shape)
        return float(out) if arr.ndim == 0 else out

    def _epsilon(self, target):
        est = self._estimator
        d0 = self._delta_values(0.0)
        if d0.max(initial=0.0) <= target:
            return 0.0
        # delta_i is non-increasing in eps: an individual at or below the target
        # at some eps stays there for every larger eps, so it leaves the search
        rows = est.prepare(self._Q[np.flatnonzero(d0 > target)])

        def above(e):
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
    def hausdorff(self):
        """d_H(q, q_i) for every individual (pandas Series)."""
        import pandas as pd
        if self._hausdorff is None:
            self._hausdorff = hausdorff(self._q, self._Q)
        return pd.Series(self._hausdorff, index=self.individuals, name="hausdorff")

    def matching_distance(self):
        """d_inf(q, q_i) = max_j |q_(j) - q_i(j)| (sorted values matched in
        order: the bottleneck distance of two equal-size multisets) per individual."""
        import pandas as pd
        if self._matching is None:
            self._matching = matching_distance(self._q, self._Q)
        return pd.Series(self._matching, index=self.individuals, name="matching")

    def noise_scale(self, eps, distance="matching"):
        """lambda such that the Laplace KDEs of scale lambda of q and of every q_i
        differ by a factor <= e^eps everywhere.

        distance="matching" (default): lambda = max_i d_inf(q, q_i) / eps, which
        guarantees it: with q_(j) matched to q_i(j), every kernel pair has ratio
        within e^(+-|q_(j) - q_i(j)|/lambda), hence so do the two averages.
        distance="hausdorff": lambda = max_i d_H(q, q_i) / eps, Prop. 1 of
        Burchard, Daoud & Dotterrer as published -- NOT a guarantee: d_H ignores
        multiplicities (q = {0, 2, 2.001}, q_i = {0, 0.001, 2}, eps = 0.3 breaks
        it; docs/empirical.md).  d_H <= d_inf always."""
        e = _validate.real("eps", eps, low=0.0, low_open=True, high=MAX_EPS)
        _validate.choice("distance", distance, ("matching", "hausdorff"))
        d = self.matching_distance() if distance == "matching" else self.hausdorff()
        return float(d.max()) / e

    def noise_sampler(self, eps, kernel="laplace", seed=None, max_negative_mass=0.05,
                      distance="matching"):
        """A callable drawing the noise h with k * h = Laplace(lambda) density,
        k the curator's kernel (the fitted bandwidth when the estimator uses that
        kernel, else the bandwidth rule refitted for it); see statpriv.empirical._noise."""
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
            return _noise.laplace_kernel_noise(s, lam, eps, seed)
        return _noise.gaussian_kernel_noise(s, lam, eps, seed, max_negative_mass)

    # -- adversary knowledge (Def. 4) ---------------------------------------------
    def conditioned(self, on, bins=4):
        """delta per bucket of a statistic g the attacker knows (Def. 4).

        on: a pandas Series of g(X^r) indexed by database, or a query ("mean",
        "count", ..., a callable) evaluated on each full database.  bins: a
        number of equal-count buckets (quantiles of g) or a sequence of edges.
        Each bucket's databases form their own EmpiricalPrivacy (estimator
        refitted on them); buckets need at least two databases."""
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

    def _known_statistic(self, on):
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

    def __repr__(self):
        return (f"<EmpiricalPrivacy query={self._query.name!r}, {len(self.databases)} "
                f"databases, {len(self.individuals)} individuals, "
                f"estimator={self._estimator.kind!r}, bandwidth={self.bandwidth:.6g}>")


class Conditioned:
    """delta per bucket of the attacker's known statistic (Def. 4)."""

    def __init__(self, buckets):
        self.buckets = buckets

    def delta(self, eps):
        """pandas Series: max_i delta_i(eps) within each bucket."""
        import pandas as pd
        return pd.Series({k: v.delta(eps) for k, v in self.buckets.items()}, name="delta")

    def total_risk(self, eps):
        """pandas Series: delta* within each bucket."""
        import pandas as pd
        return pd.Series({k: v.total_risk(eps) for k, v in self.buckets.items()},
                         name="total_risk")

    def deltas(self, eps):
        """DataFrame: delta_i(eps), one column per bucket."""
        import pandas as pd
        return pd.DataFrame({k: v.deltas(eps) for k, v in self.buckets.items()})
