"""Saving fitted estimators without pickle: the ``.npz`` + JSON archive of codebooks.

A file holds the estimator's class and parameters, the model's configuration, the
encoder's fitted state (seed, standardisation, regenerated projections) and the learned
arrays, with checksums; :func:`load` validates it before reading any data (truncated,
edited or crafted files raise ``ValueError``) and builds the estimator again, on the
backend and device it was saved from unless told otherwise. A trained classifier can so be
shipped to a device that runs holovec without trusting a pickle. Parameters that are NumPy
scalars (from a grid search) are saved as the Python numbers they equal; class labels
come back with their dtype (NumPy strings, Python strings in an object array, numbers).
"""

from __future__ import annotations

import math
from os import PathLike
from typing import Any

import numpy as np
from sklearn.base import ClassifierMixin

from .._format import Header, check_dim_backed, read_archive, short_repr, write_archive
from .._params import check_parameters
from ..vsa import VSA
from ._space import Space
from .encoding import HDEncoder, feature_encoder

__all__ = ["load", "save"]

FORMAT = "holovec.estimator"
FORMAT_VERSION = 1
#: the estimator classes a file may name, by name: every public HDEstimator registers
#: itself here (``HDEstimator.__init_subclass__``), and states its fitted state through
#: its hooks ``fitted_rows``, ``fitted_shapes`` and ``stream_shapes``
ESTIMATORS: dict[str, type] = {}
#: what files written before the registry list for every class (None where a class has none)
_OLDER_FILES = ("prototypes_", "coef_", "intercept_", "cluster_centers_")
#: fitted attributes that derive from the others: made again at load, not read (older
#: files hold them)
_DERIVED = ("class_vectors_",)
#: what a saved parameter may be (NumPy scalars are saved as the Python numbers they equal)
_PLAIN = (type(None), bool, int, float, str)


def _state_names(cls: type, params: dict[str, Any], n_classes: int | None) -> tuple[int | None, list[str]]:
    """The rows of a ``cls``'s fitted state (see ``fitted_rows``) and the names of that
    state (``fitted_shapes``), as its file lists them."""
    rows = cls.fitted_rows(params, n_classes)
    return rows, list(cls.fitted_shapes(rows, 1))


def _plain(value: Any, name: str) -> Any:
    """A parameter's value as JSON holds it: NumPy scalars (from grids) as Python numbers;
    ``TypeError`` naming the parameter for anything else that is not plain data."""
    if isinstance(value, np.generic):
        value = value.item()
    if not isinstance(value, _PLAIN):
        raise TypeError(
            f"cannot save the parameter {name}={value!r}: parameters are saved as numbers, strings, "
            f"True/False or None, not {type(value).__name__}"
        )
    return value


def _plain_params(params: dict[str, Any], where: str = "") -> dict[str, Any]:
    return {k: _plain(v, where + k) for k, v in params.items()}


def _estimator_params(estimator: Any) -> dict[str, Any]:
    params = estimator.get_params(deep=False)
    enc = params.pop("encoder")
    if isinstance(enc, HDEncoder) and type(enc) is not HDEncoder:
        # a subclass (TimeSeriesEncoder) fits state that this format does not describe
        raise TypeError(
            f"cannot save an estimator whose encoder is a {type(enc).__name__}: the file format holds "
            "an HDEncoder's parameters only (pickle the estimator instead)"
        )
    if isinstance(enc, HDEncoder):
        if enc.encoder is not None:
            raise TypeError(
                "cannot save an estimator whose HDEncoder wraps a holovec encoder (not plain data)"
            )
        encoder: Any = {"HDEncoder": _plain_params(enc.get_params(deep=False), "encoder.")}
    elif enc is None or (isinstance(enc, str) and enc == "precomputed"):
        encoder = enc
    else:
        raise TypeError(
            f"cannot save an estimator with encoder={enc!r}: only None, 'precomputed' or an HDEncoder "
            "are plain data (pickle it instead)"
        )
    return _plain_params(params) | {"encoder": encoder}


def _labels_json(classes: np.ndarray) -> dict[str, Any]:
    """Class labels as JSON: their dtype (``"object"`` for Python strings) and values, so
    that they come back equal and of the same dtype."""
    if classes.dtype.kind in "biufU":
        return {"kind": classes.dtype.str, "values": classes.tolist()}
    if classes.dtype == object and all(isinstance(c, str) for c in classes):
        return {"kind": "object", "values": [str(c) for c in classes]}
    raise TypeError(f"cannot save class labels of type {classes.dtype}; numbers and strings can be saved")


