"""Seeds and draws: where a model's random vectors come from.

A model's seed makes its unseeded draws reproducible (:class:`Seeds`: like one generator,
``random()`` and ``spawn_seed()`` advance one count). A draw is addressed by (seed,
stream, purpose) and made where the backend says it is fastest (``kernels.draw_path``),
every way giving NumPy's numbers (:class:`Draws`):

- on the host: the model's NumPy twin (``VSAModel.host_model``) draws, the backend takes
  the array (zero copy for torch on the CPU);
- compiled: the generator's words and the model's sampler in one program that takes the
  address as data (:class:`~holovec.random.Words`), compiled once per number of rows for
  every seed, and shared by the models that differ only by seed;
- eager: the model's sampler op by op;
- partitioned (Dask): each chunk of rows made where it lives (:class:`RowsOfDraw`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import kernels
from ..random import Words, address_words, check_seed, fold_in, fresh_seed
from ._checks import check_count
from ._memory import draw_block_rows


class Seeds:
    """A model's seed (``None``: fresh randomness) and its count of unseeded draws."""

    def __init__(self, seed: int | None, draws: int = 0) -> None:
        self.seed = None if seed is None else check_seed(seed)
        self.draws = draws

    @property
    def for_ties(self) -> int:
        """Seed of the vector that breaks bundle ties: the model's seed, else 0."""
        return 0 if self.seed is None else self.seed

    def spawn(self) -> int:
        """A seed for a new component (see ``VSAModel.spawn_seed``)."""
        if self.seed is None:
            return fresh_seed()
        self.draws += 1
        return fold_in(self.seed, "spawn", self.draws)

    def address(self, seed: Any) -> tuple[int, int]:
        """``(seed, stream)`` of ``random(seed=seed)``: the given seed's stream 0, else the
        model's next unseeded stream, else fresh randomness."""
        if seed is not None:
            return check_seed(seed), 0
        if self.seed is not None:
            self.draws += 1
            return self.seed, self.draws
        return fresh_seed(), 0


def check_draw(n: Any, seed: Any, stream: Any) -> tuple[int, int]:
    """The arguments of ``VSAModel.draw``, checked: ``(n, seed)``."""
    n = check_count(n, "n")
    seed = check_seed(seed)
    if isinstance(stream, (bool, np.bool_)):
        raise TypeError("stream must be a non-negative int or a sequence of them, got a bool")
    if isinstance(stream, (int, np.integer)) and not 0 <= stream < 2**64:
        raise ValueError(f"stream must be in [0, 2**64), got {stream}")
    return n, seed


class RowsOfDraw:
    """``fn(start, stop)`` of ``kernels.generate_rows``: rows ``start:stop`` of a draw (row
    ``i`` never depends on the number of rows), drawn by ``model`` (the NumPy model of a
    chunk, which pickles by configuration) without the rows before them; a sequence of
    streams (one per row of the whole draw) is sliced alike."""

    def __init__(self, model: Any, seed: Any, stream: Any, purpose: int) -> None:
        self.model, self.seed, self.stream, self.purpose = model, seed, stream, purpose

    def __call__(self, start: int, stop: int) -> Any:
        stream, n = self.stream, stop - start
        if isinstance(stream, (int, np.integer)):
            return self.model.draw(n, self.seed, self.purpose, stream, row_start=start)
        return self.model.draw(n, self.seed, self.purpose, stream[start:stop])


class DrawProgram:
    """``random(n_rows, ...)`` of an address given as 8 words, or its row 0 alone for
    ``one_row``: what the compiled draw compiles."""

    def __init__(self, random: Callable, n_rows: int, one_row: bool = False) -> None:
        self.random, self.n_rows, self.one_row = random, n_rows, one_row

    def __call__(self, words: Any) -> Any:
        seed, stream, purpose = Words(words[0:4]), Words(words[4:6]), Words(words[6:8])
        rows = self.random(self.n_rows, seed, stream, purpose)
        return rows[0] if self.one_row else rows


