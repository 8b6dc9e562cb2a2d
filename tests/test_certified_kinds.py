"""Certified intervals of k-anonymity, correlated counts and subsampled curves
(statpriv.oracle.arb: KAnonymityLaws, LatticeShift, SampledPair): the float
path and the mpmath brute force from the definitions lie inside them, they
are narrow, and sums too long are refused up front with their cost."""
import math

import mpmath
import pytest

import statpriv
from helpers import import_extra, oracle, zip_equal

flint = import_extra("flint")

NOISELESS_REL = 1e-12
NOISY_REL = 1e-10
EPS = [-0.5, 0.0, 0.05, 0.3, 1.0, 3.0]
EDGE_EPS = [0.0, 0.3, 3.0, 30.0, -1.0, math.inf, -math.inf]
DIRECTIONS = ("plus", "minus", "max")


def _log_slack(log_value, rel):
    return max(math.log1p(rel), 8 * math.ulp(abs(log_value)))


def assert_inside(curve, eps, rel, direction="max"):
    """The float path's ln delta inside the certified ln interval (widened by rel)."""
    lower, upper = curve.log_delta_interval(eps, direction)
    ours = curve._log_delta(eps, direction, "float")
    for e, lo, hi, x in zip_equal(eps, lower, upper, ours):
        assert lo <= hi, (curve, e, direction)
        if x == -math.inf:
            assert lo == -math.inf, (curve, e, direction, lo)
            continue
        assert lo - _log_slack(x, rel) <= x <= hi + _log_slack(x, rel), \
            f"{curve} eps={e} {direction}: ln delta {x} outside [{lo}, {hi}]"


def assert_reference_inside(curve, eps, refs, direction, rel="1e-40"):
    lower, upper = curve.delta_interval(eps, direction)
    for e, lo, hi, r in zip_equal(eps, lower, upper, refs):
        assert mpmath.mpf(lo) * (1 - mpmath.mpf(rel)) <= r, (curve, e, direction, lo, r)
        assert r <= mpmath.mpf(hi) * (1 + mpmath.mpf(rel)), (curve, e, direction, hi, r)


def arb_width(curve, eps, direction="max"):
    """(upper - lower) / lower of the Arb ends themselves (before rounding to floats)."""
    from statpriv.oracle import arb
    laws = curve.laws.certified_laws()
    hint = [float(curve._log_delta(eps, direction, "float"))]
    flint.ctx.prec = arb.PRECISION_BITS
    try:
        sums = arb._max_of_sums if isinstance(laws, arb.MaxOfLaws) else arb._window_sums
        lower, upper = sums(laws, [eps], direction, hint)[0]
        assert lower.lower() > 0
        return (upper.upper() - lower.lower()) / lower.lower()
    finally:
        flint.ctx.prec = 53


# ---------------------------------------------------------------------------
# k-anonymity: both ends of the bracket
# ---------------------------------------------------------------------------

# (n, probs, k, source, target): the stored oracle calls of tests/test_k_anonymity.py
K_ANONYMITY = [(30, [0.2, 0.3, 0.1], 3, 0, 1), (25, [0.1, 0.05], 4, 1, 0),
               (40, [0.02, 0.03, 0.5], 3, 0, 1), (20, [0.5, 0.5], 3, 0, 1)]


def _k_anonymity(n, probs, k, source, target):
    return statpriv.k_anonymity(n, probs, k, source=source, target=target)


@pytest.mark.parametrize("bound", ["lower", "upper"])
@pytest.mark.parametrize("args", K_ANONYMITY, ids=str)
def test_k_anonymity_references_inside(args, bound):
    """statpriv.oracle.k_anonymity_delta (every (A, B) of the others with its
    trinomial probability, 50 digits) inside the intervals; the float path too."""
    curve = getattr(_k_anonymity(*args), bound)
    for direction in ("plus", "minus"):
        refs = oracle("k_anonymity_delta", *args, list(EPS), direction=direction, bound=bound,
                      max_terms=1e8)
        assert_reference_inside(curve, EPS, refs, direction)
    for direction in DIRECTIONS:
        assert_inside(curve, EDGE_EPS, NOISELESS_REL, direction)


