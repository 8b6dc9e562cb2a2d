"""pytest hooks and fixtures.  The helpers themselves (assert_matches, the
stored oracle, check_curve, published reference values) live in tests/helpers.py."""
import os

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


def pytest_sessionfinish(session, exitstatus):
    helpers.write_store_if_recording()


def pytest_terminal_summary(terminalreporter):
    helpers.report_misses(terminalreporter.write_line)
