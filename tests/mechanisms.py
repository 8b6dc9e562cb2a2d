"""One table of every public curve kind, for the generic tests (tests/test_mechanisms.py).

Each row is data: an id, the public factory's dotted name under ``statpriv``
("counting", "dp.laplace", "shuffle.clones", ...), its positional and keyword
arguments, and ``then``, the attribute path applied to the factory's result
(".worst_case" of a partial-knowledge object, ".privacy_loss_distribution().to_curve()").
An argument that is itself a ``Spec`` is built first (the curves a composition
takes).  Rows name only public names, so the table outlives the modules behind
them (the pattern of scipy's ``_distr_params.py``).

Every kind appears at 2-4 parameter points, the edges included: n = 1, pi near
0 and 1 and exactly 0, m = n, rate 1, delta = 1 at every eps, supports that do
not overlap (delta(inf) > 0), sensitivities above 1.

``reference`` marks the rows whose mpmath brute force (the curve's
``precision="mp"``, statpriv.oracle) is a sum cheap enough for the default run:
the float path is checked against it there (the quadratures of the continuous
DP curves take seconds; tests/test_oracle.py holds them).  ``symmetric`` marks the rows whose
laws swap under a reflection of the outcome,
so delta_plus = delta_minus: the DP mechanisms, an iid count at pi = 1/2 (S and
N - S have one law, and x -> N + 1 - x maps S + 1 to N - S), the shuffled
reports, a pair of mirrored log-pmfs and draws with replacement at pi = 1/2
(flipping every bit maps Bin(m, (A+1)/n) to Bin(m, (n-1-A)/n), c to m - c).
``mirror`` names a row whose delta_minus is this row's delta_plus (counting(n, pi) and counting(n, 1 - pi)).
"""
import functools
import math
from typing import NamedTuple

import statpriv
import statpriv.shuffle

Laplace, Gaussian, Geometric = statpriv.Laplace, statpriv.Gaussian, statpriv.Geometric


class Spec(NamedTuple):
    """A public curve: statpriv.<factory>(*args, **kwargs), then the ``then`` path."""
    factory: str
    args: tuple = ()
    kwargs: dict = {}
    then: tuple = ()        # steps: "attribute", or ("method", args, kwargs) for a call


class Mechanism(NamedTuple):
    id: str
    spec: Spec
    symmetric: bool = False
    mirror: str = None      # id of the row whose delta_minus is this row's delta_plus
    reference: bool = False  # its mpmath brute force (precision="mp") takes < ~1 s


def _row(id, factory, *args, then=(), symmetric=False, mirror=None, reference=False, **kwargs):
    return Mechanism(id, Spec(factory, args, kwargs, tuple(then)), symmetric, mirror, reference)


def build(spec):
    """The curve of a Spec (arguments that are Specs built first)."""
    factory = functools.reduce(getattr, spec.factory.split("."), statpriv)
    args = [build(a) if isinstance(a, Spec) else a for a in spec.args]
    obj = factory(*args, **spec.kwargs)
    for step in spec.then:
        if isinstance(step, str):
            obj = getattr(obj, step)
        else:
            name, a, kw = step
            obj = getattr(obj, name)(*a, **kw)
    return obj


# Per-record probabilities: 0 and 1 among them (known records, dropped).
PROBS = [0.31, 0.0, 0.82, 0.15, 1.0, 0.47, 0.05, 0.66, 0.23, 0.9]
# Two laws on three outcomes, mirror images of each other (delta_plus = delta_minus),
# and two whose supports differ (P has an outcome Q never gives: delta(inf) > 0).
MIRRORED = ([math.log(0.2), math.log(0.3), math.log(0.5)],
            [math.log(0.5), math.log(0.3), math.log(0.2)])
DISJOINT = ([math.log(0.1), math.log(0.6), math.log(0.3)],
            [math.log(0.7), math.log(0.3), -math.inf])
TO_CURVE = (("privacy_loss_distribution", (), {}), ("to_curve", (), {}))

