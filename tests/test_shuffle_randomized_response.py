"""statpriv.shuffle.randomized_response: n shuffled eps0-randomized-response
bits, worst case over the others' inputs, against the mpmath brute force."""
import math

import numpy as np
import pytest

import statpriv
from statpriv import oracle
from statpriv.partial_knowledge import vertices
from statpriv.shuffle import randomized_response
from helpers import assert_matches, oracle as stored_oracle


@pytest.mark.parametrize("n,eps0,eps", [(12, 1.0, 0.3), (9, 0.5, 0.1), (15, 3.0, 1.0),
                                        (1, 1.0, 0.2), (10, 1.0, -0.2)])
def test_matches_brute_force(n, eps0, eps):
    curve = randomized_response(n, eps0)
    for direction, fn in (("max", curve.log_delta), ("plus", curve.log_delta_plus),
                          ("minus", curve.log_delta_minus)):
        ref = oracle.worst_case_delta(n - 1, None, [eps], direction, rr=eps0)[0]
        assert_matches(fn(eps), ref, what=f"n={n} eps0={eps0} eps={eps} {direction}")


def _two_users_delta(eps0, eps):
    """n = 2 from the definition (mpmath, 400 digits: p = 1/2 - eps0/4 + ...
    must resolve eps0 = 1e-300 next to 1/2): the other user's
    report is Bernoulli(p) or Bernoulli(1 - p), p = 1 / (1 + e^eps0); the
    target's Bernoulli(1 - p) under P, Bernoulli(p) under Q; max over both."""
    import mpmath
    with mpmath.workdps(400):
        p = 1 / (1 + mpmath.exp(mpmath.mpf(eps0)))
        q, ee = 1 - p, mpmath.exp(mpmath.mpf(eps))
        best = mpmath.mpf(0)
        for r in (p, q):                      # the other's probability to report 1
            S = [1 - r, r]
            P = [q * (S[k - 1] if k else 0) + p * (S[k] if k < 2 else 0) for k in range(3)]
            Q = [p * (S[k - 1] if k else 0) + q * (S[k] if k < 2 else 0) for k in range(3)]
            best = max(best, mpmath.fsum(max(u - ee * v, 0) for u, v in zip(P, Q)))
        return best


@pytest.mark.parametrize("eps0,eps", [(1e-17, 0.0), (1e-300, 0.0), (5.194028862734125, 5.19402886),
                                      (5.194028862734125, 5.1940288627341245), (1e-6, 9.99999e-7),
                                      (0.7, 0.69999999999)])
def test_exact_randomization_near_the_zero_point(eps0, eps):
    """p = 1/(1+e^eps0) is carried exactly: no cancellation near eps0, no
    spurious zero for tiny eps0 (delta(0) = tanh(eps0 / 2) at n = 1)."""
    curve = randomized_response(2, eps0)
    for fn in (curve.log_delta, curve.log_delta_plus, curve.log_delta_minus):
        assert_matches(fn(eps), _two_users_delta(eps0, eps), what=f"eps0={eps0} eps={eps}")


@pytest.mark.parametrize("n,eps0", [(1, 5.194028862734125), (19, 1e-6), (2, 1e-17), (40, 3.3)])
def test_zero_point_is_eps0_exactly(n, eps0):
    curve = randomized_response(n, eps0)
    for direction in ("plus", "minus", "max"):
        assert curve.epsilon(0.0, direction=direction) == eps0
    assert curve.delta(eps0) == 0.0 and curve.delta_plus(eps0) == 0.0
    assert curve.delta_minus(eps0) == 0.0 and curve.delta(np.nextafter(eps0, 0)) > 0.0


def test_zero_from_eps0_and_single_user():
    curve = randomized_response(50, 1.0)
    z = curve.epsilon(0.0)
    assert curve.delta(z) == 0.0 and curve.delta(np.nextafter(z, 0)) > 0.0
    assert abs(z - 1.0) < 1e-15
    # one user: the randomized response itself, delta = (e^eps0 - e^eps) / (1 + e^eps0)
    one = randomized_response(1, 1.0)
    assert one.delta(0.5) == pytest.approx((math.e - math.exp(0.5)) / (1 + math.e), rel=1e-14)


def test_public_clone_bracket_contains_the_rr_answer_from_above():
    """The clone reduction is a bound for any eps0-LDP randomizer: the exact
    randomized-response epsilon lies below its published bracket (n = 1e4,
    eps0 = 1, delta = 1e-6: eps in [0.05297, 0.05452])."""
    curve = randomized_response(10 ** 4, 1.0)
    e = curve.epsilon(1e-6)
    assert e < 0.05297
    assert curve.delta(e) <= 1e-6 * (1 + 1e-12)


