"""statpriv.partial_knowledge / histogram_partial_knowledge (Desfontaines et al.,
"Differential Privacy with Partial Knowledge", Thm 3, Cor 1): the exact worst
case over [p, 1-p]^N against the mpmath brute force over every vertex, the
vertex claim, the sandwich uniform <= worst <= blanket, the branch-and-bound
bracket against the full sweep, the published sanity values."""
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import statpriv
from statpriv import oracle
from statpriv.partial_knowledge import vertices
from helpers import assert_matches

CASES = [(12, 0.1, 0.3), (15, 0.01, 0.05), (9, 0.3, 1.0), (2, 0.2, 0.1), (1, 0.1, 0.2),
         (14, 0.5, 0.2), (13, 0.05, 4.0)]


@pytest.mark.parametrize("n,p,eps", CASES)
def test_worst_case_matches_brute_force_over_every_vertex(n, p, eps):
    curve = statpriv.partial_knowledge(n, p).worst_case
    for e in (eps, -eps / 2, 0.0):
        for direction, fn in (("max", curve.log_delta), ("plus", curve.log_delta_plus),
                              ("minus", curve.log_delta_minus)):
            ref = oracle.worst_case_delta(n - 1, p, [e], direction)[0]
            assert_matches(fn(e), ref, what=f"n={n} p={p} eps={e} {direction}")


def test_precision_mp_is_the_brute_force():
    curve = statpriv.partial_knowledge(10, 0.1).worst_case
    mp = curve.delta(0.2, precision="mp")
    assert abs(float(mp) / curve.delta(0.2) - 1) < 1e-13
    pk = statpriv.partial_knowledge(10, 0.1)
    assert abs(float(pk.blanket.delta(0.2, precision="mp")) / pk.blanket.delta(0.2) - 1) < 1e-13


def test_each_vertex_against_brute_force():
    N, p, eps = 11, 0.15, 0.4
    core = vertices.vertex_core(N, p)
    ours = core.vertex_log_delta(np.arange(N + 1.0), eps)
    for a in range(N + 1):
        assert_matches(ours[a], oracle.vertex_delta(N, a, p, [eps], "plus")[0], what=f"a={a}")


@settings(max_examples=10, deadline=None)
@given(n=st.integers(2, 14), p=st.floats(0.01, 0.5), eps=st.floats(0.0, 2.0),
       seed=st.integers(0, 2 ** 32 - 1))
def test_interior_configurations_never_exceed_the_worst_case(n, p, eps, seed):
    """Any pi in [p, 1-p]^N (a Poisson-binomial count) stays below the worst
    case, and the worst case is some vertex's curve."""
    rng = np.random.default_rng(seed)
    pis = rng.uniform(p, 1 - p, n - 1)
    worst = statpriv.partial_knowledge(n, p).worst_case.delta(eps)
    assert statpriv.counting(None, pis).delta(eps) <= worst * (1 + 1e-12)
    vertices = [statpriv.counting(None, np.r_[np.full(a, p), np.full(n - 1 - a, 1 - p)])
                .delta(eps) for a in range(n)]
    assert abs(max(vertices) / worst - 1) < 1e-11


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 400), p=st.floats(0.001, 0.5), eps=st.floats(0.0, 3.0))
def test_sandwich_uniform_worst_blanket(n, p, eps):
    pk = statpriv.partial_knowledge(n, p)
    u, w, b = pk.uniform.delta(eps), pk.worst_case.delta(eps), pk.blanket.delta(eps)
    assert u <= w * (1 + 1e-12)
    assert w <= b * (1 + 1e-12)


def test_sanity_values():
    """Sanity data (n = 1000, p = 0.1) and the issue's worst-over-uniform ratios."""
    pk = statpriv.partial_knowledge(1000, 0.1)
    assert f"{pk.uniform.delta(0.3):.3e}" == "1.794e-04"
    assert f"{pk.blanket.delta(0.3):.3e}" == "1.060e-03"
    assert f"{pk.uniform.delta(0.5):.3e}" == "5.925e-07"
    assert f"{pk.blanket.delta(0.5):.3e}" == "1.281e-05"
    assert pk.closed_form_epsilon(1e-6) == math.inf
    assert 1.006 < pk.worst_case.delta(0.3) / pk.uniform.delta(0.3) < 1.008     # ~0.7%
    pk = statpriv.partial_knowledge(200, 0.01)
    assert 1.08 < pk.worst_case.delta(0.05) / pk.uniform.delta(0.05) < 1.12     # ~10%


