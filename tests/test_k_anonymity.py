"""statpriv.k_anonymity: the two curves bracketing a k-anonymous histogram.

Reference values: the mpmath oracle (statpriv.oracle.k_anonymity_delta, every
pair of the two categories' counts enumerated with its trinomial probability),
stored by tools/precompute_reference.py, a few live; and a brute force of
the FULL released histogram (every category, written here from Def. 16 of
Desfontaines, Mohammadi, Krahmer & Basin, "Differential Privacy with Partial
Knowledge"), which must lie between the two curves.
"""
import itertools
import math

import mpmath
import numpy as np
import pytest

import statpriv
from statpriv import ParameterTypeError, oracle
from helpers import assert_matches, check_curve, zip_equal

EPS = [-0.5, 0.0, 0.05, 0.3, 1.0, 3.0]
# (name, (n, probs, k, source, target), eps grid): the stored oracle values
CASES = [
    ("k-anonymity a", (30, [0.2, 0.3, 0.1], 3, 0, 1), EPS),
    ("k-anonymity b", (25, [0.1, 0.05], 4, 1, 0), EPS),
    ("k-anonymity c", (40, [0.02, 0.03, 0.5], 3, 0, 1), EPS),
    ("k-anonymity d", (20, [0.5, 0.5], 3, 0, 1), EPS),
]


@pytest.mark.parametrize("bound", ["lower", "upper"])
@pytest.mark.parametrize("name, args, eps", CASES, ids=[c[0] for c in CASES])
def test_against_stored_oracle(name, args, eps, bound):
    n, probs, k, source, target = args
    curve = getattr(statpriv.k_anonymity(n, probs, k, source=source, target=target), bound)
    check_curve(curve, ("k_anonymity_delta", args, dict(bound=bound, max_terms=1e8)), eps=eps,
                label=f"{name} {bound}")


def test_live_oracle_small():
    ka = statpriv.k_anonymity(14, [0.15, 0.25, 0.4], 3, source=1, target=0)
    eps = [-0.3, 0.0, 0.5, 2.5]
    for bound in ("lower", "upper"):
        curve = getattr(ka, bound)
        for direction in ("plus", "minus"):
            ours = getattr(curve, f"log_delta_{direction}")(eps)
            refs = oracle.k_anonymity_delta(14, [0.15, 0.25, 0.4], 3, 1, 0, eps, bound=bound,
                                            direction=direction)
            for o, r in zip_equal(ours, refs):
                assert_matches(float(o), r, what=f"{bound} {direction}")
    assert float(ka.upper.delta(0.5, precision="mp")) == pytest.approx(ka.upper.delta(0.5),
                                                                        rel=1e-12)


def _full_histogram_delta(n, probs, k, source, target, eps):
    """max(delta_plus, delta_minus) of the whole released histogram, from Def. 16:
    the n - 1 others' category counts (the last category, 1 - sum(probs), never
    released) enumerated with their multinomial probabilities."""
    with mpmath.workdps(40):
        ps = [mpmath.mpf(p) for p in probs]
        ps.append(1 - mpmath.fsum(ps))
        P, Q = {}, {}
        N = n - 1
        for counts in itertools.product(range(N + 1), repeat=len(ps) - 1):
            if sum(counts) > N:
                continue
            counts = counts + (N - sum(counts),)
            mass = mpmath.mpf(math.factorial(N))
            for c, p in zip(counts, ps):
                mass *= (p ** c if c else 1) / math.factorial(c)
            for law, moved in ((P, source), (Q, target)):
                full = list(counts[:-1])
                full[moved] += 1
                out = tuple(c if c >= k else None for c in full)
                law[out] = law.get(out, 0) + mass
        keys = set(P) | set(Q)
        E = mpmath.exp(eps)
        plus = mpmath.fsum(max(P.get(x, 0) - E * Q.get(x, 0), 0) for x in keys)
        minus = mpmath.fsum(max(Q.get(x, 0) - E * P.get(x, 0), 0) for x in keys)
        return max(plus, minus)


