"""Landed name of statpriv.papers.figures (the same module object)."""
import sys

from statpriv.papers import figures as _module

sys.modules[__name__] = _module
