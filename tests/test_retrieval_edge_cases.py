"""Retrieval under hostile input: what an adversarial probe broke in holovec.retrieval, and a fuzz of
saved files that keeps it fixed.

Non-finite codebooks and queries, the metadata checksum, crafted files, bfloat16 and every
other dtype round-tripping, the search index made block by block, empty batches, and the
smaller ones: tiny temperatures, NumPy scalars as
parameters, the resonator's parameter checks, metadata types and byte order.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import struct
import tracemalloc
import zlib

import numpy as np
import pytest

import holovec.retrieval._index as search_engine
from conftest import device_for, to_numpy
from holovec import VSA, kernels
from holovec.backends import get_backend
from holovec.retrieval import Codebook, ItemStore, Resonator, cleanup, search

FLOAT_MODELS = [("MAP", {}), ("FHRR", {}), ("HRR", {})]
FLOAT_IDS = ["MAP", "FHRR", "HRR"]
SEARCH_MODELS = [("MAP", {}), ("FHRR", {}), ("HRR", {}), ("BSC", {}), ("BSC", {"packed": True})]
SEARCH_IDS = ["MAP", "FHRR", "HRR", "BSC", "BSC-packed"]


def with_nan(model, vectors, rows, value=float("nan")):
    """``vectors`` with ``value`` in one element of each of ``rows``, as a native array of
    the model's backend (made by the backend, not ``model.asarray``, which may refuse it)."""
    host = np.array(model.to_numpy(vectors))
    for r in rows:
        host[r, 1] = value
    return model.backend.from_numpy(host)


# -- one NaN row broke every search --------------------------------------------------------
@pytest.mark.parametrize("spec", FLOAT_MODELS, ids=FLOAT_IDS)
def test_non_finite_items_are_refused_with_the_row(make_model, spec):
    name, opts = spec
    model = make_model(name, 128, **opts)
    good = model.random(6, seed=1)
    bad = with_nan(model, good, [2])
    labels = list("abcdef")
    with pytest.raises(ValueError, match=r"vectors: row 2 \(label 'c'\) holds NaN or infinity"):
        Codebook(model, labels, bad)
    with pytest.raises(ValueError, match=r"row 2 \(label 2\)"):
        ItemStore(model).fit(bad)
    with pytest.raises(ValueError, match=r"'c'"):
        ItemStore(model).fit({label: bad[i] for i, label in enumerate(labels)})
    with pytest.raises(ValueError, match=r"^items: row 2 holds NaN"):
        search(model, good[:2], bad)
    with pytest.raises(ValueError, match=r"^codebook: row 2 holds NaN"):
        cleanup(model, good[:2], bad)
    with pytest.raises(ValueError, match=r"^codebook: row 2"):
        cleanup(model, good[:2], bad, soft=True)
    with pytest.raises(ValueError, match=r"^vector: the vector holds NaN or infinity"):
        Codebook(model, labels, good).add("g", bad[2])
    infinite = with_nan(model, good, [1, 4], float("inf"))
    with pytest.raises(ValueError, match=r"rows 1 \(label 'b'\), 4 \(label 'e'\) hold NaN or infinity"):
        Codebook(model, labels, infinite)
    # HoloVec 1.x's dict without a model: checked when a store gives it its model
    legacy = Codebook({label: bad[i] for i, label in enumerate(labels)}, backend=model.backend)
    with pytest.raises(ValueError, match=r"row 2 \(label 'c'\)"):
        ItemStore(model).fit(legacy)


@pytest.mark.parametrize("spec", FLOAT_MODELS, ids=FLOAT_IDS)
def test_non_finite_queries_are_refused_with_the_row(make_model, spec):
    name, opts = spec
    model = make_model(name, 128, **opts)
    items = model.random(8, seed=1)
    store = ItemStore(model, chunk_size=3).fit(items)
    queries = with_nan(model, items[:4], [3])
    with pytest.raises(ValueError, match=r"^vectors: row 3 holds NaN or infinity"):
        store.query(queries)
    with pytest.raises(ValueError, match=r"^queries: row 3"):
        store.search(queries)
    with pytest.raises(ValueError, match=r"^queries: the vector holds"):
        search(model, queries[3], items)
    with pytest.raises(ValueError, match=r"^noisy: row 3"):
        cleanup(model, queries, Codebook(model, None, items))
    batch = model.xp.reshape(queries, (2, 2, model.vector_length))
    with pytest.raises(ValueError, match=r"row \(1, 1\) holds"):
        store.search(batch)
    # finite queries still find their items, on every backend
    assert [hits[0][0] for hits in store.query(items)] == list(range(8))


