"""The stored reference values (tests/data/reference/<family>.json, read by
tests/helpers.py's oracle()): one layout, keys reproducible from the calls, and
(exhaustive) every stored value recomputed live."""
import json

import mpmath
import pytest

from helpers import (FAMILY_OF, REFERENCE_FAMILIES, compute_text, family_file, oracle_key,
                     parse_call, stored_calls, stored_value, zip_equal)


@pytest.mark.parametrize("family", sorted(REFERENCE_FAMILIES))
def test_layout_and_keys(family):
    payload = json.loads(family_file(family).read_text())
    assert set(payload) == {"how", "mpmath", "dps", "values"}
    assert payload["dps"] == REFERENCE_FAMILIES[family].dps
    assert payload["values"], f"{family}: no stored values"
    for key, entry in payload["values"].items():
        assert set(entry) == {"call", "value"}
        name, args, kwargs = parse_call(entry["call"])
        assert FAMILY_OF[name] == family, f"{name} stored in {family}"
        assert oracle_key(name, args, kwargs) == key      # the key is the call's
        value = entry["value"]
        assert all(isinstance(v, str) for v in (value if isinstance(value, list) else [value]))


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
    for key, name, args, kwargs, text in stored_calls(family):
        live = stored_value(compute_text(name, args, kwargs))
        stored = stored_value(text)
        live = live if isinstance(live, list) else [live]
        stored = stored if isinstance(stored, list) else [stored]
        for a, b in zip_equal(live, stored):
            with mpmath.workdps(50):
                assert _agree(a, b, rel, abs_), f"{key}: live {a} != stored {b}"
        count += 1
    assert count > 0
