"""Cost and memory: windows of the laws with the rest bounded, the product-tree
Poisson-binomial convolution, and up-front refusals of work too large.

Windowed curves are checked against the same curves on the full support
(noisy.DROP_NATS raised so that nothing is cut) and, with a deliberately tiny
window, against the mpmath oracle: the bounded rest must keep them above the
truth.  The product tree is checked against an mpmath convolution written
from the definition.
"""
import math
import re
import sys
import time

import mpmath
import numpy as np
import pytest

import statpriv
from statpriv import _progress, reference
from statpriv.laws import _kernels, grid_pld, pair_curve
from statpriv.laws import windows as noisy

from helpers import oracle, zip_equal

counting_mod = sys.modules["statpriv.counting.per_record"]
laws_mod = sys.modules["statpriv.laws.windows"]
sampling_mod = sys.modules["statpriv.counting.sampling"]

EPS = np.array([-0.2, 0.0, 0.002, 0.02, 0.1, 0.3, 0.6, 1.0, 2.0, 5.0])


def _full(monkeypatch):
    """Cut nothing: windows become the full supports."""
    monkeypatch.setattr(noisy, "DROP_NATS", 1e9)


def _force_windows(monkeypatch, drop=3000.0, noisy_path=False):
    """Cut windows at ``drop`` nats even where the default policy keeps the
    full support (counting.FULL_SUPPORT atoms): noiseless laws take the
    narrowest candidate, noisy.DROP_NATS / 4 (budget 0), noisy laws the
    widest, noisy.DROP_NATS (budget unlimited)."""
    monkeypatch.setattr(laws_mod, "FULL_SUPPORT", 0)
    monkeypatch.setattr(laws_mod, "WINDOW_BUDGET", 10**12 if noisy_path else 0)
    monkeypatch.setattr(noisy, "DROP_NATS", drop if noisy_path else 4.0 * drop)


def _curves(build, monkeypatch, noisy_path=False, per_record=False):
    with monkeypatch.context() as m:
        _force_windows(m, noisy_path=noisy_path)
        if per_record:      # the product tree always trims at noisy.DROP_NATS
            m.setattr(noisy, "DROP_NATS", 3000.0)
        windowed = build()
    with monkeypatch.context() as m:
        _full(m)
        full = build()
    return windowed, full


def _compare(windowed, full, eps=EPS, min_log=-2900.0):
    """Agree to 1e-12 relative where ln delta > min_log; never below anywhere."""
    seen_deep = False
    for name in ("log_delta_plus", "log_delta_minus"):
        a = getattr(windowed, name)(eps)
        b = getattr(full, name)(eps)
        for e, x, y in zip_equal(eps, a, b):
            if y == -math.inf:
                continue
            assert x >= y - 1e-12 * max(1.0, abs(y)), (name, e, x, y)
            if y > min_log:
                assert abs(x - y) <= 1e-12 * max(1.0, abs(y)), (name, e, x, y)
                seen_deep |= y < -300.0
    return seen_deep


CASES = [
    ("sample_size", lambda: statpriv.counting(30000, 0.3, sample_size=9000)),
    ("sample_size pi small", lambda: statpriv.counting(20000, 0.02, sample_size=15000)),
    # the law arrays of Poisson sampling (used with noise; noiseless curves reduce
    # to the binomial shift curve and cut no window)
    ("poisson", lambda: pair_curve(
        sampling_mod._poisson_sample_laws(12000, 0.4, 0.7), None, "poisson laws")),
    ("secret", lambda: statpriv.secret_sample(20000, 8000, 7000)),
    ("per-record", lambda: statpriv.counting(
        None, np.random.default_rng(5).uniform(0.05, 0.95, 6000))),
    ("per-record poisson", lambda: statpriv.counting(
        None, np.random.default_rng(6).uniform(0.0, 1.0, 5000), sample_rate=0.5,
        sampling="poisson")),
]


@pytest.mark.parametrize("name,build", CASES, ids=[c[0] for c in CASES])
def test_windowed_matches_full_support(name, build, monkeypatch):
    windowed, full = _curves(build, monkeypatch, per_record=name.startswith("per-record"))
    core = getattr(windowed._core, "inner", windowed._core)    # Poisson-sampled: Z's curve
    assert isinstance(core, statpriv._core.BoundedCurveCore), name   # a window was cut
    deep = _compare(windowed, full)
    # and far in the tails: eps where ln delta is about -1000 and about -2000
    for target in (-1000.0, -2000.0):
        e = full.epsilon(math.exp(target)) if target > -700 else _eps_at(full, target)
        deep |= _compare(windowed, full, eps=np.array([e]))
    assert deep, f"{name}: no comparison with ln delta < -300"


