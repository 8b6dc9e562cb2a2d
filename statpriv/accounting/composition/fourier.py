"""A composition held in the Fourier domain: tilt, transform, power, multiply, read back.

The parts.  Each part is a measure on the loss grid h Z of one direction
(statpriv.laws.grid_pld.GridPMF: masses a_i at (o + i) h and a mass at +inf)
composed k times.  Composing measures multiplies them: the finite part of
the composition is the convolution of the finite parts, its mass at +inf the
rest, prod_j (m_j + inf_j)^k_j - prod_j m_j^k_j (m_j: finite masses).  A
part whose delta is above (below) the true curve at every eps gives a
composition above (below) the true composition (statpriv.laws.grid_pld).

Tilting.  An FFT computes each output with an absolute error of about u
(2^-53) times the largest outputs, which is worthless where delta is 1e-9 of
them.  So the parts are tilted first (an exponential change of measure,
Esscher's): a~_i = a_i e^(lam x_i) / Z, Z = sum_i a_i e^(lam x_i), a
probability vector; the composition of the tilted parts is the tilted
composition, c~_s = c_s e^(lam s h) / prod Z^k, whose bulk sits where the
queried tail of c is (the tilt is chosen per query: statpriv.accounting.
composition.grid).  Read back, c_s = c~_s prod Z^k e^(-lam s h): the error
there is u times the tilted bulk, i.e. relative to c near the tail asked.

Window and wrap-around.  The FFT of size N >= B - A + 1 computes the
CIRCULAR convolution on [A, B]: the tilted mass outside the window lands on
it, index mod N.  A and B are chosen by Chernoff's bound on the tilted
composition, P~(S > s) <= exp(Lambda(lam + t) - Lambda(lam) - t s h) for t > 0
(Lambda: the log moment generating function of the composition, exact from
the parts), so that at most tau lies beyond each end (default 1e-14 of the
tilted mass).  The aliased mass is >= 0 and, per output, at most 2 tau: the
upper read-back keeps it (it only adds mass) and adds the untilted mass
beyond the window (Chernoff again, on the untilted composition: the mass
above B to +inf, the mass below A at A); the lower read-back subtracts 2 tau
from every tilted output and drops what lies outside.  Nothing is dropped
from the upper side, nothing added to the lower side.

Round-off, a priori (Higham, "Accuracy and stability of numerical
algorithms", §24.1: ||fl(FFT x) - FFT x||_2 <= eta ||FFT x||_2 with
eta = c u log2 N; c = 8 here, generous for pocketfft's radices).  With
|F| <= 1 for a probability vector, |F^k - G^k| <= k max(|F|, |G|)^(k-1)
|F - G|, the power by repeated squaring within 2u (k (pi + 1) + 5) |F| (as
exp(k log F) within 2u (k(|ln|F|| + pi) + 2) |F|^k, and k |ln|F|| |F|^k <= |F|),
and Parseval, the tilted outputs are within

    e_inf <= g (sum_j [k_j eta + 2u (k_j (pi + 1) + 5) + 3u J] ||a~_j||_2 + eta min_j ||a~_j||_2)

of the exact circular convolution, each (g = exp(sum_j k_j (eta sqrt(N)
||a~_j||_2 + 2 n_j u)) bounds the powers' growth through rounding).  The
tilt and its undoing carry a relative error of a few u per exponent unit
and per factor (``_relative_error``); the read-back's suffix sums (two
first-order recursive filters with positive coefficients) 3 u per term.
Every bound is added to the upper side's masses and subtracted from the
lower side's (clipped at 0: a mass is >= 0).

``Spectrum`` is the internal API an accountant builds on: a plan (grid, tilt,
window), ``multiply(part, times, cache)`` -- one forward FFT of the tilted
part, a power and a product; with a cache the transform is kept, so that a
composition asked again with one more release at the same tilt and FFT size
costs that part's power and the product, no FFT -- and ``read_back(upper)``,
the bounded composition.  FFT sizes (``fft_size``) come from a coarse set
of fast lengths so that a window grown by a few points keeps its size.
"""
import bisect
import collections
import math
from typing import Any, Tuple

import numpy as np

from statpriv import _lazy
from statpriv.accounting.composition import _fourier_kernels

_fft = _lazy.module("scipy.fft")

