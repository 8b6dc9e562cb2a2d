"""statpriv.noise.Gaussian: counts plus Gaussian noise at the edges: far tails, tiny sigma, epsilon(0).

References are direct mpmath computations from the definition
delta_plus(eps) = int (f_P - e^eps f_Q)_+ with f_A = sum_k A(k) N(k, sigma^2):
for laws with P/Q monotone on the atoms the integrand changes sign once
(the Gaussian kernel is totally positive), at x* found here by mpmath
bisection on the log ratio, and delta_plus = sum_k (P(k) - e^eps Q(k))
P[N(k, sigma^2) > x*] (delta_minus likewise below x*).
"""
import math

import mpmath as mp
import numpy as np
import pytest

import statpriv
from statpriv import _core
from statpriv.counting.binomial import binomial_window_laws
from statpriv.noise import _kernels as noise_kernels
from helpers import oracle
from independent_oracle import binomial_mp, gaussian_log_delta_mp, mixture_mp


# The definition-based references (tests/independent_oracle.py, shared with the
# stored values "sampled_gaussian_log_delta").
_binom, _mixture, _mp_log_delta = binomial_mp, mixture_mp, gaussian_log_delta_mp


def _assert_log_close(ours, truth, what):
    """ln delta within max(1e-10, 8 ulps of |ln delta|); no under-report
    beyond that (ours >= truth - tol)."""
    truth = float(truth)
    tol = max(1e-10, 8 * abs(truth) * 2.0 ** -52)
    assert math.isfinite(ours), what
    assert abs(ours - truth) <= tol, (what, ours, truth, ours - truth)


POISSON = (20, 0.44, 0.86, 4.85)


@pytest.mark.parametrize("eps,plus", [(0.0, True), (0.3, False), (2.0, True), (11.5, True),
                                      (40.0, True)])
def test_poisson_sampling_far_tail(eps, plus):
    n, pi, rate, sigma = POISSON
    curve = statpriv.counting(n, pi, sample_rate=rate, sampling="poisson",
                              noise=statpriv.Gaussian(sigma))
    ours = curve.log_delta_plus(eps) if plus else curve.log_delta_minus(eps)
    truth = oracle("sampled_gaussian_log_delta", "poisson", n, pi, rate, sigma, eps, plus)
    _assert_log_close(ours, truth, (eps, plus))


def test_poisson_sampling_exact_zero_where_ratio_bounded():
    # Q/P <= 1/(1 - rate): delta_minus is exactly 0 from ln(1/(1-rate)) on
    n, pi, rate, sigma = POISSON
    curve = statpriv.counting(n, pi, sample_rate=rate, sampling="poisson",
                              noise=statpriv.Gaussian(sigma))
    assert curve.log_delta_minus(2.0) == -math.inf
    assert curve.log_delta_minus(1.9) > -math.inf


@pytest.mark.parametrize("eps", [0.0, 1.0, 16.2, 100.0, 1e4])
def test_secret_sample_far_tail(eps):
    # m = 1, K = 0: P = lambda d_1 + (1 - lambda) d_0, Q = d_0
    curve = statpriv.secret_sample(11, 1, positives=0, noise=statpriv.Gaussian(3.43))
    lam = mp.mpf(1) / 11
    P, Q = [1 - lam, lam], [mp.mpf(1), mp.mpf(0)]
    _assert_log_close(curve.log_delta_plus(eps), _mp_log_delta(P, Q, 3.43, eps, True), eps)


def test_sample_size_vs_definition():
    n, m, pi, sigma = 60, 12, 0.3, 0.7
    curve = statpriv.counting(n, pi, sample_size=m, noise=statpriv.Gaussian(sigma))
    for eps, plus in [(0.0, True), (0.5, True), (0.2, False)]:
        ours = curve.log_delta_plus(eps) if plus else curve.log_delta_minus(eps)
        truth = oracle("sampled_gaussian_log_delta", "sample_size", n, pi, m, sigma, eps, plus)
        _assert_log_close(ours, truth, (eps, plus))


