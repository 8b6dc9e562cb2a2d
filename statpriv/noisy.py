"""Exact curves of a count plus independent noise (docs/mathematics.md §6).

The count has laws P (target positive) and Q (target negative), given as log
pmfs on consecutive integer atoms.  The released value adds noise N, so
delta_plus(eps) = H_eps(P*N || Q*N).  No quadrature and no normal
approximation:

- two-sided geometric noise: the exact pmf of the sum on the atoms, plus the
  two geometric tails summed in closed form (their sign is constant);
- Laplace(b) noise: on every unit interval between atoms both densities are
  (L e^(-t/b) + R e^(-(1-t)/b)) / (2b), so f_P - e^eps f_Q changes sign at
  most once there and its positive part integrates in closed form; O(atoms);
- Gaussian noise: delta_plus = sum over the intervals where f_P > e^eps f_Q of
  sum_k (P(k) - e^eps Q(k)) P[N(k, sigma^2) in interval], summed per atom in
  log space.  The Gaussian kernel is totally positive, so f_P - e^eps f_Q
  changes sign at most as often as k -> P(k) - e^eps Q(k) (Karlin's variation
  diminishing property): when P/Q is monotone on the atoms -- true of every
  law built here: shifts of log-concave counts, the sampling mixtures
  (Breutigam & Reischuk, "Statistical Privacy"), the secret sample -- there is
  one sign change, solved for; otherwise every root is found on a grid of
  sigma/8 and refined.  Exact for every sigma > 0: as sigma -> 0 the normal
  masses become 0 or 1 and the curve tends to the noiseless one.

Laplace(b) and geometric(alpha) noise make every count here pure DP
(|ln f_P/f_Q| <= 1/b, resp. -ln alpha; Breutigam & Reischuk Lemma 5 — each law is a
mixture of pairs shifted by one), so delta is exactly 0 from that eps on.
"""
import numpy as np

from statpriv import _lazy
from statpriv.noise import Gaussian, Geometric, Laplace

_core = _lazy.module("statpriv._core")            # scipy.special: loaded on first use

# Atoms more than this many nats below the largest are cut before adding
# noise (the kernels scale atoms relative to the largest in long double,
# whose range ends near e^-11355); the mass cut is bounded and added to delta
# (statpriv.counting._pair_curve): results are exact wherever
# ln delta > ln(rest) + 28 (rest <= atoms * e^-DROP_NATS relative to the
# largest atom) and certified upper bounds below.
DROP_NATS = 11000.0
# Gaussian noise keeps every atom it is given: at large eps its positive part
# comes from the extreme atoms of the support.


def _trim_slice(lp, lq):
    keep = (lp >= np.max(lp) - DROP_NATS) | (lq >= np.max(lq) - DROP_NATS)
    idx = np.flatnonzero(keep)
    return slice(idx[0], idx[-1] + 1)


def trim(lp, lq):
    """Keep the atoms where P or Q is within DROP_NATS of its maximum."""
    sl = _trim_slice(lp, lq)
    return lp[sl], lq[sl]


def trim_bounded(lp, lq):
    """(slice, cut_p, cut_q): the slice trim() keeps and ln of the P and Q mass
    it cuts off (-inf if none), summed in log space; the caller adds the cut
    mass to delta as a bound (statpriv.counting._pair_curve)."""
    sl = _trim_slice(lp, lq)
    outside = np.concatenate((np.arange(0, sl.start), np.arange(sl.stop, len(lp))))
    if outside.size == 0:
        return sl, -np.inf, -np.inf
    cuts = []
    for la in (lp, lq):
        c = _log_sum(la[outside])
        # the sum is rounded: move it up by far more than its error
        cuts.append(c + 1e-9 * (1.0 + abs(c)) if c > -np.inf else c)
    return sl, cuts[0], cuts[1]


