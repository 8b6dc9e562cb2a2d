"""Query values with and without each individual (Algorithm 1 of Burchard,
Daoud & Dotterrer, "Empirical Differential Privacy"), vectorised.

For databases X^1..X^R and an individual i, q_r = f(X^r) and
q_{i,r} = f(X^r minus every record of i); q_{i,r} = q_r where i is absent.

Built-in queries, per database r with N_r records summing to S_r and the
individual's C_{r,i} records summing to S_{r,i}:

    sum         q_{i,r} = S_r - S_{r,i}
    count       q_{i,r} = N_r - C_{r,i}
    mean        q_{i,r} = (S_r - S_{r,i}) / (N_r - C_{r,i})
    quantile:a  numpy's linear quantile of the M = N_r - C_{r,i} remaining
                values: v_(k) + (h - k)(v_(k+1) - v_(k)), h = (M - 1) a,
                k = floor(h); median = quantile:0.5.  The k-th remaining order
                statistic is v_(t) of the full sorted database, with
                t = k + #{j : p_j - j <= k} for the individual's sorted
                positions p_0 < p_1 < ... (a sorted-array update, no re-sort).

Every formula is evaluated for all (database, individual) pairs at once with
numpy; a callable query runs on each database with each present individual
removed (the generic path: a progress bar, optionally a process pool).
"""
import math
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from statpriv import _progress
from statpriv._validate import ParameterTypeError
from statpriv.empirical._exactsum import group_sums

__all__ = ["Query", "parse_query", "Encoded", "encode", "DatabaseStats",
           "database_statistics", "leave_one_out", "pair_leave_one_out",
           "generic_leave_one_out"]


@dataclass(frozen=True)
class Query:
    """A parsed query: kind in {"sum", "count", "mean", "quantile", "callable"}."""
    kind: str
    level: float = 0.5          # quantile level
    func: object = None         # the callable
    name: str = ""


def parse_query(query: Any, name: Any = "query") -> Any:
    """'mean', 'sum', 'count', 'median', 'quantile:q' (0 <= q <= 1) or a callable
    (``name``: the parameter named in errors)."""
    if callable(query):
        return Query("callable", func=query, name=getattr(query, "__name__", repr(query)))
    if not isinstance(query, str):
        raise ParameterTypeError(f"{name} must be 'mean', 'sum', 'count', 'median', "
                                 f"'quantile:q' or a callable, got {type(query).__name__}")
    if query in ("mean", "sum", "count"):
        return Query(query, name=query)
    if query == "median":
        return Query("quantile", 0.5, name=query)
    if query.startswith("quantile:"):
        text = query.partition(":")[2]
        try:
            level = float(text)
        except ValueError:
            level = math.nan
        if not 0.0 <= level <= 1.0:
            raise ValueError(f"{name} 'quantile:q' needs a level q in [0, 1], got {text!r}")
        return Query("quantile", level, name=query)
    raise ValueError(f"{name} must be 'mean', 'sum', 'count', 'median', 'quantile:q' or a "
                     f"callable, got {query!r}")


@dataclass
class Encoded:
    """Long-format records as integer codes: ind_codes / db_codes index
    ``individuals`` / ``databases`` (pandas Index objects, sorted labels)."""
    ind_codes: np.ndarray
    db_codes: np.ndarray
    values: np.ndarray
    individuals: object
    databases: object


def _column(data: Any, name: Any, role: Any) -> Any:
    if not isinstance(name, str) and not np.isscalar(name):
        raise ParameterTypeError(f"{role} must be a column name, got {type(name).__name__}")
    if name not in data.columns:
        raise ValueError(f"{role}={name!r} is not a column of data; its columns are "
                         f"{list(data.columns)}")
    return data[name]


