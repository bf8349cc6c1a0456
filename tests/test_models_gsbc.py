"""GSBC, generalized sparse block codes (Hersche et al. 2024).

The model against a direct NumPy computation of its definition: one active element of
modulus 1 per block, bind as the block-wise circular convolution (positions add, values
multiply; the FFT path and the rotation path agree), unbind as the exact inverse for keys,
bundles with blocks of unit l1 norm, normalize to the largest element per block, the
inverse and identity; seeded vectors equal across backends; the options and their errors.
The conformance suite runs it through tests/test_conformance.py, its capacity is in
tests/test_capacity.py, and its factorizer in tests/test_block_factorizer.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from conftest import backend_param, device_for, to_numpy
from holovec import VSA

DIM, S, L = 256, 16, 16
VALUES = ["phasor", "bipolar", "binary"]


def create(backend: str = "numpy", values: str = "phasor", **kwargs):
    return VSA.create("GSBC", DIM, backend=backend, device=device_for(backend), values=values, **kwargs)


def blocks(x: np.ndarray) -> np.ndarray:
    return x.reshape(*x.shape[:-1], S, L)


def convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The block-wise circular convolution by its definition: c[k] = sum_i a[i] b[k - i]."""
    A, B = blocks(a), blocks(b)
    out = np.zeros(np.broadcast_shapes(A.shape, B.shape), dtype=np.result_type(A, B))
    for i in range(L):
        out += A[..., i : i + 1] * np.roll(B, i, axis=-1)
    return out.reshape(*out.shape[:-2], DIM)


@pytest.mark.parametrize("values", VALUES)
def test_random_vectors_have_one_unit_element_per_block(values):
    model = create(values=values)
    x = blocks(to_numpy(model, model.random(50, seed=1)))
    assert (np.count_nonzero(x, axis=-1) == 1).all()
    np.testing.assert_allclose(np.abs(x).sum(axis=-1), 1.0, atol=1e-6)
    active = x[np.abs(x) > 0]
    if values == "binary":
        assert (active == 1).all()
    elif values == "bipolar":
        assert set(np.unique(active)) == {-1.0, 1.0}
    else:
        assert np.iscomplexobj(active) and np.std(np.angle(active)) > 1.5  # phases spread out
    positions = np.argmax(np.abs(x), axis=-1)
    counts = np.bincount(positions.ravel(), minlength=L)
    assert counts.min() > 0.5 * counts.mean()  # positions are uniform


@pytest.mark.parametrize("backend", [backend_param("torch"), backend_param("jax")])
@pytest.mark.parametrize("values", VALUES)
def test_vectors_and_operations_equal_numpy(backend, values):
    ref, other = create(values=values, seed=3), create(backend, values=values, seed=3)
    a, b = ref.random(4, seed=5), ref.random(4, seed=6)
    a2, b2 = other.random(4, seed=5), other.random(4, seed=6)
    atol = 1e-6 if values == "phasor" else 0
    np.testing.assert_allclose(to_numpy(other, a2), a, atol=atol)
    pairs = [(ref.bind(a, b), other.bind(a2, b2)), (ref.bundle([a, b]), other.bundle([a2, b2]))]
    pairs.append((ref.unbind(ref.bundle([a, b]), b), other.unbind(other.bundle([a2, b2]), b2)))
    for mine, theirs in pairs:
        np.testing.assert_allclose(to_numpy(other, theirs), mine, atol=1e-5)


@pytest.mark.parametrize("values", VALUES)
def test_bind_is_the_block_wise_circular_convolution(values):
    model = create(values=values)
    a, b = model.random(3, seed=1), model.random(3, seed=2)
    c = model.bind(a, b)
    np.testing.assert_allclose(c, convolve(a, b), atol=1e-6)
    # positions add modulo L and values multiply: a random vector again
    pa, pb, pc = (model.to_indices(x) for x in (a, b, c))
    np.testing.assert_array_equal(pc, (pa + pb) % L)
    assert (np.count_nonzero(blocks(c), axis=-1) == 1).all()
    # bundles (many active elements per block) take the FFT path: the same definition
    s, t = model.bundle(model.random(3, seed=3)), model.bundle(model.random(4, seed=4))
    np.testing.assert_allclose(model.bind(s, t), convolve(s, t), atol=1e-5)
    np.testing.assert_allclose(model.bind(s, b), convolve(s, b), atol=1e-6)


@pytest.mark.parametrize("values", VALUES)
def test_unbind_inverts_a_key_exactly_for_any_vector(values):
    model = create(values=values)
    key = model.random(seed=1)
    x = model.bundle(model.random(5, seed=2))  # not a random vector: blocks of many elements
    np.testing.assert_allclose(model.unbind(model.bind(x, key), key), x, atol=1e-6)
    # unbind is the binding with the inverse, and bind(x, inverse(x)) is the identity
    np.testing.assert_allclose(model.unbind(x, key), model.bind(x, model.inverse(key)), atol=1e-6)
    np.testing.assert_allclose(model.bind(key, model.inverse(key)), model.identity(), atol=1e-6)
    np.testing.assert_array_equal(model.bind(key, model.identity()), key)


def test_bundle_has_blocks_of_unit_l1_norm_and_zero_blocks_take_the_tie_break():
    model = create(values="bipolar", seed=4)
    a = model.random(seed=1)
    s = model.bundle([a, -a, model.random(seed=2)])  # a and -a cancel: one item is left
    np.testing.assert_allclose(np.abs(blocks(s)).sum(axis=-1), 1.0, atol=1e-6)
    cancelled = model.bundle([a, -a])  # every block sums to zero
    np.testing.assert_array_equal(cancelled, model.bundle([model.random(seed=9), -model.random(seed=9)]))
    assert (np.count_nonzero(blocks(cancelled), axis=-1) == 1).all()  # the tie-break vector's blocks


def test_normalize_keeps_the_largest_element_of_each_block_at_modulus_one():
    model = create()
    x = model.bundle([model.random(seed=1), model.random(seed=1), model.random(seed=2)])
    n = model.normalize(x)
    np.testing.assert_array_equal(model.to_indices(n), np.argmax(np.abs(blocks(x)), axis=-1))
    np.testing.assert_allclose(np.abs(blocks(n)).sum(axis=-1), 1.0, atol=1e-6)
    assert float(model.similarity(n, model.random(seed=1))) > 0.99  # the item given twice wins


def test_permute_rotates_whole_blocks():
    model = create()
    a = model.random(seed=1)
    np.testing.assert_array_equal(blocks(model.permute(a, 3)), np.roll(blocks(a), 3, axis=-2))


def test_options_and_errors():
    assert (VSA.create("GSBC", 1000).segments, VSA.create("GSBC", 1000).segment_length) == (40, 25)
    model = VSA.create("GSBC", 1024, segments=8)
    assert (model.segments, model.segment_length) == (8, 128)
    assert VSA.create("GSBC", 64, values="binary").dtype == np.float32
    assert VSA.create("GSBC", 64, values="bipolar", dtype="float64").dtype == np.float64
    with pytest.raises(ValueError, match="values must be one of"):
        VSA.create("GSBC", 64, values="ternary")
    with pytest.raises(ValueError, match="GSBC dim 97 has no divisor"):
        VSA.create("GSBC", 97)
    with pytest.raises(ValueError, match="not divisible by segments=7"):
        VSA.create("GSBC", 64, segments=7)
    with pytest.raises(TypeError, match="GSBC vectors can be float32, float64"):
        VSA.create("GSBC", 64, values="binary", dtype="complex64")
