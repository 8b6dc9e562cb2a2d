"""Curves are values: equality by parameters, copies (pickle, deepcopy, worker
processes, Dask) and the JSON dictionary form, over every row of
tests/mechanisms.py; accounting state; the notebook views (plot, table, HTML).
"""
import copy
import json
import math
import operator
import pickle
import sys
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest

import statpriv
from statpriv.curve import values
from mechanisms import MECHANISMS, PROBS, curve

IDS = [m.id for m in MECHANISMS]
# negative, 0, small, moderate, large and inf: one array query per direction
EPS = np.array([-0.3, 0.0, 1e-3, 0.05, 0.5, 3.0, math.inf])
SUFFIXES = ("", "_plus", "_minus")


def _same_bits(a, b):
    for d in SUFFIXES:
        assert getattr(a, f"log_delta{d}")(EPS).tobytes() == \
            getattr(b, f"log_delta{d}")(EPS).tobytes(), d


def _through_json(value):
    return statpriv.from_dict(json.loads(json.dumps(value.to_dict(), allow_nan=False)))


@pytest.mark.parametrize("row", IDS)
def test_json_round_trip_gives_an_equal_curve_with_the_same_bits(row):
    c = curve(row)
    again = _through_json(c)
    assert again is not c and type(again) is type(c)
    assert again == c and hash(again) == hash(c) and repr(again) == repr(c)
    _same_bits(again, c)


@pytest.mark.parametrize("row", IDS)
def test_copies_are_equal_to_the_curve(row):
    # (the same bits: tests/test_mechanisms.py)
    c = curve(row)
    for twin in (pickle.loads(pickle.dumps(c)), copy.deepcopy(c)):
        assert twin == c and hash(twin) == hash(c)


# -- equality ---------------------------------------------------------------

def test_equality_is_by_parameters_with_the_defaults_filled_in():
    c = statpriv.counting(10, 0.5)
    assert c == statpriv.counting(n=10, pi=0.5, noise=None, sampling="without_replacement")
    assert c == statpriv.counting(10.0, 0.5)           # as 10 == 10.0
    assert len({c, statpriv.counting(10, 0.5), statpriv.counting(10, 0.4)}) == 2
    assert c != statpriv.counting(10, 0.4)
    assert c != statpriv.counting(10, 0.5, noise=statpriv.Laplace(1.0))
    assert statpriv.counting(10, 0.5, noise=statpriv.Laplace(1.0)) == \
        statpriv.counting(10, 0.5, noise=statpriv.Laplace(1.0))
    assert statpriv.dp.gaussian(1.0) == statpriv.dp.gaussian(1.0, 1.0, relation="add_remove")
    assert statpriv.dp.gaussian(1.0) != statpriv.dp.gaussian(1.0, relation="replace_one")
    assert statpriv.dp.gaussian(1.0) != statpriv.dp.laplace(1.0)
    assert c != "counting(10, 0.5)"


def test_equality_of_nested_calls_and_arrays():
    a = statpriv.compose(statpriv.counting(30, 0.3), times=2)
    assert a == statpriv.compose(statpriv.counting(n=30, pi=0.3), times=2)
    assert a != statpriv.compose(statpriv.counting(30, 0.3), times=3)
    assert statpriv.counting(None, np.array(PROBS)) == statpriv.counting(None, PROBS)
    pk = statpriv.partial_knowledge(100, 0.2)
    assert pk.worst_case == statpriv.partial_knowledge(100, 0.2, known=0).worst_case
    assert pk.worst_case != pk.blanket


def test_a_curve_not_built_by_a_factory_equals_only_itself():
    bare = statpriv.PrivacyCurve(statpriv.counting(10, 0.5)._core, description="bare")
    twin = statpriv.PrivacyCurve(statpriv.counting(10, 0.5)._core, description="bare")
    assert bare == bare and bare != twin and bare != statpriv.counting(10, 0.5)
    assert hash(bare) != hash(twin)
    with pytest.raises(TypeError, match="public statpriv factory"):
        bare.to_dict()
    with pytest.raises(TypeError, match="public statpriv factory"):
        pickle.dumps(bare)


