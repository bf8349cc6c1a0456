"""The exact Hamming top-k search of packed vectors: one checked entry point over the
frameworks' kernels (host XOR/popcount, the GPUs' int8 product)."""

from __future__ import annotations

from typing import Any

from ..._validation import check_int


class HammingSearch:
    """:meth:`hamming_top_k` of :class:`~holovec.backends.Backend` (a mixin: it uses the
    adapter's ``xp``, ``dtype``, ``is_array`` and the bit and top-k kernels). The checks are
    made here, once for every backend; the search is the backend's :meth:`_hamming_top_k`
    (this module's default scores chunks and merges a running top-k; the frameworks'
    kernel classes give the fused kernels)."""

    #: whether :meth:`hamming_top_k` on packed bits beats the dense search of binary and
    #: bipolar codes (the fused host kernels: NumPy, and torch and JAX arrays on the CPU)
    fast_hamming_search: bool = False

    def hamming_top_k(self, queries: Any, items: Any, n_bits: int, k: int) -> tuple[Any, Any]:
        """The ``min(k, n_i)`` nearest items of each query by Hamming distance: ``(distances,
        indices)``, int32 arrays and the index arrays of :meth:`top_k` (int64; JAX: int32
        unless 64-bit mode is on), ``(n_q, min(k, n_i))``, nearest first, equal
        distances lowest index first (as a stable sort of the whole distance matrix).

        ``queries`` ``(n_q, n_bytes)`` and ``items`` ``(n_i, n_bytes)`` are bit-packed uint8
        arrays of this backend (:meth:`pack_bits`) whose bits past ``n_bits`` are zero on both
        sides, ``n_bytes`` at most the whole 64-bit words that ``n_bits`` bits take. ``k`` is
        a positive int (more than ``n_i``: all items), as the top-k of
        :mod:`holovec.retrieval` takes it. The search hook of :mod:`holovec.retrieval` for
        binary and bipolar codes.

        The arguments are checked here (shapes, dtypes and ``k``: no values read), once for
        every backend; the search itself is the backend's kernel, :meth:`_hamming_top_k`.

        Raises
        ------
        TypeError
            ``queries`` or ``items`` not uint8 arrays of this backend; ``n_bits`` or ``k``
            not an int (a bool, a float or a string is refused, not truncated).
        ValueError
            Arrays not 2-d, of different widths, or no items; ``n_bits`` that the width
            cannot hold or that leaves a whole 64-bit word of padding; ``k < 1``.
        """
        k = self._checked_hamming_arguments(queries, items, n_bits, k)
        return self._hamming_top_k(queries, items, int(n_bits), k)

    def _checked_hamming_arguments(self, queries: Any, items: Any, n_bits: Any, k: Any) -> int:
        """``min(k, n_i)`` for valid arguments of :meth:`hamming_top_k`, else a clear error."""
        uint8 = self.dtype("uint8")
        for name, x in (("queries", queries), ("items", items)):
            if not self.is_array(x):
                raise TypeError(
                    f"hamming_top_k: {name} must be a {self.array_type_name} of backend {self.name!r}, "
                    f"got {type(x).__module__}.{type(x).__name__}"
                )
            if x.dtype != uint8:
                raise TypeError(f"hamming_top_k: {name} must be bit-packed uint8, got dtype {x.dtype}")
            if x.ndim != 2:
                raise ValueError(
                    f"hamming_top_k: {name} must be 2-d (rows of packed bytes), got shape {tuple(x.shape)}"
                )
        n_bytes = int(queries.shape[1])
        if int(items.shape[1]) != n_bytes:
            raise ValueError(
                f"hamming_top_k: queries and items must have the same width, got {n_bytes} bytes per "
                f"query and {int(items.shape[1])} per item"
            )
        n_bits = check_int(n_bits, "hamming_top_k: n_bits", 1)
        words = -(-n_bits // 64)
        if not -(-n_bits // 8) <= n_bytes <= 8 * words:
            raise ValueError(
                f"hamming_top_k: {n_bits} bits are packed in {-(-n_bits // 8)} to {8 * words} bytes "
                f"(whole 64-bit words at most), got rows of {n_bytes} bytes"
            )
        k = check_int(k, "hamming_top_k: k", 1)
        n = int(items.shape[0])
        if n == 0:
            raise ValueError("hamming_top_k: cannot search an empty set of items")
        return min(k, n)

    def _hamming_top_k(self, queries: Any, items: Any, n_bits: int, k: int) -> tuple[Any, Any]:
        """The kernel of :meth:`hamming_top_k` for checked arguments (``1 <= k <= n_i``). This
        default scores chunks of items with :meth:`hamming_matrix` and merges a running
        :meth:`top_k`; backends on the host override it with a fused XOR/popcount kernel
        (no score matrix)."""
        xp = self.xp
        n = items.shape[0]
        per_item = max(
            1, 4 * queries.shape[0] + self.hamming_temp_bytes(queries.shape[0], items.shape[1], n_bits)
        )
        chunk = max(k, (32 * 2**20) // per_item)
        best_d = best_i = None
        for start in range(0, n, chunk):
            dist = self.hamming_matrix(queries, items[start : start + chunk], n_bits)
            s, i = self.top_k(-xp.astype(dist, self.dtype("int32")), k)
            i = i + start
            if best_d is not None:
                # earlier chunks first: equal distances keep the lowest index first
                s_all = xp.concat([best_d, s], axis=-1)
                i_all = xp.concat([best_i, i], axis=-1)
                s, pos = self.top_k(s_all, k)
                i = xp.take_along_axis(i_all, pos, axis=-1)
            best_d, best_i = s, i
        return -best_d, best_i
