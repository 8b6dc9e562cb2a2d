"""Landed name of statpriv.papers.demo (the same module object)."""
import sys

from statpriv.papers import demo as _module

sys.modules[__name__] = _module
