"""What every loader returns: a train/test split with its names and description, or the
bare ``(X_train, y_train, X_test, y_test)`` tuple."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True, repr=False)
class DatasetSplit:
    """A data set's standard train/test split, as NumPy arrays.

    Parameters
    ----------
    name : str
        The set's name (as :func:`available` lists it).
    X_train : numpy.ndarray
        The training samples, one per row (first axis).
    y_train : numpy.ndarray
        The training labels, integers ``0 .. n_classes - 1``.
    X_test : numpy.ndarray
        The test samples.
    y_test : numpy.ndarray
        The test labels.
    feature_names : list of str or None, optional
        The name of each feature (the last axis of ``X_*``), where the source names them.
    target_names : list of str or None, optional
        ``target_names[k]`` names label ``k``, where known.
    description : str, optional
        Where the data come from, what a sample is and how the split is made.

    Examples
    --------
    >>> from holovec.datasets import load_offline
    >>> data = load_offline("iris")  # doctest: +SKIP
    >>> data.X_train.shape, data.target_names  # doctest: +SKIP
    ((112, 4), ['setosa', 'versicolor', 'virginica'])
    """

    name: str
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    feature_names: list[str] | None = None
    target_names: list[str] | None = None
    description: str = field(default="")

    def as_tuple(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The arrays, in the order of ``return_X_y=True``.

        Returns
        -------
        tuple of numpy.ndarray
            ``(X_train, y_train, X_test, y_test)``.
        """
        return self.X_train, self.y_train, self.X_test, self.y_test

    def __repr__(self) -> str:
        return (
            f"DatasetSplit({self.name!r}, X_train={self.X_train.shape}, X_test={self.X_test.shape}, "
            f"n_classes={len(np.unique(np.concatenate([self.y_train, self.y_test])))})"
        )


def finish(split: DatasetSplit, return_X_y: bool) -> DatasetSplit | tuple:
    """``split``, or its arrays where ``return_X_y``."""
    return split.as_tuple() if return_X_y else split


def encode_labels(y_train: np.ndarray, y_test: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Labels of any kind as ``0 .. k - 1`` (sorted; numerically where all are numbers) and
    the name of each."""
    both = np.concatenate([np.asarray(y_train), np.asarray(y_test)])
    classes, inverse = np.unique(both, return_inverse=True)
    try:
        order = np.argsort(classes.astype(float), kind="stable")
    except ValueError:
        order = np.arange(len(classes))
    rank = np.empty(len(classes), dtype=np.int64)
    rank[order] = np.arange(len(classes))
    codes = rank[inverse.reshape(-1)]
    return codes[: len(y_train)], codes[len(y_train) :], [str(value) for value in classes[order]]


def stratified_split(y: np.ndarray, test_size: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices of a seeded stratified split: ``round(test_size * n_k)`` samples of each class
    ``k`` (at least one where a class has two or more) drawn for the test set."""
    rng = np.random.default_rng(seed)
    test = []
    for label in np.unique(y):
        members = rng.permutation(np.flatnonzero(y == label))
        count = round(test_size * len(members))
        count = max(count, 1) if len(members) > 1 else 0
        test.append(members[:count])
    test = np.sort(np.concatenate(test)) if test else np.zeros(0, dtype=np.int64)
    train = np.setdiff1d(np.arange(len(y)), test)
    return train, test
