"""Shared test helpers (the one helper module of the suite; no test file imports
another test file).  Test files do ``from helpers import ...``; tests/conftest.py
holds only pytest hooks and fixtures built on this module.  The mpmath
computations the tests compare against live in tests/independent_oracle.py.

Comparisons against the mpmath oracle.  An oracle value r (an mpmath.mpf,
r = delta) is matched by a float-path ln delta value `ours` when
  - r = 0 and ours = -inf, or
  - delta is representable (ln r > -700): |delta/r - 1| <= rel, and
  - always: ours >= ln r + ln(1 - rel) (conservative: never below by more than
    rel, or than 8 ulps of ln r where a float64 log cannot resolve rel),
  - ln r <= -700 (delta underflows or nearly): |ours - ln r| <= log_abs.

Stored reference values: ``oracle(name, ...)`` reads the value of one slow
reference computation from tests/data/reference/<family>.json (the families in
REFERENCE_FAMILIES below, written by tools/precompute_reference.py) and
computes a missing one live (reported at the end of the run).
"""
import importlib
import json
import math
import os
import pathlib
from typing import NamedTuple

import mpmath
import pytest

REL = 1e-12
LOG_ABS = 1e-10

def assert_matches(ours_log, ref, *, rel=REL, log_abs=LOG_ABS, what=""):
    ref = mpmath.mpf(ref)
    if ref == 0:
        assert ours_log == -math.inf, f"{what}: oracle says delta = 0, got ln delta = {ours_log}"
        return
    ref_log = mpmath.log(ref)
    assert ours_log > -math.inf, f"{what}: got delta = 0, oracle ln delta = {ref_log}"
    diff = float(mpmath.mpf(ours_log) - ref_log)
    if ref_log > -700:
        rel_err = math.expm1(diff)
        assert abs(rel_err) <= rel, f"{what}: relative error {rel_err:.3e} (oracle {ref})"
    else:
        assert abs(diff) <= log_abs, f"{what}: ln delta off by {diff:.3e} (oracle ln {ref_log})"
    # Below the oracle by at most rel, or by a few ulps of ln delta where a
    # float64 logarithm cannot resolve rel (|ln delta| > ~4000).
    slack = max(-math.log1p(-rel), 8 * math.ulp(float(abs(ref_log))))
    assert diff >= -slack, f"{what}: below the oracle by {-diff:.3e} relative"



def zip_equal(*sequences):
    """zip(*sequences) after asserting they have one length (a short or empty
    result must not pass a comparison by leaving values out)."""
    sequences = [list(s) for s in sequences]
    lengths = [len(s) for s in sequences]
    assert len(set(lengths)) <= 1, f"sequences of different lengths {lengths}"
    return zip(*sequences)



def optional_extra(name):
    """The optional dependency ``name`` (an extra of statpriv's test install,
    pyproject.toml), or None where it is missing -- except under CI (the CI
    variable set), where ``pip install .[test]`` installed it and a missing
    one is an ImportError, not a skipped test."""
    try:
        return importlib.import_module(name)
    except ImportError:
        if os.environ.get("CI"):
            raise
        return None


def import_extra(name):
    """optional_extra(name), the calling test (or module) skipped where it is
    missing outside CI."""
    module = optional_extra(name)
    if module is None:
        pytest.skip(f"{name} (an optional extra of statpriv's test install) is not installed",
                    allow_module_level=True)
    return module


# ---------------------------------------------------------------------------
# Stored reference values.  The mpmath references take seconds to minutes per
# curve; the default run reads their values from tests/data/reference/<family>.json.
# Every file: {"how", "mpmath", "dps", "values": {key: {"call": [name, repr(args),
# repr(kwargs)], "value": decimal string or list of them}}}, the key
# oracle_key(name, args, kwargs) of the call.  A value missing from its file is
# computed live (correct, only slower) and reported at the end of the run;
# tools/precompute_reference.py writes the files (with STATPRIV_RECORD_REFERENCE
# set, the families named there are recorded from what the run asks for), and
# the exhaustive test of tests/test_reference_store.py recomputes every value.
REFERENCE_DIR = pathlib.Path(__file__).parent / "data" / "reference"