@pytest.mark.parametrize("n, probs, k", [(8, [0.25, 0.2, 0.3], 2), (9, [0.1, 0.35, 0.15], 3),
                                         (7, [0.3, 0.3, 0.4], 1)])
def test_full_histogram_lies_between(n, probs, k):
    ka = statpriv.k_anonymity(n, probs, k, source=0, target=1)
    for eps in (0.0, 0.3, 1.0):
        truth = float(_full_histogram_delta(n, probs, k, 0, 1, eps))
        lower, upper = ka.lower.delta(eps), ka.upper.delta(eps)
        assert lower <= truth * (1 + 1e-12) and truth <= upper * (1 + 1e-12)
        if k == 1 and math.fsum(probs) == 1.0:
            # every count is released (k = 1 only hides 0, i.e. reveals it) and
            # nothing is never-released: the total is known, truth = upper
            assert truth == pytest.approx(upper, rel=1e-12)


def test_two_categories_fill_everything():
    # probs sum to 1 with two categories: the attacker knows m = n - 1 anyway
    ka = statpriv.k_anonymity(30, [0.4, 0.6], 4, source=0, target=1)
    eps = [0.0, 0.2, 1.0]
    np.testing.assert_allclose(ka.lower.log_delta(eps), ka.upper.log_delta(eps), rtol=1e-13)


def test_large_n_runs_and_is_ordered():
    ka = statpriv.k_anonymity(10**4, [0.003, 0.002, 0.5], 5, source=0, target=1)
    eps = [0.0, 0.5, 2.0]
    lo, hi = ka.lower.delta(eps), ka.upper.delta(eps)
    assert np.all(lo <= hi * (1 + 1e-12)) and np.all(lo > 0)
    e = ka.upper.epsilon(1e-3)
    assert ka.upper.delta(e) <= 1e-3


@pytest.mark.parametrize("kwargs, match", [
    (dict(pi=[0.6, 0.5], k=2, source=0, target=1), "pi must sum to at most 1"),
    (dict(pi=[-0.1, 0.5], k=2, source=0, target=1), r"pi must lie in \[0.0, 1.0\]"),
    (dict(pi=[0.2, 0.5], k=2, source=1, target=1), "source and target"),
    (dict(pi=[0.2, 0.5], k=0, source=0, target=1), "k"),
    (dict(pi=[0.2, 0.5], k=2, source=0, target=2), "target"),
    (dict(pi=[0.2], k=2, source=0, target=0), "pi must hold at least two categories"),
])
def test_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        statpriv.k_anonymity(10, **kwargs)


def test_probs_is_the_deprecated_name_of_pi():
    new = statpriv.k_anonymity(30, pi=[0.2, 0.3, 0.1], k=3, source=0, target=1)
    with pytest.warns(DeprecationWarning, match=r"k_anonymity\(probs=\.\.\.\) is deprecated: the "
                                                r"parameter is called pi now"):
        old = statpriv.k_anonymity(30, probs=[0.2, 0.3, 0.1], k=3, source=0, target=1)
    assert old.lower.delta([0.1, 1.0]).tolist() == new.lower.delta([0.1, 1.0]).tolist()
    assert old.upper.delta([0.1, 1.0]).tolist() == new.upper.delta([0.1, 1.0]).tolist()
    with pytest.raises(TypeError, match="give pi or its old name probs"):
        statpriv.k_anonymity(30, pi=[0.2, 0.3], probs=[0.2, 0.3], k=3, source=0, target=1)
    with pytest.raises(TypeError, match="multiple values for argument 'pi'"), \
            pytest.warns(DeprecationWarning):
        statpriv.k_anonymity(30, [0.2, 0.3], 3, probs=[0.2, 0.3], source=0, target=1)


