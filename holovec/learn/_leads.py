"""Which samples a mistake-driven pass must score (private): see :class:`Leads`."""

from __future__ import annotations

from typing import Any

import numpy as np

#: the relative margin on each step's length (computed in float64 from float32 prototypes,
#: whose rounding is far below it)
_SAFETY = 1e-6
#: the float64 rounding of the bounds' own sums, relative to their largest term (a few units
#: of 2**-53: ``moved`` grows over a fit, and float64 scores' ``margin`` is below its units)
_ROUNDING = 2.0**-49


class Leads:
    """What a mistake-driven rule (AdaptHD, OnlineHD: only misclassified samples update)
    knows of its training samples between passes: the scores each sample had when last
    scored, so that a pass scores only the samples whose class may no longer lead, and
    updates the prototypes exactly as if it had scored them all.

    The bound: a score is the cosine ``u . p / |p|`` of a sample's row ``h`` (``u = h / |h|``)
    with a prototype ``p`` (0 where ``p`` is 0). Since a sample was scored against ``p0``,
    ``u . p`` has moved by at most ``|p - p0|`` (Cauchy-Schwarz), which is at most the sum of
    the lengths of the updates of ``p`` since (the triangle inequality), kept per class in
    ``moved``. A computed
    score lies within ``margin`` of the exact cosine (see
    :func:`holovec._fixed_order.rounding_margin`), so with ``s0`` computed against ``p0``,
    the score a pass would compute now lies within
    ``((s0 -+ margin) |p0| -+ moved since) / |p| -+ margin``; a sample whose class's lowest
    possible score exceeds every other class's highest is classified right by any matrix
    library, and would update nothing. Norms and step lengths are computed in float64 (the
    steps' with a relative margin of ``_SAFETY``, the bounds' sums with ``_ROUNDING``).
    """

    def __init__(self, n_samples: int, n_classes: int, margin: float) -> None:
        self.margin = margin
        self.moved = np.zeros(n_classes)  # the length of each class's updates, summed
        self.scored = np.zeros(n_samples, dtype=bool)
        # the bounds' numerators when last scored, less and plus ``moved`` then
        self.low = np.zeros((n_samples, n_classes))
        self.high = np.zeros((n_samples, n_classes))

    def at_risk(
        self, rows: np.ndarray, t: np.ndarray, norms: np.ndarray, moving: np.ndarray | None = None
    ) -> np.ndarray:
        """The samples that a pass must score.

        Parameters
        ----------
        rows : ndarray of int
            Samples (rows of the training set).
        t : ndarray of int
            The class index of every training sample.
        norms : ndarray, shape ``(classes,)``
            The lengths of the prototypes the samples would be scored against.
        moving : ndarray of shape ``(classes,)`` or None, default None
            The lengths of a step of the classes not yet recorded (None: none), for
            samples the step might make wrong.

        Returns
        -------
        ndarray of int
            The positions in ``rows`` whose class may no longer lead.
        """
        moved = self.moved if moving is None else self.moved + moving * (1.0 + _SAFETY)
        length = np.where(norms > 0, norms, 1.0)
        low, high = self.low[rows], self.high[rows]
        slack = _ROUNDING * (np.maximum(np.abs(low), np.abs(high)) + moved)
        low = np.where(norms > 0, (low - moved - slack) / length, 0.0) - self.margin
        high = np.where(norms > 0, (high + moved + slack) / length, 0.0) + self.margin
        own = t[rows]
        index = np.arange(len(rows))
        lowest = low[index, own]
        high[index, own] = -np.inf
        return np.flatnonzero(~(self.scored[rows] & (lowest > np.max(high, axis=1))))

    def record(self, rows: np.ndarray, scores: np.ndarray, norms: np.ndarray, step: np.ndarray) -> None:
        """Samples ``rows`` scored (``scores``, ``(len(rows), n_classes)``) against
        prototypes of lengths ``norms``, which the batch then updated by steps of lengths
        ``step``."""
        scores = np.asarray(scores, dtype=np.float64)
        self.scored[rows] = True
        self.low[rows] = (scores - self.margin) * norms + self.moved
        self.high[rows] = (scores + self.margin) * norms - self.moved
        self.moved = self.moved + step * (1.0 + _SAFETY)

    def forget(self) -> None:
        """Every sample at risk again (the encodings changed)."""
        self.scored[:] = False


def row_norms(P: Any) -> np.ndarray:
    """The float64 lengths of the rows of host prototypes ``P``."""
    return np.linalg.norm(np.asarray(P, dtype=np.float64), axis=1)