class Family(NamedTuple):
    """One file of stored reference values."""
    how: str                # what computes them (written into the file)
    dps: int                # mpmath precision the calls run at
    agree: str              # relative agreement required of a recomputed value
    functions: dict         # function name -> "module:attribute"
    tests: tuple = ()       # the test files that ask for them (() = the whole suite)
    generate: str = None    # or "module:function" yielding the calls (name, args, kwargs)
    agree_abs: str = None   # or an absolute difference that also agrees (probabilities
    #                         whose 50-digit sums leave a residue ~1e-99 where delta is 0)


def _names(module, *names):
    return {name: f"{module}:{name}" for name in names}


REFERENCE_FAMILIES = {
    "reference": Family(
        "statpriv.oracle (mpmath brute force from the definitions) at 50 digits",
        50, "1e-45", _names("statpriv.oracle", "counting_delta", "noisy_counting_delta",
                            "secret_sample_delta", "dp_laplace_delta", "dp_gaussian_delta",
                            "dp_geometric_delta", "normal_approx_delta",
                            "dp_sampled_delta")),
    "independent": Family(
        "tests/independent_oracle.py (mpmath from the definitions, no statpriv code) "
        "at 50 digits", 50, "1e-45",
        _names("independent_oracle", "counting_log_delta", "windowed_delta_plus",
               "poisson_tail_log_delta", "secret_sample_log_delta_plus",
               "sampled_gaussian_log_delta", "independent_deltas", "sampled_dp_log_delta",
               "sampled_geometric_product_delta", "sampled_gaussian_product_delta",
               "laplace_shift_delta_plus")),
    "differential": Family(
        "tests/differential.py stored_truth: the independent oracle's answer for one "
        "case of the differential test (deltas at eps, or the zero point and the float "
        "above it; nan where the oracle refuses), 50 digits",
        50, "1e-45", {"differential_truth": "differential:stored_truth"},
        ("tests/test_differential.py",)),
    "thresholding": Family(
        "statpriv.oracle.thresholded_delta / k_anonymity_delta (every output enumerated "
        "from the definition), 50 digits", 50, "1e-35",
        _names("statpriv.oracle", "thresholded_delta", "k_anonymity_delta"),
        ("tests/test_thresholding.py", "tests/test_k_anonymity.py"), agree_abs="1e-35"),
    "correlated": Family(
        "statpriv.oracle.correlated_counts_delta (every multinomial outcome of the other "
        "records' answer vectors enumerated), 50 digits", 50, "1e-45",
        _names("statpriv.oracle", "correlated_counts_delta"),
        ("tests/test_correlated_counts.py",), agree_abs="1e-45"),
    "shuffle": Family(
        "statpriv.oracle.clones_delta (the clone reduction of shuffled eps0-LDP reports, "
        "every atom) at 50 digits", 50, "1e-45", _names("statpriv.oracle", "clones_delta"),
        ("tests/test_shuffle.py",), agree_abs="1e-45"),
    "empirical": Family(
        "statpriv.oracle.kde_hockey_stick (mpmath quadrature of two kernel density "
        "estimates from the definition) at 30 digits", 30, "1e-20",
        _names("statpriv.oracle", "kde_hockey_stick"),
        generate="precompute_reference:empirical_calls"),
}
FAMILY_OF = {name: family for family, f in REFERENCE_FAMILIES.items() for name in f.functions}


def _recording():
    """The families this run records (STATPRIV_RECORD_REFERENCE="a,b" or "all")."""
    names = os.environ.get("STATPRIV_RECORD_REFERENCE", "")
    if names == "all":
        return set(REFERENCE_FAMILIES)
    return {n for n in names.split(",") if n}


_RECORDING = _recording()
_KEEP = os.environ.get("STATPRIV_RECORD_KEEP") == "1"
_STORES = {}
_VERSIONS = {}           # family -> the mpmath version of its stored values
_MISSES = []             # (family, key) computed live, not recorded
_COMPUTED = set()        # families with values computed in this run


