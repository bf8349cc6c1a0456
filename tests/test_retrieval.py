"""holovec.retrieval: codebooks and their storage, top-k search, cleanup, associative memory."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from conftest import device_for, to_numpy
from holovec import VSA, capacity, kernels
from holovec.encoders import SymbolTable
from holovec.retrieval import AssocStore, Codebook, ItemStore, cleanup, search

MODELS = [("FHRR", {}), ("MAP", {}), ("BSC", {}), ("BSC", {"packed": True})]
MODEL_IDS = ["FHRR", "MAP", "BSC", "BSC-packed"]


@pytest.fixture(params=MODELS, ids=MODEL_IDS)
def spec(request):
    return request.param


def brute_force(model, queries, items):
    """Similarities of every query with every item by model.similarity (broadcast)."""
    return to_numpy(model, model.similarity(queries[:, None, :], items[None, :, :]))


def rows_of(model, x, rows):
    """Rows of ``x`` (a list of ints) on any backend (JAX does not index with lists)."""
    return model.xp.take(x, model.backend.from_numpy(np.asarray(rows, dtype=np.int64)), axis=0)


def reference_top_k(sims, k):
    idx = np.argsort(-sims, axis=-1, kind="stable")[:, :k]
    return np.take_along_axis(sims, idx, 1), idx


# -- top-k search ---------------------------------------------------------------------------
@pytest.mark.ordering
@pytest.mark.parametrize("chunk", [None, 8])
def test_search_equals_brute_force(make_model, spec, chunk):
    name, opts = spec
    # a small dim gives many exactly equal similarities for the discrete models: ties
    dim = 64 if name != "FHRR" else 256
    model = make_model(name, dim, **opts)
    items = model.random(60, seed=1)
    items = model.xp.concat([items, items[:10]], axis=0)  # exact duplicates: ties
    queries = model.xp.concat([model.random(12, seed=2), items[:3]], axis=0)
    ref = brute_force(model, queries, items)
    for k in (1, 5) if chunk else (1, 5, 70, 300):
        sims, idx = search(model, queries, items, k, chunk_size=chunk)
        sims, idx = to_numpy(model, sims), to_numpy(model, idx)
        kk = min(k, 70)
        assert sims.shape == idx.shape == (15, kk)
        ref_s, ref_i = reference_top_k(ref, kk)
        np.testing.assert_allclose(sims, ref_s, atol=1e-5)
        np.testing.assert_allclose(np.take_along_axis(ref, idx, 1), sims, atol=1e-5)
        assert all(len(set(r)) == kk for r in idx.tolist())  # no item twice
        if name != "FHRR":  # exact similarities: the very same indices, ties lowest first
            np.testing.assert_array_equal(idx, ref_i)
        else:  # duplicated items: exactly tied, lower index first
            assert idx[12, 0] == 0 and (k == 1 or idx[12, 1] == 60)


def test_item_store_query(make_model, spec):
    name, opts = spec
    model = make_model(name, 512, **opts)
    labels = [f"item{i}" for i in range(40)]
    book = Codebook.from_seed(model, labels, seed=3)
    store = ItemStore(model, chunk_size=16).fit(book)
    assert len(store) == 40
    one = store.query(book["item17"])
    assert one[0][0] == "item17" and one[0][1] == pytest.approx(1.0, abs=1e-5)
    assert len(one) == 1
    batch = store.query(rows_of(model, book.vectors, [3, 39, 0]), k=4)
    assert [r[0][0] for r in batch] == ["item3", "item39", "item0"]
    assert all(len(r) == 4 for r in batch)
    ref = brute_force(model, rows_of(model, book.vectors, [3, 39, 0]), book.vectors)
    ref_s, _ = reference_top_k(ref, 4)
    for row, rs in zip(batch, ref_s, strict=True):
        np.testing.assert_allclose([s for _, s in row], rs, atol=1e-5)
        assert [s for _, s in row] == sorted((s for _, s in row), reverse=True)
    # threshold: only the item itself is that similar
    thr = store.query(rows_of(model, book.vectors, [3, 39, 0]), k=4, threshold=0.5)
    assert [[lab for lab, _ in r] for r in thr] == [["item3"], ["item39"], ["item0"]]
    assert store.query(model.random(seed=99), k=3, threshold=1.01) == []


def test_item_store_errors(make_model):
    model = make_model("MAP", 64)
    store = ItemStore(model)
    with pytest.raises(ValueError, match="fit"):
        store.query(model.random(seed=1))
    store.fit(model.random(5, seed=1))
    assert store.query(model.random(5, seed=1)[2])[0][0] == 2
    with pytest.raises(ValueError):
        store.query(model.random(seed=1), k=0)
    with pytest.raises(TypeError):
        store.query(model.random(seed=1), k=1.5)
    other = VSA.create("MAP", dim=65, backend=model.backend.name, device=device_for(model.backend.name))
    with pytest.raises(ValueError, match="shape"):
        store.query(other.random(seed=1))


# -- top_k hook of the backends -------------------------------------------------------------
def test_backend_top_k_ties(make_model):
    model = make_model("MAP", 8)
    rng = np.random.default_rng(0)
    for _ in range(30):
        n = int(rng.integers(1, 40))
        scores = rng.integers(0, 4, size=(6, n)).astype(np.float32)
        k = int(rng.integers(1, n + 1))
        v, i = kernels.top_k(model.backend, model.backend.from_numpy(scores), k)
        ref = np.argsort(-scores, axis=-1, kind="stable")[:, :k]
        np.testing.assert_array_equal(to_numpy(model, i), ref)
        np.testing.assert_array_equal(to_numpy(model, v), np.take_along_axis(scores, ref, 1))


# -- capacity against theory ----------------------------------------------------------------
def theory(n, m, d):
    """Frady, Kleyko and Sommer (2018): p = integral phi(h) Phi(h + sqrt(N/M))^(D-1) dh."""
    from scipy import integrate, stats

    snr = math.sqrt(n / m)
    f = lambda h: stats.norm.pdf(h) * stats.norm.cdf(h + snr) ** (d - 1)  # noqa: E731
    return integrate.quad(f, -12, 12, limit=200)[0]


@pytest.mark.parametrize("n,m,d", [(300, 40, 64), (500, 60, 256), (1000, 150, 128)])
def test_map_capacity_matches_theory(n, m, d):
    model = VSA.create("MAP", dim=n, backend="numpy", seed=11)
    trials = 8000 // m + 1  # about 8000 decodes
    codebook = model.random(d, seed=1)
    keys = model.random(trials * m, seed=2).reshape(trials, m, n)
    rng = np.random.default_rng(3)
    which = rng.integers(0, d, size=(trials, m))
    bound = model.bind(keys, codebook[which])
    memory = model.xp.sum(bound, axis=1)  # linear superposition, as in the theory
    decoded = model.unbind(memory[:, None, :], keys)
    _, idx = search(model, decoded, codebook, 1)
    accuracy = float(np.mean(idx[..., 0] == which))
    # the planner's lookup of MAP-I (whose bundle is this linear sum) gives the same figure
    planned = capacity.accuracy("MAP-I", n, d, m, query="lookup")
    print(f"N={n} M={m} D={d}: accuracy {accuracy:.4f}, theory {theory(n, m, d):.4f}, planner {planned:.4f}")
    assert accuracy == pytest.approx(theory(n, m, d), abs=0.02)
    assert accuracy == pytest.approx(planned, abs=0.02)


# -- codebooks ------------------------------------------------------------------------------
def test_codebook_basics(make_model, spec):
    name, opts = spec
    model = make_model(name, 128, **opts)
    book = Codebook(model, ["a", "b", 3])
    assert len(book) == 3 and book.labels == ["a", "b", 3] and "b" in book and "c" not in book
    assert tuple(book.vectors.shape) == (3, model.vector_length)
    assert float(model.similarity(book["b"], book.vectors[1])) == pytest.approx(1.0)
    book.add("c")  # a seeded symbol from the book's seed
    v = model.random(seed=5)
    book.add("d", v)
    np.testing.assert_array_equal(to_numpy(model, book["d"]), to_numpy(model, v))
    book.remove("b")
    assert book.labels == ["a", 3, "c", "d"] and book.index("c") == 2
    with pytest.raises(KeyError):
        book["b"]
    with pytest.raises(ValueError, match="already"):
        book.add("a", v)
    with pytest.raises(ValueError, match="duplicate"):
        Codebook(model, ["x", "x"])
    with pytest.raises(ValueError, match="labels"):
        Codebook(model, ["x"], model.random(2, seed=1))
    plain = Codebook(model, vectors=model.random(4, seed=1))
    assert plain.labels == [0, 1, 2, 3]


def test_from_seed_rebuilds(make_model, spec):
    name, opts = spec
    model = make_model(name, 200, **opts)
    labels = ["x", "y", 7, ("not", "saved")]
    one = Codebook.from_seed(model, labels, seed=42)
    two = Codebook.from_seed(model, labels[::-1], seed=42)
    table = SymbolTable(model, seed=42)
    for label in labels:
        np.testing.assert_array_equal(to_numpy(model, one[label]), to_numpy(model, two[label]))
        np.testing.assert_array_equal(to_numpy(model, one[label]), to_numpy(model, table[label]))
    # the same vectors as on NumPy (bit-identical for discrete models)
    ref_model = VSA.create(name, dim=200, backend="numpy", **opts)
    ref = Codebook.from_seed(ref_model, labels, seed=42)
    np.testing.assert_allclose(to_numpy(model, one.vectors), ref.vectors, atol=1e-6)
    other = Codebook.from_seed(model, labels, seed=43)
    assert not np.array_equal(to_numpy(model, other.vectors), to_numpy(model, one.vectors))


def test_save_load_round_trip(make_model, spec, tmp_path):
    name, opts = spec
    model = make_model(name, 300, **opts)
    labels = ["cat", 2, 2.5, True, "ünïcode", b"\x00raw", ("pair", 1), ("nested", (2.5, False, ("x",))), ()]
    book = Codebook.from_seed(model, labels, seed=9)
    book.add("extra", model.random(seed=4))
    path = tmp_path / "book.npz"
    book.save(path)
    back = Codebook.load(path, model)
    assert back.labels == book.labels and [type(x) for x in back.labels] == [type(x) for x in book.labels]
    a, b = to_numpy(model, book.vectors), to_numpy(model, back.vectors)
    assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
    fresh = Codebook.load(path)  # a model made from the metadata
    assert fresh.model.name == model.name and fresh.model.dim == 300
    assert fresh.model.dtype_name == model.dtype_name and fresh.model.backend.name == model.backend.name
    assert to_numpy(fresh.model, fresh.vectors).tobytes() == a.tobytes()
    assert getattr(fresh.model, "packed", False) == opts.get("packed", False)
    seeded = Codebook.from_seed(model, ["p", "q"], seed=77)
    seeded.save(tmp_path / "seeded.npz")
    assert Codebook.load(tmp_path / "seeded.npz", model).seed == 77
    meta = json.loads(str(np.load(path, allow_pickle=False)["metadata"][()]))
    for key in ("model", "dim", "dtype", "backend", "version", "count", "sha256", "options", "seed"):
        assert key in meta
    assert "model_seed" in meta and meta["version"] == 1
    # tuple labels come back as tuples, and are found by equal tuples
    assert back.labels[6:9] == [("pair", 1), ("nested", (2.5, False, ("x",))), ()]
    assert back.index(("nested", (2.5, False, ("x",)))) == 7 and ("pair", 1.0) not in back
    np.testing.assert_array_equal(to_numpy(model, back[("pair", 1)]), to_numpy(model, book[("pair", 1)]))


def test_label_keys(make_model):
    """Labels keep their types apart, inside tuples too; NumPy scalars are the Python values
    they hold (so that a codebook finds them after a save and load)."""
    model = make_model("MAP", 64)
    book = Codebook(model, [1, 1.0, True, "1", (1,), (1.0,), (True,)], model.random(7, seed=1))
    assert [book.index(x) for x in (1, 1.0, True, "1", (1,), (1.0,), (True,))] == list(range(7))
    assert book.index(np.int64(1)) == 0 and book.index(np.float32(1.0)) == 1 and book.index(np.str_("1")) == 3
    with pytest.raises(ValueError, match="duplicate"):
        Codebook(model, [np.int64(3), 3], model.random(2, seed=1))
    with pytest.raises(ValueError, match="duplicate"):
        Codebook(model, [("a", 1), ("a", np.int32(1))], model.random(2, seed=1))


# -- codebooks hold vectors of their model --------------------------------------------------
def test_codebook_takes_numpy_vectors_of_model_dtype(make_model, spec):
    """A NumPy array of exactly the model's dtype moves to the model's backend unchanged
    (as ``Codebook.load`` does); other dtypes are refused (see test_errors)."""
    name, opts = spec
    model = make_model(name, 128, **opts)
    native = model.random(3, seed=1)
    host = model.to_numpy(native)
    book = Codebook(model, ["a", "b", "c"], host)
    assert isinstance(book.vectors, model.backend.array_type) and book.vectors.dtype == model.dtype
    np.testing.assert_array_equal(to_numpy(model, book.vectors), host)
    book.add("d", model.to_numpy(model.random(seed=2)))
    assert ItemStore(model).fit(host).query(native[1])[0][0] == 1
    store = ItemStore(model).fit(native, labels=["x", "y", "z"])
    assert store.query(native[2])[0][0] == "z"
    with pytest.raises(ValueError, match="labels"):
        ItemStore(model).fit(book, labels=["x"])


def test_codebook_refuses_bsc_bits_in_map(make_model):
    """The reviewer's case: BSC bits used to become floats 0.0/1.0 in a MAP codebook."""
    map_model, bsc = make_model("MAP", 64), make_model("BSC", 64)
    bits = bsc.random(3, seed=1)
    with pytest.raises(TypeError, match=r"vectors: MAP vectors are float32, got .*uint8"):
        Codebook(map_model, ["a", "b", "c"], bits)
    with pytest.raises(TypeError, match="vector: MAP vectors are float32"):
        Codebook.from_seed(map_model, ["a"], seed=1).add("b", bits[0])
    with pytest.raises(TypeError, match="codebook: MAP vectors are float32"):
        ItemStore(map_model).fit(bits)
    # a conversion meant by the user goes through model.asarray (values kept exactly)
    book = Codebook(map_model, ["a", "b", "c"], map_model.asarray(1 - 2 * bsc.to_numpy(bits).astype(np.int8)))
    assert book.vectors.dtype == map_model.dtype


