"""MAP: multiply-add-permute (Gayler 1998), bipolar variant MAP-B."""

from __future__ import annotations

from functools import partial
from typing import Any

from .. import kernels
from ..random import random_signs
from . import _hamming
from ._magnitude import PRODUCT_RANGE, bounded_dots, clipped_products, index_divisors, product_index
from ._search import PRODUCT_BLOCK_ROWS, dot_similarity, items_product
from .base import VSAModel
from .registry import register_model


@register_model
class MAP(VSAModel):
    """Bipolar vectors of +1 and -1 (MAP-B in Schlegel et al. 2022).

    Laws: bind is the elementwise product, commutative and self-inverse
    (``bind(bind(a, b), b) == a`` exactly); bundle is the sign of the sum, with
    ties (an even number of items) broken by a fixed random vector from the
    model's seed; similarity is ``<a, b> / dim``.

    Parameters
    ----------
    dim : int
        Number of elements per vector.
    backend : str | Backend, optional
        The backend: a name (``"numpy"``, ``"torch"``, ``"jax"``, ``"dask"``, ``"auto"``), a
        :class:`~holovec.backends.Backend`, or ``None`` for the default (see
        :meth:`holovec.VSA.create`).
    seed : int, optional
        Makes every later unseeded draw of the model reproducible; ``None`` for fresh
        randomness.
    device : object, optional
        The device; ``None`` for the framework's best (see :meth:`holovec.VSA.create`).
    dtype : str or dtype, optional
        The vectors' dtype, where the model allows a choice; ``None`` for the model's
        default.
    **options : object
        Options of the model (see each model's class).

    Examples
    --------
    >>> from holovec import VSA
    >>> model = VSA.create("MAP", dim=1000)
    >>> a, b = model.random(seed=1), model.random(seed=2)
    >>> float(model.similarity(model.unbind(model.bind(a, b), b), a))
    1.0
    """

    name = "MAP"
    is_self_inverse = True
    is_commutative = True
    is_exact_inverse = True
    default_dtype = "float32"
    allowed_dtypes = ("float16", "bfloat16", "float32", "float64")
    element_kind = "bipolar"
    bundle_is_sum = True
    bind_is_elementwise = True
    #: a search on packed sign bits where queries and items are +-1 (MAP-C's never are)
    has_hamming_search = True
    _draw_bytes_per_element = 6.0  # measured: the bits, int8 signs, the floats

    @property
    def _accumulate_dtype(self) -> Any:
        """Sums of 16-bit floats lose integers past 2048, so they accumulate in float32."""
        if self.dtype_name in ("float32", "float64"):
            return self.dtype
        return self.backend.dtype("float32")

    def _random(self, n_rows: int, seed: int, stream: int, purpose: int, row_start: int = 0) -> Any:
        return random_signs(
            self.backend,
            seed,
            n_rows,
            self.dim,
            self.dtype,
            stream=stream,
            purpose=purpose,
            row_start=row_start,
        )

    def _bind(self, a: Any, b: Any) -> Any:
        return a * b

    def _unbind(self, c: Any, b: Any) -> Any:
        return c * b

    def _bundle(self, stacked: Any) -> Any:
        return self._sign(self.xp.sum(stacked, axis=0, dtype=self._accumulate_dtype))

    def _sign(self, x: Any) -> Any:
        """+1 / -1 by the sign of ``x``; zeros take the tie-break vector's sign."""
        xp = self.xp
        return xp.astype(xp.where(x == 0, self._tiebreak, xp.sign(x)), self.dtype)

    def _inverse(self, x: Any) -> Any:
        return x

    def _identity(self) -> Any:
        return self.xp.ones(self.dim, dtype=self.dtype, device=self.device)

    def _normalize(self, x: Any) -> Any:
        return self._sign(x)

    # similarity is <a, b> / dim, clipped to [-1, 1]: exact for +-1 vectors, linear in each
    # argument within the range (gradients), and bounded for arrays of your own (sums)
    def _similarity(self, a: Any, b: Any) -> Any:
        acc = self._accumulate_dtype
        xp, backend = self.xp, self.backend
        if acc != self.dtype:
            a, b = xp.astype(a, acc), xp.astype(b, acc)
        # vectors too large for their dot product are divided first (models/_magnitude.py)
        dots, divisors = bounded_dots(backend, a, b, partial(kernels.vecdot, backend), self._product_range)
        similarity = kernels.divide(backend, dots, self.dim)
        if divisors is not None:
            return clipped_products(self.xp, similarity, *divisors)
        return kernels.clip(backend, similarity, -1.0, 1.0)

    @property
    def _product_range(self) -> Any:
        return PRODUCT_RANGE[self.real_dtype_name]

    def _similarity_matrix(self, queries: Any, items: Any) -> Any:
        acc = self._accumulate_dtype
        if acc != self.dtype:
            queries, items = self.xp.astype(queries, acc), self.xp.astype(items, acc)
        product = lambda q, b: items_product(self, q, b, exact=True)  # noqa: E731
        dots, divisors = bounded_dots(self.backend, queries, items, product, self._product_range)
        similarity = kernels.divide(self.backend, dots, self.dim)
        if divisors is not None:
            return clipped_products(self.xp, similarity, divisors[0][:, None], divisors[1][None, :])
        return kernels.clip(self.backend, similarity, -1.0, 1.0)

    # A search ranks by <a, b> / max(dim, |a| |b|) (_search.dot_similarity): the similarity
    # itself for +-1 vectors (exactly), and for a query of larger norm (an unbound
    # superposition, whose dot products exceed dim) its cosine, which ranks the items as the
    # dot products do where the clipped similarity would tie all those above 1.
    # Rows whose squares would overflow are divided by their largest magnitude, the
    # divisors kept as a third member of the index (models/_magnitude.py).
    def search_index(self, vectors: Any) -> tuple[Any, ...]:
        acc = self._accumulate_dtype
        x = vectors if acc == self.dtype else self.xp.astype(vectors, acc)
        squares_of = lambda v: kernels.row_squared_norms(self.backend, v, PRODUCT_BLOCK_ROWS)  # noqa: E731
        index = product_index(self.backend, x, squares_of, self._product_range)
        return (vectors, index[1]) if len(index) == 2 else index

    def _search_scores(self, queries: tuple[Any, ...], items: tuple[Any, ...]) -> Any:
        q, squares_q, b, squares_b = queries[0], queries[1], items[0], items[1]
        acc = self._accumulate_dtype
        q = q if q.dtype == acc else self.xp.astype(q, acc)
        b = b if b.dtype == acc else self.xp.astype(b, acc)
        dots = items_product(self, q, b, exact=True)
        divisors = index_divisors(queries, items)
        return dot_similarity(self, dots, squares_q[:, None], squares_b[None, :], divisors)

    def _matrix_temp_bytes_per_item(self, n_queries: int) -> int:
        return 0 if self._accumulate_dtype == self.dtype else 4 * self.dim

    # -- exact top-k on packed sign bits (the protocol's Hamming hooks, see models/_hamming.py):
    # for +-1 vectors dot(a, b) = dim - 2 * hamming(sign bits), so the search ranks by
    # Hamming distance and the scores come from a table made by _search_scores' formula.
    # Only where queries and items are all +-1: other vectors keep the float path.

    @property
    def _hamming_operand_dtype(self) -> Any:
        """The dtype the search's dot products are summed in."""
        return self._accumulate_dtype

    def _hamming_table(self) -> Any:
        xp, dtype = self.xp, self._hamming_operand_dtype
        distances = xp.arange(self.dim + 1, dtype=dtype, device=self.device)
        dots = float(self.dim) - 2 * distances  # exact: integers below 2**24
        # full-size operands: XLA turns a division by a broadcast value into a multiplication
        # by its reciprocal, which the dense path (two full arrays) does not round alike
        squares = xp.full(dots.shape, float(self.dim), dtype=dtype, device=self.device)
        return dot_similarity(self, dots, squares, squares)

    def hamming_search_bits(self, index: tuple[Any, ...]) -> Any | None:
        """The sign bits (1 for -1) of a search index's vectors, packed, or ``None`` where
        a vector is not +-1 (then the search keeps its float path) or a Hamming search
        does not apply (see :mod:`holovec.models._hamming`).

        Parameters
        ----------
        index : tuple[object, ...]
            A search index (the tuple :meth:`search_index` makes).
        """
        vectors = index[0]
        if not self.has_hamming_search or not _hamming.usable(self, vectors, self._hamming_table):
            return None
        xp = self.xp
        if not bool(xp.all(xp.abs(vectors) == 1)):
            return None
        negative = xp.astype(vectors < 0, self.backend.dtype("uint8"))
        return kernels.pack_bits(self.backend, negative, _hamming.packed_bytes(self.dim))
