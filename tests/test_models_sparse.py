"""The sparse binary models BSDC and BSDC-SEG (sparse block codes), on every backend.

Exact laws are checked with seeds drawn by hypothesis (and bounds that random vectors
miss with probability below 1e-5); statistical ones use fixed seeds with bounds set from
measurements, so that they are deterministic.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from conftest import device_for, to_numpy
from holovec import VSA, kernels
from holovec.models.bsdc import BSDC, SparseBinaryModel
from holovec.models.bsdc_seg import BSDCSEG

DIM = 1024  # BSDC: 32 ones; BSDC-SEG: 32 segments of 32
SEEDS = st.integers(min_value=0, max_value=2**64 - 1)
EXACT = settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

# (model name, options): the defaults and the options that change the algebra
CONFIGS = [
    pytest.param(("BSDC", {}), id="BSDC-shift"),
    pytest.param(("BSDC", {"binding": "cdt"}), id="BSDC-cdt"),
    pytest.param(("BSDC-SEG", {}), id="BSDC-SEG"),
]
EXACT_CONFIGS = [p for p in CONFIGS if p.id != "BSDC-cdt"]


@functools.cache
def _cached_model(backend: str, name: str, dim: int, options: tuple) -> object:
    return VSA.create(name, dim, backend=backend, device=device_for(backend), **dict(options))


@pytest.fixture
def make_model(backend):
    """Like conftest's, but models of equal settings are shared by the tests of this file, so
    that JAX (which compiles each op for each new shape) compiles their functions once."""

    def make(name: str, dim: int = DIM, **options):
        if "seed" in options:  # seeded models count their unseeded draws: not shared
            return VSA.create(name, dim, backend=backend, device=device_for(backend), **options)
        return _cached_model(backend, name, dim, tuple(sorted(options.items())))

    return make


@pytest.fixture(params=CONFIGS)
def model(request, make_model):
    name, options = request.param
    return make_model(name, DIM, **options)


@pytest.fixture(params=EXACT_CONFIGS)
def exact_model(request, make_model):
    name, options = request.param
    return make_model(name, DIM, **options)


@pytest.fixture(params=["BSDC", "BSDC-SEG"])
def name(request) -> str:
    return request.param


def np_(model, x) -> np.ndarray:
    return x if isinstance(x, np.ndarray) else to_numpy(model, x)


def same(model, x, y) -> bool:
    x, y = np_(model, x), np_(model, y)
    return x.shape == y.shape and bool((x == y).all())


def one_hot_per_segment(model, x) -> bool:
    blocks = np_(model, x).reshape(*x.shape[:-1], model.segments, model.segment_length)
    return bool((blocks.sum(-1) == 1).all() and set(np.unique(blocks)) <= {0, 1})


def sim(model, a, b) -> float:
    return float(model.similarity(a, b))


def statistical_only_on_numpy_and_torch(backend):
    """Statistical checks on big vectors skip JAX, which compiles every op for every new
    shape; JAX's vectors and results are bit-identical to NumPy's (tested below)."""
    if backend == "jax":
        pytest.skip("statistical check: JAX results equal NumPy's bit for bit")


# -- registry, flags, options -------------------------------------------------------------------


def test_registered_case_insensitive():
    assert {"BSDC", "BSDC-SEG"} <= set(VSA.available_models())
    assert type(VSA.create("bsdc-seg", 100)) is BSDCSEG
    assert type(VSA.create("bsdc", 100)) is BSDC


@pytest.mark.parametrize(
    ("name", "options", "flags"),
    [
        ("BSDC", {}, (False, False, True)),
        ("BSDC", {"binding": "shift"}, (False, False, True)),
        ("BSDC", {"binding": "cdt"}, (False, True, False)),
        ("BSDC-SEG", {}, (False, True, True)),
        ("BSDC-SEG", {"thinning": "vote"}, (False, True, True)),
    ],
)
def test_flags(name, options, flags):
    model = VSA.create(name, 400, **options)
    assert (model.is_self_inverse, model.is_commutative, model.is_exact_inverse) == flags
    # the class states the default options' algebra
    cls = type(model)
    assert (cls.is_self_inverse, cls.is_commutative, cls.is_exact_inverse) == (
        False,
        name == "BSDC-SEG",
        True,
    )
    assert model.dtype_name == "uint8"


@pytest.mark.parametrize(
    ("name", "options", "error"),
    [
        ("BSDC", {"density": 0.0}, ValueError),
        ("BSDC", {"density": 1.5}, ValueError),
        ("BSDC", {"density": "dense"}, TypeError),
        ("BSDC", {"binding": "xor"}, ValueError),
        ("BSDC", {"thinning": "vote"}, ValueError),
        ("BSDC", {"segments": 4}, TypeError),
        ("BSDC-SEG", {"thinning": "cdt"}, ValueError),
        ("BSDC-SEG", {"segments": 7}, ValueError),  # 400 is not divisible by 7
        ("BSDC-SEG", {"segment_length": 0}, ValueError),
        ("BSDC-SEG", {"segments": 2.5}, TypeError),
        ("BSDC-SEG", {"segments": 10, "segment_length": 10}, ValueError),  # 100 != 400
    ],
)
def test_bad_options(name, options, error):
    with pytest.raises(error):
        VSA.create(name, 400, **options)


def test_segment_shapes():
    assert (VSA.create("BSDC-SEG", 10000).segments, VSA.create("BSDC-SEG", 10000).segment_length) == (
        100,
        100,
    )
    seg = VSA.create("BSDC-SEG", 350)  # divisor of 350 nearest sqrt(350) = 18.7
    assert (seg.segments, seg.segment_length) == (25, 14)
    seg = VSA.create("BSDC-SEG", 400, segments=8)
    assert (seg.segments, seg.segment_length) == (8, 50)
    seg = VSA.create("BSDC-SEG", 400, segment_length=8)
    assert (seg.segments, seg.segment_length) == (50, 8)
    with pytest.raises(ValueError, match="divisor near sqrt"):
        VSA.create("BSDC-SEG", 1009)  # a prime
    with pytest.raises(ValueError, match="not divisible"):
        VSA.create("BSDC-SEG", 1000, segment_length=30)


def test_bundle_thinning_keyword_is_checked(model):
    with pytest.raises(ValueError, match="thinning"):
        model.bundle(model.random(2, seed=1), thinning="majority")


# -- random vectors -------------------------------------------------------------------------------


def test_random_vectors(model):
    X = model.random(20, seed=3)
    x = np_(model, X)
    assert x.shape == (20, DIM) and x.dtype == np.uint8 and set(np.unique(x)) <= {0, 1}
    if isinstance(model, BSDC):
        assert model.n_active == 32
        assert (x.sum(-1) == 32).all()  # exactly M ones
    else:
        assert one_hot_per_segment(model, X)
    # row i does not depend on n, and distinct seeds give distinct vectors
    assert same(model, model.random(5, seed=3), X[:5])
    assert same(model, model.random(seed=3), X[0])
    assert not same(model, model.random(seed=4), X[0])
    assert tuple(model.random(0, seed=1).shape) == (0, DIM)


def test_random_density_and_uniformity(make_model, backend):
    statistical_only_on_numpy_and_torch(backend)
    bsdc = make_model("BSDC", 10000)
    x = np_(bsdc, bsdc.random(400, seed=5))
    assert (x.sum(-1) == 100).all()
    per_position = x.sum(0)  # 400 * 0.01 = 4 per position on average
    assert abs(per_position.mean() - 4) < 1e-9 and per_position.std() < 2 * math.sqrt(4)
    custom = make_model("BSDC", 2000, density=0.05)
    assert custom.n_active == 100 and custom.density == 0.05
    assert (np_(custom, custom.random(3, seed=1)).sum(-1) == 100).all()
    seg = make_model("BSDC-SEG", 10000)
    counts = np.bincount(np_(seg, seg.to_indices(seg.random(400, seed=6))).ravel(), minlength=100)
    assert counts.sum() == 40000 and counts.min() > 300 and counts.max() < 500  # 400 +- 5 sigma


def test_seeded_vectors_identical_across_backends(name, backend):
    """Vectors, and everything discrete computed from them, are bit-identical to NumPy's."""
    for options in ({}, {"binding": "cdt", "thinning": "cdt"} if name == "BSDC" else {"thinning": "vote"}):
        ref = VSA.create(name, 900, backend="numpy", seed=11, **options)
        model = VSA.create(name, 900, backend=backend, device=device_for(backend), seed=11, **options)
        a_ref, a = ref.random(6, seed=2**100 + 7), model.random(6, seed=2**100 + 7)
        results = [
            (a_ref, a),
            (ref.random(3), model.random(3)),  # unseeded draws of a seeded model
            (ref._tiebreak, model._tiebreak),
            (ref.bind(a_ref[:3], a_ref[3:]), model.bind(a[:3], a[3:])),
            (ref.bundle(a_ref), model.bundle(a)),
            (
                ref.bundle(a_ref[:4], thinning=options.get("thinning")),
                model.bundle(a[:4], thinning=options.get("thinning")),
            ),
            (ref.permute(a_ref, 3), model.permute(a, 3)),
        ]
        if name == "BSDC":
            results.append((ref._cdt_perm, model._cdt_perm))
            results.append((ref.thin(ref.bundle(a_ref)), model.thin(model.bundle(a))))
        for x_ref, x in results:
            np.testing.assert_array_equal(model.backend.to_numpy(x), np.asarray(x_ref))


