"""ItemStore: top-k search of many queries against a codebook, chunked over items.

A store keeps its codebook in the model's search form (``model.search_index``: the
item norms for cosine models, the items bit-packed for BSC), made once at the first
search. Each chunk of items is then one matrix product (or XOR/popcount on packed bits),
and a running top-k per query is merged chunk by chunk, so memory stays
``n_queries x chunk`` however many items there are. Top-k uses the backend's partial
selection (:meth:`holovec.backends.Backend.top_k`); equal similarities come back
lowest index first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..models.base import VSAModel
from .codebook import Codebook, _check_same_model, _model_vectors

__all__ = ["ItemStore", "search"]

#: bytes of similarity scores one chunk may hold
SCORE_BYTES = 32 * 2**20


def _check_k(k: Any) -> int:
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"k must be a positive int, got {type(k).__name__} {k!r}")
    if k < 1:
        raise ValueError(f"k must be a positive int, got {k}")
    return int(k)


def search(
    model: VSAModel, queries: Any, items: Any, k: int = 1, *, chunk_size: int | None = None
) -> tuple[Any, Any]:
    """The ``k`` most similar items of each query: ``(similarities, indices)``, backend
    arrays of shape ``(..., min(k, n_items))``, best first (ties: lowest index first)."""
    k = _check_k(k)
    model.check(items, "items")
    if items.ndim != 2:
        raise ValueError(f"items must be a 2-d array (n, {model.vector_length}), got {tuple(items.shape)}")
    return _search_index(model, queries, model.search_index(items), k, chunk_size)


def _search_index(
    model: VSAModel, queries: Any, index: tuple[Any, ...], k: int, chunk_size: int | None
) -> tuple[Any, Any]:
    """:func:`search` against items already in the model's search form (``model.search_index``)."""
    model.check(queries, "queries")
    xp, backend = model.xp, model.backend
    batch = tuple(queries.shape[:-1])
    q = model.search_index(xp.reshape(queries, (-1, model.vector_length)))
    n_q, n_items = q[0].shape[0], index[0].shape[0]
    if n_items == 0:
        raise ValueError("cannot search an empty set of items")
    k = min(k, n_items)
    if chunk_size is None:
        chunk_size = max(k, SCORE_BYTES // (8 * max(n_q, 1)))
    elif isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer)) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive int, got {chunk_size!r}")
    best_s = best_i = None
    for start in range(0, n_items, chunk_size):
        scores = model.search_scores(q, tuple(a[start : start + chunk_size] for a in index))
        s, i = backend.top_k(scores, k)
        i = i + start
        if best_s is not None:
            # earlier chunks first: equal scores keep the lowest global index first
            s_all = xp.concat([best_s, s], axis=-1)
            i_all = xp.concat([best_i, xp.astype(i, best_i.dtype)], axis=-1)
            s, pos = backend.top_k(s_all, k)
            i = xp.take_along_axis(i_all, pos, axis=-1)
        best_s, best_i = s, i
    return xp.reshape(best_s, (*batch, k)), xp.reshape(best_i, (*batch, k))


class ItemStore:
    """Nearest-neighbour search over the vectors of a :class:`Codebook`.

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
        self.chunk_size = chunk_size
        self.codebook: Codebook | None = None
        self._index_of: Any = None
        self._index_cache: tuple[Any, ...] = ()

    def fit(self, codebook: Codebook | Any, labels: Any = None) -> ItemStore:
        """Search ``codebook``: a :class:`Codebook` of this model (or of an equal one, e.g.
        loaded from a file), or vectors of this model ``(n, vector_length)`` with optional
        labels (default ``0 .. n-1``), as :class:`Codebook` takes them, or a dict
        ``{label: vector}`` (as HoloVec 1.x's ``fit`` takes it)."""
        if isinstance(codebook, Mapping):
            if labels is not None:
                raise ValueError("labels are for an array of vectors; a dict has its own labels")
            codebook = Codebook(self.model, codebook)
        elif not isinstance(codebook, Codebook):
            codebook = Codebook(self.model, labels, _model_vectors(self.model, codebook, "codebook"))
        else:
            if labels is not None:
                raise ValueError("labels are for an array of vectors; a Codebook has its own labels")
            _check_same_model(self.model, codebook, "the codebook", "this store's model")
        self.codebook = codebook
        self._index_of: Any = None  # the vectors the cached search index was made from
        return self

    def _book(self) -> Codebook:
        if self.codebook is None:
            raise ValueError("the store is empty: call fit(codebook) first")
        if len(self.codebook) == 0:
            raise ValueError("the store's codebook has no items")
        return self.codebook

    def _index(self, book: Codebook) -> tuple[Any, ...]:
        """The codebook in the model's search form (norms, packed bits), made once and made
        again after ``add`` or ``remove`` (which replace the codebook's array)."""
        if self._index_of is not book.vectors:
            self._index_cache = self.model.search_index(book.vectors)
            self._index_of = book.vectors
        return self._index_cache

    def __len__(self) -> int:
        return 0 if self.codebook is None else len(self.codebook)

    def search(self, queries: Any, k: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """``(similarities, indices)`` as NumPy arrays of shape ``(..., k)``, best first."""
        book = self._book()
        k = _check_k(k)
        s, i = _search_index(self.model, queries, self._index(book), k, self.chunk_size)
        backend = self.model.backend
        return backend.to_numpy(s), backend.to_numpy(i)

    def query(self, vectors: Any, k: int = 1, threshold: float | None = None) -> list:
        """The ``k`` nearest labels of each query, best first, as ``[(label, similarity), ...]``
        (pairs below ``threshold`` left out). One vector gives one list; a batch
        ``(n, vector_length)`` a list of lists."""
        book = self._book()
        self.model.check(vectors, "vectors")
        sims, idx = self.search(vectors, k)
        single = sims.ndim == 1
        sims, idx = sims.reshape(-1, sims.shape[-1]), idx.reshape(-1, idx.shape[-1])
        labels = book._labels
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