def family_file(family):
    return REFERENCE_DIR / f"{family}.json"


def _store(family):
    """The stored values of one family ({} for a family recorded afresh)."""
    if family not in _STORES:
        path = family_file(family)
        fresh = family in _RECORDING and not _KEEP
        payload = json.loads(path.read_text()) if path.exists() and not fresh else {}
        _STORES[family] = payload.get("values", {})
        _VERSIONS[family] = payload.get("mpmath")
    return _STORES[family]


def oracle_key(name, args, kwargs):
    """The key of one stored call: floats by repr (exact round trip)."""
    return f"{name}{tuple(args)!r}{sorted(kwargs.items())!r}"


def reference_function(name):
    """The function whose values are stored under ``name``."""
    module, attribute = REFERENCE_FAMILIES[FAMILY_OF[name]].functions[name].split(":")
    return getattr(importlib.import_module(module), attribute)


def compute_text(name, args, kwargs):
    """reference_function(name)(*args, **kwargs) at its family's precision, in
    the stored form: a decimal string, or a list of them."""
    with mpmath.workdps(REFERENCE_FAMILIES[FAMILY_OF[name]].dps):
        value = reference_function(name)(*args, **kwargs)
        return [str(v) for v in value] if isinstance(value, (list, tuple)) else str(value)


def oracle(name, *args, **kwargs):
    """reference_function(name)(*args, **kwargs) as mpf values (a list when the
    call returns several), from its family's file or computed live."""
    family = FAMILY_OF[name]
    store, key = _store(family), oracle_key(name, args, kwargs)
    if key in store:
        return stored_value(store[key]["value"])
    text = compute_text(name, args, kwargs)
    _COMPUTED.add(family)
    if family not in _RECORDING:
        _MISSES.append((family, key))
    store[key] = {"call": [name, repr(tuple(args)), repr(dict(kwargs))], "value": text}
    return stored_value(text)


def stored_value(text):
    """mpf (or list of mpf) from the stored decimal strings (at 50 digits)."""
    with mpmath.workdps(50):
        return [mpmath.mpf(v) for v in text] if isinstance(text, list) else mpmath.mpf(text)


def parse_call(call):
    """(name, args, kwargs) of a stored call."""
    namespace = {"inf": math.inf, "nan": math.nan, "__builtins__": {}}
    name, args, kwargs = call
    return name, eval(args, namespace), eval(kwargs, namespace)


def stored_calls(family):
    """(key, name, args, kwargs, stored text) of every stored value of a family."""
    for key, entry in _store(family).items():
        yield (key, *parse_call(entry["call"]), entry["value"])


def write_family(family, values, mpmath_version=None):
    """Write one family's file (values: key -> {"call", "value"}; mpmath_version:
    the version that computed them, by default the one running)."""
    f = REFERENCE_FAMILIES[family]
    REFERENCE_DIR.mkdir(parents=True, exist_ok=True)
    payload = {"how": f.how + "; keys name(args)[sorted kwargs] with floats by repr, "
                              "written by tools/precompute_reference.py",
               "mpmath": mpmath_version or mpmath.__version__, "dps": f.dps,
               "values": dict(sorted(values.items()))}
    family_file(family).write_text(json.dumps(payload, indent=0) + "\n")


def write_recorded_families():
    """At the end of a run with STATPRIV_RECORD_REFERENCE: write the recorded
    families (every value the run asked for, plus the stored ones with
    STATPRIV_RECORD_KEEP=1)."""
    for family in sorted(_RECORDING & set(_STORES)):
        write_family(family, _STORES[family],
                     None if family in _COMPUTED else _VERSIONS[family])


def take_misses():
    """This process's (family, key) pairs computed live, as lists, cleared."""
    misses = [list(m) for m in _MISSES]
    _MISSES.clear()
    return misses