# -- binding --------------------------------------------------------------------------------------


@EXACT
@given(seed_a=SEEDS, seed_b=SEEDS)
def test_bind_unbind_round_trip_exact(exact_model, seed_a, seed_b):
    model = exact_model
    a, b = model.random(seed=seed_a), model.random(seed=seed_b)
    assert same(model, model.unbind(model.bind(a, b), b), a)
    # batches broadcast: many a with one b, one a with many b
    A, B = model.random(4, seed=seed_a), model.random(4, seed=seed_b)
    assert same(model, model.unbind(model.bind(A, b), b), A)
    assert same(model, model.unbind(model.bind(a, B), B), np.broadcast_to(np_(model, a), (4, DIM)))
    # binding keeps the number of ones
    assert int(np_(model, model.bind(a, b)).sum()) == int(np_(model, a).sum())


def test_bound_vector_dissimilar_to_operands(exact_model):
    model = exact_model
    A, B = model.random(20, seed=1), model.random(20, seed=2)
    C = model.bind(A, B)
    assert np_(model, model.similarity(C, A)).max() < 0.3
    assert np_(model, model.similarity(C, B)).max() < 0.3


def test_repeated_binding_exact(exact_model):
    """Bind r = 40 random vectors in turn and unbind them in reverse: exactly the start."""
    model = exact_model
    keys = model.random(40, seed=8)
    x = start = model.random(seed=9)
    for i in range(40):
        x = model.bind(x, keys[i])
    for i in reversed(range(40)):
        x = model.unbind(x, keys[i])
    assert same(model, x, start) and sim(model, x, start) == 1.0


