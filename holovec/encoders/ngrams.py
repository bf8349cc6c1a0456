"""Texts (or any sequences of symbols) as bundles of their n-grams.

Works through the model's public operations, so it serves every model; where the
model's bundle is a sum the work is arranged as sums and matrix products (see
:mod:`holovec.encoders._common`), with the same results as the plain bundle (bit for bit
for the discrete models, to float rounding otherwise).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

import numpy as np

from .. import kernels
from .._deprecation import SINCE, renamed_arguments
from .._params import POSITIVE_INT, Rule
from ..models.base import VSAModel
from ._common import Sums, block_rows, bundle_segments, permute_rows, take_rows
from ._rules import Options
from ._values import empty_vectors
from .base import Encoder
from .symbols import SYMBOLS_RULE, SymbolCodebook, SymbolTable, resolve_symbols, rows_of_sequence

__all__ = ["NGramEncoder"]


class NGramEncoder(Encoder):
    """A text (or any sequence of symbols) as the bundle of its n-grams.

    Each n-gram ``(s_1, ..., s_n)`` is the binding of its permuted symbols,
    ``permute(s_1, n-1) * permute(s_2, n-2) * ... * s_n`` (bound left to right), so
    ``abc`` and ``cba`` differ; a text is the bundle of all its n-grams (``stride``
    apart), so texts that share n-grams are similar.

    ``method="bundling"`` (default) is that bag of n-grams; ``method="chaining"`` also
    marks the ``k``-th n-gram by ``permute(., k)``. (``mode=``, HoloVec's keyword, is a
    deprecated alias of ``method``.)

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

    Parameters
    ----------
    model : VSAModel
        The model whose vectors the encoder makes.
    n : int, optional
        The length of the n-grams.
    symbols : SymbolTable | SymbolCodebook | Sequence[object], optional
        The symbols: a :class:`SymbolTable`, a :class:`SymbolCodebook` or a list of labels;
        ``None`` for a table of the encoder's seed.
    stride : int, optional
        The step between the starts of consecutive n-grams.
    method : str, optional
        ``"bundling"`` (a bag of n-grams) or ``"chaining"`` (the ``k``-th n-gram also
        permuted by ``k``).
    seed : int, optional
        Seed of the encoder's random vectors; ``None`` draws them from the model's
        generator.

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

    _parameter_rules: ClassVar[dict[str, Rule]] = {
        "n": POSITIVE_INT,
        "symbols": SYMBOLS_RULE,
        "stride": POSITIVE_INT,
        "method": Options("bundling", "chaining"),
    }

    @renamed_arguments(mode="method")
    def __init__(
        self,
        model: VSAModel,
        n: int = 3,
        symbols: SymbolTable | SymbolCodebook | Sequence[Any] | None = None,
        *,
        stride: int = 1,
        method: str = "bundling",
        seed: int | None = None,
    ) -> None:
        super().__init__(model, seed=seed, n=n, symbols=symbols, stride=stride, method=method)
        self.n, self.stride, self.method = int(n), int(stride), method
        self.symbols = resolve_symbols(model, symbols, self.seed)
        self._sums = Sums.of(model)

    @property
    def mode(self) -> str:
        """Deprecated alias of :attr:`method` (HoloVec's name)."""
        warnings.warn(
            f"NGramEncoder.mode is deprecated since {SINCE}; use NGramEncoder.method",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.method

    @staticmethod
    def _distinct(rows: np.ndarray, base: int, **kwargs: Any) -> Any:
        """``numpy.unique(rows, axis=0, ...)`` for small non-negative ints, through one
        int64 key per row where ``base ** width`` fits (a 1-d sort, several times faster)."""
        width = rows.shape[1]
        if width == 0 or base**width >= 2**62:
            return np.unique(rows, axis=0, **kwargs)
        powers = base ** np.arange(width - 1, -1, -1, dtype=np.int64)
        keys = (rows.astype(np.int64) * powers).sum(axis=1)  # host ints: no product for the backend
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
        """The n-grams of a sequence, as tuples of labels (for inspection).

        Parameters
        ----------
        sequence : Sequence[object] | str
            A text, or a sequence of labels.
        """
        items = list(sequence)
        return [tuple(items[s : s + self.n]) for s in range(0, len(items) - self.n + 1, self.stride)]

    def encode(self, sequence: Sequence[Any] | str) -> Any:
        """One text (or sequence of labels) -> one vector.

        Parameters
        ----------
        sequence : Sequence[object] | str
            A text, or a sequence of labels.
        """
        return self._encode([sequence])[0]

    def encode_batch(self, sequences: Iterable[Sequence[Any] | str]) -> Any:
        """Many texts -> ``(n_texts, vector_length)``, equal to encoding each (no texts ->
        ``(0, vector_length)``).

        Parameters
        ----------
        sequences : Iterable[Sequence[object] | str]
            Texts, or sequences of labels.
        """
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
        if self.method == "chaining" or self._sums is None:
            grams = self._gram_vectors(shifted, local)
            if self.method == "chaining":
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
        parts = kernels.map_chunks(model.backend, block_sum, range(0, len(prefixes), step))
        total = parts[0]
        for part in parts[1:]:
            total = total + part
        return total
