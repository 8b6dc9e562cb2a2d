"""Compatibility name for the mpmath oracle, now the subpackage statpriv.oracle.

Every public name of the former single-file oracle is re-exported unchanged
(``counting_pmfs``, ``counting_delta``, ``secret_sample_delta``,
``dp_laplace_delta``, ``noisy_counting_delta``, ``term_budget``, ...); new
code should use ``statpriv.oracle``.  Importing this module imports mpmath.
"""

from statpriv.oracle import _common, binomial, dp, noise, normal_approx, secret_sample
from statpriv.oracle._common import *  # noqa: F401,F403
from statpriv.oracle.binomial import *  # noqa: F401,F403
from statpriv.oracle.dp import *  # noqa: F401,F403
from statpriv.oracle.noise import *  # noqa: F401,F403
from statpriv.oracle.normal_approx import *  # noqa: F401,F403
from statpriv.oracle.secret_sample import *  # noqa: F401,F403

__all__ = [name for module in (_common, binomial, secret_sample, dp, noise, normal_approx)
           for name in module.__all__]
del _common, binomial, dp, noise, normal_approx, secret_sample
