"""The Dask backend: lazily evaluated ``dask.array`` arrays of NumPy chunks, chunked by rows.

dask (and, for the cluster checks, distributed) is imported when this module is, never
by ``import holovec``. Arrays are ``dask.array.Array`` whose chunks are NumPy arrays;
they are computed on whatever scheduler is active: the threads of this process by
default, or the cluster a ``dask.distributed.Client`` points to.

The layout is fixed: vectors are chunked along their leading (row) axes only, the
vector axis is always one chunk, so that every row-wise operation (bind, similarity,
the FFT of HRR, popcount) runs chunk by chunk with NumPy's own kernels and gives the
NumPy backend's values bit for bit. What the array API or Dask lacks goes through
``map_blocks`` with NumPy's versions of the kernels. This module is the adapter (and the row
layout, :func:`row_chunks`); the kernels are the Dask versions in :mod:`holovec.kernels`.
"""

from __future__ import annotations

import math
from typing import Any

import dask.array as da
import numpy as np

from .base import Backend
from .dask_namespace import namespace as dask_namespace
from .dask_namespace import row_chunked
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


class DaskBackend(Backend):
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

    def asarray(self, x: Any, dtype: Any = None) -> Any:
        if isinstance(x, np.generic):
            x = np.asarray(x)
        out = super().asarray(x, dtype)
        return row_chunked(out)

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

    def synchronize(self) -> None:
        """Nothing to wait for: arrays compute when asked (``.compute()``)."""
