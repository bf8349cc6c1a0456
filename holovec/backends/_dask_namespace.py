"""The array namespace of the Dask backend: array-api-compat's ``dask.array`` namespace,
plus what it lacks, made of NumPy's functions applied chunk by chunk."""

from __future__ import annotations

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
