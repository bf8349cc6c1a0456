"""The JAX backend. jax is imported when this module is, never by ``import holovec``.

The adapter of JAX; its kernels are :class:`~holovec.backends.kernels.jax_kernels.JaxKernels`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .base import Backend
from .kernels.jax_kernels import JaxKernels
from .shapes import row_class

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


#: the precision of every float product: XLA multiplies float32 in TF32 (or bfloat16) on
#: GPUs and TPUs unless a product states otherwise, whatever jax.default_matmul_precision
_FULL = jax.lax.Precision.HIGHEST

#: draws of at most this many elements are made on the host on the CPU (see
#: ``JaxBackend.draw_path``; measured at D=10,000: the host 1.5-3x faster for 1 to 10 rows,
#: the compiled program up to 2x faster for 100 and more)
HOST_DRAW_ELEMENTS = 2**17
#: the same on a GPU or TPU (copied there): one vector at D=10,000 and the like (tens of
#: microseconds of NumPy and one copy, against a call of the program); to be measured there
GPU_HOST_DRAW_ELEMENTS = 2**14

_PLATFORM_ALIASES = {"cuda": "gpu", "rocm": "gpu", "gpu": "gpu", "cpu": "cpu", "tpu": "tpu"}


@jax.jit
def _divide(x: Any, d: Any) -> Any:
    # XLA rewrites x / broadcast(d) as x * broadcast(1 / d), a float step off for some
    # values (and only for arrays of more than one element); an opaque full array of d
    # keeps the division a division, also where a caller's jit inlines this
    return x / jax.lax.optimization_barrier(jnp.full(x.shape, d, dtype=x.dtype))


@partial(jax.jit, donate_argnums=0)
def _write_rows(buffer: Any, start: Any, padded: Any, n: Any) -> Any:
    """``padded[:n]`` written over ``buffer[start:start + n]``, in the donated buffer.

    ``padded`` has a power of two of rows, so that one program serves every ``n`` up to it.
    ``dynamic_update_slice`` moves a window that would run past the end back inside the
    buffer; the window is therefore read first and only its rows ``start .. start + n``
    are replaced, so the rows before ``start`` keep their values wherever it lands."""
    p = padded.shape[0]
    at = jnp.minimum(start, buffer.shape[0] - p)
    offset = start - at
    window = jax.lax.dynamic_slice_in_dim(buffer, at, p, axis=0)
    local = jnp.arange(p)
    keep = (local >= offset) & (local < offset + n)
    moved = jnp.roll(padded, offset, axis=0)
    window = jnp.where(jnp.reshape(keep, (p,) + (1,) * (buffer.ndim - 1)), moved, window)
    return jax.lax.dynamic_update_slice_in_dim(buffer, window, at, axis=0)


class JaxBackend(JaxKernels, Backend):
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

    def float64_scope(self) -> Any:
        # 64-bit types only inside: the user's global setting stays as it is
        enable_x64 = getattr(jax, "enable_x64", None)
        if enable_x64 is None:  # older jax
            from jax.experimental import enable_x64

            return enable_x64()
        return enable_x64(True)

    def fence(self, x: Any) -> Any:
        return jax.lax.optimization_barrier(x)

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

    def complex(self, real: Any, imag: Any) -> Any:
        return jax.lax.complex(real, imag)

    def matmul(self, x1: Any, x2: Any) -> Any:
        return jnp.matmul(x1, x2, precision=_FULL)

    def vecdot(self, x1: Any, x2: Any) -> Any:
        return jnp.vecdot(x1, x2, axis=-1, precision=_FULL)

    def full_precision(self) -> Any:
        return jax.default_matmul_precision("highest")

    def fft(self, x: Any) -> Any:
        return jnp.fft.fft(x, axis=-1)

    def ifft(self, x: Any) -> Any:
        return jnp.fft.ifft(x, axis=-1)

    def rfft(self, x: Any) -> Any:
        return jnp.fft.rfft(x, axis=-1)

    def irfft(self, x: Any, n: int) -> Any:
        return jnp.fft.irfft(x, n=n, axis=-1)

    def draw_path(self, n_elements: int, exact: bool = True) -> str:
        """The rule (see ``Backend.draw_path``): draws of at most :data:`HOST_DRAW_ELEMENTS`
        elements on the CPU, :data:`GPU_HOST_DRAW_ELEMENTS` on a GPU or TPU, are NumPy's,
        copied in (faster than a call of a compiled program); larger ones, and every draw
        of a sampler that XLA rounds differently from NumPy (``exact=False``), are one
        compiled program."""
        limit = HOST_DRAW_ELEMENTS if self.is_cpu else GPU_HOST_DRAW_ELEMENTS
        return "host" if exact and n_elements <= limit else "compiled"

    def repeat(self, fn: Callable, state: Any, times: int) -> Any:
        """``fn`` applied ``times`` times to ``state``, as one compiled loop."""
        return jax.lax.fori_loop(0, times, lambda _, s: fn(s), state)

    def while_loop(self, cond: Callable[[Any], Any], body: Callable[[Any], Any], state: Any) -> Any:
        return jax.lax.while_loop(cond, body, state)

    def register_static(self, cls: type) -> None:
        from . import register_static

        register_static(cls)  # one registry for every backend's classes (a class registers once)

    def is_traced(self, x: Any) -> bool:
        return isinstance(x, jax.core.Tracer)

    def jit(self, fn: Callable) -> Callable:
        return jax.jit(fn)

    def divide(self, x: Any, d: float) -> Any:
        return _divide(x, d)

    def write_rows(self, buffer: Any, start: int, rows: Any) -> Any:
        """The rows written by one compiled program that updates the donated ``buffer`` in
        place (JAX arrays are immutable: ``buffer.at[...].set`` outside a compiled program
        copies the whole buffer). The rows are padded to a power of two, so that one program
        serves every count up to it (one per buffer shape and power of two); ``buffer`` is
        invalid afterwards: keep the array returned.

        Parameters
        ----------
        buffer : jax.Array
            The rows written into, ``(capacity, ...)``.
        start : int
            The first row written.
        rows : jax.Array
            The rows, ``(n, ...)`` of the buffer's row shape and dtype.
        """
        n = int(rows.shape[0])
        if n == 0:
            return buffer
        padded = row_class(n, maximum=int(buffer.shape[0]))  # the window stays in the buffer
        if padded != n:
            fill = jnp.zeros((padded - n, *rows.shape[1:]), dtype=rows.dtype)
            rows = jnp.concatenate([rows, fill], axis=0)
        return _write_rows(buffer, start, rows, n)

    def synchronize(self) -> None:
        (jnp.zeros((), device=self.device) + 0).block_until_ready()

    def cond(self, pred: Any, shortcut: Callable[[], Any], general: Callable[[], Any]) -> Any:
        if self.is_traced(pred):
            return jax.lax.cond(pred, shortcut, general)
        return super().cond(pred, shortcut, general)