def test_closed_form():
    pk = statpriv.partial_knowledge(10 ** 5, 0.1)
    d = 1e-6
    expect = max(math.sqrt(14 * math.log(2 / d) / ((10 ** 5 - 1) * 0.1)), 27 / ((10 ** 5 - 1) * 0.1))
    assert pk.closed_form_epsilon(d) == pytest.approx(expect, rel=1e-15)
    assert np.all(pk.closed_form_epsilon([1e-6, 1e-9]) > pk.blanket.epsilon([1e-6, 1e-9]))
    assert statpriv.partial_knowledge(1, 0.1).closed_form_epsilon(0.5) == math.inf


def test_known_records_are_dropped():
    a = statpriv.partial_knowledge(100, 0.1, known=30)
    b = statpriv.partial_knowledge(70, 0.1)
    assert a.others == 69
    assert a.worst_case.delta(0.2) == b.worst_case.delta(0.2)
    assert a.uniform.delta(0.2) == b.uniform.delta(0.2)


def test_branch_and_bound_equals_full_sweep(monkeypatch):
    """The branch-and-bound path (used beyond 1000 others) closes to the full
    sweep's value and vertex."""
    for n, p in ((700, 0.1), (400, 0.02)):
        full = statpriv.partial_knowledge(n, p).worst_case
        monkeypatch.setattr(vertices, "FULL_SWEEP_OTHERS", 10)
        bb = statpriv.partial_knowledge(n, p).worst_case
        monkeypatch.undo()
        for eps in (0.0, 0.05, 0.3, 1.5):
            ex, _, a_ex = full.bracket(eps)
            lo, hi, a = bb.bracket(eps)
            assert lo <= ex * (1 + 1e-13) and hi >= ex * (1 - 1e-13)
            assert hi / lo - 1 < 1e-12
            if a != a_ex:                          # a tie between vertices
                core = vertices.vertex_core(n - 1, p)
                assert abs(core.vertex_log_delta(np.array([float(a)]), eps)[0]
                           - math.log(ex)) < 1e-12
            assert abs(bb.delta(eps) / ex - 1) < 1e-12
        for d in (1e-3, 1e-8):
            e = bb.epsilon(d)
            assert e == pytest.approx(full.epsilon(d), rel=1e-9)     # inf below the floor
            if e < math.inf:
                assert full.delta(e) <= d * (1 + 1e-12)


def test_bracket_large_n_closes():
    lo, hi, a = statpriv.partial_knowledge(10 ** 5, 0.1).worst_case.bracket(0.03)
    assert 0 < lo <= hi <= lo * (1 + 1e-12)
    assert 0 <= a <= 10 ** 5 - 1


@pytest.mark.exhaustive
@pytest.mark.parametrize("eps", [0.01, 0.03])
def test_bracket_million(eps):
    pk = statpriv.partial_knowledge(10 ** 6, 0.1)
    lo, hi, a = pk.worst_case.bracket(eps)
    assert hi / lo <= 1.01
    # the uniform vertex is the worst here (a = 0); both curves are within
    # the 1e-12 contract of the exact value, not bit-ordered (at eps = 0.01
    # the exact sum at 40 digits is 1.32039009754514016e-6: the counting
    # curve is 7e-15 above it, the bracket 2e-16)
    assert pk.uniform.delta(eps) <= hi * (1 + 1e-12) and hi <= pk.blanket.delta(eps)
    if eps == 0.01:
        exact = 1.32039009754514016e-6
        assert exact * (1 - 1e-13) <= hi <= exact * (1 + 1e-13)


def test_epsilon_contract_and_negative_eps():
    curve = statpriv.partial_knowledge(300, 0.05).worst_case
    for d in (0.5, 1e-3, 1e-6):
        e = curve.epsilon(d)
        assert curve.delta(e) <= d * (1 + 1e-12)
        if e > 0:
            assert curve.delta(np.nextafter(e, 0)) > d * (1 - 1e-9)
    assert curve.epsilon(1.0) == 0.0
    assert curve.epsilon(0.0) == math.inf and curve.epsilon(1e-7) == math.inf   # floor 0.95^299
    assert curve.delta(math.inf) == pytest.approx(0.95 ** 299, rel=1e-12)
    small = statpriv.partial_knowledge(14, 0.05).worst_case
    for e in (-0.3, -2.0):                      # H_eps = 1 - e^eps + e^eps H_-eps(Q||P)
        assert_matches(small.log_delta(e), oracle.worst_case_delta(13, 0.05, [e])[0])


