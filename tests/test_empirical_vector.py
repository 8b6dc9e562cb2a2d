"""Vector-valued queries of statpriv.empirical (product-kernel KDEs in d <= 3).

Checked against: the scalar path (d = 1), independent brute-force integrals
(d = 2, both kernels: the x-integral in closed form per knot interval for
Laplace kernels, nested adaptive quadrature split at the sign changes for
Gaussians), and a product case whose 2-D integral is a 1-D one.
"""
import math

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, optimize

from statpriv.empirical import EmpiricalPrivacy, _kde
from statpriv.empirical.data import synthetic


def _frame(n_ind=10, n_db=12, seed=1):
    frame = synthetic(n_ind, n_db, seed=seed)
    frame["other"] = np.random.default_rng(seed).normal(size=len(frame))
    return frame


# -- independent brute force (d = 2) ------------------------------------------
def _laplace_line(ax, aw, bx, bw, c, s):
    """int (sum_j aw_j L(x - ax_j) - c sum_j bw_j L(x - bx_j))_+ dx, L the Laplace
    density of scale s: between knots A e^{-u/s} + B e^{-(h-u)/s}, one root at most."""
    t = np.concatenate([ax, bx])
    w = np.concatenate([aw, -c * bw]) / (2 * s)
    order = np.argsort(t)
    t, w = t[order], w[order]
    total = s * max(np.sum(w * np.exp(-(t - t[0]) / s)), 0.0)
    total += s * max(np.sum(w * np.exp(-(t[-1] - t) / s)), 0.0)
    for l in range(len(t) - 1):
        h = t[l + 1] - t[l]
        if h <= 0:
            continue
        A = np.sum(w[:l + 1] * np.exp(-(t[l] - t[:l + 1]) / s))
        B = np.sum(w[l + 1:] * np.exp(-(t[l + 1:] - t[l + 1]) / s))
        lo, hi = 0.0, h
        if A * B < 0:
            u0 = min(max(0.5 * (h + s * math.log(-A / B)), 0.0), h)
            lo, hi = (0.0, u0) if A > 0 else (u0, h)
        elif A <= 0 and B <= 0:
            continue
        prim = lambda u: -A * s * math.exp(-u / s) + B * s * math.exp(-(h - u) / s)  # noqa: E731
        total += prim(hi) - prim(lo)
    return total


def _brute_laplace(a, b, s, eps):
    c, n = math.exp(eps), len(a)
    out = []
    for P, Q in ((a, b), (b, a)):
        def H(y):
            wa = np.exp(-np.abs(y - P[:, 1]) / s[1]) / (2 * s[1] * n)
            wb = np.exp(-np.abs(y - Q[:, 1]) / s[1]) / (2 * s[1] * n)
            return _laplace_line(P[:, 0], wa, Q[:, 0], wb, c, s[0])
        knots = np.unique(np.concatenate([a[:, 1], b[:, 1]]))
        edges = np.concatenate([[knots[0] - 45 * s[1]], knots, [knots[-1] + 45 * s[1]]])
        out.append(sum(integrate.quad(H, lo, hi, epsabs=1e-15, epsrel=1e-13, limit=500)[0]
                       for lo, hi in zip(edges[:-1], edges[1:])))
    return out


def _brute_gauss(a, b, s, eps):
    c, n = math.exp(eps), len(a)
    box = [(min(a[:, k].min(), b[:, k].min()) - 12 * s[k],
            max(a[:, k].max(), b[:, k].max()) + 12 * s[k]) for k in range(2)]
    grid = np.linspace(*box[0], 801)
    norm = 1.0 / (2 * math.pi * s[0] * s[1] * n)
    out = []
    for P, Q in ((a, b), (b, a)):
        def H(y):
            wa = np.exp(-0.5 * ((y - P[:, 1]) / s[1]) ** 2)
            wb = np.exp(-0.5 * ((y - Q[:, 1]) / s[1]) ** 2)

            def F(x):
                x = np.asarray(x, dtype=float)[..., None]
                return norm * (np.sum(wa * np.exp(-0.5 * ((x - P[:, 0]) / s[0]) ** 2), -1)
                               - c * np.sum(wb * np.exp(-0.5 * ((x - Q[:, 0]) / s[0]) ** 2), -1))
            v = F(grid)
            cuts = [optimize.brentq(F, grid[i], grid[i + 1], xtol=1e-14)
                    for i in np.flatnonzero(np.sign(v[:-1]) * np.sign(v[1:]) < 0)]
            edges = [box[0][0]] + cuts + [box[0][1]]
            return sum(integrate.quad(lambda x: max(float(F(x)), 0.0), u, w, epsabs=1e-15,
                                      epsrel=1e-12, limit=200)[0]
                       for u, w in zip(edges[:-1], edges[1:]))
        out.append(integrate.quad(H, *box[1], epsabs=1e-14, epsrel=1e-11, limit=500)[0])
    return out


