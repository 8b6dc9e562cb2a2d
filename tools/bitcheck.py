"""Bit-for-bit regression check of statpriv's public results across a refactor.

    python tools/bitcheck.py write FILE [--seeds 1,2,3] [--per-kind 6]   # before
    python tools/bitcheck.py check FILE                                   # after

Run from the repository root after an in-place build; the repository root is
put first on sys.path, so the tree's own build is what is imported.

What is stored.  The battery is a list of groups: a ``setup`` expression
builds one object (a curve, a privacy-loss distribution, a dp-accounting PLD,
an EmpiricalPrivacy, or None for stand-alone calls) and each query expression
is evaluated with it bound to ``c``.  ``write`` stores every expression with
its result: numbers as repr() (bit-identical means identical repr), arrays of
up to SHORT_ARRAY elements as lists of repr(), longer ones as the sha256 of
their bytes with dtype and shape, containers element by element, exceptions as
"TypeName: message" (a refused construction or query must stay refused, with
the same message).  ``check`` re-evaluates the STORED expressions -- it does
not regenerate them from the seeds, so tests/differential.py may change in
between -- compares every value, prints the first 40 that differ (``--show N``) and the line
``N curves/groups, M values, K differ``; exit status 1 on any difference.
Nothing stored depends on the clock (timings are printed only).

Only the public API is used: no name starting with "_" is touched in statpriv
(zero points are ``curve.epsilon(0.0, direction=d)``), so a refactor may move
and rename every private module and attribute.  For the same reason recorded
text masks memory addresses of default reprs and private names quoted in
messages ("'_Name' object has no attribute ...") as "<private>".

What is covered.
* Curves of every kind: counting (iid, per-record, sampling without
  replacement, Poisson sampling, windowed supports of large n, the normal
  approximation), secret_sample, Laplace / Gaussian / geometric noise on each,
  from_log_pmfs, dp.laplace / gaussian / geometric (sensitivity != 1
  included), Noise.dp_curve, partial_knowledge (worst case with its bracket,
  uniform, blanket), histogram_partial_knowledge, thresholded (active and
  passive, iid and per-record pi), k_anonymity lower / upper, shuffle.clones
  and shuffle.randomized_response, compose (grid, times > 1, several curves,
  exact=True); plus the edge cases and the seeded random draws of every kind of
  tests/differential.py (``--seeds``, ``--per-kind`` draws per kind and seed).
  On each: delta / delta_plus / delta_minus / log_delta* at an eps list (0,
  5e-324, negative, +-inf, 1e300, ...) as one array and as scalars, epsilon
  in the three directions (the zero points are epsilon(0.0)), total_variation
  and repr; on the fixed curves also log_pmfs and refused queries.
* Accounting, on a selection of curves (ACCOUNTED and the compositions):
  renyi at orders 0.1 .. inf in every direction; privacy_loss_distribution()
  (delta and delta_lower_bound per direction, renyi, sizes, masses, the atom
  arrays, to_curve() values); to_dp_accounting() with methods auto, pmf and
  connect_dots (get_delta_for_epsilon, get_epsilon_for_delta, self_compose);
  audit, audit_pld and the dp-accounting accountant adapter; delta_bounds and
  discretization_error of compositions.
* The rest (MISC): Noise objects, the interval and utility helpers, amplify,
  rdp_to_dp, basic_composition, bounded_dependency_composition,
  conjecture_check, precision="mp", refused constructions, the command line's
  outputs, and EmpiricalPrivacy on a fixed synthetic frame (every estimator).

For a refactor: ``write`` a baseline FILE from the unmodified tree (outside
the repository), refactor, rebuild in place, ``check FILE``.  "0 differ" is the
claim "bit-identical values on the bitcheck"; a difference is listed with its
group, query and position.  Where a change of values is intended, write a new
baseline after reviewing the listed differences.
"""
import argparse
import contextlib
import hashlib
import io
import json
import math
import os
import re
import sys
import time
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
# argparse wraps the command line's help to the terminal width: fix it
os.environ["COLUMNS"] = "100"

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import statpriv  # noqa: E402
import statpriv.cli  # noqa: E402
import statpriv.empirical  # noqa: E402

inf, nan = math.inf, math.nan

# -- the values queried ---------------------------------------------------------

DIRECTIONS = ("plus", "minus", "max")
METHODS = ("delta", "delta_plus", "delta_minus", "log_delta", "log_delta_plus",
           "log_delta_minus")
# every curve's eps (0, tiny, negative, +-inf, huge); extras per curve are added
EPS = (-inf, -1.0, -0.7, -0.01, 0.0, 5e-324, 1e-9, 1e-4, 0.01, 0.1, 0.3, 0.5, 0.7, 1.0, 2.0,
       5.0, 30.0, 1e4, 1e300, inf)
SCALAR_EPS = (-inf, -0.01, 0.0, 5e-324, 0.05, 1.0, 1e300, inf)
TARGETS = (0.0, 5e-324, 1e-300, 1e-100, 1e-30, 1e-12, 1e-9, 1e-6, 1e-3, 0.05, 0.5, 1.0)
SCALAR_TARGETS = (0.0, 1e-6, 0.5)           # 0.0: the zero points
ORDERS = (0.1, 0.5, 1.0, 2.0, 10.0, 1000.0, inf)
ACCOUNTING_EPS = (-1.0, 0.0, 1e-9, 0.01, 0.1, 0.5, 1.0, 5.0, 30.0)
AUDIT_GRID = "np.array([0.0, 0.05, 0.1, 0.5, 1.0, 2.0])"

# -- query sets: expressions in c, the group's object; "{eps}" is the group's eps
#    list, "{e}" makes one query per eps of it ---------------------------------

