"""Density estimators of the query values and delta_i for batches (b).

An estimator is fitted once on q = (q_1..q_R), the query on every full
database, and applied unchanged to every leave-one-out set q_i: the same
kernel and, database by database, the same width (q_{i,r} gets the width of
q_r).  Then p and p_i differ only through the points that moved.

    kde-laplace   p(x) = 1/R sum_r exp(-|x - q_r|/b) / (2b)
    kde-gauss     p(x) = 1/R sum_r phi((x - q_r)/s) / s
    kde-adaptive  Gaussian kernels of width w_r = s d_r / G (Breiman, Meisel &
                  Purcell): d_r the distance from q_r to its k-th nearest
                  neighbour in q, k = round(sqrt R), G the geometric mean of
                  the d_r (so s is the typical width)
    ecdf          the empirical CDF differenced over bins of about sqrt(R)
                  points of q (edges at every k-th order statistic of q); p_i
                  is the ECDF of q_i on the same bins

Bandwidth (b, s): "silverman" 1.06 sd(q) R^(-1/5) (for a Laplace kernel the
scale of equal variance, divided by sqrt 2), "cv" the maximiser of the
leave-one-out log-likelihood sum_r ln( 1/(R-1) sum_{t != r} K_t(q_r - q_t) )
over [silverman/64, 8 silverman] (a 37-point grid in log scale, then a
golden-section search), or a positive number.
"""
import math
from dataclasses import dataclass, field
from typing import Any, Optional, cast

import numpy as np

from statpriv import _progress, _validate

__all__ = ["ESTIMATORS", "Estimator", "fit_estimator"]

ESTIMATORS = ("kde-laplace", "kde-gauss", "kde-adaptive", "ecdf")
DEFAULT_TOL = 1e-14     # quadrature bound per individual (Gaussian kernels), added to delta
# Gaussian kernels cost 1-10 ms per individual: this many at a time, with a
# progress bar when all of them take seconds (each row is integrated on its own)
GAUSS_ROWS = 256


def _kde() -> Any:
    from statpriv.empirical import _kde
    return _kde


def silverman(q: Any) -> Any:
    """1.06 sd(q) R^(-1/5) (Silverman's rule for a Gaussian kernel)."""
    sd = float(np.std(q, ddof=1))
    if not sd > 0.0:
        raise ValueError("the query takes the same value on every database: no bandwidth "
                         "rule applies; pass bandwidth=<a positive number>")
    return 1.06 * sd * len(q) ** -0.2


def knn_distance(q: Any, k: Any) -> Any:
    """Distance from each q_r to its k-th nearest other point of q."""
    R = len(q)
    k = min(k, R - 1)
    order = np.argsort(q, kind="stable")
    x = q[order]
    offsets = np.concatenate((np.arange(-k, 0), np.arange(1, k + 1)))
    idx = np.arange(R)[:, None] + offsets[None, :]
    valid = (idx >= 0) & (idx < R)
    dist = np.where(valid, np.abs(x[np.clip(idx, 0, R - 1)] - x[:, None]), np.inf)
    dk = np.partition(dist, k - 1, axis=1)[:, k - 1]
    out = np.empty(R)
    out[order] = dk
    return out


def _relative_widths(q: Any, kind: Any) -> Any:
    """Per-database widths for scale 1 (ones, or BMP's d_r / G)."""
    if kind != "kde-adaptive":
        return np.ones(len(q))
    d = knn_distance(q, max(1, int(round(math.sqrt(len(q))))))
    positive = d[d > 0]
    if len(positive) == 0:
        raise ValueError("kde-adaptive: every query value repeats: no nearest-neighbour "
                         "distances; use kde-gauss or kde-laplace with a numeric bandwidth")
    d = np.maximum(d, 0.01 * np.median(positive))
    return d / math.exp(np.mean(np.log(d)))


def _log_kernel(kernel: Any, dist: Any, w: Any) -> Any:
    if kernel == "laplace":
        return -dist / w - np.log(2.0 * w)
    return -0.5 * (dist / w) ** 2 - np.log(w * math.sqrt(2.0 * math.pi))


def loo_log_likelihood(q: Any, rel: Any, kernel: Any, scale: Any, chunk: Any = 512) -> Any:
    """sum_r ln(1/(R-1) sum_{t != r} K_{scale rel_t}(q_r - q_t))."""
    R = len(q)
    w = scale * rel
    total = 0.0
    for lo in range(0, R, chunk):
        d = np.abs(q[lo:lo + chunk, None] - q[None, :])
        lk = _log_kernel(kernel, d, w[None, :])
        lk[np.arange(d.shape[0]), np.arange(lo, lo + d.shape[0])] = -np.inf
        top = lk.max(axis=1, keepdims=True)
        total += float(np.sum(top[:, 0] + np.log(np.sum(np.exp(lk - top), axis=1))))
    return total - R * math.log(R - 1)


