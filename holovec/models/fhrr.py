"""FHRR: Fourier holographic reduced representations (Plate 2003)."""

from __future__ import annotations

from typing import Any

from .. import kernels
from ..random import random_phases
from ._magnitude import PRODUCT_RANGE, bounded_dots, clipped_products, index_divisors, product_index
from ._memory import itemsize
from ._search import PRODUCT_BLOCK_ROWS, dot_similarity, items_product
from .base import VSAModel
from .registry import register_model


@register_model
class FHRR(VSAModel):
    """Unit phasors ``exp(i*theta)`` with uniform phases.

    Laws: bind is the elementwise product (commutative), ``unbind(bind(a, b), b) == a``
    up to float rounding (exact inverse: the complex conjugate), bundle is the sum
    renormalised to unit magnitude, similarity is ``Re(<a, conj(b)>) / dim``.

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
    >>> model = VSA.create("FHRR", dim=1000)
    >>> a, b = model.random(seed=1), model.random(seed=2)
    >>> round(float(model.similarity(model.unbind(model.bind(a, b), b), a)), 4)
    1.0
    """

    _draws_exact = False  # cos and sin of the phases round differently by framework

    name = "FHRR"
    is_self_inverse = False
    is_commutative = True
    is_exact_inverse = True
    default_dtype = "complex64"
    allowed_dtypes = ("complex64", "complex128")
    element_kind = "phasor"
    bundle_is_sum = True
    bind_is_elementwise = True
    has_phasor_form = True
    _draw_bytes_per_element = 16.0  # measured: the words, the phases, the phasors

    # -- the phasor form: one phase per element -------------------------------------------
    @property
    def phase_count(self) -> int:
        return self.dim

    def from_phases(self, phases: Any) -> Any:
        return kernels.unit_phasor(self.backend, phases)

    def to_phasors(self, x: Any) -> Any:
        return x

    def _random(self, n_rows: int, seed: int, stream: int, purpose: int, row_start: int = 0) -> Any:
        phases = random_phases(
            self.backend,
            seed,
            n_rows,
            self.dim,
            self.real_dtype,
            stream=stream,
            purpose=purpose,
            row_start=row_start,
        )
        return kernels.unit_phasor(self.backend, phases)

    def _bind(self, a: Any, b: Any) -> Any:
        return a * b

    def _unbind(self, c: Any, b: Any) -> Any:
        return c * self.xp.conj(b)

    def _bundle(self, stacked: Any) -> Any:
        return self._unit(self.xp.sum(stacked, axis=0))

    def _unit(self, x: Any) -> Any:
        """Each element divided by its magnitude; zeros (a tie) take the tie-break phasor."""
        xp = self.xp
        magnitude = xp.abs(x)
        nonzero = magnitude > 0
        return xp.where(nonzero, x / xp.where(nonzero, magnitude, 1), self._tiebreak)

    def _inverse(self, x: Any) -> Any:
        return self.xp.conj(x)

    def _identity(self) -> Any:
        return self.xp.ones(self.dim, dtype=self.dtype, device=self.device)

    def _normalize(self, x: Any) -> Any:
        return self._unit(x)

    # similarity is Re <a, conj(b)> / dim clipped to [-1, 1] (unit phasors' products round
    # to 1.0000001 now and then); a search ranks as MAP's does (see MAP.search_index)
    def _similarity(self, a: Any, b: Any) -> Any:
        backend = self.backend
        # vectors too large for their dot product are divided first (models/_magnitude.py)
        dots, divisors = bounded_dots(
            backend, a, b, lambda x, y: self.xp.real(kernels.vecdot(backend, y, x)), self._product_range
        )
        similarity = kernels.divide(backend, dots, self.dim)
        if divisors is not None:
            return clipped_products(self.xp, similarity, *divisors)
        return kernels.clip(backend, similarity, -1.0, 1.0)

    @property
    def _product_range(self) -> Any:
        return PRODUCT_RANGE[self.real_dtype_name]

    def _similarity_matrix(self, queries: Any, items: Any) -> Any:
        # Re(q . conj(b)) = q_re . b_re + q_im . b_im: one real product of twice the width
        backend = self.backend
        product = lambda q, b: items_product(  # noqa: E731
            self, kernels.real_view(backend, q), kernels.real_view(backend, b)
        )
        dots, divisors = bounded_dots(backend, queries, items, product, self._product_range)
        similarity = kernels.divide(backend, dots, self.dim)
        if divisors is not None:
            return clipped_products(self.xp, similarity, divisors[0][:, None], divisors[1][None, :])
        return kernels.clip(backend, similarity, -1.0, 1.0)

    exact_scores = False  # products of float phasors round

    # rows whose squares would overflow are divided by their largest magnitude, the
    # divisors kept as a third member of the index (models/_magnitude.py)
    def search_index(self, vectors: Any) -> tuple[Any, ...]:
        squares_of = lambda v: kernels.row_squared_norms(self.backend, v, PRODUCT_BLOCK_ROWS)  # noqa: E731
        return product_index(self.backend, vectors, squares_of, self._product_range)

    def _search_scores(self, queries: tuple[Any, ...], items: tuple[Any, ...]) -> Any:
        q, squares_q, b, squares_b = queries[0], queries[1], items[0], items[1]
        dots = items_product(self, kernels.real_view(self.backend, q), kernels.real_view(self.backend, b))
        divisors = index_divisors(queries, items)
        return dot_similarity(self, dots, squares_q[:, None], squares_b[None, :], divisors)

    def _matrix_temp_bytes_per_item(self, n_queries: int) -> int:
        # the real view of a chunk of items (a copy on JAX) and its column of the result
        return 2 * self.vector_length * itemsize(self.real_dtype_name) + 8 * n_queries
