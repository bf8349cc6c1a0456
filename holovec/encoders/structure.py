"""Structures: records of role-filler pairs, and graphs as sets of bound node pairs.

Both bind with the filler (or target) on the left and the key on the right,
``bind(filler, role)``, so that ``unbind(record, role)`` recovers the filler for every
model, the non-commutative ones (GHRR, VTB) included: unbind recovers the left
operand given the right one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from .._params import FINITE, FLAG, Rule
from ..models.base import VSAModel
from ._common import bundle_segments, sqrt_dim_threshold, take_rows
from ._values import check_vectors, empty_vectors
from .base import Encoder
from .symbols import SYMBOLS_RULE, SymbolCodebook, SymbolTable, decode_codebook, resolve_symbols

__all__ = ["GraphEncoder", "RecordEncoder"]


class RecordEncoder(Encoder):
    """Records (role -> filler mappings) as ``bundle_k bind(filler_k, role_k)``.

    Roles and fillers are labels looked up in two symbol tables (by default tables of
    the encoder's seed in the namespaces ``"role"`` and ``"filler"``); a filler may
    also be a vector of the model (a nested record, say). :meth:`decode` reads a field
    back: ``unbind(record, role)`` and the nearest filler, for many records at once.

    Capacity: a field is read correctly while the bundle's signal for it (about
    ``1/sqrt(k)`` for ``k`` fields) beats the noise of the candidates; e.g. MAP at
    dim 2,000 reads all 20 fields of records over 50 candidate fillers.

    Parameters
    ----------
    model : VSAModel
        The model whose vectors the encoder makes.
    roles : SymbolTable | SymbolCodebook | Sequence[object], optional
        The roles: a :class:`SymbolTable`, a :class:`SymbolCodebook` or a list of labels;
        ``None`` for a table of the encoder's seed (namespace ``"role"``).
    fillers : SymbolTable | SymbolCodebook | Sequence[object], optional
        The fillers: a :class:`SymbolTable`, a :class:`SymbolCodebook` or a list of labels;
        ``None`` for a table of the encoder's seed (namespace ``"filler"``).
    seed : int, optional
        Seed of the encoder's random vectors; ``None`` draws them from the model's
        generator.

    Examples
    --------
    >>> from holovec import VSA
    >>> from holovec.encoders import RecordEncoder
    >>> model = VSA.create("FHRR", dim=2000)
    >>> enc = RecordEncoder(model, seed=1)
    >>> r = enc.encode({"name": "alice", "city": "paris", "job": "pilot"})
    >>> enc.decode(r, "city")[0]
    'paris'
    """

    _parameter_rules: ClassVar[dict[str, Rule]] = {"roles": SYMBOLS_RULE, "fillers": SYMBOLS_RULE}

    def __init__(
        self,
        model: VSAModel,
        roles: SymbolTable | SymbolCodebook | Sequence[Any] | None = None,
        fillers: SymbolTable | SymbolCodebook | Sequence[Any] | None = None,
        *,
        seed: int | None = None,
    ) -> None:
        super().__init__(model, seed=seed, roles=roles, fillers=fillers)
        self.roles = resolve_symbols(model, roles, self.seed, "role")
        self.fillers = resolve_symbols(model, fillers, self.seed, "filler")

    def _pairs(
        self, records: list[Mapping[Any, Any]], distinct: bool = True
    ) -> tuple[Any, np.ndarray | None, np.ndarray]:
        """The bound role-filler pairs of ``records``: ``(bound, rows, lengths)``, where
        ``bound[rows[j]]`` is pair ``j`` (record 0's pairs, then record 1's, ...) and each
        distinct pair of labels is bound once; without ``distinct``, ``bound[j]`` is pair
        ``j`` and ``rows`` is None."""
        model = self.model
        lengths, role_labels, filler_labels, vector_slots = [], [], [], []
        for record in records:
            if not isinstance(record, Mapping):
                raise TypeError(f"a record is a mapping of roles to fillers, got {type(record).__name__}")
            if not record:
                raise ValueError("cannot encode an empty record")
            lengths.append(len(record))
            for role, filler in record.items():
                role_labels.append(role)
                if model.backend.is_array(filler):
                    vector = check_vectors(model, filler, f"filler of {role!r}")  # no NaN fillers
                    vector_slots.append((len(filler_labels), vector))
                    filler_labels.append(None)
                else:
                    filler_labels.append(filler)
        lengths = np.asarray(lengths, dtype=np.int64)
        role_rows, roles = _rows(self.roles, role_labels)
        if vector_slots:  # vector fillers: rows after the labelled fillers' matrix
            labelled = [i for i, f in enumerate(filler_labels) if f is not None]
            filler_rows = np.empty(len(filler_labels), dtype=np.int64)
            parts = []
            if labelled:
                found, matrix = _rows(self.fillers, [filler_labels[i] for i in labelled])
                filler_rows[labelled] = found
                parts.append(matrix)
            first = int(parts[0].shape[0]) if parts else 0
            filler_rows[[i for i, _ in vector_slots]] = first + np.arange(len(vector_slots))
            parts.append(model.xp.stack([v for _, v in vector_slots]))
            fillers = model.xp.concat(parts, axis=0) if len(parts) > 1 else parts[0]
        else:
            filler_rows, fillers = _rows(self.fillers, filler_labels)
        if not distinct:
            return (
                model.bind(take_rows(model, fillers, filler_rows), take_rows(model, roles, role_rows)),
                None,
                lengths,
            )
        # each distinct (role, filler) pair bound once
        n_fillers = int(filler_rows.max()) + 1
        pairs, rows = np.unique(role_rows * n_fillers + filler_rows, return_inverse=True)
        bound = model.bind(
            take_rows(model, fillers, pairs % n_fillers), take_rows(model, roles, pairs // n_fillers)
        )
        return bound, rows.reshape(-1), lengths

    def encode(self, record: Mapping[Any, Any]) -> Any:
        """One record (a mapping role -> filler) -> one vector (several records:
        :meth:`encode_batch`).

        Parameters
        ----------
        record : Mapping[object, object]
            A mapping role -> filler (a label, or a vector of the model).
        """
        if not isinstance(record, Mapping):
            several = isinstance(record, (list, tuple)) and any(isinstance(r, Mapping) for r in record)
            raise TypeError(
                "encode takes one record, a mapping of roles to fillers (a dict), got "
                f"{type(record).__name__}"
                + ("; for several records use encode_batch(records)" if several else "")
            )
        items, _, _ = self._pairs([record], distinct=False)
        return self.model.bundle(items)

    def encode_batch(self, records: Iterable[Mapping[Any, Any]]) -> Any:
        """Many records (any numbers of fields) -> ``(n, vector_length)`` (no records ->
        ``(0, vector_length)``; an empty record is a ``ValueError``). Each distinct
        role-filler pair is bound once, and the records are bundled in chunks.

        Parameters
        ----------
        records : Iterable[Mapping[object, object]]
            Mappings role -> filler.
        """
        if isinstance(records, Mapping):
            raise TypeError(
                "encode_batch takes a list of records (mappings); for one record use encode(record)"
            )
        records = list(records)
        if not records:  # no records: no vectors
            return empty_vectors(self.model, (0,))
        bound, rows, lengths = self._pairs(records)
        return bundle_segments(self.model, bound, lengths, rows)

    def _role_keys(self, roles: list[Any]) -> Any:
        """The vectors of ``roles``, each a role this encoder knows: one it has encoded, or
        one of the roles it was given. An unknown role is a ``ValueError`` (unbinding it
        would give noise, and cleanup an unrelated filler)."""
        known = self.roles
        if isinstance(known, SymbolTable) and not known.cache:  # the table keeps no labels
            return known.vectors(roles)
        unknown = [r for r in roles if r not in known]
        if unknown:
            labels = _labels(known)
            shown = ", ".join(map(repr, labels[:20])) + (
                f", ... ({len(labels)} in all)" if len(labels) > 20 else ""
            )
            raise ValueError(
                f"unknown role {unknown[0]!r}: this encoder's roles are "
                f"{shown or 'none yet (encode a record first)'}; give the roles of the records "
                "(or RecordEncoder(model, roles=[...], seed=...) to declare them)"
            )
        return _vectors(known, roles)

    def unbind(self, records: Any, role: Any) -> Any:
        """The noisy filler vector(s) of ``role``: ``unbind(records, role)``.

        Parameters
        ----------
        records : array
            One record's vector, or a batch ``(n, vector_length)``.
        role : object
            The role (a label the encoder knows).
        """
        return self.model.unbind(records, self._role_keys([role])[0])

    def decode(
        self, records: Any, role: Any, candidates: Iterable[Any] | SymbolCodebook | None = None
    ) -> Any:
        """The filler of ``role``: ``(label, similarity)`` for one record, a list of them
        for a batch ``(n, vector_length)``; the nearest of ``candidates`` (default:
        every filler seen), all records in one similarity matrix. ``role`` must be one the
        encoder knows (one it has encoded, or one of the ``roles`` it was given): another is
        a ``ValueError``, since unbinding it would give noise, and the nearest filler an
        unrelated one.

        Parameters
        ----------
        records : array
            One record's vector, or a batch ``(n, vector_length)``.
        role : object
            The role (a label the encoder knows).
        candidates : Iterable[object] | SymbolCodebook, optional
            The fillers to clean up among; ``None`` for every filler seen.
        """
        records = check_vectors(self.model, records, "records")
        noisy = self.unbind(records, role)  # an unknown role: a ValueError first
        return decode_codebook(self.fillers, candidates, "fillers").cleanup(noisy)

    def decode_all(
        self,
        record: Any,
        roles: Iterable[Any] | None = None,
        candidates: Iterable[Any] | SymbolCodebook | None = None,
    ) -> dict[Any, tuple[Any, float]]:
        """Every field of one record: ``{role: (filler, similarity)}`` for ``roles``
        (default: every role seen), unbound and cleaned up together.

        Parameters
        ----------
        record : array
            One record's vector.
        roles : Iterable[object], optional
            The roles to read; ``None`` for every role seen.
        candidates : Iterable[object] | SymbolCodebook, optional
            The fillers to clean up among; ``None`` for every filler seen.
        """
        record = check_vectors(self.model, record, "record")
        if record.ndim != 1:
            raise ValueError(
                f"decode_all reads one record, shape ({self.model.vector_length},); got shape "
                f"{tuple(record.shape)} (use decode(records, role) for a batch)"
            )
        roles = list(roles) if roles is not None else _labels(self.roles)
        if not roles:
            raise ValueError("no roles to decode")
        book = decode_codebook(self.fillers, candidates, "fillers")
        keys = self._role_keys(roles)
        found = book.cleanup(self.model.unbind(record[None, :], keys))
        return dict(zip(roles, found, strict=True))


class GraphEncoder(Encoder):
    """A graph's edge set as one vector: the bundle of its edges' bound node pairs.

    An undirected edge ``{u, v}`` is ``bind(v, u)`` (for non-commutative models both
    ``bind(v, u)`` and ``bind(u, v)``, so that either end finds the other); a directed
    edge ``u -> v`` is ``bind(permute(v, 1), u)``: the permutation marks the target.
    :meth:`neighbours` unbinds a node (and un-permutes) and keeps the nodes whose
    similarity passes a threshold, all candidates in one similarity matrix.

    Capacity: with ``E`` edges the signal of one edge is about ``1/sqrt(E)`` (MAP:
    ``sqrt(2/(pi E))``); the default threshold, ``4.5/sqrt(dim)``, keeps false
    neighbours rare (about 3 per million candidates) for the dense models; sparse
    models (BSDC, BSDC-SEG) need a threshold of their own.

    Parameters
    ----------
    model : VSAModel
        The model whose vectors the encoder makes.
    directed : bool, optional
        Whether edges are directed (``u -> v``) or not (``{u, v}``).
    nodes : SymbolTable | SymbolCodebook | Sequence[object], optional
        The nodes: a :class:`SymbolTable`, a :class:`SymbolCodebook` or a list of labels;
        ``None`` for a table of the encoder's seed.
    seed : int, optional
        Seed of the encoder's random vectors; ``None`` draws them from the model's
        generator.

    Examples
    --------
    >>> from holovec import VSA
    >>> from holovec.encoders import GraphEncoder
    >>> model = VSA.create("MAP", dim=10000)
    >>> enc = GraphEncoder(model, seed=1)
    >>> g = enc.encode([("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")])
    >>> sorted(label for label, _ in enc.neighbours(g, "c"))
    ['a', 'b', 'd']
    """

    _parameter_rules: ClassVar[dict[str, Rule]] = {"directed": FLAG, "nodes": SYMBOLS_RULE}

    def __init__(
        self,
        model: VSAModel,
        directed: bool = False,
        *,
        nodes: SymbolTable | SymbolCodebook | Sequence[Any] | None = None,
        seed: int | None = None,
    ) -> None:
        super().__init__(model, seed=seed, directed=directed, nodes=nodes)
        if directed and model.bind_commutes_with_permute:
            # permute(v, 1) would not mark the target: u -> v would read as v -> u too
            raise TypeError(
                f"a directed graph needs a bind that a permutation does not pass through; {model.name}'s "
                "does (bind_commutes_with_permute), so its directed edges would read both ways "
                "(use FHRR, MAP, BSC, VTB or GHRR, or encode the two directions in two graphs)"
            )
        self.directed = directed
        self.nodes = resolve_symbols(model, nodes, self.seed, "node")

    def _edges(self, edge_lists: list[Any]) -> tuple[Any, np.ndarray]:
        model = self.model
        sources, targets, lengths = [], [], []
        for edges in edge_lists:
            count = 0
            for edge in edges:
                try:
                    u, v = edge
                except (TypeError, ValueError):
                    raise ValueError(f"an edge is a pair (u, v) of node labels, got {edge!r}") from None
                sources.append(u)
                targets.append(v)
                count += 1
            if count == 0:
                raise ValueError("cannot encode a graph without edges")
            lengths.append(count)
        both = _vectors(self.nodes, sources + targets)
        u, v = both[: len(sources)], both[len(sources) :]
        lengths = np.asarray(lengths, dtype=np.int64)
        if self.directed:
            return model.bind(model.permute(v, 1), u), lengths
        items = model.bind(v, u)
        if model.is_commutative:
            return items, lengths
        # both orders, graph by graph: edge i of a graph starting at s (length k) goes to
        # row i + s, its reverse to row i + s + k
        items = model.xp.concat([items, model.bind(u, v)], axis=0)
        start_of = np.repeat(np.cumsum(lengths) - lengths, lengths)
        length_of = np.repeat(lengths, lengths)
        edge = np.arange(len(sources))
        order = np.argsort(np.concatenate([edge + start_of, edge + start_of + length_of]), kind="stable")
        return take_rows(model, items, order), 2 * lengths

    def encode(self, edges: Iterable[tuple[Any, Any]]) -> Any:
        """One graph (an iterable of ``(u, v)`` node pairs) -> one vector.

        Parameters
        ----------
        edges : Iterable[tuple[object, object]]
            ``(u, v)`` node pairs.
        """
        return self.model.bundle(self.edge_vectors(edges))

    def edge_vectors(self, edges: Iterable[tuple[Any, Any]]) -> Any:
        """The vectors :meth:`encode` bundles for ``edges`` (at least one): one per edge,
        in order; for an undirected graph of a non-commutative model, the ``bind(v, u)`` of
        every edge, then the ``bind(u, v)`` of every edge.

        Parameters
        ----------
        edges : Iterable[tuple[object, object]]
            ``(u, v)`` node pairs (at least one).
        """
        items, _ = self._edges([edges])
        return items

    def encode_batch(self, graphs: Iterable[Iterable[tuple[Any, Any]]]) -> Any:
        """Many graphs -> ``(n, vector_length)`` (no graphs -> ``(0, vector_length)``; a graph
        without edges is a ``ValueError``).

        Parameters
        ----------
        graphs : Iterable[Iterable[tuple[object, object]]]
            Graphs, each an iterable of ``(u, v)`` node pairs.
        """
        graphs = list(graphs)
        if not graphs:  # no graphs: no vectors
            return empty_vectors(self.model, (0,))
        items, lengths = self._edges(graphs)
        return bundle_segments(self.model, items, lengths)

    def similarities(
        self,
        graph: Any,
        node: Any,
        *,
        direction: str = "out",
        candidates: Iterable[Any] | SymbolCodebook | None = None,
    ) -> tuple[SymbolCodebook, Any]:
        """The candidate nodes and their similarities to the neighbours of ``node``
        (one node, or a list: shape ``(k, n_candidates)``).

        Parameters
        ----------
        graph : array
            The graph's vector.
        node : object
            A node (a label), or a list of nodes.
        direction : str, optional
            ``"out"`` for targets, ``"in"`` for sources (directed graphs).
        candidates : Iterable[object] | SymbolCodebook, optional
            The nodes to score; ``None`` for every node seen.
        """
        model = self.model
        if direction not in ("out", "in"):
            raise ValueError(f"direction must be 'out' or 'in', got {direction!r}")
        graph = check_vectors(model, graph, "graph")
        if graph.ndim != 1:
            raise ValueError(
                f"graph must be one vector of shape ({model.vector_length},), got shape {tuple(graph.shape)}"
            )
        book = decode_codebook(self.nodes, candidates, "nodes")
        several = isinstance(node, list)
        keys = _vectors(self.nodes, node if several else [node])
        if not self.directed or direction == "out":
            query = model.unbind(graph[None, :], keys)
            if self.directed:
                query = model.permute(query, -1)
        else:
            if not model.is_commutative:
                raise TypeError(
                    f"in-neighbours of a directed graph need a commutative model; {model.name} is not "
                    "(encode the reversed edges in a second graph instead)"
                )
            query = model.unbind(graph[None, :], model.permute(keys, 1))
        sims = book.similarities(query)
        return book, sims if several else sims[0]

    def neighbours(
        self,
        graph: Any,
        node: Any,
        threshold: float | None = None,
        *,
        direction: str = "out",
        candidates: Iterable[Any] | SymbolCodebook | None = None,
    ) -> list[tuple[Any, float]] | list[list[tuple[Any, float]]]:
        """Nodes joined to ``node`` (targets for ``direction="out"``, sources for
        ``"in"``): ``[(label, similarity), ...]`` best first, those with similarity
        >= ``threshold`` (default ``4.5/sqrt(dim)``). A list of nodes gives a list.

        Parameters
        ----------
        graph : array
            The graph's vector.
        node : object
            A node (a label), or a list of nodes.
        threshold : float, optional
            Similarity a neighbour must reach; ``None`` for ``4.5/sqrt(dim)``.
        direction : str, optional
            ``"out"`` for targets, ``"in"`` for sources (directed graphs).
        candidates : Iterable[object] | SymbolCodebook, optional
            The nodes to score; ``None`` for every node seen.
        """
        if threshold is None:
            threshold = sqrt_dim_threshold(self.model)
        else:
            threshold = FINITE.check("threshold", threshold)
        book, sims = self.similarities(graph, node, direction=direction, candidates=candidates)
        host = self.model.backend.to_numpy(sims)
        rows = host.reshape(-1, len(book))
        out = []
        for row in rows:
            keep = np.flatnonzero(row >= threshold)
            keep = keep[np.argsort(-row[keep], kind="stable")]
            out.append([(book.labels[i], float(row[i])) for i in keep])
        return out if host.ndim == 2 else out[0]

    def has_edge(self, graph: Any, u: Any, v: Any) -> float:
        """Similarity of the graph with the edge ``(u, v)``: about ``1/sqrt(E)`` if present
        (MAP: ``sqrt(2/(pi E))``), about 0 if not.

        Parameters
        ----------
        graph : array
            The graph's vector.
        u : object
            The edge's source node.
        v : object
            The edge's target node.
        """
        items, _ = self._edges([[(u, v)]])
        return float(self.model.similarity(graph, items[0]))


def _vectors(symbols: SymbolTable | SymbolCodebook, labels: list[Any]) -> Any:
    if isinstance(symbols, SymbolCodebook):
        return symbols.lookup(symbols.index(labels))
    return symbols.vectors(labels)


def _rows(symbols: SymbolTable | SymbolCodebook, labels: list[Any]) -> tuple[np.ndarray, Any]:
    """Rows of ``labels`` in a matrix of symbol vectors, and that matrix (a table adds the
    labels it has not seen). Repeated labels are digested once where Python's equality
    cannot mix two labels (str, bytes and int labels: ``1 == 1.0 == True`` are three)."""
    if len(labels) > 1 and all(type(x) in (str, bytes, int) for x in labels):
        position: dict[Any, int] = {}
        inverse = np.fromiter((position.setdefault(x, len(position)) for x in labels), np.int64, len(labels))
        if len(position) < len(labels):
            rows, matrix = _rows(symbols, list(position))
            return rows[inverse], matrix
    if isinstance(symbols, SymbolCodebook):
        return symbols.index(labels), symbols.vectors
    if not symbols.cache:  # nothing kept: draw each distinct label once
        digests = np.array([symbols.digest(x) for x in labels], dtype=np.uint64)
        _, first, rows = np.unique(digests, return_index=True, return_inverse=True)
        return rows.reshape(-1).astype(np.int64), symbols.draw([labels[i] for i in first])
    return symbols.rows(labels), symbols.matrix


def _labels(symbols: SymbolTable | SymbolCodebook) -> list[Any]:
    return list(symbols.labels)