def test_blanket_blocks_against_the_exact_sum():
    """Beyond 4096 atoms of Bin(N, 2p) the blanket sums blocks of b: an upper
    bound within 1e-4 of the sum over every b (here from scipy's binomial pmf
    and statpriv's binomial shift curve of each Bin(b, 1/2))."""
    from scipy import stats
    N, p, eps = 2 * 10 ** 4, 0.1, 0.1
    ours = statpriv.partial_knowledge(N + 1, p).blanket.delta(eps)
    law = stats.binom(N, 2 * p)
    sd = math.sqrt(N * 2 * p * (1 - 2 * p))
    bs = np.arange(int(2 * p * N - 13 * sd), int(2 * p * N + 13 * sd))
    H = np.array([statpriv.counting(int(b) + 1, 0.5).delta(eps) for b in bs])
    exact = float(np.sum(law.pmf(bs) * H))
    assert exact <= ours <= exact * (1 + 1e-4)


def test_histogram():
    h = statpriv.histogram_partial_knowledge(500, 0.1, 4)
    assert h.lower.delta(0.2) == h.upper.delta(0.2)
    pk = statpriv.partial_knowledge(500, 0.1)
    assert h.upper.delta(0.2) == pk.blanket.delta(0.2)
    h2 = statpriv.histogram_partial_knowledge(500, 0.1, 2)
    assert h2.lower.delta(0.2) == pk.worst_case.delta(0.2) < h2.upper.delta(0.2)


def test_histogram_three_categories_attains_the_blanket():
    """With categories a, b, rest at (p, p, 1-2p), the two released counts and
    the total: the brute-force pair over (X_a, X_b) equals the blanket sum."""
    n, p, eps = 9, 0.2, 0.3
    N = n - 1
    with mpmath.workdps(40):
        pm = mpmath.mpf(p)
        P, Q = {}, {}
        for xa in range(N + 1):
            for xb in range(N + 1 - xa):
                w = (mpmath.factorial(N) / (mpmath.factorial(xa) * mpmath.factorial(xb)
                     * mpmath.factorial(N - xa - xb)) * pm ** (xa + xb) * (1 - 2 * pm) ** (N - xa - xb))
                P[(xa + 1, xb)] = P.get((xa + 1, xb), 0) + w
                Q[(xa, xb + 1)] = Q.get((xa, xb + 1), 0) + w
        keys = set(P) | set(Q)
        E = mpmath.exp(eps)
        ref = mpmath.fsum(max(P.get(k, 0) - E * Q.get(k, 0), 0) for k in keys)
    h = statpriv.histogram_partial_knowledge(n, p, 3)
    assert_matches(h.lower.log_delta(eps), ref)


@pytest.mark.parametrize("call", [
    lambda: statpriv.partial_knowledge(10, 0.0),
    lambda: statpriv.partial_knowledge(10, 0.6),
    lambda: statpriv.partial_knowledge(10, 0.1, known=10),
    lambda: statpriv.partial_knowledge(10, 0.1, known=-1),
    lambda: statpriv.partial_knowledge(0, 0.1),
    lambda: statpriv.partial_knowledge(10.5, 0.1),
    lambda: statpriv.partial_knowledge(10, float("nan")),
    lambda: statpriv.partial_knowledge(10, 0.1).closed_form_epsilon(0.0),
    lambda: statpriv.partial_knowledge(10, 0.1).worst_case.bracket(-0.1),
    lambda: statpriv.histogram_partial_knowledge(10, 0.1, 1),
    lambda: statpriv.histogram_partial_knowledge(10, 0.7, 3),
])
def test_bad_input(call):
    with pytest.raises(ValueError):
        call()


@pytest.mark.parametrize("call", [
    lambda: statpriv.partial_knowledge(True, 0.1),
    lambda: statpriv.partial_knowledge(10, "0.1"),
    lambda: statpriv.partial_knowledge(10, 0.1, known=False),
])
def test_bad_types(call):
    with pytest.raises(statpriv.ParameterTypeError):
        call()