def encode(data: Any, individual: Any = "id", database: Any = "db", value: Any = "value") -> Any:
    """Validate a long-format pandas DataFrame and encode it (see Encoded)."""
    import pandas as pd

    if not isinstance(data, pd.DataFrame):
        raise ParameterTypeError(f"data must be a pandas (or dask) DataFrame in long format, "
                                 f"got {type(data).__name__}")
    ids = _column(data, individual, "individual")
    dbs = _column(data, database, "database")
    vals = _column(data, value, "value")
    if len(data) == 0:
        raise ValueError("data is empty: it needs records from at least two databases")
    if vals.dtype.kind not in "iuf":
        raise ValueError(f"value column {value!r} must be numeric, got dtype {vals.dtype}")
    values = vals.to_numpy(dtype=np.float64)
    bad = ~np.isfinite(values)
    if bad.any():
        row = data.index[np.flatnonzero(bad)[0]]
        raise ValueError(f"value column {value!r} has {int(bad.sum())} NaN or infinite "
                         f"entries (first at row {row!r}); drop or impute them first")
    for col, role in ((ids, "individual"), (dbs, "database")):
        if col.isna().any():
            raise ValueError(f"{role} column {col.name!r} has missing labels "
                             f"({int(col.isna().sum())} rows)")
    if isinstance(ids.dtype, pd.CategoricalDtype):
        unused = ids.cat.categories[~ids.cat.categories.isin(ids.unique())]
        if len(unused):
            raise ValueError(f"individual(s) {list(unused[:5])} (a category of column "
                             f"{individual!r}) appear in no database: drop unused "
                             f"categories (remove_unused_categories)")
    ind_codes, individuals = pd.factorize(ids, sort=True)
    db_codes, databases = pd.factorize(dbs, sort=True)
    if len(databases) < 2:
        raise ValueError(f"data has one database only ({databases[0]!r} in column "
                         f"{database!r}): empirical privacy compares the query across "
                         f"at least two databases")
    return Encoded(ind_codes.astype(np.int64), db_codes.astype(np.int64), values,
                   pd.Index(individuals, name=individual), pd.Index(databases, name=database))


@dataclass
class DatabaseStats:
    """Per-database full statistics (a): what leave-one-out needs.

    total[r], count[r]: sum and number of records of database r; q[r] the
    query on the full database; for quantile queries ``sorted_values`` (every
    database's values sorted, concatenated) and ``start`` (database r is
    sorted_values[start[r]:start[r] + count[r]])."""
    query: Query
    total: np.ndarray
    count: np.ndarray
    q: np.ndarray
    sorted_values: Optional[np.ndarray] = None
    start: Optional[np.ndarray] = None

    @classmethod
    def from_sums(cls, query: Any, total: Any, count: Any) -> Any:
        """From per-database sums and counts (sum, count, mean queries)."""
        total = np.asarray(total, dtype=np.float64)
        count = np.asarray(count, dtype=np.float64)
        if query.kind == "sum":
            q = total.copy()
        elif query.kind == "count":
            q = count.copy()
        elif query.kind == "mean":
            q = total / count
        else:
            raise ValueError(f"DatabaseStats.from_sums: query {query.name!r} needs the values")
        return cls(query, total, count, q)


def _quantile_sorted(sorted_values: Any, start: Any, size: Any, k_removed_fn: Any,
                     level: Any) -> Any:
    """numpy's linear quantile of sorted blocks after removals: start/size per
    block, k_removed_fn(k) -> global index of the k-th remaining value."""
    h = (size - 1) * level
    k0 = np.floor(h)
    frac = h - k0
    k0 = k0.astype(np.int64)
    k1 = np.minimum(k0 + 1, size - 1)
    v0 = sorted_values[k_removed_fn(k0)]
    v1 = sorted_values[k_removed_fn(k1)]
    # numpy's _lerp: a + t (b - a), and b - (1 - t)(b - a) for t >= 0.5
    diff = v1 - v0
    out = np.where(frac >= 0.5, v1 - (1.0 - frac) * diff, v0 + frac * diff)
    return np.where(size > 0, out, np.nan)


def database_statistics(db_codes: Any, values: Any, n_databases: Any, query: Any) -> Any:
    """(a) Per-database full statistics of records given by db_codes/values."""
    total = group_sums(db_codes, values, n_databases)     # correctly rounded, any order
    count = np.bincount(db_codes, minlength=n_databases).astype(np.float64)
    if query.kind != "quantile":
        return DatabaseStats.from_sums(query, total, count)
    order = np.lexsort((values, db_codes))
    sorted_values = values[order]
    size = count.astype(np.int64)
    start = np.concatenate(([0], np.cumsum(size)[:-1]))
    q = _quantile_sorted(sorted_values, start, size, lambda k: start + k, query.level)
    return DatabaseStats(query, total, count, q, sorted_values, start)