# commutativity as declared, and unbind recovering the first operand of a non-commutative
# binding: holovec.testing.laws (check_commutativity, check_bind_inverse) for every variant


def test_shift_binding_is_a_shift_by_the_sum_of_positions(make_model):
    model = make_model("BSDC")
    a, b = model.random(seed=1), model.random(seed=2)
    shift = int(np.flatnonzero(np_(model, b)).sum()) % DIM
    np.testing.assert_array_equal(np_(model, model.bind(a, b)), np.roll(np_(model, a), shift))


def test_identity_and_inverse(exact_model):
    model = exact_model
    a, b = model.random(seed=1), model.random(3, seed=2)
    e = model.identity()
    assert same(model, model.bind(a, e), a)
    assert same(
        model, model.bind(model.bind(a, b), model.inverse(b)), np.broadcast_to(np_(model, a), (3, DIM))
    )
    assert same(model, model.inverse(e), e)


def test_cdt_binding(make_model):
    model = make_model("BSDC", 4096, binding="cdt")  # M = 64
    a, b = model.random(seed=1), model.random(seed=2)
    c = model.bind(a, b)
    ones = int(np_(model, c).sum())
    assert 48 <= ones <= 80  # about M: density preserved
    assert not (np_(model, c) & ~(np_(model, a) | np_(model, b))).any()  # a subset of a OR b
    assert 0.3 < sim(model, c, a) < 0.7 and 0.3 < sim(model, c, b) < 0.7  # similar to both
    # approximate unbinding: c AND NOT b, about 0.7 similar to a, then cleanup
    r = model.unbind(c, b)
    assert sim(model, r, a) > 0.55
    book = model.random(100, seed=3)
    book = model.asarray(np.concatenate([np_(model, book), np_(model, a)[None]]))
    assert int(np.argmax(np_(model, model.similarity_matrix(r, book)))) == 100
    with pytest.raises(ValueError, match="not invertible"):
        model.inverse(a)
    with pytest.raises(ValueError, match="not invertible"):
        model.identity()


