"""compose on a grid: each part's pessimistic and optimistic measures on h Z,
multiplied in the Fourier domain, read back per query with certified bounds.

1. Each curve gives per direction two measures on the loss grid h Z: one
   whose delta is above its curve at every eps, one below
   (statpriv.laws.grid_pld: connect-the-dots of the curve's own delta;
   exact atoms are connected from their exact delta).  A measure above (below)
   at every eps composes to one above (below) the composed curve.
2. Self-composition is a power in the Fourier domain: one forward FFT per
   distinct part, its k-th power, the product, one inverse
   (statpriv.accounting.composition.fourier: tilt, window, wrap-around and
   round-off, every one bounded).
3. Each query reads the composition back at a tilt chosen for it -- the
   tilt whose bulk sits at the eps asked (for epsilon(delta): at Chernoff's
   estimate, then at the answer) -- from a small cache; delta is the upper
   side, ``delta_bounds`` both.

The grid.  h is value_discretization_interval if given; else it is chosen
from epsilon_error: the bracket's width in eps behaves like
K h^2 (beta + 1) / 5 for K mechanisms (connect-the-dots' chords are O(h^2)
per part, and errors of the K parts add up), beta = d ln delta / d eps of the
composition, about sqrt(2 ln 1e12) / s at delta = 1e-12 for a composition of
loss standard deviation s -- first estimated from each part's loss range,
then measured on the parts' grids.  Where the measured s is far below the
estimate (heavy tails: a sampled Gaussian's range reaches 100x its bulk),
the grid is chosen again with it, as far as REFINE_SECONDS of predicted work
allows.  The window must fit in the FFT, which bounds h from below by s too.
Each part's grid must also fit in statpriv.laws.grid_pld.MAX_GRID points
per direction: where the h that epsilon_error asks for does not (a part of
tiny loss spread composed with one that reaches far), h is coarsened until
it does and the bracket is wider than epsilon_error (still certified); only
a part that does not fit even at h = 1 is refused.
"""
import bisect
import functools
import math
import threading
from typing import Any, Callable, Dict, List, Optional, TypeVar, cast

import numpy as np

from statpriv import _core, _progress, _validate
from statpriv.accounting.composition import fourier
from statpriv.laws import grid_pld
from statpriv.laws import pld as _pld

__all__ = ["DEFAULT_DELTA_ERROR", "DEFAULT_EPSILON_ERROR", "MAX_GRID", "ComposedSide",
           "ComposedSides", "compose_on_grid", "choose_interval", "loss_reach", "loss_variance",
           "part_bracket", "refined_interval", "require_laws"]

MAX_GRID = fourier.MAX_FFT
DEFAULT_EPSILON_ERROR = 1e-5
# the most mechanisms one composition counts (statpriv.compose's times)
MAX_MECHANISMS = 10 ** 9
DEFAULT_DELTA_ERROR = 1e-15
# delta at which the grid model takes the slope of ln delta
_MODEL_LOG_DELTA = math.log(1e-12)
# width in eps of the bracket ~ K h^2 (beta + 1) / _MODEL_CONSTANT, beta from
# the composed loss's standard deviation as measured on the parts' grids
# (refined_interval).  Measured at epsilon_error 1e-5 (the optimistic side
# bounded from the cells' middles, statpriv._connect_dots): 9.6e-6 on
# 1000 x dp.gaussian(20) at delta = 1e-9, 7.9e-6 on 1000 x counting(10**6,
# 0.3), 6.1e-6 on 1000 steps of DP-SGD (q = 0.01, sigma = 1) at 1e-5.  (With
# the rough spread from the tails instead, the sampled Gaussian's grid was
# 2.2x too coarse: width 4.4e-5 at epsilon_error 1e-5.)
_MODEL_CONSTANT = 5.0
# a refinement toward epsilon_error is taken as far as its parts' grids are
# predicted to cost this many CPU seconds (grid_pld.check_seconds); past it
# the bracket is wider than asked, and epsilon_bounds says by how much
REFINE_SECONDS = 1.0
_MAX_TILTS = 400
# the largest Bregman gap of Lambda (nats) between neighbouring tilts (a
# normal-like loss has 0.5 at the step 1 / std), and how often that step may
# be halved to meet it
_MAX_TILT_GAP = 4.0
_TILT_HALVINGS = 30
# counts of at least this many records are put on the grid from their compiled delta
_MANY_OUTCOMES = 10_000
# a read-back's window spans about 2 x 9 standard deviations of the composed
# loss (Chernoff's ends at 1e-14 of a normal-like loss, plus a step down to
# the previous tilt's mean): h is coarse enough that 24 of them fit in an
# eighth of the largest FFT, whatever epsilon_error asks (the bracket stays
# certified, only wider)
_WINDOW_STDS = 24.0
# a grid finer by more than this factor once the spread is measured is rebuilt
_REFINE_RATIO = 1.5
# a loss spread below this is a flat curve (no grid needed for it)
_FLAT_SPREAD = 1e-9