QUERY_SETS = {
    "curve": (
        "repr(c)", "c.exact", "c.total_variation()",
        *(f"c.{m}(np.array({{eps}}))" for m in METHODS),
        *(f"c.{m}({e!r})" for m in METHODS for e in SCALAR_EPS),
        *(f"c.epsilon(np.array({list(TARGETS)!r}), direction={d!r})" for d in DIRECTIONS),
        *(f"c.epsilon({t!r}, direction={d!r})" for d in DIRECTIONS for t in SCALAR_TARGETS),
        "c.get_delta_for_epsilon(0.1)", "c.get_epsilon_for_delta(1e-6)",
    ),
    "laws": ("c.log_pmfs()",),
    "refusals": (
        "c.delta(nan)", "c.delta('0.1')", "c.delta(True)", "c.log_delta(0.1, precision='double')",
        "c.delta(0.1, max_terms=10)", "c.epsilon(-0.1)", "c.epsilon(1.5)", "c.epsilon(nan)",
        "c.epsilon(1e-3, direction='both')", "setattr(c, 'description', 'x')",
    ),
    "bracket": ("c.bracket({e})",),
    "composed": (
        *(f"c.{m}(np.array({{eps}}), direction={d!r})"
          for m in ("delta_bounds", "discretization_error") for d in DIRECTIONS),
        "c.delta_bounds(0.5)", "c.discretization_error(0.5, direction='plus')",
    ),
    "renyi": (
        *(f"c.renyi(np.array({list(ORDERS)!r}), direction={d!r})" for d in DIRECTIONS),
        *(f"c.renyi({a!r})" for a in ORDERS),
        "c.renyi(0.0)", "c.renyi(2.0, direction='up')",
    ),
    "audit": (
        *(f"statpriv.audit({e!r}, {d!r}, c)"
          for e, d in ((0.0, 0.0), (0.01, 1e-6), (0.5, 1e-3), (1.0, 0.5), (inf, 1.0))),
        "statpriv.audit(-1.0, 0.1, c)",
        f"statpriv.audit_pld(c.to_dp_accounting(1e-2), c, {AUDIT_GRID})",
        f"statpriv.audit_pld(c.privacy_loss_distribution(), c, {AUDIT_GRID})",
        f"statpriv.audit_pld(c, c, {AUDIT_GRID})",
    ),
    "accountant": tuple(
        f"statpriv.accounting.StatprivPLDAccountant(value_discretization_interval=1e-2)"
        f".compose(statpriv.accounting.StatprivCurveEvent(c), 2).{q}"
        for q in ("get_delta(0.5)", "get_epsilon(1e-6)")),
    # c: a statpriv PrivacyLossDistribution
    "pld": (
        "repr(c)", "c.description", "c.exact", "c.discretization", "c.rounding_bound",
        "c.moved_mass",
        *(f"c.{m}(np.array({{eps}}), direction={d!r})"
          for m in ("delta", "delta_lower_bound") for d in DIRECTIONS),
        "c.delta(0.5)", "c.delta_lower_bound(0.5, direction='minus')", "c.side('max')",
        *(f"c.renyi(np.array({list(ORDERS)!r}), direction={d!r})" for d in DIRECTIONS),
        *(f"c.{s}.{a}" for s in ("plus", "minus")
          for a in ("size", "infinity_mass", "tail_mass", "tail_loss", "extra_mass",
                    "losses", "probs", "total_mass()", "delta(np.array({eps}))")),
        "repr(c.plus)",
        *(f"c.to_curve().{m}(np.array({{eps}}))" for m in METHODS),
        *(f"c.to_curve().epsilon(np.array({list(TARGETS)!r}), direction={d!r})"
          for d in DIRECTIONS),
    ),
    # c: a dp-accounting PrivacyLossDistribution (to_dp_accounting)
    "dp_accounting": (
        f"c.get_delta_for_epsilon(np.array({list(ACCOUNTING_EPS)!r}))",
        *(f"c.get_delta_for_epsilon({e!r})" for e in (0.0, 0.5, inf)),
        *(f"c.get_epsilon_for_delta({d!r})" for d in (0.0, 1e-9, 1e-6, 1e-3, 0.1, 1.0)),
        "c.self_compose(3).get_delta_for_epsilon(0.5)",
    ),
    # c: a statpriv.partial_knowledge(...) object
    "partial_knowledge": (
        "repr(c)", "c.others",
        "c.closed_form_epsilon(np.array([5e-324, 1e-300, 1e-9, 1e-6, 1e-3, 0.5, 1.0]))",
        "c.closed_form_epsilon(1e-6)", "c.closed_form_epsilon(0.0)",
    ),
    # c: a statpriv.empirical.EmpiricalPrivacy
    "empirical": (
        "repr(c)", "c.bandwidth", "c.q", "c.leave_one_out",
        "c.delta(np.array([-1.0, 0.0, 0.1, 0.5, 1.0, 5.0]))", "c.delta(0.5)",
        "c.delta(701.0)", "c.deltas(0.5)", "c.total_risk(np.array([0.0, 0.5, 2.0]))",
        "c.epsilon(np.array([0.0, 1e-3, 0.5]))", "c.epsilon(0.05)",
        "c.most_exposed(5, 0.5)", "c.most_exposed(0)", "c.noise_scale(0.5)",
        "c.noise_scale(0.5, distance='hausdorff')", "c.noise_scale(0.0)", "c.hausdorff()",
        "c.matching_distance()", "c.densities(np.array([-3.0, 0.0, 0.5, 3.0]), 3)",
        "c.noise_sampler(0.5, seed=1)(8)", "c.noise_sampler(0.5, kernel='gauss', seed=2)(8)",
        "c.conditioned('mean', bins=2).delta(0.5)",
        "c.conditioned('mean', bins=2).deltas(0.5)",
    ),
}

# -- curves ---------------------------------------------------------------------
# Each entry: a setup expression, or (setup, extra eps).

