"""The NumPy backend: the default, always installed, host CPU only.

The adapter of NumPy; its kernels are :class:`~holovec.backends.kernels.numpy_kernels.NumpyKernels`.
"""

from __future__ import annotations

import contextlib
import warnings
from typing import Any

import array_api_compat.numpy as np_xp
import numpy as np

from .._deprecation import SINCE
from .base import Backend
from .kernels import draws
from .kernels.numpy_kernels import NumpyKernels

#: products below this many operations run on one BLAS thread in a loop of them (measured:
#: examples/resonator_scene.py, MAP D=2,000, with another process keeping one of 2 cores
#: busy: 6.0 s with OpenBLAS's default threads, 2.3 s with one)
SMALL_PRODUCT_FLOPS = 2**27

_BLAS: Any = None


def _blas_controller() -> Any:
    """threadpoolctl's controller of the BLAS libraries loaded in this process (made once:
    it inspects the loaded libraries), or ``None`` where threadpoolctl is not installed."""
    global _BLAS
    if _BLAS is None:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:
            _BLAS = False
        else:
            _BLAS = ThreadpoolController()
    return _BLAS or None


def host_small_products(flops: float) -> Any:
    """NumPy's :meth:`~holovec.backends.Backend.small_products`: products of fewer than
    :data:`SMALL_PRODUCT_FLOPS` on one BLAS thread (threadpoolctl), else a no-op. Also the
    rule of the backends whose CPU steps run on NumPy views (torch), so that their sums are
    NumPy's whatever the thread count.

    Parameters
    ----------
    flops : float
        The operations of one product of the loop.
    """
    controller = _blas_controller() if flops < SMALL_PRODUCT_FLOPS else None
    if controller is None:
        return contextlib.nullcontext()
    return controller.limit(limits=1, user_api="blas")


class NumpyBackend(NumpyKernels, Backend):
    """NumPy arrays on the host CPU."""

    name = "numpy"
    has_devices = False

    def small_products(self, flops: float) -> Any:
        return host_small_products(flops)

    def _namespace(self) -> Any:
        return np_xp

    def _resolve_device(self, device: Any) -> Any:
        if device is None or str(device).lower() in ("cpu", "cpu:0"):
            return "cpu"
        raise ValueError(
            f"the numpy backend runs on the CPU only, not on device {device!r}; "
            "use device='cpu' (or None), or backend='torch' / 'jax' for a GPU"
        )

    @property
    def array_type(self) -> type:
        return np.ndarray

    def dtype(self, name: str) -> Any:
        if name == "bfloat16":
            raise TypeError("NumPy has no bfloat16; use float16 or float32, or the torch or jax backend")
        return np.dtype(name)

    def asarray(self, x: Any, dtype: Any = None) -> Any:
        if isinstance(x, np.generic):  # NumPy scalars are 0-d arrays to everything else
            x = np.asarray(x)
        return super().asarray(x, dtype)

    def to_numpy(self, x: Any) -> np.ndarray:
        return np.asarray(x)

    def from_numpy(self, x: np.ndarray) -> Any:
        return np.asarray(x)

    def complex(self, real: Any, imag: Any) -> Any:
        out = np.empty(np.broadcast_shapes(real.shape, imag.shape), dtype=np.result_type(real, 1j))
        out.real = real
        out.imag = imag
        return out

    def unit_phasor(self, phases: Any) -> Any:
        out = np.empty(phases.shape, dtype=np.result_type(phases, 1j))
        np.cos(phases, out=out.real)
        np.sin(phases, out=out.imag)
        return out

    def clip(self, x: Any, low: float, high: float) -> Any:
        if isinstance(x, np.generic):  # one similarity: a scalar, clipped in microseconds
            return x if low <= x <= high else type(x)(min(max(x, low), high))
        return np.clip(x, low, high)

    def count_nonzero(self, x: Any) -> Any:
        if x.ndim == 1:  # NumPy's whole-array count is 5x faster than its axis=-1 count
            return np.intp(np.count_nonzero(x))  # a Python int before NumPy 2.1
        return np.count_nonzero(x, axis=-1)

    def real_view(self, x: Any) -> Any:
        return np.ascontiguousarray(x).view(x.real.dtype)

    def complex_view(self, x: Any) -> Any:
        return np.ascontiguousarray(x).view(np.result_type(x, 1j))

    def fft(self, x: Any) -> Any:
        return np.fft.fft(x, axis=-1)

    def ifft(self, x: Any) -> Any:
        return np.fft.ifft(x, axis=-1)

    def rfft(self, x: Any) -> Any:
        return np.fft.rfft(x, axis=-1)

    def irfft(self, x: Any, n: int) -> Any:
        return np.fft.irfft(x, n=n, axis=-1)


def __getattr__(name: str) -> Any:
    if name == "numpy_philox_words":  # moved to the kernels layer
        warnings.warn(
            f"holovec.backends.numpy_backend.numpy_philox_words is deprecated since {SINCE}, use "
            "holovec.backends.kernels.draws.numpy_philox_words",
            DeprecationWarning,
            stacklevel=2,
        )
        return draws.numpy_philox_words
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
