"""Fractional power encoders: numbers as powers of a random phasor vector.

A fractional power encoding (Plate 1994; Frady et al. 2021, "Computing on functions
using randomized vector representations"; Komer et al. 2019 for the multi-dimensional
"spatial semantic pointers") maps a number ``x`` to ``z(x) = base ** (beta * x)``, where
``base = exp(1j * theta)`` has random phases ``theta``. Binding adds exponents,
``bind(z(x), z(y)) = z(x + y)``, and the similarity of two encodings is, in expectation,
the characteristic function of the phase distribution at ``beta * (x - y)``: the phase
distribution chooses the kernel.

This module holds the phasor machinery that FHRR and HRR share (:class:`_Phasors`), the
encoders built on it (:class:`FractionalPowerEncoder`, :class:`VectorFPE`,
:class:`PeriodicAngleEncoder`) and the residue number encoder
(:class:`ResidueEncoder`).

Random parameters. Phases are drawn once per encoder with :mod:`holovec.random` from the
encoder's ``seed`` (stream = axis or modulus), on the host in float64, rounded to the
model's float type and moved to its device: they are bit-identical on every backend, so
encodings differ across backends only by the rounding of cos, sin (and the FFT for HRR).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np

from ..backends import get_backend
from ..models.base import VSAModel
from ..random import Purpose, random_normal, random_phases, random_uniform, random_words
from .base import Encoder, check_values

__all__ = [
    "KERNELS",
    "FractionalPowerEncoder",
    "PeriodicAngleEncoder",
    "ResidueEncoder",
    "VectorFPE",
]

#: the kernels of :class:`FractionalPowerEncoder`, with the phase distribution of each
KERNELS = {
    "sinc": "phases uniform on [-pi, pi): kernel sinc(t) = sin(pi t) / (pi t)",
    "gaussian": "phases N(0, 1): kernel exp(-t**2 / 2)",
    "laplace": "phases Cauchy(0, 1): kernel exp(-|t|) (the Laplace, or exponential, kernel)",
    "cauchy": "phases Laplace(0, 1): kernel 1 / (1 + t**2) (the Cauchy kernel)",
    "periodic": "phases on a grid of whole harmonics: kernel periodic in x (see `period`)",
}
_PHASOR_MODELS = ("FHRR", "HRR")
#: phase elements per chunk of the NumPy kernel (1 MiB of float32: stays in cache)
_CHUNK_ELEMENTS = 2**18
#: a decode table larger than this is made chunk by chunk on each call instead of kept
_TABLE_BYTES = 128 * 2**20


def _host() -> Any:
    """The NumPy backend on which encoder parameters are drawn (then moved to the model's)."""
    return get_backend("numpy")


def _number(value: Any, name: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {type(value).__name__} {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value}")
    return value


def _per_axis(value: Any, name: str, k: int) -> np.ndarray:
    """A number, or a sequence of ``k`` numbers (one per axis), as a float64 array of shape (k,)."""
    if isinstance(value, (Sequence, np.ndarray)) and not isinstance(value, str):
        items = list(np.asarray(value, dtype=object).reshape(-1))
        if len(items) != k:
            raise ValueError(
                f"{name} must be a number or a sequence of {k} numbers (one per axis), got {value!r}"
            )
        return np.array([_number(v, f"{name}[{i}]") for i, v in enumerate(items)])
    return np.full(k, _number(value, name))


def _check_int(value: Any, name: str, low: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}")
    if value < low:
        raise ValueError(f"{name} must be an int >= {low}, got {value}")
    return int(value)


def _wide(backend: Any) -> Any:
    """The widest float dtype of the backend (float64, or float32 on JAX without x64)."""
    return backend.dtype("float64" if backend.supports_dtype("float64") else "float32")


def _index_dtype(backend: Any) -> Any:
    return backend.dtype("int64" if backend.supports_dtype("int64") else "int32")


def _pick(xp: Any, matrix: Any, index: Any) -> Any:
    """``matrix[i, index[i]]`` for every row ``i`` (a gather that every backend has)."""
    n, m = matrix.shape
    flat = xp.arange(n, dtype=index.dtype, device=_device(matrix)) * m + index
    return xp.take(xp.reshape(matrix, (-1,)), flat, axis=0)


def _shared(model: VSAModel, key: tuple, fn: Any) -> Any:
    """``fn`` compiled once per model and ``key`` on backends that compile (JAX), so that
    every encoder of that configuration reuses one program; ``fn`` itself elsewhere.
    ``fn`` must depend only on its arguments and on what ``key`` names. The programs are
    kept on the model (they live and die with it)."""
    if not model.backend.jit_kernels:
        return fn
    per_model = model.__dict__.setdefault("_encoder_programs", {})
    if key not in per_model:
        per_model[key] = model.backend.jit(fn)
    return per_model[key]


def _compiled(obj: Any, name: str) -> Any:
    """The pure array method ``obj.name``, compiled (once per object) on backends that
    compile (JAX: one program instead of one compiled kernel per operation and shape)."""
    cache = obj.__dict__.setdefault("_compiled_functions", {})
    if name not in cache:
        fn = getattr(obj, name)
        cache[name] = obj.backend.jit(fn) if obj.backend.jit_kernels else fn
    return cache[name]


def _device(x: Any) -> Any:
    from array_api_compat import device

    return device(x)


# -- the phasor machinery of FHRR and HRR -----------------------------------------------------


class _Phasors:
    """Vectors of an FHRR or HRR model from phases, and back.

    FHRR: a vector is ``exp(1j * phases)``, one phase per element (``n_freq = dim``).
    HRR: a vector is the real inverse FFT of ``exp(1j * phases)`` over the ``dim // 2 + 1``
    non-negative frequencies (``n_freq``); the spectrum of a real vector is conjugate
    symmetric, so the zero frequency (and, for even ``dim``, the Nyquist frequency) must be
    real: their phases are always 0 (:meth:`fixed` marks them). Such vectors are unitary
    (norm 1, every Fourier coefficient of magnitude 1), so HRR's circular convolution
    multiplies the spectra and adds the phases, exactly as FHRR's elementwise product does.
    """

    def __init__(self, model: VSAModel) -> None:
        self.model = model
        self.backend = model.backend
        self.xp = model.xp
        self.dim = model.dim
        self.hrr = model.name == "HRR"
        self.n_freq = self.dim // 2 + 1 if self.hrr else self.dim
        real = "float64" if model.dtype_name in ("complex128", "float64") else "float32"
        self.np_real = np.dtype(real)
        self.real = self.backend.dtype(real)
        self._jit_phases = self.backend.jit(self._phase_vectors) if self.backend.jit_kernels else None

    def fixed(self) -> np.ndarray:
        """Host mask of the frequencies whose phase is always 0 (HRR: zero and Nyquist)."""
        mask = np.zeros(self.n_freq, dtype=bool)
        if self.hrr:
            mask[0] = True
            mask[-1] |= self.dim % 2 == 0
        return mask

    @property
    def n_fixed(self) -> int:
        return int(self.fixed().sum())

    def vectors(self, phases: Any) -> Any:
        """Vectors ``(..., dim)`` from phases ``(..., n_freq)`` of the model's float type."""
        spectrum = self.backend.unit_phasor(phases)
        if not self.hrr:
            return spectrum
        return self.backend.irfft(spectrum, self.dim)

    def spectrum(self, vectors: Any) -> Any:
        """The phasors ``exp(1j * phases)`` of vectors (for HRR: the non-negative half of the FFT)."""
        return self.backend.rfft(vectors) if self.hrr else vectors

    @staticmethod
    def phases(u: Any, theta: Any) -> Any:
        """Phases ``u @ theta`` of exponents ``u`` (n, k) and frequencies ``theta`` (k, n_freq)."""
        if u.shape[-1] == 1:  # one axis: an outer product, exact in every backend
            return u[:, :1] * theta[0]
        return u @ theta

    def _phase_vectors(self, u: Any, theta: Any) -> Any:
        return self.vectors(self.phases(u, theta))

    def from_exponents(self, u: Any, theta: Any) -> Any:
        """``base ** u`` for rows of exponents ``u`` (n, k) in the model's float type: shape (n, dim)."""
        if self.backend.name == "numpy" and u.shape[0] > 1:
            return self._numpy_rows(u, theta)
        if self._jit_phases is not None:
            return self._jit_phases(u, theta)
        return self._phase_vectors(u, theta)

    def _numpy_rows(self, u: np.ndarray, theta: np.ndarray) -> np.ndarray:
        """The NumPy kernel: blocks of rows whose phases stay in cache, written straight into
        the output (cos into the real parts, sin into the imaginary ones), on every core."""
        n = u.shape[0]
        out = np.empty((n, self.dim), dtype=self.model.dtype)
        rows = max(1, _CHUNK_ELEMENTS // self.n_freq)

        def fill(start: int) -> None:
            phases = self.phases(u[start : start + rows], theta)
            block = out[start : start + rows]
            if self.hrr:
                block[...] = np.fft.irfft(self.backend.unit_phasor(phases), self.dim, axis=-1)
            else:
                np.cos(phases, out=block.real)
                np.sin(phases, out=block.imag)

        self.backend.map_chunks(fill, range(0, n, rows))
        return out


def _fpe_vectors(
    codec: _Phasors, k: int, period: float | None, points: Any, theta: Any, offset: Any, scale: Any
) -> Any:
    """``base ** ((points - offset) * scale)`` (points modulo ``period`` first, if given)."""
    xp = codec.xp
    batch = tuple(points.shape[:-1])
    if period is not None:  # modulo the period in the values' own units: exact for whole multiples
        points = points - xp.floor(points / period) * period
    u = xp.reshape((points - offset) * scale, (-1, k))
    out = codec.from_exponents(xp.astype(u, codec.real), theta)
    return xp.reshape(out, (*batch, codec.model.vector_length))


def _check_phasor_model(encoder: Encoder) -> None:
    if encoder.model.name == "HRR" and encoder.model.dim < 3:
        raise ValueError("phasor encodings on HRR need dim >= 3 (one frequency besides the zero one)")


# -- fractional power encoders ---------------------------------------------------------------


class _PhaseEncoder(Encoder, ABC):
    """What the fractional power encoders share: ``z(u) = exp(1j * u @ theta)`` for exponents
    ``u = (x - offset) * scale`` per axis, and a decoder that searches the exponent.

    Subclasses set, per axis: ``_offset``, ``_scale`` (host float64, shape ``(k,)``),
    ``_span`` (the exponents searched, ``[0, span]``), ``_period_u`` (the period of the
    encoding in exponent units, ``inf`` if none), ``_lobe`` (half-width of the kernel's
    main lobe, in exponent units), and ``_theta`` (backend, ``(k, n_freq)``).
    """

    supported_models = _PHASOR_MODELS
    #: at least this many coarse candidates per axis when decoding
    min_candidates = 16
    #: candidates of the refinement grid around the coarse estimate (one coarse step either side)
    fine_candidates = 9
    #: Newton steps on the similarity after the grids
    newton_steps = 2

    dims: int | None
    _wrap = False  # reduce values modulo the period before encoding

    def __init__(self, model: VSAModel, *, seed: int | None, clip: bool) -> None:
        super().__init__(model, seed=seed)
        _check_phasor_model(self)
        if not isinstance(clip, bool):
            raise TypeError(f"clip must be True or False, got {clip!r}")
        self.clip = clip
        self._codec = _Phasors(model)
        self._decode_cache: dict[Any, Any] = {}

    # -- parameters -----------------------------------------------------------------------
    @property
    def _k(self) -> int:
        return 1 if self.dims is None else self.dims

    def _to_backend(self, host: np.ndarray, dtype: Any) -> Any:
        return self.backend.asarray(np.ascontiguousarray(host), dtype=dtype)

    def _set_theta(self, theta: np.ndarray) -> None:
        """Host frequencies (k, n_freq), float64: the fixed HRR frequencies are zeroed, then
        they are rounded to the model's float type and moved to its device."""
        theta = np.where(self._codec.fixed(), 0.0, theta)
        self.theta_host = theta.astype(self._codec.np_real)
        self._theta = self._to_backend(self.theta_host, self._codec.real)
        wide = _wide(self.backend)
        self._offset_b = self._to_backend(self._offset, wide)
        self._scale_b = self._to_backend(self._scale, wide)

    # -- encoding ---------------------------------------------------------------------------
    def _points(self, values: Any) -> Any:
        """Checked values as an array of points ``(..., k)`` of the backend's widest float."""
        x = check_values(self.backend, values, name="values")
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
        xp, wide = self.xp, _wide(self.backend)
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
        fn = _shared(
            self.model, ("fpe", self._k, period), partial(_fpe_vectors, self._codec, self._k, period)
        )
        return fn(points, self._theta, self._offset_b, self._scale_b)

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
        return _compiled(self, "_points_to_vectors")(points)

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
        for a in range(self._k):
            value = value * self._characteristic(t[..., a], a)
        if self._codec.hrr:
            fixed = self._codec.n_fixed / self.model.dim
            value = fixed + (1 - fixed) * value
        return value

    # -- decoding ---------------------------------------------------------------------------
    def _axis_grid(self, axis: int, count: int | None) -> tuple[np.ndarray, float]:
        """Coarse candidate exponents of one axis and their spacing."""
        span, period, step = self._span[axis], self._period_u[axis], self._lobe[axis] / 4
        periodic = period <= span * (1 + 1e-12)
        if periodic:
            n = count or max(self.min_candidates, math.ceil(period / step))
            return np.arange(n) * (period / n), period / n
        n = count or max(self.min_candidates, math.ceil(span / step) + 1)
        return np.linspace(0.0, span, n), span / (n - 1)

    def _coarse(self, resolution: int | None) -> tuple[np.ndarray, Any, Any | None, list[float]]:
        """The coarse grid of exponents (host, (G, k), and on the backend), its vectors if
        small enough to keep, and the spacing per axis."""
        key = ("coarse", resolution)
        if key not in self._decode_cache:
            axes = [self._axis_grid(a, resolution) for a in range(self._k)]
            mesh = np.meshgrid(*(g for g, _ in axes), indexing="ij")
            grid = np.stack([m.reshape(-1) for m in mesh], axis=-1)
            nbytes = grid.shape[0] * self.model.vector_length * np.dtype(self.model.dtype_name).itemsize
            table = (
                self._vectors(self._to_backend(grid, self._codec.real)) if nbytes <= _TABLE_BYTES else None
            )
            on_backend = self._to_backend(grid, _wide(self.backend))
            self._decode_cache[key] = (grid, on_backend, table, [s for _, s in axes])
        return self._decode_cache[key]

    def _coarse_similarities(self, q: Any, grid: np.ndarray, table: Any | None) -> Any:
        model = self.model
        if table is not None:
            return model.similarity_matrix(q, table)
        rows = max(1, _TABLE_BYTES // (16 * model.vector_length))
        parts = [
            model.similarity_matrix(q, self._vectors(self._to_backend(grid[s : s + rows], self._codec.real)))
            for s in range(0, grid.shape[0], rows)
        ]
        return self.xp.concat(parts, axis=-1)

    def _fine_table(self, axis: int, step: float) -> Any:
        """Vectors of the offsets ``(j - (M - 1) / 2) * step`` along ``axis`` (M candidates)."""
        key = ("fine", axis, step)
        if key not in self._decode_cache:
            m = self.fine_candidates
            offsets = np.zeros((m, self._k))
            offsets[:, axis] = (np.arange(m) - (m - 1) / 2) * step
            self._decode_cache[key] = self._vectors(self._to_backend(offsets, self._codec.real))
        return self._decode_cache[key]

    def _refine_axis(self, q: Any, u: Any, axis: int, step: float, table: Any) -> Any:
        """Move ``u[:, axis]`` to the best of M candidates around it (found by unbinding the
        current estimate, so that one table of offsets serves every query), then to the
        vertex of the parabola through the best candidate and its neighbours."""
        xp, model, m = self.xp, self.model, self.fine_candidates
        residual = model.unbind(q, self._vectors(u))
        sims = model.similarity_matrix(residual, table)
        best = xp.argmax(sims, axis=-1)
        lo, hi = xp.clip(best - 1, 0, m - 1), xp.clip(best + 1, 0, m - 1)
        s0, s_lo, s_hi = _pick(xp, sims, best), _pick(xp, sims, lo), _pick(xp, sims, hi)
        curvature = s_lo - 2 * s0 + s_hi
        inside = (best > 0) & (best < m - 1) & (curvature < 0)
        vertex = xp.where(inside, 0.5 * (s_lo - s_hi) / xp.where(inside, curvature, -1), 0)
        vertex = xp.clip(vertex, -0.5, 0.5)
        shift = (xp.astype(best, u.dtype) - (m - 1) / 2 + xp.astype(vertex, u.dtype)) * step
        column = xp.astype(xp.arange(self._k, device=self.backend.device) == axis, u.dtype)
        return u + shift[:, None] * column

    def _newton_weights(self, step: np.ndarray) -> Any:
        """Per axis, the frequencies used by the Newton steps: those whose phase changes by
        at most half a radian across the remaining uncertainty ``step`` (all of them for
        every kernel but the heavy-tailed ``laplace``, whose few huge frequencies would
        otherwise wrap around)."""
        key = ("newton", tuple(step))
        if key not in self._decode_cache:
            limit = (0.5 / step)[:, None]
            weights = np.where(np.abs(self.theta_host) <= limit, self.theta_host, 0)
            self._decode_cache[key] = self._to_backend(weights, self._codec.real)
        return self._decode_cache[key]

    def _newton(self, q: Any, u: Any, step: tuple[float, ...], weights: Any) -> Any:
        """Newton steps on the similarity, for all axes at once.

        With ``r = spectrum(q) * conj(spectrum(z(u)))`` (the query unbound by the estimate),
        ``s(u + e) = mean Re(r * exp(-1j * e @ theta))`` (HRR: the fixed frequencies have
        ``theta = 0``), so the gradient is ``g_a = sum theta_a * Im(r)`` and the Hessian
        ``-H`` with ``H_ab = sum theta_a * theta_b * Re(r)`` (up to a common factor): the
        step solves ``H e = g``, kept within ``step`` per axis, and is skipped where the
        similarity is not concave.
        """
        xp, codec, k = self.xp, self._codec, self._k
        spectrum = codec.spectrum(q)
        limit = self._to_backend(np.array(step), u.dtype)
        for _ in range(self.newton_steps):
            phases = codec.phases(xp.astype(u, codec.real), self._theta)
            r = spectrum * self.backend.unit_phasor(-phases)
            re = xp.real(r)
            gradient = xp.astype(xp.imag(r) @ weights.mT, u.dtype)  # (n, k)
            if k == 1:
                curvature = xp.astype(re @ (weights * weights).mT, u.dtype)
                ok = curvature > 0
                delta = xp.where(ok, gradient / xp.where(ok, curvature, 1), 0)
            else:
                hessian = xp.astype(
                    xp.stack([(re * weights[a]) @ weights.mT for a in range(k)], axis=-2), u.dtype
                )
                diagonal = xp.stack([hessian[:, a, a] for a in range(k)], axis=-1)
                ok = xp.all(diagonal > 0, axis=-1, keepdims=True)
                eye = xp.eye(k, dtype=u.dtype, device=self.backend.device)
                safe = xp.where(ok[..., None], hessian, eye)
                delta = xp.linalg.solve(safe, gradient[..., None])[..., 0]
                ok = ok & (xp.sum(delta * gradient, axis=-1, keepdims=True) > 0)
                delta = xp.where(ok, delta, 0)
            u = u + xp.minimum(xp.maximum(delta, -limit), limit)
        return u

    def _search(self, q: Any, resolution: int | None) -> Any:
        """The values (exponents mapped back) whose encodings are the most similar to each
        query ``q`` (n, dim), shape (n, k). The tables are made here, eagerly; the search
        itself is one compiled function on backends that compile (JAX)."""
        xp = self.xp
        grid, on_backend, table, spacing = self._coarse(resolution)
        steps = tuple(float(s) * 2 / (self.fine_candidates - 1) for s in spacing)
        fine = tuple(self._fine_table(a, steps[a]) for a in range(self._k))
        weights = self._newton_weights(np.array(steps))
        if table is None:  # too many candidates to keep: the coarse search in chunks, eagerly
            u = xp.take(on_backend, xp.argmax(self._coarse_similarities(q, grid, None), axis=-1), axis=0)
            return self._polish(q, u, fine, weights, steps)
        key = ("search", steps)
        if key not in self._decode_cache:

            def search(q: Any, grid: Any, table: Any, fine: Any, weights: Any) -> Any:
                u = xp.take(grid, xp.argmax(self.model.similarity_matrix(q, table), axis=-1), axis=0)
                return self._polish(q, u, fine, weights, steps)

            self._decode_cache[key] = self.backend.jit(search) if self.backend.jit_kernels else search
        return self._decode_cache[key](q, on_backend, table, fine, weights)

    def _polish(self, q: Any, u: Any, fine: tuple[Any, ...], weights: Any, steps: tuple[float, ...]) -> Any:
        """From the coarse estimate ``u``: the fine grid per axis, Newton, back to values."""
        for a in range(self._k):
            u = self._refine_axis(q, u, a, steps[a], fine[a])
        return self._finish(self._newton(q, u, steps, weights))

    def _finish(self, u: Any) -> Any:
        """Exponents back into the encoder's domain (clamped, or wrapped for periodic axes)."""
        xp, wide = self.xp, _wide(self.backend)
        periodic_host = self._period_u <= self._span * (1 + 1e-12)
        period = self._to_backend(np.where(periodic_host, self._period_u, 1.0), wide)
        periodic = self._to_backend(periodic_host, self.backend.dtype("bool"))
        span = self._to_backend(self._span, wide)
        wrapped = u - xp.floor(u / period) * period
        wrapped = xp.where(wrapped >= period, wrapped - period, wrapped)  # -tiny wraps to period
        u = xp.where(periodic, wrapped, xp.minimum(xp.maximum(u, 0), span))
        return u / self._scale_b + self._offset_b

    def decode(self, vectors: Any, *, resolution: int | None = None) -> Any:
        """The value (point) whose encoding is most similar to each vector.

        A vectorised search: one ``similarity_matrix`` of the queries against the encodings
        of a coarse grid of candidates (a quarter of the kernel's main lobe apart, at least
        ``min_candidates`` per axis; ``resolution`` sets the count per axis), then, per axis,
        one refinement: unbind the estimate and search a fine grid of ``fine_candidates``
        offsets around it (one shared table), take the vertex of a parabola through the
        three best similarities, and finish with ``newton_steps`` Newton steps. Returns a
        0-d array for one vector, else shape ``(...)`` (``(..., k)`` for ``dims=k``), in the
        backend's widest float type.
        """
        model, xp = self.model, self.xp
        if resolution is not None:
            resolution = _check_int(resolution, "resolution", 2)
        vectors = model._check(vectors, "vectors")
        batch = tuple(vectors.shape[:-1])
        q = xp.reshape(vectors, (-1, model.vector_length))
        values = self._search(q, resolution)
        return xp.reshape(values, batch if self.dims is None else (*batch, self._k))


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
        self.dims = None if dims is None else _check_int(dims, "dims", 1)
        k = self._k
        if not isinstance(kernel, str) or kernel.lower() not in KERNELS:
            raise ValueError(f"kernel must be one of {', '.join(map(repr, KERNELS))}; got {kernel!r}")
        self.kernel_name = kernel.lower()
        self.min_val, self.max_val = _per_axis(min_val, "min_val", k), _per_axis(max_val, "max_val", k)
        if np.any(self.min_val >= self.max_val):
            raise ValueError(f"min_val must be below max_val, got min_val={min_val!r}, max_val={max_val!r}")
        self.bandwidth = _per_axis(bandwidth, "bandwidth", k)
        if np.any(self.bandwidth <= 0):
            raise ValueError(f"bandwidth must be positive, got {bandwidth!r}")
        value_range = self.max_val - self.min_val
        self.beta = self.bandwidth / value_range
        if period is not None and self.kernel_name != "periodic":
            raise ValueError(f"period is an option of kernel='periodic' only (kernel is {kernel!r})")
        self.period = value_range if period is None else _per_axis(period, "period", k)
        if np.any(self.period <= 0):
            raise ValueError(f"period must be positive, got {period!r}")
        self._offset, self._scale = self.min_val, self.beta
        self._span = self.bandwidth.copy()
        self._lobe = np.ones(k)
        self._period_u = np.full(k, np.inf)
        if self.kernel_name == "periodic":
            self._period_u = self.beta * self.period
            self.harmonics = np.maximum(1, np.floor(self._period_u / 2)).astype(np.int64)
            self._lobe = self._period_u / (4 * self.harmonics)
        n = self._codec.n_freq
        self._set_theta(np.stack([self._draw(a, n) for a in range(k)]))

    def _draw(self, axis: int, n: int) -> np.ndarray:
        """Phases of one axis (host, float64), per exponent unit."""
        host, seed = _host(), self.seed
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

    def __repr__(self) -> str:
        def show(a: np.ndarray) -> str:
            return f"{a[0]:g}" if self.dims is None else "(" + ", ".join(f"{v:g}" for v in a) + ")"

        dims = "" if self.dims is None else f", dims={self.dims}"
        return (
            f"{type(self).__name__}(model={self.model!r}, min_val={show(self.min_val)}, "
            f"max_val={show(self.max_val)}, bandwidth={show(self.bandwidth)}, "
            f"kernel={self.kernel_name!r}{dims}, seed={self.seed})"
        )


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
    words = random_words(_host(), seed, 1, n, stream=axis, purpose=Purpose.HARMONICS)[0].astype(np.int64)
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
    wraps); ``decode`` returns values in ``[0, period)``.

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
        self.period = _number(period, "period")
        if self.period <= 0:
            raise ValueError(f"period must be positive, got {period!r}")
        if isinstance(harmonics, (int, np.integer)) and not isinstance(harmonics, (bool, np.bool_)):
            ks = np.arange(1, _check_int(harmonics, "harmonics", 1) + 1)
        else:
            try:
                ks = np.array([_check_int(h, "harmonics[i]", 1) for h in harmonics])
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

    def __repr__(self) -> str:
        return (
            f"PeriodicAngleEncoder(model={self.model!r}, period={self.period:g}, "
            f"harmonics={self.harmonics.tolist()}, seed={self.seed})"
        )


# -- residue numbers ---------------------------------------------------------------------------


def _residue_vectors(codec: _Phasors, moduli: tuple[int, ...], x: Any, k: Any) -> Any:
    """Codes of whole numbers ``x`` (floats): phases ``2 pi sum_m (k_m * (x mod m) mod m) / m``."""
    xp = codec.xp
    batch = tuple(x.shape)
    xi = xp.astype(xp.reshape(xp.round(x), (-1,)), k.dtype)
    turns = None
    for i, m in enumerate(moduli):  # a fraction of a turn per modulus, exact in floats
        part = xp.astype(((xi % m)[:, None] * k[i]) % m, codec.real) / m
        turns = part if turns is None else turns + part
    phases = (turns - xp.floor(turns)) * (2 * math.pi)
    return xp.reshape(codec.vectors(phases), (*batch, codec.model.vector_length))


class ResidueEncoder(Encoder):
    """Integers in a residue number system (Kymn, Kleyko, Frady et al. 2023, "Computing with
    residue numbers in high-dimensional representation"), for FHRR and HRR.

    One random base per modulus ``m``, whose phases are multiples ``2 pi k / m`` (``k``
    uniform on ``0 .. m - 1``: the m-th roots of unity, so ``base_m ** m`` is the identity);
    ``encode(x)`` is the binding over the moduli of ``base_m ** (x mod m)``. With pairwise
    coprime moduli of product ``M`` the code of ``x`` depends on ``x mod M`` only, distinct
    residues are orthogonal in expectation (on FHRR exactly 0 in expectation, not just
    small; on HRR the fixed zero and Nyquist frequencies add ``1/dim`` or ``2/dim``, as
    :meth:`kernel` accounts for), and binding adds:
    ``bind(encode(x), encode(y)) == encode((x + y) % M)`` up to float rounding. Valid
    inputs are the integers ``0 .. M - 1``.

    ``decode`` has two methods. ``"moduli"`` finds each residue by a search over its ``m``
    candidates and combines them by the Chinese remainder theorem (work ``sum(moduli)``, not
    ``prod(moduli)``): raising a vector elementwise to the power ``M / m`` turns every other
    modulus's phases into whole turns and leaves a code of ``x mod m`` alone, so each
    residue is found directly; then ``sweeps`` passes of coordinate ascent (per modulus:
    unbind the other moduli's estimates and take the best of the ``m`` candidates) polish
    the joint answer. It is exact for encodings and their bindings, but the power
    multiplies phase noise by ``M / m``, so it does not decode noisy vectors (bundles).
    ``"exhaustive"`` compares with all ``M`` codes (one ``similarity_matrix`` against a
    table kept after the first call): the most similar code, robust to noise. The default
    ``"auto"`` is exhaustive while that table takes at most 128 MiB.

    Examples
    --------
    >>> from holovec import VSA
    >>> from holovec.encoders import ResidueEncoder
    >>> model = VSA.create("FHRR", dim=1000)
    >>> rns = ResidueEncoder(model, moduli=(3, 5, 7), seed=2)
    >>> rns.modulus
    105
    >>> a, b = rns.encode(40), rns.encode(80)
    >>> int(rns.decode(model.bind(a, b)))   # (40 + 80) % 105
    15
    """

    supported_models = _PHASOR_MODELS

    def __init__(
        self,
        model: VSAModel,
        moduli: Sequence[int] = (3, 5, 7),
        seed: int | None = None,
        *,
        clip: bool = False,
    ) -> None:
        super().__init__(model, seed=seed)
        _check_phasor_model(self)
        if not isinstance(clip, bool):
            raise TypeError(f"clip must be True or False, got {clip!r}")
        self.clip = clip
        try:
            moduli = tuple(_check_int(m, "every modulus", 2) for m in moduli)
        except TypeError as exc:
            if isinstance(moduli, Sequence):
                raise
            raise TypeError(f"moduli must be a sequence of ints >= 2, got {moduli!r}") from exc
        if not moduli:
            raise ValueError("moduli must not be empty")
        for i, a in enumerate(moduli):
            for b in moduli[i + 1 :]:
                if math.gcd(a, b) != 1:
                    raise ValueError(
                        f"moduli must be pairwise coprime; {a} and {b} share the factor {math.gcd(a, b)}"
                    )
        self.moduli = moduli
        self.modulus = math.prod(moduli)
        exact = 2**53 if self.backend.supports_dtype("float64") else 2**24
        limit = min(2**31 - 1, exact)
        if self.modulus > limit:
            raise ValueError(
                f"the product of the moduli must be at most {limit} here (integers must be exact in "
                f"the backend's floats and int32), got {self.modulus}"
            )
        self._int = _index_dtype(self.backend)
        if self._int == self.backend.dtype("int32") and max(moduli) > 46340:
            raise ValueError(
                f"this backend computes in int32, so every modulus must be at most 46340; got {max(moduli)}"
            )
        self._codec = codec = _Phasors(model)
        fixed = codec.fixed()
        k = []
        for i, m in enumerate(moduli):
            words = random_words(
                _host(), self.seed, 1, codec.n_freq, stream=i, purpose=Purpose.RESIDUE_PHASES
            )[0]
            k.append(np.where(fixed, 0, words.astype(np.int64) % m))
        self.k_host = np.stack(k)  # (n_moduli, n_freq): base_m's phases are 2 pi k / m
        self._k = self.backend.asarray(self.k_host, dtype=self._int)
        self._codebooks: list[Any] | None = None
        self._weights: Any = None
        self._table: Any = None

    def encode(self, values: Any, *, clip: bool | None = None) -> Any:
        """One integer or an array of integers in ``[0, modulus)`` -> vectors ``(..., dim)``."""
        xp = self.xp
        clip = self.clip if clip is None else clip
        x = check_values(self.backend, values, low=0, high=self.modulus - 1, clip=clip)
        if clip:  # also under tracing, where check_values cannot clip
            x = xp.clip(x, 0, self.modulus - 1)
        if not self.backend.is_traced(x) and not bool(xp.all(x == xp.floor(x))):
            raise ValueError("ResidueEncoder encodes integers; got values with a fractional part")
        fn = _shared(
            self.model, ("residue", self.moduli), partial(_residue_vectors, self._codec, self.moduli)
        )
        return fn(x, self._k)

    def _codebook(self, index: int) -> Any:
        """Spectra ``exp(2 pi i k r / m)`` of the ``m`` powers of one modulus's base, (m, n_freq)."""
        if self._codebooks is None:
            xp, codec = self.xp, self._codec
            books = []
            for i, m in enumerate(self.moduli):
                r = xp.arange(m, dtype=self._int, device=self.backend.device)
                phase = xp.astype((r[:, None] * self._k[i]) % m, codec.real) * (2 * math.pi / m)
                books.append(self.backend.unit_phasor(phase))
            self._codebooks = books
        return self._codebooks[index]

    def _scores(self, spectrum: Any, index: int) -> Any:
        """How well each power of modulus ``index``'s base matches each row of ``spectrum``:
        the similarity up to a positive factor per row, ``Re sum_f w_f s_f conj(c_f)``
        (HRR counts each frequency but the fixed ones twice, as the full spectrum does)."""
        xp, book = self.xp, self._codebook(index)
        re, im = xp.real(spectrum), xp.imag(spectrum)
        if self._codec.hrr:
            re, im = re * self._weights, im * self._weights
        return re @ xp.real(book).mT + im @ xp.imag(book).mT

    def _unit(self, spectrum: Any) -> Any:
        """Every coefficient divided by its magnitude (zeros become 1)."""
        xp = self.xp
        magnitude = xp.abs(spectrum)
        nonzero = magnitude > 0
        return xp.where(nonzero, spectrum / xp.where(nonzero, magnitude, 1), 1)

    #: sweeps of coordinate ascent after the per-modulus search
    sweeps = 2

    def _sweep(self, spectrum: Any, states: list[Any], choice: list[Any]) -> None:
        """One pass of coordinate ascent over the moduli: each residue re-chosen as the best
        of its ``m`` candidates given the others (unbound from the query)."""
        xp = self.xp
        for i in range(len(self.moduli)):
            rest = None
            for j, state in enumerate(states):
                if j != i:
                    rest = state if rest is None else rest * state
            choice[i] = xp.astype(xp.argmax(self._scores(spectrum * xp.conj(rest), i), axis=-1), self._int)
            states[i] = xp.take(self._codebook(i), choice[i], axis=0)

    def _decode_moduli(self, q: Any) -> Any:
        """Per-modulus search, then the Chinese remainder theorem (a pure array function)."""
        xp, codec = self.xp, self._codec
        spectrum = codec.spectrum(q)
        # each modulus alone: the power M / m turns every other modulus's phases into whole
        # turns, and residue r into r * (M / m) mod m
        angle = xp.astype(xp.atan2(xp.imag(spectrum), xp.real(spectrum)), _wide(self.backend))
        choice = []
        for i, m in enumerate(self.moduli):
            p = self.modulus // m
            powered = angle * p
            powered = powered - xp.floor(powered / (2 * math.pi)) * (2 * math.pi)
            scores = self._scores(self.backend.unit_phasor(xp.astype(powered, codec.real)), i)
            found = xp.astype(xp.argmax(scores, axis=-1), self._int)
            choice.append((found * pow(p, -1, m)) % m)
        # coordinate ascent: each residue the best given the others (exact encodings are
        # fixed points; it repairs residues that rounding or light noise made wrong)
        if len(self.moduli) > 1:
            states = [xp.take(self._codebook(i), c, axis=0) for i, c in enumerate(choice)]
            for _ in range(self.sweeps):
                self._sweep(spectrum, states, choice)
        return self._crt(choice)

    def _decode_exhaustive(self, q: Any, table: Any) -> Any:
        """The most similar of all ``modulus`` codes (one similarity_matrix)."""
        xp = self.xp
        return xp.astype(xp.argmax(self.model.similarity_matrix(q, table), axis=-1), self._int)

    def decode(self, vectors: Any, *, method: str = "auto") -> Any:
        """The integer in ``[0, modulus)`` encoded by each vector: a 0-d integer array for one
        vector, else shape ``(...)``.

        ``method``: ``"exhaustive"`` searches all ``modulus`` codes for the most similar one
        (robust to noise; the table of codes is kept); ``"moduli"`` searches each modulus's
        ``m`` candidates and combines the residues by the Chinese remainder theorem (work
        ``sum(moduli)`` instead of ``prod(moduli)``; exact for encodings and their bindings,
        not for noisy vectors); ``"auto"`` (default) is exhaustive while the table of all
        codes takes at most 128 MiB, else moduli.
        """
        model, xp = self.model, self.xp
        if method not in ("auto", "exhaustive", "moduli"):
            raise ValueError(f"method must be 'auto', 'exhaustive' or 'moduli', got {method!r}")
        vectors = model._check(vectors, "vectors")
        batch = tuple(vectors.shape[:-1])
        q = xp.reshape(vectors, (-1, model.vector_length))
        if method == "auto":
            nbytes = self.modulus * model.vector_length * np.dtype(model.dtype_name).itemsize
            method = "exhaustive" if nbytes <= _TABLE_BYTES else "moduli"
        if method == "exhaustive":
            if self._table is None:
                values = xp.arange(self.modulus, dtype=_wide(self.backend), device=self.backend.device)
                self._table = self.encode(values)
            return xp.reshape(_compiled(self, "_decode_exhaustive")(q, self._table), batch)
        # made eagerly, so that a compiled decode sees them as constants
        for i in range(len(self.moduli)):
            self._codebook(i)
        if self._codec.hrr and self._weights is None:
            self._weights = self.backend.asarray(
                np.where(self._codec.fixed(), 1.0, 2.0), dtype=self._codec.real
            )
        return xp.reshape(_compiled(self, "_decode_moduli")(q), batch)

    def _crt(self, residues: list[Any]) -> Any:
        """The integers with these residues (Garner's mixed-radix form: no product exceeds
        the moduli squared, so int32 suffices)."""
        digits: list[Any] = []
        for i, m in enumerate(self.moduli):
            v = residues[i]
            for j in range(i):
                v = ((v - digits[j]) * pow(self.moduli[j], -1, m)) % m
            digits.append(v)
        value = digits[-1]
        for j in range(len(digits) - 2, -1, -1):
            value = value * self.moduli[j] + digits[j]
        return value

    def __repr__(self) -> str:
        return f"ResidueEncoder(model={self.model!r}, moduli={self.moduli}, seed={self.seed})"
