"""The codebook's file format: a holovec archive of one array, ``vectors``, and its record.

The record holds the format (``holovec.codebook``) and its version (1), the model, dim,
vector length, dtype, options, backend, the model's seed and the codebook's, namespace,
count, the labels and two SHA-256 checksums, the codebook's own (older than the archives'
generic ones, and kept so that files load both ways across versions):

- ``sha256`` covers the labels and the vectors (dtype, shape and bytes);
- ``sha256_metadata`` covers every other field of the record (``sha256`` included, so
  the vectors too), in a canonical JSON form: a changed model, dim, dtype, option, seed,
  namespace or label is refused, not loaded as another model's codebook.

Files written before ``sha256_metadata`` existed (the same format version 1) still load,
checked by ``sha256`` alone as before. The checksums find damage and edits; they are no
signature (anyone can recompute them).

NumPy has no bfloat16: bfloat16 vectors are stored as float32 (which holds every bfloat16
value exactly) with ``dtype`` "bfloat16" in the record, and come back as bfloat16.

The archive reader checks the zip directory, the ``.npy`` headers and the sizes before it
reads any data (memory bounded by the file's size); this module adds the codebook's
checks: every field's type, the vectors' shape and dtype against the record, the labels.
:class:`holovec.retrieval.Codebook` saves and loads through :func:`write_codebook` and
:func:`read_codebook`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np

from ..backends import DTYPE_KINDS
from .checksums import Checksums, is_sha256
from .common import Header, short_repr
from .files import source_name
from .labels import decode_labels, encode_labels
from .read import check_dim_backed, read_archive
from .write import archive_record, write_archive

FORMAT = "holovec.codebook"
FORMAT_VERSION = 1

_SEED = re.compile("[0-9]{1,39}")


# -- checksums: the codebook's own fields -----------------------------------------------------------
def _checksum_start(labels_json: str, dtype: np.dtype, shape: tuple[int, ...]) -> Any:
    """The SHA-256 of the labels, dtype and shape, to be continued with the vectors' bytes."""
    h = hashlib.sha256()
    h.update(labels_json.encode("utf-8", "surrogatepass"))
    h.update(str(dtype.str).encode() + str(tuple(shape)).encode())
    return h


class CodebookChecksums(Checksums):
    """The codebook's checksum fields (older than the archives' generic ones, and kept):
    ``sha256`` covers the labels and the vectors; ``sha256_metadata`` every other field,
    absent from files written before it existed."""

    fields = ("sha256", "sha256_metadata")
    metadata_required = False

    def array_hash(self, meta: Mapping[str, Any], name: str, dtype: np.dtype, shape: tuple[int, ...]) -> Any:
        return _checksum_start(meta["labels"], dtype, shape)

    def array_digest(self, meta: Mapping[str, Any], name: str) -> str:
        return meta["sha256"]

    def sign_arrays(self, record: dict[str, Any], arrays: Mapping[str, np.ndarray]) -> None:
        record["sha256"] = self.digest(record, "vectors", arrays["vectors"])

    def check_fields(self, meta: Mapping[str, Any], names: Any) -> None:
        _check_fields(meta)  # every field's type first (bad values are named), then the checksums
        super().check_fields(meta, names)

    def check_array_fields(self, meta: Mapping[str, Any], names: Any) -> None:
        if "sha256" not in meta:
            raise ValueError("codebook metadata lacks sha256")
        if not is_sha256(meta["sha256"]):
            raise ValueError(f"bad sha256 in the codebook's metadata: {short_repr(meta['sha256'])}")

    def mismatch(self, name: str) -> str:
        return "checksum mismatch: the vectors or labels were changed or damaged"


CODEBOOK_CHECKSUMS = CodebookChecksums()


# -- the record's fields ------------------------------------------------------------------------------
def stored_dtype(name: str) -> np.dtype:
    """The NumPy dtype in which vectors of dtype ``name`` are stored (bfloat16: float32)."""
    return np.dtype("float32" if name == "bfloat16" else name)


def model_options(model: Any) -> dict[str, Any]:
    """The model's options a record can hold (JSON scalars), by name."""
    out = {}
    for name in model.option_names:
        value = getattr(model, name, None)
        if value is None or isinstance(value, (bool, int, float, str)):
            out[name] = value
    return out


def seed_field(meta: Mapping[str, Any], key: str, what: str = "codebook") -> int | None:
    """The seed the record holds under ``key`` (a decimal string), or None."""
    value = meta.get(key)
    if value is None:
        return None
    if isinstance(value, str) and _SEED.fullmatch(value) and int(value) < 2**128:
        return int(value)
    raise ValueError(
        f"bad {key} {short_repr(value)} in the {what}'s metadata "
        "(expected a decimal int in [0, 2**128), as a string)"
    )


