"""curve.subsample of laws with exact log ratios (randomized response, from_log_pmfs).

The sampled pair's log ratio is ln(1 - q + q e^L) of the parent's exact L; formed
from rounded logs (or by the reduction's rounded change of eps) it put the sampled
zero point an ulp off: delta 1e-9 relative low and -inf at the float below the
zero point (eps0 = 2^-52, q = 1 - 1e-9), up to 5e-7 relative high (eps0 = 40,
q = 0.99).  The rows are those draws of the differential test.

The truth is the definition summed over the atoms in mpmath (no statpriv code):
with the pair (A, B) = (q P + (1-q) Q, Q) and L = ln P/Q of each atom,
    H_eps(A || B) = sum B (q expm1(L) - expm1(eps))_+,
    H_eps(B || A) = sum B (-expm1(eps) - e^eps q expm1(L))_+,
written with expm1 so that the only cancellation is the distance to the zero
point (at most ~20 digits here: 50 digits are kept beyond it).
"""
import math

import mpmath
import numpy as np
import pytest

import statpriv

DPS = 80          # 50 digits beyond the <= 30 lost next to a zero point


def _rr_atoms(eps0, k):
    """k-ary randomized response as atoms (L, Q) of the pair (P, Q) and of the
    pair (Q, P): the reports a, b and the k - 2 others lumped, P = (e^eps0, 1,
    k - 2) / Z, Q = (1, e^eps0, k - 2) / Z, so L = ln P/Q = (eps0, -eps0, 0)
    (kept as numbers: 1 + 1e-300 is 1 at any working precision here)."""
    with mpmath.workdps(DPS):
        e0 = mpmath.mpf(eps0)
        e = mpmath.exp(e0)
        z = e + (k - 1)
        forward = [(e0, 1 / z), (-e0, e / z), (mpmath.mpf(0), (k - 2) / z)]
        back = [(-e0, e / z), (e0, 1 / z), (mpmath.mpf(0), (k - 2) / z)]
        return forward, back


def _hockey(atoms, q, eps, reverse):
    """H_eps(A || B) (reverse: H_eps(B || A)) of A = q P + (1-q) Q, B = Q, eps >= 0,
    on atoms (ln P/Q, Q)."""
    q, eps = mpmath.mpf(q), mpmath.mpf(eps)
    total = mpmath.mpf(0)
    for log_ratio, b in atoms:
        m = q * mpmath.expm1(log_ratio)                    # A/B - 1
        term = (-mpmath.expm1(eps) - mpmath.exp(eps) * m) if reverse else m - mpmath.expm1(eps)
        total += b * max(term, 0)
    return total


def _truth(pairs, q, sampling, eps, direction):
    """delta of the sampled pair: poisson (add/remove) the pair (q P + (1-q) Q, Q)
    both ways; without_replacement (replace-one) delta_minus from (q Q + (1-q) P, P)."""
    forward, back = pairs
    with mpmath.workdps(DPS):
        if direction == "plus":
            return _hockey(forward, q, eps, False)
        if sampling == "poisson":
            return _hockey(forward, q, eps, True)
        return _hockey(back, q, eps, False)


def _zero_point(pairs, q, sampling, direction):
    """The smallest double with delta = 0: ln max A/B, from the exact ratios."""
    forward, back = pairs
    with mpmath.workdps(DPS):
        q = mpmath.mpf(q)
        if direction == "plus" or sampling == "without_replacement":
            top = max(lr for lr, _ in (forward if direction == "plus" else back))
            z = mpmath.log1p(q * mpmath.expm1(top))
        else:
            z = -mpmath.log1p(q * mpmath.expm1(min(lr for lr, _ in forward)))
        f = float(z)
        return math.nextafter(f, math.inf) if mpmath.mpf(f) < z else f


def _assert_log_close(got, truth, what):
    assert truth > 0, what
    want = float(mpmath.log(truth))
    assert got >= want - 1e-12 * abs(want), f"{what}: under-report {got!r} < {want!r}"
    assert got <= want + 1e-12 * abs(want), f"{what}: {got!r} > {want!r}"


RR_ROWS = [
    # (eps0, k, q, sampling, eps): the differential test's failing draws
    (2.220446049250313e-16, 23, 0.999999999, "without_replacement", 2.2204460470076626e-16),
    (2.220446049250313e-16, 23, 0.999999999, "without_replacement", 2.220446047029645e-16),
    (39.99999999999999, 3, 0.99, "without_replacement", 39.989949660147495),
    (700.0, 10 ** 12, 0.029730845983461547, "poisson", 696.4844298131716),
    (36.4563344046133, 11, 0.23529814475003197, "poisson", 35.009432536718144),
    (2.102509409833659, 2, 0.0020362346849100398, "without_replacement", 0.014527742656938044),
    (1e-300, 557725, 0.999999999, "without_replacement", 9.999999989999999e-301),
    (1e-300, 117, 1e-09, "without_replacement", 9.99999999999997e-310),
    (1e-300, 43, 0.99, "poisson", 9.9e-301),
    (5e-324, 10 ** 12, 0.005476127166907092, "without_replacement", 0.0),
    (5e-324, 10 ** 12, 0.99, "without_replacement", 0.0),
    (5e-324, 9, 0.004514117933919276, "poisson", 0.0),
]


