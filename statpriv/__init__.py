"""statpriv: exact privacy curves delta(eps) when the attacker does not know everything.

Worst-case differential privacy assumes the attacker knows every record but
one.  statpriv computes the exact privacy curves of statistical privacy
(Breutigam & Reischuk), noiseless privacy and DP with partial knowledge,
where the randomness of the other records protects the target.  See
docs/mathematics.md for every formula; statpriv.oracle holds the mpmath oracle.

    >>> import statpriv
    >>> curve = statpriv.counting(10**6, 0.5)
    >>> print(f"delta(0.01) = {curve.delta(0.01):.6e}, epsilon(1e-9) = {curve.epsilon(1e-9):.6f}")
    delta(0.01) = 1.074778e-10, epsilon(1e-9) = 0.009135
"""
from __future__ import annotations

from statpriv import dp, empirical, shuffle
from statpriv.accounting import audit, audit_pld
from statpriv.analysis.conjecture import conjecture_check
from statpriv.counting import counting, secret_sample
from statpriv.curve import PrivacyCurve
from statpriv.curve.values import from_dict
from statpriv._validate import ParameterTypeError
from statpriv.discrete import from_log_pmfs
from statpriv.accounting import (Accountant, basic_composition, bounded_dependency_composition,
                                 calibrate, compose, rdp_to_dp)
from statpriv.thresholding.k_anonymity import k_anonymity
from statpriv.thresholding import thresholded
from statpriv.dp import amplify
from statpriv.analysis.interval import interval_confidence, interval_epsilon, interval_noise, interval_width
from statpriv.noise import Gaussian, Geometric, Laplace
from statpriv.partial_knowledge import histogram_partial_knowledge, partial_knowledge
from statpriv.correlated import correlated_counts, markov
from statpriv.analysis.utility import equal_utility_epsilon, equal_utility_noise, utility_loss

# The earlier module names of moved modules: statpriv.utility is
# statpriv.analysis.utility (the same object: `import statpriv.utility`,
# monkeypatching and pickling all see one module), likewise interval,
# conjecture, statpriv.figures / statpriv.demo for statpriv.papers.*,
# statpriv.pld (statpriv.laws.pld), statpriv.renyi and statpriv.composition
# (statpriv.accounting.*), statpriv.sampling (statpriv.counting.sampling) and
# statpriv.k_anonymity (statpriv.thresholding.k_anonymity).
import sys as _sys
from statpriv.accounting import composition, renyi
from statpriv.analysis import conjecture, interval, utility
from statpriv.counting import sampling
from statpriv.laws import pld
from statpriv.papers import demo, figures
from statpriv.thresholding import k_anonymity as _k_anonymity_module

for _module in (conjecture, interval, utility, demo, figures, pld, renyi, composition, sampling,
                _k_anonymity_module):
    _sys.modules.setdefault(f"statpriv.{_module.__name__.rpartition('.')[2]}", _module)
del _module, _k_anonymity_module

__version__ = "0.1.0"
__all__ = [
    "Accountant",
    "amplify",
    "audit",
    "audit_pld",
    "basic_composition",
    "bounded_dependency_composition",
    "calibrate",
    "compose",
    "conjecture_check",
    "correlated_counts",
    "counting",
    "dp",
    "empirical",
    "equal_utility_epsilon",
    "equal_utility_noise",
    "from_dict",
    "from_log_pmfs",
    "Gaussian",
    "Geometric",
    "get_include",
    "histogram_partial_knowledge",
    "interval_confidence",
    "interval_epsilon",
    "interval_noise",
    "interval_width",
    "k_anonymity",
    "Laplace",
    "markov",
    "ParameterTypeError",
    "partial_knowledge",
    "PrivacyCurve",
    "rdp_to_dp",
    "secret_sample",
    "shuffle",
    "thresholded",
    "utility_loss",
]


def get_include() -> str:
    """The directory of statpriv's C API: statpriv.h, the kernel headers and their C sources.

    For C programs and for Cython projects that ``cimport statpriv._csrc``:
    add it to include_dirs and compile its .c files (docs/c_api.md).

    Returns
    -------
    str
        In an installed package statpriv/include; in a source checkout built
        in place, csrc/.

    Examples
    --------
    >>> import os, statpriv
    >>> os.path.exists(os.path.join(statpriv.get_include(), "statpriv.h"))
    True
    """
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    installed = os.path.join(here, "include")
    if os.path.exists(os.path.join(installed, "statpriv.h")):
        return installed
    return os.path.join(os.path.dirname(here), "csrc")