def _labels(stored: Any) -> np.ndarray:
    """The class labels of a file (``ValueError`` unless at least 2, sorted, distinct)."""
    kind, values = stored["kind"], stored["values"]
    if not isinstance(values, list):
        raise ValueError(f"classes_ must be a list of labels, got {short_repr(values)}")
    if kind == "object":
        if not all(isinstance(v, str) for v in values):
            raise ValueError("classes_ of kind 'object' must be strings")
        classes = np.empty(len(values), dtype=object)
        classes[:] = values
    elif kind == "str":  # (files of holovec before labels kept their dtype)
        classes = np.array(values, dtype=str)
    else:
        dtype = np.dtype(kind)
        if dtype.kind not in "biufU":
            raise ValueError(f"classes_ of dtype {dtype}: expected numbers or strings")
        classes = np.array(values, dtype=dtype)
    if classes.ndim != 1 or len(classes) < 2 or not np.array_equal(np.unique(classes), classes):
        shown = repr(values[:10])[:200] + (" and more" if len(values) > 10 else "")
        raise ValueError(f"classes_ must be at least 2 distinct labels in sorted order, got {shown}")
    return classes


def save(estimator: Any, path: str | PathLike | Any) -> None:
    """Write the fitted ``estimator`` to ``path`` (``.npz``; no pickle)."""
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(estimator, "encoder_")
    params = _estimator_params(estimator)  # an encoder this format cannot hold: a TypeError first
    enc, model = estimator.encoder_, estimator.model_
    inner = enc.encoder_
    arrays: dict[str, np.ndarray] = {}
    fitted: dict[str, Any] = {}
    stream = _stream_names(type(estimator))
    classes = getattr(estimator, "classes_", None)
    _, names = _state_names(type(estimator), params, None if classes is None else len(classes))
    for name in [*(["classes_"] if classes is not None else []), *names, *stream]:
        value = getattr(estimator, name, None)
        if name in stream and value is not None and not isinstance(value, (float, np.floating)):
            # what partial_fit goes on from (float64 on the host: sums lose no precision)
            arrays[name] = np.asarray(
                value if isinstance(value, np.ndarray) else model.to_numpy(value), np.float64
            )
            fitted[name] = "array"
        elif name == "classes_" and value is not None:
            fitted[name] = _labels_json(np.asarray(value))
        elif value is None or isinstance(value, (float, np.floating)):
            fitted[name] = None if value is None else float(value)
        else:
            arrays[name] = np.asarray(model.to_numpy(value))
            fitted[name] = "array"
    for name in ("mean_", "scale_"):
        if getattr(enc, name) is not None:
            arrays[f"encoder_{name}"] = np.asarray(getattr(enc, name), dtype=np.float64)
    regenerations = getattr(inner, "regenerations", 0)
    if regenerations:
        arrays["encoder_matrix"] = np.asarray(model.to_numpy(inner.matrix))
        arrays["encoder_offsets"] = np.asarray(model.to_numpy(inner.offsets))
    n_features = getattr(enc, "n_features_in_", None)
    metadata = {
        "estimator": type(estimator).__name__,
        "params": params,
        "encoder": {
            "params": _plain_params(enc.get_params(deep=False) | {"encoder": None}, "encoder."),
            "seed": str(enc.seed_),
            "n_features_in": None if n_features is None else int(n_features),
            "regenerations": int(regenerations),
        },
        "model": {
            "name": model.name,
            "dim": int(model.dim),
            "dtype": model.dtype_name,
            "options": dict(model.get_config()["options"]),
            "backend": model.backend.name,
            "seed": None if model.seed is None else str(model.seed),
        },
        "fitted": fitted,
    }
    write_archive(path, format=FORMAT, version=FORMAT_VERSION, metadata=metadata, arrays=arrays)


def load(path: str | PathLike | Any, *, backend: Any = None, device: Any = None) -> Any:
    """Read an estimator written by :func:`save` (on ``backend``/``device``, default the
    backend it was saved from and its best device).

    Every fitted array's shape and dtype is checked against the estimator's classes, the
    model's width and the encoder's features before any array is read, and its values
    after (finite; standard deviations positive; the learned state within the range of
    the learning space's floats, as a fit leaves it); a file that disagrees raises
    ``ValueError``.

    Parameters
    ----------
    path : str or path-like
        The ``.npz`` file.
    backend, device : str or None, default None
        Where the estimator computes (``None``: the backend it was saved from, its best device).

    Returns
    -------
    estimator
        The fitted estimator, of the class the file names.
    """
    record, arrays = read_archive(
        path, format=FORMAT, versions=FORMAT_VERSION, what="estimator", check=_check_layout
    )
    try:
        _check_values(arrays)
        return _rebuild(record, arrays, backend, device)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise ValueError(f"{path}: not a valid holovec estimator file: {type(e).__name__}: {e}") from e


