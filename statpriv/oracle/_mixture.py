"""Pointwise densities of a count plus independent noise, for the noise oracle:
f_P(x) = sum_k P(k) nu(x - k) and f_Q(x) likewise, nu the Laplace, Gaussian or
two-sided geometric density, summed directly at each point x over the atoms
that can matter (the dropped terms are rigorously below one rounding unit).
"""

import math
from typing import Any, Dict, List

import mpmath
from mpmath import mpf

_LN2 = math.log(2.0)


def _float_log(v: Any) -> Any:
    """float ln(v) of a non-negative mpf (-inf for 0); no float underflow."""
    if v == 0:
        return -math.inf
    return float(mpmath.log(v))


class _NoisyMixture:
    """Pointwise evaluation of f_P(x), f_Q(x) = sum_k {P,Q}(k) nu(x - k).

    Atoms are the integers kmin..kmax (indices into P, Q).  Rigorous pruning
    of negligible terms, per point x: with w_k = max(P(k), Q(k)) and
    t_k = w_k nu(x - k), only terms with ln t_k >= M - T are summed, where
    M = max_k ln t_k (computed in float from ln w_k and ln nu, which are known
    to ~1e-9 absolute, far inside the 2-nat margin in T).  Every dropped term is
    < e^(M - T) and there are at most L + 1 of them, so the dropped part of
    f_P and of f_Q is < (L+1) e^(-T) e^M <= (L+1) e^(-T) (f_P(x) + f_Q(x)).
    T = prec ln 2 + ln(L+1) + |eps|max + 2 makes this smaller than one unit
    of rounding of f_P + e^eps f_Q at the working precision: the pruned sums
    are as accurate (relatively, pointwise) as the full sums.  The scan over
    k walks outward from the atom nearest to x and stops in each direction as
    soon as lnw_max + ln nu(distance) < M_so_far - T (nu is decreasing in the
    distance, so no later term can be kept).
    """

    def __init__(self, P: Any, Q: Any, kind: Any, par: Any, T: Any) -> None:
        self.P, self.Q = P, Q
        self.kind = kind
        nz = [k for k in range(len(P)) if P[k] != 0 or Q[k] != 0]
        self.kmin, self.kmax = nz[0], nz[-1]
        self.lw = [_float_log(max(p, q)) for p, q in zip(P, Q)]
        self.lP = [_float_log(p) for p in P]
        self.lQ = [_float_log(q) for q in Q]
        self.lwmax = max(self.lw)
        self.T = T
        self.cache: Dict[Any, Any] = {}
        self.fcache: Dict[Any, Any] = {}
        self._tab: List[Any] = []
        if kind == "gaussian":
            s = par
            self.scale = s
            self.inv2s2 = 1 / (2 * s * s)
            self.fl_inv2s2 = float(self.inv2s2)
            self.C = 1 / (s * mpmath.sqrt(2 * mpmath.pi))
        elif kind == "laplace":
            b = par
            self.scale = b
            self.invb = 1 / b
            self.fl_invb = float(self.invb)
            self.C = 1 / (2 * b)
        else:  # geometric, integer x only
            a = par
            self.alpha = a
            self.fl_lna = math.log(float(a)) if a > 0 else -math.inf
            self.C = (1 - a) / (1 + a)
        self.lnC = float(mpmath.log(self.C))

    # float log of the (unnormalised) kernel at distance d >= 0
    def _logker(self, d: Any) -> Any:
        if self.kind == "gaussian":
            return -d * d * self.fl_inv2s2
        if self.kind == "laplace":
            return -d * self.fl_invb
        if d == 0:
            return 0.0
        return d * self.fl_lna  # -inf for alpha = 0

    def _kept(self, xf: Any, lw: Any, T: Any) -> Any:
        """Atoms k whose term lw[k] + logker(|xf - k|) is >= max - T, and the
        atom kc nearest to xf (clamped to [kmin, kmax])."""
        kmin, kmax = self.kmin, self.kmax
        lwmax = self.lwmax
        logker = self._logker
        kc = int(round(xf)) if math.isfinite(xf) else (kmax if xf > 0 else kmin)
        kc = min(max(kc, kmin), kmax)
        M = -math.inf
        terms = []
        # walk away from kc on each side: distances increase from there on
        for side in (range(kc, kmin - 1, -1), range(kc + 1, kmax + 1)):
            for k in side:
                lk = logker(abs(xf - k))
                if lwmax + lk < M - T:
                    break
                t = lw[k] + lk
                if t > M:
                    M = t
                terms.append((t, k))
        if M == -math.inf:
            return [], kc
        return [k for t, k in terms if t >= M - T], kc

    def _table(self, m: Any) -> Any:
        """unnormalised kernel factor table: Gaussian e^(-m^2/(2 s^2)),
        Laplace e^(-m/b), geometric alpha^m, m = 0, 1, ... (grown on demand,
        each entry computed directly)."""
        tab = self._tab
        while len(tab) <= m:
            j = len(tab)
            if self.kind == "gaussian":
                tab.append(mpmath.exp(-mpf(j * j) * self.inv2s2))
            elif self.kind == "laplace":
                tab.append(mpmath.exp(-mpf(j) * self.invb))
            else:
                tab.append(mpf(1) if j == 0 else self.alpha ** j)
        return tab

    def _kernels(self, x: Any, klo: Any, khi: Any, kc: Any) -> Any:
        """unnormalised nu(x - k) for k = klo..khi (klo <= kc <= khi), from
        exact identities (d = x - kc, m = k - kc):
          Gaussian  e^(-(d-m)^2/(2s^2)) = e^(-d^2/(2s^2)) (e^(d/s^2))^m e^(-m^2/(2s^2))
          Laplace   e^(-|x-k|/b) = e^(-(x-j)/b) e^(-(j-k)/b)      (k <= j = floor x)
                                 = e^(-(j+1-x)/b) e^(-(k-j-1)/b) (k >= j+1)
          geometric alpha^|x-k| (x an integer).
        The powers are built by repeated multiplication (relative rounding
        error <= (L+1) 2^-prec, far inside the guard digits)."""
        out = {}
        if self.kind == "gaussian":
            tab = self._table(max(kc - klo, khi - kc))
            d = x - kc
            base = mpmath.exp(-(d * d) * self.inv2s2)
            r = mpmath.exp(2 * d * self.inv2s2)
            out[kc] = base
            pw = base
            for m in range(1, khi - kc + 1):
                pw *= r
                out[kc + m] = pw * tab[m]
            rinv = 1 / r
            pw = base
            for m in range(1, kc - klo + 1):
                pw *= rinv
                out[kc - m] = pw * tab[m]
        elif self.kind == "laplace":
            # j = floor(x) clamped to [klo - 1, khi]: still x - j >= 0 for
            # k <= j and j + 1 - x >= 0 for k >= j + 1 (empty if clamped)
            j = min(max(int(mpmath.floor(x)), klo - 1), khi)
            tab = self._table(khi - klo + 1)
            left = mpmath.exp(-(x - j) * self.invb)
            right = mpmath.exp(-(j + 1 - x) * self.invb)
            for k in range(klo, khi + 1):
                out[k] = left * tab[j - k] if k <= j else right * tab[k - j - 1]
        else:
            xi = int(x)
            tab = self._table(max(abs(xi - klo), abs(khi - xi)))
            for k in range(klo, khi + 1):
                out[k] = tab[abs(xi - k)]
        return out

    def __call__(self, x: Any) -> Any:
        """(f_P(x), f_Q(x)), cached."""
        r = self.cache.get(x)
        if r is not None:
            return r
        keep, kc = self._kept(float(x), self.lw, self.T)
        if not keep:
            r = (mpf(0), mpf(0))
        else:
            klo, khi = min(keep), max(keep)
            kc = min(max(kc, klo), khi)
            kern = self._kernels(x, klo, khi, kc)
            ks = range(klo, khi + 1)
            ker = [kern[k] for k in ks]
            fP = mpmath.fdot(self.P[klo:khi + 1], ker) * self.C
            fQ = mpmath.fdot(self.Q[klo:khi + 1], ker) * self.C
            r = (fP, fQ)
        self.cache[x] = r
        return r

    def log_pair(self, xf: Any) -> Any:
        """float (ln f_P(x), ln f_Q(x)) up to the common constant ln C, each
        by a float log-sum-exp over the atoms within 60 + ln(L+1) nats of its
        own largest term (-inf for an exact zero); used only to read signs
        away from roots."""
        r = self.fcache.get(xf)
        if r is not None:
            return r
        out = []
        for lv in (self.lP, self.lQ):
            # each log on its own (pruned relative to its own largest term)
            keep, _ = self._kept(xf, lv, 60.0 + math.log(len(lv)))
            ts = [lv[k] + self._logker(abs(xf - k)) for k in keep]
            ts = [t for t in ts if t > -math.inf]
            if not ts:
                out.append(-math.inf)
                continue
            M = max(ts)
            out.append(M + math.log(math.fsum(math.exp(t - M) for t in ts)))
        r = (out[0], out[1])
        self.fcache[xf] = r
        return r

    def log_mass_bound(self, a: Any, b: Any, which: Any) -> Any:
        """Float upper bound of ln int_a^b f_which (which = "P" or "Q").

        Finite [a, b]: int <= (b - a) sup_[a,b] f <= (b - a) sum_k w_k
        nu(dist(k, [a, b])), dist = 0 for atoms inside.  Infinite pieces are
        Laplace tails outside the atoms only: there f = f(a) e^(-|x-a|/b) and
        the integral is exactly b f(a).  Terms more than 45 nats below the
        largest are replaced by (L+1) e^(M-45); ln 2 of slack covers float
        rounding.
        """
        lw = self.lP if which == "P" else self.lQ
        L = len(lw) - 1
        if a == mpmath.ninf or b == mpmath.inf:
            edge = b if a == mpmath.ninf else a
            fP, fQ = self(edge)
            v = fP if which == "P" else fQ
            if v == 0:
                return -math.inf
            return _float_log(v) + math.log(float(self.scale)) + _LN2
        af, bf = float(a), float(b)
        terms = []
        for k in range(self.kmin, self.kmax + 1):
            if lw[k] == -math.inf:
                continue
            d = af - k if k < af else (k - bf if k > bf else 0.0)
            terms.append(lw[k] + self._logker(max(d, 0.0)))
        if not terms:
            return -math.inf
        M = max(terms)
        if M == -math.inf:
            return -math.inf
        s = sum(math.exp(t - M) for t in terms if t >= M - 45)
        s += (L + 1) * math.exp(-45)
        # (b - a may be far below float resolution: a root next to a split)
        return _float_log(b - a) + M + math.log(s) + self.lnC + _LN2
