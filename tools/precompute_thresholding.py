"""Precompute the mpmath oracle values of tests/test_thresholding.py.

    python tools/precompute_thresholding.py

Writes tests/data/thresholding_oracle.json: for every case below, the
oracle's delta_plus and delta_minus (statpriv.oracle.thresholded_delta /
k_anonymity_delta, 50 digits) on the eps grid.  The exhaustive test
``test_stored_values_are_current`` recomputes a slice of them live.
"""
import json
import pathlib
import sys

import mpmath

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from statpriv import oracle  # noqa: E402

STORE = ROOT / "tests" / "data" / "thresholding_oracle.json"
EPS = [-0.5, 0.0, 0.05, 0.3, 1.0, 3.0]
# per-record probabilities of 24 other records (0 and 1 included: they move the count)
PROBS = [0.31, 0.0, 0.82, 0.15, 1.0, 0.47, 0.05, 0.66, 0.23, 0.9, 0.0, 0.38, 0.71, 0.12, 1.0,
         0.55, 0.27, 0.08, 0.93, 0.44, 0.61, 0.19, 0.35, 0.5]

# Bin(2999, 1/2), 3000 atoms (beyond the 2048 the refinements once stopped at):
# eps0 = ln F(1397)/F(1396) (the b = 1 bottom cell, 0.14435417353874910...),
# the floats around it and eps0 (1 - 1e-9); delta_minus there is ~1e-21
# and needs the log ratio to ~1e-35.
NEAR_ZERO = [0.0, 0.14435417339439494, 0.14435417353874908, 0.1443541735387491,
             0.14435417353874913]

# (name, kind, args, kwargs, eps grid)
CASES = [
    ("iid known=8", "thresholded", (40, 0.2, 10), {"known": 8}, EPS),
    ("iid known=0", "thresholded", (200, 0.01, 6), {}, EPS),
    ("tiny pi", "thresholded", (60, 1e-5, 3), {"known": 10}, EPS),
    ("per-record", "thresholded", (None, PROBS, 9), {"known": 6}, EPS),
    ("example 7", "thresholded", (1000, 1e-7, 100), {"known": 100}, [0.0, 1.0, 10.0]),
    ("3000 atoms near eps0", "thresholded", (3001, 0.5, 1400), {"known": 1}, NEAR_ZERO),
    ("k-anonymity a", "k_anonymity", (30, [0.2, 0.3, 0.1], 3, 0, 1), {}, EPS),
    ("k-anonymity b", "k_anonymity", (25, [0.1, 0.05], 4, 1, 0), {}, EPS),
    ("k-anonymity c", "k_anonymity", (40, [0.02, 0.03, 0.5], 3, 0, 1), {}, EPS),
    ("k-anonymity d", "k_anonymity", (20, [0.5, 0.5], 3, 0, 1), {}, EPS),
]
VARIANTS = {"thresholded": ("attacker", ("passive", "active")),
            "k_anonymity": ("bound", ("lower", "upper"))}


def compute(kind, args, kwargs, variant, eps, direction):
    """The oracle's values (mpf list) for one case, variant and direction."""
    key = VARIANTS[kind][0]
    kw = dict(kwargs, **{key: variant}, direction=direction, max_terms=1e8)
    if kind == "thresholded":
        return oracle.thresholded_delta(*args, eps, **kw)
    return oracle.k_anonymity_delta(*args, eps, **kw)


def main():
    out = {"how": "statpriv.oracle (mpmath, 50 digits), written by "
                  "tools/precompute_thresholding.py", "mpmath": mpmath.__version__, "cases": []}
    for name, kind, args, kwargs, eps in CASES:
        for variant in VARIANTS[kind][1]:
            values = {d: [mpmath.nstr(v, 40) for v in compute(kind, args, kwargs, variant, eps, d)]
                      for d in ("plus", "minus")}
            out["cases"].append({"name": name, "kind": kind, "args": list(args),
                                 "kwargs": kwargs, "variant": variant, "eps": eps,
                                 "values": values})
            print(name, variant, flush=True)
    STORE.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
