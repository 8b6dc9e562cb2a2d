#!/usr/bin/env python3
"""Coverage-guided fuzzing of statpriv's public curve API.

    python tools/fuzz_curves.py [libFuzzer flags] CORPUS_DIR [SEED_DIR ...]  # fuzz (atheris)
    python tools/fuzz_curves.py --replay FILE_OR_DIR ...                   # no atheris needed

Each input is a byte string that Decoder turns into one call of the public
API -- statpriv.counting with every option (iid or per-record pi,
sample_size, sample_rate with both samplings, sampling_prob, noise=Laplace /
Gaussian / Geometric, approx), secret_sample, from_log_pmfs on random arrays,
partial_knowledge(...).worst_case / .uniform / .blanket, thresholded (both
attackers), k_anonymity(...).lower / .upper, shuffle.clones /
randomized_response and compose (exact and on a grid) -- followed by queries
of the curve (delta, log_delta, epsilon, renyi, privacy_loss_distribution).
Parameters lean toward the edges: 0, 1, 5e-324, 1e-300, 1 - 2**-53, huge n,
negative values, NaN, inf and wrong types.

The checks (check_input):

* an accepted input gives a curve with delta in [0, 1], non-increasing over
  a sorted eps grid, log_delta finite wherever delta > 0 and consistent with
  it, delta = max(delta_plus, delta_minus), epsilon(d) >= 0 non-increasing in
  d with delta(epsilon(d)) <= d (1 + 1e-9) where finite, Renyi divergences
  >= 0 and non-decreasing in alpha, a PLD of non-negative masses summing to
  at most 1, and no NaN anywhere;
* a rejected input raises ValueError or TypeError whose message names a
  parameter of the call that raised;
* anything else -- another exception, a crash, a sanitizer report, a hang --
  is a finding.  Fuzzing uses libFuzzer's -timeout (10 s per input, set
  below unless given); --replay limits each input's CPU time (the process's,
  ITIMER_PROF) to the same, so a replay on a loaded machine does not time out.

Sizes whose construction costs seconds even when nothing is wrong (a
Gaussian-noise count at n = 1e6, the exact worst case over 1e4 vertices) are
skipped up front (Skip, the CAPS table), so the fuzzer spends its time on new
paths instead of timing out on big n; n up to 1e15 stays where it is cheap
(noiseless iid counts).

To fuzz the C kernels with coverage feedback and the sanitizers, build with
clang: ``CC=clang STATPRIV_SANITIZE=address,undefined,fuzzer-no-link python
setup.py build_ext --inplace --force`` and run with atheris' runtime
preloaded: ``LD_PRELOAD=$(python -c "import atheris; print(atheris.path())")/asan_with_fuzzer.so``
(README, Development).
"""
import glob
import math
import numbers
import os
import re
import signal
import struct
import sys
import warnings

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIME_LIMIT_S = 10
# The grid work (statpriv.laws.grid_pld.MAX_SECONDS, 10 s of CPU by default)
# an input may be predicted to cost before it is refused: the instrumented
# build runs 2-4x slower than the one the connect-the-dots price was measured
# on, so 3 s keeps every accepted grid inside TIME_LIMIT_S (a grid whose
# prediction misses its cost by more is a finding: a hang)
GRID_SECONDS = 3.0
# FUZZ_CURVES_TRACE=1: print every public call an input makes (to reproduce a finding)
TRACE = bool(os.environ.get("FUZZ_CURVES_TRACE"))

INF, NAN = math.inf, math.nan
# the values every decoded parameter leans toward; the non-numbers test the
# type checks
PROB_EDGES = [0.5, 0.0, 1.0, 5e-324, 1e-300, 1 - 2.0 ** -53, 2.0 ** -53, 1e-9, 0.3, 0.999,
              1e-3, 0.1, -0.0, NAN, INF, -1e-300, 1.0000000000000002, -0.5, 2.0, 1e-12,
              "0.5", None, True, np.float32(0.25), np.float64(0.7), [0.5]]
