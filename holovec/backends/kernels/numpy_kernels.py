"""NumPy's kernels: its C popcount, bit packing and Philox, partial selection for top-k, and
the host's single-core kernels run on every core."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..host import thread_pool
from . import Kernels
from .draws import numpy_philox_words


class NumpyKernels(Kernels):
    """The kernels of :class:`~holovec.backends.numpy_backend.NumpyBackend` (see
    :mod:`holovec.backends.kernels`)."""

    fast_packed_hamming = True
    fast_hamming_search = True
    gather_beats_matmul = True

    def philox_words(self, key: int, counter_start: tuple[int, Any, int], n_blocks: int) -> Any:
        return numpy_philox_words(key, counter_start, n_blocks)

    def unpack_bits(self, words: Any, n_bits: int) -> Any:
        as_bytes = np.ascontiguousarray(words, dtype=np.uint32).view(np.uint8)
        return np.unpackbits(as_bytes, axis=-1, count=n_bits, bitorder="little")

    def words_to_bytes(self, words: Any) -> Any:
        return np.ascontiguousarray(words, dtype=np.uint32).view(np.uint8)

    def pack_bits(self, bits: Any, n_bytes: int) -> Any:
        packed = np.packbits(bits, axis=-1, bitorder="little")
        pad = n_bytes - packed.shape[-1]
        return np.pad(packed, [(0, 0)] * (packed.ndim - 1) + [(0, pad)]) if pad else packed

    def unpack_bytes(self, x: Any, n_bits: int) -> Any:
        return np.unpackbits(x, axis=-1, count=n_bits, bitorder="little")

    def map_row_blocks(self, fn: Callable, x: Any, rows: int, width: int, dtype: Any) -> Any:
        n = x.shape[0]
        if n <= rows:
            return fn(x)
        out = np.empty((n, width), dtype=dtype)

        def fill(start: int) -> None:
            out[start : start + rows] = fn(x[start : start + rows])

        self.map_chunks(fill, range(0, n, rows))
        return out

    def row_blocked_matmul(self, left: Any, right: Any, block: int) -> Any:
        n = left.shape[0]
        if n <= block:
            return super().row_blocked_matmul(left, right, block)
        out = np.empty((n, right.shape[1]), dtype=np.result_type(left, right))
        for start in range(0, n - block + 1, block):
            # no out= here: NumPy's matmul then skips BLAS for its own (100x slower) loop
            out[start : start + block] = self.matmul(left[start : start + block], right)
        tail = n % block
        if tail:
            out[n - tail :] = self.matmul(left[n - block :], right)[block - tail :]
        return out

    def map_chunks(self, fn: Callable, chunks: Any) -> list:
        # NumPy's elementwise kernels run on one core but release the GIL: threads add cores
        chunks = list(chunks)
        if len(chunks) < 2:
            return [fn(c) for c in chunks]
        return list(thread_pool().map(fn, chunks))

    def top_k(self, scores: Any, k: int) -> tuple[Any, Any]:
        n = scores.shape[-1]
        k = min(int(k), n)
        if k == n or k == 0:
            return super().top_k(scores, k)
        scores = np.ascontiguousarray(scores)  # rows in cache order (products come transposed)
        idx = np.argpartition(scores, n - k, axis=-1)[..., n - k :]  # O(n), no sort
        values = np.take_along_axis(scores, idx, axis=-1)
        kth = values.min(axis=-1, keepdims=True)
        if not ((scores >= kth).sum(axis=-1) == k).all():
            return self._top_k_from_kth(scores, k, kth)  # ties at the k-th score: lowest index
        order = np.lexsort((idx, -values), axis=-1)  # by score, then by index
        return np.take_along_axis(values, order, axis=-1), np.take_along_axis(idx, order, axis=-1)

    def popcount(self, x: Any) -> Any:
        return np.bitwise_count(x)

    def count_bits(self, x: Any) -> Any:
        if x.shape[-1] % 8 == 0:
            x = np.ascontiguousarray(x).view(np.uint64)
        return np.bitwise_count(x).sum(axis=-1, dtype=np.int32)

    def _hamming_top_k(self, queries: Any, items: Any, n_bits: int, k: int) -> tuple[Any, Any]:
        from . import packed_search  # the fused kernel (numba where installed, else NumPy)

        return packed_search.hamming_top_k(queries, items, k)
