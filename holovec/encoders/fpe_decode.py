"""The decoder of the fractional power encoders: the exponent whose encoding is most
similar to a vector, found by a vectorised search (a mixin of the encoders in
:mod:`holovec.encoders.fpe`).

A coarse grid of candidates (one ``similarity_matrix``), then per axis a fine grid of
offsets around the estimate (one shared table, reached by unbinding the estimate), the
vertex of a parabola, and Newton steps on the similarity for all axes at once.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any

import numpy as np

from .. import kernels
from .._params import Interval
from ._values import check_vectors, is_empty, pick

#: a decode table larger than this is made chunk by chunk on each call instead of kept
TABLE_BYTES = 128 * 2**20
#: the most coarse candidates a decode compares (all axes together)
MAX_CANDIDATES = 2**24


class ExponentSearch:
    """Decoding for an encoder with a :class:`~holovec.encoders.phase_codes.PhaseCodec`.

    The encoder provides, per axis (host float64, shape ``(k,)``): ``_offset``, ``_scale``,
    ``_span`` (the exponents searched, ``[0, span]``), ``_period_u`` (the period in exponent
    units, ``inf`` if none), ``_lobe`` (half-width of the kernel's main lobe in exponent
    units); and ``_theta`` (backend, ``(k, n_freq)``), ``theta_host``, ``_codec``,
    ``_decode_cache``, ``n_features``, ``n_axes``, ``_vectors``, ``_to_backend``.
    """

    #: at least this many coarse candidates per axis when decoding
    min_candidates = 16
    #: candidates of the refinement grid around the coarse estimate (one coarse step either side)
    fine_candidates = 9
    #: Newton steps on the similarity after the grids
    newton_steps = 2

    # provided by the encoder
    model: Any
    xp: Any
    backend: Any
    n_features: int | None
    n_axes: int
    theta_host: np.ndarray
    _codec: Any
    _theta: Any
    _decode_cache: dict
    _offset: np.ndarray
    _scale: np.ndarray
    _span: np.ndarray
    _period_u: np.ndarray
    _lobe: np.ndarray
    _half_offset_b: Any
    _double_scale_b: Any

    def _axis_count(self, axis: int, count: int | None) -> int:
        """How many coarse candidates one axis has (``count`` if given)."""
        span, period, step = self._span[axis], self._period_u[axis], self._lobe[axis] / 4
        if count:
            return count
        if period <= span * (1 + 1e-12):  # periodic
            return max(self.min_candidates, math.ceil(period / step))
        return max(self.min_candidates, math.ceil(span / step) + 1)

    def _axis_grid(self, axis: int, count: int | None) -> tuple[np.ndarray, float]:
        """Coarse candidate exponents of one axis and their spacing."""
        span, period = self._span[axis], self._period_u[axis]
        n = self._axis_count(axis, count)
        if period <= span * (1 + 1e-12):  # periodic
            return np.arange(n) * (period / n), period / n
        return np.linspace(0.0, span, n), span / (n - 1)

    def _coarse(self, resolution: int | None) -> tuple[np.ndarray, Any, Any | None, list[float]]:
        """The coarse grid of exponents (host, (G, k), and on the backend), its vectors if
        small enough to keep, and the spacing per axis."""
        key = ("coarse", resolution)
        if key not in self._decode_cache:
            counts = [self._axis_count(a, resolution) for a in range(self.n_axes)]
            if math.prod(counts) > MAX_CANDIDATES:
                raise ValueError(
                    f"decoding would compare {math.prod(counts):.3g} candidates "
                    f"({' x '.join(map(str, counts))} per axis, a quarter of the kernel's width apart "
                    "over the bandwidth), more than "
                    f"{MAX_CANDIDATES}; pass resolution= (candidates per axis) to search fewer"
                )
            axes = [self._axis_grid(a, resolution) for a in range(self.n_axes)]
            mesh = np.meshgrid(*(g for g, _ in axes), indexing="ij")
            grid = np.stack([m.reshape(-1) for m in mesh], axis=-1)
            nbytes = grid.shape[0] * self.model.vector_length * np.dtype(self.model.dtype_name).itemsize
            table = self._vectors(self._to_backend(grid, self._codec.real)) if nbytes <= TABLE_BYTES else None
            on_backend = self._to_backend(grid, kernels.default_float_dtype(self.backend))
            self._decode_cache[key] = (grid, on_backend, table, [s for _, s in axes])
        return self._decode_cache[key]

    def _coarse_similarities(self, q: Any, grid: np.ndarray, table: Any | None) -> Any:
        model = self.model
        if table is not None:
            return model.similarity_matrix(q, table)
        rows = max(1, TABLE_BYTES // (16 * model.vector_length))
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
            offsets = np.zeros((m, self.n_axes))
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
        s0, s_lo, s_hi = pick(xp, sims, best), pick(xp, sims, lo), pick(xp, sims, hi)
        curvature = s_lo - 2 * s0 + s_hi
        inside = (best > 0) & (best < m - 1) & (curvature < 0)
        vertex = xp.where(inside, 0.5 * (s_lo - s_hi) / xp.where(inside, curvature, -1), 0)
        vertex = xp.clip(vertex, -0.5, 0.5)
        shift = (xp.astype(best, u.dtype) - (m - 1) / 2 + xp.astype(vertex, u.dtype)) * step
        column = xp.astype(xp.arange(self.n_axes, device=self.backend.device) == axis, u.dtype)
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
        xp, codec, k = self.xp, self._codec, self.n_axes
        spectrum = codec.spectrum(q)
        limit = self._to_backend(np.array(step), u.dtype)
        for _ in range(self.newton_steps):
            phases = codec.phases(xp.astype(u, codec.real), self._theta)
            r = spectrum * kernels.unit_phasor(self.backend, -phases)
            re = xp.real(r)
            product, weights_t = partial(kernels.matmul, self.backend), xp.matrix_transpose(weights)
            gradient = xp.astype(product(xp.imag(r), weights_t), u.dtype)  # (n, k)
            if k == 1:
                curvature = xp.astype(product(re, xp.matrix_transpose(weights * weights)), u.dtype)
                ok = curvature > 0
                delta = xp.where(ok, gradient / xp.where(ok, curvature, 1), 0)
            else:
                hessian = xp.astype(
                    xp.stack([product(re * weights[a], weights_t) for a in range(k)], axis=-2),
                    u.dtype,
                )
                diagonal = xp.stack([hessian[:, a, a] for a in range(k)], axis=-1)
                ok = xp.all(diagonal > 0, axis=-1, keepdims=True)
                eye = xp.eye(k, dtype=u.dtype, device=self.backend.device)
                safe = xp.where(ok[..., None], hessian, eye)
                with kernels.full_precision(self.backend):  # (the LU solve may multiply inside)
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
        fine = tuple(self._fine_table(a, steps[a]) for a in range(self.n_axes))
        weights = self._newton_weights(np.array(steps))
        if table is None:  # too many candidates to keep: the coarse search in chunks, eagerly
            u = xp.take(on_backend, xp.argmax(self._coarse_similarities(q, grid, None), axis=-1), axis=0)
            return self._polish(q, u, fine, weights, steps)

        def search(q: Any, grid: Any, table: Any, fine: Any, weights: Any) -> Any:
            u = xp.take(grid, xp.argmax(self.model.similarity_matrix(q, table), axis=-1), axis=0)
            return self._polish(q, u, fine, weights, steps)

        program = self.backend.program(search, ("search", steps), keep=self._decode_cache, share=False)
        return program(q, on_backend, table, fine, weights)

    def _polish(self, q: Any, u: Any, fine: tuple[Any, ...], weights: Any, steps: tuple[float, ...]) -> Any:
        """From the coarse estimate ``u``: the fine grid per axis, Newton, back to values."""
        for a in range(self.n_axes):
            u = self._refine_axis(q, u, a, steps[a], fine[a])
        return self._finish(self._newton(q, u, steps, weights))

    def _finish(self, u: Any) -> Any:
        """Exponents back into the encoder's domain (clamped, or wrapped for periodic axes)."""
        xp, wide = self.xp, kernels.default_float_dtype(self.backend)
        periodic_host = self._period_u <= self._span * (1 + 1e-12)
        period = self._to_backend(np.where(periodic_host, self._period_u, 1.0), wide)
        periodic = self._to_backend(periodic_host, self.backend.dtype("bool"))
        span = self._to_backend(self._span, wide)
        wrapped = u - xp.floor(u / period) * period
        wrapped = xp.where(wrapped >= period, wrapped - period, wrapped)  # -tiny wraps to period
        u = xp.where(periodic, wrapped, xp.minimum(xp.maximum(u, 0), span))
        # (u / scale + offset), from the halves and doubles: the same rounding, no overflow
        return (u / self._double_scale_b + self._half_offset_b) * 2

    def decode(self, vectors: Any, *, resolution: int | None = None) -> Any:
        """The value (point) whose encoding is most similar to each vector.

        A vectorised search: one ``similarity_matrix`` of the queries against the encodings
        of a coarse grid of candidates (a quarter of the kernel's main lobe apart, at least
        ``min_candidates`` per axis; ``resolution`` sets the count per axis), then, per axis,
        one refinement: unbind the estimate and search a fine grid of ``fine_candidates``
        offsets around it (one shared table), take the vertex of a parabola through the
        three best similarities, and finish with ``newton_steps`` Newton steps. Returns a
        0-d array for one vector, else shape ``(...)`` (``(..., k)`` for ``n_features=k``), in the
        backend's widest float type.

        Parameters
        ----------
        vectors : array
            One vector of the model, or a batch ``(..., vector_length)``.
        resolution : int, optional
            Number of grid points of the coarse search; ``None`` for the default.
        """
        model, xp = self.model, self.xp
        if resolution is not None:
            resolution = Interval(2, integral=True).check("resolution", resolution)
        vectors = check_vectors(model, vectors, "vectors")
        batch = tuple(vectors.shape[:-1])
        shape = batch if self.n_features is None else (*batch, self.n_axes)
        if is_empty(batch):
            return xp.zeros(
                shape, dtype=kernels.default_float_dtype(self.backend), device=self.backend.device
            )
        q = xp.reshape(vectors, (-1, model.vector_length))
        values = self._search(q, resolution)
        return xp.reshape(values, shape)