MECHANISMS = [
    # noiseless iid counts
    _row("counting-n1", "counting", 1, 0.3, reference=True),
    _row("counting-half", "counting", 10, 0.5, symmetric=True, reference=True),
    _row("counting-large", "counting", 10 ** 6, 0.3),
    # pi = 2^-30 and 1 - 2^-30 (exact in binary, so the two are mirror images)
    _row("counting-pi-tiny", "counting", 1000, 2.0 ** -30, mirror="counting-pi-near-1"),
    _row("counting-pi-near-1", "counting", 1000, 1 - 2.0 ** -30, mirror="counting-pi-tiny"),
    _row("counting-pi-0", "counting", 50, 0.0),
    # per-record probabilities
    _row("per-record-small", "counting", None, PROBS, reference=True),
    _row("per-record-200", "counting", None, [0.05 + 0.9 * k / 199 for k in range(200)]),
    # sampling without replacement
    _row("sample-size-10", "counting", 1000, 0.3, sample_size=10, reference=True),
    _row("sample-size-all", "counting", 50, 0.5, sample_size=50, symmetric=True),
    _row("sample-size-large-n", "counting", 10 ** 6, 0.01, sample_size=1000),
    # Poisson sampling
    _row("poisson-0.1", "counting", 1000, 0.3, sample_rate=0.1, sampling="poisson",
         reference=True),
    _row("poisson-rate-1", "counting", 20, 0.44, sample_rate=1.0, sampling="poisson"),
    # sampling with replacement (a record counted once per draw)
    _row("with-replacement-30", "counting", 200, 0.3, sample_size=30,
         sampling="with_replacement", reference=True),
    _row("with-replacement-100", "counting", 1000, 0.3, sample_size=100,
         sampling="with_replacement"),
    _row("with-replacement-m-above-n", "counting", 3, 0.5, sample_size=7,
         sampling="with_replacement", symmetric=True),
    _row("with-replacement-n-1", "counting", 1, 0.4, sample_size=2,
         sampling="with_replacement"),
    # A. Smith's secret sample
    _row("secret-sample", "secret_sample", 100, 10, 3, reference=True),
    _row("secret-sample-no-positives", "secret_sample", 3000, 300, 0),
    _row("secret-sample-all", "secret_sample", 40, 40, 20),
    # counts plus noise: iid, sampled, per-record
    _row("laplace-iid", "counting", 1000, 0.3, noise=Laplace(1.0)),
    _row("laplace-sampled", "counting", 1000, 0.3, sample_size=100, noise=Laplace(2.0)),
    _row("laplace-per-record", "counting", None, PROBS, noise=Laplace(0.5)),
    _row("gaussian-iid", "counting", 300, 0.3, noise=Gaussian(2.0)),
    _row("gaussian-sampled", "counting", 1000, 0.3, sample_size=100, noise=Gaussian(1.0)),
    _row("gaussian-poisson", "counting", 200, 0.4, sample_rate=0.5, sampling="poisson",
         noise=Gaussian(1.0)),
    _row("gaussian-per-record", "counting", None, PROBS, noise=Gaussian(0.3)),
    _row("geometric-iid", "counting", 1000, 0.3, noise=Geometric(0.5)),
    _row("geometric-sampled", "counting", 1000, 0.3, sample_size=100, noise=Geometric(0.8)),
    _row("geometric-per-record", "counting", None, PROBS, noise=Geometric(0.2)),
    # the labelled normal approximation
    _row("normal-approx", "counting", 10 ** 6, 0.3, approx="normal"),
    _row("normal-approx-gaussian", "counting", 100, 0.5, noise=Gaussian(2.0), approx="normal"),
    # worst-case DP
    _row("dp-laplace", "dp.laplace", 1.0, symmetric=True),
    _row("dp-laplace-sensitivity", "dp.laplace", 2.0, sensitivity=3.0, symmetric=True),
    _row("dp-gaussian", "dp.gaussian", 1.0, symmetric=True),
    _row("dp-gaussian-sensitivity", "dp.gaussian", 0.5, sensitivity=2.0, symmetric=True),
    _row("dp-gaussian-wide", "dp.gaussian", 1e3, symmetric=True),
    _row("dp-geometric", "dp.geometric", 0.5, symmetric=True, reference=True),
    _row("dp-geometric-sensitivity", "dp.geometric", 0.9, sensitivity=3, symmetric=True,
         reference=True),
    _row("dp-randomized-response", "dp.randomized_response", 1.0, symmetric=True,
         reference=True),
    _row("dp-randomized-response-k5", "dp.randomized_response", 2.0, 5, symmetric=True,
         reference=True),
    # Poisson-subsampled DP mechanisms (add/remove: "remove" and "add" differ;
    # replace-one: symmetric) and replace-one without sampling
    _row("dp-gaussian-sampled", "dp.gaussian", 1.0, sampling_prob=0.01),
    _row("dp-gaussian-sampled-replace", "dp.gaussian", 0.5, sampling_prob=0.3,
         relation="replace_one", symmetric=True),
    _row("dp-gaussian-replace", "dp.gaussian", 2.0, relation="replace_one", symmetric=True),
    _row("dp-laplace-sampled", "dp.laplace", 1.0, sampling_prob=0.2),
    _row("dp-laplace-sampled-replace", "dp.laplace", 0.5, sampling_prob=0.05,
         relation="replace_one", symmetric=True),
    _row("dp-geometric-sampled", "dp.geometric", 0.6, sensitivity=2, sampling_prob=0.1,
         reference=True),
    _row("dp-geometric-sampled-replace", "dp.geometric", 0.3, sampling_prob=0.5,
         relation="replace_one", symmetric=True, reference=True),
    _row("dp-sampled-nothing", "dp.gaussian", 1.0, sampling_prob=0.0, symmetric=True,
         reference=True),
    # any curve subsampled by its pair
    _row("subsample-rr-without-replacement", "dp.randomized_response", 1.0, symmetric=True,
         reference=True, then=(("subsample", (0.1,), {"sampling": "without_replacement"}),)),
    _row("subsample-counting-poisson", "counting", 100, 0.3, reference=True,
         then=(("subsample", (0.2,), {}),)),
    # two laws given as log-pmfs
    _row("log-pmfs-mirrored", "from_log_pmfs", *MIRRORED, symmetric=True, reference=True),
    _row("log-pmfs-disjoint", "from_log_pmfs", *DISJOINT, support_start=-1, reference=True),
    # partial knowledge (Desfontaines, Mohammadi, Krahmer & Basin)
    _row("pk-worst-case", "partial_knowledge", 100, 0.2, then=["worst_case"]),
    _row("pk-worst-case-known", "partial_knowledge", 150, 0.1, known=5, then=["worst_case"]),
    _row("pk-uniform", "partial_knowledge", 100, 0.2, known=5, then=["uniform"]),
    _row("pk-blanket", "partial_knowledge", 100, 0.2, then=["blanket"]),
    _row("pk-blanket-large", "partial_knowledge", 1000, 0.05, then=["blanket"]),
    _row("histogram-pk-upper", "histogram_partial_knowledge", 100, 0.1, 3, then=["upper"]),
    _row("histogram-pk-lower", "histogram_partial_knowledge", 100, 0.1, 3, then=["lower"]),
    # thresholded counts and k-anonymity
    _row("thresholded-active", "thresholded", 40, 0.2, 10, known=8, attacker="active",
         reference=True),
    _row("thresholded-passive", "thresholded", 40, 0.2, 10, known=8, attacker="passive",
         reference=True),
    _row("thresholded-per-record", "thresholded", None, PROBS, 3, known=1, attacker="active"),
    _row("thresholded-out-of-reach", "thresholded", 10, 0.5, 12),
    _row("k-anonymity-lower", "k_anonymity", 30, [0.2, 0.3, 0.1], 3, source=0, target=1,
         then=["lower"]),
    _row("k-anonymity-upper", "k_anonymity", 30, [0.2, 0.3, 0.1], 3, source=0, target=1,
         then=["upper"]),
    # repeated counts on the same correlated records (Desfontaines et al. Example 8):
    # one target pair, the worst case over every pair (symmetric: a pair's swap
    # is its other direction), the histogram's upper curve
    _row("correlated-pair", "correlated_counts", 12, [0.3, 0.1, 0.2, 0.4],
         target=((1, 0), (0, 1)), reference=True),
    _row("correlated-worst-case", "correlated_counts", 10, [0.1, 0.3, 0.2, 0.4], symmetric=True,
         reference=True),
    _row("correlated-perfect", "correlated_counts", 20, [0.5, 0.0, 0.0, 0.5],
         target=((1, 0), (0, 0))),
    _row("correlated-histogram", "correlated_counts", 40, [0.3, 0.1, 0.2, 0.4],
         target=((1, 1), (0, 0)), method="histogram"),
    # shuffling
    _row("shuffle-clones", "shuffle.clones", 1000, 1.0, symmetric=True),
    _row("shuffle-clones-single", "shuffle.clones", 1, 0.5, symmetric=True),
    _row("shuffle-rr", "shuffle.randomized_response", 100, 1.0),
    _row("shuffle-rr-large", "shuffle.randomized_response", 200, 3.0),
    # composition: the grid and the exact product
    _row("compose-grid", "compose", Spec("counting", (30, 0.3)), times=3),
    _row("compose-grid-dp", "compose", Spec("dp.gaussian", (2.0,)), Spec("counting", (50, 0.4)),
         times=2),
    _row("compose-exact", "compose", Spec("counting", (30, 0.3)), Spec("dp.geometric", (0.5,)),
         exact=True),
    # curves known through their delta only (connect-the-dots measures)
    _row("compose-delta-only", "compose",
         Spec("counting", (40, 0.5), {"noise": Laplace(2.0)}), Spec("shuffle.clones", (50, 1.0)),
         times=2),
    # privacy-loss distributions back to curves
    _row("pld-counting", "counting", 100, 0.3, then=TO_CURVE),
    _row("pld-dp-laplace", "dp.laplace", 1.0, symmetric=True,
         then=(("privacy_loss_distribution", (1e-3,), {}), ("to_curve", (), {}))),
    _row("pld-noisy-count", "counting", 40, 0.5, noise=Laplace(2.0),
         then=(("privacy_loss_distribution", (1e-3,), {}), ("to_curve", (), {}))),
]

