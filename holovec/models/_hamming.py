"""Exact search on packed bits for binary and bipolar models (the hook of holovec.retrieval).

A model with binary (BSC) or bipolar (MAP) vectors can be searched by Hamming distance on
packed bits: for +-1 vectors ``dot(a, b) = dim - 2 * hamming(a, b)`` exactly, and BSC's
similarity is ``1 - 2 * hamming / dim``. Such a model provides two public methods, which
:func:`holovec.retrieval.search` and :class:`~holovec.retrieval.ItemStore` look for:

- ``hamming_search_bits(index)``: the vectors of a search index (a tuple made by
  ``search_index``) bit-packed, uint8 ``(n, 8 * ceil(dim / 64))`` with the padding bits
  clear, or ``None`` where a Hamming search would not give the model's own scores (a
  MAP query that is not +-1, a traced array, a backend without a fast popcount);
- ``hamming_similarity(distances)``: the similarities of those distances, bit-identical
  to the values the model's ``search_scores`` gives for the same pair.

The mixin below holds what both models share: the table of similarities for every
distance ``0 .. dim`` (computed once per model, by the model's own formula on the
backend), and the check that the table is strictly decreasing, so that ranking by
(distance, index) is ranking by (similarity descending, index): then the search
returns exactly what the dense path returns, ties lowest index first.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any


class HammingSearch(ABC):
    """Mixin for :class:`holovec.models.base.VSAModel` subclasses (see the module)."""

    # provided by VSAModel
    xp: Any
    backend: Any
    dim: int

    @abstractmethod
    def _hamming_table(self) -> Any:
        """Similarities of the distances ``0 .. dim`` (1-d), by the model's search formula."""

    def _hamming_table_cached(self) -> Any | None:
        """The table, or ``None`` where it is not strictly decreasing (huge dims)."""
        cache = self.__dict__
        if "_hamming_table_cache" not in cache:
            table = self._hamming_table()
            strict = bool(self.xp.all(table[1:] < table[:-1])) if self.dim > 0 else True
            cache["_hamming_table_cache"] = table if strict else None
        return cache["_hamming_table_cache"]

    def _hamming_usable(self, x: Any) -> bool:
        """Whether a Hamming search pays (a backend with a fast popcount), can read ``x``
        (not traced) and ranks as the model does (the table is strictly decreasing)."""
        backend = self.backend
        if not backend.fast_hamming_search or backend.is_traced(x):
            return False
        return self._hamming_table_cached() is not None

    @property
    def _hamming_bytes(self) -> int:
        return 8 * -(-self.dim // 64)  # whole 64-bit words

    def hamming_similarity(self, distances: Any) -> Any:
        """Similarities of Hamming distances (integers in ``0 .. dim``), equal bit for bit to
        the model's search scores of pairs at those distances."""
        xp = self.xp
        table = self._hamming_table_cached()
        if table is None:
            raise ValueError(
                f"a Hamming search does not rank as {type(self).__name__} does at dim={self.dim}"
            )
        flat = xp.reshape(xp.astype(distances, self.backend.dtype("int32")), (-1,))
        return xp.reshape(xp.take(table, flat, axis=0), tuple(distances.shape))
