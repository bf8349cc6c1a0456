"""One list of every set, and one loader by name over it."""

from __future__ import annotations

import os

from ._idx import fetch_fashion_mnist, fetch_mnist
from ._offline import load_offline, offline_names
from ._result import DatasetSplit
from ._signals import fetch_emg
from ._sources import is_cached
from ._tabular import fetch_isolet, fetch_pamap2, fetch_ucihar
from ._text import fetch_european_languages
from ._uci import fetch_uci, uci_names

#: the downloaded sets by name, and the source (cache folder) each reads
FETCHERS = {
    "isolet": (fetch_isolet, "isolet"),
    "ucihar": (fetch_ucihar, "ucihar"),
    "emg": (fetch_emg, "emg"),
    "pamap2": (fetch_pamap2, "pamap2"),
    "european_languages": (fetch_european_languages, "european_languages"),
    "mnist": (fetch_mnist, "mnist"),
    "fashion_mnist": (fetch_fashion_mnist, "fashion_mnist"),
}
#: the prefix of the UCI collection's sets in :func:`available`
UCI_PREFIX = "uci/"


def available(cached_only: bool = False, data_home: str | os.PathLike | None = None) -> list[str]:
    """The names :func:`load` takes: the offline sets always (those this installation can
    read), then the downloaded ones, all or only those whose files are in the cache.

    Parameters
    ----------
    cached_only : bool, default False
        List a downloaded set only when its files are in the cache (so that loading it needs
        no network; the files are verified when loaded, not here).
    data_home : str or path-like, optional
        The cache folder (see :func:`get_data_home`).

    Returns
    -------
    list of str
        Offline names (``"digits"``, ``"GunPoint"``, ...), then ``"isolet"``, ``"mnist"``,
        ..., then the UCI collection's as ``"uci/<name>"``.

    Examples
    --------
    >>> import tempfile
    >>> from holovec.datasets import available
    >>> "uci/iris" in available()
    True
    >>> "mnist" in available(cached_only=True, data_home=tempfile.mkdtemp())
    False
    """
    names = offline_names()
    names += [name for name, (_, key) in FETCHERS.items() if not cached_only or is_cached(key, data_home)]
    if not cached_only or is_cached("uci", data_home):
        names += [UCI_PREFIX + name for name in uci_names()]
    return names


def load(
    name: str,
    data_home: str | os.PathLike | None = None,
    download_if_missing: bool = True,
    return_X_y: bool = False,
) -> DatasetSplit | tuple:
    """Any set of :func:`available` by name, with its loader's defaults.

    Parameters
    ----------
    name : str
        A name :func:`available` lists: an offline set, a downloaded one (``"isolet"``) or
        ``"uci/<name>"`` (fold 0).
    data_home : str or path-like, optional
        The cache folder (see :func:`get_data_home`); unused by the offline sets.
    download_if_missing : bool, default True
        Download the files when they are not in the cache; else raise ``FileNotFoundError``.
    return_X_y : bool, default False
        Return ``(X_train, y_train, X_test, y_test)`` instead of a :class:`DatasetSplit`.

    Returns
    -------
    DatasetSplit or tuple
        What the set's own loader returns.

    Examples
    --------
    >>> import tempfile
    >>> from holovec.datasets import load
    >>> load("uci/iris", data_home=tempfile.mkdtemp(), download_if_missing=False)
    Traceback (most recent call last):
    FileNotFoundError: ... is not in the cache and download_if_missing=False: ...
    >>> load("digits").X_train.shape  # needs scikit-learn  # doctest: +SKIP
    (1347, 64)
    """
    if name in FETCHERS:
        return FETCHERS[name][0](data_home, download_if_missing, return_X_y)
    if name.startswith(UCI_PREFIX):
        return fetch_uci(name[len(UCI_PREFIX) :], 0, data_home, download_if_missing, return_X_y)
    return load_offline(name, return_X_y)
