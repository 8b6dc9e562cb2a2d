"""Oracle for a counting query released with additive noise (Laplace,
Gaussian, two-sided geometric): the densities of count + noise as direct sums
over the atoms, the hockey stick by mpmath quadrature split at every sign
change (a sum over the integers for geometric noise).  See
noisy_counting_delta for the method.
"""

import math
from typing import Any, Callable

import mpmath
from mpmath import mp, mpf

from statpriv.oracle._common import (
    _check_direction, _eps_list, _eval_terms, _guard, _is_sequence, _tick, _to_mpf)
from statpriv.oracle._mixture import _LN2, _NoisyMixture
from statpriv.oracle._quad import _bracket_root, _gl_piece, _sign, _ts_piece
from statpriv.oracle.binomial import _counting_size, counting_pmfs

__all__ = ["noisy_counting_delta"]


# --------------------------------------------------------------------------
# counting query + additive noise (docs/mathematics.md §6), brute force
# --------------------------------------------------------------------------
#
# The released value is Y = C + N with C ~ P (target positive) or C ~ Q
# (target negative), P and Q the pmfs of counting_pmfs on the atoms 0..L, and
# N independent noise in count units.  The laws of Y are the mixtures
#     f_P(x) = sum_k P(k) nu(x - k),   f_Q(x) = sum_k Q(k) nu(x - k),
# and delta_plus = int (f_P - e^eps f_Q)_+ (a sum over the integers for
# geometric noise), delta_minus with P and Q swapped.
#
# Every density value is a direct sum over the atoms at the point x itself
# (no recursions over atoms, no closed-form per-interval coefficients, no
# closed-form integrals); the integrals are mpmath quadratures of the
# pointwise positive part, split at every sign change found by a grid scan.
# noisy_counting_delta defaults to dps=30 (as normal_approx_delta; the other
# oracle functions: 50); quadrature of O(n) pieces at 50 digits would be
# markedly slower.

_NOISE_KINDS = ("laplace", "gaussian", "geometric")


def _check_noise(noise: Any) -> Any:
    """("laplace", b) | ("gaussian", sigma) | ("geometric", alpha) -> (kind, raw)."""
    if (isinstance(noise, (str, bytes)) or not _is_sequence(noise)
            or len(noise) != 2):
        raise ValueError(
            "noise must be a pair (kind, parameter) with kind in "
            f"{_NOISE_KINDS}, got {noise!r}")
    kind, par = noise[0], noise[1]
    if kind not in _NOISE_KINDS:
        raise ValueError(f"noise kind must be one of {_NOISE_KINDS}, got {kind!r}")
    return kind, par


def _geometric_hs(mix: Any, A: Any, B: Any, ee: Any) -> Any:
    """sum over the integers x of (A-density(x) - ee B-density(x))_+,
    (A, B) = ("P","Q") for delta_plus, ("Q","P") for delta_minus.

    Explicit sum for x in [kmin - 3, kmax + 3].  Tails: for x >= x_hi >= kmax
    every atom k <= kmax has |x - k| = (x - x_hi) + (x_hi - k), so
    f_P(x) = f_P(x_hi) alpha^(x - x_hi) and likewise f_Q: the term
    t(x) = t(x_hi) alpha^(x - x_hi) keeps the sign of t(x_hi) and
    sum_{x > x_hi} t(x)_+ = t(x_hi)_+ alpha / (1 - alpha); the left tail
    x < x_lo <= kmin is the mirror image with t(x_lo).
    """
    a = mix.alpha
    x_lo, x_hi = mix.kmin - 3, mix.kmax + 3
    pick: Callable[[Any], Any] = (lambda r: (r[0], r[1])) if A == "P" else (lambda r: (r[1], r[0]))

    def t(x: Any) -> Any:
        u, v = pick(mix(mpf(x)))
        return u - ee * v

    s = mpf(0)
    for x in range(x_lo, x_hi + 1):
        tx = t(x)
        if tx > 0:
            s += tx
    if a > 0:
        s += (max(t(x_hi), 0) + max(t(x_lo), 0)) * a / (1 - a)
    return s


