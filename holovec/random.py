"""Counter-based random numbers that are the same on every backend and device.

One generator, Philox-4x64-10 (Salmon et al. 2011, "Parallel random numbers: as
easy as 1, 2, 3"), is written once here over the array API, in 32-bit words so
that it runs on any framework's integer types. It is the generator that NumPy's
``numpy.random.Philox`` implements in C; backends whose device is the host CPU
take their words from that (see ``Backend.philox_words``) and the tests check
the two bit for bit. Elsewhere the generic code runs on the device, compiled into
one kernel where the backend can (``Backend.fuse``: torch on a GPU); where a whole
draw is made is the backend's rule (``Backend.draw_path``).

Addressing. A draw is named by (seed, stream, purpose, row). Row ``r`` of a draw
that needs ``W`` 32-bit words per row uses Philox blocks ``r*B .. r*B + B - 1``
with ``B = ceil(W / 8)``; block ``g`` is Philox of the counter
``(g + 1, stream, purpose, 0)`` under the 128-bit key ``seed``. So row ``r``
never depends on how many rows were asked for, and a codebook can be made in
shards. The samplers below turn words into bits, signs, phases, uniforms and
normals with integer arithmetic and exact float steps, so that only the final
transcendental functions (cos, sin, log) may differ, by rounding, across backends.
"""

from __future__ import annotations

import hashlib
import math
import secrets
from enum import IntEnum
from typing import Any

import numpy as np

from .backends.base import Backend, dtype_name

__all__ = [
    "Purpose",
    "Words",
    "address_words",
    "check_seed",
    "fold_in",
    "fresh_seed",
    "philox4x64_generic",
    "random_bits",
    "random_normal",
    "random_phases",
    "random_signs",
    "random_uniform",
    "random_words",
]

PHILOX_M = (0xD2E7470EE14C6C93, 0xCA5A826395121157)
PHILOX_W = (0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B)
PHILOX_ROUNDS = 10
_MASK64 = 2**64 - 1
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


def check_seed(seed: Any) -> int:
    """``seed`` as a Python int in [0, 2**128), or a ``TypeError``/``ValueError`` saying why not."""
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


class Words:
    """A draw's seed, stream or purpose as data: an array of its 32-bit words, least
    significant first, in the backend's word dtype (4 words for a seed, 2 for a stream
    or a purpose), which a compiler may trace.

    Compiled draws (``VSAModel.random`` on JAX) pass these to :func:`random_words` and
    the samplers in place of the ints ``seed``, ``stream`` and ``purpose`` (all three
    together), so that one compiled program serves every seed: the generator then runs
    on the backend's own arrays, and gives the same words as for the ints.
    """

    __slots__ = ("words",)

    def __init__(self, words: Any) -> None:
        self.words = words

    def pair(self, i: int) -> tuple[Any, Any]:
        """The ``i``-th 64-bit word as a (low, high) pair of 32-bit words, each an array of
        one element (arrays, not NumPy scalars: those warn when a sum wraps)."""
        return self.words[2 * i : 2 * i + 1], self.words[2 * i + 1 : 2 * i + 2]


def address_words(seed: int, stream: int, purpose: int) -> np.ndarray:
    """The address of a draw as 8 uint32 words: the seed's 4, the stream's 2 and the
    purpose's 2, each least significant first (the arrays of :class:`Words`)."""
    if not (0 <= stream < 2**64 and 0 <= purpose < 2**64):
        raise ValueError(f"stream and purpose must be in [0, 2**64), got {stream} and {purpose}")
    value = check_seed(seed) | (stream << 128) | (purpose << 192)
    return np.frombuffer(value.to_bytes(32, "little"), dtype="<u4").astype(np.uint32)


# -- the generator, over 32-bit words ---------------------------------------------------
# A 64-bit value is a pair (lo, hi) of arrays of 32-bit words in the backend's word dtype.


def _add_carry(backend: Backend, x: Any, y: Any) -> tuple[Any, Any]:
    """(x + y) mod 2**32 and its carry (0 or 1), for 32-bit words."""
    s = backend.mask32(x + y)
    return s, backend.xp.astype(s < x, backend.word_dtype)