def _log_sum(la):
    """ln sum exp(la) as a float: max + ln sum exp(la - max) (one pass of
    exp in double, unlike the sequential long double np.logaddexp.reduce:
    ~50x faster on 1e6 atoms); the caller rounds it up."""
    top = np.max(la) if la.size else -np.inf
    if not np.isfinite(top):
        return float(top)
    # float64 exps: relative error ~1e-16 |la - top|, far inside the caller's margin
    return float(top) + float(np.log(np.sum(np.exp((la - top).astype(np.float64)))))


def trim_shift(lz):
    """(lp, lq, cut, cut) for the pure shift P = Z(. - 1), Q = Z (lz: Z's log
    pmf, one atom shorter than the shift arrays): Z trimmed like trim() and
    the shift rebuilt on the window, ln of Z's cut mass (rounded up) twice."""
    lz = lz[:-1]
    sl, cut, _ = trim_bounded(lz, lz)
    z = lz[sl]
    pad = np.full(1, -np.inf, dtype=z.dtype)
    return np.concatenate((pad, z)), np.concatenate((z, pad)), cut, cut


def zero_points(noise, tail_ratio=None):
    """(zero_plus, zero_minus): floats at or above sup ln f_P/f_Q (resp.
    f_Q/f_P) of the FULL count laws plus this noise, whatever was cut: the
    exact ln G_P(w)/G_Q(w) rounded up where the generating-function ratio is
    known (see core), else the pure-DP bound (1/b for Laplace, -ln alpha
    for geometric; Breutigam & Reischuk Lemma 5) rounded up; inf for Gaussian noise."""
    if isinstance(noise, Laplace):
        kind, param = "laplace", noise.scale
    elif isinstance(noise, Geometric):
        kind, param = "geometric", noise.alpha
    else:
        return np.inf, np.inf
    bound = _core.zero_point_up(kind, param)
    if tail_ratio is None:
        return bound, bound
    import mpmath
    from statpriv.counting import _float_up
    with mpmath.workdps(40):
        p = mpmath.mpf(param)
        w = mpmath.exp(1 / p) if kind == "laplace" else 1 / p
        plus = _float_up(mpmath.log(tail_ratio(w)))
        minus = _float_up(-mpmath.log(tail_ratio(1 / w)))
    return min(plus, bound), min(minus, bound)


def max_log_ratio(noise):
    """A proven bound on |ln f_P/f_Q| of any count plus this noise (1/b for
    Laplace, -ln alpha for geometric, inf for Gaussian): delta is 0 from there on."""
    return zero_points(noise)[0]


