"""Invariant 4 of the design page (docs/design.rst): every bad input raises ``ValueError`` or
``TypeError`` at the public call, with a message that names what was wrong and what is expected.

Every check goes through :func:`clear_error`, which on top of ``pytest.raises(match=...)``
asserts that the exception is exactly ``ValueError``/``TypeError`` (not a framework's own
subclass such as NumPy's ``AxisError``, nor ``RuntimeError``/``IndexError``) and that it was
raised by holovec's own code, not deep inside NumPy, PyTorch or JAX.
"""

from __future__ import annotations

import importlib.util
import os
import re
import traceback
from contextlib import contextmanager

import numpy as np
import pytest

import holovec
from conftest import device_for
from holovec import VSA, kernels
from holovec.retrieval import AssocStore, Codebook, ItemStore, cleanup

D = 64  # dimension of the models under test: small, so that every test is fast
HOLOVEC_DIR = os.path.dirname(os.path.abspath(holovec.__file__))
NATIVE_TYPE_NAMES = {"numpy": "numpy.ndarray", "torch": "torch.Tensor", "jax": "jax.Array"}
MODEL_DTYPES = {"FHRR": "complex64", "MAP": "float32", "BSC": "uint8"}
MODEL_PAIRS = [(a, b) for a in MODEL_DTYPES for b in MODEL_DTYPES if a != b]


def all_of(*patterns: str) -> str:
    """A regex that matches when every pattern occurs somewhere, in any order."""
    return "(?is)" + "".join(f"(?=.*(?:{p}))" for p in patterns)


def q(text: str) -> str:
    """``text`` as a literal regex."""
    return re.escape(text)


@contextmanager
def clear_error(exc_type, match: str):
    """Like ``pytest.raises(exc_type, match=match)``, and the error is a plain
    ValueError/TypeError raised from holovec's own code."""
    with pytest.raises(exc_type, match=match) as info:
        yield info
    exc = info.value
    assert type(exc) in (ValueError, TypeError), (
        f"expected a plain ValueError/TypeError, got {type(exc).__module__}.{type(exc).__name__}: {exc}"
    )
    origin = traceback.extract_tb(info.tb)[-1].filename
    assert os.path.abspath(origin).startswith(HOLOVEC_DIR), (
        f"the error was raised in {origin}, not by holovec's own checks: {type(exc).__name__}: {exc}"
    )


