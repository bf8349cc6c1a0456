"""What every part of the archive format shares: its error, an array's header, short
reprs of values read from files, and the rule for array names."""

from __future__ import annotations

import re
from typing import Any, NamedTuple

import numpy as np

#: an array's name in an archive: an identifier (``metadata`` is the record's)
ARRAY_NAME = re.compile("[A-Za-z_][A-Za-z0-9_]{0,99}")


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
