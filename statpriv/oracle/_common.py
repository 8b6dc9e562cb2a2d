"""Shared pieces of the mpmath oracle: argument checks, the hockey-stick sum
H_eps(P||Q) = sum_x max(P(x) - e^eps Q(x), 0) taken term by term, and the
size guard (term budget) that refuses what would run for more than about a
minute.

Conventions for every oracle function
-------------------------------------
* Inputs (floats, ints) are taken as EXACT binary values: ``mpf(float)`` is
  exact, and every derived quantity (``1 - pi``, ``e^eps``, ``m / n``...) is
  computed in mpmath, never in float.
* Every public function takes ``dps`` and works inside ``mp.workdps(dps)``;
  the global ``mp.dps`` is never modified.
* ``eps`` may be a real scalar (-> one ``mpf``) or a list/tuple of scalars
  (-> a list of ``mpf``; the laws are built once).  It may be zero or negative.
* ``direction``: ``"plus"`` -> H(P||Q) (delta_plus), ``"minus"`` -> H(Q||P)
  (delta_minus), ``"max"`` (default) -> the larger of the two.
"""

import contextlib
import contextvars
import math
from fractions import Fraction
from typing import Any, Iterator

import mpmath
from mpmath import mp, mpf

__all__ = ["hockey_stick", "term_budget", "DEFAULT_MAX_TERMS"]


_DIRECTIONS = ("plus", "minus", "max")

# --------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------

def _is_sequence(x: Any) -> Any:
    if isinstance(x, (str, bytes)):
        return False
    if isinstance(x, (list, tuple)):
        return True
    # anything iterable with a length that is not a scalar mp/number type
    return hasattr(x, "__len__") and hasattr(x, "__iter__")


def _to_mpf(x: Any, what: Any) -> Any:
    """Exact conversion of a real scalar to mpf (done inside a workdps ctx)."""
    if isinstance(x, bool):
        raise ValueError(f"{what} must be a real number, got bool {x!r}")
    if isinstance(x, Fraction):
        v = mpf(x.numerator) / mpf(x.denominator)
    else:
        try:
            v = mpf(x)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{what} must be a real number, got {x!r}") from exc
    if not mpmath.isfinite(v):
        raise ValueError(f"{what} must be finite, got {x!r}")
    return v


def _eps_list(eps: Any) -> Any:
    """Return (list_of_mpf_eps, is_scalar)."""
    if _is_sequence(eps):
        vals = [_to_mpf(e, "eps") for e in eps]
        return vals, False
    return [_to_mpf(eps, "eps")], True


def _check_prob(p: Any, what: Any) -> Any:
    v = _to_mpf(p, what)
    if v < 0 or v > 1:
        raise ValueError(f"{what} must lie in [0, 1], got {p!r}")
    return v


def _check_int(x: Any, what: Any, lo: Any = None, hi: Any = None) -> Any:
    if isinstance(x, bool):
        raise ValueError(f"{what} must be an integer, got {x!r}")
    try:
        iv = int(x)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what} must be an integer, got {x!r}") from exc
    if iv != x:
        raise ValueError(f"{what} must be an integer, got {x!r}")
    if lo is not None and iv < lo:
        raise ValueError(f"{what} must be >= {lo}, got {x!r}")
    if hi is not None and iv > hi:
        raise ValueError(f"{what} must be <= {hi}, got {x!r}")
    return iv


def _check_direction(direction: Any) -> None:
    if direction not in _DIRECTIONS:
        raise ValueError(
            f"direction must be one of {_DIRECTIONS}, got {direction!r}")


def _pick(direction: Any, plus: Any, minus: Any) -> Any:
    """The value a direction asks for: plus, minus or the larger."""
    if direction == "plus":
        return plus
    if direction == "minus":
        return minus
    return max(plus, minus)