def test_bad_types():
    with pytest.raises(ParameterTypeError):
        statpriv.k_anonymity(10, [0.2, 0.3], 2.0j, source=0, target=1)
    with pytest.raises(ParameterTypeError):
        statpriv.k_anonymity(10, [0.2, 0.3], 2, source=True, target=1)


@pytest.mark.exhaustive
def test_random_small_cases_against_live_oracle():
    rng = np.random.default_rng(2027)
    for _ in range(25):
        n = int(rng.integers(1, 35))
        cats = int(rng.integers(2, 5))
        probs = rng.dirichlet(np.ones(cats + 1))[:cats] if rng.random() < 0.7 else \
            rng.dirichlet(np.ones(cats))
        probs = [float(p) for p in probs]
        if rng.random() < 0.2:
            probs[0] = 0.0
        k = int(rng.integers(1, 7))
        source, target = (int(x) for x in rng.choice(cats, size=2, replace=False))
        eps = [float(e) for e in rng.choice([-0.5, 0.0, 0.05, 0.5, 2.0], size=3)]
        ka = statpriv.k_anonymity(n, probs, k, source=source, target=target)
        for bound in ("lower", "upper"):
            curve = getattr(ka, bound)
            for direction in ("plus", "minus"):
                ours = getattr(curve, f"log_delta_{direction}")(eps)
                refs = oracle.k_anonymity_delta(n, probs, k, source, target, eps, bound=bound,
                                                direction=direction)
                for o, r in zip_equal(ours, refs):
                    assert_matches(float(o), r, what=f"n={n} {probs} k={k} {source}->{target} "
                                                     f"{bound} {direction}")


# Near a zero point P - e^eps Q cancels, and far tails lie below any windowed
# rest (found by the differential test; truth from the independent mpmath oracle).
_HARD = [
    ((2, [0.0, 0.5], 2, 0, 1), "lower", "plus", 0.6931471805599453),
    ((14, [5e-324, 1e-300], 10, 1, 0), "upper", "plus", 10000.0),
    ((2, [1.1102230246251565e-16, 0.117450807381861, 0.7691697497002095], 2, 2, 0), "upper",
     "minus", 36.47435567656948),
]


@pytest.mark.parametrize("args, bound, direction, eps", _HARD)
def test_cancellation_and_far_tail(args, bound, direction, eps):
    import independent_oracle as O
    n, probs, k, s, t = args
    curve = getattr(statpriv.k_anonymity(n, probs, k, source=s, target=t), bound)
    ours = getattr(curve, f"log_delta_{direction}")(eps)
    truth = O.k_anonymity(n, probs[s], probs[t], k, bound).delta(eps, direction)
    diff = float(mpmath.mpf(ours) - mpmath.log(truth))
    assert abs(math.expm1(diff)) <= 1e-12 or abs(diff) <= 1e-10 and ours < -700


# The source and target categories summing to 1 in floats, the third category
# the residue (~1e-16): ln P[m = A + B] carries the residue's relative error
# N - m times, and 1 - pa rounded once in long double (2^-64 of 1) put ~1e-4 on
# it: the upper curve's ln delta far out read 8e-5 low (an under-report) or
# 8.6e-5 high.  Truth: the independent mpmath oracle (exact rationals).
_RESIDUE = [
    (23, [9.753893215311518e-17, 4.010286258959964e-15, 0.9999999999999959], 3, 1, 2),
    (29, [5.3293652973509655e-17, 0.9999999999999999], 28, 0, 1),
]


@pytest.mark.parametrize("args", _RESIDUE, ids=["third category", "bottom only"])
def test_residue_category_brackets_the_truth(args):
    import independent_oracle as O
    n, probs, k, s, t = args
    ka = statpriv.k_anonymity(n, probs, k, source=s, target=t)
    for bound in ("upper", "lower"):
        truth = O.k_anonymity(n, probs[s], probs[t], k, bound)
        for eps, direction in itertools.product([0.0, 10.0, 1e4], ("plus", "minus")):
            ours = getattr(getattr(ka, bound), f"log_delta_{direction}")(eps)
            diff = float(mpmath.mpf(ours) - mpmath.log(truth.delta(eps, direction)))
            what = f"{args} {bound} {direction} eps={eps}: ln delta off by {diff:.3e}"
            assert abs(diff) <= 1e-12, what
            # the bracket: upper never below the truth, lower never above (up to
            # the rounding of the log sums, ~1e-14 of delta)
            slack = 1e-14 * max(1.0, abs(ours))
            assert (diff >= -slack) if bound == "upper" else (diff <= slack), what


