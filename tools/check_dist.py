"""Check statpriv's source distribution the way a user of a package index meets it.

    python tools/check_dist.py [--sdist FILE] [--keep]

1. Builds the source distribution (``python -m build --sdist``, in an isolated
   build environment) -- or takes ``--sdist FILE`` -- and checks its file
   list: every source the repository tracks in statpriv/, csrc/, tests/
   (with tests/data), tools/, docs/ and bench/, and the top-level files, is
   in it; no Cython-generated C, no compiled object, no build output.
2. Builds the wheel from the sdist alone with pip (isolated, as ``pip install
   statpriv`` from an index would) in a fresh virtual environment, and checks
   it: a platform wheel (not py3-none-any), every extension of a .pyx in the
   sdist, the C API headers and sources in statpriv/include, no .pyx and no
   generated C, at most WHEEL_LIMIT bytes.
3. Installs it with its test extra and checks the installed package,
   from a directory outside the source tree: its version and license
   metadata, ``counting(1000, 0.5).delta(0.1)`` against the value
   docs/c_api.md quotes and an mpmath sum from the definition, a Gaussian DP
   curve and a composition of Gaussians against the closed form, the command
   line, and the C API (tests/c_api/count_curve.c compiled against
   ``statpriv.get_include()`` alone).
4. Runs TESTS, a few test files of the sdist, against the installed package
   (from a copy of the unpacked sdist without its statpriv/ directory, so
   only the installed package can be imported).

Prints each check and the time of each step; exit status 1 on any failure.
Needs network access to the package index (the isolated builds) and a C
compiler.  --keep leaves the temporary directory (the sdist, the wheel, the
venv) and prints its path.  .ci/run runs this after the test suite.
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from functools import partial

# each line as it happens (CI logs; the subprocesses' output is captured)
print = partial(print, flush=True)  # noqa: A001
ROOT = pathlib.Path(__file__).resolve().parents[1]
WHEEL_LIMIT = 3_000_000
# the test files run against the installed package (with the test extra, as
# the README's test command installs it): the C API and the layout it ships,
# every docstring example of every module, imports, the counting curves, and
# the fuzz corpus replayed through tools/fuzz_curves.py (from the sdist)
TESTS = ["tests/test_c_api.py", "tests/test_doctests.py", "tests/test_import.py",
         "tests/test_counting.py", "tests/test_fuzz_corpus.py"]
# the tracked files the sdist must carry: these directories and top-level files
SDIST_DIRS = ("statpriv/", "csrc/", "tests/", "tools/", "docs/", "bench/")
SDIST_FILES = ("README.md", "LICENSE", "CHANGELOG.md", "CITATION.cff", "pyproject.toml",
               "setup.py", "MANIFEST.in")

failures = []


def check(condition, what, detail=""):
    """Print one check's outcome; a failure is remembered for the exit status."""
    print(("ok    " if condition else "FAIL  ") + what + (f": {detail}" if detail and not condition else ""))
    if not condition:
        failures.append(what)
    return condition


def run(command, what, **kwargs):
    """Run a command, print its time; its output only when it fails (then the
    whole check stops: later steps need its result)."""
    start = time.monotonic()
    done = subprocess.run([str(c) for c in command], capture_output=True, text=True, **kwargs)
    print(f"      {what}: {time.monotonic() - start:.0f} s")
    if done.returncode != 0:
        print(done.stdout[-5000:], done.stderr[-5000:], sep="\n")
        check(False, what, f"exit status {done.returncode}")
        raise SystemExit(1)
    return done.stdout


def tracked_files():
    """The repository's tracked files that belong in the sdist (git), or None
    outside a git checkout."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                                text=True, check=True).stdout.split("\0")
    except (OSError, subprocess.CalledProcessError):
        return None
    return {p for p in listed
            if p and (p.startswith(SDIST_DIRS) or p in SDIST_FILES) and (ROOT / p).exists()}


def check_sdist(sdist):
    """The sdist's members (paths below its top directory)."""
    with tarfile.open(sdist) as tar:
        names = [m.name.split("/", 1)[1] for m in tar.getmembers()
                 if m.isfile() and "/" in m.name]
    members = set(names)
    print(f"      sdist {sdist.name}: {len(members)} files, {sdist.stat().st_size / 1e6:.2f} MB")
    tracked = tracked_files()
    if tracked is None:
        print("      (not a git checkout: the sdist is checked against its required kinds only)")
    else:
        missing = sorted(tracked - members)
        check(not missing, f"the sdist carries all {len(tracked)} tracked sources, tests, "
                           "test data, tools and docs", f"missing {missing[:20]}")
    for pattern, what in ((r"statpriv/.*\.pyx$", "Cython sources"), (r"statpriv/.*\.pxd$", "Cython declarations"),
                          (r"csrc/.*\.c$", "C kernels"), (r"csrc/statpriv\.h$", "csrc/statpriv.h"),
                          (r"csrc/xprec\.h$", "csrc/xprec.h"), (r"tests/data/.+", "test data"),
                          (r"tools/fuzz_curves\.py$", "the tools the tests run")):
        check(any(re.match(pattern, m) for m in members), f"the sdist has {what}")
    generated = sorted(m for m in members if re.match(r"statpriv/.*\.c$", m)
                       or re.search(r"\.(so|o|a|pyc)$", m) or m.startswith(("build/", "statpriv/include/")))
    check(not generated, "the sdist has no generated C, compiled object or build output",
          str(generated[:20]))
    return members