COUNTING = [
    # iid
    "statpriv.counting(1, 0.5)", "statpriv.counting(2, 0.3)", "statpriv.counting(100, 0.3)",
    "statpriv.counting(1000, 0.5)", "statpriv.counting(10**6, 0.5)",
    "statpriv.counting(10**9, 0.3)", "statpriv.counting(10**12, 0.3)",
    "statpriv.counting(50, 0.0)", "statpriv.counting(50, 1.0)", "statpriv.counting(10, 0.0)",
    "statpriv.counting(10, 1.0)", ("statpriv.counting(10, 1e-300)", [-0.01]),
    ("statpriv.counting(10, 5e-324)", [3.0]), "statpriv.counting(10, 1 - 2.0 ** -53)",
    "statpriv.counting(1000000, 1e-06)",
    # sampling without replacement
    "statpriv.counting(1000, 0.5, sample_size=100)", "statpriv.counting(60, 0.3, sample_size=12)",
    "statpriv.counting(60, 0.3, sample_size=60)", "statpriv.counting(100, 0.0, sample_size=10)",
    "statpriv.counting(100, 1.0, sample_size=10)", "statpriv.counting(1000, 0.3, sample_rate=0.05)",
    "statpriv.counting(1000, 0.3, sample_size=100)",
    ("statpriv.counting(10**9, 0.3, sample_size=10)", [1e-9]),
    "statpriv.counting(661493835, 0.4044, sample_size=3)",
    "statpriv.counting(10**8, 0.02, sample_size=7)",
    "statpriv.counting(10**7, 0.97, sample_size=40)",
    ("statpriv.counting(14926575, 0.6467, sample_size=54)", [1e-6]),
    "statpriv.counting(10**9, 1e-300, sample_size=10)",
    "statpriv.counting(15, 5e-324, sample_size=9)",
    "statpriv.counting(10**5, 0.5, sample_size=10**5 - 1)",
    "statpriv.counting(3 * 10**6, 0.4, sample_size=2 * 10**6)",
    "statpriv.counting(1000, 0.3, sampling_prob=0.05)",
    # Poisson sampling
    "statpriv.counting(1000, 0.3, sample_rate=0.1, sampling='poisson')",
    "statpriv.counting(20, 0.44, sample_rate=0.86, sampling='poisson')",
    "statpriv.counting(100, 0.0, sample_rate=0.3, sampling='poisson')",
    "statpriv.counting(100, 1.0, sample_rate=0.3, sampling='poisson')",
    "statpriv.counting(100, 0.3, sample_rate=1.0, sampling='poisson')",
    "statpriv.counting(10**7, 0.3, sample_rate=1e-3, sampling='poisson')",
    "statpriv.counting(50, 0.3, sample_rate=1e-9, sampling='poisson')",
    "statpriv.counting(50, 0.3, sample_rate=1.0, sampling='poisson')",
    "statpriv.counting(50, 1.0 - 2.0 ** -53, sample_rate=0.5, sampling='poisson')",
    "statpriv.counting(10**6, 0.01, sample_rate=0.3, sampling='poisson')",
    # per-record pi
    "statpriv.counting(None, [0.1, 0.5, 0.9])",
    "statpriv.counting(None, [0.1, 0.5, 0.9, 0.3, 0.3])",
    "statpriv.counting(None, [0.0, 1.0, 0.2])", "statpriv.counting(None, [5e-324, 0.5, 0.5])",
    "statpriv.counting(None, [5e-324, 0.5, 1 - 2.0 ** -53])",
    "statpriv.counting(None, np.linspace(0.01, 0.99, 300))",
    "statpriv.counting(None, np.full(2000, 0.3) + np.arange(2000) * 1e-5)",
    "statpriv.counting(None, [0.1, 0.5, 0.9, 0.3], sample_rate=0.2, sampling='poisson')",
    "statpriv.counting(None, [0.1, 0.2, 0.7, 0.4], sample_rate=0.3, sampling='poisson')",
    "statpriv.counting(None, [5e-324, 0.3, 0.7], sample_rate=0.5, sampling='poisson')",
    "statpriv.counting(None, [5e-324, 0.5, 1 - 2.0 ** -53], sample_rate=0.5, sampling='poisson')",
    # the secret sample
    "statpriv.secret_sample(100, 10, positives=30)",
    ("statpriv.secret_sample(7, 1, positives=5)", [math.log(2) * (1 - 1e-12)]),
    "statpriv.secret_sample(22, 22, positives=10)", "statpriv.secret_sample(11, 1, positives=0)",
    "statpriv.secret_sample(10, 10, positives=0)",
    "statpriv.secret_sample(1000, 100, positives=300)",
    "statpriv.secret_sample(5000, 300, positives=2500)",
    # the normal approximation
    "statpriv.counting(1000, 0.3, approx='normal')",
    "statpriv.counting(10**9, 0.5, approx='normal')",
    "statpriv.counting(1000, 0.3, noise=statpriv.Gaussian(3.0), approx='normal')",
]

# counts with noise: every base with every noise, then single cases
NOISY_BASES = [
    "statpriv.counting(400, 0.5{})",
    "statpriv.counting(4, 0.5342{})", "statpriv.counting(1, 0.5{})",
    "statpriv.counting(60, 0.3, sample_size=12{})",
    "statpriv.counting(60, 0.3, sample_rate=0.25, sampling='poisson'{})",
    "statpriv.counting(None, [0.1, 0.5, 0.9, 0.3, 0.3, 0.7, 0.2, 0.4]{})",
    "statpriv.counting(None, [0.1, 0.5, 0.9], sample_rate=0.3, sampling='poisson'{})",
    "statpriv.secret_sample(40, 8, positives=15{})",
    "statpriv.secret_sample(11, 11, positives=4{})",
    "statpriv.counting(100, 0.0, sample_size=10{})", "statpriv.counting(15, 1e-9{})",
    "statpriv.counting(2000, 0.3{})", "statpriv.counting(10**5, 0.3{})",
    "statpriv.counting(3 * 10**6, 0.3{})",
]
NOISES = ["statpriv.Laplace(3.0)", "statpriv.Laplace(0.4)", "statpriv.Gaussian(2.0)",
          "statpriv.Gaussian(1e-10)", "statpriv.Geometric(0.5)", "statpriv.Geometric(0.1)"]
NOISY = [base.format(f", noise={noise}") for base in NOISY_BASES for noise in NOISES] + [
    ("statpriv.counting(4, 0.5342, noise=statpriv.Laplace(3.6364))", [(1 / 3.6364) * (1 - 1e-12)]),
    "statpriv.counting(50, 0.3, sample_size=5, noise=statpriv.Laplace(1.5))",
    "statpriv.counting(None, [0.1, 0.5, 0.9], noise=statpriv.Laplace(0.7))",
    "statpriv.counting(8, 0.3, sample_rate=0.2, sampling='poisson', noise=statpriv.Laplace(1.5))",
    "statpriv.counting(10**9, 0.3, sample_size=10, noise=statpriv.Laplace(3.0))",
    "statpriv.counting(40, 0.3, sample_rate=0.5, sampling='poisson', noise=statpriv.Laplace(0.5))",
    "statpriv.counting(1000, 0.3, noise=statpriv.Laplace(2.0))",
    "statpriv.counting(10**6, 0.3, noise=statpriv.Laplace(10.0))",
    "statpriv.secret_sample(10, 5, positives=9, noise=statpriv.Laplace(0.5))",
    "statpriv.counting(6, 0.3, noise=statpriv.Geometric(0.7))",
    "statpriv.counting(50, 0.3, sample_size=5, noise=statpriv.Geometric(0.6))",
    "statpriv.counting(8, 0.3, sample_rate=0.2, sampling='poisson', noise=statpriv.Geometric(0.5))",
    "statpriv.counting(None, [0.1, 0.5, 0.9, 0.3], noise=statpriv.Geometric(0.3))",
    "statpriv.counting(10**9, 0.3, sample_size=10, noise=statpriv.Geometric(0.9))",
    "statpriv.secret_sample(10, 5, positives=9, noise=statpriv.Geometric(0.5))",
    "statpriv.counting(1000, 0.3, noise=statpriv.Geometric(0.8))",
    "statpriv.counting(10, 0.3, sample_size=5, noise=statpriv.Geometric(0.427303138549747))",
    "statpriv.counting(10**6, 0.3, sample_rate=1e-6, sampling='poisson', "
    "noise=statpriv.Geometric(0.5))",
    "statpriv.counting(661493835, 0.4044, sample_size=3, noise=statpriv.Gaussian(8.83))",
    ("statpriv.counting(20, 0.44, sample_rate=0.86, sampling='poisson', "
     "noise=statpriv.Gaussian(4.85))", [11.5]),
    ("statpriv.secret_sample(11, 1, positives=0, noise=statpriv.Gaussian(3.43))", [16.2]),
    "statpriv.counting(100, 0.3, noise=statpriv.Gaussian(1e-10))",
    "statpriv.counting(100, 0.3, noise=statpriv.Gaussian(2.0))",
    "statpriv.counting(None, [0.1, 0.5, 0.9], noise=statpriv.Gaussian(0.7))",
]

