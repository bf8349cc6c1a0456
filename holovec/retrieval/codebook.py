"""Codebook: labels and the stacked vectors of one model, row ``i`` for label ``i``.

A plain container: its labels are keys (:mod:`holovec.retrieval._labels`), its vectors
are checked to be vectors of its model (:mod:`holovec.retrieval._checks`), and it is
saved in and loaded from the codebook's file format (:mod:`holovec._format.codebook`: a
validated ``.npz`` archive with checksums, no pickle). HoloVec 1.x's forms (a codebook
made from a dict without a model, ``extend``) come from :mod:`holovec.compat`.

Not to be confused with :class:`holovec.encoders.SymbolCodebook`, the encoders' fixed
list of seeded symbols; see :class:`Codebook` for what each gives back.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from os import PathLike
from typing import Any

from .._format.codebook import (
    FORMAT,
    FORMAT_VERSION,
    codebook_fields,
    codebook_record,
    load_codebook,
    stored_vectors,
    write_codebook,
)
from ..compat import CodebookNames, row_without_model, vectors_without_model
from ..kernels.growth import RowBuffer
from ..models.base import VSAModel
from ._checks import check_finite, model_vectors
from ._labels import checked_key, label_key, label_rows

__all__ = ["FORMAT", "FORMAT_VERSION", "Codebook"]


class Codebook(CodebookNames):
    """Labels and their vectors (row ``i`` holds label ``i``) for one model.

    A dict ``{label: vector}`` may stand for ``labels`` and ``vectors``:
    ``Codebook(model, {"red": red, "apple": apple})``. HoloVec 1.x's form
    ``Codebook({"red": red, ...}, backend=model.backend)`` works too: without a model, the
    codebook holds vectors of that backend (default: the default backend), all of one
    shape and dtype, and takes the model of the first store (``ItemStore(model).fit``,
    ``AssocStore``, ``cleanup``) that uses it (:meth:`adopt_model`); saving needs that model.

    A codebook is what retrieval searches: :class:`~holovec.retrieval.ItemStore` answers
    ``(label, similarity)`` pairs, and :func:`~holovec.retrieval.cleanup` answers the
    items' *vectors*. (The encoders' :class:`~holovec.encoders.SymbolCodebook` is another
    class: a fixed list of seeded symbols, whose ``cleanup`` answers ``(label,
    similarity)`` pairs like ``ItemStore.query``.)

    Parameters
    ----------
    model : VSAModel | Mapping[object, object]
        The model whose vectors the codebook holds.
    labels : Iterable[object] | Mapping[object, object], optional
        Distinct hashable labels (``str``, ``bytes``, ``int``, ``float``, ``bool`` and
        tuples of them can be saved). Without ``vectors``, each label gets a seeded symbol vector
        (:class:`holovec.encoders.SymbolTable`) from a seed spawned by the model.
    vectors : array, optional
        Vectors of the model, shape ``(n, vector_length)``: an array of the model's backend
        with the model's dtype, or a NumPy array of the model's dtype (moved to the backend
        unchanged). Nothing else is converted: other dtypes raise ``TypeError`` (convert on
        purpose with ``model.asarray``). Without ``labels`` the labels are ``0 .. n-1``.
    backend : str or Backend, optional
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
        self.model: VSAModel | None
        if isinstance(model, Mapping):  # HoloVec 1.x: Codebook({label: vector}, backend=...)
            if labels is not None or vectors is not None:
                raise TypeError("Codebook(items, backend=...) takes a dict label -> vector and nothing else")
            self._backend, items = vectors_without_model(model, backend)
            self.model = None
            labels, self._vectors = self._stack_items(items, lambda v, arg: v, self._backend.xp)
            self._labels: list[Any] = labels
            self._rows = label_rows(labels)
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
        self.model = model
        if isinstance(labels, Mapping):  # Codebook(model, {label: vector})
            if vectors is not None:
                raise TypeError("give a dict label -> vector, or labels and vectors, not both")
            labels, vectors = self._stack_items(labels, lambda v, arg: model_vectors(model, v, arg), model.xp)
        labels = None if labels is None else list(labels)
        if vectors is None:
            if labels is None:
                labels = []
            if labels:
                self.seed = model.spawn_seed()
                vectors = self._symbols(labels, self.seed, "")
            else:
                vectors = model.xp.zeros((0, model.vector_length), dtype=model.dtype, device=model.device)
        else:
            vectors = model_vectors(model, vectors, "vectors")
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
        self._labels = labels
        self._vectors = vectors
        self._rows = label_rows(labels)

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

    def adopt_model(self, model: VSAModel) -> None:
        """Make a codebook made from a dict without a model (HoloVec 1.x's form) a codebook
        of ``model``: its vectors must be vectors of ``model`` (type, dtype and shape;
        nothing is converted) and finite. The stores do this when they first use such a
        codebook; ``ValueError`` for a codebook that has a model already.

        Parameters
        ----------
        model : VSAModel
            The model whose vectors the codebook holds.
        """
        if self.model is not None:
            raise ValueError(f"this codebook has a model already: {self.model!r}")
        if not isinstance(model, VSAModel):
            raise TypeError(f"model must be a VSA model, got {type(model).__name__}")
        vectors = model_vectors(model, self._vectors, "the codebook's vectors")
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

    @property
    def _vectors(self) -> Any:
        """The vectors ``(n, vector_length)``: the filled rows of :attr:`_rows_buffer`."""
        return self._rows_buffer.rows

    @_vectors.setter
    def _vectors(self, vectors: Any) -> None:
        # new vectors as a whole (made, adopted, a row removed, a failed update undone):
        # kept as they are; add grows them by doubling (a label costs its own row only)
        backend = self._backend if self.model is None else self.model.backend
        self._rows_buffer = RowBuffer(backend, vectors)

    # -- construction ------------------------------------------------------------------
    @classmethod
    def from_seed(cls, model: VSAModel, labels: Iterable[Any], seed: int, *, namespace: str = "") -> Codebook:
        """The codebook of seeded symbols of ``labels``: the same (model, seed, labels)
        give the same vectors in every process and on every backend.

        Parameters
        ----------
        model : VSAModel
            The model of the vectors.
        labels : Iterable[object]
            The labels, in the order of the rows.
        seed : int
            The seed of the symbols.
        namespace : str, optional
            The namespace of the symbols (as :class:`~holovec.encoders.SymbolTable`'s).
        """
        labels = list(labels)
        book = cls(model, labels, cls._symbols_of(model, labels, seed, namespace) if labels else None)
        book.seed, book.namespace = seed, namespace
        return book

    @staticmethod
    def _symbols_of(model: VSAModel, labels: list[Any], seed: int, namespace: str) -> Any:
        from ..encoders.symbols import SymbolTable

        return SymbolTable(model, seed=seed, namespace=namespace, cache=False).draw(labels)

    def _symbols(self, labels: list[Any], seed: int, namespace: str) -> Any:
        return self._symbols_of(self._needs_model("drawing symbols"), labels, seed, namespace)

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
            return label_key(label) in self._rows
        except TypeError:
            return False

    def index(self, label: Any) -> int:
        """The row of ``label`` (``KeyError`` if absent).

        Parameters
        ----------
        label : object
            A label of the codebook.
        """
        try:
            return self._rows[label_key(label)]
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
        symbol vector where the codebook was made from a seed.

        Parameters
        ----------
        label : object
            The new label.
        vector : array, optional
            One vector of the model; ``None`` for the label's seeded symbol (codebooks made
            from a seed).
        """
        key = checked_key(label)
        if key in self._rows:
            raise ValueError(f"label {label!r} is already in the codebook")
        if vector is None:
            if self.seed is None:
                raise ValueError("give a vector: this codebook has no seed to draw symbols from")
            row = self._symbols([label], self.seed, self.namespace)
        elif self.model is None:  # made from a dict without a model: a vector like its rows
            row = row_without_model(self._backend, self._rows_buffer, vector)
        else:
            vector = model_vectors(self.model, vector, "vector")
            if vector.ndim != 1:
                raise ValueError(
                    f"add takes one vector of shape ({self.model.vector_length},), got {tuple(vector.shape)}"
                )
            check_finite(self.model, vector, "vector")
            row = vector[None, :]
            self.seed = None  # no longer rebuildable from (model, seed, labels)
        self._rows_buffer.append(row)
        self._rows[key] = len(self._labels)
        self._labels.append(label)

    def remove(self, label: Any) -> None:
        """Remove ``label`` and its vector (``KeyError`` if absent).

        Parameters
        ----------
        label : object
            A label of the codebook.
        """
        i = self.index(label)
        xp = self._xp()
        self._vectors = xp.concat([self._vectors[:i], self._vectors[i + 1 :]], axis=0)
        del self._labels[i]
        self._rows = label_rows(self._labels)

    def update(self, items: Mapping[Any, Any]) -> None:
        """Add every ``label: vector`` of the dict ``items`` (all or, on an error, none).
        ``extend`` is the same (HoloVec 1.x's name).

        Parameters
        ----------
        items : Mapping[object, object]
            ``{label: vector}``, the vectors of the codebook's model.
        """
        if not isinstance(items, Mapping):
            raise TypeError(f"items must be a dict label -> vector, got {type(items).__name__}")
        # undone by taking away what was added, so that an update costs what it adds
        n, seed = len(self._labels), self.seed
        try:
            for label, vector in items.items():
                self.add(label, vector)
        except BaseException:
            for label in self._labels[n:]:
                del self._rows[label_key(label)]
            del self._labels[n:]
            self._rows_buffer.truncate(n)
            self.seed = seed
            raise

    # -- storage: the codebook file format (holovec._format.codebook) ------------------------
    def metadata(self, host_vectors: Any = None) -> dict[str, Any]:
        """The JSON record that :meth:`save` writes next to the vectors (``host_vectors``:
        the vectors as stored, if already on the host).

        Parameters
        ----------
        host_vectors : array, optional
            The vectors as stored, if already on the host; ``None`` to copy them.
        """
        m = self._needs_model("metadata()")
        host = stored_vectors(m, self._vectors) if host_vectors is None else host_vectors
        return codebook_record(codebook_fields(m, self._labels, self.seed, self.namespace), host)

    def save(self, path: str | PathLike) -> None:
        """Write the codebook to ``path`` (``.npz``, no pickle; the suffix is added if missing).

        The file is written beside ``path`` and renamed over it once complete, so that a
        save that fails part-way (a full disk) leaves a previous file at ``path`` whole.

        Parameters
        ----------
        path : str | PathLike
            The file to write (``.npz`` is added if missing).
        """
        m = self._needs_model("save()")
        fields = codebook_fields(m, self._labels, self.seed, self.namespace)
        write_codebook(path, fields, stored_vectors(m, self._vectors), m.dtype_name)

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

        Parameters
        ----------
        path : str | PathLike
            The file (or a binary file object) to read.
        model : VSAModel, optional
            The model of the vectors; ``None`` for the one saved.
        backend : str or Backend, optional
            The backend of the model built from the file; ``None`` for the one saved.
        device : object, optional
            The device of the model built from the file; ``None`` for the backend's best.
        """
        if model is not None and (backend is not None or device is not None):
            raise TypeError(
                "give either model= or backend=/device= (for a model created from the file), not both"
            )
        if model is not None and not isinstance(model, VSAModel):
            raise TypeError(f"model must be a VSA model (or None), got {type(model).__name__}")
        found = load_codebook(path, model, backend, device)
        try:
            book = cls(found.model, found.labels, found.vectors)
        except ValueError as e:  # duplicate labels, non-finite vectors
            raise ValueError(f"{found.where}: {e}") from None
        book.seed, book.namespace = found.seed, found.namespace
        return book