@pytest.mark.parametrize("bound", ["lower", "upper"])
def test_k_anonymity_independent_oracle_inside(bound):
    """tests/independent_oracle.py's k-anonymity (its own enumeration) inside too."""
    import independent_oracle
    curve = getattr(statpriv.k_anonymity(14, [0.15, 0.25], 3, source=0, target=1), bound)
    eps = [0.0, 0.2, 1.5]
    refs = independent_oracle.k_anonymity(14, 0.15, 0.25, 3, bound).deltas(eps)
    for direction, side in (("plus", 0), ("minus", 1)):
        assert_reference_inside(curve, eps, [r[side] for r in refs], direction, rel="1e-35")


@pytest.mark.parametrize("bound", ["lower", "upper"])
def test_k_anonymity_windows_and_width(bound):
    """n = 600 (windows of m and of A | m, their rests bounded): the float
    path inside, the Arb ends within 1e-25; n = 200 at eps = 10 (delta ~ 1e-139
    lower, 1e-9 upper)."""
    curve = getattr(statpriv.k_anonymity(600, [0.05, 0.05, 0.6], 5, source=0, target=1), bound)
    assert_inside(curve, [0.1], NOISELESS_REL)
    assert arb_width(curve, 0.1) < 1e-25
    far = getattr(statpriv.k_anonymity(200, [0.1, 0.2], 3, source=0, target=1), bound)
    lower, upper = far.log_delta_interval(10.0)
    assert -math.inf < lower <= upper < math.log(1e-8)
    assert upper - lower < 1e-12
    assert_inside(far, [10.0], NOISELESS_REL)


def test_k_anonymity_far_tail():
    """pa = 1e-10, n = 41: the lower curve's delta_plus at eps >= 30 is the
    mass of the outcome (41, suppressed), f(40, 0) = pa^40 = 1e-400 (the
    other outcomes' ratios stay below e^30), far below the double range."""
    curve = statpriv.k_anonymity(41, [1e-10, 0.3], 3, source=0, target=1).lower
    lower, upper = curve.log_delta_interval([30.0, math.inf], "plus")
    with mpmath.workdps(30):
        truth = float(40 * mpmath.log(mpmath.mpf(1e-10)))
    for lo, hi in zip_equal(lower, upper):
        assert lo <= truth <= hi and hi - lo < 1e-12
    assert_inside(curve, [30.0, math.inf], NOISELESS_REL, "plus")


def test_k_anonymity_too_long_is_refused_up_front(monkeypatch):
    from statpriv.oracle import arb
    built = []
    monkeypatch.setattr(arb.KAnonymityLaws, "window", lambda self, drop: built.append(drop))
    curve = statpriv.k_anonymity(10 ** 5, [0.3, 0.3], 3, source=0, target=1).lower
    with pytest.raises(ValueError, match=r"Arb terms .* about [0-9.e+]+ s"):
        curve.delta_interval(0.1)
    assert built == []


# ---------------------------------------------------------------------------
# correlated counts: the exact lattice, its worst case, the histogram route
# ---------------------------------------------------------------------------

JOINT_2 = [0.3, 0.1, 0.2, 0.4]
JOINT_3 = [0.1, 0.05, 0.2, 0.15, 0.1, 0.1, 0.2, 0.1]
# (n, joint, x, x_prime), kwargs: the stored oracle calls of tests/test_correlated_counts.py
CORRELATED = [((15, JOINT_2, (1, 1), (0, 0)), {}), ((15, JOINT_2, (1, 0), (0, 1)), {}),
              ((6, JOINT_3, None, None), {}),
              ((15, JOINT_2, (1, 0), (0, 1)), {"method": "histogram"}),
              ((6, JOINT_3, None, None), {"method": "histogram"})]


