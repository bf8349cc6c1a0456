"""Codebook: labels <-> the stacked vectors of one model, with safe storage.

Stored as ``.npz`` (no pickle) holding the vectors and a JSON metadata record: model,
dim, dtype, options, backend, seed, format version, the labels and a SHA-256 checksum
of labels and vectors, all validated on load.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Iterable, Iterator, Mapping
from os import PathLike
from typing import Any

import numpy as np

from ..backends import dtype_name
from ..models.base import VSAModel
from ..models.registry import models_using_dtype

__all__ = ["FORMAT", "FORMAT_VERSION", "Codebook"]

FORMAT = "holovec.codebook"
FORMAT_VERSION = 1


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


def _checksum(labels_json: str, vectors: np.ndarray) -> str:
    h = hashlib.sha256()
    h.update(labels_json.encode("utf-8"))
    h.update(str(vectors.dtype.str).encode() + str(vectors.shape).encode())
    h.update(np.ascontiguousarray(vectors).tobytes())
    return h.hexdigest()


def _model_options(model: VSAModel) -> dict[str, Any]:
    out = {}
    for name in getattr(model, "option_names", ()):
        value = getattr(model, name, None)
        if value is None or isinstance(value, (bool, int, float, str)):
            out[name] = value
    return out


def _seed_field(meta: dict[str, Any], key: str, path: Any) -> int | None:
    value = meta.get(key)
    if value is None:
        return None
    if isinstance(value, str) and value.isdigit():
        return int(value)
    raise ValueError(f"{path}: bad {key} {value!r} in the codebook's metadata (expected a decimal int)")


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
    def metadata(self, host_vectors: np.ndarray | None = None) -> dict[str, Any]:
        m = self._needs_model("metadata()")
        if host_vectors is None:
            host_vectors = m.backend.to_numpy(self._vectors)
        labels_json = _encode_labels(self._labels)
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
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
            "labels": labels_json,
            "sha256": _checksum(labels_json, host_vectors),
        }

    def save(self, path: str | PathLike) -> None:
        """Write the codebook to ``path`` (``.npz``, no pickle; NumPy adds the suffix if missing)."""
        m = self._needs_model("save()")
        host = np.ascontiguousarray(m.backend.to_numpy(self._vectors))
        if host.dtype.kind not in "biufc":
            raise TypeError(f"cannot save {m.dtype_name} vectors; NumPy has no such dtype")
        meta = json.dumps(self.metadata(host))
        np.savez(path, vectors=host, metadata=np.array(meta))

    @classmethod
    def load(
        cls, path: str | PathLike, model: VSAModel | None = None, *, backend: Any = None, device: Any = None
    ) -> Codebook:
        """Read a codebook saved by :meth:`save`.

        With ``model``, the file must hold that model's vectors (same name, dim, dtype
        and options); without, a model is created from the metadata (on ``backend``,
        default the one it was saved from, and ``device``, default the backend's best),
        with the saved model's seed, so that it equals a model created like the original.
        Truncated, tampered or mismatched files raise ``ValueError``.
        """
        if model is not None and (backend is not None or device is not None):
            raise TypeError(
                "give either model= or backend=/device= (for a model created from the file), not both"
            )
        try:
            with np.load(path, allow_pickle=False) as data:
                names = set(data.files)
                if names != {"vectors", "metadata"}:
                    raise ValueError(f"expected arrays 'vectors' and 'metadata', found {sorted(names)}")
                vectors = data["vectors"]
                meta_raw = data["metadata"]
        except FileNotFoundError:
            raise
        except ValueError as e:
            raise ValueError(f"{path}: not a valid holovec codebook file: {e}") from None
        except (OSError, EOFError, zipfile.BadZipFile, KeyError) as e:
            raise ValueError(
                f"{path}: not a readable holovec codebook file (truncated or corrupt?): {e}"
            ) from None
        try:
            meta = json.loads(str(meta_raw[()]))
            if not isinstance(meta, dict):
                raise TypeError
        except (ValueError, TypeError, IndexError):
            raise ValueError(f"{path}: the codebook's metadata is not a JSON record") from None
        if meta.get("format") != FORMAT:
            raise ValueError(f"{path}: not a holovec codebook (format {meta.get('format')!r})")
        if meta.get("version") != FORMAT_VERSION:
            raise ValueError(
                f"{path}: codebook format version {meta.get('version')!r} is not supported "
                f"(this holovec reads version {FORMAT_VERSION})"
            )
        required = ("model", "dim", "vector_length", "dtype", "options", "count", "labels", "sha256")
        missing = [k for k in required if k not in meta]
        if missing:
            raise ValueError(f"{path}: codebook metadata lacks {', '.join(missing)}")
        if vectors.ndim != 2 or vectors.shape != (meta["count"], meta["vector_length"]):
            raise ValueError(
                f"{path}: vectors have shape {vectors.shape}, the metadata says "
                f"({meta['count']}, {meta['vector_length']})"
            )
        if vectors.dtype.name != meta["dtype"]:
            raise ValueError(f"{path}: vectors are {vectors.dtype.name}, the metadata says {meta['dtype']}")
        if not isinstance(meta["labels"], str) or _checksum(meta["labels"], vectors) != meta["sha256"]:
            raise ValueError(f"{path}: checksum mismatch: the vectors or labels were changed or damaged")
        try:
            labels = [_decode_label(x) for x in json.loads(meta["labels"])]
        except (ValueError, TypeError) as e:
            raise ValueError(f"{path}: bad labels: {e}") from None
        if len(labels) != meta["count"]:
            raise ValueError(f"{path}: {len(labels)} labels for {meta['count']} vectors")
        seed = _seed_field(meta, "seed", path)
        if model is None:
            from ..vsa import VSA

            model = VSA.create(
                meta["model"],
                meta["dim"],
                backend if backend is not None else meta.get("backend"),
                seed=_seed_field(meta, "model_seed", path),  # absent from older files: None
                device=device,
                dtype=meta["dtype"],
                **meta["options"],
            )
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
                        f"{path}: the codebook holds vectors of {key} {meta[key]!r}, "
                        f"but the model given has {key} {value!r}"
                    )
        book = cls(model, labels, vectors if len(labels) else None)
        book.seed = seed
        book.namespace = meta.get("namespace", "")
        return book
