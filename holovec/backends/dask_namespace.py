"""The array namespace of the Dask backend: array-api-compat's ``dask.array`` namespace,
plus what it lacks, made of NumPy's functions applied chunk by chunk (:func:`rowwise`, on
arrays whose vector axis is one chunk: :func:`row_chunked`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import array_api_compat.dask.array as dask_xp
import dask.array as da
import numpy as np


class DaskNamespace:
    """``array_api_compat.dask.array`` with the functions it lacks (``take_along_axis``).

    Attribute lookups fall through to that namespace, so models see one array API."""

    __name__ = "holovec.backends.dask_namespace"

    def __getattr__(self, name: str) -> Any:
        return getattr(dask_xp, name)

    @staticmethod
    def take_along_axis(x: Any, indices: Any, /, *, axis: int = -1) -> Any:
        """NumPy's ``take_along_axis`` per chunk, the axis taken along in one chunk."""
        axis = axis % x.ndim
        x = x.rechunk({axis: -1})
        indices = indices.rechunk({axis: -1})
        if x.ndim != indices.ndim:
            raise ValueError(
                f"take_along_axis: x and indices need as many axes, got {x.ndim} and {indices.ndim}"
            )
        # leading axes chunked alike (the indices' chunks), broadcasting axes of length 1
        x = x.rechunk(
            {a: indices.chunks[a] for a in range(x.ndim) if a != axis and x.shape[a] == indices.shape[a]}
        )
        return da.map_blocks(np.take_along_axis, x, indices, axis=axis, dtype=x.dtype, chunks=indices.chunks)


namespace = DaskNamespace()


def row_chunked(x: Any) -> Any:
    """``x`` with its last axis in one chunk (rows keep their chunks): the layout every
    row-wise kernel needs. Arrays chunked along the vector axis are rechunked here."""
    if x.ndim and x.numblocks[-1] != 1:
        x = x.rechunk({x.ndim - 1: -1})
    return x


def rowwise(fn: Callable, *arrays: Any, dtype: Any, width: int | None = None) -> Any:
    """``fn`` (a NumPy function of whole rows) applied chunk by chunk; ``width``: the
    result's last axis where it differs from the first array's."""
    arrays = tuple(row_chunked(a) if isinstance(a, da.Array) else a for a in arrays)
    first = next(a for a in arrays if isinstance(a, da.Array))
    meta = np.empty((0,) * first.ndim, dtype=dtype)  # Dask need not call fn to learn it
    if width is None:
        return da.map_blocks(fn, *arrays, dtype=dtype, meta=meta)
    chunks = (*first.chunks[:-1], (width,))
    return da.map_blocks(fn, *arrays, dtype=dtype, chunks=chunks, meta=meta)
