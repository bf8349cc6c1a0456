"""Fuzz growth: structures, memories and codebooks built by many small adds (any sizes, labels
that Python's equality mixes: ``1``, ``1.0``, ``True``) hold what one batch add of the same
items holds: the same sum, the same symbol vectors, the same patterns and rows; and the
rows held are reallocated ``O(log n)`` times (capacity doubling), on NumPy, PyTorch and JAX.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from fuzz_settings import FUZZ
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import backend_param, device_for
from holovec import VSA
from holovec.memory import Hopfield, ModernHopfield
from holovec.retrieval import Codebook
from holovec.structures import FiniteStateAutomaton, Graph, HashTable, Multiset, Sequence

DIM = 64
BACKENDS = [backend_param(b) for b in ("numpy", "torch", "jax")]
#: fewer examples on JAX, which compiles each new shape
FEW = settings(FUZZ, max_examples=8)
_MODELS: dict = {}

labels = st.sampled_from([1, 1.0, True, "1", "a", "b", ("a", 1), 2, b"x", 0.5, "c", False])
#: the items in groups: each group one call of the small adds
groups = st.lists(st.lists(labels, min_size=0, max_size=3), min_size=1, max_size=12)


def model_of(backend: str, name: str = "MAP"):
    key = (backend, name)
    if key not in _MODELS:
        _MODELS[key] = VSA.create(name, DIM, backend=backend, device=device_for(backend), seed=3)
    return _MODELS[key]


def host(model, x) -> np.ndarray:
    return model.to_numpy(x)


def few_reallocations(table) -> bool:
    return table._vectors.reallocations <= math.ceil(math.log2(max(2, len(table)))) + 1


def fuzz(backend):
    return FEW if backend == "jax" else FUZZ


@pytest.mark.parametrize("backend", BACKENDS)
def test_fuzz_small_adds_equal_one_batch_add(backend):
    model = model_of(backend)

    @fuzz(backend)
    @given(groups)
    def check(parts):
        items = [x for part in parts for x in part]
        # multiset: add and update of groups against one update
        small, batch = Multiset(model, seed=1), Multiset(model, seed=1)
        for part in parts:
            if len(part) == 1:
                small.add(part[0])
            else:
                small.update(part)
        batch.update(items)
        assert len(small) == len(batch) == len(items)
        np.testing.assert_array_equal(host(model, small.sums), host(model, batch.sums))
        assert small.table.labels == batch.table.labels and few_reallocations(small.table)
        if items:
            np.testing.assert_array_equal(host(model, small.table.matrix), host(model, batch.table.matrix))
        # sequence: append and extend against one extend
        seq, whole = Sequence(model, seed=1), Sequence(model, items, seed=1)
        for part in parts:
            if len(part) == 1:
                seq.append(part[0])
            else:
                seq.extend(part)
        np.testing.assert_array_equal(host(model, seq.sums), host(model, whole.sums))
        # hash table: each distinct key set once, one by one against one update
        pairs = {}
        for x in items:
            pairs.setdefault(("k", x), x)
        table, at_once = HashTable(model, seed=1), HashTable(model, seed=1)
        for k, v in pairs.items():
            table.set(k, v)
        at_once.update(pairs)
        np.testing.assert_array_equal(host(model, table.sums), host(model, at_once.sums))
        assert table.keys() == at_once.keys() and few_reallocations(table.roles)

    check()


@pytest.mark.parametrize("backend", BACKENDS)
def test_fuzz_edges_and_transitions_one_by_one_equal_one_batch(backend):
    model = model_of(backend)

    @fuzz(backend)
    @given(st.lists(st.tuples(labels, labels), min_size=1, max_size=16), st.booleans())
    def check(pairs, directed):
        graph, batch = Graph(model, directed, seed=1), Graph(model, directed, seed=1)
        digest = graph.encoder.nodes.digest
        kept, seen = [], set()
        for u, v in pairs:
            key = (digest(u), digest(v))
            loop = not directed and key[0] == key[1]
            if loop or key in seen or (not directed and key[::-1] in seen):
                continue  # a set of edges: 1 and True are two nodes, 1 and 1 one
            seen.add(key)
            kept.append((u, v))
        for u, v in kept:
            graph.add_edge(u, v)
        if kept:
            batch.add_edges(kept)
        assert graph.edges == batch.edges == kept
        np.testing.assert_array_equal(host(model, graph.sums), host(model, batch.sums))
        fsa, fsa_batch = FiniteStateAutomaton(model, seed=1), FiniteStateAutomaton(model, seed=1)
        transitions = {(digest(u), digest(v)): (u, v, v) for u, v in pairs}
        for u, a, n in transitions.values():
            fsa.add_transition(u, a, n)
        fsa_batch.add_transitions(list(transitions.values()))
        np.testing.assert_array_equal(host(model, fsa.sums), host(model, fsa_batch.sums))
        assert few_reallocations(fsa.state_table) and few_reallocations(graph.encoder.nodes)

    check()


@pytest.mark.parametrize("backend", BACKENDS)
def test_fuzz_memories_and_codebooks_grown_in_pieces_equal_one_batch(backend):
    model = model_of(backend)
    pool = model.random(40, seed=5)

    @fuzz(backend)
    @given(st.lists(st.integers(1, 5), min_size=1, max_size=8))
    def check(sizes):
        stops = np.cumsum(sizes)
        n = int(stops[-1])
        for cls in (Hopfield, ModernHopfield):
            pieces, batch = cls(model), cls(model)
            for start, stop in zip([0, *stops[:-1]], stops, strict=True):
                pieces.store(pool[int(start) : int(stop)])
            batch.store(pool[:n])
            assert len(pieces) == n
            np.testing.assert_array_equal(host(model, pieces._patterns), host(model, batch._patterns))
        book = Codebook(model, [0], pool[:1])
        for i in range(1, n):
            book.add(i, pool[i])
        assert book._rows_buffer.reallocations <= math.ceil(math.log2(n + 1)) + 1
        np.testing.assert_array_equal(host(model, book.vectors), host(model, pool[:n]))

    check()
