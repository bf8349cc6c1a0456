"""NeuralHD: AdaptHD retraining that regenerates the dimensions that separate the classes
least (torchhd's ``NeuralHD``)."""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from .._params import POSITIVE_INT, Interval
from ._docs import shared_parameters
from .retraining import AdaptHDClassifier

__all__ = ["NeuralHDClassifier"]


@shared_parameters
class NeuralHDClassifier(AdaptHDClassifier):
    """AdaptHD retraining with dimension regeneration (NeuralHD, Zou et al., 2021; torchhd's ``NeuralHD``).

    Every ``regen_every`` epochs the ``regen_rate`` fraction of dimensions whose values
    vary least across the (unit-length) class prototypes, which separate the classes
    least, are redrawn in the encoder (:meth:`~holovec.encoders.SinusoidEncoder.regenerate`,
    seeded) and zeroed in the prototypes, then retraining goes on. It needs an encoder
    that can regenerate (the default ``"sinusoid"`` encoding).

    ``partial_fit`` learns each batch of a stream as :class:`AdaptHDClassifier` does, and
    regenerates on the batch's schedule: every ``regen_every`` of its ``epochs`` passes
    but the last, so that retraining on the batch always follows a regeneration. The class
    sums of regenerated dimensions restart from zero (their old values encoded the old
    dimensions).

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
    {retraining_parameters}

    Attributes
    ----------
    {retraining_attributes}

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from holovec.learn import NeuralHDClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> NeuralHDClassifier(dim=2000, epochs=6, regen_every=3, random_state=0).fit(X, y).score(X, y) > 0.9
    True
    """

    _defaults: ClassVar[dict[str, Any]] = {
        "regen_rate": 0.04,
        "regen_every": 5,
    }

    _parameter_rules: ClassVar[dict[str, Any]] = {
        "regen_rate": Interval(0, 1, closed="neither"),
        "regen_every": POSITIVE_INT,
    }

    def _fit_encoder(self, X: Any) -> Any:
        X = super()._fit_encoder(X)
        if not hasattr(self.encoder_.encoder_, "regenerate"):
            raise ValueError(
                f"{type(self).__name__} needs an encoder that can regenerate dimensions (HDEncoder with "
                f"encoding='sinusoid'); got {type(self.encoder_).__name__} "
                f"(its encoder: {self.encoder_.encoder_!r})"
            )
        return X

    def _after_epoch(self, epoch: int) -> bool:
        if (epoch + 1) % self.regen_every or epoch + 1 == self.epochs:
            return False  # not a regeneration epoch, or the last one (no retraining would follow)
        dims = self._dims_to_regenerate(math.ceil(self.regen_rate * self.model_.dim))
        if dims is None:
            return False
        self._regenerate(dims)
        return True

    def _dims_to_regenerate(self, n_regen: int) -> np.ndarray | None:
        """The ``n_regen`` model dimensions to redraw (None: none this time): NeuralHD's,
        those whose values vary least across the unit-length prototypes (ties by index)."""
        space = self.space_
        unit = space.unit_rows(self.prototypes_)
        spread = space.dim_scores(space.xp.var(unit, axis=0))
        # (a stable sort on the host: dim numbers)
        return np.argsort(self.model_.backend.to_numpy(spread), kind="stable")[:n_regen]

    def _regenerate(self, dims: np.ndarray) -> None:
        """Redraw the model dimensions ``dims`` in the encoder, and zero them in the
        prototypes and the class sums (their old values encoded the old dimensions)."""
        space, model = self.space_, self.model_
        self.encoder_.encoder_.regenerate(dims)
        mask = np.zeros(model.dim, dtype=bool)
        mask[dims] = True
        keep = space.dims_mask(model.backend.asarray(~mask))
        kept = space.xp.astype(keep, space.dtype)[None, :]
        self.prototypes_ = self.prototypes_ * kept
        # the class sums of the old dimensions are void too: the means restart there
        self.class_sums_ = self.class_sums_ * kept