# -- models compare by configuration --------------------------------------------------------
def test_model_equality(make_model, backend):
    one = make_model("MAP", 64, seed=5)
    same = make_model("MAP", 64, seed=5)
    assert one == same and one is not same and hash(one) == hash(same) and len({one, same}) == 1
    assert one == one and one != "MAP" and one != None  # noqa: E711
    others = [
        make_model("MAP", 65, seed=5),
        make_model("MAP", 64),
        make_model("MAP", 64, seed=6),
        make_model("MAP", 64, seed=5, dtype="float16"),
        make_model("MAP-C", 64, seed=5),
        make_model("FHRR", 64, seed=5),
        make_model("HRR", 64, seed=5),
    ]
    if backend != "numpy":
        others.append(VSA.create("MAP", dim=64, backend="numpy", seed=5))
    for other in others:
        assert one != other and not one == other, other
    assert len({one, *others}) == len(others) + 1
    assert make_model("HRR", 64, unitary=True) != make_model("HRR", 64)
    assert make_model("HRR", 64, unitary=True) == make_model("HRR", 64, unitary=True)
    assert make_model("BSC", 64, packed=True) != make_model("BSC", 64)
    assert make_model("BSC", 64, packed=True) == make_model("BSC", 64, packed=True)
    assert make_model("BSDC", 256, density=0.05) != make_model("BSDC", 256, density=0.1)


