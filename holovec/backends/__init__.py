"""Backend-neutral arrays: pick a framework and device, lazily.

``import holovec`` imports NumPy only; the torch and jax modules of this package
(and so the frameworks) load the first time a model asks for them.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from typing import Any

from .base import DTYPE_KINDS, Backend, dtype_name

__all__ = [
    "DTYPE_KINDS",
    "Backend",
    "available_backends",
    "dtype_name",
    "get_backend",
    "resolve_backend_name",
]

# backend name -> (module holding the class, class name, framework package it needs)
_BACKENDS = {
    "numpy": ("numpy_backend", "NumpyBackend", "numpy"),
    "torch": ("torch_backend", "TorchBackend", "torch"),
    "jax": ("jax_backend", "JaxBackend", "jax"),
}
_ALIASES = {"pytorch": "torch", "np": "numpy"}

#: environment variable naming the default backend
BACKEND_ENV_VAR = "HOLOVEC_BACKEND"


def available_backends() -> list[str]:
    """Names of the backends whose framework is installed, e.g. ``['numpy', 'torch']``."""
    return [name for name, (_, _, pkg) in _BACKENDS.items() if importlib.util.find_spec(pkg)]


def resolve_backend_name(name: str | None) -> str:
    """The canonical backend name for ``name``; ``None`` reads ``HOLOVEC_BACKEND`` (default numpy)."""
    if name is None:
        name = os.environ.get(BACKEND_ENV_VAR) or "numpy"
        source = f"{BACKEND_ENV_VAR}={name!r}" if os.environ.get(BACKEND_ENV_VAR) else None
    else:
        source = None
    if not isinstance(name, str):
        raise TypeError(f"backend must be a name (str) or a Backend, got {type(name).__name__}")
    key = _ALIASES.get(name.lower(), name.lower())
    if key == "auto":
        return _auto_backend()
    if key not in _BACKENDS:
        where = f" (from {source})" if source else ""
        raise ValueError(
            f"unknown backend {name!r}{where}; expected one of {', '.join([*_BACKENDS, 'pytorch', 'auto'])}"
        )
    return key


def _auto_backend() -> str:
    """The fastest installed backend for the device found: a GPU framework if a GPU is there."""
    installed = available_backends()
    if "torch" in installed:
        import torch

        if torch.cuda.is_available():
            return "torch"
    if "jax" in installed:
        import jax

        if jax.default_backend() in ("gpu", "tpu"):
            return "jax"
    return "numpy"


def get_backend(backend: str | Backend | None = None, device: Any = None) -> Backend:
    """A :class:`Backend` for a name (``"numpy"``, ``"torch"``/``"pytorch"``, ``"jax"``,
    ``"auto"``), ``None`` for the default, or an existing Backend (whose device is kept
    unless ``device`` names another)."""
    if isinstance(backend, Backend):
        if device is None:
            return backend
        backend = backend.name
    name = resolve_backend_name(backend)
    module_name, class_name, package = _BACKENDS[name]
    if importlib.util.find_spec(package) is None:
        raise ValueError(
            f"backend {name!r} needs the {package!r} package, which is not installed; "
            f"install it (pip install 'holovec[{name}]') or use one of {available_backends()}"
        )
    module = importlib.import_module(f"{__name__}.{module_name}")
    return getattr(module, class_name)(device)
