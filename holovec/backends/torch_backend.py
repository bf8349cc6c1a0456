"""The PyTorch backend. torch is imported when this module is, never by ``import holovec``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import array_api_compat.torch as torch_xp
import numpy as np
import torch

from .base import Backend
from .numpy_backend import numpy_philox_words


def _byte_popcount(x: Any) -> Any:
    """Set bits of each byte of a uint8 tensor, as uint8 (nibble table, no 64-bit temporaries)."""
    table = torch.tensor([0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4], dtype=torch.uint8, device=x.device)
    return table[(x & 15).long()] + table[(x >> 4).long()]


def _bipolar_int8(bits: Any) -> Any:
    """0/1 bits as +1/-1 int8."""
    return 1 - 2 * bits.to(torch.int8)


def _complex_of(dtype: Any) -> Any:
    """The complex dtype of a real or complex dtype's precision."""
    return torch.complex128 if dtype in (torch.float64, torch.complex128) else torch.complex64


class TorchBackend(Backend):
    """PyTorch tensors on a CPU, CUDA or MPS device."""

    name = "torch"
    fast_packed_hamming = True
    fast_hamming_search = True
    # torch has no add or shift for uint32, so 32-bit words live in int64 and are masked
    word_dtype_name = "int64"

    def _namespace(self) -> Any:
        return torch_xp

    def _resolve_device(self, device: Any) -> Any:
        if device is None:
            device = "cuda" if torch.cuda.is_available() else "cpu"
        try:
            dev = torch.device(device.lower() if isinstance(device, str) else device)
        except (RuntimeError, TypeError):
            raise ValueError(
                f"invalid torch device {device!r}; expected 'cpu', 'cuda', 'cuda:<index>' or 'mps'"
            ) from None
        # the device as tensors on it report theirs (cpu without an index, the others with
        # one), so that a tensor's device compares equal to the model's
        if dev.type == "cpu":
            if dev.index not in (None, 0):
                raise ValueError(
                    f"device {device!r} asked for, but torch has one CPU device: 'cpu' (or 'cpu:0')"
                )
            return torch.device("cpu")
        if dev.type == "cuda":
            count = torch.cuda.device_count() if torch.cuda.is_available() else 0
            if count == 0:
                raise ValueError(
                    f"device {device!r} asked for, but torch finds no CUDA GPU "
                    "(torch.cuda.is_available() is False); use device='cpu' or None"
                )
            if dev.index is not None and dev.index >= count:
                raise ValueError(
                    f"device {device!r} asked for, but torch finds only {count} CUDA GPU(s): "
                    f"cuda:0 to cuda:{count - 1}"
                )
            return torch.device("cuda", torch.cuda.current_device() if dev.index is None else dev.index)
        if dev.type == "mps":
            if not torch.backends.mps.is_available():
                raise ValueError(f"device {device!r} asked for, but the MPS backend is not available")
            if dev.index not in (None, 0):
                raise ValueError(f"device {device!r} asked for, but torch has one MPS device: 'mps'")
            return torch.device("mps", 0)
        raise ValueError(f"unsupported torch device {device!r}; expected 'cpu', 'cuda[:n]' or 'mps'")

    @property
    def is_cpu(self) -> bool:
        return self.device.type == "cpu"

    @property
    def array_type(self) -> type:
        return torch.Tensor

    def on_device(self, x: Any) -> bool:
        return x.device == self.device

    def to_device(self, x: Any) -> Any:
        if x.device == self.device:
            return x
        try:
            return x.to(self.device)
        except (NotImplementedError, RuntimeError) as e:
            raise ValueError(
                f"cannot move a tensor on device {x.device} to this backend's device {self.device}: {e}"
            ) from None

    def available_memory(self) -> int | None:
        if self.device.type == "cuda":
            return int(torch.cuda.mem_get_info(self.device)[0])
        if self.device.type == "cpu":
            return super().available_memory()
        return None

    def dtype(self, name: str) -> Any:
        dtype = getattr(torch, name, None)
        if not isinstance(dtype, torch.dtype):
            raise TypeError(f"torch has no dtype {name!r}")
        return dtype

    def to_numpy(self, x: Any) -> np.ndarray:
        if x.dtype == torch.bfloat16:  # NumPy has no bfloat16; float32 holds it exactly
            x = x.float()
        return x.detach().cpu().numpy()

    def from_numpy(self, x: np.ndarray) -> Any:
        if x.dtype.kind == "u" and x.dtype != np.uint8:
            if x.dtype.itemsize == 8 and x.size and int(x.max()) >= 2**63:
                big = x[x >= 2**63]
                raise ValueError(
                    f"{big.size} of {x.size} uint64 values do not fit torch's int64 (which holds "
                    f"torch's wide unsigned ints), e.g. {int(big[0])}; values must be below 2**63"
                )
            x = x.astype(np.int64)  # torch's wide unsigned types are barely usable
        # ascontiguousarray makes 0-d arrays 1-d: keep the shape
        return torch.as_tensor(np.ascontiguousarray(x).reshape(x.shape), device=self.device)

    def _from_foreign(self, x: Any) -> Any:
        return super()._from_foreign(x).to(self.device)

    def complex(self, real: Any, imag: Any) -> Any:
        return torch.complex(real, imag)

    def clip(self, x: Any, low: float, high: float) -> Any:
        return torch.clamp(x, low, high)

    def real_view(self, x: Any) -> Any:
        return torch.view_as_real(x.resolve_conj()).flatten(-2)

    def complex_view(self, x: Any) -> Any:
        return torch.view_as_complex(x.unflatten(-1, (-1, 2)).contiguous())

    # torch's CPU FFT (MKL) fails on empty batches: those are answered without it
    def fft(self, x: Any) -> Any:
        if x.numel() == 0:
            return torch.zeros_like(x, dtype=_complex_of(x.dtype))
        return torch.fft.fft(x, dim=-1)

    def ifft(self, x: Any) -> Any:
        if x.numel() == 0:
            return torch.zeros_like(x, dtype=_complex_of(x.dtype))
        return torch.fft.ifft(x, dim=-1)

    def rfft(self, x: Any) -> Any:
        if x.numel() == 0:
            shape = (*x.shape[:-1], x.shape[-1] // 2 + 1)
            return torch.zeros(shape, dtype=_complex_of(x.dtype), device=x.device)
        return torch.fft.rfft(x, dim=-1)

    def irfft(self, x: Any, n: int) -> Any:
        if x.numel() == 0:
            return torch.zeros((*x.shape[:-1], n), dtype=x.real.dtype, device=x.device)
        return torch.fft.irfft(x, n=n, dim=-1)

    def philox_words(self, key: int, counter_start: tuple[int, Any, int], n_blocks: int) -> Any:
        if not self.is_cpu:
            return None  # computed on the device by the generic path
        words = numpy_philox_words(key, counter_start, n_blocks)
        return torch.from_numpy(words).to(torch.int64)

    def is_traced(self, x: Any) -> bool:
        # functorch transforms (vmap, grad) wrap tensors; torch.compile traces with fake tensors
        # (asked first: dynamo cannot trace the functorch query, and need not)
        return torch.compiler.is_compiling() or torch._C._functorch.is_functorch_wrapped_tensor(x)

    def jit(self, fn: Callable) -> Callable:
        return torch.compile(fn)

    def top_k(self, scores: Any, k: int) -> tuple[Any, Any]:
        n = scores.shape[-1]
        k = min(int(k), n)
        if k == n or k == 0:
            return super().top_k(scores, k)
        values, idx = torch.topk(scores, k, dim=-1)  # best first; order among ties unspecified
        kth = values[..., -1:]
        if not bool(((scores >= kth).sum(dim=-1) == k).all()):
            return self._top_k_from_kth(scores, k, kth)  # ties at the k-th score: lowest index
        by_index = torch.argsort(idx, dim=-1)
        values, idx = values.gather(-1, by_index), idx.gather(-1, by_index)
        order = torch.argsort(values, dim=-1, descending=True, stable=True)
        return values.gather(-1, order), idx.gather(-1, order)

    def popcount(self, x: Any) -> Any:
        # torch has no popcount: count the bits of each byte, then add the bytes of an element
        counts = _byte_popcount(x.contiguous().view(torch.uint8))
        return counts.view(*x.shape, x.element_size()).sum(-1, dtype=torch.int32)

    def count_bits(self, x: Any) -> Any:
        if x.shape[-1] % 8:
            return _byte_popcount(x).sum(-1, dtype=torch.int32)
        words = x.contiguous().view(torch.int64)
        # SWAR popcount (Hacker's Delight 5-1) on 64-bit words; after three steps each
        # byte holds its own count (<= 8), so bytes of up to 31 words add without overflow
        words = words - ((words >> 1) & 0x5555555555555555)
        words = (words & 0x3333333333333333) + ((words >> 2) & 0x3333333333333333)
        words = (words + (words >> 4)) & 0x0F0F0F0F0F0F0F0F
        n = words.shape[-1]
        pad = (-n) % 31
        if pad:
            words = torch.nn.functional.pad(words, (0, pad))
        byte_sums = words.view(*words.shape[:-1], words.shape[-1] // 31, 31).sum(-1)
        # add the 8 byte counts of each 64-bit lane (each < 256), then the lanes
        total = (byte_sums & 0x00FF00FF00FF00FF) + ((byte_sums >> 8) & 0x00FF00FF00FF00FF)
        total = (total * 0x0001000100010001) >> 48 & 0xFFFF
        return total.sum(-1, dtype=torch.int32)

    def row_blocked_matmul(self, left: Any, right: Any, block: int) -> Any:
        n = left.shape[0]
        if n <= block or torch.compiler.is_compiling():
            return super().row_blocked_matmul(left, right, block)
        out = torch.empty((n, right.shape[1]), dtype=torch.result_type(left, right), device=left.device)
        for start in range(0, n - block + 1, block):
            out[start : start + block] = left[start : start + block] @ right
        tail = n % block
        if tail:
            out[n - tail :] = (left[n - block :] @ right)[block - tail :]
        return out

    def vecdot(self, x1: Any, x2: Any) -> Any:
        return torch.linalg.vecdot(x1, x2, dim=-1)  # the compat wrapper costs ~15 us a call

    def hamming_matrix(self, queries: Any, items: Any, n_bits: int) -> Any:
        # torch has no popcount, and bitwise popcounts are slow in eager torch; an exact
        # int8 product of +-1 vectors is fast: hamming = (n_bits - <+-1, +-1>) / 2
        q, b = (_bipolar_int8(self.unpack_bytes(x, n_bits)) for x in (queries, items))
        # torch.compile's inductor (torch 2.13, CPU) miscomputes _int_mm with one query
        # column, so compiled code takes the float32 product, which is exact too
        dots = None
        if not torch.compiler.is_compiling():
            try:
                dots = torch._int_mm(b, q.T.contiguous()).T  # int32, exact
            except (AttributeError, RuntimeError):  # no int8 kernel here
                dots = None
        if dots is None:
            dots = (b.float() @ q.float().T).T.round().to(torch.int32)
        return (n_bits - dots) // 2

    def _hamming_top_k(self, queries: Any, items: Any, n_bits: int, k: int) -> tuple[Any, Any]:
        if self.device.type != "cpu" or torch.compiler.is_compiling():
            return super()._hamming_top_k(queries, items, n_bits, k)
        from . import _packed  # on the CPU: the host kernel on zero-copy NumPy views

        d, i = _packed.hamming_top_k(queries.contiguous().numpy(), items.contiguous().numpy(), k)
        return torch.from_numpy(d), torch.from_numpy(i)

    def hamming_temp_bytes(self, n_queries: int, n_bytes: int, n_bits: int) -> int:
        return 2 * n_bits  # the uint8 bits and the int8 +-1 values of one item

    def synchronize(self) -> None:
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
