"""Check that the C kernels compile without a single warning under the strict flags.

    python tools/check_c_warnings.py

Compiles every csrc/*.c, and every csrc/*.h on its own (each header must be
self-contained), with ``gcc -fsyntax-only -std=c99 -Wall -Wextra -Wconversion
-Wshadow -Werror -Icsrc``; exit status 1 with the compiler's messages on any
warning.  setup.py builds the extensions with -Wall -Wextra only, because one
extension is the Cython-generated C plus the kernels and setuptools has no
per-source flags: Cython's output is full of implicit integer narrowings that
-Wconversion reports.  The kernels are held to the stricter bar here instead
(tests/test_c_warnings.py runs this): an implicit conversion in a kernel is
written as an explicit cast, so every narrowing is visibly intended.
"""
import glob
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSRC = os.path.join(ROOT, "csrc")
FLAGS = ["-fsyntax-only", "-std=c99", "-Wall", "-Wextra", "-Wconversion", "-Wshadow", "-Werror"]


def compile_commands(compiler):
    """One command per source file and per header (a header compiled as C)."""
    commands = [[compiler, *FLAGS, "-I", CSRC, path]
                for path in sorted(glob.glob(os.path.join(CSRC, "*.c")))]
    commands += [[compiler, *FLAGS, "-I", CSRC, "-x", "c", path]
                 for path in sorted(glob.glob(os.path.join(CSRC, "*.h")))]
    return commands


def main():
    # gcc by name: the check is defined by GCC's warning sets (other
    # compilers group different diagnostics under -Wconversion)
    compiler = shutil.which("gcc")
    if compiler is None:
        print("check_c_warnings: gcc not found (the strict warning check needs it)")
        return 1
    commands = compile_commands(compiler)
    failures = 0
    for command in commands:
        done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
        if done.returncode != 0 or done.stderr.strip():
            failures += 1
            print(" ".join(command))
            print(done.stderr)
    print(f"check_c_warnings: {len(commands) - failures} of {len(commands)} files clean")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
