#!/usr/bin/env bash
# Build statpriv with AddressSanitizer + UndefinedBehaviorSanitizer in a
# temporary virtual environment and run the default test suite under it.
#
#     bash tools/sanitize_tests.sh [pytest arguments]
#
# STATPRIV_SANITIZE (default address,undefined) picks the sanitizers (setup.py).
# The build is made from a copy of the working tree (tracked and untracked,
# not ignored, files), so neither the tree's build/ directory nor an in-place
# build is reused or overwritten: a sanitized extension needs libasan
# preloaded and must never end up in an ordinary install.
#
# Every report fails the run: UBSan reports are fatal (setup.py), ASan stops at
# its first, and both sanitizers write their reports to files in a directory
# that must stay empty -- that also catches a report in a subprocess (the CLI
# tests) whose exit status a test might not look at.  Leak detection is off:
# CPython and numpy keep allocations alive until exit by design (interned
# strings, type caches, module state), so LeakSanitizer's end-of-process report
# lists those, and a suppression by library would also hide statpriv's own
# (every stack runs through the interpreter).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

sanitize="${STATPRIV_SANITIZE:-address,undefined}"
cc="${CC:-gcc}"
libasan="$("$cc" -print-file-name=libasan.so)"
if [[ "$sanitize" == *address* && ! -e "$libasan" ]]; then
    echo "sanitize_tests: $cc has no libasan.so (got '$libasan')" >&2
    exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir "$work/src" "$work/reports"
git ls-files -z --cached --others --exclude-standard \
    | while IFS= read -r -d '' path; do if [[ -e "$path" ]]; then printf '%s\0' "$path"; fi; done \
    | tar -C "$root" --null -T - -cf - | tar -C "$work/src" -xf -

start=$SECONDS
python3 -m venv "$work/venv"
# shellcheck disable=SC1091
source "$work/venv/bin/activate"
python -m pip install --quiet --upgrade "pip>=23"
STATPRIV_SANITIZE="$sanitize" python -m pip install --quiet "$work/src[test]"
echo "sanitize_tests: sanitized build ($sanitize) installed in $((SECONDS - start)) s"

unset PYTHONPATH
# the installed package, not the copied sources, and built with the sanitizers
(cd "$work" && python - "$sanitize") <<'EOF'
import glob, importlib.util, os, subprocess, sys
# found, not imported: importing statpriv loads its compiled extensions, which
# need the ASan runtime preloaded (this check runs without it)
package = os.path.dirname(importlib.util.find_spec("statpriv").origin)
assert "site-packages" in package, package
for so in glob.glob(os.path.join(package, "**", "*.so"), recursive=True):
    symbols = subprocess.run(["nm", "-D", so], capture_output=True, text=True, check=True).stdout
    for name, marker in (("address", "__asan_"), ("undefined", "__ubsan_")):
        assert name not in sys.argv[1] or marker in symbols, f"{so} is not built with {name}"
EOF

cd "$work/src"
preload=(env)
if [[ "$sanitize" == *address* ]]; then
    # libstdc++ too: ASan intercepts __cxa_throw and must find the real one at
    # start-up; loaded only later (by matplotlib's C++ extensions), the first
    # C++ exception stops the process with "CHECK failed: real___cxa_throw"
    preload=(env "LD_PRELOAD=$libasan $("$cc" -print-file-name=libstdc++.so.6)")
fi
start=$SECONDS
status=0
# PYTHONMALLOC=malloc: every Python object comes from malloc too, so ASan
# checks the extension's object handling, not only its C buffers.
# ARROW_DEFAULT_MEMORY_POOL=system, OMP_NUM_THREADS=1: pyarrow on malloc and
# one thread -- its jemalloc pool and column thread pool under the ASan
# runtime once hung the Dask shuffle tests (a pandas-to-arrow conversion
# thread blocked for good, every worker idle)
"${preload[@]}" \
    PYTHONMALLOC=malloc \
    ARROW_DEFAULT_MEMORY_POOL=system \
    OMP_NUM_THREADS=1 \
    ASAN_OPTIONS="detect_leaks=0:log_path=$work/reports/asan" \
    UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$work/reports/ubsan" \
    pytest -q -p no:cacheprovider "$@" || status=$?
echo "sanitize_tests: test run took $((SECONDS - start)) s (exit status $status)"

if compgen -G "$work/reports/*" > /dev/null; then
    for report in "$work/reports"/*; do
        echo "=== sanitizer report $(basename "$report")"
        cat "$report"
    done
    echo "sanitize_tests: sanitizer reports found" >&2
    exit 1
fi
exit "$status"
