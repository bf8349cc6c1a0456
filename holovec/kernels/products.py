"""Products in the full precision of the dtype, whatever a framework's global setting, and
the scopes around products: framework routines that multiply inside (``linalg``), and
loops of small products (one BLAS thread)."""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np

from ._dispatch import kernel

#: products below this many operations run on one BLAS thread in a loop of them (measured:
#: examples/resonator_scene.py, MAP D=2,000, with another process keeping one of 2 cores
#: busy: 6.0 s with OpenBLAS's default threads, 2.3 s with one)
SMALL_PRODUCT_FLOPS = 2**27

_BLAS: Any = None


@kernel
def matmul(backend: Any, x1: Any, x2: Any) -> Any:
    """``x1 @ x2`` in the full precision of the dtype, whatever the framework's global
    setting (JAX and torch may multiply float32 in TF32 or bfloat16 on a GPU, torch in
    bfloat16 on CPUs that have it): every product holovec makes goes through here (or
    :func:`vecdot`), so that answers are the same on every device.

    JAX states ``precision=HIGHEST`` in each product (``jax.default_matmul_precision``
    does not apply); torch switches its float32 matmul settings
    (``torch.backends.{cuda,mkldnn}.matmul.fp32_precision``, which
    ``torch.set_float32_matmul_precision`` and ``allow_tf32`` set) to full precision for
    the product where they are lower, and back (see :func:`full_precision`), except inside
    ``torch.compile``, where the settings cannot change (the compiled program follows those
    in force where it runs). The user's own products keep the user's setting.

    Parameters
    ----------
    backend : Backend
        The arrays' backend.
    x1 : array
        The left factor.
    x2 : array
        The right factor.

    Returns
    -------
    array
        The product.
    """
    return x1 @ x2


@kernel
def vecdot(backend: Any, x1: Any, x2: Any) -> Any:
    """``sum(conj(x1) * x2)`` over the last axis, broadcasting over the others, in the full
    precision of the dtype (as :func:`matmul`).

    Parameters
    ----------
    backend : Backend
        The arrays' backend.
    x1 : array
        The conjugated factor.
    x2 : array
        The other factor.

    Returns
    -------
    array
        The dot products.
    """
    return backend.xp.vecdot(x1, x2, axis=-1)


@kernel
def full_precision(backend: Any) -> contextlib.AbstractContextManager:
    """A scope in which the framework's own routines (``linalg.solve``, ``pinv``, ``svd``,
    which multiply matrices inside) multiply in the full precision of the dtype, whatever
    the global setting: wrap such calls in it (products of arrays go through
    :func:`matmul` instead). NumPy and Dask always multiply in full precision.

    Parameters
    ----------
    backend : Backend
        The backend whose routines run in the scope.

    Returns
    -------
    contextlib.AbstractContextManager
        The scope.
    """
    return contextlib.nullcontext()


@kernel
def small_products(backend: Any, flops: float) -> contextlib.AbstractContextManager:
    """A scope for a loop of matrix products of about ``flops`` operations each (a
    resonator's iterations, a learner's minibatches): where such products are too small to
    gain from several BLAS threads, the backend runs them on one, so that threads do not
    spin against each other, and against other processes, between products. A no-op for
    frameworks that schedule their own threads.

    Parameters
    ----------
    backend : Backend
        The backend of the loop's products.
    flops : float
        The operations of one product of the loop.

    Returns
    -------
    contextlib.AbstractContextManager
        The scope.
    """
    return contextlib.nullcontext()


@kernel
def singular_system_errors(backend: Any) -> tuple[type[BaseException], ...]:
    """What ``xp.linalg.solve`` raises for a singular system (JAX raises nothing: it returns
    non-finite values; a lazy backend solves with NumPy).

    Parameters
    ----------
    backend : Backend
        The backend that solves.

    Returns
    -------
    tuple of exception classes
        The classes to catch.
    """
    return (np.linalg.LinAlgError,)


def _blas_controller() -> Any:
    """threadpoolctl's controller of the BLAS libraries loaded in this process (made once:
    it inspects the loaded libraries), or ``None`` where threadpoolctl is not installed."""
    global _BLAS
    if _BLAS is None:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:
            _BLAS = False
        else:
            _BLAS = ThreadpoolController()
    return _BLAS or None


@small_products.register("numpy")
def _host_small_products(backend: Any, flops: float) -> contextlib.AbstractContextManager:
    # products of fewer than SMALL_PRODUCT_FLOPS on one BLAS thread (threadpoolctl)
    controller = _blas_controller() if flops < SMALL_PRODUCT_FLOPS else None
    if controller is None:
        return contextlib.nullcontext()
    return controller.limit(limits=1, user_api="blas")


# -- torch: the device's float32 setting raised to full precision for the product ---------
@matmul.register("torch")
def _torch_matmul(backend: Any, x1: Any, x2: Any) -> Any:
    from ._torch_precision import products_on

    # only this device's setting counts: a CPU product leaves the GPU's TF32 alone
    scope = products_on(backend.device.type)
    if not scope.needed():  # torch's default: full precision already
        return x1 @ x2
    with scope:
        return x1 @ x2


@vecdot.register("torch")
def _torch_vecdot(backend: Any, x1: Any, x2: Any) -> Any:
    import torch

    from ._torch_precision import products_on

    # (the compat wrapper costs ~15 us a call)
    scope = products_on(backend.device.type)
    if not scope.needed():
        return torch.linalg.vecdot(x1, x2, dim=-1)
    with scope:
        return torch.linalg.vecdot(x1, x2, dim=-1)


@full_precision.register("torch")
def _torch_full_precision(backend: Any) -> contextlib.AbstractContextManager:
    from ._torch_precision import products_on

    scope = products_on(backend.device.type)
    return scope if scope.needed() else contextlib.nullcontext()


@small_products.register("torch")
def _torch_small_products(backend: Any, flops: float) -> contextlib.AbstractContextManager:
    # on the CPU, NumPy's rule: the steps of such loops run on NumPy views (host_views),
    # so their sums are then NumPy's at any thread count; a no-op on a GPU
    return _host_small_products(backend, flops) if backend.is_cpu else contextlib.nullcontext()


@singular_system_errors.register("torch")
def _torch_singular_system_errors(backend: Any) -> tuple[type[BaseException], ...]:
    import torch

    return (torch.linalg.LinAlgError, np.linalg.LinAlgError)


# -- JAX: HIGHEST precision stated in every product ---------------------------------------
@matmul.register("jax")
def _jax_matmul(backend: Any, x1: Any, x2: Any) -> Any:
    import jax

    return backend.xp.matmul(x1, x2, precision=jax.lax.Precision.HIGHEST)


@vecdot.register("jax")
def _jax_vecdot(backend: Any, x1: Any, x2: Any) -> Any:
    import jax

    return backend.xp.vecdot(x1, x2, axis=-1, precision=jax.lax.Precision.HIGHEST)


@full_precision.register("jax")
def _jax_full_precision(backend: Any) -> contextlib.AbstractContextManager:
    import jax

    return jax.default_matmul_precision("highest")
