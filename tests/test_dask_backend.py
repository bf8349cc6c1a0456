"""backend="dask": lazy, row-chunked arrays whose values equal the NumPy backend's.

Most tests run on Dask's synchronous scheduler (no cluster); those marked by the
``cluster`` fixture run on a LocalCluster of 2 worker processes, made once for the module.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")

from holovec import VSA, kernels  # noqa: E402
from holovec.backends import get_backend  # noqa: E402
from holovec.retrieval import Codebook, ItemStore, cleanup, search  # noqa: E402

MODELS = VSA.available_models()
DISCRETE = {"BSC", "BSDC", "BSDC-SEG", "MAP", "MAP-I"}
#: small dims that every model accepts (VTB needs a square, GHRR m*m blocks)
DIMS = {"VTB": 64, "GHRR": 72}


def _dim(name: str) -> int:
    return DIMS.get(name, 96)


def _pair(name: str, dim: int | None = None, **kw):
    dim = _dim(name) if dim is None else dim
    return (
        VSA.create(name, dim, backend="dask", seed=11, **kw),
        VSA.create(name, dim, backend="numpy", seed=11, **kw),
    )


def _same(name: str, got, expected) -> None:
    got = np.asarray(got)
    if name in DISCRETE:
        np.testing.assert_array_equal(got, expected)
    else:
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-6)


def _no_compute(*args, **kwargs):
    raise AssertionError("computed: the operation was to stay lazy")


@pytest.fixture
def lazy():
    """Any compute inside the block fails the test."""
    with dask.config.set(scheduler=_no_compute):
        yield


@pytest.fixture(autouse=True)
def _synchronous(request):
    if "cluster" in request.fixturenames:
        yield
        return
    with dask.config.set(scheduler="synchronous"):
        yield


# -- import and creation -------------------------------------------------------------------
def test_import_holovec_does_not_import_dask():
    code = (
        "import sys, holovec, holovec.retrieval, holovec.encoders; from holovec import VSA; "
        "VSA.create('MAP', 64); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_backend_is_registered():
    backend = get_backend("dask")
    assert backend.name == "dask" and kernels.block_backend_name(backend) == "numpy"
    with pytest.raises(ValueError, match="CPU"):
        get_backend("dask", "cuda:0")


@pytest.mark.parametrize("name", MODELS)
def test_random_is_lazy_and_equals_numpy(name, lazy):
    model, ref = _pair(name)
    book = model.random(50, seed=3)
    assert isinstance(book, da.Array) and book.shape == (50, model.vector_length)
    assert book.numblocks[-1] == 1
    with dask.config.set(scheduler="synchronous"):
        _same(name, book.compute(), ref.random(50, seed=3))
        _same(name, model.random(seed=4).compute(), ref.random(seed=4))


@pytest.mark.parametrize("name", ["MAP", "FHRR", "BSDC-SEG"])
def test_rows_do_not_depend_on_the_chunking(name, monkeypatch):
    from holovec.backends import dask_backend

    model, ref = _pair(name)
    expected = ref.random(40, seed=5)
    for chunk_bytes in (1, 7 * model.vector_length * ref.dtype.itemsize, 2**30):
        monkeypatch.setattr(dask_backend, "CHUNK_BYTES", chunk_bytes)
        book = model.random(40, seed=5)
        _same(name, book.compute(), expected)
    assert book.numblocks[0] == 1
    monkeypatch.setattr(dask_backend, "CHUNK_BYTES", 1)
    assert model.random(40, seed=5).numblocks[0] == 40


def _every_op(model, a, b) -> dict:
    """Each public operation of ``model`` on batches ``a`` and ``b`` (12 rows each)."""
    return {
        "bind": model.bind(a, b),
        "unbind": model.unbind(a, b),
        "bundle": model.bundle(a),
        "bundle_list": model.bundle([a[0], b[0], a[1], b[1]]),
        "permute": model.permute(a, 5),
        "inverse": model.inverse(a),
        "normalize": model.normalize(a),
        "similarity": model.similarity(a, b),
        "similarity_one": model.similarity(a[0], b[3]),
        "matrix": model.similarity_matrix(a[:3], b),
    }


@pytest.mark.parametrize("name", MODELS)
def test_ops_are_lazy_and_equal_numpy(name):
    model, ref = _pair(name)
    books = model.random(12, seed=1).rechunk({0: 5}), model.random(12, seed=2).rechunk({0: 4})
    refs = ref.random(12, seed=1), ref.random(12, seed=2)
    with dask.config.set(scheduler=_no_compute):
        a, b = books
        results = _every_op(model, a, b)
    ra, rb = refs
    expected = _every_op(ref, ra, rb)
    for key, value in results.items():
        assert isinstance(value, da.Array), key
        _same(name, model.to_numpy(value), expected[key])
    assert model.similarity(books[0][0], books[1][3]).shape == ()


@pytest.mark.parametrize("name", ["FHRR", "BSC", "MAP", "BSDC"])
def test_similarity_of_two_vectors_formats_like_a_float(name):
    # the design page: a 0-d array of the backend that formats like a float; computed when formatted
    model, ref = _pair(name)
    a, b = model.random(seed=1), model.random(seed=2)
    with dask.config.set(scheduler=_no_compute):
        sim = model.similarity(a, b)  # still lazy
        batch = model.similarity(model.random(3, seed=3), a)
        assert isinstance(sim, da.Array) and sim.shape == () and isinstance(batch, da.Array)
        assert f"{sim}".startswith("dask.array<")  # no spec: the repr, nothing computed
    expected = ref.similarity(ref.random(seed=1), ref.random(seed=2))
    assert f"{sim:.3f}" == f"{expected:.3f}" == f"{float(expected):.3f}"
    assert f"{sim:+.2e}|{sim:>9.4f}" == f"{expected:+.2e}|{expected:>9.4f}"
    with pytest.raises(TypeError, match="unsupported format"):  # arrays of values do not format
        f"{batch:.3f}"


def test_model_options_and_twin():
    model = VSA.create("BSDC", 256, backend="dask", seed=2, binding="cdt")
    twin = model.block_model()
    assert twin.backend.name == "numpy" and twin.binding == "cdt" and twin.seed == 2
    assert twin is model.block_model()
    assert twin.with_backend("numpy") is twin
    assert twin.with_backend("dask") == model
    ref = VSA.create("BSDC", 256, seed=2, binding="cdt")
    np.testing.assert_array_equal(model.to_numpy(model.random(9, seed=1)), ref.random(9, seed=1))


def test_unseeded_draws_follow_the_seeded_sequence():
    model, ref = _pair("MAP")
    np.testing.assert_array_equal(model.to_numpy(model.random(3)), ref.random(3))
    np.testing.assert_array_equal(model.to_numpy(model.random(3)), ref.random(3))


# -- bad input ---------------------------------------------------------------------------------
def test_bad_input_is_named():
    model, ref = _pair("MAP")
    with pytest.raises(TypeError, match="dask"):
        model.bind(ref.random(seed=1), ref.random(seed=2))
    with pytest.raises(ValueError, match="shape"):
        model.bind(model.random(2, seed=1), da.ones((2, 5), dtype=np.float32))
    with pytest.raises(ValueError, match="2-d"):
        search(model, model.random(2, seed=1), model.random(seed=1), k=1)


def test_vector_axis_chunks_are_rechunked():
    """Arrays chunked along the vector axis (e.g. from_array of a user's) give the same
    results: row-wise kernels rechunk the vector axis into one chunk."""
    model, ref = _pair("HRR")
    a = model.asarray(ref.random(6, seed=1))
    assert a.numblocks[-1] == 1
    split = da.from_array(ref.random(6, seed=1), chunks=(2, 10))
    assert split.numblocks[-1] > 1
    _same(
        "HRR",
        model.to_numpy(model.bind(split, split)),
        ref.bind(ref.random(6, seed=1), ref.random(6, seed=1)),
    )
    items = da.from_array(ref.random(30, seed=2), chunks=(7, 32))
    _, i = search(model, model.asarray(ref.random(4, seed=3)), items, k=3)
    _, i0 = search(ref, ref.random(4, seed=3), ref.random(30, seed=2), k=3)
    np.testing.assert_array_equal(model.to_numpy(i), i0)


# -- search --------------------------------------------------------------------------------
def _tied_book(model, ref, n: int, seed: int):
    """A codebook with many exact ties: few distinct rows, repeated in a scrambled order."""
    distinct = ref.random(7, seed=seed)
    order = np.random.default_rng(seed).integers(0, 7, size=n)
    host = distinct[order]
    return host


@pytest.mark.ordering
@pytest.mark.parametrize("name", ["BSC", "MAP", "FHRR", "HRR", "BSDC-SEG"])
@pytest.mark.parametrize("chunks", [1000, 97, 13])
@pytest.mark.parametrize("k", [1, 5, 40])
def test_search_with_ties_equals_numpy(name, chunks, k):
    model, ref = _pair(name, dim=16 if name in ("BSC", "MAP") else None)
    host = np.concatenate([_tied_book(model, ref, 300, 1), ref.random(200, seed=9)])
    items = da.from_array(host, chunks=(chunks, -1))
    queries = ref.random(6, seed=4)[:, None, :].repeat(2, axis=1)  # batch shape (6, 2)
    s, i = search(model, model.asarray(queries), items, k=k)
    assert isinstance(s, da.Array) and s.shape == (6, 2, k)
    s0, i0 = search(ref, queries, host, k=k)
    np.testing.assert_array_equal(model.to_numpy(i), i0)
    _same(name, model.to_numpy(s), s0)


def test_search_more_than_the_items():
    model, ref = _pair("BSC", dim=8)
    host = ref.random(9, seed=1)
    s, i = search(model, model.asarray(host[:2]), da.from_array(host, chunks=(2, -1)), k=50)
    _, i0 = search(ref, host[:2], host, k=50)
    assert s.shape == (2, 9)
    np.testing.assert_array_equal(model.to_numpy(i), i0)


def test_search_of_a_lazy_codebook_makes_no_score_matrix(monkeypatch):
    """Only k candidates per query leave each chunk: the merges see (n_q, k) arrays."""
    from holovec.kernels import dask_search

    seen = []
    merge = dask_search._merge

    def spy(low, high, k):
        seen.append((low[0].shape, high[0].shape))
        return merge(low, high, k)

    monkeypatch.setattr(dask_search, "_merge", spy)
    model, ref = _pair("MAP", dim=64)
    items = model.random(1000, seed=1).rechunk({0: 100})
    _, i = search(model, model.random(3, seed=2), items, k=4)
    assert len(seen) == 9 and all(a == b == (3, 4) for a, b in seen)
    _, i0 = search(ref, ref.random(3, seed=2), ref.random(1000, seed=1), k=4)
    np.testing.assert_array_equal(model.to_numpy(i), i0)


def test_store_and_cleanup_accept_dask_codebooks():
    model, ref = _pair("MAP", dim=32)
    host = _tied_book(model, ref, 120, 3)
    items = da.from_array(host, chunks=(25, -1))
    queries = ref.random(5, seed=8)
    store = ItemStore(model).fit(items)
    s, i = store.search(model.asarray(queries), k=6)
    s0, i0 = ItemStore(ref).fit(host).search(queries, k=6)
    np.testing.assert_array_equal(i, i0)
    np.testing.assert_array_equal(s, s0)
    labels = store.query(model.asarray(queries[0]), k=2)
    assert labels == ItemStore(ref).fit(host).query(queries[0], k=2)
    out = cleanup(model, model.asarray(queries), items)
    assert isinstance(out, da.Array)
    np.testing.assert_array_equal(model.to_numpy(out), cleanup(ref, queries, host))
    book = Codebook.from_seed(model, list("abcdef"), seed=2)
    assert ItemStore(model).fit(book).query(book["c"]) == [("c", 1.0)]


def test_search_part_refuses_non_finite_items():
    model, ref = _pair("FHRR")
    host = ref.random(20, seed=1)
    host[13, 2] = np.nan
    # rows of the whole codebook, as a search of one array names them (chunks of 5)
    with pytest.raises(ValueError, match=r"^items: row 13 holds NaN"):
        search(model, model.asarray(host[:2]), da.from_array(host, chunks=(5, -1)), k=2)
    with pytest.raises(ValueError, match=r"^codebook: row 13 holds NaN"):
        cleanup(model, model.asarray(host[:2]), da.from_array(host, chunks=(5, -1)))
    # queries by their name and batch index
    good = da.from_array(ref.random(20, seed=2), chunks=(5, -1))
    batch = np.stack([host[:3], host[:3]])
    batch[1, 2, 0] = np.inf
    with pytest.raises(ValueError, match=r"^noisy: row \(1, 2\) holds NaN or infinity"):
        cleanup(model, da.from_array(batch), good)  # model.asarray would refuse it


# -- encoders and learners -----------------------------------------------------------------
def test_encoders_bound_the_chunks_of_host_inputs(monkeypatch):
    """Host input of a few bytes per row is regrouped so that each chunk of vectors fits
    the chunk budget (not one chunk of every row, encoded at once)."""
    from holovec.backends import dask_backend
    from holovec.encoders import FractionalPowerEncoder, LevelEncoder, VectorEncoder

    monkeypatch.setattr(dask_backend, "CHUNK_BYTES", 64 * 1024)
    model, ref = _pair("FHRR")
    budget_rows = 64 * 1024 // (model.vector_length * 8)
    values = np.linspace(0.0, 1.0, 1000)
    for make in (
        lambda m: FractionalPowerEncoder(m, 0.0, 1.0, seed=1),
        lambda m: LevelEncoder(m, 0.0, 1.0, levels=8, seed=1),
    ):
        out = make(model).encode(values)
        assert max(out.chunks[0]) <= budget_rows
        np.testing.assert_allclose(model.to_numpy(out), make(ref).encode(values), atol=1e-6)
    out = VectorEncoder(model, 3, seed=1).encode(np.ones((1000, 3)))
    assert max(out.chunks[0]) <= budget_rows


def test_encoders_map_over_dask_inputs():
    from holovec.encoders import FractionalPowerEncoder, LevelEncoder, ThermometerEncoder

    values = np.linspace(0.25, 9.75, 301)
    chunked = da.from_array(values, chunks=50)
    for name, cls, kw in (
        ("FHRR", FractionalPowerEncoder, {}),
        ("HRR", FractionalPowerEncoder, {}),
        ("MAP", LevelEncoder, {"n_levels": 16}),
        ("BSC", ThermometerEncoder, {"levels": 16}),
    ):
        model, ref = _pair(name)
        enc, enc_ref = cls(model, 0, 10, seed=4, **kw), cls(ref, 0, 10, seed=4, **kw)
        out = enc.encode(chunked)
        assert isinstance(out, da.Array) and out.chunks[0] == chunked.chunks[0]
        _same(name, model.to_numpy(out), enc_ref.encode(values))


def test_centroid_classifier_on_dask_input():
    pytest.importorskip("sklearn")
    from holovec.learn import CentroidClassifier, HDEncoder, OnlineHDClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 4))
    y = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0)
    Xd, yd = da.from_array(X, chunks=(64, -1)), da.from_array(y, chunks=64)
    clf = CentroidClassifier(model="MAP", dim=128, backend="dask", random_state=1).fit(Xd, yd)
    ref = CentroidClassifier(model="MAP", dim=128, backend="numpy", random_state=1).fit(X, y)
    # float32 sums of 400 rows in another order (chunk sums, then their sum)
    np.testing.assert_allclose(clf.model_.to_numpy(clf.prototypes_), ref.prototypes_, atol=1e-4)
    np.testing.assert_array_equal(clf.predict(Xd), ref.predict(X))
    # mistake-driven rules keep their minibatches (the result depends on them)
    kw = {"model": "MAP", "dim": 128, "random_state": 1, "epochs": 2, "batch_size": 100}
    online = OnlineHDClassifier(backend="dask", **kw).fit(Xd, yd)
    online_ref = OnlineHDClassifier(backend="numpy", **kw).fit(X, y)
    np.testing.assert_allclose(online.model_.to_numpy(online.prototypes_), online_ref.prototypes_, atol=1e-5)
    H = HDEncoder(model="FHRR", dim=64, backend="dask", random_state=1).fit(Xd).transform(Xd)
    H0 = HDEncoder(model="FHRR", dim=64, random_state=1).fit(X).transform(X)
    assert isinstance(H, da.Array) and H.chunks[0] == Xd.chunks[0]
    np.testing.assert_allclose(H.compute(), H0, atol=1e-6)


def test_benchmark_quick_runs():
    """``python -m benchmarks.dask_scaling --quick``: tiny sizes, its own LocalCluster."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.dask_scaling", "--quick"],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "ratios" in out.stdout and "dask x1" in out.stdout


