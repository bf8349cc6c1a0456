"""The NumPy backend: the default, always installed, host CPU only."""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import array_api_compat.numpy as np_xp
import numpy as np

from .base import Backend


def numpy_philox_words(key: int, counter_start: tuple[int, Any, int], n_blocks: int) -> np.ndarray:
    """``n_blocks`` Philox-4x64-10 blocks from NumPy's C implementation, as uint32 words.

    ``counter_start = (c0, c1, c2)``: block ``g`` is Philox of the 256-bit counter
    ``(c0 + g + 1, c1, c2, 0)`` under the 128-bit ``key`` (NumPy's bit generator
    increments its counter before it generates). Each block is 4 uint64 words,
    returned little-endian as 8 uint32 words. A 1-D array of streams ``c1`` gives one
    row of ``8 * n_blocks`` words per stream (one call per row: NumPy's counter is a
    scalar).
    """
    c0, c1, c2 = counter_start
    if isinstance(c1, np.ndarray):
        rows = [numpy_philox_words(key, (c0, int(s), c2), n_blocks) for s in c1]
        return np.stack(rows) if rows else np.zeros((0, 8 * n_blocks), np.uint32)
    counter = np.array([c0, c1, c2, 0], dtype=np.uint64)
    key_words = np.array([key & (2**64 - 1), key >> 64], dtype=np.uint64)
    generator = np.random.Philox(counter=counter, key=key_words)
    return generator.random_raw(4 * n_blocks).view(np.uint32)


_POOL: ThreadPoolExecutor | None = None


def _thread_pool() -> ThreadPoolExecutor:
    """One pool for the process, a thread per usable core (made on first use)."""
    global _POOL
    if _POOL is None:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        _POOL = ThreadPoolExecutor(max_workers=cores or 1, thread_name_prefix="holovec")
    return _POOL


#: products below this many operations run on one BLAS thread in a loop of them (measured:
#: examples/resonator_scene.py, MAP D=2,000, with another process keeping one of 2 cores
#: busy: 6.0 s with OpenBLAS's default threads, 2.3 s with one)
SMALL_PRODUCT_FLOPS = 2**27

_BLAS: Any = None


def _blas_controller() -> Any:
    """threadpoolctl's controller of the BLAS libraries loaded in this process (made once:
    it inspects the loaded libraries), or ``None`` where threadpoolctl is not installed."""
    global _BLAS
    if _BLAS is None:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:
            _BLAS = False
        else:
            _BLAS = ThreadpoolController()
    return _BLAS or None


class NumpyBackend(Backend):
    """NumPy arrays on the host CPU."""

    def small_products(self, flops: float) -> Any:
        controller = _blas_controller() if flops < SMALL_PRODUCT_FLOPS else None
        if controller is None:
            return super().small_products(flops)
        return controller.limit(limits=1, user_api="blas")

    name = "numpy"
    fast_packed_hamming = True
    fast_hamming_search = True
    gather_beats_matmul = True
    has_devices = False

    def _namespace(self) -> Any:
        return np_xp

    def _resolve_device(self, device: Any) -> Any:
        if device is None or str(device).lower() in ("cpu", "cpu:0"):
            return "cpu"
        raise ValueError(
            f"the numpy backend runs on the CPU only, not on device {device!r}; "
            "use device='cpu' (or None), or backend='torch' / 'jax' for a GPU"
        )

    @property
    def array_type(self) -> type:
        return np.ndarray

    def dtype(self, name: str) -> Any:
        if name == "bfloat16":
            raise TypeError("NumPy has no bfloat16; use float16 or float32, or the torch or jax backend")
        return np.dtype(name)

    def asarray(self, x: Any, dtype: Any = None) -> Any:
        if isinstance(x, np.generic):  # NumPy scalars are 0-d arrays to everything else
            x = np.asarray(x)
        return super().asarray(x, dtype)

    def to_numpy(self, x: Any) -> np.ndarray:
        return np.asarray(x)

    def from_numpy(self, x: np.ndarray) -> Any:
        return np.asarray(x)

    def complex(self, real: Any, imag: Any) -> Any:
        out = np.empty(np.broadcast_shapes(real.shape, imag.shape), dtype=np.result_type(real, 1j))
        out.real = real
        out.imag = imag
        return out

    def unit_phasor(self, phases: Any) -> Any:
        out = np.empty(phases.shape, dtype=np.result_type(phases, 1j))
        np.cos(phases, out=out.real)
        np.sin(phases, out=out.imag)
        return out

    def clip(self, x: Any, low: float, high: float) -> Any:
        if isinstance(x, np.generic):  # one similarity: a scalar, clipped in microseconds
            return x if low <= x <= high else type(x)(min(max(x, low), high))
        return np.clip(x, low, high)

    def count_nonzero(self, x: Any) -> Any:
        if x.ndim == 1:  # NumPy's whole-array count is 5x faster than its axis=-1 count
            return np.intp(np.count_nonzero(x))  # a Python int before NumPy 2.1
        return np.count_nonzero(x, axis=-1)

    def real_view(self, x: Any) -> Any:
        return np.ascontiguousarray(x).view(x.real.dtype)

    def complex_view(self, x: Any) -> Any:
        return np.ascontiguousarray(x).view(np.result_type(x, 1j))

    def fft(self, x: Any) -> Any:
        return np.fft.fft(x, axis=-1)

    def ifft(self, x: Any) -> Any:
        return np.fft.ifft(x, axis=-1)

    def rfft(self, x: Any) -> Any:
        return np.fft.rfft(x, axis=-1)

    def irfft(self, x: Any, n: int) -> Any:
        return np.fft.irfft(x, n=n, axis=-1)

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
        return list(_thread_pool().map(fn, chunks))

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
        from . import _packed  # the fused kernel (numba where installed, else NumPy)

        return _packed.hamming_top_k(queries, items, k)
