"""What the collections (multiset, hash table, sequences) share: items given as labels or
vectors, cleanup among the labels seen, permutations of a sum, and the capacity planner."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from .. import kernels
from .._params import FINITE, POSITIVE_INT
from ..encoders import SymbolCodebook, SymbolTable


def is_vector_like(x: Any) -> bool:
    """Whether ``x`` is meant as a vector (an array of any framework), not a label."""
    return hasattr(x, "shape") and hasattr(x, "dtype") and not isinstance(x, np.generic)


def check_vector(model: Any, x: Any, name: str) -> Any:
    """``x`` if it is one vector of ``model`` (backend, dtype, shape and values), else a
    ``TypeError``/``ValueError`` naming ``name`` and what is expected."""
    model.check(x, name)
    if tuple(x.shape) != (model.vector_length,):
        raise ValueError(
            f"{name}: expected one vector of shape ({model.vector_length},), got shape {tuple(x.shape)}"
        )
    return model.check_values(x, name)


def label_vectors(table: SymbolTable, labels: list[Any], remember: bool = True) -> Any:
    """The vectors of ``labels`` from ``table``; without ``remember``, labels the table has
    not seen are drawn without joining it (a query does not make a label a candidate)."""
    if remember or all(label in table for label in labels):
        return table.vectors(labels)
    return table.draw(labels)


def item_vectors(model: Any, table: SymbolTable, items: list[Any], what: str, remember: bool = True) -> Any:
    """The vectors ``(n, vector_length)`` of ``items``, each a label of ``table`` or a vector
    of the model; the labels' vectors are drawn together (see :func:`label_vectors`)."""
    labelled = [i for i, x in enumerate(items) if not is_vector_like(x)]
    if len(labelled) == len(items):
        return label_vectors(table, items, remember)
    given = {i: check_vector(model, x, f"{what} {i}") for i, x in enumerate(items) if is_vector_like(x)}
    drawn = label_vectors(table, [items[i] for i in labelled], remember) if labelled else None
    where = {i: j for j, i in enumerate(labelled)}
    rows = [given[i] if i in given else drawn[where[i]] for i in range(len(items))]
    return model.xp.stack(rows)


def item_vector(model: Any, table: SymbolTable, item: Any, what: str) -> Any:
    """One item's vector ``(vector_length,)`` (a label of ``table``, or a vector)."""
    return check_vector(model, item, what) if is_vector_like(item) else table[item]


def codebook(table: SymbolTable, candidates: Iterable[Any] | None, what: str) -> SymbolCodebook:
    """The codebook a decode searches: ``candidates``, else every label ``table`` has seen."""
    if isinstance(candidates, SymbolCodebook):
        if candidates.model != table.model:
            raise ValueError("candidates must be a codebook of the structure's model")
        return candidates
    if candidates is not None:  # drawn apart: candidates given do not join the labels seen
        labels = list(candidates)
        source = SymbolTable(table.model, seed=table.seed, namespace=table.namespace, cache=False)
        if not labels:
            raise ValueError(f"candidates is empty: give the {what} to decode among")
        return source.codebook(labels)
    labels = table.labels
    if not labels:
        raise ValueError(
            f"no {what} to decode among: add some labelled {what} first, or pass candidates=[...]"
        )
    return table.codebook(labels)


def real_dot(model: Any, x: Any, y: Any) -> Any:
    """``Re(sum(conj(x) * y))`` over the last axis (lifted forms)."""
    dots = kernels.vecdot(model.backend, x, y)
    return model.xp.real(dots) if model.xp.isdtype(dots.dtype, "complex floating") else dots


def permute_rows(model: Any, x: Any, shifts: np.ndarray) -> Any:
    """Row ``i`` of ``x`` ``(n, L)`` permuted by ``shifts[i]`` (host ints, any sign): one
    permutation of the block per bit of the largest shift and sign (few distinct shifts,
    which compiling backends compile once each)."""
    xp = model.xp
    shifts = np.asarray(shifts, dtype=np.int64)
    out = x
    for sign in (1, -1):
        magnitude = np.where(np.sign(shifts) == sign, np.abs(shifts), 0)
        bit = 0
        while (magnitude >> bit).any():
            mask = ((magnitude >> bit) & 1).astype(bool)
            if mask.any():
                keep = model.backend.asarray(mask)[:, None]
                out = xp.where(keep, model.permute(out, sign * (1 << bit)), out)
            bit += 1
    return out


def permute_sums(model: Any, sums: Any, shift: int, cache: dict[int, Any]) -> Any:
    """``sums`` ``(..., dim)`` (a lifted sum) under the model's permutation by ``shift``:
    ``permute_sums(sum(lift(x))) == sum(lift(permute(x)))``.

    Where the sum has the vectors' dtype and layout, ``model.permute`` itself; else (bits,
    16-bit floats) the permutation as an index map of the elements, read off once per shift
    by permuting the binary digits of the element indices (``ceil(log2 dim)`` vectors
    whose elements are 0 and 1) and cached in ``cache``."""
    xp = model.xp
    shift = int(shift) % model.dim
    if shift == 0:
        return sums
    if sums.dtype == model.dtype and model.vector_length == model.dim:
        return model.permute(sums, shift)
    if shift not in cache:
        bits = max(1, math.ceil(math.log2(model.dim)))
        digits = (np.arange(model.dim)[None, :] >> np.arange(bits)[:, None]) & 1  # (bits, dim)
        elements = xp.astype(model.backend.asarray(digits.astype(np.uint8)), model.dtype)
        moved = model.backend.to_numpy(model.elements(model.permute(model.from_elements(elements), shift)))
        source = (np.real(moved).round().astype(np.int64) << np.arange(bits)[:, None]).sum(axis=0)
        cache[shift] = model.backend.asarray(source.astype(np.int64))  # element j comes from source[j]
    return xp.take(sums, cache[shift], axis=-1)


def distinct(table: SymbolTable, labels: Iterable[Any]) -> list[Any]:
    """``labels`` without repeats, in the order first seen; labels are the same when their
    symbols are (their digests: ``1``, ``1.0`` and ``True`` are three labels, which a dict
    would take for one)."""
    first: dict[int, Any] = {}
    for label in labels:
        first.setdefault(table.digest(label), label)
    return list(first.values())


def n_candidates_or(n_candidates: Any, default: int) -> int:
    """``n_candidates`` checked (an int >= 1), else ``default`` (at least 1)."""
    return max(default, 1) if n_candidates is None else POSITIVE_INT.check("n_candidates", n_candidates)


def planned_accuracy(model: Any, n_candidates: int, k: int, query: str) -> float:
    """The planner's accuracy for ``k`` items among ``n_candidates`` at the model's dim
    (1.0 for an empty structure). A member query bundles ``k`` of its candidates, so they
    are at least ``k``; a lookup stores ``k`` pairs whose values are any of the candidates."""
    from .. import capacity

    if k == 0:
        return 1.0
    n = max(n_candidates, k) if query == "member" else n_candidates
    return float(capacity.accuracy(model, model.dim, n, k, query=query))


def planned_capacity(model: Any, n_candidates: int, accuracy: float, query: str) -> int:
    """The planner's largest number of items decoded with ``accuracy`` among
    ``n_candidates`` at the model's dim."""
    from .. import capacity

    FINITE.check("accuracy", accuracy)
    return int(capacity.max_items(model, model.dim, n_candidates, accuracy, query=query))
