"""Trajectories: time-stamped points as one vector, each point the binding of its axes' codes.

A point's coordinates get scalar codes (fractional power encodings where the model has a
phasor form, graded level codes on every model), bound across the axes and with the code
of the point's time; a trajectory is the bundle of its points.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from .._deprecation import SINCE, renamed_arguments
from .._params import FINITE, FLAG, POSITIVE, POSITIVE_INT, Rule
from ..models.base import VSAModel
from ..random import fold_in
from ._common import level_step, permute_rows, quantize
from ._rules import LEVELS, Options, PerAxis, range_alias
from ._values import check_values, empty_vectors, per_axis
from .base import Encoder
from .fpe import FractionalPowerEncoder
from .levels import LevelCodes

__all__ = ["TrajectoryEncoder"]


class _LevelAxis:
    """Values on ``[low, high]`` as ``levels`` graded level vectors (a level encoder)."""

    def __init__(self, model: VSAModel, low: float, high: float, levels: int, seed: int) -> None:
        self.model, self.low, self.high = model, low, high
        level_step(low, high, levels)  # the levels are floats apart
        self.codes = LevelCodes(model, levels, seed)

    def encode(self, values: Any) -> Any:
        return self.codes.vectors(quantize(self.model, values, self.low, self.high, self.codes.levels))


class TrajectoryEncoder(Encoder):
    """Time-stamped points ``(t_k, x_k)`` of ``n_features`` coordinates as one vector.

    A point is the binding of one scalar code per axis (independent codes per axis, so
    the similarity of two points is the product of the per-axis kernels); it is bound
    with the code of its time, and a trajectory is the bundle over its points:
    ``sum_k bind(point(x_k), time(t_k))``.

    Scalar codes (``method=``): ``"fpe"`` uses :class:`FractionalPowerEncoder` (FHRR and
    HRR; continuous kernel); ``"level"`` graded level vectors, ``levels`` per range
    (every model); ``"auto"`` (default) takes the FPE where the scalar encoders provide
    it for this model and level codes otherwise. :attr:`scalar_kind` says which.
    Coordinates lie in ``[min_val, max_val]`` (numbers, or one per axis).

    Times: with ``time_range=(t0, t1)`` times are encoded by the same kind of scalar code
    over that range (default times: ``0, 1, ...``); with ``time_range=None`` (default)
    time ``k`` is the permutation power ``permute(., k)`` of the point's index (exact,
    unbounded: the points' order).

    Parameters
    ----------
    model : VSAModel
        The model whose vectors the encoder makes.
    n_features : int, optional
        Number of coordinates of a point.
    min_val : float | Sequence[float], optional
        The lower end of the coordinates' range (a number, or one per axis).
    max_val : float | Sequence[float], optional
        The upper end of the coordinates' range (a number, or one per axis).
    time_range : tuple[float, float], optional
        ``(t0, t1)``: times encoded by a scalar code over that range; ``None``: time ``k``
        is the permutation power ``k``.
    levels : int, optional
        Number of levels per range of the ``"level"`` codes.
    method : str, optional
        The scalar code: ``"fpe"``, ``"level"`` or ``"auto"``.
    bandwidth : float, optional
        The bandwidth of the ``"fpe"`` codes.
    clip : bool, optional
        Whether values outside the range are clipped to it (else ``ValueError``).
    seed : int, optional
        Seed of the encoder's random vectors; ``None`` draws them from the model's
        generator.

    Examples
    --------
    >>> import numpy as np
    >>> from holovec import VSA
    >>> from holovec.encoders import TrajectoryEncoder
    >>> model = VSA.create("MAP", dim=10000)
    >>> enc = TrajectoryEncoder(model, 2, min_val=0, max_val=10, seed=1)
    >>> path = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.5]])
    >>> a, b = enc.encode(path), enc.encode(path + 0.2)
    >>> float(model.similarity(a, b)) > 0.5
    True
    """

    _repr_attrs: ClassVar[dict[str, str | None]] = {"method": "scalar_kind"}
    _parameter_rules: ClassVar[dict[str, Rule]] = {
        "n_features": POSITIVE_INT,
        "min_val": PerAxis(FINITE),
        "max_val": PerAxis(FINITE),
        "levels": LEVELS,
        "method": Options("auto", "fpe", "level"),
        "bandwidth": POSITIVE,
        "clip": FLAG,
    }

    @range_alias(lambda value_range: _split_ranges(value_range))
    @renamed_arguments(n_dimensions="n_features", scalar="method")
    def __init__(
        self,
        model: VSAModel,
        n_features: int = 1,
        *,
        min_val: float | Sequence[float] = 0.0,
        max_val: float | Sequence[float] = 1.0,
        time_range: tuple[float, float] | None = None,
        levels: int = 64,
        method: str = "auto",
        bandwidth: float = 1.0,
        clip: bool = False,
        seed: int | None = None,
    ) -> None:
        super().__init__(
            model, seed=seed, n_features=n_features, min_val=min_val, max_val=max_val, levels=levels,
            method=method, bandwidth=bandwidth, clip=clip,
        )  # fmt: skip
        self.n_features = d = int(n_features)
        self.min_val, self.max_val = per_axis(min_val, "min_val", d), per_axis(max_val, "max_val", d)
        if np.any(self.min_val >= self.max_val):
            raise ValueError(f"min_val must be below max_val, got min_val={min_val!r}, max_val={max_val!r}")
        self.ranges = [(float(lo), float(hi)) for lo, hi in zip(self.min_val, self.max_val, strict=True)]
        self.time_range = None if time_range is None else _time_range(time_range)
        self.levels = int(levels)
        self.clip = clip
        if method == "fpe" and not FractionalPowerEncoder.supports(model):
            raise TypeError(
                "method='fpe' needs a model with a phasor form (model.has_phasor_form); "
                f"{model.name} has none"
            )
        axes = [*self.ranges, *([self.time_range] if self.time_range is not None else [])]
        self.scalar_kind = "level"
        self._axes: list[Any] = []
        if method != "level" and FractionalPowerEncoder.supports(model):
            self._axes = [
                FractionalPowerEncoder(
                    model, low, high, bandwidth=bandwidth, seed=fold_in(self.seed, "fpe", k)
                )
                for k, (low, high) in enumerate(axes)
            ]
            self.scalar_kind = "fpe"
        else:
            self._axes = [
                _LevelAxis(model, low, high, self.levels, fold_in(self.seed, "level", k))
                for k, (low, high) in enumerate(axes)
            ]

    @property
    def n_dimensions(self) -> int:
        """Deprecated alias of :attr:`n_features`."""
        warnings.warn(
            f"TrajectoryEncoder.n_dimensions is deprecated since {SINCE}; use TrajectoryEncoder.n_features",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.n_features

    def encode(self, points: Any, times: Any = None) -> Any:
        """Points ``(T,)`` (one axis) or ``(T, n_features)`` -> one vector; a batch of
        equal-length trajectories ``(n, T, n_features)`` -> ``(n, vector_length)``.

        ``times`` (shape ``(T,)`` or ``(n, T)``) are needed only with ``time_range``
        (default: ``0, 1, ..., T-1``); NaN, infinity and values out of range raise
        ``ValueError`` (unless ``clip=True``).

        Parameters
        ----------
        points : array_like
            Points ``(T,)`` or ``(T, n_features)``, or a batch ``(n, T, n_features)``.
        times : array_like, optional
            The points' times, ``(T,)``; ``None`` for ``0, 1, ...``.
        """
        model, xp, d = self.model, self.model.xp, self.n_features
        backend = model.backend
        values = check_values(backend, points, name="points")
        if values.ndim == 1 and d == 1:
            values = xp.reshape(values, (values.shape[0], 1))
        if values.ndim == 2:
            values, single = values[None, ...], True
        elif values.ndim == 3:
            single = False
        else:
            raise ValueError(
                f"points must have shape (T, {d}) or (n, T, {d}), got shape {tuple(values.shape)}"
            )
        n, length = values.shape[0], values.shape[1]
        if values.shape[2] != d or length == 0:
            raise ValueError(
                f"points must have shape (T, {d}) or (n, T, {d}) with T > 0, got {tuple(values.shape)}"
            )
        if n == 0:  # no trajectories: no vectors (times, if given, are still checked)
            if times is not None:
                check_values(backend, times, name="times")
            return empty_vectors(model, (0,))
        codes = None
        for k, (low, high) in enumerate(self.ranges):
            axis_values = check_values(
                backend, values[..., k], low=low, high=high, clip=self.clip, name="points"
            )
            code = self._axes[k].encode(xp.reshape(axis_values, (-1,)))
            codes = code if codes is None else model.bind(codes, code)
        if self.time_range is None:
            if times is not None:
                raise ValueError("times need time_range=(t0, t1) (without it, time is the index of a point)")
            codes = permute_rows(model, codes, np.tile(np.arange(length), n))
        else:
            t = np.arange(length, dtype=np.float64) if times is None else times
            t = check_values(
                backend, t, low=self.time_range[0], high=self.time_range[1], clip=self.clip, name="times"
            )
            if t.ndim == 1:
                t = xp.broadcast_to(t[None, :], (n, length)) if t.shape[0] == length else t
            if tuple(t.shape) != (n, length):
                raise ValueError(
                    f"times must have shape ({length},) or ({n}, {length}), got {tuple(t.shape)}"
                )
            codes = model.bind(codes, self._axes[-1].encode(xp.reshape(t, (-1,))))
        items = xp.reshape(codes, (n, length, codes.shape[-1]))
        out = model.bundle(xp.permute_dims(items, (1, 0, 2)))
        return out[0] if single else out


def _range_pairs(value: Any, name: str) -> np.ndarray:
    """``(low, high)`` pairs of finite numbers as float64, shape ``(2,)`` or ``(k, 2)``."""
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be (low, high) pairs of numbers, got {value!r}")
    try:
        items = np.asarray(value, dtype=object)
        array = np.array(
            [FINITE.check("a value range's low or high", v) for v in items.reshape(-1).tolist()],
            dtype=np.float64,
        ).reshape(items.shape)
    except (TypeError, ValueError) as exc:
        if isinstance(exc, ValueError) and "finite" in str(exc):
            raise ValueError(f"each range must be finite with low < high, got {value!r}") from None
        raise TypeError(f"{name} must be (low, high) pairs of numbers, got {value!r}") from None
    if array.shape != (2,) and (array.ndim != 2 or array.shape[1] != 2):
        raise ValueError(f"{name}: expected one (low, high) pair or several of them, got shape {array.shape}")
    if (array[..., 1] <= array[..., 0]).any():
        raise ValueError(f"each range must be finite with low < high, got {array.tolist()}")
    return array


def _split_ranges(value_range: Any) -> tuple[Any, Any]:
    """The deprecated ``value_range`` (one pair, or one per axis) as ``min_val, max_val``."""
    array = _range_pairs(value_range, "value ranges")
    if array.ndim == 1:
        return float(array[0]), float(array[1])
    return array[:, 0].tolist(), array[:, 1].tolist()


def _time_range(time_range: Any) -> tuple[float, float]:
    array = _range_pairs(time_range, "time_range").reshape(-1)
    if array.shape != (2,):
        raise ValueError(f"time_range must be one (low, high) pair, got {time_range!r}")
    return float(array[0]), float(array[1])