def _eps_at(curve, log_target):
    """eps with ln delta_plus(eps) ~ log_target, by bisection on the curve."""
    lo, hi = 0.0, 1.0
    while curve.log_delta(hi) > log_target and hi < 1e3:
        hi *= 2.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if curve.log_delta(mid) > log_target else (lo, mid)
    return lo


NOISES = [statpriv.Laplace(2.0), statpriv.Geometric(0.6), statpriv.Gaussian(1.5)]


@pytest.mark.parametrize("noise", NOISES, ids=repr)
def test_windowed_noise_matches_full_support(noise, monkeypatch):
    builds = [lambda: statpriv.counting(5000, 0.3, noise=noise)]
    if not isinstance(noise, statpriv.Gaussian):    # Gaussian + sampling: slow queries
        builds.append(lambda: statpriv.counting(2500, 0.05, sample_size=1500, noise=noise))
    for build in builds:
        windowed, full = _curves(build, monkeypatch, noisy_path=True)
        _compare(windowed, full, eps=np.array([-0.1, 0.0, 0.01, 0.05, 0.1, 0.3]))
    # Laplace / geometric noise: delta is exactly 0 from the pure-DP point on
    curve = statpriv.counting(20000, 0.3, noise=noise)
    if not isinstance(noise, statpriv.Gaussian):
        zero = noise.zero_point_up()
        assert curve.delta(zero) == 0.0
        assert curve.epsilon(0.0) == pytest.approx(zero, rel=1e-15)


def test_zero_point_survives_the_window(monkeypatch):
    # sampling without replacement: the ratio is bounded, delta = 0 beyond it
    _force_windows(monkeypatch)
    curve = statpriv.counting(10**6, 0.3, sample_size=2 * 10**5)
    assert isinstance(curve._core, statpriv._core.BoundedCurveCore)
    rate = 0.2
    eps0 = math.log1p(rate * 0.7 / 0.3) - math.log1p(-rate)
    assert curve.delta_plus(eps0 * (1 + 1e-12)) == 0.0
    assert curve.log_delta_plus(eps0 * 0.999) > -math.inf
    assert curve.epsilon(0.0) == pytest.approx(eps0, rel=1e-12)


# ---- tiny windows: the rest bound keeps every curve above the oracle -------

SMALL = [
    ("sample_size", dict(n=300, pi=0.3, sample_size=120)),
    ("poisson", dict(n=200, pi=0.45, sample_rate=0.6, sampling="poisson",
                     noise=statpriv.Laplace(1.0))),
    ("per-record", dict(n=None, pi=list(np.random.default_rng(7).uniform(0.1, 0.9, 150)))),
]


@pytest.mark.parametrize("name,kw", SMALL, ids=[c[0] for c in SMALL])
def test_tiny_window_stays_above_the_oracle(name, kw, monkeypatch):
    _force_windows(monkeypatch, drop=12.0)     # cut most of the support
    monkeypatch.setattr(counting_mod, "EXACT_LOG_RECORDS", 0)   # keep the tree's window
    kw = dict(kw)
    n, pi = kw.pop("n"), kw.pop("pi")
    curve = statpriv.counting(n, np.array(pi) if isinstance(pi, list) else pi, **kw)
    assert isinstance(curve._core, statpriv._core.BoundedCurveCore)
    eps = [-0.1, 0.0, 0.05, 0.2, 0.5, 1.0]
    for direction in ("plus", "minus"):
        ours = getattr(curve, f"log_delta_{direction}")(eps)
        if name == "poisson":   # its brute force takes seconds: stored in tests/data
            truth = oracle("noisy_counting_delta", n, pi, eps, ("laplace", 1.0),
                           sample_rate=0.6, sampling="poisson", direction=direction)
        else:
            truth = getattr(curve, f"delta_{direction}")(eps, precision="mp")
        for e, x, t in zip_equal(eps, ours, truth):
            assert t == 0 or x >= float(mpmath.log(t)) - 1e-13, (name, direction, e, x, t)


