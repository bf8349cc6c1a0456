"""The JAX backend. jax is imported when this module is, never by ``import holovec``.

The adapter of JAX; its kernels are the JAX versions in :mod:`holovec.kernels`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .base import Backend

#: the class of JAX's concrete arrays (jax.Array is an abstract base of it and of tracers)
_ARRAY_IMPL = type(jnp.zeros(()))


def _narrowed(x: np.ndarray, target: np.dtype) -> np.ndarray:
    """A host array in the 32-bit dtype JAX holds it in without 64-bit mode, or ``ValueError``
    if a value would change beyond rounding (an integer out of range, a float overflowing)."""
    kind = x.dtype.kind
    if kind in "iu":
        info = np.iinfo(target)
        bad = (x < info.min) | (x > info.max)
        allowed = f"integers in [{info.min}, {info.max}]"
    else:
        with np.errstate(over="ignore"):
            out = x.astype(target)
        bad = np.isfinite(x) & ~np.isfinite(out)
        allowed = f"magnitudes up to {float(np.finfo(target).max):.4g}"
    if bad.any():
        where = np.argwhere(bad)
        examples = ", ".join(f"{x[tuple(i)].item()!r} at {list(map(int, i))}" for i in where[:3])
        raise ValueError(
            f"{len(where)} of {x.size} {x.dtype} values would change in jax's {target} ({allowed}; "
            f"jax uses 32-bit types unless 64-bit mode is on): {examples}; give values that fit, or "
            "set jax.config.update('jax_enable_x64', True)"
        )
    return x.astype(target) if kind in "iu" else out


_PLATFORM_ALIASES = {"cuda": "gpu", "rocm": "gpu", "gpu": "gpu", "cpu": "cpu", "tpu": "tpu"}


class JaxBackend(Backend):
    """JAX arrays on a CPU, GPU or TPU device (32-bit types unless x64 is enabled)."""

    name = "jax"
    trace_transforms = "jax.jit, jax.vmap or jax.grad"
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
    def placement(self) -> tuple[str, Any]:
        """The attribute of an array that the models' fast input check compares, and its value
        for an array on this device: ``sharding`` (compared in half the time of ``device``)."""
        return "sharding", jax.sharding.SingleDeviceSharding(self.device)

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

    @property
    def plain_array_type(self) -> type:
        return _ARRAY_IMPL

    def device_of(self, x: Any) -> Any:
        if isinstance(x, jax.core.Tracer):
            return None
        names = sorted(f"{d.platform}:{d.id}" for d in x.devices())
        return names[0] if len(names) == 1 else names

    def on_device(self, x: Any) -> bool:
        if isinstance(x, jax.core.Tracer):
            return True
        return self.device in x.devices()  # sharded arrays: one of their devices

    def to_device(self, x: Any) -> Any:
        return x if self.on_device(x) else jax.device_put(x, self.device)

    def available_memory(self) -> int | None:
        if self.is_cpu:
            return super().available_memory()
        stats = self.device.memory_stats() or {}
        if "bytes_limit" in stats:
            return int(stats["bytes_limit"]) - int(stats.get("bytes_in_use", 0))
        return None

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
        target = jax.dtypes.canonicalize_dtype(x.dtype)
        if target != x.dtype:  # 64-bit types without 64-bit mode: JAX would narrow them silently
            x = _narrowed(x, target)
        return jax.device_put(x, self.device)

    def _from_foreign(self, x: Any) -> Any:
        dtype = getattr(x, "dtype", None)
        wide = str(dtype).removeprefix("torch.") in ("int64", "uint64", "float64", "complex128")
        if wide and not jax.config.jax_enable_x64:  # through NumPy, whose narrowing is checked
            return self.from_numpy(np.asarray(x.detach().cpu() if hasattr(x, "detach") else x))
        return jax.device_put(super()._from_foreign(x), self.device)

    def register_static(self, cls: type) -> None:
        from . import register_static

        register_static(cls)  # one registry for every backend's classes (a class registers once)

    def is_traced(self, x: Any) -> bool:
        return isinstance(x, jax.core.Tracer)

    def jit(self, fn: Callable) -> Callable:
        return jax.jit(fn)

    def synchronize(self) -> None:
        (jnp.zeros((), device=self.device) + 0).block_until_ready()