def test_branch_and_bound_equals_full_sweep(monkeypatch):
    full = randomized_response(800, 1.0)
    monkeypatch.setattr(vertices, "FULL_SWEEP_OTHERS", 10)
    bb = randomized_response(800, 1.0)
    monkeypatch.undo()
    for eps in (0.05, 0.2, 0.6):
        ex, _, ones = full.bracket(eps)
        lo, hi, ones_bb = bb.bracket(eps)
        assert lo <= ex * (1 + 1e-13) <= hi * (1 + 2e-13) and hi / lo - 1 < 1e-12
        assert ones == ones_bb
    e = bb.epsilon(1e-6)
    assert full.delta(e) <= 1e-6 * (1 + 1e-12)
    assert e == pytest.approx(full.epsilon(1e-6), rel=1e-9)


def test_monotone_in_n():
    eps = [randomized_response(n, 1.0).epsilon(1e-6) for n in (100, 1000, 5000)]
    assert eps[0] > eps[1] > eps[2]


@pytest.mark.parametrize("call", [lambda: randomized_response(0, 1.0),
                                  lambda: randomized_response(10, 0.0),
                                  lambda: randomized_response(10, -1.0),
                                  lambda: randomized_response(10, math.inf)])
def test_bad_input(call):
    with pytest.raises(ValueError):
        call()


def test_vertex_recurrence_slope_from_exact_integers():
    # At eps0 = 16.9 (p = 4.6e-8) the vertex recurrence's coefficient
    # (n1 - k) p^2 + (n2 - k) q^2, formed as C - D k, lost ~1e-19 C to
    # cancellation and delta(0) = 1 - 2.1e-6 came out 2.0e-12 (relative) above
    # the truth, beyond the promised 1e-12.  The truth is tests/independent_oracle.py's
    # shuffled_rr(45, eps0) (brute force over the vertices, stored at 50 digits):
    # 0.99999789207949595172...
    curve = statpriv.shuffle.randomized_response(45, 16.898448478007367)
    plus, minus = stored_oracle("independent_deltas",
                                ("shuffled_rr", (45, 16.898448478007367), {}), [0.0])
    assert_matches(curve.log_delta_plus(0.0), plus, what="plus eps=0")
    assert_matches(curve.log_delta_minus(0.0), minus, what="minus eps=0")


def test_composition_of_a_worst_case_without_one_attaining_vertex():
    # found by the fuzzer: the attaining vertex changes with eps (a=2 at eps
    # = 0, a=0 at 1.5) and the composition was refused; the maximum is a
    # pair's profile that dominates every vertex's pair, so it composes from
    # above, and one vertex's pair composed from below.  Checked against the
    # products of the vertices' laws from the mpmath oracle.
    import itertools
    curve = statpriv.shuffle.randomized_response(5, 3.0)
    composed = statpriv.compose(curve, times=2)
    p = 1.0 / (1.0 + math.exp(3.0))
    laws = [tuple(np.array([float(x) for x in law]) for law in
                  oracle.partial_knowledge.vertex_laws(4, a, p, 1 - p, p)) for a in range(5)]

    def hockey(P, Q, e):
        return float(np.sum(np.maximum(P - math.exp(e) * Q, 0.0)))

    for e in (0.0, 1.0, 2.0, 4.0):
        same, any_pair = 0.0, 0.0
        for a, b in itertools.product(range(5), repeat=2):
            P = np.outer(laws[a][0], laws[b][0]).ravel()
            Q = np.outer(laws[a][1], laws[b][1]).ravel()
            v = max(hockey(P, Q, e), hockey(Q, P, e))
            any_pair = max(any_pair, v)
            same = max(same, v) if a == b else same
        lower, upper = composed.delta_bounds(e)
        assert lower <= same * (1 + 1e-9)
        assert upper >= any_pair * (1 - 1e-9)
    pld = curve.privacy_loss_distribution()
    assert float(np.sum(pld.plus.probs) + pld.plus.infinity_mass) <= 1 + 1e-9


@pytest.mark.parametrize("query", [lambda c: c.delta(0.001), lambda c: c.epsilon(1e-6)])
def test_refuses_vertex_windows_too_wide_to_close(query):
    # n = 1e8, eps0 = 1: n p (1 - p) = 2e7, vertex windows of ~1e5 atoms; the
    # budgeted search took 9 to 21 s: refused before any sum, naming clones
    curve = randomized_response(10**8, 1.0)
    with pytest.raises(ValueError, match=r"terms \(~\d+ s\).*shuffle\.clones\(100000000, 1\.0\)"):
        query(curve)


def test_wide_windows_still_answer_where_delta_is_zero():
    # delta = 0 exactly from eps0 on, and epsilon(0) = eps0: nothing to search
    curve = randomized_response(10**8, 1.0)
    assert curve.delta(1.0) == 0.0 and curve.delta(3.0) == 0.0
    assert curve.epsilon(0.0) == 1.0
