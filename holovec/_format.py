"""holovec archives: named NumPy arrays and one JSON record in a ``.npz`` file, validated.

An archive is a zip of ``.npy`` members: one per array (numbers only: dtype kinds ``b``,
``i``, ``u``, ``f``, ``c``; no pickle) and ``metadata``, a 0-d string holding a JSON object
whose fields ``format`` and ``version`` say what the file is, plus checksums. The default
:class:`Checksums` scheme adds

- ``sha256_arrays``: each array's name -> SHA-256 of its dtype (``dtype.str``), shape and
  bytes as stored;
- ``sha256_metadata``: SHA-256 of every other field (``sha256_arrays`` included, so the
  arrays too) as canonical JSON.

A format may keep checksums of its own (the codebook's predate this module) by passing a
subclass of :class:`Checksums`. The checksums find damage and edits; they are no signature.

:func:`read_archive` reads only regular files (a device such as ``/dev/zero``, a named
pipe or a directory is refused before anything is read). It reads the zip directory, the
members' local headers and the ``.npy`` headers first and checks every name, dtype, shape
and size against the file before it reads any data: members lie within the file and do
not overlap, so stored arrays total at most the file's size; a deflated member expands at
most as far as deflate can (1032-fold) and is hashed block by block before it is kept; the
metadata, which must be parsed before its checksum can be checked, at most
:data:`METADATA_RATIO`-fold. A crafted or damaged file is so refused with a ``ValueError``
(naming the file and the problem) using memory bounded by the file's own size. Big-endian
arrays come back in native byte order.

:func:`write_archive` writes a new file beside the old one and renames it over the old one
when complete, so that a save that fails part-way (a full disk) leaves the previous file
whole.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import math
import os
import re
import secrets
import stat
import struct
import zipfile
from collections.abc import Callable, Collection, Mapping
from os import PathLike
from typing import Any, BinaryIO, NamedTuple

import numpy as np

__all__ = [
    "CHECKSUMS",
    "ArchiveError",
    "Checksums",
    "Header",
    "archive_record",
    "check_dim_fits",
    "is_sha256",
    "metadata_checksum",
    "read_archive",
    "short_repr",
    "source_name",
    "write_archive",
]

#: the metadata record may hold this many bytes (UTF-32, as NumPy stores strings) ...
METADATA_BYTES = 64 * 2**20
#: ... plus this many per row (first axis) of the arrays, e.g. a label per vector
METADATA_BYTES_PER_ROW = 4096
#: a deflated metadata record may expand this much (it is parsed, at up to 6 times its
#: size, before its checksum can be checked; holovec's records, JSON text as UTF-32, deflate
#: about 10- to 100-fold), or to METADATA_INFLATED_BYTES whatever its ratio
METADATA_RATIO = 128
METADATA_INFLATED_BYTES = 2**20
#: deflate expands data at most 1032-fold: a member that declares more is crafted
_DEFLATE_RATIO = 1032
#: a zip member's local header: signature, 5 shorts, 3 longs, name and extra lengths
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")
#: bytes of an array read (and hashed) at a time
_READ_BYTES = 2**20
#: the longest .npy header read (NumPy's own limit is 10,000 characters)
_HEADER_BYTES = 65536
_NAME = re.compile("[A-Za-z_][A-Za-z0-9_]{0,99}")
_HEX64 = re.compile("[0-9a-f]{64}")


class ArchiveError(ValueError):
    """A bad archive, found by the reader (raised to callers as a plain ``ValueError``)."""


class Header(NamedTuple):
    """What an array's ``.npy`` header says, checked against the file."""

    shape: tuple[int, ...]
    dtype: np.dtype


def short_repr(value: Any, limit: int = 80) -> str:
    """``repr(value)``, cut to ``limit`` characters (values from files may be huge)."""
    if isinstance(value, (list, dict, tuple)):
        return f"a JSON {'object' if isinstance(value, dict) else 'array'}"
    try:
        text = repr(value)
    except ValueError:  # an int too long to print
        return type(value).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


