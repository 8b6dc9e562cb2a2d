"""``import statpriv`` stays cheap: heavy modules load on first use; the old
paths of moved modules are the same module objects."""
import importlib
import os
import pathlib
import subprocess
import sys

import pytest

import statpriv
from statpriv import _core, curve

# (statpriv._core is not heavy: PrivacyCurve's compiled base, no scipy; the
# kernels that load scipy.special are the noise room's)
HEAVY = ("statpriv.noise._kernels", "scipy", "mpmath", "matplotlib", "tqdm", "pandas",
         "statpriv.reference")


def _run(code, tmp_path):
    """``python -c code`` importing the same statpriv as this test run (the
    installed one in CI, the in-place build otherwise), from a neutral cwd."""
    root = str(pathlib.Path(statpriv.__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [root] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=tmp_path, env=env).stdout


def test_import_loads_no_heavy_module(tmp_path):
    code = ("import sys, statpriv, statpriv.utility, statpriv.interval, statpriv.conjecture, "
            "statpriv.figures, statpriv.discrete; "
            f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    out = _run(code, tmp_path).strip()
    assert out == "[]", f"import statpriv loaded {out}"


def test_spelled_out_directions_match_the_core():
    assert curve._DIRECTIONS == {"plus": _core.PLUS, "minus": _core.MINUS, "max": _core.MAX}


def test_first_use_loads_the_kernels(tmp_path):
    code = ("import sys, statpriv; c = statpriv.counting(100, 0.3, noise=statpriv.Laplace(2.0)); "
            "print(round(c.delta(0.1), 6), 'statpriv.noise._kernels' in sys.modules)")
    out = _run(code, tmp_path).split()
    assert out[1] == "True"
    assert float(out[0]) == round(statpriv.counting(100, 0.3, noise=statpriv.Laplace(2.0))
                                  .delta(0.1), 6)


# Old module paths of moved modules -> their homes: the same module objects.
ALIASES = {
    "statpriv.utility": "statpriv.analysis.utility",
    "statpriv.interval": "statpriv.analysis.interval",
    "statpriv.conjecture": "statpriv.analysis.conjecture",
    "statpriv.figures": "statpriv.papers.figures",
    "statpriv.demo": "statpriv.papers.demo",
    "statpriv.k_anonymity": "statpriv.thresholding.k_anonymity",
}


@pytest.mark.parametrize("old, home", sorted(ALIASES.items()))
def test_old_module_path_is_the_same_module(old, home):
    assert importlib.import_module(old) is importlib.import_module(home)
    assert sys.modules[old] is sys.modules[home]


def test_old_paths_import_in_a_fresh_interpreter(tmp_path):
    """``import statpriv.k_anonymity`` and ``from statpriv.k_anonymity import
    k_anonymity`` as the first statements, before anything else of statpriv."""
    code = ("import statpriv.k_anonymity\n"
            "from statpriv.k_anonymity import k_anonymity, MAX_CELL_TERMS\n"
            "import sys, statpriv.thresholding.k_anonymity as home\n"
            "print(sys.modules['statpriv.k_anonymity'] is home, k_anonymity is home.k_anonymity,"
            " k_anonymity is statpriv.k_anonymity, MAX_CELL_TERMS == home.MAX_CELL_TERMS)")
    assert _run(code, tmp_path).split() == ["True"] * 4


def test_stand_in_answers_dunders_without_importing(tmp_path):
    """Introspection of a stand-in (inspect.unwrap asks for __wrapped__, as
    doctest and pydoc do) leaves the module unimported; a real attribute
    imports it."""
    code = ("import inspect, sys\nfrom statpriv import _lazy\n"
            "m = _lazy.module('statpriv.reference')\n"
            "inspect.unwrap(m)\n"
            "print('statpriv.reference' in sys.modules, hasattr(m, '__wrapped__'))\n"
            "m.counting_delta\n"
            "print('statpriv.reference' in sys.modules)")
    assert _run(code, tmp_path).split() == ["False", "False", "True"]