def test_pi_is_the_name_of_the_record_probability():
    """partial_knowledge(n, pi) / histogram_partial_knowledge(n, pi, categories):
    the keyword p= (the former name) still works with a DeprecationWarning and
    builds the same curves; positional calls are unchanged; .p reads .pi."""
    pk = statpriv.partial_knowledge(12, pi=0.1, known=2)
    assert (pk.n, pk.pi, pk.known, pk.others) == (12, 0.1, 2, 9)
    assert statpriv.partial_knowledge(12, 0.1, known=2).pi == 0.1
    with pytest.warns(DeprecationWarning, match=r"partial_knowledge\(p=\.\.\.\) is deprecated: "
                                                r"the parameter is called pi now") as record:
        old = statpriv.partial_knowledge(12, p=0.1, known=2)
    assert record[0].filename == __file__                  # attributed to the caller
    eps = [0.0, 0.3, 1.0]
    for what in ("worst_case", "uniform", "blanket"):
        assert getattr(old, what).delta(eps).tolist() == getattr(pk, what).delta(eps).tolist()
    with pytest.warns(DeprecationWarning, match=r"PartialKnowledge.p is deprecated: use .pi"):
        assert pk.p == 0.1
    with pytest.warns(DeprecationWarning, match=r"^PartialKnowledge\(p=\.\.\.\) is deprecated"):
        assert type(pk)(12, p=0.1, known=2).pi == 0.1
    with pytest.raises(TypeError, match="give pi or its old name p"):
        statpriv.partial_knowledge(12, pi=0.1, p=0.1)

    h = statpriv.histogram_partial_knowledge(20, pi=0.1, categories=2)
    with pytest.warns(DeprecationWarning, match=r"histogram_partial_knowledge\(p=\.\.\.\)"):
        old_h = statpriv.histogram_partial_knowledge(20, p=0.1, categories=2)
    assert old_h.lower.delta(eps).tolist() == h.lower.delta(eps).tolist()
    assert old_h.upper.delta(eps).tolist() == h.upper.delta(eps).tolist()
    with pytest.warns(DeprecationWarning, match=r"HistogramPartialKnowledge.p is deprecated"):
        assert h.p == 0.1
    assert "pi=0.1" in repr(h) and "pi=0.1" in repr(pk)


def test_windowed_vertex_bounds_bracket_the_exact_value():
    """The window terms are a lower bound, window + bounded rest an upper bound
    of the whole-support value (every vertex of a small grid)."""
    N, p = 5000, 0.07
    core = vertices.vertex_core(N, p)
    a = np.array([0.0, 1.0, 40.0, 2500.0, 4999.0, 5000.0])
    for eps in (0.02, 0.2, 1.0):
        exact = core.vertex_log_delta(a, eps)
        for depth in (30.0, 80.0, vertices._depth(float(exact.max()), N)):
            up, lo = core.bounds(a, N - a, eps, depth)
            assert np.all(lo <= exact + 1e-13) and np.all(up >= exact - 1e-13)
        up, lo = core.bounds(a, N - a, eps, vertices._depth(float(exact.min()), N))
        assert np.all(np.abs(up - exact) < 1e-12) and np.all(np.abs(lo - exact) < 1e-12)


@pytest.mark.exhaustive
@pytest.mark.parametrize("n,p", [(41, 0.1), (60, 0.02), (50, 0.35)])
def test_exhaustive_brute_force(n, p):
    curve = statpriv.partial_knowledge(n, p).worst_case
    eps = [0.0, 0.05, 0.3, 1.0, 3.0]
    refs = oracle.worst_case_delta(n - 1, p, eps)
    for e, ref in zip(eps, refs):
        assert_matches(curve.log_delta(e), ref, what=f"n={n} p={p} eps={e}")


def test_worst_case_refuses_up_front_what_would_take_minutes():
    # n = 1e9, eps = 0.01: ln delta ~ -1e4, every vertex window ~ 4e6 atoms wide;
    # refused before any sum, naming the cheap alternatives
    pk = statpriv.partial_knowledge(10**9, 0.3)
    with pytest.raises(ValueError, match=r"\.blanket.*\.uniform"):
        pk.worst_case.delta(0.01)


@pytest.mark.parametrize("query", [lambda c: c.delta(0.001), lambda c: c.epsilon(1e-9),
                                   lambda c: c.delta(-0.001)])
def test_worst_case_refuses_vertex_windows_too_wide_to_close(query):
    # n = 1e8, p = 0.1: n p (1 - p) = 9e6, vertex windows of ~7e4 atoms at any
    # delta; the budgeted search took 13 s and left a 0.3 % bracket: refused
    # before any sum, with the terms it would sum and the cheap alternatives
    curve = statpriv.partial_knowledge(10**8, 0.1).worst_case
    with pytest.raises(ValueError, match=r"windows of ~7\.\de\+04 atoms.*terms \(~\d+ s\).*"
                                         r"\.blanket.*\.uniform"):
        query(curve)


def test_worst_case_below_the_window_limit_still_answers():
    # n p (1 - p) = 9e4 at n = 1e6: windows of ~7e3 atoms, under the limit
    N, p = 10**6, 0.1
    assert vertices._window_atoms(N, p, vertices._depth(0.0, N)) < vertices.MAX_WINDOW_ATOMS
    vertices.check_work(N, p, vertices._depth(-20.0, N), "delta")      # no refusal


def test_branch_and_bound_epsilon_of_zero_is_inf():
    # a shift: P's top atom (N + 1 ones) has Q = 0, so delta > 0 at every finite eps
    curve = statpriv.partial_knowledge(5000, 0.1).worst_case
    assert curve.epsilon(0.0) == math.inf
    assert curve.log_delta(50.0) > -math.inf