def _hs_sum(P: Any, Q: Any, eeps: Any) -> Any:
    """sum_x max(P(x) - eeps*Q(x), 0), term by term (current precision)."""
    s = mpf(0)
    for p, q in zip(P, Q):
        t = p - eeps * q
        if t > 0:
            s += t
    _tick(len(P))
    return s


def _directional(P: Any, Q: Any, eps_vals: Any, direction: Any) -> Any:
    out = []
    for e in eps_vals:
        ee = mpmath.exp(e)
        if direction == "plus":
            out.append(_hs_sum(P, Q, ee))
        elif direction == "minus":
            out.append(_hs_sum(Q, P, ee))
        else:
            out.append(max(_hs_sum(P, Q, ee), _hs_sum(Q, P, ee)))
    return out


# --------------------------------------------------------------------------
# size guard: refuse up front what would run for more than about a minute
# --------------------------------------------------------------------------
#
# The brute force builds the full pmfs (every outcome 0..L, with exact
# big-integer binomial coefficients) and sums or integrates over all of them,
# so its cost grows like a power of n: it cannot answer n = 10^9.  Each public
# function estimates its cost in "terms" (about one mpmath operation) before
# doing anything and raises ValueError if the estimate exceeds the budget: the
# ``max_terms`` argument, else the one set by ``term_budget``
# (PrivacyCurve.delta(..., precision="mp", max_terms=...) sets it), else
# DEFAULT_MAX_TERMS.  Measured on the development machine (2 cores shared by
# several jobs, minimum of 3 runs): counting_delta at n = 3000, 8000, 12000
# took 4.2, 3.5, 2.6 microseconds per estimated term, so
# _SECONDS_PER_TERM = 3.5e-6 and DEFAULT_MAX_TERMS = 1.7e7 is about a minute.
# (The binomial row's model was refitted when its coefficients came to be built
# by their recurrence, not one math.comb each: the pmfs of Bin(N, 0.3) took
# 27, 35, 43 and 69 microseconds an atom at N = 10^3, 10^4, 3 10^4 and 10^5 on
# a quiet machine, and the hockey-stick sum 11-14 microseconds an atom for
# both directions: 2 L per direction still.  The default budget now refuses a
# count from n ~ 3.2e5 on, about a minute.)
# With noise the models below are rougher: measured 0.1 to 0.3 microseconds
# per estimated term for Gaussian and geometric noise (n = 100..1000), 0.3 to
# 4.5 for Laplace noise (4.5 at n = 1000, b = 3: 113 s for 2.5e7 terms,
# refused by default).  Larger sizes run only with an explicit max_terms,
# e.g. the n = 1000 rows of bench/bench_noise.py.  The estimate covers
# building the laws and evaluating ONE eps value in the requested
# direction(s); a list of k eps values costs up to k times the evaluation
# part.  Models (fitted to timings at n = 10^2..10^4):
#
# * a binomial or hypergeometric row over N others: 8 N + N^2 / 8e3 (two
#   powers an atom, and C(N, k), an N-bit integer, from C(N, k - 1)); a
#   Poisson-binomial convolution: n^2;
# * noiseless hockey-stick sum: 2 L per direction (L + 1 outcomes);
# * geometric noise: 2 L min(L + 1, 1 + 250 / |ln alpha|) per direction;
# * Laplace / Gaussian noise (quadrature of O(sqrt L) significant pieces at
#   dps + 15 digits): 4e5 sqrt(L + 1) per direction.

DEFAULT_MAX_TERMS = 17 * 10 ** 6
_SECONDS_PER_TERM = 3.5e-6
_BUDGET = contextvars.ContextVar("statpriv_reference_max_terms", default=None)


@contextlib.contextmanager
def term_budget(max_terms: Any) -> Iterator[Any]:
    """Within the block, reference functions called without ``max_terms`` use
    this budget (None: DEFAULT_MAX_TERMS).  Thread- and context-local."""
    token = _BUDGET.set(max_terms)
    try:
        yield
    finally:
        _BUDGET.reset(token)