def add_misses(misses):
    """Add the pairs another process computed live (a pytest-xdist worker's)."""
    _MISSES.extend(tuple(m) for m in misses)


def report_misses(write_line):
    if _MISSES:
        families = sorted({f for f, _ in _MISSES})
        write_line(f"{len(_MISSES)} reference values were computed live (not stored: "
                   f"{', '.join(families)}); run tools/precompute_reference.py --keep "
                   f"--family NAME to store them")
        for family, key in _MISSES[:20]:
            write_line(f"  {family}: {key[:160]}")


# ---------------------------------------------------------------------------
# Float path against the oracle, direction by direction.
EPS = [0.0, 1e-4, 0.01, 0.1, 1.0, 5.0, -0.5]
NOISY_REL = 1e-10      # the bar for the noise paths
NOISY_EPS = [0.0, 0.01, 0.1, 1.0, 5.0, -0.3]


def check_curve(curve, spec, eps=EPS, label=""):
    """Compare every direction of ``curve`` with the oracle call ``spec`` =
    (reference function name, its positional args before eps, its kwargs)."""
    name, args, kwargs = spec
    plus = oracle(name, *args, list(eps), direction="plus", **kwargs)
    minus = oracle(name, *args, list(eps), direction="minus", **kwargs)
    ours_plus = curve.log_delta_plus(eps)
    ours_minus = curve.log_delta_minus(eps)
    ours_max = curve.log_delta(eps)
    for e, op, om, ox, p, m in zip_equal(eps, ours_plus, ours_minus, ours_max, plus, minus):
        what = f"{label} eps={e}"
        assert_matches(op, p, what=what + " plus")
        assert_matches(om, m, what=what + " minus")
        assert_matches(ox, max(p, m), what=what + " max")


def check_against_reference(curve, n, pi, noise, eps=NOISY_EPS, **kwargs):
    spec = (noise.kind, noise.param)
    for direction, ours in (("plus", curve.log_delta_plus(eps)),
                            ("minus", curve.log_delta_minus(eps))):
        ref = oracle("noisy_counting_delta", n, pi, list(eps), spec, direction=direction,
                     **kwargs)
        for e, o, r in zip_equal(eps, ours, ref):
            assert_matches(o, r, rel=NOISY_REL, what=f"n={n} pi={pi} {noise} eps={e} {direction}")


# ---------------------------------------------------------------------------
# Published reference values, each written once (docs/mathematics.md §3, §6).
# delta(eps) of the noiseless iid count counting(n, pi) (pi the binary float),
# 20 significant digits, from a 50-digit brute force (Breutigam & Reischuk,
# "Statistical Privacy", pure statistical privacy): (n, pi, eps, delta).
STATISTICAL_PRIVACY_VALUES = [
    (1000, 0.5, 0.01, "0.02065555306422242041"),
    (1000, 0.1, 0.01, "0.037526706067839093489"),
    (100, 0.5, 0.01, "0.075364038978937394363"),
    (1000, 0.5, 0.5, "3.6855698469109621793e-17"),
    (2000, 0.5, 1.0, "3.0741764275012817247e-101"),
]
# ln delta(0.05) of counting(n, 0.3) in the far tail: (n, ln delta), 20 digits.
FAR_TAIL_LOG_DELTA = [(10 ** 6, "-272.22876404680295545"),
                      (10 ** 7, "-2606.3055921879885945")]
# The Gaussian mechanism at eps = 0.01 with noise level nu = sigma in count
# units (Breutigam & Reischuk §5): (sigma, delta).
DP_GAUSSIAN_AT_0_01 = [(1.0, "0.379841760124599"), (3.0, "0.128067047707446")]


# Near-zero-point queries of the noise tests (test_noise_*.py).
def near_zero_point(eps0):
    """eps0 (1 - 10^-k), k = 6, 9, 12, and the float just below eps0."""
    below = float(eps0)
    while below >= eps0:
        below = math.nextafter(below, 0.0)
    return [float(eps0 * (1 - mpmath.mpf(10) ** -k)) for k in (6, 9, 12)] + [below]

