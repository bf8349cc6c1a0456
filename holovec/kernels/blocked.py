"""Products and row-wise maps in blocks: results that do not depend on how rows are grouped,
and memory bounded by a chunk."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from ._dispatch import NUMPY, kernel
from .products import matmul, vecdot


@kernel
def gather_beats_matmul(backend: Any) -> bool:
    """Whether a gather over a codebook beats a dense matrix product (measured: NumPy on the
    CPU yes; torch and JAX no, and a GPU prefers the product).

    Parameters
    ----------
    backend : Backend
        The backend asked.

    Returns
    -------
    bool
        Whether to gather.
    """
    return False


@gather_beats_matmul.register("numpy")
def _numpy_gather_beats_matmul(backend: Any) -> bool:
    return True


@kernel
def row_blocked_matmul(backend: Any, left: Any, right: Any, block: int) -> Any:
    """``left @ right`` (``(n, k) @ (k, m) -> (n, m)``) as products of exactly ``block`` rows
    of ``left`` each: the rows ``[0, block)``, ``[block, 2 block)``, ..., the last block
    overlapping the one before it, or zero-padded where ``n < block``.

    Matrix libraries choose kernels, threads and summation orders by the shapes of a
    product, so a row's rounded result can change with the number of rows it comes with (or
    its position among them). With every product of one shape, a row's result depends on
    the row alone: equal rows give equal results, and splitting the rows into chunks (of
    any size) changes nothing.

    Parameters
    ----------
    backend : Backend
        The arrays' backend.
    left : array
        ``(n, k)``.
    right : array
        ``(k, m)``.
    block : int
        The rows of each product.

    Returns
    -------
    array
        ``(n, m)``.
    """
    xp = backend.xp
    n = left.shape[0]
    if n <= block:
        if n < block:
            pad = xp.zeros((block - n, left.shape[1]), dtype=left.dtype, device=backend.device)
            left = xp.concat([left, pad], axis=0)
        return matmul(backend, left, right)[:n]
    starts = list(range(0, n - block + 1, block))
    tail = n - (starts[-1] + block)
    parts = [matmul(backend, left[s : s + block], right) for s in starts]
    if tail:
        parts.append(matmul(backend, left[n - block :], right)[block - tail :])
    return xp.concat(parts, axis=0)


@kernel
def row_squared_norms(backend: Any, x: Any, block: int) -> Any:
    """Squared Euclidean norms ``sum(|x|**2)`` of the rows of a 2-d array (real results),
    each independent of the other rows (see :func:`row_blocked_matmul`; compiled backends
    reduce in blocks of ``block`` rows).

    Parameters
    ----------
    backend : Backend
        The array's backend.
    x : array
        ``(n, d)``.
    block : int
        The rows of each reduction (compiled backends).

    Returns
    -------
    array
        ``(n,)``.
    """
    return backend.xp.real(vecdot(backend, x, x))


@kernel
def map_chunks(backend: Any, fn: Callable, chunks: Any) -> list:
    """``[fn(c) for c in chunks]``; the host runs single-threaded kernels in threads.

    Parameters
    ----------
    backend : Backend
        The backend of the work.
    fn : callable
        ``fn(chunk)``.
    chunks : iterable
        The chunks.

    Returns
    -------
    list
        The results, in order.
    """
    return [fn(c) for c in chunks]


@kernel
def map_item_chunks(
    backend: Any, fn: Callable, queries: tuple, items: tuple, chunk: int, parallel: bool, cache: dict
) -> Any:
    """``fn(queries, items)`` (scores ``(n_q, n)`` of queries against items, both tuples of
    arrays whose first axis counts them) computed for chunks of ``chunk`` items at a time,
    joined on the last axis: memory bounded by the chunk, time linear in the items.

    Parameters
    ----------
    backend : Backend
        The arrays' backend.
    fn : callable
        ``fn(queries, items) -> scores``.
    queries : tuple of arrays
        The queries' arrays.
    items : tuple of arrays
        The items' arrays.
    chunk : int
        Items per chunk.
    parallel : bool
        Whether chunks may run in threads (kernels that use one core).
    cache : dict
        Where compiled backends keep the compiled loop (the model's kernel cache).

    Returns
    -------
    array
        ``(n_q, n)`` scores.
    """
    starts = range(0, items[0].shape[0], chunk)

    def one(start: int) -> Any:
        return fn(queries, tuple(a[start : start + chunk] for a in items))

    parts = map_chunks(backend, one, starts) if parallel else [one(s) for s in starts]
    return backend.xp.concat(parts, axis=-1)


@kernel
def map_row_blocks(backend: Any, fn: Callable, x: Any, rows: int, width: int, dtype: Any) -> Any:
    """``fn(x)`` for a row-wise function ``fn`` whose result has shape ``(len(x), width)`` and
    ``dtype``. Where kernels run on one core (NumPy) it is applied to blocks of ``rows``
    rows, whose temporaries stay in cache, on every core, written into one output; the
    other frameworks call it once (their compilers fuse the temporaries).

    Parameters
    ----------
    backend : Backend
        The array's backend.
    fn : callable
        A row-wise function.
    x : array
        ``(n, ...)``.
    rows : int
        Rows per block.
    width : int
        The last axis of the result.
    dtype : dtype
        The result's dtype.

    Returns
    -------
    array
        ``(n, width)``.
    """
    return fn(x)


# -- NumPy: one-core kernels on every core, products of one shape into one output ---------
@map_chunks.register("numpy")
def _numpy_map_chunks(backend: Any, fn: Callable, chunks: Any) -> list:
    from ..backends.host import thread_pool

    # NumPy's elementwise kernels run on one core but release the GIL: threads add cores
    chunks = list(chunks)
    if len(chunks) < 2:
        return [fn(c) for c in chunks]
    return list(thread_pool().map(fn, chunks))


@map_row_blocks.register("numpy")
def _numpy_map_row_blocks(backend: Any, fn: Callable, x: Any, rows: int, width: int, dtype: Any) -> Any:
    n = x.shape[0]
    if n <= rows:
        return fn(x)
    out = np.empty((n, width), dtype=dtype)

    def fill(start: int) -> None:
        out[start : start + rows] = fn(x[start : start + rows])

    _numpy_map_chunks(backend, fill, range(0, n, rows))
    return out


@row_blocked_matmul.register("numpy")
def _numpy_row_blocked_matmul(backend: Any, left: Any, right: Any, block: int) -> Any:
    n = left.shape[0]
    if n <= block:
        return row_blocked_matmul.generic(backend, left, right, block)
    out = np.empty((n, right.shape[1]), dtype=np.result_type(left, right))
    for start in range(0, n - block + 1, block):
        # no out= here: NumPy's matmul then skips BLAS for its own (100x slower) loop
        out[start : start + block] = left[start : start + block] @ right
    tail = n % block
    if tail:
        out[n - tail :] = (left[n - block :] @ right)[block - tail :]
    return out


# -- torch ---------------------------------------------------------------------------------
@map_chunks.register("torch")
def _torch_map_chunks(backend: Any, fn: Callable, chunks: Any) -> list:
    if backend.device.type == "cpu":  # chunks of one-core host kernels (bits): on every core
        return _numpy_map_chunks(NUMPY, fn, chunks)
    return [fn(c) for c in chunks]


@row_blocked_matmul.register("torch")
def _torch_row_blocked_matmul(backend: Any, left: Any, right: Any, block: int) -> Any:
    import torch

    n = left.shape[0]
    if n <= block or torch.compiler.is_compiling():
        return row_blocked_matmul.generic(backend, left, right, block)
    out = torch.empty((n, right.shape[1]), dtype=torch.result_type(left, right), device=left.device)
    for start in range(0, n - block + 1, block):
        out[start : start + block] = matmul(backend, left[start : start + block], right)
    tail = n % block
    if tail:
        out[n - tail :] = matmul(backend, left[n - block :], right)[block - tail :]
    return out


# -- JAX: compiled loops over equal-shaped blocks ------------------------------------------
@row_blocked_matmul.register("jax")
def _jax_row_blocked_matmul(backend: Any, left: Any, right: Any, block: int) -> Any:
    if left.shape[0] == 0:
        return backend.xp.zeros((0, right.shape[1]), dtype=backend.xp.result_type(left, right))
    from .jax_compiled import row_blocked_matmul as compiled

    return compiled(left, right, block=block)


@row_squared_norms.register("jax")
def _jax_row_squared_norms(backend: Any, x: Any, block: int) -> Any:
    xp = backend.xp
    if x.shape[0] == 0:
        return xp.zeros((0,), dtype=xp.real(x).dtype)
    from .jax_compiled import row_squared_norms as compiled

    return compiled(x, block=block)


@map_item_chunks.register("jax")
def _jax_map_item_chunks(
    backend: Any, fn: Callable, queries: tuple, items: tuple, chunk: int, parallel: bool, cache: dict
) -> Any:
    # eager JAX compiles every slice of a new offset, and a join of many parts, anew (time
    # grew with the square of the number of chunks): one compiled loop instead
    from .jax_compiled import item_chunk_loop

    # the caller's own program (``fn`` is its bound method), kept in its cache
    key = ("holovec.kernels.item_chunks", getattr(fn, "__func__", fn), chunk)
    loop = backend.program(partial(item_chunk_loop, fn, chunk), key, keep=cache, share=False)
    return loop(queries, items)


# -- Dask: the chunks are the chunks --------------------------------------------------------
@map_item_chunks.register("dask")
def _dask_map_item_chunks(
    backend: Any, fn: Callable, queries: tuple, items: tuple, chunk: int, parallel: bool, cache: dict
) -> Any:
    return fn(queries, items)  # one task graph, scheduled by Dask


@row_blocked_matmul.register("dask")
def _dask_row_blocked_matmul(backend: Any, left: Any, right: Any, block: int) -> Any:
    import dask.array as da

    from ..backends.dask_namespace import row_chunked

    # NumPy's products of `block` rows per chunk of rows, `right` (small) whole in each
    left, right = row_chunked(left), backend.asarray(right).rechunk(-1)
    dtype = np.result_type(left.dtype, right.dtype)
    return da.blockwise(
        partial(_numpy_row_blocked_matmul, NUMPY),
        "ij",
        left,
        "ik",
        right,
        "kj",
        block,
        None,
        dtype=dtype,
        concatenate=True,
        meta=np.empty((0, 0), dtype=dtype),
    )
