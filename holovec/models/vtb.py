"""VTB: vector-derived transformation binding (Gosmann and Eliasmith 2019)."""

from __future__ import annotations

import math
from typing import Any

from .. import kernels
from ..random import random_normal
from ._checks import check_dim
from ._cosine import CosineSimilarity, unit_norm
from .base import VSAModel
from .registry import register_model


@register_model
class VTB(CosineSimilarity, VSAModel):
    """Real vectors with elements drawn from N(0, 1/dim); ``dim`` must be a square ``d*d``.

    Binding multiplies ``x`` by a matrix derived from ``y``:
    ``bind(x, y) = V_y @ x``, where ``V_y`` is block-diagonal with ``d`` copies of
    ``sqrt(d) * reshape(y, (d, d))`` (row-major, as in Gosmann and Eliasmith 2019).
    In code: the ``d`` consecutive length-``d`` pieces of ``x`` are each multiplied by
    that matrix, one batched matrix product.

    Laws
    ----
    - bind is **not commutative**: ``bind(x, y) != bind(y, x)``. The right operand
      ``y`` is the one that becomes a matrix (the key).
    - ``unbind(c, y) = V_y.T @ c`` recovers the **left** operand given the right one:
      ``unbind(bind(x, y), y) ~ x``, with similarity about 0.7 for random vectors
      (an approximate inverse: ``is_exact_inverse`` is False, since ``V_y`` is only
      close to orthogonal). Equivalently ``unbind(c, y) = bind(c, inverse(y))`` where
      ``inverse(y)`` is ``y`` with its ``d x d`` matrix transposed.
    - ``identity()`` is ``flatten(eye(d)) / sqrt(d)``: ``bind(x, identity()) == x``.
    - bundle is the normalised sum ``s / |s|`` (as in Schlegel et al. 2022; vectors
      have unit norm on average); similarity is the cosine, in [-1, 1].

    Parameters
    ----------
    dim : int
        Number of elements per vector, a square ``d * d``.
    backend : str or Backend, optional
        The backend: a name (``"numpy"``, ``"torch"``, ``"jax"``, ``"dask"``, ``"auto"``), a
        :class:`~holovec.backends.Backend`, or ``None`` for the default (see
        :meth:`holovec.VSA.create`).
    **kwargs : object
        ``seed``, ``device``, ``dtype`` and the other options of :class:`VSAModel`.

    Examples
    --------
    >>> from holovec import VSA
    >>> model = VSA.create("VTB", dim=1024)          # 32 * 32
    >>> x, y = model.random(seed=1), model.random(seed=2)
    >>> 0.6 < float(model.similarity(model.unbind(model.bind(x, y), y), x)) < 0.8
    True
    >>> abs(float(model.similarity(model.bind(x, y), model.bind(y, x)))) < 0.2
    True
    """

    _draws_exact = False  # log, sqrt and cos of the normal draw round differently by framework

    name = "VTB"
    is_self_inverse = False
    is_commutative = False
    is_exact_inverse = False
    default_dtype = "float32"
    allowed_dtypes = ("float32", "float64")
    element_kind = "gaussian"
    bundle_is_sum = True
    _draw_bytes_per_element = 20.0  # measured (Box-Muller)

    def __init__(self, dim: int, backend: Any = None, **kwargs: Any) -> None:
        dim = check_dim(dim)
        side = math.isqrt(dim)
        if side * side != dim:
            above = side + 1
            raise ValueError(
                f"VTB needs dim to be a perfect square d*d (vectors are d blocks of d); "
                f"{dim} is not: the nearest squares are {side * side} ({side}^2) and "
                f"{above * above} ({above}^2)"
            )
        self.side = side
        super().__init__(dim, backend, **kwargs)

    def _matrices(self, x: Any) -> Any:
        return self.xp.reshape(x, (*x.shape[:-1], self.side, self.side))

    def _flat(self, x: Any) -> Any:
        return self.xp.reshape(x, (*x.shape[:-2], self.dim))

    def _random(self, n_rows: int, seed: int, stream: int, purpose: int, row_start: int = 0) -> Any:
        normal = random_normal(
            self.backend,
            seed,
            n_rows,
            self.dim,
            self.dtype,
            stream=stream,
            purpose=purpose,
            row_start=row_start,
        )
        return normal * (1.0 / math.sqrt(self.dim))

    def _bind(self, a: Any, b: Any) -> Any:
        # row i of reshape(x) is the i-th block x_i; V'_y x_i for all i is X @ V'_y.T
        product = kernels.matmul(self.backend, self._matrices(a), self.xp.matrix_transpose(self._matrices(b)))
        return self._flat(product) * math.sqrt(self.side)

    def _unbind(self, c: Any, b: Any) -> Any:
        # V'_y.T c_i for all i is C @ V'_y
        return self._flat(kernels.matmul(self.backend, self._matrices(c), self._matrices(b))) * math.sqrt(
            self.side
        )

    def _bundle(self, stacked: Any) -> Any:
        return unit_norm(self.backend, self.xp.sum(stacked, axis=0))

    def _inverse(self, x: Any) -> Any:
        return self._flat(self.xp.matrix_transpose(self._matrices(x)))

    def _identity(self) -> Any:
        xp = self.xp
        eye = xp.eye(self.side, dtype=self.dtype, device=self.device) * (1.0 / math.sqrt(self.side))
        return xp.reshape(eye, (self.dim,))

    def _normalize(self, x: Any) -> Any:
        return unit_norm(self.backend, x)
