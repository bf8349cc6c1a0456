"""Invariant 1 of the design page (docs/design.rst) on every way a draw is made: the same
seed gives NumPy's vectors whichever path a backend takes for a draw (``kernels.draw_path``:
on the host and moved, one compiled program, or op by op), on each side of the rules' size
thresholds, for every registered model, and whatever torch's thread count.

The rules for a GPU (small draws on the host; large ones on the device, torch's generator
fused by ``torch.compile``, JAX's compiled) are exercised on the CPU by making the backends
answer as they do on a GPU. Ops of torch on the CPU that NumPy does faster (bundles, unit
phasors) run on NumPy views: NumPy's numbers, no torch op.
"""

from __future__ import annotations

import warnings
from functools import partial

import numpy as np
import pytest

from conftest import TEST_DEVICE, backend_param, device_for
from holovec import VSA, kernels
from holovec.random import Purpose, random_words
from holovec.testing import ModelVariant, model_variants

DIM = 256  # a square (VTB), a multiple of 4 (GHRR m=2) and of 16 segments (BSDC-SEG)

#: the torch ops of wrapping NumPy arrays as tensors and back (no computation)
WRAPPING_OPS = {"aten.lift_fresh.default", "aten.detach.default"}

#: the paths each framework can take (kernels.draw_path)
PATHS = {"torch": ["host", "eager"], "jax": ["host", "compiled", "eager"]}


def variants() -> list[ModelVariant]:
    """Every registered model and variant (:func:`holovec.testing.model_variants`)."""
    return model_variants()


def framework_paths() -> list:
    return [
        pytest.param(framework, path, id=f"{framework}-{path}", marks=backend_param(framework).marks)
        for framework, paths in PATHS.items()
        for path in paths
    ]


def draws(model) -> dict[str, np.ndarray]:
    """A model's draws of every kind, as NumPy arrays: one vector, a codebook, rows of
    named streams (the digests of symbols)."""
    be = model.backend
    return {
        "one": be.to_numpy(model.random(seed=3)),
        "codebook": be.to_numpy(model.random(4, seed=7)),
        "streams": be.to_numpy(model.draw(3, 11, Purpose.SYMBOLS, stream=[5, 2**63, 7])),
    }


def assert_numpy_draws(name: str, got: dict, want: dict, exact: bool) -> None:
    """``got`` equals NumPy's draws ``want``: bit for bit where ``exact`` (NumPy's own
    arithmetic, or a discrete model), else to float rounding."""
    for what in want:
        assert got[what].shape == want[what].shape, what
        assert got[what].dtype == want[what].dtype, what
        if exact or want[what].dtype.kind in "biu":
            np.testing.assert_array_equal(got[what], want[what], err_msg=f"{name} {what}")
        else:
            np.testing.assert_allclose(got[what], want[what], rtol=0, atol=1e-6, err_msg=f"{name} {what}")


def force_path(monkeypatch, model, path: str) -> list[int]:
    """Make ``model``'s backend take ``path`` for every draw; the sizes it was asked for."""
    asked: list[int] = []

    original, forced = kernels.draw_path, model.backend

    def draw_path(backend, n_elements: int, exact: bool = True) -> str:
        if backend is not forced:  # the host's own draws keep their rule
            return original(backend, n_elements, exact)
        asked.append(n_elements)
        return path

    monkeypatch.setattr(kernels, "draw_path", draw_path)
    return asked


@pytest.mark.parametrize(("framework", "path"), framework_paths())
@pytest.mark.parametrize("variant", variants(), ids=lambda v: v.id)
def test_every_path_gives_numpy_draws(monkeypatch, variant, framework, path):
    name, options = variant
    want = draws(VSA.create(name, dim=DIM, backend="numpy", **options))
    model = VSA.create(name, dim=DIM, backend=framework, device=device_for(framework), **options)
    asked = force_path(monkeypatch, model, path)
    got = draws(model)
    assert asked == [model.vector_length, 4 * model.vector_length, 3 * model.vector_length]
    assert_numpy_draws(name, got, want, exact=path == "host")


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("path", PATHS["torch"])
@pytest.mark.parametrize("name", ["MAP", "BSC", "FHRR", "HRR"])
def test_torch_draws_whatever_the_thread_count(monkeypatch, name, path, threads):
    torch = pytest.importorskip("torch")
    want = draws(VSA.create(name, dim=DIM, backend="numpy"))
    model = VSA.create(name, dim=DIM, backend="torch", device=device_for("torch"))
    force_path(monkeypatch, model, path)
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        got = draws(model)
    finally:
        torch.set_num_threads(before)
    assert_numpy_draws(name, got, want, exact=path == "host")