DP = [
    ("statpriv.dp.laplace(17.07938327700137)", [(1 / 17.07938327700137) * (1 - 1e-12)]),
    "statpriv.dp.laplace(1.0)", "statpriv.dp.laplace(2.0)", "statpriv.dp.laplace(1e-8)",
    "statpriv.dp.laplace(1e8)", "statpriv.dp.laplace(2.0, sensitivity=3.0)",
    "statpriv.dp.laplace(1.0, sensitivity=0.5)",
    "statpriv.dp.gaussian(0.05520881730815853)", "statpriv.dp.gaussian(1.0)",
    "statpriv.dp.gaussian(1.5)", "statpriv.dp.gaussian(1e-3)", "statpriv.dp.gaussian(1e5)",
    "statpriv.dp.gaussian(3.0, sensitivity=2.0)", "statpriv.dp.gaussian(0.5, sensitivity=0.1)",
    "statpriv.dp.geometric(0.5)", "statpriv.dp.geometric(0.6)", "statpriv.dp.geometric(0.999)",
    "statpriv.dp.geometric(1e-12)", "statpriv.dp.geometric(0.5, sensitivity=3)",
    "statpriv.dp.geometric(0.9, sensitivity=1000)", "statpriv.dp.geometric(0.3, sensitivity=2)",
    "statpriv.Laplace(2.0).dp_curve()", "statpriv.Gaussian(0.7).dp_curve()",
    "statpriv.Geometric(0.3).dp_curve()",
]

FROM_LOG_PMFS = [
    "statpriv.from_log_pmfs(np.log([0.2, 0.5, 0.3]), np.log([0.3, 0.4, 0.3]))",
    "statpriv.from_log_pmfs(np.log([0.1, 0.2, 0.7]), np.log([0.6, 0.3, 0.1]), support_start=5)",
    "statpriv.from_log_pmfs(np.log([0.0, 0.5, 0.5]), np.log([0.5, 0.5, 0.0]))",
    "statpriv.from_log_pmfs(np.log([1.0]), np.log([1.0]))",
]

# partial_knowledge(n, p, known=...): (n, p, known); N = n - 1 - known above 1000
# takes the branch-and-bound bracket (n = 10**9: in MISC, its epsilon searches take minutes)
PARTIAL_KNOWLEDGE = [(1, 0.5, 0), (2, 0.3, 0), (41, 0.1, 0), (60, 0.25, 10), (200, 1e-9, 0),
                     (200, 0.5, 0), (200, 5e-324, 0), (600, 0.1, 0), (1500, 0.1, 0),
                     (10**6, 0.49, 10**6 - 50)]
HISTOGRAMS = [(1000, 0.1, 3), (300, 0.1, 2), (50, 0.25, 5), (1, 0.5, 2)]

THRESHOLDED = [
    f"statpriv.thresholded({args}, attacker={attacker!r})"
    for attacker in ("active", "passive")
    for args in ("1000, 1e-7, 100, known=100", "100, 0.3, 20, known=10", "100, 0.3, 0",
                 "50, 0.5, 60, known=5", "10**6, 0.01, 100, known=100", "1, 0.5, 1",
                 "30, 0.0, 2, known=3", "None, [0.1, 0.5, 0.9, 0.3, 0.0, 1.0], 3, known=2",
                 "None, list(np.linspace(0.01, 0.9, 500)), 100, known=100")]

K_ANONYMITY = [
    f"statpriv.k_anonymity({args}).{bound}" for bound in ("lower", "upper")
    for args in ("100, [0.05, 0.05, 0.6], 5, source=0, target=1",
                 "300, [0.1, 0.2], 10, source=1, target=0", "2, [0.5, 0.5], 1, source=0, target=1",
                 "50, [1e-300, 0.3, 0.2], 3, source=0, target=2",
                 "1, [0.3, 0.7], 2, source=1, target=0")]

SHUFFLE = [
    "statpriv.shuffle.clones(1, 1.0)", "statpriv.shuffle.clones(100, 0.5)",
    "statpriv.shuffle.clones(10**5, 1.0)", "statpriv.shuffle.clones(1000, 700.0)",
    "statpriv.shuffle.clones(1000, 1e-9)", "statpriv.shuffle.clones(50, 5e-324)",
    "statpriv.shuffle.randomized_response(1, 1.0)", "statpriv.shuffle.randomized_response(40, 2.0)",
    "statpriv.shuffle.randomized_response(300, 1.0)",
    "statpriv.shuffle.randomized_response(10, 1e-9)",
]

COMPOSED = [
    "statpriv.compose(statpriv.counting(100, 0.3), statpriv.dp.gaussian(2.0), times=3)",
    "statpriv.compose(statpriv.counting(100, 0.3), statpriv.counting(50, 0.2), exact=True)",
    "statpriv.compose(statpriv.counting(30, 0.5), times=2, exact=True)",
    "statpriv.compose(statpriv.dp.laplace(2.0), statpriv.dp.geometric(0.5), "
    "statpriv.counting(200, 0.1, sample_size=20), times=4)",
    "statpriv.compose(statpriv.dp.gaussian(4.0), times=16)",
    "statpriv.compose(statpriv.counting(1000, 0.5), times=10, value_discretization_interval=1e-3)",
    "statpriv.compose(statpriv.secret_sample(40, 8, positives=15), "
    "statpriv.counting(60, 0.3, noise=statpriv.Geometric(0.5)), tail_mass_truncation=1e-12)",
    "statpriv.compose(statpriv.compose(statpriv.counting(20, 0.3), times=2), "
    "statpriv.dp.geometric(0.7))",
    # 1.5e6 product atoms: delta as an outer sum over the smaller side
    "statpriv.compose(statpriv.counting(1500, 0.5), statpriv.counting(1000, 0.3), exact=True)",
]

