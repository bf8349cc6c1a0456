"""Growth costs what it adds: one item appended to a symbol table, a memory, a codebook or a
structure copies that item, not everything held.

The shared mechanism is :class:`holovec.kernels.growth.RowBuffer` (capacity doubling, rows
written in place: slice assignment on NumPy and torch, a donated buffer on JAX; blocks
merged lazily on Dask). The tests assert the structure, never a time: how many times the
rows held are reallocated, how many rows all concatenations together produce, how many
comparisons a tree's prefix check makes; and that many small adds give what one batch add
gives.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import device_for
from holovec import VSA, kernels
from holovec.backends import get_backend
from holovec.kernels.growth import RowBuffer
from holovec.memory import Hopfield, ModernHopfield
from holovec.retrieval import Codebook
from holovec.structures import FiniteStateAutomaton, Graph, HashTable, Multiset, Sequence, Tree

N = 64  # appends per test: n**2 (the old growth) and n log n are far apart already
DIM = 64


def log_bound(n: int) -> int:
    return math.ceil(math.log2(n)) + 1


@pytest.fixture
def be(backend):
    return get_backend(backend, device_for(backend))


# -- the buffer ---------------------------------------------------------------------------------
def test_single_appends_reallocate_log_n_times_and_keep_every_row(be):
    rng = np.random.default_rng(0)
    buffer, host = RowBuffer(be), rng.standard_normal((N, 5)).astype(np.float32)
    for i in range(N):
        buffer.append(be.asarray(host[i : i + 1]))
    assert len(buffer) == N and buffer.capacity == N  # a power of two, not more
    assert buffer.reallocations <= log_bound(N)
    np.testing.assert_array_equal(be.to_numpy(buffer.rows), host)
    index = rng.integers(0, N, size=(3, 4))
    np.testing.assert_array_equal(be.to_numpy(buffer.take(index)), host[index])
    np.testing.assert_array_equal(be.to_numpy(buffer.take(7)), host[7])


def test_appends_of_any_size_give_the_rows_in_order(be):
    rng = np.random.default_rng(1)
    buffer, parts = RowBuffer(be), []
    for size in (3, 0, 1, 5, 2, 7, 1, 1, 9):
        part = rng.standard_normal((size, 4)).astype(np.float32)
        buffer.append(be.asarray(part))
        parts.append(part)
        np.testing.assert_array_equal(be.to_numpy(buffer.rows), np.concatenate(parts))
    assert buffer.capacity & (buffer.capacity - 1) == 0


def test_rows_handed_out_never_change_and_bad_input_is_refused(be):
    host = np.arange(24, dtype=np.float32).reshape(6, 4)
    buffer = RowBuffer(be, be.asarray(host[:4]))  # kept as given until the first append
    before = buffer.rows
    buffer.append(be.asarray(host[4:]))
    buffer.truncate(2)
    kept = buffer.rows
    buffer.append(be.asarray(-host[:3]))  # after a truncation: new storage, not the old rows
    np.testing.assert_array_equal(be.to_numpy(before), host[:4])
    np.testing.assert_array_equal(be.to_numpy(kept), host[:2])
    np.testing.assert_array_equal(be.to_numpy(buffer.rows), np.concatenate([host[:2], -host[:3]]))
    with pytest.raises(IndexError, match="outside the 5 rows"):
        buffer.take([5])
    with pytest.raises(ValueError, match="shape"):
        buffer.append(be.asarray(np.zeros((1, 3), dtype=np.float32)))
    with pytest.raises(TypeError, match="dtype"):
        buffer.append(be.asarray(np.zeros((1, 4), dtype=np.int32)))
    buffer.clear()
    assert len(buffer) == 0 and tuple(buffer.rows.shape) == (0, 4)


def test_jax_writes_into_the_donated_buffer():
    """A write on JAX is one compiled update of the buffer in place: the old buffer is
    donated (deleted), not copied (``x.at[...].set`` outside a program copies it whole)."""
    pytest.importorskip("jax")
    be = get_backend("jax", "cpu")
    buffer = be.xp.zeros((8, 3), dtype=be.xp.float32)
    out = kernels.write_rows(be, buffer, 6, be.xp.ones((2, 3), dtype=be.xp.float32))
    assert buffer.is_deleted() and not out.is_deleted()
    # a window padded past the end keeps the rows before it
    rows = be.xp.full((3, 3), 2.0, dtype=be.xp.float32)  # padded to 4 rows
    out = kernels.write_rows(be, out, 5, rows)
    np.testing.assert_array_equal(np.asarray(out)[:, 0], [0, 0, 0, 0, 0, 2, 2, 2])


def test_dask_keeps_few_blocks_and_joins_them_lazily():
    da = pytest.importorskip("dask.array")
    be = get_backend("dask")
    host = np.arange(N * 3, dtype=np.float32).reshape(N, 3)
    buffer = RowBuffer(be)
    for i in range(N):
        buffer.append(be.asarray(host[i : i + 1]))
        assert len(buffer._blocks) <= log_bound(i + 1)
    rows = buffer.rows
    assert isinstance(rows, da.Array) and rows.numblocks[0] == 1  # small rows: one chunk
    np.testing.assert_array_equal(be.to_numpy(rows), host)
    np.testing.assert_array_equal(be.to_numpy(buffer.take([N - 1, 0, 5])), host[[N - 1, 0, 5]])


# -- what grows: no concatenation onto everything held ------------------------------------------
@pytest.fixture
def concat_rows(backend, monkeypatch):
    """The rows that every ``xp.concat`` of the backend produces, counted (a list of one)."""
    xp = get_backend(backend, device_for(backend)).xp
    original, count = xp.concat, [0]

    def counting(arrays, /, *, axis=0):
        out = original(arrays, axis=axis)
        count[0] += int(out.shape[0]) if out.ndim else 0
        return out

    monkeypatch.setattr(xp, "concat", counting)
    return count


def _grow(make_model, kind):
    model = make_model("MAP", DIM, seed=1)
    labels = [f"x{i}" for i in range(N)]
    if kind == "multiset":
        s = Multiset(model, seed=1)
        for x in labels:
            s.add(x)
        return s.table
    if kind == "hashtable":
        s = HashTable(model, seed=1)
        for i, x in enumerate(labels):
            s.set(x, f"v{i}")
        return s.roles
    if kind == "graph":
        s = Graph(model, seed=1)
        for i in range(N):
            s.add_edge(f"n{i}", f"n{i + 1}")
        return s.encoder.nodes
    if kind == "automaton":
        s = FiniteStateAutomaton(model, seed=1)
        for i in range(N):
            s.add_transition(f"s{i}", "a", f"s{i + 1}")
        return s.state_table
    s = Sequence(model, seed=1)
    for x in labels:
        s.append(x)
    return s.table


@pytest.mark.parametrize("kind", ["multiset", "hashtable", "graph", "automaton", "sequence"])
def test_structures_grow_in_linear_time(make_model, concat_rows, kind):
    """One new label at a time: the table reallocates O(log n) times and no concatenation
    copies the table (before: one concatenation onto the whole table per new label, n^2/2
    rows in all)."""
    table = _grow(make_model, kind)
    assert len(table) >= N
    assert concat_rows[0] <= 8 * N
    assert table._vectors.reallocations <= log_bound(len(table))


@pytest.mark.parametrize("cls", [Hopfield, ModernHopfield])
def test_memories_store_one_pattern_in_the_time_of_one(make_model, concat_rows, cls):
    model = make_model("MAP", DIM, seed=1)
    patterns = model.random(N, seed=2)
    one_by_one, at_once = cls(model), cls(model)
    for i in range(N):
        one_by_one.store(patterns[i])
    at_once.store(patterns)
    assert concat_rows[0] <= 4 * N
    assert one_by_one._pattern_rows.reallocations <= log_bound(N)
    np.testing.assert_array_equal(model.to_numpy(one_by_one._patterns), model.to_numpy(at_once._patterns))
    cues = patterns[:5]
    recalled = [model.to_numpy(net.recall(cues)) for net in (one_by_one, at_once)]
    np.testing.assert_array_equal(*recalled)


def test_codebook_add_costs_one_row_and_a_failed_update_is_undone(make_model, concat_rows):
    model = make_model("MAP", DIM, seed=1)
    labels = [f"x{i}" for i in range(N)]
    book = Codebook.from_seed(model, labels[:1], seed=7)
    for x in labels[1:]:
        book.add(x)
    assert concat_rows[0] <= 4 * N
    assert book._rows_buffer.reallocations <= log_bound(N)
    np.testing.assert_array_equal(
        model.to_numpy(book.vectors), model.to_numpy(Codebook.from_seed(model, labels, seed=7).vectors)
    )
    vector = model.random(seed=3)
    with pytest.raises(ValueError, match="already"):
        book.update({"new": vector, "x3": vector})
    assert len(book) == N and "new" not in book and book.labels == labels and book.seed == 7
    book.add("y")
    assert book.index("y") == N and tuple(book.vectors.shape) == (N + 1, DIM)


def test_a_symbol_table_pickles_without_its_spare_rows(make_model):
    import pickle

    model = make_model("MAP", DIM, seed=1)
    table = Multiset(model, [f"x{i}" for i in range(5)], seed=1).table
    back = pickle.loads(pickle.dumps(table))
    assert back.labels == table.labels and back._vectors.capacity == 5
    np.testing.assert_array_equal(model.to_numpy(back.matrix), model.to_numpy(table.matrix))


# -- trees: the prefix check ----------------------------------------------------------------------
class CountedPath(str):
    """A path whose comparisons are counted (the tree keeps a str it is given as it is)."""

    calls = 0

    def startswith(self, *args):
        CountedPath.calls += 1
        return str.startswith(self, *args)

    def __lt__(self, other):
        CountedPath.calls += 1
        return str.__lt__(self, other)

    def __gt__(self, other):
        CountedPath.calls += 1
        return str.__gt__(self, other)

    __hash__ = str.__hash__


def _paths(n: int) -> list[CountedPath]:
    depth = max(1, (n - 1).bit_length())
    return [CountedPath(format(i, f"0{depth}b").replace("0", "l").replace("1", "r")) for i in range(n)]


@pytest.mark.parametrize("one_at_a_time", [False, True])
def test_the_prefix_check_of_a_tree_makes_n_log_n_comparisons(one_at_a_time):
    """Before: every new path against every leaf, n^2 comparisons (4,096 leaves: 3 s)."""
    n = 1024
    tree = Tree(VSA.create("MAP", dim=DIM), seed=1)
    paths = _paths(n)
    CountedPath.calls = 0
    if one_at_a_time:
        for p in paths:
            tree.add_leaf(p, "v")
    else:
        tree.add_leaves([(p, "v") for p in paths])
    assert len(tree) == n
    assert CountedPath.calls <= 4 * n * math.log2(n)


def test_a_tree_refuses_a_path_that_meets_a_leaf_in_either_order():
    tree = Tree(VSA.create("MAP", dim=DIM), seed=1)
    tree.add_leaves({"lr": 1, "rl": 2})
    for clash, other in (("l", "lr"), ("lrl", "lr"), ("lr", "lr"), ("r", "rl")):
        with pytest.raises(ValueError, match=f"'{clash}' (holds a leaf|meets the leaf at '{other}')"):
            tree.add_leaf(clash, 3)
    with pytest.raises(ValueError, match="'rrl' meets the leaf at 'rr'"):
        tree.add_leaves([("rr", 1), ("ll", 2), ("rrl", 3)])  # within one call: named in order
    with pytest.raises(ValueError, match="'rr' meets the leaf at 'rrl'"):
        tree.add_leaves([("rrl", 1), ("rr", 2)])
    assert tree.leaves == {"lr": 1, "rl": 2}
    tree.remove_leaf("lr")
    tree.add_leaves({"l": 4, "rr": 5})  # the removed leaf's path is free again
    assert sorted(tree.leaves) == ["l", "rl", "rr"]


def test_a_tree_file_is_checked_before_its_leaves_are_added(tmp_path, monkeypatch):
    """A file whose paths meet is refused by one sort, before any leaf is added (before: the
    leaves were added again one comparison against every other at a time); a sound file of
    many leaves loads in blocks, to the tree saved."""
    model = VSA.create("MAP", dim=DIM)
    n = 4096
    paths = [str(p) for p in _paths(n)]
    tree = Tree(model, seed=1)
    tree.add_leaves({p: i % 5 for i, p in enumerate(paths)})
    good, bad = tmp_path / "good.npz", tmp_path / "bad.npz"
    tree.save(good)
    tree._leaves["l" * 13] = 0  # a leaf under another's path ("l" * 12), as a crafted file has
    tree.save(bad)
    del tree._leaves["l" * 13]
    added = []
    original = Tree.path_vectors
    monkeypatch.setattr(Tree, "add_leaves", lambda self, leaves: added.append(leaves))
    monkeypatch.setattr(Tree, "path_vectors", lambda self, paths: added.append(1) or original(self, paths))
    with pytest.raises(ValueError, match=f"'{'l' * 13}' meets the leaf at '{'l' * 12}'"):
        Tree.load(bad, model)
    assert added == []  # refused before any leaf was added or a path's vector made
    back = Tree.load(good, model)
    assert back.leaves == tree.leaves and back._sorted == sorted(paths)
    np.testing.assert_array_equal(model.to_numpy(back.sums), model.to_numpy(tree.sums))
    assert 1 <= len(added) < 8 and all(x == 1 for x in added)  # blocks of leaves, no add_leaves
