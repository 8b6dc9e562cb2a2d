"""Shared helpers: comparisons against the mpmath oracle.

An oracle value r (an mpmath.mpf, r = delta) is matched by a float-path
ln delta value `ours` when
  - r = 0 and ours = -inf, or
  - delta is representable (ln r > -700): |delta/r - 1| <= rel, and
  - always: ours >= ln r + ln(1 - rel) (conservative: never below by more than
    rel, or than 8 ulps of ln r where a float64 log cannot resolve rel),
  - ln r <= -700 (delta underflows or nearly): |ours - ln r| <= log_abs.
"""
import math

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


@pytest.fixture
def matches():
    return assert_matches
