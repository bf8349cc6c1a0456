"""The public API of the design page (docs/design.rst): creating models, their properties,
native vector types, dtype and device options, conversion between backends, and a light
``import holovec``."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

import holovec
from conftest import device_for, to_numpy
from holovec import VSA
from holovec.models import BSC, FHRR, MAP

D = 128
BACKENDS = ["numpy", "torch", "jax"]
MODEL_CLASSES = {"FHRR": FHRR, "MAP": MAP, "BSC": BSC}
DEFAULT_DTYPES = {"FHRR": "complex64", "MAP": "float32", "BSC": "uint8"}
# (is_self_inverse, is_commutative, is_exact_inverse)
ALGEBRA_FLAGS = {"FHRR": (False, True, True), "MAP": (True, True, True), "BSC": (True, True, True)}


def _installed(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


def _gpu_present() -> bool:
    if _installed("torch"):
        import torch

        if torch.cuda.is_available():
            return True
    if _installed("jax"):
        import jax

        if jax.default_backend() != "cpu":
            return True
    return False


def native_array_type(backend: str) -> type:
    if backend == "numpy":
        return np.ndarray
    if backend == "torch":
        import torch

        return torch.Tensor
    import jax

    return jax.Array


def native_dtype(backend: str, name: str):
    if backend == "numpy":
        return np.dtype(name)
    if backend == "torch":
        import torch

        return getattr(torch, name)
    import jax.numpy as jnp

    return jnp.dtype(name)


def assert_native(backend: str, x, what: str = "") -> None:
    """``x`` is the framework's own array: not a wrapper, not a subclass such as a Parameter."""
    if backend == "jax":
        import jax

        assert isinstance(x, jax.Array), (what, type(x))
    else:
        assert type(x) is native_array_type(backend), (what, type(x))


def assert_on_cpu(backend: str, x) -> None:
    if backend == "torch":
        assert x.device.type == "cpu"
    elif backend == "jax":
        assert {d.platform for d in x.devices()} == {"cpu"}


@pytest.fixture
def clean_env(monkeypatch):
    """No HOLOVEC_BACKEND (tox sets one per environment)."""
    monkeypatch.delenv("HOLOVEC_BACKEND", raising=False)
    return monkeypatch


# -- creating models ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spelling", "name"),
    [("fhrr", "FHRR"), ("Fhrr", "FHRR"), ("Map", "MAP"), ("map", "MAP"), ("bsc", "BSC"), ("BSC", "BSC")],
)
def test_create_is_case_insensitive(make_model, spelling, name):
    model = make_model(spelling, dim=D)
    assert type(model) is MODEL_CLASSES[name]
    assert model.name == name


def test_available_models():
    names = VSA.available_models()
    assert isinstance(names, list)
    assert all(isinstance(n, str) for n in names)
    assert {"FHRR", "MAP", "BSC"} <= set(names)
    for name in names:  # every listed name can be created (1024 = 32**2 suits every model's shape rules)
        assert VSA.create(name, dim=1024, backend="numpy").name == name


@pytest.mark.skipif(not _installed("torch"), reason="torch not installed")
@pytest.mark.parametrize("alias", ["pytorch", "PyTorch", "torch", "Torch"])
def test_backend_alias_pytorch(alias):
    import torch

    model = VSA.create("MAP", dim=D, backend=alias, device="cpu")
    assert model.backend.name == "torch"
    assert isinstance(model.random(seed=1), torch.Tensor)


def test_backend_names_case_insensitive(clean_env):
    assert VSA.create("MAP", dim=D, backend="NumPy").backend.name == "numpy"


def test_backend_none_defaults_to_numpy(clean_env):
    model = VSA.create("MAP", dim=D)
    assert model.backend.name == "numpy"
    assert type(model.random(seed=1)) is np.ndarray
    assert holovec.get_backend().name == "numpy"


