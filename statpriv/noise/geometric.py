"""Two-sided geometric noise: the class and the exact curve of a count plus it.

The exact pmf of the sum on the atoms (_kernels.geometric_cells), plus the two
geometric tails summed in closed form (their sign is constant).  Geometric
(alpha) noise makes every count here pure DP (|ln f_P/f_Q| <= -ln alpha;
Breutigam & Reischuk Lemma 5), so delta is exactly 0 from that eps on -- from
the exact zero point ln G_P(1/alpha)/G_Q(1/alpha) where the laws' generating
functions are known.
"""
from __future__ import annotations

import math
from typing import Any, Optional, cast

import numpy as np
from numpy.typing import NDArray

from statpriv import _lazy, _validate, _xprec, oracle
from statpriv.curve import PrivacyCurve
from statpriv.laws import LazyLaws, Laws, pair_core, pld
from statpriv.laws.discrete import discrete_reference, laws_from_log_pmfs
from statpriv.laws.mixture import log_mix
from statpriv.noise import DPPair, Noise, _cells, _dp_accounting_pld_module

_core = _lazy.module("statpriv._core")            # scipy.special: loaded on first use
_kernels = _lazy.module("statpriv.noise._kernels")
_LN2 = math.log(2.0)


def _tail_w(p: Any) -> Any:
    """w = 1/alpha (mpmath): the noisy ratio beyond the last atom is G_P(w)/G_Q(w)."""
    return 1 / p


