"""Backend-neutral arrays: pick a framework and device, lazily.

``import holovec`` imports NumPy only; the torch, jax and dask modules of this package
(and so the frameworks) load the first time a model asks for them. A :class:`Backend` is
the adapter of one framework (see :mod:`holovec.backends.base`); what is computed over it
is :mod:`holovec.kernels`. :func:`to_host` and :func:`array_kind` answer, for any array,
what the rest of holovec would otherwise ask each framework.
"""

from __future__ import annotations

import glob
import importlib
import importlib.util
import os
import shutil
import sys
from typing import Any

from .arrays import DTYPE_KINDS, array_kind, backend_name_of, dtype_name, to_host
from .base import Backend

__all__ = [
    "DTYPE_KINDS",
    "Backend",
    "array_kind",
    "available_backends",
    "backend_name_of",
    "dtype_name",
    "get_backend",
    "register_static",
    "resolve_backend_name",
    "to_host",
]

# backend name -> (module holding the class, class name, framework package it needs)
_BACKENDS = {
    "numpy": ("numpy_backend", "NumpyBackend", "numpy"),
    "torch": ("torch_backend", "TorchBackend", "torch"),
    "jax": ("jax_backend", "JaxBackend", "jax"),
    "dask": ("dask_backend", "DaskBackend", "dask"),
}
_ALIASES = {"pytorch": "torch", "np": "numpy"}
#: how to install each backend's framework, for the message where it is missing: PyTorch's
#: CPU build, since on Linux the ``torch`` of the package index is the CUDA build (GBs)
_INSTALL = {
    "torch": (
        "python -m pip install torch --index-url https://download.pytorch.org/whl/cpu for the "
        "CPU build; for a GPU build see the README's set-up and pytorch.org"
    ),
    "jax": 'python -m pip install jax (for a GPU: "jax[cuda12]")',
    "dask": 'python -m pip install "dask[array]" distributed',
}

#: the classes registered as static data with JAX (a registration is made once per class)
_JAX_STATIC_TYPES: set[type] = set()

#: environment variable naming the default backend
BACKEND_ENV_VAR = "HOLOVEC_BACKEND"


def available_backends() -> list[str]:
    """Names of the backends whose framework is installed, e.g. ``['numpy', 'torch']``."""
    return [name for name, (_, _, pkg) in _BACKENDS.items() if importlib.util.find_spec(pkg)]


def resolve_backend_name(name: str | None) -> str:
    """The canonical backend name for ``name``; ``None`` reads ``HOLOVEC_BACKEND`` (default numpy).

    Parameters
    ----------
    name : str or None
        A backend's name or alias (``"pytorch"``), ``"auto"``, or ``None``.

    Returns
    -------
    str
        ``"numpy"``, ``"torch"``, ``"jax"`` or ``"dask"``.
    """
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


def _nvidia_or_amd_gpu() -> str | None:
    """Where a CUDA (NVIDIA) or ROCm (AMD) GPU shows itself to the operating system, without
    importing a framework: the first sign found, or ``None``.

    Reads only the file system and the environment (microseconds): the NVIDIA driver's
    list of GPUs (``/proc/driver/nvidia/gpus``) or its device files (``/dev/nvidia0``, ...),
    WSL2's GPU device (``/dev/dxg``), ``nvidia-smi`` on the ``PATH`` on Windows, and the
    ROCm kernel driver (``/dev/kfd``). ``CUDA_VISIBLE_DEVICES`` set to ``""`` or ``-1``
    hides NVIDIA GPUs, as it does from every framework.
    """
    hidden = os.environ.get("CUDA_VISIBLE_DEVICES", "unset").strip() in ("", "-1")
    if not hidden:
        if glob.glob("/proc/driver/nvidia/gpus/*"):
            return "/proc/driver/nvidia/gpus"
        if glob.glob("/dev/nvidia[0-9]*"):
            return "/dev/nvidia*"
        if os.path.exists("/dev/dxg"):
            return "/dev/dxg"
        if sys.platform == "win32" and shutil.which("nvidia-smi"):
            return "nvidia-smi"
    if os.path.exists("/dev/kfd"):
        return "/dev/kfd"
    return None


def _tpu_runtime() -> bool:
    """Whether JAX's TPU runtime (the ``libtpu`` package, which ``jax[tpu]`` installs) is
    installed: found without importing it."""
    return any(importlib.util.find_spec(name) for name in ("libtpu", "libtpu_nightly"))


