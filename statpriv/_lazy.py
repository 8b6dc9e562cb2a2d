"""Modules imported on first use, to keep ``import statpriv`` cheap.

``module("statpriv.reference")`` returns the module object at once and runs
its code (and its imports: mpmath) the first time an attribute is read
(importlib.util.LazyLoader).  Heavy third-party modules (mpmath, scipy.optimize,
matplotlib, tqdm) are imported inside the functions that need them instead.
"""
import importlib
import importlib.util
import sys

__all__ = ["module"]


def module(name):
    """The module ``name``, loaded on first attribute access."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None:
        raise ImportError(f"no module named {name!r}")
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    loader.exec_module(mod)
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(importlib.import_module(parent), child, mod)
    return mod