COUNT_EDGES = [10, 1, 2, 3, 0, 100, 1000, 10 ** 4, 10 ** 6, 10 ** 9, 10 ** 12, -1, 2 ** 63,
               10.0, 2.5, "10", None, True, np.int64(50), NAN, INF, 10 ** 15, 5, 7, 31, 64]
POSITIVE_EDGES = [1.0, 0.5, 2.0, 5e-324, 1e-300, 1e-9, 1e-3, 0.1, 3.0, 10.0, 100.0, 700.0,
                  710.0, 1e300, 0.0, -1.0, NAN, INF, -INF, "1", None, False, 2.0 ** -53]
EPS_EDGES = [0.0, 0.01, 0.1, 1.0, 5e-324, 1e-300, 1e-9, 2.0, 30.0, 700.0, 710.0, 1e4, 1e300,
             INF, -0.5, -INF, NAN, -5e-324, 1 - 2.0 ** -53]
DELTA_EDGES = [1e-6, 0.0, 1.0, 5e-324, 1e-300, 1e-100, 1e-12, 0.5, 1 - 2.0 ** -53, NAN, -1e-9,
               1.5, INF, 2.0 ** -1074 * 3]
LOG_EDGES = [0.0, -0.5, -1.0, -INF, -700.0, -745.0, -1e-300, -5e-324, -1e300, 1e-12, NAN, INF,
             -20.0, -2.0]

# the eps grid and the delta targets every accepted curve is checked on
EPS_GRID = [-1.0, 0.0, 1e-6, 0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 20.0, 100.0, INF]
TARGETS = [0.0, 1e-300, 1e-12, 1e-6, 1e-3, 0.1, 0.5, 1.0]
ALPHAS = [0.5, 1.0, 2.0, 10.0, INF]
REL = 1e-9        # the relative slack of the monotonicity and epsilon checks

# largest n (or array length) decoded inputs are run with, per path: above
# these one construction takes seconds on the 2-core machine (timed, not
# estimated); an input beyond its cap is skipped, not run
CAPS = {
    "iid": 10 ** 15, "array": 200, "sample_size": 10 ** 6, "sample_m": 10 ** 5,
    "rate": 10 ** 5, "poisson": 10 ** 6, "noise": 2000, "noise_scale": 30.0,
    "secret": 10 ** 4, "pk_worst": 300, "pk_other": 10 ** 5, "thresholded": 10 ** 5,
    "k_anonymity": 1000, "clones": 10 ** 5, "randomized_response": 300, "pld": 10 ** 5,
    "compose": 100, "compose_dp_param": 0.5,
}


class Skip(Exception):
    """The decoded input is beyond the cheap sizes (CAPS): not run."""


class Rejected(Exception):
    """A call of the decoded input raised ValueError/TypeError naming a parameter."""


class Finding(AssertionError):
    """A broken check: the input is a bug report."""


