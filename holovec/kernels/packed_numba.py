"""numba kernels for :mod:`holovec.kernels.packed_search` (imported only where numba is installed).

XOR + popcount over uint64 words (LLVM's ``ctpop``: ``vpopcntq`` on CPUs with AVX-512
VPOPCNTDQ, ``popcnt`` elsewhere), items in blocks that stay in the L1/L2 cache while every
query of a task passes over them, and for small ``k`` a running top-k per query kept
sorted by insertion. Keys are ``distance << 32 | index``: unique, so "smaller key" is
exactly "smaller distance, then lower index".

Importable without numba (so that doctest collection passes): :func:`kernels` then
raises ImportError.
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    import numba
    from numba import types
    from numba.extending import intrinsic
except ImportError:  # numba is optional: holovec.kernels.packed_search then uses NumPy
    numba = None

if numba is not None:
    _INT64_MAX = np.iinfo(np.int64).max
    #: items per cache block (128 items of 1,256 bytes: 160 KiB, in L2)
    _ITEMS_PER_BLOCK = 128

    @intrinsic
    def _popcount(typingctx: Any, x: Any) -> Any:
        """Set bits of an integer (LLVM ``ctpop``)."""
        if not isinstance(x, types.Integer):
            return None

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return builder.ctpop(args[0])

        return x(x), codegen

    @numba.njit(inline="always")
    def _distance(q: Any, qi: int, b: Any, j: int, w: int) -> int:
        d = np.uint64(0)
        for x in range(w):
            d += _popcount(q[qi, x] ^ b[j, x])
        return np.int64(d)

    @numba.njit(inline="always")
    def _distances4(q: Any, qi: int, b: Any, j: int, w: int) -> tuple[int, int, int, int]:
        """Distances of item ``j`` to queries ``qi .. qi + 3``: each item word is loaded once
        for four queries (1.4x faster than one query at a time, measured)."""
        d0 = np.uint64(0)
        d1 = np.uint64(0)
        d2 = np.uint64(0)
        d3 = np.uint64(0)
        for x in range(w):
            v = b[j, x]
            d0 += _popcount(v ^ q[qi, x])
            d1 += _popcount(v ^ q[qi + 1, x])
            d2 += _popcount(v ^ q[qi + 2, x])
            d3 += _popcount(v ^ q[qi + 3, x])
        return np.int64(d0), np.int64(d1), np.int64(d2), np.int64(d3)

    @numba.njit(inline="always")
    def _insert(top: Any, k: int, key: int) -> None:
        """Insert ``key`` into the ascending ``top`` (length ``k``) if it beats the last."""
        if key < top[k - 1]:
            p = k - 1
            while p > 0 and top[p - 1] > key:
                top[p] = top[p - 1]
                p -= 1
            top[p] = key

    @numba.njit(parallel=True, nogil=True, cache=True)
    def _fused_top_k(q: Any, b: Any, k: int, q_parts: int, i_parts: int) -> Any:
        n_q, w = q.shape
        n = b.shape[0]
        out = np.full((i_parts, n_q, k), _INT64_MAX, dtype=np.int64)
        q_step = (n_q + q_parts - 1) // q_parts
        i_step = (n + i_parts - 1) // i_parts
        for t in numba.prange(q_parts * i_parts):
            qp = t // i_parts
            ip = t - qp * i_parts
            q0 = qp * q_step
            q1 = min(q0 + q_step, n_q)
            i0 = ip * i_step
            i1 = min(i0 + i_step, n)
            for j0 in range(i0, i1, _ITEMS_PER_BLOCK):
                j1 = min(j0 + _ITEMS_PER_BLOCK, i1)
                qi = q0
                while qi + 4 <= q1:
                    for j in range(j0, j1):
                        d0, d1, d2, d3 = _distances4(q, qi, b, j, w)
                        _insert(out[ip, qi], k, (d0 << 32) | j)
                        _insert(out[ip, qi + 1], k, (d1 << 32) | j)
                        _insert(out[ip, qi + 2], k, (d2 << 32) | j)
                        _insert(out[ip, qi + 3], k, (d3 << 32) | j)
                    qi += 4
                while qi < q1:
                    top = out[ip, qi]
                    for j in range(j0, j1):
                        _insert(top, k, (_distance(q, qi, b, j, w) << 32) | j)
                    qi += 1
        return out

    @numba.njit(parallel=True, nogil=True, cache=True)
    def _distances(q: Any, b: Any) -> Any:
        n_q, w = q.shape
        n = b.shape[0]
        out = np.empty((n_q, n), dtype=np.int64)
        n_blocks = (n + _ITEMS_PER_BLOCK - 1) // _ITEMS_PER_BLOCK
        for blk in numba.prange(n_blocks):
            j0 = blk * _ITEMS_PER_BLOCK
            j1 = min(j0 + _ITEMS_PER_BLOCK, n)
            qi = 0
            while qi + 4 <= n_q:
                for j in range(j0, j1):
                    out[qi, j], out[qi + 1, j], out[qi + 2, j], out[qi + 3, j] = _distances4(q, qi, b, j, w)
                qi += 4
            while qi < n_q:
                for j in range(j0, j1):
                    out[qi, j] = _distance(q, qi, b, j, w)
                qi += 1
        return out


def kernels() -> tuple[Any, Any]:
    """``(fused_top_k(q, b, k, q_parts, i_parts), distances(q, b))`` on uint64 words."""
    if numba is None:
        raise ImportError("numba is not installed: pip install numba")
    return _fused_top_k, _distances
