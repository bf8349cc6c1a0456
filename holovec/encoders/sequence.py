"""Sequences: positions by permutation or by bound position vectors, n-grams, trajectories.

The encoders live in a module each; this module keeps their import path
(``from holovec.encoders.sequence import NGramEncoder``):

- :class:`PositionBindingEncoder` (:mod:`holovec.encoders.positions`): a sequence as the
  bundle of its position-marked symbols;
- :class:`NGramEncoder` (:mod:`holovec.encoders.ngrams`): a text as the bundle of its n-grams;
- :class:`TrajectoryEncoder` (:mod:`holovec.encoders.trajectory`): time-stamped points.
"""

from __future__ import annotations

from .ngrams import NGramEncoder
from .positions import PositionBindingEncoder
from .trajectory import TrajectoryEncoder

__all__ = ["NGramEncoder", "PositionBindingEncoder", "TrajectoryEncoder"]
