"""How the checks compare: arrays on the host, similarities as floats, and equality that is
exact for discrete models and to float rounding for the others."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..models.base import VSAModel


def as_numpy(model: VSAModel, x: Any) -> np.ndarray:
    """Any array of ``model``'s backend as a NumPy array.

    Parameters
    ----------
    model : VSAModel
        The model.
    x : array
        An array of the model's backend.
    """
    return x if isinstance(x, np.ndarray) else np.asarray(model.to_numpy(x))


def similarity_of(model: VSAModel, a: Any, b: Any) -> float:
    """``similarity(a, b)`` of two vectors, as a float.

    Parameters
    ----------
    model : VSAModel
        The model.
    a : array
        A vector of the model.
    b : array
        A vector of the model.
    """
    return float(model.to_numpy(model.similarity(a, b)))


def is_floating(model: VSAModel) -> bool:
    """Whether the model's elements are real or complex floats (compared to rounding)."""
    return np.dtype(model.dtype_name).kind in "fc" if model.dtype_name != "bfloat16" else True


def assert_close(model: VSAModel, a: Any, b: Any, what: str, atol: float = 1e-4) -> None:
    """Equal shapes, and equal values: exactly for discrete models, to ``atol`` for floats.

    Parameters
    ----------
    model : VSAModel
        The model.
    a : array
        An array of the model's backend.
    b : array
        The array expected.
    what : str
        What is compared, for the message.
    atol : float, optional
        The tolerance of float values.
    """
    x, y = as_numpy(model, a), as_numpy(model, b)
    assert x.shape == y.shape, f"{what}: shapes {x.shape} and {y.shape} differ"
    if is_floating(model):
        np.testing.assert_allclose(x.astype(np.complex128), y.astype(np.complex128), atol=atol, err_msg=what)
    else:
        assert np.array_equal(x, y), f"{what}: the arrays differ"
