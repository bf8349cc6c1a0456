"""Capacity as published (the design page, docs/design.rst, invariant 6).

Schlegel, Neubert and Protzel (2022), "A comparison of vector symbolic architectures"
(Artificial Intelligence Review 55), bundle capacity experiment: k = 15 items are bundled
from a codebook of 1,000 and the k most similar codebook items are taken as the answer.
The paper reports 99 % accuracy at about 800 dimensions for MAP-B and BSC and about 350
for FHRR. Here the mean accuracy must be at least 97 % at those dimensions, and clearly
lower (below 90 %) at a third of them, so the test sees both that the models are as good
as published and that it can tell a weaker one.

The capacity planner (holovec.capacity, tested against measurement for every model in
tests/test_capacity_planner.py) gives the same figures: it is checked here too.

Everything is vectorised across trials: one (k, trials, dim) array of items, one bundle
call, one similarity matrix. Codebooks and item choices are seeded: the test is
deterministic.
"""

from __future__ import annotations

import numpy as np
import pytest

from conftest import to_numpy
from holovec import capacity

K = 15
N_ITEMS = 1000
PAPER_DIM = {"MAP": 800, "BSC": 800, "FHRR": 350}


def bundle_accuracy(model, trials: int, seed: int = 0) -> float:
    """Mean fraction of the K bundled items found among the K most similar codebook items."""
    codebook = model.random(N_ITEMS, seed=1000 + seed)
    rng = np.random.default_rng(seed)
    chosen = np.argsort(rng.random((trials, N_ITEMS)), axis=1)[:, :K]  # K distinct items per trial
    index = model.backend.asarray(np.ascontiguousarray(chosen.T).astype(np.int32))
    items = codebook[index]  # (K, trials, dim): the items on axis 0, the trials a batch axis
    assert tuple(items.shape) == (K, trials, model.dim)
    bundles = model.bundle(items)
    assert tuple(bundles.shape) == (trials, model.dim)
    scores = to_numpy(model, model.similarity_matrix(bundles, codebook))
    assert scores.shape == (trials, N_ITEMS)
    top = np.argsort(-scores, axis=1, kind="stable")[:, :K]  # ties: lowest index, on any CPU
    truth = np.zeros((trials, N_ITEMS), dtype=bool)
    rows = np.arange(trials)[:, None]
    truth[rows, chosen] = True
    return float(truth[rows, top].sum(axis=1).mean() / K)


def trials_for(backend: str) -> int:
    return 400 if backend == "numpy" else 120


@pytest.mark.slow
def test_bundle_capacity_at_published_dimension(make_model, model_name, backend):
    dim = PAPER_DIM[model_name]
    model = make_model(model_name, dim)
    accuracy = bundle_accuracy(model, trials_for(backend))
    assert accuracy >= 0.97, f"{model_name} at dim {dim}: accuracy {accuracy:.3f}, published 0.99"
    # the planner agrees: an item beats every non-member (which puts it among the K best)
    # with probability at least 0.99 here, and the measured fraction is not below that
    planned = capacity.accuracy(model, dim, N_ITEMS, K)
    assert planned >= 0.99 and accuracy >= planned - 0.01


@pytest.mark.slow
def test_bundle_capacity_drops_at_a_third(make_model, model_name, backend):
    dim = PAPER_DIM[model_name] // 3
    model = make_model(model_name, dim)
    accuracy = bundle_accuracy(model, trials_for(backend))
    assert accuracy < 0.90, f"{model_name} at dim {dim}: accuracy {accuracy:.3f}, expected clearly below 0.99"
    assert accuracy > 0.3  # still far better than chance (K / N_ITEMS = 1.5 %)


@pytest.mark.parametrize("depth", [1, 2, 10, 40])
def test_repeated_binding_is_exactly_invertible(make_model, model_name, depth):
    """Bind r random vectors onto a, unbind them in reverse: exact models return a."""
    model = make_model(model_name, 1000)
    assert model.is_exact_inverse
    a = model.random(seed=1)
    keys = model.random(depth, seed=2)
    c = a
    for i in range(depth):
        c = model.bind(c, keys[i])
    assert abs(float(model.similarity(c, a))) < 0.15  # the bound vector hides a
    for i in reversed(range(depth)):
        c = model.unbind(c, keys[i])
    s = float(model.similarity(c, a))
    if model.name == "FHRR":
        assert abs(s - 1.0) < 1e-4
        np.testing.assert_allclose(to_numpy(model, c), to_numpy(model, a), rtol=0, atol=1e-4)
    else:
        assert s == 1.0
        np.testing.assert_array_equal(to_numpy(model, c), to_numpy(model, a))


# -- models the paper does not cover, at the dimension we measured --------------------------------
#: MCR and CGR (r = 16 levels, the default), in the same experiment (15 of 1,000, NumPy, 400
#: trials): the smallest dimension of a grid of 50 where we measured at least 99 %. MCR, FHRR's
#: phases on 16 levels: 98.2 % at 275, 99.3 % at 300 (FHRR's published 350 holds too); CGR,
#: whose mode keeps one item's level per element where the items disagree: 95.8 % at 600,
#: 99.3 % at 850, 99.6 % at 900. At a third of those dimensions we measured 73 % (MCR, 100)
#: and 78 % (CGR, 300). The vectors and operations are equal on every backend
#: (tests/test_models_mcr.py), so NumPy alone measures them.
#: GSBC (blocks of about sqrt(dim) elements), in the same experiment: phasor values 96.7 % at
#: 196, 99.3 % at 256, 73 % at 81; binary values (sparse block codes) 98.6 % at 484, 99.5 % at
#: 576, 76 % at 196. The planner does not cover sparse codes, so only the measurement is held.
MEASURED_DIM = {
    "MCR": (300, {"r": 16}),
    "CGR": (850, {"r": 16}),
    "GSBC": (256, {"values": "phasor"}),
    "GSBC-binary": (576, {"values": "binary"}),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(MEASURED_DIM))
def test_bundle_capacity_at_measured_dimension(case):
    from holovec import VSA

    name, (dim, options) = case.split("-")[0], MEASURED_DIM[case]
    model = VSA.create(name, dim, **options)
    accuracy = bundle_accuracy(model, trials_for("numpy"))
    assert accuracy >= 0.97, f"{case} at dim {dim}: accuracy {accuracy:.3f}, measured 0.99"
    if name in capacity.supported_models():
        # the planner agrees (it gives 98.9 % for MCR at 300 and 99.3 % for CGR at 850)
        assert accuracy >= capacity.accuracy(model, dim, N_ITEMS, K) - 0.01
    third = bundle_accuracy(VSA.create(name, dim // 3, **options), trials_for("numpy"))
    assert 0.3 < third < 0.90, f"{case} at dim {dim // 3}: accuracy {third:.3f}, expected clearly below 0.99"