def _correlated(n, joint, x, x_prime, **kwargs):
    return statpriv.correlated_counts(n, joint, target=None if x is None else (x, x_prime),
                                      **kwargs)


@pytest.mark.parametrize("args, kwargs", CORRELATED, ids=str)
def test_correlated_references_inside(args, kwargs):
    """statpriv.oracle.correlated_counts_delta (every multinomial outcome of the
    others enumerated, 50 digits) inside the intervals -- the exact lattice's,
    and for method="histogram" the histogram curve's: statpriv.k_anonymity's
    upper curve with k = 1, whose law of the other cells is 1 - pa - pb
    exactly where the enumeration multiplies the joint's floats (summing to
    1 within an ulp or two: 1e-14 apart) --; the float path inside too."""
    curve = _correlated(*args, **kwargs)
    histogram = kwargs.get("method") == "histogram"
    for direction in ("plus", "minus"):
        refs = oracle("correlated_counts_delta", *args, list(EPS), direction=direction,
                      release="histogram" if histogram else "counts")
        assert_reference_inside(curve, EPS, refs, direction, rel="1e-14" if histogram else "1e-40")
    for direction in DIRECTIONS:
        assert_inside(curve, EDGE_EPS, NOISELESS_REL, direction)


def test_correlated_histogram_is_the_k_anonymity_upper_curve():
    """One pair by the histogram route: k_anonymity(n, [joint[x], joint[x']], 1)'s
    upper curve, its enumeration (same model) inside to 1e-40."""
    (n, joint, x, x_prime), _ = CORRELATED[3]
    curve = _correlated(n, joint, x, x_prime, method="histogram")
    cells = [joint[2 * x[0] + x[1]], joint[2 * x_prime[0] + x_prime[1]]]
    for direction in ("plus", "minus"):
        refs = oracle("k_anonymity_delta", n, cells, 1, 0, 1, list(EPS), direction=direction,
                      bound="upper", max_terms=1e8)
        assert_reference_inside(curve, EPS, refs, direction)


@pytest.mark.parametrize("n, joint, target", [
    (25, [0.4, 0.6], None), (25, JOINT_2, ((0, 1), (0, 0))),
    (25, [0.5, 0.0, 0.0, 0.5], ((1, 0), (0, 0))),
    (4, [0.05, 0.1, 0.05, 0.1, 0.02, 0.08, 0.1, 0.0, 0.05, 0.05, 0.1, 0.05, 0.05, 0.05, 0.1, 0.05],
     ((1, 0, 1, 1), (0, 1, 1, 0)))], ids=str)
def test_correlated_float_path_inside(n, joint, target):
    curve = statpriv.correlated_counts(n, joint, target=target)
    for direction in DIRECTIONS:
        assert_inside(curve, EDGE_EPS, NOISELESS_REL, direction)


@pytest.mark.exhaustive
def test_correlated_k4_worst_case_inside():
    curve = statpriv.correlated_counts(5, [1 / 16] * 16)
    for direction in DIRECTIONS:
        assert_inside(curve, EDGE_EPS, NOISELESS_REL, direction)


def test_correlated_far_tail_and_width():
    """k = 1, n = 161, the target answering 1 or 0, others 1 w.p. 0.01:
    delta_plus(eps >= 30) = P(count 161) = 0.01^160 = 1e-320 (the other
    counts' ratios c 99 / (161 - c) stay below e^30); k = 2, n = 40: the Arb
    ends within 1e-25."""
    curve = statpriv.correlated_counts(161, [0.99, 0.01], target=((1,), (0,)))
    lower, upper = curve.log_delta_interval([30.0, math.inf], "plus")
    with mpmath.workdps(30):
        truth = float(160 * mpmath.log(mpmath.mpf(0.01)))
    for lo, hi in zip_equal(lower, upper):
        assert lo <= truth <= hi < -730 and hi - lo < 1e-12
    assert_inside(curve, [30.0, math.inf], NOISELESS_REL, "plus")
    assert arb_width(statpriv.correlated_counts(40, JOINT_2, target=((1, 0), (0, 1))), 0.2) < 1e-25


