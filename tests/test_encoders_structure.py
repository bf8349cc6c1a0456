"""Symbols, sequences, n-grams, trajectories, records, graphs, images and vectors.

Capacities checked here (dim 2,000, measured with these seeds; the docstrings state them):
sequences of 25 symbols over a 26-letter alphabet decode completely (permute and bind;
MAP, FHRR, BSC); records of 20 fields over 50 fillers decode completely; graphs of 20
edges over 40 nodes give exactly their neighbours under the default threshold.
"""

from __future__ import annotations

import hashlib
import os
import string
import subprocess
import sys

import numpy as np
import pytest

from conftest import device_for, to_numpy
from holovec import VSA, get_backend
from holovec.encoders import (
    GraphEncoder,
    ImageEncoder,
    NGramEncoder,
    PositionBindingEncoder,
    RecordEncoder,
    SymbolCodebook,
    SymbolTable,
    TrajectoryEncoder,
    VectorEncoder,
)
from holovec.random import Purpose, random_words

ALPHABET = string.ascii_lowercase
ALL_MODELS = [
    ("MAP", {}),
    ("MAP-C", {}),
    ("MAP-I", {}),
    ("FHRR", {}),
    ("BSC", {}),
    ("BSC", {"packed": True}),
    ("HRR", {}),
    ("VTB", {}),
    ("GHRR", {}),
    ("BSDC", {}),
    ("BSDC-SEG", {}),
]
MODEL_IDS = [name + ("-packed" if kw else "") for name, kw in ALL_MODELS]
TEXT = (
    "the quick brown fox jumps over the lazy dog while the cat sat on the mat and "
    "a dog barked at the quick cat that sat on the brown mat near the lazy fox"
)


def host(model, x) -> np.ndarray:
    return np.asarray(to_numpy(model, x))


def close(model, a, b, tol=2e-5) -> bool:
    return np.allclose(host(model, a).astype(np.complex128), host(model, b), atol=tol, rtol=0)


# -- random words of many streams --------------------------------------------------------


@pytest.mark.parametrize("backend_name", ["numpy", "torch"])
def test_words_of_many_streams_equal_one_draw_per_stream(backend_name):
    be = get_backend(backend_name, "cpu")
    streams = [0, 5, 2**64 - 1, 123456789012345]
    one_draw = be.to_numpy(random_words(be, 9, 4, 30, stream=streams, purpose=Purpose.SYMBOLS, row_start=3))
    generic = be.to_numpy(
        random_words(be, 9, 4, 30, stream=streams, purpose=Purpose.SYMBOLS, row_start=3, generic=True)
    )
    each = np.stack(
        [
            be.to_numpy(random_words(be, 9, 1, 30, stream=s, purpose=Purpose.SYMBOLS, row_start=3))[0]
            for s in streams
        ]
    )
    assert (one_draw == each).all() and (generic == each).all()
    with pytest.raises(ValueError, match="one stream per row"):
        random_words(be, 9, 3, 30, stream=streams)


# -- symbol tables --------------------------------------------------------------------------


def test_symbol_table_is_stable_across_processes():
    code = (
        "import hashlib; from holovec import VSA; from holovec.encoders import SymbolTable;"
        "m = VSA.create('MAP', dim=1000); t = SymbolTable(m, seed=7);"
        "print(hashlib.sha256(m.to_numpy(t.vectors(['cat', 'dog', ('x', 1)])).tobytes()).hexdigest())"
    )
    digests = set()
    for hash_seed in ("1", "2"):  # Python's hash() differs between these processes
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "HOLOVEC_BACKEND": "numpy"}
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
        )
        digests.add(out.stdout.strip())
    model = VSA.create("MAP", dim=1000, backend="numpy")
    here = SymbolTable(model, seed=7).vectors(["dog", "cat", ("x", 1)])[[1, 0, 2]]  # order does not matter
    assert digests == {hashlib.sha256(model.to_numpy(here).tobytes()).hexdigest()}


