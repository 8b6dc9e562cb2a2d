"""Laplace noise: the class and the exact curve of a count plus Laplace(b) noise.

On every unit interval between atoms both noisy densities are
(L e^(-t/b) + R e^(-(1-t)/b)) / (2b), so f_P - e^eps f_Q changes sign at most
once there and its positive part integrates in closed form; O(atoms)
(csrc/laplace.c, the cells of _kernels.laplace_cells_diff).  Laplace(b) noise makes
every count here pure DP (|ln f_P/f_Q| <= 1/b; Breutigam & Reischuk Lemma 5),
so delta is exactly 0 from eps = 1/b on -- from the exact zero point
ln G_P(e^(1/b))/G_Q(e^(1/b)) where the laws' generating functions are known.
"""
import math

import numpy as np

from statpriv import _lazy, _validate, _xprec, oracle
from statpriv.laws import pld
from statpriv.noise import Noise, _cells, _dp_accounting_pld_module

_core = _lazy.module("statpriv._core")            # scipy.special: loaded on first use
_kernels = _lazy.module("statpriv.noise._kernels")


def _tail_w(p):
    """w = e^(1/b) (mpmath): the noisy ratio beyond the last atom is G_P(w)/G_Q(w)."""
    import mpmath
    return mpmath.exp(1 / p)


class Laplace(Noise):
    """Laplace noise, density exp(-|x|/scale) / (2 scale); variance 2 scale^2."""

    __slots__ = ()
    kind = "laplace"
    param_name = "scale"
    pure_dp = True
    _tail_w = staticmethod(_tail_w)
    _variance_factor = 2.0

    def __init__(self, scale):
        super().__init__(_validate.real("scale", scale, low=0.0, low_open=True))

    @property
    def scale(self):
        return self.param

    @property
    def variance(self):
        return 2.0 * self.param * self.param

    def zero_point_up(self):
        return _zero_point_up(self.scale)

    def _trim(self, laws):
        if _cells.is_shift(laws.log_p, laws.log_q):
            # a pure shift P = Z(. - 1), Q = Z: trim Z and rebuild the
            # shift, so the window stays an exact shift (_laplace_shift_core's
            # closed-form ratios); both laws lose Z's cut mass
            lp, lq, cut_p, cut_q = _cells.trim_shift(laws.log_q, (laws.log_p, laws.log_q))
            return laws.replace(log_p=lp, log_q=lq, log_ratio=None, log_ratio_lo=None,
                                log_rest_p=float(np.logaddexp(laws.log_rest_p, cut_p)),
                                log_rest_q=float(np.logaddexp(laws.log_rest_q, cut_q)))
        return super()._trim(laws)

    def _core(self, laws):
        lp, lq = laws.log_p, laws.log_q
        if _cells.is_shift(lp, lq):
            # (the shift's ratios are closed forms: no law ratio needed)
            return _laplace_shift_core(lp, lq, self.scale, laws.tail_ratio)
        log_ratio, law_lr, law_lo, _ = _cells.close_ratios(lp, lq, laws.log_ratio,
                                                           laws.log_ratio_lo)
        return _laplace_core(lp, lq, self.scale, laws.tail_ratio, log_ratio, law_lr, law_lo)

    # -- worst-case DP: delta(eps) = max(0, 1 - exp((eps - 1/b)/2)) (csrc/dp.c)
    def dp_core(self):
        return _kernels.LaplaceDPCore(self.scale)

    def _dp_reference(self):
        b = self.scale
        return lambda eps: oracle.dp_laplace_delta(b, eps)

    def dp_renyi(self, alpha):
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

    def dp_privacy_loss_distribution(self, value_discretization_interval, tail_mass_truncation):
        """Pessimistic PLD on the grid h Z: L = 1/b with mass 1/2, -1/b with
        mass e^(-1/b)/2, and in between P[L <= t] = e^(-(1 - b t)/(2b))/2
        (both sides equal; nothing truncated)."""
        b = self.scale
        lower, upper = -1.0 / b, 1.0 / b

        def cdf(t):
            with np.errstate(over="ignore"):
                inner = 0.5 * np.exp(-(1.0 - b * np.minimum(t, upper)) / (2.0 * b))
            return np.where(t < lower, 0.0, np.where(t >= upper, 1.0, inner))

        def sf(t):
            return 1.0 - cdf(t)               # the inner CDF is <= 1/2: no cancellation
        return pld.from_loss_cdf(cdf, sf, lower, upper, value_discretization_interval, 0.0,
                                 f"DP laplace {b}")

    def dp_loss_span(self):
        return 2.0 / self.scale              # |L| <= 1/b

    def dp_accounting_pld(self, value_discretization_interval, sensitivity=1):
        return _dp_accounting_pld_module().from_laplace_mechanism(
            self.scale, value_discretization_interval=value_discretization_interval)

    # statpriv.interval: scale 1/eps, P[|N| < t] = 1 - e^(-eps t) (Naldi &
    # D'Acquisto eq. (9)), hence eps = -ln(1 - p)/(w c) (eq. (10))
    @staticmethod
    def _interval_epsilon(width, confidence, count, delta):
        return -math.log1p(-confidence) / (width * count)

    @staticmethod
    def _interval_confidence(eps, width, count, delta):
        return -math.expm1(-eps * width * count)

    @staticmethod
    def _interval_width(eps, confidence, count, delta):
        return -math.log1p(-confidence) / (eps * count)

    @classmethod
    def _interval_noise(cls, width, confidence, count):
        return cls(width * count / -math.log1p(-confidence))


