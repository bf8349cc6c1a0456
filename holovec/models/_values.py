"""What a model accepts as values: the element test and value-preserving conversion.

These read every value, so they are not run on each operation: :meth:`VSAModel.asarray`
runs them on what it converts, and stores may run :meth:`VSAModel.check_values` on what
they are given. Placeholders of a trace (``jax.jit``) are skipped: their values cannot be
read. Errors name how many values are wrong, a few of them with their positions, and what
the model allows (``allowed_values``).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from ..backends import DTYPE_KINDS, dtype_name
from ._checks import check_shape, check_vectors, known_dtype, refuse_array_type

#: mantissa bits of the float dtypes: integers up to 2**(bits + 1) in magnitude are exact
MANTISSA_BITS = {
    "float16": 10,
    "bfloat16": 7,
    "float32": 23,
    "float64": 52,
    "complex64": 23,
    "complex128": 52,
}

#: ``allowed_values`` by ``element_kind`` (the continuous kinds: finite numbers)
ALLOWED_BY_KIND = {
    "bipolar": "+1 or -1",
    "bounded": "real numbers in [-1, 1]",
    "binary": "0 or 1",
    "sparse": "0 or 1",
}


def kind(dtype: Any) -> str:
    """``"float"``, ``"int"``, ``"complex"``, ... of a dtype, ``"other"`` for unknown ones."""
    return DTYPE_KINDS.get(dtype_name(dtype), "other") if known_dtype(dtype) else "other"


def int_range(name: str) -> tuple[int, int]:
    """The smallest and largest value of an integer (or bool) dtype name."""
    if name == "bool":
        return 0, 1
    info = np.iinfo(np.dtype(name))
    return int(info.min), int(info.max)


def fits(dtype: Any, low: int, high: int) -> bool:
    """Whether every value of an integer (or bool) dtype lies in ``[low, high]``."""
    if kind(dtype) not in ("int", "uint", "bool"):
        return False
    smallest, largest = int_range(dtype_name(dtype))
    return low <= smallest and largest <= high


def valid_by_kind(model: Any, x: Any) -> Any | None:
    """The default element test of :meth:`ModelProtocol.valid_elements`, by ``element_kind``:
    discrete alphabets exactly (``bipolar`` +-1; ``binary`` and ``sparse`` 0/1), ``bounded``
    within [-1, 1], the continuous kinds finite; None where there is nothing to test.

    Parameters
    ----------
    model : VSAModel
        The model.
    x : array
        An array in the model's layout (any numeric dtype).
    """
    xp, element = model.xp, model.element_kind
    if element == "bipolar":
        return (x == 1) | (x == -1)
    if element in ("binary", "sparse"):
        return (x == 0) | (x == 1)
    if element == "bounded":
        if kind(x.dtype) == "bool":  # 0 and 1, in range (torch has no abs of bools)
            return xp.ones_like(x)
        return xp.abs(x) <= 1  # NaN compares False
    if kind(x.dtype) in ("float", "complex"):
        return xp.isfinite(x)
    return None


def _plain(value: Any) -> str:
    """A NumPy scalar as Python writes the number (``2``, ``-1.5``, ``(1+2j)``)."""
    return repr(value.item()) if isinstance(value, np.generic) else repr(value)


def value_error(model: Any, name: str, x: Any, bad: Any, problem: str) -> ValueError:
    """A ``ValueError`` naming how many elements of ``x`` are ``bad`` (a boolean array of
    its shape), and the first few with their positions."""
    bad_host = np.asarray(model.backend.to_numpy(bad), dtype=bool)
    where = np.argwhere(bad_host)
    values = model.backend.to_numpy(x)
    shown = ", ".join(
        f"{_plain(values[tuple(i)])} at {list(map(int, i))}" if values.ndim else _plain(values[()])
        for i in where[:4]
    )
    more = ", ..." if len(where) > 4 else ""
    return ValueError(
        f"{name}: {len(where)} of {bad_host.size} values {problem}: {shown}{more}; give values "
        "that this model's vectors hold"
    )


#: values on the host (NumPy arrays, and torch's CPU tensors through the NumPy views the
#: backend lends) are tested in blocks of leading rows of about this many bytes: a block's
#: temporaries stay in the cache, where a whole array's go to memory and back (measured on 2
#: cores: 1,257 MAP vectors at D=10,000 in 3.5 ms, against 6.7 ms for NumPy at once and 32 ms
#: for torch's own ops at once)
CHECK_BLOCK_BYTES = 2**21


def _all_valid(model: Any, x: Any) -> bool | None:
    """Whether every element of ``x`` passes ``valid_elements``; None where it has no test
    for ``x``'s dtype. A tensor that the backend lends as a NumPy view is tested by the
    model's NumPy twin (the same test, on the host's faster kernels)."""
    views = model.backend.host_views(x)
    host = None if views is None else model.host_model()
    if host is not None:
        model, x = host, views[0]
    if model.backend.jit_kernels:  # one compiled program per shape, not an op each
        test = model.backend.program(
            partial(_every_element_valid, model),
            (model.config_key, "holovec.models.valid_elements"),
            keep=model.kernel_cache,
        )
        passed = test(x)
        return None if passed is None else bool(passed)
    # (blocks of whole vectors: the leading axis of a batch of them)
    if not isinstance(x, np.ndarray) or x.ndim < 2 or x.nbytes <= CHECK_BLOCK_BYTES:
        valid = model.valid_elements(x)
        return None if valid is None else bool(model.xp.all(valid))
    step = max(1, CHECK_BLOCK_BYTES * x.shape[0] // x.nbytes)
    for start in range(0, x.shape[0], step):
        valid = model.valid_elements(x[start : start + step])
        if valid is None:
            return None
        if not bool(np.all(valid)):
            return False
    return True


def _every_element_valid(model: Any, x: Any) -> Any | None:
    """A 0-d bool: whether every element of ``x`` passes ``valid_elements`` (None where it
    has no test for ``x``'s dtype)."""
    valid = model.valid_elements(x)
    return None if valid is None else model.xp.all(valid)


def check_values(model: Any, x: Any, name: str) -> bool:
    """Raise unless the values of ``x`` (of the model's layout, any numeric dtype) are
    allowed; False where ``valid_elements`` has no test for ``x``'s dtype (then
    :func:`asarray` checks again after the conversion)."""
    if model.backend.is_traced(x):
        return True
    passed = _all_valid(model, x)
    if passed is None:
        return False
    if not passed:  # (tested again at once, for the positions of the wrong values)
        problem = f"are not {model.name} elements (allowed: {model.allowed_values})"
        raise value_error(model, name, x, ~model.valid_elements(x), problem)
    return True


def asarray(model: Any, x: Any) -> Any:
    """Any array (NumPy, PyTorch, JAX, lists) as vectors of this model's backend, device and
    dtype (``VSAModel.asarray``).

    Values are never changed silently: ``ValueError`` if an element is not a value of this
    model's vectors (``allowed_values``: e.g. 0 or 1 for BSC, +-1 for MAP, finite numbers
    for the continuous models), or if the conversion would change it beyond rounding to the
    model's precision (an integer out of the dtype's range, a fraction or an imaginary part
    dropped, an overflow to infinity). The error names the values and their positions.
    ``np.matrix`` and masked arrays are refused (``TypeError``).

    Parameters
    ----------
    model : VSAModel
        The model.
    x : array
        Any array (NumPy, PyTorch, JAX) or nested lists.
    """
    refuse_array_type(x, "x")
    out = model.backend.asarray(x)  # the backend refuses its own narrowing conversions
    check_shape(model, out, "x")
    checked = check_values(model, out, "x")  # in the values' own dtype, before conversion
    if out.dtype != model.dtype:
        out = converted(model, out, "x")
        if not checked:
            check_values(model, out, "x")
    return check_vectors(model, out, "x")


def converted(model: Any, x: Any, name: str) -> Any:
    """``x`` in the model's dtype, or a ``ValueError`` if a value would change beyond
    rounding to the model's precision."""
    xp, target = model.xp, model.dtype
    src, dst = kind(x.dtype), kind(target)
    source = dtype_name(x.dtype) if src != "other" else str(x.dtype)
    where = f"converting {source} values to {model.name}'s {model.dtype_name}"
    traced = model.backend.is_traced(x)
    if src == "complex" and dst != "complex":
        imag = xp.imag(x)
        if not traced and not bool(xp.all(imag == 0)):
            raise value_error(model, name, x, imag != 0, f"have imaginary parts, which {where} would drop")
        x, src = xp.real(x), "float"
    if dst in ("int", "uint", "bool"):
        low, high = int_range(model.dtype_name)
        if not traced and not fits(x.dtype, low, high):
            bad = (x < low) | (x > high)
            if src == "float":
                bad = bad | ~xp.isfinite(x) | (x != xp.trunc(x))
            if bool(xp.any(bad)):
                problem = f"are not integers in [{low}, {high}], which {where} would change"
                raise value_error(model, name, x, bad, problem)
        return xp.astype(x, target)
    with np.errstate(over="ignore", invalid="ignore"):  # overflows are reported below
        out = xp.astype(x, target)
    if traced:
        return out
    if src in ("float", "complex"):  # narrower floats may overflow to infinity
        bad = xp.isfinite(x) & ~xp.isfinite(out)
        if bool(xp.any(bad)):
            raise value_error(model, name, x, bad, f"overflow to infinity in {where}")
    elif src in ("int", "uint"):  # integers beyond the float's mantissa are rounded
        exact = 2 ** (MANTISSA_BITS[model.dtype_name] + 1)
        if not fits(x.dtype, -exact, exact):
            bad = (x > exact) | (x < -exact)
            if bool(xp.any(bad)):
                problem = f"are integers beyond +-{exact}, which {where} may round"
                raise value_error(model, name, x, bad, problem)
    return out


def to_numpy(model: Any, x: Any) -> np.ndarray:
    """An array of this model's backend (vectors, similarities, decoded values) as a NumPy
    array on the host; a NumPy array (or NumPy scalar) as it is, whatever the backend, since
    it is on the host already. Arrays of another framework, lists and other objects raise
    ``TypeError`` (``VSAModel.to_numpy``).

    Parameters
    ----------
    model : VSAModel
        The model.
    x : array
        An array of the model's backend, or a NumPy array.
    """
    if isinstance(x, (np.ndarray, np.generic)):
        return np.asarray(x)  # on the host already (e.g. a decoder's or a reduction's result)
    backend = model.backend
    if not isinstance(x, backend.array_type):
        raise TypeError(
            f"to_numpy takes an array of this {model.name} model's backend {backend.name!r} "
            f"({backend.array_type_name}) or a NumPy array, got {type(x).__module__}.{type(x).__name__}; "
            "for another framework's array use that framework (or np.asarray), or move it to "
            "this backend first with model.asarray(x)"
        )
    return backend.to_numpy(x)
