"""Certified intervals (curve.delta_interval, statpriv.oracle.arb): the float
path and the stored mpmath references lie inside them, they are narrow, and
the kinds not covered, bad input and a missing python-flint fail loudly."""
import math
import sys

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import statpriv
from helpers import (EPS, FAR_TAIL_LOG_DELTA, NOISY_EPS, STATISTICAL_PRIVACY_VALUES, import_extra,
                     oracle, zip_equal)
from mechanisms import MECHANISMS, build

flint = import_extra("flint")

# the rows of tests/mechanisms.py whose kind has certified laws
COVERED = {"counting-n1", "counting-half", "counting-large", "counting-pi-tiny",
           "counting-pi-near-1", "counting-pi-0", "per-record-small", "per-record-200",
           "sample-size-all", "dp-laplace", "dp-laplace-sensitivity", "dp-gaussian",
           "dp-gaussian-sensitivity", "dp-gaussian-wide", "dp-geometric", "dp-gaussian-replace",
           "log-pmfs-mirrored", "log-pmfs-disjoint", "pk-uniform", "secret-sample",
           "secret-sample-no-positives", "secret-sample-all",
           "sample-size-10", "sample-size-large-n", "poisson-0.1", "poisson-rate-1",
           "laplace-iid", "laplace-sampled", "laplace-per-record", "gaussian-iid",
           "gaussian-sampled", "gaussian-poisson", "gaussian-per-record", "geometric-iid",
           "geometric-sampled", "geometric-per-record", "with-replacement-30",
           "with-replacement-100", "with-replacement-m-above-n", "with-replacement-n-1",
           "compose-exact", "compose-grid", "thresholded-active", "thresholded-passive",
           "thresholded-per-record", "thresholded-out-of-reach", "dp-gaussian-sampled",
           "dp-gaussian-sampled-replace", "dp-laplace-sampled", "dp-laplace-sampled-replace",
           "pk-worst-case", "pk-worst-case-known", "shuffle-rr", "shuffle-rr-large",
           "dp-geometric-sensitivity", "dp-geometric-sampled", "dp-geometric-sampled-replace",
           "k-anonymity-lower", "k-anonymity-upper", "correlated-pair", "correlated-worst-case",
           "correlated-perfect", "correlated-histogram", "subsample-counting-poisson",
           "dp-randomized-response", "dp-randomized-response-k5",
           "subsample-rr-without-replacement"}
# a grid composition's float delta is the upper end of its grid bracket (not
# the truth): its interval is the exact product's (test_grid_composition_...)
GRID_ROWS = {"compose-grid"}
NOISELESS_REL = 1e-12
NOISY_REL = 1e-10          # the noise paths and the worst-case DP closed forms: float kernels
DP_ROWS = {"dp-laplace", "dp-laplace-sensitivity", "dp-gaussian", "dp-gaussian-sensitivity",
           "dp-gaussian-wide", "dp-geometric", "dp-gaussian-replace", "dp-gaussian-sampled",
           "dp-geometric-sensitivity", "dp-geometric-sampled", "dp-geometric-sampled-replace",
           "dp-gaussian-sampled-replace", "dp-laplace-sampled", "dp-laplace-sampled-replace"}
NOISY_ROWS = DP_ROWS | {row for row in COVERED if row.split("-")[0] in
                        ("laplace", "gaussian", "geometric")}
ROWS = {m.id: m for m in MECHANISMS}
NOISE_KINDS = {"laplace": statpriv.Laplace, "gaussian": statpriv.Gaussian,
               "geometric": statpriv.Geometric}
# eps of the default run (n = 1e6 at eps >= 1: windows of ~1e5 atoms, seconds)
FAST_EPS = [0.0, 1e-4, 0.01, 0.1, -0.5, math.inf, -math.inf]


def _log_slack(log_value, rel):
    """ln(1 + rel), or a few ulps of ln delta where a float log cannot resolve rel."""
    return max(math.log1p(rel), 8 * math.ulp(abs(log_value)))


def assert_inside(curve, eps, rel, direction="max"):
    """The float path's delta (as ln delta) inside the certified ln interval,
    the ends widened by the relative tolerance rel."""
    lower, upper = curve.log_delta_interval(eps, direction)
    ours = curve._log_delta(eps, direction, "float")
    for e, lo, hi, x in zip_equal(eps, lower, upper, ours):
        assert lo <= hi, f"{curve} eps={e} {direction}: empty interval ({lo}, {hi})"
        if x == -math.inf:
            assert lo == -math.inf, f"{curve} eps={e}: float delta = 0, certified lower {lo}"
            continue
        assert lo - _log_slack(x, rel) <= x <= hi + _log_slack(x, rel), \
            f"{curve} eps={e} {direction}: ln delta {x} outside [{lo}, {hi}]"


def test_the_covered_rows_are_the_expected_ones():
    covered = set()
    for row in MECHANISMS:
        curve = build(row.spec)
        try:
            # (no eps: the kind's laws are asked for, no sum is made -- the
            # sums are test_float_path_inside_the_interval's)
            assert curve.delta_interval(np.zeros(0))[0].shape == (0,)
        except NotImplementedError as err:
            assert curve.description in str(err)
            continue
        covered.add(row.id)
    assert covered == COVERED


# the rows whose sums take ~0.5 s: every direction in the exhaustive run
# (test_float_path_inside_the_interval_every_eps), delta = max by default
HEAVY_ROWS = {"counting-large", "shuffle-rr-large", "with-replacement-100"}


@pytest.mark.parametrize("row, direction", [
    (row, d) for row in sorted(COVERED - GRID_ROWS) for d in ("plus", "minus", "max")
    if d == "max" or row not in HEAVY_ROWS])
def test_float_path_inside_the_interval(row, direction):
    curve = build(ROWS[row].spec)
    rel = NOISY_REL if row in NOISY_ROWS else NOISELESS_REL
    # n = 1e6 at eps = inf: the window reaches P(n) = pi^(n-1), the whole support (~3 s)
    eps = [e for e in FAST_EPS if e < math.inf] if row == "counting-large" else FAST_EPS
    assert_inside(curve, eps, rel, direction)


@pytest.mark.exhaustive
@pytest.mark.parametrize("row", sorted(COVERED - GRID_ROWS))
def test_float_path_inside_the_interval_every_eps(row):
    curve = build(ROWS[row].spec)
    rel = NOISY_REL if row in NOISY_ROWS else NOISELESS_REL
    eps = list(EPS) + [2.0, 10.0, -3.0, 1e-8]
    if row == "counting-large":            # n = 1e6: eps <= 1 (windows of ~1e5 atoms)
        eps = [e for e in eps if e <= 1.0]
    for direction in ("plus", "minus", "max"):
        assert_inside(curve, eps, rel, direction)


