"""The examples in statpriv's docstrings run as tests (doctest).

Collected from the INSTALLED package (``import statpriv``), not the source
tree: ``pytest --doctest-modules statpriv`` would put the repository root on
sys.path and import the uncompiled sources in a non-inplace build (CI).
Every module of the package is walked (``__main__`` excluded: importing it
runs the command line; the alias modules of earlier names such as ``statpriv.utility`` are
the same module objects as their new homes and are skipped).  The expected
outputs in the docstrings were checked against mpmath (50 digits) from the
definitions when they were written.
"""
import doctest
import importlib
import os
import pkgutil

import pytest

import statpriv


def _docstring_tests():
    found = []
    finder = doctest.DocTestFinder()
    for info in pkgutil.walk_packages(statpriv.__path__, "statpriv."):
        if info.name.rpartition(".")[2] == "__main__":
            continue
        module = importlib.import_module(info.name)
        if module.__name__ != info.name:          # an alias of a moved module
            continue
        for test in finder.find(module):
            if test.examples:
                found.append(test)
    for test in finder.find(statpriv):
        if test.examples and test.name == "statpriv":
            found.append(test)                   # the package docstring
    return sorted(found, key=lambda t: t.name)


TESTS = _docstring_tests()


def test_some_docstrings_have_examples():
    names = {t.name for t in TESTS}
    for want in ("statpriv.counting.counting", "statpriv.counting.secret_sample.secret_sample",
                 "statpriv.discrete.from_log_pmfs", "statpriv.dp.laplace",
                 "statpriv.curve._queries.CurveQueries.delta",
                 "statpriv.curve._queries.CurveQueries.epsilon"):
        assert want in names


@pytest.mark.parametrize("test", TESTS, ids=[t.name for t in TESTS])
def test_docstring_examples(test):
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report = []
    runner.run(test, out=report.append, clear_globs=True)
    assert runner.failures == 0, "".join(report)


LANDING_PAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "docs", "index.md")


def test_landing_page_examples():
    """The two-minute tour of the documentation's landing page runs as shown."""
    failures, tried = doctest.testfile(
        LANDING_PAGE, module_relative=False, report=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert tried > 10 and failures == 0
