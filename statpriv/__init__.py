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
from statpriv import dp, shuffle
from statpriv.analysis.conjecture import conjecture_check
from statpriv.counting import counting, secret_sample
from statpriv.curve import PrivacyCurve
from statpriv._validate import ParameterTypeError
from statpriv.discrete import from_log_pmfs
from statpriv.dp import amplify
from statpriv.analysis.interval import interval_confidence, interval_epsilon, interval_noise, interval_width
from statpriv.noise import Gaussian, Geometric, Laplace
from statpriv.partial_knowledge import histogram_partial_knowledge, partial_knowledge
from statpriv.analysis.utility import equal_utility_epsilon, equal_utility_noise, utility_loss

# The landed module names of the moved modules: statpriv.utility is
# statpriv.analysis.utility (the same object: `import statpriv.utility`,
# monkeypatching and pickling all see one module), likewise interval,
# conjecture, and statpriv.figures / statpriv.demo for statpriv.papers.*.
import sys as _sys
from statpriv.analysis import conjecture, interval, utility
from statpriv.papers import demo, figures

for _module in (conjecture, interval, utility, demo, figures):
    _sys.modules.setdefault(f"statpriv.{_module.__name__.rpartition('.')[2]}", _module)
del _module

__version__ = "0.1.0"
__all__ = ["Gaussian", "Geometric", "Laplace", "ParameterTypeError", "PrivacyCurve", "amplify", "conjecture_check",
           "counting", "dp",
           "equal_utility_epsilon", "equal_utility_noise", "from_log_pmfs", "interval_confidence",
           "interval_epsilon", "interval_noise", "interval_width", "histogram_partial_knowledge",
           "partial_knowledge", "secret_sample",
           "utility_loss"]
