"""Bit kernels: popcounts, packing bits into bytes and back, and Hamming distances of
packed vectors (the binary and bipolar models' codes)."""

from __future__ import annotations

from typing import Any

import numpy as np


class BitKernels:
    """The bit kernels of :class:`~holovec.backends.Backend` (a mixin: it uses the adapter's
    ``xp``, ``device``, ``dtype`` and ``from_numpy``). These defaults are written over the
    array API; the frameworks' kernel classes replace the slow ones."""

    #: whether :meth:`hamming_matrix` on bit-packed vectors beats a float matrix product
    #: of the unpacked +-1 vectors (measured at D=10,000: NumPy's popcount 3x, torch's
    #: int8 product 1.7x faster; JAX's eager popcount is slower)
    fast_packed_hamming: bool = False

    def popcount(self, x: Any) -> Any:
        """Number of set bits in each element of an unsigned integer array."""
        raise TypeError(f"backend {self.name!r} has no popcount")

    def count_bits(self, x: Any) -> Any:
        """Total set bits along the last axis of a uint8 array, as int32.

        Backends read the bytes as the widest words they can (8 bytes where the
        last axis allows) so that one popcount covers 64 bits.
        """
        return self.xp.sum(self.popcount(x), axis=-1, dtype=self.dtype("int32"))

    def words_to_bytes(self, words: Any) -> Any:
        """32-bit words as uint8 bytes, little-endian: last axis ``n`` -> ``4 * n``."""
        xp = self.xp
        shifts = xp.asarray([0, 8, 16, 24], dtype=words.dtype, device=self.device)
        as_bytes = xp.astype((words[..., None] >> shifts) & 0xFF, self.dtype("uint8"))
        return xp.reshape(as_bytes, (*words.shape[:-1], 4 * words.shape[-1]))

    def unpack_bits(self, words: Any, n_bits: int) -> Any:
        """Bits of 32-bit words, least significant first, as uint8 0/1 of last axis ``n_bits``."""
        # through bytes: 8-way uint8 temporaries instead of 32-way word-sized ones
        return self.unpack_bytes(self.words_to_bytes(words), n_bits)

    def pack_bits(self, bits: Any, n_bytes: int) -> Any:
        """uint8 0/1 bits (last axis; any nonzero value counts as 1) as bytes, least significant
        bit first, zero-padded to ``n_bytes``."""
        xp = self.xp
        pad = 8 * n_bytes - bits.shape[-1]
        if pad:
            zeros = xp.zeros((*bits.shape[:-1], pad), dtype=bits.dtype, device=self.device)
            bits = xp.concat([bits, zeros], axis=-1)
        grouped = xp.reshape(bits, (*bits.shape[:-1], n_bytes, 8))
        weights = xp.asarray([1, 2, 4, 8, 16, 32, 64, 128], dtype=bits.dtype, device=self.device)
        # nonzero counts as 1 (as NumPy's packbits has it), so that every backend packs alike
        return xp.sum(xp.where(grouped != 0, weights, 0), axis=-1, dtype=self.dtype("uint8"))

    def unpack_bytes(self, x: Any, n_bits: int) -> Any:
        """Bytes as uint8 0/1 bits, least significant first; the last axis keeps ``n_bits``."""
        xp = self.xp
        shifts = xp.arange(8, dtype=x.dtype, device=self.device)
        bits = (x[..., None] >> shifts) & 1
        return xp.reshape(bits, (*x.shape[:-1], 8 * x.shape[-1]))[..., :n_bits]

    def padding_mask(self, n_bytes: int, n_bits: int) -> Any:
        """uint8 bytes ``(n_bytes,)`` with the first ``n_bits`` bits set (least significant
        bit first) and the others clear."""
        valid = np.clip(n_bits - 8 * np.arange(n_bytes), 0, 8)
        return self.from_numpy(((1 << valid) - 1).astype(np.uint8))

    def hamming_matrix(self, queries: Any, items: Any, n_bits: int) -> Any:
        """Hamming distances ``(n_q, n_i)`` (int32) between bit-packed uint8 vectors
        ``(n_q, n_bytes)`` and ``(n_i, n_bytes)`` whose first ``n_bits`` bits count."""
        n_bytes = queries.shape[-1]
        if 8 * n_bytes == n_bits:
            return self.count_bits(queries[:, None, :] ^ items[None, :, :])
        # bits past n_bits do not count: with the queries' padding cleared, the padding bits
        # of the XOR are the items' own, counted once per item and taken off
        mask = self.padding_mask(n_bytes, n_bits)
        padding = self.count_bits(items[:, n_bits // 8 :] & ~mask[n_bits // 8 :])
        return self.count_bits((queries & mask)[:, None, :] ^ items[None, :, :]) - padding[None, :]

    def hamming_temp_bytes(self, n_queries: int, n_bytes: int, n_bits: int) -> int:
        """Temporary bytes :meth:`hamming_matrix` needs per item (for chunking)."""
        return n_queries * n_bytes
