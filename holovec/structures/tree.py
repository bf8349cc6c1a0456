"""A binary tree held in one vector: the bundle of its leaves, each bound to its path.

A path from the root is a string of ``"l"`` (left) and ``"r"`` (right); a sequence of 0
(left) and 1 (right) is taken too and written as such a string. The path's vector binds
the role vector of each step permuted by its depth, ``bind(permute(role(p0), 0),
permute(role(p1), 1), ...)``, so ``"lr"`` and ``"rl"`` differ. A leaf is
``bind(value, path)``, the record convention of :class:`~holovec.encoders.RecordEncoder`
(filler on the left, role on the right), so ``unbind(tree, path)`` recovers the value for
non-commutative models too. The tree also keeps its leaves (path -> value), so that a leaf
is removed exactly and its value's vector is a cleanup candidate.
"""

from __future__ import annotations

import itertools
from bisect import bisect_left, insort
from collections.abc import Iterable, Mapping
from numbers import Integral
from typing import Any, ClassVar

import numpy as np

from .._format.state import StateFile
from .._params import POSITIVE_INT
from ..encoders import SymbolCodebook
from ..models.base import VSAModel
from ..models.registry import require_capability
from ._items import codebook, distinct, n_candidates_or, planned_accuracy, planned_capacity
from .base import Structure
from .graph import MARK_NEEDS, shift_marks_target

__all__ = ["Tree"]


def _meets(held: list[str], text: str) -> str | None:
    """The path of ``held`` (sorted, prefix-free) that ``text`` equals, lies under or leads
    through, or ``None``: ``O(log n)`` comparisons.

    In sorted order every extension of ``text`` comes right after it, so only the first
    path not below ``text`` can start with it; and a prefix of ``text`` would be the last
    path below it (any path between the two would extend that prefix too, which a
    prefix-free set rules out)."""
    i = bisect_left(held, text)
    if i < len(held) and held[i].startswith(text):
        return held[i]
    if i and text.startswith(held[i - 1]):
        return held[i - 1]
    return None


def _first_clash(ordered: list[str]) -> tuple[str, str] | None:
    """Two paths of ``ordered`` (sorted) one of which is the other or leads through it
    (the shorter first), or ``None`` where the paths are prefix-free: only neighbours need
    comparing, so ``O(n)`` comparisons after the sort."""
    for a, b in itertools.pairwise(ordered):
        if b.startswith(a):
            return a, b
    return None


def _clash_error(text: str, other: str) -> ValueError:
    what = "holds a leaf" if other == text else f"meets the leaf at {other!r}"
    return ValueError(f"the path {text!r} {what}: remove that leaf first")


