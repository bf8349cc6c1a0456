"""Rounding that does not depend on how a compiler fuses or rewrites: correctly rounded
division by a number, fences between a producer and its consumers, and float64 scopes."""

from __future__ import annotations

import contextlib
from typing import Any

from ._dispatch import kernel


@kernel
def divide(backend: Any, x: Any, d: float) -> Any:
    """``x / d`` for a number ``d``, correctly rounded elementwise (as IEEE division is):
    compilers may turn a division by a constant into a multiplication by its rounded
    reciprocal, a float step off for some values and not for others, by shape.

    Parameters
    ----------
    backend : Backend
        The array's backend.
    x : array
        The dividend.
    d : float
        The divisor.

    Returns
    -------
    array
        The quotients.
    """
    return x / d


@kernel
def fence(backend: Any, x: Any) -> Any:
    """``x`` itself, computed before whatever uses it: a compiler may not fuse its producer
    into its consumers (a product and a sum into one fused multiply-add, which rounds once
    instead of twice). Identity where ops run one by one.

    Parameters
    ----------
    backend : Backend
        The array's backend.
    x : array
        Any array.

    Returns
    -------
    array
        ``x``.
    """
    return x


@kernel
def float64_scope(backend: Any) -> contextlib.AbstractContextManager:
    """A scope in which the backend computes in float64 (JAX: 64-bit mode for the arrays
    made inside; nothing to do elsewhere). The canonical scores of
    :mod:`holovec._fixed_order` are computed in it.

    Parameters
    ----------
    backend : Backend
        The backend that computes in the scope.

    Returns
    -------
    contextlib.AbstractContextManager
        The scope.
    """
    return contextlib.nullcontext()


@divide.register("jax")
def _jax_divide(backend: Any, x: Any, d: float) -> Any:
    from .jax_compiled import divide as compiled_divide

    return compiled_divide(x, d)


@fence.register("jax")
def _jax_fence(backend: Any, x: Any) -> Any:
    import jax

    return jax.lax.optimization_barrier(x)


@float64_scope.register("jax")
def _jax_float64_scope(backend: Any) -> contextlib.AbstractContextManager:
    import jax

    # 64-bit types only inside: the user's global setting stays as it is
    enable_x64 = getattr(jax, "enable_x64", None)
    if enable_x64 is None:  # older jax
        from jax.experimental import enable_x64

        return enable_x64()
    return enable_x64(True)