def test_non_finite_resonator_input_is_refused(make_model):
    model = make_model("MAP", 256)
    books = [model.random(5, seed=s) for s in (1, 2)]
    with pytest.raises(ValueError, match=r"^codebooks\[1\]: row 4 holds NaN"):
        Resonator(model, [books[0], with_nan(model, books[1], [4])])
    product = model.bind(books[0][1], books[1][2])
    with pytest.raises(ValueError, match=r"^products: row 1 holds NaN"):
        Resonator(model, books).factor(with_nan(model, model.xp.stack([product, product]), [1]))


# -- files: helpers that write what save writes, or anything else -------------------------------------
def read_npz(path_or_bytes):
    src = io.BytesIO(path_or_bytes) if isinstance(path_or_bytes, bytes) else path_or_bytes
    with np.load(src, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    return arrays["vectors"], json.loads(str(arrays["metadata"][()]))


def metadata_checksum(meta):
    """The format's ``sha256_metadata``: every other field as canonical JSON."""
    record = {k: v for k, v in meta.items() if k != "sha256_metadata"}
    text = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def vectors_checksum(labels_json, vectors):
    """The format's ``sha256``: labels, dtype, shape and bytes of the stored vectors."""
    h = hashlib.sha256(labels_json.encode("utf-8"))
    h.update(vectors.dtype.str.encode() + str(vectors.shape).encode())
    h.update(np.ascontiguousarray(vectors).tobytes())
    return h.hexdigest()


def npz_bytes(vectors, meta, *, sign=True):
    """A codebook file holding ``vectors`` and ``meta``; ``sign`` recomputes both checksums
    (a crafted file that passes them)."""
    meta = dict(meta)
    if sign:
        if isinstance(meta.get("labels"), str):
            meta["sha256"] = vectors_checksum(meta["labels"], vectors)
        meta["sha256_metadata"] = metadata_checksum(meta)
    out = io.BytesIO()
    np.savez(out, vectors=vectors, metadata=np.array(json.dumps(meta)))
    return out.getvalue()


def npy_bytes(descr, shape, data=b"", fortran=False):
    """A ``.npy`` array whose header says anything."""
    header = f"{{'descr': {descr!r}, 'fortran_order': {fortran!r}, 'shape': {shape!r}, }}"
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1") + data


def zip_bytes(members):
    """A zip archive of ``(name, data, method, declared_size)`` members, written by hand so
    that the sizes it declares can be anything (``declared_size`` None: the true size)."""
    out, central = io.BytesIO(), []
    for name, data, method, declared in members:
        payload = data
        if method == 8:
            packer = zlib.compressobj(9, zlib.DEFLATED, -15)
            payload = packer.compress(data) + packer.flush()
        usize = len(data) if declared is None else declared
        csize = len(payload) if method == 8 or declared is None else declared
        crc, offset, encoded = zlib.crc32(data), out.tell(), name.encode()
        out.write(
            struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, method, 0, 0, crc, csize, usize, len(encoded), 0)
        )
        out.write(encoded + payload)
        central.append(
            struct.pack(
                "<4s6H3L5H2L",
                b"PK\x01\x02",
                20,
                20,
                0,
                method,
                0,
                0,
                crc,
                csize,
                usize,
                len(encoded),
                0,
                0,
                0,
                0,
                0,
                offset,
            )
            + encoded
        )
    directory, start = b"".join(central), out.tell()
    out.write(directory)
    out.write(
        struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, len(members), len(members), len(directory), start, 0)
    )
    return out.getvalue()


def meta_member(meta):
    return npy_bytes(f"<U{len(json.dumps(meta))}", (), np.array(json.dumps(meta)).tobytes())


def refused(source, model=None, *, match=None, limit=4 * 2**20):
    """``Codebook.load(source)`` raises ValueError (matching ``match``), and its Python and
    NumPy allocations peak below ``limit`` bytes on the way."""
    if isinstance(source, bytes):
        source = io.BytesIO(source)
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=match) as info:
            Codebook.load(source, model)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < limit, f"peak {peak} bytes: {info.value}"
    return str(info.value)


