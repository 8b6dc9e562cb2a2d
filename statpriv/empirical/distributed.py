"""Empirical privacy on a ``dask.dataframe.DataFrame`` (extra ``statpriv[dask]``).

Individuals are independent units of work.  For the decomposable queries
(mean, sum, count) the work splits in two passes over the data, both with
Dask's own APIs on whatever cluster the user runs:

1. per-database totals ``S_r = sum of values``, ``N_r = number of records``
   by ``groupby(database).agg(["sum", "count"])`` (a tree reduction; R rows
   come back), together with the NaN checks;
2. the records partitioned by individual (as given, when the individual is
   the index with known divisions; else ``shuffle(on=individual)``, which
   puts every record of an individual in one partition), then
   ``map_partitions``: per partition, each individual's per-database sums
   ``s_ir`` and counts ``n_ir``, the leave-one-out values

       mean: q_i^r = (S_r - s_ir) / (N_r - n_ir)    sum: S_r - s_ir
       count: N_r - n_ir                            (q_i^r = q^r where i is absent)

   and the per-individual results from the same batch kernels as the
   in-memory path.

Nothing but R totals and the per-individual results ever reaches the client;
the peak memory of a worker is one partition plus its leave-one-out rows
(processed ``_ROWS`` individuals at a time).  dask is imported lazily.
"""
import numpy as np

__all__ = ["is_dask_frame", "DaskSource", "individual_cells"]

# Individuals per batch-kernel call inside a partition: bounds the dense
# leave-one-out matrix (rows x R doubles) a worker holds at once.
_ROWS = 4096

DECOMPOSABLE = ("mean", "sum", "count")


def is_dask_frame(data):
    """True for a dask DataFrame (checked by type name: dask is not imported)."""
    module = type(data).__module__ or ""
    return module.split(".")[0] in ("dask", "dask_expr") and hasattr(data, "map_partitions")


def individual_cells(ids, positions, values):
    """Per (individual, database) sums and counts of one partition's records.

    ids: the individuals' labels, positions: database positions (0..R-1),
    values: float64.  Returns (labels, indptr, pos, s, n): individual k owns
    cells indptr[k]:indptr[k+1], sorted by database position; s the sum of
    its values there, n the number of its records.  Sorting is by the
    individuals' factorized codes (order of first appearance is not used:
    labels come out in sorted order).
    """
    import pandas as pd
    codes, labels = pd.factorize(ids, sort=True)
    n_db = int(positions.max()) + 1 if positions.size else 1
    key = codes.astype(np.int64) * n_db + positions.astype(np.int64)
    order = np.argsort(key, kind="stable")
    key = key[order]
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if key.size else key
    s = np.add.reduceat(values[order], starts) if key.size else np.empty(0)
    n = np.diff(np.r_[starts, key.size]).astype(np.int64)
    cell_key = key[starts]
    owner = cell_key // n_db
    pos = (cell_key - owner * n_db).astype(np.int64)
    indptr = np.searchsorted(owner, np.arange(len(labels) + 1))
    return np.asarray(labels), indptr, pos, s, n


def leave_one_out_rows(query, totals_sum, totals_count, q, indptr, pos, s, n):
    """Dense leave-one-out rows (individuals x R) for mean / sum / count:
    row k is q with the databases of individual k replaced by the closed
    form without k's records.  A database that loses all its records under
    the mean has no value: NaN (the caller rejects it)."""
    rows = np.repeat(q[None, :], len(indptr) - 1, axis=0)
    owner = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    if query == "mean":
        left = totals_count[pos] - n
        with np.errstate(invalid="ignore", divide="ignore"):
            new = np.where(left > 0, (totals_sum[pos] - s) / left, np.nan)
    elif query == "sum":
        new = totals_sum[pos] - s
    else:
        new = (totals_count[pos] - n).astype(np.float64)
    rows[owner, pos] = new
    return rows