@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 3000), pi=st.floats(0.0, 1.0),
       eps=st.floats(-3.0, 3.0, allow_nan=False))
def test_random_counts_inside(n, pi, eps):
    assert_inside(statpriv.counting(n, pi), [eps], NOISELESS_REL)


@settings(max_examples=12, deadline=None)
@given(n=st.integers(1, 400), pi=st.floats(0.0, 1.0), kind=st.sampled_from(sorted(NOISE_KINDS)),
       scale=st.floats(0.05, 5.0), eps=st.floats(-2.0, 4.0, allow_nan=False))
def test_random_noisy_counts_inside(n, pi, kind, scale, eps):
    noise = NOISE_KINDS[kind](min(scale / 5.0, 0.99) if kind == "geometric" else scale)
    assert_inside(statpriv.counting(n, pi, noise=noise), [eps], NOISY_REL)


@settings(max_examples=10, deadline=None)
@given(probs=st.lists(st.floats(0.0, 1.0), min_size=0, max_size=30),
       eps=st.floats(-2.0, 2.0, allow_nan=False))
def test_random_per_record_inside(probs, eps):
    assert_inside(statpriv.counting(None, probs), [eps], NOISELESS_REL)


@pytest.mark.parametrize("n, pi, eps, text", STATISTICAL_PRIVACY_VALUES)
def test_published_values_inside(n, pi, eps, text):
    lower, upper = statpriv.counting(n, pi).delta_interval(eps)
    assert mpmath.mpf(lower) <= mpmath.mpf(text) <= mpmath.mpf(upper)
    # 20 stored digits: the interval is far narrower than their rounding
    assert (upper - lower) <= 1e-15 * lower


def _assert_far_tail_inside(n, text):
    lower, upper = statpriv.counting(n, 0.3).log_delta_interval(0.05)
    assert lower <= float(mpmath.mpf(text)) + 1e-12 and float(mpmath.mpf(text)) - 1e-12 <= upper
    assert upper - lower < 1e-10


def test_far_tail_inside():
    _assert_far_tail_inside(*FAR_TAIL_LOG_DELTA[0])


@pytest.mark.exhaustive
def test_far_tail_inside_n_1e7():
    _assert_far_tail_inside(*FAR_TAIL_LOG_DELTA[1])


@pytest.mark.parametrize("n", [1, 10, 100])
@pytest.mark.parametrize("pi", [0.01, 0.3, 0.5, 0.99, 1e-9, 0.999999999])
def test_mpmath_references_inside(n, pi):
    curve = statpriv.counting(n, pi)
    for direction in ("plus", "minus"):
        refs = oracle("counting_delta", n, pi, list(EPS), direction=direction)
        lower, upper = curve.delta_interval(EPS, direction)
        for e, lo, hi, r in zip_equal(EPS, lower, upper, refs):
            # the reference is good to ~1e-45: an interval ~1e-30 wide holds it
            assert mpmath.mpf(lo) * (1 - mpmath.mpf("1e-40")) <= r, (n, pi, e, direction)
            assert r <= mpmath.mpf(hi) * (1 + mpmath.mpf("1e-40")), (n, pi, e, direction)


def _assert_reference_inside(lower, upper, refs, rel, what, absolute=0):
    for lo, hi, r in zip_equal(lower, upper, refs):
        assert mpmath.mpf(lo) * (1 - mpmath.mpf(rel)) - absolute <= r, (what, lo, r)
        assert r <= mpmath.mpf(hi) * (1 + mpmath.mpf(rel)) + absolute, (what, hi, r)


@pytest.mark.parametrize("n, m, K", [(2, 1, 1), (40, 20, 39), (500, 1, 0), (500, 499, 499),
                                     (500, 50, 10), (500, 50, 250), (500, 500, 100)])
def test_secret_sample_references_inside(n, m, K):
    curve = statpriv.secret_sample(n, m, K)
    for direction in ("plus", "minus"):
        refs = oracle("secret_sample_delta", n, m, K, list(EPS), direction=direction)
        lower, upper = curve.delta_interval(EPS, direction)
        _assert_reference_inside(lower, upper, refs, "1e-40", (n, m, K, direction))


# the stored mpmath brute force of sampled counts (the calls of tests/test_sampling.py)
SAMPLED_REFERENCES = (
    [(10, pi, {"sample_size": 5}) for pi in (0.01, 0.5, 0.99, 1e-9)]
    + [(1000, pi, {"sample_size": m}) for pi in (0.01, 0.5, 0.99, 1e-9) for m in (1, 10, 100, 999)]
    + [(400, pi, {"sample_rate": rate, "sampling": "poisson"}) for pi in (0.01, 0.5)
       for rate in (0.01, 0.3, 1.0)])


@pytest.mark.parametrize("n, pi, sampling", SAMPLED_REFERENCES)
def test_sampled_references_inside(n, pi, sampling):
    curve = statpriv.counting(n, pi, **sampling)
    for direction in ("plus", "minus"):
        refs = oracle("counting_delta", n, pi, list(EPS), direction=direction, **sampling)
        lower, upper = curve.delta_interval(EPS, direction)
        _assert_reference_inside(lower, upper, refs, "1e-40", (n, pi, sampling, direction))


@pytest.mark.parametrize("n, pi, m", [(1, 0.3, 1), (2, 0.25, 3), (3, 0.7, 4), (4, 0.1, 3),
                                     (3, 1.0, 3), (3, 1e-9, 2)])
def test_with_replacement_enumeration_inside(n, pi, m):
    """Draws with replacement: the definition enumerated in exact rationals
    (tests/test_with_replacement.py) inside the intervals."""
    import test_with_replacement as enumeration
    P, Q = enumeration._enumerated(n, pi, m)
    eps = [0.0, 1e-3, 0.3, 1.0, 3.0, -0.5]
    curve = statpriv.counting(n, pi, sample_size=m, sampling="with_replacement")
    for direction, (a, b) in (("plus", (P, Q)), ("minus", (Q, P))):
        refs = [enumeration._hockey(a, b, e) for e in eps]
        lower, upper = curve.delta_interval(eps, direction)
        _assert_reference_inside(lower, upper, refs, "1e-40", (n, pi, m, direction))


