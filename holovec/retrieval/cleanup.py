"""Cleanup: map noisy vectors to codebook items, hard (nearest) or soft (attention).

:func:`cleanup` gives back *vectors* (the items themselves, or their weighted
superposition); :meth:`ItemStore.query <holovec.retrieval.ItemStore.query>` and the
encoders' :meth:`SymbolCodebook.cleanup <holovec.encoders.SymbolCodebook.cleanup>` give
back ``(label, similarity)`` pairs.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import kernels
from .._params import FINITE, POSITIVE_INT
from ..backends import DTYPE_KINDS
from ..models.base import CHUNK_BYTES, VSAModel
from ._checks import check_finite, claim_codebook
from ._index import SearchIndex, placed, search_vectors
from .codebook import Codebook

__all__ = ["cleanup"]


def _items(model: VSAModel, codebook: Any) -> tuple[Any, bool]:
    """The codebook's vectors, and whether they still need the finite check (a
    :class:`Codebook` checked them when they were added)."""
    if isinstance(codebook, Codebook):
        claim_codebook(model, codebook, "the codebook", "the model given to cleanup")
        if len(codebook) == 0:
            raise ValueError("cannot clean up against an empty codebook")
        return codebook.vectors, False
    items = model.check(codebook, "codebook")
    if items.ndim != 2:
        raise ValueError(
            f"codebook must be a Codebook or a 2-d array (n, {model.vector_length}), "
            f"got shape {tuple(items.shape)}"
        )
    if items.shape[0] == 0:
        raise ValueError("cannot clean up against an empty codebook: there is no item to map to")
    return items, True


def _check_temperature(temperature: Any) -> float:
    """A positive number; ``inf`` (all items weighted alike) too."""
    if isinstance(temperature, (float, np.floating)) and math.isinf(temperature) and temperature > 0:
        return math.inf
    value = FINITE.check("temperature", temperature)
    if not value > 0:
        raise ValueError(f"temperature must be a positive number, got {temperature!r}")
    return value


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
    (attention), projected back with ``model.normalize``. As ``temperature`` goes to 0
    the weights go to those of the most similar items (hard cleanup, tied items blended);
    every positive temperature works, however small. No noisy vectors (a batch of 0)
    give an empty batch; an empty codebook raises ``ValueError``.

    Returns vectors of the model, of the shape of ``noisy``: the items themselves, not
    their labels. For labels, search with :class:`~holovec.retrieval.ItemStore`
    (``query`` gives ``(label, similarity)`` pairs, as the encoders'
    :meth:`SymbolCodebook.cleanup <holovec.encoders.SymbolCodebook.cleanup>` does).

    Parameters
    ----------
    model : VSAModel
        The model of the vectors.
    noisy : array
        Noisy vectors ``(..., vector_length)``.
    codebook : Codebook | object
        A :class:`Codebook`, or vectors ``(n, vector_length)``.
    soft : bool, optional
        Whether to return the similarity-weighted superposition of the items (softmax at
        ``temperature``) instead of the nearest item.
    temperature : float, optional
        The softmax temperature of ``soft``.
    chunk_size : int, optional
        Items per chunk of the search; ``None`` for a chunk that bounds the memory.

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
    items, unchecked = _items(model, codebook)
    model.check(noisy, "noisy")
    noisy, items = placed(model, noisy, items)  # copies of replicated arrays on one device
    backend = model.backend
    if soft:
        temperature = _check_temperature(temperature)
    if chunk_size is not None:
        chunk_size = POSITIVE_INT.check("chunk_size", chunk_size)
    # a partitioned codebook (Dask) is checked where its parts are searched, in one pass
    partitioned = not soft and kernels.block_backend_name(model.backend) is not None
    if unchecked and not partitioned:
        check_finite(model, items, "codebook")
    xp = model.xp
    if math.prod(noisy.shape[:-1]) == 0:  # no vectors: nothing to clean up
        return xp.zeros(noisy.shape, dtype=model.dtype, device=model.device)
    if not soft:  # the search checks that the noisy vectors are finite
        _, idx = search_vectors(
            model,
            noisy,
            items,
            1,
            chunk_size,
            check_items=unchecked and partitioned,
            name="noisy",
            items_name="codebook",
        )
        flat = xp.reshape(idx, (-1,))
        if kernels.is_partitioned(backend, items) and not backend.lazy:
            # sharded JAX: the rows gathered from the devices that hold them (a lazy graph,
            # Dask's, takes them where they are)
            return xp.reshape(kernels.take_rows(backend, items, backend.to_numpy(flat)), noisy.shape)
        return xp.reshape(xp.take(items, flat, axis=0), noisy.shape)
    check_finite(model, noisy, "noisy")
    # items split over devices: the noisy vectors meet them there (one computation spans
    # both), and the result comes back to the model's device
    mixed = _soft_cleanup(
        model, kernels.replicated_like(backend, noisy, items), items, temperature, chunk_size
    )
    return kernels.in_one_place(backend, mixed)


def _soft_cleanup(model: VSAModel, noisy: Any, items: Any, temperature: float, chunk_size: int | None) -> Any:
    """The attention-weighted superposition, one chunk of items at a time with a running
    softmax (the maximum similarity so far rescales what is summed), so that memory stays
    ``n_noisy x chunk`` plus one chunk of items as floats, however large the codebook.

    The weights are ``exp((s - max) / temperature)``: the maximum is subtracted before the
    division, so that a tiny temperature gives 0 for every item below the maximum and 1 at
    it (never ``inf / inf``), and the inverse temperature is capped where its product with
    a similarity difference (at most 2) would overflow the dtype."""
    xp, backend = model.xp, model.backend
    kind = DTYPE_KINDS[model.dtype_name]
    unpacked = model.has_packed_form  # packed bits (pack, unpack): mixed unpacked
    queries = model.search_index(xp.reshape(noisy, (-1, model.vector_length)))
    index = SearchIndex(model, items)
    n_q = queries[0].shape[0]
    real = model.real_dtype
    cap = float(np.finfo(model.real_dtype_name).max) / 8
    inverse = cap if temperature * cap < 1 else 1.0 / temperature
    if chunk_size is None:
        width = model.dim * (16 if kind == "complex" else 8)
        chunk_size = max(1, CHUNK_BYTES // (8 * n_q + width))
    top = total = mixed = None
    for j, (first, last, _) in enumerate(index.blocks):
        for start in range(0, last - first, chunk_size):
            stop = min(start + chunk_size, last - first)
            scores = xp.astype(model.search_scores(queries, index.part(j, start, stop)), real)
            chunk_top = xp.max(scores, axis=-1)
            new_top = chunk_top if top is None else xp.maximum(top, chunk_top)
            weights = xp.exp((scores - new_top[:, None]) * inverse)
            basis = items[first + start : first + stop]
            basis = model.unpack(basis) if unpacked else basis
            if kind == "complex":
                weights_c = kernels.complex(backend, weights, xp.zeros_like(weights))
                part = kernels.matmul(backend, weights_c, xp.astype(basis, weights_c.dtype))
            else:
                part = kernels.matmul(backend, weights, xp.astype(basis, real))
            if top is None:
                total, mixed = xp.sum(weights, axis=-1), part
            else:
                rescale = xp.exp((top - new_top) * inverse)
                total = total * rescale + xp.sum(weights, axis=-1)
                rescale = (
                    rescale
                    if kind != "complex"
                    else kernels.complex(backend, rescale, xp.zeros_like(rescale))
                )
                mixed = mixed * rescale[:, None] + part
            top = new_top
    if kind == "complex":
        total = kernels.complex(backend, total, xp.zeros_like(total))
    mixed = xp.reshape(mixed / total[:, None], (*noisy.shape[:-1], mixed.shape[-1]))
    if kind in ("float", "complex"):
        return model.normalize(xp.astype(mixed, model.dtype))
    # binary 0/1 codes: a weighted majority of the bits
    bits = xp.astype(mixed > 0.5, items.dtype)
    return model.pack(bits) if unpacked else model.normalize(bits)