# -- checksums ---------------------------------------------------------------------------------
class Checksums:
    """Where a record keeps its checksums and what they cover: the default scheme
    (``sha256_arrays`` and a required ``sha256_metadata``, see the module's docstring).
    Subclass it to keep another format's fields."""

    #: the record's fields that :meth:`sign` writes (callers may not set them)
    fields: tuple[str, ...] = ("sha256_arrays", "sha256_metadata")
    #: whether a record without ``sha256_metadata`` is refused
    metadata_required = True

    def array_hash(self, meta: Mapping[str, Any], name: str, dtype: np.dtype, shape: tuple[int, ...]) -> Any:
        """The hash of array ``name``, fed everything but the array's bytes."""
        h = hashlib.sha256()
        h.update(str(dtype.str).encode() + str(tuple(shape)).encode())
        return h

    def array_digest(self, meta: Mapping[str, Any], name: str) -> str:
        """The hex digest the record holds for array ``name`` (after :meth:`check_fields`)."""
        return meta["sha256_arrays"][name]

    def sign_arrays(self, record: dict[str, Any], arrays: Mapping[str, np.ndarray]) -> None:
        """Add the arrays' checksums to ``record``."""
        record["sha256_arrays"] = {name: self.digest(record, name, a) for name, a in arrays.items()}

    def check_fields(self, meta: Mapping[str, Any], names: Collection[str]) -> None:
        """``ArchiveError`` (no path) unless the checksum fields are well formed, the
        arrays' fields name exactly the arrays ``names`` and the metadata's checksum holds."""
        self.check_array_fields(meta, names)
        _check_metadata_digest(meta, self.metadata_required)

    def check_array_fields(self, meta: Mapping[str, Any], names: Collection[str]) -> None:
        """``ArchiveError`` (no path) unless the arrays' checksum fields are well formed and
        name exactly the arrays ``names``."""
        field = meta.get("sha256_arrays")
        if not isinstance(field, dict) or not all(is_sha256(v) for v in field.values()):
            raise ArchiveError("bad or missing sha256_arrays in the metadata")
        if set(field) != set(names):
            raise ArchiveError(
                f"the metadata has checksums of arrays {sorted(field)!r}, the archive holds {sorted(names)!r}"
            )

    def mismatch(self, name: str) -> str:
        """The message for array ``name`` whose checksum does not hold."""
        return f"checksum mismatch: the {name} array was changed or damaged"

    def digest(self, record: Mapping[str, Any], name: str, array: np.ndarray) -> str:
        h = self.array_hash(record, name, array.dtype, array.shape)
        h.update(np.ascontiguousarray(array).tobytes())
        return h.hexdigest()

    def sign(self, record: dict[str, Any], arrays: Mapping[str, np.ndarray]) -> None:
        """Add every checksum to ``record``: the arrays', then the metadata's."""
        self.sign_arrays(record, arrays)
        record["sha256_metadata"] = metadata_checksum(record)


CHECKSUMS = Checksums()


def metadata_checksum(meta: Mapping[str, Any]) -> str:
    """SHA-256 of every field of the record but ``sha256_metadata``, as canonical JSON."""
    record = {k: v for k, v in meta.items() if k != "sha256_metadata"}
    text = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def is_sha256(value: Any) -> bool:
    """Whether ``value`` is a SHA-256 hex digest (64 lowercase hexadecimal digits)."""
    return isinstance(value, str) and _HEX64.fullmatch(value) is not None


def _check_metadata_digest(meta: Mapping[str, Any], required: bool) -> None:
    if "sha256_metadata" not in meta:
        if required:
            raise ArchiveError("the metadata lacks its checksum sha256_metadata")
        return
    if not is_sha256(meta["sha256_metadata"]):
        raise ArchiveError("bad sha256_metadata in the metadata: expected 64 hexadecimal digits")
    if metadata_checksum(meta) != meta["sha256_metadata"]:
        raise ArchiveError(
            "checksum mismatch: the metadata was changed or damaged (its checksum covers every field)"
        )


# -- writing -----------------------------------------------------------------------------------
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
        if not isinstance(name, str) or not _NAME.fullmatch(name) or name == "metadata":
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
    kind = _kind_of_file(mode)
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