def test_backend_none_empty_env_defaults_to_numpy(clean_env):
    clean_env.setenv("HOLOVEC_BACKEND", "")
    assert VSA.create("MAP", dim=D).backend.name == "numpy"


def test_backend_none_honours_environment(clean_env, backend):
    clean_env.setenv("HOLOVEC_BACKEND", backend)
    model = VSA.create("MAP", dim=D, device="cpu")
    assert model.backend.name == backend
    assert_native(backend, model.random(seed=1))


@pytest.mark.skipif(not _installed("torch"), reason="torch not installed")
def test_environment_accepts_alias(clean_env):
    clean_env.setenv("HOLOVEC_BACKEND", "pytorch")
    assert VSA.create("MAP", dim=D, device="cpu").backend.name == "torch"


def test_explicit_backend_beats_environment(clean_env):
    clean_env.setenv("HOLOVEC_BACKEND", "no-such-backend")
    assert VSA.create("MAP", dim=D, backend="numpy").backend.name == "numpy"


def test_backend_auto_on_cpu_is_numpy(clean_env):
    if _gpu_present():
        pytest.skip("a GPU is present: auto picks a GPU framework")
    for spelling in ("auto", "AUTO"):
        model = VSA.create("MAP", dim=D, backend=spelling)
        assert model.backend.name == "numpy"


def test_backend_object(backend):
    b = holovec.get_backend(backend, device=device_for(backend))
    assert isinstance(b, holovec.Backend)
    assert b.name == backend
    model = VSA.create("MAP", dim=D, backend=b)
    assert model.backend == b
    assert model.backend.name == backend
    assert_native(backend, model.random(seed=1))


def test_backend_object_numpy():
    b = holovec.get_backend("numpy")
    model = VSA.create("FHRR", dim=D, backend=b)
    assert model.backend is b
    assert float(model.similarity(model.random(seed=1), model.random(seed=1))) == pytest.approx(1.0, abs=1e-6)


def test_available_backends():
    names = holovec.available_backends()
    assert isinstance(names, list)
    assert "numpy" in names
    for framework in ("torch", "jax", "dask"):
        assert (framework in names) == _installed(framework), (framework, names)
    assert set(names) <= {*BACKENDS, "dask"}  # dask: its own tests (test_dask_backend.py)


# -- properties ---------------------------------------------------------------------------------


def test_properties(make_model, model_name, backend):
    model = make_model(model_name, dim=D)
    assert model.dim == D
    assert isinstance(model.dim, int)
    assert model.dtype == native_dtype(backend, DEFAULT_DTYPES[model_name])
    assert model.dtype == model.backend.dtype(DEFAULT_DTYPES[model_name])
    assert model.backend.name == backend
    assert model.name == model_name
    assert (model.is_self_inverse, model.is_commutative, model.is_exact_inverse) == ALGEBRA_FLAGS[model_name]


def test_dtype_is_the_backends_dtype_object(make_model, backend):
    dtype = make_model("MAP", dim=D).dtype
    if backend == "torch":
        import torch

        assert isinstance(dtype, torch.dtype) and dtype == torch.float32
    else:
        assert isinstance(dtype, np.dtype) and dtype == np.float32


def test_device_property(make_model, backend):
    device = make_model("MAP", dim=D).device
    if backend == "numpy":
        assert device == "cpu"
    elif backend == "torch":
        import torch

        assert isinstance(device, torch.device) and device.type == "cpu"
    else:
        import jax

        assert isinstance(device, jax.Device) and device.platform == "cpu"


def test_algebra_flags_are_class_level(model_name):
    assert (
        MODEL_CLASSES[model_name].is_self_inverse,
        MODEL_CLASSES[model_name].is_commutative,
        MODEL_CLASSES[model_name].is_exact_inverse,
    ) == ALGEBRA_FLAGS[model_name]


def test_repr(make_model, model_name, backend):
    text = repr(make_model(model_name, dim=D))
    assert text.startswith(model_name)
    assert f"dim={D}" in text
    assert repr(backend) in text or backend in text
    assert DEFAULT_DTYPES[model_name] in text
    assert "cpu" in text


