"""The Dask backend: lazily evaluated ``dask.array`` arrays of NumPy chunks, chunked by rows.

dask (and, for the cluster checks, distributed) is imported when this module is, never
by ``import holovec``. Arrays are ``dask.array.Array`` whose chunks are NumPy arrays;
they are computed on whatever scheduler is active: the threads of this process by
default, or the cluster a ``dask.distributed.Client`` points to.

The layout is fixed: vectors are chunked along their leading (row) axes only, the
vector axis is always one chunk, so that every row-wise operation (bind, similarity,
the FFT of HRR, popcount) runs chunk by chunk with NumPy's own kernels and gives the
NumPy backend's values bit for bit. What the array API or Dask lacks goes through
``map_blocks`` with :class:`~holovec.backends.numpy_backend.NumpyBackend`. This module is
the adapter (and the row layout); the kernels are
:class:`~holovec.backends.kernels.dask_kernels.DaskKernels`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import dask.array as da
import numpy as np

from ._dask_namespace import namespace as dask_namespace
from ._dask_namespace import row_chunked, rowwise
from .base import Backend
from .kernels.dask_kernels import DaskKernels
from .numpy_backend import NumpyBackend

#: bytes of one chunk of rows that :meth:`DaskBackend.from_numpy` and row draws aim for
CHUNK_BYTES = 64 * 2**20

_NUMPY = NumpyBackend()


def _format_0d(self: da.Array, spec: str) -> str:
    """``format(x, spec)`` of a dask array: a 0-d array (a similarity of two vectors, say) is
    computed and formatted as its value, ``f"{sim:.3f}"``, as NumPy formats a 0-d array;
    other arrays format as before (``str`` for an empty spec, else ``TypeError``)."""
    if spec and self.ndim == 0:
        return format(np.asarray(self.compute()), spec)
    return object.__format__(self, spec)


# Why: the similarity of two vectors is a 0-d array of the backend that formats like a
# float. Dask's arrays have no __format__ of their own (object's refuses every format spec),
# and the 0-d results of operators and reductions are plain dask arrays, so the method is
# given to dask's class, where dask has none: a 0-d array is computed when it is formatted
# with a spec, as float(x) computes it. Arrays stay lazy until then, batches and graphs too.
if da.Array.__format__ is object.__format__:
    da.Array.__format__ = _format_0d


def row_chunks(n_rows: int, row_bytes: int, chunk_bytes: int | None = None) -> tuple[int, ...]:
    """Chunk sizes along the rows: as many rows as fit ``chunk_bytes`` (default
    :data:`CHUNK_BYTES`) per chunk, at least one."""
    chunk_bytes = CHUNK_BYTES if chunk_bytes is None else chunk_bytes
    per_chunk = max(1, chunk_bytes // max(1, row_bytes))
    if n_rows == 0:
        return (0,)
    full, rest = divmod(n_rows, per_chunk)
    return (per_chunk,) * full + ((rest,) if rest else ())


def _rows_block(fn: Callable, block_info: dict | None = None) -> np.ndarray:
    """One chunk of a row draw, made on the worker: the rows its place in the array names."""
    (start, stop), _ = block_info[None]["array-location"]
    return np.asarray(fn(start, stop))


class DaskBackend(DaskKernels, Backend):
    """``dask.array`` arrays of NumPy chunks, chunked along the rows (the vector axis whole).

    Models on this backend compute lazily: an operation builds a task graph, and
    ``.compute()`` (or :meth:`to_numpy`) runs it on the active scheduler (a
    ``dask.distributed.Client`` if one is made, else threads). ``model.random(n)`` makes
    each chunk of rows where it is computed, from the seed and its first row. A search
    (``search``, ``ItemStore``, ``cleanup``) computes when called: its queries are brought
    to the client (they are sent to every chunk), its result is ``k`` candidates per query.

    Examples
    --------
    >>> from holovec import VSA
    >>> model = VSA.create("MAP", dim=64, backend="dask")
    >>> book = model.random(1000, seed=1)
    >>> type(book).__name__, book.shape
    ('Array', (1000, 64))
    >>> bool((model.to_numpy(book) == VSA.create("MAP", dim=64).random(1000, seed=1)).all())
    True
    """

    name = "dask"
    has_devices = False
    #: the backend whose arrays the chunks are (for models of the chunks: ``block_model``)
    block_backend_name = "numpy"
    lazy = True

    def _namespace(self) -> Any:
        return dask_namespace

    def _resolve_device(self, device: Any) -> Any:
        if device is None or str(device).lower() in ("cpu", "cpu:0"):
            return "cpu"
        raise ValueError(
            f"the dask backend holds NumPy chunks on the CPUs of its workers, not device {device!r}; "
            "use device='cpu' (or None)"
        )

    @property
    def array_type(self) -> type:
        return da.Array

    @property
    def array_type_name(self) -> str:
        return "dask.array.Array"

    def dtype(self, name: str) -> Any:
        return _NUMPY.dtype(name)

    def available_memory(self) -> int | None:
        """Unknown: arrays are made chunk by chunk on the workers, not here (a chunk too large
        for a worker is refused when it is searched)."""
        return None

    # -- layout ---------------------------------------------------------------------------
    def row_chunked(self, x: Any) -> Any:
        """``x`` with its last axis in one chunk (rows keep their chunks): the layout every
        row-wise kernel needs. Arrays chunked along the vector axis are rechunked here."""
        return row_chunked(x)

    def asarray(self, x: Any, dtype: Any = None) -> Any:
        if isinstance(x, np.generic):
            x = np.asarray(x)
        out = super().asarray(x, dtype)
        return self.row_chunked(out)

    def chunk_rows(self, x: Any, row_bytes: int) -> Any:
        if not isinstance(x, da.Array) or x.ndim == 0:
            return x
        rows = row_chunks(x.shape[0], row_bytes)[0]
        return x.rechunk({0: rows}) if max(x.chunks[0], default=0) > rows else x

    def to_numpy(self, x: Any) -> np.ndarray:
        if isinstance(x, da.Array):
            x = x.compute()
        return np.asarray(x)

    def from_numpy(self, x: np.ndarray) -> Any:
        x = np.asarray(x)
        if x.ndim == 0:
            return da.from_array(x)
        row_bytes = x.itemsize * max(1, math.prod(x.shape[1:]))
        chunks = (row_chunks(x.shape[0], row_bytes), *((-1,) * (x.ndim - 1)))
        return da.from_array(x, chunks=chunks)

    def _from_foreign(self, x: Any) -> Any:
        return self.from_numpy(np.asarray(x))

    # -- rows that grow ---------------------------------------------------------------------
    # Dask arrays are lazy and immutable: a write into a buffer would be one more task graph
    # layer over all its chunks. Growing rows stay blocks, merged by join_rows (see
    # holovec.backends.growth.RowBuffer).
    writes_rows = False

    def write_rows(self, buffer: Any, start: int, rows: Any) -> Any:
        """Not on Dask (its arrays are lazy graphs, not memory): ``TypeError``; growing rows
        are kept as blocks and joined (:meth:`join_rows`).

        Parameters
        ----------
        buffer : dask.array.Array
            The rows that would be written into.
        start : int
            The first row.
        rows : dask.array.Array
            The rows.
        """
        raise TypeError("dask arrays are lazy task graphs: rows are joined (join_rows), not written in place")

    def join_rows(self, blocks: list[Any]) -> Any:
        """The blocks one after the other, lazily, rechunked to this backend's row chunks
        (:data:`CHUNK_BYTES` each), so that many small blocks become few chunks.

        Parameters
        ----------
        blocks : list of dask.array.Array
            At least one block; all of one row shape and dtype.
        """
        x = blocks[0] if len(blocks) == 1 else da.concatenate(blocks, axis=0)
        row_bytes = x.dtype.itemsize * max(1, math.prod(x.shape[1:]))
        target = row_chunks(x.shape[0], row_bytes)
        return x if x.chunks[0] == target else x.rechunk({0: target})

    # -- what the array API lacks, chunk by chunk with NumPy's kernels --------------------
    def complex(self, real: Any, imag: Any) -> Any:
        dtype = np.result_type(real.dtype, np.complex64)
        meta = np.empty((0,) * max(real.ndim, imag.ndim), dtype=dtype)
        return da.map_blocks(_NUMPY.complex, real, imag, dtype=dtype, meta=meta)

    def unit_phasor(self, phases: Any) -> Any:
        return rowwise(_NUMPY.unit_phasor, phases, dtype=np.result_type(phases.dtype, np.complex64))

    def real_view(self, x: Any) -> Any:
        x = self.row_chunked(x)
        return rowwise(_NUMPY.real_view, x, dtype=x.real.dtype, width=2 * x.shape[-1])

    def complex_view(self, x: Any) -> Any:
        x = self.row_chunked(x)
        dtype = np.result_type(x.dtype, np.complex64)
        return rowwise(_NUMPY.complex_view, x, dtype=dtype, width=x.shape[-1] // 2)

    def fft(self, x: Any) -> Any:
        return rowwise(_NUMPY.fft, x, dtype=np.result_type(x.dtype, np.complex64))

    def ifft(self, x: Any) -> Any:
        return rowwise(_NUMPY.ifft, x, dtype=np.result_type(x.dtype, np.complex64))

    def rfft(self, x: Any) -> Any:
        dtype = np.result_type(x.dtype, np.complex64)
        return rowwise(_NUMPY.rfft, x, dtype=dtype, width=x.shape[-1] // 2 + 1)

    def irfft(self, x: Any, n: int) -> Any:
        dtype = np.empty(0, x.dtype).real.dtype
        return rowwise(_irfft, x, n, dtype=dtype, width=n)

    def count_nonzero(self, x: Any) -> Any:
        x = self.row_chunked(x)
        return da.map_blocks(_count_nonzero, x, dtype=np.intp, drop_axis=x.ndim - 1)

    # -- the hooks of partitioned work --------------------------------------------------
    def generate_rows(self, fn: Callable, n_rows: int, width: int, dtype: Any) -> Any:
        """Rows ``0 .. n_rows - 1`` of a draw as a lazy array chunked by rows: chunk
        ``[start, stop)`` is ``fn(start, stop)`` (a NumPy array), computed on the worker that
        needs it, so nothing is made on the client. One ``map_blocks`` layer, however many
        chunks."""
        dtype = np.dtype(dtype)
        chunks = (row_chunks(n_rows, width * dtype.itemsize), (width,))
        return da.map_blocks(_rows_block, fn, dtype=dtype, chunks=chunks, meta=np.empty((0, 0), dtype=dtype))

    def synchronize(self) -> None:
        """Nothing to wait for: arrays compute when asked (``.compute()``)."""


def _irfft(x: np.ndarray, n: int) -> np.ndarray:
    return _NUMPY.irfft(x, n)


def _count_nonzero(x: np.ndarray) -> np.ndarray:
    return np.count_nonzero(x, axis=-1)
