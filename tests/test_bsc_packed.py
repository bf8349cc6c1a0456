"""Bit-packed BSC: the same vectors and similarities as unpacked BSC, in dim/8 bytes."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import to_numpy

DIMS = [1000, 77]  # a multiple of 64 bits is not required; padding bits stay zero


@pytest.fixture(params=DIMS)
def pair(request, make_model):
    return make_model("BSC", request.param, packed=True), make_model("BSC", request.param)


def test_storage_is_dim_over_8_bytes(make_model):
    model = make_model("BSC", 10000, packed=True)
    a = model.random(seed=1)
    assert model.packed and a.dtype == model.backend.dtype("uint8")
    assert a.shape == (1256,)  # 1250 bytes of bits, padded to whole 64-bit words


@pytest.mark.parametrize("dim", [10000, *DIMS])
def test_same_seeded_vectors_as_unpacked(make_model, dim):
    packed, unpacked = make_model("BSC", dim, packed=True), make_model("BSC", dim)
    a = packed.random(20, seed=5)
    assert np.array_equal(to_numpy(packed, packed.unpack(a)), to_numpy(unpacked, unpacked.random(20, seed=5)))
    # padding bits are clear
    assert np.array_equal(to_numpy(packed, packed.normalize(a)), to_numpy(packed, a))


def test_pack_unpack_round_trip(pair):
    packed, unpacked = pair
    bits = unpacked.random(4, seed=9)
    assert np.array_equal(to_numpy(packed, packed.unpack(packed.pack(bits))), to_numpy(unpacked, bits))


@pytest.mark.parametrize("k", [1, 2, 3, 8, 33])
def test_bit_sliced_bundle_equals_majority(pair, k):
    packed, unpacked = pair
    items = packed.random(k, seed=k)
    expected = unpacked.bundle(unpacked.random(k, seed=k))  # same seeds, same tie-break vector
    assert np.array_equal(to_numpy(packed, packed.unpack(packed.bundle(items))), to_numpy(unpacked, expected))


def test_bundle_with_batch_axes(make_model):
    packed, unpacked = make_model("BSC", 512, packed=True), make_model("BSC", 512)
    items = packed.random(6 * 5, seed=3)
    stacked = packed.xp.reshape(items, (6, 5, packed.vector_length))
    out = to_numpy(packed, packed.unpack(packed.bundle(stacked)))
    bits = unpacked.xp.reshape(unpacked.random(30, seed=3), (6, 5, 512))
    assert np.array_equal(out, to_numpy(unpacked, unpacked.bundle(bits)))


def test_similarities_equal_unpacked(pair):
    packed, unpacked = pair
    a, au = packed.random(12, seed=1), unpacked.random(12, seed=1)
    np.testing.assert_allclose(
        to_numpy(packed, packed.similarity_matrix(a, a)),
        to_numpy(unpacked, unpacked.similarity_matrix(au, au)),
        atol=1e-6,
    )
    np.testing.assert_allclose(
        to_numpy(packed, packed.similarity(a, a[3])),
        to_numpy(unpacked, unpacked.similarity(au, au[3])),
        atol=1e-6,
    )
    # chunk boundaries do not change the result
    np.testing.assert_allclose(
        to_numpy(packed, packed.similarity_matrix(a[:3], a, chunk_size=5)),
        to_numpy(packed, packed.similarity_matrix(a[:3], a)),
    )


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), shift=st.integers(-300, 300))
def test_bind_and_permute_match_unpacked(seed, shift):
    from holovec import VSA

    packed, unpacked = VSA.create("BSC", 300, packed=True), VSA.create("BSC", 300)
    a, b = packed.random(2, seed=seed)
    au, bu = unpacked.random(2, seed=seed)
    assert np.array_equal(packed.unpack(packed.bind(a, b)), unpacked.bind(au, bu))
    assert np.array_equal(packed.unpack(packed.permute(a, shift)), unpacked.permute(au, shift))
    assert np.array_equal(packed.unbind(packed.bind(a, b), b), a)
    assert np.array_equal(packed.permute(packed.permute(a, shift), -shift), a)


def test_unpacked_vectors_are_rejected(make_model):
    packed, unpacked = make_model("BSC", 1000, packed=True), make_model("BSC", 1000)
    with pytest.raises(ValueError, match=r"shape \(\.\.\., 128\)"):
        packed.bind(unpacked.random(seed=1), packed.random(seed=1))
    with pytest.raises(TypeError, match="packed must be True or False"):
        make_model("BSC", 1000, packed="yes")