# -- on a cluster of two worker processes ---------------------------------------------------------
def _kill_once(marker: str, search_part, queries, part, k, first_row=0):
    """A search part that kills its worker process the first time it runs (the marker file
    records that it did): Dask then runs the task again on another worker."""
    if not os.path.exists(marker):
        with open(marker, "w") as f:
            f.write("killed")
        os._exit(1)
    return search_part(queries, part, k, first_row)


@pytest.fixture(scope="module")
def cluster():
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import tests/
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, memory_limit="1GiB", dashboard_address=None
        ) as local,
        distributed.Client(local) as client,
    ):
        yield client
    cloudpickle.unregister_pickle_by_value(sys.modules[__name__])


def test_cluster_random_and_search(cluster):
    model, ref = _pair("BSC", dim=24)
    items = model.random(3000, seed=1).rechunk({0: 400})
    queries = model.random(8, seed=2)
    s, i = search(model, queries, items, k=7)
    s0, i0 = search(ref, ref.random(8, seed=2), ref.random(3000, seed=1), k=7)
    np.testing.assert_array_equal(model.to_numpy(i), i0)
    np.testing.assert_array_equal(model.to_numpy(s), s0)
    np.testing.assert_array_equal(model.to_numpy(items[2500:2510]), ref.random(3000, seed=1)[2500:2510])


