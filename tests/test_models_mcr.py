"""The cyclic-group models MCR (Snaider and Franklin 2014) and CGR (Yu et al. 2022).

Each model against a direct NumPy computation of its definition (modular bind and unbind,
the mean-cosine similarity and its matrix, the nearest-level phasor bundle of MCR and the
elementwise mode of CGR with their tie-break), the option ``r`` and its dtypes, the values
the models accept, seeded vectors and every operation equal across backends bit for bit,
and the conformance suite at other orders of the group. The bundle capacity is in
tests/test_capacity.py.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from conftest import backend_param, device_for, to_numpy
from holovec import VSA
from holovec.models.mcr import tie_step
from holovec.random import Purpose
from holovec.testing import model_checks

MODELS = ["MCR", "CGR"]
DIM = 1000


def create(name: str, dim: int = DIM, backend: str = "numpy", **kwargs):
    return VSA.create(name, dim, backend=backend, device=device_for(backend), **kwargs)


def phasor_scores(items: np.ndarray, r: int) -> np.ndarray:
    """``sum_j cos(2 pi (x_j - l) / r)`` for every level ``l``: shape ``(r, ...)``, float64."""
    levels = np.arange(r).reshape((r,) + (1,) * (items.ndim - 1))
    return np.cos(2 * np.pi * (items[None].astype(np.int64) - levels[:, None]) / r).sum(axis=1)


def circular(a: np.ndarray, b: np.ndarray, r: int) -> np.ndarray:
    d = np.abs(a.astype(np.int64) - b.astype(np.int64))
    return np.minimum(d, r - d)


def tie_break(model) -> np.ndarray:
    """The model's tie-break vector: the first row of the TIEBREAK draw of its seed."""
    return model.draw(1, model.seed_for_ties, Purpose.TIEBREAK)[0]


def tie_rule(scores: np.ndarray, best: np.ndarray, ties: np.ndarray, r: int) -> np.ndarray:
    """Among the levels whose score is ``best``: the one of least ``(step * v + t) mod r``."""
    levels = np.arange(r).reshape((r,) + (1,) * (scores.ndim - 1))
    priority = (tie_step(r) * levels + ties.astype(np.int64)) % r
    key = np.where(scores == best, priority * r + levels, r * r)
    return key.min(axis=0) % r


# -- the definitions ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("r", [2, 5, 16, 256, 300])
def test_algebra_is_modular_arithmetic(name, r):
    model = create(name, r=r, seed=3)
    a, b = model.random(2, seed=1)
    x, y = a.astype(np.int64), b.astype(np.int64)
    assert a.dtype == np.dtype("uint8" if r <= 256 else "int32") and 0 <= a.min() and a.max() < r
    np.testing.assert_array_equal(model.bind(a, b), (x + y) % r)
    np.testing.assert_array_equal(model.unbind(a, b), (x - y) % r)
    np.testing.assert_array_equal(model.inverse(a), (-x) % r)
    np.testing.assert_array_equal(model.unbind(model.bind(a, b), b), a)
    np.testing.assert_array_equal(model.bind(a, model.identity()), a)
    np.testing.assert_array_equal(model.permute(a, 3), np.roll(a, 3))
    assert model.is_self_inverse == (r == 2)
    # every level is drawn about equally often (the high word of word * r)
    counts = np.bincount(model.random(20, seed=5).ravel(), minlength=r)
    assert counts.size == r and np.all(np.abs(counts - counts.mean()) < 5 * np.sqrt(counts.mean()))


