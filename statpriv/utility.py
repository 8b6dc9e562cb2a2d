"""Landed name of statpriv.analysis.utility (the same module object)."""
import sys

from statpriv.analysis import utility as _module

sys.modules[__name__] = _module
