"""How big each benchmarked operation is (the default run, and the small --quick one), and
the settings every section runs with."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, TextIO

from .timing import Timing, measure, no_wait


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


@dataclass(frozen=True)
class Settings:
    """What ``python -m benchmarks`` was asked for; every section reads its run from here."""

    sizes: Sizes
    repeat: int = 5  #: at most this many timed samples per cell
    budget_s: float = 1.0  #: stop sampling a cell after this long (once 2 samples are in)
    torchhd: bool = True  #: time torchhd too, where it imports
    quick: bool = False  #: the smoke sizes of every section
    dim_given: bool = False  #: --dim was given (sections with their own dimensions then use it)
    backends: Sequence[str] | None = None  #: --backend; None: each section's own default
    models: Sequence[Any] | None = None  #: the ModelEntry's of --models; None: each section's own
    progress: TextIO | None = None  #: progress lines go here (None: --quiet)

    @property
    def dim(self) -> int:
        return self.sizes.dim

    def measure(self, fn: Callable[[], Any], wait: Callable[[Any], Any] = no_wait) -> Timing:
        """``fn``'s time per call, as every section times (``timing.measure``)."""
        return measure(fn, wait, repeat=self.repeat, budget_s=self.budget_s)

    def picked(self, names: Sequence[str]) -> list[str]:
        """The models of ``names`` that --models asked for (all of them without --models)."""
        wanted = None if self.models is None else {e.key for e in self.models}
        return [n for n in names if wanted is None or n in wanted]

    def say(self, text: str) -> None:
        if self.progress is not None:
            print(text, file=self.progress, flush=True)
