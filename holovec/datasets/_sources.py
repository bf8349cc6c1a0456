"""Where each downloaded data set comes from: the table of sources, and the one function
that gives a source's file in the cache (downloaded if missing, verified every time)."""

from __future__ import annotations

import os
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

from ._cache import get_data_home, verify
from ._download import download

#: the environment variable naming a mirror: file ``F`` of source ``S`` is then fetched from
#: ``<mirror>/S/F`` only (a local copy, a proxy, the tests' server)
MIRROR_ENV = "HOLOVEC_DATA_MIRROR"


def _google_drive(file_id: str) -> str:
    return f"https://drive.usercontent.google.com/download?id={file_id}&export=download&confirm=t"


@dataclass(frozen=True)
class Source:
    """One downloadable data set: its cache folder, its files and where each comes from.

    Parameters
    ----------
    key : str
        The set's folder in the cache (and its name under ``HOLOVEC_DATA_MIRROR``).
    files : dict of str to tuple of str
        Each file's name in the cache, and the URLs it is tried from, in order (mirrors).
    sha256 : dict of str to str, optional
        A published SHA-256 per file name, checked before the one recorded at first
        download. Empty for every source today (no checksum has been computed on a real
        download yet): the place to add one.
    """

    key: str
    files: dict[str, tuple[str, ...]]
    sha256: dict[str, str] = field(default_factory=dict)


_MNIST_FILES = (
    "train-images-idx3-ubyte.gz",
    "train-labels-idx1-ubyte.gz",
    "t10k-images-idx3-ubyte.gz",
    "t10k-labels-idx1-ubyte.gz",
)
_UCI_ARCHIVE = "https://archive.ics.uci.edu/ml/machine-learning-databases"

SOURCES: dict[str, Source] = {
    source.key: source
    for source in (
        # torchhd's copy of the UCI files isolet1+2+3+4.data and isolet5.data (zipped)
        Source("isolet", {"isolet.zip": (_google_drive("1IMC6xzs2kBnf5_kaiBUzSWiTMR_dFbIX"),)}),
        Source(
            "ucihar",
            {
                "UCI HAR Dataset.zip": (
                    f"{_UCI_ARCHIVE}/00240/UCI%20HAR%20Dataset.zip",
                    "https://archive.ics.uci.edu/static/public/240/human+activity+recognition+using+smartphones.zip",
                )
            },
        ),
        Source("emg", {"emg.zip": (_google_drive("1_9DYP1MwICtnMRm_F34xVvv1S2OhVnHH"),)}),
        Source(
            "pamap2",
            {
                "PAMAP2_Dataset.zip": (
                    f"{_UCI_ARCHIVE}/00231/PAMAP2_Dataset.zip",
                    "https://archive.ics.uci.edu/static/public/231/pamap2+physical+activity+monitoring.zip",
                )
            },
        ),
        Source(
            "european_languages",
            {"european_languages.zip": (_google_drive("1zCvjPf0R5pOR46CNBNMM60b_LwQKvltI"),)},
        ),
        # torchvision's mirrors of the IDX files
        Source(
            "mnist",
            {
                name: (
                    f"https://ossci-datasets.s3.amazonaws.com/mnist/{name}",
                    f"http://yann.lecun.com/exdb/mnist/{name}",
                )
                for name in _MNIST_FILES
            },
        ),
        Source(
            "fashion_mnist",
            {
                name: (f"http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/{name}",)
                for name in _MNIST_FILES
            },
        ),
        # Fernandez-Delgado et al.'s 121 sets, one archive (torchhd's copy, then the authors')
        Source(
            "uci",
            {
                "data_hundreds_classifiers.tar.gz": (
                    _google_drive("1Z3tEzCmR-yTvn1ZlAXaeAuVB5a9oCAkk"),
                    "http://persoal.citius.usc.es/manuel.fernandez.delgado/papers/jmlr/data.tar.gz",
                )
            },
        ),
    )
}


def source_urls(key: str, filename: str) -> list[str]:
    """The URLs file ``filename`` of source ``key`` is tried from: the mirror alone where
    ``HOLOVEC_DATA_MIRROR`` is set, else the source's own, in order."""
    mirror = os.environ.get(MIRROR_ENV)
    if mirror:
        return [f"{mirror.rstrip('/')}/{key}/{urllib.parse.quote(filename)}"]
    return list(SOURCES[key].files[filename])


def cached_path(key: str, filename: str, data_home: str | os.PathLike | None = None) -> Path:
    """Where file ``filename`` of source ``key`` lives in the cache (it may be missing)."""
    return get_data_home(data_home) / key / filename


def is_cached(key: str, data_home: str | os.PathLike | None = None) -> bool:
    """Whether every file of source ``key`` is in the cache (not verified)."""
    return all(cached_path(key, name, data_home).is_file() for name in SOURCES[key].files)


def fetch_file(
    key: str, filename: str, data_home: str | os.PathLike | None = None, download_if_missing: bool = True
) -> Path:
    """The path of a source's file in the cache: downloaded (and its SHA-256 recorded) when
    missing, else checked against the recorded SHA-256."""
    source = SOURCES[key]
    target = cached_path(key, filename, data_home)
    urls = source_urls(key, filename)
    known = source.sha256.get(filename)
    if target.is_file():
        verify(target, known, urls[0])
        return target
    if not download_if_missing:
        raise FileNotFoundError(
            f"{target} is not in the cache and download_if_missing=False: download it from "
            f"{urls[0]} and place it at {target}, or pass download_if_missing=True"
        )
    download(urls, target, known)
    return target