@pytest.fixture
def saved(tmp_path):
    """A small MAP codebook of a seeded model, saved; (model, book, path, vectors, metadata)."""
    model = VSA.create("MAP", dim=64, backend="numpy", seed=5)
    book = Codebook.from_seed(model, ["a", "b", "c"], seed=1, namespace="ns")
    path = tmp_path / "book.npz"
    book.save(path)
    Codebook.load(path, model)  # imports done before memory is measured
    vectors, meta = read_npz(path)
    return model, book, path, vectors, meta


# -- the checksum covers every field that changes meaning ------------------------------------
@pytest.mark.parametrize(
    "edit",
    [
        {"model": "HRR"},  # the probe's case: MAP vectors loaded as an HRR codebook
        {"model": "MAP-C"},
        {"model_seed": "6"},
        {"model_seed": None},
        {"namespace": "other"},
        {"seed": "2"},
        {"options": {"unitary": True}},
        {"backend": "torch"},
        {"count": 3, "labels": json.dumps([["s", "a"], ["s", "b"], ["s", "z"]])},
    ],
    ids=repr,
)
def test_metadata_edits_are_refused(saved, tmp_path, edit):
    model, _, _, vectors, meta = saved
    changed = {**meta, **edit}
    # the labels' own checksum redone, as a careful editor would: only sha256_metadata is left
    changed["sha256"] = vectors_checksum(changed["labels"], vectors)
    data = npz_bytes(vectors, changed, sign=False)
    for owner in (None, model):
        refused(data, owner, match="checksum mismatch: the metadata was changed or damaged")


def test_deleted_fields_are_refused(saved):
    _, _, _, vectors, meta = saved
    for key in ("model_seed", "namespace", "seed", "backend"):
        changed = {k: v for k, v in meta.items() if k != key}
        refused(npz_bytes(vectors, changed, sign=False), match="checksum mismatch: the metadata")


def test_files_of_this_format_version_still_load(saved):
    """The format stays version 1: the metadata checksum is a new field, so files written
    before it (checked by ``sha256`` alone, as they were) load, and older readers read the
    files written now."""
    model, book, path, vectors, meta = saved
    assert meta["version"] == 1 and meta["sha256_metadata"] == metadata_checksum(meta)
    old = {k: v for k, v in meta.items() if k != "sha256_metadata"}
    loaded = Codebook.load(io.BytesIO(npz_bytes(vectors, old, sign=False)))
    assert loaded.model == model and loaded.labels == book.labels and loaded.namespace == "ns"
    np.testing.assert_array_equal(loaded.vectors, book.vectors)
    again = Codebook.load(path)
    assert again.model == model and again.seed == 1 and again.namespace == "ns"


# -- crafted files -----------------------------------------------------------------------------
def test_crafted_metadata_is_refused(saved):
    _, _, _, vectors, meta = saved
    deep = '{"format": "holovec.codebook", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    data = zip_bytes(
        [
            ("vectors.npy", npy_bytes("<f4", vectors.shape, vectors.tobytes()), 0, None),
            ("metadata.npy", npy_bytes(f"<U{len(deep)}", (), np.array(deep).tobytes()), 0, None),
        ]
    )
    refused(data, match="nested too deeply", limit=16 * 2**20)
    refused(npz_bytes(vectors, {**meta, "options": "packed"}), match=r"bad options .*got str 'packed'")
    refused(npz_bytes(vectors, {**meta, "options": {"packed": [1]}}), match="option 'packed'")
    refused(npz_bytes(vectors, {**meta, "options": {"packed": True}}), match="cannot create the model")
    deep_label = json.dumps([["s", "a"], ["s", "b"], ["t", [["t"] * 1]]])
    refused(npz_bytes(vectors, {**meta, "labels": deep_label}), match="bad labels")
    nested = "[" * 5000 + "]" * 5000
    refused(npz_bytes(vectors, {**meta, "labels": nested}), match="bad labels")
    refused(npz_bytes(vectors, {**meta, "labels": json.dumps([["f", "0x1p99999"]] * 3)}), match="bad labels")
    refused(npz_bytes(vectors, {**meta, "seed": "1" * 5000}), match="bad seed")
    refused(npz_bytes(vectors, {**meta, "version": 1.0}), match="version 1.0 is not supported")
    refused(npz_bytes(vectors, {**meta, "version": True}), match="version True is not supported")
    refused(npz_bytes(vectors, {**meta, "dim": "64"}), match=r"bad dim .*expected an int, got str '64'")
    duplicate = json.dumps(meta)[:-1] + ', "model": "HRR"}'
    data = zip_bytes(
        [
            ("vectors.npy", npy_bytes("<f4", vectors.shape, vectors.tobytes()), 0, None),
            ("metadata.npy", npy_bytes(f"<U{len(duplicate)}", (), np.array(duplicate).tobytes()), 0, None),
        ]
    )
    refused(data, match="not a JSON record")