@pytest.mark.parametrize("name", ["MAP", "FHRR", "BSC", "BSDC-SEG"])
def test_symbol_table_is_the_same_on_every_backend(backend, name):
    labels = ["cat", "dog", 3, ("a", 1.5), b"\x00"]
    ref_model = VSA.create(name, dim=512, backend="numpy")
    ref = ref_model.to_numpy(SymbolTable(ref_model, seed=11).vectors(labels))
    model = VSA.create(name, dim=512, backend=backend, device=device_for(backend))
    table = SymbolTable(model, seed=11)
    got = host(model, table.vectors(labels))
    if name == "FHRR":
        assert np.abs(got - ref).max() < 1e-6
    else:
        assert (got == ref).all()
    # one label, a batch, a cache hit and a fresh draw agree
    assert (host(model, table["dog"]) == got[1]).all()
    assert (host(model, table.draw(labels)) == got).all()


def test_symbol_table_labels_namespaces_and_errors():
    model = VSA.create("MAP", dim=1000, backend="numpy")
    table = SymbolTable(model, seed=1)
    v = model.to_numpy(table.vectors([1, 1.0, "1", True, (1,)]))
    sims = v @ v.T / 1000
    assert np.abs(sims - np.eye(5)).max() < 0.15  # five different symbols
    assert len(table) == 5 and table.labels == [1, 1.0, "1", True, (1,)]
    other = SymbolTable(model, seed=1, namespace="roles")
    assert abs(float(model.similarity(table["cat"], other["cat"]))) < 0.15
    assert (model.to_numpy(SymbolTable(model, seed=1)["cat"]) == model.to_numpy(table["cat"])).all()
    assert table.decode(table["cat"])[0] == "cat"
    with pytest.raises(TypeError, match="label"):
        table[[1, 2]]
    with pytest.raises(TypeError, match="sequence of labels"):
        table.vectors("abc")
    with pytest.raises(TypeError, match="model"):
        SymbolTable("MAP")


def test_symbol_codebook_indexes_texts_and_cleans_up():
    model = VSA.create("BSC", dim=1000, backend="numpy")
    table = SymbolTable(model, seed=3)
    book = table.codebook(ALPHABET)
    assert book.index_text("hello").tolist() == [7, 4, 11, 11, 14]
    assert (model.to_numpy(book.vectors[4]) == model.to_numpy(table["e"])).all()  # rows are the table's
    assert book.cleanup(book.vectors[[2, 0]]) == [("c", 1.0), ("a", 1.0)]
    top = book.cleanup(model.bundle(book.vectors[[1, 2, 3]]), k=3)
    assert sorted(label for label, _ in top) == ["b", "c", "d"]
    with pytest.raises(ValueError, match="not in the codebook"):
        book.index_text("Hello!")
    with pytest.raises(ValueError, match="not in this codebook"):
        book.index(["a", "zz"])
    with pytest.raises(ValueError, match="distinct"):
        SymbolCodebook(model, ["a", "a"], seed=1)


# -- positions ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["MAP", "FHRR", "BSC"])
@pytest.mark.parametrize("method", ["permute", "bind"])
def test_position_binding_round_trip_at_capacity(name, method):
    model = VSA.create(name, dim=2000, backend="numpy")
    enc = PositionBindingEncoder(model, symbols=ALPHABET, method=method, seed=1)
    rng = np.random.default_rng(0)
    seqs = ["".join(rng.choice(list(ALPHABET), 25)) for _ in range(8)]
    decoded = enc.decode(enc.encode_batch(seqs), 25)
    assert ["".join(d) for d in decoded] == seqs
    # order matters: a sequence and its reverse are nearly unrelated
    assert abs(float(model.similarity(enc.encode("abcdefgh"), enc.encode("hgfedcba")))) < 0.2


def test_position_binding_batch_equals_single_on_every_backend(backend):
    model = VSA.create("MAP", dim=1000, backend=backend, device=device_for(backend))
    ref_model = VSA.create("MAP", dim=1000, backend="numpy")
    seqs = ["abc", "hello world", "x", ["cat", "sat", "on", "mat"]]
    for method in ("permute", "bind"):
        enc = PositionBindingEncoder(model, method=method, seed=4)
        batch = host(model, enc.encode_batch(seqs))
        single = np.stack([host(model, enc.encode(s)) for s in seqs])
        ref = PositionBindingEncoder(ref_model, method=method, seed=4).encode_batch(seqs)
        assert (batch == single).all() and (batch == ref).all()
    assert enc.decode(enc.encode(["cat", "sat"]), 2) == ["cat", "sat"]


