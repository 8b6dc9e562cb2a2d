"""Generic properties of every public curve kind, over the table of tests/mechanisms.py.

What every privacy curve owes its caller whatever the mechanism: delta a
probability, non-increasing in eps, delta = max(delta_plus, delta_minus),
ln delta and delta the same number, delta(0) the total variation, the
symmetries the laws have, epsilon the inverse of delta (never an eps where
delta is above the target), the same bits from many threads, bad queries
refused naming the parameter, and a copy (pickle, deepcopy) that gives the
same bits; on the rows with a cheap mpmath brute force, the float path within
1e-10 of it and never below by more.  The stored and independent oracles of
the other test files check values in depth.
"""
import copy
import math
import pickle
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import statpriv
from mechanisms import (BY_ID, MECHANISMS, check_mirror, check_non_increasing, check_probability,
                        curve)

INF = math.inf
# negative, 0, the smallest subnormal, tiny, moderate, large, huge and inf
EPS_GRID = [-INF, -50.0, -1.0, -1e-300, 0.0, 5e-324, 1e-12, 1e-3, 0.05, 0.3, 1.0, 3.0, 20.0,
            700.0, 1e300, INF]
TARGETS = [1.0, 0.5, 0.1, 1e-3, 1e-6, 1e-12, 1e-100, 0.0]     # decreasing
DIRECTIONS = ("max", "plus", "minus")
_SUFFIX = {"max": "", "plus": "_plus", "minus": "_minus"}

IDS = [m.id for m in MECHANISMS]
parametrize_rows = pytest.mark.parametrize("row", IDS)


@parametrize_rows
def test_delta_is_a_probability(row):
    check_probability(curve(row), EPS_GRID)


# Open cases, (test, row[, direction]) -> why, marked xfail(strict=True): they
# fail the day they are fixed; then drop them here.  None at present.
OPEN = {}


def _rows(test, *extra):
    """pytest params of every row (x every value of ``extra``), the open cases
    of ``test`` marked xfail(strict=True)."""
    params = []
    for row in IDS:
        for more in (extra[0] if extra else [()]):
            more = more if isinstance(more, tuple) else (more,)
            reason = OPEN.get((test, row, *more))
            marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
            params.append(pytest.param(row, *more, marks=marks, id="-".join((row, *more))))
    return params


@pytest.mark.parametrize("row", _rows("non_increasing"))
def test_non_increasing_in_eps(row):
    check_non_increasing(curve(row), EPS_GRID)


@parametrize_rows
def test_delta_is_the_larger_direction(row):
    c = curve(row)
    np.testing.assert_array_equal(c.log_delta(EPS_GRID),
                                  np.maximum(c.log_delta_plus(EPS_GRID),
                                             c.log_delta_minus(EPS_GRID)))
    np.testing.assert_array_equal(c.delta(EPS_GRID),
                                  np.maximum(c.delta_plus(EPS_GRID), c.delta_minus(EPS_GRID)))


@parametrize_rows
def test_log_delta_is_ln_delta(row):
    c = curve(row)
    for d in _SUFFIX.values():
        delta = getattr(c, f"delta{d}")(EPS_GRID)
        logs = getattr(c, f"log_delta{d}")(EPS_GRID)
        assert np.all(delta[np.isneginf(logs)] == 0.0)
        # exp(ln delta) within a few ulps of delta (or of the subnormal spacing 5e-324)
        np.testing.assert_allclose(delta, np.exp(logs), rtol=4e-16, atol=2e-323)


@parametrize_rows
def test_delta_at_zero_is_total_variation(row):
    c = curve(row)
    assert c.delta(0.0) == c.total_variation()
    assert isinstance(c.total_variation(), float)


@pytest.mark.parametrize("row", _rows("batch"))
def test_log_delta_does_not_depend_on_the_batch(row):
    c = curve(row)
    for d in _SUFFIX.values():
        query = getattr(c, f"log_delta{d}")
        many = list(query(EPS_GRID))
        assert [query(e) for e in EPS_GRID] == many, d
        assert [query([e])[0] for e in EPS_GRID] == many, d


SYMMETRIC = [m.id for m in MECHANISMS if m.symmetric]
MIRRORED = [m.id for m in MECHANISMS if m.mirror]