_Method = TypeVar("_Method", bound=Callable[..., Any])


def _locked(method: _Method) -> _Method:
    """The method under its object's ``_lock`` (a re-entrant lock): a side
    builds its tilt table and read-backs on first use, and threads that
    query one composition (or its two directions at once) must not extend
    the table or fill the caches at the same time."""
    @functools.wraps(method)
    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return method(self, *args, **kwargs)
    return cast(_Method, run)


class ComposedSide:
    """One direction and one side (upper or lower) of a composition: the parts
    ((GridPMF, times) pairs) and their compositions read back at the tilts
    queried so far.  The tilts are theta_0 = 0 and theta_(q+1) = theta_q +
    1 / std_q (std_q: the loss's standard deviation under tilt theta_q; the
    step rounded down to 5 significant bits, ``_snapped``), up
    to where the tilted mean reaches the top of the support: a query at eps
    takes the tilt whose tilted mean is nearest to eps (the Chernoff tilt of
    P[S > eps]), a query of delta the one of Chernoff's estimate of its eps."""

    def __init__(self, parts: Any, h: Any, upper: Any, transforms: Any = None) -> None:
        self.parts, self.h, self.upper = tuple(parts), h, bool(upper)
        self._lock = threading.RLock()
        self._readbacks: Dict[Any, Any] = {}
        # tilt_for_log_delta's answers (a query asks it for one target several
        # times: pending, the estimates, the read-back; the table entries it
        # reads never change once computed, so neither does its answer)
        self._tilt_of_target: Dict[float, int] = {}
        self._transforms = transforms   # the parts' transforms kept (Spectrum.multiply)
        self._outside = None            # the Chernoff table of the untilted composition
        self._top = sum(t * (g.offset + g.mass.size - 1) for g, t in self.parts) * h
        self._thetas, self._means, self._log_mgf, self._stds = [], [], [], []
        # a part with no finite mass: the composition is all at +inf
        self._empty = any(g.empty for g, _ in self.parts)
        if self._empty:
            self._thetas, self._means, self._log_mgf, self._stds = [0.0], [0.0], [0.0], [0.0]
        self._done = self._empty
        self._extend()

    @_locked
    def _extend(self) -> Any:
        """One more tilt in the table (False when the table is complete: the
        tilted loss has collapsed onto the top of the support)."""
        if self._done or len(self._thetas) >= _MAX_TILTS:
            return False
        if self._thetas:
            theta, lam, mean, var = self._next_tilt()
        else:
            theta = 0.0
            lam, mean, var = (float(v[0]) for v in fourier.tilted_stats(self.parts, [theta],
                                                                        self.h))
        self._std = math.sqrt(max(var, 0.0))
        self._stds.append(self._std)
        self._thetas.append(theta)
        self._means.append(mean)
        self._log_mgf.append(lam)
        self._done = self._std <= self.h or mean >= self._top - self.h
        return True

    def _next_tilt(self) -> Any:
        """(theta, Lambda, mean, variance) of the next tilt: theta_q + 1 / std_q
        (_snapped), or a fraction 2^-i of that step where the Bregman gap of Lambda
        between the two tilts, either way, passes _MAX_TILT_GAP nats (one
        sweep of the parts per trial: the first step passes on a normal-like
        loss).  For every eps between the two tilted means, the saddle point
        tilt theta* of eps has its tilted mass at eps within e^gap of the one
        at either neighbouring tilt (the gap grows as theta* moves away):
        with the gap bounded, both neighbours read eps back from their bulk.
        (A heavy tail breaks the step 1 / std: one sampled Gaussian at q =
        0.01 has std 0.013 at theta = 0 and its tilted mean jumps from 1e-4
        to 3.2, the top of the support, over that step; eps = 2 was read back
        at theta = 76, where its bound is 1.)"""
        theta, lam0, mean0 = self._thetas[-1], self._log_mgf[-1], self._means[-1]
        step = _snapped(1.0 / self._std)         # (halving keeps it snapped)
        for _ in range(_TILT_HALVINGS + 1):
            lam, mean, var = (float(v[0]) for v in
                              fourier.tilted_stats(self.parts, [theta + step], self.h))
            # (the gap grows with the step: halved until within the bound)
            if max(lam - lam0 - step * mean0, lam0 - lam + step * mean) <= _MAX_TILT_GAP:
                break
            step *= 0.5
        return theta + step, lam, mean, var

    @property
    def thetas(self) -> Any:
        return np.array(self._thetas)

    @property
    def means(self) -> Any:
        return np.array(self._means)

    @_locked
    def tilt_for_eps(self, eps: Any) -> Any:
        """Index of the tilt for each eps: the tilted mean nearest to it (0 below
        the mean, and for eps = +-inf: the limits are the same at every tilt)."""
        if isinstance(eps, float):
            return self._tilt_for_one(eps)
        eps = np.asarray(eps, dtype=np.float64)
        eps = np.where(np.isfinite(eps), eps, -np.inf)
        if eps.size:
            while self._means[-1] < np.max(eps) and self._extend():
                pass
        means = self.means
        q = np.clip(np.searchsorted(means, eps), 1, max(means.size - 1, 1))
        upper = np.minimum(q, means.size - 1)
        below = np.abs(eps - means[q - 1]) <= np.abs(means[upper] - eps)
        return np.clip(np.where(below, q - 1, q), 0, means.size - 1)

    def _tilt_for_one(self, eps: float) -> int:
        """tilt_for_eps of one eps, the same choice in Python floats (a query
        asks it for single values a dozen times; each numpy call on a scalar
        costs microseconds)."""
        if not math.isfinite(eps):
            eps = -math.inf
        while self._means[-1] < eps and self._extend():
            pass
        means, last = self._means, len(self._means) - 1
        q = min(max(bisect.bisect_left(means, eps), 1), max(last, 1))
        upper = min(q, last)
        below = abs(eps - means[q - 1]) <= abs(means[upper] - eps)
        return min(max(q - 1 if below else q, 0), last)

    def _saddle_log_delta(self, q: Any) -> Any:
        """The saddle-point estimate of ln delta at eps = the tilted mean of tilt q:
        Lambda - theta eps - ln(std sqrt(2 pi) theta (theta + 1)) (the tilted
        loss near its mean taken normal; the hockey stick integrates
        e^(-theta x) (1 - e^(-x)) over x > 0)."""
        theta, std = self._thetas[q], self._stds[q]
        if theta == 0.0:
            return math.log(0.5)
        return (self._log_mgf[q] - theta * self._means[q]
                - math.log(max(std, self.h) * math.sqrt(2.0 * math.pi) * theta * (theta + 1.0)))

    @_locked
    def tilt_for_log_delta(self, log_target: Any) -> Any:
        """Index of the tilt for a target ln delta: the tilt at the saddle-point
        estimate of its eps (the table grows until the estimate passes the
        target; the search then checks the tilt at the answer)."""
        if not math.isfinite(log_target):
            return 0
        known = self._tilt_of_target.get(log_target)
        if known is None:
            known = self._tilt_of_target[log_target] = self._search_tilt(log_target)
        return known

    def _search_tilt(self, log_target: float) -> int:
        """tilt_for_log_delta's search (under its lock), for a finite target."""
        q, previous = 0, self._saddle_log_delta(0)
        while True:
            if q + 1 >= len(self._thetas) and not self._extend():
                return q
            current = self._saddle_log_delta(q + 1)
            if current <= log_target:
                break
            q, previous = q + 1, current
        # the target between tilts q and q + 1: interpolate the eps in ln delta
        frac = (previous - log_target) / max(previous - current, 1e-300)
        eps = self._means[q] + min(max(frac, 0.0), 1.0) * (self._means[q + 1] - self._means[q])
        return int(self.tilt_for_eps(eps))

    @_locked
    def readback(self, q: Any) -> Any:
        """The composition read back at tilt q (computed once)."""
        rb = self._readbacks.get(q)
        if rb is None and self._empty:
            rb = self._readbacks[q] = fourier.Readback.at_infinity(self.parts, self.h, self.upper)
        if rb is None:
            # (the window reaches down to the previous tilt's mean: every eps this
            # tilt is chosen for is above it)
            lowest = self._means[q - 1] if q > 0 else math.inf
            tau = fourier.UPPER_WINDOW_TAIL if self.upper else fourier.WINDOW_TAIL
            plan = fourier.plan(self.parts, self.h, float(self._thetas[q]), tau=tau,
                                lowest=lowest, std=self._stds[q])
            spectrum = fourier.Spectrum(plan)
            for grid, times in self.parts:
                spectrum = spectrum.multiply(grid, times, self._transforms)
            if self.upper and self._outside is None:
                self._outside = fourier.outside_table(self.parts, self.h, std=self._stds[0])
            rb = self._readbacks[q] = spectrum.read_back(self.upper, self._outside)
        return rb

    @_locked
    def pending(self, eps: Any = None, log_target: Any = None) -> bool:
        """Whether a query of delta at ``eps`` (or of epsilon at ``log_target``)
        would read back a tilt not read back yet (the work worth a second
        thread; a query of read-back tilts takes microseconds)."""
        if self._empty:
            return 0 not in self._readbacks
        if eps is not None:
            finite = np.asarray(eps, dtype=np.float64)
            tilts = set(self.tilt_for_eps(finite[np.isfinite(finite)]).tolist())
        else:
            tilts = {self.tilt_for_log_delta(float(t)) for t in np.ravel(log_target)}
        return any(int(q) not in self._readbacks for q in tilts)

    @_locked
    def estimate(self, log_target: Any) -> float:
        """The saddle-point estimate of the eps at which this side's delta is
        e^log_target: the tilted mean of its tilt (tilt_for_log_delta)."""
        return float(self._means[self.tilt_for_log_delta(float(log_target))])

    @_locked
    def chernoff_log_delta(self, eps: Any) -> Any:
        """An upper bound of ln delta at each eps of the measure this side
        composes (an upper side's: of the true curve too), from the tilt
        table alone, no read-back:

            delta(eps) <= P[+inf] + min_q c(theta_q) e^(Lambda(theta_q) - theta_q eps),

        c(theta) = theta^theta / (theta + 1)^(theta + 1), the largest value
        of (1 - e^-u) e^(-theta u) over u > 0 (so (1 - e^(eps - x))_+ <=
        c(theta) e^(theta (x - eps)) at every loss x), c(0) = 1, and Lambda
        rounded up (tilted_stats).  The table is first extended to the tilt
        of the largest eps.  (Loose by the saddle-point factor, ~std theta
        sqrt(2 pi): it decides only where a read-back is not needed.)"""
        eps = np.atleast_1d(np.asarray(eps, dtype=np.float64))
        finite = eps[np.isfinite(eps)]
        if finite.size:
            self.tilt_for_eps(np.array([np.max(finite)]))
        theta = np.asarray(self._thetas)
        with np.errstate(divide="ignore", invalid="ignore"):
            log_c = np.where(theta > 0, theta * np.log(theta) - (theta + 1.0) * np.log1p(theta),
                             0.0)
            terms = (np.asarray(self._log_mgf) + log_c)[:, None] - theta[:, None] * eps[None, :]
        bound = np.min(np.where(np.isnan(terms), np.inf, terms), axis=0)
        # (the float terms' rounding: 1e-12 of their sizes, added)
        bound = bound + 1e-12 * (np.abs(bound) + np.max(np.abs(theta)) * np.abs(eps) + 1.0)
        inf = fourier.composed_infinity(self.parts, True)
        with np.errstate(divide="ignore", over="ignore"):
            return np.logaddexp(bound, math.log(inf) if inf > 0 else -math.inf)

    @_locked
    def log_delta(self, eps: Any) -> Any:
        """ln delta at each eps: the read-back at the eps's tilt; at eps = +inf the
        composition's mass at +inf itself (the limit of every tilt's bound)."""
        eps = np.asarray(eps, dtype=np.float64)
        out = np.empty(eps.shape)
        top = np.isposinf(eps)
        if top.any():
            inf = fourier.composed_infinity(self.parts, self.upper)
            out[top] = math.log(inf) if inf > 0 else -math.inf
        q = self.tilt_for_eps(eps)
        for k in np.unique(q[~top]):
            sel = (q == k) & ~top
            out[sel] = self.readback(int(k)).log_delta(eps[sel])
        return out

    @_locked
    def epsilon(self, log_target: Any) -> Any:
        """The smallest eps with this side's delta <= e^log_target (upper side:
        rounded up; lower side: lowered by 1e-12 relative, a lower bound of the
        true one)."""
        log_target = np.asarray(log_target, dtype=np.float64)
        out = np.empty(log_target.shape)
        for i, t in enumerate(log_target.ravel()):
            q = self.tilt_for_log_delta(float(t))
            seen, found = set(), []
            while True:
                seen.add(q)
                eps = float(self.readback(q).epsilon(np.array([t]))[0])
                found.append(eps)
                if not math.isfinite(eps):
                    break
                nxt = int(self.tilt_for_eps(eps))
                if nxt in seen:
                    break
                q = nxt
            if t == -math.inf:
                # delta = 0: every tilt's zero point is a bound of this side's
                # kind (a lower side's is at or below the truth: its masses at
                # the top may be rounded away); the tightest of those seen
                eps = max(found) if not self.upper else min(found)
            if not self.upper and math.isfinite(eps):
                eps = eps - 1e-12 * abs(eps) - 1e-300
                eps = math.nextafter(eps, -math.inf)
            out.flat[i] = eps
        return out

    @_locked
    def missing_readbacks(self) -> List[int]:
        """The tilts ``assembled`` would still read back (the tilt table, cheap
        next to the read-backs, is completed first)."""
        if self._empty:
            return [] if 0 in self._readbacks else [0]
        while self._extend():
            pass
        return [q for q in range(len(self._thetas)) if q not in self._readbacks]

    @_locked
    def assembled(self) -> Any:
        """One measure on the union of the windows of every tilt: per grid point
        the tightest bound any tilt gives (each is a bound by itself), the mass
        above the union at +inf (upper side)."""
        if self._empty:
            return _pld.PLDSide([], [], infinity_mass=self.readback(0).infinity)
        while self._extend():
            pass
        rbs = [self.readback(q) for q in range(len(self._thetas))]
        start = min(int(round(rb.losses[0] / self.h)) for rb in rbs)
        stop = max(int(round(rb.losses[-1] / self.h)) for rb in rbs)
        fill = np.inf if self.upper else -np.inf
        best = np.full(stop - start + 1, fill)
        pick = np.minimum if self.upper else np.maximum
        for rb in rbs:
            i0 = int(round(rb.losses[0] / self.h)) - start
            seg = best[i0:i0 + rb.losses.size]
            best[i0:i0 + rb.losses.size] = pick(seg, rb.log_masses)
        best = np.where(np.isfinite(best), best, -np.inf)
        # the mass above the union: the highest window's (upper side)
        inf = max(rbs, key=lambda rb: rb.losses[-1]).infinity
        losses = (start + np.arange(best.size, dtype=np.longdouble)) * np.longdouble(self.h)
        with np.errstate(under="ignore"):
            probs = np.exp(best.astype(np.longdouble))
        if self.upper:
            probs = _at_most_one(probs, inf)
        return _pld.PLDSide(losses, probs, infinity_mass=inf)