def test_a_plain_npy_file_is_refused(saved, tmp_path):
    _, _, _, vectors, _ = saved
    path = tmp_path / "vectors.npy"
    np.save(path, vectors)
    refused(path, match="not a holovec codebook file")
    with pytest.raises(FileNotFoundError):
        Codebook.load(tmp_path / "missing.npz")
    with pytest.raises(TypeError, match="path"):
        Codebook.load(None)


def test_declared_sizes_are_checked_before_reading(saved):
    """The probe's 1,868-byte file declaring a (1e12, 64) array, and members whose zip
    entries declare more than the file or deflate can hold: refused from the headers."""
    _, _, _, vectors, meta = saved
    huge = {**meta, "count": 10**12, "labels": "[]"}
    data = zip_bytes(
        [
            ("vectors.npy", npy_bytes("<f4", (10**12, 64), vectors.tobytes()), 0, None),
            ("metadata.npy", meta_member(huge), 0, None),
        ]
    )
    refused(data, match=r"header says shape \(1000000000000, 64\)")
    declared = 2**28 + 128  # 256 MiB: stored, so the file would have to hold it
    data = zip_bytes(
        [
            ("vectors.npy", npy_bytes("<f4", (2**20, 64), vectors.tobytes()), 0, declared),
            ("metadata.npy", meta_member(meta), 0, None),
        ]
    )
    refused(data, match="past the end of the file|sizes disagree")
    data = zip_bytes(
        [
            ("vectors.npy", npy_bytes("<f4", (2**20, 64), vectors.tobytes()), 8, declared),
            ("metadata.npy", meta_member(meta), 0, None),
        ]
    )
    refused(data, match="more than deflate can produce")
    text = json.dumps(meta)
    data = zip_bytes(
        [
            ("vectors.npy", npy_bytes("<f4", vectors.shape, vectors.tobytes()), 0, None),
            ("metadata.npy", npy_bytes(f"<U{2**26}", (), np.array(text).tobytes()), 0, None),
        ]
    )
    refused(data, match="metadata's header and size disagree")


def test_a_compressed_bomb_is_refused_with_bounded_memory(tmp_path):
    """A deflated member of 128 MiB of zeros (a file of about 130 kB) whose checksum is
    wrong: hashed block by block and refused without reading it into memory."""
    rows, dim = 8, 2**22
    meta = {
        "format": "holovec.codebook",
        "version": 1,
        "model": "MAP",
        "dim": dim,
        "vector_length": dim,
        "dtype": "float32",
        "options": {},
        "backend": "numpy",
        "seed": None,
        "model_seed": None,
        "namespace": "",
        "count": rows,
        "labels": json.dumps([["i", i] for i in range(rows)]),
        "sha256": "0" * 64,
    }
    meta["sha256_metadata"] = metadata_checksum(meta)
    header = npy_bytes("<f4", (rows, dim))
    packer = zlib.compressobj(6, zlib.DEFLATED, -15)
    payload, crc = packer.compress(header), zlib.crc32(header)
    block = bytes(2**22)
    for _ in range(rows * dim * 4 // len(block)):
        payload += packer.compress(block)
        crc = zlib.crc32(block, crc)
    payload += packer.flush()
    size = len(header) + rows * dim * 4
    path = tmp_path / "bomb.npz"
    with open(path, "wb") as f:  # one deflated member written by hand: its CRC and sizes are right
        name = b"vectors.npy"
        f.write(
            struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 8, 0, 0, crc, len(payload), size, len(name), 0)
        )
        f.write(name + payload)
        second = f.tell()
        member = meta_member(meta)
        f.write(
            struct.pack(
                "<4s5H3L2H",
                b"PK\x03\x04",
                20,
                0,
                0,
                0,
                0,
                zlib.crc32(member),
                len(member),
                len(member),
                12,
                0,
            )
            + b"metadata.npy"
            + member
        )
        start = f.tell()
        directory = (
            struct.pack(
                "<4s6H3L5H2L",
                b"PK\x01\x02",
                20,
                20,
                0,
                8,
                0,
                0,
                crc,
                len(payload),
                size,
                len(name),
                0,
                0,
                0,
                0,
                0,
                0,
            )
            + name
        )
        directory += (
            struct.pack(
                "<4s6H3L5H2L",
                b"PK\x01\x02",
                20,
                20,
                0,
                0,
                0,
                0,
                zlib.crc32(member),
                len(member),
                len(member),
                12,
                0,
                0,
                0,
                0,
                0,
                second,
            )
            + b"metadata.npy"
        )
        f.write(directory)
        f.write(struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 2, 2, len(directory), start, 0))
    assert path.stat().st_size < 2**20
    refused(path, match="checksum mismatch: the vectors or labels", limit=8 * 2**20)


