"""Reproductions of published results, apart from the library core.

- ``statpriv.papers.figures``: the figures of Breutigam & Reischuk,
  "Statistical Privacy" (data functions plus PNG plots; matplotlib, an
  optional extra, is imported only when a figure is drawn);
- ``statpriv.papers.partial_knowledge``: Desfontaines, Mohammadi, Krahmer &
  Basin, "Differential Privacy with Partial Knowledge", Figs. 2, 3 and 5
  (``desfontaines_fig2`` .. in ``statpriv figures``; Fig. 6, nested noise,
  is in ``figures``);
- ``statpriv.papers.thresholding``: Desfontaines et al.'s Fig. 4 (Thm 4 vs
  the exact thresholded curve; ``desfontaines_fig4`` in ``statpriv figures``)
  and Thm 4's formulas (``theorem4_bound``, ``theorem4_poisson``,
  ``theorem4_background_bound``); Thm 5's k-anonymity bound
  (``theorem5_bound``) and its gap to the exact bracket (``theorem5_gap_data``);
- ``statpriv.papers.interval_estimation``: Naldi & D'Acquisto, "Differential
  Privacy: An Estimation Theory-Based Method for Choosing Epsilon", Figs. 1-2
  with geometric and Gaussian noise (``naldi_dacquisto_fig1``, ``_fig2``);
- ``statpriv.papers.demo``: the table printed by ``statpriv demo``.

The old names ``statpriv.figures`` and ``statpriv.demo`` are these same
modules (registered by statpriv/__init__.py).  Renamed figure functions and
constants keep their old names as deprecated spellings (one table:
statpriv/papers/_renamed.py).
"""
