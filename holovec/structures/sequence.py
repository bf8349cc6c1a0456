"""Sequences, stacks and queues held in one hypervector: positions by permutation.

Item ``i`` of a sequence is ``permute(x_i, i)``, as
:class:`holovec.encoders.PositionBindingEncoder` (``method="permute"``) writes it, with the
same symbols (the table of the seed, namespace ``""``): a sequence's vector equals that
encoder's encoding of its items. A stack holds its items bottom first (its top is the last
position) and a queue front first, so each of their operations is one permutation and one
add: push / enqueue add ``permute(x, len)``; pop removes ``permute(x, len - 1)``; dequeue
removes ``x`` at position 0 and permutes the sum back by one.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, ClassVar

import numpy as np

from .._format.state import StateFile
from .._params import INT
from ..backends.shapes import padded_length
from ..encoders import SymbolCodebook
from ..models.base import VSAModel
from ._items import (
    codebook,
    is_vector_like,
    item_vector,
    item_vectors,
    n_candidates_or,
    permute_rows,
    permute_sums,
    planned_accuracy,
    planned_capacity,
)
from .base import Structure, count_field, indices_field

__all__ = ["EmptyStructureError", "Queue", "Sequence", "Stack"]

Candidates = Iterable[Any] | SymbolCodebook | None


class EmptyStructureError(IndexError, ValueError):
    """Pop, peek or dequeue of an empty structure (an ``IndexError``, as for a list, and a
    ``ValueError``, as for every bad input in holovec)."""


class Sequence(Structure):
    """A sequence as one vector: the bundle of ``permute(x_i, i)`` (see the module).

    Items are labels or vectors of the model. :meth:`index` (and ``seq[i]``) reads a
    position: ``permute(vector, -i)`` cleaned up among the labels seen (or the
    ``candidates`` given), ``(label, similarity)``; :meth:`decode` reads them all in one
    similarity matrix. Permutations repeat with the model's period (``dim`` for the dense
    models, the number of blocks for GHRR): longer sequences alias. Capacity:
    :meth:`capacity`, :meth:`expected_accuracy` (the planner, ``query="lookup"``: reading
    a position is reading one of ``len`` superposed, decorrelated items).

    Parameters
    ----------
    model : VSAModel
        The model whose vectors hold the structure.
    items : Iterable[object], optional
        The first items (labels or vectors; a str: its characters); ``None`` for an empty
        sequence.
    seed : int, optional
        Seed of the structure's symbols; ``None`` draws them from the model's generator.

    Examples
    --------
    >>> from holovec import VSA
    >>> from holovec.structures import Sequence
    >>> model = VSA.create("MAP", dim=2000)
    >>> word = Sequence(model, "bad", seed=1)
    >>> word.append("g")
    >>> word[3], len(word)
    ('g', 4)
    >>> word.concatenate(Sequence(model, "es", seed=1)).decode(return_similarity=False)
    ['b', 'a', 'd', 'g', 'e', 's']
    """

    kind: ClassVar[str] = "sequence"

    def __init__(
        self, model: VSAModel, items: Iterable[Any] | None = None, *, seed: int | None = None
    ) -> None:
        super().__init__(model, seed=seed)
        self.table = self.symbols("")
        self.size = 0
        self._shift_maps: dict[int, Any] = {}
        self._vector_at: set[int] = set()  # positions of items given as vectors
        if items is not None:
            self.extend(items)

    # -- changes ------------------------------------------------------------------------
    def append(self, item: Any) -> None:
        """Add ``item`` (a label or a vector) at the end: ``permute(x, len)``.

        Parameters
        ----------
        item : object
            A label, or a vector of the model.
        """
        vector = item_vector(self.model, self.table, item, "item")
        if self.model.backend.static_shapes:
            # a backend that compiles a permutation per shift (JAX) would compile one per
            # append: the shift as its powers of two instead, a program each (as extend)
            self._add_items(permute_rows(self.model, vector[None, :], np.asarray([self.size])))
        else:
            self._add_items(self.model.permute(vector, self.size)[None, :])
        if is_vector_like(item):
            self._vector_at.add(self.size)
        self.size += 1

    def extend(self, items: Iterable[Any]) -> None:
        """Append every item (a str: its characters), permuted and summed together.

        Parameters
        ----------
        items : Iterable[object]
            Labels or vectors of the model (a str: its characters).
        """
        items = list(items)
        if items:
            vectors = item_vectors(self.model, self.table, items, "item")
            self._add_items(permute_rows(self.model, vectors, self.size + np.arange(len(items))))
            self._vector_at.update(self.size + i for i, x in enumerate(items) if is_vector_like(x))
            self.size += len(items)

    def pop(self, item: Any = None) -> Any:
        """Remove the last item and return it: the item given (a label or vector; needed
        where the item was given as a vector: ``ValueError`` without it), else the label
        :meth:`index` decodes (the stored one within the capacity).

        Parameters
        ----------
        item : object, optional
            The last item (a label or a vector); ``None`` decodes it. Needed where it was
            given as a vector.
        """
        return self._take(self.size - 1, item)

    def _take(self, position: int, item: Any) -> Any:
        """Remove the item at ``position`` (its vector given or decoded), without moving the others."""
        if self.size == 0:
            raise EmptyStructureError(f"cannot take an item from an empty {type(self).__name__.lower()}")
        model = self.model
        if item is None and position in self._vector_at:
            raise ValueError(
                f"the item at position {position} was given as a vector, which no label decodes: "
                "give it (pop(item) / dequeue(item)) to take it away"
            )
        if item is None:
            item = codebook(self.table, None, "items").cleanup(model.permute(self.vector, -position))[0]
        vector = item_vector(model, self.table, item, "item")
        self._add_items(model.permute(vector, position)[None, :], -1)
        self.size -= 1
        self._vector_at.discard(position)
        return item

    def clear(self) -> None:
        """Remove every item (the labels seen stay candidates of the decodes)."""
        self._reset()
        self.size = 0
        self._vector_at.clear()

    def concatenate(self, other: Sequence) -> Sequence:
        """A new sequence: this one's items, then ``other``'s (its sum permuted by
        ``len(self)``). ``other`` must have the same model and seed (the same symbols).

        Parameters
        ----------
        other : Sequence
            A sequence of the same model and seed.
        """
        if not isinstance(other, Sequence):
            raise TypeError(f"concatenate takes a Sequence, got {type(other).__name__}")
        if other.model != self.model or other.seed != self.seed:
            raise ValueError("concatenate needs sequences of the same model and seed (the same symbols)")
        out = Sequence(self.model, seed=self.seed)
        out.table.vectors(self.table.labels + other.table.labels)
        out.sums = self.sums + permute_sums(self.model, other.sums, self.size, self._shift_maps)
        out.size = self.size + other.size
        out._vector_at = self._vector_at | {self.size + i for i in other._vector_at}
        return out

    # -- reads --------------------------------------------------------------------------
    def _position(self, i: Any) -> int:
        i = INT.check("index", i)
        if not -self.size <= i < self.size:
            raise IndexError(
                f"index {i} out of range for a {type(self).__name__.lower()} of {self.size} items"
            )
        return i % self.size

    def index(self, i: int, candidates: Candidates = None) -> tuple[Any, float]:
        """The item at position ``i`` (negative: from the end), ``(label, similarity)``:
        ``permute(vector, -i)`` cleaned up among the candidates (default: labels seen).

        Accuracy: the item is found with the probability of :meth:`expected_accuracy`
        (the planner's ``query="lookup"`` for ``len(self)`` items among the candidates);
        e.g. MAP at dim 2,000 with 26 candidate symbols: 99 % up to about 60 items.

        Parameters
        ----------
        i : int
            The position (negative: from the end).
        candidates : Candidates, optional
            The labels to clean up among (a list or a
            :class:`~holovec.encoders.SymbolCodebook`); ``None`` for the labels seen.
        """
        i = self._position(i)
        return codebook(self.table, candidates, "items").cleanup(self.model.permute(self.vector, -i))

    def __getitem__(self, i: int) -> Any:
        return self.index(i)[0]

    def decode(self, candidates: Candidates = None, *, return_similarity: bool = True) -> list:
        """Every position, first to last: ``[(label, similarity), ...]`` (labels alone with
        ``return_similarity=False``), in one similarity matrix (accuracy as :meth:`index`).

        Parameters
        ----------
        candidates : Candidates, optional
            The labels to clean up among (a list or a
            :class:`~holovec.encoders.SymbolCodebook`); ``None`` for the labels seen.
        return_similarity : bool, optional
            Whether each label comes with its similarity, as ``(label, similarity)``.
        """
        if self.size == 0:
            return []
        # one row per position, padded to a shape class where each new shape compiles (the
        # rows past the last position are read at shift 0 and dropped)
        rows = padded_length(self.model.backend, self.size)
        copies = self.model.xp.broadcast_to(self.vector[None, :], (rows, self.model.vector_length))
        shifts = np.concatenate([-np.arange(self.size), np.zeros(rows - self.size, dtype=np.int64)])
        queries = permute_rows(self.model, copies, shifts)
        found = codebook(self.table, candidates, "items").cleanup(queries)[: self.size]
        return found if return_similarity else [label for label, _ in found]

    def __iter__(self) -> Iterator[Any]:
        return iter(self.decode(return_similarity=False))

    def __len__(self) -> int:
        return self.size

    # -- capacity -----------------------------------------------------------------------
    def expected_accuracy(self, n_candidates: int | None = None) -> float:
        """The planner's accuracy of :meth:`index` at this length (``query="lookup"``),
        among ``n_candidates`` (default: the labels seen).

        Parameters
        ----------
        n_candidates : int, optional
            Number of candidates to plan for; ``None`` for the labels seen.
        """
        n = n_candidates_or(n_candidates, len(self.table))
        return planned_accuracy(self.model, n, self.size, "lookup")

    def capacity(self, accuracy: float = 0.99, n_candidates: int | None = None) -> int:
        """The longest sequence whose positions :meth:`index` reads with ``accuracy`` at this
        dimension, among ``n_candidates`` (default: the labels seen).

        Parameters
        ----------
        accuracy : float, optional
            Probability with which each item must read right.
        n_candidates : int, optional
            Number of candidates to plan for; ``None`` for the labels seen.
        """
        n = n_candidates_or(n_candidates, len(self.table))
        return planned_capacity(self.model, n, accuracy, "lookup")

    # -- files and repr -------------------------------------------------------------------
    def _state(self) -> tuple[dict[str, Any], dict[str, Any], list[Any] | None]:
        return {}, {"size": self.size, "vector_at": sorted(self._vector_at)}, self.table.labels

    def _restore(self, state: StateFile) -> None:
        size = count_field(state.fields, "size")
        self.table = self.saved_symbols("", state.labels or [])  # drawn when first needed
        self.size = size
        self._shift_maps = {}
        self._vector_at = set(indices_field(state.fields, "vector_at", size))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.size} items, model={self.model!r}, seed={self.seed})"


class Stack(Sequence):
    """A stack: a :class:`Sequence` with its bottom at position 0 and its top at the end.

    :meth:`push` adds ``permute(x, len)``, :meth:`pop` decodes and removes the top
    (``permute(x, len - 1)``), :meth:`peek` decodes it: one permutation and one add
    each. Accuracy and capacity as :class:`Sequence`.

    Parameters
    ----------
    model : VSAModel
        The model whose vectors hold the structure.
    items : Iterable[object], optional
        The first items, bottom first (labels or vectors; a str: its characters); ``None``
        for an empty stack.
    seed : int, optional
        Seed of the structure's symbols; ``None`` draws them from the model's generator.

    Examples
    --------
    >>> from holovec import VSA
    >>> from holovec.structures import Stack
    >>> stack = Stack(VSA.create("BSC", dim=4000), seed=2)
    >>> for plate in ["red", "green", "blue"]:
    ...     stack.push(plate)
    >>> stack.pop(), stack.peek(), len(stack)
    ('blue', 'green', 2)
    """

    kind: ClassVar[str] = "stack"

    def push(self, item: Any) -> None:
        """Put ``item`` (a label or a vector) on top.

        Parameters
        ----------
        item : object
            A label, or a vector of the model.
        """
        self.append(item)

    def peek(self, candidates: Candidates = None) -> Any:
        """The top item (its label, decoded), left in place.

        Parameters
        ----------
        candidates : Candidates, optional
            The labels to clean up among (a list or a
            :class:`~holovec.encoders.SymbolCodebook`); ``None`` for the labels seen.
        """
        if self.size == 0:
            raise EmptyStructureError("cannot peek at an empty stack")
        return self.index(-1, candidates)[0]


class Queue(Sequence):
    """A first-in first-out queue: a :class:`Sequence` with its front at position 0.

    :meth:`enqueue` adds ``permute(x, len)`` at the back; :meth:`dequeue` decodes the front
    (position 0, no permutation), takes it away and permutes the sum back by one, so the
    next item is at position 0: one permutation and one add each. Accuracy and capacity
    as :class:`Sequence`.

    Parameters
    ----------
    model : VSAModel
        The model whose vectors hold the structure.
    items : Iterable[object], optional
        The first items, front first (labels or vectors; a str: its characters); ``None``
        for an empty queue.
    seed : int, optional
        Seed of the structure's symbols; ``None`` draws them from the model's generator.

    Examples
    --------
    >>> from holovec import VSA
    >>> from holovec.structures import Queue
    >>> queue = Queue(VSA.create("FHRR", dim=1000), ["ann", "bob"], seed=3)
    >>> queue.enqueue("cy")
    >>> queue.dequeue(), queue.peek(), len(queue)
    ('ann', 'bob', 2)
    """

    kind: ClassVar[str] = "queue"

    def enqueue(self, item: Any) -> None:
        """Add ``item`` (a label or a vector) at the back.

        Parameters
        ----------
        item : object
            A label, or a vector of the model.
        """
        self.append(item)

    def dequeue(self, item: Any = None) -> Any:
        """Remove the front item and return it (the item given, as :meth:`Sequence.pop`, or
        the label decoded).

        Parameters
        ----------
        item : object, optional
            The front item (a label or a vector); ``None`` decodes it. Needed where it was
            given as a vector.
        """
        found = self._take(0, item)
        self.sums = permute_sums(self.model, self.sums, -1, self._shift_maps)
        self._vector_at = {i - 1 for i in self._vector_at}
        self._vector = None
        return found

    def peek(self, candidates: Candidates = None) -> Any:
        """The front item (its label, decoded), left in place.

        Parameters
        ----------
        candidates : Candidates, optional
            The labels to clean up among (a list or a
            :class:`~holovec.encoders.SymbolCodebook`); ``None`` for the labels seen.
        """
        if self.size == 0:
            raise EmptyStructureError("cannot peek at an empty queue")
        return self.index(0, candidates)[0]
