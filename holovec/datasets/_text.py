"""Text: the European languages set (one sentence a sample)."""

from __future__ import annotations

import os

import numpy as np

from ._archive import open_zip, text_member
from ._result import DatasetSplit, finish
from ._sources import fetch_file

#: (file code, language), in label order
LANGUAGES = (
    ("bul", "Bulgarian"), ("ces", "Czech"), ("dan", "Danish"), ("nld", "Dutch"), ("deu", "German"),
    ("eng", "English"), ("est", "Estonian"), ("fin", "Finnish"), ("fra", "French"), ("ell", "Greek"),
    ("hun", "Hungarian"), ("ita", "Italian"), ("lav", "Latvian"), ("lit", "Lithuanian"),
    ("pol", "Polish"), ("por", "Portuguese"), ("ron", "Romanian"), ("slk", "Slovak"),
    ("slv", "Slovenian"), ("spa", "Spanish"), ("swe", "Swedish"),
)  # fmt: skip


def _lines(archive, member: str, path) -> list[str]:
    """The non-empty lines of a member, whitespace runs made one space."""
    with text_member(archive, member, path) as handle:
        return [text for text in (" ".join(line.split()) for line in handle) if text]


def fetch_european_languages(
    data_home: str | os.PathLike | None = None, download_if_missing: bool = True, return_X_y: bool = False
) -> DatasetSplit | tuple:
    """European languages (Joshi, Halseth and Kanerva 2016): sentences of 21 languages.

    The published split: training text from the Wortschatz corpora (``training/<code>.txt``),
    test sentences from the Europarl corpus (``testing/<code>.txt``); each non-empty line is
    a sample. Downloaded from torchhd's copy.

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
        ``X_*`` object arrays of ``str`` of shape ``(n,)``, ``y_*`` int64 in ``0 .. 20``
        (``target_names`` the languages).

    Examples
    --------
    >>> import tempfile
    >>> from holovec.datasets import fetch_european_languages
    >>> fetch_european_languages(data_home=tempfile.mkdtemp(), download_if_missing=False)
    Traceback (most recent call last):
    FileNotFoundError: ... is not in the cache and download_if_missing=False: ...
    """
    path = fetch_file("european_languages", "european_languages.zip", data_home, download_if_missing)
    parts = []
    with open_zip(path, "training/eng.txt") as archive:
        for folder in ("training", "testing"):
            texts, labels = [], []
            for label, (code, _) in enumerate(LANGUAGES):
                lines = _lines(archive, f"{folder}/{code}.txt", path)
                texts += lines
                labels += [label] * len(lines)
            parts += [np.array(texts, dtype=object), np.array(labels, dtype=np.int64)]
    split = DatasetSplit(
        "european_languages",
        *parts,
        target_names=[language for _, language in LANGUAGES],
        description="European languages: train Wortschatz text, test Europarl sentences, 21 languages.",
    )
    return finish(split, return_X_y)
