"""Precompute the mpmath oracle values the default test run compares against.

Runs the whole test suite (exhaustive tests included) with
STATPRIV_RECORD_ORACLE=1, so every call of tests/helpers.py's ``oracle(...)``
evaluates statpriv.reference live at 50 digits and tests/data/oracle_values.json
is rewritten with the values (plus how they were made).  Run it after adding
a test that uses ``oracle(...)``:

    python tools/precompute_oracle.py [extra pytest args]

With --keep, the stored values are kept and the values the selected tests ask
for are added (a quick update after adding one test file):

    python tools/precompute_oracle.py --keep tests/test_new.py

The exhaustive test ``test_stored_oracle_values_are_current`` recomputes every
stored value live and checks it agrees.
"""
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def main(argv):
    if {"-h", "--help"} & set(argv):
        print(__doc__)
        return 0
    keep = "--keep" in argv
    argv = [a for a in argv if a != "--keep"]
    store = ROOT / "tests" / "data" / "oracle_values.json"
    backup = store.with_suffix(".json.bak")
    if keep:
        env = dict(os.environ, STATPRIV_RECORD_ORACLE="1")
        return subprocess.call([sys.executable, "-m", "pytest", "-q", "-m", "", "-p",
                                "no:cacheprovider", *argv], cwd=ROOT, env=env)
    if store.exists():
        store.replace(backup)    # only values some test still asks for are kept
    env = dict(os.environ, STATPRIV_RECORD_ORACLE="1")
    cmd = [sys.executable, "-m", "pytest", "-q", "-m", "", "-p", "no:cacheprovider",
           *argv]
    status = subprocess.call(cmd, cwd=ROOT, env=env)
    if not store.exists() and backup.exists():
        backup.replace(store)    # the run wrote nothing: keep the old values
    elif backup.exists():
        backup.unlink()
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