def _zero_point_up(b):
    """1/b rounded up to a float: delta = 0 exactly from there on."""
    return _kernels.laplace_zero_point_up(b)


def _laplace_core(lp, lq, scale, tail_ratio, log_ratio, law_lr, law_lo):
    """Laplace(scale) noise on general (trimmed) laws: the cells of both laws
    in one C pass, their log ratios from the difference law D = P - Q =
    Q expm1(log_ratio) where P and Q are close (log_ratio given: ln P = ln Q
    + log1p((D*N)/(Q*N)) where |D|*N < (Q*N)/4; sp_laplace_cells_diff),
    exact at the tails (tail_ratio),
    in double-double near the zero points (_laplace_end_ratios, and as ln R
    -+ a deficit from the exact tail ratio, _laplace_deficit_ratios) and from
    the law's own ratio where the noise barely mixes (_laplace_atom_ratios)."""
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
        ll_lo, rr_lo = _laplace_end_ratios(lp, lq, ll_p, lr_p, ll_q, lr_q, scale,
                                           lr, lr_lo, sides, errs[1], errs[2])
    else:
        ll_lo = np.zeros(n, dtype=np.longdouble)
        rr_lo = np.zeros(n, dtype=np.longdouble)
    if law_lr is not None:
        _laplace_atom_ratios(lp, lq, ll_p, lr_p, ll_q, lr_q, scale, law_lr, law_lo,
                             errs[1], errs[2], ll_lo, rr_lo)
    if lr_lo is not None:
        _laplace_deficit_ratios(lp, lq, law_lr, law_lo, cell_lp, cell_lq, ll_p, lr_p, ll_q, lr_q,
                                scale, lr, lr_lo, sides, errs, ll_lo, rr_lo)
    laplace = (ll_p, lr_p, ll_q, lr_q, scale, ll_lo, rr_lo)
    _clip_interior(lr, lr_lo, sides)
    return _core.PairCurveCore(cell_lp, cell_lq, lr, laplace=laplace,
                               max_log_ratio=bound, lr_lo=lr_lo)


def _laplace_shift_core(lp, lq, b, tail_ratio):
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
    near_cells, near_lo = _shift_cell_ratios(lr, lq, cell_lq, ll_q, lr_q, ib, ib_lo)
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
    _clip_interior(lr, lr_lo, sides, _interior_lo_bound(lr_lo, near_cells))
    bound = _zero_point_up(b)
    return _core.PairCurveCore(cell_lp, cell_lq, lr, laplace=(ll_p, lr_p, ll_q, lr_q, b, ll_lo, rr_lo),
                               max_log_ratio=bound, lr_lo=lr_lo)


