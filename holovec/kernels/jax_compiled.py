"""JAX's compiled kernels: loops over equal-shaped blocks (one program whatever the number
of rows), a division XLA cannot rewrite, and rows written into a donated buffer. Imported
by the JAX versions of the kernels only (it imports jax)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp

#: the precision of every float product (as the JAX version of ``matmul``): XLA multiplies
#: float32 in TF32 (or bfloat16) on GPUs and TPUs unless a product states otherwise
_FULL = jax.lax.Precision.HIGHEST


@jax.jit
def divide(x: Any, d: Any) -> Any:
    """``x / d``, correctly rounded (see :func:`holovec.kernels.rounding.divide`).

    Parameters
    ----------
    x : jax.Array
        The dividend.
    d : float
        The divisor.

    Returns
    -------
    jax.Array
        The quotients.
    """
    # XLA rewrites x / broadcast(d) as x * broadcast(1 / d), a float step off for some
    # values (and only for arrays of more than one element); an opaque full array of d
    # keeps the division a division, also where a caller's jit inlines this
    return x / jax.lax.optimization_barrier(jnp.full(x.shape, d, dtype=x.dtype))


@partial(jax.jit, donate_argnums=0)
def write_rows(buffer: Any, start: Any, padded: Any, n: Any) -> Any:
    """``padded[:n]`` written over ``buffer[start:start + n]``, in the donated buffer.

    ``padded`` has a power of two of rows, so that one program serves every ``n`` up to it.
    ``dynamic_update_slice`` moves a window that would run past the end back inside the
    buffer; the window is therefore read first and only its rows ``start .. start + n``
    are replaced, so the rows before ``start`` keep their values wherever it lands.

    Parameters
    ----------
    buffer : jax.Array
        The rows written into (donated).
    start : int
        The first row written.
    padded : jax.Array
        The rows, padded to a power of two.
    n : int
        The rows of ``padded`` that count.

    Returns
    -------
    jax.Array
        The buffer with the rows written.
    """
    p = padded.shape[0]
    at = jnp.minimum(start, buffer.shape[0] - p)
    offset = start - at
    window = jax.lax.dynamic_slice_in_dim(buffer, at, p, axis=0)
    local = jnp.arange(p)
    keep = (local >= offset) & (local < offset + n)
    moved = jnp.roll(padded, offset, axis=0)
    window = jnp.where(jnp.reshape(keep, (p,) + (1,) * (buffer.ndim - 1)), moved, window)
    return jax.lax.dynamic_update_slice_in_dim(buffer, window, at, axis=0)


@partial(jax.jit, static_argnames="block")
def row_blocked_matmul(left: Any, right: Any, block: int) -> Any:
    """Products of ``block`` rows of ``left`` each (see
    :func:`holovec.kernels.blocked.row_blocked_matmul`), one program: a loop over
    equal-shaped blocks, the last one overlapping (or zero-padded).

    Parameters
    ----------
    left : jax.Array
        ``(n, k)``.
    right : jax.Array
        ``(k, m)``.
    block : int
        The rows of each product.

    Returns
    -------
    jax.Array
        ``(n, m)``.
    """
    n = left.shape[0]
    if n < block:
        left = jnp.concatenate([left, jnp.zeros((block - n, left.shape[1]), left.dtype)])
    count = -(-max(n, 1) // block)
    starts = jnp.minimum(jnp.arange(count) * block, max(n, block) - block)
    # barriers: every block product is the same program whatever surrounds it (XLA would
    # otherwise fuse the slicing or a caller's transposes into the product, as it sees fit
    # for each context, and round differently)
    barrier = jax.lax.optimization_barrier
    right = barrier(right)

    def product(s: Any) -> Any:
        rows = barrier(jax.lax.dynamic_slice_in_dim(left, s, block, 0))
        return barrier(jnp.matmul(rows, right, precision=_FULL))

    blocks = jax.lax.map(product, starts)
    if n <= block:
        return blocks[0, :n]
    tail = n - (count - 1) * block
    full = blocks[:-1].reshape((count - 1) * block, blocks.shape[-1])
    return jnp.concatenate([full, blocks[-1, block - tail :]])


@partial(jax.jit, static_argnames="block")
def row_squared_norms(x: Any, block: int) -> Any:
    """Squared row norms in blocks of ``block`` rows (XLA vectorises a reduction by shape,
    so that a row's rounded sum would change with the number of rows it comes with).

    Parameters
    ----------
    x : jax.Array
        ``(n, d)``.
    block : int
        The rows of each reduction.

    Returns
    -------
    jax.Array
        ``(n,)``.
    """
    n = x.shape[0]
    if n < block:
        x = jnp.concatenate([x, jnp.zeros((block - n, x.shape[1]), x.dtype)])
    count = -(-max(n, 1) // block)
    starts = jnp.minimum(jnp.arange(count) * block, max(n, block) - block)

    def sums(s: Any) -> Any:  # barriers as in row_blocked_matmul
        rows = jax.lax.optimization_barrier(jax.lax.dynamic_slice_in_dim(x, s, block, 0))
        return jax.lax.optimization_barrier(jnp.sum(jnp.real(rows * jnp.conj(rows)), axis=-1))

    blocks = jax.lax.map(sums, starts)
    if n <= block:
        return blocks[0, :n]
    tail = n - (count - 1) * block
    return jnp.concatenate([blocks[:-1].reshape(-1), blocks[-1, block - tail :]])


def item_chunk_loop(fn: Callable, chunk: int, queries: tuple, items: tuple) -> Any:
    """``fn`` over chunks of ``chunk`` items in one program (see
    :func:`holovec.kernels.blocked.map_item_chunks`): a loop that writes each chunk's scores
    into the result in place, the last chunk overlapping the one before it, so that every
    chunk has one shape (one compilation, whatever the number of chunks).

    Parameters
    ----------
    fn : callable
        ``fn(queries, items) -> scores``.
    chunk : int
        Items per chunk.
    queries : tuple of jax.Array
        The queries' arrays.
    items : tuple of jax.Array
        The items' arrays (first axis: the items).

    Returns
    -------
    jax.Array
        The scores of every item, on the last axis.
    """
    n = items[0].shape[0]
    count = -(-n // chunk)
    first = jax.eval_shape(fn, queries, tuple(a[:chunk] for a in items))
    out = jnp.zeros((*first.shape[:-1], n), dtype=first.dtype)

    def body(i: Any, out: Any) -> Any:
        start = jnp.minimum(i * chunk, n - chunk)
        part = fn(queries, tuple(jax.lax.dynamic_slice_in_dim(a, start, chunk, 0) for a in items))
        return jax.lax.dynamic_update_slice_in_dim(out, part, start, axis=out.ndim - 1)

    return jax.lax.fori_loop(0, count, body, out)