# -- checks of a file ---------------------------------------------------------------------
def _check_layout(record: dict, headers: dict[str, Header]) -> None:
    """``ValueError`` unless the arrays the file holds (their headers: nothing is read yet)
    are those its record implies, of the shapes and dtypes the estimator, its classes, the
    model and the encoder need."""
    try:
        expected = _expected_arrays(record)
    except (KeyError, TypeError, AttributeError) as e:
        raise ValueError(f"a malformed estimator record: {type(e).__name__}: {e}") from None
    missing = set(expected)
    for name, header in headers.items():
        if name in _DERIVED:
            continue
        if name not in expected:
            raise ValueError(f"unexpected array {name!r}; expected {sorted(expected)}")
        missing.discard(name)
        shape, dtype = expected[name]
        if tuple(header.shape) != shape or np.dtype(header.dtype).name != dtype:
            raise ValueError(
                f"{name} must be a {dtype} array of shape {shape}, got {np.dtype(header.dtype).name} "
                f"of shape {tuple(header.shape)}"
            )
    if missing:
        raise ValueError(f"missing arrays {sorted(missing)}")
    # the archives' one rule: no model larger than the file's arrays allow is made
    check_dim_backed(record["model"]["dim"], headers)


def _expected_arrays(record: dict) -> dict[str, tuple[tuple[int, ...], str]]:
    """Each array the record implies: name -> (shape, dtype name)."""
    cls = _estimator_class(record["estimator"])
    m, e, fitted = record["model"], record["encoder"], record["fitted"]
    dim, model_dtype = _count(m["dim"], "dim", 1), m["dtype"]
    width, real = Space.width_of(dim, model_dtype), Space.real_dtype_name(model_dtype)
    classes = fitted.get("classes_")
    if issubclass(cls, ClassifierMixin) != (classes is not None):
        raise ValueError(f"a {cls.__name__} {'needs' if classes is None else 'has no'} classes_")
    n_classes = None if classes is None else len(_labels(classes))
    rows, _ = _state_names(cls, record["params"], n_classes)
    shapes = cls.fitted_shapes(rows, width)
    known = {"classes_", *shapes, *_DERIVED, *_stream_names(cls)}
    unknown = sorted(set(fitted) - known - set(_OLDER_FILES))
    if unknown:
        raise ValueError(f"unknown fitted attributes {unknown}")
    absent = sorted(name for name in _OLDER_FILES if name not in known and fitted.get(name) is not None)
    if absent:
        raise ValueError(f"a {cls.__name__} has no {', '.join(absent)}")
    out = {}
    for name, shape in shapes.items():
        stored = fitted.get(name)
        if shape == ():  # a number (older files: a 0-d array)
            if stored == "array":
                out[name] = ((), real)
            elif not _finite_number(stored):
                raise ValueError(f"{name} must be a finite number, got {short_repr(stored)}")
        elif stored != "array":
            raise ValueError(f"a {cls.__name__} needs the array {name}")
        else:
            out[name] = (shape, real)
    for name, shape in cls.stream_shapes(n_classes, width).items():  # optional: a fit may keep none
        stored = fitted.get(name)
        if stored == "array":
            out[name] = (shape, "float64")
        elif stored is not None and not (shape == () and _finite_number(stored)):
            raise ValueError(
                f"{name} must be {'a finite number' if shape == () else 'an array'}, got {short_repr(stored)}"
            )
    return out | _expected_encoder_arrays(e, dim, model_dtype)


def _expected_encoder_arrays(e: dict, dim: int, model_dtype: str) -> dict[str, tuple[tuple[int, ...], str]]:
    params = e["params"]
    numeric = params["encoding"] != "precomputed"
    n = e["n_features_in"]
    if n is not None or numeric:
        n = _count(n, "n_features_in", 1)
    out = {}
    if numeric and params["standardize"]:
        out["encoder_mean_"] = out["encoder_scale_"] = ((n,), "float64")
    if _count(e["regenerations"], "regenerations", 0):
        real = Space.real_dtype_name(model_dtype)
        out["encoder_matrix"], out["encoder_offsets"] = ((n, dim), real), ((dim,), real)
    return out


