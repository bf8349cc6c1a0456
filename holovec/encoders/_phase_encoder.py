"""What the fractional power encoders share (private to the encoders).

:class:`PhaseEncoder` encodes exponents ``u = (x - offset) * scale`` per axis as
``z(u) = exp(1j * u @ theta)`` and decodes by searching the exponent
(:class:`~holovec.encoders.fpe_decode.ExponentSearch`); its subclasses,
:class:`~holovec.encoders.FractionalPowerEncoder` and
:class:`~holovec.encoders.PeriodicAngleEncoder`, choose the offsets, scales and phases.
"""

from __future__ import annotations

import warnings
from abc import ABC, abstractmethod
from functools import partial
from typing import Any

import numpy as np

from .. import kernels
from .._deprecation import SINCE
from ..backends import dtype_name
from ..models.base import VSAModel
from ..random import Purpose, random_words
from ._values import check_values, empty_vectors, host_backend, is_empty
from .base import Encoder
from .fpe_decode import ExponentSearch
from .phase_codes import PhaseCodec, check_phasor_model

__all__ = ["PhaseEncoder", "fpe_vectors", "harmonic_phases"]


def fpe_vectors(
    codec: PhaseCodec,
    k: int,
    period: float | None,
    points: Any,
    theta: Any,
    half_offset: Any,
    double_scale: Any,
) -> Any:
    """``base ** ((points - offset) * scale)`` (points modulo ``period`` first, if given),
    given ``half_offset = offset / 2`` and ``double_scale = 2 * scale``: ``(points / 2 -
    offset / 2) * (2 * scale)`` rounds exactly as ``(points - offset) * scale`` (halving is
    exact in binary floats) but cannot overflow, e.g. for ``points - offset`` = 2e308."""
    xp = codec.xp
    batch = tuple(points.shape[:-1])
    if period is not None:  # modulo the period in the values' own units: exact for whole multiples
        points = points - xp.floor(points / period) * period
    u = xp.reshape((points * 0.5 - half_offset) * double_scale, (-1, k))
    out = codec.from_exponents(xp.astype(u, codec.real), theta)
    return xp.reshape(out, (*batch, codec.model.vector_length))


