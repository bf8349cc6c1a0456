"""Scalar encoders: fractional power encodings (kernels, decode, multi-dimensional, periodic),
residue numbers, level and thermometer codes.

Kernels are checked against theory: for phases theta ~ p, E[similarity(z(x), z(y))] is the
characteristic function of p at beta * (x - y), within 4 / sqrt(D). JAX compiles each new
shape, so tests reuse a few shapes (dims 512 and 1024, batches of 9 and 33 values).
"""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest

from conftest import BACKENDS, device_for, to_numpy
from holovec import VSA
from holovec.encoders import (
    FractionalPowerEncoder,
    LevelEncoder,
    PeriodicAngleEncoder,
    ResidueEncoder,
    ThermometerEncoder,
    VectorFPE,
)

DIM = 512
KERNEL_DIM = 4096
PHASOR_MODELS = ["FHRR", "HRR"]
KERNELS = ["sinc", "gaussian", "laplace", "cauchy", "periodic"]
#: models (with options) that LevelEncoder supports
LEVEL_MODELS = [
    ("MAP", {}),
    ("MAP-C", {}),
    ("MAP-I", {}),
    ("BSC", {}),
    ("BSC", {"packed": True}),
    ("FHRR", {}),
    ("HRR", {}),
    ("HRR", {"unitary": True}),
    ("VTB", {}),
    ("GHRR", {}),
    ("BSDC-SEG", {}),
]
THERMOMETER_MODELS = [("MAP", {}), ("MAP-C", {}), ("MAP-I", {}), ("BSC", {}), ("BSC", {"packed": True}),
                      ("FHRR", {}), ("HRR", {}), ("VTB", {})]  # fmt: skip
INSTALLED = [b for b in BACKENDS if importlib.util.find_spec(b) is not None]


def model_id(entry) -> str:
    name, options = entry
    return name + "".join(f"-{k}" for k in options)


def np_(model, x) -> np.ndarray:
    out = to_numpy(model, x)
    return out.astype(np.complex128) if np.iscomplexobj(out) else out.astype(np.float64)


# -- FPE kernels against theory ----------------------------------------------------------------

#: the characteristic function of each kernel's phase distribution, at t = beta * distance
THEORY = {
    "sinc": lambda t: np.sinc(t),  # uniform on [-pi, pi): sin(pi t) / (pi t)
    "gaussian": lambda t: np.exp(-(t**2) / 2),  # N(0, 1)
    "laplace": lambda t: np.exp(-np.abs(t)),  # Cauchy(0, 1) phases
    "cauchy": lambda t: 1 / (1 + t**2),  # Laplace(0, 1) phases
}


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("model_name", PHASOR_MODELS)
def test_fpe_kernel_matches_characteristic_function(model_name, kernel):
    model = VSA.create(model_name, dim=KERNEL_DIM, backend="numpy")
    fpe = FractionalPowerEncoder(model, -5.0, 5.0, bandwidth=2.0, seed=11, kernel=kernel)
    x0 = 0.3
    offsets = np.linspace(-4.5, 4.5, 41)
    sims = np_(model, model.similarity(fpe.encode(x0), fpe.encode(x0 + offsets)))
    t = fpe.beta[0] * offsets
    if kernel == "periodic":  # period = the range (10): harmonics 1 .. floor(2 / 2) = 1
        expected = np.cos(2 * np.pi * offsets / 10.0)
    else:
        expected = THEORY[kernel](t)
    tolerance = 4 / math.sqrt(KERNEL_DIM)
    assert np.max(np.abs(sims - expected)) < tolerance
    # the encoder's own kernel() states the same expectation (HRR: plus its fixed frequencies)
    assert np.max(np.abs(fpe.kernel(offsets) - expected)) < 5 / KERNEL_DIM


def test_fpe_bandwidth_sets_the_kernel_width():
    """sinc: the first zero of the kernel is at (max_val - min_val) / bandwidth."""
    model = VSA.create("FHRR", dim=KERNEL_DIM, backend="numpy")
    for bandwidth in (1.0, 4.0):
        fpe = FractionalPowerEncoder(model, 0.0, 8.0, bandwidth=bandwidth, seed=2)
        width = 8.0 / bandwidth
        s = np_(model, model.similarity(fpe.encode(0.0), fpe.encode(np.array([0.0, width / 2, width]))))
        assert s[0] == pytest.approx(1, abs=1e-5)
        assert s[1] == pytest.approx(2 / np.pi, abs=0.06)  # sinc(1/2)
        assert abs(s[2]) < 0.06