def test_tiny_window_secret_sample_stays_above_the_oracle(monkeypatch):
    _force_windows(monkeypatch, drop=12.0)
    curve = statpriv.secret_sample(400, 150, 170)
    assert isinstance(curve._core, statpriv._core.BoundedCurveCore)
    eps = [0.0, 0.05, 0.2, 0.5]
    for direction in ("plus", "minus"):
        ours = getattr(curve, f"log_delta_{direction}")(eps)
        truth = reference.secret_sample_delta(400, 150, 170, eps, direction=direction)
        for e, x, t in zip_equal(eps, ours, truth):
            assert t == 0 or x >= float(mpmath.log(t)) - 1e-13, (direction, e, x, t)


# ---- the product tree against mpmath -----------------------------------------

def _mp_poisson_binomial(probs):
    mpmath.mp.dps = 50
    pmf = [mpmath.mpf(1)]
    for p in probs:
        p = mpmath.mpf(float(p))
        new = [mpmath.mpf(0)] * (len(pmf) + 1)
        for i, x in enumerate(pmf):
            new[i] += x * (1 - p)
            new[i + 1] += x * p
        pmf = new
    return pmf


TREES = [
    np.array([0.1, 0.2, 0.2, 0.7, 1e-300, 5e-324, 1 - 2**-53, 1 - 2**-53, 0.5]),
    np.random.default_rng(3).uniform(0.0, 1.0, 200),
    np.concatenate([np.full(120, 0.3), np.full(90, 0.6), [1e-17, 0.5, 5e-324]]),
    np.concatenate([np.full(60, 1e-5), np.full(40, 1 - 1e-9), np.full(3, 0.999)]),
]


@pytest.mark.parametrize("drop", [3000.0, 25.0])
@pytest.mark.parametrize("case", range(len(TREES)))
def test_product_tree_matches_mpmath(case, drop, monkeypatch):
    monkeypatch.setattr(noisy, "DROP_NATS", drop)
    probs = TREES[case]
    first, log_pmf, log_rest = counting_mod.poisson_binomial_window(probs.copy())
    truth = _mp_poisson_binomial(probs[(probs > 0) & (probs < 1)])
    missing = mpmath.fsum(truth[:first]) + mpmath.fsum(truth[first + len(log_pmf):])
    for i, x in enumerate(log_pmf):
        hi = float(x)
        ours = mpmath.mpf(hi) + mpmath.mpf(float(x - np.longdouble(hi)))    # the longdouble, exactly
        t = mpmath.log(truth[first + i])
        rel = float(mpmath.expm1(ours - t))
        if drop >= 3000.0:
            assert abs(rel) <= 1e-15, (case, first + i, rel)   # Loader leaves: ~1e-16
        assert rel <= 1e-15, (case, first + i, rel)        # never above the truth
        missing += truth[first + i] - mpmath.exp(ours)
    # the cut mass (outside the window and inside it) is within the bound
    # the cut mass (beyond the ~1e-16 relative rounding of the kept atoms) is bounded
    assert missing <= mpmath.exp(log_rest) * (1 + 1e-12) + 1e-15, (case, drop)
    if drop >= 3000.0:
        assert missing < 1e-15


def test_per_record_curve_with_extreme_probabilities_matches_oracle(matches):
    pi = [5e-324, 1e-300, 1 - 2**-53, 0.3, 0.3, 0.7, 1e-17, 0.5]
    curve = statpriv.counting(None, pi)
    eps = [0.0, 0.1, 1.0, 3.0]
    for direction in ("plus", "minus"):
        ours = getattr(curve, f"log_delta_{direction}")(eps)
        truth = reference.counting_delta(len(pi) + 1, pi, eps, direction=direction)
        assert len(ours) == len(truth) == len(eps)
        for e, x, t in zip(eps, ours, truth):
            matches(x, t, what=f"{direction} eps={e}")   # asserts accuracy, no under-report


# ---- up-front refusals -----------------------------------------------------------

def test_too_large_window_is_refused_up_front():
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=r"window .* atoms.*GiB.*smaller n"):
        statpriv.counting(10**12, 0.3, noise=statpriv.Laplace(3.0))
    with pytest.raises(ValueError, match=r"smaller sample_size"):
        statpriv.counting(10**15, 0.5, sample_size=10**13)
    with pytest.raises(ValueError, match=r"smaller n"):
        statpriv.counting(10**14, 0.5, sample_rate=0.5, sampling="poisson",
                          noise=statpriv.Laplace(3.0))
    with pytest.raises(ValueError, match=r"smaller sample_size"):
        statpriv.secret_sample(10**15, 10**13, 10**14)
    assert time.perf_counter() - t0 < 5.0       # refused before any allocation


