"""What a model accepts as its vectors: array type, dtype, shape and device.

Cheap checks only (they read no values, so they run on every call and under ``jax.jit``);
the values are :mod:`holovec.models._values`' business. :func:`check_vectors` is the full
check behind :meth:`VSAModel.check`; :class:`FastCheck` is its fast path for the common
case (plain arrays of the model's dtype, shape and device), a few comparisons per call,
which must accept nothing that the full check refuses.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import kernels
from .._params import KNOWN_SHAPE, NON_NEGATIVE_INT, Interval
from ..backends import dtype_name
from ..backends.arrays import REFUSED_ARRAY_TYPES
from .registry import models_using_dtype

#: the largest dim: one vector's elements must be addressable by a 32-bit index
MAX_DIM = 2**31 - 1
DIM = Interval(1, MAX_DIM, integral=True)


def check_dim(dim: Any) -> int:
    """``dim`` as an int in ``[1, 2**31 - 1]``, or a clear error."""
    return DIM.check("dim", dim)


def check_count(n: Any, what: str) -> int:
    """A count (``n`` rows, a chunk size): an int ``>= 0``, or a clear error."""
    return NON_NEGATIVE_INT.check(what, n)


def refuse_array_type(x: Any, name: str) -> None:
    """``TypeError`` for ``np.matrix`` and masked arrays (see ``REFUSED_ARRAY_TYPES``)."""
    if isinstance(x, REFUSED_ARRAY_TYPES):
        what = (
            "np.matrix (whose * is a matrix product)"
            if isinstance(x, np.matrix)
            else "a masked array (its mask would be ignored)"
        )
        raise TypeError(
            f"{name}: got {what}; give a plain numpy.ndarray (np.asarray(x) for a matrix, "
            "x.filled(value) or x.compressed() for a masked array)"
        )


def check_dtype(model: Any, dtype: Any) -> str:
    """The name of ``dtype`` (``None``: the model's default) if the model allows it and its
    backend has it, else a ``TypeError`` that says which dtypes the model allows."""
    name = model.default_dtype if dtype is None else dtype_name(dtype)
    if name not in model.allowed_dtypes:
        raise TypeError(f"{model.name} vectors can be {', '.join(model.allowed_dtypes)}; got dtype {name!r}")
    if not kernels.supports_dtype(model.backend, name):
        model.backend.dtype(name)  # raises the backend's own explanation
    return name


def known_dtype(dtype: Any) -> bool:
    """Whether ``dtype`` is one the backends name (see :func:`holovec.backends.dtype_name`)."""
    try:
        dtype_name(dtype)
    except TypeError:
        return False
    return True


def check_shape(model: Any, x: Any, name: str) -> None:
    """``ValueError`` unless ``x``'s last axis is the model's ``vector_length``."""
    if x.ndim == 0 or x.shape[-1] != model.vector_length:
        raise ValueError(
            f"{name}: expected vectors of shape (..., {model.vector_length}) for this {model.name} "
            f"model of dim {model.dim}, got shape {tuple(x.shape)}"
        )


def check_vectors(model: Any, x: Any, name: str = "x") -> Any:
    """``x`` itself if it is an array of this model's vectors, else a clear error
    (``VSAModel.check``).

    Checks the array type (this model's backend; not ``np.matrix`` or a masked array), the
    dtype, the last axis (``vector_length``) and the device; leading batch axes may be
    anything. Cheap: it reads no values (see ``check_values`` for that), so it also works on
    arrays traced by ``jax.jit``. Raises ``TypeError`` for a wrong type or dtype and
    ``ValueError`` for a wrong shape or device, naming ``name`` and what was expected.
    Encoders and stores call it on every vector they are given.

    Parameters
    ----------
    model : VSAModel
        The model.
    x : array
        The array to check.
    name : str, optional
        The parameter's name, for the error message.
    """
    backend = model.backend
    if not isinstance(x, backend.array_type):
        raise TypeError(
            f"{name}: expected a {backend.array_type_name} of this {model.name} model's backend "
            f"{backend.name!r}, got {type(x).__module__}.{type(x).__name__}; "
            "convert it with model.asarray(x)"
        )
    refuse_array_type(x, name)
    KNOWN_SHAPE.check(name, x)  # a Dask array filtered by a mask: NaN chunk sizes
    if x.dtype != model.dtype:
        got = dtype_name(x.dtype) if known_dtype(x.dtype) else str(x.dtype)
        others = [m for m in models_using_dtype(got) if m != model.name]
        hint = f" (that is the dtype of {', '.join(others)} vectors)" if others else ""
        raise TypeError(
            f"{name}: {model.name} vectors are {model.dtype_name}, got {got}{hint}; "
            f"use vectors made by this model, or convert with model.asarray(x)"
        )
    check_shape(model, x, name)
    if backend.has_devices and not backend.on_device(x):
        raise ValueError(
            f"{name}: is on device {backend.device_of(x)}, but this {model.name} model's "
            f"vectors are on device {backend.device_name}; move it there first "
            f"(e.g. model.asarray({name}))"
        )
    return x


class FastCheck:
    """The fast path of the checks for one model (made once the model is built): plain
    arrays of its dtype, last axis and device pass in a few comparisons, since single-call
    latency matters (1 us on JAX); anything else takes :func:`check_vectors`."""

    def __init__(self, model: Any) -> None:
        backend = model.backend
        self._model = model
        self._plain = backend.plain_array_type
        self._dtype = model.dtype
        self._length = model.vector_length
        self._any_device = not backend.has_devices
        # the attribute that names an array's place (``device``; JAX's ``sharding``, whose
        # comparison costs half) with its value for this model's device
        self._place_attr, self._place = getattr(backend, "placement", ("device", backend.device))
        self._backend = backend
        self._place_device = backend.device  # what _place was made for

    def pair(self, a: Any, b: Any, names: tuple[str, str] = ("a", "b")) -> None:
        """Check two operands of a binary operation (broadcasting batch axes)."""
        plain, dtype = self._plain, self._dtype
        if type(a) is plain and type(b) is plain and a.dtype == dtype and b.dtype == dtype:
            shape = a.shape
            if (
                shape == b.shape
                and shape
                and shape[-1] == self._length
                and (
                    self._any_device
                    or (
                        getattr(a, self._place_attr) == self._place
                        and getattr(b, self._place_attr) == self._place
                        and self._backend.device is self._place_device
                    )
                )
            ):
                return
        model = self._model
        check_vectors(model, a, names[0])
        check_vectors(model, b, names[1])
        if a.shape != b.shape:
            try:
                np.broadcast_shapes(tuple(a.shape), tuple(b.shape))
            except ValueError:
                raise ValueError(
                    f"batch shapes do not broadcast: {names[0]} has shape {tuple(a.shape)}, "
                    f"{names[1]} has shape {tuple(b.shape)}; leading axes must be equal or 1"
                ) from None

    def plain_items(self, vectors: Sequence[Any]) -> bool:
        """Whether every item of a list is a plain array of the model's vectors, all of one
        shape, on its device; ``False`` sends the items through :func:`check_vectors`."""
        plain, dtype, shape = self._plain, self._dtype, getattr(vectors[0], "shape", None)
        if not shape or shape[-1] != self._length:
            return False
        if not all(type(v) is plain and v.dtype == dtype and v.shape == shape for v in vectors):
            return False
        if self._any_device:
            return True
        attr, place = self._place_attr, self._place
        return self._backend.device is self._place_device and all(getattr(v, attr) == place for v in vectors)

    def stack(self, vectors: Any) -> Any:
        """A list of vectors, or an array with the items on axis 0, as one checked array
        (what ``bundle`` takes)."""
        model = self._model
        if isinstance(vectors, (list, tuple)):
            if len(vectors) == 0:
                raise ValueError("cannot bundle an empty list of vectors; give at least one")
            if not self.plain_items(vectors):  # before stacking, which would promote dtypes
                for i, v in enumerate(vectors):
                    check_vectors(model, v, f"vectors[{i}]")
            shapes = {tuple(v.shape) for v in vectors}
            if len(shapes) > 1:  # items broadcast over batch axes like every other op
                try:
                    shape = np.broadcast_shapes(*shapes)
                except ValueError:
                    raise ValueError(
                        f"vectors to bundle must have broadcastable shapes, got shapes {sorted(shapes)}"
                    ) from None
                vectors = [model.xp.broadcast_to(v, shape) for v in vectors]
            vectors = model.xp.stack(list(vectors), axis=0)
        check_vectors(model, vectors, "vectors")
        if vectors.ndim < 2:
            raise ValueError(
                "bundle takes a list of vectors or an array of shape "
                f"(k, ..., {model.vector_length}) with the items on axis 0; "
                f"got one vector of shape {tuple(vectors.shape)}"
            )
        if vectors.shape[0] == 0:
            raise ValueError("cannot bundle zero vectors; give at least one")
        return vectors
