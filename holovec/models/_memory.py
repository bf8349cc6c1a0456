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
    element of the model's default dtype, scaled to its dtype."""
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