# -- the dictionary ---------------------------------------------------------

def test_dictionary_form_of_a_noisy_count():
    d = statpriv.counting(1000, 0.3, noise=statpriv.Laplace(2.0)).to_dict()
    assert d == {"statpriv_schema": 1, "kind": "counting", "args": [1000, 0.3],
                 "kwargs": {"noise": {"kind": "Laplace", "args": [2.0], "kwargs": {},
                                      "then": []}},
                 "then": []}


def test_arrays_and_non_finite_floats_are_json_safe():
    c = statpriv.from_log_pmfs(np.log([0.1, 0.6, 0.3]), np.array([math.log(0.7),
                                                                  math.log(0.3), -math.inf]))
    d = c.to_dict()
    log_q = d["args"][1]
    assert log_q["dtype"] == "float64" and log_q["ndarray"][2] == {"float": "-inf"}
    again = _through_json(c)
    assert again == c
    _same_bits(again, c)
    assert isinstance(again.params["log_q"], np.ndarray)


def test_noise_and_pld_convert_too():
    noise = statpriv.Gaussian(2.0)
    assert values.to_dict(noise)["kind"] == "Gaussian"
    assert statpriv.from_dict(values.to_dict(noise)) == noise
    source = statpriv.dp.laplace(1.0)
    pld = source.privacy_loss_distribution(1e-3)
    d = values.to_dict(pld)
    assert d["kind"] == "PrivacyCurve.privacy_loss_distribution"
    assert d["args"][0]["kind"] == "dp.laplace"
    again = statpriv.from_dict(json.loads(json.dumps(d, allow_nan=False)))
    assert np.array_equal(again.plus.losses, pld.plus.losses)
    assert np.array_equal(again.plus.probs, pld.plus.probs)


@pytest.mark.parametrize("d, message", [
    ({"statpriv_schema": 2, "kind": "counting", "args": [10, 0.5]}, "statpriv_schema 2"),
    ({"kind": "counting", "args": [10, 0.5]}, "statpriv_schema"),
    ({"statpriv_schema": 1, "kind": "os.system", "args": ["true"]}, "unknown kind 'os.system'"),
    ({"statpriv_schema": 1, "kind": "statpriv.curve.recipe.rebuild", "args": []},
     "unknown kind 'statpriv.curve.recipe.rebuild'"),
    ({"statpriv_schema": 1, "kind": "compose",
      "args": [{"kind": "subprocess.run", "args": [["true"]]}]}, "unknown kind 'subprocess.run'"),
    ({"statpriv_schema": 1, "kind": "partial_knowledge", "args": [100, 0.2],
      "then": ["__class__"]}, "public attribute names"),
    ({"statpriv_schema": 1, "kind": "counting", "args": [10, {"float": "1e9"}]},
     "'inf', '-inf' or 'nan'"),
    ({"statpriv_schema": 1, "kind": "counting", "args": [None, {"ndarray": [0.5],
                                                                "dtype": "object"}]},
     "dtype"),
    ({"statpriv_schema": 1, "kind": "counting", "args": [10, {"what": 1}]}, "exactly one"),
], ids=["version", "no-version", "unknown-kind", "private-function", "nested-unknown",
        "private-attribute", "bad-float", "bad-dtype", "untagged-dict"])
def test_from_dict_refuses_what_it_does_not_know(d, message):
    with pytest.raises(ValueError, match=message):
        statpriv.from_dict(d)


def test_from_dict_needs_a_dict():
    with pytest.raises(TypeError, match=r"\bd\b"):
        statpriv.from_dict('{"statpriv_schema": 1}')


def test_every_kind_names_a_public_callable():
    assert "from_dict" in statpriv.__all__
    for name in values.KINDS:
        assert callable(values._registry()[0][name]), name


# -- accounting state -------------------------------------------------------

