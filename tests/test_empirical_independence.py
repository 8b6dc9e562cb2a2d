"""EmpiricalPrivacy.independence_check: the permutation test of the serial
correlation of the query values against brute force, and its power on iid
and on strongly dependent sequences of databases."""
import itertools

import numpy as np
import pytest

from helpers import import_extra

pd = import_extra("pandas")
import_extra("scipy")

from statpriv.empirical import EmpiricalPrivacy, IndependenceCheck  # noqa: E402
from statpriv.empirical._independence import independence_check  # noqa: E402


def lag_correlation(x, lag=1):
    """r_k written out term by term (no numpy vectorisation)."""
    m = sum(x) / len(x)
    num = sum((x[t] - m) * (x[t + lag] - m) for t in range(len(x) - lag))
    return num / sum((v - m) ** 2 for v in x)


def frame_with_levels(levels, per_db=20, seed=0):
    """Long-format records: database r has mean levels[r] plus unit noise."""
    rng = np.random.default_rng(seed)
    R = len(levels)
    return pd.DataFrame({"db": np.repeat(np.arange(R), per_db),
                         "id": np.tile(np.arange(per_db), R),
                         "value": np.repeat(levels, per_db) + rng.normal(size=R * per_db)})


@pytest.mark.parametrize("alternative", ["greater", "less", "two-sided"])
def test_exact_p_value_equals_the_enumeration_of_all_orders(alternative):
    q = [1.0, 2.0, 3.5, 4.0, 7.0, 6.0]                  # 6! = 720 orders <= n_resamples
    res = independence_check(q, alternative=alternative)
    r0 = lag_correlation(q)
    perms = np.array([lag_correlation(p) for p in itertools.permutations(q)])
    tol = 1e-12
    greater, less = np.mean(perms >= r0 - tol), np.mean(perms <= r0 + tol)
    expected = {"greater": greater, "less": less,
                "two-sided": min(1.0, 2 * min(greater, less))}[alternative]
    assert res.statistic == pytest.approx(r0, rel=1e-12)
    assert res.p_value == pytest.approx(expected, rel=1e-12)
    assert "exact" in res.method and res.n_databases == 6


def test_iid_databases_are_not_rejected():
    rng = np.random.default_rng(3)
    ep = EmpiricalPrivacy(frame_with_levels(rng.normal(size=60)), "mean",
                          bandwidth="silverman")
    res = ep.independence_check()
    assert isinstance(res, IndependenceCheck)
    assert res.statistic == pytest.approx(lag_correlation(list(ep.q.to_numpy())), rel=1e-12)
    assert res.p_value > 0.2 and not res.rejected
    assert "no evidence against independent draws" in res.interpretation
    assert str(res) == res.interpretation
    # reproducible: the default seed fixes the permutations
    assert ep.independence_check().p_value == res.p_value


def test_random_walk_databases_are_rejected():
    rng = np.random.default_rng(4)
    walk = np.cumsum(rng.normal(size=60))                # persistent levels
    ep = EmpiricalPrivacy(frame_with_levels(walk), "mean", bandwidth="silverman")
    res = ep.independence_check(n_resamples=2000)
    assert res.statistic > 0.5
    assert res.p_value < 0.01 and res.rejected
    assert "do not look like independent draws" in res.interpretation
    # alternating levels: negative autocorrelation, caught by the two-sided test
    zigzag = np.where(np.arange(60) % 2 == 0, 3.0, -3.0) + 0.3 * rng.normal(size=60)
    res = EmpiricalPrivacy(frame_with_levels(zigzag), "mean",
                           bandwidth="silverman").independence_check(n_resamples=2000)
    assert res.statistic < -0.5 and res.p_value < 0.01


def test_seed_and_lag():
    q = np.random.default_rng(5).normal(size=40)
    a = independence_check(q, seed=1, n_resamples=500)
    b = independence_check(q, seed=np.random.default_rng(1), n_resamples=500)
    assert a.p_value == b.p_value
    res = independence_check(q, lag=3)
    assert res.lag == 3 and res.statistic == pytest.approx(lag_correlation(list(q), 3))


@pytest.mark.parametrize("kwargs, kind, words", [
    ({"lag": 0}, ValueError, "lag"),
    ({"lag": 9}, ValueError, "lag"),
    ({"lag": 1.5}, ValueError, "lag"),
    ({"n_resamples": 0}, ValueError, "n_resamples"),
    ({"alternative": "both"}, ValueError, "alternative"),
    ({"alpha": 0.0}, ValueError, "alpha"),
    ({"alpha": 1.0}, ValueError, "alpha"),
    ({"seed": "x"}, TypeError, "seed"),
    ({"seed": -1}, ValueError, "seed"),
])
def test_bad_parameters(kwargs, kind, words):
    q = np.arange(10.0) ** 2
    with pytest.raises(kind, match=words):
        independence_check(q, **kwargs)


