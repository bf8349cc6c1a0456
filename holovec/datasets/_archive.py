"""Reading members of a downloaded archive in place (no extraction): zip files, a zip inside
a zip (the UCI repository's newer bundles), and text members as NumPy arrays."""

from __future__ import annotations

import contextlib
import io
import zipfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np


def find_member(names: list[str], suffix: str, archive: Path) -> str:
    """The member named ``suffix`` or ending in ``/suffix`` (the shortest such name)."""
    found = [name for name in names if name == suffix or name.endswith("/" + suffix)]
    if not found:
        raise ValueError(
            f"{archive} holds no file {suffix!r}: is it the right archive? Delete it to download it again."
        )
    return min(found, key=len)


@contextlib.contextmanager
def open_zip(path: Path, probe: str) -> Iterator[zipfile.ZipFile]:
    """The zip file at ``path``, or the zip inside it when only that one holds ``probe``."""
    try:
        outer = zipfile.ZipFile(path)
    except zipfile.BadZipFile as error:
        raise ValueError(f"{path} is not a zip file ({error}); delete it to download it again") from None
    with outer:
        names = outer.namelist()
        if any(name == probe or name.endswith("/" + probe) for name in names):
            yield outer
            return
        inner = [name for name in names if name.endswith(".zip")]
        if len(inner) != 1:
            find_member(names, probe, path)  # raises, naming the file sought
        with outer.open(inner[0]) as handle, zipfile.ZipFile(handle) as nested:
            yield nested


def text_member(archive: zipfile.ZipFile, suffix: str, path: Path) -> io.TextIOWrapper:
    """A text stream over the member ending in ``suffix``."""
    name = find_member(archive.namelist(), suffix, path)
    return io.TextIOWrapper(archive.open(name), encoding="utf-8", errors="replace")


def load_table(archive: zipfile.ZipFile, suffix: str, path: Path, **options) -> np.ndarray:
    """A numeric text member read with ``np.loadtxt`` (streamed, two-dimensional)."""
    with text_member(archive, suffix, path) as handle:
        return np.loadtxt(handle, ndmin=2, **options)
