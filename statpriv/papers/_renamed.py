"""The one table of renamed public names of statpriv.papers, and what keeps the old
spellings working.

The figures of Desfontaines, Mohammadi, Krahmer & Basin, "Differential Privacy with
Partial Knowledge" and the constants behind them once carried numbers that said
nothing about their paper; they are named after it now (``desfontaines_figN``).  Public names are a
contract, so every old spelling still works, with a DeprecationWarning: as a
module attribute (``module_getattr``, PEP 562), as a figure name for
``make_figures(which=...)`` and ``statpriv figures --which`` (``current_name``),
and as a key of ``FIGURES`` and of ``make_figures``' result (``RenamedKeys``).
"""
from typing import Any
from statpriv import _validate

# Deprecated spellings (old -> current name).  These old names are kept only for
# backward compatibility; nothing in statpriv uses them.
RENAMED = {
    "seed004_fig2": "desfontaines_fig2",
    "seed004_fig3": "desfontaines_fig3",
    "seed004_fig4": "desfontaines_fig4",
    "seed004_fig5": "desfontaines_fig5",
    "seed004_fig6": "desfontaines_fig6",
    # (named after the papers' titles for a while; after their first authors now)
    **{f"partial_knowledge_fig{k}": f"desfontaines_fig{k}" for k in range(2, 7)},
    "partial_knowledge_fig2_cases": "desfontaines_fig2_cases",
    "N_SEED": "N_RECORDS",
    "EPS_SEED": "EPS",
    "NUS_SEED": "NOISE_LEVELS",
    "SEED004_P": "NESTED_P",
    "SEED004_N_UNKNOWN": "NESTED_N_UNKNOWN",
    "SEED004_EPS0": "NESTED_EPS0",
    "SEED004_EPS_FIXED": "NESTED_EPS_FIXED",
}


def _warn(old: Any, new: Any, where: Any) -> None:
    _validate.deprecated(f"{where}{old} is deprecated: it is called {new} now")


def current_name(name: Any) -> Any:
    """A figure's current name: ``name`` itself, or the current name of a
    deprecated spelling (with a DeprecationWarning)."""
    new = RENAMED.get(name) if isinstance(name, str) else None
    if new is None:
        return name
    _warn(repr(name), repr(new), "the figure name ")
    return new


def module_getattr(namespace: Any) -> Any:
    """A module-level ``__getattr__`` for the module of ``namespace`` (its
    globals()): a deprecated name of something the module defines returns it,
    with a DeprecationWarning; any other name is an AttributeError as usual."""
    module = namespace["__name__"]

    def __getattr__(name: Any) -> Any:
        new = RENAMED.get(name)
        if new is None or new not in namespace:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        _warn(name, new, f"{module}.")
        return namespace[new]
    return __getattr__


class RenamedKeys(dict):  # type: ignore[type-arg]  # keys: figure names, values: any
    """A dict keyed by current figure names that still finds an entry under a
    deprecated name (with a DeprecationWarning); iteration, ``len`` and ``in``
    see the current names only."""

    def __missing__(self, key: Any) -> Any:
        new = RENAMED.get(key) if isinstance(key, str) else None
        if new is None or not dict.__contains__(self, new):
            raise KeyError(key)
        _warn(repr(key), repr(new), "the figure name ")
        return self[new]
