"""Vector-valued queries: d <= 3 statistics of each database at once.

A vector query releases q_r = (f_1(X^r), .., f_d(X^r)) in R^d.  The
leave-one-out values q_{i,r} are those of each component (the scalar
building blocks of statpriv.empirical._loo, column by column), and the
density estimate is a product-kernel KDE, one kernel width s_k per axis:

    p(x)   = 1/R sum_r prod_k K_{s_k}(x_k - q_{r,k}),
    p_i(x) = 1/R sum_r prod_k K_{s_k}(x_k - q_{i,r,k}),
    delta_i(eps) = max( int (p - e^eps p_i)_+ dx , int (p_i - e^eps p)_+ dx ),

K the Laplace or the Gaussian kernel, s_k the scalar rule ("cv",
"silverman" or a number) applied to axis k's values q_{.,k} alone, unless
given.  The region where p - e^eps p_i > 0 is not a product set, so the
integral is not a product of 1-D integrals: csrc/kde.c (sp_kde_box_delta)
subdivides the domain (every point +- 40 widths per axis) into boxes, the
box with the widest interval first.  On each box both integrands are
bounded (kernel values at the nearest and farthest points; the kernel
ratio's exact range; and, second order, the range of the gradient through
the mean value theorem, whose two linear envelopes integrate in closed form)
and the kernels' box integrals are exact products of CDF differences.  A box
of certified sign adds its exact integral or nothing; an undecided one adds
an interval.  The loop stops when the interval of delta_i is narrower than
``tol`` (default 1e-7 absolute; ``ep.estimator.tol`` sets it) or after
``max_boxes`` boxes; delta_i is the UPPER end (never below the integral,
rounding bounded) and the width of the interval is reported as its bound.  d = 1 takes the scalar
estimators (exact for Laplace kernels).
"""
import math
from dataclasses import dataclass, field
from typing import Any, List, Optional, Tuple

import numpy as np

from statpriv import _progress, _validate
from statpriv.empirical import _loo
from statpriv.empirical._estimators import choose_scale

__all__ = ["MAX_DIM", "VECTOR_ESTIMATORS", "is_vector", "parse_components", "vector_name",
           "ProductEstimator", "fit_product_estimator", "vector_leave_one_out"]

MAX_DIM = 3
VECTOR_ESTIMATORS = ("kde-laplace", "kde-gauss")
# width of the certified interval per individual (delta_i is its upper end)
DEFAULT_TOL = 1e-7
MAX_BOXES = 200_000         # boxes per individual and eps (then the interval is wider)
_ROWS = 64                  # individuals per C call (progress bar granularity)


def is_vector(query: Any, value: Any) -> bool:
    """True for a vector query: a list/tuple of queries or of value columns."""
    return isinstance(query, (list, tuple)) or isinstance(value, (list, tuple))


def parse_components(query: Any, value: Any) -> Tuple[List[Any], List[Any], Optional[Any]]:
    """(queries, columns, callable): one parsed query and one value column
    per component for the built-in queries; for a callable query, the
    columns it reads (its values arrive as an (n, k) array, (n,) for one
    column) and the callable itself (the number of components is then the
    length of what it returns)."""
    columns = _listed("value", value, lambda c: isinstance(c, str) or np.isscalar(c),
                      "a column name")
    if callable(query):
        return [], columns, _loo.parse_query(query)
    if not isinstance(query, (list, tuple)):
        query = [query] * len(columns)
    queries = _listed("query", query, lambda q: isinstance(q, str),
                      "a name (a callable returns the whole vector)")
    if len(columns) == 1:
        columns = columns * len(queries)
    if len(queries) != len(columns):
        raise ValueError(f"value names {len(columns)} columns for {len(queries)} queries: "
                         f"give one column, or one per query")
    parsed = [_loo.parse_query(q, f"query[{k}]") for k, q in enumerate(queries)]
    return parsed, columns, None


def _listed(name: str, value: Any, is_entry: Any, what: str) -> List[Any]:
    """``value`` as a list of 1 to MAX_DIM entries (a single entry: a list of one)."""
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    for item in items:
        if not is_entry(item):
            raise _validate.ParameterTypeError(f"{name} must be {what} or a list of them, got "
                                               f"an entry of type {type(item).__name__}")
    if not 1 <= len(items) <= MAX_DIM:
        raise ValueError(f"{name} names {len(items)} entries: vector queries take 1 to "
                         f"{MAX_DIM} components")
    return items


