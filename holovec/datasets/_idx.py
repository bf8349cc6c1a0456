"""Images in IDX files (gzip): MNIST and Fashion-MNIST."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import numpy as np

from ._result import DatasetSplit, finish
from ._sources import SOURCES, fetch_file

#: IDX type codes and the dtypes they name (big-endian)
_IDX_TYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}
FASHION_CLASSES = [
    "T-shirt/top",
    "trouser",
    "pullover",
    "dress",
    "coat",
    "sandal",
    "shirt",
    "sneaker",
    "bag",
    "boot",
]


def read_idx(path: Path) -> np.ndarray:
    """The array in a gzipped IDX file (its header: two zero bytes, the type code, the number
    of dimensions, then each dimension as a big-endian int32)."""
    try:
        with gzip.open(path, "rb") as handle:
            data = handle.read()
    except (OSError, EOFError) as error:
        raise ValueError(f"{path} is not a gzip file ({error}); delete it to download it again") from None
    if len(data) < 4 or data[:2] != b"\0\0" or data[2] not in _IDX_TYPES:
        raise ValueError(f"{path} is not an IDX file; delete it to download it again")
    dims = data[3]
    shape = tuple(int(n) for n in np.frombuffer(data, ">i4", count=dims, offset=4))
    dtype = np.dtype(_IDX_TYPES[data[2]])
    offset = 4 + 4 * dims
    if len(data) - offset != dtype.itemsize * int(np.prod(shape)):
        raise ValueError(f"{path}: the IDX header says {shape}, the file holds {len(data) - offset} bytes")
    return np.frombuffer(data, dtype, offset=offset).reshape(shape).astype(dtype.newbyteorder("="))


def _fetch_idx(key: str, data_home, download_if_missing: bool) -> list[np.ndarray]:
    arrays = []
    for name in SOURCES[key].files:  # train images, train labels, test images, test labels
        array = read_idx(fetch_file(key, name, data_home, download_if_missing))
        arrays.append(array.astype(np.int64) if "labels" in name else array)
    return arrays


def fetch_mnist(
    data_home: str | os.PathLike | None = None, download_if_missing: bool = True, return_X_y: bool = False
) -> DatasetSplit | tuple:
    """MNIST: 28 x 28 grey images of handwritten digits.

    The published split: 60000 train, 10000 test. Downloaded from torchvision's mirrors of
    the IDX files (``ossci-datasets.s3.amazonaws.com``, then ``yann.lecun.com``).

    Parameters
    ----------
    data_home : str or path-like, optional
        The cache folder (see :func:`get_data_home`).
    download_if_missing : bool, default True
        Download the files when they are not in the cache; else raise ``FileNotFoundError``.
    return_X_y : bool, default False
        Return ``(X_train, y_train, X_test, y_test)`` instead of a :class:`DatasetSplit`.

    Returns
    -------
    DatasetSplit or tuple
        ``X_*`` uint8 images of shape ``(n, 28, 28)``, ``y_*`` int64 in ``0 .. 9``.

    Examples
    --------
    >>> import tempfile
    >>> from holovec.datasets import fetch_mnist
    >>> fetch_mnist(data_home=tempfile.mkdtemp(), download_if_missing=False)
    Traceback (most recent call last):
    FileNotFoundError: ... is not in the cache and download_if_missing=False: ...
    """
    X_train, y_train, X_test, y_test = _fetch_idx("mnist", data_home, download_if_missing)
    split = DatasetSplit(
        "mnist",
        X_train,
        y_train,
        X_test,
        y_test,
        target_names=[str(k) for k in range(10)],
        description="MNIST (LeCun et al.): handwritten digits, the published 60000/10000 split.",
    )
    return finish(split, return_X_y)


def fetch_fashion_mnist(
    data_home: str | os.PathLike | None = None, download_if_missing: bool = True, return_X_y: bool = False
) -> DatasetSplit | tuple:
    """Fashion-MNIST: 28 x 28 grey images of ten kinds of clothing (Zalando).

    The published split: 60000 train, 10000 test, from the project's own S3 bucket.

    Parameters
    ----------
    data_home : str or path-like, optional
        The cache folder (see :func:`get_data_home`).
    download_if_missing : bool, default True
        Download the files when they are not in the cache; else raise ``FileNotFoundError``.
    return_X_y : bool, default False
        Return ``(X_train, y_train, X_test, y_test)`` instead of a :class:`DatasetSplit`.

    Returns
    -------
    DatasetSplit or tuple
        ``X_*`` uint8 images of shape ``(n, 28, 28)``, ``y_*`` int64 in ``0 .. 9``.

    Examples
    --------
    >>> import tempfile
    >>> from holovec.datasets import fetch_fashion_mnist
    >>> fetch_fashion_mnist(data_home=tempfile.mkdtemp(), download_if_missing=False)
    Traceback (most recent call last):
    FileNotFoundError: ... is not in the cache and download_if_missing=False: ...
    """
    X_train, y_train, X_test, y_test = _fetch_idx("fashion_mnist", data_home, download_if_missing)
    split = DatasetSplit(
        "fashion_mnist",
        X_train,
        y_train,
        X_test,
        y_test,
        target_names=FASHION_CLASSES,
        description="Fashion-MNIST (Xiao et al. 2017): clothing images, the published 60000/10000 split.",
    )
    return finish(split, return_X_y)