def test_cell_of_mass_one_keeps_its_own_accuracy():
    # k = n - 1: the target category's count is released only at B + 1 = n, so
    # the lower curve's delta_minus far out is the one (bottom, n) cell, P[B =
    # n - 1] = pb^(n-1) = 1 - 3.1e-15.  Its line of f(., b) was walked from a
    # start at ln f ~ -34 in doubles (the middle of a's range, not f's peak):
    # ln delta read -1.2e-15 instead of -3.1e-15 (delta 1.9e-15 above the truth)
    n, probs = 29, [5.3293652973509655e-17, 0.9999999999999999]
    ours = statpriv.k_anonymity(n, probs, n - 1, source=0, target=1).lower.log_delta_minus(1e4)
    with mpmath.workdps(50):
        truth = (n - 1) * mpmath.log1p(-mpmath.mpf(2) ** -53)
    assert abs(ours - truth) <= 1e-12 * abs(truth)


def test_residue_trinomial_pmf():
    # the pmf the 2-D sums are built on, P[A = a, B = b] = W(a + b) g_{a+b}(a),
    # against the trinomial in exact rationals where the third category is the
    # floats' residue 1 - pa - pb = 9.75e-17 (it was 1.5e-4 off per record there)
    from fractions import Fraction
    from statpriv.thresholding import _thresholding
    pa, pb, N = 4.010286258959964e-15, 0.9999999999999959, 22
    fa, fb = Fraction(pa), Fraction(pb)
    fc = 1 - fa - fb
    core = _thresholding.KAnonymityCore(float(N), pa, pb, 3, True, 0, N, (0, N), (0, N),
                                        -math.inf, None)
    for a, b in [(0, 0), (3, 1), (12, 0), (21, 0), (0, 21), (5, 17)]:
        exact = (math.comb(N, a) * math.comb(N - a, b) * fa ** a * fb ** b
                 * fc ** (N - a - b))
        with mpmath.workdps(50):
            log_exact = mpmath.log(mpmath.mpf(exact.numerator)) - mpmath.log(exact.denominator)
        assert abs(core.log_f(a, b) - float(log_exact)) <= 1e-12 * max(1.0, abs(core.log_f(a, b))), (a, b)


def test_expensive_upper_pld_is_refused_up_front_with_a_grid_that_fits():
    # found by the fuzzer: at n = 872 every evaluation of the upper curve sums
    # ~6e4 terms, and the default grid (h = 1e-4) needs ~26,000 of them (~13 s):
    # refused before any grid point is evaluated, naming the coarser h that fits
    import re
    from statpriv.laws import grid_pld
    upper = statpriv.k_anonymity(872, [0.33523947233396356, 0.3, 0.3, 8.206768598029157e-13],
                                 20, source=0, target=1).upper
    with pytest.raises(ValueError, match="value_discretization_interval=0.0001 needs") as info:
        upper.privacy_loss_distribution()
    fits = float(re.search(r"value_discretization_interval=(\S+) fits", str(info.value))[1])
    assert 1e-4 < fits < 1e-3
    # the suggested grid passes the cost check (its construction alone: no evaluation)
    bracket = upper.laws.grid_bracket(fits, 1e-15)
    assert isinstance(bracket, grid_pld.Bracket)
    with pytest.raises(ValueError, match="MAX_SECONDS"):
        upper.laws.grid_bracket(fits * 0.8, 1e-15)
