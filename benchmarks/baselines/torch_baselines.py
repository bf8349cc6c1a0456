"""PyTorch baselines, eager mode (see the package docstring for the interface)."""

from __future__ import annotations

import math
from typing import Any

import torch


class _TorchBaseline:
    def __init__(self, dim: int, device: Any = None) -> None:
        self.dim = dim
        self.device = torch.device("cpu" if device is None else device)
        self._shifts = torch.arange(8, dtype=torch.uint8, device=self.device)

    def _generator(self, seed: int) -> torch.Generator:
        return torch.Generator(device=self.device).manual_seed(seed)

    def _bits(self, n: int, seed: int) -> torch.Tensor:
        """Uniform 0/1 uint8 of shape (n, dim), 8 bits from each random byte (faster than
        ``torch.randint(0, 2, ..., dtype=torch.uint8)``)."""
        n_bytes = -(-self.dim // 8)
        random_bytes = torch.randint(
            0, 256, (n, n_bytes), dtype=torch.uint8, generator=self._generator(seed), device=self.device
        )
        bits = (random_bytes[..., None] >> self._shifts) & 1
        return bits.reshape(n, n_bytes * 8)[:, : self.dim]


class FHRRBaseline(_TorchBaseline):
    def random(self, n: int, seed: int) -> torch.Tensor:
        phase = torch.empty((n, self.dim), dtype=torch.float32, device=self.device)
        phase.uniform_(-math.pi, math.pi, generator=self._generator(seed))
        return torch.complex(torch.cos(phase), torch.sin(phase))

    bind = staticmethod(torch.mul)  # the bare operator: no Python frame around it

    def bundle(self, vectors: torch.Tensor) -> torch.Tensor:
        total = vectors.sum(dim=0)
        return total / total.abs()

    def similarity_matrix(self, queries: torch.Tensor, items: torch.Tensor) -> torch.Tensor:
        # Re(q . conj(b)) as one real product over the (re, im) view: no copy
        q = torch.view_as_real(queries).flatten(-2)
        b = torch.view_as_real(items).flatten(-2)
        return (b @ q.T).T / self.dim  # the long item matrix on the left, as holovec (README)

    def similarity(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.vdot(b, a).real / self.dim


class MAPBaseline(_TorchBaseline):
    def random(self, n: int, seed: int) -> torch.Tensor:
        return self._bits(n, seed).to(torch.float32).mul_(-2).add_(1)

    bind = staticmethod(torch.mul)  # the bare operator: no Python frame around it

    def bundle(self, vectors: torch.Tensor) -> torch.Tensor:
        return torch.sign(vectors.sum(dim=0))

    def similarity_matrix(self, queries: torch.Tensor, items: torch.Tensor) -> torch.Tensor:
        return (items @ queries.T).T / self.dim

    def similarity(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return (a @ b) / self.dim


class BSCBaseline(_TorchBaseline):
    def random(self, n: int, seed: int) -> torch.Tensor:
        return self._bits(n, seed)

    bind = staticmethod(torch.bitwise_xor)

    def bundle(self, vectors: torch.Tensor) -> torch.Tensor:
        k = vectors.shape[0]
        counts = vectors.sum(dim=0, dtype=torch.int16 if k < 2**15 else torch.int64)
        return (counts > k // 2).to(torch.uint8)

    def similarity_matrix(self, queries: torch.Tensor, items: torch.Tensor) -> torch.Tensor:
        q = queries.to(torch.float32).mul_(-2).add_(1)
        b = items.to(torch.float32).mul_(-2).add_(1)
        return (b @ q.T).T / self.dim

    def similarity(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return 1 - 2 * torch.count_nonzero(a ^ b) / self.dim


class PackedBSCBaseline(_TorchBaseline):
    """BSC stored as holovec's packed BSC stores it: uint8 rows of ``8 * ceil(dim / 64)``
    bytes, bit ``j`` in bit ``j % 8`` of byte ``j // 8``, the padding bits zero."""

    def __init__(self, dim: int, device: Any = None) -> None:
        super().__init__(dim, device)
        self.n_bytes = 8 * -(-dim // 64)
        bits = torch.zeros(self.n_bytes * 8, dtype=torch.uint8, device=self.device)
        bits[:dim] = 1
        self._valid = self._pack(bits)  # the bytes' bits that hold elements
        # torch has no popcount: the set bits of each byte value
        self._byte_counts = torch.tensor(
            [bin(i).count("1") for i in range(256)], dtype=torch.int32, device=self.device
        )

    def _unpack(self, x: torch.Tensor) -> torch.Tensor:
        """0/1 uint8 bits, 8 per byte (bit ``i`` of a byte at position ``i``)."""
        return ((x[..., None] >> self._shifts) & 1).flatten(-2)

    def _pack(self, bits: torch.Tensor) -> torch.Tensor:
        """0/1 uint8 bits (a multiple of 8 on the last axis) as bytes."""
        bits = bits.unflatten(-1, (-1, 8))
        return (bits << self._shifts).sum(-1, dtype=torch.uint8)

    def random(self, n: int, seed: int) -> torch.Tensor:
        random_bytes = torch.randint(
            0, 256, (n, self.n_bytes), dtype=torch.uint8, generator=self._generator(seed), device=self.device
        )
        return random_bytes.bitwise_and_(self._valid)

    bind = staticmethod(torch.bitwise_xor)

    def bundle(self, vectors: torch.Tensor) -> torch.Tensor:
        # unpack, count, compare, pack; the padding bits are 0, so never a majority
        k = vectors.shape[0]
        counts = self._unpack(vectors).sum(dim=0, dtype=torch.int16 if k < 2**15 else torch.int64)
        return self._pack((counts > k // 2).to(torch.uint8))

    def adopt(self, x: torch.Tensor, name: str) -> torch.Tensor:
        """The similarity row's queries and items (``Q``, ``items``) as +1/-1 float32, made
        once and not timed: the float matrix-product search of the same codebook."""
        if name not in ("Q", "items"):
            return x
        return self._unpack(x)[..., : self.dim].to(torch.float32).mul_(-2).add_(1)

    def similarity_matrix(self, queries: torch.Tensor, items: torch.Tensor) -> torch.Tensor:
        # queries, items: the +1/-1 float32 copies made by ``adopt``
        return (items @ queries.T).T / self.dim

    def similarity(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return 1 - 2 * self._byte_counts[(a ^ b).int()].sum() / self.dim


BASELINES = {
    "FHRR": FHRRBaseline,
    "MAP": MAPBaseline,
    "BSC": BSCBaseline,
    "BSC-PACKED": PackedBSCBaseline,
}
