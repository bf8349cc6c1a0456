"""ItemStore: top-k search of many queries against a codebook, chunked over items.

A store keeps its codebook in the model's search form (a search index, made once by
``fit``, block by block of items, and again at the first search after ``add`` or
``remove``), searches each chunk of items with one matrix
product (or XOR/popcount on packed bits for binary and bipolar codes) and merges a
running top-k per query, so that memory stays ``n_queries x chunk`` however many items
there are; ties come back lowest index first. The engine, shared with
:func:`~holovec.retrieval.cleanup`, is in :mod:`holovec.retrieval._index`; its sizes are
:data:`SCORE_BYTES` (scores of one chunk), :data:`INDEX_BYTES` (vectors indexed at a
time) and :data:`PACKED_GROUP_BYTES` (packed bits per call of the backend's Hamming
search).

Codebooks and queries must be finite: NaN or infinity is refused with the row named.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .. import kernels
from ..models.base import VSAModel
from ._checks import claim_codebook, model_vectors
from ._index import INDEX_BYTES as INDEX_BYTES  # the engine's sizes, documented here
from ._index import PACKED_GROUP_BYTES as PACKED_GROUP_BYTES
from ._index import SCORE_BYTES as SCORE_BYTES
from ._index import (
    SearchIndex,
    check_chunk_size,
    check_k,
    placed,
    placed_items,
    search_indexed,
    search_partitioned,
    search_vectors,
)
from .codebook import Codebook

__all__ = ["ItemStore", "search"]


def search(
    model: VSAModel, queries: Any, items: Any, k: int = 1, *, chunk_size: int | None = None
) -> tuple[Any, Any]:
    """The ``k`` most similar items of each query: ``(similarities, indices)``, backend
    arrays of shape ``(..., min(k, n_items))``, best first (ties: lowest index first).
    No queries (shape ``(0, vector_length)``) give empty results.

    Parameters
    ----------
    model : VSAModel
        The model of the vectors.
    queries : array
        Query vectors of the model, ``(..., vector_length)``.
    items : object
        Item vectors ``(n, vector_length)``.
    k : int, optional
        Number of results per query.
    chunk_size : int, optional
        Items per chunk of the search; ``None`` for a chunk that bounds the memory.
    """
    return search_vectors(model, queries, items, k, chunk_size, check_items=True)


class ItemStore:
    """Nearest-neighbour search over the vectors of a :class:`Codebook`.

    Parameters
    ----------
    model : VSAModel
        The model of the vectors searched.
    chunk_size : int, optional
        Items per chunk of the search; ``None`` for a chunk that bounds the memory.

    Examples
    --------
    >>> from holovec import VSA
    >>> from holovec.retrieval import Codebook, ItemStore
    >>> model = VSA.create("BSC", dim=2000)
    >>> book = Codebook.from_seed(model, ["a", "b", "c"], seed=1)
    >>> store = ItemStore(model).fit(book)
    >>> store.query(book["b"])
    [('b', 1.0)]
    """

    def __init__(self, model: VSAModel, *, chunk_size: int | None = None) -> None:
        if not isinstance(model, VSAModel):
            raise TypeError(f"model must be a VSA model, got {type(model).__name__}")
        self.model = model
        self.chunk_size = check_chunk_size(chunk_size)
        self.codebook: Codebook | None = None
        self._index_of: Any = None
        self._index_cache: SearchIndex | None = None

    def fit(self, codebook: Codebook | Any, labels: Any = None) -> ItemStore:
        """Search ``codebook``: a :class:`Codebook` of this model (or of an equal one, e.g.
        loaded from a file), or vectors of this model ``(n, vector_length)`` with optional
        labels (default ``0 .. n-1``), as :class:`Codebook` takes them, or a dict
        ``{label: vector}`` (as HoloVec 1.x's ``fit`` takes it).

        Parameters
        ----------
        codebook : Codebook | object
            A :class:`Codebook`, vectors ``(n, vector_length)`` or a dict ``{label:
            vector}``.
        labels : object, optional
            Labels of the vectors given as an array; ``None`` for ``0 .. n-1``.
        """
        if isinstance(codebook, Mapping):
            if labels is not None:
                raise ValueError("labels are for an array of vectors; a dict has its own labels")
            codebook = Codebook(self.model, codebook)
        elif not isinstance(codebook, Codebook):
            codebook = Codebook(self.model, labels, model_vectors(self.model, codebook, "codebook"))
        else:
            if labels is not None:
                raise ValueError("labels are for an array of vectors; a Codebook has its own labels")
            claim_codebook(self.model, codebook, "the codebook", "this store's model")
        self.codebook = codebook
        self._index_of: Any = None  # the vectors the cached search index was made from
        if len(codebook) and not kernels.is_partitioned(self.model.backend, codebook.vectors):
            # the search form (norms, packed bits) now, so the first query does not pay for it
            self._index(codebook).packed(self.model)
        return self

    def _book(self) -> Codebook:
        if self.codebook is None:
            raise ValueError("the store is empty: call fit(codebook) first")
        if len(self.codebook) == 0:
            raise ValueError("the store's codebook has no items")
        return self.codebook

    def _index(self, book: Codebook) -> SearchIndex:
        """The codebook in the model's search form (norms, packed bits), made once (by
        ``fit``), block by block, and made again after ``add`` or ``remove`` (which replace
        the codebook's array)."""
        if self._index_of is not book.vectors or self._index_cache is None:
            self._index_cache = None  # let the old index go before the new one is made
            self._index_cache = SearchIndex(self.model, placed_items(self.model, book.vectors))
            self._index_of = book.vectors
        return self._index_cache

    def __len__(self) -> int:
        return 0 if self.codebook is None else len(self.codebook)

    def __repr__(self) -> str:
        items = "not fitted" if self.codebook is None else f"{len(self.codebook)} items"
        chunk = "" if self.chunk_size is None else f", chunk_size={self.chunk_size}"
        return f"ItemStore({self.model!r}, {items}{chunk})"

    def search(self, queries: Any, k: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """``(similarities, indices)`` as NumPy arrays of shape ``(..., k)``, best first
        (no queries, shape ``(0, vector_length)``: arrays of shape ``(0, k)``).

        Parameters
        ----------
        queries : array
            Query vectors of the model, ``(..., vector_length)``.
        k : int, optional
            Number of results per query.
        """
        return self._search(queries, k, "queries")

    def _search(self, queries: Any, k: Any, name: str) -> tuple[np.ndarray, np.ndarray]:
        book = self._book()
        k = check_k(k)
        chunk_size = check_chunk_size(self.chunk_size)
        self.model.check(queries, name)
        queries, vectors = placed(self.model, queries, book.vectors)
        # a partitioned codebook (Dask) is searched where its parts live, checked there
        found = search_partitioned(self.model, queries, vectors, k, chunk_size, check_items=False, name=name)
        if found is None:
            found = search_indexed(self.model, queries, self._index(book), k, chunk_size, name)
        s, i = found
        backend = self.model.backend
        return backend.to_numpy(s), backend.to_numpy(i)

    def query(self, vectors: Any, k: int = 1, threshold: float | None = None) -> list:
        """The ``k`` nearest labels of each query, best first, as ``[(label, similarity), ...]``
        (pairs below ``threshold`` left out). One vector gives one list; a batch
        ``(n, vector_length)`` a list of lists.

        Parameters
        ----------
        vectors : array
            One vector of the model, or a batch ``(..., vector_length)``.
        k : int, optional
            Number of results per query.
        threshold : float, optional
            Similarity a result must reach; ``None`` keeps every result.
        """
        book = self._book()
        self.model.check(vectors, "vectors")
        sims, idx = self._search(vectors, k, "vectors")
        single = sims.ndim == 1
        sims, idx = sims.reshape(-1, sims.shape[-1]), idx.reshape(-1, idx.shape[-1])
        labels = book.labels
        out = []
        for row_s, row_i in zip(sims.tolist(), idx.tolist(), strict=True):
            out.append(
                [
                    (labels[i], s)
                    for s, i in zip(row_s, row_i, strict=True)
                    if threshold is None or s >= threshold
                ]
            )
        return out[0] if single else out