def test_accountant_state_round_trips():
    acc = statpriv.Accountant(expected_releases=10)
    acc.compose(statpriv.counting(30, 0.3), times=3)
    acc.compose(statpriv.dp.gaussian(5.0), times=2)
    acc.compose(statpriv.compose(statpriv.dp.laplace(3.0), times=2))
    lo, hi = acc.epsilon_bounds(1e-3)
    for twin in (pickle.loads(pickle.dumps(acc)), copy.deepcopy(acc)):
        assert twin.releases == acc.releases           # curves equal by parameters
        assert twin.epsilon_bounds(1e-3) == (lo, hi)


def test_an_accountants_curve_is_a_value_too():
    acc = statpriv.Accountant(expected_releases=10)
    acc.compose(statpriv.dp.gaussian(4.0), times=3)
    acc.compose(statpriv.counting(30, 0.3))
    c = acc.curve()
    for twin in (pickle.loads(pickle.dumps(c)), copy.deepcopy(c)):
        assert twin == c and hash(twin) == hash(c)
        _same_bits(twin, c)
        assert twin.delta_bounds(EPS)[0].tobytes() == c.delta_bounds(EPS)[0].tobytes()
    acc.compose(statpriv.dp.gaussian(4.0))
    assert acc.curve() != c
    with pytest.raises(TypeError, match="not a public factory"):
        c.to_dict()


def test_privacy_loss_distributions_copy():
    for source in (statpriv.counting(100, 0.3), statpriv.dp.geometric(0.5)):
        pld = source.privacy_loss_distribution()
        bare = statpriv.pld.from_log_pmfs(statpriv.counting(20, 0.4).log_pmfs())
        for p in (pld, bare):
            for twin in (pickle.loads(pickle.dumps(p)), copy.deepcopy(p)):
                assert twin.delta(EPS).tobytes() == p.delta(EPS).tobytes()
        assert pld.to_curve() == source.privacy_loss_distribution().to_curve()
        assert bare.to_curve() != statpriv.pld.from_log_pmfs(
            statpriv.counting(20, 0.4).log_pmfs()).to_curve()      # no call: by identity


def test_dp_accounting_event_and_accountant_round_trip():
    pytest.importorskip("dp_accounting")
    from dp_accounting import dp_event
    from statpriv.accounting import StatprivCurveEvent, StatprivPLDAccountant
    event = StatprivCurveEvent(statpriv.counting(100, 0.3))
    composed = dp_event.ComposedDpEvent([event, dp_event.GaussianDpEvent(20.0)])
    for copy_of in (lambda x: pickle.loads(pickle.dumps(x)), copy.deepcopy):
        assert copy_of(event) == event and hash(copy_of(event)) == hash(event)
        assert copy_of(composed) == composed
    accountant = StatprivPLDAccountant()
    accountant.compose(event, 2)
    eps = accountant.get_epsilon(1e-9)
    assert pickle.loads(pickle.dumps(accountant)).get_epsilon(1e-9) == eps
    assert copy.deepcopy(accountant).get_epsilon(1e-9) == eps


# -- other processes --------------------------------------------------------

def test_process_pool_maps_over_a_curves_delta():
    c = statpriv.counting(1000, 0.3, noise=statpriv.Laplace(1.0))
    eps = [0.0, 0.01, 0.1, 0.5]
    with ProcessPoolExecutor(max_workers=2) as pool:
        remote = list(pool.map(c.delta, eps))
    assert remote == [c.delta(e) for e in eps]


DASK_ROWS = ("counting-half", "dp-gaussian-sampled", "compose-grid", "pk-worst-case")


def test_dask_maps_over_curves():
    # in-process workers (a worker process takes ~4 s to start and import);
    # the wire format is checked apart: dask's own serialize/deserialize
    distributed = pytest.importorskip("distributed")
    from distributed.protocol import deserialize, serialize
    curves = [curve(row) for row in DASK_ROWS]
    for c in curves:
        twin = deserialize(*serialize(c))
        assert twin == c and twin is not c
        _same_bits(twin, c)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        remote = client.gather(client.map(operator.methodcaller("delta", 0.1), curves))
    assert remote == [c.delta(0.1) for c in curves]