def test_correlated_too_long_is_refused_up_front():
    with pytest.raises(ValueError, match=r"Arb terms .* about [0-9.e+]+ s"):
        statpriv.correlated_counts(200, JOINT_2).delta_interval(0.1)


# ---------------------------------------------------------------------------
# curve.subsample of a covered curve
# ---------------------------------------------------------------------------

def _subsampled_counting_delta(n, pi, q, sampling, eps, direction):
    """delta of counting(n, pi).subsample(q) from the definitions (mpmath, 50
    digits): P(x) = Bin(n-1, pi)(x-1), Q(x) = Bin(n-1, pi)(x); Poisson: the
    pair (q P + (1-q) Q, Q); without replacement: H(q P + (1-q) Q || Q) for
    delta_plus, H(q Q + (1-q) P || P) for delta_minus."""
    with mpmath.workdps(50):
        N, p, g, w = n - 1, mpmath.mpf(pi), mpmath.mpf(q), mpmath.exp(mpmath.mpf(eps))

        def z(x):
            return mpmath.binomial(N, x) * p ** x * (1 - p) ** (N - x) if 0 <= x <= N else 0
        P = [z(x - 1) for x in range(N + 2)]
        Q = [z(x) for x in range(N + 2)]

        def hockey(a, b):
            return mpmath.fsum(max(x - w * y, 0) for x, y in zip(a, b))
        mixed = [g * x + (1 - g) * y for x, y in zip(P, Q)]
        if direction == "plus":
            return hockey(mixed, Q)
        if sampling == "poisson":
            return hockey(Q, mixed)
        return hockey([g * y + (1 - g) * x for x, y in zip(P, Q)], P)


@pytest.mark.parametrize("n, pi, q, sampling", [(30, 0.3, 0.2, "poisson"),
                                                (30, 0.3, 0.2, "without_replacement"),
                                                (12, 0.05, 0.7, "poisson"),
                                                (12, 0.5, 1e-3, "without_replacement")])
def test_subsampled_counting_contains_the_definition(n, pi, q, sampling):
    curve = statpriv.counting(n, pi).subsample(q, sampling=sampling)
    eps = [-0.3, 0.0, 0.01, 0.2, 1.0]
    for direction in ("plus", "minus"):
        refs = [_subsampled_counting_delta(n, pi, q, sampling, e, direction) for e in eps]
        assert_reference_inside(curve, eps, refs, direction)


@pytest.mark.parametrize("make, rel", [
    (lambda: statpriv.counting(100, 0.3).subsample(0.5), NOISELESS_REL),
    (lambda: statpriv.counting(100, 0.3).subsample(0.2, sampling="without_replacement"),
     NOISELESS_REL),
    (lambda: statpriv.counting(None, [0.1, 0.5, 0.9, 0.0]).subsample(0.0), NOISELESS_REL),
    (lambda: statpriv.counting(100, 0.3).subsample(0.5).subsample(
        0.5, sampling="without_replacement"), NOISELESS_REL),
    (lambda: statpriv.secret_sample(60, 20, 5).subsample(0.4), NOISELESS_REL),
    (lambda: statpriv.dp.geometric(0.5, sampling_prob=0.1).subsample(0.5), NOISY_REL),
    (lambda: statpriv.dp.gaussian(1.0).subsample(0.1), NOISY_REL),
    (lambda: statpriv.counting(200, 0.3, noise=statpriv.Laplace(1.0)).subsample(0.3), NOISY_REL),
    (lambda: statpriv.counting(60, 0.3, noise=statpriv.Gaussian(1.0)).subsample(
        0.3, sampling="without_replacement"), NOISY_REL),
    (lambda: statpriv.thresholded(40, 0.2, 10, known=8, attacker="active").subsample(
        0.4, sampling="without_replacement"), NOISELESS_REL),
    (lambda: statpriv.k_anonymity(30, [0.2, 0.3, 0.1], 3, source=0, target=1).lower.subsample(
        0.3), NOISELESS_REL),
    (lambda: statpriv.correlated_counts(10, JOINT_2).subsample(0.3), NOISELESS_REL),
    (lambda: statpriv.correlated_counts(10, JOINT_2).subsample(
        0.3, sampling="without_replacement"), NOISELESS_REL),
], ids=range(13))
def test_subsampled_float_path_inside(make, rel):
    curve = make()
    for direction in DIRECTIONS:
        assert_inside(curve, EDGE_EPS + [1e-4], rel, direction)


