"""Saving fitted estimators without pickle: the ``.npz`` + JSON archive of codebooks.

A file holds the estimator's class and parameters, the model's configuration, the
encoder's fitted state (seed, standardisation, regenerated projections) and the learned
arrays, with checksums; :func:`load` validates it before reading any data (truncated,
edited or crafted files raise ``ValueError``) and builds the estimator again, on the
backend and device it was saved from unless told otherwise. A trained classifier can so be
shipped to a device that runs holovec without trusting a pickle.
"""

from __future__ import annotations

from os import PathLike
from typing import Any

import numpy as np

from .._format import read_archive, write_archive
from ..vsa import VSA
from ._space import Space
from .encoding import HDEncoder

__all__ = ["load", "save"]

FORMAT = "holovec.estimator"
FORMAT_VERSION = 1
#: the fitted attributes an estimator may have (arrays or numbers), in the order saved
_FITTED = ("classes_", "prototypes_", "class_vectors_", "coef_", "intercept_")


def _estimator_classes() -> dict[str, type]:
    from .. import learn

    return {
        n: getattr(learn, n)
        for n in learn.__all__
        if isinstance(getattr(learn, n), type) and n != "HDEncoder"
    }


def _plain_params(estimator: Any) -> dict[str, Any]:
    params = estimator.get_params(deep=False)
    enc = params.get("encoder")
    if isinstance(enc, HDEncoder):
        if enc.encoder is not None:
            raise TypeError(
                "cannot save an estimator whose HDEncoder wraps a holovec encoder (not plain data)"
            )
        params["encoder"] = {"HDEncoder": enc.get_params(deep=False)}
    elif enc is not None and enc != "precomputed":
        raise TypeError(
            f"cannot save an estimator with encoder={enc!r}: only None, 'precomputed' or an HDEncoder "
            "are plain data (pickle it instead)"
        )
    return params


def _labels_json(classes: np.ndarray) -> dict[str, Any]:
    if classes.dtype.kind in "biuf":
        return {"kind": classes.dtype.str, "values": classes.tolist()}
    if classes.dtype.kind == "U" or all(isinstance(c, str) for c in classes):
        return {"kind": "str", "values": [str(c) for c in classes]}
    raise TypeError(f"cannot save class labels of type {classes.dtype}; numbers and strings can be saved")


def save(estimator: Any, path: str | PathLike | Any) -> None:
    """Write the fitted ``estimator`` to ``path`` (``.npz``; no pickle)."""
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(estimator, "encoder_")
    enc, model = estimator.encoder_, estimator.model_
    inner = enc.encoder_
    arrays: dict[str, np.ndarray] = {}
    fitted: dict[str, Any] = {}
    for name in _FITTED:
        value = getattr(estimator, name, None)
        if name == "classes_" and value is not None:
            fitted[name] = _labels_json(np.asarray(value))
        elif value is None or isinstance(value, float):
            fitted[name] = value
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
    metadata = {
        "estimator": type(estimator).__name__,
        "params": _plain_params(estimator),
        "encoder": {
            "params": enc.get_params(deep=False) | {"encoder": None},
            "seed": str(enc.seed_),
            "n_features_in": getattr(enc, "n_features_in_", None),
            "regenerations": regenerations,
        },
        "model": {
            "name": model.name,
            "dim": model.dim,
            "dtype": model.dtype_name,
            "options": dict(model._config()["options"]),
            "backend": model.backend.name,
            "seed": None if model.seed is None else str(model.seed),
        },
        "fitted": fitted,
    }
    write_archive(path, format=FORMAT, version=FORMAT_VERSION, metadata=metadata, arrays=arrays)


def load(path: str | PathLike | Any, *, backend: Any = None, device: Any = None) -> Any:
    """Read an estimator written by :func:`save` (on ``backend``/``device``, default the
    backend it was saved from and its best device)."""
    record, arrays = read_archive(path, format=FORMAT, versions=FORMAT_VERSION, what="estimator")
    try:
        return _rebuild(record, arrays, backend, device)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise ValueError(f"{path}: not a valid holovec estimator file: {type(e).__name__}: {e}") from e


def _rebuild(record: dict, arrays: dict, backend: Any, device: Any) -> Any:
    classes = _estimator_classes()
    name = record["estimator"]
    if name not in classes:
        raise ValueError(f"unknown estimator {name!r}; expected one of {sorted(classes)}")
    params = dict(record["params"])
    if isinstance(params.get("encoder"), dict):
        params["encoder"] = HDEncoder(**params["encoder"]["HDEncoder"])
    if backend is not None or device is not None:
        params["backend"], params["device"] = backend, device
    estimator = classes[name](**params)
    m = record["model"]
    model_seed = None if m["seed"] is None else int(m["seed"])
    model = VSA.create(
        m["name"], m["dim"], backend if backend is not None else m["backend"],
        seed=model_seed, device=device, dtype=m["dtype"], **m["options"],
    )  # fmt: skip
    e = record["encoder"]
    enc = HDEncoder(**e["params"])
    enc.seed_ = int(e["seed"])
    enc.model_ = model
    enc.mean_ = arrays.get("encoder_mean_")
    enc.scale_ = arrays.get("encoder_scale_")
    if e["n_features_in"] is not None:
        enc.n_features_in_ = int(e["n_features_in"])
    enc.encoder_ = None if enc.encoding == "precomputed" else enc._make_encoder()
    if e["regenerations"]:
        enc.encoder_.set_state(arrays["encoder_matrix"], arrays["encoder_offsets"], e["regenerations"])
    estimator.encoder_, estimator.model_, estimator.space_ = enc, model, Space(model)
    if hasattr(enc, "n_features_in_"):
        estimator.n_features_in_ = enc.n_features_in_
    for key, value in record["fitted"].items():
        if key not in _FITTED:
            raise ValueError(f"unknown fitted attribute {key!r}")
        if key == "classes_":
            kind = value["kind"]
            setattr(
                estimator, key, np.array(value["values"], dtype=None if kind == "str" else np.dtype(kind))
            )
        elif value == "array":
            setattr(estimator, key, model.backend.asarray(arrays[key]))
        else:
            setattr(estimator, key, value)
    return estimator
