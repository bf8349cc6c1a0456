"""Vectors cut into blocks (segments) of equal length: the shape rule and the block rotation
that the sparse block codes share (BSDC-SEG's binary segments, GSBC's valued ones)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._params import POSITIVE_INT


def block_shape(dim: Any, segments: Any, segment_length: Any, model: str) -> tuple[int, int]:
    """``(S, L)`` from ``dim`` and the options ``segments`` and ``segment_length``, or a
    ``ValueError`` that says what fits: both given, their product must be ``dim``; one given,
    it must divide ``dim``; neither, ``L`` is the divisor of ``dim`` nearest ``sqrt(dim)``
    (within a factor 2 of it).

    Parameters
    ----------
    dim : int
        The dimension (a bad one gives ``(1, 1)``: the model's own check explains it).
    segments : int or None
        ``S``, or ``None`` to derive it.
    segment_length : int or None
        ``L``, or ``None`` to derive it.
    model : str
        The model's name, for the messages.
    """
    if isinstance(dim, (bool, np.bool_)) or not isinstance(dim, (int, np.integer)) or dim <= 0:
        return 1, 1
    dim = int(dim)
    if segments is not None:
        segments = POSITIVE_INT.check("segments", segments)
    if segment_length is not None:
        segment_length = POSITIVE_INT.check("segment_length", segment_length)
    if segments is not None and segment_length is not None:
        if segments * segment_length != dim:
            raise ValueError(
                f"segments * segment_length must equal dim: {segments} * {segment_length} != {dim}"
            )
        return segments, segment_length
    given, name = (segments, "segments") if segments is not None else (segment_length, "segment_length")
    if given is not None:
        if dim % given:
            raise ValueError(
                f"{model} dim {dim} is not divisible by {name}={given}; dim must be segments * "
                f"segment_length (e.g. dim={given * max(1, round(dim / given))})"
            )
        return (given, dim // given) if name == "segments" else (dim // given, given)
    root = math.sqrt(dim)
    divisors = [d for d in range(1, math.isqrt(dim) + 1) if dim % d == 0]
    candidates = sorted({*divisors, *(dim // d for d in divisors)}, key=lambda d: (abs(d - root), -d))
    length = candidates[0]
    if not root / 2 <= length <= 2 * root:
        near = math.isqrt(dim)
        raise ValueError(
            f"{model} dim {dim} has no divisor near sqrt(dim) = {root:.1f} to serve as the segment "
            f"length; choose dim = segments * segment_length (e.g. {near * near} = {near} x {near}, "
            f"or {near * (near + 1)} = {near + 1} x {near}), or pass segments= or segment_length="
        )
    return dim // length, length


def roll_blocks(xp: Any, blocks: Any, shift: Any, index_dtype: Any, device: Any) -> Any:
    """Rotate block ``s`` of ``blocks`` (``(..., S, L)``) by ``shift[..., s]`` places, element
    ``i`` to ``i + shift``: the block-wise circular convolution with a one-hot block. The
    operands broadcast; the result is ``(..., S, L)``.

    Parameters
    ----------
    xp : namespace
        The array namespace.
    blocks : array
        Blocks ``(..., S, L)``.
    shift : array
        Integer shifts ``(..., S)``.
    index_dtype : dtype
        The dtype of gather indices on this backend.
    device : object
        The backend's device.
    """
    length = blocks.shape[-1]
    j = xp.arange(length, dtype=index_dtype, device=device)
    source = (j - xp.astype(shift, index_dtype)[..., None]) % length
    shape = tuple(np.broadcast_shapes(tuple(blocks.shape), tuple(source.shape)))
    return xp.take_along_axis(xp.broadcast_to(blocks, shape), xp.broadcast_to(source, shape), axis=-1)
