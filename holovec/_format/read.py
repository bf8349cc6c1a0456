"""Reading an archive: every name, dtype, shape and size checked against the file
before any data is read (see :mod:`holovec._format`), so that a crafted or damaged file
is refused with a ``ValueError`` using memory bounded by the file's own size."""

from __future__ import annotations

import io
import math
import struct
import zipfile
from collections.abc import Callable, Collection, Mapping
from os import PathLike
from typing import Any, NamedTuple

import numpy as np

from .checksums import CHECKSUMS, Checksums
from .common import ARRAY_NAME, ArchiveError, Header, short_repr
from .files import check_regular, file_mode, is_file, open_regular, source_name
from .npy import array_header, read_array, read_metadata

#: the metadata record may hold this many bytes (UTF-32, as NumPy stores strings) ...
METADATA_BYTES = 64 * 2**20
#: ... plus this many per row (first axis) of the arrays, e.g. a label per vector
METADATA_BYTES_PER_ROW = 4096
#: the largest model dim a file may name when none of its arrays holds a vector of that dim
#: (an empty memory or codebook saves arrays of no rows, whose width is a number in a
#: header, backed by no bytes): making a model takes memory in proportion to its dim (10 to
#: 80 bytes an element), so such a file is bounded by this limit instead (a larger one loads
#: into a model made beforehand: ``load(path, model)``)
MAX_UNBACKED_DIM = 2**20
#: deflate expands data at most 1032-fold: a member that declares more is crafted
_DEFLATE_RATIO = 1032
#: a zip member's local header: signature, 5 shorts, 3 longs, name and extra lengths
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")


