"""The Laplace cells' log ratios near the zero points, beyond long double.

With Laplace(b) noise delta reaches 0 at the exact tail ratio ln G_P(e^(1/b))
/ G_Q(e^(1/b)) (or 1/b), linearly in the distance of the cells' log ratios
from eps: a difference of two rounded cell logs (~1e-19 |ln L| absolute)
would cost all relative accuracy just below the zero point.  These forms
rebuild the ratios as double-double hi + lo where they are the more accurate:
closed forms of a pure shift near +-1/b, the end cells from the exact tail
ratios, the law's own ratio where the noise barely mixes, and ln R -+ a
deficit of positive terms from the exact tail ratio (statpriv.noise.laplace
calls them; csrc/laplace.c evaluates the cells).
"""
from typing import Any

import numpy as np

from statpriv import _lazy, _xprec

_kernels = _lazy.module("statpriv.noise._kernels")

__all__ = ["atom_ratios", "clip_interior", "deficit_ratios", "end_ratios", "interior_lo_bound",
           "shift_cell_ratios"]


def shift_cell_ratios(lr: Any, lq: Any, cell_lq: Any, ll_q: Any, lr_q: Any, ib: Any,
                      ib_lo: Any) -> Any:
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


def interior_lo_bound(lr_lo: Any, cells: Any) -> Any:
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


def clip_interior(lr: Any, lr_lo: Any, sides: Any, big: Any = None) -> None:
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


def _end_fraction(la: Any, pos: Any, atoms: Any, l_base: Any, step: Any, side: Any) -> Any:
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


def end_ratios(lp: Any, lq: Any, ll_p: Any, lr_p: Any, ll_q: Any, lr_q: Any, b: Any, lr: Any,
               lr_lo: Any, sides: Any, err_l: Any, err_r: Any) -> Any:
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


def atom_ratios(lp: Any, lq: Any, ll_p: Any, lr_p: Any, ll_q: Any, lr_q: Any, b: Any, law_lr: Any,
                law_lo: Any, err_l: Any, err_r: Any, ll_lo: Any, rr_lo: Any) -> None:
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


def deficit_ratios(lp: Any, lq: Any, law_lr: Any, law_lo: Any, cell_lp: Any, cell_lq: Any,
                   ll_p: Any, lr_p: Any, ll_q: Any, lr_q: Any, b: Any, lr: Any, lr_lo: Any,
                   sides: Any, errs: Any, ll_lo: Any, rr_lo: Any) -> None:
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
