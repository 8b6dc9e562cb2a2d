"""Empirical privacy on a ``dask.dataframe.DataFrame`` (the extra ``dask``).

``EmpiricalPrivacy(ddf, query, ...)`` with a dask DataFrame returns a
``DaskEmpiricalPrivacy`` (a subclass: same methods, same results).
Individuals are independent units of work, so the work splits in passes over
the data with Dask's own APIs, on whatever cluster the user runs:

1. once, in the constructor: the per-database totals ``S_r`` (sum of the
   values) and ``N_r`` (number of records) by
   ``groupby(database).agg(["sum", "count"])`` (a tree reduction; R rows come
   back to the client), with the NaN checks in the same pass.  The query on
   every full database, q, follows from them (sum, count, mean) and the
   density estimator is fitted on q on the client, exactly as in memory;
2. per call (``deltas(eps)``, ``hausdorff()``, ``epsilon(d)``, ...): the
   records partitioned by individual -- as given when the individual is the
   index with known divisions, else ``shuffle(on=individual)``, which puts
   every record of an individual in one partition -- then
   ``map_partitions``.  Per partition, in batches of ``_ROWS`` individuals,
   the leave-one-out rows

       sum: q_{i,r} = S_r - S_{r,i}    count: N_r - C_{r,i}
       mean: q_{i,r} = (S_r - S_{r,i}) / (N_r - C_{r,i})   (= q_r where i is absent)

   come from the in-memory building block ``_loo.leave_one_out`` with the
   global totals, and the per-individual results from an in-memory
   ``EmpiricalPrivacy`` of that batch (``_from_arrays`` with the fitted
   bandwidth: the same estimator, the same C kernels).  Only per-individual
   numbers (or one number per partition) come back.

Median and quantiles (``"median"``, ``"quantile:a"``) are exact order
statistics, never dask's approximate quantiles.  The records are shuffled by
database (``shuffle(on=database)``: every database whole in one partition,
so ONE DATABASE MUST FIT IN A WORKER'S MEMORY; many databases need not) and
each partition runs the in-memory building blocks on its databases:
``_loo.database_statistics`` sorts each database and gives q_r (numpy's
linear quantile), ``_loo.pair_leave_one_out`` gives q_{i,r} of every
(database, individual) pair present by the sorted-array update of
docs/empirical.md.  q comes back to the client (constructor); the passes
shuffle the (individual, database, q_{i,r}) rows by individual and fill each
batch's matrix with q_r where the individual is absent.  Each value depends
only on its own database's sorted values and the pair's records, so q,
q_{i,r} and delta_i are bit for bit those of the in-memory path.

Vector queries (statpriv.empirical._vector): with mean, sum and count
components only, the totals of every value column in one pass and the rows
per batch column by column; with a median or quantile:a component, the
per-database path above for every component at once (_database_quantiles
and _database_pairs take a list of (query, column) components), the rows
(individual, database, q_{i,r,1..d}) filling each batch's (n, R, d) array.

The results equal the in-memory path's up to the order of floating-point
summation of the totals (1e-16 relative in q; exact for integer values).
A worker holds one partition plus one batch's leave-one-out matrix
(``_ROWS`` x R doubles).  Per-individual results are cached per eps on the
client (8 bytes per individual).  Persist the frame (``ddf.persist()``) to
avoid re-reading the data on every pass.
"""
import functools
from typing import TYPE_CHECKING, Any, Tuple

import numpy as np

__all__ = ["DaskEmpiricalPrivacy", "is_dask_frame"]

# Individuals per batch inside a partition: bounds the dense leave-one-out
# matrix (_ROWS x R doubles) a worker holds at once.
_ROWS = 4096

DECOMPOSABLE = ("mean", "sum", "count")
# median and quantile:a: exact, per database in memory (see _database_pairs)
ORDER_STATISTICS = ("quantile",)


def is_dask_frame(data: Any) -> Any:
    """True for a dask DataFrame (checked by type: dask is not imported)."""
    module = type(data).__module__ or ""
    return module.split(".")[0] in ("dask", "dask_expr") and hasattr(data, "map_partitions")


def _column_names(data: Any, individual: Any, database: Any, value: Any) -> None:
    """Check the three names against the frame's metadata (no compute)."""
    from statpriv._validate import ParameterTypeError
    for role, name in (("individual", individual), ("database", database), ("value", value)):
        if not isinstance(name, str) and not np.isscalar(name):
            raise ParameterTypeError(f"{role} must be a column name, got {type(name).__name__}")
        here = name in data.columns or (role == "individual" and data.index.name == name)
        if not here:
            raise ValueError(f"{role}={name!r} is not a column of data; its columns are "
                             f"{list(data.columns)}")
    kind = data[value].dtype.kind
    if kind not in "iuf":
        raise ValueError(f"value column {value!r} must be numeric, got dtype "
                         f"{data[value].dtype}")


