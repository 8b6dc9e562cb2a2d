"""The C kernels compile warning-free under -Wall -Wextra -Wconversion -Wshadow
(tools/check_c_warnings.py, which explains why the build itself cannot use the
strict flags).  No gcc is a failure, not a skip: CI always has one."""
import pathlib
import subprocess
import sys

TOOL = pathlib.Path(__file__).resolve().parents[1] / "tools" / "check_c_warnings.py"


def test_kernels_compile_without_warnings_under_strict_flags():
    done = subprocess.run([sys.executable, str(TOOL)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert " files clean" in done.stdout