def check_wheel(wheel, members):
    """The wheel pip built from the sdist."""
    size = wheel.stat().st_size
    print(f"      wheel {wheel.name}: {size / 1e6:.2f} MB")
    check(not wheel.name.endswith("-none-any.whl") and re.search(r"-cp\d+-cp\d+\w*-\w+\.whl$", wheel.name),
          "a platform wheel (cpXY-cpXY-<platform>), not pure Python", wheel.name)
    check(size <= WHEEL_LIMIT, f"the wheel is at most {WHEEL_LIMIT / 1e6:.0f} MB", f"{size} bytes")
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        wheel_meta = next((z.read(n).decode() for n in names if n.endswith(".dist-info/WHEEL")), "")
    check("Root-Is-Purelib: false" in wheel_meta, "WHEEL says Root-Is-Purelib: false")
    for pyx in sorted(m for m in members if m.endswith(".pyx")):
        stem = pyx[:-len(".pyx")]
        check(any(n.startswith(stem + ".") and n.endswith(".so") for n in names),
              f"the wheel has the extension of {pyx}")
    csrc = sorted("statpriv/include/" + m.split("/", 1)[1] for m in members
                  if re.match(r"csrc/[^/]+\.[ch]$", m))
    check(set(csrc) <= set(names), f"the wheel ships the C API: {len(csrc)} headers and sources "
                                   "in statpriv/include", str(sorted(set(csrc) - set(names))[:10]))
    check({"statpriv/_csrc.pxd", "statpriv/_core.pxd"} <= set(names), "the wheel ships the .pxd files")
    stray = sorted(n for n in names if n.endswith(".pyx")
                   or (n.endswith(".c") and not n.startswith("statpriv/include/")))
    check(not stray, "the wheel has no .pyx and no Cython-generated C", str(stray))