def test_cluster_search_survives_a_killed_worker(cluster, tmp_path):
    from functools import partial

    from holovec.retrieval._index import search_part

    model, ref = _pair("MAP", dim=32)
    items = model.random(2000, seed=3).rechunk({0: 500})
    queries = ref.random(5, seed=4)
    marker = str(tmp_path / "killed")
    part = partial(_kill_once, marker, partial(search_part, model.block_model()))
    s, i = kernels.partitioned_search(model.backend, part, model.asarray(queries), items, 6)
    assert os.path.exists(marker)  # a worker died during the search
    s0, i0 = search(ref, queries, ref.random(2000, seed=3), k=6)
    np.testing.assert_array_equal(model.to_numpy(i), i0)
    np.testing.assert_array_equal(model.to_numpy(s), s0)


def test_cluster_refuses_a_chunk_over_the_worker_memory(cluster):
    model = VSA.create("MAP", 10000, backend="dask")
    items = model.random(100_000, seed=1).rechunk({0: 60_000})  # 600 MB chunks, never made
    with pytest.raises(ValueError, match="memory limit"):
        search(model, model.random(2, seed=2), items, k=1)


def test_arrays_of_unknown_chunk_sizes_are_refused_with_the_remedy():
    # a boolean mask leaves the chunk sizes NaN: searches failed converting NaN to an int
    model = VSA.create("MAP", dim=64, backend="dask")
    book = model.random(20, seed=1)
    masked = book[da.from_array(np.arange(20) % 2 == 0)]
    remedy = r"shape that is not known.*compute_chunk_sizes\(\)"
    with pytest.raises(ValueError, match=remedy):
        model.similarity_matrix(book[:2], masked)
    with pytest.raises(ValueError, match=remedy):
        cleanup(model, book[:2], masked)
    with pytest.raises(ValueError, match=remedy):
        ItemStore(model).fit(masked)
    with pytest.raises(ValueError, match=remedy):
        ItemStore(model).fit(book).query(masked)
    known = masked.compute_chunk_sizes()
    assert ItemStore(model).fit(known).query(book[2])[0][1] == pytest.approx(1.0)