@pytest.mark.parametrize("name", ["MAP", "BSC", "FHRR"])
def test_torch_cpu_draws_run_no_torch_op(name):
    """On the CPU a torch draw is NumPy's array taken as a tensor: no torch kernel, so no
    wait on torch's intra-op thread pool, which a busy machine made 100 times slower."""
    torch = pytest.importorskip("torch")
    from torch.utils._python_dispatch import TorchDispatchMode

    ops = []

    class Recorder(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            ops.append(str(func))
            return func(*args, **(kwargs or {}))

    model = VSA.create(name, dim=DIM, backend="torch", device="cpu")
    with Recorder():
        one, many = model.random(seed=1), model.random(3, seed=2)
    assert set(ops) <= WRAPPING_OPS
    assert isinstance(one, torch.Tensor) and one.shape == (model.vector_length,)
    assert many.device.type == "cpu" and many.shape == (3, model.vector_length)


def test_a_dtype_numpy_lacks_is_drawn_on_the_backend():
    pytest.importorskip("torch")
    model = VSA.create("MAP", dim=DIM, backend="torch", device=device_for("torch"), dtype="bfloat16")
    x = model.random(4, seed=7)
    want = VSA.create("MAP", dim=DIM, backend="numpy").random(4, seed=7)
    np.testing.assert_array_equal(model.backend.to_numpy(x), want)


# -- the rules and their thresholds ------------------------------------------------------------


@pytest.fixture
def torch_as_on_a_gpu(monkeypatch):
    """The torch backend class answering as on a GPU (``is_cpu`` False: no NumPy words, the
    GPU's draw rule) while its tensors stay on the CPU; its host threshold at 2 rows of
    ``DIM``. The generator runs op by op (``fuse`` as where torch.compile is unavailable)."""
    pytest.importorskip("torch")
    from holovec.backends import torch_backend

    monkeypatch.setattr(torch_backend.TorchBackend, "is_cpu", property(lambda self: False))
    monkeypatch.setattr(kernels.draws, "GPU_HOST_DRAW_ELEMENTS", 2 * DIM)
    return torch_backend


def test_torch_gpu_rule_thresholds(torch_as_on_a_gpu):
    be = VSA.create("MAP", dim=DIM, backend="torch", device="cpu").backend
    limit = kernels.draws.GPU_HOST_DRAW_ELEMENTS
    assert [kernels.draw_path(be, n) for n in (1, limit, limit + 1)] == ["host", "host", "eager"]


@pytest.mark.parametrize("name", ["MAP", "BSC", "FHRR", "BSDC-SEG"])
def test_torch_gpu_rule_draws_equal_numpy_on_both_sides(torch_as_on_a_gpu, name):
    model = VSA.create(name, dim=DIM, backend="torch", device="cpu")
    numpy_model = VSA.create(name, dim=DIM, backend="numpy")
    assert kernels.philox_words(model.backend, 1, (0, 0, 0), 1) is None  # the device's generator
    for n in (1, 2, 3, 5):  # 2 rows: the last on the host; 3: the first on the device
        got = model.backend.to_numpy(model.random(n, seed=n))
        want = numpy_model.random(n, seed=n)
        if want.dtype.kind == "c":
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-6)
        else:
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("on_cpu", [True, False], ids=["cpu", "as-on-a-gpu"])
def test_jax_rule_thresholds(monkeypatch, on_cpu):
    pytest.importorskip("jax")
    from holovec.backends import jax_backend

    # on a GPU no host callback: the generator is XLA's (as here with is_cpu False)
    monkeypatch.setattr(jax_backend.JaxBackend, "is_cpu", property(lambda self: on_cpu))
    monkeypatch.setattr(kernels.draws, "HOST_DRAW_ELEMENTS" if on_cpu else "GPU_HOST_DRAW_ELEMENTS", 2 * DIM)
    model = VSA.create("BSC", dim=DIM, backend="jax", device="cpu")
    assert [kernels.draw_path(model.backend, n) for n in (1, 2 * DIM, 2 * DIM + 1)] == [
        "host",
        "host",
        "compiled",
    ]
    numpy_model = VSA.create("BSC", dim=DIM, backend="numpy")
    for n in (2, 3):  # both sides of the threshold
        np.testing.assert_array_equal(np.asarray(model.random(n, seed=n)), numpy_model.random(n, seed=n))


