"""A multiset (a bag of symbols with counts) held in one hypervector."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

import numpy as np

from .._format.state import StateFile
from .._params import POSITIVE_INT, Interval
from ..encoders import SymbolCodebook
from ..models.base import VSAModel
from ._items import (
    codebook,
    item_vector,
    item_vectors,
    n_candidates_or,
    planned_accuracy,
    planned_capacity,
    real_dot,
)
from .base import Structure, count_field

__all__ = ["Multiset"]


class Multiset(Structure):
    """A multiset as one vector: the bundle of its items, each as often as it was added.

    Items are labels (vectors of the structure's symbol table, namespace ``""``: a
    multiset of distinct labels is ``model.bundle`` of ``SymbolTable(model, seed=s)``'s
    vectors) or vectors of the model. The sum of the items' lifted forms is kept, so
    adding and removing are exact; :attr:`vector` is the finished bundle.

    Reads: :meth:`count` and ``in`` from the sum, :meth:`members` (the nearest candidates
    of :attr:`vector`) and :meth:`decode` (every candidate's count), among the labels seen
    or the ``candidates`` given. Capacity: :meth:`expected_accuracy` and :meth:`capacity`
    (the planner :mod:`holovec.capacity`, ``query="member"``).

    Parameters
    ----------
    model : VSAModel
        A model whose bundle is a sum (``bundle_is_sum``: MAP, MAP-I, MAP-C, BSC, FHRR,
        HRR, VTB, GHRR).
    items : Iterable[object], optional
        Items to add at once (labels or vectors; repeats count).
    seed : int, optional
        The seed of the symbols (``None``: fresh).

    Examples
    --------
    >>> from holovec import VSA
    >>> from holovec.structures import Multiset
    >>> model = VSA.create("MAP", dim=4000)
    >>> bag = Multiset(model, ["apple", "pear", "apple"], seed=1)
    >>> round(bag.count("apple")), "pear" in bag, "plum" in bag, len(bag)
    (2, True, False, 3)
    >>> bag.remove("apple")
    >>> bag.decode(candidates=["apple", "pear", "plum"])
    {'apple': 1, 'pear': 1}
    """

    kind: ClassVar[str] = "multiset"
    #: the estimated count above which an item is a member: halfway between absent (0) and
    #: present once (1), so both errors are equally rare (see :meth:`count`)
    threshold: ClassVar[float] = 0.5

    def __init__(
        self, model: VSAModel, items: Iterable[Any] | None = None, *, seed: int | None = None
    ) -> None:
        super().__init__(model, seed=seed)
        self.table = self.symbols("")
        self.size = 0
        if items is not None:
            self.update(items)

    # -- changes ------------------------------------------------------------------------
    def add(self, item: Any, count: int = 1) -> None:
        """Add ``item`` (a label or a vector) ``count`` times (an int >= 1).

        Parameters
        ----------
        item : object
            A label, or a vector of the model.
        count : int, optional
            How many times to add it (an int >= 1).
        """
        count = POSITIVE_INT.check("count", count)
        self._change(item, count, 1)
        self.size += count

    def update(self, items: Iterable[Any]) -> None:
        """Add each of ``items`` once (repeats count), in one sum.

        Parameters
        ----------
        items : Iterable[object]
            Labels or vectors of the model, each added once.
        """
        if isinstance(items, (str, bytes)) or not isinstance(items, Iterable):
            raise TypeError(
                f"update takes an iterable of items, got {type(items).__name__} (for one item: add)"
            )
        items = list(items)
        if items:
            self._add_items(item_vectors(self.model, self.table, items, "item"))
            self.size += len(items)

    def remove(self, item: Any, count: int = 1) -> None:
        """Take ``item`` away ``count`` times: the exact inverse of :meth:`add`. ``ValueError``
        for more items than the multiset holds (the sum cannot tell which were added; an
        item never added leaves the sum off by ``-count`` of it).

        Parameters
        ----------
        item : object
            A label, or a vector of the model.
        count : int, optional
            How many times to take it away (an int >= 1).
        """
        count = POSITIVE_INT.check("count", count)
        if count > self.size:
            raise ValueError(f"cannot remove {count} items from a multiset of {self.size}")
        self._change(item, count, -1)
        self.size -= count

    def clear(self) -> None:
        """Remove every item (the labels seen stay candidates of the decodes)."""
        self._reset()
        self.size = 0

    def _change(self, item: Any, count: int, sign: int) -> None:
        """Add (``sign`` 1) or take away (-1) ``count`` copies of ``item``: one scaled lift."""
        lifted = self.model.lift(item_vector(self.model, self.table, item, "item"))
        total = lifted if count == 1 else lifted * count
        self.sums = self.sums + total if sign > 0 else self.sums - total
        self._vector = None

    # -- reads --------------------------------------------------------------------------
    def count(self, item: Any) -> Any:
        """The estimated number of times ``item`` (a label or vector; or a list of them:
        a list of counts) was added: ``Re <lift(x), sums> / <lift(x), lift(x)>``.

        Accuracy: the estimate is the true count plus noise of spread about
        ``sqrt(sum_j c_j**2 / dim)`` over the other items' counts ``c_j`` (half that
        variance for the complex models); e.g. 100 distinct items at dim 10,000: 0.1.

        Parameters
        ----------
        item : object
            A label or a vector of the model, or a list of them.
        """
        many = isinstance(item, list)
        vectors = item_vectors(self.model, self.table, item if many else [item], "item", remember=False)
        lifted = self.model.lift(vectors)
        dots = real_dot(self.model, lifted, self.sums[None, :]) / real_dot(self.model, lifted, lifted)
        counts = self.model.backend.to_numpy(dots).astype(np.float64)
        return counts.tolist() if many else float(counts[0])

    def __contains__(self, item: Any) -> bool:
        """Whether :meth:`count` is above :attr:`threshold` (0.5). Errors either way have
        probability about ``Phi(-0.5 / spread)`` (the spread of :meth:`count`): 1 in 3.5
        million at spread 0.1 (100 items at dim 10,000)."""
        return self.count(item) > self.threshold

    def __len__(self) -> int:
        return self.size

    def members(self, k: int | None = None, candidates: Iterable[Any] | SymbolCodebook | None = None) -> list:
        """The ``k`` candidates most similar to :attr:`vector` (default ``k``: the number of
        items, at most the candidates), ``[(label, similarity), ...]`` best first.

        Accuracy (distinct items): a member is among them with the probability of
        :meth:`expected_accuracy`, the planner's ``query="member"`` for ``len(self)`` items
        among the candidates; e.g. MAP at dim 800: 15 items among 1,000 candidates, 99 %.

        Parameters
        ----------
        k : int, optional
            Number of members to return; ``None`` for the number of items (at most the
            candidates).
        candidates : Iterable[object] | SymbolCodebook, optional
            The labels to clean up among (a list or a
            :class:`~holovec.encoders.SymbolCodebook`); ``None`` for the labels seen.
        """
        book = codebook(self.table, candidates, "items")
        k = min(self.size, len(book)) if k is None else Interval(1, len(book), integral=True).check("k", k)
        if k == 0:
            return []
        found = book.cleanup(self.vector, k)
        return found if k > 1 else [found]

    def decode(self, candidates: Iterable[Any] | SymbolCodebook | None = None) -> dict[Any, int]:
        """``{label: count}`` of the candidates (default: the labels seen) whose estimated
        :meth:`count` rounds to 1 or more, in the candidates' order; the counts rounded.
        Accuracy: that of :meth:`count` (and ``in``) for each candidate.

        Parameters
        ----------
        candidates : Iterable[object] | SymbolCodebook, optional
            The labels to clean up among (a list or a
            :class:`~holovec.encoders.SymbolCodebook`); ``None`` for the labels seen.
        """
        book = codebook(self.table, candidates, "items")
        counts = np.rint(np.asarray(self.count(list(book.labels))))
        return {label: int(c) for label, c in zip(book.labels, counts, strict=True) if c >= 1}

    # -- capacity -----------------------------------------------------------------------
    def expected_accuracy(self, n_candidates: int | None = None) -> float:
        """The planner's accuracy of :meth:`members` at this size (``query="member"``), among
        ``n_candidates`` (default: the labels seen).

        Parameters
        ----------
        n_candidates : int, optional
            Number of candidates to plan for; ``None`` for the labels seen.
        """
        n = n_candidates_or(n_candidates, len(self.table))
        return planned_accuracy(self.model, n, self.size, "member")

    def capacity(self, accuracy: float = 0.99, n_candidates: int | None = None) -> int:
        """The most items :meth:`members` finds with ``accuracy`` at this dimension, among
        ``n_candidates`` (default: the labels seen; the planner, ``query="member"``).

        Parameters
        ----------
        accuracy : float, optional
            Probability with which each item must read right.
        n_candidates : int, optional
            Number of candidates to plan for; ``None`` for the labels seen.
        """
        n = n_candidates_or(n_candidates, len(self.table))
        return planned_capacity(self.model, n, accuracy, "member")

    # -- files and repr -------------------------------------------------------------------
    def _state(self) -> tuple[dict[str, Any], dict[str, Any], list[Any] | None]:
        return {}, {"size": self.size}, self.table.labels

    def _restore(self, state: StateFile) -> None:
        size = count_field(state.fields, "size")
        self.table = self.saved_symbols("", state.labels or [])  # drawn when first needed
        self.size = size

    def __repr__(self) -> str:
        seen = len(self.table)
        return f"Multiset({self.size} items, {seen} labels seen, model={self.model!r}, seed={self.seed})"