def _groups(ind_codes: Any, db_codes: Any, n_individuals: Any) -> Any:
    """(database, individual) groups: index of each record's group, and each
    group's individual and database."""
    key = db_codes * np.int64(n_individuals) + ind_codes
    uniq, inverse = np.unique(key, return_inverse=True)
    return inverse.ravel(), uniq % n_individuals, uniq // n_individuals


def _undefined(stats: Any, g_ind: Any, g_db: Any, remaining: Any, individuals: Any,
               databases: Any) -> None:
    bad = np.flatnonzero(remaining <= 0)
    if len(bad):
        j = bad[0]
        who = individuals[g_ind[j]] if individuals is not None else int(g_ind[j])
        where = databases[g_db[j]] if databases is not None else int(g_db[j])
        raise ValueError(f"query {stats.query.name!r} is undefined without individual "
                         f"{who!r} on database {where!r}: it holds every record there "
                         f"({len(bad)} such (database, individual) pairs); drop such "
                         f"databases or use a query defined on empty data ('sum', 'count')")


def leave_one_out(stats: Any, ind_codes: Any, db_codes: Any, values: Any, n_individuals: Any, *,
                  individuals: Any = None, databases: Any = None) -> Any:
    """(a) The matrix Q[i, r] = q_{i,r} for a batch of individuals.

    ind_codes: 0..n_individuals-1 (local to the batch), db_codes: global
    database codes, values: every record of these individuals.  Rows of
    individuals absent from database r hold q_r there.  individuals /
    databases (labels) only name things in error messages."""
    Q = np.tile(stats.q, (n_individuals, 1))
    g_ind, g_db, loo = pair_leave_one_out(stats, ind_codes, db_codes, values, n_individuals,
                                          individuals=individuals, databases=databases)
    Q[g_ind, g_db] = loo
    return Q


def pair_leave_one_out(stats: Any, ind_codes: Any, db_codes: Any, values: Any, n_individuals: int,
                       *, individuals: Any = None, databases: Any = None) -> Any:
    """(a) q_{i,r} for every (database, individual) pair with records, as
    three arrays (individual code, database code, q_{i,r}) -- the non-trivial
    entries of ``leave_one_out``'s matrix, without the matrix.  Each value
    depends only on its own database's statistics and the pair's records, so
    a subset of the databases (with their statistics) gives the same values."""
    query = stats.query
    if len(values) == 0:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty.copy(), np.empty(0)
    g, g_ind, g_db = _groups(ind_codes, db_codes, n_individuals)
    n_groups = len(g_ind)
    c = np.bincount(g, minlength=n_groups).astype(np.float64)
    remaining = stats.count[g_db] - c
    if query.kind in ("sum", "count"):
        if query.kind == "sum":
            loo = stats.total[g_db] - np.bincount(g, weights=values, minlength=n_groups)
        else:
            loo = remaining
    elif query.kind == "mean":
        _undefined(stats, g_ind, g_db, remaining, individuals, databases)
        loo = (stats.total[g_db] - np.bincount(g, weights=values, minlength=n_groups)) / remaining
    elif query.kind == "quantile":
        _undefined(stats, g_ind, g_db, remaining, individuals, databases)
        loo = _quantile_loo(stats, g, g_db, values, remaining.astype(np.int64))
    else:
        raise ValueError(f"leave_one_out: query {query.name!r} takes generic_leave_one_out")
    return g_ind, g_db, loo