def test_fpe_binding_adds_exponents(backend, make_model):
    for name in PHASOR_MODELS:
        model = make_model(name, DIM)
        fpe = FractionalPowerEncoder(model, 0.0, 10.0, bandwidth=3.0, seed=3)
        x, y = np.array([1.0, 2.5, 4.0]), np.array([3.0, 0.5, 6.0])
        bound = model.bind(fpe.encode(x), fpe.encode(y))
        np.testing.assert_allclose(np_(model, bound), np_(model, fpe.encode(x + y)), atol=2e-5)
        np.testing.assert_allclose(
            np_(model, model.unbind(bound, fpe.encode(y))), np_(model, fpe.encode(x)), atol=2e-5
        )


# -- FPE decode --------------------------------------------------------------------------------


@pytest.mark.parametrize("model_name", PHASOR_MODELS)
def test_fpe_decode_is_exact_on_encodings(backend, make_model, model_name):
    model = make_model(model_name, DIM)
    fpe = FractionalPowerEncoder(model, -2.0, 6.0, bandwidth=5.0, seed=4)
    x = np.linspace(-2.0, 6.0, 33) + np.r_[0.0, np.full(31, 0.0123), 0.0] * np.sin(np.arange(33))
    decoded = np_(model, fpe.decode(fpe.encode(x)))
    width = 8.0 / 5.0  # the kernel width: the first zero of the sinc
    # measured: about 1e-6 (float32 phases); required: far below the kernel width
    assert np.max(np.abs(decoded - x)) < 1e-4 * width
    one = fpe.decode(fpe.encode(2.0))
    assert tuple(one.shape) == () and float(one) == pytest.approx(2.0, abs=1e-4)


@pytest.mark.parametrize("kernel", KERNELS)
def test_fpe_decode_every_kernel_and_noise(kernel):
    model = VSA.create("FHRR", dim=2048, backend="numpy")
    fpe = FractionalPowerEncoder(model, 0.0, 10.0, bandwidth=4.0, seed=5, kernel=kernel)
    x = np.random.default_rng(0).uniform(0.0, 9.9, 100)
    clean = fpe.decode(fpe.encode(x))
    err = np.abs(clean - x)
    if kernel == "periodic":  # period = range: max_val decodes as min_val
        err = np.minimum(err, 10.0 - err)
    assert err.max() < 1e-4
    # a bundle of the encoding with two unrelated vectors (similarity about 0.58)
    noisy = model.bundle([fpe.encode(x), model.random(100, seed=1), model.random(100, seed=2)])
    err = np.abs(fpe.decode(noisy) - x)
    if kernel == "periodic":
        err = np.minimum(err, 10.0 - err)
    width = 10.0 / 4.0
    assert np.median(err) < 0.05 * width and err.max() < 0.25 * width


def test_fpe_decode_resolution_and_errors():
    model = VSA.create("HRR", dim=DIM, backend="numpy")
    fpe = FractionalPowerEncoder(model, 0.0, 1.0, bandwidth=2.0, seed=6)
    v = fpe.encode([0.2, 0.7])
    np.testing.assert_allclose(fpe.decode(v, resolution=40), [0.2, 0.7], atol=1e-5)
    with pytest.raises(ValueError, match="resolution"):
        fpe.decode(v, resolution=1)
    with pytest.raises(ValueError, match="shape"):
        fpe.decode(v[:, :100])
    with pytest.raises(TypeError, match="float32"):
        fpe.decode(v.astype(np.float64))


def test_fpe_decode_without_a_kept_table(monkeypatch):
    """Coarse grids too large to keep are searched chunk by chunk, with the same result."""
    from holovec.encoders import fpe_decode

    model = VSA.create("FHRR", dim=DIM, backend="numpy")
    x = np.linspace(0.0, 1.0, 9)
    kept = FractionalPowerEncoder(model, 0.0, 1.0, bandwidth=20.0, seed=6)
    expected = kept.decode(kept.encode(x))
    monkeypatch.setattr(fpe_decode, "TABLE_BYTES", 8 * DIM * 10)  # chunks of 10 candidates
    chunked = FractionalPowerEncoder(model, 0.0, 1.0, bandwidth=20.0, seed=6)
    np.testing.assert_allclose(chunked.decode(chunked.encode(x)), expected, atol=1e-9)
    np.testing.assert_allclose(expected, x, atol=1e-5)


