"""The discrete Fourier transform over the last axis (the array API's ``fft`` extension
is optional, and frameworks differ on empty batches and real transforms)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._dispatch import kernel
from .complex import complex


def _complex_dtype_of(dtype: Any) -> Any:
    """torch's complex dtype of a real or complex dtype's precision."""
    import torch

    return torch.complex128 if dtype in (torch.float64, torch.complex128) else torch.complex64


def _dask_rowwise(fn: Any, x: Any, *args: Any, width: int | None = None, real: bool = False) -> Any:
    """NumPy's ``fn`` on the rows of a Dask array, chunk by chunk."""
    from ..backends.dask_namespace import rowwise

    dtype = np.empty(0, x.dtype).real.dtype if real else np.result_type(x.dtype, np.complex64)
    return rowwise(fn, x, *args, dtype=dtype, width=width)


@kernel
def fft(backend: Any, x: Any) -> Any:
    """Discrete Fourier transform over the last axis.

    Parameters
    ----------
    backend : Backend
        The array's backend.
    x : array
        A real or complex array.

    Returns
    -------
    array
        The complex spectrum, of ``x``'s shape.
    """
    return backend.xp.fft.fft(x, axis=-1)


@kernel
def ifft(backend: Any, x: Any) -> Any:
    """Inverse discrete Fourier transform over the last axis.

    Parameters
    ----------
    backend : Backend
        The array's backend.
    x : array
        A complex spectrum.

    Returns
    -------
    array
        The complex signal, of ``x``'s shape.
    """
    return backend.xp.fft.ifft(x, axis=-1)


@kernel
def rfft(backend: Any, x: Any) -> Any:
    """Fourier transform of a real array over the last axis (length ``n``): the
    ``n // 2 + 1`` non-negative frequency terms. This generic version slices the full
    complex transform; the frameworks use their native real FFT.

    Parameters
    ----------
    backend : Backend
        The array's backend.
    x : array
        A real array.

    Returns
    -------
    array
        The complex half spectrum, last axis ``n // 2 + 1``.
    """
    n = x.shape[-1]
    return fft(backend, complex(backend, x, backend.xp.zeros_like(x)))[..., : n // 2 + 1]


@kernel
def irfft(backend: Any, x: Any, n: int) -> Any:
    """Inverse of :func:`rfft`: the real array of last axis ``n`` whose spectrum's
    non-negative half is ``x`` (the imaginary parts of the zero and, for even ``n``, the
    Nyquist term are ignored). This generic version rebuilds the full spectrum.

    Parameters
    ----------
    backend : Backend
        The array's backend.
    x : array
        The complex half spectrum, last axis ``n // 2 + 1``.
    n : int
        The length of the real result's last axis.

    Returns
    -------
    array
        The real signal.
    """
    xp = backend.xp
    tail = xp.conj(xp.flip(x[..., 1 : n - n // 2], axis=-1))
    return xp.real(ifft(backend, xp.concat([x[..., : n // 2 + 1], tail], axis=-1)))


# NumPy and JAX: their own transforms (jax.numpy's are NumPy's functions)
@fft.register("numpy")
def _numpy_fft(backend: Any, x: Any) -> Any:
    return np.fft.fft(x, axis=-1)


@ifft.register("numpy")
def _numpy_ifft(backend: Any, x: Any) -> Any:
    return np.fft.ifft(x, axis=-1)


@rfft.register("numpy")
def _numpy_rfft(backend: Any, x: Any) -> Any:
    return np.fft.rfft(x, axis=-1)


@irfft.register("numpy")
def _numpy_irfft(backend: Any, x: Any, n: int) -> Any:
    return np.fft.irfft(x, n=n, axis=-1)


@rfft.register("jax")
def _jax_rfft(backend: Any, x: Any) -> Any:
    return backend.xp.fft.rfft(x, axis=-1)


@irfft.register("jax")
def _jax_irfft(backend: Any, x: Any, n: int) -> Any:
    return backend.xp.fft.irfft(x, n=n, axis=-1)


# torch's CPU FFT (MKL) fails on empty batches: those are answered without it
@fft.register("torch")
def _torch_fft(backend: Any, x: Any) -> Any:
    import torch

    if x.numel() == 0:
        return torch.zeros_like(x, dtype=_complex_dtype_of(x.dtype))
    return torch.fft.fft(x, dim=-1)


@ifft.register("torch")
def _torch_ifft(backend: Any, x: Any) -> Any:
    import torch

    if x.numel() == 0:
        return torch.zeros_like(x, dtype=_complex_dtype_of(x.dtype))
    return torch.fft.ifft(x, dim=-1)


@rfft.register("torch")
def _torch_rfft(backend: Any, x: Any) -> Any:
    import torch

    if x.numel() == 0:
        shape = (*x.shape[:-1], x.shape[-1] // 2 + 1)
        return torch.zeros(shape, dtype=_complex_dtype_of(x.dtype), device=x.device)
    return torch.fft.rfft(x, dim=-1)


@irfft.register("torch")
def _torch_irfft(backend: Any, x: Any, n: int) -> Any:
    import torch

    if x.numel() == 0:
        return torch.zeros((*x.shape[:-1], n), dtype=x.real.dtype, device=x.device)
    return torch.fft.irfft(x, n=n, dim=-1)


# Dask: NumPy's, row by row
@fft.register("dask")
def _dask_fft(backend: Any, x: Any) -> Any:
    return _dask_rowwise(np.fft.fft, x)


@ifft.register("dask")
def _dask_ifft(backend: Any, x: Any) -> Any:
    return _dask_rowwise(np.fft.ifft, x)


@rfft.register("dask")
def _dask_rfft(backend: Any, x: Any) -> Any:
    return _dask_rowwise(np.fft.rfft, x, width=x.shape[-1] // 2 + 1)


@irfft.register("dask")
def _dask_irfft(backend: Any, x: Any, n: int) -> Any:
    return _dask_rowwise(_irfft_rows, x, n, width=n, real=True)


def _irfft_rows(x: np.ndarray, n: int) -> np.ndarray:
    return np.fft.irfft(x, n=n, axis=-1)
