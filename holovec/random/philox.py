"""Philox-4x64-10 over 32-bit words of any backend, and the words of a draw by address.

The generator of :mod:`holovec.random` (its module docstring has the addressing), written
once over the array API; backends with a native Philox give the same words faster
(``kernels.philox_words``). holovec's models and encoders draw through the samplers of
:mod:`holovec.random.samplers`, and compiled draws through :class:`Words`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import kernels
from ..backends.base import Backend
from .seeds import Purpose, check_seed

__all__ = ["Words", "address_words", "philox4x64_generic", "random_words"]

PHILOX_M = (0xD2E7470EE14C6C93, 0xCA5A826395121157)
PHILOX_W = (0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B)
PHILOX_ROUNDS = 10
_MASK64 = 2**64 - 1


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
    s = kernels.mask32(backend, x + y)
    return s, backend.xp.astype(s < x, kernels.word_dtype(backend))


def _mul_lohi_64(backend: Backend, a: tuple[Any, Any], m: int) -> tuple[tuple, tuple]:
    """The 128-bit product of a 64-bit word pair ``a`` and a constant ``m``: (low64, high64)."""
    m0, m1 = m & 0xFFFFFFFF, m >> 32
    l00, h00 = kernels.mul_lohi_32(backend, a[0], m0)
    l01, h01 = kernels.mul_lohi_32(backend, a[0], m1)
    l10, h10 = kernels.mul_lohi_32(backend, a[1], m0)
    l11, h11 = kernels.mul_lohi_32(backend, a[1], m1)
    s1, c1a = _add_carry(backend, h00, l01)
    limb1, c1b = _add_carry(backend, s1, l10)
    s2, c2a = _add_carry(backend, h01, h10)
    s2, c2b = _add_carry(backend, s2, l11)
    limb2, c2c = _add_carry(backend, s2, c1a + c1b)
    limb3 = kernels.mask32(backend, h11 + c2a + c2b + c2c)
    return (l00, limb1), (limb2, limb3)


def _xor64(x: tuple[Any, Any], y: tuple[Any, Any], k: tuple[Any, Any]) -> tuple[Any, Any]:
    """``x ^ y ^ k`` of 64-bit word pairs."""
    return (x[0] ^ y[0] ^ k[0], x[1] ^ y[1] ^ k[1])


def _add64(backend: Backend, x: tuple[Any, Any], c: int) -> tuple[Any, Any]:
    """A 64-bit word pair plus a constant, modulo 2**64."""
    xp, word = backend.xp, kernels.word_dtype(backend)
    lo, carry = _add_carry(backend, x[0], xp.asarray(c & 0xFFFFFFFF, dtype=word))
    return lo, kernels.mask32(backend, x[1] + carry + xp.asarray(c >> 32, dtype=word))


def _repeat(backend: Backend, fn: Any, state: Any, times: int) -> Any:
    """``fn`` applied ``times`` times to ``state``, as the backend's loop (``kernels.repeat``:
    one compiled loop on JAX, a Python loop elsewhere)."""
    return kernels.repeat(backend, fn, state, times)


def _key_pairs(backend: Backend, key: int) -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    """A 128-bit key as its two 64-bit words, each a (low, high) pair of word arrays:
    the key as data, so that one compiled generator serves every key."""
    seed = Words(
        backend.xp.astype(backend.from_numpy(address_words(key, 0, 0)[:4]), kernels.word_dtype(backend))
    )
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
    (``kernels.fuse``) serves every address and every length.
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
        (c0_lo, kernels.mask32(backend, carry + first_hi)),
        full(pair(2)) if streams is None else streams,
        full(pair(3)),
        (zero, zero),
    ]
    lanes = philox4x64_generic(backend, counter, (pair(0), pair(1)))
    words = xp.stack([w for lane in lanes for w in lane], axis=-1)
    return xp.reshape(words, (-1,))


def _generate(backend: Backend, address: Any, offsets: Any, streams: tuple[Any, Any] | None = None) -> Any:
    """:func:`_block_words`, as the backend runs generator code fastest (``kernels.fuse``:
    one kernel for torch on a GPU, instead of a hundred)."""
    return kernels.fuse(backend, _block_words)(backend, address, offsets, streams)


def _first_block_words(block_start: int) -> np.ndarray:
    """The counter word of the first block of a draw from block ``block_start`` (blocks are
    numbered from 1: see the module's addressing), as 2 uint32 words, modulo 2**64."""
    first = (block_start + 1) & _MASK64
    return np.array([first & 0xFFFFFFFF, first >> 32], dtype=np.uint32)


def _address_array(backend: Backend, key: int, stream: int, purpose: int, block_start: int) -> Any:
    """The ``address`` of :func:`_block_words` as an array of the backend's word dtype."""
    words = np.concatenate([address_words(key, stream, purpose), _first_block_words(block_start)])
    return backend.xp.astype(backend.from_numpy(words), kernels.word_dtype(backend))


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
    return backend.xp.arange(n_blocks, dtype=kernels.word_dtype(backend), device=backend.device)


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
        else kernels.philox_words_of(backend, seed.words, stream.words, purpose.words, block_start, n_blocks)
    )
    if words is not None:
        return words
    xp, word = backend.xp, kernels.word_dtype(backend)
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
    words = None if generic else kernels.philox_words(backend, seed, start, n_blocks)
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
    (``kernels.philox_words`` with an array of streams; on the host CPU, NumPy's C
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
    words = (
        None
        if generic
        else kernels.philox_words(backend, key, (block_start, host, int(purpose)), blocks_per_row)
    )
    if words is not None:
        return words
    offsets = np.tile(np.arange(blocks_per_row, dtype=np.uint32), n_rows)
    stream_words = np.repeat(host, blocks_per_row)

    def as_words(values: np.ndarray) -> Any:
        return xp.astype(backend.from_numpy(values.astype(np.uint32)), kernels.word_dtype(backend))

    streams = (as_words(stream_words & 0xFFFFFFFF), as_words(stream_words >> np.uint64(32)))
    address = _address_array(backend, key, 0, int(purpose), block_start)
    words = _generate(backend, address, as_words(offsets), streams)
    return xp.reshape(words, (n_rows, blocks_per_row * 8))
