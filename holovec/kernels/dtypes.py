"""Dtype questions asked of a backend: whether it has a dtype, its widest float, and the
dtype of the random generator's 32-bit words."""

from __future__ import annotations

from typing import Any

from ._dispatch import kernel


def supports_dtype(backend: Any, name: str) -> bool:
    """Whether the backend has the dtype ``name`` (JAX has no 64-bit types unless 64-bit
    mode is on; NumPy has no bfloat16).

    Parameters
    ----------
    backend : Backend
        The backend asked.
    name : str
        A canonical dtype name (``"float64"``, ``"bfloat16"``, ...).

    Returns
    -------
    bool
        Whether ``backend.dtype(name)`` gives a dtype.
    """
    try:
        backend.dtype(name)
    except (TypeError, ValueError):
        return False
    return True


def default_float_dtype(backend: Any, wide: bool = True) -> Any:
    """With ``wide``, the widest float dtype of the backend: float64, or float32 where it has
    none (JAX without 64-bit mode); else float32 (encoder parameters, exact scores).

    Parameters
    ----------
    backend : Backend
        The backend asked.
    wide : bool, optional
        The widest float dtype (default), else float32.

    Returns
    -------
    dtype
        The framework's dtype object.

    Examples
    --------
    >>> from holovec.backends import get_backend
    >>> default_float_dtype(get_backend("numpy"))
    dtype('float64')
    """
    return backend.dtype("float64" if wide and supports_dtype(backend, "float64") else "float32")


@kernel
def word_dtype_name(backend: Any) -> str:
    """The dtype that holds the generator's 32-bit random words: uint32, or int64 where the
    framework lacks uint32 arithmetic (torch).

    Parameters
    ----------
    backend : Backend
        The backend asked.

    Returns
    -------
    str
        The dtype's canonical name.
    """
    return "uint32"


@word_dtype_name.register("torch")
def _torch_word_dtype_name(backend: Any) -> str:
    return "int64"  # torch has no add or shift for uint32: words live in int64, masked


def word_dtype(backend: Any) -> Any:
    """The framework's dtype of :func:`word_dtype_name`.

    Parameters
    ----------
    backend : Backend
        The backend asked.

    Returns
    -------
    dtype
        The framework's dtype object.
    """
    return backend.dtype(word_dtype_name(backend))