def test_loaded_codebook_works_with_an_equal_model(make_model, spec, tmp_path):
    """``Codebook.load(path)`` makes a new model: it equals the original (seed included),
    and stores, cleanup and associative memories of the original model accept its codebook."""
    name, opts = spec
    model = make_model(name, 512, seed=21, **opts)
    labels = [f"item{i}" for i in range(10)]
    book = Codebook.from_seed(model, labels, seed=3)
    path = tmp_path / "book.npz"
    book.save(path)
    loaded = Codebook.load(path, device="cpu")
    assert loaded.model is not model and loaded.model == model and loaded.model.seed == 21
    store = ItemStore(model).fit(loaded)
    assert [hits[0][0] for hits in store.query(book.vectors)] == labels
    noisy = model.bundle([book["item4"], book["item4"], model.random(seed=8)])
    np.testing.assert_array_equal(
        to_numpy(model, cleanup(model, noisy, loaded)), to_numpy(model, book["item4"])
    )
    assert AssocStore(model).fit(loaded, book).query("item7")[0][0] == "item7"
    # bundle ties are broken from the model's seed: the loaded model breaks them the same way
    pair = [book["item0"], book["item1"]]
    np.testing.assert_array_equal(
        to_numpy(model, model.bundle(pair)), to_numpy(model, loaded.model.bundle(pair))
    )
    # a model of another seed is not equal: its stores refuse the codebook
    with pytest.raises(ValueError, match="seed"):
        ItemStore(make_model(name, 512, seed=22, **opts)).fit(loaded)