def test_with_replacement_far_tail_inside():
    """delta ~ 20^-400 (the top atom, far below the double range)."""
    curve = statpriv.counting(20, 1e-30, sample_size=400, sampling="with_replacement")
    eps = curve.epsilon(0.0) * (1 - 1e-4)
    lower, upper = curve.log_delta_interval(eps)
    assert -math.inf < lower <= upper < -750
    assert upper - lower < 1e-10
    assert_inside(curve, [eps], NOISELESS_REL)


def _assert_noisy_references_inside(curve, n, pi, noise, eps=NOISY_EPS, absolute="1e-60",
                                    **kwargs):
    """The stored quadratures and sums of tests/test_noise.py inside the
    intervals (to 1e-25 relative, and 1e-60 absolute where delta ~ 0)."""
    for direction in ("plus", "minus"):
        refs = oracle("noisy_counting_delta", n, pi, list(eps), noise,
                      direction=direction, **kwargs)
        lower, upper = curve.delta_interval(eps, direction)
        _assert_reference_inside(lower, upper, refs, "1e-25", (n, pi, noise, kwargs, direction),
                                 absolute=mpmath.mpf(absolute))


@pytest.mark.parametrize("noise", [("laplace", 0.5), ("laplace", 3.0), ("gaussian", 0.05),
                                   ("gaussian", 1.0), ("gaussian", 3.0), ("geometric", 0.3),
                                   ("geometric", 0.9)])
@pytest.mark.parametrize("n, pi", [(1, 0.5), (2, 0.3), (10, 0.01), (100, 0.5), (300, 0.99)])
def test_noisy_references_inside(n, pi, noise):
    curve = statpriv.counting(n, pi, noise=NOISE_KINDS[noise[0]](noise[1]))
    _assert_noisy_references_inside(curve, n, pi, noise)


@pytest.mark.parametrize("noise", [("laplace", 1.0), ("gaussian", 0.05), ("gaussian", 2.0),
                                   ("geometric", 0.5)])
@pytest.mark.parametrize("sampling", [{"sample_size": 12},
                                      {"sample_rate": 0.25, "sampling": "poisson"}])
def test_sampled_noisy_references_inside(noise, sampling):
    curve = statpriv.counting(60, 0.3, noise=NOISE_KINDS[noise[0]](noise[1]), **sampling)
    _assert_noisy_references_inside(curve, 60, 0.3, noise, **sampling)


@pytest.mark.parametrize("noise, eps", [(("gaussian", 1.0), 20.0), (("laplace", 0.1), 9.0),
                                        (("geometric", 0.0005), 7.0)])
def test_tiny_noisy_references_inside(noise, eps):
    """delta < 1e-100: the relative bar alone (no absolute slack)."""
    curve = statpriv.counting(400, 0.5, noise=NOISE_KINDS[noise[0]](noise[1]))
    assert curve.log_delta(eps) < math.log(1e-100)
    _assert_noisy_references_inside(curve, 400, 0.5, noise, eps=[eps], absolute="0")


@pytest.mark.parametrize("noise", [("laplace", 2.0), ("gaussian", 1.5), ("geometric", 0.6)])
def test_per_record_noisy_references_inside(noise):
    pi = [0.1, 0.5, 0.5, 0.9, 0.02, 1.0, 0.0, 0.7]
    curve = statpriv.counting(None, pi, noise=NOISE_KINDS[noise[0]](noise[1]))
    _assert_noisy_references_inside(curve, 9, pi, noise)


@pytest.mark.parametrize("noise", [statpriv.Laplace(0.5), statpriv.Geometric(0.3),
                                   statpriv.Gaussian(0.7), statpriv.Gaussian(0.05),
                                   statpriv.Gaussian(30.0)], ids=repr)
@pytest.mark.parametrize("n, pi, sampling", [
    (1, 0.3, {}), (2, 0.0, {}), (5, 1.0, {}), (50, 0.5, {}), (1000, 1e-6, {}),
    (60, 0.3, {"sample_size": 1}), (60, 0.0, {"sample_size": 12}),
    (60, 1.0, {"sample_rate": 0.25, "sampling": "poisson"}), (None, [0.1, 0.5, 0.9, 0.0, 1.0], {}),
    (None, [0.1, 0.5, 0.9], {"sample_rate": 0.4, "sampling": "poisson"})])
def test_noisy_edges_inside(noise, n, pi, sampling):
    """Edges: one record, known records (pi 0 or 1), pi = 1/2 (at eps = 0
    an atom's sign is lost in its ball), delta ~ 1e-300 and below (eps = 12)."""
    curve = statpriv.counting(n, pi, noise=noise, **sampling)
    for direction in ("plus", "minus", "max"):
        assert_inside(curve, [0.0, 0.3, 3.0, 12.0, -1.0, math.inf, -math.inf], NOISY_REL,
                      direction)


DP_EPS = [-1.0, 0.0, 0.01, 0.1, 1.0, 5.0]


@pytest.mark.parametrize("factory, name, param", [
    (statpriv.dp.laplace, "dp_laplace_delta", 1.0), (statpriv.dp.laplace, "dp_laplace_delta", 3.0),
    (statpriv.dp.gaussian, "dp_gaussian_delta", 0.5),
    (statpriv.dp.gaussian, "dp_gaussian_delta", 1.0),
    (statpriv.dp.geometric, "dp_geometric_delta", 0.3),
    (statpriv.dp.geometric, "dp_geometric_delta", 0.9)])
def test_dp_references_inside(factory, name, param):
    """The stored mpmath quadratures inside the closed forms' balls (to 1e-30
    relative, and 1e-60 absolute: at eps0 = 1/b, where delta = 0, the
    quadrature returns ~1e-68)."""
    lower, upper = factory(param).delta_interval(DP_EPS)
    _assert_reference_inside(lower, upper, oracle(name, param, DP_EPS), "1e-30", (name, param),
                             absolute=mpmath.mpf("1e-60"))


# compositions: the exact product of the parts' laws (statpriv.oracle.arb.ProductLaws)
COMPOSE_EPS = [-0.1, 0.0, 0.05, 0.2, 0.5, 1.0, 3.0]


@pytest.mark.parametrize("parts, times", [
    ((statpriv.counting(6, 0.3), statpriv.counting(5, 0.6)), 1),
    ((statpriv.counting(1, 0.5), statpriv.counting(4, 1e-9)), 2),
    ((statpriv.counting(None, [0.1, 0.9, 0.5]), statpriv.dp.geometric(0.4)), 1),
    ((statpriv.counting(8, 0.2, sample_size=3), statpriv.secret_sample(9, 4, 3)), 1)])
