"""statpriv.correlated_counts: k noiseless counts on the same correlated records.

Reference values: the mpmath oracle (statpriv.oracle.correlated_counts_delta,
every multinomial outcome of the other records' answer vectors enumerated
with its exact probability, 50 digits), stored by
tools/precompute_reference.py.  Closed cases from the definitions: one
question is the iid count (statpriv.counting); independent questions are the
exact composition of their counts; two questions everyone answers alike
(Desfontaines, Mohammadi, Krahmer & Basin, "Differential Privacy with
Partial Knowledge", Example 8) give delta = 1 for a target who answers them
differently, and the single count for one who answers them alike.
"""
import itertools
import math

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

import statpriv
from statpriv import ParameterTypeError
from statpriv.curve import PrivacyCurve
from helpers import check_curve

EPS = [-0.5, 0.0, 0.05, 0.3, 1.0, 3.0]
JOINT_2 = [0.3, 0.1, 0.2, 0.4]
JOINT_3 = [0.1, 0.05, 0.2, 0.15, 0.1, 0.1, 0.2, 0.1]
MARKOV_3 = statpriv.markov(0.3, [[0.8, 0.2], [0.4, 0.6]], days=3).tolist()
# (name, (n, joint, x, x_prime), kwargs of correlated_counts beyond the target)
CASES = [
    ("k=2 diagonal", (15, JOINT_2, (1, 1), (0, 0)), {}),
    ("k=2 anti-diagonal", (15, JOINT_2, (1, 0), (0, 1)), {}),
    ("k=2 one question", (15, JOINT_2, (0, 1), (0, 0)), {}),
    ("k=3 markov", (8, MARKOV_3, (1, 0, 1), (0, 1, 1)), {}),
    ("k=3 worst case", (6, JOINT_3, None, None), {}),
    ("k=2 histogram", (15, JOINT_2, (1, 0), (0, 1)), {"method": "histogram"}),
    ("k=3 histogram worst case", (6, JOINT_3, None, None), {"method": "histogram"}),
]
# a far tail: the others answer a1 = 0 with probability 2e-30, so Q's mass
# where the count of a1 = 1 is small (delta_minus at large eps) is tiny:
# ln delta_minus(100) = -752.2, below the double range
JOINT_RARE = [1e-30, 1e-30, 0.5, 0.5 - 2e-30]
FAR_EPS = [0.0, 5.0, 60.0, 100.0]


def _curve(n, joint, x, x_prime, **kwargs):
    target = None if x is None else (x, x_prime)
    return statpriv.correlated_counts(n, joint, target=target, **kwargs)


@pytest.mark.parametrize("name, args, kwargs", CASES, ids=[c[0] for c in CASES])
def test_against_stored_oracle(name, args, kwargs):
    curve = _curve(*args, **kwargs)
    release = "histogram" if kwargs.get("method") == "histogram" else "counts"
    check_curve(curve, ("correlated_counts_delta", args, {"release": release}), eps=EPS,
                label=name)


def test_far_tail_against_stored_oracle():
    curve = _curve(12, JOINT_RARE, (1, 0), (0, 0))
    assert curve.log_delta_minus(100.0) < -745.0          # delta itself underflows
    check_curve(curve, ("correlated_counts_delta", (12, JOINT_RARE, (1, 0), (0, 0)),
                        {"release": "counts"}), eps=FAR_EPS, label="far tail")


def test_worst_case_is_the_max_over_every_ordered_pair():
    """The worst-case curve against the pairs' own curves (each direction)."""
    worst = statpriv.correlated_counts(10, JOINT_3)
    eps = np.array([0.0, 0.2, 1.0, 2.5])
    pairs = [p for p in itertools.product(itertools.product((0, 1), repeat=3), repeat=2)
             if p[0] != p[1]]
    best = np.max([statpriv.correlated_counts(10, JOINT_3, target=p).log_delta_plus(eps)
                   for p in pairs], axis=0)
    for direction in ("plus", "minus", "max"):
        np.testing.assert_array_equal(getattr(worst, f"log_delta_{direction}")(eps)
                                      if direction != "max" else worst.log_delta(eps), best)
    assert "worst case over every target pair" in worst.description


@pytest.mark.parametrize("n, pi", [(200, 0.3), (37, 0.5), (1, 0.4), (2, 0.9), (500, 0.01)])
def test_one_question_is_the_count(n, pi):
    eps = np.array([-0.5, 0.0, 0.05, 0.2, 0.5, 1.0, 2.0, 3.0])
    ours = statpriv.correlated_counts(n, [1.0 - pi, pi], target=((1,), (0,)))
    count = statpriv.counting(n, pi)
    for direction in ("plus", "minus"):
        a = getattr(ours, f"log_delta_{direction}")(eps)
        b = getattr(count, f"log_delta_{direction}")(eps)
        assert np.array_equal(np.isneginf(a), np.isneginf(b))
        live = np.isfinite(b)
        assert np.all(np.abs(np.expm1(a[live] - b[live])) <= 1e-13), (direction, a, b)


