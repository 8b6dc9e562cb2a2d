"""Modules imported on first use, to keep ``import statpriv`` cheap.

``module("statpriv.reference")`` returns a stand-in at once; reading any
attribute of it imports the real module (thread-safe: the import system's
module locks) and returns the real attribute; functions, classes and
constants are then kept on the stand-in (a monkeypatch of the real module
made after the first read is not seen through it).  statpriv uses it for the compiled core (``_core``,
which loads scipy.special) and the mpmath oracle; mpmath, scipy.optimize,
matplotlib and tqdm are imported inside the functions that need them.
"""
import importlib
import sys
import types
from typing import Any

__all__ = ["module"]


class _OnFirstUse(types.ModuleType):
    def __getattr__(self, attr: Any) -> Any:          # only for names the stand-in lacks
        if attr.startswith("__") and attr.endswith("__"):
            # introspection (inspect.unwrap's __wrapped__ in doctest and pydoc,
            # copy, pickle) must not import: the import of a package's own
            # submodule (statpriv.thresholding._thresholding) adds it to the
            # package's namespace, which such a caller may be iterating
            raise AttributeError(attr)
        value = getattr(importlib.import_module(self.__name__), attr)
        if callable(value) or isinstance(value, (int, float, str)):
            # functions, classes and constants are kept: the next read is a
            # plain attribute lookup (the real module's are not reassigned)
            self.__dict__[attr] = value
        return value

    def __dir__(self) -> Any:
        return dir(importlib.import_module(self.__name__))


def module(name: Any) -> Any:
    """The module ``name`` if imported already, else a stand-in that imports
    it on first attribute access."""
    if name in sys.modules:
        return sys.modules[name]
    return _OnFirstUse(name, f"stand-in for {name}, imported on first use")
