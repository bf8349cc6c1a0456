"""Top-k along the last axis, deterministic: equal scores lowest index first, and merges
of top-k candidates of consecutive ranges of items."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._dispatch import NUMPY, kernel


@kernel
def top_k(backend: Any, scores: Any, k: int) -> tuple[Any, Any]:
    """The ``k`` largest scores along the last axis and their indices, best first; equal
    scores in order of index (lowest first), so results are deterministic.

    This generic version sorts (a stable ``argsort``); the frameworks' versions select
    partially (``argpartition``, ``topk``) and keep the same order.

    Parameters
    ----------
    backend : Backend
        The scores' backend.
    scores : array
        Real scores, ``(..., n)``.
    k : int
        How many (more than ``n``: all).

    Returns
    -------
    tuple of two arrays
        ``(values, indices)``, each ``(..., min(k, n))``.

    Examples
    --------
    >>> import numpy as np
    >>> from holovec.backends import get_backend
    >>> values, indices = top_k(get_backend("numpy"), np.array([0.5, 0.9, 0.5, 0.1]), 3)
    >>> indices.tolist()
    [1, 0, 2]
    """
    xp = backend.xp
    k = min(int(k), scores.shape[-1])
    idx = xp.argsort(scores, axis=-1, descending=True, stable=True)[..., :k]
    return xp.take_along_axis(scores, idx, axis=-1), idx


@kernel
def merge_top_k(backend: Any, low: tuple[Any, Any], high: tuple[Any, Any], k: int) -> tuple[Any, Any]:
    """The ``k`` best of two candidate lists ``(scores, indices)`` (each best first, along the
    last axis), where every index in ``low`` is below every index in ``high`` (two
    consecutive ranges of items): scores descending, equal scores lowest index first, as
    one :func:`top_k` over both ranges would give them.

    Parameters
    ----------
    backend : Backend
        The candidates' backend.
    low : tuple of two arrays
        ``(scores, indices)`` of the lower range.
    high : tuple of two arrays
        ``(scores, indices)`` of the higher range.
    k : int
        How many to keep.

    Returns
    -------
    tuple of two arrays
        ``(scores, indices)``.
    """
    xp = backend.xp
    scores = xp.concat([low[0], high[0]], axis=-1)
    indices = xp.concat([low[1], xp.astype(high[1], low[1].dtype)], axis=-1)
    best, pos = top_k(backend, scores, k)  # stable: low's candidates first among equals
    return best, xp.take_along_axis(indices, pos, axis=-1)


def top_k_from_kth(backend: Any, scores: Any, k: int, kth: Any) -> tuple[Any, Any]:
    """Top-k given the k-th largest score of each row: every score above it, then the
    lowest-index scores equal to it, sorted stably (the tie path of the frameworks' partial
    selections).

    Parameters
    ----------
    backend : Backend
        The scores' backend.
    scores : array
        Real scores, ``(..., n)``.
    k : int
        How many, at most ``n``.
    kth : array
        The k-th largest score of each row, ``(..., 1)``.

    Returns
    -------
    tuple of two arrays
        ``(values, indices)``, each ``(..., k)``.
    """
    xp = backend.xp
    int32 = backend.dtype("int32")
    above = scores > kth
    equal = scores == kth
    need = k - xp.sum(xp.astype(above, int32), axis=-1, keepdims=True)
    take = above | (equal & (xp.cumulative_sum(xp.astype(equal, int32), axis=-1) <= need))
    rows = scores.shape[:-1]
    cols = xp.nonzero(xp.reshape(take, (-1, scores.shape[-1])))[1]
    idx = xp.reshape(cols, (*rows, k))
    values = xp.take_along_axis(scores, idx, axis=-1)
    order = xp.argsort(values, axis=-1, descending=True, stable=True)
    return xp.take_along_axis(values, order, axis=-1), xp.take_along_axis(idx, order, axis=-1)


@top_k.register("numpy")
def _numpy_top_k(backend: Any, scores: Any, k: int) -> tuple[Any, Any]:
    n = scores.shape[-1]
    k = min(int(k), n)
    if k == n or k == 0:
        return top_k.generic(backend, scores, k)
    scores = np.ascontiguousarray(scores)  # rows in cache order (products come transposed)
    idx = np.argpartition(scores, n - k, axis=-1)[..., n - k :]  # O(n), no sort
    values = np.take_along_axis(scores, idx, axis=-1)
    kth = values.min(axis=-1, keepdims=True)
    if not ((scores >= kth).sum(axis=-1) == k).all():
        return top_k_from_kth(backend, scores, k, kth)  # ties at the k-th score: lowest index
    order = np.lexsort((idx, -values), axis=-1)  # by score, then by index
    return np.take_along_axis(values, order, axis=-1), np.take_along_axis(idx, order, axis=-1)


@top_k.register("torch")
def _torch_top_k(backend: Any, scores: Any, k: int) -> tuple[Any, Any]:
    import torch

    n = scores.shape[-1]
    k = min(int(k), n)
    if k == n or k == 0:
        return top_k.generic(backend, scores, k)
    values, idx = torch.topk(scores, k, dim=-1)  # best first; order among ties unspecified
    kth = values[..., -1:]
    if not bool(((scores >= kth).sum(dim=-1) == k).all()):
        return top_k_from_kth(backend, scores, k, kth)  # ties at the k-th score: lowest index
    by_index = torch.argsort(idx, dim=-1)
    values, idx = values.gather(-1, by_index), idx.gather(-1, by_index)
    order = torch.argsort(values, dim=-1, descending=True, stable=True)
    return values.gather(-1, order), idx.gather(-1, order)


@top_k.register("jax")
def _jax_top_k(backend: Any, scores: Any, k: int) -> tuple[Any, Any]:
    import jax

    n = scores.shape[-1]
    k = min(int(k), n)
    if k == n or k == 0:
        return top_k.generic(backend, scores, k)
    return jax.lax.top_k(scores, k)  # documented: equal values, lower index first


# Dask: NumPy's, per chunk of rows
@top_k.register("dask")
def _dask_top_k(backend: Any, scores: Any, k: int) -> tuple[Any, Any]:
    import dask.array as da

    from ..backends.dask_namespace import row_chunked

    k = min(int(k), scores.shape[-1])
    scores = row_chunked(scores)
    return da.apply_gufunc(
        _top_k_block,
        "(n)->(k),(k)",
        scores,
        k=k,  # a keyword: a positional one would count as a second array
        output_dtypes=(scores.dtype, np.int64),
        output_sizes={"k": k},
        vectorize=False,
        allow_rechunk=False,
    )


@merge_top_k.register("dask")
def _dask_merge_top_k(backend: Any, low: tuple[Any, Any], high: tuple[Any, Any], k: int) -> tuple[Any, Any]:
    import dask.array as da

    from ..backends.dask_namespace import row_chunked

    pieces = [row_chunked(a) for a in (*low, *high)]
    k = min(int(k), low[0].shape[-1] + high[0].shape[-1])
    return da.apply_gufunc(
        _merge_top_k_block,
        "(a),(a),(b),(b)->(k),(k)",
        *pieces,
        k=k,
        output_dtypes=(np.result_type(low[0].dtype, high[0].dtype), np.int64),
        output_sizes={"k": k},
        allow_rechunk=False,
    )


def _top_k_block(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    s, i = _numpy_top_k(NUMPY, scores, k)
    return s, i.astype(np.int64, copy=False)


def _merge_top_k_block(
    ls: np.ndarray, li: np.ndarray, hs: np.ndarray, hi: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    s, i = merge_top_k(NUMPY, (ls, li.astype(np.int64)), (hs, hi), k)
    return s, i.astype(np.int64, copy=False)
