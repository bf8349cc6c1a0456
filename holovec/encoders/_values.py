"""What the encoders share for checking their inputs and choosing dtypes (private).

An encoder's constructor parameters are checked by the rules each class declares
(``_parameter_rules``, see :mod:`holovec.encoders._rules`) in ``Encoder.__init__``; the
data an encoder is given (values, points) by :func:`check_values`, here, once for every
encoder, and the vectors a decoder is given by :func:`check_vectors`.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import kernels
from .._params import FINITE, KNOWN_SHAPE
from ..backends import DTYPE_KINDS, backend_name_of, dtype_name, get_backend
from ..backends.arrays import REFUSED_ARRAY_TYPES
from ..backends.base import check_has_data

#: array classes whose values do not mean what a plain array's do (np.matrix, masked arrays)
#: what NumPy's dtype kinds that are not real numbers hold, in words
_KIND_WORDS = {
    "b": "booleans",
    "c": "complex numbers",
    "U": "text (str)",
    "S": "bytes",
    "O": "Python objects",
    "M": "datetimes",
    "m": "timedeltas",
    "V": "raw records",
}
#: how many offending values an error message shows
_SHOWN = 3


def host_backend() -> Any:
    """The NumPy backend, on which encoder parameters are drawn (then moved to the model's)."""
    return get_backend("numpy")


def index_dtype(backend: Any) -> Any:
    """The widest integer dtype of the backend for indices (int64, or int32 on JAX without x64)."""
    return backend.dtype("int64" if kernels.supports_dtype(backend, "int64") else "int32")


def per_axis(value: Any, name: str, k: int) -> np.ndarray:
    """A number, or a sequence of ``k`` numbers (one per axis), as a float64 array of shape (k,)."""
    if isinstance(value, (Sequence, np.ndarray)) and not isinstance(value, (str, bytes, bytearray)):
        items = list(np.asarray(value, dtype=object).reshape(-1))
        if len(items) != k:
            raise ValueError(
                f"{name} must be a number or a sequence of {k} numbers (one per axis), got {value!r}"
            )
        return np.array([FINITE.check(f"{name}[{i}]", v) for i, v in enumerate(items)])
    return np.full(k, FINITE.check(name, value))


def _fits_float(v: Any) -> bool:
    try:
        float(v)
    except OverflowError:
        return False
    return True


def _short(v: Any) -> str:
    """A number for a message: a Python int of hundreds of digits by its size."""
    if isinstance(v, int) and abs(v) >= 10**20:
        return f"an int of {len(str(abs(v)))} digits ({str(v)[:12]}...)"
    return repr(v.item() if isinstance(v, np.generic) else v)


def _not_real(name: str, what: str) -> TypeError:
    return TypeError(f"{name} must be real numbers (ints or floats) or an array of them, got {what}")


def _shown(mask: np.ndarray, values: np.ndarray) -> str:
    """A few of the ``values`` where ``mask`` is set, with their positions."""
    where = np.argwhere(mask)[:_SHOWN]
    parts = []
    for position in where:
        index = tuple(int(i) for i in position)
        at = "" if not index else f" at {index[0] if len(index) == 1 else index}"
        parts.append(f"{_short(values[index])}{at}")
    more = int(mask.sum()) - len(parts)
    return ", ".join(parts) + (f" and {more} more" if more > 0 else "")


def _host_values(values: Any, name: str) -> np.ndarray:
    """Host input (numbers, lists, NumPy arrays) as a NumPy array of ints or floats, or a
    ``TypeError`` for what is not real numbers (``ValueError`` for ints too big for a float)."""
    if isinstance(values, REFUSED_ARRAY_TYPES):
        what = "np.matrix" if isinstance(values, np.matrix) else "a masked array (its mask would be ignored)"
        raise _not_real(name, f"{what}; give a plain array (x.filled(value) or x.compressed() if masked)")
    if isinstance(values, (str, bytes, bytearray, memoryview)):
        raise _not_real(name, f"{type(values).__name__} {values!r:.60}; convert text to numbers first")
    try:
        host = np.asarray(values)
    except (TypeError, ValueError):
        raise _not_real(name, f"{type(values).__name__} (not a rectangular array of numbers)") from None
    kind = host.dtype.kind
    if kind in "iuf":
        return host
    if kind == "O" and not isinstance(values, np.ndarray):
        # Python ints beyond int64, or things that are not numbers at all (None, ...)
        items = host.reshape(-1).tolist()
        for v in items:
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
                raise _not_real(name, f"{type(v).__name__} {v!r:.60} among them")
        try:
            return host.astype(np.float64)
        except OverflowError:
            big = next(v for v in items if not _fits_float(v))
            raise ValueError(
                f"{name} must be finite numbers that fit a float (at most "
                f"{np.finfo(np.float64).max:.6g} in magnitude); got {_short(big)}"
            ) from None
    what = _KIND_WORDS.get(kind, str(host.dtype))
    if kind == "O":
        what = "an array of Python objects (dtype=object); give an array of ints or floats"
    elif kind == "b":
        what = "booleans; give 0 and 1 as numbers if that is meant (x.astype(int))"
    elif kind == "c":
        what = "complex numbers; take the real part (x.real) if the imaginary part is to be dropped"
    else:
        what = f"{what} ({host.dtype})"
    raise _not_real(name, what)


def _check_real_dtype(xp: Any, dtype: Any, name: str) -> None:
    """``TypeError`` unless ``dtype`` (a backend array's) is an integer or real float type."""
    if xp.isdtype(dtype, "bool"):
        raise _not_real(name, f"an array of booleans ({dtype}); give 0 and 1 as numbers if that is meant")
    if xp.isdtype(dtype, "complex floating"):
        raise _not_real(
            name,
            f"an array of complex numbers ({dtype}); take the real part explicitly if the imaginary "
            "part is to be dropped",
        )
    if not xp.isdtype(dtype, ("integral", "real floating")):
        raise _not_real(name, f"an array of {dtype}")


def _non_finite(name: str, source: np.ndarray, converted: np.ndarray, real: Any) -> ValueError:
    """The error for values that are not finite in the encoder's float type: NaN and
    infinity given, or finite values too large for that type."""
    with np.errstate(invalid="ignore", over="ignore"):
        given = ~np.isfinite(source) if source.dtype.kind == "f" else np.zeros(source.shape, dtype=bool)
        overflow = ~np.isfinite(converted) & ~given
    if given.any():
        return ValueError(f"{name} must be finite numbers; got NaN or infinity: {_shown(given, source)}")
    limit = np.finfo(np.dtype(dtype_name(real))).max
    return ValueError(
        f"{name} must be finite numbers that fit the encoder's {dtype_name(real)} (at most {limit:.6g} "
        f"in magnitude); got {_shown(overflow, source)}"
    )


def _foreign_input(backend: Any, framework: str, name: str, values: Any, exc: Exception) -> TypeError:
    """The error for an array of another framework (``framework``, a backend name) that the
    encoder's backend cannot convert: a placeholder of a trace, or an array on a device."""
    try:  # the framework is loaded: it made the array
        theirs = get_backend(framework, "cpu")
        traced = bool(theirs.is_traced(values))
    except (ImportError, TypeError, ValueError, RuntimeError):
        traced = False
    if traced:
        what = f"a traced {framework} array (inside {theirs.trace_transforms}), which it cannot read"
    else:
        what = f"a {framework} array ({type(values).__name__}), which it cannot convert ({exc})"
    return TypeError(
        f"{name}: this encoder belongs to the {backend.name} backend (its model was made with "
        f"backend={backend.name!r}) and was given {what}; build the encoder on a {framework} "
        f"model, VSA.create(..., backend={framework!r}), to encode {framework} arrays"
        + (" inside the trace" if traced else "")
    )


def check_values(
    backend: Any,
    values: Any,
    *,
    low: float | None = None,
    high: float | None = None,
    clip: bool = False,
    name: str = "values",
) -> Any:
    """Scalars, lists or arrays of real numbers as a float array of ``backend``, checked.

    ``TypeError`` for what is not real numbers: text, bytes, booleans, complex numbers,
    ``None``, object arrays, masked arrays (arrays of the backend of a bool or complex
    dtype too). ``ValueError`` for NaN and infinity, for numbers too large for the
    backend's widest float, and for values outside ``[low, high]`` unless ``clip=True``
    (then they are clipped, as asked). Inside a ``jax.jit`` or ``torch.compile`` trace the
    values cannot be read, so only their type is checked there.

    Parameters
    ----------
    backend : str or Backend
        The backend whose float array is returned.
    values : array_like
        Scalars, lists or arrays of real numbers.
    low : float, optional
        Lower end of the valid range; ``None`` for no bound.
    high : float, optional
        Upper end of the valid range; ``None`` for no bound.
    clip : bool, optional
        Whether values outside ``[low, high]`` are clipped (else ``ValueError``).
    name : str, optional
        The parameter's name, for the error messages.
    """
    xp = backend.xp
    real = kernels.default_float_dtype(backend)
    check_has_data(values, name)
    KNOWN_SHAPE.check(name, values)
    if not isinstance(values, (np.ndarray, np.generic, list, tuple)) and not backend.is_array(values):
        framework = backend_name_of(values)
        if framework is not None or hasattr(values, "__dlpack__"):
            try:  # another framework's array (a torch tensor given to a JAX encoder, ...)
                values = backend.asarray(values)
            except (TypeError, ValueError, RuntimeError, BufferError) as exc:
                if framework is None:
                    raise _not_real(
                        name, f"{type(values).__name__} that cannot be converted ({exc})"
                    ) from None
                raise _foreign_input(backend, framework, name, values, exc) from None
    if backend.is_array(values) and not isinstance(values, np.ndarray):
        _check_real_dtype(xp, values.dtype, name)
        array = values if values.dtype == real else xp.astype(values, real)
        if backend.is_traced(array):
            return array
        if not bool(xp.all(xp.isfinite(array))):
            raise _non_finite(name, backend.to_numpy(values), backend.to_numpy(array), real)
    else:
        host = _host_values(values, name)
        with np.errstate(over="ignore", invalid="ignore"):
            converted = host.astype(np.dtype(dtype_name(real)), copy=False)
        if not np.isfinite(converted).all():
            raise _non_finite(name, host, converted, real)
        array = backend.asarray(converted, dtype=real)
    if low is not None and high is not None:
        if bool(xp.any((array < low) | (array > high))):
            if not clip:
                raise ValueError(
                    f"{name} must lie in [{low}, {high}]; got values outside it (pass clip=True to clip them)"
                )
            array = xp.clip(array, low, high)
    return array


def check_vectors(model: Any, vectors: Any, name: str = "vectors") -> Any:
    """``model.check(vectors)``, then, for models of float or complex vectors, a
    ``ValueError`` naming the rows that hold NaN or infinity (a decoder would otherwise
    return an arbitrary answer for them). Not read inside a trace."""
    vectors = model.check(vectors, name)
    if DTYPE_KINDS[model.dtype_name] not in ("float", "complex") or model.backend.is_traced(vectors):
        return vectors
    xp = model.xp
    finite = xp.all(xp.isfinite(vectors), axis=-1)
    if bool(xp.all(finite)):
        return vectors
    bad = ~np.asarray(model.backend.to_numpy(finite), dtype=bool)
    if bad.ndim == 0:
        raise ValueError(f"{name}: the vector holds NaN or infinity; it encodes no value")
    rows = [tuple(int(i) for i in r) if bad.ndim > 1 else int(r[0]) for r in np.argwhere(bad)[:10]]
    more = int(bad.sum()) - len(rows)
    raise ValueError(
        f"{name}: {int(bad.sum())} of {bad.size} vectors hold NaN or infinity (rows "
        f"{', '.join(map(str, rows))}{f' and {more} more' if more > 0 else ''}); they encode no value"
    )


def empty_vectors(model: Any, batch: tuple[int, ...]) -> Any:
    """A batch of no vectors, shape ``(*batch, vector_length)`` (some axis of ``batch`` is 0)."""
    return model.xp.zeros((*batch, model.vector_length), dtype=model.dtype, device=model.device)


def is_empty(shape: tuple[int, ...]) -> bool:
    """Whether a batch shape holds no items (its shape is known even inside a trace)."""
    return any(int(s) == 0 for s in shape)


def pick(xp: Any, matrix: Any, index: Any) -> Any:
    """``matrix[i, index[i]]`` for every row ``i`` (a gather that every backend has)."""
    from array_api_compat import device

    n, m = matrix.shape
    flat = xp.arange(n, dtype=index.dtype, device=device(matrix)) * m + index
    return xp.take(xp.reshape(matrix, (-1,)), flat, axis=0)
