"""The encoders under hostile input: what an adversarial probe found, each case fixed and kept so.

- text, bytes, bools, complex numbers, ``None`` and object arrays are refused with
  ``TypeError`` (also as arrays of the backend); numbers too large for a float with
  ``ValueError``, never a raw ``OverflowError``.
- empty batches: empty in, empty out, on every backend and model.
- extreme finite settings: ranges wider than the largest float are computed
  without overflow, what cannot be represented is refused, NaN is never returned silently.
- ``SymbolCodebook.cleanup(k)`` checks ``k`` and orders ties by row.
- decoders given a list raise a clear ``TypeError``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import device_for, to_numpy
from holovec import VSA, kernels
from holovec.encoders import (
    FractionalPowerEncoder,
    GraphEncoder,
    ImageEncoder,
    LevelEncoder,
    NGramEncoder,
    PeriodicAngleEncoder,
    PositionBindingEncoder,
    RecordEncoder,
    ResidueEncoder,
    SymbolCodebook,
    SymbolTable,
    ThermometerEncoder,
    TrajectoryEncoder,
    VectorEncoder,
    VectorFPE,
)

DIM = 128


def numeric_encoders(make_model):
    """``(encoder, a valid input, an empty batch)`` for every encoder that takes numbers."""
    fhrr, mapm = make_model("FHRR", DIM), make_model("MAP", DIM)
    return [
        (FractionalPowerEncoder(fhrr, 0.0, 10.0, seed=1), [1.0, 2.0], np.zeros(0)),
        (VectorFPE(fhrr, 2, 0.0, 10.0, seed=1), [[1.0, 2.0]], np.zeros((0, 2))),
        (PeriodicAngleEncoder(fhrr, seed=1), [1.0, 2.0], np.zeros(0)),
        (ResidueEncoder(fhrr, (3, 5), seed=1), [1, 2], np.zeros(0)),
        (LevelEncoder(mapm, 0.0, 10.0, levels=8, seed=1), [1.0, 2.0], np.zeros(0)),
        (ThermometerEncoder(mapm, 0.0, 10.0, levels=8), [1.0, 2.0], np.zeros(0)),
        (ImageEncoder(mapm, (2, 2), levels=4, min_val=0.0, max_val=10.0, seed=1), [[1, 2], [3, 4]],
         np.zeros((0, 2, 2))),
        (VectorEncoder(mapm, 2, seed=1), [[1.0, 2.0]], np.zeros((0, 2))),
        (TrajectoryEncoder(mapm, 2, min_val=0.0, max_val=10.0, seed=1), [[1.0, 2.0], [2.0, 3.0]],
         np.zeros((0, 2, 2))),
    ]  # fmt: skip


def _like(good, value):
    """``value`` in the shape of the valid input ``good`` (every element replaced)."""
    shape = np.shape(good)
    return np.full(shape, value, dtype=np.asarray(value).dtype).tolist() if shape else value


# -- non-real input --------------------------------------------------------------


NOT_REAL = ["1.5", b"1", True, np.bool_(True), None, 1 + 2j, object(), bytearray(b"1")]


def test_issue_example_fpe_refuses_text_bytes_bools_and_complex(backend, make_model):
    fpe = FractionalPowerEncoder(make_model("FHRR", 256), 0.0, 10.0, seed=1)
    for bad in ("1.5", b"1", True, np.array([1 + 2j]), np.array([True]), [1.0, None]):
        with pytest.raises(TypeError, match="real numbers"):
            fpe.encode(bad)
    for huge in (10**400, [1, 10**400], -(10**309)):
        with pytest.raises(ValueError, match="fit a float"):
            fpe.encode(huge)


def test_every_numeric_encoder_refuses_what_is_not_real_numbers(backend, make_model):
    for encoder, good, _ in numeric_encoders(make_model):
        name = type(encoder).__name__
        encoder.encode(good)
        model = encoder.model
        candidates = [*NOT_REAL, np.asarray(good, dtype=object), np.asarray(good, dtype=bool)]
        candidates += [np.asarray(good) + 1j, np.asarray(good, dtype=str)]
        candidates += [model.backend.asarray(np.asarray(good, dtype=bool))]
        candidates += [model.backend.asarray(np.asarray(good, dtype=np.complex64))]
        candidates += [_like(good, None), np.ma.masked_array(np.asarray(good, dtype=float))]
        for bad in candidates:
            with pytest.raises(TypeError, match="real numbers"):
                encoder.encode(bad)
                pytest.fail(f"{name} accepted {bad!r}")
        with pytest.raises(ValueError, match="fit"):
            encoder.encode(_like(good, 10**400))


def test_values_are_unchanged_by_the_check(backend, make_model):
    """Ints, float32 and arrays of the backend encode as the same floats."""
    model = make_model("FHRR", DIM)
    fpe = FractionalPowerEncoder(model, 0.0, 10.0, seed=1)
    expected = to_numpy(model, fpe.encode([1.0, 2.0]))
    for same in ([1, 2], np.array([1, 2], dtype=np.int8), np.array([1.0, 2.0], dtype=np.float32),
                 model.backend.asarray(np.array([1, 2])), (1.0, 2.0)):  # fmt: skip
        np.testing.assert_array_equal(to_numpy(model, fpe.encode(same)), expected)


def test_values_too_large_for_the_backends_float(make_model, backend):
    """JAX computes in float32 (without x64): 1e39 does not fit; the error says so."""
    model = make_model("MAP", DIM)
    level = LevelEncoder(model, 0.0, 1.0, levels=4, seed=1, clip=True)
    wide = kernels.supports_dtype(model.backend, "float64")
    big = 1e300 if wide else 1e39
    if wide:
        assert to_numpy(model, level.level_index(big)).tolist() == 3  # clipped, as asked
    else:
        with pytest.raises(ValueError, match="fit the encoder's float32"):
            level.encode(big, clip=True)


# -- empty batches ------------------------------------------------------------


@pytest.mark.parametrize("name", ["FHRR", "HRR", "MAP", "BSC"])
def test_empty_batches_encode_and_decode_to_empty(backend, make_model, name):
    model = make_model(name, DIM)
    empty_vectors = model.random(1, seed=1)[:0]
    encoders = []
    if model.has_phasor_form:
        encoders += [
            (FractionalPowerEncoder(model, 0.0, 1.0, seed=1), np.zeros(0), (0,)),
            (VectorFPE(model, 2, 0.0, 1.0, seed=1), np.zeros((0, 2)), (0, 2)),
            (PeriodicAngleEncoder(model, seed=1), [], (0,)),
            (ResidueEncoder(model, (3, 5), seed=1), [], (0,)),
        ]
    if LevelEncoder.supports(model):
        encoders.append((LevelEncoder(model, 0.0, 1.0, levels=8, seed=1), [], (0,)))
    if ThermometerEncoder.supports(model):
        encoders.append((ThermometerEncoder(model, 0.0, 1.0, levels=8), [], (0,)))
    for encoder, empty, decoded in encoders:
        out = encoder.encode(empty)
        assert tuple(out.shape) == (0, model.vector_length), type(encoder).__name__
        model.check(out)
        assert tuple(encoder.decode(empty_vectors).shape) == decoded, type(encoder).__name__
    for method in ("exhaustive", "moduli") if model.has_phasor_form else ():
        assert tuple(encoders[3][0].decode(empty_vectors, method=method).shape) == (0,)
    others = [
        (ImageEncoder(model, (4, 4), levels=8, seed=1), np.zeros((0, 4, 4))),
        (TrajectoryEncoder(model, 2, seed=1), np.zeros((0, 3, 2))),
    ]
    if VectorEncoder.supports(model):
        others.append((VectorEncoder(model, 3, seed=1), np.zeros((0, 3))))
    for encoder, empty in others:
        assert tuple(encoder.encode(empty).shape) == (0, model.vector_length), type(encoder).__name__
    image = others[0][0]
    assert tuple(image.encode_levels(np.zeros((0, 4, 4), dtype=np.int64)).shape) == (0, model.vector_length)
    for encoder in (PositionBindingEncoder(model, seed=1), NGramEncoder(model, seed=1),
                    RecordEncoder(model, seed=1), GraphEncoder(model, seed=1)):  # fmt: skip
        assert tuple(encoder.encode_batch([]).shape) == (0, model.vector_length)
    table = SymbolTable(model, seed=1)
    assert tuple(table.encode([]).shape) == (0, model.vector_length)  # before any label
    table["a"]
    assert tuple(table.vectors([]).shape) == (0, model.vector_length)
    book = SymbolCodebook(model, "abcd", seed=1)
    assert book.cleanup(empty_vectors) == [] and book.cleanup(empty_vectors, k=2) == []
    assert PositionBindingEncoder(model, "abcd", seed=1).decode(empty_vectors) == []


def test_empty_batches_under_jax_jit():
    pytest.importorskip("jax")
    import jax
    import jax.numpy as jnp

    model = VSA.create("HRR", DIM, backend="jax", device=device_for("jax"))
    fpe = FractionalPowerEncoder(model, 0.0, 1.0, seed=1)
    assert jax.jit(fpe.encode)(jnp.zeros((0,))).shape == (0, DIM)
    for bad in (jnp.array([True]), jnp.array([1 + 2j])):
        with pytest.raises(TypeError, match="real numbers"):
            jax.jit(fpe.encode)(bad)


# -- extreme finite settings ------------------------------------------------------


def test_fpe_range_wider_than_the_largest_float(backend, make_model):
    model = make_model("FHRR", 1024)
    if not kernels.supports_dtype(model.backend, "float64"):  # float32: the ends do not fit
        with pytest.raises(ValueError, match="float32"):
            FractionalPowerEncoder(model, -1e308, 1e308, bandwidth=4.0, seed=1)
        return
    fpe = FractionalPowerEncoder(model, -1e308, 1e308, bandwidth=4.0, seed=1)
    x = np.array([-1e308, -5e307, 0.0, 5e307, 1e308])
    v = fpe.encode(x)
    sims = to_numpy(model, model.similarity_matrix(v, v))
    assert np.all(np.abs(sims - np.eye(len(x))) < 0.3)  # distinct values, distinct vectors
    np.testing.assert_allclose(to_numpy(model, fpe.decode(v)), x, atol=1e304)
    with pytest.raises(ValueError, match="finite period"):
        FractionalPowerEncoder(model, -1e308, 1e308, seed=1, kernel="periodic")


def test_fpe_settings_that_cannot_be_represented_are_refused(backend, make_model):
    model = make_model("FHRR", DIM)
    with pytest.raises(ValueError, match="bandwidth"):
        FractionalPowerEncoder(model, 0.0, 1.0, bandwidth=1e39, seed=1)  # phases beyond float32
    with pytest.raises(ValueError, match="bandwidth"):
        FractionalPowerEncoder(model, 0.0, 1.0, bandwidth=1e37, seed=1, kernel="laplace")
    with pytest.raises(ValueError, match="underflows to 0"):
        FractionalPowerEncoder(model, 0.0, 1e10, bandwidth=1e-320, seed=1)  # one vector for all
    with pytest.raises(ValueError, match="harmonics"):
        FractionalPowerEncoder(model, 0.0, 1.0, bandwidth=1e12, seed=1, kernel="periodic")
    with pytest.raises(ValueError, match="period"):
        PeriodicAngleEncoder(model, period=1e-320, seed=1)  # 1 / period overflows
    big = FractionalPowerEncoder(model, 0.0, 1.0, bandwidth=1e9, seed=1)
    v = big.encode([0.5])
    assert np.all(np.isfinite(to_numpy(model, v)))
    with pytest.raises(ValueError, match="resolution"):
        big.decode(v)  # 4e9 candidates: refused at once, not after allocating them
    assert tuple(big.decode(v, resolution=16).shape) == (1,)


def test_periodic_angles_beyond_the_floats_resolution(backend, make_model):
    """Beyond period / eps the floats are further apart than a period: the angle is lost
    (before: garbage phases, silently)."""
    model = make_model("FHRR", DIM)
    hours = PeriodicAngleEncoder(model, period=24.0, seed=1)
    with pytest.raises(ValueError, match="angles must lie within"):
        hours.encode([1.0, 1e30])
    wide = np.float64 if kernels.supports_dtype(model.backend, "float64") else np.float32
    assert hours.max_angle == 24.0 / np.finfo(wide).eps
    v = hours.encode([hours.max_angle, -hours.max_angle])
    assert np.all(np.isfinite(to_numpy(model, v)))


@pytest.mark.parametrize("encoder_class", [LevelEncoder, ThermometerEncoder])
def test_level_codes_over_a_range_wider_than_the_largest_float(backend, make_model, encoder_class):
    model = make_model("MAP", 256)
    if not kernels.supports_dtype(model.backend, "float64"):
        with pytest.raises(ValueError, match="does not fit"):
            encoder_class(model, -1e308, 1e308, levels=101)
        return
    enc = encoder_class(model, -1e308, 1e308, levels=101)
    index = to_numpy(model, enc.level_index([-1e308, -1e307, 0.0, 1e307, 1e308])).tolist()
    assert index == [0, 45, 50, 55, 100]
    table = to_numpy(model, enc.table)
    np.testing.assert_array_equal(to_numpy(model, enc.encode(1e308)), table[-1])
    np.testing.assert_array_equal(to_numpy(model, enc.encode(0.0)), table[50])
    values = to_numpy(model, enc.level_values)
    assert np.all(np.isfinite(values)) and values[0] == -1e308 and values[-1] == 1e308
    np.testing.assert_allclose(
        to_numpy(model, enc.decode(enc.encode([-1e308, 0.0, 1e308]))), [-1e308, 0.0, 1e308], atol=1e293
    )
    with pytest.raises(ValueError, match="largest float"):
        encoder_class(model, -1e308, 1e308, levels=2)  # the levels would be 2e308 apart
    with pytest.raises(ValueError, match="too close"):
        encoder_class(model, 0.0, 5e-324, levels=11)


def test_image_and_trajectory_ranges_wider_than_the_largest_float(backend, make_model):
    """Ranges whose width exceeds the largest float of the computation (float64; JAX's
    float32 for its values) quantise right (before: everything was level 0, or the top)."""
    model = make_model("MAP", 256)
    top = 1e308 if kernels.supports_dtype(model.backend, "float64") else 3e38
    image = ImageEncoder(model, (1, 3), levels=11, min_val=-top, max_val=top, seed=1)
    np.testing.assert_array_equal(image.quantize(np.array([[-top, top / 5, top]])), [[0, 6, 10]])
    path = TrajectoryEncoder(model, 1, min_val=-top, max_val=top, levels=11, method="level", seed=1)
    a, b = path.encode(np.array([0.0, top])), path.encode(np.array([-top, top]))
    assert float(model.similarity(a, b)) < 0.9
    with pytest.raises(ValueError, match="largest float"):
        ImageEncoder(model, (1, 3), levels=2, min_val=-1e308, max_val=1e308, seed=1)


@pytest.mark.parametrize("name", ["MAP", "MAP-C", "HRR", "FHRR", "BSC"])
def test_vector_encoder_never_gives_nan(backend, make_model, name):
    model = make_model(name, 256)
    enc = VectorEncoder(model, 3, seed=1)
    x = np.array([[1.0, 2.0, -1.0]])
    base = to_numpy(model, enc.encode(x))
    if model.element_kind != "phasor":  # scale-free: huge and tiny features encode alike
        for scale in (1e30, 1e-30):
            got = to_numpy(model, enc.encode(x * scale))
            assert np.all(np.isfinite(got))
            np.testing.assert_allclose(got, base, atol=1e-5)
    for overflowing in (np.array([[1e39, 0.0, 0.0]]), np.array([[3e38, 3e38, 3e38]])):
        with pytest.raises(ValueError, match=r"fit|overflows"):
            enc.encode(overflowing)
    with pytest.raises(ValueError, match="bandwidth"):
        VectorEncoder(model, 3, bandwidth=1e39, seed=1)
    with pytest.raises(TypeError, match="bandwidth"):
        VectorEncoder(model, 3, bandwidth="1", seed=1)


def test_decoders_refuse_vectors_holding_nan(backend, make_model):
    fhrr, mapm = make_model("FHRR", DIM), make_model("MAP", DIM)
    xp = fhrr.xp

    def with_nan(model, rows=3, bad=1):
        v = model.random(rows, seed=4)
        row = xp.reshape(xp.arange(rows, device=model.device) == bad, (rows, 1))
        return xp.where(row, xp.astype(xp.asarray(math.nan, device=model.device), model.dtype), v)

    fpe = FractionalPowerEncoder(fhrr, 0.0, 10.0, seed=1)
    level = LevelEncoder(mapm, 0.0, 10.0, levels=8, seed=1)
    residue = ResidueEncoder(fhrr, (3, 5), seed=1)
    book = SymbolCodebook(mapm, "abcd", seed=1)
    words = PositionBindingEncoder(mapm, "abcd", seed=1)
    records = RecordEncoder(mapm, seed=1)
    records.encode({"a": "x"})
    graph = GraphEncoder(mapm, seed=1)
    graph.encode([("a", "b")])
    calls = [
        lambda: fpe.decode(with_nan(fhrr)),
        lambda: residue.decode(with_nan(fhrr)),
        lambda: residue.decode(with_nan(fhrr), method="moduli"),
        lambda: level.decode(with_nan(mapm)),
        lambda: book.cleanup(with_nan(mapm)),
        lambda: words.decode(with_nan(mapm)),
        lambda: records.decode(with_nan(mapm), "a"),
    ]
    for call in calls:
        with pytest.raises(ValueError, match=r"NaN or infinity \(rows 1\)"):
            call()
    with pytest.raises(ValueError, match="NaN or infinity"):
        fpe.decode(with_nan(fhrr, 1, 0)[0])  # one vector: 0.0 before
    with pytest.raises(ValueError, match="NaN or infinity"):
        graph.neighbours(with_nan(mapm, 1, 0)[0], "a")  # [] before
    with pytest.raises(ValueError, match="filler of 'b'"):
        records.encode({"a": "x", "b": with_nan(mapm, 1, 0)[0]})  # a NaN record before


# -- cleanup(k) -------------------------------------------------------------------


def test_cleanup_checks_k(backend, make_model):
    book = SymbolCodebook(make_model("MAP", DIM), "abcdef", seed=1)
    q = book.vectors[2]
    for bad in (-1, 0):
        with pytest.raises(ValueError, match="k must be a positive int"):
            book.cleanup(q, k=bad)
    for bad in (2.5, True, "2", None):
        with pytest.raises(TypeError, match="k must be a positive int"):
            book.cleanup(q, k=bad)
    assert book.cleanup(q, k=np.int64(1)) == ("c", 1.0)
    assert len(book.cleanup(q, k=100)) == 6  # at most every label


def test_cleanup_orders_ties_by_row(backend, make_model):
    model = make_model("MAP", DIM)
    labels = [f"s{i}" for i in range(64)]
    book = SymbolCodebook(model, labels, seed=1)
    # rows 0..63 all equal to one vector but row 5 (an unrelated one): 63 ties
    same, other = model.random(2, seed=9)
    book.vectors = model.xp.where(
        model.xp.reshape(model.xp.arange(64, device=model.device) == 5, (64, 1)), other, same
    )
    top = book.cleanup(model.xp.stack([same, same]), k=20)
    expected = [f"s{i}" for i in range(64) if i != 5][:20]
    assert [[label for label, _ in row] for row in top] == [expected, expected]
    assert book.cleanup(same) == ("s0", 1.0)


# -- clear errors for a list where vectors are expected, and other parameters -------


def test_decoders_given_a_list_raise_type_error(backend, make_model):
    model = make_model("MAP", DIM)
    words = PositionBindingEncoder(model, symbols="abc", seed=1)
    with pytest.raises(TypeError, match="vectors: expected"):
        words.decode([1.0] * DIM)
    with pytest.raises(ValueError, match="one vector"):
        words.decode(model.random(4, seed=1)[None, ...])
    records = RecordEncoder(model, seed=1)
    records.encode({"a": "x"})
    with pytest.raises(TypeError, match="record: expected"):
        records.decode_all([0.0] * DIM)
    graph = GraphEncoder(model, seed=1)
    g = graph.encode([("a", "b")])
    with pytest.raises(TypeError, match="graph: expected"):
        graph.neighbours([0.0] * DIM, "a")
    with pytest.raises(TypeError, match="threshold"):
        graph.neighbours(g, "a", threshold="0.1")
    with pytest.raises(TypeError, match="threshold"):
        words.decode(words.encode("ab"), threshold="0.1")


def test_parameters_are_checked_like_everywhere_else(make_model, backend):
    model = make_model("MAP", DIM)
    # the deprecated value_range (it warns) is checked in its own words
    with pytest.warns(DeprecationWarning), pytest.raises(TypeError, match="value_range"):
        ImageEncoder(model, (2, 2), value_range=("0", "255"), seed=1)
    with pytest.warns(DeprecationWarning), pytest.raises(TypeError, match="value_range"):
        ImageEncoder(model, (2, 2), value_range=(True, 255), seed=1)
    with pytest.raises(TypeError, match="min_val"):
        ImageEncoder(model, (2, 2), min_val="0", seed=1)
    with pytest.raises(TypeError, match="max_val"):
        ImageEncoder(model, (2, 2), max_val=True, seed=1)
    with pytest.raises(TypeError, match="clip"):
        ImageEncoder(model, (2, 2), clip="yes", seed=1)
    with pytest.warns(DeprecationWarning), pytest.raises(TypeError, match="value ranges"):
        TrajectoryEncoder(model, 1, value_range=("0", "1"), seed=1)
    with pytest.raises(TypeError, match="min_val"):
        TrajectoryEncoder(model, 1, min_val="0", seed=1)
    with pytest.raises(TypeError, match="clip"):
        TrajectoryEncoder(model, 1, clip=1, seed=1)
    with pytest.raises(TypeError, match="directed"):
        GraphEncoder(model, directed="yes", seed=1)
    with pytest.raises(TypeError, match="cache"):
        SymbolTable(model, seed=1, cache="no")


def test_phase_encoders_pickle_and_encode_the_same():
    """FPE and residue encoders hold a phase codec (with the array namespace, a module):
    they pickle, and the copy encodes what the original does."""
    import pickle

    from holovec.encoders import FractionalPowerEncoder, ResidueEncoder

    model = VSA.create("FHRR", dim=128, backend="numpy")
    values = np.array([0.1, 0.5, 0.9])
    for enc in (
        FractionalPowerEncoder(model, 0.0, 1.0, seed=1),
        ResidueEncoder(model, moduli=(3, 5), seed=2),
    ):
        copy = pickle.loads(pickle.dumps(enc))
        x = values if isinstance(enc, FractionalPowerEncoder) else np.array([1, 7, 11])
        np.testing.assert_allclose(copy.encode(x), enc.encode(x), atol=1e-6)