# -- every dtype a model allows round-trips, bfloat16 included ----------------------------------
ROUND_TRIP = [
    (name, dtype) for name in VSA.available_models() for dtype in VSA.create(name, 64).allowed_dtypes
]


@pytest.mark.parametrize(("name", "dtype"), ROUND_TRIP, ids=[f"{n}-{d}" for n, d in ROUND_TRIP])
def test_every_dtype_round_trips(backend, name, dtype, tmp_path):
    if not kernels.supports_dtype(get_backend(backend, "cpu"), dtype):
        pytest.skip(f"{backend} has no {dtype} here")
    model = VSA.create(name, 64, backend=backend, device=device_for(backend), dtype=dtype, seed=3)
    book = Codebook(model, ["x", "y", "z"], model.random(3, seed=1))
    path = tmp_path / "book.npz"
    book.save(path)
    for loaded in (Codebook.load(path, model), Codebook.load(path, device="cpu")):
        assert loaded.model == model and loaded.vectors.dtype == model.dtype
        a, b = model.to_numpy(book.vectors), loaded.model.to_numpy(loaded.vectors)
        if dtype == "bfloat16":  # compared as float32, which holds bfloat16 exactly
            a, b = a.astype(np.float32), b.astype(np.float32)
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
        assert ItemStore(model).fit(loaded).query(book.vectors[1])[0][0] == "y"


def test_bfloat16_file_with_other_values_is_refused(saved):
    _, _, _, vectors, meta = saved
    values = vectors.copy()
    values[0, 0] = 1.0 + 2.0**-10  # a float32 that no bfloat16 equals
    refused(npz_bytes(values, {**meta, "dtype": "bfloat16"}), match="no bfloat16")


# -- the search index is made block by block --------------------------------------------------
@pytest.mark.parametrize("spec", SEARCH_MODELS, ids=SEARCH_IDS)
def test_search_index_is_made_block_by_block(make_model, spec, monkeypatch):
    name, opts = spec
    model = make_model(name, 256, **opts)
    items = model.random(50, seed=1)
    queries = model.xp.concat([model.random(2, seed=2), items[7:9]], axis=0)
    book = Codebook(model, None, items)
    expected = [to_numpy(model, a) for a in search(model, queries, items, 5, chunk_size=4)]
    expected_store = ItemStore(model).fit(book).search(queries, 5)
    soft = to_numpy(model, cleanup(model, queries, book, soft=True, temperature=0.2))
    rows = []
    real = model.search_index

    def spy(vectors):
        rows.append(int(vectors.shape[0]))
        return real(vectors)

    monkeypatch.setattr(model, "search_index", spy)
    itemsize = getattr(items.dtype, "itemsize", 8)
    monkeypatch.setattr(search_engine, "INDEX_BYTES", 7 * model.vector_length * itemsize)
    got = [to_numpy(model, a) for a in search(model, queries, items, 5, chunk_size=4)]
    store = ItemStore(model).fit(book)
    got_store = store.search(queries, 5)
    got_soft = to_numpy(model, cleanup(model, queries, book, soft=True, temperature=0.2))
    assert max(rows) <= 7 and rows.count(7) >= 3 * 7, rows  # every index in blocks of 7 items
    for want, have in zip([*expected, *expected_store], [*got, *got_store], strict=True):
        np.testing.assert_allclose(have, want, atol=1e-6)
    np.testing.assert_array_equal(got[1], expected[1])
    agree = model.similarity(model.backend.from_numpy(got_soft), model.backend.from_numpy(soft))
    np.testing.assert_allclose(to_numpy(model, agree), 1.0, atol=1e-5)
    rows.clear()
    store.search(queries, 5)  # the index is kept: only the queries are indexed again
    assert rows == [4]