def test_load_file_without_model_seed(make_model, tmp_path):
    """Files written before the model's seed was recorded (same format version) still load.
    Those files had no checksum of the metadata either (deleting the model's seed from a
    newer file is an edit that its ``sha256_metadata`` refuses: see test_retrieval_edge_cases)."""
    model = make_model("MAP", 64, seed=4)
    path, old = tmp_path / "new.npz", tmp_path / "old.npz"
    Codebook.from_seed(model, ["a", "b"], seed=1).save(path)
    _rewrite(path, old, meta_change=lambda m: (m.pop("model_seed"), m.pop("sha256_metadata")))
    loaded = Codebook.load(old, device="cpu")
    assert loaded.model.seed is None and loaded.labels == ["a", "b"]
    assert loaded.model == make_model("MAP", 64)
    assert Codebook.load(old, model).model is model
    bad = tmp_path / "bad.npz"
    _rewrite(path, bad, meta_change=lambda m: m.update(model_seed="-1"))
    with pytest.raises(ValueError, match="model_seed"):
        Codebook.load(bad)


# -- to_numpy converts any array of the backend ---------------------------------------------
def test_to_numpy_of_any_backend_array(make_model, model_name):
    model = make_model(model_name, 64)
    items = model.random(5, seed=1)
    sims = model.similarity_matrix(items[:2], items)
    host = model.to_numpy(sims)
    assert isinstance(host, np.ndarray) and host.shape == (2, 5)
    np.testing.assert_allclose(host, to_numpy(model, sims))
    np.testing.assert_allclose(np.diag(host[:, :2]), 1.0, atol=1e-5)
    assert model.to_numpy(model.similarity(items[0], items[1])).shape == ()
    np.testing.assert_array_equal(model.to_numpy(model.xp.arange(3)), [0, 1, 2])  # any dtype
    assert model.to_numpy(items[:, :3]).shape == (5, 3)  # any shape