@pytest.mark.parametrize("p", [0.5, 0.2])
def test_example_8_perfect_correlation(p):
    """Mass on 00 and 11 only: the others' two counts are equal."""
    n, eps = 30, np.array([0.0, 0.5, 2.0, 10.0, math.inf])
    joint = [1.0 - p, 0.0, 0.0, p]
    # answered differently: (c + 1, c) vs (c, c) or (c, c + 1), disjoint supports
    for target in (((1, 0), (0, 0)), ((1, 0), (0, 1)), ((0, 1), (1, 1)), None):
        curve = statpriv.correlated_counts(n, joint, target=target)
        np.testing.assert_allclose(curve.delta(eps), 1.0, rtol=1e-14)
        assert curve.delta(3.0) == pytest.approx(1.0, rel=1e-14)
    # answered alike: the count released twice is the count released once
    same = statpriv.correlated_counts(n, joint, target=((1, 1), (0, 0))).log_delta(eps[:-1])
    once = statpriv.counting(n, p).log_delta(eps[:-1])
    np.testing.assert_allclose(same, once, rtol=1e-13, atol=1e-13)
    # the product rule (two independent counts) is wrong both ways here
    twice = statpriv.compose(statpriv.counting(n, p), times=2, exact=True)
    assert np.all(twice.delta(eps[1:-1]) < 1.0)
    assert np.all(twice.delta(eps[:-1]) > np.exp(once) * (1 + 1e-3))


@pytest.mark.parametrize("target", [((1, 1), (0, 0)), ((1, 0), (0, 1)), ((0, 1), (0, 0))])
def test_independent_questions_compose(target):
    n, p1, p2 = 40, 0.3, 0.6
    joint = np.outer([1 - p1, p1], [1 - p2, p2]).ravel()
    eps = np.array([0.0, 0.05, 0.2, 0.5, 1.0, 2.0, 3.0])
    ours = statpriv.correlated_counts(n, joint, target=target).delta_plus(eps)
    # each question's pair: the count of records answering 1 (shift up), its
    # mirror counting(n, 1 - p) (shift down: delta_plus = the other's delta_minus),
    # or nothing (identical laws: delta_plus = 1 - e^eps at eps < 0, else 0)
    parts = []
    for (a, b), p in zip(zip(*target), (p1, p2)):
        if a != b:
            parts.append(statpriv.counting(n, p if a > b else 1.0 - p))
    if len(parts) == 1:
        exact = parts[0].delta_plus(eps)
    else:
        exact = statpriv.compose(*parts, exact=True).delta_plus(eps)
    np.testing.assert_allclose(ours, exact, rtol=1e-9)


def _lattice_laws(n, joint, x, x_prime):
    """P and Q over the count vectors, summed over every database of the
    n - 1 others (each an assignment of answer vectors), in floats."""
    k = int(math.log2(len(joint)))
    vectors = list(itertools.product((0, 1), repeat=k))
    P, Q = {}, {}
    for db in itertools.product(range(len(joint)), repeat=n - 1):
        mass = math.prod(joint[v] for v in db)
        counts = tuple(sum(vectors[v][j] for v in db) for j in range(k))
        for law, t in ((P, x), (Q, x_prime)):
            c = tuple(a + b for a, b in zip(counts, t))
            law[c] = law.get(c, 0.0) + mass
    return P, Q


@settings(max_examples=25, deadline=None)
# (nearly disjoint laws: delta(0) = 1 - 8e-15, delta(2) = 1, within the
# curves' 1e-12 relative error -- an absolute 1e-15 slack failed here)
@example(n=2, weights=[0.0, 5.27e-252, 0.5, 3.28e-250], x=(0, 0), x_prime=(0, 0), eps=[0.0, 2.0])
@given(n=st.integers(1, 5),
       weights=st.lists(st.floats(0.0, 1.0), min_size=4, max_size=4).filter(lambda w: sum(w) > 0.1),
       x=st.tuples(st.integers(0, 1), st.integers(0, 1)),
       x_prime=st.tuples(st.integers(0, 1), st.integers(0, 1)),
       eps=st.lists(st.floats(0.0, 8.0), min_size=2, max_size=6))
def test_properties(n, weights, x, x_prime, eps):
    if x == x_prime:
        x_prime = (1 - x[0], x[1])
    joint = np.array(weights) / math.fsum(weights)
    joint = joint / math.fsum(joint.tolist())
    if abs(math.fsum(joint.tolist()) - 1.0) > 1e-12:
        return
    curve = statpriv.correlated_counts(n, joint, target=(x, x_prime))
    eps = np.sort(np.array(eps))
    d = curve.delta(eps)
    assert np.all((d >= 0.0) & (d <= 1.0))
    # non-increasing up to the curves' documented 1e-12 relative error
    assert np.all(d[1:] <= d[:-1] * (1.0 + 2e-12))
    P, Q = _lattice_laws(n, joint.tolist(), x, x_prime)
    tv = 0.5 * sum(abs(P.get(c, 0.0) - Q.get(c, 0.0)) for c in set(P) | set(Q))
    assert curve.delta(0.0) == pytest.approx(tv, rel=1e-9, abs=1e-15)


def test_histogram_is_above_the_counts():
    joint = statpriv.markov(0.4, [[0.7, 0.3], [0.2, 0.8]], days=3)
    eps = np.array([0.0, 0.1, 0.5, 1.0, 2.0])
    for target in (((1, 0, 0), (0, 0, 0)), ((1, 1, 0), (0, 1, 1)), None):
        exact = statpriv.correlated_counts(25, joint, target=target)
        upper = statpriv.correlated_counts(25, joint, target=target, method="histogram")
        assert np.all(upper.delta(eps) >= exact.delta(eps) * (1 - 1e-12))