# -- empty batches -------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", SEARCH_MODELS, ids=SEARCH_IDS)
def test_empty_batches(make_model, spec):
    name, opts = spec
    model = make_model(name, 128, **opts)
    items = model.random(6, seed=1)
    none = items[:0]
    store = ItemStore(model).fit(items)
    s, i = store.search(none, 3)
    s1, i1 = store.search(items[:2], 3)
    assert s.shape == i.shape == (0, 3) and s.dtype == s1.dtype and i.dtype == i1.dtype
    assert store.query(none, 2) == []
    s, i = search(model, none, items, 9)
    assert s.shape == i.shape == (0, 6)
    assert search(model, model.xp.reshape(none, (0, 2, model.vector_length)), items, 2)[0].shape == (0, 2, 2)
    for soft in (False, True):
        out = cleanup(model, none, items, soft=soft)
        assert out.shape == (0, model.vector_length) and out.dtype == model.dtype
        with pytest.raises(ValueError, match="empty codebook"):
            cleanup(model, items[:2], none, soft=soft)
        with pytest.raises(ValueError, match="empty codebook"):
            cleanup(model, none, none, soft=soft)
    with pytest.raises(ValueError, match="empty set of items"):
        search(model, items[:2], none)


@pytest.mark.parametrize("name", ["MAP", "FHRR", "BSC", "HRR"])
def test_resonator_factors_an_empty_batch(make_model, name):
    model = make_model(name, 256)
    books = [model.random(4, seed=s) for s in (1, 2, 3)]
    result = Resonator(model, books, max_iter=5).factor(model.random(3, seed=9)[:0])
    assert result.indices.shape == result.similarities.shape == (0, 3)
    assert result.iterations.shape == result.converged.shape == result.reconstruction.shape == (0,)
    assert tuple(result.estimates.shape) == (3, 0, model.vector_length)
    assert result.estimates.dtype == model.dtype


# -- the smaller ones ------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", [*FLOAT_MODELS, ("BSC", {"packed": True})], ids=[*FLOAT_IDS, "BSC-packed"])
def test_soft_cleanup_at_tiny_temperatures_is_the_hard_one(make_model, spec):
    name, opts = spec
    model = make_model(name, 512, **opts)
    book = Codebook.from_seed(model, range(20), seed=5)
    noisy = model.bundle([book.vectors[:4], book.vectors[:4], model.random(4, seed=8)])
    hard = to_numpy(model, cleanup(model, noisy, book))
    for temperature in (1e-40, 1e-300, 5e-324, np.float32(1e-45)):
        soft = cleanup(model, noisy, book, soft=True, temperature=temperature, chunk_size=6)
        sims = to_numpy(model, model.similarity(soft, model.backend.from_numpy(hard)))
        assert not np.isnan(sims).any()
        np.testing.assert_allclose(sims, 1.0, atol=1e-5)
    warm = cleanup(model, noisy, book, soft=True, temperature=math.inf)  # every item alike
    flat = cleanup(model, noisy, book, soft=True, temperature=1e30)
    np.testing.assert_allclose(to_numpy(model, model.similarity(warm, flat)), 1.0, atol=1e-5)