# the nested Gaussian quadrature is good to ~1e-10 (it moves by 5e-11 when its
# root-bracketing grid goes from 401 to 801 points); the Laplace one to 1e-12
_BRUTE_ERR = {"laplace": 1e-12, "gauss": 1e-10}
_A = np.array([[0.0, 0.0], [1.0, 0.5], [-0.7, 1.2]])
_B = _A.copy()
_B[1] = [1.6, -0.2]
_S = np.array([0.6, 0.8])


@pytest.mark.parametrize("kernel,brute,eps", [
    ("laplace", _brute_laplace, 0.4),
    pytest.param("laplace", _brute_laplace, 0.0, marks=pytest.mark.exhaustive),
    pytest.param("gauss", _brute_gauss, 0.0, marks=pytest.mark.exhaustive),
    pytest.param("gauss", _brute_gauss, 0.4, marks=pytest.mark.exhaustive)])
def test_two_dimensions_against_brute_force(kernel, brute, eps):
    code = _kde.LAPLACE if kernel == "laplace" else _kde.GAUSS
    want = brute(_A, _B, _S, eps)
    plus, minus, bound = _kde.box_delta(code, _A, _B[None], _S, eps, 1e-11, 4_000_000)
    assert 0.0 < bound[0] <= 1e-10
    # the upper end of a certified interval: never below, at most its width above
    slack = _BRUTE_ERR[kernel]
    for got, ref in ((plus[0], want[0]), (minus[0], want[1])):
        assert ref - slack <= got <= ref + bound[0] + slack


@pytest.mark.exhaustive
def test_gauss_two_dimensions_quick_brute_force():
    """The Gaussian case on two points, one moved (the quadrature is then fast)."""
    a, b = _A[:2], _B[:2]
    want = _brute_gauss(a, b, _S, 1.0)
    plus, minus, bound = _kde.box_delta(_kde.GAUSS, a, b[None], _S, 1.0, 1e-8, 1_000_000)
    for got, ref in ((plus[0], want[0]), (minus[0], want[1])):
        assert ref - _BRUTE_ERR["gauss"] <= got <= ref + bound[0] + _BRUTE_ERR["gauss"]


def test_box_kernel_in_one_dimension_equals_the_exact_laplace():
    rng = np.random.default_rng(3)
    a = rng.normal(size=(15, 1))
    b = a.copy()
    b[:4, 0] += rng.normal(scale=0.4, size=4)
    for eps in (0.0, 0.2, -0.3):
        p1, m1 = _kde.laplace_delta(np.sort(a[:, 0]), np.sort(b[:, 0])[None], 0.4, eps)
        p, m, bound = _kde.box_delta(_kde.LAPLACE, a, b[None], np.array([0.4]), eps, 1e-12,
                                     500_000)
        assert bound[0] <= 1e-12
        assert abs(p[0] - p1[0]) <= 2e-12 and abs(m[0] - m1[0]) <= 2e-12


def test_one_component_is_the_scalar_path():
    frame = _frame()
    scalar = EmpiricalPrivacy(frame, "sum")
    for vec in (EmpiricalPrivacy(frame, ["sum"]), EmpiricalPrivacy(frame, "sum", value=["value"])):
        for eps in (0.0, 0.5):
            assert np.array_equal(vec.deltas(eps).to_numpy(), scalar.deltas(eps).to_numpy())
        assert vec.total_risk(0.5) == scalar.total_risk(0.5)
        assert vec.epsilon(0.01) == scalar.epsilon(0.01)
    # a callable sums in numpy's order (not the exact per-database sums): 1e-12
    vec = EmpiricalPrivacy(frame, lambda v: [v.sum()], value=["value"])
    np.testing.assert_allclose(vec.deltas(0.5).to_numpy(), scalar.deltas(0.5).to_numpy(),
                               rtol=0, atol=1e-12)


def test_product_case_reduces_to_one_dimension():
    """q on a grid (x_j, y_k); the individual moves the x_j only: then
    p = p1(x) p2(y), p_i = p1'(x) p2(y) and the 2-D integral is the 1-D one."""
    xs = np.array([-1.0, 0.3, 0.9, 2.0])
    ys = np.array([0.0, 0.7, 1.5])
    moved = xs + np.array([0.0, 0.45, 0.0, -0.3])
    q = np.array([[x, y] for x in xs for y in ys])
    Q = np.array([[[x, y] for x in moved for y in ys]])
    for estimator in ("kde-laplace", "kde-gauss"):
        two = EmpiricalPrivacy._from_arrays(q, Q, ["i"], range(len(q)), "grid", estimator,
                                            [0.5, 0.6])
        two.estimator.tol = 1e-7
        one = EmpiricalPrivacy._from_arrays(xs, moved[None], ["i"], range(len(xs)), "sum",
                                            estimator, 0.5)
        got, ref = two.deltas(0.3).iloc[0], one.deltas(0.3).iloc[0]
        assert ref - 1e-13 <= got <= ref + 1e-7 + 1e-13