def core(lp, lq, noise, monotone_ratio, tail_ratio=None, log_ratio=None, log_ratio_lo=None):
    """C evaluator for count laws (lp, lq) plus ``noise``.

    monotone_ratio: P is Q shifted by one (no sampling); kept for callers.
    The Gaussian path decides on its own: it solves for one crossing when
    P/Q is non-decreasing on the atoms (checked here, up to rounding), since
    the Gaussian location kernel is TP2 and preserves the monotone likelihood
    ratio for every sigma (Karlin), and scans a grid otherwise.  It keeps
    every atom it is given (at large eps the extreme atoms dominate).

    tail_ratio: optional callable w -> G_P(w)/G_Q(w), the exact ratio of the
    laws' generating functions (statpriv.counting._Laws).  Beyond the last
    atom the noisy densities' ratio is constant, G_P(w)/G_Q(w) with
    w = e^(1/b) (Laplace) or 1/alpha (geometric), and before the first atom
    the same at 1/w; every count law here has a monotone ratio, which the
    log-concave Laplace and geometric kernels preserve, so these are the
    extreme ratios: the exact zero points of delta_plus and delta_minus.
    They are set on the tail cells in double-double, so delta keeps its
    relative accuracy up to the float just below the zero point.

    log_ratio: optional accurate ln P/Q of the count laws (closed forms);
    log_ratio_lo: its low parts (Gaussian noise uses both for D = P - e^eps Q).
    With geometric noise it gives the difference law D = P - Q = Q expm1(lr)
    accurately, and the cells' log ratios as log1p((D*N)/(Q*N)): where P and
    Q nearly agree (tiny sampling rates) that keeps the relative accuracy
    that a difference of two cell logs loses.
    """
    lp, lq = np.asarray(lp, dtype=np.longdouble), np.asarray(lq, dtype=np.longdouble)
    if isinstance(noise, Gaussian):
        # the accurate ln P/Q (and its low parts) gives every D_k = P(k) -
        # e^eps Q(k) its relative accuracy (csrc/noise.c, gauss_log_d)
        # monotone_ratio (P is Q shifted by one, Q log-concave: binomial,
        # Poisson-binomial) implies the monotone likelihood ratio; no check
        mlr = bool(monotone_ratio) or monotone_likelihood_ratio(lp, lq)
        return _core.GaussCurveCore(lp, lq, noise.sigma, mlr, lr=log_ratio, lr_lo=log_ratio_lo)
    sl = _trim_slice(lp, lq)
    lp, lq = lp[sl], lq[sl]
    law_lr = law_lo = atom_log_ratio = None
    if log_ratio is not None:
        log_ratio = np.asarray(log_ratio, dtype=np.longdouble)[sl]
        law_lr = atom_log_ratio = log_ratio
        if log_ratio_lo is not None:
            law_lo = np.asarray(log_ratio_lo, dtype=np.longdouble)[sl]
        with np.errstate(invalid="ignore"):
            # doubles suffice for a threshold (and exp of long doubles is slow)
            tv = np.sum(np.abs(np.exp(lp.astype(np.float64)) - np.exp(lq.astype(np.float64))))
        if not tv < 0.25:
            log_ratio = None        # P and Q far apart: no cancellation to avoid
    if isinstance(noise, Geometric):
        cell_lp, cell_lq = _core.geometric_cells(lp, lq, noise.alpha)
        lr = _log_ratio(cell_lp, cell_lq)
        err = np.full(len(lr), 4e-16)
        if log_ratio is not None:
            err = _core.geometric_difference_ratios(lp, lq, log_ratio, noise.alpha, cell_lq, lr)
        n = len(cell_lp)
        lr_lo, sides = _exact_tails(lr, tail_ratio, "geometric", noise.alpha,
                                    ((0, 1), (n - 2, n - 1)))
        if lr_lo is not None:
            atom_lr = atom_log_ratio if atom_log_ratio is not None else _log_ratio(lp, lq)
            _geometric_deficit_ratios(lp, lq, atom_lr, cell_lp, cell_lq, noise.alpha,
                                      lr, lr_lo, sides, err)
        bound = _core.zero_point_up("geometric", noise.alpha)   # -ln alpha rounded up
        return _core.PairCurveCore(cell_lp, cell_lq, lr, max_log_ratio=bound, lr_lo=lr_lo)
    if isinstance(noise, Laplace) and _is_shift(lp, lq):
        return _laplace_shift_core(lp, lq, noise.scale, tail_ratio)
    if isinstance(noise, Laplace):
        cell_lp, cell_lq, ll_p, lr_p, ll_q, lr_q = _core.laplace_cells(lp, lq, noise.scale)
        lr = _log_ratio(cell_lp, cell_lq)
        # the cells' logs are long double accurate (laplace_cells): a
        # difference of two of them is good to ~1e-19 (1 + |a| + |b|)
        with np.errstate(invalid="ignore"):
            errs = [np.nan_to_num(2e-19 * (1.0 + np.abs(a.astype(np.float64))
                                           + np.abs(b.astype(np.float64))), nan=4e-16,
                                  posinf=4e-16)
                    for a, b in ((cell_lp, cell_lq), (ll_p, ll_q), (lr_p, lr_q))]
        if log_ratio is not None:
            pos, neg = _difference_parts(lp, lq, log_ratio)
            has_pos, has_neg = np.isfinite(pos).any(), np.isfinite(neg).any()
            d_pos = d_neg = None
            if has_pos and has_neg:
                # one pass: the two laws' cells are computed independently
                both = _core.laplace_cells(pos, neg, noise.scale)
                d_pos, d_neg = (both[0], None, both[2], both[3]), (both[1], None, both[4], both[5])
            elif has_pos:
                d_pos = _core.laplace_cells(pos, pos, noise.scale)
            elif has_neg:
                d_neg = _core.laplace_cells(neg, neg, noise.scale)
            for k, (base, target) in enumerate(((cell_lq, lr), (ll_q, ll_p), (lr_q, lr_p))):
                # cells (k = 0: the log ratio itself), then L and R of P from Q's
                up = d_pos[(0, 2, 3)[k]] if d_pos is not None else None
                down = d_neg[(0, 2, 3)[k]] if d_neg is not None else None
                errs[k] = _relative_log(base, up, down, target, add_base=k > 0)
        n = len(cell_lp)
        lr_lo, sides = _exact_tails(lr, tail_ratio, "laplace", noise.scale, ((0,), (n - 1,)))
        bound = _core.zero_point_up("laplace", noise.scale)     # 1/b rounded up
        if lr_lo is not None:
            ll_lo, rr_lo = _laplace_end_ratios(lp, lq, ll_p, lr_p, ll_q, lr_q, noise.scale,
                                               lr, lr_lo, sides, errs[1], errs[2])
        else:
            ll_lo = np.zeros(n, dtype=np.longdouble)
            rr_lo = np.zeros(n, dtype=np.longdouble)
        if law_lr is not None:
            _laplace_atom_ratios(lp, lq, ll_p, lr_p, ll_q, lr_q, noise.scale, law_lr, law_lo,
                                 errs[1], errs[2], ll_lo, rr_lo)
        if lr_lo is not None:
            _laplace_deficit_ratios(lp, lq, law_lr, law_lo, cell_lp, cell_lq, ll_p, lr_p, ll_q,
                                    lr_q, noise.scale, lr, lr_lo, sides, errs, ll_lo, rr_lo)
        laplace = (ll_p, lr_p, ll_q, lr_q, noise.scale, ll_lo, rr_lo)
        _clip_interior(lr, lr_lo, sides)
        return _core.PairCurveCore(cell_lp, cell_lq, lr, laplace=laplace,
                                   max_log_ratio=bound, lr_lo=lr_lo)
    raise ValueError(f"noise must be statpriv.Laplace, Gaussian or Geometric, got {noise!r}")


