"""Sets that need no download: scikit-learn's small tables and the UCR/UEA series inside
aeon's wheel, through the same :class:`DatasetSplit`."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

from ._result import DatasetSplit, encode_labels, finish

#: scikit-learn's loaders (``sklearn.datasets.load_<name>``)
SKLEARN_SETS = ("breast_cancer", "digits", "iris", "wine")
#: the classification sets inside aeon's wheel; those of unequal length are read from aeon's
#: equal-length files (``<name>_eq_TRAIN.ts``)
AEON_SETS = (
    "ACSF1", "ArrowHead", "BasicMotions", "GunPoint", "ItalyPowerDemand", "JapaneseVowels", "OSULeaf",
    "PickupGestureWiimoteZ",
)  # fmt: skip
UNEQUAL_LENGTH = ("JapaneseVowels", "PickupGestureWiimoteZ")
#: the split of scikit-learn's sets (``sklearn.model_selection.train_test_split``)
TEST_SIZE, RANDOM_STATE = 0.25, 0


def _aeon_file(name: str, part: str) -> Path | None:
    """Where aeon's wheel holds ``<name>[_eq]_<part>.ts`` (found without importing aeon)."""
    spec = importlib.util.find_spec("aeon")
    if spec is None or not spec.submodule_search_locations:
        return None
    infix = "_eq" if name in UNEQUAL_LENGTH else ""
    path = Path(next(iter(spec.submodule_search_locations))) / "datasets" / "data" / name
    return path / f"{name}{infix}_{part}.ts"


def offline_names() -> list[str]:
    """The offline sets this installation can load: scikit-learn's where scikit-learn is
    installed, aeon's where its wheel holds the files."""
    names = list(SKLEARN_SETS) if importlib.util.find_spec("sklearn") is not None else []
    for name in AEON_SETS:
        path = _aeon_file(name, "TRAIN")
        if (
            path is not None
            and path.is_file()
            and path.with_name(path.name.replace("TRAIN", "TEST")).is_file()
        ):
            names.append(name)
    return names


def _sklearn(name: str) -> DatasetSplit:
    try:
        from sklearn import datasets
        from sklearn.model_selection import train_test_split
    except ImportError:
        raise ImportError(f"the {name!r} set needs scikit-learn: pip install holovec[learn]") from None
    bunch = getattr(datasets, f"load_{name}")()
    X, y = np.asarray(bunch.data, dtype=np.float64), np.asarray(bunch.target, dtype=np.int64)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=TEST_SIZE, random_state=RANDOM_STATE, stratify=y
    )
    names = getattr(bunch, "feature_names", None)
    return DatasetSplit(
        name,
        X_train,
        y_train,
        X_test,
        y_test,
        feature_names=[str(f) for f in names] if names is not None else None,
        target_names=[str(t) for t in bunch.target_names],
        description=f"scikit-learn's load_{name}; train_test_split(test_size={TEST_SIZE}, "
        f"random_state={RANDOM_STATE}, stratify=y).",
    )


def _aeon(name: str) -> DatasetSplit:
    try:
        from aeon.datasets import load_from_ts_file
    except ImportError:
        raise ImportError(f"the {name!r} set needs aeon: pip install holovec[timeseries]") from None
    parts = []
    for part in ("TRAIN", "TEST"):
        path = _aeon_file(name, part)
        if path is None or not path.is_file():
            raise FileNotFoundError(f"the installed aeon has no {name} {part} file (looked for {path})")
        X, y = load_from_ts_file(str(path))
        parts += [np.asarray(X, dtype=np.float64), y]
    y_train, y_test, classes = encode_labels(parts[1], parts[3])
    kind = "aeon's equal-length version" if name in UNEQUAL_LENGTH else "its TRAIN/TEST files"
    return DatasetSplit(
        name,
        parts[0],
        y_train,
        parts[2],
        y_test,
        target_names=classes,
        description=f"UCR/UEA {name} from aeon's wheel, {kind}; series (n, channels, length).",
    )


def load_offline(name: str, return_X_y: bool = False) -> DatasetSplit | tuple:
    """A set that needs no download, with its train/test split.

    scikit-learn's ``digits``, ``iris``, ``wine`` and ``breast_cancer`` (``X`` float64
    ``(n, features)``), split by ``train_test_split(X, y, test_size=0.25, random_state=0,
    stratify=y)``. The UCR/UEA classification sets inside aeon's wheel (``ACSF1``,
    ``ArrowHead``, ``BasicMotions``, ``GunPoint``, ``ItalyPowerDemand``, ``JapaneseVowels``,
    ``OSULeaf``, ``PickupGestureWiimoteZ``) with their published TRAIN/TEST files, series as
    float64 ``(n, channels, length)``; the two of unequal length (``JapaneseVowels``,
    ``PickupGestureWiimoteZ``) come as aeon's equal-length files (``_eq``, shipped with
    them). Labels are ``0 .. k - 1`` in sorted order of the original class labels
    (``target_names``). Read from the files aeon installs, never downloaded.

    Parameters
    ----------
    name : str
        One of :func:`available`'s offline names (``"digits"``, ``"GunPoint"``, ...).
    return_X_y : bool, default False
        Return ``(X_train, y_train, X_test, y_test)`` instead of a :class:`DatasetSplit`.

    Returns
    -------
    DatasetSplit or tuple
        The split, or its arrays.

    Raises
    ------
    ImportError
        Where scikit-learn (``holovec[learn]``) or aeon (``holovec[timeseries]``) is missing.

    Examples
    --------
    >>> from holovec.datasets import load_offline
    >>> X_train, y_train, X_test, y_test = load_offline("iris", return_X_y=True)
    >>> X_train.shape, X_test.shape
    ((112, 4), (38, 4))
    """
    if name in SKLEARN_SETS:
        split = _sklearn(name)
    elif name in AEON_SETS:
        split = _aeon(name)
    else:
        raise ValueError(f"unknown offline set {name!r}; choose from {SKLEARN_SETS + AEON_SETS}")
    return finish(split, return_X_y)