@pytest.mark.parametrize("name", ["HRR", "GHRR", "BSDC-SEG"])
def test_position_binding_serves_other_models(name):
    model = VSA.create(name, dim=1024, backend="numpy")
    enc = PositionBindingEncoder(model, symbols=ALPHABET, method="bind", seed=2)
    assert "".join(enc.decode(enc.encode("vectors"), 7)) == "vectors"
    seqs = ["abc", "hello"]
    assert close(model, enc.encode_batch(seqs), model.xp.stack([enc.encode(s) for s in seqs]))


def test_position_binding_errors_and_threshold():
    model = VSA.create("MAP", dim=1000, backend="numpy")
    enc = PositionBindingEncoder(model, symbols=ALPHABET, max_length=5, seed=1)
    with pytest.raises(ValueError, match="empty"):
        enc.encode("")
    with pytest.raises(ValueError, match="max_length"):
        enc.encode("abcdefg")
    with pytest.raises(ValueError, match="not in the codebook"):
        enc.encode("ab!")
    with pytest.raises(ValueError, match="method"):
        PositionBindingEncoder(model, method="roll")
    # reading past the end stops at the threshold
    assert enc.decode(enc.encode("abc"), 5, threshold=0.3) == ["a", "b", "c"]


# -- n-grams --------------------------------------------------------------------------------


def ngram_reference(enc, text):
    """The definition: bundle of bind(rho^(n-1)(s_1), ..., s_n) over all n-grams, one call."""
    model, n = enc.model, enc.n
    vs = enc.symbols.vectors(list(text))
    m = len(text) - n + 1
    gram = model.permute(vs[0:m], n - 1)
    for i in range(1, n):
        gram = model.bind(gram, model.permute(vs[i : m + i], n - 1 - i))
    return model.bundle(gram)


@pytest.mark.parametrize(("name", "kw"), ALL_MODELS, ids=MODEL_IDS)
def test_ngram_equals_the_definition_for_every_model(name, kw):
    model = VSA.create(name, dim=576, backend="numpy", **kw)
    enc = NGramEncoder(model, n=3, seed=5)
    texts = [TEXT, TEXT[20:90], "abcabc"]
    batch = enc.encode_batch(texts)
    for i, text in enumerate(texts):
        ref = ngram_reference(enc, text)
        assert close(model, enc.encode(text), ref), f"{name}: single text"
        assert close(model, batch[i], ref), f"{name}: batch row {i}"


@pytest.mark.parametrize("name", ["MAP", "FHRR", "BSC"])
def test_ngram_order_and_shared_ngrams(name):
    model = VSA.create(name, dim=10_000, backend="numpy")
    enc = NGramEncoder(model, n=3, seed=1)
    sim = lambda a, b: float(model.similarity(enc.encode(a), enc.encode(b)))  # noqa: E731
    assert abs(sim("abc", "cba")) < 0.05  # one trigram each, in opposite orders
    assert abs(sim("abc", "bca")) < 0.05
    assert sim(TEXT, TEXT[:-10] + "xyzzy qwer") > 0.8  # most trigrams shared
    assert abs(sim(TEXT, "zyxwv utsrq ponml kjihg fedcb a")) < 0.1
    # a bag of permuted letters would call these equal; trigrams see the order
    assert sim("dog bites man", "man bites dog") < 0.75


def test_ngram_on_every_backend_and_labels(backend):
    model = VSA.create("MAP", dim=2000, backend=backend, device=device_for(backend))
    ref = NGramEncoder(VSA.create("MAP", dim=2000, backend="numpy"), n=3, seed=2).encode_batch(
        [TEXT, "hello"]
    )
    enc = NGramEncoder(model, n=3, seed=2)
    assert (host(model, enc.encode_batch([TEXT, "hello"])) == ref).all()
    assert (host(model, enc.encode(TEXT)) == ref[0]).all()
    words = TEXT.split()
    bigrams = NGramEncoder(model, n=2, seed=2)
    assert float(model.similarity(bigrams.encode(words), bigrams.encode(words[:-1]))) > 0.8


