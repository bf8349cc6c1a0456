"""Class probabilities from class scores, and how well calibrated they are.

holovec's classifiers score classes by ``decision_function`` (cosines with the class
prototypes, or a ridge read-out): numbers that rank the classes but are no probabilities.
scikit-learn's ``CalibratedClassifierCV`` (``sklearn.calibration``) turns them into
calibrated ones (``method="temperature"``: a softmax of the scores divided by a
temperature fitted on held-out data; or ``"sigmoid"``, ``"isotonic"``). This module adds
the plain softmax (:func:`softmax`, the uncalibrated baseline) and the measure of
calibration (:func:`expected_calibration_error`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._params import POSITIVE, POSITIVE_INT

__all__ = ["expected_calibration_error", "softmax"]


def _as_scores(scores: Any, what: str) -> np.ndarray:
    """``scores`` as a finite float64 ``(n, k)`` host array; a 1-D array (scikit-learn's
    binary ``decision_function``: the score of the second class over the first) as the
    two columns ``[0, s]``."""
    S = np.asarray(scores, dtype=np.float64)
    if S.ndim == 1:
        S = np.stack([np.zeros_like(S), S], axis=1)
    if S.ndim != 2 or S.shape[1] < 2:
        raise ValueError(f"{what} must have shape (n_samples,) or (n_samples, n_classes >= 2), got {S.shape}")
    if not np.all(np.isfinite(S)):
        raise ValueError(f"{what} must be finite numbers; got NaN or infinity")
    return S


def softmax(scores: Any, temperature: float = 1.0) -> np.ndarray:
    """Probabilities ``exp(s / T) / sum exp(s / T)`` of class scores ``s``, row by row.

    Not calibrated by itself: a holovec classifier's cosines differ by a few tenths, so
    ``T = 1`` gives nearly uniform probabilities; fit ``T`` on held-out data with
    ``CalibratedClassifierCV(method="temperature")`` instead.

    Parameters
    ----------
    scores : array-like, shape (n_samples, n_classes) or (n_samples,)
        Class scores (``decision_function``); 1-D: the score of the second of two classes
        relative to the first, as scikit-learn's binary classifiers give it.
    temperature : float, default 1.0
        ``T > 0``: higher flattens the probabilities, lower sharpens them; as ``T`` goes
        to 0 they become the hard max (1 shared equally by a row's largest scores, 0
        elsewhere), which any ``T`` so small that the gaps over it overflow gives.

    Returns
    -------
    ndarray of float64, shape (n_samples, n_classes)
        Each row sums to 1 (two columns for 1-D scores).

    Examples
    --------
    >>> import numpy as np
    >>> from holovec.learn import softmax
    >>> softmax(np.log([[1.0, 3.0]])).round(3).tolist()
    [[0.25, 0.75]]
    >>> softmax(np.array([0.0]), temperature=2.0).tolist()
    [[0.5, 0.5]]
    """
    POSITIVE.check("temperature", temperature)
    S = _as_scores(scores, "scores")
    # the largest subtracted before dividing, so the largest exponent is 0 whatever T (a
    # tiny T made every score infinite, and inf - inf NaN); halves, because the gap of
    # scores near the float limit overflows (halving is exact: the same quotient)
    with np.errstate(over="ignore"):
        half_gap = S / 2 - S.max(axis=1, keepdims=True) / 2
        S = (half_gap / float(temperature)) * 2  # (a gap past the float range: -inf, weight 0)
    E = np.exp(S)
    return E / E.sum(axis=1, keepdims=True)


def expected_calibration_error(y_true: Any, proba: Any, n_bins: int = 15, *, classes: Any = None) -> float:
    """The top-label expected calibration error of predicted probabilities.

    Each sample's confidence is its largest probability; samples are put in ``n_bins``
    equal-width bins of confidence, ``((b-1)/B, b/B]`` (a confidence of 0 in the first),
    and the error is the gap between accuracy and mean confidence in each bin, weighted by
    the bin's share of samples (Guo et al., 2017):
    ``ECE = sum_b |B_b|/n |acc(B_b) - conf(B_b)|``. 0 for perfect calibration; the
    predicted class is the first of the largest probability, as ``argmax`` picks it.

    Parameters
    ----------
    y_true : array-like, shape (n_samples,)
        The true classes: column indices of ``proba`` (ints ``0 .. n_classes - 1``), or
        labels of ``classes``.
    proba : array-like, shape (n_samples, n_classes) or (n_samples,)
        Probabilities, columns in the order of ``classes`` (``predict_proba``); 1-D: the
        probability of the second of two classes.
    n_bins : int, default 15
        The number of equal-width bins of confidence.
    classes : array-like or None, default None
        The label of each column (an estimator's ``classes_``); ``None``: ``y_true`` holds
        column indices.

    Returns
    -------
    float
        The error, in ``[0, 1]``.

    Examples
    --------
    >>> from holovec.learn import expected_calibration_error
    >>> proba = [[0.9, 0.1], [0.8, 0.2], [0.3, 0.7], [0.4, 0.6]]
    >>> round(expected_calibration_error([0, 1, 1, 1], proba, n_bins=5), 3)
    0.25
    >>> round(expected_calibration_error(["a", "b", "b", "b"], proba, classes=["a", "b"], n_bins=5), 3)
    0.25
    """
    POSITIVE_INT.check("n_bins", n_bins)
    P = np.asarray(proba, dtype=np.float64)
    if P.ndim == 1:
        P = np.stack([1.0 - P, P], axis=1)
    if P.ndim != 2:
        raise ValueError(f"proba must have shape (n_samples, n_classes) or (n_samples,), got {P.shape}")
    outside = ~((P >= 0) & (P <= 1))  # (NaN too)
    if np.any(outside):
        raise ValueError(f"proba must be probabilities in [0, 1], got {P[outside][0]!r} among them")
    y = np.asarray(y_true).ravel()
    if len(y) != P.shape[0] or len(y) == 0:
        raise ValueError(
            f"y_true and proba must have the same number of samples (> 0), got {len(y)} and {P.shape[0]}"
        )
    t = _column_indices(y, classes, P.shape[1])
    confidence = P.max(axis=1)
    correct = np.argmax(P, axis=1) == t
    # bin b holds confidences in ((b-1)/B, b/B]: ceil(c B) - 1, with 0 in the first bin (as
    # floats: exact integers, whatever B); only the occupied bins are kept, so memory is
    # bounded by the samples, not by n_bins (an empty bin adds 0 to the sum)
    bins = np.clip(np.ceil(confidence * float(n_bins)) - 1.0, 0.0, float(n_bins) - 1.0)
    _, occupied = np.unique(bins, return_inverse=True)
    gap = np.bincount(occupied, weights=correct - confidence)  # (acc - conf) |B_b|
    return float(np.abs(gap).sum() / len(y))


def _column_indices(y: np.ndarray, classes: Any, k: int) -> np.ndarray:
    """The column of each true class: ``y`` itself, checked, or its place in ``classes``."""
    if classes is None:
        if y.dtype.kind not in "iu" or np.any(y < 0) or np.any(y >= k):
            raise ValueError(
                f"y_true must hold column indices of proba (ints 0 to {k - 1}) where classes is None; "
                "pass classes= (the estimator's classes_) for labels"
            )
        return y.astype(np.int64)
    classes = np.asarray(classes).ravel()
    if len(classes) != k:
        raise ValueError(f"classes has {len(classes)} labels but proba has {k} columns")
    order = np.argsort(classes, kind="stable")
    place = np.clip(np.searchsorted(classes[order], y), 0, k - 1)
    t = order[place]
    if np.any(classes[t] != y):
        raise ValueError(f"y_true holds labels not in classes {classes.tolist()[:10]}")
    return t
