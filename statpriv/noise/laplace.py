"""Laplace noise: the class and the exact curve of a count plus Laplace(b) noise.

On every unit interval between atoms both noisy densities are
(L e^(-t/b) + R e^(-(1-t)/b)) / (2b), so f_P - e^eps f_Q changes sign at most
once there and its positive part integrates in closed form; O(atoms)
(csrc/laplace.c, the cells of _kernels.laplace_cells_diff).  Laplace(b) noise makes
every count here pure DP (|ln f_P/f_Q| <= 1/b; Breutigam & Reischuk Lemma 5),
so delta is exactly 0 from eps = 1/b on -- from the exact zero point
ln G_P(e^(1/b))/G_Q(e^(1/b)) where the laws' generating functions are known.
"""
from __future__ import annotations

import math
from typing import Any, Optional, cast

import numpy as np
from numpy.typing import NDArray

from statpriv import _lazy, _validate, _xprec, oracle
from statpriv.noise import Noise, _cells, _dp_accounting_pld_module
from statpriv.noise import _laplace_ratios as _ratios

_core = _lazy.module("statpriv._core")            # scipy.special: loaded on first use
_kernels = _lazy.module("statpriv.noise._kernels")


def _tail_w(p: Any) -> Any:
    """w = e^(1/b) (mpmath): the noisy ratio beyond the last atom is G_P(w)/G_Q(w)."""
    import mpmath
    return mpmath.exp(1 / p)