def test_too_costly_convolution_is_refused_up_front(monkeypatch):
    probs = np.random.default_rng(8).uniform(0.0, 1.0, 20000)
    _, work = counting_mod._product_tree_work(*np.unique(probs, return_counts=True),
                                              noisy.DROP_NATS)
    monkeypatch.setattr(counting_mod, "MAX_CONVOLUTION_WORK", work / 2)
    with pytest.raises(ValueError, match=r"multiply-adds.*fewer distinct values"):
        statpriv.counting(None, probs)
    monkeypatch.setattr(counting_mod, "MAX_CONVOLUTION_WORK", work * 2)
    statpriv.counting(None, probs)


def _no_grid_work(monkeypatch):
    """Fail if a grid's delta is evaluated or its sides connected: a refusal
    up front must come from the prediction alone (and its bounded probe)."""
    def forbidden(*args, **kwargs):
        raise AssertionError("grid work done before the cost check")
    for name in ("_evaluate", "_evaluate_mid", "_upper", "_lower"):
        monkeypatch.setattr(grid_pld, name, forbidden)


# grids whose work once ran for 6-24 s (found by the fuzz harness): delta-only
# curves whose loss reaches far at a fine grid, and a composition in which a
# nearly non-private count puts a 4e6-point grid beside a fine one
COSTLY_GRIDS = {
    "tiny Gaussian noise": lambda: statpriv.counting(
        31, 0.0, noise=statpriv.Gaussian(0.0144)).privacy_loss_distribution(0.01),
    "shuffle clones": lambda: statpriv.shuffle.clones(6962, 700).privacy_loss_distribution(1e-3),
    "privacy blanket": lambda: statpriv.partial_knowledge(
        318, 0.25, known=6).blanket.privacy_loss_distribution(),
    "sampled count, Gaussian noise": lambda: statpriv.counting(
        64, 1.1e-16, sample_size=7, noise=statpriv.Gaussian(0.1)).privacy_loss_distribution(),
    # (a grid given: one chosen from epsilon_error is coarsened instead, below)
    "compose": lambda: statpriv.compose(statpriv.dp.geometric(0.999),
                                        statpriv.counting(31, 4.6e-317),
                                        value_discretization_interval=2e-4).delta_bounds(1.0),
}


@pytest.mark.parametrize("name", sorted(COSTLY_GRIDS))
def test_costly_grids_are_refused_up_front(name, monkeypatch):
    # (predicted at 14-42 s on this machine: a limit 10x below the default
    # keeps the refusal certain on a faster one)
    monkeypatch.setattr(grid_pld, "MAX_SECONDS", 1.0)
    _no_grid_work(monkeypatch)
    with pytest.raises(ValueError, match=r"s of CPU, more than statpriv\.laws\.grid_pld\."
                                         r"MAX_SECONDS = 1;.*fits"):
        COSTLY_GRIDS[name]()


def test_grid_cost_suggests_a_grid_that_fits(monkeypatch):
    # a fixed price per delta makes the prediction deterministic
    monkeypatch.setattr(grid_pld.Bracket, "_per_point", lambda self, source, direction: 2e-5)
    laws = statpriv.counting(31, 0.0, noise=statpriv.Gaussian(0.0144)).laws
    with pytest.raises(ValueError, match="value_discretization_interval=0.01 needs") as info:
        laws.grid_bracket(0.01, 1e-15)
    fits = float(re.search(r"value_discretization_interval=(\S+) fits", str(info.value))[1])
    assert 0.01 < fits < 0.1
    bracket = laws.grid_bracket(fits, 1e-15)          # passes: construction only
    assert bracket.predicted_seconds()[1] <= grid_pld.MAX_SECONDS
    with pytest.raises(ValueError, match="MAX_SECONDS"):
        laws.grid_bracket(fits * 0.8, 1e-15)


def test_a_chosen_grid_over_the_work_allowed_is_coarsened(monkeypatch):
    """compose's own grid (from epsilon_error) over MAX_SECONDS becomes one
    that fits: a wider bracket, still holding the truth (the mpmath product
    of the two laws); the same grid given by the user is refused."""
    a, b = statpriv.counting(20, 0.3), statpriv.counting(30, 0.4)
    fine = statpriv.compose(a, b).grid_sides[("plus", True)].h
    monkeypatch.setattr(grid_pld.Bracket, "_per_point", lambda self, source, direction: 1e-6)
    monkeypatch.setattr(grid_pld, "MAX_SECONDS", 1e-3)
    coarse = statpriv.compose(a, b)
    assert coarse.grid_sides[("plus", True)].h > 5 * fine
    truth = float(statpriv.compose(a, b).delta(0.3, precision="mp"))
    lower, upper = coarse.delta_bounds(0.3)
    assert lower <= truth <= upper and upper - lower > 1e-6
    with pytest.raises(ValueError, match="MAX_SECONDS"):
        statpriv.compose(a, b, value_discretization_interval=fine)