@EXACT
@given(seed_a=SEEDS, seed_b=SEEDS)
def test_segment_binding_keeps_one_hot(make_model, seed_a, seed_b):
    """HoloVec's BSDC-SEG binding loses the segment structure; here bind adds indices."""
    model = make_model("BSDC-SEG", DIM)
    A, B = model.random(5, seed=seed_a), model.random(5, seed=seed_b)
    C = model.bind(A, B)
    assert one_hot_per_segment(model, C)
    assert one_hot_per_segment(model, model.unbind(C, B))
    assert one_hot_per_segment(model, model.inverse(A))
    assert one_hot_per_segment(model, model.permute(A, 5))
    expected = (np_(model, model.to_indices(A)) + np_(model, model.to_indices(B))) % model.segment_length
    np.testing.assert_array_equal(np_(model, model.to_indices(C)), expected)


def test_segment_binding_of_bundles(make_model):
    """Bundles (multi-hot) bind as sets: block-wise circular convolution."""
    model = make_model("BSDC-SEG", DIM)
    items, key, other = model.random(4, seed=1), model.random(seed=2), model.random(3, seed=3)
    s = model.bundle(items)
    c = model.bind(s, key)
    assert same(model, c, model.bind(key, s))  # commutative with a one-hot operand either side
    assert same(model, c, model.bundle(model.bind(items, key)))  # distributes over the OR bundle
    assert same(model, model.unbind(c, key), s)  # exact for a one-hot key
    # both multi-hot: every sum of active indices (the FFT path), commutative
    t = model.bundle(other)
    st_, ts = model.bind(s, t), model.bind(t, s)
    assert same(model, st_, ts)
    pairs = model.bind(items[:, None], other[None, :])  # (4, 3, dim)
    assert same(model, st_, model.bundle(model.xp.reshape(pairs, (12, DIM))))
    # unbinding with a multi-hot key is approximate: the result contains the start
    back = np_(model, model.unbind(st_, t))
    assert (back >= np_(model, s)).all()


# -- bundling -------------------------------------------------------------------------------------


def test_bundle_is_or(model):
    X = model.random(5, seed=4)
    s = model.bundle(X, thinning="none")
    np.testing.assert_array_equal(np_(model, s), np_(model, X).max(0))
    assert same(model, s, model.bundle([X[i] for i in range(5)], thinning="none"))
    for i in range(5):
        assert sim(model, s, X[i]) > 0.35  # ~ 1/sqrt(5) for disjoint items
    # batched: items on axis 0, batch axes after it
    Y = model.random(6, seed=5)
    batched = model.bundle(model.xp.reshape(Y, (3, 2, DIM)), thinning="none")
    np.testing.assert_array_equal(np_(model, batched), np_(model, Y).reshape(3, 2, DIM).max(0))


@pytest.mark.parametrize("k", [2, 3, 5, 8, 20])
def test_cdt_bundle_restores_density(make_model, backend, k):
    statistical_only_on_numpy_and_torch(backend)
    model = make_model("BSDC", 10000, thinning="cdt")  # M = 100
    X = model.random(k * 10, seed=k)
    stacked = model.xp.reshape(X, (k, 10, 10000))
    thinned = np_(model, model.bundle(stacked))  # 10 bundles of k items
    union = np_(model, model.bundle(stacked, thinning="none"))
    assert ((thinned & ~union) == 0).all()  # a subset of the OR
    # K is an integer: measured means 98-110 and extremes 72-132 over 50 bundles of 2-40 items
    ones = thinned.sum(-1)
    assert 85 <= ones.mean() <= 115 and ones.min() >= 65 and ones.max() <= 140
    # each item keeps about its share of the thinned bundle
    sims = np_(model, model.similarity(model.bundle(stacked), stacked))
    assert sims.mean() == pytest.approx(1 / k, rel=0.3)
    if k <= 8:  # past that, thinning leaves about M / k ones of each item, and some lose all
        assert sims.min() > 0.2 / k
    # deep composition: a thinned bundle of thinned bundles (whose contexts are correlated)
    # is back at the density too
    deeper = np_(model, model.bundle(model.bundle(stacked)[: min(k, 10)]))
    assert 65 <= int(deeper.sum()) <= 140


