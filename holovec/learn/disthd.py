"""DistHD: AdaptHD retraining that regenerates the dimensions that mislead the top-2 classes
(Wang et al., 2023; torchhd's ``DistHD``).

Every ``regen_every`` epochs a pass over the training set scores each dimension by the
distances of the misclassified samples to their true class and to the classes that beat
it (:func:`_harm`), and the ``regen_rate`` fraction that score highest are redrawn by
NeuralHD's own mechanism (holovec.learn.neuralhd: the encoder's regeneration, the
prototypes and class sums zeroed there).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from .._params import NON_NEGATIVE
from ._base import Batch
from ._docs import shared_parameters
from ._engine import Rule
from ._space import Space
from ._steps import predicted
from .neuralhd import NeuralHDClassifier

__all__ = ["DistHDClassifier"]


def _harm(
    space: Space, P: Any, H: Any, t: Any, weights: Any, alpha: float, beta: float, theta: float
) -> tuple[Any, Any]:
    """DistHD's score of each column for one batch: how much it misleads the top-2 classes.

    For a misclassified sample ``h`` of class ``c`` whose best class is ``p1`` and
    runner-up ``p2`` (prototypes ``u`` of unit length), elementwise distances
    ``|h - u_c|``, ``|h - u_p1|`` and ``|h - u_p2|``. Where ``c`` is the runner-up
    (partially correct), ``alpha |h - u_c| - beta |h - u_p1|``, weighted 1/2; where it is
    not in the top 2 (completely incorrect), ``alpha |h - u_c| - beta |h - u_p1| - theta
    |h - u_p2|``. A column far from the true class and close to the wrong ones scores
    high. Correctly classified samples (and padding) add nothing.

    Parameters
    ----------
    space : Space
        The learning space.
    P : array, shape ``(classes, width)``
        The prototypes.
    H : array, shape ``(rows, width)``
        The batch's unit rows.
    t : array, shape ``(rows,)``
        Their class indices.
    weights : array of shape ``(rows,)`` or None
        1 per sample and 0 per row of padding (None: no padding; see ``Batch``).
    alpha, beta, theta : float
        The weights of the distances to the true class, the best class and the runner-up.

    Returns
    -------
    harm : array, shape ``(width,)``
        The batch's score of each column, summed over its misclassified samples.
    wrong : array, shape ``()``
        How many samples of the batch are misclassified.
    """
    xp = space.xp
    C = P.shape[0]
    U = space.unit_rows(P)
    S = space.product(H, xp.permute_dims(U, (1, 0)))
    true = space.one_hot(t, C)
    first, wrong = predicted(space, S, true, weights)
    runner_up = xp.argmax(xp.where(first > 0, xp.full_like(S, -math.inf), S), axis=1)
    second = space.one_hot(runner_up, C)
    partial = wrong * xp.sum(second * true, axis=1, keepdims=True)  # the true class is 2nd
    complete = wrong - partial

    def far(one_hot: Any) -> Any:  # |h - u| of each row's class of ``one_hot`` (exact picks)
        return xp.abs(H - space.product(one_hot, U))

    harm = alpha * far(true) - beta * far(first) - theta * complete * far(second)
    return xp.sum((0.5 * partial + complete) * harm, axis=0), xp.sum(wrong)


@shared_parameters
class DistHDClassifier(NeuralHDClassifier):
    """AdaptHD retraining with learner-aware regeneration of the dimensions (DistHD, Wang et
    al., 2023; torchhd's ``DistHD``).

    Retraining is :class:`AdaptHDClassifier`'s. Every ``regen_every`` epochs (none after
    the last) a pass over the training set scores each dimension by how much it misleads
    the classifier's top-2 classes for the misclassified samples: with the sample ``h``,
    the unit-length prototypes ``u`` of its true class ``c``, of the best class ``p1`` and
    of the runner-up ``p2``, summed over the samples where ``c`` is the runner-up
    (weighted 1/2, as torchhd's port of the authors' code does)

    ``alpha |h - u_c| - beta |h - u_p1|``

    and over those where ``c`` is not in the top 2

    ``alpha |h - u_c| - beta |h - u_p1| - theta |h - u_p2|``

    (elementwise; for complex models the real and imaginary columns of a dimension add).
    A dimension in which samples lie far from their class and close to the classes that
    beat it scores high: the ``ceil(regen_rate * dim)`` dimensions that score highest
    (ties by index) are redrawn in the encoder and zeroed in the prototypes and class sums,
    as :class:`NeuralHDClassifier` redraws its own. A pass with no misclassified sample
    regenerates nothing. It needs an encoder that can regenerate (the default
    ``"sinusoid"`` encoding).

    ``partial_fit`` learns a stream as :class:`NeuralHDClassifier` does, scoring the
    dimensions on each batch.

    Parameters
    ----------
    {encoder_parameters}
    epochs : int, default 20
        Retraining passes over the training set after the first pass (0: the first pass
        alone), each in an order shuffled from ``random_state`` and the epoch.
    lr : float, default 0.035
        The weight of each update, as for :class:`AdaptHDClassifier`.
    regen_rate : float, default 0.04
        The fraction of the dimensions, in (0, 1), redrawn at each regeneration.
    regen_every : int, default 5
        Epochs between regenerations (none after the last epoch).
    alpha : float, default 0.5
        The weight (>= 0) of a sample's distance to its true class in the score.
    beta : float, default 1.0
        The weight (>= 0) of its distance to the best (wrong) class.
    theta : float, default 0.25
        The weight (>= 0) of its distance to the runner-up, where that is wrong too.
    {retraining_parameters}

    Attributes
    ----------
    {retraining_attributes}

    References
    ----------
    J. Wang, S. Huang and M. Imani, "DistHD: A Learner-Aware Dynamic Encoding Method
    for Hyperdimensional Classification", Design Automation Conference (DAC), 2023.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from holovec.learn import DistHDClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> DistHDClassifier(dim=2000, epochs=6, regen_every=3, random_state=0).fit(X, y).score(X, y) > 0.9
    True
    """

    _defaults: ClassVar[dict[str, Any]] = {"alpha": 0.5, "beta": 1.0, "theta": 0.25}
    _parameter_rules: ClassVar[dict[str, Any]] = {
        "alpha": NON_NEGATIVE,
        "beta": NON_NEGATIVE,
        "theta": NON_NEGATIVE,
    }

    def _retrain(self, X: Any, t: np.ndarray) -> None:
        # (the regenerations score the dimensions on the data being retrained on)
        self._scored = (X, t)
        try:
            super()._retrain(X, t)
        finally:
            del self._scored

    def _dims_to_regenerate(self, n_regen: int) -> np.ndarray | None:
        """The ``n_regen`` dimensions of highest score (see :func:`_harm`) over the data being
        retrained on (one pass in order, of the kept encodings where they are kept), ties
        by index; None where no sample is misclassified."""
        X, t = self._scored
        space, P = self.space_, self.prototypes_
        weights = (float(self.alpha), float(self.beta), float(self.theta))

        def score(state: tuple[Any, Any], batch: Batch, epoch: int | None) -> tuple[Any, Any]:
            harm, wrong = space.run(_harm, P, batch.H, space.indices(batch.take(t)), batch.weights, *weights)
            return state[0] + harm, state[1] + wrong

        totals: list[tuple[Any, Any]] = []
        start = lambda: (space.zeros(1)[0], 0.0)  # noqa: E731
        self._train_epochs(X, Rule(start, score, totals.append), passes=[None])
        harm, wrong = totals[0]
        if float(wrong) == 0:
            return None
        harm = np.asarray(self.model_.backend.to_numpy(space.dim_scores(harm)), np.float64)
        return np.argsort(-harm, kind="stable")[:n_regen]  # (highest first, ties by index)
