"""The backends' side of :mod:`holovec.random`: Philox words from a native generator where
there is one, and the 32-bit word arithmetic of the generic generator."""

from __future__ import annotations

from typing import Any

import numpy as np


def numpy_philox_words(key: int, counter_start: tuple[int, Any, int], n_blocks: int) -> np.ndarray:
    """``n_blocks`` Philox-4x64-10 blocks from NumPy's C implementation, as uint32 words.

    ``counter_start = (c0, c1, c2)``: block ``g`` is Philox of the 256-bit counter
    ``(c0 + g + 1, c1, c2, 0)`` under the 128-bit ``key`` (NumPy's bit generator
    increments its counter before it generates). Each block is 4 uint64 words,
    returned little-endian as 8 uint32 words. A 1-D array of streams ``c1`` gives one
    row of ``8 * n_blocks`` words per stream (one call per row: NumPy's counter is a
    scalar).
    """
    c0, c1, c2 = counter_start
    if isinstance(c1, np.ndarray):
        rows = [numpy_philox_words(key, (c0, int(s), c2), n_blocks) for s in c1]
        return np.stack(rows) if rows else np.zeros((0, 8 * n_blocks), np.uint32)
    counter = np.array([c0, c1, c2, 0], dtype=np.uint64)
    key_words = np.array([key & (2**64 - 1), key >> 64], dtype=np.uint64)
    generator = np.random.Philox(counter=counter, key=key_words)
    return generator.random_raw(4 * n_blocks).view(np.uint32)


class Draws:
    """The random-word kernels of :class:`~holovec.backends.Backend` (a mixin: it uses the
    adapter's ``word_dtype_name``). :mod:`holovec.random` calls these hooks and never
    imports a backend's module; where a whole draw is made is the adapter's rule
    (``Backend.draw_path``)."""

    def mul_lohi_32(self, x: Any, m: int) -> tuple[Any, Any]:
        """``x * m`` as (low, high) 32-bit words, for 32-bit words ``x`` and a constant ``m``.

        Written with 16-bit halves so that no intermediate exceeds 32 bits: it
        runs on any integer dtype of at least 32 bits, with or without wrap-around.
        """
        m_lo, m_hi = m & 0xFFFF, m >> 16
        x_lo, x_hi = x & 0xFFFF, x >> 16
        ll, lh = x_lo * m_lo, x_lo * m_hi
        hl, hh = x_hi * m_lo, x_hi * m_hi
        mid = (ll >> 16) + (lh & 0xFFFF) + (hl & 0xFFFF)
        hi = hh + (lh >> 16) + (hl >> 16) + (mid >> 16)
        lo = (ll & 0xFFFF) | self.mask32(mid << 16)
        return lo, hi

    def mask32(self, x: Any) -> Any:
        """Keep the low 32 bits (a no-op where words are uint32 and wrap by themselves)."""
        if self.word_dtype_name == "uint32":
            return x
        return x & 0xFFFFFFFF

    def philox_words(self, key: int, counter_start: tuple[int, Any, int], n_blocks: int) -> Any | None:
        """Philox-4x64-10 words from a fast native generator, or ``None`` for the generic path.

        The hook through which :mod:`holovec.random` takes words from a native generator
        (it never imports a backend's module). ``counter_start = (c0, c1, c2)``: block
        ``g`` is Philox of the counter ``(c0 + g + 1, c1, c2, 0)`` under the 128-bit
        ``key``, and the result is its ``8 * n_blocks`` 32-bit words (4 uint64 words per
        block, little-endian), in :attr:`word_dtype` on this backend's device. The stream
        ``c1`` may also be a 1-D NumPy uint64 array: then the result has one row per
        stream, shape ``(len(c1), 8 * n_blocks)``.

        Backends whose device is the host CPU return NumPy's C implementation
        (bit-identical to the generic path; the tests check it).
        """
        return None

    def philox_words_of(
        self, seed: Any, stream: Any, purpose: Any, block_start: int, n_blocks: int
    ) -> Any | None:
        """Philox words of an address given as word arrays (:class:`holovec.random.Words`,
        traced inside a compiled draw) from a native generator, or ``None`` where the
        backend has none for such addresses (the default): the words are then computed
        with the backend's arrays."""
        return None

    def finish_before_exit(self, result: Any) -> Any:
        """``result`` of a dispatched compiled draw. Where such a program calls back into
        Python and may still be queued when the script ends (JAX on the CPU), the process
        waits for it at exit (a callback starting during finalisation aborts the
        interpreter); elsewhere ``result`` as it is."""
        return result
