"""Labels in a file: ``str``, ``bytes``, ``int``, ``float``, ``bool`` and tuples of them,
written as a JSON array of tagged records that come back as the same values and types
(``1``, ``1.0``, ``True`` and ``"1"`` stay apart; floats are written exactly, in hex)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np


def _encode_label(label: Any) -> list:
    if isinstance(label, (bool, np.bool_)):
        return ["b", bool(label)]
    if isinstance(label, (int, np.integer)):
        return ["i", int(label)]
    if isinstance(label, (float, np.floating)):
        return ["f", float(label).hex()]
    if isinstance(label, str):
        return ["s", str(label)]
    if isinstance(label, bytes):
        return ["y", label.hex()]
    if isinstance(label, tuple):
        return ["t", [_encode_label(x) for x in label]]
    raise TypeError(type(label).__name__)


def encode_labels(labels: list[Any]) -> str:
    """``labels`` as JSON text; ``TypeError`` naming a label of another type."""
    out = []
    for label in labels:
        try:
            out.append(_encode_label(label))
        except TypeError as e:
            raise TypeError(
                "only str, bytes, int, float and bool labels, and tuples of them, can be saved; "
                f"label {label!r} holds a {e}"
            ) from None
    return json.dumps(out)


def _decode_label(item: Any) -> Any:
    if isinstance(item, list) and len(item) == 2:
        tag, value = item
        if tag == "b" and isinstance(value, bool):
            return value
        if tag == "i" and isinstance(value, int) and not isinstance(value, bool):
            return value
        if tag == "f" and isinstance(value, str):
            return float.fromhex(value)
        if tag == "s" and isinstance(value, str):
            return value
        if tag == "y" and isinstance(value, str):
            try:
                return bytes.fromhex(value)
            except ValueError:
                pass
        if tag == "t" and isinstance(value, list):
            return tuple(_decode_label(x) for x in value)
    raise ValueError(f"bad label record {item!r} in codebook file")


def decode_labels(labels_json: str) -> list[Any]:
    """The labels of :func:`encode_labels`' text; ``ValueError`` for anything else."""
    try:
        records = json.loads(labels_json)
        if not isinstance(records, list):
            raise ValueError("the labels are not a JSON array")
        return [_decode_label(x) for x in records]
    except RecursionError:
        raise ValueError("bad labels: nested too deeply") from None
    except (ValueError, TypeError, OverflowError) as e:
        raise ValueError(f"bad labels: {e}") from None
