"""Sequences as bundles of position-marked symbols: positions by permutation or by binding.

Works through the model's public operations (bind, bundle, permute, similarity_matrix
and seeded draws), so it serves every model; bundles of a batch go through
:func:`~holovec.encoders._common.bundle_segments` (sums where the model's bundle is one).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

import numpy as np

from .._params import FINITE, OPTIONAL_POSITIVE_INT, POSITIVE_INT, Rule
from ..models.base import VSAModel
from ..random import Purpose
from ._common import bundle_segments, permute_rows, power_stack, take_rows
from ._rules import Options
from ._values import check_vectors, empty_vectors
from .base import Encoder
from .symbols import (
    SYMBOLS_RULE,
    SymbolCodebook,
    SymbolTable,
    decode_codebook,
    resolve_symbols,
    rows_of_sequence,
)

__all__ = ["PositionBindingEncoder"]


class PositionBindingEncoder(Encoder):
    """A sequence of symbols as the bundle of its position-marked symbol vectors.

    ``method="permute"`` (default) marks position ``i`` by the permutation power
    ``permute(x_i, i)``; ``method="bind"`` binds ``x_i`` with the seeded position vector
    ``p_i`` (row ``i`` of a draw for :attr:`~holovec.random.Purpose.POSITIONS`). Position
    ``i`` is decoded by the inverse (``permute(s, -i)`` or ``unbind(s, p_i)``) and a
    cleanup against the symbols' codebook, all positions in one similarity matrix.

    Parameters
    ----------
    model : VSAModel
        Any holovec model.
    symbols : SymbolTable | SymbolCodebook | Sequence[object], optional
        A :class:`SymbolTable` (open vocabulary), a :class:`SymbolCodebook` or a list of
        labels (a fixed alphabet), or None: a table seeded from ``seed``.
    method : str, optional
        ``"permute"`` or ``"bind"``. Permutations repeat with the model's period
        (``dim`` for dense models; the number of blocks for GHRR and of segments for
        BSDC-SEG), so longer sequences there need ``"bind"``.
    max_length : int, optional
        Longest sequence accepted (None: any), and the default number of positions
        :meth:`decode` reads.
    seed : int, optional
        Seed of the encoder's random vectors; ``None`` draws them from the model's
        generator.

    Notes
    -----
    Capacity: one position is read correctly while the bundle's signal (about
    ``1/sqrt(k)`` for ``k`` items, MAP's majority ``sqrt(2/(pi k))``) stands out of the
    noise of ``N`` candidates (about ``sqrt(2 ln N / dim)``); e.g. MAP, dim 2,000,
    26 symbols: all of 25 positions.

    Examples
    --------
    >>> from holovec import VSA
    >>> from holovec.encoders import PositionBindingEncoder
    >>> model = VSA.create("MAP", dim=2000)
    >>> enc = PositionBindingEncoder(model, symbols="abcdefghij", seed=1)
    >>> s = enc.encode("badge")
    >>> "".join(enc.decode(s, max_positions=5))
    'badge'
    """

    _parameter_rules: ClassVar[dict[str, Rule]] = {
        "symbols": SYMBOLS_RULE,
        "method": Options("permute", "bind"),
        "max_length": OPTIONAL_POSITIVE_INT,
    }

    def __init__(
        self,
        model: VSAModel,
        symbols: SymbolTable | SymbolCodebook | Sequence[Any] | None = None,
        *,
        method: str = "permute",
        max_length: int | None = None,
        seed: int | None = None,
    ) -> None:
        super().__init__(model, seed=seed, symbols=symbols, method=method, max_length=max_length)
        self.method = method
        self.max_length = None if max_length is None else int(max_length)
        self.symbols = resolve_symbols(model, symbols, self.seed)
        self._positions: Any = None

    def position_vectors(self, n: int) -> Any:
        """The first ``n`` position vectors of ``method="bind"``: ``(n, vector_length)``.

        Parameters
        ----------
        n : int
            Number of positions.
        """
        if self._positions is None or self._positions.shape[0] < n:
            self._positions = self.model.draw(max(n, 16), self.seed, Purpose.POSITIONS)
        return self._positions[:n]

    def _check_length(self, length: int) -> None:
        if length == 0:
            raise ValueError("cannot encode an empty sequence")
        if self.max_length is not None and length > self.max_length:
            raise ValueError(f"sequence of length {length} is longer than max_length={self.max_length}")

    def _positioned(self, matrix: Any, rows: np.ndarray, positions: np.ndarray) -> Any:
        """The position-marked vectors of the symbols ``matrix[rows]`` at ``positions``."""
        model = self.model
        longest = int(positions.max()) + 1
        if self.method == "bind":
            p = take_rows(model, self.position_vectors(longest), positions)
            return model.bind(take_rows(model, matrix, rows), p)
        used, local = np.unique(rows, return_inverse=True)
        if len(used) * longest <= len(rows):
            # few distinct symbols: permute their vectors once per position (log2 doublings
            # of the small block) and gather every item from that table in one pass
            powers = power_stack(model, take_rows(model, matrix, used), longest)  # (longest, A, L)
            table = model.xp.reshape(powers, (longest * len(used), powers.shape[-1]))
            return take_rows(model, table, positions * len(used) + local.reshape(-1))
        return permute_rows(model, take_rows(model, matrix, rows), positions)

    def encode(self, sequence: Sequence[Any] | str) -> Any:
        """One sequence (a str is a sequence of characters) -> one vector.

        Parameters
        ----------
        sequence : Sequence[object] | str
            A sequence of labels (a str: its characters).
        """
        rows, matrix = rows_of_sequence(self.symbols, sequence)
        self._check_length(len(rows))
        return self.model.bundle(self._positioned(matrix, rows, np.arange(len(rows))))

    def encode_batch(self, sequences: Iterable[Sequence[Any] | str]) -> Any:
        """Many sequences (any lengths) -> ``(n, vector_length)``, equal to encoding each
        (no sequences -> ``(0, vector_length)``; an empty sequence is a ``ValueError``).

        Parameters
        ----------
        sequences : Iterable[Sequence[object] | str]
            Sequences of labels (a str: its characters).
        """
        parts = [rows_of_sequence(self.symbols, s) for s in sequences]
        if not parts:  # no sequences: no vectors
            return empty_vectors(self.model, (0,))
        lengths = np.array([len(r) for r, _ in parts], dtype=np.int64)
        for length in lengths:
            self._check_length(int(length))
        matrix = parts[-1][1]  # a table's store only grows: its last state holds every row
        rows = np.concatenate([r for r, _ in parts])
        positions = np.arange(len(rows)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        return bundle_segments(self.model, self._positioned(matrix, rows, positions), lengths)

    def decode(
        self,
        vectors: Any,
        max_positions: int | None = None,
        *,
        threshold: float | None = None,
        candidates: Iterable[Any] | SymbolCodebook | None = None,
        return_similarity: bool = False,
    ) -> Any:
        """The symbols at positions ``0 .. max_positions-1`` (default ``max_length``, else 10).

        Each position is the nearest candidate (default: the codebook, or every label
        the table has seen) of the unpermuted / unbound vector. With ``threshold``, the
        result stops before the first position whose best similarity is below it.
        One vector -> a list of labels (or ``(label, similarity)`` pairs with
        ``return_similarity=True``); a batch ``(n, vector_length)`` -> a list of those.

        Parameters
        ----------
        vectors : array
            One encoded sequence, or a batch ``(n, vector_length)``.
        max_positions : int, optional
            Number of positions to read; ``None`` for ``max_length``, else 10.
        threshold : float, optional
            Similarity a position must reach (reading stops at the first below it); ``None``
            reads every position.
        candidates : Iterable[object] | SymbolCodebook, optional
            The labels to clean up among (a list or a :class:`SymbolCodebook`); ``None`` for
            the labels seen.
        return_similarity : bool, optional
            Whether each label comes with its similarity, as ``(label, similarity)``.
        """
        model = self.model
        m = max_positions if max_positions is not None else (self.max_length or 10)
        m = POSITIVE_INT.check("max_positions", m)
        threshold = None if threshold is None else FINITE.check("threshold", threshold)
        vectors = check_vectors(model, vectors, "vectors")
        if vectors.ndim > 2:
            raise ValueError(
                f"vectors must be one vector ({model.vector_length},) or a batch "
                f"(n, {model.vector_length}), got shape {tuple(vectors.shape)}"
            )
        book = decode_codebook(self.symbols, candidates)
        single = vectors.ndim == 1
        batch = vectors[None, :] if single else vectors  # (n, L)
        n, n_labels = batch.shape[0], len(book)
        if n == 0:
            return []
        if self.method == "permute" and n_labels < n:
            # permutations preserve similarity: compare the vectors with the permuted
            # codebook, sim(permute(v, -i), c) == sim(v, permute(c, i)): m * A rows, not m * n
            powers = power_stack(model, book.vectors, m)  # (m, A, L)
            table = model.xp.reshape(powers, (m * n_labels, powers.shape[-1]))
            sims = model.backend.to_numpy(model.similarity_matrix(batch, table)).reshape(n, m, n_labels)
        else:
            if self.method == "permute":
                queries = power_stack(model, batch, m, step=-1)  # (m, n, L)
            else:
                p = self.position_vectors(m)[:, None, :]
                queries = model.unbind(batch[None, ...], p)  # (m, n, L)
            sims = model.backend.to_numpy(book.similarities(queries)).transpose(1, 0, 2)  # (n, m, A)
        best = sims.argmax(axis=-1)
        values = np.take_along_axis(sims, best[..., None], axis=-1)[..., 0]
        out = []
        for row_best, row_values in zip(best.tolist(), values.tolist(), strict=True):
            column = [(book.labels[i], float(v)) for i, v in zip(row_best, row_values, strict=True)]
            if threshold is not None:
                stop = next((i for i, (_, v) in enumerate(column) if v < threshold), m)
                column = column[:stop]
            out.append(column if return_similarity else [label for label, _ in column])
        return out[0] if single else out
