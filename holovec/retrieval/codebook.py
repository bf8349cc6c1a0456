"""Codebook: labels <-> the stacked vectors of one model, with safe storage.

Stored as a holovec archive (``holovec._format``: a ``.npz`` zip of ``.npy`` arrays, no
pickle, validated on load) of one array, ``vectors``, and the ``metadata`` record: the
format (``holovec.codebook``) and its version (1), model, dim, vector length, dtype,
options, backend, the model's seed and the codebook's, namespace, count, the labels and two
SHA-256 checksums, the codebook's own (older than the archives' generic ones, and kept so
that files load both ways across versions):

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

Size: about 770 lines, over the project's 600: the class with the dict forms HoloVec users
bring, the label encoding and the codebook's field checks.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from os import PathLike
from typing import Any

import numpy as np

from .._format import (
    Checksums,
    Header,
    archive_record,
    check_dim_fits,
    is_sha256,
    read_archive,
    source_name,
    write_archive,
)
from .._format import short_repr as _short
from ..backends import DTYPE_KINDS, dtype_name
from ..models.base import VSAModel
from ..models.registry import models_using_dtype
from ._checks import check_finite

__all__ = ["FORMAT", "FORMAT_VERSION", "Codebook"]

FORMAT = "holovec.codebook"
FORMAT_VERSION = 1

_SEED = re.compile("[0-9]{1,39}")


def _label_key(label: Any) -> Any:
    """A hashable key that keeps label types apart (``1``, ``1.0``, ``True``, ``"1"``), also
    inside tuples; NumPy scalars count as the Python values they hold (as after a reload)."""
    if isinstance(label, np.generic):
        label = label.item()
    if isinstance(label, tuple):
        return ("tuple", tuple(_label_key(x) for x in label))
    return (type(label).__name__, label)


def _checked_key(label: Any) -> Any:
    key = _label_key(label)
    try:
        hash(key)
    except TypeError:
        raise TypeError(
            f"labels must be hashable (str, bytes, int, float, bool or a tuple of them, ...), "
            f"got {type(label).__name__} {label!r}"
        ) from None
    return key


def _encode_label(label: Any) -> list:
    if isinstance(label, (bool, np.bool_)):
        return ["b", bool(label)]
    if isinstance(label, (int, np.integer)):
        return ["i", int(label)]
    if isinstance(label, (float, np.floating)):
        return ["f", float(label).hex()]
    if isinstance(label, str):
        return ["s", str(label)]
    if isinstance(label, bytes):
        return ["y", label.hex()]
    if isinstance(label, tuple):
        return ["t", [_encode_label(x) for x in label]]
    raise TypeError(type(label).__name__)


def _encode_labels(labels: list[Any]) -> str:
    out = []
    for label in labels:
        try:
            out.append(_encode_label(label))
        except TypeError as e:
            raise TypeError(
                "only str, bytes, int, float and bool labels, and tuples of them, can be saved; "
                f"label {label!r} holds a {e}"
            ) from None
    return json.dumps(out)


def _decode_label(item: Any) -> Any:
    if isinstance(item, list) and len(item) == 2:
        tag, value = item
        if tag == "b" and isinstance(value, bool):
            return value
        if tag == "i" and isinstance(value, int) and not isinstance(value, bool):
            return value
        if tag == "f" and isinstance(value, str):
            return float.fromhex(value)
        if tag == "s" and isinstance(value, str):
            return value
        if tag == "y" and isinstance(value, str):
            try:
                return bytes.fromhex(value)
            except ValueError:
                pass
        if tag == "t" and isinstance(value, list):
            return tuple(_decode_label(x) for x in value)
    raise ValueError(f"bad label record {item!r} in codebook file")


def _dtype_of(x: Any) -> str:
    try:
        return dtype_name(x.dtype)
    except TypeError:
        return str(x.dtype)


def _model_vectors(model: VSAModel, x: Any, arg: str) -> Any:
    """``x`` as vectors of ``model``, never converted into something else: an array of the
    model's backend that passes the model's check (type, dtype, shape), or a NumPy array of
    exactly the model's dtype, moved to the model's backend and device unchanged."""
    native = isinstance(x, model.backend.array_type)
    if native or isinstance(x, np.ndarray):
        got = _dtype_of(x)
        if got != model.dtype_name:
            others = [m for m in models_using_dtype(got) if m != model.name]
            hint = f" (the dtype of {', '.join(others)} vectors)" if others else ""
            what = "" if native or model.backend.name == "numpy" else "a NumPy array of "
            raise TypeError(
                f"{arg}: {model.name} vectors are {model.dtype_name}, got {what}{got}{hint}; give "
                f"vectors of this model, or, if a conversion is meant, convert first with "
                f"model.asarray({arg}) (it refuses conversions that change values)"
            )
        if native:
            return model.check(x, arg)
        if x.ndim == 0 or x.shape[-1] != model.vector_length:
            raise ValueError(
                f"{arg}: expected vectors of shape (..., {model.vector_length}) for this {model.name} "
                f"model of dim {model.dim}, got shape {tuple(x.shape)}"
            )
        return model.asarray(x)
    raise TypeError(
        f"{arg}: expected a {model.backend.array_type_name} of this {model.name} model's backend "
        f"{model.backend.name!r} (or a NumPy array of {model.dtype_name}), got "
        f"{type(x).__module__}.{type(x).__name__}; convert it with model.asarray({arg})"
    )


def _check_same_model(model: VSAModel, book: Codebook, what: str, whose: str) -> None:
    """``ValueError`` unless ``book`` holds vectors of a model equal to ``model`` (same class,
    dim, backend and device, dtype, options and seed; not necessarily the same object).
    A codebook made from a dict without a model takes ``model`` here, once."""
    if book.model is None:
        book._take_model(model)
    if book.model != model:
        diff = "; ".join(
            f"its {k} is {b!r}, {whose} has {m!r}" for k, b, m in book.model.config_differences(model)
        )
        raise ValueError(
            f"{what} belongs to another model: {diff}; use a codebook of an equal model (same class, "
            "dim, backend and device, dtype, options and seed), e.g. Codebook.load(path, model)"
        )


def _checksum_start(labels_json: str, dtype: np.dtype, shape: tuple[int, ...]) -> Any:
    """The SHA-256 of the labels, dtype and shape, to be continued with the vectors' bytes."""
    h = hashlib.sha256()
    h.update(labels_json.encode("utf-8", "surrogatepass"))
    h.update(str(dtype.str).encode() + str(tuple(shape)).encode())
    return h


