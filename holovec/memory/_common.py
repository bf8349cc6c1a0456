"""What the memories share: cues and patterns as rows, chunks of rows of bounded memory,
and the checks of a loaded memory's fields."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any, NamedTuple

import numpy as np

from ..backends import dtype_name
from ..backends.shapes import pad_rows
from ..models.base import CHUNK_BYTES, VSAModel
from ..models.registry import require_capability


class Answer(NamedTuple):
    """How the answer to rows made by :func:`as_rows` is given back: its first ``n`` rows
    (the rest pad the batch to a shape class), the row alone for ``single`` vector."""

    single: bool
    n: int

    def of(self, out: Any) -> Any:
        """``out`` ``(rows, ...)`` as the answer: trimmed to ``n`` rows, one for a single."""
        if int(out.shape[0]) != self.n:
            out = out[: self.n]
        return out[0] if self.single else out


def as_rows(model: Any, x: Any, name: str, *, pad: bool = False) -> tuple[Any, Answer]:
    """``x`` (checked: one vector ``(vector_length,)`` or a batch ``(n, vector_length)`` of
    the model, finite, its elements values of the model: +-1 for MAP, bits for BSC) as rows
    ``(n, vector_length)``, and how to give back an answer of those rows (:class:`Answer`).

    ``pad`` (cues, never what is stored): rows padded to their shape class where the backend
    compiles per shape (:func:`holovec.backends.shapes.pad_rows`), before the value checks,
    so that every number of cues shares the programs of its class."""
    model.check(x, name)
    if x.ndim not in (1, 2):
        raise ValueError(
            f"{name} must be one vector ({model.vector_length},) or a batch (n, {model.vector_length}), "
            f"got shape {tuple(x.shape)}"
        )
    rows = x[None, :] if x.ndim == 1 else x
    n = int(rows.shape[0])
    if pad:
        rows, n = pad_rows(model.backend, rows)
    check_finite(model, rows, name)
    model.check_values(rows, name)  # a BSC byte of 7 or a MAP 0.5 is no vector of the model
    return rows, Answer(x.ndim == 1, n)


def check_finite(model: Any, x: Any, name: str) -> None:
    """``ValueError`` if float or complex ``x`` holds NaN or infinity (a non-finite cue or
    pattern has no similarity with anything, and would poison every later answer); one
    reduction, skipped for integer and bit vectors and for arrays traced by a compiler."""
    xp, backend = model.xp, model.backend
    if not xp.isdtype(x.dtype, ("real floating", "complex floating")) or backend.is_traced(x):
        return
    if not bool(backend.program(partial(_all_finite, xp), ("holovec.memory.all_finite",))(x)):
        raise ValueError(f"{name} holds NaN or infinity: vectors to store or recall must be finite")


def _all_finite(xp: Any, x: Any) -> Any:
    return xp.all(xp.isfinite(x))


def sums_bundles(model: Any) -> bool:
    """Whether ``model``'s bundle is a sum of lifted vectors (what modern Hopfield attention
    and SDM counters add up)."""
    return bool(getattr(model, "bundle_is_sum", False))


def check_model(model: Any, who: str, supported: Callable[[Any], bool], needs: str) -> None:
    """``TypeError`` unless ``model`` is a VSA model with the capability ``who`` needs (the
    message names the models that have it)."""
    if not isinstance(model, VSAModel):
        raise TypeError(f"model must be a VSA model, got {type(model).__name__}")
    require_capability(model, who, supported, needs)


def itemsize(dtype: Any) -> int:
    """Bytes of one element of a backend dtype."""
    name = dtype_name(dtype)
    return 2 if name == "bfloat16" else np.dtype(name).itemsize


def row_chunks(n_rows: int, bytes_per_row: int, budget: int = CHUNK_BYTES) -> Iterator[slice]:
    """Slices of ``n_rows`` rows, each chunk using at most about ``budget`` bytes of
    temporary memory (one row at least); one empty slice for no rows, so that an empty
    batch gets an empty answer."""
    if n_rows == 0:
        yield slice(0, 0)
        return
    size = max(1, budget // max(1, bytes_per_row))
    size = 1 << (size.bit_length() - 1)  # a power of two: padded batches split into equal chunks
    for start in range(0, n_rows, size):
        yield slice(start, min(start + size, n_rows))


def row_blocks(rows: Any, bytes_per_row: int) -> Iterator[Any]:
    """The blocks of :func:`row_chunks` of ``rows``: ``rows`` itself where one block holds
    them all (a slice of every row is a copy, and a program of its own where each shape
    compiles)."""
    chunks = list(row_chunks(int(rows.shape[0]), bytes_per_row))
    if len(chunks) == 1:
        yield rows
        return
    for chunk in chunks:
        yield rows[chunk]


def joined(model: Any, parts: list[Any], answer: Answer | None) -> Any:
    """The chunks' results as one array, given back as ``answer`` says (as they are for
    ``None``)."""
    out = parts[0] if len(parts) == 1 else model.xp.concat(parts, axis=0)
    return out if answer is None else answer.of(out)


def count_field(fields: dict[str, Any], key: str, where: str) -> int:
    """A non-negative int of a loaded file's fields, else ``ValueError`` naming the file."""
    value = fields.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{where}: bad {key} in the record: expected an int >= 0, got {value!r}")
    return value
