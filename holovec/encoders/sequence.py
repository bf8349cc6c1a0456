"""Sequences: positions by permutation or by bound position vectors, n-grams, trajectories.

Every encoder here works through the model's public operations (bind, bundle,
permute, similarity_matrix and seeded draws), so it serves every model; where a
model's bundle is a sum (MAP, FHRR, HRR, VTB, GHRR, MAP-C, MAP-I, BSC) the work is
arranged as sums and matrix products (see :mod:`holovec.encoders._common`), with the
same results as the plain bundle (bit for bit for the discrete models, to float rounding
otherwise).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

import numpy as np

from .._validation import check_bool, check_int, check_number
from ..models.base import VSAModel
from ..random import Purpose, fold_in
from ._common import (
    Sums,
    block_rows,
    bundle_segments,
    level_step,
    permute_rows,
    power_stack,
    quantize,
    take_rows,
)
from ._values import check_values, check_vectors, empty_vectors
from .base import Encoder
from .fpe import FractionalPowerEncoder
from .levels import LevelCodes
from .symbols import SymbolCodebook, SymbolTable, decode_codebook, resolve_symbols, rows_of_sequence

__all__ = ["NGramEncoder", "PositionBindingEncoder", "TrajectoryEncoder"]


class PositionBindingEncoder(Encoder):
    """A sequence of symbols as the bundle of its position-marked symbol vectors.

    ``method="permute"`` (default) marks position ``i`` by the permutation power
    ``permute(x_i, i)``; ``method="bind"`` binds ``x_i`` with the seeded position vector
    ``p_i`` (row ``i`` of a draw for :attr:`~holovec.random.Purpose.POSITIONS`). Position
    ``i`` is decoded by the inverse (``permute(s, -i)`` or ``unbind(s, p_i)``) and a
    cleanup against the symbols' codebook, all positions in one similarity matrix.

    Parameters
    ----------
    model:
        Any holovec model.
    symbols:
        A :class:`SymbolTable` (open vocabulary), a :class:`SymbolCodebook` or a list of
        labels (a fixed alphabet), or None: a table seeded from ``seed``.
    method:
        ``"permute"`` or ``"bind"``. Permutations repeat with the model's period
        (``dim`` for dense models; the number of blocks for GHRR and of segments for
        BSDC-SEG), so longer sequences there need ``"bind"``.
    max_length:
        Longest sequence accepted (None: any), and the default number of positions
        :meth:`decode` reads.

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

    def __init__(
        self,
        model: VSAModel,
        symbols: SymbolTable | SymbolCodebook | Sequence[Any] | None = None,
        *,
        method: str = "permute",
        max_length: int | None = None,
        seed: int | None = None,
    ) -> None:
        super().__init__(model, seed=seed)
        if method not in ("permute", "bind"):
            raise ValueError(f"method must be 'permute' or 'bind', got {method!r}")
        self.method = method
        self.max_length = None if max_length is None else check_int(max_length, "max_length", 1)
        self.symbols = resolve_symbols(model, symbols, self.seed)
        self._positions: Any = None

    def position_vectors(self, n: int) -> Any:
        """The first ``n`` position vectors of ``method="bind"``: ``(n, vector_length)``."""
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
        """One sequence (a str is a sequence of characters) -> one vector."""
        rows, matrix = rows_of_sequence(self.symbols, sequence)
        self._check_length(len(rows))
        return self.model.bundle(self._positioned(matrix, rows, np.arange(len(rows))))

    def encode_batch(self, sequences: Iterable[Sequence[Any] | str]) -> Any:
        """Many sequences (any lengths) -> ``(n, vector_length)``, equal to encoding each
        (no sequences -> ``(0, vector_length)``; an empty sequence is a ``ValueError``)."""
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
        """
        model = self.model
        m = max_positions if max_positions is not None else (self.max_length or 10)
        m = check_int(m, "max_positions", 1)
        threshold = None if threshold is None else check_number(threshold, "threshold")
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


class NGramEncoder(Encoder):
    """A text (or any sequence of symbols) as the bundle of its n-grams.

    Each n-gram ``(s_1, ..., s_n)`` is the binding of its permuted symbols,
    ``permute(s_1, n-1) * permute(s_2, n-2) * ... * s_n`` (bound left to right), so
    ``abc`` and ``cba`` differ; a text is the bundle of all its n-grams (``stride``
    apart), so texts that share n-grams are similar.

    ``mode="bundling"`` (default, HoloVec's name) is that bag of n-grams;
    ``mode="chaining"`` also marks the ``k``-th n-gram by ``permute(., k)``.

    How it is computed (bundling). The text becomes symbol indices (a str by its code
    points, with ``numpy.unique``), its n-grams a ``(m, n)`` index array and its
    distinct n-grams with their counts. For models whose bundle is a sum and whose bind
    is elementwise (MAP, MAP-C, MAP-I, FHRR, BSC), the text's sum factors through the
    distinct ``(n-1)``-prefixes ``P``: ``M = N @ C`` (``N`` the ``(P, A)`` counts of
    each prefix's last symbol, ``C`` the ``A`` symbol vectors: one matrix product),
    then ``sum_p Q_p * M_p`` with ``Q_p`` the bound, permuted prefix: ``O(P A D)`` in
    BLAS plus ``O(P n D)`` elementwise, instead of ``O(m n D)`` for the m n-grams
    (10 kB of text at D = 10,000: about 20 ms on NumPy on 2 cores, against about 170 ms for
    the direct block computation). Batches, and the other sum models, bundle the
    distinct n-grams of all texts with a count matrix: ``counts (texts, U) @ grams (U, D)``.
    Models whose bundle is not a sum (BSDC, BSDC-SEG) bundle all n-grams of a text in
    one call.

    Examples
    --------
    >>> from holovec import VSA
    >>> from holovec.encoders import NGramEncoder
    >>> model = VSA.create("MAP", dim=10000)
    >>> enc = NGramEncoder(model, n=3, seed=1)
    >>> a, b, c = enc.encode("the cat sat"), enc.encode("the cat sat!"), enc.encode("tas tac eht")
    >>> float(model.similarity(a, b)) > 0.6, abs(float(model.similarity(a, c))) < 0.1
    (True, True)
    """

    def __init__(
        self,
        model: VSAModel,
        n: int = 3,
        symbols: SymbolTable | SymbolCodebook | Sequence[Any] | None = None,
        *,
        stride: int = 1,
        mode: str = "bundling",
        seed: int | None = None,
    ) -> None:
        super().__init__(model, seed=seed)
        self.n = check_int(n, "n", 1)
        self.stride = check_int(stride, "stride", 1)
        if mode not in ("bundling", "chaining"):
            raise ValueError(f"mode must be 'bundling' or 'chaining', got {mode!r}")
        self.mode = mode
        self.symbols = resolve_symbols(model, symbols, self.seed)
        self._sums = Sums.of(model)

    @staticmethod
    def _distinct(rows: np.ndarray, base: int, **kwargs: Any) -> Any:
        """``numpy.unique(rows, axis=0, ...)`` for small non-negative ints, through one
        int64 key per row where ``base ** width`` fits (a 1-d sort, several times faster)."""
        width = rows.shape[1]
        if width == 0 or base**width >= 2**62:
            return np.unique(rows, axis=0, **kwargs)
        powers = base ** np.arange(width - 1, -1, -1, dtype=np.int64)
        keys = rows.astype(np.int64) @ powers
        out = np.unique(keys, **kwargs)
        keys, rest = (out[0], out[1:]) if isinstance(out, tuple) else (out, ())
        distinct = (keys[:, None] // powers[None, :]) % base
        return (distinct, *rest) if rest else distinct

    def _windows(self, rows: np.ndarray) -> np.ndarray:
        if len(rows) < self.n:
            raise ValueError(
                f"a sequence of {len(rows)} symbols has no {self.n}-grams (it needs at least {self.n})"
            )
        starts = np.arange(0, len(rows) - self.n + 1, self.stride)
        return rows[starts[:, None] + np.arange(self.n)[None, :]]

    def ngrams(self, sequence: Sequence[Any] | str) -> list[tuple[Any, ...]]:
        """The n-grams of a sequence, as tuples of labels (for inspection)."""
        items = list(sequence)
        return [tuple(items[s : s + self.n]) for s in range(0, len(items) - self.n + 1, self.stride)]

    def encode(self, sequence: Sequence[Any] | str) -> Any:
        """One text (or sequence of labels) -> one vector."""
        return self._encode([sequence])[0]

    def encode_batch(self, sequences: Iterable[Sequence[Any] | str]) -> Any:
        """Many texts -> ``(n_texts, vector_length)``, equal to encoding each (no texts ->
        ``(0, vector_length)``)."""
        sequences = list(sequences)
        if not sequences:  # no texts: no vectors
            return empty_vectors(self.model, (0,))
        return self._encode(sequences)

    def _encode(self, sequences: list[Any]) -> Any:
        model = self.model
        parts = [rows_of_sequence(self.symbols, s) for s in sequences]
        matrix = parts[-1][1]
        windows = [self._windows(rows) for rows, _ in parts]
        # the symbols in use, and their permuted copies (n - 1 small permutations)
        used, local = np.unique(np.concatenate(windows).reshape(-1), return_inverse=True)
        local = local.reshape(-1, self.n)
        symbols = take_rows(model, matrix, used)
        shifted = [symbols] + [model.permute(symbols, k) for k in range(1, self.n)]  # shifted[k] = rho^k
        lengths = np.array([len(w) for w in windows], dtype=np.int64)
        if self.mode == "chaining" or self._sums is None:
            grams = self._gram_vectors(shifted, local)
            if self.mode == "chaining":
                grams = permute_rows(
                    model, grams, np.arange(len(local)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
                )
            return bundle_segments(model, grams, lengths)
        if len(sequences) == 1 and self._sums.elementwise:
            out = self._prefix_sum(shifted, local)
            if out is not None:
                return self._sums.finish(out)[None, ...]
        # distinct n-grams of the whole batch, a count matrix, one product per block of n-grams
        text_of = np.repeat(np.arange(len(sequences)), lengths)
        distinct, inverse = self._distinct(local, len(used), return_inverse=True)
        counts = np.zeros((len(sequences), len(distinct)), dtype=np.float32)
        np.add.at(counts, (text_of, inverse.reshape(-1)), 1.0)
        return self._weighted_grams(shifted, distinct, counts)

    def _gram_vectors(self, shifted: list[Any], local: np.ndarray) -> Any:
        """``(k, L)`` vectors of n-grams given as ``(k, n)`` local symbol indices."""
        model, n = self.model, self.n
        out = take_rows(model, shifted[n - 1], local[:, 0])
        for i in range(1, n):
            out = model.bind(out, take_rows(model, shifted[n - 1 - i], local[:, i]))
        return out

    def _weighted_grams(self, shifted: list[Any], distinct: np.ndarray, counts: np.ndarray) -> Any:
        sums, model = self._sums, self.model
        weights = model.backend.asarray(counts)
        total = None
        step = block_rows(sums.width * 2)
        for first in range(0, len(distinct), step):
            grams = sums.lift(self._gram_vectors(shifted, distinct[first : first + step]))
            w = model.xp.astype(weights[:, first : first + step], sums.real_dtype)
            part = sums.matmul(w, grams)
            total = part if total is None else total + part
        return sums.finish(total)

    def _prefix_sum(self, shifted: list[Any], local: np.ndarray) -> Any | None:
        """The lifted sum of one text's n-grams through its distinct prefixes (elementwise
        models), or None where the dense count matrix would cost more than the n-grams."""
        sums, model, xp, n = self._sums, self.model, self.model.xp, self.n
        n_symbols = shifted[0].shape[0]
        distinct, counts = self._distinct(local, n_symbols, return_counts=True)
        if n == 1:
            weights = np.zeros((1, n_symbols), dtype=np.float32)
            weights[0, distinct[:, 0]] = counts
            return sums.matmul(
                xp.astype(model.backend.asarray(weights), sums.real_dtype), sums.lift(shifted[0])
            )[0]
        prefixes, prefix_of = self._distinct(distinct[:, :-1], n_symbols, return_inverse=True)
        if len(prefixes) * n_symbols > 32 * len(distinct):
            return None
        dense = np.zeros((len(prefixes), n_symbols), dtype=np.float32)
        dense[prefix_of.reshape(-1), distinct[:, -1]] = counts
        dense = xp.astype(model.backend.asarray(dense), sums.real_dtype)
        lifted = [sums.lift(s) for s in shifted]

        def block_sum(first: int) -> Any:
            block = prefixes[first : first + step]
            m = sums.matmul(dense[first : first + step], lifted[0])
            q = take_rows(model, lifted[n - 1], block[:, 0])
            for i in range(1, n - 1):
                q = q * take_rows(model, lifted[n - 1 - i], block[:, i])
            return xp.sum(q * m, axis=0)

        # blocks bound the memory; on NumPy they also run on every core
        step = block_rows(sums.width * 2)
        parts = model.backend.map_chunks(block_sum, range(0, len(prefixes), step))
        total = parts[0]
        for part in parts[1:]:
            total = total + part
        return total


# -- trajectories -----------------------------------------------------------------------


class _LevelAxis:
    """Values on ``[low, high]`` as ``levels`` graded level vectors (a level encoder)."""

    def __init__(self, model: VSAModel, low: float, high: float, levels: int, seed: int) -> None:
        self.model, self.low, self.high = model, low, high
        level_step(low, high, levels)  # the levels are floats apart
        self.codes = LevelCodes(model, levels, seed)

    def encode(self, values: Any) -> Any:
        return self.codes.vectors(quantize(self.model, values, self.low, self.high, self.codes.levels))


class TrajectoryEncoder(Encoder):
    """Time-stamped points ``(t_k, x_k)`` in ``n_dimensions`` as one vector.

    A point is the binding of one scalar code per axis (independent codes per axis, so
    the similarity of two points is the product of the per-axis kernels); it is bound
    with the code of its time, and a trajectory is the bundle over its points:
    ``sum_k bind(point(x_k), time(t_k))``.

    Scalar codes (``scalar=``): ``"fpe"`` uses :class:`FractionalPowerEncoder` (FHRR and
    HRR; continuous kernel); ``"level"`` graded level vectors, ``levels`` per range
    (every model); ``"auto"`` (default) takes the FPE where the scalar encoders provide
    it for this model and level codes otherwise. :attr:`scalar_kind` says which.

    Times: with ``time_range=(t0, t1)`` times are encoded by the same kind of scalar code
    over that range (default times: ``0, 1, ...``); with ``time_range=None`` (default)
    time ``k`` is the permutation power ``permute(., k)`` of the point's index (exact,
    unbounded: the points' order).

    Examples
    --------
    >>> import numpy as np
    >>> from holovec import VSA
    >>> from holovec.encoders import TrajectoryEncoder
    >>> model = VSA.create("MAP", dim=10000)
    >>> enc = TrajectoryEncoder(model, 2, value_range=(0, 10), seed=1)
    >>> path = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.5]])
    >>> a, b = enc.encode(path), enc.encode(path + 0.2)
    >>> float(model.similarity(a, b)) > 0.5
    True
    """

    _repr_attrs: ClassVar[dict[str, str | None]] = {"value_range": "ranges", "scalar": "scalar_kind"}

    def __init__(
        self,
        model: VSAModel,
        n_dimensions: int = 1,
        *,
        value_range: tuple[float, float] | Sequence[tuple[float, float]] = (0.0, 1.0),
        time_range: tuple[float, float] | None = None,
        levels: int = 64,
        scalar: str = "auto",
        bandwidth: float = 1.0,
        clip: bool = False,
        seed: int | None = None,
    ) -> None:
        super().__init__(model, seed=seed)
        self.n_dimensions = check_int(n_dimensions, "n_dimensions", 1)
        self.ranges = _ranges(value_range, self.n_dimensions)
        self.time_range = None if time_range is None else _ranges(time_range, 1)[0]
        self.levels = check_int(levels, "levels", 2)
        self.clip = check_bool(clip, "clip")
        if scalar not in ("auto", "fpe", "level"):
            raise ValueError(f"scalar must be 'auto', 'fpe' or 'level', got {scalar!r}")
        if scalar == "fpe" and not FractionalPowerEncoder.supports(model):
            raise TypeError(
                "scalar='fpe' needs a model with a phasor form (model.has_phasor_form); "
                f"{model.name} has none"
            )
        axes = [*self.ranges, *([self.time_range] if self.time_range is not None else [])]
        self.scalar_kind = "level"
        self._axes: list[Any] = []
        if scalar != "level" and FractionalPowerEncoder.supports(model):
            self._axes = [
                FractionalPowerEncoder(
                    model, low, high, bandwidth=bandwidth, seed=fold_in(self.seed, "fpe", k)
                )
                for k, (low, high) in enumerate(axes)
            ]
            self.scalar_kind = "fpe"
        else:
            self._axes = [
                _LevelAxis(model, low, high, self.levels, fold_in(self.seed, "level", k))
                for k, (low, high) in enumerate(axes)
            ]

    def encode(self, points: Any, times: Any = None) -> Any:
        """Points ``(T,)`` (one axis) or ``(T, n_dimensions)`` -> one vector; a batch of
        equal-length trajectories ``(n, T, n_dimensions)`` -> ``(n, vector_length)``.

        ``times`` (shape ``(T,)`` or ``(n, T)``) are needed only with ``time_range``
        (default: ``0, 1, ..., T-1``); NaN, infinity and values out of range raise
        ``ValueError`` (unless ``clip=True``)."""
        model, xp, d = self.model, self.model.xp, self.n_dimensions
        backend = model.backend
        values = check_values(backend, points, name="points")
        if values.ndim == 1 and d == 1:
            values = xp.reshape(values, (values.shape[0], 1))
        if values.ndim == 2:
            values, single = values[None, ...], True
        elif values.ndim == 3:
            single = False
        else:
            raise ValueError(
                f"points must have shape (T, {d}) or (n, T, {d}), got shape {tuple(values.shape)}"
            )
        n, length = values.shape[0], values.shape[1]
        if values.shape[2] != d or length == 0:
            raise ValueError(
                f"points must have shape (T, {d}) or (n, T, {d}) with T > 0, got {tuple(values.shape)}"
            )
        if n == 0:  # no trajectories: no vectors (times, if given, are still checked)
            if times is not None:
                check_values(backend, times, name="times")
            return empty_vectors(model, (0,))
        codes = None
        for k, (low, high) in enumerate(self.ranges):
            axis_values = check_values(
                backend, values[..., k], low=low, high=high, clip=self.clip, name="points"
            )
            code = self._axes[k].encode(xp.reshape(axis_values, (-1,)))
            codes = code if codes is None else model.bind(codes, code)
        if self.time_range is None:
            if times is not None:
                raise ValueError("times need time_range=(t0, t1) (without it, time is the index of a point)")
            codes = permute_rows(model, codes, np.tile(np.arange(length), n))
        else:
            t = np.arange(length, dtype=np.float64) if times is None else times
            t = check_values(
                backend, t, low=self.time_range[0], high=self.time_range[1], clip=self.clip, name="times"
            )
            if t.ndim == 1:
                t = xp.broadcast_to(t[None, :], (n, length)) if t.shape[0] == length else t
            if tuple(t.shape) != (n, length):
                raise ValueError(
                    f"times must have shape ({length},) or ({n}, {length}), got {tuple(t.shape)}"
                )
            codes = model.bind(codes, self._axes[-1].encode(xp.reshape(t, (-1,))))
        items = xp.reshape(codes, (n, length, codes.shape[-1]))
        out = model.bundle(xp.permute_dims(items, (1, 0, 2)))
        return out[0] if single else out


def _ranges(value_range: Any, d: int) -> list[tuple[float, float]]:
    if isinstance(value_range, (str, bytes)):
        raise TypeError(f"value ranges must be (low, high) pairs of numbers, got {value_range!r}")
    try:
        items = np.asarray(value_range, dtype=object)
        array = np.array(
            [check_number(v, "a value range's low or high") for v in items.reshape(-1).tolist()],
            dtype=np.float64,
        ).reshape(items.shape)
    except (TypeError, ValueError) as exc:
        if isinstance(exc, ValueError) and "finite" in str(exc):
            raise ValueError(f"each range must be finite with low < high, got {value_range!r}") from None
        raise TypeError(f"value ranges must be (low, high) pairs of numbers, got {value_range!r}") from None
    if array.shape == (2,):
        array = np.broadcast_to(array, (d, 2))
    if array.shape != (d, 2):
        raise ValueError(f"expected one (low, high) pair or {d} of them, got shape {array.shape}")
    if not np.isfinite(array).all() or (array[:, 1] <= array[:, 0]).any():
        raise ValueError(f"each range must be finite with low < high, got {array.tolist()}")
    return [(float(lo), float(hi)) for lo, hi in array]
