"""Input checks and minibatches shared by the estimators (private).

Feature matrices come as NumPy-likes (lists, NumPy arrays, pandas frames: checked by
scikit-learn's own ``validate_data``, so its conventions and messages hold) or as arrays
of a framework (torch, JAX), which are checked where they are, without a copy to the host.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import array_api_compat
import numpy as np
from sklearn.utils.validation import validate_data

from .. import kernels
from .._params import KNOWN_SHAPE
from ..backends import array_kind, to_host
from ..backends.arrays import check_has_data
from ..backends.shapes import row_class
from ..random import fold_in


def is_framework_array(x: Any) -> bool:
    """An array of a framework other than NumPy (a torch tensor, a JAX or Dask array: kept
    on its device, or lazy on its cluster), as opposed to a NumPy-like (lists, NumPy
    arrays, pandas frames)."""
    return array_kind(x) not in (None, "numpy")


def batch_rows(model: Any, batch_size: int, n: int) -> int:
    """Rows per minibatch: ``batch_size``, or all ``n`` rows on a backend whose arrays are
    partitioned into chunks (Dask), where the chunks are the batches: one lazy graph per
    pass, whose sums over the samples Dask reduces as a tree of chunk sums."""
    return max(1, n) if kernels.block_backend_name(model.backend) is not None else batch_size


def check_features(estimator: Any, X: Any, *, reset: bool) -> Any:
    """``X`` as a checked ``(n_samples, n_features)`` real matrix with at least one row,
    setting ``n_features_in_`` (``reset``) or checking it against the fitted value. A torch
    tensor that requires grad is detached: estimators learn from the values (a graph of
    every training step would only hold memory)."""
    if not is_framework_array(X):
        return validate_data(estimator, X, reset=reset, dtype=(np.float64, np.float32))
    name = type(estimator).__name__
    check_has_data(X, "X")
    KNOWN_SHAPE.check("X", X)
    if getattr(X, "requires_grad", False) is True:
        X = X.detach()
    if X.ndim != 2:
        raise ValueError(f"Expected a 2D array of shape (n_samples, n_features), got shape {tuple(X.shape)}")
    xp = array_api_compat.array_namespace(X)
    if xp.isdtype(X.dtype, "bool") or not xp.isdtype(X.dtype, ("real floating", "integral")):
        raise TypeError(f"{name}: X must hold real numbers, got dtype {X.dtype}")
    if X.shape[0] < 1:
        raise ValueError(
            f"Found array with 0 sample(s) (shape={tuple(X.shape)}) while a minimum of 1 is required."
        )
    if X.shape[1] < 1:  # as scikit-learn's own check says it for NumPy input
        raise ValueError(
            f"Found array with 0 feature(s) (shape={tuple(X.shape)}) while a minimum of 1 is required."
        )
    if xp.isdtype(X.dtype, "real floating") and not bool(xp.all(xp.isfinite(X))):
        raise ValueError(f"Input X contains NaN or infinity; {name} needs finite features.")
    n_features = int(X.shape[1])
    if reset:
        estimator.n_features_in_ = n_features
    elif n_features != estimator.n_features_in_:
        raise ValueError(
            f"X has {n_features} features, but {name} is expecting "
            f"{estimator.n_features_in_} features as input."
        )
    return X


def host_labels(y: Any) -> np.ndarray:
    """Labels or targets as a NumPy array (framework arrays are moved to the host: they are small)."""
    check_has_data(y, "y")
    return to_host(y) if is_framework_array(y) else y  # (bfloat16 as float32, which holds it)


def n_rows(X: Any) -> int:
    """The number of samples of an array (its shape must be known) or a sequence."""
    if not hasattr(X, "shape"):
        return len(X)
    KNOWN_SHAPE.check("X", X)
    return int(X.shape[0])


def take_rows(X: Any, rows: np.ndarray | slice) -> Any:
    """Rows of a NumPy, framework or sequence input (a list of texts, for example)."""
    if isinstance(rows, slice) or hasattr(X, "shape"):
        if not isinstance(rows, slice) and (is_framework_array(X) or not isinstance(X, np.ndarray)):
            xp = array_api_compat.array_namespace(X)
            return xp.take(X, xp.asarray(rows, device=array_api_compat.device(X)), axis=0)
        return X[rows]
    return [X[i] for i in rows]


#: the fewest rows a padded batch has (see :func:`padded_size`): the encoders' products
#: run in blocks of 16 rows anyway (``holovec.encoders.vector.ROWS_PER_PRODUCT``)
MIN_PADDED_ROWS = 16


def padded_size(n: int, batch_size: int) -> int:
    """The rows that a batch of ``n`` rows is padded to on a backend that compiles a program
    per array shape (``Backend.static_shapes``: JAX): the next power of two, at least
    :data:`MIN_PADDED_ROWS` and at most ``batch_size``. So every batch has one of a few
    shapes (at most ``log2(batch_size / 16) + 2`` of them), whatever the number of rows, and
    padding at most doubles a batch (:func:`holovec.backends.shapes.row_class`); ``n`` of
    ``batch_size`` or more: ``batch_size`` (the rows of a whole batch)."""
    if n >= batch_size:
        return batch_size
    return row_class(n, minimum=MIN_PADDED_ROWS, maximum=batch_size)


def padded_blocks(k: int) -> int:
    """``k`` blocks rounded up to one of a few counts (``k`` itself up to 4, then 4 counts
    per doubling: 5, 6, 7, 8, 10, 12, 14, 16, 20, ...): how many blocks of rows an array of
    a whole data set is padded to on a backend that compiles per shape, so that data sets
    of similar sizes share their programs, for at most a quarter more rows."""
    if k <= 4:
        return max(1, k)
    step = 1 << (int(math.log2(k)) - 2)
    return -(-k // step) * step


def count_rows(rows: np.ndarray | slice) -> int:
    """The number of rows of a selection (an index array, or a slice with its bounds)."""
    return len(range(rows.start, rows.stop)) if isinstance(rows, slice) else len(rows)


def padded_index(rows: np.ndarray | slice, size: int) -> np.ndarray:
    """The row numbers ``rows`` (an index array or a slice with its bounds) followed by
    copies of the first one up to ``size`` (the rows of a padded batch: any row of the data
    is as good a filler as another; its results are masked out or dropped)."""
    index = np.arange(rows.start, rows.stop) if isinstance(rows, slice) else np.asarray(rows)
    return np.concatenate([index, np.full(size - len(index), index[0], dtype=index.dtype)])


def batches(
    n: int, batch_size: int, *, seed: int | None = None, epoch: int = 0
) -> Iterator[np.ndarray | slice]:
    """Row selections of at most ``batch_size`` rows covering ``range(n)``: in order
    (``seed=None``), or in an order shuffled from ``seed`` and ``epoch`` (the same on every
    backend, so seeded training reproduces across them)."""
    if seed is None:
        for start in range(0, n, batch_size):
            yield slice(start, min(start + batch_size, n))
        return
    order = np.random.default_rng(fold_in(seed, "epoch", epoch) % 2**64).permutation(n)
    for start in range(0, n, batch_size):
        yield np.sort(order[start : start + batch_size])