# curves that also get the accounting queries (renyi, PLD, dp-accounting, audit)
ACCOUNTED = [
    "statpriv.counting(1, 0.5)", "statpriv.counting(1000, 0.5)", "statpriv.counting(10**5, 0.5)",
    "statpriv.counting(50, 0.0)", "statpriv.counting(10, 1e-9)",
    "statpriv.counting(1000, 0.5, sample_size=100)",
    "statpriv.counting(1000, 0.3, sample_rate=0.1, sampling='poisson')",
    "statpriv.counting(None, [0.1, 0.5, 0.9, 0.3, 0.3])",
    "statpriv.counting(None, np.linspace(0.01, 0.99, 300))",
    "statpriv.secret_sample(100, 10, positives=30)",
    "statpriv.counting(400, 0.5, noise=statpriv.Laplace(3.0))",
    "statpriv.counting(40, 0.5, noise=statpriv.Gaussian(2.0))",
    "statpriv.counting(400, 0.5, noise=statpriv.Geometric(0.5))",
    "statpriv.counting(60, 0.3, sample_size=12, noise=statpriv.Geometric(0.1))",
    "statpriv.secret_sample(40, 8, positives=15, noise=statpriv.Geometric(0.5))",
    "statpriv.counting(1000, 0.3, approx='normal')",
    "statpriv.dp.laplace(2.0)", "statpriv.dp.gaussian(1.5)", "statpriv.dp.geometric(0.6)",
    "statpriv.dp.laplace(2.0, sensitivity=3.0)", "statpriv.dp.gaussian(3.0, sensitivity=2.0)",
    "statpriv.dp.geometric(0.5, sensitivity=3)",
    "statpriv.from_log_pmfs(np.log([0.2, 0.5, 0.3]), np.log([0.3, 0.4, 0.3]))",
    "statpriv.from_log_pmfs(np.log([0.0, 0.5, 0.5]), np.log([0.5, 0.5, 0.0]))",
    "statpriv.partial_knowledge(41, 0.1).worst_case", "statpriv.shuffle.clones(100, 0.5)",
    "statpriv.thresholded(100, 0.3, 20, known=10, attacker='passive')",
    "statpriv.k_anonymity(100, [0.05, 0.05, 0.6], 5, source=0, target=1).upper",
] + COMPOSED
# curves also composed by the dp-accounting accountant adapter
ACCOUNTANT = ["statpriv.counting(1000, 0.5)", "statpriv.dp.gaussian(1.5)",
              "statpriv.counting(400, 0.5, noise=statpriv.Laplace(3.0))"]
# log_pmfs() builds the whole window: ~50 s for 7e7 atoms at n = 1e12
NO_LOG_PMFS = ["statpriv.counting(10**12, 0.3)"]
# the methods of to_dp_accounting, at h = 1e-3 (and the default h once)
DP_ACCOUNTING = [".to_dp_accounting(1e-3)", ".to_dp_accounting(1e-3, method='pmf')",
                 ".to_dp_accounting(1e-3, method='connect_dots')"]


def fixed_sets(setup, *more):
    """The query sets of a fixed curve."""
    return ("curve", "refusals") + (() if setup in NO_LOG_PMFS else ("laws",)) + more


def curve_groups():
    """(setup, query sets, extra eps) of every fixed curve and its derived objects."""
    for entry in COUNTING + NOISY + DP + FROM_LOG_PMFS + SHUFFLE + THRESHOLDED + K_ANONYMITY:
        setup, extra = (entry, []) if isinstance(entry, str) else entry
        yield setup, fixed_sets(setup), extra
    for n, p, known in PARTIAL_KNOWLEDGE:
        pk = f"statpriv.partial_knowledge({n}, {p!r}, known={known})"
        yield pk, ("partial_knowledge",), []
        yield pk + ".worst_case", fixed_sets(pk + ".worst_case", "bracket"), []
        for curve in (".uniform", ".blanket"):
            yield pk + curve, fixed_sets(pk + curve), []
    for n, p, categories in HISTOGRAMS:
        for bound in ("lower", "upper"):
            setup = f"statpriv.histogram_partial_knowledge({n}, {p!r}, {categories}).{bound}"
            yield setup, fixed_sets(setup), []
    for setup in COMPOSED:
        yield setup, fixed_sets(setup, "composed"), []
    for setup in ACCOUNTED:
        yield setup, ("renyi", "audit"), []
        yield setup + ".privacy_loss_distribution()", ("pld",), []
        for export in DP_ACCOUNTING:
            yield setup + export, ("dp_accounting",), []
    for setup in ACCOUNTANT:
        yield setup, ("accountant",), []
    yield "statpriv.counting(1000, 0.5).to_dp_accounting()", ("dp_accounting",), []


