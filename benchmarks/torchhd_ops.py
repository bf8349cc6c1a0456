"""torchhd's calls for the same operations, where torchhd is installed.

torchhd runs on PyTorch only; it is timed on torch's CPU (or the torch backend's
device), on the same data as holovec (shared with NumPy without a copy where it can be).
"""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np

from .timing import waiter

#: torchhd's name and the dtype of holovec's vectors, for each model torchhd also has
_MODELS = {"FHRR": "complex64", "MAP": "float32", "BSC": "uint8", "MCR": "int64", "CGR": "int64"}
#: the models of integer levels modulo r (torchhd's ``block_size``)
_MODULAR = ("MCR", "CGR")
#: operations torchhd does not have for a model: its MCR and CGR similarity is another measure
#: (a modular Manhattan distance, not holovec's mean cosine), and its matrix form makes a
#: (queries, items, dim) int64 tensor (80 GB for the ops table's 100 x 10,000 at D = 10,000)
_MISSING = {name: ("similarity_matrix", "similarity_latency") for name in _MODULAR}


def torchhd_status() -> tuple[str | None, str | None]:
    """(torchhd's version, None) if it imports, else (None, why not)."""
    if importlib.util.find_spec("torchhd") is None:
        return None, "torchhd is not installed"
    try:
        import torchhd
    except Exception as exc:
        return None, f"torchhd does not import: {type(exc).__name__}: {exc}"
    return getattr(torchhd, "__version__", "?"), None


class TorchhdOps:
    """The operations of one model through torchhd's functional API."""

    def __init__(self, model: str, dim: int, device: Any = None, block_size: int | None = None) -> None:
        import torch
        import torchhd

        self.torch, self.torchhd = torch, torchhd
        self.vsa = model.upper()
        self.dim = dim
        self.device = torch.device("cpu" if device is None else device)
        self.dtype = getattr(torch, _MODELS[self.vsa])
        self.tensor_class = torchhd.functional.get_vsa_tensor_class(self.vsa)
        self.block_size = block_size  # MCR and CGR: the levels r
        self.wait = waiter("torch", self.device)

    @staticmethod
    def supports(model: str) -> bool:
        return model.upper() in _MODELS

    def has_op(self, key: str) -> bool:
        """Whether torchhd has the ops table's operation ``key`` for this model."""
        return key not in _MISSING.get(self.vsa, ())

    def adopt(self, x: Any, name: str | None = None) -> Any:
        """An array of any backend as a torchhd tensor of this model (no copy where possible)."""
        torch = self.torch
        if isinstance(x, torch.Tensor):
            t = x
        elif isinstance(x, np.ndarray):
            t = torch.from_numpy(x)
        else:  # a jax array: through DLPack, else a host copy
            try:
                t = torch.from_dlpack(x)
            except Exception:
                t = torch.from_numpy(np.array(x))
        if self.vsa in _MODULAR:  # torchhd's levels are int64 tensors that carry r
            t = t.to(self.device, self.dtype).as_subclass(self.tensor_class)
            t.block_size = self.block_size
            return t
        return t.to(self.device).as_subclass(self.tensor_class)

    def random(self, n: int, seed: int) -> Any:
        generator = self.torch.Generator(device=self.device).manual_seed(seed)
        extra = {"block_size": self.block_size} if self.vsa in _MODULAR else {}
        return self.torchhd.random(
            n, self.dim, self.vsa, generator=generator, dtype=self.dtype, device=self.device, **extra
        )

    def bind(self, a: Any, b: Any) -> Any:
        return self.torchhd.bind(a, b)

    def bundle(self, vectors: Any) -> Any:
        total = self.torchhd.multiset(vectors)  # BSC, MCR, CGR: already the bundle
        return total if self.vsa in ("BSC", *_MODULAR) else self.torchhd.normalize(total)

    def similarity_matrix(self, queries: Any, items: Any) -> Any:
        # dot / dim: the [-1, 1] scale of holovec (torchhd's cosine_similarity of BSC is the same)
        return self.torchhd.dot_similarity(queries, items) / self.dim

    def similarity(self, a: Any, b: Any) -> Any:
        return self.torchhd.dot_similarity(a, b) / self.dim

    def similarity_pairs(self, a: Any, b: Any) -> Any:
        """The similarity of each row pair: rows as batches of one vector each, so that
        torchhd's product pairs them instead of comparing every row with every other."""
        return self.torchhd.dot_similarity(a[:, None, :], b[:, None, :])[:, 0, 0] / self.dim

    def top_k(self, queries: Any, items: Any, k: int) -> Any:
        """The ``k`` most similar items of each query: ``dot_similarity``, then ``torch.topk``."""
        return self.torch.topk(self.torchhd.dot_similarity(queries, items), k, dim=-1)

    def fpe_encoder(self, bandwidth: float = 1.0) -> Any:
        """torchhd's FPE of scalars (``embeddings.FractionalPower``, sinc kernel) on this device:
        ``encode(x)`` of a 1-d tensor of values (its own random phases, not holovec's)."""
        embed = self.torchhd.embeddings.FractionalPower(
            1, self.dim, "sinc", bandwidth, vsa=self.vsa, device=self.device
        )
        return lambda x: embed(x[:, None])