__all__ = ["FFT_WORKERS", "MAX_FFT", "Plan", "Readback", "Spectrum", "composed_infinity",
           "fft_size", "log_mgf", "plan", "tilted_moments"]

_U = 2.0 ** -53
_FFT_C = 8.0
# The largest FFT (points) a composition allocates (about 0.4 GB of work arrays).
MAX_FFT = 1 << 24
# scipy.fft's workers (-1: every core)
FFT_WORKERS = -1
# The tilted mass let past each end of the window.  A lower side subtracts
# twice it from every mass it reads back (what the circular convolution may
# have wrapped onto that mass), so its windows keep it small.  An upper side
# needs no such term: what wraps around only adds mass, the mass above the
# window goes to +inf and the mass below to the window's first point
# (_outside) -- a larger tau there costs at most ~tau of the tilted mass
# near the tilt's mean (~1e-9 of delta), and its windows are ~15% shorter
# (Chernoff's ends at sqrt(2 ln(1/tau)) std: 6.8 std against 8.0).
WINDOW_TAIL = 1e-14
UPPER_WINDOW_TAIL = 1e-10


def _losses(grid: Any, h: Any) -> Any:
    return (grid.offset + np.arange(grid.mass.size, dtype=np.float64)) * h


# Terms more than this many nats below the largest are counted at that level
# (an upper bound: an exp below e^-708 is a subnormal float, 100x slower).
_FLOOR_NATS = 700.0


def _tilted_sums(grid: Any, h: Any, thetas: Any, moments: Any = True) -> Any:
    """(ln Z, mean, variance) of one part tilted by each theta (_fourier_kernels;
    ``moments`` False: ln Z only, mean and variance nan)."""
    return _fourier_kernels.tilted_sums(grid.mass, grid.log_mass, int(grid.offset), float(h),
                                        np.asarray(thetas, dtype=np.float64), _FLOOR_NATS,
                                        moments)


# relative rounding of one tilted sum per term: the block's products, the
# exp, the product with the mass and the sum (_fourier_kernels.tilted_sums)
_TILT_ROUNDING = (_fourier_kernels.TILT_BLOCK + 8) * _U


def tilted_stats(parts: Any, thetas: Any, h: Any, moments: Any = True) -> Any:
    """(Lambda, mean, variance) of the composition at each theta, one sweep of
    each part for all thetas: Lambda(theta) = sum_j k_j ln sum_i a_ji
    e^(theta x_ji) (finite parts only; -inf where every part's finite mass
    is 0), rounded up (terms below e^-700 of the largest counted at that
    level; the sums' rounding added, ``mgf_rounding``), and the mean and
    variance of the composition's loss tilted by e^(theta L) (``moments``
    False: nan, not computed)."""
    thetas = np.atleast_1d(np.asarray(thetas, dtype=np.float64))
    lam, mean, var = np.zeros(thetas.size), np.zeros(thetas.size), np.zeros(thetas.size)
    for grid, times in parts:
        if grid.empty:
            return np.full(thetas.size, -np.inf), np.full(thetas.size, np.nan), \
                np.full(thetas.size, np.nan)
        lz, m, v = _tilted_sums(grid, h, thetas, moments)
        lam += times * (lz + (grid.mass.size + 2) * _TILT_ROUNDING)
        mean += times * m
        var += times * v
    return lam, mean, var


def mgf_rounding(parts: Any) -> Any:
    """What tilted_stats adds to Lambda for rounding (twice it: a lower bound)."""
    return sum(times * (g.mass.size + 2) * _TILT_ROUNDING for g, times in parts)


def log_mgf(parts: Any, thetas: Any, h: Any) -> Any:
    """Lambda(theta) at each theta, rounded up (tilted_stats)."""
    return tilted_stats(parts, thetas, h, moments=False)[0]


def tilted_moments(parts: Any, theta: Any, h: Any) -> Any:
    """(mean, variance) of the composition's loss tilted by e^(theta L)."""
    _, mean, var = tilted_stats(parts, [theta], h)
    return float(mean[0]), float(var[0])


Plan = collections.namedtuple("Plan", "h tilt start size fft_size")
Plan.__doc__ = """Where a composition is computed: the grid h, the tilt (lambda >= 0),
the window of composed indices [start, start + size) and the FFT size."""

