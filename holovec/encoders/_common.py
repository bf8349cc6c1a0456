"""What the sequence, structure, image and vector encoders share (private).

- :func:`draw`: seeded vectors of a model for an encoder's own purpose (never the
  numbers of ``model.random``, so that an encoder seeded 1 and ``model.random(seed=1)``
  are unrelated).
- :class:`Sums`: a model whose bundle is a function of the sum of its items, seen as
  sums: ``bundle(items) == finish(sum(lift(items)))``. Weighted bundles (an n-gram that
  occurs five times), bundles of ragged batches and bundles computed as matrix
  products all go through it. For the *elementwise* models bind is also the product
  of the lifted vectors, which lets images and n-grams factor into matrix products.
- :func:`permute_rows`, :func:`power_stack`: a different permutation power for each row
  with a handful of whole-block ``model.permute`` calls (binary decomposition of the
  shifts), so that no loop runs over positions.
- :class:`LevelCodes`: graded level vectors for every model (neighbouring levels
  similar, the two ends unrelated): level ``l`` takes each element ("atom") from end
  ``A`` or end ``B``; the atoms switch from ``A`` to ``B`` in a fixed random order, an
  equal share per step, so ``similarity(level i, level j) ~ 1 - |i - j| / (levels - 1)``
  (times ``1 - similarity(A, B)``).
- :func:`bundle_segments`: bundles of a ragged batch (rows ``0..k0-1`` are item 0, ...).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..models.base import VSAModel
from ..random import Purpose, random_words

#: elements of one temporary block (64 MiB of float32): chunks of big products stay below it
BLOCK_ELEMENTS = 2**24

#: models whose bundle is ``normalize(sum)`` and whose bind is the elementwise product
_ELEMENTWISE = ("MAP", "MAP-C", "MAP-I", "FHRR", "BSC")
#: models whose bundle is ``normalize(sum)`` and whose bind is bilinear (not elementwise)
_BILINEAR = ("HRR", "VTB", "GHRR")


def draw(model: VSAModel, n: int, seed: int, purpose: Purpose, stream: Any = 0) -> Any:
    """``n`` vectors of ``model`` (shape ``(n, vector_length)``) from the address
    (seed, stream, purpose): the same on every backend, row ``i`` independent of ``n``."""
    return model._random(n, seed, stream, purpose)


def derived_stream(*parts: int) -> int:
    """A stream number for a tuple of small ints (an encoder's sub-draws)."""
    out = 0
    for p in parts:
        out = (out * 1_000_003 + int(p) + 1) % 2**64
    return out


def check_count(value: Any, name: str, minimum: int = 1) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {value}")
    return int(value)


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
    """A model whose bundle is a function of the sum of its (lifted) items.

    ``lift`` maps vectors to numbers whose sum is the bundle's accumulator (MAP, FHRR,
    HRR, ...: the vectors themselves; BSC: the bipolar ``1 - 2 * bit``); ``finish``
    turns such a sum back into the model's bundle, with the model's own tie-break:
    ``finish(sum(lift(items))) == model.bundle(items)``. For the elementwise models
    (``elementwise``), ``lift(bind(a, b)) == lift(a) * lift(b)`` as well.
    """

    def __init__(self, model: VSAModel, elementwise: bool) -> None:
        self.model = model
        self.elementwise = elementwise
        self.binary = model.name == "BSC"
        self.packed = bool(getattr(model, "packed", False))
        backend = model.backend
        if self.binary:
            self.dtype = backend.dtype("float32")
            zeros = model.identity()  # all bits 0 (packed: all bytes 0)
            ones = model.normalize(~zeros) if self.packed else 1 - zeros
            self._ties = self.elements(model.bundle(model.xp.stack([zeros, ones])))  # the tie-break bits
        elif model.dtype_name in ("float16", "bfloat16"):
            self.dtype = backend.dtype("float32")
        else:
            self.dtype = model.dtype
        self.complex = model.dtype_name in ("complex64", "complex128")

    @staticmethod
    def of(model: VSAModel) -> Sums | None:
        """The sums view of ``model``, or None where its bundle is not a sum (BSDC, BSDC-SEG)."""
        if model.name in _ELEMENTWISE:
            return Sums(model, elementwise=True)
        if model.name in _BILINEAR:
            return Sums(model, elementwise=False)
        return None

    @property
    def width(self) -> int:
        """Length of a lifted vector's last axis."""
        return self.model.dim if self.packed else self.model.vector_length

    def elements(self, x: Any) -> Any:
        """Packed BSC vectors as their bits; every other model's vectors unchanged."""
        return self.model.unpack(x) if self.packed else x

    def lift(self, x: Any) -> Any:
        xp = self.model.xp
        if self.binary:
            return 1 - 2 * xp.astype(self.elements(x), self.dtype)
        return x if x.dtype == self.dtype else xp.astype(x, self.dtype)

    def finish(self, sums: Any) -> Any:
        """The bundle whose lifted items add up to ``sums`` (shape ``(..., width)``)."""
        model, xp = self.model, self.model.xp
        if self.binary:
            bits = xp.where(sums == 0, self._ties, xp.astype(sums < 0, self._ties.dtype))
            return model.pack(bits) if self.packed else bits
        if sums.dtype != model.dtype:
            sums = xp.astype(sums, model.dtype)
        return model.bundle(sums[None, ...])  # a bundle of one item: the model's normalisation

    def matmul(self, weights: Any, lifted: Any) -> Any:
        """``weights @ lifted`` for real weights (complex lifted vectors: on the real view)."""
        xp = self.model.xp
        if not self.complex:
            return weights @ lifted
        n = lifted.shape[-1]
        out = weights @ split_complex(xp, lifted)
        return self.model.backend.complex(out[..., :n], out[..., n:])

    @property
    def real_dtype(self) -> Any:
        if not self.complex:
            return self.dtype
        return self.model.backend.dtype("float64" if self.model.dtype_name == "complex128" else "float32")


def split_complex(xp: Any, x: Any) -> Any:
    """A complex ``(..., n)`` array as the real ``(..., 2n)`` array ``[re | im]``."""
    return xp.concat([xp.real(x), xp.imag(x)], axis=-1)


def bundle_segments(model: VSAModel, items: Any, lengths: Any) -> Any:
    """Bundles of a ragged batch: ``items`` ``(sum(lengths), L)`` holds item 0's vectors,
    then item 1's, ...; the result is ``(len(lengths), L)``, row ``i`` equal to
    ``model.bundle(items of item i)``.

    Sum models add the lifted rows of each item at once (a gather into a zero-padded
    block per chunk of items, and one sum); other models bundle all items of one
    length in one call (a loop over the distinct lengths, not over items).
    """
    xp = model.xp
    lengths = np.asarray(lengths, dtype=np.int64)
    if lengths.ndim != 1 or len(lengths) == 0:
        raise ValueError("a batch needs at least one item")
    if (lengths <= 0).any():
        raise ValueError("every item of a batch needs at least one element to bundle; got an empty one")
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    n, longest = len(lengths), int(lengths.max())
    sums = Sums.of(model)
    if (lengths == longest).all():  # equal lengths: a reshape, one bundle over axis 1
        block = xp.reshape(items, (n, longest, items.shape[-1]))
        if sums is None:
            return model.bundle(xp.permute_dims(block, (1, 0, 2)))
        return sums.finish(xp.sum(sums.lift(block), axis=1))
    if sums is None:
        out_rows, order = [], []
        for length in np.unique(lengths):
            members = np.flatnonzero(lengths == length)
            index = starts[members][None, :] + np.arange(length)[:, None]  # (length, members)
            out_rows.append(model.bundle(take_rows(model, items, index)))
            order.append(members)
        out = xp.concat(out_rows, axis=0)
        inverse = np.empty(n, dtype=np.int64)
        inverse[np.concatenate(order)] = np.arange(n)
        return take_rows(model, out, inverse)
    lifted = sums.lift(items)
    zero = xp.zeros((1, lifted.shape[-1]), dtype=lifted.dtype, device=model.device)
    padded = xp.concat([lifted, zero], axis=0)
    pad_row = lifted.shape[0]
    step = block_rows(longest * sums.width)
    parts = []
    for first in range(0, n, step):
        ls, ss = lengths[first : first + step], starts[first : first + step]
        offsets = np.arange(longest)[None, :]
        index = np.where(offsets < ls[:, None], ss[:, None] + offsets, pad_row)
        parts.append(xp.sum(take_rows(model, padded, index), axis=1))
    return sums.finish(xp.concat(parts, axis=0) if len(parts) > 1 else parts[0])


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


# -- graded level codes -----------------------------------------------------------------------


def _atom_size(model: VSAModel) -> int:
    """Elements that must stay together for a mix of two vectors to be a vector of the
    model: a GHRR block, a BSDC-SEG segment; one element otherwise."""
    if model.name == "GHRR":
        return model.m * model.m
    if model.name == "BSDC-SEG":
        return model.segment_length
    return 1


class LevelCodes:
    """``levels`` graded vectors between two random ends (see the module docstring).

    ``switch[j]`` (host ints in ``1 .. levels-1``) is the first level whose atom ``j``
    comes from end ``B``; each step switches ``atoms / (levels - 1)`` atoms (+-1).
    """

    def __init__(self, model: VSAModel, levels: int, seed: int, stream: int = 0) -> None:
        self.model = model
        self.levels = check_count(levels, "levels", 1)
        self.seed, self.stream = seed, stream
        ends = draw(model, 2, seed, Purpose.LEVEL_ENDS, stream)
        self.packed = bool(getattr(model, "packed", False))
        self.ends = model.unpack(ends) if self.packed else ends  # (2, width) in element space
        width = self.ends.shape[-1]
        self.atom = _atom_size(model)
        self.atoms = width // self.atom
        words = model.backend.to_numpy(
            random_words(model.backend, seed, 1, self.atoms, stream=stream, purpose=Purpose.LEVEL_ORDER)
        )[0]
        rank = np.empty(self.atoms, dtype=np.int64)
        rank[np.argsort(words.astype(np.uint32), kind="stable")] = np.arange(self.atoms)
        steps = max(1, self.levels - 1)
        self.switch = 1 + (rank * steps) // self.atoms  # 1 .. levels-1
        self._element_switch = np.repeat(self.switch, self.atom)
        self._table: Any = None

    def vectors(self, index: Any = None) -> Any:
        """Level vectors ``(len(index), vector_length)`` (all levels for ``index=None``)."""
        model, xp = self.model, self.model.xp
        if index is None:
            if self._table is None:
                self._table = self.vectors(np.arange(self.levels))
            return self._table
        index = np.asarray(index, dtype=np.int64)
        use_b = index.reshape(-1, 1) >= self._element_switch[None, :]
        mask = model.backend.asarray(use_b)
        out = xp.where(mask, self.ends[1], self.ends[0])
        out = xp.reshape(out, (*index.shape, self.ends.shape[-1]))
        return model.pack(out) if self.packed else out


def quantize(model: VSAModel, values: Any, low: float, high: float, levels: int) -> np.ndarray:
    """Checked values (a float backend array) as level indices ``0..levels-1`` on the host."""
    host = model.backend.to_numpy(values)
    if levels == 1 or high == low:
        return np.zeros(host.shape, dtype=np.int64)
    return np.rint((host - low) * ((levels - 1) / (high - low))).astype(np.int64).clip(0, levels - 1)


def sqrt_dim_threshold(model: VSAModel, z: float = 4.5) -> float:
    return z / math.sqrt(model.dim)
