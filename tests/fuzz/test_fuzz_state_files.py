"""The saved-file fuzz of the memories and structures (the archive kinds of
:mod:`holovec._format.state`): truncated files, flipped bits, edited records (signed again as
the library signs, as anyone can: the checksums are no signature) and records naming many
labels. Each is refused with a clear ``ValueError`` (never another exception) or loads, in
memory bounded by the file, whatever its record says; a harmless flip loads exactly what was
saved."""

from __future__ import annotations

import io
import json
import tracemalloc

import numpy as np
from fuzz_settings import FUZZ, outcome
from hypothesis import example, given
from hypothesis import strategies as st

from holovec import VSA
from holovec._format import CHECKSUMS, write_archive
from holovec._format.labels import encode_labels
from holovec.memory import Hopfield, ModernHopfield, SparseDistributedMemory
from holovec.structures import FiniteStateAutomaton, Graph, HashTable, Multiset, Queue, Sequence, Tree

_MODEL = VSA.create("MAP", dim=64, backend="numpy", seed=5)
#: what a load of these files (kB) may take at its peak, far below a model or table that a
#: record could name (a dim of 2**31, a vector for each of thousands of labels)
_PEAK = 8 * 2**20


def _made():
    """One small object of every kind, filled, and the empty memories."""
    hopfield, explicit = Hopfield(_MODEL), Hopfield(_MODEL, explicit=True)
    modern = ModernHopfield(_MODEL, beta=4.0)
    for memory in (hopfield, explicit, modern):
        memory.store(_MODEL.random(3, seed=1))
    sdm = SparseDistributedMemory(_MODEL, 8, seed=2)
    sdm.write(_MODEL.random(2, seed=3), _MODEL.random(2, seed=4))
    bag = Multiset(_MODEL, ["a", "b", "a", 7], seed=1)
    graph = Graph(_MODEL, seed=1)
    graph.add_edges([("a", "b"), ("b", "c")])
    directed = Graph(_MODEL, directed=True, seed=2)
    directed.add_edges([("a", "b"), ("b", "a")])
    fsa = FiniteStateAutomaton(_MODEL, start=0, accept=[1], seed=3)
    fsa.add_transitions([(0, "x", 1), (1, "x", 0)])
    tree = Tree(_MODEL, max_depth=4, seed=4)
    tree.add_leaves([("lr", "p"), ("r", "q")])
    return {
        "hopfield": hopfield,
        "explicit hopfield": explicit,
        "empty hopfield": Hopfield(_MODEL),
        "modern hopfield": modern,
        "empty modern hopfield": ModernHopfield(_MODEL),
        "sdm": sdm,
        "multiset": bag,
        "sequence": Sequence(_MODEL, ["x", "y", "x"], seed=2),
        "queue": Queue(_MODEL, ["x", 2], seed=2),
        "hash table": HashTable(_MODEL, {"k": "v", 1: "w"}, seed=3),
        "graph": graph,
        "directed graph": directed,
        "automaton": fsa,
        "tree": tree,
    }


def _bytes_of(obj) -> bytes:
    out = io.BytesIO()
    obj.save(out)  # a file object is written directly
    return out.getvalue()


def _plain(data: bytes):
    with np.load(io.BytesIO(data), allow_pickle=False) as f:
        arrays = {name: f[name] for name in f.files if name != "metadata"}
        record = json.loads(str(f["metadata"][()]))
    return record, arrays


def _resigned(data: bytes, edit) -> bytes:
    """``data`` with ``edit(record, arrays)`` applied, signed again as the library signs."""
    record, arrays = _plain(data)
    edit(record, arrays)
    fields = {k: v for k, v in record.items() if k not in ("format", "version", *CHECKSUMS.fields)}
    out = io.BytesIO()
    write_archive(out, format=record["format"], version=record["version"], metadata=fields, arrays=arrays)
    return out.getvalue()


class _Files:
    """The saved files (bytes) and classes by kind, made once."""

    files: dict = {}  # noqa: RUF012

    @classmethod
    def get(cls):
        if not cls.files:
            cls.files.update({kind: (_bytes_of(obj), type(obj)) for kind, obj in _made().items()})
        return cls.files


KINDS = [
    "automaton", "directed graph", "empty hopfield", "empty modern hopfield", "explicit hopfield", "graph",
    "hash table", "hopfield", "modern hopfield", "multiset", "queue", "sdm", "sequence", "tree",
]  # fmt: skip


def load_or_refuse(data: bytes, cls, model=None, limit=_PEAK):
    """The object in ``data``, or None where a clear ``ValueError`` refuses it (any other
    exception fails); the load's peak memory below ``limit`` (None: not measured)."""
    if limit is not None:
        tracemalloc.start()
    try:
        ok, result = outcome(lambda: cls.load(io.BytesIO(data), model))
        peak = tracemalloc.get_traced_memory()[1] if limit is not None else 0
    finally:
        if limit is not None:
            tracemalloc.stop()
    assert limit is None or peak < limit, peak
    assert ok or isinstance(result, ValueError), result
    return result if ok else None


def same_as_saved(obj, data: bytes) -> bool:
    """Whether ``obj`` saves the record and arrays of ``data``."""
    (a_record, a_arrays), (b_record, b_arrays) = _plain(_bytes_of(obj)), _plain(data)
    return a_record == b_record and all(np.array_equal(a_arrays[k], b_arrays[k]) for k in b_arrays)


