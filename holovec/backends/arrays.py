"""What holovec knows of any framework's arrays without a backend: dtype names, which
framework made an array, and its values on the host.

The one place outside the backend classes that tells the frameworks apart (by the module
of an array's type, importing none of them), so that the rest of holovec asks here instead
of testing for torch, JAX or Dask itself.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "DTYPE_KINDS",
    "REFUSED_ARRAY_TYPES",
    "array_kind",
    "backend_name_of",
    "check_has_data",
    "dtype_name",
    "to_host",
]

#: array types whose operators differ from NumPy's (``*`` is a matrix product, masked
#: elements are skipped), refused rather than converted into a different answer
REFUSED_ARRAY_TYPES = (np.matrix, np.ma.MaskedArray)

#: dtype names a model may ask for, mapped to the kind of number they hold.
DTYPE_KINDS = {
    "bool": "bool",
    "uint8": "uint",
    "uint32": "uint",
    "uint64": "uint",
    "int8": "int",
    "int32": "int",
    "int64": "int",
    "float16": "float",
    "bfloat16": "float",
    "float32": "float",
    "float64": "float",
    "complex64": "complex",
    "complex128": "complex",
}

#: the top-level module of each framework's array types -> the backend that holds them
_BACKEND_OF_MODULE = {"numpy": "numpy", "torch": "torch", "jax": "jax", "jaxlib": "jax", "dask": "dask"}


def dtype_name(dtype: Any) -> str:
    """The canonical name (``"float32"``, ``"complex64"``, ...) of any framework's dtype.

    Parameters
    ----------
    dtype : object
        A NumPy, PyTorch or JAX dtype, a NumPy scalar type, or a dtype's name.

    Returns
    -------
    str
        The name; ``TypeError`` for a dtype no backend has.
    """
    name = dtype if isinstance(dtype, str) else str(dtype).removeprefix("torch.")
    if name not in DTYPE_KINDS and not isinstance(dtype, str):
        try:  # NumPy and JAX dtypes and scalar types
            name = np.dtype(dtype).name
        except TypeError:
            pass
    if name not in DTYPE_KINDS:
        raise TypeError(f"unknown dtype {dtype!r}; expected one of {', '.join(sorted(DTYPE_KINDS))}")
    return name


def check_has_data(x: Any, name: str = "the array") -> None:
    """``ValueError`` for an array that holds no values, only a shape and a dtype: a torch
    tensor on the ``meta`` device (reading it would fail deep inside torch)."""
    if getattr(x, "is_meta", False) is True:
        raise ValueError(
            f"{name} is a torch tensor on the 'meta' device, which holds no data (only a shape "
            f"{tuple(x.shape)} and a dtype); give a tensor with values (on 'cpu' or a GPU)"
        )


def backend_name_of(x: Any) -> str | None:
    """The backend whose framework made the array ``x`` (``"torch"`` for a tensor, ``"jax"``
    for a JAX array or tracer, ...), from the module of its type, importing nothing; ``None``
    for what no backend holds (lists, numbers, other libraries' objects).

    Parameters
    ----------
    x : object
        Any object.

    Returns
    -------
    str or None
        The backend's name, or ``None``.
    """
    return _BACKEND_OF_MODULE.get(type(x).__module__.partition(".")[0])


def array_kind(x: Any) -> str | None:
    """Which framework's array ``x`` is: ``"numpy"``, ``"torch"``, ``"jax"`` or ``"dask"``
    (NumPy scalars count as NumPy arrays, JAX tracers as JAX arrays), or ``None`` for
    anything else (lists, numbers, pandas frames). Reads no values and imports no
    framework; meant for messages and for choosing a conversion, not for dispatching
    computations (the backends do that).

    Parameters
    ----------
    x : object
        Any object.

    Returns
    -------
    str or None
        The framework's backend name, or ``None``.

    Examples
    --------
    >>> import numpy as np
    >>> array_kind(np.zeros(3)), array_kind(np.float32(1)), array_kind([1.0, 2.0])
    ('numpy', 'numpy', None)
    """
    if not (hasattr(x, "shape") and hasattr(x, "dtype")):
        return None
    return backend_name_of(x)


def to_host(x: Any) -> np.ndarray | None:
    """``x`` as a NumPy array on the host, or ``None`` where ``x`` is no array.

    - NumPy arrays and scalars, lists and tuples of numbers, Python numbers: ``np.asarray``
      (no copy of a NumPy array);
    - torch tensors (CPU or GPU): detached from autograd and copied to the host (a CPU
      tensor is viewed, not copied); ``bfloat16``, which NumPy lacks, becomes ``float32``
      (exactly); a tensor on the ``meta`` device, which holds no values, is a
      ``ValueError``;
    - JAX arrays: copied to the host (a traced array cannot be: JAX's own error);
    - Dask arrays: computed on the active scheduler;
    - anything else (``None``, strings, dicts, other libraries' objects): ``None``, so that
      the caller keeps its own handling of them.

    Parameters
    ----------
    x : object
        An array of any framework, a list or tuple of numbers, a number, or anything else.

    Returns
    -------
    numpy.ndarray or None
        The values on the host, or ``None`` where ``x`` is no array.

    Examples
    --------
    >>> to_host([[1, 2], [3, 4]])
    array([[1, 2],
           [3, 4]])
    >>> to_host("not an array") is None
    True
    """
    kind = array_kind(x)
    if kind == "torch":
        check_has_data(x)
        x = x.detach().cpu()
        if str(x.dtype) == "torch.bfloat16":
            x = x.float()  # float32 holds every bfloat16 exactly
        return x.numpy()
    if kind == "dask":
        return np.asarray(x.compute())
    if kind is not None or isinstance(x, (list, tuple, int, float, complex, np.generic)):
        try:
            return np.asarray(x)
        except ValueError as e:  # a ragged nested list
            raise ValueError(
                f"to_host: expected an array or a rectangular nested list of numbers ({e})"
            ) from None
    return None
