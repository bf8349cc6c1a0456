"""Exact search on packed bits for binary and bipolar models (the Hamming hooks).

A model with binary (BSC) or bipolar (MAP) vectors can be searched by Hamming distance on
packed bits: for +-1 vectors ``dot(a, b) = dim - 2 * hamming(a, b)`` exactly, and BSC's
similarity is ``1 - 2 * hamming / dim``. Such a model declares ``has_hamming_search`` and
provides the two hooks of the model protocol that :func:`holovec.retrieval.search` and
:class:`~holovec.retrieval.ItemStore` call (see :mod:`holovec.models.protocol`):
``hamming_search_bits(index)`` and ``hamming_similarity(distances)``, from a table of the
similarities of every distance ``0 .. dim`` (computed once per model, by the model's own
formula on the backend, its ``_hamming_table``).

The table must be strictly decreasing, so that ranking by (distance, index) is ranking
by (similarity descending, index): then the search returns exactly what the dense path
returns, ties lowest index first. Where it is not (huge dims), there is no Hamming search.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import kernels


def packed_bytes(dim: int) -> int:
    """Bytes of ``dim`` bits packed in whole 64-bit words."""
    return 8 * -(-dim // 64)


def table(model: Any, make: Callable[[], Any]) -> Any | None:
    """The model's table of similarities (``make()``, made once), or ``None`` where it is
    not strictly decreasing."""
    cache = model.__dict__
    if "_hamming_table_cache" not in cache:
        made = make()
        strict = bool(model.xp.all(made[1:] < made[:-1])) if model.dim > 0 else True
        cache["_hamming_table_cache"] = made if strict else None
    return cache["_hamming_table_cache"]


def usable(model: Any, x: Any, make: Callable[[], Any]) -> bool:
    """Whether a Hamming search pays (a backend with a fast popcount), can read ``x`` (not
    traced) and ranks as the model does (the table is strictly decreasing)."""
    backend = model.backend
    if not kernels.fast_hamming_search(backend) or backend.is_traced(x):
        return False
    return table(model, make) is not None


def similarity(model: Any, make: Callable[[], Any], distances: Any) -> Any:
    """Similarities of Hamming distances (integers in ``0 .. dim``), equal bit for bit to
    the model's search scores of pairs at those distances."""
    xp = model.xp
    scores = table(model, make)
    if scores is None:
        raise ValueError(f"a Hamming search does not rank as {type(model).__name__} does at dim={model.dim}")
    flat = xp.reshape(xp.astype(distances, model.backend.dtype("int32")), (-1,))
    return xp.reshape(xp.take(scores, flat, axis=0), tuple(distances.shape))