def test_vector_fpe(backend, make_model):
    for name in PHASOR_MODELS:
        model = make_model(name, DIM)
        ssp = VectorFPE(model, 2, min_val=[0.0, -1.0], max_val=[1.0, 1.0], bandwidth=[3.0, 2.0], seed=7)
        points = np.array([[0.25, 0.5], [0.75, -0.25], [0.5, 0.0]])
        v = ssp.encode(points)
        assert tuple(v.shape) == (3, DIM)
        # the binding of the axes' encodings: same as an FPE per axis with the same phases
        x_axis = np.array([[0.25, -1.0], [0.75, -1.0], [0.5, -1.0]])
        y_axis = np.array([[0.0, 0.5], [0.0, -0.25], [0.0, 0.0]])
        bound = model.bind(ssp.encode(x_axis), ssp.encode(y_axis))
        np.testing.assert_allclose(np_(model, bound), np_(model, v), atol=2e-5)
        np.testing.assert_allclose(np_(model, ssp.decode(v)), points, atol=1e-4)
        assert tuple(ssp.decode(v[0]).shape) == (2,)
        # kernel: the product of the axes' sinc kernels
        s = np_(model, model.similarity(v[2], ssp.encode(np.array([[0.6, 0.3]]))))
        assert float(s[0]) == pytest.approx(ssp.kernel([0.1, 0.3]), abs=4 / math.sqrt(DIM))
    with pytest.raises(ValueError, match=r"shape \(\.\.\., 2\)"):
        ssp.encode([0.5, 0.5, 0.5])


# -- periodic ----------------------------------------------------------------------------------


def test_periodic_angle_encoder_wraps(backend, make_model):
    for name in PHASOR_MODELS:
        model = make_model(name, DIM)
        hours = PeriodicAngleEncoder(model, period=24.0, harmonics=6, seed=8)
        h = np.linspace(0.0, 24.0, 9)
        a, b, c = hours.encode(h), hours.encode(h + 24.0), hours.encode(h - 48.0)
        np.testing.assert_allclose(np_(model, a), np_(model, b), atol=1e-5)
        np.testing.assert_allclose(np_(model, a), np_(model, c), atol=1e-5)
        np.testing.assert_allclose(np_(model, a[0]), np_(model, a[-1]), atol=1e-5)  # 0 h == 24 h
        # similarity depends on the circular distance only: 23 h and 1 h are 2 h apart
        s = model.similarity(hours.encode(23.0), hours.encode(1.0))
        t = model.similarity(hours.encode(11.0), hours.encode(13.0))
        assert float(s) == pytest.approx(float(t), abs=1e-4)
        # binding adds angles modulo the period
        bound = model.bind(hours.encode(20.0), hours.encode(7.0))
        assert float(model.similarity(bound, hours.encode(3.0))) > 0.9999
        decoded = np_(model, hours.decode(hours.encode(h + 0.3)))
        assert np.all((decoded >= 0) & (decoded < 24.0))
        np.testing.assert_allclose(decoded, (h + 0.3) % 24.0, atol=1e-4)


def test_periodic_kernel_in_fpe():
    model = VSA.create("FHRR", dim=KERNEL_DIM, backend="numpy")
    fpe = FractionalPowerEncoder(model, 0.0, 360.0, bandwidth=16.0, seed=9, kernel="periodic")
    assert float(model.similarity(fpe.encode(0.0), fpe.encode(360.0))) > 0.9999  # the range wraps
    d = np.linspace(0, 360, 37)
    sims = np_(model, model.similarity(fpe.encode(0.0), fpe.encode(d)))
    expected = np.mean(np.cos(2 * np.pi * np.outer(d, np.arange(1, 9)) / 360.0), axis=1)  # K = 8
    assert np.max(np.abs(sims - expected)) < 4 / math.sqrt(KERNEL_DIM)
    shorter = FractionalPowerEncoder(model, 0.0, 10.0, bandwidth=4.0, seed=9, kernel="periodic", period=2.5)
    np.testing.assert_allclose(shorter.encode(1.0), shorter.encode(3.5), atol=1e-5)
    assert float(shorter.decode(shorter.encode(3.5))) == pytest.approx(1.0, abs=1e-4)  # in [0, 2.5)


