"""The backend layer's own hooks, the same on every framework."""

import numpy as np
import pytest

from conftest import device_for
from holovec import get_backend, kernels

RNG = np.random.default_rng(0)


@pytest.fixture
def be(backend):
    return get_backend(backend, device=device_for(backend))


def test_numpy_round_trip(be):
    x = RNG.standard_normal((3, 5)).astype(np.float32)
    y = be.from_numpy(x)
    assert be.is_array(y)
    np.testing.assert_array_equal(be.to_numpy(y), x)


def test_fft_round_trip(be):
    x = RNG.standard_normal((2, 16)).astype(np.complex64)
    y = kernels.ifft(be, kernels.fft(be, be.from_numpy(x)))
    np.testing.assert_allclose(be.to_numpy(y), x, atol=1e-5)
    np.testing.assert_allclose(
        be.to_numpy(kernels.fft(be, be.from_numpy(x))), np.fft.fft(x), rtol=1e-4, atol=1e-4
    )


def test_popcount_and_count_bits(be):
    x = RNG.integers(0, 256, (4, 24), dtype=np.uint8)
    np.testing.assert_array_equal(be.to_numpy(kernels.popcount(be, be.from_numpy(x))), np.bitwise_count(x))
    np.testing.assert_array_equal(
        be.to_numpy(kernels.count_bits(be, be.from_numpy(x))), np.bitwise_count(x).sum(-1)
    )


def test_bit_packing_round_trip(be):
    bits = RNG.integers(0, 2, (3, 21), dtype=np.uint8)
    packed = kernels.pack_bits(be, be.from_numpy(bits), 8)
    np.testing.assert_array_equal(
        be.to_numpy(packed), np.pad(np.packbits(bits, -1, bitorder="little"), [(0, 0), (0, 5)])
    )
    np.testing.assert_array_equal(be.to_numpy(kernels.unpack_bytes(be, packed, 21)), bits)


def test_words_to_bytes_is_little_endian(be):
    words = np.array([[0x04030201, 0xA0B0C0D0]], dtype=np.uint32)
    out = be.to_numpy(kernels.words_to_bytes(be, be.asarray(words, dtype=kernels.word_dtype_name(be))))
    np.testing.assert_array_equal(out, words.view(np.uint8))
    bits = be.to_numpy(kernels.unpack_bits(be, be.asarray(words, dtype=kernels.word_dtype_name(be)), 40))
    np.testing.assert_array_equal(bits, np.unpackbits(words.view(np.uint8), bitorder="little")[None, :40])


def test_real_view_and_unit_phasor(be):
    z = (RNG.standard_normal((2, 6)) + 1j * RNG.standard_normal((2, 6))).astype(np.complex64)
    real = be.to_numpy(kernels.real_view(be, be.from_numpy(z)))
    assert real.shape == (2, 12)
    # any layout works for dot products: what matters is Re(<a, conj(b)>) = real(a) . real(b)
    np.testing.assert_allclose(real @ real.T, np.real(z @ z.conj().T), rtol=1e-5)
    phases = np.linspace(-np.pi, np.pi, 9, dtype=np.float32)
    np.testing.assert_allclose(
        be.to_numpy(kernels.unit_phasor(be, be.from_numpy(phases))), np.exp(1j * phases), atol=1e-6
    )


def test_jit_hook_computes_the_same(be):
    def f(x):
        return x * 2 + 1

    x = be.from_numpy(np.arange(6, dtype=np.float32))
    fn = be.jit(f) if be.name != "torch" else f  # torch.compile is exercised in test_jit.py
    np.testing.assert_array_equal(be.to_numpy(fn(x)), np.arange(6) * 2 + 1)


def test_dlpack_conversion_from_other_frameworks(be, backend):
    import importlib.util

    x = np.arange(8, dtype=np.float32)
    for other in ("numpy", "torch", "jax"):
        if importlib.util.find_spec(other) is None:
            continue
        source = get_backend(other, device=device_for(other)).from_numpy(x)
        y = be.asarray(source)
        assert be.is_array(y)
        np.testing.assert_array_equal(be.to_numpy(y), x)


