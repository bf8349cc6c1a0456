"""Bit kernels: popcounts, and packing bits into bytes and back (the binary and bipolar
models' codes; their Hamming distances are :mod:`holovec.kernels.hamming`).

NumPy's C kernels serve NumPy, torch's CPU tensors (zero-copy views: torch's own bit
kernels are several times slower there) and Dask's chunks; torch on a GPU counts with
SWAR popcounts; JAX with its population count."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._dispatch import NUMPY, kernel


def host_computable(backend: Any, *arrays: Any) -> bool:
    """Whether NumPy's kernels may compute on zero-copy views of these torch tensors: on the
    CPU, outside a trace.

    Parameters
    ----------
    backend : Backend
        A torch backend.
    *arrays : torch.Tensor
        The tensors.

    Returns
    -------
    bool
        Whether NumPy may compute on views of them.
    """
    return backend.device.type == "cpu" and not any(
        backend.is_traced(x) or x.device.type != "cpu" for x in arrays
    )


@kernel
def popcount(backend: Any, x: Any) -> Any:
    """Number of set bits in each element of an unsigned integer array.

    Parameters
    ----------
    backend : Backend
        The array's backend.
    x : array
        Unsigned integers.

    Returns
    -------
    array
        The counts, of ``x``'s shape.
    """
    raise TypeError(f"backend {backend.name!r} has no popcount")


@kernel
def count_bits(backend: Any, x: Any) -> Any:
    """Total set bits along the last axis of a uint8 array, as int32. The frameworks read the
    bytes as the widest words they can (8 bytes where the last axis allows), so that one
    popcount covers 64 bits.

    Parameters
    ----------
    backend : Backend
        The array's backend.
    x : array
        uint8 bytes.

    Returns
    -------
    array
        int32 counts, of ``x``'s leading shape.
    """
    return backend.xp.sum(popcount(backend, x), axis=-1, dtype=backend.dtype("int32"))


@kernel
def words_to_bytes(backend: Any, words: Any) -> Any:
    """32-bit words as uint8 bytes, little-endian: last axis ``n`` -> ``4 * n``.

    Parameters
    ----------
    backend : Backend
        The words' backend.
    words : array
        32-bit words.

    Returns
    -------
    array
        uint8 bytes.
    """
    xp = backend.xp
    shifts = xp.asarray([0, 8, 16, 24], dtype=words.dtype, device=backend.device)
    as_bytes = xp.astype((words[..., None] >> shifts) & 0xFF, backend.dtype("uint8"))
    return xp.reshape(as_bytes, (*words.shape[:-1], 4 * words.shape[-1]))


@kernel
def unpack_bits(backend: Any, words: Any, n_bits: int) -> Any:
    """Bits of 32-bit words, least significant first, as uint8 0/1 of last axis ``n_bits``.

    Parameters
    ----------
    backend : Backend
        The words' backend.
    words : array
        32-bit words.
    n_bits : int
        The bits kept.

    Returns
    -------
    array
        uint8 0/1 bits.
    """
    # through bytes: 8-way uint8 temporaries instead of 32-way word-sized ones
    return unpack_bytes(backend, words_to_bytes(backend, words), n_bits)


@kernel
def pack_bits(backend: Any, bits: Any, n_bytes: int) -> Any:
    """uint8 0/1 bits (last axis; any nonzero value counts as 1) as bytes, least significant
    bit first, zero-padded to ``n_bytes``.

    Parameters
    ----------
    backend : Backend
        The bits' backend.
    bits : array
        uint8 bits.
    n_bytes : int
        The bytes of the result's last axis.

    Returns
    -------
    array
        uint8 bytes.
    """
    xp = backend.xp
    pad = 8 * n_bytes - bits.shape[-1]
    if pad:
        zeros = xp.zeros((*bits.shape[:-1], pad), dtype=bits.dtype, device=backend.device)
        bits = xp.concat([bits, zeros], axis=-1)
    grouped = xp.reshape(bits, (*bits.shape[:-1], n_bytes, 8))
    weights = xp.asarray([1, 2, 4, 8, 16, 32, 64, 128], dtype=bits.dtype, device=backend.device)
    # nonzero counts as 1 (as NumPy's packbits has it), so that every backend packs alike
    return xp.sum(xp.where(grouped != 0, weights, 0), axis=-1, dtype=backend.dtype("uint8"))


@kernel
def unpack_bytes(backend: Any, x: Any, n_bits: int) -> Any:
    """Bytes as uint8 0/1 bits, least significant first; the last axis keeps ``n_bits``.

    Parameters
    ----------
    backend : Backend
        The bytes' backend.
    x : array
        uint8 bytes.
    n_bits : int
        The bits kept.

    Returns
    -------
    array
        uint8 0/1 bits.
    """
    xp = backend.xp
    shifts = xp.arange(8, dtype=x.dtype, device=backend.device)
    bits = (x[..., None] >> shifts) & 1
    return xp.reshape(bits, (*x.shape[:-1], 8 * x.shape[-1]))[..., :n_bits]


# -- NumPy ---------------------------------------------------------------------------------
@popcount.register("numpy")
def _numpy_popcount(backend: Any, x: Any) -> Any:
    return np.bitwise_count(x)


@count_bits.register("numpy")
def _numpy_count_bits(backend: Any, x: Any) -> Any:
    if x.shape[-1] % 8 == 0:
        x = np.ascontiguousarray(x).view(np.uint64)
    return np.bitwise_count(x).sum(axis=-1, dtype=np.int32)


@words_to_bytes.register("numpy")
def _numpy_words_to_bytes(backend: Any, words: Any) -> Any:
    return np.ascontiguousarray(words, dtype=np.uint32).view(np.uint8)


@unpack_bits.register("numpy")
def _numpy_unpack_bits(backend: Any, words: Any, n_bits: int) -> Any:
    as_bytes = np.ascontiguousarray(words, dtype=np.uint32).view(np.uint8)
    return np.unpackbits(as_bytes, axis=-1, count=n_bits, bitorder="little")


@pack_bits.register("numpy")
def _numpy_pack_bits(backend: Any, bits: Any, n_bytes: int) -> Any:
    packed = np.packbits(bits, axis=-1, bitorder="little")
    pad = n_bytes - packed.shape[-1]
    return np.pad(packed, [(0, 0)] * (packed.ndim - 1) + [(0, pad)]) if pad else packed


@unpack_bytes.register("numpy")
def _numpy_unpack_bytes(backend: Any, x: Any, n_bits: int) -> Any:
    return np.unpackbits(x, axis=-1, count=n_bits, bitorder="little")


# -- torch: NumPy's on CPU views; SWAR popcounts and int8 products on a GPU -----------------
def _byte_popcount(x: Any) -> Any:
    """Set bits of each byte of a uint8 tensor, as uint8 (nibble table, no 64-bit temporaries)."""
    import torch

    table = torch.tensor([0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4], dtype=torch.uint8, device=x.device)
    return table[(x & 15).long()] + table[(x >> 4).long()]


@popcount.register("torch")
def _torch_popcount(backend: Any, x: Any) -> Any:
    import torch

    # torch has no popcount: count the bits of each byte, then add the bytes of an element
    counts = _byte_popcount(x.contiguous().view(torch.uint8))
    return counts.view(*x.shape, x.element_size()).sum(-1, dtype=torch.int32)


@count_bits.register("torch")
def _torch_count_bits(backend: Any, x: Any) -> Any:
    import torch

    if x.shape[-1] % 8:
        return _byte_popcount(x).sum(-1, dtype=torch.int32)
    words = x.contiguous().view(torch.int64)
    # SWAR popcount (Hacker's Delight 5-1) on 64-bit words; after three steps each byte
    # holds its own count (<= 8), so bytes of up to 31 words add without overflow
    words = words - ((words >> 1) & 0x5555555555555555)
    words = (words & 0x3333333333333333) + ((words >> 2) & 0x3333333333333333)
    words = (words + (words >> 4)) & 0x0F0F0F0F0F0F0F0F
    n = words.shape[-1]
    pad = (-n) % 31
    if pad:
        words = torch.nn.functional.pad(words, (0, pad))
    byte_sums = words.view(*words.shape[:-1], words.shape[-1] // 31, 31).sum(-1)
    # add the 8 byte counts of each 64-bit lane (each < 256), then the lanes
    total = (byte_sums & 0x00FF00FF00FF00FF) + ((byte_sums >> 8) & 0x00FF00FF00FF00FF)
    total = (total * 0x0001000100010001) >> 48 & 0xFFFF
    return total.sum(-1, dtype=torch.int32)


@pack_bits.register("torch")
def _torch_pack_bits(backend: Any, bits: Any, n_bytes: int) -> Any:
    import torch

    if host_computable(backend, bits) and bits.dtype == torch.uint8:
        return torch.from_numpy(_numpy_pack_bits(NUMPY, bits.contiguous().numpy(), n_bytes))
    return pack_bits.generic(backend, bits, n_bytes)


@unpack_bytes.register("torch")
def _torch_unpack_bytes(backend: Any, x: Any, n_bits: int) -> Any:
    import torch

    if host_computable(backend, x):
        return torch.from_numpy(_numpy_unpack_bytes(NUMPY, x.contiguous().numpy(), n_bits))
    return unpack_bytes.generic(backend, x, n_bits)


# -- JAX -----------------------------------------------------------------------------------
@popcount.register("jax")
def _jax_popcount(backend: Any, x: Any) -> Any:
    import jax

    return jax.lax.population_count(x)


@count_bits.register("jax")
def _jax_count_bits(backend: Any, x: Any) -> Any:
    import jax
    import jax.numpy as jnp

    if x.shape[-1] % 4 == 0:  # read bytes as uint32 words (64-bit needs x64 mode)
        x = jax.lax.bitcast_convert_type(x.reshape(*x.shape[:-1], x.shape[-1] // 4, 4), jnp.uint32)
    return jnp.sum(jax.lax.population_count(x), axis=-1, dtype=jnp.int32)


# -- Dask: NumPy's, chunk by chunk ---------------------------------------------------------
def _dask_rows(fn: Any, x: Any, *args: Any, width: int) -> Any:
    from ..backends.dask_namespace import rowwise

    return rowwise(fn, NUMPY, x, *args, dtype=np.uint8, width=width)


@popcount.register("dask")
def _dask_popcount(backend: Any, x: Any) -> Any:
    from ..backends.dask_namespace import rowwise

    return rowwise(np.bitwise_count, x, dtype=np.uint8)


@count_bits.register("dask")
def _dask_count_bits(backend: Any, x: Any) -> Any:
    import dask.array as da

    from ..backends.dask_namespace import row_chunked

    x = row_chunked(x)
    return da.map_blocks(_numpy_count_bits, NUMPY, x, dtype=np.int32, drop_axis=x.ndim - 1)


@unpack_bits.register("dask")
def _dask_unpack_bits(backend: Any, words: Any, n_bits: int) -> Any:
    return _dask_rows(_numpy_unpack_bits, words, n_bits, width=n_bits)


@words_to_bytes.register("dask")
def _dask_words_to_bytes(backend: Any, words: Any) -> Any:
    return _dask_rows(_numpy_words_to_bytes, words, width=4 * words.shape[-1])


@pack_bits.register("dask")
def _dask_pack_bits(backend: Any, bits: Any, n_bytes: int) -> Any:
    return _dask_rows(_numpy_pack_bits, bits, n_bytes, width=n_bytes)


@unpack_bytes.register("dask")
def _dask_unpack_bytes(backend: Any, x: Any, n_bits: int) -> Any:
    return _dask_rows(_numpy_unpack_bytes, x, n_bits, width=n_bits)
