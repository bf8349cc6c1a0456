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
_MODELS = {"FHRR": "complex64", "MAP": "float32", "BSC": "uint8"}


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

    def __init__(self, model: str, dim: int, device: Any = None) -> None:
        import torch
        import torchhd

        self.torch, self.torchhd = torch, torchhd
        self.vsa = model.upper()
        self.dim = dim
        self.device = torch.device("cpu" if device is None else device)
        self.dtype = getattr(torch, _MODELS[self.vsa])
        self.tensor_class = torchhd.functional.get_vsa_tensor_class(self.vsa)
        self.wait = waiter("torch", self.device)

    @staticmethod
    def supports(model: str) -> bool:
        return model.upper() in _MODELS

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
        return t.to(self.device).as_subclass(self.tensor_class)

    def random(self, n: int, seed: int) -> Any:
        generator = self.torch.Generator(device=self.device).manual_seed(seed)
        return self.torchhd.random(
            n, self.dim, self.vsa, generator=generator, dtype=self.dtype, device=self.device
        )

    def bind(self, a: Any, b: Any) -> Any:
        return self.torchhd.bind(a, b)

    def bundle(self, vectors: Any) -> Any:
        total = self.torchhd.multiset(vectors)  # BSC: already the majority
        return total if self.vsa == "BSC" else self.torchhd.normalize(total)

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