# -- residue numbers ---------------------------------------------------------------------------


@pytest.mark.parametrize("model_name", PHASOR_MODELS)
def test_residue_round_trip_and_modular_addition(backend, make_model, model_name):
    model = make_model(model_name, DIM)
    rns = ResidueEncoder(model, moduli=(3, 5, 7), seed=10)
    assert rns.modulus == 105
    x = np.arange(105)
    codes = rns.encode(x)
    for method in ("exhaustive", "moduli"):
        np.testing.assert_array_equal(to_numpy(model, rns.decode(codes, method=method)), x)
    rng = np.random.default_rng(1)
    a, b = rng.integers(0, 105, 33), rng.integers(0, 105, 33)
    total = model.bind(rns.encode(a), rns.encode(b))
    np.testing.assert_allclose(np_(model, total), np_(model, rns.encode((a + b) % 105)), atol=3e-5)
    for method in ("exhaustive", "moduli"):
        np.testing.assert_array_equal(to_numpy(model, rns.decode(total, method=method)), (a + b) % 105)
    # distinct residues are orthogonal in expectation; equal ones identical
    sims = np_(model, model.similarity(codes[0], codes))
    assert sims[0] == pytest.approx(1, abs=1e-5) and np.max(np.abs(sims[1:])) < 5 / math.sqrt(DIM)
    assert int(rns.decode(codes[42])) == 42 and tuple(rns.decode(codes[42]).shape) == ()


def test_residue_decode_large_and_noisy():
    model = VSA.create("FHRR", dim=1024, backend="numpy")
    big = ResidueEncoder(model, moduli=(7, 11, 13, 15, 16), seed=1)  # 240,240 codes: per-modulus search
    x = np.random.default_rng(2).integers(0, big.modulus, 33)
    np.testing.assert_array_equal(big.decode(big.encode(x)), x)
    small = ResidueEncoder(model, moduli=(3, 5, 7, 11), seed=1)  # 1,155 codes: exhaustive search
    x = x % small.modulus
    noisy = model.bundle([small.encode(x), model.random(33, seed=3), model.random(33, seed=4)])
    np.testing.assert_array_equal(small.decode(noisy), x)


def test_residue_errors():
    model = VSA.create("FHRR", dim=DIM, backend="numpy")
    with pytest.raises(ValueError, match="coprime"):
        ResidueEncoder(model, moduli=(4, 6))
    with pytest.raises(ValueError, match=">= 2"):
        ResidueEncoder(model, moduli=(1, 3))
    with pytest.raises(TypeError, match="sequence"):
        ResidueEncoder(model, moduli=5)
    rns = ResidueEncoder(model, moduli=(3, 5), seed=1)
    with pytest.raises(ValueError, match="integers"):
        rns.encode(2.5)
    with pytest.raises(ValueError, match=r"\[0, 14\]"):
        rns.encode(15)
    np.testing.assert_array_equal(rns.encode([15, -3], clip=True), rns.encode([14, 0]))
    with pytest.raises(ValueError, match="method"):
        rns.decode(rns.encode(3), method="resonator")


# -- level and thermometer codes ---------------------------------------------------------------


@pytest.mark.parametrize("entry", LEVEL_MODELS, ids=model_id)
def test_level_similarity_falls_with_distance(entry):
    name, options = entry
    model = VSA.create(name, dim=1024, backend="numpy", **options)
    enc = LevelEncoder(model, 0.0, 1.0, levels=17, seed=12)
    table = enc.table
    sims = np_(model, model.similarity_matrix(table, table))
    assert np.all(np.abs(np.diag(sims) - 1) < 1e-5)
    for i in range(17):  # along every row, similarity falls strictly with the distance
        assert np.all(np.diff(sims[i, i:]) < 0) and np.all(np.diff(sims[i, : i + 1]) > 0)
    assert abs(sims[0, -1]) < 0.1  # the ends about orthogonal
    assert sims[0, 1] > 0.9  # neighbours similar
    # about linear: level i vs 0 is 1 - i / 16
    np.testing.assert_allclose(sims[0], 1 - np.arange(17) / 16, atol=0.1)


