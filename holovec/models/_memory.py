"""Memory a model's work needs, estimated before allocating, and refused beyond the device's.

A draw's peak memory per element (``VSAModel._draw_bytes_per_element``) was measured with
NumPy for each model's default dtype and scales with the dtype's size; a request above
:data:`CHECKED_ALLOCATION_BYTES` is compared with the memory the device has available
(reading it costs microseconds, so small requests are not checked), and refused with an
:class:`AllocationError` that says how much was needed.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

#: bytes of temporary memory a similarity_matrix chunk may use
CHUNK_BYTES = 64 * 2**20
#: bytes a draw's temporaries take at a time: a larger draw is made block by block of rows
#: (row i never depends on the rows drawn with it), so its peak is its output and one block
DRAW_BLOCK_BYTES = 64 * 2**20
#: requests for more memory than this are compared with the memory available first
CHECKED_ALLOCATION_BYTES = 256 * 2**20


class AllocationError(MemoryError, ValueError):
    """A request for more memory than the device has available, refused before allocating.

    Both a ``MemoryError`` and a ``ValueError`` (a size that cannot be served is a bad
    argument), so that either ``except`` clause catches it."""


def itemsize(dtype_name: str) -> int:
    """Bytes of one element of a dtype named by the backends (bfloat16 included)."""
    return 2 if dtype_name == "bfloat16" else np.dtype(dtype_name).itemsize


def format_bytes(n: int) -> str:
    """``n`` bytes for a message: ``1.5 GiB``, ``12 bytes``."""
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} bytes"


def draw_bytes(model: Any, n_rows: int, per_element: float) -> int:
    """About the peak memory of a draw of ``n_rows`` vectors: ``per_element`` bytes per
    element of the model's default dtype, scaled to its dtype, for at most
    :func:`draw_block_rows` rows at a time, and the output for the rest."""
    block = draw_block_rows(model, per_element)
    if n_rows <= block:
        return _all_at_once_bytes(model, n_rows, per_element)
    output = n_rows * model.vector_length * itemsize(model.dtype_name)
    return output + _all_at_once_bytes(model, block, per_element)


def draw_block_rows(model: Any, per_element: float) -> int:
    """Rows of a large draw made at a time (those whose draw takes about
    :data:`DRAW_BLOCK_BYTES`), written into the output one block after another."""
    return max(1, DRAW_BLOCK_BYTES // max(1, _all_at_once_bytes(model, 1, per_element)))


def _all_at_once_bytes(model: Any, n_rows: int, per_element: float) -> int:
    scale = itemsize(model.dtype_name) / itemsize(model.default_dtype)
    return math.ceil(n_rows * model.dim * per_element * scale)


def check_memory(backend: Any, needed: int, what: str) -> None:
    """``AllocationError`` if about ``needed`` bytes exceed the memory available on the
    backend's device (checked only for requests above ``CHECKED_ALLOCATION_BYTES``)."""
    if needed <= CHECKED_ALLOCATION_BYTES:
        return
    available = backend.available_memory()
    if available is not None and needed > available:
        raise AllocationError(
            f"{what} needs about {needed} bytes ({format_bytes(needed)} at its peak, as "
            f"measured with NumPy), more than the {format_bytes(available)} available on device "
            f"{backend.device_name}; use a smaller dim, or draw fewer rows at a time "
            "(row i of random(n, seed=s) does not depend on n)"
        )
