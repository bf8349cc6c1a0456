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

Memory: ``R`` takes ``n_features * dim * 4`` bytes (8 for float64 models). Drawn at
once, its temporaries (the random words, 64-bit on torch, and the Box-Muller uniforms)
would take five to six times that; it is drawn in blocks of ``DRAW_BLOCK_BYTES`` instead
(row ``i`` of a draw does not depend on the rows drawn with it, so ``R`` is the same), and
peaks at about twice ``R`` (the blocks and the matrix they are joined into) plus the
temporaries of a block. Measured at dim=10,000 with 20,000 features (a 763 MiB matrix,
3.7 GiB at its peak when drawn at once): 1,526 MiB with NumPy (tracemalloc); the growth of
the process's resident memory 1,586 MiB with NumPy, 1,650 MiB with torch and 1,818 MiB
with JAX on the CPU. Encoding ``n`` vectors takes a few times ``n * dim * 4`` bytes more
(the projection and its rounding): batch large inputs. The size of ``R`` is checked when
the encoder is made and again before the draw, against the memory the process may use
(:meth:`holovec.backends.Backend.available_memory`: free memory within the process's
limits), and refused with :class:`~holovec.models.AllocationError` before anything is
allocated.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any, ClassVar

import numpy as np

from .. import kernels
from .._params import POSITIVE, POSITIVE_INT, Rule
from ..backends import dtype_name
from ..models.base import CHECKED_ALLOCATION_BYTES, AllocationError, VSAModel
from ..random import Purpose, Words, address_words, random_normal
from ._common import Sums
from ._values import check_values
from .base import Encoder

__all__ = ["RandomProjectionEncoder", "VectorEncoder"]

#: rows of every projection product (see ``kernels.row_blocked_matmul``): a multiple of the
#: matrix kernels' row tiles, and small, so that one vector pads few rows (measured with
#: NumPy on 2 cores, 1,797 x 64 features to D=10,000: 39 ms against 29 ms for one product
#: of all rows, 36 ms in blocks of 128; one vector 0.5 ms against 2.3 ms in blocks of 128)
ROWS_PER_PRODUCT = 16

#: bytes of one block of the projection's draw (its rows of float32 or float64 values):
#: small beside the matrices it matters for, whose temporaries (about 6 blocks) it bounds
DRAW_BLOCK_BYTES = 16 * 2**20
#: peak bytes of a draw at once per byte of its result (measured at dim=10,000, float32:
#: NumPy and JAX 5, torch 6 with its 64-bit words)
DRAW_PEAK_PER_BYTE = 6
#: peak bytes of a draw in blocks per byte of the matrix: the blocks, the matrix they are
#: joined into and the allocators' slack (measured, see above: NumPy 2.08, torch 2.16, JAX 2.38)
JOINED_PEAK_PER_BYTE = 2.5

#: element kinds that a real projection can be turned into (by sign, clip, unit length or phase)
_KINDS = ("bipolar", "bounded", "binary", "phasor", "gaussian")


