"""Cosine similarity, written once for the models whose vectors are not all of one length.

HRR, VTB, GHRR, MAP-C and MAP-I mix this class in (before :class:`VSAModel` in the
bases, so that its methods win). Real vectors give ``<a, b> / (|a| |b|)``; complex ones
``Re <a, conj(b)> / (|a| |b|)``, computed on the real view (re and im side by side), so
that a similarity matrix is one real matrix product. The result is clipped to [-1, 1]
(rounding can otherwise give 1.0000001), and a zero vector has similarity 0 with
everything. Rows whose squares would overflow or underflow are divided by their largest
magnitude first (:mod:`holovec.models._magnitude`), which changes no cosine: vectors of
any finite size have similarity 1 with themselves.
"""

from __future__ import annotations

from typing import Any

from .. import kernels
from ..backends import DTYPE_KINDS
from ._magnitude import COSINE_RANGE, choose, divided_rows, quiet_overflow, within_range
from ._memory import itemsize
from ._search import PRODUCT_BLOCK_ROWS, items_product


def unit_norm(backend: Any, x: Any, norm: float = 1.0) -> Any:
    """``x`` scaled to Euclidean norm ``norm`` over the last axis; zero vectors stay zero.

    The normalised sum that HRR, VTB and GHRR use as their bundle."""
    xp = backend.xp
    length = xp.sqrt(xp.real(kernels.vecdot(backend, x, x)))[..., None]
    nonzero = length > 0
    return xp.where(nonzero, x * (norm / xp.where(nonzero, length, 1)), 0)


class CosineSimilarity:
    """Mixin: ``_similarity`` and ``_similarity_matrix`` of a :class:`VSAModel` as cosines."""

    # provided by VSAModel
    xp: Any
    backend: Any
    dtype_name: str
    vector_length: int
    real_dtype_name: str

    #: whether the dot products are integer-valued, hence exact in any summation order
    #: (MAP-I), so that the matrix products need no fixed shape (see ``_search.items_product``)
    _exact_products = False

    @property
    def _is_complex(self) -> bool:
        return DTYPE_KINDS[self.dtype_name] == "complex"

    @property
    def _cosine_dtype(self) -> Any:
        """The dtype the products are summed in: 16-bit floats widen to float32."""
        if self.dtype_name in ("float16", "bfloat16"):
            return self.backend.dtype("float32")
        return None

    def _cosine_operand(self, x: Any) -> Any:
        """``x`` as a real array whose dot products are the real parts of ``x``'s."""
        if self._is_complex:
            return kernels.real_view(self.backend, x)
        wide = self._cosine_dtype
        return x if wide is None else self.xp.astype(x, wide)

    def _cosine(self, dots: Any, norm_a: Any, norm_b: Any) -> Any:
        # a norm is 0 only for a zero vector (rows are never too small for their squares,
        # see _in_range), whose dot products are 0: divided by 1, its cosine is 0
        denom = norm_a * norm_b
        return kernels.clip(self.backend, dots / self.xp.where(denom > 0, denom, 1), -1.0, 1.0)

    def _in_range(self, x: Any, squares_of: Any = None) -> tuple[Any, Any]:
        """``x`` (a cosine operand) and its squared norms, its rows divided by their largest
        magnitude where their sums would overflow or underflow (the cosine is the same).
        Call it in ``quiet_overflow``."""
        squares_of = squares_of or (lambda v: kernels.vecdot(self.backend, v, v))
        safe = COSINE_RANGE[self.real_dtype_name]
        x, squares, _ = within_range(self.backend, x, squares_of, safe)
        return x, squares

    def _similarity(self, a: Any, b: Any) -> Any:
        xp, backend = self.xp, self.backend
        a, b = self._cosine_operand(a), self._cosine_operand(b)
        with quiet_overflow(a):  # the three sums at once (one pass where a compiler fuses them)
            plain = (
                kernels.vecdot(backend, a, b),
                kernels.vecdot(backend, a, a),
                kernels.vecdot(backend, b, b),
            )
        safe = COSINE_RANGE[self.real_dtype_name]

        def divided() -> tuple[Any, Any, Any]:  # rows too large or small for their squares
            squares_of = lambda v: kernels.vecdot(backend, v, v)  # noqa: E731
            a_in, squares_a, _ = divided_rows(backend, a, squares_of, safe)
            b_in, squares_b, _ = divided_rows(backend, b, squares_of, safe)
            return kernels.vecdot(backend, a_in, b_in), squares_a, squares_b

        dots, squares_a, squares_b = choose(backend, plain[1:], a.shape[-1], safe, lambda: plain, divided)
        return self._cosine(dots, xp.sqrt(squares_a), xp.sqrt(squares_b))

    def _similarity_matrix(self, queries: Any, items: Any) -> Any:
        return self._search_scores(self.search_index(queries), self.search_index(items))

    @property
    def exact_scores(self) -> bool:  # type: ignore[override]
        return self._exact_products

    def score_from_dots(self, dots: Any, squares_q: Any, squares_b: Any) -> Any:
        xp = self.xp
        return self._cosine(dots, xp.sqrt(squares_q), xp.sqrt(squares_b))

    def search_index(self, vectors: Any) -> tuple[Any, Any]:
        # the real operand (a view unless widened or rescaled) and the norms, once per store
        # or search
        with quiet_overflow(vectors):
            b, squares = self._in_range(
                self._cosine_operand(vectors),
                lambda v: kernels.row_squared_norms(self.backend, v, PRODUCT_BLOCK_ROWS),
            )
        return b, self.xp.sqrt(squares)

    def score_operand(self, vectors: Any) -> Any:
        # the canonical sums are float64: float32 rows cannot leave its range, float64 rows
        # can, and are divided by their largest magnitude where they would (as the fast
        # search's are, by the same rule)
        x = super().score_operand(vectors)  # type: ignore[misc]
        if self.real_dtype_name == "float64":
            with quiet_overflow(x):
                x, _ = self._in_range(x)
        return x

    def _search_scores(self, queries: tuple[Any, ...], items: tuple[Any, ...]) -> Any:
        (q, norm_q), (b, norm_b) = queries, items
        dots = items_product(self, q, b, exact=self._exact_products)
        return self._cosine(dots, norm_q[:, None], norm_b[None, :])

    def _search_temp_bytes_per_item(self, n_queries: int) -> int:
        return 8 * n_queries  # the index holds the operand already: only the scores

    def _matrix_temp_bytes_per_item(self, n_queries: int = 0) -> int:
        """Per item: its real (or widened) copy and its squared elements, plus its column
        of the result, so that chunks bound the memory of large codebooks."""
        width = self.vector_length * (2 if self._is_complex else 1)
        return 2 * itemsize(self.real_dtype_name) * width + 8 * n_queries
