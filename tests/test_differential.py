"""Differential test of statpriv against the independent oracle (tests/independent_oracle.py).

The default run checks the fixed edge cases of the precision issues and a small seeded
random slice of every kind (with zero-point and epsilon checks); the exhaustive run
(``pytest -m exhaustive tests/test_differential.py``, four groups of kinds) does
>= 10,000 comparisons.  Counts are printed (use -s -n 0).  The generator and checks live in tests/differential.py
(shared with tools/difftest.py).  The default run reads the oracle's answers for its
cases from tests/data/reference/differential.json (stored=True, truth="mpmath": the
stored values are read in microseconds, the certified sums would take ~15 s more;
the exhaustive test of tests/test_reference_store.py recomputes them); the
exhaustive sweep takes the certified Arb intervals as its truth where the kind has
them (truth="arb": tests/differential.py), the mpmath oracle live as the second
opinion on every tenth such case and as the truth elsewhere.
"""

import pytest

import differential


def _summary(results, label):
    print(f"\n== differential test: {label}")
    failures = differential.report(results, max_lines=60)
    comparisons = sum(r.comparisons for r in results.values())
    return failures, comparisons


# Kinds whose epsilon is an upper bound by design (the grid composition rounds
# every loss up by up to its grid step): their epsilon is checked for no
# under-report only, not for tightness.
PESSIMISTIC_KINDS = ("compose_grid",)


def _assert_counts(results, min_comparisons, max_skipped=None, tight=True):
    """Per kind: every drawn case is valid input, so none refused (a statpriv
    ValueError); at least min_comparisons comparisons; at most max_skipped[kind]
    (default 0) checks skipped where the oracle refused or timed out; with
    tight, no epsilon(d) with the true delta at eps (1 - 1e-9) already <= d
    (PESSIMISTIC_KINDS excepted)."""
    for kind, r in results.items():
        assert r.refused == 0, f"{kind}: valid input refused: {r.refusals[:3]}"
        assert r.comparisons >= min_comparisons, f"{kind}: only {r.comparisons} comparisons"
        if max_skipped is not None:
            cap = max_skipped.get(kind, 0)
            assert r.skipped <= cap, f"{kind}: {r.skipped} checks skipped (cap {cap})"
        if tight and kind not in PESSIMISTIC_KINDS:
            assert r.not_tight == 0, f"{kind}: epsilon not tight: {r.not_tight_cases[:3]}"


def test_edge_cases():
    results = differential.run_edge_cases(skip_open=True, stored=True, truth="mpmath")
    failures, comparisons = _summary(results, "issue edge cases")
    assert comparisons > 100
    assert failures == 0
    _assert_counts(results, min_comparisons=10, max_skipped={})


# The default slices are seeded and read stored truths: the skipped checks (the
# oracle refused a point as too expensive when the values were stored) are these
# exactly; more is a regression of the slice.
RANDOM_SLICE_SKIPPED = {"laplace": 54, "geometric": 6}


def test_random_slice():
    results = differential.run(differential.KINDS, 2, seed=20261122, zero_point=True,
                               epsilon=True, skip_open=True, stored=True, truth="mpmath")
    failures, comparisons = _summary(results, "random slice (2 curves per kind)")
    assert comparisons >= 300
    assert failures == 0
    _assert_counts(results, min_comparisons=50, max_skipped=RANDOM_SLICE_SKIPPED)


# a cheap slice of the new kinds in the default run (1 curve each, all checks):
# thresholding, k-anonymity, shuffling, composition and randomized response (alone
# or subsampled) are otherwise checked in the default run only against statpriv's
# own oracle (statpriv.oracle); the correlated window route with a tiny cell
# (corr_window_tiny) beside test_random_slice_correlated's draws.  Every new kind
# is in the exhaustive test; none is left open (a kind with failures would be
# kept out of both, with a strict xfail of its own, until fixed).
# (grid compositions: test_random_composed_mix below; this seed's compose_grid case,
# a secret sample of 6e5 records, costs ~11 s of CPU and runs in the exhaustive test)
DEFAULT_NEW = ("pk_worst", "pk_blanket", "thr_active", "thr_passive", "kanon_lower",
               "kanon_upper", "kanon_residue", "shuffle_clones", "shuffle_rr", "compose_exact",
               "compose_sampled", "rr_compose", "dp_rr", "dp_rr_tiny", "corr_window_tiny")


def test_random_slice_new_kinds():
    results = differential.run(DEFAULT_NEW, 1, seed=20261123, zero_point=True, epsilon=True,
                               stored=True, truth="mpmath")
    failures, comparisons = _summary(results, "random slice of the new kinds (1 curve each)")
    assert comparisons >= 250
    assert failures == 0
    _assert_counts(results, min_comparisons=20, max_skipped={})


def test_random_slice_correlated():
    """One curve of each correlated kind, all checks, on stored truths: this seed
    draws three questions on seven records with cells of 5e-7 and 5e-13 (the whole
    lattice) and the worst case at n = 1330 on the window route (beyond the whole
    lattice's budget; DEFAULT_NEW's seed draws single records there)."""
    results = differential.run(("corr_lattice", "corr_window"), 1, seed=20261128,
                               zero_point=True, epsilon=True, stored=True, truth="mpmath")
    failures, comparisons = _summary(results, "random slice of the correlated kinds")
    assert failures == 0
    _assert_counts(results, min_comparisons=20, max_skipped={})


def test_random_composed_mix():
    # a random mix of curves composed on the grid, against the oracle computed live
    # (bracket containment: the grid's epsilon is checked against its own bounds)
    results = differential.run(("compose_mix",), 1, seed=20261123, zero_point=True,
                               epsilon=True)
    failures, comparisons = _summary(results, "random composed mix (1 curve)")
    assert comparisons >= 20
    assert failures == 0
    _assert_counts(results, min_comparisons=20, max_skipped={})