def vector_leave_one_out(data: Any, query: Any, value: Any, individual: Any, database: Any,
                         workers: Any = None, progress: Any = None) -> Any:
    """(q (R, d), Q (I, R, d), encoded (of the first column), name): the
    query on every database, with and without each individual."""
    parsed, columns, func = parse_components(query, value)
    encs = [_loo.encode(data, individual, database, c) for c in dict.fromkeys(columns)]
    by_column = dict(zip(dict.fromkeys(columns), encs))
    enc = encs[0]
    if func is not None:
        values = enc.values if len(encs) == 1 else np.column_stack([e.values for e in encs])
        both = _loo.Encoded(enc.ind_codes, enc.db_codes, values, enc.individuals,
                            enc.databases)
        dim = _callable_dim(func, both)
        q, Q = _loo.generic_leave_one_out(func.func, both, workers=workers, progress=progress,
                                          dim=dim)
        return q, Q, enc, func.name
    qs, Qs = [], []
    for k, (p, col) in enumerate(zip(parsed, columns)):
        e = by_column[col]
        stats = _loo.database_statistics(e.db_codes, e.values, len(e.databases), p)
        if not np.isfinite(stats.q).all():
            bad = e.databases[np.flatnonzero(~np.isfinite(stats.q))[0]]
            raise ValueError(f"query[{k}] {p.name!r} is not finite on database {bad!r}")
        qs.append(stats.q)
        Qs.append(_loo.leave_one_out(stats, e.ind_codes, e.db_codes, e.values,
                                     len(e.individuals), individuals=e.individuals,
                                     databases=e.databases))
    return np.stack(qs, axis=-1), np.stack(Qs, axis=-1), enc, vector_name(parsed, columns)


def vector_name(parsed: Any, columns: Any) -> str:
    """The name of a vector query of built-in components: "(query:column, ...)"."""
    return "(" + ", ".join(f"{p.name}:{c}" for p, c in zip(parsed, columns)) + ")"


def _callable_dim(func: Any, enc: Any) -> int:
    """The length d of the vector a callable query returns (on the first database)."""
    first = enc.values[enc.db_codes == 0]
    out = _first_value(func, first)
    d = int(out.size)
    if out.ndim > 1 or not 1 <= d <= MAX_DIM:
        raise ValueError(f"query {func.name!r} returned {d} values (shape {out.shape}): "
                         f"vector queries return 1 to {MAX_DIM} numbers")
    return d


def _first_value(func: Any, values: Any) -> Any:
    try:
        return np.asarray(func.func(values), dtype=np.float64)
    except Exception as exc:
        raise type(exc)(f"query {func.name!r} failed on a database's values: {exc}") from exc


def bandwidths(q: Any, kind: str, bandwidth: Any) -> Tuple[float, ...]:
    """The kernel width per axis: the scalar rule on each axis's values, or
    the given width(s) (one for all axes, or one per axis)."""
    d = q.shape[1]
    if isinstance(bandwidth, (list, tuple, np.ndarray)):
        rules = list(bandwidth)
        if len(rules) != d:
            raise ValueError(f"bandwidth gives {len(rules)} widths for a query of {d} "
                             f"components: give one rule or one per component")
    else:
        rules = [bandwidth] * d
    return tuple(float(choose_scale(np.ascontiguousarray(q[:, k]), kind, rule))
                 for k, rule in enumerate(rules))