def test_cdt_thin(make_model, backend):
    statistical_only_on_numpy_and_torch(backend)
    model = make_model("BSDC", 10000)
    a = model.random(seed=1)
    assert same(model, model.thin(a), a)  # at the density already: unchanged
    many = model.bundle(model.random(40, seed=2))  # ~3300 ones: the subtractive procedure
    assert 65 <= int(np_(model, model.thin(many)).sum()) <= 140
    assert model.thinning == "none" and same(model, model.bundle([a, a]), a)
    # similar inputs thin alike: bundles sharing 2 of 3 items stay similar after thinning
    A, b = model.random(3, seed=5), model.random(seed=6)
    shared = sim(model, model.thin(model.bundle(A)), model.thin(model.bundle([A[0], A[1], b])))
    assert shared > 0.35  # measured 0.48 (0.68 before thinning)


def test_vote_bundle_is_one_hot(make_model):
    model = make_model("BSDC-SEG", DIM, thinning="vote", seed=3)
    X = model.random(7, seed=4)
    v = model.bundle(X)
    assert one_hot_per_segment(model, v)
    assert one_hot_per_segment(model, model.bundle(X[:2]))  # every segment a tie or agreement
    # the vote picks the most frequent index of each segment
    favoured = model.xp.concat([X] + [X[:1]] * 5, axis=0)  # X[0] six times, six others
    won = np_(model, model.to_indices(model.bundle(favoured)))
    np.testing.assert_array_equal(won, np_(model, model.to_indices(X[0])))
    # ties are broken by the seed, reproducibly, not always toward the first item
    pair = model.to_indices(model.bundle(X[:2]))
    assert same(model, pair, model.to_indices(model.bundle(X[:2])))
    first, second = np_(model, model.to_indices(X[0])), np_(model, model.to_indices(X[1]))
    chosen = np_(model, pair)
    assert ((chosen == first) | (chosen == second)).all()
    differ = first != second
    assert (chosen[differ] == first[differ]).any() and (chosen[differ] == second[differ]).any()
    # normalize is the vote over the values it is given: one-hot again, and the identity on one-hot vectors
    assert one_hot_per_segment(model, model.normalize(model.bundle(X, thinning="none")))
    assert same(model, model.normalize(X), X)


# -- similarity -----------------------------------------------------------------------------------


@EXACT
@given(seed_a=SEEDS, seed_b=SEEDS)
def test_similarity_range(model, seed_a, seed_b):
    assume(seed_a != seed_b)
    a, b = model.random(seed=seed_a), model.random(seed=seed_b)
    s = model.bundle(model.random(4, seed=seed_b))
    for x, y in ((a, b), (a, s), (s, b), (s, s)):
        assert 0.0 <= sim(model, x, y) <= 1.0 + 1e-6
    assert sim(model, a, a) == pytest.approx(1.0, abs=1e-6)
    assert sim(model, s, s) == pytest.approx(1.0, abs=1e-6)
    assert sim(model, a, b) < 0.25  # about the density, 1/32, for unrelated vectors


def test_similarity_definition_and_empty_vectors(name, make_model):
    model = make_model(name)
    x = np.zeros((3, DIM), dtype=np.uint8)
    x[0, [1, 2, 3, 4]] = 1
    x[1, [3, 4, 5, 6, 7, 8, 9, 10, 11]] = 1  # overlap 2 with row 0: 2 / sqrt(4 * 9)
    X = model.asarray(x)
    assert sim(model, X[0], X[1]) == pytest.approx(2 / 6)
    assert sim(model, X[0], X[2]) == 0.0 and sim(model, X[2], X[2]) == 0.0
    np.testing.assert_allclose(
        np_(model, model.similarity_matrix(X, X)), [[1, 1 / 3, 0], [1 / 3, 1, 0], [0, 0, 0]], atol=1e-6
    )


# similarity_matrix against pairwise similarity, in chunks and with batch axes:
# holovec.testing.laws.check_similarity_matrix_chunks for every variant


@pytest.mark.parametrize("compact", [True, False])
def test_block_code_search_paths_agree(make_model, backend, compact, monkeypatch):
    """The compact (index) search path and the dense matrix product give the same matrix,
    for one-hot items, one-hot queries against bundles, and bundles against bundles."""
    model = make_model("BSDC-SEG")
    monkeypatch.setattr(kernels, "gather_beats_matmul", lambda backend: compact)
    book, queries = model.random(40, seed=1), model.random(5, seed=2)
    bundles = model.bundle(model.xp.reshape(model.random(15, seed=3), (3, 5, DIM)))
    for q, items in ((queries, book), (bundles, book), (queries, bundles), (bundles, bundles)):
        got = np_(model, model.similarity_matrix(q, items, chunk_size=16))
        dense = np_(model, SparseBinaryModel._similarity_matrix(model, q, items))
        np.testing.assert_allclose(got, dense, atol=1e-6)


