"""The stored reference values (tests/data/reference/<family>.json, read by
tests/helpers.py's oracle()): one layout, keys reproducible from the calls, the
certified intervals beside them narrow and holding the mpmath values, and
(exhaustive) every stored value and interval recomputed live."""
import json

import mpmath
import pytest

from helpers import (CERTIFIED_CALLS, FAMILY_OF, REFERENCE_FAMILIES, assert_within_certified,
                     compute_interval, compute_text, family_file, interval_problem, oracle_key,
                     parse_call, stored_value, zip_equal)


@pytest.mark.parametrize("family", sorted(REFERENCE_FAMILIES))
def test_layout_and_keys(family):
    payload = json.loads(family_file(family).read_text())
    assert set(payload) == {"how", "mpmath", "dps", "values"}
    assert payload["dps"] == REFERENCE_FAMILIES[family].dps
    assert payload["values"], f"{family}: no stored values"
    for key, entry in payload["values"].items():
        assert set(entry) in ({"call", "value"}, {"call", "value", "interval"})
        name, args, kwargs = parse_call(entry["call"])
        assert FAMILY_OF[name] == family, f"{name} stored in {family}"
        assert oracle_key(name, args, kwargs) == key      # the key is the call's
        value = entry["value"]
        assert all(isinstance(v, str) for v in (value if isinstance(value, list) else [value]))
        if "interval" in entry:
            assert name in CERTIFIED_CALLS
            for _, interval in _pairs(entry):
                assert interval is None or (len(interval) == 3 and interval[0] in ("delta", "ln")
                                            and all(isinstance(e, str) for e in interval))


def _pairs(entry):
    """(mpmath value, its interval or None) of a stored entry with intervals."""
    value, interval = stored_value(entry["value"]), entry["interval"]
    if not isinstance(value, list):
        return [(value, interval)]
    return list(zip_equal(value, interval))


# values with a stored interval (of each family that has them), at least: the
# covered kinds must not silently lose their intervals
MIN_INTERVALS = {"reference": 1900, "independent": 1000, "thresholding": 120}


@pytest.mark.parametrize("family", sorted(MIN_INTERVALS))
def test_stored_intervals_are_narrow_and_hold_the_mpmath_values(family):
    """Every stored interval: radius below 1e-25 (relative; for ln delta
    absolute times max(1, |ln delta|)) and the independent mpmath value
    inside it, to that value's own accuracy."""
    payload = json.loads(family_file(family).read_text())
    count = 0
    for key, entry in payload["values"].items():
        if "interval" not in entry:
            continue
        for value, interval in _pairs(entry):
            if interval is not None:
                assert interval_problem(entry["call"][0], interval, value) is None, \
                    (key, interval, value)
                count += 1
    assert count >= MIN_INTERVALS[family]


def test_interval_problem_catches_a_wide_or_missed_interval():
    value = mpmath.mpf("0.25")
    assert interval_problem("counting_delta", ["delta", "0.2499", "0.2501"], value) == "wide"
    assert interval_problem("counting_delta", ["delta", "0.26", "0.26"], value) == "disagrees"
    assert interval_problem("counting_delta", ["delta", "0.25", "0.25"], value) is None
    assert interval_problem("counting_log_delta", ["ln", "-3", "-3"], mpmath.mpf(-3)) is None
    assert interval_problem("counting_log_delta", ["ln", "-inf", "-3"], mpmath.mpf(-3)) == "wide"


def _agree(live, stored, rel, abs_):
    # equal infinities (ln 0, no finite zero point) and nan (the differential
    # oracle's refusal) agree with themselves
    if live == stored or (mpmath.isnan(live) and mpmath.isnan(stored)):
        return True
    return abs(live - stored) <= max(rel * abs(live), abs_)


@pytest.mark.exhaustive
@pytest.mark.parametrize("family", sorted(REFERENCE_FAMILIES))
def test_stored_reference_values_are_current(family):
    """Every stored value of the family is what its function computes now."""
    family_ = REFERENCE_FAMILIES[family]
    rel, abs_ = mpmath.mpf(family_.agree), mpmath.mpf(family_.agree_abs or 0)
    count = 0
    entries = json.loads(family_file(family).read_text())["values"]
    # the file's values (the family's store in memory also holds the values
    # this process computed live, not stored)
    for key, entry in entries.items():
        name, args, kwargs = parse_call(entry["call"])
        text = entry["value"]
        faster = (family_.recompute or {}).get(name, {})
        live = stored_value(compute_text(name, args, {**kwargs, **faster}))
        stored = stored_value(text)
        live = live if isinstance(live, list) else [live]
        stored = stored if isinstance(stored, list) else [stored]
        for a, b in zip_equal(live, stored):
            with mpmath.workdps(50):
                assert _agree(a, b, rel, abs_), f"{key}: live {a} != stored {b}"
        _assert_interval_current(key, entries[key].get("interval"), name, args, kwargs, text)
        count += 1
    assert count > 0


def _assert_interval_current(key, stored, name, args, kwargs, text):
    """The interval computed now has the stored one's form and meets it (two
    proven enclosures of one number); a stored interval must not be lost."""
    live = compute_interval(name, args, kwargs, text)
    if stored is None:
        return
    assert live is not None, f"{key}: the stored interval is not computed any more"
    single = isinstance(stored[0], str)
    for a, b in zip_equal(*(([live], [stored]) if single else (live, stored))):
        if b is None:
            continue
        assert a is not None and a[0] == b[0], f"{key}: live {a} vs stored {b}"
        with mpmath.workdps(60):
            assert mpmath.mpf(a[1]) <= mpmath.mpf(b[2]) and mpmath.mpf(b[1]) <= mpmath.mpf(a[2]), \
                f"{key}: live {a} and stored {b} do not meet"


def test_within_certified_catches_values_outside():
    """assert_within_certified: inside passes; below the lower end or above
    the upper end by more than rel fails; delta = 0 proven admits only -inf."""
    import math
    quarter = mpmath.mpf("0.25")
    ends = (mpmath.log(quarter), mpmath.log(quarter * (1 + mpmath.mpf("1e-20"))))
    assert_within_certified(math.log(0.25), ends)
    for off in (-3e-12, 3e-12):
        with pytest.raises(AssertionError):
            assert_within_certified(math.log(0.25) + off, ends)
    with pytest.raises(AssertionError):
        assert_within_certified(-math.inf, ends)
    assert_within_certified(-math.inf, (-mpmath.inf, -mpmath.inf))
    with pytest.raises(AssertionError):
        assert_within_certified(-800.0, (-mpmath.inf, -mpmath.inf))
