"""The UCI collection of Fernandez-Delgado et al.: 121 classification sets in one archive,
with the collection's own train/test files or fold files."""

from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path

import numpy as np

from ._archive import find_member
from ._result import DatasetSplit, finish
from ._sources import fetch_file
from ._uci_names import FOUR_FOLD, TRAIN_TEST

_ARCHIVE = "data_hundreds_classifiers.tar.gz"
N_FOLDS = 4


def _key(name: str) -> str:
    return name.lower().replace("-", "").replace("_", "")


_BY_KEY = {_key(name): name for name in TRAIN_TEST + FOUR_FOLD}


def uci_names() -> list[str]:
    """The names of the 121 sets of the UCI collection (Fernandez-Delgado et al. 2014).

    Returns
    -------
    list of str
        The archive's folder names, sorted (``"abalone"``, ``"acute-inflammation"``, ...).

    Examples
    --------
    >>> from holovec.datasets import uci_names
    >>> uci_names()[:3]
    ['abalone', 'acute-inflammation', 'acute-nephritis']
    >>> len(uci_names())
    121
    """
    return sorted(TRAIN_TEST + FOUR_FOLD)


def _read(archive: tarfile.TarFile, names: list[str], suffix: str, path: Path) -> io.TextIOWrapper:
    member = archive.extractfile(find_member(names, suffix, path))
    if member is None:
        raise ValueError(f"{path}: {suffix} is not a regular file; delete the archive to download it again")
    return io.TextIOWrapper(member, encoding="utf-8", errors="replace")


def _table(archive, names, suffix, path) -> tuple[np.ndarray, np.ndarray, list[str] | None]:
    """A ``_R.dat`` file: a header line, then rows ``index, features..., class``."""
    with _read(archive, names, suffix, path) as handle:
        header = handle.readline().split()
        table = np.loadtxt(handle, ndmin=2, dtype=np.float64)
    count = table.shape[1] - 2  # the header may or may not name the index column
    features = header[len(header) - count - 1 : -1] if len(header) > count else None
    return table[:, 1:-1].astype(np.float32), table[:, -1].astype(np.int64), features


def _fold(archive, names, name: str, fold: int, path) -> tuple[np.ndarray, np.ndarray]:
    """The train and test indices of ``fold`` (lines ``2 fold`` and ``2 fold + 1``)."""
    with _read(archive, names, f"{name}/conxuntos_kfold.dat", path) as handle:
        lines = [line for line in handle if line.strip()]
    if len(lines) < 2 * N_FOLDS:
        raise ValueError(f"{path}: {name}/conxuntos_kfold.dat has {len(lines)} lines, expected {2 * N_FOLDS}")
    return tuple(np.array(lines[2 * fold + k].split(), dtype=np.int64) for k in (0, 1))


def fetch_uci(
    name: str,
    fold: int = 0,
    data_home: str | os.PathLike | None = None,
    download_if_missing: bool = True,
    return_X_y: bool = False,
) -> DatasetSplit | tuple:
    """One set of the UCI collection of Fernandez-Delgado et al. (2014), the 121 sets torchhd
    ships, with the collection's own split.

    The 19 sets with a published split (``adult``, ``monks-1``, ``optical``, ...) come as
    their ``_train_R.dat`` and ``_test_R.dat`` files. The other 102 come from one file,
    split by the collection's fold file ``conxuntos_kfold.dat``: fold ``k`` (0-3) trains on
    its line ``2 k`` and tests on line ``2 k + 1`` (the paper's 4-fold evaluation). Features
    are the collection's (standardised, categories coded as numbers). All 121 sets are in
    one archive (downloaded once, read in place).

    Parameters
    ----------
    name : str
        A name of :func:`uci_names` (case, ``-`` and ``_`` aside: torchhd's class names such
        as ``"BreastCancerWisc"`` work too).
    fold : int, default 0
        Which of the four folds (0-3); 0 for the sets with a published split.
    data_home : str or path-like, optional
        The cache folder (see :func:`get_data_home`).
    download_if_missing : bool, default True
        Download the archive when it is not in the cache; else raise ``FileNotFoundError``.
    return_X_y : bool, default False
        Return ``(X_train, y_train, X_test, y_test)`` instead of a :class:`DatasetSplit`.

    Returns
    -------
    DatasetSplit or tuple
        ``X_*`` float32 of shape ``(n, features)`` (``feature_names`` from the file's
        header), ``y_*`` int64 class codes.

    Examples
    --------
    >>> import tempfile
    >>> from holovec.datasets import fetch_uci
    >>> fetch_uci("iris", data_home=tempfile.mkdtemp(), download_if_missing=False)
    Traceback (most recent call last):
    FileNotFoundError: ... is not in the cache and download_if_missing=False: ...
    """
    folder = _BY_KEY.get(_key(name))
    if folder is None:
        raise ValueError(f"unknown UCI set {name!r}; uci_names() lists the 121")
    published = folder in TRAIN_TEST
    if fold not in (range(1) if published else range(N_FOLDS)):
        allowed = "0 (the set has a published split)" if published else f"0 .. {N_FOLDS - 1}"
        raise ValueError(f"fold must be {allowed} for {folder!r}, got {fold!r}")
    path = fetch_file("uci", _ARCHIVE, data_home, download_if_missing)
    try:
        archive = tarfile.open(path, "r:*")
    except (tarfile.TarError, OSError) as error:
        raise ValueError(f"{path} is not a tar archive ({error}); delete it to download it again") from None
    with archive:
        names = archive.getnames()
        if published:
            X_train, y_train, features = _table(archive, names, f"{folder}/{folder}_train_R.dat", path)
            X_test, y_test, _ = _table(archive, names, f"{folder}/{folder}_test_R.dat", path)
            how = "the published train and test files"
        else:
            X, y, features = _table(archive, names, f"{folder}/{folder}_R.dat", path)
            train, test = _fold(archive, names, folder, fold, path)
            X_train, y_train, X_test, y_test = X[train], y[train], X[test], y[test]
            how = f"fold {fold} of conxuntos_kfold.dat"
    split = DatasetSplit(
        folder,
        X_train,
        y_train,
        X_test,
        y_test,
        feature_names=features,
        description=f"UCI collection (Fernandez-Delgado et al. 2014): {folder}, split by {how}.",
    )
    return finish(split, return_X_y)