def _is_shift(lp, lq):
    """P is Q shifted by one atom (no sampling): lp[k] = lq[k-1] exactly."""
    return (len(lp) >= 2 and lp[0] == -np.inf and lq[-1] == -np.inf
            and np.array_equal(lp[1:], lq[:-1]))


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
    from statpriv.counting import _mpf_exact
    ld = np.longdouble
    n = len(lp)
    cell_lq, ll_q, lr_q = _core.laplace_cells_one(lq, b)
    with mpmath.workdps(40):
        ib_mp = 1 / mpmath.mpf(b)
        ib = ld(mpmath.nstr(ib_mp, 25, strip_zeros=False))
        ib_lo = ld(float(ib_mp - _mpf_exact(ib)))
    ln2 = np.log(ld(2))
    # P's cells from Q's: L_P(j) = L_Q(j-1), R_P(j) = R_Q(j-1) (cells i = j + 1)
    ll_p = np.full(n + 1, -np.inf, dtype=ld)
    lr_p = np.full(n + 1, -np.inf, dtype=ld)
    cell_lp = np.empty(n + 1, dtype=ld)
    ll_p[2:n] = ll_q[1:n - 1]
    lr_p[2:n] = lr_q[1:n - 1]
    lr_p[1] = np.logaddexp(lq[0], lr_q[1] - ib)              # R_P(0) = Q(0) + u R_Q(0)
    cell_lp[2:n] = cell_lq[1:n - 1]
    cell_lp[1] = lr_p[1] + np.log(-np.expm1(-ib)) - ln2      # (1 - u) R_P(0) / 2
    cell_lp[0] = lr_p[1] - ib - ln2                          # u R_P(0) / 2
    cell_lp[n] = cell_lq[n] + ib                             # L_P(n-1) / 2 = w L_Q(n-1) / 2
    lr = _log_ratio(cell_lp, cell_lq)
    _shift_cell_ratios(lr, lq, cell_lq, ll_q, lr_q, ib)
    ll_lo = np.zeros(n + 1, dtype=ld)
    rr_lo = np.zeros(n + 1, dtype=ld)
    q = lq[0:n - 1]                                          # Q(j), j = i - 1
    for base, target, lo_out, prev, sign in ((ll_q, ll_p, ll_lo, ll_q[0:n - 1], -1),
                                             (lr_q, lr_p, rr_lo, lr_q[1:n], 1)):
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            # the closed form where s = log1p(t) < 1/64 (t < 0.01587, i.e.
            # ln t < -4.14): near the zero points (s -> 0) it is exact to
            # ~1e-30, elsewhere the difference of the kernel's logs (mantissa
            # logs in double, ~2e-16 absolute) is as good as double s
            # screened in double (no long double temporaries over every
            # atom), then ln t again in long double on the chosen cells
            lt = np.subtract(q, prev, dtype=np.float64)
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
    lr_lo, sides = _exact_tails(lr, tail_ratio, "laplace", b, ((0,), (n,)))
    _clip_interior(lr, lr_lo, sides)
    bound = _core.zero_point_up("laplace", b)
    return _core.PairCurveCore(cell_lp, cell_lq, lr, laplace=(ll_p, lr_p, ll_q, lr_q, b, ll_lo, rr_lo),
                               max_log_ratio=bound, lr_lo=lr_lo)