def test_equality_and_repr(be, backend):
    assert be == get_backend(backend, device=device_for(backend))
    assert backend in repr(be).lower() or be.name in repr(be).lower()
    assert hash(be) == hash(get_backend(backend, device=device_for(backend)))


@pytest.mark.parametrize("n_bits", [64, 77, 1000])
def test_hamming_matrix_equals_xor_popcount(be, n_bits):
    n_bytes = 8 * -(-n_bits // 64)
    bits = RNG.integers(0, 2, (9, n_bits), dtype=np.uint8)
    packed = np.pad(np.packbits(bits, -1, bitorder="little"), [(0, 0), (0, n_bytes - -(-n_bits // 8))])
    expected = (bits[:4, None, :] != bits[None, :, :]).sum(-1)
    got = kernels.hamming_matrix(be, be.from_numpy(packed[:4]), be.from_numpy(packed), n_bits)
    np.testing.assert_array_equal(be.to_numpy(got), expected)


def test_torch_hamming_falls_back_to_float_products(monkeypatch):
    torch = pytest.importorskip("torch")

    def unavailable(*args):
        raise RuntimeError("no int8 kernel")

    monkeypatch.setattr(torch, "_int_mm", unavailable)
    be = get_backend("torch", device="cpu")
    bits = RNG.integers(0, 2, (5, 128), dtype=np.uint8)
    packed = np.packbits(bits, -1, bitorder="little")
    got = kernels.hamming_matrix(be, be.from_numpy(packed), be.from_numpy(packed), 128)
    np.testing.assert_array_equal(be.to_numpy(got), (bits[:, None] != bits[None]).sum(-1))


def test_map_chunks_keeps_order(be):
    assert kernels.map_chunks(be, lambda c: c * c, range(7)) == [c * c for c in range(7)]


# -- the layers: adapters, numerics, kernels --------------------------------------------------


def test_a_backend_is_the_adapter_only(be):
    """The kernels are free functions of the backend (holovec.kernels), not its members: the
    adapter keeps at most 30, and a framework's class adds none of the kernels'."""
    from holovec.backends.base import Backend

    members = [n for n in dir(Backend) if not n.startswith("__") and n != "_abc_impl"]
    assert len(members) <= 30, members
    for name in (
        "hamming_top_k",
        "top_k",
        "merge_top_k",
        "pack_bits",
        "draw_path",
        "row_blocked_matmul",
        "matmul",
    ):
        assert not hasattr(be, name)
        assert callable(getattr(kernels, name))
    assert type(be).__mro__[1] is Backend


def test_kernels_dispatch_on_the_backend_name(be):
    """A framework's version is the one registered for its name; any other backend (here a
    user's subclass under a new name) gets the generic version."""
    from holovec.backends.numpy_backend import NumpyBackend

    class Other(NumpyBackend):
        name = "other"

    scores = np.array([[0.5, 0.9, 0.5, 0.1]])
    for backend in (get_backend("numpy"), Other()):
        _, indices = kernels.top_k(backend, backend.asarray(scores), 3)
        assert np.asarray(indices).tolist() == [[1, 0, 2]]
    assert kernels.fast_hamming_search(get_backend("numpy")) and not kernels.fast_hamming_search(Other())


def test_random_exports_only_its_checked_functions():
    import holovec.random as hv_random

    assert sorted(hv_random.__all__) == ["Purpose", "check_seed", "fold_in", "fresh_seed"]
    from holovec.random.philox import Words, address_words, random_words  # holovec's own, by path
    from holovec.random.samplers import random_bits

    assert hv_random.random_words is random_words and hv_random.random_bits is random_bits
    assert hv_random.Words is Words and hv_random.address_words is address_words
    with pytest.raises(TypeError, match="seed must be a non-negative int"):
        hv_random.check_seed(1.5)