@pytest.mark.parametrize("sigma", [1e-3, 1e-10, 1e-50, 1e-200, 5e-324])
def test_tiny_sigma_converges_to_noiseless(sigma):
    # Phi(-1/(2 sigma)) is far below 1e-300 here: the noisy curve equals
    # the noiseless one to rounding (exact noiseless kernel as reference)
    for n, eps in [(100, 0.1), (100, 2.0), (10**6, 0.01)]:
        exact = statpriv.counting(n, 0.3)
        noisy = statpriv.counting(n, 0.3, noise=statpriv.Gaussian(sigma))
        for f, g in [(noisy.delta_plus, exact.delta_plus), (noisy.delta_minus, exact.delta_minus)]:
            assert f(eps) == pytest.approx(g(eps), rel=1e-10), (n, eps, sigma)
    curve = statpriv.counting(100, 0.3, noise=statpriv.Gaussian(1e-50))
    assert curve.delta_minus(0.1) == pytest.approx(0.0494073600288838, rel=1e-12)


@pytest.mark.parametrize("curve", [
    statpriv.counting(100, 0.3, noise=statpriv.Gaussian(1.0)),
    statpriv.counting(50, 0.5, noise=statpriv.Gaussian(0.05)),
    statpriv.counting(None, [0.1, 0.5, 0.9], noise=statpriv.Gaussian(2.0)),
    statpriv.counting(10**5, 0.3, sample_rate=0.5, sampling="poisson",
                      noise=statpriv.Gaussian(3.0)),
], ids=["n100", "n50-small-sigma", "per-record", "poisson-1e5"])
def test_delta_positive_at_every_finite_eps(curve):
    # shift structure: P's top atom has Q = 0, so delta_plus > 0 for all eps
    logs = curve.log_delta_plus(np.array([1.0, 1e2, 1e5, 1e10, 1e100, 1e300]))
    assert np.all(logs > -np.inf) and np.all(np.diff(logs) < 0)
    assert curve.epsilon(0.0) == math.inf


def test_windowed_delta_stays_positive():
    # n = 1e6 with Poisson sampling: more atoms than the full-support limit, so
    # the laws are cut to a window and the cut mass is added as a bound
    # (docs/precision.md): far out ln delta is that bound -- finite, never -inf.
    curve = statpriv.counting(10**6, 0.3, sample_rate=0.5, sampling="poisson",
                              noise=statpriv.Gaussian(3.0))
    logs = curve.log_delta_plus(np.array([1.0, 1e2, 1e5, 1e10, 1e100, 1e300]))
    assert np.all(logs > -np.inf) and np.all(np.diff(logs) <= 0) and logs[0] > logs[-1]
    assert curve.epsilon(0.0) == math.inf


def test_grid_path_agrees_with_single_crossing():
    # the general (non-monotone) scan against the one-crossing path
    laws = binomial_window_laws(299, 0.4)
    lp, lq = laws.log_p, laws.log_q
    eps = np.array([0.0, 0.05, 0.4, 2.0])
    for sigma in (0.05, 1.0):
        solved = noise_kernels.GaussCurveCore(lp, lq, sigma, True)
        scanned = noise_kernels.GaussCurveCore(lp, lq, sigma, False)
        for direction in (_core.PLUS, _core.MINUS):
            a, b = solved.log_delta(eps, direction), scanned.log_delta(eps, direction)
            assert np.allclose(a, b, rtol=1e-11, atol=1e-11), (sigma, direction, a - b)


def _assert_rel_close(ours_log, truth_log, what, rel=1e-10):
    """delta within rel relative of the definition, and not below it."""
    truth_log = float(truth_log)
    assert math.isfinite(ours_log), (what, ours_log, truth_log)
    diff = ours_log - truth_log
    assert abs(math.expm1(diff)) <= rel, (what, ours_log, truth_log, diff)
    assert diff >= -max(1e-13, 8 * abs(truth_log) * 2.0 ** -52), (what, "under-report", diff)


@pytest.mark.parametrize("eps,plus", [(0.0, False), (0.0, True), (2e-9, False), (5e-9, True)])
def test_tiny_sampling_rate_keeps_relative_accuracy(eps, plus):
    # m/n = 4.5e-9: P(k) and Q(k) agree to 1e-9, every D_k = P(k) - e^eps Q(k)
    # must come from the closed-form log ratio, not from lp - lq
    n, pi, m, sigma = 661493835, 0.4044, 3, 8.83
    curve = statpriv.counting(n, pi, sample_size=m, noise=statpriv.Gaussian(sigma))
    with mp.workdps(60):        # P and Q agree to 1e-9: the laws need the digits too
        P, Q = _mixture(_binom(m - 1, pi), _binom(m, pi), mp.mpf(m) / n)
    ours = curve.log_delta_plus(eps) if plus else curve.log_delta_minus(eps)
    _assert_rel_close(ours, _mp_log_delta(P, Q, sigma, eps, plus), (eps, plus))


