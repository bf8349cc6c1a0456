"""What the memories share: cues and patterns as rows, chunks of rows of bounded memory,
and the checks of a loaded memory's fields."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ..backends import dtype_name
from ..models.base import CHUNK_BYTES


def as_rows(model: Any, x: Any, name: str) -> tuple[Any, bool]:
    """``x`` (checked: one vector ``(vector_length,)`` or a batch ``(n, vector_length)``)
    as rows ``(n, vector_length)``, and whether it was one vector."""
    model.check(x, name)
    if x.ndim not in (1, 2):
        raise ValueError(
            f"{name} must be one vector ({model.vector_length},) or a batch (n, {model.vector_length}), "
            f"got shape {tuple(x.shape)}"
        )
    return (x[None, :], True) if x.ndim == 1 else (x, False)


def itemsize(dtype: Any) -> int:
    """Bytes of one element of a backend dtype."""
    name = dtype_name(dtype)
    return 2 if name == "bfloat16" else np.dtype(name).itemsize


def row_chunks(n_rows: int, bytes_per_row: int, budget: int = CHUNK_BYTES) -> Iterator[slice]:
    """Slices of ``n_rows`` rows, each chunk using at most about ``budget`` bytes of
    temporary memory (one row at least)."""
    size = max(1, budget // max(1, bytes_per_row))
    for start in range(0, n_rows, size):
        yield slice(start, min(start + size, n_rows))


def joined(model: Any, parts: list[Any], single: bool) -> Any:
    """The chunks' results as one array (the single row of one vector's answer)."""
    out = parts[0] if len(parts) == 1 else model.xp.concat(parts, axis=0)
    return out[0] if single else out


def count_field(fields: dict[str, Any], key: str, where: str) -> int:
    """A non-negative int of a loaded file's fields, else ``ValueError`` naming the file."""
    value = fields.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{where}: bad {key} in the record: expected an int >= 0, got {value!r}")
    return value
