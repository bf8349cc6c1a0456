"""Feature tables in zip archives: ISOLET, UCI-HAR and PAMAP2 (one sample a row)."""

from __future__ import annotations

import os

import numpy as np

from ._archive import load_table, open_zip, text_member
from ._result import DatasetSplit, finish
from ._sources import fetch_file


def fetch_isolet(
    data_home: str | os.PathLike | None = None, download_if_missing: bool = True, return_X_y: bool = False
) -> DatasetSplit | tuple:
    """ISOLET: 617 acoustic features of 150 speakers saying each letter of the alphabet twice.

    The published split: speakers 1-120 (``isolet1+2+3+4.data``, 6238 samples) train,
    speakers 121-150 (``isolet5.data``, 1559 samples) test. 26 classes, ``y = letter - 1``.
    Downloaded from torchhd's copy of the UCI files (a zip, about 30 MB).

    Parameters
    ----------
    data_home : str or path-like, optional
        The cache folder (see :func:`get_data_home`).
    download_if_missing : bool, default True
        Download the file when it is not in the cache; else raise ``FileNotFoundError``.
    return_X_y : bool, default False
        Return ``(X_train, y_train, X_test, y_test)`` instead of a :class:`DatasetSplit`.

    Returns
    -------
    DatasetSplit or tuple
        ``X_*`` float32 of shape ``(n, 617)``, ``y_*`` int64 in ``0 .. 25``.

    Examples
    --------
    >>> import tempfile
    >>> from holovec.datasets import fetch_isolet
    >>> fetch_isolet(data_home=tempfile.mkdtemp(), download_if_missing=False)
    Traceback (most recent call last):
    FileNotFoundError: ... is not in the cache and download_if_missing=False: ...
    >>> X_train, y_train, X_test, y_test = fetch_isolet(return_X_y=True)  # doctest: +SKIP
    >>> X_train.shape, X_test.shape  # doctest: +SKIP
    ((6238, 617), (1559, 617))
    """
    path = fetch_file("isolet", "isolet.zip", data_home, download_if_missing)
    parts = []
    with open_zip(path, "isolet5.data") as archive:
        for member in ("isolet1+2+3+4.data", "isolet5.data"):
            table = load_table(archive, member, path, delimiter=",", dtype=np.float32)
            parts += [table[:, :-1], table[:, -1].astype(np.int64) - 1]
    split = DatasetSplit(
        "isolet",
        *parts,
        feature_names=None,
        target_names=[chr(ord("a") + k) for k in range(26)],
        description="ISOLET (UCI): spoken letters; train speakers 1-120, test speakers 121-150.",
    )
    return finish(split, return_X_y)


def _names(archive, member: str, path) -> list[str]:
    """The second field of each line of a ``<number> <name>`` list."""
    with text_member(archive, member, path) as handle:
        return [line.split(maxsplit=1)[1].strip() for line in handle if line.strip()]


def fetch_ucihar(
    data_home: str | os.PathLike | None = None, download_if_missing: bool = True, return_X_y: bool = False
) -> DatasetSplit | tuple:
    """UCI-HAR: 561 features of smartphone inertial signals, six activities of daily living.

    The published split by subject: 21 subjects train (7352 windows), 9 test (2947).
    ``y = activity - 1`` (walking, upstairs, downstairs, sitting, standing, laying).

    Parameters
    ----------
    data_home : str or path-like, optional
        The cache folder (see :func:`get_data_home`).
    download_if_missing : bool, default True
        Download the file when it is not in the cache; else raise ``FileNotFoundError``.
    return_X_y : bool, default False
        Return ``(X_train, y_train, X_test, y_test)`` instead of a :class:`DatasetSplit`.

    Returns
    -------
    DatasetSplit or tuple
        ``X_*`` float32 of shape ``(n, 561)`` (with ``feature_names``), ``y_*`` int64 in
        ``0 .. 5``.

    Examples
    --------
    >>> import tempfile
    >>> from holovec.datasets import fetch_ucihar
    >>> fetch_ucihar(data_home=tempfile.mkdtemp(), download_if_missing=False)
    Traceback (most recent call last):
    FileNotFoundError: ... is not in the cache and download_if_missing=False: ...
    """
    path = fetch_file("ucihar", "UCI HAR Dataset.zip", data_home, download_if_missing)
    parts = []
    with open_zip(path, "train/X_train.txt") as archive:
        for part in ("train", "test"):
            parts.append(load_table(archive, f"{part}/X_{part}.txt", path, dtype=np.float32))
            parts.append(load_table(archive, f"{part}/y_{part}.txt", path, dtype=np.int64)[:, 0] - 1)
        features = _names(archive, "features.txt", path)
        activities = _names(archive, "activity_labels.txt", path)
    split = DatasetSplit(
        "ucihar",
        *parts,
        feature_names=features,
        target_names=activities,
        description="UCI-HAR (Anguita et al. 2013): smartphone activity recognition; split by subject.",
    )
    return finish(split, return_X_y)


