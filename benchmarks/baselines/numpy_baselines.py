"""NumPy baselines (see the package docstring for the interface)."""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

_TWO_PI = np.float32(2 * math.pi)
_PI = np.float32(math.pi)


class _NumpyBaseline:
    def __init__(self, dim: int, device: Any = None) -> None:
        self.dim = dim

    def _bits(self, n: int, seed: int) -> np.ndarray:
        """Uniform 0/1 uint8 of shape (n, dim): 8 bits from each random byte, the fastest
        way NumPy has (about 10x faster than ``rng.integers(0, 2, ..., dtype=uint8)``)."""
        rng = np.random.default_rng(seed)
        random_bytes = rng.integers(0, 256, size=(n, -(-self.dim // 8)), dtype=np.uint8)
        return np.unpackbits(random_bytes, axis=-1, count=self.dim)


class FHRRBaseline(_NumpyBaseline):
    def random(self, n: int, seed: int) -> np.ndarray:
        rng = np.random.default_rng(seed)
        phase = rng.random((n, self.dim), dtype=np.float32)
        phase *= _TWO_PI
        phase -= _PI
        z = np.empty((n, self.dim), dtype=np.complex64)
        np.cos(phase, out=z.real)
        np.sin(phase, out=z.imag)
        return z

    bind = staticmethod(np.multiply)  # the bare ufunc: no Python frame around it

    def bundle(self, vectors: np.ndarray) -> np.ndarray:
        total = vectors.sum(axis=0)
        return total / np.abs(total)

    def similarity_matrix(self, queries: np.ndarray, items: np.ndarray) -> np.ndarray:
        # Re(q . conj(b)) as one real product over the interleaved (re, im) view: no copy,
        # half the flops of the complex product real(queries @ items.conj().T)
        q, b = queries.view(np.float32), items.view(np.float32)
        return (b @ q.T).T / self.dim  # the long item matrix on the left, as holovec (README)

    def similarity(self, a: np.ndarray, b: np.ndarray) -> Any:
        return np.vdot(b, a).real / self.dim


class MAPBaseline(_NumpyBaseline):
    def random(self, n: int, seed: int) -> np.ndarray:
        x = self._bits(n, seed).astype(np.float32)
        x *= -2
        x += 1
        return x

    bind = staticmethod(np.multiply)  # the bare ufunc: no Python frame around it

    def bundle(self, vectors: np.ndarray) -> np.ndarray:
        return np.sign(vectors.sum(axis=0))

    def similarity_matrix(self, queries: np.ndarray, items: np.ndarray) -> np.ndarray:
        return (items @ queries.T).T / self.dim

    def similarity(self, a: np.ndarray, b: np.ndarray) -> Any:
        return (a @ b) / self.dim


class BSCBaseline(_NumpyBaseline):
    def random(self, n: int, seed: int) -> np.ndarray:
        return self._bits(n, seed)

    bind = staticmethod(np.bitwise_xor)

    def bundle(self, vectors: np.ndarray) -> np.ndarray:
        k = vectors.shape[0]
        counts = vectors.sum(axis=0, dtype=np.uint16 if k < 2**16 else np.int64)
        return (counts > k // 2).view(np.uint8)

    def similarity_matrix(self, queries: np.ndarray, items: np.ndarray) -> np.ndarray:
        q = 1 - 2 * queries.astype(np.float32)
        b = 1 - 2 * items.astype(np.float32)
        return (b @ q.T).T / self.dim

    def similarity(self, a: np.ndarray, b: np.ndarray) -> Any:
        return 1 - 2 * np.count_nonzero(a ^ b) / self.dim


class PackedBSCBaseline(_NumpyBaseline):
    """BSC stored as holovec's packed BSC stores it: uint8 rows of ``8 * ceil(dim / 64)``
    bytes, bit ``j`` in bit ``j % 8`` of byte ``j // 8``, the padding bits zero."""

    #: timed too, and printed under the table: (key, label, method)
    extras: ClassVar[dict[str, tuple[tuple[str, str, str], ...]]] = {
        "similarity_matrix": (
            (
                "hamming",
                "hand-written packed Hamming search (XOR + np.bitwise_count of uint64 words, "
                "one query at a time)",
                "hamming_matrix",
            ),
        )
    }

    def __init__(self, dim: int, device: Any = None) -> None:
        super().__init__(dim, device)
        self.n_bytes = 8 * -(-dim // 64)
        bits = np.zeros(8 * self.n_bytes, dtype=np.uint8)
        bits[:dim] = 1
        self._valid = np.packbits(bits, bitorder="little")  # the bytes' bits that hold elements

    def random(self, n: int, seed: int) -> np.ndarray:
        x = np.random.default_rng(seed).integers(0, 256, size=(n, self.n_bytes), dtype=np.uint8)
        x &= self._valid
        return x

    bind = staticmethod(np.bitwise_xor)

    def bundle(self, vectors: np.ndarray) -> np.ndarray:
        # unpack, count, compare, pack; the padding bits are 0, so never a majority
        k = vectors.shape[0]
        bits = np.unpackbits(vectors, axis=-1, bitorder="little")
        counts = bits.sum(axis=0, dtype=np.uint16 if k < 2**16 else np.int64)
        return np.packbits(counts > k // 2, bitorder="little")

    def adopt(self, x: np.ndarray, name: str) -> np.ndarray:
        """The similarity row's queries and items (``Q``, ``items``) as +1/-1 float32, made
        once and not timed: the float matrix-product search of the same codebook."""
        if name not in ("Q", "items"):
            return x
        floats = np.unpackbits(x, axis=-1, count=self.dim, bitorder="little").astype(np.float32)
        floats *= -2
        floats += 1
        return floats

    def similarity_matrix(self, queries: np.ndarray, items: np.ndarray) -> np.ndarray:
        # queries, items: the +1/-1 float32 copies made by ``adopt``
        return (items @ queries.T).T / self.dim

    def hamming_matrix(self, queries: np.ndarray, items: np.ndarray) -> np.ndarray:
        """Hamming search on the packed bytes, read as uint64 words: one query at a time
        keeps the XOR result (10,000 x 1,256 bytes) small."""
        q, b = queries.view(np.uint64), items.view(np.uint64)
        distance = np.empty((q.shape[0], b.shape[0]), dtype=np.int32)
        for row, word in zip(distance, q, strict=True):
            np.bitwise_count(b ^ word).sum(axis=-1, dtype=np.int32, out=row)
        out = distance.astype(np.float32)
        out *= np.float32(-2 / self.dim)
        out += 1
        return out

    def similarity(self, a: np.ndarray, b: np.ndarray) -> Any:
        return 1 - 2 * np.bitwise_count(a ^ b).sum() / self.dim


BASELINES = {
    "FHRR": FHRRBaseline,
    "MAP": MAPBaseline,
    "BSC": BSCBaseline,
    "BSC-PACKED": PackedBSCBaseline,
}