_BANDWIDTH_RANGE = (1e-6, 1e6)       # a numeric bandwidth, relative to std(q)


def choose_scale(q: Any, kind: Any, bandwidth: Any) -> Any:
    """The kernel scale (Laplace b, Gaussian s, adaptive typical width)."""
    kernel = "laplace" if kind == "kde-laplace" else "gauss"
    if not isinstance(bandwidth, str):
        h = _validate.real("bandwidth", bandwidth, low=0.0, low_open=True)
        spread = float(np.std(q))
        if spread > 0.0 and not _BANDWIDTH_RANGE[0] * spread <= h <= _BANDWIDTH_RANGE[1] * spread:
            # beyond it the kernel integrals lose every digit (wider) or underflow
            raise ValueError(f"bandwidth must lie in [{_BANDWIDTH_RANGE[0]:g}, "
                             f"{_BANDWIDTH_RANGE[1]:g}] x the standard deviation of the query "
                             f"values ({spread:.6g}), got {h!r}")
        return h
    _validate.choice("bandwidth", bandwidth, ("cv", "silverman"))
    h = silverman(q)
    if kernel == "laplace":
        h /= math.sqrt(2.0)
    if bandwidth == "silverman":
        return h
    rel = _relative_widths(q, kind)

    def ll(t: Any) -> Any:
        return loo_log_likelihood(q, rel, kernel, math.exp(t))

    grid = np.linspace(math.log(h / 64), math.log(8 * h), 37)
    values = np.array([ll(t) for t in grid])
    j = int(np.argmax(values))
    if j in (0, len(grid) - 1):
        return math.exp(grid[j])
    return math.exp(_golden_max(ll, grid[j - 1], grid[j + 1], grid[j], values[j]))


def _golden_max(f: Any, lo: Any, hi: Any, best: Any, f_best: Any, tol: Any = 1e-4) -> Any:
    """Golden-section search for a maximum of f on [lo, hi] (f unimodal there);
    never returns a point worse than ``best``."""
    g = (math.sqrt(5.0) - 1.0) / 2.0
    a, b = lo, hi
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = f(c), f(d)
    while b - a > tol:
        if fc >= fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = f(d)
    for x, fx in ((c, fc), (d, fd)):
        if fx > f_best:
            best, f_best = x, fx
    return best