def test_bad_query_values():
    with pytest.raises(ValueError, match="at least 3 databases"):
        independence_check([1.0, 2.0])
    with pytest.raises(ValueError, match="same value on every database"):
        independence_check([2.0, 2.0, 2.0, 2.0])
    ep = EmpiricalPrivacy(frame_with_levels([0.0, 1.0]), "mean", bandwidth=1.0)
    with pytest.raises(ValueError, match="at least 3 databases"):
        ep.independence_check()


def test_order_gives_the_time_order_of_the_databases():
    """Labels whose sorted order is not the drawing order: a random walk
    looks iid in label order and dependent in the given time order."""
    rng = np.random.default_rng(6)
    df = frame_with_levels(np.cumsum(rng.normal(size=50)))
    labels = np.array([f"x{k:03d}" for k in rng.permutation(50)])  # time t -> a label
    df["db"] = labels[df["db"].to_numpy()]
    ep = EmpiricalPrivacy(df, "mean", bandwidth="silverman")
    assert ep.independence_check(n_resamples=2000).p_value > 0.05
    res = ep.independence_check(n_resamples=2000, order=list(labels))
    assert res.p_value < 0.01
    assert res.statistic == pytest.approx(
        lag_correlation(list(ep.q.reindex(labels).to_numpy())), rel=1e-12)
    for bad in (list(labels[:-1]), list(labels[:-1]) + ["nope"],
                list(labels[:-1]) + [labels[0]], "x001"):
        with pytest.raises(ValueError, match="order must list each of the 50"):
            ep.independence_check(order=bad)


# -- vector queries: one joint test ---------------------------------------------
@pytest.mark.parametrize("alternative", ["greater", "less", "two-sided"])
def test_vector_exact_p_value_equals_the_enumeration_of_all_orders(alternative):
    """The rows permuted together; the statistic is the most extreme
    component's r_1 (|r_1| for two-sided), each order counted by hand."""
    q = [[1.0, 0.5], [2.0, -1.0], [3.5, 2.0], [4.0, 0.0], [7.0, 3.0], [6.0, 1.5]]
    res = independence_check(q, alternative=alternative)

    def joint(rows):
        r = [lag_correlation([row[k] for row in rows]) for k in range(2)]
        return {"greater": max(r), "less": min(r),
                "two-sided": max(abs(v) for v in r)}[alternative]

    t0 = joint(q)
    perms = np.array([joint(p) for p in itertools.permutations(q)])
    tol = 1e-12
    expected = np.mean(perms <= t0 + tol) if alternative == "less" else \
        np.mean(perms >= t0 - tol)
    assert res.statistic == pytest.approx(t0, rel=1e-12)
    assert res.p_value == pytest.approx(expected, rel=1e-12)
    want = [lag_correlation([row[k] for row in q]) for k in range(2)]
    assert res.components == pytest.approx(want, rel=1e-12)
    assert "exact" in res.method and "joint p" in res.interpretation


def test_vector_query_one_persistent_component_is_rejected():
    """(mean, count): the mean follows a random walk, the counts do not."""
    rng = np.random.default_rng(4)
    df = frame_with_levels(np.cumsum(rng.normal(size=40)))
    df = df[rng.random(len(df)) < 0.8]                     # counts vary, independently
    ep = EmpiricalPrivacy(df, ["mean", "count"], bandwidth="silverman")
    res = ep.independence_check(n_resamples=2000)
    assert res.rejected and res.p_value < 0.01
    mean_alone = EmpiricalPrivacy(df, "mean", bandwidth="silverman").independence_check()
    count_alone = EmpiricalPrivacy(df, "count", bandwidth="silverman").independence_check()
    assert res.components == (mean_alone.statistic, count_alone.statistic)
    assert count_alone.p_value > 0.05 and res.statistic == abs(mean_alone.statistic)
    # one component: the scalar test
    assert EmpiricalPrivacy(df, ["mean"], bandwidth="silverman").independence_check() == \
        mean_alone
    dd = import_extra("dask.dataframe")
    import dask
    with dask.config.set({"scheduler": "sync", "dataframe.shuffle.method": "tasks"}):
        lazy = EmpiricalPrivacy(dd.from_pandas(df, npartitions=2), ["mean", "count"],
                                bandwidth="silverman")
        assert lazy.independence_check(n_resamples=2000) == res


def test_vector_constant_component():
    with pytest.raises(ValueError, match="component 1 of the query takes the same value"):
        independence_check([[1.0, 2.0], [3.0, 2.0], [0.0, 2.0], [5.0, 2.0]])