def _at_most_one(probs: Any, infinity: float) -> Any:
    """Upper bounds of the masses (each point's tightest over the tilts) with
    the excess of their total over 1 taken from the lowest losses: the mass
    above every loss becomes min(its bound, 1), still at or above the true
    one (a measure of total 1), so delta, the expectation of a function non-
    decreasing in the loss, stays above the truth at every eps.  (The bounds
    of the low end of 2 x [geometric(0.001) + geometric(0.1)] summed to
    1 + 2.2e-9.)"""
    excess = np.sum(probs) + np.longdouble(infinity) - 1
    if not excess > 0:
        return probs
    below = np.cumsum(probs)                 # the mass at and below each loss
    out = probs.copy()
    out[below <= excess] = 0
    cut = int(np.searchsorted(below, excess, side="right"))
    if cut < out.size:
        out[cut] = below[cut] - excess
    return out


def _snapped(step: Any) -> Any:
    """A tilt step rounded down to 5 significant bits (within 3% below it): the
    tilts then stay the same when the loss's spread moves a little -- one more
    release of an accountant's thousand -- and with them the parts' cached
    transforms (Spectrum.multiply)."""
    if not (step > 0.0 and math.isfinite(step)):
        return step
    mantissa, exponent = math.frexp(step)
    return math.ldexp(math.floor(mantissa * 32.0) / 32.0, exponent)


