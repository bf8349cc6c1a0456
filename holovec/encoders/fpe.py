"""Fractional power encoders: numbers as powers of a random phasor vector.

A fractional power encoding (Plate 1994; Frady et al. 2021, "Computing on functions
using randomized vector representations"; Komer et al. 2019 for the multi-dimensional
"spatial semantic pointers") maps a number ``x`` to ``z(x) = base ** (beta * x)``, where
``base = exp(1j * theta)`` has random phases ``theta``. Binding adds exponents,
``bind(z(x), z(y)) = z(x + y)``, and the similarity of two encodings is, in expectation,
the characteristic function of the phase distribution at ``beta * (x - y)``: the phase
distribution chooses the kernel.

The encoders serve every model with a phasor form (``model.has_phasor_form``: FHRR,
HRR); the vectors come from :class:`~holovec.encoders.phase_codes.PhaseCodec`, the
decoder from :class:`~holovec.encoders.fpe_decode.ExponentSearch`, and the residue
number encoder lives in :mod:`holovec.encoders.residue`.

Random parameters. Phases are drawn once per encoder with :mod:`holovec.random` from the
encoder's ``seed`` (stream = axis), on the host in float64, rounded to the model's float
type and moved to its device: they are bit-identical on every backend, so encodings
differ across backends only by the rounding of cos, sin (and the FFT for HRR).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from functools import partial
from typing import Any, ClassVar

import numpy as np

from .._validation import check_bool, check_int, check_number
from ..backends import dtype_name
from ..models.base import VSAModel
from ..random import Purpose, random_normal, random_phases, random_uniform, random_words
from ._jit import compiled
from ._values import check_values, empty_vectors, host_backend, is_empty, per_axis, wide_float
from .base import Encoder
from .fpe_decode import ExponentSearch
from .phase_codes import PhaseCodec, check_phasor_model

__all__ = [
    "KERNELS",
    "FractionalPowerEncoder",
    "PeriodicAngleEncoder",
    "VectorFPE",
]

#: the most harmonics of the ``periodic`` kernel (its phases are chosen by 32-bit words)
MAX_HARMONICS = 2**24

#: the kernels of :class:`FractionalPowerEncoder`, with the phase distribution of each
KERNELS = {
    "sinc": "phases uniform on [-pi, pi): kernel sinc(t) = sin(pi t) / (pi t)",
    "gaussian": "phases N(0, 1): kernel exp(-t**2 / 2)",
    "laplace": "phases Cauchy(0, 1): kernel exp(-|t|) (the Laplace, or exponential, kernel)",
    "cauchy": "phases Laplace(0, 1): kernel 1 / (1 + t**2) (the Cauchy kernel)",
    "periodic": "phases on a grid of whole harmonics: kernel periodic in x (see `period`)",
}


def _fpe_vectors(
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


class _PhaseEncoder(ExponentSearch, Encoder, ABC):
    """What the fractional power encoders share: ``z(u) = exp(1j * u @ theta)`` for exponents
    ``u = (x - offset) * scale`` per axis, and a decoder that searches the exponent.

    Subclasses set, per axis: ``_offset``, ``_scale`` (host float64, shape ``(k,)``),
    ``_span`` (the exponents searched, ``[0, span]``), ``_period_u`` (the period of the
    encoding in exponent units, ``inf`` if none), ``_lobe`` (half-width of the kernel's
    main lobe, in exponent units), and ``_theta`` (backend, ``(k, n_freq)``).
    """

    requires = "a phasor form (model.has_phasor_form)"
    dims: int | None
    _wrap = False  # reduce values modulo the period before encoding

    def __init__(self, model: VSAModel, *, seed: int | None, clip: bool) -> None:
        super().__init__(model, seed=seed)
        check_phasor_model(model, type(self).__name__)
        self.clip = check_bool(clip, "clip")
        self._codec = PhaseCodec(model)
        self._decode_cache: dict[Any, Any] = {}

    # -- parameters -----------------------------------------------------------------------
    @classmethod
    def supports(cls, model: Any) -> bool:
        return model.has_phasor_form

    @property
    def n_axes(self) -> int:
        """The number of axes of a point (1 for scalars)."""
        return 1 if self.dims is None else self.dims

    def _to_backend(self, host: np.ndarray, dtype: Any) -> Any:
        return self.backend.asarray(np.ascontiguousarray(host), dtype=dtype)

    def _set_theta(self, theta: np.ndarray) -> None:
        """Host frequencies (k, n_freq), float64: the fixed HRR frequencies are zeroed, then
        they are rounded to the model's float type and moved to its device. Refuses
        settings whose exponents or phases the backend's floats cannot represent."""
        theta = np.where(self._codec.fixed, 0.0, theta)
        wide = wide_float(self.backend)
        self._check_representable(theta, np.dtype(dtype_name(wide)))
        self.theta_host = theta.astype(self._codec.np_real)
        self._theta = self._to_backend(self.theta_host, self._codec.real)
        # halves and doubles (exact): see _fpe_vectors
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
        if self.dims is None:
            return x[..., None]
        if x.ndim == 0 or x.shape[-1] != self.dims:
            raise ValueError(
                f"{type(self).__name__} with dims={self.dims} encodes points of shape (..., {self.dims}); "
                f"got values of shape {tuple(x.shape)}"
            )
        return x

    def _bounds_check(self, points: Any, low: np.ndarray, high: np.ndarray, clip: bool) -> Any:
        """``points`` if every axis lies in ``[low, high]``, clipped if ``clip``, else ValueError."""
        xp, wide = self.xp, wide_float(self.backend)
        lo, hi = self._to_backend(low, wide), self._to_backend(high, wide)
        if clip:
            return xp.minimum(xp.maximum(points, lo), hi)
        if self.backend.is_traced(points):
            return points
        if bool(xp.any((points < lo) | (points > hi))):
            if self.dims is None:
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
        fn = compiled(
            self.model.kernel_cache,
            ("fpe", self.n_axes, period),
            partial(_fpe_vectors, self._codec, self.n_axes, period),
            self.backend,
        )
        return fn(points, self._theta, self._half_offset_b, self._double_scale_b)

    def _checked(self, values: Any, clip: bool) -> Any:  # subclasses: the range check
        return self._points(values)

    def _vectors(self, u: Any) -> Any:
        """``base ** u`` for exponent rows ``u`` (n, k) of any float type."""
        return self._codec.from_exponents(self.xp.astype(u, self._codec.real), self._theta)

    def encode(self, values: Any, *, clip: bool | None = None) -> Any:
        """One value (a point for ``dims=k``) or an array of them -> vectors ``(..., dim)``.

        ``clip`` overrides the encoder's ``clip`` for this call.
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

        For ``dims=k``, ``distance`` has shape ``(..., k)`` and the kernel is the product of
        the axes' kernels (their phases are independent). For HRR the zero (and Nyquist)
        frequency is fixed, which adds ``(1 - kernel) * n_fixed / dim`` (about ``1 / dim``).
        """
        d = np.asarray(distance, dtype=np.float64)
        d = d[..., None] if self.dims is None else d
        t = d * self._scale
        value = np.ones(d.shape[:-1])
        for a in range(self.n_axes):
            value = value * self._characteristic(t[..., a], a)
        fixed = self._codec.n_fixed / self.model.dim  # fixed phases always agree
        value = fixed + (1 - fixed) * value
        return value