def test_ngram_options_and_errors():
    model = VSA.create("MAP", dim=1000, backend="numpy")
    enc = NGramEncoder(model, n=3, stride=2, seed=1)
    assert enc.ngrams("abcdefg") == [("a", "b", "c"), ("c", "d", "e"), ("e", "f", "g")]
    assert close(
        model,
        enc.encode("abcdefg"),
        model.bundle(NGramEncoder(model, 3, seed=1)._encode(["abc", "cde", "efg"])),
    )
    with pytest.raises(ValueError, match="no 3-grams"):
        enc.encode("ab")
    with pytest.raises(ValueError, match="method"):
        NGramEncoder(model, method="bag")
    with pytest.raises(ValueError, match="n must"):
        NGramEncoder(model, n=0)
    chained = NGramEncoder(model, n=2, method="chaining", seed=1)
    assert abs(float(model.similarity(chained.encode("abcd"), chained.encode("cdab")))) < 0.4


# -- trajectories -------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["MAP", "FHRR", "BSC"])
def test_trajectory_similarity_batches_and_errors(name):
    model = VSA.create(name, dim=4000, backend="numpy")
    enc = TrajectoryEncoder(model, 2, min_val=0, max_val=10, seed=1)
    assert enc.scalar_kind in ("fpe", "level")
    rng = np.random.default_rng(1)
    path = rng.uniform(1, 9, (12, 2))
    a, near, far = enc.encode(path), enc.encode(path + 0.1), enc.encode(rng.uniform(1, 9, (12, 2)))
    assert float(model.similarity(a, near)) > 0.9 and float(model.similarity(a, far)) < 0.9
    batch = enc.encode(np.stack([path, path + 0.1]))
    assert close(model, batch, model.xp.stack([a, near]), tol=1e-4)
    timed = TrajectoryEncoder(model, 2, min_val=0, max_val=10, time_range=(0, 20), seed=1)
    t = np.arange(12.0)
    shifted = float(model.similarity(timed.encode(path, times=t), timed.encode(path, times=t + 0.2)))
    assert shifted > float(model.similarity(timed.encode(path, times=t), timed.encode(path[::-1], times=t)))
    with pytest.raises(ValueError, match="finite"):
        enc.encode(np.array([[1.0, np.nan]]))
    with pytest.raises(ValueError, match="outside"):
        enc.encode(np.array([[1.0, 11.0]]))
    with pytest.raises(ValueError, match="shape"):
        enc.encode(np.ones((3, 3)))
    with pytest.raises(ValueError, match="time_range"):
        enc.encode(path, times=t)


def test_trajectory_level_codes_serve_every_model():
    model = VSA.create("BSDC-SEG", dim=1024, backend="numpy")
    enc = TrajectoryEncoder(model, 1, min_val=0, max_val=1, method="level", seed=3)
    assert enc.scalar_kind == "level"
    x = np.linspace(0, 1, 6)
    assert float(model.similarity(enc.encode(x), enc.encode(x + 0.01 * (x < 0.99)))) > 0.6


# -- records ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["MAP", "FHRR", "BSC", "HRR", "GHRR"])
def test_record_round_trip_at_capacity(name):
    model = VSA.create(name, dim=2000, backend="numpy")
    enc = RecordEncoder(model, seed=1)
    fillers = [f"f{i}" for i in range(50)]
    rng = np.random.default_rng(2)
    records = [{f"r{j}": fillers[rng.integers(50)] for j in range(20)} for _ in range(6)]
    vectors = enc.encode_batch(records)
    for j in range(20):
        found = enc.decode(vectors, f"r{j}", candidates=fillers)
        assert [label for label, _ in found] == [r[f"r{j}"] for r in records]
    fields = enc.decode_all(vectors[0], candidates=fillers)
    assert {role: label for role, (label, _) in fields.items()} == records[0]


