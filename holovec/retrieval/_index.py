"""The search engine of retrieval (package-internal): a codebook in the model's search
form, queries and items placed where a search computes them, and the chunked top-k search
that :class:`~holovec.retrieval.ItemStore`, :func:`~holovec.retrieval.search` and
:func:`~holovec.retrieval.cleanup` share.

A :class:`SearchIndex` keeps a codebook in the model's search form (``model.search_index``:
the item norms for cosine models, the items bit-packed for BSC), made once, block by block
of items, so that the memory it takes while it is made stays bounded by a block
(:data:`INDEX_BYTES` of vectors) on every backend. Each chunk of items is then one matrix
product (or XOR/popcount on packed bits), and a running top-k per query is merged chunk by
chunk, so memory stays ``n_queries x chunk`` however many items there are. Top-k uses the
backend's partial selection (:func:`~holovec.kernels.top_k.top_k`); equal similarities
come back lowest index first.

Binary and bipolar codes (models with a Hamming search, ``model.hamming_search_bits``, see
:mod:`holovec.models._hamming`: BSC, packed or not, and MAP where queries and items are
+-1) are searched on packed bits instead: the index packs the codebook once (lazily, at
the first such search), and the backend's :func:`~holovec.kernels.hamming.hamming_top_k`
runs XOR/popcount with a fused running top-k (no score matrix); the similarities and their
order are bit for bit those of the dense path.

Codebooks and queries must be finite: NaN or infinity is refused with the row named
(one reduction per block of a codebook when it is made, per batch of queries).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from .. import kernels
from .._params import POSITIVE_INT
from ..models.base import VSAModel
from ._checks import check_finite
from ._refine import canonical_top_k

#: bytes of similarity scores one chunk may hold
SCORE_BYTES = 32 * 2**20
#: bytes of vectors turned into the search form at a time
INDEX_BYTES = 32 * 2**20
#: bytes of packed bits searched by one call of the backend's hamming_top_k
PACKED_GROUP_BYTES = 64 * 2**20

_UNSET: Any = object()


def hamming_bits_of(model: VSAModel) -> Any:
    """The model's ``hamming_search_bits`` hook (vectors of a search index -> packed bits,
    or None where these vectors have no exact Hamming search), or None where the model has
    no Hamming search at all (``model.has_hamming_search``, in the model protocol)."""
    return model.hamming_search_bits if model.has_hamming_search else None


def check_k(k: Any) -> int:
    return POSITIVE_INT.check("k", k)


def check_chunk_size(chunk_size: Any) -> int | None:
    return None if chunk_size is None else POSITIVE_INT.check("chunk_size", chunk_size)


class SearchIndex:
    """Vectors ``(n, vector_length)`` of a model in its search form, made block by block
    (``model.search_index`` of at most ``block_rows`` rows at a time).

    A member of a block's index that is the block itself (models that compare the vectors
    as they are) is not kept: it is sliced from the vectors when searched, so the index
    holds no second copy of the codebook.
    """

    def __init__(self, model: VSAModel, vectors: Any, block_rows: int | None = None) -> None:
        self.vectors = vectors
        self.n = n = int(vectors.shape[0])
        if block_rows is None:
            itemsize = getattr(vectors.dtype, "itemsize", 8)
            block_rows = max(1, INDEX_BYTES // max(1, model.vector_length * itemsize))
        self.blocks: list[tuple[int, int, tuple[Any, ...]]] = []
        for start in range(0, n, block_rows):
            stop = min(start + block_rows, n)
            rows = vectors if (start == 0 and stop == n) else vectors[start:stop]
            members = model.search_index(rows)
            self.blocks.append((start, stop, tuple(None if m is rows else m for m in members)))
        self._packed: Any = _UNSET

    def packed(self, model: VSAModel) -> list[tuple[int, Any]] | None:
        """The items as packed bits for a Hamming search, ``[(first_row, bits), ...]`` in
        groups of up to :data:`PACKED_GROUP_BYTES`, or ``None`` where the model has no such
        search for these items (``model.hamming_search_bits``). Made once, block by block."""
        if self._packed is _UNSET:
            self._packed = None  # a failure while packing leaves no half-made groups
            self._packed = self._make_packed(model)
        return self._packed

    def _make_packed(self, model: VSAModel) -> list[tuple[int, Any]] | None:
        bits_of = hamming_bits_of(model)
        if bits_of is None:
            return None
        xp = model.xp
        groups: list[tuple[int, Any]] = []
        pending: list[tuple[int, int, Any, bool]] = []  # (first, last, bits, bits are the vectors)

        def flush() -> None:
            first, last = pending[0][0], pending[-1][1]
            if all(view for *_, view in pending):  # the vectors themselves: a view, no copy
                whole = first == 0 and last == self.n
                groups.append((first, self.vectors if whole else self.vectors[first:last]))
            elif len(pending) == 1:
                groups.append((first, pending[0][2]))
            else:
                groups.append((first, xp.concat([b for _, _, b, _ in pending], axis=0)))
            pending.clear()

        size = 0
        for j, (first, last, members) in enumerate(self.blocks):
            part = self.part(j)
            bits = bits_of(part)
            if bits is None:
                return None
            row_bytes = int(bits.shape[-1]) * getattr(bits.dtype, "itemsize", 1)
            if pending and size + (last - first) * row_bytes > PACKED_GROUP_BYTES:
                flush()
                size = 0
            pending.append((first, last, bits, members[0] is None and bits is part[0]))
            size += (last - first) * row_bytes
        if pending:
            flush()
        return groups

    def part(self, j: int, start: int = 0, stop: int | None = None) -> tuple[Any, ...]:
        """Rows ``start:stop`` of block ``j`` (counted from the block's first row) in search
        form: every member sliced alike, nothing copied where the backend slices by view."""
        first, last, members = self.blocks[j]
        stop = last - first if stop is None else min(stop, last - first)
        whole = start == 0 and stop == last - first
        out = []
        for m in members:
            if m is None:  # the vectors themselves
                every = whole and first == 0 and last == self.n
                out.append(self.vectors if every else self.vectors[first + start : first + stop])
            else:
                out.append(m if whole else m[start:stop])
        return tuple(out)


def search_vectors(
    model: VSAModel,
    queries: Any,
    items: Any,
    k: Any,
    chunk_size: Any,
    *,
    check_items: bool,
    name: str = "queries",
    items_name: str = "items",
    canonical: bool = True,
) -> tuple[Any, Any]:
    """The top-``k`` search of ``queries`` in the vectors ``items`` (one array, or one
    partitioned over workers or devices); ``check_items=False`` where the items were
    checked to be finite already (a :class:`~holovec.retrieval.Codebook`'s); ``name`` and
    ``items_name`` name the arrays in messages; ``canonical=False``: the fast search alone."""
    k = check_k(k)
    chunk_size = check_chunk_size(chunk_size)
    model.check(items, items_name)
    if items.ndim != 2:
        raise ValueError(
            f"{items_name} must be a 2-d array (n, {model.vector_length}), got {tuple(items.shape)}"
        )
    model.check(queries, name)
    queries, items = placed(model, queries, items)
    found = search_partitioned(model, queries, items, k, chunk_size, check_items, name, items_name)
    if found is not None:
        return found
    if check_items:
        check_finite(model, items, items_name)
    return search_indexed(model, queries, SearchIndex(model, items), k, chunk_size, name, canonical)


def placed(model: VSAModel, queries: Any, items: Any) -> tuple[Any, Any]:
    """Queries and items where a search computes them: the queries on the model's device,
    and so the items unless they are partitioned (searched where their parts are). On
    JAX, arrays replicated over several devices are taken as their copies on the model's
    device (``kernels.in_one_place``): a computation must not mix arrays of different
    device sets."""
    return kernels.in_one_place(model.backend, queries), placed_items(model, items)


def placed_items(model: VSAModel, items: Any) -> Any:
    """``items`` in one place on the model's device unless partitioned (see :func:`placed`)."""
    backend = model.backend
    return items if kernels.is_partitioned(backend, items) else kernels.in_one_place(backend, items)


def search_partitioned(
    model: VSAModel,
    queries: Any,
    items: Any,
    k: int,
    chunk_size: int | None,
    check_items: bool,
    name: str = "queries",
    items_name: str = "items",
) -> tuple[Any, Any] | None:
    """The search of items spread over workers or devices (the backend's
    ``partitioned_search``), each part searched where it lives by the model of its arrays
    (``model.block_model()``: NumPy for Dask's chunks); ``None`` where ``items`` is one
    array in one place. The queries are checked here, as one array (their row numbers
    and name as a search of one array gives them); each part checks its own items."""
    if not kernels.is_partitioned(model.backend, items):
        return None
    check_finite(model, queries, name)
    if items.shape[0] == 0:
        raise ValueError("cannot search an empty set of items")
    part = partial(
        search_part,
        model.block_model(),
        chunk_size=chunk_size,
        check_items=check_items,
        name=name,
        items_name=items_name,
    )

    def fast(q: Any, kk: int) -> tuple[Any, Any]:
        return kernels.partitioned_search(model.backend, part, q, items, kk)

    return batched_top_k(model, queries, items, min(k, int(items.shape[0])), fast)


def batched_top_k(model: VSAModel, queries: Any, items: Any, k: int, fast: Any) -> tuple[Any, Any]:
    """:func:`~holovec.retrieval._refine.canonical_top_k` of queries with any batch axes,
    the results shaped ``(*batch, k)``."""
    xp = model.xp
    batch = tuple(queries.shape[:-1])
    q = xp.reshape(queries, (-1, model.vector_length))
    s, i = canonical_top_k(model, q, items, k, fast)
    return xp.reshape(s, (*batch, k)), xp.reshape(i, (*batch, k))


def search_part(
    model: VSAModel,
    queries: Any,
    items: Any,
    k: int,
    first_row: int = 0,
    *,
    chunk_size: int | None = None,
    check_items: bool = True,
    name: str = "queries",
    items_name: str = "items",
) -> tuple[Any, Any]:
    """:func:`~holovec.retrieval.search` of one part of a partitioned codebook (the backend's
    ``partitioned_search`` calls it where the part lives, with the model of the part's
    arrays); ``first_row``, the part's first row in the whole codebook, numbers the rows
    an error names. The fast search only: the caller orders the candidates of all parts
    canonically."""
    if check_items:
        check_finite(model, items, items_name, first_row=first_row)
    return search_vectors(
        model,
        queries,
        items,
        k,
        chunk_size,
        check_items=False,
        name=name,
        items_name=items_name,
        canonical=False,
    )


def search_indexed(
    model: VSAModel,
    queries: Any,
    index: SearchIndex,
    k: int,
    chunk_size: int | None,
    name: str = "queries",
    canonical: bool = True,
) -> tuple[Any, Any]:
    """:func:`~holovec.retrieval.search` against items already in the model's search form
    (:class:`SearchIndex`); ``canonical=False``: the fast search alone (its order of nearly
    equal scores may depend on the machine, see :mod:`holovec.retrieval._refine`)."""
    model.check(queries, name)
    check_finite(model, queries, name)
    xp, backend = model.xp, model.backend
    batch = tuple(queries.shape[:-1])
    n_q, n_items = int(np.prod(batch, dtype=np.int64)), index.n
    if n_items == 0:
        raise ValueError("cannot search an empty set of items")
    k = min(k, n_items)
    if n_q == 0:  # no queries: empty results, of the dtypes a search gives
        s, i = kernels.top_k(backend, model.search_scores(index.part(0, 0, 1), index.part(0, 0, k)), k)
        return xp.reshape(s[:0], (*batch, k)), xp.reshape(i[:0], (*batch, k))

    def fast(vectors: Any, kk: int) -> tuple[Any, Any]:
        q = model.search_index(vectors)
        found = _packed_search(model, q, index, kk)
        if found is not None:
            return found
        size = chunk_size or max(kk, SCORE_BYTES // (8 * max(int(vectors.shape[0]), 1)))
        return _search_blocks(model, q, index, kk, size)

    if not canonical:
        s, i = fast(xp.reshape(queries, (-1, model.vector_length)), k)
        return xp.reshape(s, (*batch, k)), xp.reshape(i, (*batch, k))
    return batched_top_k(model, queries, index.vectors, k, fast)


def _packed_search(model: VSAModel, q: tuple[Any, ...], index: SearchIndex, k: int) -> tuple[Any, Any] | None:
    """Top-k by Hamming distance on packed bits (the backend's fused ``hamming_top_k``),
    with the model's similarities; ``None`` where the model, the items or these queries
    have no exact Hamming search (then the caller scores the dense way)."""
    bits_of = hamming_bits_of(model)
    if bits_of is None:
        return None
    groups = index.packed(model)
    if groups is None:
        return None
    q_bits = bits_of(q)
    if q_bits is None:
        return None
    backend = model.backend
    best_d = best_i = None
    for first, bits in groups:
        d, i = kernels.hamming_top_k(backend, q_bits, bits, model.dim, k)
        i = i + first
        if best_d is not None:  # earlier groups hold the lower indices
            s, i = kernels.merge_top_k(backend, (-best_d, best_i), (-d, i), k)
            d = -s
        best_d, best_i = d, i
    return model.hamming_similarity(best_d), best_i


def _search_blocks(
    model: VSAModel, q: tuple[Any, ...], index: SearchIndex, k: int, chunk_size: int
) -> tuple[Any, Any]:
    """Top-k of indexed queries over every block of the index, chunk by chunk of items."""
    backend = model.backend
    best_s = best_i = None
    for j, (first, last, _) in enumerate(index.blocks):
        for start in range(0, last - first, chunk_size):
            scores = model.search_scores(q, index.part(j, start, start + chunk_size))
            s, i = kernels.top_k(backend, scores, k)
            i = i + (first + start)
            if best_s is not None:  # earlier chunks hold the lower indices
                s, i = kernels.merge_top_k(backend, (best_s, best_i), (s, i), k)
            best_s, best_i = s, i
    return best_s, best_i