def read_archive(
    source: str | PathLike | Any,
    *,
    format: str,
    versions: int | Collection[int],
    what: str,
    arrays: Collection[str] | None = None,
    check: Callable[[dict[str, Any], dict[str, Header]], None] | None = None,
    checksums: Checksums = CHECKSUMS,
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The record and the arrays (native byte order, checksums verified) of the archive
    ``source`` (a path or a binary file object) of ``format`` in one of ``versions``.

    ``arrays``: the names the archive must hold (default: any identifiers). ``check(record,
    headers)`` runs after the record's checksum holds and before any array data is read; a
    ``ValueError`` it raises is refused like the reader's own. ``what`` names the file in
    messages ("codebook"). Anything truncated, tampered, crafted, of another format or
    version, or no regular file (a device, a named pipe, a directory) raises
    ``ValueError`` naming the file and the problem; a missing file ``FileNotFoundError``
    (and a file that cannot be opened the ``OSError`` of opening it); a source of another
    type ``TypeError``."""
    if not isinstance(source, (str, bytes, PathLike)) and not is_file(source):
        raise TypeError(f"path must be a file name, a path or a binary file, got {type(source).__name__}")
    where = source_name(source, what)
    spec = _Spec(
        format, {versions} if isinstance(versions, int) else set(versions), what, arrays, check, checksums
    )
    if is_file(source):
        check_regular(file_mode(source), where, what)
        return _read_or_refuse(source, where, spec)
    with open_regular(source, where, what) as fh:
        return _read_or_refuse(fh, where, spec)


def _read_or_refuse(fh: Any, where: Any, spec: _Spec) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """:func:`_read`, whose every failure is a ``ValueError`` naming ``where``."""
    try:
        return _read(fh, where, spec)
    except ArchiveError as e:
        raise ValueError(f"{where}: {e}") from None
    except Exception as e:  # whatever a damaged archive makes zipfile, zlib or NumPy raise
        unreadable = f"not a readable holovec {spec.what} file (truncated or corrupt?)"
        raise ValueError(f"{where}: {unreadable}: {type(e).__name__}: {e}") from e


class _Spec(NamedTuple):
    format: str
    versions: set[int]
    what: str
    arrays: Collection[str] | None
    check: Callable[[dict[str, Any], dict[str, Header]], None] | None
    checksums: Checksums


def _read(fh: Any, where: Any, spec: _Spec) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    fh.seek(0, io.SEEK_END)
    size = fh.tell()
    fh.seek(0)
    if not zipfile.is_zipfile(fh):
        raise ArchiveError(
            f"not a holovec {spec.what} file (a .npz zip archive); a plain .npy file or something else "
            "was given"
        )
    fh.seek(0)
    with zipfile.ZipFile(fh) as zf:
        members = _members(zf, spec)
        _check_extents(fh, members, size, getattr(zf, "start_dir", size))
        headers, offsets, rows = {}, {}, 0
        for name, info in members.items():
            if name != "metadata":
                headers[name], offsets[name] = array_header(zf, info, name)
                shape = headers[name].shape
                rows += shape[0] if shape and math.prod(shape[1:]) > 0 else 0  # at most the file's bytes
        meta = read_metadata(
            zf, members["metadata"], spec.what, METADATA_BYTES + METADATA_BYTES_PER_ROW * rows
        )
        _check_format(meta, spec)
        try:
            spec.checksums.check_fields(meta, list(headers))
            if spec.check is not None:
                spec.check(meta, headers)
        except ArchiveError:
            raise
        except ValueError as e:  # the caller's checks: refused like the reader's own
            raise ArchiveError(str(e)) from None
        out = {}
        for name, (shape, dtype) in headers.items():
            h = spec.checksums.array_hash(meta, name, dtype, shape)
            expected = spec.checksums.array_digest(meta, name)
            mismatch = spec.checksums.mismatch(name)
            out[name] = read_array(
                zf, members[name], offsets[name], name, headers[name], h, expected, mismatch
            )
    for name, array in out.items():
        if not array.dtype.isnative:  # written on a machine of the other byte order: same values
            out[name] = array.astype(array.dtype.newbyteorder("="))
    return meta, out


def _members(zf: zipfile.ZipFile, spec: _Spec) -> dict[str, zipfile.ZipInfo]:
    """The archive's members by name, checked: the names expected, not encrypted, stored or
    deflated, sizes that the archive can hold (deflate expands at most 1032-fold)."""
    found: dict[str, zipfile.ZipInfo] = {}
    for info in zf.infolist():
        key = info.filename.removesuffix(".npy")
        if key in found:
            raise ArchiveError(f"the archive holds {short_repr(key)} twice")
        found[key] = info
    names = sorted(found)
    shown = ", ".join(short_repr(n) for n in names[:5]) + (", ..." if len(names) > 5 else "")
    if spec.arrays is not None and set(found) != {*spec.arrays, "metadata"}:
        expected = ", ".join(repr(n) for n in sorted(spec.arrays)) + " and 'metadata'"
        raise ArchiveError(
            f"not a valid holovec {spec.what} file: expected arrays {expected}, found [{shown}]"
        )
    if "metadata" not in found or not all(ARRAY_NAME.fullmatch(n) for n in found):
        raise ArchiveError(
            f"not a valid holovec {spec.what} file: expected arrays named by identifiers and "
            f"'metadata', found [{shown}]"
        )
    for key, info in found.items():
        if info.flag_bits & 0x1:
            raise ArchiveError(f"the {key} member is encrypted")
        if info.compress_type == zipfile.ZIP_STORED:
            if info.compress_size != info.file_size:
                raise ArchiveError(f"the {key} member's sizes disagree (stored, not compressed)")
        elif info.compress_type == zipfile.ZIP_DEFLATED:
            if info.file_size > _DEFLATE_RATIO * info.compress_size + 1024:
                raise ArchiveError(
                    f"the {key} member declares {info.file_size} bytes from {info.compress_size} "
                    "compressed ones, more than deflate can produce"
                )
        else:
            raise ArchiveError(
                f"the {key} member uses compression method {info.compress_type}; "
                "holovec reads stored or deflated members"
            )
    return found


def _check_extents(fh: Any, members: Mapping[str, zipfile.ZipInfo], size: int, directory: int) -> None:
    """``ArchiveError`` unless each member (local header, name, extra field, data) ends
    within the file and before the next member, or the zip directory at offset
    ``directory``, begins: overlapping members (which Python's zipfile before 3.12 does not
    refuse) would let a small file hold many large arrays."""
    by_offset = sorted(members.items(), key=lambda item: item[1].header_offset)
    for i, (key, info) in enumerate(by_offset):
        fh.seek(info.header_offset)
        local = fh.read(_LOCAL_HEADER.size)
        if len(local) != _LOCAL_HEADER.size or local[:4] != b"PK\x03\x04":
            raise ArchiveError(f"the {key} member has no local header where the zip directory says")
        name_len, extra_len = _LOCAL_HEADER.unpack(local)[-2:]
        end = info.header_offset + _LOCAL_HEADER.size + name_len + extra_len + info.compress_size
        if end > size:
            raise ArchiveError(f"the {key} member ends past the end of the file (truncated?)")
        following = by_offset[i + 1] if i + 1 < len(by_offset) else None
        if end > (following[1].header_offset if following else directory):
            other = f"the {following[0]} member" if following else "the zip directory"
            raise ArchiveError(f"the {key} member overlaps {other} (crafted?)")


def _check_format(meta: dict[str, Any], spec: _Spec) -> None:
    if meta.get("format") != spec.format:
        raise ArchiveError(f"not a holovec {spec.what} (format {short_repr(meta.get('format'))})")
    version = meta.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version not in spec.versions:
        known = sorted(spec.versions)
        reads = f"version {known[0]}" if len(known) == 1 else f"versions {', '.join(map(str, known))}"
        raise ArchiveError(
            f"{spec.what} format version {short_repr(version)} is not supported (this holovec reads {reads})"
        )


def check_dim_fits(dim: int, header: Header, name: str, axis: int = -1, *, given: int | None = None) -> None:
    """``ValueError`` unless a vector of ``dim`` elements fits in ``axis`` of the array
    ``name`` (of at least one axis) as its ``header`` says it is stored: no model keeps an
    element in less than a bit; and, where the array is empty (no bytes of the file back
    the length its header names), unless ``dim`` is at most :data:`MAX_UNBACKED_DIM` or
    a model made beforehand is ``given`` (its dim, which the caller compares with the
    record's once read: the file's dim then makes nothing).

    For a ``check`` given to :func:`read_archive`, which runs before any data is read: a
    record that declares a larger dim than its arrays can hold is refused before a model
    of that dim is made (whose creation allocates in proportion to the dim, not to the
    file). The model's own vector length is checked once it is made."""
    length = header.shape[axis]
    bits = 8 * header.dtype.itemsize * length
    if dim > bits:
        raise ArchiveError(
            f"the metadata says dim {dim}, but the {name} array holds vectors of {length} "
            f"{header.dtype.name} ({bits} bits: at most {bits} elements)"
        )
    if math.prod(header.shape) == 0:
        _check_unbacked(dim, given, f"the {name} array is empty (shape {header.shape})")


def check_dim_backed(dim: int, headers: Mapping[str, Header], *, given: int | None = None) -> None:
    """``ValueError`` unless the model dim ``dim`` that a record names is backed by the
    file's bytes: a vector of ``dim`` elements fits in the last axis of the widest array
    (by bits) that holds data (see :func:`check_dim_fits`); where every array is empty
    (an empty memory or codebook), ``dim`` is at most :data:`MAX_UNBACKED_DIM`, unless a
    model made beforehand is ``given`` (its dim: the caller compares it with the record's).

    Every archive kind that makes a model from its record calls this in its ``check``
    (before any data is read and before the model is made), so that no file makes a
    model larger than its bytes allow, whatever its record and vector length say."""
    shaped = {n: h for n, h in headers.items() if h.shape}
    filled = {n: h for n, h in shaped.items() if math.prod(h.shape) > 0}
    pool = filled or shaped
    if not pool:
        _check_unbacked(dim, given, "the file holds no array")
        return
    widest = max(pool, key=lambda n: (pool[n].dtype.itemsize * pool[n].shape[-1], n))
    check_dim_fits(dim, pool[widest], widest, given=given)


def _check_unbacked(dim: int, given: int | None, why: str) -> None:
    """``ArchiveError`` if ``dim``, backed by no bytes (``why``), is above the limit and no
    model is ``given``."""
    if dim > MAX_UNBACKED_DIM and given is None:
        raise ArchiveError(
            f"the metadata says dim {dim}, but {why}: no bytes of the file back that dim, and a "
            f"file that holds no vector of its model may name a dim of at most {MAX_UNBACKED_DIM} "
            "(load it into a model of that dim made beforehand: model=...)"
        )