def _cell_sums(part: Any, database: Any, value: Any) -> Any:
    """One partition's exact per-(database, binary exponent) sums of the
    split values (statpriv.empirical._exactsum): a small frame with columns
    database, exp, hi, lo, n.  Records with a missing database or a
    non-finite value are left out (the constructor counts and rejects them)."""
    import pandas as pd
    from statpriv.empirical import _exactsum
    codes, labels = pd.factorize(part[database])
    values = part[value].to_numpy(dtype=np.float64, na_value=np.nan)
    keep = (codes >= 0) & np.isfinite(values)
    if not keep.all():
        codes, values = codes[keep], values[keep]
    if len(values) == 0:
        return pd.DataFrame({database: labels[:0], "exp": np.empty(0, np.int64),
                             "hi": np.empty(0), "lo": np.empty(0), "n": np.empty(0)})
    e, hi, lo = _exactsum.split(values)
    e0 = int(e.min())
    width = int(e.max()) - e0 + 1
    key = codes.astype(np.int64) * width + (e - e0)
    size = len(labels) * width
    n = np.bincount(key, minlength=size)
    cells = np.flatnonzero(n)
    hs = np.bincount(key, weights=hi, minlength=size)[cells]
    ls = np.bincount(key, weights=lo, minlength=size)[cells]
    return pd.DataFrame({database: labels[cells // width], "exp": cells % width + e0,
                         "hi": hs, "lo": ls, "n": n[cells].astype(np.float64)})


def _local_statistics(part: Any, individual: Any, database: Any, components: Any) -> Any:
    """A partition that holds whole databases (after ``shuffle(on=database)``):
    per component (query, value column), the in-memory per-database
    statistics (_loo.database_statistics, every database's values sorted) and
    the column's values; the records as codes local to the partition."""
    import pandas as pd
    from statpriv.empirical import _loo
    db_codes, db_labels = pd.factorize(part[database], sort=True)
    ind_codes, ind_labels = pd.factorize(part[individual], sort=True)
    db_codes, ind_codes = db_codes.astype(np.int64), ind_codes.astype(np.int64)
    stats, values = [], []
    for query, column in components:
        column_values = part[column].to_numpy(dtype=np.float64)
        stats.append(_loo.database_statistics(db_codes, column_values, len(db_labels), query))
        values.append(column_values)
    return stats, values, ind_codes, db_codes, ind_labels, db_labels


def _component_names(count: int, taken: Any) -> Any:
    """Names of the per-component columns of the per-database frames (q_r,
    q_{i,r}): "q0", "q1", ..., prefixed with "_" until none is in ``taken``."""
    names = [f"q{k}" for k in range(count)]
    while set(names) & set(taken):
        names = ["_" + name for name in names]
    return names


def _database_quantiles(part: Any, individual: Any, database: Any, components: Any,
                        names: Any) -> Any:
    """q_r of every component (query, value column) on every database of a
    partition holding whole databases (column ``names[k]`` for component k),
    and each database's number of distinct individuals (with one, a quantile
    or mean without that individual is undefined)."""
    import pandas as pd
    if len(part) == 0:
        return pd.DataFrame({**{name: np.empty(0) for name in names},
                             "individuals": np.empty(0, np.int64)},
                            index=pd.Index(part[database].iloc[:0], name=database))
    stats, _, ind_codes, db_codes, ind_labels, db_labels = _local_statistics(
        part, individual, database, components)
    pairs = np.unique(db_codes * len(ind_labels) + ind_codes)
    count = np.bincount(pairs // len(ind_labels), minlength=len(db_labels))
    return pd.DataFrame({**{name: st.q for name, st in zip(names, stats)},
                         "individuals": count}, index=pd.Index(db_labels, name=database))


def _database_pairs(part: Any, individual: Any, database: Any, components: Any,
                    names: Any) -> Any:
    """q_{i,r} of every component on every (database, individual) pair of a
    partition holding whole databases: the in-memory update
    (_loo.pair_leave_one_out) on each database's statistics (for quantiles
    its sorted values).  A frame with the columns individual, database and
    ``names[k]`` (= q_{i,r} of component k), one row per pair."""
    import pandas as pd
    from statpriv.empirical import _loo
    if len(part) == 0:
        return pd.DataFrame({individual: part[individual].iloc[:0].to_numpy(),
                             database: part[database].iloc[:0].to_numpy(),
                             **{name: np.empty(0) for name in names}})
    stats, values, ind_codes, db_codes, ind_labels, db_labels = _local_statistics(
        part, individual, database, components)
    loo = {}
    for name, st, column_values in zip(names, stats, values):
        # the pairs (np.unique of their codes) come in the same order for every component
        g_ind, g_db, loo[name] = _loo.pair_leave_one_out(
            st, ind_codes, db_codes, column_values, len(ind_labels), individuals=ind_labels,
            databases=db_labels)
    return pd.DataFrame({individual: ind_labels.take(g_ind).to_numpy(),
                         database: db_labels.take(g_db).to_numpy(), **loo})


def _totals(cells: Any, database: Any) -> Any:
    """Per-database correctly rounded sums and counts from the (database,
    exponent) cells: a DataFrame with columns sum, count, sorted by database
    (the in-memory path sums with the same rounding)."""
    import pandas as pd
    from statpriv.empirical import _exactsum
    cells = cells.reset_index()
    if len(cells) == 0:
        return pd.DataFrame({"sum": [], "count": []})
    if (cells["n"] >= _exactsum.MAX_CELL_TERMS).any():
        raise ValueError(f"a database holds {_exactsum.MAX_CELL_TERMS} or more values of "
                         f"one binary exponent: beyond the exact per-database sums")
    codes, labels = pd.factorize(cells[database], sort=True)
    total = _exactsum.combine(codes, cells["exp"].to_numpy(), cells["hi"].to_numpy(),
                              cells["lo"].to_numpy(), len(labels))
    count = np.bincount(codes, weights=cells["n"].to_numpy(), minlength=len(labels))
    return pd.DataFrame({"sum": total, "count": count}, index=pd.Index(labels, name=database))


class _Spec:
    """The small, picklable state every partition needs: column names, the
    global totals (DatabaseStats), the database labels, the estimator kind
    and fitted bandwidth, and the selected database columns (buckets)."""

    def __init__(self, individual: Any, database: Any, value: Any, databases: Any, stats: Any,
                 kind: Any, scale: Any, cols: Any, pairs: bool = False) -> None:
        self.individual, self.database, self.value = individual, database, value
        self.databases = databases          # numpy array of sorted labels (all databases)
        self.stats = stats
        self.kind, self.scale, self.cols = kind, scale, cols
        # True: the records are already (individual, database, q_{i,r}) pairs
        self.pairs = pairs
        # a vector query: per component (its DatabaseStats, its column of value)
        self.components: Any = None
        self.tol: Any = None
        self.q: Any = stats.q if stats is not None else None
        self.query: Any = stats.query if stats is not None else None

    def rows(self, ind_codes: Any, db_codes: Any, values: Any, n: int, labels: Any) -> Any:
        """Q[i, r] = q_{i,r} of a batch of n individuals (local codes 0..n-1);
        Q[i, r, k] for a vector query."""
        from statpriv.empirical import _loo
        if self.components is not None:
            Q = np.stack([_loo.leave_one_out(st, ind_codes, db_codes, values[:, col], n,
                                             individuals=labels, databases=self.databases)
                          for st, col in self.components], axis=-1)
            return Q[:, :, 0] if Q.shape[2] == 1 else Q
        if self.pairs:
            Q = np.tile(self.q, (n,) + (1,) * self.q.ndim)
            Q[ind_codes, db_codes] = values
            return Q
        return _loo.leave_one_out(self.stats, ind_codes, db_codes, values, n,
                                  individuals=labels, databases=self.databases)

    def batch(self, labels: Any, Q: Any) -> Any:
        """An in-memory EmpiricalPrivacy of one batch (same estimator as the client's)."""
        from statpriv.empirical import EmpiricalPrivacy
        cols = self.cols
        q = self.q if cols is None else self.q[cols]
        dbs = self.databases if cols is None else self.databases[cols]
        bandwidth = "cv" if self.kind == "ecdf" else self.scale
        batch = EmpiricalPrivacy._from_arrays(q, Q, labels, dbs, self.query, self.kind,
                                              bandwidth)
        if self.tol is not None:            # a vector query: the client's tolerance
            batch.estimator.tol = self.tol
        return batch


def _partition(part: Any, spec: Any, func: Any, meta: Any) -> Any:
    """One partition: its individuals' leave-one-out rows, _ROWS at a time,
    and ``func(spec, labels, Q)`` (a DataFrame indexed by label) on each batch."""
    import pandas as pd
    if len(part) == 0:
        return meta.iloc[:0]
    ids = part[spec.individual] if spec.individual in part.columns else part.index.to_series()
    codes, labels = pd.factorize(ids, sort=True)
    db_labels = part[spec.database].to_numpy()
    db_codes = np.searchsorted(spec.databases, db_labels)
    values = part[spec.value].to_numpy(dtype=np.float64)     # (N, k) for a list of columns
    # records sorted by individual (often already so: skip the sort then)
    order = np.arange(len(codes)) if bool(np.all(codes[1:] >= codes[:-1])) else \
        np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(0, len(labels), _ROWS).tolist()
                             + [len(labels)])
    outs = []
    for k, lo in enumerate(range(0, len(labels), _ROWS)):
        hi = min(len(labels), lo + _ROWS)
        sel = order[bounds[k]:bounds[k + 1]]
        batch_labels = pd.Index(labels[lo:hi], name=spec.individual)
        Q = spec.rows(codes[sel] - lo, db_codes[sel], values[sel], hi - lo, batch_labels)
        if spec.cols is not None:
            Q = np.ascontiguousarray(Q[:, spec.cols])
        outs.append(func(spec, batch_labels, Q))
    return pd.concat(outs) if len(outs) > 1 else outs[0]


# The per-batch functions (module level: picklable for process workers).
def _distance_columns(batch: Any) -> Any:
    """d_H(q, q_i) and the matching distance max_j |q_(j) - q_i(j)| per row,
    from the rows the delta kernel sorted (as the in-memory functions compute
    them from sorted copies)."""
    from statpriv.empirical import _kde
    a, rows = batch.estimator._a, batch._prepared[0]
    return {"hausdorff": _kde.hausdorff(a, rows),
            "matching": np.max(np.abs(rows - a), axis=1, initial=0.0)}


def _deltas(spec: Any, labels: Any, Q: Any, eps: Any) -> Any:
    """delta_i(eps), with the two distances (cheap) for noise_scale."""
    import pandas as pd
    batch = spec.batch(labels, Q)
    delta = batch._delta_values(eps)
    if Q.ndim == 3:                     # a vector query: no distances
        return pd.DataFrame({"delta": delta}, index=labels)
    return pd.DataFrame({"delta": delta, **_distance_columns(batch)}, index=labels)


def _present(spec: Any, labels: Any, Q: Any) -> Any:
    """The batch's individuals (a pass that only finds them)."""
    import pandas as pd
    return pd.DataFrame({"present": np.ones(len(labels))}, index=labels)


def _distances(spec: Any, labels: Any, Q: Any) -> Any:
    import pandas as pd
    batch = spec.batch(labels, Q)
    batch._prepared = batch.estimator.prepare(Q)
    return pd.DataFrame(_distance_columns(batch), index=labels)


def _epsilon(spec: Any, labels: Any, Q: Any, target: Any) -> Any:
    import pandas as pd
    return pd.DataFrame({"eps": [spec.batch(labels, Q)._epsilon(target)]}, index=labels[:1])


def _rows(spec: Any, labels: Any, Q: Any) -> Any:
    import pandas as pd
    cols = spec.databases if spec.cols is None else spec.databases[spec.cols]
    if Q.ndim == 3:
        from statpriv.empirical import vector_columns
        return pd.DataFrame(Q.reshape(len(Q), -1), index=labels,
                            columns=vector_columns(pd.Index(cols, name=spec.database),
                                                   Q.shape[2]))
    return pd.DataFrame(Q, index=labels, columns=pd.Index(cols, name=spec.database))


def _lazy_base() -> Any:
    from statpriv.empirical import EmpiricalPrivacy
    return EmpiricalPrivacy


if TYPE_CHECKING:
    from statpriv.empirical import EmpiricalPrivacy as _Base
else:
    _Base = _lazy_base()


class DaskEmpiricalPrivacy(_Base):
    """EmpiricalPrivacy of a dask DataFrame: every per-individual quantity is
    computed partition by partition on the active Dask scheduler (see the
    module docstring).  Queries: "mean", "sum", "count" (leave-one-out from
    per-database totals), "median" and "quantile:a" (exact, each database
    sorted in memory on one worker), and vector queries of up to three of
    them.  ``progress=True`` shows a progress bar per pass
    (distributed's ``progress`` when a distributed Client is active, else
    ``dask.diagnostics.ProgressBar``)."""

    def __init__(self, data: Any, query: Any, *, individual: Any = "id", database: Any = "db",
                 value: Any = "value", estimator: Any = "kde-laplace", bandwidth: Any = "cv",
                 workers: Any = None, progress: Any = None) -> None:
        import pandas as pd
        from statpriv import _validate
        from statpriv.empirical import _loo
        from statpriv.empirical import _vector
        from statpriv.empirical._estimators import ESTIMATORS

        _validate.choice("estimator", estimator, ESTIMATORS)
        if _vector.is_vector(query, value):
            if workers is not None:
                raise ValueError("workers applies to callable queries in memory; on a dask "
                                 "DataFrame the Dask scheduler sets the parallelism")
            self._progress = progress
            self._init_vector(data, query, value, individual, database, estimator, bandwidth)
            return
        parsed = _loo.parse_query(query)
        if parsed.kind not in DECOMPOSABLE + ORDER_STATISTICS:
            raise ValueError(f"query {parsed.name!r} is not available on a dask DataFrame: "
                             f"the scale-out path takes {', '.join(DECOMPOSABLE)}, 'median' "
                             f"and 'quantile:a'; compute the frame (data.compute()) for a "
                             f"callable query")
        if workers is not None:
            raise ValueError("workers applies to callable queries in memory; on a dask "
                             "DataFrame the Dask scheduler sets the parallelism")
        _column_names(data, individual, database, value)
        frame = data if individual in data.columns else data.reset_index()
        cells = frame.map_partitions(_cell_sums, database, value,
                                     meta=_cell_sums(frame._meta, database, value))
        cells = cells.groupby([database, "exp"])[["hi", "lo", "n"]].sum()
        checks: Tuple[Any, ...] = (frame[value].isna().sum(), np.isinf(frame[value]).sum(),
                  frame[individual].isna().sum(), frame[database].isna().sum())
        self._progress = progress
        self._value = value
        order_statistic = parsed.kind in ORDER_STATISTICS
        if order_statistic:
            # whole databases per partition: each one's exact quantile in memory
            per_database, pairs, names = self._order_statistic_frames(
                frame, individual, database, [(parsed, value)])
            checks += (per_database,)
        cells, *counts = self._compute(cells, *checks)
        nan_values, inf_values, nan_ids, nan_dbs = (int(c) for c in counts[:4])
        if nan_values or inf_values:
            raise ValueError(f"value column {value!r} has {nan_values + inf_values} NaN or "
                             f"infinite entries; drop or impute them first")
        for bad, role, name in ((nan_ids, "individual", individual),
                                (nan_dbs, "database", database)):
            if bad:
                raise ValueError(f"{role} column {name!r} has missing labels ({bad} rows)")
        totals = _totals(cells, database)
        if len(totals) == 0:
            raise ValueError("data is empty: it needs records from at least two databases")
        if len(totals) < 2:
            raise ValueError(f"data has one database only ({totals.index[0]!r} in column "
                             f"{database!r}): empirical privacy compares the query across "
                             f"at least two databases")
        if order_statistic:
            per_database = self._defined_everywhere(counts[4], totals.index, [("query", parsed)])
            stats = _loo.DatabaseStats(parsed, totals["sum"].to_numpy(),
                                       totals["count"].to_numpy(),
                                       per_database[names[0]].to_numpy(dtype=np.float64))
        else:
            stats = _loo.DatabaseStats.from_sums(parsed, totals["sum"].to_numpy(),
                                                 totals["count"].to_numpy())
        # the in-memory set-up with no individuals (they come with the first pass)
        databases = pd.Index(totals.index, name=database)
        self._individuals = None
        self._setup(stats.q, np.empty((0, len(databases))), pd.Index([]), databases, parsed,
                    estimator, bandwidth)
        self._Q = None           # every method reading it is overridden below
        self._encoded = None
        # the per-individual passes read (individual, database, q_{i,r}) rows
        # for an order statistic, the records otherwise
        self._frame = pairs if order_statistic else self._by_individual(data, individual)
        self._spec = _Spec(individual, database, names[0] if order_statistic else value,
                           totals.index.to_numpy(), stats, estimator, self._estimator.scale,
                           None, pairs=order_statistic)
        self._index_dtype = frame._meta[individual].dtype
        self._records = frame        # the records, the individual as a column

    def _init_vector(self, data: Any, query: Any, value: Any, individual: Any, database: Any,
                     estimator: Any, bandwidth: Any) -> None:
        """A vector query.  The per-database totals of every value column in
        one pass (the checks, the databases; q of "mean", "sum" and "count").
        With only those components the leave-one-out rows come per batch as
        in the scalar case, column by column.  With a "median" or
        "quantile:a" component, every component's q_r and q_{i,r} come from
        the exact per-database path of the scalar order statistics (whole
        databases per partition), the mean, sum and count components from
        the same databases' exact sums."""
        import pandas as pd
        from statpriv.empirical import _loo, _vector
        parsed, columns, func = _vector.parse_components(query, value)
        if func is not None:
            raise ValueError("query: a callable vector query is not available on a dask "
                             "DataFrame; compute the frame (data.compute()) for it")
        # (parse_components admits the names of _loo.parse_query only: every one
        # of them is a decomposable query or an order statistic)
        components = list(zip(parsed, columns))
        order_statistic = any(p.kind in ORDER_STATISTICS for p in parsed)
        distinct = list(dict.fromkeys(columns))
        for col in distinct:
            _column_names(data, individual, database, col)
        frame = data if individual in data.columns else data.reset_index()
        lazy: Tuple[Any, ...] = ()
        for col in distinct:
            cells = frame.map_partitions(_cell_sums, database, col,
                                         meta=_cell_sums(frame._meta, database, col))
            lazy += (cells.groupby([database, "exp"])[["hi", "lo", "n"]].sum(),
                     frame[col].isna().sum() + np.isinf(frame[col]).sum())
        lazy += (frame[individual].isna().sum(), frame[database].isna().sum())
        if order_statistic:
            per_database, pairs, names = self._order_statistic_frames(
                frame, individual, database, components)
            lazy += (per_database,)
        got = self._compute(*lazy)
        totals = {}
        for j, col in enumerate(distinct):
            if int(got[2 * j + 1]):
                raise ValueError(f"value column {col!r} has {int(got[2 * j + 1])} NaN or "
                                 f"infinite entries; drop or impute them first")
            totals[col] = _totals(got[2 * j], database)
        checks = 2 * len(distinct)
        for bad, role, name in ((int(got[checks]), "individual", individual),
                                (int(got[checks + 1]), "database", database)):
            if bad:
                raise ValueError(f"{role} column {name!r} has missing labels ({bad} rows)")
        first = totals[distinct[0]]
        if len(first) < 2:
            raise ValueError("data needs records from at least two databases")
        if order_statistic:
            per_database = self._defined_everywhere(
                got[-1], first.index, [(f"query[{k}]", p) for k, p in enumerate(parsed)])
            q = per_database[names].to_numpy(dtype=np.float64)
        else:
            stats = [_loo.DatabaseStats.from_sums(p, totals[c]["sum"].to_numpy(),
                                                  totals[c]["count"].to_numpy())
                     for p, c in components]
            q = np.stack([st.q for st in stats], axis=-1)
        if not np.isfinite(q).all():
            raise ValueError("query is not finite on some database (a mean of no records)")
        databases = pd.Index(first.index, name=database)
        vector_query = _loo.Query("vector", name=_vector.vector_name(parsed, columns))
        self._individuals = None
        self._setup(q, np.empty((0,) + q.shape), pd.Index([]), databases, vector_query,
                    estimator, bandwidth)
        self._Q = None
        self._encoded = None
        if order_statistic:
            # (individual, database, q_{i,r} per component) rows; one component: a
            # scalar column (the query runs as a scalar one)
            self._frame = pairs
            self._spec = _Spec(individual, database, names if len(names) > 1 else names[0],
                               first.index.to_numpy(), None, estimator,
                               self._estimator.scale, None, pairs=True)
        else:
            self._frame = self._by_individual(data, individual)
            self._spec = _Spec(individual, database, distinct, first.index.to_numpy(), None,
                               estimator, self._estimator.scale, None)
            self._spec.components = [(st, distinct.index(c)) for st, c in zip(stats, columns)]
        self._spec.q, self._spec.query = self._q, vector_query
        self._index_dtype = frame._meta[individual].dtype
        self._records = frame
        self._value = distinct

    @staticmethod
    def _by_individual(data: Any, individual: Any) -> Any:
        """The records with every individual's in one partition."""
        if data.index.name == individual and data.known_divisions:
            return data
        if individual not in data.columns:        # the index, divisions unknown
            data = data.reset_index()
        return data.shuffle(on=individual)

    def _order_statistic_frames(self, frame: Any, individual: Any, database: Any,
                                components: Any) -> Any:
        """The lazy frames of the exact per-database path, for components
        (query, value column): (q_r per database and component with each
        database's number of individuals, the (individual, database, q_{i,r})
        rows partitioned by individual, the names of the components' columns).
        Both start from the records shuffled by database (whole databases per
        partition)."""
        names = _component_names(len(components), (individual, database))
        columns = list(dict.fromkeys(column for _, column in components))
        by_database = frame[[individual, database, *columns]].shuffle(on=database)
        args = (individual, database, components, names)
        per_database = by_database.map_partitions(
            _database_quantiles, *args, meta=_database_quantiles(frame._meta, *args))
        pairs = by_database.map_partitions(_database_pairs, *args,
                                           meta=_database_pairs(frame._meta, *args))
        return per_database, pairs.shuffle(on=individual), names

    @staticmethod
    def _defined_everywhere(per_database: Any, databases: Any, queries: Any) -> Any:
        """per_database (from _order_statistic_frames) in the order of
        ``databases``, after checking that no (label, query) of kind quantile
        or mean needs a database without its only individual."""
        per_database = per_database.reindex(databases)
        sole = per_database.index[per_database["individuals"].to_numpy() == 1]
        for label, query in queries:
            if len(sole) and query.kind in ORDER_STATISTICS + ("mean",):
                raise ValueError(f"{label} {query.name!r} is undefined without the only "
                                 f"individual of database(s) {sole[:5].tolist()}: it holds "
                                 f"every record there; drop such databases or use a query "
                                 f"defined on empty data ('sum', 'count')")
        return per_database

    def _compute(self, *collections: Any) -> Any:
        """dask.compute with the progress bar the user asked for."""
        import dask
        if not self._progress:
            return dask.compute(*collections)
        try:
            from distributed import get_client, progress
            client = get_client()
        except (ImportError, ValueError):
            client = None
        if client is not None:
            futures = client.compute(list(collections))
            progress(futures, notebook=False)
            return tuple(f.result() for f in futures)
        from dask.diagnostics import ProgressBar
        with ProgressBar():
            return dask.compute(*collections)

    def _pass(self, func: Any, columns: Any) -> Any:
        """One map_partitions pass: a pandas DataFrame indexed by individual
        (sorted labels, as the in-memory path orders them)."""
        import pandas as pd
        self._spec.tol = getattr(self._estimator, "tol", None)
        meta = pd.DataFrame({c: np.empty(0) for c in columns},
                            index=pd.Index([], dtype=self._index_dtype,
                                           name=self._spec.individual))
        lazy = self._frame.map_partitions(_partition, self._spec, func, meta, meta=meta,
                                          enforce_metadata=False, clear_divisions=True)
        (out,) = self._compute(lazy)
        return out.sort_index()

    def _per_individual(self, func: Any, columns: Any) -> Any:
        out = self._pass(func, columns)
        if self._individuals is None:
            self._individuals = out.index
        return [out[c].reindex(self._individuals).to_numpy() for c in columns]

    @property
    def individuals(self) -> Any:
        """The individuals (sorted labels); found by a pass over the data the
        first time they are needed."""
        if self._individuals is None:
            self._distance_values()
        return self._individuals

    @individuals.setter
    def individuals(self, value: Any) -> None:
        # EmpiricalPrivacy._setup's placeholder (no individuals): keep "not yet known"
        self._individuals = value if len(value) else None

    # -- the per-individual passes ------------------------------------------
    def _delta_values(self, eps: Any) -> Any:
        eps = float(eps)
        if eps not in self._cache:
            if len(self._cache) > 64:
                self._cache.clear()
            if self._q.ndim == 2:
                self._cache[eps], = self._per_individual(functools.partial(_deltas, eps=eps),
                                                         ["delta"])
                return self._cache[eps]
            self._cache[eps], hausdorff, matching = self._per_individual(
                functools.partial(_deltas, eps=eps), ["delta", "hausdorff", "matching"])
            if self._hausdorff is None:
                self._hausdorff, self._matching = hausdorff, matching
        return self._cache[eps]

    def _distance_values(self) -> None:
        if self._q.ndim == 2:             # a vector query: find the individuals only
            if self._individuals is None:
                self._per_individual(_present, ["present"])
            return
        if self._hausdorff is None:
            self._hausdorff, self._matching = self._per_individual(
                _distances, ["hausdorff", "matching"])

    def hausdorff(self) -> Any:
        """d_H(q, q_i) for every individual (pandas Series)."""
        import pandas as pd
        self._scalar_only("hausdorff")
        self._distance_values()
        return pd.Series(self._hausdorff, index=self._individuals, name="hausdorff")

    def matching_distance(self) -> Any:
        """max_j |q_(j) - q_i(j)| for every individual (pandas Series)."""
        import pandas as pd
        self._scalar_only("matching_distance")
        self._distance_values()
        return pd.Series(self._matching, index=self._individuals, name="matching")

    def _epsilon(self, target: Any) -> Any:
        # delta = max_i delta_i: the in-memory search run on each batch, then
        # the largest result (the search's result is monotone in the
        # threshold it locates, so this is the search on all individuals)
        out = self._pass(functools.partial(_epsilon, target=target), ["eps"])
        return float(out["eps"].max()) if len(out) else 0.0

    @property
    def leave_one_out(self) -> Any:
        """q_{i,r}: a DataFrame, one row per individual, one column per database
        (computed on the cluster and collected: individuals x R doubles)."""
        import pandas as pd
        cols = self._spec.databases if self._spec.cols is None else \
            self._spec.databases[self._spec.cols]
        if self._q.ndim == 2:
            from statpriv.empirical import vector_columns
            out = self._pass(_rows, list(vector_columns(pd.Index(cols), self._q.shape[1])))
            out.columns = vector_columns(pd.Index(cols, name=self._spec.database),
                                         self._q.shape[1])
            return out
        out = self._pass(_rows, list(cols))
        out.columns = pd.Index(cols, name=self._spec.database)
        return out

    def densities(self, x: Any, individual: Any) -> Any:
        """(p(x), p_i(x)): the estimates with and without ``individual``."""
        row = self._row(individual)
        return self._estimator.density(x), self._estimator.density(x, row)

    def _row(self, individual: Any) -> Any:
        """q_i of one individual: its records only, filtered on the cluster."""
        spec = self._spec
        col = spec.individual
        frame = self._frame
        if col in frame.columns:
            part = frame[frame[col] == individual]
        else:
            part = frame.loc[[individual]] if frame.known_divisions else \
                frame[frame.index == individual]
        import pandas as pd
        (records,) = self._compute(part)
        if len(records) == 0:
            raise KeyError(individual)
        out = _partition(records, spec, _rows, pd.DataFrame())
        row = out.to_numpy()[0]
        return row.reshape(-1, self._q.shape[1]) if self._q.ndim == 2 else row

    # -- adversary knowledge (Def. 4) ---------------------------------------------
    def conditioned(self, on: Any, bins: Any = 4) -> Any:
        """delta per bucket of a statistic the attacker knows (Def. 4); see
        EmpiricalPrivacy.conditioned.  ``on``: a pandas Series by database,
        "mean" / "sum" / "count" (from the per-database totals) or "median" /
        "quantile:a" (exact, one more pass: each database sorted on a worker)."""
        from statpriv.empirical import Conditioned, EmpiricalPrivacy
        g = self._known_statistic(on)
        # The buckets (and their checks) from the in-memory method, run on a
        # stand-in with one individual absent everywhere; each bucket then
        # becomes a view of the same dask data restricted to its databases,
        # with the estimator the in-memory method fitted on them.
        stand_in = EmpiricalPrivacy._from_arrays(self._q, self._q[None, :], ["-"],
                                                 self.databases, self._query,
                                                 self._estimator.kind, self._bandwidth_rule)
        buckets = stand_in.conditioned(g, bins).buckets
        return Conditioned({label: self._bucket(b) for label, b in buckets.items()})

    def _known_statistic(self, on: Any) -> Any:
        import pandas as pd
        from statpriv.empirical import _loo
        if isinstance(on, str) and self._q.ndim == 2:
            raise ValueError("on must be a pandas Series indexed by database for a vector "
                             "query")
        if isinstance(on, str):
            parsed = _loo.parse_query(on, "on")
            if parsed.kind not in DECOMPOSABLE + ORDER_STATISTICS:
                raise ValueError(f"on={on!r}: on a dask DataFrame the known statistic is a "
                                 f"pandas Series by database or one of "
                                 f"{', '.join(DECOMPOSABLE)}, 'median', 'quantile:a'")
            stats = self._spec.stats
            if parsed == stats.query:
                g = stats.q
            elif parsed.kind in ORDER_STATISTICS:
                spec = self._spec
                lazy, _, names = self._order_statistic_frames(
                    self._records, spec.individual, spec.database, [(parsed, self._value)])
                (per_database,) = self._compute(lazy)
                g = per_database[names[0]].reindex(spec.databases).to_numpy()
            else:
                g = _loo.DatabaseStats.from_sums(parsed, stats.total, stats.count).q
            on = pd.Series(g, index=pd.Index(self._spec.databases))
        return super()._known_statistic(on)

    def _bucket(self, fitted: Any) -> Any:
        """The same data restricted to the databases of an in-memory bucket
        (whose estimator was fitted on those databases' q)."""
        import copy
        pos = np.searchsorted(self._spec.databases, fitted.databases.to_numpy())
        bucket = copy.copy(self)
        bucket.databases = fitted.databases
        bucket._q = fitted._q
        bucket._estimator = fitted.estimator
        bucket._spec = copy.copy(self._spec)
        bucket._spec.cols = pos
        bucket._spec.scale = fitted.estimator.scale
        bucket._cache, bucket._hausdorff, bucket._matching = {}, None, None
        return bucket

    def __repr__(self) -> Any:
        count = "?" if self._individuals is None else len(self._individuals)
        width = ", ".join(f"{w:.6g}" for w in np.atleast_1d(self.bandwidth))
        return (f"<DaskEmpiricalPrivacy query={self._query.name!r}, {len(self.databases)} "
                f"databases, {count} individuals, {self._frame.npartitions} partitions, "
                f"estimator={self._estimator.kind!r}, bandwidth={width}>")