class _CodebookChecksums(Checksums):
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
            raise ValueError(f"bad sha256 in the codebook's metadata: {_short(meta['sha256'])}")

    def mismatch(self, name: str) -> str:
        return "checksum mismatch: the vectors or labels were changed or damaged"


_CHECKSUMS = _CodebookChecksums()


def _stored_dtype(name: str) -> np.dtype:
    """The NumPy dtype in which vectors of dtype ``name`` are stored (bfloat16: float32)."""
    return np.dtype("float32" if name == "bfloat16" else name)


def _model_options(model: VSAModel) -> dict[str, Any]:
    out = {}
    for name in getattr(model, "option_names", ()):
        value = getattr(model, name, None)
        if value is None or isinstance(value, (bool, int, float, str)):
            out[name] = value
    return out


def _seed_field(meta: dict[str, Any], key: str) -> int | None:
    value = meta.get(key)
    if value is None:
        return None
    if isinstance(value, str) and _SEED.fullmatch(value) and int(value) < 2**128:
        return int(value)
    raise ValueError(
        f"bad {key} {_short(value)} in the codebook's metadata "
        "(expected a decimal int in [0, 2**128), as a string)"
    )


class Codebook:
    """Labels and their vectors (row ``i`` holds label ``i``) for one model.

    A dict ``{label: vector}`` may stand for ``labels`` and ``vectors``:
    ``Codebook(model, {"red": red, "apple": apple})``. HoloVec 1.x's form
    ``Codebook({"red": red, ...}, backend=model.backend)`` works too: without a model, the
    codebook holds vectors of that backend (default: the default backend), all of one
    shape and dtype, and takes the model of the first store (``ItemStore(model).fit``,
    ``AssocStore``, ``cleanup``) that uses it; saving needs that model.

    Parameters
    ----------
    model:
        The model whose vectors the codebook holds.
    labels:
        Distinct hashable labels (``str``, ``bytes``, ``int``, ``float``, ``bool`` and
        tuples of them can be saved). Without ``vectors``, each label gets a seeded symbol vector
        (:class:`holovec.encoders.SymbolTable`) from a seed spawned by the model.
    vectors:
        Vectors of the model, shape ``(n, vector_length)``: an array of the model's backend
        with the model's dtype, or a NumPy array of the model's dtype (moved to the backend
        unchanged). Nothing else is converted: other dtypes raise ``TypeError`` (convert on
        purpose with ``model.asarray``). Without ``labels`` the labels are ``0 .. n-1``.
    backend:
        Only with a dict and no model (HoloVec 1.x's form): the backend of the dict's
        vectors, a name or a :class:`~holovec.backends.Backend`; default the default backend.

    Examples
    --------
    >>> from holovec import VSA
    >>> from holovec.retrieval import Codebook
    >>> model = VSA.create("MAP", dim=1000)
    >>> book = Codebook.from_seed(model, ["cat", "dog"], seed=7)
    >>> len(book), book.labels
    (2, ['cat', 'dog'])
    >>> float(model.similarity(book["dog"], book.vectors[1]))
    1.0
    """

    def __init__(
        self,
        model: VSAModel | Mapping[Any, Any],
        labels: Iterable[Any] | Mapping[Any, Any] | None = None,
        vectors: Any = None,
        *,
        backend: Any = None,
    ) -> None:
        self.seed: int | None = None
        self.namespace = ""
        if isinstance(model, Mapping):  # HoloVec 1.x: Codebook({label: vector}, backend=...)
            if labels is not None or vectors is not None:
                raise TypeError("Codebook(items, backend=...) takes a dict label -> vector and nothing else")
            self._init_without_model(model, backend)
            return
        if not isinstance(model, VSAModel):
            raise TypeError(
                "model must be a VSA model (or, HoloVec-style, a dict label -> vector), "
                f"got {type(model).__name__}"
            )
        if backend is not None:
            raise TypeError(
                "backend= goes with a dict and no model, Codebook(items, backend=...); "
                "a codebook of a model uses the model's backend"
            )
        self.model: VSAModel | None = model
        if isinstance(labels, Mapping):  # Codebook(model, {label: vector})
            if vectors is not None:
                raise TypeError("give a dict label -> vector, or labels and vectors, not both")
            labels, vectors = self._stack_items(
                labels, lambda v, arg: _model_vectors(model, v, arg), model.xp
            )
        labels = None if labels is None else list(labels)
        if vectors is None:
            if labels is None:
                labels = []
            if labels:
                self.seed = model.spawn_seed()
                vectors = self._symbols(labels, self.seed, "")
            else:
                vectors = self._empty()
        else:
            vectors = _model_vectors(model, vectors, "vectors")
            if vectors.ndim != 2:
                raise ValueError(
                    f"vectors must have shape (n, {model.vector_length}), got {tuple(vectors.shape)}"
                )
            if labels is None:
                labels = list(range(vectors.shape[0]))
            if len(labels) != vectors.shape[0]:
                raise ValueError(
                    f"{len(labels)} labels for {vectors.shape[0]} vectors; give one label per row"
                )
            check_finite(model, vectors, "vectors", labels)
        self._labels: list[Any] = labels
        self._vectors = vectors
        self._rows = self._index(labels)

    @staticmethod
    def _stack_items(items: Mapping[Any, Any], check: Any, xp: Any) -> tuple[list[Any], Any]:
        """The labels and the stacked vectors of a dict ``{label: vector}``, each vector
        checked by ``check(vector, name)`` and one-dimensional."""
        labels, rows = list(items), []
        for label in labels:
            row = check(items[label], f"the vector of {label!r}")
            if row.ndim != 1:
                raise ValueError(
                    f"the vector of {label!r} must be one vector (1-d), got shape {tuple(row.shape)}"
                )
            rows.append(row)
        if not rows:
            raise ValueError("the dict of vectors is empty")
        return labels, xp.stack(rows, axis=0)

    def _init_without_model(self, items: Mapping[Any, Any], backend: Any) -> None:
        from ..backends import get_backend

        be = get_backend(backend)
        if not items:
            raise ValueError(
                "an empty dict says nothing about the vectors to hold; "
                "give the model instead: Codebook(model)"
            )

        def check(v: Any, arg: str) -> Any:
            if isinstance(v, np.ndarray) and not be.is_array(v):
                v = be.from_numpy(v)
            if not be.is_array(v):
                raise TypeError(
                    f"{arg}: expected a {be.array_type_name} of the backend {be.name!r} (or a NumPy array), "
                    f"got {type(v).__module__}.{type(v).__name__}"
                )
            return v

        rows = {label: check(v, f"the vector of {label!r}") for label, v in items.items()}
        labels = list(rows)
        first = rows[labels[0]]
        for label in labels[1:]:  # one shape and dtype: say which item differs before stacking
            v = rows[label]
            if tuple(v.shape) != tuple(first.shape) or _dtype_of(v) != _dtype_of(first):
                raise ValueError(
                    f"the vector of {label!r} has shape {tuple(v.shape)} and dtype {_dtype_of(v)}, "
                    f"the vector of {labels[0]!r} {tuple(first.shape)} and {_dtype_of(first)}; "
                    "give vectors of one model"
                )
        labels, vectors = self._stack_items(rows, lambda v, arg: v, be.xp)
        self.model = None
        self._backend = be
        self._labels, self._vectors, self._rows = labels, vectors, self._index(labels)

    def _take_model(self, model: VSAModel) -> None:
        """Make a codebook created from a dict without a model one of ``model``: its vectors
        must be vectors of ``model`` (type, dtype and shape; nothing is converted)."""
        vectors = _model_vectors(model, self._vectors, "the codebook's vectors")
        check_finite(model, vectors, "the codebook's vectors", self._labels)
        self.model, self._vectors = model, vectors

    def _needs_model(self, what: str) -> VSAModel:
        if self.model is None:
            raise ValueError(
                f"{what} needs the codebook's model, and this one was made from a dict without one: "
                "create it as Codebook(model, items), or let a store give it its model first "
                "(ItemStore(model).fit(codebook))"
            )
        return self.model

    def _xp(self) -> Any:
        return self._backend.xp if self.model is None else self.model.xp

    # -- construction ------------------------------------------------------------------
    @classmethod
    def from_seed(cls, model: VSAModel, labels: Iterable[Any], seed: int, *, namespace: str = "") -> Codebook:
        """The codebook of seeded symbols of ``labels``: the same (model, seed, labels)
        give the same vectors in every process and on every backend."""
        labels = list(labels)
        book = cls(model, labels, cls._symbols_of(model, labels, seed, namespace) if labels else None)
        book.seed, book.namespace = seed, namespace
        return book

    @staticmethod
    def _symbols_of(model: VSAModel, labels: list[Any], seed: int, namespace: str) -> Any:
        from ..encoders.symbols import SymbolTable

        return SymbolTable(model, seed, namespace=namespace, cache=False).draw(labels)

    def _symbols(self, labels: list[Any], seed: int, namespace: str) -> Any:
        return self._symbols_of(self.model, labels, seed, namespace)

    def _empty(self) -> Any:
        m = self.model
        return m.xp.zeros((0, m.vector_length), dtype=m.dtype, device=m.device)

    @staticmethod
    def _index(labels: list[Any]) -> dict[Any, int]:
        rows = {}
        for i, label in enumerate(labels):
            key = _checked_key(label)
            if key in rows:
                raise ValueError(f"duplicate label {label!r}; a codebook's labels must be distinct")
            rows[key] = i
        return rows

    # -- access ------------------------------------------------------------------------
    @property
    def labels(self) -> list[Any]:
        return list(self._labels)

    @property
    def vectors(self) -> Any:
        """The vectors, shape ``(len(self), vector_length)``, row ``i`` for label ``i``."""
        return self._vectors

    def __len__(self) -> int:
        return len(self._labels)

    def __contains__(self, label: Any) -> bool:
        try:
            return _label_key(label) in self._rows
        except TypeError:
            return False

    def index(self, label: Any) -> int:
        """The row of ``label`` (``KeyError`` if absent)."""
        try:
            return self._rows[_label_key(label)]
        except (KeyError, TypeError):
            raise KeyError(f"label {label!r} is not in this codebook of {len(self)} labels") from None

    def __getitem__(self, label: Any) -> Any:
        return self._vectors[self.index(label)]

    def __iter__(self) -> Iterator[Any]:
        """The labels, in row order (as a dict iterates over its keys)."""
        return iter(list(self._labels))

    def __repr__(self) -> str:
        return f"Codebook({len(self)} labels, model={self.model!r})"

    # -- changes -----------------------------------------------------------------------
    def add(self, label: Any, vector: Any = None) -> None:
        """Add ``label`` with ``vector`` (one vector of the model), or with its seeded
        symbol vector where the codebook was made from a seed."""
        key = _checked_key(label)
        if key in self._rows:
            raise ValueError(f"label {label!r} is already in the codebook")
        if vector is None:
            if self.seed is None:
                raise ValueError("give a vector: this codebook has no seed to draw symbols from")
            row = self._symbols([label], self.seed, self.namespace)
        elif self.model is None:  # made from a dict without a model: a vector like its rows
            vector = self._backend.from_numpy(vector) if isinstance(vector, np.ndarray) else vector
            if not self._backend.is_array(vector) or _dtype_of(vector) != _dtype_of(self._vectors):
                raise TypeError(
                    f"vector: expected a {self._backend.array_type_name} of dtype {_dtype_of(self._vectors)} "
                    f"like the codebook's vectors, got {type(vector).__name__}"
                    + (f" of dtype {_dtype_of(vector)}" if hasattr(vector, "dtype") else "")
                )
            if tuple(vector.shape) != tuple(self._vectors.shape[1:]):
                raise ValueError(
                    f"add takes one vector of shape {tuple(self._vectors.shape[1:])} like the codebook's, "
                    f"got {tuple(vector.shape)}"
                )
            row = vector[None, :]
        else:
            vector = _model_vectors(self.model, vector, "vector")
            if vector.ndim != 1:
                raise ValueError(
                    f"add takes one vector of shape ({self.model.vector_length},), got {tuple(vector.shape)}"
                )
            check_finite(self.model, vector, "vector")
            row = vector[None, :]
            self.seed = None  # no longer rebuildable from (model, seed, labels)
        self._vectors = self._xp().concat([self._vectors, row], axis=0)
        self._rows[key] = len(self._labels)
        self._labels.append(label)

    def remove(self, label: Any) -> None:
        """Remove ``label`` and its vector (``KeyError`` if absent)."""
        i = self.index(label)
        xp = self._xp()
        self._vectors = xp.concat([self._vectors[:i], self._vectors[i + 1 :]], axis=0)
        del self._labels[i]
        self._rows = self._index(self._labels)

    def update(self, items: Mapping[Any, Any]) -> None:
        """Add every ``label: vector`` of the dict ``items`` (all or, on an error, none).
        ``extend`` is the same (HoloVec 1.x's name)."""
        if not isinstance(items, Mapping):
            raise TypeError(f"items must be a dict label -> vector, got {type(items).__name__}")
        before = (list(self._labels), self._vectors, dict(self._rows), self.seed)
        try:
            for label, vector in items.items():
                self.add(label, vector)
        except BaseException:
            self._labels, self._vectors, self._rows, self.seed = before
            raise

    extend = update

    # -- storage -----------------------------------------------------------------------
    def _host_vectors(self, m: VSAModel) -> np.ndarray:
        """The vectors as stored: a C-ordered NumPy array (bfloat16 as float32, exactly)."""
        host = m.backend.to_numpy(self._vectors)
        if m.dtype_name == "bfloat16" and host.dtype != np.float32:
            host = host.astype(np.float32)  # JAX gives ml_dtypes' bfloat16: float32 holds it exactly
        return np.ascontiguousarray(host)

    def metadata(self, host_vectors: np.ndarray | None = None) -> dict[str, Any]:
        """The JSON record that :meth:`save` writes next to the vectors (``host_vectors``:
        the vectors as stored, if already on the host)."""
        m = self._needs_model("metadata()")
        if host_vectors is None:
            host_vectors = self._host_vectors(m)
        return archive_record(
            format=FORMAT,
            version=FORMAT_VERSION,
            metadata=self._fields(m),
            arrays={"vectors": host_vectors},
            checksums=_CHECKSUMS,
        )

    def _fields(self, m: VSAModel) -> dict[str, Any]:
        """The record's fields but the format, its version and the checksums."""
        return {
            "model": m.name,
            "dim": m.dim,
            "vector_length": m.vector_length,
            "dtype": m.dtype_name,
            "options": _model_options(m),
            "backend": m.backend.name,
            "seed": None if self.seed is None else str(self.seed),
            # the model's own seed: bundle tie-breaks and unseeded draws depend on it
            "model_seed": None if m.seed is None else str(m.seed),
            "namespace": self.namespace,
            "count": len(self),
            "labels": _encode_labels(self._labels),
        }

    def save(self, path: str | PathLike) -> None:
        """Write the codebook to ``path`` (``.npz``, no pickle; the suffix is added if missing).

        The file is written beside ``path`` and renamed over it once complete, so that a
        save that fails part-way (a full disk) leaves a previous file at ``path`` whole."""
        m = self._needs_model("save()")
        host = self._host_vectors(m)
        if host.dtype.kind not in "biufc":
            raise TypeError(f"cannot save {m.dtype_name} vectors; NumPy has no such dtype")
        write_archive(
            path,
            format=FORMAT,
            version=FORMAT_VERSION,
            metadata=self._fields(m),
            arrays={"vectors": host},
            checksums=_CHECKSUMS,
        )

    @classmethod
    def load(
        cls, path: str | PathLike, model: VSAModel | None = None, *, backend: Any = None, device: Any = None
    ) -> Codebook:
        """Read a codebook saved by :meth:`save` from ``path`` (or a binary file object).

        With ``model``, the file must hold that model's vectors (same name, dim, dtype
        and options); without, a model is created from the metadata (on ``backend``,
        default the one it was saved from, and ``device``, default the backend's best),
        with the saved model's seed, so that it equals a model created like the original.
        Truncated, tampered, crafted or mismatched files raise ``ValueError`` (a missing
        file ``FileNotFoundError``, and a device, pipe or directory ``ValueError``); sizes,
        shapes and dtypes are checked against the file before any data is read, and the
        dim against the vectors before a model is made, so memory stays bounded by the
        file's size.
        """
        if model is not None and (backend is not None or device is not None):
            raise TypeError(
                "give either model= or backend=/device= (for a model created from the file), not both"
            )
        if model is not None and not isinstance(model, VSAModel):
            raise TypeError(f"model must be a VSA model (or None), got {type(model).__name__}")
        meta, labels, host = _read_codebook(path)
        path = source_name(path, "codebook")  # for messages
        seed = _seed_field(meta, "seed")
        if model is None:
            from ..vsa import VSA

            try:
                model = VSA.create(
                    meta["model"],
                    meta["dim"],
                    backend if backend is not None else meta.get("backend"),
                    seed=_seed_field(meta, "model_seed"),  # absent from older files: None
                    device=device,
                    dtype=meta["dtype"],
                    **meta["options"],
                )
            except (TypeError, ValueError) as e:
                raise ValueError(
                    f"{path}: cannot create the model the codebook's metadata describes: {e}"
                ) from e
        else:
            want = {
                "model": model.name,
                "dim": model.dim,
                "dtype": model.dtype_name,
                "options": _model_options(model),
            }
            for key, value in want.items():
                if meta[key] != value:
                    raise ValueError(
                        f"{path}: the codebook holds vectors of {key} {_short(meta[key])}, "
                        f"but the model given has {key} {value!r}"
                    )
        if meta["vector_length"] != model.vector_length:
            raise ValueError(
                f"{path}: the vectors have length {meta['vector_length']}, but {model.name} vectors of "
                f"dim {model.dim} have length {model.vector_length}"
            )
        vectors = None
        if labels:
            if host.dtype.name == model.dtype_name:
                vectors = host
            else:  # bfloat16, stored as float32 (every value checked to be a bfloat16)
                vectors = model.xp.astype(model.backend.from_numpy(host), model.dtype)
        try:
            book = cls(model, labels, vectors)
        except ValueError as e:  # duplicate labels, non-finite vectors
            raise ValueError(f"{path}: {e}") from None
        book.seed = seed
        book.namespace = meta.get("namespace", "")
        return book