# The progress bar of the running precision="mp" call (statpriv._progress;
# PrivacyCurve sets it): the long loops report to it.  Context-local like the
# budget.
_PROGRESS = contextvars.ContextVar("statpriv_reference_progress", default=None)


@contextlib.contextmanager
def reporting(progress: Any) -> Iterator[Any]:
    """Within the block the long loops of the oracle report their terms to
    ``progress`` (an object with update(n), or None)."""
    token = _PROGRESS.set(progress)
    try:
        yield
    finally:
        _PROGRESS.reset(token)


def _tick(terms: Any = 1) -> None:
    """``terms`` more done: told to the progress bar of the call, if any."""
    progress = _PROGRESS.get()
    if progress is not None:
        progress.update(terms)


def _binomial_row(N: int, count: Any = None) -> Any:
    """The exact integers C(N, 0), ..., C(N, K), K = min(N, count) (count
    None: N), by the recurrence C(N, k + 1) = C(N, k) (N - k) / (k + 1) (an
    exact integer division): math.comb per entry recomputes each N-bit
    product from scratch, 19 s for the row at N = 10^4 against 0.03 s here
    (the same integers)."""
    row, c = [1], 1
    for k in range(N if count is None else min(N, count)):
        c = c * (N - k) // (k + 1)
        row.append(c)
    return row


def _row_terms(N: Any) -> Any:
    """A binomial (or hypergeometric) row over N others with exact C(N, k)."""
    N = max(float(N), 0.0)
    return 8.0 * N + N ** 2 / 8e3


def _eval_terms(L: Any, noise: Any, direction: Any) -> Any:
    """One eps value, noiseless or with noise = (kind, param)."""
    dirs = 2 if direction == "max" else 1
    L = float(L)
    if noise is None:
        return 2.0 * L * dirs
    kind, par = noise
    if kind == "geometric":
        try:
            lna = abs(math.log(float(par)))
        except (ValueError, TypeError, OverflowError):
            lna = math.inf
        window = min(L + 1.0, 1.0 + 250.0 / lna) if lna > 0 else L + 1.0
        return 2.0 * L * window * dirs
    return 4e5 * math.sqrt(L + 1.0) * dirs


def _round_up(x: Any) -> Any:
    """x rounded up to two significant digits."""
    if not x > 0 or not math.isfinite(x):
        return x
    e = 10.0 ** (math.floor(math.log10(x)) - 1)
    return math.ceil(x / e) * e


def _guard(terms: Any, max_terms: Any, what: Any) -> None:
    budget = max_terms if max_terms is not None else _BUDGET.get()
    if budget is None:
        budget = DEFAULT_MAX_TERMS
    if terms > budget:
        raise ValueError(
            f"precision='mp' (the mpmath brute force) would need about {terms:.2g} terms, "
            f"~{terms * _SECONDS_PER_TERM:.2g} s per eps value, for {what}: more than "
            f"max_terms={budget:.3g}.  Pass max_terms={_round_up(terms):g} (or larger) to run "
            "it anyway, or choose a smaller n / sample_size.")


# --------------------------------------------------------------------------
# the hockey stick of two given pmfs
# --------------------------------------------------------------------------

def hockey_stick(P: Any, Q: Any, eps: Any, dps: Any = 50) -> Any:
    """H_eps(P||Q) = sum_x max(P(x) - e^eps Q(x), 0).

    P, Q: sequences of equal length indexed by the same outcomes.
    eps: scalar -> mpf; list/tuple -> list of mpf.
    """
    with mp.workdps(dps):
        P = [_to_mpf(p, "P entry") for p in P]
        Q = [_to_mpf(q, "Q entry") for q in Q]
        if len(P) != len(Q):
            raise ValueError(
                f"P and Q must have the same length ({len(P)} != {len(Q)})")
        eps_vals, scalar = _eps_list(eps)
        res = _directional(P, Q, eps_vals, "plus")
        return res[0] if scalar else res
