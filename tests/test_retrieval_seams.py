"""The seams inside retrieval: the codebook as a plain container, its file format
(``holovec._format.codebook``), HoloVec 1.x's forms (``holovec.compat``), the search
engine shared by the store and cleanup (``holovec.retrieval._index``) and the resonator's
iteration (``holovec.retrieval._network``)."""

from __future__ import annotations

import io

import numpy as np
import pytest

import holovec.retrieval._index as engine
import holovec.retrieval.store as store_module
from holovec import VSA, compat
from holovec._format.codebook import FORMAT, load_codebook, read_codebook
from holovec._format.labels import decode_labels, encode_labels
from holovec.retrieval import AssocStore, Codebook, ItemStore, cleanup
from holovec.retrieval._checks import check_same_model, claim_codebook
from holovec.retrieval._labels import checked_key, label_rows
from holovec.retrieval._network import padded_count


# -- the codebook: a container that takes its model explicitly ---------------------------------------
def test_adopt_model_gives_a_dict_codebook_its_model():
    model = VSA.create("MAP", dim=64, seed=1)
    book = Codebook({"a": model.random(seed=1), "b": model.random(seed=2)})
    with pytest.raises(TypeError, match="VSA model"):
        book.adopt_model("MAP")
    with pytest.raises(TypeError, match="MAP vectors are float32, got complex64"):
        Codebook({"a": VSA.create("FHRR", dim=64).random(seed=1)}).adopt_model(model)
    assert book.model is None
    book.adopt_model(model)
    assert book.model is model
    with pytest.raises(ValueError, match="has a model already"):
        book.adopt_model(model)


def test_checks_of_the_model_change_only_a_codebook_without_one():
    model = VSA.create("MAP", dim=64, seed=1)
    other = VSA.create("MAP", dim=64, seed=2)
    book = Codebook.from_seed(other, ["a"], seed=1)
    with pytest.raises(ValueError, match=r"belongs to another model.*seed"):
        check_same_model(model, book, "the codebook", "the model")
    with pytest.raises(ValueError, match="belongs to another model"):
        claim_codebook(model, book, "the codebook", "the model")
    assert book.model is other  # refused, unchanged
    legacy = Codebook({"x": model.random(seed=3)})
    claim_codebook(model, legacy, "the codebook", "the model")
    assert legacy.model is model


def test_stores_and_cleanup_take_a_dict_codebook_of_their_model():
    model = VSA.create("FHRR", dim=128, seed=1)
    for use in (
        lambda b: ItemStore(model).fit(b),
        lambda b: cleanup(model, model.random(seed=9), b),
        lambda b: AssocStore(model).fit(b, Codebook(model, ["k"], model.random(1, seed=8))),
    ):
        book = Codebook({"k": model.random(seed=1)})
        use(book)
        assert book.model is model


def test_label_keys_and_rows():
    assert label_rows(["a", 1, 1.0, True, ("a", 1)]) == {
        checked_key(x): i for i, x in enumerate(["a", 1, 1.0, True, ("a", 1)])
    }
    with pytest.raises(ValueError, match="duplicate label"):
        label_rows([1, np.int64(1)])
    with pytest.raises(TypeError, match=r"hashable.*list"):
        checked_key(["a"])


# -- HoloVec 1.x's forms: holovec.compat ---------------------------------------------------------------
def test_compat_checks_a_dict_without_a_model():
    model = VSA.create("MAP", dim=32)
    backend, rows = compat.vectors_without_model({"a": model.random(seed=1)}, None)
    assert backend.name == "numpy" and list(rows) == ["a"]
    with pytest.raises(ValueError, match="empty dict"):
        compat.vectors_without_model({}, None)
    with pytest.raises(ValueError, match="the vector of 'b' has shape"):
        compat.vectors_without_model({"a": model.random(seed=1), "b": model.random(seed=1)[:8]}, None)
    with pytest.raises(TypeError, match=r"builtins\.list"):
        compat.vectors_without_model({"a": [1.0]}, None)
    vectors = model.random(2, seed=1)
    assert compat.row_without_model(backend, vectors, vectors[0]).shape == (1, 32)
    with pytest.raises(TypeError, match="dtype float32"):
        compat.row_without_model(backend, vectors, vectors[0].astype(np.float64))
    with pytest.raises(ValueError, match=r"shape \(32,\)"):
        compat.row_without_model(backend, vectors, vectors)


def test_extend_is_holovec_1x_name_of_update():
    model = VSA.create("MAP", dim=32, seed=1)
    book = Codebook(model, {"a": model.random(seed=1)})
    assert isinstance(book, compat.CodebookNames)
    book.extend({"b": model.random(seed=2)})
    assert book.labels == ["a", "b"]


# -- the codebook's file format: holovec._format.codebook -------------------------------------------
def test_labels_round_trip_with_their_types():
    labels = ["a", b"\x00", 1, 1.5, True, ("t", (2, False)), float("inf")]
    assert decode_labels(encode_labels(labels)) == labels
    assert [type(x) for x in decode_labels(encode_labels(labels))] == [type(x) for x in labels]
    with pytest.raises(TypeError, match="NoneType"):
        encode_labels([None])
    with pytest.raises(ValueError, match="bad labels"):
        decode_labels('[["q", 1]]')


def test_codebook_file_read_and_loaded():
    model = VSA.create("BSC", dim=100, seed=4)
    book = Codebook.from_seed(model, ["x", ("y", 2)], seed=5, namespace="n")
    buffer = io.BytesIO()
    book.save(buffer)
    meta, labels, host = read_codebook(buffer)
    assert meta["format"] == FORMAT and labels == ["x", ("y", 2)] and host.shape == (2, model.vector_length)
    found = load_codebook(buffer)
    assert found.model == model and found.seed == 5 and found.namespace == "n"
    with pytest.raises(ValueError, match="dim 100, but the model given has dim 64"):
        load_codebook(buffer, VSA.create("BSC", dim=64))


# -- the search engine: holovec.retrieval._index ---------------------------------------------------------
def test_the_store_documents_the_engine_sizes():
    assert store_module.SCORE_BYTES == engine.SCORE_BYTES
    assert store_module.INDEX_BYTES == engine.INDEX_BYTES
    assert store_module.PACKED_GROUP_BYTES == engine.PACKED_GROUP_BYTES


def test_hamming_search_only_where_the_model_has_one():
    assert engine.hamming_bits_of(VSA.create("FHRR", dim=64)) is None
    bsc = VSA.create("BSC", dim=64)
    assert callable(engine.hamming_bits_of(bsc))


def test_search_index_in_blocks_searches_alike():
    model = VSA.create("MAP", dim=64, seed=1)
    items, queries = model.random(20, seed=1), model.random(3, seed=2)
    whole = engine.search_indexed(model, queries, engine.SearchIndex(model, items), 4, None)
    blocks = engine.search_indexed(model, queries, engine.SearchIndex(model, items, block_rows=3), 4, None)
    assert len(engine.SearchIndex(model, items, block_rows=3).blocks) == 7
    for a, b in zip(whole, blocks, strict=True):
        np.testing.assert_array_equal(model.to_numpy(a), model.to_numpy(b))
    with pytest.raises(ValueError, match="positive int"):
        engine.check_k(0)
    with pytest.raises(TypeError, match="positive int"):
        engine.check_k(1.0)


# -- the resonator's iteration: holovec.retrieval._network ----------------------------------------------
def test_padded_batches_are_powers_of_two():
    assert [padded_count(n) for n in (1, 2, 3, 4, 5, 8, 9)] == [1, 2, 4, 4, 8, 8, 16]
