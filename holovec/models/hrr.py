"""HRR: holographic reduced representations (Plate 1995, 2003)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import kernels
from .._params import FLAG
from ..random import random_normal, random_phases
from ._cosine import CosineSimilarity, unit_norm
from .base import VSAModel
from .registry import register_model


@register_model
class HRR(CosineSimilarity, VSAModel):
    """Real vectors with elements drawn from N(0, 1/dim), bound by circular convolution.

    Laws
    ----
    - bind is circular convolution, ``c[k] = sum_i a[i] * b[(k - i) mod dim]``, computed
      with the real FFT; it is commutative and associative.
    - unbind is circular correlation: bind with the involution
      ``inverse(b)[i] = b[-i mod dim]``. For Gaussian vectors this is an approximate
      inverse: ``unbind(bind(a, b), b)`` has similarity about ``1/sqrt(2) = 0.71`` with
      ``a`` (Plate 2003), whatever ``dim``; ``is_exact_inverse`` is False.
    - ``unitary=True`` draws vectors whose spectrum has unit magnitude (random phases
      with conjugate symmetry, so the vectors stay real; each has norm 1). For such a
      ``b`` the involution is the exact inverse, so ``unbind(bind(a, b), b) == a`` up to
      float rounding for any ``a``, and binding with ``b`` preserves similarity exactly
      (it is an orthogonal map). Such a model has ``is_exact_inverse`` True. Bundles are
      not unitary; exact unbinding needs the right operand (the key) to be unitary.
    - bundle is the normalised sum ``s / |s|`` (as in Schlegel et al. 2022), so a bundle
      has the unit norm that random vectors have on average and nested bundles count
      as one item each. The scale does not change any similarity.
    - similarity is the cosine, in [-1, 1]; a zero vector has similarity 0.
    - normalize scales to unit norm (unitary models: projects onto the unitary vectors,
      each Fourier coefficient divided by its magnitude; a coefficient that is zero up to
      rounding is a tie and takes the tie-break vector's coefficient).

    Parameters
    ----------
    dim : int
        Number of elements per vector.
    backend : str or Backend, optional
        The backend: a name (``"numpy"``, ``"torch"``, ``"jax"``, ``"dask"``, ``"auto"``), a
        :class:`~holovec.backends.Backend`, or ``None`` for the default (see
        :meth:`holovec.VSA.create`).
    unitary : bool, optional
        Draw unitary vectors (every Fourier coefficient of modulus 1): exact inverses.
    **kwargs : object
        ``seed``, ``device``, ``dtype`` and the other options of :class:`VSAModel`.

    Examples
    --------
    >>> from holovec import VSA
    >>> model = VSA.create("HRR", dim=1024)
    >>> a, b = model.random(seed=1), model.random(seed=2)
    >>> 0.6 < float(model.similarity(model.unbind(model.bind(a, b), b), a)) < 0.8
    True
    >>> exact = VSA.create("HRR", dim=1024, unitary=True)
    >>> a, b = exact.random(seed=1), exact.random(seed=2)
    >>> round(float(exact.similarity(exact.unbind(exact.bind(a, b), b), a)), 4)
    1.0
    """

    _draws_exact = False  # log, sqrt and cos of the normal draw round differently by framework

    name = "HRR"
    is_self_inverse = False
    is_commutative = True
    #: circular convolution commutes with the cyclic shift
    bind_commutes_with_permute = True
    #: the default (Gaussian vectors); a model made with ``unitary=True`` has True
    is_exact_inverse = False
    default_dtype = "float32"
    allowed_dtypes = ("float32", "float64")
    option_names = ("unitary",)
    element_kind = "gaussian"
    bundle_is_sum = True
    has_phasor_form = True
    _draw_bytes_per_element = 20.0  # measured (Box-Muller; unitary vectors: 14)

    def __init__(self, dim: int, backend: Any = None, *, unitary: bool = False, **kwargs: Any) -> None:
        unitary = FLAG.check("HRR option unitary", unitary)
        self.unitary = unitary
        self.is_exact_inverse = unitary  # an instance attribute: it depends on the option
        super().__init__(dim, backend, **kwargs)

    def __repr__(self) -> str:
        return super().__repr__()[:-1] + (", unitary=True)" if self.unitary else ")")

    # -- the phasor form: a phase per non-negative frequency ----------------------------
    @property
    def phase_count(self) -> int:
        return self.dim // 2 + 1

    def fixed_phases(self) -> np.ndarray:
        # a real vector's spectrum is conjugate symmetric: the zero frequency (and, for even
        # dim, the Nyquist frequency) is real, so its phase stays 0
        mask = np.zeros(self.phase_count, dtype=bool)
        mask[0] = True
        mask[-1] |= self.dim % 2 == 0
        return mask

    def phase_weights(self) -> np.ndarray:
        return np.where(self.fixed_phases(), 1.0, 2.0)

    def from_phases(self, phases: Any) -> Any:
        return kernels.irfft(self.backend, kernels.unit_phasor(self.backend, phases), self.dim)

    def to_phasors(self, x: Any) -> Any:
        return kernels.rfft(self.backend, x)

    # -- atoms: unitary vectors exchange Fourier coefficients, so that mixes stay unitary --
    def atoms(self, x: Any) -> Any:
        if not self.unitary:
            return super().atoms(x)
        return kernels.rfft(self.backend, x)[..., None]

    def from_atoms(self, a: Any) -> Any:
        if not self.unitary:
            return super().from_atoms(a)
        return kernels.irfft(self.backend, a[..., 0], self.dim)

    # -- the algebra ------------------------------------------------------------------
    def _random(self, n_rows: int, seed: int, stream: int, purpose: int, row_start: int = 0) -> Any:
        xp, dim = self.xp, self.dim
        if not self.unitary:
            normal = random_normal(
                self.backend,
                seed,
                n_rows,
                dim,
                self.dtype,
                stream=stream,
                purpose=purpose,
                row_start=row_start,
            )
            return normal * (1.0 / math.sqrt(dim))
        # unit-magnitude spectrum: a random phase per frequency 0 .. dim // 2; the zero
        # (and for even dim the Nyquist) frequency must be real, so it is +1 or -1 by the
        # sign of its phase. The inverse real FFT makes the vector real, of norm 1.
        n_freq = dim // 2 + 1
        phases = random_phases(
            self.backend,
            seed,
            n_rows,
            n_freq,
            self.dtype,
            stream=stream,
            purpose=purpose,
            row_start=row_start,
        )
        index = xp.arange(n_freq, device=self.device)
        real_only = (index == 0) | ((index == n_freq - 1) & (dim % 2 == 0))
        re = xp.where(real_only, xp.where(phases >= 0, 1.0, -1.0), xp.cos(phases))
        im = xp.where(real_only, 0.0, xp.sin(phases))
        re, im = xp.astype(re, self.dtype), xp.astype(im, self.dtype)
        return kernels.irfft(self.backend, kernels.complex(self.backend, re, im), dim)

    def _bind(self, a: Any, b: Any) -> Any:
        backend = self.backend
        return kernels.irfft(backend, kernels.rfft(backend, a) * kernels.rfft(backend, b), self.dim)

    def _unbind(self, c: Any, b: Any) -> Any:
        # correlation = convolution with the involution, whose spectrum is the conjugate
        backend = self.backend
        spectrum = kernels.rfft(backend, c) * self.xp.conj(kernels.rfft(backend, b))
        return kernels.irfft(backend, spectrum, self.dim)

    def _bundle(self, stacked: Any) -> Any:
        return unit_norm(self.backend, self.xp.sum(stacked, axis=0))

    def _inverse(self, x: Any) -> Any:
        xp = self.xp
        return xp.roll(xp.flip(x, axis=-1), 1, axis=-1)

    def _identity(self) -> Any:
        xp = self.xp
        return xp.astype(xp.arange(self.dim, device=self.device) == 0, self.dtype)

    def _normalize(self, x: Any) -> Any:
        if not self.unitary:
            return unit_norm(self.backend, x)
        # Each Fourier coefficient divided by its magnitude. A coefficient that is zero up
        # to the FFT's rounding is a tie (common: the zero and Nyquist terms of unitary
        # vectors are +1 or -1, so an even number of them can cancel); it takes the
        # tie-break vector's coefficient, so every backend gives the same vector.
        xp, backend = self.xp, self.backend
        spectrum = kernels.rfft(backend, x)
        magnitude = xp.abs(spectrum)
        rms = xp.sqrt(xp.mean(magnitude * magnitude, axis=-1, keepdims=True))
        eps = 2.0**-52 if self.dtype_name == "float64" else 2.0**-23
        tie = magnitude <= (16 * eps * math.sqrt(self.dim)) * rms
        unit = xp.where(tie, kernels.rfft(backend, self._tiebreak), spectrum / xp.where(tie, 1, magnitude))
        return kernels.irfft(backend, unit, self.dim)