@pytest.mark.parametrize("name", MODELS)
def test_similarity_is_the_mean_cosine(name):
    r = 16
    model = create(name, r=r)
    A, B = model.random(5, seed=1), model.random(7, seed=2)
    cos = np.cos(2 * np.pi * (A[:, None].astype(np.int64) - B[None].astype(np.int64)) / r).mean(axis=-1)
    np.testing.assert_allclose(model.similarity(A[:, None], B[None]), cos, rtol=0, atol=1e-6)
    np.testing.assert_allclose(model.similarity_matrix(A, B), cos, rtol=0, atol=1e-6)
    np.testing.assert_allclose(model.similarity_matrix(A, B, chunk_size=3), cos, rtol=0, atol=1e-6)
    a = A[0]
    assert float(model.similarity(a, a)) == 1.0
    # half a turn away: cos(pi) = -1 for every element
    assert float(model.similarity(a, model.bind(a, np.full(DIM, r // 2, dtype=np.uint8)))) == -1.0
    assert abs(float(model.similarity(A[0], B[0]))) < 4 / np.sqrt(2 * DIM)


# -- the bundles --------------------------------------------------------------------------------
@pytest.mark.parametrize("r", [3, 16, 101])
@pytest.mark.parametrize("k", [3, 4, 9])
def test_mcr_bundle_is_the_nearest_level_of_the_phasor_sum(r, k):
    model = create("MCR", r=r, seed=7)
    items = model.random(k, seed=k)
    got = model.bundle(items)
    scores = phasor_scores(items, r)
    best = scores.max(axis=0)
    runner_up = np.sort(scores, axis=0)[-2]
    clear = best - runner_up > 1e-4  # the fixed-point scores decide near-ties by 2**-20 steps
    assert clear.mean() > 0.5  # (small groups have many exact ties)
    np.testing.assert_array_equal(got[clear], scores.argmax(axis=0)[clear])
    assert float(model.similarity(items, got).min()) > 0


@pytest.mark.parametrize("r", [4, 16, 17])
def test_mcr_ties_follow_the_tie_break_vector(r):
    model = create("MCR", r=r, seed=5)
    t = tie_break(model)
    a, b = model.random(2, seed=1)
    got = model.bundle([a, b])
    np.testing.assert_array_equal(model.bundle([b, a]), got)
    scores = phasor_scores(np.stack([a, b]), r)
    tied = np.isclose(scores, scores.max(axis=0), rtol=0, atol=1e-9)
    # two items an odd number of levels apart tie between the two levels by the midpoint
    odd = circular(a, b, r) % 2 == 1
    assert odd.mean() > 0.3 and np.all(tied.sum(axis=0)[odd & (2 * circular(a, b, r) != r)] == 2)
    cancelled = tied.all(axis=0)  # opposite items (even r): the tie-break level itself
    np.testing.assert_array_equal(got, np.where(cancelled, t, tie_rule(tied, True, t, r)))
    assert not np.array_equal(create("MCR", r=r, seed=6).bundle([a, b]), got), "ties follow the seed"
    if r % 2 == 0:  # opposite items cancel exactly: every element takes the tie-break level
        opposite = ((a.astype(np.int64) + r // 2) % r).astype(a.dtype)
        np.testing.assert_array_equal(model.bundle([a, opposite]), t)


@pytest.mark.parametrize("r", [5, 16, 100])
@pytest.mark.parametrize("k", [2, 4, 7])
def test_cgr_bundle_is_the_elementwise_mode(r, k):
    """r = 100 > 64 compares the items pairwise; the smaller groups count each level."""
    model = create("CGR", r=r, seed=9)
    items = model.random(k, seed=k)
    counts = (items[None] == np.arange(r)[:, None, None]).sum(axis=1)
    got = model.bundle(items)
    np.testing.assert_array_equal(got, tie_rule(counts, counts.max(axis=0), tie_break(model), r))
    unique = (counts.max(axis=0) > 1) & ((counts == counts.max(axis=0)).sum(axis=0) == 1)
    np.testing.assert_array_equal(got[unique], counts.argmax(axis=0)[unique])
    assert set(np.unique(got)) <= set(np.unique(items))


def test_bundles_of_many_items_and_batches():
    for name in MODELS:
        model = create(name, 200, r=16)
        items = model.random(3000, seed=1)
        s = model.bundle(items)  # fewer fixed-point bits for MCR: 3,000 items
        assert s.shape == (200,) and float(model.similarity(items, s).mean()) > 0
        batch = model.random(12, seed=2).reshape(4, 3, 200)
        out = model.bundle(batch)
        for j in range(3):
            np.testing.assert_array_equal(out[j], model.bundle(batch[:, j]))


# -- options and values --------------------------------------------------------------------------
@pytest.mark.parametrize("name", MODELS)
def test_the_option_r(name):
    for bad in (1, 0, 40000):
        with pytest.raises(ValueError, match=r"r must be an int in \[2, 32768\]"):
            create(name, r=bad)
    for bad in (2.5, "16", True, None):
        with pytest.raises(TypeError, match="r must be an int"):
            create(name, r=bad)
    assert create(name, r=256).dtype == np.uint8 and create(name, r=257).dtype == np.int32
    assert create(name, r=32768).random(seed=1).max() < 32768
    with pytest.raises(TypeError, match="int32"):
        create(name, r=16, dtype="int32")
    model = create(name, r=16, seed=1)
    assert model == create(name, r=16, seed=1) and model != create(name, r=17, seed=1)
    assert "r=16" in repr(model) and model.get_config()["options"] == (("r", 16),)


@pytest.mark.parametrize("name", MODELS)
def test_values_are_levels(name):
    model = create(name, 4, r=16)
    assert model.allowed_values == "integers 0 .. 15"
    np.testing.assert_array_equal(model.asarray([0, 3, 15, 7]), [0, 3, 15, 7])
    np.testing.assert_array_equal(model.asarray(np.array([1.0, 2.0, 0.0, 15.0])), [1, 2, 0, 15])
    for bad in ([0, 16, 1, 2], [0, -1, 1, 2], [0.5, 1, 2, 3], [np.nan, 1, 2, 3]):
        with pytest.raises(ValueError, match=r"15|integers"):
            model.asarray(bad)
    with pytest.raises(ValueError, match=r"integers 0 \.\. 15"):
        model.check_values(np.array([0, 16, 1, 2], dtype=np.uint8))
    assert create(name, 4, r=256).valid_elements(np.zeros(4, dtype=np.uint8)) is None
    assert model.normalize(np.array([16, 17, 255, 3], dtype=np.uint8)).tolist() == [0, 1, 15, 3]
    with pytest.raises(ValueError, match="empty"):
        model.bundle([])


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("r", [2, 3, 300])
@pytest.mark.parametrize("check", model_checks(), ids=lambda c: c.__name__)
def test_conformance_at_other_orders(name, r, check):
    """The suite runs the defaults (r = 16) over every backend; here other orders."""
    check(create(name, 256, r=r, seed=1))


# -- the same on every backend -------------------------------------------------------------------
def _every_op(model, a, b) -> dict:
    three = model.random(3, seed=4)
    return {
        "random": a,
        "bind": model.bind(a, b),
        "unbind": model.unbind(a, b),
        "inverse": model.inverse(a),
        "bundle2": model.bundle([a[0], b[0]]),
        "bundle3": model.bundle(three),
        "bundle_batch": model.bundle(model.xp.reshape(a, (2, 4, model.dim))),
        "similarity": model.similarity(a, b),
        "matrix": model.similarity_matrix(a[:3], b),
    }


@pytest.mark.parametrize("other", [backend_param("torch"), backend_param("jax")])
@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("r", [16, 300])
def test_every_op_is_the_same_on_every_backend(name, r, other):
    ref = create(name, 256, r=r, seed=3)
    model = create(name, 256, backend=other, r=r, seed=3)
    expected = _every_op(ref, ref.random(8, seed=1), ref.random(8, seed=2))
    a, b = model.random(8, seed=1), model.random(8, seed=2)
    got = _every_op(model, a, b)
    for key, value in expected.items():
        value = np.asarray(value)
        mine = to_numpy(model, got[key])
        if value.dtype.kind in "ui":
            np.testing.assert_array_equal(mine, value, err_msg=key)
        else:
            np.testing.assert_allclose(mine, value, rtol=0, atol=1e-6, err_msg=key)


@pytest.mark.skipif(importlib.util.find_spec("dask") is None, reason="dask not installed")
@pytest.mark.parametrize("name", MODELS)
def test_dask_equals_numpy(name):
    ref, model = create(name, 96, r=16, seed=3), VSA.create(name, 96, backend="dask", r=16, seed=3)
    a, b = model.random(12, seed=1).rechunk({0: 5}), model.random(12, seed=2)
    ra, rb = ref.random(12, seed=1), ref.random(12, seed=2)
    np.testing.assert_array_equal(model.to_numpy(a), ra)
    for op in ("bind", "unbind"):
        np.testing.assert_array_equal(model.to_numpy(getattr(model, op)(a, b)), getattr(ref, op)(ra, rb))
    np.testing.assert_array_equal(model.to_numpy(model.bundle(a)), ref.bundle(ra))
    matrix = model.to_numpy(model.similarity_matrix(a[:3], b))
    np.testing.assert_allclose(matrix, ref.similarity_matrix(ra[:3], rb), rtol=0, atol=1e-6)