class FractionalPowerEncoder(_PhaseEncoder):
    """Fractional power encoding (FPE) of scalars, or of points with ``dims=k``, for FHRR and HRR.

    ``z(x) = base ** (beta * (x - min_val))`` with ``beta = bandwidth / (max_val - min_val)``
    and ``base = exp(1j * theta)``: elementwise ``z(x)_j = exp(1j * beta * (x - min_val) *
    theta_j)`` for FHRR; for HRR the real vector whose spectrum is that phasor (conjugate
    symmetric, the zero and Nyquist phases 0), so that HRR binding (circular convolution)
    also adds exponents: ``bind(z(x), z(y))`` encodes ``x + y - min_val``. The exponent
    ``t = beta * d`` of a distance ``d`` is that distance in units of the range divided by
    ``bandwidth``: ``E[similarity(z(x), z(x + d))] = kernel(t)``, the characteristic
    function of the phase distribution (Bochner's theorem):

    ============  ===================  ========================================
    ``kernel``    phases ``theta``     similarity at ``t = beta * d``
    ============  ===================  ========================================
    ``sinc``      uniform [-pi, pi)    ``sin(pi t) / (pi t)``, first zero at ``t = 1``
    ``gaussian``  normal N(0, 1)       ``exp(-t**2 / 2)``
    ``laplace``   Cauchy(0, 1)         ``exp(-|t|)`` (Laplace/exponential kernel)
    ``cauchy``    Laplace(0, 1)        ``1 / (1 + t**2)`` (Cauchy kernel)
    ``periodic``  whole harmonics      ``mean_k cos(2 pi k d / period)``, ``k = 1 .. K``
    ============  ===================  ========================================

    So ``bandwidth`` is the number of kernel widths across the range: the sinc kernel's first
    zero is at ``d = (max_val - min_val) / bandwidth``. The ``periodic`` kernel draws
    frequencies (in ``x``) ``+-2 pi k / period`` with ``k`` uniform on ``1 .. K``,
    ``K = max(1, floor(beta * period / 2))`` (the harmonics inside the band of the sinc
    kernel of the same bandwidth), so ``z(x + period) == z(x)``; ``period`` defaults to
    ``max_val - min_val`` (the range wraps: ``z(min_val) == z(max_val)``).

    Parameters
    ----------
    model : an FHRR or HRR model (TypeError otherwise)
    min_val, max_val : the range of the values (numbers, or one per axis for ``dims``)
    bandwidth : the number of kernel widths across the range (``beta * (max_val - min_val)``);
        larger is sharper: more resolution, less generalisation
    seed : seed of the phases (``None``: fresh ones)
    kernel : ``"sinc"``, ``"gaussian"``, ``"laplace"``, ``"cauchy"`` or ``"periodic"``
    dims : ``None`` for scalars; ``k`` for points of ``k`` coordinates (spatial semantic
        pointers): one independent base per axis, and ``z(p)`` is the binding of the axes'
        encodings, ``exp(1j * sum_a beta_a (p_a - min_a) theta_a)``
    period : the period of the ``periodic`` kernel (default: the range)
    clip : clip values outside the range instead of raising ``ValueError``

    Examples
    --------
    >>> from holovec import VSA
    >>> from holovec.encoders import FractionalPowerEncoder
    >>> model = VSA.create("FHRR", dim=2000)
    >>> fpe = FractionalPowerEncoder(model, 0.0, 10.0, bandwidth=4.0, seed=1)
    >>> v = fpe.encode([2.5, 7.0])
    >>> v.shape
    (2, 2000)
    >>> [round(float(x), 4) for x in fpe.decode(v)]
    [2.5, 7.0]
    >>> round(float(fpe.decode(model.bind(fpe.encode(2.0), fpe.encode(3.0)))), 4)  # adds
    5.0
    """

    _repr_attrs: ClassVar[dict[str, str | None]] = {"kernel": "kernel_name", "period": "_period_given"}

    def __init__(
        self,
        model: VSAModel,
        min_val: Any,
        max_val: Any,
        bandwidth: Any = 1.0,
        seed: int | None = None,
        kernel: str = "sinc",
        *,
        dims: int | None = None,
        period: Any = None,
        clip: bool = False,
    ) -> None:
        super().__init__(model, seed=seed, clip=clip)
        self.dims = None if dims is None else check_int(dims, "dims", 1)
        k = self.n_axes
        if not isinstance(kernel, str) or kernel.lower() not in KERNELS:
            raise ValueError(f"kernel must be one of {', '.join(map(repr, KERNELS))}; got {kernel!r}")
        self.kernel_name = kernel.lower()
        self.min_val, self.max_val = per_axis(min_val, "min_val", k), per_axis(max_val, "max_val", k)
        if np.any(self.min_val >= self.max_val):
            raise ValueError(f"min_val must be below max_val, got min_val={min_val!r}, max_val={max_val!r}")
        self.bandwidth = per_axis(bandwidth, "bandwidth", k)
        if np.any(self.bandwidth <= 0):
            raise ValueError(f"bandwidth must be positive, got {bandwidth!r}")
        with np.errstate(over="ignore"):
            value_range = self.max_val - self.min_val  # inf where the range exceeds the floats
        wide = np.isinf(value_range)
        # beta without overflow: halving both sides is exact, so finite ranges round as before
        half_range = self.max_val * 0.5 - self.min_val * 0.5
        with np.errstate(over="ignore", under="ignore", divide="ignore"):
            self.beta = np.where(wide, (self.bandwidth * 0.5) / half_range, self.bandwidth / value_range)
        if period is not None and self.kernel_name != "periodic":
            raise ValueError(f"period is an option of kernel='periodic' only (kernel is {kernel!r})")
        if period is None and self.kernel_name == "periodic" and wide.any():
            raise ValueError(
                f"max_val - min_val exceeds the largest float ({value_range.tolist()}), so it cannot "
                "be the period of kernel='periodic'; give a finite period"
            )
        self.period = value_range if period is None else per_axis(period, "period", k)
        self._period_given = None if period is None else self.period  # for the repr
        if np.any(self.period <= 0):
            raise ValueError(f"period must be positive, got {period!r}")
        self._offset, self._scale = self.min_val, self.beta
        self._span = self.bandwidth.copy()
        self._lobe = np.ones(k)
        self._period_u = np.full(k, np.inf)
        if self.kernel_name == "periodic":
            self._period_u = self.beta * self.period
            if not np.all(self._period_u / 2 <= MAX_HARMONICS):
                raise ValueError(
                    f"kernel='periodic' needs bandwidth * period / (max_val - min_val) / 2 harmonics, "
                    f"{(self._period_u / 2).tolist()} here; at most {MAX_HARMONICS} are supported "
                    "(use a smaller bandwidth or period)"
                )
            self.harmonics = np.maximum(1, np.floor(self._period_u / 2)).astype(np.int64)
            self._lobe = self._period_u / (4 * self.harmonics)
        n = self._codec.n_freq
        self._set_theta(np.stack([self._draw(a, n) for a in range(k)]))

    def _draw(self, axis: int, n: int) -> np.ndarray:
        """Phases of one axis (host, float64), per exponent unit."""
        host, seed = host_backend(), self.seed
        address = {"stream": axis, "purpose": Purpose.FPE_PHASES}
        kernel = self.kernel_name
        if kernel == "sinc":
            return random_phases(host, seed, 1, n, np.float64, **address)[0]
        if kernel == "gaussian":
            return random_normal(host, seed, 1, n, np.float64, **address)[0]
        if kernel in ("laplace", "cauchy"):
            # 24-bit uniforms moved half a step: in (0, 1), symmetric about 1/2, no endpoint
            w = random_uniform(host, seed, 1, n, np.float64, **address)[0] + 2.0**-25
            if kernel == "laplace":  # Cauchy(0, 1) phases; characteristic function exp(-|t|)
                return np.tan(np.pi * (w - 0.5))
            v = w - 0.5  # Laplace(0, 1) phases by the inverse CDF; characteristic function 1/(1+t^2)
            return -np.sign(v) * np.log1p(-2 * np.abs(v))
        return _harmonic_phases(seed, axis, n, np.arange(1, self.harmonics[axis] + 1), self._period_u[axis])

    def _characteristic(self, t: np.ndarray, axis: int) -> np.ndarray:
        kernel = self.kernel_name
        if kernel == "sinc":
            return np.sinc(t)
        if kernel == "gaussian":
            return np.exp(-(t**2) / 2)
        if kernel == "laplace":
            return np.exp(-np.abs(t))
        if kernel == "cauchy":
            return 1 / (1 + t**2)
        k = np.arange(1, self.harmonics[axis] + 1)
        return np.cos(2 * np.pi * t[..., None] * k / self._period_u[axis]).mean(axis=-1)

    def _checked(self, values: Any, clip: bool) -> Any:
        return self._bounds_check(self._points(values), self.min_val, self.max_val, clip)