def _flatten(curves: Any, times: Any) -> Any:
    """[(curve, multiplicity)]: nested grid compositions replaced by their parts,
    one entry per distinct curve object."""
    from statpriv.accounting.composition.composed import ComposedCurve
    counts = {}
    order = []

    def add(curve: Any, mult: Any) -> None:
        if isinstance(curve, ComposedCurve) and curve.grid_sides is not None:
            inner, inner_times = curve.parts
            for c, count in zip(inner, curve.counts):
                add(c, mult * inner_times * count)
            return
        if id(curve) not in counts:
            order.append(curve)
            counts[id(curve)] = 0
        counts[id(curve)] += mult

    for c in curves:
        add(c, times)
    return [(c, counts[id(c)]) for c in order]


def loss_reach(curve: Any, tail: Any) -> Any:
    """Where the curve's delta comes within the tail of its limit, per
    direction [plus, minus]: how far its grid reaches (grid_pld.tail_span);
    for a curve with exact atoms at most statpriv.laws.pld.LOSS_CAP, where
    its privacy-loss distribution caps its losses (beyond it: at +inf on the
    upper side, at the cap on the lower one)."""
    capped = getattr(curve.laws, "has_log_pmfs", False)
    reach = []
    for d in ("plus", "minus"):
        limit = float(curve.delta(math.inf) if d == "max" else getattr(curve, f"delta_{d}")(math.inf))
        e = float(curve.epsilon(grid_pld.tail_target(limit, tail), direction=d))
        if not math.isfinite(e):
            raise ValueError(f"{curve.description}: delta_{d} does not come within "
                             f"tail_mass_truncation={tail!r} of its limit at a finite eps; "
                             "it cannot be composed on a grid")
        reach.append(min(e, _pld.LOSS_CAP) if capped else e)
    return reach