def _shift_cell_ratios(lr, lq, cell_lq, ll_q, lr_q, ib):
    """Interior cells' mass ratios of a pure shift near +-1/b, without the
    difference of two cell logs (the kernel's thresholds need them to the
    accuracy of their distance from eps).  With C_A = L_A(j) + R_A(j) on the
    cell [j, j+1]: C_P = w C_Q - (w - 1) Q(j) - (w - u) R_Q(j)
                       = u C_Q + (1 - u^2) L_Q(j-1) + (1 - u) Q(j), so
    ln C_P/C_Q = 1/b + log1p(-y) = -1/b + log1p(z) with
    y = ((w - 1) Q(j) + (w - u) R_Q(j)) / (w C_Q) and
    z = w ((1 - u^2) L_Q(j-1) + (1 - u) Q(j)) / C_Q; the form with the
    smaller of y, z where it is below 1/2 (modifies lr in place)."""
    n = len(lq)
    if n < 2:
        return
    ld = np.longdouble
    # only cells whose (rounded) ratio is within 1/32 of +-1/b need the forms
    # (there y or z < 1/64 becomes possible); the rest keep the difference
    r = np.abs(lr[1:n].astype(np.float64))
    r -= np.float64(ib)
    near = np.flatnonzero(np.abs(r) < 1 / 32)
    if near.size == 0:
        return
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
        lr[near[form_a] + 1] = ib + np.log1p(-y[form_a]).astype(ld)
        lr[near[form_b] + 1] = -ib + np.log1p(z[form_b]).astype(ld)


def _clip_interior(lr, lr_lo, sides):
    """Interior cells' mass ratios lie between the exact tail ratios (monotone
    laws): clamp their rounding, as the unevaluated sums lr + lr_lo, to the
    tail's, so that no interior cell sets a zero point beyond the exact one
    (the kernel takes the largest cell ratio) and cells within rounding of
    it keep the tail's exact value."""
    if lr_lo is None or len(lr) < 3:
        return
    inner, inner_lo = lr[1:-1], lr_lo[1:-1]
    for side in sides:
        hi, lo = (lr[-1], lr_lo[-1]) if side == 1 else (lr[0], lr_lo[0])
        with np.errstate(invalid="ignore"):
            past = (inner - hi) + (inner_lo - lo)
        past = past > 0 if side == 1 else past < 0
        inner[past] = hi
        inner_lo[past] = lo


