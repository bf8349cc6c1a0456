"""Seeds and what a draw is for: the checked public part of :mod:`holovec.random`."""

from __future__ import annotations

import hashlib
import secrets
from enum import IntEnum
from typing import Any

import numpy as np

__all__ = ["Purpose", "check_seed", "fold_in", "fresh_seed"]

_MAX_SEED = 2**128


class Purpose(IntEnum):
    """What a draw is for: the third counter word, so that purposes never share numbers."""

    VECTORS = 0  #: model.random
    TIEBREAK = 1  #: the vector that breaks bundle ties
    # encoders of sequences, structures, images and vectors (16 and up)
    SYMBOLS = 16  #: SymbolTable: row 0 of the stream named by the label's digest
    POSITIONS = 17  #: position vectors of sequences (PositionBindingEncoder, method="bind")
    LEVEL_ENDS = 18  #: the two end vectors of graded level codes (images, trajectories)
    LEVEL_ORDER = 19  #: the order in which elements switch between the two ends
    PIXEL_POSITIONS = 20  #: the x and y position codes of images
    PROJECTION = 21  #: random projection matrices (VectorEncoder, SinusoidEncoder)
    PROJECTION_OFFSETS = 22  #: the phase offsets of SinusoidEncoder
    # scalar encoders (32 and up)
    FPE_PHASES = 32  #: base phases of fractional power encoders (stream = axis)
    HARMONICS = 33  #: integer frequencies of periodic encoders (stream = axis)
    SCALAR_LEVELS = 34  #: level 0 and the replacement vector of LevelEncoder
    SCALAR_LEVEL_ORDER = 35  #: the order in which LevelEncoder changes elements
    RESIDUE_PHASES = 36  #: roots of unity of ResidueEncoder (stream = modulus index)
    # perturbations (64 and up)
    NOISE = 64  #: holovec.noise: positions, normals and phases (stream = the kind of noise)


def check_seed(seed: Any) -> int:
    """``seed`` as a Python int in [0, 2**128), or a ``TypeError``/``ValueError`` saying why not.

    Parameters
    ----------
    seed : object
        The seed to check (an int, or a NumPy integer).
    """
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be a non-negative int (or None), got {type(seed).__name__} {seed!r}")
    seed = int(seed)
    if not 0 <= seed < _MAX_SEED:
        raise ValueError(f"seed must be in [0, 2**128), got {seed}")
    return seed


def fresh_seed() -> int:
    """A new 128-bit seed from the operating system (never a framework's global RNG)."""
    return secrets.randbits(128)


def fold_in(seed: int, *data: int | str) -> int:
    """A child seed of ``seed`` named by ``data`` (like ``jax.random.fold_in``).

    The 128-bit BLAKE2b digest of the seed and the data (non-negative ints or strings,
    in a length-prefixed canonical form), so children with different ``data`` are
    unrelated to each other and to ``seed``, and the same on every machine. Components
    that need several independent draws (an encoder's axes, a model's unseeded draws)
    derive their seeds with it; nothing else derives seeds.

    Parameters
    ----------
    seed : int
        The parent seed.
    *data : int | str
        Ints and strs that name the child.
    """
    parts = [check_seed(seed).to_bytes(16, "little")]
    for item in data:
        if isinstance(item, str):
            raw = b"s" + item.encode("utf-8")
        elif isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_)) and item >= 0:
            raw = b"i" + int(item).to_bytes(max(1, (int(item).bit_length() + 7) // 8), "little")
        else:
            raise TypeError(f"fold_in data must be non-negative ints or strings, got {item!r}")
        parts.append(len(raw).to_bytes(8, "little") + raw)
    digest = hashlib.blake2b(b"".join(parts), digest_size=16, person=b"holovec.fold_in")
    return int.from_bytes(digest.digest(), "little")
