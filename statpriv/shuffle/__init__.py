"""Shuffle-model curves: n users' locally randomized reports, shuffled."""
from statpriv.shuffle.randomized_response import randomized_response

__all__ = ["randomized_response"]
