"""The space learners work in: a model's vectors as unit-length real rows (private).

Class prototypes are bundles of encodings kept as sums, so learners need models whose
bundle is a sum (``model.bundle_is_sum``): a vector is lifted (``model.lift``) to the
numbers that bundles add, complex ones as real rows of twice the length (the real parts,
then the imaginary ones: one layout on every backend, so learned arrays move between
them), and scaled to unit length so that every sample weighs the same (so that scores are
cosines, in [-1, 1], whatever vectors a user's encoder or ``"precomputed"`` input gives).
A class score is then the cosine of an encoding and a prototype (0 for an empty prototype),
one matrix product per batch; updates add a ``(batch, classes)`` coefficient matrix times
the batch, one product too, on every backend alike.
"""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import numpy as np

from .. import kernels
from .._fixed_order import pair_dots, rounding_margin
from ..models import AllocationError
from ..models.base import CHECKED_ALLOCATION_BYTES
from ..models.protocol import real_dtype_name
from ._data import take_rows
from ._rows import Rows

#: element kinds whose lifted elements are all +-1, values the model's own checks pin
#: (see Space.row_length); not phasors: FHRR accepts any finite complex numbers as vectors
_UNIT_ELEMENTS = ("bipolar", "binary")


def _real_rows_of(space: Space, h: Any) -> Any:
    """Lifted model vectors as real rows of ``space``'s float dtype (not copied where they
    are that already)."""
    xp = space.xp
    if space.complex:
        h = xp.concat([xp.real(h), xp.imag(h)], axis=-1)
    return h if h.dtype == space.dtype else xp.astype(h, space.dtype)


def _unit_rows_of(space: Space, h: Any) -> Any:
    """Lifted model vectors (``model.lift``) as unit-length real rows of ``space`` (see
    :meth:`Space.features`)."""
    xp = space.xp
    h = _real_rows_of(space, h)
    if space.row_length is not None:
        return h * (1.0 / space.row_length)
    norms = xp.sqrt(xp.sum(h * h, axis=-1, keepdims=True))
    return h / xp.where(norms > 0, norms, xp.ones_like(norms))


def scaled_product(space: Space, H: Any, M: Any, scale: float) -> Any:
    """``scale * (H @ M)``: the product of unit rows ``scale * H`` (see
    :meth:`Space.scaled_features`), scaled in the smaller result (by 1.0: exactly itself)."""
    return space.product(H, M) * scale


def scaled_cosines(space: Space, H: Any, P: Any, scale: float) -> Any:
    """:meth:`Space.cosines` of unit rows ``scale * H``, scaled in the smaller result."""
    return space.cosines(H, P) * scale


def _canonical_dots(space: Space, H: Any, P: Any, index: Any) -> tuple[Any, Any, Any]:
    """The canonical ``(dots, squares_h, squares_p)`` of rows ``H`` with every prototype of
    ``P`` (``index`` None), or with the prototypes ``index`` (flat, ``c`` per row) of each."""
    xp = space.xp
    if index is None:
        right = xp.broadcast_to(P[None, :, :], (H.shape[0], *P.shape))
    else:
        right = xp.reshape(xp.take(P, index, axis=0), (H.shape[0], -1, P.shape[1]))
    return pair_dots(space.backend, H, right)


def _twin_step(space: Space, step: Callable[..., Any]) -> Callable[..., Any] | None:
    """``step`` on ``space``'s NumPy twin (:attr:`Space.host_twin`), or ``None``."""
    twin = space.host_twin
    return None if twin is None else partial(step, twin)


