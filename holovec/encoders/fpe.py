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
decoder from :class:`~holovec.encoders.fpe_decode.ExponentSearch`, what the phase
encoders share from :mod:`holovec.encoders._phase_encoder`; the angle encoder lives in
:mod:`holovec.encoders.angles` (and is imported here too) and the residue number encoder
in :mod:`holovec.encoders.residue`.

Random parameters. Phases are drawn once per encoder with :mod:`holovec.random` from the
encoder's ``seed`` (stream = axis), on the host in float64, rounded to the model's float
type and moved to its device: they are bit-identical on every backend, so encodings
differ across backends only by the rounding of cos, sin (and the FFT for HRR).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from .._deprecation import keyword_only_after, renamed_arguments
from .._params import FINITE, FLAG, NONE, OPTIONAL_POSITIVE_INT, POSITIVE, POSITIVE_INT, Either, Rule
from ..models.base import VSAModel
from ..random import Purpose, random_normal, random_phases, random_uniform
from ._phase_encoder import PhaseEncoder, harmonic_phases
from ._rules import PerAxis, Word
from ._values import host_backend, per_axis
from .angles import PeriodicAngleEncoder

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


class FractionalPowerEncoder(PhaseEncoder):
    """Fractional power encoding (FPE) of scalars, or of points with ``n_features=k``, for FHRR and HRR.

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
    model : VSAModel
        An FHRR or HRR model (``TypeError`` otherwise).
    min_val, max_val : float or array_like
        The range of the values (numbers, or one per axis for ``n_features``).
    bandwidth : float or array_like, optional
        The number of kernel widths across the range (``beta * (max_val - min_val)``);
        larger is sharper: more resolution, less generalisation.
    seed : int, optional
        Seed of the phases (``None``: fresh ones); keyword-only.
    kernel : str, optional
        ``"sinc"``, ``"gaussian"``, ``"laplace"``, ``"cauchy"`` or ``"periodic"``.
    n_features : int, optional
        ``None`` for scalars; ``k`` for points of ``k`` coordinates (spatial semantic
        pointers): one independent base per axis, and ``z(p)`` is the binding of the axes'
        encodings, ``exp(1j * sum_a beta_a (p_a - min_a) theta_a)``.
    period : float, optional
        The period of the ``periodic`` kernel (default: the range).
    clip : bool, optional
        Clip values outside the range instead of raising ``ValueError``.

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
    _parameter_rules: ClassVar[dict[str, Rule]] = {
        "min_val": PerAxis(FINITE),
        "max_val": PerAxis(FINITE),
        "bandwidth": PerAxis(POSITIVE),
        "kernel": Word(*KERNELS),
        "n_features": OPTIONAL_POSITIVE_INT,
        "period": Either(NONE, PerAxis(POSITIVE)),
        "clip": FLAG,
    }

    @renamed_arguments(dims="n_features")
    @keyword_only_after(4)
    def __init__(
        self,
        model: VSAModel,
        min_val: Any,
        max_val: Any,
        bandwidth: Any = 1.0,
        *,
        seed: int | None = None,
        kernel: str = "sinc",
        n_features: int | None = None,
        period: Any = None,
        clip: bool = False,
    ) -> None:
        super().__init__(
            model, seed=seed, min_val=min_val, max_val=max_val, bandwidth=bandwidth, kernel=kernel,
            n_features=n_features, period=period, clip=clip,
        )  # fmt: skip
        self.n_features = None if n_features is None else int(n_features)
        k = self.n_axes
        self.kernel_name = kernel.lower()
        self.min_val, self.max_val = per_axis(min_val, "min_val", k), per_axis(max_val, "max_val", k)
        if np.any(self.min_val >= self.max_val):
            raise ValueError(f"min_val must be below max_val, got min_val={min_val!r}, max_val={max_val!r}")
        self.bandwidth = per_axis(bandwidth, "bandwidth", k)
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
        return harmonic_phases(seed, axis, n, np.arange(1, self.harmonics[axis] + 1), self._period_u[axis])

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
    """:class:`FractionalPowerEncoder` of points with ``n_features`` coordinates (spatial
    semantic pointers, Komer et al. 2019): one random base per axis, and a point's vector is
    the binding of its coordinates' encodings. ``encode`` takes arrays of shape
    ``(..., n_features)``.

    Parameters
    ----------
    model : VSAModel
        An FHRR or HRR model (``TypeError`` otherwise).
    n_features : int
        Number of coordinates of an input point.
    min_val : object
        The lower end of the range (a number, or one per axis).
    max_val : object
        The upper end of the range (a number, or one per axis).
    bandwidth : object, optional
        The number of kernel widths across the range: larger is sharper.
    seed : int, optional
        Seed of the encoder's random vectors; ``None`` draws them from the model's
        generator.
    kernel : str, optional
        ``"sinc"``, ``"gaussian"``, ``"laplace"``, ``"cauchy"`` or ``"periodic"``.
    period : object, optional
        The period of the ``periodic`` kernel; ``None`` for the range.
    clip : bool, optional
        Whether values outside the range are clipped to it (else ``ValueError``).

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

    _parameter_rules: ClassVar[dict[str, Rule]] = {"n_features": POSITIVE_INT}

    @renamed_arguments(dims="n_features")
    @keyword_only_after(5)
    def __init__(
        self,
        model: VSAModel,
        n_features: int,
        min_val: Any,
        max_val: Any,
        bandwidth: Any = 1.0,
        *,
        seed: int | None = None,
        kernel: str = "sinc",
        period: Any = None,
        clip: bool = False,
    ) -> None:
        super().__init__(
            model, min_val, max_val, bandwidth, seed=seed, kernel=kernel, n_features=n_features,
            period=period, clip=clip,
        )  # fmt: skip
