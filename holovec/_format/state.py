"""The file format of holovec's stateful objects (memories, structures): a holovec archive
of named arrays and a record of the model and the object's own fields.

The record holds the format (``holovec.<kind>``, e.g. ``holovec.memory.hopfield``) and its
version (1), the model (name, dim, vector length, dtype, options, backend, the model's
seed), the dtype name of every array, the object's ``fields`` (JSON) and, for objects
that name their items, ``labels`` (the codebook's label encoding). The archive's generic
checksums cover every array and field, so an edited or damaged file is refused; the
object that loads it checks its arrays' shapes against its fields. The checksums are no
signature (anyone can recompute them), so every size a record names is bounded by the
bytes that back it: the model's dim by its arrays (or, for a file of empty arrays, by
:data:`~holovec._format.read.MAX_UNBACKED_DIM`), before the model is made.

NumPy has no bfloat16: such arrays are stored as float32 (which holds every bfloat16 value
exactly) and come back as bfloat16.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, NamedTuple

import numpy as np

from ..backends import DTYPE_KINDS, dtype_name
from .codebook import model_of_record, model_options, seed_field, stored_dtype
from .common import Header, short_repr
from .files import source_name
from .labels import decode_labels, encode_labels
from .read import check_dim_backed, check_dim_fits, read_archive
from .write import write_archive

FORMAT_VERSION = 1
_MODEL_FIELDS = ("model", "dim", "vector_length", "dtype", "options")


class StateFile(NamedTuple):
    """What a state file holds, checked: the model (given, or made from the record), the
    arrays (arrays of the model's backend, by name), the object's fields, its labels (or
    None) and the file's name for messages."""

    model: Any
    arrays: dict[str, Any]
    fields: dict[str, Any]
    labels: list[Any] | None
    where: str


def save_state(
    path: Any,
    kind: str,
    model: Any,
    arrays: Mapping[str, Any],
    fields: Mapping[str, Any],
    labels: list[Any] | None = None,
) -> None:
    """Write an object of ``kind`` (e.g. ``"memory.hopfield"``): its ``model``, ``arrays``
    (name -> array of the model's backend or NumPy) and JSON ``fields`` (and ``labels``)
    to ``path`` (``.npz``, no pickle; written beside it and renamed over it when complete)."""
    host, dtypes = {}, {}
    for name, array in arrays.items():
        dtypes[name] = _dtype_name(model, array)
        host[name] = _host(model, array, dtypes[name])
    metadata = {
        "model": model.name,
        "dim": model.dim,
        "vector_length": model.vector_length,
        "dtype": model.dtype_name,
        "options": model_options(model),
        "backend": model.backend.name,
        "model_seed": None if model.seed is None else str(model.seed),
        "dtypes": dtypes,
        "fields": dict(fields),
        "labels": None if labels is None else encode_labels(list(labels)),
    }
    write_archive(path, format=f"holovec.{kind}", version=FORMAT_VERSION, metadata=metadata, arrays=host)


def load_state(
    path: Any,
    kind: str,
    model: Any = None,
    backend: Any = None,
    device: Any = None,
    arrays: Collection[str] = (),
) -> StateFile:
    """Read a file :func:`save_state` wrote for ``kind``, holding exactly the arrays named.

    With ``model`` the file must be of that model (same name, dim, dtype and options);
    without, the model is made from the record (on ``backend``, default the saved one, and
    ``device``), with the saved model's seed. ``ValueError`` for anything else: another
    kind or model, a damaged or edited file.

    The record's dim is checked against the arrays before any data is read and before a
    model is made (:func:`~holovec._format.read.check_dim_backed`): it must fit in an array
    that holds data, or, where every array is empty (an empty memory), be at most
    :data:`~holovec._format.read.MAX_UNBACKED_DIM` unless ``model`` is given."""
    what = kind.rsplit(".", 1)[-1]
    if model is not None:
        from ..models.base import VSAModel  # here: the models import this package

        if not isinstance(model, VSAModel):
            raise TypeError(f"model must be a VSA model (or None), got {type(model).__name__}")
    if model is not None and (backend is not None or device is not None):
        raise TypeError("give either model= or backend=/device= (for a model made from the file), not both")
    where = source_name(path, what)
    given_dim = None if model is None else model.dim

    def check(meta: dict[str, Any], headers: dict[str, Header]) -> None:
        _check_record(meta, what)
        if set(meta["dtypes"]) != set(headers):
            raise ValueError(
                f"the record names arrays {sorted(meta['dtypes'])}, the file holds {sorted(headers)}"
            )
        for name, (shape, dtype) in headers.items():
            said = meta["dtypes"][name]
            if said not in DTYPE_KINDS or dtype.newbyteorder("=") != stored_dtype(said):
                raise ValueError(f"array {name} is {dtype.name}, the record says {short_repr(said)}")
            if shape and shape[-1] == meta["vector_length"]:
                check_dim_fits(meta["dim"], headers[name], name, given=given_dim)
        # whatever the record says the vector length is: no model larger than the bytes allow
        check_dim_backed(meta["dim"], headers, given=given_dim)

    meta, host = read_archive(
        path, format=f"holovec.{kind}", versions=FORMAT_VERSION, what=what, arrays=arrays, check=check
    )
    if model is None:
        model = model_of_record(meta, backend, device, where, what)
        if meta["vector_length"] != model.vector_length:  # it chose the arrays checked above
            raise ValueError(
                f"{where}: the record says vector length {meta['vector_length']}, but {model.name} "
                f"vectors of dim {model.dim} have length {model.vector_length}"
            )
    else:
        given = {
            "model": model.name,
            "dim": model.dim,
            "vector_length": model.vector_length,
            "dtype": model.dtype_name,
            "options": model_options(model),
        }
        for key, have in given.items():
            if meta[key] != have:
                raise ValueError(
                    f"{where}: the file holds a {what} of {key} {short_repr(meta[key])}, but the model "
                    f"given has {key} {have!r}"
                )
    out = {}
    for name, array in host.items():
        if meta["dtypes"][name] == "bfloat16":
            if np.any(array.reshape(-1).view(np.uint32) & 0xFFFF):
                raise ValueError(f"{where}: array {name} holds values that are no bfloat16")
            out[name] = model.xp.astype(model.backend.from_numpy(array), model.backend.dtype("bfloat16"))
        else:
            out[name] = model.backend.from_numpy(array)
    labels = None if meta["labels"] is None else decode_labels(meta["labels"])
    return StateFile(model, out, meta["fields"], labels, where)


def _dtype_name(model: Any, array: Any) -> str:
    return array.dtype.name if isinstance(array, np.ndarray) else dtype_name(array.dtype)


def _host(model: Any, array: Any, dtype_name: str) -> np.ndarray:
    host = array if isinstance(array, np.ndarray) else model.backend.to_numpy(array)
    if dtype_name == "bfloat16":
        host = host.astype(np.float32)  # holds every bfloat16 value exactly
    if host.dtype.kind not in "biufc":
        raise TypeError(f"cannot save an array of dtype {dtype_name}")
    return np.ascontiguousarray(host)


def _check_record(meta: Mapping[str, Any], what: str) -> None:
    """The type of every field the loader reads, so that later messages are right."""
    missing = [k for k in (*_MODEL_FIELDS, "dtypes", "fields", "labels") if k not in meta]
    if missing:
        raise ValueError(f"the {what}'s record lacks {', '.join(missing)}")
    for key, ok, expected in (
        ("model", isinstance(meta["model"], str), "a string"),
        ("dtype", meta["dtype"] in DTYPE_KINDS, "a dtype name"),
        ("options", isinstance(meta["options"], dict), "a JSON object"),
        ("dtypes", isinstance(meta["dtypes"], dict), "a JSON object"),
        ("fields", isinstance(meta["fields"], dict), "a JSON object"),
        ("labels", meta["labels"] is None or isinstance(meta["labels"], str), "a string or null"),
    ):
        if not ok:
            raise ValueError(
                f"bad {key} in the {what}'s record: expected {expected}, got {short_repr(meta[key])}"
            )
    for key in ("dim", "vector_length"):
        value = meta[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(
                f"bad {key} in the {what}'s record: expected an int >= 1, got {short_repr(value)}"
            )
    seed_field(meta, "model_seed", what)
