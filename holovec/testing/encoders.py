"""Small working examples of every encoder, for the checks of which models they support."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..models.base import VSAModel


def encoder_examples() -> Iterator[tuple[type, Callable[[VSAModel], Any], Callable[[Any], Any]]]:
    """``(encoder class, make(model), use(encoder) -> vectors)`` for every encoder of
    :mod:`holovec.encoders`: small settings, a batch of inputs."""
    from .. import encoders as E

    values = [0.1, 0.5, 0.9]
    return iter(
        [
            (
                E.FractionalPowerEncoder,
                lambda m: E.FractionalPowerEncoder(m, 0.0, 1.0, seed=1),
                lambda e: e.encode(values),
            ),
            (E.VectorFPE, lambda m: E.VectorFPE(m, 2, 0.0, 1.0, seed=1), lambda e: e.encode([[0.1, 0.2]])),
            (E.PeriodicAngleEncoder, lambda m: E.PeriodicAngleEncoder(m, seed=1), lambda e: e.encode(values)),
            (E.ResidueEncoder, lambda m: E.ResidueEncoder(m, (3, 5), seed=1), lambda e: e.encode([1, 7])),
            (
                E.LevelEncoder,
                lambda m: E.LevelEncoder(m, 0.0, 1.0, levels=5, seed=1),
                lambda e: e.encode(values),
            ),
            (
                E.ThermometerEncoder,
                lambda m: E.ThermometerEncoder(m, 0.0, 1.0, levels=5),
                lambda e: e.encode(values),
            ),
            (E.SymbolTable, lambda m: E.SymbolTable(m, seed=1), lambda e: e.encode(["a", "b"])),
            (
                E.PositionBindingEncoder,
                lambda m: E.PositionBindingEncoder(m, seed=1),
                lambda e: e.encode_batch(["abc", "cab"]),
            ),
            (
                E.NGramEncoder,
                lambda m: E.NGramEncoder(m, 2, seed=1),
                lambda e: e.encode_batch(["abcd", "dcba"]),
            ),
            (
                E.TrajectoryEncoder,
                lambda m: E.TrajectoryEncoder(m, 1, levels=8, seed=1),
                lambda e: e.encode(np.array([0.1, 0.4, 0.8])),
            ),
            (E.RecordEncoder, lambda m: E.RecordEncoder(m, seed=1), lambda e: e.encode({"x": "a", "y": "b"})),
            (
                E.GraphEncoder,
                lambda m: E.GraphEncoder(m, seed=1),
                lambda e: e.encode([("a", "b"), ("b", "c")]),
            ),
            (
                E.ImageEncoder,
                lambda m: E.ImageEncoder(m, (3, 3), levels=4, seed=1),
                lambda e: e.encode(np.arange(18, dtype=np.uint8).reshape(2, 3, 3) * 14),
            ),
            (E.VectorEncoder, lambda m: E.VectorEncoder(m, 3, seed=1), lambda e: e.encode(np.ones((2, 3)))),
            (
                E.SinusoidEncoder,
                lambda m: E.SinusoidEncoder(m, 3, bandwidth=0.5, seed=1),
                lambda e: e.encode(np.ones((2, 3))),
            ),
        ]
    )
