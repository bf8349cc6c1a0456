"""Invariant 1 of the design page (docs/design.rst): reproducible everywhere.

The same seed gives the same vectors on NumPy, PyTorch and JAX; the generator is
Philox-4x64-10, checked against NumPy's implementation and the published Random123
known-answer vectors; rows do not depend on how many were asked for; unseeded draws
are fresh, or reproducible under ``VSA.create(seed=...)``; bundle ties depend only on
the model's seed.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from scipy import stats

from conftest import device_for, to_numpy
from holovec import VSA, get_backend, kernels
from holovec.random import (
    Purpose,
    check_seed,
    philox4x64_generic,
    random_bits,
    random_normal,
    random_phases,
    random_signs,
    random_uniform,
    random_words,
)

DIM = 10_000
U64 = 2**64 - 1


@pytest.fixture
def be(backend):
    """The Backend object (on the CPU) of the current backend name."""
    return get_backend(backend, "cpu")


def words_np(backend, words) -> np.ndarray:
    """Random words of any backend (uint32, or int64 on torch) as NumPy uint64, checked to be 32-bit."""
    out = backend.to_numpy(words).astype(np.uint64)
    assert out.size == 0 or int(out.max()) < 2**32
    return out


# -- the same vectors on every backend ---------------------------------------------------


@functools.cache
def numpy_reference(model_name: str, what: str) -> np.ndarray:
    model = VSA.create(model_name, dim=DIM, backend="numpy")
    if what == "one":
        return model.random(seed=1)
    if what == "codebook":
        return model.random(50, seed=7)
    if what == "unseeded":
        m = VSA.create(model_name, dim=DIM, backend="numpy", seed=5)
        return np.stack([m.random(), m.random()])
    if what == "ties":
        m = VSA.create(model_name, dim=DIM, backend="numpy", seed=9)
        a, b = m.random(seed=1), m.random(seed=2)
        if model_name == "FHRR":
            return m.bundle([a, -a])
        return m.bundle([a, b])
    raise ValueError(what)


def assert_same_vectors(model_name: str, got: np.ndarray, want: np.ndarray):
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    if model_name == "FHRR":
        # np.angle within 1e-6, the difference taken on the circle (a phase of -pi
        # may come out as +pi on another backend), and the complex values within 1e-6
        diff = np.angle(got) - np.angle(want)
        diff = (diff + np.pi) % (2 * np.pi) - np.pi
        np.testing.assert_array_less(np.abs(diff), 1e-6)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-6)
    else:
        np.testing.assert_array_equal(got, want)


def test_vectors_identical_across_backends(backend, model_name):
    model = VSA.create(model_name, dim=DIM, backend=backend, device=device_for(backend))
    assert_same_vectors(model_name, to_numpy(model, model.random(seed=1)), numpy_reference(model_name, "one"))
    assert_same_vectors(
        model_name, to_numpy(model, model.random(50, seed=7)), numpy_reference(model_name, "codebook")
    )
    seeded = VSA.create(model_name, dim=DIM, backend=backend, device=device_for(backend), seed=5)
    unseeded = np.stack([to_numpy(model, seeded.random()), to_numpy(model, seeded.random())])
    assert_same_vectors(model_name, unseeded, numpy_reference(model_name, "unseeded"))
    tied = VSA.create(model_name, dim=DIM, backend=backend, device=device_for(backend), seed=9)
    a, b = tied.random(seed=1), tied.random(seed=2)
    ties = tied.bundle([a, -a]) if model_name == "FHRR" else tied.bundle([a, b])
    assert_same_vectors(model_name, to_numpy(model, ties), numpy_reference(model_name, "ties"))


@pytest.mark.parametrize("model_name", ["FHRR", "MAP"])
def test_float64_vectors_identical_across_backends(backend, model_name):
    dtype = "complex128" if model_name == "FHRR" else "float64"
    be = get_backend(backend, "cpu")
    if not kernels.supports_dtype(be, dtype):
        pytest.skip(f"{backend} has no {dtype} in this configuration")
    want = VSA.create(model_name, dim=1000, backend="numpy", dtype=dtype).random(5, seed=3)
    model = VSA.create(model_name, dim=1000, backend=backend, device=device_for(backend), dtype=dtype)
    got = to_numpy(model, model.random(5, seed=3))
    assert got.dtype == want.dtype
    if model_name == "FHRR":
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    else:
        np.testing.assert_array_equal(got, want)


def test_rows_independent_of_n(make_model, model_name):
    model = make_model(model_name, 1000)
    ten = to_numpy(model, model.random(10, seed=11))
    np.testing.assert_array_equal(ten[:3], to_numpy(model, model.random(3, seed=11)))
    np.testing.assert_array_equal(ten[0], to_numpy(model, model.random(seed=11)))
    np.testing.assert_array_equal(ten[0], to_numpy(model, model.random(1, seed=11))[0])
    assert model.random(0, seed=11).shape == (0, 1000)


def test_codebook_in_shards(be):
    """Rows r0..r1 of a draw, asked for alone (row_start), equal those rows of the whole draw."""
    whole = words_np(be, random_words(be, 42, 20, 13))
    for start, stop in [(0, 7), (7, 20), (19, 20), (3, 11)]:
        shard = words_np(be, random_words(be, 42, stop - start, 13, row_start=start))
        np.testing.assert_array_equal(shard, whole[start:stop])


def test_different_seeds_differ(make_model, model_name):
    model = make_model(model_name, 1000)
    seeds = [0, 1, 2, 2**32, 2**64, 2**64 + 1, 2**127, 2**128 - 1]
    vectors = np.stack([to_numpy(model, model.random(seed=s)) for s in seeds])
    for i in range(len(seeds)):
        for j in range(i):
            assert not np.array_equal(vectors[i], vectors[j]), (seeds[i], seeds[j])
    # and are unrelated, not just different
    s = to_numpy(model, model.similarity_matrix(model.asarray(vectors), model.asarray(vectors)))
    off_diagonal = s[~np.eye(len(seeds), dtype=bool)]
    assert np.all(np.abs(off_diagonal) < 4 / math.sqrt(1000))
    # rows of one codebook are unrelated to each other too
    C = model.random(20, seed=3)
    S = to_numpy(model, model.similarity_matrix(C, C))
    assert np.all(np.abs(S[~np.eye(20, dtype=bool)]) < 5 / math.sqrt(1000))


# -- the generator -------------------------------------------------------------------------

GENERATOR_CASES = [
    # seed, n_rows, words_per_row, row_start, stream, purpose; every case draws 6 Philox
    # blocks, so that JAX compiles the generic generator once and not once per case
    (0, 6, 8, 0, 0, 0),
    (1, 3, 13, 0, 0, 0),
    (2**64 + 3, 2, 21, 7, 0, 0),
    (2**128 - 1, 3, 11, 0, 3, 1),
    (123456789, 1, 45, 2**32 + 5, 0, 0),  # the first counter word is past 2**32
    (99, 3, 9, 2**31 - 1, 0, 0),  # the first counter word crosses 2**32 inside the draw
    (7, 2, 17, 2**40 + 1, 2**40 + 7, 2**63),
    (2**100 + 17, 6, 1, 5, U64, 1),
]


@pytest.mark.parametrize(("seed", "n_rows", "wpr", "row_start", "stream", "purpose"), GENERATOR_CASES)
def test_generic_equals_native(be, seed, n_rows, wpr, row_start, stream, purpose):
    address = dict(row_start=row_start, stream=stream, purpose=purpose)
    generic = random_words(be, seed, n_rows, wpr, generic=True, **address)
    native = random_words(be, seed, n_rows, wpr, **address)
    assert tuple(generic.shape) == tuple(native.shape) == (n_rows, wpr)
    assert generic.dtype == native.dtype == kernels.word_dtype(be)
    np.testing.assert_array_equal(words_np(be, generic), words_np(be, native))


def philox_reference_block(counter: tuple[int, int, int, int], key: int) -> np.ndarray:
    """Philox-4x64-10 of one 256-bit counter under a 128-bit key, from NumPy's C code.

    NumPy increments its counter before generating, so it is given counter - 1."""
    value = sum(c << (64 * i) for i, c in enumerate(counter))
    value = (value - 1) % 2**256
    limbs = np.array([(value >> (64 * i)) & U64 for i in range(4)], dtype=np.uint64)
    generator = np.random.Philox(counter=limbs, key=np.array([key & U64, key >> 64], dtype=np.uint64))
    return generator.random_raw(4)


def reference_words(seed, n_rows, wpr, row_start, stream, purpose) -> np.ndarray:
    """The documented addressing, block by block: row r uses blocks r*B .. r*B + B - 1,
    B = ceil(wpr / 8), and block g is Philox of the counter (g + 1, stream, purpose, 0)."""
    blocks = -(-wpr // 8)
    rows = []
    for r in range(row_start, row_start + n_rows):
        row = [
            philox_reference_block((r * blocks + j + 1, stream, purpose, 0), seed).view(np.uint32)
            for j in range(blocks)
        ]
        rows.append(np.concatenate(row)[:wpr])
    return np.stack(rows).astype(np.uint64)


@pytest.mark.parametrize(("seed", "n_rows", "wpr", "row_start", "stream", "purpose"), GENERATOR_CASES)
def test_generic_equals_numpy_philox(be, seed, n_rows, wpr, row_start, stream, purpose):
    got = random_words(
        be, seed, n_rows, wpr, row_start=row_start, stream=stream, purpose=purpose, generic=True
    )
    np.testing.assert_array_equal(
        words_np(be, got), reference_words(seed, n_rows, wpr, row_start, stream, purpose)
    )


# Random123 kat_vectors, philox4x64 with 10 rounds: counter (4 words), key (2 words), output.
RANDOM123_KAT = [
    (
        (0, 0, 0, 0),
        (0, 0),
        (0x16554D9ECA36314C, 0xDB20FE9D672D0FDC, 0xD7E772CEE186176B, 0x7E68B68AEC7BA23B),
    ),
    (
        (U64, U64, U64, U64),
        (U64, U64),
        (0x87B092C3013FE90B, 0x438C3C67BE8D0224, 0x9CC7D7C69CD777B6, 0xA09CAEBF594F0BA0),
    ),
    (
        (0x243F6A8885A308D3, 0x13198A2E03707344, 0xA4093822299F31D0, 0x082EFA98EC4E6C89),
        (0x452821E638D01377, 0xBE5466CF34E90C6C),
        (0xA528F45403E61D95, 0x38C72DBD566E9788, 0xA5A1610E72FD18B5, 0x57BD43B5E52B7FE6),
    ),
]


@pytest.mark.parametrize(("counter", "key", "expected"), RANDOM123_KAT)
def test_philox_known_answers(be, counter, key, expected):
    key128 = key[0] | (key[1] << 64)
    # the reference implementation agrees with the published vectors
    assert [int(w) for w in philox_reference_block(counter, key128)] == list(expected)
    # and so does the generic code, on this backend's own integer arrays
    xp, word = be.xp, kernels.word_dtype(be)
    limbs = [
        (
            xp.asarray([c & 0xFFFFFFFF], dtype=word, device=be.device),
            xp.asarray([c >> 32], dtype=word, device=be.device),
        )
        for c in counter
    ]
    out = philox4x64_generic(be, limbs, key128)
    got = [int(be.to_numpy(lo)[0]) | (int(be.to_numpy(hi)[0]) << 32) for lo, hi in out]
    assert [hex(g) for g in got] == [hex(e) for e in expected]


# -- samplers --------------------------------------------------------------------------------

ALPHA = 1e-4  # loose: the seeds are fixed, this only catches a wrong distribution
N_ROWS, N_COLS = 20, 5_000


def test_random_phases_uniform(be):
    for dtype_name in ("float32", "float64"):
        if not kernels.supports_dtype(be, dtype_name):
            continue
        phases = be.to_numpy(random_phases(be, 5, N_ROWS, N_COLS, be.dtype(dtype_name))).ravel()
        assert phases.dtype == np.dtype(dtype_name)
        assert phases.min() >= -np.pi and phases.max() < np.pi
        assert stats.kstest(phases, "uniform", args=(-np.pi, 2 * np.pi)).pvalue > ALPHA
        # a circular distribution with no preferred direction
        assert abs(np.cos(phases).mean()) < 4 / math.sqrt(2 * phases.size)
        assert abs(np.sin(phases).mean()) < 4 / math.sqrt(2 * phases.size)


def test_random_uniform(be):
    u = be.to_numpy(random_uniform(be, 6, N_ROWS, N_COLS, be.dtype("float32"))).ravel()
    assert u.min() >= 0 and u.max() < 1
    assert stats.kstest(u, "uniform").pvalue > ALPHA
    v = be.to_numpy(random_uniform(be, 6, 2, 1000, be.dtype("float32"), low=-2.0, high=3.0))
    assert v.min() >= -2 and v.max() < 3


def test_random_normal(be):
    x = be.to_numpy(random_normal(be, 7, N_ROWS, N_COLS, be.dtype("float32"))).ravel()
    assert np.all(np.isfinite(x))
    n = x.size
    assert abs(x.mean()) < 4 / math.sqrt(n)
    assert abs(x.var() - 1) < 4 * math.sqrt(2 / n)
    assert stats.kstest(x, "norm").pvalue > ALPHA
    # an odd width is cut from the last pair, not a different stream
    odd = be.to_numpy(random_normal(be, 7, 2, 11, be.dtype("float32")))
    even = be.to_numpy(random_normal(be, 7, 2, 12, be.dtype("float32")))
    np.testing.assert_array_equal(odd, even[:, :11])


def test_random_bits_and_signs_balanced(be):
    bits = be.to_numpy(random_bits(be, 8, N_ROWS, N_COLS))
    assert bits.dtype == np.uint8 and bits.shape == (N_ROWS, N_COLS)
    assert set(np.unique(bits)) == {0, 1}
    n = bits.size
    assert abs(bits.mean() - 0.5) < 4 * 0.5 / math.sqrt(n)
    # each of the 32 bit positions of a word is balanced
    per_position = bits[:, : N_COLS - N_COLS % 32].reshape(N_ROWS, -1, 32).mean(axis=(0, 1))
    m = n / 32
    assert np.all(np.abs(per_position - 0.5) < 4.5 * 0.5 / math.sqrt(m))
    signs = be.to_numpy(random_signs(be, 8, N_ROWS, N_COLS, be.dtype("float32")))
    assert set(np.unique(signs)) == {-1.0, 1.0}
    np.testing.assert_array_equal(signs, 1 - 2 * bits.astype(np.float32))
    assert abs(signs.mean()) < 4 / math.sqrt(n)


def test_purposes_and_streams_are_independent(be):
    base = words_np(be, random_words(be, 1, 2, 8))
    for address in (dict(purpose=Purpose.TIEBREAK), dict(stream=1), dict(row_start=2)):
        other = words_np(be, random_words(be, 1, 2, 8, **address))
        assert not np.any(np.all(other == base, axis=1))


# -- unseeded draws --------------------------------------------------------------------------


def test_seed_none_gives_fresh_vectors(make_model, model_name):
    model = make_model(model_name, 1000)
    a, b = to_numpy(model, model.random()), to_numpy(model, model.random())
    assert not np.array_equal(a, b)
    A, B = to_numpy(model, model.random(3)), to_numpy(model, model.random(3))
    assert not np.array_equal(A, B)
    other = make_model(model_name, 1000)
    assert not np.array_equal(to_numpy(other, other.random()), a)


def test_model_seed_makes_unseeded_draws_reproducible(make_model, model_name):
    m1, m2 = make_model(model_name, 1000, seed=5), make_model(model_name, 1000, seed=5)
    assert m1.seed == 5
    seq1 = [to_numpy(m1, m1.random()), to_numpy(m1, m1.random(4)), to_numpy(m1, m1.random())]
    seq2 = [to_numpy(m2, m2.random()), to_numpy(m2, m2.random(4)), to_numpy(m2, m2.random())]
    for x, y in zip(seq1, seq2, strict=True):
        np.testing.assert_array_equal(x, y)
    # successive unseeded draws differ, and differ from the seeded draw random(seed=5)
    assert not np.array_equal(seq1[0], seq1[2])
    assert not np.array_equal(seq1[0], seq1[1][0])
    seeded = to_numpy(m1, m1.random(seed=5))
    for x in (seq1[0], seq1[1][0], seq1[2]):
        assert not np.array_equal(x, seeded)
    # seeded draws in between do not shift the unseeded sequence
    m3 = make_model(model_name, 1000, seed=5)
    first = to_numpy(m3, m3.random())
    m3.random(seed=1)
    np.testing.assert_array_equal(first, seq1[0])
    np.testing.assert_array_equal(to_numpy(m3, m3.random(4)), seq1[1])
    # another model seed gives another sequence
    m4 = make_model(model_name, 1000, seed=6)
    assert not np.array_equal(to_numpy(m4, m4.random()), seq1[0])


def test_bundle_ties_depend_only_on_model_seed(make_model, model_name):
    def even_bundle(model):
        items = model.random(4, seed=21)
        if model_name == "FHRR":  # phasors only tie when they cancel
            items = model.xp.concat([items[:2], -items[:2]], axis=0)
        return to_numpy(model, model.bundle(items))

    m1 = make_model(model_name, 1000, seed=5)
    m1.random()  # unseeded draws before do not matter
    m1.random(3)
    m2 = make_model(model_name, 1000, seed=5)
    b1 = even_bundle(m1)
    np.testing.assert_array_equal(b1, even_bundle(m2))
    np.testing.assert_array_equal(b1, even_bundle(m1))
    assert not np.array_equal(b1, even_bundle(make_model(model_name, 1000, seed=6)))
    # no model seed: ties are still deterministic (seed 0), never from a global RNG
    n1, n2 = make_model(model_name, 1000), make_model(model_name, 1000)
    np.testing.assert_array_equal(even_bundle(n1), even_bundle(n2))


# -- seed checking ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2**64, 2**128 - 1, np.uint64(2**64 - 1), np.int32(5)])
def test_check_seed_accepts(seed):
    out = check_seed(seed)
    assert type(out) is int and out == int(seed)


@pytest.mark.parametrize(
    ("seed", "error"),
    [
        (True, TypeError),
        (False, TypeError),
        (np.bool_(True), TypeError),
        (1.0, TypeError),
        (0.5, TypeError),
        (np.float64(3), TypeError),
        ("1", TypeError),
        (None, TypeError),
        (-1, ValueError),
        (np.int64(-3), ValueError),
        (2**128, ValueError),
        (2**200, ValueError),
    ],
)
def test_check_seed_rejects(seed, error):
    with pytest.raises(error, match="seed"):
        check_seed(seed)


@pytest.mark.parametrize(
    ("seed", "error"), [(True, TypeError), (1.5, TypeError), (-1, ValueError), (2**128, ValueError)]
)
def test_bad_seeds_rejected_by_the_api(seed, error):
    with pytest.raises(error, match="seed"):
        VSA.create("MAP", dim=100, seed=seed)
    model = VSA.create("MAP", dim=100)
    with pytest.raises(error, match="seed"):
        model.random(seed=seed)
    with pytest.raises(error, match="seed"):
        model.random(3, seed=seed)


def test_unseeded_encoders_of_a_seeded_model_are_reproducible_and_distinct():
    from holovec.encoders import FractionalPowerEncoder

    def two_encoders():
        model = VSA.create("FHRR", dim=256, seed=11)
        # bandwidth 20: z(1) is base**20, far from the identity that every base gives near 0
        return model, *(FractionalPowerEncoder(model, 0, 1, bandwidth=20) for _ in range(2))

    model, first, second = two_encoders()
    _, again, _ = two_encoders()
    assert first.seed == again.seed  # the same sequence in a new process or model
    assert first.seed != second.seed  # two encoders never share a base
    z1, z2 = first.encode(1.0), second.encode(1.0)
    assert abs(float(model.similarity(z1, z2))) < 0.3
    unseeded = VSA.create("FHRR", dim=256)
    assert FractionalPowerEncoder(unseeded, 0, 1).seed != FractionalPowerEncoder(unseeded, 0, 1).seed
