"""Rows that grow (:class:`holovec.kernels.growth.RowBuffer`): written into the spare rows
of a buffer in place, or, where arrays are lazy graphs (Dask), kept as blocks and joined."""

from __future__ import annotations

import math
from typing import Any

from ._dispatch import kernel


@kernel
def writes_rows(backend: Any) -> bool:
    """Whether :func:`write_rows` writes into the spare rows of a buffer; False where arrays
    are lazy task graphs (Dask), whose growing rows are kept as blocks (:func:`join_rows`).

    Parameters
    ----------
    backend : Backend
        The backend asked.

    Returns
    -------
    bool
        Whether rows are written in place.
    """
    return True


@kernel
def write_rows(backend: Any, buffer: Any, start: int, rows: Any) -> Any:
    """``rows`` ``(n, ...)`` written over ``buffer[start:start + n]`` in place (slice
    assignment, NumPy and torch), ``start + n`` at most ``buffer.shape[0]``; returns the
    buffer that holds them: ``buffer`` itself here. A framework whose arrays are immutable
    returns a new array and may invalidate ``buffer`` (JAX donates it to one compiled
    program, its rows padded to a power of two so that one program serves every count up to
    it), so a caller keeps only the array returned.

    Parameters
    ----------
    backend : Backend
        The buffer's backend.
    buffer : array
        The rows written into, ``(capacity, ...)``.
    start : int
        The first row written.
    rows : array
        The rows, ``(n, ...)`` of the buffer's row shape and dtype.

    Returns
    -------
    array
        The buffer that holds the rows.
    """
    buffer[start : start + rows.shape[0]] = rows
    return buffer


@kernel
def join_rows(backend: Any, blocks: list[Any]) -> Any:
    """The blocks of rows ``[(n_i, ...), ...]`` one after the other: one array
    ``(sum n_i, ...)`` (a concatenation; Dask also merges their chunks into its row chunks).

    Parameters
    ----------
    backend : Backend
        The blocks' backend.
    blocks : list of arrays
        At least one block; all of one row shape and dtype.

    Returns
    -------
    array
        The rows.
    """
    return blocks[0] if len(blocks) == 1 else backend.xp.concat(blocks, axis=0)


@write_rows.register("jax")
def _jax_write_rows(backend: Any, buffer: Any, start: int, rows: Any) -> Any:
    from ..backends.shapes import row_class
    from .jax_compiled import write_rows as compiled

    n = int(rows.shape[0])
    if n == 0:
        return buffer
    padded = row_class(n, maximum=int(buffer.shape[0]))  # the window stays in the buffer
    if padded != n:
        xp = backend.xp
        fill = xp.zeros((padded - n, *rows.shape[1:]), dtype=rows.dtype)
        rows = xp.concat([rows, fill], axis=0)
    return compiled(buffer, start, rows, n)


# Dask arrays are lazy and immutable: a write into a buffer would be one more task graph
# layer over all its chunks, so growing rows stay blocks, merged by join_rows
@writes_rows.register("dask")
def _dask_writes_rows(backend: Any) -> bool:
    return False


@write_rows.register("dask")
def _dask_write_rows(backend: Any, buffer: Any, start: int, rows: Any) -> Any:
    raise TypeError("dask arrays are lazy task graphs: rows are joined (join_rows), not written in place")


@join_rows.register("dask")
def _dask_join_rows(backend: Any, blocks: list[Any]) -> Any:
    import dask.array as da

    from ..backends.dask_backend import row_chunks

    # rechunked to the backend's row chunks (CHUNK_BYTES each): many small blocks, few chunks
    x = blocks[0] if len(blocks) == 1 else da.concatenate(blocks, axis=0)
    row_bytes = x.dtype.itemsize * max(1, math.prod(x.shape[1:]))
    target = row_chunks(x.shape[0], row_bytes)
    return x if x.chunks[0] == target else x.rechunk({0: target})