def _stream_names(cls: type) -> tuple[str, ...]:
    """The state a class keeps for ``partial_fit`` (saved where present)."""
    return tuple(cls.stream_shapes(2 if issubclass(cls, ClassifierMixin) else None, 1))


def _finite_number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)


def _count(value: Any, name: str, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValueError(f"{name} must be an int >= {least}, got {short_repr(value)}")
    return value


def _estimator_class(name: Any) -> type:
    if not isinstance(name, str) or name not in ESTIMATORS:
        raise ValueError(f"unknown estimator {short_repr(name)}; expected one of {sorted(ESTIMATORS)}")
    return ESTIMATORS[name]


def _check_values(arrays: dict[str, np.ndarray]) -> None:
    for name, array in arrays.items():
        if name not in _DERIVED and not np.all(np.isfinite(array)):
            raise ValueError(f"{name} holds NaN or infinite values")
    scale = arrays.get("encoder_scale_")
    if scale is not None and not np.all(scale > 0):
        raise ValueError("encoder_scale_ (the features' standard deviations) must be positive")


def _check_agrees(params: dict, model: Any, whose: str) -> None:
    """``ValueError`` where saved parameters name another model or dim than the model's."""
    name, dim = params.get("model"), params.get("dim")
    if name is not None and str(name).upper() != model.name.upper():
        raise ValueError(f"{whose} model={name!r} disagrees with the saved model {model.name}")
    if dim is not None and dim != model.dim:
        raise ValueError(f"{whose} dim={dim!r} disagrees with the saved model's dim {model.dim}")


# -- building the estimator ---------------------------------------------------------------
def _rebuild(record: dict, arrays: dict, backend: Any, device: Any) -> Any:
    cls = _estimator_class(record["estimator"])
    params = dict(record["params"])
    if isinstance(params.get("encoder"), dict):
        params["encoder"] = HDEncoder(**params["encoder"]["HDEncoder"])
    if backend is not None or device is not None:
        params["backend"], params["device"] = backend, device
    estimator = cls(**params)
    check_parameters(estimator)
    m = record["model"]
    model_seed = None if m["seed"] is None else int(m["seed"])
    model = VSA.create(
        m["name"], m["dim"], backend if backend is not None else m["backend"],
        seed=model_seed, device=device, dtype=m["dtype"], **m["options"],
    )  # fmt: skip
    _check_agrees(params, model, "the estimator's")
    enc = _rebuild_encoder(record["encoder"], arrays, model)
    estimator.encoder_, estimator.model_, estimator.space_ = enc, model, Space(model)
    if hasattr(enc, "n_features_in_"):
        estimator.n_features_in_ = enc.n_features_in_
    fitted = record["fitted"]
    n_classes = None
    if fitted.get("classes_") is not None:
        estimator.classes_ = _labels(fitted["classes_"])
        n_classes = len(estimator.classes_)
    stream = _stream_names(cls)
    for key in _state_names(cls, params, n_classes)[1] + list(stream):
        value = fitted.get(key)
        if value == "array" and key in arrays and key in stream:
            setattr(estimator, key, arrays[key])  # stream state: restore_derived places it
        elif value == "array" and arrays[key].ndim == 0:  # a number (older files)
            setattr(estimator, key, float(arrays[key]))
        elif value == "array":
            setattr(estimator, key, model.backend.asarray(arrays[key]))
        elif value is not None:
            setattr(estimator, key, float(value))
    estimator.restore_derived()
    return estimator


def _rebuild_encoder(e: dict, arrays: dict, model: Any) -> HDEncoder:
    enc = HDEncoder(**e["params"])
    check_parameters(enc)
    _check_agrees(e["params"], model, "the encoder's")
    enc.seed_ = int(e["seed"])
    enc.model_ = model
    enc.mean_ = arrays.get("encoder_mean_")
    enc.scale_ = arrays.get("encoder_scale_")
    if e["n_features_in"] is not None:
        enc.n_features_in_ = int(e["n_features_in"])
    if enc.encoding == "precomputed":
        if getattr(enc, "n_features_in_", model.vector_length) != model.vector_length:
            raise ValueError(
                f"n_features_in={enc.n_features_in_} disagrees with the width {model.vector_length} "
                f"of {model.name} vectors, which 'precomputed' input holds"
            )
        enc.encoder_ = None
    else:
        enc.encoder_ = feature_encoder(enc.encoding, model, enc.n_features_in_, enc.bandwidth, enc.seed_)
    if e["regenerations"]:
        enc.encoder_.set_state(arrays["encoder_matrix"], arrays["encoder_offsets"], e["regenerations"])
    return enc
