"""The accurate fast long double exp/expm1/log/log1p (csrc/ldmath.h) and the
fused Laplace-noise cells (sp_laplace_cells_diff) against mpmath."""
import mpmath
import numpy as np
import pytest

from statpriv import _core
from statpriv.laws import _kernels as law_kernels
from statpriv._xprec import mpf_exact as _mpf_exact
from statpriv.noise import _kernels as noise_kernels

ld = np.longdouble
ULP = 2.0 ** -63          # one unit in the last place of a long double in [1, 2)

pytestmark = pytest.mark.skipif(np.finfo(ld).nmant != 63, reason="x87 long double only")


def _inputs(seed):
    rng = np.random.default_rng(seed)
    n = 200
    tiny = rng.uniform(-1, 1, n).astype(ld) * ld(10) ** -rng.uniform(0, 22, n).astype(ld)
    return rng, n, tiny


def _worst(name, xs, exact, relative):
    got = law_kernels._ldmath(name, xs)
    worst = 0.0
    with mpmath.workdps(40):
        for x, y in zip(xs, got):
            t = exact(_mpf_exact(x))
            e = abs(_mpf_exact(y) - t)
            worst = max(worst, float(e / (abs(t) if relative else max(1, abs(t)))))
    return worst


def test_exp_and_expm1_relative():
    rng, n, tiny = _inputs(1)
    xs = np.concatenate([-rng.uniform(0, 11340, n).astype(ld), rng.uniform(-30, 30, n).astype(ld),
                         tiny])
    assert _worst("exp", xs, mpmath.exp, True) <= 2 * ULP
    xm = np.concatenate([tiny, rng.uniform(-3, 3, n).astype(ld), -rng.uniform(0, 60, n).astype(ld)])
    assert _worst("expm1", xm, mpmath.expm1, True) <= 2 * ULP


def test_log_absolute_and_near_one_relative():
    rng, n, tiny = _inputs(2)
    big = np.exp(rng.uniform(-11000, 11000, n).astype(ld))
    near = 1 + tiny
    xs = np.concatenate([big, near, rng.uniform(0.5, 2, n).astype(ld)])
    assert _worst("log", xs, mpmath.log, False) <= 2 * ULP
    assert _worst("log", near[near != 1], mpmath.log, True) <= 2 * ULP


def test_log1p_relative():
    rng, n, tiny = _inputs(3)
    xs = np.concatenate([tiny, rng.uniform(-0.99, 3, n).astype(ld),
                         np.exp(rng.uniform(-5, 80, n).astype(ld))])
    assert _worst("log1p", xs, mpmath.log1p, True) <= 2 * ULP


def test_special_values():
    out = law_kernels._ldmath("log", np.array([0.0, np.inf, -1.0], dtype=ld))
    assert out[0] == -np.inf and out[1] == np.inf and np.isnan(out[2])
    assert law_kernels._ldmath("exp", np.array([-np.inf], dtype=ld))[0] == 0
    assert law_kernels._ldmath("expm1", np.array([-np.inf], dtype=ld))[0] == -1
    assert law_kernels._ldmath("log1p", np.array([-1.0], dtype=ld))[0] == -np.inf


def _mp_cells(p, q, b):
    """Exact cells of two laws (mpmath lists) plus Laplace(b) noise: cell
    masses and L, R of both laws (interior cells 1..n-1)."""
    n = len(p)
    u = mpmath.exp(-1 / mpmath.mpf(b))
    hw = (1 - u) / 2

    def side(a):
        L = [mpmath.fsum(a[k] * u ** (j - k) for k in range(j + 1)) for j in range(n)]
        R = [mpmath.fsum(a[k] * u ** (k - j - 1) for k in range(j + 1, n)) for j in range(n)]
        cells = [(a[0] + u * R[0]) / 2] + [hw * (L[j] + R[j]) for j in range(n - 1)] + [L[-1] / 2]
        return cells, L, R

    return side(p), side(q)


@pytest.mark.parametrize("rate", [1e-9, 0.3])
def test_laplace_cells_diff_ratios(rate):
    """P = rate Z(.-1) + (1-rate) Z, Q = Z: with the law ratio the cells' log
    ratios come from the difference law; every one within its error estimate
    of the exact value, and the log1p form to ~1e-18 absolute."""
    b = 1.7
    with mpmath.workdps(50):
        z = [mpmath.binomial(24, k) * mpmath.mpf(0.3) ** k * mpmath.mpf(0.7) ** (24 - k)
             for k in range(25)]
        r = mpmath.mpf(rate)
        q = z + [mpmath.mpf(0)]
        p = [(1 - r) * z[0]] + [r * z[k - 1] + (1 - r) * z[k] for k in range(1, 25)] + [r * z[24]]
        lp = np.array([mpmath.nstr(mpmath.log(v), 30) for v in p], dtype=ld)
        lq = np.array([mpmath.nstr(mpmath.log(v), 30) if v > 0 else "-inf" for v in q], dtype=ld)
        lr = np.array([mpmath.nstr(mpmath.log(a / c), 30) if c > 0 else "inf"
                       for a, c in zip(p, q)], dtype=ld)
        (cp, lpl, lpr), (cq, lql, lqr) = _mp_cells(p, q, b)
        for law_lr in (lr, None):
            out = noise_kernels.laplace_cells_diff(lp, lq, law_lr, b)
            cell_lp, cell_lq, ll_p, lr_p, ll_q, lr_q, cell_lr, err_c, err_l, err_r = out
            n = len(p)
            for j in range(n + 1):
                if cq[j] > 0:
                    truth = mpmath.log(cp[j] / cq[j])
                    assert abs(_mpf_exact(cell_lr[j]) - truth) <= 1.01 * err_c[j]
            for j in range(n - 1):            # interior cell j + 1: L_j, R_j
                for hp, hq, tp, tq, err in ((ll_p, ll_q, lpl, lql, err_l),
                                            (lr_p, lr_q, lpr, lqr, err_r)):
                    if tq[j] > 0:
                        got = _mpf_exact(hp[j + 1]) - _mpf_exact(hq[j + 1])
                        truth = mpmath.log(tp[j] / tq[j])
                        assert abs(got - truth) <= 1.01 * err[j + 1] + 2e-19 * abs(float(hq[j + 1]))
            if law_lr is not None and rate < 1e-6:
                # D is tiny against Q everywhere inside: the log1p form, 1e-18
                assert np.all(err_c[1:n] < 1e-17)
