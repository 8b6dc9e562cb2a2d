"""pytest hooks and fixtures.  The helpers themselves (assert_matches, the
stored oracle, check_curve, published reference values) live in tests/helpers.py.

Which statpriv is tested: ``python -m pytest`` puts the working directory
first on sys.path, so from the checkout root the source tree shadows an
installed statpriv -- and without an in-place build every test that reaches
the compiled core failed (``No module named statpriv._core``).  Before any
test module imports statpriv, a source tree without its compiled core that
is on sys.path only as the working directory (not asked for in PYTHONPATH)
is taken off, so that the installed package is tested, as ``pytest`` does;
with no compiled statpriv to test, the run stops at once with one line
saying what to run instead."""
import importlib.machinery
import importlib.util
import os
import sys

import mpmath
import pytest
from hypothesis import settings

import helpers


def _compiled(spec):
    """spec is a statpriv package with its compiled core beside it."""
    here = spec.submodule_search_locations[0]
    return any(os.path.exists(os.path.join(here, "_core" + suffix))
               for suffix in importlib.machinery.EXTENSION_SUFFIXES)


def _compiled_statpriv_problem():
    """None once the statpriv to be imported is compiled (the source tree
    that shadowed it taken off sys.path), else what is wrong, in one line."""
    spec = importlib.util.find_spec("statpriv")
    if spec is not None and _compiled(spec):
        return None
    if spec is None:
        return "statpriv is not importable"
    root = os.path.realpath(os.path.dirname(spec.submodule_search_locations[0]))
    asked = {os.path.realpath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
    if root not in asked:
        sys.path[:] = [p for p in sys.path if os.path.realpath(p or os.curdir) != root]
        importlib.invalidate_caches()
        installed = importlib.util.find_spec("statpriv")
        if installed is not None and _compiled(installed):
            return None
    return f"statpriv in {root} has no compiled extensions"


_STATPRIV_PROBLEM = _compiled_statpriv_problem()


def pytest_configure(config):
    markexpr = config.getoption("markexpr", "") or ""
    if "not exhaustive" not in markexpr and config.getoption("maxschedchunk", 0) is None:
        # the exhaustive run: pytest-xdist hands each worker its tests two at a
        # time, in the order collected (the tests of minutes first, below);
        # its default deals each worker a quarter of its share in one chunk, and
        # the tests of minutes all to the first worker
        config.option.maxschedchunk = 2
    if _STATPRIV_PROBLEM:
        raise pytest.UsageError(
            f"{_STATPRIV_PROBLEM}: run `python setup.py build_ext --inplace` and "
            "`PYTHONPATH=<checkout> pytest`, or `pip install \".[test]\"` and `pytest`")


# CI (CI=true) runs the property tests on hypothesis' derandomized examples so
# that a gate is reproducible; local runs draw fresh examples every time.
settings.register_profile("ci", derandomize=True, deadline=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


def pytest_collection_modifyitems(config, items):
    # the tests of minutes (marker "first") go ahead of the rest: handed out
    # two at a time (pytest_configure), they start on whichever worker is free
    # and the short tests fill in around them, where collected last one worker
    # would still run one while the other idles
    items.sort(key=lambda item: item.get_closest_marker("first") is None)


@pytest.fixture
def matches():
    return helpers.assert_matches


@pytest.fixture(autouse=True)
def _restore_mpmath_precision():
    # A test that sets mpmath.mp.dps (test_search, test_cost) must not change the
    # precision later tests run at: the points the differential test derives from
    # stored zero points (and so the stored values it finds) would depend on the order.
    prec = mpmath.mp.prec
    yield
    mpmath.mp.prec = prec


def pytest_sessionfinish(session, exitstatus):
    helpers.write_recorded_families()
    worker_output = getattr(session.config, "workeroutput", None)
    if worker_output is not None:
        # a pytest-xdist worker: its live-computed values go to the
        # controller, which reports them (the workers print no summary)
        worker_output["statpriv_misses"] = helpers.take_misses()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    helpers.add_misses(getattr(node, "workeroutput", {}).get("statpriv_misses", []))


def pytest_terminal_summary(terminalreporter):
    helpers.report_misses(terminalreporter.write_line)
