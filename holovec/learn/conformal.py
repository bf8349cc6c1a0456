"""Split-conformal prediction sets for any classifier (Vovk et al., 2005; Angelopoulos and
Bates, 2021, "A gentle introduction to conformal prediction").

The classifier is fitted on one part of the data; each sample of the other part (the
calibration set, ``n`` samples) gets a nonconformity score ``s(x, y)`` for its true class,
and ``q`` is the ``ceil((n + 1)(1 - alpha)) / n`` quantile of those scores. The set of a new
sample is every class ``y`` with ``s(x, y) <= q``. Where calibration and test samples are
exchangeable, the set holds the true class with probability at least ``1 - alpha``, and
(without ties among the scores) at most ``1 - alpha + 1 / (n + 1)``, whatever the
classifier: a better one only makes the sets smaller.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from scipy.sparse import issparse
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.frozen import FrozenEstimator
from sklearn.utils import _safe_indexing, get_tags
from sklearn.utils.validation import check_is_fitted

from .._params import Interval, Options, check_parameters
from ..random import fresh_seed
from ._data import is_framework_array, n_rows, take_rows
from ._docs import document_methods
from ._seed import RANDOM_STATE, chosen_seed
from ._targets import class_indices, class_labels
from .calibration import softmax

__all__ = ["ConformalClassifier"]


def class_probabilities(estimator: Any, X: Any) -> np.ndarray:
    """``estimator.predict_proba(X)`` where it has it, else a softmax of its
    ``decision_function`` (a holovec classifier's class scores), as a float64 host array."""
    if hasattr(estimator, "predict_proba"):
        return np.asarray(estimator.predict_proba(X), dtype=np.float64)
    if hasattr(estimator, "decision_function"):
        return softmax(estimator.decision_function(X))
    raise TypeError(
        f"ConformalClassifier needs a classifier with predict_proba or decision_function; "
        f"{type(estimator).__name__} has neither"
    )


def nonconformity(P: np.ndarray, method: str) -> np.ndarray:
    """The score of every class of every sample, ``(n, k)``, from probabilities ``P``:
    ``1 - p_y`` ("lac"), or the probability mass of the classes ranked up to and including
    ``y`` ("aps": ranked by probability, ties in column order)."""
    if method == "lac":
        return 1.0 - P
    order = np.argsort(-P, axis=1, kind="stable")
    mass = np.cumsum(np.take_along_axis(P, order, axis=1), axis=1)
    scores = np.empty_like(P)
    np.put_along_axis(scores, order, mass, axis=1)
    return scores


def conformal_quantile(scores: np.ndarray, alpha: float) -> float:
    """The ``ceil((n + 1)(1 - alpha)) / n`` empirical quantile of ``n`` calibration scores
    (the ``ceil((n + 1)(1 - alpha))``-th smallest); ``inf`` where that exceeds ``n``: too
    few samples for ``alpha``, every class is in every set."""
    n = len(scores)
    rank = int(np.ceil((n + 1) * (1.0 - alpha) - 1e-9))  # (no rounding up of an exact product)
    return float("inf") if rank > n else float(np.partition(scores, rank - 1)[rank - 1])


@document_methods
class ConformalClassifier(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Prediction sets with a coverage guarantee around any classifier (split conformal).

    ``fit`` fits a clone of ``estimator`` on a random ``1 - calibration_size`` of the
    samples and calibrates on the rest; ``predict_set`` gives each sample the set of
    classes whose nonconformity score is within the calibration quantile. Where the data
    are exchangeable (drawn independently from one distribution, say), a set holds the
    true class with probability at least ``1 - alpha``, on average over calibration sets.

    A fitted estimator wrapped in ``FrozenEstimator`` (``sklearn.frozen``) is used as it is
    (not refitted) and all of ``fit``'s samples calibrate it: they must be other samples
    than those it was fitted on.

    Parameters
    ----------
    estimator : classifier
        Any scikit-learn classifier with ``predict_proba`` or ``decision_function`` (of a
        holovec classifier: a softmax of its class scores is used).
    alpha : float, default 0.1
        The miscoverage allowed, in ``(0, 1)``: sets hold the true class with probability
        at least ``1 - alpha``.
    method : {"lac", "aps"}, default "lac"
        The nonconformity score: ``1 - p_y`` ("lac": least ambiguous sets, the smallest on
        average), or the probability mass of the classes ranked up to ``y`` ("aps":
        adaptive sets, larger where the classifier is unsure, conservative without
        randomisation).
    calibration_size : float, default 0.25
        The share of ``fit``'s samples kept for calibration, in ``(0, 1)`` (every class
        keeps at least one sample for training).
    random_state : int or None, default None
        Seeds the split (``None``: a fresh split at every fit).

    Attributes
    ----------
    estimator_ : classifier
        The fitted classifier (the frozen one itself, for a FrozenEstimator).
    classes_ : ndarray
        The classes (the estimator's).
    quantile_ : float
        The threshold of the scores (``inf``: too few calibration samples for ``alpha``).
    calibration_scores_ : ndarray of float64
        The calibration samples' scores of their true class.
    n_features_in_ : int
        Number of features seen in ``fit`` (where the estimator has it).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from holovec.learn import ConformalClassifier, RidgeHDClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> cp = ConformalClassifier(RidgeHDClassifier(dim=1000, random_state=0), alpha=0.1, random_state=0)
    >>> sets = cp.fit(X, y).predict_set(X)
    >>> sets.shape, sets.dtype
    ((150, 3), dtype('bool'))
    >>> bool(sets[range(150), y].mean() >= 0.85)
    True
    """

    _parameter_rules: ClassVar[dict[str, Any]] = {
        "alpha": Interval(0, 1, closed="neither"),
        "method": Options("lac", "aps"),
        "calibration_size": Interval(0, 1, closed="neither"),
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        estimator: Any,
        *,
        alpha: float = 0.1,
        method: str = "lac",
        calibration_size: float = 0.25,
        random_state: int | None = None,
    ) -> None:
        self.estimator = estimator
        self.alpha = alpha
        self.method = method
        self.calibration_size = calibration_size
        self.random_state = random_state

    def fit(self, X: Any, y: Any) -> ConformalClassifier:
        """Fit the estimator on part of ``X, y`` (none of it for a FrozenEstimator) and
        compute the calibration quantile on the rest."""
        check_parameters(self)
        if issparse(X):  # (rows of every sparse format: the estimator decides whether it takes them)
            X = X.tocsr()
        elif not hasattr(X, "shape") and hasattr(X, "__array__"):  # (array-likes without len)
            X = np.asarray(X)
        n = n_rows(X)
        y = class_labels(y, n)
        if isinstance(self.estimator, FrozenEstimator):
            self.estimator_ = self.estimator
            calibration = np.arange(n)
        else:
            training, calibration = self._split(y)
            self.estimator_ = clone(self.estimator).fit(_rows(X, training), y[training])
        self.classes_ = np.asarray(self.estimator_.classes_)
        if hasattr(self.estimator_, "n_features_in_"):
            self.n_features_in_ = self.estimator_.n_features_in_
        if hasattr(self.estimator_, "feature_names_in_"):
            self.feature_names_in_ = self.estimator_.feature_names_in_
        t = class_indices(y[calibration], self.classes_)
        S = self._scores(_rows(X, calibration))
        self.calibration_scores_ = S[np.arange(len(t)), t]
        self.quantile_ = conformal_quantile(self.calibration_scores_, self.alpha)
        return self

    def _split(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Training and calibration rows: a seeded shuffle, the first sample of every class
        kept for training, then ``calibration_size`` of all samples for calibration."""
        n = len(y)
        seed = chosen_seed(self)
        seed = fresh_seed() if seed is None else seed
        order = np.random.default_rng(seed).permutation(n)
        _, first = np.unique(y[order], return_index=True)
        rest = np.delete(order, first)
        n_cal = min(len(rest), max(1, round(self.calibration_size * n)))
        if n_cal == 0:  # (fewer samples than classes + 1)
            raise ValueError(
                f"ConformalClassifier needs more samples than classes (one of each class to fit the "
                f"estimator, the rest to calibrate it); got {n} samples of {len(first)} classes"
            )
        return np.sort(np.concatenate([order[first], rest[n_cal:]])), np.sort(rest[:n_cal])

    def _scores(self, X: Any) -> np.ndarray:
        P = class_probabilities(self.estimator_, X)
        return nonconformity(P, self.method)

    def predict_set(self, X: Any) -> np.ndarray:
        """The prediction sets: ``(n_samples, n_classes)`` booleans, column ``j`` for
        ``classes_[j]`` (``classes_[row]`` lists a sample's classes). A set may be empty
        (no class conforms) or hold every class (``quantile_`` is ``inf``)."""
        check_is_fitted(self, "quantile_")
        return self._scores(X) <= self.quantile_

    def predict(self, X: Any) -> np.ndarray:
        """The estimator's predictions (the most probable class, whatever the sets)."""
        check_is_fitted(self, "quantile_")
        return self.estimator_.predict(X)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        inner = get_tags(self.estimator)
        tags.input_tags = inner.input_tags
        tags.non_deterministic = inner.non_deterministic
        return tags


def _rows(X: Any, rows: np.ndarray) -> Any:
    """Rows of ``X`` by position: of a torch or JAX array on its device, else as
    scikit-learn takes them (NumPy, sparse matrices, pandas frames, lists)."""
    return take_rows(X, rows) if is_framework_array(X) else _safe_indexing(X, rows)