# -- permutation ----------------------------------------------------------------------------------


@EXACT
@given(seed=SEEDS, shift=st.integers(min_value=-70, max_value=70).filter(lambda s: s % 32 != 0))
def test_permute_invertible(model, seed, shift):
    x = model.random(3, seed=seed)
    p = model.permute(x, shift)
    assert same(model, model.permute(p, -shift), x)
    assert float(np.max(np_(model, model.similarity(p, x)))) < 0.35


def test_segment_permute_rotates_whole_segments(make_model):
    model = make_model("BSDC-SEG")
    x = model.random(seed=1)
    idx = np_(model, model.to_indices(x))
    np.testing.assert_array_equal(np_(model, model.to_indices(model.permute(x, 3))), np.roll(idx, 3))
    assert same(model, model.permute(x, 32), x)  # 32 segments


# -- compact form ---------------------------------------------------------------------------------


def test_indices_round_trip(make_model):
    model = make_model("BSDC-SEG")  # 32 x 32
    x = model.random(4, seed=1)
    idx = model.to_indices(x)
    assert tuple(idx.shape) == (4, 32) and np_(model, idx).dtype == np.int32
    assert same(model, model.from_indices(idx), x)
    one = model.from_indices(np.arange(32))  # NumPy indices are converted
    np.testing.assert_array_equal(np_(model, one).reshape(32, 32), np.eye(32, dtype=np.uint8))
    s = model.bundle(x)
    with pytest.raises(ValueError, match="one active element per segment"):
        model.to_indices(s)
    np.testing.assert_array_equal(np_(model, model.to_indices(s, strict=False)), np_(model, idx).min(0))
    with pytest.raises(ValueError, match=r"\[0, 32\)"):
        model.from_indices(np.full(32, 32))
    with pytest.raises(ValueError, match=r"\(\.\.\., 32\)"):
        model.from_indices(np.zeros(31, dtype=np.int64))
    with pytest.raises(TypeError, match="integer"):
        model.from_indices(np.zeros(32, dtype=np.float32))


# -- bundle capacity (Schlegel, Neubert and Protzel 2022) --------------------------------------------


def bundle_accuracy(model, k=15, n_items=1000, trials=60, seed=0) -> float:
    """Mean fraction of the k bundled items (OR) found as the top k of a 1,000-item codebook,
    over ``trials`` bundles made and searched at once."""
    book = model.random(n_items, seed=seed)
    members = np.argsort(np.random.default_rng(seed).random((trials, n_items)), axis=1)[:, :k]
    stacked = model.xp.take(book, model.backend.asarray(members.T.reshape(-1).astype(np.int32)), axis=0)
    bundles = model.bundle(model.xp.reshape(stacked, (k, trials, model.dim)), thinning="none")
    scores = np_(model, model.similarity_matrix(bundles, book))
    top = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    return float((top[:, :, None] == members[:, None, :]).any(-1).mean())


@pytest.mark.slow
def test_bundle_capacity(name, make_model):
    # k = 15 of 1,000 at dim 350 (BSDC: 19 ones; BSDC-SEG: 25 segments of 14):
    # measured 0.998-0.999 (BSDC) and 0.997 (BSDC-SEG) over 3 x 100 trials; at 117 (a third),
    # 0.21-0.25 (BSDC: 11 ones) and 0.17 (BSDC-SEG: 13 segments of 9)
    assert bundle_accuracy(make_model(name, 350)) >= 0.97
    assert bundle_accuracy(make_model(name, 117)) < 0.9


# -- tracing --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "options"), [("BSDC", {"thinning": "cdt"}), ("BSDC-SEG", {"thinning": "vote"})]
)
def test_jax_jit_matches_eager(name, options):
    """Under jax.jit the data cannot be looked at: the branch-free paths give the same results."""
    pytest.importorskip("jax")
    import jax

    model = _cached_model("jax", name, DIM, tuple(options.items()))
    a, b, book = model.random(seed=1), model.random(3, seed=2), model.random(30, seed=3)
    s = model.bundle(b, thinning="none")

    @jax.jit
    def run(a, b, s, book):
        c = model.bind(a, b)
        return c, model.unbind(c, b), model.bind(s, a), model.bundle(b), model.similarity_matrix(s, book)

    for traced, eager in zip(run(a, b, s, book), run.__wrapped__(a, b, s, book), strict=True):
        np.testing.assert_allclose(np.asarray(traced), np.asarray(eager), atol=1e-6)
