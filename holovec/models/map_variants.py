"""MAP-C and MAP-I: the real-valued and integer variants of multiply-add-permute
(Gayler 1998), as compared by Schlegel, Neubert and Protzel (2022).

Both share MAP's (MAP-B's) elementwise binding and differ in their vectors and bundle;
both use the cosine similarity, since their vectors are not all of one length.
"""

from __future__ import annotations

from typing import Any

from ..random import random_uniform
from ._cosine import CosineSimilarity
from .map import MAP
from .registry import register_model


@register_model
class MAPC(CosineSimilarity, MAP):
    """MAP-C: real vectors with elements uniform in [-1, 1].

    Laws: bind is the elementwise product (commutative). unbind is bind itself (the
    approximate inverse of ``b`` is ``b``, so ``is_self_inverse`` is True in that sense),
    but ``b * b`` is not all ones, so the inverse is approximate (``is_exact_inverse``
    False): ``unbind(bind(a, b), b) = a * b**2`` has similarity about
    ``sqrt(5)/3 = 0.745`` with ``a``. bundle is the sum clipped elementwise to [-1, 1];
    ``normalize`` clips the same way. similarity is the cosine, in [-1, 1].

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
    >>> model = VSA.create("MAP-C", dim=2000)
    >>> a, b = model.random(seed=1), model.random(seed=2)
    >>> 0.65 < float(model.similarity(model.unbind(model.bind(a, b), b), a)) < 0.85
    True
    """

    name = "MAP-C"
    is_self_inverse = True
    is_commutative = True
    is_exact_inverse = False
    element_kind = "bounded"
    _draw_bytes_per_element = 12.0  # measured: the words and the uniforms
    has_hamming_search = False  # uniform elements, never +-1

    def _random(self, n_rows: int, seed: int, stream: int, purpose: int, row_start: int = 0) -> Any:
        # drawn in float32 (or float64): 24-bit uniforms are exact there, not in 16 bits
        wide = self.dtype if self.dtype_name == "float64" else self.backend.dtype("float32")
        u = random_uniform(
            self.backend,
            seed,
            n_rows,
            self.dim,
            wide,
            -1.0,
            1.0,
            stream=stream,
            purpose=purpose,
            row_start=row_start,
        )
        return self.xp.astype(u, self.dtype)

    def _bundle(self, stacked: Any) -> Any:
        return self._normalize(self.xp.sum(stacked, axis=0, dtype=self._accumulate_dtype))

    def _normalize(self, x: Any) -> Any:
        return self.xp.astype(self.xp.clip(x, -1, 1), self.dtype)


@register_model
class MAPI(CosineSimilarity, MAP):
    """MAP-I: bipolar vectors (as MAP), bundled by the plain integer sum.

    Laws: bind is the elementwise product, commutative and self-inverse; unbinding with
    a bipolar vector is exact (``b * b == 1``), for any left operand, bundles included.
    bundle is the sum without clipping or thresholding, so bundles hold integers (in a
    float dtype: float32 holds them exactly up to 2**24). similarity is the cosine, in
    [-1, 1]. ``normalize`` thresholds to bipolar by the sign (the step MAP-B's bundle
    takes), ties broken by the model's tie-break vector.

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
    >>> model = VSA.create("MAP-I", dim=1000)
    >>> a, b, c = model.random(3, seed=1)
    >>> s = model.bundle([a, b, c])
    >>> sorted(set(model.to_numpy(s).tolist()))
    [-3.0, -1.0, 1.0, 3.0]
    """

    name = "MAP-I"
    is_self_inverse = True
    is_commutative = True
    is_exact_inverse = True
    allowed_dtypes = ("float32", "float64")
    _exact_products = True  # integers: exact sums below 2**24 (float32)

    @property
    def allowed_values(self) -> str:
        return "integers (+1 or -1, and their sums in bundles)"

    def valid_elements(self, x: Any) -> Any | None:
        if not self.xp.isdtype(x.dtype, "real floating"):
            return None  # integers are checked once converted (exactly), complex once real
        return self.xp.isfinite(x) & (x == self.xp.round(x))

    def _bundle(self, stacked: Any) -> Any:
        return self.xp.sum(stacked, axis=0)

    # a search on packed sign bits where queries and items are +-1 (MAP.hamming_search_bits):
    # the scores are the cosines of those dot products, from the norms as search_index has them
    @property
    def _hamming_operand_dtype(self) -> Any:
        wide = self._cosine_dtype
        return self.dtype if wide is None else wide

    def _hamming_table(self) -> Any:
        xp, dtype = self.xp, self._hamming_operand_dtype
        distances = xp.arange(self.dim + 1, dtype=dtype, device=self.device)
        dots = float(self.dim) - 2 * distances
        # full-size operands, as the dense path has them (see MAP._hamming_table)
        norm = xp.sqrt(xp.full(dots.shape, float(self.dim), dtype=dtype, device=self.device))
        return self._cosine(dots, norm, norm)
