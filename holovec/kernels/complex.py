"""Complex numbers, which the array API can hold but not build: the constructor, unit
phasors, and real views of complex arrays (for real matrix products)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._dispatch import NUMPY, kernel


@kernel
def complex(backend: Any, real: Any, imag: Any) -> Any:
    """The complex array ``real + 1j * imag`` (the array API has no constructor).

    Parameters
    ----------
    backend : Backend
        The arrays' backend.
    real : array
        The real parts.
    imag : array
        The imaginary parts (broadcast against ``real``).

    Returns
    -------
    array
        The complex array.
    """
    raise TypeError(f"backend {backend.name!r} has no complex constructor")


@complex.register("numpy")
def _numpy_complex(backend: Any, real: Any, imag: Any) -> Any:
    out = np.empty(np.broadcast_shapes(real.shape, imag.shape), dtype=np.result_type(real, 1j))
    out.real = real
    out.imag = imag
    return out


@complex.register("torch")
def _torch_complex(backend: Any, real: Any, imag: Any) -> Any:
    import torch

    return torch.complex(real, imag)


@complex.register("jax")
def _jax_complex(backend: Any, real: Any, imag: Any) -> Any:
    import jax

    return jax.lax.complex(real, imag)


@complex.register("dask")
def _dask_complex(backend: Any, real: Any, imag: Any) -> Any:
    import dask.array as da

    dtype = np.result_type(real.dtype, np.complex64)
    meta = np.empty((0,) * max(real.ndim, imag.ndim), dtype=dtype)
    return da.map_blocks(_numpy_complex, NUMPY, real, imag, dtype=dtype, meta=meta)


@kernel
def unit_phasor(backend: Any, phases: Any) -> Any:
    """``exp(1j * phases)`` for real phases.

    Parameters
    ----------
    backend : Backend
        The arrays' backend.
    phases : array
        Real phases (radians).

    Returns
    -------
    array
        The complex unit phasors.
    """
    return complex(backend, backend.xp.cos(phases), backend.xp.sin(phases))


@unit_phasor.register("numpy")
def _numpy_unit_phasor(backend: Any, phases: Any) -> Any:
    out = np.empty(phases.shape, dtype=np.result_type(phases, 1j))
    np.cos(phases, out=out.real)
    np.sin(phases, out=out.imag)
    return out


@unit_phasor.register("torch")
def _torch_unit_phasor(backend: Any, phases: Any) -> Any:
    views = backend.host_views(phases)
    if views is not None:
        import torch

        return torch.from_numpy(_numpy_unit_phasor(NUMPY, views[0]))
    return unit_phasor.generic(backend, phases)


@unit_phasor.register("dask")
def _dask_unit_phasor(backend: Any, phases: Any) -> Any:
    from ..backends.dask_namespace import rowwise

    return rowwise(_numpy_unit_phasor, NUMPY, phases, dtype=np.result_type(phases.dtype, np.complex64))


@kernel
def real_view(backend: Any, x: Any) -> Any:
    """A complex array ``(..., n)`` as a real one ``(..., 2n)`` (re and im of each element),
    without a copy where the framework allows.

    Parameters
    ----------
    backend : Backend
        The array's backend.
    x : array
        A complex array.

    Returns
    -------
    array
        The real array, in the layout :func:`complex_view` reads.
    """
    xp = backend.xp
    return xp.concat([xp.real(x), xp.imag(x)], axis=-1)


@real_view.register("numpy")
def _numpy_real_view(backend: Any, x: Any) -> Any:
    return np.ascontiguousarray(x).view(x.real.dtype)


@real_view.register("torch")
def _torch_real_view(backend: Any, x: Any) -> Any:
    import torch

    return torch.view_as_real(x.resolve_conj()).flatten(-2)


@real_view.register("dask")
def _dask_real_view(backend: Any, x: Any) -> Any:
    from ..backends.dask_namespace import row_chunked, rowwise

    x = row_chunked(x)
    return rowwise(_numpy_real_view, NUMPY, x, dtype=x.real.dtype, width=2 * x.shape[-1])


@kernel
def complex_view(backend: Any, x: Any) -> Any:
    """The inverse of :func:`real_view`: a real ``(..., 2n)`` array in its layout (for
    example a matrix product of real views) as the complex ``(..., n)`` array.

    Parameters
    ----------
    backend : Backend
        The array's backend.
    x : array
        A real array in the layout of :func:`real_view`.

    Returns
    -------
    array
        The complex array.
    """
    n = x.shape[-1] // 2
    return complex(backend, x[..., :n], x[..., n:])


@complex_view.register("numpy")
def _numpy_complex_view(backend: Any, x: Any) -> Any:
    return np.ascontiguousarray(x).view(np.result_type(x, 1j))


@complex_view.register("torch")
def _torch_complex_view(backend: Any, x: Any) -> Any:
    import torch

    return torch.view_as_complex(x.unflatten(-1, (-1, 2)).contiguous())


@complex_view.register("dask")
def _dask_complex_view(backend: Any, x: Any) -> Any:
    from ..backends.dask_namespace import row_chunked, rowwise

    x = row_chunked(x)
    dtype = np.result_type(x.dtype, np.complex64)
    return rowwise(_numpy_complex_view, NUMPY, x, dtype=dtype, width=x.shape[-1] // 2)
