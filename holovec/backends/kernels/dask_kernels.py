"""Dask's kernels: NumPy's, chunk by chunk on the workers (vectors whole in each chunk, so
every result equals the NumPy backend's bit for bit), and searches as trees of per-chunk
top-k (:mod:`~holovec.backends.kernels.dask_search`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import dask.array as da
import numpy as np

from .._dask_namespace import row_chunked, rowwise
from ..numpy_backend import NumpyBackend
from . import Kernels, dask_search
from .draws import numpy_philox_words

_NUMPY = NumpyBackend()


class DaskKernels(Kernels):
    """The kernels of :class:`~holovec.backends.dask_backend.DaskBackend` (see
    :mod:`holovec.backends.kernels`)."""

    def popcount(self, x: Any) -> Any:
        return rowwise(np.bitwise_count, x, dtype=np.uint8)

    def count_bits(self, x: Any) -> Any:
        x = row_chunked(x)
        return da.map_blocks(_NUMPY.count_bits, x, dtype=np.int32, drop_axis=x.ndim - 1)

    def unpack_bits(self, words: Any, n_bits: int) -> Any:
        return rowwise(_NUMPY.unpack_bits, words, n_bits, dtype=np.uint8, width=n_bits)

    def words_to_bytes(self, words: Any) -> Any:
        return rowwise(_NUMPY.words_to_bytes, words, dtype=np.uint8, width=4 * words.shape[-1])

    def pack_bits(self, bits: Any, n_bytes: int) -> Any:
        return rowwise(_NUMPY.pack_bits, bits, n_bytes, dtype=np.uint8, width=n_bytes)

    def unpack_bytes(self, x: Any, n_bits: int) -> Any:
        return rowwise(_NUMPY.unpack_bytes, x, n_bits, dtype=np.uint8, width=n_bits)

    def philox_words(self, key: int, counter_start: tuple[int, Any, int], n_blocks: int) -> Any:
        # small draws only (a model's tie-break vector, an encoder's table): made here, in
        # one chunk; codebooks come from generate_rows, chunk by chunk on the workers
        return self.from_numpy(numpy_philox_words(key, counter_start, n_blocks))

    def top_k(self, scores: Any, k: int) -> tuple[Any, Any]:
        k = min(int(k), scores.shape[-1])
        scores = row_chunked(scores)
        return da.apply_gufunc(
            _top_k_block,
            "(n)->(k),(k)",
            scores,
            k=k,  # a keyword: a positional one would count as a second array
            output_dtypes=(scores.dtype, np.int64),
            output_sizes={"k": k},
            vectorize=False,
            allow_rechunk=False,
        )

    def take_rows(self, x: Any, rows: Any) -> Any:
        # gathered from the chunks that hold them, computed (a few rows, not a graph)
        return self.from_numpy(self.to_numpy(x[np.asarray(rows)]))

    def merge_top_k(self, low: tuple[Any, Any], high: tuple[Any, Any], k: int) -> tuple[Any, Any]:
        pieces = [row_chunked(a) for a in (*low, *high)]
        k = min(int(k), low[0].shape[-1] + high[0].shape[-1])
        return da.apply_gufunc(
            _merge_top_k_block,
            "(a),(a),(b),(b)->(k),(k)",
            *pieces,
            k=k,
            output_dtypes=(np.result_type(low[0].dtype, high[0].dtype), np.int64),
            output_sizes={"k": k},
            allow_rechunk=False,
        )

    def row_blocked_matmul(self, left: Any, right: Any, block: int) -> Any:
        # NumPy's products of `block` rows per chunk of rows, `right` (small) whole in each
        left, right = row_chunked(left), self.asarray(right).rechunk(-1)
        dtype = np.result_type(left.dtype, right.dtype)
        return da.blockwise(
            _NUMPY.row_blocked_matmul,
            "ij",
            left,
            "ik",
            right,
            "kj",
            block,
            None,
            dtype=dtype,
            concatenate=True,
            meta=np.empty((0, 0), dtype=dtype),
        )

    def map_item_chunks(
        self, fn: Callable, queries: tuple, items: tuple, chunk: int, parallel: bool, cache: dict
    ) -> Any:
        # Dask's chunks are the chunks: one task graph, scheduled by Dask
        return fn(queries, items)

    def is_partitioned(self, x: Any) -> bool:
        return isinstance(x, da.Array)

    def partitioned_search(
        self, search_part: Callable, queries: Any, items: Any, k: int
    ) -> tuple[Any, Any] | None:
        if not isinstance(items, da.Array):
            return None
        q = self.to_numpy(queries)
        batch = q.shape[:-1]
        q = q.reshape(-1, q.shape[-1])
        s, i = dask_search.partitioned_top_k(search_part, q, row_chunked(items), k)
        kk = s.shape[-1]
        return self.from_numpy(s.reshape(*batch, kk)), self.from_numpy(i.reshape(*batch, kk))


def _top_k_block(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    s, i = _NUMPY.top_k(scores, k)
    return s, i.astype(np.int64, copy=False)


def _merge_top_k_block(
    ls: np.ndarray, li: np.ndarray, hs: np.ndarray, hi: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    s, i = _NUMPY.merge_top_k((ls, li.astype(np.int64)), (hs, hi), k)
    return s, i.astype(np.int64, copy=False)