def test_level_encode_decode(backend, make_model):
    model = make_model("MAP", 1024)
    enc = LevelEncoder(model, -1.0, 1.0, levels=9, seed=13)
    x = np.linspace(-1.0, 1.0, 33)
    v = enc.encode(x)
    index = np.round((x + 1) * 4).astype(int)
    np.testing.assert_array_equal(np_(model, v), np_(model, enc.table)[index])
    np.testing.assert_allclose(np_(model, enc.decode(v)), -1 + index / 4, atol=1e-12)
    # flips: level i differs from level 0 in exactly round(i * 512 / 8) elements
    sims = np_(model, model.similarity(enc.table[0], enc.table))
    np.testing.assert_allclose(sims, 1 - 2 * np.round(np.arange(9) * 64) / 1024)
    assert tuple(enc.encode(0.5).shape) == (1024,)
    assert float(enc.decode(enc.encode(0.3))) == pytest.approx(0.25)


@pytest.mark.parametrize("entry", THERMOMETER_MODELS, ids=model_id)
def test_thermometer_is_monotone(entry):
    name, options = entry
    model = VSA.create(name, dim=1024, backend="numpy", **options)
    enc = ThermometerEncoder(model, 0.0, 8.0, levels=9)
    sims = np_(model, model.similarity_matrix(enc.table, enc.table))
    distance = np.abs(np.subtract.outer(np.arange(9), np.arange(9)))
    np.testing.assert_allclose(sims, 1 - 2 * distance / 8, atol=1e-5)  # exactly linear
    x = np.array([0.0, 2.4, 2.6, 8.0])
    np.testing.assert_allclose(enc.decode(enc.encode(x)), [0.0, 2.0, 3.0, 8.0])


def test_level_and_thermometer_errors():
    model = VSA.create("MAP", dim=64, backend="numpy")
    with pytest.raises(ValueError, match="levels"):
        LevelEncoder(model, 0.0, 1.0, levels=40)  # 32 flips for 39 steps
    with pytest.raises(ValueError, match="levels"):
        LevelEncoder(model, 0.0, 1.0, levels=1)
    with pytest.raises(TypeError, match="not both"):
        LevelEncoder(model, 0.0, 1.0, levels=5, n_levels=5)
    assert LevelEncoder(model, 0.0, 1.0, n_levels=5, seed=1).levels == 5  # HoloVec's name
    assert ThermometerEncoder(model, 0.0, 1.0, n_bins=7).levels == 7
    with pytest.raises(ValueError, match="min_val must be below max_val"):
        LevelEncoder(model, 1.0, 1.0)
    for cls in (LevelEncoder, ThermometerEncoder):
        with pytest.raises(TypeError, match=r"supports the models .*MAP"):
            cls(VSA.create("BSDC", dim=256, backend="numpy"), 0.0, 1.0, levels=4)
    with pytest.raises(TypeError, match="supports the models"):
        ThermometerEncoder(VSA.create("GHRR", dim=256, backend="numpy"), 0.0, 1.0)


# -- bad input, clipping, unsupported models ---------------------------------------------------


def all_encoders(model):
    """One of each encoder on ``model`` (FHRR), with the range [0, 10]."""
    return [
        FractionalPowerEncoder(model, 0.0, 10.0, bandwidth=3.0, seed=1),
        VectorFPE(model, 2, 0.0, 10.0, seed=1),
        LevelEncoder(model, 0.0, 10.0, levels=11, seed=1),
        ThermometerEncoder(model, 0.0, 10.0, levels=11),
        ResidueEncoder(model, moduli=(2, 5), seed=1),  # 0 .. 9
    ]


