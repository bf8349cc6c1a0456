"""Products and row-wise maps in blocks: results that do not depend on how rows are
grouped, and memory bounded by a chunk."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class BlockedProducts:
    """The blocked kernels of :class:`~holovec.backends.Backend` (a mixin: it uses the
    adapter's ``xp``, ``device``, ``matmul`` and ``vecdot``)."""

    #: whether a gather over a codebook beats a dense matrix product (measured: NumPy on
    #: the CPU yes; torch and JAX no, and a GPU prefers the product)
    gather_beats_matmul: bool = False

    def row_blocked_matmul(self, left: Any, right: Any, block: int) -> Any:
        """``left @ right`` (``(n, k) @ (k, m) -> (n, m)``) as products of exactly ``block``
        rows of ``left`` each: the rows ``[0, block)``, ``[block, 2 block)``, ..., the last
        block overlapping the one before it, or zero-padded where ``n < block``.

        Matrix libraries choose kernels, threads and summation orders by the shapes of a
        product, so a row's rounded result can change with the number of rows it comes
        with (or its position among them). With every product of one shape, a row's result
        depends on the row alone: equal rows give equal results, and splitting the rows
        into chunks (of any size) changes nothing."""
        xp = self.xp
        n = left.shape[0]
        if n <= block:
            if n < block:
                pad = xp.zeros((block - n, left.shape[1]), dtype=left.dtype, device=self.device)
                left = xp.concat([left, pad], axis=0)
            return self.matmul(left, right)[:n]
        starts = list(range(0, n - block + 1, block))
        tail = n - (starts[-1] + block)
        parts = [self.matmul(left[s : s + block], right) for s in starts]
        if tail:
            parts.append(self.matmul(left[n - block :], right)[block - tail :])
        return xp.concat(parts, axis=0)

    def row_squared_norms(self, x: Any, block: int) -> Any:
        """Squared Euclidean norms ``sum(|x|**2)`` of the rows of a 2-d array (real results),
        each independent of the other rows (see :meth:`row_blocked_matmul`; compiled
        backends reduce in blocks of ``block`` rows)."""
        return self.xp.real(self.vecdot(x, x))

    def map_item_chunks(
        self, fn: Callable, queries: tuple, items: tuple, chunk: int, parallel: bool, cache: dict
    ) -> Any:
        """``fn(queries, items)`` (scores ``(n_q, n)`` of queries against items, both tuples of
        arrays whose first axis counts them) computed for chunks of ``chunk`` items at a time,
        joined on the last axis: memory bounded by the chunk, time linear in the items.
        ``parallel``: chunks may run in threads (kernels that use one core). ``cache``: where
        compiled backends keep the compiled loop (the model's kernel cache)."""
        starts = range(0, items[0].shape[0], chunk)

        def one(start: int) -> Any:
            return fn(queries, tuple(a[start : start + chunk] for a in items))

        parts = self.map_chunks(one, starts) if parallel else [one(s) for s in starts]
        return self.xp.concat(parts, axis=-1)

    def map_chunks(self, fn: Callable, chunks: Any) -> list:
        """``[fn(c) for c in chunks]``; backends may run single-threaded kernels in parallel."""
        return [fn(c) for c in chunks]

    def map_row_blocks(self, fn: Callable, x: Any, rows: int, width: int, dtype: Any) -> Any:
        """``fn(x)`` for a row-wise function ``fn`` whose result has shape ``(len(x), width)``
        and ``dtype``. Backends whose kernels run on one core (NumPy) apply it to blocks of
        ``rows`` rows, whose temporaries stay in cache, on every core, written into one
        output; the others call it once (their compilers fuse the temporaries)."""
        return fn(x)
