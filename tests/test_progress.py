"""Progress bars (statpriv._progress) on the calls that can take seconds.

The thresholds are monkeypatched to 0 so that every site shows its bar at
once on tiny inputs: the bar must appear on a terminal (a stderr whose
isatty() is True), stay off elsewhere, and never change a value.  No test
here looks at a clock.
"""
import io
import sys

import numpy as np
import pytest

import statpriv
from statpriv import _progress
from statpriv.partial_knowledge import vertices
from helpers import import_extra


class _Terminal(io.StringIO):
    def isatty(self):
        return True


class _Pipe(io.StringIO):
    def isatty(self):
        return False


def _always(monkeypatch):
    monkeypatch.setattr(_progress, "SECONDS", 0.0)
    monkeypatch.setattr(_progress, "DELAY", 0.0)


@pytest.fixture
def always(monkeypatch):
    """Every bar wanted at once (no cost threshold, no delay)."""
    _always(monkeypatch)


def _stderr(monkeypatch, stream):
    monkeypatch.setattr(sys, "stderr", stream)
    return stream


def _per_record():
    return np.random.default_rng(11).uniform(0, 1, 2000)


def _pld_arrays(pld):
    """Every mass of a PLD and of its optimistic partner, one array."""
    return np.concatenate([np.append(np.asarray(side.probs, dtype=float), side.infinity_mass)
                           for p in (pld, pld.optimistic) for side in (p.plus, p.minus)])


# (label, call, the bar's description): small inputs of every site
SITES = [
    ("per-record", lambda: statpriv.counting(None, _per_record()).log_delta([0.0, 0.05, 0.5]),
     "convolving 2,000 per-record pi"),
    ("vertex bracket", lambda: statpriv.partial_knowledge(3000, 0.1).worst_case.bracket(0.3),
     "worst case over"),
    ("vertex epsilon", lambda: statpriv.partial_knowledge(3000, 0.1).worst_case.epsilon(1e-4),
     "epsilon over"),
    ("compose", lambda: statpriv.compose(statpriv.dp.laplace(1.0), times=6).delta([0.1, 1.0]),
     "composing 6 mechanisms"),
    ("long arrays", lambda: statpriv.counting(1000, 0.5).log_delta(np.linspace(-1, 1, 9000)),
     "delta at 9,000 values"),
    ("loss grid", lambda: _pld_arrays(statpriv.k_anonymity(
        60, [0.3, 0.3], 5, source=0, target=1).upper.privacy_loss_distribution(0.05)),
     "delta on the loss grid"),
    ("mpmath reference", lambda: statpriv.counting(200, 0.3).delta(0.1, precision="mp"),
     "mpmath reference"),
    ("mpmath noise", lambda: statpriv.counting(2, 0.3, noise=statpriv.Laplace(1.0)).delta(
        0.1, precision="mp"), "mpmath reference"),
]


@pytest.mark.parametrize("label,call,desc", SITES, ids=[s[0] for s in SITES])
def test_bar_on_a_terminal_and_the_same_values(monkeypatch, label, call, desc):
    plain = call()                              # default thresholds: no bar, no callback
    _always(monkeypatch)
    out = _stderr(monkeypatch, _Terminal())
    barred = call()
    assert desc in out.getvalue()
    assert repr(barred) == repr(plain)          # bit-identical (repr of floats/arrays)
    np.testing.assert_array_equal(np.asarray(barred, dtype=float), np.asarray(plain, dtype=float))


def test_no_bar_off_a_terminal(monkeypatch, always):
    out = _stderr(monkeypatch, _Pipe())
    statpriv.counting(None, _per_record())
    statpriv.counting(1000, 0.5).delta(np.linspace(0, 1, 9000))
    assert out.getvalue() == ""


def test_no_bar_below_the_thresholds(monkeypatch):
    # default thresholds: tiny calls neither show a bar nor build one
    out = _stderr(monkeypatch, _Terminal())
    statpriv.counting(None, _per_record())
    statpriv.counting(1000, 0.5).delta(np.linspace(0, 1, 9000))
    assert out.getvalue() == ""
    with _progress.bar(10, "x", seconds=0.5) as bar:
        assert bar is None                      # below SECONDS: no callback at all