def _mul_lohi_64(backend: Backend, a: tuple[Any, Any], m: int) -> tuple[tuple, tuple]:
    """The 128-bit product of a 64-bit word pair ``a`` and a constant ``m``: (low64, high64)."""
    m0, m1 = m & 0xFFFFFFFF, m >> 32
    l00, h00 = backend.mul_lohi_32(a[0], m0)
    l01, h01 = backend.mul_lohi_32(a[0], m1)
    l10, h10 = backend.mul_lohi_32(a[1], m0)
    l11, h11 = backend.mul_lohi_32(a[1], m1)
    s1, c1a = _add_carry(backend, h00, l01)
    limb1, c1b = _add_carry(backend, s1, l10)
    s2, c2a = _add_carry(backend, h01, h10)
    s2, c2b = _add_carry(backend, s2, l11)
    limb2, c2c = _add_carry(backend, s2, c1a + c1b)
    limb3 = backend.mask32(h11 + c2a + c2b + c2c)
    return (l00, limb1), (limb2, limb3)


def _xor64(x: tuple[Any, Any], y: tuple[Any, Any], k: tuple[Any, Any]) -> tuple[Any, Any]:
    """``x ^ y ^ k`` of 64-bit word pairs."""
    return (x[0] ^ y[0] ^ k[0], x[1] ^ y[1] ^ k[1])


def _add64(backend: Backend, x: tuple[Any, Any], c: int) -> tuple[Any, Any]:
    """A 64-bit word pair plus a constant, modulo 2**64."""
    xp, word = backend.xp, backend.word_dtype
    lo, carry = _add_carry(backend, x[0], xp.asarray(c & 0xFFFFFFFF, dtype=word))
    return lo, backend.mask32(x[1] + carry + xp.asarray(c >> 32, dtype=word))


def _repeat(backend: Backend, fn: Any, state: Any, times: int) -> Any:
    """``fn`` applied ``times`` times to ``state``, as the backend's loop (``Backend.repeat``:
    one compiled loop on JAX, a Python loop elsewhere)."""
    return backend.repeat(fn, state, times)


def _key_pairs(backend: Backend, key: int) -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    """A 128-bit key as its two 64-bit words, each a (low, high) pair of word arrays:
    the key as data, so that one compiled generator serves every key."""
    seed = Words(backend.xp.astype(backend.from_numpy(address_words(key, 0, 0)[:4]), backend.word_dtype))
    return seed.pair(0), seed.pair(1)


def philox4x64_generic(
    backend: Backend, counter: list[tuple[Any, Any]], key: int | tuple[tuple[Any, Any], tuple[Any, Any]]
) -> list[tuple]:
    """Philox-4x64-10 of ``counter`` (four 64-bit word pairs) under the 128-bit ``key``: an
    int, or its two 64-bit words as (low, high) pairs of one-element word arrays (a key
    as data, perhaps traced)."""
    if not isinstance(key, tuple):
        key = _key_pairs(backend, key)

    def one_round(state: tuple) -> tuple:
        counter, k0, k1 = state
        lo0, hi0 = _mul_lohi_64(backend, counter[0], PHILOX_M[0])
        lo1, hi1 = _mul_lohi_64(backend, counter[2], PHILOX_M[1])
        counter = [_xor64(hi1, counter[1], k0), lo1, _xor64(hi0, counter[3], k1), lo0]
        return counter, _add64(backend, k0, PHILOX_W[0]), _add64(backend, k1, PHILOX_W[1])

    # a loop, not ten copies of the round: compilers that fuse elementwise code (XLA) would
    # inline the rounds into one expression that recomputes its shared terms (measured on
    # JAX: 40 s instead of 10 ms for 500,000 words)
    return _repeat(backend, one_round, (counter, *key), PHILOX_ROUNDS)[0]


def _block_words(backend: Backend, address: Any, offsets: Any, streams: tuple[Any, Any] | None = None) -> Any:
    """The words of Philox blocks: 8 per block, in block order, each block's four 64-bit
    words least significant first.

    ``address``: 10 words, those of :func:`address_words` (the seed's 4, the stream's 2,
    the purpose's 2) and then the first block's counter (2); block ``i`` is Philox of the
    counter ``(first + offsets[i], stream, purpose, 0)`` (``offsets``: words, below
    2**32), its stream ``streams[i]`` where ``streams`` (a (low, high) pair of word arrays
    like ``offsets``) is given. Every input is data, so that one compiled generator
    (``Backend.fuse``) serves every address and every length.
    """
    xp = backend.xp

    def pair(i: int) -> tuple[Any, Any]:  # the i-th 64-bit word of the address
        return address[2 * i : 2 * i + 1], address[2 * i + 1 : 2 * i + 2]

    def full(words: tuple[Any, Any]) -> tuple[Any, Any]:
        return tuple(xp.broadcast_to(w, offsets.shape) for w in words)

    first_lo, first_hi = pair(4)
    c0_lo, carry = _add_carry(backend, offsets, first_lo)
    zero = xp.zeros_like(offsets)
    counter = [
        (c0_lo, backend.mask32(carry + first_hi)),
        full(pair(2)) if streams is None else streams,
        full(pair(3)),
        (zero, zero),
    ]
    lanes = philox4x64_generic(backend, counter, (pair(0), pair(1)))
    words = xp.stack([w for lane in lanes for w in lane], axis=-1)
    return xp.reshape(words, (-1,))


