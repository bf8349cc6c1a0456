"""What the encoders share for checking their inputs and choosing dtypes (private).

Parameters (ints, numbers, flags) are checked by :mod:`holovec._validation`; the data an
encoder is given (values, points) by :func:`check_values`, here, once for every encoder.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validation import check_number
from ..backends import get_backend


def host_backend() -> Any:
    """The NumPy backend, on which encoder parameters are drawn (then moved to the model's)."""
    return get_backend("numpy")


def wide_float(backend: Any) -> Any:
    """The widest float dtype of the backend (float64, or float32 on JAX without x64)."""
    return backend.dtype("float64" if backend.supports_dtype("float64") else "float32")


def index_dtype(backend: Any) -> Any:
    """The widest integer dtype of the backend for indices (int64, or int32 on JAX without x64)."""
    return backend.dtype("int64" if backend.supports_dtype("int64") else "int32")


def per_axis(value: Any, name: str, k: int) -> np.ndarray:
    """A number, or a sequence of ``k`` numbers (one per axis), as a float64 array of shape (k,)."""
    if isinstance(value, (Sequence, np.ndarray)) and not isinstance(value, str):
        items = list(np.asarray(value, dtype=object).reshape(-1))
        if len(items) != k:
            raise ValueError(
                f"{name} must be a number or a sequence of {k} numbers (one per axis), got {value!r}"
            )
        return np.array([check_number(v, f"{name}[{i}]") for i, v in enumerate(items)])
    return np.full(k, check_number(value, name))


def check_values(
    backend: Any,
    values: Any,
    *,
    low: float | None = None,
    high: float | None = None,
    clip: bool = False,
    name: str = "values",
) -> Any:
    """Scalars, lists or arrays of numbers as a float array of ``backend``, checked.

    NaN and infinity raise ``ValueError``; values outside ``[low, high]`` raise
    ``ValueError`` unless ``clip=True`` (then they are clipped, as asked). Inside a
    ``jax.jit`` or ``torch.compile`` trace the values cannot be read, so only their
    type is checked there.
    """
    xp = backend.xp
    real = wide_float(backend)
    if backend.is_array(values):
        array = values if values.dtype == real else xp.astype(values, real)
    else:
        try:
            host = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                f"{name} must be numbers or an array of numbers, got {type(values).__name__}"
            ) from None
        array = backend.asarray(host, dtype=real)
    if backend.is_traced(array):
        return array
    if not bool(xp.all(xp.isfinite(array))):
        raise ValueError(f"{name} must be finite numbers; got NaN or infinity")
    if low is not None and high is not None:
        if bool(xp.any((array < low) | (array > high))):
            if not clip:
                raise ValueError(
                    f"{name} must lie in [{low}, {high}]; got values outside it (pass clip=True to clip them)"
                )
            array = xp.clip(array, low, high)
    return array


def pick(xp: Any, matrix: Any, index: Any) -> Any:
    """``matrix[i, index[i]]`` for every row ``i`` (a gather that every backend has)."""
    from array_api_compat import device

    n, m = matrix.shape
    flat = xp.arange(n, dtype=index.dtype, device=device(matrix)) * m + index
    return xp.take(xp.reshape(matrix, (-1,)), flat, axis=0)
