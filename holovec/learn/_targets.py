"""Labels and targets (private): host NumPy arrays, checked the scikit-learn way."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d

from ._data import host_labels


def _one_dimensional(y: Any, n: int) -> np.ndarray:
    if y is None:
        raise ValueError("requires y to be passed, but the target y is None")
    y = column_or_1d(host_labels(y), warn=True)
    if len(y) != n:
        raise ValueError(f"Found input variables with inconsistent numbers of samples: [{n}, {len(y)}]")
    return y


def class_labels(y: Any, n: int) -> np.ndarray:
    """Classification labels (any hashable, sortable values) as a 1-D array of ``n``."""
    y = _one_dimensional(y, n)
    sorted_classes(y, "y")  # (scikit-learn's check sorts them too, and fails unclearly)
    check_classification_targets(y)
    return y


def sorted_classes(labels: np.ndarray, what: str) -> np.ndarray:
    """The distinct ``labels``, sorted (``classes_``); ``TypeError`` for labels that
    cannot be sorted together (strings mixed with numbers, say)."""
    try:
        return np.unique(labels)
    except TypeError:
        kinds = sorted({type(v).__name__ for v in np.ravel(labels).tolist()})
        raise TypeError(
            f"{what} must hold labels of one kind, all strings or all numbers (they are sorted "
            f"into classes_); got labels of types {', '.join(kinds)}"
        ) from None


def class_indices(y: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """Indices of labels ``y`` in ``classes`` (sorted); ``ValueError`` for unknown labels."""
    try:
        t = np.minimum(np.searchsorted(classes, y), len(classes) - 1)
        unknown = classes[t] != y
    except TypeError:  # labels that do not compare with the classes (strings for numbers)
        t, unknown = np.zeros(len(y), dtype=np.int64), np.ones(len(y), dtype=bool)
    if np.any(unknown):
        raise ValueError(
            f"y holds labels not in classes_ {classes.tolist()[:10]}: {np.unique(y[unknown]).tolist()[:10]}"
        )
    return t.astype(np.int64)


def regression_targets(y: Any, n: int) -> np.ndarray:
    """Regression targets as a finite float64 array of ``n``."""
    y = _one_dimensional(y, n)
    if y.dtype.kind not in "biuf":
        raise ValueError(f"Unknown label type: regression targets must be numbers, got dtype {y.dtype}")
    y = y.astype(np.float64)
    if not np.all(np.isfinite(y)):
        raise ValueError("Input y contains NaN or infinity.")
    return y


def check_target_range(centred: np.ndarray, dtype_name: str, who: str) -> None:
    """``ValueError`` where centred targets exceed what the learning space's floats
    (``dtype_name``) hold: they would overflow when converted."""
    largest = float(np.finfo(dtype_name).max)
    spread = float(np.max(np.abs(centred), initial=0.0))
    if not spread <= largest:
        raise ValueError(
            f"{who}: the targets lie up to {spread:.3g} from their mean, beyond the largest "
            f"{dtype_name} number ({largest:.3g}) that the model learns in; scale the targets "
            "(divide them by their spread) and scale predictions back"
        )
