"""A graph held in one vector: the bundle of its edges, as :class:`~holovec.encoders.GraphEncoder`
encodes them.

Same node table and edge convention as the encoder: an undirected edge ``{u, v}`` is
``bind(v, u)`` (and ``bind(u, v)`` too for a non-commutative model), a directed edge
``u -> v`` is ``bind(permute(v, 1), u)``. So ``Graph(model, directed, seed=s).vector`` is
``GraphEncoder(model, directed, seed=s).encode(edges)``. The graph also keeps its edge list,
so that edges are removed exactly and the nodes are known as cleanup candidates.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, ClassVar

import numpy as np

from .._format.state import StateFile
from .._params import FINITE, FLAG, NON_NEGATIVE_INT, POSITIVE_INT
from ..encoders import GraphEncoder
from ..models.base import VSAModel
from ..models.registry import require_capability
from ._items import distinct, planned_accuracy, planned_capacity
from .base import Structure

__all__ = ["Graph"]

#: the default edge threshold in units of 1/sqrt(dim) (the encoder's): an unrelated
#: vector's similarity is about N(0, 1/dim), so a false edge passes with p ~ 3.4e-6
_Z = 4.5


MARK_NEEDS = "a bind that the shift marking an edge's target does not pass through"


def shift_marks_target(model: Any) -> bool:
    """Whether ``permute`` marks a directed edge's target: the model keeps its bundles as
    sums and a permutation does not pass through its bind (the declared capability
    ``bind_commutes_with_permute``, True for HRR, whose directed edges would read both
    ways). Reads class attributes only, so it applies to model classes too."""
    return bool(model.bundle_is_sum) and not model.bind_commutes_with_permute


class Graph(Structure):
    """A directed or undirected graph as one hypervector (node labels are seeded symbols).

    Parameters
    ----------
    model : VSAModel
        A model whose bundle is a sum (``bundle_is_sum``: MAP, MAP-I, MAP-C, BSC, FHRR, HRR,
        VTB, GHRR).
    directed : bool, optional
        Directed edges ``u -> v`` (default: undirected ``{u, v}``). In-neighbours of a
        directed graph need a commutative model (not VTB, GHRR); directed graphs need a
        bind that the target's shift does not pass through (not HRR: a ``TypeError``).
    seed : int, optional
        Seed of the node symbols (the ``GraphEncoder`` of this seed encodes the same vector).

    Notes
    -----
    Capacity: with ``E`` edges, a present edge scores about ``1/sqrt(E)`` against the
    graph (MAP, BSC: ``sqrt(2/(pi E))``), an absent one ``N(0, 1/dim)``: :meth:`has_edge`'s
    default threshold ``4.5/sqrt(dim)`` keeps false edges near 3 in a million, and misses
    half the true ones at ``E = 2 dim/(pi 4.5^2)``, about ``dim/32`` (MAP); :meth:`decode`
    (the ``E`` best node pairs) finds each edge with the probability
    ``holovec.capacity.accuracy(model, dim, n_pairs, E)`` (undirected edges of VTB and GHRR,
    held both ways: the ``"symmetric"`` query; :meth:`expected_accuracy`, :meth:`capacity`).

    Examples
    --------
    >>> from holovec import VSA
    >>> from holovec.structures import Graph
    >>> g = Graph(VSA.create("MAP", dim=4000), seed=1)
    >>> g.add_edges([("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")])
    >>> sorted(label for label, _ in g.neighbours("c"))
    ['a', 'b', 'd']
    >>> g.has_edge("a", "d"), len(g)
    (False, 4)
    """

    kind: ClassVar[str] = "graph"

    def __init__(self, model: VSAModel, directed: bool = False, *, seed: int | None = None) -> None:
        super().__init__(model, seed=seed)
        self.directed = FLAG.check("directed", directed)
        if self.directed:
            require_capability(model, "Graph(directed=True)", shift_marks_target, MARK_NEEDS)
        self.encoder = GraphEncoder(model, self.directed, seed=self.seed)
        # the edges in insertion order, keyed by their nodes' digests: nodes are the same when
        # their symbols are (1, 1.0 and True are three nodes, which Python's equality mixes)
        self._edges: dict[tuple[int, int], tuple[Any, Any]] = {}

    # -- edges ---------------------------------------------------------------------------
    def _key(self, u: Any, v: Any) -> tuple[int, int]:
        """The edge's key: its nodes' digests, for an undirected edge in the stored order."""
        digest = self.encoder.nodes.digest
        key = (digest(u), digest(v))
        if not self.directed and key[::-1] in self._edges:
            return key[::-1]
        return key

    def _pairs(self, edges: Iterable[Any]) -> list[tuple[Any, Any]]:
        out = []
        digest = self.encoder.nodes.digest
        for edge in edges:
            try:
                u, v = edge
            except (TypeError, ValueError):
                raise ValueError(f"an edge is a pair (u, v) of node labels, got {edge!r}") from None
            du, dv = digest(u), digest(v)  # a TypeError for bad labels
            if not self.directed and du == dv:
                raise ValueError(
                    f"an undirected self-loop ({u!r}, {u!r}) is bind(u, u), the identity for "
                    "self-inverse models and alike for every node: use Graph(model, directed=True)"
                )
            out.append((u, v))
        return out

    def add_edge(self, u: Any, v: Any) -> None:
        """Add the edge ``u -> v`` (undirected: ``{u, v}``); ``ValueError`` if it is there.

        Parameters
        ----------
        u : object
            The edge's source node (a label).
        v : object
            The edge's target node (a label).
        """
        self.add_edges([(u, v)])

    def add_edges(self, edges: Iterable[tuple[Any, Any]]) -> None:
        """Add many edges at once (one bind, one sum); ``ValueError`` for an edge already in
        the graph or given twice (a graph is a set of edges).

        Parameters
        ----------
        edges : Iterable[tuple[object, object]]
            ``(u, v)`` pairs of node labels.
        """
        pairs = self._pairs(edges)
        new: dict[tuple[int, int], tuple[Any, Any]] = {}
        for u, v in pairs:
            key = self._key(u, v)
            if key in self._edges or key in new or (not self.directed and key[::-1] in new):
                raise ValueError(f"the edge {(u, v)!r} is already in the graph")
            new[key] = (u, v)
        if not pairs:
            return
        self._add_items(self.encoder.edge_vectors(pairs), 1)
        self._edges.update(new)

    def remove_edge(self, u: Any, v: Any) -> None:
        """Take the edge away (exactly: its vectors leave the sum); ``ValueError`` if absent.

        Parameters
        ----------
        u : object
            The edge's source node (a label).
        v : object
            The edge's target node (a label).
        """
        self.remove_edges([(u, v)])

    def remove_edges(self, edges: Iterable[tuple[Any, Any]]) -> None:
        """Take many edges away at once; ``ValueError`` naming an edge not in the graph.

        Parameters
        ----------
        edges : Iterable[tuple[object, object]]
            ``(u, v)`` pairs of node labels.
        """
        pairs = self._pairs(edges)
        keys = [self._key(u, v) for u, v in pairs]
        missing = [pair for pair, k in zip(pairs, keys, strict=True) if k not in self._edges]
        if missing or len(set(keys)) < len(keys):
            bad = missing[0] if missing else pairs[0]
            raise ValueError(f"the edge {bad!r} is not in the graph (or given twice)")
        if not keys:
            return
        # the edges as stored (an undirected edge in the order it was added)
        self._add_items(self.encoder.edge_vectors([self._edges[k] for k in keys]), -1)
        for key in keys:
            del self._edges[key]

    def clear(self) -> None:
        """Remove every edge."""
        self._edges.clear()
        self._reset()

    def __len__(self) -> int:
        return len(self._edges)

    @property
    def edges(self) -> list[tuple[Any, Any]]:
        """The edges added (and not removed), in order."""
        return list(self._edges.values())

    @property
    def nodes(self) -> list[Any]:
        """The nodes of the edges, in the order first seen."""
        return distinct(self.encoder.nodes, (x for edge in self._edges.values() for x in edge))

    @property
    def threshold(self) -> float:
        """The default edge threshold, ``4.5/sqrt(dim)`` (see the class docstring)."""
        return _Z / math.sqrt(self.model.dim)

    # -- reading the vector --------------------------------------------------------------------
    def edge_scores(self, edges: Iterable[tuple[Any, Any]]) -> np.ndarray:
        """The similarity of the graph's vector with each edge's vector (host floats): about
        ``1/sqrt(E)`` for an edge of the graph, about 0 (sd ``1/sqrt(dim)``) for another.

        Parameters
        ----------
        edges : Iterable[tuple[object, object]]
            ``(u, v)`` pairs of node labels.
        """
        pairs = self._pairs(edges)
        if not pairs:
            return np.zeros(0)
        items = self.encoder.edge_vectors(pairs)[: len(pairs)]  # bind(v, u): every model
        return np.asarray(self.model.backend.to_numpy(self.model.similarity(self.vector[None, :], items)))

    def has_edge(self, u: Any, v: Any, threshold: float | None = None) -> bool:
        """Whether the vector holds the edge: its score (:meth:`edge_scores`) reaches
        ``threshold`` (default :attr:`threshold`, ``4.5/sqrt(dim)``: a false edge passes with
        probability about 3.4e-6; a true one is missed once ``E`` edges bring its score,
        ``1/sqrt(E)`` (MAP: ``sqrt(2/(pi E))``), down near the threshold).

        Parameters
        ----------
        u : object
            The edge's source node (a label).
        v : object
            The edge's target node (a label).
        threshold : float, optional
            Similarity a read must reach; ``None`` for :attr:`threshold`.
        """
        limit = self.threshold if threshold is None else FINITE.check("threshold", threshold)
        return bool(self.edge_scores([(u, v)])[0] >= limit)

    def neighbours(
        self, node: Any, direction: str = "out", threshold: float | None = None
    ) -> list[tuple[Any, float]]:
        """The nodes joined to ``node``, read from the vector: ``[(label, similarity), ...]``
        best first, among the graph's nodes, those reaching ``threshold`` (default
        :attr:`threshold`). ``direction``: ``"out"`` (targets) or ``"in"`` (sources) for a
        directed graph; ``"in"`` needs a commutative model (``TypeError`` otherwise).
        Accuracy: as :meth:`has_edge`, for each candidate node.

        Parameters
        ----------
        node : object
            The node (a label) whose neighbours are read.
        direction : str, optional
            ``"out"`` for the edges' targets, ``"in"`` for their sources (directed graphs).
        threshold : float, optional
            Similarity a read must reach; ``None`` for :attr:`threshold`.
        """
        if direction not in ("out", "in"):
            raise ValueError(f"direction must be 'out' or 'in', got {direction!r}")
        nodes = self.nodes
        if self.encoder.nodes.digest(node) not in {self.encoder.nodes.digest(x) for x in nodes}:
            shown = ", ".join(map(repr, nodes[:10])) + (" ..." if len(nodes) > 10 else "")
            raise ValueError(f"unknown node {node!r}: the graph's nodes are {shown or 'none yet'}")
        limit = self.threshold if threshold is None else FINITE.check("threshold", threshold)
        book = self.encoder.nodes.codebook(nodes)
        return self.encoder.neighbours(self.vector, node, limit, direction=direction, candidates=book)

    def scores(self, nodes: Iterable[Any] | None = None) -> np.ndarray:
        """The score of every ordered pair of ``nodes`` (default :attr:`nodes`): ``S[i, j]``
        for the edge ``nodes[i] -> nodes[j]`` (host ``(n, n)``; one batched unbind and one
        similarity matrix).

        Parameters
        ----------
        nodes : Iterable[object], optional
            The nodes to score; ``None`` for :attr:`nodes`.
        """
        nodes = self.nodes if nodes is None else list(nodes)
        if not nodes:
            return np.zeros((0, 0))
        book = self.encoder.nodes.codebook(nodes)
        model = self.model
        query = model.unbind(self.vector[None, :], book.vectors)
        if self.directed:
            query = model.permute(query, -1)
        return np.asarray(model.backend.to_numpy(book.similarities(query)), dtype=np.float64)

    def decode(self, n_edges: int | None = None) -> list[tuple[Any, Any]]:
        """The ``n_edges`` (default ``len(self)``) best-scoring node pairs, read from the
        vector, best first (undirected pairs once, in node order; no undirected
        self-loops). Each true edge is found with about the probability
        :meth:`expected_accuracy` gives (that it outscores every pair of the graph's nodes
        that is no edge).

        Parameters
        ----------
        n_edges : int, optional
            Number of edges to read; ``None`` for ``len(self)``.
        """
        n = len(self) if n_edges is None else NON_NEGATIVE_INT.check("n_edges", n_edges)
        scores = self.scores()
        k = scores.shape[0]
        if self.directed:
            rows, cols = np.divmod(np.arange(k * k), k)
        else:
            rows, cols = np.triu_indices(k, 1)
        flat = scores[rows, cols]
        best = np.argsort(-flat, kind="stable")[:n]
        nodes = self.nodes
        return [(nodes[rows[i]], nodes[cols[i]]) for i in best]

    # -- capacity -----------------------------------------------------------------------------
    @property
    def _copies(self) -> int:
        """Vectors per edge: 2 for undirected edges of a non-commutative model."""
        return 1 if self.directed or self.model.is_commutative else 2

    def _pairs_of(self, n_nodes: int | None) -> int:
        """The candidate pairs that :meth:`decode` ranks: the (ordered, if directed) pairs
        of ``n_nodes`` nodes (default: the graph's)."""
        n = len(self.nodes) if n_nodes is None else POSITIVE_INT.check("n_nodes", n_nodes)
        return n * n if self.directed else n * (n - 1) // 2

    def _read_both_ways(self, pairs: int, n_edges: int) -> float:
        """The planner's probability that one of ``n_edges`` undirected edges of a
        non-commutative model outscores the ``pairs - n_edges`` pairs that are no edge:
        the graph holds ``bind(v, u)`` and ``bind(u, v)`` for each, and :meth:`decode`
        reads pair ``(u, v)`` as ``similarity(unbind(graph, u), v)`` (the planner's
        ``"symmetric"`` query), not as the similarity of one of ``2 E`` members."""
        from .. import capacity

        if n_edges == 0:
            return 1.0
        others = max(pairs - n_edges, 0)
        return float(capacity.accuracy(self.model, self.model.dim, others + 1, n_edges, query="symmetric"))

    def expected_accuracy(self, n_nodes: int | None = None) -> float:
        """The planner's probability that :meth:`decode` finds one edge at this size: that
        one of the ``E`` edges outscores every pair of ``n_nodes`` nodes (default: the
        graph's) that is no edge.

        Parameters
        ----------
        n_nodes : int or None
            Nodes whose pairs are the candidates (default: the graph's nodes).

        Returns
        -------
        float
            ``holovec.capacity.accuracy(model, dim, pairs, E, query="member")``, the edges
            being members of the bundle; for undirected edges of a non-commutative model
            (VTB, GHRR), each held both ways and read by ``unbind``,
            ``accuracy(model, dim, pairs - E + 1, E, query="symmetric")``.
        """
        pairs = self._pairs_of(n_nodes)
        if self._copies == 2:
            return self._read_both_ways(pairs, len(self))
        return planned_accuracy(self.model, pairs, len(self), "member")

    def capacity(self, accuracy: float = 0.99, n_nodes: int | None = None) -> int:
        """The most edges :meth:`decode` finds, each with probability ``accuracy``.

        Parameters
        ----------
        accuracy : float
            The probability each edge must be found with, in (0, 1).
        n_nodes : int or None
            Nodes whose pairs are the candidates (default: the graph's nodes).

        Returns
        -------
        int
            The end of the run of ``E = 1, 2, ...`` whose :meth:`expected_accuracy` reaches
            ``accuracy`` (``holovec.capacity.max_items`` where the edges are members).
        """
        pairs = max(self._pairs_of(n_nodes), 1)
        if self._copies == 1:
            return planned_capacity(self.model, pairs, accuracy, "member")
        from ..capacity.bundles import check_accuracy

        target = check_accuracy(accuracy)

        def reaches(n_edges: int) -> bool:
            return self._read_both_ways(pairs, n_edges) >= target

        if not reaches(1):
            return 0
        good = 1
        while 2 * good <= pairs and reaches(2 * good):
            good *= 2
        bad = 2 * good
        if bad > pairs:  # near every pair few non-edges are left and the accuracy rises again:
            # step through the rest in eighths to find where the run from E = 1 ends
            steps = sorted({good + (pairs - good) * j // 8 for j in range(1, 9)})
            bad = next((e for e in steps if not reaches(e)), 0)
            if not bad:
                return pairs
        while bad - good > 1:
            middle = (good + bad) // 2
            good, bad = (middle, bad) if reaches(middle) else (good, middle)
        return good

    # -- repr and files -----------------------------------------------------------------------------
    def __repr__(self) -> str:
        kind = "directed" if self.directed else "undirected"
        size = f"{len(self)} edges, {len(self.nodes)} nodes"
        return f"Graph({kind}, {size}, model={self.model!r}, seed={self.seed})"

    def _state(self) -> tuple[dict[str, Any], dict[str, Any], list[Any] | None]:
        labels = [x for edge in self._edges.values() for x in edge]
        return {}, {"directed": self.directed, "edges": len(self)}, labels

    def _restore(self, state: StateFile) -> None:
        directed, n = state.fields.get("directed"), state.fields.get("edges")
        if not isinstance(directed, bool) or not isinstance(n, int) or isinstance(n, bool):
            raise ValueError("bad fields in the record (directed, edges)")
        labels = state.labels or []
        if len(labels) != 2 * n:
            raise ValueError(f"the record lists {len(labels)} node labels for {n} edges")
        Graph.__init__(self, self.model, directed, seed=self.seed)
        pairs = list(zip(labels[0::2], labels[1::2], strict=True))
        # the edges again, in blocks of bounded memory: a sum that does not fit them is refused
        self._add_saved(pairs, self.add_edges, 2, state.arrays["sums"], "edges")

    def _forget_symbols(self) -> None:
        self.encoder = GraphEncoder(self.model, self.directed, seed=self.seed)
