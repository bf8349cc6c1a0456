"""torch's fused random generator: the generic generator compiled by ``torch.compile`` into
one kernel on a CUDA GPU (see :func:`holovec.kernels.draws.fuse`), eager where it cannot
compile. Imported by the torch version of ``fuse`` only (it imports torch)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import torch

#: the compiled versions of the functions given to ``fuse`` (dynamic shapes: one
#: compilation serves every length), or ``None`` for one that failed to compile
_FUSED: dict[Callable, Any] = {}


def fuses(backend: Any) -> bool:
    """Whether ``fuse`` compiles on this torch backend: on a CUDA GPU, where each eager op of
    the generic generator would be a kernel launch (on the CPU the generator is NumPy's).

    Parameters
    ----------
    backend : Backend
        A torch backend.

    Returns
    -------
    bool
        Whether the generator is compiled.
    """
    return backend.device.type == "cuda"


def fused_call(fn: Callable, *args: Any) -> Any:
    """``fn(*args)``, through its compiled version where torch.compile works here (a
    compiler, and Triton on a GPU), else eagerly (warned once).

    Parameters
    ----------
    fn : callable
        The generator function.
    *args : Any
        Its arguments.

    Returns
    -------
    Any
        ``fn(*args)``.
    """
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