def test_composition_cost_is_the_sum_of_its_parts(monkeypatch):
    from statpriv.accounting.composition import grid
    monkeypatch.setattr(grid_pld.Bracket, "_per_point", lambda self, source, direction: 1e-6)
    parts = [statpriv.counting(100, 0.5, noise=statpriv.Gaussian(s)) for s in (3.0, 3.1)]
    h, tail = 1e-2, 1e-12
    costs = [grid.part_bracket(p, h, tail).predicted_seconds()[1] for p in parts]
    # each part alone fits, the two together do not
    monkeypatch.setattr(grid_pld, "MAX_SECONDS", 0.6 * sum(costs))
    assert max(costs) < grid_pld.MAX_SECONDS
    statpriv.compose(parts[0], value_discretization_interval=h, tail_mass_truncation=tail)
    _no_grid_work(monkeypatch)
    with pytest.raises(ValueError, match=r"compose of 2 mechanisms.*predicted to cost"):
        statpriv.compose(*parts, value_discretization_interval=h, tail_mass_truncation=tail)


def test_window_width_bound_holds():
    # the Bernstein bound used for refusals is an upper bound on the real window
    for probs in (np.full(5000, 0.5), np.random.default_rng(9).uniform(0, 1, 8000),
                  np.full(3000, 1e-3)):
        width, _ = counting_mod._product_tree_work(*np.unique(probs, return_counts=True),
                                                   noisy.DROP_NATS)
        _, log_pmf, _ = counting_mod.poisson_binomial_window(probs)
        assert len(log_pmf) <= width


def test_progress_reports_and_interrupt():
    values, counts = np.unique(np.random.default_rng(10).uniform(0, 1, 3000), return_counts=True)
    args = (values, counts.astype(np.float64), 3000.0, 10**7)
    plain = _kernels.binomial_sum_window(*args)

    class Bar:
        done = 0.0

        def update(self, work):
            self.done += work

    bar = Bar()
    reported = _kernels.binomial_sum_window(*args, progress=bar, step=1.0)
    assert reported[0] == plain[0] and np.array_equal(reported[1], plain[1])
    _, estimate = counting_mod._product_tree_work(values, counts.astype(np.float64), 3000.0)
    assert 0.5 * estimate <= bar.done <= estimate      # the estimate is an over-estimate

    class Stop:
        def update(self, work):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _kernels.binomial_sum_window(*args, progress=Stop(), step=1.0)


def test_progress_bar_path_builds_the_same_curve(monkeypatch):
    probs = np.random.default_rng(11).uniform(0, 1, 2000)
    plain = statpriv.counting(None, probs)
    monkeypatch.setattr(_progress, "SECONDS", 0.0)    # tqdm, disabled off a tty
    barred = statpriv.counting(None, probs)
    eps = [0.0, 0.05, 0.5]
    assert np.array_equal(plain.log_delta(eps), barred.log_delta(eps))


# ---- policy: noiseless pair curves are exact in the deep tail ---------------


@pytest.mark.parametrize("args", [(20000, 6000, 8000), (10**5, 3 * 10**4, 4 * 10**4)])
def test_deep_tail_of_noiseless_curves_is_exact(args):
    # ln delta ~ -4254 and ~ -21215: far below any window's drop; the full
    # support (at most counting.FULL_SUPPORT atoms) keeps it exact
    curve = statpriv.secret_sample(*args)
    assert not isinstance(curve._core, statpriv._core.BoundedCurveCore)
    truth = float(oracle("secret_sample_log_delta_plus", *args, 1.0))   # helpers, stored
    ours = curve.log_delta_plus(1.0)
    assert abs(ours - truth) <= max(1e-10, 8 * 2.2e-16 * abs(truth)), (ours, truth)


