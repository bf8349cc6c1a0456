"""The numerical operations every backend has and the array API lacks or leaves open:
complex numbers, the FFT, products in the full precision of the dtype, correctly rounded
division, and the scopes that keep results the same on every device."""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from typing import Any


class ArrayOps(ABC):
    """The framework's own numerics, a part of :class:`~holovec.backends.Backend` (a base
    class of it: the defaults use its ``xp``)."""

    @abstractmethod
    def complex(self, real: Any, imag: Any) -> Any:
        """The complex array ``real + 1j * imag`` (the array API has no constructor)."""

    def unit_phasor(self, phases: Any) -> Any:
        """``exp(1j * phases)`` for real phases."""
        return self.complex(self.xp.cos(phases), self.xp.sin(phases))

    def vecdot(self, x1: Any, x2: Any) -> Any:
        """``sum(conj(x1) * x2)`` over the last axis, broadcasting over the others, in the
        full precision of the dtype (as :meth:`matmul`)."""
        return self.xp.vecdot(x1, x2, axis=-1)

    def matmul(self, x1: Any, x2: Any) -> Any:
        """``x1 @ x2`` in the full precision of the dtype, whatever the framework's global
        setting (JAX and torch may multiply float32 in TF32 or bfloat16 on a GPU, torch in
        bfloat16 on CPUs that have it): every product holovec makes goes through here (or
        :meth:`vecdot`), so that answers are the same on every device.

        JAX states ``precision=HIGHEST`` in each product (``jax.default_matmul_precision``
        does not apply); torch switches its float32 matmul settings
        (``torch.backends.{cuda,mkldnn}.matmul.fp32_precision``, which
        ``torch.set_float32_matmul_precision`` and ``allow_tf32`` set) to full precision
        for the product where they are lower, and back (see :meth:`full_precision`),
        except inside ``torch.compile``, where the settings cannot change (the compiled
        program follows those in force where it runs). The user's own products keep the
        user's setting."""
        return x1 @ x2

    def full_precision(self) -> contextlib.AbstractContextManager:
        """A scope in which the framework's own routines (``linalg.solve``, ``pinv``,
        ``svd``, which multiply matrices inside) multiply in the full precision of the
        dtype, whatever the global setting: wrap such calls in it (products of arrays go
        through :meth:`matmul` instead). NumPy and Dask always multiply in full precision."""
        return contextlib.nullcontext()

    def divide(self, x: Any, d: float) -> Any:
        """``x / d`` for a number ``d``, correctly rounded elementwise (as IEEE division is):
        compilers may turn a division by a constant into a multiplication by its rounded
        reciprocal, a float step off for some values and not for others, by shape."""
        return x / d

    def clip(self, x: Any, low: float, high: float) -> Any:
        """``x`` clipped elementwise to ``[low, high]`` (NaN stays NaN)."""
        return self.xp.clip(x, low, high)

    def count_nonzero(self, x: Any) -> Any:
        """Number of nonzero elements along the last axis."""
        return self.xp.count_nonzero(x, axis=-1)

    def real_view(self, x: Any) -> Any:
        """A complex array ``(..., n)`` as a real one ``(..., 2n)`` (re and im of each element),
        without a copy where the framework allows."""
        xp = self.xp
        return xp.concat([xp.real(x), xp.imag(x)], axis=-1)

    def complex_view(self, x: Any) -> Any:
        """The inverse of :meth:`real_view`: a real ``(..., 2n)`` array in its layout (for
        example a matrix product of real views) as the complex ``(..., n)`` array."""
        n = x.shape[-1] // 2
        return self.complex(x[..., :n], x[..., n:])

    @abstractmethod
    def fft(self, x: Any) -> Any:
        """Discrete Fourier transform over the last axis."""

    @abstractmethod
    def ifft(self, x: Any) -> Any:
        """Inverse discrete Fourier transform over the last axis."""

    def rfft(self, x: Any) -> Any:
        """Fourier transform of a real array over the last axis (length ``n``): the
        ``n // 2 + 1`` non-negative frequency terms. Backends override this with their
        native real FFT; this default slices the full complex one."""
        n = x.shape[-1]
        return self.fft(self.complex(x, self.xp.zeros_like(x)))[..., : n // 2 + 1]

    def irfft(self, x: Any, n: int) -> Any:
        """Inverse of :meth:`rfft`: the real array of last axis ``n`` whose spectrum's
        non-negative half is ``x`` (the imaginary parts of the zero and, for even ``n``,
        the Nyquist term are ignored). This default rebuilds the full spectrum."""
        xp = self.xp
        tail = xp.conj(xp.flip(x[..., 1 : n - n // 2], axis=-1))
        return xp.real(self.ifft(xp.concat([x[..., : n // 2 + 1], tail], axis=-1)))

    def fence(self, x: Any) -> Any:
        """``x`` itself, computed before whatever uses it: a compiler may not fuse its
        producer into its consumers (a product and a sum into one fused multiply-add, which
        rounds once instead of twice). Identity where ops run one by one (this default)."""
        return x

    def float64_scope(self) -> contextlib.AbstractContextManager:
        """A context in which this backend computes in float64 (JAX: 64-bit mode for the
        arrays made inside; nothing to do elsewhere). The canonical scores of
        :mod:`holovec._fixed_order` are computed in it."""
        return contextlib.nullcontext()

    def small_products(self, flops: float) -> contextlib.AbstractContextManager:
        """A context for a loop of matrix products of about ``flops`` operations each (a
        resonator's iterations, a learner's minibatches): where such products are too small
        to gain from several BLAS threads, the backend runs them on one, so that threads do
        not spin against each other, and against other processes, between products. A no-op
        by default (frameworks that schedule their own threads)."""
        return contextlib.nullcontext()