def _auto_backend() -> str:
    """The backend ``"auto"`` chooses (the rules are in :func:`get_backend`'s docstring).

    The frameworks are not imported to look for a device: the operating system is asked
    first (:func:`_nvidia_or_amd_gpu`, :func:`_tpu_runtime`). Only where it shows a GPU (or a
    TPU runtime) is torch (or jax) imported, to confirm that its build can use it.
    """
    installed = available_backends()
    gpu = _nvidia_or_amd_gpu() is not None
    if gpu and "torch" in installed:
        import torch

        if torch.cuda.is_available():  # a CUDA (or ROCm) build that sees the GPU
            return "torch"
    if "jax" in installed and (gpu or _tpu_runtime()):
        import jax

        if jax.default_backend() in ("gpu", "tpu"):
            return "jax"
    return "numpy"


def get_backend(backend: str | Backend | None = None, device: Any = None) -> Backend:
    """A :class:`Backend` for a name (``"numpy"``, ``"torch"``/``"pytorch"``, ``"jax"``,
    ``"dask"``, ``"auto"``), ``None`` for the default, or an existing Backend (whose device
    is kept unless ``device`` names another). ``"auto"`` never picks ``"dask"``: a cluster
    is a choice the user makes.

    ``"auto"`` picks the fastest installed backend for the device it finds, without
    importing a framework it will not use:

    1. It looks for a GPU the way the operating system shows one, importing nothing: the
       NVIDIA driver's GPUs (``/proc/driver/nvidia/gpus``, ``/dev/nvidia0``, ...; WSL2's
       ``/dev/dxg``; ``nvidia-smi`` on Windows), unless ``CUDA_VISIBLE_DEVICES`` is ``""``
       or ``-1``, and AMD's ROCm driver (``/dev/kfd``). Which frameworks are installed it
       learns from :func:`importlib.util.find_spec`, also without importing them.
    2. With a GPU and PyTorch installed, it imports torch and takes ``"torch"`` if
       ``torch.cuda.is_available()`` (a CPU-only build of torch sees no GPU).
    3. Else, with JAX installed and a GPU or JAX's TPU runtime (``libtpu``) installed, it
       imports jax and takes ``"jax"`` if ``jax.default_backend()`` is a GPU or TPU.
    4. Else ``"numpy"``: on a machine without a GPU neither torch nor jax is imported.

    Parameters
    ----------
    backend : str, Backend or None, default None
        A backend's name, an existing backend, or ``None`` for the default
        (``HOLOVEC_BACKEND``, else ``"numpy"``).
    device : object, default None
        The device (``"cpu"``, ``"cuda:0"``, a framework's device object); ``None`` for the
        backend's default.

    Returns
    -------
    Backend
        The backend on that device.

    Examples
    --------
    >>> get_backend("numpy")
    NumpyBackend(device='cpu')
    >>> get_backend("auto").name in available_backends()
    True
    """
    if isinstance(backend, Backend):
        if device is None:
            return backend
        backend = backend.name
    name = resolve_backend_name(backend)
    module_name, class_name, package = _BACKENDS[name]
    if importlib.util.find_spec(package) is None:
        raise ValueError(
            f"backend {name!r} needs the {package!r} package, which is not installed; "
            f"install it ({_INSTALL.get(name, f'python -m pip install {package}')}) or use one of "
            f"{available_backends()}"
        )
    module = importlib.import_module(f"{__name__}.{module_name}")
    return getattr(module, class_name)(device)


def register_static(cls: type) -> None:
    """Make the objects of ``cls`` (an encoder class, say) static data for ``jax.jit``: hashed
    and passed through, not traced. Only where jax is imported already (this imports
    nothing), and once per class. The JAX backend registers the classes of its encoders
    through this; the encoders of other backends are registered too where jax is loaded, so
    that one passed to ``jax.jit`` reaches its own input checks (which say that it belongs
    to another backend) instead of failing in JAX with "not a valid JAX type"."""
    jax = sys.modules.get("jax")
    if cls in _JAX_STATIC_TYPES or jax is None or not hasattr(jax, "tree_util"):
        return
    jax.tree_util.register_static(cls)
    _JAX_STATIC_TYPES.add(cls)
