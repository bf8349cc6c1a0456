"""The algebraic laws of the core models FHRR, MAP and BSC (the design page,
docs/design.rst, invariant 6), on every backend.

The generic laws (bind inverse, commutativity, self-inverse, identity, similarity
preservation, permutation, bundles and similarities of batches) are the checks of
:mod:`holovec.testing.laws`, which the conformance suite runs for every registered model
and variant; here hypothesis draws their seeds for the core models. What is left here is
particular to these models: their flags, exactness, the statistical scales (dissimilarity,
bundle similarity, with bounds of several standard deviations over derandomized hypothesis
runs or fixed seeds, so that the suite is deterministic) and the documented tie-break.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import to_numpy
from holovec.random import Purpose, random_bits, random_signs
from holovec.testing.laws import LAW_CHECKS

DIM = 1000
SEEDS = st.integers(min_value=0, max_value=2**64 - 1)

# exact laws: hypothesis explores seeds freely
EXACT = settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
# statistical laws: the same seeds every run, so a 4-sigma bound cannot flake
STATISTICAL = settings(
    max_examples=6,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


@pytest.fixture
def model(make_model, model_name):
    return make_model(model_name, DIM)


def np_(model, x) -> np.ndarray:
    return to_numpy(model, x)


def assert_same(model, x, y):
    """Exact equality for the discrete models, equality to float rounding for FHRR."""
    x, y = np_(model, x), np_(model, y)
    assert x.shape == y.shape
    if model.name == "FHRR":
        np.testing.assert_allclose(x, y, rtol=0, atol=1e-5)
    else:
        np.testing.assert_array_equal(x, y)


def sim(model, a, b) -> float:
    return float(model.similarity(a, b))


def bound(dim: int) -> float:
    return 4 / math.sqrt(dim)


# -- bind and unbind -----------------------------------------------------------------------


@pytest.mark.parametrize("check", LAW_CHECKS, ids=lambda c: c.__name__)
@EXACT
@given(seed=SEEDS)
def test_generic_laws_for_any_seed(model, check, seed):
    """Each law of holovec.testing.laws, on seeds that hypothesis draws."""
    check(model, seed=seed)


def test_flags_of_the_core_models(model):
    assert model.is_commutative == (model.name in ("FHRR", "MAP", "BSC"))
    assert model.is_self_inverse == (model.name in ("MAP", "BSC"))
    assert model.is_exact_inverse


@EXACT
@given(seed=SEEDS)
def test_identity_is_exact(model, seed):
    """Bit for bit for the core models (to float rounding for others: see the laws)."""
    a = model.random(seed=seed)
    e = model.identity()
    np.testing.assert_array_equal(np_(model, model.bind(a, e)), np_(model, a))
    np.testing.assert_array_equal(np_(model, model.bind(e, a)), np_(model, a))


@STATISTICAL
@given(seed_a=SEEDS, seed_b=SEEDS)
def test_bind_output_dissimilar_to_inputs(model, seed_a, seed_b):
    a, b = model.random(seed=seed_a), model.random(seed=seed_b ^ 1 if seed_b == seed_a else seed_b)
    c = model.bind(a, b)
    assert abs(sim(model, c, a)) < bound(model.dim)
    assert abs(sim(model, c, b)) < bound(model.dim)


# -- permute -------------------------------------------------------------------------------


# Shifts from a fixed set of interesting values (0, small, near and past +-dim): a cyclic
# shift is defined mod dim, and JAX compiles one program per distinct shift value.
SHIFTS = st.sampled_from(
    [0, 1, -1, 2, 5, -7, 31, DIM // 2, DIM - 1, -(DIM - 1), DIM + 1, -DIM - 3, 3 * DIM + 17]
)


@EXACT
@given(seed=SEEDS, shift=SHIFTS)
def test_permute_full_cycle_and_any_shift(model, seed, shift):
    """A full cycle of the core models' shift is the identity; any shift inverts
    (holovec.testing.laws.check_permute_laws checks a fixed set for every model)."""
    x = model.random(seed=seed)
    back = model.permute(model.permute(x, shift), -shift)
    np.testing.assert_array_equal(np_(model, back), np_(model, x))
    np.testing.assert_array_equal(np_(model, model.permute(x, model.dim)), np_(model, x))
    np.testing.assert_array_equal(
        np_(model, model.permute(model.permute(x, shift), 1)), np_(model, model.permute(x, shift + 1))
    )


@STATISTICAL
@given(seed=SEEDS, shift=SHIFTS)
def test_permute_dissimilar(model, seed, shift):
    x = model.random(seed=seed)
    s = sim(model, model.permute(x, shift), x)
    if shift % model.dim == 0:
        assert abs(s - 1.0) < 1e-5
    else:
        assert abs(s) < bound(model.dim)


# -- similarity ----------------------------------------------------------------------------


def negation(model, a):
    return 1 - a if model.name == "BSC" else -a


@STATISTICAL
@given(seed_a=SEEDS, seed_b=SEEDS)
def test_similarity_scale(model, seed_a, seed_b):
    a, b = model.random(seed=seed_a), model.random(seed=seed_b)
    assert abs(sim(model, a, a) - 1.0) < 1e-5
    assert abs(sim(model, a, negation(model, a)) + 1.0) < 1e-5
    if seed_a != seed_b:
        assert abs(sim(model, a, b)) < bound(model.dim)
    B = model.random(65, seed=seed_b)[1:]  # row 0 would be a when seed_a == seed_b
    s = np_(model, model.similarity(B, a))
    assert s.shape == (64,)
    assert np.all(s >= -1 - 1e-6) and np.all(s <= 1 + 1e-6)
    # random pairs average about 0: the mean of 64 has standard deviation <= 1/sqrt(64 * dim)
    assert abs(float(s.mean())) < 4 / math.sqrt(64 * model.dim)
    assert abs(
        float(s.std()) - 1 / math.sqrt(model.dim * (2 if model.name == "FHRR" else 1))
    ) < 0.5 / math.sqrt(model.dim)


# -- bundle --------------------------------------------------------------------------------


@functools.cache
def expected_bundle_similarity(model_name: str, k: int) -> float:
    """Expected similarity of each of k random items to their bundle.

    Summing sim(x_i, bundle) over the k items gives |s| per element, where s is the
    sum of the items (sign(s) * s for MAP/BSC, conj(s/|s|) * s for FHRR), so the
    expected similarity of one item is E|S_k| / k:
    - MAP/BSC, k odd: S_k is a sum of k random signs; E|S_k| / k = C(k-1, (k-1)/2) / 2**(k-1),
      which tends to sqrt(2 / (pi k)).
    - FHRR: S_k is a planar random walk of k unit steps; E|S_k| / k tends to sqrt(pi / (4 k))
      (Rayleigh). Small k are computed here by Monte Carlo (standard error < 5e-4).
    """
    if model_name in ("MAP", "BSC"):
        assert k % 2 == 1
        return math.comb(k - 1, (k - 1) // 2) / 2 ** (k - 1)
    rng = np.random.default_rng(12345)
    phases = rng.uniform(-np.pi, np.pi, size=(100_000, k))
    return float(np.abs(np.exp(1j * phases).sum(axis=1)).mean() / k)


def test_bundle_constants_match_asymptotics():
    """The exact constants above tend to the asymptotic ones (checks the derivation)."""
    for k in (31, 101):
        assert expected_bundle_similarity("MAP", k) == pytest.approx(math.sqrt(2 / (math.pi * k)), rel=0.01)
        assert expected_bundle_similarity("FHRR", k) == pytest.approx(math.sqrt(math.pi / (4 * k)), rel=0.01)
    # small k, known values: MAP k=3 is 1/2; FHRR k=2 is E|1 + e^{i t}| / 2 = 2 / pi
    assert expected_bundle_similarity("MAP", 3) == 0.5
    assert expected_bundle_similarity("FHRR", 2) == pytest.approx(2 / math.pi, abs=2e-3)


@pytest.mark.slow
def test_bundle_similarity_scale(make_model, model_name):
    dim = 10_000
    model = make_model(model_name, dim)
    codebook = model.random(31, seed=100)
    unrelated = model.random(seed=1)
    for k in (3, 9, 31):
        items = codebook[:k]
        s = model.bundle(items)
        sims = np_(model, model.similarity(items, s))
        expected = expected_bundle_similarity(model_name, k)
        # each item's similarity has standard deviation <= 1/sqrt(dim); allow 3 for the mean
        assert abs(float(sims.mean()) - expected) < 3 / math.sqrt(dim), (k, sims.mean(), expected)
        assert np.all(np.abs(sims - expected) < 4 / math.sqrt(dim)), (k, sims, expected)
        # which is on the 1/sqrt(k) scale
        assert 0.5 / math.sqrt(k) < expected < 1.0 / math.sqrt(k)
        # and unrelated vectors stay about 0
        assert abs(sim(model, unrelated, s)) < 4 / math.sqrt(dim)


def tie_break_vector(model):
    """The documented tie-break rule: a fixed random vector drawn from the model's seed
    (0 when it has none) in the TIEBREAK stream of the generator."""
    if model.name == "MAP":
        return random_signs(
            model.backend, model.seed_for_ties, 1, model.dim, model.dtype, purpose=Purpose.TIEBREAK
        )[0]
    return random_bits(model.backend, model.seed_for_ties, 1, model.dim, purpose=Purpose.TIEBREAK)[0]


@pytest.mark.parametrize("name", ["MAP", "BSC"])
@pytest.mark.parametrize("model_seed", [None, 5])
def test_bundle_ties_discrete(make_model, name, model_seed):
    """An even bundle has ties. HoloVec's MAP bundle of two vectors returned one of the
    inputs; here ties take the tie-break vector, so the bundle is like both inputs."""
    model = make_model(name, DIM, seed=model_seed)
    a, b = model.random(seed=1), model.random(seed=2)
    s = model.bundle([a, b])
    an, bn, sn = np_(model, a), np_(model, b), np_(model, s)
    assert not np.array_equal(sn, an)
    assert not np.array_equal(sn, bn)
    # deterministic
    np.testing.assert_array_equal(np_(model, model.bundle([a, b])), sn)
    np.testing.assert_array_equal(np_(model, model.bundle([b, a])), sn)
    # the rule: agreement keeps the common value, disagreement takes the tie-break vector
    t = np_(model, tie_break_vector(model))
    np.testing.assert_array_equal(sn, np.where(an == bn, an, t))
    # so the bundle is about equally (0.5) similar to both inputs
    for x in (a, b):
        assert abs(sim(model, s, x) - 0.5) < 4 / math.sqrt(model.dim)
    # four items: ties where two agree with each side
    four = model.random(4, seed=3)
    values = np_(model, four).astype(np.int64)
    got = np_(model, model.bundle(four))
    if name == "MAP":
        margin = values.sum(0)
        want = np.where(margin == 0, t, np.sign(margin))
    else:
        margin = 2 * values.sum(0) - 4
        want = np.where(margin == 0, t, (margin > 0).astype(np.uint8))
    assert (margin == 0).mean() > 0.3  # about 3/8 of the elements are ties
    np.testing.assert_array_equal(got, want)


def test_bundle_ties_fhrr(make_model):
    """Opposite phasors cancel to 0; the bundle takes the tie-break phasor, never NaN."""
    model = make_model("FHRR", DIM)
    a = model.random(seed=1)
    s = model.bundle([a, -a])
    sn = np_(model, s)
    assert np.all(np.isfinite(sn))
    np.testing.assert_allclose(np.abs(sn), 1.0, atol=1e-5)
    np.testing.assert_array_equal(np_(model, model.bundle([a, -a])), sn)
    assert abs(sim(model, s, a)) < 4 / math.sqrt(model.dim)


# -- normalize -----------------------------------------------------------------------------


@EXACT
@given(seed=SEEDS)
def test_normalize(model, seed):
    """The core models' vectors are normalized already; a raw sum is normalized onto the
    model's values (idempotence and dtype: holovec.testing.laws.check_normalize)."""
    X = model.random(5, seed=seed)
    assert_same(model, model.normalize(X), X)
    once = model.normalize(X[0] + X[1] + X[2] + X[3])
    if model.name == "FHRR":
        np.testing.assert_allclose(np.abs(np_(model, once)), 1.0, atol=1e-5)
    elif model.name == "MAP":
        assert set(np.unique(np_(model, once))) <= {-1.0, 1.0}
    else:
        assert set(np.unique(np_(model, once))) <= {0, 1}