def test_every_encoder_has_a_short_repr_of_its_model_and_parameters():
    # one repr, in the encoders' base class, from the signature of __init__: the model, the
    # parameters without a default or not at it, and the seed
    import holovec.encoders as E

    fhrr, bits = VSA.create("FHRR", dim=64), VSA.create("MAP", dim=64)
    made = {
        E.FractionalPowerEncoder: E.FractionalPowerEncoder(fhrr, 0, 10, bandwidth=4, seed=1),
        E.VectorFPE: E.VectorFPE(fhrr, 2, 0.0, 1.0, seed=1),
        E.PeriodicAngleEncoder: E.PeriodicAngleEncoder(fhrr, period=3.0, seed=1),
        E.ResidueEncoder: E.ResidueEncoder(fhrr, (5, 7), seed=1),
        E.LevelEncoder: E.LevelEncoder(bits, 0, 1, 10, seed=1),
        E.ThermometerEncoder: E.ThermometerEncoder(bits, 0, 1, 10, clip=True, seed=1),
        E.ImageEncoder: E.ImageEncoder(bits, (4, 4), seed=1),
        E.NGramEncoder: E.NGramEncoder(bits, 2, list("abc"), seed=1),
        E.PositionBindingEncoder: E.PositionBindingEncoder(bits, method="bind", seed=1),
        E.TrajectoryEncoder: E.TrajectoryEncoder(fhrr, 2, min_val=0, max_val=5, seed=1),
        E.SinusoidEncoder: E.SinusoidEncoder(fhrr, 4, seed=1),
        E.VectorEncoder: E.VectorEncoder(fhrr, 3, bandwidth=2.0, seed=1),
        E.GraphEncoder: E.GraphEncoder(bits, directed=True, seed=1),
        E.RecordEncoder: E.RecordEncoder(bits, roles=["a", "b"], seed=1),
        E.SymbolTable: E.SymbolTable(bits, seed=1, namespace="x"),
    }
    public = {getattr(E, n) for n in E.__all__ if isinstance(getattr(E, n), type)}
    assert {c for c in public if issubclass(c, E.Encoder) and c is not E.Encoder} <= set(made)
    for cls, enc in made.items():
        text = repr(enc)
        assert text.startswith(f"{cls.__name__}({enc.model!r}, ") and text.endswith(", seed=1)"), text
        assert len(text) < 200 and "array(" not in text and "<" not in text, text
    shown = {cls: repr(enc).split(", ", 4)[-1] for cls, enc in made.items()}  # after the model
    assert repr(made[E.FractionalPowerEncoder]) == (
        f"FractionalPowerEncoder({fhrr!r}, min_val=0, max_val=10, bandwidth=4, seed=1)"
    )
    assert "n_features=2, min_val=[0, 0], max_val=[1, 1]" in repr(made[E.VectorFPE])
    assert "period=3" in shown[E.PeriodicAngleEncoder] and "moduli=(5, 7)" in shown[E.ResidueEncoder]
    assert "levels=10, clip=True" in repr(made[E.ThermometerEncoder])
    assert "symbols=SymbolCodebook(3 labels)" in repr(made[E.NGramEncoder])
    assert "method='bind'" in repr(made[E.PositionBindingEncoder])
    assert "n_features=2, min_val=[0, 0], max_val=[5, 5]" in repr(made[E.TrajectoryEncoder])
    assert "n_features=3, bandwidth=2" in repr(made[E.VectorEncoder])
    assert "directed=True" in repr(made[E.GraphEncoder])
    # the tables that a default of None makes are the encoder's seed: left out; given ones shown
    assert "roles=SymbolCodebook(2 labels), seed=1)" in repr(made[E.RecordEncoder])
    assert "fillers" not in repr(made[E.RecordEncoder])
    assert "namespace='x'" in repr(made[E.SymbolTable]) and "cache" not in repr(made[E.SymbolTable])

    class Scaled(E.Encoder):  # a user's encoder has one too
        def __init__(self, model, factor=1.0, *, seed=None):
            super().__init__(model, seed=seed)
            self.factor = factor

    assert repr(Scaled(bits, 2.5, seed=3)) == f"Scaled({bits!r}, factor=2.5, seed=3)"