def _shift_cell_ratios(lr, lq, cell_lq, ll_q, lr_q, ib, ib_lo):
    """Interior cells' mass ratios of a pure shift near +-1/b, without the
    difference of two cell logs (the kernel's thresholds need them to the
    accuracy of their distance from eps).  With C_A = L_A(j) + R_A(j) on the
    cell [j, j+1]: C_P = w C_Q - (w - 1) Q(j) - (w - u) R_Q(j)
                       = u C_Q + (1 - u^2) L_Q(j-1) + (1 - u) Q(j), so
    ln C_P/C_Q = 1/b + log1p(-y) = -1/b + log1p(z) with
    y = ((w - 1) Q(j) + (w - u) R_Q(j)) / (w C_Q) and
    z = w ((1 - u^2) L_Q(j-1) + (1 - u) Q(j)) / C_Q; the form with the
    smaller of y, z where it is below 1/2 (modifies lr in place).  1/b is
    ib + ib_lo (double-double); returns (cells, low parts) of the cells'
    ratios that take a form ((None, None) if none): near the zero
    point 1/b delta is proportional to the distance of the ratio from eps,
    so 1/b rounded to long double (~1e-17 absolute) alone would put
    ~1e-17 / (1/b - eps) relative error into delta."""
    n = len(lq)
    if n < 2:
        return None, None
    ld = np.longdouble
    # only cells whose (rounded) ratio is within 1/32 of +-1/b need the forms
    # (there y or z < 1/64 becomes possible); the rest keep the difference.
    # Screened in long double with a wider margin (boolean temporaries only),
    # then the test in double on the candidates
    inner = lr[1:n]
    cut = ib - ld(0.04)
    near = np.flatnonzero((inner > cut) | (inner < -cut))
    r = np.abs(inner[near].astype(np.float64))
    r -= np.float64(ib)
    near = near[np.abs(r) < 1 / 32]
    if near.size == 0:
        return None, None
    ln_hw = np.log(-np.expm1(-ib)) - np.log(ld(2))          # ln((1 - u) / 2)
    c = cell_lq[near + 1] - ln_hw                            # ln C_Q(j)
    q = lq[near]
    f = np.float64
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # y and z need only double relative accuracy: differences of the
        # long double logs first, then double arithmetic (cheap at 1e6 atoms)
        qc = (q - c).astype(f)
        ly = np.logaddexp(f(np.log(np.expm1(ib))) + qc,
                          f(np.log(2 * np.sinh(ib))) + (lr_q[near + 1] - c).astype(f)) - f(ib)
        lz = f(ib) + np.logaddexp(f(np.log(-np.expm1(-2 * ib))) + (ll_q[near] - c).astype(f),
                                  f(np.log(-np.expm1(-ib))) + qc)
        y, z = np.exp(ly), np.exp(lz)
        form_a = np.isfinite(c) & (y < 0.5) & ~(z < y)
        form_b = np.isfinite(c) & (z < 0.5) & ~form_a
    cells, lows = [], []
    for form, sign, small in ((form_a, 1, -y[form_a]), (form_b, -1, z[form_b])):
        hi, err = _xprec.two_sum(np.full(small.size, sign * ib, dtype=ld),
                                  np.log1p(small).astype(ld))
        lr[near[form] + 1] = hi
        cells.append(near[form] + 1)
        lows.append(err + sign * ib_lo)
    return np.concatenate(cells), np.concatenate(lows)


def _interior_lo_bound(lr_lo, cells):
    """_clip_interior's L = max |lr_lo| over the interior cells 1..len-2
    (NaN left out), as it computes it, where lr_lo is zero on the interior
    except at ``cells`` (None: none): from those cells alone, without two
    reductions over every cell.  None (compute it over all) where no
    interior zero is known to be left (every interior cell listed)."""
    if lr_lo is None or len(lr_lo) < 3:
        return None
    if cells is None:
        cells = np.zeros(0, dtype=np.intp)
    cells = cells[(cells >= 1) & (cells <= len(lr_lo) - 2)]
    if len(cells) >= len(lr_lo) - 2:
        return None
    zero = np.longdouble(0)
    vals = lr_lo[cells] if len(cells) else np.zeros(1, dtype=np.longdouble)
    with np.errstate(invalid="ignore"):
        # fmax/fmin over the zeros and the listed cells: fmax(0, fmax over the cells)
        return max(abs(np.fmax(zero, np.fmax.reduce(vals))),
                   abs(np.fmin(zero, np.fmin.reduce(vals))))


