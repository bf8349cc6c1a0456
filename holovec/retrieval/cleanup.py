"""Cleanup: map noisy vectors to codebook items, hard (nearest) or soft (attention)."""

from __future__ import annotations

from typing import Any

from ..backends import DTYPE_KINDS
from ..models.base import VSAModel
from .codebook import Codebook
from .store import search

__all__ = ["cleanup"]


def _items(model: VSAModel, codebook: Any) -> Any:
    if isinstance(codebook, Codebook):
        if codebook.model is not model:
            raise ValueError("the codebook belongs to another model")
        if len(codebook) == 0:
            raise ValueError("cannot clean up against an empty codebook")
        return codebook.vectors
    return model._check(codebook, "codebook")


def cleanup(
    model: VSAModel,
    noisy: Any,
    codebook: Codebook | Any,
    *,
    soft: bool = False,
    temperature: float = 0.05,
    chunk_size: int | None = None,
) -> Any:
    """Clean up noisy vectors ``(..., vector_length)`` against a codebook, batched.

    Hard (default): each vector becomes its most similar item (ties: lowest index).
    Soft: the superposition of all items weighted by ``softmax(similarity / temperature)``
    (attention), projected back with ``model.normalize``.

    Examples
    --------
    >>> from holovec import VSA
    >>> from holovec.retrieval import Codebook, cleanup
    >>> model = VSA.create("MAP", dim=2000)
    >>> book = Codebook.from_seed(model, range(10), seed=3)
    >>> noisy = model.bundle([book[4], book[4], model.random(seed=9)])
    >>> bool((cleanup(model, noisy, book) == book[4]).all())
    True
    """
    items = _items(model, codebook)
    model._check(noisy, "noisy")
    xp = model.xp
    if not soft:
        _, idx = search(model, noisy, items, 1, chunk_size=chunk_size)
        flat = xp.reshape(idx, (-1,))
        return xp.reshape(xp.take(items, flat, axis=0), noisy.shape)
    if not (isinstance(temperature, (int, float)) and temperature > 0):
        raise ValueError(f"temperature must be a positive number, got {temperature!r}")
    sims = model.similarity_matrix(noisy, items)  # (..., n_items)
    sims = xp.astype(sims, model.backend.dtype("float32")) if sims.dtype != xp.float64 else sims
    logits = sims / temperature
    logits = logits - xp.max(logits, axis=-1, keepdims=True)
    weights = xp.exp(logits)
    weights = weights / xp.sum(weights, axis=-1, keepdims=True)
    kind = DTYPE_KINDS[model.dtype_name]
    unpacked = hasattr(model, "unpack") and hasattr(model, "pack")
    basis = model.unpack(items) if unpacked else items
    if kind == "complex":
        w = model.backend.complex(weights, xp.zeros_like(weights))
        mixed = w @ xp.astype(basis, w.dtype) if basis.dtype != w.dtype else w @ basis
        return model.normalize(xp.astype(mixed, model.dtype))
    mixed = weights @ xp.astype(basis, weights.dtype)
    if kind == "float":
        return model.normalize(xp.astype(mixed, model.dtype))
    # binary 0/1 codes: a weighted majority of the bits
    bits = xp.astype(mixed > 0.5, basis.dtype)
    return model.pack(bits) if unpacked else model.normalize(bits)
