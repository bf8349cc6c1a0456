"""Reading the members of an archive: ``.npy`` headers checked against the zip's sizes
before any data is read, the metadata record parsed within bounds, and arrays read only
as far as their checksums allow (a deflated member is hashed before it is kept)."""

from __future__ import annotations

import io
import json
import math
import struct
import zipfile
from typing import Any

import numpy as np

from .common import ArchiveError, Header

#: a deflated metadata record may expand this much (it is parsed, at up to 6 times its
#: size, before its checksum can be checked; holovec's records, JSON text as UTF-32, deflate
#: about 10- to 100-fold), or to METADATA_INFLATED_BYTES whatever its ratio
METADATA_RATIO = 128
METADATA_INFLATED_BYTES = 2**20
#: bytes of an array read (and hashed) at a time
_READ_BYTES = 2**20
#: the longest .npy header read (NumPy's own limit is 10,000 characters)
_HEADER_BYTES = 65536


def read_exact(f: Any, n: int, what: str) -> bytes:
    data = f.read(n)
    if len(data) != n:
        raise ArchiveError(f"the {what} member ends early (truncated?)")
    return data


def npy_header(
    zf: zipfile.ZipFile, info: zipfile.ZipInfo, what: str
) -> tuple[tuple[int, ...], bool, np.dtype, int]:
    """Shape, Fortran order, dtype and header length of a ``.npy`` member, from its header
    alone (bounded: NumPy's readers then parse at most ``_HEADER_BYTES``)."""
    with zf.open(info) as f:
        magic = read_exact(f, 8, what)
        if magic[:6] != b"\x93NUMPY":
            raise ArchiveError(f"the {what} member is no .npy array")
        version = (magic[6], magic[7])
        if version not in ((1, 0), (2, 0)):
            raise ArchiveError(f"the {what} member has .npy format version {version}, not 1.0 or 2.0")
        size_format = "<H" if version == (1, 0) else "<I"
        size_bytes = read_exact(f, struct.calcsize(size_format), what)
        (length,) = struct.unpack(size_format, size_bytes)
        if length > _HEADER_BYTES:
            raise ArchiveError(f"the {what} member's .npy header is {length} bytes long")
        header = read_exact(f, length, what)
    reader = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
    try:
        shape, fortran, dtype = reader(io.BytesIO(size_bytes + header))
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError, UnicodeDecodeError) as e:
        raise ArchiveError(f"the {what} member's .npy header is not valid: {e}") from None
    return tuple(shape), bool(fortran), dtype, 8 + len(size_bytes) + length


def array_header(zf: zipfile.ZipFile, info: zipfile.ZipInfo, name: str) -> tuple[Header, int]:
    """The checked header of array ``name`` and the offset of its data: numbers, C order,
    and exactly as many bytes as the shape needs."""
    shape, fortran, dtype, header_len = npy_header(zf, info, name)
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


def read_metadata(zf: zipfile.ZipFile, info: zipfile.ZipInfo, what: str, limit: int) -> dict[str, Any]:
    shape, _, dtype, header_len = npy_header(zf, info, "metadata")
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
        read_exact(f, header_len, "metadata")
        # the bytes (4 a character) are dropped once decoded, before the text is parsed
        text = str(np.frombuffer(read_exact(f, dtype.itemsize, "metadata"), dtype=dtype)[0])
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


def read_array(
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
            read_exact(f, header_len, name)
            pos = 0
            while pos < n_bytes:
                block = read_exact(f, min(_READ_BYTES, n_bytes - pos), name)
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