def codebook_fields(model: Any, labels: list[Any], seed: int | None, namespace: str) -> dict[str, Any]:
    """The record's fields but the format, its version and the checksums."""
    return {
        "model": model.name,
        "dim": model.dim,
        "vector_length": model.vector_length,
        "dtype": model.dtype_name,
        "options": model_options(model),
        "backend": model.backend.name,
        "seed": None if seed is None else str(seed),
        # the model's own seed: bundle tie-breaks and unseeded draws depend on it
        "model_seed": None if model.seed is None else str(model.seed),
        "namespace": namespace,
        "count": len(labels),
        "labels": encode_labels(labels),
    }


def stored_vectors(model: Any, vectors: Any) -> np.ndarray:
    """The vectors as stored: a C-ordered NumPy array (bfloat16 as float32, exactly)."""
    host = model.backend.to_numpy(vectors)
    if model.dtype_name == "bfloat16" and host.dtype != np.float32:
        host = host.astype(np.float32)  # JAX gives ml_dtypes' bfloat16: float32 holds it exactly
    return np.ascontiguousarray(host)


def codebook_record(fields: dict[str, Any], host: np.ndarray) -> dict[str, Any]:
    """The JSON record :func:`write_codebook` writes next to the vectors ``host``."""
    return archive_record(
        format=FORMAT,
        version=FORMAT_VERSION,
        metadata=fields,
        arrays={"vectors": host},
        checksums=CODEBOOK_CHECKSUMS,
    )


def write_codebook(path: Any, fields: dict[str, Any], host: np.ndarray, dtype_name: str) -> None:
    """Write the vectors ``host`` (see :func:`stored_vectors`) and the record ``fields`` to
    ``path`` (``.npz``, no pickle; written beside it and renamed over it once complete)."""
    if host.dtype.kind not in "biufc":
        raise TypeError(f"cannot save {dtype_name} vectors; NumPy has no such dtype")
    write_archive(
        path,
        format=FORMAT,
        version=FORMAT_VERSION,
        metadata=fields,
        arrays={"vectors": host},
        checksums=CODEBOOK_CHECKSUMS,
    )


# -- reading ---------------------------------------------------------------------------------------
class CodebookFile(NamedTuple):
    """What a codebook file holds, checked: the model its vectors are of (given, or made
    from the record), the labels, the vectors (a host array, or the model's array for
    bfloat16; None when there are none), the codebook's seed and namespace."""

    model: Any
    labels: list[Any]
    vectors: Any
    seed: int | None
    namespace: str
    where: Any


def load_codebook(path: Any, model: Any = None, backend: Any = None, device: Any = None) -> CodebookFile:
    """Read the codebook file ``path`` for ``model`` (its vectors must be that model's: same
    name, dim, dtype and options), or, without, for a model made from the record (on
    ``backend``, default the one it was saved from, and ``device``), with the saved model's
    seed. ``ValueError`` for anything that is not a codebook file holovec wrote."""
    meta, labels, host = read_codebook(path, given_dim=None if model is None else model.dim)
    where = source_name(path, "codebook")  # for messages
    seed = seed_field(meta, "seed")
    if model is None:
        model = model_of_record(meta, backend, device, where, "codebook")
    else:
        want = {
            "model": model.name,
            "dim": model.dim,
            "dtype": model.dtype_name,
            "options": model_options(model),
        }
        for key, value in want.items():
            if meta[key] != value:
                raise ValueError(
                    f"{where}: the codebook holds vectors of {key} {short_repr(meta[key])}, "
                    f"but the model given has {key} {value!r}"
                )
    if meta["vector_length"] != model.vector_length:
        raise ValueError(
            f"{where}: the vectors have length {meta['vector_length']}, but {model.name} vectors of "
            f"dim {model.dim} have length {model.vector_length}"
        )
    vectors = None
    if labels:
        if host.dtype.name == model.dtype_name:
            vectors = host
        else:  # bfloat16, stored as float32 (every value checked to be a bfloat16)
            vectors = model.xp.astype(model.backend.from_numpy(host), model.dtype)
    return CodebookFile(model, labels, vectors, seed, meta.get("namespace", ""), where)