def _continuous_hs(mix: Any, A: Any, eps: Any, ee: Any, dps: Any) -> Any:
    """int (f_A - ee f_B)_+ dx for Laplace / Gaussian noise (A = "P": plus).

    See noisy_counting_delta for the method.  Runs at the current (working)
    precision; dps is the requested output precision (for the error budget).
    """
    kind = mix.kind
    s = mix.scale
    kmin, kmax = mix.kmin, mix.kmax
    plus = (A == "P")

    def fg(x: Any) -> Any:
        fP, fQ = mix(x)
        if plus:
            return fP - ee * fQ, fP + ee * fQ
        return fQ - ee * fP, fQ + ee * fP

    def g(x: Any) -> Any:
        return fg(x)[0]

    def G(x: Any) -> Any:                       # g / h in [-1, 1]: scale-free sign test
        gv, hv = fg(x)
        return gv / hv if hv != 0 else mpf(0)

    # coefficient sign changes V of d_k = A(k) - ee B(k) (Gaussian: Descartes'
    # rule for the exponential sum g(x) = e^(-x^2/2s^2) sum_k c_k e^(kx/s^2)
    # bounds the number of real zeros of g by V)
    Wt, Bt = (mix.P, mix.Q) if plus else (mix.Q, mix.P)
    dsgn = []
    noise_floor = mpmath.ldexp(1, -mp.prec + 10)
    for k in range(kmin, kmax + 1):
        dk = Wt[k] - ee * Bt[k]
        if abs(dk) > noise_floor * (Wt[k] + ee * Bt[k]):
            dsgn.append(_sign(dk))
    V = sum(1 for u, v in zip(dsgn, dsgn[1:]) if u != v)

    tol_rel = mpmath.mpf(10) ** (-(dps + 10))   # budget for neglected mass
    small = s < mpf(1) / 2

    def local_splits(lo_int: Any, hi_int: Any) -> Any:
        """extra split points k +- s 2^i (s < 1/2) around the atoms."""
        pts = []
        if small:
            offs = []
            o = s
            while o < mpf(1) / 2:
                offs.append(o)
                o *= 2
            for k in range(lo_int, hi_int + 1):
                for o in offs:
                    pts += [k - o, k + o]
        return pts

    piece_cache = {}
    root_cache = {}

    def integrate(pieces: Any) -> Any:
        """pieces: list of (a, b) with g > 0 inside (checked at the midpoint
        by the caller).  Integrate in decreasing order of a rigorous mass
        bound, stop when the sum of the remaining bounds is below tol_rel D.
        Returns (D, error estimate + neglected bound)."""
        bounds = []
        for a, b in pieces:
            lb = mix.log_mass_bound(a, b, A)
            bounds.append((lb, a, b))
        bounds.sort(key=lambda t: -t[0])
        # suffix sums of the bounds (mpf, no underflow)
        rem = [mpf(0)] * (len(bounds) + 1)
        for i in range(len(bounds) - 1, -1, -1):
            lb = bounds[i][0]
            rem[i] = rem[i + 1] + (mpmath.exp(lb) if lb > -math.inf else 0)
        D = mpf(0)
        err = mpf(0)
        for i, (lb, a, b) in enumerate(bounds):
            if rem[i] <= tol_rel * D:
                err += rem[i]
                break
            key = (a, b)
            if key not in piece_cache:
                piece_cache[key] = integrate_piece(a, b)
            v, e = piece_cache[key]
            D += v
            err += e
        return D, err

    def integrate_piece(a: Any, b: Any) -> Any:
        if a == mpmath.ninf:
            sc = fg(b)[1]
        elif b == mpmath.inf:
            sc = fg(a)[1]
        else:
            sc = max(fg(a)[1], fg(b)[1], fg((a + b) / 2)[1])
        if sc == 0:
            sc = mpf(1)

        def F(x: Any) -> Any:
            gv = g(x)
            return gv / sc if gv > 0 else mpf(0)

        if a == mpmath.ninf or b == mpmath.inf:
            v, e = _ts_piece(F, a, b)
        else:
            v, e = _gl_piece(F, a, b)
        _tick()
        return v * sc, e * sc

    ef = float(eps)

    def sign_at(x: Any) -> Any:
        """sign of g(x): read from the float logs when
        |ln f_A - ln f_B - eps| > 1e-7 (1 + |ln f_A| + |ln f_B| + |eps|)
        (float error of those logs is < 1e-10 of that scale), else from the
        mpmath values."""
        lP, lQ = mix.log_pair(float(x))
        la, lb = (lP, lQ) if plus else (lQ, lP)
        if la == -math.inf and lb == -math.inf:
            return _sign(g(x))
        if lb == -math.inf:
            return 1
        if la == -math.inf:
            return -1
        diff = la - lb - ef
        if abs(diff) > 1e-7 * (1 + abs(la) + abs(lb) + abs(ef)):
            return 1 if diff > 0 else -1
        return _sign(g(x))

    def scan(points: Any) -> Any:
        """sorted grid points -> list of roots (each sign change refined by
        _bracket_root on the mpmath G, exact zeros kept) and the number of
        sign changes."""
        roots = []
        nchange = 0
        prev_x, prev_s = None, None
        for x in points:
            sx = sign_at(x)
            if sx == 0:
                # exact zero on the grid: a root (or a touching point); the
                # next bracket starts after it
                roots.append(x)
                nchange += 1
                prev_x = prev_s = None
                continue
            if prev_x is not None and prev_s != sx:
                nchange += 1
                key = (prev_x, x)
                if key not in root_cache:
                    Ga, Gb = G(prev_x), G(x)
                    if _sign(Ga) != prev_s or _sign(Gb) != sx:
                        raise ArithmeticError(
                            "noisy oracle: float and mpmath signs disagree")
                    root_cache[key] = _bracket_root(G, prev_x, x, Ga, Gb)
                roots.append(root_cache[key])
            prev_x, prev_s = x, sx
        return roots, nchange

    def positive_pieces(breaks: Any) -> Any:
        out = []
        for a, b in zip(breaks[:-1], breaks[1:]):
            if not a < b:
                continue
            if sign_at((a + b) / 2) > 0:
                out.append((a, b))
        return out

    if kind == "laplace":
        # Rigorous root location: on every [j, j+1] between consecutive
        # integers each term is c e^(+-x/b), so g = A e^(x/b) + B e^(-x/b)
        # has at most one zero there unless it vanishes identically; beyond
        # the outermost atoms g is a single exponential (constant sign).
        # Hence the signs at the integers (plus midpoints, which only make
        # the brackets tighter) find every sign change.
        grid = []
        for j in range(kmin, kmax + 1):
            grid.append(mpf(j))
            if j < kmax:
                grid.append(mpf(j) + mpf(1) / 2)
        roots, _ = scan(grid)
        breaks = sorted(set([mpf(j) for j in range(kmin, kmax + 1)] + roots
                            + local_splits(kmin, kmax)))
        breaks = [x for x in breaks if kmin <= x <= kmax]
        pieces = positive_pieces(breaks)
        # tails: g(x) = g(kmax) e^(-(x-kmax)/b) beyond kmax, mirror below kmin;
        # integrated by quadrature too, split at kmax + b {1, 4, 16, 64}.
        for edge, sgn in ((mpf(kmax), 1), (mpf(kmin), -1)):
            if g(edge) > 0:
                pts = [edge] + [edge + sgn * m * s for m in (1, 4, 16, 64)]
                pts.append(mpmath.inf if sgn > 0 else mpmath.ninf)
                if sgn < 0:
                    pts = pts[::-1]
                pieces += list(zip(pts[:-1], pts[1:]))
        D, err = integrate(pieces)
        if err > mpmath.mpf(10) ** (-(dps + 3)) * D:
            raise ArithmeticError(
                f"noisy oracle: error budget {mpmath.nstr(err, 3)} too large "
                f"for delta = {mpmath.nstr(D, 5)}")
        return D

    # ---------------- Gaussian ----------------
    # Grid of step h <= s/8 anchored at 0 (so refinements / extensions reuse
    # cached values) over [kmin - W s, kmax + W s]; the mass of f_A outside
    # is <= 2 Phibar(W) and is neglected only once that is < tol_rel D
    # (otherwise W grows).  If fewer sign changes than V are found the grid
    # is halved (at most twice).
    h = s / 8
    u = max(1, int(mpmath.floor(s)))            # split spacing
    W = mpf(14)
    refine = 0
    for _ in range(40):
        lo = kmin - W * s
        hi = kmax + W * s
        j0 = int(mpmath.floor(lo / h))
        j1 = int(mpmath.ceil(hi / h))
        grid = [j * h for j in range(j0, j1 + 1)]
        roots, F_found = scan(grid)
        if F_found < V and refine < 2:
            refine += 1
            h /= 2
            continue
        i0 = int(mpmath.floor(grid[0] / u))
        i1 = int(mpmath.ceil(grid[-1] / u))
        splits = [mpf(i * u) for i in range(i0, i1 + 1)]
        breaks = sorted(set(splits + roots + local_splits(kmin, kmax)
                            + [grid[0], grid[-1]]))
        breaks = [x for x in breaks if grid[0] <= x <= grid[-1]]
        pieces = positive_pieces(breaks)
        D, err = integrate(pieces)
        # mass of f_A outside [lo, hi]: each atom is >= W s inside, total
        # weight <= 1 (+ rounding): <= 2 * 1.01 * Phibar(W)
        Wg = min(grid[-1] - kmax, kmin - grid[0]) / s
        tail = 2 * mpf("1.01") * mpmath.erfc(Wg / mpmath.sqrt(2)) / 2
        if D > 0 and tail <= tol_rel * D:
            err += tail
            if err > mpmath.mpf(10) ** (-(dps + 3)) * D:
                raise ArithmeticError(
                    f"noisy oracle: error budget {mpmath.nstr(err, 3)} too "
                    f"large for delta = {mpmath.nstr(D, 5)}")
            return D
        if D > 0:
            # smallest W with 2.02 Phibar(W) <= tol_rel D (Phibar(W) <=
            # phi(W)/W), then a little more
            target = mpmath.log(tol_rel * D / mpf("2.02"))
            Wn = mpmath.sqrt(-2 * target)
            while -Wn * Wn / 2 - mpmath.log(Wn * mpmath.sqrt(2 * mpmath.pi)) > target:
                Wn *= mpf("0.98")
            W = max(W * mpf("1.25"), Wn * mpf("1.05"))
        else:
            W *= 2
        if W > 10 ** 6:
            break
    raise ArithmeticError(
        "noisy oracle: could not bound the Gaussian tails (delta seems to be 0)")


