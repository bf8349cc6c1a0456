"""Resonator networks (Frady, Kent, Olshausen and Sommer 2020): capacity, models, errors."""

from __future__ import annotations

import numpy as np
import pytest

from holovec import VSA
from holovec.retrieval.resonator import Resonator, ResonatorResult


def make_problem(model, n_factors, n_items, n_products, seed=0):
    """Codebooks, products of random rows, and the true indices (n_products, n_factors)."""
    books = [model.random(n_items, seed=100 + seed * 10 + f) for f in range(n_factors)]
    truth = np.random.default_rng(seed).integers(0, n_items, size=(n_products, n_factors))
    product = None
    for f in range(n_factors):
        rows = model.xp.take(books[f], model.backend.asarray(truth[:, f]), axis=0)
        product = rows if product is None else model.bind(product, rows)
    return books, product, truth


def accuracy(result, truth):
    return float((result.indices == truth).all(axis=1).mean())


# -- capacity (NumPy: the published numbers) ----------------------------------------------
def test_three_factors_50_items_n1500():
    model = VSA.create("MAP", dim=1500, backend="numpy")
    books, s, truth = make_problem(model, 3, 50, 100)
    result = Resonator(model, books, max_iter=200).factor(s)
    assert accuracy(result, truth) >= 0.98
    assert result.converged.mean() >= 0.98


def test_three_factors_past_capacity_is_clearly_worse():
    # the paper's capacity at N=1500 is about 79 items per factor (99% accuracy)
    model = VSA.create("MAP", dim=1500, backend="numpy")
    books, s, truth = make_problem(model, 3, 200, 100, seed=1)
    result = Resonator(model, books, max_iter=100).factor(s)
    assert accuracy(result, truth) <= 0.5
    assert result.converged.mean() <= 0.5
    assert (result.iterations[~result.converged] == 100).all()


def test_two_factors_200_items_n1000():
    model = VSA.create("MAP", dim=1000, backend="numpy")
    books, s, truth = make_problem(model, 2, 200, 100, seed=2)
    result = Resonator(model, books).factor(s)
    assert accuracy(result, truth) >= 0.98


def test_ols_weights_factor_too():
    model = VSA.create("MAP", dim=1500, backend="numpy")
    books, s, truth = make_problem(model, 3, 50, 50, seed=3)
    result = Resonator(model, books, ols=True).factor(s)
    assert accuracy(result, truth) >= 0.98


# -- other models and backends --------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "dim", "n_factors", "n_items"),
    [("MAP", 1000, 3, 15), ("FHRR", 500, 3, 15), ("BSC", 1000, 3, 15), ("HRR", 1000, 2, 10)],
)
def test_small_cases_every_backend(make_model, name, dim, n_factors, n_items):
    model = make_model(name, dim)
    books, s, truth = make_problem(model, n_factors, n_items, 10, seed=4)
    result = Resonator(model, books, max_iter=100).factor(s)
    assert isinstance(result, ResonatorResult)
    np.testing.assert_array_equal(result.indices, truth)
    assert result.converged.all()
    assert (result.iterations >= 1).all() and (result.iterations < 100).all()
    np.testing.assert_allclose(result.reconstruction, 1.0, atol=1e-3)
    assert result.similarities.shape == (10, n_factors)
    assert tuple(result.estimates.shape) == (n_factors, 10, model.vector_length)


def test_one_product_and_result_shapes():
    model = VSA.create("MAP", dim=1000, backend="numpy")
    books, s, truth = make_problem(model, 3, 10, 1, seed=5)
    result = Resonator(model, books).factor(s[0])
    assert result.indices.shape == (1, 3)
    np.testing.assert_array_equal(result.indices, truth)
    assert result.iterations.shape == result.converged.shape == (1,)


def test_single_item_codebooks_converge_at_once():
    model = VSA.create("FHRR", dim=256, backend="numpy")
    books, s, _ = make_problem(model, 3, 1, 4, seed=6)
    result = Resonator(model, books).factor(s)
    np.testing.assert_array_equal(result.iterations, 1)
    assert result.converged.all()


def test_iteration_limit_is_respected():
    model = VSA.create("MAP", dim=500, backend="numpy")
    books, s, _ = make_problem(model, 3, 100, 20, seed=7)
    result = Resonator(model, books, max_iter=2).factor(s)
    assert (result.iterations <= 2).all()
    assert (result.iterations[~result.converged] == 2).all()
    assert not result.converged.all()