BY_ID = {m.id: m for m in MECHANISMS}
assert len(BY_ID) == len(MECHANISMS), "mechanism ids must be unique"


@functools.lru_cache(maxsize=None)
def curve(id):
    """The curve of a row, built once per test session."""
    return build(BY_ID[id].spec)


# ---------------------------------------------------------------------------
# The generic checks (used over the table by tests/test_mechanisms.py and over
# hypothesis-drawn counts by tests/test_properties.py).
DIRECTIONS = ("", "_plus", "_minus")


def check_probability(curve, eps):
    """delta, delta_plus, delta_minus in [0, 1] (never NaN) and ln delta <= 0."""
    import numpy as np
    for d in DIRECTIONS:
        values = np.atleast_1d(getattr(curve, f"delta{d}")(eps))
        assert not np.isnan(values).any(), (d, eps, values)
        assert np.all((0.0 <= values) & (values <= 1.0)), (d, eps, values)
        assert np.all(np.atleast_1d(getattr(curve, f"log_delta{d}")(eps)) <= 0.0), (d, eps)


def check_non_increasing(curve, eps, tol=1e-12):
    """ln delta (each direction) non-increasing along the sorted ``eps``, up to
    ``tol`` in ln delta (rounding of the evaluation)."""
    import numpy as np
    eps = np.sort(np.asarray(eps, dtype=float))
    for d in DIRECTIONS:
        logs = getattr(curve, f"log_delta{d}")(eps)
        finite = np.isfinite(logs[:-1]) & np.isfinite(logs[1:])
        rises = logs[1:][finite] - logs[:-1][finite]
        assert np.all(rises <= tol), (d, eps[1:][finite][rises > tol])
        # once -inf (delta = 0), -inf from there on
        zero = np.isneginf(logs)
        assert not np.any(zero[:-1] & ~zero[1:]), (d, logs)


def check_mirror(a, b, eps, rel=1e-13, abs=1e-13):
    """a's delta_plus is b's delta_minus and the reverse (in ln delta)."""
    import numpy as np
    for da, db in (("_plus", "_minus"), ("_minus", "_plus")):
        x = np.atleast_1d(getattr(a, f"log_delta{da}")(eps))
        y = np.atleast_1d(getattr(b, f"log_delta{db}")(eps))
        np.testing.assert_array_equal(np.isneginf(x), np.isneginf(y))
        ok = np.isfinite(x)
        np.testing.assert_allclose(x[ok], y[ok], rtol=rel, atol=abs)
