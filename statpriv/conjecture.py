"""Landed name of statpriv.analysis.conjecture (the same module object)."""
import sys

from statpriv.analysis import conjecture as _module

sys.modules[__name__] = _module
