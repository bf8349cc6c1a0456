"""A hash table (key -> value) held in one hypervector: the record encoding."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, ClassVar

from .._format.state import StateFile
from ..encoders import SymbolCodebook
from ..models.base import VSAModel
from ._items import (
    codebook,
    is_vector_like,
    item_vectors,
    n_candidates_or,
    planned_accuracy,
    planned_capacity,
)
from .base import Structure, indices_field

__all__ = ["HashTable", "MissingKeyError"]


class MissingKeyError(KeyError, ValueError):
    """A key the table does not hold (a ``KeyError``, as for a dict, and a ``ValueError``,
    as for every bad input in holovec)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def _check_label_key(table: Any, key: Any) -> None:
    if is_vector_like(key):
        raise TypeError(
            "hash table keys are labels (str, bytes, int, float, bool, tuples of them), not vectors"
        )
    table.digest(key)  # a TypeError naming the labels allowed (an unhashable list, ...)


class HashTable(Structure):
    """Key -> value pairs as one vector: the bundle of ``bind(value, key)``.

    This is :class:`holovec.encoders.RecordEncoder`'s encoding, with its symbol tables
    (namespaces ``"role"`` for the keys and ``"filler"`` for the values, seeded by
    :attr:`seed`): a table's :attr:`vector` equals ``RecordEncoder(model,
    seed=s).encode(pairs)``. The value is on the left of the binding, so ``unbind(vector,
    key)`` recovers it for every model, the non-commutative ones (VTB, GHRR) included.

    Keys are labels (the table lists them: :meth:`keys`); values are labels or vectors of
    the model. :meth:`get` (and ``table[key]``) unbinds the key and cleans up among the
    values seen (or the ``candidates`` given), returning the value; :meth:`decode` returns
    ``{key: (value, similarity)}``, as ``RecordEncoder.decode`` does. Capacity: :meth:`capacity` and
    :meth:`expected_accuracy` (the planner :mod:`holovec.capacity`, ``query="lookup"``).

    Parameters
    ----------
    model : VSAModel
        The model whose vectors hold the structure.
    pairs : Mapping[object, object], optional
        ``key -> value`` pairs to store at once (keys labels; values labels or vectors).
    seed : int, optional
        Seed of the structure's symbols; ``None`` draws them from the model's generator.

    Examples
    --------
    >>> from holovec import VSA
    >>> from holovec.structures import HashTable
    >>> model = VSA.create("FHRR", dim=2000)
    >>> capitals = HashTable(model, {"fr": "paris", "de": "berlin"}, seed=1)
    >>> capitals.set("it", "rome")
    >>> capitals["de"], sorted(capitals.keys()), "es" in capitals
    ('berlin', ['de', 'fr', 'it'], False)
    >>> capitals.remove("fr")
    >>> capitals.get("it"), len(capitals)
    ('rome', 2)
    """

    kind: ClassVar[str] = "hashtable"

    def __init__(
        self, model: VSAModel, pairs: Mapping[Any, Any] | None = None, *, seed: int | None = None
    ) -> None:
        super().__init__(model, seed=seed)
        self.roles = self.symbols("role")
        self.fillers = self.symbols("filler")
        self._keys: dict[int, Any] = {}  # digest -> key, in insertion order
        self._vector_valued: set[int] = set()  # digests of the keys whose value was a vector
        if pairs is not None:
            self.update(pairs)

    # -- changes ------------------------------------------------------------------------
    def set(self, key: Any, value: Any) -> None:
        """Store ``value`` (a label or a vector) under ``key`` (a label); a key held
        already has its old value (decoded, as :meth:`remove`) replaced. ``ValueError``
        for a key whose value was stored as a vector (no label decodes it): remove it with
        ``remove(key, value)`` first.

        Parameters
        ----------
        key : object
            The key (a label).
        value : object
            The value (a label or a vector of the model).
        """
        _check_label_key(self.roles, key)
        self.update({key: value})

    def __setitem__(self, key: Any, value: Any) -> None:
        self.set(key, value)

    def update(self, pairs: Mapping[Any, Any]) -> None:
        """Store every ``key -> value`` of ``pairs`` (the pairs bound in one call).

        Parameters
        ----------
        pairs : Mapping[object, object]
            ``key -> value`` pairs (keys labels; values labels or vectors).
        """
        if not isinstance(pairs, Mapping):
            raise TypeError(f"update takes a mapping of keys to values (a dict), got {type(pairs).__name__}")
        keys = list(pairs)
        for key in keys:
            _check_label_key(self.roles, key)
            self._check_decodable(key)
        if not keys:
            return
        # every value checked before the sum changes: a bad one leaves the table as it was
        values = item_vectors(self.model, self.fillers, [pairs[k] for k in keys], "value of key")
        replaced = [key for key in keys if key in self]
        if replaced:  # the old pairs go (decoded in one similarity matrix); keys keep their place
            old = self.decode(replaced)
            self._subtract(replaced, [old[key][0] for key in replaced])
        self._add_items(self.model.bind(values, self.roles.vectors(keys)))
        for key in keys:
            digest = self.roles.digest(key)
            self._keys[digest] = key
            if is_vector_like(pairs[key]):
                self._vector_valued.add(digest)
            else:
                self._vector_valued.discard(digest)

    def _check_decodable(self, key: Any) -> None:
        """``ValueError`` for a held key whose value was stored as a vector: no label decodes
        it, so the pair cannot be taken away without that vector."""
        if self.roles.digest(key) in self._vector_valued:
            raise ValueError(
                f"the value of key {key!r} was stored as a vector, which no label decodes: "
                "take the pair away with remove(key, value), giving that vector, first"
            )

    def remove(self, key: Any, value: Any = None) -> None:
        """Take the pair of ``key`` away: ``bind(value, key)`` with ``value`` given (a label
        or a vector), else the value :meth:`get` decodes (the stored one within the table's
        capacity; ``value`` must be given for a value stored as a vector: ``ValueError``
        without it). ``MissingKeyError`` (a ``KeyError``) for a key the table does not hold.

        Parameters
        ----------
        key : object
            The key (a label) whose pair is removed.
        value : object, optional
            The value stored under ``key`` (a label or a vector); ``None`` decodes it.
        """
        self._check_key(key)
        if value is None:
            self._check_decodable(key)
        self._subtract([key], [self._value(key) if value is None else value])
        del self._keys[self.roles.digest(key)]
        self._vector_valued.discard(self.roles.digest(key))

    def _subtract(self, keys: list[Any], values: list[Any]) -> None:
        vectors = item_vectors(self.model, self.fillers, values, "value")
        self._add_items(self.model.bind(vectors, self.roles.vectors(keys)), -1)

    def __delitem__(self, key: Any) -> None:
        self.remove(key)

    def clear(self) -> None:
        """Remove every pair (the values seen stay candidates of :meth:`get`)."""
        self._reset()
        self._keys.clear()
        self._vector_valued.clear()

    # -- reads --------------------------------------------------------------------------
    def _check_key(self, key: Any) -> None:
        if key not in self:
            held = ", ".join(map(repr, list(self._keys.values())[:10])) or "none"
            raise MissingKeyError(
                f"key {key!r} is not in the table (its keys: {held}{', ...' if len(self) > 10 else ''})"
            )

    def get(
        self, key: Any, default: Any = None, *, candidates: Iterable[Any] | SymbolCodebook | None = None
    ) -> Any:
        """The value of ``key``, as ``dict.get``: ``default`` for a key the table does not
        hold; else the candidate (default: every value seen) nearest to ``unbind(vector,
        key)`` (:meth:`decode` gives its similarity too; ``table[key]`` raises
        :class:`MissingKeyError` for a missing key instead).

        Accuracy: the value is found with the probability of :meth:`expected_accuracy`, the
        planner's ``query="lookup"`` for ``len(self)`` pairs among the candidates; e.g. MAP
        at dim 2,000 with 100 candidate values: 99 % up to about 50 pairs.

        Parameters
        ----------
        key : label
            The key (a label; a vector or another unhashable object is a ``TypeError``).
        default : object, optional
            What a missing key gives (default ``None``).
        candidates : iterable of labels or SymbolCodebook, optional
            The values to clean up among (keyword only; default: every value seen).

        Returns
        -------
        object
            The value's label, or ``default``.
        """
        _check_label_key(self.roles, key)
        if key not in self:
            return default
        return self._value(key, candidates)

    def _value(self, key: Any, candidates: Iterable[Any] | SymbolCodebook | None = None) -> Any:
        """The value of ``key`` (held): the nearest candidate to ``unbind(vector, key)``."""
        noisy = self.model.unbind(self.vector, self.roles[key])
        return codebook(self.fillers, candidates, "values").cleanup(noisy)[0]

    def __getitem__(self, key: Any) -> Any:
        self._check_key(key)
        return self._value(key)

    def decode(
        self, keys: Iterable[Any] | None = None, candidates: Iterable[Any] | SymbolCodebook | None = None
    ) -> dict[Any, tuple[Any, float]]:
        """``{key: (value, similarity)}`` for ``keys`` (default: every key), as
        ``RecordEncoder.decode``: all keys unbound and cleaned up in one similarity matrix
        (accuracy as :meth:`get`).

        Parameters
        ----------
        keys : Iterable[object], optional
            The keys to read; ``None`` for every key.
        candidates : Iterable[object] | SymbolCodebook, optional
            The values to clean up among (a list or a
            :class:`~holovec.encoders.SymbolCodebook`); ``None`` for the values seen.
        """
        keys = self.keys() if keys is None else list(keys)
        for key in keys:
            self._check_key(key)
        if not keys:
            return {}
        noisy = self.model.unbind(self.vector[None, :], self.roles.vectors(keys))
        found = codebook(self.fillers, candidates, "values").cleanup(noisy)
        return dict(zip(keys, found, strict=True))

    def keys(self) -> list[Any]:
        """The keys, in the order they were first stored."""
        return list(self._keys.values())

    def __iter__(self) -> Iterator[Any]:
        return iter(self.keys())

    def __contains__(self, key: Any) -> bool:
        return not is_vector_like(key) and self.roles.digest(key) in self._keys

    def __len__(self) -> int:
        return len(self._keys)

    # -- capacity -----------------------------------------------------------------------
    def expected_accuracy(self, n_candidates: int | None = None) -> float:
        """The planner's accuracy of :meth:`get` at this size (``query="lookup"``), among
        ``n_candidates`` values (default: the values seen).

        Parameters
        ----------
        n_candidates : int, optional
            Number of values to plan for; ``None`` for the values seen.
        """
        n = n_candidates_or(n_candidates, len(self.fillers))
        return planned_accuracy(self.model, n, len(self), "lookup")

    def capacity(self, accuracy: float = 0.99, n_candidates: int | None = None) -> int:
        """The most pairs :meth:`get` reads with ``accuracy`` at this dimension, among
        ``n_candidates`` values (default: the values seen; the planner, ``query="lookup"``).

        Parameters
        ----------
        accuracy : float, optional
            Probability with which each item must read right.
        n_candidates : int, optional
            Number of values to plan for; ``None`` for the values seen.
        """
        n = n_candidates_or(n_candidates, len(self.fillers))
        return planned_capacity(self.model, n, accuracy, "lookup")

    # -- files and repr -------------------------------------------------------------------
    def _state(self) -> tuple[dict[str, Any], dict[str, Any], list[Any] | None]:
        keys = self.keys()
        vector_valued = [i for i, d in enumerate(self._keys) if d in self._vector_valued]
        return {}, {"keys": len(keys), "vector_valued": vector_valued}, keys + self.fillers.labels

    def _restore(self, state: StateFile) -> None:
        n_keys, labels = state.fields["keys"], state.labels or []
        if isinstance(n_keys, bool) or not isinstance(n_keys, int) or not 0 <= n_keys <= len(labels):
            raise ValueError(f"bad number of keys {n_keys!r}")
        keys = labels[:n_keys]
        # no vector drawn at load: the keys' when looked up, the values seen when decoded
        self.roles, self.fillers = self.symbols("role"), self.saved_symbols("filler", labels[n_keys:])
        self._keys = {self.roles.digest(k): k for k in keys}
        if len(self._keys) != n_keys:
            raise ValueError("the keys repeat")
        marked = indices_field(state.fields, "vector_valued", n_keys)
        self._vector_valued = {self.roles.digest(keys[i]) for i in marked}

    def __repr__(self) -> str:
        return f"HashTable({len(self)} keys, model={self.model!r}, seed={self.seed})"
