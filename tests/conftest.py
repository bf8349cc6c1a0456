"""Shared fixtures: every test that takes ``backend`` runs on NumPy, PyTorch and JAX
(skipping a framework that is not installed), and ``model_name`` runs over the models.

The device of the torch and JAX tests: ``python -m pytest --device cuda`` (or
``HOLOVEC_TEST_DEVICE=cuda``) runs them on the first GPU, ``cuda:1`` on another; the default,
``cpu``, hides any GPU from both frameworks, so that a model made without a device lands on
the CPU too. NumPy and Dask tests run on the CPU either way."""

from __future__ import annotations

import importlib.util
import os
import re

import numpy as np
import pytest

from holovec import VSA
from holovec.testing import ANY_MODEL_DIM, model_variants

BACKENDS = ["numpy", "torch", "jax"]

#: the device of the torch and JAX tests (set from --device before any test module loads)
TEST_DEVICE = "cpu"
#: the frameworks whose arrays live on TEST_DEVICE
_DEVICE_BACKENDS = ("torch", "jax")


def pytest_addoption(parser) -> None:
    parser.addoption(
        "--device",
        default=None,
        help="device of the torch and JAX tests: cpu (default, or $HOLOVEC_TEST_DEVICE), cuda, cuda:N",
    )


def pytest_configure(config) -> None:
    global TEST_DEVICE
    device = (config.getoption("--device") or os.environ.get("HOLOVEC_TEST_DEVICE") or "cpu").lower()
    if not re.fullmatch(r"cpu|(cuda|gpu)(:\d+)?", device):
        raise pytest.UsageError(f"--device {device!r}: expected cpu, cuda or cuda:N")
    TEST_DEVICE = device
    if device == "cpu":
        # before torch or jax are imported (holovec never imports them itself): a model made
        # without a device then lands on the CPU as well
        os.environ["CUDA_VISIBLE_DEVICES"] = ""
        os.environ["JAX_PLATFORMS"] = "cpu"


def device_for(backend: str) -> str:
    """The device a test makes ``backend``'s arrays on: :data:`TEST_DEVICE` for torch and
    JAX, the CPU for the others."""
    return TEST_DEVICE if backend in _DEVICE_BACKENDS else "cpu"


CORE_MODELS = ["FHRR", "MAP", "BSC"]
#: the models whose every check also runs on JAX: JAX compiles each new shape and model
#: (about 8 s a model for the whole suite), and the other models' JAX kernels are compared
#: with NumPy op by op (tests/test_device_paths.py, tests/test_jax_eager.py)
JAX_CONFORMANCE_MODELS = ("FHRR", "MAP", "BSC", "HRR")
#: the dimension of the conformance suite: every variant accepts it (see ANY_MODEL_DIM)
CONFORMANCE_DIM = ANY_MODEL_DIM


def backend_param(name: str):
    installed = importlib.util.find_spec(name) is not None
    return pytest.param(
        name, id=name, marks=() if installed else pytest.mark.skip(reason=f"{name} not installed")
    )


@pytest.fixture(params=[backend_param(b) for b in BACKENDS])
def backend(request) -> str:
    return request.param


def conformance_params() -> list:
    """``(variant, backend)`` of the conformance suite: every registered model and variant
    on NumPy and torch, the core models on JAX too."""
    out = []
    for backend in BACKENDS:
        for variant in model_variants():
            if backend == "jax" and (variant.options or variant.name not in JAX_CONFORMANCE_MODELS):
                continue
            installed = importlib.util.find_spec(backend) is not None
            marks = () if installed else pytest.mark.skip(reason=f"{backend} not installed")
            out.append(pytest.param((variant, backend), id=f"{variant.id}-{backend}", marks=marks))
    return out


@pytest.fixture(params=conformance_params())
def conformance_model(request):
    """Each registered model and variant, on each backend (see :func:`conformance_params`),
    at :data:`CONFORMANCE_DIM`, seeded: the model the conformance checks take."""
    variant, backend = request.param
    return variant.create(CONFORMANCE_DIM, backend=backend, device=device_for(backend), seed=1)


@pytest.fixture(params=CORE_MODELS)
def model_name(request) -> str:
    return request.param


@pytest.fixture
def make_model(backend):
    """``make_model(name, dim, **kw)`` on the current backend, on the test device."""

    def make(name: str, dim: int = 1000, **kwargs):
        return VSA.create(name, dim=dim, backend=backend, device=device_for(backend), **kwargs)

    return make


def to_numpy(model, x) -> np.ndarray:
    """Any array of ``model``'s backend (vectors or similarities) as a NumPy array."""
    return model.backend.to_numpy(x)


@pytest.fixture(autouse=True, scope="module")
def _release_compiled_programs():
    """After each test module, JAX's compiled programs are dropped: they accumulate over
    the hundreds of shapes and models the suite compiles (a worker grew past 4 GB), and a
    later module rarely reuses an earlier one's."""
    yield
    import gc
    import sys

    jax = sys.modules.get("jax")
    if jax is not None:
        jax.clear_caches()
    gc.collect()
