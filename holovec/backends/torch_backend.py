"""The PyTorch backend. torch is imported when this module is, never by ``import holovec``.

The adapter of torch; its kernels are the torch versions in :mod:`holovec.kernels`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import array_api_compat.torch as torch_xp
import numpy as np
import torch

from .base import Backend

#: ops on CPU tensors of at least this many elements run on NumPy views (see
#: ``TorchBackend.host_views``): torch's grain size, above which it splits an op over threads
HOST_OP_ELEMENTS = 32768


def _on_host(backend: Any, *arrays: Any) -> bool:
    """Whether the tensors are on the CPU outside a trace (NumPy may view them)."""
    return backend.device.type == "cpu" and not any(
        backend.is_traced(x) or x.device.type != "cpu" for x in arrays
    )


class TorchBackend(Backend):
    """PyTorch tensors on a CPU, CUDA or MPS device."""

    name = "torch"
    trace_transforms = "torch.func or torch.compile"
    lends_host_views = True

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

    def host_views(self, *arrays: Any) -> tuple[np.ndarray, ...] | None:
        """NumPy views of CPU tensors of at least :data:`HOST_OP_ELEMENTS` elements in all,
        outside autograd and traces: torch parallelises ops of that size over its intra-op
        thread pool, whose threads wait for each other (measured on 2 cores with another
        process busy: a bundle of 100 FHRR vectors at D=10,000 took 8 ms in torch, 0.2 ms in
        NumPy on one core), and NumPy's transcendental kernels are faster on the CPU (its
        ``cos`` 4 times torch's). Smaller ops stay in torch, on the calling thread."""
        if sum(x.numel() for x in arrays) < HOST_OP_ELEMENTS or not _on_host(self, *arrays):
            return None
        if any(x.requires_grad or x.dtype == torch.bfloat16 for x in arrays):
            return None  # autograd needs torch's ops; NumPy has no bfloat16
        return tuple(x.resolve_conj().resolve_neg().numpy() for x in arrays)

    def is_traced(self, x: Any) -> bool:
        # functorch transforms (vmap, grad) wrap tensors; torch.compile traces with fake tensors
        # (asked first: dynamo cannot trace the functorch query, and need not)
        return torch.compiler.is_compiling() or torch._C._functorch.is_functorch_wrapped_tensor(x)

    def jit(self, fn: Callable) -> Callable:
        return torch.compile(fn)

    def synchronize(self) -> None:
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
