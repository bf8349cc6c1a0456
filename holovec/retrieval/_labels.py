"""A codebook's labels as keys: which labels are the same label, and the row of each."""

from __future__ import annotations

from typing import Any

import numpy as np


def label_key(label: Any) -> Any:
    """A hashable key that keeps label types apart (``1``, ``1.0``, ``True``, ``"1"``), also
    inside tuples; NumPy scalars count as the Python values they hold (as after a reload)."""
    if isinstance(label, np.generic):
        label = label.item()
    if isinstance(label, tuple):
        return ("tuple", tuple(label_key(x) for x in label))
    return (type(label).__name__, label)


def checked_key(label: Any) -> Any:
    """:func:`label_key` of ``label``; ``TypeError`` for a label that cannot be hashed."""
    key = label_key(label)
    try:
        hash(key)
    except TypeError:
        raise TypeError(
            f"labels must be hashable (str, bytes, int, float, bool or a tuple of them, ...), "
            f"got {type(label).__name__} {label!r}"
        ) from None
    return key


def label_rows(labels: list[Any]) -> dict[Any, int]:
    """The row of each label by its key; ``ValueError`` for a label given twice."""
    rows = {}
    for i, label in enumerate(labels):
        key = checked_key(label)
        if key in rows:
            raise ValueError(f"duplicate label {label!r}; a codebook's labels must be distinct")
        rows[key] = i
    return rows
