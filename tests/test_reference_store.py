"""The stored reference values (tests/data/reference/<family>.json, read by
tests/helpers.py's oracle()): one layout, keys reproducible from the calls, the
certified intervals beside them narrow and holding the mpmath values, and
(exhaustive) every stored interval recomputed live, every stored value either
recomputed or proven by that interval (the mpmath function run again on a
sample of those)."""
import json
import zlib

import mpmath
import pytest

from helpers import (CERTIFIED_CALLS, FAMILY_OF, REFERENCE_FAMILIES, assert_within_certified,
                     compute_intervals, compute_text, family_file, interval_problem, oracle_key,
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


# the families whose recomputation takes minutes, dealt into this many shards
# (by the key's crc32 mod k: the mpmath sample below, every 16th entry of a
# function, would fall into one shard of a count dealt in turn) that
# pytest-xdist's workers take up apart
SHARDS = {"reference": 4, "independent": 4, "differential": 2, "empirical": 2}
# An entry whose every value the certified interval computed now holds (to the
# mpmath value's own accuracy: interval_problem) is proven current; its mpmath
# function is run again on every SECOND_OPINION-th entry of each function (the
# first included), as the second opinion on the function itself.  The others
# are all recomputed.
SECOND_OPINION = 16


def _second_opinion(entries):
    """The keys of every SECOND_OPINION-th entry of each function, in file order."""
    by_function = {}
    for key, entry in entries.items():
        by_function.setdefault(entry["call"][0], []).append(key)
    return {key for keys in by_function.values() for key in keys[::SECOND_OPINION]}


@pytest.mark.exhaustive
@pytest.mark.first
@pytest.mark.parametrize("family, shard", [(family, shard) for family in sorted(REFERENCE_FAMILIES)
                                           for shard in range(SHARDS.get(family, 1))])
def test_stored_reference_values_are_current(family, shard):
    """Every stored value of the family (the entries of one shard) is what its
    function computes now, or (proven entries, but the mpmath sample) inside
    the certified interval computed now; every stored interval meets the one
    computed now."""
    family_ = REFERENCE_FAMILIES[family]
    rel, abs_ = mpmath.mpf(family_.agree), mpmath.mpf(family_.agree_abs or 0)
    count = proven = 0
    # the file's values (the family's store in memory also holds the values
    # this process computed live, not stored)
    entries = json.loads(family_file(family).read_text())["values"]
    second_opinion = _second_opinion(entries)
    mine = {key: entry for key, entry in entries.items()
            if zlib.crc32(key.encode()) % SHARDS.get(family, 1) == shard}
    intervals = _live_intervals(mine)
    for key, entry in mine.items():
        name, args, kwargs = parse_call(entry["call"])
        text = entry["value"]
        interval = intervals[key]
        _assert_interval_current(key, entry.get("interval"), interval)
        count += 1
        if _holds_every_value(interval) and key not in second_opinion:
            proven += 1
            continue
        faster = (family_.recompute or {}).get(name, {})
        live = stored_value(compute_text(name, args, {**kwargs, **faster}))
        stored = stored_value(text)
        live = live if isinstance(live, list) else [live]
        stored = stored if isinstance(stored, list) else [stored]
        for a, b in zip_equal(live, stored):
            with mpmath.workdps(50):
                assert _agree(a, b, rel, abs_), f"{key}: live {a} != stored {b}"
    assert count > 0
    print(f"{family} shard {shard}: {count} entries, {proven} proven by their live intervals, "
          f"{count - proven} recomputed")


def _live_intervals(entries):
    """compute_interval of each entry, those of one function together
    (compute_intervals: the values on one curve share its Arb window)."""
    by_function = {}
    for key, entry in entries.items():
        name, args, kwargs = parse_call(entry["call"])
        by_function.setdefault(name, []).append((key, (args, kwargs, entry["value"])))
    out = {}
    for name, calls in by_function.items():
        found = compute_intervals(name, [call for _, call in calls])
        out.update(zip_equal([key for key, _ in calls], found))
    return out


def test_a_proven_value_moved_is_recomputed():
    """The exhaustive recomputation's shortcut: a stored value that the live
    interval holds is proven; moved by 1e-20 (relative) it is not, and goes to
    the mpmath recomputation."""
    import helpers
    key = ("counting_delta(100, 0.3, [0.0, 0.0001, 0.01, 0.1, 1.0, 5.0, -0.5])"
           "[('direction', 'minus')]")
    entry = json.loads(family_file("reference").read_text())["values"][key]
    assert _holds_every_value(_live_intervals({key: entry})[key])
    with mpmath.workdps(60):
        moved = [str(mpmath.mpf(entry["value"][0]) * (1 + mpmath.mpf("1e-20")))]
    disagreements = len(helpers.DISAGREEMENTS)
    live = _live_intervals({key: dict(entry, value=moved + entry["value"][1:])})[key]
    del helpers.DISAGREEMENTS[disagreements:]          # (reported at the end of a run)
    assert live[0] is None and not _holds_every_value(live)


def _holds_every_value(interval):
    """compute_interval's answer covers every value (it is None, or holds
    None, where a value has no interval or lies outside the one computed)."""
    return interval is not None and (isinstance(interval[0], str)
                                     or all(i is not None for i in interval))


def _assert_interval_current(key, stored, live):
    """The interval computed now has the stored one's form and meets it (two
    proven enclosures of one number); a stored interval must not be lost."""
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