def test_results_and_api():
    frame = _frame(5, 7)
    ep = EmpiricalPrivacy(frame, ["sum", "count"], estimator="kde-laplace")
    ep.estimator.tol = 1e-4
    d = ep.deltas(0.5)
    assert isinstance(d, pd.Series) and d.index.equals(ep.individuals) and d.name == "delta"
    assert ep.delta(0.5) == d.max()
    top = ep.most_exposed(3, 0.5)
    assert list(top.to_numpy()) == sorted(d.to_numpy(), reverse=True)[:3]
    assert ep.total_risk(0.5) == pytest.approx(1 - np.prod(1 - d.to_numpy()), rel=1e-12)
    assert ep.delta(ep.epsilon(0.3)) <= 0.3
    assert len(ep.bandwidth) == 2 and ep.q.shape == (len(ep.databases), 2)
    assert ep.leave_one_out.shape == (len(ep.individuals), 2 * len(ep.databases))
    # the densities at a point are the product-kernel averages
    p, p_i = ep.densities([[0.0, 10.0]], ep.individuals[0])
    s = ep.bandwidth
    k = np.exp(-np.abs(ep.q.to_numpy() - [0.0, 10.0]) / s).prod(axis=1) / (4 * s[0] * s[1])
    assert p[0] == pytest.approx(k.mean(), rel=1e-12)
    # one rule per axis: the scalar rule on that axis's values
    assert s[0] == EmpiricalPrivacy(frame, "sum").bandwidth
    assert s[1] == EmpiricalPrivacy(frame, "count").bandwidth


def test_dask_path_equals_in_memory():
    dd = pytest.importorskip("dask.dataframe")
    import dask
    frame = _frame(5, 7)
    mem = EmpiricalPrivacy(frame, ["sum", "count"], value=["value", "other"])
    with dask.config.set(scheduler="synchronous"):
        lazy = EmpiricalPrivacy(dd.from_pandas(frame, npartitions=3), ["sum", "count"],
                                value=["value", "other"])
        for ep in (mem, lazy):
            ep.estimator.tol = 1e-4
        assert np.array_equal(lazy.deltas(0.5).to_numpy(), mem.deltas(0.5).to_numpy())
        assert lazy.total_risk(0.5) == mem.total_risk(0.5)
        assert np.array_equal(lazy.leave_one_out.to_numpy(), mem.leave_one_out.to_numpy())
        with pytest.raises(ValueError, match="query\\[0\\] 'quantile:q' needs a level q in "
                                             "\\[0, 1\\], got '2'"):
            EmpiricalPrivacy(dd.from_pandas(frame, npartitions=2), ["quantile:2", "sum"],
                             value=["value", "other"])


@pytest.mark.parametrize("kwargs,match", [
    (dict(query="sum", value=["value", "other", "value", "other"]), "value names 4"),
    (dict(query=["sum", "count", "mean", "sum"]), "query names 4"),
    (dict(query=["sum", "count"], value=["value", "other", "value"]), "value names 3"),
    (dict(query=lambda v: np.zeros(4), value=["value", "other"]), "returned 4 values"),
    (dict(query=["sum", "count"], estimator="ecdf"), "estimator"),
    (dict(query=["sum", "count"], bandwidth=[1.0, 2.0, 3.0]), "bandwidth"),
    (dict(query="sum", value=["value", "missing"]), "value='missing'"),
])
def test_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        EmpiricalPrivacy(_frame(4, 5), **kwargs)


def test_bad_arrays_and_nan():
    frame = _frame(4, 5)
    frame.loc[3, "other"] = np.nan
    with pytest.raises(ValueError, match="value column 'other'"):
        EmpiricalPrivacy(frame, "sum", value=["value", "other"])
    q = np.zeros((5, 2))
    with pytest.raises(ValueError, match="Q has shape"):
        EmpiricalPrivacy._from_arrays(q, np.zeros((2, 5, 3)), ["a", "b"], range(5), "v")
    with pytest.raises(ValueError, match="q must have shape"):
        EmpiricalPrivacy._from_arrays(np.zeros((5, 4)), np.zeros((2, 5, 4)), ["a", "b"],
                                      range(5), "v")
    bad = np.arange(10.0).reshape(5, 2)
    rows = np.tile(bad, (2, 1, 1))
    rows[1, 2, 0] = np.nan
    with pytest.raises(ValueError, match="Q has NaN"):
        EmpiricalPrivacy._from_arrays(bad, rows, ["a", "b"], range(5), "v", bandwidth=1.0)
    ep = EmpiricalPrivacy(_frame(4, 5), ["sum", "count"])
    for method in (ep.hausdorff, ep.matching_distance, lambda: ep.noise_scale(1.0)):
        with pytest.raises(ValueError, match="scalar queries"):
            method()
