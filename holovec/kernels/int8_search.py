"""Exact Hamming top-k on an accelerator: the tensor cores' int8 product.

The kernel of :func:`holovec.kernels.hamming.hamming_top_k` for torch and JAX arrays off
the CPU (a GPU), where a popcount loop is far from the device's limit and an integer
matrix product is its fastest operation. For bits ``a``, ``b`` of ``n`` bits as +-1
values, ``<a, b> = n - 2 * hamming(a, b)``, exactly, in int32. So:

1. the queries' packed bits are unpacked once into +-1 int8 rows;
2. the items are taken ``chunk`` rows at a time (memory bounded by the chunk), unpacked on
   the device, and multiplied with the queries in int8 with int32 accumulation
   (``torch._int_mm``, JAX's ``preferred_element_type``): exact integers, so the result
   is the same whatever the device, kernel or summation order;
3. each chunk's distances and item numbers are made one unique integer key
   ``distance * 2**shift + number``, whose smallest ``k`` (a top-k without ties) are the
   chunk's ``k`` nearest items, equal distances lowest index first;
4. the chunk's candidates are merged with the running best in (distance, index) order.

The padding bits (past ``n_bits``, zero on both sides) unpack to +1 on both sides and add
one to every dot product each: ``hamming = (8 * n_bytes - dots) / 2`` counts them as
agreeing. The result equals the host kernels' (:mod:`holovec.kernels.packed_search`) bit for bit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: item rows per product: 16,384 rows of 10,000 bits are 160 MB of int8 (about a tenth of a
#: millisecond of a GPU's memory bandwidth, the product a few tenths): large enough that a
#: product fills the device, small enough to bound the memory
CHUNK_ROWS = 16384


def key_shift(n_bits: int, chunk: int) -> int:
    """Bits of a key that hold an item's number within its chunk: the smallest power of two
    of at least ``chunk``, checked to leave room for the distance in an int32."""
    shift = max(1, (chunk - 1).bit_length())
    if (n_bits + 1) << shift >= 2**31:
        raise ValueError(f"{n_bits} bits per vector leave no room for chunks of {chunk} items in int32 keys")
    return shift


#: temporary bytes per query and item of a chunk (int32 products and distances, int64
#: keys, and the sort's own)
BYTES_PER_SCORE = 32

#: the temporary memory of one chunk's scores, which bounds the items per chunk for many
#: queries (20,000 queries: 1,024 items a chunk, not 16,384 and 10 GB)
CHUNK_BYTES = 2**30


def chunk_rows(n_bits: int, n_items: int, n_queries: int = 1) -> int:
    """Items per chunk for ``n_bits``-bit vectors: :data:`CHUNK_ROWS`, fewer where the keys
    of an int32 need it (over ~130,000 bits) or the scores of ``n_queries`` queries would
    pass :data:`CHUNK_BYTES` (a multiple of 8, as the int8 product wants), and no more than
    the items."""
    room = (2**31 - 1) // (n_bits + 1)
    chunk = min(CHUNK_ROWS, 1 << (room.bit_length() - 1))
    by_memory = CHUNK_BYTES // (BYTES_PER_SCORE * max(1, n_queries))
    chunk = min(chunk, max(8, by_memory - by_memory % 8))
    return max(1, min(chunk, n_items))


# -- torch -----------------------------------------------------------------------------------


def torch_hamming_top_k(queries: Any, items: Any, k: int) -> tuple[Any, Any]:
    """``(distances int32, indices int64)`` of the ``k`` nearest items per query (see the
    module), for uint8 tensors on one device; ``1 <= k <= len(items)``."""
    import torch

    n_q, n = queries.shape[0], items.shape[0]
    width = 8 * queries.shape[1]  # every bit, padding included (it agrees everywhere)
    q = _torch_bipolar(queries)
    if n_q <= 16:  # cuBLAS's int8 product wants more than 16 rows: zero rows, dropped after
        q = torch.cat([q, q.new_zeros((24 - n_q, width))])
    chunk = chunk_rows(width, n, q.shape[0])
    best: Any = None
    for start in range(0, n, chunk):
        rows = items[start : start + chunk]
        count = rows.shape[0]
        if count % 8:  # and columns in multiples of 8: zero rows, keys masked below
            rows = torch.cat([rows, rows.new_zeros((8 - count % 8, rows.shape[1]))])
        dots = _torch_int8_product(q, _torch_bipolar(rows))[:n_q, :count]
        distance = (width - dots) >> 1
        keys = (distance.to(torch.int64) << 32) | torch.arange(start, start + count, device=dots.device)
        keys = torch.topk(keys, min(k, count), dim=-1, largest=False).values  # unique: no ties
        if best is not None:
            keys = torch.cat([best, keys], dim=-1)
            keys = torch.topk(keys, min(k, keys.shape[-1]), dim=-1, largest=False).values
        best = keys
    return (best >> 32).to(torch.int32), best & 0xFFFFFFFF


def _torch_bipolar(packed: Any) -> Any:
    """uint8 packed bits ``(n, n_bytes)`` as +-1 int8 ``(n, 8 n_bytes)``, bit 0 first."""
    import torch

    shifts = torch.arange(8, dtype=torch.uint8, device=packed.device)
    bits = ((packed[..., None] >> shifts) & 1).reshape(packed.shape[0], -1)
    return 1 - 2 * bits.to(torch.int8)


def _torch_int8_product(q: Any, b: Any) -> Any:
    """``q @ b.T`` of +-1 int8 rows, exact int32: the int8 kernel where the device has one,
    else a float32 product (exact too: sums of +-1 below 2**24, in any precision mode, as
    +-1 are exact in TF32 and bfloat16 and the sums are accumulated in float32)."""
    import torch

    try:
        return torch._int_mm(q, b.T)
    except torch.OutOfMemoryError:  # a RuntimeError, but not one a float product would fix
        raise
    except (AttributeError, RuntimeError, NotImplementedError):
        return (q.float() @ b.float().T).to(torch.int32)


# -- JAX -------------------------------------------------------------------------------------


def jax_hamming_top_k(queries: Any, items: Any, k: int) -> tuple[Any, Any]:
    """As :func:`torch_hamming_top_k`, for JAX arrays (indices int32 unless 64-bit mode):
    one compiled program per shape, a loop over equal chunks (the last one overlapping the
    one before it, its repeated items masked). ``k`` at most :func:`chunk_rows`."""
    n = int(items.shape[0])
    width = 8 * int(queries.shape[1])
    chunk = chunk_rows(width, n, int(queries.shape[0]))
    if k > chunk:
        raise ValueError(f"k={k} is more than the {chunk} items of a chunk")
    return _jax_program()(queries, items, k=k, chunk=chunk, shift=key_shift(width, chunk))


_JAX_PROGRAM: Any = None


def _jax_program() -> Any:
    global _JAX_PROGRAM
    if _JAX_PROGRAM is None:
        import jax

        _JAX_PROGRAM = jax.jit(_jax_search, static_argnames=("k", "chunk", "shift"))
    return _JAX_PROGRAM


def _jax_search(queries: Any, items: Any, *, k: int, chunk: int, shift: int) -> tuple[Any, Any]:
    import jax
    import jax.numpy as jnp

    n, width = items.shape[0], 8 * queries.shape[1]
    q = _jax_bipolar(queries)
    count = -(-n // chunk)
    index_dtype = jax.dtypes.canonicalize_dtype(np.int64)  # int32 unless in 64-bit mode
    masked = jnp.int32(2**31 - 1)

    def nearest_of_chunk(c: Any) -> tuple[Any, Any]:
        start = jnp.minimum(c * chunk, n - chunk)  # the last chunk overlaps the one before
        rows = jax.lax.dynamic_slice_in_dim(items, start, chunk, 0)
        dots = jax.lax.dot_general(
            q, _jax_bipolar(rows), (((1,), (1,)), ((), ())), preferred_element_type=jnp.int32
        )
        local = jnp.arange(chunk, dtype=jnp.int32)
        keys = jax.lax.shift_left((width - dots) >> 1, jnp.int32(shift)) | local
        keys = jnp.where(start + local < c * chunk, masked, keys)  # seen in the chunk before
        keys = -jax.lax.top_k(-keys, min(k, chunk))[0]  # unique keys: ascending, no ties
        distance = keys >> shift
        index = start.astype(index_dtype) + (keys & ((1 << shift) - 1)).astype(index_dtype)
        return distance, index

    def merge(best: tuple[Any, Any], new: tuple[Any, Any]) -> tuple[Any, Any]:
        # every earlier index is below every new one: sorted by (distance, index)
        distance = jnp.concatenate([best[0], new[0]], axis=-1)
        index = jnp.concatenate([best[1], new[1]], axis=-1)
        distance, index = jax.lax.sort((distance, index), dimension=-1, num_keys=2)
        return distance[:, :k], index[:, :k]

    best = nearest_of_chunk(jnp.int32(0))
    if count > 1:
        best = jax.lax.fori_loop(1, count, lambda c, b: merge(b, nearest_of_chunk(c)), best)
    return best[0], best[1]


def _jax_bipolar(packed: Any) -> Any:
    import jax.numpy as jnp

    shifts = jnp.arange(8, dtype=jnp.uint8)
    bits = ((packed[..., None] >> shifts) & 1).reshape(packed.shape[0], -1)
    return (1 - 2 * bits.astype(jnp.int8)).astype(jnp.int8)
