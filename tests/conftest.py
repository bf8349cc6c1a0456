"""Shared fixtures: every test that takes ``backend`` runs on NumPy, PyTorch and JAX
(skipping a framework that is not installed), and ``model_name`` runs over the models.

The device of the torch and JAX tests: ``python -m pytest --device cuda`` (or
``HOLOVEC_TEST_DEVICE=cuda``) runs them on the first GPU, ``cuda:1`` on another; the default,
``cpu``, hides any GPU from both frameworks, so that a model made without a device lands on
the CPU too. NumPy and Dask tests run on the CPU either way."""

from __future__ import annotations

import importlib.util
import inspect
import os
import re

import numpy as np
import pytest

from holovec import VSA

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


def model_variants(classes: dict[str, type]) -> list[tuple[str, dict]]:
    """``(name, options)`` of every model class given (name -> class) with its default
    options, plus each boolean option flipped."""
    out = []
    for name, cls in classes.items():
        out.append((name, {}))
        for option in cls.option_names:
            default = inspect.signature(cls.__init__).parameters.get(option)
            if default is not None and isinstance(default.default, bool):
                out.append((name, {option: not default.default}))
    return out


def variant_id(variant: tuple[str, dict]) -> str:
    name, options = variant
    return name + "".join(f"-{k}={v}" for k, v in options.items())


def backend_param(name: str):
    installed = importlib.util.find_spec(name) is not None
    return pytest.param(
        name, id=name, marks=() if installed else pytest.mark.skip(reason=f"{name} not installed")
    )


@pytest.fixture(params=[backend_param(b) for b in BACKENDS])
def backend(request) -> str:
    return request.param


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
