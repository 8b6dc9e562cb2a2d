"""Analysis helpers built on the privacy curves (not mechanisms themselves).

- ``statpriv.analysis.utility``: utility loss of noisy counts and the noise
  (or eps) of equal utility (Breutigam & Reischuk, "Statistical Privacy",
  Def. 7, Lemmas 7-9);
- ``statpriv.analysis.interval``: choosing eps by interval estimation
  (Naldi & D'Acquisto);
- ``statpriv.analysis.conjecture``: the checker of Breutigam & Reischuk's
  subsampling conjecture.

The old names ``statpriv.utility``, ``statpriv.interval`` and
``statpriv.conjecture`` are these same modules (registered by statpriv/__init__.py).
"""