# -- reading a codebook file: the codebook's own checks, on top of read_archive's ------------------
def _read_codebook(path: Any) -> tuple[dict[str, Any], list[Any], np.ndarray]:
    """The validated metadata, the labels and the vectors (a NumPy array of native byte
    order, checksum verified) of the codebook file ``path``; ``ValueError`` for anything
    that is not a codebook file holovec wrote, ``FileNotFoundError`` for a missing file."""
    decoded: list[list[Any]] = []

    def check(meta: dict[str, Any], headers: dict[str, Header]) -> None:
        """The fields' agreement with the vectors' header (their types are checked)."""
        shape, dtype = headers["vectors"]
        count, length = meta["count"], meta["vector_length"]
        if shape != (count, length):
            raise ValueError(f"vectors have shape {shape}, the metadata says ({count}, {length})")
        check_dim_fits(meta["dim"], headers["vectors"], "vectors")  # before a model of that dim is made
        if dtype.newbyteorder("=") != _stored_dtype(meta["dtype"]):
            said = meta["dtype"] + (" (stored as float32)" if meta["dtype"] == "bfloat16" else "")
            raise ValueError(f"vectors are {dtype.name}, the metadata says {said}")
        labels = _decode_labels(meta["labels"])
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
        checksums=_CHECKSUMS,
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