def differential_groups(seeds, per_kind):
    """The edge cases and seeded draws of tests/differential.py (every kind)."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    import differential
    for _kind, expr, _build, eps in differential.EDGE_CASES:
        yield expr, ("curve",), list(eps)
    for seed in seeds:
        for kind in differential.ALL_KINDS:
            for index in range(per_kind):
                case = differential.draw_case(seed, kind, index)
                yield case.expr, ("curve",), list(case.eps)


# -- the rest: groups of stand-alone expressions ---------------------------------

INTERVAL_KINDS = (("laplace", None), ("geometric", None), ("gaussian", 1e-6))
INTERVAL_POINTS = ((0.2, 0.8, 100.0), (0.05, 0.99, 37.0), (0.3, 0.5, 10.0), (1.0, 0.9, 1.0))
CLI_CALLS = (
    ["delta", "--n", "1000", "--pi", "0.5", "--eps", "0.1"],
    ["delta", "--n", "100", "--pi", "0.3", "--eps", "0.5", "--noise", "laplace:3"],
    ["delta", "--n", "100", "--pi", "0.3", "--eps", "0.5", "--noise", "gaussian:2"],
    ["delta", "--n", "10", "--pi", "0.5", "--eps", "-inf"],
    ["delta", "--n", "10", "--pi", "0.5", "--eps", "-0.5", "--sample-size", "4"],
    ["epsilon", "--n", "100", "--pi", "0.3", "--delta", "1e-3", "--noise", "geometric:0.5"],
    ["epsilon", "--n", "100", "--pi", "0.3", "--delta", "1e-3", "--sample-size", "10"],
    ["epsilon", "--n", "1000", "--pi", "0.5", "--delta", "0"],
    ["delta", "--n", "100", "--pi", "0.3", "--eps", "0.5", "--noise", "cauchy:2"],
    ["delta", "--n", "0", "--pi", "0.3", "--eps", "0.5"],
    ["delta", "--help"], ["--help"], ["bogus"], [], ["demo"],
)
MP_CURVES = ("statpriv.counting(10, 0.3)", "statpriv.dp.laplace(2.0)", "statpriv.dp.gaussian(1.0)",
             "statpriv.counting(20, 0.3, noise=statpriv.Geometric(0.5))",
             "statpriv.secret_sample(12, 4, positives=5)")
ORDERS_LIST = "[1.5, 2, 4, 8, 16, 32, 64]"

MISC = {
    "noise objects": (
        *(q.format(n=noise) for noise in NOISES
          for q in ("repr({n})", "{n}.kind", "{n}.param", "{n}.param_name", "{n}.variance",
                    "{n}.pure_dp", "hash({n}) == hash(type({n})({n}.param))",
                    "{n} == type({n})({n}.param)", "setattr({n}, 'param', 2.0)",
                    "repr({n}.dp_curve())")),
        "statpriv.Laplace(2.0).scale",
        "statpriv.Gaussian(2.0).sigma", "statpriv.Geometric(0.5).alpha",
        "sorted(statpriv.noise.NOISE_KINDS)", "statpriv.noise.Noise(1.0)",
        *(f"statpriv.{cls}({bad})" for cls in ("Laplace", "Gaussian", "Geometric")
          for bad in ("0.0", "-1.0", "inf", "nan", "True", "'a'", "1.0")),
    ),
    "interval helpers": (
        *(q for kind, delta in INTERVAL_KINDS for w, p, n in INTERVAL_POINTS for q in (
            f"statpriv.interval_epsilon({w!r}, {p!r}, {n!r}, {kind!r}, {delta!r})",
            f"statpriv.interval_confidence({0.1 * p + 0.01!r}, {w!r}, {n!r}, {kind!r}, {delta!r})",
            f"statpriv.interval_width({0.1 * p + 0.01!r}, {p!r}, {n!r}, {kind!r}, {delta!r})",
            f"repr(statpriv.interval_noise({w!r}, {p!r}, {n!r}, {kind!r}))")),
        *(q for kind, delta in INTERVAL_KINDS for q in (
            f"statpriv.interval_epsilon(np.array([0.1, 0.2]), 0.8, np.array([[10.0], [100.0]]), "
            f"{kind!r}, {delta!r})",
            f"statpriv.interval_epsilon(0.1, 0.8, 10.0, {kind!r}, "
            f"{0.5 if delta is None else None!r})")),
        "statpriv.interval_epsilon(0.1, 0.8, 10.0, 'cauchy')",
        "statpriv.interval_noise(0.1, 0.8, 10.0, 'cauchy')",
    ),
    "utility helpers": (
        *(f"repr(statpriv.equal_utility_noise(1000, 0.3, 100, {kind!r}))"
          for kind in ("laplace", "gaussian", "geometric")),
        "statpriv.equal_utility_epsilon(1000, 0.3, 100)",
        *(f"statpriv.utility_loss(1000, 0.3, sample_size=100, noise={noise})" for noise in NOISES),
        "statpriv.utility_loss(1000, np.array([0.0, 0.3, 1.0]))",
        "statpriv.utility_loss(1000, 0.3, sample_size=1001)",
    ),
    "amplify": (
        "statpriv.amplify(1.0, 1e-6, 0.01)", "statpriv.amplify(1.0, 1e-6, sampling_prob=0.01)",
        "statpriv.amplify(np.array([0.0, 1.0, inf]), 1e-6, 0.5)", "statpriv.amplify(inf, 0.0, 0.0)",
        "statpriv.amplify(1.0, 1e-6, np.array([[0.1], [0.2]]))",
        "statpriv.amplify(1e-300, 1e-6, 1e-300)", "statpriv.amplify(700.0, 0.5, 1e-300)",
        "statpriv.amplify(1.0, 1e-6)", "statpriv.amplify(-1.0, 0.0, 0.5)",
        "statpriv.amplify(np.array([1.0, 2.0]), np.array([0.1, 0.2, 0.3]), 0.5)",
        "statpriv.amplify(True, 0.0, 0.5)", "statpriv.amplify(1.0, 1e-6, 0.5, sampling_prob=0.5)",
    ),
    "rdp_to_dp and closed-form compositions": (
        *(f"statpriv.rdp_to_dp({ORDERS_LIST}, {curve}.renyi({ORDERS_LIST}), {target})"
          for curve in ("statpriv.dp.gaussian(5.0)", "statpriv.counting(1000, 0.5)",
                        "statpriv.compose(statpriv.dp.gaussian(4.0), times=16)")
          for target in ("delta=1e-6", "epsilon=1.0", "delta=1.0", "epsilon=0.0")),
        "statpriv.rdp_to_dp([2.0, inf], [1.0, 3.0], delta=1e-6)",
        "statpriv.rdp_to_dp([2.0, inf], [1.0, 3.0], epsilon=3.0)",
        "statpriv.rdp_to_dp([2.0], [inf], epsilon=1.0)",
        "statpriv.rdp_to_dp([2.0], [1.0])",
        "statpriv.rdp_to_dp([2.0], [1.0], delta=1e-6, epsilon=1.0)",
        "statpriv.rdp_to_dp([0.5, 1.0], [1.0, 1.0], delta=1e-6)",
        "statpriv.rdp_to_dp([2.0, 3.0], [1.0], delta=1e-6)",
        "statpriv.rdp_to_dp([2.0], [1.0], delta=0.0)",
        "statpriv.basic_composition((0.5, 1e-6), (0.25, 1e-7), times=2)",
        "statpriv.basic_composition((inf, 0.0))",
        "statpriv.basic_composition((0.1, 0.6), (0.1, 0.6))",
        "statpriv.basic_composition()", "statpriv.basic_composition((0.5,))",
        "statpriv.basic_composition((0.5, 2.0))", "statpriv.basic_composition((-1.0, 0.0))",
        "statpriv.basic_composition((0.5, 1e-6), times=0)",
        "statpriv.bounded_dependency_composition((0.5, 1e-6), (0.5, 1e-6), 0.1, 1e-7)",
        "statpriv.bounded_dependency_composition((0.5, 1e-6), (inf, 0.0), inf, 1.0)",
        "statpriv.bounded_dependency_composition((0.5, 1e-6), (0.5, 1e-6), 0.1, 1.5)",
        "statpriv.bounded_dependency_composition((0.5, 1e-6), 0.5, 0.1, 0.0)",
    ),
    "conjecture_check": (
        "statpriv.conjecture_check([10, 100], [0.1, 0.5], [0.1, 0.5], [0.01, 0.5])",
        "statpriv.conjecture_check([10, 100], [0.1, 0.5], [0.1, 0.5], [0.01, 0.5], "
        "directions=('plus', 'minus'), refined=True, rtol=0.0)",
        "statpriv.conjecture_check([10], [0.5], [0.5], [-1.0])",
    ),
    "partial knowledge of 1e9 records": (
        # (the worst case refuses these eps up front; below 0.1 it sums for ~10 s)
        *(f"statpriv.partial_knowledge(10**9, 0.1).worst_case.{m}(np.array([0.1, 1.0]))"
          for m in ("delta", "log_delta_minus")),
        "statpriv.partial_knowledge(10**9, 0.1).worst_case.bracket(0.1)",
        *(f"statpriv.partial_knowledge(10**9, 0.1).{curve}.{m}(np.array([0.0, 0.01, 0.1, 1.0]))"
          for curve in ("uniform", "blanket") for m in ("delta", "log_delta_minus")),
    ),
    "precision='mp'": (
        *(f"{curve}.delta(np.array([-0.5, 0.0, 0.1, 1.0]), precision='mp')" for curve in MP_CURVES),
        "statpriv.counting(10, 0.3).log_delta_minus(0.1, precision='mp')",
        "statpriv.counting(10**6, 0.5).delta(0.1, precision='mp', max_terms=10)",
    ),
    "refused constructions": (
        "statpriv.counting(0, 0.5)", "statpriv.counting(10, 1.5)", "statpriv.counting(10, nan)",
        "statpriv.counting(10, True)",
        "statpriv.counting(None, [])", "statpriv.counting(10, [0.1, 0.2])",
        "statpriv.counting(10, 0.5, sample_size=11)",
        "statpriv.counting(10, 0.5, sample_size=5, sample_rate=0.5)",
        "statpriv.counting(10, 0.5, sample_size=3, sampling='poisson')",
        "statpriv.counting(10, 0.5, sample_rate=0.01)",
        "statpriv.counting(10, 0.5, sampling='bernoulli')",
        "statpriv.counting(10, 0.5, noise='laplace')",
        "statpriv.counting(10, 0.5, approx='poisson')",
        "statpriv.counting(10, 0.5, noise=statpriv.Laplace(1.0), approx='normal')",
        "statpriv.counting(10, 0.5, sample_size=5, approx='normal')",
        "statpriv.secret_sample(10, 11, positives=3)",
        "statpriv.secret_sample(10, 5, positives=10)",
        "statpriv.from_log_pmfs(np.log([0.5, 0.6]), np.log([0.5, 0.5]))",
        "statpriv.from_log_pmfs([0.0, inf], [0.0, 0.0])",
        "statpriv.from_log_pmfs([0.0], [0.0, -inf])",
        "statpriv.dp.laplace(0.0)",
        "statpriv.dp.laplace(inf)", "statpriv.dp.gaussian(1.0, sensitivity=0)",
        "statpriv.dp.laplace(1e-300, sensitivity=1e300)", "statpriv.dp.geometric(1.0)",
        "statpriv.dp.geometric(0.5, sensitivity=0)", "statpriv.dp.geometric(0.5, sensitivity=1.5)",
        "statpriv.dp.geometric(0.5, sensitivity=10**6 + 1)",
        "statpriv.partial_knowledge(10, 0.6)", "statpriv.partial_knowledge(10, 0.0)",
        "statpriv.partial_knowledge(0, 0.1)", "statpriv.partial_knowledge(10, 0.1, known=10)",
        "statpriv.histogram_partial_knowledge(1000, 0.1, 1)",
        "statpriv.thresholded(10, 0.5, 3, attacker='sneaky')",
        "statpriv.thresholded(10, 0.5, 3, known=10)",
        "statpriv.thresholded(10, 0.5, -1)", "statpriv.thresholded(None, [0.1, 0.2], 1, known=3)",
        "statpriv.k_anonymity(10, [0.6, 0.6], 2, source=0, target=1)",
        "statpriv.k_anonymity(10, [0.5, 0.5], 2, source=0, target=0)",
        "statpriv.k_anonymity(10, [0.5], 2, source=0, target=0)",
        "statpriv.k_anonymity(10, [0.5, 0.5], 0, source=0, target=1)",
        "statpriv.k_anonymity(10**12, [0.3, 0.3], 10**6, source=0, target=1)",
        "statpriv.shuffle.clones(10, 0.0)", "statpriv.shuffle.clones(10, 701.0)",
        "statpriv.shuffle.clones(0, 1.0)", "statpriv.shuffle.randomized_response(10, -1.0)",
        "statpriv.compose()", "statpriv.compose(1.0)",
        "statpriv.compose(statpriv.counting(10, 0.3, noise=statpriv.Laplace(1.0)))",
        "statpriv.compose(*[statpriv.counting(10, 0.3)] * 3, exact=True)",
        "statpriv.compose(statpriv.dp.gaussian(1.0), times=2, exact=True)",
        "statpriv.compose(statpriv.counting(10**6, 0.5), statpriv.counting(10, 0.5), exact=True)",
        "statpriv.compose(statpriv.counting(10, 0.3), times=0)",
        "statpriv.compose(statpriv.counting(10, 0.3), exact=1)",
        "statpriv.compose(statpriv.counting(10, 0.3), value_discretization_interval=2.0)",
        "statpriv.counting(10, 0.3).to_dp_accounting(0.0)",
        "statpriv.counting(10, 0.3).to_dp_accounting(1e-3, method='exact')",
        "statpriv.counting(10, 0.3, noise=statpriv.Laplace(1.0))"
        ".to_dp_accounting(1e-3, method='pmf')",
        "statpriv.counting(10, 0.3).privacy_loss_distribution(0.0)",
        "statpriv.audit(0.1, 1e-3, 'curve')",
        "statpriv.audit_pld(1.0, statpriv.counting(10, 0.3), [0.1])",
        "statpriv.audit_pld(statpriv.counting(10, 0.3), statpriv.counting(10, 0.3), [])",
        "statpriv.empirical.EmpiricalPrivacy(synthetic_frame(), 'mode')",
        "statpriv.empirical.EmpiricalPrivacy(synthetic_frame(), 'mean', estimator='histogram')",
        "statpriv.empirical.EmpiricalPrivacy(synthetic_frame(databases=1), 'mean')",
    ),
    "command line": tuple(f"cli({argv!r})" for argv in CLI_CALLS),
}

EMPIRICAL = [
    f"statpriv.empirical.EmpiricalPrivacy(synthetic_frame(), {args})"
    for args in ("'mean'", "'median', estimator='kde-gauss', bandwidth='silverman'",
                 "'sum', estimator='ecdf'", "'quantile:0.9', estimator='kde-adaptive'",
                 "'count', bandwidth=0.5")]


def synthetic_frame(databases=40, individuals=25):
    """A fixed long-format frame (db, id, value) for EmpiricalPrivacy, without a
    random generator (the same on every numpy): individual i has (i + r) % 3
    records in database r (none in a third of the databases), with values from
    a multiplicative hash spread over [-5, 5), ties included."""
    rows = [(r, i, ((r * 7919 + i * 104729 + k * 15485863) % 10007) / 1000.7 - 5.0)
            for r in range(databases) for i in range(individuals) for k in range((i + r) % 3)]
    return pd.DataFrame(rows, columns=["db", "id", "value"])


def cli(argv):
    """(exit status, stdout, stderr) of the command line ``statpriv ARGV``."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = statpriv.cli.main(argv)
        except SystemExit as exc:          # argparse's --help exits
            status = exc.code
    return status, out.getvalue(), err.getvalue()