def _generate(backend: Backend, address: Any, offsets: Any, streams: tuple[Any, Any] | None = None) -> Any:
    """:func:`_block_words`, as the backend runs generator code fastest (``Backend.fuse``:
    one kernel for torch on a GPU, instead of a hundred)."""
    return backend.fuse(_block_words)(backend, address, offsets, streams)


def _first_block_words(block_start: int) -> np.ndarray:
    """The counter word of the first block of a draw from block ``block_start`` (blocks are
    numbered from 1: see the module's addressing), as 2 uint32 words, modulo 2**64."""
    first = (block_start + 1) & _MASK64
    return np.array([first & 0xFFFFFFFF, first >> 32], dtype=np.uint32)


def _address_array(backend: Backend, key: int, stream: int, purpose: int, block_start: int) -> Any:
    """The ``address`` of :func:`_block_words` as an array of the backend's word dtype."""
    words = np.concatenate([address_words(key, stream, purpose), _first_block_words(block_start)])
    return backend.xp.astype(backend.from_numpy(words), backend.word_dtype)


def _philox_words_generic(
    backend: Backend, key: int, counter_start: tuple[int, int, int], n_blocks: int
) -> Any:
    """The same words as ``numpy_philox_words``, computed with the backend's own arrays."""
    if n_blocks >= 2**32:
        raise ValueError(f"one draw is limited to 2**32 Philox blocks, asked for {n_blocks}")
    block_start, stream, purpose = counter_start
    address = _address_array(backend, key, stream, purpose, block_start)
    return _generate(backend, address, _block_offsets(backend, n_blocks))


def _block_offsets(backend: Backend, n_blocks: int) -> Any:
    """``0 .. n_blocks - 1`` as words."""
    return backend.xp.arange(n_blocks, dtype=backend.word_dtype, device=backend.device)


def _philox_words_of_address(
    backend: Backend,
    seed: Words,
    stream: Words,
    purpose: Words,
    block_start: int,
    n_blocks: int,
    generic: bool = False,
) -> Any:
    """The words of ``_philox_words_generic`` for an address given as :class:`Words`: from
    the backend's native generator where it has one for such addresses, else computed with
    the backend's arrays (:func:`_block_words`)."""
    if n_blocks >= 2**32:
        raise ValueError(f"one draw is limited to 2**32 Philox blocks, asked for {n_blocks}")
    words = (
        None
        if generic
        else backend.philox_words_of(seed.words, stream.words, purpose.words, block_start, n_blocks)
    )
    if words is not None:
        return words
    xp, word = backend.xp, backend.word_dtype
    first = xp.asarray(_first_block_words(block_start), dtype=word, device=backend.device)
    address = xp.concat([seed.words, stream.words, purpose.words, first])
    return _generate(backend, address, _block_offsets(backend, n_blocks))


