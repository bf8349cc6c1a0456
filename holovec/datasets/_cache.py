"""The cache: where the data lives, atomic writes and the SHA-256 recorded at first download.

Every downloaded file ``F`` has a record ``F.sha256.json`` next to it, written when ``F``
was downloaded (or the first time a file placed there by hand is read): its SHA-256, size
and the URL it came from. Every later load hashes ``F`` again and compares.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

#: the environment variable naming the cache folder
DATA_ENV = "HOLOVEC_DATA"
#: the suffix of a file's checksum record
RECORD_SUFFIX = ".sha256.json"


def get_data_home(data_home: str | os.PathLike | None = None) -> Path:
    """The folder holding holovec's downloaded data sets, created if missing.

    Parameters
    ----------
    data_home : str or path-like, optional
        The folder. By default the ``HOLOVEC_DATA`` environment variable, else
        ``~/holovec_data``. ``~`` is expanded.

    Returns
    -------
    pathlib.Path
        The folder (it exists on return).

    Examples
    --------
    >>> import tempfile
    >>> from holovec.datasets import get_data_home
    >>> get_data_home(tempfile.mkdtemp()).is_dir()
    True
    """
    if data_home is None:
        data_home = os.environ.get(DATA_ENV) or os.path.join("~", "holovec_data")
    home = Path(data_home).expanduser()
    home.mkdir(parents=True, exist_ok=True)
    return home


def sha256_of(path: Path, chunk: int = 1 << 20) -> str:
    """The hex SHA-256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(chunk), b""):
            digest.update(block)
    return digest.hexdigest()


@contextlib.contextmanager
def atomic_path(target: Path) -> Iterator[Path]:
    """A temporary path in ``target``'s folder, moved onto ``target`` (``os.replace``) when
    the block ends without an error, and removed when it raises."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(prefix="." + target.name + ".", suffix=".part", dir=target.parent)
    os.close(handle)
    temporary = Path(name)
    try:
        yield temporary
        os.replace(temporary, target)
    finally:
        if temporary.exists():
            temporary.unlink()


def record_path(path: Path) -> Path:
    """Where the checksum record of ``path`` lives."""
    return path.with_name(path.name + RECORD_SUFFIX)


def write_record(path: Path, digest: str, url: str) -> None:
    """Record ``digest`` (and the size and origin) of ``path``, atomically."""
    record = {"file": path.name, "sha256": digest, "size": path.stat().st_size, "url": url}
    with atomic_path(record_path(path)) as temporary:
        temporary.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


def recorded_digest(path: Path) -> str | None:
    """The SHA-256 recorded for ``path``, or ``None`` where there is no (readable) record."""
    try:
        return json.loads(record_path(path).read_text(encoding="utf-8"))["sha256"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def mismatch(path: Path, expected: str, found: str, why: str) -> ValueError:
    """The error of a file whose SHA-256 is not the one expected."""
    return ValueError(
        f"checksum mismatch for {path}: expected SHA-256 {expected} ({why}), found {found}. "
        f"The file is damaged or was changed; delete it (and {record_path(path).name}) "
        "to download it again."
    )


def verify(path: Path, known: str | None, url: str) -> None:
    """Check ``path`` against its known checksum (a source's published one) and the one recorded
    at its first download; record it where nothing was recorded yet (a file put there by hand)."""
    found = sha256_of(path)
    if known and found != known:
        raise mismatch(path, known, found, "the published checksum of the source")
    recorded = recorded_digest(path)
    if recorded is None:
        write_record(path, found, url)
    elif recorded != found:
        raise mismatch(path, recorded, found, f"recorded at its first download in {record_path(path)}")