def _difference_parts(lp, lq, law_lr):
    """log D+ and log D- of D = P - Q = Q expm1(lr) (= P where Q = 0)."""
    ld = np.longdouble
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        mag = np.where(np.isfinite(lq), lq + np.log(np.abs(np.expm1(law_lr))),
                       np.where(np.isfinite(lp), lp, -np.inf)).astype(ld)
    mag = np.where(np.isnan(mag), -np.inf, mag).astype(ld)
    pos = np.where((law_lr > 0) | ~np.isfinite(lq), mag, -np.inf).astype(ld)
    neg = np.where((law_lr < 0) & np.isfinite(lq), mag, -np.inf).astype(ld)
    return pos, neg


def _relative_log(base, up, down, target, add_base):
    """Where the convolved difference is small against the base (Q's) value,
    target = [base +] log1p((up - down) / base) in place (logs throughout)."""
    n = len(base)
    up = np.full(n, -np.inf, dtype=np.longdouble) if up is None else up
    down = np.full(n, -np.inf, dtype=np.longdouble) if down is None else down
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        u, d = np.exp(up - base), np.exp(down - base)
        better = np.isfinite(base) & (u + d < 0.25)
        value = np.log1p(u - d)
        if add_base:
            value = base + value
    target[better] = value[better]
    err = np.full(n, 4e-16)
    err[better] = 4e-16 * (u[better] + d[better]).astype(np.float64) + 1e-18
    return err


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
    is below err_l / err_r.  Modifies the arrays in place.
    """
    ld = np.longdouble
    n = len(lp)
    if n < 2:
        return
    ib = 1 / ld(b)
    lo_law = np.zeros(n, dtype=ld) if law_lo is None else law_lo
    i = np.arange(1, n)                       # interior cells, atom j = i - 1
    for side in (0, 1):
        atom = i - 1 if side == 0 else i      # the atom j (L) or j + 1 (R)
        if side == 0:
            prev_p, prev_q = ll_p[i - 1], ll_q[i - 1]      # ln L_A(j - 1) (-inf at i = 1)
            base_p, base_q, lo_out, err = ll_p, ll_q, ll_lo, err_l
        else:
            nxt = np.minimum(i + 1, n)
            prev_p = np.where(i + 1 < n, lr_p[nxt], -np.inf)   # ln R_A(j + 1)
            prev_q = np.where(i + 1 < n, lr_q[nxt], -np.inf)
            base_p, base_q, lo_out, err = lr_p, lr_q, rr_lo, err_r
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            cp = np.exp((prev_p - ib - lp[atom]).astype(np.float64))
            cq = np.exp((prev_q - ib - lq[atom]).astype(np.float64))
            corr = np.log1p(cp.astype(ld)) - np.log1p(cq.astype(ld))
            lawr = law_lr[atom]
            # a closed-form law ratio (law_lo given) is good to ~4e-19 |lr|; a
            # difference of the laws' logs only to ~2e-19 (|ln P| + |ln Q|)
            if law_lo is not None:
                own = 4e-19 * (1.0 + np.abs(lawr.astype(np.float64)))
            else:
                own = 2e-19 * (1.0 + np.abs(lp[atom].astype(np.float64))
                               + np.abs(lq[atom].astype(np.float64)))
            bound = own + 4e-16 * (cp + cq)
        ok = (np.isfinite(lp[atom]) & np.isfinite(lq[atom]) & np.isfinite(lawr)
              & np.isfinite(corr) & np.isfinite(base_q[i]) & (bound < err[i]))
        idx = i[ok]
        dl = lawr[ok] + corr[ok]
        new_p = base_q[idx] + dl
        base_p[idx] = new_p
        lo_out[idx] = (dl - (new_p - base_q[idx])) + lo_law[atom[ok]]
        err[idx] = bound[ok]


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
        if law_lr is None:
            atom_lr = _log_ratio(lp, lq)
            atom_err = 2e-19 * (1.0 + np.abs(lp.astype(f)) + np.abs(lq.astype(f)))
        else:
            atom_lr = law_lr
            atom_err = 4e-19 * (1.0 + np.abs(atom_lr.astype(f)))
            if law_lo is not None:
                # refined cells (a non-zero low part): ~1e-30
                atom_err = np.where(law_lo != 0, 1e-30 * (1.0 + np.abs(atom_lr.astype(f))),
                                    atom_err)
        atom_err = np.nan_to_num(atom_err, nan=np.inf, posinf=np.inf)
        mine = [np.zeros(n + 1, dtype=bool) for _ in range(3)]    # set here: cells, L, R
        for side in sides:
            tail = n if side == 1 else 0
            hi, lo = lr[tail], lr_lo[tail]
            zero = np.zeros(n + 1, dtype=ld)
            if side == 1:
                dl, er, dc, rel_l, rel_r, rel_c = _core.laplace_deficits(
                    lp, lq, atom_lr, law_lo, atom_err, ll_p, lr_q, cell_lp, b, hi, lo)
                # L: ln R - dl;  R: ln R + er;  cells: ln R - dc
                parts = ((dl, rel_l, -1, ll_p, ll_q, ll_lo, errs[1], mine[1]),
                         (er, rel_r, 1, lr_p, lr_q, rr_lo, errs[2], mine[2]),
                         (dc, rel_c, -1, lr, zero, lr_lo, errs[0], mine[0]))
            else:
                dl, er, dc, rel_l, rel_r, rel_c = _core.laplace_deficits(
                    lq, lp, atom_lr, law_lo, atom_err, lr_q, ll_p, cell_lq, b, -hi, -lo,
                    mirror=True)
                # dl: deficit of ln R_Q/R_P below -ln R_left, so ln R_P/R_Q =
                # ln R_left + dl; er: ln L_P/L_Q = ln R_left - er; cells + dc
                parts = ((dl, rel_l, 1, lr_p, lr_q, rr_lo, errs[2], mine[2]),
                         (er, rel_r, -1, ll_p, ll_q, ll_lo, errs[1], mine[1]),
                         (dc, rel_c, 1, lr, zero, lr_lo, errs[0], mine[0]))
            for corr, rel, sign, target, base, lo_out, err, own in parts:
                bound = rel * np.abs(corr.astype(f))
                bound[[0, n]] = np.inf                  # the tail cells are exact
                # an absolute error below 1e-20 (a fraction 1e-15 of any
                # distance from eps that matters) is taken over the other
                # forms' estimates (the end-ratio form's omits the atoms'
                # errors), but not over the other side's value of this form
                ok = np.flatnonzero(np.isfinite(bound) & np.isfinite(base)
                                    & ((bound < err) | (~own & (bound < 1e-20))))
                if ok.size == 0:
                    continue
                value, e = _two_sum(np.full(ok.size, hi, dtype=ld), sign * corr[ok])
                new = base[ok] + value
                target[ok] = new
                lo_out[ok] = (value - (new - base[ok])) + e + lo
                err[ok] = bound[ok]
                own[ok] = True


# Cells at each end of the Laplace-noise support whose log ratio is
# rebuilt from the exact tail ratio.
END_CELLS = 128


def _two_sum(a, b):
    """(s, e): s = fl(a + b) and its exact rounding error (long double arrays)."""
    total = a + b
    bb = total - a
    return total, (a - (total - bb)) + (b - bb)


def _geometric_deficit_ratios(lp, lq, atom_lr, cell_lp, cell_lq, alpha, lr, lr_lo, sides, err):
    """Cell log ratios from the exact tail ratios, as ln R - D(x).

    ln R = lr + lr_lo on a tail cell (set by _exact_tails from the generating
    functions); D(x) = ln R - ln f_P(x)/f_Q(x) = log1p(c V(x) / f_P(x)) with
    V(x) = sum_{k>x} (P(k) - R Q(k)) (alpha^(x-k) - alpha^(k-x)), a sum of
    positive terms above the crossing of the atoms' ratio (core's
    sp_geometric_deficits), mirrored on the left (Q/P, reversed support).
    D is accurate to its own relative precision, so f_P - e^eps f_Q keeps its
    relative accuracy up to the float just below the zero point, where a
    difference of two cell logs (error ~1e-19 |ln f|) does not.  The high
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
                d, rel = _core.geometric_deficits(lp, lq, atom_lr, cell_lp[1:n + 1], alpha,
                                                  hi, lo)
            else:
                hi, lo = lr[0], lr_lo[0]
                d, rel = _core.geometric_deficits(lq, lp, atom_lr, cell_lq[1:n + 1], alpha,
                                                  -hi, -lo, mirror=True)
            ok = np.flatnonzero(np.isfinite(rel))          # atoms x; cell x + 1
            bound = rel[ok] * d[ok].astype(np.float64)
            better = bound < err[ok + 1]
            ok, bound, d = ok[better], bound[better], d[ok[better]]
            new_hi, e = _two_sum(np.full(len(ok), hi, dtype=np.longdouble),
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


def _exact_tails(lr, tail_ratio, kind, param, cells):
    """Overwrite lr on the tail cells with the exact ln G_P(w)/G_Q(w) as
    hi + lo (returns the lo array, or None).  cells = (left cells, right
    cells).  Skipped where the computed cell ratio disagrees by more than
    1e-12 (the laws were trimmed to a window that changes the tail)."""
    if tail_ratio is None:
        return None, ()
    import mpmath
    from statpriv.counting import _mpf_exact
    lo = np.zeros(len(lr), dtype=np.longdouble)
    sides = []
    with mpmath.workdps(40):
        p = mpmath.mpf(param)
        w_right = mpmath.exp(1 / p) if kind == "laplace" else 1 / p
        for side, w, group in ((0, 1 / w_right, cells[0]), (1, w_right, cells[1])):
            value = mpmath.log(tail_ratio(w))
            hi = np.longdouble(mpmath.nstr(value, 25, strip_zeros=False))
            if all(abs(lr[j] - hi) <= 1e-12 * max(1.0, abs(float(value))) for j in group):
                for j in group:
                    lr[j] = hi
                    lo[j] = float(value - _mpf_exact(hi))
                sides.append(side)
    return (lo, tuple(sides)) if sides else (None, ())


def monotone_likelihood_ratio(lp, lq):
    """ln P(k) - ln Q(k) is non-decreasing over the atoms where P + Q > 0
    (-inf where P = 0, +inf where Q = 0), up to the rounding of the logs."""
    live = np.isfinite(lp) | np.isfinite(lq)
    lp, lq = lp[live], lq[live]
    if lp.size < 2:
        return True
    with np.errstate(invalid="ignore"):
        lr = lp - lq
    finite = np.isfinite(lr)
    # -inf (P = 0) only before, +inf (Q = 0) only after the finite ratios
    neg, pos = np.flatnonzero(lr == -np.inf), np.flatnonzero(lr == np.inf)
    fin = np.flatnonzero(finite)
    if fin.size and ((neg.size and neg[-1] > fin[0]) or (pos.size and pos[0] < fin[-1])):
        return False
    if neg.size and pos.size and neg[-1] > pos[0]:
        return False
    r = lr[finite]
    tol = 1e-12 * (1.0 + np.abs(lp[finite]) + np.abs(lq[finite]))
    return bool(np.all(np.diff(r) >= -np.maximum(tol[1:], tol[:-1])))


def _log_ratio(lp, lq):
    with np.errstate(invalid="ignore"):
        lr = lp - lq
    lr[np.isnan(lr)] = 0.0     # both zero: the cell contributes nothing either way
    return lr