class Space:
    """Lifting, scoring and updating for one model."""

    def __init__(self, model: Any) -> None:
        if not model.bundle_is_sum:
            raise TypeError(
                f"holovec.learn needs a model whose bundle is a sum of its items (model.bundle_is_sum), "
                f"so that class prototypes are bundles; {model.name} is not one"
            )
        self.model = model
        self.xp = model.xp
        self.backend = model.backend
        self.dtype = model.backend.dtype(self.real_dtype_name(model.dtype_name))
        self.complex = model.dtype_name.startswith("complex")
        self.width = self.width_of(model.dim, model.dtype_name)
        # signs and bits (lifted to signs) are +-1: every vector has length sqrt(dim), and
        # one multiply makes it a unit row
        self.row_length = math.sqrt(model.dim) if model.element_kind in _UNIT_ELEMENTS else None
        # what compiled steps read of a space (see __eq__): hashed at every call of one
        self.arithmetic = (self.backend, self.dtype_name, self.complex, self.width, self.row_length)
        self.backend.register_static(Space)  # a space is a static argument of compiled steps

    def __reduce__(self) -> tuple:
        return (Space, (self.model,))  # the array namespace is a module: rebuilt, not pickled

    # -- compiled steps -----------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        """Spaces are equal when their arithmetic is: the same backend and device, float
        dtype and width (what a compiled step reads of a space, see :meth:`run`), so that
        learners of models that differ only by their seed share their programs."""
        return isinstance(other, Space) and other.arithmetic == self.arithmetic

    def __hash__(self) -> int:
        return hash(self.arithmetic)

    def run(self, step: Callable[..., Any], *args: Any) -> Any:
        """``step(self, *args)``, as one compiled program where the backend compiles
        kernels (``Backend.jit_kernels``: JAX), else called as it is. The program is
        compiled once per step, space (see :meth:`__eq__`) and shapes of the arguments, and
        shared by every estimator: ``step`` is a module-level function of arrays (Python
        numbers and ``None`` pass too; arrays also in tuples and :class:`Rows`) that reads
        of the space only its arithmetic (the array namespace, the backend and the methods
        built on them), never its model.

        Where the backend lends NumPy views of its arrays (``Backend.host_views``: torch on
        the CPU, for arrays of many elements), ``step`` runs on those views with this
        space's NumPy twin, and its results are lent back as the backend's arrays: the
        NumPy backend's numbers bit for bit, at its speed (measured on 2 cores, one thread:
        AdaptHD on digits' MAP encodings at D=10,000 fits in 134 ms this way, against 171 ms
        in torch's own ops; RidgeHD in 444 ms against 947 ms)."""
        program = self.backend.program(
            partial(step, self), ("holovec.learn", step, self.arithmetic), keep=self.model.kernel_cache,
            twin=partial(_twin_step, self, step),
        )  # fmt: skip
        return program(*args)

    @functools.cached_property
    def host_twin(self) -> Space | None:
        """This space on the model's NumPy twin (:meth:`run` computes there), where the
        backend lends NumPy views of its arrays; None elsewhere, or where NumPy cannot hold
        the model's dtype (bfloat16)."""
        if not (self.backend.lends_host_views and self.backend.is_cpu):
            return None
        host = self.model.host_model()  # (the model's one NumPy twin)
        return None if host is None else Space(host)

    @staticmethod
    def real_dtype_name(model_dtype: str) -> str:
        """The float dtype learned arrays have for vectors of ``model_dtype``."""
        return real_dtype_name(model_dtype)

    @staticmethod
    def width_of(dim: int, model_dtype: str) -> int:
        """The learning space's width for vectors of ``dim`` elements of ``model_dtype``."""
        return dim * (2 if model_dtype.startswith("complex") else 1)

    def features(self, vectors: Any) -> Any:
        """Model vectors ``(n, vector_length)`` as unit-length real rows ``(n, width)``
        (one compiled program where the backend compiles: see :meth:`run`). The model lifts
        its vectors outside the program: a program that took the model would be compiled
        and kept for every seed (models are static arguments, equal by configuration)."""
        return self.run(_unit_rows_of, self.model.lift(vectors))

    def scaled_features(self, vectors: Any) -> tuple[Any, float]:
        """``(rows, scale)`` with ``scale * rows`` the unit rows of :meth:`features`: for
        models of +-1 elements (bits and signs) the lifted vectors themselves, not copied
        where they are the space's floats already (a precomputed MAP matrix is used as it
        is), and ``1 / row_length``, for the caller to apply to the coefficients or the
        result of a product, which are smaller than the rows; the unit rows and 1.0 for the
        others. Scaled 0/1 coefficients give the same sums as the unit rows, bit for bit
        (each product, of a +-1 element with the scaled coefficient or of the scaled
        element with 0 or 1, is exact); a scaled result differs from the unit rows'
        product by a rounding (within the margin that near ties are decided by)."""
        if self.row_length is None:
            return self.features(vectors), 1.0
        return self.run(_real_rows_of, self.model.lift(vectors)), 1.0 / self.row_length

    @property
    def reads_blocks(self) -> bool:
        """Whether a batch's rows of kept encodings are read block by block (:class:`Rows`):
        where the backend computes eagerly on the CPU; elsewhere (compiled programs, lazy
        graphs, a GPU) they are gathered into one array."""
        backend = self.backend
        return backend.is_cpu and not (backend.jit_kernels or backend.lazy or backend.static_shapes)

    def take(self, x: Any, index: np.ndarray | slice) -> Any:
        """Rows ``index`` (host row numbers, or a slice) of ``x`` (an array, or a sequence
        for an encoder): a backend array that the backend lends as a NumPy view is gathered
        by NumPy (torch's gather of a few rows on the CPU waits on its threads: 3 ms for 8
        rows at D=10,000, measured)."""
        if (
            not isinstance(index, slice)
            and self.host_twin is not None
            and isinstance(x, self.backend.array_type)
        ):
            views = self.backend.host_views(x)
            if views is not None:
                return self.backend.from_numpy(np.take(views[0], np.asarray(index), axis=0))
        return take_rows(x, index)

    def rows(self, data: Any, index: np.ndarray | slice) -> Any:
        """The rows ``index`` of kept encodings ``data`` for a batch: a :class:`Rows` where
        :attr:`reads_blocks` (for an index array), else the gathered rows (a view for a slice)."""
        if self.reads_blocks and not isinstance(index, slice):
            return Rows(self, data, index)
        return self.take(data, index)

    def unit_rows(self, P: Any) -> Any:
        xp = self.xp
        norms = xp.sqrt(xp.sum(P * P, axis=-1, keepdims=True))
        return P / xp.where(norms > 0, norms, xp.ones_like(norms))

    def cosines(self, H: Any, P: Any) -> Any:
        """Cosines ``(n, classes)`` of unit rows ``H`` with prototypes ``P`` (0 for empty ones;
        where every prototype is empty, as for OnlineHD's first batch, not multiplied, on
        eager CPU backends where that is cheap to see)."""
        xp = self.xp
        if self.reads_blocks and not bool(xp.any(P != 0)):
            return xp.zeros((H.shape[0], P.shape[0]), dtype=P.dtype, device=self.backend.device)
        return self.product(H, xp.permute_dims(self.unit_rows(P), (1, 0)))

    def product(self, H: Any, M: Any) -> Any:
        """``H @ M``, one product (of :class:`Rows`, block by block). Matrix libraries round
        a row's result by the product's shape, so a sample's scores can differ in the last
        float32 bits with the batch it comes in (about 1e-7); products of a fixed number of
        rows would avoid that at 1.2x the time for full batches and 4x or more for small
        ones (measured), so scores carry that rounding (scikit-learn's subset-invariance
        check is an expected failure)."""
        if isinstance(H, Rows):
            return H.product(M)
        return kernels.matmul(self.backend, H, M)

    def near_ties(self, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rows of host ``scores`` ``(n, classes)`` (from :meth:`cosines`) whose best class
        another one scores within rounding of (the matrix library's summation order could
        pick either; see :func:`holovec._fixed_order.rounding_margin`), and for each the
        classes within rounding of the best, ``(rows, c)``: in ascending order, each row
        padded with its first."""
        margin = rounding_margin(self.width, self.dtype_name == "float64")
        near = scores >= scores.max(axis=1, keepdims=True) - 2 * margin
        counts = near.sum(axis=1)
        rows = np.flatnonzero(counts > 1)
        if not len(rows):
            return rows, np.zeros((0, 0), dtype=np.int64)
        width = int(counts[rows].max())
        first = np.argsort(~near[rows], axis=1, kind="stable")[:, :width]  # the near ones, ascending
        padding = np.arange(width)[None, :] >= counts[rows, None]
        return rows, np.where(padding, first[:, :1], first)

    def canonical_cosines(self, H: Any, P: Any, candidates: np.ndarray | None = None) -> np.ndarray:
        """Host float64 cosines ``(n, classes)`` of rows ``H`` with prototypes ``P`` in the
        canonical arithmetic of :mod:`holovec._fixed_order` (the same bits on every backend,
        batch and thread count; 0 for an empty prototype): what decides a near tie. With
        host class indices ``candidates`` ``(n, c)``, only those: ``(n, c)``. Computed by the
        NumPy twin where the backend lends views (the same bits, faster)."""
        twin = self.host_twin
        views = None if twin is None else self.backend.host_views(H, P)
        if views is not None:
            return twin.canonical_cosines(*views, candidates)
        backend = self.backend
        with kernels.float64_scope(backend):
            index = None if candidates is None else backend.asarray(np.asarray(candidates).reshape(-1))
            dots, squares_h, squares_p = (backend.to_numpy(a) for a in self.run(_canonical_dots, H, P, index))
        denominator = np.sqrt(squares_h) * np.sqrt(squares_p)
        return np.where(denominator > 0, dots / np.where(denominator > 0, denominator, 1.0), 0.0)

    @property
    def dtype_name(self) -> str:
        return self.real_dtype_name(self.model.dtype_name)

    def zeros(self, n_rows: int) -> Any:
        if self.host_twin is not None:  # (lent by NumPy: torch's zeros fault in every page anew)
            return self.backend.from_numpy(self.host_twin.zeros(n_rows))
        return self.xp.zeros((n_rows, self.width), dtype=self.dtype, device=self.model.device)

    def joined(self, parts: list[Any]) -> Any:
        """Arrays joined along their rows (by the NumPy twin where the backend lends views
        of them: torch's join of large arrays on the CPU takes several times NumPy's)."""
        if len(parts) == 1:
            return parts[0]
        twin = self.host_twin
        views = None if twin is None else self.backend.host_views(*parts)
        if views is not None:
            return self.backend.from_numpy(twin.xp.concat(list(views), axis=0))
        return self.xp.concat(parts, axis=0)

    def one_hot(self, t: Any, n_classes: int) -> Any:
        """``(n, classes)`` indicator rows of the class indices ``t`` (a backend int array)."""
        xp = self.xp
        classes = xp.arange(n_classes, dtype=t.dtype, device=self.backend.device)
        return xp.astype(t[:, None] == classes[None, :], self.dtype)

    def masked(self, x: Any, weights: Any) -> Any:
        """``x`` (one row per sample of a batch) with the rows of padding zero: ``weights``
        is 1 for a sample and 0 for padding (see ``Batch``), or ``None`` (no padding)."""
        return x if weights is None else x * weights[:, None]

    def add(self, P: Any, coef: Any, H: Any) -> Any:
        """``P + coef.T @ H``: every sample's update of every prototype, one product (of
        the samples that update anything: mistake-driven rules leave most rows zero)."""
        xp, backend = self.xp, self.backend
        if backend.is_traced(coef):
            return self._add_traced(P, coef, H)
        # (not on a lazy backend: the rows that update would be computed to be counted; nor
        # where every array shape compiles a program)
        if not (backend.lazy or backend.static_shapes):
            active = xp.nonzero(xp.any(coef != 0, axis=1))[0]
            if active.shape[0] < coef.shape[0] // 2:
                coef = xp.take(coef, active, axis=0)
                H = H.take(active) if isinstance(H, Rows) else xp.take(H, active, axis=0)
        if isinstance(H, Rows):
            H = H.gathered()
        return P + kernels.matmul(backend, xp.permute_dims(coef, (1, 0)), H)

    def _add_traced(self, P: Any, coef: Any, H: Any) -> Any:
        """:meth:`add` in a compiled program, where shapes are fixed: where at most an
        eighth of the rows update anything, the product of those rows (in their order,
        then rows of zeros up to the eighth), else of all; the program holds both and runs
        one (``kernels.cond``)."""
        xp, backend = self.xp, self.backend
        transposed = xp.permute_dims(coef, (1, 0))
        few = max(1, coef.shape[0] // 8)
        active = xp.any(coef != 0, axis=1)

        def product_of_few() -> Any:
            # the active rows first, in their order (a stable sort of 0 for active, 1 for not)
            rows = xp.argsort(xp.astype(~active, xp.int32), stable=True)[:few]
            return P + kernels.matmul(backend, xp.take(transposed, rows, axis=1), xp.take(H, rows, axis=0))

        return kernels.cond(
            backend,
            xp.sum(xp.astype(active, xp.int32)) <= few,
            product_of_few,
            lambda: P + kernels.matmul(backend, transposed, H),
        )

    def computed(self, x: Any) -> Any:
        """``x`` as a concrete array: on a lazy backend (Dask) its graph is computed once
        here, so that what is fitted does not carry (and re-run) the graph of training, and
        pickles; ``x`` itself elsewhere."""
        backend = self.backend
        return backend.asarray(backend.to_numpy(x)) if backend.lazy else x

    def solve(self, A: Any, B: Any) -> Any:
        """``A^-1 B`` for a square system ``A`` and a matrix ``B``. Where ``A`` is singular in
        its float precision NumPy and torch raise their own ``LinAlgError`` (which
        :meth:`refusing_singular` makes a ``ValueError``); JAX returns non-finite values,
        which the callers' range checks refuse. A lazy backend's system is computed (in
        one graph: ``A`` and ``B`` share their inputs) and solved here in one piece: Dask's
        blocked LU needs square chunks, which products of minibatches do not have, and a
        fitted read-out is computed anyway."""
        if not self.backend.lazy:
            with kernels.full_precision(self.backend):  # (the LU solve may multiply inside)
                return self.xp.linalg.solve(A, B)
        system = self.backend.to_numpy(self.xp.concat([A, B], axis=1))
        n = A.shape[1]
        return self.backend.asarray(np.linalg.solve(system[:, :n], system[:, n:]))

    @contextlib.contextmanager
    def refusing_singular(self, message: str) -> Iterator[None]:
        """A context in which the frameworks' errors for a singular system (see
        :meth:`solve`) become a ``ValueError`` with ``message``."""
        try:
            yield
        except kernels.singular_system_errors(self.backend):
            raise ValueError(message) from None

    def check_memory(self, needed: int, what: str, advice: str) -> None:
        """``AllocationError`` (a ``MemoryError`` and a ``ValueError``) before allocating
        about ``needed`` bytes at the peak of ``what`` where the model's device has less
        available (checked above the size the models check, as reading it costs time)."""
        if needed <= CHECKED_ALLOCATION_BYTES:
            return
        available = self.backend.available_memory()
        if available is not None and needed > available:
            raise AllocationError(
                f"{what} needs about {needed / 2**20:.0f} MiB at its peak, more than the "
                f"{available / 2**20:.0f} MiB available on device {self.backend.device_name}; {advice}"
            )

    def indices(self, t: np.ndarray) -> Any:
        """Class indices from the host as a backend int array."""
        return self.backend.asarray(np.asarray(t, dtype=np.int32))

    def wide(self) -> Any:
        """The float dtype for solving linear systems (float64 where the backend has it)."""
        return kernels.default_float_dtype(self.backend)

    def dim_scores(self, per_feature: Any) -> Any:
        """A score per feature column ``(width,)`` folded to one per model dimension ``(dim,)``."""
        if not self.complex:
            return per_feature
        dim = self.model.dim
        return per_feature[:dim] + per_feature[dim:]

    def dims_mask(self, dims_mask: Any) -> Any:
        """A ``(dim,)`` mask of model dimensions as a ``(width,)`` mask of feature columns."""
        if not self.complex:
            return dims_mask
        return self.xp.concat([dims_mask, dims_mask], axis=0)
