"""What the sequence, structure, image and vector encoders share (private).

- :class:`Sums`: a model whose bundle is a function of the sum of its items
  (``model.bundle_is_sum``), seen as sums: ``bundle(items) == finish(sum(lift(items)))``.
  Weighted bundles (an n-gram that occurs five times), bundles of ragged batches and
  bundles computed as matrix products all go through it. Where ``bind`` is elementwise
  in the lifted numbers (``model.bind_is_elementwise``), images and n-grams factor into
  matrix products.
- :func:`permute_rows`, :func:`power_stack`: a different permutation power for each row
  with a handful of whole-block ``model.permute`` calls (binary decomposition of the
  shifts), so that no loop runs over positions.
- :func:`bundle_segments`: bundles of a ragged batch (rows ``0..k0-1`` are item 0, ...).

Graded level codes are in :mod:`holovec.encoders.levels`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import kernels
from ..backends import DTYPE_KINDS, dtype_name
from ..models.base import VSAModel

#: elements of one temporary block (64 MiB of float32): chunks of big products stay below it
BLOCK_ELEMENTS = 2**24
#: elements of one temporary block that stays in a processor's cache (1 MiB of float32):
#: the chunks of memory-bound elementwise work (gather, sum, finish) on eager backends
CACHE_ELEMENTS = 2**18


def to_backend_ints(model: VSAModel, values: Any) -> Any:
    """Host integers as an int32 array of the model's backend (indices for ``take``)."""
    return model.backend.asarray(np.ascontiguousarray(values, dtype=np.int32))


def take_rows(model: VSAModel, x: Any, index: Any) -> Any:
    """``x[index]`` along axis 0 for an index array of any shape (host ints or backend)."""
    host = np.asarray(index) if not model.backend.is_array(index) else None
    flat = to_backend_ints(model, host.reshape(-1)) if host is not None else model.xp.reshape(index, (-1,))
    out = model.xp.take(x, flat, axis=0)
    shape = host.shape if host is not None else tuple(index.shape)
    return model.xp.reshape(out, (*shape, *x.shape[1:]))


