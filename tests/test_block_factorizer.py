"""The block-code factorizer of Hersche et al. (2024) on GSBC products.

Its result on a problem of 32**3 = 32,768 combinations: every product decoded, in a small
fraction of the iterations a search through the combinations takes, where the resonator
network of Frady et al. (holovec.retrieval.Resonator) decodes about a quarter of them
(measured, 50 products, 1,000 iterations: 0.28 for binary codes, 0.24 for phasor codes);
its random sampling reproducible on every backend; its errors.
"""

from __future__ import annotations

import numpy as np
import pytest

from conftest import backend_param, device_for
from holovec import VSA
from holovec.retrieval import BlockCodeFactorizer, Resonator

DIM, M, F = 1024, 32, 3


def problem(values: str = "binary", backend: str = "numpy", n: int = 30, m: int = M):
    model = VSA.create("GSBC", DIM, backend=backend, device=device_for(backend), values=values, seed=0)
    books = [model.random(m, seed=10 + f) for f in range(F)]
    truth = np.random.default_rng(0).integers(0, m, size=(n, F))
    s = books[0][model.backend.asarray(truth[:, 0])]
    for f in range(1, F):
        s = model.bind(s, books[f][model.backend.asarray(truth[:, f])])
    return model, books, truth, s


@pytest.mark.slow
@pytest.mark.parametrize("values", ["binary", "phasor"])
def test_factors_every_product_of_a_32_cubed_problem(values):
    model, books, truth, s = problem(values)
    result = BlockCodeFactorizer(model, books, seed=1).factor(s)
    np.testing.assert_array_equal(result.indices, truth)
    assert result.converged.all() and (result.reconstruction > 0.99).all()
    # measured: 24 iterations on average (median 16) for 32,768 combinations
    assert result.iterations.mean() < 60, result.iterations.mean()


@pytest.mark.slow
def test_the_resonator_network_fails_where_the_factorizer_succeeds():
    model, books, truth, s = problem("binary", n=20)
    plain = Resonator(model, books, max_iter=300).factor(s)
    assert np.mean(np.all(plain.indices == truth, axis=1)) < 0.6


@pytest.mark.parametrize("backend", [backend_param("numpy"), backend_param("torch"), backend_param("jax")])
def test_same_answer_on_every_backend(backend):
    model, books, truth, s = problem("bipolar", backend, n=6, m=12)
    result = BlockCodeFactorizer(model, books, seed=3).factor(s)
    _, books_np, _, s_np = problem("bipolar", "numpy", n=6, m=12)
    reference = BlockCodeFactorizer(VSA.create("GSBC", DIM, values="bipolar", seed=0), books_np, seed=3)
    expected = reference.factor(s_np)
    np.testing.assert_array_equal(result.indices, truth)
    np.testing.assert_array_equal(result.iterations, expected.iterations)  # the same random samples


def test_one_product_and_the_seed():
    model, books, truth, s = problem(n=2, m=8)
    one = BlockCodeFactorizer(model, books, seed=5).factor(s[0])
    assert one.indices.tolist() == [truth[0].tolist()]
    again = BlockCodeFactorizer(model, books, seed=5).factor(s[0])
    assert one.iterations.tolist() == again.iterations.tolist()


def test_errors():
    model, books, _, s = problem(n=1, m=8)
    with pytest.raises(TypeError, match="block-code"):
        BlockCodeFactorizer(VSA.create("FHRR", 64), [VSA.create("FHRR", 64).random(3)] * 2)
    with pytest.raises(ValueError, match="at least 2 codebooks"):
        BlockCodeFactorizer(model, books[:1])
    with pytest.raises(ValueError, match="samples=9 is more than"):
        BlockCodeFactorizer(model, books, samples=9)
    with pytest.raises(ValueError, match="threshold"):
        BlockCodeFactorizer(model, books, threshold=1.5)
    with pytest.raises(TypeError, match="list or tuple"):
        BlockCodeFactorizer(model, books[0])
    with pytest.raises(ValueError, match="products must have shape"):
        BlockCodeFactorizer(model, books).factor(s[None])
