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
computes a missing one live (reported at the end of the run);
``certified(name, ...)`` reads the certified Arb intervals stored beside the
values of the calls whose curves have them (CERTIFIED_CALLS), and
``assert_within_certified`` checks a float-path value against one.
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
    recompute: dict = None  # function name -> keyword arguments of the exhaustive
    #                         recomputation (the same rule in a faster arithmetic)


def _names(module, *names):
    return {name: f"{module}:{name}" for name in names}


REFERENCE_FAMILIES = {
    "reference": Family(
        "statpriv.oracle (mpmath brute force from the definitions) at 50 digits",
        50, "1e-45", _names("statpriv.oracle", "counting_delta", "noisy_counting_delta",
                            "secret_sample_delta", "dp_laplace_delta", "dp_gaussian_delta",
                            "dp_geometric_delta", "normal_approx_delta",
                            "dp_sampled_delta")),
    # agree 1e-43: sampled_gaussian_product_delta works at 45 digits and its
    # 24-node rule is itself 1.6e-45 (relative) off the converged quadrature
    # (48 and 64 nodes at 70 and 80 digits agree to 50 digits): a reordered
    # sum moves it by ~1e-45; the values are read at 1e-40 at most (the
    # certified intervals' mp_rel)
    "independent": Family(
        "tests/independent_oracle.py (mpmath from the definitions, no statpriv code) "
        "at 50 digits", 50, "1e-43",
        _names("independent_oracle", "counting_log_delta", "windowed_delta_plus",
               "poisson_tail_log_delta", "secret_sample_log_delta_plus",
               "sampled_gaussian_log_delta", "independent_deltas", "sampled_dp_log_delta",
               "sampled_geometric_product_delta", "sampled_gaussian_product_delta",
               "laplace_shift_delta_plus"),
        # the nested quadrature recomputed on Arb numbers (the same rule, ~10
        # times faster, equal to ~1e-44: three runs take 10 minutes in mpmath)
        recompute={"sampled_gaussian_product_delta": {"arithmetic": "arb"}}),
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


# ---------------------------------------------------------------------------
# Certified intervals beside the stored values.  A stored call whose curve has
# Arb laws (curve.delta_interval; docs/precision.md, "Certified intervals")
# also stores, per value, "interval": [form, lower, upper], decimal strings
# rounded outward from the Arb ends (form "delta", or "ln" for ln delta where
# delta < TINY or where the call's value is itself ln delta); null where the
# Arb sum is refused or too wide.  An interval is stored only if its radius is
# below INTERVAL_RADIUS (relative; absolute times max(1, |ln delta|) for "ln")
# and it holds the stored mpmath value to that value's own accuracy (mp_rel,
# mp_abs below): two independent oracles agreeing.  A call whose interval
# misses its mpmath value is stored without one and listed in DISAGREEMENTS.
INTERVAL_DIGITS = 40
INTERVAL_RADIUS = "1e-25"
TINY = "1e-300"


class CertifiedCall(NamedTuple):
    """How a reference call maps to a public curve with certified intervals."""
    curve: object           # (*args, **kwargs) of the call -> (curve, eps, direction) or None
    log_value: bool = False  # the call's value is ln delta
    mp_rel: str = "1e-40"   # the mpmath value's accuracy, relative
    mp_abs: str = "0"       # and absolute (quadrature residues where delta = 0)


def _count(n, pi, noise=None, **sampling):
    """statpriv.counting of an oracle call's (n, pi): a list pi is the n - 1 others'."""
    import statpriv
    if isinstance(pi, (list, tuple)):
        if n != len(pi) + 1:
            return None
        n = None
    return statpriv.counting(n, pi, noise=noise, **sampling)


def _noise(spec):
    import statpriv
    kind, param = spec
    return {"laplace": statpriv.Laplace, "gaussian": statpriv.Gaussian,
            "geometric": statpriv.Geometric}[kind](param)


def _counting_call(n, pi, eps, *, direction="max", dps=None, max_terms=None, **sampling):
    return _count(n, pi, **sampling), eps, direction


def _noisy_counting_call(n, pi, eps, noise, *, direction="max", dps=None, max_terms=None,
                         **sampling):
    return _count(n, pi, noise=_noise(noise), **sampling), eps, direction


def _secret_sample_call(n, m, K, eps, direction="max", dps=None, max_terms=None):
    import statpriv
    return statpriv.secret_sample(n, m, K), eps, direction


def _dp_call(kind):
    def call(param, eps, dps=None, *, direction="max"):
        import statpriv
        return getattr(statpriv.dp, kind)(param), eps, direction
    return call


def _dp_sampled_call(kind, param, q, eps, dps=None, *, relation="add_remove", sensitivity=1,
                     direction="max"):
    import statpriv
    curve = getattr(statpriv.dp, kind)(param, sensitivity, sampling_prob=q, relation=relation)
    return curve, eps, direction


def _thresholded_call(n, pi, threshold, eps, *, known=0, attacker="passive", direction="max",
                      dps=None, max_terms=None):
    import statpriv
    return statpriv.thresholded(n, pi, threshold, known=known, attacker=attacker), eps, direction


def _counting_log_call(n, pi, eps, direction):
    return _count(n, pi), eps, direction


def _poisson_tail_call(N, pi, g, eps, direction):
    return _count(N + 1, pi, sample_rate=g, sampling="poisson"), eps, direction


def _sampled_gaussian_call(sampling, n, pi, size, sigma, eps, plus):
    how = ({"sample_rate": size, "sampling": "poisson"} if sampling == "poisson"
           else {"sample_size": size})
    return _count(n, pi, noise=_noise(("gaussian", sigma)), **how), eps, _plus(plus)


def _sampled_dp_log_call(kind, param, q, relation, eps, plus, sensitivity=1):
    curve = _dp_sampled_call(kind, param, q, eps, relation=relation,
                             sensitivity=sensitivity)[0]
    return curve, eps, _plus(plus)


def _secret_sample_plus_call(n, m, K, eps):
    return _secret_sample_call(n, m, K, eps, "plus")


def _windowed_plus_call(n, pi, eps):
    return _count(n, pi), eps, "plus"


def _plus(plus):
    return "plus" if plus else "minus"


# the accuracies of the mpmath values: tests/test_certified.py's bars for the
# stored noisy quadratures and sums (1e-25 relative, 1e-60 absolute), the
# sampled-DP mixture quadratures (1e-20, 1e-60), the Laplace quadrature's
# residue where delta = 0 (test_dp.py: < 1e-60), the thresholded enumerations (1e-30)
CERTIFIED_CALLS = {
    "counting_delta": CertifiedCall(_counting_call),
    "noisy_counting_delta": CertifiedCall(_noisy_counting_call, mp_rel="1e-25", mp_abs="1e-60"),
    "secret_sample_delta": CertifiedCall(_secret_sample_call),
    "dp_laplace_delta": CertifiedCall(_dp_call("laplace"), mp_abs="1e-60"),
    "dp_gaussian_delta": CertifiedCall(_dp_call("gaussian")),
    "dp_geometric_delta": CertifiedCall(_dp_call("geometric")),
    "dp_sampled_delta": CertifiedCall(_dp_sampled_call, mp_rel="1e-20", mp_abs="1e-60"),
    "thresholded_delta": CertifiedCall(_thresholded_call, mp_rel="1e-30", mp_abs="1e-35"),
    "counting_log_delta": CertifiedCall(_counting_log_call, log_value=True),
    "poisson_tail_log_delta": CertifiedCall(_poisson_tail_call, log_value=True),
    "sampled_gaussian_log_delta": CertifiedCall(_sampled_gaussian_call, log_value=True),
    "sampled_dp_log_delta": CertifiedCall(_sampled_dp_log_call, log_value=True, mp_rel="1e-20"),
    "secret_sample_log_delta_plus": CertifiedCall(_secret_sample_plus_call, log_value=True,
                                                  mp_rel="1e-25"),
    "windowed_delta_plus": CertifiedCall(_windowed_plus_call),
}
DISAGREEMENTS = []       # (key, index, form, lower, upper, mpmath value): see above


def _interval_form(value, log_value):
    return "ln" if log_value or 0 < value < mpmath.mpf(TINY) else "delta"


def interval_radius(interval):
    """The radius of a stored [form, lower, upper]: relative for "delta",
    over max(1, |ln delta|) for "ln" (inf where the lower end is -inf)."""
    form, lower, upper = interval
    with mpmath.workdps(60):
        lo, hi = mpmath.mpf(lower), mpmath.mpf(upper)
        if lo == hi:
            return mpmath.mpf(0)
        if lo == -mpmath.inf:
            return mpmath.inf
        scale = abs(lo + hi) / 2
        return (hi - lo) / 2 / (max(1, scale) if form == "ln" else scale)


def interval_problem(name, interval, value):
    """None where a stored [form, lower, upper] is acceptable for the mpmath
    ``value`` of a call of ``name``; else "wide" (radius over INTERVAL_RADIUS)
    or "disagrees" (the mpmath value outside, beyond its own accuracy)."""
    spec = CERTIFIED_CALLS[name]
    form, lower, upper = interval
    with mpmath.workdps(60):
        lo, hi = mpmath.mpf(lower), mpmath.mpf(upper)
        rel, abs_ = mpmath.mpf(spec.mp_rel), mpmath.mpf(spec.mp_abs)
        if not lo <= hi:
            return "disagrees"
        if interval_radius(interval) > mpmath.mpf(INTERVAL_RADIUS):
            return "wide"
        if form == "ln":
            v = value if spec.log_value else (mpmath.log(value) if value > 0 else -mpmath.inf)
            slack = rel * max(1, abs(v)) if mpmath.isfinite(v) else 0   # ln of a rel-accurate sum
            inside = lo - slack <= v <= hi + slack
        else:
            inside = lo * (1 - rel) - abs_ <= value <= hi * (1 + rel) + abs_
    return None if inside else "disagrees"


def compute_interval(name, args, kwargs, text):
    """The "interval" stored beside a call's mpmath value ``text`` (one
    [form, lower, upper] or None per value, like the value), or None where no
    value is covered: CERTIFIED_CALLS' curve, its delta_interval (or
    log_delta_interval) to INTERVAL_DIGITS digits, each end checked by
    interval_problem (disagreements go to DISAGREEMENTS, not to the store)."""
    return compute_intervals(name, [(args, kwargs, text)])[0]


def compute_intervals(name, calls):
    """compute_interval of each (args, kwargs, text) in ``calls``; the calls
    on one curve (equal description and parameters) and direction share one
    delta_interval call (one Arb window for all their eps, where a call per
    value builds one each; refused together, one by one)."""
    spec = CERTIFIED_CALLS.get(name)
    groups = {}              # (curve, direction) -> (curve, direction, [(call, eps, values)])
    outs = []
    for c, (args, kwargs, text) in enumerate(calls):
        values = stored_value(text)
        scalar = not isinstance(values, list)
        outs.append((scalar, [None] * (1 if scalar else len(values))))
        try:
            built = spec.curve(*args, **kwargs) if spec is not None else None
        except ValueError:               # parameters the public curve does not take
            continue
        if built is None or built[0] is None:
            continue
        curve, eps, direction = built
        values, eps = ([values], [eps]) if scalar else (values, list(eps))
        params = getattr(curve, "params", None)
        same = (curve.description, repr(params), direction) if params is not None else c
        groups.setdefault(same, (curve, direction, []))[2].append((c, eps, values))
    for curve, direction, members in groups.values():
        _group_intervals(name, calls, curve, direction, members, [out for _, out in outs])
    return [None if all(i is None for i in out) else out[0] if scalar else out
            for scalar, out in outs]


def _group_intervals(name, calls, curve, direction, members, outs):
    """The intervals of one group of compute_intervals (``members``: (call,
    eps, values) on ``curve`` in ``direction``), into outs[call][i].  A call
    whose value the group's interval misses is asked again alone (a shared,
    deeper window is narrower: it must not drop an interval a call of its own
    keeps)."""
    log_value = CERTIFIED_CALLS[name].log_value
    eps_of, values_of = {c: eps for c, eps, _ in members}, {c: values for c, _, values in members}
    again = set()
    for form in ("delta", "ln"):
        where = [(c, i) for c, eps, values in members
                 for i, (v, _) in enumerate(zip_equal(values, eps))
                 if _interval_form(v, log_value) == form and not mpmath.isnan(v)]
        ends = curve.delta_interval if form == "delta" else curve.log_delta_interval
        try:
            lower, upper = ends([eps_of[c][i] for c, i in where], direction,
                                digits=INTERVAL_DIGITS)
        except (NotImplementedError, ValueError):        # not covered, or too long a sum
            if len(members) > 1:
                for member in members:
                    _group_intervals(name, calls, curve, direction, [member], outs)
                return
            continue
        for (c, i), lo, hi in zip_equal(where, lower, upper):
            interval = [form, str(lo), str(hi)]
            problem = interval_problem(name, interval, values_of[c][i])
            if problem == "disagrees" and len(members) > 1:
                again.add(c)
            elif problem == "disagrees":
                args, kwargs, _ = calls[c]
                DISAGREEMENTS.append((oracle_key(name, args, kwargs), i, *interval,
                                      mpmath.nstr(values_of[c][i], 30)))
            outs[c][i] = interval if problem is None else None
    for member in members:
        if member[0] in again:
            _group_intervals(name, calls, curve, direction, [member], outs)


_COMPUTE = object()


def stored_entry(name, args, kwargs, text, interval=_COMPUTE):
    """One stored call: {"call", "value"} and, where covered, "interval"
    (``interval``: compute_interval's, computed here where not given)."""
    entry = {"call": [name, repr(tuple(args)), repr(dict(kwargs))], "value": text}
    interval = compute_interval(name, args, kwargs, text) if interval is _COMPUTE else interval
    if interval is not None:
        entry["interval"] = interval
    return entry


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
    store[key] = stored_entry(name, args, kwargs, text)
    return stored_value(text)


def prefetch(name, calls, certify=None):
    """oracle(name, *args) of each args tuple in ``calls`` that is not stored,
    computed and kept as oracle() keeps it, the certified intervals of those
    on one curve and direction together (compute_intervals): where values
    are computed live, one Arb window per curve, not one per value.
    ``certify``: the calls whose intervals are computed (None: all; the
    others are kept with their mpmath value alone, a sample where the Arb
    windows cost minutes and mpmath checks every value)."""
    family = FAMILY_OF[name]
    store = _store(family)
    missing = [args for args in dict.fromkeys(calls) if oracle_key(name, args, {}) not in store]
    if not missing:
        return
    texts = [compute_text(name, args, {}) for args in missing]
    sample = [i for i, args in enumerate(missing) if certify is None or args in certify]
    found = compute_intervals(name, [(missing[i], {}, texts[i]) for i in sample])
    intervals = [None] * len(missing)
    for i, interval in zip_equal(sample, found):
        intervals[i] = interval
    _COMPUTED.add(family)
    for args, text, interval in zip_equal(missing, texts, intervals):
        key = oracle_key(name, args, {})
        if family not in _RECORDING:
            _MISSES.append((family, key))
        store[key] = stored_entry(name, args, {}, text, interval=interval)


def certified(name, *args, **kwargs):
    """The certified intervals stored beside oracle(name, ...)'s values as
    (ln lower, ln upper) mpf pairs (-inf for delta = 0), like the values: a
    list of them for a list of values; None where a value has none."""
    value = oracle(name, *args, **kwargs)        # the entry (computed live where missing)
    interval = _store(FAMILY_OF[name])[oracle_key(name, args, kwargs)].get("interval")
    scalar = not isinstance(value, list)
    if interval is None:
        return None if scalar else [None] * len(value)
    log_value = CERTIFIED_CALLS[name].log_value
    out = [_log_ends(i, log_value) for i in ([interval] if scalar else interval)]
    return out[0] if scalar else out


def _log_ends(interval, log_value):
    if interval is None:
        return None
    form, lower, upper = interval
    with mpmath.workdps(60):
        ends = [mpmath.mpf(lower), mpmath.mpf(upper)]
        if form == "delta":
            ends = [mpmath.log(e) if e > 0 else -mpmath.inf for e in ends]
    return tuple(ends)


def max_ends(a, b):
    """The ends for max(delta_plus, delta_minus) from each one's (None: missing)."""
    return None if a is None or b is None else (max(a[0], b[0]), max(a[1], b[1]))


def assert_within_certified(ours_log, ends, *, rel=REL, log_abs=LOG_ABS, what=""):
    """A float-path ln delta against a certified interval (ln lower, ln upper)
    of ln delta (certified(); None: nothing to check), with assert_matches'
    tolerances: never below the lower end by more than rel (or a few ulps of
    ln delta), nor above the upper end by more than rel; where ln delta <= -700,
    log_abs either side.  A lower end of -inf (delta = 0 not excluded: a live
    interval beyond a zero point, check_certified_live) checks the upper end only."""
    if ends is None:
        return
    lower, upper = ends
    if upper == -mpmath.inf:
        assert ours_log == -math.inf, f"{what}: delta = 0 proven, got ln delta = {ours_log}"
        return
    tol_below, tol_above = _certified_tolerances(upper, rel, log_abs)
    above = float(mpmath.mpf(ours_log) - upper) if ours_log > -math.inf else -math.inf
    assert above <= tol_above, f"{what}: above the certified upper end by {above:.3e} (ln {upper})"
    if lower == -mpmath.inf:         # delta = 0 not excluded: only the upper end holds
        return
    assert ours_log > -math.inf, f"{what}: got delta = 0, certified ln delta >= {lower}"
    below = float(mpmath.mpf(ours_log) - lower)
    assert below >= -tol_below, \
        f"{what}: below the certified lower end by {-below:.3e} (ln {lower})"


def _certified_tolerances(upper, rel, log_abs):
    """(below, above): how far (in ln delta) a float path may lie outside a
    certified interval whose upper end is ``upper``: ln(1 -+ rel), or a few
    ulps of ln delta where a float log cannot resolve rel; log_abs either
    side where ln delta <= -700."""
    ulps = 8 * math.ulp(float(abs(upper)))
    if upper > -700:
        return max(-math.log1p(-rel), ulps), max(math.log1p(rel), ulps)
    return max(log_abs, ulps), max(log_abs, ulps)


def pins_delta(ends, *, rel=REL, log_abs=LOG_ABS):
    """A certified (ln lower, ln upper) decides delta at assert_within_certified's
    tolerances: delta = 0 proven, or both ends finite and at most a quarter of
    the tolerance apart (a float path passing assert_within_certified is then
    within 1.25 tolerances of the truth; the float ends of a live interval
    are ~2 ulps apart)."""
    lower, upper = ends
    if upper == -mpmath.inf:
        return True
    if lower == -mpmath.inf:
        return False
    return float(upper - lower) <= min(_certified_tolerances(upper, rel, log_abs)) / 4


def live_certified(curve, eps, direction):
    """The certified interval of ln delta_direction at each eps computed now:
    curve.log_delta_interval (Arb ball sums from the mechanism's parameters,
    statpriv/oracle/arb.py; a proof, independent of the float kernels), as
    certified()'s (ln lower, ln upper) mpf pairs.  For the sizes whose mpmath
    brute force takes minutes (the exhaustive run) and are not stored."""
    lower, upper = curve.log_delta_interval(list(eps), direction)
    return [(mpmath.mpf(float(lo)), mpmath.mpf(float(hi))) for lo, hi in zip_equal(lower, upper)]


def check_certified_live(curve, eps, *, rel=REL, label=""):
    """Every direction of ``curve`` at ``eps`` inside its live certified
    interval (live_certified; assert_within_certified's tolerances: rel).
    Returns the eps where an interval does not decide delta (pins_delta: its
    lower end 0 -- e.g. beyond a zero point the Arb sum bounds but cannot
    prove delta = 0 -- or wider than the bar): those need another truth."""
    eps = list(eps)
    plus, minus = live_certified(curve, eps, "plus"), live_certified(curve, eps, "minus")
    undecided = []
    for e, op, om, ox, cp, cm in zip_equal(eps, *_float_path(curve, eps), plus, minus):
        what = f"{label} eps={e}"
        cx = max_ends(cp, cm)
        for ours, ends, direction in ((op, cp, "plus"), (om, cm, "minus"), (ox, cx, "max")):
            assert_within_certified(ours, ends, rel=rel, what=f"{what} {direction} (certified)")
        if not all(pins_delta(c, rel=rel) for c in (cp, cm)):
            undecided.append(e)
    return undecided


def check_independent(curve, truth, eps, *, rel=REL, label=""):
    """Every direction of ``curve`` at ``eps`` against an OracleCurve of
    tests/independent_oracle.py (mpmath from the definitions at 50 digits,
    no statpriv code): ``truth.deltas(eps)``, assert_matches' tolerances."""
    eps = list(eps)
    for e, op, om, ox, (p, m) in zip_equal(eps, *_float_path(curve, eps), truth.deltas(eps)):
        what = f"{label} eps={e} (independent oracle)"
        assert_matches(op, p, rel=rel, what=what + " plus")
        assert_matches(om, m, rel=rel, what=what + " minus")
        assert_matches(ox, max(p, m), rel=rel, what=what + " max")


def _float_path(curve, eps):
    """The float path's ln delta_plus, ln delta_minus and ln delta at eps."""
    return curve.log_delta_plus(eps), curve.log_delta_minus(eps), curve.log_delta(eps)


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
    for key, index, form, lower, upper, value in DISAGREEMENTS:
        write_line(f"certified interval and mpmath value disagree (not stored): {key[:120]} "
                   f"#{index}: {form} in [{lower}, {upper}], mpmath {value}")
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
    (reference function name, its positional args before eps, its kwargs):
    the stored mpmath values and, where stored, their certified intervals."""
    name, args, kwargs = spec
    plus = oracle(name, *args, list(eps), direction="plus", **kwargs)
    minus = oracle(name, *args, list(eps), direction="minus", **kwargs)
    cert_plus = certified(name, *args, list(eps), direction="plus", **kwargs)
    cert_minus = certified(name, *args, list(eps), direction="minus", **kwargs)
    for e, op, om, ox, p, m, cp, cm in zip_equal(eps, *_float_path(curve, eps), plus, minus,
                                                 cert_plus, cert_minus):
        what = f"{label} eps={e}"
        assert_matches(op, p, what=what + " plus")
        assert_matches(om, m, what=what + " minus")
        assert_matches(ox, max(p, m), what=what + " max")
        assert_within_certified(op, cp, what=what + " plus (certified)")
        assert_within_certified(om, cm, what=what + " minus (certified)")
        assert_within_certified(ox, max_ends(cp, cm), what=what + " max (certified)")


def check_against_reference(curve, n, pi, noise, eps=NOISY_EPS, **kwargs):
    spec = (noise.kind, noise.param)
    for direction, ours in (("plus", curve.log_delta_plus(eps)),
                            ("minus", curve.log_delta_minus(eps))):
        call = (n, pi, list(eps), spec)
        ref = oracle("noisy_counting_delta", *call, direction=direction, **kwargs)
        cert = certified("noisy_counting_delta", *call, direction=direction, **kwargs)
        for e, o, r, c in zip_equal(eps, ours, ref, cert):
            what = f"n={n} pi={pi} {noise} eps={e} {direction}"
            assert_matches(o, r, rel=NOISY_REL, what=what)
            assert_within_certified(o, c, rel=NOISY_REL, what=what + " (certified)")


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