def test_markov():
    T = [[0.9, 0.1], [0.2, 0.8]]
    joint = statpriv.markov(0.3, T, days=3)
    expect = [(0.7 if a == 0 else 0.3) * T[a][b] * T[b][c]
              for a, b, c in itertools.product((0, 1), repeat=3)]
    np.testing.assert_allclose(joint, expect, rtol=1e-15)
    np.testing.assert_array_equal(statpriv.markov(0.25, T, days=1), [0.75, 0.25])


@pytest.mark.parametrize("args, kwargs, match", [
    ((0, JOINT_2), {}, "n must be an integer >= 1"),
    ((5, [0.3, 0.1, 0.2, 0.5]), {}, "joint must sum to 1"),
    ((5, [0.3, 0.1, 0.2, 0.4 + 1e-12]), {}, r"joint must sum to 1 \(within 1e-13\)"),
    ((5, [0.5, 0.2, 0.3]), {}, "joint must hold 2.k probabilities"),
    ((5, [0.5]), {}, "joint must hold 2.k probabilities"),
    ((5, [1.2, -0.2]), {}, "joint"),
    ((5, [0.5, 0.5]), {"target": ((2,), (0,))}, r"target x entry must be an integer \[0, 1\]"),
    ((5, JOINT_2), {"target": ((1,), (0,))}, "target x must hold k = 2 answers"),
    ((5, JOINT_2), {"target": ((1, 0), (1, 0))}, "target must be two different"),
    ((5, JOINT_2), {"target": ((1, 0),)}, "target must be a pair"),
    ((5, JOINT_2), {"method": "fast"}, "method must be one of"),
    ((5, [1 / 32] * 32), {}, r"k in \[1, 4\] for method='exact', got k = 5"),
    ((10**3, statpriv.markov(0.3, [[0.8, 0.2], [0.4, 0.6]], days=4)), {},
     r"about .* terms .*method='histogram'"),
    ((10**5, MARKOV_3), {}, r"k=3: the box holding all but .* cell updates .*method='histogram'"),
    ((10**6, JOINT_2), {}, r"window holding all but .* cells .*method='histogram'"),
    ((5000, [1e-5, 1 - 1e-5]), {"target": ((1,), (0,))}, "smallest non-zero probability"),
])
def test_bad_input(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        statpriv.correlated_counts(*args, **kwargs)


def test_bad_types_and_markov_input():
    with pytest.raises(ParameterTypeError, match="target"):
        statpriv.correlated_counts(5, JOINT_2, target="ab")
    with pytest.raises(ValueError, match="transition rows must sum to 1"):
        statpriv.markov(0.5, [[0.5, 0.4], [0.5, 0.5]], days=2)
    with pytest.raises(ValueError, match="transition must be a 2 x 2 matrix"):
        statpriv.markov(0.5, [[0.5, 0.5, 0.0], [0.5, 0.5, 0.0]], days=2)
    with pytest.raises(ValueError, match="initial"):
        statpriv.markov(1.5, [[0.5, 0.5], [0.5, 0.5]], days=2)
    with pytest.raises(ValueError, match="days must be an integer"):
        statpriv.markov(0.5, [[0.5, 0.5], [0.5, 0.5]], days=0)


@pytest.mark.exhaustive
@pytest.mark.parametrize("seed", range(6))
def test_random_joints_against_live_oracle(seed):
    from statpriv import oracle
    from helpers import assert_matches
    rng = np.random.default_rng(seed)
    k = 2 + seed % 2
    n = 12 if k == 2 else 6
    joint = rng.dirichlet(np.ones(2 ** k))
    joint[rng.integers(2 ** k)] = 0.0
    joint = (joint / math.fsum(joint.tolist())).tolist()
    eps = [0.0, 0.1, 0.7, 2.0, 5.0]
    for target in (None, (tuple(rng.integers(0, 2, k).tolist()), (1,) * k)):
        if target is not None and target[0] == target[1]:
            continue
        x, xp = target if target is not None else (None, None)
        for method, release in (("exact", "counts"), ("histogram", "histogram")):
            curve = statpriv.correlated_counts(n, joint, target=target, method=method)
            ref = oracle.correlated_counts_delta(n, joint, x, xp, eps, release=release)
            for e, o, r in zip(eps, curve.log_delta(eps), ref):
                assert_matches(float(o), r, what=f"{method} {target} eps={e}")


def test_values_and_pickles():
    import json
    import pickle
    joint = statpriv.markov(0.3, [[0.9, 0.1], [0.2, 0.8]], days=2)
    for kwargs in ({"target": ((1, 0), (0, 1))}, {}, {"method": "histogram"}):
        curve = statpriv.correlated_counts(20, joint, **kwargs)
        again = statpriv.from_dict(json.loads(json.dumps(curve.to_dict())))
        assert again == curve and hash(again) == hash(curve)
        assert pickle.loads(pickle.dumps(curve)).delta(0.3) == curve.delta(0.3)
    # one pair is a pair of laws: the flattened lattice [0, n]^k, composable
    pair = statpriv.correlated_counts(20, joint, target=((1, 0), (0, 1)))
    assert pair.log_pmfs().log_p.size == 21 ** 2
    lo, hi = statpriv.compose(pair, times=2).delta_bounds(0.5)
    assert lo <= hi and pair.delta(0.5) < hi


@pytest.mark.parametrize("joint", [[0.3, 0.1, 0.2, 0.4], [0.5, 0.0, 0.0, 0.5], [0.0, 0.0, 0.3, 0.7],
                                   [0.2, 0.8, 0.0, 0.0], [1e-3, 0.5, 0.2, 0.299]])
def test_two_questions_kernel_is_the_record_by_record_law(joint):
    """k = 2 conditions on the first answer (binomials by Pascal's rule, their
    convolution); the general kernel adds one record at a time: one law."""
    from statpriv.correlated import _correlated
    for N in (0, 1, 7, 120):
        a = _correlated.lattice_log_law(2, N, joint)
        b = _correlated.lattice_log_law_by_records(2, N, joint)
        assert np.array_equal(np.isneginf(a), np.isneginf(b))
        live = np.isfinite(b)
        assert np.all(np.abs(a[live] - b[live]) <= 1e-17 * (1.0 + np.abs(b[live])))


# -- k = 2 on a window of the lattice (beyond the whole lattice's budget) ----

def _window(n, joint, target, log_tail=None):
    """The window route for one target pair (correlated_counts takes it for
    k = 2 beyond MAX_LAW_TERMS; called directly here at an n the whole
    lattice also takes, to compare the two)."""
    from statpriv import correlated
    kwargs = {} if log_tail is None else {"log_tail": log_tail}
    return correlated._window_curves(n - 1, np.asarray(joint, dtype=float), [target], None,
                                     "window", **kwargs)[0]


def _window_tail(n, joint, log_tail=-160.0):
    """ln of the Chernoff bound on the law's mass outside the box (the first
    and second count's windows, each side at most e^log_tail / 4)."""
    from statpriv import correlated
    sides = [(joint[2] + joint[3], joint[0] + joint[1]), (joint[1] + joint[3], joint[0] + joint[2])]
    return math.log(sum(correlated._binomial_window(n - 1, p, q, log_tail - math.log(4.0))[2]
                        for p, q in sides))


WINDOW_EPS = np.array([-0.5, 0.0, 0.05, 0.3, 1.0, 2.0, 3.0, 10.0])


@pytest.mark.parametrize("joint, target", [
    (JOINT_2, ((1, 0), (0, 1))),
    (JOINT_2, ((1, 1), (0, 0))),
    ([0.05, 0.45, 0.45, 0.05], ((0, 1), (0, 0))),
    ([0.02, 0.9, 0.05, 0.03], ((1, 0), (0, 0))),
])
def test_window_is_the_whole_lattice_where_its_tail_is_negligible(joint, target):
    """n = 260: the default box (all but 3e-70 of the law) cuts every side
    the Chernoff bound allows; both directions against the whole lattice:
    1e-12 relative wherever delta is 1e13 times the bound, and never below."""
    n = 260
    win, whole = _window(n, joint, target), statpriv.correlated_counts(n, joint, target=target)
    bound = _window_tail(n, joint)
    assert -170.0 < bound < -155.0                    # the box did cut something
    for d in ("plus", "minus"):
        a = getattr(win, f"log_delta_{d}")(WINDOW_EPS)
        b = getattr(whole, f"log_delta_{d}")(WINDOW_EPS)
        assert np.all(a >= b - 1e-12), (d, a, b)
        far = b > bound + 30.0
        assert far.sum() >= 4
        np.testing.assert_allclose(a[far], b[far], rtol=1e-12, atol=0.0, err_msg=d)


@pytest.mark.parametrize("target", [((1, 0), (0, 1)), ((0, 1), (0, 0))])
def test_window_truncation_is_bounded_and_added(target):
    """A box holding all but e^-12 of the law: delta is over-reported, by at
    most the bound added for the mass outside the box plus the mass of the
    box's cells whose partner lies outside it (summed here from the whole
    lattice's law), and never under-reported."""
    from statpriv.correlated import _correlated
    n, eps = 120, np.array([0.0, 0.2, 0.5, 1.0, 2.0, 4.0])
    win = _window(n, JOINT_2, target, log_tail=-12.0)
    whole = statpriv.correlated_counts(n, JOINT_2, target=target)
    law = np.exp(_correlated.lattice_log_law(2, n - 1, JOINT_2).astype(float))
    law /= law.sum()
    from statpriv import correlated
    (m_lo, m_hi, _), (c_lo, c_hi, _) = (
        correlated._binomial_window(n - 1, p, 1.0 - p, -12.0 - math.log(4.0)) for p in (0.6, 0.5))
    inside = np.zeros_like(law, dtype=bool)
    inside[m_lo:m_hi + 1, c_lo:c_hi + 1] = True
    assert inside.sum() < inside.size                  # the box is a real cut
    outside = law[~inside].sum()
    for sign, d in ((1, "plus"), (-1, "minus")):
        shift = sign * (np.array(target[0]) - np.array(target[1]))
        partner_inside = np.zeros_like(inside)
        rows, cols = np.indices(law.shape)
        r2, c2 = rows + shift[0], cols + shift[1]
        ok = (r2 >= 0) & (r2 < law.shape[0]) & (c2 >= 0) & (c2 < law.shape[1])
        partner_inside[ok] = inside[r2[ok], c2[ok]]
        edge = law[inside & ~partner_inside].sum()
        a = getattr(win, f"delta_{d}")(eps)
        b = getattr(whole, f"delta_{d}")(eps)
        assert np.all(a >= b * (1 - 1e-12)), (d, a, b)
        added = math.exp(_window_tail(n, JOINT_2, -12.0))
        assert outside <= added <= math.exp(-12.0)
        assert np.all(a - b <= added + edge + 1e-15), (d, a - b, added, edge)
        assert np.any(a - b > 1e-3 * math.exp(-12.0))  # and the cut shows


def test_window_against_live_oracle():
    """Every multinomial outcome in mpmath (n = 20) against a box that cuts the
    lower tail of the first count (p1 = 0.95: its mass below the box < 1e-18)."""
    from statpriv import oracle
    joint, target, eps = [0.02, 0.03, 0.45, 0.5], ((1, 0), (0, 1)), [0.0, 0.4, 1.5]
    win = _window(20, joint, target, log_tail=-42.0)
    assert -50.0 < _window_tail(20, joint, -42.0) < -40.0
    for d in ("plus", "minus"):
        ref = oracle.correlated_counts_delta(20, joint, *target, eps, direction=d)
        ours = getattr(win, f"delta_{d}")(np.array(eps))
        for o, r in zip(ours, ref):
            assert abs(o - float(r)) <= 1e-12 * float(r), (d, o, r)


@settings(max_examples=8, deadline=None)
@given(n=st.integers(100, 160),
       weights=st.lists(st.floats(0.02, 1.0), min_size=4, max_size=4),
       x=st.tuples(st.integers(0, 1), st.integers(0, 1)),
       x_prime=st.tuples(st.integers(0, 1), st.integers(0, 1)),
       eps=st.lists(st.floats(0.0, 6.0), min_size=2, max_size=5))
def test_window_properties(n, weights, x, x_prime, eps):
    """Never below the whole lattice, within 1e-12 of it where delta is far
    above the bound, at most 1, non-increasing in eps."""
    if x == x_prime:
        x_prime = (1 - x[0], x[1])
    joint = np.array(weights) / math.fsum(weights)
    win = _window(n, joint, (x, x_prime), log_tail=-25.0)
    whole = statpriv.correlated_counts(n, joint, target=(x, x_prime))
    eps = np.sort(np.array(eps))
    a, b = win.log_delta(eps), whole.log_delta(eps)
    assert np.all(a >= b - 1e-12) and np.all(a <= 0.0)
    assert np.all(np.diff(a) <= 1e-12)
    far = b > _window_tail(n, joint, -25.0) + 30.0
    np.testing.assert_allclose(a[far], b[far], rtol=0.0, atol=1e-12)


def test_window_counts_a_first_answer_that_rounds_to_certain():
    """P(a1 = 1) = 1 - 1e-17 rounds to 1.0, but the others answer a1 = 0 with
    probability 1e-17 each: the window keeps the rows below N.  Target
    (1, 0) vs (0, 0): Q's count c1 = N with P[S1 = N] ~ 1, where P has
    P[S1 = N - 1] = N 1e-17 (1 - 1e-17)^(N-1); the rows below add ~1e-13
    more, so delta_minus(20) = 1 - e^20 N 1e-17 to ~1e-8 relative in that
    difference (a window of the row N alone would give 1)."""
    from statpriv import correlated
    m_lo, m_hi, mass = correlated._binomial_window(9999, 1.0, 1e-17, -160.0)
    assert m_lo < 9999 and m_hi == 9999 and 0.0 < mass <= math.exp(-160.0)
    joint = [5e-18, 5e-18, 0.5, 0.5 - 1e-17]
    curve = statpriv.correlated_counts(10**4, joint, target=((1, 0), (0, 0)))
    gap = 1.0 - curve.delta_minus(20.0)
    assert gap == pytest.approx(math.exp(20.0) * 9999 * 1e-17, rel=1e-6)


def test_window_resolves_partners_below_the_double_range():
    """joint [0, 0, 1e-300, 1]: every record answers a1 = 1, and a2 = 0 with
    probability 1e-300, so the count of a2 = 0 among the N = 1299 others is
    Bin(N, 1e-300) (neighbouring cells e^690 apart, far below what the box's
    doubles hold).  Target (0, 0) vs (0, 1), delta_plus: the cell of j = 0
    answers a2 = 0 has weight (1 - 1e-300)^N = 1 and its partner j = 1 weight
    N 1e-300, so delta_plus(eps) = 1 - e^eps N 1e-300 while that is positive
    (the cells j >= 1 add < 1e-290), and below 1e-290 from eps ~ 683.7 on,
    not the 1 of a partner the box cannot hold."""
    import mpmath
    curve = statpriv.correlated_counts(1300, [0.0, 0.0, 1e-300, 1.0],
                                       target=((0, 0), (0, 1)))
    assert "window" in curve.description
    with mpmath.workdps(40):
        want = 1 - mpmath.exp(680) * 1299 * mpmath.mpf(1e-300)
        assert 0.9 < want < 1.0
        assert curve.delta_plus(680.0) == pytest.approx(float(want), rel=1e-12)
    assert 0.0 <= curve.delta_plus(700.0) < 1e-100
    assert curve.delta_minus(700.0) == 1.0        # (N, N) has no partner: delta = 1


def test_two_questions_at_ten_thousand():
    """The window route at n = 10^4 (the whole lattice: 1.7e11 terms): a
    target pair, the worst case over the four pairs above it, the histogram's
    upper curve above both, delta falling from 1 - e^eps... and ln delta
    exact to the bound ~e^-160."""
    joint = [0.3, 0.1, 0.2, 0.4]
    pair = statpriv.correlated_counts(10**4, joint, target=((1, 0), (0, 1)))
    worst = statpriv.correlated_counts(10**4, joint)
    upper = statpriv.correlated_counts(10**4, joint, target=((1, 0), (0, 1)),
                                       method="histogram")
    eps = np.array([0.0, 0.1, 0.3, 0.5])
    d = pair.delta(eps)
    assert "window" in pair.description
    assert np.all(np.diff(d) < 0) and 1e-50 < d[-1] < 1e-30
    assert worst.delta(0.3) >= d[2] and np.all(upper.delta(eps) >= d)
    # a one-record change among 10^4: a Gaussian privacy loss of variance
    # d' Sigma^-1 d = 13.8 / N (Sigma = N [[.24, .1], [.1, .25]]): the TV distance
    # 2 Phi(sqrt(v) / 2) - 1 = erf(sqrt(v / 8)) to a few percent
    v = 13.8 / (10**4 - 1)
    assert d[0] == pytest.approx(math.erf(math.sqrt(v / 8.0)), rel=0.05)


@pytest.mark.parametrize("target, p", [(((1, 0), (0, 0)), 0.3), (((0, 0), (0, 1)), 0.4)])
def test_window_one_question_is_the_count_at_ten_thousand(target, p):
    """Independent questions, the target differing in one: the other count is
    the same law in both worlds, so the curve is that question's count,
    statpriv.counting (n = 10^4, the window route; its mirror for a shift
    down)."""
    n, p1, p2 = 10**4, 0.3, 0.6
    joint = np.outer([1 - p1, p1], [1 - p2, p2]).ravel()
    ours = statpriv.correlated_counts(n, joint, target=target)
    count = statpriv.counting(n, p)
    eps = np.array([0.0, 0.02, 0.05, 0.1, 0.2])
    for direction in ("plus", "minus"):
        a = getattr(ours, f"log_delta_{direction}")(eps)
        b = getattr(count, f"log_delta_{direction}")(eps)
        assert b[-1] < -20.0 and b[-1] > -120.0        # far in the tail, above the bound
        np.testing.assert_allclose(a, b, rtol=0.0, atol=1e-12, err_msg=direction)


# -- k = 3 on a box of the lattice (beyond the whole lattice's budget) -------

def _box(n, joint, pairs, log_tail=None):
    """The box route for target pairs (correlated_counts takes it for k = 3
    beyond MAX_LAW_TERMS; called directly here at an n the whole lattice
    also takes, to compare the two)."""
    from statpriv import correlated
    kwargs = {} if log_tail is None else {"log_tail": log_tail}
    return correlated._box_curve(n - 1, np.asarray(joint, dtype=float), pairs, None, "box",
                                 **kwargs)


def _box_windows(n, joint, log_tail):
    """Each count's window [lo, hi] and the Chernoff bound on its mass
    outside (each side at most e^log_tail / 6), from the count's law."""
    from statpriv import correlated
    out = []
    for j in range(3):
        p = sum(joint[v] for v in range(8) if (v >> (2 - j)) & 1)
        out.append(correlated._binomial_window(n - 1, p, 1.0 - p, log_tail - math.log(6.0)))
    return out


@pytest.mark.parametrize("N", [0, 1, 4, 33])
@pytest.mark.parametrize("joint", [MARKOV_3, JOINT_3, [0.2, 0.0, 0.0, 0.3, 0.1, 0.0, 0.0, 0.4]])
def test_box_law_is_the_lattice(N, joint):
    """The box's slices (a tree of one-record convolutions on planes) against
    the record-by-record lattice: the whole lattice and a box inside it,
    every cell to 1e-13 relative, zero where the lattice is zero (the cut,
    e^-260, takes nothing here but zeros: its bound stays below 1e-100)."""
    from statpriv.correlated import _correlated
    whole = np.exp(_correlated.lattice_log_law(3, N, joint).astype(float))
    for window in ((0, N, 0, N, 0, N), (N // 4, N - N // 5, N // 3, N - N // 6, N // 5, N // 2)):
        law, dropped = _correlated.three_box_law(N, joint, window, 260.0)
        ref = whole[window[0]:window[1] + 1, window[2]:window[3] + 1, window[4]:window[5] + 1]
        assert law.shape == ref.shape and 0.0 <= dropped <= 1e-100
        live = ref > 0.0
        assert np.all(law[~live] == 0.0)
        np.testing.assert_allclose(law[live], ref[live], rtol=1e-13, atol=0.0)


@pytest.mark.parametrize("N", [1, 2, 7, 60])
def test_box_halves_at_once_are_one_pass(N):
    """The root's two halves built at once (threads = 2, each its own
    buffers and slice sums, the seam's terms found after both) against one
    after the other in one set of buffers (threads = 1): the same law to
    the bit, the same cut bound, and the same delta sums to the bit (the
    terms are added in order of m either way), on the whole lattice and on
    a box with one and two slices."""
    from statpriv.correlated import _correlated
    shifts = [[1, 0, -1], [0, 1, 1], [-1, 1, 0], [0, 0, 1]]
    boxes = [(0, N, 0, N, 0, N), (N // 3, N // 3, 0, N, N // 4, N),
             (N // 3, N // 3 + 1, N // 4, N, 0, N // 2)]
    for joint in (MARKOV_3, JOINT_3):
        for window in boxes:
            laws = [_correlated.three_box_law(N, joint, window, 30.0, threads=t) for t in (1, 2)]
            assert np.array_equal(laws[0][0], laws[1][0]), window
            assert laws[0][1] == pytest.approx(laws[1][1], rel=1e-15, abs=0.0)
            cores = [_correlated.BoxCore(N, joint, window, 30.0, shifts, 1e-30, threads=t)
                     for t in (1, 2)]
            curves = [PrivacyCurve(c, None, "box") for c in cores]
            for d in ("plus", "minus"):
                one, two = (getattr(c, f"log_delta_{d}")(WINDOW_EPS) for c in curves)
                np.testing.assert_array_equal(one, two, err_msg=f"{window} {d}")
    with pytest.raises(ValueError, match="internal error"):
        _correlated.three_box_law(3, MARKOV_3, (0, 3, 0, 3, 0, 3), 30.0, threads=3)


BOX_PAIRS = [((1, 0, 0), (0, 0, 1)), ((1, 1, 1), (0, 0, 0)), ((0, 1, 0), (0, 0, 0)),
             ((1, 0, 1), (0, 1, 0))]


@pytest.mark.parametrize("target", BOX_PAIRS)
def test_box_is_the_whole_lattice(target):
    """n = 36: the default box (all but 3e-70) is the whole lattice there,
    built the other way (slices of a tree of convolutions, delta summed two
    slices at a time): both directions to 1e-12 relative."""
    n = 36
    box = _box(n, MARKOV_3, [target])
    whole = statpriv.correlated_counts(n, MARKOV_3, target=target)
    assert "box" not in whole.description
    for d in ("plus", "minus"):
        a = getattr(box, f"log_delta_{d}")(WINDOW_EPS)
        b = getattr(whole, f"log_delta_{d}")(WINDOW_EPS)
        np.testing.assert_allclose(a, b, rtol=0.0, atol=1e-12, err_msg=d)


@pytest.mark.parametrize("target", BOX_PAIRS[:2])
def test_box_truncation_is_bounded_and_added(target):
    """A box holding all but e^-10 of the law (n = 45): delta is
    over-reported, by at most the bound added for the mass outside the box
    plus the mass of the box's cells whose partner lies outside it (summed
    here from the whole lattice's law), and never under-reported."""
    from statpriv.correlated import _correlated
    n, eps = 45, np.array([0.0, 0.2, 0.5, 1.0, 2.0, 4.0])
    box = _box(n, MARKOV_3, [target], log_tail=-10.0)
    whole = statpriv.correlated_counts(n, MARKOV_3, target=target)
    law = np.exp(_correlated.lattice_log_law(3, n - 1, MARKOV_3).astype(float))
    windows = _box_windows(n, MARKOV_3, -10.0)
    inside = np.zeros(law.shape, dtype=bool)
    inside[tuple(slice(lo, hi + 1) for lo, hi, _ in windows)] = True
    assert inside.sum() < inside.size                  # the box is a real cut
    added = sum(w[2] for w in windows)
    assert law[~inside].sum() <= added <= math.exp(-10.0)
    index = np.indices(law.shape)
    for sign, d in ((1, "plus"), (-1, "minus")):
        shift = sign * (np.array(target[0]) - np.array(target[1]))
        to = [index[j] + shift[j] for j in range(3)]
        ok = np.all([(t >= 0) & (t < law.shape[0]) for t in to], axis=0)
        partner_inside = np.zeros_like(inside)
        partner_inside[ok] = inside[tuple(t[ok] for t in to)]
        edge = law[inside & ~partner_inside].sum()
        a = getattr(box, f"delta_{d}")(eps)
        b = getattr(whole, f"delta_{d}")(eps)
        assert np.all(a >= b * (1 - 1e-12)), (d, a, b)
        assert np.all(a - b <= added + edge + 1e-15), (d, a - b, added, edge)
        assert np.any(a - b > 1e-3 * math.exp(-10.0))  # and the cut shows


def test_box_worst_case_is_the_lattice_worst_case():
    """Every target pair on one box (the max over 13 shifts, both directions)
    against the whole lattice's worst case."""
    from statpriv.correlated import _correlated
    from statpriv import correlated
    n = 16
    pairs = correlated._shift_pairs(3)
    assert len(pairs) == 13
    worst = statpriv.PrivacyCurve(_correlated.MaxCore([_box(n, JOINT_3, pairs)._core]), None,
                                  "box worst case")
    whole = statpriv.correlated_counts(n, JOINT_3)
    eps = WINDOW_EPS[1::2]
    for d in ("plus", "minus"):
        np.testing.assert_allclose(getattr(worst, f"log_delta_{d}")(eps),
                                   getattr(whole, f"log_delta_{d}")(eps),
                                   rtol=0.0, atol=1e-12, err_msg=d)


@pytest.mark.parametrize("target", [BOX_PAIRS[1], pytest.param(BOX_PAIRS[0],
                                                                 marks=pytest.mark.exhaustive)])
def test_box_against_live_oracle(target):
    """Every multinomial outcome in mpmath (n = 7, 50 digits)."""
    from statpriv import oracle
    eps = [0.0, 0.4, 1.5]
    for target in [target]:
        box = _box(7, MARKOV_3, [target])
        for d in ("plus", "minus"):
            ref = oracle.correlated_counts_delta(7, MARKOV_3, *target, eps, direction=d)
            ours = getattr(box, f"delta_{d}")(np.array(eps))
            for o, r in zip(ours, ref):
                assert abs(o - float(r)) <= 1e-12 * float(r), (target, d, o, r)


def test_three_questions_take_the_box_beyond_the_lattice():
    """n = 200 (the whole lattice: 3e9 terms) answers on the box; its
    description says so and the bound added; the histogram's upper curve
    is above it."""
    target = ((1, 0, 0), (0, 0, 1))
    curve = statpriv.correlated_counts(200, MARKOV_3, target=target)
    assert "on a box of the lattice" in curve.description
    upper = statpriv.correlated_counts(200, MARKOV_3, target=target, method="histogram")
    d = curve.delta(0.3)
    assert 1e-30 < d < upper.delta(0.3)


@pytest.mark.exhaustive
@pytest.mark.parametrize("target, kind", [
    (((1, 1, 0), (0, 0, 0)), "compose"), (((0, 1, 0), (0, 0, 1)), "compose"),
    (((0, 0, 1), (0, 0, 0)), "count"), (((1, 0, 0), (0, 0, 0)), "count")])
def test_box_independent_questions_at_a_thousand(target, kind):
    """n = 10^3 on the box (~1 s a delta): independent questions, the
    target differing in one or two; the others' counts of the questions it
    answers alike are the same law in both worlds, so the curve is the
    exact composition of the differing questions' counts (statpriv.counting,
    its mirror for a shift down): ln delta to 1e-12."""
    n, ps = 10**3, (0.3, 0.6, 0.45)
    joint = np.einsum("i,j,k->ijk", *[[1 - p, p] for p in ps]).ravel()
    ours = statpriv.correlated_counts(n, joint, target=target)
    assert "on a box of the lattice" in ours.description
    parts = [statpriv.counting(n, p if a > b else 1.0 - p)
             for (a, b), p in zip(zip(*target), ps) if a != b]
    assert len(parts) == (2 if kind == "compose" else 1)
    exact = parts[0] if kind == "count" else statpriv.compose(*parts, exact=True)
    eps = np.array([0.0, 0.05, 0.2])
    for direction in ("plus", "minus"):
        a = getattr(ours, f"log_delta_{direction}")(eps)
        b = getattr(exact, f"log_delta_{direction}")(eps)
        assert np.all(b > -300.0)
        np.testing.assert_allclose(a, b, rtol=0.0, atol=1e-12, err_msg=direction)


@pytest.mark.exhaustive
@pytest.mark.parametrize("seed", range(6))
def test_box_random_joints_against_the_lattice(seed):
    """Random joints (one entry zero), random pairs, n = 40, the box
    holding all but e^-20 (a real cut): never below the whole lattice,
    within 1e-12 of it where delta is e^30 above the bound, at most 1."""
    rng = np.random.default_rng(100 + seed)
    joint = rng.dirichlet(np.ones(8))
    joint[rng.integers(8)] = 0.0
    joint = joint / math.fsum(joint.tolist())
    n = 40
    bound = math.log(sum(w[2] for w in _box_windows(n, joint.tolist(), -20.0)) or 1e-300)
    eps = np.array([-0.3, 0.0, 0.1, 0.5, 1.0, 2.0, 5.0])
    for _ in range(3):
        x = tuple(rng.integers(0, 2, 3).tolist())
        x_prime = tuple(rng.integers(0, 2, 3).tolist())
        if x == x_prime:
            continue
        box = _box(n, joint, [(x, x_prime)], log_tail=-20.0)
        whole = statpriv.correlated_counts(n, joint, target=(x, x_prime))
        for d in ("plus", "minus"):
            a = getattr(box, f"log_delta_{d}")(eps)
            b = getattr(whole, f"log_delta_{d}")(eps)
            assert np.all(a >= b - 1e-12) and np.all(a <= 0.0), (d, a, b)
            far = b > bound + 30.0
            np.testing.assert_allclose(a[far], b[far], rtol=0.0, atol=1e-12, err_msg=d)


@pytest.mark.parametrize("n, joint, target", [
    (1300, [0.4, 0.1, 0.1, 0.4], ((1, 0), (0, 1))),         # k = 2, the window route
    (1300, [0.4, 0.1, 0.1, 0.4], None),                      # its worst case
])
def test_window_routes_certified_interval_is_refused_with_its_cost(n, joint, target):
    curve = statpriv.correlated_counts(n, joint, target=target)
    assert "window" in curve.description
    with pytest.raises(ValueError, match=r"Arb terms .*about [0-9.e+]+ s"):
        curve.delta_interval(0.5)
