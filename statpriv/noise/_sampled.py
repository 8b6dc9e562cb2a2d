"""Poisson-subsampled worst-case DP mechanisms: statpriv.dp's ``sampling_prob=`` and ``relation=``.

Each record contributes at most the sensitivity s (the norm of its
contribution, dp-accounting's meaning) and is kept with probability q; N is
the noise.  The pair of laws of the release, in units of s (Zhu, Dong &
Wang, "Optimal accounting of differential privacy via characteristic
function"; dp-accounting's AdditiveNoisePrivacyLoss with ``sampling_prob``
and its REMOVE / ADD / REPLACE adjacency types, whose exact delta these are):

* ``relation="add_remove"`` (the target's record in or out):
  A = (1-q) N + q (N + 1) against B = N; delta_plus = H_eps(A || B) (remove)
  and delta_minus = H_eps(B || A) (add).  By the advanced joint convexity of
  Balle, Barthe & Gaboardi ("Privacy amplification by subsampling: tight
  analyses via couplings and divergences") both are the unsampled curve at a
  moved eps, exactly: q H_eps'(N+1 || N), e^eps' = 1 + (e^eps - 1)/q, and
  (1 - (1-q) e^eps) H_eps''(N || N+1), 0 from eps = -ln(1 - q) on -- the
  reduction of csrc/poisson_sampling.h on the kind's closed form (dp.h).
* ``relation="replace_one"`` (the target's record replaced by another):
  A = (1-q) N + q (N + 1) against C = (1-q) N + q (N - 1), symmetric; the
  closed forms of csrc/dp_replace.h (Gaussian, Laplace) or exact discrete
  laws (geometric: the outcomes beyond +-s lumped, each lump of one ratio).

Without sampling (q = 1) add_remove is N against N + 1, the curves of
statpriv.dp as they were; replace_one is N - 1 against N + 1, the add/remove
curve at sensitivity 2 s.  q = 0 releases nothing about the target: delta =
max(0, 1 - e^eps).
"""
from typing import Any

import numpy as np

from statpriv import _lazy, _xprec, oracle
from statpriv.curve import PrivacyCurve
from statpriv.laws import pair_curve
from statpriv.laws.discrete import laws_from_log_pmfs

__all__ = ["RELATIONS", "continuous_pair", "sampled_curve"]

_core = _lazy.module("statpriv._core")
_kernels = _lazy.module("statpriv.noise._kernels")

# The neighbouring relations, dp-accounting's ADD_OR_REMOVE_ONE and REPLACE_ONE.
RELATIONS = ("add_remove", "replace_one")


def sampled_curve(noise: Any, sensitivity: Any, q: Any, relation: Any, description: Any) -> Any:
    """The curve of ``noise`` (at sensitivity 1: the caller divides a
    continuous parameter by s; geometric keeps its integer s) with Poisson
    subsampling at rate 0 <= q < 1 under ``relation`` (see the module): the
    kind's ``_dp_sampled_pair`` gives the evaluator and the laws."""
    reference = _reference(noise, sensitivity, q, relation)
    if q == 0.0:
        # P = Q: delta = (1 - e^eps)_+ (one atom, both laws)
        laws = laws_from_log_pmfs(np.zeros(1), np.zeros(1), 0)
        return pair_curve(laws, reference, description)
    core, laws = noise._dp_sampled_pair(sensitivity, q, relation)
    return PrivacyCurve(core, reference, description, laws=laws)


def continuous_pair(noise: Any, sensitivity: Any, q: Any, relation: Any) -> Any:
    """(core, laws) of a sampled continuous kind (Gaussian, Laplace): the
    reduction of the unsampled closed form (add_remove) or dp_replace.h."""
    from statpriv.noise import SampledDPPair
    if relation == "add_remove":
        import mpmath
        with mpmath.workdps(40):
            l1g_hi, l1g_lo = _xprec.dd(mpmath.log1p(-mpmath.mpf(q)))
        inner = noise.dp_core()
        core = _core.SampledShiftCurveCore(inner, q, l1g_hi, l1g_lo)
        # delta_plus > 0 at every eps where the unsampled curve is (Gaussian);
        # delta_minus is 0 from -ln(1 - q) on
        plus = (inner.positive >> _core.PLUS) & 1
        core.positive = (plus << _core.PLUS) | (plus << _core.MAX)
    else:
        core = _kernels.ReplaceDPCore(noise.kind, noise.param, q)
    return core, SampledDPPair(noise, sensitivity, core=core, sampling_prob=q, relation=relation)


def _reference(noise: Any, sensitivity: Any, q: Any, relation: Any) -> Any:
    """The mpmath brute force of the sampled pair (statpriv.oracle.dp_sampled_delta)."""
    kind, param = noise.kind, noise.param

    def reference(eps: Any, direction: Any) -> Any:
        return oracle.dp_sampled_delta(kind, param, q, eps, relation=relation,
                                       sensitivity=sensitivity, direction=direction)
    return reference