@dataclass
class Estimator:
    """A density estimator fitted on q (see the module docstring).

    kind: one of ESTIMATORS; q: the R full query values (database order);
    widths: each database's kernel width (R,), scale * relative width;
    scale: the bandwidth; edges / mass: the ECDF bins and q's bin masses."""
    kind: str
    q: np.ndarray
    scale: float = math.nan
    widths: Optional[np.ndarray] = None
    edges: Optional[np.ndarray] = None
    mass: Optional[np.ndarray] = None
    _a: Optional[np.ndarray] = field(default=None, repr=False)
    _wa: Optional[np.ndarray] = field(default=None, repr=False)

    def __post_init__(self) -> None:
        order = np.argsort(self.q, kind="stable")
        self._a = np.ascontiguousarray(self.q[order])
        if self.widths is not None:
            self._wa = np.ascontiguousarray(self.widths[order])

    @property
    def kernel(self) -> Any:
        """'laplace', 'gauss' or None (ecdf)."""
        return {"kde-laplace": "laplace", "ecdf": None}.get(self.kind, "gauss")

    def prepare(self, Q: Any) -> Any:
        """Rows of Q sorted (and their widths): the input of deltas_prepared."""
        Q = np.asarray(Q, dtype=np.float64)
        if Q.ndim != 2 or Q.shape[1] != len(self.q):
            raise ValueError(f"Q must have shape (individuals, {len(self.q)}), got {Q.shape}")
        if self.kind == "kde-adaptive":
            idx = np.argsort(Q, axis=1, kind="stable")
            widths = cast(np.ndarray, self.widths)
            return np.take_along_axis(Q, idx, axis=1), np.ascontiguousarray(widths[idx])
        return np.sort(Q, axis=1), None

    def deltas_prepared(self, prepared: Any, eps: Any, tol: Any = DEFAULT_TOL) -> Any:
        """(b) delta_i = max(int (p - e^eps p_i)_+, int (p_i - e^eps p)_+) per row,
        and the quadrature bound already added to it (0 where exact)."""
        rows, wrows = prepared
        kde = _kde()
        bound = np.zeros(len(rows))
        if self.kind == "kde-laplace":
            plus, minus = kde.laplace_delta(self._a, rows, self.scale, eps)
        elif self.kind == "ecdf":
            plus, minus = kde.hist_delta(self.edges, self.mass, rows, eps)
        else:
            if wrows is None:
                wrows = np.full(rows.shape, self.scale)
            plus, minus, bound = _gauss_deltas(kde, self._a, self._wa, rows, wrows, eps, tol)
        return np.minimum(np.maximum(plus, minus), 1.0), bound

    def pair_bounds(self, prepared: Any, eps: Any) -> Any:
        """Certified upper bounds of delta_i per row (rows of ``prepare``), or
        None where none is known (every kernel but kde-gauss; eps < 0).

        With Gaussian kernels of one width s both estimates are equal-weight
        mixtures of R kernels; paired in sorted order (the i-th smallest
        point of q with the i-th smallest of q_i), joint convexity of the
        hockey-stick divergence gives delta_i <= 1/R sum_j H_eps(N(a_j, s^2)
        || N(b_j, s^2)), each term the closed form of a Gaussian shift
        mu = |a_j - b_j| / s, Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu)
        in either direction (Balle & Wang, "Improving the Gaussian mechanism
        for differential privacy: analytical calibration and optimal
        denoising").  Each term is good to ~4e-16 (1 + e^eps) absolutely:
        that much is added per term, and 1e-12 of the mean."""
        if self.kind != "kde-gauss" or not eps >= 0.0:
            return None
        from scipy.special import ndtr
        rows = prepared[0]
        a = np.sort(self.q)
        e = math.exp(eps)
        out = np.empty(len(rows))
        # a few thousand rows at a time: mu is as large as the rows it covers
        for i in range(0, len(rows), 4096):
            mu = np.abs(rows[i:i + 4096] - a) / self.scale
            with np.errstate(divide="ignore", invalid="ignore"):
                h = ndtr(0.5 * mu - eps / mu) - e * ndtr(-0.5 * mu - eps / mu)
            h = np.where(mu > 0.0, np.maximum(h, 0.0) + 4e-16 * (1.0 + e), 0.0)
            out[i:i + 4096] = h.mean(axis=1) * (1.0 + 1e-12)
        return out

    def deltas(self, Q: Any, eps: Any, tol: Any = DEFAULT_TOL) -> Any:
        """(b) delta_i for a batch: Q[i, r] = q_{i,r} (database order as q)."""
        return self.deltas_prepared(self.prepare(Q), eps, tol)

    def density(self, x: Any, values: Any = None) -> Any:
        """The estimate at points x, fitted on q (or on values = some q_i)."""
        x = np.asarray(x, dtype=np.float64)
        pts = self.q if values is None else np.asarray(values, dtype=np.float64)
        if self.kind == "ecdf":
            inner = cast(np.ndarray, self.edges)
            lo, hi = min(pts.min(), self.q.min()), max(pts.max(), self.q.max())
            full = np.concatenate(([lo], inner, [hi]))
            counts = np.bincount(np.searchsorted(inner, pts, side="right"),
                                 minlength=len(full) - 1) / len(pts)
            width = np.diff(full)
            dens = np.divide(counts, width, out=np.zeros_like(counts), where=width > 0)
            b = np.searchsorted(inner, x, side="right")
            return np.where((x >= lo) & (x <= hi), dens[b], 0.0)
        w = self.widths
        d = np.abs(x[..., None] - pts)
        return np.mean(np.exp(_log_kernel(self.kernel, d, w)), axis=-1)


def fit_estimator(q: Any, estimator: Any = "kde-laplace", bandwidth: Any = "cv") -> Any:
    """Fit an Estimator on the full query values q (R >= 2)."""
    _validate.choice("estimator", estimator, ESTIMATORS)
    q = np.ascontiguousarray(q, dtype=np.float64)
    R = len(q)
    if estimator == "ecdf":
        k = max(1, int(round(math.sqrt(R))))
        a = np.sort(q)
        edges = np.unique(a[k::k])
        mass = np.bincount(np.searchsorted(edges, q, side="right"),
                           minlength=len(edges) + 1) / R
        return Estimator("ecdf", q, edges=edges, mass=mass)
    scale = choose_scale(q, estimator, bandwidth)
    widths = scale * _relative_widths(q, estimator)
    return Estimator(estimator, q, scale=scale, widths=widths)


def _gauss_deltas(kde: Any, a: Any, wa: Any, rows: Any, wrows: Any, eps: Any, tol: Any) -> Any:
    """kde.bound_delta with Gaussian kernels, GAUSS_ROWS rows at a time for
    many rows (the same values: each row is integrated on its own)."""
    if len(rows) <= GAUSS_ROWS:
        return kde.bound_delta(kde.GAUSS, a, wa, rows, wrows, eps, tol)
    with _progress.bar(len(rows), "Gaussian-kernel deltas", unit="individual") as bar:
        parts = [kde.bound_delta(kde.GAUSS, a, wa, rows[i:j], wrows[i:j], eps, tol)
                 for i, j in _progress.chunks(len(rows), GAUSS_ROWS, bar)]
    return tuple(np.concatenate(column) for column in zip(*parts))