def test_subsampled_worst_case_reference_inside():
    """The worst case over pairs subsampled: its mpmath reference (the
    enumeration's delta, reduced in mpmath) inside."""
    curve = statpriv.correlated_counts(8, JOINT_2).subsample(0.3)
    eps = [0.0, 0.3]
    with mpmath.workdps(50):
        for direction in ("plus", "minus"):
            refs = [getattr(curve, f"delta_{direction}")(e, precision="mp") for e in eps]
            assert_reference_inside(curve, eps, refs, direction, rel="1e-35")


# closed forms subsampled: (id, curve factory)
SAMPLED_CLOSED_FORMS = {
    "gaussian-without-replacement":
        lambda: statpriv.dp.gaussian(1.0).subsample(0.1, sampling="without_replacement"),
    "laplace-without-replacement":
        lambda: statpriv.dp.laplace(0.5).subsample(0.3, sampling="without_replacement"),
    "gaussian-poisson": lambda: statpriv.dp.gaussian(2.0).subsample(0.05)}


@pytest.mark.parametrize("kind", sorted(SAMPLED_CLOSED_FORMS))
def test_subsampled_closed_forms_inside(kind):
    """A closed form subsampled (the exact reduction of each direction in Arb):
    the float path inside."""
    curve = SAMPLED_CLOSED_FORMS[kind]()
    for direction in DIRECTIONS:
        assert_inside(curve, EDGE_EPS, NOISY_REL, direction)


def _gaussian_mechanism_delta(sigma, eps):
    """delta of N(0, sigma^2) against N(1, sigma^2) (Balle & Wang, "Improving
    the Gaussian mechanism for differential privacy"), mpmath."""
    s = mpmath.mpf(sigma)
    return (mpmath.ncdf(1 / (2 * s) - eps * s)
            - mpmath.exp(eps) * mpmath.ncdf(-1 / (2 * s) - eps * s))


def test_subsampled_gaussian_without_replacement_contains_the_reduction():
    """dp.gaussian(1).subsample(0.1, without_replacement): each direction q
    delta(eps'), e^eps' = 1 + (e^eps - 1)/q, from the closed form in mpmath."""
    curve = statpriv.dp.gaussian(1.0).subsample(0.1, sampling="without_replacement")
    eps = [0.0, 0.05, 0.5, 2.0]
    with mpmath.workdps(50):
        q = mpmath.mpf(0.1)
        refs = [q * _gaussian_mechanism_delta(1.0, mpmath.log(1 + mpmath.expm1(e) / q))
                for e in eps]
        for direction in ("plus", "minus"):
            assert_reference_inside(curve, eps, refs, direction, rel="1e-30")


