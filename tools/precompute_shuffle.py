"""Precompute the mpmath oracle values of tests/test_shuffle.py.

    python tools/precompute_shuffle.py

Evaluates statpriv.oracle.clones_delta (the clone reduction of shuffled
eps0-LDP reports, every atom at 50 digits) on the CASES below and writes
tests/data/shuffle_oracle.json.  The exhaustive test
test_stored_values_are_current recomputes them live.
"""
import json
import sys
import pathlib

import mpmath

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

ROOT = pathlib.Path(__file__).resolve().parents[1]
STORE = ROOT / "tests" / "data" / "shuffle_oracle.json"
EPS = [0.0, 1e-3, 0.05, 0.2, 0.5, -0.1, -1.0]
CASES = [(120, 1.0), (300, 0.5), (250, 3.0), (60, 8.0)]


def compute(n, eps0, eps=EPS):
    from statpriv.oracle.shuffle import clones_delta
    return [str(v) for v in clones_delta(n, eps0, list(eps), direction="plus")]


def main():
    values = []
    with mpmath.workdps(50):
        for n, eps0 in CASES:
            values.append({"n": n, "eps0": eps0, "eps": EPS, "delta": compute(n, eps0)})
            print(n, eps0, values[-1]["delta"][:3])
    STORE.write_text(json.dumps({"how": "statpriv.oracle.clones_delta at 50 digits "
                                        "(tools/precompute_shuffle.py)",
                                 "mpmath": mpmath.__version__, "values": values}, indent=1) + "\n")


if __name__ == "__main__":
    main()