class Draws:
    """The draws of one model: ``draws(n_rows, seed, stream, purpose, one_row)`` is
    ``random(n_rows, seed, stream, purpose)`` (its row 0 alone, shape ``(vector_length,)``,
    for ``one_row``), made the fastest way (see the module)."""

    def __init__(
        self, model: Any, random: Callable, exact: bool, key: tuple, bytes_per_element: float
    ) -> None:
        self.model, self.random, self.exact, self.key = model, random, exact, key
        self.bytes_per_element = bytes_per_element  # the draw's peak per element (models/_memory.py)

    def __call__(self, n_rows: int, seed: Any, stream: Any, purpose: int, one_row: bool = False) -> Any:
        model = self.model
        backend = model.backend
        rows = kernels.generate_rows(
            backend,
            RowsOfDraw(model.block_model(), seed, stream, purpose),
            n_rows,
            model.vector_length,
            model.dtype,
        )
        if rows is None:  # else a partitioned backend (Dask): each chunk made where it lives
            path = kernels.draw_path(backend, n_rows * model.vector_length, self.exact)
            host = model.host_model() if path == "host" else None
            if host is not None:
                rows = host.draw(n_rows, seed, purpose, stream)
                return backend.from_numpy(rows[0] if one_row else rows)
            if path == "compiled" and n_rows and isinstance(stream, (int, np.integer)):
                return self.compiled(n_rows, seed, int(stream), purpose, one_row)
            rows = self.eager(n_rows, seed, stream, purpose)
        return rows[0] if one_row else rows

    def eager(self, n_rows: int, seed: int, stream: Any, purpose: int) -> Any:
        """The sampler op by op: a draw larger than one block (:func:`draw_block_rows`) is
        made block by block of rows, each written into the output where the backend writes
        rows in place, so that the temporaries of one block, not of the whole draw, are
        held beside the output (row ``i`` never depends on the rows drawn with it).

        Parameters
        ----------
        n_rows : int
            Rows drawn.
        seed : int
            The draw's seed.
        stream : int or sequence of int
            The draw's stream, or one stream per row.
        purpose : int
            The draw's :class:`~holovec.random.Purpose`.
        """
        model = self.model
        backend = model.backend
        block = draw_block_rows(model, self.bytes_per_element)
        if n_rows <= block or not kernels.writes_rows(backend):
            return self.random(n_rows, seed, stream, purpose)
        xp = model.xp
        out = xp.empty((n_rows, model.vector_length), dtype=model.dtype, device=model.device)
        rows_of = RowsOfDraw(model, seed, stream, purpose)
        for start in range(0, n_rows, block):
            out = kernels.write_rows(backend, out, start, rows_of(start, min(start + block, n_rows)))
        return out

    def first_row(self, seed: int, purpose: int) -> Any:
        """Row 0 of stream 0 of ``(seed, purpose)``, for the model's build step (its twin
        is not made yet): the compiled draw where the backend compiles draws (one program
        for every seed, where the sampler op by op compiles one per operation), else the
        sampler itself.

        Parameters
        ----------
        seed : int
            The draw's seed.
        purpose : int
            The draw's :class:`~holovec.random.Purpose`.
        """
        model = self.model
        if kernels.draw_path(model.backend, model.vector_length, self.exact) == "compiled":
            return self.compiled(1, seed, 0, purpose, True)
        return self.random(1, seed, 0, purpose)[0]

    def compiled(self, n_rows: int, seed: int, stream: int, purpose: int, one_row: bool) -> Any:
        """The draw as one compiled program of the address."""
        model = self.model
        # kept by the model, shared by the models that differ only by seed (``self.key``)
        program = model.backend.program(
            DrawProgram(self.random, n_rows, one_row), (self.key, "_random", n_rows, one_row),
            keep=model.kernel_cache,
        )  # fmt: skip
        # the address as a host array: the program's call moves it with its other inputs
        return kernels.finish_before_exit(model.backend, program(address_words(seed, stream, purpose)))
