"""Reproductions of published results, apart from the library core.

- ``statpriv.papers.figures``: the figures of Breutigam & Reischuk,
  "Statistical Privacy" (data functions plus PNG plots; matplotlib, an
  optional extra, is imported only when a figure is drawn);
- ``statpriv.papers.demo``: the table printed by ``statpriv demo``.

The landed names ``statpriv.figures`` and ``statpriv.demo`` are these same
modules (registered by statpriv/__init__.py).
"""
