"""The checks of plain parameters (ints, numbers, flags) that every layer uses.

One place, so that every parameter of the library is refused alike: a ``TypeError`` for
the wrong type (bools are not ints or numbers here), a ``ValueError`` for a value out of
range, each naming the parameter, what is expected and what was given.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from ._params import Flag

#: the one rule of a flag (the estimators' too)
FLAG = Flag()

#: array types whose operators differ from NumPy's (``*`` is a matrix product, masked
#: elements are skipped), refused rather than converted into a different answer
REFUSED_ARRAY_TYPES = (np.matrix, np.ma.MaskedArray)


def _is_int(value: Any) -> bool:
    return isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_int(value: Any, name: str, minimum: int | None = None, maximum: int | None = None) -> int:
    """``value`` as a Python int within ``[minimum, maximum]`` (either bound optional)."""
    if minimum == 1:
        expected = "a positive int" if maximum is None else f"a positive int of at most {maximum}"
    elif minimum is not None and maximum is not None:
        expected = f"an int in [{minimum}, {maximum}]"
    elif minimum is not None:
        expected = f"an int >= {minimum}"
    elif maximum is not None:
        expected = f"an int <= {maximum}"
    else:
        expected = "an int"
    if not _is_int(value):
        raise TypeError(f"{name} must be {expected}, got {type(value).__name__} {value!r}")
    value = int(value)
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise ValueError(f"{name} must be {expected}, got {value}")
    return value


def check_number(value: Any, name: str) -> float:
    """``value`` (a real int or float, not a bool) as a finite Python float."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {type(value).__name__} {value!r}")
    try:
        as_float = float(value)
    except OverflowError:
        raise ValueError(f"{name} must be a finite number that fits a float, got {value}") from None
    if not math.isfinite(as_float):
        raise ValueError(f"{name} must be a finite number, got {as_float}")
    return as_float


def check_bool(value: Any, name: str) -> bool:
    """``value`` as a Python bool if it is True or False (a NumPy bool too, as the
    estimators' ``Flag`` rule of :mod:`holovec._params` takes it; not 0 or 1), else
    ``TypeError``.

    Parameters
    ----------
    value : object
        The value given.
    name : str
        The parameter's name, for the message.

    Returns
    -------
    bool
        ``value`` as a Python bool.
    """
    FLAG.check(name, value)
    return bool(value)


def check_known_shape(x: Any, name: str) -> None:
    """``ValueError`` for an array whose shape is not known yet (an axis of ``nan`` or
    ``None``): a Dask array after boolean indexing, whose chunk sizes Dask has not computed.
    Arrays of known shape, and objects without a shape, pass."""
    shape = getattr(x, "shape", None)
    if not isinstance(shape, tuple) or not any(
        s is None or (isinstance(s, float) and math.isnan(s)) for s in shape
    ):
        return
    fix = (
        f"call {name}.compute_chunk_sizes() first (Dask then computes the sizes of its chunks)"
        if hasattr(x, "compute_chunk_sizes")
        else "give an array whose shape is known"
    )
    raise ValueError(
        f"{name} has a shape that is not known yet, {shape} (the sizes of its chunks are unknown, "
        f"as after boolean indexing of a Dask array); {fix}"
    )