# tilt offsets (in units of 1/std) at which Chernoff's bound is tried (a
# normal-like loss has its best near sqrt(2 ln(1/tau)) = 8 at tau = 1e-14;
# heavy tails further out; each offset costs a pass over every part)
_CHERNOFF_STEPS = np.array([0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 32.0, 128.0])
# the window's ends, which set the FFT size: a factor sqrt(2) between trial steps
# up to 32 (a sampled Gaussian's tilted loss, lumpy and heavy above, has its best
# step near 1.4 / std: windows and FFTs 10-20% shorter than from the steps above,
# for 4 more passes over the parts per end)
_WINDOW_STEPS = np.array([0.5, 0.71, 1.0, 1.41, 2.0, 2.83, 4.0, 5.66, 8.0, 11.3, 16.0, 22.6,
                          32.0, 64.0, 128.0])


def _quantile(growth: Any, steps: Any, log_tau: Any, h: Any, sign: Any) -> Any:
    """Chernoff's end of the window from growth = Lambda(tilt + step) -
    Lambda(tilt) (an upper bound) at the trial steps (sign * steps > 0): the
    smallest s (sign +1) with P~(S > s) <= tau, or the largest s (sign -1)
    with P~(S < s) <= tau, for the composition tilted by the tilt."""
    with np.errstate(invalid="ignore", over="ignore"):
        ends = (growth - log_tau) / steps / h            # in grid units
    ends = ends[np.isfinite(ends)]
    if ends.size == 0:
        return math.inf * sign
    return math.ceil(float(np.min(ends))) if sign > 0 else math.floor(float(np.max(ends)))


def _support(parts: Any) -> Any:
    lo = sum(t * g.offset for g, t in parts)
    hi = sum(t * (g.offset + g.mass.size - 1) for g, t in parts)
    return lo, hi


def plan(parts: Any, h: Any, tilt: Any, tau: Any = WINDOW_TAIL, lowest: Any = math.inf,
         std: Any = None) -> Any:
    """The window of the composition of ``parts`` ((GridPMF, times) pairs)
    tilted by ``tilt``: Chernoff's ends with tau beyond each, within the
    support, reaching down to the loss ``lowest`` at least (the lowest eps
    the read-back is asked about), and the FFT size
    (scipy.fft.next_fast_len).  ``std``: the tilted loss's standard
    deviation if known (it scales the trial steps)."""
    lo, hi = _support(parts)
    if std is None:
        std = math.sqrt(max(tilted_moments(parts, tilt, h)[1], 0.0))
    log_tau = math.log(tau)
    steps = _WINDOW_STEPS / max(std, 1e-300)
    lam = log_mgf(parts, np.concatenate(([tilt], tilt + steps, tilt - steps)), h)
    growth = lam[1:] - (lam[0] - 2.0 * mgf_rounding(parts))     # (Lambda(tilt) from below)
    k = steps.size
    start = max(lo, min(_quantile(growth[k:], -steps, log_tau, h, -1),
                        math.floor(lowest / h) - 1 if math.isfinite(lowest) else math.inf))
    stop = min(hi, _quantile(growth[:k], steps, log_tau, h, 1))
    if stop < start:                     # (rounding at a degenerate tilt)
        start, stop = lo, hi
    if hi - stop <= stop - start + 1:
        # the top of the support within one more window: take it, so that no
        # mass above the window is bounded (every tilt then has the same limit)
        stop = hi
    size = int(stop - start + 1)
    if size > MAX_FFT:
        remedy = ("fewer mechanisms (times) or parts of a narrower loss" if h >= 1.0 else
                  "a coarser grid (a larger epsilon_error; an Accountant's larger "
                  "expected_releases)")
        raise ValueError(f"the composition needs {size:.3g} grid points at "
                         f"value_discretization_interval={h!r} (at most {MAX_FFT}); use "
                         f"{remedy}")
    return Plan(h, float(tilt), int(start), size, fft_size(size))


# FFT sizes are 2^m f / 32 for f in these (5-smooth: fast radices; at most 12.5%
# apart, about 6% above the window on average): a window that grows by a few
# points -- one more release of an accountant's thousand -- keeps its size, and
# with it the parts' cached transforms (Spectrum.multiply)
_FFT_FACTORS = (32, 36, 40, 45, 48, 54, 60)