class Decoder:
    """Parameters from fuzzer bytes; past the end every byte reads as 0 (so a
    short input decodes to the first edge of every list)."""

    def __init__(self, data):
        self.data = bytes(data)
        self.pos = 0
        self.largest = 0      # the largest count or array length decoded

    def _seen(self, size):
        if _number(size) and math.isfinite(size):
            self.largest = max(self.largest, size)
        return size

    def byte(self):
        if self.pos >= len(self.data):
            return 0
        self.pos += 1
        return self.data[self.pos - 1]

    def raw(self, size):
        return bytes(self.byte() for _ in range(size))

    def choice(self, options):
        return options[self.byte() % len(options)]

    def flag(self):
        return self.byte() & 1 == 1

    def real(self, edges, lo, hi):
        """An edge (most often), a value in [lo, hi] (log-uniform when the
        range spans decades), or any double (NaN, inf and subnormals too)."""
        kind = self.byte()
        if kind < 150:
            return edges[kind % len(edges)]
        if kind < 240:
            u = int.from_bytes(self.raw(6), "little") / 2.0 ** 48
            if lo > 0 and hi / lo > 1e3:
                return math.exp(math.log(lo) + u * (math.log(hi) - math.log(lo)))
            return lo + u * (hi - lo)
        return struct.unpack("<d", self.raw(8))[0]

    def count(self, lo=1, hi=1000):
        """An int edge, a wrong type, or an int in [lo, hi]."""
        kind = self.byte()
        if kind < 128:
            return self._seen(COUNT_EDGES[kind % len(COUNT_EDGES)])
        return self._seen(lo + int.from_bytes(self.raw(4), "little") % (hi - lo + 1))

    def prob(self):
        return self.real(PROB_EDGES, 0.0, 1.0)

    def probs(self, max_len):
        """An array of probabilities (with edges mixed in), or a wrong shape."""
        kind = self.byte() % 8
        if kind == 0:
            return self.choice([[], [[0.5, 0.5]], "0.5", None, [0.5, None], np.zeros((2, 2))])
        size = self._seen(1 + self.byte() % max_len)
        base = self.choice([0.5, 0.3, 1e-9, 0.999, 1e-300])
        values = np.full(size, base)
        for _ in range(self.byte() % 6):
            value = self.prob()
            values[self.byte() % size] = value if _number(value) else NAN
        spread = self.byte() % 4
        if spread:
            values = values * np.linspace(1.0, 10.0 ** -spread, size)
        return values.tolist() if self.flag() else values

    def log_pmf(self, size):
        """ln of a law on `size` atoms: random logits normalised (most often),
        with -inf atoms and raw edge values (NaN, +inf, not summing to 1) mixed in."""
        logits = np.array([self.real(LOG_EDGES, -50.0, 0.0) if self.byte() < 200 else -INF
                           for _ in range(size)], dtype=float)
        finite = np.isfinite(logits)
        if self.byte() < 200 and finite.any():
            logits = np.where(finite, logits, -INF)
            logits = logits - np.logaddexp.reduce(logits[finite])
        return logits


def _number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _cap(value, key):
    """Skip a valid number above its path's cap (an invalid one goes through:
    the validation is what it tests)."""
    if _number(value) and math.isfinite(value) and value > CAPS[key]:
        raise Skip(f"{key} {value!r} > {CAPS[key]}")


# rejections that name no parameter of the call, accepted as they are: an
# operation the curve does not support, and the PLD's extended-precision range
# (laws with an atom at ln P/Q ~ 1e300); listed so a new kind of message is
# still a finding
KNOWN_MESSAGES = [r"no privacy-loss distribution is available for this curve",
                  r"the losses span \S+ nats, more than the \d+ extended precision can evaluate"]


def names_parameter(message, names):
    if any(re.search(pattern, message) for pattern in KNOWN_MESSAGES):
        return True
    return any(re.search(r"(?<![A-Za-z0-9_])" + re.escape(name) + r"(?![A-Za-z0-9_])", message)
               for name in names)


def _call(fn, names, *args, **kwargs):
    """fn(*args, **kwargs); a ValueError/TypeError must name one of `names`
    (the call's parameters) and becomes Rejected."""
    if TRACE:
        print(f"{getattr(fn, '__qualname__', fn)}(*{args!r}, **{kwargs!r})", flush=True)
    try:
        return fn(*args, **kwargs)
    except (ValueError, TypeError) as error:
        if not names_parameter(str(error), names):
            raise Finding(f"{fn.__qualname__}: {type(error).__name__} names none of "
                          f"{sorted(names)}: {error}") from error
        raise Rejected(str(error)) from error


def _query(fn, names, *args):
    """A query of an accepted curve: its value, or None if rejected (naming a parameter)."""
    try:
        return _call(fn, names, *args)
    except Rejected:
        return None


def _params(fn):
    import inspect
    return {name for name in inspect.signature(fn).parameters if name != "self"}


