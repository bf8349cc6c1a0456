"""The JAX backend. jax is imported when this module is, never by ``import holovec``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .base import Backend
from .numpy_backend import numpy_philox_words

_STATIC_TYPES: set[type] = set()
_PLATFORM_ALIASES = {"cuda": "gpu", "rocm": "gpu", "gpu": "gpu", "cpu": "cpu", "tpu": "tpu"}


class JaxBackend(Backend):
    """JAX arrays on a CPU, GPU or TPU device (32-bit types unless x64 is enabled)."""

    name = "jax"
    jit_kernels = True
    static_shapes = True

    def _namespace(self) -> Any:
        return jnp  # jax.numpy follows the array API standard itself

    def _resolve_device(self, device: Any) -> Any:
        if device is None:
            return jax.devices()[0]  # JAX lists its best platform first
        if isinstance(device, jax.Device):
            return device
        platform, _, index = str(device).partition(":")
        platform = _PLATFORM_ALIASES.get(platform.lower())
        if platform is None or (index and not index.isdigit()):
            raise ValueError(
                f"unsupported jax device {device!r}; expected 'cpu', 'gpu[:n]', 'cuda[:n]' or 'tpu[:n]'"
            )
        try:
            devices = jax.devices(platform)
        except RuntimeError:
            raise ValueError(
                f"device {device!r} asked for, but jax finds no {platform.upper()} "
                f"(jax.devices() is {jax.devices()}); use device='cpu' or None"
            ) from None
        i = int(index) if index else 0
        if i >= len(devices):
            raise ValueError(
                f"device {device!r} asked for, but jax finds only {len(devices)} {platform} device(s)"
            )
        return devices[i]

    @property
    def device_name(self) -> str:
        return f"{self.device.platform}:{self.device.id}"

    @property
    def is_cpu(self) -> bool:
        return self.device.platform == "cpu"

    @property
    def array_type(self) -> type:
        return jax.Array

    @property
    def array_type_name(self) -> str:
        return "jax.Array"

    def dtype(self, name: str) -> Any:
        if name in ("float64", "complex128", "int64", "uint64") and not jax.config.jax_enable_x64:
            raise TypeError(
                f"jax uses 32-bit types unless 64-bit mode is on; for {name} set "
                "jax.config.update('jax_enable_x64', True) before creating the model"
            )
        return jnp.dtype(name)

    def to_numpy(self, x: Any) -> np.ndarray:
        return np.asarray(x)

    def from_numpy(self, x: np.ndarray) -> Any:
        return jax.device_put(x, self.device)

    def _from_foreign(self, x: Any) -> Any:
        return jax.device_put(super()._from_foreign(x), self.device)

    def complex(self, real: Any, imag: Any) -> Any:
        return jax.lax.complex(real, imag)

    def fft(self, x: Any) -> Any:
        return jnp.fft.fft(x, axis=-1)

    def ifft(self, x: Any) -> Any:
        return jnp.fft.ifft(x, axis=-1)

    def rfft(self, x: Any) -> Any:
        return jnp.fft.rfft(x, axis=-1)

    def irfft(self, x: Any, n: int) -> Any:
        return jnp.fft.irfft(x, n=n, axis=-1)

    def philox_words(self, key: int, counter_start: tuple[int, Any, int], n_blocks: int) -> Any:
        if not self.is_cpu:
            return None
        return jax.device_put(numpy_philox_words(key, counter_start, n_blocks), self.device)

    def register_static(self, cls: type) -> None:
        if cls not in _STATIC_TYPES:
            jax.tree_util.register_static(cls)
            _STATIC_TYPES.add(cls)

    def is_traced(self, x: Any) -> bool:
        return isinstance(x, jax.core.Tracer)

    def jit(self, fn: Callable) -> Callable:
        return jax.jit(fn)

    def top_k(self, scores: Any, k: int) -> tuple[Any, Any]:
        n = scores.shape[-1]
        k = min(int(k), n)
        if k == n or k == 0:
            return super().top_k(scores, k)
        return jax.lax.top_k(scores, k)  # documented: equal values, lower index first

    def popcount(self, x: Any) -> Any:
        return jax.lax.population_count(x)

    def count_bits(self, x: Any) -> Any:
        if x.shape[-1] % 4 == 0:  # read bytes as uint32 words (64-bit needs x64 mode)
            x = jax.lax.bitcast_convert_type(x.reshape(*x.shape[:-1], -1, 4), jnp.uint32)
        return jnp.sum(jax.lax.population_count(x), axis=-1, dtype=jnp.int32)

    def synchronize(self) -> None:
        (jnp.zeros((), device=self.device) + 0).block_until_ready()
