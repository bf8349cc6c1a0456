"""One cache of compiled encoder kernels (private).

On backends that compile (JAX), an encoder's pure array functions run as one compiled
program each instead of one kernel per operation and shape. :func:`compiled` keeps
them: in the model's :attr:`~holovec.models.VSAModel.kernel_cache` for programs that
every encoder of a configuration shares, or in an encoder's own cache for its methods.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def compiled(cache: dict, key: Any, fn: Callable, backend: Any) -> Callable:
    """``fn`` compiled once per ``key`` in ``cache`` where ``backend`` compiles kernels, else
    ``fn`` itself. ``fn`` must depend only on its arguments and on what ``key`` names."""
    if not backend.jit_kernels:
        return fn
    program = cache.get(key)
    if program is None:
        program = cache[key] = backend.jit(fn)
    return program