def noise(d):
    import statpriv
    kind = d.byte() % 5
    if kind == 0:
        return None, 0.0
    if kind == 4:
        return d.choice(["laplace", 1.0, statpriv.dp.gaussian(1.0), object()]), 0.0
    cls = (statpriv.Laplace, statpriv.Gaussian, statpriv.Geometric)[kind - 1]
    if cls is statpriv.Geometric:
        value = d.real(PROB_EDGES, 0.0, 1.0)
        scale = -1.0 / math.log(value) if _number(value) and 0 < value < 1 else 0.0
    else:
        value = d.real(POSITIVE_EDGES, 1e-3, 100.0)
        scale = float(value) if _number(value) else 0.0
    if scale > CAPS["noise_scale"]:
        raise Skip(f"noise scale {scale}")
    return _call(cls, _params(cls), value), scale


def build_counting(d):
    import statpriv
    kwargs = {}
    if d.byte() % 3 == 0:
        pi = d.probs(CAPS["array"])
        n = d.choice([None, None, len(pi) + 1 if hasattr(pi, "__len__") else 3, 5, 0])
    else:
        pi = d.prob()
        n = d.count(1, 10 ** 6)
    sampling = d.byte() % 6
    cap = "iid"
    if sampling == 1:
        kwargs["sample_size"] = d.count(1, 1000)
        _cap(kwargs["sample_size"], "sample_m")
        cap = "sample_size"
    elif sampling in (2, 3):
        kwargs["sample_rate"] = d.prob()
        kwargs["sampling"] = "poisson" if sampling == 3 else "without_replacement"
        cap = "poisson" if sampling == 3 else "rate"
    elif sampling == 4:
        kwargs["sampling_prob"] = d.prob()
        kwargs["sampling"] = d.choice(["poisson", "without_replacement", "other", None])
        cap = "rate"
    made, _ = noise(d)
    if made is not None:
        kwargs["noise"] = made
        cap = "noise"
    if d.byte() % 8 == 0:
        kwargs["approx"] = d.choice(["normal", None, "other"])
    _cap(n, cap)
    return _call(statpriv.counting, _params(statpriv.counting), n, pi, **kwargs)


def build_secret_sample(d):
    import statpriv
    n, m, positives = d.count(1, 1000), d.count(1, 1000), d.count(0, 1000)
    made, _ = noise(d)
    _cap(n, "secret")
    return _call(statpriv.secret_sample, _params(statpriv.secret_sample), n, m, positives,
                 noise=made)


def build_from_log_pmfs(d):
    import statpriv
    size = 1 + d.byte() % 40
    log_p = d.log_pmf(size)
    log_q = d.log_pmf(size if d.byte() < 240 else 1 + d.byte() % 40)
    start = d.choice([0, -5, 3, 10 ** 12, 2.5, None, np.int64(-1)])
    return _call(statpriv.from_log_pmfs, _params(statpriv.from_log_pmfs), log_p, log_q,
                 support_start=start)


def build_partial_knowledge(d):
    import statpriv
    n, p, known = d.count(1, 2000), d.prob(), d.count(0, 100) if d.flag() else 0
    which = d.choice(["worst_case", "uniform", "blanket"])
    _cap(n, "pk_worst" if which == "worst_case" else "pk_other")
    pk = _call(statpriv.partial_knowledge, _params(statpriv.partial_knowledge), n, p,
               known=known)
    return _call(getattr, {"n", "p", "known", which}, pk, which)


def build_thresholded(d):
    import statpriv
    if d.byte() % 4 == 0:
        pi = d.probs(CAPS["array"])
        n = d.choice([None, len(pi) + 1 if hasattr(pi, "__len__") else 3, 4])
    else:
        pi, n = d.prob(), d.count(1, 10 ** 5)
    threshold, known = d.count(0, 100), d.count(0, 100) if d.flag() else 0
    attacker = d.choice(["passive", "active", "passive", "active", "other", None])
    _cap(n, "thresholded")
    return _call(statpriv.thresholded, _params(statpriv.thresholded), n, pi, threshold,
                 known=known, attacker=attacker)


