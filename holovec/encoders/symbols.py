"""Symbols as seeded vectors, the same in every process, on every machine and backend.

A :class:`SymbolTable` gives each label (a string, or another label listed below) the
vector at row 0 of the random stream named by the label's BLAKE2b digest, under the
table's seed, for :attr:`holovec.random.Purpose.SYMBOLS`. No counter, no insertion order
and never Python's salted ``hash()``: ``SymbolTable(model, seed=7)["cat"]`` is the same
vector in every process, and on NumPy, PyTorch and JAX (bit for bit for the discrete
models). Labels seen before come from a cache; new ones are drawn together, in one draw.

A :class:`SymbolCodebook` fixes a list of labels: row ``i`` of its matrix is label
``i``'s vector (the table's vector for that label), for indexing by position, fast
lookup of texts and cleanup (nearest label) of many queries at once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

import numpy as np

from .. import kernels
from .._deprecation import keyword_only_after
from .._params import FLAG, POSITIVE_INT, InstanceOf, Rule
from ..backends.shapes import pad_rows
from ..kernels.growth import RowBuffer
from ..models.base import VSAModel
from ..random import Purpose
from ._common import take_rows
from ._values import check_vectors, host_backend
from .base import Encoder

__all__ = ["SymbolCodebook", "SymbolTable", "label_digest"]

_PERSON = b"holovec.symbol"  # BLAKE2b personalisation: digests of other uses never collide


def _label_bytes(label: Any) -> bytes:
    """A canonical byte string of a label; different types never give the same bytes."""
    if isinstance(label, str):
        return b"s" + label.encode("utf-8", "surrogatepass")
    if isinstance(label, (bytes, bytearray)):
        return b"b" + bytes(label)
    if isinstance(label, (bool, np.bool_)):
        return b"t1" if label else b"t0"
    if isinstance(label, (int, np.integer)):
        return b"i" + str(int(label)).encode()
    if isinstance(label, (float, np.floating)):
        return b"f" + float(label).hex().encode()
    if isinstance(label, tuple):
        parts = [_label_bytes(part) for part in label]
        return b"(" + b"".join(len(p).to_bytes(8, "little") + p for p in parts)
    raise TypeError(
        f"a symbol label must be a str, bytes, int, float, bool or a tuple of those "
        f"(labels with a stable byte form), got {type(label).__name__} {label!r}"
    )


def label_digest(label: Any, namespace: str = "") -> int:
    """The 64-bit stream number of ``label`` in ``namespace``: BLAKE2b of its canonical bytes."""
    space = namespace.encode("utf-8")
    data = len(space).to_bytes(8, "little") + space + _label_bytes(label)
    return int.from_bytes(hashlib.blake2b(data, digest_size=8, person=_PERSON).digest(), "little")


class SymbolTable(Encoder):
    """Labels -> seeded vectors, stable across processes, machines and backends.

    Parameters
    ----------
    model : VSAModel
        The model whose vectors the table holds.
    seed : int or None, default None
        The table's seed. ``None`` draws a fresh one (then only this table object
        reproduces its vectors; give a seed to share them across processes).
    namespace : str, default ""
        Tables with the same seed and different namespaces hold unrelated vectors
        (e.g. the roles and the fillers of records).
    cache : bool, default True
        Keep the vectors of the labels seen (default). Without it, every lookup draws
        (the same vectors) again, and :meth:`decode` has no candidates of its own.

    Notes
    -----
    Labels are ``str``, ``bytes``, ``int``, ``float``, ``bool`` or tuples of these; each
    type is its own label (``1``, ``1.0``, ``"1"`` and ``True`` are four symbols).

    Examples
    --------
    >>> from holovec import VSA
    >>> from holovec.encoders import SymbolTable
    >>> model = VSA.create("MAP", dim=1000)
    >>> table = SymbolTable(model, seed=7)
    >>> cat = table["cat"]
    >>> table.vectors(["dog", "cat"]).shape
    (2, 1000)
    >>> float(model.similarity(table.vectors(["dog", "cat"])[1], cat))
    1.0
    >>> table.decode(cat)
    ('cat', 1.0)
    """

    _parameter_rules: ClassVar[dict[str, Rule]] = {
        "namespace": InstanceOf(str, what="a str"),
        "cache": FLAG,
    }

    @keyword_only_after(1)
    def __init__(
        self, model: VSAModel, *, seed: int | None = None, namespace: str = "", cache: bool = True
    ) -> None:
        super().__init__(model, seed=seed, namespace=namespace, cache=cache)
        self.namespace = namespace
        self.cache = cache
        self._rows: dict[int, int] = {}  # digest -> row of self._vectors
        self._labels: list[Any] = []
        # the labels' vectors, grown by doubling: a new label costs its own vector only
        self._vectors = RowBuffer(model.backend)
        #: True where an encoder made this table for its ``symbols`` left at None (the
        #: encoder's repr then leaves it out)
        self.made_by_encoder = False

    # -- lookups -------------------------------------------------------------------------
    def digest(self, label: Any) -> int:
        """The stream that holds ``label``'s vector (a 64-bit BLAKE2b digest).

        Parameters
        ----------
        label : object
            A label (any hashable the table accepts).
        """
        return label_digest(label, self.namespace)

    def __getitem__(self, label: Any) -> Any:
        return self.vectors([label])[0]

    def __contains__(self, label: Any) -> bool:
        return self.digest(label) in self._rows

    def __len__(self) -> int:
        return len(self._labels)

    @property
    def labels(self) -> list[Any]:
        """The labels whose vectors the table holds, in the order they were first seen."""
        return list(self._labels)

    @property
    def matrix(self) -> Any:
        """The vectors of :attr:`labels`, shape ``(len(table), vector_length)``."""
        if not len(self._vectors):
            raise ValueError("the symbol table is empty: look up some labels first")
        return self._vectors.rows

    def draw(self, labels: Sequence[Any]) -> Any:
        """The vectors of ``labels`` drawn afresh (no cache), in one draw.

        Parameters
        ----------
        labels : Sequence[object]
            The labels to draw.
        """
        labels = list(labels)
        streams = [self.digest(label) for label in labels]
        return self._draw_streams(streams)

    def _draw_streams(self, streams: list[int]) -> Any:
        if not streams:
            model = self.model
            return model.xp.zeros((0, model.vector_length), dtype=model.dtype, device=model.device)
        return self.model.draw(len(streams), self.seed, Purpose.SYMBOLS, streams)

    def vectors(self, labels: Iterable[Any]) -> Any:
        """Vectors of many labels, shape ``(n, vector_length)``: the labels not seen before
        are drawn together (one draw), the rest gathered from the cache.

        Parameters
        ----------
        labels : Iterable[object]
            The labels.
        """
        if isinstance(labels, (str, bytes)):
            raise TypeError(
                "vectors takes a sequence of labels; for one label use table[label] "
                "(for the characters of a string, pass list(text))"
            )
        labels = list(labels)
        if not self.cache:
            return self.draw(labels)
        if not labels:  # no labels: no vectors
            return self._draw_streams([])
        return self._vectors.take(self.rows(labels))

    def rows(self, labels: Iterable[Any]) -> np.ndarray:
        """Rows of :attr:`matrix` holding ``labels`` (added to the table where new).

        Parameters
        ----------
        labels : Iterable[object]
            The labels.
        """
        labels = list(labels)
        if not labels:
            return np.zeros(0, dtype=np.int64)
        digests = [self.digest(x) for x in labels]
        known = self._rows
        new: dict[int, Any] = {}
        for d, label in zip(digests, labels, strict=True):
            if d not in known and d not in new:
                new[d] = label
        if new:
            fresh = self._draw_streams(list(new))
            start = len(self._labels)
            known.update({d: start + i for i, d in enumerate(new)})
            self._labels.extend(new.values())
            self._vectors.append(fresh)
        return np.fromiter((known[d] for d in digests), dtype=np.int64, count=len(digests))

    def encode(self, labels: Any) -> Any:
        """One label -> one vector; a list of labels -> ``(n, vector_length)``.

        Parameters
        ----------
        labels : object
            One label, or a list of labels.
        """
        if isinstance(labels, (list, np.ndarray)) and not isinstance(labels, (str, bytes)):
            return self.vectors(list(labels) if not isinstance(labels, np.ndarray) else labels.tolist())
        return self[labels]

    def codebook(self, labels: Iterable[Any]) -> SymbolCodebook:
        """A :class:`SymbolCodebook` of ``labels`` (rows in the order given) with this
        table's vectors.

        Parameters
        ----------
        labels : Iterable[object]
            The labels, in the order of the rows.
        """
        return SymbolCodebook(self, labels)

    def decode(self, vectors: Any, candidates: Iterable[Any] | None = None) -> Any:
        """The nearest label (and its similarity) of each vector, among ``candidates``
        (default: the labels the table has seen). One vector -> ``(label, similarity)``;
        a batch -> a list of them.

        Parameters
        ----------
        vectors : array
            One vector of the model, or a batch ``(..., vector_length)``.
        candidates : Iterable[object], optional
            The labels to clean up among; ``None`` for the labels the table has seen.
        """
        book = self.codebook(self._labels if candidates is None else candidates)
        return book.cleanup(vectors)


class SymbolCodebook:
    """A fixed list of labels and their vectors: row ``i`` is label ``i``.

    Made by :meth:`SymbolTable.codebook` (or from a model, labels and a seed), it
    indexes labels by position (:meth:`index`, and :meth:`index_text` for a text of
    one-character labels, vectorised over the code points) and finds the nearest label
    of many queries in one similarity matrix (:meth:`cleanup`).

    Parameters
    ----------
    table : SymbolTable | VSAModel
        The table whose vectors the codebook holds, or a model (a table of ``seed`` and
        ``namespace`` is made).
    labels : Iterable[object]
        The labels, row ``i`` label ``i``.
    seed : int, optional
        Seed of the table made from a model; ``None`` draws from the model's generator.
    namespace : str, optional
        Namespace of the table made from a model.

    Examples
    --------
    >>> from holovec import VSA
    >>> from holovec.encoders import SymbolCodebook
    >>> model = VSA.create("BSC", dim=1000)
    >>> abc = SymbolCodebook(model, "abcdefgh", seed=3)
    >>> abc.index_text("cab").tolist()
    [2, 0, 1]
    >>> abc.cleanup(abc.vectors[[4, 1]])
    [('e', 1.0), ('b', 1.0)]
    """

    def __init__(
        self,
        table: SymbolTable | VSAModel,
        labels: Iterable[Any],
        *,
        seed: int | None = None,
        namespace: str = "",
    ) -> None:
        if isinstance(table, VSAModel):
            table = SymbolTable(table, seed=seed, namespace=namespace)
        elif not isinstance(table, SymbolTable):
            raise TypeError(f"expected a SymbolTable or a model, got {type(table).__name__}")
        self.table = table
        self.model = table.model
        self.labels: tuple[Any, ...] = tuple(labels)
        if not self.labels:
            raise ValueError("a codebook needs at least one label")
        digests = [table.digest(x) for x in self.labels]
        if len(set(digests)) != len(digests):
            raise ValueError("a codebook's labels must be distinct")
        self._index = {d: i for i, d in enumerate(digests)}
        self.vectors = table.vectors(self.labels)
        self._codepoints: tuple[np.ndarray, np.ndarray] | None = None
        self._padded: Any = None  # the vectors padded to a shape class (see cleanup)

    def __len__(self) -> int:
        return len(self.labels)

    def __contains__(self, label: Any) -> bool:
        return self.table.digest(label) in self._index

    def __repr__(self) -> str:
        return f"SymbolCodebook({len(self)} labels, model={self.model!r})"

    def repr_without_model(self) -> str:
        """The repr within an encoder of the same model."""
        return f"SymbolCodebook({len(self)} labels)"

    def index(self, labels: Iterable[Any]) -> np.ndarray:
        """Row of each label (host int64 array); an unknown label is a ``ValueError``.

        Parameters
        ----------
        labels : Iterable[object]
            Labels of the codebook.
        """
        out = []
        for label in labels:
            row = self._index.get(self.table.digest(label))
            if row is None:
                raise ValueError(f"label {label!r} is not in this codebook of {len(self)} labels")
            out.append(row)
        return np.asarray(out, dtype=np.int64)

    def index_text(self, text: str) -> np.ndarray:
        """Rows of the characters of ``text`` (every label a one-character str), by a
        vectorised search over code points.

        Parameters
        ----------
        text : str
            A text whose characters are labels of the codebook.
        """
        if not isinstance(text, str):
            raise TypeError(f"index_text takes a str, got {type(text).__name__}")
        if self._codepoints is None:
            if not all(isinstance(x, str) and len(x) == 1 for x in self.labels):
                raise TypeError("index_text needs a codebook whose labels are all one-character strings")
            points = np.fromiter((ord(x) for x in self.labels), dtype=np.int64, count=len(self))
            order = np.argsort(points)
            self._codepoints = (points[order], order)
        sorted_points, order = self._codepoints
        codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.int64)
        pos = np.searchsorted(sorted_points, codes).clip(0, len(sorted_points) - 1)
        found = sorted_points[pos] == codes
        if not found.all():
            missing = sorted({chr(c) for c in codes[~found]})
            raise ValueError(f"characters not in the codebook: {''.join(missing)!r}")
        return order[pos]

    def lookup(self, rows: Any) -> Any:
        """Vectors of the given rows (host ints, any shape).

        Parameters
        ----------
        rows : array
            Row indices (host ints, any shape).
        """
        return take_rows(self.model, self.vectors, rows)

    def similarities(self, queries: Any) -> Any:
        """``model.similarity_matrix(queries, vectors)``: shape ``(..., len(self))``.

        Parameters
        ----------
        queries : array
            Vectors of the model, ``(..., vector_length)``.
        """
        return self.model.similarity_matrix(queries, self.vectors)

    def cleanup(self, queries: Any, k: int = 1) -> Any:
        """The ``k`` nearest labels of each query with their similarities.

        One query ``(vector_length,)`` and ``k=1`` give ``(label, similarity)``; ``k > 1``
        a list of ``k`` such pairs, best first (at most ``len(self)``). A batch
        ``(n, vector_length)`` gives a list of those, one per query. Equal similarities are
        ordered by row, lowest first, as in :mod:`holovec.retrieval`. One similarity matrix
        for all queries; queries holding NaN or infinity raise ``ValueError``.

        Labels, like :meth:`holovec.retrieval.ItemStore.query`; the function
        :func:`holovec.retrieval.cleanup` returns the nearest stored *vectors* instead.

        Parameters
        ----------
        queries : array
            Vectors of the model, ``(..., vector_length)``.
        k : int, optional
            Number of nearest labels per query.
        """
        model = self.model
        k = POSITIVE_INT.check("k", k)
        model.check(queries, "queries")
        single = queries.ndim == 1
        # rows padded to a shape class where each new shape compiles (checked padded, as one
        # of the class's programs; the queries as given name the rows of a failure), the
        # padding dropped from the similarities
        rows, n = pad_rows(model.backend, model.xp.reshape(queries, (-1, model.vector_length)))
        try:
            check_vectors(model, rows, "queries")
        except ValueError:
            check_vectors(model, queries, "queries")
            raise
        if self._padded is None:  # made once: every codebook of its class shares the programs
            self._padded = pad_rows(model.backend, self.vectors)[0]
        sims = model.backend.to_numpy(model.similarity_matrix(rows, self._padded))[:n, : len(self)]
        if k == 1:
            best = np.argmax(sims, axis=1)[:, None]  # the first of equal maxima: lowest row
            values = np.take_along_axis(sims, best, axis=1)
        else:  # score descending, lowest row first among equal scores
            values, best = kernels.top_k(host_backend(), sims, k)
        out = [
            [(self.labels[i], float(s)) for i, s in zip(row_i, row_s, strict=True)]
            for row_i, row_s in zip(best.tolist(), values.tolist(), strict=True)
        ]
        if k == 1:
            out = [o[0] for o in out]
        return out[0] if single else out


def rows_of_sequence(symbols: SymbolTable | SymbolCodebook, sequence: Any) -> tuple[np.ndarray, Any]:
    """A sequence of labels (a str is a sequence of characters) as rows into a matrix of
    symbol vectors: ``(rows, matrix)`` with ``matrix[rows[i]]`` the vector of item ``i``.

    Codebooks index directly (a str by its code points). Tables add the distinct labels
    (a str's distinct characters, found with ``numpy.unique``) and index their cache.
    """
    if isinstance(symbols, SymbolCodebook):
        if isinstance(sequence, str):
            return symbols.index_text(sequence), symbols.vectors
        return symbols.index(_as_list(sequence)), symbols.vectors
    if isinstance(sequence, str):
        codes = np.frombuffer(sequence.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        distinct, inverse = np.unique(codes, return_inverse=True)
        rows = symbols.rows([chr(c) for c in distinct.tolist()])
        return rows[inverse.reshape(-1)], _matrix_or_none(symbols)
    items = _as_list(sequence)
    kinds = set(map(type, items))
    if len(items) > 1 and (kinds == {str} or kinds == {int}):  # numpy sorts these in C
        distinct, inverse = np.unique(np.asarray(items), return_inverse=True)
        rows = symbols.rows(distinct.tolist())
        return rows[inverse.reshape(-1)], _matrix_or_none(symbols)
    return symbols.rows(items), _matrix_or_none(symbols)


def _matrix_or_none(table: SymbolTable) -> Any:
    """The table's vectors, or None for an empty table (and no items to encode)."""
    return table.matrix if len(table) else None


def _as_list(sequence: Any) -> list[Any]:
    if isinstance(sequence, np.ndarray):
        return sequence.tolist()
    if isinstance(sequence, (bytes, bytearray)):
        return list(sequence)
    try:
        return list(sequence)
    except TypeError:
        raise TypeError(f"expected a sequence of labels or a str, got {type(sequence).__name__}") from None


#: the rule of an encoder's ``symbols`` (``roles``, ``fillers``, ``nodes``) parameter: what
#: :func:`resolve_symbols` takes (a table or codebook of another model is a ``ValueError`` there)
SYMBOLS_RULE = InstanceOf(
    SymbolTable, SymbolCodebook, str, list, tuple, type(None),
    what="a SymbolTable, a SymbolCodebook, a list of labels or None",
)  # fmt: skip


def resolve_symbols(
    model: VSAModel, symbols: Any, seed: int, namespace: str = ""
) -> SymbolTable | SymbolCodebook:
    """An encoder's ``symbols`` argument: a table or codebook of ``model``, a list of
    labels (a codebook), or None (a new table from ``seed``)."""
    if symbols is None:
        table = SymbolTable(model, seed=seed, namespace=namespace)
        table.made_by_encoder = True  # the encoder's default (its repr leaves it out)
        return table
    if isinstance(symbols, (SymbolTable, SymbolCodebook)):
        if symbols.model != model:
            raise ValueError("symbols must belong to the same model as the encoder")
        return symbols
    if isinstance(symbols, (str, list, tuple)):
        return SymbolCodebook(SymbolTable(model, seed=seed, namespace=namespace), symbols)
    raise TypeError(
        "symbols must be a SymbolTable, a SymbolCodebook, a list of labels or None, "
        f"got {type(symbols).__name__}"
    )


def decode_codebook(
    symbols: SymbolTable | SymbolCodebook, candidates: Any, what: str = "symbols"
) -> SymbolCodebook:
    """The codebook a decoder searches: ``candidates`` (a codebook or a list of labels),
    else the codebook or table the encoder uses."""
    if isinstance(candidates, SymbolCodebook):
        return candidates
    if candidates is not None:
        table = symbols.table if isinstance(symbols, SymbolCodebook) else symbols
        return table.codebook(candidates)
    if isinstance(symbols, SymbolCodebook):
        return symbols
    if len(symbols) == 0:
        raise ValueError(f"no {what} to decode against yet: encode something first or pass candidates=[...]")
    return symbols.codebook(symbols.labels)
