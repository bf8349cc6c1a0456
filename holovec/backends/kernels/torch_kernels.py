"""torch's kernels: NumPy's on zero-copy views of CPU tensors (torch's own bit kernels are
several times slower there), SWAR popcounts and int8 products on a GPU."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from ..numpy_backend import NumpyBackend
from . import Kernels
from .draws import numpy_philox_words

#: NumPy's kernels, for the bit operations of tensors on the CPU (see :func:`host_computable`)
_HOST = NumpyBackend()


def host_computable(backend: Any, *arrays: Any) -> bool:
    """Whether NumPy's kernels may compute on zero-copy views of these tensors: on the
    CPU, outside a trace (torch's own bit kernels are several times slower there)."""
    return backend.device.type == "cpu" and not any(
        backend.is_traced(x) or x.device.type != "cpu" for x in arrays
    )


def _byte_popcount(x: Any) -> Any:
    """Set bits of each byte of a uint8 tensor, as uint8 (nibble table, no 64-bit temporaries)."""
    table = torch.tensor([0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4], dtype=torch.uint8, device=x.device)
    return table[(x & 15).long()] + table[(x >> 4).long()]


def _bipolar_int8(bits: Any) -> Any:
    """0/1 bits as +1/-1 int8."""
    return 1 - 2 * bits.to(torch.int8)


class TorchKernels(Kernels):
    """The kernels of :class:`~holovec.backends.torch_backend.TorchBackend` (see
    :mod:`holovec.backends.kernels`)."""

    fast_packed_hamming = True
    fast_hamming_search = True

    def philox_words(self, key: int, counter_start: tuple[int, Any, int], n_blocks: int) -> Any:
        if not self.is_cpu:
            return None  # computed on the device by the generic path
        words = numpy_philox_words(key, counter_start, n_blocks)
        return torch.from_numpy(words).to(torch.int64)

    def top_k(self, scores: Any, k: int) -> tuple[Any, Any]:
        n = scores.shape[-1]
        k = min(int(k), n)
        if k == n or k == 0:
            return super().top_k(scores, k)
        values, idx = torch.topk(scores, k, dim=-1)  # best first; order among ties unspecified
        kth = values[..., -1:]
        if not bool(((scores >= kth).sum(dim=-1) == k).all()):
            return self._top_k_from_kth(scores, k, kth)  # ties at the k-th score: lowest index
        by_index = torch.argsort(idx, dim=-1)
        values, idx = values.gather(-1, by_index), idx.gather(-1, by_index)
        order = torch.argsort(values, dim=-1, descending=True, stable=True)
        return values.gather(-1, order), idx.gather(-1, order)

    def popcount(self, x: Any) -> Any:
        # torch has no popcount: count the bits of each byte, then add the bytes of an element
        counts = _byte_popcount(x.contiguous().view(torch.uint8))
        return counts.view(*x.shape, x.element_size()).sum(-1, dtype=torch.int32)

    def count_bits(self, x: Any) -> Any:
        if x.shape[-1] % 8:
            return _byte_popcount(x).sum(-1, dtype=torch.int32)
        words = x.contiguous().view(torch.int64)
        # SWAR popcount (Hacker's Delight 5-1) on 64-bit words; after three steps each
        # byte holds its own count (<= 8), so bytes of up to 31 words add without overflow
        words = words - ((words >> 1) & 0x5555555555555555)
        words = (words & 0x3333333333333333) + ((words >> 2) & 0x3333333333333333)
        words = (words + (words >> 4)) & 0x0F0F0F0F0F0F0F0F
        n = words.shape[-1]
        pad = (-n) % 31
        if pad:
            words = torch.nn.functional.pad(words, (0, pad))
        byte_sums = words.view(*words.shape[:-1], words.shape[-1] // 31, 31).sum(-1)
        # add the 8 byte counts of each 64-bit lane (each < 256), then the lanes
        total = (byte_sums & 0x00FF00FF00FF00FF) + ((byte_sums >> 8) & 0x00FF00FF00FF00FF)
        total = (total * 0x0001000100010001) >> 48 & 0xFFFF
        return total.sum(-1, dtype=torch.int32)

    def row_blocked_matmul(self, left: Any, right: Any, block: int) -> Any:
        n = left.shape[0]
        if n <= block or torch.compiler.is_compiling():
            return super().row_blocked_matmul(left, right, block)
        out = torch.empty((n, right.shape[1]), dtype=torch.result_type(left, right), device=left.device)
        for start in range(0, n - block + 1, block):
            out[start : start + block] = self.matmul(left[start : start + block], right)
        tail = n % block
        if tail:
            out[n - tail :] = self.matmul(left[n - block :], right)[block - tail :]
        return out

    def map_chunks(self, fn: Callable, chunks: Any) -> list:
        if self.device.type == "cpu":  # chunks of one-core host kernels (bits): on every core
            return _HOST.map_chunks(fn, chunks)
        return super().map_chunks(fn, chunks)

    def pack_bits(self, bits: Any, n_bytes: int) -> Any:
        if host_computable(self, bits) and bits.dtype == torch.uint8:
            return torch.from_numpy(_HOST.pack_bits(bits.contiguous().numpy(), n_bytes))
        return super().pack_bits(bits, n_bytes)

    def unpack_bytes(self, x: Any, n_bits: int) -> Any:
        if host_computable(self, x):
            return torch.from_numpy(_HOST.unpack_bytes(x.contiguous().numpy(), n_bits))
        return super().unpack_bytes(x, n_bits)

    def hamming_matrix(self, queries: Any, items: Any, n_bits: int) -> Any:
        if host_computable(self, queries, items):
            # torch's int8 product is slow on CPUs (18 s for 100 x 10,000 items of 10,000
            # bits, where NumPy's popcount takes 0.4 s): NumPy's, on zero-copy views
            host = _HOST.hamming_matrix(queries.contiguous().numpy(), items.contiguous().numpy(), n_bits)
            return torch.from_numpy(host)
        # on a GPU (torch has no popcount, and bitwise popcounts are slow in eager torch) an
        # exact int8 product of +-1 vectors is fast: hamming = (n_bits - <+-1, +-1>) / 2
        q, b = (_bipolar_int8(self.unpack_bytes(x, n_bits)) for x in (queries, items))
        # torch.compile's inductor (torch 2.13, CPU) miscomputes _int_mm with one query
        # column, so compiled code takes the float32 product, which is exact too
        dots = None
        if not torch.compiler.is_compiling():
            try:
                dots = torch._int_mm(b, q.T.contiguous()).T  # int32, exact
            except (AttributeError, RuntimeError):  # no int8 kernel here
                dots = None
        if dots is None:
            dots = (b.float() @ q.float().T).T.round().to(torch.int32)
        return (n_bits - dots) // 2

    def _hamming_top_k(self, queries: Any, items: Any, n_bits: int, k: int) -> tuple[Any, Any]:
        if torch.compiler.is_compiling():
            return super()._hamming_top_k(queries, items, n_bits, k)
        if self.device.type != "cpu":  # a GPU: an int8 product on its tensor cores
            from .int8_search import torch_hamming_top_k

            return torch_hamming_top_k(queries, items, k)
        from . import packed_search  # on the CPU: the host kernel on zero-copy NumPy views

        d, i = packed_search.hamming_top_k(queries.contiguous().numpy(), items.contiguous().numpy(), k)
        return torch.from_numpy(d), torch.from_numpy(i)

    def hamming_temp_bytes(self, n_queries: int, n_bytes: int, n_bits: int) -> int:
        return 2 * n_bits  # the uint8 bits and the int8 +-1 values of one item
