"""Hamming distances of packed vectors: distance matrices, and the exact Hamming top-k
search, one checked entry point over the frameworks' searches (the host's fused
XOR/popcount kernel, the GPUs' int8 product)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._params import POSITIVE_INT
from ._dispatch import NUMPY, kernel
from .bits import count_bits, host_computable, unpack_bytes
from .top_k import top_k


@kernel
def fast_packed_hamming(backend: Any) -> bool:
    """Whether :func:`hamming_matrix` on bit-packed vectors beats a float matrix product of
    the unpacked +-1 vectors (measured at D=10,000: NumPy's popcount 3x, torch's int8
    product 1.7x faster; JAX's eager popcount is slower).

    Parameters
    ----------
    backend : Backend
        The backend asked.

    Returns
    -------
    bool
        Whether the packed kernel is the faster.
    """
    return False


@fast_packed_hamming.register("numpy", "torch")
def _fast_packed_hamming(backend: Any) -> bool:
    return True


def padding_mask(backend: Any, n_bytes: int, n_bits: int) -> Any:
    """uint8 bytes ``(n_bytes,)`` with the first ``n_bits`` bits set (least significant bit
    first) and the others clear.

    Parameters
    ----------
    backend : Backend
        The backend of the mask.
    n_bytes : int
        The bytes.
    n_bits : int
        The bits set.

    Returns
    -------
    array
        The mask.
    """
    valid = np.clip(n_bits - 8 * np.arange(n_bytes), 0, 8)
    return backend.from_numpy(((1 << valid) - 1).astype(np.uint8))


@kernel
def hamming_matrix(backend: Any, queries: Any, items: Any, n_bits: int) -> Any:
    """Hamming distances ``(n_q, n_i)`` (int32) between bit-packed uint8 vectors.

    Parameters
    ----------
    backend : Backend
        The vectors' backend.
    queries : array
        ``(n_q, n_bytes)`` packed bits.
    items : array
        ``(n_i, n_bytes)`` packed bits.
    n_bits : int
        The bits that count (the first ones of each row).

    Returns
    -------
    array
        int32 distances.
    """
    n_bytes = queries.shape[-1]
    if 8 * n_bytes == n_bits:
        return count_bits(backend, queries[:, None, :] ^ items[None, :, :])
    # bits past n_bits do not count: with the queries' padding cleared, the padding bits
    # of the XOR are the items' own, counted once per item and taken off
    mask = padding_mask(backend, n_bytes, n_bits)
    padding = count_bits(backend, items[:, n_bits // 8 :] & ~mask[n_bits // 8 :])
    return count_bits(backend, (queries & mask)[:, None, :] ^ items[None, :, :]) - padding[None, :]


@kernel
def hamming_temp_bytes(backend: Any, n_queries: int, n_bytes: int, n_bits: int) -> int:
    """Temporary bytes :func:`hamming_matrix` needs per item (for chunking).

    Parameters
    ----------
    backend : Backend
        The backend asked.
    n_queries : int
        The queries.
    n_bytes : int
        The bytes of a packed vector.
    n_bits : int
        The bits of a vector.

    Returns
    -------
    int
        Bytes per item.
    """
    return n_queries * n_bytes


@hamming_matrix.register("torch")
def _torch_hamming_matrix(backend: Any, queries: Any, items: Any, n_bits: int) -> Any:
    import torch

    if host_computable(backend, queries, items):
        # torch's int8 product is slow on CPUs (18 s for 100 x 10,000 items of 10,000 bits,
        # where NumPy's popcount takes 0.4 s): NumPy's, on zero-copy views
        host = hamming_matrix(NUMPY, queries.contiguous().numpy(), items.contiguous().numpy(), n_bits)
        return torch.from_numpy(host)
    # on a GPU (torch has no popcount, and bitwise popcounts are slow in eager torch) an
    # exact int8 product of +-1 vectors is fast: hamming = (n_bits - <+-1, +-1>) / 2
    q, b = (1 - 2 * unpack_bytes(backend, x, n_bits).to(torch.int8) for x in (queries, items))
    # torch.compile's inductor (torch 2.13, CPU) miscomputes _int_mm with one query column,
    # so compiled code takes the float32 product, which is exact too
    dots = None
    if not torch.compiler.is_compiling():
        try:
            dots = torch._int_mm(b, q.T.contiguous()).T  # int32, exact
        except (AttributeError, RuntimeError):  # no int8 kernel here
            dots = None
    if dots is None:
        dots = (b.float() @ q.float().T).T.round().to(torch.int32)
    return (n_bits - dots) // 2


@hamming_temp_bytes.register("torch")
def _torch_hamming_temp_bytes(backend: Any, n_queries: int, n_bytes: int, n_bits: int) -> int:
    return 2 * n_bits  # the uint8 bits and the int8 +-1 values of one item


@kernel
def fast_hamming_search(backend: Any) -> bool:
    """Whether :func:`hamming_top_k` on packed bits beats the dense search of binary and
    bipolar codes (the fused host kernels: NumPy, and torch and JAX arrays on the CPU; on
    a GPU an exact int8 product on the tensor cores).

    Parameters
    ----------
    backend : Backend
        The backend asked.

    Returns
    -------
    bool
        Whether the packed search is the faster.
    """
    return False


@fast_hamming_search.register("numpy", "torch", "jax")
def _fast_hamming_search(backend: Any) -> bool:
    return True


def hamming_top_k(backend: Any, queries: Any, items: Any, n_bits: int, k: int) -> tuple[Any, Any]:
    """The ``min(k, n_i)`` nearest items of each query by Hamming distance: ``(distances,
    indices)``, int32 arrays and the index arrays of :func:`~holovec.kernels.top_k.top_k`
    (int64; JAX: int32 unless 64-bit mode is on), ``(n_q, min(k, n_i))``, nearest first,
    equal distances lowest index first (as a stable sort of the whole distance matrix).
    The search of :mod:`holovec.retrieval` for binary and bipolar codes.

    The arguments are checked here (shapes, dtypes and ``k``: no values read), once for
    every backend; the search itself is the framework's (:func:`hamming_search`).

    Parameters
    ----------
    backend : Backend
        The vectors' backend.
    queries : array
        ``(n_q, n_bytes)`` bit-packed uint8 (:func:`~holovec.kernels.bits.pack_bits`) whose
        bits past ``n_bits`` are zero, ``n_bytes`` at most the whole 64-bit words that
        ``n_bits`` bits take.
    items : array
        ``(n_i, n_bytes)``, packed alike.
    n_bits : int
        The bits of a vector.
    k : int
        Positive; more than ``n_i``: all items.

    Returns
    -------
    tuple of two arrays
        ``(distances, indices)``.

    Raises
    ------
    TypeError
        ``queries`` or ``items`` not uint8 arrays of this backend; ``n_bits`` or ``k`` not
        an int (a bool, a float or a string is refused, not truncated).
    ValueError
        Arrays not 2-d, of different widths, or no items; ``n_bits`` that the width cannot
        hold or that leaves a whole 64-bit word of padding; ``k < 1``.

    Examples
    --------
    >>> import numpy as np
    >>> from holovec.backends import get_backend
    >>> items = np.array([[0b0000], [0b0111], [0b0001]], dtype=np.uint8)
    >>> d, i = hamming_top_k(get_backend("numpy"), items[1:2], items, 8, 2)
    >>> d.tolist(), i.tolist()
    ([[0, 2]], [[1, 2]])
    """
    k = _checked(backend, queries, items, n_bits, k)
    return hamming_search(backend, queries, items, int(n_bits), k)


def _checked(backend: Any, queries: Any, items: Any, n_bits: Any, k: Any) -> int:
    """``min(k, n_i)`` for valid arguments of :func:`hamming_top_k`, else a clear error."""
    uint8 = backend.dtype("uint8")
    for name, x in (("queries", queries), ("items", items)):
        if not backend.is_array(x):
            raise TypeError(
                f"hamming_top_k: {name} must be a {backend.array_type_name} of backend {backend.name!r}, "
                f"got {type(x).__module__}.{type(x).__name__}"
            )
        if x.dtype != uint8:
            raise TypeError(f"hamming_top_k: {name} must be bit-packed uint8, got dtype {x.dtype}")
        if x.ndim != 2:
            raise ValueError(
                f"hamming_top_k: {name} must be 2-d (rows of packed bytes), got shape {tuple(x.shape)}"
            )
    n_bytes = int(queries.shape[1])
    if int(items.shape[1]) != n_bytes:
        raise ValueError(
            f"hamming_top_k: queries and items must have the same width, got {n_bytes} bytes per "
            f"query and {int(items.shape[1])} per item"
        )
    n_bits = POSITIVE_INT.check("hamming_top_k: n_bits", n_bits)
    words = -(-n_bits // 64)
    if not -(-n_bits // 8) <= n_bytes <= 8 * words:
        raise ValueError(
            f"hamming_top_k: {n_bits} bits are packed in {-(-n_bits // 8)} to {8 * words} bytes "
            f"(whole 64-bit words at most), got rows of {n_bytes} bytes"
        )
    k = POSITIVE_INT.check("hamming_top_k: k", k)
    n = int(items.shape[0])
    if n == 0:
        raise ValueError("hamming_top_k: cannot search an empty set of items")
    return min(k, n)


@kernel
def hamming_search(backend: Any, queries: Any, items: Any, n_bits: int, k: int) -> tuple[Any, Any]:
    """The search of :func:`hamming_top_k` for checked arguments (``1 <= k <= n_i``). This
    generic version scores chunks of items with :func:`~holovec.kernels.bits.hamming_matrix`
    and merges a running top-k; the host's versions are a fused XOR/popcount kernel (no
    score matrix), a GPU's an int8 product.

    Parameters
    ----------
    backend : Backend
        The vectors' backend.
    queries : array
        ``(n_q, n_bytes)`` packed bits.
    items : array
        ``(n_i, n_bytes)`` packed bits.
    n_bits : int
        The bits of a vector.
    k : int
        ``1 <= k <= n_i``.

    Returns
    -------
    tuple of two arrays
        ``(distances, indices)``, as :func:`hamming_top_k`.
    """
    xp = backend.xp
    int32 = backend.dtype("int32")
    n = items.shape[0]
    temp = hamming_temp_bytes(backend, queries.shape[0], items.shape[1], n_bits)
    per_item = max(1, 4 * queries.shape[0] + temp)
    chunk = max(k, (32 * 2**20) // per_item)
    best_d = best_i = None
    for start in range(0, n, chunk):
        dist = hamming_matrix(backend, queries, items[start : start + chunk], n_bits)
        s, i = top_k(backend, -xp.astype(dist, int32), k)
        i = i + start
        if best_d is not None:
            # earlier chunks first: equal distances keep the lowest index first
            s_all = xp.concat([best_d, s], axis=-1)
            i_all = xp.concat([best_i, i], axis=-1)
            s, pos = top_k(backend, s_all, k)
            i = xp.take_along_axis(i_all, pos, axis=-1)
        best_d, best_i = s, i
    return -best_d, best_i


@hamming_search.register("numpy")
def _numpy_hamming_search(backend: Any, queries: Any, items: Any, n_bits: int, k: int) -> tuple[Any, Any]:
    from . import packed_search  # the fused kernel (numba where installed, else NumPy)

    return packed_search.hamming_top_k(queries, items, k)


@hamming_search.register("torch")
def _torch_hamming_search(backend: Any, queries: Any, items: Any, n_bits: int, k: int) -> tuple[Any, Any]:
    import torch

    if torch.compiler.is_compiling():
        return hamming_search.generic(backend, queries, items, n_bits, k)
    if backend.device.type != "cpu":  # a GPU: an int8 product on its tensor cores
        from .int8_search import torch_hamming_top_k

        return torch_hamming_top_k(queries, items, k)
    from . import packed_search  # on the CPU: the host kernel on zero-copy NumPy views

    d, i = packed_search.hamming_top_k(queries.contiguous().numpy(), items.contiguous().numpy(), k)
    return torch.from_numpy(d), torch.from_numpy(i)


@hamming_search.register("jax")
def _jax_hamming_search(backend: Any, queries: Any, items: Any, n_bits: int, k: int) -> tuple[Any, Any]:
    from . import int8_search

    traced = backend.is_traced(queries) or backend.is_traced(items)
    if backend.is_cpu and not traced:
        from . import packed_search  # the host kernel on NumPy views of JAX's buffers

        d, i = packed_search.hamming_top_k(np.asarray(queries), np.asarray(items), k)
        return backend.from_numpy(d), backend.from_numpy(i)  # indices int32 unless 64-bit mode
    if k <= int8_search.chunk_rows(8 * queries.shape[1], items.shape[0], queries.shape[0]):
        return int8_search.jax_hamming_top_k(queries, items, k)
    return hamming_search.generic(backend, queries, items, n_bits, k)
