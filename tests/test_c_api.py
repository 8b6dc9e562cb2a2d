"""The C API: a C program (tests/c_api/count_curve.c) computes a counting curve
through csrc/statpriv.h alone, built with the system C compiler from csrc/*.c
(no Python headers, no extension module), and must match the Python curve bit
for bit.  No C compiler is a failure, not a skip: CI always has one."""
import glob
import os
import pathlib
import shutil
import subprocess

import pytest

import statpriv
from helpers import zip_equal

ROOT = pathlib.Path(__file__).resolve().parents[1]
SOURCE = ROOT / "tests" / "c_api" / "count_curve.c"
# the flags setup.py compiles the kernels with (the C semantics that matter
# for bit-identical results: ISO C99, no fast-math); -O0 only builds faster
FLAGS = ["-O0", "-std=c99", "-fno-fast-math", "-Wall", "-Wextra", "-Werror"]
CASES = [(1000, 0.5, 1e-3, [0.0, 0.05, 0.1128158312, 0.5, -0.2]),
         (10 ** 6, 0.3, 1e-9, [0.0, 0.001, 0.01, 0.02, 3.0]),
         (7, 0.9, 0.2, [0.0, 0.3, 1.0, 2.0, 10.0, float("inf")])]


def _compiler():
    for name in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if name and shutil.which(name):
            return shutil.which(name)
    pytest.fail("no C compiler found (tried $CC, cc, gcc, clang): the C API test needs one "
                "to build tests/c_api/count_curve.c against csrc/statpriv.h")


@pytest.fixture(scope="module")
def count_curve(tmp_path_factory):
    exe = tmp_path_factory.mktemp("c_api") / "count_curve"
    cmd = [_compiler(), *FLAGS, "-I", str(ROOT / "csrc"), str(SOURCE),
           *sorted(glob.glob(str(ROOT / "csrc" / "*.c"))), "-lm", "-o", str(exe)]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=exe.parent)
    assert done.returncode == 0, f"building the C API program failed:\n{' '.join(cmd)}\n{done.stderr}"
    return exe


def _run(exe, n, pi, target, eps):
    out = subprocess.run([str(exe), repr(float(n)), repr(pi), repr(target), *map(repr, eps)],
                         capture_output=True, text=True, check=True).stdout.split("\n")
    rows = [line.split() for line in out if line]
    deltas = [[float.fromhex(v) for v in row[1:]] for row in rows if row[0] == "delta"]
    (_, t, e), = [row for row in rows if row[0] == "epsilon"]
    return deltas, float.fromhex(t), float.fromhex(e)


@pytest.mark.parametrize("n, pi, target, eps", CASES)
def test_c_program_matches_python_bit_for_bit(count_curve, n, pi, target, eps):
    deltas, t, eps_c = _run(count_curve, n, pi, target, eps)
    curve = statpriv.counting(n, pi)
    assert t == target
    for (e, plus, minus, both), e_py in zip_equal(deltas, eps):
        assert e == e_py
        assert plus == curve.log_delta_plus(e_py)
        assert minus == curve.log_delta_minus(e_py)
        assert both == curve.log_delta(e_py)
    assert eps_c == curve.epsilon(target)


def test_c_program_rejects_bad_arguments(count_curve):
    done = subprocess.run([str(count_curve), "10", "1.5", "0.1"], capture_output=True, text=True)
    assert done.returncode == 2 and "bad arguments" in done.stderr


def test_installed_layout_ships_the_c_api():
    """get_include() holds statpriv.h and every kernel's header and source
    (setup.py's build_py copies csrc/ to statpriv/include; in a source
    checkout it is csrc/ itself), and the Cython declarations are package
    data beside the package."""
    inc = pathlib.Path(statpriv.get_include())
    names = {p.name for p in inc.iterdir()}
    for path in (ROOT / "csrc").iterdir():
        if path.suffix in (".h", ".c"):
            assert path.name in names
    assert (pathlib.Path(statpriv.__file__).parent / "_csrc.pxd").exists()
    assert "*.pxd" in (ROOT / "pyproject.toml").read_text()