class Geometric(Noise):
    """Two-sided geometric (discrete Laplace) noise on the integers,
    P(k) = (1-alpha)/(1+alpha) alpha^|k|; variance 2 alpha / (1-alpha)^2.

    Geometric(alpha) is dp-accounting's discrete Laplace with parameter
    a = -ln alpha (pmf e^(-a|k|) tanh(a/2); DiscreteLaplaceDpEvent,
    from_discrete_laplace_mechanism): tanh(a/2) = (1-alpha)/(1+alpha).

    Parameters
    ----------
    alpha : float in (0, 1)
        The ratio of neighbouring probabilities, alpha = exp(-eps0) for
        noise that is eps0-DP alone.

    Examples
    --------
    >>> import statpriv
    >>> statpriv.Geometric(0.5).variance
    4.0
    >>> print(f"{statpriv.counting(1000, 0.5, noise=statpriv.Geometric(0.5)).delta(0.5):.6e}")
    9.619651e-18
    """

    __slots__ = ()
    kind = "geometric"
    param_name = "alpha"
    pure_dp = True
    _tail_w = staticmethod(_tail_w)

    def __init__(self, alpha: float) -> None:
        super().__init__(_validate.real("alpha", alpha, low=0.0, high=1.0,
                                        low_open=True, high_open=True))

    @property
    def alpha(self) -> float:
        """The parameter alpha, read-only."""
        return self.param

    @property
    def variance(self) -> float:
        """The variance of the noise, 2 alpha / (1 - alpha)^2."""
        return 2.0 * self.param / (1.0 - self.param) ** 2

    def zero_point_up(self) -> float:
        return _zero_point_up(self.alpha)

    def _core(self, laws: Any) -> Any:
        lp, lq = laws.log_p, laws.log_q
        log_ratio, law_lr, law_lo, atom_log_ratio = _cells.close_ratios(
            lp, lq, laws.log_ratio, laws.log_ratio_lo)
        # a pure shift (a count without sampling): P's cells are Q's one on
        shift = _cells.is_shift(lp, lq)
        if shift and log_ratio is not None:
            # the three steps below in one pass (the same values)
            cell_lp, cell_lq, lr, err = _kernels.geometric_shift_ratios(lp, lq, log_ratio,
                                                                      self.alpha)
        else:
            cell_lp, cell_lq = _kernels.geometric_cells(lp, lq, self.alpha, shift=shift)
            lr = _cells._log_ratio(cell_lp, cell_lq)
            if log_ratio is not None:
                err = _kernels.geometric_difference_ratios(lp, lq, log_ratio, self.alpha,
                                                        cell_lq, lr)
            else:
                err = np.full(len(lr), 4e-16)
        n = len(cell_lp)
        lr_lo, sides = _cells.exact_tails(lr, laws.tail_ratio, _tail_w, self.alpha,
                                          ((0, 1), (n - 2, n - 1)))
        if lr_lo is not None:
            closed = atom_log_ratio is not None
            atom_lr = atom_log_ratio if closed else _cells._log_ratio(lp, lq)
            _geometric_deficit_ratios(lp, lq, atom_lr, cell_lp, cell_lq, self.alpha,
                                      lr, lr_lo, sides, err, law_lo if closed else None, closed)
        bound = _zero_point_up(self.alpha)                     # -ln alpha rounded up
        return _core.PairCurveCore(cell_lp, cell_lq, lr, max_log_ratio=bound, lr_lo=lr_lo)

    def _release_laws(self, laws: Any, zero_plus: Any, zero_minus: Any) -> Any:
        """The noisy release is discrete: its exact laws are the pmfs of the
        count plus the noise on the atoms and two aggregated tails
        (_kernels.geometric_cells; beyond the last atom both noisy pmfs decay
        like alpha^t, so each tail is one atom of constant loss), built on
        first use (the privacy-loss distribution, compositions)."""
        lp, lq, alpha = laws.log_p, laws.log_q, self.alpha
        rest_p, rest_q = float(laws.log_rest_p), float(laws.log_rest_q)

        def build() -> Any:
            cell_lp, cell_lq = _kernels.geometric_cells(lp, lq, alpha)
            return Laws(cell_lp, cell_lq, None, log_rest_p=rest_p, log_rest_q=rest_q,
                        log_ratio_max=float(zero_plus), log_ratio_min=float(-zero_minus))
        return LazyLaws(build)

    def certified_noise(self) -> Any:
        from statpriv.oracle import arb
        return arb.GeometricNoise(self.alpha)

    # -- worst-case DP: delta(eps) = max(0, 1 - alpha e^eps) / (1 + alpha) (csrc/dp.c)
    def certified_dp_laws(self) -> Any:
        from statpriv.oracle import arb
        return arb.GeometricDP(self.alpha)

    def dp_core(self) -> Any:
        # -ln alpha to ~106 bits (mpmath), held as a double-double
        return _kernels.GeometricDPCore(self.alpha, _kernels.neg_log_double_double(self.alpha))

    def _dp_reference(self) -> Any:
        alpha = self.alpha
        return lambda eps: oracle.dp_geometric_delta(alpha, eps)

    def certified_lumped_dp_laws(self, shift: int, sampling_prob: float, relation: str) -> Any:
        """The lumps of _dp_lumped_curve / _dp_sampled_laws in Arb
        (statpriv.oracle.arb.LumpedGeometric), from alpha, the shift and q."""
        from statpriv.oracle import arb
        return arb.LumpedGeometric(self.alpha, shift, sampling_prob, relation)

    def _dp_lumped_curve(self, sensitivity: Any, description: Any) -> PrivacyCurve:
        """The worst-case DP curve at an integer sensitivity s > 1: the outcomes
        x <= 0 (all of likelihood ratio alpha^s) and x >= s (ratio alpha^-s)
        lumped, which leaves the curve unchanged, and the s + 1 atoms
        P = (alpha^s, c alpha^(s-1), ..., c alpha, 1) / ..., Q the mirror
        image, c = (1-alpha)/(1+alpha), taken as exact discrete laws."""
        alpha, s = self.alpha, sensitivity
        la, l1p = np.log(alpha), np.log1p(alpha)
        log_c = np.log1p(-alpha) - l1p
        x = np.arange(1, s, dtype=np.float64)
        log_p = np.concatenate(([s * la - l1p], log_c + (s - x) * la, [-l1p]))
        log_q = log_p[::-1].copy()
        laws = laws_from_log_pmfs(log_p, log_q, 0).live()
        return PrivacyCurve(pair_core(laws), discrete_reference(log_p, log_q), description,
                            laws=DPPair(self, s, laws=laws))

    def _dp_sampled_pair(self, sensitivity: Any, sampling_prob: Any, relation: Any) -> Any:
        """Exact discrete laws of the sampled mechanism (see _dp_sampled_laws):
        the pair kernel, the exact PLD and Renyi divergences."""
        laws = self._dp_sampled_laws(sensitivity, sampling_prob, relation)
        return pair_core(laws), DPPair(self, sensitivity, laws=laws,
                                       sampling_prob=sampling_prob, relation=relation)

    def _dp_sampled_laws(self, sensitivity: Any, q: Any, relation: Any) -> Any:
        """Laws of Poisson-subsampled geometric noise at an integer sensitivity
        s (statpriv.noise._sampled), 0 < q < 1, on consecutive lumped
        outcomes, long double, closed-form log ratios.  With G(x) = c
        alpha^|x|, c = (1-alpha)/(1+alpha), and the tails G(x <= -k) =
        G(x >= k) = alpha^k / (1+alpha), k >= 0:

        add_remove: A = (1-q) G + q G(. - s) against B = G on x <= 0, 1, ...,
        s-1, x >= s; replace_one: A against C = (1-q) G + q G(. + s) on x <=
        -s, -s+1, ..., s-1, x >= s.  ln G(x - s)/G(x) = clip(s - 2x, -s, s)
        ln alpha and ln G(x + s)/G(x) = clip(s + 2x, -s, s) ln alpha are
        constant on each lump, so lumping leaves the curve unchanged; ln A/G
        = ln(1 + q (G(x-s)/G(x) - 1)) (statpriv.laws.mixture.log_mix)."""
        ld = np.longdouble
        s = int(sensitivity)
        log_a = np.log(ld(self.alpha))
        first = 0 if relation == "add_remove" else -s
        x = np.arange(first, s + 1)
        log_g = (np.log1p(-ld(self.alpha)) - np.log1p(ld(self.alpha))
                 + np.abs(x).astype(ld) * log_a)
        log_g[0] = -np.log1p(ld(self.alpha)) + abs(first) * log_a      # the tails
        log_g[-1] = -np.log1p(ld(self.alpha)) + s * log_a
        mix_a = log_mix(q, np.clip(s - 2 * x, -s, s).astype(ld) * log_a)
        mix_b = (np.zeros(len(x), dtype=ld) if relation == "add_remove"
                 else log_mix(q, np.clip(s + 2 * x, -s, s).astype(ld) * log_a))
        lr = mix_a - mix_b
        return Laws(log_g + mix_a, log_g + mix_b, lr, start=first,
                    log_ratio_max=_xprec.ceil_float(lr.max(), ld(0)),
                    log_ratio_min=-_xprec.ceil_float(-lr.min(), ld(0)))

    def dp_accounting_sampled_pld(self, value_discretization_interval: Any, sensitivity: Any,
                                  sampling_prob: Any, relation: Any) -> Any:
        if relation != "add_remove":
            return None                   # dp-accounting's discrete Laplace has no REPLACE
        return _dp_accounting_pld_module().from_discrete_laplace_mechanism(
            -math.log(self.alpha), sensitivity=sensitivity, sampling_prob=sampling_prob,
            value_discretization_interval=value_discretization_interval, use_connect_dots=True)

    def dp_renyi(self, alpha: float) -> float:
        """ln( (g^(1-a) + g^a) / (1 + g) ) / (a - 1) for geometric(g): P(x <= 0)
        = 1/(1+g) at loss -ln g, the rest at ln g; -ln g at a = inf."""
        import mpmath
        with mpmath.workdps(40):
            g = mpmath.mpf(self.alpha)
            if alpha == math.inf:
                return float(-mpmath.log(g))
            if alpha == 1.0:
                return float(-mpmath.log(g) * (1 - g) / (1 + g))
            al = mpmath.mpf(alpha)
            s = (g ** (1 - al) + g ** al) / (1 + g)
            return float(mpmath.log(s) / (al - 1))

    def dp_privacy_loss_distribution(self, value_discretization_interval: Any,
                                     tail_mass_truncation: Any) -> Any:
        """Exact: P = geometric at 0, Q at 1; L = -ln alpha on x <= 0 (P-mass
        1/(1+alpha)), ln alpha on x >= 1 (mass alpha/(1+alpha)); symmetric."""
        a = np.longdouble(self.alpha)
        eps0 = -np.log(a)
        side = pld.PLDSide([-eps0, eps0], [a / (1 + a), 1 / (1 + a)])
        return pld.PrivacyLossDistribution(side, side, exact=True,
                                           description=f"DP geometric alpha={self.alpha}")

    def dp_accounting_pld(self, value_discretization_interval: Any, sensitivity: Any = 1) -> Any:
        # dp-accounting's discrete Laplace, parameter -ln alpha
        return _dp_accounting_pld_module().from_discrete_laplace_mechanism(
            -math.log(self.alpha), sensitivity=sensitivity,
            value_discretization_interval=value_discretization_interval, use_connect_dots=True)

    # statpriv.interval: alpha = e^(-eps) (eps-DP for sensitivity 1); with
    # K = ceil(w c), P[|N| < w c] = P[|N| <= K - 1] = 1 - 2 alpha^K / (1 + alpha)
    @staticmethod
    def _interval_epsilon(width: Any, confidence: Any, count: Any, delta: Any) -> Any:
        return _geometric_epsilon(_integer_bound(width * count), confidence)

    @staticmethod
    def _interval_confidence(eps: Any, width: Any, count: Any, delta: Any) -> Any:
        return _geometric_confidence(eps, _integer_bound(width * count))

    @staticmethod
    def _interval_width(eps: Any, confidence: Any, count: Any, delta: Any) -> Any:
        return _geometric_width_bound(eps, confidence) / count

    @classmethod
    def _interval_noise(cls, width: Any, confidence: Any, count: Any) -> Any:
        return cls(math.exp(-_geometric_epsilon(_integer_bound(width * count), confidence)))