def _installed(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


def _torch_has_cuda() -> bool:
    import torch

    return torch.cuda.is_available()


def _jax_has_gpu() -> bool:
    import jax

    try:
        return len(jax.devices("gpu")) > 0
    except RuntimeError:
        return False


@pytest.fixture
def model(make_model, model_name):
    return make_model(model_name, dim=D)


# -- dim ----------------------------------------------------------------------------------


@pytest.mark.parametrize("dim", [0, -1, -1000])
def test_dim_not_positive(backend, dim):
    with clear_error(ValueError, all_of("dim", "positive", str(dim))):
        VSA.create("MAP", dim=dim, backend=backend, device=device_for(backend))


@pytest.mark.parametrize("dim", [100.0, True, False, "100", None, np.float64(100)], ids=repr)
def test_dim_not_an_int(backend, dim):
    with clear_error(TypeError, all_of("dim", r"\bint\b", type(dim).__name__)):
        VSA.create("MAP", dim=dim, backend=backend, device=device_for(backend))


def test_dim_absurdly_large():
    # more elements than any array can hold: a clear error naming dim, not
    # NumPy's "Maximum allowed dimension exceeded" or a MemoryError from deep inside
    with clear_error(ValueError, all_of(r"\bdim\b", str(2**64))):
        VSA.create("MAP", dim=2**64, backend="numpy")


# -- model and backend names -------------------------------------------------------------


def test_unknown_model_lists_available():
    with clear_error(ValueError, all_of(q("'XYZ'"), "FHRR", "MAP", "BSC")):
        VSA.create("XYZ", dim=D, backend="numpy")


@pytest.mark.parametrize("name", [3, None, b"MAP", ["MAP"]], ids=repr)
def test_model_not_a_str(name):
    with clear_error(TypeError, all_of("model", "name|str", type(name).__name__)):
        VSA.create(name, dim=D, backend="numpy")


@pytest.mark.parametrize("name", ["tensorflow", "cupy", ""])
def test_unknown_backend_lists_valid(name):
    with clear_error(ValueError, all_of("backend", q(repr(name)), "numpy", "torch", "jax")):
        VSA.create("MAP", dim=D, backend=name)


@pytest.mark.parametrize("name", [3, 1.5, object()], ids=lambda x: type(x).__name__)
def test_backend_not_a_name(name):
    with clear_error(TypeError, all_of("backend", "str|name", type(name).__name__)):
        VSA.create("MAP", dim=D, backend=name)


def test_unknown_backend_from_environment(monkeypatch):
    monkeypatch.setenv("HOLOVEC_BACKEND", "tensorflow")
    with clear_error(ValueError, all_of("HOLOVEC_BACKEND", "tensorflow", "numpy", "torch", "jax")):
        VSA.create("MAP", dim=D)


def test_backend_not_installed(monkeypatch):
    real_find_spec = importlib.util.find_spec

    def find_spec(name, *args, **kwargs):
        return None if name == "torch" else real_find_spec(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    with clear_error(ValueError, all_of("torch", "not installed", "install")):
        VSA.create("MAP", dim=D, backend="torch")


# -- devices ---------------------------------------------------------------------------------


@pytest.mark.parametrize("device", ["cuda:0", "cuda", "gpu"])
def test_numpy_has_no_gpu(device):
    with clear_error(ValueError, all_of(q(repr(device)), "cpu")):
        VSA.create("MAP", dim=D, backend="numpy", device=device)


@pytest.mark.skipif(not _installed("torch"), reason="torch not installed")
def test_torch_cuda_missing():
    if _torch_has_cuda():
        pytest.skip("a CUDA GPU is present")
    with clear_error(ValueError, all_of(q("'cuda:0'"), "CUDA|GPU", "cpu")):
        VSA.create("MAP", dim=D, backend="torch", device="cuda:0")


@pytest.mark.skipif(not _installed("torch"), reason="torch not installed")
def test_torch_cuda_index_out_of_range():
    with clear_error(ValueError, all_of(q("'cuda:99'"), "CUDA|GPU")):
        VSA.create("MAP", dim=D, backend="torch", device="cuda:99")


@pytest.mark.skipif(not _installed("jax"), reason="jax not installed")
@pytest.mark.parametrize("device", ["gpu", "cuda:0"])
def test_jax_gpu_missing(device):
    if _jax_has_gpu():
        pytest.skip("a GPU is present")
    with clear_error(ValueError, all_of(q(repr(device)), "GPU", "cpu")):
        VSA.create("MAP", dim=D, backend="jax", device=device)


@pytest.mark.skipif(not _installed("jax"), reason="jax not installed")
def test_jax_cpu_index_out_of_range():
    with clear_error(ValueError, all_of(q("'cpu:5'"), "cpu")):
        VSA.create("MAP", dim=D, backend="jax", device="cpu:5")


@pytest.mark.parametrize("device", ["banana", "cpu:x", "cpu:-1"])
def test_invalid_device_string(backend, device):
    # the message quotes the device and says what a valid one looks like
    with clear_error(ValueError, all_of(q(repr(device)), "expected|use device|valid devices")):
        VSA.create("MAP", dim=D, backend=backend, device=device)


# -- dtypes ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "dtype", "allowed"),
    [
        ("FHRR", "float32", "complex64"),
        ("FHRR", "uint8", "complex64"),
        ("MAP", "complex64", "float32"),
        ("MAP", "int8", "float32"),
        ("BSC", "float32", "uint8"),
        ("BSC", "bool", "uint8"),
    ],
)
def test_dtype_not_allowed_for_model(backend, name, dtype, allowed):
    with clear_error(TypeError, all_of(name, q(dtype), allowed)):
        VSA.create(name, dim=D, backend=backend, device=device_for(backend), dtype=dtype)


def test_dtype_not_allowed_given_as_dtype_object():
    with clear_error(TypeError, all_of("FHRR", "float32", "complex64")):
        VSA.create("FHRR", dim=D, backend="numpy", dtype=np.float32)


@pytest.mark.parametrize("dtype", ["float128", "banana", "f4x", 5], ids=repr)
def test_unknown_dtype_name(backend, dtype):
    with clear_error(TypeError, all_of("dtype", q(repr(dtype)), "float32", "complex64")):
        VSA.create("MAP", dim=D, backend=backend, device=device_for(backend), dtype=dtype)


def test_bfloat16_on_numpy():
    with clear_error(TypeError, all_of("bfloat16", "numpy", "float16|float32|torch|jax")):
        VSA.create("MAP", dim=D, backend="numpy", dtype="bfloat16")


@pytest.mark.skipif(not _installed("jax"), reason="jax not installed")
@pytest.mark.parametrize(("name", "dtype"), [("MAP", "float64"), ("FHRR", "complex128")])
def test_jax_64_bit_needs_x64(name, dtype):
    import jax

    previous = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", False)
    try:
        with clear_error(TypeError, all_of(dtype, "jax_enable_x64")):
            VSA.create(name, dim=D, backend="jax", device=device_for("jax"), dtype=dtype)
    finally:
        jax.config.update("jax_enable_x64", previous)


# -- vectors of the wrong dimension -------------------------------------------------------------

WRONG_DIM = 32

OPS_ON_WRONG_DIM = {
    "bind_b": lambda m, good, bad: m.bind(good, bad),
    "bind_a": lambda m, good, bad: m.bind(bad, good),
    "unbind_b": lambda m, good, bad: m.unbind(good, bad),
    "unbind_c": lambda m, good, bad: m.unbind(bad, good),
    "bundle_list": lambda m, good, bad: m.bundle([bad, bad]),
    "bundle_array": lambda m, good, bad: m.bundle(m.xp.stack([bad, bad])),
    "similarity": lambda m, good, bad: m.similarity(good, bad),
    "similarity_matrix_items": lambda m, good, bad: m.similarity_matrix(good, m.xp.stack([bad, bad])),
    "similarity_matrix_queries": lambda m, good, bad: m.similarity_matrix(bad, m.xp.stack([good, good])),
    "permute": lambda m, good, bad: m.permute(bad),
    "inverse": lambda m, good, bad: m.inverse(bad),
    "normalize": lambda m, good, bad: m.normalize(bad),
}


@pytest.mark.parametrize("op", list(OPS_ON_WRONG_DIM))
def test_wrong_dimension(make_model, model_name, op):
    model = make_model(model_name, dim=D)
    good = model.random(seed=1)
    bad = make_model(model_name, dim=WRONG_DIM).random(seed=1)
    with clear_error(ValueError, all_of(rf"\b{D}\b", rf"\b{WRONG_DIM}\b", "shape|dim")):
        OPS_ON_WRONG_DIM[op](model, good, bad)


def test_zero_d_array(model):
    scalar = model.xp.reshape(model.random(seed=1)[:1], ())  # a 0-d array, not a NumPy scalar
    assert scalar.ndim == 0
    with clear_error(ValueError, all_of(rf"\b{D}\b", "shape", r"\(\)")):
        model.inverse(scalar)
    with clear_error(ValueError, all_of(rf"\b{D}\b", "shape", r"\(\)")):
        model.bind(model.random(seed=2), scalar)


def test_asarray_wrong_dimension(model):
    with clear_error(ValueError, all_of(rf"\b{D}\b", rf"\b{D + 1}\b", "shape")):
        model.asarray(np.zeros(D + 1))


# -- vectors of the wrong dtype, model or backend ----------------------------------------------


def test_wrong_dtype_map(make_model, backend):
    model = make_model("MAP", dim=D)
    wrong = "float64" if kernels.supports_dtype(model.backend, "float64") else "float16"
    x = model.backend.asarray(np.ones(D), dtype=wrong)
    a = model.random(seed=1)
    for call in (
        lambda: model.bind(a, x),
        lambda: model.similarity(x, a),
        lambda: model.bundle([x, x]),
        lambda: model.permute(x),
    ):
        with clear_error(TypeError, all_of("MAP", "float32", wrong, "asarray")):
            call()


def test_float64_numpy_array_to_float32_map():
    model = VSA.create("MAP", dim=D, backend="numpy")
    with clear_error(TypeError, all_of("float32", "float64", "asarray")):
        model.bind(model.random(seed=1), np.ones(D))


@pytest.mark.parametrize(("model_name", "other"), MODEL_PAIRS)
def test_vectors_of_another_model(make_model, model_name, other):
    model, foreign = make_model(model_name, dim=D), make_model(other, dim=D)
    a, b = model.random(seed=1), foreign.random(seed=2)
    # names the expected dtype, the one given, and hints at the model the vectors come from
    pattern = all_of(model_name, MODEL_DTYPES[model_name], MODEL_DTYPES[other], rf"\b{other}\b")
    for call in (
        lambda: model.bind(a, b),
        lambda: model.unbind(b, a),
        lambda: model.similarity(a, b),
        lambda: model.similarity_matrix(a, foreign.random(3, seed=3)),
        lambda: model.inverse(b),
        lambda: model.normalize(b),
        lambda: model.bundle(foreign.random(3, seed=3)),
    ):
        with clear_error(TypeError, pattern):
            call()


def test_bsc_vectors_to_fhrr_hint(make_model):
    fhrr, bsc = make_model("FHRR", dim=D), make_model("BSC", dim=D)
    with clear_error(TypeError, all_of("complex64", "uint8", r"\bBSC\b")):
        fhrr.bind(fhrr.random(seed=1), bsc.random(seed=2))


@pytest.mark.parametrize(("model_name", "other"), MODEL_PAIRS)
def test_bundle_list_mixing_models(make_model, model_name, other):
    """A list whose first vector is right but whose second is another model's must not be
    silently promoted by stacking into the first one's dtype."""
    model, foreign = make_model(model_name, dim=D), make_model(other, dim=D)
    with clear_error(TypeError, all_of(MODEL_DTYPES[model_name], MODEL_DTYPES[other])):
        model.bundle([model.random(seed=1), foreign.random(seed=2)])


def test_bundle_list_bsc_with_bool(make_model):
    model = make_model("BSC", dim=D)
    v = model.random(seed=1)
    with clear_error(TypeError, all_of("uint8", "bool")):
        model.bundle([v, v > 0])


def _foreign_arrays(model):
    """Arrays that hold valid values for ``model`` but are not of its backend."""
    values = model.to_numpy(model.random(seed=1))
    out = {"list": values.tolist()}
    if model.backend.name != "numpy":
        out["numpy"] = values
    if model.backend.name != "torch" and _installed("torch"):
        import torch

        out["torch"] = torch.from_numpy(values.copy())
    if model.backend.name != "jax" and _installed("jax"):
        import jax.numpy as jnp

        out["jax"] = jnp.asarray(values)
    return out


FOREIGN_OPS = {
    "bind_b": lambda m, a, x: m.bind(a, x),
    "bind_a": lambda m, a, x: m.bind(x, a),
    "unbind": lambda m, a, x: m.unbind(x, a),
    "similarity": lambda m, a, x: m.similarity(a, x),
    "similarity_matrix": lambda m, a, x: m.similarity_matrix(a, x if isinstance(x, list) else x[None]),
    "permute": lambda m, a, x: m.permute(x),
    "inverse": lambda m, a, x: m.inverse(x),
    "normalize": lambda m, a, x: m.normalize(x),
    "to_numpy": lambda m, a, x: m.to_numpy(x),
    "bundle": lambda m, a, x: m.bundle([x, x]),
}


@pytest.mark.parametrize("op", list(FOREIGN_OPS))
def test_arrays_of_another_backend(make_model, model_name, backend, op):
    """A NumPy array, a tensor or jax array of another framework, or a Python list:
    a TypeError that names this model's backend and points to model.asarray."""
    model = make_model(model_name, dim=D)
    a = model.random(seed=2)
    pattern = all_of(r"model\.asarray", q(repr(backend)))
    for kind, x in _foreign_arrays(model).items():
        if op == "to_numpy" and kind == "numpy":
            continue  # on the host already: to_numpy returns it (test_to_numpy_takes_numpy_arrays...)
        with clear_error(TypeError, pattern):
            FOREIGN_OPS[op](model, a, x)


def test_foreign_array_message_names_native_type(make_model, backend):
    """The message names the expected array type the way users write it."""
    model = make_model("MAP", dim=D)
    expected_name = r"(?<![\w.])" + q(NATIVE_TYPE_NAMES[backend])  # "jax.Array", not "..._jax.Array"
    with clear_error(TypeError, all_of(expected_name, r"model\.asarray")):
        model.bind(model.random(seed=1), [1.0] * D)


@pytest.mark.parametrize("value", [None, "abc", object()], ids=lambda v: type(v).__name__)
def test_asarray_of_non_numeric(make_model, backend, value):
    """``model.asarray`` of something that is no array of numbers: a clear error naming the
    type given and what is expected, not a framework's conversion error."""
    model = make_model("MAP", dim=D)
    with clear_error(TypeError, all_of(rf"\b{type(value).__name__}\b", "array|numeric|number")):
        model.asarray(value)


# -- codebooks and stores take vectors of their model only ----------------------------------------


def _codebook_inputs(model, batch, row):
    """Every way vectors reach a codebook or store, keyed by the argument that takes them."""
    return {
        "vectors": lambda: Codebook(model, None, batch),
        "vector": lambda: Codebook.from_seed(model, ["a"], seed=1).add("b", row),
        "codebook": lambda: ItemStore(model).fit(batch),
    }


@pytest.mark.parametrize(("model_name", "other"), MODEL_PAIRS)
def test_codebook_vectors_of_another_model(make_model, model_name, other):
    """BSC bits are not silently turned into MAP floats (nor anything into anything): a
    TypeError naming the argument, the dtype given and the one expected, and how to convert."""
    model, foreign = make_model(model_name, dim=D), make_model(other, dim=D)
    vectors = foreign.random(2, seed=1)
    for arg, call in _codebook_inputs(model, vectors, vectors[0]).items():
        pattern = all_of(
            rf"^{arg}:", MODEL_DTYPES[model_name], MODEL_DTYPES[other], rf"model\.asarray\({arg}\)"
        )
        with clear_error(TypeError, pattern):
            call()


def test_codebook_numpy_vectors_of_another_dtype(make_model, backend):
    """A NumPy array moves to the model's backend only if it holds the model's dtype:
    0.5 in float64, or 0/1 bits, are no float32 MAP vectors."""
    model = make_model("MAP", dim=D)
    for host in (np.full((2, D), 0.5), np.ones((2, D), dtype=np.uint8), np.ones((2, D), dtype=np.int64)):
        for arg, call in _codebook_inputs(model, host, host[0]).items():
            with clear_error(TypeError, all_of(rf"^{arg}:", "float32", host.dtype.name, r"model\.asarray")):
                call()


def test_codebook_vectors_of_another_framework(make_model, model_name, backend):
    """Arrays of another framework (other than NumPy) and lists are not converted silently."""
    model = make_model(model_name, dim=D)
    for kind, x in _foreign_arrays(model).items():
        if kind == "numpy":
            continue  # a NumPy array of the model's dtype is accepted (tested in test_retrieval)
        batch = [x, x] if kind == "list" else x[None]
        for arg, call in _codebook_inputs(model, batch, x).items():
            with clear_error(TypeError, all_of(rf"^{arg}:", q(repr(backend)), rf"model\.asarray\({arg}\)")):
                call()


def test_codebook_vectors_of_wrong_dimension(make_model, model_name):
    """Native arrays and NumPy arrays of another dimension: a ValueError naming the argument."""
    model, small = make_model(model_name, dim=D), make_model(model_name, dim=WRONG_DIM)
    native = small.random(2, seed=1)
    for batch in (native, small.to_numpy(native)):
        for arg, call in _codebook_inputs(model, batch, batch[0]).items():
            with clear_error(ValueError, all_of(rf"^{arg}:", rf"\b{D}\b", rf"\b{WRONG_DIM}\b", "shape")):
                call()


def test_store_rejects_codebook_of_unequal_model(make_model):
    model = make_model("MAP", dim=D, seed=1)
    for other, field in (
        (make_model("MAP", dim=D, seed=2), "seed"),
        (make_model("MAP", dim=D), "seed"),
        (make_model("MAP", dim=D, seed=1, dtype="float16"), "dtype"),
        (make_model("FHRR", dim=D, seed=1), "model"),
    ):
        book = Codebook.from_seed(other, ["a", "b"], seed=3)
        pattern = all_of("another model", rf"\b{field}\b")
        with clear_error(ValueError, pattern):
            ItemStore(model).fit(book)
        with clear_error(ValueError, pattern):
            cleanup(model, model.random(seed=1), book)
        with clear_error(ValueError, pattern):
            AssocStore(model).fit(book, book)


def test_codebook_unsavable_labels(make_model, tmp_path):
    model = make_model("MAP", dim=D)
    with clear_error(TypeError, all_of("hashable", "list")):
        Codebook(model, [("a", ["not hashable"])])
    with clear_error(TypeError, all_of("hashable", "dict")):
        Codebook.from_seed(model, ["a"], seed=1).add({"b": 1}, model.random(seed=1))
    book = Codebook(model, ["a", ("b", None)], model.random(2, seed=1))
    with clear_error(TypeError, all_of("tuples", q("('b', None)"), "NoneType")):
        book.save(tmp_path / "book.npz")


def test_codebook_load_model_and_backend(make_model, tmp_path):
    model = make_model("MAP", dim=D)
    path = tmp_path / "book.npz"
    Codebook.from_seed(model, ["a"], seed=1).save(path)
    with clear_error(TypeError, all_of("model=", "backend=")):
        Codebook.load(path, model, backend="numpy")


def test_to_numpy_of_another_backend_names_it(make_model, backend):
    model = make_model("FHRR", dim=D)
    with clear_error(TypeError, all_of("to_numpy", q(repr(backend)), q(NATIVE_TYPE_NAMES[backend]))):
        model.to_numpy([1.0, 2.0])
    with clear_error(TypeError, all_of("to_numpy", "or a NumPy array", "float")):
        model.to_numpy(1.5)


def test_to_numpy_takes_numpy_arrays_on_every_backend(make_model, backend):
    # on the host already (a decoder's result, an array from to_numpy): returned as it is
    model = make_model("MAP", dim=D)
    host = np.arange(6.0).reshape(2, 3)
    assert model.to_numpy(host) is host
    assert model.to_numpy(model.to_numpy(model.random(seed=1))).shape == (D,)
    scalar = model.to_numpy(np.float32(0.5))
    assert isinstance(scalar, np.ndarray) and scalar.shape == () and float(scalar) == 0.5


@pytest.mark.skipif(not _installed("jax"), reason="jax not installed")
def test_numpy_encoder_under_jax_jit_says_to_build_it_on_jax():
    import jax
    import jax.numpy as jnp

    from holovec.encoders import FractionalPowerEncoder, LevelEncoder, VectorEncoder

    model = VSA.create("FHRR", dim=D, backend="numpy")
    x, rows = jnp.array([1.0, 2.0]), jnp.ones((2, 3))
    cases = [
        (FractionalPowerEncoder(model, 0, 10, seed=1), x),
        (LevelEncoder(model, 0, 10, 8, seed=1), x),
        (VectorEncoder(model, 3, seed=1), rows),
    ]
    traced = all_of(
        "numpy backend", q("backend='numpy'"), "traced jax array", q("VSA.create(..., backend='jax')")
    )
    for encoder, values in cases:
        with clear_error(TypeError, traced):  # closed over by the traced function
            jax.jit(encoder.encode)(values)
        with clear_error(TypeError, traced):  # an argument: passed through to its own checks
            jax.jit(lambda enc, v: enc.encode(v))(encoder, values)
        with clear_error(TypeError, traced):
            jax.vmap(encoder.encode)(values)
        # an eager jax array is read (converted to the encoder's NumPy arrays)
        assert isinstance(encoder.encode(values), np.ndarray)


@pytest.mark.skipif(not _installed("torch"), reason="torch not installed")
def test_numpy_encoder_given_a_torch_tensor_it_cannot_read():
    import torch

    from holovec.encoders import FractionalPowerEncoder

    encoder = FractionalPowerEncoder(VSA.create("FHRR", dim=D, backend="numpy"), 0, 10, seed=1)
    with clear_error(TypeError, all_of("traced torch array", q("backend='torch'"))):
        torch.func.vmap(encoder.encode)(torch.ones(3, 2))
    assert isinstance(encoder.encode(torch.tensor([1.0, 2.0])), np.ndarray)
    # a tensor that requires grad is read through detach (its values are what is encoded)
    assert isinstance(encoder.encode(torch.tensor([1.0, 2.0], requires_grad=True)), np.ndarray)


# -- bundle ------------------------------------------------------------------------------------


def test_bundle_empty_list(model):
    with clear_error(ValueError, all_of("bundle", "empty|zero|no vectors", "at least one")):
        model.bundle([])


def test_bundle_empty_tuple(model):
    with clear_error(ValueError, all_of("bundle", "empty|zero|no vectors", "at least one")):
        model.bundle(())


def test_bundle_zero_items_on_axis_0(model):
    with clear_error(ValueError, all_of("bundle", "empty|zero|no vectors", "at least one")):
        model.bundle(model.random(0))


def test_bundle_single_vector(model):
    with clear_error(ValueError, all_of("bundle", "axis 0|list", rf"\({D},\)")):
        model.bundle(model.random(seed=1))


def test_bundle_broadcasts_mixed_batch_shapes(model):
    # not an error: like every op, bundle broadcasts over leading batch axes
    v, batch = model.random(seed=1), model.random(3, seed=2)
    expected = model.bundle([model.xp.broadcast_to(v, batch.shape), batch])
    got = model.bundle([v, batch])
    assert got.shape == batch.shape
    assert bool(model.xp.all(got == expected))


def test_bundle_mixed_batch_shapes(model):
    with clear_error(ValueError, all_of("shape", rf"\(3, {D}\)", rf"\(4, {D}\)")):
        model.bundle([model.random(3, seed=1), model.random(4, seed=2)])


def test_bundle_list_of_non_arrays(model):
    with clear_error(TypeError, all_of(r"vectors\[0\]", r"model\.asarray")):
        model.bundle([1, 2, 3])


# -- batch shapes that do not broadcast --------------------------------------------------------

PAIR_OPS = {
    "bind": lambda m, x, y: m.bind(x, y),
    "unbind": lambda m, x, y: m.unbind(x, y),
    "similarity": lambda m, x, y: m.similarity(x, y),
}


@pytest.mark.parametrize("op", list(PAIR_OPS))
def test_batch_shapes_do_not_broadcast(model, op):
    x, y = model.random(3, seed=1), model.random(4, seed=2)
    with clear_error(ValueError, all_of("broadcast", rf"\(3, {D}\)", rf"\(4, {D}\)")):
        PAIR_OPS[op](model, x, y)


def test_batch_shapes_do_not_broadcast_3d(model):
    x = model.xp.reshape(model.random(6, seed=1), (2, 3, D))
    y = model.xp.reshape(model.random(8, seed=2), (2, 4, D))
    with clear_error(ValueError, all_of("broadcast", rf"\(2, 3, {D}\)", rf"\(2, 4, {D}\)")):
        model.bind(x, y)


# -- permute, random, seeds ------------------------------------------------------------------


@pytest.mark.parametrize("shift", [1.0, 1.5, "1", None, True], ids=repr)
def test_permute_shift_not_an_int(model, shift):
    with clear_error(TypeError, all_of("shift", r"\bint\b", type(shift).__name__)):
        model.permute(model.random(seed=1), shift=shift)


@pytest.mark.parametrize("n", [-1, -100])
def test_random_n_negative(model, n):
    with clear_error(ValueError, all_of(r"\bn\b", ">= 0|non-negative", str(n))):
        model.random(n)


@pytest.mark.parametrize("n", [2.0, True, "3"], ids=repr)
def test_random_n_not_an_int(model, n):
    with clear_error(TypeError, all_of(r"\bn\b", r"\bint\b", type(n).__name__)):
        model.random(n)


@pytest.mark.parametrize("seed", [-1, 2**128, 2**200], ids=["-1", "2**128", "2**200"])
def test_seed_out_of_range(model, seed):
    pattern = all_of("seed", q("2**128"), str(seed))
    with clear_error(ValueError, pattern):
        model.random(seed=seed)
    with clear_error(ValueError, pattern):
        VSA.create(model.name, dim=D, backend=model.backend, seed=seed)


@pytest.mark.parametrize("seed", [1.0, True, "1", np.float32(1)], ids=repr)
def test_seed_not_an_int(model, seed):
    pattern = all_of("seed", r"\bint\b", type(seed).__name__)
    with clear_error(TypeError, pattern):
        model.random(seed=seed)
    with clear_error(TypeError, pattern):
        VSA.create(model.name, dim=D, backend=model.backend, seed=seed)


# -- similarity_matrix ---------------------------------------------------------------------------


def test_similarity_matrix_items_not_2d(model):
    queries = model.random(3, seed=1)
    one = model.random(seed=2)
    three = model.xp.reshape(model.random(6, seed=2), (2, 3, D))
    for items in (one, three):
        with clear_error(ValueError, all_of("items", "2-d|2-D|two-dimensional", q(str(tuple(items.shape))))):
            model.similarity_matrix(queries, items)


@pytest.mark.parametrize("chunk_size", [-1, -64])
def test_similarity_matrix_chunk_size_negative(model, chunk_size):
    B = model.random(5, seed=1)
    with clear_error(ValueError, all_of("chunk_size", str(chunk_size))):
        model.similarity_matrix(B, B, chunk_size=chunk_size)


@pytest.mark.parametrize("chunk_size", [1.5, "2", True], ids=repr)
def test_similarity_matrix_chunk_size_not_an_int(model, chunk_size):
    B = model.random(5, seed=1)
    with clear_error(TypeError, all_of("chunk_size", r"\bint\b")):
        model.similarity_matrix(B, B, chunk_size=chunk_size)


# -- never a raw framework exception --------------------------------------------------------------


def test_no_raw_framework_errors(model):
    """Inputs that the frameworks themselves would reject with RuntimeError, IndexError,
    AxisError or a broadcasting error: each is caught first by holovec's checks
    (``clear_error`` checks the exact type and that holovec raised it)."""
    xp = model.xp
    a3, a4 = model.random(3, seed=1), model.random(4, seed=2)
    scalar = xp.reshape(model.random(seed=1)[:1], ())
    wrong_dim = xp.reshape(model.random(2, seed=3), (D * 2,))[: D - 1]
    cases = [
        (ValueError, lambda: model.bind(a3, a4)),  # torch: RuntimeError, numpy: broadcast ValueError
        (ValueError, lambda: model.similarity(a3, a4)),
        (ValueError, lambda: model.permute(scalar)),  # numpy: AxisError, torch: IndexError
        (ValueError, lambda: model.bundle(scalar)),
        (ValueError, lambda: model.similarity_matrix(a3, wrong_dim)),  # matmul shape error
        (ValueError, lambda: model.similarity_matrix(wrong_dim, a3)),
        (ValueError, lambda: model.bundle([a3, a4])),  # stack error
        (ValueError, lambda: model.bundle(model.random(0))),  # reduction over an empty axis
    ]
    for exc_type, call in cases:
        with clear_error(exc_type, r"\S"):
            call()


@pytest.mark.parametrize("name", ["MAP", "FHRR", "HRR"])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_similarity_of_a_vector_holding_nan_or_infinity(backend, name, bad):
    # ItemStore refuses such vectors; similarity said NaN silently
    model = VSA.create(name, dim=64, backend=backend, device=device_for(backend))
    a = model.random(seed=1)
    x = model.backend.to_numpy(a).copy()
    x[3] = bad
    b = model.backend.from_numpy(x)
    with pytest.raises(ValueError, match="NaN or infinity"):
        model.similarity(a, b)
    with pytest.raises(ValueError, match="NaN or infinity"):
        model.similarity(model.xp.stack([a, a]), model.xp.stack([a, b]))


def test_flags_take_numpy_bools_everywhere():
    # one rule of a flag: the estimators took np.True_, Graph, Hopfield and the models refused it
    from holovec.memory import Hopfield
    from holovec.structures import Graph

    assert Graph(VSA.create("MAP", dim=64), directed=np.True_, seed=0).directed is True
    assert Hopfield(VSA.create("MAP", dim=64), explicit=np.False_).explicit is False
    assert VSA.create("HRR", dim=64, unitary=np.True_).unitary is True
    assert VSA.create("BSC", dim=64, packed=np.True_).packed is True
    with pytest.raises(TypeError, match="directed must be True or False"):
        Graph(VSA.create("MAP", dim=64), directed=1)
