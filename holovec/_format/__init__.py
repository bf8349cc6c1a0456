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

The checksums are no signature, so every size a record names is bounded by the bytes that
back it before anything is made of it: a model's dim by the arrays that hold its vectors
(:func:`check_dim_backed`, the one rule of every archive kind; a file whose arrays are all
empty names a dim of at most :data:`MAX_UNBACKED_DIM`), counts of rows by the arrays' shapes
and labels by the record's bytes.

:func:`write_archive` writes a new file beside the old one and renames it over the old one
when complete, so that a save that fails part-way (a full disk) leaves the previous file
whole.

The package's modules, one job each: :mod:`~holovec._format.common` (the error, headers),
:mod:`~holovec._format.checksums`, :mod:`~holovec._format.files` (regular files only),
:mod:`~holovec._format.write`, :mod:`~holovec._format.read` and
:mod:`~holovec._format.npy` (the members, read within bounds), and, on top of them,
:mod:`~holovec._format.codebook`, the codebook's file format (its labels in
:mod:`~holovec._format.labels`).
"""

from .checksums import CHECKSUMS, Checksums, is_sha256, metadata_checksum
from .common import ArchiveError, Header, short_repr
from .files import source_name
from .npy import METADATA_INFLATED_BYTES, METADATA_RATIO
from .read import (
    MAX_UNBACKED_DIM,
    METADATA_BYTES,
    METADATA_BYTES_PER_ROW,
    check_dim_backed,
    check_dim_fits,
    read_archive,
)
from .write import archive_record, write_archive

__all__ = [
    "CHECKSUMS",
    "MAX_UNBACKED_DIM",
    "METADATA_BYTES",
    "METADATA_BYTES_PER_ROW",
    "METADATA_INFLATED_BYTES",
    "METADATA_RATIO",
    "ArchiveError",
    "Checksums",
    "Header",
    "archive_record",
    "check_dim_backed",
    "check_dim_fits",
    "is_sha256",
    "metadata_checksum",
    "read_archive",
    "short_repr",
    "source_name",
    "write_archive",
]