def block_rows(row_elements: int, cap: int = BLOCK_ELEMENTS) -> int:
    """How many rows of ``row_elements`` elements fit in one temporary block."""
    return max(1, cap // max(1, row_elements))


# -- sums -------------------------------------------------------------------------------


class Sums:
    """A model whose bundle is a function of the sum of its lifted items (see the module
    docstring): ``finish(sum(lift(items))) == model.bundle(items)``, and for elementwise
    models (``elementwise``) ``lift(bind(a, b)) == lift(a) * lift(b)`` as well."""

    def __init__(self, model: VSAModel) -> None:
        self.model = model
        self.elementwise = model.bind_is_elementwise
        self.dtype = model.sum_dtype
        self.complex = DTYPE_KINDS[dtype_name(self.dtype)] == "complex"
        self.lift = model.lift
        self.finish = model.finish_sum

    @staticmethod
    def of(model: VSAModel) -> Sums | None:
        """The sums view of ``model``, or None where its bundle is not a sum (BSDC, BSDC-SEG)."""
        return Sums(model) if model.bundle_is_sum else None

    @property
    def width(self) -> int:
        """Length of a lifted vector's last axis: one element per slot."""
        return self.model.dim

    def matmul(self, weights: Any, lifted: Any) -> Any:
        """``weights @ lifted`` for real weights (complex lifted vectors: on the real view)."""
        backend = self.model.backend
        if not self.complex:
            return kernels.matmul(backend, weights, lifted)
        return kernels.complex_view(
            backend, kernels.matmul(backend, weights, kernels.real_view(backend, lifted))
        )

    @property
    def real_dtype(self) -> Any:
        if not self.complex:
            return self.dtype
        return self.model.backend.dtype("float64" if dtype_name(self.dtype) == "complex128" else "float32")


def bundle_segments(model: VSAModel, items: Any, lengths: Any, rows: Any = None) -> Any:
    """Bundles of a ragged batch: ``items`` ``(sum(lengths), L)`` holds item 0's vectors,
    then item 1's, ...; the result is ``(len(lengths), L)``, row ``i`` equal to
    ``model.bundle(items of item i)``. With ``rows`` (host ints, ``sum(lengths)`` of
    them), element ``j`` of the ragged batch is ``items[rows[j]]`` instead of
    ``items[j]``: a batch whose elements repeat (the same role-filler pair in many
    records) binds each distinct element once.

    Sum models add the lifted rows of each item at once (a gather into a zero-padded
    block per chunk of items, one sum and the finish). On a CPU the chunks hold about
    :data:`CACHE_ELEMENTS` elements, so that this memory-bound work stays in the
    processor's cache (measured: FHRR records 1.7x faster than whole-batch temporaries); on a GPU, under
    JAX (one dispatch per operation) and on Dask (one task per chunk) they hold about
    :data:`BLOCK_ELEMENTS`. Other models bundle all items of one length in one call (a loop
    over the distinct lengths, not over items).
    """
    xp = model.xp
    lengths = np.asarray(lengths, dtype=np.int64)
    if lengths.ndim != 1 or len(lengths) == 0:
        raise ValueError("a batch needs at least one item")
    if (lengths <= 0).any():
        raise ValueError("every item of a batch needs at least one element to bundle; got an empty one")
    if rows is not None:
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        if len(rows) != int(lengths.sum()):
            raise ValueError(f"rows must hold sum(lengths) = {int(lengths.sum())} indices, got {len(rows)}")
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    n, longest = len(lengths), int(lengths.max())
    equal = bool((lengths == longest).all())
    sums = Sums.of(model)
    if sums is None:
        if equal and rows is None:  # equal lengths: a reshape, one bundle over axis 0
            block = xp.reshape(items, (n, longest, items.shape[-1]))
            return model.bundle(xp.permute_dims(block, (1, 0, 2)))
        out_rows, order = [], []
        for length in np.unique(lengths):
            members = np.flatnonzero(lengths == length)
            index = starts[members][None, :] + np.arange(length)[:, None]  # (length, members)
            out_rows.append(model.bundle(take_rows(model, items, index if rows is None else rows[index])))
            order.append(members)
        out = xp.concat(out_rows, axis=0)
        inverse = np.empty(n, dtype=np.int64)
        inverse[np.concatenate(order)] = np.arange(n)
        return take_rows(model, out, inverse)
    backend = model.backend
    cached = backend.is_cpu and not (backend.lazy or backend.jit_kernels)
    step = block_rows(longest * sums.width, CACHE_ELEMENTS if cached else BLOCK_ELEMENTS)
    if equal and rows is None:  # equal lengths: each chunk a reshape, one sum over axis 1
        parts = []
        for first in range(0, n, step):
            block = items[first * longest : min(n, first + step) * longest]
            block = xp.reshape(block, (-1, longest, items.shape[-1]))
            parts.append(sums.finish(xp.sum(sums.lift(block), axis=1)))
        return xp.concat(parts, axis=0) if len(parts) > 1 else parts[0]
    lifted = sums.lift(items)
    zero = xp.zeros((1, lifted.shape[-1]), dtype=lifted.dtype, device=model.device)
    padded = xp.concat([lifted, zero], axis=0)
    pad_row = lifted.shape[0]
    if rows is None:
        rows = np.arange(pad_row, dtype=np.int64)
    rows = np.append(rows, pad_row)  # position sum(lengths): the zero row
    offsets = np.arange(longest)[None, :]
    parts = []
    for first in range(0, n, step):
        ls, ss = lengths[first : first + step], starts[first : first + step]
        index = rows[np.where(offsets < ls[:, None], ss[:, None] + offsets, len(rows) - 1)]
        parts.append(sums.finish(xp.sum(take_rows(model, padded, index), axis=1)))
    return xp.concat(parts, axis=0) if len(parts) > 1 else parts[0]


# -- permutation powers -------------------------------------------------------------------


def permute_rows(model: VSAModel, x: Any, shifts: Any) -> Any:
    """Row ``i`` of ``x`` (items on axis 0) permuted by ``shifts[i]`` (host ints, any sign):
    ``model.permute`` on the whole block once per bit of the largest shift, keeping
    the rows whose shift has that bit."""
    xp = model.xp
    shifts = np.asarray(shifts, dtype=np.int64)
    if shifts.size and (shifts == shifts[0]).all():
        return model.permute(x, int(shifts[0])) if shifts[0] else x
    extra = (1,) * (x.ndim - 1)
    out = x
    for sign in (1, -1):
        magnitude = np.where(np.sign(shifts) == sign, np.abs(shifts), 0)
        bit = 0
        while (magnitude >> bit).any():
            chosen = ((magnitude >> bit) & 1).astype(bool)
            if chosen.any():
                moved = model.permute(out, sign * (1 << bit))
                if chosen.all():
                    out = moved
                else:
                    mask = model.backend.asarray(chosen.reshape(-1, *extra))
                    out = xp.where(mask, moved, out)
            bit += 1
    return out


def power_stack(model: VSAModel, x: Any, count: int, step: int = 1) -> Any:
    """``[permute(x, 0), permute(x, step), ..., permute(x, (count-1)*step)]`` on a new axis 0,
    by doubling: about ``log2(count)`` whole-stack permutations."""
    xp = model.xp
    stack = x[None, ...]
    done = 1
    while done < count:
        stack = xp.concat([stack, model.permute(stack, step * done)], axis=0)
        done *= 2
    return stack[:count]


# -- quantised values -------------------------------------------------------------------


def level_step(low: float, high: float, levels: int, top: float | None = None) -> tuple[float, bool]:
    """The spacing of ``levels >= 2`` equally spaced levels on ``[low, high]`` (finite floats,
    ``low < high``), and whether ``high - low`` exceeds ``top``, the largest float of the
    computation (float64's by default; then ``x - low`` is to be computed as ``x / 2 - low
    / 2``). ``ValueError`` where the ends exceed ``top``, or the spacing or its inverse is
    not a finite float."""
    top = float(np.finfo(np.float64).max) if top is None else top
    if max(abs(low), abs(high)) > top:
        raise ValueError(
            f"the range [{low}, {high}] does not fit the backend's floats (at most {top:.6g} in "
            "magnitude; JAX computes in float32 unless 64-bit mode is on)"
        )
    span = high - low
    halved = not span <= top
    step = high / (levels - 1) - low / (levels - 1) if halved else span / (levels - 1)
    if not math.isfinite(step):
        raise ValueError(
            f"{levels} levels on [{low}, {high}] would be more than the largest float apart; use more "
            "levels or a narrower range"
        )
    if step <= 0 or not math.isfinite(1 / step):
        raise ValueError(
            f"{levels} levels on [{low}, {high}] would be {step} apart, too close for floats to tell "
            "apart; use fewer levels or a wider range"
        )
    return step, halved


def quantize(model: VSAModel, values: Any, low: float, high: float, levels: int) -> np.ndarray:
    """Checked values (a float backend array) as level indices ``0..levels-1`` on the host."""
    host = np.asarray(model.backend.to_numpy(values), dtype=np.float64)  # float64 on every backend
    if levels == 1 or high == low:
        return np.zeros(host.shape, dtype=np.int64)
    step, halved = level_step(low, high, levels)
    if halved:  # the range exceeds the largest float: halves cannot overflow
        index = np.rint((host * 0.5 - low * 0.5) * (2 / step))
    else:
        index = np.rint((host - low) * ((levels - 1) / (high - low)))
    return index.clip(0, levels - 1).astype(np.int64)


def sqrt_dim_threshold(model: VSAModel, z: float = 4.5) -> float:
    return z / math.sqrt(model.dim)
