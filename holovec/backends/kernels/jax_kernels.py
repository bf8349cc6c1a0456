"""JAX's kernels: compiled loops over equal-shaped blocks (one program whatever the
number of rows), NumPy's Philox through a host callback on the CPU, the host's search on
views of JAX's buffers, the int8 product on a GPU, and searches of arrays sharded over
devices (:mod:`~holovec.backends.kernels.jax_sharded`)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from . import Kernels
from .draws import numpy_philox_words

#: the precision of every float product (as ``JaxBackend.matmul``): XLA multiplies float32
#: in TF32 (or bfloat16) on GPUs and TPUs unless a product states otherwise
_FULL = jax.lax.Precision.HIGHEST


def _host_philox_words(block_start: int, n_blocks: int, seed: Any, stream: Any, purpose: Any) -> np.ndarray:
    """``numpy_philox_words`` of an address given as little-endian uint32 words."""

    def number(words: Any) -> int:
        return int.from_bytes(np.asarray(words, dtype="<u4").tobytes(), "little")

    return numpy_philox_words(number(seed), (block_start, number(stream), number(purpose)), n_blocks)


@partial(jax.jit, static_argnames="block")
def _row_blocked_matmul(left: Any, right: Any, block: int) -> Any:
    """Products of ``block`` rows of ``left`` each (see ``Backend.row_blocked_matmul``), one
    program: a loop over equal-shaped blocks, the last one overlapping (or zero-padded)."""
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
def _row_squared_norms(x: Any, block: int) -> Any:
    """Squared row norms in blocks of ``block`` rows (XLA vectorises a reduction by shape, so
    that a row's rounded sum would change with the number of rows it comes with)."""
    n = x.shape[0]
    if n < block:
        x = jnp.concatenate([x, jnp.zeros((block - n, x.shape[1]), x.dtype)])
    count = -(-max(n, 1) // block)
    starts = jnp.minimum(jnp.arange(count) * block, max(n, block) - block)

    def sums(s: Any) -> Any:  # barriers as in _row_blocked_matmul
        rows = jax.lax.optimization_barrier(jax.lax.dynamic_slice_in_dim(x, s, block, 0))
        return jax.lax.optimization_barrier(jnp.sum(jnp.real(rows * jnp.conj(rows)), axis=-1))

    blocks = jax.lax.map(sums, starts)
    if n <= block:
        return blocks[0, :n]
    tail = n - (count - 1) * block
    return jnp.concatenate([blocks[:-1].reshape(-1), blocks[-1, block - tail :]])


def _item_chunk_loop(fn: Callable, chunk: int, queries: tuple, items: tuple) -> Any:
    """``fn`` over chunks of ``chunk`` items in one program (see ``map_item_chunks``): a loop
    that writes each chunk's scores into the result in place, the last chunk overlapping
    the one before it, so that every chunk has one shape (one compilation, whatever the
    number of chunks)."""
    n = items[0].shape[0]
    count = -(-n // chunk)
    first = jax.eval_shape(fn, queries, tuple(a[:chunk] for a in items))
    out = jnp.zeros((*first.shape[:-1], n), dtype=first.dtype)

    def body(i: Any, out: Any) -> Any:
        start = jnp.minimum(i * chunk, n - chunk)
        part = fn(queries, tuple(jax.lax.dynamic_slice_in_dim(a, start, chunk, 0) for a in items))
        return jax.lax.dynamic_update_slice_in_dim(out, part, start, axis=out.ndim - 1)

    return jax.lax.fori_loop(0, count, body, out)


class JaxKernels(Kernels):
    """The kernels of :class:`~holovec.backends.jax_backend.JaxBackend` (see
    :mod:`holovec.backends.kernels`)."""

    # on the CPU the host's fused kernel reads JAX's buffers in place; on a GPU an exact
    # int8 product on the tensor cores (kernels/int8_search.py), its fastest operation
    fast_hamming_search = True

    def philox_words(self, key: int, counter_start: tuple[int, Any, int], n_blocks: int) -> Any:
        if not self.is_cpu:
            return None
        return jax.device_put(numpy_philox_words(key, counter_start, n_blocks), self.device)

    def philox_words_of(
        self, seed: Any, stream: Any, purpose: Any, block_start: int, n_blocks: int
    ) -> Any | None:
        """Words of an address given as word arrays (``holovec.random.Words``, traced in a
        compiled draw) from NumPy's C generator, on the CPU: a host callback, 4-6 times
        faster there than the generator compiled by XLA (which serves the other devices)."""
        if not self.is_cpu:
            return None
        result = jax.ShapeDtypeStruct((8 * n_blocks,), jnp.uint32)
        callback = partial(_host_philox_words, block_start, n_blocks)
        return jax.pure_callback(callback, result, seed, stream, purpose, vmap_method="broadcast_all")

    def finish_before_exit(self, result: Any) -> Any:
        if not self.is_cpu:  # no host callbacks elsewhere (philox_words_of)
            return result
        from .._jax_exit import finish_before_exit

        return finish_before_exit(result)

    def take_rows(self, x: Any, rows: Any) -> Any:
        if self.is_partitioned(x):  # sharded over a mesh, perhaps of several processes
            from .jax_sharded import gather_rows

            return gather_rows(x, np.asarray(rows), self.device)
        return jnp.take(x, jnp.asarray(rows), axis=0)

    def top_k(self, scores: Any, k: int) -> tuple[Any, Any]:
        n = scores.shape[-1]
        k = min(int(k), n)
        if k == n or k == 0:
            return super().top_k(scores, k)
        return jax.lax.top_k(scores, k)  # documented: equal values, lower index first

    def map_item_chunks(
        self, fn: Callable, queries: tuple, items: tuple, chunk: int, parallel: bool, cache: dict
    ) -> Any:
        # eager JAX compiles every slice of a new offset, and a join of many parts, anew
        # (time grew with the square of the number of chunks): one compiled loop instead
        key = ("item_chunks", getattr(fn, "__func__", fn), chunk)
        loop = cache.get(key)
        if loop is None:
            loop = cache[key] = jax.jit(partial(_item_chunk_loop, fn, chunk))
        return loop(queries, items)

    def row_squared_norms(self, x: Any, block: int) -> Any:
        if x.shape[0] == 0:
            return jnp.zeros((0,), dtype=jnp.real(x).dtype)
        return _row_squared_norms(x, block=block)

    def row_blocked_matmul(self, left: Any, right: Any, block: int) -> Any:
        if left.shape[0] == 0:
            return jnp.zeros((0, right.shape[1]), dtype=jnp.result_type(left, right))
        return _row_blocked_matmul(left, right, block=block)

    def popcount(self, x: Any) -> Any:
        return jax.lax.population_count(x)

    def count_bits(self, x: Any) -> Any:
        if x.shape[-1] % 4 == 0:  # read bytes as uint32 words (64-bit needs x64 mode)
            x = jax.lax.bitcast_convert_type(x.reshape(*x.shape[:-1], x.shape[-1] // 4, 4), jnp.uint32)
        return jnp.sum(jax.lax.population_count(x), axis=-1, dtype=jnp.int32)

    def _hamming_top_k(self, queries: Any, items: Any, n_bits: int, k: int) -> tuple[Any, Any]:
        from . import int8_search

        traced = self.is_traced(queries) or self.is_traced(items)
        if self.is_cpu and not traced:
            from . import packed_search  # the host kernel on NumPy views of JAX's buffers

            d, i = packed_search.hamming_top_k(np.asarray(queries), np.asarray(items), k)
            return self.from_numpy(d), self.from_numpy(i)  # indices int32 unless 64-bit mode
        if k <= int8_search.chunk_rows(8 * queries.shape[1], items.shape[0], queries.shape[0]):
            return int8_search.jax_hamming_top_k(queries, items, k)
        return super()._hamming_top_k(queries, items, n_bits, k)

    def in_one_place(self, x: Any) -> Any:
        if self.is_traced(x) or len(getattr(getattr(x, "sharding", None), "device_set", ())) < 2:
            return x
        from .jax_sharded import in_one_place

        return in_one_place(x, self.device)

    def replicated_like(self, x: Any, like: Any) -> Any:
        if self.is_traced(x) or self.is_traced(like) or not self.is_partitioned(like):
            return x
        from .jax_sharded import replicated

        return replicated(x, like.sharding.mesh)

    def is_partitioned(self, x: Any) -> bool:
        if self.is_traced(x) or len(getattr(getattr(x, "sharding", None), "device_set", ())) < 2:
            return False  # one device: no need to look further (or import the module)
        from .jax_sharded import row_axes

        return row_axes(x) is not None

    def shard_rows(self, x: Any, mesh: Any = None, axis_name: str = "rows") -> Any:
        from .jax_sharded import shard_rows

        return shard_rows(x, mesh, axis_name)

    def partitioned_search(
        self, search_part: Callable, queries: Any, items: Any, k: int
    ) -> tuple[Any, Any] | None:
        """Items sharded by rows over several devices (a ``NamedSharding`` that splits axis 0,
        e.g. from :func:`holovec.retrieval.shard_rows`): a top-k on each device and a merge of
        only ``k`` candidates per device and query (see :mod:`holovec.backends.kernels.jax_sharded`);
        ``None`` for an array on one device."""
        from .jax_sharded import sharded_search

        return sharded_search(search_part, queries, items, k, self.device)
