"""The laws room: a pair of laws (P, Q) as one value, and what it gives.

- pair: ``Laws`` (log pmfs, accurate log ratio with low parts, exact tail
  ratio, bounded rest of a window), ``LogPmfs``, the capability base
  ``LawSource`` and ``LazyLaws``, and ``pair_curve`` (laws [+ noise] ->
  PrivacyCurve);
- windows: the atoms where the mass matters, the rest bounded (one policy);
- mixture: shifts and sampling mixtures of count laws;
- refine: log ratios refined beyond extended precision where delta needs them;
- discrete: the laws of ``from_log_pmfs`` (normalised, sorted by ratio);
- pld: the privacy-loss distribution of laws; renyi: Renyi divergences from it.

Every module here sits between the curve (statpriv.curve) and the noise
kinds and mechanisms that build laws (tools/check_layers.py).
"""
from statpriv.laws.pair import LawSource, Laws, LazyLaws, LogPmfs, pair_core, pair_curve

__all__ = ["LawSource", "Laws", "LazyLaws", "LogPmfs", "pair_core", "pair_curve"]