def build_k_anonymity(d):
    import statpriv
    probs = d.probs(5)
    if d.flag() and isinstance(probs, np.ndarray) and probs.sum() > 1:
        probs = probs / (2 * probs.size)
    n, k = d.count(1, 1000), d.count(1, 20)
    source, target = d.choice([0, 1, 2, -1, 5, 0.0, None]), d.choice([1, 0, 2, 1, -1, 7, "1"])
    which = d.choice(["lower", "upper"])
    _cap(n, "k_anonymity")
    ka = _call(statpriv.k_anonymity, _params(statpriv.k_anonymity), n, probs, k,
               source=source, target=target)
    return getattr(ka, which)


def build_shuffle(d):
    import statpriv
    fn = d.choice([statpriv.shuffle.clones, statpriv.shuffle.randomized_response])
    n, eps0 = d.count(1, 10 ** 4), d.real(POSITIVE_EDGES, 1e-3, 20.0)
    _cap(n, "clones" if fn is statpriv.shuffle.clones else "randomized_response")
    return _call(fn, _params(fn), n, eps0)


def _small_curve(d):
    import statpriv
    kind = d.byte() % 5
    if kind == 0:
        n = d.count(1, CAPS["compose"])
        _cap(n, "compose")
        return _call(statpriv.counting, _params(statpriv.counting), n, d.prob())
    if kind in (1, 2):
        fn = statpriv.dp.gaussian if kind == 1 else statpriv.dp.laplace
        param = d.real(POSITIVE_EDGES, 0.1, 10.0)
        # the grid of a continuous PLD spans ~1/param^2 (Gaussian) or 2/param
        # (Laplace) nats at h = 1e-3 / 2: seconds below param ~ 0.5
        if _number(param) and 0 < param < CAPS["compose_dp_param"]:
            raise Skip(f"compose with a DP {fn.__name__} of parameter {param}")
        return _call(fn, _params(fn), param)
    if kind == 3:
        return build_from_log_pmfs(d)
    return _call(statpriv.dp.geometric, _params(statpriv.dp.geometric), d.prob())


def build_compose(d):
    import statpriv
    curves = [_small_curve(d) for _ in range(1 + d.byte() % 2)]
    laws = any("discrete laws" in curve.description for curve in curves)
    times = d.choice([1, 2, 3, 0, -1, 2.0, None, 4])
    kwargs = {}
    if d.flag():
        kwargs["exact"] = True
    else:
        h = d.choice([None, 1e-2, 0.1, 5e-3, 0.0, -1.0, NAN, INF, 1.0, "0.01", 5e-324])
        # random laws have losses up to ~750 nats: at the default h = 1e-3 / 2
        # a grid of 1.5e6 points (seconds per FFT)
        if laws and (h is None or _number(h) and 0 < h < 1e-2):
            raise Skip(f"compose of from_log_pmfs on a grid of {h}")
        kwargs["value_discretization_interval"] = h
        kwargs["tail_mass_truncation"] = d.choice([1e-15, 1e-10, 0.5, 0.0, 0.6, NAN, 1e-300])
    return _call(statpriv.compose, _params(statpriv.compose), *curves, times=times, **kwargs)


BUILDERS = [build_counting, build_counting, build_counting, build_secret_sample,
            build_from_log_pmfs, build_partial_knowledge, build_thresholded,
            build_k_anonymity, build_shuffle, build_compose]


def _check(condition, what, curve):
    if not condition:
        raise Finding(f"{what} [{getattr(curve, 'description', curve)!r}]")