@pytest.mark.exhaustive
@pytest.mark.parametrize("kind", sorted(SAMPLED_CLOSED_FORMS))
def test_subsampled_closed_forms_mp_references_inside(kind):
    """The reduction applied in mpmath to the mechanism's own mpmath reference
    (precision="mp": quadratures, seconds each) inside."""
    curve = SAMPLED_CLOSED_FORMS[kind]()
    with mpmath.workdps(50):
        for direction in ("plus", "minus"):
            eps = [0.0, 0.05, 0.5]
            refs = [getattr(curve, f"delta_{direction}")(e, precision="mp") for e in eps]
            assert_reference_inside(curve, eps, refs, direction, rel="1e-30")


def test_subsampled_far_tail_and_width():
    """counting(2000, 0.5) Poisson-subsampled at 0.01: ln delta ~ -1400 at
    eps = 9; n = 1e4 at q = 1e-3: the Arb ends within 1e-25."""
    curve = statpriv.counting(2000, 0.5).subsample(0.01)
    lower, upper = curve.log_delta_interval(9.0)
    assert -math.inf < lower <= upper < -708
    assert upper - lower < 1e-10
    assert_inside(curve, [9.0], NOISELESS_REL)
    assert arb_width(statpriv.counting(10 ** 4, 0.3).subsample(1e-3), 0.01) < 1e-25


def test_subsampled_too_long_is_refused_up_front():
    curve = statpriv.counting(None, [0.5] * 5000).subsample(0.5, sampling="without_replacement")
    with pytest.raises(ValueError, match=r"Arb terms .* about [0-9.e+]+ s"):
        curve.delta_interval(0.1)


def test_k_anonymity_lower_float_path_when_the_two_categories_hold_everyone():
    """The certified interval holds the mpmath enumeration here (checked by
    test_k_anonymity_lower_interval_when_the_two_categories_hold_everyone).
    At eps = 30 delta is the mass of the cells (300, bottom) (plus) and
    (bottom, 300) (minus), ~e^-360 and ~e^-107, far from the peak of the
    cells' walk: a walk started in the tail, at ln f ~ -1e4 in doubles,
    left ~3e-12 there."""
    curve = statpriv.k_anonymity(300, [0.3, 0.7], 4, source=0, target=1).lower
    for direction in ("plus", "minus"):
        assert_inside(curve, [30.0], NOISELESS_REL, direction)


def test_k_anonymity_lower_interval_when_the_two_categories_hold_everyone():
    curve = statpriv.k_anonymity(60, [0.3, 0.7], 4, source=0, target=1).lower
    with mpmath.workdps(50):
        for direction in ("plus", "minus"):
            refs = statpriv.oracle.k_anonymity_delta(60, [0.3, 0.7], 4, 0, 1, [30.0],
                                                     bound="lower", direction=direction)
            assert_reference_inside(curve, [30.0], refs, direction)


# pa + pb = 1 (as floats; 1 - pa - pb of the floats is 0 or a ~1e-17 residue):
# the suppressed cells' mass sits at A + B = n - 1, far from where a walk of
# their lines from a tail would start; up to eps = 40, where delta is the mass
# of the cells the other law cannot reach
@pytest.mark.parametrize("n, pi, k", [(400, [0.7, 0.3], 3), (50, [0.45, 0.55], 6),
                                      (300, [0.9, 0.1], 2), (600, [0.1, 0.9], 2)])
def test_k_anonymity_lower_float_path_when_two_categories_hold_everyone(n, pi, k):
    curve = statpriv.k_anonymity(n, pi, k, source=0, target=1).lower
    eps = [0.0, 2.0, 5.0, 40.0]
    for direction in ("plus", "minus"):
        assert_inside(curve, eps, NOISELESS_REL, direction)
        lower, upper = curve.log_delta_interval(eps, direction)
        assert all(hi - lo < 1e-9 for lo, hi in zip_equal(lower, upper))  # over-reports fail too