NAMESPACE = {"statpriv": statpriv, "np": np, "math": math, "inf": inf, "nan": nan,
             "synthetic_frame": synthetic_frame, "cli": cli}

# -- the battery -------------------------------------------------------------------


def _expand(template, eps):
    if "{e}" in template:
        return [template.replace("{e}", repr(e)) for e in eps]
    return [template.replace("{eps}", repr(eps))]


def battery(seeds, per_kind):
    """[{"name", "setup", "queries"}]: the fixed curves and their derived objects,
    tests/differential.py's cases, the empirical objects and MISC.  A setup met
    twice is one group: the union of its eps and of its query sets."""
    merged = {}
    sources = [curve_groups(), differential_groups(seeds, per_kind),
               ((setup, ("empirical",), []) for setup in EMPIRICAL)]
    for source in sources:
        for setup, sets, extra in source:
            group = merged.setdefault(setup, {"sets": [], "eps": set(EPS)})
            group["sets"] += [s for s in sets if s not in group["sets"]]
            group["eps"].update(float(e) for e in extra)
    groups = []
    for setup, group in merged.items():
        eps = sorted(group["eps"])
        queries = [q for s in group["sets"] for t in QUERY_SETS[s] for q in _expand(t, eps)]
        groups.append({"name": setup, "setup": setup, "queries": queries})
    groups += [{"name": name, "setup": "None", "queries": list(queries)}
               for name, queries in MISC.items()]
    return groups