def test_show_forces_the_bar_on_and_off(monkeypatch):
    out = _stderr(monkeypatch, _Pipe())
    with _progress.bar(3, "forced", show=True) as bar:
        bar.update(3)
    assert "forced" in out.getvalue()
    with _progress.bar(3, "never", show=False, seconds=1e9) as bar:
        assert bar is None


def test_projection_waits_for_delay_and_cost(monkeypatch):
    monkeypatch.setattr(_progress, "DELAY", 0.0)
    monkeypatch.setattr(_progress, "SECONDS", 1e9)     # projected far below: never shown
    out = _stderr(monkeypatch, _Terminal())
    with _progress.bar(100, "cheap") as bar:
        for _ in range(100):
            bar.update()
        assert bar.tqdm is None
    assert out.getvalue() == ""


def test_chunks_cover_the_range_and_report_each_piece():
    class Bar:
        done = 0

        def update(self, n):
            self.done += n

    bar = Bar()
    pieces = list(_progress.chunks(10, 4, bar))
    assert pieces == [(0, 4), (4, 8), (8, 10)] and bar.done == 10
    assert list(_progress.chunks(0, 4, None)) == []


def test_empirical_gaussian_rows_in_chunks(monkeypatch):
    pd = import_extra("pandas")
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"id": rng.integers(0, 40, 400), "db": rng.integers(0, 12, 400),
                       "value": rng.normal(size=400)})
    ep = statpriv.empirical.EmpiricalPrivacy(df, "mean", estimator="kde-gauss",
                                             bandwidth="silverman")
    plain = ep.deltas(0.1).to_numpy()
    from statpriv.empirical import _estimators
    monkeypatch.setattr(_estimators, "GAUSS_ROWS", 7)
    _always(monkeypatch)
    out = _stderr(monkeypatch, _Terminal())
    again = statpriv.empirical.EmpiricalPrivacy(df, "mean", estimator="kde-gauss",
                                                bandwidth="silverman").deltas(0.1).to_numpy()
    assert "Gaussian-kernel deltas" in out.getvalue()
    np.testing.assert_array_equal(again, plain)


def test_callable_leave_one_out_bar(monkeypatch, always):
    pd = import_extra("pandas")
    df = pd.DataFrame({"id": [0, 1, 2, 0, 1, 2], "db": [0, 0, 0, 1, 1, 1],
                       "value": [1.0, 2.0, 4.0, 3.0, 5.0, 6.0]})
    out = _stderr(monkeypatch, _Terminal())
    statpriv.empirical.EmpiricalPrivacy(df, np.median, bandwidth=0.5)
    assert "leave-one-out" in out.getvalue()
    out = _stderr(monkeypatch, _Terminal())
    statpriv.empirical.EmpiricalPrivacy(df, np.median, bandwidth=0.5, progress=False)
    assert out.getvalue() == ""


@pytest.mark.parametrize("call", [
    lambda: statpriv.counting(None, _per_record()),                     # the C callback
    lambda: statpriv.partial_knowledge(3000, 0.1).worst_case.delta(0.3),  # between C calls
])
def test_keyboard_interrupt_from_the_bar_propagates(monkeypatch, always, call):
    def stop(self, n=1):
        raise KeyboardInterrupt

    monkeypatch.setattr(_progress._Bar, "update", stop)
    with pytest.raises(KeyboardInterrupt):
        call()
    monkeypatch.undo()
    call()                                       # nothing left behind: works again


def test_vertex_search_resumes_from_no_open_range():
    # log_epsilon resumes from the ranges an over-budget search left open:
    # none at all must mean "nothing flagged", not a failed concatenate
    core = vertices.vertex_core(5000, 0.1)
    empty = np.empty(0)
    found = vertices._branch_and_bound(core, 5000, 0.3, 80.0, lambda L: -10.0, -np.inf, 0,
                                        attaining=False, start=(empty, empty))
    assert found[0] == -np.inf and found[3].size == 0
