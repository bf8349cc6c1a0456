"""The prototype classifiers' shared machinery, and the centroid: class prototypes bundled
in one pass (torchhd's ``Centroid``).

Training runs in minibatches on the model's backend: each batch is encoded, scored
against the prototypes in one matrix product, and every update of the batch is applied
as one product of a ``(batch, classes)`` coefficient matrix with the batch, never a Python
loop per sample. Within a batch all samples see the prototypes as they were before it.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .. import kernels
from .._params import Flag
from ._base import Batch
from ._docs import shared_parameters
from ._engine import Classifier
from ._space import Space, scaled_cosines

__all__ = ["CentroidClassifier", "PrototypeClassifier"]

#: the element kinds whose vectors are bits in some form, so prototypes can be binarised
_BINARISABLE = ("bipolar", "binary")


# -- the learning rules: one step over a batch, a pure function of arrays --------------------
# Each takes the learning space, the prototypes P (classes, width), a batch's encodings H
# (rows, width), their class indices t (rows,), the batch's weights (1 per sample, 0 per
# row of padding; None: no padding, see Batch) and the learning rate, and runs as one
# compiled program where the backend compiles (Space.run). Within a batch all samples see
# the prototypes as they were before it.
def _bundling(space: Space, P: Any, H: Any, t: Any, weights: Any, scale: float) -> Any:
    """Each sample added to its class: its row of ``H`` times ``scale`` (the batch's, see
    ``Batch``: the same sums as of the unit rows, since a product of a row's +-1 element
    with the 0/1 coefficient times ``scale`` is exact, as is one with the scaled element)."""
    return space.add(P, space.masked(space.one_hot(t, P.shape[0]), weights) * scale, H)


class PrototypeClassifier(Classifier):
    """Shared machinery of the prototype classifiers (fit, partial_fit, predict)."""

    _registered = False  # (a base: files name its subclasses)
    _defaults: ClassVar[dict[str, Any]] = {"binarize": False}
    _parameter_rules: ClassVar[dict[str, Any]] = {"binarize": Flag()}

    # -- fitting (the hooks of the template fit and partial_fit: see holovec.learn._engine) --
    def _learn(self, X: Any, t: np.ndarray) -> None:
        self._learn_stream(X, t, True, fitting=True)

    def _starts_stream(self) -> bool:
        return not hasattr(self, "prototypes_")

    def _learn_stream(self, X: Any, t: np.ndarray, first: bool, *, fitting: bool = False) -> None:
        if first:
            self.prototypes_ = self.space_.zeros(len(self.classes_))
        # minibatch products: on one BLAS thread where more would only spin between them
        with kernels.small_products(
            self.space_.backend, 2.0 * self.batch_size * len(self.classes_) * self.space_.width
        ):
            if fitting:
                self._train(X, t)
            else:
                self._stream(X, t)
        self._finish()

    def _stream(self, X: Any, t: np.ndarray) -> None:
        """What ``partial_fit`` learns from a batch: one pass of ``_stream_rule``."""
        if self._stream_rule is _bundling:
            self.prototypes_ = self._bundled(X, t, self.prototypes_)
            return
        for batch in self._encoded(X, order_free=self._stream_is_bundling):
            self.prototypes_ = self._step(self._stream_rule, batch, t)

    def _train(self, X: Any, t: np.ndarray) -> None:
        """The training of ``fit``: the first pass; retraining learners add their epochs
        (see holovec.learn.retraining)."""
        self._first_pass(X, t)

    def _first_pass(self, X: Any, t: np.ndarray) -> None:
        """One pass of ``_first_pass_rule`` over the training set."""
        if self._first_pass_rule is _bundling:
            self.prototypes_ = self._bundled(X, t, self.prototypes_)
            return
        # bundling (sums) does not depend on the batches: Dask then sums chunks as a tree
        for batch in self._encoded(X, order_free=self._first_pass_is_bundling, training=True):
            self.prototypes_ = self._step(self._first_pass_rule, batch, t)

    def _bundled(self, X: Any, t: np.ndarray, sums: Any) -> Any:
        """``sums`` (class sums) with every sample of ``X`` added to its class (its
        encoding unscaled where the model's elements are +-1: the scale goes with the
        coefficients, see ``_bundling``, so no scaled copy of the data is made)."""
        space = self.space_
        for batch in self._encoded(X, order_free=True, training=True, scaled=True):
            H, t_batch = batch.H, space.indices(batch.take(t))
            sums = space.run(_bundling, sums, H, t_batch, batch.weights, batch.scale)
        return space.computed(sums)

    def _step(self, rule: Any, batch: Batch, t: np.ndarray) -> Any:
        """``rule`` (a learning rule, see ``_bundling``) applied to the prototypes and ``batch`` of samples
        whose class indices are ``t[batch.rows]``."""
        space = self.space_
        lr = float(getattr(self, "lr", 0.0))  # a Python float: a NumPy scalar would widen float32
        return space.run(rule, self.prototypes_, batch.H, space.indices(batch.take(t)), batch.weights, lr)

    #: the rules of the first pass and of partial_fit (module-level functions, see above)
    _first_pass_rule = staticmethod(_bundling)
    _stream_rule = staticmethod(_bundling)
    #: whether ``_first_pass_rule`` / ``_stream_rule`` only add samples to their class
    #: (bundling: the result does not depend on the batches); a subclass that sets either
    #: to a rule that reads the prototypes sets its flag to False
    _first_pass_is_bundling: ClassVar[bool] = True
    _stream_is_bundling: ClassVar[bool] = True

    def _finish(self) -> None:
        """After training: the prototypes checked and concrete, and binarised where asked for."""
        # a lazy backend (Dask): computed once here (a tree of class sums over the chunks),
        # not again by every prediction
        self.prototypes_ = P = self.space_.computed(self.prototypes_)
        # the squared lengths that every cosine divides by: finite, or training diverged
        lr = f"lower lr (now {self.lr!r})" if hasattr(self, "lr") else "check the encodings"
        self._check_in_range(self.space_.xp.sum(P * P), "the class prototypes", lr)
        self.class_vectors_ = None
        if not self.binarize:
            return
        model = self.model_
        if model.element_kind not in _BINARISABLE:
            raise ValueError(
                f"binarize=True needs a model whose vectors are bits or signs (element_kind "
                f"{' or '.join(_BINARISABLE)}: MAP, BSC); {model.name} has {model.element_kind!r}"
            )
        # the sign of each prototype, with the model's tie-break: a bundle of the class
        self.class_vectors_ = model.finish_sum(self.prototypes_)

    @classmethod
    def fitted_shapes(cls, n_classes: int | None, width: int) -> dict[str, tuple[int, ...]]:
        return {"prototypes_": (n_classes, width)}

    def restore_derived(self) -> None:
        self._check_saved_range(self.prototypes_, "the class prototypes", power=2)
        self._finish()  # binarised where asked for

    # -- predicting -------------------------------------------------------------------------
    def _scores(self, X: Any, *, checked: bool = False) -> np.ndarray:
        """Host class scores ``(n_samples, n_classes)`` of ``X`` (``checked``: by
        ``_check_input`` already)."""
        check_is_fitted(self, "prototypes_")
        X = X if checked else self._check_input(X)
        binarised = self.class_vectors_ is not None
        # for binarised inference, the model's own vectors (a Hamming search for BSC)
        batches = self._encoded(X, order_free=True, vectors=binarised, scaled=not binarised)
        return self._on_host((batch, self._batch_scores(batch.H, batch.scale)) for batch in batches)

    def _batch_scores(self, H: Any, scale: float = 1.0) -> Any:
        """The class scores of a batch's encodings (the model's vectors, where binarised;
        unit rows are ``scale * H``, see ``Batch``)."""
        if self.class_vectors_ is not None:
            return self.model_.similarity_matrix(H, self.class_vectors_)
        return self.space_.run(scaled_cosines, H, self.prototypes_, scale)

    def _canonical_scores(self, H: Any, candidates: np.ndarray) -> np.ndarray:
        """The canonical cosines that decide a near tie (see ``Space.canonical_cosines``) of a
        batch's unit rows ``H`` with the prototypes ``candidates`` of each row."""
        return self.space_.canonical_cosines(H, self.prototypes_, candidates)

    def decision_function(self, X: Any) -> np.ndarray:
        """Class scores, shape ``(n_samples, n_classes)``: cosines with the prototypes (the
        model's similarity with the binarised ones); for two classes, ``(n_samples,)``,
        the score of ``classes_[1]`` minus that of ``classes_[0]``."""
        check_is_fitted(self, "prototypes_")
        scores = self._scores(X)
        return scores[:, 1] - scores[:, 0] if len(self.classes_) == 2 else scores

    def predict(self, X: Any) -> np.ndarray:
        """The class of highest score (ties: the first class). Where two classes score
        within rounding of each other, the canonical cosines decide (the same on every
        backend and machine for the same prototypes and encodings)."""
        check_is_fitted(self, "prototypes_")
        X = self._check_input(X)
        scores = self._scores(X, checked=True)
        best = np.argmax(scores, axis=1)
        if self.class_vectors_ is None:  # (binarised prototypes score exactly: no near ties)
            near, candidates = self.space_.near_ties(scores)
            if len(near):  # decided by the canonical cosines of the classes within rounding
                canonical = [
                    batch.trim(self._canonical_scores(batch.H, batch.take(candidates)))
                    for batch in self._encoded(self.space_.take(X, near), order_free=True)
                ]
                choice = np.argmax(np.concatenate(canonical, axis=0), axis=1)
                best[near] = candidates[np.arange(len(near)), choice]
        return self.classes_[best]


