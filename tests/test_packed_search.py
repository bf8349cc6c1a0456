"""Exact search on packed bits (BSC, packed BSC, MAP and MAP-I with +-1 vectors): the same
similarities, bit for bit, and the same order (ties lowest index first) as the dense path,
with the optional numba accelerator on and off."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from holovec import VSA, kernels
from holovec.kernels import packed_search
from holovec.retrieval import ItemStore, search
from holovec.retrieval import _index as search_index

HAS_NUMBA = importlib.util.find_spec("numba") is not None
BACKENDS = [
    "numpy",
    pytest.param(
        "torch", marks=pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="no torch")
    ),
    pytest.param("jax", marks=pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="no jax")),
]
MODELS = [("BSC", {}), ("BSC", {"packed": True}), ("MAP", {}), ("MAP-I", {})]


@pytest.fixture(
    params=["numpy", pytest.param("numba", marks=pytest.mark.skipif(not HAS_NUMBA, reason="no numba"))]
)
def engine(request, monkeypatch):
    """The host kernel: the pure NumPy one, or the numba accelerator."""
    monkeypatch.setattr(packed_search, "accelerator", request.param)
    return request.param


def _np(model, x):
    return np.asarray(model.backend.to_numpy(x))


def _dense(model, monkeypatch, fn):
    """``fn()`` with the Hamming hook off: the dense path the packed search replaces."""
    with monkeypatch.context() as m:
        for cls in type(model).__mro__:
            if "hamming_search_bits" in cls.__dict__:
                m.setattr(cls, "hamming_search_bits", lambda self, index: None)
        return fn()


def _same(model, got, expected):
    (s, i), (s0, i0) = got, expected
    assert s.dtype == s0.dtype and i.dtype == i0.dtype
    assert tuple(s.shape) == tuple(s0.shape) == tuple(i.shape)
    np.testing.assert_array_equal(_np(model, i), _np(model, i0))
    np.testing.assert_array_equal(_np(model, s), _np(model, s0))  # bit-identical floats


def _data(model, n=40, n_q=9):
    """Items with many exact ties (duplicated rows), queries that are some of the items."""
    xp = model.xp
    base = model.random(n, seed=11)
    items = xp.concat([base, base[:10], base[3:8], base[:10]], axis=0)
    queries = xp.concat([model.random(n_q - 4, seed=12), items[:2], items[45:47]], axis=0)
    return queries, items


class _Spy:
    def __init__(self, backend, monkeypatch):
        self.calls = 0
        original = kernels.hamming_top_k

        def spy(*args):
            self.calls += 1
            return original(*args)

        monkeypatch.setattr(kernels, "hamming_top_k", spy)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("name", "options"), MODELS)
@pytest.mark.parametrize("dim", [64, 100, 200])
def test_packed_search_equals_dense(engine, backend, name, options, dim, monkeypatch):
    model = VSA.create(name, dim=dim, backend=backend, **options)
    queries, items = _data(model)
    spy = _Spy(model.backend, monkeypatch)
    for k in (1, 3, 12, items.shape[0], items.shape[0] + 5):
        got = search(model, queries, items, k=k)
        _same(model, got, _dense(model, monkeypatch, lambda k=k: search(model, queries, items, k=k)))
    # every backend on the CPU takes the packed path (the host kernel)
    assert spy.calls > 0


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("name", "options"), MODELS)
def test_item_store_equals_dense(engine, backend, name, options, monkeypatch):
    model = VSA.create(name, dim=100, backend=backend, **options)
    queries, items = _data(model)
    got = ItemStore(model).fit(items).search(queries, k=7)
    expected = _dense(model, monkeypatch, lambda: ItemStore(model).fit(items).search(queries, k=7))
    np.testing.assert_array_equal(got[1], expected[1])
    np.testing.assert_array_equal(got[0], expected[0])
    assert got[0].dtype == expected[0].dtype
    # one query, batches of queries, labels
    store = ItemStore(model).fit(items)
    assert store.query(items[4], k=2)[0] == (4, 1.0)
    batch = model.xp.reshape(queries[:6], (2, 3, model.vector_length))
    s, i = store.search(batch, k=4)
    assert s.shape == i.shape == (2, 3, 4)
    np.testing.assert_array_equal(i.reshape(6, 4), store.search(queries[:6], k=4)[1])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("name", "options"), MODELS)
def test_no_queries(engine, backend, name, options, monkeypatch):
    model = VSA.create(name, dim=100, backend=backend, **options)
    _, items = _data(model)
    empty = items[:0]
    got = search(model, empty, items, k=5)
    expected = _dense(model, monkeypatch, lambda: search(model, empty, items, k=5))
    assert tuple(got[0].shape) == (0, 5)
    _same(model, got, expected)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ["MAP", "MAP-I"])
def test_superposed_map_queries_keep_the_float_ranking(engine, backend, name, monkeypatch):
    model = VSA.create(name, dim=100, backend=backend)
    queries, items = _data(model)
    mixed = queries[:4] + queries[4:8]  # sums: 0 and +-2, not +-1
    spy = _Spy(model.backend, monkeypatch)
    got = search(model, mixed, items, k=6)
    assert spy.calls == 0
    _same(model, got, _dense(model, monkeypatch, lambda: search(model, mixed, items, k=6)))
    # a codebook that is not all +-1: the float path too, for +-1 queries as well
    items2 = model.xp.concat([items, mixed], axis=0)
    got = search(model, queries, items2, k=6)
    assert spy.calls == 0
    _same(model, got, _dense(model, monkeypatch, lambda: search(model, queries, items2, k=6)))


@pytest.mark.parametrize("dtype", ["float16", "float64"])
def test_map_dtypes(engine, dtype, monkeypatch):
    model = VSA.create("MAP", dim=100, dtype=dtype)
    queries, items = _data(model)
    got = search(model, queries, items, k=9)
    _same(model, got, _dense(model, monkeypatch, lambda: search(model, queries, items, k=9)))


def test_map_c_never_packs():
    model = VSA.create("MAP-C", dim=100)
    assert model.hamming_search_bits(model.search_index(model.random(3, seed=1))) is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_packed_bsc_padding_bits_do_not_count(engine, backend, monkeypatch):
    model = VSA.create("BSC", dim=100, packed=True, backend=backend)
    queries, items = _data(model)
    last = model.vector_length - 1  # bytes past bit 100: set every padding bit
    pad = np.zeros(model.vector_length, np.uint8)
    pad[12] = 0xF0
    pad[13:] = 0xFF
    pad = model.backend.from_numpy(pad)
    assert last > 12
    dirty_items, dirty_queries = items | pad, queries | pad
    got = search(model, dirty_queries, dirty_items, k=5)
    _same(model, got, _dense(model, monkeypatch, lambda: search(model, dirty_queries, dirty_items, k=5)))
    _same(model, got, search(model, queries, items, k=5))


@pytest.mark.parametrize(("name", "options"), MODELS)
def test_blocks_groups_and_chunks_change_nothing(engine, name, options, monkeypatch):
    """Many index blocks, packed groups and kernel chunks: the same results."""
    model = VSA.create(name, dim=100, **options)
    queries, items = _data(model, n=300, n_q=20)
    expected = _dense(model, monkeypatch, lambda: search(model, queries, items, k=15))
    monkeypatch.setattr(search_index, "INDEX_BYTES", 7 * model.vector_length * 8)
    monkeypatch.setattr(search_index, "PACKED_GROUP_BYTES", 200)
    monkeypatch.setattr(packed_search, "_CHUNK_ITEMS", 16)
    monkeypatch.setattr(packed_search, "_BLOCK_BYTES", 4096)
    _same(model, search(model, queries, items, k=15), expected)
    _same(model, search(model, queries[:1], items, k=15), (expected[0][:1], expected[1][:1]))


def _reference(queries, items, k):
    dist = np.bitwise_count(queries[:, None, :] ^ items[None, :, :]).sum(-1, dtype=np.int64)
    idx = np.argsort(dist, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(dist, idx, 1), idx


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("n_q", "n", "n_bytes", "k"), [(1, 50, 8, 5), (9, 300, 24, 70), (30, 500, 8, 3), (4, 6, 16, 9)]
)
def test_hamming_top_k_hook(engine, backend, n_q, n, n_bytes, k):
    """The backend hook against a stable sort of all distances (with ties: 1-byte rows)."""
    model = VSA.create("BSC", dim=64, backend=backend)
    rng = np.random.default_rng(n + k)
    queries = rng.integers(0, 256, (n_q, n_bytes), dtype=np.uint8)
    items = rng.integers(0, 4, (n, n_bytes), dtype=np.uint8)  # few distinct distances
    items[::4] = items[1]
    want_d, want_i = _reference(queries, items, k)
    be = model.backend
    for hook in (kernels.hamming_top_k, kernels.hamming.hamming_search.generic):  # its own, the generic one
        d, i = hook(be, be.from_numpy(queries), be.from_numpy(items), 8 * n_bytes, k)
        np.testing.assert_array_equal(be.to_numpy(d), want_d)
        np.testing.assert_array_equal(be.to_numpy(i), want_i)


def test_hamming_similarity_is_the_search_score_table():
    for name in ("BSC", "MAP", "MAP-I"):
        model = VSA.create(name, dim=100)
        assert model.has_hamming_search
        table = model.hamming_similarity(np.arange(101))
        assert table[0] == 1.0 and table[-1] == -1.0 and (np.diff(table) < 0).all()


def test_accelerator_switch(monkeypatch):
    monkeypatch.setenv("HOLOVEC_ACCELERATOR", "none")
    assert packed_search._accelerator_from_env() == "numpy"
    monkeypatch.setenv("HOLOVEC_ACCELERATOR", "numba")
    assert packed_search._accelerator_from_env() == "numba"
    monkeypatch.setenv("HOLOVEC_ACCELERATOR", "auto")
    assert packed_search._accelerator_from_env() is None
    monkeypatch.setenv("HOLOVEC_ACCELERATOR", "faster")
    with pytest.raises(ValueError, match="HOLOVEC_ACCELERATOR"):
        packed_search._accelerator_from_env()
    monkeypatch.setattr(packed_search, "accelerator", "numpy")
    assert packed_search.engine() == "numpy"
    monkeypatch.setattr(packed_search, "accelerator", None)
    assert packed_search.engine() == ("numba" if HAS_NUMBA else "numpy")
    # automatic: a search too small to pay for loading numba takes NumPy's kernel
    assert packed_search.engine(packed_search._SMALL_WORK - 1) == "numpy"
    assert packed_search.engine(packed_search._SMALL_WORK) == ("numba" if HAS_NUMBA else "numpy")
    monkeypatch.setattr(packed_search, "accelerator", "numba")
    if HAS_NUMBA:  # chosen: whatever the size
        assert packed_search.engine(1) == "numba"
    if not HAS_NUMBA:
        monkeypatch.setattr(packed_search, "accelerator", "numba")
        with pytest.raises(ImportError, match="numba"):
            packed_search.engine()


def test_searches_from_several_threads(engine):
    """Concurrent searches (numba's workqueue layer would abort on concurrent launches)."""
    from concurrent.futures import ThreadPoolExecutor

    model = VSA.create("BSC", dim=200, packed=True)
    queries, items = _data(model, n=500, n_q=12)
    store = ItemStore(model).fit(items)
    expected = store.search(queries, k=5)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: store.search(queries, k=5), range(8)))
    for s, i in results:
        np.testing.assert_array_equal(i, expected[1])
        np.testing.assert_array_equal(s, expected[0])