# -- vectors are native arrays ------------------------------------------------------------------


def test_vectors_are_native_arrays(make_model, model_name, backend):
    model = make_model(model_name, dim=D)
    a, B = model.random(seed=1), model.random(5, seed=2)
    results = {
        "random": a,
        "random(n)": B,
        "bind": model.bind(a, B[0]),
        "bind batch": model.bind(a, B),
        "unbind": model.unbind(a, B[0]),
        "bundle": model.bundle([a, B[0], B[1]]),
        "bundle array": model.bundle(B),
        "permute": model.permute(a, shift=3),
        "inverse": model.inverse(a),
        "identity": model.identity(),
        "normalize": model.normalize(a),
        "similarity": model.similarity(a, B[0]),
        "similarity batch": model.similarity(a, B),
        "similarity_matrix": model.similarity_matrix(B[:2], B),
    }
    for what, x in results.items():
        if what != "similarity":  # checked in test_similarity_of_two_vectors_is_0d_array
            assert_native(backend, x, what)
        assert_on_cpu(backend, x)
    for what in ("random", "bind", "unbind", "bundle", "permute", "inverse", "identity", "normalize"):
        assert results[what].dtype == model.dtype, what
        assert tuple(results[what].shape) == (D,), what
    assert tuple(results["random(n)"].shape) == (5, D)
    assert tuple(results["bind batch"].shape) == (5, D)
    assert tuple(results["similarity"].shape) == ()  # a 0-d array of the backend
    assert tuple(results["similarity batch"].shape) == (5,)
    assert tuple(results["similarity_matrix"].shape) == (2, 5)


def test_similarity_of_two_vectors_is_0d_array(make_model, model_name, backend):
    """The design page: "a scalar for two vectors (a 0-d array of the backend ...)"."""
    model = make_model(model_name, dim=D)
    sim = model.similarity(model.random(seed=1), model.random(seed=2))
    assert_native(backend, sim, "similarity")
    assert sim.ndim == 0


def test_similarity_scalar_formats_like_a_float(make_model, model_name):
    model = make_model(model_name, dim=D)
    a = model.random(seed=1)
    sim = model.similarity(a, a)
    assert isinstance(float(sim), float)
    assert f"{sim:.2f}" == "1.00"


def test_identity_and_inverse_shapes(make_model, model_name):
    model = make_model(model_name, dim=D)
    e = model.identity()
    assert tuple(e.shape) == (D,) and e.dtype == model.dtype
    a, B = model.random(seed=1), model.random(3, seed=2)
    np.testing.assert_allclose(to_numpy(model, model.bind(a, e)), to_numpy(model, a), atol=1e-6)
    assert tuple(model.inverse(a).shape) == (D,)
    assert tuple(model.inverse(B).shape) == (3, D)
    batch = model.xp.reshape(model.random(6, seed=3), (2, 3, D))
    assert tuple(model.inverse(batch).shape) == (2, 3, D)
    assert model.inverse(B).dtype == model.dtype
    # inverse undoes binding
    back = model.bind(model.bind(B, a), model.inverse(a))
    np.testing.assert_allclose(to_numpy(model, model.similarity(back, B)), 1.0, atol=1e-5)


def test_random_zero_rows(make_model, model_name, backend):
    model = make_model(model_name, dim=D)
    empty = model.random(0)
    assert tuple(empty.shape) == (0, D)
    assert empty.dtype == model.dtype
    assert_native(backend, empty)
    assert tuple(model.random(0, seed=1).shape) == (0, D)


# -- conversion ----------------------------------------------------------------------------------