def test_numpy_scalars_as_parameters():
    model = VSA.create("MAP", 256, backend="numpy")
    book = Codebook.from_seed(model, range(12), seed=5)
    noisy = model.bundle([book.vectors[:3], book.vectors[:3], model.random(3, seed=8)])
    want = to_numpy(model, cleanup(model, noisy, book))
    for chunk in (np.int64(5), np.int32(5)):
        np.testing.assert_array_equal(to_numpy(model, cleanup(model, noisy, book, chunk_size=chunk)), want)
        soft = cleanup(model, noisy, book, soft=True, temperature=np.float32(0.1), chunk_size=chunk)
        np.testing.assert_array_equal(to_numpy(model, soft), want)
        assert to_numpy(
            model, search(model, noisy, book.vectors, 1, chunk_size=chunk)[1]
        ).ravel().tolist() == [
            0,
            1,
            2,
        ]
        assert ItemStore(model, chunk_size=chunk).fit(book).query(noisy[1])[0][0] == 1
    for bad, error in ((0, ValueError), (1.5, TypeError), ("2", TypeError), (True, TypeError)):
        with pytest.raises(error, match="chunk_size"):
            cleanup(model, noisy, book, soft=True, chunk_size=bad)
        with pytest.raises(error, match="chunk_size"):
            ItemStore(model, chunk_size=bad)
        with pytest.raises(error, match="chunk_size"):
            search(model, noisy, book.vectors, chunk_size=bad)
    for bad, error in (
        (0, ValueError),
        (-1.0, ValueError),
        (np.float64("nan"), ValueError),
        ("x", TypeError),
    ):
        with pytest.raises(error, match="temperature"):
            cleanup(model, noisy, book, soft=True, temperature=bad)


def test_resonator_parameter_errors():
    model = VSA.create("MAP", 256, backend="numpy")
    books = [model.random(4, seed=s) for s in (1, 2)]
    with pytest.raises(TypeError, match=r"model must be a VSA model.*NoneType"):
        Resonator(None, books)
    with pytest.raises(TypeError, match=r"tol must be a finite number in \[0, 1\), got str 'x'"):
        Resonator(model, books, tol="x")
    with pytest.raises(ValueError, match=r"tol must be a finite number in \[0, 1\)"):
        Resonator(model, books, tol=1.5)
    with pytest.raises(TypeError, match="match_threshold"):
        Resonator(model, books, match_threshold=None)
    with pytest.raises(ValueError, match="match_threshold"):
        Resonator(model, books, match_threshold=float("nan"))
    with pytest.raises(TypeError, match="max_iter"):
        Resonator(model, books, max_iter=2.5)
    product = model.bind(books[0][1], books[1][3])
    result = Resonator(model, books, max_iter=np.int64(50), tol=np.float32(1e-5)).factor(product)
    assert result.indices.tolist() == [[1, 3]]


def test_metadata_types_are_checked(saved):
    _, _, _, vectors, meta = saved
    message = refused(
        npz_bytes(vectors, {**meta, "count": "3"}), match=r"bad count .*expected an int, got str '3'"
    )
    assert "the metadata says" not in message
    refused(npz_bytes(vectors, {**meta, "vector_length": 64.0}), match="bad vector_length")
    refused(npz_bytes(vectors, {**meta, "dtype": "float128"}), match="bad dtype")
    refused(npz_bytes(vectors, {**meta, "labels": ["a"]}), match="bad labels .*expected a string")
    refused(npz_bytes(vectors, {**meta, "namespace": 3}), match="bad namespace")
    refused(npz_bytes(vectors, {**meta, "model_seed": "-1"}), match="bad model_seed")
    refused(npz_bytes(vectors, {**meta, "model_seed": "\u0661"}), match="bad model_seed")  # an Arabic digit


def test_big_endian_vectors_load_with_their_values(saved):
    """A file written on a big-endian machine: the same values, in native byte order."""
    model, book, _, vectors, meta = saved
    loaded = Codebook.load(io.BytesIO(npz_bytes(vectors.astype(">f4"), meta)), model)
    assert loaded.vectors.dtype == np.float32 and loaded.vectors.dtype.isnative
    np.testing.assert_array_equal(loaded.vectors, book.vectors)
    fhrr = VSA.create("FHRR", 32, backend="numpy")
    fbook = Codebook.from_seed(fhrr, ["p", "q"], seed=2)
    host = fhrr.to_numpy(fbook.vectors)
    fmeta = fbook.metadata(host)
    back = Codebook.load(io.BytesIO(npz_bytes(host.astype(">c8"), fmeta)))
    np.testing.assert_array_equal(back.vectors, fbook.vectors)
    refused(npz_bytes(vectors.astype(">f8"), meta), match="vectors are float64, the metadata says float32")