def _zero_point_up(alpha: float) -> float:
    """-ln alpha rounded up to a float: delta = 0 exactly from there on."""
    return cast(float, _kernels.geometric_zero_point_up(alpha))


def _geometric_deficit_ratios(lp: Any, lq: Any, atom_lr: Any, cell_lp: Any, cell_lq: Any,
                              alpha: Any, lr: Any, lr_lo: Any, sides: Any, err: Any,
                              atom_lo: Any = None, closed: Any = True) -> None:
    """Cell log ratios from the exact tail ratios, as ln R - D(x).

    ln R = lr + lr_lo on a tail cell (set by _exact_tails from the generating
    functions); D(x) = ln R - ln f_P(x)/f_Q(x) = log1p(c V(x) / f_P(x)) with
    V(x) = sum_{k>x} (P(k) - R Q(k)) (alpha^(x-k) - alpha^(k-x)), a sum of
    positive terms above the crossing of the atoms' ratio (core's
    sp_geometric_deficits), mirrored on the left (Q/P, reversed support).
    D is accurate to its own relative precision, so f_P - e^eps f_Q keeps its
    relative accuracy up to the float just below the zero point, where a
    difference of two cell logs (error ~1e-19 |ln f|) does not; the error of
    the atom ratio atom_lr (a closed form with low parts atom_lo, or with
    closed=False ln P - ln Q) is counted in D's bound: it is over
    ln P/Q - ln R, which tends to 0 with alpha.  The high
    part and its exact rounding error go to lr / lr_lo, on the cells where the
    bound rel * D beats ``err`` (modified in place).  With an exact tail
    ratio on a side, no cell ratio passes it (the laws' ratio is monotone and
    the geometric kernel is log-concave, so the tails hold the extremes):
    cells are clamped to it, which also makes epsilon(0) the exact zero point.
    """
    n = len(lp)
    if n == 0:
        return
    with np.errstate(invalid="ignore", over="ignore"):
        for side in sides:
            if side == 1:
                hi, lo = lr[n + 1], lr_lo[n + 1]
                d, rel = _kernels.geometric_deficits(lp, lq, atom_lr, cell_lp[1:n + 1], alpha,
                                                  hi, lo, lo_ab=atom_lo, closed=closed)
            else:
                hi, lo = lr[0], lr_lo[0]
                d, rel = _kernels.geometric_deficits(lq, lp, atom_lr, cell_lq[1:n + 1], alpha,
                                                  -hi, -lo, mirror=True, lo_ab=atom_lo,
                                                  closed=closed)
            ok = np.flatnonzero(np.isfinite(rel))          # atoms x; cell x + 1
            bound = rel[ok] * d[ok].astype(np.float64)
            better = bound < err[ok + 1]
            ok, bound, d = ok[better], bound[better], d[ok[better]]
            new_hi, e = _xprec.two_sum(np.full(len(ok), hi, dtype=np.longdouble),
                                        -d if side == 1 else d)
            lr[ok + 1] = new_hi
            lr_lo[ok + 1] = e + lo
            err[ok + 1] = bound
        for side in sides:
            tail = n + 1 if side == 1 else 0
            hi, lo = lr[tail], lr_lo[tail]
            near = np.flatnonzero(lr >= hi - 1e-9 if side == 1 else lr <= hi + 1e-9)
            past = (lr[near] - hi) + (lr_lo[near] - lo)
            past = near[past > 0 if side == 1 else past < 0]
            lr[past] = hi
            lr_lo[past] = lo


