"""The hand-written code of the device table (``benchmarks.device_table``) that the
per-model baselines (``benchmarks.baselines``) do not have: FPE encoding, the similarity
of pairs, exact top-k searches, and the device's own rates (copy bandwidth, int8 and
float32 products). One class per framework, with the same methods; each works on arrays
already on the device and returns arrays there (the timer waits for them).

Searches return ``(scores, indices)`` of the best ``k`` items per query, best first, in
the framework's arrays: integer dot products for the int8 searches, float dot products
for the float32 one (divide by the dimension for holovec's similarity scale).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, partial
from typing import Any

import numpy as np

#: items per product of the chunked torch int8 search (as the first GPU measurement used)
TORCH_CHUNK = 16_384
#: torch._int_mm needs more than 16 rows on the left and multiples of 8 elsewhere
INT_MM_MIN_ROWS = 24
INT_MM_MULTIPLE = 8


def padded_size(n: int, multiple: int, minimum: int = 0) -> int:
    """``n`` rounded up to a multiple of ``multiple``, and at least ``minimum``."""
    return max(minimum, -(-n // multiple) * multiple)


class TorchDeviceCode:
    """Hand-written PyTorch, eager, on one device."""

    def __init__(self, device: Any) -> None:
        import torch

        self.torch = torch
        self.device = torch.device(device)
        self._shifts = torch.arange(8, dtype=torch.uint8, device=self.device)

    # -- preparation (not timed) ----------------------------------------------------------
    def warm_up(self) -> None:
        """Start the device: its context and its BLAS library (a small float product)."""
        x = self.torch.ones((8, 8), device=self.device)
        (x @ x).sum().item()

    def pad(self, x: Any, rows: int, cols: int) -> Any:
        """``x`` (2-d) with zero rows and columns appended up to ``rows`` x ``cols``."""
        out = self.torch.zeros((rows, cols), dtype=x.dtype, device=x.device)
        out[: x.shape[0], : x.shape[1]] = x
        return out

    def int8(self, x: Any) -> Any:
        """A +-1 float array as int8."""
        return x.to(self.torch.int8)

    def real_view(self, x: Any) -> Any:
        """A complex array as float32 rows of interleaved (re, im), without a copy."""
        return self.torch.view_as_real(x).flatten(-2)

    def unpacked_floats(self, packed: Any) -> Any:
        """Bit-packed rows (bit ``j`` in bit ``j % 8`` of byte ``j // 8``) as +-1 float32."""
        return self._unpacked_pm1(packed).to(self.torch.float32)

    # -- timed ----------------------------------------------------------------------------
    def fpe(self, x: Any, theta: Any, offset: float, scale: float) -> Any:
        """``exp(1j * outer((x - offset) * scale, theta))`` as complex64: the FPE of scalars
        ``x`` with the phases ``theta`` (an FHRR encoder's ``min_val`` and ``beta``)."""
        phases = self.torch.outer((x - offset) * scale, theta)
        return self.torch.complex(self.torch.cos(phases), self.torch.sin(phases))

    def similarity_pairs(self, a: Any, b: Any) -> Any:
        """``Re(a_i . conj(b_i)) / D`` for each row pair (complex rows, read as real views)."""
        ra, rb = self.real_view(a), self.real_view(b)
        return (ra * rb).sum(dim=-1) / a.shape[-1]

    def int8_top_k(self, queries: Any, items: Any, k: int) -> tuple[Any, Any]:
        """Exact int8 products with int32 accumulation (``torch._int_mm``), ``TORCH_CHUNK``
        items at a time, a top-k per chunk, then the top-k of the chunks' candidates.
        ``queries`` have at least ``INT_MM_MIN_ROWS`` rows; every size is a multiple of 8."""
        return self._chunked_top_k(queries, items, k, lambda chunk: chunk)

    def packed_int8_top_k(self, queries: Any, items: Any, k: int) -> tuple[Any, Any]:
        """``int8_top_k`` of bit-packed rows, each chunk unpacked to +-1 int8 on the device
        (padding bits, zero in both, add the same constant to every score)."""
        return self._chunked_top_k(self._unpacked_pm1(queries), items, k, self._unpacked_pm1)

    def float_top_k(self, queries: Any, items: Any, k: int) -> tuple[Any, Any]:
        """One float32 product of all queries and items, then ``torch.topk``."""
        return self.torch.topk(queries @ items.T, k, dim=-1)

    def _chunked_top_k(
        self, queries: Any, items: Any, k: int, as_int8: Callable[[Any], Any]
    ) -> tuple[Any, Any]:
        torch = self.torch
        scores, indices = [], []
        for start in range(0, items.shape[0], TORCH_CHUNK):
            chunk = as_int8(items[start : start + TORCH_CHUNK])
            s, i = torch.topk(torch._int_mm(queries, chunk.T), min(k, chunk.shape[0]), dim=-1)
            scores.append(s)
            indices.append(i + start)
        s, i = torch.cat(scores, dim=-1), torch.cat(indices, dim=-1)
        best, where = torch.topk(s, k, dim=-1)
        return best, torch.gather(i, -1, where)

    def _unpacked_pm1(self, packed: Any) -> Any:
        bits = (packed[..., None] >> self._shifts) & 1
        return (1 - 2 * bits.to(self.torch.int8)).reshape(packed.shape[0], -1)

    # -- the device's rates: (fn, units of work per call) ---------------------------------
    def copy(self, n_bytes: int) -> tuple[Callable[[], Any], float]:
        """A device-to-device copy of ``n_bytes``; work: bytes read and written."""
        src = self.torch.ones(n_bytes, dtype=self.torch.uint8, device=self.device)
        dst = self.torch.empty_like(src)
        return partial(dst.copy_, src), 2.0 * n_bytes

    def int8_product(self, n: int) -> tuple[Callable[[], Any], float]:
        """An ``n`` x ``n`` x ``n`` int8 product with int32 accumulation; work: 2 n^3."""
        torch = self.torch
        a = torch.randint(-2, 3, (n, n), dtype=torch.int8, device=self.device)
        b = torch.randint(-2, 3, (n, n), dtype=torch.int8, device=self.device)
        return partial(torch._int_mm, a, b.T), 2.0 * n**3

    def float32_product(self, n: int) -> tuple[Callable[[], Any], float]:
        """An ``n`` x ``n`` x ``n`` float32 product (torch's matmul settings); work: 2 n^3."""
        torch = self.torch
        a = torch.randn((n, n), dtype=torch.float32, device=self.device)
        b = torch.randn((n, n), dtype=torch.float32, device=self.device)
        return partial(torch.matmul, a, b.T), 2.0 * n**3


@cache
def _jax_code() -> dict[str, Any]:
    """The jitted functions of :class:`JaxDeviceCode` (made once, on first use)."""
    import jax
    import jax.numpy as jnp

    highest = jax.lax.Precision.HIGHEST
    shifts = np.arange(8, dtype=np.uint8)

    def unpacked_pm1(packed: Any) -> Any:
        bits = (packed[..., None] >> shifts) & 1
        return (1 - 2 * bits.astype(jnp.int8)).reshape(packed.shape[0], -1)

    def int8_scores(queries: Any, items: Any) -> Any:
        return jnp.matmul(queries, items.T, preferred_element_type=jnp.int32)

    @partial(jax.jit, static_argnums=2)
    def int8_top_k(queries: Any, items: Any, k: int) -> Any:
        return jax.lax.top_k(int8_scores(queries, items), k)

    @partial(jax.jit, static_argnums=2)
    def packed_int8_top_k(queries: Any, items: Any, k: int) -> Any:
        return jax.lax.top_k(int8_scores(unpacked_pm1(queries), unpacked_pm1(items)), k)

    @partial(jax.jit, static_argnums=2)
    def float_top_k(queries: Any, items: Any, k: int) -> Any:
        return jax.lax.top_k(jnp.matmul(queries, items.T, precision=highest), k)

    @jax.jit
    def fpe(x: Any, theta: Any, offset: Any, scale: Any) -> Any:
        phases = jnp.outer((x - offset) * scale, theta)
        return jax.lax.complex(jnp.cos(phases), jnp.sin(phases))

    @jax.jit
    def similarity_pairs(a: Any, b: Any) -> Any:
        return (a.real * b.real + a.imag * b.imag).sum(axis=-1) / a.shape[-1]

    @jax.jit
    def real_view(x: Any) -> Any:
        return jnp.stack([x.real, x.imag], axis=-1).reshape(*x.shape[:-1], -1)

    return {
        "int8_top_k": int8_top_k,
        "packed_int8_top_k": packed_int8_top_k,
        "float_top_k": float_top_k,
        "fpe": fpe,
        "similarity_pairs": similarity_pairs,
        "real_view": real_view,
        "unpacked_floats": jax.jit(lambda p: unpacked_pm1(p).astype(jnp.float32)),
        "copy": jax.jit(jnp.copy),
        "int8_product": jax.jit(int8_scores),
        "float32_product": jax.jit(lambda a, b: jnp.matmul(a, b.T, precision=highest)),
    }


class JaxDeviceCode:
    """Hand-written JAX, each computation one jitted function (XLA schedules the whole
    search: one product of all queries and items, then ``lax.top_k``); float products at
    ``Precision.HIGHEST`` (full float32, not TF32)."""

    def __init__(self, device: Any) -> None:
        import jax
        import jax.numpy as jnp

        self.jax, self.jnp, self.device = jax, jnp, device
        code = _jax_code()
        self.fpe = code["fpe"]
        self.similarity_pairs = code["similarity_pairs"]
        self.int8_top_k = code["int8_top_k"]
        self.packed_int8_top_k = code["packed_int8_top_k"]
        self.float_top_k = code["float_top_k"]
        self.real_view = code["real_view"]
        self.unpacked_floats = code["unpacked_floats"]
        self._code = code

    def warm_up(self) -> None:
        """Start the device (a copy there and back; nothing compiled)."""
        np.asarray(self._put(np.ones(8, dtype=np.float32)))

    def pad(self, x: Any, rows: int, cols: int) -> Any:
        return self.jnp.pad(x, ((0, rows - x.shape[0]), (0, cols - x.shape[1])))

    def int8(self, x: Any) -> Any:
        return x.astype(self.jnp.int8)

    def _put(self, x: Any) -> Any:
        return self.jax.device_put(x, self.device)

    def copy(self, n_bytes: int) -> tuple[Callable[[], Any], float]:
        src = self._put(np.ones(n_bytes, dtype=np.uint8))
        return partial(self._code["copy"], src), 2.0 * n_bytes

    def int8_product(self, n: int) -> tuple[Callable[[], Any], float]:
        rng = np.random.default_rng(0)
        a, b = (self._put(rng.integers(-2, 3, (n, n), dtype=np.int8)) for _ in range(2))
        return partial(self._code["int8_product"], a, b), 2.0 * n**3

    def float32_product(self, n: int) -> tuple[Callable[[], Any], float]:
        rng = np.random.default_rng(1)
        a, b = (self._put(rng.standard_normal((n, n), dtype=np.float32)) for _ in range(2))
        return partial(self._code["float32_product"], a, b), 2.0 * n**3


def device_code(framework: str, device: Any) -> TorchDeviceCode | JaxDeviceCode:
    """The hand-written code of ``framework`` ("torch" or "jax") on ``device`` (the holovec
    backend's device object)."""
    if framework == "torch":
        return TorchDeviceCode(device)
    if framework == "jax":
        return JaxDeviceCode(device)
    raise ValueError(f"no device code for {framework!r}: torch or jax")