def test_k_anonymity_lower_far_below_the_windows_rest():
    """n = 5000, pi = [1/2, 1/2] (nobody elsewhere: A = 4999 - B): delta lies
    thousands of nats below e^-1500, where a window of A's marginal left its
    rest.  From eps = ln 4999 = 8.52 on, the only cell with P > e^eps Q is
    (5000, bottom) (P: A = 4999, B = 0; Q: A = 5000, impossible), and its
    mirror (bottom, 5000) for delta_minus: delta = 2^-4999 exactly (the cells
    (4999, bottom), (4998, bottom) have P/Q = 4999 and 2499)."""
    curve = statpriv.k_anonymity(5000, [0.5, 0.5], 3, source=0, target=1).lower
    for direction in ("plus", "minus"):
        for ours in curve._log_delta([10.0, 30.0], direction, "float"):
            assert ours == pytest.approx(-4999 * math.log(2.0), rel=1e-13)
        eps = [2.0, 3.0, 5.0]
        assert_inside(curve, eps, NOISELESS_REL, direction)
        lower, upper = curve.log_delta_interval(eps, direction)
        assert all(hi < -1600 and hi - lo < 1e-9 for lo, hi in zip_equal(lower, upper))


# -- dp.randomized_response ----------------------------------------------------
def _rr_delta_mp(eps0, k, eps):
    """delta of k-ary randomized response from its laws, at 60 digits: the
    hockey stick over the reports (a, b, the k - 2 others)."""
    with mpmath.workdps(60):
        e0, e = mpmath.exp(mpmath.mpf(eps0)), mpmath.exp(mpmath.mpf(eps))
        z = e0 + (k - 1)
        p, q = [e0 / z, 1 / z, (k - 2) / z], [1 / z, e0 / z, (k - 2) / z]
        return mpmath.fsum(max(a - e * b, 0) for a, b in zip(p, q))


@pytest.mark.parametrize("eps0, k", [(1.0, 2), (0.3, 5), (5.0, 10 ** 6), (40.0, 3)])
def test_randomized_response_contains_its_laws_hockey_stick(eps0, k):
    curve = statpriv.dp.randomized_response(eps0, k)
    eps = [-0.5, 0.0, 0.2, 0.999 * eps0, 50.0]
    lower, upper = curve.delta_interval(eps)
    for e, lo, up, f in zip_equal(eps, lower, upper, curve.delta(eps)):
        truth = _rr_delta_mp(eps0, k, e)
        assert lo <= truth <= up
        # (the Arb ends, ~1e-50 apart, rounded outward to doubles: 2 ulps)
        assert up <= math.nextafter(math.nextafter(lo, math.inf), math.inf) or up < 1e-300
        assert lo * (1 - 1e-12) <= f <= up * (1 + 1e-12)


def test_randomized_response_zero_point_is_proven_and_the_float_over_reports():
    """At eps0 itself delta is 0: the interval's upper end is ~1e-57 (the Arb
    exp of eps0 against e^eps); the float path's rounded laws leave ~1e-17
    there -- above the truth, never below."""
    curve = statpriv.dp.randomized_response(0.3, 5)
    lower, upper = curve.delta_interval(0.3)
    assert lower == 0.0 and upper < 1e-50
    assert 0.0 <= curve.delta(0.3) < 1e-16


def test_randomized_response_exact_composition_is_certified():
    one = statpriv.dp.randomized_response(1.0)
    lower, upper = statpriv.compose(one, times=2, exact=True).delta_interval(0.5)
    with mpmath.workdps(60):
        e1 = mpmath.e
        p = [e1 * e1, e1, e1, 1]
        q = [1, e1, e1, e1 * e1]
        z = (e1 + 1) ** 2
        truth = mpmath.fsum(max(a / z - mpmath.exp(mpmath.mpf(0.5)) * b / z, 0)
                            for a, b in zip(p, q))
    assert lower <= truth <= upper
    ends = statpriv.compose(one, times=2, exact=True).delta_interval(0.5, digits=45)
    with mpmath.workdps(60):
        lo, up = (mpmath.mpf(x) for x in ends)
        assert lo <= truth <= up and up - lo < 1e-40