#: PAMAP2's activity IDs (its readme), in label order
PAMAP2_ACTIVITIES = {
    1: "lying", 2: "sitting", 3: "standing", 4: "walking", 5: "running", 6: "cycling",
    7: "nordic walking", 9: "watching TV", 10: "computer work", 11: "car driving",
    12: "ascending stairs", 13: "descending stairs", 16: "vacuum cleaning", 17: "ironing",
    18: "folding laundry", 19: "house cleaning", 20: "playing soccer", 24: "rope jumping",
}  # fmt: skip
_IMU = (
    ["temperature"]
    + [f"acc16_{axis}" for axis in "xyz"]
    + [f"acc6_{axis}" for axis in "xyz"]
    + [f"gyro_{axis}" for axis in "xyz"]
    + [f"mag_{axis}" for axis in "xyz"]
    + [f"orientation_{k}" for k in range(4)]
)
PAMAP2_FEATURES = ["heart_rate"] + [f"{part}_{name}" for part in ("hand", "chest", "ankle") for name in _IMU]


def _pamap2_subject(archive, subject: int, path) -> tuple[np.ndarray, np.ndarray]:
    """One subject's protocol recording, cleaned: heart rate carried forward (it is sampled
    at 9 Hz, the IMUs at 100 Hz), transient rows (activity 0) and rows with a missing IMU
    value dropped."""
    table = load_table(archive, f"Protocol/subject{subject}.dat", path, dtype=np.float32)
    heart = table[:, 2]
    last = np.maximum.accumulate(np.where(np.isnan(heart), 0, np.arange(len(heart))))
    table[:, 2] = heart[last]
    keep = (table[:, 1] != 0) & ~np.isnan(table[:, 2:]).any(axis=1)
    ids = np.array(sorted(PAMAP2_ACTIVITIES))
    return table[keep, 2:], np.searchsorted(ids, table[keep, 1].astype(np.int64))


def fetch_pamap2(
    data_home: str | os.PathLike | None = None,
    download_if_missing: bool = True,
    return_X_y: bool = False,
    test_subjects: tuple[int, ...] = (108,),
) -> DatasetSplit | tuple:
    """PAMAP2: heart rate and three IMUs (hand, chest, ankle) of nine subjects doing 12
    protocol activities, one sample per time step (100 Hz).

    There is no published split: the split is by subject, ``test_subjects`` test (default
    subject 108, who did every protocol activity) and the others (101-109) train. Features
    are the 52 columns after the timestamp and the activity (heart rate carried forward to
    the IMU's rate; transient rows and rows with a missing IMU value dropped). Labels index
    :data:`PAMAP2_ACTIVITIES` (18 IDs; the protocol recordings use 12 of them). The
    optional recordings are not read. The zip is about 650 MB.

    Parameters
    ----------
    data_home : str or path-like, optional
        The cache folder (see :func:`get_data_home`).
    download_if_missing : bool, default True
        Download the file when it is not in the cache; else raise ``FileNotFoundError``.
    return_X_y : bool, default False
        Return ``(X_train, y_train, X_test, y_test)`` instead of a :class:`DatasetSplit`.
    test_subjects : tuple of int, default (108,)
        The subjects (101-109) whose recordings form the test set.

    Returns
    -------
    DatasetSplit or tuple
        ``X_*`` float32 of shape ``(n, 52)``, ``y_*`` int64 in ``0 .. 17``.

    Examples
    --------
    >>> import tempfile
    >>> from holovec.datasets import fetch_pamap2
    >>> fetch_pamap2(data_home=tempfile.mkdtemp(), download_if_missing=False)
    Traceback (most recent call last):
    FileNotFoundError: ... is not in the cache and download_if_missing=False: ...
    """
    subjects = range(101, 110)
    if not set(test_subjects) <= set(subjects):
        raise ValueError(f"test_subjects must be among 101-109, got {test_subjects!r}")
    path = fetch_file("pamap2", "PAMAP2_Dataset.zip", data_home, download_if_missing)
    with open_zip(path, "Protocol/subject101.dat") as archive:
        names = archive.namelist()
        recorded = [s for s in subjects if any(n.endswith(f"Protocol/subject{s}.dat") for n in names)]
        loaded = {s: _pamap2_subject(archive, s, path) for s in recorded}
    parts = []
    for held_out in (False, True):
        chosen = [loaded[s] for s in recorded if (s in test_subjects) == held_out]
        parts.append(np.concatenate([x for x, _ in chosen]) if chosen else np.zeros((0, 52), np.float32))
        parts.append(np.concatenate([y for _, y in chosen]) if chosen else np.zeros(0, np.int64))
    split = DatasetSplit(
        "pamap2",
        *parts,
        feature_names=PAMAP2_FEATURES,
        target_names=[PAMAP2_ACTIVITIES[k] for k in sorted(PAMAP2_ACTIVITIES)],
        description=f"PAMAP2 (Reiss and Stricker 2012), protocol recordings; test subjects {test_subjects}.",
    )
    return finish(split, return_X_y)