def test_nan_infinity_and_out_of_range_raise(backend, make_model):
    model = make_model("FHRR", 256)
    for enc in all_encoders(model):
        good = [1.0, 2.0] if isinstance(enc, VectorFPE) else 1.0
        assert tuple(enc.encode(good).shape) == (256,)
        for bad in (math.nan, math.inf, -math.inf):
            value = [bad, 1.0] if isinstance(enc, VectorFPE) else [1.0, bad]
            with pytest.raises(ValueError, match="finite"):
                enc.encode(value)
        value = [[1.0, 2.0], [11.0, 1.0]] if isinstance(enc, VectorFPE) else [1.0, 11.0]
        with pytest.raises(ValueError, match="clip=True"):
            enc.encode(value)
        below = [[-1.0, 2.0]] if isinstance(enc, VectorFPE) else [-1.0]
        with pytest.raises(ValueError, match="must lie in"):
            enc.encode(below)
        # clip=True clips
        if isinstance(enc, VectorFPE):
            over, clipped = [[11.0, 2.0], [-1.0, 2.0]], [[10.0, 2.0], [0.0, 2.0]]
        else:
            over, clipped = [11.0, -1.0], [9.0 if isinstance(enc, ResidueEncoder) else 10.0, 0.0]
        np.testing.assert_allclose(
            np_(model, enc.encode(over, clip=True)), np_(model, enc.encode(clipped)), atol=1e-6
        )
    clipping = FractionalPowerEncoder(model, 0.0, 10.0, seed=1, clip=True)  # for every call
    np.testing.assert_allclose(
        np_(model, clipping.encode(12.0)), np_(model, clipping.encode(10.0)), atol=1e-6
    )
    with pytest.raises(ValueError, match="must lie in"):
        clipping.encode(12.0, clip=False)
    angles = PeriodicAngleEncoder(model, period=2 * math.pi, seed=1)
    angles.encode([100.0, -7.0])  # every finite angle is valid
    with pytest.raises(ValueError, match="finite"):
        angles.encode([0.0, math.nan])
    with pytest.raises(TypeError, match="numbers"):
        angles.encode("north")


def test_constructor_errors():
    model = VSA.create("FHRR", dim=64, backend="numpy")
    with pytest.raises(ValueError, match="kernel must be one of"):
        FractionalPowerEncoder(model, 0.0, 1.0, kernel="student")
    with pytest.raises(ValueError, match="bandwidth must be positive"):
        FractionalPowerEncoder(model, 0.0, 1.0, bandwidth=0.0)
    with pytest.raises(ValueError, match="min_val must be below"):
        FractionalPowerEncoder(model, 2.0, 1.0)
    with pytest.raises(ValueError, match="finite"):
        FractionalPowerEncoder(model, 0.0, math.inf)
    with pytest.raises(ValueError, match="period is an option of kernel='periodic'"):
        FractionalPowerEncoder(model, 0.0, 1.0, period=2.0)
    with pytest.raises(ValueError, match="one per axis"):
        VectorFPE(model, 3, min_val=[0.0, 0.0], max_val=1.0)
    with pytest.raises(ValueError, match="harmonics"):
        PeriodicAngleEncoder(model, harmonics=0)
    with pytest.raises(TypeError, match="seed"):
        FractionalPowerEncoder(model, 0.0, 1.0, seed=1.5)
    for name in ("MAP", "BSC", "VTB", "GHRR"):
        other = VSA.create(name, dim=64, backend="numpy")
        for make in (
            lambda m: FractionalPowerEncoder(m, 0.0, 1.0),
            lambda m: PeriodicAngleEncoder(m),
            lambda m: ResidueEncoder(m),
        ):
            with pytest.raises(TypeError, match=f"supports the models FHRR, HRR; got a {name} model"):
                make(other)


# -- batches, seeds, backends, jit -------------------------------------------------------------


def each_encoder(model):
    """(encoder, a batch of 9 valid inputs) for every encoder that ``model`` supports."""
    x = np.linspace(0.0, 8.0, 9)
    out = []
    if model.name in ("FHRR", "HRR"):
        for kernel in KERNELS:
            out.append((FractionalPowerEncoder(model, 0.0, 8.0, bandwidth=3.0, seed=21, kernel=kernel), x))
        points = np.stack([x, 8.0 - x], axis=-1)
        out.append((VectorFPE(model, 2, 0.0, 8.0, bandwidth=2.0, seed=22), points))
        out.append((PeriodicAngleEncoder(model, period=5.0, harmonics=4, seed=23), x))
        out.append((ResidueEncoder(model, moduli=(4, 9), seed=24), np.arange(0, 36, 4)))
    out.append((LevelEncoder(model, 0.0, 8.0, levels=9, seed=25), x))
    if model.name != "GHRR":
        out.append((ThermometerEncoder(model, 0.0, 8.0, levels=9), x))
    return out


