"""Checksums of an archive's arrays and record (the default scheme, and the base of a
format's own, such as the codebook's in :mod:`holovec._format.codebook`)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Collection, Mapping
from typing import Any

import numpy as np

from .common import ArchiveError

_HEX64 = re.compile("[0-9a-f]{64}")


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
