"""Rows that grow one append at a time, each append costing what it adds.

A :class:`RowBuffer` holds rows of one shape and dtype (the vectors of a symbol table, the
patterns of a memory, a codebook's rows). Concatenating every new row onto all the rows
held costs what is held, so ``n`` single appends cost ``O(n^2)``; the buffer instead keeps
spare capacity, doubled when it runs out, and writes new rows into it: amortised
``O(rows added)`` per append, ``O(log n)`` reallocations for ``n`` appends.

How a write is made in place is the backend's (:func:`~holovec.kernels.rows.write_rows`): slice
assignment for NumPy and torch; for JAX, whose arrays are immutable, one compiled program
that updates a donated buffer (rows padded to a power of two, capacities powers of two, so
that few programs compile). Dask arrays are lazy task graphs, not memory: there the buffer
keeps the appended blocks, merging the last two while the one before is less than twice
the last (so at most ``log2(n) + 1`` blocks, each row merged ``O(log n)`` times), and
joins them lazily when read (:func:`~holovec.kernels.rows.join_rows`, which also merges small chunks).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..backends.base import Backend
from ..backends.shapes import row_class
from .rows import join_rows, write_rows, writes_rows

__all__ = ["RowBuffer"]


class RowBuffer:
    """Rows ``(n, *row_shape)`` of one dtype on a backend, grown by capacity doubling.

    Parameters
    ----------
    backend : Backend
        The backend whose arrays the rows are.
    rows : array, optional
        Rows to start with, ``(n, *row_shape)``, kept without a copy until the first
        append (which copies them into a larger buffer). They fix the row shape and dtype;
        without them the first append does.

    Attributes
    ----------
    reallocations : int
        How many times the rows held were copied into new storage (a larger buffer; on
        Dask, a merge of two blocks): ``O(log n)`` for ``n`` appends where rows are
        written in place.

    Examples
    --------
    >>> import numpy as np
    >>> from holovec.backends import get_backend
    >>> from holovec.kernels.growth import RowBuffer
    >>> buffer = RowBuffer(get_backend("numpy"))
    >>> for i in range(5):
    ...     buffer.append(np.full((1, 3), i, dtype=np.float32))
    >>> buffer.rows.shape, buffer.capacity, buffer.reallocations
    ((5, 3), 8, 3)
    >>> buffer.take([4, 0])[:, 0].tolist()
    [4.0, 0.0]
    """

    def __init__(self, backend: Backend, rows: Any = None) -> None:
        self.backend = backend
        self.row_shape: tuple[int, ...] | None = None
        self.dtype: Any = None
        self.reallocations = 0
        self._n = 0
        self._buffer: Any = None  # (capacity, *row_shape), rows [0, n) filled (writes_rows)
        self._blocks: list[Any] = []  # the blocks of a lazy backend, largest first
        self._sizes: list[int] = []
        self._rows: Any = None  # the filled rows, cached until the next change
        if rows is not None:
            self._adopt(rows)

    # -- what is held ---------------------------------------------------------------------
    def __len__(self) -> int:
        return self._n

    @property
    def shape(self) -> tuple[int, ...]:
        """``(len(self), *row_shape)``, the shape of :attr:`rows`."""
        if self.row_shape is None:
            raise ValueError("the buffer is empty and has no row shape yet: append rows first")
        return (self._n, *self.row_shape)

    @property
    def capacity(self) -> int:
        """Rows the buffer holds before it grows again."""
        if not writes_rows(self.backend):
            return self._n
        return 0 if self._buffer is None else int(self._buffer.shape[0])

    @property
    def rows(self) -> Any:
        """The filled rows ``(len(self), *row_shape)``: a view of the buffer where the
        framework has views (NumPy, torch), else a copy (JAX), or the blocks joined (Dask);
        kept until the next change."""
        if self._rows is None:
            if self.row_shape is None:
                raise ValueError("the buffer is empty and has no row shape yet: append rows first")
            if not writes_rows(self.backend):
                # the blocks stay as they are: a join kept as a block would be copied again
                # by every later merge of a block into it
                self._rows = join_rows(self.backend, self._blocks) if self._blocks else self._zeros(0)
            elif self._buffer is None:
                self._rows = self._zeros(0)
            elif self._buffer.shape[0] == self._n:
                self._rows = self._buffer
            else:
                self._rows = self._buffer[: self._n]
        return self._rows

    array = rows

    # -- changes --------------------------------------------------------------------------
    def append(self, rows: Any) -> None:
        """Add ``rows`` ``(k, *row_shape)`` after those held: ``O(k)`` amortised.

        Parameters
        ----------
        rows : array
            Rows of the backend, of the buffer's row shape and dtype.
        """
        self._check(rows)
        k = int(rows.shape[0])
        if k == 0:
            return
        if not writes_rows(self.backend):
            self._append_block(rows, k)
        else:
            if self._n + k > self.capacity:
                self._grow(self._n + k)
            self._buffer = write_rows(self.backend, self._buffer, self._n, rows)
        self._n += k
        self._rows = None

    def take(self, indices: Any) -> Any:
        """The rows at ``indices`` (host ints of any shape, or an int array of the backend):
        shape ``(*indices.shape, *row_shape)``, gathered from the buffer without copying
        the filled part first. ``IndexError`` for a host index outside ``[0, len)``.

        Parameters
        ----------
        indices : array_like of int
            Rows to gather.
        """
        backend, xp = self.backend, self.backend.xp
        if backend.is_array(indices):
            flat, shape = xp.reshape(indices, (-1,)), tuple(indices.shape)
        else:
            host = np.asarray(indices)
            if host.dtype.kind not in "iu" and host.size:
                raise TypeError(f"row indices must be integers, got {host.dtype}")
            shape = host.shape
            host = host.reshape(-1)
            if host.size and (int(host.min()) < 0 or int(host.max()) >= self._n):
                bad = host[(host < 0) | (host >= self._n)][0]
                raise IndexError(f"row {int(bad)} is outside the {self._n} rows held")
            if host.size and not writes_rows(backend) and len(self._blocks) > 1:
                out = self._take_from_blocks(host)
                return out if len(shape) == 1 else xp.reshape(out, (*shape, *self.shape[1:]))
            flat = backend.asarray(np.ascontiguousarray(host, dtype=np.int32))
        row_shape = self.shape[1:]
        source = self._buffer if writes_rows(backend) else self.rows
        if source is None:  # nothing held, and no index asked for
            return xp.reshape(self._zeros(0), (*shape, *row_shape))
        out = xp.take(source, flat, axis=0)
        return out if len(shape) == 1 else xp.reshape(out, (*shape, *row_shape))

    def _take_from_blocks(self, host: np.ndarray) -> Any:
        """Rows of a lazy backend's blocks at the host indices ``host`` (1-d): a gather from
        each block holding some, then one gather putting them in order, so that the result
        depends on the blocks only (not on a join of all of them)."""
        backend, xp = self.backend, self.backend.xp
        starts = np.cumsum([0, *self._sizes])
        block = np.searchsorted(starts, host, side="right") - 1
        order = np.argsort(block, kind="stable")
        parts = []
        for b in np.unique(block).tolist():
            local = host[block == b] - starts[b]
            parts.append(xp.take(self._blocks[b], backend.asarray(local.astype(np.int32)), axis=0))
        gathered = parts[0] if len(parts) == 1 else xp.concat(parts, axis=0)
        if np.array_equal(order, np.arange(host.size)):
            return gathered
        inverse = np.empty_like(order)
        inverse[order] = np.arange(order.size)
        return xp.take(gathered, backend.asarray(inverse.astype(np.int32)), axis=0)

    def truncate(self, n: int) -> None:
        """Keep the first ``n`` rows only. The rows kept are not copied; the next append
        copies them into new storage, so that it never writes into rows handed out before.

        Parameters
        ----------
        n : int
            The rows to keep (at most ``len(self)``).
        """
        if not 0 <= n <= self._n:
            raise ValueError(f"cannot keep {n} of {self._n} rows")
        if n == self._n:
            return
        kept = self.rows[:n]
        self.clear()
        self._adopt(kept)

    def clear(self) -> None:
        """Forget every row (the row shape and dtype stay)."""
        self._n = 0
        self._buffer, self._rows = None, None
        self._blocks, self._sizes = [], []

    # -- inside -----------------------------------------------------------------------------
    def _adopt(self, rows: Any) -> None:
        self._check(rows)
        self._n = int(rows.shape[0])
        if writes_rows(self.backend):
            self._buffer = rows  # full: the first append copies it, never writes into it
        elif self._n:
            self._blocks, self._sizes = [rows], [self._n]
        self._rows = rows

    def _check(self, rows: Any) -> None:
        shape = tuple(rows.shape)
        if len(shape) < 1:
            raise ValueError(f"rows must have a leading axis of rows, got shape {shape}")
        if self.row_shape is None:
            self.row_shape, self.dtype = shape[1:], rows.dtype
            return
        if shape[1:] != self.row_shape:
            raise ValueError(f"rows of shape {shape[1:]} given to a buffer of rows of shape {self.row_shape}")
        if rows.dtype != self.dtype:
            raise TypeError(f"rows of dtype {rows.dtype} given to a buffer of {self.dtype}")

    def _zeros(self, n: int) -> Any:
        xp = self.backend.xp
        return xp.zeros((n, *self.row_shape), dtype=self.dtype, device=self.backend.device)

    def _grow(self, need: int) -> None:
        """A buffer of the next power of two of rows at least ``need``, holding the rows."""
        capacity = row_class(need)  # a power of two: few buffer shapes, few programs on JAX
        if self._buffer is None:
            self._buffer = self._zeros(capacity)
            return
        # the whole old buffer written into the new one, spare rows too: its shape (a power
        # of two, after the first growth) is one of few, where its filled part's would be new
        # for every length; and no third array besides the two buffers
        old, self._buffer = self._buffer, None
        self._buffer = write_rows(self.backend, self._zeros(capacity), 0, old)
        self.reallocations += 1

    def _append_block(self, rows: Any, k: int) -> None:
        blocks, sizes = self._blocks, self._sizes
        blocks.append(rows)
        sizes.append(k)
        # each block at least twice the next: at most log2(n) + 1 blocks
        while len(sizes) > 1 and sizes[-2] < 2 * sizes[-1]:
            blocks[-2:] = [join_rows(self.backend, blocks[-2:])]
            sizes[-2:] = [sizes[-2] + sizes[-1]]
            self.reallocations += 1

    def __getstate__(self) -> dict[str, Any]:
        # a copy holds the filled rows only (as one full block), not the spare capacity
        # (and the backend by name: a framework's module does not pickle)
        state = dict(self.__dict__)
        rows = self.rows if self.row_shape is not None else None
        if rows is not None and writes_rows(self.backend) and self._n < self.capacity:
            rows = self.backend.xp.asarray(rows, copy=True)  # a view would take its base along
        backend = (self.backend.name, self.backend.device_name)
        state.update(backend=backend, _buffer=None, _blocks=[], _sizes=[], _rows=None, _n=0, _saved_rows=rows)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        from ..backends import get_backend

        rows = state.pop("_saved_rows", None)
        self.__dict__.update(state)
        self.backend = get_backend(*state["backend"])
        if rows is not None and rows.shape[0]:
            self._adopt(rows)

    def __repr__(self) -> str:
        shape = "?" if self.row_shape is None else self.row_shape
        return f"RowBuffer({self._n} rows of shape {shape}, capacity {self.capacity}, {self.backend!r})"
