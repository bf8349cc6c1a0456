"""Shared fixtures: every test that takes ``backend`` runs on NumPy, PyTorch and JAX
(skipping a framework that is not installed), and ``model_name`` runs over the models."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from holovec import VSA

BACKENDS = ["numpy", "torch", "jax"]
CORE_MODELS = ["FHRR", "MAP", "BSC"]


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
    """``make_model(name, dim, **kw)`` on the current backend, on the CPU."""

    def make(name: str, dim: int = 1000, **kwargs):
        return VSA.create(name, dim=dim, backend=backend, device="cpu", **kwargs)

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
