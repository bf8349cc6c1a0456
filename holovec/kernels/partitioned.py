"""Arrays split over workers or devices (Dask chunks, JAX arrays sharded by rows): where
rows are made, gathered and searched. Every generic version is that of an array in one
place."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ._dispatch import kernel


@kernel
def block_backend_name(backend: Any) -> str | None:
    """The backend whose arrays the chunks of this backend's arrays are, where its arrays are
    partitioned into chunks of another framework computed elsewhere (Dask: NumPy chunks on
    workers); ``None``: this backend's arrays are its own blocks.

    Parameters
    ----------
    backend : Backend
        The backend asked.

    Returns
    -------
    str or None
        A backend name, or ``None``.
    """
    return None


@kernel
def generate_rows(backend: Any, fn: Callable, n_rows: int, width: int, dtype: Any) -> Any | None:
    """Rows ``0 .. n_rows - 1`` of a draw, ``(n_rows, width)`` of ``dtype``, made chunk by chunk
    where the chunks live; or ``None`` where the backend makes its arrays in one place (the
    caller then draws them itself). The hook of :meth:`holovec.models.base.VSAModel.random`
    for lazily partitioned arrays (Dask): nothing is made where the call is made.

    Parameters
    ----------
    backend : Backend
        The backend of the rows.
    fn : callable
        ``fn(start, stop)``: rows ``start:stop`` as an array of :func:`block_backend_name`
        (picklable).
    n_rows : int
        The rows.
    width : int
        The row length.
    dtype : dtype
        The rows' dtype.

    Returns
    -------
    array or None
        The rows, or ``None``.
    """
    return None


@kernel
def chunk_rows(backend: Any, x: Any, row_bytes: int) -> Any:
    """``x`` with its rows (axis 0) grouped so that a result of ``row_bytes`` bytes per row
    stays within one chunk's budget, on backends that partition arrays into chunks (Dask: an
    encoder's inputs, a few bytes per row, would otherwise come in chunks of millions of
    rows, each encoded at once); ``x`` itself on the others.

    Parameters
    ----------
    backend : Backend
        The array's backend.
    x : array
        Rows on axis 0.
    row_bytes : int
        Bytes of a result row.

    Returns
    -------
    array
        ``x``, rechunked where needed.
    """
    return x


@kernel
def take_rows(backend: Any, x: Any, rows: Any) -> Any:
    """Rows ``rows`` of ``x``, concrete and in one place: the rows of a partitioned array
    (Dask, sharded JAX) are gathered here.

    Parameters
    ----------
    backend : Backend
        The array's backend.
    x : array
        Rows on axis 0.
    rows : numpy.ndarray
        1-d int indices.

    Returns
    -------
    array
        The rows.
    """
    return backend.xp.take(x, backend.asarray(rows), axis=0)


@kernel
def is_partitioned(backend: Any, x: Any) -> bool:
    """Whether ``x`` is split by rows over workers or devices, so that a search of it is
    :func:`partitioned_search` (Dask arrays, JAX arrays sharded by rows).

    Parameters
    ----------
    backend : Backend
        The array's backend.
    x : array
        Any array of the backend.

    Returns
    -------
    bool
        Whether it is partitioned.
    """
    return False


@kernel
def in_one_place(backend: Any, x: Any) -> Any:
    """``x`` as one array on the backend's device, where the framework can hold an array on
    several devices (JAX): an array replicated over several devices becomes its copy on this
    one (no transfer), one split over several is gathered here; ``x`` itself where it is in
    one place. Retrieval takes replicated codebooks and queries this way, and brings results
    computed over several devices here.

    Parameters
    ----------
    backend : Backend
        The array's backend.
    x : array
        Any array of the backend.

    Returns
    -------
    array
        ``x`` in one place.
    """
    return x


@kernel
def replicated_like(backend: Any, x: Any, like: Any) -> Any:
    """``x`` replicated over the devices that ``like`` is split over (JAX: queries made to
    meet a codebook sharded by rows, so that one computation spans both), or ``x`` itself
    where ``like`` is in one place.

    Parameters
    ----------
    backend : Backend
        The arrays' backend.
    x : array
        The array replicated.
    like : array
        The partitioned array.

    Returns
    -------
    array
        ``x``, replicated where needed.
    """
    return x


@kernel
def shard_rows(backend: Any, x: Any, mesh: Any = None, axis_name: str = "rows") -> Any:
    """``x`` split by rows over the devices of a mesh (JAX; see
    :func:`holovec.retrieval.shard_rows`); ``TypeError`` on backends without device meshes.

    Parameters
    ----------
    backend : Backend
        The array's backend.
    x : array
        Rows on axis 0.
    mesh : jax.sharding.Mesh, optional
        The mesh (default: every device).
    axis_name : str, optional
        The mesh axis of the rows.

    Returns
    -------
    array
        The sharded array.
    """
    raise TypeError(f"the {backend.name} backend has no device meshes; shard_rows is for JAX arrays")


@kernel
def partitioned_search(
    backend: Any, search_part: Callable, queries: Any, items: Any, k: int
) -> tuple[Any, Any] | None:
    """The search of :func:`holovec.retrieval.search` for items spread over workers or
    devices (:func:`is_partitioned`): ``(scores, indices)`` of the ``k`` best items of each
    query, or ``None`` where ``items`` is one array in one place (the caller then searches
    it itself).

    A backend whose arrays can be partitioned by rows searches each part where it lives,
    shifts the indices by the part's first row, and keeps the ``k`` best candidates with
    equal scores ordered by lowest index (Dask: merges of neighbouring chunks in a tree,
    ``search_part`` pickled to the workers; JAX: ``search_part`` traced once and run on
    every device in ``shard_map``, then one stable top-k over the devices' candidates in
    device order). The result equals one search of the whole array, ties included, however
    the rows are split.

    Parameters
    ----------
    backend : Backend
        The arrays' backend.
    search_part : callable
        ``search_part(queries, part, k, first_row) -> (scores, indices)``: the caller's
        search of one array, indices counted within the part (``first_row`` numbers the
        rows an error names).
    queries : array
        The queries.
    items : array
        The partitioned items.
    k : int
        How many.

    Returns
    -------
    tuple of two arrays, or None
        ``(scores, indices)``, or ``None``.
    """
    return None


# -- JAX: arrays sharded by rows over a mesh (jax_sharded) --------------------------------
def _sharded_over_devices(backend: Any, x: Any) -> bool:
    return not backend.is_traced(x) and len(getattr(getattr(x, "sharding", None), "device_set", ())) >= 2


@take_rows.register("jax")
def _jax_take_rows(backend: Any, x: Any, rows: Any) -> Any:
    if is_partitioned(backend, x):  # sharded over a mesh, perhaps of several processes
        from .jax_sharded import gather_rows

        return gather_rows(x, np.asarray(rows), backend.device)
    return backend.xp.take(x, backend.xp.asarray(rows), axis=0)


@in_one_place.register("jax")
def _jax_in_one_place(backend: Any, x: Any) -> Any:
    if not _sharded_over_devices(backend, x):
        return x
    from .jax_sharded import in_one_place as gathered

    return gathered(x, backend.device)


@replicated_like.register("jax")
def _jax_replicated_like(backend: Any, x: Any, like: Any) -> Any:
    if backend.is_traced(x) or backend.is_traced(like) or not is_partitioned(backend, like):
        return x
    from .jax_sharded import replicated

    return replicated(x, like.sharding.mesh)


@is_partitioned.register("jax")
def _jax_is_partitioned(backend: Any, x: Any) -> bool:
    if not _sharded_over_devices(backend, x):
        return False  # one device: no need to look further (or import the module)
    from .jax_sharded import row_axes

    return row_axes(x) is not None


@shard_rows.register("jax")
def _jax_shard_rows(backend: Any, x: Any, mesh: Any = None, axis_name: str = "rows") -> Any:
    from .jax_sharded import shard_rows as sharded

    return sharded(x, mesh, axis_name)


@partitioned_search.register("jax")
def _jax_partitioned_search(
    backend: Any, search_part: Callable, queries: Any, items: Any, k: int
) -> tuple[Any, Any] | None:
    # a top-k on each device and a merge of only k candidates per device and query
    from .jax_sharded import sharded_search

    return sharded_search(search_part, queries, items, k, backend.device)


# -- Dask: NumPy chunks on the workers (dask_search) --------------------------------------
@block_backend_name.register("dask")
def _dask_block_backend_name(backend: Any) -> str:
    return "numpy"


@generate_rows.register("dask")
def _dask_generate_rows(backend: Any, fn: Callable, n_rows: int, width: int, dtype: Any) -> Any:
    import dask.array as da

    from ..backends.dask_backend import row_chunks

    # one map_blocks layer, however many chunks: chunk [start, stop) is fn(start, stop),
    # computed on the worker that needs it
    dtype = np.dtype(dtype)
    chunks = (row_chunks(n_rows, width * dtype.itemsize), (width,))
    return da.map_blocks(_rows_block, fn, dtype=dtype, chunks=chunks, meta=np.empty((0, 0), dtype=dtype))


def _rows_block(fn: Callable, block_info: dict | None = None) -> np.ndarray:
    """One chunk of a row draw, made on the worker: the rows its place in the array names."""
    (start, stop), _ = block_info[None]["array-location"]
    return np.asarray(fn(start, stop))


@chunk_rows.register("dask")
def _dask_chunk_rows(backend: Any, x: Any, row_bytes: int) -> Any:
    import dask.array as da

    from ..backends.dask_backend import row_chunks

    if not isinstance(x, da.Array) or x.ndim == 0:
        return x
    rows = row_chunks(x.shape[0], row_bytes)[0]
    return x.rechunk({0: rows}) if max(x.chunks[0], default=0) > rows else x


@take_rows.register("dask")
def _dask_take_rows(backend: Any, x: Any, rows: Any) -> Any:
    # gathered from the chunks that hold them, computed (a few rows, not a graph)
    return backend.from_numpy(backend.to_numpy(x[np.asarray(rows)]))


@is_partitioned.register("dask")
def _dask_is_partitioned(backend: Any, x: Any) -> bool:
    import dask.array as da

    return isinstance(x, da.Array)


@partitioned_search.register("dask")
def _dask_partitioned_search(
    backend: Any, search_part: Callable, queries: Any, items: Any, k: int
) -> tuple[Any, Any] | None:
    import dask.array as da

    from ..backends.dask_namespace import row_chunked
    from . import dask_search

    if not isinstance(items, da.Array):
        return None
    q = backend.to_numpy(queries)
    batch = q.shape[:-1]
    q = q.reshape(-1, q.shape[-1])
    s, i = dask_search.partitioned_top_k(search_part, q, row_chunked(items), k)
    kk = s.shape[-1]
    return backend.from_numpy(s.reshape(*batch, kk)), backend.from_numpy(i.reshape(*batch, kk))
