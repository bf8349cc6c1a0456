"""Top-k whose order depends only on the query and the items (private).

A search first finds candidates with the fast product of its engine (BLAS, XLA, cuBLAS, a
Dask cluster, sharded JAX), whose scores may differ in the last float32 bits from one
machine, chunk size, batch or thread count to the next. For models whose scores round
(``model.exact_scores`` is False), the candidates' scores are then recomputed canonically
(:mod:`holovec._fixed_order`: a fixed-order float64 reduction, rounded once) and ordered
by (score descending, index ascending). The candidates are the fast top ``k`` plus a few
more; a query's list is complete when no item outside it can reach its k-th canonical
score, given how far a fast score may be from the canonical one
(:func:`holovec._fixed_order.rounding_margin`). Queries whose list may be incomplete are
searched again with four times the candidates, until complete (at most all items).

Exact models (integer sums: MAP, BSC, MAP-I, the sparse codes) skip all this: their fast
scores are the same in any summation order, and the engines order equal scores by index.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from .. import kernels
from .._fixed_order import CANONICAL_BYTES, pair_dots, rounding_margin
from ..backends.base import dtype_name
from ..backends.shapes import row_class


def _first_candidates(k: int, n: int) -> int:
    """Candidates of the first fast search: the top ``k`` and as many more (at least 16),
    so that a second search is rare: the fast scores within the rounding margin of the
    k-th (about 1e-3 at D=10,000) are often several in a large codebook (measured: with
    ``k + max(4, k // 2)`` candidates, half the queries of HRR, D=10,000, 100,000 items,
    k=10 were searched twice)."""
    return min(n, k + max(16, k))


def canonical_top_k(
    model: Any, queries: Any, items: Any, k: int, fast: Callable[[Any, int], tuple[Any, Any]]
) -> tuple[Any, Any]:
    """The top ``k`` of ``queries`` ``(n_q, vector_length)`` among ``items`` ``(n, vector_length)``
    (backend arrays; checked, finite, ``1 <= k <= n``): ``(scores, indices)``, each
    ``(n_q, k)``, scores descending, equal scores lowest index first. ``fast(queries, kk)``
    is the engine's search of ``kk`` candidates (scores best first, any order among equals)."""
    if model.exact_scores:
        return fast(queries, k)
    n, n_q = int(items.shape[0]), int(queries.shape[0])
    kk = _first_candidates(k, n)
    fast_s, fast_i = fast(queries, kk)
    backend = model.backend
    score_dtype, index_dtype = fast_s.dtype, fast_i.dtype
    if n_q == 0:
        return fast_s[:, :k], fast_i[:, :k]
    margin = rounding_margin(model.score_operand_width, _is_double(model))
    scores = np.empty((n_q, k), dtype=np.float64)
    indices = np.empty((n_q, k), dtype=np.int64)
    pending = np.arange(n_q)
    q = queries
    score_all = False
    while True:
        s, i, complete = _refine(
            model, q, items, backend.to_numpy(fast_s), backend.to_numpy(fast_i), k, n, margin, score_all
        )
        scores[pending], indices[pending] = s, i
        if complete.all():
            break
        pending = pending[~complete]
        # where the candidates are every item already, more cannot come: score them all
        score_all = kk >= n
        kk = min(n, 4 * kk)
        q = kernels.take_rows(backend, queries, pending)
        fast_s, fast_i = fast(q, kk)
    return (
        backend.asarray(scores.astype(np.dtype(dtype_name(score_dtype)))),
        backend.asarray(indices.astype(np.dtype(dtype_name(index_dtype)))),
    )


def _refine(
    model: Any,
    queries: Any,
    items: Any,
    fast_s: np.ndarray,
    fast_i: np.ndarray,
    k: int,
    n: int,
    margin: float,
    score_all: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The top ``k`` in the canonical order among the candidates ``fast_i`` ``(m, kk)`` (best
    fast score first), and whether each query's list is sure to be its true top ``k``.

    Only the candidates whose fast score is within twice the margin of the k-th (the ones
    that could overtake it) are scored canonically, in groups of queries that need about
    as many (counts rounded up to a power of two, few shapes for compiled backends);
    ``score_all``: every candidate."""
    m, kk = fast_i.shape
    fast_s = fast_s.astype(np.float64)
    # at least the top k, also where a fast score is NaN (which no comparison counts)
    need = np.maximum(k, (fast_s >= fast_s[:, k - 1 : k] - 2 * margin).sum(axis=1))
    # counts rounded up to a power of two: few shapes (compilations, on JAX) per search
    scored = np.minimum(kk, 2 ** np.ceil(np.log2(need)).astype(np.int64))
    if score_all:
        scored[:] = kk
    best_s = np.empty((m, k), dtype=np.float64)
    best_i = np.empty((m, k), dtype=np.int64)
    for c in np.unique(scored).tolist():
        rows = np.flatnonzero(scored == c)
        q = queries if len(rows) == m else kernels.take_rows(model.backend, queries, rows)
        candidates = fast_i[rows, :c]
        canon = canonical_scores(model, q, items, candidates)
        order = np.lexsort((candidates, -canon), axis=-1)[:, :k]
        best_s[rows] = np.take_along_axis(canon, order, axis=-1)
        best_i[rows] = np.take_along_axis(candidates.astype(np.int64), order, axis=-1)
    if kk >= n and (scored >= n).all():
        return best_s, best_i, np.ones(m, dtype=bool)
    # an item not scored canonically has a fast score at most the best one left out (the
    # next candidate, or the last one found), so canonically at most that plus the margin:
    # it cannot take a place if that is below the k-th canonical score
    left_out = fast_s[np.arange(m), np.minimum(scored, kk - 1)]
    complete = (scored >= n) | (left_out + margin < best_s[:, -1])
    return best_s, best_i, complete


def canonical_scores(model: Any, queries: Any, items: Any, candidates: np.ndarray) -> np.ndarray:
    """Canonical scores ``(m, c)`` (host float64, rounded to the model's real precision) of
    ``queries`` ``(m, vector_length)`` against their candidate items ``candidates`` ``(m, c)``
    (host ints): computed on the model's device (a partitioned array's rows gathered first),
    the same bits on every backend."""
    m, c = candidates.shape
    group = min(m, max(1, CANONICAL_BYTES // max(1, 24 * c * model.score_operand_width)))
    if model.backend.static_shapes and group == m and m > 1:
        # a power of two of rows (the last ones repeated): few shapes, few compilations
        rows = row_class(m)
        pad = np.arange(rows) % m if rows > m else np.arange(m)
        if rows > m:
            return canonical_scores(
                model, kernels.take_rows(model.backend, queries, pad), items, candidates[pad]
            )[:m]
    block = model.block_model()  # the model of one place's arrays (NumPy for Dask's chunks)
    backend, bb = model.backend, block.backend
    kernel = _group_kernel(block)
    out = np.empty((m, c), dtype=np.float64)
    for start in range(0, m, group):
        # every group of one shape (the last one overlaps the one before): one compilation
        start = max(0, min(start, m - group))
        stop = start + group
        rows = kernels.take_rows(backend, items, candidates[start:stop].reshape(-1))
        q = queries[start:stop] if group < m else queries
        if block is not model:
            rows, q = bb.from_numpy(backend.to_numpy(rows)), bb.from_numpy(backend.to_numpy(q))
        # NumPy's overflow warnings silenced: non-finite scores are refused below
        with kernels.float64_scope(bb), np.errstate(over="ignore", invalid="ignore"):
            out[start:stop] = bb.to_numpy(kernel(q, rows))
    if not np.isfinite(out).all():
        # finite vectors whose float64 sums overflow (a float64 model's vectors of elements
        # beyond about 1e75, or a model's own score): no order can be given
        raise ValueError(
            f"{model.name}: the similarity of some finite queries and items overflows (their "
            "elements are too large for the score's float64 sums); scale the vectors down, "
            "e.g. with model.normalize, before searching them"
        )
    if not _is_double(model):
        out = out.astype(np.float32).astype(np.float64)  # one rounding, to the scores' precision
    return out


def _group_kernel(model: Any) -> Any:
    """``kernel(queries (m, L), rows (m * c, L)) -> scores (m, c)`` in float64, a program of
    the model's backend (compiled on JAX: one program instead of an op per fold step), kept
    by the model."""
    return model.backend.program(
        partial(_group_scores, model), (model.config_key, "holovec.retrieval.refine"), keep=model.kernel_cache
    )


def _group_scores(model: Any, q: Any, rows: Any) -> Any:
    xp = model.xp
    left, right = model.score_operand(q), model.score_operand(rows)
    right = xp.reshape(right, (q.shape[0], -1, right.shape[-1]))
    dots, squares_q, squares_b = pair_dots(model.backend, left, right)
    return model.score_from_dots(dots, squares_q, squares_b)


def _is_double(model: Any) -> bool:
    return model.real_dtype_name == "float64"