@pytest.mark.parametrize("row", SYMMETRIC)
def test_symmetric_laws_have_equal_directions(row):
    c = curve(row)
    check_mirror(c, c, EPS_GRID, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("row", MIRRORED)
def test_mirrored_rows_swap_directions(row):
    check_mirror(curve(row), curve(BY_ID[row].mirror), EPS_GRID)


@pytest.mark.parametrize("row, direction", _rows("epsilon", DIRECTIONS))
def test_epsilon_inverts_delta(row, direction):
    c = curve(row)
    delta = getattr(c, f"delta{_SUFFIX[direction]}")
    eps = c.epsilon(TARGETS, direction=direction)
    assert eps.shape == (len(TARGETS),)
    assert not np.isnan(eps).any() and np.all(eps >= 0.0)
    assert eps[0] == 0.0 and c.epsilon(1.0, direction=direction) == 0.0
    for d, e in zip(TARGETS, eps):
        if e < INF:
            assert delta(e) <= d * (1 + 1e-9), (d, e, delta(e))
        else:                                             # no finite eps reaches d
            assert delta(INF) >= d * (1 - 1e-9) or delta(1e300) > d, (d, delta(INF))
    assert c.epsilon(TARGETS[3], direction=direction) == eps[3]


@pytest.mark.parametrize("row, direction", _rows("epsilon_monotone", DIRECTIONS))
def test_epsilon_non_increasing_in_delta(row, direction):
    eps = curve(row).epsilon(TARGETS, direction=direction)
    assert np.all(eps[1:] >= eps[:-1]), [float(e).hex() for e in eps]


@parametrize_rows
def test_same_bits_from_four_threads(row):
    c = curve(row)
    eps = np.linspace(-0.5, 2.0, 16)
    targets = np.logspace(-12, -1, 4)

    def work(_):
        return c.log_delta(eps).tobytes(), c.epsilon(targets).tobytes()

    expected = work(None)
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(work, range(8)))
    assert len(results) == 8
    assert all(r == expected for r in results)


@parametrize_rows
@pytest.mark.parametrize("call, error, name", [
    (lambda c: c.delta(math.nan), ValueError, "eps"),
    (lambda c: c.log_delta_plus([0.1, math.nan]), ValueError, "eps"),
    (lambda c: c.delta(True), TypeError, "eps"),
    (lambda c: c.delta_minus([0.1, True]), TypeError, "eps"),
    (lambda c: c.epsilon(1.5), ValueError, "delta"),
    (lambda c: c.epsilon(-1e-9), ValueError, "delta"),
    (lambda c: c.epsilon(math.nan), ValueError, "delta"),
    (lambda c: c.epsilon([0.1, 2.0]), ValueError, "delta"),
    (lambda c: c.epsilon(0.1, direction="up"), ValueError, "direction"),
], ids=["nan", "nan-in-array", "bool", "bool-in-array", "delta-above-1", "delta-negative",
        "delta-nan", "delta-array", "direction"])
def test_bad_queries_name_the_parameter(row, call, error, name):
    with pytest.raises(error, match=rf"\b{name}\b"):
        call(curve(row))


@parametrize_rows
def test_repr_names_the_class(row):
    c = curve(row)
    assert isinstance(c, statpriv.PrivacyCurve)
    assert "PrivacyCurve" in repr(c) and c.description in repr(c)


def _same_bits(a, b):
    for d in _SUFFIX.values():
        assert getattr(a, f"log_delta{d}")(EPS_GRID).tobytes() == \
            getattr(b, f"log_delta{d}")(EPS_GRID).tobytes()
    for direction in DIRECTIONS:
        assert a.epsilon(TARGETS, direction=direction).tobytes() == \
            b.epsilon(TARGETS, direction=direction).tobytes()


@pytest.mark.parametrize("row", IDS)
def test_pickle_and_deepcopy_give_the_same_bits(row):
    c = curve(row)
    for twin in (pickle.loads(pickle.dumps(c)), copy.deepcopy(c)):
        assert type(twin) is type(c) and repr(twin) == repr(c)
        _same_bits(twin, c)


REFERENCE_EPS = [-0.5, 0.0, 0.01, 0.2, 1.0]


@pytest.mark.parametrize("row", [m.id for m in MECHANISMS if m.reference])
def test_float_path_matches_the_mpmath_reference(row):
    # the row's own brute force (statpriv.oracle, 50 digits) in each direction:
    # within 1e-10 relative (noisy curves' promise; the others keep 1e-12), or
    # 0 where the truth is 0 -- a quadrature's 50 digits leave ~1e-68 at a
    # zero point (dp.laplace at eps = 1/b), so 0 is matched by truth < 1e-50
    import mpmath
    c = curve(row)
    for d in DIRECTIONS:
        ours = getattr(c, f"delta{_SUFFIX[d]}")(REFERENCE_EPS)
        truth = getattr(c, f"delta{_SUFFIX[d]}")(REFERENCE_EPS, precision="mp")
        assert len(truth) == len(REFERENCE_EPS)
        for e, x, t in zip(REFERENCE_EPS, ours, truth):
            if x == 0.0 or t == 0:
                assert x == 0.0 and t < 1e-50, (row, d, e, x, t)
                continue
            rel = float((mpmath.mpf(float(x)) - t) / t)
            assert abs(rel) <= 1e-10, (row, d, e, rel)
