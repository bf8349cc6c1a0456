"""Samplers: a draw's words as bits, signs, phases, uniforms and normals, with integer
arithmetic and exact float steps, so that only the final transcendental functions (cos,
sin, log) may differ, by rounding, across backends.

These take a backend and trust their arguments (the models and encoders that call them
check seeds, sizes and dtypes first); they are holovec's own, not part of the API.
"""

from __future__ import annotations

import math
from typing import Any

from .. import kernels
from ..backends.base import Backend, dtype_name
from .philox import random_words

__all__ = [
    "phases_from_words",
    "random_bits",
    "random_normal",
    "random_phases",
    "random_signs",
    "random_uniform",
]


def random_bits(backend: Backend, seed: int, n_rows: int, dim: int, **address: Any) -> Any:
    """Uniform bits as uint8 0/1, shape ``(n_rows, dim)``: bit ``j`` of a row is bit
    ``j % 32`` (least significant first) of the row's word ``j // 32``."""
    words = random_words(backend, seed, n_rows, -(-dim // 32), **address)
    return kernels.unpack_bits(backend, words, dim)


def random_signs(backend: Backend, seed: int, n_rows: int, dim: int, dtype: Any, **address: Any) -> Any:
    """Bipolar values: +1 where the bit of :func:`random_bits` is 0, -1 where it is 1."""
    xp = backend.xp
    bits = xp.astype(random_bits(backend, seed, n_rows, dim, **address), backend.dtype("int8"))
    return xp.astype(1 - 2 * bits, dtype)  # +-1 in int8 first: one narrow pass, then one cast


def _uniform_24(backend: Backend, words: Any, dtype: Any) -> Any:
    """The top 24 bits of each word as an exact float in [0, 2**24)."""
    return backend.xp.astype(words >> 8, dtype)


def random_phases(backend: Backend, seed: int, n_rows: int, dim: int, dtype: Any, **address: Any) -> Any:
    """Phases uniform on [-pi, pi): :func:`phases_from_words` of the draw's words."""
    return phases_from_words(backend, random_words(backend, seed, n_rows, dim, **address), dtype)


def phases_from_words(backend: Backend, words: Any, dtype: Any) -> Any:
    """Random 32-bit words as phases uniform on [-pi, pi), on a grid of 2**24 (float32) or
    2**32 (float64) steps.

    The grid index is an exact integer and the one multiply is correctly rounded,
    so phases are bit-identical across backends.
    """
    xp = backend.xp
    if dtype_name(dtype) == "float64":
        steps = 2**32
        k = xp.astype(words, dtype)
    else:
        steps = 2**24
        k = _uniform_24(backend, words, dtype)
    return (k - steps // 2) * (2 * math.pi / steps)


def random_uniform(
    backend: Backend,
    seed: int,
    n_rows: int,
    dim: int,
    dtype: Any,
    low: float = 0.0,
    high: float = 1.0,
    **address: Any,
) -> Any:
    """Uniform on [low, high), from 24 random bits per value."""
    u = _uniform_24(backend, random_words(backend, seed, n_rows, dim, **address), dtype) * 2.0**-24
    return low + (high - low) * u if (low, high) != (0.0, 1.0) else u


def random_normal(backend: Backend, seed: int, n_rows: int, dim: int, dtype: Any, **address: Any) -> Any:
    """Standard normal values by the Box-Muller transform of pairs of 24-bit uniforms."""
    xp = backend.xp
    half = -(-dim // 2)
    words = random_words(backend, seed, n_rows, 2 * half, **address)
    u = _uniform_24(backend, words, dtype)
    radius = xp.sqrt(-2.0 * xp.log((u[:, 0::2] + 1.0) * 2.0**-24))  # in (0, 1]: no log(0)
    angle = (u[:, 1::2] - 2**23) * (2 * math.pi / 2**24)
    pairs = xp.stack([radius * xp.cos(angle), radius * xp.sin(angle)], axis=-1)
    return xp.reshape(pairs, (n_rows, 2 * half))[:, :dim]