def _quantile_loo(stats: Any, g: Any, g_db: Any, values: Any, remaining: Any) -> Any:
    """Quantile of each group's database without the group's records."""
    # records sorted by (group, value); position of each in its database
    order = np.lexsort((values, g))
    gv, vv = g[order], values[order]
    db = g_db[gv]
    start, size = stats.start, stats.count.astype(np.int64)
    pos = np.empty(len(vv), dtype=np.int64)
    for r in np.unique(db):        # one searchsorted per database (not per individual)
        sel = db == r
        block = stats.sorted_values[start[r]:start[r] + size[r]]
        pos[sel] = np.searchsorted(block, vv[sel], side="left")
    # equal values of one group take distinct positions: + occurrence index
    n = len(vv)
    new_run = np.ones(n, dtype=bool)
    new_run[1:] = (gv[1:] != gv[:-1]) | (vv[1:] != vv[:-1])
    run_start = np.maximum.accumulate(np.where(new_run, np.arange(n), 0))
    pos += np.arange(n) - run_start
    # j: index within the group; key = p_j - j
    new_group = np.ones(n, dtype=bool)
    new_group[1:] = gv[1:] != gv[:-1]
    group_start = np.maximum.accumulate(np.where(new_group, np.arange(n), 0))
    key = pos - (np.arange(n) - group_start)
    n_groups = len(g_db)

    def kth_remaining(k: Any) -> Any:
        shift = np.bincount(gv, weights=(key <= k[gv]), minlength=n_groups).astype(np.int64)
        return start[g_db] + k + shift

    return _quantile_sorted(stats.sorted_values, None, remaining, kth_remaining,
                            stats.query.level)


def _one_database(args: Any) -> Any:
    """The generic path on one database: (q_r, present individual codes, loo values)."""
    func, vals, inds, dim = args
    full = evaluate(func, vals, dim=dim)
    present = np.unique(inds)
    loo = np.array([evaluate(func, vals[inds != i], dim=dim) for i in present],
                   dtype=np.float64)
    return full, present, loo


def evaluate(func: Any, vals: Any, name: Any = "query", dim: Optional[int] = None) -> Any:
    """float(func(vals)) of the user's callable ``name`` (dim None), or its
    ``dim`` values as an array (a vector query); its failure is reported as a
    failure of that parameter (same exception type)."""
    try:
        if dim is None:
            return float(func(vals))
        out = np.asarray(func(vals), dtype=np.float64).reshape(-1)
        if out.shape != (dim,):
            raise ValueError(f"returned {out.size} values, expected {dim}")
        return out
    except Exception as exc:
        try:
            error = type(exc)(f"{name} {getattr(func, '__name__', func)!r} failed on a "
                              f"database's values: {exc}")
        except Exception:                      # an exception class with another signature
            raise exc from None
        raise error from exc


def generic_leave_one_out(func: Any, enc: Any, *, workers: Any = None, progress: Any = None,
                          dim: Optional[int] = None) -> Any:
    """q (R,) and Q (I, R) for a callable query: func(values of one database)
    -> a real number, evaluated on every database and on every database with
    each present individual removed.  workers: None (this process) or a
    number of processes (concurrent.futures; func must be picklable).
    progress: None (a bar on a terminal when the pass takes seconds), True
    (always) or False (never); statpriv._progress.  dim: None (func returns
    a number) or the length d of the vector func returns (q (R, d), Q (I, R, d))."""
    R, n_ind = len(enc.databases), len(enc.individuals)
    order = np.argsort(enc.db_codes, kind="stable")
    bounds = np.searchsorted(enc.db_codes[order], np.arange(R + 1))
    tasks = [(func, enc.values[order[bounds[r]:bounds[r + 1]]],
              enc.ind_codes[order[bounds[r]:bounds[r + 1]]], dim) for r in range(R)]
    results = []
    pool = None
    if workers:
        from concurrent.futures import ProcessPoolExecutor
        pool = ProcessPoolExecutor(max_workers=int(workers))
    show = None if progress is None else bool(progress)
    try:
        with _progress.bar(R, "leave-one-out", unit="db", show=show) as bar:
            for res in (map if pool is None else pool.map)(_one_database, tasks):
                results.append(res)
                if bar is not None:
                    bar.update()
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)    # Ctrl-C: drop the queued databases
    q = np.array([r[0] for r in results])
    Q = np.tile(q, (n_ind,) + (1,) * q.ndim)
    for r, (_, present, loo) in enumerate(results):
        Q[present, r] = loo
    if not (np.isfinite(q).all() and np.isfinite(Q).all()):
        raise ValueError(f"query {getattr(func, '__name__', func)!r} returned NaN or "
                         f"infinite values on some database (with or without an individual)")
    return q, Q