def test_asarray_from_numpy(make_model, model_name, backend):
    model = make_model(model_name, dim=D)
    reference = VSA.create(model_name, dim=D, backend="numpy").random(4, seed=5)
    x = model.asarray(reference)
    assert_native(backend, x)
    assert_on_cpu(backend, x)
    assert x.dtype == model.dtype
    np.testing.assert_array_equal(to_numpy(model, x), reference)
    # a NumPy array of another dtype holding valid values is converted, values unchanged
    if model_name == "MAP":
        y = model.asarray(reference.astype(np.float64))
        assert y.dtype == model.dtype
        np.testing.assert_array_equal(to_numpy(model, y), reference)


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(b, marks=() if _installed(b) else pytest.mark.skip(reason=f"{b} not installed"))
        for b in BACKENDS
    ],
)
def test_asarray_between_backends(make_model, model_name, backend, source):
    model = make_model(model_name, dim=D)
    src = VSA.create(model_name, dim=D, backend=source, device=device_for(source))
    v = src.random(3, seed=7)
    x = model.asarray(v)
    assert_native(backend, x)
    assert_on_cpu(backend, x)
    assert x.dtype == model.dtype
    np.testing.assert_array_equal(to_numpy(model, x), to_numpy(src, v))


def test_to_numpy_round_trip(make_model, model_name, backend):
    model = make_model(model_name, dim=D)
    v = model.random(3, seed=3)
    host = model.to_numpy(v)
    assert type(host) is np.ndarray
    assert host.shape == (3, D)
    assert host.dtype == np.dtype(DEFAULT_DTYPES[model_name])
    back = model.asarray(host)
    assert_native(backend, back)
    assert back.dtype == model.dtype
    np.testing.assert_array_equal(model.to_numpy(back), host)
    np.testing.assert_array_equal(to_numpy(model, model.bind(back, v)), to_numpy(model, model.bind(v, v)))


def test_asarray_keeps_native_arrays(make_model, model_name):
    model = make_model(model_name, dim=D)
    v = model.random(seed=1)
    np.testing.assert_array_equal(to_numpy(model, model.asarray(v)), to_numpy(model, v))


# -- dtype options ----------------------------------------------------------------------------

DTYPE_OPTIONS = [
    ("numpy", "FHRR", "complex128"),
    ("torch", "FHRR", "complex128"),
    ("numpy", "MAP", "float64"),
    ("numpy", "MAP", "float16"),
    ("torch", "MAP", "float64"),
    ("torch", "MAP", "float16"),
    ("jax", "MAP", "float16"),
    ("torch", "MAP", "bfloat16"),
    ("jax", "MAP", "bfloat16"),
]


def _dtype_option_params():
    for backend, name, dtype in DTYPE_OPTIONS:
        marks = () if _installed(backend) else pytest.mark.skip(reason=f"{backend} not installed")
        yield pytest.param(backend, name, dtype, id=f"{backend}-{name}-{dtype}", marks=marks)


@pytest.mark.parametrize(("backend_name", "name", "dtype"), list(_dtype_option_params()))
def test_dtype_option(backend_name, name, dtype):
    model = VSA.create(name, dim=1000, backend=backend_name, device=device_for(backend_name), dtype=dtype)
    assert model.dtype == native_dtype(backend_name, dtype)
    assert dtype in repr(model)
    a, b, c = model.random(seed=1), model.random(seed=2), model.random(seed=3)
    for v in (
        a,
        model.random(4, seed=4),
        model.bind(a, b),
        model.unbind(a, b),
        model.bundle([a, b, c]),
        model.permute(a),
        model.inverse(a),
        model.identity(),
        model.normalize(a),
    ):
        assert v.dtype == model.dtype
        assert_native(backend_name, v)
    assert float(model.similarity(a, a)) == pytest.approx(1.0, abs=1e-3)
    assert float(model.similarity(model.unbind(model.bind(a, b), b), a)) == pytest.approx(1.0, abs=1e-3)
    assert abs(float(model.similarity(a, b))) < 0.2
    s = model.bundle([a, b, c])
    for v in (a, b, c):
        assert float(model.similarity(s, v)) > 0.3
    S = model.similarity_matrix(model.xp.stack([a, b]), model.xp.stack([a, b, c]))
    assert tuple(S.shape) == (2, 3)
    assert float(S[0, 0]) == pytest.approx(1.0, abs=1e-2)


