"""The PyTorch backend. torch is imported when this module is, never by ``import holovec``.

The adapter of torch; its kernels are :class:`~holovec.backends.kernels.torch_kernels.TorchKernels`.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable
from functools import partial
from typing import Any

import array_api_compat.torch as torch_xp
import numpy as np
import torch

from ._torch_precision import products_on
from .base import Backend
from .kernels.torch_kernels import TorchKernels, host_computable
from .numpy_backend import NumpyBackend, host_small_products

#: NumPy's twin of this backend's ops, for CPU tensors of many elements (see
#: ``TorchBackend.host_views``)
_HOST = NumpyBackend()


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


class TorchBackend(TorchKernels, Backend):
    """PyTorch tensors on a CPU, CUDA or MPS device."""

    name = "torch"
    trace_transforms = "torch.func or torch.compile"
    singular_system_errors = (torch.linalg.LinAlgError, np.linalg.LinAlgError)
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

    def small_products(self, flops: float) -> Any:
        """On the CPU, NumPy's rule (its BLAS on one thread for small products): the steps
        of such loops run on NumPy views (:meth:`host_views`), so their sums are then NumPy's
        at any thread count; a no-op on a GPU."""
        return host_small_products(flops) if self.is_cpu else contextlib.nullcontext()

    def host_views(self, *arrays: Any) -> tuple[np.ndarray, ...] | None:
        """NumPy views of CPU tensors of at least :data:`HOST_OP_ELEMENTS` elements in all,
        outside autograd and traces: torch parallelises ops of that size over its intra-op
        thread pool, whose threads wait for each other (measured on 2 cores with another
        process busy: a bundle of 100 FHRR vectors at D=10,000 took 8 ms in torch, 0.2 ms in
        NumPy on one core), and NumPy's transcendental kernels are faster on the CPU (its
        ``cos`` 4 times torch's). Smaller ops stay in torch, on the calling thread."""
        if sum(x.numel() for x in arrays) < HOST_OP_ELEMENTS or not host_computable(self, *arrays):
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

    def matmul(self, x1: Any, x2: Any) -> Any:
        # only this device's setting counts: a CPU product leaves the GPU's TF32 alone
        scope = products_on(self.device.type)
        if not scope.needed():  # torch's default: full precision already
            return x1 @ x2
        with scope:
            return x1 @ x2

    def vecdot(self, x1: Any, x2: Any) -> Any:
        # (the compat wrapper costs ~15 us a call)
        scope = products_on(self.device.type)
        if not scope.needed():
            return torch.linalg.vecdot(x1, x2, dim=-1)
        with scope:
            return torch.linalg.vecdot(x1, x2, dim=-1)

    def full_precision(self) -> Any:
        scope = products_on(self.device.type)
        return scope if scope.needed() else contextlib.nullcontext()

    def synchronize(self) -> None:
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
