"""Write the reference values the default test run compares against.

    python tools/precompute_reference.py [--family NAME]... [--keep] [pytest args]

The values live in tests/data/reference/<family>.json, one layout for every
family: {"how", "mpmath", "dps", "values": {key: {"call": [name, repr(args),
repr(kwargs)], "value": decimal string or list of them[, "interval": ...]}}}, the key
name(args)[sorted kwargs] of the call (floats by repr), so a test that asks
tests/helpers.py's ``oracle(name, *args, **kwargs)`` finds its value by the key
alone.  The families are registered in one table, tests/helpers.py's
REFERENCE_FAMILIES (what computes them, at which precision, which tests ask
for them); today:

    reference     statpriv.oracle's brute forces (counting, noise, secret sample, DP)
    independent   tests/independent_oracle.py's computations from the definitions
    differential  the independent oracle's answers for tests/differential.py's cases
    thresholding  statpriv.oracle.thresholded_delta / k_anonymity_delta
    shuffle       statpriv.oracle.clones_delta
    empirical     statpriv.oracle.kde_hockey_stick (the calls of empirical_calls below)

Each family named with --family (default: every family) is rewritten:

- a family with a generator (empirical): every call it yields is computed;
- the others are recorded from the tests that ask for them (the family's
  test files, or the whole suite with the exhaustive tests when it lists
  none, or the pytest args given here), run with STATPRIV_RECORD_REFERENCE:
  every value the run asks for is computed live and the file keeps exactly
  those (values no test asks for any more are dropped).

A call whose curve has certified Arb intervals (tests/helpers.py's
CERTIFIED_CALLS) also stores "interval": per value [form, lower, upper], the
ends as decimal strings rounded outward from Arb (form "delta", or "ln" for
ln delta where delta < 1e-300), kept only where the radius is below 1e-25
relative and the mpmath value lies inside (a cross-check of two independent
oracles; a disagreement is listed and fails the run).

--keep keeps the stored values and adds the missing ones (a quick update after
adding a test: ``--keep --family reference tests/test_new.py``).  --intervals
keeps every stored value and rewrites the intervals beside them (after a
change to the Arb sums, or to add them to values stored without).  The
exhaustive test of tests/test_reference_store.py recomputes every stored
value and checks it agrees; the default run reports the values it had to
compute live.
"""
import argparse
import importlib
import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

import helpers  # noqa: E402  (tests/helpers.py: the table and the store)


def empirical_calls():
    """The kde_hockey_stick calls of the empirical family: pairs of point sets
    with their kernel widths (fixed, tied, variable, nearly equal sets) and a
    few eps each, down to just below the zero point of a Laplace pair."""
    import numpy as np
    rng = np.random.default_rng(20261123)

    def calls(kernel, a, wa, b, wb, eps_list):
        for eps in eps_list:
            yield ("kde_hockey_stick", (a.tolist(), wa.tolist(), b.tolist(), wb.tolist(),
                                        float(eps), kernel), {})

    a = np.sort(rng.normal(size=8))
    b = np.sort(a + rng.normal(scale=0.3, size=8))
    for kernel in ("laplace", "gauss"):
        yield from calls(kernel, a, np.full(8, 0.4), b, np.full(8, 0.4), [0.0, 0.1, 0.5])
    # ties: half of the points unchanged; a negative eps
    a = np.sort(rng.normal(size=10))
    b = a.copy()
    b[::2] += rng.normal(scale=0.2, size=5)
    b = np.sort(b)
    for kernel in ("laplace", "gauss"):
        yield from calls(kernel, a, np.full(10, 0.25), b, np.full(10, 0.25), [-0.2, 0.3, 1.0])
    # variable widths (Breiman-Meisel-Purcell style), one per point
    a = np.sort(rng.standard_t(3, size=8))
    b = np.sort(a + rng.normal(scale=0.1, size=8))
    wa = 0.2 + 0.3 * rng.random(8)
    wb = 0.2 + 0.3 * rng.random(8)
    for kernel in ("gauss", "laplace"):
        yield from calls(kernel, a, wa, b, wb, [0.05, 0.3])
    # small deltas: a narrow kernel, large eps
    a = np.sort(rng.normal(size=8))
    b = np.sort(a + 0.02 * rng.normal(size=8))
    yield from calls("laplace", a, np.full(8, 0.3), b, np.full(8, 0.3), [0.2, 0.4])
    yield from calls("gauss", a, np.full(8, 0.5), b, np.full(8, 0.5), [0.1, 0.2])
    # near the zero point of a Laplace pair (the largest log ratio, on a grid)
    xs = np.linspace(-6.0, 6.0, 120001)
    log_p = np.log(np.mean(np.exp(-np.abs(xs[:, None] - a) / 0.3), axis=1))
    log_q = np.log(np.mean(np.exp(-np.abs(xs[:, None] - b) / 0.3), axis=1))
    top = float(np.max(log_p - log_q))
    yield from calls("laplace", a, np.full(8, 0.3), b, np.full(8, 0.3),
                     [top * (1 - 1e-4), top * (1 - 1e-6)])