@pytest.mark.exhaustive
def test_dask_maps_over_curves_in_a_worker_process():
    distributed = pytest.importorskip("distributed")
    curves = [curve(row) for row in DASK_ROWS]
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        remote = client.gather(client.map(operator.methodcaller("delta", 0.1), curves))
        back = client.gather(client.map(copy.copy, curves))
    assert remote == [c.delta(0.1) for c in curves]
    assert back == curves


# -- notebook views ---------------------------------------------------------

@pytest.fixture
def agg():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    yield plt
    plt.close("all")


def test_plot_draws_the_three_curves_on_a_log_axis(agg):
    c = statpriv.counting(1000, 0.3, noise=statpriv.Laplace(2.0))
    ax = c.plot()
    lines = ax.get_lines()
    assert [line.get_label().split(" =")[0] for line in lines] == ["δ(ε)", "δ₊(ε)", "δ₋(ε)"]
    assert ax.get_yscale() == "log" and ax.get_xlabel() == "ε" and ax.get_ylabel() == "δ"
    eps = lines[0].get_xdata()
    assert eps[0] == 0.0 and eps[-1] == c.epsilon(1e-12) and len(eps) == 200
    np.testing.assert_array_equal(lines[1].get_ydata(), c.delta_plus(eps))
    np.testing.assert_array_equal(lines[2].get_ydata(), c.delta_minus(eps))


def test_plot_on_given_axes_linear_and_in_log_nats(agg):
    fig, ax = agg.subplots()
    c = statpriv.counting(10 ** 6, 0.3)
    eps = [0.0, 0.1, 0.5]
    assert c.plot(ax=ax, eps=eps, log=False) is ax and ax.get_yscale() == "linear"
    ax2 = c.plot(eps=eps)             # delta(0.5) = e^-30317.7: ln delta drawn
    assert ax2.get_ylabel() == "ln δ" and ax2.get_yscale() == "linear"
    np.testing.assert_array_equal(ax2.get_lines()[0].get_ydata(), c.log_delta(eps))


def test_plot_of_a_zero_curve_says_so(agg):
    ax = statpriv.dp.gaussian(1.0, sampling_prob=0.0).plot()
    assert [t.get_text() for t in ax.texts] == ["δ = 0 at every ε shown"]
    assert ax.get_yscale() == "linear" and not ax.get_lines()[0].get_ydata().any()
    ax.figure.canvas.draw()


def test_plot_without_matplotlib_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r'pip install "\.\[plot\]"'):
        statpriv.dp.gaussian(1.0).plot()


def test_table_is_the_curves_own_queries():
    pytest.importorskip("pandas")
    c = statpriv.counting(10 ** 6, 0.3)
    eps = [0.0, 0.01, 0.5]
    frame = c.table(eps)
    assert list(frame.columns) == ["eps", "delta_plus", "delta_minus", "delta", "log_delta"]
    for column, query in (("delta_plus", c.delta_plus), ("delta_minus", c.delta_minus),
                          ("delta", c.delta), ("log_delta", c.log_delta)):
        assert frame[column].to_numpy().tobytes() == query(eps).tobytes(), column
    assert frame["delta"].iloc[2] == 0.0 and math.isfinite(frame["log_delta"].iloc[2])
    assert len(c.table()) == 11


def test_table_without_pandas_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="pip install pandas"):
        statpriv.dp.gaussian(1.0).table([0.1])


def test_html_shows_the_parameters_and_delta():
    c = statpriv.counting(1000, 0.3, noise=statpriv.Gaussian(3.0))
    page = c._repr_html_()
    assert "<code>noise</code>" in page and "<code>Gaussian(3.0)</code>" in page
    assert page.count("<tr>") == 1 + 3 + 1 + 6      # parameter rows, eps rows
    assert f"<td>{c.delta(0.01):.6g}</td>" in page
    under = statpriv.counting(10 ** 6, 0.3)._repr_html_()      # delta(2) underflows
    assert f"exp({statpriv.counting(10 ** 6, 0.3).log_delta(2.0):.6g})" in under