@shared_parameters
class CentroidClassifier(PrototypeClassifier):
    """Class prototypes are the bundles (sums) of their samples' hypervectors: one pass.

    The baseline of hyperdimensional classification (torchhd's ``Centroid``/``Vanilla``).
    ``partial_fit`` adds more samples, so it learns from streams; the result does not depend
    on the order or batching of the samples.

    Parameters
    ----------
    {encoder_parameters}
    binarize : bool, default False
        After training, round the prototypes to the model's own vectors (their signs, for
        MAP and BSC) and predict by the model's similarity (Hamming distance of packed bits
        for BSC): what runs on small hardware, at a measured cost in accuracy.
    batch_size : int, default 1024
        Samples encoded and applied at once; memory is bounded by it, not the data set.
    verbose : bool, default False
        Show a progress bar over the epochs of training.
    {random_state}

    Attributes
    ----------
    classes_ : ndarray
        The labels, sorted.
    prototypes_ : array of the model's backend, shape ``(n_classes, width)``
        The class prototypes in the learning space (``width`` is ``dim``, twice that for
        complex models).
    class_vectors_ : array of the model's backend or None
        The binarised prototypes (vectors of the model), with ``binarize=True``.
    encoder_ : HDEncoder
        The fitted encoder.
    model_ : holovec model
        The model of the encodings.
    n_features_in_ : int
        Number of features seen in ``fit`` (numeric input only).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from holovec.learn import CentroidClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = CentroidClassifier(dim=2000, random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.85
    True
    """