def test_composition_references_inside(parts, times):
    """The mpmath brute force of the product laws (statpriv.oracle.composed_delta,
    the calls of tests/test_composition.py) inside the intervals of the exact
    and of the grid composition (to 1e-13: the brute force takes the parts'
    float log-pmfs as exact, ~1e-16 off the laws), the exact product's float
    path inside too."""
    from statpriv import oracle as mp_oracle
    discrete = [c for c in parts if c.laws.has_log_pmfs]
    exact = statpriv.compose(*parts, times=times, exact=True) if len(parts) * times == 2 else None
    grid = statpriv.compose(*parts, times=times)
    for direction in ("plus", "minus", "max"):
        if len(discrete) == len(parts):
            laws = [(x.log_p, x.log_q) for x in (c.log_pmfs() for c in parts)] * times
            refs = mp_oracle.composed_delta(laws, COMPOSE_EPS, direction)
            for curve in (grid, exact):
                if curve is not None:
                    lower, upper = curve.delta_interval(COMPOSE_EPS, direction)
                    _assert_reference_inside(lower, upper, refs, "1e-13", (parts, direction))
        if exact is not None:
            assert_inside(exact, COMPOSE_EPS + [math.inf, -math.inf], NOISELESS_REL, direction)


@pytest.mark.parametrize("direction", ["plus", "minus", "max"])
def test_grid_composition_interval_is_the_truth_inside_the_bracket(direction):
    """A grid composition's interval is the exact product's: inside the grid's
    certified bracket (delta_bounds), far narrower, and the same interval as
    compose(..., exact=True) where both exist."""
    a, b = statpriv.counting(30, 0.3), statpriv.dp.geometric(0.5)
    grid, exact = statpriv.compose(a, b), statpriv.compose(a, b, exact=True)
    eps = [-0.5, 0.0, 0.1, 0.5, 2.0]
    lower, upper = grid.delta_interval(eps, direction)
    exact_lower, exact_upper = exact.delta_interval(eps, direction)
    assert np.array_equal(lower, exact_lower) and np.array_equal(upper, exact_upper)
    bracket_lower, bracket_upper = grid.delta_bounds(eps, direction)
    for lo, hi, blo, bhi in zip_equal(lower, upper, bracket_lower, bracket_upper):
        assert blo * (1 - 1e-12) <= lo <= hi <= bhi * (1 + 1e-12)
        assert hi - lo <= 4e-16 * hi


def test_composition_of_a_passive_thresholded_count():
    """A passive attacker's joint law is a pair: its product with a count is
    certified, inside the grid's bracket; an active attacker's max of pairs
    is no pair and its composition refuses."""
    count = statpriv.counting(20, 0.4)
    grid = statpriv.compose(statpriv.thresholded(40, 0.2, 10, known=8), count)
    eps = [0.0, 0.1, 0.5, 1.0]
    for direction in ("plus", "minus", "max"):
        lower, upper = grid.delta_interval(eps, direction)
        bracket_lower, bracket_upper = grid.delta_bounds(eps, direction)
        for lo, hi, blo, bhi in zip_equal(lower, upper, bracket_lower, bracket_upper):
            assert blo * (1 - 1e-12) <= lo <= hi <= bhi * (1 + 1e-12)
            assert hi - lo <= 4e-16 * hi
    active = statpriv.thresholded(40, 0.2, 10, known=8, attacker="active")
    with pytest.raises(NotImplementedError, match="no certified interval"):
        statpriv.compose(active, count).delta_interval(0.1)


def test_composition_with_repeats_and_an_accountant():
    """times and an Accountant's counts repeat a factor: compose(c, times=3)
    against c composed with itself three times by hand (exact=True twice)."""
    c = statpriv.counting(12, 0.3)
    eps = [0.0, 0.3, 1.0]
    lower, upper = statpriv.compose(c, times=3).delta_interval(eps)
    from statpriv import oracle as mp_oracle
    refs = mp_oracle.composed_delta([(c.log_pmfs().log_p, c.log_pmfs().log_q)] * 3, eps, "max")
    _assert_reference_inside(lower, upper, refs, "1e-13", "times=3")


def test_too_large_a_product_is_refused_up_front():
    """Refused from the parts' window sizes, before any product is built."""
    from statpriv.oracle import arb
    built = []
    original = arb.ProductLaws.window
    try:
        arb.ProductLaws.window = lambda self, drop: built.append(drop) or original(self, drop)
        for curve in (statpriv.compose(statpriv.counting(10 ** 4, 0.3), times=3),
                      statpriv.compose(statpriv.counting(100, 0.3), times=10 ** 6)):
            with pytest.raises(ValueError, match="Arb terms"):
                curve.delta_interval(0.1)
    finally:
        arb.ProductLaws.window = original
    assert built == []


@pytest.mark.parametrize("attacker", ["active", "passive"])
@pytest.mark.parametrize("case", range(6))
def test_thresholded_references_inside(case, attacker):
    """The stored mpmath enumerations of tests/test_thresholding.py (the same
    calls) inside the intervals; the float path inside, with eps = +-inf."""
    import test_thresholding
    _, args, kwargs, eps = test_thresholding.CASES[case]
    curve = statpriv.thresholded(*args, **kwargs, attacker=attacker)
    for direction in ("plus", "minus"):
        refs = oracle("thresholded_delta", *args, list(eps), direction=direction,
                      **dict(kwargs, attacker=attacker, max_terms=1e8))
        lower, upper = curve.delta_interval(eps, direction)
        _assert_reference_inside(lower, upper, refs, "1e-30", (args, attacker, direction))
        assert_inside(curve, list(eps) + [math.inf, -math.inf], NOISELESS_REL, direction)


@pytest.mark.parametrize("attacker", ["active", "passive"])
def test_thresholded_is_narrow_and_out_of_reach_is_zero(attacker):
    """n = 1e4, 100 known: the Arb ends within 1e-25 relative; a threshold
    out of reach (nothing ever released): delta = 0 at eps >= 0, exactly for
    one pair (active), within the weights' balls for the joint law."""
    from statpriv.oracle import arb
    curve = statpriv.thresholded(10 ** 4, 0.3, 3000, known=100, attacker=attacker)
    laws = curve.laws.certified_laws()
    flint.ctx.prec = arb.PRECISION_BITS
    try:
        enclose = (arb._max_of_sums if attacker == "active" else arb._window_sums)
        lower, upper = enclose(laws, [0.1], "max", [curve.log_delta(0.1)])[0]
        assert lower.lower() > 0
        assert (upper.upper() - lower.lower()) / lower.lower() < 1e-25
    finally:
        flint.ctx.prec = 53
    far = statpriv.thresholded(10, 0.5, 12, known=3, attacker=attacker)
    lower, upper = far.delta_interval([0.0, 1.0])
    assert np.array_equal(lower, np.zeros(2))
    assert np.all(upper <= (0.0 if attacker == "active" else 1e-50))


