"""Which files the archive format reads and writes: regular files only (a device such
as ``/dev/zero`` reads forever, opening a named pipe waits for a writer), and how messages
name a file."""

from __future__ import annotations

import os
import stat
from os import PathLike
from typing import Any, BinaryIO


def source_name(source: Any, what: str = "holovec") -> Any:
    """How messages name ``source``: the path, or the name of a file object (if it has one)."""
    if is_file(source):
        name = getattr(source, "name", None)
        return name if isinstance(name, (str, bytes, PathLike)) else f"the {what} file"
    return source


def is_file(source: Any) -> bool:
    return hasattr(source, "read") and hasattr(source, "seek")


def open_regular(path: str | bytes | PathLike, where: Any, what: str) -> BinaryIO:
    """``path`` opened for reading if it is a regular file: a device (``/dev/zero`` reads
    forever), a named pipe (whose opening waits for a writer) or a directory is refused
    with a ``ValueError``. ``OSError`` (a missing file, no permission) as ``open`` raises it."""
    check_regular(os.stat(path).st_mode, where, what)
    # opened without waiting, should a pipe take the file's place meanwhile; checked again
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0))
    try:
        check_regular(os.fstat(fd).st_mode, where, what)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def file_mode(fh: Any) -> int | None:
    """The ``st_mode`` of the file behind the file object ``fh`` (None for one without a
    file descriptor, such as ``io.BytesIO``)."""
    try:
        return os.fstat(fh.fileno()).st_mode
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both of the last
        return None


def check_regular(mode: int | None, where: Any, what: str) -> None:
    """``ValueError`` naming ``where`` and what it is, unless ``mode`` is a regular file's
    (or unknown: None)."""
    kind = kind_of_file(mode)
    if kind is not None:
        raise ValueError(
            f"{where} is {kind}, not a regular file (holovec reads {what} files from regular files only)"
        )


def kind_of_file(mode: int | None) -> str | None:
    """What a file of ``st_mode`` ``mode`` is, unless a regular file (or unknown): None."""
    if mode is None or stat.S_ISREG(mode):
        return None
    kinds = (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((name for is_kind, name in kinds if is_kind(mode)), "no regular file")