class PhaseEncoder(ExponentSearch, Encoder, ABC):
    """What the fractional power encoders share: ``z(u) = exp(1j * u @ theta)`` for exponents
    ``u = (x - offset) * scale`` per axis, and a decoder that searches the exponent.

    Subclasses set, per axis: ``_offset``, ``_scale`` (host float64, shape ``(k,)``),
    ``_span`` (the exponents searched, ``[0, span]``), ``_period_u`` (the period of the
    encoding in exponent units, ``inf`` if none), ``_lobe`` (half-width of the kernel's
    main lobe, in exponent units), and ``_theta`` (backend, ``(k, n_freq)``).
    """

    requires = "a phasor form (model.has_phasor_form)"
    #: the number of coordinates of a point, or None for scalars
    n_features: int | None
    _wrap = False  # reduce values modulo the period before encoding

    def __init__(self, model: VSAModel, *, seed: int | None, **parameters: Any) -> None:
        super().__init__(model, seed=seed, **parameters)
        check_phasor_model(model, type(self).__name__)
        self.clip = parameters.get("clip", False)
        self._codec = PhaseCodec(model)
        self._decode_cache: dict[Any, Any] = {}

    # -- parameters -----------------------------------------------------------------------
    @classmethod
    def supports(cls, model: Any) -> bool:
        return model.has_phasor_form

    @property
    def n_axes(self) -> int:
        """The number of axes of a point (1 for scalars)."""
        return 1 if self.n_features is None else self.n_features

    @property
    def dims(self) -> int | None:
        """Deprecated alias of :attr:`n_features`."""
        warnings.warn(
            f"{type(self).__name__}.dims is deprecated since {SINCE}; use {type(self).__name__}.n_features",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.n_features

    def _to_backend(self, host: np.ndarray, dtype: Any) -> Any:
        return self.backend.asarray(np.ascontiguousarray(host), dtype=dtype)

    def _set_theta(self, theta: np.ndarray) -> None:
        """Host frequencies (k, n_freq), float64: the fixed HRR frequencies are zeroed, then
        they are rounded to the model's float type and moved to its device. Refuses
        settings whose exponents or phases the backend's floats cannot represent."""
        theta = np.where(self._codec.fixed, 0.0, theta)
        wide = kernels.default_float_dtype(self.backend)
        self._check_representable(theta, np.dtype(dtype_name(wide)))
        self.theta_host = theta.astype(self._codec.np_real)
        self._theta = self._to_backend(self.theta_host, self._codec.real)
        # halves and doubles (exact): see fpe_vectors
        self._half_offset_b = self._to_backend(self._offset * 0.5, wide)
        self._double_scale_b = self._to_backend(self._scale * 2.0, wide)

    def _check_representable(self, theta: np.ndarray, wide: np.dtype) -> None:
        """``ValueError`` unless the offsets, scales, exponents and phases of this encoder
        are finite (and the scales nonzero) in the floats that compute them: the backend's
        widest float for values, the model's float for phases."""
        real = self._codec.np_real
        top = np.finfo(wide).max
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            half_offset, double_scale = self._offset * 0.5, self._scale * 2.0
            fits = np.all(np.abs(half_offset) <= top / 2) and np.all(np.abs(double_scale) <= top)
            positive = np.all(double_scale.astype(wide) > 0)
        if not fits:
            raise ValueError(
                f"{type(self).__name__}: the range and bandwidth do not fit the backend's {wide.name} "
                f"floats (offsets {self._offset.tolist()}, scales {self._scale.tolist()}); use a "
                "narrower range or a smaller bandwidth (JAX computes in float32 unless 64-bit mode is on)"
            )
        if not positive:
            raise ValueError(
                f"{type(self).__name__}: the scale of the exponents underflows to 0 in {wide.name} "
                f"({self._scale.tolist()}): every value would get the same vector; use a larger "
                "bandwidth or a narrower range"
            )
        with np.errstate(over="ignore", invalid="ignore"):
            phase = self._span * np.abs(theta).max(axis=-1)
        limit = np.finfo(real).max
        if not (np.all(self._span <= limit) and np.all(phase <= limit)):
            raise ValueError(
                f"{type(self).__name__}: exponents up to {self._span.tolist()} give phases up to "
                f"{phase.tolist()}, beyond the largest {real.name} of a {self.model.name} model "
                f"({limit:.6g}); use a smaller bandwidth"
            )

    # -- encoding ---------------------------------------------------------------------------
    def _points(self, values: Any) -> Any:
        """Checked values as an array of points ``(..., k)`` of the backend's widest float."""
        x = self._rows_of_vectors(check_values(self.backend, values, name="values"))
        k = self.n_features
        if k is None:
            return x[..., None]
        if x.ndim == 0 or x.shape[-1] != k:
            raise ValueError(
                f"{type(self).__name__} with n_features={k} encodes points of shape (..., {k}); "
                f"got values of shape {tuple(x.shape)}"
            )
        return x

    def _bounds_check(self, points: Any, low: np.ndarray, high: np.ndarray, clip: bool) -> Any:
        """``points`` if every axis lies in ``[low, high]``, clipped if ``clip``, else ValueError."""
        xp, wide = self.xp, kernels.default_float_dtype(self.backend)
        lo, hi = self._to_backend(low, wide), self._to_backend(high, wide)
        if clip:
            return xp.minimum(xp.maximum(points, lo), hi)
        if self.backend.is_traced(points):
            return points
        if bool(xp.any((points < lo) | (points > hi))):
            if self.n_features is None:
                where = f"[{low[0]}, {high[0]}]"
            else:
                where = (
                    "[" + ", ".join(f"[{a}, {b}]" for a, b in zip(low, high, strict=True)) + "] (per axis)"
                )
            raise ValueError(
                f"values must lie in {where}; got values outside it (pass clip=True to clip them)"
            )
        return points

    def _points_to_vectors(self, points: Any) -> Any:
        """Checked points ``(..., k)`` -> vectors ``(..., dim)``: one compiled program per
        model and configuration on JAX, shared by all such encoders."""
        period = self.period if self._wrap else None
        fn = self.backend.program(
            partial(fpe_vectors, self._codec, self.n_axes, period),
            (self.model.config_key, "fpe", self.n_axes, period),
            keep=self.model.kernel_cache,
        )
        return fn(points, self._theta, self._half_offset_b, self._double_scale_b)

    def _checked(self, values: Any, clip: bool) -> Any:  # subclasses: the range check
        return self._points(values)

    def _vectors(self, u: Any) -> Any:
        """``base ** u`` for exponent rows ``u`` (n, k) of any float type."""
        return self._codec.from_exponents(self.xp.astype(u, self._codec.real), self._theta)

    def encode(self, values: Any, *, clip: bool | None = None) -> Any:
        """One value (a point for ``n_features=k``) or an array of them -> vectors ``(..., dim)``.

        ``clip`` overrides the encoder's ``clip`` for this call.

        Parameters
        ----------
        values : array_like
            One value (a point for ``n_features=k``) or an array of them.
        clip : bool, optional
            Whether values outside the range are clipped to it; ``None`` for the encoder's
            ``clip``.
        """
        points = self._checked(values, self.clip if clip is None else clip)
        if is_empty(tuple(points.shape[:-1])):  # no FFT of zero rows (torch's MKL refuses it)
            return empty_vectors(self.model, tuple(points.shape[:-1]))
        return self._program("_points_to_vectors")(points)

    # -- the kernel -------------------------------------------------------------------------
    @abstractmethod
    def _characteristic(self, t: np.ndarray, axis: int) -> np.ndarray:
        """The characteristic function of axis ``axis``'s phase distribution at ``t``."""

    def kernel(self, distance: Any) -> np.ndarray:
        """The expected similarity of ``z(x)`` and ``z(x + distance)`` (NumPy, on the host).

        For ``n_features=k``, ``distance`` has shape ``(..., k)`` and the kernel is the product of
        the axes' kernels (their phases are independent). For HRR the zero (and Nyquist)
        frequency is fixed, which adds ``(1 - kernel) * n_fixed / dim`` (about ``1 / dim``).

        Parameters
        ----------
        distance : array_like
            Distances between two values (scalars or arrays).
        """
        d = np.asarray(distance, dtype=np.float64)
        d = d[..., None] if self.n_features is None else d
        t = d * self._scale
        value = np.ones(d.shape[:-1])
        for a in range(self.n_axes):
            value = value * self._characteristic(t[..., a], a)
        fixed = self._codec.n_fixed / self.model.dim  # fixed phases always agree
        value = fixed + (1 - fixed) * value
        return value


def harmonic_phases(seed: int, axis: int, n: int, harmonics: np.ndarray, period_u: float) -> np.ndarray:
    """Phases ``+-2 pi k / period_u`` (host, float64): ``k`` uniform over ``harmonics``, the
    sign uniform, from one 32-bit word per element (bit 0 the sign, the rest the choice)."""
    words = random_words(host_backend(), seed, 1, n, stream=axis, purpose=Purpose.HARMONICS)[0].astype(
        np.int64
    )
    k = harmonics[(words >> 1) % len(harmonics)]
    sign = 1 - 2 * (words & 1)
    return sign * k * (2 * np.pi / period_u)