class Laplace(Noise):
    """Laplace noise, density ``exp(-|x|/scale) / (2 scale)``; variance 2 scale^2.

    Parameters
    ----------
    scale : float > 0
        The Laplace scale b, in count units (sensitivity 1).

    Examples
    --------
    >>> import statpriv
    >>> noise = statpriv.Laplace(2.0)
    >>> noise.scale, noise.variance
    (2.0, 8.0)
    >>> print(f"{statpriv.counting(1000, 0.5, noise=statpriv.Laplace(3.0)).delta(0.1):.6e}")
    1.355100e-03
    """

    __slots__ = ()
    kind = "laplace"
    param_name = "scale"
    pure_dp = True
    _tail_w = staticmethod(_tail_w)
    _variance_factor = 2.0

    def __init__(self, scale: float) -> None:
        super().__init__(_validate.real("scale", scale, low=0.0, low_open=True))

    @property
    def scale(self) -> float:
        """The Laplace scale b (count units), read-only."""
        return self.param

    @property
    def variance(self) -> float:
        """The variance of the noise, 2 b^2."""
        return 2.0 * self.param * self.param

    def zero_point_up(self) -> float:
        return _zero_point_up(self.scale)

    def _trim(self, laws: Any) -> Any:
        if _cells.is_shift(laws.log_p, laws.log_q):
            # a pure shift P = Z(. - 1), Q = Z: trim Z and rebuild the
            # shift, so the window stays an exact shift (_laplace_shift_core's
            # closed-form ratios); both laws lose Z's cut mass
            lp, lq, cut_p, cut_q = _cells.trim_shift(laws.log_q, (laws.log_p, laws.log_q))
            return laws.replace(log_p=lp, log_q=lq, log_ratio=None, log_ratio_lo=None,
                                log_rest_p=float(np.logaddexp(laws.log_rest_p, cut_p)),
                                log_rest_q=float(np.logaddexp(laws.log_rest_q, cut_q)))
        return super()._trim(laws)

    def _core(self, laws: Any) -> Any:
        lp, lq = laws.log_p, laws.log_q
        if _cells.is_shift(lp, lq):
            # (the shift's ratios are closed forms: no law ratio needed)
            return _laplace_shift_core(lp, lq, self.scale, laws.tail_ratio)
        log_ratio, law_lr, law_lo, _ = _cells.close_ratios(lp, lq, laws.log_ratio,
                                                           laws.log_ratio_lo)
        return _laplace_core(lp, lq, self.scale, laws.tail_ratio, log_ratio, law_lr, law_lo)

    def certified_noise(self) -> Any:
        from statpriv.oracle import arb
        return arb.LaplaceNoise(self.scale)

    # -- worst-case DP: delta(eps) = max(0, 1 - exp((eps - 1/b)/2)) (csrc/dp.c)
    def certified_dp_laws(self) -> Any:
        from statpriv.oracle import arb
        return arb.LaplaceDP(self.scale)

    def dp_core(self) -> Any:
        return _kernels.LaplaceDPCore(self.scale)

    def _dp_reference(self) -> Any:
        b = self.scale
        return lambda eps: oracle.dp_laplace_delta(b, eps)

    def dp_renyi(self, alpha: float) -> float:
        """ln( a/(2a-1) e^((a-1)/b) + (a-1)/(2a-1) e^(-a/b) ) / (a - 1) (Mironov,
        "Renyi differential privacy", Table II; a = 1/2 as the limit, the KL
        divergence 1/b + e^(-1/b) - 1 at a = 1, 1/b at a = inf)."""
        import mpmath
        with mpmath.workdps(40):
            b = mpmath.mpf(self.scale)
            if alpha == math.inf:
                return float(1 / b)
            if alpha == 1.0:
                return float(1 / b + mpmath.expm1(-1 / b))
            al = mpmath.mpf(alpha)
            if alpha == 0.5:
                s = mpmath.exp(-1 / (2 * b)) * (1 + 1 / (2 * b))
            else:
                s = (al / (2 * al - 1) * mpmath.exp((al - 1) / b)
                     + (al - 1) / (2 * al - 1) * mpmath.exp(-al / b))
            return float(mpmath.log(s) / (al - 1))

    def dp_loss_span(self) -> float:
        return 2.0 / self.scale              # |L| <= 1/b

    def dp_accounting_pld(self, value_discretization_interval: Any, sensitivity: Any = 1) -> Any:
        return _dp_accounting_pld_module().from_laplace_mechanism(
            self.scale, value_discretization_interval=value_discretization_interval)

    def dp_accounting_sampled_pld(self, value_discretization_interval: Any, sensitivity: Any,
                                  sampling_prob: Any, relation: Any) -> Any:
        if relation != "add_remove":
            return None                   # dp-accounting's Laplace has no REPLACE
        return _dp_accounting_pld_module().from_laplace_mechanism(
            self.scale, value_discretization_interval=value_discretization_interval,
            sampling_prob=sampling_prob)

    # statpriv.interval: scale 1/eps, P[|N| < t] = 1 - e^(-eps t) (Naldi &
    # D'Acquisto eq. (9)), hence eps = -ln(1 - p)/(w c) (eq. (10))
    @staticmethod
    def _interval_epsilon(width: Any, confidence: Any, count: Any, delta: Any) -> Any:
        return -math.log1p(-confidence) / (width * count)

    @staticmethod
    def _interval_confidence(eps: Any, width: Any, count: Any, delta: Any) -> Any:
        return -math.expm1(-eps * width * count)

    @staticmethod
    def _interval_width(eps: Any, confidence: Any, count: Any, delta: Any) -> Any:
        return -math.log1p(-confidence) / (eps * count)

    @classmethod
    def _interval_noise(cls, width: Any, confidence: Any, count: Any) -> Any:
        return cls(width * count / -math.log1p(-confidence))


def _zero_point_up(b: float) -> float:
    """1/b rounded up to a float: delta = 0 exactly from there on."""
    return cast(float, _kernels.laplace_zero_point_up(b))