class DaskSource:
    """What EmpiricalPrivacy needs from a dask DataFrame: the validated
    column names, the per-database totals (computed now, one pass) and a way
    to map a per-individual function over the partitions (lazy).

    ``map_rows(func, meta)`` returns a lazy dask DataFrame: for every
    partition and every batch of at most ``_ROWS`` individuals,
    ``func(labels, rows)`` with ``rows`` the dense leave-one-out matrix
    (unsorted rows, database order) must return a pandas DataFrame indexed
    by the labels.
    """

    def __init__(self, data, query, *, individual, database, value):
        import pandas as pd
        if not isinstance(query, str) or query not in DECOMPOSABLE:
            raise ValueError(f"query must be one of {', '.join(DECOMPOSABLE)} for a dask "
                             f"DataFrame (leave-one-out from per-database totals), got "
                             f"{query!r}; compute the frame (.compute()) for the other queries")
        missing = [f"{role}={name!r}" for role, name in
                   (("individual", individual), ("database", database), ("value", value))
                   if name not in data.columns and not (role == "individual"
                                                        and data.index.name == name)]
        if missing:
            raise ValueError(f"unknown column name(s): {', '.join(missing)}; the data has "
                             f"columns {list(data.columns)}")
        if not pd.api.types.is_numeric_dtype(data[value].dtype) or \
                pd.api.types.is_bool_dtype(data[value].dtype):
            raise ValueError(f"value column {value!r} must be numeric, got dtype "
                             f"{data[value].dtype}")
        self.query = query
        self.individual, self.database, self.value = individual, database, value
        import dask
        frame = data if individual in data.columns else data.reset_index()
        totals = frame.groupby(database)[value].agg(["sum", "count"])
        nan_values = frame[value].isna().sum()
        nan_ids = frame[individual].isna().sum()
        totals, nan_values, nan_ids = dask.compute(totals, nan_values, nan_ids)
        if int(nan_values):
            raise ValueError(f"value column {value!r} has {int(nan_values)} NaN value(s); "
                             "drop or fill them first")
        if int(nan_ids):
            raise ValueError(f"individual column {individual!r} has {int(nan_ids)} missing "
                             "label(s)")
        if len(totals) == 0:
            raise ValueError("data is empty: no records")
        if len(totals) < 2:
            raise ValueError(f"data has one database only ({database}={totals.index[0]!r}); "
                             "empirical privacy needs at least two")
        totals = totals.sort_index()
        self.databases = totals.index.to_numpy()
        self.totals_sum = totals["sum"].to_numpy(dtype=np.float64)
        self.totals_count = totals["count"].to_numpy(dtype=np.int64)
        with np.errstate(invalid="ignore", divide="ignore"):
            self.q = {"mean": self.totals_sum / self.totals_count, "sum": self.totals_sum,
                      "count": self.totals_count.astype(np.float64)}[query]
        self._frame = self._by_individual(data)

    def _by_individual(self, data):
        """The records with every individual's in one partition."""
        if data.index.name == self.individual and data.known_divisions:
            return data
        if self.individual not in data.columns:      # the index, divisions unknown
            data = data.reset_index()
        return data.shuffle(on=self.individual)

    def map_rows(self, func, meta):
        """Lazy per-individual results (see the class docstring)."""
        spec = _Spec(self.query, self.individual, self.database, self.value, self.databases,
                     self.totals_sum, self.totals_count, self.q)
        return self._frame.map_partitions(_partition, spec, func, meta, meta=meta,
                                          enforce_metadata=False, clear_divisions=True)


class _Spec:
    """The small, picklable part of a DaskSource that every partition needs."""

    def __init__(self, query, individual, database, value, databases, totals_sum,
                 totals_count, q):
        self.query, self.individual, self.database, self.value = \
            query, individual, database, value
        self.databases, self.totals_sum, self.totals_count, self.q = \
            databases, totals_sum, totals_count, q


def _partition(part, spec, func, meta):
    """One partition: its individuals' cells, leave-one-out rows in batches
    of _ROWS, ``func`` on each batch."""
    import pandas as pd
    if spec.individual in part.columns:
        ids = part[spec.individual].to_numpy()
    else:
        ids = part.index.to_numpy()
    if len(ids) == 0:
        return meta.iloc[:0]
    pos = np.searchsorted(spec.databases, part[spec.database].to_numpy())
    values = part[spec.value].to_numpy(dtype=np.float64)
    labels, indptr, cpos, s, n = individual_cells(ids, pos, values)
    outs = []
    for lo in range(0, len(labels), _ROWS):
        hi = min(len(labels), lo + _ROWS)
        a, b = indptr[lo], indptr[hi]
        rows = leave_one_out_rows(spec.query, spec.totals_sum, spec.totals_count, spec.q,
                                  indptr[lo:hi + 1] - a, cpos[a:b], s[a:b], n[a:b])
        outs.append(func(labels[lo:hi], rows))
    return pd.concat(outs) if len(outs) > 1 else outs[0]