def check_dim_fits(dim: int, header: Header, name: str, axis: int = -1) -> None:
    """``ValueError`` unless a vector of ``dim`` elements fits in ``axis`` of the array
    ``name`` (of at least one axis) as its ``header`` says it is stored: no model keeps an
    element in less than a bit.

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


# -- reading -----------------------------------------------------------------------------------
def source_name(source: Any, what: str = "holovec") -> Any:
    """How messages name ``source``: the path, or the name of a file object (if it has one)."""
    if _is_file(source):
        name = getattr(source, "name", None)
        return name if isinstance(name, (str, bytes, PathLike)) else f"the {what} file"
    return source


def _is_file(source: Any) -> bool:
    return hasattr(source, "read") and hasattr(source, "seek")


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
    if not isinstance(source, (str, bytes, PathLike)) and not _is_file(source):
        raise TypeError(f"path must be a file name, a path or a binary file, got {type(source).__name__}")
    where = source_name(source, what)
    spec = _Spec(
        format, {versions} if isinstance(versions, int) else set(versions), what, arrays, check, checksums
    )
    if _is_file(source):
        _check_regular(_file_mode(source), where, what)
        return _read_or_refuse(source, where, spec)
    with _open_regular(source, where, what) as fh:
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


# -- what is read: regular files only -----------------------------------------------------------
def _open_regular(path: str | bytes | PathLike, where: Any, what: str) -> BinaryIO:
    """``path`` opened for reading if it is a regular file: a device (``/dev/zero`` reads
    forever), a named pipe (whose opening waits for a writer) or a directory is refused
    with a ``ValueError``. ``OSError`` (a missing file, no permission) as ``open`` raises it."""
    _check_regular(os.stat(path).st_mode, where, what)
    # opened without waiting, should a pipe take the file's place meanwhile; checked again
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0))
    try:
        _check_regular(os.fstat(fd).st_mode, where, what)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def _file_mode(fh: Any) -> int | None:
    """The ``st_mode`` of the file behind the file object ``fh`` (None for one without a
    file descriptor, such as ``io.BytesIO``)."""
    try:
        return os.fstat(fh.fileno()).st_mode
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both of the last
        return None


def _check_regular(mode: int | None, where: Any, what: str) -> None:
    """``ValueError`` naming ``where`` and what it is, unless ``mode`` is a regular file's
    (or unknown: None)."""
    kind = _kind_of_file(mode)
    if kind is not None:
        raise ValueError(
            f"{where} is {kind}, not a regular file (holovec reads {what} files from regular files only)"
        )


def _kind_of_file(mode: int | None) -> str | None:
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
                headers[name], offsets[name] = _array_header(zf, info, name)
                shape = headers[name].shape
                rows += shape[0] if shape and math.prod(shape[1:]) > 0 else 0  # at most the file's bytes
        meta = _read_metadata(
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
            out[name] = _read_array(
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
    if "metadata" not in found or not all(_NAME.fullmatch(n) for n in found):
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


def _read_exact(f: Any, n: int, what: str) -> bytes:
    data = f.read(n)
    if len(data) != n:
        raise ArchiveError(f"the {what} member ends early (truncated?)")
    return data


def _npy_header(
    zf: zipfile.ZipFile, info: zipfile.ZipInfo, what: str
) -> tuple[tuple[int, ...], bool, np.dtype, int]:
    """Shape, Fortran order, dtype and header length of a ``.npy`` member, from its header
    alone (bounded: NumPy's readers then parse at most ``_HEADER_BYTES``)."""
    with zf.open(info) as f:
        magic = _read_exact(f, 8, what)
        if magic[:6] != b"\x93NUMPY":
            raise ArchiveError(f"the {what} member is no .npy array")
        version = (magic[6], magic[7])
        if version not in ((1, 0), (2, 0)):
            raise ArchiveError(f"the {what} member has .npy format version {version}, not 1.0 or 2.0")
        size_format = "<H" if version == (1, 0) else "<I"
        size_bytes = _read_exact(f, struct.calcsize(size_format), what)
        (length,) = struct.unpack(size_format, size_bytes)
        if length > _HEADER_BYTES:
            raise ArchiveError(f"the {what} member's .npy header is {length} bytes long")
        header = _read_exact(f, length, what)
    reader = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
    try:
        shape, fortran, dtype = reader(io.BytesIO(size_bytes + header))
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError, UnicodeDecodeError) as e:
        raise ArchiveError(f"the {what} member's .npy header is not valid: {e}") from None
    return tuple(shape), bool(fortran), dtype, 8 + len(size_bytes) + length