# run by the fresh environment's python, from a directory outside the source
# tree: argv[1] is the checks' JSON input
SMOKE = r'''
import importlib.metadata, json, math, os, subprocess, sys, sysconfig
import mpmath
import statpriv
given = json.loads(sys.argv[1])
results = []
def check(ok, what, detail=""):
    results.append([bool(ok), what, str(detail)])
    return ok

package = os.path.dirname(statpriv.__file__)
check(package.startswith(sysconfig.get_paths()["purelib"]) or package.startswith(sysconfig.get_paths()["platlib"]),
      "statpriv is imported from the environment's site-packages", package)
meta = importlib.metadata.metadata("statpriv")
check(meta["Version"] == statpriv.__version__, "the metadata's version is statpriv.__version__",
      (meta["Version"], statpriv.__version__))
check(meta["License-Expression"] == "BSD-3-Clause", "License-Expression: BSD-3-Clause",
      meta["License-Expression"])

# counting(1000, 0.5): docs/c_api.md's numbers, and delta from the definition
# (others' count K ~ Bin(999, 1/2); P: K + 1, Q: K), summed in mpmath
curve = statpriv.counting(1000, 0.5)
d = curve.delta(0.1)
check(abs(d - 1.6192050965e-03) <= 1e-13, "counting(1000, 0.5).delta(0.1) = 1.6192050965e-03", d)
check(abs(curve.epsilon(1e-3) - 0.1128158312) <= 1e-10, "counting(1000, 0.5).epsilon(1e-3) = 0.1128158312",
      curve.epsilon(1e-3))
mpmath.mp.dps = 50
n, e = 999, mpmath.exp(mpmath.mpf("0.1"))
def hockey(p, q):
    return sum(max(p(k) - e * q(k), 0) for k in range(n + 2)) / mpmath.mpf(2) ** n
plus = lambda k: mpmath.binomial(n, k - 1) if k >= 1 else 0
minus = lambda k: mpmath.binomial(n, k) if k <= n else 0
exact = max(hockey(plus, minus), hockey(minus, plus))
check(abs(d - exact) <= 1e-12 * exact, "counting(1000, 0.5).delta(0.1) = the mpmath sum from the definition",
      (d, exact))

# the Gaussian mechanism (sensitivity 1): Phi(1/(2s) - e s) - e^e Phi(-1/(2s) - e s)
def gaussian_delta(sigma, eps):
    phi = lambda x: mpmath.ncdf(x)
    return phi(1 / (2 * sigma) - eps * sigma) - mpmath.exp(eps) * phi(-1 / (2 * sigma) - eps * sigma)
for sigma, eps in ((2.0, 0.5), (1.0, 1.0)):
    got, want = statpriv.dp.gaussian(sigma).delta(eps), gaussian_delta(sigma, eps)
    check(abs(got - want) <= 1e-10 * want, f"dp.gaussian({sigma}).delta({eps}) = the closed form", (got, want))
# four Gaussians of sigma 4 compose to one of sigma 2: inside the certified bracket
low, high = statpriv.compose(statpriv.dp.gaussian(4.0), times=4).delta_bounds(0.5)
want = gaussian_delta(2.0, 0.5)
check(low <= want <= high and high - low < 1e-5 * want,
      "compose(dp.gaussian(4), times=4).delta_bounds(0.5) brackets dp.gaussian(2)'s closed form",
      (low, float(want), high))

# the command line
out = subprocess.run([given["statpriv"], "delta", "--n", "1000", "--pi", "0.5", "--eps", "0.1"],
                     capture_output=True, text=True)
check(out.returncode == 0 and abs(json.loads(out.stdout)["delta"] - d) <= 1e-15,
      "statpriv delta --n 1000 --pi 0.5 --eps 0.1 (the installed command)", out.stdout + out.stderr)

# the C API from the installed headers and sources alone
include = statpriv.get_include()
check(include.startswith(package) and os.path.exists(os.path.join(include, "statpriv.h")),
      "statpriv.get_include() is the installed statpriv/include", include)
exe = os.path.join(given["work"], "count_curve")
kernels = sorted(os.path.join(include, f) for f in os.listdir(include) if f.endswith(".c"))
built = subprocess.run([given["cc"], "-O0", "-std=c99", "-fno-fast-math", "-I", include,
                        given["c_program"], *kernels, "-lm", "-o", exe], capture_output=True, text=True)
if check(built.returncode == 0, "tests/c_api/count_curve.c builds against get_include() alone", built.stderr):
    out = subprocess.run([exe, "1000.0", "0.5", "0.001", "0.1"], capture_output=True, text=True).stdout.split()
    c_log_delta = float.fromhex(out[out.index("delta") + 4])     # delta eps plus minus max
    check(c_log_delta == curve.log_delta(0.1), "the C program's ln delta(0.1) is the Python one",
          (c_log_delta, curve.log_delta(0.1)))
print(json.dumps(results))
'''


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sdist", type=pathlib.Path, help="check this sdist instead of building one")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args()
    cc = next((shutil.which(c) for c in (os.environ.get("CC"), "cc", "gcc") if c and shutil.which(c)), None)
    if cc is None:
        print("check_dist: no C compiler ($CC, cc, gcc)")
        return 1
    work = pathlib.Path(tempfile.mkdtemp(prefix="statpriv-check-dist-"))
    start = time.monotonic()
    try:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "STATPRIV_SANITIZE")}
        venv = work / "venv"
        run([sys.executable, "-m", "venv", venv], "a fresh virtual environment")
        python, bindir = venv / "bin" / "python", venv / "bin"
        run([python, "-m", "pip", "install", "--quiet", "--upgrade", "pip", "build"],
            "pip and build in it", env=env)

        print("== the source distribution")
        if args.sdist:
            sdist = args.sdist.resolve()
        else:
            run([python, "-m", "build", "--sdist", "--outdir", work / "dist", ROOT],
                "python -m build --sdist (isolated)", env=env)
            sdist, = (work / "dist").glob("statpriv-*.tar.gz")
        members = check_sdist(sdist)

        print("== the wheel pip builds from it")
        run([python, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", work / "wheels", sdist],
            "pip wheel <sdist> (isolated build, compiles the extensions)", env=env, cwd=work)
        wheel, = (work / "wheels").glob("statpriv-*.whl")
        check_wheel(wheel, members)

        print("== the installed package")
        run([python, "-m", "pip", "install", "--quiet", f"{wheel}[test]"],
            "pip install <wheel>[test]", env=env, cwd=work)
        given = {"statpriv": str(bindir / "statpriv"), "cc": cc, "work": str(work)}
        with tarfile.open(sdist) as tar:
            # the "data" filter where this Python has it (3.12, backported to 3.9.17+)
            safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
            tar.extractall(work / "unpacked", **safe)
        unpacked, = (work / "unpacked").iterdir()
        given["c_program"] = str(unpacked / "tests" / "c_api" / "count_curve.c")
        (work / "neutral").mkdir()
        out = run([python, "-c", SMOKE, json.dumps(given)], "the smoke checks", env=env, cwd=work / "neutral")
        for ok, what, detail in json.loads(out.splitlines()[-1]):
            check(ok, what, detail)

        print("== tests of the sdist against the installed package")
        shutil.rmtree(unpacked / "statpriv")       # only the installed statpriv can be imported
        done = subprocess.run([bindir / "pytest", "-q", "-p", "no:cacheprovider", *TESTS],
                              cwd=unpacked, env=env, capture_output=True, text=True)
        summary = (done.stdout.strip().splitlines() or [""])[-1]
        print(f"      pytest {' '.join(TESTS)}: {summary}")
        if not check(done.returncode == 0, "the tests pass against the installed package", summary):
            print(done.stdout[-8000:], done.stderr[-3000:], sep="\n")
    finally:
        if args.keep:
            print(f"check_dist: kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"check_dist: {'FAILED: ' + '; '.join(failures) if failures else 'all checks passed'} "
          f"({time.monotonic() - start:.0f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