def _check_fields(meta: dict[str, Any]) -> None:
    """The type (and range) of every field, so that later messages and comparisons are right."""
    required = ("model", "dim", "vector_length", "dtype", "options", "count", "labels")
    missing = [k for k in required if k not in meta]
    if missing:
        raise ValueError(f"codebook metadata lacks {', '.join(missing)}")

    def bad(key: str, expected: str) -> ValueError:
        value = meta[key]
        return ValueError(
            f"bad {key} in the codebook's metadata: expected {expected}, "
            f"got {type(value).__name__} {_short(value)}"
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
                f"bad value of option {_short(name)} in the codebook's metadata: {_short(value)}"
            )
    for key in ("backend", "namespace"):
        if key in meta and not (isinstance(meta[key], str) or (key == "backend" and meta[key] is None)):
            raise bad(key, "a string")
    for key in ("seed", "model_seed"):
        _seed_field(meta, key)


def _decode_labels(labels_json: str) -> list[Any]:
    try:
        records = json.loads(labels_json)
        if not isinstance(records, list):
            raise ValueError("the labels are not a JSON array")
        return [_decode_label(x) for x in records]
    except RecursionError:
        raise ValueError("bad labels: nested too deeply") from None
    except (ValueError, TypeError, OverflowError) as e:
        raise ValueError(f"bad labels: {e}") from None