def test_too_many_thresholded_pairs_are_refused_up_front():
    curve = statpriv.thresholded(2 * 10 ** 5, 0.5, 10 ** 5, known=10 ** 4, attacker="active")
    with pytest.raises(ValueError, match="Arb terms"):
        curve.delta_interval(0.1)


SAMPLED_DP_EPS = [-1.0, 1e-9, 1.0, 8.0]


@pytest.mark.parametrize("relation", ["add_remove", "replace_one"])
@pytest.mark.parametrize("q", [1e-6, 0.5])
@pytest.mark.parametrize("param", [0.5, 20.0])
@pytest.mark.parametrize("kind", ["gaussian", "laplace"])
def test_sampled_dp_references_inside(kind, param, q, relation):
    """The stored mixture quadratures of tests/test_dp_sampled.py (the same
    calls) inside the intervals (to 1e-20 relative, 1e-60 absolute where
    delta = 0), and the float path inside on a grid of eps with the edges."""
    curve = getattr(statpriv.dp, kind)(param, sampling_prob=q, relation=relation)
    for direction in ("plus", "minus"):
        refs = oracle("dp_sampled_delta", kind, param, q, SAMPLED_DP_EPS, relation=relation,
                      sensitivity=1, direction=direction)
        lower, upper = curve.delta_interval(SAMPLED_DP_EPS, direction)
        _assert_reference_inside(lower, upper, refs, "1e-20", (kind, param, q, relation),
                                 absolute=mpmath.mpf("1e-60"))
        assert_inside(curve, [-math.inf, -5.0, -0.5, 0.0, 5e-324, 0.01, 0.3, 4.0, 30.0, 1e300,
                              math.inf], NOISY_REL, direction)


@pytest.mark.parametrize("kind, param", [("gaussian", 1.0), ("laplace", 1.0)])
@pytest.mark.parametrize("relation", ["add_remove", "replace_one"])
def test_sampled_dp_is_narrow_and_edges_are_exact(kind, param, relation):
    """The Arb balls within 1e-40 relative at eps = 0.1; Laplace replace-one
    exactly 0 past its zero point, 1 - e^eps below minus it; q near 0 and 1."""
    from statpriv.oracle import arb
    curve = getattr(statpriv.dp, kind)(param, sampling_prob=0.1, relation=relation)
    laws = curve.laws.certified_laws()
    flint.ctx.prec = arb.PRECISION_BITS
    try:
        for direction in ("plus", "minus"):
            ball = laws.delta_ball(flint.arb(0.1), direction)
            # (Laplace add/remove: delta_minus(0.1) = 0 exactly, past its zero point)
            assert (ball > 0 or direction == "minus") and ball.rad() <= 1e-40 * ball.mid()
    finally:
        flint.ctx.prec = 53
    if kind == "laplace" and relation == "replace_one":
        z = curve.epsilon(0.0)
        assert curve.delta_interval(z) == (0.0, 0.0)
        lower, upper = curve.delta_interval(-z - 1e-9)
        exact = -math.expm1(-z - 1e-9)
        assert lower * (1 - 1e-13) <= exact <= upper * (1 + 1e-13)
    for q in (1e-300, 1 - 2 ** -52):
        edge = getattr(statpriv.dp, kind)(param, sampling_prob=q, relation=relation)
        for direction in ("plus", "minus"):
            assert_inside(edge, [-1.0, 0.0, 0.5, 3.0], NOISY_REL, direction)


@pytest.mark.parametrize("n, p, eps", [(12, 0.1, 0.3), (15, 0.01, 0.05), (9, 0.3, 1.0),
                                     (2, 0.2, 0.1), (1, 0.1, 0.2), (14, 0.5, 0.2),
                                     (13, 0.05, 4.0)])
def test_worst_case_references_inside(n, p, eps):
    """partial_knowledge(n, p).worst_case: the mpmath brute force over every
    vertex (statpriv.oracle.worst_case_delta, the calls of
    tests/test_partial_knowledge.py) inside the intervals; the float path inside."""
    from statpriv import oracle as mp_oracle
    curve = statpriv.partial_knowledge(n, p).worst_case
    points = [eps, -eps / 2, 0.0]
    for direction in ("plus", "minus", "max"):
        refs = mp_oracle.worst_case_delta(n - 1, p, points, direction)
        lower, upper = curve.delta_interval(points, direction)
        _assert_reference_inside(lower, upper, refs, "1e-30", (n, p, direction))
        assert_inside(curve, points + [3.0, math.inf, -math.inf], NOISELESS_REL, direction)


@pytest.mark.parametrize("n, eps0", [(1, 0.5), (2, 1.0), (10, 0.3), (30, 3.0)])
def test_shuffled_randomized_response_references_inside(n, eps0):
    """The mpmath brute force over the vertices with the randomized-response
    pair (the curve's own reference, p carried from eps0) inside; delta = 0
    exactly from eps0 on."""
    from statpriv import oracle as mp_oracle
    curve = statpriv.shuffle.randomized_response(n, eps0)
    p = 1.0 / (1.0 + math.exp(eps0))
    points = [-0.5, 0.0, 0.1, eps0 / 2]
    for direction in ("plus", "minus"):
        refs = mp_oracle.worst_case_delta(n - 1, p, points, direction, rr=eps0)
        lower, upper = curve.delta_interval(points, direction)
        _assert_reference_inside(lower, upper, refs, "1e-30", (n, eps0, direction))
        assert curve.delta_interval(eps0 * (1 + 1e-12), direction) == (0.0, 0.0)


def test_shuffled_randomized_response_stored_reference_inside():
    """The stored independent brute force (tests/independent_oracle.py
    shuffled_rr, the call of tests/test_shuffle_randomized_response.py)."""
    curve = statpriv.shuffle.randomized_response(45, 16.898448478007367)
    plus, minus = oracle("independent_deltas", ("shuffled_rr", (45, 16.898448478007367), {}),
                         [0.0])
    for direction, ref in (("plus", plus), ("minus", minus)):
        lower, upper = curve.delta_interval([0.0], direction)
        _assert_reference_inside(lower, upper, [ref], "1e-30", direction)