def random_words(
    backend: Backend,
    seed: int | Words,
    n_rows: int,
    words_per_row: int,
    *,
    row_start: int = 0,
    stream: int = 0,
    purpose: int = Purpose.VECTORS,
    generic: bool = False,
) -> Any:
    """32-bit random words, shape ``(n_rows, words_per_row)``, in the backend's word dtype.

    ``generic=True`` skips the backend's native generator (for tests and devices).
    ``seed``, ``stream`` and ``purpose`` may also be :class:`Words` (all three): the address
    as data, for compiled draws; then ``stream`` names one stream.
    ``stream`` may also be a sequence of ``n_rows`` streams (ints in [0, 2**64)): then
    row ``i`` is row ``row_start`` of stream ``stream[i]``, the same words as a draw of
    that one stream, so that rows addressed by unrelated streams (e.g. the digests of
    labels) come in one draw.
    """
    blocks_per_row = -(-words_per_row // 8)
    if isinstance(seed, Words):
        words = _philox_words_of_address(
            backend, seed, stream, purpose, row_start * blocks_per_row, n_rows * blocks_per_row, generic
        )
        return backend.xp.reshape(words, (n_rows, blocks_per_row * 8))[:, :words_per_row]
    if not isinstance(stream, (int, np.integer)):
        words = _words_of_streams(
            backend, seed, row_start * blocks_per_row, stream, n_rows, blocks_per_row, purpose, generic
        )
        return words[:, :words_per_row]
    start = (row_start * blocks_per_row, stream, int(purpose))
    n_blocks = n_rows * blocks_per_row
    words = None if generic else backend.philox_words(seed, start, n_blocks)
    if words is None:
        words = _philox_words_generic(backend, seed, start, n_blocks)
    words = backend.xp.reshape(words, (n_rows, blocks_per_row * 8))
    return words[:, :words_per_row]


def _words_of_streams(
    backend: Backend,
    key: int,
    block_start: int,
    streams: Any,
    n_rows: int,
    blocks_per_row: int,
    purpose: int,
    generic: bool,
) -> Any:
    """Row ``i``: the ``blocks_per_row`` blocks from ``block_start`` of stream ``streams[i]``.

    The backend's native generator gives the rows where it has one
    (``Backend.philox_words`` with an array of streams; on the host CPU, NumPy's C
    generator, one call of a few microseconds per row); elsewhere, and with
    ``generic=True``, all rows come from one vectorised Philox over counter arrays.
    """
    try:
        host = np.asarray(streams, dtype=np.uint64)
    except (TypeError, ValueError, OverflowError):
        raise TypeError("stream must be an int or a sequence of ints in [0, 2**64)") from None
    if host.shape != (n_rows,):
        raise ValueError(f"a sequence of streams needs one stream per row: {n_rows}, got shape {host.shape}")
    xp, n_blocks = backend.xp, n_rows * blocks_per_row
    if n_blocks >= 2**32:
        raise ValueError(f"one draw is limited to 2**32 Philox blocks, asked for {n_blocks}")
    words = None if generic else backend.philox_words(key, (block_start, host, int(purpose)), blocks_per_row)
    if words is not None:
        return words
    offsets = np.tile(np.arange(blocks_per_row, dtype=np.uint32), n_rows)
    stream_words = np.repeat(host, blocks_per_row)

    def as_words(values: np.ndarray) -> Any:
        return xp.astype(backend.from_numpy(values.astype(np.uint32)), backend.word_dtype)

    streams = (as_words(stream_words & 0xFFFFFFFF), as_words(stream_words >> np.uint64(32)))
    address = _address_array(backend, key, 0, int(purpose), block_start)
    words = _generate(backend, address, as_words(offsets), streams)
    return xp.reshape(words, (n_rows, blocks_per_row * 8))


# -- samplers ---------------------------------------------------------------------------


def random_bits(backend: Backend, seed: int, n_rows: int, dim: int, **address: Any) -> Any:
    """Uniform bits as uint8 0/1, shape ``(n_rows, dim)``: bit ``j`` of a row is bit
    ``j % 32`` (least significant first) of the row's word ``j // 32``."""
    words = random_words(backend, seed, n_rows, -(-dim // 32), **address)
    return backend.unpack_bits(words, dim)


def random_signs(backend: Backend, seed: int, n_rows: int, dim: int, dtype: Any, **address: Any) -> Any:
    """Bipolar values: +1 where the bit of :func:`random_bits` is 0, -1 where it is 1."""
    xp = backend.xp
    bits = xp.astype(random_bits(backend, seed, n_rows, dim, **address), backend.dtype("int8"))
    return xp.astype(1 - 2 * bits, dtype)  # +-1 in int8 first: one narrow pass, then one cast


def _uniform_24(backend: Backend, words: Any, dtype: Any) -> Any:
    """The top 24 bits of each word as an exact float in [0, 2**24)."""
    return backend.xp.astype(words >> 8, dtype)


def random_phases(backend: Backend, seed: int, n_rows: int, dim: int, dtype: Any, **address: Any) -> Any:
    """Phases uniform on [-pi, pi) on a grid of 2**24 (float32) or 2**32 (float64) steps.

    The grid index is an exact integer and the one multiply is correctly rounded,
    so phases are bit-identical across backends.
    """
    xp = backend.xp
    words = random_words(backend, seed, n_rows, dim, **address)
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