def generate(family, keep):
    """Compute every call of a family with a generator and write its file."""
    module, function = helpers.REFERENCE_FAMILIES[family].generate.split(":")
    source = globals()[function] if module == "precompute_reference" else \
        getattr(importlib.import_module(module), function)
    path = helpers.family_file(family)
    stored = json.loads(path.read_text()) if keep and path.exists() else {"values": {}}
    old = stored["values"]
    values = {}
    for name, args, kwargs in source():
        key = helpers.oracle_key(name, args, kwargs)
        if key not in old:
            print(f"{family}: {key[:100]}", flush=True)
        values[key] = old[key] if key in old else helpers.stored_entry(
            name, args, kwargs, helpers.compute_text(name, args, kwargs))
    computed = set(values) - set(old)
    helpers.write_family(family, {**old, **values},
                         None if computed else stored.get("mpmath"))


def intervals(families):
    """Rewrite the intervals beside every stored value of the families (the
    values kept), print what is covered; 1 on a disagreement, else 0."""
    import mpmath
    for family in families:
        stored = json.loads(helpers.family_file(family).read_text())
        values, covered, total, widest = {}, 0, 0, mpmath.mpf(0)
        for key, name, args, kwargs, text in helpers.stored_calls(family):
            values[key] = entry = helpers.stored_entry(name, args, kwargs, text)
            total += 1
            found = entry.get("interval")
            if found is not None:
                covered += 1
                for interval in [found] if isinstance(found[0], str) else found:
                    widest = max(widest, helpers.interval_radius(interval)) if interval else widest
        helpers.write_family(family, values, stored.get("mpmath"))
        print(f"{family}: {covered} of {total} calls with intervals; largest radius "
              f"{mpmath.nstr(widest, 3)} (relative; ln: over max(1, |ln delta|))", flush=True)
    for disagreement in helpers.DISAGREEMENTS:
        print("DISAGREEMENT (key, value index, form, lower, upper, mpmath):", disagreement)
    return 1 if helpers.DISAGREEMENTS else 0


def record(families, keep, pytest_args):
    """Run the tests that ask for the families with recording on."""
    paths = []
    for family in families:
        paths += helpers.REFERENCE_FAMILIES[family].tests or ["tests"]
    if pytest_args:
        paths = []
    elif "tests" in paths:
        paths = ["tests"]
    env = dict(os.environ, STATPRIV_RECORD_REFERENCE=",".join(families),
               STATPRIV_RECORD_KEEP="1" if keep else "0")
    # in one process (-n 0): each family's store is gathered in memory and
    # written once at the end of the run
    cmd = [sys.executable, "-m", "pytest", "-q", "-m", "", "-n", "0", "-p", "no:cacheprovider",
           # the store's own checks read the files being rewritten
           "--deselect", "tests/test_reference_store.py", *sorted(set(paths)), *pytest_args]
    return subprocess.call(cmd, cwd=ROOT, env=env)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--family", action="append", choices=sorted(helpers.REFERENCE_FAMILIES),
                        help="a family to rewrite (repeatable; default: every family)")
    parser.add_argument("--keep", action="store_true",
                        help="keep the stored values, add the missing ones")
    parser.add_argument("--intervals", action="store_true",
                        help="keep the stored values, rewrite the certified intervals beside them")
    args, pytest_args = parser.parse_known_args(argv)
    families = args.family or sorted(helpers.REFERENCE_FAMILIES)
    if args.intervals:
        return intervals(families)
    generated = [f for f in families if helpers.REFERENCE_FAMILIES[f].generate]
    recorded = [f for f in families if f not in generated]
    for family in generated:
        generate(family, args.keep)
    return record(recorded, args.keep, pytest_args) if recorded else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