def check_curve(curve, d, small):
    """The invariants of an accepted curve, then queries decoded from the rest
    of the input (their rejections must name a parameter too); Renyi and PLD
    queries only if `small` (their cost grows with the support)."""
    grid = np.array(EPS_GRID)
    delta = np.asarray(curve.delta(grid), dtype=float)
    plus = np.asarray(curve.delta_plus(grid), dtype=float)
    minus = np.asarray(curve.delta_minus(grid), dtype=float)
    log_delta = np.asarray(curve.log_delta(grid), dtype=float)
    for name, values in (("delta", delta), ("delta_plus", plus), ("delta_minus", minus),
                         ("log_delta", log_delta)):
        _check(not np.isnan(values).any(), f"NaN in {name} {values}", curve)
    _check(((delta >= 0) & (delta <= 1)).all(), f"delta outside [0, 1]: {delta}", curve)
    _check((np.diff(delta) <= REL * delta[:-1]).all(),
           f"delta increases over {EPS_GRID}: {delta}", curve)
    _check((delta == np.maximum(plus, minus)).all(),
           f"delta {delta} != max(plus {plus}, minus {minus})", curve)
    _check(np.isfinite(log_delta[delta > 0]).all(),
           f"log_delta {log_delta} not finite where delta {delta} > 0", curve)
    _check((log_delta <= 1e-12).all(), f"log_delta > 0: {log_delta}", curve)
    shown = delta > 1e-290
    _check(np.allclose(np.exp(log_delta[shown]), delta[shown], rtol=1e-6, atol=0),
           f"exp(log_delta) {np.exp(log_delta)} != delta {delta}", curve)
    # the scalar and the array paths may differ in the last bits (seen: 1 ulp
    # on pair curves, 3.4e-15 relative on a composition's grid)
    scalar = curve.delta(float(grid[4]))
    _check(abs(scalar - delta[4]) <= 1e-12 * delta[4],
           f"delta({grid[4]}) = {scalar!r} scalar, {delta[4]!r} in an array", curve)
    previous = INF
    for target in TARGETS:
        eps = curve.epsilon(target)
        _check(not math.isnan(eps) and eps >= 0, f"epsilon({target}) = {eps}", curve)
        # epsilon(d > 0) is rounded up by the curve's error bound, epsilon(0)
        # is exact: one ulp above it at d = 1e-300 is expected
        _check(eps <= previous * (1 + REL), f"epsilon({target}) = {eps!r} > epsilon of a "
               f"smaller target {previous!r}", curve)
        previous = eps
        if math.isfinite(eps):
            at = curve.delta(eps)
            _check(at <= target * (1 + REL), f"delta(epsilon({target}) = {eps!r}) = {at!r}",
                   curve)
    queries(curve, d, small)


def queries(curve, d, small):
    """Decoded queries of the curve: delta/log_delta/epsilon at edge values,
    Renyi divergences and the PLD where the curve is small enough."""
    for _ in range(d.byte() % 4):
        kind = d.byte() % 5
        direction = d.choice(["max", "plus", "minus", "max", "other", None])
        if kind == 0:
            value = _query(curve.delta, {"eps"}, d.real(EPS_EDGES, -2.0, 50.0))
            _check(value is None or (0 <= value <= 1), f"delta = {value}", curve)
        elif kind == 1:
            value = _query(curve.log_delta, {"eps"}, d.real(EPS_EDGES, -2.0, 50.0))
            _check(value is None or not math.isnan(value) and value <= 1e-12,
                   f"log_delta = {value}", curve)
        elif kind == 2:
            target = d.real(DELTA_EDGES, 0.0, 1.0)
            eps = _query(curve.epsilon, {"delta", "direction"}, target, direction)
            _check(eps is None or (not math.isnan(eps) and eps >= 0), f"epsilon = {eps}", curve)
        elif kind == 3 and small:
            divergences = []
            for alpha in ALPHAS:
                value = _query(curve.renyi, {"alpha", "direction", "renyi"}, alpha, "max")
                if value is None:
                    return
                _check(not math.isnan(value) and value >= -1e-12,
                       f"renyi({alpha}) = {value}", curve)
                divergences.append(value)
            _check(all(b >= a or b >= a - REL * abs(a) - 1e-12
                       for a, b in zip(divergences, divergences[1:])),
                   f"renyi not non-decreasing in alpha {ALPHAS}: {divergences}", curve)
            _query(curve.renyi, {"alpha", "direction"}, d.real(POSITIVE_EDGES, 0.01, 50.0),
                   direction)
        elif kind == 4 and small:
            vdi = d.choice([None, 1e-3, 1e-2, 0.0, -1.0, NAN])
            pld = _query(curve.privacy_loss_distribution,
                        {"value_discretization_interval", "tail_mass_truncation",
                         "privacy_loss_distribution", "noise"}, vdi)
            if pld is not None:
                check_pld(pld, curve)


