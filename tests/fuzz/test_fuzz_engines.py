"""Fuzz the search engines: the packed Hamming search (``kernels.hamming_top_k`` on every
backend, and the ``ItemStore`` top-k of BSC codebooks, packed or not), the Dask backend
(any chunking of items and queries, chunks of unknown size) and JAX codebooks split by rows
(``shard_rows``, searched by the sharded program).

Properties: every call raises a clear ``TypeError``/``ValueError`` from holovec or gives the
answer of one search of the whole codebook on NumPy: the same indices (score descending,
lowest index first) and scores, whatever the arguments' types, the chunks or the shards.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from fuzz_settings import FUZZ, KNOWN_FAILURES, outcome
from hypothesis import given
from hypothesis import strategies as st

from conftest import backend_param
from holovec import VSA, kernels
from holovec.retrieval import Codebook, ItemStore, cleanup, search

DIM = 64
BACKENDS = [backend_param(b) for b in ("numpy", "torch", "jax")]
_CACHE: dict = {}


def cached(key, make):
    if key not in _CACHE:
        _CACHE[key] = make()
    return _CACHE[key]


def model_of(name: str, backend: str, **options):
    key = (name, backend, tuple(sorted(options.items())))
    device = None if backend == "dask" else "cpu"
    return cached(key, lambda: VSA.create(name, DIM, backend=backend, device=device, seed=3, **options))


#: k of every kind: ints around the number of items, NumPy ints, and what is no int
ks = st.one_of(
    st.integers(-2, 12),
    st.sampled_from([np.int64(2), np.int32(1), np.uint8(3), 2**70, 2.9, 2.0, "3", True, None, np.float64(1)]),
)


def is_count(k) -> bool:
    """Whether ``k`` is a positive int (Python or NumPy, not a bool): what a top-k takes."""
    return isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)) and k >= 1


def reference_top_k(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` best of each row of ``scores``: score descending, lowest index first."""
    order = np.argsort(-scores, axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(scores, order, axis=-1), order


# -- the packed Hamming search -------------------------------------------------------------------
@st.composite
def packed_rows(draw, n_bits: int, width: int, rows: int) -> np.ndarray:
    """``rows`` rows of ``width`` bytes whose bits past ``n_bits`` are zero (few distinct
    rows, so distances tie)."""
    size = rows * width
    values = draw(st.lists(st.sampled_from([0, 1, 3, 128, 255, 0x5A]), min_size=size, max_size=size))
    x = np.array(values, dtype=np.uint8).reshape(rows, width)
    valid = np.clip(n_bits - 8 * np.arange(width), 0, 8)
    return x & ((1 << valid) - 1).astype(np.uint8)


def hamming_reference(queries: np.ndarray, items: np.ndarray, k: int):
    dist = np.bitwise_count(queries[:, None, :] ^ items[None, :, :]).sum(-1, dtype=np.int64)
    order = np.argsort(dist, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(dist, order, 1), order


@pytest.mark.parametrize("backend", BACKENDS)
@FUZZ
@given(data=st.data(), k=ks)
def test_hamming_top_k_refuses_or_finds_the_nearest(backend, data, k):
    """Any ``k``, width, dtype, shape or ``n_bits``: a clear error, or the nearest items of
    a stable sort of all distances (on the backend's kernel and on the default one)."""

    be = model_of("BSC", backend).backend
    # (few shapes: JAX compiles the default kernel for each)
    n_bits = data.draw(st.sampled_from([64, 60, 9, 1]), label="n_bits")
    width = data.draw(st.sampled_from([-(-n_bits // 8), 8 * -(-n_bits // 64)]), label="width")
    n_q = data.draw(st.sampled_from([0, 3]), label="queries")
    n = data.draw(st.sampled_from([0, 1, 9]), label="items")
    queries = data.draw(packed_rows(n_bits, width, n_q), label="queries")
    items = data.draw(packed_rows(n_bits, width, n), label="items")
    wrong_bits = [0, -1, 8 * width + 64, 2.0, "64", True]
    bits = data.draw(st.sampled_from([n_bits] * 4 + wrong_bits), label="n_bits given")
    hostile = ["wider", "int64", "bool", "1-d", "3-d", "numpy"]
    how = data.draw(st.sampled_from(["as-is"] * 4 + hostile), label="hostile")
    q, it = be.from_numpy(queries), be.from_numpy(items)
    if how == "wider":
        it = be.from_numpy(np.concatenate([items, np.zeros((n, 8), np.uint8)], axis=1))
    elif how in ("int64", "bool"):
        q = be.from_numpy(queries.astype(how))
    elif how == "1-d":
        q = be.from_numpy(queries.reshape(-1))
    elif how == "3-d":
        it = be.from_numpy(items[None])
    elif how == "numpy":
        q, how = (queries, how) if backend != "numpy" else (q, "as-is")
    ok, found = outcome(lambda: kernels.hamming_top_k(be, q, it, bits, k))
    valid = how == "as-is" and is_count(k) and bits == n_bits and not isinstance(bits, bool) and n > 0
    assert ok == valid, f"hamming_top_k({how}, n_bits={bits!r}, k={k!r}, {n} items): {found!r}"
    if not ok:
        return
    want_d, want_i = hamming_reference(queries, items, min(int(k), n))
    default = kernels.hamming_search(be, q, it, n_bits, min(int(k), n))  # the kernel of no backend
    for d, i in (found, default):
        np.testing.assert_array_equal(be.to_numpy(d), want_d)
        np.testing.assert_array_equal(be.to_numpy(i), want_i)


def bsc_store(backend: str, packed: bool, data):
    """A BSC model, a codebook of it (duplicated rows: exact ties) and its NumPy twin's."""
    model = model_of("BSC", backend, packed=packed)
    twin = model_of("BSC", "numpy", packed=packed)
    n = data.draw(st.sampled_from([1, 4, 9]), label="items")  # (few shapes: JAX compiles each)
    rows = np.array(data.draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)), dtype=np.int64)
    host = np.asarray(twin.random(5, seed=7))[rows]
    return model, twin, host


QUERY_SHAPES = [(), (0,), (1,), (3,), (2, 2)]


@pytest.mark.parametrize("backend", BACKENDS)
@FUZZ
@given(data=st.data(), k=ks, packed=st.booleans(), chunk=st.sampled_from([None, 1, 2, np.int64(3), 0, 1.5]))
def test_bsc_item_store_top_k(backend, data, k, packed, chunk):
    """ItemStore's search of a BSC codebook (packed bits or not, from a Codebook or an array,
    in item chunks): a clear error, or the NumPy model's top-k by similarity."""
    model, twin, host = bsc_store(backend, packed, data)
    batch = data.draw(st.sampled_from(QUERY_SHAPES), label="query batch")
    count = int(np.prod(batch))
    q_host = np.asarray(twin.random(max(1, count), seed=8))[:count].reshape(*batch, twin.vector_length)
    from_book = data.draw(st.booleans(), label="from a Codebook")
    ok, store = outcome(lambda: ItemStore(model, chunk_size=chunk))
    assert ok == (chunk is None or is_count(chunk)), f"chunk_size={chunk!r}: {store!r}"
    if not ok:
        return
    vectors = model.backend.asarray(host)
    store.fit(Codebook(model, [f"w{i}" for i in range(len(host))], vectors) if from_book else vectors)
    ok, found = outcome(lambda: store.search(model.backend.asarray(q_host), k))
    assert ok == is_count(k), f"k={k!r}: {found!r}"
    if not ok:
        return
    kk = min(int(k), len(host))
    sims = np.asarray(twin.similarity_matrix(q_host.reshape(-1, q_host.shape[-1]), host))
    want_s, want_i = (a.reshape(*batch, kk) for a in reference_top_k(sims, kk))
    np.testing.assert_array_equal(found[1], want_i)
    np.testing.assert_allclose(found[0], want_s, atol=1e-6)


def search_ranks_as_similarity_matrix(backend: str, name: str, scale: float, rows: list[int]) -> None:
    """Vectors of any length (scaled, finite): a search ranks the items as
    ``similarity_matrix`` scores them (the same scores, ties by index)."""
    model, k = model_of(name, backend), 6  # (one k: JAX compiles a search for each)
    host = np.asarray(model.to_numpy(model.random(4, seed=9)))[rows]
    host = host * host.real.dtype.type(scale)
    items = model.backend.asarray(host)
    queries = items[:2]
    sims = np.asarray(model.to_numpy(model.similarity_matrix(queries, items)))
    assert np.all(np.abs(sims) <= 1), f"similarities outside [-1, 1]: {sims}"
    scores, index = (np.asarray(model.to_numpy(a)) for a in search(model, queries, items, k))
    np.testing.assert_allclose(scores, np.take_along_axis(sims, index, axis=1), atol=1e-5)
    want_s, _ = reference_top_k(sims, k)
    np.testing.assert_allclose(scores, want_s, atol=1e-5)


#: the scores of MAP and FHRR are dot products (their similarity for their own vectors,
#: the cosine for others, see holovec.models._search.dot_similarity); vectors this long overflow them
LONG_DOT_VECTORS = [("MAP", 1e20), ("MAP", 1e30), ("FHRR", 1e20), ("FHRR", 1e30)]
scaled = st.tuples(
    st.sampled_from(["MAP", "HRR", "FHRR", "MAP-C"]), st.sampled_from([1.0, 1e20, 1e-20, 1e30])
)
rows_with_ties = st.lists(st.integers(0, 3), min_size=6, max_size=6)


#: (not JAX: it compiles every model's scores anew, 5 s here; its scale checks are
#: tests/fuzz/test_fuzz_models.py's)
HOST_BACKENDS = [backend_param(b) for b in ("numpy", "torch")]


@pytest.mark.parametrize("backend", HOST_BACKENDS)
@FUZZ
@given(case=scaled.filter(lambda case: case not in LONG_DOT_VECTORS), rows=rows_with_ties)
def test_search_scores_are_the_similarities(backend, case, rows):
    """On NumPy and torch (see :func:`search_ranks_as_similarity_matrix`)."""
    search_ranks_as_similarity_matrix(backend, *case, rows)


@pytest.mark.parametrize("backend", HOST_BACKENDS)
@FUZZ
@given(case=st.sampled_from(LONG_DOT_VECTORS), rows=rows_with_ties)
def test_search_scores_of_long_dot_product_vectors(backend, case, rows):
    """MAP's and FHRR's similarity is ``Re<a, b> / dim``, clipped to [-1, 1] (so 1 or -1 for
    vectors this long); their search ranks by ``Re<a, b> / max(dim, |a| |b|)``, the cosine
    here (holovec.models._search.dot_similarity), which must hold without overflow."""
    name, scale = case
    model, k = model_of(name, backend), 6
    host = np.asarray(model.to_numpy(model.random(4, seed=9)))[rows]
    host = host * host.real.dtype.type(scale)
    items = model.backend.asarray(host)
    sims = np.asarray(model.to_numpy(model.similarity_matrix(items[:2], items)))
    assert np.all(np.abs(sims) <= 1), f"similarities outside [-1, 1]: {sims}"
    wide = host.astype(np.complex128 if np.iscomplexobj(host) else np.float64) / scale
    dots = np.real(np.conj(wide[:2]) @ wide.T)
    norms = np.linalg.norm(wide, axis=1)
    want = dots / np.maximum(model.dim / scale**2, norms[:2, None] * norms[None, :])
    scores, index = (np.asarray(model.to_numpy(a)) for a in search(model, items[:2], items, k))
    np.testing.assert_allclose(scores, np.take_along_axis(want, index, axis=1), atol=1e-5)
    np.testing.assert_allclose(scores, reference_top_k(want, k)[0], atol=1e-5)


# -- Dask: any chunks ------------------------------------------------------------------------------
dask_installed = importlib.util.find_spec("dask") is not None
needs_dask = pytest.mark.skipif(not dask_installed, reason="dask not installed")


@st.composite
def chunkings(draw, n: int, empty: bool) -> tuple[int, ...]:
    """A partition of ``n`` rows into chunks (``empty``: chunks of no rows among them)."""
    if not empty and n < 2:
        return (n,)
    cuts = draw(st.lists(st.integers(0, n) if empty else st.integers(1, n - 1), max_size=4))
    cuts = sorted(cuts if empty else set(cuts))
    return tuple(b - a for a, b in zip([0, *cuts], [*cuts, n], strict=True))


def dask_rows(host: np.ndarray, chunks: tuple[int, ...], unknown: bool):
    import dask.array as da

    x = da.from_array(host, chunks=(chunks, host.shape[1]))
    if unknown:  # boolean indexing: chunk sizes unknown until computed
        x = x[da.from_array(np.ones(host.shape[0], dtype=bool), chunks=chunks)]
    return x


def dask_searches(name: str, data, k, hostile: bool) -> None:
    """Items and queries of ``name`` in drawn row chunks (``hostile``: chunks of no rows or
    of unknown sizes, no queries): search, ItemStore, similarity_matrix and cleanup answer
    as NumPy on the same values, or refuse clearly (chunks of unknown size only: their
    shape cannot be checked)."""
    import dask

    model, twin = model_of(name, "dask"), model_of(name, "numpy")
    n = data.draw(st.integers(1, 9), label="items")
    n_q = data.draw(st.integers(0 if hostile else 1, 3), label="queries")
    picks = data.draw(st.lists(st.integers(0, n - 1), min_size=n, max_size=n), label="rows")  # ties
    host = np.asarray(twin.random(n, seed=11))[picks]
    q_host = np.asarray(twin.random(max(n_q, 1), seed=12))[:n_q]
    if host.dtype.kind in "fc":  # (scores that need care: rows too long or short to square)
        scale = host.real.dtype.type(data.draw(st.sampled_from([1.0, 1e20, 1e-20]), label="scale"))
        host, q_host = host * scale, q_host * scale
    unknown = hostile and data.draw(st.booleans(), label="unknown chunks")
    items = dask_rows(host, data.draw(chunkings(n, hostile), label="item chunks"), unknown)
    queries = dask_rows(q_host, data.draw(chunkings(n_q, hostile), label="query chunks"), False)
    chunk = data.draw(st.sampled_from([None, 1, 4]), label="chunk_size")
    calls = {
        "search": lambda: search(model, queries, items, k, chunk_size=chunk),
        "store": lambda: ItemStore(model, chunk_size=chunk).fit(items).search(queries, k),
        "matrix": lambda: model.to_numpy(model.similarity_matrix(queries, items, chunk_size=chunk)),
        "cleanup": lambda: model.to_numpy(cleanup(model, queries, items, chunk_size=chunk)),
    }
    with dask.config.set(scheduler="synchronous"):
        results = {what: outcome(call) for what, call in calls.items()}
    for what, (ok, got) in results.items():
        takes_k = what in ("search", "store")
        if not ok:
            assert unknown or (takes_k and not is_count(k)), f"{what} refused known chunks: {got!r}"
            continue
        assert not takes_k or is_count(k), f"{what} took k={k!r}"
        if what == "matrix":
            np.testing.assert_allclose(got, twin.similarity_matrix(q_host, host), atol=1e-5)
        elif what == "cleanup":
            np.testing.assert_array_equal(got, cleanup(twin, q_host, host))
        else:
            want_s, want_i = search(twin, q_host, host, k)
            np.testing.assert_array_equal(np.asarray(got[1]), want_i)
            np.testing.assert_allclose(np.asarray(got[0]), want_s, atol=1e-5)


dask_models = st.sampled_from(["MAP", "BSC", "FHRR", "HRR"])


@needs_dask
@FUZZ
@given(name=dask_models, data=st.data(), k=ks)
def test_dask_search_of_any_chunking(name, data, k):
    """Any chunks of rows: the answers of NumPy (see :func:`dask_searches`)."""
    dask_searches(name, data, k, hostile=False)


@needs_dask
@pytest.mark.xfail(
    strict=False,
    reason="Dask chunks of no rows, of unknown sizes, and no queries fail with raw errors "
    "(found by this fuzz): FHRR/HRR items chunked (1, 0): 'range() arg 3 must "
    "not be zero' (kernels.take_rows); queries chunked (0, 1): similarity_matrix's "
    "'Missing dependency'; 0 queries: FHRR/HRR similarity_matrix 'zero-size array to "
    "reduction operation maximum'; unknown chunks: 'cannot convert float NaN to integer' "
    "(store._partitioned, similarity_matrix), 'float object cannot be interpreted as an "
    "integer' (Codebook), HRR 'cannot broadcast shape (nan, 64)' (kernels.vecdot)",
)
@KNOWN_FAILURES
@given(name=dask_models, data=st.data(), k=ks)
def test_dask_search_of_empty_or_unknown_chunks(name, data, k):
    """Chunks of no rows or of unknown sizes, and no queries (see :func:`dask_searches`)."""
    dask_searches(name, data, k, hostile=True)


# -- JAX: codebooks split by rows ------------------------------------------------------------------
needs_jax = pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="jax not installed")


@pytest.fixture
def one_device_is_a_split(monkeypatch):
    """JAX has one device in this process (its device count is fixed when it starts; several
    devices: tests/test_jax_sharded.py runs them in subprocesses). A ``NamedSharding`` that
    names a mesh axis for the rows is taken as a split here, so the sharded program (a
    top-k in ``shard_map``, the ``all_gather`` of candidates, the merge) runs on a mesh of
    that one device."""
    import jax

    from holovec.kernels import jax_sharded, partitioned

    def row_axes(x):
        sharding = getattr(x, "sharding", None)
        if isinstance(sharding, jax.sharding.NamedSharding) and not isinstance(x, jax.core.Tracer):
            names = (*sharding.spec, None)[0]
            if names is not None:
                return (names,) if isinstance(names, str) else tuple(names)
        return None

    monkeypatch.setattr(jax_sharded, "row_axes", row_axes)
    kernels.is_partitioned.register("jax")(lambda backend, x: row_axes(x) is not None)
    yield
    kernels.is_partitioned.register("jax")(partitioned._jax_is_partitioned)  # JAX's own again


#: meshes (of this process's one device) and the axis that splits the rows: each a sharding
#: of its own, for which every program compiles again (about 0.1 s), so a few
MESHES = [(None, "rows"), (None, "rows"), ("one-axis", "rows"), ("one-axis", "x"), ("two-axes", "hosts")]
MESHES += [("not-a-mesh", "rows")]


def mesh_of(how: str | None, axis_name: str):
    import jax
    from jax.sharding import Mesh

    devices = np.array(jax.devices()[:1])
    if how == "one-axis":
        return Mesh(devices, ("rows",))
    if how == "two-axes":
        return Mesh(devices.reshape(1, 1), ("hosts", "rows"))
    return "mesh" if how == "not-a-mesh" else None


@needs_jax
@FUZZ
@given(
    data=st.data(),
    k=st.sampled_from([1, 1, np.int64(1), 9, 0, -1, 2.5, "3", True, None]),
    mesh=st.sampled_from(MESHES),
    call=st.sampled_from(["search", "store", "cleanup"]),
    batch=st.sampled_from([(2,), (1, 2)]),
)
def test_sharded_search_is_the_search_of_one_array(one_device_is_a_split, data, k, mesh, call, batch):
    """``shard_rows`` with any mesh and axis name, of any codebook shape: a clear error, or a
    codebook whose search, ItemStore search or cleanup answers as one search on NumPy."""
    from holovec.retrieval import shard_rows

    model, twin = model_of("MAP", "jax"), model_of("MAP", "numpy")
    rows = data.draw(st.lists(st.integers(0, 3), min_size=6, max_size=6), label="rows")  # ties
    host = np.asarray(twin.random(4, seed=5))[rows]
    shape = data.draw(st.sampled_from(["rows"] * 3 + ["empty", "1-d", "numpy"]), label="codebook")
    book = {"empty": host[:0], "1-d": host[0], "numpy": host}.get(shape, model.backend.asarray(host))
    ok, sharded = outcome(lambda: shard_rows(book, mesh_of(mesh[0], mesh[1]), mesh[1]))
    if not ok:
        return
    q_host = np.asarray(twin.random(2, seed=6)).reshape(*batch, DIM)
    queries = model.backend.asarray(q_host)
    ok, got = outcome(
        {
            "search": lambda: search(model, queries, sharded, k),
            "store": lambda: ItemStore(model).fit(sharded).search(queries, k),
            "cleanup": lambda: cleanup(model, queries, sharded),
        }[call]
    )
    if not ok:
        assert shape == "empty" or (call != "cleanup" and not is_count(k)), f"{call}: {got!r}"
        return
    assert shape != "empty" and (call == "cleanup" or is_count(k)), f"{call} took k={k!r}"
    sims = np.asarray(twin.similarity_matrix(q_host.reshape(-1, DIM), host)).reshape(*batch, len(host))
    if call == "cleanup":
        best = np.argsort(-sims, axis=-1, kind="stable")[..., 0]
        np.testing.assert_array_equal(np.asarray(got), host[best])
    else:
        want_s, want_i = reference_top_k(sims, min(int(k), len(host)))
        np.testing.assert_array_equal(np.asarray(got[1]), want_i)
        np.testing.assert_allclose(np.asarray(got[0]), want_s, atol=1e-6)
