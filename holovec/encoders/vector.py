"""Feature vectors by random projection: ``x (n, f) -> (n, D)`` with one matrix product.

``R`` is a seeded ``(f, D)`` matrix of standard normal numbers from
:mod:`holovec.random` (:attr:`~holovec.random.Purpose.PROJECTION`), the same on every
backend. What ``x @ R`` becomes depends on the model:

- MAP, MAP-I, BSC (packed or not): the sign of ``x @ R`` (SimHash): the expected
  similarity of two encodings is ``1 - 2 * angle(x, y) / pi``, a monotone function of
  the inputs' cosine. Zeros take the model's tie-break.
- MAP-C: ``x @ R`` divided by its root mean square over the ``dim`` elements (about
  ``|x|``: standard normal per element), clipped to [-1, 1].
- HRR, VTB: ``x @ R`` scaled to unit length (a Johnson-Lindenstrauss projection): the
  similarity (cosine) of two encodings is about the cosine of the inputs, within
  about ``1/sqrt(D)``.
- FHRR: the phases ``bandwidth * (x @ R)``, i.e. random Fourier features: the expected
  similarity is the Gaussian kernel ``exp(-bandwidth**2 * |x - y|**2 / 2)`` of the
  inputs' distance.

Other models (GHRR, BSDC, BSDC-SEG) raise ``TypeError``: their vectors are not a
pointwise function of a projection.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._validation import check_int, check_number
from ..backends import dtype_name
from ..models.base import VSAModel
from ..random import Purpose, random_normal
from ._common import Sums
from ._values import check_values
from .base import Encoder

__all__ = ["RandomProjectionEncoder", "VectorEncoder"]

#: rows of every projection product (see ``Backend.row_blocked_matmul``): a multiple of the
#: matrix kernels' row tiles, and small, so that one vector pads few rows (measured with
#: NumPy on 2 cores, 1,797 x 64 features to D=10,000: 39 ms against 29 ms for one product
#: of all rows, 36 ms in blocks of 128; one vector 0.5 ms against 2.3 ms in blocks of 128)
ROWS_PER_PRODUCT = 16

#: element kinds that a real projection can be turned into (by sign, clip, unit length or phase)
_KINDS = ("bipolar", "bounded", "binary", "phasor", "gaussian")


class VectorEncoder(Encoder):
    """Real feature vectors of length ``n_features`` as hypervectors (random projection).

    Examples
    --------
    >>> import numpy as np
    >>> from holovec import VSA
    >>> from holovec.encoders import VectorEncoder
    >>> model = VSA.create("MAP", dim=10000)
    >>> enc = VectorEncoder(model, n_features=3, seed=1)
    >>> x = np.array([[1.0, 0.0, 0.0], [0.9, 0.1, 0.0], [0.0, 0.0, 1.0]])
    >>> h = enc.encode(x)
    >>> float(model.similarity(h[0], h[1])) > 0.8, abs(float(model.similarity(h[0], h[2]))) < 0.1
    (True, True)
    """

    requires = "elements that a projection can be rounded to (model.element_kind in " + repr(_KINDS) + ")"

    @classmethod
    def supports(cls, model: Any) -> bool:
        return model.element_kind in _KINDS

    def __init__(
        self, model: VSAModel, n_features: int, *, bandwidth: float = 1.0, seed: int | None = None
    ) -> None:
        super().__init__(model, seed=seed)
        self.n_features = check_int(n_features, "n_features", 1)
        bandwidth = check_number(bandwidth, "bandwidth")
        top = float(np.finfo(np.dtype(dtype_name(self.real_dtype))).max)
        if not (bandwidth > 0 and bandwidth <= top):
            raise ValueError(
                f"bandwidth must be a positive finite number that fits the projection's "
                f"{dtype_name(self.real_dtype)} (at most {top:.6g}), got {bandwidth}"
            )
        self.bandwidth = bandwidth
        self._matrix: Any = None
        self._sums = Sums.of(model)

    @property
    def real_dtype(self) -> Any:
        name = self.model.dtype_name
        return self.model.backend.dtype("float64" if name in ("float64", "complex128") else "float32")

    @property
    def matrix(self) -> Any:
        """The projection ``R``, shape ``(n_features, dim)`` (drawn on first use)."""
        if self._matrix is None:
            model = self.model
            self._matrix = random_normal(
                model.backend,
                self.seed,
                self.n_features,
                model.dim,
                self.real_dtype,
                purpose=Purpose.PROJECTION,
            )
        return self._matrix

    def project(self, x: Any) -> Any:
        """``x @ R`` for checked input: ``(f,)`` -> ``(dim,)``, ``(n, f)`` -> ``(n, dim)``."""
        model, xp = self.model, self.model.xp
        values = self._rows_of_vectors(check_values(model.backend, x, name="x"))
        if values.ndim not in (1, 2) or values.shape[-1] != self.n_features:
            raise ValueError(
                f"x must have shape ({self.n_features},) or (n, {self.n_features}), got {tuple(values.shape)}"
            )
        rows = xp.astype(values, self.real_dtype)
        single = rows.ndim == 1
        if single:
            rows = rows[None, :]
        with np.errstate(over="ignore", invalid="ignore"):  # overflow is refused by encode, by row
            # products of one shape: a row's projection (rounded by the kernel the matrix
            # library picks for the shape) does not depend on the rows it is encoded with
            z = model.backend.row_blocked_matmul(rows, self.matrix, ROWS_PER_PRODUCT)
        return z[0] if single else z

    def _largest(self, z: Any, what: str) -> Any:
        """The largest magnitude of each row of ``z`` (keepdims); ``ValueError`` naming the
        rows where it is not finite (the projection overflowed), unless traced."""
        xp, backend = self.model.xp, self.model.backend
        largest = xp.max(xp.abs(z), axis=-1, keepdims=True)
        if backend.is_traced(largest) or bool(xp.all(xp.isfinite(largest))):
            return largest
        bad = ~np.isfinite(backend.to_numpy(largest)[..., 0])
        rows = "the vector" if bad.ndim == 0 else f"rows {np.flatnonzero(bad)[:10].tolist()}"
        raise ValueError(
            f"x: {what} of {rows} overflows {dtype_name(self.real_dtype)} (the features are too large); "
            "scale the features down"
        )

    def encode(self, x: Any) -> Any:
        """One feature vector ``(f,)`` -> one hypervector; ``(n, f)`` -> ``(n, vector_length)``."""
        model, xp = self.model, self.model.xp
        z = self.project(x)
        kind = model.element_kind
        if kind == "phasor":  # the projection as phases
            with np.errstate(over="ignore"):
                phases = self.bandwidth * z
            self._largest(phases, "bandwidth * (x @ R)")
            return xp.astype(model.backend.unit_phasor(phases), model.dtype)
        largest = self._largest(z, "the projection x @ R")
        if kind in ("bounded", "gaussian"):
            # scale-free kinds: rows whose squares would overflow (or underflow to 0) are
            # scaled to a largest magnitude of 1 first; the others are left exactly as they are
            info = np.finfo(np.dtype(dtype_name(self.real_dtype)))
            high, low = math.sqrt(float(info.max) / model.dim) / 2, math.sqrt(float(info.tiny)) * 2
            rescale = (largest > high) | ((largest < low) & (largest > 0))
            z = z / xp.where(rescale, largest, xp.ones_like(largest))
        if kind == "bounded":  # unit RMS, then the model's clip to [-1, 1]
            norm = xp.sqrt(xp.sum(z * z, axis=-1, keepdims=True) / model.dim)
            return model.normalize(xp.astype(z / xp.where(norm > 0, norm, 1), model.dtype))
        if kind == "bipolar":  # the sign, ties broken by the model
            return model.normalize(xp.astype(z, model.dtype))
        return self._sums.finish(xp.astype(z, self._sums.dtype))  # bits by sign; unit length


#: the same encoder under the name of what it does
RandomProjectionEncoder = VectorEncoder
