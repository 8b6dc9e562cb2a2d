"""Landed name of statpriv.analysis.interval (the same module object)."""
import sys

from statpriv.analysis import interval as _module

sys.modules[__name__] = _module
