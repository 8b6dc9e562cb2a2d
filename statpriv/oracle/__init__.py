"""The mpmath oracle of statpriv: slow, independent, obviously correct.

One module per mechanism, each the plainest evaluation from the definitions
(full pmfs over every outcome, the hockey stick
``H_eps(P||Q) = sum_x max(P(x) - e^eps Q(x), 0)`` summed term by term,
mpmath quadrature split at the sign changes); the fast path (the C core) is
where pruning and windows belong.  ``precision="mp"`` on every curve and the
tests use it.

    _common        argument checks, hockey_stick, the term budget (size guard)
    binomial       counting_pmfs / counting_delta / estimate_terms: binomial,
                   Poisson-binomial and hypergeometric pmfs, sampling mixtures
    secret_sample  secret_sample_pmfs / secret_sample_delta
    dp             dp_laplace_delta / dp_gaussian_delta / dp_geometric_delta /
                   dp_randomized_response_delta
    noise          noisy_counting_delta (Laplace, Gaussian, geometric noise),
                   with _mixture (pointwise densities of count + noise) and
                   _quad (quadrature pieces, bracketed roots)
    normal_approx  normal_approx_delta (a labelled approximation)
    discrete       discrete_delta: two laws given as log-pmf arrays (from_log_pmfs)
    composition    composed_delta: products of discrete laws (statpriv.compose)
    shuffle        clones_pmfs / clones_delta: the clone reduction of shuffled
                   eps0-LDP reports (Feldman, McMillan & Talwar)
    thresholding   thresholded_delta (thresholded counts, active / passive
                   background knowledge), k_anonymity_delta (two released counts)
    partial_knowledge  vertex_delta / worst_case_delta / blanket_delta /
                   poisson_binomial_delta: the vertices of [p, 1-p]^N, the blanket
    empirical      kde_hockey_stick: two kernel density estimates (empirical DP)

A new mechanism's oracle is a function in one of these modules, or one new
module here with an ``__all__`` (found by itself: every module of this package
that has an ``__all__`` is searched).  The public names are resolved lazily
(PEP 562), so ``import statpriv`` does not import mpmath:
``statpriv.oracle.counting_delta`` imports the module that defines it on
first use.
"""

import importlib
import pkgutil
from typing import Any


def _modules() -> Any:
    """The oracle modules that export names (an ``__all__``), in name order."""
    found = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "__all__"):
            found.append(module)
    return found


def __getattr__(name: Any) -> Any:
    if not name.startswith("_"):
        for module in _modules():
            if name in module.__all__:
                value = getattr(module, name)
                globals()[name] = value
                return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> Any:
    return sorted(set(globals()) | {n for m in _modules() for n in m.__all__})
