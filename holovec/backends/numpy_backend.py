"""The NumPy backend: the default, always installed, host CPU only.

The adapter of NumPy; its kernels are the NumPy versions in :mod:`holovec.kernels`.
"""

from __future__ import annotations

from typing import Any

import array_api_compat.numpy as np_xp
import numpy as np

from .base import Backend


class NumpyBackend(Backend):
    """NumPy arrays on the host CPU."""

    name = "numpy"
    has_devices = False

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