@pytest.mark.parametrize("model_name", ["FHRR", "HRR", "MAP", "BSC"])
def test_batches_equal_per_item(backend, make_model, model_name):
    model = make_model(model_name, DIM)
    encoders = each_encoder(model)
    if backend == "jax":  # JAX compiles every encoder for every shape: one of each class
        encoders = list({type(enc): (enc, values) for enc, values in reversed(encoders)}.values())
    for enc, values in encoders:
        batch = np_(model, enc.encode(values))
        assert batch.shape == (9, model.vector_length)
        single = np.stack([np_(model, enc.encode(v)) for v in values])
        np.testing.assert_allclose(batch, single, atol=1e-6, err_msg=repr(enc))
        grid = np_(model, enc.encode(np.stack([values, values])))  # any batch shape
        assert grid.shape == (2, 9, model.vector_length)
        np.testing.assert_allclose(grid[1], batch, atol=1e-6)
        if getattr(enc, "kernel_name", "sinc") in ("sinc", "periodic"):  # one decode of each kind
            decoded = to_numpy(model, enc.decode(enc.encode(values)))
            singles = np.stack([to_numpy(model, enc.decode(enc.encode(v))) for v in values])
            np.testing.assert_allclose(decoded, singles, atol=1e-5, err_msg=repr(enc))


@pytest.mark.skipif(len(INSTALLED) < 2, reason="needs a second backend")
@pytest.mark.parametrize("model_name", ["FHRR", "HRR", "MAP", "BSC"])
def test_same_seed_same_encodings_on_every_backend(model_name):
    reference = None
    for backend in INSTALLED:
        model = VSA.create(model_name, dim=DIM, backend=backend, device=device_for(backend))
        encoded = [np_(model, enc.encode(values)) for enc, values in each_encoder(model)]
        if reference is None:
            reference = encoded
            continue
        for got, want in zip(encoded, reference, strict=True):
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-6)
    # a different seed gives different phases
    model = VSA.create(model_name, dim=DIM, backend="numpy")
    if model_name in ("FHRR", "HRR"):
        # (z(x) = base ** u: for u = 8 two bases have expected similarity sinc(8)**2 = 0)
        a = FractionalPowerEncoder(model, 0.0, 1.0, bandwidth=8.0, seed=1).encode(1.0)
        b = FractionalPowerEncoder(model, 0.0, 1.0, bandwidth=8.0, seed=2).encode(1.0)
        assert abs(float(model.similarity(a, b))) < 0.2


def test_jax_jit_encode_equals_eager():
    jax = pytest.importorskip("jax")
    for name in [*PHASOR_MODELS, "MAP"]:
        model = VSA.create(name, dim=DIM, backend="jax", device=device_for("jax"))
        for enc, values in each_encoder(model):
            x = jax.numpy.asarray(values, dtype=jax.numpy.float32)
            eager = enc.encode(x)
            jitted = jax.jit(enc.encode)(x)
            np.testing.assert_allclose(np_(model, jitted), np_(model, eager), atol=2e-6, err_msg=repr(enc))
    # clip=True clips under tracing too
    fpe = FractionalPowerEncoder(
        VSA.create("FHRR", dim=DIM, backend="jax", device=device_for("jax")), 0.0, 1.0, seed=1
    )
    x = jax.numpy.asarray([-1.0, 0.5, 2.0])
    np.testing.assert_allclose(
        np.asarray(jax.jit(lambda v: fpe.encode(v, clip=True))(x)),
        np.asarray(fpe.encode([0.0, 0.5, 1.0])),
        atol=2e-6,
    )


def test_repr_and_kernel_names():
    model = VSA.create("FHRR", dim=256, backend="numpy")
    fpe = FractionalPowerEncoder(model, 0.0, 1.0, kernel="Laplace", seed=3)
    assert fpe.kernel_name == "laplace" and "kernel='laplace'" in repr(fpe) and "seed=3" in repr(fpe)
    assert "n_features=2" in repr(VectorFPE(model, 2, 0.0, 1.0, seed=1))
    assert "moduli=(5, 7)" in repr(ResidueEncoder(model, (5, 7), seed=1))
    assert "moduli" not in repr(ResidueEncoder(model, seed=1))  # the default is left out
    assert repr(FractionalPowerEncoder(model, 0, 10, bandwidth=4, seed=1)) == (
        f"FractionalPowerEncoder({model!r}, min_val=0, max_val=10, bandwidth=4, seed=1)"
    )
    periodic = FractionalPowerEncoder(model, 0, 10, kernel="periodic", period=5, clip=True, seed=1)
    assert "kernel='periodic', period=5, clip=True, seed=1)" in repr(periodic)
    assert "levels=100" in repr(LevelEncoder(model, 0.0, 1.0, seed=1))
    assert "harmonics=[1, 2, 3]" in repr(PeriodicAngleEncoder(model, seed=1))
