"""Privacy curves of counting (property) queries, noiseless or with added noise.

The released value is the number of records with a property (plus noise).  Records are
independent, record j has the property with probability pi_j, the attacker
targets record 1 and knows everything but the others' values.  With S the
count of the others, delta_plus(eps) = H_eps(S+1 || S) and delta_minus(eps) =
H_eps(S || S+1) (docs/mathematics.md §2; Breutigam & Reischuk Thm 4.2).  Sampling mixes the two
laws (docs/mathematics.md §5; Breutigam & Reischuk Thm 4.1, Smith 2009).
Noise is added to either law (docs/mathematics.md §6, statpriv.noise).

The counting room: ``counting()`` (here) dispatches to iid records
(binomial), per-record probabilities (per_record: the Poisson-binomial by a
product tree), sampling without replacement and Poisson sampling (sampling),
draws with replacement (with_replacement);
``secret_sample`` (secret_sample).  The law-pair machinery they share is
statpriv.laws.
"""
from __future__ import annotations

import math
from typing import Any, Optional, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from statpriv import _validate, oracle
from statpriv.counting.binomial import iid_curve
from statpriv.counting.per_record import per_record_curve
from statpriv.counting.sampling import poisson_curve, subsample_curve
from statpriv.counting.with_replacement import with_replacement_curve
from statpriv.counting.secret_sample import secret_sample
from statpriv.curve import PrivacyCurve
from statpriv.curve.recipe import factory
from statpriv.noise import DPPair, Gaussian, Noise, kinds_text

__all__ = ["counting", "secret_sample"]


@factory
def counting(n: Optional[int], pi: ArrayLike, *, sample_size: Optional[int] = None,
             sample_rate: Optional[float] = None, sampling: str = "without_replacement",
             noise: Optional[Noise] = None, approx: Optional[str] = None,
             sampling_prob: Optional[float] = None) -> PrivacyCurve:
    """Privacy curve of a count over n records, noiseless or with added noise.

    Parameters
    ----------
    n : int >= 1, or None when ``pi`` is an array
        Number of records, the target included.
    pi : float in [0, 1] or array of n-1 floats in [0, 1]
        Probability that a record has the property: one value for iid records
        (the others' count is S ~ Bin(n-1, pi)), or one per other record
        (S is Poisson-binomial; records with pi_j in {0, 1} are known to the
        attacker and dropped, docs/mathematics.md §2).
    sample_size : int in [1, n] (any int >= 1 with replacement), optional
        Count over a uniform sample of m records without replacement
        (Breutigam & Reischuk Thm 4.1).  Rate lambda = m/n; with the counts B_k ~ Bin(k, pi),
        P(j) = lambda B_{m-1}(j-1) + (1-lambda) B_m(j) and
        Q(j) = lambda B_{m-1}(j) + (1-lambda) B_m(j).
        With ``sampling="with_replacement"``: m uniform draws with
        replacement from the n records, a record drawn k times counted k
        times; given the others' count A ~ Bin(n-1, pi) the count is
        Bin(m, (A+1)/n) (P) or Bin(m, A/n) (Q) (docs/mathematics.md §5).
        Costs (n or the window of A) x (m + 1) kernel cells; more than
        statpriv.counting.with_replacement.MAX_CELLS are refused.
    sample_rate : float in (0, 1], optional
        With ``sampling="without_replacement"`` or ``"with_replacement"``:
        m = round(rate * n).  With
        ``sampling="poisson"``: every record kept independently with this
        probability (Smith 2009 Alg. 2): Q = Z, P = rate (Z+1) + (1-rate) Z,
        Z the sampled others' count.
    sampling : "without_replacement", "with_replacement" or "poisson"
    sampling_prob : float in (0, 1], optional
        dp-accounting's name for ``sample_rate`` (give one of the two).
    noise : statpriv.Laplace, statpriv.Gaussian or statpriv.Geometric, optional
        Noise added to the (sampled) count, in count units (docs/mathematics.md §6);
        Gaussian only with ``sampling="with_replacement"``.  The
        curve is then H_eps(P*N || Q*N), computed exactly: closed-form cell
        integrals for Laplace, exact convolution for geometric, normal tail
        sums at the exact sign changes for Gaussian.
    approx : None or "normal"
        "normal" replaces the binomial count by a normal one (Breutigam & Reischuk
        Lemma 6): the curve is the Gaussian DP curve with
        sigma_eff = sqrt((n-1) pi (1-pi) + sigma^2).  An approximation, kept to
        reproduce Breutigam & Reischuk's figures; the curve says ``exact=False``.  iid pi,
        no sampling, noise None or Gaussian only.

    Returns
    -------
    PrivacyCurve
        delta_plus(eps) = H_eps(P||Q) (target has the property),
        delta_minus(eps) = H_eps(Q||P).  Without sampling and iid pi,
        delta_plus(eps) = P[S >= k-1] - e^eps P[S >= k] with
        k = floor(e^eps pi n / (1 - pi + e^eps pi)) + 1 (docs/mathematics.md §3), summed
        from the threshold outward in log space.

    Examples
    --------
    >>> curve = counting(1000, 0.5)
    >>> round(curve.delta(0.01), 12)
    0.020655553064
    >>> print(f"{curve.epsilon(1e-3):.10f}")     # smallest eps with delta(eps) <= 1e-3
    0.1128158312
    >>> print(f"{counting(1000, 0.5, sample_size=100).delta(0.01):.10e}")
    3.9920818948e-03
    """
    _validate.choice("sampling", sampling,
                     ("without_replacement", "with_replacement", "poisson"))
    rate_name, sample_rate = _validate.alias("sample_rate", sample_rate,
                                             "sampling_prob", sampling_prob)
    n, pi, per_record = _validate.records(n, pi)
    probs = pi

    if sample_size is not None and sample_rate is not None:
        raise ValueError("give sample_size or sample_rate, not both")
    if sample_size is not None and sampling == "poisson":
        raise ValueError("sampling='poisson' takes sample_rate, not sample_size")
    if sample_rate is not None:
        sample_rate = _validate.real(rate_name, sample_rate, low=0.0, high=1.0, low_open=True)
        if sampling != "poisson":
            sample_size = round(sample_rate * n)
            if sample_size < 1:
                raise ValueError(f"{rate_name} * n must round to at least 1 record, "
                                 f"got {sample_rate} * {n}")
    if sample_size is not None:
        sample_size = _validate.count("sample_size", sample_size, low=1,
                                      high=None if sampling == "with_replacement" else n)
        sample_rate = None
    if sampling == "with_replacement" and sample_size is None:
        raise ValueError("sampling='with_replacement' takes sample_size (or sample_rate), "
                         "the number of draws")

    if noise is not None and not isinstance(noise, Noise):
        raise ValueError(f"noise must be {kinds_text()}, got {noise!r}")
    _validate.choice("approx", approx, (None, "normal"))
    if approx == "normal":
        return _normal_approximation(n, pi, per_record, sample_size, sample_rate, noise)

    ref_pi = cast(NDArray[np.float64], probs).tolist() if per_record else pi
    noise_ref = None if noise is None else (noise.kind, noise.param)

    def ref(eps: Any, direction: str) -> Any:
        if noise_ref is not None:
            return oracle.noisy_counting_delta(n, ref_pi, eps, noise_ref,
                                               sample_size=sample_size,
                                               sample_rate=sample_rate, sampling=sampling,
                                               direction=direction)
        return oracle.counting_delta(n, ref_pi, eps, sample_size=sample_size,
                                     sample_rate=sample_rate, sampling=sampling,
                                     direction=direction)

    if per_record:
        if sampling == "with_replacement":
            raise ValueError("sampling='with_replacement' needs iid records: pass pi as a "
                             "single probability")
        if sample_size is not None and sample_size < n:
            raise ValueError("sample_size (sampling without replacement) needs iid records: "
                             "pass pi as a single probability, or use sampling='poisson'")
        return per_record_curve(n, probs, 1.0 if sample_rate is None else sample_rate, noise,
                                 ref)
    if sampling == "with_replacement":
        if noise is not None and not isinstance(noise, Gaussian):
            # the Laplace and geometric kernels bound the noisy ratio by the
            # noise's pure-DP loss at sensitivity 1 (Breutigam & Reischuk
            # Lemma 5); a target drawn k times moves the count by k
            raise ValueError(
                f"noise={noise!r} with sampling='with_replacement' is not supported: the "
                "exact Laplace and geometric kernels assume the target moves the count by "
                f"at most 1, drawn with replacement it moves it by up to sample_size = "
                f"{sample_size}; use noise=statpriv.Gaussian(...) or no noise")
        # (sample_size: required with this sampling, checked above)
        return with_replacement_curve(n, pi, cast(int, sample_size), noise, ref)
    if sample_rate is not None:
        return poisson_curve(n, pi, sample_rate, noise, ref)
    if sample_size is not None and sample_size < n:
        return subsample_curve(n, pi, sample_size, noise, ref)
    return iid_curve(n, pi, noise, ref)