def test_record_batches_nesting_backends_and_errors(backend):
    model = VSA.create("MAP", dim=2000, backend=backend, device=device_for(backend))
    enc = RecordEncoder(model, seed=3)
    people = [{"name": "ann", "city": "oslo"}, {"name": "bob", "city": "rome", "job": "cook"}]
    batch = enc.encode_batch(people)
    assert (host(model, batch) == np.stack([host(model, enc.encode(p)) for p in people])).all()
    ref = RecordEncoder(VSA.create("MAP", dim=2000, backend="numpy"), seed=3).encode_batch(people)
    assert (host(model, batch) == ref).all()
    assert [label for label, _ in enc.decode(batch, "city")] == ["oslo", "rome"]
    nested = enc.encode({"who": batch[1], "when": "monday"})
    inner = enc.unbind(nested, "who")
    assert enc.decode(inner, "job")[0] == "cook"
    with pytest.raises(ValueError, match="empty"):
        enc.encode({})
    with pytest.raises(TypeError, match="mapping"):
        enc.encode_batch([["name", "ann"]])


@pytest.mark.parametrize(("name", "kw"), ALL_MODELS, ids=MODEL_IDS)
def test_record_batch_binds_each_distinct_pair_once_and_equals_encode(name, kw):
    # repeated pairs, ragged lengths, a vector filler and many chunks: row i is encode(record i)
    model = VSA.create(name, dim=256, backend="numpy", **kw)
    enc = RecordEncoder(model, seed=4)
    nested = enc.encode({"x": "y"})
    records = [{"name": f"n{i % 7}", "city": f"c{i % 3}", **({"age": i} if i % 4 else {})} for i in range(90)]
    records[5] = {"who": nested, "name": "n1"}
    batch = enc.encode_batch(records)
    assert batch.shape == (90, model.vector_length)
    for i in (0, 1, 5, 50, 89):
        assert close(model, batch[i], enc.encode(records[i])), i
    codebook = RecordEncoder(model, roles=["name", "city"], fillers=["a", "b"], seed=4)
    assert close(
        model,
        codebook.encode_batch([{"name": "a", "city": "b"}] * 3)[2],
        codebook.encode({"name": "a", "city": "b"}),
    )


def test_record_decode_of_an_unknown_role_is_an_error():
    model = VSA.create("MAP", dim=2000, backend="numpy")
    enc = RecordEncoder(model, seed=1)
    v = enc.encode({"name": "ann", "city": "oslo"})
    for call in (lambda: enc.decode(v, "salary"), lambda: enc.unbind(v, "salary"),
                 lambda: enc.decode_all(v, roles=["name", "salary"])):  # fmt: skip
        with pytest.raises(ValueError, match=r"unknown role 'salary'.*'name', 'city'"):
            call()
    assert "salary" not in enc.roles  # not added to the table
    assert enc.decode(v, "city")[0] == "oslo"
    with pytest.raises(ValueError, match="none yet"):
        RecordEncoder(model, seed=1).decode(v, "name")
    declared = RecordEncoder(model, roles=["name", "city"], seed=1)  # a codebook of roles
    with pytest.raises(ValueError, match="unknown role 'salary'"):
        declared.decode(v, "salary")
    assert declared.decode(v, "name", candidates=["ann", "bob"])[0] == "ann"


def test_record_encode_of_several_records_points_to_encode_batch():
    enc = RecordEncoder(VSA.create("MAP", dim=500, backend="numpy"), seed=1)
    with pytest.raises(TypeError, match=r"one record.*encode_batch\(records\)"):
        enc.encode([{"a": "b"}, {"a": "c"}])
    with pytest.raises(TypeError, match=r"use encode\(record\)"):
        enc.encode_batch({"a": "b"})


# -- graphs -----------------------------------------------------------------------------------


def random_edges(rng, n_nodes, n_edges, directed):
    pairs = set()
    while len(pairs) < n_edges:
        u, v = (int(x) for x in rng.choice(n_nodes, 2, replace=False))
        pairs.add((u, v) if directed else (min(u, v), max(u, v)))
    return [(f"n{u}", f"n{v}") for u, v in sorted(pairs)]


