"""Data sets for hyperdimensional computing, as NumPy arrays with their standard split.

Like scikit-learn's ``fetch_*``: a downloaded set is fetched once into a cache (the
``data_home`` argument, else the ``HOLOVEC_DATA`` environment variable, else
``~/holovec_data``) and read from there; an offline set comes from scikit-learn or from the
files inside aeon's wheel. Every loader returns a :class:`DatasetSplit` (``X_train``,
``y_train``, ``X_test``, ``y_test``, names and a description), or with ``return_X_y=True``
the tuple ``(X_train, y_train, X_test, y_test)``.

=================================  ==========================================================
:func:`fetch_isolet`               spoken letters, 617 features, 26 classes
:func:`fetch_ucihar`               smartphone activity recognition, 561 features
:func:`fetch_emg`                  EMG hand gestures, windows ``(n, 4, window)``
:func:`fetch_pamap2`               PAMAP2 physical activities, 52 sensor columns
:func:`fetch_european_languages`   sentences of 21 languages (strings)
:func:`fetch_mnist`                handwritten digits, ``(n, 28, 28)`` uint8
:func:`fetch_fashion_mnist`        clothing images, ``(n, 28, 28)`` uint8
:func:`fetch_uci`                  the 121 sets of Fernandez-Delgado et al. (:func:`uci_names`)
:func:`load_offline`               scikit-learn's digits, iris, wine, breast_cancer; aeon's
                                   UCR/UEA sets
:func:`available`, :func:`load`    every name (offline always, downloaded ones when cached)
=================================  ==========================================================

Downloads use the standard library (a tqdm progress bar when tqdm is installed) and are
written atomically; the SHA-256 of each file is recorded at its first download and checked
at every later load. ``HOLOVEC_DATA_MIRROR`` fetches file ``F`` of source ``S`` from
``<mirror>/S/F`` instead of the source's hosts. Importing this package imports only NumPy
and the standard library.

>>> from holovec.datasets import available, uci_names
>>> uci_names()[:2]
['abalone', 'acute-inflammation']
>>> "uci/iris" in available()
True
"""

from ._cache import get_data_home
from ._idx import fetch_fashion_mnist, fetch_mnist
from ._listing import available, load
from ._offline import load_offline
from ._result import DatasetSplit
from ._signals import fetch_emg
from ._sources import SOURCES, Source
from ._tabular import fetch_isolet, fetch_pamap2, fetch_ucihar
from ._text import fetch_european_languages
from ._uci import fetch_uci, uci_names

__all__ = [
    "SOURCES",
    "DatasetSplit",
    "Source",
    "available",
    "fetch_emg",
    "fetch_european_languages",
    "fetch_fashion_mnist",
    "fetch_isolet",
    "fetch_mnist",
    "fetch_pamap2",
    "fetch_uci",
    "fetch_ucihar",
    "get_data_home",
    "load",
    "load_offline",
    "uci_names",
]