# -- evaluation and encoding -------------------------------------------------------

SHORT_ARRAY = 64
# in recorded text: default reprs (a memory address) and private names, which a
# refactor may rename ('_Name' object has no attribute ..., module._private)
_UNSTABLE = re.compile(r"<[\w.]+ object at 0x[0-9a-fA-F]+>|'_\w+'|\b\w+(?:\.\w+)*\._\w+")


def _text(x):
    return _UNSTABLE.sub("<private>", str(x))


def _array_bytes(a):
    """The bytes that hold a's values: x87 long doubles keep 10 of their 16
    bytes, the rest is padding with arbitrary contents."""
    a = np.ascontiguousarray(a)
    if a.dtype == np.longdouble and np.finfo(np.longdouble).nmant == 63 and a.itemsize > 10:
        return a.view(np.uint8).reshape(-1, a.itemsize)[:, :10].tobytes()
    return a.tobytes()


def encode(x):
    """A JSON tree of strings that is equal for bit-identical results."""
    if isinstance(x, (bool, np.bool_)):
        return repr(bool(x))
    if isinstance(x, (int, np.integer)):
        return repr(int(x))
    if isinstance(x, float):                       # numpy.float64 included
        return repr(float(x))
    if isinstance(x, str):
        return repr(_text(x))
    if isinstance(x, np.floating) or x is None:
        return repr(x)
    if isinstance(x, np.ndarray):
        if x.dtype == object or x.size <= SHORT_ARRAY:
            return {"array": f"{x.dtype} {x.shape}", "values": [encode(v) for v in x.ravel()]}
        digest = hashlib.sha256(_array_bytes(x)).hexdigest()[:32]
        return f"sha256 {digest} {x.dtype} {x.shape}"
    if isinstance(x, pd.Series):
        return {"name": repr(x.name), "index": encode(list(x.index)),
                "values": encode(x.to_numpy())}
    if isinstance(x, pd.DataFrame):
        return {"index": encode(list(x.index)), "columns": encode(list(x.columns)),
                "values": encode(x.to_numpy())}
    if hasattr(x, "_asdict"):                      # named tuples: by field
        return {k: encode(v) for k, v in x._asdict().items()}
    if isinstance(x, (list, tuple)):
        return [encode(v) for v in x]
    if isinstance(x, dict):
        return {str(k): encode(v) for k, v in sorted(x.items(), key=lambda kv: str(kv[0]))}
    return _text(repr(x))


def _refused(exc):
    return f"{type(exc).__name__}: {_text(exc)}"


def evaluate(setup, queries):
    """(setup result, [encoded result of each query]); a failed setup answers no query."""
    try:
        obj = eval(setup, dict(NAMESPACE))
    except Exception as exc:               # a refused construction is a result
        return _refused(exc), []
    results = []
    for query in queries:
        try:
            results.append(encode(eval(query, dict(NAMESPACE, c=obj))))
        except Exception as exc:           # so is a refused query
            results.append(_refused(exc))
    return "ok", results


def leaves(tree, path=""):
    """(path, string) of every value in an encoded result."""
    if isinstance(tree, dict):
        for key, value in tree.items():
            yield from leaves(value, f"{path}.{key}")
    elif isinstance(tree, list):
        for i, value in enumerate(tree):
            yield from leaves(value, f"{path}[{i}]")
    else:
        yield path, tree


def flat(setup_result, queries, results):
    """{(query, path): value} of a group; the setup's result under the key (setup, "")."""
    out = {("<setup>", ""): setup_result}
    for query, result in zip(queries, results):
        out.update(((query, path), value) for path, value in leaves(result))
    return out


def run(groups):
    """Evaluate every group in place (group["setup_result"], group["results"]);
    returns the seconds each took."""
    seconds = []
    for group in groups:
        t0 = time.perf_counter()
        group["setup_result"], group["results"] = evaluate(group["setup"], group["queries"])
        seconds.append(time.perf_counter() - t0)
    return seconds


def _print_slowest(groups, seconds, count=5):
    total = sum(seconds)
    order = sorted(range(len(groups)), key=lambda i: -seconds[i])[:count]
    print(f"evaluated in {total:.1f} s; slowest: "
          + "; ".join(f"{seconds[i]:.2f} s {groups[i]['name'][:70]}" for i in order))


def write(path, seeds, per_kind):
    groups = battery(seeds, per_kind)
    seconds = run(groups)
    stored = [{"name": g["name"], "setup": g["setup"], "setup_result": g["setup_result"],
               "results": [[q, r] for q, r in zip(g["queries"], g["results"])]}
              for g in groups]
    with open(path, "w") as fh:
        json.dump({"seeds": list(seeds), "per_kind": per_kind, "groups": stored}, fh, indent=0)
    values = sum(len(flat(g["setup_result"], g["queries"], g["results"])) for g in groups)
    _print_slowest(groups, seconds)
    print(f"wrote {len(groups)} curves/groups, {values} values to {path}")
    return 0


def check(path, shown=40):
    with open(path) as fh:
        stored = json.load(fh)["groups"]
    groups = [{"name": g["name"], "setup": g["setup"], "queries": [q for q, _ in g["results"]],
               "old": flat(g["setup_result"], [q for q, _ in g["results"]],
                           [r for _, r in g["results"]])} for g in stored]
    seconds = run(groups)
    values = differ = 0
    for group in groups:
        old, new = group["old"], flat(group["setup_result"], group["queries"], group["results"])
        values += len(old)
        for key in list(old) + [k for k in new if k not in old]:
            was, now = old.get(key, "<missing>"), new.get(key, "<missing>")
            if was == now:
                continue
            differ += 1
            if differ <= shown:
                query, where = key
                print(f"DIFF {group['name'][:100]} :: {query[:160]}{where}\n"
                      f"     was {str(was)[:200]}\n     now {str(now)[:200]}")
    _print_slowest(groups, seconds)
    print(f"{len(groups)} curves/groups, {values} values, {differ} differ")
    return 1 if differ else 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    w = sub.add_parser("write", help="evaluate the battery and store it in FILE")
    w.add_argument("file")
    w.add_argument("--seeds", default="1,2,3",
                   help="seeds of tests/differential.py's draws (comma-separated)")
    w.add_argument("--per-kind", type=int, default=6, help="draws per kind and seed")
    c = sub.add_parser("check", help="re-evaluate FILE's expressions and compare")
    c.add_argument("file")
    c.add_argument("--show", type=int, default=40, help="differences printed (default 40)")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    if args.mode == "write":
        seeds = tuple(int(s) for s in args.seeds.split(",") if s.strip())
        return write(args.file, seeds, args.per_kind)
    return check(args.file, args.show)


if __name__ == "__main__":
    sys.exit(main())