def _clip_interior(lr, lr_lo, sides, big=None):
    """Interior cells' mass ratios lie between the exact tail ratios (monotone
    laws): clamp their rounding, as the unevaluated sums lr + lr_lo, to the
    tail's, so that no interior cell sets a zero point beyond the exact one
    (the kernel takes the largest cell ratio) and cells within rounding of
    it keep the tail's exact value.  big: max |lr_lo| over the interior
    cells if the caller knows it (_interior_lo_bound), else computed here."""
    if lr_lo is None or len(lr) < 3 or not sides:
        return
    inner, inner_lo = lr[1:-1], lr_lo[1:-1]
    # the test (inner - hi) + (inner_lo - lo) only on a superset of the cells
    # that pass it, screened by the high parts alone: a cell passes only if
    # inner - hi exceeds -(inner_lo - lo), at most L + |lo| with L = max
    # |inner_lo| (NaN low parts never pass and are left out of L), so
    # inner >= hi - 4 (L + |lo|) (hi + ... on the left; the factor covers
    # the rounding of both sides).  No long double temporaries over every
    # cell; the same cells as the test on all of them.
    if big is None:
        with np.errstate(invalid="ignore"):
            big = max(abs(np.fmax.reduce(inner_lo)), abs(np.fmin.reduce(inner_lo)))
    for side in sides:
        hi, lo = (lr[-1], lr_lo[-1]) if side == 1 else (lr[0], lr_lo[0])
        margin = 4 * (big + abs(lo))
        with np.errstate(invalid="ignore"):
            near = np.flatnonzero(inner >= hi - margin if side == 1 else inner <= hi + margin)
            past = (inner[near] - hi) + (inner_lo[near] - lo)
        past = near[past > 0 if side == 1 else past < 0]
        inner[past] = hi
        inner_lo[past] = lo


def _end_fraction(la, pos, atoms, l_base, step, side):
    """ln(U / (base + U)) per position j of ``pos``, U = sum over the atoms k
    (of ``atoms``) beyond j (k > j on the right, k <= j on the left) of
    A(k) e^(step * distance), distance k - j (right) or j + 1 - k (left);
    base = e^l_base."""
    dist = (atoms[None, :] - pos[:, None]).astype(np.longdouble)      # k - j
    if side == 0:
        dist = 1 - dist                                               # j + 1 - k
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        term = np.where(dist > 0, la[atoms][None, :] + dist * step, -np.inf)
        top = np.max(term, axis=1)
        safe = np.where(np.isfinite(top), top, 0)
        log_u = np.where(np.isfinite(top),
                         safe + np.log(np.sum(np.exp(term - safe[:, None]), axis=1)), -np.inf)
        return log_u - np.logaddexp(l_base, log_u)


