"""The engines: similarity of vectors of any finite size and the checked
``kernels.hamming_top_k``. JAX codebooks replicated or sharded over
several devices need several devices: ``tests/_jax_sharded_worker.py`` checks it in a
subprocess (``replicated_codebook``, ``cleanup_on_devices``).
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from conftest import to_numpy
from holovec import VSA, kernels
from holovec.retrieval import ItemStore, cleanup, search


def _installed(name: str):
    missing = importlib.util.find_spec(name) is None
    return pytest.param(name, marks=pytest.mark.skipif(missing, reason=f"{name} not installed"))


ALL_BACKENDS = [_installed(name) for name in ("numpy", "torch", "jax", "dask")]
#: the models whose vectors are real or complex numbers of any size
COSINE_MODELS = ["HRR", "MAP-C", "VTB", "GHRR", "MAP-I"]
PRODUCT_MODELS = ["MAP", "FHRR"]  # <a, b> / dim, searched by <a, b> / max(dim, |a| |b|)


def scaled(model, x, factor):
    """``x * factor`` as a native array of the model's backend (made by the backend: some
    models' ``asarray`` refuse values outside their alphabet, as arithmetic can make)."""
    host = to_numpy(model, x)
    return model.backend.from_numpy(host * np.array(factor, dtype=host.real.dtype))


def host(model, x):
    """A backend array (or a store's NumPy result) as a NumPy array."""
    return x if isinstance(x, np.ndarray) else np.asarray(to_numpy(model, x))


# -- squares that overflow or underflow ----------------------------------------------------
@pytest.mark.parametrize("name", COSINE_MODELS)
@pytest.mark.parametrize("factor", [1e20, 1e-25])
def test_cosine_of_huge_and_tiny_vectors(make_model, name, factor):
    """HRR vectors scaled by 1e20 had similarity NaN with themselves (float32 squares
    overflow), and by 1e-25 similarity 0 (they underflow): a cosine does not depend on
    the scale."""
    model = make_model(name, 256)
    x = model.random(4, seed=1)
    big = scaled(model, x, factor)
    want = host(model, model.similarity_matrix(x, x))
    assert float(model.similarity(big[0], big[0])) == pytest.approx(1.0, abs=1e-6)
    pairs = host(model, model.similarity(big, big[::-1] if model.backend.name != "torch" else big.flip(0)))
    np.testing.assert_allclose(pairs, np.diag(want[:, ::-1]), atol=1e-5)
    np.testing.assert_allclose(host(model, model.similarity_matrix(big, big)), want, atol=1e-5)
    # one side scaled, the other not: the same cosines
    np.testing.assert_allclose(host(model, model.similarity_matrix(big, x)), want, atol=1e-5)


@pytest.mark.parametrize("backend_name", ALL_BACKENDS)
@pytest.mark.parametrize("name", [*COSINE_MODELS, *PRODUCT_MODELS])
def test_search_finds_huge_items(backend_name, name):
    """A codebook with a vector scaled by 1e20: each item finds itself, with similarity 1
    (the NumPy search crashed with "cannot reshape array of size 0": NaN scores had no
    k-th largest)."""
    model = VSA.create(name, dim=256, backend=backend_name)
    items = model.random(6, seed=1)
    host_items = np.array(host(model, items))  # a writable copy
    host_items[2] *= np.array(1e20, dtype=host_items.real.dtype)
    book = model.backend.from_numpy(host_items)
    for scores, indices in (ItemStore(model).fit(book).search(book, k=2), search(model, book, book, k=2)):
        scores, indices = host(model, scores), host(model, indices)
        assert indices[:, 0].tolist() == list(range(6))
        np.testing.assert_allclose(scores[:, 0], 1.0, atol=1e-6)
        assert np.isfinite(scores).all()
    assert float(model.similarity(book[2], book[2])) == pytest.approx(1.0, abs=1e-6)
    assert np.isfinite(host(model, model.similarity_matrix(book, book))).all()