def fft_size(points: Any) -> Any:
    """The FFT size for a window of ``points`` grid points: the smallest
    2^m f / 32 (f in _FFT_FACTORS) at least it; below 64, next_fast_len."""
    points = int(points)
    if points <= 64:
        return _fft.next_fast_len(points, real=True)
    shift = points.bit_length() - 6
    return min(f << s for s in (shift, shift + 1) for f in _FFT_FACTORS if f << s >= points)


def _relative_error(x_span: Any, log_z: Any, times: Any) -> Any:
    """Relative error of tilting one part and undoing it: forming
    ln a + lam x - ln Z and its exp (a few u per unit of the arguments)."""
    return times * _U * (6.0 + 2.0 * (x_span + abs(log_z)))


class Spectrum:
    """A composition in the Fourier domain (one direction, one side): the
    product of the tilted parts' spectra on ``plan``, with what its bounds
    need.  ``multiply`` returns a new Spectrum (the object is immutable)."""

    # the state, set from a dict (__init__)
    product: Any
    parts: Tuple[Any, ...]
    log_z: float
    rel: float
    err: float
    growth: float
    min_norm: float

    def __init__(self, plan_: Any, *, _state: Any = None) -> None:
        self.plan = plan_
        if _state is None:
            # (the empty product: ones, made only if read back; the first part's
            # spectrum replaces it -- 1 * z = z exactly -- rather than multiplies)
            _state = dict(product=None, parts=(), log_z=0.0, rel=0.0, err=0.0, growth=0.0,
                          min_norm=math.inf)
        self.__dict__.update(_state)

    @property
    def values(self) -> Any:
        """The product of the tilted parts' spectra (rfft layout)."""
        if self.product is None:
            return np.ones(self.plan.fft_size // 2 + 1, dtype=np.complex128)
        return self.product

    def _transform(self, grid: Any) -> Any:
        """(spectrum, ln Z, largest |lam x|, ||a~||_2, size) of one part tilted on
        this plan: its forward FFT."""
        p = self.plan
        N, lam = p.fft_size, p.tilt
        x = _losses(grid, p.h)
        with np.errstate(divide="ignore"):
            w = grid.log_mass + lam * x
        # (logsumexp's own max-shifted sum: scipy.special.logsumexp does the
        # same arithmetic after ~1 ms of array-API dispatch at 1e4 entries)
        top = float(np.max(w))
        log_z = top + math.log(float(np.sum(np.exp(w - top))))
        # (terms below e^-700 of the sum dropped: n e^-700 to the error bound)
        z = w - log_z
        tilted = np.exp(np.where(z > -_FLOOR_NATS, z, -np.inf))
        placed = np.bincount(np.mod(grid.offset + np.arange(tilted.size), N), weights=tilted,
                             minlength=N)
        return (_fft.rfft(placed, workers=FFT_WORKERS), log_z, float(np.max(np.abs(lam * x))),
                math.sqrt(float(np.sum(tilted * tilted))), tilted.size)

    def multiply(self, grid: Any, times: Any = 1, cache: Any = None) -> Any:
        """The spectrum with one more part ``grid`` (a GridPMF) composed ``times``
        times: one forward FFT of the tilted part, a power by repeated squaring,
        one product.  ``cache``: a dict keeping each part's transform and its
        last power per (part, h, tilt, FFT size), so that a composition asked
        again with a count raised (an accountant's next release) costs a power
        and a product, no FFT; the numbers are the same as without it."""
        p = self.plan
        N = p.fft_size
        state = dict(self.__dict__)
        del state["plan"]
        state["parts"] = self.parts + ((grid, times),)
        if grid.empty:
            state["product"] = np.zeros_like(self.values)
            state["log_z"] = -math.inf
            return Spectrum(p, _state=state)
        key = (id(grid), p.h, p.tilt, N)
        entry = None if cache is None else cache.get(key)
        if entry is None or entry["grid"] is not grid:
            entry = dict(grid=grid, transform=self._transform(grid), times=None, power=None)
            if cache is not None:
                cache[key] = entry
        transform, log_z, x_span, norm, size = entry["transform"]
        if entry["times"] != times:
            # (the power again, not the previous power times the transform: a
            # restored accountant, computing from nothing, gets the same bits)
            entry["times"], entry["power"] = times, _power(transform, times)
        spectrum = entry["power"]
        if cache is None:
            entry.clear()
        eta = _FFT_C * _U * (math.log2(N) + 2.0)
        state["product"] = spectrum if self.product is None else self.product * spectrum
        state["log_z"] = self.log_z + times * log_z
        state["rel"] = self.rel + _relative_error(x_span, log_z, times)
        state["err"] = (self.err + size * math.exp(-_FLOOR_NATS)
                        + (times * eta + 2.0 * _U * (times * (math.pi + 1.0) + 5.0)
                           + 3.0 * _U * (len(self.parts) + 1)) * norm)
        state["growth"] = self.growth + times * (eta * math.sqrt(N) * norm + 2.0 * size * _U)
        state["min_norm"] = min(self.min_norm, norm)
        return Spectrum(p, _state=state)

    def read_back(self, upper: Any, outside: Any = None) -> Any:
        """The composition as a Readback: the upper (``upper`` True) or lower
        bound of every mass on the window, the masses beyond it and at +inf
        (``outside``: outside_table of the parts, if already known)."""
        return Readback(self, bool(upper), outside)


def _power(z: Any, k: Any) -> Any:
    """z^k elementwise by repeated squaring (k >= 1), one entry at a time."""
    return _fourier_kernels.power(z, int(k))


def composed_infinity(parts: Any, upper: Any) -> Any:
    """The composition's mass at +inf: prod T_j^k_j (1 - prod (1 - f_j)^k_j), T_j =
    m_j + inf_j the part's total mass and f_j = inf_j / T_j its share at +inf
    (-expm1 of a sum of log1p: accurate for tiny shares, where prod (m + inf)^k
    - prod m^k would cancel), rounded outward by the float sums' error."""
    log_total = log_keep = 0.0
    slack = 0.0
    for grid, times in parts:
        m = float(np.sum(grid.mass))
        total = m + grid.infinity
        if total <= 0.0:
            return 0.0
        slack += times * (grid.mass.size + 4) * _U
        log_total += times * math.log(total)
        share = grid.infinity / total
        log_keep += times * (math.log1p(-share) if share < 1.0 else -math.inf)
    value = math.exp(log_total) * -math.expm1(log_keep)
    value = max(value, 0.0)
    return min(1.0, value * (1 + slack) + 1e-300) if upper else max(0.0, value * (1 - slack))


# ln of the smallest mass a tilted scale holds with its rounding (float64
# normals start at e^-708.4; below, subnormals lose their relative accuracy)
_LOG_HELD = -700.0
# indices per block of the read-back's cap test (Readback._cap_rising)
_CAP_BLOCK = 512


class Readback:
    """One side of a composition read back from its Spectrum: the masses on
    the window [A, B] as u_s e^(ln_scale - lam s h) (u: the tilted masses with
    their bounds folded in), the mass at +inf, and delta / epsilon from the
    suffix sums (module docstring of statpriv.laws.pld), in the tilted scale
    so that nothing over- or underflows.

    Attributes: ``plan``, ``upper``, ``infinity``, ``losses`` (float64 grid
    losses of the window), ``log_masses`` (ln of the bounded masses)."""

    @classmethod
    def at_infinity(cls, parts: Any, h: Any, upper: Any) -> Any:
        """The read-back of a composition whose finite part is empty (a part
        with all its mass at +inf): only the mass at +inf."""
        rb = cls.__new__(cls)
        rb.plan, rb.upper = Plan(h, 0.0, 0, 0, 0), upper
        rb.infinity = composed_infinity(parts, upper)
        rb._start, rb._h, rb._lam, rb._log_z = 0, h, 0.0, 0.0
        rb._u = np.zeros(0)
        rb._first_seen = 0
        rb._sums(rb._u, h, 0.0)
        return rb

    def __init__(self, spectrum: Any, upper: Any, outside: Any = None) -> None:
        p = self.plan = spectrum.plan
        self.upper = upper
        h, lam, N = p.h, p.tilt, p.fft_size
        parts = spectrum.parts
        circular = _fft.irfft(spectrum.values, N, workers=FFT_WORKERS)
        first = p.start % N
        tilted = circular[first:first + p.size]
        if tilted.size < p.size:                  # (the window wraps around index 0)
            # (rotated within the fresh inverse transform: a new window-sized
            # array would cost its first-touch faults, 2 ms at 4e5 entries)
            _fourier_kernels.rotate_left(circular, first)
            tilted = circular[:p.size]
        eta = _FFT_C * _U * (math.log2(N) + 2.0)
        e_inf = math.exp(spectrum.growth) * spectrum.err + eta * min(spectrum.min_norm, 1.0)
        rel = spectrum.rel + _U * (8.0 + 4.0 * abs(lam) * max(abs(p.start), abs(p.start + p.size))
                                   * h + 2.0 * abs(spectrum.log_z))
        self._start, self._h, self._lam, self._log_z = p.start, h, lam, spectrum.log_z
        alias = 2.0 * WINDOW_TAIL
        # (in place: ``tilted`` is a view of the fresh inverse transform,
        # and every fresh window-sized array costs its first-touch faults)
        u = tilted
        if upper:
            u *= 1.0 + rel
            u += e_inf
            above, below = _outside(parts, h, p, outside)
            inf = composed_infinity(parts, True) + above
            # the mass below the window, pessimistically at its lowest point
            with np.errstate(over="ignore"):
                u[0] += below * math.exp(min(700.0, -float(self._log_scale_at(0))))
        else:
            u *= 1.0 - rel
            u -= e_inf
            u -= alias
            inf = composed_infinity(parts, False)
        np.maximum(u, 0.0, out=u)
        # a mass of the composition is at most its finite mass: cap in the tilted
        # scale, where the cap is below 2 (above it, u <= 1 (1 + rel) + e_inf
        # is under it already: no exp to take)
        finite = sum(t * math.log(max(float(np.sum(g.mass)), 1e-300)) for g, t in parts)
        if lam > 0:
            # (log_cap rises with the index: the first index where it passes ln 2,
            # one index of margin for the rounding of the estimate)
            edge = (math.log(2.0) - finite + spectrum.log_z - 1e-12) / (lam * h) - p.start
            # (index 0 always: the mass below the window is added there)
            low = int(min(max(math.ceil(edge) + 1, 1), u.size))
        else:
            low = u.size
        if lam > 0:
            blind_end = self._cap_rising(u, low, finite)
        else:
            log_cap = finite - self._log_scale_at(np.arange(low)) + 1e-12
            with np.errstate(over="ignore"):
                u[:low] = np.minimum(u[:low], np.exp(np.minimum(log_cap[:low], 700.0)))
            blind = np.flatnonzero(log_cap < _LOG_HELD)
            blind_end = int(blind[-1]) + 1 if blind.size else 0
        # Where even the whole finite mass is below the float range in the
        # tilted scale (a steep tilt, the low end of a wide window) the masses
        # cannot be held: an upper side knows nothing of delta at the losses
        # whose suffix reaches them (delta <= 1 there), a lower side may drop
        # them.  (At tilt 1e4 over 3 x [Laplace(710) + Laplace(0.574)] the
        # capped masses underflowed to 0 and delta(1.787) read 1e-300 for a
        # true 0.52: epsilon(1e-6) came back 1.787 for a true 5.2.)
        self._first_seen = blind_end if upper else 0
        self._u = u
        self.infinity = float(inf)
        self._sums(u, h, lam)

    def _log_cap(self, j: Any, finite: float) -> Any:
        """ln of the cap on the tilted mass at window index j (array): the
        composition's finite mass in the tilted scale, 1e-12 up for rounding."""
        return finite - self._log_scale_at(j) + 1e-12

    def _cap_rising(self, u: Any, low: int, finite: float) -> int:
        """u[:low] capped at e^(log cap) in place where the tilt is positive
        (the cap then rises with the index), and the end of the indices whose
        cap is below the float range (_LOG_HELD).  The same values as capping
        every index: a block of _CAP_BLOCK indices is skipped where its
        largest mass is below the cap at its first index (the block's
        smallest), which then changes none of them; the others are capped
        with the same formula.  Rising, the cap is below _LOG_HELD on a prefix
        of the indices, found by bisection on the same formula."""
        if low <= 0:
            return 0
        starts = np.arange(0, low, _CAP_BLOCK)
        with np.errstate(over="ignore"):
            cap_first = np.exp(np.minimum(self._log_cap(starts, finite), 700.0))
        block_max = np.maximum.reduceat(u[:low], starts)
        reach = starts[block_max > cap_first * (1.0 - 1e-15)]
        if reach.size:
            j = (reach[:, None] + np.arange(_CAP_BLOCK)).ravel()
            j = j[j < low]
            with np.errstate(over="ignore"):
                u[j] = np.minimum(u[j], np.exp(np.minimum(self._log_cap(j, finite), 700.0)))
        # the first index at or past which the cap is held (non-decreasing in
        # the index, rounding included: each operation is monotone)
        return bisect.bisect_left(range(low), True,
                                  key=lambda i: self._log_cap_one(i, finite) >= _LOG_HELD)

    def _sums(self, u: Any, h: Any, lam: Any) -> None:
        """W~_j = sum_(i >= j) u_i e^(-(i - j)(1 + lam) h) and D~_j = sum_(k > j)
        (1 - e^-h) e^(-(k - j) lam h) W~_k: delta at the loss l_j is
        infinity + e^(ln_scale_j) D~_j, and between l_(j-1) and l_j
        infinity + e^(ln_scale_j) (D~_j + (1 - e^(eps - l_j)) W~_j)."""
        # the sums' rounding: 4 u per term (positive terms; _fourier_kernels), and
        # the scale's and the factor's products
        slack = self._slack = 4.0 * (u.size + 6) * _U
        self._w, self._d = _fourier_kernels.suffix_sums(
            u, math.exp(-(1.0 + lam) * h), math.exp(-lam * h),
            -math.expm1(-h) * math.exp(-lam * h), 1.0 + slack if self.upper else 1.0 - slack)

    def _loss_at(self, j: Any) -> Any:
        """The grid loss of window index j (array): (start + j) h."""
        return (self._start + np.asarray(j)).astype(np.float64) * self._h

    # (one index: the same float operations as the array forms above, in
    # Python floats -- the searches below ask a few dozen single indices per
    # read-back, each a few microseconds through numpy)
    def _log_scale_one(self, j: int) -> float:
        return float(self._log_z - self._lam * (float(self._start + j) * self._h))

    def _log_cap_one(self, j: int, finite: float) -> float:
        return finite - self._log_scale_one(j) + 1e-12

    def _log_scale_at(self, j: Any) -> Any:
        """ln of the scale of the tilted masses at window index j."""
        return self._log_z - self._lam * self._loss_at(j)

    @property
    def losses(self) -> Any:
        """float64 grid losses of the window."""
        return self._loss_at(np.arange(self._u.size))

    @property
    def log_scale(self) -> Any:
        return self._log_scale_at(np.arange(self._u.size))

    def _index_above(self, eps: Any) -> Any:
        """Index of the first grid loss above each eps (searchsorted, side right,
        from the grid's arithmetic: floor, then one step of correction)."""
        n = self._u.size
        with np.errstate(invalid="ignore", over="ignore"):
            guess = np.floor(eps / self._h) - self._start + 1
        j = np.clip(np.nan_to_num(guess, nan=0.0, posinf=n, neginf=0), 0, n).astype(np.int64)
        j = np.where((j > 0) & (self._loss_at(np.maximum(j - 1, 0)) > eps), j - 1, j)
        j = np.where((j < n) & (self._loss_at(np.minimum(j, max(n - 1, 0))) <= eps), j + 1, j)
        return j

    def _log_value(self, j: Any) -> Any:
        """ln delta at the loss l_j (non-increasing in j)."""
        if j + 1 < self._first_seen:
            return 0.0                  # (masses above l_j the tilted scale cannot hold)
        log_inf = math.log(self.infinity) if self.infinity > 0 else -math.inf
        d = float(self._d[j])
        return np.logaddexp(log_inf, self._log_scale_one(j) + math.log(d)) if d > 0 \
            else log_inf

    @property
    def log_masses(self) -> Any:
        """ln of the bounded masses on the window (from the suffix sums)."""
        factor = 1.0 + self._slack if self.upper else 1.0 - self._slack
        with np.errstate(divide="ignore"):
            out = np.log(self._u * factor) + self.log_scale
        out[:self._first_seen] = np.inf     # (not held: no bound from this tilt)
        return out

    def log_delta(self, eps: Any) -> Any:
        """ln delta at each eps (float64 array)."""
        eps = np.asarray(eps, dtype=np.float64)
        n = self._u.size
        j = self._index_above(eps)                              # first loss above eps
        log_inf = math.log(self.infinity) if self.infinity > 0 else -math.inf
        out = np.full(eps.shape, log_inf)
        inside = j < n
        jj = j[inside]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            gap = -np.expm1(eps[inside] - self._loss_at(jj))
            inner = np.log(self._d[jj] + gap * self._w[jj]) + self._log_scale_at(jj)
            out[inside] = np.logaddexp(log_inf, inner)
        out[j < self._first_seen] = 0.0     # (masses the tilted scale cannot hold count)
        return np.minimum(out, 0.0)

    def epsilon(self, log_target: Any) -> Any:
        """The smallest eps (a float, -inf if none is needed, inf if none
        reaches) with delta(eps) <= e^log_target, by direct inversion on the
        segment that holds it, rounded up and checked."""
        log_target = np.asarray(log_target, dtype=np.float64)
        out = np.full(log_target.shape, -np.inf)
        log_inf = math.log(self.infinity) if self.infinity > 0 else -math.inf
        out[log_target < log_inf] = np.inf
        n = self._d.size
        active = np.isfinite(log_target) & (log_target >= log_inf) & (n > 0)
        active |= (log_target == -np.inf) & (log_inf == -np.inf) & (n > 0)
        if not active.any():
            return out
        t = log_target[active]
        # (a bisection on ln delta at the grid points: a few of them evaluated)
        j = np.array([min(bisect.bisect_left(range(n), -x, key=lambda i: -self._log_value(i)),
                          n - 1) for x in t], dtype=np.int64)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            scale = self._log_scale_at(j)
            excess = np.exp(t - scale) - np.exp(log_inf - scale) if log_inf > -np.inf \
                else np.exp(t - scale)
            frac = (excess - self._d[j]) / self._w[j]
            eps = self._loss_at(j) + np.log1p(-np.clip(frac, 0.0, 1.0))
        eps = np.where(np.isnan(eps), -np.inf, eps)
        # delta = 0: from the first grid point where ln delta is -inf on (the
        # bisection's j: the largest loss with mass, where delta first
        # vanishes), not the window's end -- a lower side's window runs on
        # past its last mass, and its zero point must not exceed the true one
        eps = np.where(t == -np.inf, self._loss_at(j), eps)
        eps = np.where(np.isfinite(eps), np.nextafter(eps, np.inf), eps)
        # round up until ln delta is below ln target by 4 ulps of 1 + |ln target|:
        # then exp(ln delta) <= the target itself, whatever the rounding of
        # ln target and of exp (each within an ulp)
        below = t - 4.0 * 2.0 ** -52 * (1.0 + np.abs(t))
        for _ in range(64):
            bad = np.isfinite(eps) & (self.log_delta(eps) > below)
            if not bad.any():
                break
            eps[bad] = np.nextafter(eps[bad] + 1e-15 * np.abs(eps[bad]), np.inf)
        out[active] = eps
        return out


def outside_table(parts: Any, h: Any, std: Any = None) -> Any:
    """(steps, Lambda(steps), Lambda(-steps)) of the UNTILTED composition, the
    trial steps scaled by its loss's standard deviation ``std`` (computed if
    None): what _outside's Chernoff bounds need, the same for every window."""
    if std is None:
        std = math.sqrt(max(tilted_moments(parts, 0.0, h)[1], 0.0))
    steps = _CHERNOFF_STEPS / max(std, 1e-300)
    lam = log_mgf(parts, np.concatenate((steps, -steps)), h)
    return steps, lam[:steps.size], lam[steps.size:]


def _outside(parts: Any, h: Any, p: Any, table: Any = None) -> Any:
    """Chernoff bounds on the UNTILTED composition's mass above the window and
    below it (``table``: outside_table(parts, h), computed if None)."""
    steps, lam_up, lam_down = outside_table(parts, h) if table is None else table
    lo, hi = _support(parts)
    above = below = 0.0
    with np.errstate(over="ignore"):
        if p.start + p.size - 1 < hi:
            above = min(1.0, float(np.min(np.exp(lam_up - steps * (p.start + p.size) * h))))
        if p.start > lo:
            below = min(1.0, float(np.min(np.exp(lam_down + steps * (p.start - 1) * h))))
    return above * (1 + 1e-12), below * (1 + 1e-12)
