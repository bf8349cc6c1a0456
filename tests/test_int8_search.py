"""The accelerator's exact Hamming search (holovec/backends/int8_search.py): packed bits
unpacked per chunk into +-1 int8, an int8 product with int32 accumulation, top-k per chunk
on unique keys. It serves torch and JAX off the CPU; here it runs on the CPU (torch._int_mm
and JAX's int8 products run there too) and must equal the host kernel bit for bit, ties
lowest index first, whatever the chunking."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import device_for
from holovec import kernels
from holovec.backends import get_backend
from holovec.kernels import int8_search, packed_search

CASES = [
    # (n_bits, n_queries, n_items, k, chunk rows)
    (7, 3, 50, 5, 8),  # padding bits in the only byte; many ties
    (64, 1, 37, 37, 8),  # k = every item; one query (torch pads it to 24 rows)
    (100, 17, 301, 10, 64),  # a partial last chunk (overlapping, masked)
    (640, 40, 129, 1, 16384),  # one chunk
    (1000, 5, 200, 33, 16),  # k above the chunk (torch merges growing candidate lists)
]


def _packed_bits(rng: np.random.Generator, rows: int, n_bits: int) -> np.ndarray:
    bits = rng.integers(0, 2, (rows, n_bits), dtype=np.uint8)
    packed = np.packbits(bits, axis=-1, bitorder="little")
    width = 8 * -(-n_bits // 64)  # whole 64-bit words, padding zero
    return np.pad(packed, ((0, 0), (0, width - packed.shape[1])))


@pytest.mark.ordering
@pytest.mark.parametrize("framework", ["torch", "jax"])
@pytest.mark.parametrize(("n_bits", "n_q", "n", "k", "chunk"), CASES)
def test_equals_the_host_kernel(monkeypatch, framework, n_bits, n_q, n, k, chunk):
    rng = np.random.default_rng(n_bits + n)
    queries, items = _packed_bits(rng, n_q, n_bits), _packed_bits(rng, n, n_bits)
    items[::4] = items[1]  # equal items: equal distances, ordered by index
    queries[0] = items[1]  # a query with many items at distance 0
    expected = packed_search.hamming_top_k(queries, items, k)
    monkeypatch.setattr(int8_search, "CHUNK_ROWS", chunk)
    if framework == "torch":
        torch = pytest.importorskip("torch")
        d, i = int8_search.torch_hamming_top_k(torch.from_numpy(queries), torch.from_numpy(items), k)
        assert d.dtype == torch.int32 and i.dtype == torch.int64
    else:
        jnp = pytest.importorskip("jax.numpy")
        if k > int8_search.chunk_rows(8 * queries.shape[1], n):
            with pytest.raises(ValueError, match="more than"):
                int8_search.jax_hamming_top_k(jnp.asarray(queries), jnp.asarray(items), k)
            return
        monkeypatch.setattr(int8_search, "_JAX_PROGRAM", None)  # compiled for this chunk size
        d, i = int8_search.jax_hamming_top_k(jnp.asarray(queries), jnp.asarray(items), k)
    np.testing.assert_array_equal(np.asarray(d), expected[0])
    np.testing.assert_array_equal(np.asarray(i), expected[1])


def test_chunks_bound_the_memory_of_many_queries(monkeypatch):
    """Many queries make chunks of fewer items (the scores of one chunk stay within
    CHUNK_BYTES), and the result is unchanged."""
    assert int8_search.chunk_rows(10_240, 10**6, 20_000) * 20_000 * 32 <= int8_search.CHUNK_BYTES
    assert int8_search.chunk_rows(10_240, 10**6, 20_000) % 8 == 0
    monkeypatch.setattr(int8_search, "CHUNK_BYTES", 32 * 40 * 16)  # 40 queries: 16 items a chunk
    rng = np.random.default_rng(9)
    queries, items = _packed_bits(rng, 40, 300), _packed_bits(rng, 100, 300)
    assert int8_search.chunk_rows(8 * queries.shape[1], 100, 40) == 16
    expected = packed_search.hamming_top_k(queries, items, 5)
    torch = pytest.importorskip("torch")
    d, i = int8_search.torch_hamming_top_k(torch.from_numpy(queries), torch.from_numpy(items), 5)
    np.testing.assert_array_equal(d.numpy(), expected[0])
    np.testing.assert_array_equal(i.numpy(), expected[1])


def test_chunks_leave_room_for_the_keys():
    assert int8_search.chunk_rows(10_240, 10**6) == int8_search.CHUNK_ROWS
    assert int8_search.chunk_rows(10_240, 100) == 100
    wide = int8_search.chunk_rows(2**20, 10**6)  # a million bits: fewer items per chunk
    assert (2**20 + 1) << int8_search.key_shift(2**20, wide) < 2**31
    with pytest.raises(ValueError, match="no room"):
        int8_search.key_shift(2**20, 2**12)


def test_jax_search_inside_jit():
    """Under a user's jax.jit (traced arrays) the JAX backend takes the same kernel."""
    jax = pytest.importorskip("jax")
    from holovec.backends import get_backend

    backend = get_backend("jax", device="cpu")
    rng = np.random.default_rng(3)
    queries, items = _packed_bits(rng, 4, 200), _packed_bits(rng, 90, 200)
    expected = packed_search.hamming_top_k(queries, items, 6)
    traced = jax.jit(lambda q, b: kernels.hamming_top_k(backend, q, b, 200, 6))
    d, i = traced(backend.from_numpy(queries), backend.from_numpy(items))
    np.testing.assert_array_equal(np.asarray(d), expected[0])
    np.testing.assert_array_equal(np.asarray(i), expected[1])


@pytest.mark.ordering
@pytest.mark.parametrize("framework", ["torch", "jax"])
def test_backend_search_on_the_test_device(framework):
    """Through the backend on the test device (``pytest --device cuda``: the int8 kernel on
    the GPU; on the CPU the host kernel), every engine gives the host kernel's answer."""
    pytest.importorskip(framework)

    backend = get_backend(framework, device=device_for(framework))
    rng = np.random.default_rng(5)
    queries, items = _packed_bits(rng, 20, 1000), _packed_bits(rng, 3000, 1000)
    items[1::7] = items[0]
    expected = packed_search.hamming_top_k(queries, items, 10)
    d, i = kernels.hamming_top_k(backend, backend.from_numpy(queries), backend.from_numpy(items), 1000, 10)
    np.testing.assert_array_equal(backend.to_numpy(d), expected[0])
    np.testing.assert_array_equal(backend.to_numpy(i), expected[1])