class VectorFPE(FractionalPowerEncoder):
    """:class:`FractionalPowerEncoder` of points with ``dims`` coordinates (spatial semantic
    pointers, Komer et al. 2019): one random base per axis, and a point's vector is the
    binding of its coordinates' encodings. ``encode`` takes arrays of shape ``(..., dims)``.

    Examples
    --------
    >>> from holovec import VSA
    >>> from holovec.encoders import VectorFPE
    >>> model = VSA.create("FHRR", dim=2000)
    >>> ssp = VectorFPE(model, 2, min_val=0.0, max_val=1.0, bandwidth=3.0, seed=1)
    >>> p = ssp.encode([[0.25, 0.5], [0.75, 0.125]])
    >>> p.shape
    (2, 2000)
    >>> [round(float(x), 3) for x in ssp.decode(p[0])]
    [0.25, 0.5]
    """

    def __init__(
        self,
        model: VSAModel,
        dims: int,
        min_val: Any,
        max_val: Any,
        bandwidth: Any = 1.0,
        seed: int | None = None,
        kernel: str = "sinc",
        *,
        period: Any = None,
        clip: bool = False,
    ) -> None:
        super().__init__(
            model, min_val, max_val, bandwidth, seed, kernel, dims=dims, period=period, clip=clip
        )


