"""Cleanup: map noisy vectors to codebook items, hard (nearest) or soft (attention)."""

from __future__ import annotations

from typing import Any

from ..backends import DTYPE_KINDS
from ..models.base import CHUNK_BYTES, VSAModel
from .codebook import Codebook, _check_same_model
from .store import search

__all__ = ["cleanup"]


def _items(model: VSAModel, codebook: Any) -> Any:
    if isinstance(codebook, Codebook):
        _check_same_model(model, codebook, "the codebook", "the model given to cleanup")
        if len(codebook) == 0:
            raise ValueError("cannot clean up against an empty codebook")
        return codebook.vectors
    return model.check(codebook, "codebook")


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
    model.check(noisy, "noisy")
    xp = model.xp
    if not soft:
        _, idx = search(model, noisy, items, 1, chunk_size=chunk_size)
        flat = xp.reshape(idx, (-1,))
        return xp.reshape(xp.take(items, flat, axis=0), noisy.shape)
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not temperature > 0:
        raise ValueError(f"temperature must be a positive number, got {temperature!r}")
    if chunk_size is not None and (
        isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1
    ):
        raise ValueError(f"chunk_size must be a positive int, got {chunk_size!r}")
    return _soft_cleanup(model, noisy, items, float(temperature), chunk_size)


def _soft_cleanup(model: VSAModel, noisy: Any, items: Any, temperature: float, chunk_size: int | None) -> Any:
    """The attention-weighted superposition, one chunk of items at a time with a running
    softmax (the maximum logit so far rescales what is summed), so that memory stays
    ``n_noisy x chunk`` plus one chunk of items as floats, however large the codebook."""
    xp, backend = model.xp, model.backend
    kind = DTYPE_KINDS[model.dtype_name]
    unpacked = hasattr(model, "unpack") and hasattr(model, "pack")
    queries = model.search_index(xp.reshape(noisy, (-1, model.vector_length)))
    index = model.search_index(items)
    n_q, n_items = queries[0].shape[0], items.shape[0]
    real = backend.dtype("float64" if model.dtype_name in ("float64", "complex128") else "float32")
    if chunk_size is None:
        width = model.dim * (16 if kind == "complex" else 8)
        chunk_size = max(1, CHUNK_BYTES // (8 * n_q + width))
    top = total = mixed = None
    for start in range(0, n_items, chunk_size):
        stop = min(start + chunk_size, n_items)
        logits = xp.astype(model.search_scores(queries, tuple(a[start:stop] for a in index)), real)
        logits = logits / temperature
        chunk_top = xp.max(logits, axis=-1)
        new_top = chunk_top if top is None else xp.maximum(top, chunk_top)
        weights = xp.exp(logits - new_top[:, None])
        basis = items[start:stop]
        basis = model.unpack(basis) if unpacked else basis
        if kind == "complex":
            weights_c = backend.complex(weights, xp.zeros_like(weights))
            part = weights_c @ xp.astype(basis, weights_c.dtype)
        else:
            part = weights @ xp.astype(basis, real)
        if top is None:
            total, mixed = xp.sum(weights, axis=-1), part
        else:
            rescale = xp.exp(top - new_top)
            total = total * rescale + xp.sum(weights, axis=-1)
            rescale = rescale if kind != "complex" else backend.complex(rescale, xp.zeros_like(rescale))
            mixed = mixed * rescale[:, None] + part
        top = new_top
    if kind == "complex":
        total = backend.complex(total, xp.zeros_like(total))
    mixed = xp.reshape(mixed / total[:, None], (*noisy.shape[:-1], mixed.shape[-1]))
    if kind in ("float", "complex"):
        return model.normalize(xp.astype(mixed, model.dtype))
    # binary 0/1 codes: a weighted majority of the bits
    bits = xp.astype(mixed > 0.5, items.dtype)
    return model.pack(bits) if unpacked else model.normalize(bits)
