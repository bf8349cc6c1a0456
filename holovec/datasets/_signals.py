"""Windows of multichannel recordings: the EMG hand-gesture set."""

from __future__ import annotations

import itertools
import os

import numpy as np

from ._archive import load_table, open_zip
from ._result import DatasetSplit, encode_labels, finish, stratified_split
from ._sources import fetch_file

EMG_GESTURES = ["closed hand", "open hand", "two-finger pinch", "point index", "rest position"]


def windows(signal: np.ndarray, labels: np.ndarray, window: int) -> tuple[np.ndarray, np.ndarray]:
    """Non-overlapping windows of ``window`` steps inside each run of one label.

    Parameters
    ----------
    signal : numpy.ndarray
        ``(steps, channels)``.
    labels : numpy.ndarray
        ``(steps,)``, the label of each step.
    window : int
        Steps per window.

    Returns
    -------
    tuple of numpy.ndarray
        The windows ``(n, channels, window)`` and the label of each ``(n,)``.
    """
    edges = np.concatenate([[0], np.flatnonzero(np.diff(labels)) + 1, [len(labels)]])
    starts = [np.arange(a, b - window + 1, window) for a, b in itertools.pairwise(edges) if b - a >= window]
    starts = np.concatenate(starts) if starts else np.zeros(0, dtype=np.int64)
    steps = starts[:, None] + np.arange(window)
    return np.ascontiguousarray(signal[steps].transpose(0, 2, 1)), labels[starts]


def fetch_emg(
    data_home: str | os.PathLike | None = None,
    download_if_missing: bool = True,
    return_X_y: bool = False,
    window: int = 256,
    test_size: float = 0.25,
    seed: int = 0,
) -> DatasetSplit | tuple:
    """EMG hand gestures (Rahimi et al. 2016): four forearm EMG channels of five subjects,
    five gestures, cut into windows.

    Each subject's recording (``COMPLETE_<s>.csv``, labels in ``LABEL_<s>.csv``) is cut into
    non-overlapping windows of ``window`` steps that lie inside one gesture. There is no
    published split: a seeded stratified split of the windows, ``round(test_size * n_k)``
    of each gesture ``k`` to the test set (NumPy's ``default_rng(seed)``), the rest train.
    Labels are the file's gesture codes in sorted order, ``0 .. 4``.

    Parameters
    ----------
    data_home : str or path-like, optional
        The cache folder (see :func:`get_data_home`).
    download_if_missing : bool, default True
        Download the file when it is not in the cache; else raise ``FileNotFoundError``.
    return_X_y : bool, default False
        Return ``(X_train, y_train, X_test, y_test)`` instead of a :class:`DatasetSplit`.
    window : int, default 256
        Steps per window.
    test_size : float, default 0.25
        The share of each gesture's windows in the test set.
    seed : int, default 0
        The seed of the split.

    Returns
    -------
    DatasetSplit or tuple
        ``X_*`` float32 of shape ``(n, 4, window)``, ``y_*`` int64.

    Examples
    --------
    >>> import tempfile
    >>> from holovec.datasets import fetch_emg
    >>> fetch_emg(data_home=tempfile.mkdtemp(), download_if_missing=False)
    Traceback (most recent call last):
    FileNotFoundError: ... is not in the cache and download_if_missing=False: ...
    """
    if window < 1 or not 0 < test_size < 1:
        raise ValueError(f"window must be >= 1 and test_size in (0, 1), got {window} and {test_size}")
    path = fetch_file("emg", "emg.zip", data_home, download_if_missing)
    samples, labels = [], []
    with open_zip(path, "COMPLETE_1.csv") as archive:
        for subject in range(1, 6):
            signal = load_table(archive, f"COMPLETE_{subject}.csv", path, delimiter=",", dtype=np.float32)
            steps = load_table(archive, f"LABEL_{subject}.csv", path, delimiter=",", dtype=np.int64)[:, 0]
            x, y = windows(signal, steps, window)
            samples.append(x)
            labels.append(y)
    X, codes = np.concatenate(samples), np.concatenate(labels)
    y, _, names = encode_labels(codes, codes[:0])
    train, test = stratified_split(y, test_size, seed)
    split = DatasetSplit(
        "emg",
        X[train],
        y[train],
        X[test],
        y[test],
        feature_names=None,
        target_names=EMG_GESTURES if len(names) == len(EMG_GESTURES) else names,
        description=f"EMG hand gestures, windows of {window}; stratified split, test_size={test_size}, "
        f"seed={seed}.",
    )
    return finish(split, return_X_y)