@dataclass
class ProductEstimator:
    """A product-kernel KDE fitted on q (R, d) (see the module docstring).

    kind: "kde-laplace" or "kde-gauss"; scales: the kernel width per axis;
    tol, max_boxes: the quadrature's target interval width and budget."""
    kind: str
    q: np.ndarray
    scales: Tuple[float, ...]
    tol: float = DEFAULT_TOL
    max_boxes: int = MAX_BOXES
    _a: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._a = np.ascontiguousarray(self.q, dtype=np.float64)

    @property
    def scale(self) -> Tuple[float, ...]:
        """The kernel widths, one per axis."""
        return self.scales

    @property
    def kernel(self) -> str:
        """'laplace' or 'gauss'."""
        return "laplace" if self.kind == "kde-laplace" else "gauss"

    def prepare(self, Q: Any) -> Any:
        """The rows as the C kernel reads them (database order: each point is
        paired with its database's point of q)."""
        Q = np.ascontiguousarray(Q, dtype=np.float64)
        if Q.ndim != 3 or Q.shape[1:] != self.q.shape:
            raise ValueError(f"Q must have shape (individuals, {self.q.shape[0]}, "
                             f"{self.q.shape[1]}), got {Q.shape}")
        return Q, None

    def deltas_prepared(self, prepared: Any, eps: Any, tol: Any = None) -> Any:
        """delta_i per row (the upper end of its certified interval) and the
        interval's width."""
        from statpriv.empirical import _kde
        rows = prepared[0]
        tol = self.tol if tol is None else tol
        kernel = _kde.LAPLACE if self.kind == "kde-laplace" else _kde.GAUSS
        scales = np.array(self.scales)
        if len(rows) <= _ROWS:
            plus, minus, bound = _kde.box_delta(kernel, self._a, rows, scales, eps, tol,
                                                self.max_boxes)
        else:
            with _progress.bar(len(rows), "vector-query deltas", unit="individual") as bar:
                parts = [_kde.box_delta(kernel, self._a, rows[i:j], scales, eps, tol,
                                        self.max_boxes)
                         for i, j in _progress.chunks(len(rows), _ROWS, bar)]
            plus, minus, bound = (np.concatenate(col) for col in zip(*parts))
        return np.minimum(np.maximum(plus, minus), 1.0), bound

    def deltas(self, Q: Any, eps: Any, tol: Any = None) -> Any:
        """delta_i and its bound for a batch Q (I, R, d)."""
        return self.deltas_prepared(self.prepare(Q), eps, tol)

    def pair_bounds(self, prepared: Any, eps: Any) -> None:
        """No cheap bound here (the scalar Gaussian one is one-dimensional)."""
        return None

    def density(self, x: Any, values: Any = None) -> Any:
        """The estimate at points x (..., d), fitted on q (or on values = some q_i)."""
        x = np.asarray(x, dtype=np.float64)
        d = self.q.shape[1]
        if x.shape[-1:] != (d,):
            raise ValueError(f"x must have a last axis of length {d} (one coordinate per "
                             f"component), got shape {x.shape}")
        pts = self.q if values is None else np.asarray(values, dtype=np.float64)
        log_k = np.zeros(x.shape[:-1] + (len(pts),))
        for k, s in enumerate(self.scales):
            dist = np.abs(x[..., k, None] - pts[:, k])
            if self.kernel == "laplace":
                log_k += -dist / s - math.log(2.0 * s)
            else:
                log_k += -0.5 * (dist / s) ** 2 - math.log(s * math.sqrt(2.0 * math.pi))
        return np.mean(np.exp(log_k), axis=-1)


def fit_product_estimator(q: Any, estimator: str, bandwidth: Any) -> ProductEstimator:
    """Fit a ProductEstimator on q (R, d), 2 <= d <= 3."""
    _validate.choice("estimator", estimator, VECTOR_ESTIMATORS)
    q = np.ascontiguousarray(q, dtype=np.float64)
    return ProductEstimator(estimator, q, bandwidths(q, estimator, bandwidth))


def check_arrays(q: Any, Q: Any, n_individuals: int) -> Tuple[Any, Any]:
    """q (R, d) and Q (I, R, d) of a vector query, validated."""
    q = np.asarray(q, dtype=np.float64)
    Q = np.asarray(Q, dtype=np.float64)
    if q.ndim != 2 or not 1 <= q.shape[1] <= MAX_DIM:
        raise ValueError(f"q must have shape (databases, d) with 1 <= d <= {MAX_DIM}, got "
                         f"{q.shape}")
    if Q.shape != (n_individuals,) + q.shape:
        raise ValueError(f"Q has shape {Q.shape}, expected ({n_individuals}, "
                         f"{q.shape[0]}, {q.shape[1]})")
    for name, arr in (("q", q), ("Q", Q)):
        if not np.isfinite(arr).all():
            raise ValueError(f"{name} has NaN or infinite entries")
    return q, Q