class VectorEncoder(Encoder):
    """Real feature vectors of length ``n_features`` as hypervectors (random projection).

    Parameters
    ----------
    model : VSAModel
        The model whose vectors the encoder makes.
    n_features : int
        Number of coordinates of an input point.
    bandwidth : float, optional
        Scale of the projection: larger is sharper.
    seed : int, optional
        Seed of the projection; ``None`` draws it from the model's generator.

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

    _parameter_rules: ClassVar[dict[str, Rule]] = {"n_features": POSITIVE_INT, "bandwidth": POSITIVE}

    def __init__(
        self, model: VSAModel, n_features: int, *, bandwidth: float = 1.0, seed: int | None = None
    ) -> None:
        super().__init__(model, seed=seed, n_features=n_features, bandwidth=bandwidth)
        self.n_features = int(n_features)
        bandwidth = float(bandwidth)
        top = float(np.finfo(np.dtype(dtype_name(self.real_dtype))).max)
        if not bandwidth <= top:  # the rules took a positive float; it must fit the projection's too
            raise ValueError(
                f"bandwidth must be a positive finite number that fits the projection's "
                f"{dtype_name(self.real_dtype)} (at most {top:.6g}), got {bandwidth}"
            )
        self.bandwidth = bandwidth
        self._matrix: Any = None
        self._sums = Sums.of(model)
        self._check_matrix_memory()

    @property
    def real_dtype(self) -> Any:
        return self.model.real_dtype

    @property
    def matrix(self) -> Any:
        """The projection ``R``, shape ``(n_features, dim)`` (drawn on first use, in blocks
        of rows: see the module's notes on memory)."""
        if self._matrix is None:
            self._check_matrix_memory()
            self._matrix = self._draw_matrix(self.seed)
        return self._matrix

    def _rows_per_block(self) -> int:
        """Rows of ``R`` drawn at once: ``DRAW_BLOCK_BYTES`` of them, at least one."""
        row_bytes = self.model.dim * np.dtype(dtype_name(self.real_dtype)).itemsize
        return max(1, DRAW_BLOCK_BYTES // row_bytes)

    def _draw_matrix(self, seed: int) -> Any:
        """The seeded standard normal ``(n_features, dim)`` matrix, drawn block by block."""
        model, n, rows = self.model, self.n_features, self._rows_per_block()
        blocks = [self._draw_block(seed, min(rows, n - start), start) for start in range(0, n, rows)]
        return blocks[0] if len(blocks) == 1 else model.xp.concat(blocks, axis=0)

    def _draw_block(self, seed: int, n_rows: int, start: int) -> Any:
        """Rows ``start:start + n_rows`` of ``R``: where the backend compiles draws, one
        program of the address (as data: one program for every seed), else op by op."""
        model = self.model
        backend, dim, dtype = model.backend, model.dim, self.real_dtype
        if kernels.draw_path(backend, n_rows * dim, exact=False) != "compiled":
            return random_normal(
                backend, seed, n_rows, dim, dtype, purpose=Purpose.PROJECTION, row_start=start
            )
        program = backend.program(
            partial(_normal_rows, backend, n_rows, dim, dtype, start),
            ("holovec.encoders.projection", n_rows, dim, dtype_name(dtype), start),
        )  # (it holds no model: the backend keeps it)
        # (as the models' compiled draws: a host callback of the program finishes before exit;
        # the address on the device, so that the matrix is placed there as every later
        # result of it is, and programs of both see one kind of argument)
        words = backend.asarray(address_words(seed, 0, Purpose.PROJECTION))
        return kernels.finish_before_exit(backend, program(words))

    def _matrix_peak_bytes(self) -> int:
        """About the peak memory of drawing ``R``: the draw's temporaries of one block, and
        for more than one block the blocks and the matrix they are joined into."""
        row_bytes = self.model.dim * np.dtype(dtype_name(self.real_dtype)).itemsize
        rows = self._rows_per_block()
        block_peak = DRAW_PEAK_PER_BYTE * min(rows, self.n_features) * row_bytes
        if self.n_features <= rows:
            return block_peak
        return block_peak + math.ceil(JOINED_PEAK_PER_BYTE * self.n_features * row_bytes)

    def _check_matrix_memory(self) -> None:
        """``AllocationError`` (before anything is allocated) where drawing ``R`` would need
        more memory than the model's device has available."""
        needed = self._matrix_peak_bytes()
        if needed <= CHECKED_ALLOCATION_BYTES:
            return
        available = self.model.backend.available_memory()
        if available is not None and needed > available:
            raise AllocationError(
                f"{type(self).__name__}: the projection of {self.n_features} features to dim "
                f"{self.model.dim} needs about {needed / 2**30:.2f} GiB at its peak (a "
                f"{dtype_name(self.real_dtype)} matrix of {self.n_features} x {self.model.dim} and its "
                f"draw), more than the {available / 2**30:.2f} GiB available on device "
                f"{self.model.backend.device_name}; use fewer features (a PCA first, say) or a smaller dim"
            )

    def project(self, x: Any) -> Any:
        """``x @ R`` for checked input: ``(f,)`` -> ``(dim,)``, ``(n, f)`` -> ``(n, dim)``.

        Parameters
        ----------
        x : array_like
            One feature vector ``(n_features,)`` or a batch ``(n, n_features)``.
        """
        model, xp = self.model, self.model.xp
        values = self._rows_of_vectors(check_values(model.backend, x, name="x"))
        if values.ndim not in (1, 2) or values.shape[-1] != self.n_features:
            raise ValueError(
                f"x must have shape ({self.n_features},) or (n, {self.n_features}), got {tuple(values.shape)}"
            )
        with np.errstate(over="ignore", invalid="ignore"):  # overflow is refused by encode, by row
            rows = xp.astype(values, self.real_dtype)
        single = rows.ndim == 1
        if single:
            rows = rows[None, :]
        with np.errstate(over="ignore", invalid="ignore"):
            # products of one shape: a row's projection (rounded by the kernel the matrix
            # library picks for the shape) does not depend on the rows it is encoded with
            z = kernels.row_blocked_matmul(model.backend, rows, self.matrix, ROWS_PER_PRODUCT)
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
        """One feature vector ``(f,)`` -> one hypervector; ``(n, f)`` -> ``(n, vector_length)``.

        Parameters
        ----------
        x : array_like
            One feature vector ``(n_features,)`` or a batch ``(n, n_features)``.
        """
        model = self.model
        z = self.project(x)
        # the rounding of the projection: one program (compiled on JAX), shared by the
        # encoders of the model's configuration and bandwidth
        program = model.backend.program(
            partial(_rounded, model, self._sums, self.bandwidth),
            (model.config_key, "holovec.encoders.vector", self.bandwidth), keep=model.kernel_cache,
        )  # fmt: skip
        with np.errstate(over="ignore", invalid="ignore"):  # (non-finite rows are refused below)
            out, finite = program(z)
        if not model.backend.is_traced(finite) and not bool(finite):
            if model.element_kind == "phasor":
                with np.errstate(over="ignore"):
                    self._largest(self.bandwidth * z, "bandwidth * (x @ R)")
            self._largest(z, "the projection x @ R")  # (raises, naming the rows)
        return out


def _rounded(model: Any, sums: Any, bandwidth: float, z: Any) -> tuple[Any, Any]:
    """The projection ``z`` rounded to vectors of ``model`` (see the module), and whether
    the largest magnitude of every row (of the phases, for phasors) is finite."""
    xp = model.xp
    kind = model.element_kind
    if kind == "phasor":  # the projection as phases
        phases = bandwidth * z
        finite = xp.all(xp.isfinite(xp.max(xp.abs(phases), axis=-1)))
        return xp.astype(kernels.unit_phasor(model.backend, phases), model.dtype), finite
    largest = xp.max(xp.abs(z), axis=-1, keepdims=True)
    finite = xp.all(xp.isfinite(largest))
    if kind in ("bounded", "gaussian"):
        # scale-free kinds: rows whose squares would overflow (or underflow to 0) are
        # scaled to a largest magnitude of 1 first; the others are left exactly as they are
        info = np.finfo(np.dtype(dtype_name(model.real_dtype)))
        high, low = math.sqrt(float(info.max) / model.dim) / 2, math.sqrt(float(info.tiny)) * 2
        rescale = (largest > high) | ((largest < low) & (largest > 0))
        z = z / xp.where(rescale, largest, xp.ones_like(largest))
    if kind == "bounded":  # unit RMS, then the model's clip to [-1, 1]
        norm = xp.sqrt(xp.sum(z * z, axis=-1, keepdims=True) / model.dim)
        return model.normalize(xp.astype(z / xp.where(norm > 0, norm, 1), model.dtype)), finite
    if kind == "bipolar":  # the sign, ties broken by the model
        return model.normalize(xp.astype(z, model.dtype)), finite
    return sums.finish(xp.astype(z, sums.dtype)), finite  # bits by sign; unit length


def _normal_rows(backend: Any, n_rows: int, dim: int, dtype: Any, start: int, words: Any) -> Any:
    """Rows ``start:start + n_rows`` of the projection's standard normal draw, of the address
    ``words`` (seed, stream, purpose: :func:`holovec.random.address_words`)."""
    seed, stream, purpose = Words(words[0:4]), Words(words[4:6]), Words(words[6:8])
    return random_normal(backend, seed, n_rows, dim, dtype, stream=stream, purpose=purpose, row_start=start)


#: the same encoder under the name of what it does
RandomProjectionEncoder = VectorEncoder