def test_too_many_vertices_are_refused_up_front():
    with pytest.raises(ValueError, match="Arb terms"):
        statpriv.partial_knowledge(4000, 0.2).worst_case.delta_interval(0.01)


def _relative_width(curve, eps):
    """(upper - lower) / lower of the Arb ends, to the float rounding of each end."""
    lower, upper = curve.delta_interval(eps)
    return (mpmath.mpf(upper) - mpmath.mpf(lower)) / mpmath.mpf(lower)


def test_width_at_n_1e4():
    """The ends are floats (rounded outward): the Arb ends are within 1e-25
    relative of each other, seen through the log ends' exact difference and
    the arb module's balls directly."""
    from statpriv.oracle import arb
    curve = statpriv.counting(10 ** 4, 0.3)
    flint.ctx.prec = arb.PRECISION_BITS
    try:
        hint = [curve.log_delta(0.1)]
        balls = arb._window_sums(arb.BinomialShift(10 ** 4, 0.3), [0.1], "max", hint)
        lower, upper = balls[0]
        width = (upper.upper() - lower.lower()) / lower.lower()
        assert width < 1e-25
    finally:
        flint.ctx.prec = 53
    # the float ends: at most a couple of ulps apart
    assert _relative_width(curve, 0.1) <= 4 * 2.0 ** -52


def _certified_laws(kind):
    from statpriv.oracle import arb
    return {"laplace": lambda: arb.NoisyCount(arb.BinomialShift(10 ** 4, 0.3),
                                              arb.LaplaceNoise(1.0)),
            "geometric": lambda: arb.NoisyCount(arb.BinomialShift(10 ** 4, 0.3),
                                                arb.GeometricNoise(0.5)),
            "gaussian": lambda: arb.NoisyCount(arb.BinomialShift(10 ** 3, 0.3),
                                               arb.GaussianNoise(1.0)),
            "gaussian-wide": lambda: arb.NoisyCount(arb.BinomialShift(10 ** 3, 0.3),
                                                    arb.GaussianNoise(10.0)),
            "sample-size": lambda: arb.SubsampleShift(10 ** 4, 1000, 0.3),
            "poisson": lambda: arb.BinomialShift(10 ** 4, 0.3, 0.1)}[kind]()


WIDTH_CASES = {
    "laplace": lambda: statpriv.counting(10 ** 4, 0.3, noise=statpriv.Laplace(1.0)),
    "geometric": lambda: statpriv.counting(10 ** 4, 0.3, noise=statpriv.Geometric(0.5)),
    "gaussian": lambda: statpriv.counting(10 ** 3, 0.3, noise=statpriv.Gaussian(1.0)),
    "gaussian-wide": lambda: statpriv.counting(10 ** 3, 0.3, noise=statpriv.Gaussian(10.0)),
    "sample-size": lambda: statpriv.counting(10 ** 4, 0.3, sample_size=1000),
    "poisson": lambda: statpriv.counting(10 ** 4, 0.3, sample_rate=0.1, sampling="poisson")}


@pytest.mark.parametrize("kind", sorted(WIDTH_CASES))
@pytest.mark.parametrize("eps", [0.0, 0.1, 0.3])
def test_new_kinds_are_narrow_and_quick(kind, eps):
    """The Arb ends within 1e-20 relative of each other (Laplace and geometric
    noise at n = 1e4, Gaussian at n = 1e3), the call well within 2 s."""
    import time
    from statpriv.oracle import arb
    curve = WIDTH_CASES[kind]()
    start = time.perf_counter()
    curve.delta_interval(eps)
    assert time.perf_counter() - start < 2.0
    flint.ctx.prec = arb.PRECISION_BITS
    try:
        hint = [curve.log_delta(eps)]
        lower, upper = arb._window_sums(_certified_laws(kind), [eps], "max", hint)[0]
        assert lower.lower() > 0
        assert (upper.upper() - lower.lower()) / lower.lower() < 1e-20
    finally:
        flint.ctx.prec = 53


@pytest.mark.parametrize("make", [lambda arb: arb.SubsampleShift(1000, 100, 0.3),
                                  lambda arb: arb.SecretSample(1000, 100, 300),
                                  lambda arb: arb.BinomialShift(1000, 0.3, 0.5)])
def test_narrow_windows_keep_the_lower_end_below_delta(make):
    """Windows cut a few nats deep (at their edges one mixture component is
    cut off while the other is not): the lower sums stay below the upper
    sums of the whole support, and are 0 beyond the zero point (ln max P/Q
    < 0.5 for these mixtures)."""
    from statpriv.oracle import arb
    flint.ctx.prec = arb.PRECISION_BITS
    try:
        laws = make(arb)
        p, q, rest_p, _ = laws.window(1e6)
        assert rest_p == 0
        for eps in (0.0, 0.1, 0.3, 0.5, 2.0):
            w = flint.arb(eps).exp()
            _, whole = arb._positive_part_sums(p, q, w)
            for drop in (1.0, 3.0, 10.0):
                lower, _ = arb._positive_part_sums(*laws.window(drop)[:2], w)
                assert lower.lower() <= whole.upper(), (eps, drop)
                if eps >= 0.5:
                    assert lower == 0, (eps, drop)
    finally:
        flint.ctx.prec = 53


@pytest.mark.parametrize("sigma", [1e-10, 1e-100, 5e-324])
def test_gaussian_noise_far_below_one_count(sigma):
    """sigma << 1: the noisy curve is the noiseless one, its interval as narrow
    (the crossing's bracket is lost in the balls there; the sum at the
    middle of c's sign change is the lower end)."""
    eps = [0.0, 0.5, 3.0]
    lower, upper = statpriv.counting(20, 0.3, noise=statpriv.Gaussian(sigma)).delta_interval(eps)
    plain_lower, plain_upper = statpriv.counting(20, 0.3).delta_interval(eps)
    for lo, hi, plo, phi in zip_equal(lower, upper, plain_lower, plain_upper):
        assert lo <= phi and plo <= hi
        assert 0 < hi - lo <= 4e-16 * lo


def test_arrays_in_arrays_out():
    curve = statpriv.counting(100, 0.3)
    eps = np.array([[0.0, 0.1], [1.0, -1.0]])
    lower, upper = curve.delta_interval(eps)
    assert lower.shape == upper.shape == eps.shape
    for e, lo, hi in zip_equal(eps.ravel(), lower.ravel(), upper.ravel()):
        assert (lo, hi) == curve.delta_interval(float(e))
    lower, upper = curve.delta_interval([])
    assert lower.shape == upper.shape == (0,)