def test_noisy_product_still_factors():
    model = VSA.create("MAP", dim=1500, backend="numpy")
    books, s, truth = make_problem(model, 3, 20, 20, seed=8)
    flip = np.random.default_rng(8).random(s.shape) < 0.1  # 10% of the elements flipped
    noisy = np.where(flip, -s, s).astype(s.dtype)
    result = Resonator(model, books).factor(noisy)
    assert accuracy(result, truth) >= 0.95


# -- bad input ----------------------------------------------------------------------------
def test_bad_input_raises_clear_errors():
    model = VSA.create("MAP", dim=500, backend="numpy")
    good = [model.random(5, seed=1), model.random(5, seed=2)]
    with pytest.raises(ValueError, match="shape"):
        Resonator(model, [good[0], VSA.create("MAP", dim=400).random(5, seed=2)])
    with pytest.raises(TypeError, match="float32"):
        Resonator(model, [good[0], VSA.create("FHRR", dim=500).random(5, seed=2)])
    with pytest.raises(ValueError, match="empty"):
        Resonator(model, [good[0], good[1][:0]])
    with pytest.raises(ValueError, match="2-d"):
        Resonator(model, [good[0], good[1][0]])
    with pytest.raises(ValueError, match="at least 2"):
        Resonator(model, [good[0]])
    with pytest.raises(TypeError, match="list or tuple"):
        Resonator(model, good[0])
    with pytest.raises(ValueError, match="max_iter"):
        Resonator(model, good, max_iter=0)
    with pytest.raises(TypeError, match="ols"):
        Resonator(model, good, ols=1)
    resonator = Resonator(model, good)
    with pytest.raises(ValueError, match="shape"):
        resonator.factor(model.random(3, seed=3)[:, :100])
    with pytest.raises(ValueError, match="n_products"):
        resonator.factor(model.random(4, seed=3).reshape(2, 2, 500))
    sparse = VSA.create("BSDC", dim=500)
    with pytest.raises(TypeError, match="Resonator needs"):
        Resonator(sparse, [sparse.random(3, seed=1), sparse.random(3, seed=2)])
    vtb = VSA.create("VTB", dim=1024)
    with pytest.raises(TypeError, match="commutative"):
        Resonator(vtb, [vtb.random(3, seed=1), vtb.random(3, seed=2)])


@pytest.mark.parametrize("name", ["MAP", "BSC"])
def test_bipolar_results_do_not_depend_on_the_batch(make_model, name):
    """+-1 codebooks are projected in exact integers: ties are exact zeros broken by the
    model's seeded tie-break, so a product factors the same alone as in any batch, and
    on every backend."""
    model = make_model(name, 1000)
    books, s, _ = make_problem(model, 3, 40, 8, seed=6)
    resonator = Resonator(model, books)
    batch = resonator.factor(s)
    for i in range(8):
        alone = resonator.factor(s[i])
        assert alone.iterations[0] == batch.iterations[i]
        np.testing.assert_array_equal(alone.indices[0], batch.indices[i])
    reference = Resonator(VSA.create(name, dim=1000), [model.to_numpy(b) for b in books]).factor(
        model.to_numpy(s)
    )
    np.testing.assert_array_equal(batch.iterations, reference.iterations)
    np.testing.assert_array_equal(batch.indices, reference.indices)


def test_fixed_batch_shape_gives_the_same_results(monkeypatch):
    """On JAX the batch keeps its shape (finished products stay in it); results are those
    of the shrinking batch."""
    model = VSA.create("MAP", dim=1000, backend="numpy")
    books, s, _ = make_problem(model, 3, 30, 12, seed=7)
    shrinking = Resonator(model, books).factor(s)
    monkeypatch.setattr(type(model.backend), "static_shapes", True)
    fixed = Resonator(model, books).factor(s)
    np.testing.assert_array_equal(fixed.indices, shrinking.indices)
    np.testing.assert_array_equal(fixed.iterations, shrinking.iterations)
    np.testing.assert_array_equal(fixed.converged, shrinking.converged)
    np.testing.assert_array_equal(model.to_numpy(fixed.estimates), model.to_numpy(shrinking.estimates))