@pytest.mark.parametrize("eps0, k, q, sampling, eps", RR_ROWS)
def test_subsampled_randomized_response_against_the_definition(eps0, k, q, sampling, eps):
    curve = statpriv.dp.randomized_response(eps0, k).subsample(q, sampling=sampling)
    pairs = _rr_atoms(eps0, k)
    for direction in ("plus", "minus"):
        truth = _truth(pairs, q, sampling, eps, direction)
        if truth == 0:               # poisson's minus side ends at -ln(1 - q)
            assert getattr(curve, f"log_delta_{direction}")(eps) == -math.inf
            continue
        _assert_log_close(getattr(curve, f"log_delta_{direction}")(eps), truth,
                          f"{curve!r} {direction} eps={eps!r}")


@pytest.mark.parametrize("eps0, k, q, sampling", [
    (2.220446049250313e-16, 23, 0.999999999, "without_replacement"),   # was -inf below it
    (2.220446049250313e-16, 23, 0.999999999, "poisson"),
    (39.99999999999999, 3, 0.99, "without_replacement"),
    (1e-300, 557725, 0.999999999, "without_replacement"),
    (0.7, 5, 0.3, "poisson"),
])
def test_subsampled_randomized_response_zero_point(eps0, k, q, sampling):
    # epsilon(0) is the smallest double with delta = 0; delta is 0 there and
    # exactly the truth (> 0) at the float below it
    curve = statpriv.dp.randomized_response(eps0, k).subsample(q, sampling=sampling)
    pairs = _rr_atoms(eps0, k)
    for direction in ("plus", "minus"):
        zero = _zero_point(pairs, q, sampling, direction)
        assert curve.epsilon(0.0, direction=direction) == zero
        assert _truth(pairs, q, sampling, zero, direction) == 0
        assert getattr(curve, f"delta_{direction}")(zero) == 0.0
        below = math.nextafter(zero, -math.inf)
        _assert_log_close(getattr(curve, f"log_delta_{direction}")(below),
                          _truth(pairs, q, sampling, below, direction),
                          f"{curve!r} {direction} at the float below the zero point")


def test_subsampled_epsilon_is_not_below_the_truth():
    # the inverse at a delta read from the definition next to the zero point
    eps0, k, q = 2.220446049250313e-16, 23, 0.999999999
    curve = statpriv.dp.randomized_response(eps0, k).subsample(q, sampling="without_replacement")
    pairs = _rr_atoms(eps0, k)
    at = 2.2204460470276467e-16
    target = float(_truth(pairs, q, "without_replacement", at, "plus"))
    found = curve.epsilon(target, direction="plus")
    assert _truth(pairs, q, "without_replacement", found, "plus") <= target * (1 + 1e-12)
    assert found <= math.nextafter(at, math.inf) * (1 + 1e-12)


def test_subsampled_privacy_loss_distribution_keeps_the_exact_zero_point():
    # the PLD export reads the same exact ratios: its largest loss is the
    # sampled zero point, within a long double's rounding
    eps0, k, q = 2.220446049250313e-16, 23, 0.999999999
    curve = statpriv.dp.randomized_response(eps0, k).subsample(q)
    pairs = _rr_atoms(eps0, k)
    zero = _zero_point(pairs, q, "poisson", "plus")
    pld = curve.privacy_loss_distribution()
    assert pld.exact
    assert pld.to_curve().epsilon(0.0) == curve.epsilon(0.0) == zero


def test_subsampled_from_log_pmfs_near_its_zero_point():
    # laws without a closed form: the ratios from the exact inputs (normalised)
    lp = np.log([0.5, 0.3, 0.2])
    lq = np.log([0.2, 0.3, 0.5])
    q = 1 - 1e-9
    curve = statpriv.from_log_pmfs(lp, lq).subsample(q)
    with mpmath.workdps(DPS):
        ep = [mpmath.exp(mpmath.mpf(float(x))) for x in lp]
        eq = [mpmath.exp(mpmath.mpf(float(x))) for x in lq]
        P = [x / mpmath.fsum(ep) for x in ep]
        Q = [x / mpmath.fsum(eq) for x in eq]
        forward = [(mpmath.log(p / b), b) for p, b in zip(P, Q)]
        pairs = (forward, [(mpmath.log(b / p), p) for p, b in zip(P, Q)])
    zero = _zero_point(pairs, q, "poisson", "plus")
    assert curve.epsilon(0.0, direction="plus") == zero
    for eps in (zero * (1 - 1e-9), math.nextafter(zero, -math.inf)):
        _assert_log_close(curve.log_delta_plus(eps), _truth(pairs, q, "poisson", eps, "plus"),
                          f"from_log_pmfs subsampled at {eps!r}")