class Tree(Structure):
    """A binary tree of labelled leaves as one hypervector.

    Parameters
    ----------
    model : VSAModel
        A model whose bundle is a sum and whose bind a permutation does not pass through
        (MAP, MAP-I, MAP-C, BSC, FHRR, VTB, GHRR). Not HRR: its circular convolution
        commutes with the shift, so ``"lr"`` and ``"rl"`` would be one path (a ``TypeError``).
    max_depth : int, optional
        The longest path allowed (default 32; below ``dim``, since a permutation by
        ``dim`` is none).
    seed : int, optional
        Seed of the role and value symbols.

    Notes
    -----
    A leaf may not sit on the path to another leaf (leaves are the ends of paths).
    Capacity: reading a leaf is a key-value lookup among ``k`` leaves and the distinct
    values as candidates, right with the probability
    ``holovec.capacity.accuracy(model, dim, n_values, k, query="lookup")`` (see
    :meth:`expected_accuracy`, :meth:`capacity`).

    Examples
    --------
    >>> from holovec import VSA
    >>> from holovec.structures import Tree
    >>> tree = Tree(VSA.create("FHRR", dim=2000), seed=1)
    >>> tree.add_leaf("ll", "apple")
    >>> tree.add_leaf("lr", "pear")
    >>> tree.add_leaf([1], "fig")
    >>> tree.get("lr"), tree.get("r"), len(tree)
    ('pear', 'fig', 3)
    """

    kind: ClassVar[str] = "tree"

    def __init__(self, model: VSAModel, *, max_depth: int = 32, seed: int | None = None) -> None:
        super().__init__(model, seed=seed)
        require_capability(
            model, "Tree", shift_marks_target, MARK_NEEDS.replace("an edge's target", "a depth")
        )
        self.max_depth = POSITIVE_INT.check("max_depth", max_depth)
        if self.max_depth >= model.dim:
            raise ValueError(f"max_depth must be below dim ({model.dim}), got {max_depth}")
        self.roles = self.symbols("tree-role").codebook(["l", "r"])
        self.values = self.symbols("tree-value")
        self._leaves: dict[str, Any] = {}
        # the leaves' paths in sorted order: a new path is checked against its two
        # neighbours there (see _meets), not against every leaf
        self._sorted: list[str] = []

    # -- paths -----------------------------------------------------------------------------
    def path(self, path: str | Iterable[int]) -> str:
        """``path`` as a string of ``"l"``/``"r"`` (``ValueError`` for another step, an empty
        path or one longer than :attr:`max_depth`).

        Parameters
        ----------
        path : str | Iterable[int]
            A path from the root: a string of ``"l"``/``"r"`` or a sequence of 0 (left) and
            1 (right).
        """
        if isinstance(path, str):
            text = path
        elif isinstance(path, (bytes, Mapping)) or not isinstance(path, Iterable):
            raise TypeError(f"a path is a str of 'l'/'r' or a sequence of 0/1, got {type(path).__name__}")
        else:
            steps = list(path.tolist() if isinstance(path, np.ndarray) else path)
            if any(
                isinstance(s, (bool, np.bool_)) or not isinstance(s, Integral) or s not in (0, 1)
                for s in steps
            ):
                raise ValueError(f"a path given as a sequence holds 0 (left) and 1 (right), got {steps!r}")
            text = "".join("lr"[int(s)] for s in steps)
        if not text or set(text) - {"l", "r"}:
            raise ValueError(f"a path is a non-empty str of 'l' (left) and 'r' (right), got {path!r}")
        if len(text) > self.max_depth:
            raise ValueError(f"the path {text!r} is {len(text)} steps deep; max_depth is {self.max_depth}")
        return text

    def path_vectors(self, paths: Iterable[str | Iterable[int]]) -> Any:
        """The vectors of ``paths``, ``(n, vector_length)``: one bind per depth for all.

        Parameters
        ----------
        paths : Iterable[str | Iterable[int]]
            Paths from the root, each a string of ``"l"``/``"r"`` or a sequence of 0 and 1.
        """
        texts = [self.path(p) for p in paths]
        model, xp = self.model, self.model.xp
        depth = max(map(len, texts))
        # step codes: 0 beyond a path's end (the identity), 1 left, 2 right
        codes = np.zeros((len(texts), depth), dtype=np.int32)
        for i, text in enumerate(texts):
            codes[i, : len(text)] = np.frombuffer(text.encode(), np.uint8) == ord("r")
            codes[i, : len(text)] += 1
        identity = xp.reshape(model.identity(), (1, -1))
        out = None
        for d in range(depth):  # one bind per level, every path at once
            table = xp.concat([identity, model.permute(self.roles.vectors, d)], axis=0)
            step = xp.take(table, model.backend.asarray(codes[:, d]), axis=0)
            out = step if out is None else model.bind(out, step)
        return out

    # -- leaves ------------------------------------------------------------------------------
    def add_leaf(self, path: str | Iterable[int], value: Any) -> None:
        """Put the leaf ``value`` (a label) at ``path``; ``ValueError`` if the path holds a
        leaf, leads through one, or lies under another leaf's path.

        Parameters
        ----------
        path : str | Iterable[int]
            The leaf's path from the root (``"l"``/``"r"`` steps).
        value : object
            The leaf's value (a label).
        """
        self.add_leaves({self.path(path): value})

    def add_leaves(self, leaves: Mapping[Any, Any] | Iterable[tuple[Any, Any]]) -> None:
        """Add many leaves ``{path: value}`` (or ``(path, value)`` pairs) at once.

        Parameters
        ----------
        leaves : Mapping[object, object] | Iterable[tuple[object, object]]
            ``{path: value}``, or ``(path, value)`` pairs.
        """
        pairs = list(leaves.items()) if isinstance(leaves, Mapping) else list(leaves)
        new: dict[str, Any] = {}
        for entry in pairs:
            try:
                raw, value = entry
            except (TypeError, ValueError):
                raise ValueError(f"a leaf is a (path, value) pair, got {entry!r}") from None
            text = self.path(raw)
            self.values.digest(value)  # a TypeError for a label of another type
            if text in new:
                raise _clash_error(text, text)
            other = _meets(self._sorted, text)
            if other is not None:
                raise _clash_error(text, other)
            new[text] = value
        if not new:
            return
        ordered = sorted(new) if len(new) > 1 else list(new)
        clash = _first_clash(ordered)
        if clash is not None:  # two new paths: named in the order given
            first, second = sorted(clash, key=list(new).index)
            raise _clash_error(second, first)
        self._add_new(list(new), list(new.values()))
        self._insert_sorted(ordered)

    def _add_new(self, paths: list[str], values: list[Any]) -> None:
        """Add leaves whose paths are checked (well formed, prefix-free with the rest), in one
        sum; :attr:`_sorted` is the caller's."""
        self._add_items(self._items(paths, values), 1)
        self._leaves.update(zip(paths, values, strict=True))

    def _insert_sorted(self, ordered: list[str]) -> None:
        """Put the sorted new paths ``ordered`` into :attr:`_sorted`."""
        if len(ordered) == 1:
            insort(self._sorted, ordered[0])
        else:  # two sorted runs, which the sort merges in one pass
            self._sorted.extend(ordered)
            self._sorted.sort()

    def _items(self, paths: list[str], values: list[Any]) -> Any:
        return self.model.bind(self.values.vectors(values), self.path_vectors(paths))

    def remove_leaf(self, path: str | Iterable[int]) -> Any:
        """Take the leaf at ``path`` away (exactly) and return its value; ``ValueError`` if
        there is none.

        Parameters
        ----------
        path : str | Iterable[int]
            The leaf's path from the root (``"l"``/``"r"`` steps).
        """
        text = self.path(path)
        if text not in self._leaves:
            raise ValueError(f"no leaf at the path {text!r}")
        value = self._leaves.pop(text)
        del self._sorted[bisect_left(self._sorted, text)]
        self._add_items(self._items([text], [value]), -1)
        return value

    def clear(self) -> None:
        """Remove every leaf."""
        self._leaves.clear()
        self._sorted.clear()
        self._reset()

    def __len__(self) -> int:
        return len(self._leaves)

    def __contains__(self, path: Any) -> bool:
        return self.path(path) in self._leaves

    @property
    def leaves(self) -> dict[str, Any]:
        """The leaves added (and not removed): ``{path: value}``."""
        return dict(self._leaves)

    @property
    def depth(self) -> int:
        """The length of the longest path (0 for an empty tree)."""
        return max(map(len, self._leaves), default=0)

    # -- reading the vector ------------------------------------------------------------------
    def decode(
        self, paths: Iterable[Any] | None = None, candidates: Iterable[Any] | SymbolCodebook | None = None
    ) -> dict[str, tuple[Any, float]]:
        """Read the leaves at ``paths`` (default: every leaf's path) from the vector:
        ``{path: (value, similarity)}``, each the nearest of ``candidates`` (default: the
        values of the leaves) to ``unbind(vector, path)``, all paths in one similarity
        matrix. A path without a leaf gives noise: an unrelated value of low similarity.
        Each value is right with the probability :meth:`expected_accuracy`
        (``holovec.capacity.accuracy(..., query="lookup")``).

        Parameters
        ----------
        paths : Iterable[object], optional
            The paths to read; ``None`` for every leaf's path.
        candidates : Iterable[object] | SymbolCodebook, optional
            The values to clean up among (a list or a
            :class:`~holovec.encoders.SymbolCodebook`); ``None`` for the leaves' values.
        """
        texts = list(self._leaves) if paths is None else [self.path(p) for p in paths]
        if not texts:
            return {}
        if candidates is None and not self._leaves:
            raise ValueError("no candidate values: the tree is empty (give candidates=...)")
        if candidates is None:
            book = self.values.codebook(distinct(self.values, self._leaves.values()))
        else:
            book = codebook(self.values, candidates, "values")
        noisy = self.model.unbind(self.vector[None, :], self.path_vectors(texts))
        found = book.cleanup(noisy)
        return dict(zip(texts, found, strict=True))

    def get(self, path: str | Iterable[int], candidates: Iterable[Any] | SymbolCodebook | None = None) -> Any:
        """The value of the leaf at ``path``, read from the vector among ``candidates``
        (default: the leaves' values; :meth:`decode`, right with the probability
        :meth:`expected_accuracy`); ``ValueError`` if the path holds no leaf.

        Parameters
        ----------
        path : str | Iterable[int]
            The leaf's path from the root (``"l"``/``"r"`` steps).
        candidates : Iterable[object] | SymbolCodebook, optional
            The values to clean up among (a list or a
            :class:`~holovec.encoders.SymbolCodebook`); ``None`` for the leaves' values.
        """
        text = self.path(path)
        if text not in self._leaves:
            shown = ", ".join(map(repr, list(self._leaves)[:10]))
            raise ValueError(f"no leaf at the path {text!r} (the leaves' paths: {shown or 'none'})")
        return self.decode([text], candidates)[text][0]

    # -- capacity ------------------------------------------------------------------------------
    def expected_accuracy(self, n_candidates: int | None = None) -> float:
        """The planner's probability that one leaf reads right at this size: ``k`` leaves
        bound to their paths, cleaned up among ``n_candidates`` values (default: the
        distinct values of the leaves), ``holovec.capacity.accuracy(..., query="lookup")``.

        Parameters
        ----------
        n_candidates : int, optional
            Number of values to plan for; ``None`` for the leaves' distinct values.
        """
        n = n_candidates_or(n_candidates, len(distinct(self.values, self._leaves.values())))
        return planned_accuracy(self.model, n, len(self), "lookup")

    def capacity(self, accuracy: float = 0.99, n_candidates: int | None = None) -> int:
        """The most leaves read right with probability ``accuracy`` each at this dimension,
        among ``n_candidates`` values (default: the leaves' distinct values;
        ``holovec.capacity.max_items(..., query="lookup")``).

        Parameters
        ----------
        accuracy : float, optional
            Probability with which each item must read right.
        n_candidates : int, optional
            Number of values to plan for; ``None`` for the leaves' distinct values.
        """
        n = n_candidates_or(n_candidates, len(distinct(self.values, self._leaves.values())))
        return planned_capacity(self.model, n, accuracy, "lookup")

    # -- repr and files ------------------------------------------------------------------------
    def __repr__(self) -> str:
        return f"Tree({len(self)} leaves, depth {self.depth}, model={self.model!r}, seed={self.seed})"

    def _state(self) -> tuple[dict[str, Any], dict[str, Any], list[Any] | None]:
        paths = list(self._leaves)
        return {}, {"max_depth": self.max_depth, "paths": paths}, list(self._leaves.values())

    def _restore(self, state: StateFile) -> None:
        depth, paths = state.fields.get("max_depth"), state.fields.get("paths")
        if (
            not isinstance(depth, int)
            or not isinstance(paths, list)
            or not all(isinstance(p, str) for p in paths)
        ):
            raise ValueError("bad fields in the record (max_depth, paths)")
        values = state.labels or []
        if len(values) != len(paths):
            raise ValueError(f"the record lists {len(values)} values for {len(paths)} paths")
        sums = state.arrays["sums"]
        if tuple(sums.shape) != (self.model.dim,):
            raise ValueError(f"the sum has shape {tuple(sums.shape)}, expected ({self.model.dim},)")
        Tree.__init__(self, self.model, max_depth=depth, seed=self.seed)
        # what needs no vector first (the paths, the values' labels, prefix-freedom by one
        # sort), so that a file that lists bad leaves is refused before any is added
        texts = [self.path(p) for p in paths]
        for value in values:
            self.values.digest(value)  # a TypeError for a label of another type
        ordered = sorted(texts)
        clash = _first_clash(ordered)
        if clash is not None:
            raise _clash_error(clash[1], clash[0])
        self._add_saved(list(zip(texts, values, strict=True)), self._add_saved_leaves, 3, sums, "leaves")
        self._sorted = ordered

    def _add_saved_leaves(self, leaves: list[tuple[str, Any]]) -> None:
        """Add a block of a loaded file's leaves (checked already)."""
        self._add_new([p for p, _ in leaves], [v for _, v in leaves])

    def _forget_symbols(self) -> None:
        self.values = self.symbols("tree-value")