@pytest.mark.parametrize("name", ["MAP", "FHRR", "BSC", "GHRR"])
@pytest.mark.parametrize("directed", [False, True])
def test_graph_neighbours_at_capacity(name, directed):
    model = VSA.create(name, dim=2000, backend="numpy")
    enc = GraphEncoder(model, directed=directed, seed=1)
    nodes = [f"n{i}" for i in range(40)]
    edges = random_edges(np.random.default_rng(3), 40, 20, directed)
    graph = enc.encode(edges)
    found = enc.neighbours(graph, nodes, candidates=nodes)
    for node, got in zip(nodes, found, strict=True):
        truth = {v for u, v in edges if u == node} | (
            set() if directed else {u for u, v in edges if v == node}
        )
        assert {label for label, _ in got} == truth, node
    if directed and model.is_commutative:
        sources = enc.neighbours(graph, edges[0][1], direction="in", candidates=nodes)
        assert edges[0][0] in {label for label, _ in sources}
    u, v = edges[0]
    assert enc.has_edge(graph, u, v) > 0.1 and abs(enc.has_edge(graph, "n0", "zz")) < 0.1


def test_graph_batches_and_errors(backend):
    model = VSA.create("MAP", dim=2000, backend=backend, device=device_for(backend))
    enc = GraphEncoder(model, seed=2)
    graphs = [[("a", "b"), ("b", "c")], [("c", "d")], [("a", "d"), ("d", "e"), ("e", "a")]]
    batch = enc.encode_batch(graphs)
    assert (host(model, batch) == np.stack([host(model, enc.encode(g)) for g in graphs])).all()
    assert {label for label, _ in enc.neighbours(batch[2], "a")} == {"d", "e"}
    with pytest.raises(ValueError, match="without edges"):
        enc.encode([])
    with pytest.raises(ValueError, match="pair"):
        enc.encode([("a", "b", "c")])
    directed = GraphEncoder(VSA.create("GHRR", dim=256, backend="numpy"), directed=True, seed=1)
    with pytest.raises(TypeError, match="commutative"):
        directed.neighbours(directed.encode([("a", "b")]), "b", direction="in")


# -- images ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "kw"), ALL_MODELS, ids=MODEL_IDS)
def test_image_encoding_equals_the_per_pixel_bundle(name, kw):
    model = VSA.create(name, dim=576, backend="numpy", **kw)
    enc = ImageEncoder(model, shape=(3, 4), levels=8, seed=1)
    images = np.random.default_rng(0).integers(0, 256, (3, 3, 4))
    batch = enc.encode(images)
    for i, image in enumerate(images):
        ref = enc.encode_reference(image)
        assert close(model, batch[i], ref), f"{name}: image {i}"
        assert close(model, enc.encode(image), ref)


def test_image_positions_levels_and_similarity():
    model = VSA.create("MAP", dim=10_000, backend="numpy")
    enc = ImageEncoder(model, shape=(28, 28), levels=16, seed=1)
    p = model.to_numpy(enc.position_codes)
    sims = p @ p.T / model.dim
    np.fill_diagonal(sims, 0)
    assert np.abs(sims).max() < 0.06  # 784 distinct, quasi-orthogonal position codes
    levels = model.to_numpy(enc.level_vectors)
    graded = levels[0] @ levels.T / model.dim
    assert (np.diff(graded) < 0).all() and abs(graded[-1]) < 0.05  # graded, ends unrelated
    assert abs(graded[1] - (1 - 1 / 15)) < 0.01
    rng = np.random.default_rng(2)
    image = rng.integers(0, 256, (28, 28))
    noisy = np.clip(image + rng.integers(-10, 11, (28, 28)), 0, 255)
    other = rng.integers(0, 256, (28, 28))
    v = enc.encode(np.stack([image, noisy, other]))
    near, far = float(model.similarity(v[0], v[1])), float(model.similarity(v[0], v[2]))
    # graded levels: even unrelated images share about a third of each pixel's code
    assert near > 0.85 and near > far + 0.25


