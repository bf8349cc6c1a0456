"""Similarity matrices and searches in chunks: the matrix products and their memory.

A similarity matrix of many items is computed one chunk of items at a time, so that the
temporary memory stays near ``VSAModel._chunk_bytes`` however large the codebook
(:func:`default_chunk`); a search compares a prepared index (``search_index``) the same
way. The matrix products go through :func:`items_product`, which fixes their shape where
the products round, so that an item's score depends neither on its chunk nor its place.
"""

from __future__ import annotations

from typing import Any

from .. import kernels
from ..backends import DTYPE_KINDS

#: rows of items per matrix product where products round (continuous models): every such
#: product has exactly this many item rows (kernels.row_blocked_matmul), so that an item's
#: score depends neither on the chunk it comes in nor on its place there
PRODUCT_BLOCK_ROWS = 128


def default_chunk(n_items: int, per_item: int, budget: int) -> int:
    """Items per chunk for ``per_item`` temporary bytes per item within ``budget`` bytes."""
    if per_item == 0:
        return n_items
    chunk = max(1, budget // per_item)
    if chunk >= n_items:
        return n_items
    # chunks of about equal size: the last chunk overlaps the one before it, and a chunk of
    # the largest size would recompute up to a whole chunk (1,000 items in chunks of 768
    # computed 1,536)
    count = -(-n_items // chunk)
    chunk = -(-n_items // count)
    # whole blocks of items_product where a chunk holds some: a chunk that ends inside a
    # block would compute that block twice (its last block overlaps the one before);
    # rounded up, so the memory may exceed the budget by less than a block of items
    block = PRODUCT_BLOCK_ROWS
    return min(n_items, -(-chunk // block) * block) if chunk >= block else chunk


def items_product(model: Any, queries: Any, items: Any, *, exact: bool = False) -> Any:
    """``queries @ items.T``, ``(n_q, w) x (n_i, w) -> (n_q, n_i)``.

    Where the products round (``exact=False``), the items are on the left in products of
    exactly ``PRODUCT_BLOCK_ROWS`` rows (:func:`~holovec.kernels.blocked.row_blocked_matmul`): matrix
    libraries pick kernels and summation orders by shape, and would otherwise score one
    item a float step apart depending on how the items were chunked and where a row sits
    (equal rows, unequal scores, top-k ties that depend on ``chunk_size``).

    ``exact=True`` (integer-valued products: MAP, BSC, sparse codes) takes the faster
    orientation for the shapes, since any order gives the same sums: usually
    ``(items @ queries.T).T`` (BLAS is much faster with the long item matrix on the left,
    and eager JAX would copy a transposed item matrix); for a short codebook searched by
    more queries, ``queries @ items.T``. On an idle machine the two orders take the same
    time; with other processes busy on both cores, OpenBLAS took 0.5 s instead of 8 ms for
    9 items x 100 queries of 20,000 floats with the short matrix on the left."""
    backend = model.backend
    t = model.xp.matrix_transpose  # not .mT: Dask's arrays have no such attribute
    if not exact:
        return t(kernels.row_blocked_matmul(backend, items, t(queries), PRODUCT_BLOCK_ROWS))
    if queries.shape[0] > items.shape[0]:
        return kernels.matmul(backend, queries, t(items))
    return t(kernels.matmul(backend, items, t(queries)))


def dot_similarity(
    model: Any, dots: Any, squares_a: Any, squares_b: Any, divisors: tuple[Any, Any] | None = None
) -> Any:
    """``<a, b> / max(dim, |a| |b|)`` clipped to [-1, 1], from the dot products and the
    squared norms of both sides (broadcasting): the search score of the models whose
    similarity is ``<a, b> / dim``. ``divisors``: where the rows were divided by factors
    ``(d_a, d_b)`` (broadcasting like the squares) so that their squares stay finite
    (:mod:`holovec.models._magnitude`), the dot products and squares of the divided rows
    give the same score as ``dots / max(dim / (d_a d_b), |a| |b|)``.

    For their vectors (squared norm ``dim``: MAP's +-1, FHRR's unit phasors) it is that
    similarity (for +-1 vectors exactly: ``dim * dim`` rounds back to ``dim`` under the
    square root); vectors of larger norm (sums, arithmetic of your own) get their cosine,
    so that the scale stays [-1, 1] and a search with such a query still ranks the items as
    the dot product does. The clip takes off what rounding adds."""
    xp = model.xp
    limit: Any = float(model.dim)
    if divisors is not None:
        limit = (limit / divisors[0]) / divisors[1]  # by factors of 1: dim exactly
    denominator = xp.maximum(xp.sqrt(squares_a * squares_b), limit)
    return kernels.clip(model.backend, dots / denominator, -1.0, 1.0)


def score_operand(model: Any, vectors: Any) -> Any:
    """Real rows ``(..., score_operand_width)`` whose plain dot products are the numerators
    of the similarity (``VSAModel.score_operand``; complex vectors: the real and imaginary
    part of each element side by side; 16-bit floats: widened to float32).

    Parameters
    ----------
    model : VSAModel
        The model.
    vectors : array
        Vectors of the model, ``(..., vector_length)``.
    """
    xp = model.xp
    if DTYPE_KINDS[model.dtype_name] == "complex":
        # one layout on every backend (the order of a canonical sum): re, im of each element
        pairs = xp.stack([xp.real(vectors), xp.imag(vectors)], axis=-1)
        return xp.reshape(pairs, (*vectors.shape[:-1], 2 * vectors.shape[-1]))
    if model.dtype_name in ("float16", "bfloat16"):
        return xp.astype(vectors, model.backend.dtype("float32"))
    return vectors


def score_from_dots(model: Any, dots: Any, squares_q: Any, squares_b: Any) -> Any:
    """The search score from dot products of ``score_operand`` rows and the squared norms of
    both sides (broadcasting; float64 where called canonically): by default
    ``<a, b> / max(dim, |a| |b|)`` clipped to [-1, 1] (:func:`dot_similarity`).

    Parameters
    ----------
    model : VSAModel
        The model.
    dots : array
        Dot products of ``score_operand`` rows of queries and items.
    squares_q : array
        Squared norms of the queries' rows.
    squares_b : array
        Squared norms of the items' rows.
    """
    return dot_similarity(model, dots, squares_q, squares_b)


def score_operand_width(model: Any) -> int:
    """The last axis of ``score_operand``: the number of products in one score."""
    return model.vector_length * (2 if DTYPE_KINDS[model.dtype_name] == "complex" else 1)
