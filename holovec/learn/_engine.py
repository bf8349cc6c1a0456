"""The estimators' engine (private): a learner states its training as a :class:`Rule`
of functions, which the one epoch loop (:meth:`Supervised._train_epochs`) runs, and
fills the hooks of one template ``fit`` and ``partial_fit`` (:class:`Classifier`,
:class:`Regressor`): the input and the labels or targets are checked there once per call,
and the parameters once per call (:func:`holovec._params.fit_context`).

A learner's hooks: ``_learn(X, target)`` (``fit``), ``_learn_stream(X, target, first)``
(``partial_fit``; ``first``: the call starts a stream) and ``_starts_stream()``; ``target``
is the class indices of the samples (a classifier; ``classes_`` set) or their float64
targets (a regressor).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from typing import Any, NamedTuple

import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.utils.metaestimators import available_if

from .._params import fit_context
from ._base import Batch, HDEstimator
from ._data import host_labels, n_rows
from ._targets import class_indices, class_labels, regression_targets, sorted_classes

__all__ = ["Classifier", "Regressor", "Rule", "Supervised", "stream_classes"]


class Rule(NamedTuple):
    """A learner's training as functions of a state (optax's ``GradientTransformation`` is
    the model), run by :meth:`Supervised._train_epochs`: ``init()`` makes the state,
    ``step(state, batch, epoch)`` learns from one minibatch, ``end(state, epoch)`` closes
    a pass (returning the state and what a progress bar shows, or ``None``), ``skip(state)``
    says a pass would change nothing, and ``finish(state)`` sets the fitted attributes."""

    init: Callable[[], Any]
    step: Callable[[Any, Batch, int | None], Any]
    finish: Callable[[Any], None]
    end: Callable[[Any, int | None], tuple[Any, dict[str, str] | None]] | None = None
    skip: Callable[[Any], bool] | None = None


def stream_classes(estimator: HDEstimator, classes: Any, first: bool) -> np.ndarray:
    """The labels of a stream for ``partial_fit``, as scikit-learn defines them: needed on
    the first call (at least 2), and equal to ``classes_`` on later calls where given (a
    stream that starts anew after ``fit`` may take ``fit``'s)."""
    if classes is None:
        if not hasattr(estimator, "classes_"):
            raise ValueError(
                f"{type(estimator).__name__}.partial_fit needs classes (every label of the stream) "
                "on its first call"
            )
        return estimator.classes_
    labels = host_labels(classes)
    sorted_classes(labels, "classes")  # labels that cannot be sorted together: a TypeError
    try:  # (checked as fit checks y: 1-D, no NaN, no continuous values)
        classes = sorted_classes(class_labels(labels, np.size(labels)), "classes")
    except ValueError as error:
        raise ValueError(f"classes must be a 1-D array of class labels: {error}") from None
    if first and len(classes) < 2:
        raise ValueError(f"classes must hold at least 2 labels, got {classes.tolist()!r}")
    if not first and not np.array_equal(classes, estimator.classes_):
        raise ValueError(
            f"classes={classes.tolist()!r} is not the same as on the first call to partial_fit "
            f"(classes_={estimator.classes_.tolist()!r})"
        )
    return classes


class Supervised(HDEstimator):
    """The template ``fit`` of the supervised estimators, and the epoch loop."""

    _registered = False  # (a base: files name its subclasses)

    @fit_context
    def fit(self, X: Any, y: Any) -> Supervised:
        """Learn from the samples ``X`` and their labels or targets ``y`` (see the class's notes)."""
        X = self._fit_encoder(X)
        self._learn(X, self._targets(y, n_rows(X)))
        return self

    def _train_epochs(self, X: Any, rule: Rule, *, passes: Any = None, blocks: bool = False) -> None:
        """The one epoch loop: ``rule`` (see :class:`Rule`) over minibatches of ``X``, for
        ``passes`` (epoch numbers: each pass in an order shuffled from the seed and its
        number; ``[None]``: one pass in order; default ``range(epochs)``), the training set's
        encodings kept between passes (see :meth:`_keeping_encodings`; ``blocks``: read
        block by block, see :meth:`_encoded`), with a progress bar where ``verbose``."""
        epochs = passes is None
        bar = self._progress(self.epochs, type(self).__name__) if epochs else passes
        with self._keeping_encodings(X) if epochs else nullcontext():
            state = rule.init()
            for epoch in bar:
                if rule.skip is None or not rule.skip(state):
                    shuffled = epoch is not None
                    for batch in self._encoded(X, epoch=epoch, training=shuffled, blocks=blocks):
                        state = rule.step(state, batch, epoch)
                if rule.end is not None:
                    state, shown = rule.end(state, epoch)
                    if epochs and self.verbose and shown:
                        bar.set_postfix(**shown)
            rule.finish(state)


class Classifier(ClassifierMixin, Supervised):
    """The template ``fit`` and ``partial_fit`` of the classifiers."""

    _registered = False
    #: whether the learner learns from a stream (``partial_fit``)
    _streams = True

    def _targets(self, y: Any, n: int) -> np.ndarray:
        """``classes_`` set from ``y`` (at least 2), and the samples' class indices."""
        y = class_labels(y, n)
        self.classes_ = np.unique(y)
        if len(self.classes_) < 2:
            raise ValueError(
                f"{type(self).__name__} needs samples of at least 2 classes; y has 1 class: "
                f"{self.classes_.tolist()!r}"
            )
        return class_indices(y, self.classes_)

    @available_if(lambda self: self._streams)
    @fit_context
    def partial_fit(self, X: Any, y: Any, classes: Any = None) -> Classifier:
        """Learn from one more batch of a stream (see the class's notes on streams).

        The first call fits the encoder (its standardisation uses this first batch; later
        batches must have as many features) and needs ``classes``, every label of the
        stream; later calls may pass them again (the same labels) or not.
        """
        first = self._starts_stream()
        classes = stream_classes(self, classes, first)
        X = self._fit_encoder(X) if first else self._check_input(X)
        t = class_indices(class_labels(y, n_rows(X)), classes)
        self.classes_ = classes
        self._learn_stream(X, t, first)
        return self


class Regressor(RegressorMixin, Supervised):
    """The template ``fit`` and ``partial_fit`` of the regressors."""

    _registered = False

    def _targets(self, y: Any, n: int) -> np.ndarray:
        return regression_targets(y, n)

    @fit_context
    def partial_fit(self, X: Any, y: Any) -> Regressor:
        """Learn from one more batch of a stream (the first call fits the encoder on it;
        see the class's notes on streams)."""
        first = self._starts_stream()
        X = self._fit_encoder(X) if first else self._check_input(X)
        self._learn_stream(X, regression_targets(y, n_rows(X)), first)
        return self
