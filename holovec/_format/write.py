"""Writing an archive: the record with its checksums, the zip of ``.npy`` members, and
the atomic replacement of the file (a failure part-way leaves the previous file whole)."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import stat
import zipfile
from collections.abc import Callable, Mapping
from os import PathLike
from typing import Any, BinaryIO

import numpy as np

from .checksums import CHECKSUMS, Checksums
from .common import ARRAY_NAME, short_repr
from .files import kind_of_file


def archive_record(
    *,
    format: str,
    version: int,
    metadata: Mapping[str, Any],
    arrays: Mapping[str, np.ndarray],
    checksums: Checksums = CHECKSUMS,
) -> dict[str, Any]:
    """The JSON record :func:`write_archive` stores: ``format``, ``version``, the fields of
    ``metadata`` and the checksums of ``arrays`` (NumPy arrays as they will be stored)."""
    if not isinstance(format, str) or isinstance(version, bool) or not isinstance(version, int):
        raise TypeError(f"format must be a str and version an int, got {format!r} and {version!r}")
    reserved = {"format", "version", *checksums.fields} & set(metadata)
    if reserved:
        raise ValueError(f"metadata fields {sorted(reserved)} are written by the archive itself")
    _check_json_keys(metadata, "metadata")
    record = {"format": format, "version": version, **metadata}
    checksums.sign(record, arrays)
    return record


def write_archive(
    file: str | PathLike | Any,
    *,
    format: str,
    version: int,
    metadata: Mapping[str, Any],
    arrays: Mapping[str, np.ndarray],
    checksums: Checksums = CHECKSUMS,
) -> None:
    """Write ``arrays`` (name -> NumPy array of numbers) and the JSON-able ``metadata`` to
    ``file`` (a path, ``.npz`` added if missing, or a binary file object); no pickle.

    Names are identifiers other than ``metadata``; tuples in ``metadata`` come back as
    lists. ``TypeError`` for an array that is no NumPy array of numbers (bfloat16: store it
    as float32) or metadata that JSON cannot hold; ``ValueError`` for a bad name, or a path
    that is a directory, a device or a pipe.

    A path is written atomically: to a new file in the same folder (mode as a new file
    gets, or the mode of the file replaced), renamed over ``file`` once complete and
    flushed to disk, so that a failure part-way (a full disk) leaves the previous file
    whole. A file object is written directly, so not atomically."""
    stored: dict[str, np.ndarray] = {}
    for name, array in arrays.items():
        if not isinstance(name, str) or not ARRAY_NAME.fullmatch(name) or name == "metadata":
            raise ValueError(
                f"array name {short_repr(name)}: expected an identifier (letters, digits, _) "
                "other than 'metadata'"
            )
        if not isinstance(array, np.ndarray):
            raise TypeError(f"array {name!r}: expected a NumPy array, got {type(array).__name__}")
        if array.dtype.kind not in "biufc" or array.dtype.names is not None:
            raise TypeError(f"array {name!r}: cannot store dtype {array.dtype}; only numbers (b, i, u, f, c)")
        stored[name] = np.asarray(array, order="C")
    record = archive_record(
        format=format, version=version, metadata=metadata, arrays=stored, checksums=checksums
    )
    stored["metadata"] = np.array(json.dumps(record))
    if not isinstance(file, (str, PathLike)):
        _write_zip(file, stored)
        return
    path = os.fsdecode(file)
    if not path.endswith(".npz"):
        path += ".npz"  # as np.savez does
    _replace_atomically(path, lambda f: _write_zip(f, stored))


def _write_zip(file: BinaryIO, stored: Mapping[str, np.ndarray]) -> None:
    with zipfile.ZipFile(file, mode="w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        for name, array in stored.items():
            with zf.open(name + ".npy", "w", force_zip64=True) as f:
                np.lib.format.write_array(f, array, allow_pickle=False)


def _replace_atomically(path: str, write: Callable[[BinaryIO], None]) -> None:
    """Call ``write`` on a new file beside ``path``, then rename it to ``path`` once it is
    complete and on disk: a write that fails part-way (a full disk, an interrupt) leaves
    the file that was there whole, and no partial file behind. ``ValueError`` if ``path``
    is a directory, a device or a pipe (a file is never renamed over one)."""
    target = os.path.realpath(path)  # through symbolic links, as writing in place would
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    kind = kind_of_file(mode)
    if kind is not None:
        raise ValueError(f"{path} is {kind}, not a regular file: holovec writes archives to regular files")
    folder, name = os.path.split(target)
    temporary = os.path.join(folder, f".{name[:100]}.{secrets.token_hex(8)}.tmp")
    # a new file, as open(path, "wb") makes one: mode 0o666 less the umask; O_EXCL: never an
    # existing file (or a link planted there)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    fd = os.open(temporary, flags, 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        if mode is not None:  # an existing file keeps its permissions, as when written in place
            os.chmod(temporary, stat.S_IMODE(mode))
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(temporary)
        raise


def _check_json_keys(value: Any, where: str) -> None:
    """``TypeError`` for a dict key that JSON would turn into a string (it would not come back)."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"{where}: key {key!r} is no string; JSON objects have string keys")
            _check_json_keys(item, f"{where}[{key!r}]")
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _check_json_keys(item, f"{where}[{i}]")