def check_pld(pld, curve):
    for side_name in ("plus", "minus"):
        side = getattr(pld, side_name)
        probs, losses = np.asarray(side.probs, float), np.asarray(side.losses, float)
        _check(not np.isnan(probs).any() and not np.isnan(losses).any(),
               f"NaN in the PLD's {side_name} side", curve)
        _check((probs >= 0).all() and side.infinity_mass >= 0 and side.tail_mass >= 0,
               f"negative mass in the PLD's {side_name} side", curve)
        total = float(np.sum(probs)) + side.infinity_mass
        _check(total <= 1 + 1e-9, f"PLD {side_name} mass {total} > 1", curve)


def check_input(data):
    """Decode and run one input; 'accepted', 'rejected' or 'skipped', or raise
    Finding (or whatever the library raised that it must not)."""
    d = Decoder(data)
    builder = BUILDERS[d.byte() % len(BUILDERS)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            curve = builder(d)
        except Skip:
            return "skipped"
        except Rejected:
            return "rejected"
        check_curve(curve, d, small=d.largest <= CAPS["pld"])
    return "accepted"


def _alarm(signum, frame):
    raise TimeoutError(f"an input ran more than {TIME_LIMIT_S} s of CPU time")


def _limit_grid_work(seconds=GRID_SECONDS):
    """Set statpriv.laws.grid_pld.MAX_SECONDS; returns the previous value."""
    from statpriv.laws import grid_pld
    previous, grid_pld.MAX_SECONDS = grid_pld.MAX_SECONDS, seconds
    return previous


def replay(paths):
    """Run every file (directories: every file in them) through check_input
    with a per-input time limit; the counts of each outcome."""
    files = []
    for path in paths:
        files += sorted(glob.glob(os.path.join(path, "*"))) if os.path.isdir(path) else [path]
    counts = {}
    previous = signal.signal(signal.SIGPROF, _alarm)
    grid_seconds = _limit_grid_work()
    try:
        for path in files:
            with open(path, "rb") as fh:
                data = fh.read()
            signal.setitimer(signal.ITIMER_PROF, TIME_LIMIT_S)
            try:
                outcome = check_input(data)
            except BaseException as error:
                raise Finding(f"{os.path.relpath(path, ROOT)}: {type(error).__name__}: {error}") \
                    from error
            finally:
                signal.setitimer(signal.ITIMER_PROF, 0)
            counts[outcome] = counts.get(outcome, 0) + 1
    finally:
        signal.signal(signal.SIGPROF, previous)
        _limit_grid_work(grid_seconds)
    return counts


# modules the fuzzed calls do not reach (data sets, plots, the mpmath oracle,
# the command line)
SKIPPED_MODULES = ("statpriv.empirical", "statpriv.papers", "statpriv.analysis",
                   "statpriv.oracle", "statpriv.accounting", "statpriv.cli", "statpriv.__main__")


def main(argv):
    if argv[:1] == ["--replay"]:
        print(replay(argv[1:]))
        return 0
    import atheris
    import importlib
    import pkgutil
    # Python coverage of every statpriv module the calls can reach (the
    # validation branches among them); the C kernels' comes from the clang
    # build.  Imported up front: a module imported lazily later would not be
    # instrumented.
    with atheris.instrument_imports(include=["statpriv"]):
        import statpriv
        for module in pkgutil.walk_packages(statpriv.__path__, "statpriv."):
            if not module.name.startswith(SKIPPED_MODULES):
                importlib.import_module(module.name)
    _limit_grid_work()
    if not any(arg.startswith("-timeout=") for arg in argv):
        argv = argv + [f"-timeout={TIME_LIMIT_S}"]
    atheris.Setup([sys.argv[0]] + argv, lambda data: check_input(data))
    atheris.Fuzz()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
