"""The saved-file fuzz: random truncation, bit flips, edited metadata and crafted members of
a saved codebook, each refused with ``ValueError`` (never another exception) in bounded
memory, or, for a harmless flip, loaded as exactly the codebook saved."""

from __future__ import annotations

import io
import tracemalloc

import numpy as np
from fuzz_settings import FUZZ
from hypothesis import given
from hypothesis import strategies as st
from test_retrieval_edge_cases import meta_member, npy_bytes, npz_bytes, zip_bytes

from holovec import VSA
from holovec.retrieval import Codebook

_MODEL = VSA.create("MAP", dim=64, backend="numpy", seed=5)
_BOOK = Codebook.from_seed(_MODEL, ["a", ("b", 2), 3.5], seed=1, namespace="ns")
_HOST = _MODEL.to_numpy(_BOOK.vectors)
_META = _BOOK.metadata(_HOST)
_FILE = npz_bytes(_HOST, _META, sign=False)


def load_or_refuse(data, model=_MODEL, limit=4 * 2**20):
    """The codebook in ``data``, or None where it is refused with a ValueError; any other
    exception fails. Memory stays below ``limit`` either way (None: not measured)."""
    tracemalloc.start()
    try:
        try:
            book = Codebook.load(io.BytesIO(data), model)
        except ValueError:
            book = None
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert limit is None or peak < limit, peak
    return book


def same_as_saved(book):
    return (
        book.labels == _BOOK.labels
        and book.namespace == "ns"
        and book.seed == 1
        and book.model == _MODEL
        and np.array_equal(book.vectors, _HOST)
    )


@FUZZ
@given(st.integers(0, len(_FILE) - 1))
def test_fuzz_truncated_files_are_refused(cut):
    assert load_or_refuse(_FILE[:cut]) is None
    assert load_or_refuse(_FILE[:cut], None) is None


@FUZZ
@given(st.lists(st.tuples(st.integers(0, len(_FILE) - 1), st.integers(0, 7)), min_size=1, max_size=3))
def test_fuzz_bit_flips_are_refused_or_harmless(flips):
    """A flipped bit is refused, or it lies where it changes nothing that is read (a zip
    time stamp, say): then the codebook is exactly the one saved."""
    data = bytearray(_FILE)
    for pos, bit in flips:
        data[pos] ^= 1 << bit
    for model in (_MODEL, None):
        book = load_or_refuse(bytes(data), model)
        assert book is None or same_as_saved(book)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)


@FUZZ
@given(st.sampled_from(sorted(_META)), JSON_VALUES, st.booleans())
def test_fuzz_edited_metadata(field, value, sign):
    """An edited field is refused unless the checksums are made again (a crafted file):
    then it is refused with a ValueError or loads as what it now says."""
    meta = {**_META, field: value}
    if field == "dim" and isinstance(value, int) and not isinstance(value, bool) and value > 2**16:
        meta[field] = 2**16  # a legitimate file may describe a model too big to create here
    book = load_or_refuse(npz_bytes(_HOST, meta, sign=sign))
    if not sign and meta[field] != _META[field]:
        assert book is None
    # a model created from what the file now says may import a framework: not measured
    load_or_refuse(npz_bytes(_HOST, meta, sign=sign), None, limit=None)


DESCRS = ["<f4", ">f4", "<f8", "|u1", "<c8", "|b1", "|O", "<U3", "|V8", "<i8", [("a", "<f4")], ("<f4", (2,))]


@FUZZ
@given(
    st.sampled_from(DESCRS),
    st.lists(st.integers(-3, 2**40), max_size=3).map(tuple),
    st.booleans(),
    st.integers(0, 600),
    st.sampled_from([0, 8]),
    st.one_of(st.none(), st.integers(0, 2**31)),
    st.booleans(),
)
def test_fuzz_crafted_members_are_refused(descr, shape, fortran, n_data, method, declared, good_meta):
    vectors = npy_bytes(descr, shape, bytes(range(256)) * (n_data // 256) + bytes(n_data % 256), fortran)
    meta = meta_member(_META) if good_meta else npy_bytes("<U2", (), "{}".encode("utf-32-le"))
    data = zip_bytes([("vectors.npy", vectors, method, declared), ("metadata.npy", meta, 0, None)])
    assert load_or_refuse(data) is None
    assert load_or_refuse(data, None) is None
