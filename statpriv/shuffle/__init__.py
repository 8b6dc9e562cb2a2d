"""Shuffle-model amplification: curves of n shuffled eps0-LDP reports.

    clones(n, eps0)               the clone reduction (Feldman, McMillan & Talwar,
                                  "Hiding among the clones"): a bound for any eps0-LDP
                                  randomizer, summed exactly over the number of clones
    randomized_response(n, eps0)  the exact curve of n shuffled binary randomized-response
                                  reports, worst case over the others' inputs

docs/shuffle.md has the formulas and what is guaranteed.

    >>> from statpriv import shuffle
    >>> curve = shuffle.clones(10**5, 1.0)
    >>> print(f"{curve.epsilon(1e-6):.5f}")
    0.01528
"""
from statpriv.shuffle.clones import clones
from statpriv.shuffle.randomized_response import randomized_response

__all__ = ["clones", "randomized_response"]
