"""The one-pass law kernels against the numpy expressions of the same rules.

statpriv.laws._kernels does in one pass over the atoms what was written as
whole-array numpy expressions: the choice of the cells refine_log_ratio
refines (refine_candidates) and the monotone likelihood ratio test.  The
references here are those numpy expressions, written out independently of
the kernels, on random laws with infinities, ties and steep tails; the
kernels must agree exactly (the same float64 / long double operations).
"""
import numpy as np
import pytest

from statpriv.laws import _kernels as law_kernels
from statpriv.noise import _cells

LD = np.longdouble


def _numpy_candidates(lp, lq, lr, err):
    """The selection rule of statpriv.laws.refine in numpy."""
    n = len(lr)
    finite = np.isfinite(lr) & (np.isfinite(lp) | np.isfinite(lq))
    lpf, lqf = lp.astype(np.float64), lq.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        log_err = np.log(np.asarray(err, dtype=np.float64))
        log_gap = np.log(-np.expm1(-np.diff(lr).astype(np.float64)))
        up = log_err[:-1] + lpf[:-1] - lpf[1:] - log_gap
        down = log_err[1:] + lqf[1:] - lqf[:-1] - log_gap
        need = np.full(n, -np.inf)
        need[:-1] = np.fmax(need[:-1], up)
        need[1:] = np.fmax(need[1:], down)
        depth = np.fmin(lpf, lqf)
        log_tol = np.log(np.fmax(1e-11, np.abs(depth) * 1e-16))
    log_tol[depth > -700.0] = np.log(1e-14)
    cells = np.flatnonzero(finite & (need > log_tol))
    idx = np.flatnonzero(finite)
    ends = (int(idx[0]), int(idx[-1])) if idx.size else (-1, -1)
    return cells, need[cells], ends


def _random_laws(rng, n):
    lr = np.cumsum(rng.uniform(0.0, 1e-3, n) * rng.choice([1e-9, 1.0, 1e3], n)).astype(LD)
    lr -= lr[n // 2]
    lq = (-0.5 * (np.arange(n) - n / 2.0) ** 2 / rng.uniform(1.0, 1e4)).astype(LD)
    lq *= LD(rng.choice([1.0, 1e3]))
    lp = lq + lr
    err = 4e-19 * (np.abs(lr.astype(np.float64)) + rng.uniform(0.0, 1e3, n))
    for arr in (lp, lq, lr):
        k = rng.integers(0, 3)
        if k:
            arr[rng.integers(0, n, k)] = rng.choice([-np.inf, np.inf])
    return lp, lq, lr, err


@pytest.mark.parametrize("seed", range(12))
def test_refine_candidates_match_numpy(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.choice([1, 2, 3, 50, 2000]))
    lp, lq, lr, err = _random_laws(rng, n)
    cells, need, first, last = law_kernels.refine_candidates(lp, lq, lr, err, -700.0,
                                                             float(np.log(1e-14)))
    ref_cells, ref_need, ends = _numpy_candidates(lp, lq, lr, err)
    np.testing.assert_array_equal(cells, ref_cells)
    np.testing.assert_array_equal(need, ref_need)
    assert (first, last) == ends


@pytest.mark.parametrize("seed", range(12))
def test_monotone_likelihood_ratio_matches_numpy(seed):
    rng = np.random.default_rng(100 + seed)
    for _ in range(300):
        n = int(rng.integers(0, 9))
        lp = np.sort(rng.normal(size=n)).astype(LD) * 3
        lq = lp - np.sort(rng.normal(size=n)).astype(LD) * LD(rng.choice([1e-13, 1e-10, 1.0, -1.0]))
        for arr in (lp, lq):
            k = int(rng.integers(0, 3))
            if k and n:
                arr[rng.integers(0, n, k)] = rng.choice([-np.inf, np.inf, np.nan])
        assert (law_kernels.monotone_likelihood_ratio(lp, lq)
                == _cells.monotone_likelihood_ratio_numpy(lp, lq))