def _laplace_core(lp: Any, lq: Any, scale: Any, tail_ratio: Any, log_ratio: Any, law_lr: Any,
                  law_lo: Any) -> Any:
    """Laplace(scale) noise on general (trimmed) laws: the cells of both laws
    in one C pass, their log ratios from the difference law D = P - Q =
    Q expm1(log_ratio) where P and Q are close (log_ratio given: ln P = ln Q
    + log1p((D*N)/(Q*N)) where |D|*N < (Q*N)/4; sp_laplace_cells_diff),
    exact at the tails (tail_ratio),
    in double-double near the zero points (_laplace_ratios.end_ratios, and as ln R
    -+ a deficit from the exact tail ratio, _laplace_ratios.deficit_ratios) and from
    the law's own ratio where the noise barely mixes (_laplace_ratios.atom_ratios)."""
    # one C pass (sp_laplace_cells_diff): with log_ratio (P and Q close) P's
    # cells from the difference law D = Q expm1(log_ratio) where D * N is
    # small against Q * N, ln P = ln Q + log1p((D * N)/(Q * N)); errs: the
    # estimated absolute errors of the cells', L's and R's log ratios
    (cell_lp, cell_lq, ll_p, lr_p, ll_q, lr_q, lr,
     *errs) = _kernels.laplace_cells_diff(lp, lq, log_ratio, scale)
    n = len(cell_lp)
    lr_lo, sides = _cells.exact_tails(lr, tail_ratio, _tail_w, scale, ((0,), (n - 1,)))
    bound = _zero_point_up(scale)                     # 1/b rounded up
    if lr_lo is not None:
        ll_lo, rr_lo = _ratios.end_ratios(lp, lq, ll_p, lr_p, ll_q, lr_q, scale,
                                           lr, lr_lo, sides, errs[1], errs[2])
    else:
        ll_lo = np.zeros(n, dtype=np.longdouble)
        rr_lo = np.zeros(n, dtype=np.longdouble)
    if law_lr is not None:
        _ratios.atom_ratios(lp, lq, ll_p, lr_p, ll_q, lr_q, scale, law_lr, law_lo,
                             errs[1], errs[2], ll_lo, rr_lo)
    if lr_lo is not None:
        _ratios.deficit_ratios(lp, lq, law_lr, law_lo, cell_lp, cell_lq, ll_p, lr_p, ll_q, lr_q,
                                scale, lr, lr_lo, sides, errs, ll_lo, rr_lo)
    laplace = (ll_p, lr_p, ll_q, lr_q, scale, ll_lo, rr_lo)
    del errs                # (their memory serves the core's checkpoints: no fresh pages)
    _ratios.clip_interior(lr, lr_lo, sides)
    return _core.PairCurveCore(cell_lp, cell_lq, lr, laplace=laplace,
                               max_log_ratio=bound, lr_lo=lr_lo)


