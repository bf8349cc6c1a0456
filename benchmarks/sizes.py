"""How big each benchmarked operation is: the default run, and the small --quick one."""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Sizes:
    dim: int = 10_000  #: elements per vector
    codebook: int = 1_000  #: vectors made by one model.random call
    pairs: int = 1_000  #: pairs bound by one model.bind call
    bundle: int = 1_000  #: vectors superposed by one model.bundle call
    queries: int = 100  #: queries of one similarity_matrix call
    items: int = 10_000  #: items of one similarity_matrix call

    def with_dim(self, dim: int | None) -> Sizes:
        return self if dim is None else replace(self, dim=dim)


DEFAULT = Sizes()
#: a smoke run: every row, on a tenth of the work
QUICK = Sizes(codebook=100, pairs=100, bundle=100, queries=10, items=1_000)
