"""Circular quantities (angles, times of day, days of the week) as phasor vectors.

A fractional power encoding with whole-number frequencies, so that the encoding repeats
exactly with the period (see :class:`PeriodicAngleEncoder`); it shares the phase
encoders' machinery (:mod:`holovec.encoders._phase_encoder`) with
:class:`~holovec.encoders.FractionalPowerEncoder`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from .. import kernels
from .._deprecation import keyword_only_after
from .._params import POSITIVE, POSITIVE_INT, Rule
from ..backends import dtype_name
from ..models.base import VSAModel
from ._phase_encoder import PhaseEncoder, harmonic_phases
from ._rules import PerAxis

__all__ = ["PeriodicAngleEncoder"]


class PeriodicAngleEncoder(PhaseEncoder):
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

    Parameters
    ----------
    model : VSAModel
        An FHRR or HRR model (``TypeError`` otherwise).
    period : float, optional
        The period of the quantity (``2 pi`` for angles in radians).
    harmonics : int | Sequence[int], optional
        The harmonics the frequencies are drawn from: ``1 .. harmonics`` for an int, else
        the given whole numbers.
    seed : int, optional
        Seed of the encoder's random vectors; ``None`` draws them from the model's
        generator.

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

    _parameter_rules: ClassVar[dict[str, Rule]] = {
        "period": POSITIVE,
        "harmonics": PerAxis(POSITIVE_INT, note=""),
    }

    @keyword_only_after(3)
    def __init__(
        self,
        model: VSAModel,
        period: float = 2 * math.pi,
        harmonics: int | Sequence[int] = 3,
        *,
        seed: int | None = None,
    ) -> None:
        super().__init__(model, seed=seed, period=period, harmonics=harmonics)
        self.n_features = None
        self.period = float(period)
        wide = np.finfo(np.dtype(dtype_name(kernels.default_float_dtype(self.backend))))
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
        if isinstance(harmonics, (int, np.integer)):
            ks = np.arange(1, int(harmonics) + 1)
        else:  # the rules took a non-empty sequence of positive ints
            ks = np.array([int(h) for h in np.asarray(harmonics, dtype=object).reshape(-1)])
        self.harmonics = ks
        # exponents in turns: u = x / period, reduced modulo 1
        self._offset, self._scale = np.zeros(1), np.array([1 / self.period])
        self._span, self._period_u = np.ones(1), np.ones(1)
        self._lobe = np.array([1 / (4 * ks.max())])
        self._wrap = True
        self._set_theta(harmonic_phases(self.seed, 0, self._codec.n_freq, ks, 1.0)[None, :])

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