def _laplace_end_ratios(lp, lq, ll_p, lr_p, ll_q, lr_q, b, lr, lr_lo, sides, err_l, err_r):
    """Double-double log ratios of L (right end) and R (left end) near the ends.

    With w = e^(1/b): L_A(j) + U_A(j) = e^(-j/b) G_A(w), U_A(j) = sum_{k>j}
    A(k) e^((k-j)/b), so ln L_P/L_Q = ln R_right + log1p(-v_P) - log1p(-v_Q),
    v = U/(L+U), R_right the exact right-tail ratio (lr + lr_lo on the last
    cell); mirrored, R_A(j) + U'_A(j) = e^((j+1)/b) G_A(1/w) with U'_A(j) =
    sum_{k<=j} A(k) e^((j+1-k)/b) on the left.  Near the ends v is small and
    accurate relatively, so f_P - e^eps f_Q keeps its relative accuracy up to
    the zero point.  ll_p / lr_p are reset to ll_q / lr_q + the ratio's high
    part where this form's error bound beats err_l / err_r; returns the low
    parts (ll_lo, rr_lo) of ll_p - ll_q and lr_p - lr_q.
    """
    ld = np.longdouble
    n = len(lp)                       # atoms; interior cell i = j + 1 for atom j < n - 1
    ll_lo = np.zeros(n + 1, dtype=ld)
    rr_lo = np.zeros(n + 1, dtype=ld)
    w = min(n - 1, END_CELLS)       # either end's form may be the better one anywhere
    step = 1 / ld(b)
    for side in sides:
        if w < 1:
            break
        pos = np.arange(n - 1 - w, n - 1) if side == 1 else np.arange(0, w)   # atoms j
        atoms = np.arange(n - 1 - w, n) if side == 1 else pos
        cells = pos + 1
        tail = n if side == 1 else 0
        hi_r, lo_r = lr[tail], lr_lo[tail]
        base_p, base_q = (ll_p, ll_q) if side == 1 else (lr_p, lr_q)
        lo_out, err = (ll_lo, err_l) if side == 1 else (rr_lo, err_r)
        fp = _end_fraction(lp, pos, atoms, base_p[cells], step, side)
        fq = _end_fraction(lq, pos, atoms, base_q[cells], step, side)
        with np.errstate(divide="ignore", invalid="ignore"):
            corr = np.log1p(-np.exp(fp)) - np.log1p(-np.exp(fq))
            # log1p(-v) amplifies the rounding of v by v / (1 - v)
            vp, vq = np.exp(fp).astype(np.float64), np.exp(fq).astype(np.float64)
            # ... and the error of the L (R) logs themselves: P's is Q's plus
            # the ratio's current error err (the logs' own ~2e-19 |ln|)
            own = 2e-19 * np.abs(base_q[cells].astype(np.float64))
            bound = ((4e-16 + own + err[cells]) * (vp / (1.0 - vp))
                     + (4e-16 + own) * (vq / (1.0 - vq)))
        dl = hi_r + corr
        ok = np.isfinite(dl) & np.isfinite(base_q[cells]) & (bound < err[cells])
        idx = cells[ok]
        new_p = base_q[idx] + dl[ok]
        base_p[idx] = new_p
        lo_out[idx] = (dl[ok] - (new_p - base_q[idx])) + lo_r
        err[idx] = bound[ok]
    return ll_lo, rr_lo


def _laplace_atom_ratios(lp, lq, ll_p, lr_p, ll_q, lr_q, b, law_lr, law_lo, err_l, err_r,
                         ll_lo, rr_lo):
    """L and R log ratios from the laws' own ratio where the noise barely mixes.

    L_A(j) = A(j) + u L_A(j-1) and R_A(j) = A(j+1) + u R_A(j+1) (u = e^(-1/b)),
    so ln L_P(j)/L_Q(j) = ln P(j)/Q(j) + log1p(u L_P(j-1)/P(j)) - log1p(u L_Q(j-1)/Q(j))
    and likewise R with the atom j + 1: the law's closed-form ratio (double-
    double with law_lo) plus two corrections known to their own relative
    precision.  Small b or steep laws make the corrections small, and this
    form then beats the difference of two cell logs (~1e-19 |ln L|): it is
    set (ll_p / lr_p high parts, ll_lo / rr_lo low parts) where its bound
    is below err_l / err_r (one C pass, sp_laplace_atom_ratios).  Modifies
    the arrays in place.
    """
    _kernels.laplace_atom_ratios(lp, lq, law_lr, law_lo, b, ll_p, lr_p, ll_q, lr_q, err_l, err_r,
                              ll_lo, rr_lo)