@FUZZ
@given(st.sampled_from(KINDS), st.floats(0, 1, exclude_max=True))
def test_fuzz_truncated_state_files_are_refused(kind, where):
    data, cls = _Files.get()[kind]
    cut = int(where * len(data))
    assert load_or_refuse(data[:cut], cls) is None
    assert load_or_refuse(data[:cut], cls, _MODEL) is None


@FUZZ
@given(
    st.sampled_from(KINDS),
    st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 7)), min_size=1, max_size=3),
)
def test_fuzz_bit_flips_in_state_files_are_refused_or_harmless(kind, flips):
    data, cls = _Files.get()[kind]
    flipped = bytearray(data)
    for where, bit in flips:
        flipped[int(where * len(data))] ^= 1 << bit
    for model in (None, _MODEL):
        obj = load_or_refuse(bytes(flipped), cls, model)
        assert obj is None or same_as_saved(obj, data)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)
RECORD_FIELDS = [
    "model", "dim", "vector_length", "dtype", "options", "backend", "model_seed", "dtypes", "labels",
    "fields",
]  # fmt: skip


def _edit(record, key, value):
    """Set ``key`` of the record (``fields.<name>`` a field of the object) to ``value``."""
    if key.startswith("fields."):
        record["fields"][key.removeprefix("fields.")] = value
    else:
        record[key] = value


def _keys(kind):
    record, _ = _plain(_Files.get()[kind][0])
    return RECORD_FIELDS + [f"fields.{name}" for name in record["fields"]]


@FUZZ
@given(st.sampled_from(KINDS), st.data(), JSON_VALUES, st.booleans())
@example("empty hopfield", None, 2**31 - 1, True)
@example("empty modern hopfield", None, 2 * 10**8, True)
@example("multiset", None, 2**30, True)
@example("sdm", None, 2**30, True)
def test_fuzz_edited_state_records(kind, data, value, sign):
    """An edited field is refused unless the file is signed again (a crafted file): then it
    is refused with a clear ``ValueError`` or loads as what it says, in bounded memory
    whatever it says (a dim of 2**31, counts no array backs). Examples without drawn data
    edit the dim (and the vector length with it)."""
    saved, cls = _Files.get()[kind]
    keys = ["dim", "vector_length"] if data is None else [data.draw(st.sampled_from(_keys(kind)))]

    def edit(record, arrays):
        for key in keys:
            _edit(record, key, value)

    record, arrays = _plain(saved)
    edit(record, arrays)
    if sign:
        crafted = _resigned(saved, edit)
    else:  # the record edited, its checksum left as it was
        out = io.BytesIO()
        np.savez(out, metadata=np.array(json.dumps(record)), **arrays)
        crafted = out.getvalue()
    obj = load_or_refuse(crafted, cls, _MODEL)
    if not sign and record != _plain(saved)[0]:
        assert obj is None
    # a model made from what the record now says may import a framework (a backend named):
    # its memory is not measured then
    load_or_refuse(crafted, cls, None, limit=None if "backend" in keys else _PEAK)


LABELLED = {
    "multiset": lambda m: Multiset(m, ["a"], seed=1),
    "sequence": lambda m: Sequence(m, ["a"], seed=1),
    "queue": lambda m: Queue(m, ["a"], seed=1),
    "hash table": lambda m: HashTable(m, {"k": "v"}, seed=1),
    "graph": lambda m: Graph(m, seed=1),
    "directed graph": lambda m: Graph(m, directed=True, seed=1),
    "automaton": lambda m: FiniteStateAutomaton(m, seed=1),
}
#: wide enough that a vector per label costs more than the labels' bytes (4 kB against 40)
_WIDE = VSA.create("MAP", dim=1024, backend="numpy", seed=5)


@FUZZ
@given(kind=st.sampled_from(sorted(LABELLED)), n=st.integers(0, 4000), strings=st.booleans())
@example(kind="multiset", n=4000, strings=False)
@example(kind="graph", n=4000, strings=True)
def test_fuzz_records_naming_many_labels(monkeypatch, kind, n, strings):
    """A record (signed again) that names ``n`` labels, and the counts that go with them:
    refused with a clear error or loaded, in memory bounded by the file (no vector drawn
    per label; graphs and automata add their items again in blocks, here of 1 MiB)."""
    import holovec.structures.base as base

    monkeypatch.setattr(base, "CHUNK_BYTES", 2**20, raising=False)
    obj = LABELLED[kind](_WIDE)
    saved, cls = _bytes_of(obj), type(obj)
    labels = [f"label {i}" for i in range(n)] if strings else list(range(n))

    def edit(record, arrays):
        record["labels"] = encode_labels(labels)
        fields = record["fields"]
        for name, count in (("keys", n // 2), ("edges", n // 2), ("transitions", n // 3), ("size", n)):
            if name in fields:
                fields[name] = count
        if "accept" in fields:
            fields["accept"], fields["start"] = n - 3 * (n // 3), False

    obj = load_or_refuse(_resigned(saved, edit), cls, limit=_PEAK + 400 * n)
    if obj is not None and kind in ("multiset", "sequence", "queue"):
        assert obj.table.labels == labels