def test_same_seed_same_vectors_across_dtypes():
    # a float16 MAP model draws the same +-1 vectors as the float32 one
    m16 = VSA.create("MAP", dim=D, backend="numpy", dtype="float16")
    m32 = VSA.create("MAP", dim=D, backend="numpy")
    np.testing.assert_array_equal(m16.random(3, seed=9).astype(np.float32), m32.random(3, seed=9))


@pytest.mark.parametrize(("backend_name", "name", "dtype"), list(_dtype_option_params()))
def test_dtype_option_to_numpy_round_trip(backend_name, name, dtype):
    model = VSA.create(name, dim=D, backend=backend_name, device=device_for(backend_name), dtype=dtype)
    v = model.random(2, seed=1)
    host = model.to_numpy(v)
    assert type(host) is np.ndarray
    assert host.shape == (2, D)
    back = model.asarray(host)
    assert back.dtype == model.dtype
    np.testing.assert_array_equal(
        np.asarray(host, dtype=np.complex128), np.asarray(model.to_numpy(back), dtype=np.complex128)
    )


def test_dtype_given_as_framework_object(backend):
    dtype = native_dtype(backend, "float16")
    model = VSA.create("MAP", dim=D, backend=backend, device=device_for(backend), dtype=dtype)
    assert model.dtype == dtype
    assert model.random(seed=1).dtype == dtype


# -- devices --------------------------------------------------------------------------------------


@pytest.mark.parametrize("device", ["cpu", None])
def test_explicit_cpu_device(backend, model_name, device):
    if device is None and backend != "numpy" and _gpu_present():
        pytest.skip("device=None picks the GPU here")
    model = VSA.create(model_name, dim=D, backend=backend, device=device)
    assert model.backend.is_cpu
    a, b = model.random(seed=1), model.random(3, seed=2)
    for x in (a, b, model.bind(a, b), model.bundle(b), model.similarity(a, b), model.similarity_matrix(b, b)):
        assert_on_cpu(backend, x)


def test_cpu_device_object(backend):
    if backend == "torch":
        import torch

        device = torch.device("cpu")
    elif backend == "jax":
        import jax

        device = jax.devices("cpu")[0]
    else:
        device = "cpu"
    model = VSA.create("MAP", dim=D, backend=backend, device=device)
    assert model.backend.is_cpu
    assert_on_cpu(backend, model.random(seed=1))


# -- a light import -------------------------------------------------------------------------------


def _run_python(code: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "HOLOVEC_BACKEND"}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)


def test_import_is_light():
    result = _run_python(
        "import holovec, sys; "
        "heavy = sorted(m for m in ('torch', 'jax', 'jaxlib') if m in sys.modules); "
        "assert not heavy, heavy"
    )
    assert result.returncode == 0, result.stderr


def test_numpy_model_is_light():
    result = _run_python(
        "import sys\n"
        "from holovec import VSA\n"
        "for name in VSA.available_models():\n"
        "    m = VSA.create(name, dim=256)\n"
        "    a = m.random(seed=1)\n"
        "    B = m.random(4, seed=2)\n"
        "    m.similarity(m.bundle([a, m.bind(a, B[0])]), a)\n"
        "    m.similarity_matrix(B, B)\n"
        "m = VSA.create('MAP', dim=256, backend='numpy', device='cpu')\n"
        "heavy = sorted(k for k in ('torch', 'jax', 'jaxlib') if k in sys.modules)\n"
        "assert not heavy, heavy\n"
    )
    assert result.returncode == 0, result.stderr