@pytest.mark.parametrize("framework", ["torch", "jax"])
@pytest.mark.parametrize("on_cpu", [True, False], ids=["cpu", "as-on-a-gpu"])
def test_rows_independent_of_n_across_the_thresholds(monkeypatch, framework, on_cpu):
    """Row ``i`` of a draw does not depend on the number of rows drawn with it, bit for bit,
    also where that number crosses a threshold of the backend's rule: a sampler of cos or
    log (FHRR, HRR), which frameworks round differently, keeps one path for every size."""
    pytest.importorskip(framework)
    module = __import__(f"holovec.backends.{framework}_backend", fromlist=["_"])
    backend_class = module.TorchBackend if framework == "torch" else module.JaxBackend
    monkeypatch.setattr(backend_class, "is_cpu", property(lambda self: on_cpu))
    for limit in ("HOST_DRAW_ELEMENTS", "GPU_HOST_DRAW_ELEMENTS"):
        monkeypatch.setattr(kernels.draws, limit, 2 * DIM)
    for name in ("FHRR", "HRR", "MAP", "MAP-C", "BSC"):
        model = VSA.create(name, dim=DIM, backend=framework, device="cpu")
        many = model.backend.to_numpy(model.random(5, seed=3))  # above the threshold
        for n in (1, 2):  # at or below it
            np.testing.assert_array_equal(model.backend.to_numpy(model.random(n, seed=3)), many[:n])


# -- the fused generator of torch on a GPU ----------------------------------------------------

GENERATOR_CASES = [
    # seed, n_rows, words_per_row, row_start, stream, purpose
    (0, 6, 8, 0, 0, 0),
    (2**128 - 1, 3, 11, 0, 3, 1),
    (99, 3, 9, 2**31 - 1, 0, 0),  # the first counter word crosses 2**32 inside the draw
    (7, 2, 17, 2**40 + 1, 2**40 + 7, 2**63),
    (5, 1, 8, 0, 0, 0),  # one block
]


@pytest.fixture
def torch_fused(monkeypatch):
    """The torch backend fusing its generator (as on a GPU) with a fresh table of compiled
    functions, compiling with Dynamo's graph capture but no code generation on the CPU
    (inductor's C++ compile of the generator takes minutes here; on a GPU, the suite run with
    ``--device cuda`` compiles it for real)."""
    torch = pytest.importorskip("torch")
    from holovec.kernels import torch_fused

    monkeypatch.setattr(torch_fused, "fuses", lambda backend: True)
    monkeypatch.setattr(torch_fused, "_FUSED", {})
    if TEST_DEVICE == "cpu":
        monkeypatch.setattr(torch, "compile", partial(torch.compile, backend="eager"))
    return torch_fused


@pytest.mark.slow
def test_fused_generator_equals_numpy(torch_fused):
    from holovec import get_backend

    be, numpy_be = get_backend("torch", device_for("torch")), get_backend("numpy")
    for seed, n_rows, wpr, row_start, stream, purpose in GENERATOR_CASES:
        address = dict(row_start=row_start, stream=stream, purpose=purpose)
        got = be.to_numpy(random_words(be, seed, n_rows, wpr, generic=True, **address))
        want = random_words(numpy_be, seed, n_rows, wpr, **address)
        np.testing.assert_array_equal(got, want.astype(np.int64))
    streams = np.array([1, 2**63, 3], dtype=np.uint64)  # rows of named streams
    got = be.to_numpy(random_words(be, 3, 3, 9, stream=streams, generic=True))
    np.testing.assert_array_equal(got, random_words(numpy_be, 3, 3, 9, stream=streams).astype(np.int64))
    assert all(f is not None for f in torch_fused._FUSED.values())  # it compiled