@pytest.mark.parametrize("name", PRODUCT_MODELS)
def test_dot_product_models_on_huge_vectors(make_model, name):
    """MAP and FHRR: ``<a, b> / dim`` clipped (NaN before, from inf - inf in the sums), and
    the search score, ``<a, b> / max(dim, |a| |b|)``, the cosine for such vectors."""
    model = make_model(name, 256)
    x = model.random(3, seed=2)
    big = scaled(model, x, 1e20)
    sims = host(model, model.similarity_matrix(big, big))
    assert np.isfinite(sims).all() and (np.abs(sims) <= 1).all()
    np.testing.assert_array_equal(np.diag(sims), 1.0)
    # far above dim: every pair that is not orthogonal saturates at +-1, with the sign of <a, b>
    signs = np.sign(host(model, model.similarity_matrix(x, x)))
    np.testing.assert_array_equal(np.sign(sims), signs)
    scores, indices = search(model, big, model.backend.from_numpy(np.concatenate([host(model, x)] * 2)), k=1)
    assert host(model, indices)[:, 0].tolist() == [0, 1, 2]  # the cosine: the unscaled items rank alike
    np.testing.assert_allclose(host(model, scores)[:, 0], 1.0, atol=1e-6)


def test_tiny_vectors_of_dot_product_models_score_about_zero():
    """MAP's search score of vectors too small for float32 squares is about 0, as the formula
    says (``|a|**2 / dim`` is below float32's range): ties, no error."""
    model = VSA.create("MAP", dim=256)
    items = model.random(4, seed=1) * np.float32(1e-25)
    scores, _ = search(model, items, items, k=1)
    assert np.isfinite(scores).all() and (np.abs(scores) < 1e-30).all()
    assert float(model.similarity(items[0], items[0])) == pytest.approx(0.0, abs=1e-30)


def test_jitted_similarity_of_huge_vectors():
    """Under jax.jit (values unreadable) the rows are divided branch-free."""
    jax = pytest.importorskip("jax")
    model = VSA.create("HRR", dim=256, backend="jax")
    x = scaled(model, model.random(3, seed=1), 1e20)
    sims = np.asarray(jax.jit(model.similarity)(x, x))
    np.testing.assert_allclose(sims, 1.0, atol=1e-6)


def test_torch_gradient_through_scaled_similarity():
    torch = pytest.importorskip("torch")
    model = VSA.create("HRR", dim=64, backend="torch")
    a = scaled(model, model.random(seed=1), 1e20).requires_grad_(True)
    b = model.random(seed=2)
    model.similarity(a, b).backward()
    assert a.grad is not None and bool(torch.isfinite(a.grad).all())


@pytest.mark.parametrize("backend_name", [_installed("numpy"), _installed("torch")])
def test_float64_vectors_beyond_float32_range(backend_name):
    """Double-precision models: the same rule at float64's range (and the canonical order,
    summed in float64, divides such rows too)."""
    model = VSA.create("HRR", dim=128, backend=backend_name, dtype="float64")
    x = model.random(5, seed=1)
    for factor in (1e200, 1e-200):
        big = scaled(model, x, factor)
        assert float(model.similarity(big[1], big[1])) == pytest.approx(1.0, abs=1e-12)
        scores, indices = search(model, big, big, k=2)
        assert host(model, indices)[:, 0].tolist() == list(range(5))
        np.testing.assert_allclose(host(model, scores)[:, 0], 1.0, atol=1e-12)


def test_search_refuses_scores_that_overflow_float64():
    """FHRR's canonical score multiplies two squared norms in float64: complex128 vectors of
    elements near 1e200 cannot be ordered. A clear error (before: the refinement looped
    forever on NaN scores)."""
    model = VSA.create("FHRR", dim=64, dtype="complex128")
    big = scaled(model, model.random(4, seed=1), 1e200)
    with pytest.raises(ValueError, match=r"overflows.*scale the vectors down"):
        search(model, big, big, k=1)


def test_cleanup_of_huge_vectors(make_model):
    model = make_model("HRR", 256)
    book = model.random(5, seed=1)
    big = scaled(model, book, 1e20)
    np.testing.assert_array_equal(host(model, cleanup(model, big, book)), host(model, book))


# -- kernels.hamming_top_k checks its arguments --------------------------------------------
def _packed(model, rows, n_bytes, seed, dtype=np.uint8):
    rng = np.random.default_rng(seed)
    return model.backend.from_numpy(rng.integers(0, 256, (rows, n_bytes)).astype(dtype))


