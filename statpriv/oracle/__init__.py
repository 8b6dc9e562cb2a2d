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
    dp             dp_laplace_delta / dp_gaussian_delta / dp_geometric_delta
    noise          noisy_counting_delta (Laplace, Gaussian, geometric noise),
                   with _mixture (pointwise densities of count + noise) and
                   _quad (quadrature pieces, bracketed roots)
    normal_approx  normal_approx_delta (a labelled approximation)
    discrete       discrete_delta: two laws given as log-pmf arrays (from_log_pmfs)
    empirical      kde_hockey_stick: two kernel density estimates (empirical DP)

A new mechanism's oracle is one module here with an ``__all__``, listed once
in ``_MODULES``.  The public names are resolved lazily (PEP 562), so
``import statpriv`` does not import mpmath: ``statpriv.oracle.counting_delta``
imports the module that defines it on first use.
"""

import importlib

_MODULES = ("_common", "binomial", "secret_sample", "dp", "noise", "normal_approx", "discrete",
            "empirical")


def _modules():
    return [importlib.import_module(f"{__name__}.{name}") for name in _MODULES]


def __getattr__(name):
    if not name.startswith("_"):
        for module in _modules():
            if name in module.__all__:
                value = getattr(module, name)
                globals()[name] = value
                return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | {n for m in _modules() for n in m.__all__})