def _normal_approximation(n: int, pi: Any, per_record: bool, sample_size: Optional[int],
                          sample_rate: Optional[float], noise: Optional[Noise]) -> PrivacyCurve:
    """Breutigam & Reischuk Lemma 6: S ~ N(mu, (n-1) pi (1-pi)), so the noisy count is a
    Gaussian mechanism with sigma_eff^2 = (n-1) pi (1-pi) + sigma^2."""
    if per_record or sample_size is not None or sample_rate is not None:
        raise ValueError("approx='normal' takes iid pi without sampling (Breutigam & Reischuk Lemma 6)")
    if noise is not None and not isinstance(noise, Gaussian):
        raise ValueError("approx='normal' takes noise=None or statpriv.Gaussian")
    sigma_noise = 0.0 if noise is None else noise.sigma
    variance = (n - 1) * pi * (1.0 - pi) + sigma_noise ** 2
    if variance <= 0.0:
        raise ValueError("approx='normal' needs randomness: 0 < pi < 1 (and n > 1) or noise")
    sigma = math.sqrt(variance)

    def ref(eps: Any, direction: str) -> Any:
        return oracle.normal_approx_delta(n, pi, eps, sigma_noise, direction=direction)

    # the Gaussian mechanism of sigma_eff; its export keeps connect-the-dots from
    # this curve (DPPair native_export=False: not dp-accounting's mechanism)
    effective = Gaussian(sigma)
    return PrivacyCurve(effective.dp_core(), ref,
                        f"counting n={n}, pi={pi}, noise={noise!r}, normal approximation "
                        f"(Breutigam & Reischuk Lemma 6, sigma_eff={sigma:.6g})", exact=False,
                        laws=DPPair(effective, native_export=False))