def test_ends_are_ordered_and_clipped():
    curve = statpriv.dp.laplace(1.0)
    assert curve.delta_interval(math.inf) == (0.0, 0.0)
    assert curve.delta_interval(-math.inf) == (1.0, 1.0)
    assert curve.log_delta_interval(2.0) == (-math.inf, -math.inf)   # beyond eps0 = 1: exactly 0
    lower, upper = curve.delta_interval(0.3)
    assert 0 < lower < upper and upper <= math.nextafter(lower, 1.0) * (1 + 1e-15)


@pytest.mark.parametrize("make", [
    # (the correlated counts' window route: refused with its cost,
    # tests/test_correlated_counts.py)
    lambda: statpriv.counting(100, 0.3, approx="normal"),
    lambda: statpriv.compose(statpriv.dp.gaussian(2.0), statpriv.counting(30, 0.3)),
    lambda: statpriv.compose(statpriv.counting(30, 0.3, noise=statpriv.Laplace(1.0)),
                             statpriv.counting(20, 0.5)),
])
def test_uncovered_kinds_refuse(make):
    curve = make()
    with pytest.raises(NotImplementedError, match="no certified interval"):
        curve.delta_interval(0.1)


def test_bad_input():
    curve = statpriv.counting(100, 0.3)
    with pytest.raises(ValueError, match="direction"):
        curve.delta_interval(0.1, direction="both")
    with pytest.raises(ValueError, match="eps"):
        curve.delta_interval(float("nan"))
    with pytest.raises(TypeError):
        curve.delta_interval("0.1")


def test_too_long_a_sum_is_refused_up_front():
    with pytest.raises(ValueError, match="Arb terms"):
        statpriv.counting(None, [0.5] * 5000).delta_interval(0.1)
    with pytest.raises(ValueError, match="Arb terms"):
        statpriv.counting(10 ** 6, 0.3).delta_interval([5.0, 6.0, 7.0, 8.0, 9.0, 10.0])


def test_too_long_a_noisy_sum_is_refused_up_front():
    with pytest.raises(ValueError, match="Arb terms"):
        statpriv.counting(10 ** 8, 0.3, noise=statpriv.Gaussian(1.0)).delta_interval(0.01)
    with pytest.raises(ValueError, match="Arb terms"):
        statpriv.counting(10 ** 6, 0.3, noise=statpriv.Laplace(1.0)).delta_interval(
            np.linspace(0.01, 0.5, 60))


def test_missing_flint_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "flint", None)
    with pytest.raises(ImportError, match=r'pip install "statpriv\[certified\]"'):
        statpriv.counting(100, 0.3).delta_interval(0.1)


@pytest.mark.parametrize("make", [lambda: statpriv.counting(1000, 0.5),
                                  lambda: statpriv.dp.gaussian(1.0),
                                  lambda: statpriv.dp.geometric(0.5)])
def test_certified_epsilon(make):
    curve = make()
    targets = [1e-3, 1e-9, 0.0, 1.0]
    eps = curve.epsilon(targets, certified=True)
    for target, e, plain in zip_equal(targets, eps, curve.epsilon(targets)):
        assert e >= plain
        if e < math.inf:
            assert curve.delta_interval(e)[1] <= target


def test_certified_epsilon_steps_up_from_a_low_float_answer():
    """A float answer 1e-9 too low (delta there above the target by far more
    than the interval's width) is stepped up until the proof holds, and not far."""
    curve = statpriv.counting(1000, 0.5)
    true = curve.epsilon(1e-3)
    object.__setattr__(curve, "_epsilon", lambda delta, direction: np.asarray(
        true * (1 - 1e-9) + 0 * np.asarray(delta)))
    assert curve.delta_interval(true * (1 - 1e-9))[0] > 1e-3
    eps = curve.epsilon(1e-3, certified=True)
    assert curve.delta_interval(eps)[1] <= 1e-3
    assert true * (1 - 1e-9) < eps <= true * (1 + 1e-9)


def test_certified_epsilon_refuses_uncovered_kinds():
    curve = statpriv.compose(statpriv.dp.gaussian(2.0), statpriv.counting(30, 0.3))
    with pytest.raises(NotImplementedError):
        curve.epsilon(1e-3, certified=True)
    assert curve.epsilon(1e-3, certified=False) == curve.epsilon(1e-3)


# ---------------------------------------------------------------------------
# random edge draws (exhaustive): the float path inside the certified interval
# ---------------------------------------------------------------------------

_EDGE_PIS = [0.0, 5e-324, 1e-300, 1e-12, 1e-6, 0.01, 0.3, 0.5, 0.99, 1 - 1e-9, 1.0]


def _edge_pi(rng):
    return float(rng.choice(_EDGE_PIS)) if rng.random() < 0.4 else float(rng.uniform(0, 1))


def _edge_eps(rng, scale):
    """eps at the edges (0, +-inf, subnormal, far) or on the curve's own scale."""
    pick = rng.random()
    if pick < 0.25:
        return float(rng.choice([0.0, 5e-324, 1e-12, math.inf, -math.inf, -0.5, 30.0, 700.0]))
    return float(rng.uniform(0, 4) * scale * (1.0 if pick < 0.9 else -1.0))