# pi = 1.8e-30, n = 4, m = 3: ln max Q/P = ln 4 - 1.4e-30 (delta_minus) and
# ln max P/Q = ln((3 + pi)/pi) (delta_plus): both zero points are resolved
# only in double-double; the float just below each has delta ~1e-17 (minus)
# and ~1e-74 (plus), the crossing pinned by a 1e-14 difference of log ratios
ZP = (4, 1.845495468481528e-30, 3, 0.06650848890157923)


def _zp_laws():
    n, pi, m, _ = ZP
    with mp.workdps(60):
        return _mixture(_binom(m - 1, pi), _binom(m, pi), mp.mpf(m) / n)


@pytest.mark.parametrize("eps,plus", [(1.3862943611198906, False), (1.3862943609812612, False),
                                      (69.56341729044671, True), (69.56341729043976, True),
                                      (30.0, True)])
def test_zero_point_of_bounded_ratio_law(eps, plus):
    n, pi, m, sigma = ZP
    curve = statpriv.counting(n, pi, sample_size=m, noise=statpriv.Gaussian(sigma))
    P, Q = _zp_laws()
    ours = curve.log_delta_plus(eps) if plus else curve.log_delta_minus(eps)
    _assert_rel_close(ours, _mp_log_delta(P, Q, sigma, eps, plus), (eps, plus))


def test_epsilon_zero_is_the_float_at_or_above_the_zero_point():
    n, pi, m, sigma = ZP
    curve = statpriv.counting(n, pi, sample_size=m, noise=statpriv.Gaussian(sigma))
    with mp.workdps(60):
        P, Q = _zp_laws()     # the zero points: ln max Q/P and ln max P/Q from the laws
        zero_minus = mp.log(max(q / pp for pp, q in zip(P, Q) if pp > 0))
        zero_plus = mp.log(max(pp / q for pp, q in zip(P, Q) if q > 0))
    for direction, z in (("minus", zero_minus), ("plus", zero_plus)):
        got = curve.epsilon(0.0, direction=direction)
        assert mp.mpf(got) >= z and mp.mpf(math.nextafter(got, 0.0)) < z, (direction, got, z)
        log_delta = curve.log_delta_minus if direction == "minus" else curve.log_delta_plus
        assert log_delta(got) == -math.inf
        assert log_delta(math.nextafter(got, 0.0)) > -math.inf


@pytest.mark.parametrize("eps", [1e-6, 1.5913884505569332e-06, 1.6074630813706397e-06])
def test_secret_sample_near_zero_point_deep_tail(eps):
    # lambda = 1.6e-7, ln P/Q of neighbouring atoms differ by 1.1e-8: the
    # crossing sits where the noisy densities' log ratio is eps to 1e-22,
    # so it must come from the atoms' log-ratio differences, not from two
    # rounded log densities.  Reference: the independent oracle (mpmath from
    # the definition, hypergeometric laws, normal tail sums at the crossing).
    # (stored: independent_oracle.independent_deltas)
    n, m, K, sigma = 1000000000, 160, 900464197, 0.9904086155487369
    curve = statpriv.secret_sample(n, m, positives=K, noise=statpriv.Gaussian(sigma))
    truth = mp.log(_independent_secret_noisy(n, m, K, sigma, eps, "minus"))
    ours = curve.log_delta_minus(eps)
    if truth > -700:
        _assert_rel_close(ours, truth, eps)
    else:
        _assert_log_close(ours, truth, eps)
        assert ours >= float(truth) - max(1e-10, 8 * abs(float(truth)) * 2.0 ** -52)


def _independent_secret_noisy(n, m, K, sigma, eps, direction):
    """delta (plus or minus) at eps of tests/independent_oracle.py's
    noisy(secret_sample(n, m, K), Gaussian(sigma)), from the stored oracle values."""
    spec = ("noisy", (("secret_sample", (n, m, K), {}), ("gaussian", sigma)), {})
    plus, minus = oracle("independent_deltas", spec, [eps])
    return plus if direction == "plus" else minus


def _assert_no_under(ours, truth, what):
    truth = float(truth)
    assert ours >= truth - max(1e-10, 8 * abs(truth) * 2.0 ** -52), (what, ours, truth)