def test_windowed_zero_points_are_exact(monkeypatch):
    # a window far from the extreme atoms: epsilon(0) is still the smallest
    # double with delta = 0 on the true curve (closed form at j = m and j = 0)
    _force_windows(monkeypatch)
    n, m, pi = 10**6, 2 * 10**5, 0.3
    curve = statpriv.counting(n, pi, sample_size=m)
    assert isinstance(curve._core, statpriv._core.BoundedCurveCore)
    with mpmath.workdps(40):
        r, p = mpmath.mpf(m) / n, mpmath.mpf(pi)
        zeros = {"plus": mpmath.log1p(r * (1 - p) / p) - mpmath.log1p(-r),
                 "minus": mpmath.log1p(r * p / (1 - p)) - mpmath.log1p(-r)}
        for direction, z in zeros.items():
            e0 = curve.epsilon(0.0, direction=direction)
            assert mpmath.mpf(e0) >= z > mpmath.mpf(math.nextafter(e0, 0.0)), direction
            assert getattr(curve, f"delta_{direction}")(e0) == 0.0
            assert getattr(curve, f"log_delta_{direction}")(math.nextafter(e0, 0.0)) > -math.inf


def test_windowed_noisy_zero_point_is_the_laws_ratio_bound(monkeypatch):
    # Gaussian noise on sampled laws: sup f_P/f_Q = P(m)/Q(m) (each noisy
    # density is a mixture of the atoms' pairs, attained as x -> inf), so
    # delta_plus is 0 exactly from the closed form at j = m on, window or not
    monkeypatch.setattr(laws_mod, "FULL_SUPPORT", 0)
    monkeypatch.setattr(noisy, "DROP_NATS", 50.0)
    curve = statpriv.secret_sample(2000, 500, 600, noise=statpriv.Gaussian(1.0))
    assert isinstance(curve._core, statpriv._core.BoundedCurveCore)
    with mpmath.workdps(40):
        z = mpmath.log(mpmath.mpf(601) / 101)       # (K+1)/(K-m+1) at j = m
        e0 = curve.epsilon(0.0)
        assert mpmath.mpf(e0) >= z > mpmath.mpf(math.nextafter(e0, 0.0))
    assert curve.log_delta_plus(math.nextafter(e0, 0.0)) > -math.inf


def test_composed_distribution_is_priced_before_its_tilts_are_read_back(monkeypatch):
    # 3 x dp.gaussian(0.5) to 1e-300: its distribution reads back ~78 tilts a
    # side (~4 s of CPU); a limit far below keeps the refusal certain, and it
    # comes after one read-back a side at most
    composed = statpriv.compose(statpriv.dp.gaussian(0.5), times=3,
                                tail_mass_truncation=1e-300)
    monkeypatch.setattr(grid_pld, "MAX_SECONDS", 0.05)
    clock = time.process_time()
    with pytest.raises(ValueError, match=r"reads the composition back at \d+\+ tilts.*"
                                         r"MAX_SECONDS = 0\.05;.*tail_mass_truncation"):
        composed.privacy_loss_distribution(0.001)
    side = composed.grid_sides[("plus", True)]
    assert len(side.missing_readbacks()) > 20            # the tilts were not read back
    assert time.process_time() - clock < 2.0
    monkeypatch.undo()
    small = statpriv.compose(statpriv.dp.gaussian(3.0), times=3)
    exact = statpriv.dp.gaussian(3.0 / math.sqrt(3.0)).delta(1.0)    # the k-fold Gaussian
    assert exact <= small.privacy_loss_distribution().delta(1.0) <= exact * (1 + 1e-3)


def test_closed_form_grids_are_priced_without_a_probe(monkeypatch):
    """A sampled Gaussian's grid (and a DP kind's) is priced at
    CLOSED_FORM_SECONDS a point, never timed: the grid a refinement settles
    on near REFINE_SECONDS -- and so the bracket -- is the same on every run
    (probes timed on a loaded machine moved it).  The same composition with
    every timing read 100x slower gives the same grid and the same bits."""
    def build():
        curve = statpriv.compose(statpriv.dp.gaussian(0.8, sampling_prob=0.001),
                                 statpriv.dp.gaussian(20), times=50)
        return curve.grid_sides[("plus", True)].h, curve.epsilon_bounds(1e-5)

    before = build()
    real = grid_pld.timed

    def slow(fn, *args):
        value, seconds = real(fn, *args)
        return value, 100.0 * seconds
    monkeypatch.setattr(grid_pld, "timed", slow)
    for sampled in (statpriv.dp.gaussian(0.8, sampling_prob=0.001),
                    statpriv.dp.gaussian(1.0, sampling_prob=0.3, relation="replace_one")):
        bracket = sampled.laws.grid_bracket(1e-3, 1e-15)
        assert bracket._per_point(bracket._uppers["plus"], "plus") == \
            grid_pld.CLOSED_FORM_SECONDS
    assert build() == before