def choose_interval(parts: Any, epsilon_error: Any, tail: Any, window_spread: Any = None,
                    reaches: Any = None) -> Any:
    """h from the target width epsilon_error of the bracket (module docstring),
    at most an eighth of the narrowest part's loss spread (a few grid points
    per part), at least what fits the composition's window in the FFT (the
    composed loss's standard deviation -- in the model's beta too --:
    ``window_spread`` if measured, else the rough one from the parts' tails)
    and every part's grid in
    grid_pld.MAX_GRID points: coarser than epsilon_error asks where that
    does not fit (the bracket is then wider, still certified).  At most 1
    (a coarser grid moves every loss by > 1 nat): a part whose grid does not
    fit even then is refused.  ``reaches``: the parts' ``loss_reach`` if
    known already."""
    if reaches is None:
        reaches = [loss_reach(c, tail) for c, _ in parts]
    reaches = [(r, k) for r, (_, k) in zip(reaches, parts)]
    # a rough standard deviation of each part's loss from where its delta meets
    # the tail in both directions (the range is about 2 z std for a Gaussian-
    # like loss, z = sqrt(2 ln(1/tail))); a part whose delta is flat --
    # everything at +inf or at one loss -- has no spread and no say: any grid
    # carries it exactly
    z = 2.0 * math.sqrt(2.0 * math.log(1.0 / tail))
    spreads = [(sum(r) / z, k) for r, k in reaches if sum(r) / z > _FLAT_SPREAD]
    if not spreads:
        return 1e-3
    total = sum(k for _, k in spreads)
    s = math.sqrt(sum(k * sd * sd for sd, k in spreads))
    s_window = s if window_spread is None else window_spread
    beta = math.sqrt(-2.0 * _MODEL_LOG_DELTA) / s_window
    h = math.sqrt(_MODEL_CONSTANT * epsilon_error / (total * (beta + 1.0)))
    h = min(h, min(sd for sd, _ in spreads) / 8.0)
    # every part's grid within grid_pld.MAX_GRID points per direction (a margin
    # of 1e-3 for its own estimate of the reach, grid_pld.tail_span)
    widest, part = max(((max(r), c) for (r, _), (c, _) in zip(reaches, parts)),
                       key=lambda pair: pair[0])
    fits = widest * (1.0 + 1e-3) / (grid_pld.MAX_GRID - 2)
    if fits > 1.0:
        raise ValueError(f"{part.description}: its loss reaches {widest:.3g} before its delta "
                         f"comes within tail_mass_truncation={tail!r} of its limit: "
                         f"{widest:.3g} grid points per direction even at the coarsest grid "
                         f"(value_discretization_interval=1; at most {grid_pld.MAX_GRID}); "
                         "it cannot be composed on a grid (a larger tail_mass_truncation or "
                         "delta_error shortens it where a thin tail is what reaches that far)")
    return min(max(h, _WINDOW_STDS * s_window / (MAX_GRID // 8), fits), 1.0)


def loss_variance(bracket: Any, h: Any) -> Any:
    """One part's loss variance from its upper measures on the grid (the larger
    of the two directions'; their chords where the bracket has them, which a
    refinement that drops this grid does not pay the hull and certification
    of)."""
    part = 0.0
    for d in ("plus", "minus"):
        g = bracket.chord(d) if hasattr(bracket, "chord") else bracket.upper(d)
        total = float(np.sum(g.mass))
        if total > 0:
            x = (g.offset + np.arange(g.mass.size)) * h
            mean = float(np.sum(g.mass * x)) / total
            part = max(part, float(np.sum(g.mass * (x - mean) ** 2)) / total)
    return part


def refined_interval(parts: Any, epsilon_error: Any, tail: Any, h: Any, variances: Any,
                     reaches: Any = None) -> Any:
    """compose's grid once the parts are on the grid h: h again, or a grid
    finer by more than _REFINE_RATIO when the loss's spread measured there
    (``variances``: each part's ``loss_variance`` on h) asks for one.  The
    rough spread from the tails overstates a heavy-tailed loss (a sampled
    Gaussian: 0.2 per step against 0.002 at rate 0.001): its beta was too
    small and its window too wide, both of which made the grid too coarse."""
    measured = math.sqrt(sum(k * v for (_, k), v in zip(parts, variances)))
    finer = choose_interval(parts, epsilon_error, tail, window_spread=measured,
                            reaches=reaches)
    return finer if finer < h / _REFINE_RATIO else h


def compose_on_grid(curves: Any, times: Any, value_discretization_interval: Any, tail: Any,
                    epsilon_error: Any, delta_error: Any) -> Any:
    """compose(*curves, times=times) on the grid (see statpriv.compose)."""
    from statpriv.accounting.composition.composed import grid_composed_curve
    parts = _flatten(curves, times)
    total = sum(k for _, k in parts)
    if total > MAX_MECHANISMS:
        # (nested compositions multiply their times)
        raise ValueError(f"times: the composition counts {total:.3g} mechanisms (nested "
                         f"compositions multiply their times; at most {MAX_MECHANISMS:.0e})")
    if tail is None:
        tail = delta_error / (4.0 * total)
    h = value_discretization_interval
    chosen = h is None
    if chosen:
        reaches = [loss_reach(c, tail) for c, _ in parts]
        h = choose_interval(parts, epsilon_error, tail, reaches=reaches)
    with _progress.bar(len(parts) + 1, f"composing {total:,} mechanisms", unit="part") as bar:
        brackets, h = _affordable_brackets(parts, h, tail, total, chosen)
        if chosen:
            finer = refined_interval(parts, epsilon_error, tail, h,
                                     [loss_variance(b, h) for b, _ in brackets], reaches=reaches)
            if finer != h:
                try:
                    brackets, h = _part_brackets(parts, finer, tail, total,
                                                 _refine_limit()), finer
                except grid_pld.GridCostError as err:
                    # (as fine as the work allowed a refinement, if finer still)
                    if err.fits < h / _REFINE_RATIO:
                        try:
                            brackets, h = _part_brackets(parts, err.fits, tail, total,
                                                         _refine_limit()), err.fits
                        except grid_pld.GridCostError:
                            pass
        progress = cast(_progress._Bar, bar)      # (a bar whatever the time: show is not False)
        progress.update(len(parts))
        sides = ComposedSides(brackets, h)
        sides[("plus", True)], sides[("minus", True)]        # the upper sides now
        progress.update()
    return grid_composed_curve(sides, h, curves, times)


def _refine_limit() -> float:
    """The CPU seconds a refinement's grids may be predicted to cost."""
    return min(REFINE_SECONDS, grid_pld.MAX_SECONDS)


# how often a grid chosen from epsilon_error is coarsened to fit the work allowed
_COARSENINGS = 4


def _affordable_brackets(parts: Any, h: float, tail: float, total: int, chosen: bool) -> Any:
    """(_part_brackets, h): where h was chosen from epsilon_error (not given),
    a grid predicted above grid_pld.MAX_SECONDS of work is coarsened to one
    that fits (the bracket then wider than epsilon_error asked, still
    certified: e.g. a count of tiny pi, whose losses span ~ln(1/pi) ~ 41
    nats, beside a count of sd 10 on h ~ 1e-5); a grid given is refused."""
    for attempt in range(_COARSENINGS + 1):
        try:
            return _part_brackets(parts, h, tail, total), h
        except grid_pld.GridCostError as err:
            if not chosen or attempt == _COARSENINGS or not h < err.fits <= 1.0:
                raise
            h = err.fits
    raise AssertionError("not reached")      # (the last attempt returns or raises)


def _part_brackets(parts: Any, h: float, tail: float, total: int,
                   limit: Optional[float] = None) -> Any:
    """[(Bracket, times)] of the parts on h Z, refused before any is built
    when their work is predicted above ``limit`` (grid_pld.MAX_SECONDS)."""
    brackets = [(part_bracket(c, h, tail), k) for c, k in parts]
    grid_pld.check_seconds([b for b, _ in brackets], h, f"compose of {total:,} mechanisms",
                           limit)
    return brackets


def require_laws(curve: Any) -> None:
    """Raise unless the curve has the laws a grid is built from."""
    if curve.laws is None:
        raise ValueError(f"{curve.description}: no privacy-loss distribution is available "
                         "for this curve (a labelled approximation); it cannot be composed")
    if not getattr(curve.laws, "composable", True):          # (statpriv.laws.pair.DeltaOnly)
        curve.laws.privacy_loss_distribution(description=curve.description)


def part_bracket(curve: Any, h: Any, tail: Any) -> Any:
    """The curve's Bracket on h Z (statpriv.laws.grid_pld): its laws' own where
    they build one directly, else that of its privacy-loss distribution."""
    require_laws(curve)
    direct = getattr(curve.laws, "grid_bracket", None)
    if direct is not None:
        return direct(h, tail, curve.description)
    core = getattr(curve, "_core", None)
    if (curve.laws.has_log_pmfs and isinstance(core, _core.CurveCore)
            and getattr(curve.laws, "n", 0) >= _MANY_OUTCOMES):
        # the compiled exact delta connected on the grid: the measures its atoms
        # give (to ~1e-14 of a mass on counting(10**6, 0.3)), about 10x faster
        # than building the exact privacy-loss distribution of 10^4+ atoms first
        # (a few atoms are cheaper connected from themselves)
        return grid_pld.curve_bracket(core, h, tail, curve.description)
    pld = curve.privacy_loss_distribution(h, tail_mass_truncation=tail)
    return grid_pld.grid_bracket(pld, h, tail, curve.description)


class ComposedSides(dict):  # type: ignore[type-arg]  # {(direction, upper): ComposedSide}
    """{(direction, upper): ComposedSide}, each built on first use (the lower
    sides only when a bracket is asked for); a direction whose measures are
    the other's (a symmetric composition) shares its side.  ``transforms``:
    a dict in which the sides keep their parts' transforms (an accountant's,
    kept from one release to the next)."""

    def __init__(self, brackets: Any, h: Any, transforms: Any = None) -> None:
        super().__init__()
        self.brackets, self.h, self.transforms = brackets, h, transforms
        self._lock = threading.RLock()

    @_locked
    def __missing__(self, key: Any) -> Any:
        built = dict.get(self, key)
        if built is not None:                   # (by another thread, while this one waited)
            return built
        direction, upper = key
        grids = [((b.upper if upper else b.lower)(direction), k) for b, k in self.brackets]
        other = ("minus" if direction == "plus" else "plus", upper)
        if other in self and all(g is h for (g, _), (h, _) in zip(grids, self[other].parts)):
            side = self[other]
        else:
            side = ComposedSide(grids, self.h, upper, self.transforms)
        self[key] = side
        return side
