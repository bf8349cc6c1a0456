"""Exact Hamming top-k over bit-packed vectors on the host CPU, with a fused running top-k.

The kernels behind :func:`holovec.kernels.hamming.hamming_top_k` for arrays in host
memory (NumPy, and torch on the CPU through a zero-copy view). Queries and items are
uint8 rows of whole 64-bit words (``n_bytes % 8 == 0``) whose padding bits are zero; the
result is, for each query, the ``k`` smallest Hamming distances and their item indices,
ordered by (distance, index): equal distances lowest index first, exactly as a stable
sort of the full distance matrix orders them.

Two engines give identical results:

- NumPy (always there): XOR and ``np.bitwise_count`` on uint64 words, a block of
  items at a time whose temporaries stay in the CPU's cache, on every core (NumPy's
  kernels release the GIL); a running top-k per query over int64 keys
  ``distance << 32 | index`` (unique, so ``np.partition`` needs no tie rule).
- numba (a dependency where it ships wheels): one compiled loop, XOR + popcount
  (``vpopcntq`` where the CPU has it) per item with the running top-k fused in, on
  every core (``prange``); imported the first time it is needed, never at
  ``import holovec``.

Which engine runs: :data:`accelerator` (``None``: numba where it imports, else NumPy, and
NumPy for searches too small to pay for loading numba;
``"numba"`` or ``"numpy"`` to choose), read at each call, set from the
``HOLOVEC_ACCELERATOR`` environment variable (``numba``, ``numpy``/``none``) at import.
"""

from __future__ import annotations

import os
import threading
from typing import Any

import numpy as np

from ..backends.host import thread_pool, usable_cores

__all__ = ["accelerator", "engine", "hamming_top_k"]


def _accelerator_from_env() -> str | None:
    value = os.environ.get("HOLOVEC_ACCELERATOR", "").strip().lower()
    if value in ("", "auto"):
        return None
    if value in ("none", "numpy", "off", "0"):
        return "numpy"
    if value == "numba":
        return "numba"
    raise ValueError(f"HOLOVEC_ACCELERATOR={value!r}: expected 'numba', 'numpy' (or 'none') or 'auto'")


#: the engine of :func:`hamming_top_k`: ``None`` (numba if installed, else NumPy),
#: ``"numba"`` (an ImportError if it is missing) or ``"numpy"``
accelerator: str | None = _accelerator_from_env()

#: k up to which the numba kernel keeps its running top-k by insertion (larger k: the
#: kernel computes blocks of distances and NumPy selects)
_FUSED_MAX_K = 64
#: 64-bit word comparisons below which NumPy's engine serves when the choice is automatic
#: (about 2 ms of it on one core; loading numba takes 0.5 s, compiling it the first time 3)
_SMALL_WORK = 2**21
#: bytes of XOR temporaries per NumPy block (within a core's L2 cache)
_BLOCK_BYTES = 512 * 1024
#: items per chunk between two merges of the running top-k (NumPy engine)
_CHUNK_ITEMS = 4096

_numba_kernels: Any = None  # (fused top-k, distance block), compiled on first use
_numba_missing = False
# numba's default threading layer (workqueue) aborts the process when two threads launch
# parallel kernels at once: searches from several threads take turns (each uses every core)
_numba_lock = threading.Lock()


def _numba() -> Any:
    """The numba kernels, or ``None`` where numba is not installed."""
    global _numba_kernels, _numba_missing
    if _numba_kernels is None and not _numba_missing:
        from .packed_numba import kernels

        try:
            _numba_kernels = kernels()
        except ImportError:
            _numba_missing = True
    return _numba_kernels


def engine(work: int | None = None) -> str:
    """The engine :func:`hamming_top_k` uses now: ``"numba"`` or ``"numpy"``; for ``work``
    word comparisons below :data:`_SMALL_WORK`, NumPy where the choice is automatic (a
    small search takes NumPy a few milliseconds, and a process need not load numba)."""
    if accelerator == "numpy" or (accelerator is None and work is not None and work < _SMALL_WORK):
        return "numpy"
    if accelerator == "numba":
        if _numba() is None:
            raise ImportError("accelerator 'numba' asked for, but numba is not installed: pip install numba")
        return "numba"
    if accelerator is not None:
        raise ValueError(f"accelerator must be None, 'numba' or 'numpy', got {accelerator!r}")
    return "numba" if _numba() is not None else "numpy"


def as_words(x: np.ndarray) -> np.ndarray:
    """uint8 rows ``(n, 8 w)`` as uint64 words ``(n, w)`` (a view where the rows are
    contiguous)."""
    x = np.ascontiguousarray(x, dtype=np.uint8)
    if x.shape[-1] % 8:
        x = np.pad(x, ((0, 0), (0, (-x.shape[-1]) % 8)))
    return x.view(np.uint64)