def _harmonic_phases(seed: int, axis: int, n: int, harmonics: np.ndarray, period_u: float) -> np.ndarray:
    """Phases ``+-2 pi k / period_u`` (host, float64): ``k`` uniform over ``harmonics``, the
    sign uniform, from one 32-bit word per element (bit 0 the sign, the rest the choice)."""
    words = random_words(host_backend(), seed, 1, n, stream=axis, purpose=Purpose.HARMONICS)[0].astype(
        np.int64
    )
    k = harmonics[(words >> 1) % len(harmonics)]
    sign = 1 - 2 * (words & 1)
    return sign * k * (2 * np.pi / period_u)


class PeriodicAngleEncoder(_PhaseEncoder):
    """Circular quantities (angles, times of day, days of the week) for FHRR and HRR.

    A fractional power encoding with whole-number frequencies:
    ``z(x)_j = exp(1j * 2 pi * s_j k_j * x / period)``, ``k_j`` uniform over ``harmonics``
    (``1 .. harmonics`` for an int) and ``s_j`` a random sign, so ``z(x + period) == z(x)``
    for every ``x`` (the value is reduced modulo ``period`` first, so wrapping is exact up to
    float rounding), binding adds angles modulo the period, and the expected similarity is
    ``mean_k cos(2 pi k d / period)`` over the harmonics. Every finite value is valid (it
    wraps) up to ``max_angle`` (``period / eps`` of the backend's float: beyond it floats
    are further apart than a period, and ``ValueError`` is raised); ``decode`` returns
    values in ``[0, period)``.

    More harmonics give a sharper kernel (for harmonics 1..K its first zero is at
    ``period / (2 (K + 1))``) at the cost of smoothness; the default 3 (as in HoloVec)
    gives a broad kernel whose first zero is at ``period / 8``.

    Examples
    --------
    >>> import math
    >>> from holovec import VSA
    >>> from holovec.encoders import PeriodicAngleEncoder
    >>> model = VSA.create("FHRR", dim=1000)
    >>> hours = PeriodicAngleEncoder(model, period=24.0, harmonics=8, seed=3)
    >>> round(float(model.similarity(hours.encode(23.0), hours.encode(-1.0))), 4)
    1.0
    >>> round(float(hours.decode(hours.encode(25.5))), 4)
    1.5
    """

    def __init__(
        self,
        model: VSAModel,
        period: float = 2 * math.pi,
        harmonics: int | Sequence[int] = 3,
        seed: int | None = None,
    ) -> None:
        super().__init__(model, seed=seed, clip=False)
        self.dims = None
        self.period = check_number(period, "period")
        if self.period <= 0:
            raise ValueError(f"period must be positive, got {period!r}")
        wide = np.finfo(np.dtype(dtype_name(wide_float(self.backend))))
        if self.period > wide.max:
            raise ValueError(
                f"period {self.period:g} does not fit the backend's {wide.dtype.name} floats "
                f"(at most {wide.max:.6g})"
            )
        if not 1 / self.period <= wide.max:
            raise ValueError(
                f"period {self.period:g} is too small: 1 / period exceeds the backend's "
                f"{wide.dtype.name} floats"
            )
        #: the largest angle whose remainder modulo the period the floats still resolve
        self.max_angle = self.period / wide.eps
        if isinstance(harmonics, (int, np.integer)) and not isinstance(harmonics, (bool, np.bool_)):
            ks = np.arange(1, check_int(harmonics, "harmonics", 1) + 1)
        else:
            try:
                ks = np.array([check_int(h, "harmonics[i]", 1) for h in harmonics])
            except TypeError:
                raise TypeError(
                    f"harmonics must be an int or a sequence of positive ints, got {harmonics!r}"
                ) from None
            if ks.size == 0:
                raise ValueError("harmonics must not be empty")
        self.harmonics = ks
        # exponents in turns: u = x / period, reduced modulo 1
        self._offset, self._scale = np.zeros(1), np.array([1 / self.period])
        self._span, self._period_u = np.ones(1), np.ones(1)
        self._lobe = np.array([1 / (4 * ks.max())])
        self._wrap = True
        self._set_theta(_harmonic_phases(self.seed, 0, self._codec.n_freq, ks, 1.0)[None, :])

    def _characteristic(self, t: np.ndarray, axis: int) -> np.ndarray:
        return np.cos(2 * np.pi * t[..., None] * self.harmonics).mean(axis=-1)

    def _checked(self, values: Any, clip: bool) -> Any:
        points = self._points(values)
        if self.backend.is_traced(points):
            return points
        if bool(self.xp.any(self.xp.abs(points) > self.max_angle)):
            raise ValueError(
                f"angles must lie within +-{self.max_angle:.6g} (period / float resolution): beyond "
                "it the floats are further apart than a period, so the angle is lost; got values "
                "outside it"
            )
        return points