def test_far_tail_sum_terms_added_at_full_precision():
    # At the crossing (x* ~ 9491, 130 sd beyond the atoms) the normal tail
    # terms of the positive and negative D_k agree to 1e-4 relative, so each
    # log term must reach the sum with ~1e-16 absolute accuracy: a running
    # log-sum referenced to its first (smallest) term and an exponent of
    # 107 nats in double lost 1.3e-14 there (ln delta 1.3e-10 too high).
    n, pi, m, sigma = 144, 9.010036864638744e-26, 16, 73.33154879983003
    eps = 0.4304257268651199
    curve = statpriv.counting(n, pi, sample_size=m, noise=statpriv.Gaussian(sigma))
    truth = oracle("sampled_gaussian_log_delta", "sample_size", n, pi, m, sigma, eps, True)
    ours = curve.log_delta_plus(eps)
    _assert_log_close(ours, truth, eps)
    _assert_no_under(ours, truth, eps)


@pytest.mark.parametrize("m,K,sigma,eps,direction", [
    (237, 809565530, 225.91695874555685, 1.120071028781945e-06, "minus"),
    (256, 404843045, 1000.0, 6.323440243556601e-07, "plus"),
])
def test_secret_sample_far_tail_needs_extended_laws(m, K, sigma, eps, direction):
    # eps just below the zero point: the crossing lies 1e5..4e7 beyond the
    # atoms (ln delta -3.8e5 and -7.4e8) and the tail sums of the positive
    # and negative atoms cancel to 3e-8 relative, so delta moves with the
    # atoms' relative sizes at 1e-16: hypergeometric log pmfs rounded to
    # double (ulps of |ln H(j)| ~ 1e-13) put ln delta 3e-6 low.  Reference:
    # the independent oracle (mpmath from the definition).
    # (stored: independent_oracle.independent_deltas)
    n = 1000000000
    curve = statpriv.secret_sample(n, m, positives=K, noise=statpriv.Gaussian(sigma))
    truth = mp.log(_independent_secret_noisy(n, m, K, sigma, eps, direction))
    ours = curve.log_delta_plus(eps) if direction == "plus" else curve.log_delta_minus(eps)
    _assert_log_close(ours, truth, eps)
    _assert_no_under(ours, truth, eps)


def test_poisson_sampling_rate_times_pi_below_double_range():
    # rate * pi = 2.5e-324 rounds to 0 in double: Z ~ Bin(299, 2.5e-324)
    # exactly; at eps = 1e4 every ratio but the top atom's (P(300) > 0 =
    # Q(300), P(300) = rate rho^299 ~ e^-2.2e5) is below e^eps, so delta is
    # that atom's tail alone -- a bound on the mass outside a window around
    # Z = 0 overstated ln delta by 2.2e5.
    n, pi, rate, sigma, eps = 300, 5e-324, 0.5, 127.07097593799567, 1e4
    curve = statpriv.counting(n, pi, sample_rate=rate, sampling="poisson",
                              noise=statpriv.Gaussian(sigma))
    truth = oracle("sampled_gaussian_log_delta", "poisson", n, pi, rate, sigma, eps, True)
    ours = curve.log_delta_plus(eps)
    _assert_log_close(ours, truth, eps)
    _assert_no_under(ours, truth, eps)


# n = 9e11, m = 104: P/Q = 1 + O(1e-8) and eps a fraction of the zero point
# 1.1545e-10 (of delta_minus; of delta_plus for pi -> 1 - pi).  The crossing
# lies 470..48000 sd beyond the atoms, where the normal tails of neighbouring
# atoms differ by only ~1/(sigma t) relative: the positive and negative tail
# sums cancel to 1e-5..1e-9, and the double rounding of ln|D_k| (~ln|u|, -25,
# half an ulp = 1.8e-15), of (x - k)/sigma and of the exps, so amplified, put
# ln delta up to 3.3 tolerances off (2.3e-10 above the truth at sigma = 204.5,
# below it at sigma >= 2000).  The sums are redone in long double there.
_PI_SMALL = 0.00011167363987083057