@pytest.mark.parametrize("backend_name", ALL_BACKENDS)
def test_hamming_top_k_refuses_bad_arguments(backend_name):
    """k=-1 returned n-1 neighbours, k=2.9 and k='3' were taken as 2 and 3, and 16-byte
    queries against 8-byte items returned distances, on every backend."""
    backend = VSA.create("BSC", dim=64, backend=backend_name).backend
    model = VSA.create("BSC", dim=64, backend=backend_name)
    q, items = _packed(model, 2, 8, 1), _packed(model, 5, 8, 2)
    cases = [
        ((q, items, 64, -1), ValueError, "k must be a positive int, got -1"),
        ((q, items, 64, 0), ValueError, "k must be a positive int, got 0"),
        ((q, items, 64, 2.9), TypeError, "k must be a positive int, got float"),
        ((q, items, 64, "3"), TypeError, "got str '3'"),
        ((q, items, 64, True), TypeError, "got bool"),
        ((q, items, 64, None), TypeError, "got NoneType"),
        ((_packed(model, 2, 16, 3), items, 64, 2), ValueError, "same width, got 16 bytes per query and 8"),
        ((q, items, 128, 2), ValueError, "128 bits are packed in 16 to 16 bytes"),
        ((q, items, 0, 2), ValueError, "n_bits must be a positive int"),
        ((q, items, 64.0, 2), TypeError, "n_bits must be a positive int"),
        ((q, _packed(model, 5, 8, 2, np.int8), 64, 2), TypeError, "items must be bit-packed uint8"),
        ((q[0], items, 64, 2), ValueError, r"queries must be 2-d .* got shape \(8,\)"),
        ((np.zeros((2, 8), np.uint8).tolist(), items, 64, 2), TypeError, "queries must be a"),
        ((q, items[:0], 64, 2), ValueError, "empty set of items"),
    ]
    for args, error, words in cases:
        with pytest.raises(error, match=words):
            kernels.hamming_top_k(backend, *args)


@pytest.mark.parametrize("backend_name", ALL_BACKENDS)
def test_hamming_top_k_valid_arguments(backend_name):
    """k above the number of items gives every item (as ItemStore's k does); rows of fewer
    bytes than whole words, and NumPy integers as k, are fine; the same answer everywhere."""
    model = VSA.create("BSC", dim=64, backend=backend_name)
    backend = model.backend
    q, items = _packed(model, 3, 8, 4), _packed(model, 7, 8, 5)
    dist = np.bitwise_count(to_numpy(model, q)[:, None, :] ^ to_numpy(model, items)[None]).sum(-1)
    want = np.argsort(dist, axis=1, kind="stable")
    d, i = kernels.hamming_top_k(backend, q, items, 64, np.int64(9))
    assert to_numpy(model, i).tolist() == want.tolist()
    np.testing.assert_array_equal(to_numpy(model, d), np.take_along_axis(dist, want, 1))
    d, i = kernels.hamming_top_k(backend, q[:, :4], items[:, :4], 30, 2)  # 30 bits in 4 bytes
    assert to_numpy(model, i).shape == (3, 2)


def test_dask_top_k_and_merge():
    """Dask's top_k and merge_top_k gave k to apply_gufunc as a second array (an error)."""
    pytest.importorskip("dask")
    backend = VSA.create("MAP", dim=8, backend="dask").backend
    scores = backend.from_numpy(np.array([[1.0, 3.0, 2.0, 3.0], [0.0, 0.0, 1.0, -1.0]]))
    s, i = kernels.top_k(backend, scores, 2)
    assert backend.to_numpy(i).tolist() == [[1, 3], [2, 0]]
    low = (backend.from_numpy(np.array([[3.0, 1.0]])), backend.from_numpy(np.array([[0, 1]])))
    high = (backend.from_numpy(np.array([[3.0, 2.0]])), backend.from_numpy(np.array([[2, 3]])))
    s, i = kernels.merge_top_k(backend, low, high, 3)
    assert backend.to_numpy(s).tolist() == [[3.0, 3.0, 2.0]] and backend.to_numpy(i).tolist() == [[0, 2, 3]]