def _array_header(zf: zipfile.ZipFile, info: zipfile.ZipInfo, name: str) -> tuple[Header, int]:
    """The checked header of array ``name`` and the offset of its data: numbers, C order,
    and exactly as many bytes as the shape needs."""
    shape, fortran, dtype, header_len = _npy_header(zf, info, name)
    if dtype.hasobject or dtype.names is not None or dtype.subdtype is not None or dtype.kind not in "biufc":
        raise ArchiveError(f"the {name} array holds no numbers (dtype {dtype.descr!r})")
    if any(n < 0 for n in shape):
        raise ArchiveError(f"the {name} member's header says shape {shape}")
    n_bytes = math.prod(shape) * dtype.itemsize
    if header_len + n_bytes != info.file_size:
        raise ArchiveError(
            f"the {name} array's header says shape {shape} of {dtype.name} ({n_bytes} bytes), "
            f"but the archive holds {info.file_size - header_len} bytes of them"
        )
    if fortran:
        raise ArchiveError(f"the {name} array is stored in Fortran order; holovec writes C order")
    return Header(shape, dtype), header_len


def _read_metadata(zf: zipfile.ZipFile, info: zipfile.ZipInfo, what: str, limit: int) -> dict[str, Any]:
    shape, _, dtype, header_len = _npy_header(zf, info, "metadata")
    if shape != () or dtype.kind != "U" or dtype.itemsize == 0:
        raise ArchiveError(f"the metadata is no string (dtype {dtype.str}, shape {shape})")
    if header_len + dtype.itemsize != info.file_size:
        raise ArchiveError("the metadata's header and size disagree")
    if dtype.itemsize > limit:
        raise ArchiveError(f"the metadata is {dtype.itemsize} bytes long, more than {limit} (crafted?)")
    # parsed before its checksum can be checked: it may not expand like a deflate bomb
    inflated = max(METADATA_INFLATED_BYTES, METADATA_RATIO * info.compress_size)
    if info.compress_type != zipfile.ZIP_STORED and info.file_size > inflated:
        raise ArchiveError(
            f"the metadata member declares {info.file_size} bytes from {info.compress_size} compressed "
            f"ones, more than a holovec record compresses ({METADATA_RATIO}-fold; crafted?)"
        )
    with zf.open(info) as f:
        _read_exact(f, header_len, "metadata")
        # the bytes (4 a character) are dropped once decoded, before the text is parsed
        text = str(np.frombuffer(_read_exact(f, dtype.itemsize, "metadata"), dtype=dtype)[0])
    try:
        meta = json.loads(text, object_pairs_hook=_record)
    except RecursionError:
        raise ArchiveError(f"the {what}'s metadata is nested too deeply") from None
    except (ValueError, TypeError, UnicodeError):
        raise ArchiveError(f"the {what}'s metadata is not a JSON record") from None
    if not isinstance(meta, dict):
        raise ArchiveError(f"the {what}'s metadata is not a JSON record")
    return meta


def _record(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise ValueError("a JSON object names a field twice")
    return out


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


def _read_array(
    zf: zipfile.ZipFile,
    info: zipfile.ZipInfo,
    header_len: int,
    name: str,
    header: Header,
    h: Any,
    expected: str,
    mismatch: str,
) -> np.ndarray:
    """The array, read only as far as the checksum allows: a stored member (whose bytes are
    in the file) is read and hashed in one pass; a deflated one (which may expand
    1032-fold) is hashed first, by blocks, and read only if the checksum holds."""
    shape, dtype = header
    n_bytes = math.prod(shape) * dtype.itemsize

    def stream(into: np.ndarray | None) -> None:
        with zf.open(info) as f:
            _read_exact(f, header_len, name)
            pos = 0
            while pos < n_bytes:
                block = _read_exact(f, min(_READ_BYTES, n_bytes - pos), name)
                if into is None:
                    h.update(block)
                else:
                    into[pos : pos + len(block)] = np.frombuffer(block, dtype=np.uint8)
                pos += len(block)

    if info.compress_type == zipfile.ZIP_STORED:  # its bytes are in the file: read them once
        out = np.empty(shape, dtype=dtype)
        flat = out.reshape(-1).view(np.uint8)
        stream(flat)
        h.update(flat)
        if h.hexdigest() != expected:
            raise ArchiveError(mismatch)
        return out
    stream(None)
    if h.hexdigest() != expected:
        raise ArchiveError(mismatch)
    out = np.empty(shape, dtype=dtype)
    stream(out.reshape(-1).view(np.uint8))
    return out
