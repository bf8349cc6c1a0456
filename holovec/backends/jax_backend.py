"""The JAX backend. jax is imported when this module is, never by ``import holovec``."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .base import Backend
from .numpy_backend import numpy_philox_words

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


def _host_philox_words(block_start: int, n_blocks: int, seed: Any, stream: Any, purpose: Any) -> np.ndarray:
    """``numpy_philox_words`` of an address given as little-endian uint32 words."""

    def number(words: Any) -> int:
        return int.from_bytes(np.asarray(words, dtype="<u4").tobytes(), "little")

    return numpy_philox_words(number(seed), (block_start, number(stream), number(purpose)), n_blocks)


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


@partial(jax.jit, static_argnames="block")
def _row_blocked_matmul(left: Any, right: Any, block: int) -> Any:
    """Products of ``block`` rows of ``left`` each (see ``Backend.row_blocked_matmul``), one
    program: a loop over equal-shaped blocks, the last one overlapping (or zero-padded)."""
    n = left.shape[0]
    if n < block:
        left = jnp.concatenate([left, jnp.zeros((block - n, left.shape[1]), left.dtype)])
    count = -(-max(n, 1) // block)
    starts = jnp.minimum(jnp.arange(count) * block, max(n, block) - block)
    # barriers: every block product is the same program whatever surrounds it (XLA would
    # otherwise fuse the slicing or a caller's transposes into the product, as it sees fit
    # for each context, and round differently)
    barrier = jax.lax.optimization_barrier
    right = barrier(right)

    def product(s: Any) -> Any:
        rows = barrier(jax.lax.dynamic_slice_in_dim(left, s, block, 0))
        return barrier(jnp.matmul(rows, right, precision=_FULL))

    blocks = jax.lax.map(product, starts)
    if n <= block:
        return blocks[0, :n]
    tail = n - (count - 1) * block
    full = blocks[:-1].reshape((count - 1) * block, blocks.shape[-1])
    return jnp.concatenate([full, blocks[-1, block - tail :]])


@jax.jit
def _divide(x: Any, d: Any) -> Any:
    # XLA rewrites x / broadcast(d) as x * broadcast(1 / d), a float step off for some
    # values (and only for arrays of more than one element); an opaque full array of d
    # keeps the division a division, also where a caller's jit inlines this
    return x / jax.lax.optimization_barrier(jnp.full(x.shape, d, dtype=x.dtype))


@partial(jax.jit, static_argnames="block")
def _row_squared_norms(x: Any, block: int) -> Any:
    """Squared row norms in blocks of ``block`` rows (XLA vectorises a reduction by shape, so
    that a row's rounded sum would change with the number of rows it comes with)."""
    n = x.shape[0]
    if n < block:
        x = jnp.concatenate([x, jnp.zeros((block - n, x.shape[1]), x.dtype)])
    count = -(-max(n, 1) // block)
    starts = jnp.minimum(jnp.arange(count) * block, max(n, block) - block)

    def sums(s: Any) -> Any:  # barriers as in _row_blocked_matmul
        rows = jax.lax.optimization_barrier(jax.lax.dynamic_slice_in_dim(x, s, block, 0))
        return jax.lax.optimization_barrier(jnp.sum(jnp.real(rows * jnp.conj(rows)), axis=-1))

    blocks = jax.lax.map(sums, starts)
    if n <= block:
        return blocks[0, :n]
    tail = n - (count - 1) * block
    return jnp.concatenate([blocks[:-1].reshape(-1), blocks[-1, block - tail :]])


def _item_chunk_loop(fn: Callable, chunk: int, queries: tuple, items: tuple) -> Any:
    """``fn`` over chunks of ``chunk`` items in one program (see ``map_item_chunks``): a loop
    that writes each chunk's scores into the result in place, the last chunk overlapping
    the one before it, so that every chunk has one shape (one compilation, whatever the
    number of chunks)."""
    n = items[0].shape[0]
    count = -(-n // chunk)
    first = jax.eval_shape(fn, queries, tuple(a[:chunk] for a in items))
    out = jnp.zeros((*first.shape[:-1], n), dtype=first.dtype)

    def body(i: Any, out: Any) -> Any:
        start = jnp.minimum(i * chunk, n - chunk)
        part = fn(queries, tuple(jax.lax.dynamic_slice_in_dim(a, start, chunk, 0) for a in items))
        return jax.lax.dynamic_update_slice_in_dim(out, part, start, axis=out.ndim - 1)

    return jax.lax.fori_loop(0, count, body, out)


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

    def float64_scope(self) -> Any:
        # 64-bit types only inside: the user's global setting stays as it is
        enable_x64 = getattr(jax, "enable_x64", None)
        if enable_x64 is None:  # older jax
            from jax.experimental import enable_x64

            return enable_x64()
        return enable_x64(True)

    def fence(self, x: Any) -> Any:
        return jax.lax.optimization_barrier(x)

    def take_rows(self, x: Any, rows: Any) -> Any:
        if self.is_partitioned(x):  # sharded over a mesh, perhaps of several processes
            from ._jax_sharded import gather_rows

            return gather_rows(x, np.asarray(rows), self.device)
        return jnp.take(x, jnp.asarray(rows), axis=0)

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

    def philox_words(self, key: int, counter_start: tuple[int, Any, int], n_blocks: int) -> Any:
        if not self.is_cpu:
            return None
        return jax.device_put(numpy_philox_words(key, counter_start, n_blocks), self.device)

    def philox_words_of(
        self, seed: Any, stream: Any, purpose: Any, block_start: int, n_blocks: int
    ) -> Any | None:
        """Words of an address given as word arrays (``holovec.random.Words``, traced in a
        compiled draw) from NumPy's C generator, on the CPU: a host callback, 4-6 times
        faster there than the generator compiled by XLA (which serves the other devices)."""
        if not self.is_cpu:
            return None
        result = jax.ShapeDtypeStruct((8 * n_blocks,), jnp.uint32)
        callback = partial(_host_philox_words, block_start, n_blocks)
        return jax.pure_callback(callback, result, seed, stream, purpose, vmap_method="broadcast_all")

    def draw_path(self, n_elements: int, exact: bool = True) -> str:
        """The rule (see ``Backend.draw_path``): draws of at most :data:`HOST_DRAW_ELEMENTS`
        elements on the CPU, :data:`GPU_HOST_DRAW_ELEMENTS` on a GPU or TPU, are NumPy's,
        copied in (faster than a call of a compiled program); larger ones, and every draw
        of a sampler that XLA rounds differently from NumPy (``exact=False``), are one
        compiled program."""
        limit = HOST_DRAW_ELEMENTS if self.is_cpu else GPU_HOST_DRAW_ELEMENTS
        return "host" if exact and n_elements <= limit else "compiled"

    def finish_before_exit(self, result: Any) -> Any:
        if not self.is_cpu:  # no host callbacks elsewhere (philox_words_of)
            return result
        from ._jax_exit import finish_before_exit

        return finish_before_exit(result)

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

    def top_k(self, scores: Any, k: int) -> tuple[Any, Any]:
        n = scores.shape[-1]
        k = min(int(k), n)
        if k == n or k == 0:
            return super().top_k(scores, k)
        return jax.lax.top_k(scores, k)  # documented: equal values, lower index first

    def divide(self, x: Any, d: float) -> Any:
        return _divide(x, d)

    def map_item_chunks(
        self, fn: Callable, queries: tuple, items: tuple, chunk: int, parallel: bool, cache: dict
    ) -> Any:
        # eager JAX compiles every slice of a new offset, and a join of many parts, anew
        # (time grew with the square of the number of chunks): one compiled loop instead
        key = ("item_chunks", getattr(fn, "__func__", fn), chunk)
        loop = cache.get(key)
        if loop is None:
            loop = cache[key] = jax.jit(partial(_item_chunk_loop, fn, chunk))
        return loop(queries, items)

    def row_squared_norms(self, x: Any, block: int) -> Any:
        if x.shape[0] == 0:
            return jnp.zeros((0,), dtype=jnp.real(x).dtype)
        return _row_squared_norms(x, block=block)

    def row_blocked_matmul(self, left: Any, right: Any, block: int) -> Any:
        if left.shape[0] == 0:
            return jnp.zeros((0, right.shape[1]), dtype=jnp.result_type(left, right))
        return _row_blocked_matmul(left, right, block=block)

    def popcount(self, x: Any) -> Any:
        return jax.lax.population_count(x)

    # on the CPU the host's fused kernel reads JAX's buffers in place; on a GPU an exact
    # int8 product on the tensor cores (backends/_int8_search.py), its fastest operation
    fast_hamming_search = True

    def _hamming_top_k(self, queries: Any, items: Any, n_bits: int, k: int) -> tuple[Any, Any]:
        from . import _int8_search

        traced = self.is_traced(queries) or self.is_traced(items)
        if self.is_cpu and not traced:
            from . import _packed  # the host kernel on NumPy views of JAX's buffers

            d, i = _packed.hamming_top_k(np.asarray(queries), np.asarray(items), k)
            return self.from_numpy(d), self.from_numpy(i)  # indices int32 unless 64-bit mode
        if k <= _int8_search.chunk_rows(8 * queries.shape[1], items.shape[0], queries.shape[0]):
            return _int8_search.jax_hamming_top_k(queries, items, k)
        return super()._hamming_top_k(queries, items, n_bits, k)

    def count_bits(self, x: Any) -> Any:
        if x.shape[-1] % 4 == 0:  # read bytes as uint32 words (64-bit needs x64 mode)
            x = jax.lax.bitcast_convert_type(x.reshape(*x.shape[:-1], x.shape[-1] // 4, 4), jnp.uint32)
        return jnp.sum(jax.lax.population_count(x), axis=-1, dtype=jnp.int32)

    def synchronize(self) -> None:
        (jnp.zeros((), device=self.device) + 0).block_until_ready()

    def cond(self, pred: Any, shortcut: Callable[[], Any], general: Callable[[], Any]) -> Any:
        if self.is_traced(pred):
            return jax.lax.cond(pred, shortcut, general)
        return super().cond(pred, shortcut, general)

    def in_one_place(self, x: Any) -> Any:
        if self.is_traced(x) or len(getattr(getattr(x, "sharding", None), "device_set", ())) < 2:
            return x
        from ._jax_sharded import in_one_place

        return in_one_place(x, self.device)

    def replicated_like(self, x: Any, like: Any) -> Any:
        if self.is_traced(x) or self.is_traced(like) or not self.is_partitioned(like):
            return x
        from ._jax_sharded import replicated

        return replicated(x, like.sharding.mesh)

    def is_partitioned(self, x: Any) -> bool:
        if self.is_traced(x) or len(getattr(getattr(x, "sharding", None), "device_set", ())) < 2:
            return False  # one device: no need to look further (or import the module)
        from ._jax_sharded import row_axes

        return row_axes(x) is not None

    def partitioned_search(
        self, search_part: Callable, queries: Any, items: Any, k: int
    ) -> tuple[Any, Any] | None:
        """Items sharded by rows over several devices (a ``NamedSharding`` that splits axis 0,
        e.g. from :func:`holovec.retrieval.shard_rows`): a top-k on each device and a merge of
        only ``k`` candidates per device and query (see :mod:`holovec.backends._jax_sharded`);
        ``None`` for an array on one device."""
        from ._jax_sharded import sharded_search

        return sharded_search(search_part, queries, items, k, self.device)