def _laplace_deficit_ratios(lp, lq, law_lr, law_lo, cell_lp, cell_lq, ll_p, lr_p, ll_q, lr_q,
                            b, lr, lr_lo, sides, errs, ll_lo, rr_lo):
    """Laplace L and R log ratios from the exact tail ratios, as ln R -+ a deficit.

    With u = e^(-1/b), w = 1/u, the exact right-tail ratio R = G_P(w)/G_Q(w)
    (lr + lr_lo on the last cell, from the generating functions) and the
    signed law F = P - R Q, sum_k F(k) w^k = 0, so on the cell [x, x+1]
        R L_Q(x) - L_P(x) = sum_{k>x} F(k) w^(k-x),
        R_P(x) - R R_Q(x) = sum_{k>x} F(k) u^(k-x-1),
    L_A(x) = sum_{k<=x} A(k) u^(x-k), R_A(x) = sum_{k>x} A(k) u^(k-x-1).
    Above the crossing of the atoms' (monotone) ratio every F(k) >= 0, so
    ln L_P/L_Q = ln R - log1p(S/L_P) and ln R_P/R_Q = ln R + log1p(T/(R R_Q))
    with S, T sums of positive terms (core's sp_laplace_deficits): both
    corrections keep their own relative accuracy however small they are, and
    f_P - e^eps f_Q on every cell keeps its relative accuracy up to the float
    just below the zero point, where a difference of two rounded logs (an
    absolute error ~1e-19 |ln L|) does not.  The cell masses likewise: R C_Q -
    C_P = (1 - u)/2 (S - T), which the kernel's search for the first
    contributing cell needs to the accuracy of the distance from eps.
    Mirrored on the left (Q/P, the left-tail ratio G_P(u)/G_Q(u)).
    F(k) = R Q(k) expm1(ln P(k)/Q(k) - ln R) from the accurate atom ratio
    law_lr (+ law_lo), else ln P - ln Q.  Sets ll_p / lr_p (high parts,
    relative to ll_q / lr_q) with ll_lo / rr_lo, and lr / lr_lo of the
    interior cells, where the bound rel * correction beats errs = [cells, L,
    R] (all modified in place).
    """
    n = len(lp)
    if n < 2:
        return
    ld = np.longdouble
    f = np.float64
    with np.errstate(invalid="ignore", over="ignore"):
        # the atom log ratio (law_lr + law_lo, else ln P - ln Q) and its
        # error bound per atom are the kernel's (sp_laplace_deficits)
        mine = [np.zeros(n + 1, dtype=bool) for _ in range(3)]    # set here: cells, L, R
        for side in sides:
            tail = n if side == 1 else 0
            hi, lo = lr[tail], lr_lo[tail]
            zero = np.zeros(n + 1, dtype=ld)
            if side == 1:
                first, dl, er, dc, rel_l, rel_r, rel_c = _kernels.laplace_deficits(
                    lp, lq, law_lr, law_lo, ll_p, lr_q, cell_lp, b, hi, lo)
                # L: ln R - dl;  R: ln R + er;  cells: ln R - dc
                parts = ((dl, rel_l, -1, ll_p, ll_q, ll_lo, errs[1], mine[1]),
                         (er, rel_r, 1, lr_p, lr_q, rr_lo, errs[2], mine[2]),
                         (dc, rel_c, -1, lr, zero, lr_lo, errs[0], mine[0]))
            else:
                first, dl, er, dc, rel_l, rel_r, rel_c = _kernels.laplace_deficits(
                    lq, lp, law_lr, law_lo, lr_q, ll_p, cell_lq, b, -hi, -lo, mirror=True)
                # dl: deficit of ln R_Q/R_P below -ln R_left, so ln R_P/R_Q =
                # ln R_left + dl; er: ln L_P/L_Q = ln R_left - er; cells + dc
                parts = ((dl, rel_l, 1, lr_p, lr_q, rr_lo, errs[2], mine[2]),
                         (er, rel_r, -1, ll_p, ll_q, ll_lo, errs[1], mine[1]),
                         (dc, rel_c, 1, lr, zero, lr_lo, errs[0], mine[0]))
            for corr, rel, sign, target, base, lo_out, err, own in parts:
                # only the cells the kernel computed (near the tail, from
                # cell `first` on, with a finite rel) can take the form; the
                # tail cells themselves are exact
                at = np.flatnonzero(np.isfinite(rel))
                cand = at + first
                inner = (cand >= 1) & (cand <= n - 1)
                at, cand = at[inner], cand[inner]
                bound = rel[at] * np.abs(corr[at].astype(f))
                # an absolute error below 1e-20 (a fraction 1e-15 of any
                # distance from eps that matters) is taken over the other
                # forms' estimates (the end-ratio form's omits the atoms'
                # errors), but not over the other side's value of this form
                keep = (np.isfinite(bound) & np.isfinite(base[cand])
                        & ((bound < err[cand]) | (~own[cand] & (bound < 1e-20))))
                ok, bound = cand[keep], bound[keep]
                if ok.size == 0:
                    continue
                value, e = _xprec.two_sum(np.full(ok.size, hi, dtype=ld),
                                           sign * corr[at[keep]])
                new = base[ok] + value
                target[ok] = new
                lo_out[ok] = (value - (new - base[ok])) + e + lo
                err[ok] = bound
                own[ok] = True


# Cells at each end of the Laplace-noise support whose log ratio is
# rebuilt from the exact tail ratio.
END_CELLS = 128