def noisy_counting_delta(n: Any, pi: Any, eps: Any, noise: Any, *, sample_size: Any = None,
                         sample_rate: Any = None, sampling: Any = "without_replacement",
                         direction: Any = "max", dps: Any = 30, max_terms: Any = None) -> Any:
    """Privacy curve of a noisy counting query Y = C + N, by brute force.

    C is the noiseless count with laws P (target positive) and Q (target
    negative) from ``counting_pmfs`` (same ``n``, ``pi`` -- scalar or the
    sequence of the others' probabilities -- ``sample_size``,
    ``sample_rate``, ``sampling``), pmfs on the atoms 0..L.  ``noise`` (count
    units, sensitivity 1):

    * ``("laplace", b)``: density e^(-|x|/b) / (2b), b > 0;
    * ``("gaussian", sigma)``: N(0, sigma^2), sigma > 0;
    * ``("geometric", alpha)``: P(k) = (1-alpha)/(1+alpha) alpha^|k| on the
      integers, 0 <= alpha < 1 (alpha = 0: no noise).

    The laws of Y are f_P(x) = sum_k P(k) nu(x-k) and f_Q likewise;
    delta_plus = int (f_P - e^eps f_Q)_+ dx (a sum over the integers for
    geometric noise), delta_minus with P and Q swapped, "max" the larger.
    ``eps`` scalar -> mpf, list -> list of mpf (any real eps).

    Method (all at dps + 15 digits, rounded to dps at the end):

    * Density values: f_P(x), f_Q(x) are summed directly over the atoms at
      each point x (mpmath.fdot of the weights with the kernel values
      nu(x - k), built from exact identities such as
      e^(-(x-k)^2/2s^2) = e^(-d^2/2s^2) (e^(d/s^2))^m e^(-m^2/2s^2),
      d = x - k_c, m = k - k_c; geometric: powers alpha^m), dropping only
      terms that are rigorously below one rounding unit of f_P(x) + f_Q(x)
      in total (see _NoisyMixture).  Nothing is carried from one x to the
      next except a cache of values at identical points.
    * Geometric: exact sum over the integers of the window
      [kmin - 3, kmax + 3] (kmin, kmax the outermost atoms); beyond it f_P
      and f_Q are both c alpha^|x| times constants, so the summand keeps its
      sign and each tail is a geometric series, t(edge)_+ alpha/(1-alpha).
    * Laplace / Gaussian: g = f_P - e^eps f_Q is scanned on a grid and every
      sign change (of the scale-free G = g/(f_P + e^eps f_Q)) is refined with
      mpmath.findroot (Anderson-Bjoerk bracketing solver; bisection
      fallback).  Signs at grid points are read from float logs of f_P, f_Q
      when ln f_P - ln f_Q - eps is clearly away from 0, else from the mpmath
      values; every bracket is re-checked in mpmath before findroot.  The
      line is cut at the roots and at split points (every integer for
      Laplace -- the kinks --; every max(1, floor(sigma)) for Gaussian; plus
      atom +- s 2^i when the scale s < 1/2), the sign of g on each piece is
      read at its midpoint and each positive piece is integrated by
      mpmath.quad (Gauss-Legendre; tanh-sinh on the infinite Laplace
      tails).  As in dp_laplace_delta / dp_gaussian_delta, quad's absolute
      error control is made relative by dividing the integrand by its size
      f_P + e^eps f_Q on the piece, so tiny deltas (1e-100 and far below)
      keep full relative accuracy.  Pieces are integrated in decreasing order
      of a rigorous bound (length x sup of f_P on the piece, from
      nu(distance of each atom to the piece)); the rest are dropped once
      their bounds sum to < 1e-(dps+10) times the running total.
      - Laplace grid: the integers kmin..kmax and midpoints.  This finds
        every root: on [j, j+1] g = A e^(x/b) + B e^(-x/b) has at most one
        zero (unless it vanishes identically), and outside [kmin, kmax] g is
        a single exponential of constant sign.  The two outer tails are
        integrated by quad to +-infinity (split at kmax + b {1,4,16,64}).
      - Gaussian grid: step sigma/8, anchored at 0, over
        [kmin - W sigma, kmax + W sigma]; the mass of f_P outside is
        <= 2 Phibar(W) and it is neglected only once that is below
        1e-(dps+10) delta; W starts at 14 and grows as needed (so deltas
        living far out in the tail -- large eps -- are found).  By Descartes'
        rule of signs for exponential sums,
        g(x) = e^(-x^2/(2 sigma^2)) sum_k c_k e^(k x/sigma^2),
        c_k = (P(k) - e^eps Q(k)) e^(-k^2/(2 sigma^2)), has at most V real
        zeros, V = number of sign changes of P(k) - e^eps Q(k); if the scan
        finds fewer than V the grid step is halved (twice at most).  (For
        the pmfs of counting_pmfs P/Q is monotone, so V <= 1 and, the
        Gaussian and Laplace kernels being PF2, g changes sign at most once;
        the oracle does not rely on this.)
    * Shortcuts (exact): if P(k) - e^eps Q(k) <= 0 for all k, g <= 0 and
      delta = 0; if >= 0 for all k, delta = sum_k (P(k) - e^eps Q(k)).
    * The quadrature error estimates plus all neglected bounds must be
      below 1e-(dps+3) delta, else ArithmeticError.

    Slow but simple: cost ~ (#positive pieces) x (~45 quad nodes) x (#atoms
    within ~15 noise scales).  Sizes whose estimated cost per eps value
    (estimate_terms) exceeds ``max_terms`` are refused up front (ValueError).
    """
    _check_direction(direction)
    kind, par = _check_noise(noise)
    size = _counting_size(n, pi, sample_size, sample_rate, sampling)
    if size is not None:
        _guard(size[1] + _eval_terms(size[0], (kind, par), direction), max_terms,
               f"a count over {size[0]} records with {kind} noise")
    wp = dps + 15
    with mp.workdps(dps):
        eps_vals, scalar = _eps_list(eps)
    with mp.workdps(wp):
        p = _to_mpf(par, "noise parameter")
        if kind == "geometric":
            if not (0 <= p < 1):
                raise ValueError(f"geometric alpha must lie in [0, 1), got {par!r}")
        elif p <= 0:
            raise ValueError(f"{kind} noise scale must be > 0, got {par!r}")
        P, Q = counting_pmfs(n, pi, sample_size=sample_size,
                             sample_rate=sample_rate, sampling=sampling, dps=wp,
                             max_terms=math.inf)
        L = len(P) - 1
        emax = max(abs(float(e)) for e in eps_vals)
        T = mp.prec * _LN2 + math.log(L + 1) + emax + 2.0
        mix = _NoisyMixture(P, Q, kind, p, T)
        out = []
        for e in eps_vals:
            ee = mpmath.exp(e)
            vals = {}
            for A, B in (("P", "Q"), ("Q", "P")):
                if direction == "plus" and A == "Q":
                    continue
                if direction == "minus" and A == "P":
                    continue
                Wt, Bt = (P, Q) if A == "P" else (Q, P)
                d = [w - ee * v for w, v in zip(Wt, Bt)]
                if all(x <= 0 for x in d):
                    # g = sum_k d_k nu(x - k) <= 0 everywhere
                    vals[A] = mpf(0)
                elif all(x >= 0 for x in d):
                    # g >= 0 everywhere: delta = int g = sum_k d_k
                    vals[A] = mpmath.fsum(d)
                elif kind == "geometric":
                    vals[A] = _geometric_hs(mix, A, B, ee)
                else:
                    vals[A] = _continuous_hs(mix, A, e, ee, dps)
            out.append(max(vals.values()))
    with mp.workdps(dps):
        out = [+v for v in out]
    return out[0] if scalar else out