def test_image_batches_backends_and_errors(backend):
    model = VSA.create("MAP", dim=2000, backend=backend, device=device_for(backend))
    enc = ImageEncoder(model, shape=(8, 8), levels=16, seed=3)
    images = np.random.default_rng(4).integers(0, 256, (5, 8, 8)).astype(np.uint8)
    batch = host(model, enc.encode(images))
    assert (batch == np.stack([host(model, enc.encode(im)) for im in images])).all()
    ref = ImageEncoder(VSA.create("MAP", dim=2000, backend="numpy"), shape=(8, 8), levels=16, seed=3)
    assert (batch == ref.encode(images)).all()
    bad = images.astype(np.float64)
    bad[1, 2, 3] = np.nan
    with pytest.raises(ValueError, match="finite"):
        enc.encode(bad)
    bad[1, 2, 3] = np.inf
    with pytest.raises(ValueError, match="finite"):
        enc.encode(bad)
    with pytest.raises(ValueError, match="outside"):
        enc.encode(images.astype(np.float64) + 1)
    clipped = ImageEncoder(model, shape=(8, 8), levels=16, seed=3, clip=True)
    assert (
        host(model, clipped.encode(np.full((8, 8), 300.0))) == host(model, enc.encode(np.full((8, 8), 255)))
    ).all()
    with pytest.raises(ValueError, match="shape"):
        enc.encode(np.zeros((28, 28)))


# -- vectors -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["MAP", "BSC", "HRR", "VTB", "MAP-C", "MAP-I", "FHRR"])
def test_vector_encoder_preserves_similarity(name):
    model = VSA.create(name, dim=4096, backend="numpy")
    enc = VectorEncoder(model, n_features=20, bandwidth=0.3, seed=1)
    rng = np.random.default_rng(5)
    base = rng.normal(size=20)
    x = base + rng.normal(size=(40, 20)) * np.linspace(0.05, 3, 40)[:, None]  # from near to far
    h = enc.encode(x)
    got = host(model, model.similarity_matrix(h[:1], h))[0]
    if name == "FHRR":  # random Fourier features: the Gaussian kernel of the distance
        d2 = ((x - x[0]) ** 2).sum(axis=1)
        expected = np.exp(-(0.3**2) * d2 / 2)
    else:
        cos = x @ x[0] / np.linalg.norm(x, axis=1) / np.linalg.norm(x[0])
        expected = 1 - 2 * np.arccos(np.clip(cos, -1, 1)) / np.pi if name in ("MAP", "BSC", "MAP-I") else cos
    assert np.corrcoef(got, expected)[0, 1] > 0.95
    if name in ("MAP", "BSC", "MAP-I", "HRR", "VTB", "FHRR"):
        assert np.abs(got - expected).max() < 0.08  # the expectation, within a few 1/sqrt(D)


def test_vector_encoder_batches_backends_and_errors(backend):
    model = VSA.create("MAP", dim=1000, backend=backend, device=device_for(backend))
    enc = VectorEncoder(model, n_features=6, seed=2)
    x = np.random.default_rng(0).normal(size=(4, 6))
    batch = host(model, enc.encode(x))
    assert (batch == np.stack([host(model, enc.encode(row)) for row in x])).all()
    ref = VectorEncoder(VSA.create("MAP", dim=1000, backend="numpy"), n_features=6, seed=2).encode(x)
    assert (batch == ref).all()
    bad = x.copy()
    bad[0, 0] = np.inf
    with pytest.raises(ValueError, match="finite"):
        enc.encode(bad)
    with pytest.raises(ValueError, match="shape"):
        enc.encode(np.ones((2, 5)))
    with pytest.raises(TypeError, match="supports the models"):
        VectorEncoder(VSA.create("BSDC", dim=1000), n_features=3)


def test_directed_graph_refuses_a_bind_that_permutation_passes_through():
    """HRR's circular convolution commutes with the cyclic shift that marks a directed
    edge's target, so u -> v would read as v -> u too: a TypeError, not wrong neighbours."""
    model = VSA.create("HRR", dim=256, backend="numpy")
    assert model.bind_commutes_with_permute
    with pytest.raises(TypeError, match="bind_commutes_with_permute"):
        GraphEncoder(model, directed=True, seed=1)
    GraphEncoder(model, seed=1)  # undirected edges are unaffected