def _laplace_shift_core(lp: Any, lq: Any, b: Any, tail_ratio: Any) -> Any:
    """Laplace(b) noise on a pure shift P = Q(. - 1) (a count without sampling).

    With u = e^(-1/b), w = 1/u and, for the unit cell [j, j+1],
    L_A(j) = sum_{k<=j} A(k) u^(j-k), R_A(j) = sum_{k>j} A(k) u^(k-j-1), the
    shift gives L_P(j) = L_Q(j-1) = w (L_Q(j) - Q(j)) and R_P(j) = R_Q(j-1) =
    Q(j) + u R_Q(j), so the log ratios are closed forms without cancellation:
        ln L_P(j)/L_Q(j) =  1/b - log1p(w Q(j) / L_Q(j-1)),
        ln R_P(j)/R_Q(j) = -1/b + log1p(w Q(j) / R_Q(j)),
    set as double-double (1/b to ~1e-30) where the log1p term is small, i.e.
    where the ratio is near +-1/b (the zero points).  No difference law is
    needed: one pass over Q's cells, O(atoms).
    """
    import mpmath
    ld = np.longdouble
    n = len(lp)
    cell_lq, ll_q, lr_q = _kernels.laplace_cells_one(lq, b)
    with mpmath.workdps(40):
        ib_mp = 1 / mpmath.mpf(b)
        ib = ld(mpmath.nstr(ib_mp, 25, strip_zeros=False))
        ib_lo = ld(float(ib_mp - _xprec.mpf_exact(ib)))
    ln2 = np.log(ld(2))
    # P's cells from Q's: L_P(j) = L_Q(j-1), R_P(j) = R_Q(j-1) (cells i = j + 1)
    ll_p = np.empty(n + 1, dtype=ld)
    lr_p = np.empty(n + 1, dtype=ld)
    cell_lp = np.empty(n + 1, dtype=ld)
    ll_p[2:n] = ll_q[1:n - 1]
    lr_p[2:n] = lr_q[1:n - 1]
    ll_p[[0, 1, n]] = -np.inf                                # L_P(-1) = L_P(0) = 0
    lr_p[[0, n]] = -np.inf                                   # the tail cells' R
    lr_p[1] = np.logaddexp(lq[0], lr_q[1] - ib)              # R_P(0) = Q(0) + u R_Q(0)
    cell_lp[2:n] = cell_lq[1:n - 1]
    cell_lp[1] = lr_p[1] + np.log(-np.expm1(-ib)) - ln2      # (1 - u) R_P(0) / 2
    cell_lp[0] = lr_p[1] - ib - ln2                          # u R_P(0) / 2
    cell_lp[n] = cell_lq[n] + ib                             # L_P(n-1) / 2 = w L_Q(n-1) / 2
    lr = _cells._log_ratio(cell_lp, cell_lq)
    near_cells, near_lo = _ratios.shift_cell_ratios(lr, lq, cell_lq, ll_q, lr_q, ib, ib_lo)
    ll_lo = np.zeros(n + 1, dtype=ld)
    rr_lo = np.zeros(n + 1, dtype=ld)
    q = lq[0:n - 1]                                          # Q(j), j = i - 1
    lt_all = np.empty(n - 1, dtype=np.float64)               # one buffer for both sides
    for base, target, lo_out, prev, sign in ((ll_q, ll_p, ll_lo, ll_q[0:n - 1], -1),
                                             (lr_q, lr_p, rr_lo, lr_q[1:n], 1)):
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            # the closed form where s = log1p(t) < 1/64 (t < 0.01587, i.e.
            # ln t < -4.14): near the zero points (s -> 0) it is exact to
            # ~1e-30, elsewhere the difference of the kernel's logs (mantissa
            # logs in double, ~2e-16 absolute) is as good as double s
            # screened in double (no long double temporaries over every
            # atom), then ln t again in long double on the chosen cells
            lt = np.subtract(q, prev, dtype=np.float64, out=lt_all)
            lt += np.float64(ib)
            ok = np.flatnonzero((lt < -4.0) & np.isfinite(prev) & np.isfinite(base[1:n]))
            lt = ((q[ok] - prev[ok]) + ib).astype(np.float64)
            keep = lt < -4.14
            ok, lt = ok[keep], lt[keep]
            s = np.log1p(np.exp(lt))
            cur = base[ok + 1]
            a = -sign * ib
            c = ld(sign) * s.astype(ld)
            dl = a + c                                       # TwoSum
            bb = dl - a
            e1 = (a - (dl - bb)) + (c - bb)
            new = cur + dl
            e2 = dl - (new - cur)
        target[ok + 1] = new
        lo_out[ok + 1] = -sign * ib_lo + e1 + e2
    lr_lo, sides = _cells.exact_tails(lr, tail_ratio, _tail_w, b, ((0,), (n,)))
    if near_cells is not None:        # the interior cells' ratios near +-1/b, as hi + lo
        if lr_lo is None:
            lr_lo = np.zeros(n + 1, dtype=ld)
        lr_lo[near_cells] = near_lo   # (exact_tails sets only the tail cells)
    _ratios.clip_interior(lr, lr_lo, sides, _ratios.interior_lo_bound(lr_lo, near_cells))
    bound = _zero_point_up(b)
    return _core.PairCurveCore(cell_lp, cell_lq, lr, laplace=(ll_p, lr_p, ll_q, lr_q, b, ll_lo, rr_lo),
                               max_log_ratio=bound, lr_lo=lr_lo)