# -- geometric: the strict inequality |k| < t on the integers ------------------
def _integer_bound(t: Any) -> Any:
    """K = ceil(t) for t > 0, the number of |k| values excluded by |k| < t being
    those with |k| >= K.  A t within 4 ulps of an integer is taken as that
    integer (0.3 * 10 = 3.0000000000000004 means t = 3, so K = 3)."""
    r = round(t)
    if r >= 1 and abs(t - r) <= 4.0 * math.ulp(r):
        return int(r)
    return max(1, math.ceil(t))


def _geometric_tail_log(eps: Any, K: Any) -> Any:
    """ln P[|N| >= K] = ln(2 alpha^K / (1 + alpha)), alpha = e^-eps."""
    return _LN2 - K * eps - math.log1p(math.exp(-eps))


def _geometric_confidence(eps: Any, K: Any) -> Any:
    return -math.expm1(_geometric_tail_log(eps, K))


def _geometric_epsilon(K: Any, p: Any) -> Any:
    """eps solving 1 - 2 alpha^K/(1 + alpha) = p, alpha = e^-eps.

    h(eps) = ln 2 - K eps - ln(1 + e^-eps) - ln(1 - p) falls strictly
    (h' = -K + 1/(1 + e^eps) < 0) from -ln(1-p) > 0 at eps = 0 to -inf, and
    ln(1 + e^-eps) in (0, ln 2) brackets the root in
    [-ln(1-p)/K, (ln 2 - ln(1-p))/K].  K = 1 is closed-form:
    p = (1-alpha)/(1+alpha) = tanh(eps/2), eps = ln(1+p) - ln(1-p).
    """
    log_q = math.log1p(-p)
    if K == 1:
        return math.log1p(p) - log_q

    def h(eps: Any) -> Any:
        return _geometric_tail_log(eps, K) - log_q

    lo, hi = -log_q / K, (_LN2 - log_q) / K
    from scipy import optimize
    return optimize.brentq(h, lo, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500)


def _geometric_width_bound(eps: Any, p: Any) -> Any:
    """Smallest integer K >= 1 with 1 - 2 alpha^K/(1+alpha) >= p."""
    log_q = math.log1p(-p)
    guess = (_LN2 - math.log1p(math.exp(-eps)) - log_q) / eps
    K = max(1, math.ceil(guess)) if math.isfinite(guess) else 1
    while K > 1 and _geometric_confidence(eps, K - 1) >= p:
        K -= 1
    while _geometric_confidence(eps, K) < p:
        K += 1
    return K