def test_arb_truth_slice():
    """The certified truth itself (truth="arb"): its comparisons counted by
    source, the second opinion (case 0 of each kind) checked against the stored
    mpmath values, and no failure."""
    results = differential.run(("binomial", "dp_geometric", "secret"), 2, seed=20261122,
                               zero_point=False, epsilon=False, stored=True)
    failures, _ = _summary(results, "certified truth (2 curves per kind)")
    assert failures == 0
    for kind, r in results.items():
        arb, second, alone, _, _ = differential.truth_counts(r)
        assert arb >= 18 and second >= 9, (kind, r.by_truth)


def test_compare_interval_flags_under_and_over_reports():
    import math
    lower, upper = math.log(0.25), math.log(0.25) + 1e-15
    assert differential.compare_interval(math.log(0.25), lower, upper, 1e-12)[0]
    ok, under, _, _ = differential.compare_interval(lower - 2e-12, lower, upper, 1e-12)
    assert not ok and under
    ok, under, _, _ = differential.compare_interval(upper + 2e-12, lower, upper, 1e-12)
    assert not ok and not under
    ok, under, _, _ = differential.compare_interval(-math.inf, lower, upper, 1e-12)
    assert not ok and under
    assert differential.compare_interval(-math.inf, -math.inf, -math.inf, 1e-12)[0]


def test_bracket_vertex_mirror():
    """pk_bracket's checks compute vertex min(a, N - a) only: vertex N - a of the
    partial-knowledge worst case is vertex a mirrored, its (delta_plus,
    delta_minus) vertex a's (delta_minus, delta_plus).  The oracle's own
    vertices at a small N, both evaluated."""
    import mpmath
    O = differential.O
    eps = [-0.3, 0.0, 0.2, 1.5]
    for N, p, a in ((9, 0.23, 0), (9, 0.23, 3), (12, 0.4, 5)):
        mine = O.worst_case(N, p, vertices=[a]).deltas(eps)
        mirrored = O.worst_case(N, p, vertices=[N - a]).deltas(eps)
        for e, (plus, minus), (m_plus, m_minus) in zip(eps, mine, mirrored):
            assert mpmath.almosteq(plus, m_minus, 1e-40), (N, p, a, e)
            assert mpmath.almosteq(minus, m_plus, 1e-40), (N, p, a, e)
        assert mine[2][0] != mine[2][1]          # the directions differ (eps 0.2)


# The exhaustive sweep in EXHAUSTIVE_GROUPS tests that pytest-xdist's workers
# take up apart, the kinds dealt by their cost (seconds of 25 cases, measured;
# the kinds not listed take ~1 s) in snake order, so that the groups cost about
# the same; each group holds its share of the comparisons and the Arb truths.
EXHAUSTIVE_GROUPS = 4
EXHAUSTIVE_SECONDS = {"pk_bracket": 49, "compose_sampled": 46, "compose_grid": 38,
                      "gaussian": 33, "compose_mix": 31, "shuffle_clones": 30, "laplace": 26,
                      "with_replacement": 24, "corr_window": 18, "corr_window_tiny": 17,
                      "binomial": 13, "poisson": 12, "geometric": 11, "secret": 9,
                      "subsample": 7, "corr_lattice": 6, "per_record": 5, "rr_compose": 3}


def exhaustive_group(group):
    """The kinds of one exhaustive group (0 <= group < EXHAUSTIVE_GROUPS)."""
    kinds = sorted(differential.KINDS + differential.NEW_KINDS,
                   key=lambda kind: -EXHAUSTIVE_SECONDS.get(kind, 1))
    rounds = [kinds[i:i + EXHAUSTIVE_GROUPS] for i in range(0, len(kinds), EXHAUSTIVE_GROUPS)]
    return tuple(kind for r, round_ in enumerate(rounds)
                 for kind in (round_ if r % 2 == 0 else round_[::-1])[group:group + 1])


def test_exhaustive_groups_hold_every_kind_once():
    groups = [exhaustive_group(g) for g in range(EXHAUSTIVE_GROUPS)]
    kinds = [kind for group in groups for kind in group]
    assert sorted(kinds) == sorted(differential.KINDS + differential.NEW_KINDS)
    costs = [sum(EXHAUSTIVE_SECONDS.get(kind, 1) for kind in group) for group in groups]
    assert max(costs) < 1.5 * min(costs), costs


@pytest.mark.exhaustive
@pytest.mark.first
@pytest.mark.parametrize("group", range(EXHAUSTIVE_GROUPS))
def test_exhaustive(group):
    """25 curves of each kind of the group, every check, the live oracles and
    the certified intervals as the truth (>= 10,000 comparisons, >= 2,000 of
    them on Arb truths, over the groups)."""
    kinds = exhaustive_group(group)
    # each case is seeded by (seed, kind, index) alone: the results do not
    # depend on the grouping or the workers
    results = differential.run(kinds, 25, seed=1, zero_point=True, epsilon=True,
                               skip_open=True)
    failures, comparisons = _summary(results, f"exhaustive group {group} (25 curves per kind)")
    assert comparisons >= 10_000 / EXHAUSTIVE_GROUPS
    assert sum(differential.truth_counts(r)[0] for r in results.values()) >= \
        2_000 / EXHAUSTIVE_GROUPS
    assert failures == 0
    # live oracle: its refusals (too expensive) vary with the draws, hence no skip
    # cap here; epsilon tightness is reported (a near-optimal epsilon is no failure)
    _assert_counts(results, min_comparisons=100, tight=False)