@pytest.mark.parametrize("pi,sigma,eps,plus", [
    (_PI_SMALL, 204.51804593513333, 1.0390780380478605e-10, False),
    (_PI_SMALL, 2000.0, 5.7726557669575e-11, False),
    (_PI_SMALL, 20000.0, 5.7726557669575e-11, False),
    (1.0 - _PI_SMALL, 204.51804593513333, 1.03907803805235e-10, True),
    (1.0 - _PI_SMALL, 2000.0, 5.7726557669575e-11, True),
])
def test_far_tail_sums_cancelling_to_1e5_and_beyond(pi, sigma, eps, plus):
    n, m = 900899166355, 104
    curve = statpriv.counting(n, pi, sample_size=m, noise=statpriv.Gaussian(sigma))
    truth = oracle("sampled_gaussian_log_delta", "sample_size", n, pi, m, sigma, eps, plus)
    ours = curve.log_delta_plus(eps) if plus else curve.log_delta_minus(eps)
    _assert_log_close(ours, truth, eps)
    _assert_no_under(ours, truth, eps)


def _numpy_gauss_ratios(lp, lq, lr, lr_lo):
    """The numpy expressions GaussCurveCore used before its one-pass helper."""
    live = np.isfinite(lp) | np.isfinite(lq)
    with np.errstate(invalid="ignore"):
        generic = lp - lq
    if lr is None:
        lr, lo = generic, np.zeros(lp.shape[0], dtype=np.longdouble)
    else:
        lo = np.zeros(lp.shape[0], dtype=np.longdouble) if lr_lo is None else lr_lo
        lr = np.where(np.isfinite(lr) & np.isfinite(generic), lr, generic)
        lo = np.where(np.isfinite(lr), lo, 0.0)
    full = (lr + lo)[live]
    i_max, i_min = int(np.argmax(full)), int(np.argmin(full))
    ext = np.array([lr[live][i_max], lr[live][i_min], lo[live][i_max], lo[live][i_min],
                    np.max(lp), np.max(lq)], dtype=np.longdouble)
    return (lr, lo, ext, int(live.sum()), int(np.count_nonzero(lp > lp.max() - 60)),
            noise_kernels._positive_mask(lp, lq))


def _same_bits(a, b):
    a, b = np.asarray(a, dtype=np.longdouble), np.asarray(b, dtype=np.longdouble)
    return (a.shape == b.shape and np.array_equal(np.isnan(a), np.isnan(b))
            and np.array_equal(a[~np.isnan(a)], b[~np.isnan(b)])
            and np.array_equal(np.signbit(a), np.signbit(b)))


@pytest.mark.parametrize("make", [
    lambda noise: statpriv.counting(3000, 0.3, noise=noise),
    lambda noise: statpriv.counting(500, 0.2, sample_size=200, noise=noise),
    lambda noise: statpriv.counting(400, 0.3, sample_rate=0.5, sampling="poisson", noise=noise),
    lambda noise: statpriv.counting(None, [0.1, 0.5, 0.9, 0.3, 0.7], noise=noise),
    lambda noise: statpriv.secret_sample(60, 20, 25, noise=noise),
])
def test_core_preparation_matches_the_numpy_expressions(make, monkeypatch):
    """GaussCurveCore's one-pass ratios (_gauss_ratios) and its tail sums
    (_gauss_tail_sums: two running sums for a pure shift, whose P sums are
    Q's one atom on) give the values of the numpy expressions and of four
    separate running sums, bit for bit, with and without the laws' accurate
    log ratio, on the laws the counting room hands to Gaussian noise."""
    from statpriv.noise import gaussian
    given = []
    core = gaussian.Gaussian._core
    monkeypatch.setattr(gaussian.Gaussian, "_core",
                        lambda self, laws: given.append(laws) or core(self, laws))
    make(statpriv.Gaussian(2.0))
    laws = given[0]
    lp, lq = _core._extended(laws.log_p), _core._extended(laws.log_q)
    variants = [(None, None)]
    if laws.log_ratio is not None:
        lo = None if laws.log_ratio_lo is None else _core._extended(laws.log_ratio_lo)
        variants.append((_core._extended(laws.log_ratio), lo))
    for lr, lr_lo in variants:
        ours = noise_kernels._gauss_ratios(lp, lq, lr, None if lr is None else (
            lr_lo if lr_lo is not None else np.zeros(lp.shape[0], dtype=np.longdouble)))
        want = _numpy_gauss_ratios(lp, lq, lr, lr_lo)
        for got, ref in zip(ours[:3], want[:3]):
            assert _same_bits(got, ref)
        assert ours[3:] == want[3:]
    sums = noise_kernels._gauss_tail_sums(lp, lq)
    want = [_core._log_cumsum(lp, reverse=True), _core._log_cumsum(lp),
            _core._log_cumsum(lq, reverse=True), _core._log_cumsum(lq)]
    assert all(_same_bits(a, b) for a, b in zip(sums, want))
