"""The PyTorch backend. torch is imported when this module is, never by ``import holovec``."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable
from functools import partial
from typing import Any

import array_api_compat.torch as torch_xp
import numpy as np
import torch

from ._torch_precision import FULL_FLOAT32_PRODUCTS
from .base import Backend
from .numpy_backend import NumpyBackend, numpy_philox_words

#: NumPy's kernels, for the bit operations of tensors on the CPU (see TorchBackend._on_host)
_HOST = NumpyBackend()


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


#: the compiled versions of the functions given to ``TorchBackend.fuse`` (dynamic shapes:
#: one compilation serves every length), or ``None`` for one that failed to compile
_FUSED: dict[Callable, Any] = {}


def _fused_call(fn: Callable, *args: Any) -> Any:
    """``fn(*args)``, through its compiled version where torch.compile works here (a
    compiler, and Triton on a GPU), else eagerly (warned once)."""
    compiled = _FUSED.get(fn, False)
    if compiled is False:
        compiled = _FUSED[fn] = torch.compile(fn, dynamic=True, fullgraph=True)
    if compiled is None:
        return fn(*args)
    try:
        return compiled(*args)
    except (torch._dynamo.exc.TorchDynamoException, ImportError, OSError) as e:
        _FUSED[fn] = None
        warnings.warn(
            f"torch.compile cannot compile holovec's random generator here ({type(e).__name__}: {e}); "
            "draws on this device run its ops one by one (the same numbers, more slowly)",
            stacklevel=2,
        )
        return fn(*args)


#: ops on CPU tensors of at least this many elements run on NumPy views (see
#: ``TorchBackend.host_views``): torch's grain size, above which it splits an op over threads
HOST_OP_ELEMENTS = 32768

#: draws of at most this many elements are made on the host and copied to a GPU (see
#: ``TorchBackend.draw_path``): one vector at D=10,000 and the like (tens of microseconds of
#: NumPy and one copy, against a dozen kernel launches); to be measured on a GPU
GPU_HOST_DRAW_ELEMENTS = 2**14


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

    @property
    def fuse_generator(self) -> bool:
        """Whether :meth:`fuse` compiles (on a CUDA GPU, where each eager op of the generic
        generator would be a kernel launch; on the CPU the generator is NumPy's)."""
        return self.device.type == "cuda"

    def fuse(self, fn: Callable) -> Callable:
        if not self.fuse_generator or torch.compiler.is_compiling():
            return fn
        return partial(_fused_call, fn)

    def draw_path(self, n_elements: int, exact: bool = True) -> str:
        """The rule (see ``Backend.draw_path``): on the CPU every draw is NumPy's, taken as
        a tensor without a copy (bit for bit NumPy's, and never a wait on torch's intra-op
        thread pool, which a busy machine made 100 times slower for one vector); on a GPU,
        draws of at most :data:`GPU_HOST_DRAW_ELEMENTS` elements too (one copy instead of the
        dozens of small kernels of the generic generator), larger ones on the device.
        Inside ``torch.compile`` the draw is traced op by op. Samplers that round
        transcendental functions (``exact=False``) stay on the GPU whatever the size."""
        if torch.compiler.is_compiling():
            return "eager"
        small = exact and n_elements <= GPU_HOST_DRAW_ELEMENTS
        return "host" if self.is_cpu or small else "eager"

    lends_host_views = True

    def host_views(self, *arrays: Any) -> tuple[np.ndarray, ...] | None:
        """NumPy views of CPU tensors of at least :data:`HOST_OP_ELEMENTS` elements in all,
        outside autograd and traces: torch parallelises ops of that size over its intra-op
        thread pool, whose threads wait for each other (measured on 2 cores with another
        process busy: a bundle of 100 FHRR vectors at D=10,000 took 8 ms in torch, 0.2 ms in
        NumPy on one core), and NumPy's transcendental kernels are faster on the CPU (its
        ``cos`` 4 times torch's). Smaller ops stay in torch, on the calling thread."""
        if sum(x.numel() for x in arrays) < HOST_OP_ELEMENTS or not self._on_host(*arrays):
            return None
        if any(x.requires_grad or x.dtype == torch.bfloat16 for x in arrays):
            return None  # autograd needs torch's ops; NumPy has no bfloat16
        return tuple(x.resolve_conj().resolve_neg().numpy() for x in arrays)

    def unit_phasor(self, phases: Any) -> Any:
        views = self.host_views(phases)
        if views is not None:
            return torch.from_numpy(_HOST.unit_phasor(views[0]))
        return super().unit_phasor(phases)

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
            out[start : start + block] = self.matmul(left[start : start + block], right)
        tail = n % block
        if tail:
            out[n - tail :] = self.matmul(left[n - block :], right)[block - tail :]
        return out

    def matmul(self, x1: Any, x2: Any) -> Any:
        if not FULL_FLOAT32_PRODUCTS.needed():  # torch's default: full precision already
            return x1 @ x2
        with FULL_FLOAT32_PRODUCTS:
            return x1 @ x2

    def vecdot(self, x1: Any, x2: Any) -> Any:
        # (the compat wrapper costs ~15 us a call)
        if not FULL_FLOAT32_PRODUCTS.needed():
            return torch.linalg.vecdot(x1, x2, dim=-1)
        with FULL_FLOAT32_PRODUCTS:
            return torch.linalg.vecdot(x1, x2, dim=-1)

    def full_precision(self) -> Any:
        return FULL_FLOAT32_PRODUCTS if FULL_FLOAT32_PRODUCTS.needed() else contextlib.nullcontext()

    def _on_host(self, *arrays: Any) -> bool:
        """Whether NumPy's kernels may compute on zero-copy views of these tensors: on the
        CPU, outside a trace (torch's own bit kernels are several times slower there)."""
        return self.device.type == "cpu" and not any(
            self.is_traced(x) or x.device.type != "cpu" for x in arrays
        )

    def map_chunks(self, fn: Callable, chunks: Any) -> list:
        if self.device.type == "cpu":  # chunks of one-core host kernels (bits): on every core
            return _HOST.map_chunks(fn, chunks)
        return super().map_chunks(fn, chunks)

    def pack_bits(self, bits: Any, n_bytes: int) -> Any:
        if self._on_host(bits) and bits.dtype == torch.uint8:
            return torch.from_numpy(_HOST.pack_bits(bits.contiguous().numpy(), n_bytes))
        return super().pack_bits(bits, n_bytes)

    def unpack_bytes(self, x: Any, n_bits: int) -> Any:
        if self._on_host(x):
            return torch.from_numpy(_HOST.unpack_bytes(x.contiguous().numpy(), n_bits))
        return super().unpack_bytes(x, n_bits)

    def hamming_matrix(self, queries: Any, items: Any, n_bits: int) -> Any:
        if self._on_host(queries, items):
            # torch's int8 product is slow on CPUs (18 s for 100 x 10,000 items of 10,000
            # bits, where NumPy's popcount takes 0.4 s): NumPy's, on zero-copy views
            host = _HOST.hamming_matrix(queries.contiguous().numpy(), items.contiguous().numpy(), n_bits)
            return torch.from_numpy(host)
        # on a GPU (torch has no popcount, and bitwise popcounts are slow in eager torch) an
        # exact int8 product of +-1 vectors is fast: hamming = (n_bits - <+-1, +-1>) / 2
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
        if torch.compiler.is_compiling():
            return super()._hamming_top_k(queries, items, n_bits, k)
        if self.device.type != "cpu":  # a GPU: an int8 product on its tensor cores
            from ._int8_search import torch_hamming_top_k

            return torch_hamming_top_k(queries, items, k)
        from . import _packed  # on the CPU: the host kernel on zero-copy NumPy views

        d, i = _packed.hamming_top_k(queries.contiguous().numpy(), items.contiguous().numpy(), k)
        return torch.from_numpy(d), torch.from_numpy(i)

    def hamming_temp_bytes(self, n_queries: int, n_bytes: int, n_bits: int) -> int:
        return 2 * n_bits  # the uint8 bits and the int8 +-1 values of one item

    def synchronize(self) -> None:
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