def test_fused_generator_falls_back_to_eager_where_torch_compile_fails(torch_fused, monkeypatch):
    import torch

    def broken_compile(fn, **options):
        def compiled(*args):
            raise torch._dynamo.exc.TorchDynamoException("no compiler here")

        return compiled

    monkeypatch.setattr(torch, "compile", broken_compile)
    from holovec import get_backend

    be, numpy_be = get_backend("torch", device_for("torch")), get_backend("numpy")
    with pytest.warns(UserWarning, match="cannot compile holovec's random generator"):
        first = be.to_numpy(random_words(be, 5, 2, 9, generic=True))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # warned once
        second = be.to_numpy(random_words(be, 6, 2, 9, generic=True))
    np.testing.assert_array_equal(first, random_words(numpy_be, 5, 2, 9).astype(np.int64))
    np.testing.assert_array_equal(second, random_words(numpy_be, 6, 2, 9).astype(np.int64))


# -- ops of torch on the CPU through NumPy views ------------------------------------------------


@pytest.fixture
def torch_host_ops(monkeypatch):
    """torch on the CPU with its host threshold at 3 vectors of ``DIM`` elements."""
    pytest.importorskip("torch")
    from holovec.backends import torch_backend

    monkeypatch.setattr(torch_backend, "HOST_OP_ELEMENTS", 3 * DIM)
    return torch_backend


@pytest.mark.parametrize("variant", variants(), ids=lambda v: v.id)
def test_torch_cpu_bundles_are_numpy_bundles(torch_host_ops, variant):
    name, options = variant
    numpy_model = VSA.create(name, dim=DIM, backend="numpy", seed=5, **options)
    model = VSA.create(name, dim=DIM, backend="torch", device="cpu", seed=5, **options)
    items = numpy_model.random(4, seed=2)
    if numpy_model.dtype_name.startswith("complex"):
        items[1] = -items[0]  # ties: the tie-break vector decides
    else:
        items[1] = items[0]
    tensors = model.asarray(items)
    for k in (2, 3, 4):  # 2: below the threshold (torch's own ops); 3 and 4: NumPy's
        got, want = model.backend.to_numpy(model.bundle(tensors[:k])), numpy_model.bundle(items[:k])
        assert got.dtype == want.dtype and got.shape == want.shape
        if k >= 3 or want.dtype.kind in "biu":
            np.testing.assert_array_equal(got, want, err_msg=f"bundle of {k}")
        else:
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-6, err_msg=f"bundle of {k}")


@pytest.mark.parametrize("name", ["MAP", "BSC", "FHRR"])
def test_torch_cpu_bundle_runs_no_torch_op(torch_host_ops, name):
    from torch.utils._python_dispatch import TorchDispatchMode

    model = VSA.create(name, dim=DIM, backend="torch", device="cpu")
    items = model.random(5, seed=1)
    ops = []

    class Recorder(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            ops.append(str(func))
            return func(*args, **(kwargs or {}))

    with Recorder():
        model.bundle(items)
    assert set(ops) <= WRAPPING_OPS


def test_torch_ops_under_autograd_stay_in_torch(torch_host_ops):
    import torch

    model = VSA.create("HRR", dim=DIM, backend="torch", device="cpu")
    items = model.random(4, seed=1).requires_grad_(True)
    model.bundle(items).sum().backward()  # through torch's ops: a gradient
    assert items.grad is not None and items.grad.shape == items.shape
    phases = torch.linspace(-3, 3, 4 * DIM, requires_grad=True)
    kernels.unit_phasor(model.backend, phases).real.sum().backward()
    np.testing.assert_allclose(phases.grad.numpy(), -np.sin(phases.detach().numpy()), rtol=0, atol=1e-6)


def test_torch_cpu_unit_phasors_are_numpy_phasors(torch_host_ops):
    from holovec import get_backend

    torch_be, numpy_be = get_backend("torch", "cpu"), get_backend("numpy")
    phases = np.linspace(-np.pi, np.pi, 5 * DIM, dtype=np.float32).reshape(5, DIM)
    for rows in (1, 5):  # below and above the threshold
        got = torch_be.to_numpy(kernels.unit_phasor(torch_be, torch_be.from_numpy(phases[:rows])))
        want = kernels.unit_phasor(numpy_be, phases[:rows])
        assert got.dtype == want.dtype
        if rows >= 3:
            np.testing.assert_array_equal(got, want)  # NumPy's own cos and sin
        else:
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-6)
