"""Compatibility name for the mpmath oracle, now the subpackage statpriv.oracle.

Every public name of the former single-file oracle is re-exported unchanged
(the same objects); new code should use ``statpriv.oracle``, which also holds
the oracles added since.  Importing this module imports mpmath.
"""
from statpriv import oracle as _oracle

__all__ = ["hockey_stick", "counting_pmfs", "counting_delta", "secret_sample_pmfs",
           "secret_sample_delta", "dp_laplace_delta", "dp_gaussian_delta", "dp_geometric_delta",
           "estimate_terms", "term_budget", "DEFAULT_MAX_TERMS", "noisy_counting_delta",
           "normal_approx_delta"]

globals().update({name: getattr(_oracle, name) for name in __all__})
