"""Downloads: one file over HTTP(S) with the standard library, a progress bar (tqdm, when it
is installed) for long ones, into the cache atomically, or a clear error and no file."""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path

from ._cache import atomic_path, sha256_of, write_record

#: seconds a connection may stay silent
TIMEOUT = 60
#: a download longer than this (bytes), or of unknown length, shows a progress bar
PROGRESS_FROM = 1 << 20
_CHUNK = 1 << 16


def _progress(total: int | None, name: str):
    """A tqdm bar, or ``None`` where tqdm is missing or the download is short."""
    if total is not None and total < PROGRESS_FROM:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024, desc=name, leave=False)


def _stream(url: str, temporary: Path, name: str) -> None:
    """Write the body of ``url`` into ``temporary``; ``OSError`` when it ends early."""
    request = urllib.request.Request(url, headers={"User-Agent": "holovec-datasets"})
    with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
        if response.headers.get_content_type() == "text/html":
            raise OSError(
                f"{url} answered with an HTML page, not the file (a host's sign-in, quota or "
                "confirmation page)"
            )
        length = response.headers.get("Content-Length")
        total = int(length) if length and length.isdigit() else None
        bar = _progress(total, name)
        received = 0
        try:
            with open(temporary, "wb") as out:
                for block in iter(lambda: response.read(_CHUNK), b""):
                    out.write(block)
                    received += len(block)
                    if bar is not None:
                        bar.update(len(block))
        finally:
            if bar is not None:
                bar.close()
    if total is not None and received != total:
        raise OSError(f"truncated download from {url}: received {received} of {total} bytes")


def download(urls: list[str], target: Path, known_sha256: str | None = None) -> None:
    """Download ``target`` from the first of ``urls`` that answers, verify it and record its
    SHA-256 next to it.

    Nothing is left at ``target`` (nor a partial file in its folder) when every URL fails:
    then an ``OSError`` names the URLs tried, why each failed, and where to put the file by
    hand. A file that does not match ``known_sha256`` raises ``ValueError``.
    """
    failures = []
    for url in urls:
        try:
            with atomic_path(target) as temporary:
                _stream(url, temporary, target.name)
                digest = sha256_of(temporary)
                if known_sha256 and digest != known_sha256:
                    raise ValueError(
                        f"checksum mismatch for {target.name} downloaded from {url}: expected "
                        f"SHA-256 {known_sha256}, found {digest}; nothing was written to the cache"
                    )
            write_record(target, digest, url)
            return
        except urllib.error.HTTPError as error:
            failures.append(f"{url}: HTTP {error.code} {error.reason}")
        except (urllib.error.URLError, OSError) as error:
            failures.append(f"{url}: {getattr(error, 'reason', None) or error}")
    raise OSError(
        f"could not download {target.name}: " + "; ".join(failures) + ". Download it by hand from "
        f"{urls[0]} and place it at {target} (its SHA-256 is recorded at the first load)."
    )
