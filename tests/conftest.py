"""pytest hooks and fixtures.  The helpers themselves (assert_matches, the
stored oracle, check_curve, published reference values) live in tests/helpers.py."""
import os

import mpmath
import pytest
from hypothesis import settings

import helpers

# CI (CI=true) runs the property tests on hypothesis' derandomized examples so
# that a gate is reproducible; local runs draw fresh examples every time.
settings.register_profile("ci", derandomize=True, deadline=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


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


def pytest_terminal_summary(terminalreporter):
    helpers.report_misses(terminalreporter.write_line)