def model_of_record(meta: dict[str, Any], backend: Any, device: Any, where: Any, what: str) -> Any:
    """The model a record describes (on ``backend``, default the saved one, and ``device``),
    with the saved model's seed; ``ValueError`` naming ``where`` if it cannot be made."""
    from ..vsa import VSA

    try:
        return VSA.create(
            meta["model"],
            meta["dim"],
            backend if backend is not None else meta.get("backend"),
            seed=seed_field(meta, "model_seed"),  # absent from older files: None
            device=device,
            dtype=meta["dtype"],
            **meta["options"],
        )
    except (TypeError, ValueError) as e:
        raise ValueError(f"{where}: cannot create the model the {what}'s metadata describes: {e}") from e


def read_codebook(path: Any, given_dim: int | None = None) -> tuple[dict[str, Any], list[Any], np.ndarray]:
    """The validated metadata, the labels and the vectors (a NumPy array of native byte
    order, checksum verified) of the codebook file ``path``; ``ValueError`` for anything
    that is not a codebook file holovec wrote, ``FileNotFoundError`` for a missing file.

    The record's dim must fit in the vectors; an empty codebook's (no bytes back it) is at
    most :data:`~holovec._format.read.MAX_UNBACKED_DIM`, unless it is read for a model
    made beforehand, of dim ``given_dim`` (which the caller compares with the record's)."""
    decoded: list[list[Any]] = []

    def check(meta: dict[str, Any], headers: dict[str, Header]) -> None:
        """The fields' agreement with the vectors' header (their types are checked)."""
        shape, dtype = headers["vectors"]
        count, length = meta["count"], meta["vector_length"]
        if shape != (count, length):
            raise ValueError(f"vectors have shape {shape}, the metadata says ({count}, {length})")
        # before a model of that dim is made (the one rule of every archive kind)
        check_dim_backed(meta["dim"], headers, given=given_dim)
        if dtype.newbyteorder("=") != stored_dtype(meta["dtype"]):
            said = meta["dtype"] + (" (stored as float32)" if meta["dtype"] == "bfloat16" else "")
            raise ValueError(f"vectors are {dtype.name}, the metadata says {said}")
        labels = decode_labels(meta["labels"])
        if len(labels) != count:
            raise ValueError(f"{len(labels)} labels for {count} vectors")
        decoded.append(labels)

    meta, arrays = read_archive(
        path,
        format=FORMAT,
        versions=FORMAT_VERSION,
        what="codebook",
        arrays=("vectors",),
        check=check,
        checksums=CODEBOOK_CHECKSUMS,
    )
    vectors = arrays["vectors"]
    if meta["dtype"] == "bfloat16":  # float32 vectors that must all be bfloat16 values
        words = vectors.reshape(-1).view(np.uint32)
        for start in range(0, words.size, 2**18):
            if np.any(words[start : start + 2**18] & 0xFFFF):
                raise ValueError(
                    f"{source_name(path, 'codebook')}: the metadata says bfloat16, but the stored float32 "
                    "vectors hold values that are no bfloat16"
                )
    return meta, decoded[0], vectors


def _check_fields(meta: Mapping[str, Any]) -> None:
    """The type (and range) of every field, so that later messages and comparisons are right."""
    required = ("model", "dim", "vector_length", "dtype", "options", "count", "labels")
    missing = [k for k in required if k not in meta]
    if missing:
        raise ValueError(f"codebook metadata lacks {', '.join(missing)}")

    def bad(key: str, expected: str) -> ValueError:
        value = meta[key]
        return ValueError(
            f"bad {key} in the codebook's metadata: expected {expected}, "
            f"got {type(value).__name__} {short_repr(value)}"
        )

    for key in ("model", "labels"):
        if not isinstance(meta[key], str):
            raise bad(key, "a string")
    for key, low in (("dim", 1), ("vector_length", 1), ("count", 0)):
        value = meta[key]
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad(key, "an int")
        if value < low:
            raise bad(key, f"an int >= {low}")
    if meta["dtype"] not in DTYPE_KINDS:
        raise bad("dtype", f"one of {', '.join(DTYPE_KINDS)}")
    options = meta["options"]
    if not isinstance(options, dict):
        raise bad("options", "a JSON object of option names and values")
    for name, value in options.items():
        if not isinstance(value, (str, int, float, bool)) and value is not None:
            raise ValueError(
                f"bad value of option {short_repr(name)} in the codebook's metadata: {short_repr(value)}"
            )
    for key in ("backend", "namespace"):
        if key in meta and not (isinstance(meta[key], str) or (key == "backend" and meta[key] is None)):
            raise bad(key, "a string")
    for key in ("seed", "model_seed"):
        seed_field(meta, key)