def _random_curve(rng):
    """(curve, its eps scale, noisy): a covered kind with edge-heavy parameters."""
    kind = int(rng.integers(0, 9))
    n = int(10 ** rng.uniform(0, 3.5)) + 1
    pi = _edge_pi(rng)
    scale = 3.0 / math.sqrt(max(n * pi * (1 - pi), 1.0))
    if kind == 0:
        return statpriv.counting(n, pi), scale, False
    if kind == 1:
        probs = [_edge_pi(rng) for _ in range(int(rng.integers(1, 40)))]
        return statpriv.counting(None, probs), 1.0, False
    if kind == 2:
        return statpriv.counting(n, pi, sample_size=int(rng.integers(1, n + 1))), scale, False
    if kind == 3:
        return (statpriv.counting(n, pi, sample_rate=float(rng.uniform(0, 1)),
                                  sampling="poisson"), scale, False)
    if kind == 4:
        n = min(n, 1000)
        noise = (statpriv.Laplace(float(10 ** rng.uniform(-1, 1))) if rng.random() < 0.4 else
                 statpriv.Geometric(float(rng.uniform(0.05, 0.95))) if rng.random() < 0.5 else
                 statpriv.Gaussian(float(10 ** rng.uniform(-1, 1))))
        return statpriv.counting(n, pi, noise=noise), 1.0, True
    if kind == 5:
        m = int(rng.integers(0, n + 1))
        return (statpriv.secret_sample(n, m, positives=int(rng.integers(0, n + 1))),
                1.0 / math.sqrt(max(m, 1)), False)
    if kind == 6:
        q = None if rng.random() < 0.3 else float(rng.uniform(0, 1))
        relation = "add_remove" if rng.random() < 0.6 else "replace_one"
        pick = rng.random()
        if pick < 0.3:                    # integer sensitivity: the lumps
            return (statpriv.dp.geometric(float(rng.uniform(0.01, 0.99)),
                                          sensitivity=int(rng.integers(1, 6)), sampling_prob=q,
                                          relation=relation), 1.0, True)
        make = statpriv.dp.gaussian if pick < 0.65 else statpriv.dp.laplace
        return make(float(10 ** rng.uniform(-1, 1)), sampling_prob=q, relation=relation), 1.0, True
    if kind == 7:
        t = int(rng.integers(0, n + 2))
        attacker = "active" if rng.random() < 0.5 else "passive"
        return (statpriv.thresholded(n, pi, t, known=int(rng.integers(0, 4)),
                                     attacker=attacker), scale, False)
    small = [statpriv.counting(int(rng.integers(1, 60)), _edge_pi(rng)) for _ in range(2)]
    return statpriv.compose(*small, exact=True), 1.0, False


@pytest.mark.exhaustive
def test_random_edge_draws_inside():
    """>= 10,000 (curve, eps, direction) draws aimed at the edges: pi at
    0, subnormal, 1 - 1e-9, 1; eps at 0, +-inf, subnormal, far; every covered
    kind; the float path inside the interval (1e-12 noiseless, 1e-10 noisy)."""
    rng = np.random.default_rng(20261129)
    checked = refused = 0
    while checked < 10_000:
        try:
            curve, scale, noisy = _random_curve(rng)
        except ValueError:
            refused += 1                  # an invalid draw (e.g. sampling past n)
            continue
        eps = [_edge_eps(rng, scale) for _ in range(5)]
        direction = str(rng.choice(["plus", "minus", "max"]))
        try:
            assert_inside(curve, eps, NOISY_REL if noisy else NOISELESS_REL, direction)
        except ValueError as err:         # a certified sum too long, refused with its cost
            assert "Arb terms" in str(err) or "MAX_TERMS" in str(err), str(err)
            refused += 1
            continue
        checked += len(eps)
    assert refused < checked / 10


def _geometric_brute_force(alpha, s, q, relation, eps):
    """delta_max of the sampled geometric mechanism from its definition, every
    outcome x in [-K, K] summed in mpmath (40 digits) with no lumping, the
    tails beyond K below 1e-40: G(x) = c alpha^|x|, A = (1-q) G + q G(. - s),
    B = G (add_remove) or (1-q) G + q G(. + s) (replace_one)."""
    with mpmath.workdps(40):
        a, q = mpmath.mpf(alpha), mpmath.mpf(q)
        c = (1 - a) / (1 + a)
        K = int(45 * math.log(10) / -math.log(alpha)) + 2 * s

        def g(x):
            return c * a ** abs(x)
        w = mpmath.exp(eps)
        plus = minus = mpmath.mpf(0)
        for x in range(-K, K + 1):
            p = (1 - q) * g(x) + q * g(x - s)
            o = g(x) if relation == "add_remove" else (1 - q) * g(x) + q * g(x + s)
            plus += max(p - w * o, 0)
            minus += max(o - w * p, 0)
        return max(plus, minus)


@pytest.mark.parametrize("alpha, s, q, relation", [(0.6, 2, 0.1, "add_remove"),
                                                   (0.3, 1, 0.5, "replace_one"),
                                                   (0.9, 3, 1.0, "add_remove"),
                                                   (0.5, 4, 0.37, "replace_one")])
def test_lumped_geometric_contains_the_unlumped_definition(alpha, s, q, relation):
    """dp.geometric at an integer sensitivity, sampled or not: the lumps in Arb
    hold the definition summed outcome by outcome (mpmath)."""
    if q == 1.0:
        curve = statpriv.dp.geometric(alpha, sensitivity=s)
    else:
        curve = statpriv.dp.geometric(alpha, sensitivity=s, sampling_prob=q, relation=relation)
    for eps in (0.0, 0.05, 0.4, 2.0):
        lower, upper = curve.delta_interval(eps)
        truth = _geometric_brute_force(alpha, s, q, relation, eps)
        with mpmath.workdps(40):
            assert mpmath.mpf(lower) <= truth <= mpmath.mpf(upper) * (1 + mpmath.mpf(1e-30))
        assert upper - lower <= 1e-15 * max(upper, 1e-300)


def test_decimal_ends_hold_the_value_and_are_narrow():
    """digits=40: decimal strings rounded outward from the Arb ends, inside the
    float ends and around the published 20-digit delta (to its last digit),
    ~1e-35 apart; ln ends likewise; bad digits name the parameter."""
    n, pi, eps, published = STATISTICAL_PRIVACY_VALUES[0]
    curve = statpriv.counting(n, pi)
    lower, upper = curve.delta_interval(eps, digits=40)
    float_lower, float_upper = curve.delta_interval(eps)
    with mpmath.workdps(60):
        lo, hi = mpmath.mpf(lower), mpmath.mpf(upper)
        assert float_lower <= lo <= hi <= float_upper
        assert (hi - lo) / lo < mpmath.mpf("1e-30")
        assert lo - mpmath.mpf("1e-21") <= mpmath.mpf(published) <= hi + mpmath.mpf("1e-21")
    log_lower, log_upper = statpriv.counting(10 ** 6, 0.3).log_delta_interval(0.05, digits=40)
    with mpmath.workdps(60):
        assert mpmath.mpf(log_upper) - mpmath.mpf(log_lower) < mpmath.mpf("1e-30")
        assert abs(mpmath.mpf(log_lower) - mpmath.mpf(FAR_TAIL_LOG_DELTA[0][1])) < 1e-17
    lowers, uppers = curve.delta_interval([eps, 1.0], digits=25)
    assert lowers.shape == (2,) and all(isinstance(x, str) for x in list(lowers) + list(uppers))
    with pytest.raises(ValueError, match="digits"):
        curve.delta_interval(eps, digits=1)