_WITHOUT_NUMBA = """
import sys
sys.modules["numba"] = None  # as if numba were not installed: importing it raises ImportError
import numpy as np
from holovec import VSA
from holovec.kernels import packed_search
from holovec.retrieval import ItemStore
assert packed_search.engine() == "numpy", packed_search.engine()
for name, options in {models!r}:
    model = VSA.create(name, dim=100, **options)
    items = model.random(40, seed=11)
    items = np.concatenate([items, items[:10]])  # exact ties
    s, i = ItemStore(model).fit(items).search(items[:9], k=12)
    np.save(sys.argv[1] + "/" + name + str(len(options)) + ".npy", np.concatenate([s, i], axis=1))
"""


def test_results_without_the_accelerator_installed(tmp_path):
    """With numba absent (a set-up without ``holovec[numba]``), searches run on the NumPy
    kernel and return what this process returns (with numba, where it is installed)."""
    import subprocess
    import sys

    code = _WITHOUT_NUMBA.format(models=MODELS)
    subprocess.run([sys.executable, "-c", code, str(tmp_path)], check=True, timeout=120)
    for name, options in MODELS:
        model = VSA.create(name, dim=100, **options)
        items = model.random(40, seed=11)
        items = np.concatenate([items, items[:10]])
        s, i = ItemStore(model).fit(items).search(items[:9], k=12)
        np.testing.assert_array_equal(
            np.load(tmp_path / f"{name}{len(options)}.npy"), np.concatenate([s, i], 1)
        )
