"""``import statpriv`` stays cheap: heavy modules load on first use."""
import os
import pathlib
import subprocess
import sys

import statpriv
from statpriv import _core, curve

HEAVY = ("statpriv._core", "scipy", "mpmath", "matplotlib", "tqdm", "pandas",
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


def test_first_use_loads_the_core(tmp_path):
    code = ("import sys, statpriv; c = statpriv.counting(100, 0.3); "
            "print(round(c.delta(0.1), 6), 'statpriv._core' in sys.modules)")
    out = _run(code, tmp_path).split()
    assert out[1] == "True"
    assert float(out[0]) == round(statpriv.counting(100, 0.3).delta(0.1), 6)