def test_to_numpy_of_decoded_fhrr_values(make_model):
    from holovec.encoders import FractionalPowerEncoder

    model = make_model("FHRR", 256)
    encoder = FractionalPowerEncoder(model, 0.0, 10.0, seed=1)
    decoded = encoder.decode(encoder.encode(np.array([2.0, 7.5])))
    values = model.to_numpy(decoded)
    np.testing.assert_allclose(values, [2.0, 7.5], atol=0.2)
    phases = model.to_numpy(model.xp.real(model.random(seed=1)))  # float32 values of a complex model
    assert phases.dtype == np.float32


def _rewrite(src, dst, vectors=None, meta_change=None, drop=None):
    with np.load(src, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    if vectors is not None:
        arrays["vectors"] = vectors(arrays["vectors"])
    if meta_change is not None:
        meta = json.loads(str(arrays["metadata"][()]))
        meta_change(meta)
        arrays["metadata"] = np.array(json.dumps(meta))
    if drop:
        del arrays[drop]
    np.savez(dst, **arrays)


def test_load_rejects_bad_files(make_model, tmp_path):
    model = make_model("MAP", 64)
    path = tmp_path / "good.npz"
    Codebook.from_seed(model, list("abcdef"), seed=1).save(path)
    raw = path.read_bytes()

    def bad(name, data=None, **rewrite):
        p = tmp_path / name
        if data is not None:
            p.write_bytes(data)
        else:
            _rewrite(path, p, **rewrite)
        return p

    flipped = bytearray(raw)
    flipped[len(raw) // 3] ^= 0xFF
    cases = {
        "truncated": bad("t.npz", raw[: len(raw) // 2]),
        "corrupt": bad("c.npz", bytes(flipped)),
        "garbage": bad("g.npz", b"not a zip file at all"),
        "empty": bad("e.npz", b""),
        "checksum": bad("v.npz", vectors=lambda v: np.concatenate([-v[:1], v[1:]])),
        "labels": bad("l.npz", meta_change=lambda m: m.update(labels=m["labels"].replace('"a"', '"z"'))),
        "version": bad("ver.npz", meta_change=lambda m: m.update(version=99)),
        "format": bad("f.npz", meta_change=lambda m: m.update(format="other")),
        "count": bad("n.npz", meta_change=lambda m: m.update(count=5)),
        "missing": bad("m.npz", drop="metadata"),
        "dtype": bad("d.npz", vectors=lambda v: v.astype(np.float64)),
    }
    for case, p in cases.items():
        with pytest.raises(ValueError):
            Codebook.load(p, model)
        assert case
    for other in (
        make_model("MAP", 65),
        make_model("FHRR", 64),
        make_model("MAP", 64, dtype="float16"),
    ):
        with pytest.raises(ValueError, match="model given"):
            Codebook.load(path, other)
    packed_path = tmp_path / "packed.npz"
    bsc = make_model("BSC", 64)
    Codebook.from_seed(make_model("BSC", 64, packed=True), ["a"], seed=1).save(packed_path)
    with pytest.raises(ValueError):
        Codebook.load(packed_path, bsc)


# -- cleanup --------------------------------------------------------------------------------
def test_cleanup_hard_and_soft(make_model, spec):
    name, opts = spec
    model = make_model(name, 1024, **opts)
    book = Codebook.from_seed(model, range(30), seed=5)
    rows = [4, 17, 29, 0]
    noise = model.random(len(rows), seed=8)
    noisy = model.bundle([rows_of(model, book.vectors, rows), rows_of(model, book.vectors, rows), noise])
    hard = cleanup(model, noisy, book)
    assert hard.shape == noisy.shape
    np.testing.assert_array_equal(to_numpy(model, hard), to_numpy(model, rows_of(model, book.vectors, rows)))
    single = cleanup(model, noisy[1], book, chunk_size=8)
    np.testing.assert_array_equal(to_numpy(model, single), to_numpy(model, book.vectors[17]))
    soft = cleanup(model, noisy, book, soft=True, temperature=0.02)
    assert soft.shape == noisy.shape and soft.dtype == model.dtype
    sims = to_numpy(model, model.similarity(soft, rows_of(model, book.vectors, rows)))
    assert (sims > 0.99).all()
    warm = cleanup(model, noisy, book, soft=True, temperature=10.0)  # a blend of everything
    assert (to_numpy(model, model.similarity(warm, rows_of(model, book.vectors, rows))) < 0.9).all()
    # chunks of 7 items with a running softmax give the one-pass blend
    chunked = cleanup(model, noisy, book, soft=True, temperature=0.5, chunk_size=7)
    whole = cleanup(model, noisy, book, soft=True, temperature=0.5, chunk_size=30)
    agree = to_numpy(model, model.similarity(chunked, whole))
    assert (agree > 0.999).all(), agree
    with pytest.raises(ValueError, match="temperature"):
        cleanup(model, noisy, book, soft=True, temperature=0)
    with pytest.raises(ValueError, match="chunk_size"):
        cleanup(model, noisy, book, soft=True, chunk_size=0)


# -- associative memory ---------------------------------------------------------------------
def test_assoc_store_round_trip(make_model, spec):
    name, opts = spec
    model = make_model(name, 2048, **opts)
    keys = Codebook.from_seed(model, [f"k{i}" for i in range(12)], seed=1)
    values = Codebook.from_seed(model, [f"v{i}" for i in range(12)], seed=2)
    store = AssocStore(model).fit(keys, values)
    assert store.query("k5")[0][0] == "v5"
    found = store.query(keys.vectors)
    assert [r[0][0] for r in found] == [f"v{i}" for i in range(12)]
    back = store.query_value(values.vectors)
    assert [r[0][0] for r in back] == [f"k{i}" for i in range(12)]
    assert store.query_value("v3", k=2)[0][0] == "k3"
    with pytest.raises(ValueError, match="one value per key"):
        AssocStore(model).fit(keys, Codebook.from_seed(model, ["a"], seed=3))
    with pytest.raises(ValueError, match="fit"):
        AssocStore(model).query("k1")


def test_item_store_repr():
    from holovec import VSA
    from holovec.retrieval import Codebook, ItemStore

    model = VSA.create("BSC", dim=2000)
    assert repr(ItemStore(model)) == f"ItemStore({model!r}, not fitted)"
    store = ItemStore(model, chunk_size=512).fit(Codebook.from_seed(model, ["a", "b", "c"], seed=1))
    assert repr(store) == f"ItemStore({model!r}, 3 items, chunk_size=512)"