def _decode(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return (keys >> 32).astype(np.int32), (keys & 0xFFFFFFFF).astype(np.int64)


def _merge(best: np.ndarray | None, keys: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` smallest keys per row of ``best`` and ``keys`` together (unsorted)."""
    if best is not None:
        keys = np.concatenate([best, keys], axis=1)
    if keys.shape[1] > k:
        keys = np.partition(keys, k - 1, axis=1)[:, :k]
    return keys


def _numpy_part(q: np.ndarray, items: np.ndarray, offset: int, k: int) -> np.ndarray:
    """Keys of the ``k`` nearest of ``items`` (global indices from ``offset``) per query."""
    n_q, w = q.shape
    n = items.shape[0]
    q_rows = max(1, min(n_q, _BLOCK_BYTES // (8 * w * 64)))
    i_rows = max(1, min(n, _BLOCK_BYTES // (8 * w * q_rows)))
    chunk = max(_CHUNK_ITEMS, k)
    xor = np.empty((q_rows, i_rows, w), dtype=np.uint64)
    counts = np.empty((q_rows, i_rows, w), dtype=np.uint8)
    # narrow sums add faster (measured 1.25x); distances past 65535 bits need wide ones
    total = np.uint16 if 64 * w < 2**16 else np.int64
    sums = np.empty((q_rows, i_rows), dtype=total)
    best = None
    for c0 in range(0, n, chunk):
        c1 = min(c0 + chunk, n)
        dist = np.empty((n_q, c1 - c0), dtype=np.int64)
        for i0 in range(c0, c1, i_rows):
            i1 = min(i0 + i_rows, c1)
            for q0 in range(0, n_q, q_rows):
                q1 = min(q0 + q_rows, n_q)
                x = xor[: q1 - q0, : i1 - i0]
                np.bitwise_xor(q[q0:q1, None, :], items[None, i0:i1, :], out=x)
                cnt = counts[: q1 - q0, : i1 - i0]
                np.bitwise_count(x, out=cnt)
                part = sums[: q1 - q0, : i1 - i0]
                np.add.reduce(cnt, axis=-1, dtype=total, out=part)
                dist[q0:q1, i0 - c0 : i1 - c0] = part
        dist <<= 32
        dist |= np.arange(offset + c0, offset + c1, dtype=np.int64)
        best = _merge(best, dist, k)
    return best


def _parts(n: int, n_parts: int) -> list[tuple[int, int]]:
    step = -(-n // n_parts)
    return [(s, min(s + step, n)) for s in range(0, n, step)]


def hamming_top_k(queries: np.ndarray, items: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` (at most ``len(items)``) smallest Hamming distances of each query.

    Parameters
    ----------
    queries, items:
        uint8 arrays ``(n_q, n_bytes)`` and ``(n, n_bytes)``, bits packed, padding bits zero.
    k:
        How many neighbours per query.

    Returns
    -------
    ``(distances, indices)``: int32 and int64 arrays ``(n_q, min(k, n))``, ordered by
    distance, equal distances lowest index first.
    """
    n_q, n = int(queries.shape[0]), int(items.shape[0])
    k = min(int(k), n)
    if n >= 2**32:
        raise ValueError(f"at most 2**32 - 1 items per search, got {n}")
    if n_q == 0 or k == 0:
        return np.zeros((n_q, k), np.int32), np.zeros((n_q, k), np.int64)
    q, b = as_words(queries), as_words(items)
    if engine(n_q * n * q.shape[1]) == "numba":
        keys = _numba_top_k(q, b, k)
    else:
        keys = _numpy_top_k(q, b, k)
    keys.sort(axis=1)
    return _decode(keys)


def _numpy_top_k(q: np.ndarray, b: np.ndarray, k: int) -> np.ndarray:
    n_q, n = q.shape[0], b.shape[0]
    cores = usable_cores()
    if cores < 2 or n_q * n < 4096:
        return _numpy_part(q, b, 0, k)
    if n_q >= 4 * cores:  # queries split over the cores: each reads every item once
        rows = _parts(n_q, cores)
        parts = list(thread_pool().map(lambda r: _numpy_part(q[r[0] : r[1]], b, 0, k), rows))
        return np.concatenate(parts, axis=0)
    ranges = _parts(n, cores)  # few queries: items split over the cores, candidates merged
    parts = list(thread_pool().map(lambda r: _numpy_part(q, b[r[0] : r[1]], r[0], k), ranges))
    return _merge(None, np.concatenate(parts, axis=1), k)


def _numba_top_k(q: np.ndarray, b: np.ndarray, k: int) -> np.ndarray:
    with _numba_lock:
        return _numba_top_k_locked(q, b, k)


def _numba_top_k_locked(q: np.ndarray, b: np.ndarray, k: int) -> np.ndarray:
    fused, distances = _numba()
    n_q, n = q.shape[0], b.shape[0]
    if k <= _FUSED_MAX_K:
        import numba

        threads = numba.get_num_threads()
        # tasks: query ranges x item ranges, at least one per thread
        q_parts = min(n_q, threads)
        i_parts = max(1, -(-threads // q_parts)) if n > 1024 else 1
        out = fused(q, b, k, q_parts, i_parts)  # (i_parts, n_q, k) keys
        if i_parts == 1:
            return out[0]
        return _merge(None, np.concatenate(list(out), axis=1), k)
    best = None
    chunk = max(_CHUNK_ITEMS, k)
    for c0 in range(0, n, chunk):
        c1 = min(c0 + chunk, n)
        keys = distances(q, b[c0:c1]) << 32
        keys |= np.arange(c0, c1, dtype=np.int64)
        best = _merge(best, keys, k)
    return best
